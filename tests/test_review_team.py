"""Several reviewers on one workspace: leases, conflicts, blind double review, agreement,
adjudication by the lead reviewer, and what --report and the release's datasheet say of them.

Each reviewer is a server of their own (`triage review --reviewer NAME`) on the same workspace
file; here each is a Starlette app over its own connection to that file."""

import json
import re
import sqlite3
import time

import pytest
from conftest import CLASSIFIED_COLUMNS
from starlette.testclient import TestClient

from triage.cli import app
from triage.publication.corpus import run_release
from triage.review_workspace import Workspace, open_synced, report_lines
from triage.review_workspace.agreement import agreement, kappa, span_agreement
from triage.review_workspace.server import Settings, create_app
from test_workspace_files import read_only  # noqa: F401  (a fixture)

PORT = 8124
BASE = f"http://127.0.0.1:{PORT}"

# Invented messages, queued for a human (decision EXPERT).
TEXTS = [
    "slt c Margaux jsuis chez Benoit ce soir",
    "appelle moi au 06 12 34 56 78 stp",
    "on se retrouve a la gare avec Lisette",
    "tkt jarrive dans 5 min",
    "Bisous a Timothée et a sa soeur",
    "ok pour demain midi chez Rolande",
    "jai vu Fabrice au ciné hier",
    "merci pour le gâteau c t trop bon",
    "rdv 14h devant la pharmacie",
    "Gaspard ta laissé ses clés chez moi",
]


def write_corpus(path, texts=TEXTS):
    import csv

    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(CLASSIFIED_COLUMNS)
        for number, text in enumerate(texts, 1):
            writer.writerow([str(number), text, "UNTAGGED", "TA", "0.6", "EXPERT", text, "[]", "[]", "0.5"])
    return path


def one_disagreement(tmp_path):
    """A team workspace whose one double-review message ana and bob decided differently (ana hid its
    first word, bob answered NTA): a disagreement for the lead. (its path, the message's id, that word)"""
    path = tmp_path / "team.review.sqlite"
    opened, _ = open_synced(write_corpus(tmp_path / "team.csv"), path, audit=0)
    opened.close()
    with Workspace.open(path) as ws:
        ws.mark_double(0.1)
        (ident,) = ws.double_ids()
        word = ws.item(ident).text.split()[0]
        ws.decide(ident, label="TA", spans=[[0, len(word), "PRE"]], reviewer="ana")
        ws.decide(ident, label="NTA", spans=[], reviewer="bob")
    return path, ident, word


@pytest.fixture
def team(tmp_path):
    """A workspace of ten queued messages, and a way to open it as another reviewer's server would."""
    classified = write_corpus(tmp_path / "team.csv")
    path = tmp_path / "team.review.sqlite"
    opened, _ = open_synced(classified, path, audit=0)
    opened.close()
    opened_list = []

    def reviewer(name, lead=False, lease=300.0):
        workspace = Workspace.open(path)
        opened_list.append(workspace)
        client = TestClient(create_app(workspace, Settings(token=name, port=PORT, reviewer=name, lead=lead,
                                                           lease_seconds=lease)), base_url=BASE)
        client.headers["X-Triage-Token"] = name
        return client

    yield classified, path, reviewer
    for workspace in opened_list:
        workspace.close()


def item_of(client, ident):
    return client.get(f"/api/items/{ident}").json()


def decide(client, ident, label="NTA", spans=(), **extra):
    item = item_of(client, ident)
    body = {"label": label, "spans": list(spans), "text_hash": item["text_hash"], "version": item["version"], **extra}
    return client.post(f"/api/items/{ident}/decision", json=body)


# ------------------------------------------------------------------------------------ leases

def test_two_reviewers_are_never_given_the_same_message(team):
    _, _, reviewer = team
    ana, bob = reviewer("ana"), reviewer("bob")
    first = ana.post("/api/claim", json={}).json()["current"]
    second = bob.post("/api/claim", json={}).json()["current"]
    assert first and second and first != second
    assert bob.get("/api/state").json()["current"] != first  # the state passes over a leased message too
    assert item_of(bob, first)["leased_to"]["reviewer"] == "ana"
    taken = bob.post(f"/api/items/{first}/lease", json={})
    assert taken.status_code == 409 and "ana" in taken.json()["error"]
    assert ana.post(f"/api/items/{first}/lease", json={}).status_code == 200  # renewed by its holder


