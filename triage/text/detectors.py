"""Regular-expression detectors for items that are always anonymised.

Seek&Hide (Patel et al. 2013) decides about first names with dictionaries, but
some items are hidden whatever the dictionaries say: phone numbers (TEL),
e-mail addresses (MEL), URLs (URL), postal addresses (ADR) and codes (COD:
bank/card/social-security numbers; door codes, PINs, passwords and plates
after a cue word).

``detect(text)`` returns non-overlapping character spans. It runs on every
message of corpora of millions of SMS, so:

- one character-class search skips every regex for the (majority of) messages
  holding no digit, no '@', no '/' and no 'w' (for "www");
- each family only runs when its trigger is present, and only where it can
  start: e-mails and URLs in the whitespace-delimited token around an '@',
  '/' or "www"; phones and long codes at the start of a run of digits, and
  only when the message holds 8+ digits; addresses only after a number
  followed by a street type; door codes only after a cue word ("code",
  "porte", "badge", "pin", "mdp"...).

Messages reach the detectors folded (triage/text/normalise.py): full-width and
Arabic-Indic digits as ASCII, typographic spaces as spaces, zero-width
characters dropped.

What each detector deliberately leaves out is written next to its pattern.
Only the standard library ``re`` is used, and numpy for batches (detect_hits).
"""

from __future__ import annotations

import functools
import re
from typing import NamedTuple

import numpy as np

from triage.lexicons import word_list
from triage.pipeline.arrays import among
from triage.schema import DETECTOR_TAGS

TAGS = DETECTOR_TAGS

# Tie-break on equal span length: earlier wins.
_PRIORITY = {"URL": 0, "MEL": 1, "ADR": 2, "TEL": 3, "COD": 4}


class Detection(NamedTuple):
    start: int  # character offset into the text (Python str index)
    end: int  # exclusive
    tag: str  # one of TAGS


# --------------------------------------------------------------------------
# Shared building blocks
# --------------------------------------------------------------------------

_LETTER = r"[^\W\d_]"  # any Unicode letter (accents included)
_NBSP = "\u00a0"  # phones often insert non-breaking spaces

# Top-level domains accepted for bare domains (no scheme, no "www"), and used to
# trim an e-mail domain that swallowed the next word.
_TLDS = word_list("web/tlds.txt")


def _alternation(words, letter=re.escape) -> str:
    """Regex matching any of `words`, written as a trie ("r(?:ue|te)" rather
    than "rue|rte"): `re` tries alternatives one by one, so a flat list of
    200 stop words would cost 200 comparisons at every word it is tried on.
    Longer words are preferred, shorter ones reached by backtracking. `letter`
    writes each character of the words as a pattern."""
    trie: dict = {}
    for word in set(words):
        node = trie
        for char in word:
            node = node.setdefault(char, {})
        node[""] = {}  # a word ends here

    def build(node: dict) -> str:
        branches = [letter(char) + build(child) for char, child in sorted(node.items()) if char]
        if not branches:
            return ""
        body = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
        return f"(?:{body})?" if "" in node else body

    return build(trie)


def _either_case(char: str) -> str:
    """`char` or its capital, as a pattern: what str.lower() turns into `char`, for the letters
    of the street words (a test checks that no other letter lowers to one of them)."""
    upper = char.upper()
    return f"[{char}{upper}]" if len(upper) == 1 and upper != char else re.escape(char)


# --------------------------------------------------------------------------
# Pre-checks (the fast path: most SMS have none of these characters)
# --------------------------------------------------------------------------

# One character class, so `re` scans it with its fast charset search. The
# brief's trigger list is digits, '@', "www" and "http"; '/' is added because a
# bare domain with a path ("example.fr/page") holds none of them, and "http"
# needs no entry of its own because a URL with a scheme holds '/'. 'w' stands
# for "www" (rare in French: messages with only a 'w' pay one more check).
# Only ASCII digits count, here and in every pattern below.
_PRECHECK = re.compile(r"[0-9@/wW]")
_DIGIT_RUN = re.compile(r"[0-9]+")
_WWW = re.compile(r"www", re.IGNORECASE)

# --------------------------------------------------------------------------
# TEL: French phone numbers
# --------------------------------------------------------------------------

# Catches 0X XX XX XX XX (X: 1-9 first) and +33 / 0033 / +33 (0) forms, glued
# to letters or not ("tel:06...", "au06..."). Leaves out: foreign numbers
# (+32, +41...), short numbers (3615, 112), groups of three ("06 123 456 78"),
# '/' as separator (dates: "01/02/2012 10h"), a missing leading 0
# ("6 12 34 56 78"), numbers in words, and a phone-shaped date+time
# ("05 12 2012 10h30").
# Between digit pairs: nothing, one or two spaces, or a dot/dash possibly
# surrounded by single spaces. Each pair may use a different separator.
_TEL_SEP = rf"(?:[ {_NBSP}]?[.\-][ {_NBSP}]?|[ {_NBSP}]{{1,2}})?"
_TEL_RE = re.compile(
    rf"""
    (?<![0-9])                                  # not the tail of a longer number
    (?:
        (?:\+|00)[ {_NBSP}]?33{_TEL_SEP}     # +33 / 0033
        (?:\(0\)[ {_NBSP}]?|0)?              # optional "(0)" or a wrongly kept 0
        [1-9]
      |
        0[1-9]                               # national form 01..09
    )
    (?:{_TEL_SEP}[0-9][0-9]){{4}}
    (?![0-9])                                   # not the head of a longer number
    (?![hH](?:[0-9]|\b))                        # "... 10h" / "10h30": a date + time
    """,
    re.VERBOSE,
)

