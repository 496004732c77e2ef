"""The word scorer's features worked out for many spellings at once (triage.model.names) must
be those of the one-spelling functions, which stay the reference: the name-likeness of a
spelling (NameLikeness.score), whichever way the trigrams are looked up and added up."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from triage.lexicons import fold, spelling_key
from triage.model import names
from triage.model.names import NameLikeness

SETTINGS = dict(deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])

LETTERS = "aeéEiouynrstlm'-.^$0😀Σ\x00\ud800"
TRIGRAMS = st.dictionaries(st.text(LETTERS, min_size=1, max_size=4),
                           st.floats(-20, 20, allow_nan=False, allow_subnormal=False), max_size=40)
WORDS = st.lists(st.text(LETTERS, max_size=40), max_size=20)


def likeness(trigrams: dict[str, float]) -> NameLikeness:
    return NameLikeness(trigrams, frozenset())


@pytest.fixture(params=["dense", "sorted keys"])
def lookup(request, monkeypatch):
    """Both ways of looking trigrams up: a dense array over the trigrams' characters, or their sorted keys."""
    if request.param == "sorted keys":
        monkeypatch.setattr(names._TrigramTable, "DENSE_CHARACTERS", 0)
    return request.param


@pytest.fixture(params=[True, False], ids=["added in numpy", "added by sum()"])
def plain_sum(request, monkeypatch):
    """Both ways of adding a word's values: in numpy, in order (Python up to 3.11, whose sum() adds
    that way), or by sum() itself (from Python 3.12, which compensates)."""
    if request.param and not names._PLAIN_SUM:
        pytest.skip("this Python's sum() compensates its rounding errors")
    monkeypatch.setattr(names, "_PLAIN_SUM", request.param)
    return request.param


@settings(max_examples=200, **SETTINGS)
@given(trigrams=TRIGRAMS, words=WORDS, chunk=st.integers(1, 80))
@example(trigrams={"^ab": 0.1, "abc": 0.2, "bc$": 0.3, "ab": 5.0, "abcd": 6.0}, words=["abc", "", "a", "ab"], chunk=80)
@example(trigrams={"^a$": 1e16, "a$$": 1.0}, words=["a", "a$"], chunk=80)
@example(trigrams={}, words=["abc"], chunk=80)
def test_name_likeness_of_many_words_equals_the_score_of_each_word(lookup, plain_sum, trigrams, words, chunk,
                                                                   monkeypatch):
    model = likeness(trigrams)
    folded = [fold(word) for word in words]
    monkeypatch.setattr(names, "LIKENESS_CHUNK", chunk)
    assert names.likeness_scores(model, folded).tolist() == [model.score(f) for f in folded]


@settings(max_examples=50, **SETTINGS)
@given(words=st.lists(st.text("abcdefghijklmnopqrstuvwxyzéèçÉ-'", max_size=30), max_size=30))
@example(words=["abcdefghijklmnopqrstuvwxyz" * 8, "a", ""])  # words of very different lengths in one chunk
def test_name_likeness_with_the_shipped_trigrams_equals_the_score_of_each_word(lexicons, lookup, plain_sum, words):
    model = names.default_spelling(lexicons)
    model._table = None  # built again with this test's way of looking up
    folded = [fold(spelling_key(word)) for word in words]
    try:
        assert names.likeness_scores(model, folded).tolist() == [model.score(f) for f in folded]
    finally:
        model._table = None


def rates_of_each(stats, texts: list[str]) -> list[tuple[float, float]]:
    """(capitalised, lower) rates of each text, one text at a time: its lower-case spelling's
    counts, the prior's weighted in, the lower-case count only for a text with a lower-case form."""
    weight = stats._prior_weight()
    found = []
    for text in texts:
        key = text.lower()
        capital, lower = stats.capitalised.get(key), stats.counts.get(key)
        if weight:
            capital += weight * stats.prior.capitalised.get(key)
            lower += weight * stats.prior.counts.get(key)
        found.append((stats._rate(capital), stats._rate(lower if key.islower() else 0)))
    return found


