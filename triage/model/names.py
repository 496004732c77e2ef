"""Word-level name-likeness: which words of a message, beyond Seek&Hide's dictionary words,
look like a person's name and should be hidden too (beyond the paper).

Candidates are the words Seek&Hide could not settle: AMBIGUOUS, UNKNOWN, weak names, and any
capitalised word; never laughter nor the words of a message in another language (Seek&Hide's
onomatopoeia and other-language steps), which the scorer neither hides nor learns from. Each gets features a reader uses: a capital away from the sentence start,
a cue before it ("avec X", "chez X", "coucou X", "bisous X"), punctuation after it (a
vocative: "ça va Aude ?"), the dictionary's frequency rank, elongation, and, from the corpus
itself, how often the word is written in lower case by other messages: a word many people
write in lower case is an ordinary word. A small forest, learnt from gold spans, turns the
features into a probability; classify runs it as a numpy Forest (see triage.model).
"""

from __future__ import annotations

import functools
import hashlib
import itertools
import math
import operator
import re
import sys
import weakref
from collections import Counter
from collections.abc import Iterable
from typing import TYPE_CHECKING

import numpy as np

from triage.lexicons import PERSON_CUES, TITLES, Lexicons, fold
from triage.pipeline.arrays import GrowingArray, unique
from triage.pipeline.memory import VOCABULARY
from triage.seekhide import (
    GUESS_RULES,
    K_WORD,
    L_AMBIGUOUS,
    L_ANTI,
    L_DICTIONARY,
    L_UNKNOWN,
    NEVER_NAME_CODES,
    RULES,
    Analysis,
    SeekResult,
    rule_code,
)
from triage.seekhide import spelling_batch as batch
from triage.seekhide.columns import spelling_column
from triage.seekhide.foreign import OTHER_WORDS
from triage.seekhide.spelling_batch import members
from triage.text.normalise import fold_batch
from triage.text.stretches import STRETCH_IDS, Stretched, bare_many, interleaved

if TYPE_CHECKING:
    from triage.model.letters import LetterModel
    from triage.seekhide.table import Spellings

WORD_FEATURES = (
    "dictionary", "ambiguous", "unknown", "ordinary", "weak", "guessed",
    "capitalised", "all_caps", "sentence_start", "first_name_rank", "surname", "sms_form", "place",
    "after_cue", "after_title", "before_punctuation", "last_word", "length", "elongated",
    "corpus_lower", "spelling", "name_prefix", "reduplication", "pet_suffix", "corpus_capitalised",
    "other_language", "surname_rank",
)
# Affectionate endings of nicknames: Louloute, Gillou, Clainou, Soizicette.
_PET_SUFFIXES = ("ou", "oute", "inou", "ette", "inette", "ounet", "ounette", "ouche", "ie", "y")
_GUESSED_RULES = GUESS_RULES | {"weak-name"}


_LETTERS = re.compile(r"[^\W\d_]+")
# A word written with a capital in the middle of a sentence: after a lower-case letter (and at
# most a comma or a semicolon) and white space: "on voit Julie demain", "merci, Julie".
_MID_CAPITAL = re.compile(r"[a-zß-ÿ][,;]?\s+([A-ZÀ-Þ][a-zß-ÿ]+)(?![\w'’-])")


def count_key(text: str) -> int:
    """A spelling's 64-bit key in the corpus counts: the same in every process and every run
    (Python's own hash of a string changes from one process to the next)."""
    return int.from_bytes(hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=8).digest(), "little")


def count_keys(texts: list[str]) -> np.ndarray:
    """[count_key(text) for text in texts] as a uint64 array. The texts are encoded at once,
    joined by a newline, then cut apart again (one text holding a newline: each is encoded alone).
    Each text is hashed by a copy of one fresh hasher (a third cheaper than making a hasher each)."""
    joined = "\n".join(texts)
    if texts and joined.count("\n") == len(texts) - 1:
        encoded = joined.encode("utf-8", "surrogatepass").split(b"\n")
    else:
        encoded = [text.encode("utf-8", "surrogatepass") for text in texts]
    fresh = hashlib.blake2b(digest_size=8).copy
    digests = []
    for text in encoded:
        hasher = fresh()
        hasher.update(text)
        digests.append(hasher.digest())
    return np.frombuffer(b"".join(digests), "<u8").astype(np.uint64)


# A stretch that starts with _MID_CAPITAL's word.
_CAPITAL_WORD = re.compile(r"[A-ZÀ-Þ][a-zß-ÿ]+(?![\w'’-])")


def _lower_case(codes: np.ndarray) -> np.ndarray:
    """Whether each code point is in _MID_CAPITAL's class of lower-case letters, [a-zß-ÿ]: a
    stretch may come right before _MID_CAPITAL's word when it ends with one, then at most a comma
    or a semicolon (the white space after it is the stretch's end)."""
    return ((codes >= 97) & (codes <= 122)) | ((codes >= 0xDF) & (codes <= 0xFF))


# A run of letters, or the space _runs_of puts between two stretches.
_LETTERS_OR_SPACE = re.compile(r"[^\W\d_]+| ")


def _runs_of(stretches: list[str]) -> tuple[list[str], np.ndarray]:
    """(the runs of letters (_LETTERS) of `stretches` (no white space), those of each in turn; how
    many each has). A stretch of letters only is one run, itself (the word then shares its
    string); the others are searched at once, joined by spaces, which no run holds."""
    alpha = np.fromiter(map(str.isalpha, stretches), bool, len(stretches))
    many = alpha.astype(np.intp)
    others = np.flatnonzero(~alpha)
    if not len(others):
        return list(stretches), many
    found = _LETTERS_OR_SPACE.findall(" ".join(map(stretches.__getitem__, others.tolist())) + " ")
    spaces = np.flatnonzero(np.fromiter(map(" ".__eq__, found), bool, len(found)))
    many[others] = np.diff(spaces, prepend=-1) - 1
    # The runs of the stretches of letters, then those of the others: put back in stretch order.
    runs = [*itertools.compress(stretches, alpha.tolist()), *itertools.filterfalse(" ".__eq__, found)]
    order = interleaved(alpha, many[alpha], many[others])
    return list(map(runs.__getitem__, order.tolist())), many


class _Numbered(dict):
    """Words -> their ids, in the order they came: a word not held yet is given the next id when
    asked for (one look-up a word, where finding the new words first took four); the words by id
    (`words`)."""

    def __init__(self):
        super().__init__()
        self.words: list[str] = []

    def __missing__(self, word: str) -> int:
        ident = self[word] = len(self.words)
        self.words.append(word)
        return ident


