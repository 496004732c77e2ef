"""The deletion index finds exactly the words one edit away, in the heuristic's edit order."""

import numpy as np
from hypothesis import example, given, settings
from hypothesis import strategies as st

from triage.lexicons.nearwords import NearWords, _keys, _keys_of_words, edit_rank, edit_ranks, edits1

LETTERS = st.text(alphabet="abcdez", min_size=1, max_size=9)


def one_edit_by_brute_force(query, vocabulary):
    """The words of `vocabulary` in edits1(query), each at its first place in the list."""
    first = {}
    for rank, candidate in enumerate(edits1(query)):
        if candidate in vocabulary and candidate not in first:
            first[candidate] = rank
    return sorted((rank, word) for word, rank in first.items())


@settings(max_examples=60, deadline=None)
@given(st.lists(LETTERS, min_size=1, max_size=80), st.lists(LETTERS, min_size=1, max_size=20))
def test_the_index_finds_the_words_one_edit_away_in_edit_order(vocabulary, queries):
    index = NearWords.build([vocabulary])
    queries += [word for word in vocabulary[:5]]  # words of the list themselves (swapped double letters...)
    found = index.within_one_edit(queries)
    for query, near in zip(queries, found):
        assert [(rank, word) for rank, word, _ in near] == one_edit_by_brute_force(query, set(vocabulary))


@given(LETTERS, LETTERS)
@example("aab", "aab")  # the word itself: its doubled letters swapped
@example("abc", "abc")  # the word itself: its first letter replaced by itself
@example("ab", "abc")
def test_edit_rank_is_the_first_place_in_edits1(word, candidate):
    candidates = edits1(word)
    expected = candidates.index(candidate) if candidate in candidates else -1
    assert edit_rank(word, candidate) == expected


def test_the_keys_of_a_word_list_are_those_of_each_word():
    words = ["a", "ab", "maison", "zzzzzzzzzzzzzzzzzzzz", "surement"]
    keys, owners = _keys_of_words(np.array([w.encode() for w in words]))
    for index, word in enumerate(words):
        assert sorted(keys[owners == index].tolist()) == sorted(_keys(word))


def test_flags_say_which_list_holds_a_word_and_other_words_are_left_out():
    index = NearWords.build([["maison", "pierre", "Maison", "élan", "l'eau"], ["pierre", "julien"]])
    assert index.words.tolist() == [b"julien", b"maison", b"pierre"]  # lower-case ASCII letters only
    assert index.flags.tolist() == [2, 1, 3]
    near = index.within_one_edit(["maisn", "julienn", "pierrre", "elan", "xyzxyz"])
    assert [[(w, f) for _, w, f in n] for n in near] == [[("maison", 1)], [("julien", 2)], [("pierre", 3)], [], []]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.text(alphabet="abcdeA", max_size=9), LETTERS), max_size=40))
@example([("aab", "aab"), ("abc", "abc"), ("ab", "abc"), ("abc", "ab"), ("", "a"), ("ab", "ba"), ("abc", "acb"),
          ("abcd", "badc"), ("aa", "a"), ("a", "aa"), ("abab", "baba"), ("abc", "abcde")])
def test_edit_ranks_of_many_pairs_are_those_of_each(pairs):
    """The ranks of all the pairs a look-up finds, worked out as arrays, are edit_rank's."""
    queries = np.array([query.encode() for query, _ in pairs] or [b""], dtype=bytes)[: len(pairs)]
    candidates = np.array([candidate.encode() for _, candidate in pairs] or [b""], dtype=bytes)[: len(pairs)]
    assert edit_ranks(queries, candidates).tolist() == [edit_rank(query, candidate) for query, candidate in pairs]


@settings(max_examples=100, deadline=None)
@given(st.lists(LETTERS, min_size=1, max_size=60), st.lists(LETTERS, min_size=1, max_size=60),
       st.lists(LETTERS, max_size=20))
@example(["maison", "maisons"], ["maisn"], ["maisn", "maisonn", "maisons"])
def test_the_corrections_are_the_first_wanted_word_one_edit_away_unless_a_blocking_one_is(ordinary, names,
                                                                                          queries):
    index = NearWords.build([ordinary, names])
    queries += ordinary[:3] + names[:3]
    expected = []
    for near in index.within_one_edit(queries):
        blocked = any(flags & 2 for _, _, flags in near)
        expected.append(None if blocked else next((word for _, word, flags in near if flags & 1), None))
    assert index.corrections(queries, 1, 2) == expected
    assert index.corrections([], 1, 2) == []
