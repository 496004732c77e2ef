"""Words cut short: first names (seb, caro, steph: nicknames, the recognizer step
nickname-truncation) and ordinary words (dem, journé, deso: the context step abbreviation). The
two are told apart by what they start: a common first name, or a word the SMS forms stand for
(dictionaries/sms/sms_forms.tsv, `standard`: the everyday words of French SMS, demain, semaine,
journée); a start of both is a first name cut short.
"""

from __future__ import annotations

import weakref

from triage.lexicons import Lexicons, fold

# Nicknames by truncation are cut from common first names: Seb, Flo, Caro, Steph come from names
# among the 1,000 commonest of the national list (Grégory is 721st), where a short start is
# recognisable; rarer names give starts that are mostly chance strings of letters.
TRUNCATED_FROM = 1_000
TRUNCATION_LENGTHS = range(3, 6)  # seb .. steph; shorter is an initial, longer a name of its own
# Ordinary words cut short: dem (demain) .. journé (journée); shorter is a chance string of letters.
ABBREVIATION_LENGTHS = range(3, 7)

# Keyed by the lexicons themselves, weakly (an id would be reused by the next object at the same address).
_TRUNCATIONS: weakref.WeakKeyDictionary[Lexicons, frozenset[str]] = weakref.WeakKeyDictionary()
_ABBREVIATIONS: weakref.WeakKeyDictionary[Lexicons, frozenset[str]] = weakref.WeakKeyDictionary()


def truncations(lexicons: Lexicons) -> frozenset[str]:
    """The starts (TRUNCATION_LENGTHS letters, accents aside) of the TRUNCATED_FROM commonest first
    names, shorter than the name itself: seb, sebas, caro, steph..."""
    if lexicons not in _TRUNCATIONS:
        common = [fold(name) for name, rank in lexicons.first_name_ranks.items() if rank <= TRUNCATED_FROM]
        _TRUNCATIONS[lexicons] = frozenset(name[:k] for name in common for k in TRUNCATION_LENGTHS if len(name) > k)
    return _TRUNCATIONS[lexicons]


def abbreviations(lexicons: Lexicons) -> frozenset[str]:
    """The starts (ABBREVIATION_LENGTHS letters, accents aside) of the words the SMS forms stand for,
    shorter than the word itself, that start no common first name (truncations): dem, sema, journe,
    deso..."""
    if lexicons not in _ABBREVIATIONS:
        words = {fold(word) for meaning in lexicons.sms.values() for word in meaning.lower().replace("'", " ").split()}
        starts = {word[:k] for word in words if word.isalpha() for k in ABBREVIATION_LENGTHS if len(word) > k}
        _ABBREVIATIONS[lexicons] = frozenset(starts - truncations(lexicons))
    return _ABBREVIATIONS[lexicons]
