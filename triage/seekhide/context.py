"""Seek&Hide's context rules: what a word's neighbours in its message change in its label.

Each rule is one function registered by name (`@context_rule("name")`); it reads and writes the
named arrays of a Context, one entry per word token of the batch, all words at once. The rules
run in the order of triage/seekhide/steps.txt, each skipped when switched off
(SeekAndHide(off={"copula"})). Adding a rule is one function here and one line of steps.txt.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from triage.seekhide import spelling_batch as batch
from triage.lexicons import (
    CLITICS,
    COPULAS,
    DETERMINERS,
    PRONOUNS_BEFORE_VERBS,
    PERSON_CUES,
    PRESENTATIVES,
    TITLES,
    word_list,
)
from triage.seekhide import foreign, shortened, steps
from triage.seekhide.columns import spelling_column
from triage.seekhide.known import KNOWN_TAGS
from triage.seekhide.rules import (
    _ABBREVIATION_RULE,
    _COPULA_RULE,
    _DETERMINER_RULE,
    _FIRST_NAME_SURNAME_RULE,
    _GUESS_CODES,
    _KNOWN_RULE,
    _LOOKUP_CODES,
    _NONE_RULE,
    _OTHER_LANGUAGE_RULE,
    _TITLE_RULE,
    _WEAK_RULE,
    _WORD_SURNAME_RULE,
    READ_AS_WORD_CODES,
)
from triage.seekhide.table import L_AMBIGUOUS, L_ANTI, L_DICTIONARY, L_UNKNOWN, Spellings, _Arrays
from triage.pipeline.arrays import unique
from triage.seekhide.spelling_batch import members

if TYPE_CHECKING:
    from triage.seekhide.words import WordLabeller


def context_rule(name: str):
    """Decorator: the function is the context rule `name` (a line of steps.txt)."""
    return steps.register(name, "context")


def any_of(values: np.ndarray, codes) -> np.ndarray:
    """np.isin(values, codes) for a few codes (labels, rules): one comparison per code, where
    np.isin sorts or builds a table, twenty to fifty times slower on the arrays of a batch."""
    codes = tuple(codes)
    found = values == codes[0]
    for code in codes[1:]:
        found |= values == code
    return found


@dataclass
class Context:
    """The words of a batch as the context rules see them, one entry per word token in order
    (the words of one message are consecutive). `label` and `rule` (codes into LABELS and
    RULES) start as each spelling's own, out of context, and are what the rules change."""

    labeller: WordLabeller  # Seek&Hide's steps: which are on (is_on)
    table: Spellings
    columns: _Arrays  # the per-spelling columns
    position: np.ndarray  # the word's token position in the batch
    spelling: np.ndarray  # its spelling id
    message: np.ndarray  # its message
    in_compound: np.ndarray  # a part of a hyphenated word
    capitalised: np.ndarray
    sentence_start: np.ndarray
    label: np.ndarray
    rule: np.ndarray
    title: np.ndarray = field(init=False)  # read as a surname after a title (the title rule)
    weak: np.ndarray = field(init=False)  # a weak name left UNKNOWN (the weak-name rule)
    # the tag of a known name (a code into KNOWN_TAGS, -1 for none: the known-names rule)
    known_tag: np.ndarray = field(init=False)
    _after: np.ndarray | None = field(default=None, init=False, repr=False)
    _attributes: np.ndarray | None = field(default=None, init=False, repr=False)
    _candidates: np.ndarray | None = field(default=None, init=False, repr=False)

    def __post_init__(self) -> None:
        self.title = np.zeros(len(self.position), dtype=bool)
        self.weak = np.zeros(len(self.position), dtype=bool)
        self.known_tag = np.full(len(self.position), -1, dtype=np.int8)

    def __len__(self) -> int:
        return len(self.position)

    def previous(self, mask: np.ndarray) -> np.ndarray:
        """Per word, `mask` of the word before it in the batch (False for the first)."""
        shifted = np.zeros(len(mask), dtype=bool)
        shifted[1:] = mask[:-1]
        return shifted

    def same_message(self) -> np.ndarray:
        """Per word, the word before it is in the same message."""
        return np.concatenate(([False], self.message[1:] == self.message[:-1]))

    def follows(self) -> np.ndarray:
        """Per word, it comes right after the word before it (no token between), both outside
        compounds, in one message."""
        if self._after is None:
            after = np.zeros(len(self), dtype=bool)
            after[1:] = (~self.in_compound[:-1] & (self.position[1:] == self.position[:-1] + 1)
                         & (self.message[:-1] == self.message[1:]))
            self._after = after & ~self.in_compound
        return self._after

    def attributes(self) -> np.ndarray:
        """(a determiner, in lower case, a copula, a presentative) of each word's spelling,
        (n, 4), as the determiner and copula rules read them: at the words in both lists found
        by a look-up right after the word before them, and at the two words before each (all
        False elsewhere: the other words are never asked about)."""
        if self._attributes is None:
            near = np.flatnonzero(self.follows() & (self.label == L_AMBIGUOUS) & any_of(self.rule, _LOOKUP_CODES))
            near = unique(np.concatenate([near, near - 1, near - 2]))
            near = near[near >= 0]
            self._attributes = np.zeros((len(self), 4), dtype=bool)
            self._attributes[near] = self.table.column_at(_attributes, self.spelling[near])
        return self._attributes

    def read_as_word_candidates(self) -> np.ndarray:
        """The words the determiner and copula rules may read as the ordinary word: lower case,
        found in both lists by a look-up (no guess), right after the word before them; as they
        stand before either of those rules runs."""
        if self._candidates is None:
            self._candidates = (self.follows() & self.attributes()[:, 1] & (self.label == L_AMBIGUOUS)
                                & any_of(self.rule, _LOOKUP_CODES))
        return self._candidates

    def set(self, mask: np.ndarray, label: int | None, rule: int) -> None:
        if label is not None:
            self.label[mask] = label
        self.rule[mask] = rule