# The forms a new user tries, when the pattern above fails: separators '/', '_', ',', an
# en or em dash (or any of _TEL_SEP's), single digits spaced out ("0 6 1 2 3 4 5 6 7 8"), a pair
# split ("06 12 34 56 7 8"), a letter o for the leading zero ("o6 12 34 56 78"). Ten digits
# with one separator throughout (a gap is that separator or nothing), in groups of one or two
# digits: all single digits, or a first pair "0X". Full-width and Arabic-Indic digits, the
# narrow no-break space and zero-width spaces are folded before (triage/text/normalise.py).
# Leaves out lists of days ("les 01/02/03/04/05", every pair 31 or less, with '/' or ',') and
# lists of numbers ("0 5 10 15 20 25": groups of mixed sizes without a first pair).
_TEL_LOOSE_GAP = rf"(?:[ {_NBSP}]?[/_,.\-–—][ {_NBSP}]?|[ {_NBSP}]{{1,2}})"
_TEL_LOOSE_RE = re.compile(
    rf"""
    (?<![0-9])(?:0|(?<!{_LETTER})[oO])         # "o6", not the end of a word ("bo6")
    (?:{_TEL_LOOSE_GAP}?[0-9]){{9}}
    (?![0-9])
    (?![hH](?:[0-9]|\b))                        # a date + time, as above
    """,
    re.VERBOSE,
)
_TEL_DIGIT = re.compile(r"[0-9oO]+")


def _loose_phone(text: str, start: int):
    """The match of _TEL_LOOSE_RE at start when it is shaped like a phone number, else None."""
    m = _TEL_LOOSE_RE.match(text, start)
    if m is None:
        return None
    groups = _TEL_DIGIT.findall(m.group())
    gaps = set(_TEL_DIGIT.split(m.group())[1:-1])
    if (len(gaps) != 1 or groups[0][1:2] == "0" or any(len(group) > 2 for group in groups)
            or not (len(groups) == 10 or len(groups[0]) == 2)):
        return None
    if "".join(groups) == "0123456789":
        return None  # counting
    if gaps & {"/", ","} and all(int(group.replace("o", "0").replace("O", "0")) <= 31 for group in groups):
        return None  # a list of days
    return m


# --------------------------------------------------------------------------
# MEL: e-mail addresses
# --------------------------------------------------------------------------

# Catches local@domain.tld, glued to punctuation or a word. Leaves out the
# spelled-out forms ("julie at gmail point com", "[at]", "arobase") and
# domains without a dot. A final label that is not a known TLD is cut off
# when an earlier one is ("x@gmail.com.merci" -> "x@gmail.com").
_MEL_RE = re.compile(
    rf"""
    (?<![\w.%+\-])                           # start at the beginning of the run
    [\w%+\-][\w.%+\-]*                       # local part
    @
    (?:[^\W_][\w\-]*\.)+                     # domain labels
    {_LETTER}{{2,24}}(?![\w\-])              # TLD (letters only)
    """,
    re.VERBOSE,
)

# --------------------------------------------------------------------------
# URL: scheme, www., or a bare domain with a common TLD followed by a path
# --------------------------------------------------------------------------

# Catches scheme:// and www. forms up to the next blank, and bare domains with
# a TLD from _TLDS followed by a path (or :port/path). Trailing sentence
# punctuation is cut off (a ')' only when unbalanced). Leaves out: bare
# domains without a path ("leboncoin.fr"), unusual TLDs in bare domains,
# "http:" without "//"; text glued after a URL ("site.fr/page,merci") stays in.
_URL_CHARS = r"[^\s<>\"]"
_URL_RE = re.compile(
    rf"""
    (?:
        (?:https?|ftp)://\w{_URL_CHARS}*
      |
        (?<![\w./@\-])www[0-9]{{0,3}}\.\w{_URL_CHARS}*
      |
        (?<![\w@.\-/])(?:[^\W_][\w\-]*\.)+(?:{_alternation(_TLDS)})
        (?::[0-9]{{1,5}})?/{_URL_CHARS}*        # a path is required
    )
    """,
    re.VERBOSE | re.IGNORECASE,
)
# Punctuation that ends a sentence rather than a URL.
_URL_TRAILING = ".,;:!?'\"’…»)]}"

# --------------------------------------------------------------------------
# ADR: postal addresses "12 bis rue des Lilas 34000 Montpellier"
# --------------------------------------------------------------------------

