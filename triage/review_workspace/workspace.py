"""The review workspace: one SQLite file where all of a corpus's human review work lives.

It holds the whole classified corpus (so that previews and the release see every message),
the reviewer's list (the queue, riskiest first, then a seeded audit sample of messages the
machines released on their own), the current decision of each message, an append-only log
of every action with its before and after (label and hidden spans), and the words learnt
for this corpus. Decisions are keyed by message id and a hash of the text, so they survive
a new classification of the same corpus (new model, new lexicon); a message whose text
changed is marked stale and goes back to the reviewer.

The file is opened in WAL mode and every decision is one transaction: killing the process
at any moment loses at most the decision in flight. This module and those of `store/` are the
only ones that speak SQL.

`Workspace` is the one object callers use. It is composed of one mixin per job, each in its own
module of `store/` (opening the file, the list, leases, invites, decisions and undo, double review,
the log, taught names, learnt words, bulk decisions, the concordance, figures, what a release
reads, consistency decisions; CONTRIBUTING.md maps them). Mixins rather than small objects the
facade delegates to: the jobs share one connection and one transaction, and call each other's
steps (a decision checks the leases and applies the learnt words; the release reads the double
review's halves; the consistency cases read the released rows), so small objects would each need
the others handed to them, and every public method would be written twice. So that each job stays
in one obvious place, no module of `store/` imports another job's module: they share only
`store.common` (names, the item, the refusals a reviewer meets, helpers), `store.tables` (the
format) and `store.connection` (the file), and what a job needs of another it calls on `self`
(pyproject.toml's import contracts check it). This module holds the facade, its state, and the job
the others start from: loading a classified file (`sync`). Its names (the item, the refusals, the
constants) stay importable from here.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import shutil  # noqa: F401 (this module's attribute: the tests of the file's errors patch it here)
import sqlite3
import uuid
from collections.abc import Iterable
from pathlib import Path

from triage.errors import BadInput, BadOption
from triage.io.messages import Records, source_name
from triage.queue import read_classified
from triage.reasons import reasons
from triage.review_workspace.agreement import PAUSE
from triage.review_workspace.store.bulk import BULK_ACTIONS, Bulk
from triage.review_workspace.store.common import (
    DECISION_ACTIONS,
    DEFAULT_AUDIT,
    DISPUTED,
    KINDS,
    LABELS,
    LEARN_KINDS,
    STATUSES,
    TAGS,
    BulkChanged,
    Conflict,
    FinalRow,
    Item,
    NeedsConfirmation,
    SyncSummary,
    TextChanged,
    _now,
    apply_learnt,
    check_spans,
    default_path,
    default_reviewer,
    marked_names,
    merge_spans,
    text_hash,
)
from triage.review_workspace.store.concordance import Concordance
from triage.review_workspace.store.connection import (
    SIDE_FILES,
    WorkspaceBusy,
    WorkspaceDamaged,
    WorkspaceFull,
    WorkspaceReadOnly,
    WorkspaceSwapped,
    WorkspaceUnavailable,
    unavailable,
)
from triage.review_workspace.store.consistency_decisions import CONSISTENCY_BULK, ConsistencyDecisions
from triage.review_workspace.store.decisions import Decisions
from triage.review_workspace.store.double import DEFAULT_DOUBLE, DoubleReview
from triage.review_workspace.store.figures import Figures
from triage.review_workspace.store.history import History
from triage.review_workspace.store.invites import Invites
from triage.review_workspace.store.learning import FREQUENT_MESSAGES, SCOPES, Learning
from triage.review_workspace.store.leases import DEFAULT_LEASE, Leases
from triage.review_workspace.store.listing import DOUBLE_FILTERS, SORTS, Listing
from triage.review_workspace.store.opening import Opening
from triage.review_workspace.store.provenance import Provenance
from triage.review_workspace.store.release import Release
from triage.review_workspace.store.tables import _LISTING_FILL, _SEARCH_REBUILD, SCHEMA_VERSION
from triage.review_workspace.store.taught import Taught

__all__ = [
    "SCHEMA_VERSION", "DEFAULT_AUDIT", "KINDS", "LABELS", "TAGS", "BULK_ACTIONS", "STATUSES", "DOUBLE_FILTERS",
    "SORTS", "LEARN_KINDS", "SCOPES", "FREQUENT_MESSAGES", "marked_names", "DEFAULT_LEASE", "DEFAULT_DOUBLE",
    "CONSISTENCY_BULK", "DISPUTED", "PAUSE", "SIDE_FILES", "WorkspaceUnavailable", "WorkspaceFull",
    "WorkspaceReadOnly", "WorkspaceDamaged", "WorkspaceBusy", "WorkspaceSwapped", "unavailable", "NeedsConfirmation",
    "Conflict", "BulkChanged", "TextChanged", "Item", "FinalRow", "SyncSummary", "default_path", "text_hash",
    "check_spans", "merge_spans", "apply_learnt", "Workspace", "DECISION_ACTIONS", "default_reviewer",
]


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


class Workspace(Opening, Provenance, Listing, Leases, Invites, Decisions, DoubleReview, History, Taught, Learning,
                Bulk, Concordance, Figures, Release, ConsistencyDecisions):
    """A review workspace file (see the module's doc). Use as a context manager.

    Its jobs, each a mixin of `store/`: Opening (the file, its format, `meta`), Provenance (what
    classify noted), Listing (the list), Leases, Invites, Decisions (decide, skip, import, undo),
    DoubleReview, History (the log read back), Taught (names taught to classify), Learning (learnt
    words), Bulk, Concordance, Figures (progress, audit estimate), Release (what a release reads),
    ConsistencyDecisions; `sync` is here."""

    def __init__(self, connection: sqlite3.Connection, path: Path):
        self._db = connection
        self.path = path
        self._learnt_cache: tuple[list[tuple[str, str]], set[str]] | None = None
        self._learnt_version: int | None = None  # SQLite's data_version when the cache was read
        self._identity: tuple[str, tuple[int, int]] | None = None
        self._searchable = False  # the trigram search index is there (see _search_index)
        self._listed = False  # the narrow copy of the list is there (see _listing)
        self._synced_counts: tuple[str | None, dict] | None = None  # see _counts_of_sync
        self.last_undone = 0  # how many decisions the last undo took back (a bulk decision: all of its)

    # -------------------------------------------------------------------- sync

    def sync(self, classified_path: str | os.PathLike[str], *, audit: int = DEFAULT_AUDIT, seed: int = 0,
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
        if seeker is None:
            from triage import lexicons as lexicon_module
            from triage.seekhide import SeekAndHide

            seeker = SeekAndHide(lexicon_module.default())
        queued = sorted((row for row in rows if row.decision == "EXPERT"), key=lambda row: row.order)
        released_ids = [row.id for row in rows if row.decision != "EXPERT"]
        meta = self.meta()
        previous_audit = json.loads(meta.get("audit_ids", "[]"))
        by_id = {row.id: row for row in rows}
        if previous_audit and int(meta.get("audit_size", -1)) == audit:
            # A sampled message stays in the sample while the machines release it, and, once a reviewer
            # decided it (on the same text), even when a new classification queues it: its finding (a
            # leak or none) stays in the estimate.
            still = set(released_ids)
            reviewed = {row[0]: row[1] for row in self._db.execute(
                "SELECT id, text_hash FROM decisions WHERE status IN ('decided', 'disputed') "
                "UNION SELECT id, text_hash FROM reviews")}
            audit_ids = [i for i in previous_audit if i in still or
                         (i in by_id and reviewed.get(i) == text_hash(by_id[i].text))]
            sampled = set(audit_ids)
            queued = [row for row in queued if row.id not in sampled]
        else:
            audit_ids = random.Random(seed).sample(released_ids, min(audit, len(released_ids)))
        with self._transaction():
            db = self._db
            # An audit message decided before its grounds were kept keeps what the machines hid until now.
            db.execute("INSERT INTO audit_grounds SELECT d.id, m.text_hash, m.hidden FROM decisions d JOIN items i "
                       "USING (id) JOIN messages m USING (id) WHERE i.kind = 'audit' AND d.text_hash = m.text_hash "
                       "ON CONFLICT(id) DO NOTHING")
            db.execute("DELETE FROM items")
            db.execute("DELETE FROM messages")
            db.executemany(
                "INSERT INTO messages VALUES (?,?,?,?,?,?,?,?,?,?,?)",
                (
                    (row.id, position, row.text, text_hash(row.text), row.seekhide, row.model, row.score,
                     row.decision, json.dumps(row.hidden), json.dumps(row.highlighted, ensure_ascii=False), row.risk)
                    for position, row in enumerate(rows)
                ),
            )
            if self._searchable:
                db.execute(_SEARCH_REBUILD)
            if self._listed:
                db.execute("DELETE FROM listing")
            listed = [(row.id, "queue") for row in queued] + [(i, "audit") for i in audit_ids]
            db.executemany(
                "INSERT INTO items VALUES (?,?,?,?)",
                (
                    (ident, kind, rank, json.dumps(reasons(by_id[ident], seeker), ensure_ascii=False))
                    for rank, (ident, kind) in enumerate(listed)
                ),
            )
            if self._listed:
                db.execute(_LISTING_FILL)
            where = classified_path.display if isinstance(classified_path, Records) else os.path.abspath(classified_path)
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
        kept = self._db.execute(
            "SELECT count(*) FROM decisions d JOIN messages m USING (id) WHERE d.text_hash = m.text_hash"
        ).fetchone()[0]
        stale = self.count(status="stale")
        return SyncSummary(len(rows), len(queued), len(audit_ids), kept, stale,
                           self.count(status="pending") + stale)

    def check_same_corpus(self, pairs: Iterable[tuple[str, str]], display: str) -> None:
        """Refuse (BadInput) messages of another corpus: (id, text) pairs of which fewer than half
        of the workspace's messages are found, same id and same text. A new classification of the
        same corpus (another model, a few corrected messages) passes; an empty workspace takes any."""
        stored = dict(self._db.execute("SELECT id, text_hash FROM messages").fetchall())
        if not stored:
            return
        same = sum(1 for ident, text in pairs if stored.get(ident) == text_hash(text))
        if 2 * same < len(stored):
            raise BadInput(
                f"{display} is not the corpus of the review workspace {self.path}: only {same:,} of its "
                f"{len(stored):,} messages are there with the same id and text; give this corpus its own "
                "--workspace (nothing was changed)"
            )

    def count_messages(self) -> int:
        return self._db.execute("SELECT count(*) FROM messages").fetchone()[0]

    def disagreements(self, classified_path: str | os.PathLike[str] | Records) -> list[str]:
        """The ids of the messages on which a classified file and the workspace's record differ
        (text, decision or hidden spans), with those in only one of the two; [] when they agree."""
        rows = read_classified(classified_path)
        stored = {row["id"]: (row["text_hash"], row["decision"], row["hidden"]) for row in
                  self._db.execute("SELECT id, text_hash, decision, hidden FROM messages")}
        differ: list[str] = []
        for row in rows:
            recorded = stored.pop(row.id, None)
            if recorded != (text_hash(row.text), row.decision, json.dumps(row.hidden)):
                differ.append(row.id)
        differ.extend(stored)  # in the workspace, not in the file
        return differ