class _LetterRuns:
    """What the corpus statistics read of each stretch of text between white space, worked out
    once per distinct stretch (SMS repeat their words), as columns over the stretch ids of
    triage.text.stretches.STRETCH_IDS: the lower-case runs of letters it holds (a run never holds
    white space, so a text's runs are those of its stretches), and what _MID_CAPITAL sees of it (a
    match runs from the end of one stretch to the start of the next). The runs and capitalised
    words have an id of their own (`words`), whose count_key is worked out once. Within the
    memory budget of triage.pipeline.memory, by its stretches (their keys are counted with the
    stretch ids); the columns start afresh when the stretch ids do."""

    def __init__(self, kind: str):
        self._start()
        VOCABULARY.track(self, kind)

    def _start(self) -> None:
        self.words: _Numbered = _Numbered()
        # The columns, each grown at its end (GrowingArray) as stretches and words come, read as the
        # views of the attributes below.
        self._grown = {"word_keys": GrowingArray(np.uint64), "run_starts": GrowingArray(np.intp, [0]),
                       "runs": GrowingArray(np.intp), "capital": GrowingArray(np.intp),
                       "before": GrowingArray(bool), "taken": GrowingArray(bool)}
        self.word_keys = self._grown["word_keys"].view()
        # Per stretch id: where its runs start in `runs` (one more entry: the end), the word id of
        # the capitalised word it starts with (-1: none), whether it may come before such a word
        # (it ends with a lower-case letter and at most a comma or a semicolon), and whether a
        # match of _MID_CAPITAL on its own capitalised word takes that lower-case letter.
        self.run_starts = self._grown["run_starts"].view()
        self.runs = self._grown["runs"].view()
        self.capital = self._grown["capital"].view()
        self.before = self._grown["before"].view()
        self.taken = self._grown["taken"].view()
        self.token = STRETCH_IDS.token  # the stretch ids the columns are of

    def __len__(self) -> int:
        return len(self.capital)

    def clear(self) -> None:
        self._start()

    def _word_ids(self, words: list[str]) -> np.ndarray:
        """The id of each word, new words given the next ids."""
        return np.fromiter(map(self.words.__getitem__, words), np.intp, len(words))

    def _grow(self) -> None:
        """The columns of the stretch ids given since they were last grown, worked out for all of
        them at once."""
        if self.token != STRETCH_IDS.token:  # the stretch ids started afresh
            self._start()
        new = bare_many(STRETCH_IDS.texts[len(self):])
        if new:
            runs, many = _runs_of(new)
            lower = np.fromiter(map(str.islower, runs), bool, len(runs))
            ends = np.cumsum(many)
            kept_before = np.concatenate([[0], np.cumsum(lower)])
            grown = self._grown
            self.run_starts = grown["run_starts"].extend(len(self.runs) + kept_before[ends])
            self.runs = grown["runs"].extend(self._word_ids(list(itertools.compress(runs, lower.tolist()))))
            # The first and last characters of the stretches, as code points, read for all of them
            # at once: where in each the match of _MID_CAPITAL that may follow it would begin (a
            # lower-case letter, then at most a comma or a semicolon, at its end; -1: none), and
            # which may start with _MID_CAPITAL's word (a capital first: _CAPITAL_WORD is tried on
            # those only).
            n = len(new)
            lengths = np.fromiter(map(len, new), np.intp, n)
            # (A zero after the last: a stretch of white space alone has no characters, and reads as none.)
            codes = np.frombuffer(("".join(new) + "\0").encode("utf-32-le", "surrogatepass"), np.uint32)
            stops = np.cumsum(lengths)
            empty = lengths == 0
            first, final = np.where(empty, 0, codes[stops - lengths]), np.where(empty, 0, codes[stops - 1])
            before_final = np.where(lengths >= 2, codes[np.maximum(stops - 2, 0)], 0)
            last = np.where(_lower_case(final), lengths - 1,
                            np.where(((final == 44) | (final == 59)) & (lengths >= 2) & _lower_case(before_final),
                                     lengths - 2, -1))
            tried = np.flatnonzero(((first >= 65) & (first <= 90)) | ((first >= 0xC0) & (first <= 0xDE))).tolist()
            matches = [(i, match.end()) for i, match in zip(tried, map(_CAPITAL_WORD.match, map(new.__getitem__, tried)))
                       if match is not None]
            starting = np.fromiter((i for i, _ in matches), np.intp, len(matches))
            capital = np.full(n, -1, np.intp)
            capital[starting] = self._word_ids([new[i][:end].lower() for i, end in matches])
            taken = np.zeros(n, bool)
            taken[starting] = (last[starting] >= 0) & (last[starting] < np.fromiter((end for _, end in matches), np.intp,
                                                                                    len(matches)))
            self.capital = grown["capital"].extend(capital)
            self.before = grown["before"].extend(last >= 0)
            self.taken = grown["taken"].extend(taken)
        if len(self.words) > len(self.word_keys):
            self.word_keys = self._grown["word_keys"].extend(count_keys(self.words.words[len(self.word_keys):]))

    def count(self, stretched: Stretched) -> tuple[tuple[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]:
        """(the keys of the lower-case runs of letters of the texts `stretched` cuts (their stretch
        ids, STRETCH_IDS.cut) and the number of texts holding each; the same for the words
        _MID_CAPITAL finds, lowered), each key once."""
        self._grow()
        # (As intp: each of the gathers below would otherwise convert the ids anew, at twice the cost.)
        stretches, sizes = stretched.ids.astype(np.intp), stretched.counts
        message = np.repeat(np.arange(len(sizes)), sizes)
        # The runs of each stretch, with the text they are in.
        first = self.run_starts[stretches]
        many = self.run_starts[stretches + 1] - first
        at = np.arange(int(many.sum())) - np.repeat(np.cumsum(many) - many - first, many)
        lower = self._per_text(message.repeat(many), self.runs[at], len(sizes))
        # _MID_CAPITAL's matches: a stretch starting with a capitalised word after one that may come
        # before it in the same text, unless the match before took the lower-case letter it needs
        # ("a Bob Carl": "Bob" matches, "Carl" does not). In a chain of such stretches, one in two
        # matches, from the first.
        capital = self.capital[stretches]
        may = np.zeros(len(stretches), bool)
        may[1:] = (capital[1:] >= 0) & self.before[stretches[:-1]] & (message[1:] == message[:-1])
        chained = np.zeros(len(stretches), bool)
        chained[1:] = may[1:] & may[:-1] & self.taken[stretches[:-1]]
        position = np.arange(len(stretches))
        chain_start = np.maximum.accumulate(np.where(chained, 0, position))
        matched = may & ((position - chain_start) % 2 == 0)
        return lower, self._per_text(message[matched], capital[matched], len(sizes))

    def _per_text(self, message: np.ndarray, words: np.ndarray, texts: int) -> tuple[np.ndarray, np.ndarray]:
        """(the keys of `words`, how many distinct texts `message` hold each (of `texts` texts)),
        each key once, in the order of the words' ids: read from the (word, text) pairs sorted, in
        proportion to the pairs (not to the words known)."""
        texts = max(texts, 1)
        found = unique(words * texts + message) // texts  # the word of each distinct (word, text) pair, in order
        starts = np.ones(len(found), bool)
        starts[1:] = found[1:] != found[:-1]
        starts = np.flatnonzero(starts)
        return self.word_keys[found[starts]], np.diff(starts, append=len(found))


_letter_runs = _LetterRuns("letter_runs")  # one per process, shared by every CorpusStats


def grow_letter_runs() -> None:
    """Work out the runs of letters of every stretch this process has cut (STRETCH_IDS): the
    processes forked afterwards inherit them, instead of each working them out as it counts."""
    _letter_runs._grow()


def forget_letter_runs() -> None:
    """Free the runs of letters remembered: they serve the counting of a corpus only."""
    _letter_runs.clear()


class WordCounts:
    """How many messages write each lower-case spelling, held as two sorted numpy columns (the
    spellings' 64-bit keys and their counts): 16 bytes a spelling, however long it is, so that a
    corpus that keeps bringing new or long spellings grows by its number of spellings only.
    Counts are added a batch at a time and merged when asked (or when the unmerged part
    outgrows the merged one)."""

    def __init__(self) -> None:
        self.keys = np.empty(0, np.uint64)
        self.values = np.empty(0, np.int64)
        self._pending: list[tuple[np.ndarray, np.ndarray]] = []
        self._pending_size = 0

    def __len__(self) -> int:
        self._merge()
        return len(self.keys)

    def add(self, keys: np.ndarray, values: np.ndarray | None = None) -> None:
        """Count `keys` (uint64; each once, or `values` times)."""
        if not len(keys):
            return
        if values is None:
            keys, values = np.unique(keys, return_counts=True)
        self._pending.append((keys, values.astype(np.int64, copy=False)))
        self._pending_size += len(keys)
        if self._pending_size > max(len(self.keys), 1 << 16):
            self._merge()

    def update(self, other: WordCounts) -> None:
        self.add(*other.arrays())

    def arrays(self) -> tuple[np.ndarray, np.ndarray]:
        """(the keys, sorted and distinct; the count of each)."""
        self._merge()
        return self.keys, self.values

    @classmethod
    def from_arrays(cls, keys: np.ndarray, values: np.ndarray) -> WordCounts:
        """The counts `arrays()` gave (keys sorted and distinct)."""
        counts = cls()
        counts.keys, counts.values = keys, values
        return counts

    def _merge(self) -> None:
        if self._pending:
            self.keys, self.values = self._merged()
            self._pending, self._pending_size = [], 0

    def _merged(self) -> tuple[np.ndarray, np.ndarray]:
        """The counts merged (keys sorted and distinct), without changing what is held."""
        pending = list(self._pending)
        if not pending:
            return self.keys, self.values
        keys = np.concatenate([self.keys, *(k for k, _ in pending)])
        values = np.concatenate([self.values, *(v for _, v in pending)])
        order = np.argsort(keys, kind="stable")
        keys, values = keys[order], values[order]
        starts = np.flatnonzero(np.r_[True, keys[1:] != keys[:-1]])
        return keys[starts], np.add.reduceat(values, starts)

    def get_many(self, spellings: list[str]) -> np.ndarray:
        """The count of each spelling (0 when never counted)."""
        return self.get_keys(count_keys(spellings))

    def get_keys(self, wanted: np.ndarray) -> np.ndarray:
        """The count of each key (count_key of a spelling; 0 when never counted). The keys are
        searched in increasing order: each search starts where the one before ended, in the
        part of the table it has just read (a few times faster in a large table)."""
        self._merge()
        if not len(self.keys):
            return np.zeros(len(wanted), np.int64)
        order = np.argsort(wanted)
        at = np.empty(len(wanted), dtype=np.intp)
        at[order] = np.searchsorted(self.keys, wanted[order])
        np.minimum(at, len(self.keys) - 1, out=at)
        return np.where(self.keys[at] == wanted, self.values[at], 0)

    def get(self, spelling: str, default: int = 0) -> int:
        count = int(self.get_many([spelling])[0])
        return count if count else default

    def __getstate__(self):
        # As raw bytes: a numpy array's own pickle costs about 150 bytes more, for each column.
        # Merged without changing what is held: two threads may pickle the same counts at once.
        keys, values = self._merged()
        return (keys.astype("<u8").tobytes(), values.astype("<i8").tobytes())

    def __setstate__(self, state) -> None:
        keys, values = state
        self.keys = np.frombuffer(keys, "<u8").astype(np.uint64)
        self.values = np.frombuffer(values, "<i8").astype(np.int64)
        self._pending, self._pending_size = [], 0


class CorpusStats:
    """How many messages of the corpus write each spelling in lower case ("a word many
    senders write in lower case is an ordinary word, not a name").

    Counts are read as a rate: scaled to `reference` messages (the size of the corpus the
    word scorer was trained on) so that a corpus of millions does not make every name look
    ordinary.

    A corpus smaller than the reference says little (a corpus of thirty messages never writes
    `clair` in lower case, and `Clair que non` would read as a name): `prior`, the counts of
    the word scorer's own training corpus (what a model file keeps of them: corpus_prior),
    fills in for the messages it lacks. A corpus of n messages is read as those n plus
    reference - n messages like the training ones; from the reference size on, the corpus
    alone counts.
    """

    def __init__(self, reference: int | None = None, prior: CorpusStats | None = None):
        self.reference = reference
        self.prior = prior
        self.messages = 0
        # Messages holding each word written in lower case, as classify reads it (folded): the
        # only counts asked (count()), a third fewer entries than counting every word as written.
        self.counts = WordCounts()
        # Messages writing each word with a capital in the middle of a sentence (by its lower case
        # spelling): a spelling people capitalise where no sentence starts is a name.
        self.capitalised = WordCounts()
        # A new object whenever the counts change: what is remembered of them is kept under it
        # (the rates of each spelling of a table: _corpus_rates).
        self.counted = object()

    def add(self, texts: Iterable[str], batch: int = 10_000) -> CorpusStats:
        texts = iter(texts)
        while chunk := list(itertools.islice(texts, batch)):
            # Counted as Seek&Hide reads them, so that a name written with look-alike letters or
            # spaced out counts as its plain spelling (triage.text.normalise.fold_batch).
            self.add_folded(fold_batch(chunk)[0])
        return self

    def add_folded(self, folded: list[str]) -> Stretched:
        """Count texts already folded as Seek&Hide reads them (fold_batch's texts): what `add`
        does after folding, for a caller that keeps the folded texts for classifying. Gives the
        texts cut into stretch ids (STRETCH_IDS.cut), which Seek&Hide takes as they are while
        the ids stay valid."""
        VOCABULARY.enforce()  # between two batches: the caches may start afresh
        stretched = STRETCH_IDS.cut(folded)
        lower, capitalised = _letter_runs.count(stretched)
        self.counts.add(*lower)
        self.capitalised.add(*capitalised)
        self.messages += len(folded)
        self.counted = object()
        return stretched

    def __getstate__(self):
        return {"reference": self.reference, "messages": self.messages, "counts": self.counts,
                "capitalised": self.capitalised, "prior": self.prior}

    def __setstate__(self, state) -> None:
        self.__dict__.update(state)
        self.prior = state.get("prior")
        self.counted = object()

    @classmethod
    def from_texts(cls, texts: Iterable[str], reference: int | None = None,
                   prior: CorpusStats | None = None) -> CorpusStats:
        return cls(reference, prior).add(texts)

    def merge(self, other: CorpusStats) -> CorpusStats:
        """Add the counts of another part of the corpus (counted in another process)."""
        self.counts.update(other.counts)
        self.capitalised.update(other.capitalised)
        self.messages += other.messages
        self.counted = object()
        return self

    def count(self, text: str) -> int:
        """Messages of the corpus itself that write `text` in lower case."""
        key = text.lower()
        return self.counts.get(key) if key.islower() else 0

    def lower(self, text: str) -> float:
        return self.lower_many([text])[0]

    def _prior_weight(self) -> float:
        """How many messages of the prior one message of it stands for: the reference size
        less this corpus' own messages, over the prior's size (0 without a prior, or from
        the reference size on)."""
        prior = self.prior
        if prior is None or not prior.messages or not self.reference or self.messages >= self.reference:
            return 0.0
        return (self.reference - self.messages) / prior.messages

    def _rate(self, count: int) -> float:
        # A larger corpus is scaled down to the reference; a smaller one is not scaled up: one
        # message of a corpus of ten is no evidence of what thousands would write (the prior
        # fills in for the messages it lacks: _prior_weight).
        if self.reference and self.messages > self.reference:
            count *= self.reference / self.messages
        return math.log1p(count)

    def capitalised_many(self, texts: list[str]) -> list[float]:
        """For each text, the rate of messages writing its lower-case spelling with a capital in
        the middle of a sentence (read as lower())."""
        return self.rates_many(texts)[:, 0].tolist()

    def lower_many(self, texts: list[str]) -> list[float]:
        """lower() of each text."""
        return self.rates_many(texts)[:, 1].tolist()

    def rates_many(self, texts: list[str]) -> np.ndarray:
        """(capitalised_many, lower_many) of each text, (len(texts), 2): each text's lower-case
        spelling is looked up once for both. The rate in lower case is 0 for a text that has
        no lower-case form (digits alone). Remembered by the caller, per spelling (the word
        scorer's rows: triage.seekhide.table.Spellings.rows_for)."""
        return self.rates_of_lowered(list(map(str.lower, texts)))

    def rates_of_lowered(self, lowered: list[str]) -> np.ndarray:
        """rates_many of texts given in lower case already (text.lower() of each)."""
        keys = count_keys(lowered)
        weight = self._prior_weight()
        rates = np.zeros((len(lowered), 2))
        for column, counts, lower_only in ((0, self.capitalised, False), (1, self.counts, True)):
            found = counts.get_keys(keys)
            if weight:
                prior = self.prior.counts if counts is self.counts else self.prior.capitalised
                found = found + weight * prior.get_keys(keys)
            if lower_only:
                found = np.where(np.fromiter(map(str.islower, lowered), bool, len(lowered)), found, 0)
            # The rate of each distinct count, worked out once (by math's log1p, as for a single text).
            distinct, inverse = np.unique(found, return_inverse=True)
            rates[:, column] = np.asarray(list(map(self._rate, distinct.tolist())), dtype=float)[inverse.ravel()]
        return rates


# A model file keeps the counts of its training corpus for the spellings of the shipped word lists
# that at least this many of its messages write (corpus_prior).
PRIOR_MINIMUM_MESSAGES = 2


# Keyed by the lexicons themselves, weakly: the sorted count keys of the words a prior may keep.
_LISTED_KEYS: weakref.WeakKeyDictionary[Lexicons, np.ndarray] = weakref.WeakKeyDictionary()


def _listed_keys(lexicons: Lexicons) -> np.ndarray:
    """The count keys of the ordinary words of the shipped lists a prior may keep, sorted (worked
    out once per lexicons: half a million words)."""
    if lexicons not in _LISTED_KEYS:
        _LISTED_KEYS[lexicons] = np.sort(count_keys(list(itertools.chain(lexicons.forms, lexicons.other_anti))))
    return _LISTED_KEYS[lexicons]


def corpus_prior(stats: CorpusStats, lexicons: Lexicons) -> CorpusStats:
    """What a model file keeps of its training corpus' counts (`stats`), as the prior of the
    corpora smaller than it (CorpusStats): only the ordinary words of the shipped word lists
    (inflected forms, SMS forms, pronouns, places) that at least PRIOR_MINIMUM_MESSAGES of its
    messages write, each as its 64-bit key and its count. No spelling outside those public
    lists, hence no name the corpus alone holds, is kept, and no text at all."""
    listed = _listed_keys(lexicons)
    prior = CorpusStats()
    prior.messages = stats.messages

    def kept(counted: WordCounts) -> WordCounts:
        keys, values = counted.arrays()
        if not len(listed):
            return WordCounts()
        at = np.minimum(np.searchsorted(listed, keys), len(listed) - 1)
        chosen = (values >= PRIOR_MINIMUM_MESSAGES) & (listed[at] == keys)
        return WordCounts.from_arrays(keys[chosen], values[chosen])

    prior.counts, prior.capitalised = kept(stats.counts), kept(stats.capitalised)
    return prior


class NameLikeness:
    """How much a spelling looks like a first name rather than an ordinary word: the mean
    log-ratio of its letter trigrams in the first-name list and in the word lists (a name
    from elsewhere, Serghei or Elsayed, still looks like a name), plus whether it starts a
    common first name (Seb, Steph, Adri: nicknames by truncation).

    A word scorer trained with gold spans learns the first from its candidate words instead
    (`letters`, triage.model.letters.LetterModel: the log-odds of a name from its letter
    n-grams, which also tells names from the SMS spellings of ordinary words)."""

    def __init__(self, trigrams: dict[str, float], prefixes: frozenset[str], letters: LetterModel | None = None):
        self.trigrams = trigrams
        self.prefixes = prefixes
        self.letters = letters
        self._table: _TrigramTable | None = None

    def learnt(self, letters: LetterModel | None) -> NameLikeness:
        """The same model with `letters` learnt from gold (None: the trigrams of the lexicons)."""
        return NameLikeness(self.trigrams, self.prefixes, letters)

    def trigram_table(self) -> _TrigramTable:
        """`trigrams` as arrays, for looking up the trigrams of many words at once
        (likeness_scores). Made the first time it is asked for: `trigrams` is not changed
        afterwards."""
        if getattr(self, "_table", None) is None:  # (an object unpickled from an older version has none)
            self._table = _TrigramTable(self.trigrams)
        return self._table

    @classmethod
    def from_lexicons(cls, lexicons: Lexicons, max_rank: int = 20_000, word_sample: int = 8) -> NameLikeness:
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
        if getattr(self, "letters", None) is not None:
            return float(self.letters.decision_function([word])[0])
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


# Spellings up to this long are compared in their code points, all at once (reduplications,
# _tripled); a longer one, alone, by its string: the arrays of code points take about twenty bytes a
# character, which a pasted document of megabytes taken for a word must not cost.
CODE_POINTS_LENGTH = 256


def reduplications(keys: list[str]) -> np.ndarray:
    """[is_reduplication(key) for key in keys] as a bool array: only keys of an even length of
    four or more are compared, their halves for all of them at once in their code points (a key
    longer than CODE_POINTS_LENGTH alone)."""
    lengths = np.fromiter(map(len, keys), dtype=np.int64, count=len(keys))
    found = np.zeros(len(keys), dtype=bool)
    even = (lengths >= 4) & (lengths % 2 == 0)
    long = np.flatnonzero(even & (lengths > CODE_POINTS_LENGTH)).tolist()
    found[long] = [is_reduplication(keys[i]) for i in long]
    tried = np.flatnonzero(even & (lengths <= CODE_POINTS_LENGTH))
    if not len(tried):
        return found
    codes = np.frombuffer("".join(map(keys.__getitem__, tried.tolist())).encode("utf-32-le", "surrogatepass"), np.uint32)
    lengths = lengths[tried]
    tried_at = np.arange(len(tried))
    half = lengths // 2
    # Each character of the first halves, and where the same character of the second half is.
    first = np.repeat(np.cumsum(lengths) - lengths - (np.cumsum(half) - half), half) + np.arange(int(half.sum()))
    differ = codes[first] != codes[first + np.repeat(half, half)]
    found[tried] = np.bincount(np.repeat(tried_at, half)[differ], minlength=len(tried)) == 0
    return found


def candidate_rows(analysis: Analysis, stats: CorpusStats | None = None,
                   spelling: NameLikeness | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(token positions of the candidate words of a batch, their features in WORD_FEATURES
    order, and a key per row: rows with the same key within one spelling table are equal).
    What depends on the spelling alone is computed once per spelling; the context (sentence
    start, the word before, punctuation after) for all words at once."""
    tokens, key, features = candidate_words(analysis, stats, spelling)
    return tokens, features(np.arange(len(tokens))), key


def candidate_words(analysis: Analysis, stats: CorpusStats | None = None, spelling: NameLikeness | None = None):
    """(token positions of the candidate words of a batch, a key per word: words with the same key
    within one spelling table have the same features, and `features(rows)`: the features of the
    words at `rows` (indexes into the tokens), in WORD_FEATURES order). The keys come from the
    context of every word at once; the features are worked out for the words asked about only (a
    scorer that remembers the probability of each key asks about the keys it has not seen)."""
    a = analysis
    lexicons, table = a.labeller.lexicons, a.spellings
    stats = stats or CorpusStats()
    spelling = spelling or default_spelling(lexicons)
    context = table.column(_context_flags_many)
    words = np.flatnonzero(a.kind == K_WORD)
    sid, label, rule, message = a.spelling[words], a.label[words], a.rule[words], a.message[words]
    same_message = message[1:] == message[:-1]
    after_cue, after_title, last = np.zeros(len(words), bool), np.zeros(len(words), bool), np.ones(len(words), bool)
    # (A column's values gathered by take: indexing rows and a column at once costs twice as much.)
    after_cue[1:] = context[:, 1].take(sid[:-1]) & same_message
    after_title[1:] = context[:, 2].take(sid[:-1]) & same_message
    last[:-1] = ~same_message
    candidate = _candidates_by_reading(table, context, sid, label, rule)
    # The corpus as evidence: a word in lower case that the lists read as ordinary is a candidate
    # all the same when the corpus being classified writes it with a capital in the middle of a
    # sentence, in at least one message (scaled to the word scorer's corpus size) and at least a
    # tenth as often as in lower case (a nickname that is also a word: pat, mamie, titi). The
    # word scorer then reads it like any candidate (corpus_capitalised among its features).
    # So is a reduplication (titi, fifi, lolo): the shape of nicknames, whatever the lists say. An
    # ordinary word of that shape (papa, dodo: nicknames/exceptions.txt) is never hidden by the
    # scorer (triage.recognizers), but counts in the risk.
    ordinary = np.flatnonzero(~candidate & (label == L_ANTI) & (rule == rule_code("exact")))
    candidate[ordinary[_promoted(table, stats, sid[ordinary])]] = True
    chosen = np.flatnonzero(candidate)
    tokens, sid, label, rule = words[chosen], sid[chosen], label[chosen], rule[chosen]
    bits = {
        "sentence_start": a.sentence_start[tokens],
        "after_cue": after_cue[chosen],
        "after_title": after_title[chosen],
        "before_punctuation": a.before_punctuation[tokens],
        "last_word": last[chosen],
    }
    # The row is a function of the spelling, its label and rule in context, and 5 context bits.
    assert len(RULES) < 2**7
    key = (sid.astype(np.int64) << 16) | ((label.astype(np.int64) + 1) << 12) | ((rule.astype(np.int64) + 1) << 5)
    for bit, flags in enumerate(bits.values()):
        key |= flags.astype(np.int64) << bit

    def features(rows: np.ndarray) -> np.ndarray:
        """The features of the candidate words at `rows`, (len(rows), len(WORD_FEATURES))."""
        if not len(rows):
            return np.zeros((0, len(WORD_FEATURES)))
        at, kind, code = sid[rows], label[rows], rule[rows]
        static = _static_rows(table, at, spelling)
        capital, lower = _corpus_rates(table, stats, at).T
        columns = {
            "dictionary": kind == L_DICTIONARY,
            "ambiguous": kind == L_AMBIGUOUS,
            "unknown": kind == L_UNKNOWN,
            "ordinary": kind == L_ANTI,
            "weak": code == rule_code("weak-name"),
            "guessed": np.isin(code, _GUESSED_CODES),
            "first_name_rank": np.where(code == rule_code("title"), static[:, _S_RANK_TITLE], static[:, _S_RANK]),
            "corpus_lower": lower,
            "corpus_capitalised": capital,
        }
        for name, flags in bits.items():
            columns[name] = flags[rows]
        for name, position in _STATIC_COLUMNS.items():
            columns[name] = static[:, position]
        return np.column_stack([np.asarray(columns[name], dtype=float) for name in WORD_FEATURES])

    return tokens, key, features


def _candidates_by_reading(table: Spellings, context: np.ndarray, sid: np.ndarray, label: np.ndarray,
                           rule: np.ndarray) -> np.ndarray:
    """Whether each word (its spelling `sid`, label and rule in context) is a candidate by how
    Seek&Hide reads it, before the corpus as evidence (candidate_words); `context`: the table's
    _context_flags_many."""
    # Words Seek&Hide reads as ordinary beyond doubt (laughter, words of another language in a message
    # in that language: NEVER_NAME_CODES) are no candidates: never hidden, never a risk, never learnt from.
    candidate = ((label != L_ANTI) | context[:, 0].take(sid) | (rule != rule_code("exact"))) & ~np.isin(rule, NEVER_NAME_CODES)
    # An elided word (Qu', J', l') is no name, even with a capital.
    candidate &= ~((label == L_ANTI) & table.column(_elided_many)[sid])
    return candidate


def learn_candidates(analysis: Analysis, spelling: NameLikeness | None = None) -> None:
    """Work out, for the spellings of the words of `analysis` that are candidates by how Seek&Hide
    reads them, what the word scorer reads of the spelling alone (its static features and its
    tag), as candidate_words and candidate_tags would: before a local Dask cluster, this process
    learns them for the first chunk before the cluster's workers fork, and they share them. What is
    classified is the same (the rows are those the workers would work out)."""
    a = analysis
    table = a.spellings
    scorer = spelling or default_spelling(a.labeller.lexicons)  # as candidate_words reads the spellings
    words = np.flatnonzero(a.kind == K_WORD)
    sid = a.spelling[words]
    chosen = words[_candidates_by_reading(table, table.column(_context_flags_many), sid, a.label[words], a.rule[words])]
    if len(chosen):
        sids = a.spelling[chosen]
        _static_rows(table, sids, scorer)
        candidate_tags(a, chosen, spelling)


# The rules of the words the scorer reads as guessed: those of GUESS_RULES, the weak names and the
# capitalised words.
_GUESSED_CODES = [rule_code(r) for r in RULES if r in _GUESSED_RULES or r.startswith("capitalised-")]


# Chosen by donor-grouped cross-validation over the two development files of 88milSMS (19,955
# messages, three seeds): see docs/method.md, "The corpus as evidence".
CORPUS_CAPITALS = 1.0  # messages writing the word with a capital mid-sentence, at least
CORPUS_CAPITALS_SHARE = 0.1  # of the messages writing it in lower case, at least


def _promoted(table: Spellings, stats: CorpusStats, sids: np.ndarray) -> np.ndarray:
    """Whether each spelling `sids` of a table, read as an ordinary word, is a candidate all the
    same: a reduplication, or a spelling the corpus writes with a capital mid-sentence often enough
    (CORPUS_CAPITALS, CORPUS_CAPITALS_SHARE). Worked out once per spelling and state of the counts:
    a batch asks about most of its words."""
    if not len(sids) or not stats.messages:
        return table.column(_reduplicated)[sids]

    def compute(new: np.ndarray) -> np.ndarray:
        rates = _corpus_rates(table, stats, new)
        capital, lower = np.expm1(rates[:, 0]), np.expm1(rates[:, 1])
        by_corpus = (capital >= CORPUS_CAPITALS - 1e-9) & (capital >= CORPUS_CAPITALS_SHARE * lower)
        return by_corpus | table.column(_reduplicated)[new]

    return table.rows_for("names.promoted", sids, compute, 1, owner=stats.counted)[:, 0] != 0


def _corpus_rates(table: Spellings, stats: CorpusStats, sids: np.ndarray) -> np.ndarray:
    """(the rate of messages writing it with a capital mid-sentence, in lower case) of each
    spelling `sids` of a table, as the corpus `stats` count them, (len(sids), 2): worked out once
    per spelling and state of the counts."""
    lowered = batch.lowered(table)  # text.lower(), which the table holds already
    return table.rows_for("names.corpus_case", sids, lambda new: stats.rates_of_lowered(lowered[new].tolist()),
                          2, owner=stats.counted)


def word_features(analysis: Analysis, stats: CorpusStats | None = None,
                  spelling: NameLikeness | None = None) -> list[tuple[list[int], np.ndarray]]:
    """candidate_rows message by message: (indices of the candidates in the message's words
    (SeekResult.words), their feature rows)."""
    a = analysis
    tokens, X, _ = candidate_rows(a, stats, spelling)
    words = np.flatnonzero(a.kind == K_WORD)
    first_word = np.searchsorted(words, a.bounds[:-1])
    ordinal = np.searchsorted(words, tokens) - first_word[a.message[tokens]]
    cuts = np.searchsorted(a.message[tokens], np.arange(len(a) + 1))
    return [(ordinal[b:e].tolist(), X[b:e]) for b, e in zip(cuts[:-1], cuts[1:])]


# Per spelling, without a call of Python code each: the dictionary spelling Seek&Hide matched it
# to, whether it ends with a pet name's ending.
_MATCH = operator.attrgetter("match")
_ENDS_PET = operator.methodcaller("endswith", _PET_SUFFIXES)
_PET_LAST = np.asarray(sorted({ord(suffix[-1]) for suffix in _PET_SUFFIXES}), dtype=np.uint32)  # their last letters


@spelling_column("names.reduplicated", bool)
def _reduplicated(table: Spellings, sids: np.ndarray) -> np.ndarray:
    """Whether each spelling `sids` of a table, folded (so in lower case), is a reduplication."""
    return reduplications(batch.folded_lowered(table)[sids].tolist())


@spelling_column("names.elided", bool)
def _elided_many(table: Spellings, sids: np.ndarray) -> np.ndarray:
    """Whether each spelling `sids` of a table ends with an apostrophe (the tokeniser leaves one
    only on an elided word: qu', J'), (len(sids),)."""
    return batch.last_key_characters(table)[sids] == ord("'")


@spelling_column("names.context", bool, width=3)
def _context_flags_many(table: Spellings, sids: np.ndarray) -> np.ndarray:
    """(starts with a capital, is a person cue, is a title) of the spellings `sids` of a table
    as written, (len(sids), 3)."""
    key = batch.keys(table)[sids].tolist()
    person_cue, title = batch.memberships((PERSON_CUES, TITLES), key).T
    # Only a key ending with a full stop is asked about again without its final full stops.
    dotted = np.flatnonzero(batch.last_key_characters(table)[sids] == ord(".")).tolist()
    title[dotted] = members(TITLES, [key[i].rstrip(".") for i in dotted])
    return np.column_stack([batch.upper_first(table)[sids], person_cue, title]).reshape(-1, 3)


# Columns of _static_many, by feature name; two ranks: by the dictionary match, and by the
# spelling itself when a title made the word a surname.
_STATIC_COLUMNS = {
    "capitalised": 0, "all_caps": 1, "surname": 4, "sms_form": 5, "place": 6, "length": 7, "elongated": 8,
    "spelling": 9, "name_prefix": 10, "reduplication": 11, "pet_suffix": 12, "other_language": 13,
    "surname_rank": 14,
}
_S_RANK, _S_RANK_TITLE = 2, 3
_STATIC_WIDTH = 15  # values of _static_many


_TRIPLE = re.compile(r"(.)\1\1")  # a character three times in a row


def _static_rows(table: Spellings, sids: np.ndarray, spelling: NameLikeness) -> np.ndarray:
    """_static_many of the spellings `sids` of a table, each worked out once for `spelling`'s
    scorer (the table's rows "names.static")."""
    return table.rows_for("names.static", sids, lambda new: _static_many(spelling, table.lexicons, table, new),
                          _STATIC_WIDTH, owner=spelling)


def _static_many(spelling: NameLikeness, lexicons: Lexicons, table: Spellings, sids: np.ndarray) -> np.ndarray:
    """The word scorer's features of the spellings `sids` of a table (words, matched by
    Seek&Hide) that depend on the spelling alone, (len(sids), _STATIC_WIDTH), in
    _STATIC_COLUMNS order; the log first-name ranks are 6.0 for a spelling without one."""
    if not len(sids):
        return np.zeros((0, _STATIC_WIDTH))
    keys, folded_keys = batch.keys(table)[sids], batch.folded_keys(table)[sids]
    key, folded = keys.tolist(), folded_keys.tolist()
    ranks = lexicons.first_name_ranks

    def looked_up(names: list[str]) -> np.ndarray:  # the rank of each name, _UNLISTED for none
        return np.fromiter(map(ranks.get, names, itertools.repeat(_UNLISTED)), dtype=np.int64, count=len(names))

    def spelled_rank(spelled: str, names: np.ndarray) -> np.ndarray:
        """looked_up of the spellings as `spelled` (`names`: their keys, folded keys or lower
        case): the dict asked only about those the first names hold (their lexicon bits), which
        are the names it ranks."""
        rank = np.full(len(sids), _UNLISTED, dtype=np.int64)
        listed = np.flatnonzero(batch.known(table, "first_names", spelled)[sids])
        rank[listed] = np.fromiter(map(ranks.__getitem__, names[listed].tolist()), rank.dtype, len(listed))
        return rank

    key_rank = spelled_rank("key", keys)
    by_key = np.where(key_rank == _UNLISTED, 0, key_rank)
    by_folded = spelled_rank("folded", folded_keys)
    by_folded[by_folded == _UNLISTED] = 0

    def log_ranks(rank: np.ndarray) -> np.ndarray:  # log10 of each name's rank (its own, else its folded spelling's, else the key's)
        unlisted = rank == _UNLISTED
        rank[unlisted] = by_folded[unlisted]
        rank = np.where(rank != 0, rank, by_key)  # `or`: a missing (or 0) rank falls back on the key's
        found = np.full(len(rank), 6.0)
        # (math's log10, as a reference would; np.fromiter: numpy converts a list it is assigned value by value)
        ranked = rank[rank != 0].tolist()
        found[rank != 0] = np.fromiter(map(math.log10, ranked), float, len(ranked))
        return found

    def known(name: str) -> np.ndarray:
        return batch.known(table, name)[sids]

    scalars = table.numpy()
    length = scalars.length[sids]  # len(text)
    upper = batch.upper(table)[sids]
    key_length = np.fromiter(map(len, key), dtype=np.int64, count=len(key))
    # Only a key of four letters or more whose last letter ends a pet name's ending is tested.
    pet = np.zeros(len(key), dtype=bool)
    tested = np.flatnonzero((key_length >= 4) & np.isin(batch.last_key_characters(table)[sids], _PET_LAST)).tolist()
    pet[tested] = np.fromiter(map(_ENDS_PET, map(key.__getitem__, tested)), bool, len(tested))
    return np.column_stack([
        scalars.capitalised[sids],  # a capital first, not all capitals
        upper & (length > 1),
        log_ranks(looked_up(list(map(_MATCH, map(table.infos.__getitem__, sids.tolist()))))),
        log_ranks(spelled_rank("lower", batch.lowered(table)[sids])),
        known("last_names"),
        known("sms"),
        known("cities") | known("regions") | known("countries"),
        length,
        _tripled(key, key_length),
        likeness_scores(spelling, folded),
        members(spelling.prefixes, folded),
        reduplications(folded),
        pet,
        members(OTHER_WORDS, key),  # a frequent word of another language (just, why, my)
        surname_ranks(lexicons, key, folded),
    ]).astype(float)


_UNLISTED = np.iinfo(np.int64).min  # no first name's rank


def _tripled(texts: list[str], lengths: np.ndarray) -> np.ndarray:
    """[bool(_TRIPLE.search(text)) for text in texts] (`lengths`: the length of each text): a
    character three times in a row, found for all the texts at once in their code points, one
    newline between two texts (_TRIPLE's dot matches no newline: a run of them is no match); a
    text longer than CODE_POINTS_LENGTH alone, by the pattern."""
    found = np.zeros(len(texts), dtype=bool)
    long = np.flatnonzero(lengths > CODE_POINTS_LENGTH).tolist()
    found[long] = [_TRIPLE.search(texts[i]) is not None for i in long]
    short = np.flatnonzero(lengths <= CODE_POINTS_LENGTH)
    joined = "\n".join(texts if len(short) == len(texts) else map(texts.__getitem__, short.tolist()))
    codes = np.frombuffer(joined.encode("utf-32-le", "surrogatepass"), np.uint32)
    if len(codes) < 3:
        return found
    at = np.flatnonzero((codes[:-2] == codes[1:-1]) & (codes[1:-1] == codes[2:]) & (codes[:-2] != ord("\n")))
    if len(at):
        found[short[np.searchsorted(np.cumsum(lengths[short] + 1), at, side="right")]] = True
    return found


def surname_ranks(lexicons: Lexicons, keys: list[str], folded: list[str]) -> np.ndarray:
    """log10 of the rank of each of `keys` in the surname list (1 = commonest; their `folded`
    spellings standing for an accented surname when the keys are not listed), or of a common
    surname the lists read as a word (Petit, Blanc); 6.0 for a spelling that is no surname.
    Dubois or Rousseau are common surnames and no words; a rare surname is often an SMS spelling
    or a word of another language as well (kon, same)."""
    rank = np.zeros(len(keys), dtype=np.int64)
    if not len(keys):
        return np.zeros(0)
    names, ids = lexicons.last_names, lexicons.last_name_ids
    # Remembered by the list: Seek&Hide's labeller looked the keys up in it (Lexicons.lookup_many).
    position = names.known_positions(keys)
    rank[position >= 0] = ids[position[position >= 0]]
    missing = np.flatnonzero(rank == 0)
    if len(missing):
        asked = list(map(folded.__getitem__, missing.tolist()))
        standing = list(map(lexicons.folded_names.get, asked, asked))  # a folded name's spelling, else itself
        position = names.known_positions(standing)
        rank[missing[position >= 0]] = ids[position[position >= 0]]
        missing = np.flatnonzero(rank == 0)
        words = lexicons.word_surnames
        rank[missing] = np.fromiter(map(words.get, map(keys.__getitem__, missing.tolist()), itertools.repeat(0)),
                                    dtype=np.int64, count=len(missing))
    found = np.full(len(keys), 6.0)
    ranked = rank[rank != 0].tolist()
    found[rank != 0] = np.fromiter(map(math.log10, ranked), float, len(ranked))  # math's, as the reference's
    return found


#: At most about this many characters of words have their n-grams held at once: a batch of long
#: spellings would otherwise hold every n-gram of every word (200-letter words: about 600 each).
LIKENESS_CHUNK = 65_536


def likeness_scores(spelling: NameLikeness, folded: list[str]) -> np.ndarray:
    """[spelling.score(f) for f in folded] for folded keys: the n-grams of many words looked
    up at once (at most about LIKENESS_CHUNK characters of words held together: a batch of long
    spellings would otherwise hold every n-gram of every word at once), each word's values then
    added up in order (the letter model's in the order of its keys; the trigrams' as sum() adds
    them, whose float summation differs between Python versions)."""
    letters = getattr(spelling, "letters", None)
    # The letter model marks a word's ends itself; the trigrams are read between ^ and $.
    score = letters.decision_function if letters is not None else functools.partial(_likeness_chunk, spelling)
    words = folded if letters is not None else [f"^{f}$" for f in folded]
    # Each chunk ends with the word that brings its characters to LIKENESS_CHUNK (the last chunk
    # may hold fewer, or none).
    held = np.cumsum(np.fromiter(map(len, folded), np.int64, len(folded)))
    scores: list[np.ndarray] = []
    start, before = 0, 0
    while True:
        end = int(np.searchsorted(held, before + LIKENESS_CHUNK)) + 1
        if end > len(words):
            break
        scores.append(score(words[start:end]))
        start, before = end, int(held[end - 1])
    scores.append(score(words[start:]))
    return np.concatenate(scores)


# sum() of floats adds them one after the other up to Python 3.11; from 3.12 on it compensates
# the rounding errors (Neumaier's summation), which the words' sums then leave to sum() itself.
_PLAIN_SUM = sys.version_info < (3, 12)


def _code_points(text: str) -> np.ndarray:
    """The code points of a text."""
    return np.frombuffer(text.encode("utf-32-le", "surrogatepass"), "<u4")


class _TrigramTable:
    """The values of trigrams (a dict: trigram -> value) looked up for many trigrams at once,
    0.0 for a trigram the dict lacks. Its trigrams are written with few characters (the folded
    letters and a few signs): a trigram is then three indexes into those characters, and its
    value is read from a dense array of every such trigram; with too many characters (more than
    DENSE_CHARACTERS), from the sorted 63-bit keys of its trigrams (a code point takes 21 bits)."""

    DENSE_CHARACTERS = 100

    def __init__(self, trigrams: dict[str, float]):
        grams = [gram for gram in trigrams if len(gram) == 3]  # a word's trigrams have three characters
        values = np.fromiter(map(trigrams.__getitem__, grams), float, len(grams))
        codes = _code_points("".join(grams)).reshape(-1, 3)
        self.alphabet = np.unique(codes)
        size = len(self.alphabet) + 1  # the last index: a character no trigram holds
        if len(self.alphabet) <= self.DENSE_CHARACTERS:
            index = np.searchsorted(self.alphabet, codes)
            self.dense = np.zeros(size**3)
            self.dense[(index[:, 0] * size + index[:, 1]) * size + index[:, 2]] = values
        else:
            self.dense = None
            keys = self._keys(codes.ravel().astype(np.uint64), np.arange(0, codes.size, 3))
            order = np.argsort(keys)
            self.keys, self.values = keys[order], values[order]

    @staticmethod
    def _keys(codes: np.ndarray, at: np.ndarray) -> np.ndarray:
        return (codes[at] << np.uint64(42)) | (codes[at + 1] << np.uint64(21)) | codes[at + 2]

    def of(self, codes: np.ndarray, at: np.ndarray) -> np.ndarray:
        """The value of each trigram starting at `at` in the code points `codes`."""
        if not len(self.alphabet):
            return np.zeros(len(at))
        if self.dense is not None:
            size = len(self.alphabet) + 1
            index = np.minimum(np.searchsorted(self.alphabet, codes), size - 1)
            index[self.alphabet[np.minimum(index, size - 2)] != codes] = size - 1
            return self.dense[(index[at] * size + index[at + 1]) * size + index[at + 2]]
        wanted = self._keys(codes.astype(np.uint64), at)
        if not len(self.keys):
            return np.zeros(len(wanted))
        found = np.minimum(np.searchsorted(self.keys, wanted), len(self.keys) - 1)
        return np.where(self.keys[found] == wanted, self.values[found], 0.0)


def _likeness_chunk(spelling: NameLikeness, words: list[str]) -> np.ndarray:
    """The scores of `words` (each a folded key between ^ and $): the values of all their
    trigrams looked up at once (NameLikeness.trigram_table), each word's then added up in order."""
    if not words:
        return np.zeros(0)
    lengths = np.fromiter(map(len, words), np.int64, len(words))
    grams = lengths - 2  # each word holds ^ and $: at least two characters
    ends = np.cumsum(grams)
    first = np.cumsum(lengths) - lengths  # where each word starts in the code points
    at = np.arange(int(ends[-1])) - np.repeat(ends - grams - first, grams)
    gram_values = spelling.trigram_table().of(_code_points("".join(words)), at)
    starts = ends - grams
    if not _PLAIN_SUM:
        listed = gram_values.tolist()
        return np.asarray([sum(listed[s:e]) / (e - s) if e > s else 0.0 for s, e in zip(starts.tolist(), ends.tolist())],
                          dtype=float)
    # Added position by position, across the words still that long (longest first): each word's
    # sum is that of sum(), value after value from 0.
    order = np.argsort(-grams, kind="stable")
    longest, at = grams[order], starts[order]
    longer = len(words) - np.cumsum(np.bincount(grams))  # words holding more than so many trigrams
    totals = np.zeros(len(words))
    for position, still in enumerate(longer[: int(longest[0])].tolist()):
        totals[:still] += gram_values[at[:still] + position]
    scores = np.zeros(len(words))
    scores[order] = np.divide(totals, longest, out=np.zeros(len(words)), where=longest > 0)
    return scores


# Keyed by the lexicons themselves, weakly: an entry goes with its lexicons (an id would be
# reused by the next object at the same address).
_SPELLINGS: weakref.WeakKeyDictionary[Lexicons, NameLikeness] = weakref.WeakKeyDictionary()


def default_spelling(lexicons: Lexicons) -> NameLikeness:
    """The NameLikeness model of a set of lexicons, built once (about 0.3 s)."""
    if lexicons not in _SPELLINGS:
        _SPELLINGS[lexicons] = NameLikeness.from_lexicons(lexicons)
    return _SPELLINGS[lexicons]


# The endings of nicknames that are rarely those of names or words (not -ie, -y, -ette alone).
_NICKNAME_SUFFIXES = ("ou", "oute", "inou", "inette", "ounet", "ounette", "ouche")


def candidate_tags(analysis: Analysis, tokens: np.ndarray, spelling: NameLikeness | None = None) -> list[str]:
    """The code tag of each candidate word at `tokens` the scorer hides (once per spelling): NOM
    for a known surname that is not a first name; SUR for a word of nickname shape that is no
    first name (a repeated syllable: Lolo, Domdom; an affectionate ending: Louloute, Clainou; a
    common first name cut short, from `spelling`'s prefixes: Seb); else PRE. (Places and
    brands: triage.recognizers.)"""
    table = analysis.spellings
    prefixes = spelling.prefixes if spelling is not None else _NO_PREFIXES
    # Worked out for the spellings of candidates only (most others are never asked about), as
    # the codes of _TAGS.
    codes = table.rows_for("names.tag", analysis.spelling[tokens],
                           lambda sids: _candidate_tag_codes(table, sids, prefixes), 1, owner=prefixes)
    return _TAGS[codes[:, 0].astype(np.intp)].tolist()


_TAGS = np.array(["PRE", "NOM", "SUR"], dtype=object)  # by _candidate_tag_codes' codes
_NO_PREFIXES: frozenset[str] = frozenset()


def _candidate_tag_codes(table: Spellings, sids: np.ndarray, prefixes: frozenset[str]) -> np.ndarray:
    """candidate_tags of the spellings `sids` of a table at once, as indexes into _TAGS."""
    lower, folded = batch.lowered(table)[sids].tolist(), batch.folded_lowered(table)[sids].tolist()
    first = batch.known(table, "first_names", "lower")[sids]
    last = batch.known(table, "last_names", "lower")[sids]
    lower_length = np.fromiter(map(len, lower), dtype=np.int64, count=len(lower))
    folded_length = np.fromiter(map(len, folded), dtype=np.int64, count=len(folded))
    ending = np.zeros(len(lower), dtype=bool)
    long_enough = np.flatnonzero(lower_length >= 5).tolist()
    ending[long_enough] = [lower[i].endswith(_NICKNAME_SUFFIXES) for i in long_enough]
    cut_short = np.zeros(len(folded), dtype=bool)  # only a spelling of three to five letters is asked
    short = np.flatnonzero((folded_length >= 3) & (folded_length <= 5)).tolist()
    cut_short[short] = members(prefixes, list(map(folded.__getitem__, short)))
    nickname = table.column(_reduplicated)[sids] | ending | cut_short
    return np.where(first, 0, np.where(last, 1, np.where(nickname, 2, 0)))


def gold_targets(result: SeekResult, indices: list[int], spans: list[tuple[int, int, str]]) -> list[int]:
    """1 for candidate words that overlap a gold span to hide, else 0."""
    return [
        int(any(s < result.words[i].end and result.words[i].start < e for s, e, _ in spans))
        for i in indices
    ]


def make_word_model(seed: int = 0):
    from sklearn.ensemble import HistGradientBoostingClassifier

    # Shallow, regularised gradient boosting with balanced classes: chosen by donor-grouped
    # cross-validation over both development files against a random forest of the same features
    # (more names hidden for half the ordinary words) and against deeper boosting, which trained
    # on 2,000 messages alone left three times as many names readable (docs/evaluation.md).
    return HistGradientBoostingClassifier(
        max_iter=150, learning_rate=0.05, max_depth=5, min_samples_leaf=40, l2_regularization=1.0,
        class_weight="balanced", random_state=seed,
    )


def fitted_word_model(X: np.ndarray, y: np.ndarray, seed: int = 0):
    """make_word_model(seed) fitted on candidate rows X and their targets y, on one thread: gradient
    boosting's OpenMP threads wait for each other, and on a machine whose cores are busy (shared
    servers, several folds at once) one fit took seven times as long as on one thread."""
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1, user_api="openmp"):
        return make_word_model(seed).fit(X, y)