# Catches: number (+ bis/ter/quater/a-d), optional comma, street type, a name
# of 1-6 words (particles de/du/des/la/le/les/et/aux/d'/l'/St. free), then
# optionally a postcode (34000 or 34 000) and a city of 1-3 words (+ cedex).
# The name stops at a lower-case stop word ("12 rue des lilas ce soir") or a
# capitalised sentence starter (Demain, Merci...). Leaves out: no number
# ("rue des Lilas"), number glued to a word ("au12 rue"), "2 rue plus loin",
# postcode + city alone, weak street types (below) with a lower-case name and
# no postcode ("1 place de la comédie"), floors/buildings ("bât B, 3e étage"),
# lieux-dits and PO boxes. Capitalised words right after a name are taken in
# (up to 6 words): over-hiding, on purpose.
# Street types that are (almost) never anything else after a number.
_STRONG_TYPES = word_list("addresses/street_types.txt")
# Street types that are also common words ("2 cours de maths", "1 place
# libre", "5 mail non lus", "3 ch" = bedrooms): they need a capitalised street
# name ("2 cours Mirabeau") or a postcode after the name.
_WEAK_TYPES = word_list("addresses/weak_street_types.txt")
# Linking words inside a street name; they never end it.
_PARTICLES = ("de", "du", "des", "la", "le", "les", "et", "aux", "st.", "ste.")
# Lower-case words that end a street/city name: SMS words that follow an
# address ("12 rue des lilas ce soir", "2 rue plus loin").
_STOP_WORDS = (
    # pronouns, determiners, elided forms (j' c' m' t' s' n' qu')
    "je", "j", "tu", "t", "il", "elle", "on", "nous", "vous", "ils", "elles",
    "me", "m", "te", "se", "s", "moi", "toi", "lui", "leur", "eux", "ça", "ca",
    "c", "ce", "cet", "cette", "ces", "mon", "ma", "mes", "ton", "ta", "tes",
    "son", "sa", "ses", "notre", "nos", "votre", "vos", "un", "une", "n", "qu",
    "y", "en", "g", "k", "chui", "jsuis",
    # verbs
    "est", "es", "suis", "sont", "sera", "serai", "ai", "as", "a", "avons",
    "avez", "ont", "va", "vais", "vas", "vont", "allons", "allez", "viens",
    "vient", "venez", "arrive", "arrives", "faut", "fait", "peux", "peut",
    "veux", "veut", "dois", "doit", "sais", "vois", "attends", "attend",
    "rejoins", "retrouve", "passe", "appelle", "sonne",
    # prepositions, conjunctions, adverbs
    "à", "au", "dans", "pour", "par", "avec", "sans", "chez", "vers", "sur",
    "sous", "entre", "contre", "devant", "derrière", "derriere", "près",
    "pres", "loin", "face", "côté", "cote", "coin", "ou", "où", "mais",
    "donc", "car", "ni", "que", "qui", "quoi", "quand", "comment", "pourquoi",
    "si", "pas", "ne", "plus", "moins", "très", "tres", "trop", "bien", "bon",
    "bonne", "ici", "là", "la-bas", "là-bas", "alors", "puis", "ensuite",
    "aussi", "comme", "parce", "déjà", "deja", "encore", "toujours", "jamais",
    "tout", "toute", "tous", "toutes", "apres", "après", "avant", "pendant",
    "depuis", "maintenant", "mtn", "dc", "pr", "ds", "pk", "pq", "tt", "vs",
    # time
    "demain", "aujourd", "hier", "soir", "matin", "midi", "aprem", "nuit",
    "jour", "semaine", "week", "we", "weekend", "soirée", "soiree", "fois",
    "h", "heure", "heures", "min", "lundi", "mardi", "mercredi", "jeudi",
    "vendredi", "samedi", "dimanche",
    # SMS interjections and greetings
    "ok", "oki", "okay", "oui", "non", "merci", "stp", "svp", "bisous",
    "bises", "bisou", "biz", "bsx", "bonjour", "bonsoir", "salut", "coucou",
    "slt", "cc", "mdr", "lol", "ptdr", "bref", "enfin", "genre", "vraiment",
    # what follows an address in a message
    "code", "digicode", "porte", "étage", "etage", "appart", "appartement",
    "bat", "bât", "bâtiment", "batiment", "escalier", "esc", "interphone",
    "tel", "rdv",
) + _PARTICLES  # a particle can link two name words, never be one
# Capitalised words that still end a name (sentence starts after an address).
_HARD_STOP_WORDS = (
    "je", "tu", "on", "il", "elle", "nous", "vous", "ce", "ça", "ca", "c",
    "j", "demain", "ce", "ok", "merci", "bisous", "bises", "bisou", "lundi",
    "mardi", "mercredi", "jeudi", "vendredi", "samedi", "dimanche", "rdv",
    "code", "digicode", "tel", "bat", "bât", "bâtiment", "batiment", "et",
)
_MONTHS = (
    "janvier", "février", "fevrier", "mars", "avril", "mai", "juin", "juillet",
    "août", "aout", "septembre", "octobre", "novembre", "décembre", "decembre",
)

_UPPER = r"(?-i:[A-ZÀ-ÖØ-ÞŒ])"
_LOWER = r"(?-i:[a-zß-öø-ÿœ])"
_WORD_TAIL = rf"{_LETTER}*(?:[\-'’]{_LETTER}+)*"  # "Jean-Jaurès", "Mont'Aigoual"
_ELIDED = r"(?:[dlDL]['’])?"  # "d'Alsace", "l'Église"
_END_OF_WORD = rf"(?!{_LETTER})"
_CAP_WORD = rf"{_ELIDED}(?!(?:{_alternation(_HARD_STOP_WORDS)}){_END_OF_WORD}){_UPPER}{_WORD_TAIL}"
_LOW_WORD = rf"{_ELIDED}(?!(?:{_alternation(_STOP_WORDS)}){_END_OF_WORD}){_LOWER}{_WORD_TAIL}"
_DATE_WORD = rf"(?:1er|[0-9]{{1,2}})\s+(?:{_alternation(_MONTHS)})(?:\s+[0-9]{{4}})?"  # "du 8 Mai 1945"
_NAME_WORD = rf"(?:{_CAP_WORD}|{_LOW_WORD}|{_DATE_WORD})"
_PARTICLE = rf"(?:{_alternation(_PARTICLES)}|[dl]['’])"  # "d'" also as "de l' Église"
_PARTICLES_RUN = rf"(?:{_PARTICLE}[ {_NBSP}]*(?<=['’ {_NBSP}])){{0,3}}"
# 1 to 6 words; particles are free but never last.
_STREET_NAME = rf"{_PARTICLES_RUN}{_NAME_WORD}(?:[ {_NBSP}]+{_PARTICLES_RUN}{_NAME_WORD}){{0,5}}"
_POSTCODE = r"(?<![0-9])(?:[0-9]{5}|[0-9]{2}[ \u00a0][0-9]{3})(?![0-9])"
_CITY_PARTICLE = r"(?:en|sur|sous|lès|les|le|la|de|du|des|d['’]|l['’])"
_CITY_WORD = rf"(?:{_CAP_WORD}|{_LOW_WORD})"
_CITY = (
    rf"{_CITY_WORD}(?:[ {_NBSP}]+(?:{_CITY_PARTICLE}[ {_NBSP}]*(?<=['’ {_NBSP}]))?{_CITY_WORD}){{0,2}}"
    rf"(?:[ {_NBSP}]+cedex(?:[ {_NBSP}]*[0-9]{{1,2}})?)?"
)
_POSTCODE_CITY = rf"[ {_NBSP}]*,?[ {_NBSP}]*{_POSTCODE}(?:[ {_NBSP}]+{_CITY})?"

