"""Every state-changing path names the state it acts on, and is refused when someone changed it since:
undo takes back only what no later action of anyone depends on, an imported queue file leaves the
double review and the lead's disagreements alone, a consistency decision names the case's version,
a bulk decision names exactly the messages its preview showed.

Each reviewer is a server of their own on one workspace file (as in test_review_team)."""

import pytest
from conftest import failed
from test_release_datasheet import fill, queued_corpus
from test_review_team import decide, disagree, item_of, team  # noqa: F401  (team: a fixture)

from triage.review_workspace import Workspace
from triage.review_workspace.workspace import Conflict


# ---------------------------------------------------------------------------------------- undo


def test_undo_is_refused_when_another_reviewer_decided_the_message_since(team):  # noqa: F811
    _, path, reviewer = team
    ana, bob = reviewer("ana"), reviewer("bob")
    assert decide(ana, "1", "TA", [[6, 13, "PRE"]]).status_code == 200
    # bob's page shows ana's decision (its version): he changes it, hiding Benoit too.
    assert decide(bob, "1", "TA", [[6, 13, "PRE"], [25, 31, "NOM"]]).status_code == 200
    refused = ana.post("/api/undo")
    assert refused.status_code == 409
    error = refused.json()["error"]
    assert "bob decided message 1 since" in error and "nothing was undone" in error and "\n" not in error
    assert refused.json()["conflict"]["kind"] == "later"
    with Workspace.open(path) as ws:
        item = ws.item("1")
        assert (item.reviewer, item.spans) == ("bob", [[6, 13, "PRE"], [25, 31, "NOM"]])
        assert [e["action"] for e in ws.history("1")] == ["decide", "decide"]
    # bob may undo his own decision: ana's is back, and ana may then undo hers.
    assert bob.post("/api/undo").json()["id"] == "1"
    with Workspace.open(path) as ws:
        assert (ws.item("1").reviewer, ws.item("1").spans) == ("ana", [[6, 13, "PRE"]])
    assert ana.post("/api/undo").status_code == 200
    with Workspace.open(path) as ws:
        assert ws.item("1").status == "pending"


def test_a_blind_review_cannot_be_undone_over_the_second_review_nor_the_leads_resolution(team):  # noqa: F811
    _, path, reviewer = team
    first, _ = disagree(path, reviewer)  # ana hid Margaux in `first`, bob answered NTA: disputed
    lead = reviewer("lea", lead=True)
    disputed = item_of(lead, first)
    resolved = lead.post(f"/api/items/{first}/adjudicate",
                         json={"label": "TA", "spans": [[7, 14, "PRE"]], "text_hash": disputed["text_hash"]})
    assert resolved.status_code == 200
    ana, bob = reviewer("ana"), reviewer("bob")
    # bob's last action is his blind review of the other message (undone: nothing after it); then his
    # review of `first`, which the lead resolved since: refused.
    assert bob.post("/api/undo").status_code == 200
    refused = bob.post("/api/undo")
    assert refused.status_code == 409 and "lea resolved message" in refused.json()["error"]
    with Workspace.open(path) as ws:
        ws.undo(reviewer="ana")  # ana's last (the other message's blind review, now single) is hers to undo
        with pytest.raises(Conflict, match="since"):
            ws.undo(reviewer="ana")  # her review of `first`: bob reviewed, then the lead resolved, since
        item = ws.item(first)
        assert (item.status, item.reviewer, item.spans) == ("decided", "lea", [[7, 14, "PRE"]])
    assert ana  # her server stays open meanwhile


def test_undo_of_a_bulk_decision_is_refused_whole_when_a_colleague_decided_one_of_its_messages(team):  # noqa: F811
    _, path, reviewer = team
    ana, bob = reviewer("ana"), reviewer("bob")
    preview = ana.get("/api/bulk", params={"action": "nta", "q": "chez"}).json()
    assert preview["total"] == 3
    done = ana.post("/api/bulk", json={"action": "nta", "digest": preview["digest"], "filters": {"q": "chez"}})
    assert done.json()["decided"] == 3
    assert decide(bob, "6", "TA", [[25, 32, "PRE"]]).status_code == 200  # bob hides Rolande in one of them
    refused = ana.post("/api/undo")
    assert refused.status_code == 409 and "bob decided message 6 since" in refused.json()["error"]
    with Workspace.open(path) as ws:
        assert ws.count(status="decided") == 3 and ws.item("6").spans == [[25, 32, "PRE"]]


# ------------------------------------------------------------------------------------- import


