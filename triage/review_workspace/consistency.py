"""Consistency across the corpus before a release, as Reffay et al. check before substituting.

In what a release would publish (the workspace's final rows, undecided queued messages left out),
three kinds of case are listed:
- `mixed`: a spelling hidden in some messages and readable in others (a name hidden once stays
  readable in three other messages);
- `surrogate`: a surrogate kept from an earlier release (the workspace's map) equal to a form the
  corpus shows, so that a reader cannot tell a replaced name from a real one;
- `tags`: one spelling hidden under two tags (`Martin` as a first name here, a surname there), so
  that one entity would get two pseudonyms or two surrogates.
Each case is decided once, for the whole corpus, and stored in the workspace; the release applies it:
- mixed and surrogate: `hide` (hidden everywhere it is readable) or `readable` (a mixed spelling
  shown everywhere; a surrogate's entity gets a new surrogate); a mixed spelling may also be decided
  `homonyms` (a name where it is hidden, an ordinary word where it is readable: "Pierre" and "une
  pierre"), which leaves every mention as it is;
- tags: `same` (one entity: every mention gets the tag it has most often) or `different` (two
  entities, left as they are).
Spellings are compared as the release groups entities: without accents, case or letter repetitions
(triage.surrogates.entity_key), word by word.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterable
from functools import lru_cache

from triage.errors import BadOption
from triage.surrogates import entity_key

KINDS = ("mixed", "surrogate", "tags")
CHOICES = {"mixed": ("hide", "readable", "homonyms"), "surrogate": ("hide", "readable"), "tags": ("same", "different")}
EXAMPLES = 5
_WORD = re.compile(r"\w+(?:[-'’]\w+)*")
_TAG_ORDER = ("PRE", "NOM", "SUR", "TEL", "MEL", "URL", "ADR", "COD", "LIE", "MAR")


@lru_cache(maxsize=1 << 17)
def key_of(spelling: str) -> str:
    """The form two mentions of one entity share (tag aside): `Nicooolas` and `nicolas` are one."""
    return entity_key("PRE", spelling)


def check_choice(kind: str, decision: str) -> None:
    if kind not in CHOICES:
        raise BadOption(f"kind must be one of {', '.join(KINDS)}, not {kind!r:.40}")
    if decision not in CHOICES[kind]:
        raise BadOption(f"a {kind} case is decided {' or '.join(CHOICES[kind])}, not {decision!r:.40}")


def _words(text: str, spans: list) -> Iterable[tuple[int, int, str]]:
    """The readable words of a message (no character inside a span), with their key."""
    for match in _WORD.finditer(text):
        start, end = match.span()
        if any(start < e and s < end for s, e, _ in spans):
            continue
        if any(c.isalpha() for c in match.group()):
            yield start, end, key_of(match.group())


def _example(row, start: int, end: int, hidden: bool) -> dict:
    return {"id": row.id, "text": row.text, "start": start, "end": end, "hidden": hidden}


def find_cases(rows, surrogates: dict | None = None, decisions: dict | None = None) -> list[dict]:
    """The cases of the released rows (FinalRow, `undecided` ones left out), most messages first; each
    {"kind", "key", "tags", "hidden", "readable", "examples", "surrogate", "decision", "reviewer", "choices"}
    where `decision` is the stored one (None: still to decide)."""
    decisions = decisions or {}
    rows = [row for row in rows if row.route != "undecided"]
    hidden_at: dict[str, list] = defaultdict(list)  # key -> (row, start, end, tag)
    readable_at: dict[str, list] = defaultdict(list)  # key -> (row, start, end), for the keys looked for
    for row in rows:
        for start, end, tag in row.spans:
            piece = row.text[start:end]
            if _WORD.fullmatch(piece) and any(c.isalpha() for c in piece):
                hidden_at[key_of(piece)].append((row, start, end, tag))
    wanted = set(hidden_at) | {key_of(surrogate) for surrogate in (surrogates or {}).values()}
    for row in rows:  # only the words hidden somewhere, or a surrogate, are kept: memory stays small
        for start, end, key in _words(row.text, row.spans):
            if key in wanted:
                readable_at[key].append((row, start, end))
    cases = []

    def case(kind: str, key: str, tags: Counter, hidden: list, readable: list, surrogate=None) -> dict:
        stored = decisions.get((kind, key)) or {}
        examples = [_example(r, s, e, True) for r, s, e, _ in hidden[:EXAMPLES]]
        examples += [_example(r, s, e, False) for r, s, e in readable[:EXAMPLES]]
        return {"kind": kind, "key": key, "tags": dict(tags), "surrogate": surrogate,
                "hidden": len({r.id for r, *_ in hidden}), "readable": len({r.id for r, *_ in readable}),
                "examples": examples, "decision": stored.get("decision"), "reviewer": stored.get("reviewer"),
                "choices": list(CHOICES[kind])}

    for key, hidden in hidden_at.items():
        tags = Counter(tag for *_, tag in hidden)
        if key in readable_at:
            cases.append(case("mixed", key, tags, hidden, readable_at[key]))
        if len(tags) > 1:
            cases.append(case("tags", key, tags, hidden, []))
    for (tag, entity), surrogate in (surrogates or {}).items():
        key = key_of(surrogate)
        if key in readable_at:
            cases.append(case("surrogate", key, Counter({tag: 1}), [], readable_at[key],
                              surrogate={"tag": tag, "entity": entity, "surrogate": surrogate}))
    cases.sort(key=lambda c: (c["decision"] is not None, -(c["hidden"] + c["readable"]), c["kind"], c["key"]))
    return cases


def undecided(cases: list[dict]) -> list[dict]:
    return [c for c in cases if c["decision"] is None]


def _main_tag(tags: Counter) -> str:
    return max(tags, key=lambda t: (tags[t], -_TAG_ORDER.index(t) if t in _TAG_ORDER else -99))


def apply(rows, cases: list[dict]) -> tuple[list, set]:
    """The rows with the decided cases applied (FinalRow copies with new spans), and the surrogates'
    entities to draw again ((tag, entity) of the surrogate cases decided `readable`)."""
    hide: dict[str, str] = {}  # key -> tag to hide its readable mentions with
    show: set[str] = set()  # keys whose hidden mentions are shown
    retag: dict[str, str] = {}  # key -> the one tag of its mentions
    redraw: set = set()
    for c in cases:
        decision, key = c["decision"], c["key"]
        if decision is None:
            continue
        if c["kind"] == "tags" and decision == "same":
            retag[key] = _main_tag(Counter(c["tags"]))
        elif c["kind"] in ("mixed", "surrogate") and decision == "hide":
            hide[key] = _main_tag(Counter(c["tags"]))
        elif c["kind"] == "mixed" and decision == "readable":
            show.add(key)
        elif c["kind"] == "surrogate" and decision == "readable":
            redraw.add((c["surrogate"]["tag"], c["surrogate"]["entity"]))
    if not (hide or show or retag):
        return list(rows), redraw
    out = []
    for row in rows:
        if row.route == "undecided":
            out.append(row)
            continue
        spans = []
        for start, end, tag in row.spans:
            key = key_of(row.text[start:end])
            if key in show:
                continue
            spans.append([start, end, retag.get(key, tag)])
        spans += [[start, end, retag.get(key, hide[key])] for start, end, key in _words(row.text, row.spans)
                  if key in hide]
        spans.sort()
        label = "TA" if spans else ("NTA" if row.label == "TA" else row.label)
        out.append(row._replace(spans=spans, label=label))
    return out, redraw


def lines(cases: list[dict]) -> list[str]:
    """The cases as `triage review --consistency` prints them."""
    if not cases:
        return ["consistency: no spelling is both hidden and readable, no surrogate is a readable form, "
                "no spelling has two tags"]
    left = undecided(cases)
    out = [f"consistency: {len(cases):,} case{'s' if len(cases) != 1 else ''}, {len(left):,} to decide "
           "(decide them in the page, or release with --inconsistent-ok)"]
    what = {"mixed": "hidden in {hidden} message{hs}, readable in {readable} message{rs}",
            "surrogate": "surrogate of an earlier release, readable in {readable} message{rs}",
            "tags": "hidden under {tags}"}
    for c in cases:
        text = what[c["kind"]].format(hidden=c["hidden"], readable=c["readable"], hs="s" * (c["hidden"] != 1),
                                      rs="s" * (c["readable"] != 1),
                                      tags=" and ".join(f"{t} ({n})" for t, n in c["tags"].items()))
        state = f"decided {c['decision']} by {c['reviewer']}" if c["decision"] else "to decide: " + " / ".join(c["choices"])
        out.append(f"  {c['kind']:<9} '{c['key']}': {text}; {state}")
    return out
