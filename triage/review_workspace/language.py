"""Messages mostly in another language: the share of a message's words that the French lexicons
know as ordinary words. An English message in a French corpus has most of its words in no French
list, and each of them looks like a possible name; the review page says so, and lets the reviewer
decide such a message in one key."""

from __future__ import annotations

import re

from triage.lexicons import spelling_key

#: Words of two letters or more (digits and single letters say nothing of a language).
_WORDS = re.compile(r"[^\W\d_]{2,}(?:['’][^\W\d_]+)*")
#: A message is "mostly another language" with this many words or more, of which less than this
#: share is a French ordinary word.
MIN_WORDS = 4
FRENCH_SHARE = 0.5
#: English function words: the French lists hold many of them as spellings of their own ("the",
#: "you", "for"), so they are never counted as French.
ENGLISH = frozenset("""the you your my we our they them their he she his her it its is are was were be been
am to of for with at in and or but not this that these those what when where who how have has had do does
did will would can could should just so very thanks thank please love night last see tomorrow today""".split())


def french_share(text: str, lexicons) -> tuple[float | None, int]:
    """(share of the words that the lexicons know as French ordinary words, English function
    words left out, and the number of words);
    the share is None for a message without words."""
    words = _WORDS.findall(text)
    if not words:
        return None, 0
    known = 0
    for word in words:
        key = spelling_key(word)
        known += key not in ENGLISH and lexicons.lookup(key)[1]
    return known / len(words), len(words)


def language(text: str, lexicons) -> dict:
    """{"french_share": share or None, "words": n, "foreign": whether the message is mostly in
    another language}."""
    share, words = french_share(text, lexicons)
    foreign = share is not None and words >= MIN_WORDS and share < FRENCH_SHARE
    return {"french_share": None if share is None else round(share, 2), "words": words, "foreign": foreign}
