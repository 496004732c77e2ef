"""Exact expert budgets: a share or a count of messages, exactly that many
sent to the expert, the riskiest of the corpus with ties in input order, whatever the engine;
--calibrated routes by the threshold calibrated at training instead, and says so."""

import csv
import json

import numpy as np
import pandas as pd
import pytest
from conftest import SAMPLE, failed, nothing_written, read_rows, succeeded, write_table

import triage
from triage.io import writing
from triage.io.writing import HeldChunks, TableWriter, encode_cells, encode_rows_held
from triage.combiner import ExpertBudget, riskiest
from triage.errors import BadOption
from triage.jobs import run_classify

DEMO_SIZE = 260

# Invented messages: one that names someone (risky), one ordinary, and cells a CSV writer must
# quote (comma, quote, line ends, tab), accents written decomposed and a character beyond the BMP.
RISKY = "coucou jeje tu vien avec Louloute chez Mimi ce soir"
AWKWARD = [
    ('a,1', 'salut, "toi"\r\nça va ?'),
    ('b"2', "rdv chez Gégé\tce soir 😀"),
    ("c\n3", "bisous de Cle\u0301mence"),
    ("d4", "ok"),
]


def decisions(path):
    return [row["decision"] for row in read_rows(path)]


def classify(cli, source, out, *options):
    result = cli("classify", source, "-o", out, *options)
    succeeded(result)
    return result.output


@pytest.mark.parametrize("budget, sent", [("0.05", 13), ("0.1", 26), ("0.5", 130), ("1", DEMO_SIZE),
                                          ("0", 0), ("7", 7), ("500", DEMO_SIZE)])
def test_exactly_the_budget_goes_to_the_expert(cli, tmp_path, budget, sent):
    out = tmp_path / "out.csv"
    output = classify(cli, SAMPLE, out, "--expert-budget", budget)
    assert decisions(out).count("EXPERT") == sent
    assert f"  EXPERT {sent:>10,}" in output  # the summary counts the final decisions
    share = f"{100 * sent / DEMO_SIZE:.2f}%"
    if float(budget) > 1:
        assert f"expert budget: {int(budget)} messages asked, {sent} sent ({share})" in output
    else:
        asked = f"{float(budget) * 100:g}%"
        assert f"expert budget: {asked} asked ({sent} messages), {sent} sent ({share})" in output


def test_the_riskiest_go_and_nothing_else_changes(cli, tmp_path):
    none, some = tmp_path / "none.csv", tmp_path / "some.csv"
    classify(cli, SAMPLE, none, "--expert-budget", "0")
    classify(cli, SAMPLE, some, "--expert-budget", "20")
    before, after = read_rows(none), read_rows(some)
    risk = np.asarray([float(row["risk"]) for row in before])
    chosen = [i for i, row in enumerate(after) if row["decision"] == "EXPERT"]
    assert len(chosen) == 20 and risk[chosen].min() >= np.delete(risk, chosen).max()
    for old, new in zip(before, after):  # only the decision of the chosen messages changed
        assert {**old, "decision": new["decision"]} == new
        assert new["decision"] == "EXPERT" or new["decision"] == old["decision"]


def test_ties_are_broken_by_input_order(cli, tmp_path):
    rows = [[str(i), RISKY if i % 3 == 0 else "ok merci"] for i in range(30)]  # 10 equal risks
    source = write_table(tmp_path / "sms.csv", rows, ["id", "text"])
    out = tmp_path / "out.csv"
    classify(cli, source, out, "--expert-budget", "4")
    classified = read_rows(out)
    assert len({row["risk"] for row in classified if row["text"] == RISKY}) == 1
    assert [row["id"] for row in classified if row["decision"] == "EXPERT"] == ["0", "3", "6", "9"]


def test_riskiest_breaks_ties_by_position_and_never_exceeds_k():
    risk = np.array([0.2, 0.9, 0.5, 0.9, 0.5, 0.5, 0.1])
    assert riskiest(risk, 3).tolist() == [1, 2, 3]
    assert riskiest(risk, 4).tolist() == [1, 2, 3, 4]
    assert riskiest(risk, 0).tolist() == [] and riskiest(risk, 99).tolist() == list(range(7))
    assert riskiest(np.zeros(0), 3).tolist() == []


