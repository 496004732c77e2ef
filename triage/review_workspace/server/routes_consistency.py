"""The review page's JSON routes for consistency before a release: the cases and their pages, a
decision for a case or for every case a page shows (after its preview), the reviewer's last
consistency decisions and their undo."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from triage.errors import BadOption
from triage.review_workspace.codes import coded
from triage.review_workspace.server.error_answers import _error, _raised, handle
from triage.review_workspace.server.request_values import CONSISTENCY_PAGE, MAX_SPELLING, _int, _json_body, _spelling
from triage.review_workspace.server.security import who
from triage.review_workspace.server.settings import Settings
from triage.review_workspace.workspace import BulkChanged, Workspace


def consistency_routes(workspace: Workspace, settings: Settings) -> list[Route]:
    """The consistency routes over `workspace` (under /api/)."""

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

    return [
        Route("/api/consistency", handle(consistency)),
        Route("/api/consistency", handle(consistency_decision), methods=["POST"]),
        Route("/api/consistency/cases", handle(consistency_cases)),
        Route("/api/consistency/bulk", handle(consistency_bulk_preview)),
        Route("/api/consistency/bulk", handle(consistency_bulk), methods=["POST"]),
        Route("/api/consistency/recent", handle(consistency_recent)),
        Route("/api/consistency/undo", handle(consistency_undo), methods=["POST"]),
    ]
