"""An SMS-aware tokeniser that keeps character offsets.

The paper split on spaces; SMS need more care: punctuation glued to words ("Patrice,") is
split off, elided clitics are separated ("j'arrive" -> "j'" + "arrive") unless the whole is
a word ("aujourd'hui"), and URLs, e-mails, phone numbers and emoticons stay whole.
Every token carries (start, end) offsets into the original text, so that hiding a token
never changes a character outside it.

One regular expression cuts a text into pieces, each with the white space before it; what
a piece becomes (its kind, its elided clitics) depends on the piece alone, so it is worked
out once per distinct piece (SMS vocabularies are Zipfian) and offsets are running sums of
piece lengths.
"""

from __future__ import annotations

import itertools
import operator
import re
from collections.abc import Container
from typing import NamedTuple

import numpy as np

from triage.text.detectors import detect

WORD, NUMBER, PUNCT, EMOTICON, EMOJI, DETECTED = (
    "WORD", "NUMBER", "PUNCT", "EMOTICON", "EMOJI", "DETECTED",
)


class Token(NamedTuple):
    start: int
    end: int
    text: str
    kind: str  # WORD, NUMBER, PUNCT, EMOTICON, EMOJI, or DETECTED (then `tag` says what)
    tag: str = ""  # TEL, MEL, URL, ADR, COD for DETECTED tokens


# Emoticons first: ":-)" must not become three punctuation marks, "xD" not a word.
_EMOTICON = (
    r"(?:[:;=8][-o^'’]?[)(\]\[dDpPoO/\\|*3$@]+(?![\w]))"  # :-) ;) :D :p :/ :'(
    r"|(?:[)(\]\[][-o^]?[:;=](?![\w]))"  # (-: (:
    r"|(?:<3+|</3)"
    r"|(?:\^[_.-]?\^)"  # ^^ ^_^
    r"|(?:[xX][dDpP]+(?![\w]))"  # xD XD xp
    r"|(?:[-=T][_.][-=T])"  # -_- T_T
    r"|(?:[oO0][_.][oO0])"  # o_O
    r"|(?:[oO]{2}['’]?(?![\w'’]))"  # OO OO' (eyes wide open)
)
_EMOJI = r"[\U0001F000-\U0001FAFF\u2600-\u27BF\u2B00-\u2BFF\uFE0F\u200D]+"
# Letters, digits and inner apostrophes or hyphens; a trailing apostrophe keeps "j'" whole.
_WORD = r"[^\W_]+(?:[-'’][^\W_]+)*['’]?"
_PUNCT = r"[^\w\s]+|_+"
# Every character but white space belongs to some piece, so pieces are contiguous.
PIECE = re.compile(rf"\s*(?:{_EMOTICON}|{_EMOJI}|{_WORD}|{_PUNCT})")
# A piece's white space, then its token when it is an emoticon, an emoji or a word, tried in that
# order (the group named after the kind matches); any other token is punctuation.
_KIND = re.compile(rf"\s*+(?:(?P<{EMOTICON}>{_EMOTICON})|(?P<{EMOJI}>{_EMOJI})|(?P<{WORD}>{_WORD}))")
_NUMBER = re.compile(
    r"\d+(?:[.,:/h-]\d+)*(?:h|min|mn|€|e|er|ere|ère|eme|ème|è|é|ans?|kg|km|m|cm|mm|g|pm|am|x)?",
    re.I,
)
# Clitics that elide before a vowel: j'ai, l'autre, qu'il, jusqu'à...
ELIDED = frozenset("j l m t s n d c ç qu jusqu lorsqu puisqu quoiqu presqu quelqu".split())
_LONGEST_ELIDED = max(map(len, ELIDED))
# Words with an apostrophe kept whole (aujourd'hui, jusqu'au-boutiste: 19 letters at most
# in the lexicons) are looked up only when no longer than this.
KEEP_WHOLE_MAX_LENGTH = 40
_APOSTROPHE = re.compile(r"['’]")

Part = tuple[int, str, str]  # (offset in the piece, text, kind)


class Tokeniser:
    """Tokens of texts, with what each distinct piece becomes cached."""

    def __init__(self, keep_whole: Container[str] = frozenset(), max_cache: int = 500_000):
        # Lower-case words with an apostrophe that must not be split: aujourd'hui, quelqu'un...
        self.keep_whole = keep_whole
        self._parts: dict[str, tuple[Part, ...]] = {}
        self._max_cache = max_cache

    def parts(self, piece: str) -> tuple[Part, ...]:
        """What a piece (white space first, then one token's worth of text) is made of."""
        found = self._parts.get(piece)
        if found is None:
            found = split_piece(piece, self.keep_whole)
            if len(self._parts) < self._max_cache:
                self._parts[piece] = found
        return found

    def tokenise(self, text: str) -> list[Token]:
        tokens: list[Token] = []
        position = 0
        for hit in detect(text):
            self._span(text, position, hit.start, tokens)
            tokens.append(Token(hit.start, hit.end, text[hit.start : hit.end], DETECTED, hit.tag))
            position = hit.end
        self._span(text, position, len(text), tokens)
        return tokens

    def _span(self, text: str, begin: int, end: int, out: list[Token]) -> None:
        for piece in PIECE.findall(text, begin, end):
            for offset, value, kind in self.parts(piece):
                out.append(Token(begin + offset, begin + offset + len(value), value, kind))
            begin += len(piece)


