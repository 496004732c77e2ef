"""Learnt words: a spelling learnt as a name (hidden everywhere) or as an ordinary word (never hidden),
for this corpus or, through the user lexicon, for future corpora; previewed across the corpus
first, a frequent ordinary word made a name and every word made readable asked first; unlearnt;
and the words of the pending list a reviewer may decide once (the Words view).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import sqlite3
from collections.abc import Iterator

from triage.lexicons import userlexicon
from triage.errors import BadOption
from triage.queue.reasons import word_pattern
from triage.review_workspace.codes import coded
from triage.review_workspace.store.common import (
    Conflict,
    DISPUTED,
    LEARN_KINDS,
    NeedsConfirmation,
    TAGS,
    _key,
    _now,
    _reviewer,
)


SCOPES = ("corpus", "user")  # this workspace, or the user lexicon for future corpora
#: An ordinary word made a name needs confirmation when it is in this many messages or more.
FREQUENT_MESSAGES = 3


def _ordinary(key: str, lexicons) -> bool:
    """Whether the lexicons read this (single) spelling as an ordinary word."""
    if " " in key:
        return False
    from triage.schema import AMBIGUOUS, ANTI_DICTIONARY

    return _seeker(lexicons).label_word(key).label in (ANTI_DICTIONARY, AMBIGUOUS)


def _function_word(key: str, lexicons) -> bool:
    return key in _seeker(lexicons).lexicons.pronouns


def _seeker(lexicons):
    from triage import lexicons as lexicon_module
    from triage.seekhide import SeekAndHide

    return SeekAndHide(lexicons or lexicon_module.default())


class Learning:
    """Learning and unlearning words and names, their preview, and the words to look at."""

    def _learnt_sets(self) -> tuple[list[tuple[str, str]], set[str]]:
        """The names and ordinary words learnt for this corpus, read again when another connection (another
        server on the workspace, `triage review --unlearn`) wrote to the file since they were read."""
        version = self._db.execute("PRAGMA data_version").fetchone()[0]
        if version != self._learnt_version:
            self._learnt_cache, self._learnt_version = None, version
        if self._learnt_cache is None:
            rows = self._db.execute("SELECT spelling, kind, tag FROM learnt WHERE active = 1 AND scope = 'corpus'")
            names, words = [], set()
            for row in rows:
                if row["kind"] == "name":
                    names.append((row["spelling"], row["tag"]))
                else:
                    words.add(row["spelling"])
            self._learnt_cache = (names, words)
        return self._learnt_cache

    def preview(self, spelling: str, kind: str = "name", *, examples: int = 5, lexicons=None) -> dict:
        """What learning `spelling` would change across the whole corpus."""
        key = _key(spelling)
        if not key or not any(c.isalnum() for c in key):
            raise coded(BadOption("give a word or a phrase to learn"), "learn_empty")
        if kind not in LEARN_KINDS:
            raise coded(BadOption(f"kind must be one of {', '.join(LEARN_KINDS)}"), "learn_kind_unknown",
                        kinds=", ".join(LEARN_KINDS))
        hits: list[dict] = []
        count = 0
        for row, match in self._mentions(key):
            count += 1
            if len(hits) < examples:
                hits.append({"id": row["id"], "text": row["text"], "start": match.start(), "end": match.end()})
        ordinary = _ordinary(key, lexicons)
        frequent = kind == "name" and ordinary and (count >= FREQUENT_MESSAGES or _function_word(key, lexicons))
        verb = "hides" if kind == "name" else "shows"
        summary = f"{verb} '{key}' in {count:,} message{'s' if count != 1 else ''}"
        readable = readable_messages = 0
        if kind == "word":
            # What an ordinary word releases: its occurrences hidden now in the messages no reviewer
            # decided (the machines' proposal there, and the release of the messages outside the list).
            seen = set()
            for occurrence in self.concordance(key, limit=10**9)["occurrences"]:
                if occurrence["hidden"] and occurrence["status"] not in ("decided", DISPUTED):
                    readable += 1
                    seen.add(occurrence["id"])
            readable_messages = len(seen)
            summary += (f": {readable:,} hidden item{'s' if readable != 1 else ''} become{'' if readable != 1 else 's'}"
                        f" readable in {readable_messages:,} message{'s' if readable_messages != 1 else ''}")
        return {
            "spelling": key, "kind": kind, "messages": count, "ordinary_word": ordinary, "frequent": bool(frequent),
            "readable": readable, "readable_messages": readable_messages,
            "examples": hits, "digest": self.word_digest(key), "summary": summary,
        }

    def _mentions(self, key: str) -> Iterator[tuple[sqlite3.Row, re.Match]]:
        """(message row, first match) of every message of the corpus holding `key` as a whole word,
        in file order: through the trigram index when it can, else a scan."""
        pattern = word_pattern(key)
        columns = ("m.id, m.text, m.text_hash, (SELECT coalesce(max(e.seq), 0) FROM events e WHERE e.id = m.id) "
                   "AS version")
        piece = max(re.split(r"['’\s]+", key), key=len)
        if self._searchable and len(piece) >= 3:
            rows = self._db.execute(
                f"SELECT {columns} FROM messages m WHERE rowid IN (SELECT rowid FROM message_search "
                "WHERE message_search MATCH ?) ORDER BY position", ('"' + piece.replace('"', '""') + '"',))
        else:
            like = "%" + piece.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
            rows = self._db.execute(f"SELECT {columns} FROM messages m WHERE text LIKE ? ESCAPE '\\' "
                                    "ORDER BY position", (like,))
        for row in rows:
            match = pattern.search(row["text"])
            if match is not None:
                yield row, match

    def word_digest(self, spelling: str) -> str:
        """What learning `spelling` acts on, as a digest: the learnt entries of that spelling in force
        (any kind, any scope) and every message holding it, each with its text and its last logged
        action. The Words view and the preview give it; `learn` is refused when it changed since."""
        key = _key(spelling)
        digest = hashlib.sha256()
        entries = self._db.execute("SELECT entry, kind, scope, tag FROM learnt WHERE spelling = ? AND active = 1 "
                                   "ORDER BY entry", (key,)).fetchall()
        digest.update(json.dumps([key, [list(entry) for entry in entries]], ensure_ascii=False)
                      .encode("utf-8", "surrogatepass") + b"\n")
        for row, _ in self._mentions(key):
            digest.update(json.dumps([row["id"], row["text_hash"], row["version"]], ensure_ascii=False)
                          .encode("utf-8", "surrogatepass") + b"\n")
        return digest.hexdigest()

    def learn(self, spelling: str, *, kind: str, scope: str, reviewer: str, tag: str = "PRE",
              confirm: bool = False, lexicon_dir: str | os.PathLike[str] | None = None, lexicons=None,
              digest: str | None = None) -> dict:
        """Learn a word or phrase: a name (hidden everywhere) or an ordinary word (never hidden), for
        this corpus or for the user's future corpora. A frequent ordinary word made a name needs
        `confirm` (else NeedsConfirmation carries the preview).

        `digest` is the spelling's as shown (`word_digest`, given with each word of the Words view and
        with the preview): when someone learnt or unlearnt the spelling since, or decided, skipped or
        undid on a message holding it, nothing is learnt (Conflict). Without it, learning is refused
        when it would replace an entry of another reviewer for this spelling."""
        if scope not in SCOPES:
            raise coded(BadOption(f"scope must be one of {', '.join(SCOPES)}"), "scope_unknown", scopes=", ".join(SCOPES))
        if tag not in TAGS:
            raise coded(BadOption(f"unknown tag {tag!r}; use one of {' '.join(TAGS)}"), "tag_unknown", tag=tag,
                        tags=" ".join(TAGS))
        if type(confirm) is not bool:  # "false" (a string) must not confirm
            raise coded(BadOption("confirm must be true or false"), "confirm_invalid")
        reviewer = _reviewer(reviewer)
        if digest is not None and not (isinstance(digest, str) and len(digest) == 64):
            raise coded(BadOption("digest must be the one the Words view or the preview gave for this spelling"),
                        "learn_digest_invalid")
        preview = self.preview(spelling, kind, lexicons=lexicons)
        key = preview["spelling"]
        self._check_word(key, digest, reviewer, preview["digest"])
        if preview["frequent"] and not confirm:
            raise coded(NeedsConfirmation(
                f"'{key}' is a frequent ordinary word: learning it as a name {preview['summary']}; confirm to go on",
                preview,
            ), "learn_frequent", key=key, messages=preview["messages"])
        if scope == "user" and " " in key:
            # Seek&Hide reads a lexicon word by word: a phrase there would never match.
            raise coded(BadOption(f"'{key}' is a phrase: a phrase can be learnt for this corpus only"),
                        "learn_phrase_user", key=key)
        if kind == "word" and not (confirm and digest is not None):
            # The direction that releases text always asks, and names what its preview showed.
            raise coded(NeedsConfirmation(
                f"learning '{key}' as an ordinary word {preview['summary']}; confirm with the preview's digest to go on",
                preview,
            ), "learn_word_confirm", key=key, messages=preview["messages"], readable=preview["readable"],
                readable_messages=preview["readable_messages"])
        folder = os.path.abspath(userlexicon.directory(lexicon_dir)) if scope == "user" else None
        with self._transaction():
            # Checked again as it is stored (another server may have learnt it meanwhile), before the
            # user's lexicon is written: a refused word reaches neither.
            self._check_word(key, digest, reviewer, self.word_digest(key))
            if scope == "user":
                directory = userlexicon.directory(lexicon_dir)
                if kind == "name":
                    userlexicon.update(directory, names=[key])
                else:
                    userlexicon.update(directory, words=[key])
            self._learnt_folder_column()
            self._db.execute(
                "UPDATE learnt SET active = 0, undone_by = ?, undone_at = ? WHERE spelling = ? AND scope = ? AND active = 1",
                (reviewer, _now(), key, scope),
            )
            cursor = self._db.execute(
                "INSERT INTO learnt (spelling, kind, tag, scope, reviewer, at, lexicon_dir) VALUES (?,?,?,?,?,?,?)",
                (key, kind, tag if kind == "name" else "", scope, reviewer, _now(), folder),
            )
            if scope == "user":
                self._set_meta(lexicon_dir=folder)
        self._learnt_cache = None
        entry = self._entry(cursor.lastrowid)
        entry["preview"] = preview
        return entry

    def _check_word(self, key: str, digest: str | None, reviewer: str, now: str) -> None:
        """Conflict when the spelling is no longer as shown (`digest`), or, without it, when learning
        it would replace another reviewer's entry."""
        entries = self._db.execute("SELECT entry, kind, tag, scope, reviewer FROM learnt WHERE spelling = ? AND "
                                   "active = 1 ORDER BY entry DESC", (key,)).fetchall()
        if digest is not None:
            if digest == now:
                return
            raise coded(Conflict(f"'{key}' changed since it was shown (someone learnt or unlearnt it, or decided, "
                                 "skipped or undid on a message holding it): nothing was learnt; look at it again",
                                 {"kind": "word", "spelling": key, "entries": [dict(entry) for entry in entries]}),
                        "word_changed", key=key)
        others = [entry for entry in entries if entry["reviewer"] != reviewer]
        if others:
            other = others[0]
            raise coded(Conflict(f"'{key}' was learnt by {other['reviewer']} as "
                                 f"{'a name' if other['kind'] == 'name' else 'an ordinary word'}: nothing was learnt; "
                                 "send the word's digest to learn it anew",
                                 {"kind": "word", "spelling": key, "entries": [dict(e) for e in entries]}),
                        "word_learnt_by", key=key, reviewer=other["reviewer"], kind=other["kind"])

    def _learnt_folder_column(self) -> None:
        """Workspaces made before each learnt entry recorded its lexicon folder get the column."""
        columns = {row[1] for row in self._db.execute("PRAGMA table_info(learnt)")}
        if "lexicon_dir" not in columns:
            self._db.execute("ALTER TABLE learnt ADD COLUMN lexicon_dir TEXT")

    def _entry(self, entry_id: int) -> dict:
        row = self._db.execute("SELECT * FROM learnt WHERE entry = ?", (entry_id,)).fetchone()
        if row is None:
            raise KeyError(entry_id)
        entry = dict(row)
        entry["id"] = entry.pop("entry")
        entry.setdefault("lexicon_dir", None)
        return entry

    def learnt(self, *, active_only: bool = False) -> list[dict]:
        sql = "SELECT entry FROM learnt" + (" WHERE active = 1" if active_only else "") + " ORDER BY entry"
        return [self._entry(row[0]) for row in self._db.execute(sql)]

    def unlearn(self, entry_id: int, *, reviewer: str, lexicon_dir: str | os.PathLike[str] | None = None) -> dict:
        """Undo a learnt entry, and take it out of the user lexicon it was learnt into (the folder
        recorded with the entry; `lexicon_dir` only for entries learnt before folders were recorded).
        The entry comes back with `removed_from` (the folder it left, or None) and `lexicon_had`
        (whether that lexicon still held it)."""
        reviewer = _reviewer(reviewer)
        try:
            entry = self._entry(int(entry_id))
        except (KeyError, ValueError):
            raise coded(BadOption(f"no learnt entry {entry_id!r} (see `triage review CLASSIFIED --learnt`)"),
                        "learnt_unknown", entry=entry_id) from None
        if not entry["active"]:
            by = f" by {entry['undone_by']}" if entry.get("undone_by") else ""
            raise coded(Conflict(f"learnt entry {entry_id} ('{entry['spelling']}') was already undone{by}, or replaced: "
                                 "nothing was changed", {**entry, "learnt_kind": entry["kind"], "kind": "learnt"}),
                        "learnt_undone", entry=entry_id, spelling=entry["spelling"], by=entry.get("undone_by") or "")
        folder, had = None, False
        if entry["scope"] == "user":
            folder = userlexicon.directory(entry["lexicon_dir"] or lexicon_dir or self.meta().get("lexicon_dir"))
            key = userlexicon.entry(entry["spelling"])
            had = any(userlexicon.entry(line.split("#", 1)[0].split("\t", 1)[0]) == key
                      for name in (userlexicon.NAMES_FILE, userlexicon.WORDS_FILE)
                      for line in userlexicon.read(folder / name))
            if had:
                userlexicon.update(folder, remove=[entry["spelling"]])
        with self._transaction():
            changed = self._db.execute("UPDATE learnt SET active = 0, undone_by = ?, undone_at = ? WHERE entry = ? "
                                       "AND active = 1", (reviewer, _now(), entry["id"])).rowcount
            if not changed:  # undone meanwhile, by another server
                raise coded(Conflict(f"learnt entry {entry_id} ('{entry['spelling']}') was undone by someone else "
                                     "meanwhile: nothing was changed", {"kind": "learnt", "id": entry["id"]}),
                            "learnt_undone_meanwhile", entry=entry_id, spelling=entry["spelling"])
        self._learnt_cache = None
        undone = self._entry(entry["id"])
        undone["removed_from"] = os.fspath(folder) if folder is not None else None
        undone["lexicon_had"] = had
        return undone

    def candidates(self, *, limit: int = 200, examples: int = 5) -> list[dict]:
        """The words to look at across the pending list, grouped by spelling (most messages first),
        so that a reviewer can decide a word once; each with the `digest` that learning it names."""
        groups: dict[str, dict] = {}
        for item in self.items(status="pending,stale", limit=1_000_000):
            seen: set[str] = set()
            for word in item.highlighted:
                key = _key(word)
                if not key or key in seen:
                    continue
                seen.add(key)
                group = groups.setdefault(key, {"spelling": key, "messages": 0, "reason": item.reasons.get(word, ""),
                                                "examples": []})
                group["messages"] += 1
                if len(group["examples"]) < examples:
                    match = word_pattern(key).search(item.text)
                    group["examples"].append({
                        "id": item.id, "text": item.text,
                        "start": match.start() if match else -1, "end": match.end() if match else -1,
                    })
        learnt = {entry["spelling"] for entry in self.learnt(active_only=True)}
        ranked = sorted((g for g in groups.values() if g["spelling"] not in learnt),
                        key=lambda g: (-g["messages"], g["spelling"]))[:limit]
        for group in ranked:  # what learning it acts on, as shown: `learn` names it
            group["digest"] = self.word_digest(group["spelling"])
        return ranked
