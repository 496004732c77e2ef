"""The expert's work queue (Patel et al. 2013, section 5): export the messages routed to a human
(decision EXPERT: with the budget policy, the riskiest messages within the expert budget; with
the paper's policy, those on which Seek&Hide and the learnt model disagree), most uncertain
first, then fold the expert's answers back.

export_queue reads a classified file (columns CLASSIFIED_COLUMNS, optional `risk`) and
writes its EXPERT rows, most uncertain first, with the words to look at, a short reason and
two empty columns for the expert: expert_decision (TA / NTA) and expert_hide (words to hide,
separated by ';'). CSV/TSV exports are made safe to open in a spreadsheet (formula cells
neutralised, UTF-8 with BOM); JSONL is exported as is; HTML is a self-contained page for
reading only.

apply_decisions reads the expert's file back and writes FINAL: every classified row plus
`final` (TA / NTA, or EXPERT while undecided) and `final_text` (the working copy, with
replacement codes). An answer about one message never teaches a word for the others: a
word is learnt only with an explicit scope, in the review workspace (triage.review_workspace).
"""

from __future__ import annotations

import functools
import html
import math
import os
import re
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from itertools import repeat
from pathlib import Path
from typing import NamedTuple, Sequence

from triage import lexicons as lexicon_module
from triage.errors import BadInput, BadOption, InputError
from triage.io import outputs
from triage.io.formats import format_for
from triage.io.jsonl import JSONTooDeep, parse_json
from triage.io.labels import parse_labels
from triage.io.messages import Message, MessageTable, Records, duplicate_ids, open_messages, source_name
from triage.io.spreadsheets import restore_formula
from triage.io.writing import TableWriter, table_output
from triage.queue.handover import LeanRows, cells_of, lean_cells
from triage.queue.reasons import Spot, label_words, reason, spots, unique, word_key, word_pattern
from triage.schema import (
    CLASSIFIED_COLUMNS,
    DECISIONS,
    EXPERT,
    FINAL_COLUMNS,
    NTA,
    QUEUE_COLUMNS,
    RISK_COLUMN,
    TA,
)
from triage.seekhide import SeekAndHide

__all__ = [
    "CLASSIFIED_COLUMNS",
    "FINAL_COLUMNS",
    "QUEUE_COLUMNS",
    "QUEUE_FORMATS",
    "ApplySummary",
    "QueueSummary",
    "ExpertAnswer",
    "apply_decisions",
    "export_queue",
    "import_answers",
    "queue_format",
    "read_decisions",
]

QUEUE_FORMATS = ("csv", "tsv", "jsonl", "html", "xlsx")
LOOK_AT_SEPARATOR = "; "  # the expert can paste a look_at cell into expert_hide as is
MAX_REASONS = 8  # reasons listed in `why` before "and N more"
_HIDE_SEPARATORS = re.compile(r"[;,\s]+")
_EDGE_PUNCTUATION = re.compile(r"^[\W_]+|[\W_]+$")  # "Pierre." or "'Kon'" typed in a cell
_SPACES = re.compile(r"\s+")
_SHOWN_ERRORS = 3
#: What the machines find by its form (contact details): an NTA over them releases them.
CONTACT_TAGS = frozenset({"TEL", "MEL", "ADR", "URL", "COD"})


# ------------------------------------------------------------------------ summaries


@dataclass
class QueueSummary:
    output: Path | None
    format: str  # csv, tsv, jsonl or html ("cells" in memory)
    queued: int  # messages in the queue (decision EXPERT)
    total: int  # messages read from the classified file
    rows: list[list] | None = None  # with no output file: the queue, cells in QUEUE_COLUMNS order


@dataclass
class ApplySummary:
    output: Path | None
    total: int  # rows of the classified file (all written to FINAL)
    decided: int  # rows the expert decided (TA + NTA)
    undecided: int  # EXPERT rows without an answer yet: final EXPERT, anonymised text released
    ta: int  # expert decisions TA
    nta: int  # expert decisions NTA
    finals: dict[str, int]  # FINAL rows by final label (TA, NTA, EXPERT)
    columns: list[str] | None = None  # with no output file: the columns and rows of FINAL
    rows: list[list] | None = None


# ---------------------------------------------------------------------- the rows


@dataclass
class _Row:
    message: Message
    decision: str
    model: str
    score: float
    risk: float | None
    hidden: list[tuple[int, int, str]]
    highlighted: list[str]

    @property
    def text(self) -> str:
        return self.message.text

    @property
    def id(self) -> str:
        return self.message.id

    @property
    def seekhide(self) -> str:
        return self.message.fields.get("seekhide", "").strip().upper()

    @functools.cached_property
    def every_spot(self) -> list:
        """spots(self, all_hidden=True), worked out once: the labelling of the reasons' words,
        the reasons and the HTML page each read them (do not change the list)."""
        return spots(self, all_hidden=True)

    @property
    def order(self) -> tuple:
        """The queue's order: most uncertain first (sort stably, so ties keep the file order)."""
        return _uncertainty_order(self)