# The street name is written once: after a strong street type it may be any; after a weak one
# (allée, chemin, place...) it starts with a capital, or a postcode follows it (the conditions at
# the end, on the groups that record which held). Written once, the expression compiles in about
# 0.01 s instead of 0.03 s, and matches as the three alternatives it stands for would.
_ADR_PATTERN = (
    rf"""
    (?<![\w:,.])                             # not "18h30", "3,5", "12.5"
    [0-9]{{1,4}}(?:[ {_NBSP}]?(?:bis|ter|quater|[a-d]){_END_OF_WORD})?
    [ {_NBSP}]*,?[ {_NBSP}]*
    (?:
        (?:{_alternation(_STRONG_TYPES)})(?:(?<!\.)\.)?(?![\w\-])[ {_NBSP}]+(?P<strong>)
      |
        (?:{_alternation(_WEAK_TYPES)})\.?(?![\w\-])[ {_NBSP}]+
        (?:(?={_PARTICLES_RUN}{_ELIDED}{_UPPER})(?P<capital>)|)
    )
    {_STREET_NAME}
    (?P<city>{_POSTCODE_CITY})?
    (?(strong)|(?(capital)|(?(city)|(?!))))  # a weak type: a capital first, or a postcode after
    """
)


@functools.cache
def _adr_re() -> re.Pattern:
    """The address expression, compiled the first time a message passes the gate below: its
    8,500 characters take about 0.01 s to compile, and most runs of a few messages never need it."""
    return re.compile(_ADR_PATTERN, re.VERBOSE | re.IGNORECASE)

# Cheap gate before the address expression (whose street-name part is costly even when it
# fails): a number not glued to a word, then the next word, which must be a
# street type (its first word) or bis/ter/a-d, in any case (the whole run of letters, as
# str.lower() writes it, is one of _ADR_GATE_WORDS). Starting with a bare [0-9] lets
# `re` skip to digits fast; the lookbehind then checks the character before
# that first digit. Possessive quantifiers: a failed gate fails at once. The word is looked
# at, not taken: the gate matches only where the address expression is tried.
_ADR_GATE_WORDS = frozenset(
    [re.split(r"[ .\-]", street_type)[0] for street_type in _STRONG_TYPES | _WEAK_TYPES]
    + ["bis", "ter", "quater", "a", "b", "c", "d"]
)
_ADR_GATE = re.compile(
    rf"[0-9](?<![\w:,.][0-9])[0-9]{{0,3}}+[ {_NBSP}]*+,?[ {_NBSP}]*+"
    rf"(?=(?:{_alternation(_ADR_GATE_WORDS, _either_case)}){_END_OF_WORD})"
)

# --------------------------------------------------------------------------
# COD: long digit codes and door codes
# --------------------------------------------------------------------------

# Catches 8+ digits: a plain run (with the capitals glued to it, "6A0123..."),
# uniformly grouped digits (4-4-4..., 3-3-3..., five or more pairs), NIR, and
# IBAN (below). Leaves out: codes of fewer than 8 digits (unless after a door
# code cue), dot-grouped numbers other than NIR (dates: "12.05.2012"), mixed
# group sizes ("12-05-2012"), money ("250 000 000 €"), a phone followed by a
# small number ("06 12 34 56 78 12 fois" is TEL). An 8-digit date written
# without separators ("12052012") IS tagged.
# Tried at the start of each run of digits (see _detect_long_numbers()).
_COD_NUMBER_RE = re.compile(
    r"""
    (?<![0-9])
    (?:
        # French social-security number (NIR): 1 85 05 78 006 084 36, Corsica 2A/2B
        [12](?:[ .\-]?[0-9][0-9]){2}[ .\-]?(?:[0-9][0-9]|2[ABab])
        [ .\-]?[0-9]{3}[ .\-]?[0-9]{3}(?:[ .\-]?[0-9][0-9])?
      |
        # Uniformly grouped digits, not continuing a number ("1 250 000 000")
        (?<![0-9][ \-])
        (?:
            [0-9]{4}(?:[ \-][0-9]{4}){2,}(?:[ \-][0-9]{1,3})?   # card: 4970 1012 3456 7890
          | [0-9]{3}(?:[ \-][0-9]{3}){2,}(?!\s?(?:€|eur))       # 123 456 789, not money
          | (?!0[1-9](?:[ \-][0-9][0-9]){4,5}(?![ \-][0-9][0-9]|[0-9]))  # phone (+ "12 fois"): TEL
            [0-9][0-9](?:[ \-][0-9][0-9]){4,}                     # 12 34 56 78 90
        )
      |
        (?P<plain>[0-9]{8,})                                     # plain run of 8+ digits
    )
    (?![0-9])
    """,
    re.VERBOSE,
)
_CODE_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
# TEL needs 10 digits, numeric COD 8: most messages with digits have fewer. (detect counts them
# one at a time: a list of the digits is made faster than a pattern spanning eight of them is
# matched.)
_DIGIT = re.compile(r"[0-9]")
# IBAN: FR76 3000 6000 0112 3456 7890 189 (tried two characters before a
# digit run). Each group must hold a digit so that upper-case words after the
# number are not swallowed.
_IBAN_RE = re.compile(
    r"""
    (?<![A-Za-z0-9])[A-Za-z]{2}[0-9][0-9]
    (?:[ ]?(?=[A-Z]{0,3}[0-9])[A-Z0-9]{4}){3,7}
    (?:[ ]?(?=[A-Z]{0,2}[0-9])[A-Z0-9]{1,3})?
    (?![A-Za-z0-9])
    """,
    re.VERBOSE,
)

# Codes after a cue: 4-8 letters/digits holding a digit, right after "code" or "digicode"
# (+ porte, d'entrée, de la porte, immeuble, pin, ...), "porte", "badge", "pin", "mdp", "mot de
# passe", "interphone", "cadenas", "alarme", and an optional ":", "=", "est", "c'est (le)" or the
# SMS "c" / "cé"; and plates ("AB-123-CD", "AB 123 CD") after "plaque" or "immat(riculation)".
# A postal code after "code postal" is a code too. Passwords after "mdp", "mot de passe" or
# "password" are longer and mixed: up to 24 characters holding a digit ("mdp c azerty123").
# A message that is a number of six or seven digits and nothing else is a code sent alone
# (a verification or client number: "482913"). Leaves out "code promo NOEL20", times
# ("code 18h30"), years ("code 2024"), prices ("badge 1500€"), other codes of 9+ characters
# (8+ digits are caught above anyway) and other codes without a cue ("4521B" alone: the word
# scorer and the expert see it).
_DOOR_QUALIFIERS = (
    "porte", "entrée", "entree", "immeuble", "imm", "portail", "accès", "acces",
    "bâtiment", "batiment", "bât", "bat", "hall", "interphone", "pin",
    "alarme", "garage", "parking", "résidence", "residence", "secret", "postal",
)
_CODE_CUES = ("code", "codé", "codée", "codés", "codées", "digicode", "porte", "badge", "pin", "mdp", "interphone",
              "cadenas", "alarme")
