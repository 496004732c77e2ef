"""The review page's JSON routes of the team's lead: the double review's disagreements and their
adjudication, refused to any token but the session's of a `--lead` server."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from triage.review_workspace.codes import coded
from triage.review_workspace.server.error_answers import _NotLead, _raised, handle
from triage.review_workspace.server.request_values import _json_body
from triage.review_workspace.server.security import who
from triage.review_workspace.server.settings import Settings
from triage.review_workspace.workspace import TextChanged, Workspace


def team_routes(workspace: Workspace, settings: Settings) -> list[Route]:
    """The lead's routes over `workspace` (under /api/)."""

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

    return [
        Route("/api/items/{id:path}/adjudicate", handle(adjudicate), methods=["POST"]),
        Route("/api/disputes", handle(disputes)),
    ]