ClassifiedRow = _Row  # one parsed row of a classified file (the public name)


def _cell_error(display: str, message: Message, column: str, problem: str) -> InputError:
    return BadInput(f"{display}: line {message.line}: column {column!r} {problem}")


def _decision(message: Message, display: str) -> str:
    value = message.fields.get("decision", "").strip().upper()
    if value not in DECISIONS:
        raise _cell_error(display, message, "decision", f"is {value!r}, not TA, NTA or EXPERT")
    return value


def _number(message: Message, display: str, column: str) -> float | None:
    raw = message.fields.get(column, "").strip()
    if not raw:
        return None
    try:
        value = float(raw.replace(",", "."))  # a decimal comma from a French spreadsheet
    except ValueError:
        value = math.nan
    if not math.isfinite(value):
        raise _cell_error(display, message, column, f"is {raw!r}, not a number")
    return value


def _json_cell(message: Message, display: str, column: str):
    """The JSON value of a cell, or [] when the cell is empty."""
    raw = message.fields.get(column, "").strip()
    if not raw:
        return []
    try:
        return parse_json(raw)
    except JSONTooDeep as err:
        raise _cell_error(display, message, column, f"is {err}") from None
    except ValueError:
        raise _cell_error(display, message, column, "is not JSON") from None


def _parse_hidden(message: Message, display: str) -> list[tuple[int, int, str]]:
    spans = _json_cell(message, display, "hidden")
    size = len(message.text)
    result: list[tuple[int, int, str]] = []
    try:
        for start, end, tag in spans:
            if not (isinstance(start, int) and isinstance(end, int) and isinstance(tag, str)):
                raise TypeError
            if not 0 <= start < end <= size:
                raise _cell_error(display, message, "hidden", f"has span [{start}, {end}] outside the text ({size} characters)")
            result.append((start, end, tag))
    except (TypeError, ValueError):
        raise _cell_error(display, message, "hidden", "is not a JSON list of [start, end, TAG]") from None
    result.sort()
    for (_, end, _), (start, _, _) in zip(result, result[1:]):
        if start < end:
            raise _cell_error(display, message, "hidden", "has overlapping spans")
    return result


def _parse_highlighted(message: Message, display: str) -> list[str]:
    words = _json_cell(message, display, "highlighted")
    if not isinstance(words, list) or not all(isinstance(w, str) for w in words):
        raise _cell_error(display, message, "highlighted", "is not a JSON list of words")
    return words


def _parse_row(message: Message, display: str, decision: str, has_risk: bool) -> _Row:
    score = _number(message, display, "score")
    if score is None or not 0.0 <= score <= 1.0:
        raise _cell_error(display, message, "score", f"is {message.fields.get('score', '')!r}, not a probability")
    return _Row(
        message=message,
        decision=decision,
        model=message.fields.get("model", "").strip().upper(),
        score=score,
        risk=_number(message, display, RISK_COLUMN) if has_risk else None,
        hidden=_parse_hidden(message, display),
        highlighted=_parse_highlighted(message, display),
    )


# The columns of a classified row the queue reads (a held row keeps these cells and no other).
_READ_COLUMNS = ("decision", "seekhide", "model", "score", RISK_COLUMN, "hidden", "highlighted")
# Rows of the queue made at once (their reasons' words labelled together): the memory of the
# export is that of the rows held in their lean form and of one such batch.
QUEUE_BATCH = 2_000


