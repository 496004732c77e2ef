"""Message counts from a Seek&Hide analysis: the features of the paper's Table 5 and more.

The counts come from Seek&Hide's tokens and word labels, so the classify pipeline computes
them from the Analysis it already has instead of tokenising twice. They are computed for a
whole batch at once: lexicon membership once per distinct spelling (a column of the
analysis' spelling table), then sums per message. This module imports no scikit-learn
(classify must start fast); the transformer is in features/extractor.py.
"""

from __future__ import annotations

import itertools
import operator
import re
import sys
import weakref

import numpy as np

from triage.seekhide import spelling_batch as batch
from triage.features.sets import FEATURE_SETS
from triage.lexicons import PERSON_CUES, Lexicons, spelling_key
from triage.pipeline import component
from triage.seekhide import K_DETECTED, K_PUNCT, K_WORD, L_AMBIGUOUS, L_DICTIONARY, L_UNKNOWN, Analysis, rule_code
from triage.seekhide.columns import spelling_column
from triage.seekhide.spelling_batch import members, texts_of

_DIGITS = re.compile(r"\d+")
_ELONGATION = re.compile(r"([^\W\d_])\1\1")
# The first decimal digit (\d) beyond ASCII (U+0660): the letters of Latin-1 and the other
# characters before it are never digits.
_FIRST_WIDE_DIGIT = next(c for c in range(128, sys.maxunicode + 1) if chr(c).isdecimal())
# Per-spelling membership flags, in this order.
(_FIRST, _LEFFF, _SMS, _PRONOUN, _CITY, _COUNTRY, _UPPER, _ELONGATED, _PHRASE_START, _CUE,
 _PHRASE_SECOND) = range(11)
_NOT_COUNTS = {"SMSLength", "WordLength", "BestNameRank"}
_NO_RANK = 10**6
_MATCH = operator.attrgetter("match")


def feature_names(feature_set: str = "paper") -> list[str]:
    if feature_set not in FEATURE_SETS:
        raise ValueError(f"unknown feature set {feature_set!r}; known: {', '.join(FEATURE_SETS)}")
    return list(FEATURE_SETS[feature_set])


@spelling_column("counts.flags", bool, width=11)
def _flags_many(table, sids: np.ndarray) -> np.ndarray:
    """Membership of the spellings `sids` of a table, as written, in each lexicon, and what
    their case says, (len(sids), 11)."""
    lx = table.lexicons
    phrase_words = _phrase_parts(lx)
    if not len(sids):
        return np.zeros((0, 11), dtype=bool)
    texts = texts_of(table, sids)
    key, folded = batch.keys(table)[sids].tolist(), batch.folded_keys(table)[sids].tolist()

    def known(name: str, spelled: str = "key") -> np.ndarray:
        return batch.known(table, name, spelled)[sids]

    return np.column_stack([
        known("first_names") | known("first_names", "folded")
        | members(lx.first_names, list(map(lx.folded_names.get, folded, itertools.repeat("")))),
        known("forms") | known("forms", "folded") | known("folded_anti", "folded") & ~known("other_anti", "folded"),
        known("sms") | known("sms", "folded"),
        known("pronouns") | known("pronouns", "folded"),
        known("cities"),
        known("countries"),
        batch.upper_first(table)[sids],
        _elongated(texts),
        # one look-up per key for the three small lists
        batch.memberships((phrase_words[0], PERSON_CUES, phrase_words[2]), key),
    ])


@spelling_column("counts.ranks", np.int64, width=2)
def _ranks_many(table, sids: np.ndarray) -> np.ndarray:
    """First-name rank of the dictionary match of the spellings `sids` of a table, and of each
    spelling itself (used when a title made the word a name), or _NO_RANK (both _NO_RANK for
    those with no label)."""
    ranks = table.lexicons.first_name_ranks
    infos = list(map(table.infos.__getitem__, sids.tolist()))
    at = np.flatnonzero(np.fromiter(map(bool, infos), dtype=bool, count=len(infos)))
    labelled = sids[at].tolist()
    found = np.full((len(sids), 2), _NO_RANK, dtype=np.int64)
    matches = map(_MATCH, map(infos.__getitem__, at.tolist()))
    found[at, 0] = list(map(ranks.get, matches, itertools.repeat(_NO_RANK)))
    found[at, 1] = list(map(ranks.get, batch.lowered(table)[labelled].tolist(), itertools.repeat(_NO_RANK)))
    return found


