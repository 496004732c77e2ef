"""The lexicons of Seek&Hide, loaded from the plain data files of dictionaries/.

Dictionary (to anonymise): INSEE first names and surnames. Anti-dictionaries (ordinary
words): French inflected forms (LEFFF 3.4 without proper nouns + Lexique 3.83), the team's
SMS forms, pronouns, French communes and country names. Every list may have an
exceptions.txt whose entries are removed at load time (deduce's convention), and the expert's
answers accumulate in a user folder (names.txt, words.txt) that the next run reads.

Lookups are by lower-case spelling first, then accent-insensitively (desole -> désolé), so
that an accented ordinary word never hides behind an unaccented name (aime vs Aimé).

Loading takes about 0.03 s thanks to a snapshot. The text files stay the source of truth,
but what is derived from the shipped ones (the lists, the accent-folded indexes, the surname
ids, the fingerprint) is saved once as a folder of .npy files (np.save, no pickle) in the
user's cache folder (platformdirs, or $TRIAGE_CACHE_DIR), which later processes map into
memory (np.load with mmap_mode) instead of parsing 11 MB of text. The big lists stay numpy
arrays (WordList, see triage/lexicons/wordlist.py): 800,000 Python strings would cost 0.2 s or more
whatever they were read from. Like Python's .pyc files, the snapshot is a local cache: its
name hashes the lexicon folder and the size and modification time of each shipped file, so
editing a lexicon rebuilds it on the next load; it is written to a temporary folder renamed
into place, so parallel workers never see half of it; and a cache folder that cannot be
written, or a missing or damaged file, only means reading the text files as before (one or
two seconds). The user folder is small and always read from text.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import operator
import os
import unicodedata
import weakref
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import chain
from pathlib import Path
from typing import NamedTuple

import numpy as np

from triage import dictionaries
from triage.errors import BadInput
from triage.lexicons.nearwords import NearWords
from triage.lexicons.wordlist import Encoded, Memory, WordList, heads

DICTIONARIES_DIR = Path(dictionaries.__file__).resolve().parent
USER_DIR_ENV = "TRIAGE_USER_LEXICON_DIR"
# The user folder's files: names always hidden, words never hidden (triage.lexicons.userlexicon writes them).
USER_NAMES_FILE, USER_WORDS_FILE = "names.txt", "words.txt"
# What `triage lexicons` says writes the user lexicon (not a shipped list, so not described by
# dictionaries/sources.json): a reviewer's explicit decision, never an answer about one message.
USER_LEXICONS = ("user_names", "user_words")
USER_LEXICON_SOURCE = "taught by a reviewer in triage review (scope: your lexicon)"
CACHE_DIR_ENV = "TRIAGE_CACHE_DIR"  # where the snapshots go (default: the user's cache folder)
APOSTROPHES = str.maketrans({"’": "'", "‘": "'", "ʼ": "'", "`": "'", "´": "'"})


def spelling_key(text: str) -> str:
    """A spelling as the lexicons store it: lower case, one apostrophe."""
    return text.lower().translate(APOSTROPHES)


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
    except OSError as error:  # a folder where a file should be, no permission...
        raise BadInput(f"cannot read the lexicon file {path}: {error.strerror or error}") from None
    except UnicodeDecodeError as error:
        line = path.read_bytes()[: error.start].count(b"\n") + 1
        raise BadInput(f"{path}: line {line} is not UTF-8; save the file as UTF-8") from None


def _read_list(path: Path) -> set[str]:
    """One entry per line; '#' starts a comment; the first tab-separated column is the entry."""
    entries = set()
    for line in _read_lines(path):
        if "#" in line or "\t" in line:
            line = line.split("#", 1)[0].split("\t", 1)[0]
        line = spelling_key(line.strip())
        if line:
            entries.add(line)
    return entries


@lru_cache(maxsize=None)
def word_list(name: str) -> frozenset[str]:
    """A small closed list of the shipped dictionaries/ (titles, cue words, clitics, street
    types, top-level domains...), as a linguist edits it: one entry per line, '#' comments."""
    return frozenset(_read_list(DICTIONARIES_DIR / name))


@lru_cache(maxsize=None)
def word_table(name: str) -> dict[str, str]:
    """A small two-column list of the shipped dictionaries/ (say, brands.tsv: brand -> case),
    without its header row and without the entries of its folder's exceptions.txt."""
    path = DICTIONARIES_DIR / name
    excluded = _read_list(path.parent / "exceptions.txt")
    table = {}
    for line in _read_lines(path)[1:]:
        line = line.split("#", 1)[0].rstrip()
        if line.strip():
            key, _, value = line.partition("\t")
            key = spelling_key(key.strip())
            if key not in excluded:
                table[key] = value.strip()
    return table


