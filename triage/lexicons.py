"""The lexicons of Seek&Hide, loaded from the plain data files of dictionaries/.

Dictionary (to anonymise): INSEE first names and surnames. Anti-dictionaries (ordinary
words): French inflected forms (LEFFF 3.4 without proper nouns + Lexique 3.83), the team's
SMS forms, pronouns, French communes and country names. Every list may have an
exceptions.txt whose entries are removed at load time (deduce's convention), and the expert's
answers accumulate in a user folder (names.txt, words.txt) that the next run reads.

Lookups are by lower-case spelling first, then accent-insensitively (desole -> désolé), so
that an accented ordinary word never hides behind an unaccented name (aime vs Aimé).
"""

from __future__ import annotations

import hashlib
from itertools import chain
import json
import os
import unicodedata
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from pathlib import Path
from typing import NamedTuple

import dictionaries

DICTIONARIES_DIR = Path(dictionaries.__file__).resolve().parent
USER_DIR_ENV = "TRIAGE_USER_LEXICON_DIR"
APOSTROPHES = str.maketrans({"’": "'", "‘": "'", "ʼ": "'", "`": "'", "´": "'"})


def fold(text: str) -> str:
    """Lower case without accents: 'Dèsolé' -> 'desole', 'Cœur' -> 'coeur'.

    Letters with no ASCII base (Cyrillic, Arabic, emoji) are dropped, which is harmless:
    folding only serves dictionary look-ups of French words.
    """
    text = text.lower().replace("œ", "oe").replace("æ", "ae").replace("ß", "ss")
    if text.isascii():
        return text
    return unicodedata.normalize("NFD", text).encode("ascii", "ignore").decode("ascii")


class NameEntry(NamedTuple):
    tag: str  # PRE (first name) or NOM (surname)
    id: int  # stable id in the list, used in replacement codes
    rank: int  # 1 = commonest


@dataclass(frozen=True)
class LexiconInfo:
    name: str
    role: str
    entries: int
    source: str
    licence: str


def _read_lines(path: Path) -> list[str]:
    if not path.exists():
        return []
    try:
        return path.read_text("utf-8").split("\n")
    except UnicodeDecodeError as error:
        from triage.io import InputError

        line = path.read_bytes()[: error.start].count(b"\n") + 1
        raise InputError(f"{path}: line {line} is not UTF-8; save the file as UTF-8") from None


def _read_list(path: Path) -> set[str]:
    """One entry per line; '#' starts a comment; the first tab-separated column is the entry."""
    entries = set()
    for line in _read_lines(path):
        if "#" in line or "\t" in line:
            line = line.split("#", 1)[0].split("\t", 1)[0]
        line = line.strip().lower().translate(APOSTROPHES)
        if line:
            entries.add(line)
    return entries


def _read_names(path: Path, excluded: set[str]) -> tuple[dict[str, int], dict[str, int]]:
    """(spelling -> id, spelling -> frequency rank), lower case, exceptions removed.

    The file is parsed in bulk (one split of the whole text) because it holds 200,000+ rows
    and start-up time matters.
    """
    if not path.exists():
        return {}, {}
    header, _, body = path.read_text("utf-8").lower().partition("\n")
    width = header.count("\t") + 1
    cells = body.rstrip("\n").replace("\n", "\t").split("\t")
    names, ids, ranks = cells[0::width], cells[1::width], cells[2::width]
    # Reversed so that, on a duplicate spelling, the best-ranked row wins.
    id_of = dict(zip(reversed(names), map(int, reversed(ids))))
    rank_of = dict(zip(reversed(names), map(int, reversed(ranks))))
    for name in excluded & id_of.keys():
        del id_of[name], rank_of[name]
    return id_of, rank_of


def _read_first_column(path: Path) -> set[str]:
    """The lower-case first column of a TSV with a header, in bulk."""
    if not path.exists():
        return set()
    text = path.read_text("utf-8").lower()
    width = text[: text.index("\n")].count("\t") + 1
    cells = text.rstrip("\n").replace("\n", "\t").split("\t")
    return set(cells[width::width])


