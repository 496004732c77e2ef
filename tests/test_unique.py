"""triage.pipeline.arrays against numpy: unique as np.unique (the same values, order, dtypes, inverse and
counts), among as np.isin, a GrowingArray as np.concatenate."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from triage.pipeline.arrays import GrowingArray, among, unique

DTYPES = [np.int64, np.int32, np.int16, np.int8, np.uint64, np.uint8, np.intp, bool]


@settings(max_examples=300, deadline=None)
@given(values=st.lists(st.integers(-130, 130), max_size=60), dtype=st.sampled_from(DTYPES),
       inverse=st.booleans(), counts=st.booleans())
def test_unique_is_numpys(values, dtype, inverse, counts):
    array = np.asarray(values).astype(dtype)
    expected = np.unique(array, return_inverse=inverse, return_counts=counts)
    found = unique(array, return_inverse=inverse, return_counts=counts)
    if not (inverse or counts):
        expected, found = (expected,), (found,)
    assert len(found) == len(expected)
    for mine, numpys in zip(found, expected):
        assert mine.dtype == numpys.dtype
        assert mine.shape == numpys.shape
        assert np.array_equal(mine, numpys)


def test_unique_of_an_empty_array_keeps_its_dtype():
    for dtype in DTYPES:
        empty = np.zeros(0, dtype=dtype)
        assert unique(empty).dtype == np.unique(empty).dtype
        values, inverse, counts = unique(empty, return_inverse=True, return_counts=True)
        assert values.dtype == dtype and inverse.dtype == np.intp and counts.dtype == np.intp


@settings(max_examples=200, deadline=None)
@given(values=st.lists(st.floats(allow_nan=False, allow_infinity=True, width=32) | st.sampled_from([0.0, -0.0, 0.5]),
                       max_size=40),
       dtype=st.sampled_from([np.float64, np.float32]))
def test_unique_of_finite_floats_is_numpys(values, dtype):
    """The model's thresholds are floats: minus and plus zero are one value, as in np.unique."""
    array = np.asarray(values, dtype=dtype)
    expected, found = np.unique(array), unique(array)
    assert found.dtype == expected.dtype and np.array_equal(found, expected)
    assert np.signbit(found).tolist() == np.signbit(expected).tolist()


@settings(max_examples=200, deadline=None)
@given(numbers=st.lists(st.integers(0, 2**63 - 1) | st.integers(0, 40), max_size=30),
       values=st.lists(st.integers(0, 2**63 - 1) | st.integers(0, 40), max_size=60))
def test_among_is_isin(numbers, values):
    numbers = np.unique(np.asarray(numbers, dtype=np.uint64))
    values = np.asarray(values, dtype=np.uint64)
    assert among(numbers, values).tolist() == np.isin(values, numbers).tolist()


@settings(max_examples=200, deadline=None)
@given(first=st.lists(st.integers(-2**40, 2**40), max_size=5),
       parts=st.lists(st.lists(st.integers(-2**40, 2**40), max_size=30), max_size=60))
def test_a_growing_array_holds_what_concatenating_would(first, parts):
    """Extended part after part, a GrowingArray holds what np.concatenate would, each view it gave
    keeps its values, and it copies what it holds a few times at most: its room at most doubles what
    it holds, and it moves to a new array a number of times that grows as the log of its size."""
    grown = GrowingArray(np.int64, first)
    expected = np.array(first, dtype=np.int64)
    views, moves, array = [], 0, grown.array
    for part in parts:
        view = grown.extend(np.array(part, dtype=np.int64))
        expected = np.concatenate([expected, np.array(part, dtype=np.int64)])
        views.append((view, expected))
        assert np.array_equal(grown.view(), expected) and len(grown) == len(expected)
        assert len(grown.array) <= max(2 * len(grown), len(first))
        moves += grown.array is not array
        array = grown.array
    assert all(np.array_equal(view, values) for view, values in views)
    assert moves <= 2 + math.log2(max(len(expected), 1))


@settings(max_examples=200, deadline=None)
@given(width=st.sampled_from([None, 1, 3]), growth=st.sampled_from([1.5, 2.0]),
       steps=st.lists(st.tuples(st.booleans(), st.integers(0, 25)), max_size=40))
def test_a_growing_array_of_rows_grows_by_rows_and_to_a_size(width, growth, steps):
    """A GrowingArray of rows of `width` values, extended by rows or grown to a size (its new rows
    filled), holds what numpy would, and its room stays within `growth` times what it holds."""
    shape = () if width is None else (width,)
    grown = GrowingArray(np.float64, width=width, growth=growth)
    expected = np.zeros((0, *shape))
    for extend, count in steps:
        if extend:
            rows = np.arange(count * (width or 1), dtype=np.float64).reshape((count, *shape)) + len(expected)
            found = grown.extend(rows)
            expected = np.concatenate([expected, rows])
        else:
            size = len(expected) + count
            found = grown.grow_to(size, -1.0)
            expected = np.concatenate([expected, np.full((count, *shape), -1.0)])
            assert grown.grow_to(size // 2).shape == expected.shape  # never smaller
        assert found.shape == expected.shape and np.array_equal(found, expected)
        assert len(grown.array) <= max(math.ceil(growth * len(grown)), 1)

