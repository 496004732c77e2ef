"""The names the reviewers taught: the spellings learnt as names for the corpus, and the first names,
surnames and nicknames a reviewer marked in a decided message where the machines hid nothing
(never the machines' own proposal a reviewer accepted). `classify --workspace` hides them and
their variants in the other messages.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable


_WORDS = re.compile(r"[^\W_]+(?:[-'’][^\W_]+)*")


def _word_messages(texts: Iterable[str]) -> dict[str, int]:
    """How many of `texts` hold each word (casefolded), once per message."""
    counts: dict[str, int] = {}
    for text in texts:
        for word in set(_WORDS.findall(text.casefold())):
            counts[word] = counts.get(word, 0) + 1
    return counts


class Taught:
    """The names taught to the next classification: learnt or marked."""

    def taught_names(self) -> list[tuple[str, str]]:
        """(name, tag) of what the reviewers of this corpus have taught: the spellings learnt as
        names for the corpus, and the first names, surnames and nicknames a reviewer marked in a
        decided message (hidden where the machines hid nothing; the text unchanged since), never
        what the machines proposed and a reviewer accepted. classify --workspace hides them and
        their variants in the other messages."""
        names, _ = self._learnt_sets()
        return [(spelling, tag) for spelling, tag in names] + [(text, tag) for text, tag, _ in self._marks()]

    def _marks(self) -> list[tuple[str, str, str]]:
        """(spelling as written, tag, message id) of each name a reviewer marked in a decided message."""
        rows = self._db.execute(
            "SELECT m.id, m.text, k.spans FROM marked k JOIN decisions d USING (id) JOIN messages m USING (id) "
            "WHERE d.status = 'decided' AND d.text_hash = m.text_hash AND k.text_hash = m.text_hash ORDER BY m.position")
        return [(row["text"][start:end], tag, row["id"]) for row in rows
                for start, end, tag in json.loads(row["spans"]) if 0 <= start < end <= len(row["text"])]

    def taught(self) -> list[dict]:
        """The names taught to the next classification, one per spelling (casefolded) and tag: how
        it was taught (learnt as a name, or marked by a reviewer in how many messages) and in how many
        messages of the corpus the spelling stands as a word, in any case: at most where it will be
        hidden (one that is also an ordinary word only where written with a capital that does not
        open a sentence: triage.seekhide.known)."""
        names, _ = self._learnt_sets()
        found: dict[tuple[str, str], dict] = {}
        for spelling, tag in names:
            found.setdefault((spelling.casefold(), tag), {"spelling": spelling, "tag": tag, "learnt": True, "marked": 0})
        for spelling, tag, _ in self._marks():
            entry = found.setdefault((spelling.casefold(), tag),
                                     {"spelling": spelling, "tag": tag, "learnt": False, "marked": 0})
            entry["marked"] += 1
        if found:
            counts = _word_messages(row[0] for row in self._db.execute("SELECT text FROM messages"))
            for (key, _), entry in found.items():
                entry["messages"] = counts.get(key, 0)
        return sorted(found.values(), key=lambda e: (-e.get("messages", 0), e["spelling"].casefold(), e["tag"]))
