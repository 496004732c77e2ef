"""What else a message names besides people and contact details, one recognizer per thing
(Presidio's convention): places (LIE), brands (MAR) and nicknames (SUR), as 88milSMS's
annotation guide tags them. Each is a few rules over Seek&Hide's tokens and a plain data file
a linguist can edit (dictionaries/places, dictionaries/brands, dictionaries/nicknames).

- A place is a word of the place lists (French communes, regions, countries, and the foreign
  places of places/foreign_places.txt) after a place cue ("à Lyon", "sur Paris", "en Espagne",
  "au Maroc"), or, with no cue, written with a capital and not a first name ("Perpignan c'était
  top"). A first name that is also a place (Florence, Nancy) is a place only after a place cue;
  after a person cue ("avec Florence") or alone it stays a first name. A place the word scorer
  hides is tagged LIE whatever its context, unless it is also a first name. Two-word places
  ("La Rochelle") count when both words are there.
- A brand is a word of brands/brands.tsv: in any case, or only capitalised for brands that are
  ordinary words or names too (Carrefour, Leclerc).
- A nickname is a repeated syllable (juju, kéké, titi) that is not a first name nor one of the
  ordinary words of nicknames/exceptions.txt (coucou, dodo, papa): hidden when it is no ordinary
  word, or after a person cue ("bisous titi"). The word scorer's hidden words of nickname shape
  (Louloute, Seb) are tagged SUR by triage.model.names.
- A holiday that is a first name too (Noël, Toussaint) names no one (step "holiday"): never hidden
  nor a risk, unless a person cue comes right before it ("avec Noël").
- An initial standing for a person is a capital letter alone right after a person cue, one space
  apart ("demandé à N de venir", "bisou M."), hidden as a first name (step "initial"). Not a
  letter SMS writers use for a word (C: c'est, G: j'ai, J: je, T: t'es, L: elle, K, O, Y, A, I)
  or for a kiss (X), not after a possessive or "et" ("mon T-shirt", "et G fini"), and not a
  title before a surname ("avec M. Kaya"). Tuned on the two development files of 88milSMS: it hid five initials of their gold
  and, beyond them, two initials the gold left unmarked and two letters that named no one.
- A nickname is also a first name cut short (step "nickname-truncation"): a lower-case word of 3
  to 5 letters that Seek&Hide leaves UNKNOWN (no ordinary word, no first name it hides; a rare
  one such as flo counts) and that starts one of the TRUNCATED_FROM commonest first names (seb:
  Sébastien, caro: Caroline), unless nicknames/exceptions.txt lists it (lun: lundi). It is
  hidden after a person cue ("slt seb", "avec caro"); elsewhere it is tagged SUR for the word
  scorer, whose probability decides and counts in the message's risk.

`apply` turns Seek&Hide's analysis of a batch and the categories to hide (`--hide`) into what is
hidden before the word scorer speaks: Seek&Hide's items retagged by the recognizers, plus the
places, brands and nicknames found, only in the hidden categories; and the message labels that
follow (an item of a category not hidden does not make a message TA).
"""

from __future__ import annotations

import functools
import itertools
import re
import weakref
from dataclasses import dataclass

import numpy as np

from triage.seekhide import spelling_batch as batch
from triage.lexicons import PERSON_CUES, TITLES, Lexicons, fold, word_list, word_table
from triage.pipeline import component
from triage.pipeline.arrays import among
from triage.schema import HIDE_TAGS, Span
from triage.seekhide import steps
from triage.seekhide.columns import spelling_column
from triage.seekhide.context import any_of
from triage.seekhide.foreign import OTHER_WORDS
from triage.seekhide.known import WORD_LIKE_NICKNAMES
from triage.seekhide.shortened import TRUNCATED_FROM, TRUNCATION_LENGTHS, truncations  # noqa: F401  (importable from here)
from triage.seekhide import (K_NUMBER, K_PUNCT, K_WORD, L_ANTI, L_DICTIONARY, L_UNKNOWN,
                             READ_AS_WORD_CODES, SURNAME_CODES, Analysis, Rule, rule_code)
from triage.seekhide.spelling_batch import members, memberships, texts_of

PLACE_CUES = word_list("cues/place_cues.txt")
FOREIGN_PLACES = word_list("places/foreign_places.txt")
# Services, apps, devices and transport everyone uses (facebook, sncf): they name no one.
SERVICES = word_list("brands/services.txt")
# Person cues that are no place cues: "à" and "de" announce places more than people.
_PERSON_ONLY_CUES = (PERSON_CUES | TITLES) - PLACE_CUES
_VOWELS = frozenset("aeiouy")
# Capital letters that, alone, may stand for a person's initial (see the module's docstring).
INITIAL_LETTERS = frozenset("BDEFHMNPQRSUVWZ")
# The person cues after which a lone capital is an initial: not a possessive, "et" or "vu".
INITIAL_CUES = PERSON_CUES - {"et", "ma", "mon", "ta", "ton", "sa", "son", "mes", "tes", "ses", "m", "vu", "voir",
                              "par"}
# The recognizers' Seek&Hide steps (listed in triage/seekhide/steps.txt), decided in recognise.
steps.declare("recognizer", "glued-first-names", "initial", "other-language-word", "fixed-phrase", "unit-after-number",
              "emphasised-word", "subject-before-verb", "two-word-brand", "brand-person-cue", "brand-word",
              "misspelt-place", "place-district", "nickname-truncation", "common-names", "holiday", "capital-after-cue",
              "scorer-decides", where=__name__)
# What may follow a subject at the start of a sentence: a third-person verb SMS writers use a lot, or
# an object pronoun (elided or not) before one ("Zorane prend le bus", "zorane te dit bonjour",
# "Zorane m'a appelé"). A word no list holds in that place counts in its message's risk as at
# least SUBJECT_RISK, below the hide threshold: the step sends messages to a person, it never hides.
# The words and the floor were chosen on the development files of 88milSMS (docs/method.md).
SUBJECT_VERBS = frozenset(
    "est a va prend fait dit vient passe arrive veut peut sera était avait sont ont viens te me ne n m t s l".split())
