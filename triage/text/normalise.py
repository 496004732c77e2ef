"""The text as analysed ("folded"), with offsets that point into the text as written.

Names and numbers reach the analysis in disguise: accents written decomposed (NFD, as some
phones and macOS write them), look-alike letters from another script (a Cyrillic "а" in
"Nicolаs"), zero-width or right-to-left control characters inside a word, letters spaced or
dotted out ("N i c o l a s", "N.i.c.o.l.a.s"), full-width or Arabic-Indic digits, the thin
spaces of French typography. A message holding any of these is analysed folded:

- accents composed (NFC), cluster by cluster;
- full-width forms as ASCII, every decimal digit as its ASCII digit, typographic spaces as a
  space (what NFKC does to them, and nothing else: "…" or "œ" stay as written);
- letters drawn in another style as the plain letter: Unicode's compatibility forms of letters
  (NFKC: mathematical bold, italic, script, fraktur, double-struck; circled, squared, full-width,
  superscript letters; ligatures, "ﬁ" as "fi") and the Latin small capitals; symbols ("™", "№")
  and punctuation ("…") stay as written;
- invisible characters (zero-width, soft hyphen, bidirectional controls) dropped, and so are
  the marks left on a letter once composed (a doubled accent, a stroke or an underline over
  the letters) and the variation selectors, grapheme joiner and tag characters on a letter;
- in a word that holds a Latin letter, or whose every letter looks Latin, Cyrillic and Greek
  look-alikes as the Latin letter, accents kept (Unicode TR 39's mixed- and whole-script
  confusables; a Russian word stays Russian);
- four or more single letters spaced or dotted out, joined: apart by spaces of any kind, or by
  dots, hyphens, underscores, slashes or asterisks (mixed, spaces around them or not).

Every span found in the folded text is mapped back onto whole original characters: a base
letter with all its marks, and the characters dropped inside a span (the zero-width
characters, spaces and dots inside a disguised name are hidden with it). Codes are made from
the folded text, so a name gets the same code however it was disguised. Hiding widens every span
to whole grapheme clusters (grapheme_spans): a code never has a mark, selector or joined character
dangling after it.

Gold spans (training and evaluation, triage/model/gold.py) go the other way, from the text as written
onto the folded text: a span covers every folded character one of whose original characters it
covers. A gold span that ends inside a disguise ("N.i.c" of "N.i.c.o.l.a.s", half of a
decomposed accent) thus covers the whole folded character, so what must be hidden never shrinks.

Plain text pays one test: an ASCII text is folded only when a scan of the whole batch finds
letters spaced out in it, any other text only when it is not NFC, holds a foldable character
or a mark, selector or tag next to a letter or digit.
"""

from __future__ import annotations

import bisect
import re
import unicodedata
from dataclasses import dataclass

import numpy as np

# Cyrillic and Greek letters drawn like a Latin letter (a curated subset of Unicode's
# confusables.txt: only whole-letter look-alikes, no accents). One pair a line: look-alike,
# Latin letter. Edit here: a test checks that each pair maps a non-ASCII letter to an ASCII one.
CONFUSABLES_TABLE = """
а a  е e  о o  р p  с c  у y  х x  ѕ s  і i  ј j  ԁ d  һ h  ԛ q  ԝ w  ӏ l
А A  В B  Е E  К K  М M  Н H  О O  Р P  С C  Т T  У Y  Х X  Ѕ S  І I  Ј J  Ԛ Q  Ԝ W  Ӏ I
Α A  Β B  Ε E  Ζ Z  Η H  Ι I  Κ K  Μ M  Ν N  Ο O  Ρ P  Τ T  Υ Y  Χ X
α a  ο o  ι i  ν v  κ k  ρ p  υ u  ϲ c  ϳ j
ı i
"""
CONFUSABLES: dict[str, str] = dict(zip(*[iter(CONFUSABLES_TABLE.split())] * 2))
# The look-alikes with their accents too ("ѐ", "ї": a Cyrillic look-alike with a mark), as the
# Latin letter with the same accents.
LOOK_ALIKES: dict[str, str] = {**{
    chr(point): unicodedata.normalize("NFC", CONFUSABLES[decomposed[0]] + decomposed[1:])
    for point in [*range(0x370, 0x530), *range(0x1F00, 0x2000)]
    if len(decomposed := unicodedata.normalize("NFD", chr(point))) > 1 and decomposed[0] in CONFUSABLES
}, **CONFUSABLES}

