"""The publishable corpus (triage release) and the datasheet that describes it.

Every message of the classified file, in order, with what the machines and the reviewers decided to
hide replaced in one of three styles:
- `tags`: the tag and the length, `<PRE_7>` (the form 88milSMS was published in);
- `pseudonyms`: one numbered tag per entity across the corpus, `<PRE_1>` ... `<PRE_1>` ... `<PRE_2>`;
- `surrogates`: realistic replacements (triage.surrogates), one per entity; the mapping from originals
  to surrogates stays in the review workspace, never in the release.
Dictionary ids and working codes never appear. The input's other columns (donor, date...) are kept in
the input's order, each cell through the same machines as the messages; the raw text and the working
columns are left out. A release is refused while queued messages are undecided, unless they are withheld
(left out, and said so in the datasheet).
The messages and what the machines hide in them come from the review workspace's record, never from the
classified file, which must agree with that record.
"""

from __future__ import annotations

import csv
import hashlib
import json
import os
import sys
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from triage import io, outputs
from triage.combiner import hide_text, parse_hide
from triage.normalise import grapheme_spans
from triage.review_workspace import Workspace, check_workspace_path, default_path
from triage.schema import DEFAULT_HIDE, HIDE_TAGS, TAG_WORDS
from triage.surrogates import Surrogates, entity_key, forms_to_avoid

STYLES = ("tags", "pseudonyms", "surrogates")
ROUTES = ("machine", "reviewer", "audit", "undecided")


class Pseudonyms:
    """`<TAG_n>`: n counts the entities of each tag in order of first mention."""

    def __init__(self) -> None:
        self.numbers: dict[tuple[str, str], int] = {}
        self.counts: Counter = Counter()

    def replace(self, tag: str, original: str) -> str:
        key = (tag, entity_key(tag, original))
        if key not in self.numbers:
            self.counts[tag] += 1
            self.numbers[key] = self.counts[tag]
        return f"<{tag}_{self.numbers[key]}>"


class Tags:
    def replace(self, tag: str, original: str) -> str:
        return f"<{tag}_{len(original)}>"


def replacer(style: str, seed: int = 0, known=None, avoid=()):
    if style == "tags":
        return Tags()
    if style == "pseudonyms":
        return Pseudonyms()
    if style == "surrogates":
        return Surrogates(seed, known, avoid)
    raise io.BadOption(f"--style must be one of {', '.join(STYLES)}, not {style!r}")


def release_text(text: str, spans, replace) -> str:
    """`text` with each span replaced by `replace(tag, original)`; every other character kept.
    Spans are widened to whole grapheme clusters (triage.normalise.grapheme_spans): no mark is
    left dangling from a replacement."""
    parts, last = [], 0
    for start, end, tag in grapheme_spans(text, sorted(spans)):
        parts.append(text[last:start])
        parts.append(replace(tag, text[start:end]))
        last = end
    parts.append(text[last:])
    return "".join(parts)


@dataclass
class ReleaseSummary:
    output: Path | None
    datasheet: list[Path]
    style: str
    messages: int
    routes: dict[str, int]
    tags: dict[str, int]
    withheld: int = 0
    columns: list[str] = field(default_factory=list)
    rows: list[list[str]] | None = None  # with no output file: the corpus, cells in `columns` order
    sheet: dict | None = None  # the datasheet


def output_kind(path: Path, excel: bool) -> str:
    suffix = path.suffix.lower()
    if suffix == ".xlsx":
        return "xlsx"
    if excel:
        if suffix not in ("", ".csv"):
            raise io.BadOption(f"--excel writes a CSV for Excel: name the output .csv or .xlsx, not {path.name}")
        return "excel"
    if suffix in (".xls", ".ods", ".xlsm"):
        raise io.BadOption(f"{path.name}: sms-triage writes .xlsx spreadsheets (or --excel for a CSV), not {suffix}")
    return io.format_for(path)


def datasheet_paths(output: Path) -> tuple[Path, Path]:
    stem = output.with_suffix("")
    return stem.with_name(stem.name + ".datasheet.md"), stem.with_name(stem.name + ".datasheet.json")