# The small lists the rules and features share (dictionaries/cues/).
TITLES = word_list("cues/titles.txt")
PERSON_CUES = word_list("cues/person_cues.txt")
CLITICS = word_list("cues/clitics.txt")
DETERMINERS = word_list("cues/determiners.txt")
# Subject and reflexive pronouns: after one, a word that is also a name is a verb (se marie).
PRONOUNS_BEFORE_VERBS = word_list("cues/pronouns_before_verbs.txt")
COPULAS = word_list("cues/copulas.txt")
PRESENTATIVES = word_list("cues/presentatives.txt")


# The surnames up to this rank in the surname list are common enough for Seek&Hide's step
# word-surname to read one the lists read as a word as a surname after a first name (Petit is the
# 4th, Fontaine the 21st, Blanc the 35th; Bien, the 20,095th, stays a word).
COMMON_SURNAME_RANK = 10_000


def _read_names(path: Path, excluded: set[str], removed: dict[str, int] | None = None
                ) -> tuple[dict[str, int], dict[str, int]]:
    """(spelling -> id, spelling -> frequency rank), lower case, exceptions removed (and kept in
    `removed`, spelling -> rank, when it is given).

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
    for name in sorted(excluded & id_of.keys()):  # (in an order of their own: a set's changes from one process to the next)
        if removed is not None:
            removed[name] = rank_of[name]
        del id_of[name], rank_of[name]
    return id_of, rank_of


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


def _merged_small_anti(sms, pronouns, cities, regions, countries) -> set[str]:
    """The small anti-dictionaries as one set, for one look-up instead of five."""
    return sms.keys() | pronouns | cities | regions | countries


# Bits of Sorted.flags: which list holds a spelling as asked.
FIRST_NAMES, LAST_NAMES, OTHER_ANTI, FORMS, FOLDED_NAMES, FOLDED_ANTI = (1 << bit for bit in range(6))
NO_RANK = -1  # Looked.rank of a spelling whose name entry is no first name


class Flags(NamedTuple):
    bits: np.ndarray  # uint8: the lists (FIRST_NAMES, LAST_NAMES...) that hold each spelling
    rank: np.ndarray  # int64: a first name's rank, NO_RANK for a spelling of no first name
    # int64: for a key of folded_names, the first-name rank of the name it stands for (NO_RANK
    # when that is no first name), else NO_RANK
    stands_for: np.ndarray


class Looked(NamedTuple):
    """Lexicons.lookup_many's answers, one value per spelling."""

    in_names: np.ndarray  # bool: lookup(key)[0]
    in_anti: np.ndarray  # bool: lookup(key)[1]
    as_written: np.ndarray  # bool: a list holds the key as written (the user lexicon included)
    user_name: np.ndarray  # bool: the user lexicon's names hold the key (and its words do not)
    user_word: np.ndarray  # bool: the user lexicon's words hold the key
    # int64: first_name_ranks of the name entry, NO_RANK for none: the key's when the first
    # names or the surnames hold it as written, else that of folded_names.get(folded, folded).
    rank: np.ndarray


# The Sorted lists of each Lexicons, made at its first lookup_many (beside it, not in it: a
# Lexicons holds the lists themselves).
_SORTED: weakref.WeakKeyDictionary[Lexicons, Sorted] = weakref.WeakKeyDictionary()


def _members(words: set[str], keys: list[str]) -> np.ndarray:
    if not words:  # the user lexicon, most often
        return np.zeros(len(keys), dtype=bool)
    return np.fromiter(map(words.__contains__, keys), dtype=bool, count=len(keys))