SUBJECT_RISK = 0.5
# A word with a capital right after a person cue ("avec Equipe", "Coucou El !", "a Fiston"), whatever the
# lists say of it, is where names stand: its probability counts in the risk as at least CUE_CAPITAL_RISK
# (step capital-after-cue), unless it is a pronoun or a word of cues/ordinary_after_cues.txt ("Coucou Toi
# !", "Merci Beaucoup !"). It is never hidden for it: the floor is below the hide threshold. Chosen on the
# development files of 88milSMS (docs/method.md): floors from 0.25 to 0.5 sent the same messages to a person.
ORDINARY_AFTER_CUES = word_list("cues/ordinary_after_cues.txt")
CUE_CAPITAL_RISK = 0.5
# A district after a place (step place-district): an arrondissement or a department of one or two
# digits, with a leading zero or an ordinal ending (Lyon 07, Paris 15e, Lyon 3ème, Marseille 1er),
# or alone before punctuation or at the end of the message (Paris 15 !).
_DISTRICT = re.compile(r"0[1-9]|[1-9][0-9]?(?:e|è|ème|eme|er)?")
_ORDINAL_OR_ZERO = re.compile(r"0[1-9]|[1-9][0-9]?(?:e|è|ème|eme|er)")
# Fixed phrases of French, most of them Latin (a priori, grosso modo, ex aequo:
# dictionaries/phrases/fixed_phrases.txt), each as the tuple of its words folded: their words, one
# right after another, are never hidden by the word scorer, whatever the name lists say ("Priori"
# and "Grosso" are surnames); step fixed-phrase.
FIXED_PHRASES = frozenset(tuple(fold(word) for word in phrase.split()) for phrase in word_list("phrases/fixed_phrases.txt"))
_PHRASE_WORDS = frozenset(word for phrase in FIXED_PHRASES for word in phrase)
_PHRASE_FIRST_WORDS = frozenset(phrase[0] for phrase in FIXED_PHRASES)
_PHRASE_LENGTHS = sorted({len(phrase) for phrase in FIXED_PHRASES}, reverse=True)
# Brands that are everyday words, which dictionaries/brands/brands.tsv leaves out (its own comment
# names them): never recognised as brands by themselves ("une orange", "c'est free"), but a word
# the word scorer would hide is a brand, not a name ("j'ai appelé Free"): step brand-word.
EVERYDAY_BRANDS = frozenset({"orange", "free", "total", "casino", "leader", "quick"})
# Holidays that are first names too (step holiday), accents aside: "joyeux Noël", "à la Toussaint" name
# no one. In the two development files of 88milSMS, no Noël (59 of them) nor Toussaint is a gold name,
# and their probability sent messages to a person for nothing.
HOLIDAYS = frozenset({"noel", "toussaint"})

# Tags as small integers over the tokens of a batch (0: none): comparisons of strings over
# every token would cost classify more than the recognizers themselves.
TAG_CODES = ("", *HIDE_TAGS)
_CODE = {tag: i for i, tag in enumerate(TAG_CODES)}
_TAGS = np.asarray(TAG_CODES, dtype=object)
NONE, LIE, MAR, SUR, PRE, NOM = 0, _CODE["LIE"], _CODE["MAR"], _CODE["SUR"], _CODE["PRE"], _CODE["NOM"]
_ONOMATOPOEIA = rule_code("onomatopoeia")
_REPETITION = rule_code("repetition")

# Per-spelling flags, in this order (one column of the table of spellings).
_FLAGS = ("place", "first_name", "ordinary", "capitalised", "caps", "brand_any", "brand_capitalised",
          "place_cue", "person_cue", "nickname", "ordinary_folded", "place_head", "title", "brand_head",
          "truncation", "surname", "everyday_brand", "common", "user_name", "word_like_nickname", "initial",
          "initial_cue", "other_language_word", "subject_verb", "phrase_word", "phrase_first_word",
          "glued_first_names", "holiday", "any_person_cue", "ordinary_after_cue", "misspelt_place",
          "misspelt_ordinary")
assert len(_FLAGS) <= 32  # the bits of one uint32
# The rules of a word that a name list holds in context: a surname after a title or a first name
# (Mme Petit, Léa Fontaine), a name the team knows: never left to the word scorer's judgement.
_CONTEXT_NAME_CODES = SURNAME_CODES + (rule_code(Rule.KNOWN_NAME),)


def brands() -> dict[str, str]:
    """brand -> case ('any' or 'capitalised'), from dictionaries/brands/brands.tsv (two-word
    brands with one space: 'leroy merlin')."""
    return word_table("brands/brands.tsv")


@functools.cache
def brand_heads() -> frozenset[str]:
    """The first words of the two-word brands ('leroy' of 'leroy merlin')."""
    return frozenset(b.split(" ")[0] for b in brands() if b.count(" ") == 1)


@functools.cache
def brands_by_case() -> tuple[frozenset[str], frozenset[str]]:
    """(the brands recognised in any case, those recognised only capitalised): brands() by case."""
    table = brands()
    return (frozenset(b for b, case in table.items() if case == "any"),
            frozenset(b for b, case in table.items() if case == "capitalised"))


# Keyed by the lexicons themselves, weakly (as triage.model.names does): (places, first words of two-word places).
_PLACES: weakref.WeakKeyDictionary[Lexicons, tuple[frozenset[str], frozenset[str]]] = weakref.WeakKeyDictionary()


def places(lexicons: Lexicons) -> tuple[frozenset[str], frozenset[str]]:
    """(every place spelling the place recognizer knows, the first words of its two-word places)."""
    if lexicons not in _PLACES:
        known = frozenset(lexicons.cities | lexicons.regions | lexicons.countries | FOREIGN_PLACES)
        _PLACES[lexicons] = known, frozenset(p.split(" ")[0] for p in known if p.count(" ") == 1)
    return _PLACES[lexicons]


def is_truncation_shape(text: str, folded: str, starts: frozenset[str]) -> bool:
    """seb, caro, steph as written: lower case, TRUNCATION_LENGTHS letters, the start of a common
    first name."""
    return text.islower() and len(folded) in TRUNCATION_LENGTHS and folded.isalpha() and folded in starts


# Two first names glued into one word (Mariethérèse, Jeanluc, annesophie): each part among the
# GLUED_FROM commonest first names (accents aside) and of GLUED_PART_LENGTH letters or more. Chosen on
# the development files of 88milSMS: 31 of the 37 such words there are gold names, and the others
# are words of the lists (analyse), names of the lists (Frédéric) or one name twice (louploup, a pet
# name), which the step leaves alone.
GLUED_FROM = 2_000
GLUED_PART_LENGTH = 3
_GLUED_PART_MAX = 20  # letters of a part at most (the longest of the commonest has 12): a pasted long word costs nothing
_GLUED_PARTS: weakref.WeakKeyDictionary[Lexicons, frozenset[str]] = weakref.WeakKeyDictionary()


