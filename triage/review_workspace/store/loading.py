"""Loading a classified corpus into the workspace (`sync`): every message, the queue, the audit
sample, and what the machines hide in each message (the record the release reads).

The rows reach the workspace in one of two ways, and are loaded by the same code:
- a classified file (`triage review FILE`, `Workspace.sync`), read and checked;
- the rows of a classification as it makes them (`classify --workspace`: `Workspace.staging`),
  so that the file just written is not read back.
Either way they first wait in a temporary table of the workspace's connection (`Staged`), which
takes no lock on the workspace: reviewers keep deciding while a corpus is classified. `load` then
moves them in, in one transaction, so an interrupted load leaves the workspace as it was.
"""

from __future__ import annotations

import hashlib
import json
import operator
import os
import random
import sqlite3
import uuid
from collections.abc import Iterable, Sequence

from triage.errors import BadInput, BadOption
from triage.io.messages import Message, Records, source_name
from triage.pipeline.arrays import string_hashes
from triage.queue.files import UNCERTAINTY_ORDER_SQL, ClassifiedRow, read_classified
from triage.queue.reasons import label_words, reasons, spots
from triage.review_workspace.store.common import DEFAULT_AUDIT, SyncSummary, _now, text_hash
from triage.review_workspace.store.tables import _LISTING_FILL, _SEARCH_REBUILD
from triage.schema import CLASSIFY_COLUMNS, EXPERT

# The columns of the messages table, in its order; a staged row holds them but the text's hash, which SQL works out
# (hash_of_text) for the messages written from it: a corpus classified again with the same texts hashes none.
_COLUMNS = ("id", "position", "text", "text_hash", "seekhide", "model", "score", "decision", "hidden", "highlighted",
            "risk")
_STAGED = tuple(column for column in _COLUMNS if column != "text_hash")
_STAGED_AS_MESSAGES = ", ".join("hash_of_text(text)" if column == "text_hash" else column for column in _COLUMNS)
_STAGE = f"INSERT INTO temp.staged ({', '.join(_STAGED)}) VALUES ({','.join('?' * len(_STAGED))})"
_CELL = {name: CLASSIFY_COLUMNS.index(name) for name in CLASSIFY_COLUMNS}


class Staged:
    """Classified rows on their way into a workspace, in a temporary table of its connection.
    SQLite keeps it in its temporary file, which it removes as soon as it opens it, in the
    system's temporary folder (SQLITE_TMPDIR or TMPDIR choose another): memory stays bounded
    however large the corpus."""

    def __init__(self, db: sqlite3.Connection, display: str):
        self._db = db
        self.display = display
        self.rows = 0
        # The Seek&Hide that classified the rows, when it ran in this process: the reasons of the
        # listed messages read its labels instead of labelling their words again.
        self.seeker = None
        db.execute("DROP TABLE IF EXISTS temp.staged")
        db.execute("CREATE TEMP TABLE staged (id TEXT NOT NULL UNIQUE, position INTEGER PRIMARY KEY, text TEXT NOT NULL, "
                   "seekhide TEXT, model TEXT, score REAL, decision TEXT NOT NULL, hidden TEXT NOT NULL, "
                   "highlighted TEXT NOT NULL, risk REAL)")
        db.create_function("hash_of_text", 1, text_hash, deterministic=True)

    def add_columns(self, columns: Sequence[Sequence[str]]) -> None:
        """Rows of output cells, given column by column in CLASSIFY_COLUMNS order, as the classifier
        makes them (its hidden and highlighted cells are the JSON the workspace keeps): the rows are
        made by zipping the columns, with no Python step per row."""
        def column(name: str) -> Sequence[str]:
            return columns[_CELL[name]]

        def label(name: str) -> Iterable[str]:
            return map(str.upper, map(str.strip, column(name)))

        texts, start = column("text"), self.rows
        try:
            self._db.executemany(_STAGE, zip(
                column("id"), range(start, start + len(texts)), texts, label("seekhide"), label("model"),
                map(float, column("score")), column("decision"), column("hidden"), column("highlighted"),
                map(_number_or_none, column("risk"))))
        except sqlite3.IntegrityError:
            raise BadInput(f"{self.display}: an id appears on more than one row; a review workspace needs unique "
                           "ids (see --id-column)") from None
        self.rows += len(texts)

    def add_parsed(self, rows: Iterable[ClassifiedRow]) -> None:
        """Rows read from a classified file (triage.queue.files.read_classified)."""
        rows = list(rows)
        start = self.rows
        self._db.executemany(_STAGE, (
            (row.id, start + k, row.text, row.seekhide, row.model, row.score, row.decision,
             json.dumps(row.hidden), json.dumps(row.highlighted, ensure_ascii=False), row.risk)
            for k, row in enumerate(rows)))
        self.rows += len(rows)

    def expert(self, positions: Iterable[int]) -> None:
        """The rows at `positions` go to a person (the exact budget's second phase)."""
        self._db.executemany("UPDATE temp.staged SET decision = ? WHERE position = ?",
                             ((EXPERT, int(position)) for position in positions))

    def parsed(self, where: str, parameters: Sequence = ()) -> list[ClassifiedRow]:
        """The staged rows matching `where` (SQL over the staged columns), in corpus order, as
        read_classified gives them."""
        return [_row(record) for record in self._db.execute(
            f"SELECT id, position, text, seekhide, model, score, decision, hidden, highlighted, risk FROM temp.staged "
            f"WHERE {where} ORDER BY position", parameters)]

    def drop(self) -> None:
        self._db.execute("DROP TABLE IF EXISTS temp.staged")