# The titles written in full: a full stop after one ends a sentence ("Merci Madame. Je passe"),
# where after an abbreviation it is the abbreviation's ("M. Kaya", "Dr. House").
FULL_TITLES = frozenset(title for title in TITLES if len(title) > 4)


@context_rule("title")
def title(c: Context) -> None:
    """A capitalised word right after a title (Mme, Dr...: words.py marks them), outside
    compounds, in one message, that is not already a name nor a pronoun, is a surname:
    DICTIONARY. Right after: nothing between them, or the full stop of an abbreviated title."""
    titled = c.columns.title[c.spelling] & ~c.in_compound
    after_title = c.previous(titled) & c.same_message() & ~c.in_compound
    at = np.flatnonzero(after_title)
    if len(at):
        # Tokens from the title to the word: 1 right after it, 2 with a full stop (or a comma...) between.
        gap = c.position[at] - c.position[at - 1]
        keys = batch.keys(c.table)[c.spelling[at - 1]].tolist()
        full = members(FULL_TITLES, [key.rstrip(".") for key in keys])
        after_title[at] = (gap == 1) | (gap == 2) & ~full
    pronoun = batch.known(c.table, "pronouns")[c.spelling]
    c.title = after_title & c.capitalised & (c.label != L_DICTIONARY) & ~pronoun
    c.set(c.title, L_DICTIONARY, _TITLE_RULE)


@context_rule("weak-name")
def weak_name(c: Context) -> None:
    """A weak name (a surname only, or a rare first name) is UNKNOWN when it starts a sentence
    or is not capitalised: kon, lo, same."""
    c.weak = (~c.title & c.columns.weak[c.spelling] & (c.label == L_DICTIONARY)
              & (c.sentence_start | ~c.capitalised))
    c.set(c.weak, L_UNKNOWN, _WEAK_RULE)


@context_rule("capitalised-guess")
def capitalised_guess(c: Context) -> None:
    """A capitalised word mid-sentence that a heuristic guessed into an ordinary word
    (misspelling, apostrophe, concatenation, repetition) is UNKNOWN, with the rule
    capitalised-<heuristic>."""
    guessed = ~c.title & ~c.weak & any_of(c.rule, _GUESS_CODES) & c.capitalised & ~c.sentence_start
    if guessed.any():
        c.rule[guessed] = [_GUESS_CODES[r] for r in c.rule[guessed].tolist()]
        c.label[guessed] = L_UNKNOWN


