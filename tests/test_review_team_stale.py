"""A skip, the lead's adjudication, learning and unlearning a word name the state they were shown,
and are refused (409, one line; nothing stored) when someone changed it since. Two reviewers, each a
server of their own on one workspace file (as in test_review_team)."""

import pytest
from test_review_team import decide, disagree, item_of, team  # noqa: F401  (team: a fixture)

from triage.review_workspace import Workspace
from triage.review_workspace.workspace import Conflict


def one_line_409(answer, *pieces):
    assert answer.status_code == 409, answer.text
    error = answer.json()["error"]
    assert "\n" not in error and "nothing was" in error, error
    for piece in pieces:
        assert piece in error, error
    return answer.json()


# ---------------------------------------------------------------------------------------- skip


def test_a_skip_names_the_version_shown_and_is_refused_when_someone_acted_since(tmp_path):
    from test_review_team import write_corpus

    from triage.review_workspace import open_synced

    opened, _ = open_synced(write_corpus(tmp_path / "c.csv"), tmp_path / "c.review.sqlite", audit=0)
    with opened as ws:
        shown = ws.item("4")
        ws.skip("4", reviewer="bob")  # bob sets it aside after ana's page showed it
        with pytest.raises(Conflict, match="bob skipped it since"):
            ws.skip("4", reviewer="ana", text_hash=shown.text_hash, version=shown.version)
        ws.undo(reviewer="bob")  # back to pending, but not the state ana was shown
        with pytest.raises(Conflict, match="bob undid a decision on it since"):
            ws.skip("4", reviewer="ana", version=shown.version)
        assert [e["reviewer"] for e in ws.history("4")] == ["bob", "bob"]
        with pytest.raises(Exception, match="version must be"):
            ws.skip("4", reviewer="ana", version="3")
        assert ws.skip("4", reviewer="ana", version=ws.item("4").version).status == "skipped"


def test_a_skip_over_http_is_refused_when_another_reviewer_decided_or_skipped_since(team):  # noqa: F811
    _, path, reviewer = team
    ana, bob = reviewer("ana"), reviewer("bob")
    seen = item_of(ana, "5")  # ana's page shows message 5, pending
    assert bob.post("/api/items/5/skip", json={"version": item_of(bob, "5")["version"]}).status_code == 200
    body = one_line_409(ana.post("/api/items/5/skip", json={"text_hash": seen["text_hash"], "version": seen["version"]}),
                        "bob skipped it since", "nothing was skipped")
    assert body["conflict"]["kind"] == "changed" and body["conflict"]["reviewer"] == "bob"
    # bob then decides it: a skip never sets aside another reviewer's decision, whatever it names.
    assert decide(bob, "5", "TA", [[9, 17, "PRE"]]).status_code == 200
    now = item_of(ana, "5")
    one_line_409(ana.post("/api/items/5/skip", json={"version": now["version"]}), "bob")
    with Workspace.open(path) as ws:
        item = ws.item("5")
        assert (item.status, item.reviewer, item.spans) == ("decided", "bob", [[9, 17, "PRE"]])
        assert [e["reviewer"] for e in ws.history("5")] == ["bob", "bob"]


def test_a_skip_of_a_message_another_reviewer_holds_is_refused(team):  # noqa: F811
    _, _, reviewer = team
    ana, bob = reviewer("ana"), reviewer("bob")
    seen = item_of(ana, "1")
    held = bob.post("/api/claim", json={}).json()["current"]  # bob's page takes message 1
    assert held == "1"
    body = one_line_409(ana.post("/api/items/1/skip", json={"version": seen["version"]}), "bob")
    assert body["conflict"]["kind"] == "lease"
    assert item_of(ana, "1")["status"] == "pending"


# ------------------------------------------------------------------------------- adjudication