# The cue each pattern below starts with (they are searched for together, see _cued_codes).
_DOOR_CUE = rf"\b(?:{_alternation(_CODE_CUES)}|mot[ {_NBSP}]de[ {_NBSP}]passe){_END_OF_WORD}"
_PASSWORD_CUE = rf"\b(?:mdp|mot[ {_NBSP}]de[ {_NBSP}]passe|password|passwd|pwd){_END_OF_WORD}"
_PLATE_CUE = rf"\b(?:plaque|immat(?:riculation)?){_END_OF_WORD}"
_TRIP_CUE = rf"\b(?:train|tgv|ter|ouigo|intercit[ée]s|vol|flight){_END_OF_WORD}"
_DOOR_CODE_RE = re.compile(
    rf"""
    {_DOOR_CUE}
    (?:[ {_NBSP}]+(?:(?:de[ {_NBSP}]+(?:la[ {_NBSP}]+|l['’])?|d['’]))?
        (?:{_alternation(_DOOR_QUALIFIERS)})(?!\w))?
    [ {_NBSP}]*(?:(?:[:=]|est|c['’]est|c[ ]est|c|cé|ce[ ]sera)(?![\w'’])[ {_NBSP}]*(?:le[ {_NBSP}]+)?)?
    (?![0-9]{{1,2}}h[0-9]{{0,2}}(?!\w))            # "code 18h30" is a time
    (?!(?:19|20)[0-9][0-9](?![\w\-]))             # "code 2024": a year
    (?P<code>(?=[A-Z]{{0,7}}[0-9])[A-Z0-9]{{4,8}})(?![\w\-])
    (?![ {_NBSP}]?(?:€|eur|euros?\b|e\b))        # "badge 1500€": a price
    """,
    re.VERBOSE | re.IGNORECASE,
)
_PASSWORD_RE = re.compile(
    rf"""
    {_PASSWORD_CUE}
    [ {_NBSP}]*(?:(?:[:=]|(?:est|c['’]est|c[ ]est|c|cé)(?![\w'’]))[ {_NBSP}]*(?:le[ {_NBSP}]+)?)?
    (?P<code>(?=[^\s,;]{{0,23}}[0-9])[\w@#$%&*+][\w@#$%&*+=!?.\-]{{2,22}}[\w@#$%&*+=\-])
    (?![\w@#$%&*+=\-]|[!?.]+[\w@#$%&*+=\-])
    """,
    re.VERBOSE | re.IGNORECASE,
)
_LONE_NUMBER = re.compile(r"\s*(?P<code>[0-9]{6,7})\s*[.!]?\s*")
_PLATE_RE = re.compile(
    rf"""
    {_PLATE_CUE}[^0-9\n]{{0,20}}?
    (?<![A-Za-z])(?P<code>[A-Z]{{2}}(?P<sep>[ \-]?)[0-9]{{3}}(?P=sep)[A-Z]{{2}})(?![\w\-])
    """,
    re.VERBOSE | re.IGNORECASE,
)
# A code with no cue: a token mixing capitals and digits, of 4 to 12 characters (colis TL7CWJQ,
# portail c TV22) or a digit, a capital and a digit (salle 9U2); not a time (18H, 17H45, H24), not a
# number with its unit (55M2, 8GO), not one of codes/not_codes.txt (MP3, CM2, CO2), not a promotion
# (code promo NOEL20).
_MIXED_CODE_RE = re.compile(
    r"(?<![\w@#./\-])(?P<code>(?=[A-Z0-9]*[A-Z])(?=[A-Z0-9]*[0-9])(?:[A-Z0-9]{4,12}|[0-9][A-Z][0-9]))(?![\w@/\-])")
# A train or a flight by its number (train 6112, TGV n° 6203, vol AF 1234): with a date, it says
# where the sender travels. Not a bus or tram line (tram 2), not a time (train de 8h12), not a price.
_TRIP_RE = re.compile(
    rf"""
    {_TRIP_CUE}
    [ {_NBSP}]*(?:(?:n°|no|num[ée]ro|num)\.?[ {_NBSP}]*)?
    (?!(?:19|20)[0-9][0-9](?![\w\-]))             # "vol 2024": a year
    (?P<code>(?:[A-Z]{{2}}[ {_NBSP}]?)?[0-9]{{3,5}})(?![\w,.:/\-])
    (?![ {_NBSP}]?(?:€|eur|euros?\b|e\b|h\b|min|km))
    """,
    re.VERBOSE | re.IGNORECASE,
)
# A number of four or five digits that starts with a zero, standing alone (0317, 04012): a code,
# since no count, price, time or year is written so; not part of a phone number, a date or a time.
_ZERO_CODE_RE = re.compile(r"(?<![\w:/.,+\-])(?P<code>0[0-9]{3,4})(?![\w:/.,%€\-]|[ \u00a0]?(?:h\b|€|eur))")
# What each of the two patterns above needs somewhere in the text: a capital next to a digit (a run
# of capitals and digits holding both has one), a zero and three digits. Searched first, they spare
# the patterns' look-arounds at every character of the messages that have none (most of them).
_MIXED_HINT = re.compile(r"[0-9](?:(?<=[A-Z][0-9])|(?=[A-Z]))")  # one branch: `re` skips to the digits
_ZERO_HINT = re.compile(r"0[0-9]{3}")
_NOT_A_CODE_RE = re.compile(r"[0-9]{1,2}H(?:[0-9]{2})?|H24|[0-9]+(?:M2|M3|GO|MO|KO|TO|KM|KG|CM|MM|KW|ML|CL|HZ|MP|PX)")
_NOT_CODES = frozenset(word.upper() for word in word_list("codes/not_codes.txt"))


