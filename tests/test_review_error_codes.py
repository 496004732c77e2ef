"""The review server's errors carry a stable code and its params besides their English line, and the
page has a French text for every code the server can answer with: read from the source (every
refusal raised on the server's paths is coded), from i18n.js (a text per code, naming only that
code's params), and from requests (each error answered has a code of its own and its params)."""

import ast
import re

import pytest
from conftest import REPO
from starlette.testclient import TestClient
from test_review_page_basics import SHORT, make_workspace

from triage.review_workspace import Workspace
from triage.review_workspace.codes import PARAMS
from triage.review_workspace.server import MAX_BODY, Settings, create_app

PACKAGE = REPO / "triage" / "review_workspace"
# The workspace (its facade and its jobs in store/), the consistency cases and the server (server/).
SOURCES = ["workspace.py", *sorted(f"store/{path.name}" for path in (PACKAGE / "store").glob("*.py")), "consistency.py",
           *sorted(f"server/{path.name}" for path in (PACKAGE / "server").glob("*.py"))]
REFUSALS = {"BadOption", "BadInput", "InputError", "Conflict", "NeedsConfirmation", "BulkChanged", "TextChanged",
            "WorkspaceUnavailable", "WorkspaceFull", "WorkspaceReadOnly", "WorkspaceDamaged", "WorkspaceBusy",
            "WorkspaceSwapped", "_NotLead"}
# Functions no request of the page reaches (the command line's: opening, making and syncing a
# workspace, importing a spreadsheet, the server's own options): their errors are English lines.
COMMAND_LINE = {"_owner_checked", "_make_private", "default_path", "open", "sync", "load", "add_columns", "check_same_corpus",
                "refuse_other_corpus",
                "import_decisions", "_check_import", "_mark_double", "check_host", "bind", "check_tls"}
# Codes chosen at run time at their one site (the names it picks from).
CHOSEN = {"consistency_gone", "consistency_decided_since", "consistency_changed", "not_found", "method_not_allowed",
          "http_error", "error"}


def french() -> dict[str, str]:
    """ERRORS.fr of i18n.js: code -> French text (the parts joined with ACTIONS_FR written out)."""
    script = (PACKAGE / "static" / "i18n.js").read_text(encoding="utf-8")
    actions = re.search(r'const ACTIONS_FR = "([^"]*)";', script).group(1)
    block = script.split("const ERRORS = {\n  fr: {\n", 1)[1].split("\n  },\n};", 1)[0]
    table = {}
    for line in block.splitlines():
        found = re.fullmatch(r'    (\w+): (".*"),', line)
        assert found, line
        text = found.group(2).replace('"{" + ACTIONS_FR + "}"', "").replace('" + ACTIONS_FR + "', actions)
        table[found.group(1)] = "".join(re.findall(r'"((?:[^"\\]|\\.)*)"', text))
    return table


def coded_sites() -> tuple[dict[str, set], list[str]]:
    """The codes the source raises or answers with, each with its params; and the refusals raised
    uncoded outside the command line's functions."""
    found: dict[str, set] = {}
    uncoded: list[str] = []
    for name in SOURCES:
        tree = ast.parse((PACKAGE / name).read_text(encoding="utf-8"))

        def visit(node, function=None, name=name):
            for child in ast.iter_child_nodes(node):
                if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    visit(child, child.name, name)
                    continue
                if isinstance(child, ast.Call) and ast.unparse(child.func) == "coded":
                    code = child.args[1]
                    params = {k.arg for k in child.keywords}
                    if isinstance(code, ast.Constant):
                        found.setdefault(code.value, set()).update(params)
                    else:  # chosen at run time: each name it can take is in CHOSEN
                        for chosen in CHOSEN:
                            found.setdefault(chosen, set())
                if isinstance(child, ast.Call) and ast.unparse(child.func) == "_error":
                    keywords = {k.arg: k.value for k in child.keywords}
                    if isinstance(keywords.get("code"), ast.Constant):
                        params = keywords.get("params")
                        keys = {k.value for k in params.keys} if isinstance(params, ast.Dict) else set()
                        found.setdefault(keywords["code"].value, set()).update(keys)
                if (isinstance(child, ast.Raise) and isinstance(child.exc, ast.Call)
                        and ast.unparse(child.exc.func) in REFUSALS and function not in COMMAND_LINE):
                    uncoded.append(f"{name}:{child.lineno} ({function})")
                visit(child, function, name)

        visit(tree)
    return found, uncoded


