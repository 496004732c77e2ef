"""A team on several computers: the lead's server on another address than 127.0.0.1 (--host), a
personal link per colleague (--invite, --revoke) whose token names the reviewer, adjudication by
the lead's token only, TLS from the team's certificate, and leases freed when the server stops.

Each colleague here is a client of the one server (the lead's), holding their own link's token."""

import hashlib
import http.client
import json
import re
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import time
import urllib.error
import urllib.request

import pytest
from starlette.testclient import TestClient
from test_review_team import decide, item_of, write_corpus

from triage.review_workspace import Workspace, open_synced
from triage.review_workspace.server import BackgroundServer, Settings, create_app

PORT = 8125
BASE = f"http://127.0.0.1:{PORT}"
LEAD_TOKEN = "lead-session-token"


@pytest.fixture
def shared(tmp_path):
    """A workspace of ten queued messages, served by the lead (lea, --lead) to invited colleagues;
    `client(token)` is a browser of whoever holds that token."""
    classified = write_corpus(tmp_path / "team.csv")
    path = tmp_path / "team.review.sqlite"
    opened, _ = open_synced(classified, path, audit=0)
    app = create_app(opened, Settings(token=LEAD_TOKEN, port=PORT, reviewer="lea", lead=True))
    clients = []

    def client(token):
        made = TestClient(app, base_url=BASE)
        made.headers["X-Triage-Token"] = token
        clients.append(made)
        return made

    yield opened, client, classified
    opened.close()


def dispute(workspace, first="ana", second="bob"):
    """A message two reviewers decided blind, differently: the lead resolves it."""
    workspace.mark_double(0.1)
    (ident,) = workspace.double_ids()
    word = workspace.item(ident).text.split()[0]
    workspace.decide(ident, label="TA", spans=[[0, len(word), "PRE"]], reviewer=first)
    workspace.decide(ident, label="NTA", spans=[], reviewer=second)
    assert workspace.item(ident).status == "disputed"
    return ident


def test_a_link_names_its_reviewer_whatever_the_server_was_started_as(shared):
    workspace, client, _ = shared
    ana = client(workspace.invite("ana"))
    state = ana.get("/api/state").json()
    assert (state["reviewer"], state["lead"]) == ("ana", False)
    ident = state["current"]
    decided = decide(ana, ident, "TA", [[0, 3, "PRE"]])
    assert decided.status_code == 200 and decided.json()["reviewer"] == "ana"
    assert [e["reviewer"] for e in workspace.history(ident)] == ["ana"]
    assert client(LEAD_TOKEN).get("/api/state").json()["reviewer"] == "lea"


def test_a_colleagues_token_cannot_act_as_the_lead(shared):
    workspace, client, _ = shared
    ident = dispute(workspace)
    ana, lead = client(workspace.invite("ana")), client(LEAD_TOKEN)
    item = item_of(lead, ident)
    body = {"label": "NTA", "spans": [], "text_hash": item["text_hash"], "version": item["version"]}
    for refused in (ana.get("/api/disputes"), ana.post(f"/api/items/{ident}/adjudicate", json=body)):
        assert refused.status_code == 403
        assert refused.json()["error"] == "refused: only the lead reviewer's link resolves disagreements, not ana's"
    # Nor by deciding the disputed message as an ordinary decision: it waits for the lead.
    assert decide(ana, ident).status_code == 409
    assert workspace.item(ident).status == "disputed"
    assert [d["item"]["id"] for d in lead.get("/api/disputes").json()] == [ident]
    resolved = lead.post(f"/api/items/{ident}/adjudicate", json=body)
    assert resolved.status_code == 200 and resolved.json()["reviewer"] == "lea"
    assert workspace.item(ident).status == "decided"


def test_a_revoked_link_is_refused_at_once_and_a_new_one_replaces_the_old(shared):
    workspace, client, _ = shared
    first = workspace.invite("ana")
    ana = client(first)
    assert ana.get("/api/state").status_code == 200
    assert workspace.revoke("ana") is True
    for refused in (ana.get("/api/state"), ana.get(f"/?token={first}", follow_redirects=False)):
        assert refused.status_code == 403 and "revoked" in refused.json()["error"]
    assert workspace.revoke("ana") is False  # nothing left to revoke
    again = workspace.invite("ana")
    assert client(again).get("/api/state").json()["reviewer"] == "ana"
    workspace.invite("ana")  # a new link for ana: the one before no longer opens the page
    assert client(again).get("/api/state").status_code == 403


