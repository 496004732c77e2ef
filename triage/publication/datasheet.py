"""The datasheet of a release (Gebru et al.'s questions, answered from what the tool knows):
where the messages come from, what was hidden and by whom (the machines, the reviewers, the audit),
how the corpus is composed (donors, dates, columns), and the files it describes, in Markdown and
JSON beside the released corpus (triage.publication.corpus writes them)."""


from __future__ import annotations

import hashlib
import json
import os
import re
import sys
import unicodedata
from collections import Counter
from datetime import date, datetime, timezone
from pathlib import Path

from triage.errors import BadInput, BadOption
from triage.io.messages import source_name
from triage.io.spreadsheets import neutralise_formula
from triage.combiner import hide_text
from triage.schema import DEFAULT_HIDE, HIDE_TAGS, TAG_WORDS

def file_sha256(path) -> str | None:
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


def file_name(source) -> str:
    return Path(source).name if isinstance(source, (str, os.PathLike)) else source_name(source)


def datasheet_of(*, classified, input_path, output, style, seed, columns, routes, tags, withheld, audit, meta,
               command, hide=DEFAULT_HIDE, text_column="text", hidden_in=None, columns_model=None,
               formula_cells=None, columns_hide=None, settings=None, composition=None, consistency=None,
               evaluation=None) -> dict:
    from triage.version import __version__
    from triage import lexicons as lexicon_module

    return {
        "corpus": output.name if output is not None else "(in memory)",
        "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "sms_triage_version": __version__,
        "command": command or published_command(sys.argv[1:]),
        "style": style,
        "seed": seed if style == "surrogates" else None,
        "columns": columns,
        "text_column": text_column,
        # Every other column went through the machines (no human review); what they hid, by column.
        "columns_through_machines": [c for c in columns if c != text_column],
        "columns_model": columns_model,
        "hidden_in_columns": {c: dict(sorted(n.items())) for c, n in (hidden_in or {}).items() if n},
        "sources": {
            "classified": {"file": file_name(classified), "sha256": file_sha256(classified)},
            "input": {"file": file_name(input_path), "sha256": file_sha256(input_path)} if input_path is not None else None,
        },
        "messages": {"released": sum(routes.values()), "withheld_undecided": withheld,
                     **{route: routes.get(route, 0) for route in ("machine", "reviewer", "audit")}},
        "hidden_categories": list(hide),
        "readable_categories": [tag for tag in HIDE_TAGS if tag not in hide],
        # Only when the release searched the other columns for other categories than classify hid.
        "hide_differs": _hide_differs(hide, columns_hide),
        "hidden_items_by_tag": dict(sorted(tags.items())),
        "audit": audit,
        "lexicons_fingerprint": lexicon_module.default().fingerprint,
        "model": meta.get("model"),
        # How classify made the corpus, as `classify --workspace` recorded it (None: not recorded).
        "classify": ({**settings, "input": file_name(settings["input"])} if settings and settings.get("input")
                     else settings),
        "review_workspace": {"synced": meta.get("synced"), "created": meta.get("created")},
        # Only for --excel: cells a spreadsheet would run as a formula, written with a leading quote.
        "formula_cells_quoted": formula_cells,
        "composition": composition,
        "consistency": _consistency_record(consistency),
        # The expected residual and over-masking of the model classify used (`triage evaluate`).
        "model_evaluation": evaluation,
    }


def published_settings(settings: dict | None) -> dict | None:
    """Classify's recorded settings as a datasheet publishes them: of the known names, their file's
    name and their number only (a workspace recorded by an older classify also holds a plain
    SHA-256 of the names, which a search over a list of first names reverses: never published)."""
    if not settings or not isinstance(settings.get("known_names"), dict):
        return settings
    known = settings["known_names"]
    return {**settings, "known_names": {"file": known.get("file"), "names": known.get("names", 0)}}


#: evaluate.json is a few kilobytes: a larger file (or a pipe, a device) is refused.
MAX_EVALUATION_BYTES = 16 * 1024 * 1024


