"""A corpus smaller than the word scorer's training corpus reads that corpus' counts of the
ordinary words (the prior a model file keeps) for the messages it lacks: thirty messages never
write `clair` in lower case, and `Clair que non` must not read as a name for that. Invented
messages only."""

import zipfile

import numpy as np
import pandas as pd
import pytest

import triage
from triage import model
from triage.errors import BadModel
from triage.model.names import PRIOR_MINIMUM_MESSAGES, CorpusStats, corpus_prior, count_key

from conftest import edit_arrays, rewrite_model


def training_counts() -> CorpusStats:
    """Counts of an invented training corpus of 100 messages: `clair` written in lower case in
    40 of them, an invented name in 5, `sombre` in 1."""
    texts = (["c'est clair pour moi"] * 40 + ["zorane arrive demain"] * 5 + ["il fait sombre"]
             + ["on verra bien"] * 54)
    return CorpusStats(reference=100).add(texts)


def test_a_small_corpus_reads_the_prior_for_the_messages_it_lacks():
    prior = training_counts()
    alone = CorpusStats(reference=100, prior=prior)
    assert alone.lower("clair") == pytest.approx(np.log1p(40))  # no message of its own: the prior's rate
    half = CorpusStats(reference=100, prior=prior).add(["clair et net"] + ["bonjour"] * 49)
    assert half.lower("clair") == pytest.approx(np.log1p(1 + 40 * 50 / 100))
    # From the reference size on, the corpus alone counts.
    full = CorpusStats(reference=100, prior=prior).add(["clair et net"] + ["bonjour"] * 99)
    assert full.lower("clair") == pytest.approx(np.log1p(1))
    # Without a prior, a small corpus counts its own messages only, as before.
    assert CorpusStats(reference=100).add(["clair et net"]).lower("clair") == pytest.approx(np.log1p(1))


def test_the_prior_keeps_only_the_listed_ordinary_words_enough_messages_write(lexicons):
    prior = corpus_prior(training_counts(), lexicons)
    assert prior.messages == 100
    assert prior.counts.get("clair") == 40
    assert prior.counts.get("zorane") == 0  # in no word list: a name the corpus alone holds is not kept
    assert PRIOR_MINIMUM_MESSAGES > 1 and prior.counts.get("sombre") == 0  # written once
    listed = {count_key(word) for word in ("clair", "verra", "bien", "on", "fait", "il", "arrive", "demain",
                                           "c", "est", "pour", "moi")}
    assert set(prior.counts.keys.tolist()) <= listed


def test_the_embedded_model_keeps_no_spelling_outside_the_word_lists(lexicons):
    prior = model.load_predictor(model.default_model_path()).corpus_prior
    assert prior is not None and prior.messages > 1000
    listed = np.unique(np.fromiter(map(count_key, [*lexicons.forms, *lexicons.other_anti]), np.uint64))
    for counts in (prior.counts, prior.capitalised):
        assert len(counts.keys) and np.isin(counts.keys, listed).all()
        assert (counts.values >= PRIOR_MINIMUM_MESSAGES).all()


def test_a_capitalised_ordinary_word_opening_a_sentence_of_a_tiny_corpus_is_not_hidden():
    texts = ["Clair que c'est nul", "Parfait ! on se voit demain", "j'ai vu Julien au marché ce matin"]
    out = triage.classify(pd.DataFrame({"text": texts}), expert_budget=0)
    assert list(out.anonymised[:2]) == texts[:2]
    assert "Julien" not in out.anonymised[2]


def test_a_model_file_whose_prior_is_not_sorted_is_refused(tmp_path):
    def unsorted(arrays):
        arrays["prior_lower_keys"] = arrays["prior_lower_keys"][::-1].copy()

    bad = rewrite_model(model.default_model_path(), tmp_path / "bad.triage", edit_arrays("names.npz", unsorted))
    with pytest.raises(BadModel, match="corpus prior"):
        model.load_predictor(bad)


def test_a_model_file_without_a_prior_still_classifies(tmp_path):
    def without(arrays):
        for name in [name for name in arrays if name.startswith("prior_")]:
            del arrays[name]

    older = rewrite_model(model.default_model_path(), tmp_path / "older.triage", edit_arrays("names.npz", without))
    assert zipfile.is_zipfile(older)
    predictor = model.load_predictor(older)
    assert predictor.corpus_prior is None
    assert predictor.corpus_stats(["clair et net"]).lower("clair") == pytest.approx(np.log1p(1))


def test_the_prior_goes_with_the_counts_to_another_process():
    import pickle

    stats = CorpusStats(reference=100, prior=training_counts()).add(["bonjour"] * 10)
    copy = pickle.loads(pickle.dumps(stats))
    assert copy.prior is not None and copy.lower("clair") == pytest.approx(stats.lower("clair"))
    assert copy.lower("clair") == pytest.approx(np.log1p(40 * 90 / 100))
