"""A benchmark corpus whose vocabulary grows like a real SMS corpus.

    python benchmarks/corpus.py --messages 200000 [--seed 0] [--out corpus.csv] [--growth]

Repeating a few thousand messages (bench.py's "warm" corpus) hides what a real corpus costs:
after its first rows every spelling is known. Real corpora keep bringing new spellings. In
88milSMS, in corpus order, the distinct space-separated stretches of text (case kept) grow as in
REAL_GROWTH, with 13.8 stretches and 68 characters per message on average.

The generator draws base messages (the demo corpus data/sample_sms.csv and, when present, the
development corpus, see CONTRIBUTING.md), joins two of them now and then so that
messages are as long as real ones, and turns some of their stretches into spellings the corpus
has not seen yet, the way SMS writers do: letter repetitions (`ouiiii`), accents dropped or
misplaced, glued clitics (`jtaime`, `jsuis`), one-letter misspellings, capitals, punctuation
glued to a word, first and last names from the INSEE lists (drawn by rank, about 1/rank) and
nicknames made from them (`Juju`, `Louloute`, `Flo`), times and amounts, ordinary words the base
has not used (from the shipped inflected forms). How many stretches are turned is steered, message
by message, so that the count of distinct stretches follows the real curve (log-log interpolation
between its points, Heaps' law fitted on its last two points beyond them); spellings coined earlier
come back now and then, the earliest most often, as real new words do. Same seed, same corpus,
and a smaller corpus is a prefix of a larger one.

`--growth` prints the generated corpus's curve beside the real one, with the ratio at each size.
The corpus is written only where --out says (bench.py: a temporary folder), never in the repository.
"""

from __future__ import annotations

import argparse
import bisect
import csv
import itertools
import json
import math
import os
import random
import re
import sys
import unicodedata
from collections.abc import Iterator
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DEMO_CORPUS = REPO / "data" / "sample_sms.csv"
# The development corpus, when present: $TRIAGE_DEV_CORPUS, else its usual place beside the checkout.
DEV_CORPUS = Path(os.environ.get("TRIAGE_DEV_CORPUS") or REPO.parent / "shared" / "data" / "sms_dev_88milsms.csv")
NAMES = REPO / "dictionaries" / "names"
FORMS = REPO / "dictionaries" / "forms" / "inflected_forms.txt"

# 88milSMS in corpus order: messages -> distinct space-separated stretches, case kept.
REAL_GROWTH = [(1_000, 3_700), (2_000, 6_600), (5_000, 14_300), (10_000, 21_900), (20_000, 34_500),
               (50_000, 65_100), (86_170, 93_500)]
REAL_STRETCHES_PER_MESSAGE = 13.8
REAL_CHARACTERS_PER_MESSAGE = 68
GROWTH_SIZES = [1_000, 2_000, 5_000, 10_000, 20_000, 50_000, 86_170, 200_000, 500_000, 1_000_000]

# Which kind of new spelling, how often (relative weights). Names and nicknames are the items
# the tool exists for; misspellings, repetitions and glued clitics send words to Seek&Hide's
# heuristics; punctuation and capitals only make a known word a new stretch.
TRANSFORMS = {
    "punctuation": 14, "capitals": 8, "first_name": 12, "last_name": 6, "nickname": 6,
    "repetition": 9, "accent": 8, "clitic": 7, "misspelling": 12, "new_word": 14, "number": 4,
}
# A stretch is replaced by a spelling coined earlier this often (new words recur).
RECUR_SHARE = 0.03

_LETTERS = re.compile(r"[^\W\d_]+")
_VOWELS = "aeiouy"
_ACCENTED = {"e": "éèê", "a": "àâ", "i": "î", "o": "ô", "u": "ùû", "c": "ç"}
_GLUE = ["!", "!!", "!!!", "?", "??", "...", "..", ",", ".", ":)", ";)", ":-)", ":(", "^^", ":p", "<3"]
_CLITIC_HEADS = ["j", "t", "m", "l", "s", "c", "n", "d", "jt", "jm", "jl", "tm"]
_ALPHABET = "abcdefghijklmnopqrstuvwxyz"


# ---------------------------------------------------------------- the real curve


