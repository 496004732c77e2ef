"""The review page's web server: Starlette over the workspace, served by uvicorn.

Security, for a page that shows raw messages on a shared machine or a team's network:
- it listens on 127.0.0.1 by default, on a port of the user's choice or a free one; `--host`
  names one other address of the machine, or 0.0.0.0 for every IPv4 address of it (`::` is
  refused); `--certificate` / `--key` serve it over TLS. On every address, the lead's address
  names 127.0.0.1 (this computer; over TLS the network address, which the team's certificate
  names) and the colleagues' links the machine's network address (network_address), never 0.0.0.0;
- every request carries a token: the address printed at start-up holds the session's (the
  person who started the server, the lead with `--lead`); a colleague's personal link holds
  theirs (`--invite NAME`: only its SHA-256 is kept in the workspace; `--revoke NAME` refuses it
  at once). The token names the reviewer: their decisions are credited to the name of the link,
  and only the session's token of a `--lead` server adjudicates. The address holds it as
  `?token=`, which sets an HttpOnly, SameSite=Strict cookie (Secure over TLS); scripts may send
  `X-Triage-Token`;
- the page and its API live under a random secret path, `/<base>/`, which is also the cookie's
  Path. Cookies ignore ports: a cookie with Path=/ would go to every other server of 127.0.0.1
  the browser visits. Scoped to the secret path, the browser sends it to no other server (which
  would have to know the path), and the server honours it only under that path. The API is also
  served at `/api/...` for scripts, with the header only;
- the browser is opened on a launcher page readable by its owner only (0600, in a private
  temporary folder, deleted when the server stops) that redirects to the address: the token is
  never on a command line, which any local user reads with `ps`;
- a request whose Host is not this server's address is refused (DNS rebinding): on every address,
  a Host that is not an IPv4 address of this machine (or localhost) with the server's port; so is a
  state-changing request from another Origin (cross-site POST);
- when it stops, the messages its reviewers held (their leases) are freed for the others;
- hostile requests are one-line JSON errors, never a 500: odd tokens, numbers past 64 bits, huge
  spellings, lone surrogates, deep nesting; a body past MAX_BODY is refused (413) from its
  Content-Length at once, and a chunked one is read no further than the limit; an unexpected
  error is a one-line 500 (its cause on the server's console);
- every answer, errors included, carries the security headers: a strict Content-Security-Policy
  (scripts, styles and data only from this server: no inline script, no external resource, the
  page works offline), X-Frame-Options, nosniff, no referrer, no caching. Message text is always
  inserted as text by the page, never as HTML.
The JSON API is documented in docs/review.md.
"""

from __future__ import annotations

import contextlib
import html
import ipaddress
import json
import os
import secrets
import shutil
import socket
import sys
from dataclasses import dataclass, field
from pathlib import Path

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import (
    FileResponse,
    JSONResponse,
    PlainTextResponse,
    RedirectResponse,
)
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from triage import outputs
from triage.errors import BadOption, InputError
from triage.queue import CONTACT_TAGS
from triage.review_workspace.codes import coded
from triage.review_workspace.workspace import (
    DEFAULT_LEASE,
    TAGS,
    BulkChanged,
    Conflict,
    NeedsConfirmation,
    TextChanged,
    Workspace,
    WorkspaceUnavailable,
)

STATIC = Path(__file__).resolve().parent / "static"
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
PAGE_LIMIT = 200  # items per API page at most
CONSISTENCY_PAGE = 100  # consistency cases per API page at most
MAX_SPELLING = 200  # characters of a word or phrase to learn
ERROR_WIDTH = 240  # characters of an error line at most
_INT64 = 1 << 63  # SQLite's integers are signed 64-bit


_TOO_LARGE = f"request too large (at most {MAX_BODY:,} bytes)"
_INTERNAL = "internal error in the review server (see its console)"


class _NotLead(Exception):
    """A lead reviewer's request (adjudication) from another token than the lead's: 403."""


@dataclass(frozen=True)
class Reviewer:
    """Who a request comes from, by its token: the session's (the server's own reviewer, the lead
    with --lead) or a colleague's personal link (never the lead)."""
    name: str
    lead: bool = False
    invited: bool = False