def test_revoking_a_link_frees_the_message_its_reviewer_held(shared):
    workspace, client, _ = shared
    ana = client(workspace.invite("ana"))
    held = ana.post("/api/claim", json={}).json()["current"]
    assert workspace.lease_of(held)["reviewer"] == "ana"
    workspace.revoke("ana")
    assert workspace.lease_of(held) is None


def test_a_link_opens_the_page_with_a_cookie_of_its_own(shared):
    workspace, client, _ = shared
    token = workspace.invite("ana")
    browser = TestClient(create_app(workspace, Settings(token=LEAD_TOKEN, port=PORT, reviewer="lea")), base_url=BASE)
    first = browser.get(f"/?token={token}", follow_redirects=False)
    assert first.status_code == 303 and f"triage_token={token}" in first.headers["set-cookie"]
    assert browser.get(first.headers["location"] + "api/state").json()["reviewer"] == "ana"


def test_the_workspace_keeps_only_a_hash_of_each_token(tmp_path):
    classified = write_corpus(tmp_path / "team.csv")
    path = tmp_path / "team.review.sqlite"
    open_synced(classified, path, audit=0)[0].close()
    with Workspace.open(path) as workspace:
        token = workspace.invite("ana")
    raw = b"".join(p.read_bytes() for p in tmp_path.glob("team.review.sqlite*"))
    assert token.encode() not in raw
    assert hashlib.sha256(token.encode()).hexdigest().encode() in raw
    with Workspace.open(path) as workspace:
        assert workspace.invited(token) == "ana" and workspace.invited(token[:-1]) is None
        assert workspace.invites()[0]["reviewer"] == "ana"


def test_a_wrong_host_header_is_refused_with_any_token(shared):
    workspace, client, _ = shared
    token = workspace.invite("ana")
    for who in (client(token), client(LEAD_TOKEN)):
        refused = who.get("/api/state", headers={"Host": f"192.0.2.77:{PORT}"})
        assert refused.status_code == 403 and refused.json()["error"] == (
            "refused: this server answers only to its own address (127.0.0.1)")


def raw_get(address: str, port: int, path: str, host: str, token: str) -> tuple[int, dict]:
    """A GET sent to `address` whatever Host it names (a browser reaching the server by another name)."""
    connection = http.client.HTTPConnection(address, port, timeout=10)
    try:
        connection.request("GET", path, headers={"Host": host, "X-Triage-Token": token})
        answer = connection.getresponse()
        return answer.status, json.loads(answer.read())
    finally:
        connection.close()


def test_a_server_on_another_address_answers_to_that_address_only(tmp_path):
    classified = write_corpus(tmp_path / "team.csv")
    path = tmp_path / "team.review.sqlite"
    open_synced(classified, path, audit=0)[0].close()
    with Workspace.open(path) as workspace:
        token = workspace.invite("ana")
    server = BackgroundServer(path, token=LEAD_TOKEN, reviewer="lea", lead=True, host="127.0.0.2")
    try:
        assert server.address.startswith(f"http://127.0.0.2:{server.port}/?token=")
        assert server.link(token) == f"http://127.0.0.2:{server.port}/?token={token}"
        status, body = raw_get("127.0.0.2", server.port, "/api/state", f"127.0.0.2:{server.port}", token)
        assert status == 200 and body["reviewer"] == "ana"
        for host in (f"127.0.0.1:{server.port}", f"localhost:{server.port}", f"evil.example:{server.port}"):
            status, body = raw_get("127.0.0.2", server.port, "/api/state", host, token)
            assert status == 403 and "its own address (127.0.0.2)" in body["error"]
        with pytest.raises(OSError):  # nothing listens on 127.0.0.1 at that port
            socket.create_connection(("127.0.0.1", server.port), timeout=2).close()
    finally:
        server.stop()


