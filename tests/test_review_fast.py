"""Working fast in the review workspace, through the HTTP API: the list's search, filters and
orders, bulk decisions with their preview, the concordance of a spelling, and messages mostly in
another language. Invented messages only."""

import csv
import json
import time
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from triage.review_workspace import Workspace, open_synced
from triage.review_workspace.server import Settings, create_app
from triage.schema import CLASSIFY_COLUMNS

TOKEN = "fast-token"
PORT = 8124
BASE = f"http://127.0.0.1:{PORT}"

# (id, text, decision, hidden words as (word, tag), highlighted words, risk)
MESSAGES = [
    ("m1", "Salut Julie on se voit demain", "EXPERT", [("Julie", "PRE")], ["Julie"], 0.40),
    ("m2", "appelle Kevin au 0612345678 stp", "EXPERT", [("0612345678", "TEL")], ["Kevin"], 0.90),
    ("m3", "bisous a Rose et a Marius ce soir", "EXPERT", [], ["Rose", "Marius"], 0.70),
    ("m4", "la rose du jardin est belle, dis a Marius", "EXPERT", [], ["rose", "Marius"], 0.20),
    ("m5", "see you tomorrow at the meeting with the whole team", "EXPERT", [], ["meeting", "team"], 0.60),
    ("m6", "merci pour hier soir", "NTA", [], [], 0.95),
    ("m7", "Marius arrive a la gare", "TA", [("Marius", "PRE")], [], None),
]


def write_corpus(path: Path, messages=MESSAGES) -> Path:
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(CLASSIFY_COLUMNS)
        for ident, text, decision, hidden, highlighted, risk in messages:
            spans = [[text.index(word), text.index(word) + len(word), tag] for word, tag in hidden]
            writer.writerow([ident, text, "TA" if spans or highlighted else "NTA", "TA", "0.6", decision, text,
                             json.dumps(spans), json.dumps(highlighted), "" if risk is None else str(risk)])
    return path


@pytest.fixture
def small(tmp_path):
    path = write_corpus(tmp_path / "small.csv")
    workspace, _ = open_synced(path, tmp_path / "small.review.sqlite", audit=2, seed=1)
    with workspace:
        yield workspace


@pytest.fixture
def api(small):
    app = create_app(small, Settings(token=TOKEN, port=PORT, reviewer="ana"))
    with TestClient(app, base_url=BASE) as client:
        client.headers["X-Triage-Token"] = TOKEN
        yield client


def ids(response) -> list[str]:
    assert response.status_code == 200, response.text
    return [item["id"] for item in response.json()["items"]]


# ------------------------------------------------------------------ search, filters, orders


def test_the_list_is_searched_by_text_and_by_id(api):
    found = api.get("/api/items", params={"q": "marius"}).json()
    listed = {item["id"] for item in found["items"]}
    assert {"m3", "m4"} <= listed and "m1" not in listed and found["total"] == len(listed)
    assert ids(api.get("/api/items", params={"q": "m2"})) == ["m2"]
    assert ids(api.get("/api/items", params={"q": "100%_"})) == []  # LIKE's wildcards are plain characters


def test_the_list_is_filtered_by_status_route_tag_and_reviewer(api, small):
    item = small.item("m1")
    small.decide("m1", label="TA", spans=[[6, 11, "NOM"]], reviewer="ana", text_hash=item.text_hash)
    small.skip("m3", reviewer="bob")
    assert ids(api.get("/api/items", params={"status": "decided"})) == ["m1"]
    assert ids(api.get("/api/items", params={"status": "skipped"})) == ["m3"]
    assert set(ids(api.get("/api/items", params={"status": "pending", "kind": "queue"}))) == {"m2", "m4", "m5"}
    assert set(ids(api.get("/api/items", params={"kind": "audit"}))) == {"m6", "m7"}
    # The tag the message hides now: the reviewer's (NOM) once decided, the machines' before.
    assert ids(api.get("/api/items", params={"tag": "NOM"})) == ["m1"]
    assert ids(api.get("/api/items", params={"tag": "TEL"})) == ["m2"]
    assert set(ids(api.get("/api/items", params={"tag": "PRE"}))) == {"m7"}
    assert ids(api.get("/api/items", params={"reviewer": "bob"})) == ["m3"]
    assert api.get("/api/state").json()["reviewers"] == ["ana", "bob"]
    # Filters combine.
    assert ids(api.get("/api/items", params={"q": "Julie", "status": "pending"})) == []
    assert api.get("/api/items", params={"q": "marius", "kind": "audit"}).json()["total"] == 1


