"""End-to-end evaluation against gold spans: what is left readable in the released corpus,
and how much human reading it cost.

Assumptions (as a release would happen): messages sent to the expert come back perfectly
handled; TA messages are released with what the machines hid; NTA messages are released
untouched. Measures:
- residual span rate: share of gold spans still readable (a span is hidden only when all its
  letters and digits are inside hidden spans);
- message leak rate: share of gold-TA messages released with something readable;
- expert share: share of messages a human must read: at a budget, exactly round(budget x
  messages), the riskiest, as classify sends them (ExactBudget);
- over-masking rate: share of ordinary words (outside gold spans) hidden in released messages;
- residual without short spans: the residual span rate, gold spans of at most two letters and
  digits left out (on a surrogate-anonymised corpus such spans read as function words);
- precision of what is hidden: of the spans hidden in messages released without a human, the
  share overlapping a gold span, overall, by the tag hidden and for persons (PRE, NOM, SUR);
- the field's measures for the chosen policy (field_metrics), with 95% bootstrap intervals over
  donors: entity-level recall (TAB, Pilan et al. 2022), identifiers exposed (TAB's entity at the
  level of a donor's messages), the share of TA messages released with nothing readable
  (eds-pseudo's "full redact"), token recall and precision, the precisions above, by gold category
  and by tag hidden;
- over several seeds of the cross-validation, the mean and standard deviation of the main
  figures (seeds_summary).

The gold messages are analysed folded, as classify analyses messages (triage.model.training.analyse),
so the measures read the folded texts and their gold spans mapped onto them.

The main figures are those of the model classify uses (the embedded model, or a model file
given), as classify routes the messages. Beside them, a model trained on the gold itself is
cross-validated: train and test never overlap (folds grouped by donor when the gold file has a
donor column, triage.model.training).
The command itself, which reads the gold file and writes the report, is triage.jobs.run_evaluate.
"""

from __future__ import annotations

import numpy as np

from triage import recognizers as _recognizers  # noqa: F401  (registers the component "recognizers")
from triage.combiner import HIDE_THRESHOLD, Decision, Evidence, ExactBudget, PaperPolicy
from triage.model.gold import GoldMessage
from triage.model.training import AnalysedGold, analyse, cross_validated_evidence
from triage.pipeline import Context, Pipeline
from triage.schema import DEFAULT_HIDE, EXPERT, TA
from triage.seekhide import SeekResult

BUDGETS = (0.0, 0.02, 0.05, 0.1, 0.15, 0.2, 0.3, 0.5)


def hidden_gold(analysed: AnalysedGold, hide) -> AnalysedGold:
    """The gold set as the measures read it under `hide`: only the spans of hidden categories
    are to hide (readable = a leak), so the words of the other spans are ordinary words (hidden =
    over-masking)."""
    from dataclasses import replace

    gold = [GoldMessage(m.text, m.label, [s for s in m.spans if s[2] in hide], m.group) for m in analysed.gold]
    return replace(analysed, gold=gold)


def release_metrics(gold: list[GoldMessage], results: list[SeekResult], decisions: list[Decision]) -> dict:
    spans_total = spans_left = ta_total = ta_leaked = 0
    long_total = long_left = 0
    ordinary = masked = expert = 0
    hidden_spans = hidden_gold_spans = person_hidden = person_gold = 0
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
            readable = released is not None and _readable(message.text, start, end, covered)
            if readable:
                left += 1
                counts[1] += 1
            if not is_short(message.text, start, end):
                long_total += 1
                long_left += readable
        spans_left += left
        for _, tag, on_gold in hidden_spans_of(message, decision):
            hidden_spans += 1
            hidden_gold_spans += on_gold
            if tag in PERSON_TAGS:
                person_hidden += 1
                person_gold += on_gold
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
        "gold_spans_without_short": long_total,
        "residual_spans_without_short": long_left,
        "residual_span_rate_without_short": long_left / long_total if long_total else 0.0,
        "hidden_spans": hidden_spans,
        "hidden_precision": hidden_gold_spans / hidden_spans if hidden_spans else None,
        "person_hidden_spans": person_hidden,
        "person_precision": person_gold / person_hidden if person_hidden else None,
        "message_leak_rate": ta_leaked / ta_total if ta_total else 0.0,
        "expert_messages": expert,
        "expert_share": expert / n,
        "over_masking_rate": masked / ordinary if ordinary else 0.0,
        "residual_by_type": {kind: {"spans": n, "readable": r} for kind, (n, r) in sorted(by_type.items())},
    }