def message_counts(analysis: Analysis, feature_set: str, normalise: bool = False) -> np.ndarray:
    """The feature matrix of a batch (one row per message, columns in feature_names order).
    With `normalise`, counts are divided by the number of words (lengths and ranks are
    left as they are)."""
    names = feature_names(feature_set)
    a = analysis
    table = a.spellings
    flags = table.column(_flags_many)
    n = len(a)
    words = np.flatnonzero(a.kind == K_WORD)
    message, spelling = a.message[words], a.spelling[words]
    word_flags = np.take(flags, spelling, axis=0)  # (rows copied faster than by indexing)
    # The words of a message follow each other: a message's sums are differences of running sums.
    bounds = np.searchsorted(message, np.arange(n + 1))

    def total(weights) -> np.ndarray:
        return _sums(weights, bounds).astype(float)

    n_words = np.diff(bounds)
    letters = total(table.numpy().length[spelling])
    sums = _sums(word_flags, bounds).astype(float)  # each flag's words, per message
    cities, countries = sums[:, _CITY].copy(), sums[:, _COUNTRY].copy()
    _count_place_phrases(a, message, spelling, word_flags, cities, countries)
    lengths = np.fromiter(map(len, a.texts), np.int64, n)
    columns = [
        sums[:, _UPPER],
        lengths.astype(float),
        sums[:, _FIRST],
        countries,
        cities,
        np.divide(letters, n_words, out=np.zeros(n), where=n_words > 0),
        _digit_runs(a.texts, lengths).astype(float),
        sums[:, _ELONGATED],
        sums[:, _SMS],
        np.bincount(a.message[a.kind == K_PUNCT], minlength=n),
        sums[:, _LEFFF],
        sums[:, _PRONOUN],
    ]
    if feature_set != "paper":
        columns += _rich_counts(a, words, word_flags, total)
    X = np.column_stack([np.asarray(c, dtype=float) for c in columns]) if n else np.zeros((0, len(names)))
    if normalise:
        scaled = [i for i, name in enumerate(names) if name not in _NOT_COUNTS]
        has_words = n_words > 0
        X[np.ix_(has_words, scaled)] /= n_words[has_words, None]
    return X


def _elongated(texts: list[str]) -> np.ndarray:
    """[bool(_ELONGATION.search(text)) for text in texts]: a letter written three times in a row,
    found for all the texts at once in their code points."""
    found = np.zeros(len(texts), dtype=bool)
    joined = "\n".join(texts)  # no letter: a run never crosses two texts
    codes = np.frombuffer(joined.encode("utf-32-le", "surrogatepass"), np.uint32)
    if len(codes) < 3:
        return found
    at = np.flatnonzero((codes[:-2] == codes[1:-1]) & (codes[1:-1] == codes[2:]))
    if len(at):
        # The letters of [^\W\d_]: word characters, neither digits nor the underscore.
        letters, which = np.unique(codes[at], return_inverse=True)
        letter = np.fromiter((c.isalnum() and not c.isdecimal() for c in map(chr, letters.tolist())), dtype=bool,
                             count=len(letters))
        at = at[letter[which.ravel()]]
        spans = np.fromiter(map(len, texts), dtype=np.int64, count=len(texts)) + 1  # each text and its newline
        starts = np.cumsum(spans) - spans
        found[np.searchsorted(starts, at, side="right") - 1] = True
    return found


