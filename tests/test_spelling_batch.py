"""The per-spelling columns are computed for many spellings at once (triage/seekhide/spelling_batch.py
and the `_many` functions of names, recognizers and the message counts): they must give
exactly what the one-spelling functions give, which stay the reference."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from triage import recognizers
from triage.model import names
from triage.seekhide import spelling_batch as batch
from triage.features import counts
from triage.lexicons import fold, spelling_key
from triage.seekhide import K_DETECTED, K_WORD, L_DICTIONARY, SeekAndHide
from triage.seekhide.analysis import _spelling_tags as spelling_tags
from triage.lexicons.wordlist import WordList
import spelling_reference as reference  # tests/spelling_reference.py

SETTINGS = dict(deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])

# Accents (composed and not), capitals, apostrophes of every kind, hyphens, digits, emoji,
# Greek (a final sigma lowers differently), Cyrillic, dotted capital I, ligatures, a NUL.
LETTERS = "aeéèEÉÈiIİıoôOuüUçÇœŒæßnNrRsStT'’‘ʼ`´-.0123456789😀👍🏽ΣσςΟΔЖжа\u0301\x00"
KNOWN = [
    "Patrice", "patrice", "PATRICE", "Florence", "Nancy", "tête", "tete", "TETE", "Lyon", "La", "Rochelle", "Paris",
    "aujourd’hui", "aujourd'hui", "Mme", "M.", "avec", "chez", "jeje", "Juju", "coucou", "Louloute", "Seb",
    "Carrefour", "carrefour", "Dupont", "Martin", "désolé", "desole", "Aimé", "aime", "ΟΔΟΣ", "Zorglub", "Domdom",
    "seb", "séb", "dim", "caro",  # first names cut short, and a day cut short (an exception)
]
spelling = st.one_of(st.sampled_from(KNOWN), st.text(LETTERS, min_size=1, max_size=12), st.text(max_size=8))
messages = st.lists(st.lists(spelling, min_size=1, max_size=8).map(" ".join), min_size=1, max_size=6)


@pytest.fixture(scope="module")
def seeker(lexicons) -> SeekAndHide:
    return SeekAndHide(lexicons)  # one table for every example: the columns grow batch after batch


@settings(max_examples=300, **SETTINGS)
@given(texts=st.lists(st.text(max_size=12), max_size=30))
@example(texts=["ΟΔΟΣ", "Σ", "aΣ'", "x\u0301Σ.", "Σa"])  # final sigmas, next to the joining newline
@example(texts=["a\nb", "Tête"])  # a newline: each text on its own
@example(texts=["a\ud800", "\udfff", "b"])  # lone surrogates
def test_string_transforms_of_many_texts_equal_those_of_each(texts):
    assert batch.lower_many(texts) == [text.lower() for text in texts]
    assert batch.spelling_keys(texts) == [spelling_key(text) for text in texts]
    assert batch.fold_many(texts) == [fold(text) for text in texts]
    assert batch.last_characters(texts).tolist() == [ord(text[-1]) if text else 0 for text in texts]
    rows = batch.ascii_rows(texts)
    if all(text.isascii() and "\n" not in text for text in texts):
        codes, starts, lengths = rows
        assert [codes[b:b + n].tobytes().decode("ascii") for b, n in zip(starts.tolist(), lengths.tolist())] == texts
    else:
        assert rows is None


@settings(max_examples=300, **SETTINGS)
@given(listed=st.lists(st.text(min_size=1, max_size=6), max_size=20), keys=st.lists(st.text(max_size=9), max_size=20))
@example(listed=["ab", "abc"], keys=["ab\x00", "abcdefghi", "", "ab", "b"])  # a trailing NUL, longer than any entry
def test_membership_of_many_keys_equals_the_word_lists_answer_for_each(listed, keys):
    words = WordList.from_words(listed)
    asked = keys + listed[:3]
    assert batch.members(words, asked).tolist() == [key in words for key in asked]
    assert batch.members(set(listed), asked).tolist() == [key in set(listed) for key in asked]


@settings(max_examples=200, **SETTINGS)
@given(lists=st.lists(st.frozensets(st.text(min_size=1, max_size=4), max_size=8), min_size=1, max_size=5),
       keys=st.lists(st.text(max_size=5), max_size=20))
def test_memberships_in_several_lists_equal_the_answer_of_each_list(lists, keys):
    asked = keys + [word for listed in lists for word in sorted(listed)[:2]]
    expected = [[key in listed for listed in lists] for key in asked]
    assert batch.memberships(tuple(lists), asked).tolist() == expected
    assert batch.memberships(tuple(lists), asked).tolist() == expected  # from the table kept
    mutable = tuple(set(listed) for listed in lists)  # sets that may change: asked one at a time
    assert batch.memberships(mutable, asked).tolist() == expected


@settings(max_examples=150, **SETTINGS)
@given(texts=messages)
def test_batched_spelling_columns_equal_the_per_spelling_functions(seeker, lexicons, texts):
    analysis = seeker.analyse(texts)
    table = analysis.spellings
    sids = np.unique(analysis.spelling)
    spelled = [table.texts[s] for s in sids.tolist()]
    phrases = counts._phrase_parts(lexicons)
    likeness = names.default_spelling(lexicons)

    # The recognizers' flags, packed in bits and unpacked per flag: the misspelt places last, as their column says.
    unpacked = recognizers.flags(table, sids, np.ones(len(sids), dtype=bool))
    rows = np.stack([unpacked[name] for name in recognizers._FLAGS], axis=1)
    assert rows[:, :-2].tolist() == [list(reference.recognizer_flags(lexicons, text)) for text in spelled]
    assert rows[:, -2:].tolist() == recognizers._misspelt_places.compute(table, sids).tolist()
    assert counts._flags_many.compute(table, sids).tolist() == \
        [list(reference.count_flags(lexicons, text, phrases)) for text in spelled]
    assert names._context_flags_many.compute(table, sids).tolist() == [list(reference.context_flags(text)) for text in spelled]
    assert names._TAGS[names._candidate_tag_codes(table, sids, likeness.prefixes)].tolist() == \
        [reference.candidate_tag(text, lexicons, likeness.prefixes) for text in spelled]
    labelled = [s for s in sids.tolist() if table.infos[s]]
    assert counts._ranks_many.compute(table, sids).tolist() == [
        list(reference.count_ranks(lexicons, table.texts[s], table.infos[s].match)) if table.infos[s] else [counts._NO_RANK] * 2
        for s in sids.tolist()
    ]
    words = np.asarray([s for s in labelled if table.numpy().kind[s] == K_WORD], dtype=np.int64)
    static = names._static_many(likeness, lexicons, table, words)
    expected = [reference.static_features(likeness, lexicons, table.texts[s], table.infos[s].match) for s in words.tolist()]
    assert static.tolist() == np.asarray(expected, dtype=float).reshape(-1, names._STATIC_WIDTH).tolist()
    hidable = sids[(table.numpy().label[sids] == L_DICTIONARY) | (table.numpy().kind[sids] == K_DETECTED)]
    assert np.asarray(spelling_tags.compute(table, sids), dtype=object)[np.isin(sids, hidable)].tolist() == [
        table.tags[s] or lexicons.name_entry(table.infos[s].match).tag for s in hidable.tolist()
    ]


@settings(max_examples=200, **SETTINGS)
@given(texts=st.lists(st.one_of(st.sampled_from(KNOWN), st.text(LETTERS, max_size=40)), max_size=20))
def test_name_likeness_of_many_words_equals_the_score_of_each(lexicons, texts):
    likeness = names.default_spelling(lexicons)
    folded = [fold(spelling_key(text)) for text in texts]
    assert names.likeness_scores(likeness, folded).tolist() == [likeness.score(f) for f in folded]


@settings(max_examples=50, **SETTINGS)
@given(texts=st.lists(st.text(LETTERS, max_size=40), max_size=20), chunk=st.integers(1, 60))
def test_name_likeness_held_in_chunks_equals_the_score_of_each(lexicons, texts, chunk):
    likeness = names.default_spelling(lexicons)
    folded = [fold(spelling_key(text)) for text in texts]
    default, names.LIKENESS_CHUNK = names.LIKENESS_CHUNK, chunk
    try:
        assert names.likeness_scores(likeness, folded).tolist() == [likeness.score(f) for f in folded]
    finally:
        names.LIKENESS_CHUNK = default


def traced_peak_of_long_spellings(likeness) -> int:
    """The peak traced memory of likeness_scores on 5,000 new words of 200 random letters."""
    import random
    import tracemalloc

    rng = random.Random(0)
    folded = ["".join(rng.choices("abcdefghijklmnopqrstuvwxyz", k=200)) for _ in range(5000)]
    tracemalloc.start()
    try:
        names.likeness_scores(likeness, folded)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_name_likeness_of_long_spellings_holds_a_bounded_number_of_trigrams(lexicons):
    peak = traced_peak_of_long_spellings(names.default_spelling(lexicons))
    assert peak < 20 * 2**20  # every trigram of the batch held at once: about 70 MB


@pytest.fixture(scope="module")
def letter_likeness():
    """The embedded model's name likeness, which scores a spelling by its letter model."""
    from triage import model

    likeness = model.load_predictor(model.default_model_path()).spelling
    assert likeness.letters is not None
    return likeness


