"""The expert's queue handed its rows by classify (triage.queue.handover): the rows kept are exactly
those that go to the expert, in input order, whatever the chunks; with the exact budget, no more
than the budget and two chunks are ever held; and classify --queue does not read its output back."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from triage import jobs
from triage.combiner import riskiest
from triage.errors import OutputRefused
from triage.queue import files as queue_files
from triage.queue.handover import LeanRows, QueueRows, cells_of, lean_cells
from triage.schema import CLASSIFY_COLUMNS, EXPERT, NTA, TA

DECISION = CLASSIFY_COLUMNS.index("decision")


def cells(first: int, decisions: list[str]) -> list[list[str]]:
    """Rows of classify's output numbered from `first`, with the given decisions, column by column
    (as classify hands them over)."""
    rows = []
    for n, decision in enumerate(decisions, first):
        row = [f"c{n}"] * len(CLASSIFY_COLUMNS)
        row[CLASSIFY_COLUMNS.index("id")] = f"m{n}"
        row[DECISION] = decision
        rows.append(tuple(row))
    return [[row[k] for row in rows] for k in range(len(CLASSIFY_COLUMNS))]


def chunked(values: list, sizes: list[int]):
    """`values` cut into consecutive chunks of the given sizes (the last takes the rest)."""
    at = 0
    for size in sizes:
        yield values[at:at + size]
        at += size
    if at < len(values):
        yield values[at:]


def test_without_ranking_the_rows_decided_expert_are_kept_in_input_order():
    kept = QueueRows(CLASSIFY_COLUMNS)
    kept.add(cells(0, [TA, EXPERT, NTA]))
    kept.add(cells(3, [EXPERT, EXPERT]))
    records = kept.records()
    assert [row[CLASSIFY_COLUMNS.index("id")] for row in list(records.rows)] == ["m1", "m3", "m4"]
    assert records.columns == list(CLASSIFY_COLUMNS)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from([0.1, 0.2, 0.5, 0.5, 0.9]), min_size=1, max_size=120),
       st.lists(st.integers(1, 17), max_size=20), st.integers(0, 40))
def test_ranked_the_riskiest_rows_are_kept_whatever_the_chunks(risks, sizes, expected):
    """Many ties: the rows kept are those `riskiest` chooses of the whole corpus (ties in input
    order), with their decision made EXPERT, and never more than the budget plus two chunks."""
    expected = min(expected, len(risks))
    kept = QueueRows(CLASSIFY_COLUMNS, expected)
    first, largest = 0, 0
    for chunk in chunked(risks, sizes):
        kept.add(cells(first, [TA if r < 0.5 else NTA for r in chunk]), np.asarray(chunk))
        first += len(chunk)
        largest = max(largest, len(chunk))
        assert len(kept) <= expected + 2 * largest
    chosen = riskiest(np.asarray(risks), expected)
    rows = list(kept.records(chosen).rows)
    assert [row[CLASSIFY_COLUMNS.index("id")] for row in rows] == [f"m{n}" for n in chosen.tolist()]
    assert {row[DECISION] for row in rows} <= {EXPERT}
    assert {row[CLASSIFY_COLUMNS.index("anonymised")] for row in rows} <= {""}  # never read by the queue: not held


def test_ranked_a_row_chosen_but_not_kept_is_an_error_not_a_silent_gap():
    kept = QueueRows(CLASSIFY_COLUMNS, 1)
    for n, risk in enumerate([0.9, 0.1, 0.1, 0.1, 0.1, 0.1]):
        kept.add(cells(n, [TA]), np.array([risk]))
    assert len(kept) < 6  # the rows that can no longer be among the riskiest are let go
    with pytest.raises(RuntimeError, match="not kept"):
        kept.records(np.array([3]))


def test_rows_kept_for_a_budget_hold_no_larger_choice():
    kept = QueueRows(CLASSIFY_COLUMNS, 3)
    assert kept.holds(3) and kept.holds(0) and not kept.holds(4)
    assert QueueRows(CLASSIFY_COLUMNS).holds(10)


def test_once_expected_rows_are_riskier_a_row_no_riskier_is_not_kept():
    """Ties go to the earlier rows: after the first pruning, a later row at the least risk kept
    can never be chosen, and is not held at all."""
    kept = QueueRows(CLASSIFY_COLUMNS, 2)
    for n, risk in enumerate([0.9, 0.5, 0.8, 0.1]):
        kept.add(cells(n, [TA]), np.array([risk]))
    assert len(kept) == 2  # pruned to the riskiest two: 0.9 and 0.8
    held = []
    for n, risk in enumerate([0.8, 0.2, 0.95], 4):
        kept.add(cells(n, [TA]), np.array([risk]))
        held.append(len(kept))
    assert held == [2, 2, 3]  # 0.8 ties the least risky kept (the earlier row wins the tie); 0.2 is below
    assert [row[CLASSIFY_COLUMNS.index("id")] for row in list(kept.records(np.array([0, 6])).rows)] == ["m0", "m6"]


@pytest.mark.parametrize("expected", [None, 1], ids=["unranked", "ranked"])
def test_a_cell_holding_the_separator_of_held_rows_is_handed_over_whole(expected):
    """The rows are held as one string of joined cells: a cell holding the joining character
    keeps its row whole, and the rows handed over are read once (the queue holds them its own way)."""
    columns = cells(0, [EXPERT])
    columns[CLASSIFY_COLUMNS.index("text")] = ["Salut Marie\x1f tu viens ?"]
    kept = QueueRows(CLASSIFY_COLUMNS, expected)
    kept.add(columns, None if expected is None else np.array([0.7]))
    rows = kept.records(None if expected is None else np.array([0])).rows
    assert rows[0][CLASSIFY_COLUMNS.index("text")] == "Salut Marie\x1f tu viens ?"
    assert len(list(rows)[0]) == len(CLASSIFY_COLUMNS)
    with pytest.raises(RuntimeError, match="read once"):
        list(rows)


def test_a_risk_for_each_row(tmp_path):
    with pytest.raises(ValueError, match="3 rows but 2 risks"):
        QueueRows(CLASSIFY_COLUMNS, 1).add(cells(0, [TA] * 3), np.array([0.1, 0.2]))


@pytest.mark.parametrize("options", [{}, {"policy": "paper"}], ids=["ranked", "paper"])
def test_classify_writes_its_queue_without_reading_its_output_back(tmp_path, monkeypatch, options):
    """The queue of `classify --queue` comes from the rows classify made: reading the classified
    file is refused here, and the queue is still the one `queue export` makes of that file."""
    source = Path(__file__).resolve().parent.parent / "data" / "sample_sms.csv"
    out, queue = tmp_path / "out.csv", tmp_path / "queue.csv"
    opened = queue_files._open_classified

    def refuse(path):
        if isinstance(path, (str, Path)):
            raise AssertionError(f"the classified file was read back: {path}")
        return opened(path)

    monkeypatch.setattr(queue_files, "_open_classified", refuse)
    summary = jobs.run_classify(source, out, queue_path=queue, chart=False, **options)
    assert summary.queued > 0
    monkeypatch.setattr(queue_files, "_open_classified", opened)
    again = tmp_path / "again.csv"
    queue_files.export_queue(out, again)
    assert queue.read_bytes() == again.read_bytes()


def test_lean_rows_beside_an_output_go_to_disk_past_their_memory_and_come_back_whole(tmp_path, monkeypatch):
    """Past LeanRows.IN_MEMORY bytes the rows are in a scratch file, not in memory, and each is read back
    exactly (accents, emoji, empty cells, a row whose cells hold the separator), in any order, also
    after rows were added between two reads."""
    monkeypatch.setattr(LeanRows, "IN_MEMORY", 64)
    rows = [lean_cells(["m1", "Salut Zoé 😀", ""]), lean_cells(["m2", "Salut Marie\x1f ok", "x"]),
            lean_cells(["m3", "", ""]), *[lean_cells([f"m{n}", "é" * n, str(n)]) for n in range(4, 40)]]
    held = LeanRows(tmp_path)
    held.extend(rows[:10])
    assert held[7] == rows[7] and held[1] == rows[1]
    held.extend(rows[10:])
    assert len(held) == len(rows)
    assert held._file._rolled  # on disk: the rows take more than IN_MEMORY bytes
    assert [held[at] for at in reversed(range(len(rows)))] == rows[::-1]
    assert cells_of(held[1]) == ["m2", "Salut Marie\x1f ok", "x"]
    held.close()


@pytest.mark.parametrize("expected", [None, 3], ids=["unranked", "ranked"])
def test_rows_kept_on_disk_are_handed_over_as_rows_kept_in_memory_are(tmp_path, monkeypatch, expected):
    """The rows a queue waits for, kept beside the output past a few bytes, are the rows it would
    have kept in memory, chunk after chunk, pruned as they go."""
    monkeypatch.setattr(LeanRows, "IN_MEMORY", 200)
    risks = [0.3, 0.9, 0.1, 0.9, 0.5, 0.7, 0.2, 0.95, 0.4, 0.6]
    decisions = [EXPERT if r > 0.5 else TA for r in risks]
    handed = []
    for folder in (None, tmp_path):
        kept = QueueRows(CLASSIFY_COLUMNS, expected, folder=folder)
        for first in range(0, len(risks), 3):
            columns = cells(first, decisions[first:first + 3])
            columns[CLASSIFY_COLUMNS.index("text")] = [f"Coucou Zoé n°{n} " * 5 for n in range(first, first + 3)]
            kept.add(columns, None if expected is None else np.asarray(risks[first:first + 3]))
        chosen = None if expected is None else riskiest(np.asarray(risks), expected)
        handed.append(list(kept.records(chosen).rows))
    assert handed[0] == handed[1] and handed[0]


def test_queue_export_writes_the_same_queue_with_its_rows_on_disk(tmp_path, monkeypatch):
    """`queue export` holds the expert's rows beside the queue past LeanRows.IN_MEMORY bytes: the
    queue is the same, byte for byte."""
    source = Path(__file__).resolve().parent.parent / "data" / "sample_sms.csv"
    out = tmp_path / "out.csv"
    jobs.run_classify(source, out, chart=False, budget=0.5)
    queue_files.export_queue(out, tmp_path / "memory.csv")
    monkeypatch.setattr(LeanRows, "IN_MEMORY", 100)
    queue_files.export_queue(out, tmp_path / "disk.csv")
    assert (tmp_path / "memory.csv").read_bytes() == (tmp_path / "disk.csv").read_bytes()


def test_rows_held_for_a_folder_still_to_make_wait_in_its_nearest_folder_and_a_refused_disk_is_one_line(
        tmp_path, monkeypatch):
    """`queue export` holds its rows before the queue's folder is made: past the allowance they wait in the
    nearest folder that exists; a scratch file that cannot be written is refused in one line."""
    monkeypatch.setattr(LeanRows, "IN_MEMORY", 16)
    held = LeanRows(tmp_path / "new" / "deeper")
    held.extend([lean_cells(["m1", "Salut Zoé, tu viens ?", ""])] * 3)
    assert held._file._rolled and held[2] == lean_cells(["m1", "Salut Zoé, tu viens ?", ""])
    assert not (tmp_path / "new").exists()
    held.close()

    full = LeanRows(tmp_path)

    def refuse(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(full._file, "rollover", refuse)
    with pytest.raises(OutputRefused, match=r"cannot write a scratch file in .*: No space left on device"):
        full.extend([lean_cells(["m1", "x" * 40, ""])])
