"""Known names: the names a team already knows (participants, contacts, staff, from consent
forms), given as a plain text file, hidden with their tag in every message where they or one of
their variants appear as a word (the Seek&Hide step "known-names").

The file holds one name a line (first names, surnames, nicknames), in UTF-8, optionally followed
by a tab and a tag: PRE (first name), NOM (surname) or SUR (nickname). Without a tag, a name of
the first-name list is PRE, one of the surname list only is NOM, any other PRE; in an entry of
several words ("Marie Durand"), each word is a known name and the words after the first are NOM
by default. `#` starts a comment line; blank lines are skipped. A line that cannot be read is
refused in one line naming the line.

A word is a variant of a known name when, accents and case set aside and letter repetitions
collapsed (Zorglubiiine), it is the name, or it is within one edit (a letter added, removed,
replaced, or two neighbours swapped) of a name of ONE_EDIT_FROM letters or more, or within two
edits of a name of TWO_EDITS_FROM letters or more (up to VARIANTS_UP_TO letters: a longer name, or a
word longer than every name by more than two letters, matches only as written, accents, case and
repetitions aside, so that a long word costs no more than a short one). A word that is an ordinary word of the
lexicons (rose, mari) is hidden only when it is the name exactly (accents aside) written with a
capital: "Rose" is hidden, "une rose" is not.

Names a review taught (a reviewer hid the word in one message: taught_names) are hidden in the
other messages with more care than the team's own list, since a mark in one message says less
than a list: an ordinary word is then not hidden where its capital opens a sentence, where the
capital says nothing (a name taught as "Petit" would otherwise hide every "Petit souci" opening a
message), nor written in capitals (CHEZ PETIT); a taught name of two letters (Jo) or of a
nickname's shape that is a word (Sisi, Papa) is read as an ordinary word (sisi: si si), and one of
two letters that is a word of the lists (Au, Le) is not taught at all; a variant of a taught name
needs a capital (with Marion taught, "mario kart" stays); and a taught name Seek&Hide reads as a
word of another language where it stands (will, in a message in English) is hidden only with a
capital that does not open a sentence. For every known name, a variant in lower case is no name
when Seek&Hide read it as an ordinary word (a misspelling, an SMS spelling, a word of another
language).
"""

from __future__ import annotations

import hashlib
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from triage.errors import BadInput
from triage.lexicons import Lexicons, fold, word_list

KNOWN_TAGS = ("PRE", "NOM", "SUR")
# Variants within one edit of names of this many letters or more (after collapsing repetitions),
# within two edits of names of TWO_EDITS_FROM letters or more. Shorter names match only as
# written, accents, case and repetitions aside: one edit from a 4-letter name is too often
# another word (Léo: les, leur, lé).
ONE_EDIT_FROM, TWO_EDITS_FROM = 5, 8
# Names with variants have at most this many letters (after collapsing repetitions): the variant
# search grows with the square of a word's length.
VARIANTS_UP_TO = 40
# A name a review taught of at most this many letters (after collapsing repetitions) is hidden as an
# ordinary word is: only as written, with a capital that does not open a sentence (and one that is a word
# of the lists is not taught at all). Chosen on the simulated review of the large development file of
# 88milSMS (docs/evaluation.md, "The review loop").
TAUGHT_AS_WORD_UP_TO = 2
# A known-names file is a list a team wrote: larger is refused (a regular file only).
MAX_FILE_BYTES = 16 * 1024 * 1024
# Ordinary words of a nickname's shape (papa, sisi, dodo): dictionaries/nicknames/exceptions.txt.
WORD_LIKE_NICKNAMES = word_list("nicknames/exceptions.txt")
_RUN = re.compile(r"(\w)\1+")
# A word of a name: letters, with inner hyphens or apostrophes (Jean-Pierre, O'Neil).
_NAME_WORD = re.compile(r"[^\W\d_]+(?:['’-][^\W\d_]+)*")


def name_key(word: str) -> str:
    """A word as variants are compared: lower case, accents set aside, letter runs collapsed."""
    return _RUN.sub(r"\1", fold(word.lower()))


@dataclass(frozen=True)
class KnownNames:
    """The known names of a file or a list: `entries` are (word, tag or "" for the default,
    position in its entry: 0 for the first word); `source` the file's name, `sha256` its digest
    and `count` the number of names (lines or list items) given. `taught`: per entry, whether a
    review taught it (a reviewer's mark in one message) rather than the team listing it; empty
    when none was taught."""

    entries: tuple[tuple[str, str, int], ...]
    source: str | None = None
    sha256: str | None = None
    count: int = 0
    taught: tuple[bool, ...] = ()

    def taught_flags(self) -> tuple[bool, ...]:
        """Per entry, whether a review taught it."""
        return self.taught or (False,) * len(self.entries)

    def record(self) -> dict:
        """What a classify record (and a release's datasheet) says of them: the file's name and the
        number of names, never the names nor a digest of them (a plain digest of one or two names is
        reversed by trying every first name of a list)."""
        return {"file": self.source, "names": self.count}


