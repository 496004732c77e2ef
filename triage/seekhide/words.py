"""Seek&Hide's word labels (Patel et al. 2013, Table 1 and section 3.2): each spelling is looked up
in the name dictionary and the anti-dictionaries, then, when it is in neither as written, the SMS
heuristics are tried in order: accent-insensitive look-up, letter repetitions, onomatopoeia,
missing apostrophe, concatenated clitics, misspellings within one edit (never turning a name
into a word). One spelling at a time, out of context; triage.seekhide.analysis adds the context.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable
from typing import NamedTuple

from triage.errors import BadOption
from triage.lexicons import CLITICS, FIRST_NAME, ORDINARY, TITLES, Lexicons, fold, spelling_key
from triage.memory import Cache
from triage.nearwords import edits1 as _edits1  # noqa: F401  (the edit order, importable from here)
from triage.schema import AMBIGUOUS, ANTI_DICTIONARY, DICTIONARY, UNKNOWN
from triage.seekhide import steps
from triage.seekhide.rules import Rule

# The steps decided here, per spelling (listed in steps.txt; the order they are tried in is _analyse's).
steps.declare("word", "accent", "repetition", "onomatopoeia", "apostrophe", "concatenation", "misspelling",
              where=__name__)

_RUN = re.compile(r"(\w)\1+")
_SENTENCE_END = re.compile(r"[.!?…]")
# Laughter, interjections and letter-stretched exclamations (folded, lower case).
_ONOMATOPOEIA = re.compile(
    r"(?:mou|mwa|bwa|bou|gn)?(?:h+[aeiouy]+)+h*"  # haha, hihihi, mouhahaha, bwahaha
    r"|a?(?:h+a+)+|(?:a+h+)+|(?:e+h+)+|(?:o+h+)+|(?:h+e+)+|(?:h+o+)+|h+u+m+|h+m+"
    r"|(?:m+d+r+)+|(?:p+t+d+r+)+|(?:l+o+l+)+|(?:l+m+a+o+)+|x+d+|(?:r+o+f+l+)+"
    r"|p+f+|p+s+t+|b+r+|g+r+|r+o+|o+u+p+s+|o+u+f+|a+r+g+h*|a+i+e+|o+u+i+l+l+e+|w+o+u+a+h*"
    r"|y+[ea]+h*|y+e+s+|b+o+f+|z+z+|c+h+u+t+|b+a+h+|b+e+n+|e+u+h+|h+e+u+|m+o+u+a+i+s+|n+a+n+"
    r"|o+u+a+i+[sp]*|w+e+s+h+|y+o+u+p+i+|(?:r+o+|o+h*|a+|a+h+)l+a+l+a+|b+o+u+h*|m+m+h*|c+o+o+l+"
)
_VOWELS = frozenset("aeiouy")
_LAUGH_LETTERS = _VOWELS | {"h"}
# A letter stretched for emphasis: written this many times in a row.
STRETCHED = 3
# Sounds stretched for emphasis are this short once each run of a letter is read once (hannnn: han,
# ouhlaaa: ouhla, pfiouuu: pfiou); the stretched words of a list were found by the repetition step.
MAX_STRETCHED_SOUND = 5


def is_onomatopoeia(folded: str) -> bool:
    """Laughter, interjections and sounds, of any length (`folded`: lower case, no accents):
    - the interjections of _ONOMATOPOEIA (mdrrr, ptdr, lool, pfff, hmm, xD, ouf, bof...);
    - a syllable repeated, each run of a letter read once: laughter, a syllable of `h` and vowels
      twice or more (haha, Ahahaaaahahahaa, hihihi, héhé, ouhouh), after at most three letters
      (mouahahah, bwahaha); any other syllable of two or three letters three times or more
      (gogogo, lalalala, lélélélé, trololo), after at most two letters: a nickname repeats its
      syllable only once (juju, Domdom);
    - one letter written three times or more (pppp, mmmm, zzz);
    - a short sound stretched for emphasis that no list knows even without the repetition
      (hannnn, ouhlaaa, pfiouuu: the repetition step found the stretched words of the lists).
    """
    if _ONOMATOPOEIA.fullmatch(folded):
        return True
    sound = _RUN.sub(r"\1", folded)  # each run of a letter read once
    if len(sound) == 1:
        return len(folded) >= STRETCHED
    if _repeated_syllable(sound):
        return True
    return len(sound) <= MAX_STRETCHED_SOUND and _STRETCH.search(folded) is not None


_STRETCH = re.compile(rf"(\w)\1{{{STRETCHED - 1},}}")


def _repeated_syllable(sound: str) -> bool:
    """A syllable of two or three letters repeated (see is_onomatopoeia), possibly cut short at the
    end (hahah, trololo), in `sound`, a spelling with each run of a letter read once."""
    for size in (2, 3):
        for start in range(4):
            unit = sound[start : start + size]
            if len(unit) < size:
                break
            laughter = "h" in unit and set(unit) <= _LAUGH_LETTERS and bool(_VOWELS & set(unit))
            if start > (3 if laughter else 2):
                continue
            end = start
            while sound.startswith(unit, end):
                end += size
            repeats = (end - start) // size
            if repeats >= (2 if laughter else 3) and unit.startswith(sound[end:]):
                return True
    return False
# Of the clitics (dictionaries/cues/clitics.txt), those that stack when glued ("jtm" = je t'aime).
_CONCAT_CLITICS = "jtmslnc"
_VOWEL_OR_H = tuple("aeiouyhéèêàâîôû")
# Names from the surname list only, or first names rarer than this, collide with SMS spellings
# and foreign words ('kon', 'lo', 'same'): they count as names only when capitalised mid-sentence.
RARE_FIRST_NAME_RANK = 10_000

# Misspellings are looked for in words of this many letters: shorter ones are too often
# one edit from anything; the candidates of a longer one cost memory in the square of its
# length (a 16 kB "word" would take gigabytes) and no French word is that long.
MIN_MISSPELLING_LENGTH, MAX_MISSPELLING_LENGTH = 5, 40


class WordInfo(NamedTuple):
    label: str
    rule: str  # which look-up or heuristic decided: exact, accent, repetition, onomatopoeia...
    match: str  # the dictionary spelling it was matched to ('nicolas' for 'nicoooolaasss')
    weak: bool = False  # a name only through a surname or a rare first name (see words())
    title: bool = False  # Mme, Dr...: a capitalised word after it is a surname


class WordLabeller:
    """Word labels with one set of lexicons, with the steps in `off` switched off.

    Labels are cached per distinct spelling (SMS vocabularies are Zipfian), within the
    memory budget of triage.memory.
    """

    def __init__(self, lexicons: Lexicons, off: Iterable[str] = ()):
        known = steps.names()
        unknown = steps.unknown(off)
        if unknown:
            raise BadOption(f"unknown Seek&Hide step{'s' if len(unknown) > 1 else ''} "
                            f"{', '.join(map(repr, unknown))}; the steps are {', '.join(known)}")
        self.off = frozenset(off)  # the steps switched off
        self._steps = frozenset(known)
        self.lexicons = lexicons
        self._cache: dict[str, WordInfo] = Cache("labels")
        self.keep_whole = lexicons.apostrophe_words
        self._near: dict[str, list] = {}  # words one edit away of the batch's unknown spellings (label_many)

    def is_on(self, step: str) -> bool:
        """Whether the step `step` (a name of steps.txt) is on: the one check every step's code
        makes (a name that is no step is an error, not a step switched off)."""
        if step in self.off:
            return False
        if step not in self._steps:
            raise KeyError(f"no Seek&Hide step {step!r} in steps.txt")
        return True

    def label_word(self, word: str) -> WordInfo:
        info = self._cache.get(word)  # by spelling as written first: the commonest case
        if info is None:
            key = spelling_key(word)
            if key == word:  # one string for both (the label holds its key): long spellings cost half
                key = word
            info = self._cache.get(key)
            if info is None:
                info = self._analyse(key)
                if key.rstrip(".") in TITLES and self.is_on("title"):
                    info = info._replace(title=True)
            self._cache[word] = self._cache[key] = info
        return info

    def label_many(self, words: Iterable[str]) -> None:
        """Label the spellings of `words` not labelled yet (the new spellings of a batch of
        messages), so that label_word then answers them from memory.

        The labels are those of label_word, one spelling at a time; what is batched is the
        dictionary look-ups: those of every new spelling, as written and without accents,
        then those of the candidates of the SMS heuristics (repetitions, apostrophe,
        clitics), are asked of the big lists together (Lexicons.prefetch)."""
        cache = self._cache
        new = [word for word in dict.fromkeys(words) if word not in cache]
        if not new:
            return
        keys = [key for key in dict.fromkeys(map(spelling_key, new)) if key not in cache]
        lexicons = self.lexicons
        lexicons.prefetch(keys)
        candidates, unknown = [], []
        for key in keys:
            in_names, in_anti = lexicons.lookup(key)
            if not in_anti and (not in_names or self._weak_name(key)):
                folded = fold(key)
                candidates += self._heuristic_candidates(folded)
                if MIN_MISSPELLING_LENGTH <= len(folded) <= MAX_MISSPELLING_LENGTH and folded.isalpha():
                    unknown.append(folded)
        if candidates:
            lexicons.prefetch(candidates)
        if unknown and self.is_on("misspelling"):
            unknown = list(dict.fromkeys(unknown))
            self._near = dict(zip(unknown, lexicons.near_words.within_one_edit(unknown)))
        try:
            for word in new:
                self.label_word(word)
        finally:
            self._near = {}

    def _heuristic_candidates(self, folded: str) -> list[str]:
        """The spellings the repetition, apostrophe and clitic heuristics may look up for a
        folded spelling (only to ask them of the lexicons in one batch: a spelling left out
        here is looked up on its own)."""
        if not folded.isalpha():
            return []
        found = self._repetition_candidates(folded) if self.is_on("repetition") else []
        found += [folded[len(clitic):] for clitic in CLITICS if folded.startswith(clitic)]
        found += [folded[1:], folded[2:]]
        return found

    def _analyse(self, key: str) -> WordInfo:
        is_on = self.is_on
        in_names, in_anti = self.lexicons.lookup(key)
        if in_names and not in_anti and self._weak_name(key) and key.isalpha() and is_on("apostrophe"):
            # A rare surname that reads as a glued clitic + word: lecole = l'école.
            found = self._apostrophe(fold(key))
            if found:
                return found
        if in_names or in_anti:
            lx = self.lexicons  # the sets before the word lists: they answer faster
            rule = Rule.EXACT if (key in lx.other_anti or key in lx.first_names or key in lx.user_names
                                  or key in lx.user_words or key in lx.forms or key in lx.last_names) else Rule.ACCENT
            if in_anti and not in_names and is_on("onomatopoeia") and key not in lx.user_words \
                    and is_onomatopoeia(fold(key)):
                # Laughter a list holds (Héhé, Mouahaha) is laughter too: never a name, even capitalised.
                return WordInfo(ANTI_DICTIONARY, Rule.ONOMATOPOEIA, key)
            if rule == Rule.EXACT or is_on("accent"):
                return WordInfo(_label(in_names, in_anti), rule, key, in_names and self._weak_name(key))
        if "-" in key:
            return WordInfo(UNKNOWN, Rule.COMPOUND, key)  # labelled part by part by the caller
        folded = fold(key)
        if not folded or not folded.isalpha():
            return WordInfo(UNKNOWN, Rule.NONE, key)
        found = (is_on("repetition") and self._repetitions(folded)) \
            or (is_on("onomatopoeia") and is_onomatopoeia(folded) and WordInfo(ANTI_DICTIONARY, Rule.ONOMATOPOEIA, key)) \
            or (is_on("apostrophe") and self._apostrophe(folded)) \
            or (is_on("concatenation") and self._concatenation(folded)) \
            or (is_on("misspelling") and self._misspelling(folded))
        return found or WordInfo(UNKNOWN, Rule.NONE, key)

    def _repetitions(self, folded: str) -> WordInfo | None:
        """nicoooolaasss -> nicolas, merciiii -> merci: each run of a repeated letter is
        tried with one and with two letters."""
        names = anti = False
        match = ""
        for candidate in self._repetition_candidates(folded):
            in_names, in_anti = self.lexicons.lookup(candidate)
            if in_names or in_anti:
                names, anti, match = names or in_names, anti or in_anti, match or candidate
        if names or anti:
            return WordInfo(_label(names, anti), Rule.REPETITION, match, names and self._weak_name(match))
        return None

    @staticmethod
    def _repetition_candidates(folded: str) -> list[str]:
        """Each run of a repeated letter with one and with two letters, in a fixed order."""
        runs = [m for m in _RUN.finditer(folded)]
        if not runs or len(runs) > 5:
            return []
        found = []
        for choice in itertools.product((1, 2), repeat=len(runs)):
            parts, last = [], 0
            for run, keep in zip(runs, choice):
                parts.append(folded[last : run.start()] + run.group(1) * keep)
                last = run.end()
            candidate = "".join(parts) + folded[last:]
            if candidate != folded:
                found.append(candidate)
        return found

    def _weak_name(self, key: str) -> bool:
        lexicons = self.lexicons
        if key in lexicons.user_names:
            return False
        if key not in lexicons.first_names and key not in lexicons.last_names:
            key = lexicons.folded_names.get(fold(key), fold(key))
        rank = lexicons.first_name_ranks.get(key)
        return rank is None or rank > RARE_FIRST_NAME_RANK

    def _ordinary_only(self, key: str) -> bool:
        in_names, in_anti = self.lexicons.lookup(key)
        if not in_names and not in_anti and _RUN.search(key):
            found = self._repetitions(key)
            return found is not None and found.label == ANTI_DICTIONARY
        return in_anti and not in_names

    def _apostrophe(self, folded: str) -> WordInfo | None:
        """jexplique -> j'explique, larrivee -> l'arrivée, quil -> qu'il."""
        for clitic in sorted(CLITICS):
            rest = folded[len(clitic) :]
            if folded.startswith(clitic) and len(rest) >= 2 and rest.startswith(_VOWEL_OR_H):
                if self._ordinary_only(rest):
                    return WordInfo(ANTI_DICTIONARY, Rule.APOSTROPHE, f"{clitic}'{rest}")
        return None

    def _concatenation(self, folded: str) -> WordInfo | None:
        """jtaime -> je t'aime, jsuis -> je suis, jlai -> je l'ai: one or two glued clitics."""
        for size in (2, 1):
            head, rest = folded[:size], folded[size:]
            if len(rest) >= 2 and all(c in _CONCAT_CLITICS for c in head) and self._ordinary_only(rest):
                return WordInfo(ANTI_DICTIONARY, Rule.CONCATENATION, f"{' '.join(head)} {rest}")
        return None

    def _misspelling(self, folded: str) -> WordInfo | None:
        """One edit away from an ordinary word (surment -> sûrement). A word one edit away
        from a first name is never corrected into an ordinary word."""
        if not MIN_MISSPELLING_LENGTH <= len(folded) <= MAX_MISSPELLING_LENGTH:
            return None
        near = self._near.get(folded)
        if near is None:
            near = self.lexicons.near_words.within_one_edit([folded])[0]
        if any(flags & FIRST_NAME for _, _, flags in near):
            return None
        near_word = next((word for _, word, flags in near if flags & ORDINARY), None)
        return near_word and WordInfo(ANTI_DICTIONARY, Rule.MISSPELLING, near_word)


def _label(in_names: bool, in_anti: bool) -> str:
    if in_names and in_anti:
        return AMBIGUOUS
    if in_names:
        return DICTIONARY
    return ANTI_DICTIONARY if in_anti else UNKNOWN
