"""The combiner (Patel et al. 2013, section 5): from what Seek&Hide and the learnt models
say about messages to a decision TA, NTA or EXPERT, and what to hide.

Policies are pluggable: each is a class with a `name` and a `decide_batch` method, registered
in POLICIES. `paper` is the paper's Table 2, exactly. `budget` (the default when the model
file holds a word scorer) hides likely names beyond the dictionary and sends the riskiest
messages to the expert within an explicit budget (see docs/method.md: "Routing: the policies").

Policies work on a whole batch at once (EvidenceBatch: arrays over messages and candidate
words), which keeps classify free of per-message Python; `decide` takes and returns one
object per message, for evaluation code and tests.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from triage.errors import BadOption
from triage.schema import DEFAULT_HIDE, EXPERT, HIDE_TAGS, NTA, TA, UNTAGGED, Span
from triage.pipeline.arrays import unique


@dataclass
class Evidence:
    """What the machines say about one message."""

    seekhide: str  # TA / NTA / UNTAGGED
    score: float  # the message model's P(TA)
    hidden: list[Span]  # what Seek&Hide hides
    candidates: list[tuple[int, int, str, float]] = field(default_factory=list)  # (start, end, tag, P(name))
    # (start, end) of the candidates a context rule reads as ordinary words ("une rose"): never
    # hidden by the policy, still counted in the risk
    kept_visible: list[tuple[int, int]] = field(default_factory=list)
    # (start, end) of the candidates Seek&Hide hides only because a name list holds them: the
    # budget policy keeps them hidden only if the word scorer agrees
    scorer_decides: list[tuple[int, int]] = field(default_factory=list)


@dataclass
class Decision:
    decision: str  # TA / NTA / EXPERT
    risk: float  # larger = look at it first
    hidden: list[Span]  # what is hidden if the message is released as TA


@dataclass
class EvidenceBatch:
    """What the machines say about a batch of messages: per message, then per candidate word
    (the words the name scorer looked at, grouped by message, in text order)."""

    seekhide: np.ndarray  # (n,) TA / NTA / UNTAGGED, as objects
    score: np.ndarray  # (n,) the message model's P(TA)
    hidden: list[list[Span]]  # (n,) what Seek&Hide hides, sorted
    message: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))  # (k,) message of each candidate
    start: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    end: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    tag: list[str] = field(default_factory=list)  # PRE / NOM: the code tag if it is hidden
    probability: np.ndarray = field(default_factory=lambda: np.zeros(0))  # P(name)
    taken: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=bool))  # Seek&Hide already hides it
    # a context rule reads it as an ordinary word ("une rose"): never hidden by the policy, but
    # its probability still counts in the risk (by default none)
    kept_visible: np.ndarray | None = None
    # Seek&Hide hides it only because a name list holds it: the budget policy keeps it hidden
    # only if its probability reaches the hide threshold (by default none)
    scorer_decides: np.ndarray | None = None

    def __len__(self) -> int:
        return len(self.score)

    @classmethod
    def from_evidence(cls, evidence: list[Evidence]) -> EvidenceBatch:
        rows = []
        for i, e in enumerate(evidence):
            taken = {(start, end) for start, end, _ in e.hidden}
            kept, decides = set(e.kept_visible), set(e.scorer_decides)
            rows += [(i, start, end, tag, p, (start, end) in taken, (start, end) in kept, (start, end) in decides)
                     for start, end, tag, p in e.candidates]
        message, start, end, tag, probability, taken, kept, decides = zip(*rows) if rows else ((),) * 8
        return cls(
            np.asarray([e.seekhide for e in evidence], dtype=object),
            np.asarray([e.score for e in evidence], dtype=float),
            [list(e.hidden) for e in evidence],
            np.asarray(message, dtype=np.int64), np.asarray(start, dtype=np.int64),
            np.asarray(end, dtype=np.int64), list(tag), np.asarray(probability, dtype=float),
            np.asarray(taken, dtype=bool), np.asarray(kept, dtype=bool), np.asarray(decides, dtype=bool),
        )


@dataclass
class Decisions:
    """The decisions of a batch: per message, then which candidate words are hidden."""

    decision: np.ndarray  # (n,) TA / NTA / EXPERT, as objects
    risk: np.ndarray  # (n,) larger = look at it first
    hidden: list[list[Span]]  # (n,) what is hidden if the message is released as TA
    hides: np.ndarray  # (k,) whether each candidate word is hidden (by Seek&Hide or the policy)

    def __len__(self) -> int:
        return len(self.risk)

    def as_list(self) -> list[Decision]:
        return [Decision(*d) for d in zip(self.decision.tolist(), self.risk.tolist(), self.hidden)]


class Policy(Protocol):
    name: str

    def decide_batch(self, batch: EvidenceBatch) -> Decisions: ...

    def decide(self, evidence: list[Evidence]) -> list[Decision]: ...


class _Policy:
    """What every policy shares: decide() on one Evidence per message, through decide_batch."""

    def decide(self, evidence: list[Evidence]) -> list[Decision]:
        return self.decide_batch(EvidenceBatch.from_evidence(evidence)).as_list()


class PaperPolicy(_Policy):
    """Table 2: agreement decides; disagreement goes to the expert; when Seek&Hide cannot
    tag the message, the model decides. Only Seek&Hide's dictionary words are hidden."""

    name = "paper"

    def __init__(self, threshold: float = 0.5, **_):
        self.threshold = threshold

    def decide_batch(self, batch):
        model = np.where(batch.score >= self.threshold, TA, NTA).astype(object)
        agree = batch.seekhide == model
        decision = np.where(batch.seekhide == UNTAGGED, model, np.where(agree, batch.seekhide, EXPERT))
        risk = 1.0 - np.abs(batch.score - 0.5) * 2
        return Decisions(decision, risk, batch.hidden, batch.taken.copy())