def test_the_list_is_sorted_by_risk_or_input_order(api):
    assert ids(api.get("/api/items"))[:5] == ["m2", "m3", "m5", "m1", "m4"]  # the queue, riskiest first
    assert ids(api.get("/api/items", params={"sort": "risk"})) == ["m6", "m2", "m3", "m5", "m1", "m4", "m7"]
    assert ids(api.get("/api/items", params={"sort": "input"})) == ["m1", "m2", "m3", "m4", "m5", "m6", "m7"]


@pytest.mark.parametrize("params", [{"status": "done"}, {"tag": "XYZ"}, {"sort": "alpha"}, {"kind": "all"},
                                    {"q": "x" * 500}])
def test_a_wrong_filter_is_one_clear_line(api, params):
    response = api.get("/api/items", params=params)
    assert response.status_code == 400
    assert "\n" not in response.json()["error"] and response.json()["error"]


def test_a_filtered_list_stays_fast_on_a_large_workspace(tmp_path):
    """20,000 listed messages of 100,000: a filtered, sorted page and its count in under 50 ms."""
    import random

    rng = random.Random(3)
    words = "salut demain soir chez moi avec les enfants merci pour hier rdv gare bisous".split()
    rows = []
    for n in range(100_000):
        text = " ".join(rng.choices(words, k=8)) + f" Prenom{n % 997}"
        rows.append((f"x{n}", text, "EXPERT" if n % 5 == 0 else "NTA", [], [f"Prenom{n % 997}"] if n % 5 == 0 else [],
                     rng.random() if n % 5 == 0 else None))
    path = write_corpus(tmp_path / "big.csv", rows)
    from triage.review_workspace.workspace import Workspace as W, text_hash

    ws = W.open(tmp_path / "big.sqlite", create=True)

    class NoSeeker:  # the reasons are not what is measured here
        def __getattr__(self, name):
            raise AttributeError(name)

    import triage.review_workspace.store.loading as module

    original = module.reasons, module.label_words
    module.reasons, module.label_words = (lambda row, seeker, *given: {}), (lambda spotted, seeker: None)
    try:
        ws.sync(path, audit=200, seeker=NoSeeker())
    finally:
        module.reasons, module.label_words = original
    with ws:
        texts = {row[0]: row[1] for row in rows}
        for n in range(0, 20_000, 7):
            ident = f"x{n * 5}"
            ws._db.execute("INSERT INTO decisions VALUES (?,?,?,?,?,?,?)",
                           (ident, text_hash(texts[ident]), "decided", "NTA", "[]", "bob" if n % 2 else "ana",
                            "2026-01-01"))
        queries = [dict(kind="queue", status="pending", text="Prenom42", sort="risk"),
                   dict(reviewer="bob", sort="input"), dict(status="decided", tag="PRE", sort="risk"),
                   dict(text="Prenom99", kind="audit", status="pending")]
        for query in queries:
            sort = query.pop("sort", "rank")
            best = min(_timed(lambda query=query, sort=sort: ws.page(**query, sort=sort, limit=50)) for _ in range(3))
            assert best < 0.05, (query, best)


def _timed(call) -> float:
    """The processor time of a call (the test machine's other work left out)."""
    start = time.process_time()
    call()
    return time.process_time() - start


def _search_index_holds_the_texts(workspace) -> bool:
    """SQLite's own check of the search index against the messages' texts."""
    import sqlite3

    try:
        workspace._db.execute("INSERT INTO message_search(message_search, rank) VALUES ('integrity-check', 1)")
    except sqlite3.DatabaseError:
        return False
    return True


