"""The reviewer's list: its items (a message with the machines' proposal and the decision on it),
filtered, searched, sorted and paged; a message's neighbours; and the next item to look at.
"""

from __future__ import annotations

import json
import sqlite3
import time

from triage.errors import BadOption
from triage.review_workspace.codes import coded
from triage.review_workspace.store.common import DISPUTED, Item, KINDS, LABELS, STATUSES, TAGS, apply_learnt
from triage.schema import NTA, TA


#: The list's double-review filter: marked for two blind reviewers; one blind decision on the current
#: text, the second awaited; two blind decisions on the current text (alike, different or resolved);
#: a disagreement the lead has not resolved yet.
DOUBLE_FILTERS = ("marked", "waiting", "both", "disputed")
#: The list's orders: the list's own (riskiest queued first, then the audit), by risk, by input.
SORTS = {"rank": "i.rank", "risk": "m.risk IS NULL, m.risk DESC, i.rank", "input": "m.position"}


def _machine_label(decision: str, model: str, spans: list) -> str:
    if decision in LABELS:
        return decision
    return TA if spans or model == TA else NTA


class Listing:
    """The list's items: read, filtered, counted, paged; the next one to look at."""

    _ITEM_SQL = """
        SELECT i.id, i.kind, i.rank, i.reasons, m.position, m.text, m.text_hash, m.seekhide, m.model, m.score,
               m.decision, m.hidden, m.highlighted, m.risk,
               d.text_hash AS d_hash, d.status AS d_status, d.label AS d_label, d.spans AS d_spans,
               d.reviewer AS d_reviewer, d.at AS d_at,
               (SELECT coalesce(max(e.seq), 0) FROM events e WHERE e.id = i.id) AS version,
               EXISTS (SELECT 1 FROM double x WHERE x.id = i.id) AS double,
               CASE WHEN d.id IS NULL THEN 'pending' WHEN d.text_hash != m.text_hash THEN 'stale'
                    ELSE d.status END AS status
        FROM items i JOIN messages m USING (id) LEFT JOIN decisions d USING (id)
    """

    def _list_from(self) -> str:
        if self._listed:
            return "FROM listing i LEFT JOIN decisions d USING (id)"
        return "FROM items i JOIN messages m USING (id) LEFT JOIN decisions d USING (id)"

    def _order(self, sort: str) -> str:
        return SORTS[sort].replace("m.", "i.") if self._listed else SORTS[sort]

    def _item(self, row: sqlite3.Row) -> Item:
        machine_spans = json.loads(row["hidden"])
        names, words = self._learnt_sets()
        current = row["status"] in ("decided", "skipped", DISPUTED)
        label = row["d_label"] if row["status"] in ("decided", DISPUTED) else None
        spans = json.loads(row["d_spans"]) if row["status"] in ("decided", DISPUTED) else None
        return Item(
            id=row["id"], position=row["position"], text=row["text"], text_hash=row["text_hash"],
            kind=row["kind"], rank=row["rank"],
            risk=row["risk"], seekhide=row["seekhide"], model=row["model"], score=row["score"],
            machine_label=_machine_label(row["decision"], row["model"], machine_spans),
            machine_spans=machine_spans,
            proposal=apply_learnt(row["text"], machine_spans, names, words),
            highlighted=json.loads(row["highlighted"]), reasons=json.loads(row["reasons"]),
            label=label, spans=spans,
            reviewer=row["d_reviewer"] if current else None, decided_at=row["d_at"] if current else None,
            status=row["status"], version=row["version"], double=bool(row["double"]),
        )

    def _where(self, kind: str | None, status: str | None, *, text: str | None = None, tag: str | None = None,
               reviewer: str | None = None, double: str | None = None, listing: bool = False) -> tuple[str, list]:
        """The WHERE clause of the list's filters, over `items i JOIN messages m LEFT JOIN decisions
        d`, or with `listing` over `listing i LEFT JOIN decisions d` (the same columns, narrow)."""
        clauses, values = [], []
        row, hidden, digest = ("i.message", "i.tags", "i.text_hash") if listing else ("m.rowid", "m.hidden", "m.text_hash")
        if double is not None:
            clauses.append(self._double_clause(double, digest))
        if text:
            # A piece of the text (case-insensitive), or the message id itself.
            if self._searchable and len(text) >= 3:
                clauses.append(f"{row} IN (SELECT rowid FROM message_search WHERE message_search MATCH ?"
                               " UNION SELECT rowid FROM messages WHERE id = ?)")
                values.extend(['"' + text.replace('"', '""') + '"', text])
            else:
                escaped = text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
                clauses.append(f"{row} IN (SELECT rowid FROM messages WHERE text LIKE ? ESCAPE '\\' OR id = ?)")
                values.extend([f"%{escaped}%", text])
        if tag is not None:
            if tag not in TAGS:
                raise coded(BadOption(f"unknown tag {tag!r}; use one of {' '.join(TAGS)}"), "tag_unknown", tag=tag,
                            tags=" ".join(TAGS))
            # What the message hides now: the reviewer's spans once decided, else the machines'.
            clauses.append(f"(CASE WHEN d.status = 'decided' AND d.text_hash = {digest} THEN d.spans"
                           f" ELSE {hidden} END) LIKE ?")
            values.append(f'%"{tag}"%')
        if reviewer is not None:
            clauses.append(f"d.reviewer = ? AND d.text_hash = {digest}")
            values.append(reviewer)
        if kind is not None:
            if kind not in KINDS:
                raise coded(BadOption(f"kind must be one of {', '.join(KINDS)}"), "list_kind_unknown",
                            kinds=", ".join(KINDS))
            clauses.append("i.kind = ?")
            values.append(kind)
        if status is not None:
            expression = (f"CASE WHEN d.id IS NULL THEN 'pending' WHEN d.text_hash != {digest} THEN 'stale' "
                          "ELSE d.status END")
            statuses = status.split(",")
            unknown = [value for value in statuses if value not in STATUSES]
            if unknown:
                raise coded(BadOption(f"unknown status {unknown[0]!r}; use {', '.join(STATUSES)} (commas between)"),
                            "status_unknown", status=unknown[0], statuses=", ".join(STATUSES))
            clauses.append(f"{expression} IN ({','.join('?' * len(statuses))})")
            values.extend(statuses)
        return (" WHERE " + " AND ".join(clauses)) if clauses else "", values

    @staticmethod
    def _double_clause(double: str, digest: str) -> str:
        """The SQL condition of the double-review filter (DOUBLE_FILTERS) over the list's `i` and
        `d`, `digest` the column of the message's current text hash."""
        if double not in DOUBLE_FILTERS:
            raise coded(BadOption(f"unknown double-review filter {double!r}; use one of {', '.join(DOUBLE_FILTERS)}"),
                        "double_filter_unknown", double=double, filters=", ".join(DOUBLE_FILTERS))
        reviews = f"(SELECT count(*) FROM reviews r WHERE r.id = i.id AND r.text_hash = {digest})"
        settled = f"(d.id IS NOT NULL AND d.text_hash = {digest} AND d.status IN ('decided', '{DISPUTED}'))"
        return {
            "marked": "EXISTS (SELECT 1 FROM double x WHERE x.id = i.id)",
            "waiting": f"{reviews} > 0 AND NOT {settled}",
            "both": f"{reviews} >= 2",
            "disputed": f"d.status = '{DISPUTED}' AND d.text_hash = {digest}",
        }[double]

    def items(self, *, kind: str | None = None, status: str | None = None, offset: int = 0,
              limit: int = 50, text: str | None = None, tag: str | None = None, reviewer: str | None = None,
              double: str | None = None, sort: str = "rank") -> list[Item]:
        """The list's items, filtered (route, status, a piece of text or the id, a tag hidden, who
        decided, where the double review stands: DOUBLE_FILTERS) and sorted: `rank` (the list's
        order, riskiest first then the audit), `risk` (riskiest first, queue and audit together) or
        `input` (the order of the classified file)."""
        return self.page(kind=kind, status=status, offset=offset, limit=limit, text=text, tag=tag,
                         reviewer=reviewer, double=double, sort=sort)[1]

    def page(self, *, kind: str | None = None, status: str | None = None, offset: int = 0, limit: int = 50,
             text: str | None = None, tag: str | None = None, reviewer: str | None = None,
             double: str | None = None, sort: str = "rank") -> tuple[int, list[Item]]:
        """A page of the list and how many items pass its filters (see `items`), in one reading of
        the list: the page's ids and the count first, then those few items in full."""
        if sort not in SORTS:
            raise coded(BadOption(f"sort must be one of {', '.join(SORTS)}"), "sort_unknown", sorts=", ".join(SORTS))
        where, values = self._where(kind, status, text=text, tag=tag, reviewer=reviewer, double=double,
                                    listing=self._listed)
        found = self._db.execute(
            f"SELECT i.id, count(*) OVER () AS total {self._list_from()}{where} ORDER BY {self._order(sort)}"
            " LIMIT ? OFFSET ?",
            [*values, max(0, int(limit)), max(0, int(offset))]).fetchall()
        if not found:
            return (self.count(kind=kind, status=status, text=text, tag=tag, reviewer=reviewer, double=double)
                    if offset else 0), []
        chosen = [row[0] for row in found]
        rows = {row["id"]: row for row in self._db.execute(
            f"{self._ITEM_SQL} WHERE i.id IN (SELECT value FROM json_each(?))", (json.dumps(chosen),))}
        return found[0]["total"], [self._item(rows[ident]) for ident in chosen]

    def reviewers(self) -> list[str]:
        """Who decided or skipped a message of the list, by name."""
        return [row[0] for row in self._db.execute("SELECT DISTINCT reviewer FROM decisions ORDER BY reviewer")]

    def count(self, *, kind: str | None = None, status: str | None = None, text: str | None = None,
              tag: str | None = None, reviewer: str | None = None, double: str | None = None) -> int:
        where, values = self._where(kind, status, text=text, tag=tag, reviewer=reviewer, double=double,
                                    listing=self._listed)
        sql = f"SELECT count(*) {self._list_from()}{where}"
        return self._db.execute(sql, values).fetchone()[0]

    def item(self, message_id: str) -> Item:
        row = self._db.execute(f"{self._ITEM_SQL} WHERE i.id = ?", (message_id,)).fetchone()
        if row is None:
            raise KeyError(message_id)
        return self._item(row)

    def neighbours(self, message_id: str, k: int = 2) -> list[dict]:
        """The k messages before and after in file order ({"id", "text", "position"}; the message
        itself excluded): the context a reviewer reads a message in."""
        row = self._db.execute("SELECT position FROM messages WHERE id = ?", (message_id,)).fetchone()
        if row is None:
            raise KeyError(message_id)
        near = self._db.execute(
            "SELECT id, text, position FROM messages WHERE position BETWEEN ? AND ? AND id != ? ORDER BY position",
            (row[0] - k, row[0] + k, message_id),
        )
        return [dict(r) for r in near]

    def next_pending(self, after_rank: int | None = None, *, reviewer: str | None = None) -> Item | None:
        """The next item still to look at: the first pending or stale one after `after_rank` if given
        (from the top when none is after it), else from the top; when none is left, the skipped ones
        come back, in list order (after `after_rank` first, as above). None when every item is
        decided: where a reviewer resumes, and where the page goes after a decision. With `reviewer`,
        an item leased to another reviewer, or decided blind by this one and waiting for a second
        reviewer, is passed over; and a message another reviewer decided blind, which waits for a
        second reviewer, comes first, wherever `after_rank` is (the first of them in list order,
        riskiest first): a second reviewer meets it at their next message, not after the whole list.
        One this reviewer skipped comes back with their other skipped ones."""
        free = ""
        if reviewer is not None:
            free = (" AND NOT EXISTS (SELECT 1 FROM leases l WHERE l.id = i.id AND l.reviewer != ? AND l.until > ?)"
                    " AND NOT EXISTS (SELECT 1 FROM reviews r WHERE r.id = i.id AND r.reviewer = ?"
                    " AND r.text_hash = m.text_hash)")
            where, values = self._where(None, "pending,stale,skipped", double="waiting")
            row = self._db.execute(
                f"{self._ITEM_SQL}{where}{free} AND (d.id IS NULL OR NOT (d.status = 'skipped' AND d.reviewer = ? "
                "AND d.text_hash = m.text_hash)) ORDER BY i.rank LIMIT 1",
                [*values, reviewer, time.time(), reviewer, reviewer]).fetchone()
            if row is not None:
                return self._item(row)
        for statuses in ("pending,stale", "skipped"):
            where, values = self._where(None, statuses)
            if reviewer is not None:
                where += free
                values = [*values, reviewer, time.time(), reviewer]
            tries = [(where, values)]
            if after_rank is not None:
                tries.insert(0, (where + " AND i.rank > ?", [*values, after_rank]))
            for clause, params in tries:
                row = self._db.execute(f"{self._ITEM_SQL}{clause} ORDER BY i.rank LIMIT 1", params).fetchone()
                if row is not None:
                    return self._item(row)
        return None
