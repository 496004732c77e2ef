"""The spreadsheet round trip shows the machines' proposal: an exported queue marks what the machines
hid in each message and lists it, so that TA and NTA are never answered blind; its HTML page names
every answer file the import reads (.xlsx, .csv, .jsonl) and how to fill each; and an answer saved by
a spreadsheet program (.xlsx) or written as JSON lines goes into the workspace."""

import json

from conftest import failed, succeeded
from test_release_datasheet import queued_corpus

from triage.io.spreadsheets import read_xlsx
from triage.review_workspace import Workspace


def rows_of(queue):
    columns, cells = read_xlsx(queue)
    return columns, {row[0]: dict(zip(columns, row)) for row in cells}


def test_an_xlsx_queue_shows_what_the_machines_hid_in_each_message(cli, tmp_path):
    classified, ws, queue = queued_corpus(cli, tmp_path, "queue.xlsx")
    columns, rows = rows_of(queue)
    assert columns[:4] == ["id", "text", "proposal", "machines_hide"]
    with Workspace.open(ws) as opened:
        for ident, row in rows.items():
            proposal = opened.item(ident).proposal
            listed = [f"{row['text'][s:e]} ({tag})" for s, e, tag in proposal]
            assert row["machines_hide"] == "; ".join(listed)
            assert all(f"[{tag}: {row['text'][s:e]}]" in row["proposal"] for s, e, tag in proposal)
    mail = rows["4"]
    assert mail["proposal"] == "mon mail c'est [MEL: julie.moreau@example.com]"
    assert mail["machines_hide"] == "julie.moreau@example.com (MEL)"
    assert rows["8"]["machines_hide"] == "" and rows["8"]["proposal"] == rows["8"]["text"]


def test_an_xlsx_answer_saved_by_a_spreadsheet_program_is_imported(cli, tmp_path):
    from openpyxl import load_workbook

    classified, ws, queue = queued_corpus(cli, tmp_path, "queue.xlsx")
    book = load_workbook(queue)  # as Excel or LibreOffice opens, fills and saves it
    sheet = book.worksheets[0]
    header = [cell.value for cell in sheet[1]]
    decision, hide = header.index("expert_decision") + 1, header.index("expert_hide") + 1
    answered = {}
    for number in range(2, sheet.max_row + 1):
        ident = str(sheet.cell(number, 1).value)
        sheet.cell(number, decision).value = "TA"
        answered[ident] = "TA"
        if ident == "3":  # a word the machines missed
            sheet.cell(number, hide).value = "Decathlon"
    book.save(tmp_path / "answered.xlsx")
    result = cli("review", classified, "--workspace", ws, "--import-queue", tmp_path / "answered.xlsx",
                 "--reviewer", "Marie")
    succeeded(result)
    assert f"imported {len(answered)} decisions of Marie" in result.output
    with Workspace.open(ws) as opened:
        for ident in answered:
            item = opened.item(ident)
            # TA keeps hidden what the machines proposed, the words the xlsx listed, and the expert's words
            missed = [[s, e] for s, e, _ in item.spans if item.text[s:e] == "Decathlon"]
            assert (item.label, item.reviewer) == ("TA", "Marie")
            assert [s for s in item.spans if [s[0], s[1]] not in missed] == item.proposal
            assert len(missed) == (ident == "3")


def test_a_jsonl_answer_is_imported_and_a_bad_decision_in_it_is_one_line(cli, tmp_path):
    classified, ws, queue = queued_corpus(cli, tmp_path, "queue.jsonl")
    records = [json.loads(line) for line in queue.read_text("utf-8").splitlines()]
    assert all("proposal" in r and "machines_hide" in r for r in records)
    bad = [{**r, "expert_decision": "maybe"} for r in records]
    (tmp_path / "bad.jsonl").write_text("".join(json.dumps(r) + "\n" for r in bad), "utf-8")
    message = failed(cli("review", classified, "--workspace", ws, "--import-queue", tmp_path / "bad.jsonl",
                         "--reviewer", "Marie"), 1, "expert_decision")
    assert len(message.strip().splitlines()) == 1
    good = [{**r, "expert_decision": "TA", "expert_hide": ""} for r in records]
    (tmp_path / "good.jsonl").write_text("".join(json.dumps(r) + "\n" for r in good), "utf-8")
    succeeded(cli("review", classified, "--workspace", ws, "--import-queue", tmp_path / "good.jsonl",
                  "--reviewer", "Marie"))
    with Workspace.open(ws) as opened:
        assert opened.progress()["decided"] == len(records)


def test_the_html_queue_marks_the_proposal_and_names_every_answer_format(cli, tmp_path):
    classified, ws, queue = queued_corpus(cli, tmp_path, "queue.html")
    page = queue.read_text("utf-8")
    assert '<mark class="hidden">julie.moreau@example.com <span class="tag">MEL</span></mark>' in page
    assert "<td>julie.moreau@example.com (MEL)</td>" in page
    for answer in ("<strong>.xlsx</strong>", "<strong>.csv</strong>", "<strong>.jsonl</strong>"):
        assert answer in page
    assert '"expert_decision": "TA"' in page and "--import-queue FILE" in page
    assert "NTA releases the message as written: what the machines hid becomes readable" in " ".join(page.split())
    message = failed(cli("review", classified, "--workspace", ws, "--import-queue", queue, "--reviewer", "Marie"), 1,
                     "for reading only", ".xlsx, .csv or .jsonl")
    assert len(message.strip().splitlines()) == 1
