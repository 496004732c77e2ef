"""The concordance: every occurrence of a spelling across the corpus, in its context, with whether
it is hidden now; and occurrences decided one at a time (hidden as a name, or shown), each
message so changed decided in one transaction, undone together.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterable

from triage.errors import BadOption
from triage.queue.reasons import word_pattern
from triage.review_workspace.codes import coded
from triage.review_workspace.store.common import Conflict, LEARN_KINDS, TAGS, _key, _reviewer, apply_learnt, check_spans
from triage.schema import NTA, TA


class Concordance:
    """A spelling's occurrences in context, and deciding them one by one."""

    def concordance(self, spelling: str, *, width: int = 40, limit: int = 1000) -> dict:
        """Every occurrence of a spelling (a whole word or phrase, any case) in the corpus, with its
        context: the words before and after (`width` characters each way). Each occurrence says
        whether its message is in the review list (then it can be decided here, one occurrence at a
        time) and whether it is hidden now: in a listed message by the reviewer's decision, else the
        machines' proposal; in a message outside the list as the release hides it (what the machines
        hid, with the names learnt for the corpus), never "not hidden" for what the machines hid."""
        key = _key(spelling)
        if not key or not any(c.isalnum() for c in key):
            raise coded(BadOption("give a word or a phrase"), "concordance_empty")
        pattern = word_pattern(key)
        like = "%" + key.split()[0].replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
        rows = self._db.execute(
            "SELECT m.id, m.text, m.hidden, m.decision, i.id IS NOT NULL AS listed FROM messages m"
            " LEFT JOIN items i USING (id) WHERE m.text LIKE ? ESCAPE '\\' ORDER BY m.position", (like,))
        learnt = None
        occurrences, messages, outside = [], 0, 0
        for row in rows:
            hits = list(pattern.finditer(row["text"]))
            if not hits:
                continue
            messages += 1
            item = self.item(row["id"]) if row["listed"] else None
            if item is None:
                outside += len(hits)
            if item is None:  # released by the machines: what the release hides in it
                if learnt is None:
                    learnt = self._learnt_sets()
                machine = json.loads(row["hidden"] or "[]") if row["decision"] == TA else []
                current = apply_learnt(row["text"], machine, *learnt)
            else:
                current = item.spans if item.status == "decided" else item.proposal
            for hit in hits:
                if len(occurrences) >= limit:
                    break
                start, end = hit.span()
                text = row["text"]
                covering = [span for span in current if span[0] < end and span[1] > start]
                occurrences.append({
                    "id": row["id"], "start": start, "end": end, "before": text[max(0, start - width):start],
                    "match": text[start:end], "after": text[end:end + width], "listed": item is not None,
                    "text_hash": item.text_hash if item else None, "status": item.status if item else None,
                    "version": item.version if item else None,
                    "hidden": bool(covering), "tag": covering[0][2] if covering else None,
                })
        return {"spelling": key, "messages": messages, "occurrences": occurrences, "outside": outside,
                "truncated": len(occurrences) >= limit}

    def decide_occurrences(self, marks: Iterable, *, reviewer: str, tag: str = "PRE") -> dict:
        """Decide occurrences one at a time: each mark {id, start, end, as: name|word, text_hash, version}
        hides that occurrence (as `tag`) or shows it, in what its message hides now (the reviewer's
        decision, else the machines' proposal); each message so changed is decided (TA when
        something is hidden, else NTA) by `reviewer`, all in one transaction, undone together. A
        message the team holds (see `_held`) is left as it is and counted in `held`; a mark whose
        `version` (its message's, as the concordance showed it) is no longer the message's refuses them
        all (Conflict), as a text changed since does (TextChanged)."""
        if tag not in TAGS:
            raise coded(BadOption(f"unknown tag {tag!r}; use one of {' '.join(TAGS)}"), "tag_unknown", tag=tag,
                        tags=" ".join(TAGS))
        reviewer = _reviewer(reviewer)
        by_message: dict[str, list] = {}
        try:
            for mark in marks:
                ident, start, end, kind = mark["id"], mark["start"], mark["end"], mark["as"]
                if not (isinstance(ident, str) and type(start) is int and type(end) is int and kind in LEARN_KINDS):
                    raise TypeError
                version = mark.get("version")
                if version is not None and type(version) is not int:
                    raise TypeError
                by_message.setdefault(ident, []).append((start, end, kind, mark.get("text_hash"), version))
        except (TypeError, KeyError, AttributeError):
            raise coded(BadOption("marks must be a list of {id, start, end, as: name or word, text_hash, version}"),
                        "marks_invalid") from None
        batch = uuid.uuid4().hex
        decided = held = 0
        with self._transaction():
            self._batch_column()
            for ident, changes in by_message.items():
                for _, _, _, digest, version in changes:
                    self._text(ident, digest)  # refused with TextChanged when the text changed since
                    if version is not None and version != self._version(ident):
                        raise coded(Conflict(f"message {ident} was decided or skipped since the concordance showed "
                                             "it: nothing was saved; look at it again", {"kind": "changed", "id": ident}),
                                    "occurrence_changed", id=ident)
                if self._held(ident, reviewer):
                    held += 1
                    continue
                item = self.item(ident)
                spans = [list(span) for span in (item.spans if item.status == "decided" else item.proposal)]
                for start, end, kind, _, _ in changes:
                    spans = [span for span in spans if not (span[0] < end and span[1] > start)]
                    if kind == "name":
                        spans.append([start, end, tag])
                spans = check_spans(item.text, spans)
                label = TA if spans else NTA
                if item.status == "decided" and (item.label, item.spans) == (label, spans):
                    continue
                self._record(ident, "decide", reviewer, "decided", label, json.dumps(spans), batch=batch)
                decided += 1
        return {"decided": decided, "held": held, "messages": len(by_message), "batch": batch}
