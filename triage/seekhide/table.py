"""Seek&Hide's table of spellings: what it knows of each distinct piece of text and token
spelling, as growing columns (SMS vocabularies are Zipfian: each is worked out once). The other
per-spelling columns the tool reads (a spelling's lexicon memberships, its features for the word
scorer, the recognizers' flags...) are declared where their code is (`spelling_column`), each
under a name of its own, and the table computes each for its new spellings at once
(Spellings.column)."""

from __future__ import annotations

import operator
import re
import weakref
from dataclasses import dataclass, field
from itertools import chain, compress, repeat
from typing import TYPE_CHECKING

import numpy as np

from triage.pipeline.memory import VOCABULARY
from triage.schema import WORD_LABELS
from triage.seekhide.columns import SpellingColumn
from triage.seekhide.rules import Rule, rule_code
from triage.pipeline.arrays import GrowingArray, unique
from triage.text.stretches import STRETCH_IDS, interleaved
from triage.text.tokenise import (
    DETECTED,
    EMOJI,
    EMOTICON,
    NUMBER,
    PIECE,
    PUNCT,
    WORD,
    are_plain,
    split_piece,
)

if TYPE_CHECKING:
    from triage.seekhide.known import KnownMatcher
    from triage.seekhide.words import WordInfo, WordLabeller

_SENTENCE_END = re.compile(r"[.!?…]")


# Codes of token kinds and word labels in the arrays of an Analysis.
KINDS = (WORD, NUMBER, PUNCT, EMOTICON, EMOJI, DETECTED)
_KIND_CODE = {kind: code for code, kind in enumerate(KINDS)}
K_WORD, K_NUMBER, K_PUNCT, K_EMOTICON, K_DETECTED = (_KIND_CODE[k] for k in (WORD, NUMBER, PUNCT, EMOTICON, DETECTED))
LABELS = WORD_LABELS
L_DICTIONARY, L_ANTI, L_AMBIGUOUS, L_UNKNOWN = range(4)
# The codes of a label's fields, and the fields of a spelling that is no word (codes -1).
_LABEL_CODE = {None: -1, **{label: code for code, label in enumerate(LABELS)}}
_RULE_CODE = {None: -1, **{rule: rule_code(rule) for rule in Rule}}
_NO_INFO = (None, None, None, False, False)


class _Column:
    """A numpy column that grows: values are appended to a list, moved to the array on
    demand (numpy), so that each value is held once, as a number of the array (a GrowingArray:
    each value is copied a few times at most)."""

    def __init__(self, dtype):
        self.values: list = []  # appended since the last numpy()
        self.grown = GrowingArray(dtype)

    def __len__(self) -> int:
        return len(self.grown) + len(self.values)

    def numpy(self) -> np.ndarray:
        if self.values:
            # (np.fromiter: about half the time of a slice assigned a list of Python ints)
            dtype = self.grown.array.dtype
            self.grown.extend(np.fromiter(self.values, dtype=dtype, count=len(self.values)))
            self.values = []
        return self.grown.view()


