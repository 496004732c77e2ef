"""Seek&Hide (Patel et al. 2013, section 3): label words with dictionaries, label messages,
hide what is certain.

Each word gets one label (Table 1): DICTIONARY (only in the name dictionary: anonymise),
ANTI_DICTIONARY (only in anti-dictionaries: ignore), AMBIGUOUS (in both: highlight) or
UNKNOWN (in neither: highlight). Numbers, punctuation, emoticons and emoji are not words.
When a spelling is in neither list as written, the SMS heuristics of section 3.2 are tried in
order: accent-insensitive look-up, letter repetitions, onomatopoeia, missing apostrophe,
concatenated clitics, then misspellings within one edit, never turning a name into a word.

A message is TA when it holds a DICTIONARY word or a detector hit (phone, e-mail, URL,
address, code), NTA when every word is ANTI_DICTIONARY, UNTAGGED otherwise. Hidden items
become codes <TAG_length_id>, e.g. <PRE_7_17316>: the id is the name's id in the dictionary,
or a stable hash of the spelling for other items, so the same spelling always gets the same
code.
"""

from __future__ import annotations

import enum
import hashlib
import itertools
import re
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

from triage.detectors import detect
from triage.errors import InputError
from triage.lexicons import CLITICS, TITLES, Lexicons, fold, spelling_key
from triage.schema import (
    AMBIGUOUS, ANTI_DICTIONARY, DICTIONARY, MESSAGE_LABELS, NTA, TA, UNKNOWN, UNTAGGED, WORD_LABELS,
)
from triage.tokenise import DETECTED, EMOJI, EMOTICON, NUMBER, PIECE, PUNCT, WORD, Token, split_piece


_RUN = re.compile(r"(\w)\1+")
_SENTENCE_END = re.compile(r"[.!?…]")
# Laughter, interjections and letter-stretched exclamations (folded, lower case).
_ONOMATOPOEIA = re.compile(
    r"(?:mou|mwa|bwa|bou|gn)?(?:h+[aeiouy]+)+h*"  # haha, hihihi, mouhahaha, bwahaha
    r"|a?(?:h+a+)+|(?:a+h+)+|(?:e+h+)+|(?:o+h+)+|(?:h+e+)+|(?:h+o+)+|h+u+m+|h+m+"
    r"|(?:m+d+r+)+|(?:p+t+d+r+)+|(?:l+o+l+)+|(?:l+m+a+o+)+|x+d+|(?:r+o+f+l+)+"
    r"|p+f+|p+s+t+|b+r+|g+r+|r+o+|o+u+p+s+|o+u+f+|a+r+g+h*|a+i+e+|o+u+i+l+l+e+|w+o+u+a+h*"
    r"|y+[ea]+h*|y+e+s+|b+o+f+|z+z+|c+h+u+t+|b+a+h+|b+e+n+|e+u+h+|h+e+u+|m+o+u+a+i+s+|n+a+n+"
    r"|o+u+a+i+[sp]*|w+e+s+h+|y+o+u+p+i+|o+l+a+l+a+|o+h+l+a+l+a+|b+o+u+h*|m+m+h*|c+o+o+l+"
)
# Of the clitics (dictionaries/cues/clitics.txt), those that stack when glued ("jtm" = je t'aime).
_CONCAT_CLITICS = "jtmslnc"
_VOWEL_OR_H = tuple("aeiouyhéèêàâîôû")
_ALPHABET = "abcdefghijklmnopqrstuvwxyz"
# Names from the surname list only, or first names rarer than this, collide with SMS spellings
# and foreign words ('kon', 'lo', 'same'): they count as names only when capitalised mid-sentence.
RARE_FIRST_NAME_RANK = 10_000


class Rule(enum.StrEnum):
    """Which look-up or heuristic labelled a word: the `rule` column of `triage seek --words`."""

    EXACT = "exact"  # in a list as written (lower case)
    ACCENT = "accent"  # in a list once accents are set aside (3.2: accents)
    COMPOUND = "compound"  # a hyphenated word in no list: labelled part by part
    NONE = "none"  # nothing matched: UNKNOWN
    REPETITION = "repetition"  # letters repeated for emphasis (3.2): nicoooolas, merciiii
    ONOMATOPOEIA = "onomatopoeia"  # laughter and interjections: hahaha, mdrrr, pffff
    APOSTROPHE = "apostrophe"  # an elision without its apostrophe (3.2): jarrive, larrivee
    CONCATENATION = "concatenation"  # glued clitics: jtaime, jsuis
    MISSPELLING = "misspelling"  # one edit from an ordinary word, never from a first name
    TITLE = "title"  # context: a capitalised word after a title is a surname (Mme Petit)
    WEAK_NAME = "weak-name"  # context: a rare name not capitalised mid-sentence is UNKNOWN (kon, Lo)
    # context: a capitalised word mid-sentence is not guessed into an ordinary word
    CAPITALISED_APOSTROPHE = "capitalised-apostrophe"
    CAPITALISED_CONCATENATION = "capitalised-concatenation"
    CAPITALISED_MISSPELLING = "capitalised-misspelling"
    CAPITALISED_REPETITION = "capitalised-repetition"


