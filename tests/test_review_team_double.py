"""Double review as a team meets it: a second reviewer is given a message another reviewer decided
blind at their next message (in list order, riskiest first), not after the whole list; the list's
filter finds the messages marked for double review, waiting for their second reviewer, decided by
both, or in disagreement; the lead sees the two decisions in the reviewers' name order."""

from test_review_team import decide, item_of
from test_review_team import team  # noqa: F401  (a fixture)

from triage.review_workspace import Workspace


def ranked_double(path, share):
    with Workspace.open(path) as ws:
        ws.mark_double(share)
        return sorted(ws.double_ids(), key=lambda i: ws.item(i).rank)


def ranks(path):
    with Workspace.open(path) as ws:
        return {item.id: item.rank for item in ws.items(limit=100)}


def test_a_second_reviewer_is_given_a_message_decided_blind_at_their_next_message(team):
    _, path, reviewer = team
    first, second = ranked_double(path, 0.2)
    rank = ranks(path)
    last = max(rank.values())
    ana, bob = reviewer("ana"), reviewer("bob")
    # ana decides both double messages blind, the riskier one last
    decide(ana, second, "TA", [[0, 3, "PRE"]])
    decide(ana, first, "NTA")
    # bob is near the end of the list: the next message he is given is the riskiest one waiting for him
    assert bob.post("/api/claim", json={"after_rank": last - 1}).json()["current"] == first
    assert bob.get("/api/state").json()["current"] == first
    decide(bob, first, "NTA")
    assert bob.post("/api/claim", json={"after_rank": last - 1}).json()["current"] == second
    decide(bob, second, "TA", [[0, 3, "PRE"]])
    # both decided alike: nothing waits any more, bob goes on after where he was
    assert bob.post("/api/claim", json={"after_rank": last - 1}).json()["current"] not in (first, second)
    with Workspace.open(path) as ws:
        assert ws.item(first).status == ws.item(second).status == "decided"
        assert ws.item(second).reviewer == "ana + bob"


def test_the_reviewer_who_decided_it_is_not_given_it_again_and_another_holding_it_keeps_it(team):
    _, path, reviewer = team
    (ident,) = ranked_double(path, 0.1)
    ana, bob, carla = reviewer("ana"), reviewer("bob"), reviewer("carla")
    decide(ana, ident, "NTA")
    assert ana.post("/api/claim", json={}).json()["current"] != ident  # ana waits for someone else
    assert carla.post("/api/claim", json={}).json()["current"] == ident  # carla holds it now
    assert bob.post("/api/claim", json={}).json()["current"] != ident  # never given to two at once


def test_a_waiting_message_the_reviewer_skipped_comes_back_with_their_skipped_ones(team):
    _, path, reviewer = team
    (ident,) = ranked_double(path, 0.1)
    ana, bob = reviewer("ana"), reviewer("bob")
    decide(ana, ident, "NTA")
    item = item_of(bob, ident)
    assert bob.post(f"/api/items/{ident}/skip", json={"version": item["version"]}).status_code == 200
    following = bob.post("/api/claim", json={}).json()["current"]
    assert following != ident
    with Workspace.open(path) as ws:  # once bob has no other message, his skipped one comes back
        for other in ws.items(limit=100):
            if other.id != ident:
                ws._db.execute("DELETE FROM leases")
                if other.status == "pending":
                    ws.decide(other.id, label="NTA", spans=[], reviewer="bob")
    assert bob.post("/api/claim", json={}).json()["current"] == ident


def listed(client, **filters):
    query = "&".join(f"{k}={v}" for k, v in filters.items())
    answer = client.get(f"/api/items?limit=100&{query}")
    assert answer.status_code == 200, answer.text
    return [i["id"] for i in answer.json()["items"]]


def test_the_double_review_filter_finds_each_stage(team):
    _, path, reviewer = team
    marked = ranked_double(path, 0.3)
    waiting, agreed, disputed = marked
    ana, bob = reviewer("ana"), reviewer("bob")
    decide(ana, waiting, "NTA")
    decide(ana, agreed, "NTA")
    decide(bob, agreed, "NTA")
    decide(ana, disputed, "TA", [[0, 3, "PRE"]])
    decide(bob, disputed, "NTA")
    assert listed(bob, double="marked") == marked
    assert listed(bob, double="waiting") == [waiting]
    assert listed(bob, double="both") == [agreed, disputed]
    assert listed(bob, double="disputed") == [disputed]
    assert listed(bob, double="waiting", status="decided") == []  # with the other filters
    assert bob.get("/api/items?double=waiting").json()["total"] == 1
    # a bulk decision over the filter holds the messages the team decides in the page
    preview = bob.get("/api/bulk?action=nta&double=marked").json()
    assert preview["total"] == 3 and preview["held"] == 3
    refused = bob.get("/api/items?double=twice")
    assert refused.status_code == 400
    assert refused.json()["error"] == ("unknown double-review filter 'twice'; use one of marked, waiting, both, "
                                       "disputed")


def test_the_lead_sees_the_two_decisions_in_the_reviewers_name_order(team):
    _, path, reviewer = team
    (ident,) = ranked_double(path, 0.1)
    zoe, bob = reviewer("zoe"), reviewer("bob")
    decide(zoe, ident, "TA", [[0, 3, "PRE"]])  # zoe first
    decide(bob, ident, "NTA")
    lead = reviewer("lea", lead=True)
    (dispute,) = lead.get("/api/disputes").json()
    assert [r["reviewer"] for r in dispute["reviews"]] == ["bob", "zoe"]