def read_evaluation(path, settings: dict | None) -> dict:
    """The figures of the model classify used in `triage evaluate` 's evaluate.json (its main
    figures: those of the embedded model, or of `--model MODEL`; never those of the model
    cross-validated on the gold, kept apart under `cross_validated`) for the datasheet, refused
    unless that model is the one classify used (same fingerprint, as the workspace recorded it).
    A file that names no evaluated model (its main figures those of a cross-validated model) is
    refused."""
    from triage.io.decoding import read_small_file

    name = source_name(path)
    try:
        data = json.loads(read_small_file(path, "--evaluation", MAX_EVALUATION_BYTES).decode("utf-8"))
    except ValueError:
        raise BadInput(f"--evaluation: {name} is not the JSON `triage evaluate` writes (evaluate.json)") from None
    if isinstance(data, dict) and isinstance(data.get("files"), list):
        raise BadInput(f"--evaluation: {name} evaluated several gold files: run `triage evaluate GOLD` on the one "
                       "like this corpus")
    chosen = data.get("chosen") if isinstance(data, dict) else None
    if not isinstance(chosen, dict) or not all(isinstance(chosen.get(k), (int, float)) for k in
                                               ("residual_span_rate", "over_masking_rate")):
        raise BadInput(f"--evaluation: {name} is not the JSON `triage evaluate` writes (evaluate.json)")
    evaluated = data.get("model_fingerprint")
    used = ((settings or {}).get("model") or {}).get("metadata_sha256")
    if not evaluated:
        raise BadInput(f"--evaluation: {name} cross-validated a model of its own, not the one classify used: "
                          "run `triage evaluate GOLD` again (with --model MODEL if classify used one)")
    if not used:
        raise BadInput("--evaluation: the workspace has no record of the model classify used "
                          "(classify with --workspace records it)")
    if evaluated != used:
        raise BadInput(f"--evaluation: {name} evaluated another model (fingerprint {evaluated[:12]}) than the one "
                          f"classify used ({used[:12]})")
    return {"file": Path(path).name, "gold": data.get("gold"), "messages": data.get("messages"),
            "policy": data.get("policy"), "expert_budget": data.get("expert_budget"), "hide": data.get("hide"),
            **{k: chosen[k] for k in ("residual_span_rate", "message_leak_rate", "over_masking_rate", "expert_share",
                                      "person_precision") if isinstance(chosen.get(k), (int, float))}}


def _consistency_record(cases) -> dict | None:
    """The consistency cases of the corpus (a spelling hidden and readable, a surrogate equal to a
    readable form, a spelling with two tags): how many, and how they were decided."""
    if cases is None:
        return None
    decided = Counter(f"{c['kind']} {c['decision']}" for c in cases if c["decision"])
    return {"cases": len(cases), "undecided": sum(1 for c in cases if not c["decision"]),
            "decided": dict(sorted(decided.items()))}


def _hide_differs(hide, columns_hide) -> dict | None:
    if columns_hide is None or set(columns_hide) == set(hide):
        return None
    return {"messages": list(hide), "other_columns": list(columns_hide),
            "hidden_in_messages_only": [t for t in HIDE_TAGS if t in hide and t not in columns_hide],
            "hidden_in_other_columns_only": [t for t in HIDE_TAGS if t in columns_hide and t not in hide]}


def formula_cells(records: list[list[str]]) -> int:
    """How many cells the --excel CSV changes (a leading quote before = + - @), so the datasheet says so."""
    return sum(neutralise_formula(value) != value for record in records for value in record)


def _plural(word: str) -> str:
    return word + ("es" if word.endswith("s") else "s")


