"""The review server against hostile or broken requests: never a 500, always one line of JSON.

Odd tokens, numbers past SQLite's 64-bit integers, huge spellings, lone surrogates, deep nesting,
arbitrary JSON bodies and query strings: each gets a 4xx with `{"error": "..."}` and the security
headers, and the workspace is left as it was."""

import json
from urllib.parse import quote

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from starlette.testclient import TestClient

from triage.review_workspace.server import CSP, Settings, create_app

TOKEN = "s3cret-token"
PORT = 8123
BASE = f"http://127.0.0.1:{PORT}"
SECURITY = {
    "content-security-policy": CSP, "x-frame-options": "DENY", "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer", "cache-control": "no-store",
}


@pytest.fixture
def client(workspace, tmp_path):
    app = create_app(workspace, Settings(token=TOKEN, port=PORT, reviewer="ana", lexicon_dir=str(tmp_path / "lex")))
    with TestClient(app, base_url=BASE, raise_server_exceptions=False) as test_client:
        test_client.headers["X-Triage-Token"] = TOKEN
        yield test_client


def one_line_error(response, *statuses):
    assert response.status_code in (statuses or (400,)), (response.status_code, response.text[:300])
    error = response.json()["error"]
    assert isinstance(error, str) and "\n" not in error and "Traceback" not in error and len(error) < 300
    for name, value in SECURITY.items():
        assert response.headers.get(name) == value, name
    return error


# --- tokens -------------------------------------------------------------------------------------

@pytest.mark.parametrize("token", ["é", "s3cret-tokén", "\u2603" * 40, "\x00", ""])
def test_an_odd_token_is_refused_not_a_crash(client, token):
    del client.headers["X-Triage-Token"]
    raw = token.encode("utf-8")
    assert client.get("/api/state", headers=[(b"X-Triage-Token", raw)]).status_code == 403
    assert client.get("/api/state", headers=[(b"Cookie", b"triage_token=" + raw)]).status_code == 403
    one_line_error(client.get(f"/?token={quote(token)}"), 403)
    one_line_error(client.get("/?token=%ff%fe"), 403)


# --- numbers, sizes, encodings ------------------------------------------------------------------

@pytest.mark.parametrize("offset", [str(2 ** 63), str(2 ** 64 + 1), "9" * 30, "9" * 5000, "-" + "9" * 30])
def test_an_offset_past_64_bits_is_a_400(client, offset):
    one_line_error(client.get(f"/api/items?offset={offset}"))
    one_line_error(client.get(f"/api/items?limit={offset}"))
    one_line_error(client.get(f"/api/candidates?limit={offset}"))


@pytest.mark.parametrize("entry", [str(2 ** 63), "9" * 40, "-" + str(2 ** 63 + 5)])
def test_a_learnt_entry_past_64_bits_is_a_400(client, entry):
    one_line_error(client.delete(f"/api/learnt/{entry}"))


def test_a_huge_spelling_is_a_400(client, workspace):
    spelling = "ab " * 20_000
    one_line_error(client.post("/api/learn", json={"spelling": spelling, "kind": "name", "scope": "corpus"}))
    one_line_error(client.get("/api/preview", params={"spelling": spelling}))
    one_line_error(client.get("/api/preview", params={"spelling": "x" * 60_000}))
    assert workspace.learnt() == []


def test_a_lone_surrogate_is_a_400(client, workspace):
    item = workspace.items(limit=1)[0]
    for body in (b'{"spelling": "\\ud800", "kind": "name", "scope": "corpus"}', b'{"spelling": "a\\udfff"}'):
        one_line_error(client.post("/api/learn", content=body))
    decision = f"/api/items/{item.id}/decision"
    one_line_error(client.post(decision, content=b'{"label": "TA", "spans": [[0, 1, "\\ud800"]]}'))
    one_line_error(client.post(f"/api/items/{item.id}/decision", content=b'{"label": "\\udbff"}'))
    assert workspace.item(item.id).status == "pending" and workspace.learnt() == []


