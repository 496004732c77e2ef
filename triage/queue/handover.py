"""The expert's queue handed its rows by classify: the rows that may go to the expert are kept as
classify makes them, so that the queue is written without reading the classified file back.

With a share or count of the corpus routed by rank (the exact budget), a row's decision is known
only once every message is ranked: the rows that can still be among the riskiest are kept, and no
more. A row outside the `expected` riskiest of the rows seen so far can never be among the
riskiest of the whole corpus (more rows only push it further down), so that at most one and a half
times `expected` rows and a chunk are ever held, whatever the size of the corpus."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from triage.combiner import riskiest
from triage.io.messages import Records
from triage.schema import EXPERT


class QueueRows:
    """The cells of the rows of classify's output (`columns`, CLASSIFY_COLUMNS) that may go to the
    expert, chunk after chunk (`add`), but for the anonymised text, which the queue never reads.
    `records` hands them over once.

    `expected`: with the exact budget, how many messages of the corpus go to the expert
    (ExpertBudget.messages of the corpus size): the riskiest rows are kept, each chunk's risks
    given with its cells; None when each row's decision is final as classify makes it (the rows
    decided EXPERT are kept)."""

    def __init__(self, columns: Sequence[str], expected: int | None = None):
        self.columns = list(columns)
        self.expected = expected
        self._decision = self.columns.index("decision")
        # The cell the queue never reads (the anonymised text), left empty in the rows kept: at a
        # million messages, the rows a budget of 10% keeps would hold 100,000 such texts.
        self._unread = self.columns.index("anonymised") if "anonymised" in self.columns else None
        self.seen = 0  # the rows added so far
        self._rows: list = []  # the cells of the rows kept, in input order
        self._at = np.zeros(0, dtype=np.int64)  # (ranked) the position of each in the corpus
        self._risk = np.zeros(0, dtype=float)  # (ranked) and its risk

    def __len__(self) -> int:
        return len(self._rows)

    def add(self, cells: Sequence[Sequence[str]], risk: np.ndarray | None = None) -> None:
        """Keep what may go to the expert of a chunk's rows (`cells`, the next rows in input
        order), with each row's risk when the corpus is ranked."""
        first, self.seen = self.seen, self.seen + len(cells)
        if self.expected is None:
            decision = self._decision
            self._rows += map(self._lean, [row for row in cells if row[decision] == EXPERT])
            return
        risk = np.asarray(risk, dtype=float)
        if len(risk) != len(cells):
            raise ValueError(f"{len(cells)} rows but {len(risk)} risks")
        self._rows += cells
        self._at = np.concatenate([self._at, np.arange(first, self.seen, dtype=np.int64)])
        self._risk = np.concatenate([self._risk, risk])
        if len(self._rows) > self.expected + max(self.expected // 2, len(cells)):
            self._keep(riskiest(self._risk, self.expected))

    def holds(self, chosen: int) -> bool:
        """Whether the rows kept hold every row of `chosen` routed to the expert by rank: the
        rows were kept for `expected` of them (always true without ranking)."""
        return self.expected is None or chosen <= self.expected

    def _keep(self, kept: np.ndarray) -> None:
        rows = self._rows
        self._rows = [self._lean(rows[i]) for i in kept.tolist()]
        self._at, self._risk = self._at[kept], self._risk[kept]

    def _lean(self, row: Sequence[str]) -> tuple[str, ...]:
        """A row as kept: its cells, but for the one the queue never reads (empty)."""
        unread = self._unread
        if unread is None or not row[unread]:
            return tuple(row)
        return (*row[:unread], "", *row[unread + 1:])

    def records(self, chosen: np.ndarray | None = None, display: str = "the classified rows") -> Records:
        """The rows that go to the expert, in input order, as Records of `columns`. With the
        exact budget, `chosen` holds the positions in the corpus of the rows routed to the expert
        (ExactBudget.choose): their decision becomes EXPERT, as in the classified file."""
        if self.expected is None:
            rows, self._rows = self._rows, []
            return Records(self.columns, [list(row) for row in rows], display)
        chosen = np.asarray(chosen, dtype=np.int64)
        where = np.searchsorted(self._at, chosen)
        if len(chosen) and (where.max() >= len(self._at) or (self._at[where] != chosen).any()):
            raise RuntimeError("the expert queue's rows: a row routed to the expert was not kept")
        decision, kept = self._decision, self._rows
        self._rows, self._at, self._risk = [], self._at[:0], self._risk[:0]  # handed over, not held twice
        rows = []
        for i in where.tolist():
            row = list(self._lean(kept[i]))
            row[decision] = EXPERT
            rows.append(row)
        return Records(self.columns, rows, display)
