"""The review server over HTTP: its JSON API and its security rules (token, Host, Origin, CSP)."""

import pytest
from conftest import write_queued
from starlette.testclient import TestClient

from triage.review_workspace import open_synced
from triage.review_workspace.server import CSP, Settings, create_app

TOKEN = "s3cret-token"
PORT = 8123
BASE = f"http://127.0.0.1:{PORT}"


@pytest.fixture
def client(workspace, tmp_path):
    app = create_app(workspace, Settings(token=TOKEN, port=PORT, reviewer="ana", lexicon_dir=str(tmp_path / "lex")))
    with TestClient(app, base_url=BASE) as test_client:
        yield test_client


def authorised(client):
    client.headers["X-Triage-Token"] = TOKEN
    return client


def test_the_start_address_sets_a_strict_cookie_and_the_page_then_loads(client):
    first = client.get(f"/?token={TOKEN}", follow_redirects=False)
    root = first.headers["location"]
    assert first.status_code == 303 and root.startswith("/") and root.endswith("/") and len(root) > 10
    cookie = first.headers["set-cookie"]
    assert "HttpOnly" in cookie and "SameSite=strict" in cookie and f"Path={root}" in cookie
    page = client.get(root)  # the cookie is sent back
    assert page.status_code == 200 and "<title>sms-triage review</title>" in page.text
    assert page.headers["content-security-policy"] == CSP
    assert page.headers["x-content-type-options"] == "nosniff"
    assert client.get(root + "static/review.js").status_code == 200
    assert client.get(root + "api/state").status_code == 200


@pytest.mark.parametrize("path", ["/", "/api/state", "/api/items", "/static/review.js"])
def test_no_token_no_page(client, path):
    response = client.get(path)
    assert response.status_code == 403 and "triage review" in response.text
    assert client.get(path, headers={"X-Triage-Token": "wrong"}).status_code == 403
    assert client.get("/?token=wrong").status_code == 403


def test_a_foreign_host_is_refused_even_with_the_token(client):
    # DNS rebinding: evil.example resolving to 127.0.0.1 still sends its own Host.
    response = authorised(client).get("/api/state", headers={"Host": f"evil.example:{PORT}"})
    assert response.status_code == 403
    assert authorised(client).get("/api/state", headers={"Host": f"localhost:{PORT}"}).status_code == 200


def test_a_cross_site_post_is_refused(client, workspace):
    item = workspace.items(limit=1)[0]
    response = authorised(client).post(f"/api/items/{item.id}/decision", json={"label": "NTA", "spans": []},
                                       headers={"Origin": "https://evil.example"})
    assert response.status_code == 403
    assert workspace.item(item.id).status == "pending"
    same = authorised(client).post(f"/api/items/{item.id}/decision", json={"label": "NTA", "spans": []},
                                   headers={"Origin": BASE})
    assert same.status_code == 200 and same.json()["status"] == "decided"


def test_state_items_and_paging(client, workspace):
    state = authorised(client).get("/api/state").json()
    assert state["progress"]["total"] == workspace.count() and state["current"] == workspace.items(limit=1)[0].id
    page = client.get("/api/items?offset=5&limit=3").json()
    assert page["total"] == workspace.count() and [i["rank"] for i in page["items"]] == [5, 6, 7]
    too_many = client.get("/api/items?limit=100000").json()
    assert len(too_many["items"]) <= 200
    one = client.get(f"/api/items/{page['items'][0]['id']}").json()
    assert one["neighbours"] and all({"id", "text", "position"} <= set(n) for n in one["neighbours"])
    assert client.get("/api/items/no-such-id").status_code == 404
    assert client.get("/api/items?offset=abc").status_code == 400


