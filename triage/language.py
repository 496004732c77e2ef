"""Messages written mostly in another language than French: one estimate, used by the review page
(a badge, and one key to decide such a message) and by the datasheet (how many released messages are
mostly French).

In each message, the words the French lexicons know as ordinary words are weighed against frequent
English and Spanish words (OTHER_WORDS) and the words no list knows, counted half (SMS spellings are
often unknown); names and numbers are left out, and a word with a letter repeated ("bieeeen") is
looked up without the repetition. A message is French when its French words outnumber the others."""

from __future__ import annotations

import re
from collections import Counter
from typing import NamedTuple

from triage.lexicons import spelling_key

#: Frequent English (and Spanish) words that are no French words. The French lists hold some of them as
#: spellings of their own ("the", "you", "for"): here they always count as another language.
OTHER_WORDS = frozenset("""
the you your yours and is are was were be been being have has had does did don't doesn't didn't i'm you're
it's that's what's i i'll i've we're they're can't won't what when where who why how this that these those
with from of to in at it my we they she his her our their will would could should just know love see get
going got good time today tonight tomorrow yesterday yes yeah thanks thank please hello morning night now
here there not so all about out up back coming want need think really call work later soon well some one
too very much happy day week like make say said tell let because wanna gonna miss you'll sorry girl boy
for birthday talk friends last them am do can its he our hola gracias quiero mucho pero muy bueno buenas
vamos donde porque tengo tiene hay hasta luego manana mañana nada todo yo eres soy estoy ahora cuando amiga
playa besos
""".split())
#: A message is flagged as mostly in another language only with at least this many words.
MIN_WORDS = 4
METHOD = ("words the French lexicons know as ordinary words against frequent English and Spanish words and "
          "unknown words (counted half, letter repetitions set aside), per message, French when its French words "
          "outnumber them; names and numbers left out; a rough estimate")

_WORDS = re.compile(r"[^\W\d_]+(?:'[^\W\d_]+)?")
_REPEATS = re.compile(r"(.)\1{2,}")


class Words(NamedTuple):
    """A message's words: French ordinary words, words of another language, words no list knows."""
    french: int
    other: int
    unknown: int

    @property
    def total(self) -> int:
        return self.french + self.other + self.unknown

    @property
    def french_first(self) -> bool:
        return self.french > self.other + self.unknown / 2


def words(text: str, lexicons) -> Words:
    """Count a message's words by language (names and numbers left out)."""
    french = other = unknown = 0
    for word in _WORDS.findall(text.replace("’", "'")):
        key = spelling_key(word)
        if key in OTHER_WORDS:
            other += 1
            continue
        name, ordinary = lexicons.lookup(key)
        if not (name or ordinary) and _REPEATS.search(key):  # "bieeeen", "merciiii": the word without them
            for shorter in (_REPEATS.sub(r"\1", key), _REPEATS.sub(r"\1\1", key)):
                name, ordinary = lexicons.lookup(shorter)
                if name or ordinary:
                    break
        if ordinary:
            french += 1
        elif not name:
            unknown += 1
    return Words(french, other, unknown)


def language(text: str, lexicons) -> dict:
    """{"french_share": the share of its words that are French (None without words), "words": n,
    "foreign": whether the message is mostly in another language (and long enough to say)}."""
    found = words(text, lexicons)
    share = found.french / found.total if found.total else None
    foreign = found.total >= MIN_WORDS and not found.french_first
    return {"french_share": None if share is None else round(share, 2), "words": found.total, "foreign": foreign}


def message_languages(texts, lexicons=None) -> dict:
    """How many messages are mostly French, mostly another language, or undetermined (no word)."""
    if lexicons is None:
        from triage import lexicons as lexicon_module

        lexicons = lexicon_module.default()
    counts = Counter()
    for text in texts:
        found = words(text, lexicons)
        counts["undetermined" if not found.total else "french" if found.french_first else "other"] += 1
    return {"mostly_french": counts["french"], "mostly_other": counts["other"],
            "undetermined": counts["undetermined"], "method": METHOD}