def test_every_refusal_on_the_servers_paths_is_coded_with_the_params_of_its_code():
    found, uncoded = coded_sites()
    assert not uncoded, f"raised without a code (wrap it in coded(...)): {uncoded}"
    unknown = set(found) - set(PARAMS)
    assert not unknown, f"codes missing from codes.PARAMS: {sorted(unknown)}"
    for code, params in found.items():
        assert params <= set(PARAMS[code]), (code, params, PARAMS[code])
    assert set(PARAMS) - set(found) == set(), f"codes no site uses: {sorted(set(PARAMS) - set(found))}"


def test_the_page_has_a_french_text_for_every_code_naming_only_its_params():
    table = french()
    assert set(table) == set(PARAMS), (sorted(set(PARAMS) - set(table)), sorted(set(table) - set(PARAMS)))
    for code, text in table.items():
        named = set(re.findall(r"\{(\w+)(?=[}:?])", text))
        assert named <= set(PARAMS[code]), (code, named - set(PARAMS[code]))
        words = re.sub(r"\{[^{}]*\}", "", text)
        assert not re.search(r"\b(the|nothing|was|must|refused|since)\b", words), (code, text)  # no English left


@pytest.fixture
def client(tmp_path):
    path = make_workspace(tmp_path, SHORT)
    workspace = Workspace.open(path)
    app = create_app(workspace, Settings(token="t0ken", port=8126, reviewer="ana", lexicon_dir=str(tmp_path / "lex")))
    with TestClient(app, base_url="http://127.0.0.1:8126", raise_server_exceptions=False) as test_client:
        test_client.headers["X-Triage-Token"] = "t0ken"
        yield test_client, workspace
    workspace.close()


def test_each_error_a_request_meets_has_a_code_of_its_own_and_its_params(client):
    http, workspace = client
    first = workspace.item("1")
    body = {"label": "TA", "spans": [], "text_hash": first.text_hash, "version": first.version}
    workspace.lease("2", "bob", seconds=300)
    requests = {
        "token_refused": http.get("/api/state", headers={"X-Triage-Token": "wrong"}),
        "host_refused": http.get("/api/state", headers={"Host": "evil.example:8126"}),
        "other_site": http.post("/api/claim", json={}, headers={"Origin": "http://evil.example"}),
        "link_refused": http.get("/?token=wrong"),
        "too_large": http.post("/api/claim", content=b"x" * (MAX_BODY + 1)),
        "not_found": http.get("/api/nothing-here"),
        "method_not_allowed": http.delete("/api/state"),
        "not_json": http.post("/api/claim", content=b"{", headers={"Content-Type": "application/json"}),
        "not_object": http.post("/api/claim", json=[1]),
        "not_whole": http.get("/api/items?offset=x"),
        "search_too_long": http.get("/api/items?q=" + "a" * 201),
        "status_unknown": http.get("/api/items?status=bogus"),
        "message_unknown": http.get("/api/items/nope"),
        "label_unknown": http.post("/api/items/1/decision", json={**body, "label": "MAYBE"}),
        "span_outside": http.post("/api/items/1/decision", json={**body, "spans": [[0, 999, "PRE"]]}),
        "spans_overlap": http.post("/api/items/1/decision", json={**body, "spans": [[0, 3, "PRE"], [1, 4, "PRE"]]}),
        "lease_assigned": http.post("/api/items/2/decision", json={**body, "text_hash": workspace.item("2").text_hash,
                                                                   "version": workspace.item("2").version}),
        "text_changed": http.post("/api/items/1/decision", json={**body, "text_hash": "0" * 64}),
        "not_lead_server": http.get("/api/disputes"),
        "learn_empty": http.post("/api/learn", json={"spelling": " "}),
        "case_status_unknown": http.get("/api/consistency/cases?status=maybe"),
        "cases_empty": http.get("/api/consistency/bulk?decision=hide"),  # a corpus with no case
        "consistency_undo_seq_invalid": http.post("/api/consistency/undo", json={"seq": "x"}),
    }
    workspace.decide("1", label="NTA", spans=[], reviewer="bob")
    requests["decided_since"] = http.post("/api/items/1/decision", json={**body, "version": None})
    third = workspace.item("3")
    workspace.skip("3", reviewer="bob")
    requests["changed_since"] = http.post("/api/items/3/skip", json={"text_hash": third.text_hash,
                                                                      "version": third.version})
    for expected, answer in requests.items():
        data = answer.json()
        assert answer.status_code >= 400 and data["code"] == expected, (expected, answer.status_code, data)
        assert set(data["params"]) == set(PARAMS[expected]), (expected, data["params"])
    assert requests["lease_assigned"].json()["params"]["reviewer"] == "bob"
    assert requests["decided_since"].json()["params"] == {"id": "1", "status": "decided", "reviewer": "bob"}
    assert requests["changed_since"].json()["params"] == {"id": "3", "reviewer": "bob", "action": "skip",
                                                          "refused": "skipped"}
