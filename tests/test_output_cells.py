"""Tests for the cells of classify's output written a column at a time (triage.classifier.output_columns)."""

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from triage.classifier import _four_decimals


@given(st.lists(st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.sampled_from([0.0, -0.0, 0.5, 0.00005,
                                                                                             0.99995, 1.0])),
                max_size=40))
def test_scores_are_written_as_each_alone(values):
    """Every score's cell is what writing it alone gives (-0.0 and 0.0 told apart)."""
    assert _four_decimals(np.array(values, dtype=np.float64)) == list(map("{:.4f}".format, values))


# Values from 0 to 1, the halves between two cells (n + 0.5) / 10,000 and the floats either side of them.
_HALVES = st.integers(0, 9999).map(lambda n: (n + 0.5) / 10000).flatmap(
    lambda half: st.sampled_from([half, float(np.nextafter(half, 0)), float(np.nextafter(half, 2))]))


@given(st.lists(st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.floats(0, 1), _HALVES,
                          st.sampled_from([0.0, -0.0, 0.03125, 0.99995, 1.0, 1.00005, 5e-324])), max_size=40))
def test_risks_taken_from_the_table_are_written_as_each_alone(values):
    """Every cell is what writing its value alone gives, whether taken from the table of the values
    from 0 to 1 or written by Python (halves, values out of the table)."""
    assert _four_decimals(np.array(values, dtype=np.float64)) == list(map("{:.4f}".format, values))