@pytest.mark.parametrize("value, share, count, of_2000", [
    (0.05, 0.05, None, 100), ("0.1", 0.1, None, 200), (1, 1.0, None, 2000), (1.0, 1.0, None, 2000),
    (0, 0.0, None, 0), (500, None, 500, 500), ("500", None, 500, 500), (5000.0, None, 5000, 2000),
    (0.00025, 0.00025, None, 1),  # 0.5 message: halves round up
])
def test_a_budget_is_a_share_or_a_count(value, share, count, of_2000):
    budget = ExpertBudget.of(value)
    assert (budget.share, budget.count, budget.messages(2000)) == (share, count, of_2000)


@pytest.mark.parametrize("budget", ["2.5", "-0.1", "nan", "inf"])
def test_a_bad_budget_is_one_line(cli, tmp_path, budget):
    out = tmp_path / "out"
    message = failed(cli("classify", SAMPLE, "-o", out / "out.csv", "--expert-budget", budget), 1,
                     "expert budget")
    assert ("must be a whole number" in message) == (budget == "2.5")
    nothing_written(out)
    with pytest.raises(BadOption, match="expert budget"):
        triage.classify([("1", "salut")], expert_budget=float(budget))


@pytest.mark.parametrize("suffix", ["csv", "tsv", "jsonl"])
def test_one_process_and_several_write_the_same_file_in_every_format(tmp_path, monkeypatch, suffix):
    rows = [[ident, text] for ident, text in AWKWARD] * 20 + [[f"r{i}", RISKY] for i in range(5)]
    rows = [[f"{i}:{ident}", text] for i, (ident, text) in enumerate(rows)]
    source = write_table(tmp_path / "sms.csv", rows, ["id", "text"])
    one, two = tmp_path / f"one.{suffix}", tmp_path / f"two.{suffix}"
    first = run_classify(source, one, budget=9, chunk_size=13, chart=False)  # chunks held in memory
    monkeypatch.setattr(writing, "HELD_IN_MEMORY", 100)  # then on disk
    second = run_classify(source, two, budget=9, jobs=2, chunk_size=7, chart=False)
    assert one.read_bytes() == two.read_bytes()
    assert first.decisions == second.decisions and first.decisions["EXPERT"] == 9
    if suffix == "jsonl":
        classified = [json.loads(line) for line in one.read_text(encoding="utf-8").splitlines()]
    else:
        with open(one, encoding="utf-8", newline="") as handle:
            classified = list(csv.DictReader(handle, delimiter="\t" if suffix == "tsv" else ","))
    assert [(row["id"], row["text"]) for row in classified] == [tuple(row) for row in rows]
    assert sum(row["decision"] == "EXPERT" for row in classified) == 9


def test_the_queue_and_the_workspace_see_the_final_decisions(cli, tmp_path):
    out, queue, ws = tmp_path / "out.csv", tmp_path / "queue.csv", tmp_path / "ws.sqlite"
    output = classify(cli, SAMPLE, out, "--expert-budget", "12", "--queue", queue, "--workspace", ws)
    assert "expert queue: 12 messages" in output
    assert "12 queued + 200 audit" in output  # the workspace was synced with the final decisions
    assert len(read_rows(queue)) == 12
    assert sorted(tmp_path.iterdir()) == sorted([out, queue, ws, tmp_path / "out.summary.png"])  # no scratch left


def test_the_api_sends_exactly_the_budget_like_the_command_line(cli, tmp_path):
    frame = pd.read_csv(SAMPLE, dtype=str)
    classified = triage.classify(frame, expert_budget=0.05)
    assert (classified["decision"] == "EXPERT").sum() == 13
    out = tmp_path / "out.csv"
    classify(cli, SAMPLE, out, "--expert-budget", "0.05")
    assert classified["decision"].tolist() == decisions(out)
    assert (triage.classify(frame, expert_budget=40)["decision"] == "EXPERT").sum() == 40