def _input_columns(input_path, id_column: str | None, text_column: str | None) -> tuple[list[str], dict[str, dict], str]:
    """The input's columns, its rows by id and its text column, read as classify read them."""
    table = io.open_messages(input_path, id_column=id_column or io.DEFAULT_ID_COLUMN, text_column=text_column or "text")
    fields = {message.id: message.fields for message in table}
    return list(table.columns), fields, table.text_column


def run_release(
    classified: str | os.PathLike[str] | io.Records,
    output: str | os.PathLike[str] | None,
    *,
    workspace: str | os.PathLike[str] | None = None,
    style: str = "tags",
    seed: int = 0,
    columns: list[str] | None = None,
    withhold_undecided: bool = False,
    excel: bool = False,
    input_path: str | os.PathLike[str] | None = None,
    force: bool = False,
    command: str | None = None,
    hide: str | tuple[str, ...] = "default",
) -> ReleaseSummary:
    """The released corpus and its datasheet (Markdown and JSON beside it), or, with no
    `output`, both kept in the summary (the Python API). `hide` names the categories the
    corpus was classified to hide (classify's --hide): the datasheet states them, since a
    reader must know that, say, places are left readable."""
    if style not in STYLES:
        raise io.BadOption(f"--style must be one of {', '.join(STYLES)}, not {style!r}")
    hide = parse_hide(hide)
    ws_path = Path(workspace) if workspace else default_path(classified)
    name = io.source_name(classified)
    kind = output_kind(Path(output), excel) if output is not None else None
    check_workspace_path(ws_path, [classified])
    if not ws_path.exists():
        raise io.BadInput(f"no review workspace {ws_path}: run `triage review {name}` first "
                          "(it lists what a human must decide before a release)")
    with Workspace.open(ws_path) as opened:
        meta = opened.meta()
        recorded_input = meta.get("input")
        if output is not None:
            output = Path(output)
            sheet_md, sheet_json = datasheet_paths(output)
            # Every output checked before any work; never over what the release reads (the classified
            # file, the workspace, the input given or the one classify recorded), not even with --force.
            protected = [classified, ws_path, input_path, recorded_input]
            outputs.check_outputs([(path, force) for path in (output, sheet_md, sheet_json)], inputs=protected)
            for path in (output, sheet_md, sheet_json):
                _check_writable(path)
        _check_recorded(opened, classified, name, ws_path)
        undecided = opened.undecided()
        if undecided and not withhold_undecided:
            skipped = opened.count(kind="queue", status="skipped")
            among = f" ({skipped:,} of them skipped: a skipped message is undecided)" if skipped else ""
            raise io.BadInput(
                f"{undecided:,} queued message{'s are' if undecided > 1 else ' is'} undecided{among}: review "
                f"{'them' if undecided > 1 else 'it'} with `triage review {name} --workspace {ws_path}`, "
                "or leave them out with --withhold-undecided"
            )
        input_path = input_path if input_path is not None else meta.get("input")
        if isinstance(input_path, (str, os.PathLike)) and not Path(input_path).exists():
            raise io.BadInput(f"the original input {input_path} is gone; give it with --input to keep its columns")
        # The id and text columns classify was told to read (recorded in the workspace).
        id_column = meta.get("id_column") or None
        if input_path is not None:
            all_columns, input_fields, text_column = _input_columns(input_path, id_column, meta.get("text_column"))
        else:
            all_columns, input_fields, text_column = ["id", "text"], {}, "text"
        id_column = id_column if id_column in all_columns else "id"
        if id_column not in all_columns:
            all_columns = [id_column, *all_columns]
        if columns:
            unknown = [c for c in columns if c not in all_columns]
            if unknown:
                raise io.BadOption(f"--columns: no column {unknown[0]!r}; the input has {', '.join(all_columns)}")
            chosen = [c for c in all_columns if c in columns or c in (id_column, text_column)]  # rows stay linkable
        else:
            chosen = all_columns
        known = opened.surrogate_map() if style == "surrogates" else None
        # A surrogate is never a word the corpus shows nor a name it hides.
        avoid = forms_to_avoid((row.text, row.spans) for row in opened.final()) if style == "surrogates" else ()
        replace = replacer(style, seed, known, avoid)
        routes: Counter = Counter()
        tags: Counter = Counter()
        records: list[list[str]] = []
        withheld = 0
        finals = []
        for row in opened.final():
            if row.route == "undecided":
                withheld += 1
                continue
            fields = input_fields.get(row.id, {})
            if input_path is not None and fields and fields.get(text_column) != row.text:
                raise io.BadInput(f"{io.source_name(input_path)}: message {row.id!r} differs from the classified file's; "
                                    "give the input that was classified with --input")
            finals.append((row, {**fields, id_column: row.id}))
        # Every kept column goes through the machines too: a name in an id or a sender column is
        # hidden like one in a message. A column holding the raw text is refused unless named.
        kept = [c for c in chosen if c != text_column]
        _refuse_text_copies(finals, kept, columns or [], text_column)
        model_file = _recorded_model(meta)
        spans_of = machine_spans({str(v[c]) for _, v in finals for c in kept if v.get(c)}, hide, model_file)
        hidden_in: dict[str, Counter] = {c: Counter() for c in kept}
        for row, values in finals:
            routes[row.route] += 1
            tags.update(tag for _, _, tag in row.spans)
            values[text_column] = release_text(row.text, row.spans, replace.replace)
            for c in kept:
                cell = "" if values.get(c) is None else str(values[c])
                spans = row.spans if cell == row.text else spans_of.get(cell, [])
                if spans:
                    hidden_in[c].update(tag for _, _, tag in spans)
                    values[c] = release_text(cell, spans, replace.replace)
            records.append(["" if values.get(c) is None else str(values.get(c)) for c in chosen])
        if style == "surrogates":
            opened.save_surrogate_map(replace.mapping, seed)
        audit = opened.audit_estimate()
        workspace_meta = opened.meta()
    sheet = _datasheet(
        classified=classified, input_path=input_path, output=output, style=style, seed=seed, columns=chosen,
        routes=routes, tags=tags, withheld=withheld, audit=audit, meta=workspace_meta, command=command, hide=hide,
        text_column=text_column, hidden_in=hidden_in,
        columns_model=model_file.name if model_file else "the embedded model",
        formula_cells=_formula_cells(records) if kind == "excel" else None,
    )
    summary = ReleaseSummary(output, [], style, sum(routes.values()), dict(routes), dict(tags), withheld, chosen)
    if output is None:
        summary.rows, summary.sheet = records, sheet
        return summary
    _write_table(output, kind, chosen, records, force)
    with outputs.atomic_output(sheet_json, force=force, private=False) as handle:
        handle.write(json.dumps(sheet, indent=2, ensure_ascii=False) + "\n")
    with outputs.atomic_output(sheet_md, force=force, private=False) as handle:
        handle.write(datasheet_markdown(sheet))
    summary.datasheet, summary.sheet = [sheet_md, sheet_json], sheet
    return summary


