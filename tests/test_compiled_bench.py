"""benchmarks/compiled.py: a copy of the package, laid out as installed, that the benchmark compiles."""

import subprocess

import pytest
from conftest import REPO, benchmark_module


@pytest.fixture(scope="module")
def compiled():
    return benchmark_module("compiled")


def test_the_hot_modules_are_modules_of_the_package(compiled):
    for module in compiled.HOT_MODULES:
        in_checkout = module.replace("triage/features/", "features/", 1)
        assert (REPO / in_checkout).is_file(), module


def test_the_copy_is_what_its_interpreter_imports_from_any_folder(compiled, tmp_path):
    top = compiled.package_copy(tmp_path / "top")
    python = compiled.interpreter(tmp_path, top)
    found = subprocess.run([str(python), "-c", "import triage, triage.features.counts as counts, triage.lexicons as lx;"
                            "print(triage.__file__); print(counts.__file__); print(lx.DICTIONARIES_DIR)"],
                           cwd=tmp_path, capture_output=True, text=True, check=True).stdout.split()
    assert len(found) == 3
    assert all(str(top) in path for path in found), found