# Characters a reader does not see: zero-width space, non-joiner and joiner, word joiner,
# byte-order mark, soft hyphen, and the bidirectional marks, embeddings, overrides and isolates.
INVISIBLE = frozenset("\u200b\u200c\u200d\u2060\ufeff\u00ad\u200e\u200f\u061c") | frozenset(
    map(chr, [*range(0x202A, 0x202F), *range(0x2066, 0x206A)]))
# Typographic spaces (en quad ... hair space, narrow no-break, medium mathematical, ideographic)
# read as a space; the no-break space U+00A0 is left alone (the detectors know it).
SPACES = frozenset(map(chr, [*range(0x2000, 0x200B), 0x202F, 0x205F, 0x3000]))
# Characters that only dress the letter they follow and that a reader reads through: the
# combining grapheme joiner, variation selectors and tag characters. Dropped next to a letter or
# digit (after an emoji, a variation selector chooses its drawing and stays).
IGNORABLE = frozenset(map(chr, [0x034F, *range(0xFE00, 0xFE10), *range(0xE0000, 0xE0080), *range(0xE0100, 0xE01F0)]))
# The script-neutral combining marks (diacritics, marks for symbols, half marks). Composing
# (NFC) takes those that belong to a letter ("e" + acute is "é"); one left after composing can
# only be a disguise over a letter (a doubled accent, a stroke, an underline) and is dropped.
DIACRITICS = frozenset(map(chr, [*range(0x0300, 0x0370), *range(0x1AB0, 0x1B00), *range(0x1DC0, 0x1E00),
                                 *range(0x20D0, 0x2100), *range(0xFE20, 0xFE30)])) - IGNORABLE


# The compatibility forms that draw a letter in another style ("<compat>" too when the character
# is itself a letter: ligatures, the long s; not "™" or "№", which are symbols).
_LETTER_FORMS = frozenset(["<font>", "<circle>", "<square>", "<wide>", "<narrow>", "<super>", "<sub>", "<small>",
                           "<initial>", "<medial>", "<final>", "<isolated>", "<vertical>"])


# Where the letters drawn in another style are: the blocks beyond these hold none (the
# ideographs, Hangul syllables and surrogates between 0x3400 and 0xA000 and from 0xAC00 to
# 0xF900, and the planes' other blocks up to 0x1D400).
_STYLED_LETTER_RANGES = ((0xA0, 0x3400), (0xA000, 0xAC00), (0xF900, 0x10000), (0x1D400, 0x1F200))


def _compatibility_letters() -> dict[str, str]:
    """Each character that Unicode's compatibility folding (NFKC) turns into letters only, with
    those letters: mathematical bold, italic, script, fraktur and double-struck letters, circled
    and squared letters, full-width letters, superscript and subscript letters, ligatures ("ﬁ")
    and presentation forms; and the Latin small capitals, which have no compatibility form, as
    their lower-case letter. Punctuation ("…" is three dots) and symbols ("℃") stay as written.

    Worked out at import, in code-point order: a run of 32 code points that NFKC leaves as it is
    holds no compatibility form and is skipped whole (a character with one always changes), and
    the small capitals are found by their names."""
    found = {}
    for low, high in _STYLED_LETTER_RANGES:
        for block in range(low, high, 32):
            chars = "".join(map(chr, range(block, min(block + 32, high))))
            if unicodedata.is_normalized("NFKC", chars):
                continue
            for char in chars:
                if char in CONFUSABLES:  # a look-alike ("ϲ") reads as the Latin letter, in a Latin word
                    continue
                tag = unicodedata.decomposition(char).partition(" ")[0]
                if tag in _LETTER_FORMS or tag == "<compat>" and char.isalpha():
                    folded = unicodedata.normalize("NFKC", char)
                    if folded.isalpha() and (char.isalpha() or len(folded) == 1):
                        found[char] = folded
    for letter in "ABCDEFGHIJKLMNOPQRSTUVWXYZ":
        try:
            char = unicodedata.lookup(f"LATIN LETTER SMALL CAPITAL {letter}")
        except KeyError:
            continue
        if (char not in CONFUSABLES and not unicodedata.decomposition(char)
                and any(low <= ord(char) < high for low, high in _STYLED_LETTER_RANGES)):
            found[char] = letter.lower()
    return dict(sorted(found.items()))