class Stretches:
    """The piece ids of each stretch of text a table has cut into pieces, as columns by stretch id
    (triage.text.stretches.STRETCH_IDS; -1 pieces: not cut yet). The pieces of a text are those
    of its stretches in turn, each stretch cut on its own, because no token holds white space and
    the regular expression looks past a token only for a word character; a stretch's white space
    goes with its first piece, and a stretch of white space alone (at the end of a text) has no
    piece. A stretch that did not cut into whole pieces on its own is left out, its text cut whole.

    Counted in the memory budget (triage.pipeline.memory, by the stretches it has cut) and emptied
    with the rest, or when the stretch ids start afresh: a stretch is cut again when it comes back."""

    def __init__(self):
        self._start()
        VOCABULARY.track(self, "stretch_pieces")

    def _start(self) -> None:
        self.token = STRETCH_IDS.token  # the stretch ids the columns are of
        self._first, self._count = GrowingArray(np.int64), GrowingArray(np.int64)
        self.first = self._first.view()  # per stretch id, where its piece ids begin in `pieces`
        self.count = self._count.view()  # per stretch id, how many pieces it has (-1: not cut)
        self.pieces = _Column(np.int64)
        self.done = 0  # how many stretches it has cut

    def __len__(self) -> int:
        return self.done

    def sync(self) -> None:
        """Columns for every stretch id given so far (afresh if the stretch ids started afresh)."""
        if self.token != STRETCH_IDS.token:
            self._start()
        size = len(STRETCH_IDS.texts)
        if size > len(self.count):
            self.first, self.count = self._first.grow_to(size, 0), self._count.grow_to(size, -1)

    def extend(self, ids: list[int], counts: list[int], pieces: list[int]) -> None:
        """Add the stretches `ids`, newly cut, with `counts[i]` piece ids each, those of `pieces` in turn."""
        if not ids:
            return
        # (As arrays: numpy converts lists of Python ints it is assigned element by element.)
        at, many = np.array(ids, dtype=np.intp), np.array(counts, dtype=np.int64)
        self.first[at] = np.cumsum(many) - many + len(self.pieces)
        self.count[at] = many
        self.pieces.values += pieces
        self.done += len(ids)

    def numpy(self) -> _StretchArrays:
        return _StretchArrays(self.first, self.count, self.pieces.numpy())

    def clear(self) -> None:
        self._start()


@dataclass
class _StretchArrays:
    first: np.ndarray
    count: np.ndarray
    pieces: np.ndarray


