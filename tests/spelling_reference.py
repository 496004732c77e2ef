"""Per-spelling reference versions of the batched spelling columns: what the name
scorer, the recognizers and the message counts compute for the new spellings of a batch at
once (recognizers._flags_many, counts._flags_many and _ranks_many, names._context_flags_many,
_static_many and _candidate_tag_codes) written one spelling at a time, plainly. The property
tests of tests/test_spelling_batch.py check the batched code against them, as
tests/seekhide_reference.py is the oracle of Seek&Hide's batch code."""

from __future__ import annotations

import math

from triage.features.counts import _ELONGATION, _NO_RANK
from triage.seekhide.foreign import OTHER_WORDS
from triage.lexicons import PERSON_CUES, TITLES, Lexicons, fold, spelling_key
from triage.model.names import _NICKNAME_SUFFIXES, _PET_SUFFIXES, NameLikeness, is_reduplication
from triage.recognizers import (
    _PERSON_ONLY_CUES,
    _PHRASE_FIRST_WORDS,
    _PHRASE_WORDS,
    EVERYDAY_BRANDS,
    FOREIGN_PLACES,
    HOLIDAYS,
    INITIAL_CUES,
    INITIAL_LETTERS,
    ORDINARY_AFTER_CUES,
    SERVICES,
    SUBJECT_VERBS,
    WORD_LIKE_NICKNAMES,
    PLACE_CUES,
    brand_heads,
    TRUNCATION_LENGTHS,
    brands,
    glued_parts,
    is_nickname_reduplication,
    places,
    truncations,
)

NO_RANK = _NO_RANK


def recognizer_flags(lexicons: Lexicons, text: str) -> tuple:
    """recognizers._FLAGS of a spelling as written."""
    key = spelling_key(text)
    known_places, heads = places(lexicons)
    case = brands().get(key)
    folded = fold(key)
    return (
        key in known_places,
        key in lexicons.first_names or folded in lexicons.first_names,
        key in lexicons.forms or key in lexicons.sms or key in lexicons.pronouns,
        text[:1].isupper() and not text.isupper(),
        text.isupper() and len(text) > 1,
        case == "any",
        case == "capitalised",
        key in PLACE_CUES,
        key.rstrip(".") in _PERSON_ONLY_CUES,
        is_nickname_reduplication(folded) and key not in WORD_LIKE_NICKNAMES and folded not in WORD_LIKE_NICKNAMES,
        lexicons.lookup(key)[1],  # an ordinary word, accents aside (tete is tête)
        key in heads,
        key.rstrip(".") in TITLES,
        key in brand_heads(),
        (text.islower() and len(folded) in TRUNCATION_LENGTHS and folded.isalpha() and folded in truncations(lexicons)
         and key not in WORD_LIKE_NICKNAMES and folded not in WORD_LIKE_NICKNAMES),
        key in lexicons.last_names or folded in lexicons.last_names,
        key in EVERYDAY_BRANDS,
        key in SERVICES or (key in lexicons.regions or key in lexicons.countries or key in FOREIGN_PLACES)
        and key not in lexicons.cities,
        key in lexicons.user_names,
        # in lower case or with a capital, never in capitals (recognise reads a capital where a sentence opens)
        not text.isupper() and (key in WORD_LIKE_NICKNAMES or folded in WORD_LIKE_NICKNAMES),
        text in INITIAL_LETTERS,
        key in INITIAL_CUES,
        not text[:1].isupper() and not text.isupper() and key in OTHER_WORDS,
        key.rstrip("'") in SUBJECT_VERBS,
        fold(key) in _PHRASE_WORDS,
        fold(key) in _PHRASE_FIRST_WORDS,
        # Two different common first names glued: marie + paule, not loup + loup.
        folded.isalpha() and any(folded[:i] != folded[i:] and folded[:i] in glued_parts(lexicons)
                                 and folded[i:] in glued_parts(lexicons) for i in range(3, len(folded) - 2)),
        folded in HOLIDAYS,  # Noël, accents aside
        key in PERSON_CUES,  # any person cue, place cues too
        key in lexicons.pronouns or key in ORDINARY_AFTER_CUES,  # Coucou Toi !, Merci Beaucoup !
    )