COMPATIBILITY_LETTERS: dict[str, str] = _compatibility_letters()


def _other_digits() -> set[str]:
    """The decimal digits other than ASCII's. They come in blocks of ten from a zero, so
    every tenth code point meets each block (1 ms, where testing them all takes 15)."""
    zeros = {point - unicodedata.decimal(chr(point)) for point in range(0x80, 0x20000, 10) if chr(point).isdecimal()}
    return {chr(zero + digit) for zero in zeros for digit in range(10)}


def _character_class(chars) -> str:
    """A regular-expression class of chars, consecutive code points as ranges (`re` tests
    a long list of single characters one by one)."""
    points, ranges = sorted(map(ord, chars)), []
    for point in points:
        if ranges and ranges[-1][1] == point - 1:
            ranges[-1][1] = point
        else:
            ranges.append([point, point])
    return "[" + "".join(re.escape(chr(a)) + ("-" + re.escape(chr(b)) if b > a else "") for a, b in ranges) + "]"


# Any character folding may change, found by one character class (a cheap test before the
# work). Split at the end of the Basic Multilingual Plane, where `re` tests a class in one step
# (beyond it, range by range): the first test stops at any astral character (an emoji, mostly),
# and only then are the astral characters that fold looked for.
_FOLDING = (INVISIBLE | SPACES | set(LOOK_ALIKES) | _other_digits() | set(map(chr, range(0xFF01, 0xFF5F)))
            | set(COMPATIBILITY_LETTERS))
_FOLDABLE = re.compile(_character_class({char for char in _FOLDING if char <= "\uffff"})[:-1] + "\U00010000-\U0010ffff]")
_FOLDABLE_BMP = re.compile(_character_class({char for char in _FOLDING if char <= "\uffff"}))
_FOLDABLE_ASTRAL = re.compile(_character_class({char for char in _FOLDING if char > "\uffff"}))
# A mark, selector or tag next to a letter or digit (a hint: _fold_characters decides).
_DRESSING = re.compile(_character_class(DIACRITICS | IGNORABLE))  # first, one class: most texts hold none
_DRESSED = re.compile(rf"\w{_character_class(DIACRITICS | IGNORABLE)}|{_character_class(IGNORABLE)}\w")
_LETTER = r"[^\W\d_]"
# What a reader reads through between the letters of a name spelled out: spaces of every kind
# (the no-break ones too), dots, hyphens and dashes, underscores, slashes, asterisks.
SPACERS = frozenset(" \t\u00a0\u1680") | SPACES
JOINERS = frozenset(".\u00b7\u2022\u2027\u30fb-\u2010\u2011\u2012\u2013\u2014\u2212_/\\*")
SEPARATORS = SPACERS | JOINERS
_SEP = _character_class(SEPARATORS)
_JOINER = _character_class(JOINERS)
_SPACER = _character_class(SPACERS)
# Four or more single letters, each two apart by one to three separators of one kind: spaces
# only ("N i c o l a s", no-break or thin spaces too), or marks (dots, hyphens...) with or
# without spaces around them, mixed ("N.i.c.o.l.a.s", "N . i-c_o/l*a.s"); so "N.i.c.o.l.a.s à"
# ends before the word "à". Not inside a word, a path or an address ("a/b/c/d" after a word),
# nor a run that goes on into a word ("y a-t-il").
SPACED_LETTERS = re.compile(
    rf"(?<![\w'’])(?<![\w'’]{_JOINER})"
    rf"(?:{_LETTER}(?:{_SPACER}{{1,3}}{_LETTER}){{3,}}|{_LETTER}(?:{_SPACER}?{_JOINER}{_SEP}{{0,2}}{_LETTER}){{3,}})"
    rf"(?![\w'’])(?!{_JOINER}\w)"
)
# What the middle of every such run holds ("N i c o l a s": " i c "), starting with a character
# class so that `re` scans a batch for it fast; common ("il y a un"), so only a hint.
# Its letters are spelled as ranges (Latin, Greek, Cyrillic: letters of other scripts reach
# SPACED_LETTERS only when the text is folded for another reason): a fifth faster than \w.
_HINT_RANGES = (("A", "Z"), ("a", "z"), ("\u00c0", "\u024f"), ("\u0370", "\u04ff"))
_HINT_LETTER = "[" + "".join(f"{first}-{last}" for first, last in _HINT_RANGES) + "]"
_SPACED_HINT = re.compile(rf"{_SEP}{_HINT_LETTER}{_SEP}{{1,3}}{_HINT_LETTER}{_SEP}")
_WORD = re.compile(rf"{_LETTER}+")


