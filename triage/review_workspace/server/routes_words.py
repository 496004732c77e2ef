"""The review page's JSON routes for words: a spelling's concordance and its occurrences decided one
by one, the candidates to learn, a word's preview, learning and unlearning it (the Words view)."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from triage.errors import BadOption
from triage.review_workspace.codes import coded
from triage.review_workspace.server.error_answers import _INT64, _lexicon_errors, _raised, handle
from triage.review_workspace.server.request_values import _int, _json_body, _spelling
from triage.review_workspace.server.security import who
from triage.review_workspace.server.settings import Settings
from triage.review_workspace.workspace import TextChanged, Workspace


def word_routes(workspace: Workspace, settings: Settings) -> list[Route]:
    """The words' routes over `workspace` (under /api/)."""

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

    return [
        Route("/api/concordance", handle(concordance)),
        Route("/api/concordance", handle(occurrences), methods=["POST"]),
        Route("/api/candidates", handle(candidates)),
        Route("/api/preview", handle(preview)),
        Route("/api/learn", handle(learn), methods=["POST"]),
        Route("/api/learnt", handle(learnt)),
        Route("/api/learnt/{entry}", handle(unlearn), methods=["DELETE"]),
    ]
