"""Skipped messages come back after every pending one, and every count agrees on them: the workspace,
the server's state, `triage review --report` and `triage release`; after a decision the next message
is the next one in the list (an audit message leads to the next audit message)."""

import csv
import json

from conftest import SAMPLE
from starlette.testclient import TestClient

from triage.review_workspace import Workspace, open_synced, report_lines
from triage.review_workspace.server import Settings, create_app
from triage.schema import CLASSIFY_COLUMNS

TOKEN = "skip-token"
PORT = 8124


def small_workspace(tmp_path, queued=4, released=3):
    """`queued` messages for a human, then `released` messages the machines released, all audited."""
    path = tmp_path / "c.csv"
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(CLASSIFY_COLUMNS)
        for n in range(1, queued + 1):
            writer.writerow([str(n), f"slt Kevin {n} tu viens", "UNTAGGED", "TA", "0.6", "EXPERT", "x", "[]",
                             json.dumps(["Kevin"]), str(1 - n / 100)])
        for n in range(queued + 1, queued + released + 1):
            writer.writerow([str(n), f"ok a demain {n}", "NTA", "NTA", "0.1", "NTA", "x", "[]", "[]", ""])
    workspace, _ = open_synced(path, tmp_path / "c.review.sqlite", audit=released)
    return workspace


def nta(workspace, ident):
    workspace.decide(ident, label="NTA", spans=[], reviewer="ana")


def test_a_skipped_message_comes_back_after_every_pending_one(tmp_path):
    with small_workspace(tmp_path, queued=3, released=0) as ws:
        ws.skip("1", reviewer="ana")
        assert ws.next_pending().id == "2"
        nta(ws, "2")
        ws.skip("3", reviewer="ana")
        assert ws.next_pending().id == "1"  # nothing pending: the skipped ones, in list order
        assert ws.next_pending(after_rank=ws.item("1").rank).id == "3"  # skipping it again moves on
        progress = ws.progress()
        assert (progress["pending"], progress["skipped"], progress["left"]) == (0, 2, 2)
        assert ws.undecided() == 2
        nta(ws, "1")
        nta(ws, "3")
        assert ws.next_pending() is None and ws.progress()["left"] == 0


def test_the_report_counts_skipped_messages_as_still_to_look_at(tmp_path):
    with small_workspace(tmp_path, queued=2, released=0) as ws:
        nta(ws, "1")
        ws.skip("2", reviewer="ana")
        report = "\n".join(report_lines(ws))
    assert "still to look at 1: 0 pending, 1 skipped" in report


def test_the_page_goes_on_after_the_message_it_leaves_and_ends_only_when_nothing_is_skipped(tmp_path):
    ws = small_workspace(tmp_path, queued=3, released=3)
    with ws, TestClient(create_app(ws, Settings(TOKEN, PORT, "ana")), base_url=f"http://127.0.0.1:{PORT}") as client:
        client.headers["X-Triage-Token"] = TOKEN
        state = lambda after=None: client.get("/api/state" + (f"?after={after}" if after else "")).json()  # noqa: E731
        first, second, last = [item.id for item in ws.items(kind="audit")]
        # An audit message decided while queued ones are pending: the next audit message, not the top.
        client.post(f"/api/items/{first}/decision", json={"label": "NTA", "spans": []})
        assert state(after=first)["current"] == second
        assert state()["current"] == "1"
        # The last audit message leads back to the first message still pending.
        assert state(after=last)["current"] == "1"
        for ident in ("1", "2", "3", second, last):
            client.post(f"/api/items/{ident}/decision", json={"label": "NTA", "spans": []})
        client.post("/api/items/2/skip", json={})
        answer = state(after="2")
        assert answer["current"] == "2"  # the only one left: skipped, it comes back
        assert answer["progress"]["skipped"] == 1 and answer["progress"]["left"] == 1
        client.post("/api/items/2/decision", json={"label": "NTA", "spans": []})
        assert state(after="2")["current"] is None
        assert state(after="no-such-message")["current"] is None  # an unknown id: from the top


def test_release_counts_a_skipped_message_as_undecided_and_says_so(cli, tmp_path):
    classified, ws_path = tmp_path / "demo.csv", tmp_path / "demo.review.sqlite"
    assert cli("classify", SAMPLE, "-o", classified, "--workspace", ws_path).exit_code == 0
    with Workspace.open(ws_path) as ws:
        queued = ws.items(kind="queue", limit=1000)
        for item in queued[1:]:
            ws.decide(item.id, label="TA" if item.proposal else "NTA", spans=item.proposal, reviewer="ana")
        ws.skip(queued[0].id, reviewer="ana")
        for item in ws.items(kind="audit", limit=1000):  # the audit sample decided too
            ws.decide(item.id, label="NTA", spans=[], reviewer="ana")
        assert ws.next_pending().id == queued[0].id
        report = "\n".join(report_lines(ws))
    assert "still to look at 1: 0 pending, 1 skipped" in report
    refused = cli("release", classified, "--workspace", ws_path, "-o", tmp_path / "corpus.csv")
    assert refused.exit_code == 1
    assert "1 queued message is undecided (1 of them skipped: a skipped message is undecided)" in refused.output


def test_recent_lists_what_undo_takes_back_in_order(tmp_path):
    ws = small_workspace(tmp_path, queued=3, released=0)
    with ws, TestClient(create_app(ws, Settings(TOKEN, PORT, "ana")), base_url=f"http://127.0.0.1:{PORT}") as client:
        client.headers["X-Triage-Token"] = TOKEN
        client.post("/api/items/1/decision", json={"label": "TA", "spans": [[4, 9, "PRE"]]})
        client.post("/api/items/2/skip", json={})
        client.post("/api/items/3/decision", json={"label": "NTA", "spans": []})
        # another reviewer's, made on ana's decision as shown (its version): not in ana's history
        ws.decide("1", label="NTA", spans=[], reviewer="léo", version=ws.item("1").version)
        recent = client.get("/api/recent").json()
        assert [(r["id"], r["action"], r["label"], r["hidden"]) for r in recent] == [
            ("3", "decide", "NTA", 0), ("2", "skip", None, 0), ("1", "decide", "TA", 1)]
        assert client.post("/api/undo").json()["id"] == recent[0]["id"]
        assert [r["id"] for r in client.get("/api/recent?limit=1").json()] == ["2"]
