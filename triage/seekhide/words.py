"""Seek&Hide's word labels (Patel et al. 2013, Table 1 and section 3.2): each spelling is looked up
in the name dictionary and the anti-dictionaries, then, when it is in neither as written, the SMS
heuristics are tried in order: accent-insensitive look-up, letter repetitions, onomatopoeia,
missing apostrophe, concatenated clitics, misspellings within one edit (never turning a name
into a word). One spelling at a time, out of context; triage.seekhide.analysis adds the context.
"""

from __future__ import annotations

import itertools
import operator
import re
from collections.abc import Iterable
from typing import NamedTuple

from triage.errors import BadOption
import numpy as np

from triage.lexicons import CLITICS, FIRST_NAME, NO_RANK, ORDINARY, TITLES, Lexicons, Looked, fold, spelling_key
from triage.pipeline.memory import Cache
from triage.lexicons.nearwords import edits1 as _edits1  # noqa: F401  (the edit order, importable from here)
from triage.schema import AMBIGUOUS, ANTI_DICTIONARY, DICTIONARY, UNKNOWN
from triage.seekhide import steps
from triage.seekhide.rules import Rule
from triage.seekhide.spelling_batch import fold_many, searched, spelling_keys

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


def _by_first_letter(pattern: str) -> str:
    """`pattern`, an alternation, with its alternatives grouped by the characters a match of each
    may start with, each group behind a look-ahead of its character: the same language, but a
    spelling is only tried against the alternatives that may start as it does (a regular
    expression tries an alternation's members one by one). `pattern` itself when the start of
    one of its members is not a character or a set of characters."""
    try:  # the parser of re itself, which is not public: without it, the pattern as it is
        from re import _constants as sre, _parser as parser
    except ImportError:
        return pattern

    def starts(items) -> tuple[set[str], bool]:  # (first characters, may match nothing)
        found = set()
        for op, av in items:
            if op is sre.LITERAL:
                first, empty = {chr(av)}, False
            elif op is sre.IN and all(o is sre.LITERAL for o, _ in av):
                first, empty = {chr(a) for _, a in av}, False
            elif op is sre.MAX_REPEAT:
                first, empty = starts(av[2])
                empty = empty or av[0] == 0
            elif op is sre.SUBPATTERN:
                first, empty = starts(av[-1])
            elif op is sre.BRANCH:
                first, empty = set(), False
                for member in av[1]:
                    more, may = starts(member)
                    first, empty = first | more, empty or may
            else:
                raise ValueError(op)
            found |= first
            if not empty:
                return found, False
        return found, True

    parsed = parser.parse(pattern).data
    members, depth, in_set, text = [], 0, False, ""
    for char in pattern:  # the members' own text: split at the |s outside any group or set
        if in_set:
            in_set = char != "]"
        elif char == "[":
            in_set = True
        else:
            depth += (char == "(") - (char == ")")
        if char == "|" and depth == 0 and not in_set:
            members.append(text)
            text = ""
        else:
            text += char
    members.append(text)
    if len(parsed) != 1 or parsed[0][0] is not sre.BRANCH or len(parsed[0][1][1]) != len(members) \
            or "\\" in pattern or "[]" in pattern or "[^" in pattern:
        return pattern
    groups: dict[str, list[str]] = {}
    try:
        for member, items in zip(members, parsed[0][1][1]):
            first, empty = starts(items)
            if empty:
                return pattern
            for char in first:
                groups.setdefault(char, []).append(member)
    except ValueError:
        return pattern
    return "|".join(f"(?={re.escape(char)})(?:{'|'.join(group)})" for char, group in sorted(groups.items()))


# is_onomatopoeia's tests over spellings joined by newlines (which none of them crosses):
# whole lines of _ONOMATOPOEIA, and lines whose sound (each run of a letter read once) holds a
# unit of two or three characters, starting at one of its first four, twice in a row, as any
# repeated syllable does (_repeated_syllable then decides). The whole lines are looked for with
# the alternatives grouped by first letter (_by_first_letter): each line is tried against a few.
_ONOMATOPOEIA_LINES = re.compile(rf"^(?:{_by_first_letter(_ONOMATOPOEIA.pattern)})$", re.MULTILINE)
_TWICE_LINES = re.compile(r"^[^\n]{0,3}([^\n]{2,3})\1", re.MULTILINE)