def real_vocabulary(messages: float) -> float:
    """Distinct stretches of 88milSMS after `messages` messages: log-log interpolation between
    REAL_GROWTH's points, their end segments' power laws beyond them."""
    points = REAL_GROWTH
    if messages <= points[0][0]:
        (n0, v0), (n1, v1) = points[0], points[1]
    elif messages >= points[-1][0]:
        (n0, v0), (n1, v1) = points[-2], points[-1]
    else:
        i = bisect.bisect_right([n for n, _ in points], messages)
        (n0, v0), (n1, v1) = points[i - 1], points[i]
    exponent = math.log(v1 / v0) / math.log(n1 / n0)
    return v0 * (messages / n0) ** exponent


def stretches(text: str) -> list[str]:
    return [s for s in text.split(" ") if s]


# ---------------------------------------------------------------- sources


def read_texts(path: Path) -> list[str]:
    with path.open(encoding="utf-8", newline="") as handle:
        return [row["text"] for row in csv.DictReader(handle) if row.get("text")]


class Sources:
    """What the generator draws from: base messages, names by rank, ordinary words."""

    def __init__(self, dev: Path | None = DEV_CORPUS):
        self.demo = read_texts(DEMO_CORPUS)
        self.dev = read_texts(dev) if dev is not None and dev.exists() else []
        self.base = self.demo + self.dev
        self.first_names, self.first_weights = _ranked_names(NAMES / "first_names.tsv")
        self.last_names, self.last_weights = _ranked_names(NAMES / "last_names.tsv")
        with FORMS.open(encoding="utf-8") as handle:
            self.words = [w for w in (line.strip() for line in handle) if 4 <= len(w) <= 10 and w.isalpha()]


def _ranked_names(path: Path) -> tuple[list[str], list[float]]:
    """Names in rank order with cumulative weights 1/rank: the lists give ranks, not counts,
    and name frequencies are roughly Zipfian."""
    with path.open(encoding="utf-8") as handle:
        header = handle.readline().rstrip("\n").split("\t")
        name_at, rank_at = header.index("name"), header.index("rank")
        ranked = sorted((int(cells[rank_at]), cells[name_at])
                        for cells in (line.rstrip("\n").split("\t") for line in handle))
    return [name for _, name in ranked], list(itertools.accumulate(1 / rank for rank, _ in ranked))


# ---------------------------------------------------------------- SMS transformations
# Each takes a stretch (and the sources) and returns a new spelling, or None when it does not
# apply to this stretch.


def _letters(stretch: str) -> re.Match | None:
    return _LETTERS.search(stretch)


def _punctuation(stretch, rng, sources):
    return stretch + rng.choice(_GLUE) if _letters(stretch) else None


def _capitals(stretch, rng, sources):
    changed = stretch.upper() if rng.random() < 0.4 else stretch.capitalize()
    return changed if changed != stretch and len(changed) == len(stretch) else None


def _cased_name(name: str, rng) -> str:
    # As in the development corpus's surrogates: mostly capitalised, some lower, a few upper.
    roll = rng.random()
    return name.lower() if roll < 0.15 else name.upper() if roll < 0.18 else name


def _first_name(stretch, rng, sources):
    return _cased_name(rng.choices(sources.first_names, cum_weights=sources.first_weights)[0], rng)


def _last_name(stretch, rng, sources):
    return _cased_name(rng.choices(sources.last_names, cum_weights=sources.last_weights)[0], rng)