def _mixed_codes(text: str, found: list[tuple[int, int, str]]) -> None:
    for m in _MIXED_CODE_RE.finditer(text):
        code = m.group("code")
        if code not in _NOT_CODES and not _NOT_A_CODE_RE.fullmatch(code) \
                and "promo" not in text[max(0, m.start() - 12):m.start()].lower():  # a promotion is public
            found.append((m.start("code"), m.end("code"), "COD"))


# Any cue, in lower case: a cheap test before the patterns above (substring tests on the
# lower-cased text are four times faster than one case-insensitive regular expression).
_TRIP_CUES_LOWER = ("train", "tgv", "ter", "ouigo", "intercit", "vol", "flight")
_CODE_CUES_LOWER = ("code", "codé", "porte", "badge", "pin", "mdp", "passe", "interphone", "cadenas", "alarme", "plaque",
                    "immat", "password", "passwd", "pwd")
# A cue of either list: most messages with a digit hold none, and are spared the tests of each.
# (The first letters looked at ahead first let `re` skip to them faster.)
_ANY_CUE = re.compile(f"(?=[{''.join(sorted({cue[0] for cue in _TRIP_CUES_LOWER + _CODE_CUES_LOWER}))}])"
                      + _alternation(_TRIP_CUES_LOWER + _CODE_CUES_LOWER))
# Where any of the patterns of codes after a cue can start (_DOOR_CUE, _PASSWORD_CUE, _PLATE_CUE and
# _TRIP_CUE: the start of a word that begins like one of their cues, in the same case-insensitive
# matching): the patterns are tried there only, each found once by one search of the text.
_CUE_STARTS = ("cod", "digicode", "porte", "badge", "pin", "mdp", "interphone", "cadenas", "alarme", "mot", "passw",
               "pwd", "plaque", "immat", "train", "tgv", "ter", "ouigo", "intercit", "vol", "flight")
_CUE_START = re.compile(
    rf"(?<!\w)(?=[{''.join(sorted({cue[0] for cue in _CUE_STARTS}))}])(?={_alternation(_CUE_STARTS)})", re.IGNORECASE)


def _cued_codes(text: str, patterns: tuple[re.Pattern, ...], found: list[tuple[int, int, str]]) -> None:
    """The codes each of `patterns` (which start with a cue) finds in `text`, as its finditer
    would find them, pattern after pattern: each is tried only where a cue starts, from the end of
    its previous match on."""
    ends = [0] * len(patterns)
    hits: list[list[tuple[int, int, str]]] = [[] for _ in patterns]
    for cue in _CUE_START.finditer(text):
        at = cue.start()
        for i, pattern in enumerate(patterns):
            if at >= ends[i]:
                m = pattern.match(text, at)
                if m:
                    hits[i].append((m.start("code"), m.end("code"), "COD"))
                    ends[i] = m.end()
    for found_by_one in hits:
        found += found_by_one

# --------------------------------------------------------------------------
# Detection
# --------------------------------------------------------------------------


def _trim_url_end(text: str, start: int, end: int) -> int:
    """Drop sentence punctuation glued to the end of a URL (keep balanced ')')."""
    while end > start and text[end - 1] in _URL_TRAILING:
        closing = text[end - 1]
        opening = {")": "(", "]": "[", "}": "{"}.get(closing)
        if opening and text.count(opening, start, end) >= text.count(closing, start, end):
            break
        end -= 1
    return end


def _trim_mail_end(text: str, start: int, end: int) -> int:
    """Cut "x@gmail.com.merci" back to the last known TLD when the final label is not one."""
    at = text.index("@", start, end)
    labels = text[at + 1 : end].split(".")
    if labels[-1].lower() in _TLDS:
        return end
    for index in range(len(labels) - 2, 0, -1):
        if labels[index].lower() in _TLDS:
            return at + 1 + len(".".join(labels[: index + 1]))
    return end


def _rank(candidate: tuple[int, int, str]) -> tuple[int, int, int]:
    start, end, tag = candidate
    return (start - end, _PRIORITY[tag], start)  # longest first, then priority


def _resolve(candidates: list[tuple[int, int, str]]) -> list[Detection]:
    """Keep the longest of overlapping (start, end, tag) candidates (tie: tag priority), sorted by start."""
    if len(candidates) > 1:
        candidates.sort(key=_rank)
        kept: list[tuple[int, int, str]] = []
        for start, end, tag in candidates:
            if all(end <= kept_start or start >= kept_end for kept_start, kept_end, _ in kept):
                kept.append((start, end, tag))
        kept.sort()
        candidates = kept
    return [Detection._make(candidate) for candidate in candidates]


def _token_bounds(text: str, index: int) -> tuple[int, int]:
    """The whitespace-delimited token around text[index] (a superset of any URL/e-mail there)."""
    start = max(text.rfind(" ", 0, index), text.rfind("\n", 0, index), text.rfind("\t", 0, index)) + 1
    end = len(text)
    for space in " \n\t":
        found = text.find(space, index)
        if found != -1 and found < end:
            end = found
    return start, end


def _detect_mails(text: str, found: list[tuple[int, int, str]]) -> None:
    token_end = 0
    at = text.find("@")
    while at != -1:
        if at >= token_end:
            token_start, token_end = _token_bounds(text, at)
            for m in _MEL_RE.finditer(text, token_start, token_end):
                found.append((m.start(), _trim_mail_end(text, m.start(), m.end()), "MEL"))
        at = text.find("@", at + 1)


def _detect_urls(text: str, found: list[tuple[int, int, str]]) -> None:
    # A URL holds a '/' or "www": only the tokens around those are searched.
    anchors = []
    slash = text.find("/")
    while slash != -1:
        anchors.append(slash)
        slash = text.find("/", slash + 1)
    if "w" in text or "W" in text:
        anchors.extend(m.start() for m in _WWW.finditer(text))
        anchors.sort()
    token_end = 0
    for anchor in anchors:
        if anchor < token_end:
            continue
        token_start, token_end = _token_bounds(text, anchor)
        for m in _URL_RE.finditer(text, token_start, token_end):
            end = _trim_url_end(text, m.start(), m.end())
            if end > m.start():
                found.append((m.start(), end, "URL"))


