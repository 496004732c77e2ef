"""What compiling the engine's Python modules as they are, with Cython, would gain: a copy of this
checkout whose hot modules are compiled to C extensions, timed against this installation turn about
by benchmarks/ab.py.

    python benchmarks/compiled.py [--modules triage/seekhide/table.py ...] -- [ab.py's options]

The copy is laid out as the installed package is (features/, dictionaries/ and data/ inside
triage/) in a temporary folder; each module is compiled unchanged (Cython's pure-Python mode, the
type annotations not read as C types, so that every value keeps its Python type) and imported
from there through PYTHONPATH, where an extension module comes before its .py file. It answers
whether the time goes to the interpreter stepping through the code, which a compiler removes, or
to what each step calls (string methods, dictionary look-ups, numpy), which it does not.

Needs Cython (`pip install cython`) and a C compiler: a measurement for the project's developers.
sms-triage itself never needs either to install or to run.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import ab  # noqa: E402  (benchmarks/ab.py)

ROOT = Path(__file__).resolve().parent.parent

# The modules the classify pass spends its time in (benchmarks/components.py, py-spy).
HOT_MODULES = [
    "triage/seekhide/__init__.py", "triage/seekhide/table.py", "triage/seekhide/words.py",
    "triage/seekhide/spelling_batch.py", "triage/seekhide/analysis.py", "triage/seekhide/context.py",
    "triage/seekhide/components.py", "triage/seekhide/steps.py", "triage/text/stretches.py",
    "triage/text/normalise.py", "triage/text/tokenise.py", "triage/text/detectors.py",
    "triage/lexicons/__init__.py", "triage/lexicons/wordlist.py", "triage/lexicons/nearwords.py",
    "triage/model/__init__.py", "triage/model/names.py", "triage/recognizers.py", "triage/classifier.py",
    "triage/combiner.py", "triage/io/writing.py", "triage/io/messages.py", "triage/pipeline/__init__.py",
    "triage/pipeline/memory.py", "triage/pipeline/arrays.py", "triage/features/counts.py",
]

BUILD = """\
import sys
from setuptools import setup
from Cython.Build import cythonize
setup(script_args=["build_ext", "--inplace"], ext_modules=cythonize(
    sys.argv[1:], language_level=3, nthreads=2, quiet=True,
    compiler_directives={"annotation_typing": False, "binding": True}))
"""


def package_copy(folder: Path) -> Path:
    """A copy of this checkout's package in `folder`, laid out as installed (features/,
    dictionaries/ and data/ inside triage/): the folder to put on PYTHONPATH."""
    ignore = shutil.ignore_patterns("__pycache__", "*.so", "*.c")
    shutil.copytree(ROOT / "triage", folder / "triage", ignore=ignore)
    for name in ("features", "dictionaries", "data"):
        shutil.copytree(ROOT / name, folder / "triage" / name, ignore=ignore)
    return folder


def compile_modules(folder: Path, modules: list[str]) -> None:
    """Compile `modules` (paths inside the installed package, as in HOT_MODULES) of the copy in
    `folder` to C extensions beside them."""
    (folder / "build_compiled.py").write_text(BUILD, encoding="utf-8")
    built = subprocess.run([sys.executable, "build_compiled.py", *modules], cwd=folder, capture_output=True, text=True)
    if built.returncode != 0:
        raise SystemExit(f"the modules did not compile:\n{built.stderr[-3000:]}")
    if len(list(folder.glob("triage/**/*.so"))) != len(modules):
        raise SystemExit(f"{len(list(folder.glob('triage/**/*.so')))} modules compiled of {len(modules)}")


def interpreter(folder: Path, top: Path) -> Path:
    """A script that runs this interpreter with `top` first on PYTHONPATH: the `--base` of ab.py."""
    script = folder / "python"
    script.write_text(f'#!/bin/sh\nPYTHONPATH="{top}" exec "{sys.executable}" "$@"\n', encoding="utf-8")
    script.chmod(0o755)
    return script


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    ours, theirs = (argv[:argv.index("--")], argv[argv.index("--") + 1:]) if "--" in argv else (argv, [])
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--modules", nargs="+", default=HOT_MODULES, help="the modules to compile")
    args = parser.parse_args(ours)
    try:
        import Cython
    except ImportError:
        print("needs Cython: pip install cython (and a C compiler)", file=sys.stderr)
        return 2
    folder = Path(tempfile.mkdtemp(prefix="triage-compiled-"))
    try:
        top = package_copy(folder / "top")
        compile_modules(top, args.modules)
        python = interpreter(folder, top)
        # The copy's lexicon snapshot is made once, before the timed runs (its folder is a new one).
        sample = ROOT / "data" / "sample_sms.csv"
        subprocess.run([str(python), "-m", "triage", "classify", str(sample), "-o", str(folder / "warm.csv"),
                        "--no-chart"], check=True, stdout=subprocess.DEVNULL, cwd=folder)  # (not a checkout's top)
        status = ab.main(["--base", str(python), *theirs])
        out = next((Path(value) for option, value in zip(theirs, theirs[1:]) if option == "--out"), None)
        if status == 0 and out is not None:  # what "base" is, beside ab.py's report
            report = json.loads(out.read_text(encoding="utf-8"))
            report["base_is"] = {"compiled_by": f"Cython {Cython.__version__}", "modules": args.modules}
            out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
        return status
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