@dataclass(frozen=True)
class OffsetMap:
    """For each character of the folded text, where its original characters start and end."""

    starts: tuple[int, ...]
    ends: tuple[int, ...]

    def span(self, start: int, end: int) -> tuple[int, int]:
        """The original span covering folded text[start:end] (end > start)."""
        return self.starts[start], self.ends[end - 1]

    def folded_span(self, start: int, end: int) -> tuple[int, int] | None:
        """The folded span of original text[start:end]: every folded character one of whose
        original characters lies inside it (an end inside a disguise takes the whole folded
        character: a name's span is never cut short), or None when none does (a span of dropped
        characters only, in a text folded to nothing)."""
        # Each folded character stands for a stretch of original characters; the stretches
        # follow one another (several characters of one composed cluster share theirs), so
        # both lists are sorted.
        folded_start = bisect.bisect_right(self.ends, start)
        folded_end = bisect.bisect_left(self.starts, end)
        return (folded_start, folded_end) if folded_start < folded_end else None


class _Folding:
    """The folded characters with, for each, the original span it stands for."""

    def __init__(self, text: str):
        self.chars: list[str] = []
        self.starts: list[int] = []
        self.ends: list[int] = []
        cluster = 0
        for index in range(1, len(text) + 1):
            if index < len(text) and unicodedata.combining(text[index]):
                continue  # a mark belongs to the cluster of the character before it
            composed = unicodedata.normalize("NFC", text[cluster:index])
            self.chars += composed
            self.starts += [cluster] * len(composed)
            self.ends += [index] * len(composed)
            cluster = index

    def replace(self, index: int, char: str) -> None:
        self.chars[index] = char

    def expand(self, replacements: dict[int, str]) -> None:
        """Replace the character at each index by several ("ﬁ" by "fi"), all standing for its
        original span."""
        chars, starts, ends = [], [], []
        for index, char in enumerate(self.chars):
            new = replacements.get(index, char)
            chars += new
            starts += [self.starts[index]] * len(new)
            ends += [self.ends[index]] * len(new)
        self.chars, self.starts, self.ends = chars, starts, ends

    def drop(self, drop) -> None:
        """Drop the characters at the indexes where drop(index) is true; each one's original
        span goes to the character kept before it, or when that is white space (or none), to
        the one kept after it: what is hidden with a word is what touches it."""
        chars, starts, ends, pending = [], [], [], None
        for index, char in enumerate(self.chars):
            if drop(index):
                if pending is None and chars and not chars[-1].isspace():
                    ends[-1] = self.ends[index]
                elif pending is None:
                    pending = self.starts[index]
                continue
            chars.append(char)
            starts.append(self.starts[index] if pending is None else pending)
            ends.append(self.ends[index])
            pending = None
        if pending is not None and ends:  # dropped characters end the text: the last one kept
            ends[-1] = self.ends[-1]
        self.chars, self.starts, self.ends = chars, starts, ends

    def text(self) -> str:
        return "".join(self.chars)


def _fold_characters(folding: _Folding) -> None:
    longer = {}
    for index, char in enumerate(folding.chars):
        if char.isascii():
            continue
        if char in SPACES:
            folding.replace(index, " ")
        elif "\uff01" <= char <= "\uff5e":  # full-width ASCII
            folding.replace(index, chr(ord(char) - 0xFEE0))
        elif char.isdecimal():
            folding.replace(index, str(unicodedata.decimal(char)))
        elif char in COMPATIBILITY_LETTERS:
            letters = COMPATIBILITY_LETTERS[char]
            if len(letters) == 1:
                folding.replace(index, letters)
            else:
                longer[index] = letters
    if longer:
        folding.expand(longer)
    folding.drop(lambda index: folding.chars[index] in INVISIBLE)


