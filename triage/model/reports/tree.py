"""Print a fitted scikit-learn decision tree the way Weka's J48 prints its
tree (the paper's Figure 1), and draw it as a PNG.

Weka's text (``weka.classifiers.trees.j48.ClassifierTree.toString``)::

    UpperCase <= 1
    |   Numbers <= 2: NTA (273.0/8.0)
    |   Numbers > 2
    ...

    Number of Leaves  : \t64

    Size of the tree : \t127

Formatting follows Weka exactly:

* thresholds go through ``Utils.doubleToString(value, 6)``: rounded half up to
  6 *decimal places*, trailing zeros and a trailing dot dropped (``1``,
  ``1.5``, ``0.333333``, ``1234.56789``);
* J48 splits at the largest training value below the cut, not at the midpoint
  scikit-learn stores; given ``X_train`` we print that value (the largest value
  of the feature in ``X_train`` that scikit-learn sends left), otherwise the
  scikit-learn threshold itself;
* leaf counts go through ``Utils.roundDouble(value, 2)`` and Java's
  ``Double.toString`` (``273.0``, ``2.67``); the error count is shown only when
  it exceeds Weka's 1e-6 tolerance.
"""

from __future__ import annotations

import math
from decimal import ROUND_DOWN, ROUND_HALF_UP, Decimal
from typing import Sequence

import numpy as np

__all__ = ["weka_tree_text", "tree_size", "tree_figure"]

_INDENT = "|   "
_WEKA_SMALL = 1e-6  # Weka's Utils.SMALL, the tolerance of Utils.gr / Utils.eq


# --------------------------------------------------------------------------
# Java / Weka number formatting
# --------------------------------------------------------------------------
def _java_double_str(value: float) -> str:
    """Java's Double.toString for a finite double."""
    value = float(value)
    if value == 0.0:
        return "-0.0" if math.copysign(1.0, value) < 0 else "0.0"
    if 1e-3 <= abs(value) < 1e7:
        return repr(value)  # Python's shortest repr is plain decimal in this range
    mantissa, exponent = np.format_float_scientific(value, unique=True, exp_digits=1).split("e")
    if mantissa.endswith("."):
        mantissa += "0"
    return f"{mantissa}E{int(exponent)}"


def _weka_double_to_string(value: float, after_decimal_point: int = 6) -> str:
    """Weka's Utils.doubleToString(value, afterDecimalPoint) (Weka 3.8 / 3.9).

    Weka formats with java.text.DecimalFormat: no grouping, at most
    ``after_decimal_point`` fraction digits, RoundingMode.HALF_UP, trailing
    zeros dropped.  DecimalFormat starts from Java's shortest digits of the
    double (Python's repr gives the same digits) and settles an apparent tie
    by the exact binary value.
    """
    value = float(value)
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    step = Decimal(1).scaleb(-after_decimal_point)
    shortest = Decimal(repr(value))
    rounded = shortest.quantize(step, rounding=ROUND_HALF_UP)
    if abs(shortest - rounded) == step / 2:  # an apparent tie: the exact value decides
        exact = Decimal(value)
        mode = ROUND_HALF_UP if abs(exact) >= abs(shortest) else ROUND_DOWN
        rounded = shortest.quantize(step, rounding=mode)
    text = f"{abs(rounded):f}"
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    negative = math.copysign(1.0, value) < 0  # DecimalFormat keeps the sign of -0.0
    return ("-" if negative else "") + text


def _weka_round(value: float, after_decimal_point: int = 2) -> float:
    """Weka's Utils.roundDouble: Math.round(value * 10^n) / 10^n."""
    mask = math.pow(10.0, after_decimal_point)
    scaled = value * mask + 0.5
    # Math.round returns a long: it saturates at Long.MIN_VALUE / MAX_VALUE.
    rounded = min(max(math.floor(scaled), -(2**63)), 2**63 - 1)
    return float(rounded) / mask


# --------------------------------------------------------------------------
# Tree access
# --------------------------------------------------------------------------
def _node_class_counts(tree) -> np.ndarray:
    """(n_nodes, n_classes) weighted class counts of every node.

    scikit-learn < 1.4 stores weighted counts in ``tree_.value``; later
    versions store class fractions.  Normalising and rescaling by
    ``weighted_n_node_samples`` gives counts for both.
    """
    inner = tree.tree_
    value = np.asarray(inner.value, dtype=np.float64)
    if value.ndim != 3 or value.shape[1] != 1:
        raise ValueError("only single-output classification trees are supported")
    value = value[:, 0, :]
    totals = value.sum(axis=1, keepdims=True)
    fractions = np.divide(value, totals, out=np.zeros_like(value), where=totals > 0)
    return fractions * np.asarray(inner.weighted_n_node_samples, dtype=np.float64)[:, None]


def _is_leaf(inner, node: int) -> bool:
    return inner.children_left[node] == -1


def tree_size(tree) -> tuple[int, int]:
    """(number of leaves, size of the tree = number of nodes), as Weka prints them."""
    inner = tree.tree_
    n_leaves = int(np.count_nonzero(np.asarray(inner.children_left) == -1))
    return n_leaves, int(inner.node_count)


