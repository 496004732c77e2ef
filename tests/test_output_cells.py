"""Tests for the cells of classify's output written a column at a time (triage.classifier.output_columns)."""

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from triage.classifier import _formatted_once


@given(st.lists(st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.sampled_from([0.0, -0.0, 0.5, 0.00005,
                                                                                             0.99995, 1.0])),
                max_size=40))
def test_scores_written_once_per_value_are_written_as_each_alone(values):
    """Each distinct score is written once, and every cell is what writing it alone gives."""
    assert _formatted_once(np.array(values, dtype=np.float64)) == list(map("{:.4f}".format, values))