def onomatopoeia_many(folded: list[str]) -> list[bool]:
    """[is_onomatopoeia(spelling) for spelling in folded], with the regular expressions run
    once over the spellings joined by newlines (each spelling on its own when one holds a
    newline), and the runs of a letter found as column operations over them (_runs). Only the spellings one of them finds are then looked at one by one: a sound of
    one letter written three times or more, and any sound stretched, hold a letter three
    times in a row (_STRETCH)."""
    joined = "\n".join(folded)
    if not folded or joined.count("\n") != len(folded) - 1:
        return [is_onomatopoeia(spelling) for spelling in folded]
    joined_sounds, stretches = _runs(joined)  # each run of a letter read once
    sounds = joined_sounds.split("\n")
    starts = _starts(folded)
    whole = _lines(_ONOMATOPOEIA_LINES, joined, starts)
    twice = _lines(_TWICE_LINES, joined_sounds, _starts(sounds))
    stretched = set((np.searchsorted(starts, stretches, side="right") - 1).tolist())  # the lines _STRETCH matches
    found = [False] * len(folded)
    for index in whole:
        found[index] = True
    for index in (twice | stretched) - whole:
        sound = sounds[index]
        if len(sound) == 1:
            found[index] = len(folded[index]) >= STRETCHED
        elif index in twice and _repeated_syllable(sound):
            found[index] = True
        else:
            found[index] = len(sound) <= MAX_STRETCHED_SOUND and index in stretched
    return found


def _starts(lines: list[str]) -> np.ndarray:
    """Where each of the `lines` starts in the lines joined by newlines."""
    starts = np.zeros(len(lines), dtype=np.int64)
    if len(lines) > 1:
        np.cumsum(np.fromiter(map(len, lines), dtype=np.int64, count=len(lines))[:-1] + 1, out=starts[1:])
    return starts


def _runs(text: str) -> tuple[str, np.ndarray]:
    """`text` with each run of a word character read once (what _RUN.sub makes of it, each match
    replaced by its first group), and where in `text` a word character is written for the
    STRETCHED-th time in a row or more (within each match of _STRETCH), as column operations
    over the code points (_repeated)."""
    codes = _code_points(text)
    again = _repeated(codes)
    if not len(again):
        return text, again
    repeated = np.zeros(len(codes), dtype=bool)
    repeated[again] = True
    sounds = codes[~repeated].tobytes().decode("utf-32-le", "surrogatepass")
    stretched = again
    for back in range(1, STRETCHED - 1):
        stretched = stretched[repeated[stretched - back]]
    return sounds, stretched


def _code_points(text: str) -> np.ndarray:
    return np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)


def _repeated(codes: np.ndarray) -> np.ndarray:
    """Where a word character (\\w: what str.isalnum() says, and the underscore) is written as the
    one before it, in a text of code points `codes` (_code_points): the second letter of each
    run of _RUN and the ones after it."""
    again = np.flatnonzero(codes[1:] == codes[:-1]) + 1
    if len(again):
        distinct, inverse = np.unique(codes[again], return_inverse=True)
        word = np.array([chr(code).isalnum() or code == 95 for code in distinct.tolist()], dtype=bool)
        again = again[word[inverse]]
    return again


def _with_runs(texts: list[str]) -> np.ndarray:
    """[bool(_RUN.search(text)) for text in texts] as a bool array: the runs of the texts joined
    by newlines found as column operations (_repeated); searched() when a text holds a newline."""
    joined = "\n".join(texts)
    if joined.count("\n") != len(texts) - 1:
        return searched(_RUN, texts)
    found = np.zeros(len(texts), dtype=bool)
    found[np.searchsorted(_starts(texts), _repeated(_code_points(joined)), side="right") - 1] = True
    return found