def _split_values(tree, X_train) -> dict[int, float]:
    """Value to print for each internal node's split.

    With X_train: the largest training value that scikit-learn routes left
    (it compares the float32 copy of X against a float64 threshold), which is
    what J48's setSplitPoint keeps.  Without: the stored midpoint.
    """
    inner = tree.tree_
    internal = [n for n in range(inner.node_count) if not _is_leaf(inner, n)]
    values = {n: float(inner.threshold[n]) for n in internal}
    if X_train is None:
        return values
    X = np.asarray(X_train, dtype=np.float64)
    if X.ndim != 2 or X.shape[1] != tree.n_features_in_:
        raise ValueError(
            f"X_train must have shape (n, {tree.n_features_in_}), got {X.shape}"
        )
    for node in internal:
        column = X[:, inner.feature[node]]
        sent_left = column.astype(np.float32) <= inner.threshold[node]  # NaN -> False
        if sent_left.any():
            values[node] = float(column[sent_left].max())
    return values


# --------------------------------------------------------------------------
# Text
# --------------------------------------------------------------------------
def weka_tree_text(
    tree,
    feature_names: Sequence[str],
    class_names: Sequence[str] | None,
    X_train=None,
    *,
    title: str | None = None,
    integer_features: set[str] | None = None,
) -> str:
    """The tree as Weka J48 prints it.

    ``class_names[i]`` names ``tree.classes_[i]`` (None: ``str`` of the
    classes).  ``title`` (e.g. ``"J48 pruned tree"``) adds Weka's two-line
    heading; without it the text starts with the root's first rule, as in the
    paper's Figure 1.  The text always ends with Weka's leaf and size counts.

    ``integer_features`` names features that only take integer values: their
    thresholds print as floor(threshold), the largest integer the split sends
    left (without ``X_train``, the nearest we get to Weka's largest training
    value below the cut; the same test on integer data).
    """
    inner = tree.tree_
    feature_names = list(feature_names)
    if len(feature_names) != tree.n_features_in_:
        raise ValueError(
            f"{len(feature_names)} feature names for {tree.n_features_in_} features"
        )
    if class_names is None:
        class_names = [str(c) for c in tree.classes_]
    class_names = list(class_names)
    counts = _node_class_counts(tree)
    if len(class_names) != counts.shape[1]:
        raise ValueError(f"{len(class_names)} class names for {counts.shape[1]} classes")
    split_values = _split_values(tree, X_train)
    integer_features = set(integer_features or ())

    def leaf_label(node: int) -> str:
        # ClassifierSplitModel.dumpLabel: majority class (first on ties),
        # "(weight/errors)" with errors omitted when not above Weka's tolerance.
        node_counts = counts[node]
        total = float(node_counts.sum())
        majority = int(np.argmax(node_counts))
        errors = total - float(node_counts[majority])
        label = f"{class_names[majority]} ({_java_double_str(_weka_round(total))}"
        if errors > _WEKA_SMALL:
            label += f"/{_java_double_str(_weka_round(errors))}"
        return label + ")"

    lines: list[str] = []

    def dump(node: int, depth: int) -> None:
        name = feature_names[inner.feature[node]]
        value = split_values[node]
        if name in integer_features:
            value = float(math.floor(value))
        shown = _weka_double_to_string(value, 6)
        children = ((" <= ", inner.children_left[node]), (" > ", inner.children_right[node]))
        for operator, child in children:
            line = _INDENT * depth + name + operator + shown
            if _is_leaf(inner, child):
                lines.append(f"{line}: {leaf_label(child)}")
            else:
                lines.append(line)
                dump(child, depth + 1)

    if _is_leaf(inner, 0):
        body = f": {leaf_label(0)}"  # Weka's text for a tree that is a single leaf
    else:
        dump(0, 0)
        body = "\n".join(lines)
    n_leaves, n_nodes = tree_size(tree)
    heading = f"{title}\n{'-' * 18}\n\n" if title else ""
    return (
        f"{heading}{body}\n\nNumber of Leaves  : \t{n_leaves}\n"
        f"\nSize of the tree : \t{n_nodes}\n"
    )


# --------------------------------------------------------------------------
# Picture
# --------------------------------------------------------------------------
def _shown_shape(tree, max_depth: int | None) -> tuple[int, int]:
    """(number of bottom boxes, number of levels) of the drawing."""
    inner = tree.tree_
    bottom, levels = 0, 0
    pending = [(0, 0)]  # (node, depth), walking only the drawn part
    while pending:
        node, depth = pending.pop()
        levels = max(levels, depth + 1)
        if _is_leaf(inner, node):
            bottom += 1
        elif max_depth is not None and depth >= max_depth:
            bottom += 2  # plot_tree draws the cut node's two children as "(...)"
            levels = max(levels, depth + 2)
        else:
            pending.append((inner.children_left[node], depth + 1))
            pending.append((inner.children_right[node], depth + 1))
    return bottom, levels


def tree_figure(
    tree,
    feature_names: Sequence[str],
    class_names: Sequence[str] | None,
    max_depth: int | None = None,
):
    """Draw the tree (filled, counts not proportions) on a matplotlib Figure.

    Uses a bare Agg canvas rather than pyplot so that the caller's matplotlib
    backend and global figure state are left alone.
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from sklearn.tree import plot_tree

    bottom, levels = _shown_shape(tree, max_depth)
    # About 1.6 inches per bottom box and 1.6 per level keeps 9-point text
    # clear of the neighbouring boxes; the cap bounds the file size.
    width = min(max(6.0, 1.6 * bottom), 120.0)
    height = min(max(4.0, 1.6 * levels), 40.0)
    figure = Figure(figsize=(width, height), dpi=100)
    FigureCanvasAgg(figure)
    axes = figure.add_subplot(1, 1, 1)
    plot_tree(
        tree,
        feature_names=list(feature_names),
        class_names=None if class_names is None else list(class_names),
        filled=True,
        proportion=False,
        impurity=False,
        rounded=True,
        max_depth=max_depth,
        fontsize=9,
        ax=axes,
    )
    figure.tight_layout()
    return figure
