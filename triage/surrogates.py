"""Realistic replacements for hidden items, as clinical de-identification makes them (Grouin 2013).

The same entity gets the same surrogate across a corpus and two entities get two; a first name
keeps its sex (for one given to both, the sex that bears it more often); length and shape are kept
(Capitalised, lower case, ALL CAPS, letter repetitions such as `nicooolas`); phone numbers keep
their kind (mobile, landline of the same region) and layout and come from the ranges France's
telecoms regulator reserves for fiction; e-mails and web addresses use reserved example domains
(RFC 2606); codes keep their pattern of digits, letters and separators, every digit and letter
another one. No surrogate is a name the corpus shows or hides. A seed makes the choice reproducible.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
import unicodedata
from functools import lru_cache

from triage.lexicons import DICTIONARIES_DIR

#: ARCEP's numbers reserved for fiction (films, books...), 10 digits each: the first six are fixed.
FICTION_PHONE_PREFIXES = ("019900", "026191", "035373", "046571", "053649", "063998", "097742")
EXAMPLE_DOMAINS = ("example.org", "example.com", "example.net")
ADDRESSES = ("rue des Lilas", "avenue des Tilleuls", "chemin des Vignes", "place de la Fontaine", "allée des Cerisiers",
             "impasse du Moulin", "boulevard des Platanes", "rue du Stade")
BRANDS = ("Boutix", "Marqueo", "Fabrica", "Comptoir Lune", "Vélonet", "Distrimax")
_REPEATS = re.compile(r"(\w)\1{2,}")
_VOWELS = "aeiouyéèêëàâîïôöûü"
_KEPT_REPEATS = ("COD", "MEL", "URL")  # a repeated character of a code is part of the code
_LEAK = 3  # no run of this many of the original's letters and digits survives in a surrogate


def entity_key(tag: str, spelling: str) -> str:
    """What makes two mentions one entity: for numbers their digits; for codes the spelling without
    accents or case (`AAA111` and `A1` are two codes); for words the spelling without accents, case
    or letter repetitions (`Nicooolas` and `nicolas` are one)."""
    if tag == "TEL":
        digits = re.sub(r"\D", "", spelling)
        return digits[-9:] if len(digits) >= 9 else digits  # +33 6 12... and 06 12... are one number
    folded = fold(spelling)
    if tag not in _KEPT_REPEATS:
        folded = _REPEATS.sub(r"\1", folded)
    return " ".join(re.sub(r"[^\w@.:/ -]", "", folded).split())


def fold(text: str) -> str:
    """`text` in lower case without accents: the form two spellings of one word share."""
    folded = unicodedata.normalize("NFKD", text.casefold())
    return "".join(c for c in folded if not unicodedata.combining(c))


@lru_cache(maxsize=1)
def _first_names() -> dict[str, list[str]]:
    """The common first names by sex; one given to both sexes (Jean, Marie, Camille) counts as the
    sex that bears it more often."""
    majority = json.loads((DICTIONARIES_DIR / "first_name_sexes.json").read_text("utf-8"))
    by_sex: dict[str, list[str]] = {"F": [], "M": [], "FM": []}
    lines = (DICTIONARIES_DIR / "names" / "first_names.tsv").read_text("utf-8").splitlines()[1:]
    for line in lines[:8000]:  # the common ones: a surrogate should look ordinary
        name, _id, _rank, sex = (line.split("\t") + ["", "", "", ""])[:4]
        if name.isalpha():
            by_sex.setdefault(majority.get(name, sex) if len(sex) > 1 else sex, []).append(name)
    return by_sex


@lru_cache(maxsize=1)
def _sex_of() -> dict[str, str]:
    out = {}
    for sex, names in _first_names().items():
        for name in names:
            out[entity_key("PRE", name)] = sex
    return out


@lru_cache(maxsize=1)
def _surnames() -> list[str]:
    lines = (DICTIONARIES_DIR / "names" / "last_names.tsv").read_text("utf-8").splitlines()[1:5000]
    return [line.split("\t", 1)[0] for line in lines if line.split("\t", 1)[0].isalpha()]


@lru_cache(maxsize=1)
def _all_first_names() -> list[str]:
    """The common first names, those of women then those of men (_first_names)."""
    return _first_names()["F"] + _first_names()["M"]


@lru_cache(maxsize=None)
def _near_length(pool: str, length: int, slack: int) -> list[str]:
    """The names of a pool ("F", "M" or "FM" of _first_names, "first" for those of women and of men,
    "last" for the surnames) at most `slack` letters longer or shorter than `length`, in the pool's order.
    Worked out once per pool and length: a surrogate may take up to 200 draws where the corpus
    names many people (each draw of a name the corpus shows is thrown away), and filtering the pool
    at every draw took most of a release's time."""
    return [n for n in _pool(pool) if abs(len(n) - length) <= slack]


