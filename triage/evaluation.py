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
the gold file has a donor column, triage.training), unless a trained model file is given.
The command itself, which reads the gold file and writes the report, is triage.jobs.run_evaluate.
"""

from __future__ import annotations

import numpy as np

from triage.combiner import BudgetPolicy, Decision, Evidence, EvidenceBatch, PaperPolicy
from triage.features.counts import message_counts
from triage.gold import GoldMessage
from triage.names import CorpusStats, word_features
from triage.schema import EXPERT, TA
from triage.seekhide import SeekResult
from triage.training import AnalysedGold, evidence_from

BUDGETS = (0.0, 0.02, 0.05, 0.1, 0.15, 0.2, 0.3, 0.5)


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


def policy_curve(analysed: AnalysedGold, evidence: list[Evidence], budgets=BUDGETS, hide_threshold=0.3,
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


def evidence_from_model(analysed: AnalysedGold, predictor) -> list[Evidence]:
    X = analysed.X
    if predictor.normalise or predictor.feature_set != analysed.feature_set:
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


def end_to_end_markdown(data: dict, seek_tables: str) -> str:
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
    """Residual spans against the expert's share (a matplotlib Figure, no pyplot: a notebook's
    backend is left alone)."""
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