# Heuristics that guess an ordinary word from an unknown spelling (capitalised mid-sentence,
# such a word is highlighted instead: rule "capitalised-<rule>").
GUESS_RULES = frozenset({Rule.MISSPELLING, Rule.APOSTROPHE, Rule.CONCATENATION, Rule.REPETITION})
# Seek&Hide's steps beyond the exact look-up, each of which can be switched off (as docdeid's
# processors can) to measure what it brings: SeekAndHide(lexicons, off={"misspelling"}).
STEPS = ("accent", "repetition", "onomatopoeia", "apostrophe", "concatenation", "misspelling",
         "title", "weak-name", "capitalised-guess")
# Misspellings are looked for in words of this many letters: shorter ones are too often
# one edit from anything; the candidates of a longer one cost memory in the square of its
# length (a 16 kB "word" would take gigabytes) and no French word is that long.
MIN_MISSPELLING_LENGTH, MAX_MISSPELLING_LENGTH = 5, 40


class WordInfo(NamedTuple):
    label: str
    rule: str  # which look-up or heuristic decided: exact, accent, repetition, onomatopoeia...
    match: str  # the dictionary spelling it was matched to ('nicolas' for 'nicoooolaasss')
    weak: bool = False  # a name only through a surname or a rare first name (see words())
    title: bool = False  # Mme, Dr...: a capitalised word after it is a surname


class Word(NamedTuple):
    start: int
    end: int
    text: str
    label: str
    rule: str
    match: str
    sentence_start: bool = False  # first word of the message or after . ! ? … or an emoticon
    before_punctuation: bool = False  # directly followed by punctuation ("ça va Aude ?")


@dataclass
class SeekResult:
    label: str  # TA, NTA or UNTAGGED
    words: list[Word]
    tokens: list[Token]
    detections: list[Token]
    hidden: list[tuple[int, int, str]]  # [start, end, TAG] offsets into the original text
    anonymised: str

    @property
    def highlighted(self) -> list[str]:
        """The words a human should look at: ambiguous or unknown."""
        return [w.text for w in self.words if w.label in (AMBIGUOUS, UNKNOWN)]


def stable_id(tag: str, spelling: str) -> int:
    """A cross-reference id for items outside the dictionary: the same spelling gives the
    same id in every run (7 digits, so it cannot be mistaken for a dictionary id)."""
    digest = hashlib.blake2b(f"{tag}:{spelling.lower()}".encode(), digest_size=8).digest()
    return 1_000_000 + int.from_bytes(digest, "big") % 9_000_000


def code(tag: str, surface: str, ident: int) -> str:
    return f"<{tag}_{len(surface)}_{ident}>"