def _pool(pool: str) -> list[str]:
    """The names of a pool of _near_length."""
    if pool == "first":
        return _all_first_names()
    if pool == "last":
        return _surnames()
    return _first_names()[pool]


@lru_cache(maxsize=1)
def _places() -> list[str]:
    lines = (DICTIONARIES_DIR / "places" / "cities.tsv").read_text("utf-8").splitlines()[1:3000]
    return [line.split("\t", 1)[0] for line in lines if line]


def shaped(surrogate: str, original: str) -> str:
    """`surrogate` written the way `original` is: its case and its letter repetitions."""
    letters = [c for c in original if c.isalpha()]
    if letters and all(c.isupper() for c in letters) and len(letters) > 1:
        out = surrogate.upper()
    elif original[:1].isupper():
        out = surrogate[:1].upper() + surrogate[1:].lower()
    else:
        out = surrogate.lower()
    run = _REPEATS.search(original)
    if run:  # nicooolas -> thooomas: the same number of repeats, on a vowel of the surrogate
        times = len(run.group(0))
        vowel = next((i for i, c in enumerate(out) if c.lower() in _VOWELS), len(out) - 1)
        out = out[: vowel + 1] + out[vowel] * (times - 1) + out[vowel + 1 :]
    return out


class Surrogates:
    """One surrogate per entity, stable across a corpus; `known` restores an earlier mapping.

    `avoid` holds forms no new surrogate may be (compared folded): the corpus's readable words and
    its hidden originals, so that a surrogate never names someone the corpus names. `hidden` holds
    the originals the release hides (in any message or column): no surrogate is one of them, not
    even one kept from an earlier release (that entity is drawn again and listed in `dropped`), so
    that a surrogate never shows the real name of another person; nor is a kept surrogate one of
    the forms `redraw`."""

    def __init__(self, seed: int = 0, known: dict[tuple[str, str], str] | None = None, avoid=(), hidden=(),
                 redraw=()):
        self.seed = seed
        self.hidden: set[str] = {_collapsed(form) for form in hidden}
        known = dict(known or {})
        redraw = {_collapsed(form) for form in redraw}
        #: The entities whose earlier surrogate is a name this release hides, or one of the forms
        #: `redraw` (words shown where no consistency check reaches: the other columns): drawn again.
        self.dropped: set[tuple[str, str]] = {entity for entity, value in known.items()
                                              if self._shows_hidden(value) or _collapsed(value) in redraw}
        self.mapping: dict[tuple[str, str], str] = {entity: value for entity, value in known.items()
                                                    if entity not in self.dropped}
        self._used: set[str] = {value.casefold() for value in self.mapping.values()}
        self.avoid: set[str] = {fold(form) for form in avoid} | self.hidden

    def _rng(self, tag: str, key: str, attempt: int) -> random.Random:
        digest = hashlib.sha256(f"{self.seed}\x00{tag}\x00{key}\x00{attempt}".encode()).digest()
        return random.Random(int.from_bytes(digest[:8], "big"))

    def replace(self, tag: str, original: str) -> str:
        key = entity_key(tag, original)
        base = self.mapping.get((tag, key))
        if base is None:
            base = self._new(tag, key, original)
            self.mapping[(tag, key)] = base
            self._used.add(base.casefold())
        if tag in ("PRE", "NOM", "SUR", "LIE"):
            return shaped(base, original)
        # What the layout adds (a phone's letters) follows from the saved surrogate, never from this
        # release's seed: the same entity is written the same way release after release.
        layout = random.Random(int.from_bytes(hashlib.sha256(f"{tag}\x00{key}\x00{base}".encode()).digest()[:8], "big"))
        if tag == "TEL":
            return _phone_layout(base, original, layout)
        if tag == "COD":
            return _code_layout(base, original, layout)
        return base

    def _new(self, tag: str, key: str, original: str) -> str:
        for attempt in range(200):
            rng = self._rng(tag, key, attempt)
            candidate = self._candidate(tag, key, original, rng, attempt)
            if (candidate.casefold() not in self._used and entity_key(tag, candidate) != key
                    and not self._avoided(tag, candidate) and not _leaks(tag, candidate, original)):
                return candidate
        return f"{tag.lower()}{len(self.mapping) + 1}"  # every list exhausted: still unique, still no original

    def _avoided(self, tag: str, candidate: str) -> bool:
        """Whether a name (first name, surname, nickname, place, brand, the names of an e-mail
        address) is one the corpus shows or hides."""
        if self.avoid and tag == "MEL":  # julie.martin@...: the names of an address too
            local = candidate.split("@")[0]
            return self._shows_hidden(local) or any(word in self.avoid for word in re.findall(r"[^\W\d_]{3,}",
                                                                                             fold(local)))
        if not self.avoid or tag not in ("PRE", "NOM", "SUR", "LIE", "MAR"):
            return False
        folded = " ".join(fold(candidate).split())
        if folded in self.avoid or _REPEATS.sub(r"\1", folded) in self.avoid:
            return True
        return self._shows_hidden(candidate)

    def _shows_hidden(self, form: str) -> bool:
        """Whether `form`, or one of its words, is an original the release hides (whatever its case,
        accents or letter repetitions)."""
        if not self.hidden:
            return False
        return _collapsed(form) in self.hidden or any(
            _collapsed(word) in self.hidden for word in re.findall(r"[^\W\d_]{2,}", fold(form)))

    def _candidate(self, tag: str, key: str, original: str, rng: random.Random, attempt: int) -> str:
        length = len(_REPEATS.sub(r"\1", original))
        if tag in ("PRE", "NOM"):
            if tag == "NOM":
                kind = "last"
            else:
                sex = _sex_of().get(key, "")
                kind = sex if _first_names().get(sex) else "first"
            near = _near_length(kind, length, 1 if attempt < 100 else 4)
            return rng.choice(near or _pool(kind))
        if tag == "SUR":  # a nickname: one French speakers use, doubled when the original is (juju, lolo)
            names = _all_first_names()
            name = rng.choice(names).lower()
            half = len(key) // 2
            doubled = len(key) >= 4 and key[:half] == key[half:]
            if attempt < 100:  # from the lists first; past them (a corpus of many nicknames), drawn from names
                pool = ([n for n in DOUBLED_NICKNAMES if len(n) == len(key)] if doubled
                        else [n for n in NICKNAMES if abs(len(n) - length) <= (1 if attempt < 50 else 3)])
                if pool:
                    return rng.choice(pool)
            if doubled:
                # A doubled nickname (lolo, juju, loulou) gets a doubled nickname as long: the first
                # syllable of a name, a consonant then a vowel (mimi, fifi).
                for _ in range(50):
                    syllable = _ascii_name(name)[:half]
                    if (len(syllable) == half and syllable[0] not in _VOWELS
                            and any(c in _VOWELS for c in syllable[1:])):
                        return syllable * 2
                    name = rng.choice(names).lower()
                return ("mi" * half)[:half] * 2
            return name[: max(3, length)]
        if tag == "LIE":
            return rng.choice(_places())
        if tag == "TEL":
            return _phone(key, rng)
        if tag == "MEL":
            return _email(original, rng)
        if tag == "URL":
            return _url(original, rng)
        if tag == "ADR":
            return f"{rng.randrange(1, 80)} {rng.choice(ADDRESSES)}"
        if tag == "MAR":
            return rng.choice(BRANDS)
        # COD and anything else: the same pattern of digits, letters and separators, every digit and
        # letter another one
        return "".join(_other(c, rng) for c in original)