@pytest.mark.parametrize("depth", [1_000, 100_000])
def test_a_deeply_nested_body_is_a_400(client, workspace, depth):
    item = workspace.items(limit=1)[0]
    body = b"[" * depth + b"]" * depth
    one_line_error(client.post("/api/learn", content=b'{"spelling": ' + body + b"}"))
    one_line_error(client.post(f"/api/items/{item.id}/decision", content=b'{"label": "TA", "spans": ' + body + b"}"))
    assert workspace.item(item.id).status == "pending"


def test_a_body_not_utf8_is_a_400(client):
    one_line_error(client.post("/api/learn", content=b'{"spelling": "\xff\xfe"}'))


# --- any JSON, any query string -----------------------------------------------------------------

ANY_TEXT = st.text(st.characters(exclude_categories=()))  # lone surrogates too
JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | ANY_TEXT,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(ANY_TEXT, children, max_size=4),
    max_leaves=12,
)
FIELDS = ("label", "spans", "spelling", "kind", "scope", "tag", "confirm")
BODIES = JSON | st.fixed_dictionaries({}, optional={field: ANY_TEXT | JSON for field in FIELDS})
POSTS = ("/api/items/{id}/decision", "/api/items/{id}/skip", "/api/undo", "/api/learn")
GETS = ("/", "/api/state", "/api/items", "/api/items/{id}", "/api/candidates", "/api/preview", "/api/learnt",
        "/api/audit", "/api/{id}", "/static/{id}", "/api/undo")
QUERY_KEYS = st.sampled_from(["offset", "limit", "kind", "status", "spelling", "token", "id"]) | st.text(max_size=6)
QUERY_VALUES = (st.integers().map(str) | st.text(max_size=30).map(lambda text: quote(text, safe=""))
                | st.sampled_from(["queue", "audit", "pending,decided", "name"])
                | st.binary(max_size=12).map(lambda raw: "".join(f"%{b:02x}" for b in raw)))


def _never_500(response):
    assert response.status_code < 500, (response.status_code, response.text[:300])
    if response.status_code >= 400:
        one_line_error(response, response.status_code)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(path=st.sampled_from(POSTS), body=BODIES, raw=st.booleans(), ident=st.sampled_from(["listed", "nope", "1/../2"]))
def test_any_json_at_any_post_endpoint_is_never_a_500(client, workspace, path, body, raw, ident):
    if ident == "listed":
        ident = workspace.items(limit=1)[0].id
    content = json.dumps(body, ensure_ascii=raw).encode("utf-8", "surrogatepass")
    _never_500(client.post(path.format(id=ident), content=content))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(path=st.sampled_from(GETS), query=st.lists(st.tuples(QUERY_KEYS, QUERY_VALUES), max_size=4),
       ident=st.text(min_size=1, max_size=10) | st.just("listed"))
def test_any_query_string_at_any_get_endpoint_is_never_a_500(client, workspace, path, query, ident):
    if ident == "listed":
        ident = workspace.items(limit=1)[0].id
    if path == "/" and any(key == "token" for key, _ in query):
        query = [(key, value) for key, value in query if key != "token"]
    string = "&".join(f"{quote(key)}={value}" for key, value in query)
    _never_500(client.get(path.format(id=quote(ident, safe="")) + "?" + string))


# --- request size: refused without reading it ---------------------------------------------------

def _call(app, *, method="POST", path="/api/learn", headers=(), chunks=()):
    """One request straight through the ASGI app; the body is pulled chunk by chunk from `chunks`
    and the bytes pulled are counted. Returns (status, headers, body, bytes pulled)."""
    import asyncio

    pulled = 0
    answer = {"body": b""}
    chunks = iter(chunks)

    async def receive():
        nonlocal pulled
        chunk = next(chunks, None)
        if chunk is None:
            return {"type": "http.request", "body": b"", "more_body": False}
        pulled += len(chunk)
        assert pulled <= 2 * 2 ** 20, "the server read far past its limit"
        return {"type": "http.request", "body": chunk, "more_body": True}

    async def send(message):
        if message["type"] == "http.response.start":
            answer["status"] = message["status"]
            answer["headers"] = {k.decode().lower(): v.decode() for k, v in message["headers"]}
        else:
            answer["body"] += message.get("body", b"")

    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": method, "scheme": "http",
             "path": path, "raw_path": path.encode(), "query_string": b"", "root_path": "",
             "client": ("127.0.0.1", 5000), "server": ("127.0.0.1", PORT),
             "headers": [(b"host", f"127.0.0.1:{PORT}".encode()), (b"x-triage-token", TOKEN.encode()),
                         *[(k.encode(), v.encode()) for k, v in headers]]}
    asyncio.run(app(scope, receive, send))
    return answer["status"], answer["headers"], answer["body"], pulled