class _TooLarge(Exception):
    """A request body past MAX_BODY: raised from `receive` as soon as it is, and answered 413."""


@dataclass
class Settings:
    token: str
    port: int
    reviewer: str
    lexicon_dir: str | None = None
    lead: bool = False  # the lead reviewer: resolves the disagreements of the double review
    lease_seconds: float = DEFAULT_LEASE  # how long a message shown in the page stays this reviewer's
    base: str = field(default_factory=lambda: secrets.token_urlsafe(12))  # the secret path: /<base>/
    host: str = "127.0.0.1"  # the address listened on: the only one the Host header may name
    tls: bool = False  # served over https (--certificate, --key)
    network: str | None = None  # on every address: the address colleagues' links name (found when None)
    served: set = field(default_factory=set)  # the reviewers who used this server: their leases end with it

    def __post_init__(self):
        if self.every_address and self.network is None:
            self.network = network_address()

    @property
    def root(self) -> str:
        """The page's path, and the token cookie's Path: `/<base>/`."""
        return f"/{self.base}/"

    @property
    def scheme(self) -> str:
        return "https" if self.tls else "http"

    @property
    def every_address(self) -> bool:
        """Whether it listens on every IPv4 address of the machine (--host 0.0.0.0)."""
        return self.host == EVERY_ADDRESS

    def link_host(self, colleague: bool = True) -> str:
        """The address a link names: the one listened on; on every address, the machine's network
        address for a colleague (127.0.0.1 when it has none) and 127.0.0.1 for the lead, who is
        on this computer (over TLS the network address too: the team's certificate names it)."""
        if not self.every_address:
            return self.host
        if not colleague and not self.tls:
            return "127.0.0.1"
        return self.network or "127.0.0.1"

    def netloc(self, colleague: bool = True) -> str:
        """`host:port` as a link names it (an IPv6 address in brackets)."""
        return f"{_bracketed(self.link_host(colleague))}:{self.port}"

    def link(self, token: str, *, colleague: bool = True) -> str:
        """The address that opens the page with `token` (a colleague's link, or the lead's own)."""
        return f"{self.scheme}://{self.netloc(colleague)}/?token={token}"

    def hosts(self) -> set[str]:
        """What the Host header may be: the address listened on (localhost too on 127.0.0.1 and ::1),
        with its port, or without it on the scheme's default port (on every address, see accepts)."""
        names = {_bracketed(self.host)}
        if self.host in ("127.0.0.1", "::1"):
            names.add("localhost")
        found = {f"{name}:{self.port}" for name in names}
        if self.port == (443 if self.tls else 80):
            found |= names
        return found

    def accepts(self, host: str) -> bool:
        """Whether a request's Host header names this server: one of `hosts()`; on every address,
        localhost or an IPv4 address of this machine, with the server's port (never a name a DNS
        server answers for: DNS rebinding)."""
        if not self.every_address:
            return host in self.hosts()
        name, colon, port = host.rpartition(":")
        if not colon:
            name, port = host, ""
        if port != str(self.port) and not (port == "" and self.port == (443 if self.tls else 80)):
            return False
        if name == "localhost":
            return True
        try:
            address = ipaddress.ip_address(name)
        except ValueError:
            return False
        return address.version == 4 and not address.is_unspecified and str(address) == name and is_local(name)

    def origin_ok(self, origin: str) -> bool:
        """Whether an Origin header is this server's own (the page's requests)."""
        prefix = f"{self.scheme}://"
        return origin.startswith(prefix) and self.accepts(origin[len(prefix):])


EVERY_ADDRESS = "0.0.0.0"


