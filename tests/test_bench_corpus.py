"""The benchmark's corpus generator (benchmarks/corpus.py): its speed figures are only as good
as its resemblance to a real corpus, so its vocabulary growth is held to 88milSMS's curve."""


import pytest
from conftest import benchmark_module


@pytest.fixture(scope="module")
def corpus():
    return benchmark_module("corpus")


@pytest.fixture(scope="module")
def sources(corpus):
    return corpus.Sources()  # the demo corpus, and the dev corpus when present


def test_the_real_curve_passes_through_its_measured_points_and_keeps_growing_beyond(corpus):
    for messages, distinct in corpus.REAL_GROWTH:
        assert corpus.real_vocabulary(messages) == pytest.approx(distinct)
    last, beyond = corpus.real_vocabulary(86_170), corpus.real_vocabulary(200_000)
    assert 1.5 * last < beyond < 2 * last  # Heaps' law: slower than the corpus, never flat


def test_the_generated_vocabulary_grows_like_the_real_one(corpus, sources):
    growth = []
    texts = list(corpus.generate(5_000, seed=3, sources=sources, growth=growth))
    report = corpus.growth_report(growth)
    assert [p["messages"] for p in report["points"]] == [1_000, 2_000, 5_000]
    assert report["max_deviation"] < 0.15
    assert report["stretches_per_message"] == pytest.approx(corpus.REAL_STRETCHES_PER_MESSAGE, rel=0.15)
    distinct = set()
    for text in texts[:2_000]:
        distinct.update(corpus.stretches(text))
    assert len(distinct) == report["points"][1]["generated"]


def test_same_seed_same_corpus_and_a_smaller_corpus_is_a_prefix(corpus, sources):
    small = list(corpus.generate(300, seed=7, sources=sources))
    large = list(corpus.generate(600, seed=7, sources=sources))
    assert large[:300] == small
    assert list(corpus.generate(300, seed=8, sources=sources)) != small


def test_new_spellings_are_made_the_way_sms_writers_make_them(corpus, sources):
    import random

    rng = random.Random(0)
    assert corpus._accent("très", rng, sources) in {"tres", "trés"}
    assert corpus._clitic("aime", rng, sources).endswith("aime")
    assert corpus._repetition("oui", rng, sources).startswith("oui")
    assert len(corpus._misspelling("demain", rng, sources)) in {5, 6, 7}
    assert corpus._capitals("a", rng, sources) in {"A", None}
    nickname = corpus._nickname("", rng, sources)
    assert nickname.isalpha() and 2 <= len(nickname) <= 12
