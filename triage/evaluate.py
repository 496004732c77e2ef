"""End-to-end evaluation against gold spans: what is left readable in the released corpus,
and how much human reading it cost.

Assumptions (as a release would happen): messages sent to the expert come back perfectly
handled; TA messages are released with what the machines hid; NTA messages are released
untouched. Measures:
- residual span rate: share of gold spans still readable (a span is hidden only when all its
  letters and digits are inside hidden spans);
- message leak rate: share of gold-TA messages released with something readable;
- expert share: share of messages a human must read;
- over-masking rate: share of ordinary words (outside gold spans) hidden in released messages.

Train and test never overlap: the models are cross-validated (folds grouped by donor when
the gold file has a donor column), unless a trained model file is given.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import numpy as np

from triage.combiner import EXPERT, BudgetPolicy, Decision, Evidence, EvidenceBatch, PaperPolicy
from triage.seekhide import TA, SeekResult

BUDGETS = (0.0, 0.02, 0.05, 0.1, 0.15, 0.2, 0.3, 0.5)


@dataclass
class GoldMessage:
    text: str
    label: str
    spans: list[tuple[int, int, str]]
    group: str = ""


def parse_spans(raw: str, line: int, text: str | None = None) -> list[tuple[int, int, str]]:
    """Gold spans of one message; with its `text`, each must lie inside it and none may
    overlap another (a model trained on impossible spans learns nonsense, silently)."""
    from triage.io import InputError

    if not raw or not raw.strip():
        return []
    try:
        spans = [(int(s), int(e), str(t)) for s, e, t in json.loads(raw)]
    except (ValueError, TypeError) as error:
        raise InputError(f"line {line}: spans must be a JSON list of [start, end, TYPE] ({error})") from None
    if text is not None:
        end_before = 0
        for start, end, kind in sorted(spans):
            if not 0 <= start < end <= len(text):
                raise InputError(f"line {line}: span [{start}, {end}, {kind}] is outside the message "
                                 f"({len(text)} characters) or empty")
            if start < end_before:
                raise InputError(f"line {line}: span [{start}, {end}, {kind}] overlaps another span")
            end_before = end
    return spans


def release_metrics(gold: list[GoldMessage], results: list[SeekResult], decisions: list[Decision]) -> dict:
    spans_total = spans_left = ta_total = ta_leaked = 0
    ordinary = masked = expert = 0
    by_type: dict[str, list[int]] = {}  # TYPE -> [spans, left readable]
    for message, result, decision in zip(gold, results, decisions):
        if decision.decision == EXPERT:
            expert += 1
            released: list[tuple[int, int, str]] | None = None  # perfectly handled
        else:
            released = decision.hidden if decision.decision == TA else []
        covered = _covered(released or [], len(message.text))
        left = 0
        for start, end, kind in message.spans:
            spans_total += 1
            counts = by_type.setdefault(kind, [0, 0])
            counts[0] += 1
            if released is not None and _readable(message.text, start, end, covered):
                left += 1
                counts[1] += 1
        spans_left += left
        if message.spans:
            ta_total += 1
            ta_leaked += left > 0
        if released is not None:
            for word in result.words:
                if any(s < word.end and word.start < e for s, e, _ in message.spans):
                    continue
                ordinary += 1
                masked += any(covered[word.start:word.end])
    n = len(gold) or 1
    return {
        "messages": len(gold),
        "gold_spans": spans_total,
        "residual_spans": spans_left,
        "residual_span_rate": spans_left / spans_total if spans_total else 0.0,
        "message_leak_rate": ta_leaked / ta_total if ta_total else 0.0,
        "expert_messages": expert,
        "expert_share": expert / n,
        "over_masking_rate": masked / ordinary if ordinary else 0.0,
        "residual_by_type": {kind: {"spans": n, "readable": r} for kind, (n, r) in sorted(by_type.items())},
    }


def _covered(hidden, length) -> np.ndarray:
    covered = np.zeros(length + 1, dtype=bool)
    for start, end, _ in hidden:
        covered[start:end] = True
    return covered


def _readable(text: str, start: int, end: int, covered: np.ndarray) -> bool:
    return any(text[i].isalnum() and not covered[i] for i in range(start, min(end, len(text))))


# ---------------------------------------------------------------------- evidence


@dataclass
class Analysed:
    """Seek&Hide results, message features and candidate-word features of a gold set."""

    gold: list[GoldMessage]
    results: list[SeekResult]
    X: np.ndarray
    word_rows: list[tuple[list[int], np.ndarray]]  # per message: candidate word indices, features
    feature_set: str
    analysis: object  # the batch Seek&Hide analysis (triage.seekhide.Analysis) of the gold texts


def analyse(gold: list[GoldMessage], feature_set: str = "rich", lexicons=None) -> Analysed:
    from features.counts import message_counts
    from triage import lexicons as lexicon_module
    from triage.names import CorpusStats, word_features
    from triage.seekhide import SeekAndHide

    lexicons = lexicons or lexicon_module.default()
    texts = [m.text for m in gold]
    analysis = SeekAndHide(lexicons).analyse(texts)
    results = [analysis.result(i) for i in range(len(gold))]
    X = message_counts(analysis, feature_set)
    word_rows = word_features(analysis, CorpusStats.from_texts(texts))
    return Analysed(gold, results, X, word_rows, feature_set, analysis)


def evidence_from(analysed: Analysed, scores: np.ndarray, word_probs: list[np.ndarray], lexicons=None) -> list[Evidence]:
    from triage import lexicons as lexicon_module
    from triage.names import candidate_tag

    lexicons = lexicons or lexicon_module.default()
    evidence = []
    for result, score, (indices, _), probs in zip(analysed.results, scores, analysed.word_rows, word_probs):
        candidates = [
            (result.words[i].start, result.words[i].end, candidate_tag(result.words[i].text, lexicons), float(p))
            for i, p in zip(indices, probs)
        ]
        evidence.append(Evidence(result.label, float(score), result.hidden, candidates))
    return evidence


def cross_validated_evidence(analysed: Analysed, folds: int = 5, seed: int = 0, progress=None) -> list[Evidence]:
    """Evidence for every message from models that never saw it (folds grouped by donor)."""
    from imblearn.pipeline import Pipeline
    from sklearn.model_selection import GroupKFold, StratifiedKFold

    from triage.model import make_model

    labels = np.asarray([m.label for m in analysed.gold])
    groups = [m.group for m in analysed.gold]
    if len(set(groups)) >= folds:
        splits = GroupKFold(n_splits=folds).split(analysed.X, labels, groups)
    else:
        splits = StratifiedKFold(n_splits=folds, shuffle=True, random_state=seed).split(analysed.X, labels)
    scores = np.zeros(len(labels))
    word_probs = [np.zeros(len(indices)) for indices, _ in analysed.word_rows]
    for train, test in splits:
        message_model = Pipeline(make_model("bagging", analysed.feature_set, seed=seed).steps[1:])
        message_model.fit(analysed.X[train], labels[train])
        scores[test] = message_model.predict_proba(analysed.X[test])[:, list(message_model.classes_).index(TA)]
        word_model = fit_word_model(analysed, train, seed)
        for i in test:
            indices, rows = analysed.word_rows[i]
            if len(indices):
                word_probs[i] = word_model(rows)
        if progress:
            progress()
    return evidence_from(analysed, scores, word_probs)


def word_training_rows(analysed: Analysed, messages) -> tuple[np.ndarray, np.ndarray]:
    from triage.names import WORD_FEATURES, gold_targets

    rows, targets = [], []
    for i in messages:
        indices, features = analysed.word_rows[i]
        if len(indices):
            rows.append(features)
            targets += gold_targets(analysed.results[i], indices, analysed.gold[i].spans)
    if not rows:
        return np.zeros((0, len(WORD_FEATURES))), np.zeros(0)
    return np.vstack(rows), np.asarray(targets)


def fit_word_model(analysed: Analysed, messages, seed: int = 0):
    """A function rows -> P(name), fitted on the candidate words of `messages`."""
    from triage.names import make_word_model

    X, y = word_training_rows(analysed, messages)
    if len(set(y.tolist())) < 2:
        return lambda rows: np.zeros(len(rows))
    model = make_word_model(seed).fit(X, y)
    positive = list(model.classes_).index(1)
    return lambda rows: model.predict_proba(rows)[:, positive]


# ---------------------------------------------------------------------- policies


def threshold_for_budget(risks: np.ndarray, budget: float) -> float:
    """The risk at or above which at most `budget` of the messages go to the expert."""
    if budget <= 0 or not len(risks):
        return float("inf")
    k = int(np.floor(budget * len(risks)))
    if k <= 0:
        return float("inf")
    ordered = np.sort(risks)[::-1]
    # Ties at the cut would exceed the budget: move just above them.
    cut = ordered[k - 1]
    if k < len(ordered) and ordered[k] == cut:
        cut = np.nextafter(cut, np.inf)
    return float(cut)


def policy_curve(analysed: Analysed, evidence: list[Evidence], budgets=BUDGETS, hide_threshold=0.3,
                 score_weight=0.2) -> dict:
    """Metrics of the paper policy and of the budget policy at each budget."""
    paper = release_metrics(analysed.gold, analysed.results, PaperPolicy().decide(evidence))
    probe = BudgetPolicy(risk_threshold=float("inf"), hide_threshold=hide_threshold, score_weight=score_weight)
    risks = probe.decide_batch(EvidenceBatch.from_evidence(evidence)).risk
    curve = []
    for budget in budgets:
        policy = BudgetPolicy(threshold_for_budget(risks, budget), hide_threshold, score_weight)
        metrics = release_metrics(analysed.gold, analysed.results, policy.decide(evidence))
        curve.append({"budget": budget, **metrics})
    return {"paper": paper, "budget": curve}


# ---------------------------------------------------------------------- the command


@dataclass
class EvaluationReport:
    data: dict
    markdown: str
    files: list


def run_evaluate(gold_path, out_dir, *, model_path=None, policy: str = "budget", budget: float = 0.10,
                 folds: int = 5, seed: int = 0, feature_set: str = "rich", read=None,
                 force: bool = False) -> EvaluationReport:
    """Score the pipeline against gold spans; evaluate.md, .json and .png in `out_dir`
    (checked before any work: never over an input, never over a file without `force`)."""
    from pathlib import Path

    from triage import io, outputs
    from triage.reports.cv import scores as model_scores
    from triage.reports.render import report_paths, table6_markdown, write_report
    from triage.pipeline import ReadOptions, labelled_gold
    from triage.seekhide import tables

    from triage.combiner import POLICIES

    if not 0.0 <= budget <= 1.0:
        raise io.InputError(f"the expert budget is a share of messages between 0 and 1, not {budget}")
    if policy not in POLICIES:
        raise io.InputError(f"unknown policy {policy!r}; choose one of {', '.join(POLICIES)}")
    protect = [gold_path, model_path]
    outputs.check_outputs([(path, force) for path in report_paths("evaluate", out_dir)], inputs=protect)
    read = read or ReadOptions()
    gold, has_spans = labelled_gold(Path(gold_path), read)
    if not gold:
        raise io.InputError(f"{gold_path} holds no messages to evaluate (only a header)")
    if not has_spans:
        raise io.InputError(f"{gold_path} has no 'spans' column: evaluate needs the gold spans to hide")
    if model_path:
        from triage.model import load_predictor

        predictor = load_predictor(Path(model_path))
        analysed = analyse(gold, predictor.feature_set)
        evidence, how = _evidence_from_model(analysed, predictor), f"model {model_path} (trained elsewhere)"
    else:
        from triage.model import check_folds, check_training_labels

        check_folds(folds, check_training_labels([m.label for m in gold]), str(gold_path))
        analysed = analyse(gold, feature_set)
        grouped = len({m.group for m in gold}) >= folds
        evidence = cross_validated_evidence(analysed, folds=folds, seed=seed)
        how = f"{folds}-fold cross-validation" + (" grouped by donor" if grouped else " (stratified)")
    labels = np.asarray([m.label for m in gold])
    scores = np.asarray([e.score for e in evidence])
    message_model = model_scores("bagging", labels, np.where(scores >= 0.5, TA, "NTA"), scores)
    seek = tables([r.label for r in analysed.results], labels)
    curve = policy_curve(analysed, evidence, budgets=sorted(set(BUDGETS) | {budget}))
    chosen = curve["paper"] if policy == "paper" else next(p for p in curve["budget"] if p["budget"] == budget)
    data = {
        "gold": str(gold_path),
        "how": how,
        "policy": policy,
        "expert_budget": budget,
        "chosen": chosen,
        "paper_policy": curve["paper"],
        "budget_curve": curve["budget"],
        "seekhide": {
            "distribution": dict(seek.distribution),
            "confusion": {f"{s}/{g}": n for (s, g), n in (seek.confusion or {}).items()},
            "accuracy_on_tagged": seek.accuracy,
        },
        "model": message_model.to_dict(),
    }
    markdown = evaluation_markdown(data, seek.markdown() + "\nThe message model in the layout of the paper's Table 6:\n\n"
                                   + table6_markdown(message_model))
    files = write_report("evaluate", out_dir, markdown, data, curve_figure(data), force=force, protect=protect)
    return EvaluationReport(data, markdown, files)


def _evidence_from_model(analysed: Analysed, predictor) -> list[Evidence]:
    from triage.names import CorpusStats, word_features

    X = analysed.X
    if predictor.normalise or predictor.feature_set != analysed.feature_set:
        from features.counts import message_counts

        X = message_counts(analysed.analysis, predictor.feature_set, predictor.normalise)
    scores = predictor.predict_proba(X)
    if predictor.word_forest is None:
        return evidence_from(analysed, scores, [np.zeros(len(i)) for i, _ in analysed.word_rows])
    stats = CorpusStats.from_texts((m.text for m in analysed.gold), reference=predictor.metadata.get("training_size"))
    analysed.word_rows = word_features(analysed.analysis, stats, predictor.spelling)
    probs = [predictor.word_forest.predict_proba(f) if len(i) else np.zeros(0) for i, f in analysed.word_rows]
    return evidence_from(analysed, scores, probs)


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def evaluation_markdown(data: dict, seek_tables: str) -> str:
    lines = [
        f"# End-to-end evaluation on {data['gold']}",
        "",
        f"Models: {data['how']}. Messages sent to the expert are assumed perfectly handled; TA messages are "
        "released with what the machines hid; NTA messages are released untouched.",
        "",
        "| policy | expert budget | residual span rate | message leak rate | expert share | over-masking |",
        "|---|---|---|---|---|---|",
    ]
    paper = data["paper_policy"]
    lines.append(f"| paper (Table 2) | - | {_pct(paper['residual_span_rate'])} | {_pct(paper['message_leak_rate'])} | "
                 f"{_pct(paper['expert_share'])} | {_pct(paper['over_masking_rate'])} |")
    for point in data["budget_curve"]:
        mark = " **(chosen)**" if data["policy"] == "budget" and point["budget"] == data["expert_budget"] else ""
        lines.append(f"| budget{mark} | {_pct(point['budget'])} | {_pct(point['residual_span_rate'])} | "
                     f"{_pct(point['message_leak_rate'])} | {_pct(point['expert_share'])} | {_pct(point['over_masking_rate'])} |")
    model = data["model"]
    auc = f"{model['roc_auc']:.3f}" if model["roc_auc"] is not None else "n/a"
    chosen = data["chosen"]["residual_by_type"]
    lines += [
        "",
        f"Gold spans: {paper['gold_spans']:,} in {paper['messages']:,} messages. Left readable by the chosen policy, by type: "
        + ", ".join(f"{kind} {v['readable']}/{v['spans']}" for kind, v in chosen.items()) + ".",
        "",
        f"Message model (threshold 0.5): accuracy {model['accuracy']:.3f}, balanced accuracy "
        f"{model['balanced_accuracy']:.3f}, ROC AUC {auc}.",
        "",
        seek_tables,
    ]
    return "\n".join(lines)


def curve_figure(data: dict):
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    figure = Figure(figsize=(6, 4), layout="constrained")
    axes = figure.subplots()
    curve = data["budget_curve"]
    axes.plot([100 * p["expert_share"] for p in curve], [100 * p["residual_span_rate"] for p in curve],
              "o-", label="budget policy")
    paper = data["paper_policy"]
    axes.plot([100 * paper["expert_share"]], [100 * paper["residual_span_rate"]], "s", color="#c0392b",
              label="paper (Table 2)")
    axes.axhline(2, color="grey", linestyle=":", linewidth=1)
    axes.set_xlabel("messages read by the expert (%)")
    axes.set_ylabel("gold spans left readable (%)")
    axes.set_title("Residual identifying spans against expert workload")
    axes.legend()
    return figure