def is_local(address: str) -> bool:
    """Whether an IPv4 address is one of this machine's (a socket can be bound to it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.bind((address, 0))
        except OSError:
            return False
    return True


def network_address() -> str | None:
    """This machine's IPv4 address on its network, the one colleagues reach: the address its default
    route leaves from (a UDP socket connected to a documentation address: nothing is sent), else one
    its host name resolves to; None when it has only loopback."""
    found = []
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("192.0.2.1", 9))
            found.append(probe.getsockname()[0])
        except OSError:
            pass
    try:
        found += [info[4][0] for info in socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET)]
    except OSError:
        pass
    for address in found:
        parsed = ipaddress.ip_address(address)
        if not (parsed.is_loopback or parsed.is_unspecified or parsed.is_link_local):
            return address
    return None


def _bracketed(host: str) -> str:
    return f"[{host}]" if ":" in host else host


def check_host(host: str) -> str:
    """The address `--host` names, as the server listens on it (0.0.0.0: every IPv4 address of the
    machine); a one-line error for a name, a malformed address, or every IPv6 address (::)."""
    try:
        address = ipaddress.ip_address(str(host).strip().strip("[]"))
    except ValueError:
        raise BadOption(f"--host takes an IP address of this machine (such as 192.168.1.20; `hostname -I` lists "
                        f"them), not {_short(str(host))}") from None
    if address.is_unspecified and address.version == 6:
        raise BadOption(f"--host {address} (every IPv6 address) is not supported: give 0.0.0.0 (every IPv4 address "
                        "of this machine) or the one address your colleagues reach (`hostname -I` lists them)")
    if address.is_multicast:
        raise BadOption(f"--host {address} is a multicast address, not one of this machine")
    return str(address)


def is_network(host: str) -> bool:
    """Whether others than this machine's users may reach an address (not a loopback one)."""
    return not ipaddress.ip_address(host).is_loopback


def network_warning(host: str, tls: bool) -> str:
    """The line `triage review` prints when it listens on a network address."""
    how = "over TLS" if tls else "unencrypted: give --certificate and --key, or use an SSH tunnel (docs/review.md)"
    if host == EVERY_ADDRESS:
        return (f"review: listening on every address of this machine ({host}): anyone who can reach one and "
                f"holds a link can review the messages; {how}")
    return (f"review: listening on {host}: anyone who can reach this address and holds a link can review "
            f"the messages; {how}")


def links_line(settings: Settings) -> str | None:
    """On every address, the line that says which address colleagues' links name."""
    if not settings.every_address:
        return None
    if settings.network is None:
        return ("review: this machine has no network address: links name 127.0.0.1 and reach this computer only "
                "(start with --host ADDRESS, an address colleagues reach)")
    return (f"review: colleagues' links name {settings.network} (another network of this machine: start with "
            "--host that address)")


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


def _error(message: str, status: int = 400, headers: dict | None = None, *, code: str = "error",
           params: dict | None = None, **extra) -> JSONResponse:
    """The JSON error answer: `error` one line of at most ERROR_WIDTH characters, whatever the message
    echoes of the request; `code` and `params` let the page say it in its own language (see codes.py:
    an error without a code of its own is `error`, its English line the `detail`)."""
    line = _line(str(message), ERROR_WIDTH)
    if params is None:
        params = {"detail": line} if code == "error" else {}
    params = {str(k): v if v is None or isinstance(v, (bool, int, float)) and abs(v) < _INT64 else _line(str(v), 120)
              for k, v in params.items()}
    return JSONResponse({"error": line, "code": code, "params": params, **extra}, status_code=status, headers=headers)


def _line(text: str, width: int) -> str:
    """`text` on one line of at most `width` characters, as UTF-8 can carry it."""
    line = " ".join(text.split())
    if len(line) > width:
        line = line[:width - 3] + "..."
    return line.encode("utf-8", "backslashreplace").decode("utf-8")


def _raised(err: Exception, status: int = 400, headers: dict | None = None, **extra) -> JSONResponse:
    """The JSON error answer of an exception, with its code and params when it has them."""
    return _error(str(err), status, headers, code=getattr(err, "code", "error"), params=getattr(err, "params", None),
                  **extra)


@contextlib.contextmanager
def _lexicon_errors():
    """Learning or unlearning: an error of the user's lexicon (a folder or file it cannot use) gets its
    code, its English line (naming the file and the system's reason) its detail."""
    try:
        yield
    except InputError as err:
        if not hasattr(err, "code"):
            coded(err, "lexicon_unusable", detail=" ".join(str(err).split()))
        raise


