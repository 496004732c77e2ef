"""Both ways of training, measured as a new corpus would meet them.

Donor-grouped cross-validation on one gold file or several together: in each fold, `triage
train` is run on the training donors' messages twice, with their gold spans and from their labels
alone, and the resulting model file classifies the held-out donors' messages. No model sees its
test donors. From labels alone, `triage train` keeps another model's word scorer; here that scorer
is the one learnt with spans on the same training donors (the embedded model learnt from the
development corpus itself, so keeping it would let it see the test donors). `--labelled N` trains
the model from labels alone on N messages of the training donors only (drawn by `--seed`), as a
team that labels a sample of its corpus would; the scorer it keeps still learnt from every
training donor.

For each way and budget, the held-out messages are routed two ways: with the threshold
calibrated at training (what a stream gets) and exactly within the budget (what a file gets).
Reported per gold file: the share sent to a human, the gold spans left readable (of the
categories `--hide` hides), the TA messages leaking and the ordinary words hidden (means over the
folds). Each held-out fold is read as a corpus of its own (its own word counts), so the figures
are a little worse than `triage evaluate`'s, which reads the whole file as one corpus.

    python benchmarks/training_ways.py [gold.csv ...] [--folds 5] [--budgets 0.05 0.1] [--hide default]
        [--labelled N] [--out reports/training_ways.json]

The default gold file is the development corpus ($TRIAGE_DEV_CORPUS, see CONTRIBUTING.md); the
script says so and stops when a gold file is absent.
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


def labelled_sample(training: list, size: int | None, seed: int) -> list:
    """The messages a team labels: `size` of the training messages drawn at random by `seed`, in
    their order (all of them without a size, or with one as large)."""
    from triage.model.training import drawn_sample

    if size is None or size >= len(training):
        return training
    return [training[i] for i in drawn_sample(len(training), size, seed).tolist()]


def read_gold(paths: list[Path]):
    """The messages of the gold files together, each message's donor prefixed by its file when
    there are several (so that no two donors merge), and the file of each message."""
    from triage.io.messages import ReadOptions
    from triage.model.gold import labelled_gold

    gold, files = [], []
    for path in paths:
        messages, has_spans = labelled_gold(path, ReadOptions())
        if not has_spans:
            raise SystemExit(f"{path.name} has no spans column: both ways of training need gold spans")
        for message in messages:
            if len(paths) > 1:
                message.group = f"{path.name}:{message.group}"
        gold += messages
        files += [path.name] * len(messages)
    return gold, files


def route(predictor, test_gold, budgets, hide):
    """(the analysed held-out messages, {budget: (calibrated, exact) decisions}) with this model."""
    from triage.combiner import BudgetPolicy
    from triage.model.evaluation import evidence_from_model, policies
    from triage.model.training import analyse

    analysed = analyse(test_gold, predictor.feature_set)
    evidence = evidence_from_model(analysed, predictor, hide)
    settings = {k: v for k, v in predictor.metadata["policy"].items() if k != "name"}
    exact = policies(evidence, budgets, **settings)
    return analysed, {budget: (BudgetPolicy(risk_threshold=predictor.risk_threshold(budget), **settings).decide(evidence),
                               exact[budget].decide(evidence)) for budget in budgets}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("gold", nargs="*", type=Path, default=[DEV])
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--budgets", type=float, nargs="+", default=[0.05, 0.10])
    parser.add_argument("--hide", default="default", help="the categories hidden, as classify --hide (default: default)")
    parser.add_argument("--labelled", type=int, default=None,
                        help="train from labels alone on this many messages of the training donors (default: all)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=REPO / "reports" / "training_ways.json")
    args = parser.parse_args(argv)
    absent = [path for path in args.gold if not path.is_file()]
    if absent:
        print(f"{absent[0]} is absent: nothing to measure", file=sys.stderr)
        return 0

    from triage import model
    from triage.combiner import parse_hide
    from triage.model.evaluation import hidden_gold, release_metrics
    from triage.model.training import train

    hide = parse_hide(args.hide)
    gold, files = read_gold(args.gold)
    names = list(dict.fromkeys(files))
    totals: dict = {}
    started = time.perf_counter()
    for number, (train_rows, test_rows) in enumerate(folds_of(gold, args.folds), 1):
        training = [gold[i] for i in train_rows]
        # Each file's held-out messages, read as a corpus of their own.
        parts = {name: [gold[i] for i in test_rows.tolist() if files[i] == name] for name in names}
        labelled = labelled_sample(training, args.labelled, args.seed)
        with_spans = model.Model(_model_bytes(train(training, True, seed=args.seed), training, args.seed))
        labels_only = model.Model(_model_bytes(
            train(labelled, False, seed=args.seed, kept_scorer=with_spans.predictor,
                  kept_source="model learnt with spans on the training donors"), labelled, args.seed))
        for way, trained in (("spans", with_spans), ("labels only", labels_only)):
            for name, part in parts.items():
                if not part:
                    continue
                analysed, routed = route(trained.predictor, part, args.budgets, hide)
                # Only the categories hidden are leaks when readable; the gold as analysed (folded,
                # as classify reads it).
                scored = hidden_gold(analysed, hide).gold
                for budget, both in routed.items():
                    for how, decisions in zip(("calibrated", "exact"), both):
                        measures = release_metrics(scored, analysed.results, decisions)
                        total = totals.setdefault((name, way, budget, how), {})
                        for key in ("messages", "gold_spans", "residual_spans", "expert_messages"):
                            total[key] = total.get(key, 0) + measures[key]
                        for key in ("message_leak_rate", "over_masking_rate"):  # mean over the folds
                            total.setdefault(key, []).append(measures[key])
        print(f"fold {number}/{args.folds} done ({time.perf_counter() - started:.0f} s)", file=sys.stderr)
    rows = []
    for (name, way, budget, how), total in totals.items():
        rows.append({
            "file": name, "training": way, "budget": budget, "routing": how,
            "expert_share": total["expert_messages"] / total["messages"],
            "residual_span_rate": total["residual_spans"] / total["gold_spans"],
            "message_leak_rate": float(np.mean(total["message_leak_rate"])),
            "over_masking_rate": float(np.mean(total["over_masking_rate"])),
        })
    print("| file | training | budget | routing | sent to a human | gold spans readable | TA messages leaking "
          "| ordinary words hidden |\n|---|---|---|---|---|---|---|---|")
    for row in rows:
        print(f"| {row['file']} | {row['training']} | {row['budget']:.0%} | {row['routing']} | "
              f"{row['expert_share']:.1%} | {row['residual_span_rate']:.1%} | {row['message_leak_rate']:.1%} | "
              f"{row['over_masking_rate']:.1%} |")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"gold": names, "folds": args.folds, "hide": list(hide), "labelled": args.labelled,
                                    "seed": args.seed, "rows": rows}, indent=2))
    return 0


def _model_bytes(trained, training, seed) -> bytes:
    from triage import model

    counts = {c: sum(m.label == c for m in training) for c in ("TA", "NTA")}
    fitted, extras = trained
    return model.model_bytes(fitted, training_size=len(training), class_counts=counts, seed=seed, **extras)[0]


if __name__ == "__main__":
    raise SystemExit(main())
