"""Lexicon look-ups and string transforms for many spellings at once: what the per-spelling
columns of names, recognizers and the message counts need for the new spellings of a batch.

Each function gives, for a list of spellings, exactly what the one-spelling function of
triage.lexicons gives for each (spelling_key, fold, `in` a lexicon): the per-spelling
functions stay the reference (tests/test_spelling_batch.py). The string transforms run once
over the spellings joined by a newline, which no token holds and which neither lower(),
accent folding nor the apostrophe table carries across; the big lexicons (WordLists, sorted
UTF-8 byte arrays) answer by one sorted search for all the spellings (WordList.remember).

The shared columns (`keys`, `folded_keys`, `known`...) are declared per-spelling columns of the
table of spellings (triage.seekhide.columns), computed once per spelling whichever module asks
first.
"""

from __future__ import annotations

import operator
import re
import weakref
from collections.abc import Collection, Iterable, Sequence
from itertools import repeat
from typing import TYPE_CHECKING

import numpy as np

from triage.lexicons import APOSTROPHES, fold, spelling_key
from triage.lexicons.wordlist import WordList, contains_together
from triage.seekhide.columns import spelling_column

if TYPE_CHECKING:
    from triage.seekhide.table import Spellings

_SEPARATOR = "\n"  # in no spelling: a token never holds white space
_APOSTROPHES = [chr(c) for c, to in APOSTROPHES.items() if to == "'"]
assert len(_APOSTROPHES) == len(APOSTROPHES)  # spelling_key only changes apostrophes


def _joined(texts: Sequence[str]) -> str | None:
    """The texts joined by the separator, or None when one of them holds it (then the
    callers work one text at a time)."""
    joined = _SEPARATOR.join(texts)
    return joined if joined.count(_SEPARATOR) == max(len(texts) - 1, 0) else None


def _each(joined: str, count: int) -> list[str]:
    return joined.split(_SEPARATOR) if count else []


def lower_many(texts: Sequence[str]) -> list[str]:
    """[text.lower() for text in texts]. (A final sigma is lowered as at the end of a text:
    the newline is neither a cased nor a case-ignorable character.)"""
    joined = _joined(texts)
    if joined is None:
        return [text.lower() for text in texts]
    return _each(joined.lower(), len(texts))


def spelling_keys(texts: Sequence[str]) -> list[str]:
    """[spelling_key(text) for text in texts]."""
    joined = _joined(texts)
    if joined is None:
        return list(map(spelling_key, texts))
    joined = joined.lower()
    for apostrophe in _APOSTROPHES:  # str.translate would cost ten times more
        if apostrophe in joined:
            joined = joined.replace(apostrophe, "'")
    return _each(joined, len(texts))


def fold_many(texts: Sequence[str]) -> list[str]:
    """[fold(text) for text in texts]. Decomposition and the ordering of accents never
    cross a newline (a starter), so folding the joined texts folds each."""
    joined = _joined(texts)
    if joined is None:
        return list(map(fold, texts))
    return _each(fold(joined), len(texts))


