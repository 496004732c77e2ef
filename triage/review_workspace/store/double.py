"""Double review: a share of the queue and of the audit sample marked for two reviewers, who decide
each marked message blind; alike, their decision stands, else it is a disagreement the lead
resolves (adjudicate). Their agreement (Cohen's kappa, span F1) is computed by
triage.review_workspace.agreement.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Iterable

from triage.errors import BadOption
from triage.review_workspace.codes import coded
from triage.review_workspace.store.common import DISPUTED, Item, KINDS, _label, _now, _reviewer, merge_spans
from triage.schema import TA


#: The share of the queue and of the audit sample `--double` marks for two reviewers, by default.
DEFAULT_DOUBLE = 0.1


class DoubleReview:
    """Marking messages for two blind reviewers, their reviews, disagreements and agreement."""

    def _blind(self, message_id: str) -> bool:
        """Marked for double review and not yet decided by both."""
        if self._db.execute("SELECT 1 FROM double WHERE id = ?", (message_id,)).fetchone() is None:
            return False
        return self._current(message_id)[1] not in ("decided", DISPUTED)

    def _review(self, message_id: str, reviewer: str, label: str, spans: list) -> None:
        digest, status, _, _ = self._current(message_id)
        encoded = json.dumps(spans)
        self._db.execute("INSERT OR REPLACE INTO reviews VALUES (?,?,?,?,?,?)",
                         (message_id, reviewer, digest, label, encoded, _now()))
        other = self._db.execute(
            "SELECT reviewer, label, spans FROM reviews WHERE id = ? AND reviewer != ? AND text_hash = ? "
            "ORDER BY rowid LIMIT 1", (message_id, reviewer, digest)).fetchone()
        if other is None:  # the first of two: logged, the message stays to decide for another reviewer
            self._record(message_id, "review", reviewer, None if status == "pending" else status, label, encoded,
                         store=False)
            return
        by = f"{other['reviewer']} + {reviewer}"
        if other["label"] == label and json.loads(other["spans"]) == spans:
            self._record(message_id, "review", reviewer, "decided", label, encoded, by=by)
        else:  # released, if it ever is before the lead decides, as the more cautious: both hide
            union = merge_spans(json.loads(other["spans"]) + spans)
            self._record(message_id, "review", reviewer, DISPUTED, TA, json.dumps(union), by=by)

    def mark_double(self, share: float = DEFAULT_DOUBLE, seed: int = 0) -> int:
        """Mark `share` of the queue and of the audit sample (each rounded up, seeded) for double
        review; 0 marks none. Returns how many are marked."""
        with self._transaction():
            count = self._mark_double(share, seed)
            self._set_meta(double_share=repr(float(share)), double_seed=str(seed))
        return count

    def _mark_double(self, share: float, seed: int) -> int:
        if not (isinstance(share, (int, float)) and 0 <= share <= 1):
            raise BadOption("--double must be a share between 0 and 1 (0.1: one message in ten)")
        self._db.execute("DELETE FROM double")
        marked = 0
        for kind in KINDS:
            ids = [row[0] for row in self._db.execute("SELECT id FROM items WHERE kind = ? ORDER BY rank", (kind,))]
            wanted = math.ceil(share * len(ids) - 1e-9)
            ranked = sorted(ids, key=lambda ident: hashlib.sha256(f"{seed}\0{ident}".encode("utf-8", "surrogatepass")).digest())
            self._db.executemany("INSERT INTO double VALUES (?)", [(ident,) for ident in ranked[:wanted]])
            marked += wanted
        return marked

    def double_ids(self) -> set[str]:
        return {row[0] for row in self._db.execute("SELECT d.id FROM double d JOIN items i USING (id)")}

    def reviews(self, message_id: str) -> list[dict]:
        """The blind decisions of a double-reviewed message on its current text, first first."""
        rows = self._db.execute(
            "SELECT r.reviewer, r.label, r.spans, r.at FROM reviews r JOIN messages m USING (id) "
            "WHERE r.id = ? AND r.text_hash = m.text_hash ORDER BY r.rowid", (message_id,))
        return [{"reviewer": r["reviewer"], "label": r["label"], "spans": json.loads(r["spans"]), "at": r["at"]}
                for r in rows]

    def double_pairs(self) -> list[tuple[str, dict, dict]]:
        """(text, first review, second review) of every message two reviewers decided blind."""
        pairs = []
        rows = self._db.execute("SELECT DISTINCT r.id, m.text FROM reviews r JOIN messages m USING (id) "
                                "JOIN items i USING (id) WHERE r.text_hash = m.text_hash ORDER BY i.rank")
        for row in rows.fetchall():
            found = self.reviews(row["id"])
            if len(found) >= 2:
                pairs.append((row["text"], found[0], found[1]))
        return pairs

    def disputes(self) -> list[dict]:
        """The unresolved disagreements, in list order: each item with its two blind decisions, in
        the order of the reviewers' names (the same sides whoever decided first)."""
        return [{"item": item.as_json(), "reviews": sorted(self.reviews(item.id), key=lambda r: r["reviewer"])}
                for item in self.items(status=DISPUTED, limit=1_000_000)]

    def adjudicate(self, message_id: str, *, label: str, spans: Iterable, reviewer: str,
                   text_hash: str | None = None, version: int | None = None) -> Item:
        """The lead reviewer's resolution of a disagreement: one of the two decisions, or another.
        `version` is the disputed item's as the lead was shown it (with both blind decisions): when
        either reviewer undid or decided again since, nothing is stored (Conflict)."""
        label = _label(label)
        reviewer = _reviewer(reviewer)
        with self._transaction():
            checked = self._checked_spans(message_id, label, spans, text_hash)
            self._check_version(message_id, version, "resolved")
            if self._current(message_id)[1] != DISPUTED:
                raise coded(BadOption(f"message {message_id} has no disagreement to resolve"), "no_disagreement",
                            id=message_id)
            self._record(message_id, "adjudicate", reviewer, "decided", label, json.dumps(checked))
        return self.item(message_id)

    def agreement(self) -> dict:
        """Agreement of the double-reviewed messages (triage.review_workspace.agreement)."""
        from triage.review_workspace.agreement import agreement

        pairs = self.double_pairs()
        result = agreement(pairs)
        marked = self.double_ids()
        result["marked"] = len(marked)
        # Of the messages two reviewers decided, those still marked: fewer when the share marked
        # was lowered since (--double 0 after a double review).
        twice = {row[0] for row in self._db.execute(
            "SELECT r.id FROM reviews r JOIN messages m USING (id) WHERE r.text_hash = m.text_hash "
            "GROUP BY r.id HAVING count(*) >= 2")}
        result["decided_marked"] = len(twice & marked)
        result["disagreements"] = {
            "unresolved": self.count(status=DISPUTED),
            "resolved": self._db.execute(
                "SELECT count(DISTINCT e.id) FROM events e JOIN decisions d USING (id) WHERE e.action = 'adjudicate' "
                "AND e.undone = 0 AND d.status = 'decided' AND d.text_hash = e.text_hash").fetchone()[0],
        }
        return result

    def _half_reviewed(self, *, kinds: bool = False) -> dict:
        """The messages one reviewer decided blind and no second one has (on their current text, with no
        decision yet; still so when the double review's share was changed since): id -> the blind
        decision's spans (or, with `kinds`, id -> queue or audit)."""
        rows = self._db.execute(
            "SELECT r.id, r.spans, i.kind FROM reviews r JOIN items i USING (id) "
            "JOIN messages m USING (id) LEFT JOIN decisions d USING (id) WHERE r.text_hash = m.text_hash "
            "AND (d.id IS NULL OR d.text_hash != m.text_hash OR d.status NOT IN ('decided', 'disputed'))")
        found: dict = {}
        for row in rows:
            if kinds:
                found[row["id"]] = row["kind"]
            else:
                found.setdefault(row["id"], []).extend(json.loads(row["spans"]))
        return found

    def half_reviewed(self) -> int:
        """How many messages await their second blind reviewer after a first one decided them: the
        release publishes each as the more cautious side (what the first reviewer or the machines hid)."""
        return len(self._half_reviewed(kinds=True))