def _lines(pattern: re.Pattern, joined: str, starts: np.ndarray) -> set[int]:
    """The indexes of the lines (joined by newlines in `joined`, starting at `starts`) where a
    match of `pattern` (which never crosses a newline) starts."""
    at = [match.start() for match in pattern.finditer(joined)]
    return set((np.searchsorted(starts, at, side="right") - 1).tolist())


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
# The heads of one or two glued clitics.
_CONCAT_HEADS = frozenset(_CONCAT_CLITICS) | {first + second for first in _CONCAT_CLITICS for second in _CONCAT_CLITICS}
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
    memory budget of triage.pipeline.memory.
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
        # The misspelling heuristic's correction of the batch's unknown spellings, or None (label_many).
        self._near: dict[str, str | None] = {}
        # The SMS heuristics of one spelling, asking the lists about each candidate as it comes.
        self._readings = _Readings(self._answer, self._repetition_candidates, _elisions, _glued,
                                   self._heuristic_steps(), is_onomatopoeia)

    def is_on(self, step: str) -> bool:
        """Whether the step `step` (a name of steps.txt) is on: the one check every step's code
        makes (a name that is no step is an error, not a step switched off)."""
        if step in self.off:
            return False
        if step not in self._steps:
            raise KeyError(f"no Seek&Hide step {step!r} in steps.txt")
        return True

    def _heuristic_steps(self) -> tuple[bool, ...]:
        """Whether the steps repetition, onomatopoeia, apostrophe and concatenation are on."""
        return tuple(map(self.is_on, ("repetition", "onomatopoeia", "apostrophe", "concatenation")))

    def _answer(self, candidate: str) -> tuple[bool, bool, bool]:
        """What the SMS heuristics ask the lists about a candidate: (is a name, is an ordinary
        word, weak: _weak_name)."""
        return (*self.lexicons.lookup(candidate), self._weak_name(candidate))

    @property
    def labelled(self) -> dict[str, WordInfo]:
        """The labels worked out so far, by spelling (and by key): what label_word answers
        from memory."""
        return self._cache

    def label_word(self, word: str) -> WordInfo:
        info = self._cache.get(word)  # by spelling as written first: the commonest case
        if info is None:
            key = spelling_key(word)
            if key == word:  # one string for both (the label holds its key): long spellings cost half
                key = word
            info = self._cache.get(key)
            if info is None:
                info = self._titled(key, self._analyse(key))
            self._cache[word] = self._cache[key] = info
        return info

    def _titled(self, key: str, info: WordInfo) -> WordInfo:
        """The label of `key` out of context, with its title flag (Mme, Dr.: the step title)."""
        if key.rstrip(".") in TITLES and self.is_on("title"):
            return info._replace(title=True)
        return info

    def label_many(self, words: Iterable[str]) -> None:
        """Label the spellings of `words` not labelled yet (the new spellings of a batch of
        messages), so that label_word then answers them from memory.

        The labels are those of label_word, one spelling at a time, worked out as column
        operations: the keys and accent-folded keys of all the new spellings at once
        (triage.seekhide.spelling_batch), the look-ups of the lists as one sorted search per list
        (Lexicons.lookup_many), and _analyse's decision for a spelling the lists know as
        array expressions (decide_listed). The spellings left to the SMS heuristics go through
        decide_left, which asks the lists about every heuristic's candidates at once, and the
        words one edit away are found together for the spellings that only the misspelling
        heuristic, the last, may still read."""
        cache = self._cache
        new = list(itertools.filterfalse(cache.__contains__, dict.fromkeys(words)))
        if not new:
            return
        # One string for a word and its key when they are equal (label_word's sharing).
        new_keys = [word if key == word else key for key, word in zip(spelling_keys(new), new)]
        keys = list(itertools.filterfalse(cache.__contains__, dict.fromkeys(new_keys)))
        folded = fold_many(keys)
        looked = self.lexicons.lookup_many(keys, folded)
        infos, left = self.decide_listed(keys, folded, looked)
        # The spellings only the misspelling heuristic may still read (the other heuristics found
        # nothing), by key with their folded spelling: their words one edit away are found together.
        waiting = self.decide_left(keys, folded, looked, left, infos)
        if waiting:
            misspelling = self.is_on("misspelling")
            if misspelling:
                near = [f for f in dict.fromkeys(waiting.values())
                        if MIN_MISSPELLING_LENGTH <= len(f) <= MAX_MISSPELLING_LENGTH and f.isalpha()]
                self._near = dict(zip(near, self.lexicons.near_words.corrections(near, ORDINARY, FIRST_NAME)))
            try:
                for key, folded_key in waiting.items():
                    found = misspelling and self._misspelling(folded_key)
                    infos[key] = self._titled(key, found or WordInfo(UNKNOWN, Rule.NONE, key))
            finally:
                self._near = {}
        labels = list(map(infos.get, new_keys))  # labelled now, or (None) a key labelled before
        if None in labels:
            for at in [at for at, info in enumerate(labels) if info is None]:
                labels[at] = cache[new_keys[at]]
        cache.update(zip(new, labels))
        # The keys that are not their spelling itself (most are: the same string object).
        cache.update(itertools.compress(zip(new_keys, labels), map(operator.is_not, new_keys, new)))

    def decide_left(self, keys: list[str], folded: list[str], looked: Looked, left: list[int],
                    infos: dict[str, WordInfo]) -> dict[str, str]:
        """_before_misspelling of the `keys` at the indexes `left` (decide_listed's, with `folded`
        and `looked` as there), for all of them at once: the label (with its title flag) of each
        that a list or a heuristic before the misspelling heuristic decides is put in `infos`;
        the others are returned, {key: folded key}, for the misspelling heuristic.

        The lists are asked about every candidate of the heuristics together (Lexicons.lookup_many,
        in two rounds: the rests of the apostrophe and clitic heuristics first, then the letter
        repetitions of those rests in no list), and laughter is found by onomatopoeia_many; each
        spelling then goes through _before_misspelling's steps in order, reading those answers."""
        if not left:
            return {}
        is_on = self.is_on
        accent, apostrophe = is_on("accent"), is_on("apostrophe")
        at = np.asarray(left, dtype=np.int64)
        weak = self._weak(looked)[at].tolist()
        rows = list(zip(left, looked.in_names[at].tolist(), looked.in_anti[at].tolist(),
                        looked.as_written[at].tolist(), weak))
        # What each spelling needs: the apostrophe's rests for a weak name that may be a glued
        # clitic and word (lecole), every heuristic for a spelling no list decides, of letters.
        glued, tried = [], []
        for index, in_names, in_anti, as_written, is_weak in rows:
            key = keys[index]
            if in_names and not in_anti and is_weak and apostrophe and key.isalpha():
                glued.append(folded[index])
            if not ((in_names or in_anti) and (as_written or accent)) and "-" not in key:
                f = folded[index]
                if f and f.isalpha():
                    tried.append(f)
        heuristics = _Heuristics(self.lexicons, tried, glued, self._heuristic_steps())
        titled = is_on("title")
        waiting = {}
        for index, in_names, in_anti, as_written, is_weak in rows:
            key, f = keys[index], folded[index]
            found = None
            if in_names and not in_anti and is_weak and apostrophe and key.isalpha():
                # A rare surname that reads as a glued clitic + word: lecole = l'école.
                found = heuristics.apostrophe(f)
            if found is None and (in_names or in_anti) and (as_written or accent):
                # (Laughter a list holds was decided by decide_listed, as was any other spelling a
                # list holds but a weak name that may be glued.)
                found = WordInfo(_label(in_names, in_anti), Rule.EXACT if as_written else Rule.ACCENT, key,
                                 in_names and is_weak)
            if found is None:
                if "-" in key:
                    found = WordInfo(UNKNOWN, Rule.COMPOUND, key)  # labelled part by part by the caller
                elif not f or not f.isalpha():
                    found = WordInfo(UNKNOWN, Rule.NONE, key)
                else:
                    found = heuristics.before_misspelling(key, f)
                    if found is None:
                        waiting[key] = f
                        continue
            if titled and key.rstrip(".") in TITLES:
                found = found._replace(title=True)
            infos[key] = found
        return waiting

    def _weak(self, looked: Looked) -> np.ndarray:
        """_weak_name of each spelling of a lookup_many (what it says of a name)."""
        return ~looked.user_name & ((looked.rank == NO_RANK) | (looked.rank > RARE_FIRST_NAME_RANK))

    def decide_listed(self, keys: list[str], folded: list[str], looked: Looked) -> tuple[dict[str, WordInfo], list[int]]:
        """_analyse's label of the `keys` (with fold() of each, `folded`, and their
        lookup_many) that the lists decide as they are, as array expressions: ({key: label
        with its title flag}, the indexes of the keys left to _analyse: in no list, a weak
        name that may read as a glued clitic and word, or found only without accents with the
        step accent off)."""
        in_names, in_anti = looked.in_names, looked.in_anti
        weak = self._weak(looked)
        listed = in_names | in_anti
        alpha = np.fromiter(map(str.isalpha, keys), dtype=bool, count=len(keys))
        glued = in_names & ~in_anti & weak & alpha & self.is_on("apostrophe")  # lecole = l'école
        sound = np.zeros(len(keys), dtype=bool)  # laughter a list holds (Héhé, Mouahaha)
        if self.is_on("onomatopoeia"):
            asked = np.flatnonzero(listed & ~glued & in_anti & ~in_names & ~looked.user_word)
            sound[asked] = onomatopoeia_many([folded[index] for index in asked.tolist()])
        decided = listed & ~glued & (sound | looked.as_written | self.is_on("accent"))
        chosen = np.flatnonzero(decided)
        decided_keys = list(map(keys.__getitem__, chosen.tolist()))
        rules = looked.as_written[chosen].astype(np.int64)  # codes into _LISTED_RULES
        rules[sound[chosen]] = 2
        infos = dict(zip(decided_keys, _word_infos(
            _LABEL_ARRAY[(in_names * 2 + in_anti)[chosen]].tolist(), _LISTED_RULES[rules].tolist(), decided_keys,
            (in_names & weak)[chosen].tolist(), self._titles(decided_keys).tolist())))
        return infos, np.flatnonzero(~decided).tolist()

    def _titles(self, keys: list[str]) -> np.ndarray:
        """Whether _titled sets the title flag of each of `keys`, as a bool array."""
        if not self.is_on("title"):
            return np.zeros(len(keys), dtype=bool)
        return np.fromiter(map(TITLES.__contains__, map(str.rstrip, keys, itertools.repeat("."))), dtype=bool,
                           count=len(keys))

    def _analyse(self, key: str) -> WordInfo:
        found = self._before_misspelling(key)
        if isinstance(found, str):
            return (self.is_on("misspelling") and self._misspelling(found)) or WordInfo(UNKNOWN, Rule.NONE, key)
        return found

    def _before_misspelling(self, key: str) -> WordInfo | str:
        """_analyse's label of `key` when a list or a heuristic before the misspelling heuristic
        decides it; else the folded spelling, which only the misspelling heuristic may still read."""
        is_on = self.is_on
        in_names, in_anti = self.lexicons.lookup(key)
        if in_names and not in_anti and self._weak_name(key) and key.isalpha() and is_on("apostrophe"):
            # A rare surname that reads as a glued clitic + word: lecole = l'école.
            found = self._readings.apostrophe(fold(key))
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
        return self._readings.before_misspelling(key, folded) or folded

    @staticmethod
    def _repetition_candidates(folded: str) -> list[str]:
        """Each run of a repeated letter with one and with two letters, in a fixed order."""
        runs = [m.span() for m in _RUN.finditer(folded)]
        if not runs or len(runs) > 5:
            return []
        if len(runs) == 1:  # the commonest case, without the product
            (start, end), = runs
            head, letter, tail = folded[:start], folded[start], folded[end:]
            once = head + letter + tail
            return [once] if end - start == 2 else [once, head + letter * 2 + tail]
        found = []
        for choice in itertools.product((1, 2), repeat=len(runs)):
            parts, last = [], 0
            for (start, end), keep in zip(runs, choice):
                parts.append(folded[last:start] + folded[start] * keep)
                last = end
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

    def _misspelling(self, folded: str) -> WordInfo | None:
        """One edit away from an ordinary word (surment -> sûrement). A word one edit away
        from a first name is never corrected into an ordinary word."""
        if not MIN_MISSPELLING_LENGTH <= len(folded) <= MAX_MISSPELLING_LENGTH:
            return None
        near = self._near
        # The first ordinary word one edit away, in edits1 order, unless a first name is one too.
        word = near[folded] if folded in near else self.lexicons.near_words.corrections([folded], ORDINARY,
                                                                                        FIRST_NAME)[0]
        return word and WordInfo(ANTI_DICTIONARY, Rule.MISSPELLING, word)


