"""The new spellings of a batch are labelled as column operations (Lexicons.lookup_many,
WordLabeller.decide_listed, onomatopoeia_many): they must give exactly what the one-spelling
functions give (Lexicons.lookup, WordLabeller.label_word, is_onomatopoeia), which stay the
reference."""

from __future__ import annotations

import dataclasses
import itertools
import re

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from triage.lexicons import CLITICS, NO_RANK, _sorted_arrays, fold
from triage.seekhide import SeekAndHide
from triage.seekhide.words import (_ONOMATOPOEIA, _ONOMATOPOEIA_LINES, RARE_FIRST_NAME_RANK, WordLabeller,
                                   _by_first_letter, _elisions, _glued, is_onomatopoeia, onomatopoeia_many)

SETTINGS = dict(deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])

LETTERS = "aeéèEÉiIİoôOuüçœŒæßnrRsStThHm'’-.0😀ΣσςΟΔЖ\u0301\x00\ud800"
KNOWN = [
    "Patrice", "patrice", "PATRICE", "Pierre", "pierre", "Rose", "tête", "tete", "désolé", "desole", "dèsolé", "Aimé",
    "aime", "aimé", "Luca", "luca", "Noëlle", "noelle", "Lyon", "Mme", "Mme.", "dr", "haha", "Héhé", "mouahaha",
    "mdrrrr", "lecole", "jexplique", "kon", "lo", "Dubois", "aujourd'hui", "aujourd’hui", "Jean-Pierre", "zorglub",
    "crayon", "merciiii", "x", "ΟΔΟΣ", "", "é" * 60,
    # first names found only by their accent-folded spelling (Véronique, Ségolène, Renée): their
    # rank is that of the name they stand for
    "veronique", "Segolene", "renee", "daphne",
]
spelling = st.one_of(st.sampled_from(KNOWN), st.text(LETTERS, max_size=10), st.text(max_size=6))
USER_NAMES, USER_WORDS = {"zorglub", "rose", "crayon"}, {"patrice", "kon", "desole"}


def _weak_rank(lexicons, key: str) -> int:
    """The first-name rank _weak_name reads for `key`."""
    if key not in lexicons.first_names and key not in lexicons.last_names:
        key = lexicons.folded_names.get(fold(key), fold(key))
    return lexicons.first_name_ranks.get(key, NO_RANK)


@settings(max_examples=200, **SETTINGS)
@given(words=st.lists(spelling, max_size=25), user=st.booleans())
@example(words=["Luca", "luca", "noelle", "tete", "désolé", "", "ab\x00", "é" * 60], user=False)
@example(words=["veronique", "segolene", "Renee", "daphne"], user=False)
def test_the_look_ups_of_many_spellings_equal_those_of_each(lexicons, words, user):
    if user:
        lexicons = dataclasses.replace(lexicons, user_names=USER_NAMES, user_words=USER_WORDS)
    keys = [word.lower() for word in words]
    looked = lexicons.lookup_many(keys, [fold(key) for key in keys])
    for remembered in (lexicons.last_names, lexicons.forms, lexicons.folded_anti):
        # What the batched search found is remembered, as the list's own search finds it...
        assert remembered._remembered(keys).tolist() == list(map(remembered._search, keys))
    for remembered in (lexicons.last_names, lexicons.forms, lexicons.folded_anti):
        remembered._positions.clear()  # ...and lookup() searches again, one by one
    for index, key in enumerate(keys):
        assert (looked.in_names[index], looked.in_anti[index]) == lexicons.lookup(key), key
        listed = key in lexicons.other_anti or key in lexicons.first_names or key in lexicons.user_names \
            or key in lexicons.user_words or key in lexicons.forms or key in lexicons.last_names
        assert looked.as_written[index] == listed, key
        assert looked.rank[index] == _weak_rank(lexicons, key), key


def test_the_sorted_lists_saved_in_the_snapshot_answer_as_those_made_from_the_lexicons(lexicons):
    """The small lists of the batched look-ups are read from the lexicon snapshot; a Lexicons
    made otherwise (without them) makes them from its own lists, with the same answers."""
    assert lexicons.sorted_arrays is not None
    made = dataclasses.replace(lexicons, sorted_arrays=None)
    keys = [word.lower() for word in KNOWN] + ["noëlle", "sophie", "zoé", "zoe", "helene", "hélène", "marseille"]
    folded = [fold(key) for key in keys]
    for saved, again in zip(lexicons.lookup_many(keys, folded, remember=False),
                            made.lookup_many(keys, folded, remember=False)):
        assert saved.tolist() == again.tolist()
    rebuilt = _sorted_arrays(lexicons.first_name_ranks, lexicons.folded_names, lexicons.other_anti)
    assert sorted(rebuilt) == sorted(lexicons.sorted_arrays)
    for name, array in lexicons.sorted_arrays.items():
        assert array.dtype == rebuilt[name].dtype and array.tolist() == rebuilt[name].tolist(), name


