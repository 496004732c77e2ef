"""Shared fixtures. Tests never need the network nor anything outside the repository: the
development corpus fixture skips when that corpus is absent (users of the tool do not have it;
set TRIAGE_DEV_CORPUS to its file to run the tests that use it)."""

import csv
import io
import json
import os
import signal
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from typer.testing import CliRunner

from triage import engines
from triage import lexicons as lexicon_module
from triage import model as model_module
from triage.cli import app, application
from triage.schema import CLASSIFY_COLUMNS as CLASSIFIED_COLUMNS  # what classify writes

REPO = Path(__file__).resolve().parent.parent

# A suite started in the background of a non-interactive shell (`pytest &`) inherits Ctrl-C (SIGINT)
# ignored, and so would every command it starts, which would then rightly ignore the Ctrl-C the tests
# send them: the commands the tests start get it at its default.
if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)
# The development corpus (88milSMS's development sample, never copied into the repository).
DEV_CORPUS = Path(os.environ.get("TRIAGE_DEV_CORPUS") or REPO.parent / "shared" / "data" / "sms_dev_88milsms.csv")
SAMPLE = REPO / "data" / "sample_sms.csv"


def benchmark_module(name: str):
    """The script benchmarks/<name>.py as a module (the benchmarks are scripts, not a package),
    kept in sys.modules under its own name: a dataclass of it looks its module up."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(f"benchmark_{name}", REPO / "benchmarks" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="session", autouse=True)
def _lexicon_cache(tmp_path_factory):
    """Lexicon snapshots go to a folder of the test session, never to the developer's cache
    (worker processes inherit the variable)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(lexicon_module.CACHE_DIR_ENV, str(tmp_path_factory.mktemp("lexicon-cache")))
        yield


@pytest.fixture(scope="session")
def lexicons(_lexicon_cache):
    return lexicon_module.load(user_directory=Path("/nonexistent-user-lexicon"))


@pytest.fixture(autouse=True)
def _no_user_lexicon(monkeypatch, tmp_path_factory):
    # The expert's answers of the developer's own runs must not change test results.
    monkeypatch.setenv(lexicon_module.USER_DIR_ENV, str(tmp_path_factory.mktemp("user-lexicon")))


@pytest.fixture(autouse=True)
def _cores_for_every_worker(monkeypatch):
    # A run's work is the same on any machine: with more workers than cores, this process learns the
    # first chunk before it forks them (engines.KeepingPool); the tests of that say so.
    monkeypatch.setattr(engines, "usable_cores", lambda: 64)


@pytest.fixture
def cli():
    """Runs `triage ...` in-process, like a user would type it: by the application the `triage`
    command runs for those arguments (triage.cli.application), which builds the click commands of
    the command or group given alone (a tenth of the time of them all, at every call)."""
    runner = CliRunner()

    def invoke(*args, input=None):
        args = [str(a) for a in args]
        return runner.invoke(application(args), args, input=input)

    return invoke


class SharedChromium:
    """One headless Chromium for the browser tests of a test process (starting one takes about a
    second), started at the first test that asks for it, and again if a test left it unusable."""

    def __init__(self, profiles):
        self.profiles, self.driver = profiles, None

    def afresh(self):
        """The browser as one just opened (test_review_browser.opened_afresh)."""
        from test_review_browser import chromium, opened_afresh

        if self.driver is not None:
            try:
                opened_afresh(self.driver)
                return self.driver
            except Exception:  # crashed or hung: another one
                self.close()
        self.driver = chromium(self.profiles.mktemp("chrome"))
        return self.driver

    def close(self) -> None:
        driver, self.driver = self.driver, None
        if driver is not None:
            try:
                driver.quit()
            except Exception:
                pass


@pytest.fixture(scope="session")
def shared_chromium(tmp_path_factory):
    """The test process's one Chromium (SharedChromium): the `browser` fixture of
    tests/test_review_browser.py hands it to each test as a browser just opened."""
    browsers = SharedChromium(tmp_path_factory)
    yield browsers
    browsers.close()


@pytest.fixture
def dev_corpus():
    if not DEV_CORPUS.exists():
        pytest.skip("the development corpus is absent (set TRIAGE_DEV_CORPUS to sms_dev_88milsms.csv)")
    return DEV_CORPUS