def test_a_decision_on_a_message_leased_to_another_is_refused_and_stores_nothing(team):
    _, path, reviewer = team
    ana, bob = reviewer("ana"), reviewer("bob")
    leased = ana.post("/api/claim", json={}).json()["current"]
    refused = decide(bob, leased, "TA", [[0, 3, "PRE"]])
    assert refused.status_code == 409
    body = refused.json()
    assert body["conflict"]["kind"] == "lease" and body["conflict"]["reviewer"] == "ana"
    assert "ana" in body["error"] and "\n" not in body["error"]
    assert item_of(ana, leased)["status"] == "pending"
    assert decide(ana, leased).status_code == 200
    assert item_of(bob, leased)["leased_to"] is None  # a decision ends the lease


def test_a_decision_made_on_a_message_another_decided_since_shows_their_decision(team):
    _, _, reviewer = team
    ana, bob = reviewer("ana", lease=0.05), reviewer("bob")
    ident = ana.post("/api/claim", json={}).json()["current"]
    seen_by_bob = item_of(bob, ident)  # bob's page loaded it while it was pending
    time.sleep(0.1)  # ana's lease ran out, yet she decides (her page was open)
    assert decide(ana, ident, "TA", [[7, 14, "PRE"]]).status_code == 200
    late = bob.post(f"/api/items/{ident}/decision", json={"label": "NTA", "spans": [],
                                                        "text_hash": seen_by_bob["text_hash"],
                                                        "version": seen_by_bob["version"]})
    assert late.status_code == 409
    conflict = late.json()["conflict"]
    assert conflict["reviewer"] == "ana" and conflict["label"] == "TA" and conflict["spans"] == [[7, 14, "PRE"]]
    now = item_of(bob, ident)
    assert now["label"] == "TA" and now["reviewer"] == "ana"  # not overwritten
    # Without a version (a script), another reviewer's decision is never overwritten either.
    assert bob.post(f"/api/items/{ident}/decision", json={"label": "NTA", "spans": []}).status_code == 409
    # Having seen it (the current version), bob may change it: a decision of its own.
    assert decide(bob, ident).json()["reviewer"] == "bob"



def test_a_message_another_reviewer_skipped_may_be_decided(team):
    _, path, _ = team
    with Workspace.open(path) as ws:
        ident = ws.items(limit=1)[0].id
        ws.skip(ident, reviewer="bob")
        assert ws.decide(ident, label="NTA", spans=[], reviewer="ana").reviewer == "ana"


def test_an_expired_lease_frees_the_message_for_another_reviewer(team):
    _, path, _ = team
    with Workspace.open(path) as ws:
        held = ws.claim("ana", seconds=0.05)
        assert ws.claim("bob").id != held.id
        assert ws.next_pending(reviewer="carla").id != held.id
        time.sleep(0.1)
        assert ws.lease_of(held.id) is None
        assert ws.next_pending(reviewer="carla").id == held.id
        assert ws.claim("carla").id == held.id
        with pytest.raises(Exception, match="carla"):
            ws.decide(held.id, label="NTA", spans=[], reviewer="ana")
        assert ws.item(held.id).status == "pending"


def test_odd_claims_and_versions_are_one_line_errors(team):
    _, _, reviewer = team
    ana = reviewer("ana")
    for body in ({"after_rank": 1 << 70}, {"after_rank": "3"}, {"after_rank": 2.5}, {"after_rank": True}):
        answer = ana.post("/api/claim", json=body)
        assert answer.status_code == 400 and answer.json()["error"] == "after_rank must be a whole number"
    ident = ana.post("/api/claim", json={}).json()["current"]
    assert decide(ana, ident).status_code == 200
    bob = reviewer("bob")
    for version in ("3", 2.5, True):
        answer = decide(bob, ident, version=version)
        assert answer.status_code == 400 and "version" in answer.json()["error"]
    assert decide(bob, ident, version=1 << 70).status_code == 409
    assert ana.post("/api/items/nope/lease", json={}).status_code == 404


