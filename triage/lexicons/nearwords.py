"""NearWords: the words of a list one edit away from a spelling, by a deletion index.

Seek&Hide's misspelling heuristic asks which words are one edit away from an unknown
spelling (a letter left out, added, replaced, or two swapped: `edits1`). Generating the
hundreds of spellings one edit away and asking each of a set costs about 0.2 ms a spelling
and a 600,000-word Python set (0.3 s and 85 MB to build in each process). SymSpell's method
(Garbe 2012) turns it around: every word of the list is stored with each of its one-letter
deletions, so a word is one edit away from q exactly when it shares a key with q or with one
of q's own deletions (a word with a letter added to q has q as a deletion; a word with a letter
replaced or two swapped shares a deletion with q; q with a letter left out is a word). The
index holds 64-bit hashes of those keys, sorted, beside the word each comes from; a candidate
found by a hash is kept only when it really is one edit away (edit_rank), so collisions cost a
comparison, never a wrong answer. The arrays live in the lexicon snapshot (triage/lexicons/)
and are mapped into memory: a look-up touches a few pages.

The edits are those of `edits1`, on lower-case ASCII letters only: the heuristic asks about
accent-folded spellings, so only ASCII words of the lists can be one edit away.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from triage.pipeline.arrays import unique

ALPHABET = "abcdefghijklmnopqrstuvwxyz"
_LETTER = {letter: index for index, letter in enumerate(ALPHABET)}


def edits1(word: str) -> list[str]:
    """Spellings one edit away, most SMS-like first: a letter the writer left out
    (surment -> surement), then swapped, replaced and extra letters. (The heuristic takes
    the first ordinary word in this order; edit_rank gives a word's place in it.)"""
    splits = [(word[:i], word[i:]) for i in range(len(word) + 1)]
    return (
        [left + letter + right for left, right in splits for letter in ALPHABET]
        + [left + right[1] + right[0] + right[2:] for left, right in splits if len(right) > 1]
        + [left + letter + right[1:] for left, right in splits if right for letter in ALPHABET]
        + [left + right[1:] for left, right in splits if right]
    )


def edit_rank(word: str, candidate: str) -> int:
    """The index of the first occurrence of `candidate` in edits1(word), or -1 when it is
    not one edit away (computed, not searched: the index finds the candidates)."""
    n, m = len(word), len(candidate)
    inserts = 26 * (n + 1)
    swaps = max(n - 1, 0)
    if m == n + 1:  # a letter added: the first place it can be, then its letter
        for i in range(m):
            if candidate[i] in _LETTER and candidate[:i] + candidate[i + 1:] == word:
                return 26 * i + _LETTER[candidate[i]]
        return -1
    if m == n - 1:  # a letter left out
        for i in range(n):
            if word[:i] + word[i + 1:] == candidate:
                return inserts + swaps + 26 * n + i
        return -1
    if m != n or not n:
        return -1
    differ = [i for i in range(n) if word[i] != candidate[i]]
    if not differ:  # the word itself: two equal letters swapped, else a letter replaced by itself
        doubled = next((i for i in range(n - 1) if word[i] == word[i + 1]), None)
        if doubled is not None:
            return inserts + doubled
        first = next((i for i in range(n) if word[i] in _LETTER), None)
        return -1 if first is None else inserts + swaps + 26 * first + _LETTER[word[first]]
    if len(differ) == 1:
        i = differ[0]
        return inserts + swaps + 26 * i + _LETTER[candidate[i]] if candidate[i] in _LETTER else -1
    if len(differ) == 2:
        i, j = differ
        if j == i + 1 and word[i] == candidate[j] and word[j] == candidate[i]:
            return inserts + i
    return -1


def _last_true(flags: np.ndarray) -> np.ndarray:
    """Per row of a 2-D bool array, the index of its last True, -1 for a row without one."""
    width = flags.shape[1]
    return np.where(flags.any(axis=1), width - 1 - np.argmax(flags[:, ::-1], axis=1), -1)


def _first_true(flags: np.ndarray, default: np.ndarray) -> np.ndarray:
    """Per row of a 2-D bool array, the index of its first True, `default` for a row without one."""
    return np.where(flags.any(axis=1), np.argmax(flags, axis=1), default)


def edit_ranks(queries: np.ndarray, candidates: np.ndarray) -> np.ndarray:
    """[edit_rank(q, c) for q, c in zip(queries, candidates)] for two 'S' arrays of ASCII
    spellings, the candidates of lower-case letters a-z only (the index's words), as array
    operations over all the pairs at once.

    Where a candidate is one letter longer than its query, the letters it may have gained are
    the places i where the query's first i letters are the candidate's and its last ones are
    the candidate's last ones (one run of places): the first is the query's length less the
    length of their common ending; one letter shorter, the same with the roles swapped. Of the
    same length, the places where they differ say which edit it is."""
    count = len(queries)
    if not count:
        return np.zeros(0, dtype=np.int64)
    width = max(queries.dtype.itemsize, candidates.dtype.itemsize) + 1
    q = np.zeros((count, width), dtype=np.int16)
    c = np.zeros((count, width), dtype=np.int16)
    q[:, : queries.dtype.itemsize] = np.frombuffer(np.ascontiguousarray(queries), np.uint8).reshape(count, -1)
    c[:, : candidates.dtype.itemsize] = np.frombuffer(np.ascontiguousarray(candidates), np.uint8).reshape(count, -1)
    n = np.count_nonzero(q, axis=1)  # ASCII spellings hold no NUL
    m = np.count_nonzero(c, axis=1)
    position = np.arange(width)
    inserts, swaps = 26 * (n + 1), np.maximum(n - 1, 0)
    rank = np.full(count, -1, dtype=np.int64)
    differ = q != c
    # The length of the common beginning (at most the shorter length: the padding differs from a letter).
    common = _first_true(differ, np.minimum(n, m))
    letter = c - ord("a")  # the candidate's letters as 0-25

    # A letter added at place i of the query: the first place after the last mismatch of the
    # query's letter t with the candidate's letter t + 1.
    # (The rows of q and c asked about gathered by take: faster than indexing rows and columns at once.)
    added = np.flatnonzero(m == n + 1)
    if len(added):
        shifted = (q.take(added, axis=0)[:, :-1] != c.take(added, axis=0)[:, 1:]) & (position[:-1] < n[added, None])
        first = _last_true(shifted) + 1
        ok = first <= common[added]
        at = added[ok]
        rank[at] = 26 * first[ok] + letter[at, first[ok]]
    # A letter left out at place i: the query's letter t + 1 against the candidate's letter t.
    left_out = np.flatnonzero(m == n - 1)
    if len(left_out):
        shifted = (q.take(left_out, axis=0)[:, 1:] != c.take(left_out, axis=0)[:, :-1]) & (position[:-1] < m[left_out, None])
        first = _last_true(shifted) + 1
        ok = first <= common[left_out]
        at = left_out[ok]
        rank[at] = inserts[at] + swaps[at] + 26 * n[at] + first[ok]
    same_length = np.flatnonzero((m == n) & (n > 0))
    if len(same_length):
        places = differ.take(same_length, axis=0)
        many = np.count_nonzero(places, axis=1)
        first = _first_true(places, 0)
        # The word itself: two equal letters swapped (the first doubled letter), else its first
        # letter replaced by itself (the candidate's letters are all a-z).
        at = same_length[many == 0]
        if len(at):
            rows = q.take(at, axis=0)
            doubled = (rows[:, :-1] == rows[:, 1:]) & (position[:-1] < n[at, None] - 1)
            place = _first_true(doubled, -1)
            rank[at] = np.where(place >= 0, inserts[at] + place, inserts[at] + swaps[at] + letter[at, 0])
        one = many == 1  # a letter replaced
        at = same_length[one]
        rank[at] = inserts[at] + swaps[at] + 26 * first[one] + letter[at, first[one]]
        # Two letters side by side swapped.
        two = np.flatnonzero(many == 2)
        if len(two):
            at, i = same_length[two], first[two]
            swapped = (places[two, np.minimum(i + 1, width - 1)]) & (q[at, i] == c[at, i + 1]) & (q[at, i + 1] == c[at, i])
            rank[at[swapped]] = inserts[at[swapped]] + i[swapped]
    return rank


# Keys are polynomial hashes of the ASCII bytes, c0 + c1*B + c2*B^2 ... modulo 2^64, with B odd so
# that it has an inverse: the key of a word with its i-th letter deleted is then
# P[i] + (H - P[i+1]) / B, from the prefix sums P of the word's own hash H, for every i at once.
_MASK = 2**64 - 1
_BASE = 0x100000001B3
_INVERSE = pow(_BASE, -1, 2**64)


def _keys(word: str) -> list[int]:
    """The key of `word` and of each of its one-letter deletions."""
    prefix, power = [0], 1
    for byte in word.encode("ascii"):
        prefix.append((prefix[-1] + byte * power) & _MASK)
        power = power * _BASE & _MASK
    whole = prefix[-1]
    return [whole] + [(prefix[i] + (whole - prefix[i + 1]) * _INVERSE) & _MASK for i in range(len(word))]


def _keys_of_words(words: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(keys, index of the word of each key) for an 'S' array of ASCII words: _keys of each,
    as array operations (numpy's uint64 arithmetic wraps modulo 2^64)."""
    count, width = len(words), words.dtype.itemsize
    codes = np.frombuffer(words.tobytes(), dtype=np.uint8).reshape(count, width).astype(np.uint64)
    lengths = np.char.str_len(words)
    powers = np.array([pow(_BASE, k, 2**64) for k in range(width)], dtype=np.uint64)
    prefix = np.zeros((count, width + 1), dtype=np.uint64)
    np.cumsum(codes * powers, axis=1, out=prefix[:, 1:])
    whole = prefix[np.arange(count), lengths]
    with np.errstate(over="ignore"):
        deleted = prefix[:, :width] + (whole[:, None] - prefix[:, 1:]) * np.uint64(_INVERSE)
    real = np.arange(width) < lengths[:, None]  # a deletion of each letter, not of the padding
    keys = np.concatenate([whole, deleted[real]])
    owners = np.concatenate([np.arange(count), np.nonzero(real)[0]]).astype(np.int32)
    return keys, owners


class NearWords:
    """The ASCII words of some lists, each with flags saying which lists hold it, indexed by
    their one-letter deletions (see the module docstring)."""

    __slots__ = ("keys", "entries", "words", "flags")

    def __init__(self, keys: np.ndarray, entries: np.ndarray, words: np.ndarray, flags: np.ndarray):
        """keys: sorted uint64 keys (see _keys); entries: the index in `words` of each key's word;
        words: 'S' array of the words; flags: a uint8 bit set per word."""
        self.keys, self.entries, self.words, self.flags = keys, entries, words, flags

    @classmethod
    def build(cls, lists: Iterable[Iterable[str]], min_length: int = 1, max_length: int = 64) -> NearWords:
        """The index of the words of `lists` (flag bit k for the k-th list) that are lower-case
        ASCII letters, between min_length and max_length letters long."""
        flags: dict[str, int] = {}
        for bit, words in enumerate(lists):
            for word in words:
                if min_length <= len(word) <= max_length and word.isascii() and word.isalpha() and word.islower():
                    flags[word] = flags.get(word, 0) | (1 << bit)
        vocabulary = sorted(flags)
        words = np.array([word.encode("ascii") for word in vocabulary], dtype=bytes).reshape(-1)
        parts = [_keys_of_words(words[at:at + 50_000]) for at in range(0, len(words), 50_000)]  # bounded memory
        keys = np.concatenate([keys for keys, _ in parts] or [np.zeros(0, np.uint64)])
        owners = np.concatenate([owners + at for (_, owners), at in zip(parts, range(0, len(words), 50_000))]
                                or [np.zeros(0, np.int32)])
        order = np.argsort(keys, kind="stable")
        return cls(keys[order], owners[order].astype(np.int32), words,
                   np.array([flags[word] for word in vocabulary], dtype=np.uint8))

    def _ranges(self, flat: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """For each key of `flat`, the range of self.keys equal to it (empty for most: a
        deletion of a spelling seldom is a word's). Searched in sorted order (neighbouring
        searches touch the same pages of the index), and the end of a range only for the keys
        found."""
        order = np.argsort(flat, kind="stable")
        wanted = flat[order]
        low = np.searchsorted(self.keys, wanted, "left")
        found = np.flatnonzero(self.keys[np.minimum(low, len(self.keys) - 1)] == wanted) if len(self.keys) \
            else np.zeros(0, dtype=np.int64)
        high = low.copy()
        high[found] = np.searchsorted(self.keys, wanted[found], "right")
        in_order_low, in_order_high = np.empty_like(low), np.empty_like(high)
        in_order_low[order], in_order_high[order] = low, high
        return in_order_low, in_order_high

    def within_one_edit(self, queries: list[str]) -> list[list[tuple[int, str, int]]]:
        """For each query (lower-case ASCII letters), the indexed words one edit away as
        (edit_rank, word, flags), in edits1 order (_near)."""
        found: list[list[tuple[int, str, int]]] = [[] for _ in queries]
        owner, ranks, index = self._near(queries)
        words = [word.decode("ascii") for word in self.words[index].tolist()]
        for query_at, rank, word, flags in zip(owner.tolist(), ranks.tolist(), words, self.flags[index].tolist()):
            found[query_at].append((rank, word, flags))
        for near in found:
            if len(near) > 1:
                near.sort()
        return found

    def corrections(self, queries: list[str], wanted: int, blocking: int) -> list[str | None]:
        """For each query (lower-case ASCII letters), the first word one edit away in edits1
        order (within_one_edit's) whose flags hold `wanted`, or None: when there is none, or when
        a word one edit away has a flag of `blocking`. The words are found as within_one_edit
        finds them, and chosen as array operations."""
        chosen: list[str | None] = [None] * len(queries)
        owner, ranks, index = self._near(queries)
        flags = self.flags[index]
        blocked = np.zeros(len(queries), dtype=bool)
        blocked[owner[(flags & blocking) > 0]] = True
        candidate = np.flatnonzero(((flags & wanted) > 0) & ~blocked[owner])
        if len(candidate):
            order = candidate[np.lexsort((ranks[candidate], owner[candidate]))]
            first = order[np.r_[True, owner[order][1:] != owner[order][:-1]]]  # the lowest rank of each query
            for query_at, word in zip(owner[first].tolist(), self.words[index[first]].tolist()):
                chosen[query_at] = word.decode("ascii")
        return chosen

    def _near(self, queries: list[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The pairs of a query (lower-case ASCII letters) and an indexed word one edit away, each
        pair once, as arrays: (the query's index, the edit's rank, the word's index).

        The keys of all the queries are made and searched at once (_keys_of_words, _ranges),
        and the words they find are gathered as arrays, each (query, word) pair once; edit_ranks
        keeps the words really one edit away, for all the pairs at once."""
        none = np.zeros(0, dtype=np.int64)
        if not queries:
            return none, none, none
        encoded = np.array([query.encode("ascii") for query in queries], dtype=bytes)
        keys, owners = _keys_of_words(encoded)
        low, high = self._ranges(keys)
        count = high - low
        hit = np.flatnonzero(count > 0)
        if not len(hit):
            return none, none, none
        count, low = count[hit], low[hit]
        ends = np.cumsum(count)
        # Every entry of every range found, with the query whose key found it; each pair once.
        at = np.repeat(low - (ends - count), count) + np.arange(int(ends[-1]))
        pairs = unique(np.repeat(owners[hit].astype(np.int64), count) * len(self.words) + self.entries[at])
        owner, index = np.divmod(pairs, len(self.words))
        ranks = edit_ranks(encoded.take(owner), self.words.take(index))  # (take: faster on fixed-width bytes)
        kept = np.flatnonzero(ranks >= 0)
        return owner[kept], ranks[kept], index[kept]
