"""One memory budget for the caches that grow with a corpus's vocabulary.

A real corpus keeps bringing new spellings (about one per message, all the way), so every
cache keyed by a spelling, a piece of text or a stretch of text grows with the corpus: Seek&Hide's
table of spellings and its columns, the word labels, the WordLists' remembered answers, the word
scorer's rows, the runs of letters of the corpus statistics. Each is only a memory of work done
(dropping it changes no output, only the time to work it out again), so they share one budget
here instead of each having a cap of its own: each cache is counted in bytes, as its entries times
their measured overhead plus the characters of the texts it holds (its keys, or a table's texts)
times the copies it keeps of them, so that long spellings spend the budget sooner; when the sum
passes the budget, at the next batch boundary (VOCABULARY.enforce), the caches start afresh, the
cheapest to rebuild first, until the rest takes half the budget (LOW_WATER). The characters are
counted as entries are added (only the new ones are measured at each batch boundary).

The bytes per entry were measured on the generated corpus of benchmarks/corpus.py (deep sizes of
each structure at 200,000 messages, benchmarks/memory_classify.py): estimates, not accounting.
"""

from __future__ import annotations

import weakref
from itertools import chain, islice
from typing import Callable, Protocol

# Bytes per entry of each kind of cache, measured (see the module's docstring), in the order
# the kinds are emptied when the budget is spent: the cheapest to work out again first.
BYTES_PER_ENTRY = {
    "positions": 80,  # a WordList's remembered answer (one sorted search gives it back)
    "scores": 16,  # the word scorer's probability of a row: its key and its value, in numpy columns
    "codes": 200,  # Seek&Hide's code of a hidden spelling
    "letter_runs": 60,  # the runs of letters of a stretch of text (corpus statistics): its columns and runs' ids
    "stretches": 140,  # a stretch of text with its id (triage.text.stretches)
    "stretch_pieces": 40,  # the piece ids of a stretch Seek&Hide's table has cut
    "spellings": 400,  # a piece or spelling of Seek&Hide's table, with its columns
    "labels": 150,  # a word label (spelling -> WordInfo): what a new table is relearnt from
}

# Bytes per character of the texts an entry holds (a key, or a table's spelling): the copies
# each kind keeps of it (a spelling's lower case, its folded forms, its pieces).
BYTES_PER_CHAR = {
    "positions": 1,
    "scores": 0,  # (its keys are numbers)
    "codes": 1,
    "letter_runs": 0,  # (its texts are the stretches', counted there; a kind at 0 holds none of its own)
    "stretches": 2,  # its key, and the runs of letters the statistics pass keeps of it or the piece Seek&Hide cuts it into
    "stretch_pieces": 0,
    "spellings": 4,
    "labels": 1,
}

MEGABYTES = 150  # the budget
# Past the budget, the caches are emptied (the cheapest to rebuild first) until what is left takes
# at most this share of it. Emptying only enough to fit passes the budget again a batch later, and
# empties the same small caches batch after batch while the table of spellings keeps growing: on
# 1,000,000 generated messages (benchmarks/corpus.py, one process, three runs each), 56 restarts
# instead of 8, runs of 80.6 to 85.3 s instead of 76.8 to 82.7 s, and a peak of 464 to 468 MB
# instead of 440 MB.
LOW_WATER = 0.5

# A kind held (Budget.hold) is emptied right after this one instead of at its place above, while what
# is left then would not pass the budget again: the stretch ids of the chunks of a corpus kept for
# classifying (triage.jobs.corpus_stats) serve every chunk still to come, each of which would otherwise be
# cut into stretches again, and the table of spellings is learnt again from the word labels.
HELD_AFTER = "spellings"

# Kinds emptied at every batch boundary, whatever the budget: their answers are asked again
# within a batch (by the labeller, then by the batched columns), seldom by a later batch.
BATCH_ONLY = frozenset({"positions"})


class _Cache(Protocol):
    def __len__(self) -> int: ...

    def clear(self) -> None: ...


def _chars(key) -> int:
    """The characters of the text(s) of a key: a string, or the strings of a tuple."""
    if isinstance(key, str):
        return len(key)
    if isinstance(key, tuple):
        return sum(len(part) for part in key if isinstance(part, str))
    return 0


class _Count:
    """What is known of a tracked cache's texts: the characters of its first `items` items,
    counted while it was in its `generation`."""

    __slots__ = ("items", "chars", "generation")

    def __init__(self) -> None:
        self.items, self.chars, self.generation = 0, 0, None


def _texts(cache):
    """The texts a cache holds, in the order they were added: a table's `texts` list, else the
    keys of a dict."""
    texts = getattr(cache, "texts", None)
    return texts if isinstance(texts, list) else cache


def _measure(cache, count: _Count) -> int:
    """The characters of the texts `cache` holds, measuring only those added since `count`
    (texts are appended; a cache emptied or shrunk since is measured again)."""
    texts = _texts(cache)
    size = len(texts)
    generation = getattr(cache, "generation", None)
    if size < count.items or generation != count.generation:
        count.items, count.chars, count.generation = 0, 0, generation
    if size > count.items:
        if isinstance(texts, list):
            added = texts[count.items:size]
        else:  # a dict keeps the order of insertion: the new keys are its last ones
            added = islice(reversed(texts), size - count.items)
        added = list(added)
        try:  # most caches hold strings: their characters are those of the strings joined
            count.chars += len("".join(added))
        except TypeError:  # tuples of strings, or numbers (which hold no text)
            try:  # tuples of strings only (the codes of hidden words): their strings joined
                count.chars += len("".join(chain.from_iterable(added)))
            except TypeError:
                count.chars += sum(_chars(key) for key in added if key.__class__ is not int)
        count.items = size
    return count.chars


