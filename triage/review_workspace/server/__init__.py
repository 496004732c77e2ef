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

Its modules, one concern each:
- settings: Settings, and the checks of where it listens (--host, TLS, this machine's addresses);
- security: the guard around every request (Host, Origin, token, body size, security headers);
- error_answers: the one-line JSON errors with their codes; request_values: reading a request;
- routes_messages, routes_words, routes_consistency, routes_team: the JSON routes of each part
  of the review;
- app: the application assembled (the pages, the routes, the guard); serving: `serve` and
  BackgroundServer.
"""

from triage.review_workspace.server.app import STATIC, create_app
from triage.review_workspace.server.error_answers import ERROR_WIDTH
from triage.review_workspace.server.request_values import CONSISTENCY_PAGE, MAX_SPELLING, PAGE_LIMIT
from triage.review_workspace.server.security import COOKIE, CSP, MAX_BODY, TOKEN_HEADER, Reviewer, identify
from triage.review_workspace.server.serving import BackgroundServer, bind, serve
from triage.review_workspace.server.settings import (
    EVERY_ADDRESS,
    Settings,
    check_host,
    check_tls,
    is_local,
    is_network,
    links_line,
    network_address,
    network_warning,
)

__all__ = [
    "CONSISTENCY_PAGE", "COOKIE", "CSP", "ERROR_WIDTH", "EVERY_ADDRESS", "MAX_BODY", "MAX_SPELLING", "PAGE_LIMIT",
    "STATIC", "TOKEN_HEADER", "BackgroundServer", "Reviewer", "Settings", "bind", "check_host", "check_tls",
    "create_app", "identify", "is_local", "is_network", "links_line", "network_address", "network_warning", "serve",
]
