"""`classify --workspace` hands its rows to the workspace as it makes them (Workspace.staging,
Workspace.load): the workspace it makes must be the one a sync of the classified file makes."""

import sqlite3

import pytest
from conftest import SAMPLE

from triage.review_workspace import Workspace, open_synced


def tables(path) -> dict[str, list]:
    with sqlite3.connect(path) as db:
        return {table: db.execute(f"SELECT * FROM {table} ORDER BY 1").fetchall() for table in ("messages", "items")}


def synced_from_the_file(classified, tmp_path, name="from-file.sqlite"):
    opened, _ = open_synced(classified, tmp_path / name)
    opened.close()
    return tables(tmp_path / name)


@pytest.mark.parametrize("options", [[], ["--calibrated"], ["--jobs", "2"], ["--expert-budget", "0.3"]],
                         ids=["exact budget", "calibrated", "two processes", "a larger budget"])
def test_the_rows_classify_hands_over_load_as_its_output_file_does(cli, tmp_path, options):
    classified, ws = tmp_path / "c.csv", tmp_path / "ws.sqlite"
    result = cli("classify", SAMPLE, "-o", classified, "--workspace", ws, "--no-chart", *options)
    assert result.exit_code == 0, result.output
    loaded = tables(ws)
    assert len(loaded["messages"]) == 260 and loaded["items"]
    assert loaded == synced_from_the_file(classified, tmp_path)


def test_a_second_classify_keeps_the_decisions_and_loads_as_a_sync_does(cli, tmp_path):
    classified, ws = tmp_path / "c.csv", tmp_path / "ws.sqlite"
    assert cli("classify", SAMPLE, "-o", classified, "--workspace", ws, "--no-chart").exit_code == 0
    with Workspace.open(ws) as opened:
        for item in opened.items(kind="queue", limit=5) + opened.items(kind="audit", limit=3):
            opened.decide(item.id, label="NTA", spans=[], reviewer="ana")
    twin = tmp_path / "twin.sqlite"
    with sqlite3.connect(ws) as source, sqlite3.connect(twin) as copy:
        source.backup(copy)
    again = tmp_path / "again.csv"
    result = cli("classify", SAMPLE, "-o", again, "--workspace", ws, "--no-chart", "--expert-budget", "0.2")
    assert result.exit_code == 0, result.output
    assert "8 decided earlier" in result.output
    opened, _ = open_synced(again, twin)
    opened.close()
    assert tables(ws) == tables(twin)
    with Workspace.open(ws) as opened:
        assert opened.progress()["decided"] == 8


def test_the_list_is_read_a_part_at_a_time_as_it_would_be_at_once(cli, tmp_path, monkeypatch):
    from triage.review_workspace.store import loading

    classified = tmp_path / "c.csv"
    assert cli("classify", SAMPLE, "-o", classified, "--no-chart", "--expert-budget", "0.3").exit_code == 0
    whole = synced_from_the_file(classified, tmp_path, "whole.sqlite")
    monkeypatch.setattr(loading, "LISTED_PART", 7)
    assert len(whole["items"]) > 3 * 7
    assert synced_from_the_file(classified, tmp_path, "in-parts.sqlite") == whole


def test_a_file_without_risks_lists_its_queue_least_certain_first(cli, tmp_path):
    import csv

    from triage.queue.files import read_classified

    classified, bare = tmp_path / "c.csv", tmp_path / "no-risk.csv"
    assert cli("classify", SAMPLE, "-o", classified, "--no-chart", "--expert-budget", "0.3").exit_code == 0
    with open(classified, newline="", encoding="utf-8") as source, open(bare, "w", newline="", encoding="utf-8") as out:
        rows = list(csv.DictReader(source))
        writer = csv.DictWriter(out, [name for name in rows[0] if name != "risk"], extrasaction="ignore")
        writer.writeheader()
        writer.writerows(rows)
    expected = [row.id for row in sorted((row for row in read_classified(bare) if row.decision == "EXPERT"),
                                         key=lambda row: row.order)]
    certainty = [abs(row.score - 0.5) for row in read_classified(bare) if row.decision == "EXPERT"]
    assert len(set(certainty)) < len(certainty)  # ties, kept in file order
    opened, _ = open_synced(bare, tmp_path / "ws.sqlite")
    with opened:
        assert [item.id for item in opened.items(kind="queue", limit=len(expected) + 1)] == expected
