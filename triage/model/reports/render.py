"""The files of `triage report`: Markdown, JSON and PNG writers shared by every report, and
the two small gatherers of the infogain and tree reports (the ranking itself is
triage/model/reports/infogain.py, the tree text and picture triage/model/reports/tree.py; cross-validation
and holdout are triage/model/reports/cv.py).

Reports hold metrics, feature names and tree rules, never a message, so they are written
readable by all (not private). Each file is written whole or not at all; a new run replaces
the files of the previous one (the report folder is the tool's own).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from triage.errors import BadModel, BadOption
from triage.io import outputs
from triage.io.messages import source_name
from triage.model import CLASSES
from triage.model.reports.cv import (
    DECISION_RULE,
    PAPER_CV_ACCURACY,
    PAPER_HOLDOUT_ACCURACY,
    PAPER_TABLE6,
    Evaluation,
    ModelScores,
)

# The paper's Table 5 (its "WordLenght" spelled as our feature).
PAPER_TABLE5 = [
    ("UpperCase", 0.2754), ("SMSLength", 0.2121), ("FirstName", 0.1366), ("Countries", 0.0986),
    ("Cities", 0.0986), ("WordLength", 0.0776), ("Numbers", 0.0367), ("Elongations", 0.0353),
    ("Abbreviations", 0.034), ("Punctuation", 0.0269), ("LEFFF", 0.0262), ("Pronouns", 0.0),
]  # fmt: skip
# Features that are not whole numbers even without --normalise.
NON_INTEGER_FEATURES = frozenset({"WordLength", "BestNameRank"})


# ---------------------------------------------------------------------- writers


# The files each report writes in its folder; the command line checks them all before any work.
REPORT_FILES = {
    "cv": ("cv.md", "cv.json", "cv_confusion.png"),
    "holdout": ("holdout.md", "holdout.json", "holdout.png"),
    "infogain": ("infogain.md", "infogain.json", "infogain.png"),
    "tree": ("tree.txt", "tree.png"),
    "evaluate": ("evaluate.md", "evaluate.json", "evaluate.png"),
}


def report_paths(report: str, out_dir: Path) -> list[Path]:
    return [Path(out_dir) / name for name in REPORT_FILES[report]]


def write_report(report: str, out_dir: Path, text: str, data, figure, *, force: bool, protect=(),
                 dpi: float | str = 110) -> list[Path]:
    """A report's Markdown (or text), JSON (when `data` is not None) and PNG, each through
    the one writer: refused over an existing file without `force`, never over an input."""
    paths = report_paths(report, out_dir)
    written = [outputs.write_text(paths[0], text, force=force, protect=protect)]
    if data is not None:
        written.append(outputs.write_text(paths[1], json.dumps(data, indent=2, ensure_ascii=False) + "\n",
                                          force=force, protect=protect))
    written.append(outputs.write_bytes(paths[-1], figure_png(figure, dpi), force=force, protect=protect))
    return written


def figure_png(figure, dpi: float | str = 110) -> bytes:
    """A matplotlib Figure as PNG bytes, on an Agg canvas whatever the caller's backend."""
    return outputs.figure_png(figure, dpi=dpi)


def _figure(width: float, height: float):
    """A pyplot-free figure on the Agg canvas (leaves the caller's backend alone)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=(width, height), layout="constrained")
    FigureCanvasAgg(figure)
    return figure


def _percent(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.1f}%"


def _number(value: float | None, digits: int = 3) -> str:
    return "n/a" if value is None else f"{value:.{digits}f}"


def _features_phrase(feature_set: str, normalise: bool) -> str:
    return f"features `{feature_set}` ({'normalised by the number of words' if normalise else 'counts'})"


# ---------------------------------------------------------------------- cv and holdout


def table6_markdown(model: ModelScores) -> str:
    """The paper's Table 6 layout: confusion matrix (Model x Real) and per-class P/R/F."""
    lines = [
        "| Classes | Real: NTA | Real: TA | Class | Precision | Recall | F-Measure |",
        "| --- | ---: | ---: | --- | ---: | ---: | ---: |",
    ]
    for i, name in enumerate(CLASSES):
        row = model.confusion[i]
        scores = model.per_class[name]
        lines.append(
            f"| Model: {name} | {row[0]:,} | {row[1]:,} | {name} | {scores['precision']:.3f} | "
            f"{scores['recall']:.3f} | {scores['f_measure']:.3f} |"
        )
    return "\n".join(lines) + "\n"


