"""Shared fixtures. Tests never need the network nor ../shared: the development corpus
fixture skips when it is absent (users of the tool do not have it)."""

import zipfile
from pathlib import Path

import pytest
from typer.testing import CliRunner

from triage import lexicons as lexicon_module
from triage.cli import app
from triage.schema import CLASSIFY_COLUMNS as CLASSIFIED_COLUMNS  # what classify writes

REPO = Path(__file__).resolve().parent.parent
DEV_CORPUS = REPO.parent / "shared" / "data" / "sms_dev_88milsms.csv"
SAMPLE = REPO / "data" / "sample_sms.csv"


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


@pytest.fixture
def cli():
    """Runs `triage ...` in-process, like a user would type it."""
    runner = CliRunner()

    def invoke(*args, input=None):
        return runner.invoke(app, [str(a) for a in args], input=input)

    return invoke


@pytest.fixture
def dev_corpus():
    if not DEV_CORPUS.exists():
        pytest.skip("the development corpus ../shared/data/sms_dev_88milsms.csv is absent")
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


def with_checksums(members: dict) -> None:
    """Sign the members and the metadata as save_model does: what an attacker could also do."""
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
    from triage.review import open_synced

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
