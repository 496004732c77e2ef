"""The review server's JSON error answers: one line, with the stable code and params the page says
in its own language (codes.py); the refusals a route meets, answered with their status."""

from __future__ import annotations

import contextlib

from starlette.requests import Request
from starlette.responses import JSONResponse

from triage.errors import InputError
from triage.review_workspace.codes import coded
from triage.review_workspace.workspace import Conflict, NeedsConfirmation, WorkspaceUnavailable


ERROR_WIDTH = 240  # characters of an error line at most
_INT64 = 1 << 63  # SQLite's integers are signed 64-bit


class _NotLead(Exception):
    """A lead reviewer's request (adjudication) from another token than the lead's: 403."""


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


def _short(value: str, width: int = 40) -> str:
    return repr(value if len(value) <= width else value[:width] + "...")


def handle(endpoint):
    """A route's endpoint whose refusals are answered as JSON errors with their status (409 for a
    conflict or a confirmation to give, 404 for an unknown message, 403 for a lead's request from
    another token, the workspace's own for an unusable one, 400 for the rest)."""

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