# The clitics of the apostrophe heuristic in the order it tries them, by their first letter.
_CLITICS_BY_LETTER: dict[str, list[str]] = {}
for _clitic in sorted(CLITICS):
    _CLITICS_BY_LETTER.setdefault(_clitic[:1], []).append(_clitic)


class _Readings:
    """The SMS heuristics before the misspelling one (repetition, onomatopoeia, apostrophe,
    clitics), in _before_misspelling's order: one code for a spelling alone (WordLabeller, which
    asks the lists about each candidate as it comes) and for the spellings of a batch
    (_Heuristics, which asks about all their candidates at once and then reads the answers).

    `answer(candidate)`: (is a name, is an ordinary word, weak: WordLabeller._weak_name) of a
    candidate, a folded piece of a spelling; `runs(folded)`: its repetition candidates
    (WordLabeller._repetition_candidates), `elisions(folded)` and `glued(folded)`: its readings
    by the apostrophe and clitics heuristics (_elisions, _glued), each of them None for none;
    `steps`: whether the steps repetition, onomatopoeia, apostrophe and concatenation are on;
    `sound(folded)`: is_onomatopoeia.
    """

    def __init__(self, answer, runs, elisions, glued, steps: tuple[bool, ...], sound):
        self.answer, self.runs, self.elisions, self.glued, self.sound = answer, runs, elisions, glued, sound
        self.repetition, self.onomatopoeia, self.apostrophe_on, self.concatenation_on = steps

    def before_misspelling(self, key: str, folded: str) -> WordInfo | None:
        """The label the heuristics before the misspelling one give `key` (its folded spelling
        `folded`, of letters), in _before_misspelling's order; None when none decides."""
        return (self.repetition and self.repeated(folded)) \
            or (self.onomatopoeia and self.sound(folded) and WordInfo(ANTI_DICTIONARY, Rule.ONOMATOPOEIA, key)) \
            or (self.apostrophe_on and self.apostrophe(folded)) \
            or (self.concatenation_on and self.concatenation(folded)) or None

    def repeated(self, folded: str) -> WordInfo | None:
        """The repetition heuristic's reading of a spelling before_misspelling tries (repetitions)."""
        return self.repetitions(folded)

    def repetitions(self, folded: str) -> WordInfo | None:
        """nicoooolaasss -> nicolas, merciiii -> merci: each run of a repeated letter is
        tried with one and with two letters."""
        names = anti = False
        match = ""
        answer = self.answer
        for candidate in self.runs(folded) or ():
            in_names, in_anti, _ = answer(candidate)
            if in_names or in_anti:
                names, anti, match = names or in_names, anti or in_anti, match or candidate
        if names or anti:
            return WordInfo(_label(names, anti), Rule.REPETITION, match, names and answer(match)[2])
        return None

    def ordinary_only(self, key: str) -> bool:
        """Whether the lists read `key` as an ordinary word and not as a name, as written or with
        a letter repeated for emphasis (the rest after a glued clitic)."""
        in_names, in_anti, _ = self.answer(key)
        if not in_names and not in_anti and _RUN.search(key):
            found = self.repetitions(key)
            return found is not None and found.label == ANTI_DICTIONARY
        return in_anti and not in_names

    def apostrophe(self, folded: str) -> WordInfo | None:
        """jexplique -> j'explique, larrivee -> l'arrivée, quil -> qu'il."""
        ordinary_only = self.ordinary_only
        for clitic, rest in self.elisions(folded) or ():
            if ordinary_only(rest):
                return WordInfo(ANTI_DICTIONARY, Rule.APOSTROPHE, f"{clitic}'{rest}")
        return None

    def concatenation(self, folded: str) -> WordInfo | None:
        """jtaime -> je t'aime, jsuis -> je suis, jlai -> je l'ai: one or two glued clitics."""
        ordinary_only = self.ordinary_only
        for head, rest in self.glued(folded) or ():
            if ordinary_only(rest):  # each letter of the head a clitic
                return WordInfo(ANTI_DICTIONARY, Rule.CONCATENATION, f"{' '.join(head)} {rest}")
        return None


