"""Messages written mostly in another language than French: one estimate, used by the review page
(a badge, and one key to decide such a message), by the datasheet (how many released messages are
mostly French) and by Seek&Hide's step other-language (which reads the words of such a message that
no French list knows as words of that language).

In each message, the words the French lexicons know as ordinary words are weighed against frequent
words of other languages (English, Spanish, Italian, Portuguese, German, Arabic in Latin letters:
triage.seekhide.foreign.OTHER_WORDS) and the words no list knows, counted half (SMS spellings are
often unknown); names and numbers are left out, and a word with a letter repeated ("bieeeen") is
looked up without the repetition. A message is mostly in another language when it has at least
MIN_WORDS words, at least MIN_OTHER_WORDS words of another language, and the others outnumber its
French words (a tie is French)."""

from __future__ import annotations

import itertools
import re
from collections import Counter
from typing import NamedTuple

from triage.seekhide import foreign
from triage.seekhide.foreign import MIN_OTHER_WORDS, MIN_WORDS, OTHER_WORDS  # noqa: F401  (importable from here)

METHOD = ("words the French lexicons know as ordinary words against frequent words of other languages (at least "
          f"{MIN_OTHER_WORDS}) and unknown words (counted half, letter repetitions set aside), per message, French "
          "unless they outnumber its French words; names and numbers left out; a rough estimate")

_WORDS = re.compile(r"[^\W\d_]+(?:'[^\W\d_]+)?")
# message_languages: the messages read at once, and the distinct words whose class it keeps for the
# next ones, at most (about 15 MB: the first met, which in a corpus are most often its commonest).
PART_MESSAGES = 5_000
CLASSES_KEPT = 100_000


class Words(NamedTuple):
    """A message's words: French ordinary words, words of another language, words no list knows."""
    french: int
    other: int
    unknown: int

    @classmethod
    def counted(cls, classes) -> Words:
        """The Words of a message whose words have these classes (foreign.word_class of each)."""
        found = Counter(classes)
        return cls(found[foreign.FRENCH], found[foreign.OTHER], found[foreign.UNKNOWN])

    @property
    def total(self) -> int:
        return self.french + self.other + self.unknown

    @property
    def french_first(self) -> bool:
        return foreign.french_first(*self)

    @property
    def mostly_other(self) -> bool:
        return foreign.mostly_other(*self)


def words(text: str, lexicons) -> Words:
    """Count a message's words by language (names and numbers left out)."""
    return Words.counted(foreign.word_class(foreign.key_of(word), lexicons)
                         for word in _WORDS.findall(text.replace("’", "'")))


def language(text: str, lexicons) -> dict:
    """{"french_share": the share of its words that are French (None without words), "words": n,
    "foreign": whether the message is mostly in another language (and long enough to say)}."""
    found = words(text, lexicons)
    share = found.french / found.total if found.total else None
    return {"french_share": None if share is None else round(share, 2), "words": found.total,
            "foreign": found.mostly_other}


def message_languages(texts, lexicons=None) -> dict:
    """How many messages are mostly French, mostly another language, or undetermined (no word).
    The messages are read in parts of PART_MESSAGES: the words of a part that are new to the
    estimate are looked up at once (foreign.word_classes), and the class of the first
    CLASSES_KEPT distinct words is kept for the next parts."""
    if lexicons is None:
        from triage import lexicons as lexicon_module

        lexicons = lexicon_module.default()
    counts, classes = Counter(), {}
    texts = iter(texts)
    while part := list(itertools.islice(texts, PART_MESSAGES)):
        found = [_WORDS.findall(text.replace("’", "'")) for text in part]
        new = [word for word in dict.fromkeys(itertools.chain.from_iterable(found)) if word not in classes]
        learnt = dict(zip(new, foreign.word_classes([foreign.key_of(word) for word in new], lexicons)))
        for words_of in found:
            message = Words.counted(classes[word] if word in classes else learnt[word] for word in words_of)
            counts["undetermined" if not message.total else "other" if message.mostly_other else "french"] += 1
        classes.update(itertools.islice(learnt.items(), max(0, CLASSES_KEPT - len(classes))))
    return {"mostly_french": counts["french"], "mostly_other": counts["other"],
            "undetermined": counts["undetermined"], "method": METHOD}
