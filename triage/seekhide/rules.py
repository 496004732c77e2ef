"""Seek&Hide's rules: which look-up or heuristic labelled a word, and the steps that can be
switched off to measure what each brings."""

from __future__ import annotations

import enum

from triage.seekhide import steps


class Rule(enum.StrEnum):
    """Which look-up or heuristic labelled a word: the `rule` column of `triage seek --words`."""

    EXACT = "exact"  # in a list as written (lower case)
    ACCENT = "accent"  # in a list once accents are set aside (3.2: accents)
    COMPOUND = "compound"  # a hyphenated word in no list: labelled part by part
    NONE = "none"  # nothing matched: UNKNOWN
    REPETITION = "repetition"  # letters repeated for emphasis (3.2): nicoooolas, merciiii
    ONOMATOPOEIA = "onomatopoeia"  # laughter and interjections: hahaha, mdrrr, pffff
    APOSTROPHE = "apostrophe"  # an elision without its apostrophe (3.2): jarrive, larrivee
    CONCATENATION = "concatenation"  # glued clitics: jtaime, jsuis
    MISSPELLING = "misspelling"  # one edit from an ordinary word, never from a first name
    TITLE = "title"  # context: a capitalised word after a title is a surname (Mme Petit)
    WEAK_NAME = "weak-name"  # context: a rare name not capitalised mid-sentence is UNKNOWN (kon, Lo)
    # context: a capitalised word mid-sentence is not guessed into an ordinary word
    CAPITALISED_APOSTROPHE = "capitalised-apostrophe"
    CAPITALISED_CONCATENATION = "capitalised-concatenation"
    CAPITALISED_MISSPELLING = "capitalised-misspelling"
    CAPITALISED_REPETITION = "capitalised-repetition"
    # context: a lower-case word that is both an ordinary word and a name, right after an article
    # or a demonstrative (une rose), stays AMBIGUOUS but is read as the ordinary word: the word
    # scorer leaves it visible, and it still counts in the message's risk
    DETERMINER = "determiner"
    # context: the same, right after a third-person copula (l'eau est claire, la jupe reste
    # blanche), unless a presentative comes before the copula (c'est claire: it is Claire)
    COPULA = "copula"
    # context: a lower-case surname right after a first name is a surname (marie durand), which
    # the weak-name rule would otherwise leave readable
    FIRST_NAME_SURNAME = "first-name-surname"
    # context: a capitalised common surname that the lists read as an ordinary word, right after a
    # capitalised first name, is a surname (Sophie Petit, Marc Blanc)
    WORD_SURNAME = "word-surname"
    # context: a known name (--known-names) or one of its variants, hidden with its tag
    KNOWN_NAME = "known-names"
    # context: a lower-case word left unknown that starts a word the SMS forms stand for, and no
    # common first name, is that word cut short (dem: demain, journé: journée)
    ABBREVIATION = "abbreviation"
    # context: in a message mostly in another language, a word in no French list (or a lower-case
    # name that is a frequent word of that language: will, my) is a word of that language
    OTHER_LANGUAGE = "other-language"


# Heuristics that guess an ordinary word from an unknown spelling (capitalised mid-sentence,
# such a word is highlighted instead: rule "capitalised-<rule>").
GUESS_RULES = frozenset({Rule.MISSPELLING, Rule.APOSTROPHE, Rule.CONCATENATION, Rule.REPETITION})
# Seek&Hide's steps beyond the exact look-up, each of which can be switched off (as docdeid's
# processors can) to measure what it brings: SeekAndHide(lexicons, off={"misspelling"}). Their
# list and order are data: triage/seekhide/steps.txt (triage.seekhide.steps reads it).
# The steps decided by Seek&Hide: per spelling (words.py) and in context (context.py).
WORD_STEPS = steps.names("word") + steps.names("context")
# The recognizers' steps (triage/recognizers.py): two-word brands (chez Leroy Merlin), a brand
# named like a person is a person after a person cue (avec Zara), and a lower-case start of a
# common first name is a nickname (seb, flo).
RECOGNIZER_STEPS = steps.names("recognizer")
STEPS = steps.NAMES

RULES = tuple(Rule)  # the rule of a word token is a code into RULES
_RULE_CODE = {rule.value: code for code, rule in enumerate(RULES)}


def rule_code(rule: str) -> int:
    return _RULE_CODE[rule]


_TITLE_RULE, _WEAK_RULE = rule_code(Rule.TITLE), rule_code(Rule.WEAK_NAME)
_DETERMINER_RULE, _COPULA_RULE = rule_code(Rule.DETERMINER), rule_code(Rule.COPULA)
_FIRST_NAME_SURNAME_RULE = rule_code(Rule.FIRST_NAME_SURNAME)
_WORD_SURNAME_RULE = rule_code(Rule.WORD_SURNAME)
# The context rules that read a word as a surname from what stands before it (a title, a first
# name): hidden as NOM, whatever the word is out of context (a town, a brand, an ordinary word).
SURNAME_CODES = (_TITLE_RULE, _FIRST_NAME_SURNAME_RULE, _WORD_SURNAME_RULE)
_KNOWN_RULE = rule_code(Rule.KNOWN_NAME)
_OTHER_LANGUAGE_RULE = rule_code(Rule.OTHER_LANGUAGE)
_ABBREVIATION_RULE = rule_code(Rule.ABBREVIATION)
_NONE_RULE = rule_code(Rule.NONE)
# The words Seek&Hide reads as ordinary words beyond doubt: laughter and interjections
# (onomatopoeia: Ahahaaaahahahaa), words of another language in a message in that language
# (other-language). Never a name: no candidate of the word scorer (triage.model.names), which neither hides
# them nor counts them in the risk nor learns from them.
NEVER_NAME_CODES = (rule_code(Rule.ONOMATOPOEIA), _OTHER_LANGUAGE_RULE)
# The context rules that read a word found in both lists as the ordinary word: the word scorer
# leaves it visible, and it still counts in the risk.
READ_AS_WORD_CODES = (_DETERMINER_RULE, _COPULA_RULE)
# The look-ups the determiner and copula rules read as a word found in both lists (not a guess: a guessed
# word keeps its rule, which the word scorer reads).
_LOOKUP_CODES = (rule_code(Rule.EXACT), rule_code(Rule.ACCENT))
_GUESS_CODES = {rule_code(r): rule_code(f"capitalised-{r}") for r in sorted(GUESS_RULES)}
