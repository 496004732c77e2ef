"""A decision keeps the grounds it was taken on, and the consistency check reads a spelling in its forms.

- A consistency decision names the case's version (refused when a colleague decided it, or its
  mentions changed, since) and keeps its grounds: `readable` never shows a mention hidden after it.
- A message awaiting its second blind reviewer is released as the more cautious side.
- An audit message's leak stays a leak when a later classification hides what the reviewer hid.
- Elided (d'X, l'X), possessive (X's) and hyphen-joined (X-Y) mentions are mentions of X.

Each reviewer is a server of their own on one workspace file (as in test_review_team)."""

import csv
import json

import pytest
from conftest import CLASSIFIED_COLUMNS, failed, succeeded
from starlette.testclient import TestClient

from triage.publication.corpus import run_release
from triage.review_workspace import Workspace, open_synced
from triage.review_workspace.consistency import apply, find_cases, gather
from triage.review_workspace.server import Settings, create_app
from triage.review_workspace.workspace import Conflict, FinalRow

BASE = "http://127.0.0.1:8125"

# Invented messages: (id, text, the machines' decision, what they hide).
ROWS = [
    ("1", "slt c Margaux jsuis chez Benoit", "EXPERT", []),
    ("2", "Margaux arrive demain soir", "EXPERT", []),
    ("3", "dis bonjour a Margaux stp", "EXPERT", []),
    ("4", "le velo d'Amandine est rouge", "EXPERT", []),
    ("5", "Amandine's party samedi", "EXPERT", []),
    ("6", "Amandine-Rose vient aussi", "EXPERT", []),
    ("7", "l'Amandine que tu connais", "EXPERT", []),
    ("8", "bisous Amandine", "EXPERT", []),
    ("9", "on dit a Quentin pour demain", "NTA", []),
    ("10", "rappelle Oscar au 0612345678", "TA", [[18, 28, "TEL"]]),
]


def write_classified(path, rows=ROWS):
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(CLASSIFIED_COLUMNS)
        for ident, text, decision, hidden in rows:
            writer.writerow([ident, text, "UNTAGGED", "TA", "0.6", decision, text, json.dumps(hidden), "[]", "0.5"])
    return path


def span(ident, word, tag="PRE"):
    text = dict((i, t) for i, t, *_ in ROWS)[ident]
    start = text.index(word)
    return [start, start + len(word), tag]


@pytest.fixture
def shared(tmp_path):
    """A workspace of eight queued messages and two the machines released (both in the audit sample),
    and a way to open it as another reviewer's server would."""
    classified = write_classified(tmp_path / "sms.classified.csv")
    path = tmp_path / "sms.review.sqlite"
    opened, _ = open_synced(classified, path, audit=2)
    opened.close()
    opened_list = []

    def reviewer(name, lead=False):
        workspace = Workspace.open(path)
        opened_list.append(workspace)
        client = TestClient(create_app(workspace, Settings(token=name, port=8125, reviewer=name, lead=lead)),
                            base_url=BASE)
        client.headers["X-Triage-Token"] = name
        return client

    yield classified, path, reviewer
    for workspace in opened_list:
        workspace.close()


def decide(client, ident, spans=()):
    item = client.get(f"/api/items/{ident}").json()
    body = {"label": "TA" if spans else "NTA", "spans": [list(s) for s in spans], "text_hash": item["text_hash"],
            "version": item["version"]}
    return client.post(f"/api/items/{ident}/decision", json=body)


def decide_rest(path, reviewer="ana"):
    """Every queued message still pending decided NTA (a release publishes decided messages only)."""
    with Workspace.open(path) as ws:
        for item in ws.items(kind="queue", status="pending", limit=50):
            ws.decide(item.id, label="NTA", spans=[], reviewer=reviewer)


def case_of(client, kind, key):
    return next(c for c in client.get("/api/consistency").json() if (c["kind"], c["key"]) == (kind, key))


def released(classified, path, **options) -> dict[str, str]:
    summary = run_release(classified, None, workspace=path, **options)
    return {row[0]: row[1] for row in summary.rows}


# ------------------------------------------------------------------- consistency: version