class _HeldRows:
    """The expert's rows of a classified file, held lean until they are written: a row's order in
    the queue (_uncertainty_order) and the cells it reads, joined into one string (lean_cells).
    At a million messages and a budget of 10%, 100,000 parsed rows (each a Message, its cells by
    column, its spans) would take several times the memory; each row is parsed again, a batch
    at a time, in the queue's order (in_order). With a `folder` (the queue's), the lean rows go to a
    scratch file there once they pass LeanRows.IN_MEMORY bytes."""

    def __init__(self, display: str, has_risk: bool, folder: Path | None = None):
        self.display, self.has_risk = display, has_risk
        self._cells = LeanRows(folder)
        self._group: list[int] = []  # the order's first key (0: by risk, 1: by score)
        self._value: list[float] = []  # and its second

    def __len__(self) -> int:
        return len(self._cells)

    def add(self, row: _Row) -> None:
        """Hold a parsed row (checked as it was parsed)."""
        group, value = _uncertainty_order(row)
        self._group.append(group)
        self._value.append(value)
        message = row.message
        self._cells.append(lean_cells((str(message.line), message.id, message.text,
                                       *map(message.fields.get, _READ_COLUMNS, repeat("")))))

    def in_order(self, seeker: SeekAndHide) -> Iterator[_Row]:
        """The rows parsed again in the queue's order (most uncertain first, ties in file order),
        a batch at a time, each batch's reasons' words labelled together (label_words)."""
        import numpy as np

        order = np.lexsort((np.asarray(self._value, dtype=float), np.asarray(self._group, dtype=np.int8)))
        self._group, self._value = [], []
        cells, display, has_risk = self._cells, self.display, self.has_risk
        for start in range(0, len(order), QUEUE_BATCH):
            batch = []
            for i in order[start:start + QUEUE_BATCH].tolist():
                line, ident, text, *read = cells_of(cells[i])
                cells.let_go(i)
                message = Message(int(line), ident, text, dict(zip(_READ_COLUMNS, read)))
                batch.append(_parse_row(message, display, EXPERT, has_risk))
            label_words((row.every_spot for row in batch), seeker)
            yield from batch
        cells.close()


def _open_classified(path: str | os.PathLike[str]) -> MessageTable:
    return open_messages(path, id_column="id", required_columns=CLASSIFIED_COLUMNS)


def read_classified(path: str | os.PathLike[str]) -> list[_Row]:
    """Every row of a classified file, parsed and checked (bad cells, repeated ids: InputError)."""
    table = _open_classified(path)
    display = source_name(path)
    has_risk = RISK_COLUMN in table.columns
    rows: list[_Row] = []

    def keep(message: Message) -> None:
        rows.append(_parse_row(message, display, _decision(message, display), has_risk))

    _refuse_duplicates(display, duplicate_ids(_tap(table, keep)))
    return rows


def _tap(messages: Iterable[Message], action: Callable[[Message], None]) -> Iterator[Message]:
    """Run `action` on each message on its way to duplicate_ids: the file is read once."""
    for message in messages:
        action(message)
        yield message


def _refuse_duplicates(display: str, repeated: dict[str, list[int]]) -> None:
    if not repeated:
        return
    ident, lines = next(iter(repeated.items()))
    where = ", ".join(map(str, lines[:-1])) + f" and {lines[-1]}"
    others = f" ({len(repeated)} repeated ids in total)" if len(repeated) > 1 else ""
    raise BadInput(f"{display}: id {ident!r} appears on lines {where}{others}; ids must be unique")


# -------------------------------------------------------------- words to look at


def _look_at(row: _Row) -> list[str]:
    """The words to look at, unique (ignoring case), in text order, as written."""
    return [spot.text for spot in unique(spots(row))]


def _why(row: _Row, seeker: SeekAndHide) -> str:
    """A one-line explanation: Seek&Hide's label and its reasons, the model's label and p."""
    reasons = [r for spot in unique(row.every_spot) if (r := reason(spot, seeker))]
    if len(reasons) > MAX_REASONS:
        reasons = reasons[:MAX_REASONS] + [f"and {len(reasons) - MAX_REASONS} more"]
    seekhide = row.message.fields.get("seekhide", "").strip()
    if reasons:
        detail = f" ({'; '.join(reasons)})"
    elif seekhide.upper() == NTA:
        detail = " (every word is an ordinary word)"
    else:
        detail = ""
    text = f"Seek&Hide: {seekhide}{detail}; model: {row.message.fields.get('model', '').strip()}, p={row.score:.2f}"
    if row.risk is not None:
        text += f"; risk={row.risk:.2f}"
    return text


# -------------------------------------------------------------------------- export


def queue_format(output_path: str | os.PathLike[str], format: str | None = None) -> str:
    """csv, tsv, jsonl or html: `format` if given, else from the extension (default csv)."""
    if format:
        chosen = format.strip().lower().lstrip(".")
        if chosen in ("htm", "ndjson"):
            chosen = {"htm": "html", "ndjson": "jsonl"}[chosen]
        if chosen not in QUEUE_FORMATS:
            raise BadOption(f"queue format must be one of {', '.join(QUEUE_FORMATS)}, not {format!r}")
        return chosen
    suffix = Path(output_path).suffix.lower()
    if suffix in (".html", ".htm"):
        return "html"
    if suffix == ".xlsx":  # never a CSV under a spreadsheet's name
        return "xlsx"
    return format_for(output_path)


def _uncertainty_order(row: _Row) -> tuple:
    # sorted() is stable, so ties keep the input order.
    if row.risk is not None:
        return (0, -row.risk)
    return (1, abs(row.score - 0.5))


