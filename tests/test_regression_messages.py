"""Message-level regression examples kept as data (deduce's convention): each line of
tests/regression/messages.tsv is an invented message with the words the embedded pipeline must
protect (hidden, or the message sent to the expert) and the words it must leave readable.
Messages it still gets wrong are listed, with why, in tests/regression/known_failures.tsv: they
are expected to fail, and the test fails as soon as one passes, so the list stays true."""

import csv
from pathlib import Path

import pytest

from triage import model
from triage.classifier import Classifier
from triage.schema import CLASSIFY_COLUMNS, EXPERT

FOLDER = Path(__file__).parent / "regression"


def read_tsv(name: str) -> list[dict]:
    with (FOLDER / name).open(encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle, delimiter="\t"))


EXAMPLES = read_tsv("messages.tsv")
KNOWN_FAILURES = {row["id"]: row["why (remove the line when the message passes: the test then fails until it is removed)"]
                  for row in read_tsv("known_failures.tsv")}


def words(cell: str) -> list[str]:
    return [word for word in cell.split(";") if word.strip()]


@pytest.fixture(scope="module")
def classified() -> dict[str, dict]:
    """Every example classified in one batch by the embedded model, as `triage classify` does."""
    predictor = model.load_predictor(model.default_model_path())
    classifier = Classifier(predictor, stats=predictor.corpus_stats(row["text"] for row in EXAMPLES))
    rows = classifier.rows([(row["id"], row["text"]) for row in EXAMPLES])
    return {row[0]: dict(zip(CLASSIFY_COLUMNS, row)) for row in rows}


def test_every_known_failure_is_an_example():
    assert set(KNOWN_FAILURES) <= {row["id"] for row in EXAMPLES}


@pytest.mark.parametrize("example", [
    pytest.param(row, id=f"{row['id']}:{row['reason']}",
                 marks=[pytest.mark.xfail(reason=KNOWN_FAILURES[row["id"]], strict=True)] if row["id"] in KNOWN_FAILURES else [])
    for row in EXAMPLES
])
def test_message(classified, example):
    out = classified[example["id"]]
    if out["decision"] != EXPERT:  # an expert reads the whole message
        leaked = [word for word in words(example["protect"]) if word in out["anonymised"]]
        assert not leaked, f"left readable: {leaked} in {out['anonymised']!r} ({out['decision']})"
    hidden = [word for word in words(example["keep"]) if word.lower() not in out["anonymised"].lower()]
    assert not hidden, f"hidden but ordinary: {hidden} in {out['anonymised']!r}"