def test_a_consistency_decision_made_on_a_stale_view_is_refused_and_keeps_the_colleagues(shared):
    _, path, reviewer = shared
    ana, bob = reviewer("ana"), reviewer("bob")
    assert decide(ana, "1", [span("1", "Margaux")]).status_code == 200
    decide_rest(path)
    seen_by_ana, seen_by_bob = case_of(ana, "mixed", "margaux"), case_of(bob, "mixed", "margaux")
    assert seen_by_ana["version"] == seen_by_bob["version"] and seen_by_ana["decision"] is None
    hide = ana.post("/api/consistency", json={"kind": "mixed", "key": "margaux", "decision": "hide",
                                              "version": seen_by_ana["version"]})
    assert hide.status_code == 200
    stale = bob.post("/api/consistency", json={"kind": "mixed", "key": "margaux", "decision": "readable",
                                               "version": seen_by_bob["version"]})
    assert stale.status_code == 409 and "decided hide by ana" in stale.json()["error"]
    assert "\n" not in stale.json()["error"]
    unnamed = bob.post("/api/consistency", json={"kind": "mixed", "key": "margaux", "decision": "readable"})
    assert unnamed.status_code == 409
    with Workspace.open(path) as ws:
        assert ws.consistency_decisions()["mixed", "margaux"]["decision"] == "hide"
    # Having seen ana's decision (the case's version now), bob may decide it anew.
    fresh = case_of(bob, "mixed", "margaux")
    assert fresh["version"] != seen_by_bob["version"] and fresh["decision"] == "hide"
    again = bob.post("/api/consistency", json={"kind": "mixed", "key": "margaux", "decision": "homonyms",
                                               "version": fresh["version"]})
    assert again.status_code == 200 and again.json()["reviewer"] == "bob"


def test_a_consistency_decision_is_refused_when_the_mentions_changed_since_the_view(shared):
    _, path, reviewer = shared
    ana, bob = reviewer("ana"), reviewer("bob")
    decide(ana, "1", [span("1", "Margaux")])
    decide_rest(path)
    seen = case_of(ana, "mixed", "margaux")
    assert (seen["hidden"], seen["readable"]) == (1, 2)
    assert decide(bob, "3", [span("3", "Margaux")]).status_code == 200  # bob hides another mention
    stale = ana.post("/api/consistency", json={"kind": "mixed", "key": "margaux", "decision": "readable",
                                               "version": seen["version"]})
    assert stale.status_code == 409
    with Workspace.open(path) as ws:
        assert ("mixed", "margaux") not in ws.consistency_decisions()
        with pytest.raises(Conflict):
            ws.decide_consistency("mixed", "margaux", "readable", reviewer="ana", version=seen["version"])
    bad = ana.post("/api/consistency", json={"kind": "mixed", "key": "margaux", "decision": "hide", "version": 3})
    assert bad.status_code == 400 and "version" in bad.json()["error"]


# ------------------------------------------------------------------- consistency: grounds


def test_a_readable_decision_never_shows_a_mention_hidden_after_it(shared, cli):
    classified, path, reviewer = shared
    ana, bob = reviewer("ana"), reviewer("bob")
    decide(ana, "1", [span("1", "Margaux")])
    decide_rest(path)
    seen = case_of(ana, "mixed", "margaux")
    assert ana.post("/api/consistency", json={"kind": "mixed", "key": "margaux", "decision": "readable",
                                              "version": seen["version"]}).status_code == 200
    # Later, bob hides Margaux in another message: the decision was not taken on that mention.
    assert decide(bob, "3", [span("3", "Margaux")]).status_code == 200
    case = case_of(bob, "mixed", "margaux")
    assert case["decision"] is None and case["outdated"] == {"decision": "readable", "reviewer": "ana",
                                                             "hidden_since": 1}
    listed = cli("review", classified, "--workspace", path, "--consistency")
    succeeded(listed)
    assert "decided readable by ana, then 1 more mention hidden" in listed.output
    failed(cli("release", classified, "--workspace", path, "-o", path.with_name("out.csv")), 1,
           "consistency case", "mixed 'margaux'")
    texts = released(classified, path, inconsistent_ok=True)
    assert "Margaux" not in texts["3"] and "Margaux" not in texts["1"]


def test_apply_shows_only_the_hidden_mentions_a_readable_decision_was_taken_on():
    rows = [FinalRow("a", 0, "Rose vient", "TA", [[0, 4, "PRE"]], "reviewer"),
            FinalRow("b", 1, "une rose rouge", "NTA", [], "reviewer"),
            FinalRow("c", 2, "bisous Rose", "TA", [[7, 11, "PRE"]], "reviewer")]
    (case,) = [c for c in find_cases(rows) if c["kind"] == "mixed"]
    decided = {**case, "decision": "readable", "grounds": [["a", 0, 4]]}
    out, _ = apply(rows, [decided])
    assert out[0].spans == [] and out[2].spans == [[7, 11, "PRE"]]  # c was not among its grounds
    out, _ = apply(rows, [{**case, "decision": "readable", "grounds": None}])  # a decision kept no grounds
    assert out[2].spans == []


# --------------------------------------------------------------- double review: half-reviewed