def _drop_dressing(folding: _Folding) -> None:
    """Compose each mark left on a letter that folding changed ("𝐞" or a Cyrillic "е" + acute is
    "é"); drop the marks that still do not compose, and selectors and tags on a letter or digit."""
    chars = folding.chars
    # A mark left after composing dresses a letter; a selector or tag, a letter or digit next to it.
    dressing = [False] * len(chars)
    kept = -1  # the last letter kept: a mark left on a letter folded above composes with it ("𝐞" + acute)
    for index, char in enumerate(chars):
        if char in DIACRITICS:
            dressing[index] = index > 0 and (chars[index - 1].isalpha() or dressing[index - 1])
            if dressing[index] and kept >= 0:
                composed = unicodedata.normalize("NFC", chars[kept] + char)
                if len(composed) == 1:
                    chars[kept] = composed
        elif char in IGNORABLE:
            dressing[index] = index > 0 and (chars[index - 1].isalnum() or dressing[index - 1]) or (
                index + 1 < len(chars) and chars[index + 1].isalnum())
        else:
            kept = index if char.isalpha() else -1
    folding.drop(dressing.__getitem__)


def _fold_confusables(folding: _Folding) -> None:
    text = folding.text()
    longer = {}
    for word in _WORD.finditer(text):
        letters = word.group()
        look_alikes = [i for i, char in enumerate(letters) if char in LOOK_ALIKES]
        if look_alikes and (len(look_alikes) == len(letters) or any(
                char.isascii() or "LATIN" in unicodedata.name(char, "") for char in letters)):
            for i in look_alikes:
                latin = LOOK_ALIKES[letters[i]]
                if len(latin) == 1:
                    folding.replace(word.start() + i, latin)
                else:  # a letter and marks that do not compose with it (Greek "ὐ": "u" + psili)
                    longer[word.start() + i] = latin
    if longer:
        folding.expand(longer)


def _join_spaced_letters(folding: _Folding) -> None:
    inside = set()
    for run in SPACED_LETTERS.finditer(folding.text()):
        inside.update(i for i in range(run.start(), run.end()) if folding.chars[i] in SEPARATORS)
    if inside:
        folding.drop(inside.__contains__)


def _needs_folding(text: str) -> bool:
    """Whether a character of the text folds (letters spaced out aside)."""
    if text.isascii():
        return False
    if not unicodedata.is_normalized("NFC", text):
        return True
    found = _FOLDABLE.search(text)
    if found is None or found.group() <= "\uffff":
        return found is not None or _dressed(text)
    return bool(_FOLDABLE_BMP.search(text, found.end()) or _FOLDABLE_ASTRAL.search(text)) or _dressed(text)


def _dressed(text: str) -> bool:
    return _DRESSING.search(text) is not None and _DRESSED.search(text) is not None


def fold(text: str) -> tuple[str, OffsetMap | None]:
    """(folded text, map back) or (text, None) when there is nothing to fold, or when the text
    cannot be composed cluster by cluster (then it is analysed as written)."""
    if not _needs_folding(text) and not SPACED_LETTERS.search(text):
        return text, None
    folding = _Folding(text)
    if folding.text() != unicodedata.normalize("NFC", text):  # e.g. Hangul jamo compose across clusters
        return text, None
    _fold_characters(folding)
    _fold_confusables(folding)
    _drop_dressing(folding)
    _join_spaced_letters(folding)
    folded = folding.text()
    if folded == text:
        return text, None
    return folded, OffsetMap(tuple(folding.starts), tuple(folding.ends))


def to_nfc(text: str) -> tuple[str, OffsetMap | None]:
    """(NFC text, map back) or (text, None) when the text is already NFC or cannot be composed
    cluster by cluster: the composing step of fold() alone."""
    if unicodedata.is_normalized("NFC", text):
        return text, None
    folding = _Folding(text)
    if folding.text() != unicodedata.normalize("NFC", text):
        return text, None
    return folding.text(), OffsetMap(tuple(folding.starts), tuple(folding.ends))


def spans_to_original(spans, offsets: OffsetMap) -> list[tuple[int, int, str]]:
    """[start, end, tag] spans of the folded text as spans of the original text."""
    return [(*offsets.span(start, end), tag) for start, end, tag in spans]


