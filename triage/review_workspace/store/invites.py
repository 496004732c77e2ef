"""Invitations: a colleague's personal link to the lead's server. The workspace keeps the SHA-256
of each link's token, never the token; a revoked link is refused at once.
"""

from __future__ import annotations

import hashlib

from triage.review_workspace.store.common import _now, _reviewer


def _token_hash(token: str) -> str:
    """What the workspace keeps of a link's token. The tokens are random (144 bits): a plain SHA-256
    is enough, no salt nor slow hash."""
    return hashlib.sha256(token.encode("utf-8", "surrogateescape")).hexdigest()


class Invites:
    """The personal links: made, revoked, listed, recognised."""

    def invite(self, reviewer: str) -> str:
        """A personal link's token for `reviewer` (a new one replaces theirs, which is then refused):
        only its SHA-256 is stored, so the token is shown once, here."""
        import secrets

        reviewer = _reviewer(reviewer)
        token = secrets.token_urlsafe(24)
        with self._transaction():
            self._db.execute("INSERT INTO invites (reviewer, token_hash, at, revoked_at) VALUES (?,?,?,NULL) "
                             "ON CONFLICT(reviewer) DO UPDATE SET token_hash = excluded.token_hash, at = excluded.at,"
                             " revoked_at = NULL", (reviewer, _token_hash(token), _now()))
        return token

    def revoke(self, reviewer: str) -> bool:
        """Refuse `reviewer`'s link from now on, and free the message they hold; False when they
        hold no link in force."""
        reviewer = _reviewer(reviewer)
        with self._transaction():
            done = self._db.execute("UPDATE invites SET revoked_at = ? WHERE reviewer = ? AND revoked_at IS NULL",
                                    (_now(), reviewer)).rowcount > 0
            if done:
                self._db.execute("DELETE FROM leases WHERE reviewer = ?", (reviewer,))
        return done

    def invites(self) -> list[dict]:
        """Every personal link, in force or revoked ({reviewer, at, revoked_at}), by name."""
        return [dict(row) for row in self._db.execute(
            "SELECT reviewer, at, revoked_at FROM invites ORDER BY reviewer")]

    def invited(self, token: str | None) -> str | None:
        """The reviewer whose link in force holds `token`, or None."""
        if not token:
            return None
        row = self._db.execute("SELECT reviewer FROM invites WHERE token_hash = ? AND revoked_at IS NULL",
                               (_token_hash(token),)).fetchone()
        return None if row is None else row[0]