# A candidate word is hidden from this name probability up (and a word a name list alone made
# Seek&Hide hide stays hidden from it up): chosen by donor-grouped cross-validation over the two
# development files of 88milSMS together (19,955 messages, two seeds). From 0.6 to 0.75 the names
# left readable barely moved (41 to 45 of 2,262 on the larger file) while the precision of what
# is hidden as a person rose from 75% to 81% (docs/method.md).
HIDE_THRESHOLD = 0.7


class BudgetPolicy(_Policy):
    """Hide what is likely a name, then route by risk within an expert budget.

    - Hidden: what Seek&Hide hides (detector hits, dictionary words), plus every candidate word
      whose name probability is at least `hide_threshold`, except the words a context rule
      reads as ordinary words ("une rose": `kept_visible`), which stay visible. A word Seek&Hide
      hides only because a name list holds it (`scorer_decides`: "on se vera", "el est là")
      stays hidden only if its name probability reaches `hide_threshold` too; left visible, it
      counts in the risk.
    - Risk of a message: the chance that something identifying is still readable, taking the
      candidate words left visible and the message model as independent witnesses:
      1 - prod(1 - p_visible) * (1 - score_weight * P(TA)).
    - The riskiest messages go to the expert: those at or above `risk_threshold`, which the
      model file derives from the expert budget (share of messages a human may read), when
      messages are routed one batch at a time (classify --calibrated). For an exact budget the
      threshold is infinite and the caller sends the k riskiest of the corpus (`riskiest`):
      that changes only their decision, since what is hidden does not depend on it.
    - Otherwise TA when something is hidden, else NTA.
    Defaults were chosen by cross-validation on the development corpus (docs/evaluation.md).
    """

    name = "budget"

    def __init__(self, risk_threshold: float = 0.5, hide_threshold: float = HIDE_THRESHOLD, score_weight: float = 0.2,
                 **_):
        self.risk_threshold = risk_threshold
        self.hide_threshold = hide_threshold
        self.score_weight = score_weight

    def decide_batch(self, batch):
        p = batch.probability
        taken, hidden = batch.taken, batch.hidden
        if batch.scorer_decides is not None:
            # What a name list alone made Seek&Hide hide stays hidden only if the scorer agrees (and
            # the scorer never hides a word a rule reads as an ordinary word: kept_visible).
            agrees = p >= self.hide_threshold
            if batch.kept_visible is not None:
                agrees &= ~batch.kept_visible
            released = taken & batch.scorer_decides & ~agrees
            if released.any():
                taken = taken & ~released
                hidden = list(hidden)
                freed: dict[int, set[tuple[int, int]]] = {}
                at = np.flatnonzero(released)
                for m, start, end in zip(batch.message[at].tolist(), batch.start[at].tolist(), batch.end[at].tolist()):
                    freed.setdefault(m, set()).add((start, end))
                for m, spans in freed.items():
                    hidden[m] = [span for span in hidden[m] if (span[0], span[1]) not in spans]
        extra = ~taken & (p >= self.hide_threshold)
        if batch.kept_visible is not None:
            extra &= ~batch.kept_visible
        visible = ~taken & ~extra
        # The chance that no visible candidate is a name: the product of (1 - p) over each
        # message's visible candidates, in text order.
        factors = np.where(visible, 1.0 - p, 1.0)
        no_name_left = np.ones(len(batch))
        if len(factors):
            firsts = np.flatnonzero(np.r_[True, batch.message[1:] != batch.message[:-1]])
            no_name_left[batch.message[firsts]] = np.multiply.reduceat(factors, firsts)
        risk = 1.0 - no_name_left * (1.0 - self.score_weight * batch.score)
        if extra.any():
            if hidden is batch.hidden:
                hidden = list(hidden)
            for c in np.flatnonzero(extra).tolist():
                m = int(batch.message[c])
                if hidden[m] is batch.hidden[m]:
                    hidden[m] = list(hidden[m])
                hidden[m].append((int(batch.start[c]), int(batch.end[c]), batch.tag[c]))
            for m in unique(batch.message[extra]).tolist():
                hidden[m].sort()
        something = np.fromiter(map(bool, hidden), dtype=bool, count=len(hidden))
        decision = np.where(risk >= self.risk_threshold, EXPERT, np.where(something, TA, NTA)).astype(object)
        return Decisions(decision, risk, hidden, taken | extra)


