"""Weka J48-style text (and PNG) of scikit-learn decision trees."""

from types import SimpleNamespace

import numpy as np
import pytest
from sklearn.tree import DecisionTreeClassifier

from triage.model.reports.tree import (
    _weka_double_to_string,
    tree_figure,
    tree_size,
    weka_tree_text,
)

FEATURES = ["UpperCase", "Numbers"]
CLASSES = ["NTA", "TA"]

# Hand-chosen data: UpperCase separates the classes best, then Numbers
# separates them again inside each half (in opposite directions).
#   UpperCase in {0, 1}: Numbers <= 2 -> 2 TA;  Numbers >= 4 -> 5 NTA + 1 TA (the 7)
#   UpperCase in {4, 5}: Numbers <= 2 -> 2 NTA + 1 TA;  Numbers >= 4 -> 5 TA
ROWS = [
    (0, 1, "TA"), (1, 2, "TA"), (0, 4, "NTA"), (1, 5, "NTA"),
    (0, 6, "NTA"), (1, 6, "NTA"), (0, 7, "TA"), (1, 8, "NTA"),
    (4, 1, "NTA"), (5, 2, "NTA"), (4, 4, "TA"), (5, 5, "TA"),
    (4, 6, "TA"), (5, 7, "TA"), (4, 8, "TA"), (5, 2, "TA"),
]  # fmt: skip
X = np.array([row[:2] for row in ROWS], dtype=float)
Y = np.array([row[2] for row in ROWS])

FOOTER_4_7 = "\n\nNumber of Leaves  : \t4\n\nSize of the tree : \t7\n"


def fit_small_tree(sample_weight=None):
    tree = DecisionTreeClassifier(max_depth=2, random_state=0)
    return tree.fit(X, Y, sample_weight=sample_weight)


def test_small_tree_full_text_with_training_values():
    # scikit-learn splits at UpperCase 2.5 (midpoint of 1 and 4) and Numbers 3.0
    # (midpoint of 2 and 4); J48 prints the largest training value below: 1 and 2.
    expected = (
        "UpperCase <= 1\n"
        "|   Numbers <= 2: TA (2.0)\n"
        "|   Numbers > 2: NTA (6.0/1.0)\n"
        "UpperCase > 1\n"
        "|   Numbers <= 2: NTA (3.0/1.0)\n"
        "|   Numbers > 2: TA (5.0)" + FOOTER_4_7
    )
    assert weka_tree_text(fit_small_tree(), FEATURES, CLASSES, X_train=X) == expected


def test_thresholds_without_training_values_are_the_split_points():
    text = weka_tree_text(fit_small_tree(), FEATURES, CLASSES)
    assert text.splitlines()[:3] == [
        "UpperCase <= 2.5",
        "|   Numbers <= 3: TA (2.0)",
        "|   Numbers > 3: NTA (6.0/1.0)",
    ]


def test_threshold_maps_to_largest_training_value_on_the_left():
    # Non-integer feature: sklearn splits at 0.5 between 0.25 and 0.75.
    x = np.array([[0.25], [0.1], [0.75], [0.9]])
    tree = DecisionTreeClassifier(max_depth=1).fit(x, ["NTA", "NTA", "TA", "TA"])
    lines = weka_tree_text(tree, ["Ratio"], CLASSES, X_train=x).splitlines()
    assert lines[:2] == ["Ratio <= 0.25: NTA (2.0)", "Ratio > 0.25: TA (2.0)"]
    lines = weka_tree_text(tree, ["Ratio"], CLASSES).splitlines()
    assert lines[:2] == ["Ratio <= 0.5: NTA (2.0)", "Ratio > 0.5: TA (2.0)"]


def test_weighted_leaf_counts_use_weka_rounding():
    # Every row weighs 1/3: the same tree, counts divided by 3 and rounded to
    # two decimals as Weka's Utils.roundDouble does (2/3 -> 0.67, 1/3 -> 0.33).
    tree = fit_small_tree(sample_weight=np.full(len(Y), 1 / 3))
    lines = weka_tree_text(tree, FEATURES, CLASSES, X).splitlines()
    leaves = [line for line in lines if line.startswith("|") and ": " in line]
    assert leaves == [
        "|   Numbers <= 2: TA (0.67)",
        "|   Numbers > 2: NTA (2.0/0.33)",
        "|   Numbers <= 2: NTA (1.0/0.33)",
        "|   Numbers > 2: TA (1.67)",
    ]


def test_class_names_default_to_the_tree_classes():
    tree = fit_small_tree()
    assert weka_tree_text(tree, FEATURES, None, X) == weka_tree_text(tree, FEATURES, CLASSES, X)


def test_title_adds_weka_heading():
    text = weka_tree_text(fit_small_tree(), FEATURES, CLASSES, X, title="J48 pruned tree")
    assert text.startswith("J48 pruned tree\n------------------\n\nUpperCase <= 1\n")


def test_single_leaf_tree_prints_like_weka():
    tree = DecisionTreeClassifier().fit([[0], [1], [2], [3]], ["NTA"] * 4)
    assert tree_size(tree) == (1, 1)
    assert weka_tree_text(tree, ["UpperCase"], ["NTA"]) == (
        ": NTA (4.0)\n\nNumber of Leaves  : \t1\n\nSize of the tree : \t1\n"
    )