@pytest.fixture
def app(workspace, tmp_path):
    return create_app(workspace, Settings(token=TOKEN, port=PORT, reviewer="ana", lexicon_dir=str(tmp_path / "lex")))


def _endless(size=64 * 1024):
    while True:
        yield b" " * size


def test_a_huge_declared_body_is_refused_before_any_byte_is_read(app):
    status, headers, body, pulled = _call(app, headers=[("content-length", str(200 * 2 ** 20))], chunks=_endless())
    assert status == 413 and pulled == 0
    assert "too large" in json.loads(body)["error"] and headers["content-security-policy"] == CSP


@pytest.mark.parametrize("path", ["/api/learn", "/api/undo", "/api/items/1/decision", "/api/items/1/skip"])
def test_a_chunked_body_is_read_no_further_than_the_limit(app, workspace, path):
    status, headers, body, pulled = _call(app, path=path, headers=[("transfer-encoding", "chunked")],
                                          chunks=_endless())
    if status != 413:  # an endpoint that never reads its body answers without pulling it at all
        assert pulled <= 2 ** 20 and status < 500
    else:
        assert 2 ** 20 < pulled <= 2 ** 20 + 64 * 1024
        assert "too large" in json.loads(body)["error"] and headers["x-frame-options"] == "DENY"
    assert workspace.learnt() == []


def test_a_body_under_the_limit_still_works(app, workspace):
    chunks = [b'{"spelling": "juju", ', b'"kind": "name", "scope": "corpus"}']
    status, _, body, _ = _call(app, chunks=chunks)
    assert status == 200 and json.loads(body)["spelling"] == "juju"


# --- an unexpected error: still one line of JSON and every security header ----------------------

def test_an_unexpected_error_is_a_500_with_one_line_and_the_security_headers(client, workspace, monkeypatch, capsys):
    def broken(*args, **kwargs):
        raise RuntimeError("boom\nsecond line")

    monkeypatch.setattr(type(workspace), "progress", broken)
    response = client.get("/api/state")
    assert one_line_error(response, 500) == "internal error in the review server (see its console)"
    assert "boom" not in response.text
    assert "RuntimeError: boom" in capsys.readouterr().err


# --- opening the browser: no token on a command line --------------------------------------------

def test_the_browser_is_given_a_private_page_never_the_token(workspace, monkeypatch):
    import asyncio
    import stat
    import webbrowser
    from pathlib import Path
    from urllib.parse import urlparse
    from urllib.request import url2pathname

    import uvicorn

    from triage.review_workspace import server

    opened, seen, printed = [], {}, []
    monkeypatch.setattr(webbrowser, "open", lambda url, *args, **kwargs: opened.append(url) or True)

    async def listening(self, sockets=None):  # uvicorn's own start-up, done
        pass

    def run(self, sockets=None):  # the server "runs": it starts, then look at the launcher page meanwhile
        asyncio.run(self.startup(sockets=sockets))  # the address is said and the browser opened once it listens
        page = Path(url2pathname(urlparse(opened[0]).path))
        seen.update(mode=stat.S_IMODE(page.stat().st_mode), folder=stat.S_IMODE(page.parent.stat().st_mode),
                    text=page.read_text(encoding="utf-8"), page=page)

    monkeypatch.setattr(uvicorn.Server, "startup", listening)
    monkeypatch.setattr(uvicorn.Server, "run", run)
    server.serve(workspace, reviewer="ana", announce=printed.append)
    address = printed[0].split(" ", 1)[1]
    token = address.rsplit("=", 1)[1]
    assert len(opened) == 1 and opened[0].startswith("file://") and token not in opened[0]
    assert seen["mode"] == 0o600 and seen["folder"] == 0o700
    assert f'content="0;url={address}"' in seen["text"]
    assert not seen["page"].exists() and not seen["page"].parent.exists()  # gone once the server stopped


