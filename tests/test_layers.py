"""The code's layers (pyproject.toml, [tool.importlinter]) hold: no module imports from a layer
above its own, so the import graph has no cycle. Checked with import-linter on the installed
layout: features/ and dictionaries/ install as triage.features and triage.dictionaries, so the
check runs on a copy of the package laid out that way. The contracts order the modules they name
(the top of `triage`, and inside `seekhide` and `review_workspace`); a cycle between two modules
of a package no contract orders (`io`, `reports`...) would pass them, so every import statement
of the tool, at the top of a module or inside a function, is also read here (ast), and the whole
graph must have no cycle."""

import ast
import shutil
import subprocess
import sys
from graphlib import CycleError, TopologicalSorter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def installed_layout(folder: Path) -> Path:
    """A copy of the package's Python modules as `pip install` lays them out."""
    python_only = shutil.ignore_patterns("__pycache__", "static", "*.txt", "*.tsv", "*.json", "*.md")
    shutil.copytree(ROOT / "triage", folder / "triage", ignore=python_only)
    shutil.copytree(ROOT / "features", folder / "triage" / "features", ignore=python_only)
    shutil.copytree(ROOT / "dictionaries", folder / "triage" / "dictionaries", ignore=python_only)
    return folder


def lint_imports(folder: Path) -> subprocess.CompletedProcess:
    code = (
        "import sys; from importlinter.cli import lint_imports; "
        f"sys.exit(lint_imports(config_filename={str(ROOT / 'pyproject.toml')!r}, no_cache=True))"
    )
    return subprocess.run([sys.executable, "-c", code], cwd=folder, capture_output=True, text=True,
                          env={"PYTHONPATH": str(folder), "PATH": "/usr/bin:/bin"}, timeout=120)


def test_no_module_imports_from_a_layer_above_its_own(tmp_path):
    result = lint_imports(installed_layout(tmp_path))
    assert result.returncode == 0, result.stdout + result.stderr


def test_an_upward_import_breaks_the_layers(tmp_path):
    folder = installed_layout(tmp_path)
    schema = folder / "triage" / "schema.py"
    schema.write_text(schema.read_text("utf-8") + "\nfrom triage import jobs  # noqa\n", "utf-8")
    result = lint_imports(folder)
    assert result.returncode != 0
    assert "triage.schema -> triage.jobs" in result.stdout


@pytest.mark.parametrize("module, added, refused", [
    # A job of the workspace importing another: each job calls the others on the Workspace object.
    ("review_workspace/store/decisions.py", "from triage.review_workspace.store import leases  # noqa\n",
     "triage.review_workspace.store.decisions is not allowed to import"),
    # Agreement reading the workspace, inside a function: the workspace imports agreement.
    ("review_workspace/agreement.py", "def pause():\n    from triage.review_workspace.workspace import PAUSE\n\n"
     "    return PAUSE\n", "triage.review_workspace.agreement is not allowed to import"),
    # One part of the server's routes importing another's: they stand side by side.
    ("review_workspace/server/routes_team.py", "from triage.review_workspace.server import routes_messages  # noqa\n",
     "triage.review_workspace.server.routes_team is not allowed to import"),
])
def test_the_review_workspace_keeps_its_layers(tmp_path, module, added, refused):
    folder = installed_layout(tmp_path)
    path = folder / "triage" / module
    path.write_text(path.read_text("utf-8") + "\n\n" + added, "utf-8")
    result = lint_imports(folder)
    assert result.returncode != 0
    assert refused in result.stdout, result.stdout


