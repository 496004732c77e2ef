"""The letter model (triage.model.letters): what a word's letters say of a name, learnt from gold,
read by the word scorer as its `spelling` feature."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from triage import model
from triage.errors import InputError
from triage.lexicons import fold
from triage.model.letters import LENGTHS, LetterModel, gram_keys

from conftest import edit_arrays, rewrite_model, succeeded

# Invented words: first names from several languages, and SMS spellings of ordinary French words.
NAMES = ["edyta", "jolanta", "desislava", "bacar", "mariama", "svetlana", "gulnara", "oksana", "jadwiga",
         "halina", "ludmila", "zaneta", "agnieszka", "kasia", "nadia", "ramona", "malika", "fatou", "aminata",
         "kadiatou", "mamadou", "ousmane", "boubacar", "moussa", "ibrahima", "samira", "yasmina", "leila"]
WORDS = ["jvai", "mieu", "tkt", "chui", "jsuis", "tjrs", "bcp", "pk", "koi", "ajd", "dacc", "mdr", "ptdr",
         "jtm", "stp", "bjr", "slt", "cc", "dsl", "vrmt", "jpense", "ct", "chépa", "jsp", "kan", "ki", "tt",
         "qqch", "msg", "rdv", "bsx", "bizz", "jrentre", "tinkiet"]


def grams(word: str) -> set[str]:
    """The letter n-grams gram_keys reads, as strings: the reference."""
    marked = f"^{fold(word)}$"
    return {marked[i:i + n] for n in LENGTHS for i in range(len(marked) - n + 1)}


def unpack(key: int) -> str:
    """The n-gram a key packs: its length in the top bits, then 7 bits a letter."""
    n = next(length for length in LENGTHS if key >> (7 * length) == length)
    return "".join(chr((key >> (7 * (n - 1 - k))) & 0x7F) for k in range(n))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(alphabet="abcdeéèçïœßXYZ'-jlmno", max_size=9), max_size=12))
def test_the_keys_of_many_words_are_their_distinct_letter_grams(words):
    row, key = gram_keys(words)
    found = [set() for _ in words]
    for r, k in zip(row.tolist(), key.tolist()):
        assert unpack(k) not in found[r], "an n-gram of a word is counted once"
        found[r].add(unpack(k))
    assert found == [grams(word) for word in words]
    pairs = list(zip(key.tolist(), row.tolist()))
    assert pairs == sorted(pairs), "sorted by key, then row"


@settings(max_examples=100, deadline=None)
@given(st.lists(st.text(alphabet="abcdeéèçïœßXYZ'-jlmno", max_size=9), max_size=12))
def test_a_score_adds_the_weights_of_a_words_grams_in_the_order_of_their_keys(words):
    model = LetterModel(min_count=2).fit(NAMES + WORDS, [1] * len(NAMES) + [0] * len(WORDS))
    weight = dict(zip(model.keys_.tolist(), model.weights_.tolist()))
    row, key = gram_keys(words)
    expected = []
    for r in range(len(words)):
        total = 0.0
        for k in sorted(key[row == r].tolist()):  # one after the other, from 0: the same float every time
            if k in weight:
                total += weight[k]
        expected.append(total + model.intercept_)
    assert model.decision_function(words).tolist() == expected


def test_the_model_is_a_logistic_regression_over_the_presence_of_letter_grams():
    from sklearn.feature_extraction.text import CountVectorizer
    from sklearn.linear_model import LogisticRegression

    words = NAMES + WORDS
    y = np.r_[np.ones(len(NAMES)), np.zeros(len(WORDS))].astype(int)
    mine = LetterModel(min_count=2).fit(words, y)
    marked = [f"^{fold(w)}$" for w in words]
    vectoriser = CountVectorizer(analyzer="char", ngram_range=(min(LENGTHS), max(LENGTHS)), min_df=2, binary=True,
                                 lowercase=False)
    reference = LogisticRegression(class_weight="balanced", max_iter=3000).fit(vectoriser.fit_transform(marked), y)
    unseen = ["Ewelina", "Dorota", "jpeux", "tkt", "jsais"]
    expected = reference.decision_function(vectoriser.transform([f"^{fold(w)}$" for w in unseen]))
    assert np.allclose(mine.decision_function(unseen), expected, atol=1e-6)


def test_unseen_names_look_more_like_names_than_unseen_sms_spellings():
    y = np.r_[np.ones(len(NAMES)), np.zeros(len(WORDS))].astype(int)
    letters = LetterModel().fit(NAMES + WORDS, y)
    names, words = letters.decision_function(["marika", "aminatou", "oksanka"]), letters.decision_function(["jpeu", "tjr", "bcq"])
    assert names.min() > words.max()


def test_no_short_spelling_is_kept_whole():
    """A word of one or two letters is one n-gram with both marks ("^jo$"): met in a single
    spelling, it is never kept, however often it is written."""
    short = ["jo", "al", "ed", "jo", "jo", "al"]
    letters = LetterModel().fit(short + NAMES + WORDS, np.r_[np.ones(6 + len(NAMES)), np.zeros(len(WORDS))].astype(int))
    kept = {unpack(k) for k in letters.keys_.tolist()}
    assert not {f"^{w}$" for w in short} & kept
    assert all(g.count("^") + g.count("$") < 2 or len(g) < 3 for g in kept)


def test_a_fitted_model_is_seeded_and_its_arrays_rebuild_it():
    y = np.r_[np.ones(len(NAMES)), np.zeros(len(WORDS))].astype(int)
    first, second = LetterModel(seed=3).fit(NAMES + WORDS, y), LetterModel(seed=3).fit(NAMES + WORDS, y)
    assert np.array_equal(first.weights_, second.weights_)
    rebuilt = LetterModel.from_arrays(first.arrays())
    assert np.array_equal(rebuilt.decision_function(NAMES), first.decision_function(NAMES))
    # one class only: the prior, and no n-gram
    alone = LetterModel().fit(WORDS, np.zeros(len(WORDS), int))
    assert len(alone.keys_) == 0 or not alone.weights_.any()
    assert np.all(alone.decision_function(["x", "jvai"]) < 0)


def test_a_model_trained_with_enough_names_keeps_its_letter_model(cli, tmp_path, monkeypatch):
    from triage.model import training
    from triage.model.names import likeness_scores

    demo = model.default_model_path().parent / "sample_sms.csv"
    few, enough = tmp_path / "few.triage", tmp_path / "enough.triage"
    succeeded(cli("train", demo, "-o", few))
    # Too few names to learn letters from: the lists' trigram contrast, as in a model of no letter model.
    assert model.load_predictor(few).spelling.letters is None
    monkeypatch.setattr(training, "LETTER_NAMES", 10)
    result = cli("train", demo, "-o", enough)
    succeeded(result)
    predictor = model.load_predictor(enough)
    letters = predictor.spelling.letters
    assert letters is not None and len(letters.keys_)
    assert f"its letter model keeps {len(letters.keys_):,} letter sequences" in result.output
    # The word scorer's `spelling` feature is the letter model's log-odds.
    assert np.allclose(likeness_scores(predictor.spelling, ["edyta", "jvai"]), letters.decision_function(["edyta", "jvai"]))


def test_the_embedded_model_reads_names_by_their_letters():
    letters = model.load_predictor(model.default_model_path()).spelling.letters
    assert letters is not None
    assert letters.decision_function(["desislava"])[0] > letters.decision_function(["jvai"])[0]


@pytest.mark.parametrize("attack", ["unsorted", "infinite", "sizes"])
def test_a_letter_model_that_lies_is_one_line(tmp_path, attack):
    def change(arrays):
        if attack == "unsorted":
            arrays["letter_keys"] = arrays["letter_keys"][::-1].copy()
        elif attack == "infinite":
            arrays["letter_weights"][0] = np.inf
        else:
            arrays["letter_weights"] = arrays["letter_weights"][:-1]
    path = rewrite_model(model.default_model_path(), tmp_path / "m.triage", edit_arrays("names.npz", change))
    with pytest.raises(InputError, match="letter model"):
        model.load_predictor(path)