def rewrite_model(source: Path, target: Path, change) -> Path:
    """Copy a model file, changing its members (checksums NOT updated unless `change` does)."""
    with zipfile.ZipFile(source) as archive:
        members = {name: archive.read(name) for name in archive.namelist()}
    change(members)
    with zipfile.ZipFile(target, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return target


def edit_arrays(member: str, change):
    """A `change` for rewrite_model: the numpy arrays of `member` (forest.npz, names.npz), as a
    dict, edited by change(arrays), then every checksum signed again (what an attacker could do)."""
    import numpy as np

    def edit(members):
        with np.load(io.BytesIO(members[member])) as stored:
            arrays = dict(stored)
        change(arrays)
        buffer = io.BytesIO()
        np.savez(buffer, **arrays)
        members[member] = buffer.getvalue()
        with_checksums(members)
    return edit


def with_checksums(members: dict) -> None:
    """Sign the members and the metadata as model_bytes does: what an attacker could also do."""
    import hashlib
    import json

    from triage.model import metadata_digest

    meta = json.loads(members["metadata.json"])
    meta["sha256"] = {n: hashlib.sha256(d).hexdigest() for n, d in members.items() if n != "metadata.json"}
    meta["metadata_sha256"] = metadata_digest(meta)
    members["metadata.json"] = json.dumps(meta).encode()




@pytest.fixture(scope="session")
def classified_demo(tmp_path_factory, _lexicon_cache):
    """The demo corpus classified once per test session, through the CLI as a user does
    (read-only: tests that change it copy it first)."""
    out = tmp_path_factory.mktemp("classified") / "demo.csv"
    result = CliRunner().invoke(app, ["classify", str(SAMPLE), "-o", str(out)])
    assert result.exit_code == 0, result.output
    return out


@pytest.fixture
def classified(classified_demo):
    return classified_demo


@pytest.fixture
def workspace(classified_demo, tmp_path):
    """A review workspace of the classified demo corpus, with an audit sample of 20."""
    from triage.review_workspace import open_synced

    opened, _ = open_synced(classified_demo, tmp_path / "ws.sqlite", audit=20)
    with opened:
        yield opened


def write_queued(path: Path, text: str, highlighted: str = "[]") -> Path:
    """A classified file of one message queued for a human (decision EXPERT)."""
    import csv

    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(CLASSIFIED_COLUMNS)
        writer.writerow(["1", text, "UNTAGGED", "TA", "0.6", "EXPERT", text, "[]", highlighted, "0.5"])
    return path


# ------------------------------------------------------------------ bad-input helpers
# Shared by the tests/test_bad_input_*.py files: invented messages, files written as a user's
# spreadsheet would, the commands that read them, and what a clean failure looks like. The
# documented behaviour: bad input is one line "Error: ..." on stderr and exit code 1, bad usage
# exits 2, never a traceback unless --debug; the input is never modified; an output appears
# complete or not at all, never over an existing file without --force, never over an input,
# readable by its owner only when it holds messages.

DEFAULT_MODEL = model_module.default_model_path()
READING_COMMANDS = ("seek", "classify", "train", "evaluate")
HEADER = ["id", "text", "label", "spans"]

# Invented messages only (never the development corpus).
NAMES = ["Julie", "Kevin", "Sophie", "Nicolas", "Chloé", "Karim", "Léa", "Hugo", "Inès", "Yanis", "Manon", "Lucas"]
ORDINARY = ["ok", "jarrive", "bonne nuit", "tkt", "a plus", "merci", "trop bien", "on mange ?",
            "je suis la", "bisous", "il pleut", "c cool"]


def labelled_rows(ta: int = 12, nta: int = 12) -> list[list[str]]:
    """id, text, label, spans: `ta` messages with a first name, `nta` without."""
    rows = []
    for i in range(ta):
        name = NAMES[i % len(NAMES)]
        rows.append([f"{len(rows) + 1}", f"rdv avec {name} à 18h", "TA", json.dumps([[9, 9 + len(name), "PRE"]])])
    for i in range(nta):
        rows.append([f"{len(rows) + 1}", ORDINARY[i % len(ORDINARY)], "NTA", "[]"])
    return rows


def extra_rows(texts: list[str], first_id: int = 100) -> list[list[str]]:
    """Rows to append to labelled_rows(): ordinary (NTA) messages with no span."""
    return [[str(first_id + i), text, "NTA", "[]"] for i, text in enumerate(texts)]


def write_table(path: Path, rows, header=HEADER, *, encoding="utf-8", delimiter=",", newline="\n") -> Path:
    buffer = io.StringIO(newline="")
    writer = csv.writer(buffer, delimiter=delimiter, lineterminator=newline)
    if header is not None:
        writer.writerow(header)
    writer.writerows(rows)
    path.write_bytes(buffer.getvalue().encode(encoding))
    return path


def read_rows(path: Path, encoding="utf-8-sig") -> list[dict]:
    with open(path, encoding=encoding, newline="") as handle:
        return list(csv.DictReader(handle))


def command_line(command: str, source: Path, out: Path) -> list:
    """The command reading `source` and writing under the folder `out`."""
    return {
        "seek": ["seek", source, "-o", out / "seek.csv"],
        "classify": ["classify", source, "-o", out / "classified.csv"],
        "train": ["train", source, "-o", out / "model.triage", "--kind", "tree"],
        # The model file's figures only: the same reading of the gold file, without training a
        # model on it for each fold (what the tests of evaluate itself cover).
        "evaluate": ["evaluate", source, "--model", DEFAULT_MODEL, "--no-cross-validation", "--out-dir", out / "evaluate"],
        "report cv": ["report", "cv", source, "--folds", "2", "--out-dir", out / "cv"],
        "report holdout": ["report", "holdout", source, "--train-first", "22", "--test-next", "2", "--out-dir", out / "holdout"],
        "report infogain": ["report", "infogain", source, "--out-dir", out / "infogain"],
    }[command]


def run(cli, command: str, source: Path, out: Path, *extra):
    return cli(*command_line(command, source, out), *extra)


def message_output(command: str, out: Path) -> Path:
    return out / {"seek": "seek.csv", "classify": "classified.csv"}[command]


def succeeded(result) -> None:
    assert result.exit_code == 0, result.output
    assert result.exception is None, result.exception


def failed(result, code: int, *fragments: str) -> str:
    """An error as documented: exit `code`, no traceback, one line on stderr (for bad input)."""
    # An unexpected exception also exits 1 under CliRunner: it must not pass for a clean error.
    assert isinstance(result.exception, (SystemExit, type(None))), repr(result.exception)
    assert result.exit_code == code, result.output
    assert "Traceback" not in result.output and "Traceback" not in result.stderr
    message = result.stderr.strip()
    if code == 1:
        assert len(message.splitlines()) == 1 and message.startswith("Error: "), message
    for fragment in fragments:
        assert fragment in message, message
    return message


def nothing_written(out: Path) -> None:
    """No output and no temporary file: the output folder is absent or holds no file."""
    if out.exists():
        left = [p for p in out.rglob("*") if p.is_file()]
        assert left == [], left


@pytest.fixture
def out(tmp_path) -> Path:
    return tmp_path / "out"


@pytest.fixture
def labelled(tmp_path) -> Path:
    return write_table(tmp_path / "labelled.csv", labelled_rows())


@pytest.fixture
def expert_classified(cli, tmp_path) -> Path:
    """A classified file where every message went to the expert (budget 100%)."""
    source = write_table(tmp_path / "sms.csv", [[r[0], r[1]] for r in labelled_rows(4, 4)], ["id", "text"])
    path = tmp_path / "classified.csv"
    succeeded(cli("classify", source, "-o", path, "--expert-budget", "1"))
    return path


def duplicate_first_id(path: Path) -> None:
    rows = read_rows(path)
    rows[1]["id"] = rows[0]["id"]
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)


def fill_queue(queue: Path, decision: str = "NTA") -> Path:
    rows = read_rows(queue)
    for row in rows:
        row["expert_decision"] = decision
    with queue.open("w", encoding="utf-8-sig", newline="") as handle:
        writer = csv.DictWriter(handle, list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return queue


def in_fresh_python(*lines: str) -> str:
    """Run `lines` as a program in a new Python process (what it imports is then its own) and
    return what it printed; a failure in it fails the test with its stderr."""
    done = subprocess.run([sys.executable, "-c", "\n".join(lines)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return done.stdout