@dataclass
class Cut:
    """The stretches of a batch of texts (Spellings.cut): `ids`, the stretch ids of those of the
    texts not cut whole, in order (triage.text.stretches), `counts` per such text; `whole`, per
    text, whether it is cut whole (a stretch of it does not cut into whole pieces on its own);
    `new`, the ids of the stretches not cut yet, `new_counts`, how many pieces each has, and
    `new_pieces`, those pieces in turn; `plain`, the new pieces that are white space then one
    plain word (tokenise.is_plain: most of them), added to the table at once; `parts`, what each
    other new piece is made of (split_piece); `words`, the word spellings of the new pieces to
    label: those of `plain` in turn, then those of the others."""

    ids: np.ndarray
    counts: np.ndarray
    whole: np.ndarray
    new: list[int]
    new_counts: list[int]
    new_pieces: list[str]
    plain: list[str] = field(default_factory=list)
    parts: dict[str, tuple] = field(default_factory=dict)
    words: list[str] = field(default_factory=list)


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
    rule out of context (label_word), and the flags the context rules need. The declared
    per-spelling columns (triage.seekhide.columns) are computed on demand (`column`).
    """

    _SCALARS = {
        "kind": np.int8, "label": np.int8, "rule": np.int16, "weak": bool, "title": bool,
        "capitalised": bool, "sentence_end": bool, "length": np.int64,
    }

    def __init__(self, labeller: WordLabeller, known: KnownMatcher | None = None):
        """`labeller`: labels each new word spelling out of context (Seek&Hide's WordLabeller);
        `known`: the names a team knows, for the columns that read them."""
        self.labeller, self.lexicons, self.known = labeller, labeller.lexicons, known
        self.piece_ids = _PieceIds(self)
        self.spelling_ids: dict[tuple[str, str], int] = {}
        self.texts: list[str] = []
        self.infos: list[WordInfo | None] = []
        self.tags: list[str] = []  # detector tag of DETECTED spellings, else ""
        self._columns = {name: _Column(dtype) for name, dtype in self._SCALARS.items()}
        self._pieces = {name: _Column(np.int64) for name in ("piece_length", "piece_parts", "piece_first")}
        self._parts = {"part_spelling": _Column(np.int64), "part_offset": _Column(np.int64),
                       "part_of_compound": _Column(bool)}
        self._extra: dict[tuple, GrowingArray] = {}  # see column: the values computed
        self._partial: dict[str, tuple[GrowingArray, GrowingArray]] = {}  # see column_at: (values, which are)
        self._rows: dict[str, tuple[object, GrowingArray]] = {}  # see rows_for: (owner, rows)
        # The piece ids of each stretch of text (see Stretches).
        self.stretches = Stretches()
        # Counted in the memory budget (triage.pipeline.memory), which retires the table when spent.
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

    def cut(self, texts: list[str], given: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None) -> Cut:
        """The stretches of `texts` (see Stretches), those the table has not cut yet cut into
        pieces, and what these new pieces are made of (split_piece): each new stretch is cut
        once in Python, the others are found by their stretch ids. `given`: (which texts, the
        stretch ids of these texts in turn, how many each has), the stretch ids of some of the
        texts (STRETCH_IDS.cut's), which are then not cut into stretches again. `Cut.words` holds
        the word spellings of the new pieces, with the parts of hyphenated ones: what a batch
        brings to label (WordLabeller.label_many labels them together before the pieces are
        added)."""
        if given is None:
            stretched = STRETCH_IDS.cut(texts)
            ids, counts = stretched.ids, stretched.counts
        else:
            taken, given_ids, given_counts = given
            others = STRETCH_IDS.cut(list(compress(texts, (~taken).tolist())))
            counts = np.empty(len(texts), dtype=np.int64)
            counts[taken], counts[~taken] = given_counts, others.counts
            ids = np.concatenate([given_ids, others.ids])[interleaved(taken, given_counts, others.counts)]
        stretches = self.stretches
        stretches.sync()
        uncut = ids[stretches.count[ids] < 0]
        if len(uncut):  # each once, in the order they come
            uncut, first = np.unique(uncut, return_index=True)
            uncut = uncut[np.argsort(first)]
        new_ids = uncut.tolist()
        keys = list(map(STRETCH_IDS.texts.__getitem__, new_ids))
        # The stretch of each key and its word after its white space (stretch_of, plain_word's value): most
        # keys are a word after a single space (the stretch is " " + the key), the others are a text's first
        # stretch (a NUL, then the stretch) or begin with other white space (the stretch is the key).
        values = list(map(str.lstrip, keys))
        pieces = list(map(" ".__add__, keys))
        size = len(keys)
        other = np.fromiter(map(len, keys), np.intp, size) != np.fromiter(map(len, values), np.intp, size)
        other |= np.fromiter(map(str.startswith, keys, repeat("\0")), bool, size)
        for at in np.flatnonzero(other).tolist():
            key = keys[at]
            if key[:1] == "\0":
                pieces[at] = values[at] = key[1:]
            else:
                pieces[at] = key
        plain = are_plain(values)  # one piece, one word (what split_piece makes of it)
        new_counts = [1] * len(new_ids)
        parts: dict[str, tuple] = {}
        words = list(compress(values, plain))
        plain_pieces = list(compress(pieces, plain))
        bad = []  # the stretches that do not cut into whole pieces: their texts are cut whole (see Stretches)
        split = []  # the pieces of the new stretches cut by PIECE
        if not all(plain):  # the other new stretches cut by PIECE, in place of their one piece in `pieces`
            findall, flat, done = PIECE.findall, [], 0
            for at in [at for at, one in enumerate(plain) if not one]:
                stretch = pieces[at]
                flat += pieces[done:at]
                done = at + 1
                found = findall(stretch)
                if "".join(found) != stretch and not stretch.isspace():
                    bad.append(new_ids[at])
                    new_counts[at] = 0
                else:
                    split.append(found)
                    flat += found
                    new_counts[at] = len(found)
            flat += pieces[done:]
            pieces = flat
        if bad:
            kept = [count > 0 for count in new_counts]
            new_ids, new_counts = list(compress(new_ids, kept)), list(compress(new_counts, kept))
        # The plain pieces already in the table are not added again.
        known = self.piece_ids
        fresh = [piece not in known for piece in plain_pieces]
        if not all(fresh):
            plain_pieces, words = list(compress(plain_pieces, fresh)), list(compress(words, fresh))
        whole = np.zeros(len(texts), dtype=bool)
        if bad:  # the texts holding such a stretch are cut whole; the stretches of the others, in order
            holds = np.isin(ids, bad)
            whole = np.add.reduceat(holds, np.cumsum(counts) - counts) > 0  # (every text has a stretch)
            ids, counts = ids[~np.repeat(whole, counts)], counts[~whole]
        cut = Cut(ids, counts, whole, new_ids, new_counts, pieces, plain_pieces, parts, words)
        self.new_parts(chain.from_iterable(split), cut)
        return cut

    def new_parts(self, pieces, cut: Cut) -> None:
        """Add to `cut` what the new ones of `pieces` (pieces of text) are made of, and their
        words (see cut)."""
        piece_ids, keep_whole, parts, words = self.piece_ids, self.labeller.keep_whole, cut.parts, cut.words
        for piece in pieces:
            if piece not in piece_ids and piece not in parts:
                found = parts[piece] = split_piece(piece, keep_whole)
                for _, part, kind in found:
                    if kind == WORD:
                        words.append(part)
                        if "-" in part:
                            words += part.split("-")

    def piece_ids_of(self, cut: Cut) -> tuple[np.ndarray, np.ndarray]:
        """(the piece ids of the texts of `cut` not cut whole, in order; how many each has), as
        column operations: the new stretches are added first (their new pieces with the parts
        of `cut`), then each stretch's pieces are gathered from the table of stretches."""
        stretches = self.stretches
        if cut.plain:  # the new pieces of one plain word each, added at once
            self._add_plain(cut.plain, cut.words[: len(cut.plain)])
        if cut.new:
            stretches.extend(cut.new, cut.new_counts, self.add_pieces(cut.new_pieces, cut.parts))
        columns = stretches.numpy()
        sid = cut.ids
        count = columns.count[sid]
        ends = np.cumsum(count)
        n = int(ends[-1]) if len(ends) else 0
        entry = np.repeat(columns.first[sid] - (ends - count), count) + np.arange(n)
        through = np.zeros(len(cut.counts) + 1, dtype=np.int64)
        np.cumsum(cut.counts, out=through[1:])
        total = np.concatenate([[0], ends])[through]
        return columns.pieces[entry], np.diff(total)

    def ids_of(self, pieces: list, cut: Cut) -> list[int]:
        """The ids of `pieces` (pieces of text, or detection_piece's), adding the new ones with
        the parts worked out in `cut`."""
        return self.add_pieces(pieces, cut.parts)

    def detection_piece(self, tag: str) -> tuple[str, str]:
        return (DETECTED, tag)  # a tuple: never a piece of text

    def add_pieces(self, pieces, parts: dict) -> list[int]:
        """Add the new ones of `pieces` (pieces of text, or detection_piece's), in order, and
        give the id of each of `pieces`: each part of a piece becomes a spelling. `parts`: what
        split_piece makes of some of them, already worked out. One loop for them all, the values
        of the columns appended as they come (a new spelling's too: _add_spelling, written out)."""
        piece_ids, spelling_ids, labeller = self.piece_ids, self.spelling_ids, self.labeller
        label, labelled = labeller.label_word, labeller.labelled.get
        keep_whole, compound = labeller.keep_whole, Rule.COMPOUND
        lengths, counts, firsts = (self._pieces[name].values for name in ("piece_length", "piece_parts", "piece_first"))
        spellings, offsets, in_compound = (self._parts[name].values
                                           for name in ("part_spelling", "part_offset", "part_of_compound"))
        texts, infos, tags, kinds = self.texts, self.infos, self.tags, self._columns["kind"].values
        n_pieces, n_parts = len(self._pieces["piece_length"]), len(self._parts["part_spelling"])
        # The ids of the pieces known already, all at once (most are); the others in order, each
        # added at its first occurrence.
        pieces = pieces if isinstance(pieces, list) else list(pieces)
        ids: list[int | None] = list(map(piece_ids.get, pieces))
        unknown = np.flatnonzero(np.fromiter(map(operator.is_, ids, repeat(None)), dtype=bool, count=len(ids)))
        for at in unknown.tolist():
            piece = pieces[at]
            ident = piece_ids.get(piece)
            if ident is not None:  # a piece met twice: added at its first occurrence
                ids[at] = ident
                continue
            ids[at] = n_pieces
            piece_ids[piece] = n_pieces
            n_pieces += 1
            firsts.append(n_parts)
            if piece.__class__ is tuple:  # a detection: one part, the spelling of its tag
                lengths.append(0)
                counts.append(1)
                spellings.append(self.spelling("", DETECTED, piece[1]))
                offsets.append(0)
                in_compound.append(False)
                n_parts += 1
                continue
            lengths.append(len(piece))
            split = parts.get(piece) or split_piece(piece, keep_whole)
            for offset, text, kind in split:
                if kind == WORD:
                    info = labelled(text) or label(text)  # (label_word's answer from memory first)
                    if info.rule == compound:  # a hyphenated word in no list
                        for part in text.split("-"):
                            if part:
                                sid = spelling_ids.get((part, WORD))
                                spellings.append(self.spelling(part, WORD) if sid is None else sid)
                                offsets.append(offset)
                                in_compound.append(True)
                                n_parts += 1
                            offset += len(part) + 1
                        continue
                else:
                    info = None
                key = (text, kind)
                sid = spelling_ids.get(key)
                if sid is None:
                    sid = spelling_ids[key] = len(texts)
                    texts.append(text)
                    infos.append(info)
                    tags.append("")
                    kinds.append(_KIND_CODE[kind])
                spellings.append(sid)
                offsets.append(offset)
                in_compound.append(False)
                n_parts += 1
            counts.append(n_parts - firsts[-1])
        return ids

    def _add_plain(self, pieces: list[str], words: list[str]) -> None:
        """Add new pieces, each white space then one plain word (tokenise.is_plain: its one part is
        that word, `words` in turn), at once: what add_pieces does for them, but for a loop per new
        spelling only (a plain word is never hyphenated)."""
        n_pieces, n_parts, size = len(self._pieces["piece_length"]), len(self._parts["part_spelling"]), len(pieces)
        self.piece_ids.update(zip(pieces, range(n_pieces, n_pieces + size)))
        self._pieces["piece_length"].values += map(len, pieces)
        self._pieces["piece_parts"].values += repeat(1, size)
        self._pieces["piece_first"].values += range(n_parts, n_parts + size)
        keys, known = list(zip(words, repeat(WORD))), self.spelling_ids
        # The new spellings (most words of new pieces are: " Léa" may come after "Léa"), added first.
        new = list(dict.fromkeys(compress(words, map(operator.not_, map(known.__contains__, keys)))))
        if new:  # (label_word's answers from memory first: label_many has worked them out)
            infos = list(map(self.labeller.labelled.get, new))
            if None in infos:
                infos = [info or self.labeller.label_word(word) for word, info in zip(new, infos)]
            self._add_spellings(new, WORD, infos)
        self._parts["part_spelling"].values += map(known.__getitem__, keys)
        self._parts["part_offset"].values += map(operator.sub, map(len, pieces), map(len, words))
        self._parts["part_of_compound"].values += repeat(False, size)

    def add_piece(self, piece: str | tuple[str, str]) -> int:
        """Add a piece (or a detection_piece) and give its id (see add_pieces)."""
        return self.add_pieces((piece,), {})[0]

    def spelling(self, text: str, kind: str, tag: str = "") -> int:
        """The id of a spelling (a token's text and kind; a detection's tag), added when new. Its
        scalar columns are worked out with those of the other new spellings at the next numpy()."""
        sid = self.spelling_ids.get((text or tag, kind))
        if sid is None:
            sid = self._add_spelling(text, kind, self.labeller.label_word(text) if kind == WORD else None, tag)
        return sid

    def _add_spelling(self, text: str, kind: str, info: WordInfo | None, tag: str = "") -> int:
        """Add a new spelling, `info` its label out of context (a word's), and give its id."""
        sid = len(self.texts)
        self._add_spellings([text], kind, [info], tag)
        return sid

    def _add_spellings(self, texts: list[str], kind: str, infos: list[WordInfo | None], tag: str = "") -> None:
        """Add new spellings of one kind, distinct, at once: `infos` their labels out of context
        (words'), `tag` a detection's (its spelling's text is empty)."""
        start, size = len(self.texts), len(texts)
        keys = texts if not tag else [text or tag for text in texts]
        self.spelling_ids.update(zip(zip(keys, repeat(kind)), range(start, start + size)))
        self.texts += texts
        self.infos += infos
        self.tags += repeat(tag, size)
        self._columns["kind"].values += repeat(_KIND_CODE[kind], size)

    def numpy(self) -> _Arrays:
        self._scalars()
        return _Arrays(**{name: c.numpy() for group in (self._columns, self._pieces, self._parts)
                          for name, c in group.items()})

    def _scalars(self) -> None:
        """Work out the scalar columns of the spellings added since they last were (all but
        `kind`, appended as each spelling is added), a column at a time."""
        done = len(self._columns["label"])
        if done == len(self.texts):
            return
        texts, infos = self.texts[done:], self.infos[done:]
        kinds = self._columns["kind"].numpy()[done:]
        # The fields of the labels (_NO_INFO for a spelling that is no word).
        labels, rules, _, weak, title = zip(*[_NO_INFO if info is None else info for info in infos])
        values = {
            "label": list(map(_LABEL_CODE.__getitem__, labels)),
            "rule": list(map(_RULE_CODE.__getitem__, rules)),
            "weak": list(map(bool, weak)),
            "title": list(map(bool, title)),
            "capitalised": [text[:1].isupper() and not text.isupper() for text in texts],
            "sentence_end": [kind == K_PUNCT and _SENTENCE_END.search(text) is not None
                             for text, kind in zip(texts, kinds.tolist())],
            "length": list(map(len, texts)),
        }
        for name, new in values.items():
            self._columns[name].values += new

    def column(self, column: SpellingColumn, *parameters) -> np.ndarray:
        """The values of a declared per-spelling column for every spelling of the table, each
        computed once: those of the spellings added since it was last asked for, at once (a
        growing vocabulary costs column operations, not a Python call per spelling).
        `parameters` (hashable) are passed on to its `compute`; each set of them is a column of
        its own."""
        key = (column.name, *parameters)
        found = self._extra.get(key)
        if found is None:  # half as large again when full: each value is copied a few times at most
            found = self._extra[key] = GrowingArray(column.dtype, width=column.width, growth=1.5)
        done, n = len(found), len(self.texts)
        if done < n:
            new = np.asarray(column.compute(self, np.arange(done, n), *parameters), dtype=column.dtype)
            return found.extend(new.reshape((-1, *found.array.shape[1:])))
        return found.view()

    def column_at(self, column: SpellingColumn, sids: np.ndarray) -> np.ndarray:
        """The values of a declared per-spelling column for the spellings `sids` only, each
        computed the first time it is asked for (those not known yet at once): for a column that
        a rule reads at a few words of a batch, whose other spellings are never asked about."""
        shape = () if column.width is None else (column.width,)
        grown = self._partial.get(column.name)
        if grown is None:
            grown = self._partial[column.name] = (GrowingArray(column.dtype, width=column.width), GrowingArray(bool))
        n = len(self.texts)
        values, known = grown[0].grow_to(n), grown[1].grow_to(n, False)  # (values read where known)
        missing = sids[~known[sids]]
        if len(missing):
            new = unique(missing)
            values[new] = np.asarray(column.compute(self, new), dtype=column.dtype).reshape((-1, *shape))
            known[new] = True
        return values[sids] if values.ndim == 1 else values.take(sids, axis=0)

    def rows_for(self, name: str, sids: np.ndarray, compute, width: int, owner=None) -> np.ndarray:
        """The rows of a float per-spelling table for the spellings `sids`, each computed
        the first time it is asked for: for what only some spellings need, such as the
        features of candidate words. `compute(new)` gives the rows of the distinct spelling
        ids `new` at once (len(new) rows of `width` values). The rows depend on `owner`
        (say, a model): asked with another owner, they are recomputed. A row's first value
        must not be NaN (it marks rows not computed yet)."""
        owned, grown = self._rows.get(name, (None, None))
        if grown is None or owned is not owner:
            grown = GrowingArray(float, width=width)
            self._rows[name] = (owner, grown)
        table = grown.grow_to(len(self.texts), np.nan)  # the rows of the spellings added since: not computed
        rows = table.take(sids, axis=0)  # (rows gathered by take: a few times faster than indexing)
        missing = np.flatnonzero(np.isnan(rows[:, 0]))
        if len(missing):
            new = unique(sids[missing])
            table[new] = np.asarray(compute(new), dtype=float).reshape(-1, width)
            rows = table.take(sids, axis=0)
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
