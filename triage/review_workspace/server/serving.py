"""Serving the review application: the listening socket (bind), `serve` for `triage review` (the
browser opened on a private launcher page, never with the token on a command line), and
BackgroundServer, the same from a thread of this process; when either stops, the messages its
reviewers held are freed."""

from __future__ import annotations

import html
import os
import secrets
import shutil
import socket
import sys
from pathlib import Path

from triage.errors import BadOption, InputError
from triage.io import outputs
from triage.review_workspace.server.app import create_app
from triage.review_workspace.server.settings import Settings, _bracketed, check_host, check_tls
from triage.review_workspace.workspace import Workspace


def bind(port: int, host: str = "127.0.0.1") -> socket.socket:
    """A listening socket on `host` (127.0.0.1 by default; `port` 0: a free one), or a one-line error."""
    import errno

    sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM)
    if sys.platform != "win32":
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as err:
        sock.close()
        hint = ("--host must be an address of this machine: `hostname -I` lists them"
                if err.errno == errno.EADDRNOTAVAIL else "choose another --port")
        raise BadOption(f"cannot listen on {_bracketed(host)}:{port}: {err.strerror or err} ({hint})") from None
    # Each answer leaves at once: without it, a kept-alive connection waits for the browser's delayed
    # acknowledgement (about 40 ms a request). Accepted connections inherit the option.
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sock.listen(64)
    return sock


def _uvicorn_config(app, tls: tuple[str, str] | None, **options):
    import uvicorn

    if tls is not None:
        options.update(ssl_certfile=tls[0], ssl_keyfile=tls[1])
    return uvicorn.Config(app, log_level="warning", lifespan="off", **options)


def _free_leases(workspace: Workspace, settings: Settings) -> None:
    """The server stops: the messages its reviewers held go back to the others at once."""
    try:
        workspace.release_leases(settings.served)
    except (InputError, OSError):
        pass  # a read-only or replaced workspace: the leases run out on their own


class BackgroundServer:
    """The review page of a workspace served from a thread of this process, on a free port of
    `host` (127.0.0.1 by default; the browser tests and the documentation's screenshots; `serve`
    is the command's). `settings` as Settings' (reviewer, lead, lease_seconds...); `certificate`
    and `key` serve it over TLS; `address` opens the page with the token, `link(token)` with a
    colleague's; `stop()` ends the server, frees its reviewers' leases and closes the workspace."""

    def __init__(self, workspace_path, *, token: str, reviewer: str, host: str = "127.0.0.1", certificate=None,
                 key=None, **settings):
        import threading
        import time

        import uvicorn

        tls = check_tls(certificate, key)
        self.workspace = Workspace.open(workspace_path)
        self.sock = bind(0, check_host(host))
        self.port = self.sock.getsockname()[1]
        self.token = token
        self.settings = Settings(token=token, port=self.port, reviewer=reviewer, host=check_host(host),
                                 tls=tls is not None, **settings)
        self.server = uvicorn.Server(_uvicorn_config(create_app(self.workspace, self.settings), tls))
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [self.sock]}, daemon=True)
        self.thread.start()
        deadline = time.monotonic() + 10
        while not self.server.started and time.monotonic() < deadline:
            time.sleep(0.02)

    @property
    def address(self) -> str:
        """The lead's own address (on every address: 127.0.0.1, this computer's)."""
        return self.settings.link(self.token, colleague=False)

    def link(self, token: str) -> str:
        return self.settings.link(token)

    @property
    def root(self) -> str:
        """The page's own address (under its secret path), once the browser holds the cookie."""
        return f"{self.settings.scheme}://{self.settings.netloc(colleague=False)}{self.settings.root}"

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(10)
        self.sock.close()
        _free_leases(self.workspace, self.settings)
        self.workspace.close()


def serve(workspace: Workspace, *, port: int = 0, reviewer: str, lexicon_dir=None, open_browser: bool = True,
          announce=print, lead: bool = False, host: str = "127.0.0.1", tls: tuple[str, str] | None = None) -> None:
    """Serve the review page until Ctrl-C or SIGTERM. `announce` gets the address first. `host`
    (checked by check_host) and `tls` (check_tls's) as `triage review --host / --certificate --key`.
    When it stops, the messages its reviewers held are freed."""
    import uvicorn

    sock = bind(port, host)
    settings = Settings(token=secrets.token_urlsafe(24), port=sock.getsockname()[1], reviewer=reviewer,
                        lexicon_dir=os.fspath(lexicon_dir) if lexicon_dir else None, lead=lead, host=host,
                        tls=tls is not None)
    address = settings.link(settings.token, colleague=False)
    config = _uvicorn_config(create_app(workspace, settings), tls, access_log=False, timeout_graceful_shutdown=2)
    launcher = None

    class Announcing(uvicorn.Server):
        """Says the address once the server listens, with Ctrl-C handled: a Ctrl-C right after the
        address is shown stops the server like any other (not one still starting)."""

        async def startup(self, sockets=None) -> None:
            nonlocal launcher
            await super().startup(sockets=sockets)
            if not self.should_exit:
                announce(f"review: {address}")
                launcher = _open_browser(address) if open_browser else None

    server = Announcing(config)
    try:
        server.run(sockets=[sock])
    except KeyboardInterrupt:
        pass  # uvicorn re-raises Ctrl-C once it has stopped: it is how a reviewer ends the session
    finally:
        sock.close()
        _free_leases(workspace, settings)
        if launcher is not None:
            shutil.rmtree(launcher, ignore_errors=True)


def _open_browser(address: str) -> Path | None:
    """Open `address` in the browser without putting its token on a command line (which any local
    user reads with `ps`): a page readable by its owner only (0600, in a private 0700 temporary
    folder) redirects to it, and the browser is given that page's file:// address. Returns the
    folder, to delete when the server stops."""
    import tempfile
    import webbrowser

    folder = Path(tempfile.mkdtemp(prefix="triage-review-"))  # 0700
    page = folder / "open-review.html"
    target = html.escape(address, quote=True)
    outputs.write_text(page, (
        "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">"
        f"<meta http-equiv=\"refresh\" content=\"0;url={target}\"><title>sms-triage review</title></head>\n"
        f"<body><p><a href=\"{target}\">Open the review page</a></p></body></html>\n"
    ), private=True)
    try:
        webbrowser.open(page.as_uri())
    except webbrowser.Error:
        pass  # no browser here: the printed address is enough
    return folder
