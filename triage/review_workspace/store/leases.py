"""Leases: a message the page shows is given to one reviewer at a time, for a while the page
renews; another reviewer is given another message, and may not decide this one meanwhile.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable
from datetime import datetime, timezone

from triage.review_workspace.codes import coded
from triage.review_workspace.store.common import Conflict, Item, _reviewer


#: How long a message stays assigned to the reviewer whose page shows it (the page renews it).
DEFAULT_LEASE = 300.0


def _iso(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, timezone.utc).isoformat(timespec="seconds")


class Leases:
    """Who holds which message, until when."""

    def claim(self, reviewer: str, *, after_rank: int | None = None, seconds: float = DEFAULT_LEASE) -> Item | None:
        """The next item for `reviewer` (as next_pending), leased to them for `seconds`: no other
        reviewer is given it, nor may decide it, until the lease ends. A reviewer holds one lease."""
        reviewer = _reviewer(reviewer)
        with self._transaction():
            found = self.next_pending(after_rank, reviewer=reviewer)
            self._lease(found.id if found else None, reviewer, seconds)
        return found

    def lease(self, message_id: str, reviewer: str, *, seconds: float = DEFAULT_LEASE) -> dict:
        """Take or renew the lease of a listed message for `reviewer` (the page does while it shows
        the message); Conflict when another reviewer holds it."""
        reviewer = _reviewer(reviewer)
        with self._transaction():
            self._current(message_id)  # KeyError for a message not listed
            holder = self.lease_of(message_id, besides=reviewer)
            if holder is not None:
                raise coded(Conflict(f"message {message_id} is being reviewed by {holder['reviewer']} (until "
                                     f"{holder['until'][11:19]} UTC): look at another one", {"kind": "lease", **holder}),
                            "lease_held", id=message_id, reviewer=holder["reviewer"], until=holder["until"][11:19])
            until = self._lease(message_id, reviewer, seconds)
        return {"id": message_id, "reviewer": reviewer, "until": _iso(until)}

    def _lease(self, message_id: str | None, reviewer: str, seconds: float) -> float:
        now = time.time()
        self._db.execute("DELETE FROM leases WHERE reviewer = ? OR until <= ?", (reviewer, now))
        if message_id is not None:
            self._db.execute("INSERT OR REPLACE INTO leases VALUES (?,?,?)", (message_id, reviewer, now + seconds))
        return now + seconds

    def release_leases(self, reviewers: Iterable[str]) -> int:
        """Free the messages these reviewers hold (their server stops): another reviewer is given
        them at once, not when the lease runs out. How many were freed."""
        names = sorted({_reviewer(name) for name in reviewers})
        if not names:
            return 0
        with self._transaction():
            return self._db.execute("DELETE FROM leases WHERE reviewer IN (SELECT value FROM json_each(?))",
                                    (json.dumps(names),)).rowcount

    def lease_of(self, message_id: str, *, besides: str | None = None) -> dict | None:
        """Who holds a valid lease on the message ({"reviewer", "until"}), another than `besides`."""
        row = self._db.execute("SELECT reviewer, until FROM leases WHERE id = ? AND until > ? AND reviewer != ?",
                               (message_id, time.time(), besides or "")).fetchone()
        return None if row is None else {"reviewer": row["reviewer"], "until": _iso(row["until"])}