class SeekAndHide:
    """Word labelling and message treatment with one set of lexicons.

    Labels are cached per distinct spelling: SMS vocabularies are Zipfian, so a corpus of
    millions of messages needs only a few hundred thousand look-ups. Up to `max_cache`
    spellings are kept; past that the tables start afresh at the next batch.
    """

    def __init__(self, lexicons: Lexicons, max_cache: int = 500_000, off: Iterable[str] = ()):
        unknown = sorted(set(off) - set(STEPS))
        if unknown:
            raise InputError(f"unknown Seek&Hide step {unknown[0]!r}; the steps are {', '.join(STEPS)}")
        self.off = frozenset(off)  # the steps switched off
        self.lexicons = lexicons
        self._cache: dict[str, WordInfo] = {}
        self._max_cache = max_cache
        self.keep_whole = lexicons.apostrophe_words
        self._codes: dict[tuple[str, str], str] = {}
        self.spellings = Spellings(self)

    # ------------------------------------------------------------------ words
    def label_word(self, word: str) -> WordInfo:
        info = self._cache.get(word)  # by spelling as written first: the commonest case
        if info is None:
            key = spelling_key(word)
            info = self._cache.get(key)
            if info is None:
                info = self._analyse(key)
                if key.rstrip(".") in TITLES and "title" not in self.off:
                    info = info._replace(title=True)
            if len(self._cache) < self._max_cache:
                self._cache[word] = self._cache[key] = info
        return info

    def _analyse(self, key: str) -> WordInfo:
        off = self.off
        in_names, in_anti = self.lexicons.lookup(key)
        if in_names and not in_anti and self._weak_name(key) and key.isalpha() and "apostrophe" not in off:
            # A rare surname that reads as a glued clitic + word: lecole = l'école.
            found = self._apostrophe(fold(key))
            if found:
                return found
        if in_names or in_anti:
            lx = self.lexicons  # the sets before the word lists: they answer faster
            rule = Rule.EXACT if (key in lx.other_anti or key in lx.first_names or key in lx.user_names
                                  or key in lx.user_words or key in lx.forms or key in lx.last_names) else Rule.ACCENT
            if rule == Rule.EXACT or "accent" not in off:
                return WordInfo(_label(in_names, in_anti), rule, key, in_names and self._weak_name(key))
        if "-" in key:
            return WordInfo(UNKNOWN, Rule.COMPOUND, key)  # labelled part by part by the caller
        folded = fold(key)
        if not folded or not folded.isalpha():
            return WordInfo(UNKNOWN, Rule.NONE, key)
        found = ("repetition" not in off and self._repetitions(folded)) \
            or ("onomatopoeia" not in off and _ONOMATOPOEIA.fullmatch(folded) and WordInfo(ANTI_DICTIONARY, Rule.ONOMATOPOEIA, key)) \
            or ("apostrophe" not in off and self._apostrophe(folded)) \
            or ("concatenation" not in off and self._concatenation(folded)) \
            or ("misspelling" not in off and self._misspelling(folded))
        return found or WordInfo(UNKNOWN, Rule.NONE, key)

    def _repetitions(self, folded: str) -> WordInfo | None:
        """nicoooolaasss -> nicolas, merciiii -> merci: each run of a repeated letter is
        tried with one and with two letters."""
        runs = [m for m in _RUN.finditer(folded)]
        if not runs or len(runs) > 5:
            return None
        names = anti = False
        match = ""
        for choice in itertools.product((1, 2), repeat=len(runs)):
            parts, last = [], 0
            for run, keep in zip(runs, choice):
                parts.append(folded[last : run.start()] + run.group(1) * keep)
                last = run.end()
            candidate = "".join(parts) + folded[last:]
            if candidate == folded:
                continue
            in_names, in_anti = self.lexicons.lookup(candidate)
            if in_names or in_anti:
                names, anti, match = names or in_names, anti or in_anti, match or candidate
        if names or anti:
            return WordInfo(_label(names, anti), Rule.REPETITION, match, names and self._weak_name(match))
        return None

    def _weak_name(self, key: str) -> bool:
        lexicons = self.lexicons
        if key in lexicons.user_names:
            return False
        if key not in lexicons.first_names and key not in lexicons.last_names:
            key = lexicons.folded_names.get(fold(key), fold(key))
        rank = lexicons.first_name_ranks.get(key)
        return rank is None or rank > RARE_FIRST_NAME_RANK

    def _ordinary_only(self, key: str) -> bool:
        in_names, in_anti = self.lexicons.lookup(key)
        if not in_names and not in_anti and _RUN.search(key):
            found = self._repetitions(key)
            return found is not None and found.label == ANTI_DICTIONARY
        return in_anti and not in_names

    def _apostrophe(self, folded: str) -> WordInfo | None:
        """jexplique -> j'explique, larrivee -> l'arrivée, quil -> qu'il."""
        for clitic in sorted(CLITICS):
            rest = folded[len(clitic) :]
            if folded.startswith(clitic) and len(rest) >= 2 and rest.startswith(_VOWEL_OR_H):
                if self._ordinary_only(rest):
                    return WordInfo(ANTI_DICTIONARY, Rule.APOSTROPHE, f"{clitic}'{rest}")
        return None

    def _concatenation(self, folded: str) -> WordInfo | None:
        """jtaime -> je t'aime, jsuis -> je suis, jlai -> je l'ai: one or two glued clitics."""
        for size in (2, 1):
            head, rest = folded[:size], folded[size:]
            if len(rest) >= 2 and all(c in _CONCAT_CLITICS for c in head) and self._ordinary_only(rest):
                return WordInfo(ANTI_DICTIONARY, Rule.CONCATENATION, f"{' '.join(head)} {rest}")
        return None

    def _misspelling(self, folded: str) -> WordInfo | None:
        """One edit away from an ordinary word (surment -> sûrement). A word one edit away
        from a first name is never corrected into an ordinary word."""
        if not MIN_MISSPELLING_LENGTH <= len(folded) <= MAX_MISSPELLING_LENGTH:
            return None
        lexicons = self.lexicons
        candidates = _edits1(folded)  # hundreds: asked of sets without a Python step each
        near_word = next(filter(lexicons.ordinary_words.__contains__, candidates), None)
        if near_word is None or not lexicons.first_name_spellings.isdisjoint(candidates):
            return None
        return WordInfo(ANTI_DICTIONARY, Rule.MISSPELLING, near_word)

    # ------------------------------------------------------------------ messages
    def analyse(self, texts: list[str]) -> Analysis:
        """Seek&Hide on a batch of messages, as arrays over all their tokens.

        Each distinct piece of text is tokenised and labelled once (see Spellings); what
        depends on context is then computed for all tokens at once:
        - a word starts a sentence when no word came before it in the message, or when a
          sentence end (. ! ? …) or an emoticon came after the previous word;
        - hyphenated unknown compounds are labelled part by part;
        - a weak name (surname only, or a rare first name) stays DICTIONARY only when written
          with a capital away from the start of a sentence ('chez Dubois'), else it becomes
          UNKNOWN ('kon', 'Lo');
        - a capitalised word right after a title is a surname: 'Mme Petit', 'Dr Blanc';
        - a capitalised word away from a sentence start is never guessed into an ordinary word.
        """
        if len(self.spellings) > self._max_cache:
            self.spellings = Spellings(self)
        table = self.spellings
        piece_id = table.piece_ids.__getitem__
        ids: list[int] = []  # of the pieces of all texts, in order
        counts: list[int] = []
        explicit: list[tuple[int, int]] = []  # (piece index, start) where detections break the running sum
        detected_ends: list[tuple[int, int]] = []  # (piece index, end) of detector hits
        for text in texts:
            before = len(ids)
            hits = detect(text)
            if not hits:
                if not table.extend_with_pieces(text, ids):
                    ids += map(piece_id, PIECE.findall(text))
                counts.append(len(ids) - before)
                continue
            position = 0
            for hit in hits:
                for start, piece in _pieces_from(text, position, hit.start):
                    explicit.append((len(ids), start))
                    ids.append(piece_id(piece))
                explicit.append((len(ids), hit.start))
                detected_ends.append((len(ids), hit.end))
                ids.append(piece_id(table.detection_piece(hit.tag)))
                position = hit.end
            for start, piece in _pieces_from(text, position, len(text)):
                explicit.append((len(ids), start))
                ids.append(piece_id(piece))
            counts.append(len(ids) - before)
        n_pieces = len(ids)
        piece_ids = np.asarray(ids, dtype=np.int64)
        per_message = np.asarray(counts, dtype=np.int64)
        columns = table.numpy()

        # Piece offsets: running sums of piece lengths within each message.
        lengths = columns.piece_length[piece_ids]
        before = np.cumsum(lengths) - lengths
        first_piece = np.cumsum(per_message) - per_message
        base = before[np.minimum(first_piece, n_pieces - 1)] if n_pieces else np.zeros(len(texts), dtype=np.int64)
        piece_start = before - np.repeat(base, per_message)
        if explicit:
            index, value = np.asarray(explicit, dtype=np.int64).T
            piece_start[index] = value

        # Tokens: each piece expands into its parts.
        parts = columns.piece_parts[piece_ids]
        n_tokens = int(parts.sum())
        token_piece = np.repeat(np.arange(n_pieces), parts)
        within = np.arange(n_tokens) - np.repeat(np.cumsum(parts) - parts, parts)
        entry = np.repeat(columns.piece_first[piece_ids], parts) + within
        sid = columns.part_spelling[entry]
        start = piece_start[token_piece] + columns.part_offset[entry]
        end = start + columns.length[sid]
        if detected_ends:
            index, value = np.asarray(detected_ends, dtype=np.int64).T
            first_token = np.cumsum(parts) - parts
            end[first_token[index]] = value
        message = np.repeat(np.repeat(np.arange(len(texts)), per_message), parts)
        return Analysis.build(self, table, list(texts), sid, start, end, message,
                              columns.part_of_compound[entry], columns)

    def seek(self, text: str) -> SeekResult:
        return self.analyse([text]).result(0)

    def code_for(self, text: str, start: int, end: int, tag: str) -> str:
        surface = text[start:end]
        found = self._codes.get((surface, tag))
        if found is None:
            found = self._code(surface, tag)
            if len(self._codes) < self._max_cache:
                self._codes[(surface, tag)] = found
        return found

    def _code(self, surface: str, tag: str) -> str:
        if tag in ("PRE", "NOM"):
            key = spelling_key(surface)
            info = self.label_word(surface)
            entry = self.lexicons.name_entry(info.match if info.label != UNKNOWN else key)
            if entry.id:
                return code(tag, surface, entry.id)
        return code(tag, surface, stable_id(tag, surface))

    def hide(self, text: str, hidden: list[tuple[int, int, str]]) -> str:
        """The text with each hidden span replaced by its code; nothing else changes."""
        if not hidden:
            return text
        parts, last = [], 0
        for start, end, tag in hidden:
            parts.append(text[last:start])
            parts.append(self.code_for(text, start, end, tag))
            last = end
        parts.append(text[last:])
        return "".join(parts)


