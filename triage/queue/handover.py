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
times the memory). Beside an output, the rows held go to a private scratch file once they take more
than LeanRows.IN_MEMORY bytes (LeanRows), so that what a queue waits for takes at most that much
memory, however many and however long its messages."""

from __future__ import annotations

import json
from array import array
from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np

from triage.combiner import riskiest
from triage.errors import OutputRefused
from triage.io import outputs
from triage.io.messages import Records
from triage.schema import EXPERT


class LeanRows:
    """Rows held lean (lean_cells) until a queue is written, each read back by the position it was
    added at. With no `folder`, in a list. With a `folder` (the output's), in a private scratch file
    there (triage.io.outputs.scratch_file: unnamed, gone with the process) that stays in memory up to
    IN_MEMORY bytes: the rows then take at most that much memory, and a few bytes each beside.
    A row whose cells hold the separator (a tuple, almost never) goes there as a JSON list."""

    IN_MEMORY = 8 * 2**20

    def __init__(self, folder: Path | None = None):
        self._list: list | None = [] if folder is None else None
        self._file = None
        if folder is not None:
            # A folder the output will make (its writer makes missing folders): its nearest existing one.
            while not folder.exists() and folder.parent != folder:
                folder = folder.parent
            self._file = outputs.scratch_file(folder, self.IN_MEMORY, binary=True)
        self._folder = folder
        self._starts = array("q")  # where each row starts in the file
        self._tuples: set[int] = set()  # the positions of the rows written as JSON lists (tuples)
        self._end = 0  # where the file's rows end (the next row goes there)
        self._at_end = True  # whether the file is positioned at its end (no row read since the last added)

    def __len__(self) -> int:
        return len(self._list) if self._list is not None else len(self._starts)

    def append(self, lean: str | tuple[str, ...]) -> None:
        if self._list is not None:
            self._list.append(lean)
            return
        if lean.__class__ is not str:
            self._tuples.add(len(self._starts))
            lean = json.dumps(lean, ensure_ascii=False)
        if not self._at_end:
            self._file.seek(self._end)
            self._at_end = True
        data = lean.encode("utf-8", "surrogatepass")
        try:
            self._file.write(data)  # (past IN_MEMORY bytes, the scratch file is made on disk here)
        except OSError as err:
            raise OutputRefused(f"cannot write a scratch file in {self._folder}: {err.strerror or err}") from None
        self._starts.append(self._end)
        self._end += len(data)

    def extend(self, rows) -> None:
        for lean in rows:
            self.append(lean)

    def __getitem__(self, at: int) -> str | tuple[str, ...] | None:
        """The row added at position `at` (None once let go of: see let_go)."""
        if self._list is not None:
            return self._list[at]
        start = self._starts[at]
        stop = self._starts[at + 1] if at + 1 < len(self._starts) else self._end
        self._file.seek(start)
        self._at_end = False
        lean = self._file.read(stop - start).decode("utf-8", "surrogatepass")
        return tuple(json.loads(lean)) if at in self._tuples else lean

    def let_go(self, at: int) -> None:
        """Let go of the row at `at` where it takes memory (in a list): it has been read for the
        last time."""
        if self._list is not None:
            self._list[at] = None

    def keep(self, positions: np.ndarray) -> np.ndarray:
        """Let go of every row but those at `positions` where the rows take memory (a list; the
        scratch file is not memory), and give the positions of the rows kept from now on."""
        if self._list is None:
            return positions
        self._list = list(map(self._list.__getitem__, positions.tolist()))
        return np.arange(len(positions), dtype=np.int64)

    def close(self) -> None:
        """Let go of every row (the scratch file is gone)."""
        if self._file is not None:
            self._file.close()
        if self._list is not None:
            self._list = []


class QueueRows:
    """The cells of the rows of classify's output (`columns`, CLASSIFY_COLUMNS) that may go to the
    expert, chunk after chunk (`add`), but for the anonymised text, which the queue never reads.
    `records` hands them over once.

    `expected`: with the exact budget, how many messages of the corpus go to the expert
    (ExpertBudget.messages of the corpus size): the riskiest rows are kept, each chunk's risks
    given with its cells; None when each row's decision is final as classify makes it (the rows
    decided EXPERT are kept). `folder`: where the rows may be held on disk (LeanRows), the
    output's folder."""

    def __init__(self, columns: Sequence[str], expected: int | None = None, folder: Path | None = None):
        self.columns = list(columns)
        self.expected = expected
        self._decision = self.columns.index("decision")
        # The cell the queue never reads (the anonymised text), left empty in the rows kept: at a
        # million messages, the rows a budget of 10% keeps would hold 100,000 such texts.
        self._unread = self.columns.index("anonymised") if "anonymised" in self.columns else None
        self.seen = 0  # the rows added so far
        self._rows = LeanRows(folder)  # the rows kept (lean), and some let go of (a scratch file keeps them)
        self._entry = np.zeros(0, dtype=np.int64)  # the position in _rows of each row kept, in input order
        self._at = np.zeros(0, dtype=np.int64)  # (ranked) the position of each in the corpus
        self._risk = np.zeros(0, dtype=float)  # (ranked) and its risk
        self._floor = -np.inf  # (ranked) a risk no row kept from now on is at or below

    def __len__(self) -> int:
        return len(self._entry)

    def add(self, columns: Sequence[Sequence[str]], risk: np.ndarray | None = None) -> None:
        """Keep what may go to the expert of a chunk's rows, given column by column (`columns`, in
        the order of this queue's `columns`: the next rows in input order), with each row's risk
        when the corpus is ranked."""
        count = len(columns[self._decision])
        first, self.seen = self.seen, self.seen + count
        if self.expected is None:
            self._hold(columns, [at for at, decision in enumerate(columns[self._decision]) if decision == EXPERT])
            return
        risk = np.asarray(risk, dtype=float)
        if len(risk) != count:
            raise ValueError(f"{count} rows but {len(risk)} risks")
        # A row no riskier than the least risky of `expected` earlier rows can never be chosen
        # (ties go to the earlier rows): it is not kept at all.
        take = np.flatnonzero(~(risk <= self._floor))
        self._hold(columns, take.tolist())
        self._at = np.concatenate([self._at, take + first])
        self._risk = np.concatenate([self._risk, risk[take]])
        if len(self._entry) > self.expected + count:
            self._keep(riskiest(self._risk, self.expected))

    def holds(self, chosen: int) -> bool:
        """Whether the rows kept hold every row of `chosen` routed to the expert by rank: the
        rows were kept for `expected` of them (always true without ranking)."""
        return self.expected is None or chosen <= self.expected

    def _keep(self, kept: np.ndarray) -> None:
        self._entry = self._rows.keep(self._entry[kept])
        self._at, self._risk = self._at[kept], self._risk[kept]
        self._floor = self._risk.min() if len(kept) else np.inf

    def _hold(self, columns: Sequence[Sequence[str]], take: list[int]) -> None:
        """Hold the rows at the positions `take` of `columns` lean (lean_cells): their cells but
        the one the queue never reads, left empty."""
        if not take:
            return
        unread = self._unread
        picked = [[""] * len(take) if k == unread else [column[at] for at in take] for k, column in enumerate(columns)]
        start = len(self._rows)
        self._rows.extend(map(lean_cells, zip(*picked)))
        self._entry = np.concatenate([self._entry, np.arange(start, len(self._rows), dtype=np.int64)])

    def records(self, chosen: np.ndarray | None = None, display: str = "the classified rows") -> Records:
        """The rows that go to the expert, in input order, as Records of `columns`. With the
        exact budget, `chosen` holds the positions in the corpus of the rows routed to the expert
        (ExactBudget.choose): their decision becomes EXPERT, as in the classified file."""
        rows, entries = self._rows, self._entry
        if self.expected is None:
            self._rows, self._entry = LeanRows(), entries[:0]  # handed over, not held twice
            return Records(self.columns, HandedRows(rows, entries), display)
        chosen = np.asarray(chosen, dtype=np.int64)
        where = np.searchsorted(self._at, chosen)
        if len(chosen) and (where.max() >= len(self._at) or (self._at[where] != chosen).any()):
            raise RuntimeError("the expert queue's rows: a row routed to the expert was not kept")
        self._rows, self._entry = LeanRows(), entries[:0]  # handed over, not held twice
        self._at, self._risk = self._at[:0], self._risk[:0]
        return Records(self.columns, HandedRows(rows, entries[where], self._decision), display)


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
    """The rows handed over to the queue (those at `entries` of LeanRows), each made a list of
    cells as it is read. The queue reads them once, in order (it holds them its own way): each row
    is let go of once read, so that they are never held twice, and they cannot be read in order
    again. With `expert`, the index of the decision cell, made EXPERT (the rows routed to the
    expert by rank)."""

    def __init__(self, rows: LeanRows, entries: np.ndarray, expert: int | None = None):
        self._rows, self._entries, self._expert = rows, entries.tolist(), expert
        self._read = False

    def __len__(self) -> int:
        return len(self._entries)

    def __getitem__(self, index):
        if self._read:
            raise RuntimeError("the rows handed over to the queue are read once")
        if isinstance(index, slice):
            return [self._cells(self._rows[entry]) for entry in self._entries[index]]
        return self._cells(self._rows[self._entries[index]])

    def __iter__(self) -> Iterator[list[str]]:
        if self._read:
            raise RuntimeError("the rows handed over to the queue are read once")
        self._read = True
        rows = self._rows
        for entry in self._entries:
            lean = rows[entry]
            rows.let_go(entry)
            yield self._cells(lean)
        rows.close()

    def _cells(self, row) -> list[str]:
        cells = cells_of(row)
        if self._expert is not None:
            cells[self._expert] = EXPERT
        return cells