@settings(max_examples=200, **SETTINGS)
@given(folded=st.lists(st.one_of(st.text("haeioumdrlptxzy'\n", max_size=14), st.text(max_size=8)), max_size=30))
@example(folded=["hahah", "trololo", "mouahahah", "pppp", "zz", "hannnn", "gogogo", "juju", "", "a\nb"])
def test_onomatopoeia_of_many_spellings_equals_that_of_each(folded):
    assert onomatopoeia_many(folded) == [is_onomatopoeia(spelling) for spelling in folded]


@settings(max_examples=60, **SETTINGS)
@given(words=st.lists(spelling, min_size=1, max_size=25), user=st.booleans(),
       off=st.lists(st.sampled_from(["accent", "onomatopoeia", "apostrophe", "title", "repetition", "concatenation",
                                     "misspelling"]), max_size=3))
@example(words=["dèsolé", "Mme", "haha", "lecole", "Luca"], user=False, off=["accent"])
@example(words=["surment", "Surment", "jtaime", "larrivee", "Nicoooolas", "merciiii", "zorglub"], user=False, off=[])
@example(words=["surment", "jtaime", "larrivee", "merciiii"], user=False, off=["misspelling", "concatenation"])
def test_labels_decided_as_columns_equal_those_of_one_spelling_at_a_time(lexicons, words, user, off):
    if user:
        lexicons = dataclasses.replace(lexicons, user_names=USER_NAMES, user_words=USER_WORDS)
    batch, alone = SeekAndHide(lexicons, off), SeekAndHide(lexicons, off)
    batch.label_many(words)
    assert {word: batch._cache[word] for word in words} == {word: alone.label_word(word) for word in words}


def test_a_rare_first_name_is_weak_and_a_common_one_is_not(lexicons):
    keys = ["kevin", "ziva", "zorglub"]
    looked = lexicons.lookup_many(keys, keys)
    weak = SeekAndHide(lexicons)._weak(looked).tolist()
    assert looked.rank[0] <= RARE_FIRST_NAME_RANK < looked.rank[1] and weak[:2] == [False, True]


# Words the SMS heuristics turn to: ordinary words starting with a vowel or an h (glued after a
# clitic), names, words with a doubled letter, sounds, and words the lists do not hold.
BASES = [
    "arrive", "arrivée", "école", "ecole", "explique", "aime", "attends", "entends", "ai", "est", "habite", "hotel",
    "suis", "sais", "lai", "merci", "nicolas", "julien", "patrice", "lucas", "emma", "surement", "beaucoup", "demain",
    "belle", "allez", "appelle", "ornythorinque", "haha", "mdr", "ouf", "zorglub", "oui", "ok", "ecoute", "immense",
    "elle", "essaie", "ete", "été", "envoie", "inès", "ines", "aaron", "ella", "ellen", "hannah", "anne", "ahmed",
]
CLITIC_PREFIXES = ["", "", "", "j", "l", "qu", "m", "t", "s", "n", "d", "c", "jt", "jm", "tm", "js", "jl", "x", "lz"]


@st.composite
def sms_spellings(draw) -> str:
    """A word as an SMS writer may write it: a clitic glued in front, letters stretched,
    one letter left out, accents dropped, capitals."""
    word = draw(st.sampled_from(CLITIC_PREFIXES)) + draw(st.sampled_from(BASES))
    for _ in range(draw(st.integers(0, 3))):  # a letter written 2 to 4 times
        at = draw(st.integers(0, len(word) - 1))
        word = word[:at] + word[at] * draw(st.integers(1, 3)) + word[at:]
    if draw(st.booleans()) and len(word) > 5:  # a letter left out
        at = draw(st.integers(0, len(word) - 1))
        word = word[:at] + word[at + 1:]
    if draw(st.booleans()):
        word = fold(word)
    return draw(st.sampled_from([str, str.upper, str.capitalize, lambda w: w + "-" + w]))(word)


@settings(max_examples=150, **SETTINGS)
@given(words=st.lists(st.one_of(sms_spellings(), spelling), min_size=1, max_size=30), user=st.booleans(),
       off=st.lists(st.sampled_from(["accent", "onomatopoeia", "apostrophe", "title", "repetition", "concatenation",
                                     "misspelling"]), max_size=3))
@example(words=["jarriiive", "Lecole", "jtaime", "larrivee", "lellen", "jsuiiis", "quellle", "mdrrr", "dines"],
         user=False, off=[])
