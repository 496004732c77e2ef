"""An SMS-aware tokeniser that keeps character offsets.

The paper split on spaces; SMS need more care: punctuation glued to words ("Patrice,") is
split off, elided clitics are separated ("j'arrive" -> "j'" + "arrive") unless the whole is
a word ("aujourd'hui"), and URLs, e-mails, phone numbers and emoticons stay whole.
Every token carries (start, end) offsets into the original text, so that hiding a token
never changes a character outside it.
"""

from __future__ import annotations

import re
from collections.abc import Container
from typing import NamedTuple

from triage.detectors import detect

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
)
_EMOJI = r"[\U0001F000-\U0001FAFF\u2600-\u27BF\u2B00-\u2BFF\uFE0F\u200D]+"
# Letters, digits and inner apostrophes or hyphens; a trailing apostrophe keeps "j'" whole.
_WORD = r"[^\W_]+(?:[-'’][^\W_]+)*['’]?"
_TOKEN = re.compile(f"(?P<emo>{_EMOTICON})|(?P<emoji>{_EMOJI})|(?P<word>{_WORD})|(?P<punct>[^\\w\\s]+|_+)")
_NUMBER = re.compile(
    r"\d+(?:[.,:/h-]\d+)*(?:h|min|mn|€|e|er|ere|ère|eme|ème|è|é|ans?|kg|km|m|cm|mm|g|pm|am|x)?",
    re.I,
)
# Clitics that elide before a vowel: j'ai, l'autre, qu'il, jusqu'à...
ELIDED = frozenset("j l m t s n d c ç qu jusqu lorsqu puisqu quoiqu presqu quelqu".split())
_APOSTROPHE = re.compile(r"['’]")


def _split_elisions(start: int, word: str, keep_whole: Container[str], out: list[Token]) -> None:
    """j'arrive -> j' + arrive; aujourd'hui stays whole; qu'il -> qu' + il."""
    while True:
        match = _APOSTROPHE.search(word)
        if match is None or match.end() == len(word):
            break
        if word.lower().replace("’", "'") in keep_whole:
            break
        head = word[: match.start()]
        if head.lower() not in ELIDED:
            break
        cut = match.end()
        out.append(Token(start, start + cut, word[:cut], WORD))
        start, word = start + cut, word[cut:]
    number = word[:1].isdigit() and _NUMBER.fullmatch(word)
    out.append(Token(start, start + len(word), word, NUMBER if number else WORD))


def tokenise(text: str, keep_whole: Container[str] = frozenset()) -> list[Token]:
    """Tokens of `text` in order. `keep_whole` holds the lower-case words with an apostrophe
    that must not be split (from the lexicons: aujourd'hui, quelqu'un, prud'homme...)."""
    tokens: list[Token] = []
    position = 0
    for hit in detect(text):
        _tokenise_span(text, position, hit.start, keep_whole, tokens)
        tokens.append(Token(hit.start, hit.end, text[hit.start : hit.end], DETECTED, hit.tag))
        position = hit.end
    _tokenise_span(text, position, len(text), keep_whole, tokens)
    return tokens


def _tokenise_span(text: str, begin: int, end: int, keep_whole: Container[str], out: list[Token]) -> None:
    append = out.append
    for match in _TOKEN.finditer(text, begin, end):
        kind = match.lastgroup
        start, stop = match.span()
        value = text[start:stop]
        if kind == "word":
            if "'" in value or "’" in value:
                _split_elisions(start, value, keep_whole, out)
            elif value[0].isdigit() and _NUMBER.fullmatch(value):  # numbers start with a digit
                append(Token(start, stop, value, NUMBER))
            else:
                append(Token(start, stop, value, WORD))
        elif kind == "emo":
            append(Token(start, stop, value, EMOTICON))
        elif kind == "emoji":
            append(Token(start, stop, value, EMOJI))
        else:
            append(Token(start, stop, value, PUNCT))
