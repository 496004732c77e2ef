"""The combiner (Patel et al. 2013, section 5): from what Seek&Hide and the learnt models
say about a message to a decision TA, NTA or EXPERT, and what to hide.

Policies are pluggable: each is a class with a `name` and a `decide` method, registered in
POLICIES. `paper` is the paper's Table 2, exactly. `budget` (the default when the model file
holds a word scorer) hides likely names beyond the dictionary and sends the riskiest
messages to the expert within an explicit budget (see README: "Routing policies").
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

from triage.seekhide import NTA, TA, UNTAGGED

EXPERT = "EXPERT"
DECISIONS = (TA, NTA, EXPERT)


@dataclass
class Evidence:
    """What the machines say about one message."""

    seekhide: str  # TA / NTA / UNTAGGED
    score: float  # the message model's P(TA)
    hidden: list[tuple[int, int, str]]  # what Seek&Hide hides
    candidates: list[tuple[int, int, str, float]] = field(default_factory=list)  # (start, end, tag, P(name))


@dataclass
class Decision:
    decision: str  # TA / NTA / EXPERT
    risk: float  # larger = look at it first
    hidden: list[tuple[int, int, str]]  # what is hidden if the message is released as TA


class Policy(Protocol):
    name: str

    def decide(self, evidence: list[Evidence]) -> list[Decision]: ...


class PaperPolicy:
    """Table 2: agreement decides; disagreement goes to the expert; when Seek&Hide cannot
    tag the message, the model decides. Only Seek&Hide's dictionary words are hidden."""

    name = "paper"

    def __init__(self, threshold: float = 0.5, **_):
        self.threshold = threshold

    def decide(self, evidence):
        out = []
        for e in evidence:
            model = TA if e.score >= self.threshold else NTA
            if e.seekhide == UNTAGGED:
                decision = model
            else:
                decision = e.seekhide if e.seekhide == model else EXPERT
            out.append(Decision(decision, 1.0 - abs(e.score - 0.5) * 2, e.hidden))
        return out


class BudgetPolicy:
    """Hide what is likely a name, then route by risk within an expert budget.

    - Hidden: Seek&Hide's dictionary words and detector hits, plus every candidate word whose
      name probability is at least `hide_threshold`.
    - Risk of a message: the chance that something identifying is still readable, taking the
      candidate words left visible and the message model as independent witnesses:
      1 - prod(1 - p_visible) * (1 - score_weight * P(TA)).
    - The riskiest messages go to the expert: those at or above `risk_threshold`, which the
      model file derives from the expert budget (share of messages a human may read).
    - Otherwise TA when something is hidden, else NTA.
    Defaults were chosen by cross-validation on the development corpus (README).
    """

    name = "budget"

    def __init__(self, risk_threshold: float = 0.5, hide_threshold: float = 0.3, score_weight: float = 0.2, **_):
        self.risk_threshold = risk_threshold
        self.hide_threshold = hide_threshold
        self.score_weight = score_weight

    def hidden_and_risk(self, e: Evidence) -> tuple[list[tuple[int, int, str]], float]:
        hidden = list(e.hidden)
        taken = {(s, t) for s, t, _ in hidden}
        visible = 1.0
        for start, end, tag, p in e.candidates:
            if (start, end) in taken:
                continue
            if p >= self.hide_threshold:
                hidden.append((start, end, tag))
            else:
                visible *= 1.0 - p
        hidden.sort()
        return hidden, 1.0 - visible * (1.0 - self.score_weight * e.score)

    def decide(self, evidence):
        out = []
        for e in evidence:
            hidden, risk = self.hidden_and_risk(e)
            if risk >= self.risk_threshold:
                decision = EXPERT
            else:
                decision = TA if hidden else NTA
            out.append(Decision(decision, risk, hidden))
        return out


POLICIES: dict[str, type] = {PaperPolicy.name: PaperPolicy, BudgetPolicy.name: BudgetPolicy}


def get_policy(name: str, **options) -> Policy:
    from triage.io import InputError

    if name not in POLICIES:
        raise InputError(f"unknown policy {name!r}; choose one of {', '.join(POLICIES)}")
    return POLICIES[name](**options)