# A lower-case word in both lists right after an article, a demonstrative or a subject or reflexive
# pronoun is read as the ordinary word ("une rose", "un ange", "se marie"): it stays AMBIGUOUS, and the word scorer leaves it
# visible (its probability still counts in the risk). Possessives are no determiners here: SMS
# write "mon Nico". The same after a third-person copula ("l'eau est claire"), unless a
# presentative comes before it ("c'est claire": it is Claire).
@context_rule("determiner")
def determiner(c: Context) -> None:
    """A candidate (read_as_word_candidates) right after a determiner or a pronoun before a verb is
    read as the word."""
    after_determiner = c.previous(c.attributes()[:, 0])
    c.set(c.read_as_word_candidates() & after_determiner, None, _DETERMINER_RULE)


@context_rule("copula")
def copula(c: Context) -> None:
    """A candidate right after a third-person copula is read as the word, unless the copula
    follows a presentative."""
    attributes, follows = c.attributes(), c.follows()
    after_copula = c.previous(attributes[:, 2])
    presented = np.zeros(len(c), dtype=bool)  # the copula follows a presentative
    presented[2:] = follows[1:-1] & attributes[:-2, 3]
    c.set(c.read_as_word_candidates() & after_copula & ~presented, None, _COPULA_RULE)


@spelling_column("seekhide.attribute", bool, width=4)
def _attributes(table: Spellings, sids: np.ndarray) -> list[tuple[bool, bool, bool, bool]]:
    """(a determiner or a pronoun before verbs, in lower case, a copula, a presentative) of the
    spellings `sids`."""
    spelled = table.texts
    keys = batch.keys(table)[sids].tolist()  # spelling_key, a shared column
    return [(key in DETERMINERS or key in PRONOUNS_BEFORE_VERBS, spelled[s].islower(), key in COPULAS,
             key in PRESENTATIVES) for s, key in zip(sids.tolist(), keys)]


@spelling_column("seekhide.name-lists", bool, width=2)
def _name_lists(table: Spellings, sids: np.ndarray) -> np.ndarray:
    """(the match is a first name, the match is a surname) of the spellings `sids`, (len(sids), 2)."""
    lexicons, infos = table.lexicons, table.infos
    matches = [info.match if info is not None else "" for info in map(infos.__getitem__, sids.tolist())]
    return np.column_stack([members(lexicons.first_names, matches),
                            members(lexicons.last_names, matches)]).reshape(-1, 2)


@context_rule("first-name-surname")
def first_name_surname(c: Context) -> None:
    """A weak surname right after a first name is a surname ("marie durand", "avec julien
    girard"): the pair names a person, which the weak-name rule cannot see. The first name is a
    word of the first-name list that Seek&Hide hides or highlights (DICTIONARY or AMBIGUOUS,
    not read as an ordinary word after a determiner or a copula), with nothing between the two;
    the surname is a word the weak-name rule left UNKNOWN (none when it is off) of the surname
    list: the lexicon build already reads a surname that is a frequent word as the word (petit,
    blanc). Neither word is a frequent word of another language written in lower case
    (foreign.OTHER_WORDS): "why just story" holds the first name Just and the surname Story, and
    names no one."""
    if len(c) <= 1:
        return
    # Read at the few weak words and the words before them only.
    at = np.flatnonzero(c.weak[1:] & ~c.in_compound[1:]) + 1
    before = at - 1
    at = at[any_of(c.label[before], (L_DICTIONARY, L_AMBIGUOUS)) & ~any_of(c.rule[before], READ_AS_WORD_CODES)
            & (c.rule[before] != _TITLE_RULE) & ~c.in_compound[before] & (c.position[at] == c.position[before] + 1)
            & (c.message[at] == c.message[before])]
    if not len(at):
        return
    first_name = c.table.column_at(_name_lists, c.spelling[at - 1])[:, 0]
    surname = c.table.column_at(_name_lists, c.spelling[at])[:, 1]
    at = at[first_name & surname]
    texts = c.table.texts

    def other_language(sids: np.ndarray) -> np.ndarray:  # in lower case, a frequent word of another language
        lower = np.fromiter((texts[s].islower() for s in sids.tolist()), dtype=bool, count=len(sids))
        return lower & c.table.column_at(_other_words, sids)

    c.set(at[~other_language(c.spelling[at - 1]) & ~other_language(c.spelling[at])], L_DICTIONARY,
          _FIRST_NAME_SURNAME_RULE)