async def _json_body(request: Request) -> dict:
    body = await request.body()  # at most MAX_BODY bytes: _Guard stops the reading past it
    try:
        data = json.loads(body or b"{}")
    except (ValueError, RecursionError):  # UnicodeDecodeError is a ValueError
        raise coded(BadOption("the request is not JSON (UTF-8, nested at most a few levels)"), "not_json") from None
    if not isinstance(data, dict):
        raise coded(BadOption("the request must be a JSON object"), "not_object")
    _check_text(data)
    return data


def _check_text(data) -> None:
    """Refuse a JSON value holding a lone surrogate (`"\\ud800"`): valid JSON, but no text that
    can be stored or shown. Iterative, whatever the nesting."""
    stack = [data]
    while stack:
        value = stack.pop()
        if isinstance(value, dict):
            stack.extend(value.keys())
            stack.extend(value.values())
        elif isinstance(value, list):
            stack.extend(value)
        elif isinstance(value, str):
            try:
                value.encode("utf-8")
            except UnicodeEncodeError:
                raise coded(BadOption("the request holds a lone surrogate (\\ud800-\\udfff): not text"),
                            "lone_surrogate") from None


def _short(value: str, width: int = 40) -> str:
    return repr(value if len(value) <= width else value[:width] + "...")


def _int(value: str | None, default: int, lowest: int = 0, highest: int | None = None) -> int:
    try:
        number = int(value) if value not in (None, "") else default
    except ValueError:
        raise coded(BadOption(f"{_short(value)} is not a whole number"), "not_whole", value=_short(value)) from None
    if not -_INT64 <= number < _INT64:
        raise coded(BadOption(f"{_short(value)} is out of range"), "out_of_range", value=_short(value))
    number = max(lowest, number)
    return min(number, highest) if highest is not None else number


def _spelling(value) -> str:
    spelling = str(value)
    if len(spelling) > MAX_SPELLING:
        raise coded(BadOption(f"a word or phrase to learn has at most {MAX_SPELLING} characters"), "spelling_too_long",
                    max=MAX_SPELLING)
    return spelling


def _filters(query) -> dict:
    """The list's filters from a query string: kind (queue, audit), status (pending, decided,
    skipped, stale; commas between), q (a piece of the text, or an id), tag, reviewer, double
    (where the double review stands: marked, waiting, both, disputed)."""
    text = query.get("q") or None
    if text is not None and len(text) > MAX_SPELLING:
        raise coded(BadOption(f"a search has at most {MAX_SPELLING} characters"), "search_too_long", max=MAX_SPELLING)
    return {"kind": query.get("kind") or None, "status": query.get("status") or None, "text": text,
            "tag": query.get("tag") or None, "reviewer": query.get("reviewer") or None,
            "double": query.get("double") or None}


def _language(text: str) -> dict:
    """Whether a message is mostly in another language (see triage/language.py)."""
    from triage import lexicons
    from triage.language import language

    return language(text, lexicons.default())


