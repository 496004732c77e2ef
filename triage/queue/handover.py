"""The expert's queue handed its rows by classify: the rows that may go to the expert are kept as
classify makes them, so that the queue is written without reading the classified file back.

With a share or count of the corpus routed by rank (the exact budget), a row's decision is known
only once every message is ranked: the rows that can still be among the riskiest are kept, and no
more. A row outside the `expected` riskiest of the rows seen so far can never be among the
riskiest of the whole corpus (more rows only push it further down), so that at most `expected`
rows and two chunks are ever held, whatever the size of the corpus; once `expected` rows are
held, a later row no riskier than all of them is not held at all.

A row is held lean: its cells joined into one string, without the anonymised text, which the
queue never reads (at a million messages, 150,000 rows of separate cells would take about three
times the memory)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

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
        self._rows: list = []  # the rows kept (lean), in input order
        self._at = np.zeros(0, dtype=np.int64)  # (ranked) the position of each in the corpus
        self._risk = np.zeros(0, dtype=float)  # (ranked) and its risk
        self._floor = -np.inf  # (ranked) a risk no row kept from now on is at or below

    def __len__(self) -> int:
        return len(self._rows)

    def add(self, columns: Sequence[Sequence[str]], risk: np.ndarray | None = None) -> None:
        """Keep what may go to the expert of a chunk's rows, given column by column (`columns`, in
        the order of this queue's `columns`: the next rows in input order), with each row's risk
        when the corpus is ranked."""
        count = len(columns[self._decision])
        first, self.seen = self.seen, self.seen + count
        if self.expected is None:
            self._rows += self._lean_rows(columns, [at for at, decision in enumerate(columns[self._decision])
                                                    if decision == EXPERT])
            return
        risk = np.asarray(risk, dtype=float)
        if len(risk) != count:
            raise ValueError(f"{count} rows but {len(risk)} risks")
        # A row no riskier than the least risky of `expected` earlier rows can never be chosen
        # (ties go to the earlier rows): it is not kept at all.
        take = np.flatnonzero(~(risk <= self._floor))
        self._rows += self._lean_rows(columns, take.tolist())
        self._at = np.concatenate([self._at, take + first])
        self._risk = np.concatenate([self._risk, risk[take]])
        if len(self._rows) > self.expected + count:
            self._keep(riskiest(self._risk, self.expected))

    def holds(self, chosen: int) -> bool:
        """Whether the rows kept hold every row of `chosen` routed to the expert by rank: the
        rows were kept for `expected` of them (always true without ranking)."""
        return self.expected is None or chosen <= self.expected

    def _keep(self, kept: np.ndarray) -> None:
        self._rows = list(map(self._rows.__getitem__, kept.tolist()))
        self._at, self._risk = self._at[kept], self._risk[kept]
        self._floor = self._risk.min() if len(kept) else np.inf

    def _lean_rows(self, columns: Sequence[Sequence[str]], take: list[int]) -> list:
        """The rows at the positions `take` of `columns`, held lean (lean_cells): their cells but
        the one the queue never reads, left empty."""
        if not take:
            return []
        unread = self._unread
        picked = [[""] * len(take) if k == unread else [column[at] for at in take] for k, column in enumerate(columns)]
        return list(map(lean_cells, zip(*picked)))

    def records(self, chosen: np.ndarray | None = None, display: str = "the classified rows") -> Records:
        """The rows that go to the expert, in input order, as Records of `columns`. With the
        exact budget, `chosen` holds the positions in the corpus of the rows routed to the expert
        (ExactBudget.choose): their decision becomes EXPERT, as in the classified file."""
        if self.expected is None:
            rows, self._rows = self._rows, []
            return Records(self.columns, HandedRows(rows), display)
        chosen = np.asarray(chosen, dtype=np.int64)
        where = np.searchsorted(self._at, chosen)
        if len(chosen) and (where.max() >= len(self._at) or (self._at[where] != chosen).any()):
            raise RuntimeError("the expert queue's rows: a row routed to the expert was not kept")
        decision, kept = self._decision, self._rows
        self._rows, self._at, self._risk = [], self._at[:0], self._risk[:0]  # handed over, not held twice
        return Records(self.columns, HandedRows(list(map(kept.__getitem__, where.tolist())), decision), display)


_SEPARATOR = "\x1f"  # the unit separator, which a row's cells almost never hold


def lean_cells(cells: Sequence[str]) -> str | tuple[str, ...]:
    """A row's cells held lean: joined into one string by the unit separator (one object instead
    of one per cell), or a tuple when a cell holds the separator. cells_of gives them back."""
    joined = _SEPARATOR.join(cells)
    return joined if joined.count(_SEPARATOR) == len(cells) - 1 else tuple(cells)


def cells_of(lean: str | tuple[str, ...]) -> list[str]:
    """The cells of a row held lean (lean_cells)."""
    return lean.split(_SEPARATOR) if lean.__class__ is str else list(lean)


class HandedRows(Sequence):
    """The rows handed over to the queue, each made a list of cells as it is read; read in order,
    each row is let go of once read (the queue reads them once: it holds them its own way), so
    that they are never held twice. With `expert`, the index of the decision cell, made EXPERT
    (the rows routed to the expert by rank)."""

    def __init__(self, rows: list, expert: int | None = None):
        self._rows, self._expert = rows, expert

    def __len__(self) -> int:
        return len(self._rows)

    def __getitem__(self, index):
        if isinstance(index, slice):
            return [self._cells(row) for row in self._rows[index]]
        return self._cells(self._rows[index])

    def __iter__(self) -> Iterator[list[str]]:
        rows = self._rows
        for i in range(len(rows)):
            row, rows[i] = rows[i], None
            yield self._cells(row)

    def _cells(self, row) -> list[str]:
        if row is None:
            raise RuntimeError("the rows handed over to the queue are read once")
        cells = cells_of(row)
        if self._expert is not None:
            cells[self._expert] = EXPERT
        return cells