def test_the_search_follows_the_texts_when_a_corpus_is_classified_again(tmp_path):
    """Classified again with the same texts in the same order, the workspace keeps its search index
    as it is; a text changed, or a message added before others, and the index follows the texts."""
    path = write_corpus(tmp_path / "small.csv")
    workspace, _ = open_synced(path, tmp_path / "small.review.sqlite", audit=2, seed=1)

    def found(piece: str) -> list[str]:
        return sorted(item.id for item in workspace.items(text=piece, limit=100))

    with workspace:
        marius = found("marius")
        assert {"m3", "m4"} <= set(marius)
        workspace.sync(path, audit=2, seed=1)
        assert _search_index_holds_the_texts(workspace) and found("marius") == marius
        # The same ids and order, one text changed.
        changed = [(i, t.replace("Marius", "Zorbu") if i == "m3" else t, *rest) for i, t, *rest in MESSAGES]
        workspace.sync(write_corpus(tmp_path / "changed.csv", changed), audit=2, seed=1)
        assert _search_index_holds_the_texts(workspace)
        assert found("marius") == [i for i in marius if i != "m3"] and found("zorbu") == ["m3"]
        # A message before the others: every later message moves to the next row.
        added = [("m0", "Ginette passe ce soir", "EXPERT", [], ["Ginette"], 0.5), *changed]
        workspace.sync(write_corpus(tmp_path / "added.csv", added), audit=2, seed=1)
        assert _search_index_holds_the_texts(workspace)
        assert found("ginette") == ["m0"] and found("zorbu") == ["m3"]


def _message_rows(workspace) -> list[tuple]:
    return workspace._db.execute("SELECT rowid, * FROM messages ORDER BY rowid").fetchall()


def test_a_corpus_classified_again_holds_the_messages_a_new_workspace_would(tmp_path):
    """Classified again with the same ids and texts in the same order, the workspace writes only the
    rows whose classification changed: its messages are then those of a new workspace made from that
    classification, and its search index still holds the texts."""
    path = write_corpus(tmp_path / "small.csv")
    workspace, _ = open_synced(path, tmp_path / "kept.sqlite", audit=2, seed=1)
    # Another classification of the same messages: other decisions, spans, highlighted words and risks.
    other = [(ident, text, "TA" if decision == "EXPERT" and ident != "m1" else decision,
              [] if ident == "m2" else hidden, highlighted[:1], None if risk is None else risk / 2)
             for ident, text, decision, hidden, highlighted, risk in MESSAGES]
    reclassified = write_corpus(tmp_path / "other.csv", other)
    fresh, _ = open_synced(reclassified, tmp_path / "fresh.sqlite", audit=2, seed=1)
    with workspace, fresh:
        before = _message_rows(workspace)
        workspace.sync(reclassified, audit=2, seed=1)
        assert _message_rows(workspace) == _message_rows(fresh) != before
        assert _search_index_holds_the_texts(workspace)
        workspace.sync(path, audit=2, seed=1)  # and back
        assert _message_rows(workspace) == before


@pytest.mark.parametrize("released, audit", [(0, 5), (7, 3), (7, 20), (300, 40), (5000, 200)])
def test_the_audit_sample_is_the_seeded_sample_of_the_released_ids(released, audit):
    """Drawn by position, its ids then read by SQL, the audit sample is what random.sample draws from
    the list of every released id in corpus order, for the same seed."""
    import random
    import sqlite3

    from triage.review_workspace.store.loading import _released_sample

    db = sqlite3.connect(":memory:")
    db.execute("CREATE TEMP TABLE staged (id TEXT, position INTEGER PRIMARY KEY, decision TEXT)")
    rng = random.Random(7)
    rows, ids = [], []
    for position in range(released * 2):  # about one row in two goes to a person
        expert = rng.random() < 0.5 and len(ids) < released or len(ids) == released
        rows.append((f"m{position}", position, "EXPERT" if expert else "NTA"))
        if not expert:
            ids.append(f"m{position}")
    db.executemany("INSERT INTO temp.staged VALUES (?,?,?)", rows)
    for seed in (0, 1, 42):
        expected = random.Random(seed).sample(ids, min(audit, len(ids)))
        assert _released_sample(db, random.Random(seed), audit) == expected


def test_a_workspace_made_before_the_list_index_gets_it_on_opening_and_filters_alike(tmp_path):
    path = write_corpus(tmp_path / "small.csv")
    workspace, _ = open_synced(path, tmp_path / "old.sqlite", audit=2, seed=1)
    expected = [item.id for item in workspace.items(text="marius", sort="risk")]
    with workspace:
        workspace._db.execute("DROP TABLE listing")
        workspace._db.execute("DROP TABLE message_search")
    with Workspace.open(tmp_path / "old.sqlite") as reopened:
        assert reopened._listed and reopened._searchable
        assert [item.id for item in reopened.items(text="marius", sort="risk")] == expected
        # Without them (a read-only file cannot get them): the same answers, from the messages.
        reopened._listed = reopened._searchable = False
        assert [item.id for item in reopened.items(text="marius", sort="risk")] == expected
        assert reopened.count(tag="TEL") == 1 and reopened.count(text="ju") == 1


