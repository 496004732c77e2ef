"""Consistency decisions undone as the page's other decisions are: the reviewer's last one (a case, or
every case of a decision for many), each case back to exactly what it had before, logged, and never
making hidden text readable without the confirmation that deciding so asks for."""

import pytest
from conftest import failed, succeeded
from test_consistency import SPELLINGS, client_of, corpus, many

from triage.review_workspace import Workspace
from triage.review_workspace.workspace import BulkChanged, Conflict, NeedsConfirmation


def released(opened: Workspace) -> dict:
    """What a release would publish: each message's spans once the decided cases are applied."""
    from triage.review_workspace.consistency import apply

    rows, redraw = apply(list(opened.final()), opened._cases(opened.consistency_decisions()))
    return {row.id: row.spans for row in rows}


def without_seq(decisions: dict) -> dict:
    return {k: {f: v for f, v in d.items() if f != "seq"} for k, d in decisions.items()}


def test_undoing_a_case_brings_back_exactly_the_decision_it_replaced(cli, tmp_path):
    _, ws = corpus(cli, tmp_path)
    with Workspace.open(ws) as opened:
        opened.decide_consistency("tags", "martin", "different", reviewer="bob")
        before, shown_before = without_seq(opened.consistency_decisions()), released(opened)
        case = opened.consistency_case("tags", "martin")
        opened.decide_consistency("tags", "martin", "same", reviewer="lea", version=case["version"])
        assert released(opened) != shown_before  # one tag for Martin everywhere
        (entry,) = opened.consistency_recent(reviewer="lea")
        assert (entry["kind"], entry["key"], entry["decision"], entry["before"], entry["cases"]) == (
            "tags", "martin", "same", "different", 1)
        done = opened.undo_consistency(reviewer="lea", seq=entry["seq"])
        assert done["undone"] == 1 and done["cases"] == [
            {"kind": "tags", "key": "martin", "decision": "same", "restored": "different"}]
        assert without_seq(opened.consistency_decisions()) == before  # bob's, his time and grounds
        assert released(opened) == shown_before
        logged = [e for e in opened.history("tags:martin")]
        assert [(e["action"], e["reviewer"], e["status_before"], e["status_after"], e["undone"]) for e in logged] == [
            ("consistency", "bob", None, "different", 0), ("consistency", "lea", "different", "same", 1),
            ("consistency-undo", "lea", "same", "different", 0)]
        assert opened.consistency_recent(reviewer="lea") == []
        assert opened.undo_consistency(reviewer="lea")["undone"] == 0  # nothing left to undo


def test_undoing_a_hide_asks_first_since_what_it_hid_becomes_readable(cli, tmp_path):
    _, ws = corpus(cli, tmp_path)
    with Workspace.open(ws) as opened:
        shown_before = released(opened)
        opened.decide_consistency("mixed", "julie", "hide", reviewer="lea")
        assert released(opened)["2"] == [[0, 5, "PRE"]]  # "julie m'a dit...": hidden by the decision
        with pytest.raises(NeedsConfirmation) as asked:
            opened.undo_consistency(reviewer="lea")
        preview = asked.value.preview
        assert (preview["readable"], preview["readable_messages"], preview["readable_tags"]) == (1, 1, {"PRE": 1})
        assert opened.consistency_decisions()[("mixed", "julie")]["decision"] == "hide"  # nothing undone
        with pytest.raises(BulkChanged):
            opened.undo_consistency(reviewer="lea", digest="0" * 16)
        done = opened.undo_consistency(reviewer="lea", digest=preview["digest"])
        assert done["undone"] == 1 and done["readable"] == 1
        assert opened.consistency_decisions() == {} and released(opened) == shown_before


def test_undoing_brings_back_a_readable_decision_only_after_its_preview(cli, tmp_path):
    _, ws = corpus(cli, tmp_path)
    with Workspace.open(ws) as opened:
        version = opened.consistency_case("mixed", "julie")["version"]
        opened.decide_consistency("mixed", "julie", "readable", reviewer="lea", version=version)
        shown = released(opened)
        assert shown["1"] == []  # Julie readable in message 1 too
        version = opened.consistency_case("mixed", "julie")["version"]
        opened.decide_consistency("mixed", "julie", "homonyms", reviewer="lea", version=version)
        assert released(opened)["1"] == [[10, 15, "PRE"]]
        with pytest.raises(NeedsConfirmation) as asked:  # readable again: the hidden Julie is shown
            opened.undo_consistency(reviewer="lea")
        assert asked.value.preview["readable"] == 1
        opened.undo_consistency(reviewer="lea", digest=asked.value.preview["digest"])
        assert released(opened) == shown
        # Undoing the readable decision itself hides again: no question.
        done = opened.undo_consistency(reviewer="lea")
        assert done["undone"] == 1 and done["readable"] == 0 and opened.consistency_decisions() == {}