def tokenise(text: str, keep_whole: Container[str] = frozenset()) -> list[Token]:
    """Tokens of `text` in order. `keep_whole` holds the lower-case words with an apostrophe
    that must not be split (from the lexicons: aujourd'hui, quelqu'un, prud'homme...)."""
    return Tokeniser(keep_whole).tokenise(text)


def plain_word(text: str) -> str | None:
    """The word of `text` when it is white space, then letters only (most new spellings), neither
    an emoticon (xD, oo) nor an emoji: PIECE leaves such a text whole, and split_piece reads it
    as one WORD. None for any other text."""
    value = text.lstrip()
    return value if is_plain(value) else None


# What a plain word does not start with: an emoticon's first letter (xD, oo), or a character from
# where the emoji ranges begin (U+2600; before, but for the joiner and a variation selector, no letters).
_EMOTICON_FIRSTS = "xXoO"
_EMOJI_START = "\u2600"


def is_plain(value: str) -> bool:
    """Whether `value` (no white space before it) is a word plain_word takes: letters only,
    neither an emoticon's first letter (xD, oo) nor an emoji."""
    return value.isalpha() and value[0] not in _EMOTICON_FIRSTS and value[0] < _EMOJI_START


def are_plain(values: list[str]) -> list[bool]:
    """[is_plain(value) for value in values]: which are letters only, then the first character
    of those read as code points, all at once."""
    alpha = np.fromiter(map(str.isalpha, values), dtype=bool, count=len(values))
    firsts = np.frombuffer("".join(map(operator.itemgetter(0), itertools.compress(values, alpha.tolist())))
                           .encode("utf-32-le"), dtype="<u4")
    alpha[alpha] = (firsts < ord(_EMOJI_START)) & ~np.isin(firsts, [ord(char) for char in _EMOTICON_FIRSTS])
    return alpha.tolist()


def split_piece(piece: str, keep_whole: Container[str]) -> tuple[Part, ...]:
    """What a piece (white space first, then one token's worth of text) is made of."""
    value = plain_word(piece)
    if value is not None:
        return ((len(piece) - len(value), value, WORD),)
    found = _KIND.fullmatch(piece)
    if found is None:
        start = len(piece) - len(piece.lstrip())
        return ((start, piece[start:], PUNCT),)
    kind = found.lastgroup
    start = found.start(kind)
    value = piece[start:]
    if kind != WORD:
        return ((start, value, kind),)
    if "'" not in value and "’" not in value:  # most words: nothing elided, no possessive, no quote
        return ((start, value, NUMBER if value[:1].isdigit() and _NUMBER.fullmatch(value) else WORD),)
    out: list[Part] = []
    start, value = _split_elisions(start, value, keep_whole, out)
    if len(value) > 3 and value[-1:] in "sS" and value[-2:-1] in "'’" and value[:-2].isalpha() \
            and value.lower().replace("’", "'") not in keep_whole:
        # An English possessive (Lucie's): the name, then 's.
        return (*out, (start, value[:-2], WORD), (start + len(value) - 2, value[-2:], PUNCT))
    closing = ""
    if value[-1:] in "'’" and len(value) > 1 and value[:-1].lower() not in ELIDED \
            and value.lower().replace("’", "'") not in keep_whole:
        # An apostrophe that ends a word which elides nothing closes a quote ('Marie') or marks
        # a word cut short (à tout', occas'): punctuation, not part of the word.
        value, closing = value[:-1], value[-1]
    number = value[:1].isdigit() and _NUMBER.fullmatch(value)
    out.append((start, value, NUMBER if number else WORD))
    if closing:
        out.append((start + len(value), closing, PUNCT))
    return tuple(out)


def _split_elisions(start: int, word: str, keep_whole: Container[str], out: list[Part]) -> tuple[int, str]:
    """j'arrive -> j' + arrive; aujourd'hui stays whole; qu'il -> qu' + il."""
    # Positions instead of slices of the rest: a pasted "l'l'l'..." of a megabyte would
    # otherwise cost the square of its length.
    position = 0
    while True:
        match = _APOSTROPHE.search(word, position)
        if match is None or match.end() == len(word):
            break
        if len(word) - position <= KEEP_WHOLE_MAX_LENGTH and word[position:].lower().replace("’", "'") in keep_whole:
            break
        if match.start() - position > _LONGEST_ELIDED or word[position : match.start()].lower() not in ELIDED:
            break
        cut = match.end()
        out.append((start + position, word[position:cut], WORD))
        position = cut
    return start + position, word[position:]