# ------------------------------------------------------------------ bulk decisions


def test_a_bulk_decision_is_previewed_then_stored_as_decisions_and_undone_whole(api, small):
    small.decide("m1", label="NTA", spans=[], reviewer="ana")
    preview = api.get("/api/bulk", params={"action": "accept", "kind": "queue"}).json()
    # m1 (decided NTA by ana herself, the machines hide Julie) changes; the four others are decided anew.
    assert (preview["total"], preview["new"], preview["changed"], preview["unchanged"]) == (5, 4, 1, 0)
    example = next(e for e in preview["examples"] if e["id"] == "m2")
    assert example["before"] is None and example["after"]["label"] == "TA"
    assert example["after"]["spans"] == [[17, 27, "TEL"]]
    nothing = [e for e in preview["examples"] if e["id"] == "m3"][0]
    assert nothing["after"] == {"label": "NTA", "spans": []}
    assert small.count(status="decided") == 1  # a preview changes nothing

    # A count that is not the preview's, or no digest of what it showed: refused, nothing decided.
    stale = api.post("/api/bulk", json={"action": "accept", "expected": 4, "digest": preview["digest"],
                                        "filters": {"kind": "queue"}})
    assert stale.status_code == 409 and small.count(status="decided") == 1
    unnamed = api.post("/api/bulk", json={"action": "accept", "expected": 5, "filters": {"kind": "queue"}})
    assert unnamed.status_code == 400 and "digest" in unnamed.json()["error"] and small.count(status="decided") == 1

    done = api.post("/api/bulk", json={"action": "accept", "expected": 5, "digest": preview["digest"],
                                       "filters": {"kind": "queue"}}).json()
    assert done["decided"] == 5
    assert {i.id: (i.label, i.reviewer) for i in small.items(kind="queue")} == {
        "m1": ("TA", "ana"), "m2": ("TA", "ana"), "m3": ("NTA", "ana"), "m4": ("NTA", "ana"), "m5": ("NTA", "ana")}
    assert small.item("m1").spans == [[6, 11, "PRE"]]

    # One undo takes the bulk decision back whole: m1 is NTA again, the others pending.
    undone = api.post("/api/undo").json()
    assert undone["undone"] == 5
    assert (small.item("m1").label, small.item("m1").spans) == ("NTA", [])
    assert small.count(kind="queue", status="pending") == 4
    assert [e["action"] for e in small.history("m2")] == ["decide", "undo"]


def test_a_bulk_decision_leaves_another_reviewers_work_alone(api, small):
    small.decide("m1", label="NTA", spans=[], reviewer="bob")  # bob's decision
    small.lease("m2", "carl", seconds=300)  # carl is looking at m2
    preview = api.get("/api/bulk", params={"action": "accept", "kind": "queue"}).json()
    assert (preview["total"], preview["new"], preview["changed"], preview["held"]) == (5, 3, 0, 2)
    done = api.post("/api/bulk", json={"action": "accept", "digest": preview["digest"],
                                       "filters": {"kind": "queue"}}).json()
    assert (done["decided"], done["held"]) == (3, 2)
    assert (small.item("m1").label, small.item("m1").reviewer) == ("NTA", "bob")
    assert small.item("m2").status == "pending"
    marks = [{"id": "m1", "start": 6, "end": 11, "as": "name", "text_hash": small.item("m1").text_hash}]
    assert small.decide_occurrences(marks, reviewer="ana")["held"] == 1
    assert (small.item("m1").label, small.item("m1").reviewer) == ("NTA", "bob")


def test_a_bulk_nta_on_a_search_decides_only_what_was_found(api, small):
    preview = api.get("/api/bulk", params={"action": "nta", "q": "tomorrow"}).json()
    assert preview["total"] == 1 and preview["examples"][0]["id"] == "m5"
    api.post("/api/bulk", json={"action": "nta", "expected": 1, "digest": preview["digest"],
                                "filters": {"q": "tomorrow"}}).raise_for_status()
    assert [i.id for i in small.items(status="decided")] == ["m5"]
    bad = api.post("/api/bulk", json={"action": "hide", "expected": 1, "digest": preview["digest"], "filters": {}})
    assert bad.status_code == 400 and "action" in bad.json()["error"]


# ------------------------------------------------------------------ concordance


