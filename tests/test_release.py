"""triage release: the publishable corpus in every style, its datasheet, spreadsheets."""

import csv
import io
import json
import re

import pytest
from conftest import SAMPLE
from hypothesis import given, settings
from hypothesis import strategies as st

from triage.publication.corpus import Pseudonyms, Tags, release_text
from triage.text.normalise import grapheme_spans
from triage.io.spreadsheets import restore_formula
from triage.review_workspace import Workspace
from triage.io.spreadsheets import read_xlsx
from triage.surrogates import FICTION_PHONE_PREFIXES, Surrogates, entity_key, shaped

STYLES = ("tags", "pseudonyms", "surrogates")
WORKING_CODE = re.compile(r"<[A-Z]{3}_\d+_\d+>")  # <PRE_7_151>: the dictionary id of the working copy


@st.composite
def text_and_spans(draw):
    text = draw(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=60))
    cuts = sorted(draw(st.sets(st.integers(0, len(text)), max_size=8)))
    spans = []
    for start, end in zip(cuts[::2], cuts[1::2]):
        if start < end:
            spans.append([start, end, draw(st.sampled_from(["PRE", "NOM", "SUR", "TEL", "COD", "LIE", "MEL"]))])
    return text, spans


@settings(max_examples=300, deadline=None)
@given(text_and_spans(), st.sampled_from(STYLES))
def test_a_release_keeps_every_character_outside_the_spans_and_none_inside(case, style):
    text, spans = case
    replacer = {"tags": Tags(), "pseudonyms": Pseudonyms(), "surrogates": Surrogates(seed=1)}[style]
    replaced: list[tuple[str, str]] = []

    def recording(tag, original):
        out = replacer.replace(tag, original)
        replaced.append((original, out))
        return out

    released = release_text(text, spans, recording)
    # Rebuild the release from the outside pieces and the replacements: equal, so nothing else moved.
    # (A span is replaced with the marks of its characters: whole grapheme clusters.)
    pieces, last = [], 0
    for (start, end, _), (_, out) in zip(grapheme_spans(text, spans), replaced):
        pieces += [text[last:start], out]
        last = end
    assert released == "".join(pieces) + text[last:]
    for original, out in replaced:
        if len(entity_key("PRE", original)) >= 3 and style != "tags":
            assert entity_key("PRE", original) != entity_key("PRE", out)  # never the original again


def test_one_entity_one_pseudonym_two_entities_two():
    names = Pseudonyms()
    assert names.replace("PRE", "Nicolas") == names.replace("PRE", "nicooolas") == "<PRE_1>"
    assert names.replace("PRE", "Julie") == "<PRE_2>" and names.replace("NOM", "Martin") == "<NOM_1>"
    surrogates = Surrogates(seed=3)
    first = surrogates.replace("PRE", "Nicolas")
    assert surrogates.replace("PRE", "NICOLAS") == first.upper() and surrogates.replace("PRE", "nicolas") == first.lower()
    assert surrogates.replace("PRE", "Julie") != first
    assert Surrogates(seed=3).replace("PRE", "Nicolas") == first  # a seed makes it reproducible


def test_surrogates_keep_shape_sex_and_use_fiction_numbers():
    surrogates = Surrogates(seed=0)
    repeated = surrogates.replace("PRE", "nicooolas")
    assert re.search(r"(.)\1\1", repeated) and repeated.islower()
    assert shaped("thomas", "JULIE") == "THOMAS"
    from triage.surrogates import _sex_of

    for name in ("Marie", "Pierre", "Nathalie", "Kevin"):
        assert _sex_of()[entity_key("PRE", surrogates.replace("PRE", name))] in (_sex_of()[entity_key("PRE", name)], "FM")
    phone = surrogates.replace("TEL", "06 12 34 56 78")
    assert re.fullmatch(r"\d\d \d\d \d\d \d\d \d\d", phone)
    assert phone.replace(" ", "")[:6] in FICTION_PHONE_PREFIXES
    assert surrogates.replace("TEL", "+33 6 12 34 56 78").startswith("+33 ")
    assert surrogates.replace("MEL", "kevin.durand@gmail.com").endswith(("example.org", "example.com", "example.net"))
    code = surrogates.replace("COD", "B2579")
    assert re.fullmatch(r"[A-Z]\d{4}", code) and code != "B2579"


@pytest.fixture
def reviewed(cli, tmp_path):
    """The demo corpus classified into a workspace, its queue decided as a reviewer would."""
    classified, ws = tmp_path / "demo.csv", tmp_path / "demo.review.sqlite"
    result = cli("classify", SAMPLE, "-o", classified, "--workspace", ws)
    assert result.exit_code == 0, result.output
    with Workspace.open(ws) as opened:
        for item in opened.items(kind="queue", limit=1000):
            label = "TA" if item.proposal else "NTA"
            opened.decide(item.id, label=label, spans=item.proposal, reviewer="ana")
    return classified, ws


