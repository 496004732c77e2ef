"""The learnt model (Patel et al. 2013, section 4): message features -> random undersampling
to 1:1 -> bagged entropy decision trees (the paper's Weka J48 + Bagging), as an
imbalanced-learn pipeline, so that resampling happens inside `fit` only (inside each
cross-validation training fold, never before the split).

A model file is a zip holding:
- metadata.json: feature set, lexicon fingerprint, library versions, training-set size and
  class counts, date, seed;
- model.skops: the whole fitted pipeline, in skops' safe format (loaded with an allow-list
  of types, never by unpickling arbitrary code), for reports and retraining;
- forest.npz: the same trees as plain arrays (loaded with allow_pickle=False), which is all
  `triage classify` needs: predicting with numpy alone keeps scikit-learn's 2 s import off the
  start-up path;
- names.npz (a model with a word scorer): the scorer's trees, its name-likeness table, the
  budget's calibration and the corpus prior (how its training corpus writes the ordinary words
  of the shipped lists: triage.model.names.corpus_prior).
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import io as _io
import json
import math
import zipfile
import zlib
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from triage.errors import BadInput, BadModel, BadOption, InputError
from triage.pipeline import component
from triage.pipeline.arrays import unique

FORMAT = "sms-triage-model/2"  # /2: metadata.json under the checksum too (/1 files must be retrained)
# Bounds of what a model file may ask of the reader: a hostile file must fail, not hang or swell.
MAX_MEMBER_BYTES = 256 * 2**20  # uncompressed, per member
MAX_TOTAL_BYTES = 512 * 2**20
MAX_RATIO = 200  # uncompressed / compressed: text and arrays compress 5-20 times, bombs thousands
MAX_NODES = 5_000_000
MAX_DEPTH = 200
KINDS = ("baseline", "tree", "bagging")
CLASSES = ("NTA", "TA")
# Weka's J48 prunes and keeps at least 2 instances per leaf; CART's nearest equivalents.
TREE_PARAMS = {"criterion": "entropy", "min_samples_leaf": 2, "ccp_alpha": 0.01}
N_ESTIMATORS = 10  # Weka's Bagging default

# Types a model file may contain (skops loads nothing else).
ALLOWED_TYPES = frozenset({
    "triage.features.extractor.MessageFeatures",
    "imblearn.pipeline.Pipeline",
    "imblearn.under_sampling._prototype_selection._random_under_sampler.RandomUnderSampler",
    "sklearn.ensemble._bagging.BaggingClassifier",
    "sklearn.tree._classes.DecisionTreeClassifier",
    "sklearn.tree._tree.Tree",
    "sklearn.dummy.DummyClassifier",
    "sklearn.ensemble._forest.RandomForestClassifier",
    "numpy.random.mtrand.RandomState",
    "numpy.random._mt19937.MT19937",
    "builtins.slice",
    "collections.OrderedDict",
    "numpy.dtype",
    "numpy.ndarray",
    "numpy.int64",
    "numpy.float64",
    "numpy.str_",
    "builtins.int",
    "builtins.float",
    "builtins.str",
})


def make_model(kind: str = "bagging", feature_set: str = "paper", normalise: bool = False, seed: int = 0):
    """An unfitted pipeline: MessageFeatures -> RandomUnderSampler(1:1) -> classifier."""
    from imblearn.pipeline import Pipeline
    from imblearn.under_sampling import RandomUnderSampler

    from triage.features import MessageFeatures

    return Pipeline([
        ("features", MessageFeatures(feature_set=feature_set, normalise=normalise)),
        ("undersample", RandomUnderSampler(sampling_strategy=1.0, random_state=seed)),
        ("classifier", make_classifier(kind, seed)),
    ])


def make_classifier(kind: str, seed: int = 0):
    from sklearn.dummy import DummyClassifier
    from sklearn.ensemble import BaggingClassifier
    from sklearn.tree import DecisionTreeClassifier

    if kind == "baseline":
        return DummyClassifier(strategy="uniform", random_state=seed)
    if kind == "tree":
        return DecisionTreeClassifier(random_state=seed, **TREE_PARAMS)
    if kind == "bagging":
        return BaggingClassifier(
            estimator=DecisionTreeClassifier(random_state=seed, **TREE_PARAMS),
            n_estimators=N_ESTIMATORS,
            random_state=seed,
        )
    raise BadOption(f"unknown model kind {kind!r}; choose one of {', '.join(KINDS)}")


def check_training_labels(labels: list[str], minimum: int = 10) -> dict[str, int]:
    counts = {c: labels.count(c) for c in CLASSES}
    missing = [c for c, n in counts.items() if n < minimum]
    if missing:
        raise BadInput(
            "training needs at least %d messages of each class; found %s"
            % (minimum, ", ".join(f"{n} {c}" for c, n in counts.items()))
        )
    return counts


def check_folds(folds: int, counts: dict[str, int], display: str) -> None:
    """Stratified k-fold cross-validation needs k messages of each class."""
    if folds < 2:
        raise BadOption(f"cross-validation needs at least 2 folds, not {folds}")
    if min(counts.values()) < folds:
        raise BadOption(
            f"{folds}-fold cross-validation needs at least {folds} messages of each class; "
            f"{display} has {counts['TA']} TA and {counts['NTA']} NTA (use fewer --folds)"
        )


def train(texts: list[str], labels: list[str], *, kind="bagging", feature_set="paper", normalise=False, seed=0):
    from triage.features import messages_column

    check_training_labels(labels)
    model = make_model(kind, feature_set, normalise, seed)
    model.fit(messages_column(texts), np.asarray(labels))
    return model


# ---------------------------------------------------------------------- compiled forest


@dataclass
class Forest:
    """Decision trees as flat arrays (all trees concatenated): what classify runs. The trees of
    a forest vote (`link` "mean": the mean of the leaves' P(positive)); those of gradient
    boosting add up (`link` "logistic": P = 1 / (1 + exp(-(baseline + the sum of the leaves'
    values))))."""

    roots: np.ndarray  # int64, one root node per tree
    left: np.ndarray  # int64 global node ids, -1 at leaves
    right: np.ndarray
    feature: np.ndarray  # int64 global feature index (0 at leaves)
    threshold: np.ndarray  # float64: go left when x <= threshold
    proba: np.ndarray  # float64 P(TA) at each node (link "mean"), or the leaf's value (link "logistic")
    depth: int
    link: str = "mean"
    baseline: float = 0.0  # link "logistic": the raw prediction before any tree
    _walk: tuple | None = field(default=None, repr=False, compare=False)
    _exits: tuple | None = field(default=None, repr=False, compare=False)

    def predict_proba(self, X: np.ndarray) -> np.ndarray:
        """P(TA) for each row, exactly as scikit-learn computes it: the mean over the trees of a
        forest, the logistic of the boosted trees' sum."""
        dtype = self._dtype
        X = np.asarray(X, dtype=dtype)
        n = len(X)
        if n == 0:
            return np.zeros(0)
        exits = self._exit_tables(dtype)
        # Each row's values added up over the trees, tree after tree (axis 0): a row's sum does not
        # depend on the rows read with it.
        if exits is None:
            totals = self.proba[self._walked_leaves(X, dtype)].sum(axis=0)
        else:
            # A few hundred rows at a time (their masks stay in the processor's cache between the
            # features read), in parts of even sizes: a part of one row out of several would be
            # summed otherwise (numpy adds up a lone column pairwise).
            parts = -(-n // max(4, _EXIT_CELLS // len(self.roots)))
            totals = np.concatenate([_exit_values(exits, part).sum(axis=0) for part in np.array_split(X, parts)])
        if self.link == "mean":
            return totals / len(self.roots)
        raw = self.baseline + totals
        return 1.0 / (1.0 + np.exp(-raw))

    def _walked_leaves(self, X: np.ndarray, dtype) -> np.ndarray:
        """The leaf each row reaches in each tree, (trees, rows), walking down the trees one
        level at a time for every (tree, row) pair at once."""
        n = len(X)
        if self._walk is None:
            # Leaves point to themselves: children[2 * node + went_right]; 32-bit indices
            # gather faster.
            leaf = self.left < 0
            nodes = np.arange(len(self.left))
            children = np.empty(2 * len(nodes), dtype=np.int32)
            children[0::2], children[1::2] = np.where(leaf, nodes, self.left), np.where(leaf, nodes, self.right)
            self._walk = (leaf, children, self.feature.astype(np.int32), self.threshold.astype(dtype))
        leaf, children, feature, threshold = self._walk
        flat = X.ravel()
        trees = len(self.roots)
        node = np.repeat(self.roots.astype(np.int32)[:, None], n, axis=1).ravel()  # per (tree, row)
        # Only the (tree, row) pairs not at a leaf yet are walked on: most leaves are far
        # shallower than the deepest.
        walking = np.flatnonzero(~leaf[node])
        at = np.tile(np.arange(n, dtype=np.int64) * X.shape[1], trees)[walking]  # where each row starts in flat
        current = node[walking]
        step = 0
        while len(walking):
            went_right = ~(flat[at + feature[current]] <= threshold[current])
            current = children[2 * current + went_right]
            step += 1
            if step % 3 == 0 or len(walking) < 1000:  # dropping the finished pairs has a cost too
                arrived = leaf[current]
                if arrived.any():
                    node[walking[arrived]] = current[arrived]
                    going = ~arrived
                    walking, at, current = walking[going], at[going], current[going]
        return node.reshape(trees, n)

    def prepare(self) -> None:
        """Make the exit-leaf tables predict_proba reads now (a process about to fork workers:
        they share the tables instead of each making its own)."""
        self._exit_tables(self._dtype)

    @property
    def _dtype(self):
        """What the trees compare: float32 values for a forest's, float64 for gradient boosting's."""
        return np.float32 if self.link == "mean" else np.float64

    def _exit_tables(self, dtype) -> tuple | None:
        """The trees as exit-leaf tables (_exit_tables_of), made once; None when a tree has more
        than 64 leaves or the tables would be too large, and the trees are walked instead."""
        if self._exits is None:
            self._exits = (_exit_tables_of(self, dtype),)
        return self._exits[0]

    def arrays(self) -> dict[str, np.ndarray]:
        arrays = {
            "roots": self.roots, "left": self.left, "right": self.right, "feature": self.feature,
            "threshold": self.threshold, "proba": self.proba, "depth": np.asarray([self.depth]),
        }
        if self.link != "mean":
            arrays.update(link=np.asarray([self.link]), baseline=np.asarray([self.baseline], dtype=np.float64))
        return arrays

    @classmethod
    def from_arrays(cls, arrays) -> Forest:
        link = str(arrays["link"][0]) if "link" in arrays else "mean"
        if link not in LINKS:
            raise ValueError(f"unknown link {link!r}")
        baseline = float(arrays["baseline"][0]) if "baseline" in arrays else 0.0
        return cls(**{k: np.asarray(arrays[k]) for k in ("roots", "left", "right", "feature", "threshold", "proba")},
                   depth=int(arrays["depth"][0]), link=link, baseline=baseline)


# Exit-leaf evaluation (QuickScorer: Lucchese et al., SIGIR 2015), the trees' tests read feature by
# feature instead of node by node. The leaves of each tree are numbered from left to right, and
# each test that sends a row right rules out the leaves of its left subtree: the row's leaf is the
# leftmost leaf no failed test rules out. For each feature, the tests on it are sorted by their
# threshold, so that those a value fails are the first ones, and a table gives for each count of
# failed tests the leaves they leave, per tree (a bit mask). A row's leaf in every tree is then
# the lowest bit of the AND of one table row per feature. Features tested at a single threshold
# (most of the word scorer's: yes or no) are read six at a time through one table of 64 rows.
_EXIT_CELLS = 1 << 17  # (tree, row) masks evaluated at once: 512 KB or 1 MB
_EXIT_TABLE_CELLS = 1 << 22  # at most this many table entries (32 MB), else the trees are walked
_EXIT_GROUP = 6  # features of one threshold read together: 2**6 table rows


def _exit_tables_of(forest: Forest, dtype) -> tuple | None:
    """(mask dtype, groups of single-threshold features, features of several thresholds, the
    leaf values per tree and leaf number) of `forest`, or None when its trees cannot be read so."""
    left, right = forest.left, forest.right
    trees = len(forest.roots)
    if np.count_nonzero(left < 0) > 64 * trees:  # some tree has more than 64 leaves
        return None
    threshold = forest.threshold.astype(dtype)
    # Number the leaves of each tree from left to right; per test node, its tree and the mask of
    # the leaves of its left subtree.
    leaf_number = np.full(len(left), -1, dtype=np.int64)
    node_tree = np.full(len(left), -1, dtype=np.int64)
    first_leaf = np.zeros(len(left), dtype=np.int64)  # per node, its subtree's leftmost and rightmost leaf numbers
    last_leaf = np.zeros(len(left), dtype=np.int64)
    leaves = 0
    for tree, root in enumerate(forest.roots.tolist()):
        count, stack, order = 0, [root], []
        while stack:  # depth first, left before right: leaves come in left-to-right order
            node = stack.pop()
            if node_tree[node] != -1:
                return None  # a node shared by two trees, or a cycle: not a forest of trees
            node_tree[node] = tree
            order.append(node)
            if left[node] < 0:
                leaf_number[node] = count
                count += 1
                if count > 64:
                    return None
            else:
                stack += [right[node], left[node]]
        leaves = max(leaves, count)
        for node in reversed(order):  # children before parents
            if left[node] < 0:
                first_leaf[node] = last_leaf[node] = leaf_number[node]
            else:
                first_leaf[node], last_leaf[node] = first_leaf[left[node]], last_leaf[right[node]]
    mask_type = np.uint32 if leaves <= 32 else np.uint64
    tests = np.flatnonzero((left >= 0) & (node_tree >= 0))
    lo, hi = first_leaf[left[tests]], last_leaf[left[tests]]
    width = hi - lo + 1
    left_leaves = (((np.ones(len(tests), dtype=np.uint64) << width.astype(np.uint64)) - np.uint64(1))
                   << lo.astype(np.uint64))
    # A shift by 64 is undefined: a left subtree of all 64 leaves is all ones.
    left_leaves = np.where(width >= 64, np.uint64(0xFFFFFFFFFFFFFFFF), left_leaves).astype(mask_type)
    everything = np.asarray(np.iinfo(mask_type).max, dtype=mask_type)
    single, several, cells = [], [], 0
    for feature in unique(forest.feature[tests]).tolist():
        on = forest.feature[tests] == feature
        limits = unique(threshold[tests[on]])  # (finite: _check_forest)
        table = np.full((trees, len(limits) + 1), everything, dtype=mask_type)
        failed_from = np.searchsorted(limits, threshold[tests[on]]) + 1  # failed when more limits are below x
        # Each test rules its left leaves out from the first count of failed tests that fails it
        # on: marked there, then carried to the larger counts by a running AND along each row.
        np.bitwise_and.at(table, (node_tree[tests[on]], failed_from), ~left_leaves[on])
        np.bitwise_and.accumulate(table, axis=1, out=table)
        if len(limits) == 1:
            single.append((feature, limits[0], table))
        else:
            several.append((feature, limits, table))
            cells += table.size
    groups = []
    for at in range(0, len(single), _EXIT_GROUP):
        part = single[at : at + _EXIT_GROUP]
        codes = np.arange(1 << len(part))
        table = np.full((trees, len(codes)), everything, dtype=mask_type)
        for bit, (_, _, one) in enumerate(part):
            table &= one[:, (codes >> bit) & 1]
        groups.append((np.asarray([f for f, _, _ in part]), np.asarray([t for _, t, _ in part], dtype=dtype), table))
        cells += table.size
    if cells > _EXIT_TABLE_CELLS:
        return None
    # The leaf values tree after tree: the value of leaf number k of tree t is at t * leaves + k.
    values = np.zeros((trees, leaves))
    at_leaves = np.flatnonzero((leaf_number >= 0) & (node_tree >= 0))
    values[node_tree[at_leaves], leaf_number[at_leaves]] = forest.proba[at_leaves]
    # Row by row (one table row: a mask per tree), as they are read.
    groups = [(features, limits, np.ascontiguousarray(table.T)) for features, limits, table in groups]
    several = [(feature, limits, np.ascontiguousarray(table.T)) for feature, limits, table in several]
    return mask_type, groups, several, values.ravel(), leaves


def _exit_values(exits: tuple, X: np.ndarray) -> np.ndarray:
    """The value of the leaf each row of X reaches in each tree, (trees, rows) (_exit_tables_of)."""
    mask_type, groups, several, values, leaves = exits
    trees = len(values) // leaves
    masks = None  # (rows, trees)
    # (The table rows gathered by take, which costs less than indexing by an array; the columns of
    # X read one at a time made contiguous first.)
    for features, limits, table in groups:
        # A test fails (the row goes right) unless x <= threshold: NaN fails, as in the walk.
        code = ~(X[:, features] <= limits) @ (1 << np.arange(len(features)))
        if masks is None:
            masks = table.take(code, axis=0)
        else:
            masks &= table.take(code, axis=0)
    columns = X.T
    for feature, limits, table in several:
        column = np.ascontiguousarray(columns[feature])
        below = limits.searchsorted(column)  # limits < x: the tests x fails
        below[np.isnan(column)] = len(limits)
        if masks is None:
            masks = table.take(below, axis=0)
        else:
            masks &= table.take(below, axis=0)
    if masks is None:  # no tree tests anything: each is one leaf
        return np.repeat(values[::leaves][:, None], len(X), axis=1)
    masks &= -masks  # the lowest bit set: the leftmost leaf left
    # Its number is the exponent of the power of two it is, read from the bits of that power as
    # a float (exact: at most 2**31 in a float32, 2**63 in a float64), less the exponent's bias.
    if mask_type == np.uint32:
        number = masks.astype(np.float32).view(np.int32) >> 23
        bias = 127
    else:
        number = masks.astype(np.float64).view(np.int64) >> 52
        bias = 1023
    number += (np.arange(trees) * leaves - bias).astype(number.dtype)
    # Trees by rows, in memory too, as the walk gives them: the sums then add up in the same order.
    # (The leaf numbers are laid out so first: gathering through a transposed view costs ten times more.)
    return values[np.ascontiguousarray(number.T)]


LINKS = ("mean", "logistic")


def compile_boosting(classifier, positive=1) -> Forest:
    """Flatten a fitted binary HistGradientBoostingClassifier into a Forest (link "logistic")
    giving P(`positive`)."""
    classes = list(classifier.classes_)
    if len(classes) == 1:  # fitted on one class: the positive one always or never
        always = float(classes[0] == positive)
        one = np.zeros(1, dtype=np.int64)
        return Forest(one, one - 1, one - 1, one.copy(), np.zeros(1), np.asarray([always]), 1)
    if len(classes) != 2 or positive not in classes:
        raise BadModel("only a binary gradient boosting with the positive class can be saved for classify")
    sign = 1.0 if classes.index(positive) == 1 else -1.0
    roots, left, right, feature, threshold, value, depth, offset = [], [], [], [], [], [], 0, 0
    for (predictor,) in classifier._predictors:
        nodes = predictor.nodes
        if nodes["is_categorical"].any():
            raise BadModel("gradient boosting over categorical features cannot be saved for classify")
        is_leaf = nodes["is_leaf"].astype(bool)
        roots.append(offset)
        left.append(np.where(is_leaf, -1, nodes["left"].astype(np.int64) + offset))
        right.append(np.where(is_leaf, -1, nodes["right"].astype(np.int64) + offset))
        feature.append(np.where(is_leaf, 0, nodes["feature_idx"].astype(np.int64)))
        threshold.append(np.where(is_leaf, 0.0, nodes["num_threshold"].astype(np.float64)))
        value.append(sign * np.where(is_leaf, nodes["value"].astype(np.float64), 0.0))
        depth = max(depth, int(nodes["depth"].max()))
        offset += len(nodes)
    baseline = sign * float(np.asarray(classifier._baseline_prediction).ravel()[0])
    return Forest(
        np.asarray(roots, dtype=np.int64), np.concatenate(left), np.concatenate(right), np.concatenate(feature),
        np.concatenate(threshold), np.concatenate(value), depth + 1, link="logistic", baseline=baseline,
    )


def compile_forest(classifier, positive="TA") -> Forest:
    """Flatten a fitted decision tree, bagging, random forest or (binary) gradient boosting
    into a Forest giving P(`positive`)."""
    if hasattr(classifier, "_predictors"):
        return compile_boosting(classifier, positive)
    if hasattr(classifier, "estimators_features_"):  # bagging: trees see encoded labels
        trees = list(zip(classifier.estimators_, classifier.estimators_features_))
        encoded = True
    elif hasattr(classifier, "estimators_"):  # random forest: trees see the original classes
        trees = [(tree, np.arange(classifier.n_features_in_)) for tree in classifier.estimators_]
        encoded = False
    elif hasattr(classifier, "tree_"):
        trees = [(classifier, np.arange(classifier.n_features_in_))]
        encoded = False
    else:
        raise BadModel("only decision trees, bagged trees and random forests can be saved for classify")
    classes = classifier.classes_
    ta = list(classes).index(positive)
    roots, left, right, feature, threshold, proba, depth, offset = [], [], [], [], [], [], 0, 0
    for tree, features in trees:
        t = tree.tree_
        value = t.value[:, 0, :]
        value = value / value.sum(axis=1, keepdims=True)
        # Bagging fits each tree on encoded labels: its column j is classes_[tree.classes_[j]].
        tree_classes = [int(c) for c in tree.classes_] if encoded else list(range(len(classes)))
        p_ta = value[:, tree_classes.index(ta)] if ta in tree_classes else np.zeros(len(value))
        is_leaf = t.children_left < 0
        roots.append(offset)
        left.append(np.where(is_leaf, -1, t.children_left + offset))
        right.append(np.where(is_leaf, -1, t.children_right + offset))
        feature.append(np.where(is_leaf, 0, np.asarray(features)[np.maximum(t.feature, 0)]))
        threshold.append(t.threshold.astype(np.float64))
        proba.append(p_ta)
        depth = max(depth, int(t.max_depth))
        offset += t.node_count
    return Forest(
        np.asarray(roots, dtype=np.int64), np.concatenate(left).astype(np.int64),
        np.concatenate(right).astype(np.int64), np.concatenate(feature).astype(np.int64),
        np.concatenate(threshold), np.concatenate(proba).astype(np.float64), depth + 1,
    )


# ---------------------------------------------------------------------- model files


@dataclass
class Predictor:
    """What classify needs: how to compute features, the message forest and, when the model
    was trained with gold spans, the word scorer and the calibration of the expert budget."""

    metadata: dict
    forest: Forest
    word_forest: Forest | None = None
    spelling: object | None = None  # triage.model.names.NameLikeness
    risk_quantiles: np.ndarray | None = None
    # What the word scorer's training corpus counts of the ordinary words: the prior of a smaller
    # corpus' counts (triage.model.names.CorpusStats, corpus_prior); None in older model files.
    corpus_prior: object | None = None

    def corpus_stats(self, texts=()):
        """The counts of a corpus for this model's word scorer (triage.model.names.CorpusStats):
        read at its training corpus' size, with its prior; `texts` counted already."""
        from triage.model.names import CorpusStats

        return CorpusStats(reference=self.word_scorer_size, prior=self.corpus_prior).add(texts)

    @property
    def feature_set(self) -> str:
        return self.metadata["feature_set"]

    @property
    def normalise(self) -> bool:
        return bool(self.metadata["normalise"])

    def predict_proba(self, X: np.ndarray) -> np.ndarray:
        return self.forest.predict_proba(X)

    def prepare(self) -> None:
        """Make what predicting reads of the forests now (Forest.prepare)."""
        for forest in (self.forest, self.word_forest):
            if forest is not None:
                forest.prepare()

    @property
    def word_scorer_size(self) -> int | None:
        """The size of the corpus the word scorer learnt from: its corpus counts are read as
        rates of a corpus that size (triage.model.names.CorpusStats). A model trained from labels
        alone keeps another model's scorer, and says how large that one's corpus was."""
        kept = self.metadata.get("word_scorer")
        return kept["training_size"] if kept else self.metadata.get("training_size")

    def risk_threshold(self, budget: float) -> float:
        """The risk above which about `budget` of messages like the training ones go to the
        expert (quantiles of cross-validated risks on the training data)."""
        if self.risk_quantiles is None or budget <= 0:
            return float("inf")
        if budget >= 1:
            return float("-inf")
        return float(np.quantile(self.risk_quantiles, 1.0 - budget))


@component("model", requires=["features"], assigns=["scores"])
def _scores(context, batch) -> None:
    """The pipeline's component: the context's `predictor`'s P(TA) of each message."""
    batch.scores = context.predictor.predict_proba(batch.features)


def model_bytes(model, *, training_size: int, class_counts: dict, seed: int, word_model=None, spelling=None,
                risk_quantiles=None, policy: dict | None = None, word_scorer: dict | None = None,
                corpus_prior=None) -> tuple[bytes, dict]:
    """A model file's bytes (a zip) and its sealed metadata. `word_model` is a fitted forest or,
    for a model trained from labels alone, the compiled Forest of the scorer it keeps, described
    by `word_scorer` (where it comes from and the size of its training corpus). `corpus_prior`
    (triage.model.names.corpus_prior) is what the scorer's training corpus counts of the
    ordinary words."""
    import imblearn
    import sklearn
    import skops
    import skops.io

    from triage import lexicons
    from triage.version import __version__

    features = model.named_steps["features"]
    classifier = model.named_steps["classifier"]
    forest = compile_forest(classifier)
    buffer = _io.BytesIO()
    np.savez(buffer, **forest.arrays())
    members = {"model.skops": skops.io.dumps(model), "forest.npz": buffer.getvalue()}
    if word_model is not None:
        buffer = _io.BytesIO()
        trigrams = sorted(spelling.trigrams)
        np.savez(
            buffer,
            **(word_model if isinstance(word_model, Forest) else compile_forest(word_model, positive=1)).arrays(),
            trigrams=np.asarray(trigrams, dtype=str),
            trigram_scores=np.asarray([spelling.trigrams[g] for g in trigrams]),
            prefixes=np.asarray(sorted(spelling.prefixes), dtype=str),
            **({f"letter_{name}": array for name, array in spelling.letters.arrays().items()}
               if getattr(spelling, "letters", None) is not None else {}),
            risk_quantiles=np.asarray(risk_quantiles, dtype=float),
            **(_prior_arrays(corpus_prior) if corpus_prior is not None else {}),
        )
        members["names.npz"] = buffer.getvalue()
    metadata = {
        "format": FORMAT,
        "kind": "bagging" if hasattr(classifier, "estimators_") else "tree",
        "feature_set": features.feature_set,
        "normalise": features.normalise,
        "feature_names": list(features.get_feature_names_out()),
        "lexicon_fingerprint": lexicons.default().fingerprint,
        "versions": {
            "sms-triage": __version__, "scikit-learn": sklearn.__version__, "imbalanced-learn": imblearn.__version__,
            "numpy": np.__version__, "skops": skops.__version__,
        },
        "training_size": training_size,
        "class_counts": class_counts,
        "seed": seed,
        "word_features": list(_word_features()) if word_model is not None else None,
        "policy": policy or {"name": "paper"},
        **({"word_scorer": word_scorer} if word_scorer else {}),
        # What names.npz keeps of the training corpus (for the train summary and the curious).
        **({"letters": {"n_grams": len(spelling.letters.keys_)}}
           if word_model is not None and getattr(spelling, "letters", None) is not None else {}),
        **({"corpus_prior": {"messages": corpus_prior.messages, "words": len(corpus_prior.counts),
                             "capitalised": len(corpus_prior.capitalised)}}
           if corpus_prior is not None and word_model is not None else {}),
        "created": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "sha256": {name: hashlib.sha256(data).hexdigest() for name, data in members.items()},
    }
    metadata["metadata_sha256"] = metadata_digest(metadata)
    raw = _io.BytesIO()
    with zipfile.ZipFile(raw, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("metadata.json", json.dumps(metadata, indent=2, sort_keys=True))
        for name, data in members.items():
            archive.writestr(name, data)
    return raw.getvalue(), metadata


def _prior_arrays(prior) -> dict[str, np.ndarray]:
    (lower_keys, lower_counts), (capital_keys, capital_counts) = prior.counts.arrays(), prior.capitalised.arrays()
    return {"prior_messages": np.asarray([prior.messages], dtype=np.int64),
            "prior_lower_keys": lower_keys, "prior_lower_counts": lower_counts,
            "prior_capital_keys": capital_keys, "prior_capital_counts": capital_counts}


MAX_PRIOR_SPELLINGS = 2_000_000  # more than the word lists hold


def _prior_of(arrays, path) -> object | None:
    """The corpus prior a model file keeps (None when it keeps none), checked: sorted distinct
    keys, one positive count each, a positive corpus size."""
    from triage.model.names import CorpusStats, WordCounts

    if "prior_messages" not in arrays:
        return None
    prior = CorpusStats()
    messages = np.asarray(arrays["prior_messages"])
    if messages.shape != (1,) or messages.dtype.kind not in "iu" or int(messages[0]) < 1:
        raise BadModel(f"{path} is not a valid model file: the corpus prior has no corpus size")
    prior.messages = int(messages[0])

    def counts(name: str) -> WordCounts:
        keys, values = np.asarray(arrays[f"prior_{name}_keys"]), np.asarray(arrays[f"prior_{name}_counts"])
        if keys.dtype != np.uint64 or values.dtype.kind not in "iu" or keys.ndim != 1 or keys.shape != values.shape \
                or len(keys) > MAX_PRIOR_SPELLINGS or np.any(keys[1:] <= keys[:-1]) or np.any(values < 1):
            raise BadModel(f"{path} is not a valid model file: the corpus prior's counts are not sorted keys "
                           "with positive counts")
        return WordCounts.from_arrays(keys, values.astype(np.int64))

    prior.counts, prior.capitalised = counts("lower"), counts("capital")
    return prior


def _word_features():
    from triage.model.names import WORD_FEATURES

    return WORD_FEATURES


def _model_file(path: Path | str) -> Path:
    """A model path that names an existing file."""
    path = Path(path)
    if path.is_dir():
        raise BadModel(f"model file {path} is a folder")
    if not path.is_file():
        raise BadModel(f"model file {path} does not exist")
    return path


def file_of(model: "Path | Model | None") -> Path | None:
    """The file a model comes from (None for the embedded default or a model trained in memory)."""
    return model.path if isinstance(model, Model) else model


def _open(path: Path | str, data: bytes | None = None) -> tuple[zipfile.ZipFile, dict, dict[str, bytes]]:
    """The checked archive and metadata of a model file, or of its bytes (`data`, with `path`
    naming it in messages), and the bytes of each member the metadata checksums, checked
    (read and inflated once: _checked)."""
    if data is None:
        path = _model_file(path)
    try:
        archive = zipfile.ZipFile(path if data is None else _io.BytesIO(data))
        _check_sizes(archive, path)
        metadata = json.loads(_read_bounded(archive, "metadata.json"))
    except (zipfile.BadZipFile, zlib.error, KeyError, ValueError, OSError, EOFError, NotImplementedError) as error:
        raise BadModel(f"{path} is not an sms-triage model file ({error.__class__.__name__})") from None
    if not isinstance(metadata, dict):
        raise BadModel(f"{path} is not an sms-triage model file (bad metadata.json)")
    if metadata.get("format") != FORMAT:
        if metadata.get("format") == "sms-triage-model/1":
            raise BadModel(f"{path} was written by an older sms-triage (format 1, whose settings are not "
                             "checksummed); retrain it with `triage train`")
        raise BadModel(f"{path} is a model of format {metadata.get('format')!r}; this version reads {FORMAT!r}")
    if metadata.get("metadata_sha256") != metadata_digest(metadata):
        raise BadModel(f"{path} is damaged or was modified: metadata.json does not match its checksum")
    if not isinstance(metadata.get("sha256"), dict):
        raise BadModel(f"{path} is damaged or was modified: metadata.json has no checksums")
    _check_metadata(metadata, path)
    # Any modified member makes the whole file suspect, even one this command does not use
    # (report tree reads model.skops, classify the .npz arrays).
    members = {name: _member(archive, metadata, name, path) for name in metadata["sha256"]}
    return archive, metadata, members


def _checked(opened: tuple[zipfile.ZipFile, dict, dict[str, bytes]], name: str, path: Path) -> bytes:
    """The checked bytes of the member `name` of a model file _open opened (one it does not
    checksum is refused as _member refuses it)."""
    archive, metadata, members = opened
    return members[name] if name in members else _member(archive, metadata, name, path)


def _member(archive: zipfile.ZipFile, metadata: dict, name: str, path: Path) -> bytes:
    try:
        data = _read_bounded(archive, name)
    except KeyError:
        raise BadModel(f"{path} is not an sms-triage model file (no {name})") from None
    except (zipfile.BadZipFile, zlib.error, EOFError, OSError, NotImplementedError) as error:  # a corrupt byte: bad CRC,
        # bad deflate, an unknown compression method
        raise BadModel(f"{path} is damaged: {name} cannot be read ({error.__class__.__name__})") from None
    if hashlib.sha256(data).hexdigest() != metadata.get("sha256", {}).get(name):
        raise BadModel(f"{path} is damaged or was modified: {name} does not match its checksum")
    return data


def metadata_digest(metadata: dict) -> str:
    """SHA-256 of the metadata (all but this digest), canonical JSON: the policy, budget
    calibration and every setting that changes decisions are under the check."""
    body = {k: v for k, v in metadata.items() if k != "metadata_sha256"}
    return hashlib.sha256(json.dumps(body, sort_keys=True, ensure_ascii=True).encode()).hexdigest()


def _check_sizes(archive: zipfile.ZipFile, path: Path) -> None:
    """Refuse a decompression bomb before inflating anything (zip headers can lie too:
    members are also read with a bound, see _read_bounded)."""
    total = 0
    for info in archive.infolist():
        total += info.file_size
        ratio = info.file_size / max(info.compress_size, 1)
        if info.file_size > MAX_MEMBER_BYTES or total > MAX_TOTAL_BYTES or (info.file_size > 2**20 and ratio > MAX_RATIO):
            raise BadModel(f"{path} is not a plausible model file: {info.filename} would inflate to "
                             f"{info.file_size:,} bytes")


def _read_bounded(archive: zipfile.ZipFile, name: str) -> bytes:
    with archive.open(name) as member:
        data = member.read(MAX_MEMBER_BYTES + 1)
    if len(data) > MAX_MEMBER_BYTES:
        raise zipfile.BadZipFile(f"{name} inflates beyond {MAX_MEMBER_BYTES:,} bytes")
    return data


def _finite(value, low: float = -np.inf, high: float = np.inf) -> bool:
    return (isinstance(value, (int, float)) and not isinstance(value, bool) and np.isfinite(value)
            and low <= value <= high)


def _check_metadata(metadata: dict, path: Path) -> None:
    """Every value that steers decisions has the right type and range."""
    from triage.combiner import POLICIES
    from triage.features import FEATURE_SETS

    def bad(what: str) -> InputError:
        return BadModel(f"{path} is not a valid model file: {what}")

    if metadata.get("kind") not in KINDS[1:]:
        raise bad(f"kind {metadata.get('kind')!r}")
    if metadata.get("feature_set") not in FEATURE_SETS:
        raise bad(f"feature set {metadata.get('feature_set')!r}")
    if not isinstance(metadata.get("normalise"), bool):
        raise bad("normalise is not true or false")
    names = metadata.get("feature_names")
    if not isinstance(names, list) or not names or not all(isinstance(n, str) for n in names) or len(names) > 1000:
        raise bad("feature names")
    size = metadata.get("training_size")
    if size is not None and not (isinstance(size, int) and not isinstance(size, bool) and size > 0):
        raise bad(f"training size {size!r}")
    policy = metadata.get("policy") or {"name": "paper"}
    if not isinstance(policy, dict) or policy.get("name") not in POLICIES:
        raise bad(f"policy {policy!r}")
    for key, value in policy.items():
        if key != "name" and not _finite(value, 0.0, 1.0):
            raise bad(f"policy setting {key} = {value!r} (a number between 0 and 1)")
    if not isinstance(metadata.get("lexicon_fingerprint"), str):
        raise bad("lexicon fingerprint")
    kept = metadata.get("word_scorer")
    if kept is not None and not (isinstance(kept, dict) and isinstance(kept.get("source"), str)
                                 and isinstance(kept.get("training_size"), int)
                                 and not isinstance(kept.get("training_size"), bool) and kept["training_size"] > 0):
        raise bad(f"word scorer {kept!r}")


def _check_forest(forest: Forest, n_features: int, path: Path, what: str) -> None:
    """Arrays of the right shapes and ranges, trees that end: children after their parent
    (as scikit-learn numbers them) so no walk can loop, and a bounded depth."""
    def bad(reason: str) -> InputError:
        return BadModel(f"{path} is not a valid model file: {what} {reason}")

    arrays = (forest.left, forest.right, forest.feature, forest.threshold, forest.proba)
    n = len(forest.left)
    if n == 0 or n > MAX_NODES or any(a.ndim != 1 or len(a) != n for a in arrays) or forest.roots.ndim != 1:
        raise bad("has arrays of inconsistent or excessive sizes")
    if not all(np.issubdtype(a.dtype, np.integer) for a in (forest.roots, forest.left, forest.right, forest.feature)):
        raise bad("has node or feature indices that are not integers")
    if not all(np.issubdtype(a.dtype, np.floating) for a in (forest.threshold, forest.proba)):
        raise bad("has thresholds or probabilities that are not numbers")
    if not 0 < len(forest.roots) <= 10_000 or forest.roots.min() < 0 or forest.roots.max() >= n:
        raise bad("has roots out of range")
    if not 0 <= forest.depth <= MAX_DEPTH:
        raise bad(f"has a depth of {forest.depth} (at most {MAX_DEPTH})")
    leaf = forest.left < 0
    nodes = np.arange(n)
    inner = ~leaf
    if np.any(leaf != (forest.right < 0)):
        raise bad("has nodes with one child")
    if np.any(forest.left[inner] <= nodes[inner]) or np.any(forest.right[inner] <= nodes[inner]) \
            or np.any(forest.left[inner] >= n) or np.any(forest.right[inner] >= n):
        raise bad("has children out of range or before their parent (a cycle)")
    if not np.all(np.isfinite(forest.threshold[inner])):
        raise bad("has thresholds that are not finite")
    if forest.link == "mean" and not np.all((forest.proba >= 0) & (forest.proba <= 1)):
        raise bad("has probabilities outside [0, 1]")
    if forest.link != "mean" and not (np.all(np.isfinite(forest.proba)) and np.isfinite(forest.baseline)):
        raise bad("has leaf values that are not finite")
    if forest.feature[inner].size and (forest.feature[inner].min() < 0 or forest.feature[inner].max() >= n_features):
        raise bad("refers to features that do not exist")
    # The walk runs `depth` steps: every leaf must be reached within them.
    frontier = unique(forest.roots)
    for _ in range(forest.depth + 1):
        frontier = frontier[~leaf[frontier]]
        if not frontier.size:
            break
        frontier = unique(np.concatenate([forest.left[frontier], forest.right[frontier]]))  # a DAG stays small
    else:
        raise bad(f"has leaves deeper than its declared depth {forest.depth}")


def check_lexicons(metadata: dict, path: Path) -> None:
    from triage import lexicons

    current = lexicons.default().fingerprint
    if metadata.get("lexicon_fingerprint") != current:
        raise BadModel(
            f"{path} was trained with other lexicons (fingerprint {metadata.get('lexicon_fingerprint')}, "
            f"now {current}); retrain it with `triage train`"
        )


def load_predictor(path: "Path | Model") -> Predictor:
    """The model for classify: metadata and forest only (numpy, no pickle, no scikit-learn)."""
    if isinstance(path, Model):
        return path.predictor
    return _predictor(path)


def _predictor(path: Path | str, data: bytes | None = None) -> Predictor:
    opened = _open(path, data)
    archive, metadata, _ = opened
    check_lexicons(metadata, path)
    data = _checked(opened, "forest.npz", path)
    try:
        with np.load(_io.BytesIO(data), allow_pickle=False) as arrays:
            forest = Forest.from_arrays(arrays)
    except (ValueError, KeyError, OSError, IndexError, TypeError, EOFError) as error:
        raise BadModel(f"{path}: unreadable forest ({error.__class__.__name__})") from None
    _check_forest(forest, len(metadata["feature_names"]), path, "message forest")
    predictor = Predictor(metadata, forest)
    # What `triage train` writes: the budget policy with a word scorer, the paper's without.
    # A re-signed file whose policy was switched (anyone can recompute checksums) is refused.
    has_scorer = "names.npz" in archive.namelist()
    if ((metadata.get("policy") or {}).get("name", "paper") == "budget") != has_scorer:
        raise BadModel(f"{path} is not a valid model file: its policy does not match its word scorer "
                         "(a model trained with spans uses the budget policy, one without spans the paper's)")
    if has_scorer:
        from triage.model.names import WORD_FEATURES, NameLikeness

        if metadata.get("word_features") != list(WORD_FEATURES):
            raise BadModel(f"{path} was trained with other word features; retrain it with `triage train`")
        data = _checked(opened, "names.npz", path)
        try:
            with np.load(_io.BytesIO(data), allow_pickle=False) as arrays:
                predictor.word_forest = Forest.from_arrays(arrays)
                predictor.spelling = NameLikeness(
                    dict(zip(arrays["trigrams"].tolist(), arrays["trigram_scores"].tolist())),
                    frozenset(arrays["prefixes"].tolist()),
                    _letters_of(arrays, path),
                )
                predictor.risk_quantiles = np.asarray(arrays["risk_quantiles"], dtype=float)
                predictor.corpus_prior = _prior_of(arrays, path)
        except (ValueError, KeyError, OSError, IndexError, TypeError, EOFError) as error:
            raise BadModel(f"{path}: unreadable word scorer ({error.__class__.__name__})") from None
        _check_forest(predictor.word_forest, len(WORD_FEATURES), path, "word scorer")
        quantiles = predictor.risk_quantiles
        if quantiles.ndim != 1 or not 2 <= len(quantiles) <= 100_000 or not np.all(np.isfinite(quantiles)) \
                or np.any(np.diff(quantiles) < 0):
            raise BadModel(f"{path} is not a valid model file: the budget calibration is not an ordered list of numbers")
        if not all(map(math.isfinite, predictor.spelling.trigrams.values())):
            raise BadModel(f"{path} is not a valid model file: spelling scores that are not finite")
    return predictor


def _letters_of(arrays, path):
    """The letter model a word scorer learnt with its spans (triage.model.letters), if any."""
    if "letter_keys" not in arrays:
        return None
    from triage.model.letters import LetterModel

    letters = LetterModel.from_arrays({name: arrays[f"letter_{name}"] for name in ("keys", "weights", "intercept")})
    if letters.keys_.ndim != 1 or letters.weights_.shape != letters.keys_.shape or np.any(letters.keys_[1:] <= letters.keys_[:-1]) \
            or not np.all(np.isfinite(letters.weights_)) or not np.isfinite(letters.intercept_):
        raise BadModel(f"{path} is not a valid model file: its letter model is not a sorted table of finite weights")
    return letters


def load_estimator(path: "Path | Model"):
    """The whole fitted pipeline (for reports): skops with an allow-list of types."""
    import skops.io

    if isinstance(path, Model):
        opened = _open(path.name, path.data)
        path = path.name
    else:
        opened = _open(path)
    metadata = opened[1]
    data = _renamed_modules(_checked(opened, "model.skops", path), path)
    untrusted = set(skops.io.get_untrusted_types(data=data))
    refused = sorted(untrusted - ALLOWED_TYPES)
    if refused:
        raise BadModel(f"{path} holds types outside the allow-list, refused: {', '.join(refused)}")
    return skops.io.loads(data, trusted=sorted(untrusted)), metadata


# Model files written before the features package moved inside triage name its old place.
_OLD_MODULES = {"features": "triage.features"}


def _renamed_modules(data: bytes, path: Path) -> bytes:
    """The skops archive with the modules named by older versions of sms-triage renamed (its
    types are then checked against the allow-list like any other)."""
    with zipfile.ZipFile(_io.BytesIO(data)) as archive:
        try:
            schema = json.loads(archive.read("schema.json"))
        except (KeyError, ValueError, zipfile.BadZipFile) as error:
            raise BadModel(f"{path} is not a valid model file: its estimator is unreadable ({error})") from None

        def renamed(node):
            if isinstance(node, dict):
                return {key: _new_module(value) if key == "__module__" else renamed(value) for key, value in node.items()}
            if isinstance(node, list):
                return [renamed(item) for item in node]
            return node

        new_schema = renamed(schema)
        if new_schema == schema:
            return data
        buffer = _io.BytesIO()
        with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as out:
            for member in archive.infolist():
                content = archive.read(member)
                if member.filename == "schema.json":
                    content = json.dumps(new_schema).encode()
                out.writestr(member, content)
    return buffer.getvalue()


def _new_module(module):
    if not isinstance(module, str):
        return module
    top, dot, rest = module.partition(".")
    return _OLD_MODULES[top] + dot + rest if top in _OLD_MODULES else module


def default_model_path() -> Path:
    """The embedded default model, data/default.triage: next to the package in a source
    checkout or editable install, inside it (as triage/data) in a built wheel."""
    package = Path(__file__).resolve().parent.parent  # triage/, from triage/model/
    for folder in (package.parent / "data", package / "data"):
        if (folder / "default.triage").is_file():
            return folder / "default.triage"
    return package.parent / "data" / "default.triage"


def recorded_evaluation(metadata: dict) -> dict | None:
    """The evaluation recorded beside the embedded model (data/default_evaluation.json) when
    `metadata` is that model's, else None: its expected residual and over-masking, for the
    datasheet of a corpus it classifies."""
    path = default_model_path().with_name("default_evaluation.json")
    try:
        recorded = json.loads(path.read_text("utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(recorded, dict) or recorded.get("metadata_sha256") != metadata.get("metadata_sha256"):
        return None
    found = recorded.get("evaluation")
    return found if isinstance(found, dict) else None


class Model:
    """A model: what `triage train` writes and `triage classify --model` reads, held in memory
    with the same checks as a file (checksums, bounds, allow-listed types, these lexicons)."""

    def __init__(self, data: bytes, *, path: str | Path | None = None):
        self.data = bytes(data)
        self.path = Path(path) if path is not None else None
        self.predictor = _predictor(self.name, self.data)  # every check, once
        self.metadata = self.predictor.metadata

    @property
    def name(self) -> str:
        return str(self.path) if self.path is not None else "the trained model"

    @classmethod
    def load(cls, path: str | Path) -> "Model":
        """A model file, checked as `triage classify --model` checks it."""
        path = _model_file(path)
        if path.stat().st_size > MAX_TOTAL_BYTES:
            raise BadModel(f"{path} is not a plausible model file ({path.stat().st_size:,} bytes)")
        return cls(path.read_bytes(), path=path)

    @classmethod
    def default(cls) -> "Model":
        """The embedded default model."""
        return cls.load(default_model_path())

    def save(self, path: str | Path, *, force: bool = False) -> Path:
        """Write the model file (never over its own file or an installed one; an existing file
        only with `force`)."""
        from triage.io import outputs

        return outputs.write_bytes(Path(path), self.data, force=force, private=False,
                                   protect=[self.path] if self.path else ())

    def estimator(self):
        """The fitted scikit-learn pipeline (features -> undersampling -> trees)."""
        return load_estimator(self)[0]

    def __repr__(self) -> str:
        m = self.metadata
        trained = f", trained on {m['training_size']:,} messages" if isinstance(m.get("training_size"), int) else ""
        policy = (m.get("policy") or {}).get("name", "paper")
        return (f"Model({self.name}: {m['kind']}, features {m['feature_set']}, policy {policy}{trained}, "
                f"fingerprint {str(m.get('metadata_sha256', ''))[:12]})")
