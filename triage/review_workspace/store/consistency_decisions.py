"""Consistency decisions: each consistency case of what a release would publish (found by
triage.review_workspace.consistency) decided once for the whole corpus, one case or many at once,
with its grounds (the hidden mentions it was taken on), logged, and undone as the page's other
decisions are; the cases' mentions kept between calls while the released rows are the same.
"""

from __future__ import annotations

import hashlib
import json
import uuid
from collections import Counter

from triage.errors import BadOption
from triage.review_workspace.codes import coded
from triage.review_workspace.store.common import BulkChanged, Conflict, NeedsConfirmation, _now, _reviewer
from triage.review_workspace.store.tables import _CONSISTENCY


#: The consistency cases one bulk decision names at most (a page of the list is 25 to 100; the command line's
#: --consistency-all names every case its filters find).
CONSISTENCY_BULK = 50_000


def _public_case(case: dict | None, *, mentions: bool = True) -> dict | None:
    from triage.review_workspace.consistency import public

    return None if case is None else public(case, mentions=mentions)


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


class ConsistencyDecisions:
    """The consistency cases, their decisions (one or many), and their undo."""

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