# What is hidden as a person: a first name, a surname or a nickname.
PERSON_TAGS = ("PRE", "NOM", "SUR")
# A gold span of at most this many letters and digits is short: on 88milSMS, such a span is often a
# one- or two-letter surrogate that reads as a function word (`de`, `me`), nearly impossible to find.
SHORT_SPAN = 2


def is_short(text: str, start: int, end: int) -> bool:
    """Whether a gold span has at most SHORT_SPAN letters and digits."""
    return sum(c.isalnum() for c in text[start:end]) <= SHORT_SPAN


def hidden_spans_of(message: GoldMessage, decision: Decision) -> list[tuple[tuple[int, int], str, bool]]:
    """The spans the machines hide in a message released without a human (released as TA; none
    when NTA or read by the expert), each with its tag and whether it overlaps a gold span:
    ((start, end), tag, on gold). A span hidden twice with the same tag counts once."""
    if decision.decision != TA:
        return []
    spans = sorted({(start, end, tag) for start, end, tag in decision.hidden})
    return [((start, end), tag, any(s < end and start < e for s, e, _ in message.spans))
            for start, end, tag in spans]


def message_identifiers(message: GoldMessage, decision: Decision) -> dict[tuple[str, str], bool]:
    """The identifiers a message mentions, (gold category, spelling casefolded), each with whether
    a mention of it is left readable (a message read by the expert leaves none)."""
    expert = decision.decision == EXPERT
    released = [] if expert else (decision.hidden if decision.decision == TA else [])
    covered = _covered(released, len(message.text))
    found: dict[tuple[str, str], bool] = {}
    for start, end, kind in message.spans:
        readable = not expert and _readable(message.text, start, end, covered)
        key = (kind, message.text[start:end].strip().casefold())
        found[key] = found.get(key, False) or readable
    return found


def _covered(hidden, length) -> np.ndarray:
    covered = np.zeros(length + 1, dtype=bool)
    for start, end, _ in hidden:
        covered[start:end] = True
    return covered


def _readable(text: str, start: int, end: int, covered: np.ndarray) -> bool:
    return any(text[i].isalnum() and not covered[i] for i in range(start, min(end, len(text))))


# ---------------------------------------------------------------------- the field's metrics

# The field's measures, from counts kept per message so that they can be summed per donor and
# resampled: (numerator, denominator) of each rate, overall and by gold category.
FIELD_RATES = {
    # An entity (the mentions of one spelling and category in a message) counts as protected only
    # when none of its mentions is readable (Text Anonymization Benchmark, Pilan et al. 2022).
    "entity_recall": ("protected", "entities"),
    # TA messages released with nothing readable (eds-pseudo's "full redact").
    "full_redact_rate": ("redacted", "ta"),
    # Words (Seek&Hide's tokens) inside gold spans that are hidden, and hidden words that are.
    "token_recall": ("tp", "gold_tokens"),
    "token_precision": ("tp", "hidden_tokens"),
    "residual_span_rate": ("readable", "spans"),
    # The same, gold spans of at most two letters and digits left out (is_short).
    "residual_without_short": ("readable_long", "spans_long"),
    # An identifier is one spelling of one category in all the messages of one donor: it is
    # exposed when any of its mentions is readable (TAB's entity-level recall, at donor level).
    "identifiers_exposed": ("exposed", "identifiers"),
    # Of the spans hidden in messages released without a human, those overlapping a gold span:
    # all of them, and those hidden as a person (PERSON_TAGS).
    "hidden_precision": ("hidden_gold", "hidden_spans"),
    "person_precision": ("person_gold", "person_hidden"),
}
CATEGORY_RATES = ("entity_recall", "token_recall", "residual_span_rate")
# By gold category, beside CATEGORY_RATES.
MORE_CATEGORY_RATES = ("identifiers_exposed", "residual_without_short")
# The measures of the field's table read by the tag the machines hid a span as.
HIDDEN_TAG_RATES = ("hidden_precision",)