def test_a_server_on_every_address_answers_to_each_address_of_this_machine_only(tmp_path):
    classified = write_corpus(tmp_path / "team.csv")
    path = tmp_path / "team.review.sqlite"
    open_synced(classified, path, audit=0)[0].close()
    with Workspace.open(path) as workspace:
        token = workspace.invite("ana")
    server = BackgroundServer(path, token=LEAD_TOKEN, reviewer="lea", lead=True, host="0.0.0.0")
    try:
        port = server.port
        network = reachable_address()
        # The lead is on this computer; a colleague's link names the address the network reaches.
        assert server.address == f"http://127.0.0.1:{port}/?token={LEAD_TOKEN}"
        assert server.link(token) == f"http://{network or '127.0.0.1'}:{port}/?token={token}"
        assert "0.0.0.0" not in server.link(token)
        for address in ["127.0.0.1", "127.0.0.2", *([network] if network else [])]:
            status, body = raw_get(address, port, "/api/state", f"{address}:{port}", token)
            assert status == 200 and body["reviewer"] == "ana", (address, body)
        status, body = raw_get("127.0.0.1", port, "/api/state", f"localhost:{port}", LEAD_TOKEN)
        assert status == 200 and body["reviewer"] == "lea"
        # A name (DNS rebinding), an address of another machine, every address, another port: refused.
        for host in (f"evil.example:{port}", f"192.0.2.77:{port}", f"0.0.0.0:{port}", f"127.0.0.1:{port + 1}",
                     f"[::1]:{port}", f"127.1:{port}"):
            status, body = raw_get("127.0.0.1", port, "/api/state", host, token)
            assert status == 403 and body["error"] == "refused: this server answers only to the addresses of this machine", host
        # A state-changing request from another site is refused; the page's own Origin is not.
        for origin, expected in ((f"http://evil.example:{port}", 403), (f"http://127.0.0.2:{port}", 200)):
            connection = http.client.HTTPConnection("127.0.0.2", port, timeout=10)
            try:
                connection.request("POST", "/api/claim", body="{}", headers={
                    "Host": f"127.0.0.2:{port}", "Origin": origin, "X-Triage-Token": token,
                    "Content-Type": "application/json"})
                assert connection.getresponse().status == expected, origin
            finally:
                connection.close()
    finally:
        server.stop()


def test_invite_on_every_address_names_the_network_address_never_0_0_0_0(tmp_path, cli, monkeypatch):
    from triage.review_workspace.server import settings as server_settings

    classified = write_corpus(tmp_path / "team.csv")
    path = tmp_path / "team.review.sqlite"
    open_synced(classified, path, audit=0)[0].close()
    monkeypatch.setattr(server_settings, "network_address", lambda: "192.0.2.40")
    done = cli("review", classified, "--workspace", path, "--invite", "ana", "--host", "0.0.0.0", "--port", "8765")
    assert done.exit_code == 0, done.output
    assert re.fullmatch(r"invite: ana: http://192\.0\.2\.40:8765/\?token=\S+\n", done.output), done.output
    # A machine with loopback only: the link reaches this computer, and the lead is told so.
    monkeypatch.setattr(server_settings, "network_address", lambda: None)
    done = cli("review", classified, "--workspace", path, "--invite", "bob", "--host", "0.0.0.0", "--port", "8765")
    lines = done.output.splitlines()
    assert done.exit_code == 0 and lines[0].startswith("invite: bob: http://127.0.0.1:8765/?token=")
    assert lines[1] == ("invite: this machine has no network address: the links name 127.0.0.1 and reach this "
                        "computer only (invite with --host ADDRESS, an address colleagues reach)")


def test_the_lead_is_told_which_address_the_links_name_on_every_address(tmp_path):
    classified = write_corpus(tmp_path / "team.csv")
    command = [sys.executable, "-m", "triage", "review", str(classified), "--workspace", str(tmp_path / "ws.sqlite"),
               "--no-browser", "--host", "0.0.0.0", "--audit", "0"]
    server = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    said = []
    try:
        first = server.stdout.readline().strip()
        assert re.fullmatch(r"review: http://127\.0\.0\.1:\d+/\?token=\S+", first), first
        while not said or not said[-1].startswith("review: colleagues' links name") and "no network" not in said[-1]:
            line = server.stderr.readline()
            assert line, "the server stopped before saying where the links lead"
            said.append(line.strip())
        answering(first.split(" ", 1)[1])
    finally:
        server.send_signal(signal.SIGINT)
        server.communicate(timeout=20)
    assert ("review: listening on every address of this machine (0.0.0.0): anyone who can reach one and holds a "
            "link can review the messages; unencrypted: give --certificate and --key, or use an SSH tunnel "
            "(docs/review.md)") in said
    network = reachable_address()
    assert said[-1] == (f"review: colleagues' links name {network} (another network of this machine: start with "
                        "--host that address)" if network else
                        "review: this machine has no network address: links name 127.0.0.1 and reach this computer "
                        "only (start with --host ADDRESS, an address colleagues reach)")