def spans_to_folded(spans, offsets: OffsetMap) -> list[tuple[int, int, str]]:
    """[start, end, tag] spans of the original text (gold spans, as annotated) as spans of the
    folded text (OffsetMap.folded_span); a span that covers no folded character is dropped.
    Two spans that end and start inside one folded character both cover it."""
    folded = ((offsets.folded_span(start, end), tag) for start, end, tag in spans)
    return [(*span, tag) for span, tag in folded if span is not None]


# What a scan of a batch looks for, one bit each in a table of every code point (_character_bits):
# the characters of _FOLDABLE and of _DRESSING (a text holding none needs no folding unless
# spaced out or not NFC: _needs_folding), and the separators and letters of _SPACED_HINT.
_FOLDS, _DRESSES, _SEPARATES, _HINTS = 1, 2, 4, 8
_BITS: list[np.ndarray] = []


def _character_bits() -> np.ndarray:
    """The bits of every code point (a 1.1 MB table, made once)."""
    if not _BITS:
        bits = np.zeros(0x110000, dtype=np.uint8)
        for chars, bit in (({char for char in _FOLDING if char <= "\uffff"}, _FOLDS), (DIACRITICS | IGNORABLE, _DRESSES),
                           (SEPARATORS, _SEPARATES)):
            bits[np.fromiter(map(ord, chars), dtype=np.int64, count=len(chars))] |= bit
        bits[0x10000:] |= _FOLDS  # _FOLDABLE takes every astral character (_needs_folding then looks closer)
        for first, last in _HINT_RANGES:
            bits[ord(first) : ord(last) + 1] |= _HINTS
        _BITS.append(bits)
    return _BITS[0]


def _scanned(texts: list[str]) -> tuple[set[int], set[int]]:
    """(the indexes of the texts holding a character of _FOLDABLE or _DRESSING, those holding a
    match of _SPACED_HINT): one scan of the batch's code points (a line break is none of those
    characters, so no match crosses from one text to the next)."""
    joined = "\n".join(texts)
    if joined.isascii():
        codes = np.frombuffer(joined.encode("ascii"), dtype=np.uint8)
    else:
        # Two bytes a code point when none is past U+FFFF (UTF-16 then writes each as itself), else four.
        encoded = joined.encode("utf-16-le", "surrogatepass")
        codes = (np.frombuffer(encoded, dtype="<u2") if len(encoded) == 2 * len(joined)
                 else np.frombuffer(joined.encode("utf-32-le", "surrogatepass"), dtype="<u4"))
    bits = np.take(_character_bits(), codes)  # (a gather by np.take: about twice as fast as indexing)
    line_starts = np.zeros(len(texts), dtype=np.int64)
    if len(texts) > 1:
        np.cumsum(np.fromiter(map(len, texts[:-1]), dtype=np.int64, count=len(texts) - 1) + 1, out=line_starts[1:])

    def texts_at(positions: np.ndarray) -> set[int]:
        return set((np.searchsorted(line_starts, positions, side="right") - 1).tolist())

    hinted = texts_at(np.flatnonzero(bits & (_FOLDS | _DRESSES)))
    # _SPACED_HINT: a separator, a letter, one to three separators, a letter, a separator.
    separator, letter = (bits & _SEPARATES) != 0, (bits & _HINTS) != 0
    spaced: set[int] = set()
    for between in (1, 2, 3):
        starts = len(codes) - 3 - between  # where such a match may start
        if starts <= 0:
            continue
        found = separator[:starts] & letter[1 : starts + 1] & letter[2 + between : starts + 2 + between] \
            & separator[3 + between : starts + 3 + between]
        for gap in range(between):
            found &= separator[2 + gap : starts + 2 + gap]
        spaced |= texts_at(np.flatnonzero(found))
    return hinted, spaced


def _spaced_out(texts: list[str]) -> set[int]:
    """The indexes of the texts holding letters spaced or dotted out: one scan of the batch."""
    return {index for index in _scanned(texts)[1] if SPACED_LETTERS.search(texts[index])}


