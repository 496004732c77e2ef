"""Column operations on a batch's numpy arrays that several steps share."""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np


def unique(values: np.ndarray, return_inverse: bool = False, return_counts: bool = False):
    """np.unique of a 1-D array of integers, booleans or finite floats, with the same values,
    order and dtypes, and the same inverse and counts when asked for; by a sort and a mask of
    where the sorted values change: np.unique hashes the values first, which costs several times
    as much for the integer arrays of a batch (and, in numpy 2, loads numpy.ma the first time:
    about 6 ms of start-up)."""
    values = np.asarray(values).ravel()
    if not (return_inverse or return_counts):
        ordered = np.sort(values)
        change = np.empty(len(ordered), dtype=bool)
        change[:1] = True
        np.not_equal(ordered[1:], ordered[:-1], out=change[1:])
        return ordered[change]
    order = np.argsort(values, kind="stable")
    ordered = values[order]
    change = np.empty(len(ordered), dtype=bool)
    change[:1] = True
    np.not_equal(ordered[1:], ordered[:-1], out=change[1:])
    result = [ordered[change]]
    if return_inverse:
        inverse = np.empty(len(values), dtype=np.intp)
        inverse[order] = np.cumsum(change) - 1
        result.append(inverse)
    if return_counts:
        result.append(np.diff(np.append(np.flatnonzero(change), len(values))).astype(np.intp))
    return tuple(result)


def among(numbers: np.ndarray, values: np.ndarray) -> np.ndarray:
    """np.isin(values, numbers) for sorted `numbers`, by one sorted search (np.isin sorts both
    arrays, or fills a table as wide as the numbers' range)."""
    if not len(numbers):
        return np.zeros(len(values), dtype=bool)
    return numbers[np.minimum(np.searchsorted(numbers, values), len(numbers) - 1)] == values


def string_hashes(strings: Iterable[str], count: int) -> np.ndarray:
    """Python's hash() of each of `count` strings, as an int64 column: valid in this process only
    (and in those forked from it), where two equal strings have the same hash."""
    return np.fromiter(map(hash, strings), np.int64, count)


class GrowingArray:
    """A numpy array that grows at its end (a column over ids given as they come, or a table of
    rows of `width` values): it keeps room for more, its size multiplied by `growth` when it
    fills, so that each value is copied a few times at most however often it grows, where
    np.concatenate copies every value held at each growth."""

    def __init__(self, dtype, values=(), *, width: int | None = None, growth: float = 2.0):
        shape = () if width is None else (width,)
        self.array = np.array(values, dtype=dtype).reshape((-1, *shape))  # the first `size` values, then room
        self.size = len(self.array)
        self.growth = growth

    def __len__(self) -> int:
        return self.size

    def _room(self, end: int) -> None:
        """Room for `end` values at least, those held kept."""
        if end > len(self.array):
            grown = np.empty((max(end, int(len(self.array) * self.growth)), *self.array.shape[1:]),
                             dtype=self.array.dtype)  # (only [:size] is read)
            grown[: self.size] = self.array[: self.size]
            self.array = grown

    def extend(self, values) -> np.ndarray:
        """Append `values` (an array-like, of rows of `width` values for a table); the values held,
        as a view (which keeps them: what later extends add is not in it)."""
        end = self.size + len(values)
        self._room(end)
        self.array[self.size : end] = values
        self.size = end
        return self.view()

    def grow_to(self, size: int, fill=None) -> np.ndarray:
        """Hold `size` values at least (for a column written by index), the new ones `fill` (left
        unwritten without one: to be written before they are read); the values held, as a view."""
        if size > self.size:
            self._room(size)
            if fill is not None:
                self.array[self.size : size] = fill
            self.size = size
        return self.view()

    def view(self) -> np.ndarray:
        """The values held, as a view (which keeps them: what later extends add is not in it)."""
        return self.array[: self.size]