def test_a_stopped_server_frees_the_messages_its_reviewers_held(tmp_path):
    classified = write_corpus(tmp_path / "team.csv")
    path = tmp_path / "team.review.sqlite"
    open_synced(classified, path, audit=0)[0].close()
    with Workspace.open(path) as workspace:
        token = workspace.invite("ana")
    server = BackgroundServer(path, token=LEAD_TOKEN, reviewer="lea", lead=True)
    held = []
    for who in (LEAD_TOKEN, token):
        request = urllib.request.Request(f"http://127.0.0.1:{server.port}/api/claim", data=b"{}", method="POST",
                                         headers={"X-Triage-Token": who, "Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=10) as answer:
            held.append(json.load(answer)["current"])
    with Workspace.open(path) as workspace:
        assert [workspace.lease_of(i)["reviewer"] for i in held] == ["lea", "ana"]
        workspace.lease("10", "carl")  # another server's reviewer keeps theirs
    server.stop()
    with Workspace.open(path) as workspace:
        assert [workspace.lease_of(i) for i in held] == [None, None]
        assert workspace.claim("bob").id == held[0]  # given to another at once, not in five minutes
        assert workspace.lease_of("10")["reviewer"] == "carl"


@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM])
def test_the_command_frees_its_leases_when_it_stops(tmp_path, stop):
    classified = write_corpus(tmp_path / "team.csv")
    path = tmp_path / "team.review.sqlite"
    command = [sys.executable, "-m", "triage", "review", str(classified), "--workspace", str(path), "--no-browser",
               "--reviewer", "lea", "--audit", "0"]
    server = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        address = server.stdout.readline().strip().split(" ", 1)[1]
        base, token = address.split("/?token=")
        request = urllib.request.Request(base + "/api/claim", data=b"{}", method="POST",
                                         headers={"X-Triage-Token": token, "Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=10) as answer:
            held = json.load(answer)["current"]
        with Workspace.open(path) as workspace:
            assert workspace.lease_of(held)["reviewer"] == "lea"
    finally:
        server.send_signal(stop)
        _, err = server.communicate(timeout=20)
    assert "review: stopped" in err
    with Workspace.open(path) as workspace:
        assert workspace.lease_of(held) is None


# ------------------------------------------------------------------------------------ TLS


@pytest.fixture(scope="module")
def certificate(tmp_path_factory):
    """A self-signed certificate for 127.0.0.2, and its key (PEM), as a team would make one."""
    if not shutil.which("openssl"):
        pytest.skip("no openssl here to make a certificate")
    folder = tmp_path_factory.mktemp("tls")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=127.0.0.2",
                    "-addext", "subjectAltName=IP:127.0.0.2", "-keyout", str(folder / "key.pem"),
                    "-out", str(folder / "cert.pem")], check=True, capture_output=True)
    return folder / "cert.pem", folder / "key.pem"


def test_a_server_over_tls_gives_https_links_and_a_secure_cookie(tmp_path, certificate):
    cert, key = certificate
    classified = write_corpus(tmp_path / "team.csv")
    path = tmp_path / "team.review.sqlite"
    open_synced(classified, path, audit=0)[0].close()
    with Workspace.open(path) as workspace:
        token = workspace.invite("ana")
    server = BackgroundServer(path, token=LEAD_TOKEN, reviewer="lea", host="127.0.0.2", certificate=cert, key=key)
    try:
        link = server.link(token)
        assert link == f"https://127.0.0.2:{server.port}/?token={token}"
        trusted = ssl.create_default_context(cafile=str(cert))
        connection = http.client.HTTPSConnection("127.0.0.2", server.port, context=trusted, timeout=10)
        connection.request("GET", f"/?token={token}")
        first = connection.getresponse()
        first.read()
        assert first.status == 303 and "Secure" in first.getheader("set-cookie")
        connection.close()
        request = urllib.request.Request(f"https://127.0.0.2:{server.port}/api/state", headers={"X-Triage-Token": token})
        with urllib.request.urlopen(request, timeout=10, context=trusted) as answer:
            assert json.load(answer)["reviewer"] == "ana"
        with pytest.raises((http.client.RemoteDisconnected, ConnectionError)):  # plain http is not served
            plain = http.client.HTTPConnection("127.0.0.2", server.port, timeout=10)
            plain.request("GET", "/api/state", headers={"X-Triage-Token": token})
            plain.getresponse().read()
    finally:
        server.stop()