def test_an_undo_never_takes_back_what_someone_decided_since(cli, tmp_path):
    _, ws = corpus(cli, tmp_path)
    with Workspace.open(ws) as opened:
        opened.decide_consistency("tags", "martin", "same", reviewer="lea")
        (entry,) = opened.consistency_recent(reviewer="lea")
        version = opened.consistency_case("tags", "martin")["version"]
        opened.decide_consistency("tags", "martin", "different", reviewer="bob", version=version)
        with pytest.raises(Conflict, match="bob decided the tags case 'martin' since") as refused:
            opened.undo_consistency(reviewer="lea", seq=entry["seq"])
        assert refused.value.conflict["kind"] == "later"
        assert opened.consistency_decisions()[("tags", "martin")]["reviewer"] == "bob"
        # An undo naming a decision that is no longer the reviewer's last is refused too.
        opened.undo_consistency(reviewer="bob")
        with pytest.raises(Conflict, match="no longer the one your page showed"):
            opened.undo_consistency(reviewer="bob", seq=entry["seq"])


def test_a_decision_for_many_cases_is_undone_whole_over_http(cli, tmp_path):
    _, ws = many(cli, tmp_path)
    with Workspace.open(ws) as opened, client_of(opened, tmp_path) as client:
        one = opened.consistency()[0]
        opened.decide_consistency(one["kind"], one["key"], "homonyms", reviewer="léa")  # before, kept as it is
        shown_before = released(opened)
        preview = client.get("/api/consistency/bulk?decision=hide&limit=25&status=undecided").json()
        done = client.post("/api/consistency/bulk", json={"decision": "hide", "cases": preview["selection"],
                                                          "digest": preview["digest"]}).json()
        assert done["decided"] == 25
        recent = client.get("/api/consistency/recent").json()
        assert [(e["decision"], e["cases"]) for e in recent] == [("hide", 25), ("homonyms", 1)]
        refused = client.post("/api/consistency/undo", json={"seq": recent[0]["seq"]})
        assert refused.status_code == 409  # 25 spellings readable again in 25 messages: asked first
        asked = refused.json()["preview"]
        assert (asked["cases"], asked["readable"], asked["readable_messages"]) == (25, 25, 25)
        assert len(opened.consistency_decisions()) == 26
        undone = client.post("/api/consistency/undo", json={"seq": recent[0]["seq"], "digest": asked["digest"]})
        assert undone.status_code == 200 and undone.json()["undone"] == 25
        assert set(opened.consistency_decisions()) == {(one["kind"], one["key"])}
        assert released(opened) == shown_before
        assert [e["cases"] for e in client.get("/api/consistency/recent").json()] == [1]
        stale = client.post("/api/consistency/undo", json={"seq": recent[0]["seq"]})
        assert stale.status_code == 409 and stale.json()["conflict"]["kind"] == "undo"
        for bad in ({"seq": "x"}, {"digest": 3}):
            answer = client.post("/api/consistency/undo", json=bad)
            assert answer.status_code == 400 and len(answer.json()["error"].splitlines()) == 1, bad


def test_the_command_line_undoes_the_last_decision_and_asks_before_showing(cli, tmp_path):
    classified, ws = many(cli, tmp_path)
    succeeded(cli("review", classified, "--workspace", ws, "--consistency-all", "hide", "--yes", "--reviewer", "ana"))
    asked = cli("review", classified, "--workspace", ws, "--undo-consistency", "--reviewer", "ana")
    failed(asked, 1, "nothing was undone: add --yes")
    assert "undo: 30 hidden items become readable in 30 messages (PRE 30)" in asked.stdout
    with Workspace.open(ws) as opened:
        assert len(opened.consistency_decisions()) == len(SPELLINGS)
    done = cli("review", classified, "--workspace", ws, "--undo-consistency", "--yes", "--reviewer", "ana")
    succeeded(done)
    assert "undone: 30 cases of the decision for many cases" in done.stdout and "... and 10 more" in done.stdout
    assert "undone: mixed 'zorbuhlix' hide: undecided again" in done.stdout
    with Workspace.open(ws) as opened:
        assert opened.consistency_decisions() == {}
    nothing = cli("review", classified, "--workspace", ws, "--undo-consistency", "--reviewer", "ana")
    succeeded(nothing)
    assert "nothing to undo: ana has no consistency decision that still applies" in nothing.stdout
    bad = cli("review", classified, "--workspace", ws, "--undo-consistency", "--consistency-all", "hide")
    failed(bad, 1, "--undo-consistency undoes your last consistency decision")


def test_the_python_api_undoes_as_the_command_does(cli, tmp_path):
    import triage

    classified, ws = many(cli, tmp_path)
    triage.review(classified, workspace=ws, consistency_all="readable", case_search="zorbu", yes=True, reviewer="bob")
    lines = triage.review(classified, workspace=ws, undo_consistency=True, reviewer="bob")  # hides again: no question
    assert lines[-1] == "undone: 6 cases of the decision for many cases"
    with Workspace.open(ws) as opened:
        assert opened.consistency_decisions() == {}