def _categories_lines(sheet: dict) -> list[str]:
    """The categories hidden and left readable, in words (older datasheets: the default)."""
    hidden = sheet.get("hidden_categories") or list(DEFAULT_HIDE)
    readable = sheet.get("readable_categories", [t for t in HIDE_TAGS if t not in hidden])

    def words(tags):
        return ", ".join(f"{_plural(TAG_WORDS[t])} ({t})" for t in tags)

    found = sheet.get("hidden_items_by_tag", {})
    lines = [f"Hidden (`--hide {hide_text(tuple(hidden))}`): {words(hidden)}."]
    plain = [t for t in readable if not found.get(t)]
    if plain:
        lines.append(f"Left readable by design: {words(plain)}.")
    for tag in (t for t in readable if found.get(t)):
        n = found[tag]
        lines.append(f"Left readable by design, except {n:,} item{'s' if n != 1 else ''} a reviewer hid: "
                     f"{words([tag])}.")
    differs = sheet.get("hide_differs")
    if differs:
        only_messages, only_columns = differs["hidden_in_messages_only"], differs["hidden_in_other_columns_only"]
        lines.append(f"The other columns were searched with `--hide {hide_text(tuple(differs['other_columns']))}`, "
                     "not classify's: "
                     + "; ".join(part for part in (
                         f"hidden in the messages, readable in the other columns: {words(only_messages)}"
                         if only_messages else "",
                         f"hidden in the other columns, readable in the messages: {words(only_columns)}"
                         if only_columns else "") if part) + ".")
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


def _ids_lines(sheet: dict) -> list[str]:
    changed = sheet.get("ids_made_distinct")
    if not changed:
        return []
    return [f"- Ids: {changed:,} id{'s' if changed != 1 else ''} that hiding made equal to an earlier row's "
            f"{'were' if changed != 1 else 'was'} given a suffix `~2` (or the first free `~n`), so every id stays "
            "distinct"]


def _excel_lines(sheet: dict) -> list[str]:
    quoted = sheet.get("formula_cells_quoted")
    if quoted is None:
        return []
    return [f"- Written for a spreadsheet (`--excel`): {quoted:,} cell{'s' if quoted != 1 else ''} starting with "
            "= + - or @ got a leading `'` so that no spreadsheet runs it as a formula; the .csv or .xlsx "
            "release keeps every text exactly"]


#: A statement only a person can write: `[TO FILL: what to write]`, the same in the Markdown and the JSON.
PLACEHOLDER = "[TO FILL: {}]"

#: Columns read as the donor (sender) or the date of a message when --donor-column / --date-column
#: name none (compared without case or accents).
DONOR_COLUMNS = ("donor", "donneur", "sender", "expediteur", "author", "auteur", "speaker", "locuteur",
                 "participant", "contributor", "user", "from")
# An annotation of the messages (a gold file's columns): published only with --gold-columns.
GOLD_COLUMNS = ("label", "labels", "spans", "gold", "gold_label", "gold_spans", "entities", "annotation",
                "annotations", "expert_decision", "expert_hide")
DATE_COLUMNS = ("date", "datetime", "timestamp", "time", "sent", "sent_at", "horodatage", "heure")
_DATE_FORMATS = ("%d/%m/%Y", "%d/%m/%Y %H:%M", "%d/%m/%Y %H:%M:%S", "%d/%m/%y", "%d/%m/%y %H:%M", "%d-%m-%Y",
                 "%d.%m.%Y", "%Y/%m/%d", "%Y/%m/%d %H:%M:%S", "%Y%m%d")

def plain_column_name(name: str) -> str:
    from triage.lexicons import fold

    return fold(name.strip()).replace("-", "_").replace(" ", "_")


def _find_column(columns: list[str], given: str | None, known: tuple[str, ...], option: str) -> str | None:
    if given is not None:
        if given not in columns:
            raise BadOption(f"{option}: no column {given!r}; the input has {', '.join(columns) or 'no other column'}")
        return given
    for name in known:
        for column in columns:
            if plain_column_name(column) == name:
                return column
    return None


def _parse_date(value: str):
    value = value.strip()
    if not value:
        return None
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00")).date()
    except ValueError:
        pass
    for form in _DATE_FORMATS:
        try:
            return datetime.strptime(value, form).date()
        except ValueError:
            continue
    return _parse_french_date(value)


# French month names, full or abbreviated with or without a dot (88milSMS writes `20 sept. 2011 23:23:25`).
_FRENCH_MONTHS = {
    "janvier": 1, "janv": 1, "jan": 1, "fevrier": 2, "fevr": 2, "fev": 2, "mars": 3, "mar": 3, "avril": 4,
    "avr": 4, "mai": 5, "juin": 6, "juillet": 7, "juil": 7, "aout": 8, "septembre": 9, "sept": 9, "sep": 9,
    "octobre": 10, "oct": 10, "novembre": 11, "nov": 11, "decembre": 12, "dec": 12,
}
_FRENCH_DATE = re.compile(r"(\d{1,2})(?:er)?\s+([^\W\d_]+)\.?\s+(\d{4})(?:[\s,]+(?:à\s+)?\d{1,2}[:h]\d{2}(?::\d{2})?)?",
                          re.IGNORECASE)