def fold_batch(texts: list[str]) -> tuple[list[str], dict[int, OffsetMap]]:
    """The folded texts of a batch and the maps of the messages that changed (usually none).
    Plain text pays a scan of the batch's code points: only the texts it hints at are tested
    one by one (_scanned, _needs_folding)."""
    folded, maps = list(texts), {}
    hinted, spaced = _scanned(texts)
    tested = {index for index in hinted if _needs_folding(texts[index])}
    tested.update(index for index, text in enumerate(texts) if not text.isascii() and index not in tested
                  and not unicodedata.is_normalized("NFC", text))
    tested.update(index for index in spaced if SPACED_LETTERS.search(texts[index]))
    for index in sorted(tested):
        analysed, offsets = fold(texts[index])
        if offsets is not None:
            folded[index], maps[index] = analysed, offsets
    return folded, maps


# No character before this one extends the character before it (_extends_cluster).
_FIRST_EXTENDING = "\u0300"


def _extends_cluster(char: str) -> bool:
    """Whether char belongs to the character before it: a combining mark (of any kind), a
    variation selector, the grapheme joiner, a tag character, an emoji skin tone."""
    return unicodedata.category(char) in ("Mn", "Me", "Mc") or char in IGNORABLE or "\U0001f3fb" <= char <= "\U0001f3ff"


def grapheme_spans(text: str, spans) -> list[tuple[int, int, str]]:
    """[start, end, tag] spans (sorted, apart) widened to whole characters as a reader sees them
    (grapheme clusters): a span that starts on a mark starts at its base character, one that
    ends before marks, selectors or a joiner ("\u200d" and the character it joins) ends after
    them; spans that then touch are merged. Hiding such a span never leaves a mark dangling
    from a code, nor a base character stripped of its marks."""
    widened: list[tuple[int, int, str]] = []
    plain = text.isascii()  # no mark, selector nor joiner: only spans that overlap change (merged)
    for start, end, tag in spans:
        if not plain and not is_whole(text, start, end):
            start, end = _whole_clusters(text, start, end)
        if widened and start < widened[-1][1]:
            widened[-1] = (widened[-1][0], max(end, widened[-1][1]), widened[-1][2])
        else:
            widened.append((start, end, tag))
    return widened


def is_whole(text: str, start: int, end: int) -> bool:
    """Whether text[start:end] is whole grapheme clusters already, as grapheme_spans tests it: a
    span between two characters before the combining marks (U+0300: letters with their accents,
    punctuation) is whole, and grapheme_spans leaves it as it is; the ends of another are looked at."""
    size = len(text)
    return not ((0 < start < size and text[start] >= _FIRST_EXTENDING)
                or (end < size and text[end] >= _FIRST_EXTENDING))


def _whole_clusters(text: str, start: int, end: int) -> tuple[int, int]:
    """text[start:end] widened to whole grapheme clusters (see grapheme_spans)."""
    while start > 0 and _extends_cluster(text[start]):
        start -= 1
    while end < len(text):
        if _extends_cluster(text[end]):
            end += 1
        elif text[end] == "\u200d" and end + 1 < len(text) and not text[end + 1].isspace():
            end += 2
        else:
            break
    return start, end


def hide_in_original(code_for, original: str, folded: str, spans, offsets: OffsetMap):
    """(the original text with each span replaced by its code, the spans in the original).
    Codes are made from the folded text, so that a name has the same code however it was
    written. Spans are widened to whole grapheme clusters of the original (grapheme_spans)."""
    exact = spans_to_original(spans, offsets)
    mapped = grapheme_spans(original, exact)
    folded_of = {(o_start, o_end): (start, end) for (start, end, _), (o_start, o_end, _) in zip(spans, exact)}
    parts, last = [], 0
    for o_start, o_end, tag in mapped:
        # The code of the span as hidden in the original, folded: a mark the span took from the
        # grapheme it ends in counts too, as it does in the original.
        start, end = offsets.folded_span(o_start, o_end) or folded_of.get((o_start, o_end)) or (0, 0)
        parts += [original[last:o_start], code_for(folded, start, end, tag)]
        last = o_end
    parts.append(original[last:])
    return "".join(parts), mapped


def words_in_original(words: list[str], original: str, folded: str, offsets: OffsetMap) -> list[str]:
    """Words found in the folded text, as they are written in the original (so that a reader
    or the review page finds them in the message)."""
    found = []
    for word in words:
        at = folded.find(word) if word else -1
        found.append(original[slice(*offsets.span(at, at + len(word)))] if at >= 0 else word)
    return found
