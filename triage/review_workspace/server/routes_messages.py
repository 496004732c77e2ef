"""The review page's JSON routes for the messages: the state of the review, the list and its pages, a
message, claiming and holding one (its lease), deciding, skipping and undoing, bulk decisions, the
reviewer's last actions and the audit estimate."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from triage.errors import BadOption
from triage.queue.files import CONTACT_TAGS
from triage.review_workspace.codes import coded
from triage.review_workspace.server.error_answers import _INT64, _error, _raised, handle
from triage.review_workspace.server.request_values import PAGE_LIMIT, _filters, _int, _json_body
from triage.review_workspace.server.security import who
from triage.review_workspace.server.settings import Settings
from triage.review_workspace.workspace import TAGS, BulkChanged, TextChanged, Workspace


def _language(text: str) -> dict:
    """Whether a message is mostly in another language (see triage/seekhide/language.py)."""
    from triage import lexicons
    from triage.seekhide.language import language

    return language(text, lexicons.default())


def message_routes(workspace: Workspace, settings: Settings) -> list[Route]:
    """The messages' routes over `workspace` (under /api/)."""

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

    async def recent(request: Request):
        limit = _int(request.query_params.get("limit"), 8, 1, 100)
        return JSONResponse(workspace.recent(reviewer=who(request).name, limit=limit))

    async def audit(request: Request):
        return JSONResponse(workspace.audit_estimate())

    return [
        Route("/api/state", handle(state)),
        Route("/api/items", handle(items)),
        Route("/api/items/{id:path}/decision", handle(decision), methods=["POST"]),
        Route("/api/items/{id:path}/skip", handle(skip), methods=["POST"]),
        Route("/api/items/{id:path}/lease", handle(lease), methods=["POST"]),
        Route("/api/claim", handle(claim), methods=["POST"]),
        Route("/api/items/{id:path}", handle(item)),
        Route("/api/undo", handle(undo), methods=["POST"]),
        Route("/api/bulk", handle(bulk_preview)),
        Route("/api/bulk", handle(bulk), methods=["POST"]),
        Route("/api/recent", handle(recent)),
        Route("/api/audit", handle(audit)),
    ]