def test_an_undecided_queue_is_refused_unless_withheld(cli, tmp_path):
    classified, ws = tmp_path / "demo.csv", tmp_path / "ws.sqlite"
    assert cli("classify", SAMPLE, "-o", classified, "--workspace", ws).exit_code == 0
    refused = cli("release", classified, "--workspace", ws, "-o", tmp_path / "corpus.csv")
    assert refused.exit_code == 1
    assert "queued messages are undecided" in refused.output and f"triage review {classified}" in refused.output
    assert not (tmp_path / "corpus.csv").exists()
    withheld = cli("release", classified, "--workspace", ws, "-o", tmp_path / "corpus.csv", "--withhold-undecided",
                   "--inconsistent-ok")  # the demo's homonyms: consistency cases nobody decided yet
    assert withheld.exit_code == 0, withheld.output
    sheet = json.loads((tmp_path / "corpus.datasheet.json").read_text("utf-8"))
    queued = sum(1 for r in csv.DictReader(open(classified, encoding="utf-8")) if r["decision"] == "EXPERT")
    assert sheet["messages"]["withheld_undecided"] == queued
    assert len(list(csv.DictReader(open(tmp_path / "corpus.csv", encoding="utf-8")))) == 260 - queued


@pytest.mark.parametrize("style", STYLES)
@pytest.mark.parametrize("suffix", [".csv", ".jsonl", ".xlsx", "excel"])
def test_round_trip_classify_review_release(cli, reviewed, tmp_path, style, suffix):
    classified, ws = reviewed
    output = tmp_path / ("corpus.csv" if suffix == "excel" else f"corpus{suffix}")
    extra = ["--excel"] if suffix == "excel" else []
    result = cli("release", classified, "--workspace", ws, "-o", output, "--style", style, "--inconsistent-ok",
                 "--columns", "donor", *extra)
    assert result.exit_code == 0, result.output
    if suffix == ".xlsx":
        assert output.read_bytes()[:2] == b"PK"  # a real workbook, never a CSV under its name
        header, rows = read_xlsx(output)
        records = [dict(zip(header, row)) for row in rows]
    elif suffix == ".jsonl":
        records = [json.loads(line) for line in output.read_text("utf-8").splitlines()]
    else:
        raw = output.read_bytes()
        if suffix == "excel":
            assert raw.startswith(b"\xef\xbb\xbf") and b";" in raw.split(b"\r\n")[0]
        records = list(csv.DictReader(io.StringIO(raw.decode("utf-8-sig"), newline=""),
                                      delimiter=";" if suffix == "excel" else ","))
    assert len(records) == 260
    assert list(records[0]) == ["id", "donor", "text"]  # the columns named, in the input's order; never the gold
    originals = {r["id"]: r for r in csv.DictReader(open(SAMPLE, encoding="utf-8"))}
    with Workspace.open(ws) as opened:
        finals = {row.id: row for row in opened.final()}
    released = "\n".join(r["text"] for r in records)
    assert not WORKING_CODE.search(released)
    for record in records:
        final = finals[record["id"]]
        assert record["donor"] == originals[record["id"]]["donor"]
        for start, end, _ in final.spans:
            hidden = final.text[start:end]
            if len(hidden) >= 4:
                assert hidden not in record["text"], (style, hidden, record["text"])
        if not final.spans:
            assert record["text"] == final.text
    sheet = json.loads((tmp_path / "corpus.datasheet.json").read_text("utf-8"))
    m = sheet["messages"]
    assert m["machine"] + m["reviewer"] + m["audit"] == m["released"] == 260
    assert sum(sheet["hidden_items_by_tag"].values()) == sum(len(f.spans) for f in finals.values())
    assert sheet["style"] == style and sheet["lexicons_fingerprint"]
    assert "Messages by route" in (tmp_path / "corpus.datasheet.md").read_text("utf-8")
    quoted = sum(v != restore_formula(v) for r in records for v in r.values())
    assert sheet["formula_cells_quoted"] == (quoted if suffix == "excel" else None)


def test_the_datasheet_says_how_many_cells_the_excel_csv_quoted():
    from triage.publication.datasheet import _excel_lines, formula_cells

    records = [["1", "=1+1 ok", "-"], ["2", "+33 6", "@lea"], ["3", "a = b", "'=x"]]
    assert formula_cells(records) == 5  # "=1+1 ok", "-", "+33 6", "@lea", and "'=x" gets one quote more
    sheet = {"formula_cells_quoted": 5}
    assert "5 cells starting with = + - or @" in _excel_lines(sheet)[0]
    assert _excel_lines({"formula_cells_quoted": None}) == [] and _excel_lines({}) == []