# Prepositions and conjunctions that the cue lists leave out.
_PREPOSITIONS = frozenset({
    "sans", "sous", "sur", "vers", "contre", "entre", "pendant", "depuis", "devant", "derrière", "avant", "après",
    "selon", "malgré", "parmi", "près", "hors", "puis", "donc", "mais", "car", "ni", "et", "ou", "comme", "quand", "si",
})
# What opens a new sentence or signs an SMS: the adjectives of wishes and thanks (Bon courage, Bonne
# soirée, Gros bisous, Grand merci, Joyeux anniversaire, Belle journée), interjections (Bravo,
# Chapeau, Top, Pardon), a parent's signature (Papa). Capitalised right after a first name, they start
# a new sentence written without a full stop ("Merci Julie Gros bisous") more often than they name a
# person. Petit stays a candidate: it is the 4th surname of the list ("Julie Petit coucou" is a
# price paid for "Sophie Petit").
SENTENCE_OPENERS = frozenset({
    "bon", "bonne", "bons", "bonnes", "gros", "grosse", "grosses", "grand", "grande", "joyeux", "joyeuse",
    "belle", "beau", "bel", "doux", "douce", "bravo", "chapeau", "top", "pardon", "papa",
})
# Never read as surnames whatever their rank ("Julie Le gâteau" is no Julie Le): articles and
# demonstratives, copulas, presentatives, clitics, person and place cues, titles, prepositions and
# conjunctions, sentence openers; the pronouns and the SMS forms are added from the lexicons.
_NO_SURNAMES = (DETERMINERS | COPULAS | PRESENTATIVES | CLITICS | PERSON_CUES | TITLES | _PREPOSITIONS
                | SENTENCE_OPENERS | word_list("cues/place_cues.txt"))


@spelling_column("seekhide.word-surname", bool)
def _word_surnames(table: Spellings, sids: np.ndarray) -> np.ndarray:
    """Per spelling of `sids`, whether it is a word-surname candidate: capitalised (Petit: not in
    capitals, since SMS shout words), a common surname that the lists read as an ordinary word
    (lexicons.word_surnames, accents aside: Rivière is riviere), and none of _NO_SURNAMES, accents
    aside too."""
    lexicons = table.lexicons
    surnames = lexicons.word_surnames
    excluded = _NO_SURNAMES | lexicons.pronouns | lexicons.sms.keys()
    # Capitalised (text[:1].isupper() and not text.isupper()): most spellings are not, nothing to look up.
    capitalised = table.numpy().capitalised[sids]
    keys, folded = batch.keys(table)[sids[capitalised]].tolist(), batch.folded_keys(table)[sids[capitalised]].tolist()
    found = np.zeros(len(sids), dtype=bool)
    found[capitalised] = [(key in surnames or folded_key in surnames) and key not in excluded
                          and folded_key not in excluded for key, folded_key in zip(keys, folded)]
    return found


@context_rule("word-surname")
def word_surname(c: Context) -> None:
    """A common surname that the lists read as an ordinary word (Petit, Blanc, Fontaine: the
    lexicon build's exceptions, _word_surnames), capitalised right after a capitalised first name,
    nothing between, is a surname: DICTIONARY, hidden as NOM ("Sophie Petit arrive", "avec Marc
    Blanc"). The first name is a word of the first-name list that Seek&Hide hides or highlights
    (as for first-name-surname); at a sentence start, where its capital is the sentence's, only a
    first name that is no ordinary word counts (Sophie Petit, not Marie Petit). Never a word of a
    closed class (Julie Le gâteau) nor one that opens a sentence (Julie Bonne soirée), never in lower
    case (julie petit) nor in capitals (SOPHIE PETIT, Julie GROS BISOUS: SMS shout words)."""
    if len(c) <= 1:
        return
    table = c.table
    found = table.column(_word_surnames)
    at = np.flatnonzero(found[c.spelling])  # few words of a batch: the rest is read at them only
    at = at[(at > 0) & (c.label[at] == L_ANTI) & any_of(c.rule[at], _LOOKUP_CODES) & ~c.in_compound[at]
            & c.follows()[at]]
    if not len(at):
        return
    before = at - 1
    listed = table.column_at(_name_lists, c.spelling[before])[:, 0]
    label, rule = c.label[before], c.rule[before]
    first_name = (listed & c.capitalised[before] & any_of(label, (L_DICTIONARY, L_AMBIGUOUS))
                  & ~any_of(rule, (*READ_AS_WORD_CODES, _TITLE_RULE, _FIRST_NAME_SURNAME_RULE))
                  & ((label == L_DICTIONARY) | ~c.sentence_start[before]))
    c.set(at[first_name], L_DICTIONARY, _WORD_SURNAME_RULE)