def _plain(text: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFD", text) if not unicodedata.combining(c))


def _nickname(stretch, rng, sources):
    """Juju (Julie), Loulou / Louloute (Louise), Flo (Florian), Nico, Seb: reduplicated first
    syllable, truncation, affectionate ending."""
    name = _plain(rng.choices(sources.first_names, cum_weights=sources.first_weights)[0]).lower()
    syllable = re.match(r"[^aeiouy]*[aeiouy]+", name)
    kind = rng.random()
    if syllable and kind < 0.45:
        made = syllable.group() * 2 + rng.choice(["", "", "te", "tte", "che", "ne"])
    elif kind < 0.8:
        made = name[: rng.randint(3, 4)] + rng.choice(["", "", "o", "ou", "y"])
    else:
        made = name[: rng.randint(3, 5)] + rng.choice(["ette", "inou", "ounet", "ichou", "ie"])
    return made.capitalize() if rng.random() < 0.6 else made


def _repetition(stretch, rng, sources):
    word = _letters(stretch)
    if not word:
        return None
    at = [i for i in range(word.start(), word.end()) if stretch[i].lower() in _VOWELS] or [word.end() - 1]
    i = rng.choice(at[-2:] if rng.random() < 0.6 else at)  # mostly the last vowels: ouiiii, merciii
    return stretch[: i + 1] + stretch[i] * rng.randint(1, 4) + stretch[i + 1 :]


def _accent(stretch, rng, sources):
    plain = _plain(stretch)
    if plain != stretch:
        if rng.random() < 0.7:
            return plain  # accents dropped: tres, deja, a
        # misplaced: é where è belongs and the like
        return stretch.translate(str.maketrans("éèêà", "èéèâ"))
    places = [i for i, c in enumerate(stretch) if c in _ACCENTED]
    if not places:
        return None
    i = rng.choice(places)
    return stretch[:i] + rng.choice(_ACCENTED[stretch[i]]) + stretch[i + 1 :]


def _clitic(stretch, rng, sources):
    """jtaime, jsuis, lecole, cest: an elided clitic glued to the word."""
    word = _letters(stretch)
    if not word or word.start() != 0 or len(word.group()) < 2:
        return None
    return rng.choice(_CLITIC_HEADS) + stretch.lower()


def _misspelling(stretch, rng, sources):
    word = _letters(stretch)
    if not word or len(word.group()) < 4:
        return None
    start, end = word.span()
    i = rng.randrange(start, end)
    kind = rng.random()
    if kind < 0.35:  # a letter left out
        return stretch[:i] + stretch[i + 1 :]
    if kind < 0.6 and i + 1 < end:  # two letters swapped
        return stretch[:i] + stretch[i + 1] + stretch[i] + stretch[i + 2 :]
    if kind < 0.85:  # a letter replaced
        return stretch[:i] + rng.choice(_ALPHABET) + stretch[i + 1 :]
    return stretch[:i] + rng.choice(_ALPHABET) + stretch[i:]  # a letter too many


def _new_word(stretch, rng, sources):
    word = rng.choice(sources.words)
    return word.capitalize() if rng.random() < 0.1 else word


def _number(stretch, rng, sources):
    kind = rng.random()
    if kind < 0.5:
        return f"{rng.randrange(24)}h{rng.randrange(0, 60, 5):02d}" if rng.random() < 0.7 else f"{rng.randrange(24)}h"
    if kind < 0.8:
        return f"{rng.randrange(1, 200)}{rng.choice(['€', 'e', 'eur', 'km', 'min', 'mn', 'ans'])}"
    return f"{rng.randrange(1, 29)}/{rng.randrange(1, 13):02d}"


_TRANSFORM_FUNCTIONS = {
    "punctuation": _punctuation, "capitals": _capitals, "first_name": _first_name, "last_name": _last_name,
    "nickname": _nickname, "repetition": _repetition, "accent": _accent, "clitic": _clitic,
    "misspelling": _misspelling, "new_word": _new_word, "number": _number,
}


# ---------------------------------------------------------------- the generator


def generate(count: int, seed: int = 0, sources: Sources | None = None, *, growth: list | None = None) -> Iterator[str]:
    """`count` messages whose distinct stretches follow real_vocabulary(). With `growth` (a
    list), appends (messages, distinct stretches, stretches, characters) at each size of
    GROWTH_SIZES reached, and at the end."""
    sources = sources or Sources()
    rng = random.Random(seed)
    base = [stretches(text) for text in sources.base]
    base_mean = sum(map(len, base)) / len(base)
    # Join two base messages this often, so that messages have the real corpus's length.
    join_share = min(1.0, max(0.0, REAL_STRETCHES_PER_MESSAGE / base_mean - 1))
    names = list(TRANSFORMS)
    weights = list(itertools.accumulate(TRANSFORMS.values()))
    seen: set[str] = set()
    coined: list[str] = []
    total_stretches = total_characters = 0
    sizes = iter([s for s in GROWTH_SIZES if s < count] + [count])
    next_size = next(sizes)
    for number in range(1, count + 1):
        parts = list(rng.choice(base))
        if rng.random() < join_share:
            parts += rng.choice(base)
        # How many new stretches this message should bring for the corpus to stay on the curve
        # (the base's own new stretches count: they are many at first).
        fresh = sum(1 for p in parts if p not in seen)
        wanted = real_vocabulary(number) - len(seen) - fresh
        share = min(0.9, max(0.0, wanted / len(parts)))
        for i, part in enumerate(parts):
            roll = rng.random()
            if roll < share:
                parts[i] = _coin(part, rng, sources, seen, names, weights) or part
                if parts[i] != part:
                    coined.append(parts[i])
            elif roll < share + RECUR_SHARE and coined:
                parts[i] = coined[int(len(coined) * rng.random() ** 2)]  # early coinages recur most
        text = " ".join(parts)
        seen.update(parts)
        total_stretches += len(parts)
        total_characters += len(text)
        yield text
        if growth is not None and number == next_size:
            growth.append((number, len(seen), total_stretches, total_characters))
            next_size = next(sizes, None)


def _coin(part: str, rng, sources, seen: set[str], names, weights) -> str | None:
    """A spelling not seen yet, made from `part` (a few kinds tried)."""
    for _ in range(4):
        kind = rng.choices(names, cum_weights=weights)[0]
        made = _TRANSFORM_FUNCTIONS[kind](part, rng, sources)
        if made and " " not in made and made not in seen:
            return made
    return None


def write_corpus(path: Path, texts) -> dict:
    """Writes id,text; returns the size and the share of exact duplicate texts."""
    distinct: set[int] = set()
    count = 0
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["id", "text"])
        for count, text in enumerate(texts, 1):
            writer.writerow([count, text])
            distinct.add(hash(text))
    return {"path": str(path), "messages": count, "distinct_texts": len(distinct),
            "duplicate_share": 1 - len(distinct) / count if count else 0.0, "bytes": path.stat().st_size}