def _number_or_none(cell: str) -> float | None:
    """A number cell (the risk), or None for an empty one."""
    return float(cell) if cell else None


def _row(record) -> ClassifiedRow:
    ident, position, text, seekhide, model, score, decision, hidden, highlighted, risk = record
    message = Message(position + 2, ident, text, {"id": ident, "text": text, "seekhide": seekhide, "model": model})
    return ClassifiedRow(message=message, decision=decision, model=model, score=score, risk=risk,
                         hidden=[tuple(span) for span in json.loads(hidden)], highlighted=json.loads(highlighted))


def _same_rows(db: sqlite3.Connection) -> tuple[bool, bool]:
    """(whether the staged rows hold the texts of the messages, in the same order; whether they
    also hold their ids): the message at rowid k + 1 has the text of the staged row at position k,
    and its id, for every row of both (rowids and positions are then 1..n and 0..n-1, as `load`
    inserts them)."""
    staged, messages, texts, ids = db.execute(
        "SELECT (SELECT count(*) FROM temp.staged), (SELECT count(*) FROM messages), count(*), "
        "coalesce(sum(m.id = s.id), 0) FROM temp.staged s JOIN messages m "
        "ON m.rowid = s.position + 1 AND m.text = s.text"
    ).fetchone()
    same_texts = staged == messages == texts
    return same_texts, same_texts and ids == staged


# The columns a new classification of the same messages may change, and the statement that
# writes them where they changed (the messages and the staged rows in the same order, same ids
# and texts: _same_rows).
_CLASSIFIED = tuple(column for column in _COLUMNS if column not in ("id", "position", "text", "text_hash"))
_CHANGED_ROWS_UPDATED = (
    f"UPDATE messages SET ({', '.join(_CLASSIFIED)}) = (SELECT {', '.join('s.' + c for c in _CLASSIFIED)} "
    "FROM temp.staged s WHERE s.position = messages.rowid - 1) "
    "WHERE rowid IN (SELECT m.rowid FROM messages m JOIN temp.staged s ON s.position = m.rowid - 1 "
    f"WHERE {' OR '.join(f'm.{c} IS NOT s.{c}' for c in _CLASSIFIED)})")


