import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from triage.lexicons.wordlist import Memory, WordList
from triage.pipeline.memory import VOCABULARY

WORDS = ["maison", "été", "aujourd'hui", "cœur", "a", "zèbre", "naïve", "straße", "été"]


@pytest.fixture
def words():
    return WordList.from_words(WORDS)


def test_membership_is_that_of_a_set(words):
    for word in WORDS:
        assert word in words, word
    for word in ("maisons", "ete", "Maison", "aujourd’hui", "b", "zèbres", "coeur", " a"):
        assert word not in words, word
    assert len(words) == len(set(WORDS))


def test_accented_words_are_stored_as_utf8_and_found_exactly(words):
    assert words.array.dtype.kind == "S"
    assert "naïve".encode() in words.array.tolist()
    assert "naive" not in words and "naïve" in words


def test_iteration_yields_strings_in_sorted_order(words):
    assert list(words) == sorted(set(WORDS))
    assert all(type(word) is str for word in words)


def test_a_query_longer_than_the_widest_word_is_absent():
    # numpy would cut b"maisonnette" to the array's width (b"maison") and find it.
    words = WordList.from_words(["maison", "abc"])
    assert words.array.dtype.itemsize == len("maison")
    assert "maisonnette" not in words
    assert "maisonnette".startswith("maison") and "maison" in words
    # The same with multi-byte letters: the width is in bytes, not characters.
    assert "maisoné" not in words


def test_the_empty_string_and_non_strings_are_absent(words):
    assert "" not in words
    assert None not in words and 3 not in words
    assert words.position("") == -1


def test_trailing_nul_and_lone_surrogates_are_absent():
    words = WordList.from_words(["ab", "abcd", "xy\0"])
    assert list(words) == ["ab", "abcd"]  # a spelling ending in NUL cannot be stored
    assert "ab\0" not in words and "xy\0" not in words  # numpy would strip the NUL and find ab
    assert "a\0b" not in words and "ab" in words
    assert "ab\udcff" not in words


def random_vocabulary_and_queries(seed: int) -> tuple[set[str], list[str]]:
    """300 short spellings and 2,000 queries over a few letters, accents and an apostrophe."""
    rng = np.random.default_rng(seed)
    alphabet = list("abcé'ß")
    vocabulary = {"".join(rng.choice(alphabet, size=rng.integers(1, 6))) for _ in range(300)}
    return vocabulary, ["".join(rng.choice(alphabet, size=rng.integers(0, 8))) for _ in range(2000)]


def test_in_agrees_with_a_set_on_many_queries():
    vocabulary, queries = random_vocabulary_and_queries(0)
    words = WordList.from_words(vocabulary)
    found = [query in words for query in queries]
    assert found == [query in vocabulary for query in queries]
    assert 0 < sum(found) < len(queries)


def test_membership_of_many_words_at_once_is_that_of_each():
    vocabulary, queries = random_vocabulary_and_queries(1)
    queries += ["", "ab\0", "ab\udcff", "x" * 50, queries[0]]  # absent whatever the list, and a repeat
    words = WordList.from_words(vocabulary)
    found = words.contains_many(queries)
    assert found.dtype == bool and found.tolist() == [query in vocabulary for query in queries]
    assert 0 < found.sum() < len(queries)
    assert WordList.from_words(vocabulary).contains_many([]).tolist() == []
    # Some answers remembered already, the others not: the same answers.
    partly = WordList.from_words(vocabulary)
    partly.remember(queries[::3])
    assert partly.contains_many(queries).tolist() == found.tolist()
    assert partly.contains_many(queries[::-1]).tolist() == found.tolist()[::-1]


def test_positions_follow_the_sorted_order(words):
    for index, word in enumerate(words):
        assert words.position(word) == index
    assert words.position("absent") == -1


def test_an_empty_list_holds_nothing():
    empty = WordList.from_words([])
    assert len(empty) == 0 and list(empty) == []
    assert "a" not in empty


def test_a_wordlist_round_trips_through_its_array(tmp_path, words):
    np.save(tmp_path / "words.npy", words.array)
    again = WordList(np.load(tmp_path / "words.npy", allow_pickle=False))
    assert list(again) == list(words)
    with pytest.raises(ValueError):
        WordList(np.array(["not", "bytes"]))