def summary_markdown(evaluation: Evaluation) -> str:
    paper = PAPER_CV_ACCURACY if evaluation.report == "cv" else PAPER_HOLDOUT_ACCURACY
    lines = [
        "| Model | Accuracy | Balanced accuracy | ROC AUC | Paper (accuracy) |",
        "| --- | ---: | ---: | ---: | ---: |",
    ]
    for kind, model in evaluation.models.items():
        lines.append(
            f"| {model.title} | {_percent(model.accuracy)} | {_percent(model.balanced_accuracy)} | "
            f"{_number(model.roc_auc)} | {_percent(paper.get(kind))} |"
        )
    return "\n".join(lines) + "\n"


def comparison_markdown(evaluations: dict[str, Evaluation]) -> str:
    """Feature sets side by side: accuracy / balanced accuracy / ROC AUC of each model."""
    sets = list(evaluations)
    lines = [
        "| Model | " + " | ".join(f"{name}: accuracy / balanced / AUC" for name in sets) + " |",
        "| --- |" + " ---: |" * len(sets),
    ]
    for kind, model in next(iter(evaluations.values())).models.items():
        cells = []
        for name in sets:
            m = evaluations[name].models[kind]
            cells.append(f"{_percent(m.accuracy)} / {_percent(m.balanced_accuracy)} / {_number(m.roc_auc)}")
        lines.append(f"| {model.title} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def model_report_markdown(evaluation: Evaluation) -> str:
    counts = evaluation.class_counts
    share = counts["TA"] / max(1, evaluation.messages)
    settings = evaluation.settings
    if evaluation.report == "cv":
        title = f"# Cross-validation: {settings['folds']} folds"
        how = (
            f"Stratified {settings['folds']}-fold cross-validation, shuffled with seed {evaluation.seed}, "
            f"on {evaluation.messages:,} messages ({counts['TA']:,} TA, {counts['NTA']:,} NTA) of "
            f"`{evaluation.input}`; {_features_phrase(evaluation.feature_set, evaluation.normalise)}. "
            "Undersampling to 1:1 happens inside each training fold only; each test fold keeps the "
            f"natural class balance ({100 * share:.1f}% TA)."
        )
        note = (
            "The paper's figures (DT 77.8%, bagged DT 79.4%, Table 6) were measured on an undersampled, "
            "balanced set (529 TA + 529 NTA); ours are on the natural class balance of each test fold, "
            "where accuracy mostly rewards getting NTA right. That is why balanced accuracy (the mean of "
            "the two classes' recalls: what accuracy would be on a balanced set) is shown too."
        )
    else:
        train = settings["training_class_counts"]
        title = "# Holdout: train on the first messages, test on the next"
        how = (
            f"Trained on the first {settings['train_first']:,} messages of `{evaluation.input}` "
            f"({train['TA']:,} TA, {train['NTA']:,} NTA, undersampled to 1:1), tested on the next "
            f"{settings['test_next']:,} in file order ({counts['TA']:,} TA, {counts['NTA']:,} NTA: "
            f"{100 * share:.1f}% TA); {_features_phrase(evaluation.feature_set, evaluation.normalise)}, "
            f"seed {evaluation.seed}."
        )
        note = (
            "The paper trained on its first 4,000 messages and tested on the next 2,000 (DT 74.6%, "
            "bagged DT 76.9% accuracy). Accuracy on the natural class balance mostly rewards getting NTA "
            "right, so balanced accuracy (the mean of the two classes' recalls) is shown too."
        )
    parts = [title, "", how, "", summary_markdown(evaluation), note, "", f"Decisions: {DECISION_RULE}.", ""]
    for kind, model in evaluation.models.items():
        if kind == "baseline":
            continue
        parts += [f"## {model.title}", "", table6_markdown(model)]
        if model.fold_accuracy:
            spread = np.asarray(model.fold_accuracy)
            parts += [f"Accuracy over the folds: mean {_percent(spread.mean())}, "
                      f"from {_percent(spread.min())} to {_percent(spread.max())}.", ""]
    if evaluation.report == "cv":
        paper = ModelScores("bagging", 0, 0, None, PAPER_TABLE6, _per_class(PAPER_TABLE6))
        parts += ["## The paper's Table 6 (bagged DT, balanced set)", "", table6_markdown(paper)]
    return "\n".join(parts)


def _per_class(confusion: list[list[int]]) -> dict[str, dict[str, float]]:
    """Precision, recall and F-measure from a Model x Real confusion matrix."""
    out = {}
    for i, name in enumerate(CLASSES):
        predicted = sum(confusion[i])
        real = confusion[0][i] + confusion[1][i]
        precision = confusion[i][i] / predicted if predicted else 0.0
        recall = confusion[i][i] / real if real else 0.0
        f = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
        out[name] = {"precision": precision, "recall": recall, "f_measure": f, "support": real}
    return out


def confusion_figure(evaluation: Evaluation):
    """One confusion-matrix panel per model, oriented like Table 6 (rows: model, columns: real)."""
    from sklearn.metrics import ConfusionMatrixDisplay

    models = list(evaluation.models.values())
    figure = _figure(4.2 * len(models), 3.8)
    axes = figure.subplots(1, len(models), squeeze=False)[0]
    for ax, model in zip(axes, models):
        display = ConfusionMatrixDisplay(np.asarray(model.confusion), display_labels=list(CLASSES))
        display.plot(ax=ax, cmap="Blues", values_format=",d", colorbar=False)
        ax.set_xlabel("Real")
        ax.set_ylabel("Model")
        ax.set_title(f"{model.title}\naccuracy {_percent(model.accuracy)}, "
                     f"balanced {_percent(model.balanced_accuracy)}", fontsize=10)
    return figure


def write_evaluation(evaluation: Evaluation, out_dir: Path, *, force: bool = False) -> list[Path]:
    """<report>.md, <report>.json and <report>_confusion.png (cv) / <report>.png (holdout)."""
    return write_report(evaluation.report, out_dir, model_report_markdown(evaluation), evaluation.to_dict(),
                        confusion_figure(evaluation), force=force, protect=[evaluation.input])


# ---------------------------------------------------------------------- infogain


@dataclass
class InfogainReport:
    input: str
    feature_set: str
    normalise: bool
    balanced: bool
    seed: int
    class_counts: dict[str, int]  # of the messages ranked (after undersampling with balanced)
    ranking: list[tuple[int, str, float]]  # (rank, feature, InfoGain in bits)

    def to_dict(self) -> dict:
        return {
            "report": "infogain", "input": self.input, "feature_set": self.feature_set,
            "normalise": self.normalise, "balanced": self.balanced, "seed": self.seed,
            "messages": sum(self.class_counts.values()), "class_counts": self.class_counts,
            "ranking": [{"rank": r, "feature": n, "infogain": g} for r, n, g in self.ranking],
        }


def infogain_report(
    input_path, *, feature_set: str = "paper", normalise: bool = False, balanced: bool = False, seed: int = 0,
    read=None,
) -> InfogainReport:
    """InfoGain of every feature over the labelled messages (Weka's InfoGainAttributeEval);
    with `balanced`, over a 1:1 undersample first, as the paper's training data was."""
    from triage.model import check_training_labels
    from triage.model.gold import labelled_texts
    from triage.model.reports.cv import message_features
    from triage.model.reports.infogain import rank_features

    texts, labels = labelled_texts(input_path, read)
    check_training_labels(labels, minimum=1)
    X, names = message_features(texts, feature_set, normalise)
    y = np.asarray(labels, dtype=object)
    if balanced:
        from imblearn.under_sampling import RandomUnderSampler

        X, y = RandomUnderSampler(sampling_strategy=1.0, random_state=seed).fit_resample(X, y)
    counts = {c: int(np.sum(y == c)) for c in CLASSES}
    return InfogainReport(source_name(input_path), feature_set, normalise, balanced, seed, counts,
                          rank_features(X, y, names))


def infogain_report_markdown(report: InfogainReport) -> str:
    from triage.model.reports.infogain import infogain_markdown

    counts = report.class_counts
    which = "a 1:1 undersample (seed %d) of " % report.seed if report.balanced else ""
    parts = [
        "# Feature ranking by information gain",
        "",
        f"InfoGain (bits, Weka's InfoGainAttributeEval: MDL discretisation, then gain) of each feature over "
        f"{which}`{report.input}`: {sum(counts.values()):,} messages ({counts['TA']:,} TA, "
        f"{counts['NTA']:,} NTA); {_features_phrase(report.feature_set, report.normalise)}.",
        "",
        infogain_markdown(report.ranking),
    ]
    if report.feature_set == "paper":
        ours = {name: rank for rank, name, _ in report.ranking}
        lines = ["| Rank | Feature | InfoGain | Our rank |", "| ---: | --- | ---: | ---: |"]
        for rank, (name, gain) in enumerate(PAPER_TABLE5, start=1):
            lines.append(f"| {rank} | {name} | {gain:.4f} | {ours.get(name, '-')} |")
        parts += [
            "The paper's Table 5, for comparison (its 1,058 undersampled training messages; "
            "its lexicons, not ours):",
            "",
            "\n".join(lines) + "\n",
        ]
    return "\n".join(parts)


def infogain_figure(report: InfogainReport):
    names = [name for _, name, _ in report.ranking]
    gains = [gain for _, _, gain in report.ranking]
    figure = _figure(6.5, 1.2 + 0.32 * len(names))
    ax = figure.subplots()
    ax.barh(names, gains, color="#2c7fb8")
    ax.invert_yaxis()  # rank 1 on top
    ax.set_xlabel("InfoGain (bits)")
    ax.set_title("Features ranked by information gain" + (" (balanced 1:1)" if report.balanced else ""))
    for y, gain in enumerate(gains):
        ax.text(gain, y, f" {gain:.4f}", va="center", fontsize=8)
    ax.set_xlim(0, max(gains + [0.01]) * 1.2)
    return figure


def write_infogain(report: InfogainReport, out_dir: Path, *, force: bool = False) -> list[Path]:
    return write_report("infogain", out_dir, infogain_report_markdown(report), report.to_dict(),
                        infogain_figure(report), force=force, protect=[report.input])


# ---------------------------------------------------------------------- tree


@dataclass
class ModelTree:
    """One decision tree of a model file, with what is needed to print and draw it."""

    model: str
    kind: str  # "tree" or "bagging"
    tree_index: int
    n_trees: int
    feature_names: list[str]  # in the tree's own column order
    class_names: list[str]  # in the tree's own class order
    integer_features: list[str]
    text: str  # Weka J48 style
    n_leaves: int
    size: int
    tree: object = field(repr=False, default=None)  # the fitted DecisionTreeClassifier

    def to_dict(self) -> dict:
        return {
            "model": self.model, "kind": self.kind, "tree_index": self.tree_index, "n_trees": self.n_trees,
            "feature_names": self.feature_names, "class_names": self.class_names,
            "integer_features": self.integer_features, "n_leaves": self.n_leaves, "size": self.size,
        }


def integer_features(feature_names, normalise: bool) -> set[str]:
    """The features whose values are whole numbers: the counts (and the length), unless the
    model divides counts by the number of words."""
    if normalise:
        return set()
    return {name for name in feature_names if name not in NON_INTEGER_FEATURES}


def tree_of(classifier, feature_names, *, normalise: bool, tree_index: int = 0, model: str = "") -> ModelTree:
    """Tree `tree_index` of a fitted BaggingClassifier (or the DecisionTreeClassifier itself),
    with the feature and class names in that tree's own order."""
    from triage.model.reports.tree import tree_size, weka_tree_text

    feature_names = [str(n) for n in feature_names]
    if hasattr(classifier, "estimators_"):
        n_trees = len(classifier.estimators_)
        if not 0 <= tree_index < n_trees:
            raise BadOption(f"--tree-index must be between 0 and {n_trees - 1}: the model has {n_trees} trees")
        tree = classifier.estimators_[tree_index]
        # Each bagged tree sees the columns estimators_features_[k], possibly permuted.
        names = [feature_names[j] for j in classifier.estimators_features_[tree_index]]
        # ... and the classes encoded as 0, 1, ... of the ensemble's classes_.
        classes = [str(classifier.classes_[int(c)]) for c in tree.classes_]
        kind = "bagging"
    elif hasattr(classifier, "tree_"):
        n_trees = 1
        if tree_index != 0:
            raise BadOption("--tree-index must be 0: the model is a single tree")
        tree, names, classes, kind = classifier, feature_names, [str(c) for c in classifier.classes_], "tree"
    else:
        raise BadModel(f"the model's classifier ({type(classifier).__name__}) holds no decision tree")
    integers = integer_features(names, normalise)
    text = weka_tree_text(tree, names, classes, integer_features=integers)
    n_leaves, size = tree_size(tree)
    return ModelTree(model, kind, tree_index, n_trees, names, classes, sorted(integers), text, n_leaves, size, tree)


def model_tree(model_path, tree_index: int = 0) -> ModelTree:
    """`triage report tree`: a tree of a model file (loaded with skops' allow-list)."""
    from triage.model import load_estimator

    pipeline, metadata = load_estimator(model_path if hasattr(model_path, "predictor") else Path(model_path))
    classifier = pipeline.named_steps["classifier"]
    names = metadata.get("feature_names") or list(pipeline.named_steps["features"].get_feature_names_out())
    return tree_of(classifier, names, normalise=bool(metadata.get("normalise")), tree_index=tree_index,
                   model=getattr(model_path, "name", None) or os.fspath(model_path))


def tree_heading(report: ModelTree) -> str:
    if report.kind == "bagging":
        return f"Tree {report.tree_index} of the {report.n_trees} bagged trees of {report.model}"
    return f"The decision tree of {report.model}"


def write_tree(report: ModelTree, out_dir: Path, *, force: bool = False) -> list[Path]:
    from triage.model.reports.tree import tree_figure

    figure = tree_figure(report.tree, report.feature_names, report.class_names)
    return write_report("tree", out_dir, f"{tree_heading(report)}\n\n{report.text}", None, figure,
                        force=force, protect=[report.model], dpi="figure")