class _Heuristics(_Readings):
    """_Readings for the folded spellings of a batch: the lists are asked about all their
    candidates at once, and each heuristic then reads the answers. The heuristics are worked
    out in before_misspelling's order, each for the spellings the ones before it leave: a
    spelling read with a letter repeated is not looked at for laughter, and neither is cut
    into clitics and a rest.

    `tried`: the folded spellings every heuristic may be tried on; `glued`: those only the
    apostrophe heuristic may be tried on (a weak name that may read as a glued clitic and word);
    `steps`: as _Readings'.
    """

    def __init__(self, lexicons: Lexicons, tried: list[str], glued: list[str], steps: tuple[bool, ...]):
        self.lexicons = lexicons
        self.memo: dict[str, list[str]] = {}  # _repetition_candidates of a spelling with a letter repeated
        # lookup() of each candidate, with _weak_name of it: (is a name, is an ordinary word, weak)
        self.answers: dict[str, tuple[bool, bool, bool]] = {}
        self.sounds: dict[str, bool] = {}
        # The repetition heuristic's reading of each tried spelling it reads (repeated).
        self.read: dict[str, WordInfo] = {}
        elisions: dict[str, list[tuple[str, str]]] = {}  # _elisions and _glued of each spelling
        clitics: dict[str, list[tuple[str, str]]] = {}
        super().__init__(self.answers.__getitem__, self.memo.get, elisions.get, clitics.get, steps,
                         self.sounds.__getitem__)
        runs = self._runs
        left = tried  # the tried spellings no heuristic has read yet
        if self.repetition:  # the spellings with a letter repeated, found by one search
            with_runs = list(itertools.compress(tried, _with_runs(tried).tolist()))
            self._ask(list(itertools.chain.from_iterable(map(runs, with_runs))))
            read = self.read
            for folded in with_runs:
                found = self.repetitions(folded)
                if found is not None:
                    read[folded] = found
            if read:
                left = list(itertools.filterfalse(read.__contains__, tried))
        if self.onomatopoeia and left:
            sounds = onomatopoeia_many(left)
            self.sounds.update(zip(left, sounds))
            if any(sounds):
                left = list(itertools.compress(left, map(operator.not_, sounds)))
        rests = []
        # (A spelling whose first letter starts no clitic has no such readings: None.)
        if self.apostrophe_on:
            for folded in itertools.chain(left, glued):
                if folded[:1] in _CLITICS_BY_LETTER:
                    elisions[folded] = pairs = _elisions(folded)
                    for _, rest in pairs:
                        rests.append(rest)
        if self.concatenation_on:
            for folded in left:
                if folded[:1] in _CONCAT_HEADS:
                    clitics[folded] = pairs = _glued(folded)
                    for _, rest in pairs:
                        rests.append(rest)
        self._ask(rests)
        # A rest in no list may still be an ordinary word with a letter repeated (ordinary_only).
        answers, again = self.answers, []
        unknown = [rest for rest in dict.fromkeys(rests) if not any(answers[rest][:2])]
        for rest, repeated in zip(unknown, _with_runs(unknown).tolist()):
            if repeated:  # (a rest without a letter repeated has no repetition candidates)
                again += runs(rest)
        self._ask(again)

    def repeated(self, folded: str) -> WordInfo | None:
        """The repetition heuristic's reading of a tried spelling, worked out with the batch."""
        return self.read.get(folded)

    def _runs(self, folded: str) -> list[str]:
        found = self.memo.get(folded)
        if found is None:
            found = self.memo[folded] = WordLabeller._repetition_candidates(folded)
        return found

    def _ask(self, candidates: list[str]) -> None:
        """Look up the candidates not asked yet, all at once. A candidate is a piece of a folded
        spelling, lower-case ASCII: its own fold."""
        answers = self.answers
        new = [candidate for candidate in dict.fromkeys(candidates) if candidate not in answers]
        if not new:
            return
        lexicons = self.lexicons
        looked = lexicons.lookup_many(new, new, remember=False)
        weak = (looked.rank == NO_RANK) | (looked.rank > RARE_FIRST_NAME_RANK)  # _weak_name
        if lexicons.user_names:
            weak &= ~np.fromiter(map(lexicons.user_names.__contains__, new), dtype=bool, count=len(new))
        answers.update(zip(new, zip(looked.in_names.tolist(), looked.in_anti.tolist(), weak.tolist())))


