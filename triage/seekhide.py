"""Seek&Hide (Patel et al. 2013, section 3): label words with dictionaries, label messages,
hide what is certain.

Each word gets one label (Table 1): DICTIONARY (only in the name dictionary: anonymise),
ANTI_DICTIONARY (only in anti-dictionaries: ignore), AMBIGUOUS (in both: highlight) or
UNKNOWN (in neither: highlight). Numbers, punctuation, emoticons and emoji are not words.
When a spelling is in neither list as written, the SMS heuristics of section 3.2 are tried in
order: accent-insensitive look-up, letter repetitions, onomatopoeia, missing apostrophe,
concatenated clitics, then misspellings within one edit, never turning a name into a word.

A message is TA when it holds a DICTIONARY word or a detector hit (phone, e-mail, URL,
address, code), NTA when every word is ANTI_DICTIONARY, UNTAGGED otherwise. Hidden items
become codes <TAG_length_id>, e.g. <PRE_7_17316>: the id is the name's id in the dictionary,
or a stable hash of the spelling for other items, so the same spelling always gets the same
code.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from typing import NamedTuple

from triage.lexicons import APOSTROPHES, Lexicons, fold
from triage.tokenise import DETECTED, EMOTICON, PUNCT, WORD, Token, tokenise

DICTIONARY, ANTI_DICTIONARY, AMBIGUOUS, UNKNOWN = "DICTIONARY", "ANTI_DICTIONARY", "AMBIGUOUS", "UNKNOWN"
TA, NTA, UNTAGGED = "TA", "NTA", "UNTAGGED"
HIDE_TAGS = ("PRE", "NOM", "SUR", "TEL", "MEL", "URL", "ADR", "COD", "LIE", "MAR")

_RUN = re.compile(r"(\w)\1+")
_SENTENCE_END = re.compile(r"[.!?…]")
# Laughter, interjections and letter-stretched exclamations (folded, lower case).
_ONOMATOPOEIA = re.compile(
    r"(?:mou|mwa|bwa|bou|gn)?(?:h+[aeiouy]+)+h*"  # haha, hihihi, mouhahaha, bwahaha
    r"|a?(?:h+a+)+|(?:a+h+)+|(?:e+h+)+|(?:o+h+)+|(?:h+e+)+|(?:h+o+)+|h+u+m+|h+m+"
    r"|(?:m+d+r+)+|(?:p+t+d+r+)+|(?:l+o+l+)+|(?:l+m+a+o+)+|x+d+|(?:r+o+f+l+)+"
    r"|p+f+|p+s+t+|b+r+|g+r+|r+o+|o+u+p+s+|o+u+f+|a+r+g+h*|a+i+e+|o+u+i+l+l+e+|w+o+u+a+h*"
    r"|y+[ea]+h*|y+e+s+|b+o+f+|z+z+|c+h+u+t+|b+a+h+|b+e+n+|e+u+h+|h+e+u+|m+o+u+a+i+s+|n+a+n+"
    r"|o+u+a+i+[sp]*|w+e+s+h+|y+o+u+p+i+|o+l+a+l+a+|o+h+l+a+l+a+|b+o+u+h*|m+m+h*|c+o+o+l+"
)
_CLITIC_PREFIXES = ("j", "l", "m", "t", "s", "n", "d", "c", "qu")
_CONCAT_CLITICS = "jtmslnc"
_VOWEL_OR_H = tuple("aeiouyhéèêàâîôû")
_ALPHABET = "abcdefghijklmnopqrstuvwxyz"
# Names from the surname list only, or first names rarer than this, collide with SMS spellings
# and foreign words ('kon', 'lo', 'same'): they count as names only when capitalised mid-sentence.
RARE_FIRST_NAME_RANK = 10_000
# Heuristics that guess an ordinary word from an unknown spelling.
_GUESSES = frozenset({"misspelling", "apostrophe", "concatenation", "repetition"})
# Words after which a capitalised word is a surname whatever the lists say ("Mme Petit").
TITLES = frozenset("m mr mme mlle mmes mrs messieurs madame mademoiselle monsieur dr docteur pr professeur maître me".split())


class WordInfo(NamedTuple):
    label: str
    rule: str  # which look-up or heuristic decided: exact, accent, repetition, onomatopoeia...
    match: str  # the dictionary spelling it was matched to ('nicolas' for 'nicoooolaasss')
    weak: bool = False  # a name only through a surname or a rare first name (see words())
    title: bool = False  # Mme, Dr...: a capitalised word after it is a surname


class Word(NamedTuple):
    start: int
    end: int
    text: str
    label: str
    rule: str
    match: str
    sentence_start: bool = False  # first word of the message or after . ! ? … or an emoticon
    before_punctuation: bool = False  # directly followed by punctuation ("ça va Aude ?")


@dataclass
class SeekResult:
    label: str  # TA, NTA or UNTAGGED
    words: list[Word]
    tokens: list[Token]
    detections: list[Token]
    hidden: list[tuple[int, int, str]]  # [start, end, TAG] offsets into the original text
    anonymised: str

    @property
    def highlighted(self) -> list[str]:
        """The words a human should look at: ambiguous or unknown."""
        return [w.text for w in self.words if w.label in (AMBIGUOUS, UNKNOWN)]


def stable_id(tag: str, spelling: str) -> int:
    """A cross-reference id for items outside the dictionary: the same spelling gives the
    same id in every run (7 digits, so it cannot be mistaken for a dictionary id)."""
    digest = hashlib.blake2b(f"{tag}:{spelling.lower()}".encode(), digest_size=8).digest()
    return 1_000_000 + int.from_bytes(digest, "big") % 9_000_000


def code(tag: str, surface: str, ident: int) -> str:
    return f"<{tag}_{len(surface)}_{ident}>"


class SeekAndHide:
    """Word labelling and message treatment with one set of lexicons.

    Labels are cached per distinct spelling: SMS vocabularies are Zipfian, so a corpus of
    millions of messages needs only a few hundred thousand look-ups.
    """

    def __init__(self, lexicons: Lexicons, max_cache: int = 500_000):
        self.lexicons = lexicons
        self._cache: dict[str, WordInfo] = {}
        self._max_cache = max_cache
        self.keep_whole = frozenset(
            w for w in (*lexicons.forms, *lexicons.sms) if "'" in w
        )

    # ------------------------------------------------------------------ words
    def label_word(self, word: str) -> WordInfo:
        info = self._cache.get(word)  # by spelling as written first: the commonest case
        if info is None:
            key = word.lower().translate(APOSTROPHES)
            info = self._cache.get(key)
            if info is None:
                info = self._analyse(key)
                if key.rstrip(".") in TITLES:
                    info = info._replace(title=True)
            if len(self._cache) < self._max_cache:
                self._cache[word] = self._cache[key] = info
        return info

    def _analyse(self, key: str) -> WordInfo:
        in_names, in_anti = self.lexicons.lookup(key)
        if in_names and not in_anti and self._weak_name(key) and key.isalpha():
            # A rare surname that reads as a glued clitic + word: lecole = l'école.
            found = self._apostrophe(fold(key))
            if found:
                return found
        if in_names or in_anti:
            rule = "exact" if (key in self.lexicons.forms or key in self.lexicons.other_anti
                               or key in self.lexicons.first_names or key in self.lexicons.last_names
                               or key in self.lexicons.user_names or key in self.lexicons.user_words) else "accent"
            return WordInfo(_label(in_names, in_anti), rule, key, in_names and self._weak_name(key))
        if "-" in key:
            return WordInfo(UNKNOWN, "compound", key)  # labelled part by part by the caller
        folded = fold(key)
        if not folded or not folded.isalpha():
            return WordInfo(UNKNOWN, "none", key)
        found = self._repetitions(folded)
        if found:
            return found
        if _ONOMATOPOEIA.fullmatch(folded):
            return WordInfo(ANTI_DICTIONARY, "onomatopoeia", key)
        found = self._apostrophe(folded) or self._concatenation(folded)
        if found:
            return found
        return self._misspelling(folded) or WordInfo(UNKNOWN, "none", key)

    def _repetitions(self, folded: str) -> WordInfo | None:
        """nicoooolaasss -> nicolas, merciiii -> merci: each run of a repeated letter is
        tried with one and with two letters."""
        runs = [m for m in _RUN.finditer(folded)]
        if not runs or len(runs) > 5:
            return None
        names = anti = False
        match = ""
        for choice in itertools.product((1, 2), repeat=len(runs)):
            parts, last = [], 0
            for run, keep in zip(runs, choice):
                parts.append(folded[last : run.start()] + run.group(1) * keep)
                last = run.end()
            candidate = "".join(parts) + folded[last:]
            if candidate == folded:
                continue
            in_names, in_anti = self.lexicons.lookup(candidate)
            if in_names or in_anti:
                names, anti, match = names or in_names, anti or in_anti, match or candidate
        if names or anti:
            return WordInfo(_label(names, anti), "repetition", match, names and self._weak_name(match))
        return None

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
        for clitic in _CLITIC_PREFIXES:
            rest = folded[len(clitic) :]
            if folded.startswith(clitic) and len(rest) >= 2 and rest.startswith(_VOWEL_OR_H):
                if self._ordinary_only(rest):
                    return WordInfo(ANTI_DICTIONARY, "apostrophe", f"{clitic}'{rest}")
        return None

    def _concatenation(self, folded: str) -> WordInfo | None:
        """jtaime -> je t'aime, jsuis -> je suis, jlai -> je l'ai: one or two glued clitics."""
        for size in (2, 1):
            head, rest = folded[:size], folded[size:]
            if len(rest) >= 2 and all(c in _CONCAT_CLITICS for c in head) and self._ordinary_only(rest):
                return WordInfo(ANTI_DICTIONARY, "concatenation", f"{' '.join(head)} {rest}")
        return None

    def _misspelling(self, folded: str) -> WordInfo | None:
        """One edit away from an ordinary word (surment -> sûrement). A word one edit away
        from a first name is never corrected into an ordinary word."""
        if len(folded) < 5:
            return None
        near_word = near_name = ""
        lexicons = self.lexicons
        for candidate in _edits1(folded):
            if not near_name and (candidate in lexicons.first_names or candidate in lexicons.folded_names):
                near_name = candidate
            if not near_word and (candidate in lexicons.forms or candidate in lexicons.folded_anti
                                  or candidate in lexicons.other_anti):
                near_word = candidate
            if near_name and near_word:
                break
        if near_word and not near_name:
            return WordInfo(ANTI_DICTIONARY, "misspelling", near_word)
        return None

    # ------------------------------------------------------------------ messages
    def words(self, tokens: list[Token]) -> list[Word]:
        """Labelled words of a message, in context.

        Hyphenated unknown compounds are labelled part by part. A weak name (surname only,
        or a rare first name) stays DICTIONARY only when written with a capital away from
        the start of a sentence ('chez Dubois'), else it becomes UNKNOWN ('kon', 'Lo').
        A capitalised word right after a title is a surname: 'Mme Petit', 'Dr Blanc'.
        """
        out: list[Word] = []
        sentence_start = True
        previous_title = False
        last_was_word = False
        label_word = self.label_word
        cached = self._cache.get
        in_context = self._in_context
        for token in tokens:
            if token.kind != WORD:
                if token.kind == PUNCT:
                    if last_was_word:
                        out[-1] = out[-1]._replace(before_punctuation=True)
                    if _SENTENCE_END.search(token.text):
                        sentence_start = True
                elif token.kind == EMOTICON:
                    sentence_start = True
                last_was_word = False
                continue
            info = cached(token.text) or label_word(token.text)
            if info.rule == "compound":
                offset = token.start
                for part in token.text.split("-"):
                    if part:
                        sub = label_word(part)
                        word = Word(offset, offset + len(part), part, sub.label, sub.rule, sub.match, sentence_start)
                        out.append(in_context(word, sub.weak, sentence_start, False))
                        sentence_start = False
                    offset += len(part) + 1
            else:
                word = Word(token.start, token.end, token.text, info.label, info.rule, info.match, sentence_start)
                if info.weak or previous_title or info.rule in _GUESSES:
                    word = in_context(word, info.weak, sentence_start, previous_title)
                out.append(word)
            previous_title = info.title
            sentence_start = False
            last_was_word = True
        return out

    @staticmethod
    def _in_context(word: Word, weak: bool, sentence_start: bool, after_title: bool) -> Word:
        text = word.text
        capitalised = text[:1].isupper() and not text.isupper()
        if after_title and capitalised and word.label != DICTIONARY:
            return word._replace(label=DICTIONARY, rule="title", match=text.lower())
        if weak and word.label == DICTIONARY and (sentence_start or not capitalised):
            return word._replace(label=UNKNOWN, rule="weak-name")
        if word.rule in _GUESSES and capitalised and not sentence_start:
            # A capital mid-sentence says "name": do not correct it into an ordinary word.
            return word._replace(label=UNKNOWN, rule=f"capitalised-{word.rule}")
        return word

    def seek(self, text: str) -> SeekResult:
        tokens = tokenise(text, self.keep_whole)
        words = self.words(tokens)
        detections = [t for t in tokens if t.kind == DETECTED]
        if detections or any(w.label == DICTIONARY for w in words):
            label = TA
        elif all(w.label == ANTI_DICTIONARY for w in words):
            label = NTA
        else:
            label = UNTAGGED
        hidden = [(t.start, t.end, t.tag) for t in detections]
        hidden += [(w.start, w.end, self.name_tag(w)) for w in words if w.label == DICTIONARY]
        hidden.sort()
        return SeekResult(label, words, tokens, detections, hidden, self.hide(text, hidden))

    def name_tag(self, word: Word) -> str:
        if word.rule == "title":
            return "NOM"
        return self.lexicons.name_entry(word.match).tag

    def code_for(self, text: str, start: int, end: int, tag: str) -> str:
        surface = text[start:end]
        if tag in ("PRE", "NOM"):
            key = surface.lower().translate(APOSTROPHES)
            info = self.label_word(surface)
            entry = self.lexicons.name_entry(info.match if info.label != UNKNOWN else key)
            if entry.id:
                return code(tag, surface, entry.id)
        return code(tag, surface, stable_id(tag, surface))

    def hide(self, text: str, hidden: list[tuple[int, int, str]]) -> str:
        """The text with each hidden span replaced by its code; nothing else changes."""
        if not hidden:
            return text
        parts, last = [], 0
        for start, end, tag in hidden:
            parts.append(text[last:start])
            parts.append(self.code_for(text, start, end, tag))
            last = end
        parts.append(text[last:])
        return "".join(parts)


def _label(in_names: bool, in_anti: bool) -> str:
    if in_names and in_anti:
        return AMBIGUOUS
    if in_names:
        return DICTIONARY
    return ANTI_DICTIONARY if in_anti else UNKNOWN


def _edits1(word: str) -> Iterable[str]:
    """Spellings one edit away, most SMS-like first: a letter the writer left out
    (surment -> surement), then swapped, replaced and extra letters."""
    splits = [(word[:i], word[i:]) for i in range(len(word) + 1)]
    for left, right in splits:
        for letter in _ALPHABET:
            yield left + letter + right
    for left, right in splits:
        if len(right) > 1:
            yield left + right[1] + right[0] + right[2:]
    for left, right in splits:
        if right:
            for letter in _ALPHABET:
                yield left + letter + right[1:]
    for left, right in splits:
        if right:
            yield left + right[1:]


# ---------------------------------------------------------------------- corpus level


def hidden_json(hidden: list[tuple[int, int, str]]) -> str:
    return json.dumps([list(span) for span in hidden], ensure_ascii=False)


@dataclass
class SeekTables:
    """The paper's Table 3 (distribution) and Table 4 (confusion on tagged messages)."""

    distribution: Counter  # TA / NTA / UNTAGGED counts
    confusion: dict[tuple[str, str], int] | None  # (seek&hide, gold) -> count, when gold labels exist

    @property
    def total(self) -> int:
        return sum(self.distribution.values())

    @property
    def accuracy(self) -> float | None:
        if not self.confusion:
            return None
        tagged = sum(self.confusion.values())
        right = self.confusion.get((TA, TA), 0) + self.confusion.get((NTA, NTA), 0)
        return right / tagged if tagged else None

    def markdown(self) -> str:
        total = self.total or 1
        lines = [
            "Table 3. Seek&Hide on the sample",
            "",
            "| | Tag: TA | Tag: NTA | Untagged | Total |",
            "|---|---|---|---|---|",
            "| messages | " + " | ".join(
                f"{self.distribution[k]:,} ({100 * self.distribution[k] / total:.2f}%)" for k in (TA, NTA, UNTAGGED)
            ) + f" | {self.total:,} |",
        ]
        if self.confusion is not None:
            c = self.confusion
            lines += [
                "",
                "Table 4. Confusion matrix on tagged messages",
                "",
                "| | Gold: NTA | Gold: TA |",
                "|---|---|---|",
                f"| Seek&Hide: NTA | {c.get((NTA, NTA), 0):,} | {c.get((NTA, TA), 0):,} |",
                f"| Seek&Hide: TA | {c.get((TA, NTA), 0):,} | {c.get((TA, TA), 0):,} |",
                "",
                f"Accuracy on tagged messages: {self.accuracy:.3f}" if self.accuracy is not None else "",
            ]
        return "\n".join(lines).rstrip() + "\n"


def tables(labels: Iterable[str], gold: Iterable[str] | None = None) -> SeekTables:
    labels = list(labels)
    distribution = Counter({TA: 0, NTA: 0, UNTAGGED: 0})
    distribution.update(labels)
    confusion = None
    if gold is not None:
        confusion = Counter((s, g) for s, g in zip(labels, gold) if s != UNTAGGED)
    return SeekTables(distribution, confusion)
