"""The review server's guard, around every request: the Host it names (DNS rebinding), the Origin of a
state-changing request (cross-site POST), the token (the session's or a colleague's link: who the
request comes from), the body's size (MAX_BODY), the security headers on every answer, and a
one-line 500 for an unexpected error."""

from __future__ import annotations

import secrets
import sys
from dataclasses import dataclass

from starlette.requests import Request

from triage.errors import BadOption
from triage.review_workspace.codes import coded
from triage.review_workspace.server.error_answers import _error, _raised
from triage.review_workspace.server.settings import Settings
from triage.review_workspace.workspace import Workspace


COOKIE = "triage_token"
TOKEN_HEADER = "x-triage-token"
CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; "
    "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)
_HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
    "Cache-Control": "no-store",
}
MAX_BODY = 1 << 20  # a decision is a few hundred bytes
_TOO_LARGE = f"request too large (at most {MAX_BODY:,} bytes)"
_INTERNAL = "internal error in the review server (see its console)"


@dataclass(frozen=True)
class Reviewer:
    """Who a request comes from, by its token: the session's (the server's own reviewer, the lead
    with --lead) or a colleague's personal link (never the lead)."""
    name: str
    lead: bool = False
    invited: bool = False


class _TooLarge(Exception):
    """A request body past MAX_BODY: raised from `receive` as soon as it is, and answered 413."""


class _Guard:
    """ASGI middleware: Host, Origin and token checks, and the security headers on every answer."""

    def __init__(self, app, settings: Settings, workspace: Workspace | None = None):
        self.app = app
        self.settings = settings
        self.workspace = workspace

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        problem = self._refusal(scope, headers)
        if problem is not None:
            return await _raised(problem, 403, headers=_HEADERS)(scope, receive, send)
        started = False

        async def send_with_headers(message):
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
                present = {k.decode("latin-1").lower() for k, _ in message.get("headers", [])}
                extra = [(k.lower().encode(), v.encode()) for k, v in _HEADERS.items() if k.lower() not in present]
                message = {**message, "headers": [*message.get("headers", []), *extra]}
            await send(message)

        length = headers.get("content-length", "").strip()
        if length and not (length.isascii() and length.isdigit() and int(length) <= MAX_BODY):
            # Refused before a byte of the body is read (uvicorn closes the connection after it).
            return await _error(_TOO_LARGE, 413, code="too_large", params={"max": MAX_BODY})(
                scope, receive, send_with_headers)
        pulled = 0

        async def bounded_receive():
            nonlocal pulled
            message = await receive()
            if message["type"] == "http.request":
                pulled += len(message.get("body", b""))
                if pulled > MAX_BODY:
                    raise _TooLarge
            return message

        try:
            await self.app(scope, bounded_receive, send_with_headers)
        except _TooLarge:
            if not started:
                await _error(_TOO_LARGE, 413, code="too_large", params={"max": MAX_BODY})(
                    scope, receive, send_with_headers)
        except Exception as err:  # a bug: the reviewer gets one line, the console one line too
            print(f"review: internal error on {scope['method']} {scope['path']}: {type(err).__name__}: "
                  f"{' '.join(str(err).split())}"[:500],
                  file=sys.stderr)
            if not started:
                await _error(_INTERNAL, 500, code="internal", params={})(scope, receive, send_with_headers)

    def _refusal(self, scope, headers) -> Exception | None:
        if not self.settings.accepts(headers.get("host", "")):
            if self.settings.every_address:
                return coded(BadOption("refused: this server answers only to the addresses of this machine"),
                             "host_refused_every")
            return coded(BadOption(f"refused: this server answers only to its own address ({self.settings.host})"),
                         "host_refused", host=self.settings.host)
        origin = headers.get("origin")
        if scope["method"] not in ("GET", "HEAD") and origin is not None and not self.settings.origin_ok(origin):
            return coded(BadOption("refused: a request from another site"), "other_site")
        if scope["path"] == "/" and _query_token(scope) is not None:
            return None  # the start-up address: checked and turned into a cookie by the page route
        token = headers.get(TOKEN_HEADER)
        if token is None and scope["path"].startswith(self.settings.root):
            token = _cookie(headers.get("cookie", ""), COOKIE)  # the cookie belongs to the secret path only
        who = identify(token, self.settings, self.workspace)
        if who is None:
            return coded(BadOption("refused: open the address that `triage review` printed, or your own link (it "
                                   "holds your token; a revoked link no longer opens the page)"), "token_refused")
        scope["triage.reviewer"] = who
        return None


def identify(token: str | None, settings: Settings, workspace: Workspace | None) -> Reviewer | None:
    """Who holds `token`: the session's reviewer, a colleague whose link in force holds it, or None."""
    if _same_token(token, settings.token):
        who = Reviewer(settings.reviewer, lead=settings.lead)
    else:
        name = None
        if workspace is not None and token:
            try:
                name = workspace.invited(token)
            except Exception:  # an unreadable workspace opens no link
                name = None
        if name is None:
            return None
        who = Reviewer(name, invited=True)
    settings.served.add(who.name)
    return who


def _same_token(given: str | None, token: str) -> bool:
    """Whether `given` is the session's token, in constant time; any text (non-ASCII, empty, None) is
    only a wrong token."""
    if not given:
        return False
    return secrets.compare_digest(given.encode("utf-8", "surrogateescape"), token.encode("utf-8"))


def _query_token(scope) -> str | None:
    from urllib.parse import parse_qs

    values = parse_qs(scope.get("query_string", b"").decode("latin-1")).get("token")
    return values[0] if values else None


def _cookie(header: str, name: str) -> str | None:
    for part in header.split(";"):
        key, _, value = part.strip().partition("=")
        if key == name:
            return value
    return None


def who(request: Request) -> Reviewer:
    """Who a request comes from (set by the guard from its token)."""
    return request.scope["triage.reviewer"]