def message_field_counts(message: GoldMessage, result: SeekResult, decision: Decision) -> dict[str, int]:
    """The counts behind FIELD_RATES for one message, overall and as `name:TYPE` by category.
    A message sent to the expert is assumed perfectly handled, as in release_metrics."""
    counts: dict[str, int] = {}

    def add(name: str, kind: str, value: int = 1) -> None:
        counts[name] = counts.get(name, 0) + value
        counts[f"{name}:{kind}"] = counts.get(f"{name}:{kind}", 0) + value

    expert = decision.decision == EXPERT
    released = [] if expert else (decision.hidden if decision.decision == TA else [])
    covered = _covered(released, len(message.text))
    entities: dict[tuple[str, str], bool] = {}
    for start, end, kind in message.spans:
        readable = not expert and _readable(message.text, start, end, covered)
        add("spans", kind)
        add("readable", kind, readable)
        if not is_short(message.text, start, end):
            add("spans_long", kind)
            add("readable_long", kind, readable)
        key = (kind, message.text[start:end].strip().casefold())
        entities[key] = entities.get(key, False) or readable
    for (kind, _), readable in entities.items():
        add("entities", kind)
        add("protected", kind, not readable)
    if message.spans:
        counts["ta"] = 1
        counts["redacted"] = int(not counts.get("readable", 0))
    for word in result.words:
        kind = next((k for s, e, k in message.spans if s < word.end and word.start < e), None)
        hidden = kind is not None if expert else bool(covered[word.start:word.end].any())
        if kind is not None:
            add("gold_tokens", kind)
            add("tp", kind, hidden)
        if hidden:
            counts["hidden_tokens"] = counts.get("hidden_tokens", 0) + 1
    for _, tag, on_gold in hidden_spans_of(message, decision):
        add("hidden_spans", tag)
        add("hidden_gold", tag, on_gold)
        if tag in PERSON_TAGS:
            add("person_hidden", tag)
            add("person_gold", tag, on_gold)
    return counts


def identifier_counts(gold: list[GoldMessage], decisions: list[Decision], donors: list[str]) -> dict[str, dict[str, int]]:
    """Per donor, the identifiers (gold category, spelling casefolded) its messages mention and
    those exposed (a mention readable in any message of the donor), overall and as `name:TYPE`."""
    found: dict[str, dict[tuple[str, str], bool]] = {}
    for message, decision, donor in zip(gold, decisions, donors):
        mine = found.setdefault(donor, {})
        for key, readable in message_identifiers(message, decision).items():
            mine[key] = mine.get(key, False) or readable
    counts: dict[str, dict[str, int]] = {}
    for donor, identifiers in found.items():
        row = counts.setdefault(donor, {})
        for (kind, _), readable in identifiers.items():
            for name, value in (("identifiers", 1), ("exposed", int(readable))):
                row[name] = row.get(name, 0) + value
                row[f"{name}:{kind}"] = row.get(f"{name}:{kind}", 0) + value
    return counts


def field_metrics(gold: list[GoldMessage], results: list[SeekResult], decisions: list[Decision], *,
                  resamples: int = 1000, seed: int = 0) -> dict:
    """FIELD_RATES overall and CATEGORY_RATES by gold category, each with a 95% bootstrap
    interval over donors (messages resampled by donor, since one donor's messages are not
    independent; over messages when the gold file names no donor)."""
    per_message = [message_field_counts(m, r, d) for m, r, d in zip(gold, results, decisions)]
    donors = [m.group or f"\0{i}" for i, m in enumerate(gold)]
    identifiers = identifier_counts(gold, decisions, donors)
    columns = sorted({name for counts in per_message for name in counts}
                     | {name for counts in identifiers.values() for name in counts})
    index = {name: i for i, name in enumerate(columns)}
    matrix = np.zeros((len(per_message), len(columns)))
    for row, counts in enumerate(per_message):
        for name, value in counts.items():
            matrix[row, index[name]] = value
    names, groups = np.unique(np.asarray(donors, dtype=object), return_inverse=True)
    by_donor = np.zeros((len(names), len(columns)))
    np.add.at(by_donor, groups.ravel(), matrix)
    for row, donor in enumerate(names.tolist()):  # identifiers are counted per donor, not per message
        for name, value in identifiers.get(donor, {}).items():
            by_donor[row, index[name]] += value
    rng = np.random.default_rng(seed)
    weights = np.stack([np.bincount(rng.integers(0, len(names), len(names)), minlength=len(names))
                        for _ in range(resamples)]) if len(names) and resamples else np.zeros((0, len(names)))
    resampled = weights @ by_donor if len(names) else np.zeros((0, len(columns)))
    totals = by_donor.sum(axis=0)

    def rate(numerator: str, denominator: str) -> dict | None:
        if denominator not in index or totals[index[denominator]] == 0:
            return None
        top = totals[index[numerator]] if numerator in index else 0.0
        value = float(top / totals[index[denominator]])
        with np.errstate(invalid="ignore", divide="ignore"):
            tops = resampled[:, index[numerator]] if numerator in index else np.zeros(len(resampled))
            samples = tops / resampled[:, index[denominator]]
        samples = samples[np.isfinite(samples)]
        low, high = (np.percentile(samples, [2.5, 97.5]) if len(samples) else (value, value))
        return {"value": value, "low": float(low), "high": float(high),
                "of": int(totals[index[denominator]])}

    overall = {name: rate(*parts) for name, parts in FIELD_RATES.items()}
    kinds = sorted({name.split(":", 1)[1] for name in columns if name.startswith("spans:")})
    by_category = {kind: {name: rate(f"{FIELD_RATES[name][0]}:{kind}", f"{FIELD_RATES[name][1]}:{kind}")
                          for name in CATEGORY_RATES + MORE_CATEGORY_RATES} for kind in kinds}
    tags = sorted({name.split(":", 1)[1] for name in columns if name.startswith("hidden_spans:")})
    by_hidden_tag = {tag: {name: rate(f"{FIELD_RATES[name][0]}:{tag}", f"{FIELD_RATES[name][1]}:{tag}")
                           for name in HIDDEN_TAG_RATES} for tag in tags}
    return {"donors": int(len(names)), "resamples": resamples, "by_donor": any(m.group for m in gold),
            "overall": overall, "by_category": by_category, "by_hidden_tag": by_hidden_tag}