def test_an_adjudication_is_refused_when_a_reviewer_changed_their_blind_decision_since(team):  # noqa: F811
    _, path, reviewer = team
    first, _ = disagree(path, reviewer)  # ana hid Margaux in `first`, bob answered NTA
    lead, ana, bob = reviewer("lea", lead=True), reviewer("ana"), reviewer("bob")
    shown = lead.get("/api/disputes").json()[0]
    assert shown["item"]["id"] == first
    # bob takes his blind NTA back and hides Benoit instead: still a disagreement, not the one shown.
    with Workspace.open(path) as ws:
        ws.undo(reviewer="bob")  # his last: the other message's review
    assert bob.post("/api/undo").status_code == 200  # his review of `first`
    again = item_of(bob, first)
    last = [len(again["text"]) - len(again["text"].split()[-1]), len(again["text"]), "NOM"]
    assert decide(bob, first, "TA", [last]).status_code == 200
    assert item_of(lead, first)["status"] == "disputed" and again["version"] < item_of(lead, first)["version"]
    keep_bob = {"label": "NTA", "spans": [], "text_hash": shown["item"]["text_hash"],
                "version": shown["item"]["version"]}
    body = one_line_409(lead.post(f"/api/items/{first}/adjudicate", json=keep_bob), "bob reviewed it since",
                        "nothing was resolved")
    assert body["conflict"]["kind"] == "changed"
    with Workspace.open(path) as ws:
        item = ws.item(first)
        assert item.status == "disputed" and not [e for e in ws.history(first) if e["action"] == "adjudicate"]
        # The workspace refuses it too, whoever calls it.
        with pytest.raises(Conflict, match="since"):
            ws.adjudicate(first, label="NTA", spans=[], reviewer="lea", version=shown["item"]["version"])
    fresh = lead.get("/api/disputes").json()[0]
    assert [r["spans"] for r in fresh["reviews"]] == [[[7, 14, "PRE"]], [last]]
    done = lead.post(f"/api/items/{first}/adjudicate", json={**keep_bob, "label": "TA", "spans": [[7, 14, "PRE"], last],
                                                             "version": fresh["item"]["version"]})
    assert done.status_code == 200 and done.json()["reviewer"] == "lea"
    assert ana  # her server stays open meanwhile


def test_an_adjudication_is_refused_when_a_reviewer_undid_the_disagreement_away(team):  # noqa: F811
    _, path, reviewer = team
    first, _ = disagree(path, reviewer)
    lead, bob = reviewer("lea", lead=True), reviewer("bob")
    shown = lead.get("/api/disputes").json()[0]["item"]
    with Workspace.open(path) as ws:
        ws.undo(reviewer="bob")
        ws.undo(reviewer="bob")  # the disagreement is gone: ana's blind decision waits for a second reviewer
        assert ws.item(first).status == "pending"
    body = one_line_409(lead.post(f"/api/items/{first}/adjudicate",
                                  json={"label": "NTA", "spans": [], "text_hash": shown["text_hash"],
                                        "version": shown["version"]}), "bob undid")
    assert body["conflict"]["kind"] == "changed"
    assert item_of(bob, first)["status"] == "pending"


# ------------------------------------------------------------------------------------ learning


def test_learning_a_word_names_what_the_preview_showed_and_is_refused_when_it_changed(team):  # noqa: F811
    _, path, reviewer = team
    ana, bob = reviewer("ana"), reviewer("bob")
    preview = ana.get("/api/preview", params={"spelling": "chez", "kind": "word"}).json()
    assert preview["messages"] == 3 and len(preview["digest"]) == 64
    # bob decides one of the three messages: as many mentions, not the same state.
    assert decide(bob, "6", "TA", [[25, 32, "PRE"]]).status_code == 200
    body = one_line_409(ana.post("/api/learn", json={"spelling": "chez", "kind": "word", "scope": "corpus",
                                                     "digest": preview["digest"]}), "'chez' changed since it was shown",
                        "nothing was learnt")
    assert body["conflict"]["kind"] == "word"
    with Workspace.open(path) as ws:
        assert ws.learnt() == []
    fresh = ana.get("/api/preview", params={"spelling": "chez", "kind": "word"}).json()
    assert fresh["digest"] != preview["digest"]
    assert ana.post("/api/learn", json={"spelling": "chez", "kind": "word", "scope": "corpus", "confirm": True,
                                        "digest": fresh["digest"]}).status_code == 200


def test_learning_a_word_a_colleague_learnt_since_is_refused_and_keeps_theirs(team):  # noqa: F811
    _, path, reviewer = team
    ana, bob = reviewer("ana"), reviewer("bob")
    shown = ana.get("/api/preview", params={"spelling": "Rolande", "kind": "name"}).json()
    assert bob.post("/api/learn", json={"spelling": "rolande", "kind": "word", "scope": "corpus", "confirm": True,
                                        "digest": shown["digest"]}).status_code == 200
    refused = ana.post("/api/learn", json={"spelling": "Rolande", "kind": "name", "scope": "corpus", "tag": "PRE",
                                           "digest": shown["digest"]})
    body = one_line_409(refused, "'rolande' changed since it was shown")
    assert [e["reviewer"] for e in body["conflict"]["entries"]] == ["bob"]
    # Without a digest, replacing a colleague's entry is refused too.
    one_line_409(ana.post("/api/learn", json={"spelling": "Rolande", "kind": "name", "scope": "corpus"}),
                 "learnt by bob as an ordinary word")
    with Workspace.open(path) as ws:
        (entry,) = ws.learnt(active_only=True)
        assert (entry["reviewer"], entry["kind"]) == ("bob", "word")
        with pytest.raises(Conflict, match="changed since"):
            ws.learn("Rolande", kind="name", scope="corpus", reviewer="ana", digest=shown["digest"])