def _detect_numbers(text: str, found: list[tuple[int, int, str]], digits: int) -> None:
    """TEL, ADR and COD candidates (the message holds `digits` digits, one at least)."""
    if digits >= 8:
        _detect_long_numbers(text, found)
    adr_end = 0
    for gate in _ADR_GATE.finditer(text):
        start = gate.start()
        if start >= adr_end:
            m = _adr_re().match(text, start)
            if m:
                found.append((start, m.end(), "ADR"))
                adr_end = m.end()
    lone = _LONE_NUMBER.fullmatch(text)
    if lone:
        found.append((lone.start("code"), lone.end("code"), "COD"))
    if _MIXED_HINT.search(text):
        _mixed_codes(text, found)
    if _ZERO_HINT.search(text):
        for m in _ZERO_CODE_RE.finditer(text):
            found.append((m.start("code"), m.end("code"), "COD"))
    lower = text.lower()
    if _ANY_CUE.search(lower) is None:
        return
    if any(cue in lower for cue in _CODE_CUES_LOWER):
        patterns = (_DOOR_CODE_RE, _PASSWORD_RE, _PLATE_RE, _TRIP_RE) if any(
            cue in lower for cue in _TRIP_CUES_LOWER) else (_DOOR_CODE_RE, _PASSWORD_RE, _PLATE_RE)
    else:
        patterns = (_TRIP_RE,)  # a cue was found: a trip's
    _cued_codes(text, patterns, found)


def _detect_long_numbers(text: str, found: list[tuple[int, int, str]]) -> None:
    # TEL and numeric COD start where a run of digits starts (their patterns
    # refuse to start after a digit), or just before it ('+', IBAN letters):
    # they are tried there with .match() instead of scanning the whole text.
    busy_end = 0  # a run inside an earlier hit cannot start a longer one
    length = len(text)
    for run in _DIGIT_RUN.finditer(text):
        start, run_end = run.span()
        if start < busy_end:
            continue
        tel = None
        if start and text[start - 1] == "+":
            tel = _TEL_RE.match(text, start - 1)
        if tel is None and text[start] == "0":
            tel = _TEL_RE.match(text, start) or _loose_phone(text, start)
        if tel is None and start and text[start - 1] in "oO":
            tel = _loose_phone(text, start - 1)
        if tel:
            found.append((tel.start(), tel.end(), "TEL"))
            busy_end = tel.end()
        # A numeric code has 8+ digits in a row or goes on after a separator
        # ("1 85 ...", "4970 1012 ...", "12-34-...").
        if run_end - start >= 8 or (
            run_end + 1 < length and text[run_end] in " -." and text[run_end + 1].isdigit()
        ):
            code = _COD_NUMBER_RE.match(text, start)
            if code:
                code_start, code_end = code.span()
                if code.group("plain"):
                    # Parcel/file numbers mix capitals in ("6A01234567890"):
                    # hide the whole token, but not a glued word ("ref12345678").
                    while code_start and text[code_start - 1] in _CODE_CHARS:
                        code_start -= 1
                    while code_end < length and text[code_end] in _CODE_CHARS:
                        code_end += 1
                found.append((code_start, code_end, "COD"))
                busy_end = max(busy_end, code_end)
        if start >= 2 and text[start - 2].isalpha() and text[start - 1].isalpha():
            iban = _IBAN_RE.match(text, start - 2)
            if iban:
                found.append((iban.start(), iban.end(), "COD"))
                busy_end = max(busy_end, iban.end())


def detect(text: str) -> list[Detection]:
    """All detector hits, sorted by start, never overlapping (on overlap keep the longest; on equal length the earlier tag in the priority URL > MEL > ADR > TEL > COD)."""
    first = _PRECHECK.search(text)
    if first is None:
        return []
    digits = _DIGIT.findall(text, first.start())  # (no digit comes before the first pre-checked character)
    return _detected(text, "@" in text, "/" in text or "w" in text or "W" in text, len(digits))


def _detected(text: str, mails: bool, urls: bool, digits: int) -> list[Detection]:
    """detect(text), running the e-mail and URL detectors when told to and the others when the
    text holds `digits` digits (0: none are run)."""
    found: list[tuple[int, int, str]] = []
    if mails:
        _detect_mails(text, found)
    if urls:
        _detect_urls(text, found)
    if digits:
        _detect_numbers(text, found, digits)
    return _resolve(found) if found else []


# --------------------------------------------------------------------------
# Batches
# --------------------------------------------------------------------------

# Joins the messages of a batch: it is no digit, letter, '@', '/', space or word character, so no
# test below sees it as part of a message nor finds a match across it; folded messages do not
# hold it (a batch where one does is detected message by message).
_SEPARATOR = "\x00"
# The address gate, then the rest of the message: one match per message.
_ADR_GATE_REST = re.compile(_ADR_GATE.pattern + r"[^\x00]*+")
# What a letter of the cues matches besides itself and its capital, in `re`'s case-insensitive
# matching (a test checks every character).
_FOLDS_TO_ASCII = {"\u0130": "i", "\u0131": "i", "\u017f": "s", "\u212a": "k"}
# The first three letters of each cue (all have three or more).
_CUE_HEADS = frozenset(cue[:3] for cue in _CUE_STARTS)


def _codes(text: str) -> np.ndarray:
    """The code points of `text`, one per character (str indexes)."""
    return np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)


def _key(a, b, c):
    """Three code points as one number (each takes 21 bits)."""
    return (a << 42) | (b << 21) | c


_CUE_KEYS = np.array(sorted(_key(*map(ord, head)) for head in _CUE_HEADS), dtype=np.uint64)
_CUE_FIRSTS = np.zeros(128, dtype=bool)
_CUE_FIRSTS[[ord(head[0]) for head in _CUE_HEADS]] = True


# The characters of the messages looked at together (detect_hits): the arrays of their code points
# take about twenty bytes a character, so that a batch of long messages is looked at in parts of
# about 20 MB, and a longer message on its own (detect).
MANY_CHARACTERS = 1 << 20