def _folded_set(words) -> set[str]:
    """The accent-folded spellings of the words that carry accents (a set: no loop in Python
    over the 170,000 accented forms, which keeps start-up short)."""
    accented = [word for word in words if not word.isascii()]
    folded = set(fold("\n".join(accented)).split("\n"))
    folded.discard("")
    return folded


def _fold_index(words) -> dict[str, str]:
    """Accent-folded spelling -> an original spelling, for the words that carry accents."""
    words = [word for word in words if not word.isascii()]
    folded = fold("\n".join(words)).split("\n")
    if len(folded) != len(words):  # a character vanished along with a newline
        folded = [fold(w) for w in words]
    return {key: word for key, word in zip(folded, words) if key != word}


@dataclass(eq=False)  # compared and hashed by identity: caches are keyed on the instance
class Lexicons:
    """Every word list Seek&Hide and the features use, as plain sets and dicts."""

    first_names: dict[str, int]  # spelling -> id
    first_name_ranks: dict[str, int]
    last_names: set[str]  # spellings; ids are read on first use (last_name_ids)
    forms: set[str]
    sms: dict[str, str]
    pronouns: set[str]
    cities: set[str]
    regions: set[str]
    countries: set[str]
    user_names: set[str] = field(default_factory=set)
    user_words: set[str] = field(default_factory=set)
    directory: Path = DICTIONARIES_DIR
    user_directory: Path | None = None

    def __post_init__(self) -> None:
        # The big lists are kept as loaded; the small ones are merged for one look-up each.
        self.other_anti = self.sms.keys() | self.pronouns | self.cities | self.regions | self.countries
        self.folded_names = _fold_index(chain(self.first_names, self.last_names))
        self.folded_anti = _folded_set(self.forms) | _folded_set(self.other_anti)

    # ------------------------------------------------------------ look-ups
    def lookup(self, key: str) -> tuple[bool, bool]:
        """(is a name, is an ordinary word) for a lower-case spelling.

        The expert's answers decide first. Then the spelling as written decides when either
        side knows it; only an unknown spelling is looked up without accents. So 'aime' is
        the verb even though 'Aimé' is a name, and 'desole' is 'désolé'.
        """
        if key in self.user_words:
            return False, True
        if key in self.user_names:
            return True, False
        in_names = key in self.first_names or key in self.last_names
        in_anti = key in self.forms or key in self.other_anti
        if in_names or in_anti:
            return in_names, in_anti
        folded = fold(key)
        if folded in self.user_words:
            return False, True
        return (
            folded in self.first_names or folded in self.last_names or folded in self.folded_names,
            folded in self.forms or folded in self.other_anti or folded in self.folded_anti,
        )

    def name_entry(self, key: str) -> NameEntry:
        """The list entry of a name spelling; first names win over surnames."""
        if key not in self.first_names and key not in self.last_names:
            key = self.folded_names.get(fold(key), fold(key))
        if key in self.first_names:
            return NameEntry("PRE", self.first_names[key], self.first_name_ranks[key])
        if key in self.last_names:
            ident = self.last_name_ids.get(key, 0)
            return NameEntry("NOM", ident, ident)  # surnames were numbered by frequency
        return NameEntry("PRE", 0, 0)  # a user-confirmed name outside the lists

    @cached_property
    def last_name_ids(self) -> dict[str, int]:
        """Surname -> id, read when a surname is first hidden (it is not needed to label
        words, and parsing 200,000 ids would double the start-up time)."""
        ids, _ = _read_names(self.directory / "names" / "last_names.tsv", set())
        return ids

    # ------------------------------------------------------------ description
    @property
    def fingerprint(self) -> str:
        """Hash of the shipped lexicon files (user answers excluded): a model records it."""
        return lexicon_fingerprint(self.directory)

    def describe(self) -> list[LexiconInfo]:
        sources = json.loads((self.directory / "sources.json").read_text("utf-8"))
        sizes = {
            "first_names": len(self.first_names),
            "last_names": len(self.last_names),
            "inflected_forms": len(self.forms),
            "sms_forms": len(self.sms),
            "pronouns": len(self.pronouns),
            "cities": len(self.cities),
            "regions": len(self.regions),
            "countries": len(self.countries),
            "user_names": len(self.user_names),
            "user_words": len(self.user_words),
        }
        return [
            LexiconInfo(name, meta["role"], sizes[name], meta["source"], meta["licence"])
            for name, meta in sources.items()
        ]

    @property
    def ambiguous(self) -> set[str]:
        """Spellings that are both names and ordinary words (Pierre, Rose, Claire...)."""
        names = (self.first_names.keys() | self.last_names | self.user_names) - self.user_words
        return {key for key in names if self.lookup(key) == (True, True)}


