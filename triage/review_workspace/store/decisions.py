"""Decisions: a reviewer's decision, skip or import on a listed message, checked against the text
it was made on and against the team (another reviewer's lease or decision, a disagreement for
the lead), stored, and logged in the append-only log with its before and after; and undo, which
takes back a reviewer's last action (a bulk decision whole) when no later action depends on it.
"""

from __future__ import annotations

import json
from collections.abc import Iterable

from triage.errors import BadOption
from triage.review_workspace.codes import coded
from triage.review_workspace.store.common import (
    Conflict,
    DISPUTED,
    Item,
    LABELS,
    TextChanged,
    _label,
    _now,
    _reviewer,
    apply_learnt,
    check_spans,
    marked_names,
)
from triage.schema import NTA


class Decisions:
    """Deciding, skipping, importing and undoing, with the checks that keep a team's work apart."""

    def _check_conflict(self, message_id: str, reviewer: str, version) -> None:
        """Refuse (Conflict) a decision on a message leased to another reviewer, one awaiting the
        lead's adjudication, or one another reviewer decided since the page loaded it (`version`:
        the item's, as shown; without it, any decision of another reviewer)."""
        holder = self.lease_of(message_id, besides=reviewer)
        if holder is not None:
            raise coded(Conflict(f"message {message_id} is assigned to {holder['reviewer']} (until "
                                 f"{holder['until'][11:19]} UTC): nothing was saved", {"kind": "lease", **holder}),
                        "lease_assigned", id=message_id, reviewer=holder["reviewer"], until=holder["until"][11:19])
        digest, status, label, spans = self._current(message_id)
        if status == DISPUTED:
            raise coded(Conflict(f"message {message_id}: its two reviewers disagree; the lead reviewer resolves it "
                                 "(nothing was saved)", {"kind": "disputed", **self._decision_of(message_id)}),
                        "disputed", id=message_id)
        if status in ("pending", "skipped"):  # a skip decides nothing: a decision may follow it
            return
        decided = self._decision_of(message_id)
        if decided["reviewer"] == reviewer:
            return
        if version is not None:
            if type(version) is not int:
                raise coded(BadOption("version must be the item's version, as sent with it"), "version_invalid")
            if version == self._version(message_id):
                return  # the page showed this decision: changing it is a decision too
        raise coded(Conflict(f"message {message_id} was {decided['status']} by {decided['reviewer']} since your page "
                             f"loaded it: nothing was saved; see their decision", {"kind": "decided", **decided}),
                    "decided_since", id=message_id, status=decided["status"], reviewer=decided["reviewer"])

    def _check_version(self, message_id: str, version, refused: str) -> None:
        """Conflict when `version` (the item's as shown; None: not checked) is no longer the message's:
        someone decided, skipped, reviewed, resolved or undid on it since. `refused` says what was not done."""
        if version is None:
            return
        if type(version) is not int:
            raise coded(BadOption("version must be the item's version, as sent with it"), "version_invalid")
        if version == self._version(message_id):
            return
        last = self._db.execute("SELECT reviewer, action FROM events WHERE id = ? ORDER BY seq DESC LIMIT 1",
                                (message_id,)).fetchone()
        verb = {"review": "reviewed", "adjudicate": "resolved", "import": "imported a decision on", "skip": "skipped",
                "undo": "undid a decision on"}.get(last["action"], "decided") if last else "changed"
        who = last["reviewer"] if last else "someone"
        raise coded(Conflict(f"message {message_id}: {who} {verb} it since your page showed it: nothing was "
                             f"{refused}; see it as it is now",
                             {"kind": "changed", "id": message_id, "reviewer": who,
                              "action": last["action"] if last else None, **self._decision_or_none(message_id)}),
                    "changed_since", id=message_id, reviewer=who, action=last["action"] if last else None,
                    refused=refused)

    def _decision_or_none(self, message_id: str) -> dict:
        row = self._db.execute("SELECT 1 FROM decisions WHERE id = ?", (message_id,)).fetchone()
        if row is None:
            return {"status": "pending", "label": None, "spans": None}
        decided = self._decision_of(message_id)
        decided.pop("reviewer")  # the conflict's reviewer is who acted last
        return decided

    def _held(self, message_id: str, reviewer: str) -> str | None:
        """Why a bulk decision or the concordance of `reviewer` must leave this message alone (None:
        it may decide it): leased to another reviewer, awaiting the lead, marked for two blind
        reviews, or decided by another reviewer. One reviewer's bulk decision never overwrites
        another's work."""
        if self.lease_of(message_id, besides=reviewer) is not None:
            return "leased"
        status = self._current(message_id)[1]
        if status == DISPUTED:
            return "disputed"
        if self._blind(message_id):
            return "double"
        if status == "decided" and self._decision_of(message_id)["reviewer"] != reviewer:
            return "others"
        return None

    def _decision_of(self, message_id: str) -> dict:
        row = self._db.execute("SELECT status, label, spans, reviewer, at FROM decisions WHERE id = ?",
                               (message_id,)).fetchone()
        return {"status": row["status"], "label": row["label"],
                "spans": json.loads(row["spans"]) if row["spans"] else None,
                "reviewer": row["reviewer"], "decided_at": row["at"]}

    def _version(self, message_id: str) -> int:
        return self._db.execute("SELECT coalesce(max(seq), 0) FROM events WHERE id = ?", (message_id,)).fetchone()[0]

    def _current(self, message_id: str) -> tuple[str, str, str | None, str | None]:
        """(text hash, status, label, spans JSON) of a listed message, before a change."""
        row = self._db.execute(
            "SELECT m.text_hash, d.text_hash AS d_hash, d.status, d.label, d.spans FROM items i "
            "JOIN messages m USING (id) LEFT JOIN decisions d USING (id) WHERE i.id = ?",
            (message_id,),
        ).fetchone()
        if row is None:
            raise KeyError(message_id)
        if row["status"] is None or row["d_hash"] != row["text_hash"]:
            return row["text_hash"], "pending", None, None
        return row["text_hash"], row["status"], row["label"], row["spans"]

    def _record(self, message_id: str, action: str, reviewer: str, status: str | None, label: str | None,
                spans: str | None, *, by: str | None = None, store: bool = True,
                batch: str | None = None) -> None:
        """Store a decision (`by`: who it is credited to, the reviewer by default) and log it; with
        `store` False (a blind review waiting for the second one), log it only; `batch` ties the
        decisions of one bulk decision together, undone as one."""
        digest, status_before, label_before, spans_before = self._current(message_id)
        at = _now()
        if not store:
            pass
        elif status is None:
            self._db.execute("DELETE FROM decisions WHERE id = ?", (message_id,))
        else:
            self._db.execute(
                "INSERT INTO decisions VALUES (?,?,?,?,?,?,?) ON CONFLICT(id) DO UPDATE SET text_hash = excluded.text_hash,"
                " status = excluded.status, label = excluded.label, spans = excluded.spans,"
                " reviewer = excluded.reviewer, at = excluded.at",
                (message_id, digest, status, label, spans, by or reviewer, at),
            )
        if store:  # the names the reviewer marked, against the proposal shown (learnt names applied)
            machine = self._db.execute("SELECT text, hidden FROM messages WHERE id = ?", (message_id,)).fetchone()
            found = []
            if spans and machine:
                names, words = self._learnt_sets()
                proposal = apply_learnt(machine["text"], json.loads(machine["hidden"]), names, words)
                found = marked_names(json.loads(spans), proposal)
            if found:
                self._db.execute("INSERT OR REPLACE INTO marked VALUES (?,?,?)", (message_id, digest, json.dumps(found)))
            else:
                self._db.execute("DELETE FROM marked WHERE id = ?", (message_id,))
        self._db.execute(
            "INSERT INTO events (id, text_hash, reviewer, at, action, status_before, label_before, spans_before,"
            " status_after, label_after, spans_after) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
            (message_id, digest, reviewer, at, action, status_before, label_before, spans_before,
             status or "pending", label, spans),
        )
        if batch is not None:  # one of a bulk decision's: undone together
            self._db.execute("UPDATE events SET batch = ? WHERE seq = last_insert_rowid()", (batch,))
        if action not in ("skip", "undo"):  # an audit message's first look: what the machines hid then
            self._db.execute(
                "INSERT INTO audit_grounds SELECT i.id, m.text_hash, m.hidden FROM items i JOIN messages m USING (id)"
                " WHERE i.id = ? AND i.kind = 'audit' ON CONFLICT(id) DO UPDATE SET text_hash = excluded.text_hash,"
                " machine = excluded.machine WHERE audit_grounds.text_hash != excluded.text_hash", (message_id,))

    def _text(self, message_id: str, text_hash: str | None) -> str:
        """The listed message's text, checked against the hash of the text the decision was made on
        (None: not checked). Called inside the transaction that records the decision."""
        row = self._db.execute("SELECT m.text, m.text_hash FROM items i JOIN messages m USING (id) WHERE i.id = ?",
                               (message_id,)).fetchone()
        if row is None:
            raise KeyError(message_id)
        if text_hash is not None:
            if not isinstance(text_hash, str):
                raise coded(BadOption("text_hash must be the hash of the message's text, as sent with the item"),
                            "text_hash_invalid")
            if text_hash != row["text_hash"]:
                raise coded(TextChanged(f"the text of message {message_id} changed since it was shown "
                                        "(the corpus was classified again): nothing was saved, look at it again"),
                            "text_changed", id=message_id)
        return row["text"]

    def decide(self, message_id: str, *, label: str, spans: Iterable, reviewer: str,
               text_hash: str | None = None, version: int | None = None) -> Item:
        """The reviewer's decision on a listed message: TA or NTA and what to hide. With `text_hash`
        (the item's, as shown), a message whose text changed since is refused with TextChanged; a
        message leased to another reviewer, or decided by another since `version` (Conflict), too.
        On a message marked for double review, the decision is blind: kept apart until a second
        reviewer decides (same decision: it stands; else a disagreement for the lead)."""
        label = _label(label)
        reviewer = _reviewer(reviewer)
        with self._transaction():
            checked = self._checked_spans(message_id, label, spans, text_hash)
            self._check_conflict(message_id, reviewer, version)
            if self._blind(message_id):
                self._review(message_id, reviewer, label, checked)
            else:
                self._record(message_id, "decide", reviewer, "decided", label, json.dumps(checked))
            self._db.execute("DELETE FROM leases WHERE id = ? AND reviewer = ?", (message_id, reviewer))
        return self.item(message_id)

    def _checked_spans(self, message_id: str, label: str, spans: Iterable, text_hash: str | None) -> list:
        """A decision's spans checked against the listed text it was made on (TextChanged when the
        text is no longer `text_hash`); an NTA decision hides nothing. Inside the transaction."""
        checked = check_spans(self._text(message_id, text_hash), spans)
        if label == NTA and checked:
            raise coded(BadOption("an NTA message hides nothing; mark it TA to hide words"), "nta_hides_nothing")
        return checked

    def import_decisions(self, decisions: Iterable[tuple], *, reviewer: str) -> int:
        """Decisions made outside the page (a filled queue file, triage.queue.files.import_answers), as
        (id, label, spans, text hash[, version]) each: stored as the `reviewer`'s, logged as imports,
        all in one transaction. Nothing is stored when one is refused: a message whose text no longer
        has that hash (TextChanged); one the team holds (Conflict): another reviewer's lease, a
        disagreement awaiting the lead, a message marked for double review (decided blind, in the
        page), or, with `version` (the item's when the file was checked), one anyone acted on since."""
        reviewer = _reviewer(reviewer)
        count = 0
        with self._transaction():
            for message_id, label, spans, digest, *rest in decisions:
                if label not in LABELS:
                    raise coded(BadOption(f"label must be TA or NTA, not {label!r}"), "label_unknown", label=label)
                checked = check_spans(self._text(message_id, digest), spans)
                if label == NTA and checked:
                    raise BadOption(f"message {message_id}: an NTA message hides nothing")
                self._check_import(message_id, reviewer, rest[0] if rest else None)
                self._record(message_id, "import", reviewer, "decided", label, json.dumps(checked))
                count += 1
        return count

    def _check_import(self, message_id: str, reviewer: str, version) -> None:
        """Why an imported decision may not be stored on this message (Conflict), if it may not."""
        held = self._held(message_id, reviewer)
        if held is None and version is not None and version != self._version(message_id):
            held = "changed"
        if held is None:
            return
        why = {"leased": "is being reviewed by another reviewer in the page",
               "disputed": "has a disagreement that the lead reviewer resolves",
               "double": "is marked for double review: two reviewers decide it blind in the page",
               "others": "was decided by another reviewer",
               "changed": "was decided or skipped by someone since the file was checked"}[held]
        raise Conflict(f"message {message_id} {why}: nothing was imported", {"kind": held, "id": message_id})

    def skip(self, message_id: str, *, reviewer: str, text_hash: str | None = None,
             version: int | None = None) -> Item:
        """Put a listed message aside for later (refused with TextChanged or Conflict as `decide` is).
        `version` is the item's as shown: when anyone decided, skipped or undid on the message since,
        the skip is refused (Conflict) and nothing is stored. A skip never sets aside another
        reviewer's decision, nor a message another reviewer holds or the lead resolves."""
        reviewer = _reviewer(reviewer)
        with self._transaction():
            self._text(message_id, text_hash)
            self._check_conflict(message_id, reviewer, None)
            self._check_version(message_id, version, "skipped")
            self._record(message_id, "skip", reviewer, "skipped", None, None)
            self._db.execute("DELETE FROM leases WHERE id = ? AND reviewer = ?", (message_id, reviewer))
        return self.item(message_id)

    def undo(self, *, reviewer: str, seq: int | None = None) -> Item | None:
        """Undo the reviewer's last decision or skip that is not undone yet (logged as an event too).

        A decision or skip made on a text the message no longer holds is passed over: it already
        no longer applies (the message is back in the list, to look at again), and undoing it would
        bring back spans of another text. The last one that still applies is undone. A blind review
        undone is taken out of the double review (the other reviewer's stays).

        Undo takes back only what no later action depends on: when anyone (another reviewer, the
        lead, an import) acted on the message since (on any message of a bulk decision), nothing is
        undone (Conflict), since restoring the state before would take their decision back too.

        `seq` names the action the page showed as the next to undo (`recent`'s first): when it is no
        longer the reviewer's last that applies (undone or followed by another, in another page),
        nothing is undone (Conflict)."""
        if seq is not None and type(seq) is not int:
            raise coded(BadOption("seq must be the action's, as `recent` gives it"), "undo_seq_invalid")
        reviewer = _reviewer(reviewer)
        with self._transaction():
            last = self._db.execute(
                "SELECT e.* FROM events e JOIN items i USING (id) JOIN messages m USING (id) "
                "WHERE e.reviewer = ? AND e.action IN ('decide', 'skip', 'review', 'adjudicate') AND e.undone = 0 "
                "AND e.text_hash = m.text_hash ORDER BY e.seq DESC LIMIT 1",
                (reviewer,),
            ).fetchone()
            if seq is not None and (last is None or last["seq"] != seq):
                raise coded(Conflict("cannot undo: your last decision is no longer the one your page showed (undone, "
                                     "or followed by another, in another page): nothing was undone",
                                     {"kind": "undo", "reviewer": reviewer, "id": last["id"] if last else None,
                                      "seq": last["seq"] if last else None}), "undo_not_last")
            if last is None:
                self.last_undone = 0
                return None
            batch = last["batch"] if "batch" in last.keys() else None
            events = [last] if batch is None else self._db.execute(
                "SELECT e.* FROM events e JOIN items i USING (id) JOIN messages m USING (id) "
                "WHERE e.batch = ? AND e.undone = 0 AND e.text_hash = m.text_hash ORDER BY e.seq DESC",
                (batch,)).fetchall()
            self._refuse_undo_over_later(events)
            for event in events:  # a bulk decision is undone whole, last message first
                before = event["status_before"]
                status = None if before in (None, "pending") else before
                if event["action"] == "review":
                    self._db.execute("DELETE FROM reviews WHERE id = ? AND reviewer = ?", (event["id"], reviewer))
                self._record(event["id"], "undo", reviewer, status, event["label_before"], event["spans_before"],
                             by=self._credit_before(event) if status in ("decided", DISPUTED) else None)
                self._db.execute("UPDATE events SET undone = 1 WHERE seq = ?", (event["seq"],))
        self.last_undone = len(events)
        return self.item(last["id"])

    def _credit_before(self, event) -> str | None:
        """Who the decision an undo brings back is credited to: the reviewer of the action before it."""
        row = self._db.execute("SELECT reviewer FROM events WHERE id = ? AND seq < ? AND undone = 0 AND "
                               "action NOT IN ('undo', 'skip') ORDER BY seq DESC LIMIT 1",
                               (event["id"], event["seq"])).fetchone()
        return None if row is None else row["reviewer"]

    def _refuse_undo_over_later(self, events) -> None:
        """Conflict when an action not undone was logged on one of these events' messages after it
        (an undo restores the state before its event: it would take that later action back)."""
        for event in events:
            later = self._db.execute(
                "SELECT reviewer, action FROM events WHERE id = ? AND seq > ? AND undone = 0 AND action != 'undo' "
                "ORDER BY seq DESC LIMIT 1", (event["id"], event["seq"])).fetchone()
            if later is not None:
                verb = {"review": "reviewed", "adjudicate": "resolved", "import": "imported a decision on",
                        "skip": "skipped"}.get(later["action"], "decided")
                raise coded(Conflict(f"cannot undo: {later['reviewer']} {verb} message {event['id']} since; undoing "
                                     "would take that back too: nothing was undone",
                                     {"kind": "later", "id": event["id"], "reviewer": later["reviewer"],
                                      "action": later["action"]}),
                            "undo_later", reviewer=later["reviewer"], action=later["action"], id=event["id"])