# --- the token cookie: sent back to this server's secret path only ------------------------------

def test_the_token_cookie_never_reaches_another_local_server(workspace):
    from starlette.responses import PlainTextResponse

    settings = Settings(token=TOKEN, port=PORT, reviewer="ana")
    with TestClient(create_app(workspace, settings), base_url=BASE) as client:
        first = client.get(f"/?token={TOKEN}", follow_redirects=False)
        assert first.headers["location"] == settings.root and len(settings.base) >= 16
        attributes = [part.strip() for part in first.headers["set-cookie"].split(";")]
        assert f"Path={settings.root}" in attributes and "HttpOnly" in attributes and "SameSite=strict" in attributes
        assert client.get(settings.root + "api/state").status_code == 200  # the cookie alone is enough there
        assert client.get("/api/state").status_code == 403  # not sent outside the secret path (RFC 6265 5.1.4)
        received = []

        async def other_server(scope, receive, send):  # any other server of 127.0.0.1, another port
            received.append(dict(scope["headers"]).get(b"cookie"))
            await PlainTextResponse("hello")(scope, receive, send)

        other = TestClient(other_server, base_url="http://127.0.0.1:9")
        other.cookies = client.cookies  # one browser, one cookie jar (cookies ignore ports)
        for path in ("/", "/api/state", "/static/review.js", "/x/"):
            other.get(path)
        assert received and all(cookie is None for cookie in received)
        other.get(settings.root)  # the jar does send it across ports: only the secret path keeps it home
        assert received[-1] == f"triage_token={TOKEN}".encode()
    # Two servers never share their secret path.
    assert Settings(TOKEN, PORT, "ana").base != Settings(TOKEN, PORT, "ana").base


def test_the_cookie_is_not_honoured_outside_the_secret_path(workspace):
    settings = Settings(token=TOKEN, port=PORT, reviewer="ana")
    with TestClient(create_app(workspace, settings), base_url=BASE) as client:
        response = client.get("/api/state", headers={"Cookie": f"triage_token={TOKEN}"})
        assert response.status_code == 403
        assert client.get("/api/state", headers={"X-Triage-Token": TOKEN}).status_code == 200  # scripts


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(entry=st.text(min_size=1, max_size=40) | st.integers().map(str))
def test_any_learnt_entry_to_undo_is_never_a_500(client, entry):
    _never_500(client.delete(f"/api/learnt/{quote(entry, safe='')}"))


def test_a_real_server_answers_413_to_a_huge_declared_body_without_waiting_for_it(workspace):
    import socket
    import threading
    import time

    import uvicorn

    from triage.review_workspace.server import bind

    sock = bind(0)
    port = sock.getsockname()[1]
    app = create_app(workspace, Settings(token=TOKEN, port=port, reviewer="ana"))
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 10
        while not server.started and time.monotonic() < deadline:
            time.sleep(0.02)
        with socket.create_connection(("127.0.0.1", port), timeout=10) as connection:
            connection.sendall((f"POST /api/learn HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nX-Triage-Token: {TOKEN}\r\n"
                                f"Content-Type: application/json\r\nContent-Length: {200 * 2 ** 20}\r\n\r\n{{").encode())
            answer = ""  # no more of the body is ever sent: the answer must come without it
            while "too large" not in answer:
                chunk = connection.recv(65536).decode("latin-1")
                if not chunk:
                    break
                answer += chunk
        assert answer.startswith("HTTP/1.1 413") and "too large" in answer and "nosniff" in answer
    finally:
        server.should_exit = True
        thread.join(10)
        sock.close()


def test_the_server_answers_a_kept_alive_connection_at_once():
    """Answers are not held back for the browser's delayed acknowledgement (Nagle's algorithm off on
    the listening socket, inherited by each connection it accepts)."""
    import socket

    from triage.review_workspace.server import bind

    listening = bind(0)
    client = socket.create_connection(listening.getsockname())
    accepted, _ = listening.accept()
    try:
        assert listening.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY)
        assert accepted.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY)
    finally:
        for each in (accepted, client, listening):
            each.close()
