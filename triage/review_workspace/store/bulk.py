"""Bulk decisions: every item the list's filters find decided at once (the machines' proposal, or
nothing hidden), after a preview whose digest names exactly the messages shown, each in the state
shown; the team's messages left alone; one undo takes them all back.
"""

from __future__ import annotations

import hashlib
import json
import uuid
from collections.abc import Iterator

from triage.errors import BadOption
from triage.review_workspace.codes import coded
from triage.review_workspace.store.common import BulkChanged, Item, _reviewer, check_spans
from triage.schema import NTA, TA


BULK_ACTIONS = ("accept", "nta")  # the machines' proposal, or nothing hidden


def _bulk_digest_add(digest, item: Item) -> None:
    """One listed message into a bulk preview's digest: its id, text and last logged action."""
    digest.update(json.dumps([item.id, item.text_hash, item.version], ensure_ascii=False).encode("utf-8", "surrogatepass"))
    digest.update(b"\n")


class Bulk:
    """A decision on every item the filters find: its preview, then the decision."""

    def _bulk_outcome(self, item: Item, action: str) -> tuple[str, list]:
        """(label, spans) that a bulk `action` gives an item: `accept` the machines' proposal (this
        corpus's learnt words applied), `nta` nothing hidden."""
        if action == "nta":
            return NTA, []
        spans = [list(span) for span in item.proposal]
        return (TA if spans else NTA), spans

    def bulk_preview(self, *, action: str, filters: dict, examples: int = 5, reviewer: str | None = None) -> dict:
        """What a bulk decision on the list's items passing `filters` (as in `items`) would change:
        how many items, how many of them now decided differently or for the first time, how many
        it leaves alone for the team (`held`: another reviewer's lease or decision, a disagreement,
        a double review; counted when `reviewer` is given), and a few examples with their text,
        what they hide now and after."""
        if action not in BULK_ACTIONS:
            raise coded(BadOption(f"action must be one of {', '.join(BULK_ACTIONS)}"), "bulk_action_unknown",
                        actions=", ".join(BULK_ACTIONS))
        filters = {k: v for k, v in filters.items() if v is not None}
        total = self.count(**filters)
        counts = {"new": 0, "changed": 0, "unchanged": 0, "held": 0}
        readable: dict[str, int] = {}  # tag -> hidden items (now) that the decision makes readable
        readable_messages = 0
        shown: list[dict] = []
        listed = hashlib.sha256()
        for item in self._bulk_items(filters):
            _bulk_digest_add(listed, item)
            if reviewer is not None and self._held(item.id, reviewer):
                counts["held"] += 1
                continue
            label, spans = self._bulk_outcome(item, action)
            now = (item.label, item.spans) if item.status == "decided" else None
            kind = "new" if now is None else ("unchanged" if now == (label, spans) else "changed")
            counts[kind] += 1
            hidden_now = item.spans if item.status == "decided" else item.proposal
            kept = {tuple(span) for span in spans}
            dropped = [span for span in hidden_now if tuple(span) not in kept]
            for span in dropped:
                readable[span[2]] = readable.get(span[2], 0) + 1
            readable_messages += bool(dropped)
            if kind != "unchanged" and len(shown) < examples:
                shown.append({"id": item.id, "text": item.text, "status": item.status,
                              "before": None if now is None else {"label": now[0], "spans": now[1]},
                              "after": {"label": label, "spans": spans}})
        return {"action": action, "total": total, **counts, "examples": shown, "digest": listed.hexdigest(),
                "readable": sum(readable.values()), "readable_messages": readable_messages,
                "readable_tags": dict(sorted(readable.items(), key=lambda pair: (-pair[1], pair[0])))}

    def _bulk_items(self, filters: dict) -> Iterator[Item]:
        offset = 0
        while True:
            found = self.items(**filters, offset=offset, limit=500)
            yield from found
            if len(found) < 500:
                return
            offset += 500

    def bulk_decide(self, *, action: str, filters: dict, reviewer: str, digest: str,
                    expected: int | None = None) -> dict:
        """Decide every item passing `filters` by `action` (see bulk_preview), as ordinary decisions
        of `reviewer`, in one transaction; one undo takes them all back. `digest` is the preview's:
        it names exactly the messages the reviewer was shown, each in the state shown (its text and
        its last logged action); when the list changed since (another message found, one gone, one
        decided or skipped by anyone), nothing is decided (BulkChanged). `expected`, the count
        shown, is checked too when given."""
        if action not in BULK_ACTIONS:
            raise coded(BadOption(f"action must be one of {', '.join(BULK_ACTIONS)}"), "bulk_action_unknown",
                        actions=", ".join(BULK_ACTIONS))
        if not (isinstance(digest, str) and len(digest) == 64):
            raise coded(BadOption("digest must be the one the preview gave (it names the messages it showed)"),
                        "bulk_digest_invalid")
        if expected is not None and type(expected) is not int:
            raise coded(BadOption("expected must be the number of messages the preview showed"), "bulk_expected_invalid")
        reviewer = _reviewer(reviewer)
        batch = uuid.uuid4().hex
        with self._transaction():
            chosen = list(self._bulk_items(filters))
            listed = hashlib.sha256()
            for item in chosen:
                _bulk_digest_add(listed, item)
            if (expected is not None and len(chosen) != expected) or listed.hexdigest() != digest:
                raise coded(BulkChanged(f"the list changed since the preview ({len(chosen):,} messages now"
                                        + (f", {expected:,} shown" if expected is not None else "")
                                        + "; a message found, gone, or decided since): nothing was decided, look at "
                                        "the preview again"), "bulk_changed", now=len(chosen),
                            shown=expected if expected is not None else "")
            self._batch_column()
            decided = held = 0
            for item in chosen:
                if self._held(item.id, reviewer):
                    held += 1
                    continue
                label, spans = self._bulk_outcome(item, action)
                if item.status == "decided" and (item.label, item.spans) == (label, spans):
                    continue
                self._record(item.id, "decide", reviewer, "decided", label, json.dumps(check_spans(item.text, spans)),
                             batch=batch)
                decided += 1
        return {"action": action, "decided": decided, "held": held, "batch": batch, "total": len(chosen)}