def field_markdown(field: dict) -> list[str]:
    """The field's metrics as Markdown lines (value and 95% interval)."""
    def cell(rate: dict | None) -> str:
        return "-" if rate is None else f"{_pct(rate['value'])} ({_pct(rate['low'])}-{_pct(rate['high'])})"

    over = "donors" if field["by_donor"] else "messages (no donor column)"
    lines = [
        "",
        f"The field's measures for the chosen policy, with 95% bootstrap intervals over {field['donors']:,} {over} "
        f"({field['resamples']:,} resamples): an entity is protected only when all its mentions in a message are "
        "hidden (TAB); full redact is the share of TA messages released with nothing readable.",
        "",
        "| entity recall | full redact | token recall | token precision | residual span rate |",
        "|---|---|---|---|---|",
        "| " + " | ".join(cell(field["overall"][name]) for name in FIELD_RATES_SHOWN) + " |",
        "",
        "Beside them: the residual without the gold spans of two letters or digits or fewer; identifiers exposed "
        "(an identifier is one spelling of one category in all the messages of one donor, exposed when any of its "
        "mentions is readable); and the precision of what is hidden: of the spans hidden in messages released "
        "without a human, the share overlapping a gold span, all of them and those hidden as a person (PRE, NOM "
        "or SUR).",
        "",
        "| residual without short spans | identifiers exposed | precision of what is hidden | person precision |",
        "|---|---|---|---|",
        "| " + " | ".join(cell(field["overall"].get(name)) for name in NEW_RATES_SHOWN) + " |",
        "",
        "| category | entity recall | token recall | residual span rate | identifiers exposed | "
        "residual without short spans |",
        "|---|---|---|---|---|---|",
    ]
    lines += [f"| {kind} | " + " | ".join(cell(rates.get(name)) for name in CATEGORY_RATES + MORE_CATEGORY_RATES) + " |"
              for kind, rates in field["by_category"].items()]
    if field.get("by_hidden_tag"):
        lines += ["", "| hidden as | spans hidden | precision |", "|---|---|---|"]
        lines += [f"| {tag} | {rates['hidden_precision']['of']:,} | {cell(rates['hidden_precision'])} |"
                  for tag, rates in field["by_hidden_tag"].items()]
    return lines


# The field's table as it was first reported, and the measures added beside it.
FIELD_RATES_SHOWN = ("entity_recall", "full_redact_rate", "token_recall", "token_precision", "residual_span_rate")
NEW_RATES_SHOWN = ("residual_without_short", "identifiers_exposed", "hidden_precision", "person_precision")


# ---------------------------------------------------------------------- policies


def policies(evidence: list[Evidence], budgets=BUDGETS, hide_threshold=HIDE_THRESHOLD, score_weight=0.2) -> dict:
    """The paper policy (key "paper") and the budget policy at each budget (a share), sending
    exactly that share of these messages to the expert as classify would."""
    return {"paper": PaperPolicy(),
            **{budget: ExactBudget(budget, hide_threshold, score_weight) for budget in budgets}}