class StoredMessages:
    """The messages of a workspace, as Python's 64-bit hash() of each id (sorted) and of its text
    (beside), in numpy columns: 16 bytes a message, read from the workspace in parts. Valid in the
    process that read them only, the hashes of an id and a text read there match when they are the
    same (but for one chance in 2**64)."""

    def __init__(self, db: sqlite3.Connection):
        import numpy as np

        ids, texts = [np.zeros(0, np.int64)], [np.zeros(0, np.int64)]
        cursor = db.execute("SELECT id, text FROM messages")
        while rows := cursor.fetchmany(10_000):
            ids.append(string_hashes(map(operator.itemgetter(0), rows), len(rows)))
            texts.append(string_hashes(map(operator.itemgetter(1), rows), len(rows)))
        ids, texts = np.concatenate(ids), np.concatenate(texts)
        order = np.argsort(ids, kind="stable")
        self.ids, self.texts = ids[order], texts[order]

    def __len__(self) -> int:
        return len(self.ids)

    def found(self, ids, texts) -> int:
        """How many of the messages given as the string_hashes of their ids and of their texts are
        held with the same id and text."""
        import numpy as np

        if not len(self.ids):
            return 0
        at = np.minimum(np.searchsorted(self.ids, ids), len(self.ids) - 1)
        return int(np.count_nonzero((self.ids[at] == ids) & (self.texts[at] == texts)))


def _released_sample(db: sqlite3.Connection, rng: random.Random, audit: int) -> list[str]:
    """rng.sample of the ids of the staged rows the machines release, in corpus order, `audit` of them
    (or all), without holding every id: `sample` picks by position alone, so the positions among
    those rows are drawn first, then SQL gives the ids at these positions."""
    released = db.execute("SELECT count(*) FROM temp.staged WHERE decision != ?", (EXPERT,)).fetchone()[0]
    picked = rng.sample(range(released), min(audit, released))
    found: dict[int, str] = {}
    for part in _parts(picked):
        found.update(db.execute(
            "SELECT rank, id FROM (SELECT id, row_number() OVER (ORDER BY position) - 1 AS rank FROM temp.staged "
            f"WHERE decision != ?) WHERE rank IN ({','.join('?' * len(part))})", (EXPERT, *part)).fetchall())
    return [found[rank] for rank in picked]


# The listed messages (the queue, then the audit sample) whose rows are read, labelled and written at a time
# by a load: the 100,000 queued messages of 10^6 held about 90 MB read all at once.
LISTED_PART = 10_000


def _parts(values: list, size: int = 500) -> Iterable[list]:
    """`values` in parts small enough for one statement's parameters (SQLite bounds them)."""
    return (values[start:start + size] for start in range(0, len(values), size))