def create_app(workspace: Workspace, settings: Settings) -> Starlette:
    """The review application over an open workspace (the caller closes it)."""

    def handle(endpoint):
        async def run(request: Request):
            try:
                return await endpoint(request)
            except NeedsConfirmation as err:
                return _raised(err, 409, preview=err.preview)
            except Conflict as err:  # another reviewer holds or decided the message: nothing stored
                return _raised(err, 409, conflict=err.conflict)
            except KeyError as err:
                return _error(f"no message {err.args[0]!r} in the review list", 404, code="message_unknown",
                              params={"id": err.args[0]})
            except _NotLead as err:
                return _raised(err, 403)
            except WorkspaceUnavailable as err:  # full disk 507, read-only or damaged 503, replaced 409
                return _raised(err, err.status)
            except InputError as err:
                return _raised(err)

        return run

    def who(request: Request) -> Reviewer:
        return request.scope["triage.reviewer"]

    async def start(request: Request):
        token = request.query_params.get("token")
        if token is not None and identify(token, settings, workspace) is None:
            return _error("refused: wrong token, or a revoked link", 403, code="link_refused", params={})
        response = RedirectResponse(settings.root, status_code=303)
        if token is not None:
            response.set_cookie(COOKIE, token, httponly=True, samesite="strict", path=settings.root,
                                secure=settings.tls)
        return response

    async def page(request: Request):
        return FileResponse(STATIC / "index.html", media_type="text/html; charset=utf-8")

    async def state(request: Request):
        # `after`: the message the page leaves (decided, skipped): the next one is after it in the
        # list, so an audit message leads to the next audit message, not back to the queue's top.
        after = request.query_params.get("after")
        try:
            rank = workspace.item(after).rank if after else None
        except KeyError:  # no longer listed (the corpus synced again): from the top
            rank = None
        current = workspace.next_pending(after_rank=rank, reviewer=who(request).name)
        return JSONResponse({
            "progress": workspace.progress(), "reviewer": who(request).name, "tags": list(TAGS),
            "reviewers": workspace.reviewers(),
            "current": current.id if current else None, "lead": who(request).lead,
            "lease_seconds": settings.lease_seconds, "audit": workspace.audit_estimate(),
            "meta": {k: v for k, v in workspace.meta().items() if k in ("classified", "synced", "created")},
        })

    async def items(request: Request):
        query = request.query_params
        filters = _filters(query)
        offset = _int(query.get("offset"), 0)
        limit = _int(query.get("limit"), 50, 1, PAGE_LIMIT)
        sort = query.get("sort") or "rank"
        total, found = workspace.page(**filters, sort=sort, offset=offset, limit=limit)
        return JSONResponse({"total": total, "offset": offset, "items": [item.as_json() for item in found]})

    async def item(request: Request):
        ident = request.path_params["id"]
        found = workspace.item(ident).as_json()
        found["neighbours"] = workspace.neighbours(ident)
        found["leased_to"] = workspace.lease_of(ident, besides=who(request).name)
        found["language"] = _language(found["text"])
        return JSONResponse(found)

    async def claim(request: Request):  # the next message for this reviewer, leased to them
        data = await _json_body(request)
        after = data.get("after_rank")
        if after is not None and not (type(after) is int and -_INT64 <= after < _INT64):
            raise coded(BadOption("after_rank must be a whole number"), "after_rank_invalid")
        found = workspace.claim(who(request).name, after_rank=after, seconds=settings.lease_seconds)
        return JSONResponse({"current": found.id if found else None})

    async def lease(request: Request):  # taken or renewed while the page shows the message
        return JSONResponse(workspace.lease(request.path_params["id"], who(request).name,
                                            seconds=settings.lease_seconds))

    def lead_only(request: Request):
        if who(request).invited:
            raise coded(_NotLead(f"refused: only the lead reviewer's link resolves disagreements, not "
                                 f"{who(request).name}'s"), "not_lead_link", name=who(request).name)
        if not who(request).lead:
            raise coded(_NotLead("only the lead reviewer resolves disagreements (start `triage review --lead`)"),
                        "not_lead_server")

    async def disputes(request: Request):
        lead_only(request)
        return JSONResponse(workspace.disputes())

    async def adjudicate(request: Request):
        lead_only(request)
        data = await _json_body(request)
        try:
            resolved = workspace.adjudicate(request.path_params["id"], label=data.get("label", ""),
                                            spans=data.get("spans", []), reviewer=who(request).name,
                                            text_hash=data.get("text_hash"), version=data.get("version"))
        except TextChanged as err:
            return _raised(err, 409, changed=True)
        return JSONResponse(resolved.as_json())

    # A decision or skip names the text it was made on (`text_hash`, sent with each item): a text
    # changed since (the corpus classified again while the page was open) is refused with 409; and
    # the message's `version` as shown: anyone's action since is refused with 409 and `conflict`.
    async def decision(request: Request):
        data = await _json_body(request)
        # NTA releases what the machines hid: contact details found by their form (a phone number, an
        # address) only when the request says it releases them (the page asks the reviewer first).
        if str(data.get("label", "")).upper() == "NTA" and data.get("release_contact") is not True:
            try:
                proposal = workspace.item(request.path_params["id"]).proposal
            except KeyError:
                proposal = []
            contact = [span for span in proposal if span[2] in CONTACT_TAGS]
            if contact:
                kinds = ", ".join(sorted({span[2] for span in contact}))
                return _error(f"NTA would make {len(contact)} contact detail{'s' if len(contact) > 1 else ''} the "
                              f"machines hid readable ({kinds}): send release_contact: true to release "
                              f"{'them' if len(contact) > 1 else 'it'}, or decide TA", 409, contact=contact,
                              code="nta_contact", params={"n": len(contact), "kinds": kinds})
        try:
            decided = workspace.decide(request.path_params["id"], label=data.get("label", ""),
                                       spans=data.get("spans", []), reviewer=who(request).name,
                                       text_hash=data.get("text_hash"), version=data.get("version"))
        except TextChanged as err:
            return _raised(err, 409, changed=True)
        return JSONResponse(decided.as_json())

    async def skip(request: Request):
        data = await _json_body(request)
        try:
            skipped = workspace.skip(request.path_params["id"], reviewer=who(request).name,
                                     text_hash=data.get("text_hash"), version=data.get("version"))
        except TextChanged as err:
            return _raised(err, 409, changed=True)
        return JSONResponse(skipped.as_json())

    async def undo(request: Request):  # `seq`: the action the page showed as the next to undo
        data = await _json_body(request)
        undone = workspace.undo(reviewer=who(request).name, seq=data.get("seq"))
        return JSONResponse({**undone.as_json(), "undone": workspace.last_undone} if undone else None)

    # Bulk decisions on the list's filtered items: a preview first (GET), then the decision (POST)
    # naming the messages the preview showed (its digest); one undo takes a bulk decision back whole.
    async def bulk_preview(request: Request):
        query = request.query_params
        return JSONResponse(workspace.bulk_preview(action=query.get("action") or "accept", filters=_filters(query),
                                                    reviewer=who(request).name))

    async def bulk(request: Request):
        data = await _json_body(request)
        chosen = data.get("filters", {})
        if not isinstance(chosen, dict) or not all(isinstance(v, str) for v in chosen.values()):
            raise coded(BadOption("filters must be an object of text values (q, status, kind, tag, reviewer, double)"),
                        "filters_invalid")
        try:
            done = workspace.bulk_decide(action=str(data.get("action", "")), reviewer=who(request).name,
                                         digest=data.get("digest"), expected=data.get("expected"),
                                         filters=_filters(chosen))
        except BulkChanged as err:
            return _raised(err, 409, changed=True)
        return JSONResponse(done)

    async def concordance(request: Request):
        return JSONResponse(workspace.concordance(_spelling(request.query_params.get("spelling", ""))))

    async def occurrences(request: Request):
        data = await _json_body(request)
        marks = data.get("marks", [])
        if not isinstance(marks, list):
            raise coded(BadOption("marks must be a list"), "marks_not_list")
        try:
            done = workspace.decide_occurrences(marks, reviewer=who(request).name, tag=str(data.get("tag", "PRE")))
        except TextChanged as err:
            return _raised(err, 409, changed=True)
        return JSONResponse(done)

    async def recent(request: Request):
        limit = _int(request.query_params.get("limit"), 8, 1, 100)
        return JSONResponse(workspace.recent(reviewer=who(request).name, limit=limit))

    async def candidates(request: Request):
        return JSONResponse(workspace.candidates(limit=_int(request.query_params.get("limit"), 200, 1, 1000)))

    async def preview(request: Request):
        query = request.query_params
        return JSONResponse(workspace.preview(_spelling(query.get("spelling", "")), query.get("kind", "name")))

    async def learn(request: Request):
        data = await _json_body(request)
        with _lexicon_errors():
            entry = workspace.learn(
                _spelling(data.get("spelling", "")), kind=str(data.get("kind", "name")),
                scope=str(data.get("scope", "corpus")),
                tag=str(data.get("tag", "PRE")), confirm=data.get("confirm", False), reviewer=who(request).name,
                lexicon_dir=settings.lexicon_dir, digest=data.get("digest"),
            )
        return JSONResponse(entry)

    async def learnt(request: Request):
        return JSONResponse(workspace.learnt())

    async def unlearn(request: Request):
        entry_id = _int(request.path_params["entry"], 0, lowest=-_INT64)
        with _lexicon_errors():
            return JSONResponse(workspace.unlearn(entry_id, reviewer=who(request).name,
                                                  lexicon_dir=settings.lexicon_dir))

    async def audit(request: Request):
        return JSONResponse(workspace.audit_estimate())

    async def consistency(request: Request):
        return JSONResponse(workspace.consistency())

    def consistency_filters(query) -> dict:
        text = query.get("q") or None
        if text is not None and len(text) > MAX_SPELLING:
            raise coded(BadOption(f"a search has at most {MAX_SPELLING} characters"), "search_too_long",
                        max=MAX_SPELLING)
        return {"q": text, "tag": query.get("tag") or None, "status": query.get("status") or None,
                "kind": query.get("kind") or None}

    def consistency_window(query) -> tuple[int, int]:
        return _int(query.get("offset"), 0), _int(query.get("limit"), 25, 1, CONSISTENCY_PAGE)

    async def consistency_cases(request: Request):  # a page of the cases the filters find
        query = request.query_params
        offset, limit = consistency_window(query)
        return JSONResponse(workspace.consistency_page(**consistency_filters(query), offset=offset, limit=limit))

    # A decision for every case a page shows: the preview first (GET, the page's filters and window),
    # then the decision (POST) naming those cases and the preview's digest, refused without it.
    async def consistency_bulk_preview(request: Request):
        query = request.query_params
        offset, limit = consistency_window(query)
        shown = workspace.consistency_page(**consistency_filters(query), offset=offset, limit=limit)["items"]
        return JSONResponse(workspace.consistency_bulk_preview(
            query.get("decision") or "", [[c["kind"], c["key"]] for c in shown]))

    async def consistency_bulk(request: Request):
        data = await _json_body(request)
        try:
            done = workspace.decide_consistency_bulk(str(data.get("decision", "")), data.get("cases"),
                                                     reviewer=who(request).name, digest=data.get("digest"))
        except BulkChanged as err:
            return _raised(err, 409, changed=True, preview=err.preview)
        return JSONResponse(done)

    async def consistency_decision(request: Request):
        data = await _json_body(request)
        kind, key, decision = str(data.get("kind", "")), _spelling(data.get("key", "")), str(data.get("decision", ""))
        version = data.get("version")
        if decision == "readable" and kind == "mixed" and version is None:
            # Showing a spelling where it is hidden releases text: only with the case's version, the
            # state the reviewer was shown (and confirmed) it in, as learning an ordinary word needs its digest.
            case = workspace.consistency_case(kind, key)
            if case is not None and case["mentions"]:
                n, m = len(case["mentions"]), case["hidden"]
                return _error(f"showing '{case['key']}' everywhere makes {n} hidden item{'s' if n != 1 else ''} "
                              f"readable in {m} message{'s' if m != 1 else ''}: send the case's version to confirm",
                              409, code="consistency_show_confirm", params={"key": case["key"], "n": n, "m": m},
                              preview={"kind": kind, "key": case["key"], "readable": n, "readable_messages": m,
                                            "tags": case["tags"], "version": case["version"]})
        return JSONResponse(workspace.decide_consistency(kind, key, decision, reviewer=who(request).name,
                                                         version=version))

    async def consistency_recent(request: Request):  # the reviewer's last consistency decisions: undo's list
        limit = _int(request.query_params.get("limit"), 8, 1, 100)
        return JSONResponse(workspace.consistency_recent(reviewer=who(request).name, limit=limit))

    # Undo names the decision the list showed first (`seq`); one that makes hidden text readable needs
    # the preview's digest, as deciding so does (409 with the preview first).
    async def consistency_undo(request: Request):
        data = await _json_body(request)
        try:
            done = workspace.undo_consistency(reviewer=who(request).name, seq=data.get("seq"),
                                              digest=data.get("digest"))
        except BulkChanged as err:
            return _raised(err, 409, changed=True, preview=err.preview)
        return JSONResponse(done)

    async def consistency_page(request: Request):
        return FileResponse(STATIC / "consistency.html", media_type="text/html; charset=utf-8")

    api = [
        Route("/api/state", handle(state)),
        Route("/api/items", handle(items)),
        Route("/api/items/{id:path}/decision", handle(decision), methods=["POST"]),
        Route("/api/items/{id:path}/skip", handle(skip), methods=["POST"]),
        Route("/api/items/{id:path}/lease", handle(lease), methods=["POST"]),
        Route("/api/items/{id:path}/adjudicate", handle(adjudicate), methods=["POST"]),
        Route("/api/claim", handle(claim), methods=["POST"]),
        Route("/api/disputes", handle(disputes)),
        Route("/api/items/{id:path}", handle(item)),
        Route("/api/undo", handle(undo), methods=["POST"]),
        Route("/api/bulk", handle(bulk_preview)),
        Route("/api/bulk", handle(bulk), methods=["POST"]),
        Route("/api/concordance", handle(concordance)),
        Route("/api/concordance", handle(occurrences), methods=["POST"]),
        Route("/api/recent", handle(recent)),
        Route("/api/candidates", handle(candidates)),
        Route("/api/preview", handle(preview)),
        Route("/api/learn", handle(learn), methods=["POST"]),
        Route("/api/learnt", handle(learnt)),
        Route("/api/learnt/{entry}", handle(unlearn), methods=["DELETE"]),
        Route("/api/audit", handle(audit)),
        Route("/api/consistency", handle(consistency)),
        Route("/api/consistency", handle(consistency_decision), methods=["POST"]),
        Route("/api/consistency/cases", handle(consistency_cases)),
        Route("/api/consistency/bulk", handle(consistency_bulk_preview)),
        Route("/api/consistency/bulk", handle(consistency_bulk), methods=["POST"]),
        Route("/api/consistency/recent", handle(consistency_recent)),
        Route("/api/consistency/undo", handle(consistency_undo), methods=["POST"]),
        Mount("/static", app=StaticFiles(directory=STATIC)),
    ]
    routes = [
        Route("/", start),
        Route("/favicon.ico", lambda request: PlainTextResponse("", status_code=204)),
        Route(settings.root.rstrip("/"), start),
        Mount(settings.root.rstrip("/"), routes=[Route("/", page), Route("/consistency", consistency_page), *api]),
        *api,  # for scripts, which send X-Triage-Token
    ]
    async def http_error(request: Request, exc: HTTPException):  # unknown path, wrong method: JSON too
        code = {404: "not_found", 405: "method_not_allowed"}.get(exc.status_code, "http_error")
        return _error(f"{exc.detail}: {request.method} {request.url.path}", exc.status_code, headers=exc.headers,
                      code=code, params={"method": request.method, "path": request.url.path, "status": exc.status_code})

    app = Starlette(routes=routes, exception_handlers={HTTPException: http_error})
    app.add_middleware(_Guard, settings=settings, workspace=workspace)
    return app


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