class KnownHit(NamedTuple):
    """A word among the known names (KnownMatcher.hides)."""

    index: int  # the known name's, -1 for none
    tag: str
    ordinary: bool  # read as an ordinary word (of the lexicons; for a taught name, two letters or a nickname's shape)
    variant: bool  # a variant of the name, not the name itself
    taught: bool  # the name was taught by a review, not listed by the team


NOT_KNOWN = KnownHit(-1, "", False, False, False)


def _entry_words(text: str, tag: str, where: str) -> list[tuple[str, str, int]]:
    words = text.split()
    bad = next((w for w in words if not _NAME_WORD.fullmatch(w)), None)
    if bad is not None:
        raise BadInput(f"{where}: {bad!r:.60} is not a name (letters, with inner hyphens or apostrophes)")
    if any(len(name_key(w)) < 2 for w in words):
        raise BadInput(f"{where}: a name of one letter would hide that letter everywhere: {text!r}")
    found = []
    for position, word in enumerate(words):
        found.append((word, tag, position))
        if "-" in word:  # Jean-Pierre: each part too, as messages write them apart
            found += [(part, tag, position) for part in word.split("-") if len(name_key(part)) >= 2]
    return found


def parse(text: str, where: str) -> tuple[list[tuple[str, str, int]], int]:
    """(the entries of a known-names file's text, the number of names given); `where` names the
    file in errors."""
    entries = []
    count = 0
    for number, line in enumerate(text.split("\n"), 1):
        line = line.rstrip("\r")
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        at = f"{where}, line {number}"
        name, tab, tag = line.partition("\t")
        tag = tag.strip()
        if tab and tag not in KNOWN_TAGS:
            raise BadInput(f"{at}: the tag after the tab must be one of {', '.join(KNOWN_TAGS)}, not {tag!r}")
        if not name.strip():
            raise BadInput(f"{at}: no name before the tab")
        entries += _entry_words(name, tag, at)
        count += 1
    return entries, count


def read_known_names(path: str | os.PathLike) -> KnownNames:
    """The known names of a file (see the module's docstring); a bad line is refused in one line."""
    from triage.io.decoding import read_small_file

    path = Path(path)
    data = read_small_file(path, "--known-names", MAX_FILE_BYTES)
    for number, line in enumerate(data.split(b"\n"), 1):
        try:
            line.decode("utf-8")
        except UnicodeDecodeError:
            raise BadInput(f"known names {path}, line {number}: not UTF-8 text") from None
    text = data.decode("utf-8").removeprefix("\ufeff")
    entries, count = parse(text, f"known names {path}")
    if not entries:
        raise BadInput(f"known names {path}: no name in the file (one name a line)")
    return KnownNames(tuple(entries), path.name, hashlib.sha256(data).hexdigest(), count)


def taught_names(pairs, source: str) -> KnownNames | None:
    """Known names from (name, tag) pairs a review taught (a spelling learnt as a name, the
    words a reviewer hid as PRE, NOM or SUR), each word kept with its tag; None when there is
    none. Words that cannot be names (digits, one letter) are left out."""
    entries = []
    for name, tag in pairs:
        tag = tag if tag in KNOWN_TAGS else ""
        for position, word in enumerate(str(name).split()):
            if _NAME_WORD.fullmatch(word) and len(name_key(word)) >= 2:
                entries.append((word, tag, position))
    if not entries:
        return None
    entries = sorted(set(entries))
    digest = hashlib.sha256("\n".join(f"{w}\t{t}\t{p}" for w, t, p in entries).encode("utf-8")).hexdigest()
    return KnownNames(tuple(entries), source, digest, len(entries), (True,) * len(entries))


def merged(first: KnownNames | None, second: KnownNames | None) -> KnownNames | None:
    """The names of both (either may be None): the first's record, counting both."""
    if first is None or second is None:
        return first or second
    entries = first.entries + second.entries
    digest = hashlib.sha256(f"{first.sha256}+{second.sha256}".encode()).hexdigest()
    source = " and ".join(name for name in (first.source, second.source) if name) or None
    taught = first.taught_flags() + second.taught_flags()
    return KnownNames(entries, source, digest, first.count + second.count, taught if any(taught) else ())


def known_names_of(names) -> KnownNames | None:
    """Known names from a file path, a list of names (each as a line of the file, tag after a
    tab allowed), an existing KnownNames, or None."""
    if names is None or isinstance(names, KnownNames):
        return names
    if isinstance(names, (str, os.PathLike)):
        return read_known_names(names)
    if isinstance(names, (list, tuple, set, frozenset)) and all(isinstance(n, str) for n in names):
        items = list(names)
        if any("\n" in item for item in items):
            raise BadInput("known names: one name per item of the list")
        text = "\n".join(items)
        entries, count = parse(text, "known names")
        if not entries:
            raise BadInput("known names: the list holds no name")
        return KnownNames(tuple(entries), None, hashlib.sha256(text.encode("utf-8")).hexdigest(), count)
    raise BadInput(f"known names must be a file path or a list of names, not {type(names).__name__}")