def test_the_words_view_gives_each_word_the_digest_learning_it_names(tmp_path, cli):
    from test_release_datasheet import queued_corpus

    classified, ws, _ = queued_corpus(cli, tmp_path)
    with Workspace.open(ws) as opened:
        groups = opened.candidates()
        assert groups, "the corpus has words to look at"
        group = groups[0]
        assert group["digest"] == opened.word_digest(group["spelling"]) == opened.preview(group["spelling"])["digest"]
        ident = group["examples"][0]["id"]
        opened.decide(ident, label="NTA", spans=[], reviewer="bob")
        with pytest.raises(Conflict):
            opened.learn(group["spelling"], kind="word", scope="corpus", reviewer="ana", digest=group["digest"])
        assert opened.learnt() == []
    assert classified


def test_unlearning_an_entry_someone_undid_or_replaced_since_is_a_409(team):  # noqa: F811
    _, path, reviewer = team
    ana, bob = reviewer("ana"), reviewer("bob")
    digest = ana.get("/api/preview", params={"spelling": "Lisette"}).json()["digest"]
    entry = ana.post("/api/learn", json={"spelling": "Lisette", "kind": "name", "scope": "corpus",
                                         "digest": digest}).json()
    assert bob.delete(f"/api/learnt/{entry['id']}").status_code == 200  # bob undoes it
    body = one_line_409(ana.delete(f"/api/learnt/{entry['id']}"), "already undone by bob")
    assert body["conflict"]["kind"] == "learnt"
    with Workspace.open(path) as ws:
        (row,) = ws.learnt()
        assert (row["active"], row["undone_by"]) == (0, "bob")


def test_unlearning_from_the_command_line_an_entry_undone_since_is_one_line(cli, tmp_path):
    from test_release_datasheet import queued_corpus

    classified, ws, _ = queued_corpus(cli, tmp_path)
    with Workspace.open(ws) as opened:
        entry = opened.learn("Lisette", kind="name", scope="corpus", reviewer="ana")
        opened.unlearn(entry["id"], reviewer="bob")
    result = cli("review", classified, "--workspace", ws, "--unlearn", str(entry["id"]), "--reviewer", "ana")
    assert result.exit_code == 1
    assert "already undone by bob" in result.output and len(result.output.strip().splitlines()) == 1


# ---------------------------------------------------------------------------------------- undo


def test_an_undo_names_the_action_the_page_showed_and_is_refused_when_another_page_acted_since(team):  # noqa: F811
    _, path, reviewer = team
    ana, ana_elsewhere = reviewer("ana"), reviewer("ana")  # two pages of hers
    assert decide(ana, "1", "NTA").status_code == 200
    shown = ana.get("/api/recent").json()[0]
    assert (shown["id"], shown["action"]) == ("1", "decide") and type(shown["seq"]) is int
    assert decide(ana_elsewhere, "2", "NTA").status_code == 200  # her other page decides meanwhile
    body = one_line_409(ana.post("/api/undo", json={"seq": shown["seq"]}), "no longer the one your page showed",
                        "nothing was undone")
    assert body["conflict"]["kind"] == "undo" and body["conflict"]["id"] == "2"
    with Workspace.open(path) as ws:
        assert ws.item("1").status == ws.item("2").status == "decided"
    fresh = ana.get("/api/recent").json()[0]
    assert ana.post("/api/undo", json={"seq": fresh["seq"]}).json()["id"] == "2"
    # The action the page showed was undone elsewhere since: refused too.
    last = ana.get("/api/recent").json()[0]
    assert ana_elsewhere.post("/api/undo").json()["id"] == "1"
    one_line_409(ana.post("/api/undo", json={"seq": last["seq"]}), "nothing was undone")
    assert ana.post("/api/undo", json={"seq": "7"}).status_code == 400
    assert ana.post("/api/undo").json() is None  # without `seq`, nothing left to undo is no error


def test_a_word_refused_for_your_lexicon_reaches_neither_the_workspace_nor_the_lexicon(team, tmp_path):  # noqa: F811
    from triage.lexicons import userlexicon

    _, path, _ = team
    lexicon = tmp_path / "lexicon"
    with Workspace.open(path) as ws:
        shown = ws.word_digest("Gaspard")
        ws.decide("10", label="TA", spans=[[0, 7, "PRE"]], reviewer="bob")  # a message holding it, decided since
        with pytest.raises(Conflict, match="changed since it was shown"):
            ws.learn("Gaspard", kind="name", scope="user", reviewer="ana", lexicon_dir=lexicon, digest=shown)
        assert ws.learnt() == []
    assert not any(userlexicon.read(lexicon / name) for name in (userlexicon.NAMES_FILE, userlexicon.WORDS_FILE))