# The same order in SQL, over rows with `risk`, `score` and `position` columns (a review workspace's
# staged rows): the riskiest first, else the model's least certain, ties in corpus order.
UNCERTAINTY_ORDER_SQL = "risk IS NULL, CASE WHEN risk IS NULL THEN abs(score - 0.5) ELSE -risk END, position"


def export_queue(
    classified_path: str | os.PathLike[str] | Records,
    output_path: str | os.PathLike[str] | None,
    *,
    format: str | None = None,
    force: bool = False,
    seeker: SeekAndHide | None = None,
    protect: Sequence[str | os.PathLike[str] | None] = (),
    classified: int | None = None,
) -> QueueSummary:
    """Write the EXPERT rows of a classified file for the expert, most uncertain first
    (by `risk` descending when the file has that column, else by |score - 0.5|).
    `classified_path` may be Records holding only the rows that go to the expert, as classify
    hands them over (triage.queue.handover); `classified` is then how many rows it classified.

    Columns: QUEUE_COLUMNS. The output is private (0o600) and never overwritten without
    `force`. Raises InputError on a bad classified file (missing column, bad value,
    repeated id) before anything is written. With no `output_path`, the queue's rows are kept
    in the summary (the Python API), not neutralised for spreadsheets.
    """
    chosen = queue_format(output_path, format) if output_path is not None else "cells"
    if output_path is not None:
        outputs.check_output(output_path, force=force, inputs=[classified_path, *protect])
    table = _open_classified(classified_path)
    display = source_name(classified_path)
    has_risk = RISK_COLUMN in table.columns
    held = _HeldRows(display, has_risk, Path(output_path).parent if output_path is not None else None)
    total = 0

    def keep(message: Message) -> None:
        nonlocal total
        total += 1
        decision = _decision(message, display)
        if decision == EXPERT:
            held.add(_parse_row(message, display, decision, has_risk))

    _refuse_duplicates(display, duplicate_ids(_tap(table, keep)))
    if classified is not None:
        total = classified
    if seeker is None:
        seeker = SeekAndHide(lexicon_module.default())
    queued = len(held)
    rows = held.in_order(seeker)
    if output_path is None:
        records = [_queue_record(row, seeker) for row in rows]
        return QueueSummary(None, chosen, queued, total, [[r[c] for c in QUEUE_COLUMNS] for r in records])
    encoding = "utf-8-sig" if chosen in ("csv", "tsv") else "utf-8"  # the BOM makes Excel read UTF-8
    with outputs.atomic_output(output_path, force=force, protect=[classified_path, *protect],
                               encoding=encoding) as handle:
        if chosen == "html":
            handle.writelines(_html_page(rows, queued, total, seeker))
        elif chosen == "xlsx":
            from triage.io.spreadsheets import write_into

            records = (_queue_record(row, seeker) for row in rows)
            write_into(handle, QUEUE_COLUMNS, ([r[c] for c in QUEUE_COLUMNS] for r in records), sheet="queue")
        else:
            # Spreadsheet formats get every cell neutralised; JSONL is read by programs.
            writer = TableWriter(handle, QUEUE_COLUMNS, format=chosen, neutralise_formulas=chosen != "jsonl")
            writer.write_many(_queue_record(row, seeker) for row in rows)
    return QueueSummary(Path(output_path), chosen, queued, total)


def _proposal(row: _Row) -> str:
    """The message with each item the machines hid marked as `[TAG: words]`: what TA keeps hidden."""
    parts, at = [], 0
    for start, end, tag in row.hidden:
        parts += [row.text[at:start], f"[{tag}: {row.text[start:end]}]"]
        at = end
    parts.append(row.text[at:])
    return "".join(parts)


def _machines_hide(row: _Row) -> str:
    """The items the machines hid, in text order: `words (TAG)`, separated by `; `."""
    return LOOK_AT_SEPARATOR.join(f"{row.text[start:end]} ({tag})" for start, end, tag in row.hidden)


def _queue_record(row: _Row, seeker: SeekAndHide) -> dict[str, str]:
    fields = row.message.fields
    return {
        "id": row.message.id,
        "text": row.text,
        "proposal": _proposal(row),
        "machines_hide": _machines_hide(row),
        "look_at": LOOK_AT_SEPARATOR.join(_look_at(row)),
        "why": _why(row, seeker),
        "seekhide": fields.get("seekhide", ""),
        "model": fields.get("model", ""),
        "score": fields.get("score", ""),
        "expert_decision": "",
        "expert_hide": "",
    }