def test_a_message_awaiting_its_second_blind_reviewer_is_released_as_the_more_cautious_side(shared, cli):
    classified, path, reviewer = shared
    with Workspace.open(path) as ws:
        ws.mark_double(1.0)
    ana = reviewer("ana")
    assert decide(ana, "9", [span("9", "Quentin")]).json()["status"] == "pending"  # an audit message, blind
    assert decide(ana, "2", [span("2", "Margaux")]).json()["status"] == "pending"  # a queued one
    with Workspace.open(path) as ws:
        for item in ws.items(kind="queue", status="pending", limit=50):
            if item.id != "2":
                ws.decide(item.id, label="NTA", spans=[], reviewer="ana")
                ws.decide(item.id, label="NTA", spans=[], reviewer="bob")
        final = {row.id: row for row in ws.final()}
        assert final["9"].spans == [span("9", "Quentin")] and final["9"].route == "audit"
        assert final["2"].spans == [span("2", "Margaux")] and final["2"].route == "reviewer"
        assert ws.half_reviewed() == 2 and ws.undecided() == 0
    out = path.with_name("out.csv")
    failed(cli("release", classified, "--workspace", path, "-o", out, "--inconsistent-ok"), 1,
           "2 messages of the double review await the second blind reviewer", "--allow-disagreements")
    allowed = cli("release", classified, "--workspace", path, "-o", out, "--inconsistent-ok", "--allow-disagreements")
    succeeded(allowed)
    assert "2 messages awaiting their second blind reviewer" in allowed.output
    with out.open(newline="", encoding="utf-8") as handle:
        texts = {row["id"]: row["text"] for row in csv.DictReader(handle)}
    assert "Quentin" not in texts["9"] and "Margaux" not in texts["2"]
    sheet = json.loads(out.with_name("out.datasheet.json").read_text("utf-8"))
    assert sheet["review"]["awaiting_second_review_released"] == 2
    assert "the second reviewer's still awaited" in out.with_name("out.datasheet.md").read_text("utf-8")


# ------------------------------------------------------------------------ audit: grounds


def test_an_audit_leak_stays_when_a_later_classification_hides_the_name(shared, tmp_path):
    classified, path, reviewer = shared
    ana = reviewer("ana")
    assert decide(ana, "9", [span("9", "Quentin")]).status_code == 200
    assert decide(ana, "10", [span("10", "0612345678", "TEL")]).status_code == 200  # what the machines hid
    decide_rest(path)
    with Workspace.open(path) as ws:
        before = ws.audit_estimate()
    assert (before["audited"], before["leaking"]) == (2, 1)
    # A new classification (the workspace's names taught) now hides Quentin in the audited message.
    taught = [(i, t, "TA", [span("9", "Quentin")]) if i == "9" else (i, t, d, h) for i, t, d, h in ROWS]
    again, _ = open_synced(write_classified(classified, taught), path, audit=2)
    with again:
        assert again.item("9").machine_spans == [span("9", "Quentin")] and again.item("9").status == "decided"
        after = again.audit_estimate()
    assert (after["audited"], after["leaking"]) == (2, 1)
    sheet = run_release(classified, None, workspace=path, inconsistent_ok=True).sheet
    assert (sheet["audit"]["audited"], sheet["audit"]["leaking"]) == (2, 1)


# -------------------------------------------------------------------- forms of a spelling


def test_elided_possessive_and_hyphen_joined_forms_are_mentions_of_a_hidden_name(shared):
    classified, path, reviewer = shared
    ana = reviewer("ana")
    decide(ana, "8", [span("8", "Amandine")])
    decide_rest(path)
    case = case_of(ana, "mixed", "amandine")
    assert (case["hidden"], case["readable"]) == (1, 4)
    with Workspace.open(path) as ws:  # every readable mention, in each of its forms
        readable = {(row.id, start, end) for row, start, end in gather(list(ws.final())).readable_at["amandine"]}
    assert readable == {("4", 10, 18), ("5", 0, 8), ("6", 0, 8), ("7", 2, 10)}
    shown = {(e["id"], e["start"], e["end"]) for e in case["examples"] if not e["hidden"]}
    assert len(shown) == 3 and shown < readable  # a few of them as examples
    assert ana.post("/api/consistency", json={"kind": "mixed", "key": "amandine", "decision": "hide",
                                              "version": case["version"]}).status_code == 200
    summary = run_release(classified, None, workspace=path, inconsistent_ok=True)
    texts = {row[0]: row[1] for row in summary.rows}
    assert not any("Amandine" in texts[i] for i in ("4", "5", "6", "7", "8"))
    assert texts["4"].startswith("le velo d'<PRE") and texts["5"].endswith("'s party samedi")
    assert texts["6"].endswith("-Rose vient aussi")
    assert summary.sheet["consistency"]["decided"] == {"mixed hide": 1}