class Sorted:
    """The lists Lexicons.lookup consults, each as a sorted array of UTF-8 bytes (WordList),
    searched for many spellings at once: the big ones are the snapshot's own arrays, the
    small ones (first names, the merged small anti-dictionaries, the accent-folded names)
    are made once per Lexicons (1.4 MB), with the first-name ranks beside them."""

    def __init__(self, lexicons: Lexicons):
        arrays = lexicons.sorted_arrays or _sorted_arrays(lexicons.first_name_ranks, lexicons.folded_names,
                                                           lexicons.other_anti)
        first_names, folded_names = WordList(arrays["sorted_first_names"]), WordList(arrays["sorted_folded_names"])
        self.lists = (first_names, lexicons.last_names, WordList(arrays["sorted_other_anti"]), lexicons.forms,
                      folded_names, lexicons.folded_anti)
        self.first_name_ranks = arrays["sorted_first_name_ranks"]
        self.folded_name_ranks = arrays["sorted_folded_name_ranks"]
        self.width = max(words.array.dtype.itemsize for words in self.lists)
        # The lists of the Lexicons itself, which Seek&Hide's heuristics and columns ask again
        # about the same spellings within the batch: what they hold is remembered there, in one
        # memory for the three (WordList.share).
        self.shared = (lexicons.last_names, lexicons.forms, lexicons.folded_anti)
        self.memory = Memory(len(self.shared))
        for number, words in enumerate(self.shared):
            words.share(self.memory, number)

    def flags(self, spellings: list[str], remember: bool = True) -> Flags:
        """Which lists hold each spelling (as written), and its rank (see Flags). The answers of
        the Lexicons' own big lists are remembered by them (WordList.remember's memory) unless
        `remember` is false: the columns that ask about the same spellings next read them from
        there."""
        encoded = Encoded.of(spellings, self.width)
        # Searched in sorted order (a sorted search of sorted keys walks each list once, in order:
        # about half the time for six lists, the sort included), the answers put back in order.
        order = np.argsort(encoded.heads, kind="stable")
        ranked = encoded.take(order)
        bits = np.zeros(len(spellings), dtype=np.uint8)
        rank = np.full(len(spellings), NO_RANK, dtype=np.int64)
        stands_for = rank.copy()
        learnt = {}  # the positions in each shared list, by the list's id
        for bit, words in zip((FIRST_NAMES, LAST_NAMES, OTHER_ANTI, FORMS, FOLDED_NAMES, FOLDED_ANTI), self.lists):
            position = np.empty(len(spellings), dtype=np.int64)
            position[order] = words.search(ranked)
            if remember and any(words is shared for shared in self.shared):
                learnt[id(words)] = position
            found = position >= 0
            bits[found] |= bit
            if bit == FIRST_NAMES:
                rank[found] = self.first_name_ranks[position[found]]
            elif bit == FOLDED_NAMES:
                stands_for[found] = self.folded_name_ranks[position[found]]
        if learnt:
            if all(words.memory is self.memory for words in self.shared):
                self.memory.learn_all(spellings, [learnt[id(words)] for words in self.shared])
            else:  # (a list that keeps its own memory, or shared since by another Lexicons)
                for words in self.shared:
                    words.learn(spellings, learnt[id(words)])
        return Flags(bits, rank, stands_for)


def _sorted_arrays(first_name_ranks: dict[str, int], folded_names: dict[str, str],
                   other_anti: set[str]) -> dict[str, np.ndarray]:
    """The small lists of Sorted as sorted arrays of UTF-8 bytes (WordList), with the rank of
    each first name and of the name each accent-folded name stands for (NO_RANK: none)."""
    first_names = WordList.from_words(first_name_ranks)
    folded = WordList.from_words(folded_names)
    return {
        "sorted_first_names": first_names.array,
        "sorted_first_name_ranks": np.fromiter(map(first_name_ranks.__getitem__, first_names), dtype=np.int64,
                                               count=len(first_names)),
        "sorted_folded_names": folded.array,
        "sorted_folded_name_ranks": np.fromiter(
            (first_name_ranks.get(folded_names[name], NO_RANK) for name in folded), dtype=np.int64,
            count=len(folded)),
        "sorted_other_anti": WordList.from_words(other_anti).array,
    }