def test_positions_of_a_batch_are_those_of_one_word_at_a_time():
    vocabulary, queries = random_vocabulary_and_queries(1)
    words = WordList.from_words(vocabulary)
    # The cases numpy compares wrongly: cut to the width, trailing NUL, surrogates, non-strings.
    queries += ["ab\0", "a" * 40, "é" * 5, "ab\udcff", None, 3, ""]
    batch = words.positions(queries).tolist()
    assert batch == [WordList(words.array).position(query) for query in queries]
    assert any(p >= 0 for p in batch) and any(p < 0 for p in batch)


def test_remembered_answers_are_the_same_and_memory_starts_afresh_past_the_budget(monkeypatch):
    words = WordList.from_words(WORDS)
    words.remember(["maison", "maisons", "été"])
    assert "maison" in words and "maisons" not in words and "été" in words
    monkeypatch.setattr(VOCABULARY, "limit", 0)  # the memory budget is spent: the answers are dropped
    assert VOCABULARY.enforce() and len(words._positions) == 0
    words.remember(["cœur", "a", "b"])
    assert len(words._positions) == 3
    assert "maison" in words and "cœur" in words and "b" not in words


@settings(max_examples=200, deadline=None)
@given(st.lists(st.one_of(st.text("ab\n\0é\udcff", max_size=6), st.sampled_from(WORDS)), max_size=20))
def test_positions_of_texts_encoded_together_are_those_of_each(queries):
    """A batch is encoded in one piece unless a text holds a newline or a NUL: either way, the
    same positions."""
    words = WordList.from_words(WORDS)
    assert words.positions(queries).tolist() == [WordList(words.array).position(query) for query in queries]


# Words around eight bytes long that share their first eight: a stem and endings of 0 to 4 letters.
_NEAR_EIGHT = st.builds(lambda stem, end: stem + end, st.sampled_from(["aaaaaaa", "aaaaaaaa", "abababé", "ab"]),
                        st.text("abé\0", max_size=4))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(_NEAR_EIGHT, st.text("abé\0", min_size=1, max_size=12)), max_size=30),
       st.lists(st.one_of(_NEAR_EIGHT, st.text("abé\0", max_size=13)), max_size=30))
def test_positions_are_those_of_one_word_at_a_time_when_many_words_share_their_first_eight_bytes(vocabulary, queries):
    """The sorted search compares each spelling's first eight bytes as a number, then the whole
    spelling: words of two or three letters, of about eight bytes, share their heads, and some
    are each other's beginnings (aaaaaaaa, aaaaaaaab); the answers are those of one binary
    search a word, and of a set."""
    words = WordList.from_words(vocabulary)
    queries += vocabulary[:10] + [word + "a" for word in vocabulary[:5]]
    assert words.positions(queries).tolist() == [WordList(words.array).position(query) for query in queries]
    assert words.contains_many(queries).tolist() == [
        query in set(vocabulary) and not query.endswith("\0") for query in queries]
    saved = WordList(words.array, words.heads)  # as the snapshot gives it back
    assert saved.positions(queries).tolist() == words.positions(queries).tolist()


@settings(max_examples=100, deadline=None)
@given(asked=st.lists(st.sampled_from(WORDS + ["maisons", "zèbres", "b", "", "ete"]), max_size=12),
       first=st.lists(st.sampled_from(WORDS + ["b", "ete"]), max_size=6))
def test_lists_sharing_one_memory_each_answer_as_alone(asked, first):
    """Lists that remember their answers in one memory (one entry per spelling for all of them)
    answer each as a list of its own does, whichever of them asked first and however."""
    alone = [WordList.from_words(WORDS), WordList.from_words(["b", "maison", "zèbres"]), WordList.from_words(["ete"])]
    shared = [WordList(words.array) for words in alone]
    memory = Memory(len(shared))
    for number, words in enumerate(shared):
        words.share(memory, number)
    assert shared[1].position(first[0]) == alone[1].position(first[0]) if first else True
    shared[2].remember(first)  # some answers of one list remembered: the others' are kept
    memory.learn_all(first, [words.positions(first) for words in alone])
    for words, reference in zip(shared, alone):
        assert words.known_positions(asked).tolist() == [reference.position(word) for word in asked]
        assert [words.position(word) for word in asked] == [reference.position(word) for word in asked]
    assert len(memory.answers) == len(set(first) | set(asked))


def test_a_list_longer_than_a_shared_memory_holds_keeps_its_own():
    memory = Memory(40)  # one bit a list: no position fits
    words = WordList.from_words(WORDS)
    words.share(memory, 3)
    assert words.memory is not memory and words.position("été") == sorted(set(WORDS)).index("été")
    assert not memory.answers