def growth_report(growth: list) -> dict:
    """The generated curve beside the real one (measured up to 86,170 messages, extrapolated
    beyond), with the ratio at each size, and the mean stretches and characters per message."""
    points = []
    measured = dict(REAL_GROWTH)
    for messages, distinct, _, _ in growth:
        real = real_vocabulary(messages)
        points.append({"messages": messages, "generated": distinct, "real": round(real),
                       "real_is": "measured" if messages in measured else
                       "extrapolated" if messages > REAL_GROWTH[-1][0] else "interpolated",
                       "ratio": distinct / real})
    messages, _, total_stretches, total_characters = growth[-1]
    return {"points": points, "max_deviation": max(abs(p["ratio"] - 1) for p in points),
            "stretches_per_message": total_stretches / messages,
            "characters_per_message": total_characters / messages,
            "real_stretches_per_message": REAL_STRETCHES_PER_MESSAGE,
            "real_characters_per_message": REAL_CHARACTERS_PER_MESSAGE}


def format_growth(report: dict) -> str:
    lines = [f"{'messages':>10}{'generated':>12}{'88milSMS':>12}  {'':<13}{'ratio':>7}"]
    for p in report["points"]:
        lines.append(f"{p['messages']:>10,}{p['generated']:>12,}{p['real']:>12,}  {p['real_is']:<13}{p['ratio']:>7.3f}")
    lines.append(f"per message: {report['stretches_per_message']:.1f} stretches (real {REAL_STRETCHES_PER_MESSAGE}), "
                 f"{report['characters_per_message']:.0f} characters (real {REAL_CHARACTERS_PER_MESSAGE}); "
                 f"largest deviation from the real curve {100 * report['max_deviation']:.1f}%")
    return "\n".join(lines)


def batch_options(description: str) -> argparse.ArgumentParser:
    """The options of a benchmark that times a part of classify on this generated corpus, cut into
    classify's batches: --messages --batch --seed --repeat --out (a JSON file)."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--messages", type=int, default=86_000)
    parser.add_argument("--batch", type=int, default=5_000, help="messages a batch (classify's)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--out", type=Path, help="JSON file to write")
    return parser


def write_results(path: Path | None, results: dict) -> None:
    """A benchmark's results as JSON at `path` (nothing without one)."""
    if path is not None:
        path.write_text(json.dumps(results, indent=1) + "\n", "utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--messages", type=int, default=200_000, help="corpus size (default 200,000)")
    parser.add_argument("--seed", type=int, default=0, help="seed (same seed, same corpus)")
    parser.add_argument("--out", type=Path, help="CSV file to write (id,text); none: only --growth")
    parser.add_argument("--growth", action="store_true", help="print the vocabulary growth beside 88milSMS's")
    args = parser.parse_args(argv)
    if args.messages < 1:
        parser.error("--messages must be positive")
    sources = Sources()
    if not sources.dev:
        print(f"note: {DEV_CORPUS} absent: base messages from the demo corpus only", file=sys.stderr)
    growth: list = []
    texts = generate(args.messages, args.seed, sources, growth=growth)
    if args.out:
        stats = write_corpus(args.out, texts)
        print(f"wrote {stats['messages']:,} messages to {args.out} ({100 * stats['duplicate_share']:.1f}% exact duplicates)")
    else:
        for _ in texts:
            pass
    if args.growth:
        print(format_growth(growth_report(growth)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