def _deletes(key: str, edits: int) -> set[str]:
    found, frontier = set(), {key}
    for _ in range(edits):
        frontier = {w[:i] + w[i + 1:] for w in frontier for i in range(len(w))}
        found |= frontier
    return found


def _distance(a: str, b: str) -> int:
    """Edits (insertion, deletion, substitution, swap of two neighbours) from a to b."""
    previous2, previous = None, list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        row = [i] + [0] * len(b)
        for j, cb in enumerate(b, 1):
            row[j] = min(previous[j] + 1, row[j - 1] + 1, previous[j - 1] + (ca != cb))
            if previous2 is not None and i > 1 and j > 1 and ca == b[j - 2] and a[i - 2] == cb:
                row[j] = min(row[j], previous2[j - 2] + 1)
        previous2, previous = previous, row
    return previous[-1]


class KnownMatcher:
    """The known names with their tags resolved against the lexicons, and the look-up of a word
    among them and their variants."""

    def __init__(self, known: KnownNames, lexicons: Lexicons):
        self.known = known
        self.lexicons = lexicons
        self.names: list[tuple[str, str, str, bool]] = []  # (key, exact form folded, tag, taught)
        self._exact: dict[str, int] = {}
        self._near: dict[str, set[int]] = {}
        self._longest = 0  # the longest name with variants
        for (word, tag, position), taught in zip(known.entries, known.taught_flags()):
            key = name_key(word)
            tag = tag or self._default_tag(word, position)
            index = len(self.names)
            self.names.append((key, fold(word.lower()), tag, taught))
            self._exact.setdefault(key, index)
            edits = 2 if len(key) >= TWO_EDITS_FROM else 1 if len(key) >= ONE_EDIT_FROM else 0
            if edits and len(key) <= VARIANTS_UP_TO:
                self._longest = max(self._longest, len(key))
                for variant in {key} | _deletes(key, edits):
                    self._near.setdefault(variant, set()).add(index)

    def _default_tag(self, word: str, position: int) -> str:
        if position > 0:
            return "NOM"
        lx = self.lexicons
        key, folded = word.lower(), fold(word.lower())
        if key in lx.first_names or folded in lx.first_names or folded in lx.folded_names:
            return "PRE"
        return "NOM" if key in lx.last_names or folded in lx.last_names else "PRE"

    def find(self, word: str) -> int:
        """The index of the known name `word` is (a variant of), -1 for none."""
        key = name_key(word)
        if key in self._exact:
            return self._exact[key]
        if len(key) < ONE_EDIT_FROM - 1 or len(key) > self._longest + 2 or not key.isalpha():
            return -1  # too short to be a variant, or longer than any name by more than two edits
        candidates = set(self._near.get(key, ()))
        for variant in _deletes(key, 2 if len(key) >= TWO_EDITS_FROM - 1 else 1):
            candidates |= self._near.get(variant, set())
        best, best_distance = -1, 3
        for index in sorted(candidates):
            name = self.names[index][0]
            allowed = 2 if len(name) >= TWO_EDITS_FROM else 1 if len(name) >= ONE_EDIT_FROM else 0
            distance = _distance(key, name)
            if distance <= allowed and distance < best_distance:
                best, best_distance = index, distance
        return best

    def hides(self, word: str) -> KnownHit:
        """What `word`, as written, is among the known names: the name's index (-1 for none) and
        tag, whether the word is read as an ordinary word (then hidden only as the name exactly,
        with a capital), whether it is a variant rather than the name, and whether the
        name was taught by a review (triage.seekhide.context.known_names reads both in context)."""
        index = self.find(word)
        if index < 0:
            return NOT_KNOWN
        key, exact, tag, taught = self.names[index]
        lowered, word_key = word.lower(), name_key(word)
        ordinary = self.lexicons.lookup(lowered)[1] or self.lexicons.lookup(word_key)[1]
        if taught:
            if ordinary and len(key) <= TAUGHT_AS_WORD_UP_TO:
                return NOT_KNOWN  # Le, Au, Ca: a word of the lists this short is that word elsewhere
            # A taught name of two letters (Jo) or of a nickname's shape that is a word (Sisi, Papa)
            # is read as an ordinary word: in lower case it is far more often that word.
            ordinary = ordinary or len(key) <= TAUGHT_AS_WORD_UP_TO or key in WORD_LIKE_NICKNAMES
            if ordinary and len(word) > 1 and word.isupper():
                return NOT_KNOWN  # in capitals (PETIT, SISI) the capital says nothing
            if not word[:1].isupper() and word_key != key:
                return NOT_KNOWN  # a variant in lower case (mario, taught Marion)
        if ordinary and not (word[:1].isupper() and fold(lowered) == exact):
            return NOT_KNOWN
        return KnownHit(index, tag, bool(ordinary), word_key != key, taught)
