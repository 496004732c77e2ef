"""The review application: the start-up address (the token turned into a cookie), the page and the
consistency page under the secret path, the JSON routes of each part of the review, under the secret
path and at /api/ for scripts; unknown paths and methods answered as JSON errors; the guard around it all."""

from __future__ import annotations

from pathlib import Path

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import FileResponse, PlainTextResponse, RedirectResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from triage.review_workspace.server.error_answers import _error
from triage.review_workspace.server.routes_consistency import consistency_routes
from triage.review_workspace.server.routes_messages import message_routes
from triage.review_workspace.server.routes_team import team_routes
from triage.review_workspace.server.routes_words import word_routes
from triage.review_workspace.server.security import COOKIE, _Guard, identify
from triage.review_workspace.server.settings import Settings
from triage.review_workspace.workspace import Workspace

STATIC = Path(__file__).resolve().parent.parent / "static"


def create_app(workspace: Workspace, settings: Settings) -> Starlette:
    """The review application over an open workspace (the caller closes it)."""

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

    async def consistency_page(request: Request):
        return FileResponse(STATIC / "consistency.html", media_type="text/html; charset=utf-8")

    # A message's own paths (.../adjudicate, .../decision) come before /api/items/{id:path}.
    api = [
        *team_routes(workspace, settings),
        *message_routes(workspace, settings),
        *word_routes(workspace, settings),
        *consistency_routes(workspace, settings),
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

