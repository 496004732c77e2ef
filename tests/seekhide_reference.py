"""Seek&Hide on one message, word after word, as Patel et al. (2013, section 3) describe it:
the oracle that triage.seekhide's batch code (arrays over all the tokens of many messages)
must agree with (tests/test_properties.py). Short and slow on purpose: read it next to the paper.

Word labels out of context come from SeekAndHide.label_word (the dictionaries and the SMS
heuristics of section 3.2, one spelling at a time); this file adds what depends on the
message: sentence starts, titles, weak names, guesses on capitalised words, ordinary words
after a determiner or a copula (not after a presentative: c'est claire), a weak surname after a
first name, a capitalised common surname read as a word after a capitalised first name (Sophie
Petit), an everyday word cut short (dem), the words of a message mostly in another language,
the message label and what is hidden.
"""

from __future__ import annotations

import re

from triage.schema import AMBIGUOUS, ANTI_DICTIONARY, DICTIONARY, NTA, TA, UNKNOWN, UNTAGGED
from triage.lexicons import (
    CLITICS,
    COPULAS,
    DETERMINERS,
    PRONOUNS_BEFORE_VERBS,
    PERSON_CUES,
    PRESENTATIVES,
    TITLES,
    fold,
    spelling_key,
    word_list,
)
from triage.seekhide import GUESS_RULES, SeekAndHide, foreign
from triage.seekhide.context import FULL_TITLES, SENTENCE_OPENERS
from triage.seekhide.shortened import abbreviations
from triage.text.tokenise import DETECTED, EMOTICON, PUNCT, WORD, tokenise

SENTENCE_END = re.compile(r"[.!?…]")
# Never a surname, whatever their rank in the surname list: the words of a closed class (Julie Le
# gâteau), prepositions and conjunctions, and what opens a sentence (Julie Bonne soirée).
PREPOSITIONS = {"sans", "sous", "sur", "vers", "contre", "entre", "pendant", "depuis", "devant", "derrière", "avant",
                "après", "selon", "malgré", "parmi", "près", "hors", "puis", "donc", "mais", "car", "ni", "et", "ou",
                "comme", "quand", "si"}
CLOSED = (DETERMINERS | COPULAS | PRESENTATIVES | CLITICS | PERSON_CUES | TITLES | word_list("cues/place_cues.txt")
          | PREPOSITIONS | SENTENCE_OPENERS)


def word_surname(lexicons, surface: str) -> bool:
    """Capitalised (not in capitals), a common surname the lists read as an ordinary word (the lexicons
    keep those up to COMMON_SURNAME_RANK), none of
    CLOSED, the pronouns or the SMS forms (accents aside)."""
    key = spelling_key(surface)
    return (surface[:1].isupper() and not surface.isupper()
            and (key in lexicons.word_surnames or fold(key) in lexicons.word_surnames)
            and not {key, fold(key)} & (CLOSED | lexicons.pronouns | lexicons.sms.keys()))


def words_of(seeker: SeekAndHide, text: str):
    """(start, end, text, info, in_compound) of each word; a hyphenated word in no list is
    labelled part by part."""
    for token in tokenise(text, seeker.keep_whole):
        if token.kind == WORD:
            info = seeker.label_word(token.text)
            if info.rule != "compound":
                yield token.start, token.end, token.text, info, False
                continue
            start = token.start
            for part in token.text.split("-"):
                if part:
                    yield start, start + len(part), part, seeker.label_word(part), True
                start += len(part) + 1
        else:
            yield token.start, token.end, token.text, token, None