@dataclass(eq=False)  # compared and hashed by identity: caches are keyed on the instance
class Lexicons:
    """Every word list Seek&Hide and the features use: the big ones as WordLists (sorted
    arrays, see triage/lexicons/wordlist.py), the small ones as plain sets and dicts."""

    first_names: dict[str, int]  # spelling -> id
    first_name_ranks: dict[str, int]
    last_names: WordList
    last_name_ids: np.ndarray  # the id of each surname, in last_names order
    forms: WordList
    sms: dict[str, str]
    pronouns: set[str]
    cities: set[str]
    regions: set[str]
    countries: set[str]
    folded_names: dict[str, str]  # accent-folded spelling -> an accented name spelling
    folded_anti: WordList  # accent-folded spellings of the accented ordinary words
    apostrophe_words: frozenset[str]  # words of forms and sms with an apostrophe: aujourd'hui
    # The common surnames (up to COMMON_SURNAME_RANK) that the lists read as ordinary words
    # (names/exceptions.txt: petit, blanc, fontaine), with their rank in the surname list: never
    # looked up as names, but Seek&Hide's step word-surname reads one as a surname right after a
    # first name (Sophie Petit).
    word_surnames: dict[str, int]
    # The ordinary words (flag ORDINARY) and first-name spellings (flag FIRST_NAME) by their
    # one-letter deletions, for the misspelling heuristic (triage/lexicons/nearwords.py).
    near_words: NearWords
    fingerprint: str  # lexicon_fingerprint of the shipped files: a model records it
    user_names: set[str] = field(default_factory=set)
    user_words: set[str] = field(default_factory=set)
    directory: Path = DICTIONARIES_DIR
    user_directory: Path | None = None
    # _sorted_arrays of these lists, when the snapshot holds them (else Sorted makes them).
    sorted_arrays: dict[str, np.ndarray] | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        self.other_anti = _merged_small_anti(self.sms, self.pronouns, self.cities, self.regions, self.countries)

    # ------------------------------------------------------------ look-ups
    def prefetch(self, keys: list[str], folded: list[str] | None = None) -> None:
        """Look up many lower-case spellings in the big lists at once, as written and without
        accents, so that lookup() and `in` then answer them from memory (WordList.remember):
        the new spellings of a batch cost one sorted search per list, not one each. `folded`:
        fold() of each key, when the caller has it already."""
        if folded is None:
            folded = [fold(key) for key in keys]
        self.last_names.remember(keys + folded)
        self.forms.remember(keys + folded)
        self.folded_anti.remember(folded)

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
        in_anti = key in self.other_anti or key in self.forms  # the set first: it is faster
        if in_names or in_anti:
            return in_names, in_anti
        folded = fold(key)
        if folded in self.user_words:
            return False, True
        return (
            folded in self.first_names or folded in self.folded_names or folded in self.last_names,
            folded in self.other_anti or folded in self.forms or folded in self.folded_anti,
        )

    def lookup_many(self, keys: list[str], folded: list[str], remember: bool = True) -> Looked:
        """lookup() of many lower-case spellings at once, as arrays, with what Seek&Hide's
        labeller asks next of a spelling the lists know (`folded`: fold() of each key). The big
        lists remember their answers (Sorted.flags) unless `remember` is false: the candidates
        of the SMS heuristics are asked once, by the labeller alone.

        Column operations: each key and each folded key that differs from its key are
        encoded once and searched in each sorted list (Sorted), and lookup()'s order of
        precedence becomes array expressions.

        Why numpy's sorted searches: measured against polars, pyarrow and duckdb on the shipped
        lists (benchmarks/lexicon_lookup.py, benchmarks/results/2026-11-25-lexicon-lookup.json:
        the 68,577 new spellings of 86,000 generated messages in batches of 5,000 messages, as
        written and folded, best of five on a 2-core machine, every engine in one run): these
        sorted searches 0.28 s, with 1.4 MB made once for the small lists; one sorted array of
        all 816,000 spellings of the lists 0.26 s, but 43 MB; a polars inner join 0.22 s, after
        0.05 to 0.15 s to build its table and 0.13 s to import polars in every process (and
        polars does not survive the fork of --jobs); duckdb's join 0.40 s; polars `is_in`
        1.8 s; pyarrow's `index_in` 4.9 s and Acero's join 1.9 s, which build their hash table
        of the lists at every call (one Python look-up per spelling after a batched search:
        0.38 s). A hash join pays off when the whole corpus is one join; a batch of a few
        thousand spellings costs about as little searched in lists already sorted, mapped from
        the snapshot, which cost no memory of their own.
        """
        sorted_lists = self._sorted
        written = sorted_lists.flags(keys, remember)
        differs = np.fromiter(map(operator.ne, folded, keys), dtype=bool, count=len(keys))
        by_fold = Flags(*(column.copy() for column in written))
        changed = np.flatnonzero(differs)
        if len(changed):
            found = sorted_lists.flags([folded[i] for i in changed.tolist()], remember)
            for column, values in zip(by_fold, found):
                column[changed] = values
        user_word = _members(self.user_words, keys)
        user_name = ~user_word & _members(self.user_names, keys)
        user_word_folded = _members(self.user_words, folded)
        names_as_written = (written.bits & (FIRST_NAMES | LAST_NAMES)) > 0
        anti_as_written = (written.bits & (OTHER_ANTI | FORMS)) > 0
        as_written = names_as_written | anti_as_written
        names_folded = ~user_word_folded & ((by_fold.bits & (FIRST_NAMES | FOLDED_NAMES | LAST_NAMES)) > 0)
        anti_folded = user_word_folded | ((by_fold.bits & (OTHER_ANTI | FORMS | FOLDED_ANTI)) > 0)
        by_user = user_word | user_name
        in_names = ~user_word & (user_name | np.where(as_written, names_as_written, names_folded))
        in_anti = user_word | ~user_name & np.where(as_written, anti_as_written, anti_folded)
        # The first-name rank of the name entry (see Looked.rank): the key's when a name list
        # holds it as written, else that of the name its folded spelling stands for.
        rank = np.where(names_as_written, written.rank,
                        np.where((by_fold.bits & FOLDED_NAMES) > 0, by_fold.stands_for, by_fold.rank))
        return Looked(in_names, in_anti, as_written | by_user, user_name, user_word, rank)

    @property
    def _sorted(self) -> Sorted:
        found = _SORTED.get(self)
        if found is None:
            found = _SORTED[self] = Sorted(self)
        return found

    def name_entry(self, key: str) -> NameEntry:
        """The list entry of a name spelling; first names win over surnames."""
        first_names, last_names = self.first_names, self.last_names
        if key not in first_names and last_names.position(key) < 0:
            folded = fold(key)
            key = self.folded_names.get(folded, folded)
        if key in first_names:
            return NameEntry("PRE", first_names[key], self.first_name_ranks[key])
        position = last_names.position(key)
        if position >= 0:
            ident = int(self.last_name_ids[position])
            return NameEntry("NOM", ident, ident)  # surnames were numbered by frequency
        return NameEntry("PRE", 0, 0)  # a user-confirmed name outside the lists

    def last_name_id(self, key: str) -> int:
        """The id of a surname spelling in the list, 0 when it is not a surname."""
        position = self.last_names.position(key)
        return int(self.last_name_ids[position]) if position >= 0 else 0

    # ------------------------------------------------------------ description
    def describe(self) -> list[LexiconInfo]:
        """Each list's role, size, source and licence (`triage lexicons`)."""
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
            LexiconInfo(name, meta["role"], sizes[name], USER_LEXICON_SOURCE if name in USER_LEXICONS else meta["source"],
                        meta["licence"])
            for name, meta in sources.items()
        ]

    @property
    def ambiguous(self) -> set[str]:
        """Spellings that are both names and ordinary words (Pierre, Rose, Claire...): those of the
        names that lookup() answers (True, True) for, all looked up at once (lookup_many)."""
        names = list((self.first_names.keys() | set(self.last_names) | self.user_names) - self.user_words)
        looked = self.lookup_many(names, list(map(fold, names)), remember=False)
        return set(itertools.compress(names, (looked.in_names & looked.in_anti).tolist()))


