"""Reading a request of the review page: its JSON body (an object of text, nowhere a lone surrogate),
whole numbers within 64 bits, a spelling to learn, the list's filters; each refusal coded."""

from __future__ import annotations

import json

from starlette.requests import Request

from triage.errors import BadOption
from triage.review_workspace.codes import coded
from triage.review_workspace.server.error_answers import _INT64, _short


PAGE_LIMIT = 200  # items per API page at most
CONSISTENCY_PAGE = 100  # consistency cases per API page at most
MAX_SPELLING = 200  # characters of a word or phrase to learn


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
