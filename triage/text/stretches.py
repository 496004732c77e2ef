"""A text cut into stretches, the runs of characters between white space, each stretch of a
process given one id (SMS repeat their words: a batch's stretches are mostly known ones).

A stretch is a run of white space with the characters up to the next one, the text's first
stretch having none ("Salut  Patrice," -> "Salut", "  Patrice,"). No token holds white space,
so a text's tokens are those of its stretches, and what a stretch holds (its runs of letters
for the corpus statistics, its pieces for Seek&Hide) is worked out once per distinct stretch.

The ids are given once per process (STRETCH_IDS): the corpus statistics pass cuts each text
into stretch ids, and the chunks it keeps for classifying carry them (`Stretched`), so that
Seek&Hide does not cut and look the texts up again: a text is cut into stretches once."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from itertools import chain, repeat

import numpy as np

from triage.pipeline.memory import VOCABULARY

# The stretches of a text: its characters up to the first white space, then each run of white
# space with the characters up to the next one ("Salut  Patrice," -> "Salut", "  Patrice,").
STRETCH = re.compile(r"^\S*|\s+\S*")


def stretch_key(stretch: str) -> str:
    """The key of a stretch that is not a text's first: the word after a single space (most
    stretches), or the stretch itself (it begins with other white space; or a space then a NUL, a
    character no key of a text's first stretch begins with)."""
    second = stretch[1:2]
    return stretch[1:] if stretch[0] == " " and second != "\0" and not second.isspace() else stretch


def text_keys(stretches: list[str]) -> list[str]:
    """The keys of a text's stretches (STRETCH.findall, at least one): a NUL, then the first
    stretch (the text up to its first white space, maybe empty); the others by stretch_key."""
    return ["\0" + stretches[0], *map(stretch_key, stretches[1:])]


def stretch_of(key: str) -> str:
    """The stretch of text of a key (see text_keys)."""
    first = key[:1]
    if first == "\0":
        return key[1:]
    return key if first.isspace() else " " + key


def bare(key: str) -> str:
    """The characters of a key's stretch after its white space (maybe none)."""
    first = key[:1]
    if first == "\0":
        return key[1:]
    return key.lstrip() if first.isspace() else key


def bare_many(keys: list[str]) -> list[str]:
    """[bare(key) for key in keys]: every key stripped of its white space at once (a key that
    begins with none is its own bare text, the same object), then the keys of a text's first
    stretch, after their NUL, cut one by one."""
    found = list(map(str.lstrip, keys))
    first = np.flatnonzero(np.fromiter(map(str.startswith, keys, repeat("\0")), dtype=bool, count=len(keys)))
    for at in first.tolist():
        found[at] = keys[at][1:]
    return found


def batch_keys(texts: list[str]) -> tuple[list[str], np.ndarray, np.ndarray | None]:
    """The keys of the stretches of `texts` (text_keys of STRETCH.findall of each): (those of the
    texts whose only white space is single spaces, then those of the others; how many each text
    has; where those of the texts in turn are in the first list, None when they are in that
    order). A text whose only white space is single spaces (str.isprintable() holds for no other
    white space) is cut by string methods, all such texts of a batch at once: the text split at
    its spaces, its first word after a NUL, which no such text holds."""
    single = [text.isprintable() and "  " not in text for text in texts]
    spaced = texts if all(single) else [text for text, alone in zip(texts, single) if alone]
    flat = " \0".join(spaced).split(" ") if spaced else []
    if flat:  # the first text's first word (the others follow a NUL already)
        flat[0] = "\0" + flat[0]
    counts = np.fromiter(map(str.count, spaced, repeat(" ")), dtype=np.int64, count=len(spaced)) + 1
    if len(spaced) == len(texts):
        return flat, counts, None
    others = [text_keys(STRETCH.findall(text)) for text, alone in zip(texts, single) if not alone]
    flat += chain.from_iterable(others)
    mask = np.asarray(single, dtype=bool)
    per_text = np.empty(len(texts), dtype=np.int64)
    per_text[mask] = counts
    per_text[~mask] = list(map(len, others))
    return flat, per_text, interleaved(mask, counts, per_text[~mask])


def interleaved(mask: np.ndarray, first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """Where the items of each of a batch's parts (units, texts) are in a list that holds those of
    the parts `mask` selects (`first[k]` items for the k-th of them) and then those of the others
    (`second[k]` for the k-th): the positions in that list of the items of the parts in turn."""
    per_part = np.empty(len(mask), dtype=np.int64)
    per_part[mask], per_part[~mask] = first, second
    source = np.empty(len(mask), dtype=np.int64)
    source[mask] = np.cumsum(first) - first
    source[~mask] = int(first.sum()) + np.cumsum(second) - second
    return np.repeat(source - (np.cumsum(per_part) - per_part), per_part) + np.arange(int(per_part.sum()))


@dataclass
class Stretched:
    """A batch of texts cut into stretch ids (StretchIds.cut): `ids`, those of the texts in turn,
    `counts`, how many each text has; `token`, the StretchIds they are ids of, in which process,
    and `given`, how many ids that table had given then (StretchIds.valid)."""

    ids: np.ndarray
    counts: np.ndarray
    token: tuple
    given: int = 0


class StretchIds(dict):
    """The stretches of text of a process, by key (see text_keys) -> id, and the keys by id
    (`texts`). Counted in the memory budget (triage.pipeline.memory, by its keys and their
    characters) and emptied with the rest: what holds ids of an emptied table (a `Stretched`, the
    columns of the corpus statistics and of Seek&Hide) sees its `generation` change."""

    def __init__(self):
        super().__init__()
        self.texts: list[str] = []
        self.generation = 0
        # In a process forked from another: the parent's stamp and how many ids it had given at
        # the fork (ids the two processes share while neither empties its table).
        self.forked_from: tuple[tuple, int] | None = None
        VOCABULARY.track(self, "stretches")

    def __missing__(self, key: str) -> int:
        ident = self[key] = len(self.texts)
        self.texts.append(key)
        return ident

    def clear(self) -> None:
        self.generation += 1
        super().clear()
        self.texts = []

    @property
    def token(self) -> tuple:
        """What the ids given now are valid under: this table, until it is emptied. A process
        forked from this one starts with the same ids, so that what it inherits of columns by
        stretch id stays valid there."""
        return (id(self), self.generation)

    def ids(self, keys: list[str]) -> np.ndarray:
        """The id of each key, the new ones given the next ids (32 bits each: the chunks kept for
        classifying hold them; the memory budget empties the table long before 2**31 stretches)."""
        return np.fromiter(map(self.__getitem__, keys), dtype=np.int32, count=len(keys))

    def cut(self, texts: list[str]) -> Stretched:
        """The stretch ids of `texts`, in the order of the texts."""
        flat, counts, order = batch_keys(texts)
        ids = self.ids(flat)
        return self.stretched(ids if order is None else ids[order], counts)

    def stretched(self, ids: np.ndarray, counts: np.ndarray) -> Stretched:
        """Texts cut into ids of this table (`counts` of them each), stamped as this process's."""
        return Stretched(ids, counts, self._stamp(), len(self.texts))

    def valid(self, stretched: Stretched | None) -> bool:
        """Whether `stretched` holds ids of this table as it is now: cut in this process, or in
        the process this one was forked from, before the fork (a process forked from another
        gives the ids it meets since the fork to other stretches than the other does)."""
        if stretched is None:
            return False
        if stretched.token == self._stamp():
            return True
        inherited = self.forked_from
        return (inherited is not None and stretched.token == inherited[0] and stretched.given <= inherited[1]
                and stretched.token[1:] == self.token)

    def _forked(self) -> None:
        """In a process just forked from another: the ids given so far are the parent's too."""
        self.forked_from = (self._stamp(), len(self.texts))  # the parent's stamp, this process's being new
        _PROCESS[0] = _process_identity()

    def _stamp(self) -> tuple:
        """This table as it is now, in this process: the process's identity, then `token`."""
        return (_PROCESS[0], *self.token)

    def __reduce__(self):
        return type(self), ()  # copied or sent to another process empty: a memory of work


def _process_identity() -> tuple[int, bytes]:
    """Who a process is, for the stamps of its stretch ids: its pid and a random nonce (another
    machine's process may have the same pid, and its table the same address)."""
    return (os.getpid(), os.urandom(8))


_PROCESS = [_process_identity()]  # drawn again in a forked process (StretchIds._forked)
STRETCH_IDS = StretchIds()  # one per process: the corpus statistics and Seek&Hide share it
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=STRETCH_IDS._forked)


@dataclass
class LocalStretched:
    """A batch cut into stretch ids in another process (`local`), with what this process needs to
    read them as its own (StretchTranslation): that process's stamp (`source`), how many ids its
    table had given before the batch (`before`), the keys of those it gave for the batch (`keys`,
    in the order of their ids), and, if that process was forked from another and has not emptied
    its table since, that one's stamp and how many ids the two share (`forked_from`)."""

    local: Stretched
    source: tuple
    before: int
    keys: list[str]
    forked_from: tuple[tuple, int] | None = None


def cut_for_another(texts_cut) -> LocalStretched:
    """texts_cut() (a function cutting a batch with STRETCH_IDS, maybe emptying it first: the
    memory budget), with the keys of the ids it gave, for the process that will read them."""
    token, before = STRETCH_IDS.token, len(STRETCH_IDS.texts)
    stretched = texts_cut()
    if STRETCH_IDS.token != token:  # emptied on the way: every id was given for this batch
        before = 0
    inherited = STRETCH_IDS.forked_from
    if inherited is not None and inherited[0][1:] != STRETCH_IDS.token:
        inherited = None  # emptied since the fork
    return LocalStretched(stretched, stretched.token, before, STRETCH_IDS.texts[before:], inherited)


class StretchTranslation:
    """Stretch ids given in other processes (LocalStretched, each process's in the order it gave
    them), read as ids of this process's table: the keys of each process's ids are looked up here
    once, and its batches' ids then mapped by an array. A batch that cannot be read (its process's
    earlier keys were not seen, or this table was emptied since) is None: cut again where it is
    classified."""

    def __init__(self) -> None:
        self.token = STRETCH_IDS.token
        self.maps: dict[tuple, np.ndarray | None] = {}  # by source: this table's id of each of its ids

    def translate(self, batch: LocalStretched) -> Stretched | None:
        if STRETCH_IDS.token != self.token:  # emptied: what was mapped is no longer valid
            self.token, self.maps = STRETCH_IDS.token, {}
        known = self.maps.get(batch.source, ())
        if isinstance(known, tuple):  # its first batch: the ids it shares with this process are the same
            shared = batch.forked_from is not None and batch.forked_from[0] == STRETCH_IDS._stamp()
            known = np.arange(batch.forked_from[1] if shared else 0, dtype=np.int32)
        if known is None or len(known) != batch.before:
            self.maps[batch.source] = None  # a gap: this source's later batches cannot be read either
            return None
        known = self.maps[batch.source] = np.concatenate([known, STRETCH_IDS.ids(batch.keys)])
        return STRETCH_IDS.stretched(known[batch.local.ids], batch.local.counts)