# Nicknames as French speakers write them: short forms of first names and pet names, none an ordinary word.
NICKNAMES = (
    "Alex", "Ben", "Benji", "Bibou", "Cam", "Caro", "Cath", "Charly", "Chris", "Clem", "Dany", "Domi", "Fanny",
    "Flo", "Fred", "Gab", "Guigui", "Isa", "Jeannot", "Jess", "Jo", "Jojo", "Juju", "Kris", "Lili", "Lilou",
    "Loulou", "Lulu", "Manu", "Margot", "Mathou", "Max", "Mel", "Mimi", "Minou", "Momo", "Nico", "Nono", "Pat",
    "Pierrot", "Pitchoun", "Riri", "Sam", "Sandy", "Seb", "Sissi", "Soso", "Steph", "Tintin", "Titi", "Tom",
    "Toto", "Val", "Vince", "Zaza",
)
# Doubled nicknames (a syllable twice), for a doubled original of the same length.
DOUBLED_NICKNAMES = (
    "bibi", "fifi", "gigi", "jojo", "juju", "kiki", "lili", "lolo", "lulu", "mimi", "momo", "nono", "riri", "soso",
    "titi", "toto", "vivi", "zaza", "doudou", "fanfan", "guigui", "loulou", "tintin", "pioupiou",
)


