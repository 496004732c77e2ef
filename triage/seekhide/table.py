"""Seek&Hide's table of spellings: what it knows of each distinct piece of text and token
spelling, as growing columns (SMS vocabularies are Zipfian: each is worked out once). Other
modules add their own per-spelling columns by name (Spellings.column)."""

from __future__ import annotations

import re
import weakref
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from triage.memory import VOCABULARY
from triage.schema import WORD_LABELS
from triage.seekhide.rules import Rule, rule_code
from triage.tokenise import (
    DETECTED,
    EMOJI,
    EMOTICON,
    NUMBER,
    PIECE,
    PUNCT,
    WORD,
    split_piece,
)

if TYPE_CHECKING:
    from triage.seekhide import SeekAndHide
    from triage.seekhide.words import WordInfo

_SENTENCE_END = re.compile(r"[.!?…]")


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
    """A numpy column that grows: values are appended to a list, moved to the array on
    demand (numpy), so that each value is held once, as a number of the array."""

    def __init__(self, dtype):
        self.values: list = []  # appended since the last numpy()
        self.array = np.zeros(0, dtype=dtype)

    def __len__(self) -> int:
        return len(self.array) + len(self.values)

    def numpy(self) -> np.ndarray:
        if self.values:
            self.array = np.concatenate([self.array, np.asarray(self.values, dtype=self.array.dtype)])
            self.values = []
        return self.array


class _PieceIds(dict):
    def __init__(self, table: Spellings):
        super().__init__()
        # Weakly: no reference cycle, so that a table let go of is freed at once, not at the
        # garbage collector's next full pass (which may come hundreds of megabytes later).
        self.table = weakref.proxy(table)

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
        # Counted in the memory budget (triage.memory), which retires the table when spent.
        self.retired = False
        VOCABULARY.track(self, "spellings")

    def __len__(self) -> int:
        """Its pieces and spellings (none once retired)."""
        return 0 if self.retired else len(self.piece_ids) + len(self.texts)

    def clear(self) -> None:
        """Retire the table (the memory budget is spent): its seeker starts a new one at the
        next batch, and the analyses made with it keep it as it is (their spelling ids are its
        own)."""
        self.retired = True

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

    def new_words(self, texts: list[str]) -> list[str]:
        """The word spellings of the stretches of `texts` (see extend_with_pieces) that the
        table has not seen, with the parts of hyphenated ones: what a batch brings to label
        (WordLabeller.label_many labels them together before the pieces are added)."""
        known_first, known_next = self._first_stretches, self._next_stretches
        keep_whole, seen = self.seeker.keep_whole, set()
        words = []
        for text in texts:
            known = known_first
            for stretch in text.split(" "):
                if stretch not in known and stretch not in seen:
                    seen.add(stretch)
                    for piece in PIECE.findall(stretch):
                        for _, part, kind in split_piece(piece, keep_whole):
                            if kind == WORD:
                                words.append(part)
                                if "-" in part:
                                    words += part.split("-")
                known = known_next
        return words

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
        ident = len(self._pieces["piece_length"])
        self._pieces["piece_length"].values.append(0 if isinstance(piece, tuple) else len(piece))
        self._pieces["piece_parts"].values.append(len(parts))
        self._pieces["piece_first"].values.append(len(self._parts["part_spelling"]))
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
        """A per-spelling column of another module, computed once per spelling:
        `compute(sids)` gives the values of the new spelling ids `sids` (an int array) at
        once, as an array-like of len(sids) values (rows of `width` values for a 2-D
        column). Batched, so that a growing vocabulary costs column operations, not a
        Python call per spelling."""
        shape = (0,) if width is None else (0, width)
        array = self._extra.get(name)
        if array is None:
            array = np.zeros(shape, dtype=dtype)
        if len(array) < len(self.texts):
            new = np.asarray(compute(np.arange(len(array), len(self.texts))), dtype=dtype)
            array = np.concatenate([array, new.reshape((-1, *shape[1:]))])
        self._extra[name] = array
        return array

    def rows_for(self, name: str, sids: np.ndarray, compute, width: int, owner=None) -> np.ndarray:
        """The rows of a float per-spelling table for the spellings `sids`, each computed
        the first time it is asked for: for what only some spellings need, such as the
        features of candidate words. `compute(new)` gives the rows of the distinct spelling
        ids `new` at once (len(new) rows of `width` values). The rows depend on `owner`
        (say, a model): asked with another owner, they are recomputed. A row's first value
        must not be NaN (it marks rows not computed yet)."""
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
            table[new] = np.asarray(compute(new), dtype=float).reshape(-1, width)
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
