"""Composed accents (NFC) for analysis, with offsets that point into the original text.

Some phones and macOS write accents decomposed (NFD): "Se\u0301bastien" is an "e" and a
combining acute accent. The tokeniser would split the word at the accent and the lexicons
hold composed spellings, so such names were released or half hidden. A message that is
not in NFC is analysed in NFC; every span found is mapped back to the original text,
always onto whole original characters (a base letter with all its marks).
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass


@dataclass(frozen=True)
class OffsetMap:
    """For each character of the NFC text, where its original cluster starts and ends."""

    starts: tuple[int, ...]
    ends: tuple[int, ...]

    def span(self, start: int, end: int) -> tuple[int, int]:
        """The original span covering NFC text[start:end] (end > start)."""
        return self.starts[start], self.ends[end - 1]


def to_nfc(text: str) -> tuple[str, OffsetMap | None]:
    """(NFC text, map back) or (text, None) when the text is already NFC, or when it cannot
    be composed cluster by cluster (then it is analysed as written)."""
    if unicodedata.is_normalized("NFC", text):
        return text, None
    pieces: list[str] = []
    starts: list[int] = []
    ends: list[int] = []
    cluster = 0
    for index in range(1, len(text) + 1):
        if index < len(text) and unicodedata.combining(text[index]):
            continue  # a mark belongs to the cluster of the character before it
        composed = unicodedata.normalize("NFC", text[cluster:index])
        pieces.append(composed)
        starts += [cluster] * len(composed)
        ends += [index] * len(composed)
        cluster = index
    normalised = "".join(pieces)
    if normalised != unicodedata.normalize("NFC", text):  # e.g. Hangul jamo compose across clusters
        return text, None
    return normalised, OffsetMap(tuple(starts), tuple(ends))


def spans_to_original(spans, offsets: OffsetMap) -> list[tuple[int, int, str]]:
    """[start, end, tag] spans of the NFC text as spans of the original text."""
    return [(*offsets.span(start, end), tag) for start, end, tag in spans]


def nfc_batch(texts: list[str]) -> tuple[list[str], dict[int, OffsetMap]]:
    """The NFC texts of a batch and the maps of the messages that changed (usually none)."""
    normalised, maps = list(texts), {}
    for index, text in enumerate(texts):
        if not text.isascii():
            composed, offsets = to_nfc(text)
            if offsets is not None:
                normalised[index], maps[index] = composed, offsets
    return normalised, maps


def hide_in_original(code_for, original: str, composed: str, spans, offsets: OffsetMap):
    """(the original text with each span replaced by its code, the spans in the original).
    Codes are made from the composed text, so that a name has the same code however its
    accents were written."""
    mapped = spans_to_original(spans, offsets)
    parts, last = [], 0
    for (start, end, tag), (o_start, o_end, _) in zip(spans, mapped):
        parts += [original[last:o_start], code_for(composed, start, end, tag)]
        last = o_end
    parts.append(original[last:])
    return "".join(parts), mapped


def words_in_original(words: list[str], original: str, composed: str, offsets: OffsetMap) -> list[str]:
    """Words found in the composed text, as they are written in the original (so that a
    reader or the review page finds them in the message)."""
    found = []
    for word in words:
        at = composed.find(word) if word else -1
        found.append(original[slice(*offsets.span(at, at + len(word)))] if at >= 0 else word)
    return found
