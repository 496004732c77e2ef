"""Why a human should look at a word: the words of a classified message to look at (the
words Seek&Hide highlighted and the items it hid), located in the text, and the reason for each.

The review page shows `reasons` (plain words, by the word as written); the expert queue
(triage.queue) writes `reason` of each word in its `why` column, `spots` as its `look_at`
words and its page's marks.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache
from typing import NamedTuple, Protocol

from triage.lexicons import PERSON_CUES, spelling_key
from triage.schema import AMBIGUOUS, DICTIONARY, NAME_TAGS, NTA, TAG_WORDS, UNKNOWN
from triage.seekhide import GUESS_RULES, SeekAndHide

__all__ = ["Row", "Spot", "label_words", "reason", "reasons", "spots", "unique", "word_key", "word_pattern"]


class Row(Protocol):
    """What the reasons read of a classified row (triage.queue.ClassifiedRow is one)."""

    text: str
    model: str  # the learnt model's label, TA or NTA
    hidden: list[tuple[int, int, str]]  # (start, end, tag) of what Seek&Hide hid
    highlighted: list[str]  # the words Seek&Hide highlighted, as written


class Spot(NamedTuple):
    """A word (or detected item) the expert should look at, located in the text."""

    start: int  # -1 when a highlighted word could not be found in the text
    end: int
    text: str  # as written
    tag: str  # '' for a highlighted (ambiguous / unknown) word, else the tag Seek&Hide hid it with



@lru_cache(maxsize=4096)
def word_pattern(word: str) -> re.Pattern[str]:
    """`word` as a whole word (not inside a longer word), any case, both apostrophes alike."""
    body = "".join("['’]" if c in "'’" else re.escape(c) for c in word)
    return re.compile(rf"(?<![^\W_]){body}(?![^\W_])", re.IGNORECASE)


def _find_word(text: str, word: str, position: int) -> int:
    """Offset of `word` as a whole word (exact case) from `position`, or -1. str.find with
    a boundary check: compiling a pattern per highlighted word would cost more."""
    if not word:
        return -1
    while (start := text.find(word, position)) >= 0:
        end = start + len(word)
        if not (start and text[start - 1].isalnum()) and not (end < len(text) and text[end].isalnum()):
            return start
        position = start + 1
    return -1


def spots(row: Row, *, all_hidden: bool = False) -> list[Spot]:
    """What the expert should look at, in text order: the highlighted words, plus the
    items Seek&Hide hid when the model says NTA (where the two disagree), or every hidden
    item with `all_hidden`. The highlighted words are located in order of appearance."""
    text = row.text
    found: list[Spot] = []
    position = 0
    for word in row.highlighted:
        start = _find_word(text, word, position)
        if start < 0:
            start = _find_word(text, word, 0)  # out of order: the file was edited by hand
        if start < 0:
            found.append(Spot(-1, -1, word, ""))
            continue
        position = start + len(word)
        found.append(Spot(start, position, word, ""))
    if all_hidden or row.model == NTA:
        found += [Spot(start, end, text[start:end], tag) for start, end, tag in row.hidden]
    found.sort(key=lambda s: (s.start < 0, s.start, s.end))  # not found: last
    return found


def word_key(word: str) -> str:
    """A word as the lexicon files store it."""
    return spelling_key(word).strip()


def unique(items: Iterable[Spot]) -> list[Spot]:
    """The first spot of each word, in order (words compared as the lexicons store them)."""
    seen: set[str] = set()
    out: list[Spot] = []
    for spot in items:
        key = word_key(spot.text)
        if key and key not in seen:
            seen.add(key)
            out.append(spot)
    return out


def label_words(spotted: Iterable[Iterable[Spot]], seeker: SeekAndHide) -> None:
    """Label at once every word that `reason` asks Seek&Hide about, of these lists of spots
    (WordLabeller.label_many: the labels label_word gives one word at a time, which it then answers
    from memory)."""
    seeker.label_many(spot.text for spots_ in spotted for spot in spots_ if not spot.tag or spot.tag in NAME_TAGS)


def reason(spot: Spot, seeker: SeekAndHide) -> str | None:
    """Why Seek&Hide flagged this word, or None for an ordinary word."""
    word = spot.text
    lexicons = seeker.lexicons
    if spot.tag and spot.tag not in NAME_TAGS:
        return f"'{word}' {TAG_WORDS.get(spot.tag, spot.tag)}"
    info = seeker.label_word(word)
    if info.label == DICTIONARY and (spot.tag or not info.weak):
        if info.match in lexicons.user_names:
            return f"'{word}' in your names list"
        shown_as = f" (as '{info.match}')" if info.match != word_key(word) else ""
        return f"'{word}' {_name_kind(lexicons, info.match)} dictionary{shown_as}"
    if spot.tag:  # hidden by context (after a title) or with other lexicons
        return f"'{word}' hidden as a {TAG_WORDS[spot.tag]}"
    capitalised = ", capitalised" if word[:1].isupper() else ""
    if info.label == AMBIGUOUS:
        return f"'{word}' is a name and a word"
    if info.label == UNKNOWN:
        return f"'{word}' unknown{capitalised}"
    if info.label == DICTIONARY:  # a weak name read as unknown in its context
        also = "a rare first name" if _name_kind(lexicons, info.match) == "first-name" else "a surname"
        return f"'{word}' unknown{capitalised} (also {also})"
    if info.rule in GUESS_RULES:  # an ordinary word only by a guess, highlighted for its capital
        return f"'{word}' unknown{capitalised} (close to '{info.match}')"
    if word[:1].isupper():  # highlighted by the name scorer although the lexicons know it
        return f"'{word}' ordinary word, but flagged by the name scorer"
    return None  # ANTI_DICTIONARY: an ordinary word (or the lexicons learnt it since)


def _name_kind(lexicons, match: str) -> str:
    """Which list of names holds a dictionary match: "first-name" or "surname"."""
    return "first-name" if lexicons.name_entry(match).tag == "PRE" else "surname"


_PLAIN_REASONS = (
    ("surname dictionary", "in the surname list"),
    ("first-name dictionary", "in the first-name list"),
    ("ordinary word, but flagged by the name scorer", "an ordinary word, but the name scorer finds it name-like"),
    ("unknown", "in no list"),
)


def _plain(spot: Spot, why: str | None) -> str | None:
    """A reason in plain words, without the word it is about (the page shows the word beside it)."""
    if why is None:
        return None
    prefix = f"'{spot.text}' "
    why = why[len(prefix):] if why.startswith(prefix) else why
    for terse, plain in _PLAIN_REASONS:
        why = why.replace(terse, plain)
    return why


def word_before(text: str, end: int) -> str | None:
    r"""The last word of `text[:end]` when only punctuation or space follow it (a cue before a
    highlighted word), as `([^\W\d_]+['’]?)\W*$` searched in `text[:end]` finds it: read backwards
    from `end`, as far back as that word begins (a letter is a word character but a decimal digit
    or an underscore, as in the pattern)."""
    at = end
    while at and not text[at - 1].isalnum() and text[at - 1] != "_":
        at -= 1
    if not at or text[at - 1].isdecimal() or text[at - 1] == "_":
        return None
    first = at - 1
    while first and text[first - 1].isalnum() and not text[first - 1].isdecimal():
        first -= 1
    return text[first:at + 1] if at < end and text[at] in "'’" else text[first:at]


def reasons(row: Row, seeker: SeekAndHide, spotted: list[Spot] | None = None,
            said: dict[tuple[str, str], str | None] | None = None) -> dict[str, str]:
    """Why a human should look at each word of a row, in plain words, by the word as written:
    the highlighted words and the hidden items (`spotted`: the row's spots with all_hidden, when
    the caller has them already). `said` keeps the plain reason of each word and tag across the
    rows of one call site (a word's reason depends on the word, its tag and the labels alone;
    the cue before it is the row's own)."""
    out: dict[str, str] = {}
    said = {} if said is None else said
    for spot in unique(spots(row, all_hidden=True) if spotted is None else spotted):
        key = (spot.text, spot.tag)
        if key in said:
            why = said[key]
        else:
            why = said[key] = _plain(spot, reason(spot, seeker))
        if why is None:
            continue
        if spot.start > 0 and not spot.tag:
            before = word_before(row.text, spot.start)
            if before and word_key(before) in PERSON_CUES:
                why += f", after '{before}' (a name often follows)"
        out[spot.text] = why
    return out