def _refuse_text_copies(finals, kept: list[str], named: list[str], text_column: str) -> None:
    """Refuse a kept column that holds the messages' raw text (equal to it, or containing it),
    unless the user named it with --columns (it then goes through the machines, a copy of the
    message released exactly as the message)."""
    for column in kept:
        if column in named:
            continue
        for row, values in finals:
            cell, text = str(values.get(column) or ""), row.text.strip()
            if (len(text) >= 3 and cell.strip() == text) or (len(text) >= COPY_LENGTH and text in cell):
                raise io.BadInput(
                    f"column {column!r} holds the raw text of message {row.id!r}: a release leaves the raw text "
                    f"out; leave the column out with --columns, or name it in --columns to release it through "
                    "the machines"
                )


#: A kept cell containing a message's text at least this long is a copy of the raw text (a cell equal
#: to it, from 3 characters: "ok" in a column of answers is not a copy of the message "ok").
COPY_LENGTH = 8


def _recorded_model(meta: dict) -> Path | None:
    """The model file classify used, as the workspace recorded it, if it is still that file
    (same SHA-256 as recorded); None: the embedded model."""
    recorded = meta.get("model_file")
    if not recorded or not Path(recorded).is_file():
        return None
    digest = _sha256(recorded) or ""
    return Path(recorded) if digest and str(meta.get("model", "")).endswith(f"sha256 {digest[:16]}") else None