def policy_curve(analysed: AnalysedGold, evidence: list[Evidence], budgets=BUDGETS, hide_threshold=HIDE_THRESHOLD,
                 score_weight=0.2) -> dict:
    """Metrics of the paper policy and of the budget policy at each budget."""
    chosen = policies(evidence, budgets, hide_threshold, score_weight)

    def metrics(key):
        return release_metrics(analysed.gold, analysed.results, chosen[key].decide(evidence))

    return {"paper": metrics("paper"), "budget": [{"budget": budget, **metrics(budget)} for budget in budgets]}


# ---------------------------------------------------------------------- ablation

ABLATION_MEASURES = ("residual_span_rate", "message_leak_rate", "over_masking_rate", "expert_share")


def ablation(gold: list[GoldMessage], full: dict, *, feature_set: str, policy: str, budget: float, folds: int,
             seed: int, predictor=None, hide=DEFAULT_HIDE, steps=None, progress=None) -> list[dict]:
    """What each Seek&Hide step brings to the whole pipeline: the release measures with that
    step switched off (SeekAndHide(off=...)), beside `full`, the measures with every step on.
    The models are cross-validated again without the step (or `predictor` is used as it is)."""
    from triage.seekhide import steps as seekhide_steps

    rows = [{"off": None, **{k: full[k] for k in ABLATION_MEASURES}, "untagged_share": full["untagged_share"]}]
    for step in steps or seekhide_steps.switchable():
        analysed = analyse(gold, feature_set, off=(step,))
        if predictor is not None:
            evidence = evidence_from_model(analysed, predictor, hide)
        else:
            evidence = cross_validated_evidence(analysed, folds=folds, seed=seed, hide=hide)
        decisions = policies(evidence, [budget])["paper" if policy == "paper" else budget].decide(evidence)
        measures = release_metrics(hidden_gold(analysed, hide).gold, analysed.results, decisions)
        untagged = sum(r.label == "UNTAGGED" for r in analysed.results) / (len(gold) or 1)
        rows.append({"off": step, **{k: measures[k] for k in ABLATION_MEASURES}, "untagged_share": untagged})
        if progress:
            progress()
    return rows


def ablation_markdown(rows: list[dict], cross_validated: bool = True) -> list[str]:
    """The ablation as a table: each step off, and how each measure moves against all steps on
    (`cross_validated`: the models trained again without the step; else the model classify uses,
    as it is)."""
    full = rows[0]

    def cell(row, key):
        delta = 100 * (row[key] - full[key])
        return _pct(row[key]) + ("" if row is full else f" ({delta:+.1f})")

    lines = ["", "## What each step brings (ablation: Seek&Hide's and the recognizers' steps)", "",
             "Each step switched off in turn, " + ("models cross-validated again" if cross_validated
                                                   else "with the model classify uses as it is") + "; in brackets, the change in "
             "percentage points against every step on. A step that protects names raises the readable spans "
             "when it is off; one that spares ordinary words raises the over-masking.", "",
             "| step off | gold spans readable | TA messages leaking | ordinary words hidden | expert share | "
             "Seek&Hide untagged |", "|---|---|---|---|---|---|"]
    for row in rows:
        lines.append(f"| {row['off'] or '(none: every step on)'} | " + " | ".join(
            cell(row, k) for k in (*ABLATION_MEASURES[:3], "expert_share", "untagged_share")) + " |")
    return lines


# ---------------------------------------------------------------------- the review loop

TAUGHT_TAGS = ("PRE", "NOM", "SUR")