def count_flags(lexicons: Lexicons, text: str, phrase_words: tuple[set[str], set[str], set[str]]) -> tuple[bool, ...]:
    """Membership of a spelling as written in each lexicon, and what its case says."""
    lx = lexicons
    key = spelling_key(text)
    folded = fold(key)
    return (
        key in lx.first_names or folded in lx.first_names or lx.folded_names.get(folded, "") in lx.first_names,
        key in lx.forms or folded in lx.forms or folded in lx.folded_anti and folded not in lx.other_anti,
        key in lx.sms or folded in lx.sms,
        key in lx.pronouns or folded in lx.pronouns,
        key in lx.cities,
        key in lx.countries,
        text[:1].isupper(),
        bool(_ELONGATION.search(text)),
        key in phrase_words[0],
        key in PERSON_CUES,
        key in phrase_words[2],
    )


def count_ranks(lexicons: Lexicons, text: str, match: str) -> tuple[int, int]:
    """First-name rank of the dictionary match, and of the spelling itself (used when a
    title made the word a name), or NO_RANK."""
    ranks = lexicons.first_name_ranks
    return ranks.get(match, NO_RANK), ranks.get(text.lower(), NO_RANK)


def context_flags(text: str) -> tuple[bool, bool, bool]:
    """(starts with a capital, is a person cue, is a title) for a spelling as written."""
    key = spelling_key(text)
    return text[:1].isupper(), key in PERSON_CUES, key.rstrip(".") in TITLES


def static_features(spelling: NameLikeness, lexicons: Lexicons, text: str, match: str) -> tuple:
    """The word scorer's features of a spelling alone, in names._STATIC_COLUMNS order."""
    key = spelling_key(text)
    folded = fold(key)
    ranks = lexicons.first_name_ranks

    def log_rank(name: str) -> float:
        name = name if name in ranks else folded
        rank = ranks.get(name) or ranks.get(key)
        return math.log10(rank) if rank else 6.0

    return (
        text[:1].isupper() and not text.isupper(),
        text.isupper() and len(text) > 1,
        log_rank(match),
        log_rank(text.lower()),
        key in lexicons.last_names,
        key in lexicons.sms,
        key in lexicons.cities or key in lexicons.regions or key in lexicons.countries,
        len(text),
        any(a == b == c for a, b, c in zip(key, key[1:], key[2:])),
        spelling.score(key),
        folded in spelling.prefixes,
        is_reduplication(folded),
        len(key) >= 4 and key.endswith(_PET_SUFFIXES),
        key in OTHER_WORDS,
        surname_rank(lexicons, key, folded),
    )


def surname_rank(lexicons: Lexicons, key: str, folded: str) -> float:
    """log10 of a spelling's rank in the surname list (its folded spelling standing for an
    accented surname), or of a common surname the lists read as a word; 6.0 for none."""
    rank = lexicons.last_name_id(key) or lexicons.last_name_id(lexicons.folded_names.get(folded, folded)) \
        or lexicons.word_surnames.get(key, 0)
    return math.log10(rank) if rank else 6.0


def candidate_tag(text: str, lexicons: Lexicons, prefixes: frozenset[str] = frozenset()) -> str:
    """The code tag of a candidate word the scorer hides (see names.candidate_tags)."""
    key = text.lower()
    if key in lexicons.first_names:
        return "PRE"
    if key in lexicons.last_names:
        return "NOM"
    folded = fold(key)
    if (is_reduplication(folded) or len(key) >= 5 and key.endswith(_NICKNAME_SUFFIXES)
            or 3 <= len(folded) <= 5 and folded in prefixes):
        return "SUR"
    return "PRE"
