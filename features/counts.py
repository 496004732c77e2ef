"""Message counts from a Seek&Hide analysis: the features of the paper's Table 5 and more.

The counts come from Seek&Hide's tokens and word labels, so the classify pipeline computes
them from the SeekResult it already has instead of tokenising twice. This module imports
no scikit-learn (classify must start fast); the transformer is in features/extractor.py.
"""

from __future__ import annotations

import math
import re
from functools import lru_cache

from features.sets import FEATURE_SETS, PERSON_CUES
from triage.lexicons import APOSTROPHES, Lexicons, fold
from triage.seekhide import AMBIGUOUS, DICTIONARY, UNKNOWN, SeekResult
from triage.tokenise import PUNCT

_DIGITS = re.compile(r"\d+")
_ELONGATION = re.compile(r"([^\W\d_])\1\1")
# Per-spelling membership flags, in this order.
_FIRST, _LEFFF, _SMS, _PRONOUN, _CITY, _COUNTRY, _UPPER, _ELONGATED = range(8)


def feature_names(feature_set: str = "paper") -> list[str]:
    if feature_set not in FEATURE_SETS:
        raise ValueError(f"unknown feature set {feature_set!r}; known: {', '.join(FEATURE_SETS)}")
    return list(FEATURE_SETS[feature_set])


class _Flags:
    """Membership of each spelling in each lexicon, cached (SMS vocabularies are Zipfian)."""

    def __init__(self, lexicons: Lexicons):
        self.lexicons = lexicons
        self.cache: dict[str, tuple[bool, ...]] = {}
        self.by_spelling: dict[str, tuple[str, tuple[bool, ...]]] = {}
        self.phrase_starts = {p.split(" ", 1)[0] for p in (*lexicons.cities, *lexicons.countries) if " " in p}

    def __call__(self, key: str) -> tuple[bool, ...]:
        """Membership flags of a lower-case spelling (the last two, case and elongation,
        are False: see of_spelling)."""
        flags = self.cache.get(key)
        if flags is None:
            lx = self.lexicons
            folded = fold(key)
            flags = (
                key in lx.first_names or folded in lx.first_names or lx.folded_names.get(folded, "") in lx.first_names,
                key in lx.forms or folded in lx.forms or folded in lx.folded_anti and folded not in lx.other_anti,
                key in lx.sms or folded in lx.sms,
                key in lx.pronouns or folded in lx.pronouns,
                key in lx.cities,
                key in lx.countries,
                False,
                False,
            )
            if len(self.cache) < 500_000:
                self.cache[key] = flags
        return flags

    def of_spelling(self, text: str) -> tuple[str, tuple[bool, ...]]:
        """(lower-case key, flags including 'starts with a capital' and 'elongated') for a
        spelling as written, cached."""
        found = self.by_spelling.get(text)
        if found is None:
            key = text.lower().translate(APOSTROPHES)
            flags = self(key)[:6] + (text[:1].isupper(), bool(_ELONGATION.search(text)))
            found = (key, flags)
            if len(self.by_spelling) < 500_000:
                self.by_spelling[text] = found
        return found


@lru_cache(maxsize=4)
def _flags_for(lexicons: Lexicons) -> _Flags:
    return _Flags(lexicons)


def counts_from_result(
    result: SeekResult, text: str, feature_set: str, lexicons: Lexicons, normalise: bool = False
) -> list[float]:
    """The feature vector of one message, from its Seek&Hide analysis. With `normalise`,
    counts are divided by the number of words (lengths and ranks are left as they are)."""
    flags_of = _flags_for(lexicons)
    words = result.words
    keys, flags = [], []
    upper = first = sms = lefff = pronouns = letters = elongated = 0
    for w in words:
        key, f = flags_of.of_spelling(w.text)  # cached per spelling as written
        keys.append(key)
        flags.append(f)
        first += f[_FIRST]
        sms += f[_SMS]
        lefff += f[_LEFFF]
        pronouns += f[_PRONOUN]
        upper += f[_UPPER]
        elongated += f[_ELONGATED]
        letters += len(w.text)
    n_words = len(words)
    cities, countries = _place_counts(keys, flags, flags_of, lexicons)
    values = [
        upper,
        len(text),
        first,
        countries,
        cities,
        letters / n_words if n_words else 0.0,
        len(_DIGITS.findall(text)),
        elongated,
        sms,
        sum(1 for t in result.tokens if t.kind == PUNCT),
        lefff,
        pronouns,
    ]
    if feature_set != "paper":
        values += _rich_counts(result, words, keys, lexicons)
    if normalise and n_words:
        for i, name in enumerate(feature_names(feature_set)):
            if name not in _NOT_COUNTS:
                values[i] /= n_words
    return values


def _rich_counts(result: SeekResult, words, keys, lexicons: Lexicons) -> list[float]:
    labels = [w.label for w in words]
    capitalised = cued = 0
    for i, word in enumerate(words):
        candidate = word.label in (AMBIGUOUS, UNKNOWN) or word.rule in ("weak-name", "title")
        if not candidate:
            continue
        if word.text[:1].isupper() and not word.text.isupper() and not word.sentence_start:
            capitalised += 1
        if i and keys[i - 1] in PERSON_CUES:
            cued += 1
    best_rank = min(
        (lexicons.first_name_ranks.get(w.match, 10**6) for w in words if w.label in (DICTIONARY, AMBIGUOUS)),
        default=0,
    )
    return [
        labels.count(DICTIONARY),
        labels.count(AMBIGUOUS),
        labels.count(UNKNOWN),
        capitalised,
        cued,
        len(result.detections),
        math.log10(best_rank) if 0 < best_rank < 10**6 else 0.0,
    ]


def _place_counts(keys, flags, flags_of, lexicons) -> tuple[int, int]:
    """(cities, countries), the longest name first: 'la rochelle' counts once, and so does
    'afrique du sud'."""
    cities = countries = 0
    starts = flags_of.phrase_starts
    i = 0
    while i < len(keys):
        size = 1
        if keys[i] in starts:
            for n in (4, 3, 2):
                phrase = " ".join(keys[i : i + n])
                if phrase in lexicons.cities or phrase in lexicons.countries:
                    size = n
                    cities += phrase in lexicons.cities
                    countries += phrase in lexicons.countries
                    break
        if size == 1:
            cities += flags[i][_CITY]
            countries += flags[i][_COUNTRY]
        i += size
    return cities, countries


_NOT_COUNTS = {"SMSLength", "WordLength", "BestNameRank"}