def _pieces_from(text: str, begin: int, end: int) -> Iterator[tuple[int, str]]:
    """(start, piece) of the pieces of text[begin:end]."""
    for piece in PIECE.findall(text, begin, end):
        yield begin, piece
        begin += len(piece)


# Codes of token kinds and word labels in the arrays of an Analysis.
KINDS = (WORD, NUMBER, PUNCT, EMOTICON, EMOJI, DETECTED)
_KIND_CODE = {kind: code for code, kind in enumerate(KINDS)}
K_WORD, K_PUNCT, K_EMOTICON, K_DETECTED = (_KIND_CODE[k] for k in (WORD, PUNCT, EMOTICON, DETECTED))
LABELS = WORD_LABELS
L_DICTIONARY, L_ANTI, L_AMBIGUOUS, L_UNKNOWN = range(4)
_LABEL_CODE = {label: code for code, label in enumerate(LABELS)}


class _Column:
    """A list that grows, with a numpy copy brought up to date on demand."""

    def __init__(self, dtype):
        self.values: list = []
        self.array = np.zeros(0, dtype=dtype)

    def numpy(self) -> np.ndarray:
        if len(self.array) < len(self.values):
            tail = np.asarray(self.values[len(self.array):], dtype=self.array.dtype)
            self.array = np.concatenate([self.array, tail])
        return self.array


