"""What a release reads from the workspace: every message with what it publishes (the reviewer's
decision on this text, else the machines'; the learnt words applied; a message awaiting its second
blind reviewer as the more cautious side), the queued messages nobody decided, and the surrogates
kept from one release to the next.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

from triage.review_workspace.store.common import DISPUTED, FinalRow, apply_learnt, merge_spans
from triage.schema import NTA, TA


class Release:
    """The released rows, what is still undecided, and the surrogates of earlier releases."""

    def surrogate_map(self) -> dict[tuple[str, str], str]:
        """The surrogates of earlier releases, (tag, entity) -> surrogate: the same entity keeps its
        surrogate from one release to the next. It never leaves the workspace."""
        return {(r["tag"], r["entity"]): r["surrogate"] for r in self._db.execute("SELECT * FROM surrogates")}

    def save_surrogate_map(self, mapping: dict[tuple[str, str], str], seed: int, *, redrawn=()) -> None:
        """Keep the surrogates of a release; those of the entities `redrawn` (a surrogate decided
        against, triage.review_workspace.consistency) replace the earlier ones."""
        redrawn = set(redrawn)
        with self._transaction():
            self._db.executemany(
                "INSERT INTO surrogates VALUES (?,?,?,?) ON CONFLICT(tag, entity) DO NOTHING",
                [(tag, entity, surrogate, seed) for (tag, entity), surrogate in mapping.items()
                 if (tag, entity) not in redrawn],
            )
            self._db.executemany(
                "INSERT INTO surrogates VALUES (?,?,?,?) ON CONFLICT(tag, entity) DO UPDATE SET "
                "surrogate = excluded.surrogate, seed = excluded.seed",
                [(tag, entity, surrogate, seed) for (tag, entity), surrogate in mapping.items()
                 if (tag, entity) in redrawn],
            )

    def undecided(self) -> int:
        """Queued messages nobody decided (a message awaiting its second blind reviewer is counted
        apart: see `half_reviewed`)."""
        waiting = sum(1 for kind in self._half_reviewed(kinds=True).values() if kind == "queue")
        return self.count(kind="queue", status="pending,skipped,stale") - waiting

    def final(self) -> Iterator[FinalRow]:
        """Every message in file order with what will be released: the reviewer's decision where there
        is one for this text, else the machines' (queued messages without one are `undecided`). A
        message whose first blind decision awaits the second reviewer is released as the more cautious
        side, as a disagreement is: what that reviewer or the machines hid. This corpus's learnt names
        are hidden everywhere and its learnt ordinary words shown everywhere."""
        names, words = self._learnt_sets()
        halves = self._half_reviewed()
        rows = self._db.execute(
            "SELECT m.id, m.position, m.text, m.decision, m.hidden, i.kind, d.label, d.spans, d.status,"
            " d.text_hash = m.text_hash AS current FROM messages m LEFT JOIN items i USING (id)"
            " LEFT JOIN decisions d USING (id) ORDER BY m.position"
        )
        for row in rows:
            text = row["text"]
            if row["current"] and row["status"] in ("decided", DISPUTED):  # disputed: both reviewers' spans
                route = "audit" if row["kind"] == "audit" else "reviewer"
                spans = json.loads(row["spans"])
                if row["label"] == TA:  # a reviewer's explicit spans stand; learnt names are added
                    spans = apply_learnt(text, spans, names, set())
                yield FinalRow(row["id"], row["position"], text, row["label"], spans, route)
                continue
            machine = json.loads(row["hidden"])
            if row["id"] in halves:  # one blind decision, the second awaited: what either it or the machines hid
                route = "audit" if row["kind"] == "audit" else "reviewer"
                spans = merge_spans(apply_learnt(text, machine, names, set()) + halves[row["id"]])
                yield FinalRow(row["id"], row["position"], text, TA if spans else NTA, spans, route)
                continue
            if row["decision"] == "EXPERT":
                yield FinalRow(row["id"], row["position"], text, None, apply_learnt(text, machine, names, words),
                               "undecided")
                continue
            spans = apply_learnt(text, machine if row["decision"] == TA else [], names, words)
            label = TA if spans else row["decision"]
            yield FinalRow(row["id"], row["position"], text, label, spans, "machine")