def ascii_rows(texts: Sequence[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """The texts as one array of ASCII codes: (the codes of the texts joined by the separator,
    where each text starts in it, the length of each), or None when a text is not ASCII or holds
    the separator. Folded spellings (fold) are ASCII: their letters at given places are then
    numpy columns."""
    joined = _joined(texts)
    if joined is None or not joined.isascii():
        return None
    codes = np.frombuffer(joined.encode("ascii"), dtype=np.uint8)
    ends = np.append(np.flatnonzero(codes == ord(_SEPARATOR)), len(codes))[: len(texts)]
    starts = np.zeros(len(texts), dtype=np.int64)
    starts[1:] = ends[:-1] + 1
    return codes, starts, ends - starts


def last_characters(texts: Sequence[str]) -> np.ndarray:
    """[ord(text[-1]) if text else 0 for text in texts] as an int array (one encoding of the
    texts joined by the separator: the character before each separator)."""
    joined = _joined(texts)
    if joined is None:
        return np.fromiter((ord(text[-1]) if text else 0 for text in texts), dtype=np.uint32, count=len(texts))
    codes = np.frombuffer((joined + _SEPARATOR).encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
    last = codes[np.flatnonzero(codes == ord(_SEPARATOR))[: len(texts)] - 1]
    last[last == ord(_SEPARATOR)] = 0  # an empty text: the separator before it (or the last one, for the first text)
    return last


def members(lexicon: Collection[str] | WordList, keys: Sequence[str]) -> np.ndarray:
    """[key in lexicon for key in keys] as a bool array. A WordList looks up the keys it has
    not remembered by one sorted search (WordList.remember), then answers from memory."""
    if not len(lexicon):  # an empty list (most often a user's lexicon) holds none of them
        return np.zeros(len(keys), dtype=bool)
    if isinstance(lexicon, WordList):
        return lexicon.contains_many(list(keys))
    return np.fromiter(map(lexicon.__contains__, keys), dtype=bool, count=len(keys))


# The word tables of memberships: per tuple of frozensets (by identity, the sets kept alive with
# their table), each word of any of them -> the bits of those holding it. A few tuples per process.
_MEMBERSHIP_TABLES: dict[tuple[int, ...], tuple[tuple[frozenset[str], ...], dict[str, int]]] = {}
_MEMBERSHIP_TABLES_KEPT = 16


def _word_bits(lexicons: Iterable[tuple[int, Collection[str]]]) -> dict[str, int]:
    """Each word of the (bit, lexicon) pairs -> the bits of the lexicons that hold it."""
    words: dict[str, int] = {}
    for bit, lexicon in lexicons:
        if not words:
            words = dict.fromkeys(lexicon, 1 << bit)
            continue
        for word in lexicon:
            words[word] = words.get(word, 0) | 1 << bit
    return words


def memberships(lexicons: tuple[frozenset[str], ...], keys: Sequence[str]) -> np.ndarray:
    """[[key in lexicon for lexicon in lexicons] for key in keys] as a (len(keys),
    len(lexicons)) bool array, by one look-up per key in a table of the words of all the
    lexicons (built the first time this tuple of sets is asked about): what members does
    for each lexicon in turn, for many small lists asked about the same spellings."""
    # A set may change, and a word's bits are one int64: then each lexicon is asked in turn.
    if len(lexicons) > 62 or not all(type(lexicon) is frozenset for lexicon in lexicons):
        return np.column_stack([members(lexicon, keys) for lexicon in lexicons]).reshape(len(keys), len(lexicons))
    ident = tuple(map(id, lexicons))
    found = _MEMBERSHIP_TABLES.get(ident)
    if found is None:
        words = _word_bits(enumerate(lexicons))
        if len(_MEMBERSHIP_TABLES) >= _MEMBERSHIP_TABLES_KEPT:
            _MEMBERSHIP_TABLES.pop(next(iter(_MEMBERSHIP_TABLES)))
        found = _MEMBERSHIP_TABLES[ident] = (lexicons, words)
    bits = np.fromiter(map(found[1].get, keys, repeat(0)), dtype="<i8", count=len(keys))
    # Bit i of each int64 (its bytes in little-endian order), one bool column per lexicon.
    return np.unpackbits(bits.view(np.uint8).reshape(-1, 8), axis=1, count=len(lexicons), bitorder="little").view(bool)


def known(table: Spellings, name: str, spelled: str = "key") -> np.ndarray:
    """Whether each spelling of the table is in a lexicon (`name`: its name in Lexicons, one of
    _LEXICON_BITS), as a key (spelled="key"), folded ("folded") or in lower case ("lower"): a
    column shared by every module that asks, read from the lexicon bits."""
    return table.column(_in_lexicon, name, spelled)


@spelling_column("batch.in", bool)
def _in_lexicon(table: Spellings, sids: np.ndarray, name: str, spelled: str) -> np.ndarray:
    return (lexicon_bits(table, spelled)[sids] & np.uint16(1 << _BIT_OF[name])) > 0


# The lexicons `known` answers from one column of bits per spelling (lexicon_bits), bit i for the
# i-th: each spelling is looked up once for all of them instead of once a lexicon.
_LEXICON_BITS = ("first_names", "sms", "pronouns", "cities", "regions", "countries", "other_anti", "user_names",
                 "user_words", "last_names", "forms", "folded_anti")
_BIT_OF = {name: bit for bit, name in enumerate(_LEXICON_BITS)}


def lexicon_bits(table: Spellings, spelled: str = "key") -> np.ndarray:
    """Which of the lexicons of _LEXICON_BITS hold each spelling of the table, as a key
    (spelled="key"), folded ("folded") or in lower case ("lower"), one bit each (uint16): a
    column shared by every lexicon `known` asks about."""
    return table.column(_lexicon_bits, spelled)


@spelling_column("batch.bits", np.uint16)
def _lexicon_bits(table: Spellings, sids: np.ndarray, spelled: str) -> np.ndarray:
    if spelled == "key":
        return _bits_of(table.lexicons, keys(table)[sids].tolist())
    # Most folded or lower-case spellings are the keys themselves: asked about once.
    found = lexicon_bits(table)[sids].copy()
    other = np.flatnonzero(differing(table, spelled)[sids])
    source = {"folded": folded_keys, "lower": lowered}[spelled](table)
    found[other] = _bits_of(table.lexicons, source[sids[other]].tolist())
    return found


def _bits_of(lexicons, words: list[str]) -> np.ndarray:
    """The _LEXICON_BITS of each of `words`: the sets and dicts through one table of their words,
    the big lists (WordLists) through the answers they remember together."""
    small, big = _lexicon_table(lexicons)
    bits = np.fromiter(map(small.get, words, repeat(0)), dtype=np.uint16, count=len(words))
    for (bit, _), found in zip(big, contains_together([words_list for _, words_list in big], words)):
        bits[found] |= np.uint16(1 << bit)
    return bits


# Per Lexicons (weakly: an entry goes with its lexicons), the table of _bits_of: (what it was made
# of, each lexicon's identity and size; each word of the sets and dicts -> its bits; the bit and
# the WordList of each big list).
_LEXICON_TABLES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _lexicon_table(lexicons) -> tuple[dict[str, int], list[tuple[int, WordList]]]:
    sources = [getattr(lexicons, name) for name in _LEXICON_BITS]
    made_of = tuple((id(source), len(source)) for source in sources)  # made again if a set changed
    found = _LEXICON_TABLES.get(lexicons)
    if found is None or found[0] != made_of:
        big = [(bit, source) for bit, source in enumerate(sources) if isinstance(source, WordList)]
        small = _word_bits((bit, source) for bit, source in enumerate(sources) if not isinstance(source, WordList))
        found = _LEXICON_TABLES[lexicons] = (made_of, small, big)
    return found[1], found[2]


def differing(table: Spellings, spelled: str) -> np.ndarray:
    """Whether each spelling of the table, folded ("folded": fold of its key) or in lower case
    ("lower"), differs from its key: a column shared by the look-ups of every lexicon."""
    return table.column(_differing, spelled)


@spelling_column("batch.differing", bool)
def _differing(table: Spellings, sids: np.ndarray, spelled: str) -> np.ndarray:
    source = {"folded": folded_keys, "lower": lowered}[spelled](table)
    return source[sids] != keys(table)[sids]


def searched(pattern: re.Pattern, texts: Sequence[str]) -> np.ndarray:
    """[bool(pattern.search(text)) for text in texts], for a pattern that matches no
    newline (one search over the joined texts)."""
    n = len(texts)
    joined = _joined(texts)
    if joined is None:
        return np.fromiter((bool(pattern.search(text)) for text in texts), dtype=bool, count=n)
    spans = np.fromiter(map(len, texts), dtype=np.int64, count=n) + 1  # each text and its separator
    starts = np.cumsum(spans) - spans
    found = np.zeros(n, dtype=bool)
    at = [match.start() for match in pattern.finditer(joined)]
    found[np.searchsorted(starts, at, side="right") - 1] = True
    return found


def texts_of(table: Spellings, sids: np.ndarray) -> list[str]:
    """The texts of the spellings `sids` (a slice when they follow each other, as new ones do)."""
    texts = table.texts
    if len(sids) and sids[-1] - sids[0] == len(sids) - 1 and (len(sids) < 2 or (np.diff(sids) == 1).all()):
        return texts[sids[0] : sids[-1] + 1]
    return [texts[s] for s in sids.tolist()]


def _sharing(new: list[str], old: list[str]) -> list[str]:
    """`new`, each string equal to its counterpart in `old` replaced by that very object: most
    spellings are their own key, fold or lower case, and these columns last as long as the
    table (one string object instead of two)."""
    return [o if n == o else n for n, o in zip(new, old)]


def _patched(values: list[str], at: list[int], asked: list[str], transform) -> list[str]:
    """`values` with those at the indexes `at` replaced by transform(asked), each equal to its
    string of `asked` sharing that object (_sharing)."""
    if at:
        for i, text in zip(at, _sharing(transform(asked), asked)):
            values[i] = text
    return values


def _derived(name: str, source, transform):
    """Declare the string column `name`: transform(source(table, sids)), each string equal to
    its source sharing that object (_sharing)."""
    @spelling_column(name, object)
    def compute(table: Spellings, sids: np.ndarray) -> list[str]:
        strings = source(table, sids)
        return _sharing(transform(strings), strings)
    return compute


_keys = _derived("batch.key", texts_of, spelling_keys)


@spelling_column("batch.folded_key", object)
def _folded_keys(table: Spellings, sids: np.ndarray) -> list[str]:
    """fold(key) of the spellings `sids`: a key in ASCII (in lower case, as every key) is its own
    fold; the others are folded, each equal to its key sharing that object (_sharing)."""
    folded = keys(table)[sids].tolist()
    other = np.flatnonzero(~np.fromiter(map(str.isascii, folded), dtype=bool, count=len(folded))).tolist()
    return _patched(folded, other, list(map(folded.__getitem__, other)), fold_many)


@spelling_column("batch.lower", object)
def _lowered(table: Spellings, sids: np.ndarray) -> list[str]:
    """text.lower() of the spellings `sids`: a key that holds no apostrophe is the text in lower
    case itself (spelling_key changes nothing else); the others are lowered, each equal to its
    text sharing that object (_sharing)."""
    lower = keys(table)[sids].tolist()
    quoted = np.flatnonzero(np.fromiter(map(operator.contains, lower, repeat("'")), dtype=bool, count=len(lower)))
    return _patched(lower, quoted.tolist(), texts_of(table, sids[quoted]), lower_many)


@spelling_column("batch.folded_lower", object)
def _folded_lowered(table: Spellings, sids: np.ndarray) -> list[str]:
    """fold(text.lower()) of the spellings `sids`: the folded key of those whose lower case is
    their key; the others folded, each equal to its lower case sharing that object (_sharing)."""
    folded = folded_keys(table)[sids].tolist()
    other = np.flatnonzero(differing(table, "lower")[sids])
    return _patched(folded, other.tolist(), lowered(table)[sids[other]].tolist(), fold_many)


def keys(table: Spellings) -> np.ndarray:
    """spelling_key of each spelling of the table (an object array)."""
    return table.column(_keys)


def folded_keys(table: Spellings) -> np.ndarray:
    """fold(spelling_key(text)) of each spelling."""
    return table.column(_folded_keys)


def lowered(table: Spellings) -> np.ndarray:
    """text.lower() of each spelling."""
    return table.column(_lowered)


def folded_lowered(table: Spellings) -> np.ndarray:
    """fold(text.lower()) of each spelling."""
    return table.column(_folded_lowered)


def upper(table: Spellings) -> np.ndarray:
    """text.isupper() of each spelling."""
    return table.column(_upper)


def upper_first(table: Spellings) -> np.ndarray:
    """text[:1].isupper() of each spelling: whether it starts with a capital."""
    return table.column(_upper_first)


def last_key_characters(table: Spellings) -> np.ndarray:
    """ord() of the last character of each spelling's key (0 for an empty one), as last_characters."""
    return table.column(_last_key_characters)


_FIRST_CHARACTER = operator.itemgetter(slice(None, 1))  # text[:1]


@spelling_column("batch.upper", bool)
def _upper(table: Spellings, sids: np.ndarray) -> np.ndarray:
    return np.fromiter(map(str.isupper, texts_of(table, sids)), dtype=bool, count=len(sids))


@spelling_column("batch.upper_first", bool)
def _upper_first(table: Spellings, sids: np.ndarray) -> np.ndarray:
    return np.fromiter(map(str.isupper, map(_FIRST_CHARACTER, texts_of(table, sids))), dtype=bool, count=len(sids))


@spelling_column("batch.last_key_character", np.uint32)
def _last_key_characters(table: Spellings, sids: np.ndarray) -> np.ndarray:
    return last_characters(keys(table)[sids].tolist())