@spelling_column("seekhide.abbreviation", bool, width=2)
def _abbreviation_flags(table: Spellings, sids: np.ndarray) -> list[tuple[bool, bool]]:
    """(cut short: the start of a word SMS forms stand for, a person cue) of the spellings `sids`."""
    spelled, starts = table.texts, shortened.abbreviations(table.lexicons)
    keys, folded = batch.keys(table)[sids].tolist(), batch.folded_keys(table)[sids].tolist()  # shared columns
    return [(spelled[s].islower() and folded_key in starts, key in PERSON_CUES)
            for s, key, folded_key in zip(sids.tolist(), keys, folded)]


@context_rule("abbreviation")
def abbreviation(c: Context) -> None:
    """A word written in lower case that the rules before left UNKNOWN (in no list, or a weak name
    the weak-name rule left unknown: dem, journé, deso) and that is the start of a word the SMS
    forms stand for (triage/seekhide/shortened.py: demain, journée, désolé) and of no common first
    name (seb, caro stay nicknames) is that word cut short: ANTI_DICTIONARY, rule abbreviation;
    not right after a person cue (avec dem: a name may follow)."""
    if not len(c):
        return
    # Read at the words left UNKNOWN and the words before them only.
    at = np.flatnonzero((c.label == L_UNKNOWN) & any_of(c.rule, (_NONE_RULE, _WEAK_RULE)) & ~c.in_compound)
    if not len(at):
        return

    def flags(words: np.ndarray) -> np.ndarray:
        return c.table.column_at(_abbreviation_flags, c.spelling[words])

    after_cue = np.zeros(len(at), dtype=bool)
    inside = at > 0  # the word before is in the batch
    before = at[inside] - 1
    after_cue[inside] = flags(before)[:, 1] & (c.message[before] == c.message[at[inside]])
    c.set(at[flags(at)[:, 0] & ~after_cue], L_ANTI, _ABBREVIATION_RULE)


@spelling_column("seekhide.other-word", bool)
def _other_words(table: Spellings, sids: np.ndarray) -> np.ndarray:
    """Whether each of the spellings `sids` is a word of another language (foreign.OTHER_WORDS, by
    its key): a message with fewer than foreign.MIN_OTHER_WORDS of them is French."""
    return members(foreign.OTHER_WORDS, batch.keys(table)[sids].tolist())


@spelling_column("seekhide.language", np.int8, width=2)
def _language_evidence(table: Spellings, sids: np.ndarray) -> np.ndarray:
    """(what the word says of its message's language: foreign.word_class, a cue after which a name
    may follow in any language) of the spellings `sids`, (len(sids), 2)."""
    lexicons, spelled = table.lexicons, table.texts
    cues = PERSON_CUES | TITLES
    keys = [foreign.key_of(spelled[s]) for s in sids.tolist()]
    return np.asarray([(foreign.word_class(key, lexicons), foreign.is_cue(key.rstrip("."), cues)) for key in keys],
                      dtype=np.int8).reshape(-1, 2)