@settings(max_examples=50, **SETTINGS)
@given(texts=st.lists(st.text(LETTERS, max_size=40), max_size=20), chunk=st.integers(1, 60))
def test_letter_scores_held_in_chunks_equal_those_of_all_at_once(letter_likeness, texts, chunk):
    folded = [fold(spelling_key(text)) for text in texts]
    expected = letter_likeness.letters.decision_function(folded).tolist()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(names, "LIKENESS_CHUNK", chunk)
        assert names.likeness_scores(letter_likeness, folded).tolist() == expected


def test_letter_scores_of_long_spellings_hold_a_bounded_number_of_n_grams(letter_likeness):
    peak = traced_peak_of_long_spellings(letter_likeness)
    assert peak < 40 * 2**20  # every n-gram of the batch held at once: about 175 MB



def test_a_spelling_column_is_declared_once_and_each_set_of_parameters_is_a_column_of_its_own(seeker):
    from triage.seekhide.columns import SPELLING_COLUMNS, spelling_column

    assert SPELLING_COLUMNS["batch.key"] is batch._keys
    with pytest.raises(ValueError, match="declared twice"):
        spelling_column("batch.key", object)(lambda table, sids: [])
    table = seeker.analyse(["Salut Patrice, bisous"]).spellings
    as_key, folded = batch.known(table, "first_names"), batch.known(table, "first_names", "folded")
    assert as_key.shape == folded.shape == (len(table.texts),)
    flagged = {table.texts[s] for s in np.flatnonzero(as_key)}
    assert "Patrice" in flagged and "bisous" not in flagged and "Salut" not in flagged
    asked = []
    column = spelling_column("test.parameters", np.int64)(lambda table, sids, add: asked.append(add) or sids + add)
    try:
        assert table.column(column, 1).tolist() == list(range(1, len(table.texts) + 1))
        assert table.column(column, 10).tolist() == list(range(10, len(table.texts) + 10))
        assert table.column(column, 1).tolist() == list(range(1, len(table.texts) + 1))
        assert asked == [1, 10]  # each computed once
    finally:
        del SPELLING_COLUMNS["test.parameters"]