def _shipped_files(directory: Path) -> list[Path]:
    """The shipped lexicon files, in a stable order (the user folder is not shipped)."""
    return [
        path for path in sorted(directory.glob("*/*"))
        if path.parent.name != "user" and path.suffix in (".txt", ".tsv")
    ]


def lexicon_fingerprint(directory: Path = DICTIONARIES_DIR) -> str:
    digest = hashlib.sha256()
    for path in _shipped_files(directory):
        digest.update(str(path.relative_to(directory)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def default_user_directory() -> Path:
    """Where the words a reviewer taught for every corpus live: $TRIAGE_USER_LEXICON_DIR, else
    the user's data folder (never the installed package, which every user and corpus shares)."""
    chosen = os.environ.get(USER_DIR_ENV)
    if chosen:
        return Path(chosen)
    import platformdirs

    return Path(platformdirs.user_data_dir("sms-triage")) / "lexicon"


def inventory(directory: Path | None = None) -> Lexicons:
    """The lexicons of `directory` for `triage lexicons`: a missing folder or file is bad input."""
    try:
        return load(directory)
    except OSError as err:  # a missing folder or lexicon file: say which
        raise BadInput(f"cannot read the lexicons: {err.filename}: {err.strerror or err}") from None


def load(directory: Path | None = None, user_directory: Path | None = None) -> Lexicons:
    """The lexicons of `directory` (default: the shipped ones) plus the user's answers: from
    the snapshot in about 0.03 s, else from the text files in one or two seconds, saving the
    snapshot for the next process (see the module docstring and benchmarks/lexicons.py)."""
    import gc

    # Reading the text files builds a million strings and containers, which would trigger
    # dozens of garbage collections that find nothing to free: pause the collector.
    enabled = gc.isenabled()
    gc.disable()
    try:
        directory = Path(directory) if directory else DICTIONARIES_DIR
        user_directory = Path(user_directory) if user_directory else default_user_directory()
        path = snapshot_path(directory)
        arrays = _read_snapshot(path) if path else None
        if arrays is None:
            arrays = _compile(directory)
            if path:
                _write_snapshot(path, arrays)
        return _from_arrays(arrays, directory, user_directory)
    finally:
        if enabled:
            gc.enable()


@lru_cache(maxsize=1)
def default() -> Lexicons:
    """The shipped lexicons plus the user's answers, loaded once per process."""
    return load()


# ---------------------------------------------------------------------- text files -> arrays -> Lexicons

# Array name -> dtype kind: U for strings, S for the UTF-8 bytes of a WordList, i for ids.
# Lists side by side (first_names and first_name_ids...) are in the same order.
SNAPSHOT_ARRAYS = {
    "fingerprint": "U", "first_names": "U", "first_name_ids": "i", "first_name_ranks": "i",
    "last_names": "S", "last_name_ids": "i", "forms": "S", "sms": "U", "sms_meanings": "U",
    "pronouns": "U", "cities": "U", "regions": "U", "countries": "U",
    "folded_names": "U", "folded_name_targets": "U", "folded_anti": "S", "apostrophe_words": "U",
    "near_keys": "u", "near_entries": "i", "near_words": "S", "near_flags": "u",
    "word_surnames": "U", "word_surname_ranks": "i",
    "last_names_heads": "u", "forms_heads": "u", "folded_anti_heads": "u",
    "sorted_first_names": "S", "sorted_first_name_ranks": "i", "sorted_folded_names": "S",
    "sorted_folded_name_ranks": "i", "sorted_other_anti": "S",
}
_SORTED_ARRAYS = ("sorted_first_names", "sorted_first_name_ranks", "sorted_folded_names", "sorted_folded_name_ranks",
                  "sorted_other_anti")
# The flags of NearWords entries: an ordinary word, a first-name spelling (or both).
ORDINARY, FIRST_NAME = 1, 2


def _compile(directory: Path) -> dict[str, np.ndarray]:
    """Read every shipped lexicon from its text files and derive what the look-ups need, as
    the snapshot's arrays."""
    excluded_names = _read_list(directory / "names" / "exceptions.txt")
    forms = set((directory / "forms" / "inflected_forms.txt").read_text("utf-8").split("\n"))
    forms.discard("")
    forms -= _read_list(directory / "forms" / "exceptions.txt")
    sms: dict[str, str] = {}
    for line in _read_lines(directory / "sms" / "sms_forms.tsv")[1:]:
        if line and not line.startswith("#"):
            cols = line.split("\t")
            sms[spelling_key(cols[0])] = cols[1] if len(cols) > 1 else ""
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
    pronouns = _read_list(directory / "pronouns" / "pronouns.txt")
    first_names, first_name_ranks = _read_names(directory / "names" / "first_names.tsv", excluded_names)
    word_surnames: dict[str, int] = {}
    last_name_ids, _ = _read_names(directory / "names" / "last_names.tsv", excluded_names, word_surnames)
    last_names = WordList.from_words(last_name_ids)
    common_word_surnames = {name: rank for name, rank in word_surnames.items() if rank <= COMMON_SURNAME_RANK}
    other_anti = _merged_small_anti(sms, pronouns, cities, regions, countries)
    folded_names = _fold_index(chain(first_names, last_names))
    folded_anti = _folded_set(forms) | _folded_set(other_anti)
    # ORDINARY and FIRST_NAME, in that order: the misspelling heuristic's two lists.
    near = NearWords.build([chain(forms, folded_anti, other_anti), chain(first_names, folded_names)])
    forms_array, folded_anti_array = WordList.from_words(forms).array, WordList.from_words(folded_anti).array
    return {
        "fingerprint": np.array(lexicon_fingerprint(directory)),
        "first_names": _strings(first_names),
        "first_name_ids": np.array([first_names[name] for name in first_names], dtype=np.int64),
        "first_name_ranks": np.array([first_name_ranks[name] for name in first_names], dtype=np.int64),
        "last_names": last_names.array,
        "last_name_ids": np.array([last_name_ids.get(name, 0) for name in last_names], dtype=np.int64),
        "forms": forms_array,
        "sms": _strings(sms),
        "sms_meanings": _strings(sms.values()),
        "pronouns": _strings(pronouns),
        "cities": _strings(cities),
        "regions": _strings(regions),
        "countries": _strings(countries),
        "folded_names": _strings(folded_names),
        "folded_name_targets": _strings(folded_names.values()),
        "folded_anti": folded_anti_array,
        "apostrophe_words": _strings({word for word in chain(forms, sms) if "'" in word}),
        "near_keys": near.keys, "near_entries": near.entries, "near_words": near.words, "near_flags": near.flags,
        "word_surnames": _strings(common_word_surnames),
        "word_surname_ranks": np.array(list(common_word_surnames.values()), dtype=np.int64),
        # The big lists' heads (WordList.heads), made once with the snapshot rather than in each process.
        "last_names_heads": heads(last_names.array), "forms_heads": heads(forms_array),
        "folded_anti_heads": heads(folded_anti_array),
        **_sorted_arrays(first_name_ranks, folded_names, other_anti),
    }


def _strings(words) -> np.ndarray:
    """A 'U' array of strings (sets sorted, so that a snapshot does not depend on hashing)."""
    return np.array(sorted(words) if isinstance(words, (set, frozenset)) else list(words), dtype=str)


def _from_arrays(arrays: dict[str, np.ndarray], directory: Path, user_directory: Path) -> Lexicons:
    """The Lexicons of snapshot arrays plus the user folder's text files."""
    first_names = arrays["first_names"].tolist()
    return Lexicons(
        first_names=dict(zip(first_names, arrays["first_name_ids"].tolist())),
        first_name_ranks=dict(zip(first_names, arrays["first_name_ranks"].tolist())),
        last_names=WordList(arrays["last_names"], arrays["last_names_heads"]),
        last_name_ids=arrays["last_name_ids"],
        forms=WordList(arrays["forms"], arrays["forms_heads"]),
        sms=dict(zip(arrays["sms"].tolist(), arrays["sms_meanings"].tolist())),
        pronouns=set(arrays["pronouns"].tolist()),
        cities=set(arrays["cities"].tolist()),
        regions=set(arrays["regions"].tolist()),
        countries=set(arrays["countries"].tolist()),
        folded_names=dict(zip(arrays["folded_names"].tolist(), arrays["folded_name_targets"].tolist())),
        folded_anti=WordList(arrays["folded_anti"], arrays["folded_anti_heads"]),
        apostrophe_words=frozenset(arrays["apostrophe_words"].tolist()),
        word_surnames=dict(zip(arrays["word_surnames"].tolist(), arrays["word_surname_ranks"].tolist())),
        near_words=NearWords(arrays["near_keys"], arrays["near_entries"], arrays["near_words"], arrays["near_flags"]),
        fingerprint=str(arrays["fingerprint"]),
        user_names=_read_list(user_directory / USER_NAMES_FILE),
        user_words=_read_list(user_directory / USER_WORDS_FILE),
        directory=directory,
        user_directory=user_directory,
        sorted_arrays={name: arrays[name] for name in _SORTED_ARRAYS},
    )


# ---------------------------------------------------------------------- the snapshot folder

# Bump when the arrays or the way they are derived change: older snapshots are then ignored
# (their names no longer match).
SNAPSHOT_VERSION = 7


def cache_directory() -> Path:
    if os.environ.get(CACHE_DIR_ENV):
        return Path(os.environ[CACHE_DIR_ENV])
    import platformdirs  # imported only here: most runs set nothing and read one snapshot

    return Path(platformdirs.user_cache_dir("sms-triage"))


def snapshot_path(directory: Path) -> Path | None:
    """The snapshot folder of `directory`: its name changes with the lexicon folder and with
    the size or modification time of any shipped file. None if the folder is unreadable (the
    text files will then say what is missing)."""
    folder = directory.resolve()
    digest = hashlib.sha256(f"{SNAPSHOT_VERSION}\n{folder}".encode())
    try:
        for path in _shipped_files(folder):
            stat = path.stat()
            digest.update(f"\n{path.relative_to(folder)}\t{stat.st_size}\t{stat.st_mtime_ns}".encode())
    except OSError:
        return None
    place = hashlib.sha256(str(folder).encode()).hexdigest()[:8]  # one snapshot per lexicon folder
    return cache_directory() / f"lexicons-{place}-{digest.hexdigest()[:16]}"


def _read_snapshot(path: Path) -> dict[str, np.ndarray] | None:
    """The arrays of a snapshot folder, mapped into memory (pages are read when a look-up
    needs them, and shared by parallel workers), or None when one is missing or damaged.
    Only the cheap checks are made: a checksum would read every page at each load."""
    arrays = {}
    try:
        for name, kind in SNAPSHOT_ARRAYS.items():
            array = np.load(path / f"{name}.npy", mmap_mode="r", allow_pickle=False)
            ndim = 0 if name == "fingerprint" else 1
            if not isinstance(array, np.ndarray) or array.dtype.kind != kind or array.ndim != ndim:
                return None
            arrays[name] = np.asarray(array)  # a plain array: np.memmap indexes slower
    except Exception:
        # A damaged file raises whatever its first wrong byte leads np.load to (OSError,
        # ValueError, EOFError, TypeError...): the text files are read instead.
        return None
    return arrays


def _write_snapshot(path: Path, arrays: dict[str, np.ndarray]) -> None:
    """Save the arrays in a temporary folder renamed to `path` (parallel workers never see
    half a snapshot), then remove the older snapshots of the same lexicon folder. Failing to
    write is harmless: the next load reads the text files again."""
    import shutil
    import tempfile

    temporary = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        # Named unlike a snapshot: the clean-up below never removes another process's work.
        temporary = Path(tempfile.mkdtemp(dir=path.parent, prefix=".tmp-"))
        for name, array in arrays.items():
            with open(temporary / f"{name}.npy", "wb") as handle:
                np.save(handle, array, allow_pickle=False)
                handle.flush()
                os.fsync(handle.fileno())  # the data on disk before the name: no empty file after a crash
        try:
            os.rename(temporary, path)
        except OSError:
            if _read_snapshot(path) is not None:
                return  # another process saved the same snapshot first: ours is discarded
            shutil.rmtree(path, ignore_errors=True)  # a damaged one: replaced by ours
            os.rename(temporary, path)
        temporary = None
        place = path.name.rsplit("-", 1)[0]
        for old in path.parent.glob(f"{place}-*"):
            if old != path:
                shutil.rmtree(old, ignore_errors=True)
    except OSError:
        pass
    finally:
        if temporary is not None:
            shutil.rmtree(temporary, ignore_errors=True)