class _EncryptedKey(Exception):
    pass


def check_tls(certificate, key) -> tuple[str, str] | None:
    """The certificate and key files `--certificate` / `--key` name, checked by loading them as the
    server will (a one-line error otherwise); None when neither is given."""
    import ssl

    if certificate is None and key is None:
        return None
    if certificate is None or key is None:
        raise BadOption("--certificate and --key go together: the certificate (PEM) and its private key")
    certificate, key = os.fspath(certificate), os.fspath(key)
    for option, path in (("--certificate", certificate), ("--key", key)):
        if not os.path.isfile(path):
            raise BadOption(f"{option} {path}: no such file")

    def no_passphrase():
        raise _EncryptedKey

    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    try:
        context.load_verify_locations(cafile=certificate)
    except (ssl.SSLError, OSError, ValueError):
        raise BadOption(f"--certificate {certificate} is not a PEM certificate") from None
    try:
        context.load_cert_chain(certificate, key, password=no_passphrase)
    except _EncryptedKey:
        raise BadOption(f"--key {key} is encrypted: give the key without a passphrase (readable by you only)") from None
    except ssl.SSLError as err:
        if getattr(err, "reason", None) == "KEY_VALUES_MISMATCH":
            raise BadOption(f"--key {key} is not the private key of {certificate}") from None
        raise BadOption(f"--key {key} is not a PEM private key (of {certificate})") from None
    except OSError as err:
        raise BadOption(f"cannot read {key}: {err.strerror or err}") from None
    return certificate, key


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
    announce(f"review: {address}")
    config = _uvicorn_config(create_app(workspace, settings), tls, access_log=False, timeout_graceful_shutdown=2)
    server = uvicorn.Server(config)
    launcher = _open_browser(address) if open_browser else None
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