POLICIES: dict[str, type] = {PaperPolicy.name: PaperPolicy, BudgetPolicy.name: BudgetPolicy}


def check_policy(name: str) -> None:
    if name not in POLICIES:
        raise BadOption(f"unknown policy {name!r}; choose one of {', '.join(POLICIES)}")


@dataclass(frozen=True)
class ExpertBudget:
    """How many messages a human may read: a share of the corpus (0 <= share <= 1; 1 and 1.0
    both mean every message) or a count of messages (a whole number above 1, e.g. 500)."""

    share: float | None = None
    count: int | None = None

    @classmethod
    def of(cls, value) -> ExpertBudget:
        """The budget a user gave (--expert-budget, expert_budget=), or a one-line BadOption."""
        if isinstance(value, ExpertBudget):
            return value
        try:
            number = float(value)
        except (TypeError, ValueError):
            number = float("nan")
        if isinstance(value, bool) or not np.isfinite(number) or number < 0:
            raise BadOption(f"the expert budget is a share of messages (0 to 1, e.g. 0.05) or a count "
                            f"(a whole number above 1, e.g. 500), not {value!r}")
        if number <= 1:
            return cls(share=number)
        if number != int(number):
            raise BadOption(f"an expert budget above 1 is a count of messages and must be a whole number, "
                            f"not {value!r}")
        return cls(count=int(number))

    def messages(self, n: int) -> int:
        """How many of `n` messages go to the expert: the share of n rounded to the nearest
        (halves up), or the count, at most n."""
        if self.count is not None:
            return min(self.count, n)
        return min(n, int(np.floor(self.share * n + 0.5)))

    def asked(self) -> str:
        """The budget as the user gave it: "10%" or "500 messages"."""
        if self.count is not None:
            return f"{self.count:,} messages"
        return f"{100 * self.share:.4g}%"