def _ascii_name(name: str) -> str:
    return "".join(c for c in fold(name) if c.isascii() and c.isalpha())


def _email(original: str, rng: random.Random) -> str:
    """An address shaped as the original's: its local part's words become names (a first name, then
    surnames: kevin.durand -> julie.martin), its digits other digits, its separators stay; the domain
    is a reserved example one."""
    local = original.rsplit("@", 1)[0] if "@" in original else original
    parts, words = [], 0
    for run in re.findall(r"[^\W\d_]+|\d+|[\W_]+", local):
        if run[0].isdigit():
            parts.append("".join(_other(c, rng) for c in run))
        elif run[0].isalpha():
            pool = _all_first_names() if words == 0 else _surnames()
            # A word stays a word: a drawn name of one or two letters would read as initials.
            name = next((n for n in (_ascii_name(rng.choice(pool)) for _ in range(20)) if len(n) > 2), "contact")
            words += 1
            if len(run) <= 2:  # initials stay initials
                name = "".join(_other(c, rng) for c in run)
            parts.append(shaped(name, run) if len(run) > 2 else name)
        else:
            parts.append(run)
    return "".join(parts or ["contact"]) + "@" + rng.choice(EXAMPLE_DOMAINS)


_URL = re.compile(r"(?i)([a-z][a-z0-9+.-]*://)?(www\d?\.)?([^/?#\s]*)(.*)", re.S)


def _url(original: str, rng: random.Random) -> str:
    """A web address shaped as the original's: its scheme and `www.` when it has them, a reserved
    example domain, a page when it has a path (its trailing slash kept)."""
    scheme, www, _host, path = _URL.match(original.strip()).groups()
    out = (scheme or "") + (www or "") + rng.choice(EXAMPLE_DOMAINS)
    if path.strip("/"):
        out += f"/page{rng.randrange(1, 10_000)}" + ("/" if path.endswith("/") else "")
    elif path:
        out += "/"
    return out


def _collapsed(form: str) -> str:
    """A form as hidden names are compared: folded, its spaces single, its letter runs collapsed."""
    return re.sub(r"(\w)\1+", r"\1", " ".join(fold(form).split()))


def hidden_forms(messages) -> set[str]:
    """Every original the (text, spans) pairs hide, whole and word by word (folded): no surrogate
    may be one of them."""
    forms: set[str] = set()
    for text, spans in messages:
        for start, end, _tag in spans:
            hidden = text[start:end]
            if hidden.strip():
                forms.add(_collapsed(hidden))
                forms.update(_collapsed(word) for word in re.findall(r"[^\W\d_]{2,}", hidden))
    return forms