_HTML_STYLE = """
body { font-family: system-ui, sans-serif; margin: 1.5em; color: #222; }
table { border-collapse: collapse; width: 100%; }
th, td { border: 1px solid #bbb; padding: 0.35em 0.5em; vertical-align: top; text-align: left; }
th { background: #eee; position: sticky; top: 0; }
td.text { white-space: pre-wrap; max-width: 40em; }
td.why { font-size: 0.9em; color: #444; }
mark { background: #ffe066; }
mark.hidden { background: #ffb3b3; }
mark .tag { font-size: 0.8em; font-weight: 700; color: #6b1010; }
code { background: #f4f4f4; padding: 0 0.2em; }
"""


def _marked_text(text: str, found: list[Spot]) -> str:
    """The message with the words to look at marked, and each item the machines hid marked with
    its tag (the words shown: TA keeps them hidden, NTA releases them)."""
    hidden = [spot for spot in found if spot.tag]
    found = sorted(hidden + [spot for spot in found if not spot.tag and all(
        spot.end <= h.start or spot.start >= h.end for h in hidden)], key=lambda s: (s.start < 0, s.start, s.end))
    parts: list[str] = []
    last = 0
    for spot in found:
        if spot.start < last:  # not found (-1) or overlapping an earlier mark
            continue
        parts.append(html.escape(text[last : spot.start]))
        words = html.escape(text[spot.start : spot.end])
        if spot.tag:
            parts.append(f'<mark class="hidden">{words} <span class="tag">{html.escape(spot.tag)}</span></mark>')
        else:
            parts.append(f"<mark>{words}</mark>")
        last = spot.end
    parts.append(html.escape(text[last:]))
    return "".join(parts)


# How to answer, in the page of the queue: every answer file `--import-queue` and `queue apply` read.
_HTML_ANSWER = """<h2>How to answer</h2>
<p>This page is for reading. The answers go into a copy of the same queue in one of these formats, written by
<code>triage queue export CLASSIFIED -o FILE</code> (or <code>triage classify --queue FILE</code>) with FILE ending
in the format's extension. In each row, fill <code>expert_decision</code> with <strong>TA</strong> (to anonymise)
or <strong>NTA</strong> (nothing to anonymise) and, for TA, <code>expert_hide</code> with the words to hide that the
machines missed, separated by <code>;</code> (every occurrence is hidden, whatever the case). Leave both empty to
decide later. Change no other cell: each answer is checked against the message's <code>id</code> and
<code>text</code>.</p>
<ul>
<li><strong>.xlsx</strong> (Excel, LibreOffice Calc): fill the two columns in the first sheet and save it in the
same format (.xlsx).</li>
<li><strong>.csv</strong>: open it in a spreadsheet or an editor, fill the two columns and save it as CSV, UTF-8,
comma-separated, keeping the header row.</li>
<li><strong>.jsonl</strong>: one JSON object a line; in each, set <code>"expert_decision": "TA"</code> (or
<code>"NTA"</code>) and <code>"expert_hide": "word; other word"</code> (<code>""</code> when there is none).</li>
</ul>
<p><strong>What an answer releases.</strong> TA keeps hidden everything the machines hid (marked in the message
below with its tag, and listed in the file's <code>machines_hide</code> column; the <code>proposal</code> column shows
the message with each of them as <code>[TAG: words]</code>) and hides the <code>expert_hide</code> words too. NTA
releases the message as written: what the machines hid becomes readable. An NTA over phone numbers, e-mail or postal
addresses, links or codes the machines hid is refused on import unless <code>--allow-release-of-hidden</code> is
given.</p>
<p>Then store the answers in the review workspace with <code>triage review CLASSIFIED --workspace WORKSPACE
--import-queue FILE --reviewer NAME</code>, which <code>triage release</code> publishes from.</p>
"""