def machine_spans(cells, hide, model_file: Path | None = None) -> dict[str, list]:
    """What the machines hide in each cell (a kept column's values), as classify finds it in a
    message: Seek&Hide, the detectors and the name scorer, for the categories of `hide`. With no
    human to review these cells, every item found is hidden, whatever the message model says.
    The tool's own tag names (`PRE`, `TEL`...) are never identifying: they stay."""
    cells = sorted(c for c in cells if c.strip())
    if not cells:
        return {}
    from triage.features.counts import message_counts
    from triage.normalise import fold_batch, hide_in_original

    classifier = _classifier(tuple(hide), model_file)
    predictor = classifier.predictor
    found: dict[str, list] = {}
    for first in range(0, len(cells), 5_000):
        texts = cells[first:first + 5_000]
        folded, folding_maps = fold_batch(texts)
        analysis = classifier.seeker.analyse(folded)
        scores = predictor.predict_proba(message_counts(analysis, predictor.feature_set, predictor.normalise))
        decisions = classifier.policy.decide_batch(classifier.evidence(analysis, scores))
        for m, text in enumerate(texts):
            spans = decisions.hidden[m] or []
            if spans and m in folding_maps:
                _, spans = hide_in_original(classifier.seeker.code_for, text, folded[m], spans, folding_maps[m])
            spans = [[int(a), int(b), t] for a, b, t in spans if text[int(a):int(b)] not in HIDE_TAGS]
            if spans:
                found[text] = sorted(spans)
    return found


_CLASSIFIERS: dict = {}


def _classifier(hide: tuple[str, ...], model_file: Path | None = None):
    """A classifier for kept cells: the model file classify used (the embedded model by default)."""
    key = (hide, os.fspath(model_file) if model_file else None)
    if key not in _CLASSIFIERS:
        from triage import model
        from triage.classifier import Classifier

        _CLASSIFIERS.clear()  # one at a time: a model's forest is large
        _CLASSIFIERS[key] = Classifier(model.load_predictor(model_file or model.default_model_path()), hide=hide)
    return _CLASSIFIERS[key]


def _check_writable(path: Path) -> None:
    """Refuse an output whose folder (or the nearest existing one) cannot be written to."""
    folder = path.parent
    while not folder.exists() and folder.parent != folder:
        folder = folder.parent
    if not os.access(folder, os.W_OK | os.X_OK):
        raise io.OutputRefused(f"cannot write {os.fspath(path)}: {folder} is not writable")


def _check_recorded(opened: Workspace, classified, name: str, ws_path: Path) -> None:
    """The release reads what was decided: the workspace's record of every message (its text and
    what the machines hide, recorded when classify or review synced it). A classified file that
    disagrees with that record (edited since, or another run) is refused, naming the messages."""
    if not opened.count_messages():
        raise io.BadInput(f"the review workspace {ws_path} holds no messages yet: run `triage review {name}` first")
    differ = opened.disagreements(classified)
    if differ:
        shown = ", ".join(repr(i) for i in differ[:5])
        more = f" and {len(differ) - 5:,} more" if len(differ) > 5 else ""
        raise io.BadInput(
            f"{name} disagrees with the review workspace {ws_path} on {len(differ):,} message"
            f"{'s' if len(differ) > 1 else ''} ({shown}{more}): text, decision or hidden spans differ from what "
            f"was recorded and reviewed; release the classified file that was reviewed, or bring the workspace "
            f"up to date with `triage review {name} --workspace {ws_path}` first"
        )