def test_decide_skip_undo_over_http(client, workspace):
    authorised(client)
    first, second = workspace.items(limit=2)
    decided = client.post(f"/api/items/{first.id}/decision", json={"label": "TA", "spans": [[0, 3, "PRE"]]}).json()
    assert decided["label"] == "TA" and decided["spans"] == [[0, 3, "PRE"]] and decided["reviewer"] == "ana"
    assert client.post(f"/api/items/{second.id}/skip").json()["status"] == "skipped"
    assert client.post("/api/undo").json()["id"] == second.id
    assert client.post("/api/undo").json()["id"] == first.id
    assert client.post("/api/undo").json() is None
    bad = client.post(f"/api/items/{first.id}/decision", json={"label": "TA", "spans": [[0, 9999, "PRE"]]})
    assert bad.status_code == 400 and "outside the message" in bad.json()["error"]
    assert client.post(f"/api/items/{first.id}/decision", content=b"not json").status_code == 400


def test_learning_a_frequent_word_answers_409_with_its_preview(client):
    authorised(client)
    refused = client.post("/api/learn", json={"spelling": "les", "kind": "name", "scope": "corpus"})
    assert refused.status_code == 409
    assert refused.json()["preview"]["summary"].startswith("hides 'les' in ")
    learnt = client.post("/api/learn", json={"spelling": "les", "kind": "name", "scope": "corpus", "confirm": True})
    assert learnt.status_code == 200
    entry = learnt.json()["id"]
    assert [e["spelling"] for e in client.get("/api/learnt").json()] == ["les"]
    assert client.delete(f"/api/learnt/{entry}").json()["active"] == 0
    assert client.get("/api/preview?spelling=juju&kind=name").json()["messages"] >= 1


def test_message_text_is_served_as_data_never_as_markup(tmp_path):
    hostile = '<script>alert("x")</script> <img src=x onerror=alert(1)> Kevin'
    path = write_queued(tmp_path / "c.csv", hostile, '["Kevin"]')
    opened, _ = open_synced(path, tmp_path / "ws.sqlite", audit=0)
    with opened, TestClient(create_app(opened, Settings(TOKEN, PORT, "ana")), base_url=BASE) as client:
        authorised(client)
        item = client.get("/api/items/1")
        assert item.headers["content-type"].startswith("application/json")
        assert item.json()["text"] == hostile  # the page inserts it with textContent (tested in the browser)
        page = client.get("/").text  # redirected to the page's secret path
        assert "<script src=\"static/review.js\" defer></script>" in page and "alert" not in page


def test_triage_review_prints_its_address_first_and_stops_cleanly_on_ctrl_c(classified, tmp_path):
    import json
    import signal
    import subprocess
    import sys
    import urllib.request

    command = [sys.executable, "-m", "triage", "review", str(classified), "--workspace", str(tmp_path / "ws.sqlite"),
               "--no-browser", "--audit", "3"]
    server = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        first = server.stdout.readline().strip()
        assert first.startswith("review: http://127.0.0.1:") and "?token=" in first
        address, token = first.split(" ", 1)[1], first.rsplit("=", 1)[1]
        base = address.split("/?")[0]
        request = urllib.request.Request(base + "/api/state", headers={"X-Triage-Token": token})
        with urllib.request.urlopen(request, timeout=10) as response:
            assert json.load(response)["progress"]["audit"] == 3
    finally:
        server.send_signal(signal.SIGINT)
        out, err = server.communicate(timeout=20)
    assert server.returncode == 0, err
    assert "review: stopped" in err


def test_a_busy_port_is_one_line(classified, tmp_path):
    from triage.review_workspace.server import bind

    taken = bind(0)
    try:
        from typer.testing import CliRunner

        from triage.cli import app

        result = CliRunner().invoke(app, ["review", str(classified), "--workspace", str(tmp_path / "ws.sqlite"),
                                          "--no-browser", "--port", str(taken.getsockname()[1])])
        assert result.exit_code == 1 and "choose another --port" in result.output
    finally:
        taken.close()


