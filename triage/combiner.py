"""The combiner (Patel et al. 2013, section 5): from Seek&Hide's label and the learnt
model's score to a decision TA, NTA or EXPERT.

Policies are pluggable: each is a class with a `name` and a `decide` method, registered in
POLICIES. `paper` is the paper's Table 2, exactly; later policies are added beside it.
"""

from __future__ import annotations

from typing import Protocol

import numpy as np

from triage.seekhide import NTA, TA, UNTAGGED

EXPERT = "EXPERT"
DECISIONS = (TA, NTA, EXPERT)


class Policy(Protocol):
    name: str

    def decide(self, seekhide: np.ndarray, score: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(decisions, risk) for arrays of Seek&Hide labels and model P(TA).

        `risk` orders the expert's queue: larger means look at it first."""
        ...


def model_labels(score: np.ndarray, threshold: float = 0.5) -> np.ndarray:
    return np.where(np.asarray(score) >= threshold, TA, NTA)


class PaperPolicy:
    """Table 2: agreement decides; disagreement goes to the expert; when Seek&Hide cannot
    tag the message, the model decides."""

    name = "paper"

    def __init__(self, threshold: float = 0.5):
        self.threshold = threshold

    def decide(self, seekhide, score):
        seekhide = np.asarray(seekhide)
        model = model_labels(score, self.threshold)
        decisions = np.where(
            seekhide == UNTAGGED, model, np.where(seekhide == model, seekhide, EXPERT)
        ).astype(object)
        risk = 1.0 - np.abs(np.asarray(score, dtype=float) - 0.5) * 2  # most uncertain first
        return decisions, risk


POLICIES: dict[str, type] = {PaperPolicy.name: PaperPolicy}
DEFAULT_POLICY = PaperPolicy.name


def get_policy(name: str, **options) -> Policy:
    from triage.io import InputError

    if name not in POLICIES:
        raise InputError(f"unknown policy {name!r}; choose one of {', '.join(POLICIES)}")
    return POLICIES[name](**options)