def test_tree_size_of_stump_and_deeper_tree():
    stump = DecisionTreeClassifier(max_depth=1).fit(X, Y)
    assert tree_size(stump) == (2, 3)
    assert tree_size(fit_small_tree()) == (4, 7)
    rng = np.random.default_rng(0)
    Xr = rng.integers(0, 20, (400, 4))
    yr = rng.integers(0, 2, 400)
    deep = DecisionTreeClassifier(random_state=0).fit(Xr, yr)
    leaves, size = tree_size(deep)
    assert (leaves, size) == (deep.get_n_leaves(), deep.tree_.node_count)
    assert size == 2 * leaves - 1  # binary tree
    text = weka_tree_text(deep, list("abcd"), ["0", "1"], Xr)
    assert text.endswith(f"\n\nNumber of Leaves  : \t{leaves}\n\nSize of the tree : \t{size}\n")
    # One text line per edge: every internal node prints two lines.
    body = text.split("\n\nNumber of Leaves")[0]
    assert len(body.splitlines()) == size - 1
    assert sum(": " in line for line in body.splitlines()) == leaves


# --------------------------------------------------------------------------
# A hand-built tree (the top of the paper's Figure 1), in both layouts of
# tree_.value: class counts (scikit-learn < 1.4) and class fractions (>= 1.4).
# --------------------------------------------------------------------------
FIGURE_NAMES = ["UpperCase", "Numbers", "WordLength"]
# node: (left, right, feature, threshold, [NTA, TA])
FIGURE_NODES = [
    (1, 6, 0, 1.5, [276, 74]),  # 0 UpperCase
    (2, 3, 1, 2.5, [269, 27]),  # 1 Numbers
    (-1, -1, -2, -2.0, [265, 8]),  # 2 leaf NTA (273.0/8.0)
    (4, 5, 2, 5.5, [4, 19]),  # 3 WordLength
    (-1, -1, -2, -2.0, [4, 1]),  # 4 leaf NTA (5.0/1.0)
    (-1, -1, -2, -2.0, [0, 18]),  # 5 leaf TA (18.0)  ... no error
    (7, 8, 1, 3.5, [7, 47]),  # 6 Numbers
    (-1, -1, -2, -2.0, [6, 42]),  # 7 leaf TA (48.0/6.0)
    (-1, -1, -2, -2.0, [1, 5]),  # 8 leaf TA (6.0/1.0)
]
FIGURE_TEXT = (
    "UpperCase <= 1\n"
    "|   Numbers <= 2: NTA (273.0/8.0)\n"
    "|   Numbers > 2\n"
    "|   |   WordLength <= 5: NTA (5.0/1.0)\n"
    "|   |   WordLength > 5: TA (18.0)\n"
    "UpperCase > 1\n"
    "|   Numbers <= 3: TA (48.0/6.0)\n"
    "|   Numbers > 3: TA (6.0/1.0)"
    "\n\nNumber of Leaves  : \t5\n\nSize of the tree : \t9\n"
)
# Training values: the largest values at or below 1.5, 2.5, 3.5, 5.5 are 1, 2, 3, 5.
FIGURE_X = np.array([[0, 0, 3], [1, 2, 5], [4, 3, 9], [7, 9, 6]], dtype=float)


def figure_tree(as_fractions):
    counts = np.array([node[4] for node in FIGURE_NODES], dtype=float)
    totals = counts.sum(axis=1)
    value = counts / totals[:, None] if as_fractions else counts
    inner = SimpleNamespace(
        children_left=np.array([n[0] for n in FIGURE_NODES]),
        children_right=np.array([n[1] for n in FIGURE_NODES]),
        feature=np.array([n[2] for n in FIGURE_NODES]),
        threshold=np.array([n[3] for n in FIGURE_NODES]),
        value=value[:, None, :],
        weighted_n_node_samples=totals,
        node_count=len(FIGURE_NODES),
    )
    return SimpleNamespace(tree_=inner, n_features_in_=3, classes_=np.array(CLASSES))


@pytest.mark.parametrize("as_fractions", [False, True])
def test_hand_built_tree_nested_text(as_fractions):
    text = weka_tree_text(figure_tree(as_fractions), FIGURE_NAMES, CLASSES, X_train=FIGURE_X)
    assert text == FIGURE_TEXT
    assert tree_size(figure_tree(as_fractions)) == (5, 9)


def test_installed_sklearn_layout_is_handled():
    # Whatever this scikit-learn stores in tree_.value, the root of the small
    # tree must read 16 rows: 7 NTA and 9 TA.
    from triage.model.reports.tree import _node_class_counts

    counts = _node_class_counts(fit_small_tree())
    assert counts[0].tolist() == pytest.approx([7.0, 9.0])


@pytest.mark.parametrize(
    "value, expected",
    [
        (1.0, "1"),
        (2.5, "2.5"),
        (1 / 3, "0.333333"),
        (2 / 3, "0.666667"),
        (1234.56789, "1234.56789"),
        (12345678.0, "12345678"),
        (-4.0, "-4"),
        (0.0, "0"),
        (1e-7, "0"),
        (-1e-7, "-0"),  # Weka (java.text.DecimalFormat) keeps the sign
        (0.0000015, "0.000002"),  # half up
    ],
)
def test_threshold_number_format_matches_weka(value, expected):
    assert _weka_double_to_string(value, 6) == expected


def test_rejects_wrong_number_of_names():
    with pytest.raises(ValueError):
        weka_tree_text(fit_small_tree(), ["only_one"], CLASSES)
    with pytest.raises(ValueError):
        weka_tree_text(fit_small_tree(), FEATURES, ["NTA"])


# --------------------------------------------------------------------------
# PNG
# --------------------------------------------------------------------------
@pytest.mark.parametrize("max_depth", [None, 1])
def test_the_tree_figure_renders_as_a_png(max_depth):
    from triage.model.reports.render import figure_png

    data = figure_png(tree_figure(fit_small_tree(), FEATURES, CLASSES, max_depth=max_depth), dpi="figure")
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    assert len(data) > 1000