def import_graph(folder: Path) -> dict[str, set[str]]:
    """Module -> the modules of the tool it imports, from every import statement of the installed
    layout in `folder`: at the top of a module and inside functions alike. Imports under
    `if TYPE_CHECKING:` are left out, as the contracts leave them out (they never run)."""
    modules = {}
    for path in (folder / "triage").rglob("*.py"):
        parts = path.relative_to(folder).with_suffix("").parts
        modules[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path

    def found(name: str) -> str:
        while name and name not in modules:
            name = name.rpartition(".")[0]
        return name

    graph: dict[str, set[str]] = {}
    for module, path in modules.items():
        tree = ast.parse(path.read_text("utf-8"))
        typing_only = {id(node) for branch in ast.walk(tree)
                       if isinstance(branch, ast.If) and "TYPE_CHECKING" in ast.unparse(branch.test)
                       for statement in branch.body for node in ast.walk(statement)}
        package = module if path.name == "__init__.py" else module.rpartition(".")[0]
        for node in ast.walk(tree):
            if id(node) in typing_only:
                continue
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:  # relative: from its package, or a package above
                    anchor = package.split(".")[:len(package.split(".")) - node.level + 1]
                    base = ".".join([*anchor, base] if base else anchor)
                submodules = [f"{base}.{alias.name}" for alias in node.names if f"{base}.{alias.name}" in modules]
                names = submodules if len(submodules) == len(node.names) else [*submodules, base]
            else:
                continue
            graph.setdefault(module, set()).update(target for name in names if (target := found(name)) != module
                                                   and target)
    return graph


def cycle_in(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle of the graph (its modules, the first one again at the end), or None."""
    try:
        tuple(TopologicalSorter(graph).static_order())
    except CycleError as err:
        return err.args[1]
    return None


def test_no_import_cycle_even_through_imports_inside_functions(tmp_path):
    cycle = cycle_in(import_graph(installed_layout(tmp_path)))
    assert cycle is None, "import cycle: " + " -> ".join(reversed(cycle))


def test_an_import_inside_a_function_that_closes_a_cycle_is_found(tmp_path):
    """A cycle the contracts do not see: inside `io` (one layer), `messages` imports `formats` at its
    top, and `formats` would import `messages` inside a function."""
    folder = installed_layout(tmp_path)
    formats = folder / "triage" / "io" / "formats.py"
    formats.write_text(formats.read_text("utf-8") + "\n\ndef late():\n"
                       "    from triage.io.messages import Records\n\n    return Records\n", "utf-8")
    assert lint_imports(folder).returncode == 0
    cycle = cycle_in(import_graph(folder))
    assert cycle is not None
    assert {"triage.io.formats", "triage.io.messages"} <= set(cycle)


def test_every_module_has_its_place_in_the_layers():
    import tomllib

    config = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["tool"]["importlinter"]
    layers = config["contracts"][0]["layers"]
    placed = {name.strip() for layer in layers for name in layer.split("|")}
    modules = {path.stem for path in (ROOT / "triage").glob("*.py") if path.stem != "__init__"}
    modules |= {path.name for path in (ROOT / "triage").iterdir() if (path / "__init__.py").exists()}
    modules |= {"features", "dictionaries"}
    assert modules - {"data"} <= placed, f"not in any layer: {sorted(modules - {'data'} - placed)}"


def test_only_the_triage_package_is_installed_at_the_top(tmp_path):
    """features/ and dictionaries/ install inside triage: nothing else lands at the top of
    site-packages, where it could collide with another project's `features`."""
    import tomllib

    setuptools = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["tool"]["setuptools"]
    assert all(package == "triage" or package.startswith("triage.") for package in setuptools["packages"])
    code = "import importlib.util as u; print(u.find_spec('features'), u.find_spec('dictionaries'), u.find_spec('triage.features') is not None)"
    result = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert result.stdout.split() == ["None", "None", "True"], result.stdout + result.stderr


def test_every_package_of_the_tool_is_installed():
    """A package left out of pyproject.toml's list works from the repository and is missing from
    an installed copy."""
    import tomllib

    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["tool"]["setuptools"]["packages"])
    found = {".".join(path.parent.relative_to(ROOT).parts) for path in (ROOT / "triage").rglob("__init__.py")}
    assert found <= listed, f"not installed: {sorted(found - listed)}"