def _elisions(folded: str) -> list[tuple[str, str]]:
    """The apostrophe heuristic's readings of a folded spelling it may try, in its order: each
    clitic that elides (j, l, qu...) it starts with, in sorted order, and the rest after it, of
    two letters or more, from a vowel or an h."""
    found = []
    for clitic in _CLITICS_BY_LETTER.get(folded[:1], ()):
        size = len(clitic)
        if len(folded) >= size + 2 and folded.startswith(clitic) and folded.startswith(_VOWEL_OR_H, size):
            found.append((clitic, folded[size:]))
    return found


def _glued(folded: str) -> list[tuple[str, str]]:
    """The clitics heuristic's readings of a folded spelling it may try, in its order: two glued
    clitics (each letter one), else one, and the rest after them, of two letters or more."""
    found = []
    if len(folded) >= 4 and folded[:2] in _CONCAT_HEADS:
        found.append((folded[:2], folded[2:]))
    if len(folded) >= 3 and folded[:1] in _CONCAT_HEADS:
        found.append((folded[:1], folded[1:]))
    return found


# _label of (in_names, in_anti), indexed by in_names * 2 + in_anti.
_LABELS = (UNKNOWN, ANTI_DICTIONARY, DICTIONARY, AMBIGUOUS)
_LABEL_ARRAY = np.array(_LABELS, dtype=object)
# The rule of a spelling the lists decide: found without accents, as written, laughter.
_LISTED_RULES = np.array([Rule.ACCENT, Rule.EXACT, Rule.ONOMATOPOEIA], dtype=object)


def _word_infos(labels: list[str], rules: list[str], matches: list[str], weak: list[bool], titles: list[bool]):
    """WordInfo(label, rule, match, weak, title) for each row of the columns, made as namedtuple
    makes one (tuple.__new__ of the fields) without a call of Python code per row."""
    return map(tuple.__new__, itertools.repeat(WordInfo), zip(labels, rules, matches, weak, titles))


def _label(in_names: bool, in_anti: bool) -> str:
    if in_names and in_anti:
        return AMBIGUOUS
    if in_names:
        return DICTIONARY
    return ANTI_DICTIONARY if in_anti else UNKNOWN