def _file_sha256(path) -> str | None:
    if not isinstance(path, (str, os.PathLike)):
        return None
    digest = hashlib.sha256()
    try:
        with open(path, "rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
    except OSError:
        return None
    return digest.hexdigest()


class Loading:
    """The workspace's job of loading a classified corpus (see the module's docstring)."""

    def sync(self, classified_path: str | os.PathLike[str] | Records, *, audit: int = DEFAULT_AUDIT, seed: int = 0,
             input_path: str | os.PathLike[str] | None = None, seeker=None, id_column: str | None = None,
             text_column: str | None = None, model_file: str | os.PathLike[str] | None = None,
             double: float | None = None) -> SyncSummary:
        """Load (or reload) a classified file: every message, the queue, the audit sample, and what
        the machines hide in each message (the record the release reads). Another corpus's file is
        refused before anything changes; the load is one transaction, so an interrupted sync leaves
        the workspace as it was. `input_path`, `id_column` and `text_column` record the input that
        was classified and how it was read, `model_file` the model file that classified it, for the
        release. `double` marks that share of the queue and of the audit for double review (seeded
        with `seed`); None keeps the share recorded by an earlier sync.
        """
        if audit < 0:
            raise BadOption("--audit must be 0 or more")
        rows = read_classified(classified_path)
        self.check_same_corpus(((row.id, row.text) for row in rows), source_name(classified_path))
        staged = self.staging(source_name(classified_path))
        try:
            staged.add_parsed(rows)
            del rows
            where = classified_path.display if isinstance(classified_path, Records) else os.path.abspath(classified_path)
            return self.load(staged, where, audit=audit, seed=seed, input_path=input_path, seeker=seeker,
                             id_column=id_column, text_column=text_column, model_file=model_file, double=double)
        finally:
            staged.drop()

    def staging(self, display: str) -> Staged:
        """An empty staging table for the rows of a classification, which `load` then moves in."""
        return Staged(self._db, display)

    def load(self, staged: Staged, where: str, *, audit: int = DEFAULT_AUDIT, seed: int = 0,
             input_path: str | os.PathLike[str] | None = None, seeker=None, id_column: str | None = None,
             text_column: str | None = None, model_file: str | os.PathLike[str] | None = None,
             double: float | None = None) -> SyncSummary:
        """Move the `staged` rows in (see sync; `where` names the classified corpus for the release)."""
        if audit < 0:
            raise BadOption("--audit must be 0 or more")
        seeker = seeker or staged.seeker
        if seeker is None:
            from triage import lexicons as lexicon_module
            from triage.seekhide import SeekAndHide

            seeker = SeekAndHide(lexicon_module.default())
        db = self._db
        # The ids of the queued messages in the queue's order (ClassifiedRow.order, as SQL writes it): their rows
        # are read from the staging table a part at a time as they are listed (LISTED_PART), never all at once.
        queued = [ident for ident, in db.execute(
            f"SELECT id FROM temp.staged WHERE decision = ? ORDER BY {UNCERTAINTY_ORDER_SQL}", (EXPERT,))]
        meta = self.meta()
        previous_audit = json.loads(meta.get("audit_ids", "[]"))
        if previous_audit and int(meta.get("audit_size", -1)) == audit:
            # A sampled message stays in the sample while the machines release it, and, once a reviewer
            # decided it (on the same text), even when a new classification queues it: its finding (a
            # leak or none) stays in the estimate.
            reviewed = {row[0]: row[1] for row in db.execute(
                "SELECT id, text_hash FROM decisions WHERE status IN ('decided', 'disputed') "
                "UNION SELECT id, text_hash FROM reviews")}
            still, hashes = set(), {}  # the sampled messages the machines release; the texts' hashes
            for part in _parts(previous_audit):
                marks = ",".join("?" * len(part))
                still.update(row[0] for row in db.execute(
                    f"SELECT id FROM temp.staged WHERE decision != ? AND id IN ({marks})", (EXPERT, *part)))
                hashes.update(db.execute(
                    f"SELECT id, hash_of_text(text) FROM temp.staged WHERE id IN ({marks})", part).fetchall())
            audit_ids = [i for i in previous_audit if i in still or (i in hashes and reviewed.get(i) == hashes[i])]
            sampled = set(audit_ids)
            queued = [ident for ident in queued if ident not in sampled]
        else:
            audit_ids = _released_sample(db, random.Random(seed), audit)
        with self._transaction():
            # An audit message decided before its grounds were kept keeps what the machines hid until now.
            db.execute("INSERT INTO audit_grounds SELECT d.id, m.text_hash, m.hidden FROM decisions d JOIN items i "
                       "USING (id) JOIN messages m USING (id) WHERE i.kind = 'audit' AND d.text_hash = m.text_hash "
                       "ON CONFLICT(id) DO NOTHING")
            # The search index holds each message's text under its rowid: the messages come back with
            # rowids 1, 2... in corpus order, so that a corpus classified again with the same texts in
            # the same order (classify --workspace after a review) keeps its index as it is. With the
            # same ids too, only the rows whose classification changed are written.
            same_texts, same_ids = _same_rows(db)
            db.execute("DELETE FROM items")
            if same_ids:
                db.execute(_CHANGED_ROWS_UPDATED)
            else:
                db.execute("DELETE FROM messages")
                db.execute(f"INSERT INTO messages ({', '.join(_COLUMNS)}) SELECT {_STAGED_AS_MESSAGES} "
                           "FROM temp.staged ORDER BY position")
                if self._searchable and not same_texts:
                    for statement in _SEARCH_REBUILD:
                        db.execute(statement)
            if self._listed:
                db.execute("DELETE FROM listing")
            listed = [(ident, "queue") for ident in queued] + [(i, "audit") for i in audit_ids]
            rank = 0
            for part in _parts(listed, LISTED_PART):
                rows = {}
                for ids in _parts([ident for ident, _ in part]):
                    rows.update((row.id, row) for row in staged.parsed(f"id IN ({','.join('?' * len(ids))})", ids))
                spotted = {ident: spots(rows[ident], all_hidden=True) for ident, _ in part}
                label_words(spotted.values(), seeker)
                said: dict = {}  # the plain reason of each word and tag of the part
                db.executemany("INSERT INTO items VALUES (?,?,?,?)", (
                    (ident, kind, rank + k,
                     json.dumps(reasons(rows[ident], seeker, spotted[ident], said), ensure_ascii=False))
                    for k, (ident, kind) in enumerate(part)))
                rank += len(part)
            if self._listed:
                db.execute(_LISTING_FILL)
            values = dict(classified=where, synced=_now(), sync_id=uuid.uuid4().hex,
                          audit_ids=json.dumps(audit_ids), audit_size=str(audit), audit_seed=str(seed))
            if input_path is not None:
                values["input"] = os.path.abspath(input_path)
                values["input_sha256"] = _file_sha256(input_path) or ""
            if id_column is not None:
                values["id_column"] = id_column
            if text_column is not None:
                values["text_column"] = text_column
            if model_file is not None:
                values["model_file"] = os.path.abspath(model_file) if os.fspath(model_file) else ""
            if double is None and "double_share" in meta:
                double, seed_double = float(meta["double_share"]), int(meta.get("double_seed", 0))
            else:
                seed_double = seed
            if double is not None:
                self._mark_double(double, seed_double)
                values.update(double_share=repr(float(double)), double_seed=str(seed_double))
            self._set_meta(**values)
        kept = db.execute(
            "SELECT count(*) FROM decisions d JOIN messages m USING (id) WHERE d.text_hash = m.text_hash"
        ).fetchone()[0]
        stale = self.count(status="stale")
        return SyncSummary(staged.rows, len(queued), len(audit_ids), kept, stale,
                           self.count(status="pending") + stale)

    def check_same_corpus(self, pairs: Iterable[tuple[str, str]], display: str) -> None:
        """Refuse (BadInput) messages of another corpus: (id, text) pairs of which fewer than half
        of the workspace's messages are found, same id and same text. A new classification of the
        same corpus (another model, a few corrected messages) passes; an empty workspace takes any."""
        stored = self.stored_messages()
        if len(stored):
            pairs = list(pairs)
            ids = string_hashes(map(operator.itemgetter(0), pairs), len(pairs))
            texts = string_hashes(map(operator.itemgetter(1), pairs), len(pairs))
            self.refuse_other_corpus(stored.found(ids, texts), len(stored), display)

    def stored_messages(self) -> StoredMessages:
        """The messages the workspace holds, as StoredMessages (read in parts, never all held at once)."""
        return StoredMessages(self._db)

    def refuse_other_corpus(self, same: int, stored: int, display: str) -> None:
        """check_same_corpus's verdict, given how many of the `stored` messages were found (`same`)."""
        if 2 * same < stored:
            raise BadInput(
                f"{display} is not the corpus of the review workspace {self.path}: only {same:,} of its "
                f"{stored:,} messages are there with the same id and text; give this corpus its own "
                "--workspace (nothing was changed)"
            )


