"""The code's layers (pyproject.toml, [tool.importlinter]) hold: no module imports from a layer
above its own, so the import graph has no cycle. Checked with import-linter on the installed
layout: features/ and dictionaries/ install as triage.features and triage.dictionaries, so the
check runs on a copy of the package laid out that way."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

pytest.importorskip("importlinter", reason="import-linter is a test dependency")


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
