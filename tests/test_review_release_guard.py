"""No single request releases text a machine or a reviewer hid without naming what its preview
showed: learning a word as ordinary (the Words view's `w`) always asks, with how many hidden items
become readable and where."""

import pytest
from starlette.testclient import TestClient
from test_review_fast import write_corpus

from triage.review_workspace import Workspace, open_synced
from triage.review_workspace.server import Settings, create_app
from triage.review_workspace.workspace import NeedsConfirmation

TOKEN = "guard-token"
BASE = "http://127.0.0.1:8124"

MESSAGES = [
    ("m1", "Salut Julie on se voit demain", "EXPERT", [("Julie", "PRE")], ["Julie"], 0.40),
    ("m2", "Julie arrive ce soir avec Marc", "EXPERT", [("Julie", "PRE"), ("Marc", "PRE")], [], 0.90),
    ("m3", "dis a julie que oui", "EXPERT", [], ["julie"], 0.70),
]


@pytest.fixture
def path(tmp_path):
    corpus = write_corpus(tmp_path / "guard.csv", MESSAGES)
    workspace, _ = open_synced(corpus, tmp_path / "guard.review.sqlite", audit=0)
    workspace.close()
    return tmp_path / "guard.review.sqlite"


@pytest.fixture
def client(path, tmp_path):
    with Workspace.open(path) as workspace:
        app = create_app(workspace, Settings(token=TOKEN, port=8124, reviewer="ana", lexicon_dir=str(tmp_path / "lex")))
        with TestClient(app, base_url=BASE) as test_client:
            test_client.headers["X-Triage-Token"] = TOKEN
            yield test_client


def test_the_preview_of_an_ordinary_word_counts_the_hidden_items_it_makes_readable(client):
    preview = client.get("/api/preview", params={"spelling": "julie", "kind": "word"}).json()
    assert (preview["messages"], preview["readable"], preview["readable_messages"]) == (3, 2, 2)
    assert preview["summary"] == "shows 'julie' in 3 messages: 2 hidden items become readable in 2 messages"


def test_learning_an_ordinary_word_is_refused_unless_it_names_the_preview(client):
    for body in ({}, {"confirm": False}, {"confirm": True}):
        refused = client.post("/api/learn", json={"spelling": "julie", "kind": "word", "scope": "corpus", **body})
        assert refused.status_code == 409, body
        assert refused.json()["preview"]["readable"] == 2
        assert "2 hidden items become readable in 2 messages" in refused.json()["error"]
    stale = client.post("/api/learn", json={"spelling": "julie", "kind": "word", "scope": "corpus",
                                            "confirm": True, "digest": "0" * 64})
    assert stale.status_code == 409  # not what the preview showed
    assert client.get("/api/learnt").json() == []
    digest = client.get("/api/preview", params={"spelling": "julie", "kind": "word"}).json()["digest"]
    learnt = client.post("/api/learn", json={"spelling": "julie", "kind": "word", "scope": "corpus",
                                             "confirm": True, "digest": digest})
    assert learnt.status_code == 200
    assert [(e["spelling"], e["kind"]) for e in client.get("/api/learnt").json()] == [("julie", "word")]


def test_the_workspace_asks_the_same(path):
    with Workspace.open(path) as ws:
        with pytest.raises(NeedsConfirmation):
            ws.learn("julie", kind="word", scope="corpus", reviewer="ana", confirm=True)
        ws.learn("julie", kind="word", scope="corpus", reviewer="ana", confirm=True, digest=ws.word_digest("julie"))
        assert ws.item("m2").proposal == [[26, 30, "PRE"]]


def test_a_bulk_nta_preview_counts_the_hidden_items_it_makes_readable_by_kind(client):
    preview = client.get("/api/bulk", params={"action": "nta"}).json()
    assert (preview["total"], preview["readable"], preview["readable_messages"]) == (3, 3, 2)
    assert preview["readable_tags"] == {"PRE": 3}
    accept = client.get("/api/bulk", params={"action": "accept"}).json()
    assert (accept["readable"], accept["readable_tags"]) == (0, {})


def test_an_imported_nta_over_hidden_contact_details_is_refused_unless_allowed(cli, tmp_path):
    from conftest import failed, succeeded
    from test_release_datasheet import ANSWERS, fill, queued_corpus, queued_ids

    classified, ws, queue = queued_corpus(cli, tmp_path)
    queued = queued_ids(queue)
    with Workspace.open(ws) as opened:
        contact = {i: sorted({s[2] for s in opened.item(i).proposal if s[2] in {"TEL", "MEL", "ADR", "URL", "COD"}})
                   for i in queued}
    ident = next(i for i in sorted(queued) if contact[i])
    filled = fill(queue, {**ANSWERS, ident: ("NTA", "")})
    message = failed(cli("review", classified, "--workspace", ws, "--import-queue", filled, "--reviewer", "Marie"), 1,
                     f"{ident!r} (line", " ".join(contact[ident]), "--allow-release-of-hidden", "nothing was imported")
    assert len(message.strip().splitlines()) == 1
    with Workspace.open(ws) as opened:
        assert opened.progress()["decided"] == 0
    succeeded(cli("review", classified, "--workspace", ws, "--import-queue", filled, "--reviewer", "Marie",
                  "--allow-release-of-hidden"))
    with Workspace.open(ws) as opened:
        assert (opened.item(ident).label, opened.item(ident).spans) == ("NTA", [])