def glued_parts(lexicons: Lexicons) -> frozenset[str]:
    """The first names a glued compound may be made of (GLUED_FROM, GLUED_PART_LENGTH), accents aside."""
    if lexicons not in _GLUED_PARTS:
        # A spelling is among the commonest when its best-ranked name is, that is when one of its
        # names is: only those names are folded.
        keys = {fold(name).lower() for name, rank in lexicons.first_name_ranks.items() if rank <= GLUED_FROM}
        _GLUED_PARTS[lexicons] = frozenset(key for key in keys
                                           if GLUED_PART_LENGTH <= len(key) <= _GLUED_PART_MAX and key.isalpha())
    return _GLUED_PARTS[lexicons]


def is_glued_first_names(folded: str, parts: frozenset[str]) -> bool:
    """Whether a folded lower-case spelling is two different ones of `parts` glued (mariepaule: marie +
    paule; not louploup, one name twice: a pet name, read as the reduplications are)."""
    n, k = len(folded), GLUED_PART_LENGTH
    return 2 * k <= n <= 2 * _GLUED_PART_MAX and folded.isalpha() and any(
        folded[:i] in parts and folded[i:] in parts and folded[:i] != folded[i:] for i in range(k, n - k + 1))


# Keyed by the lexicons themselves, weakly: (the first GLUED_PART_LENGTH + 1 letters of each of
# glued_parts longer than GLUED_PART_LENGTH, their last GLUED_PART_LENGTH + 1 letters, the parts of
# GLUED_PART_LENGTH letters), each as the sorted numbers of those letters (_letters_numbered).
_GLUED_ENDS: weakref.WeakKeyDictionary[Lexicons, tuple[np.ndarray, ...]] = weakref.WeakKeyDictionary()


def _numbered(texts) -> np.ndarray:
    """The sorted numbers of a few ASCII texts of one length, as _letters_numbered numbers letters."""
    return np.asarray(sorted(int.from_bytes(text.encode("ascii"), "big") for text in texts), dtype=np.int64)


def _letters_numbered(codes: np.ndarray, at: np.ndarray, width: int) -> np.ndarray:
    """The `width` ASCII codes from each of `at` in `codes`, as one number each (the codes as
    bytes, big-endian: one number per string of `width` letters)."""
    number = np.zeros(len(at), dtype=np.int64)
    for i in range(width):
        number = number << 8 | codes[at + i]
    return number


def _glued_many(lexicons: Lexicons, folded: list[str], rows=None) -> np.ndarray:
    """[is_glued_first_names(f, glued_parts(lexicons)) for f in folded] (folded lower-case
    spellings; `rows`: their spelling_batch.ascii_rows, when worked out already): only a spelling
    that starts with a part and ends with one can be two parts glued, and only those are tried. A
    part of GLUED_PART_LENGTH letters starts (ends) it whole; a longer one, by its first (last)
    GLUED_PART_LENGTH + 1 letters: these letters of the spellings are compared as numbers."""
    parts, k = glued_parts(lexicons), GLUED_PART_LENGTH
    if lexicons not in _GLUED_ENDS:
        longer = [part for part in parts if len(part) > k]
        _GLUED_ENDS[lexicons] = (_numbered({part[:k + 1] for part in longer}),
                                 _numbered({part[-k - 1:] for part in longer}),
                                 _numbered(part for part in parts if len(part) == k))
    heads, tails, whole = _GLUED_ENDS[lexicons]
    rows = batch.ascii_rows(folded) if rows is None else rows
    if rows is None:  # a spelling that is not ASCII: each is tried
        tried = np.arange(len(folded))
    else:
        codes, starts, lengths = rows
        tried = np.flatnonzero((lengths >= 2 * k) & (lengths <= 2 * _GLUED_PART_MAX))
        first = starts[tried]  # those that start with a part, then those of them that end with one
        tried = tried[among(heads, _letters_numbered(codes, first, k + 1)) |
                      among(whole, _letters_numbered(codes, first, k))]
        end = starts[tried] + lengths[tried]
        tried = tried[among(tails, _letters_numbered(codes, end - k - 1, k + 1)) |
                      among(whole, _letters_numbered(codes, end - k, k))]
    found = np.zeros(len(folded), dtype=bool)
    found[tried] = [is_glued_first_names(folded[i], parts) for i in tried.tolist()]
    return found


def _reduplications(folded: list[str], rows=None) -> np.ndarray:
    """[is_nickname_reduplication(f) for f in folded] (`rows`: their spelling_batch.ascii_rows, when
    worked out already): only a spelling of four or six letters whose halves are the same is tried."""
    rows = batch.ascii_rows(folded) if rows is None else rows
    if rows is None:  # a spelling that is not ASCII
        lengths = np.fromiter(map(len, folded), dtype=np.int64, count=len(folded))
        return _where_possible(is_nickname_reduplication, np.isin(lengths, (4, 6)), folded)
    codes, starts, lengths = rows
    doubled = np.zeros(len(folded), dtype=bool)
    for half in (2, 3):
        at = np.flatnonzero(lengths == 2 * half)
        doubled[at] = _letters_numbered(codes, starts[at], half) == _letters_numbered(codes, starts[at] + half, half)
    return _where_possible(is_nickname_reduplication, doubled, folded)


def _where_possible(test, possible: np.ndarray, *columns: list) -> np.ndarray:
    """[test(*values) for values in zip(*columns)] as a bool array, for a test that is False
    wherever `possible` is: only the possible rows are tested."""
    tried = np.flatnonzero(possible)
    found = np.zeros(len(possible), dtype=bool)
    at = tried.tolist()
    found[tried] = list(map(test, *([column[i] for i in at] for column in columns)))
    return found