def riskiest(risk: np.ndarray, k: int) -> np.ndarray:
    """The positions, in increasing order, of the `k` largest risks; ties at the cut go to the
    earliest positions (input order), so that the choice never depends on how a corpus was
    split into chunks."""
    risk = np.asarray(risk, dtype=float)
    n = len(risk)
    if k <= 0:
        return np.zeros(0, dtype=np.int64)
    if k >= n:
        return np.arange(n, dtype=np.int64)
    cut = np.partition(risk, n - k)[n - k]  # the k-th largest risk
    above = np.flatnonzero(risk > cut)
    tied = np.flatnonzero(risk == cut)[: k - len(above)]
    return np.sort(np.concatenate([above, tied]))


class ExactBudget:
    """The budget policy's second phase, when the whole corpus is ranked: exactly
    `budget.messages(n)` of the n messages go to the expert, the riskiest (`riskiest`: ties in
    input order). The first phase is the BudgetPolicy with no risk threshold, one batch at a
    time (`policy`): it hides and decides TA/NTA; this phase only turns the chosen decisions
    into EXPERT, since what is hidden does not depend on who reads the message.

    classify holds its rows until every risk is known, then sends `choose(risks)`; evaluate
    decides a list of Evidence at once with `decide`."""

    name = BudgetPolicy.name

    def __init__(self, budget, hide_threshold: float = HIDE_THRESHOLD, score_weight: float = 0.2):
        self.budget = ExpertBudget.of(budget)
        self.policy = BudgetPolicy(float("inf"), hide_threshold, score_weight)

    def choose(self, risk: np.ndarray) -> np.ndarray:
        """The positions (increasing) of the messages that go to the expert, given every risk
        of the corpus in input order."""
        return riskiest(risk, self.budget.messages(len(risk)))

    def decide(self, evidence: list[Evidence]) -> list[Decision]:
        decisions = self.policy.decide(evidence)
        for i in self.choose(np.asarray([d.risk for d in decisions], dtype=float)).tolist():
            decisions[i].decision = EXPERT
        return decisions


def check_budget(budget) -> ExpertBudget:
    """The expert budget, checked (see ExpertBudget.of)."""
    return ExpertBudget.of(budget)


def get_policy(name: str, **options) -> Policy:
    check_policy(name)
    return POLICIES[name](**options)


def parse_hide(hide: str | list[str] | tuple[str, ...] | frozenset[str] | set[str]) -> tuple[str, ...]:
    """The categories to hide (`--hide`), in HIDE_TAGS order, from a comma-separated list of
    tags; `default` stands for DEFAULT_HIDE, so "default,LIE,MAR" is the default plus places
    and brands, and `all` for every category (HIDE_TAGS). A list or set of tags is read the same
    way (the Python API)."""
    parts = hide.split(",") if isinstance(hide, str) else list(hide)
    chosen: set[str] = set()
    for part in parts:
        tag = str(part).strip().upper()
        if tag == "DEFAULT":
            chosen.update(DEFAULT_HIDE)
        elif tag == "ALL":
            chosen.update(HIDE_TAGS)
        elif tag in HIDE_TAGS:
            chosen.add(tag)
        elif tag:
            raise BadOption(f"unknown category {str(part).strip()!r} in --hide; choose among "
                            f"{', '.join(HIDE_TAGS)}, 'default' ({','.join(DEFAULT_HIDE)}) or 'all'")
    if not chosen:
        raise BadOption(f"--hide names no category; choose among {', '.join(HIDE_TAGS)}, 'default' or 'all'")
    return tuple(tag for tag in HIDE_TAGS if tag in chosen)


def hide_text(hide: tuple[str, ...]) -> str:
    """The categories of `hide` as a user reads them: 'default' plus what is added."""
    if set(DEFAULT_HIDE) <= set(hide):
        return ",".join(["default", *(tag for tag in hide if tag not in DEFAULT_HIDE)])
    return ",".join(hide)