def simulate_review(gold: list[GoldMessage], predictor, *, budget: float, rounds: int, hide=DEFAULT_HIDE,
                    known=None, progress=None) -> list[dict]:
    """The review loop measured on a gold corpus, with a perfect reviewer: in each of `rounds`
    rounds the reviewer reads the riskiest messages not read yet (the budget spread over the
    rounds: exactly the budget in all, as classify sends it) and marks there the names the machines
    left readable (the gold spans of a first name, surname or nickname where the machines hid
    nothing), which are taught as `classify --workspace` teaches a reviewer's marks (known names,
    hidden with their variants; what the machines hid and the reviewer accepts teaches nothing); the
    messages still to read are then scored and ranked again. One row per round: the messages read so
    far and the release measures if the corpus were released then. `known`: names known from the
    start (--known-names)."""
    from triage.combiner import ExpertBudget, riskiest
    from triage.seekhide.known import merged, taught_names

    target = ExpertBudget.of(budget).messages(len(gold))
    read = np.zeros(len(gold), dtype=bool)
    first_phase = ExactBudget(0.0).policy  # hides and decides TA/NTA; the reading is decided here

    def decided(taught):
        analysed = analyse(gold, predictor.feature_set, known=merged(known, taught))
        decisions = first_phase.decide(evidence_from_model(analysed, predictor, hide))
        return analysed, decisions

    rows, marked = [], []
    analysed, decisions = decided(None)
    for done in range(1, rounds + 1):
        risk = np.asarray([d.risk for d in decisions], dtype=float)
        risk[read] = -np.inf  # read already
        now = riskiest(risk, target * done // rounds - int(read.sum()))
        read[now] = True
        for i in now.tolist():
            covered = _covered(decisions[i].hidden, len(gold[i].text))
            marked += [(gold[i].text[start:end], tag) for start, end, tag in gold[i].spans
                       if tag in TAUGHT_TAGS and not covered[start:end].any()]
        taught = taught_names(marked, "the simulated review")
        analysed, decisions = decided(taught)
        for i in np.flatnonzero(read).tolist():
            decisions[i].decision = EXPERT
        measures = release_metrics(hidden_gold(analysed, hide).gold, analysed.results, decisions)
        rows.append({"round": done, "names_taught": taught.count if taught else 0,
                     **{k: measures[k] for k in (*ABLATION_MEASURES, "person_precision")}})
        if progress:
            progress()
    return rows


def simulated_review_markdown(rows: list[dict], without: dict) -> list[str]:
    """The review loop as a table, beside the same budget read at once with no feedback."""
    lines = ["", "## The review loop (simulated: a perfect reviewer, round by round)", "",
             "In each round a perfect reviewer reads the riskiest messages not read yet and marks there the names "
             "the machines left readable; these are then hidden with their variants in the other messages (as "
             "`classify --workspace` does with a reviewer's marks), which are scored and ranked again. Each row: if "
             "the corpus were released after that round.", "",
             "| round | messages read | names taught | gold spans readable | TA messages leaking | "
             "ordinary words hidden | hidden as a person: identifiers |", "|---|---|---|---|---|---|---|"]
    for label, row in [("the budget read at once, no feedback", {**without, "names_taught": 0}),
                       *((str(row["round"]), row) for row in rows)]:
        precision = row.get("person_precision")
        lines.append(f"| {label} | {_pct(row['expert_share'])} | {row['names_taught']:,} | "
                     f"{_pct(row['residual_span_rate'])} | {_pct(row['message_leak_rate'])} | "
                     f"{_pct(row['over_masking_rate'])} | {'-' if precision is None else _pct(precision)} |")
    return lines


# ---------------------------------------------------------------------- the command


def evidence_from_model(analysed: AnalysedGold, predictor, hide=DEFAULT_HIDE) -> list[Evidence]:
    """What the machines say of each gold message with `predictor` (the preset gold-evidence on the
    analysed gold): its message features (the gold's own when they are the predictor's), the message
    model, the word scorer on the candidate words as it reads them (counted on the texts as written,
    as classify and training.analyse count them, which `analysed.word_rows` then holds)."""
    same = not predictor.normalise and predictor.feature_set == analysed.feature_set
    context = Context(predictor=predictor, feature_set=predictor.feature_set, normalise=predictor.normalise,
                      hide=frozenset(hide))
    pipeline = Pipeline.preset("gold-evidence", context, without=("features",) if same else ())
    batch = pipeline(texts=[m.text for m in analysed.written], analysis=analysed.analysis,
                     word_rows=analysed.word_rows, features=analysed.X)
    analysed.word_rows = batch.word_rows
    return batch.evidence


def _pct(x: float, digits: int = 1) -> str:
    return f"{100 * x:.{digits}f}%"


def _policy_lines(part: dict, policy: str, budget: float) -> list[str]:
    """The policies' table, the readable spans by type and the message model of one evaluated
    model (the main figures or the cross-validated ones)."""
    lines = [
        "| policy | expert budget | residual span rate | message leak rate | expert share | over-masking |",
        "|---|---|---|---|---|---|",
    ]
    paper = part["paper_policy"]
    lines.append(f"| paper (Table 2) | - | {_pct(paper['residual_span_rate'])} | {_pct(paper['message_leak_rate'])} | "
                 f"{_pct(paper['expert_share'])} | {_pct(paper['over_masking_rate'])} |")
    for point in part["budget_curve"]:
        mark = " **(chosen)**" if policy == "budget" and point["budget"] == budget else ""
        lines.append(f"| budget{mark} | {_pct(point['budget'])} | {_pct(point['residual_span_rate'])} | "
                     f"{_pct(point['message_leak_rate'])} | {_pct(point['expert_share'])} | {_pct(point['over_masking_rate'])} |")
    model = part["model"]
    auc = f"{model['roc_auc']:.3f}" if model["roc_auc"] is not None else "n/a"
    chosen = part["chosen"]["residual_by_type"]
    return lines + [
        "",
        f"Gold spans of the hidden categories: {paper['gold_spans']:,} in {paper['messages']:,} messages. Left readable by the chosen policy, by type: "
        + ", ".join(f"{kind} {v['readable']}/{v['spans']}" for kind, v in chosen.items()) + ".",
        "",
        f"Message model (threshold 0.5): accuracy {model['accuracy']:.3f}, balanced accuracy "
        f"{model['balanced_accuracy']:.3f}, ROC AUC {auc}.",
        *(field_markdown(part["field"]) if part.get("field") else []),
    ]


def end_to_end_markdown(data: dict, seek_tables: str) -> str:
    """The report: the model classify uses first (what a user of classify gets), then, when
    measured, a model trained on the gold itself and cross-validated."""
    lines = [
        f"# End-to-end evaluation on {data['gold']}",
        "",
        *_assumptions(data),
        *_evaluated_lines(data, "##"),
    ]
    lines += [
        *(ablation_markdown(data["ablation"], data.get("ablation_of") != "model") if data.get("ablation") else []),
        "",
        seek_tables,
    ]
    return "\n".join(lines)


def several_files_markdown(data: dict, sections: list[dict]) -> str:
    """The report on several gold files: cross-validated together, every figure given per file
    (`sections`: each file's Seek&Hide tables and review loop, as Markdown)."""
    lines = [f"# End-to-end evaluation on {' and '.join(data['gold'])}", "", *_assumptions(data),
             "The files are cross-validated together (a donor's messages in one fold, the donors of two files never "
             "the same), and every figure is given per file: figures of different files are not comparable. The "
             "expert budget is read in each file.", ""]
    for part, section in zip(data["files"], sections):
        lines += [f"## {part['gold']}", "", f"{part['messages']:,} messages.", "",
                  *_evaluated_lines({**part, **{k: data[k] for k in ("how", "policy", "expert_budget")}}, "###"),
                  "", "### Seek&Hide", "", section["seek"].replace("\n## ", "\n#### "), section["review"]]
    return "\n".join(lines)


def _assumptions(data: dict) -> list[str]:
    return [
        "Messages sent to the expert are assumed perfectly handled; TA messages are released with what the "
        "machines hid; NTA messages are released untouched.",
        "",
        f"Categories hidden (--hide): {', '.join(data.get('hide') or DEFAULT_HIDE)}. Only the gold spans of these "
        "categories count as leaks when readable; hiding a word of another category counts as over-masking.",
        "",
    ]


def _evaluated_lines(data: dict, heading: str) -> list[str]:
    """The model classify uses, then the cross-validated one, each under a `heading`."""
    crossed = data.get("cross_validated")
    lines = [
        f"{heading} {_capital(data['how'])}",
        "",
        "What classify gives on these messages with this model.",
        "",
        *_policy_lines(data, data["policy"], data["expert_budget"]),
    ]
    if crossed:
        seeds = crossed.get("seeds")
        lines += [
            "",
            f"{heading} {_capital(crossed['how'])}",
            "",
            "Not the model classify uses: what a model of your own, trained on messages like these "
            "(`triage train GOLD`), would give on messages it never saw.",
            "",
            *_policy_lines(crossed, data["policy"], data["expert_budget"]),
            *(seeds_markdown(seeds) if seeds and len(seeds["seeds"]) > 1 else []),
            *(labels_only_markdown(crossed["labels_only"]) if crossed.get("labels_only") else []),
        ]
    return lines


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]