def _write_table(output: Path, kind: str, columns: list[str], records: list[list[str]], force: bool) -> None:
    # The release holds no raw text, but it is still a corpus of private messages until published.
    if kind == "xlsx":
        from triage.spreadsheets import write_xlsx

        write_xlsx(output, columns, records, force=force)
        return
    if kind == "excel":  # what French Excel opens right: UTF-8 with a BOM, semicolons
        with outputs.atomic_output(output, force=force, encoding="utf-8-sig") as handle:
            writer = csv.writer(handle, delimiter=";", lineterminator="\r\n")
            writer.writerow(columns)
            writer.writerows([[io.neutralise_formula(v) for v in record] for record in records])
        return
    with outputs.atomic_output(output, force=force) as handle:
        writer = io.TableWriter(handle, columns, format=kind)
        writer.write_cells(records)


def _sha256(path) -> str | None:
    if not isinstance(path, (str, os.PathLike)):
        return None  # messages in memory: no file to fingerprint
    try:
        digest = hashlib.sha256()
        with open(path, "rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
        return digest.hexdigest()
    except OSError:
        return None


def _file_name(source) -> str:
    return Path(source).name if isinstance(source, (str, os.PathLike)) else io.source_name(source)


def _datasheet(*, classified, input_path, output, style, seed, columns, routes, tags, withheld, audit, meta,
               command, hide=DEFAULT_HIDE, text_column="text", hidden_in=None, columns_model=None,
               formula_cells=None) -> dict:
    from triage.version import __version__
    from triage import lexicons as lexicon_module

    return {
        "corpus": output.name if output is not None else "(in memory)",
        "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "sms_triage_version": __version__,
        "command": command or " ".join(["triage", *sys.argv[1:]]),
        "style": style,
        "seed": seed if style == "surrogates" else None,
        "columns": columns,
        "text_column": text_column,
        # Every other column went through the machines (no human review); what they hid, by column.
        "columns_through_machines": [c for c in columns if c != text_column],
        "columns_model": columns_model,
        "hidden_in_columns": {c: dict(sorted(n.items())) for c, n in (hidden_in or {}).items() if n},
        "sources": {
            "classified": {"file": _file_name(classified), "sha256": _sha256(classified)},
            "input": {"file": _file_name(input_path), "sha256": _sha256(input_path)} if input_path is not None else None,
        },
        "messages": {"released": sum(routes.values()), "withheld_undecided": withheld,
                     **{route: routes.get(route, 0) for route in ("machine", "reviewer", "audit")}},
        "hidden_categories": list(hide),
        "readable_categories": [tag for tag in HIDE_TAGS if tag not in hide],
        "hidden_items_by_tag": dict(sorted(tags.items())),
        "audit": audit,
        "lexicons_fingerprint": lexicon_module.default().fingerprint,
        "model": meta.get("model"),
        "review_workspace": {"synced": meta.get("synced"), "created": meta.get("created")},
        # Only for --excel: cells a spreadsheet would run as a formula, written with a leading quote.
        "formula_cells_quoted": formula_cells,
    }


def _formula_cells(records: list[list[str]]) -> int:
    """How many cells the --excel CSV changes (a leading quote before = + - @), so the datasheet says so."""
    return sum(io.neutralise_formula(value) != value for record in records for value in record)


def _plural(word: str) -> str:
    return word + ("es" if word.endswith("s") else "s")


def _categories_lines(sheet: dict) -> list[str]:
    """The categories hidden and left readable, in words (older datasheets: the default)."""
    hidden = sheet.get("hidden_categories") or list(DEFAULT_HIDE)
    readable = sheet.get("readable_categories", [t for t in HIDE_TAGS if t not in hidden])

    def words(tags):
        return ", ".join(f"{_plural(TAG_WORDS[t])} ({t})" for t in tags)

    lines = [f"Hidden (`--hide {hide_text(tuple(hidden))}`): {words(hidden)}."]
    if readable:
        lines.append(f"Left readable by design: {words(readable)}.")
    extra = [t for t in sheet.get("hidden_items_by_tag", {}) if t not in hidden]
    if extra:
        lines.append(f"Also hidden by a reviewer or an earlier run: {', '.join(extra)}.")
    return lines


def _columns_lines(sheet: dict) -> list[str]:
    """The columns, and what was done to each (older datasheets: the columns only)."""
    lines = [f"- Columns: {', '.join(sheet['columns'])} (the raw text and the working columns are not included)"]
    if "columns_through_machines" not in sheet:
        return lines
    others = sheet["columns_through_machines"]
    if others:
        lines.append(f"- The messages (`{sheet['text_column']}`) are released as reviewed; the other columns "
                     f"({', '.join(others)}) went through the same machines"
                     + (f" ({sheet['columns_model']})" if sheet.get("columns_model") else "") + ", without a human review")
        hidden_in = sheet.get("hidden_in_columns") or {}
        if hidden_in:
            lines.append("- Hidden in those columns: " + "; ".join(
                f"{c}: {', '.join(f'{n:,} {t}' for t, n in tags.items())}" for c, tags in hidden_in.items()))
        else:
            lines.append("- The machines found nothing to hide in those columns")
    return lines


def _excel_lines(sheet: dict) -> list[str]:
    quoted = sheet.get("formula_cells_quoted")
    if quoted is None:
        return []
    return [f"- Written for a spreadsheet (`--excel`): {quoted:,} cell{'s' if quoted != 1 else ''} starting with "
            "= + - or @ got a leading `'` so that no spreadsheet runs it as a formula; the .csv or .xlsx "
            "release keeps every text exactly"]


def datasheet_markdown(sheet: dict) -> str:
    m = sheet["messages"]
    a = sheet["audit"]
    style = {"tags": "each hidden item replaced by its tag and length (`<PRE_7>`)",
             "pseudonyms": "each entity replaced by a numbered tag, the same throughout the corpus (`<PRE_1>`)",
             "surrogates": "each entity replaced by a realistic surrogate of the same kind and shape, the same "
                           "throughout the corpus (the mapping is kept in the review workspace, not here)"}[sheet["style"]]
    lines = [
        f"# Datasheet: {sheet['corpus']}", "",
        f"Anonymised with sms-triage {sheet['sms_triage_version']} on {sheet['created']} (UTC), after Patel et al. "
        "(2013): Seek&Hide's lexicons and rules, a learnt message model, a combiner that sends uncertain messages "
        "to a human reviewer.", "",
        f"- Command: `{sheet['command']}`",
        f"- Style: {sheet['style']}: {style}",
        *_columns_lines(sheet),
        f"- Lexicons fingerprint: {sheet['lexicons_fingerprint']}" + (f"; model: {sheet['model']}" if sheet["model"] else ""),
        *_excel_lines(sheet),
        "", "## What is hidden", "",
        *_categories_lines(sheet),
        "", "## Messages by route", "",
        "| route | messages |", "|---|---|",
        f"| released by the machines | {m['machine']:,} |",
        f"| decided by a reviewer (queue) | {m['reviewer']:,} |",
        f"| decided by a reviewer (audit sample) | {m['audit']:,} |",
        f"| withheld (queued, undecided) | {m['withheld_undecided']:,} |",
        f"| **released** | **{m['released']:,}** |",
        "", "## Hidden items by tag", "", "| tag | items |", "|---|---|",
        *[f"| {tag} | {n:,} |" for tag, n in sheet["hidden_items_by_tag"].items()],
        "", "## Audit of the machines", "",
    ]
    if a["audited"]:
        lines.append(
            f"A seeded random sample of the messages the machines released on their own was reviewed: "
            f"{a['leaking']:,} of {a['audited']:,} still showed something identifying, "
            f"{100 * a['share']:.1f}% (95% CI {100 * a['low']:.1f}%-{100 * a['high']:.1f}%, exact binomial) of the "
            f"{a['machine_released']:,} messages the machines released. Those reviewed messages are released as "
            "the reviewer decided."
        )
    else:
        lines.append("No audit message was reviewed: there is no estimate of what the machines let through "
                     "(`triage review` shows an audit sample after the queue).")
    return "\n".join(lines) + "\n"