def test_surrogates_stay_in_the_workspace_and_are_the_same_next_time(cli, reviewed, tmp_path):
    classified, ws = reviewed
    for name in ("a.csv", "b.csv"):
        assert cli("release", classified, "--workspace", ws, "-o", tmp_path / name, "--style", "surrogates",
                   "--inconsistent-ok").exit_code == 0
    assert (tmp_path / "a.csv").read_text("utf-8") == (tmp_path / "b.csv").read_text("utf-8")
    with Workspace.open(ws) as opened:
        mapping = opened.surrogate_map()
    released = (tmp_path / "a.csv").read_text("utf-8").lower()
    names = [(entity, surrogate) for (tag, entity), surrogate in mapping.items() if tag == "PRE"]
    used = sum(surrogate.lower() in released for _, surrogate in names)  # shaped ones (nicooolas) differ
    assert names and used >= 0.8 * len(names)
    sheet = (tmp_path / "a.datasheet.json").read_text("utf-8").lower()
    assert not [entity for entity, _ in names if f'"{entity}"' in sheet]  # the mapping never leaves the workspace


def test_release_refuses_to_overwrite_and_checks_every_output_first(cli, reviewed, tmp_path):
    classified, ws = reviewed
    (tmp_path / "corpus.datasheet.md").write_text("my notes", "utf-8")
    refused = cli("release", classified, "--workspace", ws, "-o", tmp_path / "corpus.csv")
    assert refused.exit_code == 1 and "exists" in refused.output
    assert not (tmp_path / "corpus.csv").exists() and (tmp_path / "corpus.datasheet.md").read_text("utf-8") == "my notes"
    assert cli("release", classified, "--workspace", ws, "-o", classified, "--force").exit_code == 1
    bad = cli("release", classified, "--workspace", ws, "-o", tmp_path / "x.csv", "--style", "masks")
    assert bad.exit_code == 1 and "--style must be one of" in bad.output


def test_queue_export_to_xlsx_writes_a_workbook(cli, reviewed, tmp_path):
    classified, _ = reviewed
    result = cli("queue", "export", classified, "-o", tmp_path / "queue.xlsx")
    assert result.exit_code == 0, result.output
    header, rows = read_xlsx(tmp_path / "queue.xlsx")
    assert header[:2] == ["id", "text"] and rows


def test_a_spreadsheet_is_read_like_its_csv(cli, tmp_path):
    from triage.io.spreadsheets import write_xlsx

    rows = list(csv.reader(open(SAMPLE, encoding="utf-8", newline="")))
    write_xlsx(tmp_path / "sms.xlsx", rows[0], rows[1:])
    assert cli("classify", tmp_path / "sms.xlsx", "-o", tmp_path / "x.csv").exit_code == 0
    assert cli("classify", SAMPLE, "-o", tmp_path / "c.csv").exit_code == 0
    assert (tmp_path / "x.csv").read_bytes() == (tmp_path / "c.csv").read_bytes()
    (tmp_path / "broken.xlsx").write_bytes(b"PK\x03\x04 not really")
    broken = cli("classify", tmp_path / "broken.xlsx", "-o", tmp_path / "b.csv")
    assert broken.exit_code == 1 and "not a readable .xlsx" in broken.output


def test_a_spreadsheet_name_never_receives_a_csv(cli, tmp_path):
    result = cli("classify", SAMPLE, "-o", tmp_path / "out.xlsx")
    assert result.exit_code == 1 and "writes .csv, .tsv or .jsonl" in result.output
    assert not (tmp_path / "out.xlsx").exists()


def test_the_datasheet_names_the_model(cli, reviewed, tmp_path):
    classified, ws = reviewed
    assert cli("release", classified, "--workspace", ws, "-o", tmp_path / "c.csv", "--inconsistent-ok").exit_code == 0
    sheet = json.loads((tmp_path / "c.datasheet.json").read_text("utf-8"))
    assert sheet["model"].startswith("the embedded model") and "sha256" in sheet["model"]


def test_a_released_workbook_keeps_formula_looking_texts_as_text_cells(tmp_path):
    from openpyxl import load_workbook

    from triage.io.spreadsheets import write_xlsx

    write_xlsx(tmp_path / "c.xlsx", ["id", "text"], [["1", "=HYPERLINK(\"http://x\")"], ["2", "+33 6 12"], ["3", "ok"]])
    sheet = load_workbook(tmp_path / "c.xlsx").worksheets[0]
    cells = [row[1] for row in sheet.iter_rows(min_row=2)]
    assert all(c.data_type == "s" for c in cells)  # a string cell is never run as a formula
    assert [c.value for c in cells] == ["=HYPERLINK(\"http://x\")", "+33 6 12", "ok"]  # the texts, exactly
    assert read_xlsx(tmp_path / "c.xlsx")[1][0][1] == "=HYPERLINK(\"http://x\")"  # read back as written