class _PieceIds(dict):
    def __init__(self, table: Spellings):
        super().__init__()
        self.table = table

    def __missing__(self, piece: str) -> int:
        ident = self[piece] = self.table.add_piece(piece)
        return ident


class Spellings:
    """What Seek&Hide knows of each distinct piece and token spelling, as growing columns.

    A piece (white space, then one token's worth of text: ' Patrice', " j'arrive") expands
    into parts, each a token spelling with an id; per spelling: its kind, its label and
    rule out of context (label_word), and the flags the context rules need. Other modules
    add their own per-spelling columns with `column`.
    """

    _SCALARS = {
        "kind": np.int8, "label": np.int8, "rule": np.int16, "weak": bool, "title": bool,
        "capitalised": bool, "sentence_end": bool, "length": np.int64,
    }

    def __init__(self, seeker: SeekAndHide):
        self.seeker = seeker
        self.piece_ids = _PieceIds(self)
        self.spelling_ids: dict[tuple[str, str], int] = {}
        self.texts: list[str] = []
        self.infos: list[WordInfo | None] = []
        self.tags: list[str] = []  # detector tag of DETECTED spellings, else ""
        self._columns = {name: _Column(dtype) for name, dtype in self._SCALARS.items()}
        self._pieces = {name: _Column(np.int64) for name in ("piece_length", "piece_parts", "piece_first")}
        self._parts = {"part_spelling": _Column(np.int64), "part_offset": _Column(np.int64),
                       "part_of_compound": _Column(bool)}
        self._extra: dict[str, np.ndarray] = {}
        self._rows: dict[str, tuple[object, np.ndarray]] = {}  # see rows_for
        # The piece ids of each stretch of text between spaces, at the start of a message
        # and after a space (see extend_with_pieces).
        self._first_stretches: dict[str, tuple[int, ...]] = {}
        self._next_stretches: dict[str, tuple[int, ...]] = {}

    def __len__(self) -> int:
        return len(self.piece_ids) + len(self.texts)

    def extend_with_pieces(self, text: str, ids: list[int]) -> bool:
        """Append to `ids` the piece ids of a text, cut at its spaces: each stretch between
        spaces is cut into pieces once (SMS repeat their words) and its first piece takes
        the space before it. Returns False, leaving `ids` as it was, when a stretch does not
        cut into whole pieces on its own (two spaces in a row, white space at an end): the
        caller then cuts the whole text.

        This gives the pieces of PIECE.findall(text) because no token holds white space and
        the regular expression looks past a token only for a word character."""
        before = len(ids)
        stretches = self._first_stretches
        for stretch in text.split(" "):
            found = stretches.get(stretch)
            if found is None:
                found = stretches[stretch] = self._stretch_pieces(stretch, stretches is self._next_stretches)
            if not found:
                del ids[before:]
                return False
            ids += found
            stretches = self._next_stretches
        return True

    def _stretch_pieces(self, stretch: str, after_space: bool) -> tuple[int, ...]:
        pieces = PIECE.findall(stretch)
        if not pieces or "".join(pieces) != stretch:
            return ()
        if after_space:
            pieces[0] = " " + pieces[0]
        return tuple(map(self.piece_ids.__getitem__, pieces))

    def detection_piece(self, tag: str) -> tuple[str, str]:
        return (DETECTED, tag)  # a tuple: never a piece of text

    def add_piece(self, piece: str | tuple[str, str]) -> int:
        if isinstance(piece, tuple):
            parts = [(0, self.spelling("", DETECTED, piece[1]), False)]
        else:
            parts = []
            for offset, text, kind in split_piece(piece, self.seeker.keep_whole):
                info = self.seeker.label_word(text) if kind == WORD else None
                if info is not None and info.rule == Rule.COMPOUND:
                    for part in text.split("-"):
                        if part:
                            parts.append((offset, self.spelling(part, WORD), True))
                        offset += len(part) + 1
                else:
                    parts.append((offset, self.spelling(text, kind), False))
        ident = len(self._pieces["piece_length"].values)
        self._pieces["piece_length"].values.append(0 if isinstance(piece, tuple) else len(piece))
        self._pieces["piece_parts"].values.append(len(parts))
        self._pieces["piece_first"].values.append(len(self._parts["part_spelling"].values))
        for offset, sid, in_compound in parts:
            self._parts["part_spelling"].values.append(sid)
            self._parts["part_offset"].values.append(offset)
            self._parts["part_of_compound"].values.append(in_compound)
        return ident

    def spelling(self, text: str, kind: str, tag: str = "") -> int:
        key = (text or tag, kind)
        sid = self.spelling_ids.get(key)
        if sid is not None:
            return sid
        sid = self.spelling_ids[key] = len(self.texts)
        info = self.seeker.label_word(text) if kind == WORD else None
        self.texts.append(text)
        self.infos.append(info)
        self.tags.append(tag)
        values = {
            "kind": _KIND_CODE[kind],
            "label": _LABEL_CODE[info.label] if info else -1,
            "rule": rule_code(info.rule) if info else -1,
            "weak": bool(info and info.weak),
            "title": bool(info and info.title),
            "capitalised": text[:1].isupper() and not text.isupper(),
            "sentence_end": kind == PUNCT and bool(_SENTENCE_END.search(text)),
            "length": len(text),
        }
        for name, value in values.items():
            self._columns[name].values.append(value)
        return sid

    def numpy(self) -> _Arrays:
        return _Arrays(**{name: c.numpy() for group in (self._columns, self._pieces, self._parts)
                          for name, c in group.items()})

    def column(self, name: str, compute, dtype=float, width: int | None = None) -> np.ndarray:
        """A per-spelling column of another module: `compute(sid)` for each spelling id (a
        tuple of `width` values for a 2-D column), computed once per spelling."""
        shape = (0,) if width is None else (0, width)
        array = self._extra.get(name)
        if array is None:
            array = np.zeros(shape, dtype=dtype)
        if len(array) < len(self.texts):
            new = np.asarray([compute(sid) for sid in range(len(array), len(self.texts))], dtype=dtype)
            array = np.concatenate([array, new.reshape((-1, *shape[1:]))])
        self._extra[name] = array
        return array

    def rows_for(self, name: str, sids: np.ndarray, compute, width: int, owner=None) -> np.ndarray:
        """The rows of a float per-spelling table for the spellings `sids` (`compute(sid)`
        gives a row of `width` values), each computed the first time it is asked for: for
        what only some spellings need, such as the features of candidate words. The rows
        depend on `owner` (say, a model): asked with another owner, they are recomputed.
        A row's first value must not be NaN (it marks rows not computed yet)."""
        owned, table = self._rows.get(name, (None, None))
        if owned is not owner:
            table = None
        if table is None or len(table) < len(self.texts):
            grown = np.full((len(self.texts), width), np.nan)
            if table is not None:
                grown[: len(table)] = table
            table = grown
            self._rows[name] = (owner, table)
        rows = table[sids]
        missing = np.flatnonzero(np.isnan(rows[:, 0]))
        if len(missing):
            new = np.unique(sids[missing])
            table[new] = np.asarray([compute(sid) for sid in new.tolist()], dtype=float).reshape(-1, width)
            rows = table[sids]
        return rows


