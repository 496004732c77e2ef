"""Both ways of training, measured as a new corpus would meet them.

Donor-grouped cross-validation on a gold file: in each fold, `triage train` is run on the
training donors' messages twice, with their gold spans and from their labels alone, and the
resulting model file classifies the held-out donors' messages. No model sees its test donors.
From labels alone, `triage train` keeps another model's word scorer; here that scorer is the one
learnt with spans on the same training donors (the embedded model learnt from the development
corpus itself, so keeping it would let it see the test donors).

For each way and budget, the held-out messages are routed two ways: with the threshold
calibrated at training (what a stream gets) and exactly within the budget (what a file gets).
Reported: the share sent to a human, the gold spans left readable (of the categories the default
--hide hides), the TA messages leaking and the ordinary words hidden (means over the folds).
Each held-out fold is read as a corpus of its own (its own word counts), so the figures are a
little worse than `triage evaluate`'s, which reads the whole file as one corpus.

    python benchmarks/training_ways.py [gold.csv] [--folds 5] [--budgets 0.05 0.1] [--out reports/training_ways.json]

The default gold file is the development corpus ($TRIAGE_DEV_CORPUS, see CONTRIBUTING.md); the
script says so and stops when it is absent.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
# The development corpus: $TRIAGE_DEV_CORPUS, else its usual place beside the checkout.
DEV = Path(os.environ.get("TRIAGE_DEV_CORPUS") or REPO.parent / "shared" / "data" / "sms_dev_88milsms.csv")


def folds_of(gold, folds: int):
    from sklearn.model_selection import GroupKFold

    groups = [m.group for m in gold]
    return GroupKFold(n_splits=folds).split(np.zeros(len(gold)), groups=groups)


def route(predictor, test_gold, budget: float):
    """(the analysed held-out messages, calibrated and exact decisions) with this model."""
    from triage.combiner import BudgetPolicy
    from triage.model.evaluation import evidence_from_model, policies
    from triage.model.training import analyse

    analysed = analyse(test_gold, predictor.feature_set)
    evidence = evidence_from_model(analysed, predictor)
    settings = {k: v for k, v in predictor.metadata["policy"].items() if k != "name"}
    calibrated = BudgetPolicy(risk_threshold=predictor.risk_threshold(budget), **settings).decide(evidence)
    exact = policies(evidence, [budget], **settings)[budget].decide(evidence)
    return analysed, calibrated, exact


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("gold", nargs="?", type=Path, default=DEV)
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--budgets", type=float, nargs="+", default=[0.05, 0.10])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=REPO / "reports" / "training_ways.json")
    args = parser.parse_args(argv)
    if not args.gold.is_file():
        print(f"{args.gold} is absent: nothing to measure", file=sys.stderr)
        return 0

    from triage import model
    from triage.model.evaluation import hidden_gold, release_metrics
    from triage.model.gold import labelled_gold
    from triage.schema import DEFAULT_HIDE
    from triage.io.messages import ReadOptions
    from triage.model.training import train

    gold, has_spans = labelled_gold(args.gold, ReadOptions())
    assert has_spans, "the gold file needs a spans column"
    totals: dict = {}
    started = time.perf_counter()
    for number, (train_rows, test_rows) in enumerate(folds_of(gold, args.folds), 1):
        training = [gold[i] for i in train_rows]
        testing = [gold[i] for i in test_rows]
        counts = {c: sum(m.label == c for m in training) for c in ("TA", "NTA")}
        with_spans = model.Model(_model_bytes(train(training, True, seed=args.seed), training, counts, args.seed))
        labels_only = model.Model(_model_bytes(
            train(training, False, seed=args.seed, kept_scorer=with_spans.predictor,
                  kept_source="model learnt with spans on the training donors"), training, counts, args.seed))
        for way, trained in (("spans", with_spans), ("labels only", labels_only)):
            for budget in args.budgets:
                analysed, calibrated, exact = route(trained.predictor, testing, budget)
                # Only the categories the default --hide hides are leaks when readable (places and
                # brands are not); the gold as analysed (folded, as classify reads it).
                scored = hidden_gold(analysed, DEFAULT_HIDE).gold
                for how, decisions in (("calibrated", calibrated), ("exact", exact)):
                    measures = release_metrics(scored, analysed.results, decisions)
                    total = totals.setdefault((way, budget, how), {})
                    for key in ("messages", "gold_spans", "residual_spans", "expert_messages"):
                        total[key] = total.get(key, 0) + measures[key]
                    for key in ("message_leak_rate", "over_masking_rate"):  # mean over the folds
                        total.setdefault(key, []).append(measures[key])
        print(f"fold {number}/{args.folds} done ({time.perf_counter() - started:.0f} s)", file=sys.stderr)
    rows = []
    for (way, budget, how), total in totals.items():
        rows.append({
            "training": way, "budget": budget, "routing": how,
            "expert_share": total["expert_messages"] / total["messages"],
            "residual_span_rate": total["residual_spans"] / total["gold_spans"],
            "message_leak_rate": float(np.mean(total["message_leak_rate"])),
            "over_masking_rate": float(np.mean(total["over_masking_rate"])),
        })
    print("| training | budget | routing | sent to a human | gold spans readable | TA messages leaking "
          "| ordinary words hidden |\n|---|---|---|---|---|---|---|")
    for row in rows:
        print(f"| {row['training']} | {row['budget']:.0%} | {row['routing']} | {row['expert_share']:.1%} | "
              f"{row['residual_span_rate']:.1%} | {row['message_leak_rate']:.1%} | {row['over_masking_rate']:.1%} |")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"gold": str(args.gold.name), "folds": args.folds, "rows": rows}, indent=2))
    return 0


def _model_bytes(trained, training, counts, seed) -> bytes:
    from triage import model

    fitted, extras = trained
    return model.model_bytes(fitted, training_size=len(training), class_counts=counts, seed=seed, **extras)[0]


if __name__ == "__main__":
    raise SystemExit(main())