def reference_seek(seeker: SeekAndHide, text: str):
    """(message label, [(start, end, label, rule)] of the words, hidden spans)."""
    lexicons, off = seeker.lexicons, seeker.off
    words, hidden = [], []
    read = []  # per word: what the other-language step reads (word class, capitalised, sentence start, after a cue)
    previous_word = previous_foreign = None  # the key of the word before, punctuation aside (as each step reads it)
    sentence_start = True  # no word yet, or a sentence end or an emoticon since the last word
    previous_is_title = False
    previous_is_determiner = False  # the token just before is an article or a demonstrative
    previous_is_copula = False  # ... a copula, itself not right after a presentative (c'est)
    previous_is_presentative = False
    previous_is_first_name = False  # the token just before is a first name Seek&Hide hides or highlights
    # ... written with a capital (not in capitals), and no ordinary word if it starts a sentence
    previous_is_capitalised_first_name = False
    previous_is_other_language = False  # the word before is a frequent word of another language in lower case
    previous_title_in_full = False  # the word before is a title written in full (Madame, not Mme)
    tokens_since_word = 0  # punctuation, numbers... since the word before
    for start, end, surface, info, in_compound in words_of(seeker, text):
        if in_compound is None:  # not a word: punctuation, number, emoticon, detector hit
            token = info
            if token.kind == DETECTED:
                hidden.append((start, end, token.tag))
            if token.kind == EMOTICON or (token.kind == PUNCT and SENTENCE_END.search(token.text)):
                sentence_start = True
            previous_is_determiner = previous_is_copula = previous_is_presentative = previous_is_first_name = False
            previous_is_capitalised_first_name = False
            tokens_since_word += 1
            continue
        label, rule = info.label, str(info.rule)
        capitalised = surface[:1].isupper() and not surface.isupper()
        other_language = surface.islower() and foreign.key_of(surface) in foreign.OTHER_WORDS
        # Right after the title, or after the full stop of an abbreviated one (one token between).
        right_after_title = previous_is_title and (tokens_since_word == 0 or tokens_since_word == 1
                                                   and not previous_title_in_full)
        if (right_after_title and not in_compound and capitalised and label != DICTIONARY
                and spelling_key(surface) not in lexicons.pronouns):
            label, rule = DICTIONARY, "title"  # Mme Petit, Dr Blanc; a pronoun is no surname (pr. Moi, M. La)
        elif ("first-name-surname" not in off and previous_is_first_name and not in_compound and info.weak
              and label == DICTIONARY and (sentence_start or not capitalised) and info.match in lexicons.last_names
              and not other_language and not previous_is_other_language):
            rule = "first-name-surname"  # marie durand: a surname after a first name, even in lower case
            # (but not "why just story": neither is a frequent word of another language in lower case)
        elif "weak-name" not in off and info.weak and label == DICTIONARY and (sentence_start or not capitalised):
            label, rule = UNKNOWN, "weak-name"  # kon, Lo: a rare name is a name only as 'chez Dubois'
        elif "capitalised-guess" not in off and rule in GUESS_RULES and capitalised and not sentence_start:
            label, rule = UNKNOWN, f"capitalised-{rule}"  # never guess a capitalised word into a word
        elif ("determiner" not in off and previous_is_determiner and not in_compound and surface.islower()
              and label == AMBIGUOUS and rule in ("exact", "accent")):
            rule = "determiner"  # une rose, un ange: read as the ordinary word (still AMBIGUOUS)
        elif ("copula" not in off and previous_is_copula and not in_compound and surface.islower()
              and label == AMBIGUOUS and rule in ("exact", "accent")):
            rule = "copula"  # l'eau est claire (but c'est claire: it is Claire)
        if ("word-surname" not in off and previous_is_capitalised_first_name and not in_compound
                and label == ANTI_DICTIONARY and rule in ("exact", "accent") and word_surname(lexicons, surface)):
            label, rule = DICTIONARY, "word-surname"  # Sophie Petit, avec Marc Blanc
        after_person_cue = previous_word is not None and previous_word in PERSON_CUES
        if ("abbreviation" not in off and label == UNKNOWN and rule in ("none", "weak-name") and not in_compound
                and surface.islower() and fold(spelling_key(surface)) in abbreviations(lexicons)
                and not after_person_cue):
            label, rule = ANTI_DICTIONARY, "abbreviation"  # dem: demain cut short
        words.append((start, end, label, rule))
        read.append((foreign.word_class(foreign.key_of(surface), lexicons), capitalised, sentence_start,
                     previous_foreign is not None and foreign.is_cue(previous_foreign.rstrip("."), PERSON_CUES | TITLES),
                     info.match))
        previous_word, previous_foreign = spelling_key(surface), foreign.key_of(surface)
        previous_is_title = info.title and not in_compound
        previous_title_in_full = spelling_key(surface).rstrip(".") in FULL_TITLES
        tokens_since_word = 0
        previous_is_determiner = (spelling_key(surface) in DETERMINERS | PRONOUNS_BEFORE_VERBS) and not in_compound
        previous_is_copula = spelling_key(surface) in COPULAS and not in_compound and not previous_is_presentative
        previous_is_presentative = spelling_key(surface) in PRESENTATIVES and not in_compound
        previous_is_first_name = (label in (DICTIONARY, AMBIGUOUS) and not in_compound
                                  and rule not in ("title", "determiner", "copula", "first-name-surname")
                                  and info.match in lexicons.first_names)
        previous_is_capitalised_first_name = (previous_is_first_name and capitalised
                                              and (label == DICTIONARY or not sentence_start))
        previous_is_other_language = other_language
        sentence_start = False
    kinds = [kind for kind, *_ in read]
    if "other-language" not in off and foreign.mostly_other(kinds.count(foreign.FRENCH), kinds.count(foreign.OTHER),
                                                            kinds.count(foreign.UNKNOWN)):
        for i, ((start, end, label, rule), (kind, capitalised, sentence_start, after_cue, _)) in enumerate(zip(words, read)):
            other_word = kind == foreign.OTHER
            if rule != "title" and (
                    label in (UNKNOWN, ANTI_DICTIONARY) and other_word  # I, I'm
                    or (label == UNKNOWN or label in (DICTIONARY, AMBIGUOUS) and other_word)
                    and (not capitalised or sentence_start) and (not after_cue or other_word)):
                words[i] = (start, end, ANTI_DICTIONARY, "other-language")  # I will call you later
    for (start, end, label, rule), (*_, match) in zip(words, read):
        if label == DICTIONARY:
            tag = "NOM" if rule in ("title", "first-name-surname", "word-surname") else lexicons.name_entry(match).tag
            hidden.append((start, end, tag))
    if hidden:
        message = TA
    elif all(label == ANTI_DICTIONARY for _, _, label, _ in words):
        message = NTA
    else:
        message = UNTAGGED
    assert all(label in (DICTIONARY, ANTI_DICTIONARY, AMBIGUOUS, UNKNOWN) for _, _, label, _ in words)
    return message, words, sorted(hidden)
