"""Bad input, the third pass: any text survives a spreadsheet (control characters, a leading
quote, a leading - + @ =), deeply nested JSON is one line, and None means the default."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import write_queued
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from triage import queue
from triage.spreadsheets import read_xlsx, write_xlsx

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
