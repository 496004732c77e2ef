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
import json
import os
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from triage.io import outputs
from triage.errors import BadInput, BadOption, OutputRefused
from triage.io.formats import format_for
from triage.io.messages import DEFAULT_ID_COLUMN, Records, open_messages, source_name
from triage.io.writing import TableWriter
from triage.io.spreadsheets import neutralise_formula
from triage.combiner import hide_text, parse_hide
from triage.text.normalise import grapheme_spans
from triage.pipeline import Pipeline
from triage.review_workspace import Workspace, check_workspace_path, default_path
from triage.schema import DEFAULT_HIDE, HIDE_TAGS
from triage.surrogates import Surrogates, entity_key, forms_to_avoid, hidden_forms
from triage.publication.datasheet import (
    GOLD_COLUMNS,
    corpus_composition,
    datasheet_markdown,
    datasheet_of,
    file_sha256,
    fill_sections,
    formula_cells,
    plain_column_name,
    published_settings,
    read_evaluation,
)

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


def replacer(style: str, seed: int = 0, known=None, avoid=(), hidden=(), redraw=()):
    if style == "tags":
        return Tags()
    if style == "pseudonyms":
        return Pseudonyms()
    if style == "surrogates":
        return Surrogates(seed, known, avoid, hidden, redraw)
    raise BadOption(f"--style must be one of {', '.join(STYLES)}, not {style!r}")