def _html_page(rows: Iterable[_Row], count: int, total: int, seeker: SeekAndHide) -> Iterator[str]:
    """One self-contained page, a line at a time, for the `count` rows of `rows`: inline CSS, no
    script, no external resource; every value escaped (the Content-Security-Policy forbids
    scripts even if one slipped through)."""
    esc = html.escape
    yield from (line + "\n" for line in [
        "<!DOCTYPE html>",
        '<html lang="fr"><head><meta charset="utf-8">',
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">",
        f"<title>sms-triage: expert queue ({count} messages)</title>",
        f"<style>{_HTML_STYLE}</style></head><body>",
        f"<h1>Expert queue: {count:,} message{'s' if count != 1 else ''} to read</h1>",
        f"<p>{count:,} of {total:,} classified messages need a human decision: the machines "
        "sent them to a human, the most uncertain first.</p>",
        _HTML_ANSWER,
        '<p><mark>word</mark> ambiguous or unknown word, to look at &nbsp; <mark class="hidden">word <span class="tag">TAG</span></mark> '
        "hidden by the machines (TA keeps it hidden, NTA releases it)</p>",
        "<table><thead><tr><th>#</th><th>id</th><th>message</th><th>the machines hide</th><th>look at</th>"
        "<th>why</th><th>Seek&amp;Hide</th><th>model</th><th>score</th></tr></thead><tbody>",
    ])
    for number, row in enumerate(rows, 1):
        fields = row.message.fields
        cells = [
            f"<td>{number}</td>",
            f"<td>{esc(row.message.id)}</td>",
            f'<td class="text">{_marked_text(row.text, row.every_spot)}</td>',
            f"<td>{esc(_machines_hide(row)) or 'nothing'}</td>",
            f"<td>{esc(LOOK_AT_SEPARATOR.join(_look_at(row)))}</td>",
            f'<td class="why">{esc(_why(row, seeker))}</td>',
            f"<td>{esc(fields.get('seekhide', ''))}</td>",
            f"<td>{esc(fields.get('model', ''))}</td>",
            f"<td>{esc(fields.get('score', ''))}</td>",
        ]
        yield "<tr>" + "".join(cells) + "</tr>\n"
    yield "</tbody></table></body></html>\n"


# --------------------------------------------------------------------------- apply


class ExpertAnswer(NamedTuple):
    line: int
    label: str  # TA, NTA or '' (not decided yet)
    hide: list[str]  # the words to hide, as typed (edge punctuation removed)
    text: str | None  # the message as in the expert's file, to check it is the same message


def _split_hide(value: str) -> list[str]:
    words = (_EDGE_PUNCTUATION.sub("", item) for item in _HIDE_SEPARATORS.split(value))
    return list(dict.fromkeys(w for w in words if w))


def _comparable(text: str) -> str:
    # Spreadsheets may change line ends and trailing spaces; nothing else is forgiven.
    return _SPACES.sub(" ", text).strip()


def _raise_collected(errors: list[str], what: str) -> None:
    if errors:
        more = f" ({len(errors)} {what} in total)" if len(errors) > _SHOWN_ERRORS else ""
        raise BadInput("; ".join(errors[:_SHOWN_ERRORS]) + more)


def read_decisions(decisions_path: str | os.PathLike[str]) -> dict[str, ExpertAnswer]:
    """The expert's answers by id. Cells of a CSV/TSV go through restore_formula (the
    export neutralised them); JSONL cells are taken as they are (never neutralised)."""
    display = source_name(decisions_path)
    if not isinstance(decisions_path, Records) and Path(decisions_path).suffix.lower() in (".html", ".htm"):
        raise BadInput(
            f"{display} is the HTML page of the queue, for reading only; fill expert_decision and "
            "expert_hide in the .xlsx, .csv or .jsonl export of the queue and give that file"
        )
    table = open_messages(decisions_path, text_column="id", id_column="id", required_columns=("expert_decision",))
    # Only a spreadsheet export was neutralised; JSONL and DataFrames hold the cells as they are.
    restore = restore_formula if table.format in ("csv", "tsv") else (lambda value: value)
    messages = list(table)  # a queue is small: the expert reads every row
    _refuse_duplicates(display, duplicate_ids(messages))
    has_text = "text" in table.columns
    answers: list[tuple[str, int, str, list[str], str | None]] = []
    errors: list[str] = []
    for message in messages:
        ident = restore(message.fields.get("id", "")).strip()
        if not ident:
            errors.append(f"{display}: line {message.line}: empty id")
            continue
        raw = restore(message.fields.get("expert_decision", "")).strip()
        hide = _split_hide(restore(message.fields.get("expert_hide", "")))
        if hide and not raw:
            errors.append(f"{display}: line {message.line}: expert_hide is filled but expert_decision is empty (write TA)")
        text = restore(message.fields.get("text", "")) if has_text else None
        answers.append((ident, message.line, raw, hide, text))
    _raise_collected(errors, "errors")
    decided = [(line, raw) for _, line, raw, _, _ in answers if raw]
    try:
        labels = iter(parse_labels(decided))
    except InputError as err:
        raise BadInput(f"{display}: expert_decision: {err}") from None
    decisions: dict[str, ExpertAnswer] = {}
    for ident, line, raw, hide, text in answers:
        label = next(labels) if raw else ""
        if label == NTA and hide:
            errors.append(f"{display}: line {line}: expert_decision is NTA but expert_hide lists words to hide")
        decisions[ident] = ExpertAnswer(line, label, hide, text)
    _raise_collected(errors, "errors")
    return decisions