def test_a_hidden_elided_form_is_a_mention_of_the_name():
    rows = [FinalRow("a", 0, "le velo d'Amandine", "TA", [[8, 18, "PRE"]], "reviewer"),
            FinalRow("b", 1, "Amandine arrive", "NTA", [], "reviewer"),
            FinalRow("c", 2, "la liste d'attente", "NTA", [], "reviewer")]
    cases = find_cases(rows)
    assert [(c["kind"], c["key"], c["readable"]) for c in cases] == [("mixed", "amandine", 1)]


def test_an_audit_decided_before_its_grounds_were_kept_keeps_its_leak_through_a_new_classification(shared):
    classified, path, reviewer = shared
    decide(reviewer("ana"), "9", [span("9", "Quentin")])
    decide_rest(path)
    with Workspace.open(path) as ws:
        ws._db.execute("DELETE FROM audit_grounds")  # as a workspace made before they were kept
        assert ws.audit_estimate()["leaking"] == 1
    taught = [(i, t, "TA", [span("9", "Quentin")]) if i == "9" else (i, t, d, h) for i, t, d, h in ROWS]
    again, _ = open_synced(write_classified(classified, taught), path, audit=2)
    with again:
        assert again.audit_estimate()["leaking"] == 1


def test_an_audited_message_a_new_classification_queues_stays_in_the_audit(shared):
    classified, path, reviewer = shared
    decide(reviewer("ana"), "9", [span("9", "Quentin")])
    decide_rest(path)
    queued = [(i, t, "EXPERT", []) if i == "9" else (i, t, d, h) for i, t, d, h in ROWS]
    again, _ = open_synced(write_classified(classified, queued), path, audit=2)
    with again:
        assert again.item("9").kind == "audit" and again.item("9").status == "decided"
        assert [i.id for i in again.items(kind="queue", limit=50)] == [str(n) for n in range(1, 9)]
        assert (again.audit_estimate()["audited"], again.audit_estimate()["leaking"]) == (1, 1)


def test_a_leak_found_by_the_audit_survives_classify_workspace_learning_the_name(cli, tmp_path):
    source = tmp_path / "sms.csv"
    source.write_text("id,text\n1,slt Julie tu viens a Lyon samedi ?\n2,appelle moi au 06 12 34 56 78 stp\n"
                      "3,ok a demain bisous\n4,bonne nuit a toi\n5,on mange chez zorglub ce soir\n"
                      "6,dis a zorglub que jarrive\n7,merci pour tout\n8,tkt jarrive dans 5 min\n", encoding="utf-8")
    classified, ws = tmp_path / "sms.classified.csv", tmp_path / "sms.review.sqlite"
    succeeded(cli("classify", source, "-o", classified, "--no-chart", "--workspace", ws))
    with Workspace.open(ws) as opened:
        assert opened.item("6").kind == "audit" and opened.item("6").machine_spans == []
        # The audit messages where the machines missed zorglub (6, and 5 unless they hid it there)
        missed = sum(opened.item(i).kind == "audit" and not opened.item(i).machine_spans for i in ("5", "6"))
        opened.decide("6", label="TA", spans=[[6, 13, "PRE"]], reviewer="ana")  # the machines missed zorglub
        opened.decide("5", label="TA", spans=[[14, 21, "PRE"]], reviewer="ana")
        assert opened.audit_estimate()["leaking"] == missed >= 1
    again = cli("classify", source, "-o", classified, "--no-chart", "--workspace", ws, "--force")
    succeeded(again)
    assert "known names: 1 from the review workspace" in again.output
    with Workspace.open(ws) as opened:
        assert opened.item("6").machine_spans == [[6, 13, "PRE"]]  # learnt: the machines hide it now
        assert opened.audit_estimate()["leaking"] == missed
    out = tmp_path / "corpus.csv"
    succeeded(cli("release", classified, "--workspace", ws, "-o", out, "--withhold-undecided"))
    sheet = json.loads((tmp_path / "corpus.datasheet.json").read_text("utf-8"))
    assert sheet["audit"]["leaking"] == missed


def test_a_blind_decision_is_still_released_cautiously_after_the_double_review_is_removed(shared):
    classified, path, reviewer = shared
    with Workspace.open(path) as ws:
        ws.mark_double(1.0)
    decide(reviewer("ana"), "9", [span("9", "Quentin")])
    decide_rest(path)
    with Workspace.open(path) as ws:
        for item in ws.items(kind="queue", status="pending", limit=50):  # the queue's second reviews
            ws.decide(item.id, label="NTA", spans=[], reviewer="bob")
    with Workspace.open(path) as ws:
        ws.mark_double(0)  # the double review removed
        assert ws.double_ids() == set() and ws.half_reviewed() == 1
        assert {row.id: row.spans for row in ws.final()}["9"] == [span("9", "Quentin")]
    texts = released(classified, path, allow_disagreements=True, inconsistent_ok=True)
    assert "Quentin" not in texts["9"]
