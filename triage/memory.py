"""One memory budget for the caches that grow with a corpus's vocabulary (issue 20).

A real corpus keeps bringing new spellings (about one per message, all the way), so every
cache keyed by a spelling, a piece of text or a stretch of text grows with the corpus: Seek&Hide's
table of spellings and its columns, the word labels, the WordLists' remembered answers, the word
scorer's rows, the runs of letters of the corpus statistics. Each is only a memory of work done
(dropping it changes no output, only the time to work it out again), so they share one budget
here instead of each having a cap of its own: each cache is tracked with its measured bytes per
entry, and when their sum passes the budget, at the next batch boundary (VOCABULARY.enforce),
the caches start afresh, the cheapest to rebuild first, until the rest fits.

The bytes per entry were measured on the generated corpus of benchmarks/corpus.py (deep sizes of
each structure at 200,000 messages, benchmarks/memory_classify.py): estimates, not accounting.
"""

from __future__ import annotations

import weakref
from typing import Protocol

# Bytes per entry of each kind of cache, measured (see the module's docstring), in the order
# the kinds are emptied when the budget is spent: the cheapest to work out again first.
BYTES_PER_ENTRY = {
    "positions": 80,  # a WordList's remembered answer (one sorted search gives it back)
    "lower": 100,  # CorpusStats.lower of a spelling
    "scores": 100,  # the word scorer's probability of a row
    "codes": 200,  # Seek&Hide's code of a hidden spelling
    "letter_runs": 100,  # the runs of letters of a stretch of text (corpus statistics)
    "spellings": 450,  # a piece or spelling of Seek&Hide's table, with its stretches and columns
    "labels": 75,  # a word label (spelling -> WordInfo): what a new table is relearnt from
}

MEGABYTES = 150  # the budget

# Kinds emptied at every batch boundary, whatever the budget: their answers are asked again
# within a batch (by the labeller, then by the batched columns), seldom by a later batch.
BATCH_ONLY = frozenset({"positions"})


class _Cache(Protocol):
    def __len__(self) -> int: ...

    def clear(self) -> None: ...


class Budget:
    """Caches tracked by their size (entries x bytes per entry), emptied kind by kind when the
    total passes `megabytes`."""

    def __init__(self, megabytes: float):
        self.limit = int(megabytes * 2**20)
        self.restarts = 0  # how many times the budget was passed (for tests and benchmarks)
        self._tracked: dict[int, tuple[weakref.ref, str]] = {}

    def track(self, cache: _Cache, kind: str) -> _Cache:
        """Count `cache` (an object with len() and clear(), weakly referenced) in the budget at
        BYTES_PER_ENTRY[kind] bytes an entry."""
        key = id(cache)

        def forget(_gone: weakref.ref) -> None:  # the cache is gone: no longer counted
            self._tracked.pop(key, None)

        self._tracked[key] = (weakref.ref(cache, forget), kind)
        return cache

    def used(self) -> int:
        """The estimated bytes of the tracked caches."""
        return sum(self._by_kind().values())

    def _by_kind(self) -> dict[str, int]:
        used = dict.fromkeys(BYTES_PER_ENTRY, 0)
        for ref, kind in list(self._tracked.values()):
            cache = ref()
            if cache is not None:
                used[kind] += len(cache) * BYTES_PER_ENTRY[kind]
        return used

    def enforce(self) -> bool:
        """Called between two batches: the BATCH_ONLY caches start afresh and, when the tracked
        caches pass the budget, those of the first kinds of BYTES_PER_ENTRY too, kind after
        kind, until the rest fits. True when the budget was passed."""
        used = self._by_kind()
        total = sum(used.values())
        over = total > self.limit
        emptied = set(BATCH_ONLY)
        for kind in BYTES_PER_ENTRY:
            if total <= self.limit:
                break
            emptied.add(kind)
            total -= used[kind]
        for ref, kind in list(self._tracked.values()):
            cache = ref()
            if cache is not None and kind in emptied:
                cache.clear()
        self.restarts += over
        return over


VOCABULARY = Budget(MEGABYTES)  # one per process: every cache that grows with the vocabulary


class Cache(dict):
    """A dict that memorises work per spelling (or piece, or stretch of text), counted in the
    VOCABULARY budget at BYTES_PER_ENTRY[kind] an entry: it may be emptied between two
    batches, so it must hold nothing that cannot be worked out again."""

    def __init__(self, kind: str):
        super().__init__()
        self.kind = kind
        VOCABULARY.track(self, kind)

    def __reduce__(self):
        return type(self), (self.kind,)  # copied or sent to another process empty: a memory of work