@context_rule("other-language")
def other_language(c: Context) -> None:
    """In a message mostly in another language (triage/seekhide/foreign.py: its words' own
    evidence, at least two words of that language), a word in no French list (UNKNOWN), or a name
    that is a frequent word of that language (will, my, can), is read as a word of that language:
    ANTI_DICTIONARY, rule other-language, no candidate of the word scorer (never hidden, never a
    risk). Unless it is capitalised away from a sentence start (Antho), or comes right after a
    person cue (with X, tell X, avec X: a word of OTHER_WORDS aside, "and his") or after a title:
    those stay names or candidates; a word of OTHER_WORDS that no list holds as a name (I, I'm, You)
    is read as that language's whatever its case."""
    if not len(c):
        return
    n = int(c.message.max()) + 1
    # Only a message with two words of another language may be mostly in it: the evidence of the
    # other words (their look-ups) is asked for the words of those messages alone.
    other_word = c.table.column(_other_words)[c.spelling]
    maybe = np.bincount(c.message[other_word], minlength=n) >= foreign.MIN_OTHER_WORDS
    if not maybe.any():
        return
    at = np.flatnonzero(maybe[c.message])
    evidence = c.table.column_at(_language_evidence, c.spelling[at])
    kind = np.full(len(c), foreign.NOT_COUNTED, dtype=np.int8)
    cue = np.zeros(len(c), dtype=bool)
    kind[at], cue[at] = evidence[:, 0], evidence[:, 1] != 0

    def count(which: int) -> np.ndarray:
        return np.bincount(c.message[kind == which], minlength=n)

    french, other, unknown = count(foreign.FRENCH), count(foreign.OTHER), count(foreign.UNKNOWN)
    mostly_other = foreign.mostly_other(french, other, unknown)  # for every message at once
    if not mostly_other.any():
        return
    after_cue = c.previous(cue) & c.same_message()
    other_word = kind == foreign.OTHER
    read = mostly_other[c.message] & ~c.title & (
        any_of(c.label, (L_UNKNOWN, L_ANTI)) & other_word  # I, I'm, You: in no name list, whatever its case
        | ((c.label == L_UNKNOWN) | any_of(c.label, (L_DICTIONARY, L_AMBIGUOUS)) & other_word)
        & (~c.capitalised | c.sentence_start) & (~after_cue | other_word))
    c.set(read, L_ANTI, _OTHER_LANGUAGE_RULE)


@spelling_column("seekhide.known-names", np.int8, 4)
def _known_names(table: Spellings, sids: np.ndarray) -> list[tuple[int, int, int, int]]:
    """Per spelling `sids`: the code of the tag (KNOWN_TAGS) of the known name it is (or is a
    variant of), -1 for none; then 1 or 0 for KnownHit's ordinary, variant and taught."""
    spelled, matcher = table.texts, table.known
    found = [matcher.hides(spelled[s]) for s in sids.tolist()]
    return [(KNOWN_TAGS.index(hit.tag) if hit.index >= 0 else -1, int(hit.ordinary), int(hit.variant), int(hit.taught))
            for hit in found]


@context_rule("known-names")
def known_names(c: Context) -> None:
    """A word that is a known name or one of its variants (SeekAndHide(known=...), `classify
    --known-names` and the names a review taught: triage/seekhide/known.py says which) is
    DICTIONARY with the name's tag, whatever the rules before said, but for three cases. A name a
    review taught that is also an ordinary word is not hidden where it opens a sentence (the
    capital says nothing there: "Petit souci"); one the other-language rule read as a word of
    another language where it stands ("will" in English) is hidden only with a capital that does
    not open a sentence. A variant in lower case is no name when the rules before read it as an
    ordinary word (a misspelling, an SMS spelling, a word of another language: "lordi" is no
    variant of a known "Lordia"). Without known names, nothing changes."""
    if c.table.known is None or not len(c):
        return
    found = c.table.column(_known_names)[c.spelling]
    codes, ordinary, variant, taught = found[:, 0], found[:, 1] == 1, found[:, 2] == 1, found[:, 3] == 1
    read_as_word = c.label == L_ANTI
    hit = (codes >= 0) & ~(taught & ordinary & c.sentence_start) & ~(variant & read_as_word & ~c.capitalised)
    # A taught name itself that the other-language rule read as a word of that language here (got,
    # late, in a message in English) is the name only with a capital that does not open a sentence.
    in_other_language = read_as_word & (c.rule == _OTHER_LANGUAGE_RULE)
    hit &= ~(taught & ~variant & in_other_language & (~c.capitalised | c.sentence_start))
    c.known_tag[hit] = codes[hit]
    c.set(hit, L_DICTIONARY, _KNOWN_RULE)


def apply_rules(c: Context) -> None:
    """The context rules in the order of steps.txt, those switched off skipped."""
    for name, rule in steps.runs("context"):
        if c.labeller.is_on(name):
            rule(c)