CORPUS = st.lists(st.lists(st.sampled_from(["on", "voit", "Julie", "julie", "merci,", "Pat", "pat", "12", "ÉVA", "éva"]),
                           max_size=8).map(" ".join), max_size=30)


@settings(max_examples=100, **SETTINGS)
@given(corpus=CORPUS, prior=CORPUS, reference=st.one_of(st.none(), st.integers(1, 60)),
       texts=st.lists(st.sampled_from(["Julie", "julie", "JULIE", "pat", "Pat", "12", "éva", "Éva", "on", "x"]), max_size=12))
def test_corpus_rates_of_many_spellings_equal_those_of_each(corpus, prior, reference, texts):
    from triage.model.names import CorpusStats

    stats = CorpusStats(reference, CorpusStats().add(prior) if prior else None).add(corpus)
    assert [tuple(row) for row in stats.rates_many(texts).tolist()] == rates_of_each(stats, texts)


@settings(max_examples=200, **SETTINGS)
@given(keys=st.lists(st.one_of(st.sampled_from(["jeje", "titi", "domdom", "yanyan", "abab", "aa", "aaa", "abcabc"]),
                               st.text("abé", max_size=8)), max_size=30))
def test_reduplications_of_many_keys_equal_the_test_of_each(keys):
    assert names.reduplications(keys).tolist() == list(map(names.is_reduplication, keys))
    with pytest.MonkeyPatch.context() as patch:  # the longer keys compared one by one
        patch.setattr(names, "CODE_POINTS_LENGTH", 4)
        assert names.reduplications(keys).tolist() == list(map(names.is_reduplication, keys))


@settings(max_examples=200, **SETTINGS)
@given(texts=st.lists(st.one_of(st.sampled_from(["aaa", "Allo", "booonjour", "\n\n\n", "x\n\n\ny", "ééé", "aa", ""]),
                                st.text("ab\né\ud800", max_size=8)), max_size=30))
def test_triples_of_many_texts_equal_the_search_of_each(texts):
    lengths = np.fromiter(map(len, texts), dtype=np.int64, count=len(texts))
    assert names._tripled(texts, lengths).tolist() == [bool(names._TRIPLE.search(text)) for text in texts]
    with pytest.MonkeyPatch.context() as patch:  # the longer texts searched one by one
        patch.setattr(names, "CODE_POINTS_LENGTH", 3)
        assert names._tripled(texts, lengths).tolist() == [bool(names._TRIPLE.search(text)) for text in texts]


@settings(**SETTINGS, max_examples=60)
@given(st.lists(st.dictionaries(st.integers(-2**62, 2**62), st.floats(0, 1), max_size=50), max_size=8),
       st.lists(st.integers(-2**62, 2**62), max_size=30))
def test_the_score_memory_answers_as_a_dict_of_the_scores_added(batches, asked):
    """The classifier's memory of the word scorer's probabilities (sorted numpy columns, merged as
    they grow) answers what a dict of every score added would: -1.0 for a key never added."""
    from triage.classifier import ScoreMemory

    memory, reference = ScoreMemory(), {}
    memory.RECENT = 4  # merged often
    for scores in batches:
        new = {key: value for key, value in scores.items() if key not in reference}
        keys = np.asarray(sorted(new), dtype=np.int64)
        memory.add(keys, np.asarray([new[key] for key in keys.tolist()], dtype=float))
        reference.update(new)
        wanted = np.asarray(sorted({*asked, *scores}), dtype=np.int64)
        expected = [reference.get(key, -1.0) for key in wanted.tolist()]
        assert memory.get_many(wanted).tolist() == expected
        assert len(memory) == len(reference)
    memory.clear()
    assert len(memory) == 0 and memory.get_many(np.asarray([1], dtype=np.int64)).tolist() == [-1.0]
