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
(pyproject.toml's import contracts check it). This module holds the facade and its state. Its names
(the item, the refusals, the constants) stay importable from here.
"""

from __future__ import annotations

import json
import os
import shutil  # noqa: F401 (this module's attribute: the tests of the file's errors patch it here)
import sqlite3
from pathlib import Path

from triage.io.messages import Records
from triage.queue.files import read_classified
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
from triage.review_workspace.store.loading import Loading
from triage.review_workspace.store.listing import DOUBLE_FILTERS, SORTS, Listing
from triage.review_workspace.store.opening import Opening
from triage.review_workspace.store.provenance import Provenance
from triage.review_workspace.store.release import Release
from triage.review_workspace.store.tables import SCHEMA_VERSION
from triage.review_workspace.store.taught import Taught

__all__ = [
    "SCHEMA_VERSION", "DEFAULT_AUDIT", "KINDS", "LABELS", "TAGS", "BULK_ACTIONS", "STATUSES", "DOUBLE_FILTERS",
    "SORTS", "LEARN_KINDS", "SCOPES", "FREQUENT_MESSAGES", "marked_names", "DEFAULT_LEASE", "DEFAULT_DOUBLE",
    "CONSISTENCY_BULK", "DISPUTED", "PAUSE", "SIDE_FILES", "WorkspaceUnavailable", "WorkspaceFull",
    "WorkspaceReadOnly", "WorkspaceDamaged", "WorkspaceBusy", "WorkspaceSwapped", "unavailable", "NeedsConfirmation",
    "Conflict", "BulkChanged", "TextChanged", "Item", "FinalRow", "SyncSummary", "default_path", "text_hash",
    "check_spans", "merge_spans", "apply_learnt", "Workspace", "DECISION_ACTIONS", "default_reviewer",
]


class Workspace(Opening, Loading, Provenance, Listing, Leases, Invites, Decisions, DoubleReview, History, Taught,
                Learning, Bulk, Concordance, Figures, Release, ConsistencyDecisions):
    """A review workspace file (see the module's doc). Use as a context manager.

    Its jobs, each a mixin of `store/`: Opening (the file, its format, `meta`), Loading (a
    classified corpus loaded: `sync`, `staging` and `load`), Provenance (what
    classify noted), Listing (the list), Leases, Invites, Decisions (decide, skip, import, undo),
    DoubleReview, History (the log read back), Taught (names taught to classify), Learning (learnt
    words), Bulk, Concordance, Figures (progress, audit estimate), Release (what a release reads),
    ConsistencyDecisions."""

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