def forms_to_avoid(messages) -> set[str]:
    """What no surrogate may be, folded: every word of the (text, spans) pairs outside their spans
    (the words the release shows) and every hidden original, whole and word by word."""
    forms: set[str] = set()
    for text, spans in messages:
        last = 0
        for start, end, _tag in sorted(spans):
            forms.update(re.findall(r"\w+", fold(text[last:start])))
            hidden = fold(text[start:end])
            forms.add(" ".join(hidden.split()))
            forms.update(re.findall(r"\w+", hidden))
            last = max(last, end)
        forms.update(re.findall(r"\w+", fold(text[last:])))
    return forms


def _other(c: str, rng: random.Random) -> str:
    """A digit for a digit, an ASCII letter of the same case for a letter (`ç` too), never `c` itself
    nor its unaccented form; any other character is kept."""
    if c.isdigit():
        pool = "0123456789"
    elif c.isalpha():
        pool = "ABCDEFGHIJKLMNOPQRSTUVWXYZ" if c.isupper() else "abcdefghijklmnopqrstuvwxyz"
    else:
        return c
    own = fold(c)
    return rng.choice([d for d in pool if fold(d) != own and d != c])


def _alnum(text: str) -> str:
    return "".join(c for c in fold(text) if c.isalnum())


def _grams(text: str) -> set[str]:
    return {text[i:i + _LEAK] for i in range(len(text) - _LEAK + 1)}


def _leaks(tag: str, candidate: str, original: str) -> bool:
    """Whether `candidate` keeps a run of `_LEAK` letters or digits of `original`. A phone's fixed
    fiction prefix is not the original's: only the digits drawn for it are compared."""
    if tag == "TEL":
        drawn = candidate[4:] if len(candidate) == 10 else candidate
    elif tag == "COD":
        drawn = candidate
    elif tag == "MEL":
        drawn, original = candidate.rsplit("@", 1)[0], original.rsplit("@", 1)[0]
    else:
        return False
    return bool(_grams(_alnum(drawn)) & _grams(_alnum(original)))


def _phone(key: str, rng: random.Random) -> str:
    """A number of the same kind as the one whose last nine digits are `key`: a mobile for a mobile,
    a landline of the same region for a landline, from the ranges reserved for fiction where there is
    one; a short number (fewer than nine digits) gets as many digits."""
    if len(key) < 9:
        return "".join(_other(c, rng) for c in key)
    kind = key[0]
    prefix = next((p for p in FICTION_PHONE_PREFIXES if p[1] == kind), None)
    if prefix is None and kind == "7":
        prefix = next(p for p in FICTION_PHONE_PREFIXES if p[1] == "6")  # a mobile stays a mobile
    if prefix is None:
        return "0" + kind + "".join(_other(c, rng) for c in key[1:])
    return prefix + "".join(_other(c, rng) for c in key[5:])


def _phone_layout(surrogate: str, original: str, rng: random.Random) -> str:
    """The surrogate's digits in the original's layout: its last nine digits (the number) take the
    surrogate's, a country code or trunk prefix before them (+33, 0033, (0)) stays; a letter (`o6`)
    becomes another letter."""
    digits = [c for c in surrogate if c.isdigit()]
    places = [i for i, c in enumerate(original) if c.isdigit()]
    if len(places) != len(digits) and len(digits) == 10:
        digits = digits[1:]  # +33 6 12 34 56 78: the number without its trunk 0
    out = list(original)
    for i, digit in zip(reversed(places), reversed(digits)):
        out[i] = digit
    return "".join(_other(c, rng) if c.isalpha() else c for c in out)


def _code_layout(surrogate: str, original: str, rng: random.Random) -> str:
    """The surrogate's digits and letters in the original's layout (its spaces, dots, dashes) and case."""
    fill = iter(c for c in surrogate if c.isalnum())
    out = []
    for c in original:
        if not c.isalnum():
            out.append(c)
            continue
        new = next(fill, None)
        if new is None or new.isdigit() != c.isdigit() or fold(new) == fold(c):
            new = _other(c, rng)  # a spelling of the entity with more characters: never the original's
        out.append(new.upper() if c.isupper() else new.lower())
    return "".join(out)


def tag_digits(text: str) -> int:
    return sum(c.isdigit() for c in text)