def test_an_imported_queue_file_leaves_double_review_and_disagreements_to_the_team(cli, tmp_path):
    classified, ws, queue = queued_corpus(cli, tmp_path)
    with Workspace.open(ws) as opened:
        opened.mark_double(1.0)  # every queued message is decided blind by two reviewers
        opened.decide("1", label="TA", spans=[[4, 9, "PRE"]], reviewer="ana")  # waits for its second reviewer
        opened.decide("10", label="NTA", spans=[], reviewer="ana")
        opened.decide("10", label="TA", spans=[[6, 13, "PRE"]], reviewer="bob")  # a disagreement
        assert opened.item("10").status == "disputed"
    result = cli("review", classified, "--workspace", ws, "--import-queue", fill(queue), "--reviewer", "Marie")
    failed(result, 1, "'1' (line", "'10' (line", "decide blind or the lead resolves", "nothing was imported")
    with Workspace.open(ws) as opened:
        assert opened.item("10").status == "disputed" and opened.item("1").status == "pending"
        assert not [e for e in opened.history() if e["action"] == "import"]
        # The workspace itself refuses them too, whoever calls it.
        item = opened.item("1")
        with pytest.raises(Conflict, match="double review"):
            opened.import_decisions([("1", "NTA", [], item.text_hash)], reviewer="Marie")
        item = opened.item("10")
        with pytest.raises(Conflict, match="lead reviewer resolves"):
            opened.import_decisions([("10", "NTA", [], item.text_hash)], reviewer="Marie")
        assert opened.item("10").status == "disputed"


def test_an_import_names_the_version_it_checked_and_is_refused_when_someone_acted_since(cli, tmp_path):
    classified, ws, _ = queued_corpus(cli, tmp_path)
    with Workspace.open(ws) as opened:
        item = opened.item("8")
        checked = item.version
        opened.skip("8", reviewer="ana")  # ana acts on it after the file was checked
        with pytest.raises(Conflict, match="since the file was checked"):
            opened.import_decisions([("8", "NTA", [], item.text_hash, checked)], reviewer="Marie")
        assert opened.item("8").status == "skipped"
        assert opened.import_decisions([("8", "NTA", [], item.text_hash, opened.item("8").version)],
                                       reviewer="Marie") == 1


# -------------------------------------------------------------------------------- bulk


def test_a_bulk_decision_is_refused_when_its_list_changed_but_kept_its_size(team):  # noqa: F811
    _, path, reviewer = team
    ana, bob = reviewer("ana"), reviewer("bob")
    assert decide(bob, "2", "NTA").status_code == 200
    preview = ana.get("/api/bulk", params={"action": "nta", "status": "pending"}).json()
    assert preview["total"] == 9
    # bob takes his decision back and decides another: still 9 pending messages, not the same ones.
    assert bob.post("/api/undo").status_code == 200
    assert decide(bob, "1", "TA", [[6, 13, "PRE"]]).status_code == 200
    stale = ana.post("/api/bulk", json={"action": "nta", "expected": 9, "digest": preview["digest"],
                                        "filters": {"status": "pending"}})
    assert stale.status_code == 409 and "list changed since the preview" in stale.json()["error"]
    with Workspace.open(path) as ws:
        assert ws.count(status="decided") == 1 and ws.item("2").status == "pending"
    fresh = ana.get("/api/bulk", params={"action": "nta", "status": "pending"}).json()
    done = ana.post("/api/bulk", json={"action": "nta", "digest": fresh["digest"], "filters": {"status": "pending"}})
    assert done.status_code == 200 and done.json()["decided"] == 9


def test_a_bulk_decision_is_refused_when_a_message_it_showed_was_decided_since(team):  # noqa: F811
    _, path, reviewer = team
    ana, bob = reviewer("ana"), reviewer("bob")
    preview = ana.get("/api/bulk", params={"action": "accept", "kind": "queue"}).json()
    assert decide(bob, "3", "TA", [[30, 37, "PRE"]]).status_code == 200  # the list's size is the same
    stale = ana.post("/api/bulk", json={"action": "accept", "expected": 10, "digest": preview["digest"],
                                        "filters": {"kind": "queue"}})
    assert stale.status_code == 409
    with Workspace.open(path) as ws:
        assert ws.count(status="decided") == 1


# ------------------------------------------------------------------------------ concordance


def test_a_concordance_decision_is_refused_when_its_message_changed_since_it_was_shown(team):  # noqa: F811
    _, path, reviewer = team
    ana = reviewer("ana")
    shown = ana.get("/api/concordance", params={"spelling": "Margaux"}).json()["occurrences"][0]
    with Workspace.open(path) as ws:  # ana herself, in another tab, decides the message meanwhile
        ws.decide("1", label="NTA", spans=[], reviewer="ana")
    mark = {k: shown[k] for k in ("id", "start", "end", "text_hash", "version")}
    stale = ana.post("/api/concordance", json={"marks": [{**mark, "as": "name"}]})
    assert stale.status_code == 409 and "since the concordance showed it" in stale.json()["error"]
    with Workspace.open(path) as ws:
        assert (ws.item("1").label, ws.item("1").spans) == ("NTA", [])
    fresh = ana.get("/api/concordance", params={"spelling": "Margaux"}).json()["occurrences"][0]
    mark = {k: fresh[k] for k in ("id", "start", "end", "text_hash", "version")}
    done = ana.post("/api/concordance", json={"marks": [{**mark, "as": "name"}]})
    assert done.status_code == 200 and done.json()["decided"] == 1
    bad = ana.post("/api/concordance", json={"marks": [{**mark, "as": "name", "version": "7"}]})
    assert bad.status_code == 400
