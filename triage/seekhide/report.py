"""The paper's Tables 3 and 4: how Seek&Hide labels a corpus, and against gold labels."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from triage.schema import NTA, TA, UNTAGGED


@dataclass
class SeekTables:
    """The paper's Table 3 (distribution) and Table 4 (confusion on tagged messages)."""

    distribution: Counter  # TA / NTA / UNTAGGED counts
    confusion: dict[tuple[str, str], int] | None  # (seek&hide, gold) -> count, when gold labels exist

    @property
    def total(self) -> int:
        return sum(self.distribution.values())

    @property
    def accuracy(self) -> float | None:
        if not self.confusion:
            return None
        tagged = sum(self.confusion.values())
        right = self.confusion.get((TA, TA), 0) + self.confusion.get((NTA, NTA), 0)
        return right / tagged if tagged else None

    def markdown(self) -> str:
        total = self.total or 1
        lines = [
            "Table 3. Seek&Hide on the sample",
            "",
            "| | Tag: TA | Tag: NTA | Untagged | Total |",
            "|---|---|---|---|---|",
            "| messages | " + " | ".join(
                f"{self.distribution[k]:,} ({100 * self.distribution[k] / total:.2f}%)" for k in (TA, NTA, UNTAGGED)
            ) + f" | {self.total:,} |",
        ]
        if self.confusion is not None:
            c = self.confusion
            lines += [
                "",
                "Table 4. Confusion matrix on tagged messages",
                "",
                "| | Gold: NTA | Gold: TA |",
                "|---|---|---|",
                f"| Seek&Hide: NTA | {c.get((NTA, NTA), 0):,} | {c.get((NTA, TA), 0):,} |",
                f"| Seek&Hide: TA | {c.get((TA, NTA), 0):,} | {c.get((TA, TA), 0):,} |",
                "",
                f"Accuracy on tagged messages: {self.accuracy:.3f}" if self.accuracy is not None else "",
            ]
        return "\n".join(lines).rstrip() + "\n"


def tables(labels: Iterable[str], gold: Iterable[str] | None = None) -> SeekTables:
    labels = list(labels)
    distribution = Counter({TA: 0, NTA: 0, UNTAGGED: 0})
    distribution.update(labels)
    confusion = None
    if gold is not None:
        confusion = Counter((s, g) for s, g in zip(labels, gold) if s != UNTAGGED)
    return SeekTables(distribution, confusion)
