"""The review's figures: progress (how many items are pending, decided, skipped, stale or disputed,
and the time left at the team's pace) and the audit estimate (the share of machine-released
messages that still show something identifying, with its exact 95% interval).
"""

from __future__ import annotations

import json
from datetime import datetime

from triage.review_workspace.store.common import DISPUTED


def _covered(spans: list, start: int, end: int) -> bool:
    return any(s <= start and end <= e for s, e, _ in spans)


class Figures:
    """Progress and the audit estimate."""

    def _counts_of_sync(self) -> dict:
        """The counts that only a sync changes (the list's queue and audit, the messages, those the
        machines released), read once per sync: the page asks for the progress after each decision."""
        meta = self.meta()
        stamp = meta.get("sync_id") or meta.get("synced")
        if self._synced_counts is None or self._synced_counts[0] != stamp:
            kinds = dict(self._db.execute("SELECT kind, count(*) FROM items GROUP BY kind").fetchall())
            self._synced_counts = (stamp, {
                "queue": kinds.get("queue", 0), "audit": kinds.get("audit", 0), "total": sum(kinds.values()),
                "messages": self._db.execute("SELECT count(*) FROM messages").fetchone()[0],
                "released": self._db.execute("SELECT count(*) FROM messages WHERE decision != 'EXPERT'").fetchone()[0],
            })
        return self._synced_counts[1]

    def progress(self) -> dict:
        synced = self._counts_of_sync()
        counts = {status: 0 for status in ("pending", "decided", "skipped", "stale", DISPUTED)}
        for status, n in self._db.execute(  # the decisions only: every other listed message is pending
            "SELECT CASE WHEN d.text_hash != m.text_hash THEN 'stale' ELSE d.status END AS s, count(*) "
            "FROM decisions d JOIN items i USING (id) JOIN messages m USING (id) GROUP BY s"
        ):
            counts[status] = n
        counts["pending"] = synced["total"] - sum(counts.values())
        by_kind = dict(self._db.execute(  # decided and unchanged since, per kind: the queue, the audit apart
            "SELECT i.kind, count(*) FROM decisions d JOIN items i USING (id) JOIN messages m USING (id) "
            "WHERE d.status = 'decided' AND d.text_hash = m.text_hash GROUP BY i.kind").fetchall())
        seconds = self._seconds_per_message()
        left = counts["pending"] + counts["stale"] + counts["skipped"]
        return {
            "queue": synced["queue"], "audit": synced["audit"], "total": synced["total"],
            **counts, "left": left, "messages": synced["messages"],
            "decided_queue": by_kind.get("queue", 0), "decided_audit": by_kind.get("audit", 0),
            "seconds_per_message": seconds, "seconds_left": None if seconds is None else round(seconds * left, 1),
        }

    def _seconds_per_message(self) -> float | None:
        """Median time between consecutive decisions among the last 200 (pauses over 10 minutes left
        out): the team's pace now."""
        times = [datetime.fromisoformat(row[0]) for row in
                 self._db.execute("SELECT at FROM events WHERE action = 'decide' ORDER BY seq DESC LIMIT 201")][::-1]
        gaps = sorted(g for a, b in zip(times, times[1:]) if 0 < (g := (b - a).total_seconds()) <= 600)
        if not gaps:
            return None
        return round(gaps[len(gaps) // 2], 1)

    def audit_estimate(self) -> dict:
        """From the reviewed audit sample: the share of machine-released messages that still show
        something identifying (the reviewer hid something the machines had left readable when the
        message was first reviewed: a later classification that learnt the name does not undo the
        leak), with an exact 95% binomial interval."""
        audited = leaking = 0
        grounds = {row["id"]: (row["text_hash"], json.loads(row["machine"]))
                   for row in self._db.execute("SELECT * FROM audit_grounds")}
        for item in self.items(kind="audit", status="decided", limit=1_000_000):
            audited += 1
            kept = grounds.get(item.id)
            machine = kept[1] if kept and kept[0] == item.text_hash else item.machine_spans
            leaking += any(not _covered(machine, s, e) for s, e, _ in item.spans or [])
        synced = self._counts_of_sync()
        released = synced["released"]
        result = {"audited": audited, "sample": synced["audit"], "leaking": leaking,
                  "machine_released": released, "share": None, "low": None, "high": None}
        if audited:
            from scipy.stats import binomtest

            interval = binomtest(leaking, audited).proportion_ci(confidence_level=0.95, method="exact")
            result.update(share=leaking / audited, low=float(interval.low), high=float(interval.high))
        return result