def test_the_concordance_lists_every_occurrence_with_its_context(api):
    found = api.get("/api/concordance", params={"spelling": "Marius"}).json()
    assert found["messages"] == 3
    rows = {(o["id"], o["before"], o["match"], o["after"], o["listed"], o["hidden"]) for o in found["occurrences"]}
    assert rows == {("m3", "bisous a Rose et a ", "Marius", " ce soir", True, False),
                    ("m4", "la rose du jardin est belle, dis a ", "Marius", "", True, False),
                    ("m7", "", "Marius", " arrive a la gare", True, True)}
    assert api.get("/api/concordance", params={"spelling": " "}).status_code == 400


def test_homonyms_are_decided_one_occurrence_at_a_time(api, small):
    found = api.get("/api/concordance", params={"spelling": "rose"}).json()
    occurrences = {o["id"]: o for o in found["occurrences"]}
    assert set(occurrences) == {"m3", "m4"}  # Rose (a name) and la rose (a flower)
    marks = [{"id": "m3", "start": occurrences["m3"]["start"], "end": occurrences["m3"]["end"], "as": "name",
              "text_hash": occurrences["m3"]["text_hash"]},
             {"id": "m4", "start": occurrences["m4"]["start"], "end": occurrences["m4"]["end"], "as": "word",
              "text_hash": occurrences["m4"]["text_hash"]}]
    done = api.post("/api/concordance", json={"marks": marks, "tag": "PRE"}).json()
    assert done == {**done, "decided": 2, "messages": 2}
    assert small.item("m3").label == "TA" and small.item("m3").spans == [[9, 13, "PRE"]]
    assert small.item("m4").label == "NTA" and small.item("m4").spans == []
    again = {o["id"]: o["hidden"] for o in api.get("/api/concordance", params={"spelling": "rose"}).json()["occurrences"]}
    assert again == {"m3": True, "m4": False}
    assert api.post("/api/undo").json()["undone"] == 2
    assert small.count(status="decided") == 0
    # A mark on a text changed since: nothing stored.
    marks[0]["text_hash"] = "0" * 64
    assert api.post("/api/concordance", json={"marks": marks}).status_code == 409
    assert small.count(status="decided") == 0
    assert api.post("/api/concordance", json={"marks": [{"id": "m3"}]}).status_code == 400


def test_occurrences_outside_the_review_list_say_what_the_release_hides(tmp_path):
    """Outside the review list (released by the machines), an occurrence is hidden when the machines
    hid it, or a name learnt for the corpus hides it: never reported readable when the release hides it."""
    messages = [*MESSAGES, ("m8", "Gaspard et Marius sont la", "NTA", [], [], 0.10)]
    workspace, _ = open_synced(write_corpus(tmp_path / "small.csv", messages), tmp_path / "ws.sqlite", audit=0)
    with workspace:
        found = {o["id"]: o for o in workspace.concordance("Marius")["occurrences"]}
        assert not found["m7"]["listed"] and found["m7"]["hidden"] and found["m7"]["tag"] == "PRE"
        assert not found["m8"]["listed"] and not found["m8"]["hidden"]  # the machines left it readable
        assert workspace.concordance("Marius")["outside"] == 2
        workspace.learn("Gaspard", kind="name", scope="corpus", reviewer="ana")
        gaspard = workspace.concordance("Gaspard")["occurrences"]
        assert [(o["id"], o["listed"], o["hidden"]) for o in gaspard] == [("m8", False, True)]
        released = {row.id: row for row in workspace.final()}
        for o in [*found.values(), *gaspard]:  # the concordance says what the release does
            row = released[o["id"]]
            assert o["hidden"] == any(a < o["end"] and b > o["start"] for a, b, _ in row.spans), o


# ------------------------------------------------------------------ another language


@pytest.mark.parametrize("text, foreign", [
    ("see you tomorrow at the meeting with the whole team", True),
    ("thanks for the pizza last night Karim", True),
    ("Salut Julie on se voit demain", False),
    ("jsui a la gar tkt je tapel", False),
    ("tu as vu le match hier soir avec Hugo", False),
    ("ok", False),  # too short to say
])
def test_a_message_mostly_in_another_language_is_flagged(text, foreign):
    from triage import lexicons
    from triage.seekhide.language import language

    assert language(text, lexicons.default())["foreign"] is foreign


def test_the_item_says_whether_it_is_mostly_in_another_language(api):
    assert api.get("/api/items/m5").json()["language"]["foreign"] is True
    found = api.get("/api/items/m1").json()["language"]
    assert found["foreign"] is False and found["french_share"] > 0.5
