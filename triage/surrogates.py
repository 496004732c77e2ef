"""Realistic replacements for hidden items, as clinical de-identification makes them (Grouin 2013).

The same entity gets the same surrogate across a corpus and two entities get two; a first name
keeps its sex where the INSEE list gives one; length and shape are kept (Capitalised, lower case,
ALL CAPS, letter repetitions such as `nicooolas`); phone numbers come from the ranges France's
telecoms regulator reserves for fiction; e-mails and web addresses use reserved example domains
(RFC 2606); codes keep their pattern of digits and letters. A seed makes the choice reproducible.
"""

from __future__ import annotations

import hashlib
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


def entity_key(tag: str, spelling: str) -> str:
    """What makes two mentions one entity: for numbers their digits; for words the spelling without
    accents, case or letter repetitions (`Nicooolas` and `nicolas` are one)."""
    if tag == "TEL":
        digits = re.sub(r"\D", "", spelling)
        return digits[-9:] if len(digits) >= 9 else digits  # +33 6 12... and 06 12... are one number
    folded = unicodedata.normalize("NFKD", spelling.casefold())
    folded = "".join(c for c in folded if not unicodedata.combining(c))
    folded = _REPEATS.sub(r"\1", folded)
    return " ".join(re.sub(r"[^\w@.:/ -]", "", folded).split())


@lru_cache(maxsize=1)
def _first_names() -> dict[str, list[str]]:
    by_sex: dict[str, list[str]] = {"F": [], "M": [], "FM": []}
    lines = (DICTIONARIES_DIR / "names" / "first_names.tsv").read_text("utf-8").splitlines()[1:]
    for line in lines[:8000]:  # the common ones: a surrogate should look ordinary
        name, _id, _rank, sex = (line.split("\t") + ["", "", "", ""])[:4]
        if name.isalpha():
            by_sex.setdefault(sex, []).append(name)
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
    """One surrogate per entity, stable across a corpus; `known` restores an earlier mapping."""

    def __init__(self, seed: int = 0, known: dict[tuple[str, str], str] | None = None):
        self.seed = seed
        self.mapping: dict[tuple[str, str], str] = dict(known or {})
        self._used: set[str] = {value.casefold() for value in self.mapping.values()}

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
        if tag in ("TEL", "COD"):
            return _same_layout(base, original)
        return base

    def _new(self, tag: str, key: str, original: str) -> str:
        for attempt in range(200):
            rng = self._rng(tag, key, attempt)
            candidate = self._candidate(tag, key, original, rng, attempt)
            if candidate.casefold() not in self._used and entity_key(tag, candidate) != key:
                return candidate
        return f"{tag.lower()}{len(self.mapping) + 1}"  # every list exhausted: still unique, still no original

    def _candidate(self, tag: str, key: str, original: str, rng: random.Random, attempt: int) -> str:
        length = len(_REPEATS.sub(r"\1", original))
        if tag == "PRE":
            names = _first_names()
            pool = names.get(_sex_of().get(key, ""), []) or names["F"] + names["M"]
            near = [n for n in pool if abs(len(n) - length) <= (1 if attempt < 100 else 4)]
            return rng.choice(near or pool)
        if tag == "NOM":
            pool = _surnames()
            near = [n for n in pool if abs(len(n) - length) <= (1 if attempt < 100 else 4)]
            return rng.choice(near or pool)
        if tag == "SUR":  # a nickname: a short name, doubled when the original is (juju, lolo)
            name = rng.choice(_first_names()["F"] + _first_names()["M"]).lower()
            if len(key) >= 4 and key[: len(key) // 2] == key[len(key) // 2 :]:
                syllable = name[:2]
                return syllable * (len(key) // 2 // len(syllable) or 1)
            return name[: max(3, length)]
        if tag == "LIE":
            return rng.choice(_places())
        if tag == "TEL":
            return rng.choice(FICTION_PHONE_PREFIXES) + f"{rng.randrange(10_000):04d}"
        if tag == "MEL":
            return f"contact{rng.randrange(1, 10_000)}@{rng.choice(EXAMPLE_DOMAINS)}"
        if tag == "URL":
            return f"https://www.{rng.choice(EXAMPLE_DOMAINS)}/page{rng.randrange(1, 10_000)}"
        if tag == "ADR":
            return f"{rng.randrange(1, 80)} {rng.choice(ADDRESSES)}"
        if tag == "MAR":
            return rng.choice(BRANDS)
        # COD and anything else: the same pattern of digits and letters
        return "".join(
            str(rng.randrange(10)) if c.isdigit() else
            (chr(rng.randrange(26) + (65 if c.isupper() else 97)) if c.isascii() and c.isalpha() else c)
            for c in original
        )


def _same_layout(surrogate: str, original: str) -> str:
    """The surrogate's digits and letters in the original's layout (its spaces, dots, dashes)."""
    if tag_digits(original) != len([c for c in surrogate if c.isdigit()]) and not any(c.isalpha() for c in original):
        if original.lstrip().startswith("+33"):
            digits = surrogate[1:]
            return "+33 " + " ".join([digits[0]] + [digits[i:i + 2] for i in range(1, len(digits), 2)])
        return " ".join(surrogate[i:i + 2] for i in range(0, len(surrogate), 2)) if " " in original else surrogate
    fill = iter(c for c in surrogate if c.isalnum())
    return "".join(next(fill, c) if c.isalnum() else c for c in original)


def tag_digits(text: str) -> int:
    return sum(c.isdigit() for c in text)