def files_figure(data: dict):
    """Residual spans against the expert's share, one panel per gold file."""
    from matplotlib.figure import Figure

    parts = data["files"]
    figure = Figure(figsize=(6 * len(parts), 4), layout="constrained")
    for axes, part in zip(figure.subplots(1, len(parts), squeeze=False)[0], parts):
        curve_figure(part, axes)
        axes.set_title(f"{part['gold']}: residual against expert workload", fontsize="medium")
    return figure


def curve_figure(data: dict, axes=None):
    """Residual spans against the expert's share (a matplotlib Figure, no pyplot: a notebook's
    backend is left alone), or drawn on `axes`."""
    from matplotlib.figure import Figure

    figure = None
    if axes is None:
        figure = Figure(figsize=(6, 4), layout="constrained")
        axes = figure.subplots()
    curve = data["budget_curve"]
    axes.plot([100 * p["expert_share"] for p in curve], [100 * p["residual_span_rate"] for p in curve],
              "o-", label="budget policy, the model classify uses")
    if data.get("cross_validated"):
        crossed = data["cross_validated"]["budget_curve"]
        axes.plot([100 * p["expert_share"] for p in crossed], [100 * p["residual_span_rate"] for p in crossed],
                  "^--", color="grey", label="budget policy, a model trained on the gold (cross-validated)")
    paper = data["paper_policy"]
    axes.plot([100 * paper["expert_share"]], [100 * paper["residual_span_rate"]], "s", color="#c0392b",
              label="paper (Table 2)")
    axes.axhline(2, color="grey", linestyle=":", linewidth=1)
    axes.set_xlabel("messages read by the expert (%)")
    axes.set_ylabel("gold spans left readable (%)")
    axes.set_title("Residual identifying spans against expert workload")
    axes.legend()
    return figure