@dataclass
class _Arrays:
    kind: np.ndarray
    label: np.ndarray
    rule: np.ndarray
    weak: np.ndarray
    title: np.ndarray
    capitalised: np.ndarray
    sentence_end: np.ndarray
    length: np.ndarray
    piece_length: np.ndarray
    piece_parts: np.ndarray
    piece_first: np.ndarray
    part_spelling: np.ndarray
    part_offset: np.ndarray
    part_of_compound: np.ndarray


RULES = tuple(Rule)  # the rule of a word token is a code into RULES
_RULE_CODE = {rule.value: code for code, rule in enumerate(RULES)}


def rule_code(rule: str) -> int:
    return _RULE_CODE[rule]


_TITLE_RULE, _WEAK_RULE = rule_code(Rule.TITLE), rule_code(Rule.WEAK_NAME)
_GUESS_CODES = {rule_code(r): rule_code(f"capitalised-{r}") for r in sorted(GUESS_RULES)}


@dataclass
class Analysis:
    """Seek&Hide's view of a batch of messages: one entry per token in the arrays, the
    tokens of message i at positions bounds[i]:bounds[i + 1]. Word labels and rules are
    in context (codes into LABELS and RULES; -1 for tokens that are not words)."""

    seeker: SeekAndHide
    spellings: Spellings
    texts: list[str]
    spelling: np.ndarray  # spelling id of each token (into Spellings)
    start: np.ndarray
    end: np.ndarray
    message: np.ndarray  # index of the token's message
    kind: np.ndarray  # code into KINDS
    label: np.ndarray
    rule: np.ndarray
    sentence_start: np.ndarray
    before_punctuation: np.ndarray
    bounds: np.ndarray
    labels: np.ndarray  # per message: code into MESSAGE_LABELS
    _hidden: list | None = field(default=None, repr=False)

    @classmethod
    def build(cls, seeker, table, texts, sid, start, end, message, in_compound, columns: _Arrays) -> Analysis:
        kind = columns.kind[sid]
        is_word = kind == K_WORD
        n = len(sid)
        same_as_previous = np.zeros(n, dtype=bool)
        same_as_previous[1:] = message[1:] == message[:-1]

        # Sentence starts: look at the previous word, sentence end or emoticon in the message.
        event = np.flatnonzero(is_word | (kind == K_EMOTICON) | columns.sentence_end[sid])
        after_word = np.zeros(len(event), dtype=bool)
        after_word[1:] = is_word[event[:-1]] & (message[event[:-1]] == message[event[1:]])
        sentence_start = np.zeros(n, dtype=bool)
        sentence_start[event] = ~after_word
        sentence_start &= is_word

        before_punctuation = np.zeros(n, dtype=bool)
        before_punctuation[:-1] = is_word[:-1] & (kind[1:] == K_PUNCT) & same_as_previous[1:]

        # Context rules on words.
        words = np.flatnonzero(is_word)
        ws = sid[words]
        after_title = np.zeros(len(words), dtype=bool)
        after_title[1:] = (columns.title[ws[:-1]] & ~in_compound[words[:-1]]
                           & (message[words[:-1]] == message[words[1:]]))
        after_title &= ~in_compound[words]
        label = np.full(n, -1, dtype=np.int8)
        rule = np.full(n, -1, dtype=np.int16)
        word_label, word_rule = columns.label[ws].copy(), columns.rule[ws].copy()
        capitalised, starts = columns.capitalised[ws], sentence_start[words]
        title = after_title & capitalised & (word_label != L_DICTIONARY)
        weak = ~title & columns.weak[ws] & (word_label == L_DICTIONARY) & (starts | ~capitalised)
        weak &= "weak-name" not in seeker.off
        guess_rules = np.fromiter(_GUESS_CODES, dtype=np.int16)
        guessed = ~title & ~weak & np.isin(word_rule, guess_rules) & capitalised & ~starts
        guessed &= "capitalised-guess" not in seeker.off
        word_label[title], word_rule[title] = L_DICTIONARY, _TITLE_RULE
        word_label[weak], word_rule[weak] = L_UNKNOWN, _WEAK_RULE
        if guessed.any():
            word_rule[guessed] = [_GUESS_CODES[r] for r in word_rule[guessed].tolist()]
            word_label[guessed] = L_UNKNOWN
        label[words], rule[words] = word_label, word_rule

        # Message labels: TA with a detector hit or a dictionary word; NTA when every word
        # is an ordinary word; UNTAGGED otherwise.
        m = len(texts)
        to_hide = np.bincount(message[(kind == K_DETECTED) | (label == L_DICTIONARY)], minlength=m) > 0
        unsettled = np.bincount(message[words[word_label != L_ANTI]], minlength=m) > 0
        labels = np.where(to_hide, 0, np.where(unsettled, 2, 1)).astype(np.int8)
        bounds = np.zeros(m + 1, dtype=np.int64)
        np.cumsum(np.bincount(message, minlength=m), out=bounds[1:])
        return cls(seeker, table, texts, sid, start, end, message, kind, label, rule,
                   sentence_start, before_punctuation, bounds, labels)

    def __len__(self) -> int:
        return len(self.texts)

    def message_label(self, i: int) -> str:
        return MESSAGE_LABELS[self.labels[i]]

    def match(self, t: int) -> str:
        """The dictionary spelling a word token was matched to."""
        if self.rule[t] == _TITLE_RULE:
            return self.texts[self.message[t]][self.start[t] : self.end[t]].lower()
        return self.spellings.infos[self.spelling[t]].match

    def per_message(self, positions: np.ndarray) -> np.ndarray:
        """Where each message's share of sorted token `positions` begins and ends (n + 1 cuts)."""
        return np.searchsorted(positions, self.bounds)

    def hidden_spans(self) -> list[list[tuple[int, int, str]]]:
        """Per message, the [start, end, TAG] of what Seek&Hide hides (sorted)."""
        if self._hidden is None:
            self._hidden = self._find_hidden()
        return self._hidden

    def hidden_mask(self) -> np.ndarray:
        """Which tokens Seek&Hide hides: detector hits and dictionary words."""
        return (self.kind == K_DETECTED) | (self.label == L_DICTIONARY)

    def _find_hidden(self) -> list[list[tuple[int, int, str]]]:
        positions = np.flatnonzero(self.hidden_mask())
        table = self.spellings
        lexicons = self.seeker.lexicons
        tags = table.column("seekhide.tag", lambda s: table.tags[s] or (
            lexicons.name_entry(table.infos[s].match).tag if table.infos[s] else ""), object)
        spelling_tags = tags[self.spelling[positions]]
        spelling_tags[self.rule[positions] == _TITLE_RULE] = "NOM"
        spans = list(zip(self.start[positions].tolist(), self.end[positions].tolist(), spelling_tags.tolist()))
        cuts = self.per_message(positions).tolist()
        return [spans[b:e] for b, e in zip(cuts[:-1], cuts[1:])]

    def highlighted(self) -> list[list[str]]:
        """Per message, the words a human should look at: ambiguous or unknown."""
        positions = np.flatnonzero((self.label == L_AMBIGUOUS) | (self.label == L_UNKNOWN))
        starts, ends = self.start[positions].tolist(), self.end[positions].tolist()
        cuts = self.per_message(positions).tolist()
        return [[self.texts[i][starts[k] : ends[k]] for k in range(cuts[i], cuts[i + 1])] for i in range(len(self))]

    def result(self, i: int) -> SeekResult:
        text = self.texts[i]
        tokens, words = [], []
        for t in range(self.bounds[i], self.bounds[i + 1]):
            start, end = int(self.start[t]), int(self.end[t])
            kind = KINDS[self.kind[t]]
            token = Token(start, end, text[start:end], kind, self.spellings.tags[self.spelling[t]])
            tokens.append(token)
            if kind == WORD:
                words.append(Word(start, end, token.text, LABELS[self.label[t]], RULES[self.rule[t]],
                                  self.match(t), bool(self.sentence_start[t]), bool(self.before_punctuation[t])))
        hidden = self.hidden_spans()[i]
        return SeekResult(self.message_label(i), words, tokens, [t for t in tokens if t.kind == DETECTED],
                          hidden, self.seeker.hide(text, hidden))


