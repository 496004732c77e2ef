"""Word-level name-likeness: which words of a message, beyond Seek&Hide's dictionary words,
look like a person's name and should be hidden too (beyond the paper).

Candidates are the words Seek&Hide could not settle: AMBIGUOUS, UNKNOWN, weak names, and any
capitalised word. Each gets features a reader uses: a capital away from the sentence start,
a cue before it ("avec X", "chez X", "coucou X", "bisous X"), punctuation after it (a
vocative: "ça va Aude ?"), the dictionary's frequency rank, elongation, and, from the corpus
itself, how often the word is written in lower case by other messages: a word many people
write in lower case is an ordinary word. A small forest, learnt from gold spans, turns the
features into a probability; classify runs it as a numpy Forest (see triage.model).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable

import numpy as np

from features.sets import PERSON_CUES
from triage.lexicons import APOSTROPHES, Lexicons, fold
from triage.seekhide import AMBIGUOUS, ANTI_DICTIONARY, DICTIONARY, UNKNOWN, SeekResult

WORD_FEATURES = (
    "dictionary", "ambiguous", "unknown", "ordinary", "weak", "guessed",
    "capitalised", "all_caps", "sentence_start", "first_name_rank", "surname", "sms_form", "place",
    "after_cue", "after_title", "before_punctuation", "last_word", "length", "elongated",
    "corpus_lower", "spelling", "name_prefix", "reduplication", "pet_suffix",
)
# Affectionate endings of nicknames: Louloute, Gillou, Clainou, Soizicette.
_PET_SUFFIXES = ("ou", "oute", "inou", "ette", "inette", "ounet", "ounette", "ouche", "ie", "y")
_GUESSED_RULES = ("misspelling", "apostrophe", "concatenation", "repetition", "weak-name")
_TITLES = frozenset("m mr mme mlle madame monsieur dr docteur".split())


def is_candidate(word) -> bool:
    """Words worth scoring: everything but lower-case ordinary words found as spelled."""
    return word.label != ANTI_DICTIONARY or word.text[:1].isupper() or word.rule != "exact"


_LETTERS = re.compile(r"[^\W\d_]+")


class CorpusStats:
    """How many messages of the corpus write each spelling in lower case ("a word many
    senders write in lower case is an ordinary word, not a name")."""

    def __init__(self, lower_counts: Counter | None = None):
        self.lower_counts = lower_counts or Counter()

    def add(self, texts: Iterable[str]) -> CorpusStats:
        for text in texts:
            self.lower_counts.update({w for w in _LETTERS.findall(text) if w.islower()})
        return self

    @classmethod
    def from_texts(cls, texts: Iterable[str]) -> CorpusStats:
        return cls().add(texts)

    def lower(self, text: str) -> float:
        return math.log1p(self.lower_counts.get(text.lower(), 0))


class Spelling:
    """How much a spelling looks like a first name rather than an ordinary word: the mean
    log-ratio of its letter trigrams in the first-name list and in the word lists (a name
    from elsewhere, Serghei or Elsayed, still looks like a name), plus whether it starts a
    common first name (Seb, Steph, Adri: nicknames by truncation)."""

    def __init__(self, trigrams: dict[str, float], prefixes: frozenset[str]):
        self.trigrams = trigrams
        self.prefixes = prefixes
        self.cache: dict[tuple, tuple] = {}  # per spelling: the features that depend on it alone

    @classmethod
    def from_lexicons(cls, lexicons: Lexicons, max_rank: int = 20_000, word_sample: int = 8) -> Spelling:
        names = [n for n, r in lexicons.first_name_ranks.items() if r <= max_rank]
        words = sorted(lexicons.forms)[::word_sample] + list(lexicons.sms)
        name_counts, word_counts = _trigram_counts(names), _trigram_counts(words)
        n_names, n_words = sum(name_counts.values()), sum(word_counts.values())
        vocabulary = len(name_counts.keys() | word_counts.keys()) or 1
        trigrams = {
            g: math.log((name_counts[g] + 1) / (n_names + vocabulary)) - math.log((word_counts[g] + 1) / (n_words + vocabulary))
            for g in name_counts.keys() | word_counts.keys()
        }
        common = [n for n, r in lexicons.first_name_ranks.items() if r <= 5_000]
        prefixes = frozenset(fold(n)[:k] for n in common for k in range(3, 7) if len(n) > k)
        return cls(trigrams, prefixes)

    def score(self, word: str) -> float:
        grams = _trigrams(word)
        return sum(self.trigrams.get(g, 0.0) for g in grams) / len(grams) if grams else 0.0


def _trigrams(word: str) -> list[str]:
    word = f"^{fold(word)}$"
    return [word[i : i + 3] for i in range(len(word) - 2)]


def _trigram_counts(words) -> Counter:
    counts: Counter = Counter()
    for word in words:
        counts.update(_trigrams(word))
    return counts


def is_reduplication(key: str) -> bool:
    """jeje, titi, lolo, Domdom, Yanyan: a repeated syllable, typical of nicknames."""
    n = len(key)
    return n >= 4 and n % 2 == 0 and key[: n // 2] == key[n // 2 :]


def word_features(result: SeekResult, lexicons: Lexicons, stats: CorpusStats | None = None,
                  spelling: Spelling | None = None):
    """(indices of candidate words in result.words, feature matrix) for one message."""
    indices, rows = word_rows(result, lexicons, stats, spelling)
    return indices, np.asarray(rows, dtype=float).reshape(len(rows), len(WORD_FEATURES))


def word_rows(result: SeekResult, lexicons: Lexicons, stats: CorpusStats | None = None,
              spelling: Spelling | None = None) -> tuple[list[int], list[tuple]]:
    """(indices of candidate words, one feature tuple per candidate, in WORD_FEATURES order).

    What depends on the spelling alone is computed once per spelling (`_static`); only the
    context (sentence start, the word before, punctuation after) is computed per word."""
    words = result.words
    indices = [i for i, w in enumerate(words) if is_candidate(w)]
    if not indices:
        return indices, []
    stats = stats or CorpusStats()
    spelling = spelling or default_spelling(lexicons)
    cache = spelling.cache
    last = len(words) - 1
    rows = []
    for i in indices:
        w = words[i]
        static = cache.get((w.text, w.label, w.rule))
        if static is None:
            static = cache[(w.text, w.label, w.rule)] = _static(w, lexicons, spelling)
        previous = words[i - 1].text.lower().translate(APOSTROPHES) if i else ""
        rows.append(
            static[0:8] + (w.sentence_start,) + static[8:12]
            + (previous in PERSON_CUES, previous.rstrip(".") in _TITLES, w.before_punctuation, i == last)
            + static[12:14] + (stats.lower(w.text),) + static[14:18]
        )
    return indices, rows


def _static(w, lexicons: Lexicons, spelling: Spelling) -> tuple:
    key = w.text.lower().translate(APOSTROPHES)
    folded = fold(key)
    match = w.match if w.match in lexicons.first_name_ranks else folded
    rank = lexicons.first_name_ranks.get(match) or lexicons.first_name_ranks.get(key)
    return (
        w.label == DICTIONARY,
        w.label == AMBIGUOUS,
        w.label == UNKNOWN,
        w.label == ANTI_DICTIONARY,
        w.rule == "weak-name",
        w.rule in _GUESSED_RULES or w.rule.startswith("capitalised-"),
        w.text[:1].isupper() and not w.text.isupper(),
        w.text.isupper() and len(w.text) > 1,
        math.log10(rank) if rank else 6.0,
        key in lexicons.last_names,
        key in lexicons.sms,
        key in lexicons.cities or key in lexicons.regions or key in lexicons.countries,
        len(w.text),
        any(a == b == c for a, b, c in zip(key, key[1:], key[2:])),
        spelling.score(key),
        folded in spelling.prefixes,
        is_reduplication(folded),
        len(key) >= 4 and key.endswith(_PET_SUFFIXES),
    )


_SPELLINGS: dict[int, Spelling] = {}


def default_spelling(lexicons: Lexicons) -> Spelling:
    """The Spelling model of a set of lexicons, built once (about 0.3 s)."""
    key = id(lexicons)
    if key not in _SPELLINGS:
        _SPELLINGS[key] = Spelling.from_lexicons(lexicons)
    return _SPELLINGS[key]


def candidate_tag(word, lexicons: Lexicons) -> str:
    """The code tag for a candidate word the scorer hides: NOM for a known surname that is
    not a first name, else PRE."""
    key = word.text.lower()
    return "NOM" if key in lexicons.last_names and key not in lexicons.first_names else "PRE"


def gold_targets(result: SeekResult, indices: list[int], spans: list[tuple[int, int, str]]) -> list[int]:
    """1 for candidate words that overlap a gold span to hide, else 0."""
    return [
        int(any(s < result.words[i].end and result.words[i].start < e for s, e, _ in spans))
        for i in indices
    ]


def make_word_model(seed: int = 0):
    from sklearn.ensemble import RandomForestClassifier

    # Large leaves and balanced classes give smooth, well-ranked probabilities: chosen by
    # donor-grouped cross-validation on the development corpus (README).
    return RandomForestClassifier(
        n_estimators=100, min_samples_leaf=8, class_weight="balanced_subsample", random_state=seed, n_jobs=1
    )