@settings(max_examples=200, **SETTINGS)
@given(lists=st.lists(st.lists(st.text(min_size=1, max_size=5), max_size=12), min_size=1, max_size=3),
       keys=st.lists(st.text(max_size=6), max_size=20), asked_first=st.integers(0, 3))
@example(lists=[["\x00", "ab"], ["ab\x00"]], keys=["\x00", "ab", "ab\x00", ""], asked_first=1)  # in no list: trailing NULs
def test_lists_sharing_a_memory_answer_together_what_each_answers(lists, keys, asked_first):
    from triage.lexicons.wordlist import Memory, contains_together

    words_lists = [WordList.from_words(listed) for listed in lists]
    memory = Memory(len(words_lists))
    for field, words in enumerate(words_lists):
        words.share(memory, field)
    asked = keys + [word for listed in lists for word in listed[:2]]
    if asked_first < len(words_lists):  # one list has remembered some of them already
        words_lists[asked_first].contains_many(asked[::2])
    alone = [WordList.from_words(listed) for listed in lists]  # each with a memory of its own
    expected = [[key in words for key in asked] for words in alone]
    assert [found.tolist() for found in contains_together(words_lists, asked)] == expected
    assert [found.tolist() for found in contains_together(words_lists, asked)] == expected  # from memory


@settings(max_examples=100, **SETTINGS)
@given(texts=messages)
def test_every_lexicon_known_through_the_lexicon_bits_answers_as_the_lexicon_itself(seeker, lexicons, texts):
    table = seeker.analyse(texts).spellings
    sids = np.arange(len(table.texts))
    sources = {"key": batch.keys(table), "folded": batch.folded_keys(table), "lower": batch.lowered(table)}
    for name in batch._LEXICON_BITS:
        lexicon = getattr(lexicons, name)
        for spelled, strings in sources.items():
            assert batch.known(table, name, spelled)[sids].tolist() == [text in lexicon for text in strings[sids]]


def test_the_lexicon_bits_follow_a_lexicon_that_changed(lexicons):
    import dataclasses

    own = dataclasses.replace(lexicons, user_words=set(), user_names=set())
    table = SeekAndHide(own).analyse(["Zorglubette arrive"]).spellings
    at = table.texts.index("Zorglubette")
    assert not batch.known(table, "user_names")[at]
    own.user_names.add("zorglubette")  # a set changed in place: the table of words is made again
    fresh = SeekAndHide(own).analyse(["Zorglubette arrive"]).spellings
    assert batch.known(fresh, "user_names")[fresh.texts.index("Zorglubette")]