def test_a_decision_made_on_a_text_changed_since_is_refused_with_409_and_stores_nothing(tmp_path):
    import csv

    from conftest import CLASSIFIED_COLUMNS

    from triage.review_workspace.workspace import text_hash

    def write(texts):
        with open(tmp_path / "c.csv", "w", newline="", encoding="utf-8") as handle:
            writer = csv.writer(handle)
            writer.writerow(CLASSIFIED_COLUMNS)
            for rank, (ident, text) in enumerate(texts.items()):
                risk = str(0.9 - rank / 10)
                writer.writerow([ident, text, "UNTAGGED", "TA", "0.6", "EXPERT", text, "[]", "[]", risk])
        return tmp_path / "c.csv"

    same = {"3": "a demain", "4": "ok merci", "5": "bonne nuit"}  # most of the corpus stays as it was
    opened, _ = open_synced(write({"1": "salut Kevin", "2": "bisous Léa", **same}), tmp_path / "ws.sqlite", audit=0)
    with opened, TestClient(create_app(opened, Settings(TOKEN, PORT, "ana")), base_url=BASE) as client:
        authorised(client)
        shown = {ident: client.get(f"/api/items/{ident}").json() for ident in ("1", "2")}
        assert shown["1"]["text_hash"] == text_hash("salut Kevin")
        assert client.post("/api/items/2/decision", json={"label": "TA", "spans": [[7, 10, "PRE"]],
                                                          "text_hash": shown["2"]["text_hash"]}).status_code == 200
        # `classify --workspace` re-syncs a changed text while the page is open.
        opened.sync(write({"1": "🎉🎉 salut Kevin", "2": "🌹 bisous Léa", **same}), audit=0)
        for path, body in [("/api/items/1/decision", {"label": "TA", "spans": [[6, 11, "PRE"]]}),
                           ("/api/items/1/skip", {})]:
            refused = client.post(path, json={**body, "text_hash": shown["1"]["text_hash"]})
            assert refused.status_code == 409
            assert "changed since it was shown" in refused.json()["error"] and refused.json()["changed"] is True
        assert opened.history("1") == [] and opened.item("1").status == "pending"
        # Undo passes over the decision made on message 2's old text: nothing of it comes back.
        assert client.post("/api/undo").json() is None
        assert opened.item("2").status == "stale" and opened.item("2").spans is None
        again = client.get("/api/items/1").json()
        assert again["text"] == "🎉🎉 salut Kevin" and again["text_hash"] == text_hash(again["text"])
        decided = client.post("/api/items/1/decision", json={"label": "TA", "spans": [[9, 14, "PRE"]],
                                                             "text_hash": again["text_hash"]})
        assert decided.status_code == 200 and decided.json()["spans"] == [[9, 14, "PRE"]]
        assert client.post("/api/items/2/skip", json={"text_hash": "0" * 64}).status_code == 409


def test_nta_over_contact_details_the_machines_hid_needs_the_release_said(tmp_path):
    """The page asks before NTA releases a phone number the machines hid; the API refuses it unless the
    request says it releases it."""
    import csv
    import json

    from triage.schema import CLASSIFY_COLUMNS

    text = "rappelle moi au 06 12 34 56 78 stp"
    start = text.index("06")
    path = tmp_path / "queued.csv"
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(CLASSIFY_COLUMNS)
        writer.writerow(["1", text, "TA", "TA", "0.6", "EXPERT", text, json.dumps([[start, start + 14, "TEL"]]), "[]",
                         "0.5"])
    opened, _ = open_synced(path, tmp_path / "ws.sqlite")
    with opened:
        app = create_app(opened, Settings(token=TOKEN, port=PORT, reviewer="ana", lexicon_dir=str(tmp_path / "lex")))
        with TestClient(app, base_url=BASE) as test_client:
            client = authorised(test_client)
            item = opened.item("1")
            body = {"label": "NTA", "spans": [], "text_hash": item.text_hash}
            refused = client.post("/api/items/1/decision", json=body)
            assert refused.status_code == 409 and "1 contact detail the machines hid readable (TEL)" in refused.json()["error"]
            assert opened.item("1").status == "pending"
            released = client.post("/api/items/1/decision", json={**body, "release_contact": True})
            assert released.status_code == 200 and opened.item("1").label == "NTA"