def release_text(text: str, spans, replace) -> str:
    """`text` with each span replaced by `replace(tag, original)`; every other character kept.
    Spans are widened to whole grapheme clusters (triage.text.normalise.grapheme_spans): no mark is
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
            raise BadOption(f"--excel writes a CSV for Excel: name the output .csv or .xlsx, not {path.name}")
        return "excel"
    if suffix in (".xls", ".ods", ".xlsm"):
        raise BadOption(f"{path.name}: sms-triage writes .xlsx spreadsheets (or --excel for a CSV), not {suffix}")
    return format_for(path)


def datasheet_paths(output: Path) -> tuple[Path, Path]:
    stem = output.with_suffix("")
    return stem.with_name(stem.name + ".datasheet.md"), stem.with_name(stem.name + ".datasheet.json")


def _check_own_datasheet(output: Path, sheet_md: Path, sheet_json: Path) -> None:
    """One datasheet per output: a datasheet of that name describing another release that is still
    there (`corpus.csv` beside a new `corpus.jsonl`) is never replaced, not even with --force."""
    try:
        described = json.loads(sheet_json.read_text("utf-8"))["sources"]["release"]["file"]
    except (OSError, ValueError, KeyError, TypeError):
        return
    if isinstance(described, str) and described != output.name and (output.parent / described).exists():
        raise OutputRefused(
            f"{sheet_md.name} is the datasheet of {described}, released beside it: give this release another name "
            f"(e.g. {output.stem}-{output.suffix.lstrip('.') or 'release'}{output.suffix}), each release has its own "
            "datasheet")


def _input_columns(input_path, id_column: str | None,
                   text_column: str | None) -> tuple[list[str], dict[str, dict], str, dict | None]:
    """The input's columns, its rows by id, its text column, and how it was read (format, encoding,
    delimiter; None for a table in memory), read as classify read them."""
    table = open_messages(input_path, id_column=id_column or DEFAULT_ID_COLUMN, text_column=text_column or "text")
    fields = {message.id: message.fields for message in table}
    reading = None if table.format == "memory" else {
        "format": table.format, "encoding": table.encoding, "delimiter": table.delimiter}
    return list(table.columns), fields, table.text_column, reading


def run_release(
    classified: str | os.PathLike[str] | Records,
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
    hide: str | tuple[str, ...] | None = None,
    hide_differs_ok: bool = False,
    donor_column: str | None = None,
    date_column: str | None = None,
    inconsistent_ok: bool = False,
    evaluation: str | os.PathLike[str] | None = None,
    allow_disagreements: bool = False,
    reviewer_names: bool = False,
    gold_columns: bool = False,
) -> ReleaseSummary:
    """The released corpus and its datasheet (Markdown and JSON beside it), or, with no
    `output`, both kept in the summary (the Python API). The messages hide what classify was told
    to hide (its --hide, recorded in the workspace by `classify --workspace`); `hide` (None: that
    one) is what the other columns are searched for. A `hide` other than the recorded one is
    refused unless `hide_differs_ok`; the datasheet then names the categories that differ."""
    if style not in STYLES:
        raise BadOption(f"--style must be one of {', '.join(STYLES)}, not {style!r}")
    asked_hide = parse_hide(hide) if hide is not None else None
    ws_path = Path(workspace) if workspace else default_path(classified)
    name = source_name(classified)
    kind = output_kind(Path(output), excel) if output is not None else None
    check_workspace_path(ws_path, [classified])
    if not ws_path.exists():
        raise BadInput(f"no review workspace {ws_path}: run `triage review {name}` first "
                          "(it lists what a human must decide before a release)")
    with Workspace.open(ws_path) as opened:
        meta = opened.meta()
        recorded_input = meta.get("input")
        settings = opened.classify_settings()
        hide, columns_hide = release_hide(settings, asked_hide, hide_differs_ok, ws_path)
        evaluated = read_evaluation(evaluation, settings) if evaluation is not None else None
        if output is not None:
            output = Path(output)
            sheet_md, sheet_json = datasheet_paths(output)
            # Every output checked before any work; never over what the release reads (the classified
            # file, the workspace, the input given or the one classify recorded), not even with --force.
            protected = [classified, ws_path, input_path, recorded_input, evaluation]
            _check_own_datasheet(output, sheet_md, sheet_json)
            outputs.check_outputs([(path, force) for path in (output, sheet_md, sheet_json)], inputs=protected)
            for path in (output, sheet_md, sheet_json):
                _check_writable(path)
        _check_recorded(opened, classified, name, ws_path)
        undecided = opened.undecided()
        if undecided and not withhold_undecided:
            skipped = opened.count(kind="queue", status="skipped")
            among = f" ({skipped:,} of them skipped: a skipped message is undecided)" if skipped else ""
            raise BadInput(
                f"{undecided:,} queued message{'s are' if undecided > 1 else ' is'} undecided{among}: review "
                f"{'them' if undecided > 1 else 'it'} with `triage review {name} --workspace {ws_path}`, "
                "or leave them out with --withhold-undecided"
            )
        review = _review_checked(opened, allow_disagreements, name, ws_path, reviewer_names)
        # Consistency across the corpus: every case decided once, or the release is told to go on.
        from triage.review_workspace.consistency import apply as apply_consistency
        from triage.review_workspace.consistency import find_cases, undecided as undecided_cases

        final_rows = list(opened.final())
        cases = find_cases(final_rows, opened.surrogate_map() if style == "surrogates" else {},
                           opened.consistency_decisions())
        left = undecided_cases(cases)
        if left and not inconsistent_ok:
            shown = ", ".join(f"{c['kind']} '{c['key']}'" for c in left[:3])
            raise BadInput(
                f"{len(left):,} consistency case{'s are' if len(left) > 1 else ' is'} undecided ({shown}"
                f"{' and more' if len(left) > 3 else ''}): a spelling hidden in some messages and readable in others, "
                f"a surrogate equal to a readable form, or a spelling with two tags; list them with `triage review "
                f"{name} --workspace {ws_path} --consistency` and decide them in the page or with --decide-consistency "
                "or --consistency-all, or release with "
                "--inconsistent-ok (the datasheet counts them)")
        final_rows, redrawn = apply_consistency(final_rows, cases)
        input_path = input_path if input_path is not None else meta.get("input")
        if isinstance(input_path, (str, os.PathLike)) and not Path(input_path).exists():
            raise BadInput(f"the original input {input_path} is gone; give it with --input to keep its columns")
        # The id and text columns classify was told to read (recorded in the workspace).
        id_column = meta.get("id_column") or None
        reading = None
        if input_path is not None:
            all_columns, input_fields, text_column, reading = _input_columns(input_path, id_column,
                                                                             meta.get("text_column"))
        else:
            all_columns, input_fields, text_column = ["id", "text"], {}, "text"
        id_column = id_column if id_column in all_columns else "id"
        if id_column not in all_columns:
            all_columns = [id_column, *all_columns]
        if columns:
            unknown = [c for c in columns if c not in all_columns]
            if unknown:
                raise BadOption(f"--columns: no column {unknown[0]!r}; the input has {', '.join(all_columns)}")
            gold = [c for c in columns if plain_column_name(c) in GOLD_COLUMNS and c not in (id_column, text_column)]
            if gold and not gold_columns:
                raise BadOption(
                    f"--columns: {', '.join(repr(c) for c in gold)} {'are' if len(gold) > 1 else 'is a'} gold "
                    f"column{'s' if len(gold) > 1 else ''} (an annotation: spans give every hidden name's length, "
                    "whatever the style); add --gold-columns to publish "
                    f"{'them' if len(gold) > 1 else 'it'} on purpose")
            chosen = [c for c in all_columns if c in columns or c in (id_column, text_column)]  # rows stay linkable
        else:  # the id and the text only: another column is published when named
            chosen = [c for c in all_columns if c in (id_column, text_column)]
        routes: Counter = Counter()
        tags: Counter = Counter()
        records: list[list[str]] = []
        withheld = 0
        finals = []
        for row in final_rows:
            if row.route == "undecided":
                withheld += 1
                continue
            fields = input_fields.get(row.id, {})
            if input_path is not None and fields and fields.get(text_column) != row.text:
                raise BadInput(f"{source_name(input_path)}: message {row.id!r} differs from the classified file's; "
                                    "give the input that was classified with --input")
            finals.append((row, {**fields, id_column: row.id}))
        # Every kept column goes through the machines too: a name in an id or a sender column is
        # hidden like one in a message. A column holding the raw text is refused unless named.
        kept = [c for c in chosen if c != text_column]
        _refuse_text_copies(finals, kept, columns or [], text_column)
        composition = corpus_composition(
            finals, all_columns if input_path is not None else [],
            donor_column=donor_column, date_column=date_column)
        model_file = _recorded_model(meta)
        cells = {str(v[c]) for _, v in finals for c in kept if v.get(c)}
        # The other columns hide the names the team knows and those the reviewers taught, as the messages do.
        from triage.seekhide.known import merged, taught_names

        known_names = merged(opened.kept_known_names(), taught_names(opened.taught_names(), "the review workspace"))
        spans_of = machine_spans(cells, columns_hide, model_file, known_names)
        known = opened.surrogate_map() if style == "surrogates" else None
        if known:  # a surrogate decided against is drawn again
            known = {entity: surrogate for entity, surrogate in known.items() if entity not in redrawn}
        avoid = hidden = redraw = ()
        if style == "surrogates":
            # A surrogate is never a word the corpus shows nor a name it hides, in any message
            # (withheld ones too) or any kept column (of withheld rows too): drawn for one person, it
            # never names another.
            withheld_cells = {str(input_fields.get(row.id, {}).get(c)) for row in final_rows
                              if row.route == "undecided" for c in kept if input_fields.get(row.id, {}).get(c)}
            withheld_spans = machine_spans(withheld_cells - cells, columns_hide, model_file, known_names)
            in_messages = [(row.text, row.spans) for row in final_rows]
            in_columns = [*((cell, spans_of.get(cell, [])) for cell in cells), *withheld_spans.items()]
            avoid, hidden = forms_to_avoid(in_messages + in_columns), hidden_forms(in_messages + in_columns)
            # A kept surrogate equal to a word the other columns show is drawn again (the consistency
            # check reads the messages only).
            redraw = forms_to_avoid(in_columns) - forms_to_avoid(in_messages)
        replace = replacer(style, seed, known, avoid, hidden, redraw)
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
        # Ids stay distinct: two ids the style made equal (`sophie_1`, `thomas_1` -> `<PRE_6>_1`) are told
        # apart by a suffix.
        ids_made_distinct = distinct_ids(records, chosen.index(id_column)) if id_column in chosen else 0
        if style == "surrogates":
            # An earlier surrogate that is a name this release hides was drawn again: kept as the new one.
            opened.save_surrogate_map(replace.mapping, seed, redrawn=set(redrawn) | replace.dropped)
        audit = opened.audit_estimate()
        workspace_meta = opened.meta()
    sheet = datasheet_of(
        classified=classified, input_path=input_path, output=output, style=style, seed=seed, columns=chosen,
        routes=routes, tags=tags, withheld=withheld, audit=audit, meta=workspace_meta, command=command, hide=hide,
        columns_hide=columns_hide, settings=published_settings(settings), composition=composition, consistency=cases,
        evaluation=evaluated,
        text_column=text_column, hidden_in=hidden_in,
        columns_model=model_file.name if model_file else "the embedded model",
        formula_cells=formula_cells(records) if kind == "excel" else None,
    )
    sheet["ids_made_distinct"] = ids_made_distinct
    if reading is not None and sheet["sources"].get("input"):
        sheet["sources"]["input"]["read"] = reading
    sheet["review"] = review
    fill_sections(sheet)
    summary = ReleaseSummary(output, [], style, sum(routes.values()), dict(routes), dict(tags), withheld, chosen)
    if output is None:
        summary.rows, summary.sheet = records, sheet
        return summary
    # The corpus and its datasheets are moved into place together (the datasheets' older versions
    # removed first): an interrupted release never leaves a new corpus beside an older datasheet.
    with outputs.output_group() as group:
        _write_table(output, kind, chosen, records, force)
        sheet["sources"]["release"] = {"file": output.name, "sha256": file_sha256(group.written(output))}
        fill_sections(sheet)
        with outputs.atomic_output(sheet_json, force=force, private=False) as handle:
            handle.write(json.dumps(sheet, indent=2, ensure_ascii=False) + "\n")
        with outputs.atomic_output(sheet_md, force=force, private=False) as handle:
            handle.write(datasheet_markdown(sheet))
    summary.datasheet, summary.sheet = [sheet_md, sheet_json], sheet
    return summary


def release_hide(settings: dict | None, asked: tuple[str, ...] | None, differs_ok: bool,
                 ws_path: Path) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(what the messages hide, what the other columns are searched for). The messages hide what
    classify hid (the machines' spans were found for those categories); a workspace with no record
    of classify's --hide takes the release's (else the default). A release --hide that differs from
    the recorded one is refused, naming both, unless `differs_ok`."""
    recorded = parse_hide(tuple(settings["hide"])) if settings and settings.get("hide") else None
    if recorded is None:
        chosen = asked if asked is not None else DEFAULT_HIDE
        return chosen, chosen
    if asked is None or set(asked) == set(recorded):
        return recorded, recorded
    if not differs_ok:
        raise BadOption(
            f"release --hide {hide_text(asked)} differs from classify's --hide {hide_text(recorded)} (recorded in "
            f"{ws_path}): leave --hide out to release what classify hid, or add --hide-differs-ok to search the "
            "other columns for the release's categories (the datasheet names the categories that differ)")
    return recorded, asked


