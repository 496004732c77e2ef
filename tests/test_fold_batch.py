"""Folding a batch finds the texts to fold by one scan of the batch's code points
(triage.text.normalise.fold_batch): it must fold exactly what folding each text alone folds,
and the table of characters it scans with must hold the characters of the regular expressions
that fold() tests a text with."""

from __future__ import annotations

import re

from hypothesis import example, given, settings
from hypothesis import strategies as st

from triage.text import normalise
from triage.text.normalise import fold, fold_batch

# Letters spaced or dotted out (and words that look so), disguises folding acts on, separators of
# every kind, line breaks, marks, emoji and tags, surrogates and a NUL.
PIECES = ["N i c o l a s", "N.i.c.o.l.a.s", "y a-t-il", "a b c", "à é", "il y a un an", "N\u00a0i\u2009c\u202fo",
          "a", "N", "é", "\u0301", "\u0430", "\u03bf", "\u200b", "\u202e", "\u00ad", "\ufeff", "\uff16", "\u0666",
          "😀", "\U000e0041", "\U0001d400", "\ufe0f", " ", "  ", "\t", "\n", ".", "-", "_", "/", "*", "·", "\u2013",
          "\x00", "\ud800", "ǅ", "Ͱ", "ӿ", "ɏ", "ɐ", " - ", " . ", " -- "]
TEXTS = st.lists(st.lists(st.sampled_from(PIECES), max_size=12).map("".join), max_size=8)


@settings(max_examples=500, deadline=None)
@given(texts=TEXTS)
@example(texts=["N i c o l a s", "il y a", "Nicolаs", "x"])
@example(texts=["a b", "c d"])  # a match would cross from one text to the next
@example(texts=[" a b ", ""])
def test_a_batch_folds_what_folding_each_text_folds(texts):
    each = [fold(text) for text in texts]
    assert fold_batch(texts) == ([folded for folded, _ in each],
                                 {i: offsets for i, (_, offsets) in enumerate(each) if offsets is not None})


@settings(max_examples=300, deadline=None)
@given(texts=TEXTS)
@example(texts=["x a - b y", "x a -- b y", "x a  b y", "x a    b y"])  # one to three separators between, and four
def test_the_scan_finds_the_texts_the_regular_expressions_find(texts):
    hinted, spaced = normalise._scanned(texts)
    assert hinted == {i for i, text in enumerate(texts)
                      if normalise._FOLDABLE.search(text) or normalise._DRESSING.search(text)}
    assert spaced == {i for i, text in enumerate(texts) if normalise._SPACED_HINT.search(text)}


def test_the_table_of_characters_holds_those_of_the_character_classes():
    bits = normalise._character_bits()
    classes = [(normalise._FOLDS, normalise._FOLDABLE), (normalise._DRESSES, normalise._DRESSING),
               (normalise._SEPARATES, re.compile(normalise._SEP)), (normalise._HINTS, re.compile(normalise._HINT_LETTER))]
    # Every character of the Basic Multilingual Plane, and the astral planes in steps (with the
    # astral characters the classes list).
    astral = {ord(char) for char in normalise.DIACRITICS | normalise.IGNORABLE | normalise.SEPARATORS} - set(range(0x10000))
    for point in [*range(0x10000), *range(0x10000, 0x110000, 37), *sorted(astral)]:
        char = chr(point)
        for bit, pattern in classes:
            assert bool(bits[point] & bit) == bool(pattern.match(char)), (hex(point), bit)
