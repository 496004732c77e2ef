"""Bad input in cells and options: any text survives a spreadsheet (control characters, a
leading quote, a leading - + @ =), deeply nested JSON is one line, and None means the default."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import HEADER, failed, labelled_rows, nothing_written, read_rows, run, write_queued, write_table
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from triage.queue import files as queue
from triage.io.spreadsheets import read_xlsx, write_xlsx

# Any text a message can hold once read: every character but NUL (every reader drops it) and
# lone surrogates (not text); tabs, line breaks, controls, U+FFFF, "_x000B_" and quotes included.
TEXTS = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), min_size=1, max_size=40) \
    .filter(lambda t: t.strip() != "")
TRICKY = ["a\x0bb", "\x1b[31mrouge", "_x000B_", "_x005F_", "'=1+1", "''=x", "=SOMME(A1)", "-12", "+33 6",
          "@julie", "a\rb", "\uffff", " espaces ", "\t=x"]


def export_and_read(tmp_path: Path, text: str):
    classified = write_queued(tmp_path / "classified.csv", text)
    target = tmp_path / "queue.xlsx"
    queue.export_queue(classified, target, force=True)
    return queue.read_decisions(target)


@pytest.mark.parametrize("text", TRICKY)
def test_tricky_texts_round_trip_through_an_xlsx_queue(tmp_path, text):
    answers = export_and_read(tmp_path, text)
    assert answers["1"].text == text


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=TEXTS)
def test_any_text_round_trips_through_an_xlsx_queue(tmp_path, text):
    assert export_and_read(tmp_path, text)["1"].text == text


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(texts=st.lists(TEXTS, min_size=1, max_size=5))
def test_a_released_workbook_keeps_every_text_exactly(tmp_path, texts):
    target = tmp_path / "corpus.xlsx"
    write_xlsx(target, ["id", "text"], [[str(i), t] for i, t in enumerate(texts)], force=True)
    header, rows = read_xlsx(target)
    assert header == ["id", "text"] and [row[1] for row in rows] == texts


def test_a_released_workbook_holds_text_cells_never_formulas(tmp_path):
    from openpyxl import load_workbook

    texts = ["=HYPERLINK(\"http://x\")", "+33 6 12", "-5 euros", "@julie", "ok"]
    write_xlsx(tmp_path / "c.xlsx", ["id", "text"], [[str(i), t] for i, t in enumerate(texts)])
    sheet = load_workbook(tmp_path / "c.xlsx").worksheets[0]
    cells = [row[1] for row in sheet.iter_rows(min_row=2)]
    assert [c.value for c in cells] == texts and all(c.data_type == "s" for c in cells)


# ------------------------------------------------------------------ deeply nested JSON

DEEP = "[" * 5000 + "]" * 5000  # Python's decoder overflows its stack on this


def deep_gold(tmp_path: Path, where: str) -> Path:
    """A labelled file whose last row holds deeply nested JSON: in its spans cell (CSV) or in
    a field of its JSON Lines object."""
    rows = labelled_rows()
    if where == "spans":
        return write_table(tmp_path / "gold.csv", [*rows, ["99", "ok", "NTA", DEEP]])
    path = tmp_path / "gold.jsonl"
    lines = [json.dumps(dict(zip(HEADER, row))) for row in rows]
    lines.append('{"id": "99", "text": "ok", "label": "NTA", "spans": [], "extra": ' + DEEP + "}")
    path.write_text("\n".join(lines) + "\n", "utf-8")
    return path


@pytest.mark.parametrize("command", ["classify", "train", "evaluate"])
@pytest.mark.parametrize("where", ["spans", "jsonl"])
def test_deeply_nested_json_in_an_input_is_one_line_naming_file_and_row(cli, tmp_path, out, command, where):
    if command == "classify" and where == "spans":
        pytest.skip("classify does not read gold spans")
    source = deep_gold(tmp_path, where)
    line = "line 26" if where == "spans" else "line 25"  # a CSV's header is its line 1
    message = failed(run(cli, command, source, out), 1, source.name, line, "nested more than")
    assert "Recursion" not in message
    nothing_written(out)


def test_deeply_nested_json_in_a_hidden_cell_is_one_line_for_queue_export(cli, tmp_path):
    classified = write_queued(tmp_path / "classified.csv", "salut julie")
    rows = read_rows(classified)
    rows[0]["hidden"] = DEEP
    write_table(classified, [list(r.values()) for r in rows], list(rows[0]))
    failed(cli("queue", "export", classified, "-o", tmp_path / "q.csv"), 1,
           "classified.csv", "line 2", "'hidden'", "nested more than")
    assert not (tmp_path / "q.csv").exists()


def test_deeply_nested_json_in_a_hidden_cell_is_one_line_for_release(cli, tmp_path):
    from triage.review_workspace import open_synced

    classified = write_queued(tmp_path / "classified.csv", "salut julie")
    rows = read_rows(classified)
    rows[0]["decision"], rows[0]["label"] = "NTA", "NTA"  # nothing left to review
    write_table(classified, [list(r.values()) for r in rows], list(rows[0]))
    opened, _ = open_synced(classified, tmp_path / "ws.sqlite")
    opened.close()
    rows[0]["hidden"] = DEEP
    write_table(classified, [list(r.values()) for r in rows], list(rows[0]))
    failed(cli("release", classified, "--workspace", tmp_path / "ws.sqlite", "-o", tmp_path / "corpus.csv"), 1,
           "classified.csv", "line 2", "nested more than")
    assert not (tmp_path / "corpus.csv").exists()


@settings(max_examples=30, deadline=None)
@given(depth=st.integers(1, 3000), kind=st.sampled_from("[{"))
def test_parse_json_returns_a_value_or_raises_value_error(depth, kind):
    from triage.io.jsonl import JSONTooDeep, MAX_JSON_DEPTH, parse_json

    opening, closing = ("[", "]") if kind == "[" else ('{"a":', "}")
    text = opening * depth + "1" + closing * depth
    try:
        parse_json(text)
    except JSONTooDeep:
        assert depth > MAX_JSON_DEPTH
    else:
        assert depth <= MAX_JSON_DEPTH


# ------------------------------------------------------------------ the Python API


def test_hide_none_means_the_default_and_a_wrong_type_is_one_option_error():
    import pandas as pd

    import triage
    from triage.errors import BadOption

    frame = pd.DataFrame({"id": ["1", "2"], "text": ["rdv avec Julie à 18h", "il pleut"]})
    pd.testing.assert_frame_equal(triage.classify(frame, hide=None), triage.classify(frame))
    with pytest.raises(BadOption, match="hide must be"):
        triage.classify(frame, hide=5)


# ---------------------------------------------------------------- workbooks: what a reader sees


def _workbook(path: Path, sheets: list[tuple[str, list[list], str]]) -> Path:
    """A workbook written by a program (openpyxl): each sheet (title, rows, state); a text starting
    with = is a formula, stored without a computed value, as a program writes it."""
    from openpyxl import Workbook

    book = Workbook()
    book.remove(book.active)
    for title, rows, state in sheets:
        sheet = book.create_sheet(title)
        for row in rows:
            sheet.append(row)
        sheet.sheet_state = state
    book.save(path)
    return path


MESSAGES = [["id", "text"], ["1", "Salut Julie ca va"], ["2", "ok merci"]]


@pytest.mark.parametrize("state", ["hidden", "veryHidden"])
def test_a_hidden_first_sheet_is_never_read(cli, tmp_path, state):
    secret = [["id", "text"], ["9", "notes internes de Zorglubine"], ["8", "mdp azerty"]]
    path = _workbook(tmp_path / "sms.xlsx", [("notes", secret, state), ("messages", MESSAGES, "visible")])
    header, rows = read_xlsx(path)
    assert header == ["id", "text"] and rows == MESSAGES[1:]
    out = tmp_path / "c.csv"
    assert cli("classify", path, "-o", out, "--no-chart").exit_code == 0
    assert [row["id"] for row in read_rows(out)] == ["1", "2"]


def test_a_workbook_of_hidden_sheets_only_is_one_line(cli, tmp_path, out):
    import zipfile

    written = _workbook(tmp_path / "visible.xlsx", [("messages", MESSAGES, "visible")])
    path = tmp_path / "sms.xlsx"  # what a spreadsheet program may write: its only sheet hidden
    with zipfile.ZipFile(written) as source, zipfile.ZipFile(path, "w") as target:
        for item in source.infolist():
            data = source.read(item.filename)
            if item.filename == "xl/workbook.xml":
                data = data.replace(b'state="visible"', b'state="hidden"')
            target.writestr(item, data)
    failed(cli("classify", path, "-o", out / "c.csv", "--no-chart"), 1, "every sheet is hidden")
    nothing_written(out)


def test_formulas_without_a_stored_value_are_refused_never_read_as_empty_messages(cli, tmp_path, out):
    rows = [["id", "text"], ["1", '=CONCAT("Salut ","Julie")'], ["2", "ok merci"], ["3", '=A1&"x"']]
    path = _workbook(tmp_path / "sms.xlsx", [("messages", rows, "visible")])
    message = failed(cli("classify", path, "-o", out / "c.csv", "--no-chart"), 1, "2 cells", "formulas",
                     "row 2, column 'text'", "export it as CSV")
    assert "Julie" not in message
    nothing_written(out)
    from triage.errors import BadInput

    with pytest.raises(BadInput, match="no computed value stored"):
        read_xlsx(path)


def test_empty_cells_that_are_no_formulas_are_read_as_empty(tmp_path):
    rows = [["id", "text", "note"], ["1", "Salut Julie", None], ["2", "ok", "vu"]]
    path = _workbook(tmp_path / "sms.xlsx", [("messages", rows, "visible")])
    assert read_xlsx(path)[1] == [["1", "Salut Julie", ""], ["2", "ok", "vu"]]
