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
    `counts`, how many each text has; `token`, the StretchIds they are ids of, in which process
    (StretchIds.valid)."""

    ids: np.ndarray
    counts: np.ndarray
    token: tuple


class StretchIds(dict):
    """The stretches of text of a process, by key (see text_keys) -> id, and the keys by id
    (`texts`). Counted in the memory budget (triage.pipeline.memory, by its keys and their
    characters) and emptied with the rest: what holds ids of an emptied table (a `Stretched`, the
    columns of the corpus statistics and of Seek&Hide) sees its `generation` change."""

    def __init__(self):
        super().__init__()
        self.texts: list[str] = []
        self.generation = 0
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
        return Stretched(ids if order is None else ids[order], counts, self._stamp())

    def valid(self, stretched: Stretched | None) -> bool:
        """Whether `stretched` holds ids of this table as it is now, in this process (a process
        forked from this one gives the ids it met since the fork to other stretches)."""
        return stretched is not None and stretched.token == self._stamp()

    def _stamp(self) -> tuple:
        return (os.getpid(), *self.token)

    def __reduce__(self):
        return type(self), ()  # copied or sent to another process empty: a memory of work


STRETCH_IDS = StretchIds()  # one per process: the corpus statistics and Seek&Hide share it