# ------------------------------------------------------------------------------ the command


def test_invite_prints_a_link_per_reviewer_and_revoke_refuses_it(tmp_path, cli, certificate):
    classified = write_corpus(tmp_path / "team.csv")
    path = tmp_path / "team.review.sqlite"
    open_synced(classified, path, audit=0)[0].close()
    done = cli("review", classified, "--workspace", path, "--invite", "ana", "--invite", "bob", "--host", "127.0.0.2",
               "--port", "8765")
    assert done.exit_code == 0, done.output
    lines = done.output.splitlines()
    assert [line.split("?token=")[0] for line in lines] == ["invite: ana: http://127.0.0.2:8765/",
                                                            "invite: bob: http://127.0.0.2:8765/"]
    tokens = [line.rsplit("=", 1)[1] for line in lines]
    with Workspace.open(path) as workspace:
        assert [workspace.invited(t) for t in tokens] == ["ana", "bob"]
    cert, key = certificate
    secure = cli("review", classified, "--workspace", path, "--invite", "carl", "--host", "127.0.0.2", "--port", "8765",
                 "--certificate", cert, "--key", key)
    assert secure.output.startswith("invite: carl: https://127.0.0.2:8765/?token=")
    revoked = cli("review", classified, "--workspace", path, "--revoke", "ana", "--revoke", "zoe")
    assert revoked.output.splitlines() == ["revoked: ana's link no longer opens the page",
                                           "revoke: zoe holds no link in force (nothing changed)"]
    with Workspace.open(path) as workspace:
        assert workspace.invited(tokens[0]) is None and workspace.invited(tokens[1]) == "bob"
    listed = cli("review", classified, "--workspace", path, "--report").output.splitlines()[-1]
    assert re.fullmatch(r"links: ana \(revoked [-0-9: ]+ UTC\), bob \(since [-0-9: ]+ UTC\), "
                        r"carl \(since [-0-9: ]+ UTC\)", listed), listed


@pytest.mark.parametrize("arguments, message", [
    (["--host", "::"], "--host :: (every IPv6 address) is not supported: give 0.0.0.0"),
    (["--host", "lab-pc.local"], "--host takes an IP address of this machine"),
    (["--host", "192.0.2.199"], "--host must be an address of this machine"),
    (["--invite", "ana"], "--invite needs --port"),
    (["--certificate", "cert.pem"], "--certificate and --key go together"),
    (["--certificate", "nope.pem", "--key", "key.pem"], "--certificate nope.pem: no such file"),
    (["--certificate", "team.csv", "--key", "team.csv"], "--certificate team.csv is not a PEM certificate"),
])
def test_bad_network_options_are_one_line(tmp_path, cli, monkeypatch, arguments, message):
    classified = write_corpus(tmp_path / "team.csv")
    (tmp_path / "cert.pem").write_text("x")
    (tmp_path / "key.pem").write_text("x")
    monkeypatch.chdir(tmp_path)
    done = cli("review", classified, "--workspace", tmp_path / "ws.sqlite", "--no-browser", *arguments)
    assert done.exit_code != 0
    error = done.output.strip()
    assert len(error.splitlines()) == 1 and message in error, error


def test_a_key_that_is_not_the_certificates_is_one_line(tmp_path, cli, certificate):
    cert, _ = certificate
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=x",
                    "-keyout", str(tmp_path / "other.pem"), "-out", str(tmp_path / "other-cert.pem")],
                   check=True, capture_output=True)
    classified = write_corpus(tmp_path / "team.csv")
    done = cli("review", classified, "--no-browser", "--certificate", cert, "--key", tmp_path / "other.pem")
    assert done.exit_code == 1 and f"--key {tmp_path / 'other.pem'} is not the private key of {cert}" in done.output


def test_the_lead_cannot_start_under_a_name_a_link_holds(tmp_path, cli):
    classified = write_corpus(tmp_path / "team.csv")
    path = tmp_path / "team.review.sqlite"
    open_synced(classified, path, audit=0)[0].close()
    with Workspace.open(path) as workspace:
        workspace.invite("ana")
    done = cli("review", classified, "--workspace", path, "--no-browser", "--reviewer", "ana")
    assert done.exit_code == 1 and "ana holds a link to this workspace" in done.output