def is_nickname_reduplication(folded: str) -> bool:
    """jeje, titi, Domdom, Yanyan: a repeated syllable of two or three letters with a vowel
    (not chercher, not lélélélé)."""
    n = len(folded)
    half = folded[: n // 2]
    return 4 <= n <= 6 and n % 2 == 0 and half == folded[n // 2 :] and folded.isalpha() and bool(_VOWELS & set(half))


@spelling_column("recognizers.flags", np.uint32)
def _flags_many(table, sids: np.ndarray) -> np.ndarray:
    """The _FLAGS of the spellings `sids` of a table, as written, a uint32 each: flag i is bit i % 8
    of its byte i // 8 (bit i of the number, its bytes in little-endian order; unpacked by `flags`)."""
    bits = np.zeros(len(sids), dtype=np.uint32)
    for bit, flag in enumerate(_flag_columns(table, sids)):
        bits |= flag.astype(np.uint32) << np.uint32(bit)
    return bits.astype("<u4", copy=False).view(np.uint32)


def flags(table, spelling: np.ndarray, keep: np.ndarray) -> dict[str, np.ndarray]:
    """Per flag of _FLAGS, its value for each spelling id of `spelling` (the tokens of a batch)
    where `keep` holds, else False: one bool array each."""
    return _unpacked(_flag_bits(table, spelling, keep))


def _flag_bits(table, spelling: np.ndarray, keep: np.ndarray) -> np.ndarray:
    """The _FLAGS bits (a uint32, bit i for _FLAGS[i]) of each spelling id of `spelling` where
    `keep` holds, else 0."""
    return np.where(keep, np.take(table.column(_flags_many), spelling), np.uint32(0))


def _unpacked(bits: np.ndarray) -> dict[str, np.ndarray]:
    """Per flag of _FLAGS, the bool array of its bit in `bits` (_flag_bits), each contiguous: the
    recognizers combine them over every token of a batch."""
    # The bytes of the uint32s (little-endian: bits 0 to 7 first), a contiguous row per byte.
    rows = np.ascontiguousarray(bits.view(np.uint8).reshape(-1, 4).T)
    return {name: (rows[i >> 3] & np.uint8(1 << (i & 7))) != 0 for i, name in enumerate(_FLAGS)}


def _flag_columns(table, sids: np.ndarray) -> list[np.ndarray]:
    """The _FLAGS of the spellings `sids` of a table, as written: a bool array of len(sids) each, in order."""
    lexicons = table.lexicons
    if not len(sids):
        return [np.zeros(0, dtype=bool)] * len(_FLAGS)
    texts = texts_of(table, sids)
    key, folded_keys = batch.keys(table)[sids].tolist(), batch.folded_keys(table)[sids]
    folded = folded_keys.tolist()
    known_places, heads = places(lexicons)
    shortened = truncations(lexicons)
    # The small lists asked about each spelling as written (key), accents aside (folded), without
    # its final full stops (for the cues and titles) or apostrophes (for the verbs): one look-up per
    # spelling, by its key. Most spellings are their folded key, and end with no full stop nor
    # apostrophe: the others are asked about again, folded or stripped.
    (place, word_like_key, place_cue, head, brand_head, everyday_brand, service, initial_cue, other_word,
     person_cue, ordinary_after_cue, brand_any, brand_capitalised, word_like_folded, phrase_word, phrase_first_word,
     holiday, person_only_cue, title, subject_verb, truncation_start) = memberships(
        (known_places, WORD_LIKE_NICKNAMES, PLACE_CUES, heads, brand_heads(), EVERYDAY_BRANDS, SERVICES,
         INITIAL_CUES, OTHER_WORDS, PERSON_CUES, ORDINARY_AFTER_CUES, *brands_by_case(), WORD_LIKE_NICKNAMES,
         _PHRASE_WORDS, _PHRASE_FIRST_WORDS, HOLIDAYS, _PERSON_ONLY_CUES, TITLES, SUBJECT_VERBS, shortened), key).T
    other = np.flatnonzero(batch.differing(table, "folded")[sids])
    (word_like_folded[other], phrase_word[other], phrase_first_word[other], holiday[other],
     truncation_start[other]) = memberships(
        (WORD_LIKE_NICKNAMES, _PHRASE_WORDS, _PHRASE_FIRST_WORDS, HOLIDAYS, shortened), folded_keys[other].tolist()).T
    last = batch.last_key_characters(table)[sids]
    dotted = np.flatnonzero(last == ord("."))
    person_only_cue[dotted], title[dotted] = memberships(
        (_PERSON_ONLY_CUES, TITLES), [key[i].rstrip(".") for i in dotted.tolist()]).T
    quoted = np.flatnonzero(last == ord("'"))
    subject_verb[quoted] = members(SUBJECT_VERBS, [key[i].rstrip("'") for i in quoted.tolist()])
    scalars = table.numpy()
    # The table's capitalised is text[:1].isupper() and not text.isupper(): with upper (text.isupper()),
    # neither of them is a text that starts with no capital.
    capitalised, length = scalars.capitalised[sids], scalars.length[sids]
    upper = batch.upper(table)[sids]
    longer = length > 1
    # An ordinary word with a nickname's shape (dodo, papa, lun): nicknames/exceptions.txt.
    word_like = word_like_key | word_like_folded
    rows = batch.ascii_rows(folded)  # folded keys are ASCII (fold)

    def known(name: str, spelled: str = "key") -> np.ndarray:
        return batch.known(table, name, spelled)[sids]

    return [
        place,
        known("first_names") | known("first_names", "folded"),
        known("forms") | known("sms") | known("pronouns"),
        capitalised,
        upper & longer,
        brand_any,
        brand_capitalised,
        place_cue,
        person_only_cue,
        _reduplications(folded, rows) & ~word_like,
        table.column(_ordinary_words)[sids],
        head,
        title,
        brand_head,
        _where_possible(functools.partial(is_truncation_shape, starts=shortened), truncation_start, texts,
                        folded) & ~word_like,
        known("last_names") | known("last_names", "folded"),
        everyday_brand,
        # Names so many people that it identifies no one: a service everyone uses, or a place that is
        # no French commune (a region, a country, a place abroad: Occitanie, Italie, Londres; not Nice).
        service | place & ~known("cities"),
        known("user_names"),
        ~upper & word_like,  # in lower case, or with a capital (recognise: where a sentence opens)
        _where_possible(INITIAL_LETTERS.__contains__, length == 1, texts),  # a letter alone
        initial_cue,
        ~capitalised & ~upper & other_word,  # in lower case
        subject_verb,
        phrase_word,
        phrase_first_word,
        _glued_many(lexicons, folded, rows),  # folded keys are in lower case (fold)
        holiday,
        person_cue,
        known("pronouns") | ordinary_after_cue,
        *_misspelt_places.compute(table, sids).T,  # two flags (read here only: not kept as a column of its own)
    ]


# The SMS heuristics of Seek&Hide whose reading may be a place (_misspelt_places), as rule codes.
_HEURISTIC_CODES = np.asarray([rule_code(rule) for rule in (Rule.ACCENT, Rule.REPETITION, Rule.MISSPELLING)])


@spelling_column("recognizers.misspelt_place", bool, width=2)
def _misspelt_places(table, sids: np.ndarray) -> np.ndarray:
    """Per spelling `sids` of a table, (whether an SMS heuristic of Seek&Hide read it as a place:
    accents aside, letters repeated read once, or one edit away (Nimes: nîmes, Toulousse:
    toulouse, Marseile: marseille); whether that reading is also an ordinary word: a word of the
    inflected forms, the SMS forms or the pronouns, as the flag `ordinary`), (len(sids), 2)."""
    lexicons = table.lexicons
    known_places, _ = places(lexicons)
    folded_places = _folded_places(lexicons)
    found = np.zeros((len(sids), 2), dtype=bool)
    # Only the spellings an SMS heuristic read (the table's rule codes) are looked at.
    read = np.flatnonzero(np.isin(table.numpy().rule[sids], _HEURISTIC_CODES))
    matches = [table.infos[s].match for s in sids[read].tolist()]
    for i, match, folded in zip(read.tolist(), matches, batch.fold_many(matches)):
        if match in known_places or folded in folded_places:
            found[i] = True, match in lexicons.forms or match in lexicons.sms or match in lexicons.pronouns
    return found


_FOLDED_PLACES: weakref.WeakKeyDictionary[Lexicons, frozenset[str]] = weakref.WeakKeyDictionary()


def _folded_places(lexicons: Lexicons) -> frozenset[str]:
    """The place spellings of `places`, accents aside."""
    if lexicons not in _FOLDED_PLACES:
        known = list(places(lexicons)[0])
        joined = "\n".join(known)
        # Folding works character by character and leaves a line break as it is: the places joined
        # are folded at once, when no place holds a line break.
        if joined.count("\n") == len(known) - 1 and known:
            _FOLDED_PLACES[lexicons] = frozenset(fold(joined).split("\n"))
        else:
            _FOLDED_PLACES[lexicons] = frozenset(map(fold, known))
    return _FOLDED_PLACES[lexicons]


@spelling_column("recognizers.ordinary", bool)
def _ordinary_words(table, sids: np.ndarray) -> np.ndarray:
    """lexicons.lookup(spelling_key(text))[1] for each spelling `sids` of a table: an ordinary
    word, accents aside (tete is tête)."""
    def known(name: str, spelled: str = "key") -> np.ndarray:
        return batch.known(table, name, spelled)[sids]

    in_names = known("first_names") | known("last_names")
    in_anti = known("other_anti") | known("forms")
    by_folding = known("user_words", "folded") | known("other_anti", "folded") | known("forms", "folded") \
        | known("folded_anti", "folded")
    return known("user_words") | ~known("user_names") & np.where(in_names | in_anti, in_anti, by_folding)


@dataclass
class Recognised:
    """The recognizers' verdict on a batch: per token, the tag of what it is ('' for none)."""

    tag: np.ndarray  # (tokens,) LIE / MAR / SUR / PRE (an initial) / NONE, codes into TAG_CODES: found, hidden when asked
    # (tokens,) the tag of a word the word scorer hides: `tag`, or LIE for a place that is no first
    # name wherever it stands ("train pour Marseille": a place is never hidden as a first name).
    scorer_tag: np.ndarray
    hidden: np.ndarray | None = None  # (tokens,) hidden before the word scorer, once `apply` has run
    # (tokens,) words a context rule reads as ordinary words (Seek&Hide's determiner and copula
    # rules: "une rose", "l'eau est claire"): the word scorer leaves them visible, but they still count in the message's risk
    kept_visible: np.ndarray | None = None
    # (tokens,) titles (Mme, Dr): never a name, so neither hidden by the word scorer nor a risk
    # (Seek&Hide's title step: the capitalised word after one is the surname)
    title: np.ndarray | None = None
    # (tokens,) what names too many people to identify one (a service everyone uses, a region, a
    # country that is no first name): never hidden, nor a risk
    common: np.ndarray | None = None
    # (tokens,) words Seek&Hide hides only because a name list holds them (no context rule, no name
    # the team knows or lists, nothing the recognizers found): the word scorer, which reads the
    # word in its context, decides whether they stay hidden ("on se vera", "el est là": verbs and
    # pronouns spelt as first names)
    scorer_decides: np.ndarray | None = None
    # (tokens,) a word no list holds that opens a sentence right before a verb or an object pronoun
    # ("Zorane prend le bus"): its probability counts in the risk as at least SUBJECT_RISK
    subject: np.ndarray | None = None
    # (tokens,) a word with a capital right after a person cue ("avec Equipe", "Coucou El !"): as a
    # person's name, its probability counts in the risk as at least CUE_CAPITAL_RISK
    capital_after_cue: np.ndarray | None = None
    # (tokens,) where what is hidden ends when the token is hidden as a place: its own end, or the
    # end of the district written right after it (Lyon 07, Paris 15e: step place-district)
    reach: np.ndarray | None = None
    # (tokens,) where what the recognizers hide of each token ends, once apply has chosen what
    # they hide (with place-district: a place hidden reaches over its district)
    hidden_end: np.ndarray | None = None

    def ends(self, tokens: np.ndarray, codes: np.ndarray, end: np.ndarray) -> np.ndarray:
        """The end of what hiding each of `tokens` with the tag `codes` (TAG_CODES) hides, `end`
        the tokens' ends: a place reaches over its district."""
        if self.reach is None:
            return end[tokens]
        ends = np.where(codes == LIE, self.reach[tokens], end[tokens])
        if self.hidden_end is not None:  # a token hidden already keeps the end it was hidden with
            ends = np.where(self.hidden[tokens], self.hidden_end[tokens], ends)
        return ends


def recognise(analysis: Analysis) -> Recognised:
    """Places, brands and nicknames among the words of a batch, in context."""
    a = analysis
    table, lexicons = a.spellings, a.labeller.lexicons
    word = a.kind == K_WORD
    bits = _flag_bits(table, a.spelling, word)
    f = _unpacked(bits)
    words = np.flatnonzero(word)
    # A message written in capitals says nothing by them of a word alone: it is read as if written in
    # lower case (JE SUIS A LA GARE: Gare is a commune, la gare is not). Two words the lists hold
    # together (LA ROCHELLE, AIR FRANCE) and a title before a name (AVEC M. KAYA) are read as written.
    in_capitals = _in_capitals(a, f["caps"], word)
    shouted = in_capitals[a.message] if in_capitals.any() else np.zeros(len(a.kind), dtype=bool)
    # Per word, the word before it is in the same message; per pair of words one after the other,
    # the second follows the first right away in one message (nothing but white space between).
    same = np.zeros(len(words), dtype=bool)
    word_message = a.message[words]
    same[1:] = word_message[1:] == word_message[:-1]
    joined = same[1:] & (words[1:] == words[:-1] + 1)
    # Per token, the flags of the word before it in the same message (0 for none).
    bits_before = np.zeros(len(a.kind), dtype=np.uint32)
    bits_before[words[1:]] = np.where(same[1:], bits[words[:-1]], np.uint32(0))

    def after(name: str) -> np.ndarray:
        return (bits_before & np.uint32(1 << _FLAGS.index(name))) != 0

    def followed(head: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(the words where `head` holds (a flag: False but at words) that a word of the same
        message follows, that word for each)."""
        at = np.searchsorted(words, np.flatnonzero(head))  # their places among the words
        at = at[at < len(words) - 1]
        at = at[same[at + 1]]
        return words[at], words[at + 1]

    place_cue, person_cue = after("place_cue"), after("person_cue")
    written = f["capitalised"] | f["caps"]
    said = written & ~shouted  # what the capitals say of a word alone
    place, cue = f["place"].copy(), place_cue.copy()
    # A place misspelt (à Marseile, sur Montpelier, à Toulousse): an SMS heuristic's match is a place.
    if a.labeller.is_on("misspelt-place"):
        place |= f["misspelt_place"]
        # A reading that is also an ordinary word (VIENNNSSS: viens, a verb and Viens, a commune;
        # moyeeen: moyen) is read as the exact spelling would be: a place after a cue or with a
        # capital mid-sentence (à Pariiis), else the word.
        f["ordinary"] = f["ordinary"] | f["misspelt_ordinary"]
    # Two-word places ("La Rochelle"): the first word and the next, one space apart, in the list
    # together; the pair is a place as its second word is, with the cue before the first word.
    heads, seconds = followed(f["place_head"])
    heads, seconds = heads[written[seconds]], seconds[written[seconds]]
    pairs = []
    known_places, _ = places(lexicons)
    for t, nxt, key in _one_space_apart(a, heads, seconds):
        if key in known_places:
            pairs.append((t, nxt))
            place[nxt], cue[nxt] = True, place_cue[t]
    strong = said | ~f["ordinary"]
    for _, nxt in pairs:  # a two-word place of the lists, as written
        strong[nxt] |= written[nxt]
    # A region, a country, a place abroad or a service names no one (k people, k in the millions);
    # one that is also a first name (Florence, France) is read as the other places are.
    common = f["common"] & ~f["first_name"] & a.labeller.is_on("common-names")
    # A holiday that is a first name too (Noël) names no one, unless a person cue comes right before it
    # ("avec Noël"): read as the places and services that name no one are.
    if a.labeller.is_on("holiday"):
        common = common | (f["holiday"] & ~person_cue)
    place &= ~common
    lie = place & strong & ~(person_cue & f["first_name"]) & (
        cue | (said & ~f["first_name"] & (~a.sentence_start | ~f["ordinary"]))
    )
    for t, nxt in pairs:
        lie[t] = lie[nxt]
    one_word_brand = f["brand_any"] | (f["brand_capitalised"] & ~shouted
                                       & (f["caps"] | f["capitalised"] & ~a.sentence_start))
    # A brand named like a person (Zara, Jennyfer, Célio) is a person after a person cue ("avec
    # Zara"), as a first name that is also a city is: privacy first, "chez Zara" is hidden too.
    if a.labeller.is_on("brand-person-cue"):
        one_word_brand &= ~(person_cue & f["first_name"])
    mar = one_word_brand & ~common
    # Two-word brands ("Leroy Merlin", "yves rocher"): the first word and the next, one space
    # apart, in the brand list together, are a brand whatever comes before them, even when each
    # word is a first name ("chez Leroy Merlin"); one marked `capitalised` needs its second word
    # written with a capital ("Air France": the second word never starts a sentence).
    if a.labeller.is_on("two-word-brand"):
        brand_heads_at, seconds = followed(f["brand_head"])
        table_of_brands = brands() if len(brand_heads_at) else {}
        for t, nxt, key in _one_space_apart(a, brand_heads_at, seconds):
            case = table_of_brands.get(key)
            if case == "any" or case == "capitalised" and (f["caps"][nxt] or f["capitalised"][nxt]):
                mar[t] = mar[nxt] = True
    # Laughter is no nickname, even after a cue (bisous hihi: Seek&Hide's onomatopoeia step).
    sur = f["nickname"] & ~f["first_name"] & (~f["ordinary_folded"] | person_cue) & (a.rule != _ONOMATOPOEIA)
    # A first name cut short (seb) that Seek&Hide could not settle: hidden after a person cue, else
    # left to the word scorer as SUR (its probability counts in the risk).
    truncated = f["truncation"] & (a.label == L_UNKNOWN) & a.labeller.is_on("nickname-truncation")
    tag = np.zeros(len(a.kind), dtype=np.int8)
    tag[sur | truncated & person_cue] = SUR
    if a.labeller.is_on("glued-first-names"):
        tag[f["glued_first_names"] & (a.label == L_UNKNOWN)] = PRE
    if a.labeller.is_on("initial"):
        tag[_initials(a, f["initial"] & after("initial_cue") & ~a.sentence_start, words, same, written)] = PRE
    tag[lie] = LIE
    tag[mar] = MAR
    scorer_tag = tag.copy()
    scorer_tag[truncated & (tag == NONE)] = SUR
    plain = f["ordinary"] & (~said | a.sentence_start)  # "Bonne journée": a commune, but not here
    scorer_tag[(tag == NONE) & place & ~plain & ~f["first_name"]] = LIE
    # A brand of the lists, or an everyday word that is also a brand (Free, Orange), that is no
    # first name nor surname is a brand wherever it stands: the word scorer hides it as MAR, never
    # as a name (so not at all unless --hide names MAR).
    if a.labeller.is_on("brand-word"):
        brand = (f["brand_any"] | f["brand_capitalised"] | f["everyday_brand"]) & ~f["first_name"] & ~f["surname"]
        scorer_tag[(scorer_tag == NONE) & brand] = MAR
    title = f["title"] if a.labeller.is_on("title") else np.zeros(len(a.kind), dtype=bool)
    scorer_tag[common] = NONE
    listed_only = (a.label == L_DICTIONARY) & ~any_of(a.rule, _CONTEXT_NAME_CODES) & (tag == NONE) & ~f["user_name"]
    if a.known_tag is not None:
        listed_only &= a.known_tag < 0
    # An ordinary word with a nickname's shape (papa, dodo, caca) may be a nickname: never hidden by
    # the word scorer, its probability sends the message to a person when it looks like one. In lower
    # case, or with a capital where a sentence opens ("Caca !"): a capital elsewhere may make it a name.
    word_like = f["word_like_nickname"] & (~f["capitalised"] | a.sentence_start)
    kept_visible = any_of(a.rule, READ_AS_WORD_CODES) | word_like
    if a.labeller.is_on("other-language-word"):
        kept_visible |= f["other_language_word"]
    if a.labeller.is_on("fixed-phrase"):
        kept_visible |= _in_fixed_phrases(a, f["phrase_word"], f["phrase_first_word"], words, joined)
    if a.labeller.is_on("unit-after-number"):
        kept_visible |= _units_after_numbers(a)
    if a.labeller.is_on("emphasised-word"):
        # Letters repeated for emphasis that read as an ordinary word and as no name (Okaay: okay).
        kept_visible |= (a.rule == _REPETITION) & (a.label == L_ANTI)
    subject = np.zeros(len(a.kind), dtype=bool)
    if a.labeller.is_on("subject-before-verb"):
        # The next token is a word of SUBJECT_VERBS in the same message, nothing but white space between.
        verb_next = np.zeros(len(words), dtype=bool)
        verb_next[:-1] = joined & f["subject_verb"][words[1:]]
        subject[words[verb_next]] = True
        subject &= (a.label == L_UNKNOWN) & a.sentence_start
    capital_after_cue = np.zeros(len(a.kind), dtype=bool)
    if a.labeller.is_on("capital-after-cue"):
        # The token right before is a person cue of the same message (nothing between but white space).
        cued = np.zeros(len(a.kind), dtype=bool)
        cued[words[1:][joined]] = True
        cued &= after("any_person_cue")
        capital_after_cue = cued & written & ~f["ordinary_after_cue"] & ~title
    reach = _districts(a, place, words, same) if a.labeller.is_on("place-district") else None
    return Recognised(tag, scorer_tag, kept_visible=kept_visible, title=title, common=common,
                      scorer_decides=listed_only & a.labeller.is_on("scorer-decides"), subject=subject, reach=reach,
                      capital_after_cue=capital_after_cue)


def _one_space_apart(a: Analysis, firsts: np.ndarray, seconds: np.ndarray) -> list[tuple[int, int, str]]:
    """(first, second, spelling_key of the two words with a space between) for the words `firsts`
    and the words `seconds` after them in the same message that are written one space apart. The
    key is the words' keys (spelling_key: lower case and one apostrophe, letter by letter, which
    a space between two words leaves as they are) joined by the space."""
    near = a.start[seconds] - a.end[firsts] == 1  # one character between them, the space looked for
    firsts, seconds = firsts[near], seconds[near]
    keys = batch.keys(a.spellings)
    return [(t, nxt, f"{first} {second}") for t, nxt, first, second in
            zip(firsts.tolist(), seconds.tolist(), keys[a.spelling[firsts]].tolist(), keys[a.spelling[seconds]].tolist())
            if a.texts[a.message[t]][a.end[t]] == " "]


def _districts(a: Analysis, place: np.ndarray, words: np.ndarray, same: np.ndarray) -> np.ndarray | None:
    """Per token, the end of what hiding it as a place hides: a word of the place lists followed,
    one space apart in its message, by a district (_DISTRICT: with a leading zero or an ordinal
    ending, or else before punctuation or at the message's end) reaches over the district; None
    when no place of the batch has one."""
    at = np.flatnonzero(place[:-1])  # few places: the tokens after them are read at them only
    at = at[(a.kind[at + 1] == K_NUMBER) & (a.message[at + 1] == a.message[at]) & (a.start[at + 1] == a.end[at] + 1)]
    reach = None
    for t in at.tolist():
        text = a.texts[a.message[t]]
        number = text[a.start[t + 1]:a.end[t + 1]]
        if text[a.end[t]] != " " or not _DISTRICT.fullmatch(number):
            continue
        if not _ORDINAL_OR_ZERO.fullmatch(number):
            last = t + 2 >= len(a.kind) or a.message[t + 2] != a.message[t]
            if not last and a.kind[t + 2] != K_PUNCT:
                continue
        if reach is None:
            reach = a.end.copy()
        reach[t] = a.end[t + 1]
    return reach


def _in_capitals(a: Analysis, caps: np.ndarray, word: np.ndarray) -> np.ndarray:
    """Per message, whether it is written in capitals: at least two words in capitals (of two
    letters or more: caps, per token, False but at words), and no word of two letters or more
    that is not. `word`: per token, a word."""
    n = len(a.bounds) - 1
    # Only the messages with two words in capitals or more are looked at for the others.
    candidate = np.bincount(a.message[caps], minlength=n) >= 2
    if not candidate.any():
        return candidate
    other = np.flatnonzero(candidate[a.message] & word & ~caps)
    other = other[(a.end[other] - a.start[other]) > 1]
    return candidate & (np.bincount(a.message[other], minlength=n) == 0)


def _in_fixed_phrases(a: Analysis, phrase_word: np.ndarray, first_word: np.ndarray, words: np.ndarray,
                      pairs_joined: np.ndarray) -> np.ndarray:
    """Per token, whether it is a word of a fixed phrase (FIXED_PHRASES) written whole: its words
    one right after another in one message, nothing but white space between, accents and case aside.
    `pairs_joined`: per pair of consecutive `words`, the second follows the first right away in one message."""
    found = np.zeros(len(a.kind), dtype=bool)
    # Per word, the next word follows it right away in the same message.
    joined = np.zeros(len(words), dtype=bool)
    joined[:-1] = pairs_joined
    flagged = phrase_word[words]
    # Where a phrase may start: a first word of a phrase followed right away by a word of a phrase
    # (frequent words such as "a" or "de" start phrases: the rest is looked at for these only).
    starts = np.zeros(len(words), dtype=bool)
    starts[:-1] = first_word[words[:-1]] & joined[:-1] & flagged[1:]
    folded = batch.folded_keys(a.spellings)
    for first in np.flatnonzero(starts).tolist():
        for length in _PHRASE_LENGTHS:
            last = first + length - 1
            if last >= len(words) or not (flagged[first:last + 1].all() and joined[first:last].all()):
                continue
            at = words[first:last + 1]
            if tuple(folded[a.spelling[at]].tolist()) in FIXED_PHRASES:
                found[at] = True
                break
    return found


def _units_after_numbers(a: Analysis) -> np.ndarray:
    """Per token, whether it is a letter alone right after a number of the same message, glued to
    it or one space apart: a unit (à 9 H., 5 L d'eau), no initial."""
    found = np.zeros(len(a.kind), dtype=bool)
    if len(a.kind) < 2:
        return found
    at = np.flatnonzero(a.kind[:-1] == K_NUMBER)  # few numbers: the tokens after them are read at them only
    after = at + 1
    at = after[(a.kind[after] == K_WORD) & (a.end[after] - a.start[after] == 1) & (a.message[after] == a.message[at])
               & (a.start[after] - a.end[at] <= 1)]
    for t in at.tolist():
        text = a.texts[a.message[t]]
        found[t] = text[a.start[t]].isalpha() and text[a.end[t - 1]:a.start[t]] in ("", " ")
    return found


def _initials(a: Analysis, initial: np.ndarray, words: np.ndarray, same: np.ndarray,
              written: np.ndarray) -> np.ndarray:
    """The tokens of `initial` (a lone capital after a cue) that follow the cue one space apart,
    stand alone (not "P-P-P") and are no title before a surname: not followed, one full stop
    apart, by a word with a capital ("avec M. Kaya")."""
    found = np.flatnonzero(initial)
    if not len(found):
        return found
    at = np.searchsorted(words, found)
    keep = np.ones(len(found), dtype=bool)
    for k, (t, i) in enumerate(zip(found.tolist(), at.tolist())):
        text, start, end = a.texts[a.message[t]], a.start[t], a.end[t]
        # The cue right before it, one space apart; the letter no part of a longer word (P-P-PERSPICACE,
        # M.Dupont).
        keep[k] = (i > 0 and words[i - 1] == t - 1 and text[a.end[t - 1]:start] == " "
                   and text[end:end + 1] not in ("-", "'", "’") and not (text[end:end + 1] == "." and text[end + 1:end + 2].isalpha()))
        if keep[k] and i + 1 < len(words) and same[i + 1] and written[words[i + 1]]:
            keep[k] = text[end:a.start[words[i + 1]]].strip() != "."
    return found[keep]


def apply(analysis: Analysis, hide: frozenset[str] | set[str],
          recognised: Recognised | None = None) -> tuple[list[list[Span]], np.ndarray, Recognised]:
    """(per message, the sorted [start, end, TAG] hidden before the word scorer; the message
    labels (codes into MESSAGE_LABELS) under `hide`; the recognizers' verdict, with which tokens
    are hidden)."""
    a = analysis
    recognised = recognised or recognise(a)
    seek_positions, seek_tags = a.hidden_tags()
    tag = recognised.tag.copy()
    if len(seek_positions):
        seek_codes = np.fromiter(map(_CODE.get, seek_tags.tolist(), itertools.repeat(0)), dtype=np.int8,
                                 count=len(seek_positions))
        own = tag[seek_positions] == NONE
        # A surname read from its context (after a title or a first name: Mme Fontaine, Léa
        # Fontaine) is a person, not the town or the brand it is also (a nickname keeps its SUR).
        own |= any_of(a.rule[seek_positions], SURNAME_CODES) & any_of(tag[seek_positions], (LIE, MAR))
        if a.known_tag is not None:  # a known name keeps its own tag (PRE, NOM, SUR), wherever it stands
            own |= a.known_tag[seek_positions] >= 0
        tag[seek_positions[own]] = seek_codes[own]
    recognised.hidden = np.take(hide_mask(hide), tag)
    kept = np.flatnonzero(recognised.hidden)
    ends = a.end[kept]
    if recognised.reach is not None:  # a place reaches over its district
        ends = np.where(tag[kept] == LIE, recognised.reach[kept], ends)
        recognised.hidden_end = a.end.copy()
        recognised.hidden_end[kept] = ends
    spans = list(zip(a.start[kept].tolist(), ends.tolist(), _TAGS[tag[kept]].tolist()))
    cuts = a.per_message(kept).tolist()
    hidden: list[list[Span]] = [spans[b:e] for b, e in zip(cuts[:-1], cuts[1:])]
    # Labels: TA with something hidden; else NTA when every word is ordinary or recognised
    # (a place left readable is settled), else UNTAGGED (as Seek&Hide says).
    n = len(a)
    something = np.bincount(a.message[kept], minlength=n) > 0
    unsettled_words = np.flatnonzero((a.kind == K_WORD) & (a.label != L_ANTI) & (tag == NONE) & ~recognised.common)
    unsettled = np.bincount(a.message[unsettled_words], minlength=n) > 0
    labels = np.where(something, 0, np.where(unsettled, 2, 1)).astype(np.int8)
    return hidden, labels, recognised


def candidates(recognised: Recognised, tokens: np.ndarray, tags: list[str], probability: np.ndarray,
               hide, end: np.ndarray) -> tuple[list[str], np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(tag, P(name), already hidden, kept visible, the scorer decides, where hiding it ends) of the
    word scorer's candidate words at `tokens`: a place, brand or nickname keeps the recognizers' tag; a
    candidate of a category not in `hide` can neither be hidden nor make its message risky (its
    probability becomes 0), nor can a title (Mme, Dr); a candidate a context rule reads as an
    ordinary word ("une rose") is never hidden by the scorer but keeps its probability, which
    counts in the risk; one hidden only because a name list holds it stays hidden only if the
    scorer agrees (`scorer_decides`); a word no list holds that opens a sentence before a verb
    (`subject`) counts as at least SUBJECT_RISK, and a person's name with a capital right after a
    person cue (`capital_after_cue`) as at least CUE_CAPITAL_RISK. `end` holds the tokens' ends: a
    place reaches over its district (Recognised.ends)."""
    own = recognised.scorer_tag[tokens]
    if own.any():
        tags = np.where(own == NONE, np.asarray(tags, dtype=object), _TAGS[own]).tolist()
    codes = np.fromiter(map(_CODE.__getitem__, tags), dtype=np.int8, count=len(tags))
    probability = np.where(recognised.subject[tokens], np.maximum(probability, SUBJECT_RISK), probability)
    if recognised.capital_after_cue is not None:
        person = any_of(codes, (PRE, NOM, SUR))
        probability = np.where(recognised.capital_after_cue[tokens] & person,
                               np.maximum(probability, CUE_CAPITAL_RISK), probability)
    probability = np.where(np.take(hide_mask(hide), codes) & ~recognised.title[tokens] & ~recognised.common[tokens],
                           probability, 0.0)
    return (tags, probability, recognised.hidden[tokens], recognised.kept_visible[tokens],
            recognised.scorer_decides[tokens] & recognised.hidden[tokens], recognised.ends(tokens, codes, end))


def hide_mask(hide) -> np.ndarray:
    """Which tag codes (TAG_CODES) are hidden under `hide`."""
    return np.asarray([tag in hide for tag in TAG_CODES], dtype=bool)


@component("recognizers", requires=["analysis"], assigns=["recognised"])
def _recognizers(context, batch) -> None:
    """The context gives `hide`: the categories hidden, a frozenset."""
    batch.recognised = apply(batch.analysis, context.hide)