def lexicon_fingerprint(directory: Path = DICTIONARIES_DIR) -> str:
    digest = hashlib.sha256()
    for path in sorted(directory.glob("*/*")):
        if path.parent.name == "user" or path.suffix not in (".txt", ".tsv"):
            continue
        digest.update(str(path.relative_to(directory)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def default_user_directory() -> Path:
    return Path(os.environ.get(USER_DIR_ENV) or DICTIONARIES_DIR / "user")


def load(directory: Path | None = None, user_directory: Path | None = None) -> Lexicons:
    """Read every lexicon from disk (about 0.45 s; see benchmarks/lexicons.py)."""
    import gc

    # Building a million strings and containers would trigger dozens of garbage collections
    # that find nothing to free: pause the collector while loading.
    enabled = gc.isenabled()
    gc.disable()
    try:
        return _load(directory, user_directory)
    finally:
        if enabled:
            gc.enable()


def _load(directory: Path | None = None, user_directory: Path | None = None) -> Lexicons:
    """Read every lexicon (see load)."""
    directory = Path(directory) if directory else DICTIONARIES_DIR
    user_directory = Path(user_directory) if user_directory else default_user_directory()
    excluded_names = _read_list(directory / "names" / "exceptions.txt")
    forms = set((directory / "forms" / "inflected_forms.txt").read_text("utf-8").split("\n"))
    forms.discard("")
    forms -= _read_list(directory / "forms" / "exceptions.txt")
    sms: dict[str, str] = {}
    for line in _read_lines(directory / "sms" / "sms_forms.tsv")[1:]:
        if line and not line.startswith("#"):
            cols = line.split("\t")
            sms[cols[0].lower().translate(APOSTROPHES)] = cols[1] if len(cols) > 1 else ""
    place_exceptions = _read_list(directory / "places" / "exceptions.txt")
    cities = {
        line.split("\t", 1)[0].lower()
        for line in _read_lines(directory / "places" / "cities.tsv")[1:]
        if line
    } - place_exceptions
    countries, regions = (
        {line.split("\t", 1)[0].lower() for line in _read_lines(directory / "places" / name)[1:] if line}
        for name in ("countries.tsv", "regions.tsv")
    )
    first_names, first_name_ranks = _read_names(directory / "names" / "first_names.tsv", excluded_names)
    last_names = _read_first_column(directory / "names" / "last_names.tsv") - excluded_names
    return Lexicons(
        first_names=first_names,
        first_name_ranks=first_name_ranks,
        last_names=last_names,
        forms=forms,
        sms=sms,
        pronouns=_read_list(directory / "pronouns" / "pronouns.txt"),
        cities=cities,
        regions=regions,
        countries=countries,
        user_names=_read_list(user_directory / "names.txt"),
        user_words=_read_list(user_directory / "words.txt"),
        directory=directory,
        user_directory=user_directory,
    )


@lru_cache(maxsize=1)
def default() -> Lexicons:
    """The shipped lexicons plus the user's answers, loaded once per process."""
    return load()