def _review_checked(opened: Workspace, allow: bool, name: str, ws_path: Path, reviewer_names: bool = False) -> dict:
    """The datasheet's review section (reviewers, time, agreement); unresolved disagreements of the
    double review, and messages awaiting their second blind reviewer, are refused unless `allow`."""
    from triage.review_workspace.agreement import review_section

    section = review_section(opened, allow_disagreements=allow, reviewer_names=reviewer_names)
    unresolved = section["agreement"]["disagreements"]["unresolved"]
    half = section["awaiting_second_review"]
    if half and not allow:
        raise BadInput(
            f"{half:,} message{'s' if half > 1 else ''} of the double review {'await' if half > 1 else 'awaits'} "
            f"the second blind reviewer: decide {'them' if half > 1 else 'it'} with `triage review {name} --workspace "
            f"{ws_path} --reviewer NAME` (another reviewer than the first), or release the more cautious decision "
            "(what the first reviewer or the machines hid) with --allow-disagreements"
        )
    if unresolved and not allow:
        raise BadInput(
            f"{unresolved:,} message{'s' if unresolved > 1 else ''} of the double review "
            f"{'have' if unresolved > 1 else 'has'} an unresolved disagreement: the lead reviewer resolves "
            f"{'them' if unresolved > 1 else 'it'} with `triage review {name} --workspace {ws_path} --lead`, or "
            "release the more cautious decision with --allow-disagreements"
        )
    return section