# ---------------------------------------------------------------------- seeds

# The main figures, averaged over the seeds of the cross-validation (each moves by one gold span).
SEED_FIGURES = {
    "residual_span_rate": "gold spans readable",
    "residual_span_rate_without_short": "the same, without spans of two letters or fewer",
    "identifiers_exposed": "identifiers exposed",
    "hidden_precision": "precision of what is hidden",
    "person_precision": "person precision",
    "over_masking_rate": "ordinary words hidden",
    "message_leak_rate": "TA messages leaking",
}


def identifiers_exposed(gold: list[GoldMessage], decisions: list[Decision]) -> float | None:
    """The share of identifiers (one spelling of one category in all the messages of one donor)
    with a mention left readable."""
    counts = identifier_counts(gold, decisions, [m.group or f"\0{i}" for i, m in enumerate(gold)])
    total = sum(row.get("identifiers", 0) for row in counts.values())
    return sum(row.get("exposed", 0) for row in counts.values()) / total if total else None


def main_figures(gold: list[GoldMessage], results: list[SeekResult], decisions: list[Decision]) -> dict:
    """SEED_FIGURES of one policy's decisions on the gold."""
    measures = release_metrics(gold, results, decisions)
    return {name: identifiers_exposed(gold, decisions) if name == "identifiers_exposed" else measures[name]
            for name in SEED_FIGURES}


def seeds_summary(runs: list[dict], seeds: list[int]) -> dict:
    """Mean and standard deviation (n - 1) of SEED_FIGURES over the runs of the cross-validation
    with each seed, and each run's value."""
    figures = {}
    for name in SEED_FIGURES:
        values = np.asarray([run[name] for run in runs if run.get(name) is not None], dtype=float)
        figures[name] = {"mean": float(values.mean()) if len(values) else None,
                         "sd": float(values.std(ddof=1)) if len(values) > 1 else 0.0 if len(values) else None,
                         "values": [run.get(name) for run in runs]}
    return {"seeds": list(seeds), "figures": figures}


def seeds_markdown(summary: dict) -> list[str]:
    """The main figures over the seeds: mean ± standard deviation."""
    seeds = summary["seeds"]
    return ["", f"Over {len(seeds)} seeds of the cross-validation ({', '.join(map(str, seeds))}: the first is "
            "the run above; each other seed also deals the donors into folds at random), mean ± standard deviation:",
            "", *_seeds_table(summary)]


def labels_only_markdown(part: dict) -> list[str]:
    """The main figures of the model from labels alone (run_evaluate's `labelled`), over the seeds."""
    seeds = part["seeds"]["seeds"]
    return ["", f"{_capital(part['how'])}: what `triage train` from labels alone gives a team that labels "
            f"{part['labelled']:,} messages of its corpus (TA or NTA, no spans), the corpus read as one. "
            + (f"Over {len(seeds)} seeds ({', '.join(map(str, seeds))}), mean ± standard deviation:" if len(seeds) > 1
               else f"With seed {seeds[0]}:"),
            "", *_seeds_table(part["seeds"])]


def _seeds_table(summary: dict) -> list[str]:
    lines = ["| figure | mean ± sd | each seed |", "|---|---|---|"]
    for name, label in SEED_FIGURES.items():
        figure = summary["figures"][name]
        if figure["mean"] is None:
            lines.append(f"| {label} | - | - |")
            continue
        each = ", ".join("-" if v is None else _pct(v, 2) for v in figure["values"])
        lines.append(f"| {label} | {_pct(figure['mean'], 2)} ± {100 * figure['sd']:.2f} | {each} |")
    return lines