def _label(in_names: bool, in_anti: bool) -> str:
    if in_names and in_anti:
        return AMBIGUOUS
    if in_names:
        return DICTIONARY
    return ANTI_DICTIONARY if in_anti else UNKNOWN


def _edits1(word: str) -> list[str]:
    """Spellings one edit away, most SMS-like first: a letter the writer left out
    (surment -> surement), then swapped, replaced and extra letters."""
    splits = [(word[:i], word[i:]) for i in range(len(word) + 1)]
    return (
        [left + letter + right for left, right in splits for letter in _ALPHABET]
        + [left + right[1] + right[0] + right[2:] for left, right in splits if len(right) > 1]
        + [left + letter + right[1:] for left, right in splits if right for letter in _ALPHABET]
        + [left + right[1:] for left, right in splits if right]
    )


# ---------------------------------------------------------------------- corpus level


def hidden_json(hidden: list[tuple[int, int, str]]) -> str:
    """The JSON list [[start, end, "TAG"], ...] (tags are plain ASCII: no escaping needed)."""
    return "[" + ", ".join(f'[{start}, {end}, "{tag}"]' for start, end, tag in hidden) + "]"


@dataclass
class SeekTables:
    """The paper's Table 3 (distribution) and Table 4 (confusion on tagged messages)."""

    distribution: Counter  # TA / NTA / UNTAGGED counts
    confusion: dict[tuple[str, str], int] | None  # (seek&hide, gold) -> count, when gold labels exist

    @property
    def total(self) -> int:
        return sum(self.distribution.values())

    @property
    def accuracy(self) -> float | None:
        if not self.confusion:
            return None
        tagged = sum(self.confusion.values())
        right = self.confusion.get((TA, TA), 0) + self.confusion.get((NTA, NTA), 0)
        return right / tagged if tagged else None

    def markdown(self) -> str:
        total = self.total or 1
        lines = [
            "Table 3. Seek&Hide on the sample",
            "",
            "| | Tag: TA | Tag: NTA | Untagged | Total |",
            "|---|---|---|---|---|",
            "| messages | " + " | ".join(
                f"{self.distribution[k]:,} ({100 * self.distribution[k] / total:.2f}%)" for k in (TA, NTA, UNTAGGED)
            ) + f" | {self.total:,} |",
        ]
        if self.confusion is not None:
            c = self.confusion
            lines += [
                "",
                "Table 4. Confusion matrix on tagged messages",
                "",
                "| | Gold: NTA | Gold: TA |",
                "|---|---|---|",
                f"| Seek&Hide: NTA | {c.get((NTA, NTA), 0):,} | {c.get((NTA, TA), 0):,} |",
                f"| Seek&Hide: TA | {c.get((TA, NTA), 0):,} | {c.get((TA, TA), 0):,} |",
                "",
                f"Accuracy on tagged messages: {self.accuracy:.3f}" if self.accuracy is not None else "",
            ]
        return "\n".join(lines).rstrip() + "\n"


def tables(labels: Iterable[str], gold: Iterable[str] | None = None) -> SeekTables:
    labels = list(labels)
    distribution = Counter({TA: 0, NTA: 0, UNTAGGED: 0})
    distribution.update(labels)
    confusion = None
    if gold is not None:
        confusion = Counter((s, g) for s, g in zip(labels, gold) if s != UNTAGGED)
    return SeekTables(distribution, confusion)