def _expert_spans(
    seeker: SeekAndHide, text: str, hidden: list[tuple[int, int, str]], words: list[str]
) -> tuple[list[tuple[int, int, str]], list[str]]:
    """`hidden` plus every whole-word occurrence of `words` (any case), tagged NOM for a
    known surname, else PRE; also the words that do not occur in `text`."""
    spans = list(hidden)
    missing: list[str] = []
    for word in words:
        hits = list(word_pattern(word).finditer(text))
        if not hits:
            missing.append(word)
        tag = seeker.lexicons.name_entry(word_key(word)).tag  # first names win, unknown -> PRE
        for hit in hits:
            start, end = hit.span()
            if all(end <= s or start >= e for s, e, _ in spans):  # inside a hidden item already: keep that
                spans.append((start, end, tag))
    spans.sort()
    return spans, missing


def apply_decisions(
    decisions_path: str | os.PathLike[str] | Records,
    classified_path: str | os.PathLike[str] | Records,
    output_path: str | os.PathLike[str] | None,
    *,
    force: bool = False,
    seeker: SeekAndHide | None = None,
) -> ApplySummary:
    """Fold the expert's answers into the classified file: write FINAL (the classified
    columns plus FINAL_COLUMNS, same rows, same order). An answer about a message never
    teaches a word for other messages: words are learnt only with an explicit scope, in the
    review workspace (`triage review`).

    final_text: machine TA -> `anonymised`; machine NTA -> `text`; expert TA -> `text` with
    the `hidden` spans and every occurrence of the expert_hide words replaced by codes;
    expert NTA -> `text`; undecided EXPERT -> `anonymised` (final EXPERT). An answer may
    also overrule a machine decision. Everything is checked before anything is written:
    repeated ids in either file, ids unknown to the classified file, a text that differs
    from the classified one, expert_hide words absent from their message.
    """
    decisions = read_decisions(decisions_path)
    decisions_display = source_name(decisions_path)
    table = _open_classified(classified_path)
    display = source_name(classified_path)
    has_risk = RISK_COLUMN in table.columns
    if seeker is None:
        seeker = SeekAndHide(lexicon_module.default())
    columns = [c for c in table.columns if c not in FINAL_COLUMNS] + list(FINAL_COLUMNS)
    counts = Counter()
    finals = Counter()
    seen: set[str] = set()
    errors: list[str] = []

    with table_output(output_path, columns, force=force, protect=[decisions_path, classified_path],
                         extrasaction="ignore") as writer:

        def finish(message: Message) -> None:
            decision = _decision(message, display)
            answer = decisions.get(message.id)
            fields = message.fields
            final, final_text = decision, fields.get("anonymised", "") if decision != NTA else message.text
            if answer is not None:
                seen.add(message.id)
                if answer.text is not None and _comparable(answer.text) != _comparable(message.text):
                    errors.append(
                        f"{decisions_display}: line {answer.line}: id {message.id!r} holds another text than "
                        f"line {message.line} of {display} (was the queue exported from another file?)"
                    )
            if answer is not None and answer.label:
                row = _parse_row(message, display, decision, has_risk)
                counts[answer.label] += 1
                final = answer.label
                if answer.label == TA:
                    spans, missing = _expert_spans(seeker, message.text, row.hidden, answer.hide)
                    errors.extend(
                        f"{decisions_display}: line {answer.line}: id {message.id!r}: '{word}' is not a word of the "
                        "message (write it as in the text, accents included)"
                        for word in missing
                    )
                    final_text = seeker.hide(message.text, spans)
                else:
                    final_text = message.text
            elif decision == EXPERT:
                counts["undecided"] += 1
            finals[final] += 1
            writer.write({**fields, "final": final, "final_text": final_text})

        _refuse_duplicates(display, duplicate_ids(_tap(table, finish)))
        unknown = [(answer.line, ident) for ident, answer in decisions.items() if ident not in seen]
        if unknown:
            shown = ", ".join(f"{ident!r} (line {line})" for line, ident in unknown[:_SHOWN_ERRORS])
            raise BadInput(
                f"{decisions_display}: {len(unknown)} id{'s' if len(unknown) > 1 else ''} not in {display}: {shown}"
                " (check that the queue was exported from this file; a spreadsheet may have changed ids, "
                "e.g. dropped leading zeros)"
            )
        _raise_collected(errors, "problems")

    return ApplySummary(
        output=Path(output_path) if output_path is not None else None,
        total=sum(finals.values()),
        decided=counts[TA] + counts[NTA],
        undecided=counts["undecided"],
        ta=counts[TA],
        nta=counts[NTA],
        finals=dict(finals),
        columns=columns if output_path is None else None,
        rows=getattr(writer, "rows", None),
    )


