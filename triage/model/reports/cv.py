"""How well the message model does (the paper's section 6.3, Table 6): stratified k-fold
cross-validation and the paper's time-ordered holdout, for the 50% baseline, the decision
tree and the bagged trees.

Undersampling to 1:1 is part of the model (triage.model.make_model), so it runs inside each
training fold only; the test folds keep the corpus's natural class balance. The features
are stateless (each message's counts depend on that message alone), so they are computed
once for all messages and only the rest of the pipeline (undersampler + classifier) is
cross-validated.

Everything here returns plain data (`Evaluation`, `ModelScores`); triage/model/reports/render.py
turns it into Markdown, JSON and PNG, and the CLI prints and writes.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

import numpy as np

from triage.errors import BadInput, BadOption
from triage.io.messages import source_name
from triage.model import CLASSES, KINDS, check_folds, check_training_labels
from triage.model.gold import labelled_texts
from triage.pipeline.progress import progress as show_progress

NTA, TA = CLASSES
MODEL_TITLES = {"baseline": "Baseline (uniform random)", "tree": "Decision tree", "bagging": "Bagging DT"}
# The paper's accuracies (section 6.3), for comparison in the reports.
PAPER_CV_ACCURACY = {"baseline": 0.5, "tree": 0.778, "bagging": 0.794}
PAPER_HOLDOUT_ACCURACY = {"tree": 0.746, "bagging": 0.769}
# Table 6 (bagged DT, 10-fold CV on the undersampled 529 + 529 messages), Model x Real.
PAPER_TABLE6 = [[383, 72], [146, 457]]
THRESHOLD = 0.5
DECISION_RULE = "TA when P(TA) >= 0.5, as the `model` column of `triage classify` (the baseline: its own coin toss)"


@dataclass
class ModelScores:
    """The metrics of one model on the messages it was tested on."""

    kind: str
    accuracy: float
    balanced_accuracy: float
    roc_auc: float | None  # None when the test messages hold one class only
    # The paper's Table 6 layout: rows Model: NTA / Model: TA, columns Real: NTA / Real: TA.
    confusion: list[list[int]]
    # {class: {precision, recall, f_measure, support}}
    per_class: dict[str, dict[str, float]]
    fold_accuracy: list[float] = field(default_factory=list)  # cross-validation only

    @property
    def title(self) -> str:
        return MODEL_TITLES.get(self.kind, self.kind)

    def to_dict(self) -> dict:
        return {
            "kind": self.kind, "accuracy": self.accuracy, "balanced_accuracy": self.balanced_accuracy,
            "roc_auc": self.roc_auc,
            "confusion": {
                f"Model: {predicted}": {f"Real: {real}": self.confusion[i][j] for j, real in enumerate(CLASSES)}
                for i, predicted in enumerate(CLASSES)
            },
            "per_class": self.per_class,
            **({"fold_accuracy": self.fold_accuracy} if self.fold_accuracy else {}),
        }


@dataclass
class Predictions:
    """Out-of-sample predictions of each model, aligned with `y` (for reuse and tests)."""

    y: np.ndarray  # gold labels "TA"/"NTA"
    proba: dict[str, np.ndarray]  # kind -> P(TA)
    labels: dict[str, np.ndarray]  # kind -> predicted "TA"/"NTA"
    fold: np.ndarray | None = None  # test fold of each message (cross-validation)


@dataclass
class Evaluation:
    """One `triage report cv` or `report holdout` run."""

    report: str  # "cv" or "holdout"
    input: str
    feature_set: str
    normalise: bool
    seed: int
    messages: int  # messages tested
    class_counts: dict[str, int]  # of the messages tested
    settings: dict  # folds, or train_first / test_next / training class counts
    models: dict[str, ModelScores]
    predictions: Predictions | None = None

    def to_dict(self) -> dict:
        return {
            "report": self.report, "input": self.input, "feature_set": self.feature_set,
            "normalise": self.normalise, "seed": self.seed, "messages": self.messages,
            "class_counts": self.class_counts, "settings": self.settings, "decision_rule": DECISION_RULE,
            "models": {kind: scores.to_dict() for kind, scores in self.models.items()},
        }


# ---------------------------------------------------------------------- building blocks


def message_features(texts: list[str], feature_set: str = "paper", normalise: bool = False) -> tuple[np.ndarray, list[str]]:
    """The feature matrix of the messages and its column names (the model's first step)."""
    from triage.features import MessageFeatures, messages_column

    column = messages_column(texts)
    extractor = MessageFeatures(feature_set=feature_set, normalise=normalise).fit(column)
    return extractor.transform(column), [str(n) for n in extractor.get_feature_names_out()]


def rest_of_model(kind: str, seed: int = 0):
    """The model after its feature step: undersampler (1:1) -> classifier, as in `triage train`."""
    from imblearn.pipeline import Pipeline

    from triage.model import make_model

    return Pipeline(make_model(kind, seed=seed).steps[1:])


def _ta_proba(estimator, X) -> np.ndarray:
    proba = estimator.predict_proba(X)
    return proba[:, list(estimator.classes_).index(TA)].astype(float)


def _predict(kind: str, estimator, X) -> tuple[np.ndarray, np.ndarray]:
    """(P(TA), predicted labels) for a fitted model."""
    proba = _ta_proba(estimator, X)
    if kind == "baseline":
        # Its P(TA) is a constant 0.5: thresholding it would always say TA, not toss a coin.
        return proba, np.asarray(estimator.predict(X), dtype=object)
    # classify's rule (ties go to TA), not scikit-learn's predict (ties go to the first class).
    return proba, np.where(proba >= THRESHOLD, TA, NTA).astype(object)


def scores(kind: str, y_true, predicted, proba, fold: np.ndarray | None = None) -> ModelScores:
    """Accuracy, balanced accuracy, ROC AUC, Table-6 confusion matrix and per-class P/R/F."""
    from sklearn.metrics import (
        accuracy_score,
        balanced_accuracy_score,
        confusion_matrix,
        precision_recall_fscore_support,
        roc_auc_score,
    )

    y_true = np.asarray(y_true, dtype=object)
    predicted = np.asarray(predicted, dtype=object)
    y_binary = (y_true == TA).astype(int)
    auc = float(roc_auc_score(y_binary, proba)) if len(set(y_binary)) == 2 else None
    # scikit-learn puts the real class in rows; the paper puts the model's answer there.
    confusion = confusion_matrix(y_true, predicted, labels=list(CLASSES)).T
    precision, recall, f_measure, support = precision_recall_fscore_support(
        y_true, predicted, labels=list(CLASSES), zero_division=0
    )
    with warnings.catch_warnings():
        # A test set of one class (a short holdout) is legitimate: its balanced accuracy is
        # that class's recall, which is what scikit-learn computes while warning about it.
        warnings.simplefilter("ignore", UserWarning)
        balanced = float(balanced_accuracy_score(y_true, predicted))
    per_class = {
        c: {"precision": float(precision[i]), "recall": float(recall[i]), "f_measure": float(f_measure[i]),
            "support": int(support[i])}
        for i, c in enumerate(CLASSES)
    }
    fold_accuracy = []
    if fold is not None:
        fold_accuracy = [float(np.mean(predicted[fold == k] == y_true[fold == k])) for k in np.unique(fold)]
    return ModelScores(
        kind=kind,
        accuracy=float(accuracy_score(y_true, predicted)),
        balanced_accuracy=balanced,
        roc_auc=auc,
        confusion=confusion.astype(int).tolist(),
        per_class=per_class,
        fold_accuracy=fold_accuracy,
    )


def _counts(labels) -> dict[str, int]:
    labels = list(labels)
    return {c: labels.count(c) for c in CLASSES}


# ---------------------------------------------------------------------- cross-validation


def cross_validate(
    X,
    y,
    *,
    folds: int = 10,
    seed: int = 0,
    kinds: Iterable[str] = KINDS,
    make_pipeline: Callable[[str, int], object] = rest_of_model,
    progress: bool = False,
) -> Predictions:
    """Out-of-fold P(TA) and labels of each model, by stratified k-fold (shuffled, seeded).

    For each fold, a fresh `make_pipeline(kind, seed)` is fitted on the training part and
    predicts the test part as it is. This is what scikit-learn's
    cross_val_predict(..., method="predict_proba") does (a test checks that they agree),
    written out so that a progress bar can follow the folds and the baseline can keep
    its own coin toss.
    """
    from sklearn.base import clone
    from sklearn.model_selection import StratifiedKFold

    X = np.asarray(X, dtype=float)
    y = np.asarray(y, dtype=object)
    kinds = list(kinds)
    splitter = StratifiedKFold(n_splits=folds, shuffle=True, random_state=seed)
    prototypes = {kind: make_pipeline(kind, seed) for kind in kinds}
    proba = {kind: np.zeros(len(y)) for kind in kinds}
    labels = {kind: np.empty(len(y), dtype=object) for kind in kinds}
    fold_of = np.full(len(y), -1)
    splits = splitter.split(X, y)
    if progress:
        splits = show_progress(splits, f"{folds}-fold cross-validation", total=folds)
    for k, (train, test) in enumerate(splits):
        fold_of[test] = k
        for kind in kinds:
            estimator = clone(prototypes[kind]).fit(X[train], y[train])
            proba[kind][test], labels[kind][test] = _predict(kind, estimator, X[test])
    return Predictions(y=y, proba=proba, labels=labels, fold=fold_of)


def run_cv(
    input_path,
    *,
    folds: int = 10,
    seed: int = 0,
    feature_set: str = "paper",
    normalise: bool = False,
    read=None,
    progress: bool = False,
) -> Evaluation:
    """`triage report cv`: k-fold cross-validation of the baseline, the tree and bagging."""
    texts, labels = labelled_texts(input_path, read)
    counts = check_training_labels(labels)
    check_folds(folds, counts, source_name(input_path))
    X, _ = message_features(texts, feature_set, normalise)
    predictions = cross_validate(X, labels, folds=folds, seed=seed, progress=progress)
    models = {
        kind: scores(kind, predictions.y, predictions.labels[kind], predictions.proba[kind], predictions.fold)
        for kind in KINDS
    }
    return Evaluation(
        report="cv", input=source_name(input_path), feature_set=feature_set, normalise=normalise, seed=seed,
        messages=len(labels), class_counts=counts,
        settings={"folds": folds, "stratified": True, "shuffled": True, "undersampling": "1:1 inside each training fold"},
        models=models, predictions=predictions,
    )


# ---------------------------------------------------------------------- holdout


def holdout(X_train, y_train, X_test, y_test, *, seed: int = 0, kinds: Iterable[str] = KINDS) -> Predictions:
    """Each model fitted on the training messages, P(TA) and labels on the test messages."""
    X_train, X_test = np.asarray(X_train, dtype=float), np.asarray(X_test, dtype=float)
    y_train = np.asarray(y_train, dtype=object)
    proba, labels = {}, {}
    for kind in kinds:
        estimator = rest_of_model(kind, seed).fit(X_train, y_train)
        proba[kind], labels[kind] = _predict(kind, estimator, X_test)
    return Predictions(y=np.asarray(y_test, dtype=object), proba=proba, labels=labels)


def run_holdout(
    input_path,
    *,
    train_first: int = 4000,
    test_next: int = 2000,
    seed: int = 0,
    feature_set: str = "paper",
    normalise: bool = False,
    read=None,
) -> Evaluation:
    """`triage report holdout`: the paper's time-ordered test, train on the first
    `train_first` rows of the file (in file order) and test on the next `test_next`."""
    if train_first < 1 or test_next < 1:
        raise BadOption("--train-first and --test-next must be at least 1")
    texts, labels = labelled_texts(input_path, read)
    needed = train_first + test_next
    if len(texts) < needed:
        raise BadInput(
            f"the holdout needs {train_first:,} + {test_next:,} = {needed:,} labelled messages; "
            f"{source_name(input_path)} has {len(texts):,} (choose smaller --train-first and --test-next, "
            f"e.g. --train-first {max(1, len(texts) * 2 // 3):,} --test-next {max(1, len(texts) - len(texts) * 2 // 3):,})"
        )
    train_counts = check_training_labels(labels[:train_first])
    X, _ = message_features(texts[:needed], feature_set, normalise)
    y_test = labels[train_first:needed]
    predictions = holdout(X[:train_first], labels[:train_first], X[train_first:], y_test, seed=seed)
    models = {
        kind: scores(kind, predictions.y, predictions.labels[kind], predictions.proba[kind]) for kind in KINDS
    }
    return Evaluation(
        report="holdout", input=source_name(input_path), feature_set=feature_set, normalise=normalise, seed=seed,
        messages=test_next, class_counts=_counts(y_test),
        settings={
            "train_first": train_first, "test_next": test_next, "training_class_counts": train_counts,
            "undersampling": "1:1 on the training messages",
        },
        models=models, predictions=predictions,
    )