def test_calibrated_routes_by_the_trained_threshold_and_says_so(cli, tmp_path):
    out = tmp_path / "out.csv"
    output = classify(cli, SAMPLE, out, "--calibrated")
    line = next(line for line in output.splitlines() if line.startswith("expert budget"))
    threshold = float(line.split("training (")[1].split(")")[0])
    assert "10% asked" in line and "not a ranking of this corpus" in line
    for row in read_rows(out):
        assert (row["decision"] == "EXPERT") == (float(row["risk"]) >= threshold - 5e-5)
    sent = decisions(out).count("EXPERT")
    assert f"{sent} sent ({100 * sent / DEMO_SIZE:.2f}%)" in line


def test_calibrated_needs_a_share(cli, tmp_path):
    out = tmp_path / "out"
    failed(cli("classify", SAMPLE, "-o", out / "out.csv", "--calibrated", "--expert-budget", "50"), 1,
           "needs the whole corpus ranked")
    nothing_written(out)


def test_the_paper_policy_has_no_budget_line(cli, tmp_path):
    output = classify(cli, SAMPLE, tmp_path / "out.csv", "--policy", "paper", "--expert-budget", "5")
    assert "expert budget" not in output


def test_evaluate_takes_a_count_as_the_share_of_the_gold_messages_it_is():
    gold = pd.read_csv(SAMPLE, keep_default_na=False)
    report = triage.evaluate(gold, model=triage.Model.default(), expert_budget=26)
    assert report.data["expert_budget"] == 26 / DEMO_SIZE
    with pytest.raises(BadOption, match="must be a whole number"):
        triage.evaluate(gold, model=triage.Model.default(), expert_budget=2.5)


@pytest.mark.parametrize("in_memory", [1 << 20, 0, None], ids=["in memory", "on disk", "in memory then on disk"])
@pytest.mark.parametrize("format", ["csv", "tsv", "jsonl"])
@pytest.mark.parametrize("utf8_file", [False, True], ids=["text", "utf-8 file"])
def test_held_chunks_rewrite_only_the_chosen_rows_whatever_their_cells(tmp_path, monkeypatch, format, in_memory,
                                                                       utf8_file):
    import io as text_io
    from types import SimpleNamespace

    monkeypatch.setattr(writing, "HELD_IN_MEMORY", in_memory)
    rows = [[ident, text, "NTA" if i % 2 else "TA", f"0.{i}" if i % 3 else ""]
            for i, (ident, text) in enumerate(AWKWARD * 2)]
    rows[4][0] = ""  # an empty cell before the one set, and (every third row) after it
    assert encode_rows_held(rows, ["id", "text", "decision", "risk"], format, "decision")[0] == \
        encode_cells(rows, ["id", "text", "decision", "risk"], format)  # encoded as any table is
    # The cell set may stand first, in the middle or last; the cells around it are anything.
    for columns, order in ((["id", "text", "decision", "risk"], [0, 1, 2, 3]),
                           (["decision", "text", "id"], [2, 1, 0]), (["risk", "text", "decision"], [3, 1, 2])):
        table = [[row[i] for i in order] for row in rows]
        # Written as text, or to a file in UTF-8 (the held chunks' bytes as they are).
        buffer = text_io.TextIOWrapper(text_io.BytesIO(), encoding="utf-8", newline="") if utf8_file \
            else text_io.StringIO()
        held = HeldChunks(TableWriter(buffer, columns, format, header=False), "decision", tmp_path)
        for n, chunk in enumerate((table[:3], table[3:])):
            text, cell_at, cell_stop = encode_rows_held(chunk, columns, format, "decision")
            if in_memory is None and n == 0:  # the first chunk fits in memory, not both
                monkeypatch.setattr(writing, "HELD_IN_MEMORY", len(text.encode("utf-8")))
            held.write_chunk(SimpleNamespace(text=text, rows=len(chunk), cell_at=cell_at, cell_stop=cell_stop))
        replaced = held.release([0, 1, 2, 5, 7], "EXPERT")
        at = columns.index("decision")
        expected = [row[:at] + (["EXPERT"] if i in (0, 1, 2, 5, 7) else row[at:at + 1]) + row[at + 1:]
                    for i, row in enumerate(table)]
        if utf8_file:
            buffer.flush()
        written = buffer.buffer.getvalue().decode("utf-8") if utf8_file else buffer.getvalue()
        assert written == encode_cells(expected, columns, format)
        assert replaced == {"TA": 2, "NTA": 3}
        assert list(tmp_path.iterdir()) == []  # the scratch file has no name