def _parse_french_date(value: str):
    match = _FRENCH_DATE.fullmatch(value)
    if not match:
        return None
    month = _FRENCH_MONTHS.get(_plain_letters(match.group(2)))
    if month is None:
        return None
    try:
        return date(int(match.group(3)), month, int(match.group(1)))
    except ValueError:
        return None


def _plain_letters(word: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFD", word.lower()) if not unicodedata.combining(c))


def corpus_composition(finals, columns: list[str], *, donor_column: str | None = None,
                       date_column: str | None = None) -> dict:
    """What the released messages are: how many, from how many donors (a donor column), over which period
    (a date column), in which languages (triage.seekhide.language). Counts only: no value of a column is given."""
    donor = _find_column(columns, donor_column, DONOR_COLUMNS, "--donor-column")
    date = _find_column(columns, date_column, DATE_COLUMNS, "--date-column")
    composition: dict = {"messages": len(finals), "donors": None, "period": None}
    if donor is not None:
        values = [str(v.get(donor) or "").strip() for _, v in finals]
        composition["donors"] = {"column": donor, "donors": len({v for v in values if v}),
                                 "messages_without_donor": sum(1 for v in values if not v)}
    if date is not None:
        dates = [_parse_date(str(v.get(date) or "")) for _, v in finals]
        known = [d for d in dates if d is not None]
        composition["period"] = {"column": date, "first": min(known).isoformat() if known else None,
                                 "last": max(known).isoformat() if known else None,
                                 "dated_messages": len(known), "undated_messages": len(dates) - len(known)}
    from triage.seekhide.language import message_languages

    composition["languages"] = message_languages(row.text for row, _ in finals)
    return composition


def _share(n: int, total: int) -> str:
    return f"{n:,} ({100 * n / total:.1f}%)" if total else f"{n:,}"


def _answer(question: str, answer: str | None, to_fill: str | None = None) -> dict:
    """One question of a section: the tool's answer, or a placeholder for a person (`to_fill` says what)."""
    return {"question": question, "answer": answer if answer else PLACEHOLDER.format(to_fill or question)}


def _evaluation_answer(sheet: dict) -> str | None:
    measured = sheet.get("model_evaluation")
    if measured:
        size = f", {measured['messages']:,} messages" if measured.get("messages") else ""
        budget = measured.get("expert_budget")
        return (f"Measured with `triage evaluate` on {measured.get('gold')}{size} (gold spans), "
                f"policy {measured.get('policy')}" + (f" at an expert budget of {100 * budget:.0f}%"
                                                     if isinstance(budget, (int, float)) else "")
                + f": {100 * measured['residual_span_rate']:.1f}% of the items to hide left readable (residual), "
                f"{100 * measured['over_masking_rate']:.1f}% of ordinary words hidden (over-masking)"
                + (f", {100 * measured['message_leak_rate']:.1f}% of messages with something left readable"
                   if "message_leak_rate" in measured else "")
                + (f", {100 * measured['person_precision']:.0f}% of what is hidden as a person is an identifier "
                   "(precision)" if measured.get("person_precision") is not None else "") + ".")
    evaluation = ((sheet.get("classify") or {}).get("model") or {}).get("evaluation")
    if not evaluation:
        return None
    parts = []
    if "residual_span_rate" in evaluation:
        parts.append(f"{100 * evaluation['residual_span_rate']:.1f}% of the items to hide left readable (residual)")
    if "over_masking_rate" in evaluation:
        parts.append(f"{100 * evaluation['over_masking_rate']:.1f}% of ordinary words hidden (over-masking)")
    if evaluation.get("person_precision") is not None:
        parts.append(f"{100 * evaluation['person_precision']:.0f}% of what is hidden as a person is an identifier "
                     "(precision)")
    if not parts:
        return None
    how = f": {evaluation['how']}" if evaluation.get("how") else ""
    return ", ".join(parts)[:1].upper() + ", ".join(parts)[1:] + ", by the model's recorded evaluation" + how + "."


def datasheet_sections(sheet: dict) -> list[dict]:
    """The datasheet as Gebru et al. (2021, "Datasheets for Datasets") ask: motivation, composition,
    collection and consent, preprocessing, uses, distribution and licence, maintenance. The tool answers
    what it knows from the corpus and its workspace; the rest are placeholders (PLACEHOLDER) for a person.
    Each section: {"id", "title", "answers": [{"question", "answer"}]}; `add_section` slots another in."""
    m, a = sheet["messages"], sheet["audit"]
    composition = sheet.get("composition") or {}
    settings = sheet.get("classify") or {}
    released = m["released"]
    donors, period = composition.get("donors"), composition.get("period")
    languages = composition.get("languages")
    hidden_words = ", ".join(_plural(TAG_WORDS[t]) for t in sheet["hidden_categories"])
    readable_words = ", ".join(_plural(TAG_WORDS[t]) for t in sheet["readable_categories"])
    composition_answers = [
        _answer("What do the instances represent?", "Short messages (SMS), one per row, with the columns "
                f"{', '.join(sheet['columns'])}."),
        _answer("How many instances are there?",
                f"{released:,} messages" + (f"; {m['withheld_undecided']:,} more were withheld (queued for a human, "
                                             "undecided)" if m["withheld_undecided"] else "") + "."),
        _answer("How many donors (senders)?",
                f"{donors['donors']:,} distinct values of the column `{donors['column']}`"
                + (f"; {donors['messages_without_donor']:,} messages have none" if donors["messages_without_donor"]
                   else "") + "." if donors else None,
                "the number of donors and how they were recruited (no donor column was found: name one with "
                "--donor-column)"),
        _answer("Over which period were the messages sent?",
                f"From {period['first']} to {period['last']} (column `{period['column']}`, {period['dated_messages']:,} "
                f"dated messages" + (f", {period['undated_messages']:,} without a readable date" if
                                     period["undated_messages"] else "") + ")."
                if period and period.get("first") else None,
                "the period the messages were sent in (no date column was found: name one with --date-column)"),
        _answer("In which languages?",
                f"Mostly French: {_share(languages['mostly_french'], released)} messages; mostly another language: "
                f"{_share(languages['mostly_other'], released)}; undetermined (no word to tell): "
                f"{_share(languages['undetermined'], released)}. Method: {languages['method']}."
                if languages else None, "the languages of the messages"),
        _answer("Does the dataset contain data that might be confidential or identify people?",
                f"It is made of private messages. Hidden in them: {hidden_words}"
                + (f"; left readable by design: {readable_words}" if readable_words else "")
                + ". See Preprocessing for what the machines may have let through."),
        _answer("Is the dataset a sample of a larger set?", None,
                "whether these messages are all that was collected, or a selection (and how it was made)"),
    ]
    audit_answer = (f"Audit: a seeded random sample of {a['sample']:,} of the {a['machine_released']:,} messages the "
                    f"machines released on their own was drawn, {a['audited']:,} reviewed: {a['leaking']:,} still "
                    f"showed something identifying, {100 * a['share']:.1f}% (95% CI {100 * a['low']:.1f}%-"
                    f"{100 * a['high']:.1f}%, exact binomial)." if a["audited"] else
                    "No audit message was reviewed: there is no estimate of what the machines let through.")
    classify_command = settings.get("command")
    preprocessing = [
        _answer("What preprocessing was done?",
                f"Anonymisation with sms-triage {sheet['sms_triage_version']}: {m['machine']:,} messages released "
                f"by the machines, {m['reviewer']:,} decided by a reviewer from the queue, {m['audit']:,} from the "
                f"audit sample; identifying items replaced in the style `{sheet['style']}`. Details below."),
        _answer("How was the corpus classified?",
                (f"`{classify_command}`" + (f" ({_classify_settings_text(settings)})" if settings else "")
                 if classify_command else None),
                "the classify command (this workspace has no record of it: classify with --workspace)"),
        _answer("What is the expected residual and over-masking of the model used?", _evaluation_answer(sheet),
                "the residual (items left readable) and over-masking of the model used: run `triage evaluate "
                "GOLD` (with --model MODEL if classify used one) on gold messages like these, and release with --evaluation evaluate.json"),
        _answer("What did an audit of the machines find?", audit_answer),
        _answer("Is the raw data kept?", "Yes, in the review workspace (a private SQLite file, never published), "
                "with every decision and its log; the release holds no raw text."),
    ]
    return [
        {"id": "motivation", "title": "Motivation", "answers": [
            _answer("For what purpose was the dataset created?", None),
            _answer("Who created the dataset, and on behalf of which entity?", None),
            _answer("Who funded its creation?", None),
        ]},
        {"id": "composition", "title": "Composition", "answers": composition_answers},
        {"id": "collection", "title": "Collection process and consent", "answers": [
            _answer("How were the messages collected?", None,
                    "how the messages were collected (call for donations, phones, software, dates)"),
            _answer("Did the donors consent, and to what?", None,
                    "what the donors agreed to, how consent was recorded, and whether the people they wrote "
                    "to or about were informed"),
            _answer("Was an ethical review conducted?", None, "the ethics board and its decision, or why none"),
        ]},
        {"id": "preprocessing", "title": "Preprocessing: anonymisation", "answers": preprocessing},
        {"id": "uses", "title": "Uses", "answers": [
            _answer("For which tasks has the dataset been used, or is it meant?", None),
            _answer("What should a user know about its anonymisation?",
                    f"{hidden_words[:1].upper() + hidden_words[1:]} are replaced"
                    + (f"; {readable_words} are left readable by design and may identify places or people"
                       if readable_words else "") + ". "
                    + ("Replacements keep length only (`<PRE_7>`)." if sheet["style"] == "tags" else
                       "One entity keeps one replacement throughout the corpus.")),
            _answer("Are there tasks for which it should not be used?", None,
                    "uses to avoid (at least: any attempt to identify the donors or the people they mention)"),
        ]},
        {"id": "distribution", "title": "Distribution and licence", "answers": [
            _answer("How is the dataset distributed?",
                    f"The file {sheet['corpus']}" + (f" (SHA-256 {sheet['sources']['release']['sha256']})"
                                                     if (sheet["sources"].get("release") or {}).get("sha256")
                                                     else "") + " with this datasheet (Markdown and JSON)."),
            _answer("Under which licence?", None, "the licence (e.g. CC BY-NC-SA 4.0) and any terms of use"),
            _answer("Where is it deposited, with which identifier?", None,
                    "the repository (Ortolang, Zenodo...) and the DOI or handle"),
        ]},
        {"id": "maintenance", "title": "Maintenance", "answers": [
            _answer("Who maintains the dataset, and how can they be contacted?", None),
            _answer("How are errors (an item left readable) reported and corrected?", None,
                    "how to report an item left readable, and how a corrected release is published"),
            _answer("How is a new release made?",
                    "From the same review workspace, `triage release` again (with a new classification of the same "
                    "corpus, decided messages are not asked again"
                    + ("; the surrogates are kept there, so an entity keeps its surrogate" if sheet["style"] ==
                       "surrogates" else "") + ")."),
        ]},
    ]


OWN_SECTIONS = ("motivation", "composition", "collection", "preprocessing", "uses", "distribution", "maintenance")


def fill_sections(sheet: dict) -> None:
    """The tool's sections (anew: the release file's checksum may have come since); a section another
    part added (add_section) keeps its place after the one it followed."""
    others = [(i, s) for i, s in enumerate(sheet.get("sections") or []) if s.get("id") not in OWN_SECTIONS]
    previous = [s.get("id") for s in sheet.get("sections") or []]
    sheet["sections"] = datasheet_sections(sheet)
    for index, section in others:
        before = next((previous[j] for j in range(index - 1, -1, -1) if previous[j] in OWN_SECTIONS), "preprocessing")
        add_section(sheet, section, after=before)


def add_section(sheet: dict, section: dict, *, after: str = "preprocessing") -> None:
    """Slot another section into the datasheet (e.g. the review: reviewers and agreement), after the
    section `after`; the Markdown renders it like the others."""
    sections = sheet.setdefault("sections", [])
    position = next((i + 1 for i, s in enumerate(sections) if s.get("id") == after), len(sections))
    sections.insert(position, section)


def _classify_settings_text(settings: dict) -> str:
    parts = [f"policy {settings.get('policy')}"]
    if settings.get("expert_budget"):
        parts.append(f"expert budget {settings['expert_budget']}" + (" (calibrated threshold)"
                                                                    if settings.get("calibrated") else ""))
    parts.append(f"--hide {hide_text(tuple(settings.get('hide') or DEFAULT_HIDE))}")
    known = settings.get("known_names")
    if known:
        source = f" from {known['file']}" if known.get("file") else ""
        parts.append(f"{known.get('names', 0):,} known names{source} hidden with their variants")
    model = settings.get("model") or {}
    if model:
        parts.append(f"model {model.get('name')}" + (f" (fingerprint {model['fingerprint']})" if model.get("fingerprint")
                                                     else ""))
    if settings.get("audit_size") is not None:
        parts.append(f"audit sample {settings['audit_size']:,}, seed {settings.get('audit_seed', 0)}")
    return "; ".join(parts)


def placeholders(sheet: dict) -> list[str]:
    """The questions a person must still answer (their answer is a PLACEHOLDER)."""
    return [f"{section['title']}: {item['question']}" for section in sheet.get("sections", [])
            for item in section.get("answers", []) if item["answer"].startswith("[TO FILL:")]


def _section_lines(section: dict) -> list[str]:
    lines = [f"## {section['title']}", ""]
    for item in section.get("answers", []):
        lines.append(f"- **{item['question']}** {item['answer']}")
    if section.get("lines"):  # a section may bring its own Markdown (a table...)
        lines.extend(["", *section["lines"]] if section.get("answers") else section["lines"])
    return lines + [""]


def datasheet_markdown(sheet: dict) -> str:
    m = sheet["messages"]
    a = sheet["audit"]
    style = {"tags": "each hidden item replaced by its tag and length (`<PRE_7>`)",
             "pseudonyms": "each entity replaced by a numbered tag, the same throughout the corpus (`<PRE_1>`)",
             "surrogates": "each entity replaced by a realistic surrogate of the same kind and shape, the same "
                           "throughout the corpus (the mapping is kept in the review workspace, not here)"}[sheet["style"]]
    record = [
        "### The anonymisation record", "",
        f"- Command: `{sheet['command']}`",
        f"- Style: {sheet['style']}: {style}",
        *_columns_lines(sheet),
        f"- Lexicons fingerprint: {sheet['lexicons_fingerprint']}" + (f"; model: {sheet['model']}" if sheet["model"] else ""),
        *_files_lines(sheet),
        *_consistency_lines(sheet),
        *_classify_lines(sheet),
        *_excel_lines(sheet),
        *_ids_lines(sheet),
        "", "### What is hidden", "",
        *_categories_lines(sheet),
        "", "### Messages by route", "",
        "| route | messages |", "|---|---|",
        f"| released by the machines | {m['machine']:,} |",
        f"| decided by a reviewer (queue) | {m['reviewer']:,} |",
        f"| decided by a reviewer (audit sample) | {m['audit']:,} |",
        f"| withheld (queued, undecided) | {m['withheld_undecided']:,} |",
        f"| **released** | **{m['released']:,}** |",
        "", "### Hidden items by tag", "", "| tag | items |", "|---|---|",
        *[f"| {tag} | {n:,} |" for tag, n in sheet["hidden_items_by_tag"].items()],
        "", "### Audit of the machines", "",
    ]
    if a["audited"]:
        record.append(
            f"A seeded random sample of {a.get('sample', a['audited']):,} messages the machines released on their "
            f"own was drawn; {a['audited']:,} were reviewed (the sample size of the estimate): "
            f"{a['leaking']:,} of {a['audited']:,} still showed something identifying, "
            f"{100 * a['share']:.1f}% (95% CI {100 * a['low']:.1f}%-{100 * a['high']:.1f}%, exact binomial) of the "
            f"{a['machine_released']:,} messages the machines released. Those reviewed messages are released as "
            "the reviewer decided."
        )
    else:
        record.append("No audit message was reviewed: there is no estimate of what the machines let through "
                      "(`triage review` shows an audit sample after the queue).")
    lines = [
        f"# Datasheet: {sheet['corpus']}", "",
        f"Anonymised with sms-triage {sheet['sms_triage_version']} on {sheet['created']} (UTC), after Patel et al. "
        "(2013): Seek&Hide's lexicons and rules, a learnt message model, a combiner that sends uncertain messages "
        "to a human reviewer. The sections follow Gebru et al. (2021), \"Datasheets for Datasets\": sms-triage "
        "answered what it knows from the corpus and its review workspace; every `[TO FILL: ...]` is for a person "
        "to write before publication.", "",
    ]
    sections = sheet.get("sections") or []
    for section in sections:
        lines.extend(_section_lines(section))
        if section.get("id") == "preprocessing":
            lines.extend([*record, "", *_review_lines(sheet.get("review"))[1:], ""])
    if not any(section.get("id") == "preprocessing" for section in sections):  # an older datasheet
        lines.extend([*record, "", *_review_lines(sheet.get("review"))[1:], ""])
    return "\n".join(lines).rstrip("\n") + "\n"


def _classify_lines(sheet: dict) -> list[str]:
    found = sheet.get("classify")
    if not found:
        return []
    read = ", ".join(f"{what} {found.get(key) or 'decided from the file'}" for what, key in (
        ("text column", "text_column"), ("id column", "id_column"), ("encoding", "encoding"),
        ("delimiter", "delimiter")))
    decisions = ", ".join(f"{d} {n:,}" for d, n in (found.get("decisions") or {}).items())
    return [f"- Classify read {found.get('messages', 0):,} messages ({read}; bad rows: {found.get('on_bad_lines')}, "
            f"{found.get('skipped_lines', 0):,} skipped) and decided {decisions}"]


def _consistency_lines(sheet: dict) -> list[str]:
    found = sheet.get("consistency")
    if not found:
        return []
    if not found["cases"]:
        return ["- Consistency: no spelling hidden in some messages and readable in others, no surrogate equal to a "
                "readable form, no spelling under two tags"]
    decided = ", ".join(f"{n:,} {what}" for what, n in found["decided"].items())
    return [f"- Consistency: {found['cases']:,} case{'s' if found['cases'] != 1 else ''} (a spelling hidden in some "
            "messages and readable in others, a surrogate equal to a readable form, a spelling under two tags)"
            + (f"; decided: {decided}" if decided else "")
            + (f"; {found['undecided']:,} left undecided (released with --inconsistent-ok)" if found["undecided"] else "")]


def _files_lines(sheet: dict) -> list[str]:
    sources = sheet.get("sources") or {}
    found = [(what, f) for what, f in (("release", sources.get("release")), ("classified file", sources.get("classified")),
                                       ("input", sources.get("input"))) if f and f.get("sha256")]
    lines = []
    read = (sources.get("input") or {}).get("read")
    if read:
        how = f"read as {read['format']}, encoding {read['encoding']}"
        if read.get("delimiter"):
            shown = {"\t": "tab"}.get(read["delimiter"], read["delimiter"])
            how += f", delimiter '{shown}'"
        lines.append(f"- Input {sources['input']['file']}: {how}")
    if found:
        lines.append("- SHA-256: " + "; ".join(f"{what} {f['file']} {f['sha256']}" for what, f in found))
    return lines


def _review_lines(section: dict | None) -> list[str]:
    from triage.review_workspace.agreement import review_markdown

    return review_markdown(section)


def published_command(argv: list[str]) -> str:
    """A command as the datasheet publishes it: `triage` and its words (quoted where a word needs it),
    each path given by its file name alone, since a folder can name its owner (/home/<login>/...)."""
    import shlex

    def named(word: str) -> str:
        option, equals, value = word.partition("=") if word.startswith("--") else ("", "", word)
        if "/" in value or os.sep in value:
            value = os.path.basename(value.rstrip("/" + os.sep)) or value
        return f"{option}{equals}{value}"

    return " ".join(["triage", *(shlex.quote(named(word)) for word in argv)])
