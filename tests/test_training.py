"""Training from message labels alone (what most teams can afford to annotate): the embedded
word scorer is kept and the expert budget is calibrated on the training messages, so the
budget policy routes a new corpus as it routes the embedded model's."""

import csv
import dataclasses
import json
from pathlib import Path

import numpy as np
import pytest

from triage import model
from triage.errors import BadOption
from triage.model.gold import labelled_gold
from triage.io.messages import ReadOptions
from triage.model.training import train

from conftest import read_rows, succeeded

DEMO = Path(__file__).resolve().parent.parent / "data" / "sample_sms.csv"


@pytest.fixture(scope="module")
def labels_only(tmp_path_factory) -> Path:
    """The demo corpus with its labels and without its gold spans."""
    path = tmp_path_factory.mktemp("labels") / "labels_only.csv"
    with DEMO.open(encoding="utf-8", newline="") as source, path.open("w", encoding="utf-8", newline="") as out:
        writer = csv.writer(out)
        writer.writerow(["id", "donor", "text", "label"])
        writer.writerows([row["id"], row["donor"], row["text"], row["label"]] for row in csv.DictReader(source))
    return path


@pytest.fixture(scope="module")
def labels_only_model(labels_only, tmp_path_factory) -> Path:
    from typer.testing import CliRunner

    from triage.cli import app

    path = tmp_path_factory.mktemp("model") / "labels.triage"
    result = CliRunner().invoke(app, ["train", str(labels_only), "-o", str(path)])
    succeeded(result)
    assert "no gold spans: kept the word scorer of the embedded model" in result.output
    return path


def test_a_model_trained_from_labels_keeps_the_embedded_word_scorer(labels_only_model):
    kept, embedded = model.load_predictor(labels_only_model), model.load_predictor(model.default_model_path())
    assert kept.metadata["policy"]["name"] == "budget"
    assert kept.metadata["word_scorer"]["source"] == "embedded model"
    # Its corpus counts are read at the scale of the corpus the scorer learnt from, not of this one.
    assert kept.word_scorer_size == embedded.metadata["training_size"] != kept.metadata["training_size"]
    for name, array in embedded.word_forest.arrays().items():
        assert np.array_equal(kept.word_forest.arrays()[name], array), name
    assert kept.spelling.trigrams == embedded.spelling.trigrams
    # And the counts of its training corpus, which go with it.
    for mine, theirs in ((kept.corpus_prior.counts, embedded.corpus_prior.counts),
                         (kept.corpus_prior.capitalised, embedded.corpus_prior.capitalised)):
        assert all(np.array_equal(a, b) for a, b in zip(mine.arrays(), theirs.arrays()))
    assert kept.metadata["corpus_prior"]["messages"] == embedded.metadata["training_size"]


def test_keep_scorer_keeps_the_embedded_word_scorer_of_a_file_with_gold_spans(cli, tmp_path):
    path = tmp_path / "kept.triage"
    result = cli("train", DEMO, "-o", path, "--keep-scorer")
    succeeded(result)
    kept, embedded = model.load_predictor(path), model.load_predictor(model.default_model_path())
    assert kept.metadata["word_scorer"]["source"] == "embedded model"
    for name, array in embedded.word_forest.arrays().items():
        assert np.array_equal(kept.word_forest.arrays()[name], array), name
    own = cli("train", DEMO, "-o", tmp_path / "own.triage")
    succeeded(own)
    assert "word_scorer" not in model.load_predictor(tmp_path / "own.triage").metadata
    # What the model keeps of its training corpus is said: counts of listed words only.
    assert "words of the shipped word lists (counts only: no other spelling, no text)" in own.output


def test_a_model_trained_from_labels_routes_within_the_budget(cli, labels_only_model, tmp_path):
    out = tmp_path / "classified.csv"
    succeeded(cli("classify", DEMO, "-o", out, "--model", labels_only_model, "--expert-budget", "0.2"))
    decisions = [row["decision"] for row in read_rows(out)]
    share = decisions.count("EXPERT") / len(decisions)
    # The paper's Table 2, which such a model fell back on, sent almost nothing to a human.
    assert 0.1 <= share <= 0.3, share
    # The kept scorer hides names the dictionaries do not know.
    rows = {row["text"]: row for row in read_rows(out)}
    assert any(tag in json.dumps([r["hidden"] for r in rows.values()]) for tag in ("PRE", "NOM"))


def test_labels_only_training_is_deterministic(labels_only):
    gold, _ = labelled_gold(labels_only, ReadOptions())
    first = train(gold, False, seed=1)[1]["risk_quantiles"]
    second = train(gold, False, seed=1)[1]["risk_quantiles"]
    assert np.array_equal(first, second)


def test_a_kept_model_without_a_word_scorer_is_refused(labels_only, tmp_path):
    gold, _ = labelled_gold(labels_only, ReadOptions())
    paper_only = dataclasses.replace(model.load_predictor(model.default_model_path()), word_forest=None)
    with pytest.raises(BadOption, match="no word scorer to keep"):
        train(gold, False, kept_scorer=paper_only)
