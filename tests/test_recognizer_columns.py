"""The recognizers' per-spelling flags computed for many spellings at once try the costly
one-spelling tests only where they can hold (triage.recognizers): the flags must be those of
the one-spelling tests on every spelling."""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from triage import recognizers
from triage.lexicons import fold

SETTINGS = dict(deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
PARTS = ["marie", "paule", "jean", "luc", "anne", "sophie", "pierre", "louis", "lou", "seb", "caro", "steph"]
SPELLINGS = st.one_of(
    st.lists(st.sampled_from(PARTS), min_size=1, max_size=3).map("".join),  # glued, or one name twice
    st.tuples(st.sampled_from(PARTS), st.text("aeiouxyzé-'", max_size=4)).map("".join),
    st.sampled_from(["jeje", "titi", "lolo", "domdom", "chercher", "lélélélé", "JeJe", "Seb", "SEB", "séb", "dodo", ""]),
    st.text("abcdejlmnoprstuéè'-", max_size=14),
)


@settings(max_examples=300, **SETTINGS)
@given(spellings=st.lists(SPELLINGS, max_size=30))
@example(spellings=["mariepaule", "jeanluc", "louploup", "annesophie", "marieX", "xmarie", "ma", "pierrelouis"])
def test_glued_first_names_of_many_spellings_equal_the_test_of_each(lexicons, spellings):
    folded = [fold(spelling).lower() for spelling in spellings]
    parts = recognizers.glued_parts(lexicons)
    expected = [recognizers.is_glued_first_names(f, parts) for f in folded]
    assert recognizers._glued_many(lexicons, folded).tolist() == expected
    lowered = [spelling.lower() for spelling in spellings]  # not always ASCII: each is tried
    assert recognizers._glued_many(lexicons, lowered).tolist() == [recognizers.is_glued_first_names(f, parts)
                                                                   for f in lowered]


@settings(max_examples=300, **SETTINGS)
@given(spellings=st.lists(SPELLINGS, max_size=30))
@example(spellings=["jeje", "titi", "domdom", "lélé", "chercher", "abab", "ababab", "abcabc", "l'l'", "--"])
def test_shapes_tried_where_possible_equal_the_test_of_each(lexicons, spellings):
    folded = [fold(spelling) for spelling in spellings]
    lengths = np.fromiter(map(len, folded), dtype=np.int64, count=len(folded))
    doubled = recognizers._where_possible(recognizers.is_nickname_reduplication, np.isin(lengths, (4, 6)), folded)
    assert doubled.tolist() == list(map(recognizers.is_nickname_reduplication, folded))
    assert recognizers._reduplications(folded).tolist() == doubled.tolist()
    assert recognizers._reduplications(spellings).tolist() == list(map(recognizers.is_nickname_reduplication, spellings))
    starts = recognizers.truncations(lexicons)
    shortened = recognizers._where_possible(lambda text, f: recognizers.is_truncation_shape(text, f, starts),
                                            np.isin(folded, list(starts)), spellings, folded)
    assert shortened.tolist() == [recognizers.is_truncation_shape(text, f, starts) for text, f in zip(spellings, folded)]


def test_glued_parts_are_the_commonest_first_names_by_their_best_rank(lexicons):
    """glued_parts folds only the names ranked among the GLUED_FROM commonest: the parts are
    those whose best-ranked name, over every name folded to them, is among them."""
    best: dict[str, int] = {}
    for name, rank in lexicons.first_name_ranks.items():
        key = fold(name).lower()
        best[key] = min(rank, best.get(key, rank))
    expected = {key for key, rank in best.items() if rank <= recognizers.GLUED_FROM
                and recognizers.GLUED_PART_LENGTH <= len(key) <= recognizers._GLUED_PART_MAX and key.isalpha()}
    assert recognizers.glued_parts(lexicons) == expected and len(expected) > 1000


@settings(max_examples=300, **SETTINGS)
@given(words=st.lists(st.text(st.sampled_from(["a", "É", "é", "\u0301", "Σ", "σ", "ς", "'", ".", "-", " ", "œ", "Æ",
                                               "ß", "İ", "ı", "K", "ﬁ", "ж", "1"]), max_size=6), min_size=1,
                      max_size=8))
def test_places_folded_joined_are_the_places_folded_one_by_one(words):
    """_folded_places folds the places joined by line breaks at once: folding the joined words is
    folding each."""
    assert fold("\n".join(words)).split("\n") == list(map(fold, words))


def test_the_folded_places_are_each_place_folded(lexicons):
    assert recognizers._folded_places(lexicons) == frozenset(map(fold, recognizers.places(lexicons)[0]))
