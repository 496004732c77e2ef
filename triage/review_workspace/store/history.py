"""The log read back: every action of a message or of the corpus, a reviewer's last decisions (what
undo takes back next), who decided, and each reviewer's decisions and reviewing time.
"""

from __future__ import annotations

import json
from datetime import datetime

from triage.review_workspace.agreement import PAUSE
from triage.review_workspace.store.common import DECISION_ACTIONS, _reviewer


class History:
    """The append-only log of actions, and the figures it gives per reviewer."""

    def reviewer_figures(self, *, cap: float = PAUSE) -> dict[str, dict]:
        """Per reviewer: decisions (decide, blind review, adjudication and spreadsheet import events
        not undone; skips apart) and time in seconds, the sum of the gaps between their consecutive actions of at
        most `cap` seconds (a longer gap is a pause and counts nothing)."""
        figures: dict[str, dict] = {}
        last: dict[str, datetime] = {}
        for row in self._db.execute("SELECT reviewer, at, action, undone FROM events ORDER BY seq"):
            name = row["reviewer"]
            entry = figures.setdefault(name, {"decisions": 0, "skips": 0, "seconds": 0.0})
            if row["action"] in DECISION_ACTIONS and not row["undone"]:
                entry["decisions"] += 1
            elif row["action"] == "skip" and not row["undone"]:
                entry["skips"] += 1
            at = datetime.fromisoformat(row["at"])
            if name in last and 0 <= (gap := (at - last[name]).total_seconds()) <= cap:
                entry["seconds"] += gap
            last[name] = at
        return dict(sorted(figures.items()))

    def deciding_reviewers(self) -> list[str]:
        """The reviewers with at least one decision that still applies, in the order of their first."""
        rows = self._db.execute(
            "SELECT reviewer, min(seq) AS first FROM events WHERE undone = 0 AND action IN "
            f"({', '.join('?' * len(DECISION_ACTIONS))}) GROUP BY reviewer ORDER BY first", DECISION_ACTIONS)
        return [row["reviewer"] for row in rows]

    def recent(self, *, reviewer: str, limit: int = 8) -> list[dict]:
        """The reviewer's last decisions and skips that still apply, newest first: the first one is
        what `undo` takes back next (the same choice as `undo`), and its `seq` what undo names. Each is
        {seq, id, action, label, hidden (how many spans), at}."""
        reviewer = _reviewer(reviewer)
        rows = self._db.execute(
            "SELECT e.seq, e.id, e.action, e.label_after, e.spans_after, e.at FROM events e JOIN items i USING (id) "
            "JOIN messages m USING (id) WHERE e.reviewer = ? AND e.action IN ('decide', 'skip', 'review', 'adjudicate') AND e.undone = 0 "
            "AND e.text_hash = m.text_hash ORDER BY e.seq DESC LIMIT ?",
            (reviewer, max(0, int(limit))),
        )
        return [{"seq": row["seq"], "id": row["id"], "action": row["action"], "label": row["label_after"],
                 "hidden": len(json.loads(row["spans_after"])) if row["spans_after"] else 0, "at": row["at"]}
                for row in rows]

    def history(self, message_id: str | None = None) -> list[dict]:
        """The append-only log, oldest first (of one message, or of all)."""
        if message_id is None:
            rows = self._db.execute("SELECT * FROM events ORDER BY seq")
        else:
            rows = self._db.execute("SELECT * FROM events WHERE id = ? ORDER BY seq", (message_id,))
        out = []
        for row in rows:
            event = dict(row)
            for side in ("before", "after"):
                spans = event[f"spans_{side}"]
                event[f"spans_{side}"] = json.loads(spans) if spans else None
            out.append(event)
        return out
