"""What the workspace's jobs share: the names of routes, labels, tags and statuses; the item a
reviewer looks at and the row a release reads; the refusals a reviewer meets (Conflict,
TextChanged, NeedsConfirmation, BulkChanged); and the small helpers on texts, spans and
reviewers' names that every job uses.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import NamedTuple

from triage.errors import BadOption, InputError
from triage.io.messages import Records
from triage.lexicons import userlexicon
from triage.queue.reasons import word_pattern
from triage.review_workspace.codes import coded
from triage.schema import HIDE_TAGS, NTA, TA
from triage.seekhide.known import KNOWN_TAGS

DEFAULT_AUDIT = 200
KINDS = ("queue", "audit")
LABELS = (TA, NTA)
TAGS = HIDE_TAGS
STATUSES = ("pending", "decided", "skipped", "stale", "disputed")
DISPUTED = "disputed"
LEARN_KINDS = ("name", "word")  # a name is hidden everywhere; an ordinary word is never hidden
# The logged actions that are a reviewer's decision (skips and undos apart).
DECISION_ACTIONS = ("decide", "review", "adjudicate", "import")


def marked_names(spans: list, machine: list) -> list:
    """The first names, surnames and nicknames of a decision's `spans` that the machines did not hide at
    the same place (`machine`): what the reviewer marked."""
    proposed = {(start, end) for start, end, *_ in machine}
    return [[start, end, tag] for start, end, tag in spans if tag in KNOWN_TAGS and (start, end) not in proposed]


class NeedsConfirmation(InputError):
    """Learning this word would hide a frequent ordinary word: ask first, with a preview."""

    def __init__(self, message: str, preview: dict):
        super().__init__(message)
        self.preview = preview


class Conflict(InputError):
    """A decision on a message another reviewer holds (its lease), decided since the page loaded it,
    or awaiting the lead's adjudication: nothing is stored; `conflict` says who and what."""

    def __init__(self, message: str, conflict: dict):
        super().__init__(message)
        self.conflict = conflict


class BulkChanged(InputError):
    """A bulk decision on a list that changed since its preview: nothing is decided (`preview`, when
    set, is the preview anew)."""

    preview: dict | None = None


class TextChanged(InputError):
    """A decision or skip made on a text the message no longer holds (the corpus was classified
    again in between): nothing is stored, the reviewer looks at the message again."""


@dataclass(frozen=True)
class Item:
    """A message a human may look at: a queued one or one of the audit sample."""

    id: str
    position: int
    text: str
    text_hash: str  # text_hash(text): a decision or skip names the text it was made on
    kind: str  # queue or audit
    rank: int
    risk: float | None
    seekhide: str
    model: str
    score: float
    machine_label: str  # the machines' proposal, TA or NTA
    machine_spans: list  # what the machines hide (the classified `hidden`)
    proposal: list  # machine_spans with this corpus's learnt words applied: what accepting hides
    highlighted: list[str]
    reasons: dict[str, str]  # word as written -> why a human should look at it
    label: str | None  # the reviewer's decision, None while undecided
    spans: list | None  # what the reviewer hides, None while undecided
    reviewer: str | None
    decided_at: str | None
    status: str  # pending, decided, skipped, stale, disputed (two reviewers disagree: the lead decides)
    version: int = 0  # the message's last logged action: a decision sent with it is refused if another reviewer acted since
    double: bool = False  # marked for double review (decided blind by two reviewers)

    def as_json(self) -> dict:
        return asdict(self)


class FinalRow(NamedTuple):
    id: str
    position: int
    text: str
    label: str | None  # None: queued and still undecided
    spans: list
    route: str  # machine, reviewer, audit, undecided


@dataclass
class SyncSummary:
    messages: int
    queued: int
    audit: int
    kept: int  # reviewer decisions that still apply
    stale: int  # decided messages whose text changed since
    pending: int  # list items still to look at


def default_path(classified: str | os.PathLike[str]) -> Path:
    """CLASSIFIED.review.sqlite beside the classified file."""
    if isinstance(classified, Records):
        raise BadOption(f"{classified.display} is in memory: name the review workspace (a file) to use")
    path = Path(classified)
    return path.with_name(f"{path.stem}.review.sqlite")


def _label(label) -> str:
    """A decision's label, TA or NTA (any case, spaces around)."""
    label = str(label).strip().upper()
    if label not in LABELS:
        raise coded(BadOption(f"label must be TA or NTA, not {label!r}"), "label_unknown", label=label)
    return label


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def text_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _key(spelling: str) -> str:
    return " ".join(userlexicon.entry(spelling).split())


def check_spans(text: str, spans: Iterable) -> list[list]:
    """Spans as [start, end, TAG] lists, sorted, inside the text, not overlapping."""
    result: list[list] = []
    try:
        for start, end, tag in spans:
            if not (type(start) is int and type(end) is int and isinstance(tag, str)):
                raise TypeError
            if tag not in TAGS:
                raise coded(BadOption(f"unknown tag {tag!r}; use one of {' '.join(TAGS)}"), "tag_unknown", tag=tag,
                            tags=" ".join(TAGS))
            if not 0 <= start < end <= len(text):
                raise coded(BadOption(f"span [{start}, {end}] is outside the message ({len(text)} characters)"),
                            "span_outside", start=start, end=end, length=len(text))
            result.append([start, end, tag])
    except (TypeError, ValueError):
        raise coded(BadOption("spans must be a list of [start, end, TAG]"), "spans_invalid") from None
    result.sort()
    for (_, end, _), (start, _, _) in zip(result, result[1:]):
        if start < end:
            raise coded(BadOption("spans overlap"), "spans_overlap")
    return result


def merge_spans(spans: Iterable) -> list[list]:
    """Spans as sorted [start, end, TAG], overlapping ones merged (the first one's tag kept)."""
    out: list[list] = []
    for start, end, tag in sorted((list(span) for span in spans), key=lambda span: (span[0], span[1])):
        if out and start < out[-1][1]:
            out[-1][1] = max(out[-1][1], end)
        else:
            out.append([start, end, tag])
    return out


def apply_learnt(text: str, spans: list, names: list[tuple[str, str]], words: set[str]) -> list:
    """`spans` with the learnt names hidden wherever they occur (as whole words, any case) and
    the learnt ordinary words no longer hidden."""
    out = [list(span) for span in spans if _key(text[span[0]:span[1]]) not in words]
    for spelling, tag in names:
        for hit in word_pattern(spelling).finditer(text):
            start, end = hit.span()
            if all(end <= s or start >= e for s, e, _ in out):
                out.append([start, end, tag])
    out.sort()
    return out


def _reviewer(name: str | None) -> str:
    name = " ".join(str(name or "").split())
    if not name:
        raise coded(BadOption("a reviewer name is needed"), "reviewer_missing")
    return name[:80]


def default_reviewer() -> str:
    """The login name: who decided, in the audit log, unless --reviewer says otherwise."""
    import getpass

    try:
        return getpass.getuser()
    except Exception:  # no login name (some containers): still a name in the log
        return "reviewer"