def test_a_reviewer_holds_one_lease_at_a_time(team):
    _, path, _ = team
    with Workspace.open(path) as ws:
        first = ws.claim("ana")
        second = ws.claim("ana", after_rank=first.rank)
        assert second.id != first.id
        assert ws.lease_of(first.id) is None and ws.lease_of(second.id)["reviewer"] == "ana"


def test_a_workspace_made_before_several_reviewers_opens_and_gets_its_tables(team):
    _, path, _ = team
    connection = sqlite3.connect(path)
    for table in ("leases", "double", "reviews"):
        connection.execute(f"DROP TABLE {table}")
    connection.execute("DROP INDEX events_by_id")
    connection.commit()
    connection.close()
    with Workspace.open(path) as ws:
        assert ws.claim("ana") is not None
        assert ws.agreement()["messages"] == 0


def test_a_read_only_workspace_made_before_several_reviewers_still_releases(team, read_only):
    classified, path, _ = team
    with Workspace.open(path) as ws:
        for item in ws.items(limit=50):
            ws.decide(item.id, label="NTA", spans=[], reviewer="ana")
    connection = sqlite3.connect(path)
    for table in ("leases", "double", "reviews"):
        connection.execute(f"DROP TABLE {table}")
    connection.execute("DROP INDEX events_by_id")
    connection.commit()
    connection.close()
    read_only(path)
    try:
        summary = run_release(classified, None, workspace=path)
    finally:
        path.parent.chmod(0o700)
    assert summary.messages == 10 and summary.sheet["review"]["agreement"]["messages"] == 0


# ------------------------------------------------------------------------------ double review