class Budget:
    """Caches tracked by their size in bytes (entries x BYTES_PER_ENTRY plus characters of
    their texts x BYTES_PER_CHAR), emptied kind by kind when the total passes `megabytes`."""

    def __init__(self, megabytes: float):
        self.limit = int(megabytes * 2**20)
        self.restarts = 0  # how many times the budget was passed (for tests and benchmarks)
        self._held: set[str] = set()  # see hold
        self._progress: Callable[[], tuple[int, int]] = lambda: (0, 0)
        # (bytes used, chunks given) when the hold started or the budget was last passed: see hold.
        self._grown_from: tuple[int, int] | None = None
        self._tracked: dict[int, tuple[weakref.ref, str, _Count]] = {}

    def track(self, cache: _Cache, kind: str) -> _Cache:
        """Count `cache` (an object with len() and clear(), weakly referenced) in the budget at
        BYTES_PER_ENTRY[kind] bytes an entry plus BYTES_PER_CHAR[kind] bytes a character of
        the texts it holds: the strings of its `texts` list when it has one, else its keys
        (strings, or tuples of strings)."""
        key = id(cache)

        def forget(_gone: weakref.ref) -> None:  # the cache is gone: no longer counted
            self._tracked.pop(key, None)

        self._tracked[key] = (weakref.ref(cache, forget), kind, _Count())
        return cache

    def hold(self, kind: str, progress: Callable[[], tuple[int, int]]) -> None:
        """Empty the caches of `kind` right after those of HELD_AFTER when the budget is passed
        (see order), until `release(kind)`, as long as what is left then, growing as much a chunk
        as the tracked caches grew since the hold started or the budget was last passed, would
        stay within the budget until the last chunk; else they are emptied at their own place
        and the hold ends. `progress()` gives (the chunks of the corpus given so far, those to
        come)."""
        if kind not in BYTES_PER_ENTRY or kind == HELD_AFTER:
            raise ValueError(f"a kind of cache that cannot be held: {kind!r}")
        self._held.add(kind)
        self._progress, self._grown_from = progress, None

    def release(self, kind: str) -> None:
        """Empty the caches of `kind` at their own place again (see hold)."""
        self._held.discard(kind)

    def order(self) -> list[str]:
        """The kinds in the order they are emptied when the budget is passed: that of
        BYTES_PER_ENTRY, the kinds held moved right after HELD_AFTER."""
        free = [kind for kind in BYTES_PER_ENTRY if kind not in self._held]
        after = free.index(HELD_AFTER) + 1
        return [*free[:after], *(kind for kind in BYTES_PER_ENTRY if kind in self._held), *free[after:]]

    def used(self) -> int:
        """The estimated bytes of the tracked caches."""
        return sum(self._by_kind().values())

    def used_by(self, kind: str) -> int:
        """The estimated bytes of the tracked caches of one kind."""
        return self._by_kind()[kind]

    def _by_kind(self) -> dict[str, int]:
        used = dict.fromkeys(BYTES_PER_ENTRY, 0)
        for ref, kind, count in list(self._tracked.values()):
            cache = ref()
            if cache is None:
                continue
            entries = len(cache)
            used[kind] += entries * BYTES_PER_ENTRY[kind]
            if entries and BYTES_PER_CHAR[kind]:  # a retired table holds nothing any more
                used[kind] += _measure(cache, count) * BYTES_PER_CHAR[kind]
        return used

    def enforce(self) -> bool:
        """Called between two batches: the BATCH_ONLY caches start afresh and, when the tracked
        caches pass the budget, those of the first kinds in order() too, kind after kind, until
        the rest takes at most LOW_WATER of the budget (the kinds held kept only if the rest
        would not pass the budget again: see hold). True when the budget was passed."""
        used = self._by_kind()
        total = sum(used.values())
        over = total > self.limit
        if self._held:
            given, left = self._progress()
            if self._grown_from is None:
                self._grown_from = (total, given)
        emptied = self._emptied(used, total) if over else set()
        if over and self._held:
            grown, since = self._grown_from
            rest = total - sum(used[kind] for kind in emptied)
            if emptied & self._held or rest + (total - grown) / max(given - since, 1) * left > self.limit:
                self._held.clear()  # emptied at their own place: what they serve is cut again
                emptied = self._emptied(used, total)
            self._grown_from = (total - sum(used[kind] for kind in emptied), given)
        emptied |= BATCH_ONLY
        for ref, kind, count in list(self._tracked.values()):
            cache = ref()
            if cache is not None and kind in emptied:
                cache.clear()
                count.items = count.chars = 0
        self.restarts += over
        return over

    def _emptied(self, used: dict[str, int], total: int) -> set[str]:
        """The kinds emptied, in order(), until the rest takes at most LOW_WATER of the budget."""
        emptied = set()
        for kind in self.order():
            if total <= self.limit * LOW_WATER:
                break
            emptied.add(kind)
            total -= used[kind]
        return emptied


VOCABULARY = Budget(MEGABYTES)  # one per process: every cache that grows with the vocabulary


class Cache(dict):
    """A dict that memorises work per spelling (or piece, or stretch of text), counted in the
    VOCABULARY budget at BYTES_PER_ENTRY[kind] an entry: it may be emptied between two
    batches, so it must hold nothing that cannot be worked out again."""

    def __init__(self, kind: str):
        super().__init__()
        self.kind = kind
        self.generation = 0  # changes when emptied: the budget measures its keys again
        VOCABULARY.track(self, kind)

    def clear(self) -> None:
        self.generation += 1
        super().clear()

    def __reduce__(self):
        return type(self), (self.kind,)  # copied or sent to another process empty: a memory of work
