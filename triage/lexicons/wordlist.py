"""WordList: a read-only set of spellings that costs no Python object per entry.

The big lexicons (400,000 inflected forms, 200,000 surnames) would take 0.2 s or more to
load as Python sets, whatever the format they are read from, because every entry becomes a
string object. A WordList keeps them as one sorted numpy array of UTF-8 bytes (fixed-width
'S' dtype), read from the lexicon snapshot in milliseconds, and answers `in` by binary
search (about 1.5 µs: thirty times a set's look-up, which is why the new spellings of a
batch are looked up together, by one sorted search: `positions`, `remember`).

The sorted search compares 64-bit numbers, not strings: beside the array, each entry's first
eight bytes read as one big-endian number (`heads`, in the same order, as sorted as the
entries). A spelling is then compared as bytes with the one entry whose head it finds, and
searched among the whole entries only when it is longer than eight bytes and that entry is not
it (a word that shares its first eight letters with a shorter one).

UTF-8 preserves code point order, so the byte order of the array is Python's `sorted` order
of the strings, and iteration yields them in that order.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator
from itertools import repeat
from typing import NamedTuple

import numpy as np

from triage.pipeline.memory import Cache


def _encode(word: str) -> bytes:
    # A lone surrogate (from a file read with errors="surrogateescape") gives bytes that are
    # not UTF-8, hence in no list read as UTF-8, instead of an exception.
    return word.encode("utf-8", "surrogatepass")


_NOT_ASKED = -2  # no position: a word not remembered (a position is -1 or more)
_HEAD = 8  # bytes of a spelling read as one number (heads)


class Memory:
    """The answers (positions) remembered for one WordList, or for several together: one entry
    per spelling for all of them, whose value packs the answer of each list into one number,
    `bits` bits a list, as the position plus two (0: not asked). The lists Seek&Hide asks about
    the same spellings share one (Lexicons' Sorted): a batch's answers are then stored once
    for the three lists instead of once per list."""

    __slots__ = ("answers", "bits")

    def __init__(self, lists: int = 1):
        # Within the memory budget of triage.pipeline.memory: a corpus keeps bringing new spellings.
        self.answers: dict[str, int] = Cache("positions")
        self.bits = 63 // lists  # (a position of a list within the bits, and the whole in an int64)

    def learn_all(self, words: list[str], positions: list[np.ndarray]) -> None:
        """Remember the positions of `words` in every list of this memory, in the order they
        share it (WordList.share): the answers of each list at once."""
        packed = np.zeros(len(words), dtype=np.int64)
        for field, found in enumerate(positions):
            packed |= (found + 2) << (field * self.bits)
        self.answers.update(zip(words, packed.tolist()))


def contains_together(lists: list[WordList], words: list[str]) -> list[np.ndarray]:
    """[each.contains_many(words) for each in lists], the answers the lists remember read once
    for all of them when they share one memory (WordList.share: one look-up of each spelling
    for the three lists Seek&Hide asks about, instead of one a list)."""
    memory = lists[0].memory if lists else None
    if len(lists) < 2 or any(each.memory is not memory for each in lists):
        return [each.contains_many(words) for each in lists]
    packed = np.fromiter(map(memory.answers.get, words, repeat(0)), dtype=np.int64, count=len(words))
    found = []
    for each in lists:
        positions = ((packed >> each._shift) & each._mask) - 2
        missing = np.flatnonzero(positions == _NOT_ASKED)
        if len(missing):  # searched and remembered, as contains_many does
            positions[missing] = each.known_positions(list(map(words.__getitem__, missing.tolist())))
        found.append(positions >= 0)
    return found


def heads(array: np.ndarray) -> np.ndarray:
    """The first _HEAD bytes of each spelling of an 'S' array (NUL-padded), as big-endian
    uint64 numbers: their order is the spellings' byte order, ties apart."""
    array = np.ascontiguousarray(array)
    count, width = len(array), array.dtype.itemsize
    if not count:
        return np.zeros(0, dtype=np.uint64)
    data = np.frombuffer(array, dtype=np.uint8).reshape(count, width)
    head = np.zeros((count, _HEAD), dtype=np.uint8)
    head[:, : min(width, _HEAD)] = data[:, :_HEAD]
    return head.view(">u8").ravel().astype(np.uint64)


class Encoded(NamedTuple):
    """Spellings as one fixed-width 'S' array of UTF-8 bytes, for sorted searches in WordLists."""

    array: np.ndarray  # 'S': each spelling, or b"" for one wider than `width` (in no list that narrow)
    lengths: np.ndarray  # int64: each spelling's length in bytes, as written
    searchable: np.ndarray  # bool: not ending with NUL (numpy ignores trailing NULs when comparing)
    heads: np.ndarray  # uint64: heads() of `array`

    @classmethod
    def of(cls, words: list[str], width: int) -> Encoded:
        """`words` (strings; anything else is in no list) encoded, cut to no more than `width`
        bytes a spelling: a spelling wider than every list searched is in none of them, and
        would widen the whole array (a pasted 16 kB "word" in a batch of ten thousand). Strings
        without newlines or NULs (every token) are encoded in one piece, joined by newlines."""
        try:
            joined = "\n".join(words)
        except TypeError:  # not only strings
            joined = None
        if joined is not None and joined.count("\n") == len(words) - 1 and "\0" not in joined:
            encoded = _encode(joined).split(b"\n") if words else []
            searchable = np.ones(len(encoded), dtype=bool)
        else:
            encoded = [_encode(word) if isinstance(word, str) else b"" for word in words]
            searchable = np.fromiter((not key.endswith(b"\0") for key in encoded), dtype=bool, count=len(encoded))
        lengths = np.fromiter(map(len, encoded), dtype=np.int64, count=len(encoded))
        if len(encoded) and lengths.max() > width:
            encoded = [key if len(key) <= width else b"" for key in encoded]
        array = np.array(encoded, dtype=bytes) if encoded else np.zeros(0, dtype="S1")
        return cls(array, lengths, searchable, heads(array))

    def take(self, order: np.ndarray) -> Encoded:
        """The spellings at the indexes `order`, in that order."""
        return Encoded(self.array.take(order), self.lengths[order], self.searchable[order], self.heads[order])


class WordList:
    """A read-only set of non-empty strings, stored sorted as UTF-8 bytes."""

    __slots__ = ("array", "_width", "_positions", "_heads", "memory", "_shift", "_mask")

    def __init__(self, array: np.ndarray, heads: np.ndarray | None = None):
        """`array`: a 1-D 'S' array, sorted and without duplicates (as `from_words` makes
        it, or as a saved `array` reads back); `heads`: heads(array), when saved beside it
        (else made at the first search)."""
        if array.ndim != 1 or array.dtype.kind != "S":
            raise ValueError(f"a WordList needs a 1-D bytes array, not {array.dtype} of shape {array.shape}")
        if heads is not None and (heads.shape != array.shape or heads.dtype != np.uint64):
            raise ValueError("the heads of a WordList are one uint64 per spelling")
        self.array = array
        self._width = array.dtype.itemsize
        self._heads = heads
        # Answers remembered: a new spelling is asked about by several rules in a row.
        self.share(Memory(), 0)

    def share(self, memory: Memory, field: int) -> None:
        """Remember answers in `memory`, as its list number `field` (from 0), from now on: what
        was remembered before is forgotten. A list of 2**bits - 2 entries or more keeps its own."""
        if len(self.array) + 2 >= 1 << memory.bits:
            memory, field = Memory(), 0
        self.memory = memory
        self._positions = memory.answers  # spelling -> the answers packed (Memory)
        self._shift, self._mask = field * memory.bits, (1 << memory.bits) - 1

    @classmethod
    def from_words(cls, words: Iterable[str]) -> WordList:
        unique = sorted(set(words) - {""})  # str order is UTF-8 byte order
        joined = "\n".join(unique)
        if "\0" in joined or joined.count("\n") != len(unique) - 1:  # never in a lexicon file
            # numpy strips trailing NUL bytes, so a spelling ending in NUL cannot be stored; no
            # word of a text ends with one, so leaving it out changes no look-up.
            encoded = [_encode(word) for word in unique if not word.endswith("\0")]
        else:
            encoded = _encode(joined).split(b"\n") if unique else []  # one encode for all
        return cls(np.array(encoded, dtype=bytes) if encoded else np.zeros(0, dtype="S1"))

    def position(self, word: str) -> int:
        """The index of `word` in sorted order, or -1 when it is not in the list."""
        if not isinstance(word, str):
            return -1
        memory = self._positions
        packed = memory.get(word, 0)
        found = (packed >> self._shift) & self._mask
        if found:
            return found - 2
        found = self._search(word)
        memory[word] = packed | (found + 2) << self._shift
        return found

    def remember(self, words: list[str]) -> None:
        """Look up many words at once and remember the answers, so that `in` and `position`
        answer them from a dict: one sorted search of the whole batch costs far less than one
        binary search per word (the new spellings of a batch of messages, see
        WordLabeller.label_many)."""
        words = list(dict.fromkeys(words))
        asked = self._remembered(words) != _NOT_ASKED
        if asked.any():
            words = list(itertools.compress(words, (~asked).tolist()))
        if words:
            self.learn(words, self.positions(words))

    def learn(self, words: list[str], positions: np.ndarray) -> None:
        """Remember the positions (`search`'s answers) of `words`, searched by the caller."""
        memory, shift = self._positions, self._shift
        packed = np.fromiter(map(memory.get, words, repeat(0)), dtype=np.int64, count=len(words))
        packed &= ~(self._mask << shift)  # the other lists' answers are kept
        packed |= (positions + 2) << shift
        memory.update(zip(words, packed.tolist()))

    def _remembered(self, words: list[str]) -> np.ndarray:
        """The position remembered of each of `words`, or _NOT_ASKED, as an int64 array."""
        memory = self._positions
        packed = np.fromiter(map(memory.get, words, repeat(0)), dtype=np.int64, count=len(words))
        if self._shift:
            packed >>= self._shift
        packed &= self._mask
        packed -= 2
        return packed

    def contains_many(self, words: list[str]) -> np.ndarray:
        """[word in self for word in words] as a bool array (see known_positions)."""
        return self.known_positions(words) >= 0

    def known_positions(self, words: list[str]) -> np.ndarray:
        """position() of each of `words` as an int64 array: every answer remembered read at
        once, then the words not remembered yet looked up by one sorted search (remember)."""
        found = self._remembered(words)
        missing = np.flatnonzero(found == _NOT_ASKED)
        if len(missing):
            asked = list(map(words.__getitem__, missing.tolist()))
            self.remember(asked)
            found[missing] = self._remembered(asked)
        return found

    def positions(self, words: list[str]) -> np.ndarray:
        """position() of each of `words` (strings), as one array, by one sorted search."""
        return self.search(Encoded.of(words, self._width))

    @property
    def heads(self) -> np.ndarray:
        """heads() of the array, made once."""
        if self._heads is None:
            self._heads = heads(self.array)
        return self._heads

    def search(self, words: Encoded) -> np.ndarray:
        """position() of each of the encoded `words`, as one array, by one sorted search
        (nothing remembered): the look-up of many spellings in several lists encodes them
        once (Lexicons.lookup_many). The search is one of numbers (the heads); see the module
        docstring."""
        array = self.array
        found = np.full(len(words.lengths), -1, dtype=np.int64)
        if not len(found) or not len(array):
            return found
        # Empty keys, keys longer than the list's width (numpy would cut them to it) and keys
        # ending with NUL (numpy ignores trailing NULs when comparing) are in no list.
        possible = (words.lengths > 0) & (words.lengths <= self._width) & words.searchable
        entry_heads = self.heads
        first = np.minimum(entry_heads.searchsorted(words.heads), len(array) - 1)  # the first entry of each head
        asked = np.flatnonzero(possible & (entry_heads[first] == words.heads))
        # (Fixed-width bytes gathered by take: about twice as fast as indexing by an array.)
        keys = words.array.take(asked)
        keys = keys if keys.dtype == array.dtype else keys.astype(array.dtype)
        at = first[asked]
        same = array.take(at) == keys
        found[asked[same]] = at[same]
        # A key of at most _HEAD bytes that shares its head with an entry can only be the first
        # entry of that head (the others are longer); a longer key may be further on.
        further = np.flatnonzero(~same & (words.lengths[asked] > _HEAD))
        if len(further):
            keys = keys.take(further)
            index = np.minimum(array.searchsorted(keys), len(array) - 1)
            hit = array.take(index) == keys
            found[asked[further[hit]]] = index[hit]
        return found

    def _search(self, word: str) -> int:
        key = _encode(word)
        if not key or len(key) > self._width:  # cannot be in the list
            return -1
        array = self.array
        index = int(array.searchsorted(key))
        # Compared as Python bytes: numpy would ignore a trailing NUL of the key.
        return index if index < len(array) and array[index] == key else -1

    def __contains__(self, word: object) -> bool:
        return self.position(word) >= 0  # type: ignore[arg-type]

    def __len__(self) -> int:
        return len(self.array)

    def __iter__(self) -> Iterator[str]:
        return map(bytes.decode, self.array.tolist())  # UTF-8; faster than a generator

    def __repr__(self) -> str:
        return f"WordList({len(self):,} words)"