def distinct_ids(records: list[list[str]], column: int) -> int:
    """Make the released ids distinct again: the message ids are distinct, but hiding what they hold
    may make two equal (in the tags style `sophie_1` and `thomas_1` are both `<PRE_6>_1`). Every
    id equal to an earlier row's gets `~2` (or the first free `~n`), in file order. How many were
    changed."""
    used = {record[column] for record in records}
    seen: set[str] = set()
    changed = 0
    for record in records:
        released = record[column]
        if released not in seen:
            seen.add(released)
            continue
        number = 2
        while f"{released}~{number}" in used:
            number += 1
        record[column] = f"{released}~{number}"
        used.add(record[column])
        seen.add(record[column])
        changed += 1
    return changed


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
                raise BadInput(
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
    digest = file_sha256(recorded) or ""
    return Path(recorded) if digest and str(meta.get("model", "")).endswith(f"sha256 {digest[:16]}") else None


def machine_spans(cells, hide, model_file: Path | None = None, known=None) -> dict[str, list]:
    """What the machines hide in each cell (a kept column's values), as classify finds it in a
    message: Seek&Hide, the detectors and the name scorer, for the categories of `hide`. With no
    human to review these cells, every item found is hidden, whatever the message model says.
    The tool's own tag names (`PRE`, `TEL`...) are never identifying: they stay. `known`: the known
    names (a triage.seekhide.KnownNames) hidden with their variants, as in the messages."""
    cells = sorted(c for c in cells if c.strip())
    if not cells:
        return {}
    classifier = _classifier(tuple(hide), model_file, known)
    pipeline = Pipeline.preset("cells", classifier)
    found: dict[str, list] = {}
    for first in range(0, len(cells), 5_000):
        texts = cells[first:first + 5_000]
        for text, spans in zip(texts, pipeline(texts=texts).spans):
            spans = [[int(a), int(b), t] for a, b, t in spans if text[int(a):int(b)] not in HIDE_TAGS]
            if spans:
                found[text] = sorted(spans)
    return found


_CLASSIFIERS: dict = {}


def _classifier(hide: tuple[str, ...], model_file: Path | None = None, known=None):
    """A classifier for kept cells: the model file classify used (the embedded model by default),
    hiding the known names `known` with their variants."""
    key = (hide, os.fspath(model_file) if model_file else None,
           (known.entries, known.taught) if known is not None else None)
    if key not in _CLASSIFIERS:
        from triage import model
        from triage.classifier import Classifier

        _CLASSIFIERS.clear()  # one at a time: a model's forest is large
        _CLASSIFIERS[key] = Classifier(model.load_predictor(model_file or model.default_model_path()), hide=hide,
                                       known_names=known)
    return _CLASSIFIERS[key]


def _check_writable(path: Path) -> None:
    """Refuse an output whose folder (or the nearest existing one) cannot be written to."""
    folder = path.parent
    while not folder.exists() and folder.parent != folder:
        folder = folder.parent
    if not os.access(folder, os.W_OK | os.X_OK):
        raise OutputRefused(f"cannot write {os.fspath(path)}: {folder} is not writable")


def _check_recorded(opened: Workspace, classified, name: str, ws_path: Path) -> None:
    """The release reads what was decided: the workspace's record of every message (its text and
    what the machines hide, recorded when classify or review synced it). A classified file that
    disagrees with that record (edited since, or another run) is refused, naming the messages."""
    if not opened.count_messages():
        raise BadInput(f"the review workspace {ws_path} holds no messages yet: run `triage review {name}` first")
    differ = opened.disagreements(classified)
    if differ:
        shown = ", ".join(repr(i) for i in differ[:5])
        more = f" and {len(differ) - 5:,} more" if len(differ) > 5 else ""
        raise BadInput(
            f"{name} disagrees with the review workspace {ws_path} on {len(differ):,} message"
            f"{'s' if len(differ) > 1 else ''} ({shown}{more}): text, decision or hidden spans differ from what "
            f"was recorded and reviewed; release the classified file that was reviewed, or bring the workspace "
            f"up to date with `triage review {name} --workspace {ws_path}` first"
        )


def _write_table(output: Path, kind: str, columns: list[str], records: list[list[str]], force: bool) -> None:
    # The release holds no raw text, but it is still a corpus of private messages until published.
    if kind == "xlsx":
        from triage.io.spreadsheets import write_xlsx

        write_xlsx(output, columns, records, force=force)
        return
    if kind == "excel":  # what French Excel opens right: UTF-8 with a BOM, semicolons
        with outputs.atomic_output(output, force=force, encoding="utf-8-sig") as handle:
            writer = csv.writer(handle, delimiter=";", lineterminator="\r\n")
            writer.writerow(columns)
            writer.writerows([[neutralise_formula(v) for v in record] for record in records])
        return
    with outputs.atomic_output(output, force=force) as handle:
        writer = TableWriter(handle, columns, format=kind)
        writer.write_cells(records)