@example(words=["jarriiive", "lecole", "jtaime", "Lellen", "dines"], user=True, off=["accent"])
def test_the_heuristics_of_many_spellings_label_as_each_alone(lexicons, words, user, off):
    """The SMS heuristics tried on the spellings of a batch together (their candidates asked of
    the lists at once) label each spelling as label_word does alone."""
    if user:
        lexicons = dataclasses.replace(lexicons, user_names=USER_NAMES | {"ecole", "arrive"},
                                       user_words=USER_WORDS | {"lucas", "ellen"})
    batch, alone = SeekAndHide(lexicons, off), SeekAndHide(lexicons, off)
    batch.label_many(words[: len(words) // 2])  # a batch, then the next with spellings (or keys) labelled before
    batch.label_many(words)
    assert {word: batch._cache[word] for word in words} == {word: alone.label_word(word) for word in words}


@settings(max_examples=100, **SETTINGS)
@given(words=st.lists(st.one_of(sms_spellings(), spelling), max_size=25))
def test_a_look_up_of_many_spellings_not_remembered_leaves_the_lists_as_they_were(lexicons, words):
    keys = [word.lower() for word in words]
    lists = (lexicons.last_names, lexicons.forms, lexicons.folded_anti)
    for words_of in lists:
        words_of._positions.clear()
    looked = lexicons.lookup_many(keys, [fold(key) for key in keys], remember=False)
    assert [len(words_of._positions) for words_of in lists] == [0, 0, 0]
    assert [(names, anti) for names, anti in zip(looked.in_names.tolist(), looked.in_anti.tolist())] \
        == [lexicons.lookup(key) for key in keys]


def _repetition_candidates_one_product(folded: str) -> list[str]:
    """The repetition heuristic's candidates, every run through the product of its choices."""
    runs = list(re.finditer(r"(\w)\1+", folded))
    if not runs or len(runs) > 5:
        return []
    found = []
    for choice in itertools.product((1, 2), repeat=len(runs)):
        parts, last = [], 0
        for run, keep in zip(runs, choice):
            parts.append(folded[last : run.start()] + run.group(1) * keep)
            last = run.end()
        candidate = "".join(parts) + folded[last:]
        if candidate != folded:
            found.append(candidate)
    return found


@settings(max_examples=300, deadline=None)
@given(folded=st.text("aabbc_1é", max_size=14))
@example(folded="merciii")
@example(folded="appelle")
def test_the_repetition_candidates_are_those_of_the_product_of_each_run(folded):
    assert WordLabeller._repetition_candidates(folded) == _repetition_candidates_one_product(folded)


@settings(max_examples=300, deadline=None)
@given(folded=st.text("jlmtscnqudaeiouyhé'", max_size=9))
@example(folded="jtaime")
@example(folded="quil")
@example(folded="larrivee")
def test_the_clitic_readings_are_each_clitic_of_the_lists_then_the_rest(folded):
    """The apostrophe heuristic reads a clitic that elides (in sorted order) before a rest of two
    letters or more starting with a vowel or an h; the clitics heuristic, two glued clitics (each
    letter one), then one, before a rest of two letters or more."""
    elided = [(clitic, folded[len(clitic):]) for clitic in sorted(CLITICS)
              if folded.startswith(clitic) and len(folded) - len(clitic) >= 2
              and folded[len(clitic)] in "aeiouyhéèêàâîôû"]
    assert _elisions(folded) == elided
    glued = [(folded[:size], folded[size:]) for size in (2, 1)
             if len(folded) - size >= 2 and all(letter in "jtmslnc" for letter in folded[:size])]
    assert _glued(folded) == glued


@settings(max_examples=500, deadline=None)
@given(lines=st.lists(st.text("ahoeumdrptlxfsbgiwycnz", max_size=9), min_size=1, max_size=8))
@example(lines=["haha", "mouahaha", "bwahaha", "gnhihi", "rolala", "ohlala", "ahlala", "lool", "ptdr", "ouille"])
def test_the_sounds_grouped_by_first_letter_are_the_sounds_of_the_pattern(lines):
    """Laughter and interjections are looked for with the alternatives of the pattern grouped by
    the letter a match may start with: the same lines are found as with the pattern itself."""
    assert _ONOMATOPOEIA_LINES.pattern != rf"^(?:{_ONOMATOPOEIA.pattern})$"  # grouped indeed
    joined = "\n".join(lines)
    plain = re.compile(rf"^(?:{_ONOMATOPOEIA.pattern})$", re.MULTILINE)
    assert [m.span() for m in _ONOMATOPOEIA_LINES.finditer(joined)] == [m.span() for m in plain.finditer(joined)]


def test_a_pattern_is_grouped_by_first_letter_only_when_each_start_is_known():
    assert _by_first_letter("ab+|b(?:c|d)|a?c") == "(?=a)(?:ab+|a?c)|(?=b)(?:b(?:c|d))|(?=c)(?:a?c)"
    for pattern in ("a*|b", r"\w+|a", "[a-c]x|b", "[^a]|b", "a|.b"):
        assert _by_first_letter(pattern) == pattern