def detect_many(texts: list[str]) -> list[list[Detection]]:
    """[detect(text) for text in texts] (see detect_hits)."""
    found: list[list[Detection]] = [[] for _ in texts]
    for i, hits in detect_hits(texts).items():
        found[i] = hits
    return found


def detect_hits(texts: list[str]) -> dict[int, list[Detection]]:
    """{i: detect(texts[i])} for the messages with a hit, in order. Most messages of a batch have
    no hit: what lets a family of detectors find something in a message is looked for in all of
    them at once (in the code points of the joined messages, and by one search of the address
    gate), and the detectors run on the few messages where it is found. The messages are taken
    in parts of at most MANY_CHARACTERS characters: memory does not grow with the length of a
    batch's messages."""
    found: dict[int, list[Detection]] = {}
    if sum(map(len, texts)) + len(texts) - 1 <= MANY_CHARACTERS:  # one part
        _detected_together(texts, 0, found)
        return found
    part: list[str] = []
    size = first = 0
    for i, text in enumerate(texts):
        if len(text) > MANY_CHARACTERS:
            _detected_together(part, first, found)
            hits = detect(text)
            if hits:
                found[i] = hits
            part, size, first = [], 0, i + 1
            continue
        if size + len(text) > MANY_CHARACTERS:
            _detected_together(part, first, found)
            part, size, first = [], 0, i
        part.append(text)
        size += len(text) + 1
    _detected_together(part, first, found)
    return found


def _detected_together(texts: list[str], first: int, found: dict[int, list[Detection]]) -> None:
    """detect_hits of messages of MANY_CHARACTERS characters at most, altogether, the hits of
    texts[i] put in `found` at first + i."""
    n = len(texts)
    joined = _SEPARATOR.join(texts)
    if not n or joined.count(_SEPARATOR) != n - 1:
        for i, text in enumerate(texts):
            hits = detect(text)
            if hits:
                found[first + i] = hits
        return
    # The tests below look for ASCII characters other than '?' only: the messages as Latin-1 bytes,
    # one byte each, a character past Latin-1 read as the encoder's replacement '?'.
    codes = np.frombuffer(joined.encode("latin-1", "replace"), dtype=np.uint8)
    lengths = np.fromiter(map(len, texts), dtype=np.int64, count=n)
    starts = _starts(lengths)
    messages = functools.partial(_message_at, starts)

    def holding(at: np.ndarray) -> np.ndarray:
        found = np.zeros(n, dtype=bool)
        found[messages(at)] = True
        return found

    digit = (codes - 48) < 10  # (unsigned: below '0' wraps round)
    digit_at = np.flatnonzero(digit)
    digit_of = messages(digit_at)
    digits = np.bincount(digit_of, minlength=n)
    mails = holding(np.flatnonzero(codes == 64))
    w = (codes | 32) == 119  # w or W
    urls = holding(np.flatnonzero(codes == 47)) | holding(np.flatnonzero(w[:-2] & w[1:-1] & w[2:]))
    # What _detect_numbers may find something with: 8 digits (_detect_long_numbers), the hints
    # of _mixed_codes and of the codes starting with a zero, a lone number (6 or 7 digits), a cue
    # followed by a digit (each pattern of _cued_codes takes one after its cue), the address gate.
    upper = (codes - 65) < 26
    numbers = (digits >= 8) | holding(np.flatnonzero(digit[1:] & upper[:-1] | digit[:-1] & upper[1:])) \
        | holding(np.flatnonzero((codes[:-3] == 48) & digit[1:-2] & digit[2:-1] & digit[3:]))
    for i in np.flatnonzero(((digits == 6) | (digits == 7)) & ~numbers).tolist():
        numbers[i] = _LONE_NUMBER.fullmatch(texts[i]) is not None
    rest = np.flatnonzero((digits > 0) & ~numbers)
    if len(rest):  # the cues and the address gate, in the messages left
        part = _SEPARATOR.join([texts[i] for i in rest.tolist()])
        part_starts = _starts(lengths[rest])
        last_digit = digit_at[np.cumsum(digits)[rest] - 1] - starts[rest] + part_starts
        at = _cue_starts(part, _codes(part), last_digit, functools.partial(_message_at, part_starts))
        gates = [m.start() for m in _ADR_GATE_REST.finditer(part)]
        numbers[rest[_message_at(part_starts, [*at, *gates])]] = True
    mails_of, urls_of = mails.tolist(), urls.tolist()
    digits_of = np.where(numbers, digits, 0).tolist()
    for i in np.flatnonzero(mails | urls | numbers).tolist():
        hits = _detected(texts[i], mails_of[i], urls_of[i], digits_of[i])
        if hits:
            found[first + i] = hits


def _starts(lengths: np.ndarray) -> np.ndarray:
    """Where each message starts in the messages (of `lengths` characters) joined by _SEPARATOR."""
    return np.cumsum(lengths + 1) - lengths - 1


def _message_at(starts: np.ndarray, at) -> np.ndarray:
    """The message (starting at `starts` in the joined messages) of each position `at`."""
    return np.searchsorted(starts, at, side="right") - 1


def _cue_starts(joined: str, codes: np.ndarray, last_digit: np.ndarray, messages) -> list[int]:
    """Where a cue of _CUE_START starts in `joined` (the code points `codes`) with a digit after it
    in its message (`last_digit`: where the last one of each message is). Looked for first where a
    word starts (after no ASCII word character: one past ASCII may be a word character or not)
    with the first three letters of a cue, in either case."""
    low = np.where((codes - 65) < 26, codes | 32, codes)
    for char, ascii_letter in _FOLDS_TO_ASCII.items():
        low[codes == ord(char)] = ord(ascii_letter)
    word = ((low - 97) < 26) | ((codes - 48) < 10) | (codes == 95)
    first = _CUE_FIRSTS[np.minimum(low[:-2], 127)]
    first[1:] &= ~word[:-3]
    at = np.flatnonzero(first)
    low = low.astype(np.uint64)
    at = at[among(_CUE_KEYS, _key(low[at], low[at + 1], low[at + 2]))]
    return [start for start in at[at < last_digit[messages(at)]].tolist() if _CUE_START.match(joined, start)]