def test_double_review_marks_a_seeded_share_of_the_queue_and_of_the_audit(classified, tmp_path):
    opened, _ = open_synced(classified, tmp_path / "a.sqlite", audit=20, seed=3, double=0.1)
    with opened:
        marked = opened.double_ids()
        queue = opened.count(kind="queue")
        kinds = [opened.item(i).kind for i in marked]
        assert kinds.count("queue") == -(-queue // 10) and kinds.count("audit") == 2
        assert all(opened.item(i).double for i in marked)
        again = opened.sync(classified, audit=20, seed=3)  # a re-sync without --double keeps the marking
        assert again and opened.double_ids() == marked
    other, _ = open_synced(classified, tmp_path / "b.sqlite", audit=20, seed=3, double=0.1)
    with other:
        assert other.double_ids() == marked  # seeded
    with pytest.raises(Exception, match="between 0 and 1"):
        open_synced(classified, tmp_path / "c.sqlite", audit=20, double=1.5)


def test_two_reviewers_decide_a_double_message_blind(team):
    _, path, reviewer = team
    with Workspace.open(path) as ws:
        ws.mark_double(0.1)
        (ident,) = ws.double_ids()
    ana, bob = reviewer("ana"), reviewer("bob")
    assert decide(ana, ident, "TA", [[7, 14, "PRE"]]).json()["status"] == "pending"  # kept apart
    seen = item_of(bob, ident)
    assert seen["status"] == "pending" and seen["label"] is None and seen["spans"] is None and seen["double"]
    listed = next(i for i in bob.get("/api/items?limit=50").json()["items"] if i["id"] == ident)
    assert (listed["status"], listed["label"], listed["reviewer"]) == ("pending", None, None)  # nothing of ana's
    with Workspace.open(path) as ws:  # ana is not given it again, bob is
        rank = ws.item(ident).rank
        assert ws.next_pending(rank - 1, reviewer="ana").id != ident
        assert ws.next_pending(rank - 1, reviewer="bob").id == ident
    same = decide(bob, ident, "TA", [[7, 14, "PRE"]]).json()
    assert same["status"] == "decided" and same["reviewer"] == "ana + bob"
    with Workspace.open(path) as ws:
        assert [r["reviewer"] for r in ws.reviews(ident)] == ["ana", "bob"]
        assert ws.agreement()["labels"]["agree"] == 1


def test_a_blind_decision_can_be_undone_by_its_reviewer(team):
    _, path, reviewer = team
    with Workspace.open(path) as ws:
        ws.mark_double(0.1)
        (ident,) = ws.double_ids()
    ana = reviewer("ana")
    decide(ana, ident, "TA", [[7, 14, "PRE"]])
    assert ana.post("/api/undo").json()["id"] == ident
    with Workspace.open(path) as ws:
        assert ws.reviews(ident) == [] and ws.next_pending(ws.item(ident).rank - 1, reviewer="ana").id == ident


# -------------------------------------------------------------------------------- agreement

def test_kappa_and_span_agreement_exact_and_overlapping():
    # 4 messages: labels agree on 3; kappa = (0.75 - 0.5) / (1 - 0.5) with both raters 2 TA / 2 NTA.
    assert kappa(["TA", "TA", "NTA", "NTA"], ["TA", "NTA", "TA", "NTA"]) == 0.0
    assert kappa(["TA", "TA", "NTA", "NTA"], ["TA", "TA", "NTA", "NTA"]) == 1.0
    assert kappa(["TA", "TA"], ["TA", "TA"]) is None  # undefined: one label only
    spans = span_agreement([
        ([[0, 5, "PRE"], [10, 14, "TEL"]], [[0, 5, "PRE"], [9, 14, "TEL"]]),  # one exact, one overlapping
        ([[3, 8, "PRE"]], [[3, 8, "NOM"]]),  # same boundaries, another tag: no match
    ])
    assert (spans["first"], spans["second"], spans["exact"], spans["overlap"]) == (3, 3, 1, 2)
    assert spans["f1_exact"] == round(2 / 6, 4) and spans["f1_overlap"] == round(4 / 6, 4)
    assert spans["by_tag"]["TEL"]["f1_exact"] == 0.0 and spans["by_tag"]["TEL"]["f1_overlap"] == 1.0
    assert spans["by_tag"]["NOM"] == {"first": 0, "second": 1, "exact": 0, "overlap": 0,
                                      "f1_exact": 0.0, "f1_overlap": 0.0}
    result = agreement([("t", {"reviewer": "bob", "label": "TA", "spans": [[0, 1, "PRE"]]},
                         {"reviewer": "ana", "label": "NTA", "spans": []})])
    assert result["messages"] == 1 and result["labels"]["agree"] == 0 and list(result["pairs"]) == ["ana + bob"]


def test_time_per_reviewer_sums_the_gaps_below_the_pause(team):
    _, path, _ = team
    with Workspace.open(path) as ws:
        ids = [item.id for item in ws.items(limit=10)]
        for ident in ids[:3]:
            ws.decide(ident, label="NTA", spans=[], reviewer="ana")
        ws.skip(ids[3], reviewer="ana")
        ws.decide(ids[4], label="NTA", spans=[], reviewer="bob")
        ws._db.execute("UPDATE events SET at = ? WHERE seq = 1", ("2026-01-05T09:00:00+00:00",))
        ws._db.execute("UPDATE events SET at = ? WHERE seq = 2", ("2026-01-05T09:00:40+00:00",))
        ws._db.execute("UPDATE events SET at = ? WHERE seq = 3", ("2026-01-05T10:00:00+00:00",))  # a pause
        ws._db.execute("UPDATE events SET at = ? WHERE seq = 4", ("2026-01-05T10:00:20+00:00",))
        figures = ws.reviewer_figures()
        assert figures["ana"] == {"decisions": 3, "skips": 1, "seconds": 60.0}
        assert figures["bob"]["decisions"] == 1 and figures["bob"]["seconds"] == 0.0


# ------------------------------------------------------------------------------ adjudication

def disagree(path, reviewer):
    with Workspace.open(path) as ws:
        ws.mark_double(0.2)
        first, second = sorted(ws.double_ids(), key=lambda i: ws.item(i).rank)
    ana, bob = reviewer("ana"), reviewer("bob")
    decide(ana, first, "TA", [[7, 14, "PRE"]])
    decide(bob, first, "NTA")
    decide(ana, second, "NTA")
    decide(bob, second, "NTA")
    return first, second


def test_a_disagreement_waits_for_the_lead_who_sees_both_decisions(team):
    _, path, reviewer = team
    first, second = disagree(path, reviewer)
    carla, lead = reviewer("carla"), reviewer("lea", lead=True)
    disputed = item_of(carla, first)
    assert disputed["status"] == "disputed" and disputed["spans"] == [[7, 14, "PRE"]]  # the cautious one meanwhile
    refused = decide(carla, first)
    assert refused.status_code == 409 and refused.json()["conflict"]["kind"] == "disputed"
    assert carla.get("/api/disputes").status_code == 403
    assert carla.post(f"/api/items/{first}/adjudicate", json={"label": "NTA", "spans": []}).status_code == 403
    listed = lead.get("/api/disputes").json()
    assert [d["item"]["id"] for d in listed] == [first]
    assert [(r["reviewer"], r["label"]) for r in listed[0]["reviews"]] == [("ana", "TA"), ("bob", "NTA")]
    assert lead.get("/api/state").json()["lead"] is True
    assert lead.post(f"/api/items/{second}/adjudicate", json={"label": "NTA", "spans": []}).status_code == 400
    resolved = lead.post(f"/api/items/{first}/adjudicate",
                         json={"label": "TA", "spans": [[7, 14, "PRE"]], "text_hash": disputed["text_hash"]})
    assert resolved.status_code == 200 and resolved.json()["status"] == "decided"
    assert resolved.json()["reviewer"] == "lea"
    assert lead.get("/api/disputes").json() == []
    with Workspace.open(path) as ws:
        result = ws.agreement()
        assert result["messages"] == 2 and result["labels"]["agree"] == 1
        assert result["disagreements"] == {"unresolved": 0, "resolved": 1}


def test_release_refuses_unresolved_disagreements_unless_allowed_and_says_so(team, tmp_path, cli):
    classified, path, reviewer = team
    first, _ = disagree(path, reviewer)
    ana = reviewer("ana")
    with Workspace.open(path) as ws:
        for item in ws.items(status="pending", limit=50):
            ws.decide(item.id, label="NTA", spans=[], reviewer="ana")
    out = tmp_path / "release.csv"
    refused = cli("release", str(classified), "-o", str(out), "--workspace", str(path))
    assert refused.exit_code == 1 and "1 message of the double review has an unresolved disagreement" in refused.output
    assert "--lead" in refused.output and "--allow-disagreements" in refused.output and not out.exists()
    allowed = cli("release", str(classified), "-o", str(out), "--workspace", str(path), "--allow-disagreements")
    assert allowed.exit_code == 0, allowed.output
    assert "1 unresolved disagreements" in allowed.output
    sheet = json.loads(out.with_name("release.datasheet.json").read_text())
    assert sheet["review"]["unresolved_disagreements_released"] == 1
    assert "left unresolved and released as the more cautious decision" in out.with_name("release.datasheet.md").read_text()
    released = out.read_text()
    assert "Margaux" not in released  # what either reviewer hid is hidden
    assert ana  # the reviewer's server stays open meanwhile (WAL: readers and one writer)


def test_review_report_prints_reviewers_time_and_agreement(team, cli):
    classified, path, reviewer = team
    disagree(path, reviewer)
    result = cli("review", str(classified), "--workspace", str(path), "--report")
    assert result.exit_code == 0, result.output
    assert "reviewers: ana 2 decisions" in result.output and "bob 2 decisions" in result.output
    assert "double review: 2 of 2 marked messages decided by two reviewers" in result.output
    assert "labels 1/2 alike, Cohen's kappa" in result.output and "spans F1 exact 0.00" in result.output
    assert "disagreements: 0 resolved by the lead, 1 unresolved" in result.output
    with Workspace.open(path) as ws:
        assert any("agreement" in line for line in report_lines(ws))


@pytest.mark.parametrize("lowered", [0.0, 0.1])
def test_a_share_lowered_after_a_double_review_never_counts_more_decided_than_marked(team, cli, tmp_path, lowered):
    classified, path, reviewer = team
    first, second = disagree(path, reviewer)  # 2 marked (20%), both decided by ana and bob
    with Workspace.open(path) as ws:
        ws.mark_double(lowered)  # `review --double 0` (or 0.1) after the double review
        marked = ws.double_ids()
    report = cli("review", str(classified), "--workspace", str(path), "--report")
    assert report.exit_code == 0, report.output
    assert not re.search(r"double review: (\d+) of (\d+) marked", report.output) or \
        int(re.search(r"double review: (\d+) of (\d+) marked", report.output)[1]) <= len(marked)
    still = len({first, second} & marked)
    assert f"double review: 2 messages decided by two reviewers, {still} of them still marked" in report.output
    out = tmp_path / "release.csv"
    released = cli("release", str(classified), "-o", str(out), "--workspace", str(path), "--allow-disagreements",
                   "--withhold-undecided", "--inconsistent-ok")
    assert released.exit_code == 0, released.output
    markdown = out.with_name("release.datasheet.md").read_text("utf-8")
    assert "0% of the queue" not in markdown and "of 0 marked" not in markdown
    assert "marked for it when they were decided" in markdown
    assert f"the share marked is now {100 * lowered:.0f}%, {len(marked)} message" in markdown


def test_a_small_share_is_never_written_as_zero_percent():
    from triage.review_workspace.agreement import share_text

    assert share_text(0.004) == "0.4%" and share_text(0.1) == "10%" and share_text(0) == "0%"
    assert share_text(0.025) == "2.5%" and share_text(1) == "100%"


# ------------------------------------------------------------------------- a team's session

def test_a_two_reviewer_session_with_double_review_ends_in_a_release_stating_the_agreement(tmp_path):
    """Two reviewers and a lead, each through their own server: double review of 30% of the queue,
    both go through the list until nothing is left for them, they disagree once, the lead resolves
    it, and the release's datasheet states the agreement."""
    from typer.testing import CliRunner

    classified = write_corpus(tmp_path / "session.csv")
    path = tmp_path / "session.review.sqlite"
    opened, _ = open_synced(classified, path, audit=0, double=0.3)
    marked = opened.double_ids()
    opened.close()
    assert len(marked) == 3
    workspaces = [Workspace.open(path) for _ in range(3)]
    clients = []
    for workspace, name in zip(workspaces, ("ana", "bob", "lea")):
        client = TestClient(create_app(workspace, Settings(token=name, port=PORT, reviewer=name, lead=name == "lea")),
                            base_url=BASE)
        client.headers["X-Triage-Token"] = name
        clients.append(client)
    ana, bob, lead = clients
    try:
        hides_margaux = None
        decided: dict[str, list] = {"ana": [], "bob": []}
        turn = 0
        while True:  # the two reviewers take turns, each on the message the server leased to them
            name, client = (("ana", ana), ("bob", bob))[turn % 2]
            current = client.post("/api/claim", json={}).json()["current"]
            if current is None:
                other = ("bob", bob) if name == "ana" else ("ana", ana)
                if other[1].post("/api/claim", json={}).json()["current"] is None:
                    break
                turn += 1
                continue
            item = item_of(client, current)
            assert item["leased_to"] is None
            if "Margaux" in item["text"]:
                hides_margaux = item["id"]
            # They disagree on Margaux's message: ana hides the name, bob misses it.
            if "Margaux" in item["text"] and name == "ana":
                start = item["text"].index("Margaux")
                answer = {"label": "TA", "spans": [[start, start + 7, "PRE"]]}
            elif item["proposal"]:
                answer = {"label": "TA", "spans": item["proposal"]}
            else:
                answer = {"label": "NTA", "spans": []}
            response = client.post(f"/api/items/{current}/decision",
                                   json={**answer, "text_hash": item["text_hash"], "version": item["version"]})
            assert response.status_code == 200, response.text
            decided[name].append(current)
            turn += 1
        assert set(decided["ana"]) & set(decided["bob"]) == marked  # only the marked ones were decided twice
        assert set(decided["ana"]) | set(decided["bob"]) == {str(n) for n in range(1, 11)}
        if hides_margaux in marked:
            disputes = lead.get("/api/disputes").json()
            assert [d["item"]["id"] for d in disputes] == [hides_margaux]
            chosen = next(r for r in disputes[0]["reviews"] if r["reviewer"] == "ana")
            assert lead.post(f"/api/items/{hides_margaux}/adjudicate",
                             json={"label": chosen["label"], "spans": chosen["spans"],
                                   "text_hash": disputes[0]["item"]["text_hash"]}).status_code == 200
    finally:
        for workspace in workspaces:
            workspace.close()
    assert hides_margaux in marked  # seed 0 marks Margaux's message: the session has its disagreement
    out = tmp_path / "session.release.csv"
    result = CliRunner().invoke(app, ["release", str(classified), "-o", str(out), "--workspace", str(path),
                                          "--reviewer-names"])
    assert result.exit_code == 0, result.output
    sheet = json.loads(out.with_name("session.release.datasheet.json").read_text())
    review = sheet["review"]
    assert {r["name"] for r in review["reviewers"]} == {"ana", "bob", "lea"}
    assert review["agreement"]["messages"] == 3 and review["agreement"]["labels"]["agree"] == 2
    assert review["agreement"]["disagreements"] == {"unresolved": 0, "resolved": 1}
    assert review["double_review_share"] == 0.3
    markdown = out.with_name("session.release.datasheet.md").read_text()
    assert "## Review" in markdown and "Cohen's kappa" in markdown and "decided by both reviewers, blind" in markdown
    assert "Disagreements resolved by the lead reviewer: 1." in markdown
    assert "Margaux" not in out.read_text()


def test_run_release_in_memory_has_the_review_section(team):
    classified, path, _ = team
    with Workspace.open(path) as ws:
        for item in ws.items(limit=50):
            ws.decide(item.id, label="NTA", spans=[], reviewer="ana")
    summary = run_release(classified, None, workspace=path)
    assert summary.sheet["review"]["reviewers"][0]["name"] == "reviewer 1"
    assert summary.sheet["review"]["agreement"]["messages"] == 0


def test_two_review_servers_share_a_workspace_from_the_command_line(tmp_path):
    """`triage review --reviewer NAME` twice on one workspace: the first marks a double review,
    the second, the lead, keeps it; each is given its own message; only the lead adjudicates."""
    import signal
    import subprocess
    import sys
    import urllib.error
    import urllib.request

    classified = write_corpus(tmp_path / "cli.csv")
    path = tmp_path / "cli.review.sqlite"
    common = [sys.executable, "-m", "triage", "review", str(classified), "--workspace", str(path), "--no-browser",
              "--audit", "0"]
    servers, bases = [], []
    try:
        for extra in (["--reviewer", "ana", "--double", "0.3"], ["--reviewer", "lea", "--lead"]):
            server = subprocess.Popen(common + extra, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            servers.append(server)
            first = server.stdout.readline().strip()
            assert first.startswith("review: http://127.0.0.1:"), server.stderr.read()
            address, token = first.split(" ", 1)[1], first.rsplit("=", 1)[1]
            bases.append((address.split("/?")[0], token))
            assert "3 for two reviewers (double review)" in server.stderr.readline()

        def call(index, route, body=None):
            base, token = bases[index]
            request = urllib.request.Request(base + route, headers={"X-Triage-Token": token,
                                                                    "Content-Type": "application/json"},
                                             data=None if body is None else json.dumps(body).encode(),
                                             method="GET" if body is None else "POST")
            try:
                with urllib.request.urlopen(request, timeout=10) as response:
                    return response.status, json.load(response)
            except urllib.error.HTTPError as err:
                return err.code, json.load(err)

        assert call(0, "/api/state")[1]["reviewer"] == "ana" and call(1, "/api/state")[1]["lead"] is True
        mine, theirs = call(0, "/api/claim", {})[1]["current"], call(1, "/api/claim", {})[1]["current"]
        assert mine != theirs
        assert call(0, "/api/disputes")[0] == 403 and call(1, "/api/disputes") == (200, [])
    finally:
        for server in servers:
            server.send_signal(signal.SIGINT)
        for server in servers:
            server.communicate(timeout=20)
    assert all(server.returncode == 0 for server in servers)