@pytest.mark.parametrize("format", ["csv", "tsv"])
@pytest.mark.parametrize("odd", ["", None, "x\0y", 'T,"A"\r\n', 0.5], ids=["empty", "none", "nul", "quoted", "number"])
def test_rows_held_are_encoded_as_any_table_whatever_a_cell_holds(format, odd):
    """Rows held back (the cell to set later in the middle of the row, as classify's decision)
    are encoded as any table is, and each cell to set is found where it is, whatever a cell
    holds: nothing, quotes and line ends, a NUL, a number."""
    columns = ["id", "text", "seekhide", "decision", "hidden", "risk"]
    rows = [[ident, text, "TA", "NTA" if i % 2 else "TA", "[]", f"0.{i}"] for i, (ident, text) in enumerate(AWKWARD * 2)]
    for at in range(len(columns)):
        rows[at][at] = odd
    text, cell_at, cell_stop = encode_rows_held(rows, columns, format, "decision")
    assert text == encode_cells(rows, columns, format)
    cells = [text[a:b] for a, b in zip(cell_at.tolist(), cell_stop.tolist())]
    assert [writing._decoded_cell(cell, format) for cell in cells] == \
        ["" if row[3] is None else str(row[3]) for row in rows]


@pytest.mark.parametrize("options", [[], ["--calibrated"], ["--policy", "paper"], ["--jobs", "2"]],
                         ids=["ranked", "calibrated", "paper", "two processes"])
@pytest.mark.parametrize("suffix", [".csv", ".jsonl"])
def test_the_queue_and_workspace_classify_makes_are_those_made_from_its_file_afterwards(
        cli, tmp_path, options, suffix):
    """classify --queue and --workspace hold what `queue export` and a workspace sync make of
    the file classify wrote, whatever the routing, format and processes."""
    from triage.queue.files import read_classified
    from triage.review_workspace import Workspace

    source = tmp_path / "awkward.csv"
    demo = [(row["id"], row["text"]) for row in read_rows(SAMPLE)]
    with source.open("w", newline="", encoding="utf-8") as handle:
        csv.writer(handle).writerows([("id", "text")] + [(f"m{n}", text) for n, (_, text) in enumerate(AWKWARD)] + demo)
    out, queue, workspace = tmp_path / f"out{suffix}", tmp_path / "queue.csv", tmp_path / "ws.sqlite"
    succeeded(cli("classify", source, "-o", out, "--no-chart", "--queue", queue, "--workspace", workspace, *options))
    again, synced = tmp_path / "again.csv", tmp_path / "again.sqlite"
    succeeded(cli("queue", "export", out, "-o", again))
    assert queue.read_bytes() == again.read_bytes() and len(read_rows(queue)) > 0
    rows = read_classified(out)
    with Workspace.open(workspace) as mine, Workspace.open(synced, create=True) as theirs:
        theirs.sync(out)
        tables = ["SELECT id, position, text, text_hash, seekhide, model, score, decision, hidden, highlighted, risk "
                  "FROM messages ORDER BY position", "SELECT id, kind, rank, reasons FROM items ORDER BY kind, rank"]
        for query in tables:
            assert mine._db.execute(query).fetchall() == theirs._db.execute(query).fetchall()
        assert mine.count_messages() == len(rows)



@pytest.mark.parametrize("format", ["csv", "tsv", "jsonl"])
def test_a_chunk_in_utf8_points_at_the_same_decision_cells_in_its_bytes(format):
    from types import SimpleNamespace

    rows = [["1", "Clémentine arrive à 18h ✨", "NTA"], ["2", "ok", "TA"], ["3", "Ça va 😀 Zoé ?", "NTA"]]
    text, cell_at, cell_stop = encode_rows_held(rows, ["id", "text", "decision"], format, "decision")
    chunk = writing.in_utf8(SimpleNamespace(text=text, rows=3, cell_at=cell_at, cell_stop=cell_stop))
    assert isinstance(chunk.text, bytes)
    assert [chunk.text[a:b].decode("utf-8") for a, b in zip(chunk.cell_at.tolist(), chunk.cell_stop.tolist())] == \
        [text[a:b] for a, b in zip(cell_at.tolist(), cell_stop.tolist())]
    assert writing.in_utf8(chunk) is chunk  # in UTF-8 already: as it is