def _sums(values: np.ndarray, bounds: np.ndarray) -> np.ndarray:
    """The sums of `values` (a value per word, or a row of flags per word) over the words
    bounds[i]:bounds[i + 1] of each message i, as integers (a row per message)."""
    if values.ndim == 1:
        running = np.zeros(len(values) + 1, dtype=np.int64)
        np.cumsum(values, out=running[1:])
        return running[bounds[1:]] - running[bounds[:-1]]
    width = values.shape[1]
    if len(values) and np.diff(bounds).max() < 256:
        # Flags of messages of fewer than 256 words: each count fits a byte, so the flags of a
        # word, a byte each, are added up eight at a time as 64-bit integers (no byte carries
        # into the next), by differences of running sums (which may wrap round: the
        # differences do not).
        lanes = np.zeros((len(values), -(-width // 8) * 8), dtype=np.uint8)
        lanes[:, :width] = values
        running = np.zeros((len(values) + 1, lanes.shape[1] // 8), dtype=np.uint64)
        np.cumsum(lanes.view(np.uint64), axis=0, out=running[1:])
        return (running.take(bounds[1:], axis=0) - running.take(bounds[:-1], axis=0)).view(np.uint8)[:, :width]
    # Other flags: the rows of each message with words added up at once (np.add.reduceat, which
    # would give a message without words the next row: those stay zero); a count of words fits
    # 32 bits.
    sums = np.zeros((len(bounds) - 1, width), dtype=np.int32 if len(values) < 2**31 else np.int64)
    starts = bounds[:-1]
    some = bounds[1:] > starts
    if some.any():
        sums[some] = np.add.reduceat(values, starts[some], axis=0, dtype=sums.dtype)
    return sums


def _digit_runs(texts: list[str], lengths: np.ndarray) -> np.ndarray:
    """[len(_DIGITS.findall(text)) for text in texts] (`lengths`: the length of each text): the
    runs of decimal digits, found for all the texts at once in their code points."""
    joined = "\n".join(texts)  # no digit: a run never crosses two texts
    codes = np.frombuffer(joined.encode("utf-32-le", "surrogatepass"), np.uint32)
    digit = (codes - 48) <= 9  # ASCII digits (below "0", the difference wraps round)
    wide = np.flatnonzero(codes >= _FIRST_WIDE_DIGIT)
    if len(wide):  # the other decimal digits (Nd, as \d reads them): each character asked once
        other, which = np.unique(codes[wide], return_inverse=True)
        decimal = np.fromiter((chr(c).isdecimal() for c in other.tolist()), dtype=bool, count=len(other))
        if decimal.any():
            digit[wide] = decimal[which.ravel()]
    first = np.flatnonzero(digit[1:] & ~digit[:-1]) + 1
    if len(digit) and digit[0]:
        first = np.concatenate([[0], first])
    ends = np.cumsum(lengths + 1)  # where each text's newline is
    return np.bincount(np.searchsorted(ends, first, side="right"), minlength=len(texts))


@component("features", requires=["analysis"], assigns=["features"])
def _features(context, batch) -> None:
    """The pipeline's component: the counts of the context's `feature_set` (`normalise`d or not)."""
    batch.features = message_counts(batch.analysis, context.feature_set, context.normalise)


def _rich_counts(a: Analysis, words, word_flags, total) -> list[np.ndarray]:
    n = len(a)
    label, rule = a.label[words], a.rule[words]
    message = a.message[words]
    special = np.isin(rule, [rule_code("weak-name"), rule_code("title")])
    candidate = (label == L_AMBIGUOUS) | (label == L_UNKNOWN) | special
    capitalised = candidate & a.spellings.numpy().capitalised[a.spelling[words]] & ~a.sentence_start[words]
    after_cue = np.zeros(len(words), dtype=bool)
    after_cue[1:] = word_flags[:-1, _CUE] & (message[1:] == message[:-1])
    named = (label == L_DICTIONARY) | (label == L_AMBIGUOUS)
    best = np.full(n, _NO_RANK, dtype=np.int64)
    if named.any():
        # Asked of the named words' spellings only (a few in a batch): the others are never read.
        at = np.flatnonzero(named)
        ranks = a.spellings.column_at(_ranks_many, a.spelling[words[at]])
        word_ranks = np.where(rule[at] == rule_code("title"), ranks[:, 1], ranks[:, 0])
        np.minimum.at(best, message[at], word_ranks)
    best_rank = np.where((best > 0) & (best < _NO_RANK), np.log10(np.maximum(best, 1)), 0.0)
    # The words of each kind counted per message at once, as flags.
    counted = total(np.column_stack([label == L_DICTIONARY, label == L_AMBIGUOUS, label == L_UNKNOWN, capitalised,
                                     candidate & after_cue]))
    return [
        *counted.T,
        np.bincount(a.message[a.kind == K_DETECTED], minlength=n),
        best_rank,
    ]


def _count_place_phrases(a: Analysis, message, spelling, word_flags, cities, countries) -> None:
    """Count multi-word place names once, the longest first: 'la rochelle' is one city (not
    'la' and 'rochelle'), and so is 'afrique du sud' one country. Corrects the per-word
    counts in place."""
    lexicons, texts = a.labeller.lexicons, a.spellings.texts
    prefixes = _phrase_parts(lexicons)[1]
    next_free = 0  # words inside a phrase already counted do not start another
    # Only where a phrase's first word is followed, in the same message, by a second word.
    pairs = word_flags[:-1, _PHRASE_START] & word_flags[1:, _PHRASE_SECOND] & (message[1:] == message[:-1])
    for j in np.flatnonzero(pairs).tolist():
        if j < next_free:
            continue
        pair = f"{spelling_key(texts[spelling[j]])} {spelling_key(texts[spelling[j + 1]])}"
        if pair not in prefixes:  # most 'la', 'le', 'saint' start no place name
            continue
        m = message[j]
        for n in (4, 3, 2):
            if j + n > len(message) or message[j + n - 1] != m:
                continue
            phrase = " ".join(spelling_key(texts[s]) for s in spelling[j : j + n].tolist())
            if phrase in lexicons.cities or phrase in lexicons.countries:
                cities[m] += (phrase in lexicons.cities) - word_flags[j : j + n, _CITY].sum()
                countries[m] += (phrase in lexicons.countries) - word_flags[j : j + n, _COUNTRY].sum()
                next_free = j + n
                break


# Keyed by the lexicons themselves, weakly (an id would be reused by a later object).
_PHRASES: weakref.WeakKeyDictionary[Lexicons, tuple[frozenset[str], frozenset[str], frozenset[str]]] = \
    weakref.WeakKeyDictionary()


def _phrase_parts(lexicons: Lexicons) -> tuple[frozenset[str], frozenset[str], frozenset[str]]:
    """(first words, first two words, second words) of multi-word place names, once per
    lexicons. Frozen: batch.memberships reads several such lists at once."""
    if lexicons not in _PHRASES:
        phrases = [p.split(" ") for p in (*lexicons.cities, *lexicons.countries) if " " in p]
        _PHRASES[lexicons] = (frozenset(p[0] for p in phrases), frozenset(" ".join(p[:2]) for p in phrases),
                              frozenset(p[1] for p in phrases))
    return _PHRASES[lexicons]