def answering(url: str, within: float = 30.0) -> None:
    """Wait until the server at `url` answers (any status), so that Ctrl-C reaches a started
    server rather than one still starting."""
    waited = time.monotonic()
    while True:
        try:
            urllib.request.urlopen(url, timeout=5).close()
            return
        except urllib.error.HTTPError:
            return
        except OSError:
            assert time.monotonic() - waited < within, f"{url} never answered"
            time.sleep(0.05)


def reachable_address() -> str | None:
    """The address the server's links name on every address: one `hostname -I` lists, when it runs."""
    from triage.review_workspace.server import network_address as found

    address = found()
    listed = shutil.which("hostname") and subprocess.run(["hostname", "-I"], capture_output=True, text=True).stdout
    if address and listed:
        assert address in listed.split(), (address, listed)
    return address


def network_address() -> str | None:
    """An address of this machine other than loopback, or None."""
    found = shutil.which("hostname") and subprocess.run(["hostname", "-I"], capture_output=True, text=True).stdout
    for address in (found or "").split():
        if "." in address and not address.startswith("127."):
            return address
    return None


def test_ctrl_c_right_after_the_address_is_shown_stops_the_server(tmp_path):
    # The address is shown once the server listens, with Ctrl-C handled: never lost to a server still starting.
    classified = write_corpus(tmp_path / "team.csv")
    command = [sys.executable, "-m", "triage", "review", str(classified), "--workspace", str(tmp_path / "ws.sqlite"),
               "--no-browser", "--host", "0.0.0.0", "--audit", "0"]
    for _ in range(3):
        server = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        assert server.stdout.readline().startswith("review: http://")
        server.send_signal(signal.SIGINT)
        _, err = server.communicate(timeout=20)
        assert server.returncode == 0 and "review: stopped" in err, err


def test_listening_on_the_network_warns_in_one_line(tmp_path):
    address = network_address()
    if address is None:
        pytest.skip("this machine has no address but loopback")
    classified = write_corpus(tmp_path / "team.csv")
    command = [sys.executable, "-m", "triage", "review", str(classified), "--workspace", str(tmp_path / "ws.sqlite"),
               "--no-browser", "--host", address, "--audit", "0"]
    server = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    said = []
    try:
        first = server.stdout.readline().strip()
        assert first.startswith(f"review: http://{address}:")
        while not said or not said[-1].startswith("review: listening on"):
            line = server.stderr.readline()
            assert line, "the server stopped before saying where it listens"
            said.append(line.strip())
        answering(first.split(" ", 1)[1])
    finally:
        server.send_signal(signal.SIGINT)
        server.communicate(timeout=20)
    warning = [line for line in said if line.startswith(f"review: listening on {address}")]
    assert warning == [f"review: listening on {address}: anyone who can reach this address and holds a link can "
                       "review the messages; unencrypted: give --certificate and --key, or use an SSH tunnel "
                       "(docs/review.md)"]


@pytest.mark.parametrize("token", ["", "x" * 5000, "' OR 1=1 --", "é\u00ff", "%00"])
def test_an_odd_token_is_only_a_wrong_token(shared, token):
    workspace, client, _ = shared
    workspace.invite("ana")
    refused = client("").get("/api/state", headers={"X-Triage-Token": token.encode("utf-8")})
    assert refused.status_code == 403 and "your own link" in refused.json()["error"]
    start = client(LEAD_TOKEN).get("/", params={"token": token}, follow_redirects=False)
    assert start.status_code == 403 and start.json()["error"] == "refused: wrong token, or a revoked link"


def test_the_python_api_invites_and_revokes_as_the_command_does(tmp_path):
    import triage

    classified = write_corpus(tmp_path / "team.csv")
    path = tmp_path / "team.review.sqlite"
    open_synced(classified, path, audit=0)[0].close()
    (line,) = triage.review(classified, workspace=path, invite="ana", host="127.0.0.2", port=8765)
    assert line.startswith("invite: ana: http://127.0.0.2:8765/?token=")
    assert triage.review(classified, workspace=path, revoke=["ana"]) == ["revoked: ana's link no longer opens the page"]
    with Workspace.open(path) as workspace:
        assert workspace.invited(line.rsplit("=", 1)[1]) is None
