"""The review workspace: one SQLite file where all of a corpus's human review work lives.

It holds the whole classified corpus (so that previews and the release see every message),
the reviewer's list (the queue, riskiest first, then a seeded audit sample of messages the
machines released on their own), the current decision of each message, an append-only log
of every action with its before and after (label and hidden spans), and the words learnt
for this corpus. Decisions are keyed by message id and a hash of the text, so they survive
a new classification of the same corpus (new model, new lexicon); a message whose text
changed is marked stale and goes back to the reviewer.

The file is opened in WAL mode and every decision is one transaction: killing the process
at any moment loses at most the decision in flight. This is the only module that speaks SQL.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import shutil  # noqa: F401 (this module's attribute: the tests of the file's errors patch it here)
import sqlite3
import uuid
from collections import Counter
from collections.abc import Iterable
from pathlib import Path

from triage.errors import BadInput, BadOption
from triage.review_workspace.agreement import PAUSE
from triage.review_workspace.codes import coded
from triage.io.messages import Records, source_name
from triage.queue import read_classified
from triage.reasons import reasons
from triage.review_workspace.store.connection import (
    SIDE_FILES,
    WorkspaceUnavailable,
    WorkspaceFull,
    WorkspaceReadOnly,
    WorkspaceDamaged,
    WorkspaceBusy,
    WorkspaceSwapped,
    unavailable,
)
from triage.review_workspace.store.tables import (
    SCHEMA_VERSION,
    _CONSISTENCY,
    _SEARCH_REBUILD,
    _LISTING_FILL,
)
from triage.review_workspace.store.common import (
    DEFAULT_AUDIT,
    KINDS,
    LABELS,
    TAGS,
    STATUSES,
    DISPUTED,
    LEARN_KINDS,
    DECISION_ACTIONS,
    marked_names,
    NeedsConfirmation,
    Conflict,
    BulkChanged,
    TextChanged,
    Item,
    FinalRow,
    SyncSummary,
    default_path,
    _now,
    text_hash,
    check_spans,
    merge_spans,
    apply_learnt,
    _reviewer,
    default_reviewer,
)
from triage.review_workspace.store.opening import Opening
from triage.review_workspace.store.provenance import Provenance
from triage.review_workspace.store.listing import Listing, DOUBLE_FILTERS, SORTS
from triage.review_workspace.store.leases import Leases, DEFAULT_LEASE
from triage.review_workspace.store.invites import Invites
from triage.review_workspace.store.decisions import Decisions
from triage.review_workspace.store.double import DoubleReview, DEFAULT_DOUBLE
from triage.review_workspace.store.history import History
from triage.review_workspace.store.taught import Taught
from triage.review_workspace.store.learning import Learning, SCOPES, FREQUENT_MESSAGES
from triage.review_workspace.store.bulk import Bulk, BULK_ACTIONS
from triage.review_workspace.store.concordance import Concordance
from triage.review_workspace.store.figures import Figures
from triage.review_workspace.store.release import Release

__all__ = [
    "SCHEMA_VERSION", "DEFAULT_AUDIT", "KINDS", "LABELS", "TAGS", "BULK_ACTIONS", "STATUSES", "DOUBLE_FILTERS",
    "SORTS", "LEARN_KINDS", "SCOPES", "FREQUENT_MESSAGES", "marked_names", "DEFAULT_LEASE", "DEFAULT_DOUBLE",
    "CONSISTENCY_BULK", "DISPUTED", "PAUSE", "SIDE_FILES", "WorkspaceUnavailable", "WorkspaceFull",
    "WorkspaceReadOnly", "WorkspaceDamaged", "WorkspaceBusy", "WorkspaceSwapped", "unavailable", "NeedsConfirmation",
    "Conflict", "BulkChanged", "TextChanged", "Item", "FinalRow", "SyncSummary", "default_path", "text_hash",
    "check_spans", "merge_spans", "apply_learnt", "Workspace", "DECISION_ACTIONS", "default_reviewer",
]


#: The consistency cases one bulk decision names at most (a page of the list is 25 to 100; the command line's
#: --consistency-all names every case its filters find).
CONSISTENCY_BULK = 50_000


def _public_case(case: dict | None, *, mentions: bool = True) -> dict | None:
    from triage.review_workspace.consistency import public

    return None if case is None else public(case, mentions=mentions)


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


class Workspace(Opening, Provenance, Listing, Leases, Invites, Decisions, DoubleReview, History, Taught, Learning, Bulk, Concordance, Figures, Release):
    """A review workspace file (see the module's doc). Use as a context manager."""

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


    def consistency_decisions(self) -> dict[tuple[str, str], dict]:
        """The consistency cases decided, (kind, key) -> {"decision", "reviewer", "at", "grounds", "seq"}:
        `grounds` the hidden mentions ([id, start, end]) it was taken on (None for a decision stored
        before they were kept), `seq` its event in the log."""
        exists = self._db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'consistency'").fetchone()
        if not exists:  # a workspace made before consistency cases were decided
            return {}
        columns = {row[1] for row in self._db.execute("PRAGMA table_info(consistency)")}
        seqs = {row[0]: row[1] for row in self._db.execute(
            "SELECT id, max(seq) FROM events WHERE action IN ('consistency', 'consistency-undo') GROUP BY id")}
        return {(r["kind"], r["key"]): {
            "decision": r["decision"], "reviewer": r["reviewer"], "at": r["at"],
            "grounds": json.loads(r["grounds"]) if "grounds" in columns and r["grounds"] is not None else None,
            "seq": seqs.get(f"{r['kind']}:{r['key']}", 0)} for r in self._db.execute("SELECT * FROM consistency")}

    def _consistency_table(self) -> None:
        """The consistency table, made on first use (with its grounds column on an older one)."""
        self._db.execute(_CONSISTENCY)
        columns = {row[1] for row in self._db.execute("PRAGMA table_info(consistency)")}
        if "grounds" not in columns:  # decided before decisions kept their grounds
            self._db.execute("ALTER TABLE consistency ADD COLUMN grounds TEXT")
        self._batch_column()  # a decision for many cases is undone whole

    def _store_consistency(self, case: dict, decision: str, reviewer: str, at: str, before: dict | None,
                           batch: str | None = None) -> None:
        """Store a case's decision and log it, with the decision it replaces whole (decision, reviewer,
        time, grounds; null: undecided), which its undo restores; `batch` ties a bulk decision's."""
        kind, key = case["kind"], case["key"]
        self._db.execute(
            "INSERT INTO consistency (kind, key, decision, reviewer, at, grounds) VALUES (?,?,?,?,?,?) "
            "ON CONFLICT(kind, key) DO UPDATE SET decision = excluded.decision, reviewer = excluded.reviewer, "
            "at = excluded.at, grounds = excluded.grounds",
            (kind, key, decision, reviewer, at, json.dumps(case["mentions"], ensure_ascii=False)))
        self._db.execute(
            "INSERT INTO events (id, text_hash, reviewer, at, action, status_before, spans_before, status_after, "
            "batch) VALUES (?,?,?,?,?,?,?,?,?)",
            (f"{kind}:{key}", "", reviewer, at, "consistency", before["decision"] if before else None,
             json.dumps(_stored_row(before), ensure_ascii=False), decision, batch))

    def consistency_recent(self, *, reviewer: str, limit: int = 8) -> list[dict]:
        """The reviewer's last consistency decisions that still apply, newest first, a bulk decision as
        one entry: the first is what `undo_consistency` takes back next, and its `seq` what the undo
        names. Each is {seq, kind, key, decision, before (the decision it replaced, None: undecided),
        at, cases (how many the entry decided: more than one for a bulk decision)}."""
        reviewer = _reviewer(reviewer)
        if not self._has_consistency_events():
            return []
        batched = "batch" in {row[1] for row in self._db.execute("PRAGMA table_info(events)")}
        rows = self._db.execute(
            f"SELECT seq, id, status_before, status_after, at, {'batch' if batched else 'NULL AS batch'} FROM events "
            "WHERE reviewer = ? AND action = 'consistency' AND undone = 0 ORDER BY seq DESC", (reviewer,))
        out: list[dict] = []
        for row in rows:
            if row["batch"] is not None and out and out[-1]["batch"] == row["batch"]:
                out[-1]["cases"] += 1
                continue
            if len(out) == max(0, int(limit)):
                break
            kind, _, key = row["id"].partition(":")
            out.append({"seq": row["seq"], "kind": kind, "key": key, "decision": row["status_after"],
                        "before": row["status_before"], "at": row["at"], "cases": 1, "batch": row["batch"]})
        return out

    def _has_consistency_events(self) -> bool:
        return self._db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'consistency'"
                                ).fetchone() is not None

    def undo_consistency(self, *, reviewer: str, seq: int | None = None, digest: str | None = None) -> dict:
        """Undo the reviewer's last consistency decision that is not undone yet: one case, or every case
        of a bulk decision. Each case gets back exactly the decision it had before (who took it, when,
        on which grounds), or none; the undo is logged (`consistency-undo`) and the decisions it takes
        back are marked undone.

        As a decision, an undo makes nothing readable without asking: when it would show text the
        release hides now (a `hide` taken back: the readable mentions it hid; a `readable` brought back:
        the hidden mentions it shows), nothing is undone without the preview's `digest`
        (NeedsConfirmation, the preview attached); with another digest (a case changed since),
        nothing is undone (BulkChanged, with the new preview). `seq` names the decision the page showed
        as the next to undo: when it is no longer the reviewer's last, nothing is undone (Conflict); nor
        when anyone decided or undid one of its cases since (Conflict: undoing would take that back too).
        Returns {undone (cases), cases ([{kind, key, decision: undone, restored}]), readable,
        readable_messages, readable_tags, reviewer, at}; undone 0 when there is nothing to undo."""
        if seq is not None and type(seq) is not int:
            raise coded(BadOption("seq must be the decision's, as the list of last consistency decisions gives it"),
                        "consistency_undo_seq_invalid")
        if digest is not None and not isinstance(digest, str):
            raise coded(BadOption("digest must be the undo preview's digest, as sent with it"),
                        "consistency_undo_digest_invalid")
        reviewer = _reviewer(reviewer)
        at = _now()
        empty = {"undone": 0, "cases": [], "readable": 0, "readable_messages": 0, "readable_tags": {},
                 "reviewer": reviewer, "at": at}
        if not self._has_consistency_events():
            if seq is not None:
                raise coded(Conflict("cannot undo: your last consistency decision is no longer the one your page "
                                     "showed (undone, or followed by another, in another page): nothing was undone",
                                     {"kind": "undo", "reviewer": reviewer, "seq": None}), "consistency_undo_not_last")
            return empty
        with self._transaction():
            self._batch_column()
            last = self._db.execute(
                "SELECT * FROM events WHERE reviewer = ? AND action = 'consistency' AND undone = 0 "
                "ORDER BY seq DESC LIMIT 1", (reviewer,)).fetchone()
            if seq is not None and (last is None or last["seq"] != seq):
                raise coded(Conflict("cannot undo: your last consistency decision is no longer the one your page "
                                     "showed (undone, or followed by another, in another page): nothing was undone",
                                     {"kind": "undo", "reviewer": reviewer, "seq": last["seq"] if last else None}),
                            "consistency_undo_not_last")
            if last is None:
                return empty
            events = [last] if last["batch"] is None else self._db.execute(
                "SELECT * FROM events WHERE batch = ? AND action = 'consistency' AND undone = 0 ORDER BY seq DESC",
                (last["batch"],)).fetchall()
            for event in events:
                later = self._db.execute(
                    "SELECT reviewer, action FROM events WHERE id = ? AND seq > ? AND undone = 0 AND "
                    "action = 'consistency' ORDER BY seq DESC LIMIT 1", (event["id"], event["seq"])).fetchone()
                if later is not None:
                    kind, _, key = event["id"].partition(":")
                    raise coded(Conflict(f"cannot undo: {later['reviewer']} decided the {kind} case '{key}' since; "
                                         "undoing would take that back too: nothing was undone",
                                         {"kind": "later", "case_kind": kind, "key": key, "reviewer": later["reviewer"]}),
                                "consistency_undo_later", reviewer=later["reviewer"], kind=kind, key=key)
            stored = self.consistency_decisions()
            keys = {event["id"].partition(":")[2] for event in events}
            cases = {(c["kind"], c["key"]): c for c in self._cases(stored, only=keys)}
            restores = [(event, self._restored_row(event)) for event in events]
            preview = _undo_preview(last["seq"], restores, cases, stored)
            if preview["readable"] and digest != preview["digest"]:
                if digest is None:
                    n, m = preview["readable"], preview["readable_messages"]
                    raise coded(NeedsConfirmation(
                        f"undoing makes {n:,} hidden item{'s' if n != 1 else ''} readable in {m:,} "
                        f"message{'s' if m != 1 else ''}: send the preview's digest to confirm", preview),
                        "consistency_undo_confirm", n=n, m=m)
                error = coded(BulkChanged("the cases changed since the undo's preview (decided by someone, or their "
                                          "mentions changed): nothing was undone; look at the preview again"),
                              "consistency_undo_changed")
                error.preview = preview
                raise error
            done = []
            for event, row in restores:
                kind, _, key = event["id"].partition(":")
                if row is None:
                    self._db.execute("DELETE FROM consistency WHERE kind = ? AND key = ?", (kind, key))
                else:
                    self._db.execute(
                        "INSERT INTO consistency (kind, key, decision, reviewer, at, grounds) VALUES (?,?,?,?,?,?) "
                        "ON CONFLICT(kind, key) DO UPDATE SET decision = excluded.decision, reviewer = "
                        "excluded.reviewer, at = excluded.at, grounds = excluded.grounds",
                        (kind, key, row["decision"], row["reviewer"], row["at"],
                         None if row.get("grounds") is None else json.dumps(row["grounds"], ensure_ascii=False)))
                self._db.execute(
                    "INSERT INTO events (id, text_hash, reviewer, at, action, status_before, status_after, batch) "
                    "VALUES (?,?,?,?,?,?,?,?)", (event["id"], "", reviewer, at, "consistency-undo",
                                                 event["status_after"], row["decision"] if row else None,
                                                 event["batch"]))
                self._db.execute("UPDATE events SET undone = 1 WHERE seq = ?", (event["seq"],))
                done.append({"kind": kind, "key": key, "decision": event["status_after"],
                             "restored": row["decision"] if row else None})
        return {**{k: preview[k] for k in ("readable", "readable_messages", "readable_tags")},
                "undone": len(done), "cases": done, "reviewer": reviewer, "at": at}

    def _restored_row(self, event) -> dict | None:
        """The stored decision a consistency event replaced (None: the case was undecided)."""
        if event["spans_before"]:
            return json.loads(event["spans_before"])
        if event["status_before"] is None:
            return None
        # Logged before the decision replaced was kept whole: its decision, and who took it when.
        previous = self._db.execute(
            "SELECT reviewer, at FROM events WHERE id = ? AND seq < ? AND action = 'consistency' AND undone = 0 "
            "ORDER BY seq DESC LIMIT 1", (event["id"], event["seq"])).fetchone()
        return {"decision": event["status_before"], "reviewer": previous["reviewer"] if previous else event["reviewer"],
                "at": previous["at"] if previous else event["at"], "grounds": None}

    def decide_consistency(self, kind: str, key: str, decision: str, *, reviewer: str,
                           version: str | None = None) -> dict:
        """Decide a consistency case once for the whole corpus (the release applies it); logged as an
        event, with its grounds (the hidden mentions it is taken on). `version` is the case's as
        shown: when someone decided the case, or its mentions changed, since, nothing is stored
        (Conflict); without it, another reviewer's decision is never replaced."""
        from triage.review_workspace.consistency import check_choice

        check_choice(kind, decision)
        key = " ".join(str(key).split())
        if not key:
            raise coded(BadOption("a consistency case needs its key (the spelling)"), "consistency_key_missing")
        if version is not None and not isinstance(version, str):
            raise coded(BadOption("version must be the case's version, as sent with it"), "consistency_version_invalid")
        reviewer = _reviewer(reviewer)
        at = _now()
        before_stamp = self._stamp()
        with self._transaction():
            self._consistency_table()
            stored = self.consistency_decisions()
            found = [c for c in self._cases(stored, only={key}) if c["kind"] == kind]
            current = found[0] if found else None
            before = stored.get((kind, key))
            if version is not None and (current is None or current["version"] != version):
                what = ("is no longer a case (its mentions changed)" if current is None else
                        f"was decided {before['decision']} by {before['reviewer']}" if before and current["decision"]
                        else "changed (its mentions, or its decision)")
                code = ("consistency_gone" if current is None else
                        "consistency_decided_since" if before and current["decision"] else "consistency_changed")
                raise coded(Conflict(f"the {kind} case '{key}' {what} since your page showed it: nothing was saved; "
                                     "look at it again", {"kind": "consistency", "case": _public_case(current)}),
                            code, kind=kind, key=key, decision=before["decision"] if before else "",
                            reviewer=before["reviewer"] if before else "")
            if version is None and before is not None and before["reviewer"] != reviewer:
                raise coded(Conflict(f"the {kind} case '{key}' was decided {before['decision']} by "
                                     f"{before['reviewer']}: nothing was saved; send the case's version to decide it anew",
                                     {"kind": "consistency", "case": _public_case(current)}),
                            "consistency_decided_by", kind=kind, key=key, decision=before["decision"],
                            reviewer=before["reviewer"])
            self._store_consistency(current or {"kind": kind, "key": key, "mentions": []}, decision, reviewer, at,
                                    before)
        self._consistency_written(before_stamp)
        return {"kind": kind, "key": key, "decision": decision, "reviewer": reviewer, "at": at}

    def consistency_case(self, kind: str, key: str) -> dict | None:
        """One consistency case as `consistency` lists it (None: no such case now)."""
        key = " ".join(str(key).split())
        found = [c for c in self._cases(self.consistency_decisions(), only={key}) if c["kind"] == kind]
        return _public_case(found[0]) if found else None

    def _stamp(self) -> tuple[int, int]:
        """Changes at once when anyone writes to the workspace: another connection's commit moves
        SQLite's data_version, this connection's own writes its total_changes."""
        return self._db.execute("PRAGMA data_version").fetchone()[0], self._db.total_changes

    def _cases(self, decisions: dict, *, only=None) -> list[dict]:
        """The consistency cases with this module's own keys (see consistency.find_cases). The mentions
        (the costly part) are kept between calls while the released rows and the surrogates are the
        same (checked by a digest of them whenever anything was written since); the decisions are read
        anew each time."""
        from triage.review_workspace.consistency import build, gather

        cached = getattr(self, "_mentions_cache", None)  # (stamp, digest of the rows, mentions)
        stamp = self._stamp()
        if cached is not None and cached[0] == stamp:
            return build(cached[2], decisions, only=only)
        rows = list(self.final())
        surrogates = self.surrogate_map()
        digest = hashlib.sha256()
        for row in rows:
            digest.update(repr((row.id, row.text, row.spans, row.route)).encode("utf-8", "surrogatepass"))
        digest.update(repr(sorted(surrogates.items())).encode("utf-8", "surrogatepass"))
        fingerprint = digest.hexdigest()
        if cached is not None and cached[1] == fingerprint:
            self._mentions_cache = (stamp, fingerprint, cached[2])
            return build(cached[2], decisions, only=only)
        if only is not None:  # one case: its own mentions only, the cache left as it is
            return build(gather(rows, surrogates, only=only), decisions)
        gathered = gather(rows, surrogates)
        self._mentions_cache = (stamp, fingerprint, gathered)
        return build(gathered, decisions)

    def _consistency_written(self, before: tuple[int, int]) -> None:
        """After this connection stored consistency decisions only (which change no released row):
        the mentions kept before stay good."""
        cached = getattr(self, "_mentions_cache", None)
        if cached is not None and cached[0] == before:
            self._mentions_cache = (self._stamp(), cached[1], cached[2])

    def consistency(self) -> list[dict]:
        """The consistency cases of what a release would publish (triage.review_workspace.consistency),
        undecided first, the riskiest first."""
        return [_public_case(c) for c in self._all_cases()]

    def _all_cases(self) -> list[dict]:
        stamp = self._stamp()
        cached = getattr(self, "_cases_cache", None)
        if cached is not None and cached[0] == stamp:
            return cached[1]
        cases = self._cases(self.consistency_decisions())
        self._cases_cache = (stamp, cases)
        return cases

    def consistency_page(self, *, q: str | None = None, tag: str | None = None, status: str | None = None,
                         kind: str | None = None, offset: int = 0, limit: int = 25) -> dict:
        """A page of the consistency cases the filters find (consistency.select), in their order:
        {total (found), offset, limit, cases (all), undecided (all), tags (of all the cases), items}."""
        from triage.review_workspace.consistency import select

        cases = self._all_cases()
        found = select(cases, q=q, tag=tag, status=status, kind=kind)
        tags = sorted({t for c in cases for t in c["tags"]})
        return {"total": len(found), "offset": offset, "limit": limit, "cases": len(cases),
                "undecided": sum(1 for c in cases if c["decision"] is None), "tags": tags,
                "items": [_public_case(c, mentions=False) for c in found[offset:offset + limit]]}

    def _selected(self, cases: list[dict], selection) -> list[dict]:
        """The cases named by `selection` ([[kind, key], ...]) in that order; a pair that is no case
        now is left out (the preview's digest then differs)."""
        if not isinstance(selection, list) or not all(
                isinstance(pair, list) and len(pair) == 2 and all(isinstance(v, str) for v in pair) for pair in selection):
            raise coded(BadOption("cases must be a list of [kind, spelling] pairs"), "cases_invalid")
        if not selection:
            raise coded(BadOption("no case to decide: the list of cases is empty"), "cases_empty")
        if len(selection) > CONSISTENCY_BULK:
            raise coded(BadOption(f"at most {CONSISTENCY_BULK} cases at once"), "cases_too_many", n=CONSISTENCY_BULK)
        by_name = {(c["kind"], c["key"]): c for c in cases}
        chosen, seen = [], set()
        for kind, key in selection:
            name = (kind, " ".join(key.split()))
            if name in by_name and name not in seen:
                seen.add(name)
                chosen.append(by_name[name])
        return chosen

    def consistency_bulk_preview(self, decision: str, selection) -> dict:
        """What deciding every case of `selection` ([[kind, key], ...]) `decision` (hide or readable)
        would change (consistency.bulk_preview), with its digest to send back."""
        from triage.review_workspace.consistency import bulk_preview

        return bulk_preview(self._selected(self._all_cases(), selection), decision)

    def decide_consistency_bulk(self, decision: str, selection, *, reviewer: str, digest: str | None) -> dict:
        """Decide every case of `selection` `decision` (hide or readable) at once, in one transaction:
        the cases already decided so stay as they are, those of another kind (two tags) are left.
        `digest` is the preview's: without it nothing is stored and the preview is the answer
        (NeedsConfirmation); when any case changed since the preview (decided by someone, its
        mentions changed, no longer a case), nothing is stored (BulkChanged, with the new preview)."""
        from triage.review_workspace.consistency import bulk_preview

        if digest is not None and not isinstance(digest, str):
            raise coded(BadOption("digest must be the preview's digest, as sent with it"), "consistency_digest_invalid")
        reviewer = _reviewer(reviewer)
        at = _now()
        before_stamp = self._stamp()
        with self._transaction():
            self._consistency_table()
            stored = self.consistency_decisions()
            cases = self._cases(stored)
            chosen = self._selected(cases, selection)
            preview = bulk_preview(chosen, decision)
            if digest is None:
                raise coded(NeedsConfirmation(
                    f"deciding {preview['cases']:,} cases {decision} at once needs the preview's confirmation: "
                    "send its digest", preview), "consistency_bulk_confirm", n=preview["cases"], decision=decision)
            if digest != preview["digest"]:
                error = coded(BulkChanged("the cases changed since the preview (decided by someone, or their mentions "
                                          "changed): nothing was decided; look at the preview again"),
                              "consistency_bulk_changed")
                error.preview = preview
                raise error
            done = [c for c in chosen if decision in c["choices"] and c["decision"] != decision]
            batch = uuid.uuid4().hex  # undone as one
            for case in done:
                self._store_consistency(case, decision, reviewer, at, stored.get((case["kind"], case["key"])), batch)
        self._consistency_written(before_stamp)
        return {"decision": decision, "decided": len(done), "unchanged": preview["unchanged"],
                "other": preview["other"], "messages": preview["messages"], "readable": preview["readable"],
                "reviewer": reviewer, "at": at}