# -------------------------------------------------------------------------- import


@dataclass
class ImportSummary:
    reviewer: str
    imported: int  # decisions stored
    ta: int
    nta: int
    unchanged: int  # already decided so in the workspace
    undecided: int  # rows left empty in the file: still to decide


def import_answers(decisions_path: str | os.PathLike[str] | Records, workspace, *, reviewer: str,
                   seeker: SeekAndHide | None = None, allow_release_of_hidden: bool = False) -> ImportSummary:
    """A filled queue file into a review workspace (triage.review_workspace.Workspace, opened): each
    decided row becomes a decision of `reviewer`, bound to the text it was made on. TA hides what the
    machines proposed plus every occurrence of the expert_hide words; NTA hides nothing. Everything is
    checked before anything is stored, and nothing is stored if one row is refused: a row whose text is
    not the workspace's message (changed since the queue was exported), an id not in the review list,
    a word absent from its message, a message another decision already settled otherwise, or one the
    team decides in the page: marked for double review (decided blind by two reviewers) or disputed
    (the lead resolves it). A message someone decided between this check and the storing is refused
    too (each decision names the message's version as checked). An NTA over a message where the
    machines hid contact details (TEL MEL ADR URL COD) would make them readable: refused unless
    `allow_release_of_hidden`."""
    answers = read_decisions(decisions_path)
    display = source_name(decisions_path)
    if answers and any(answer.text is None for answer in answers.values()):
        raise BadInput(f"{display} has no text column: a decision is bound to the text it was made on; "
                          "import the queue file as `triage queue export` wrote it")
    if seeker is None:
        seeker = SeekAndHide(lexicon_module.default())
    counts: Counter = Counter()
    stored: list[tuple[str, str, list, str]] = []
    changed, unknown, missing, settled, team, releases = [], [], [], [], [], []
    for ident, answer in answers.items():
        if not answer.label:
            counts["undecided"] += 1
            continue
        try:
            item = workspace.item(ident)
        except KeyError:
            unknown.append(f"{ident!r} (line {answer.line})")
            continue
        if _comparable(answer.text) != _comparable(item.text):
            changed.append(f"{ident!r} (line {answer.line})")
            continue
        spans: list = []
        if answer.label == TA:
            found, absent = _expert_spans(seeker, item.text, [tuple(s) for s in item.proposal], answer.hide)
            spans = [list(span) for span in found]
            missing.extend(f"'{word}' in {ident!r} (line {answer.line})" for word in absent)
        contact = sorted({span[2] for span in item.proposal if span[2] in CONTACT_TAGS})
        if answer.label == NTA and contact and not allow_release_of_hidden:
            releases.append(f"{ident!r} (line {answer.line}, {' '.join(contact)})")
            continue
        if item.status == "disputed" or (item.double and item.status != "decided"):
            team.append(f"{ident!r} (line {answer.line}, {'a disagreement' if item.status == 'disputed' else 'double review'})")
            continue
        if item.status == "decided":
            if item.label == answer.label and [list(s) for s in item.spans or []] == spans:
                counts["unchanged"] += 1
                continue
            settled.append(f"{ident!r} (line {answer.line}, decided {item.label} by {item.reviewer})")
            continue
        stored.append((ident, answer.label, spans, item.text_hash, item.version))
        counts[answer.label] += 1
    problems = [
        (changed, "row{s} whose text is not the message of the review workspace (changed since the queue was "
                  "exported?)"),
        (unknown, "id{s} not in the review list of the workspace"),
        (missing, "word{s} of expert_hide not in {its} message (write {it} as in the text, accents included)"),
        (settled, "message{s} already decided otherwise in the workspace (decide {it} in `triage review`)"),
        (team, "message{s} that two reviewers decide blind or the lead resolves (decide {it} in `triage review`)"),
        (releases, "NTA row{s} over contact details the machines hid, which NTA makes readable (decide {it} TA, "
                   "or give --allow-release-of-hidden to release them)"),
    ]
    for found, what in problems:
        if found:
            one = len(found) == 1
            what = what.format(s="" if one else "s", its="its" if one else "their", it="it" if one else "them")
            shown = ", ".join(found[:_SHOWN_ERRORS]) + (f" and {len(found) - _SHOWN_ERRORS:,} more"
                                                         if len(found) > _SHOWN_ERRORS else "")
            raise BadInput(f"{display}: {len(found):,} {what}: {shown}; nothing was imported")
    imported = workspace.import_decisions(stored, reviewer=reviewer) if stored else 0
    return ImportSummary(reviewer, imported, counts[TA], counts[NTA], counts["unchanged"], counts["undecided"])
