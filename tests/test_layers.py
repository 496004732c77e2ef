"""The code's layers (pyproject.toml, [tool.importlinter]) hold: no module imports from a layer
above its own, so the import graph has no cycle. Checked with import-linter on the installed
layout: features/ and dictionaries/ install as triage.features and triage.dictionaries, so the
check runs on a copy of the package laid out that way."""

import shutil
import subprocess
import sys
from pathlib import Path

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