def _stored_row(stored: dict | None) -> dict | None:
    """A stored consistency decision as its log keeps it, to restore it whole."""
    if stored is None:
        return None
    return {k: stored.get(k) for k in ("decision", "reviewer", "at", "grounds")}


def _undo_preview(seq: int, restores: list, cases: dict, stored: dict) -> dict:
    """What undoing consistency decisions makes readable in the release: the readable mentions a `hide`
    taken back hid, and the hidden mentions a `readable` brought back shows; with a digest naming the
    undo and each case's state, which confirms it."""
    readable, messages, tags = 0, set(), Counter()
    state = [seq]
    for event, row in restores:
        kind, _, key = event["id"].partition(":")
        case = cases.get((kind, key))
        now = (stored.get((kind, key)) or {}).get("decision")
        after = row["decision"] if row else None
        state.append([kind, key, now, after, case["version"] if case else None])
        if case is None:
            continue
        if now == "hide" and after != "hide" and kind in ("mixed", "surrogate"):
            readable += case["_readable_items"]
            messages.update(case["_readable"])
            tags.update({_main_tag_of(case): case["_readable_items"]})
        if kind == "mixed" and after == "readable" and now != "readable":
            grounds = None if row is None or row.get("grounds") is None else {tuple(m) for m in row["grounds"]}
            shown = [m for m in case["mentions"] if grounds is None or tuple(m) in grounds]
            readable += len(shown)
            messages.update(m[0] for m in shown)
            if shown:
                tags.update({_main_tag_of(case): len(shown)})
    digest = hashlib.sha256(json.dumps(state, ensure_ascii=False).encode("utf-8", "surrogatepass")).hexdigest()[:16]
    return {"seq": seq, "cases": len(restores), "readable": readable, "readable_messages": len(messages),
            "readable_tags": dict(sorted(tags.items())),
            "examples": [event["id"].partition(":")[2] for event, _ in restores[:8]], "digest": digest}


def _main_tag_of(case: dict) -> str:
    from triage.review_workspace.consistency import _main_tag

    return _main_tag(Counter(case["tags"]))


