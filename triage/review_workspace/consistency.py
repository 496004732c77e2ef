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
(triage.surrogates.entity_key), word by word. A word is also read in its forms: elided (`d'X`, `l'X`,
`qu'X`), possessive (`X's`) and hyphen-joined (`X-Y`: a mention of X and of Y), so that a name hidden
in one message is found readable in those forms elsewhere (and hidden there by a `hide` decision).

A decision names the state it was taken on: each case carries a `version` (its stored decision and
its mentions), and a decision sent with another version is refused (a colleague decided it, or the
mentions changed, since). A decision keeps its grounds, the hidden mentions it was taken on: a
`readable` decision un-hides only those, and a mention hidden since makes the case to decide again.
"""

from __future__ import annotations

import hashlib
import json
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
# The forms of a word that are a mention of another: an elided article or pronoun before it, a
# possessive after it, the words a hyphen or an apostrophe joins.
_ELIDED = re.compile(r"(?:[cdjlmnst]|qu|jusqu|lorsqu|puisqu|presqu|quoiqu)['’](?=\w)", re.IGNORECASE)
_POSSESSIVE = re.compile(r"(?<=\w\w)['’]s$", re.IGNORECASE)
_PART = re.compile(r"[^-'’]+")
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


def _bare(start: int, end: int, word: str) -> tuple[int, int]:
    """The word without an elided article before it nor a possessive after it (`d'Léa`, `Léa's`: Léa)."""
    elided = _ELIDED.match(word)
    if elided and end - start - elided.end() >= 2:
        start += elided.end()
        word = word[elided.end():]
    possessive = _POSSESSIVE.search(word)
    if possessive:
        end -= len(word) - possessive.start()
    return start, end


def _forms(start: int, word: str) -> Iterable[list[tuple[int, int]]]:
    """The ways a written word can be a mention, longest first: the word, the word without its elided
    article or possessive, then the words a hyphen or an apostrophe joins (each one a mention)."""
    end = start + len(word)
    yield [(start, end)]
    bare = _bare(start, end, word)
    if bare != (start, end):
        yield [bare]
    parts = [(start + m.start(), start + m.end()) for m in _PART.finditer(word)]
    if len(parts) > 1:
        yield parts


def span_key(text: str, start: int, end: int) -> str | None:
    """The key of a hidden span that is one word (in one of its forms), None for another span."""
    piece = text[start:end]
    if not (_WORD.fullmatch(piece) and any(c.isalpha() for c in piece)):
        return None
    bare = _bare(start, end, piece)
    return key_of(text[bare[0]:bare[1]])


def _words(text: str, spans: list, wanted) -> Iterable[tuple[int, int, str]]:
    """The readable mentions in a message (no character inside a span) of the keys `wanted`, with their
    key: a word, else its bare form, else the words it joins (see `_forms`)."""
    for match in _WORD.finditer(text):
        for form in _forms(match.start(), match.group()):
            found = []
            for start, end in form:
                if any(start < e and s < end for s, e, _ in spans):
                    continue
                piece = text[start:end]
                if any(c.isalpha() for c in piece):
                    key = key_of(piece)
                    if key in wanted:
                        found.append((start, end, key))
            if found:
                yield from found
                break


def _example(row, start: int, end: int, hidden: bool) -> dict:
    return {"id": row.id, "text": row.text, "start": start, "end": end, "hidden": hidden}


def find_cases(rows, surrogates: dict | None = None, decisions: dict | None = None, *,
               only: Iterable[str] | None = None) -> list[dict]:
    """The cases of the released rows (FinalRow, `undecided` ones left out), most messages first; each
    {"kind", "key", "tags", "hidden", "readable", "examples", "surrogate", "decision", "reviewer", "choices",
    "version", "mentions", "grounds", "outdated"} where `decision` is the stored one (None: still to
    decide, or decided `readable` on fewer hidden mentions than there are now: `outdated` then says
    what was decided), `mentions` the hidden mentions ([id, start, end]), `grounds` those the stored
    decision was taken on, and `version` names the case's state (its stored decision and its
    mentions). `only`: the cases of these keys only."""
    decisions = decisions or {}
    only = None if only is None else set(only)
    rows = [row for row in rows if row.route != "undecided"]
    hidden_at: dict[str, list] = defaultdict(list)  # key -> (row, start, end, tag)
    readable_at: dict[str, list] = defaultdict(list)  # key -> (row, start, end), for the keys looked for
    for row in rows:
        for start, end, tag in row.spans:
            key = span_key(row.text, start, end)
            if key is not None and (only is None or key in only):
                hidden_at[key].append((row, start, end, tag))
    surrogates = {entity: surrogate for entity, surrogate in (surrogates or {}).items()
                  if only is None or key_of(surrogate) in only}
    wanted = set(hidden_at) | {key_of(surrogate) for surrogate in surrogates.values()}
    for row in rows:  # only the words hidden somewhere, or a surrogate, are kept: memory stays small
        for start, end, key in _words(row.text, row.spans, wanted):
            readable_at[key].append((row, start, end))
    cases = []

    def case(kind: str, key: str, tags: Counter, hidden: list, readable: list, surrogate=None) -> dict:
        stored = decisions.get((kind, key)) or {}
        examples = [_example(r, s, e, True) for r, s, e, _ in hidden[:EXAMPLES]]
        examples += [_example(r, s, e, False) for r, s, e in readable[:EXAMPLES]]
        mentions = sorted([r.id, s, e] for r, s, e, _ in hidden)
        state = [stored.get("seq", 0), mentions, sorted([r.id, s, e] for r, s, e in readable)]
        version = hashlib.sha256(json.dumps(state, ensure_ascii=False).encode("utf-8", "surrogatepass")).hexdigest()
        decision, outdated = stored.get("decision"), None
        grounds = stored.get("grounds")
        if decision == "readable" and kind == "mixed" and grounds is not None:
            since = [m for m in mentions if m not in grounds]
            if since:  # a reviewer hid a mention after it was decided readable: decided again
                outdated = {"decision": decision, "reviewer": stored.get("reviewer"), "hidden_since": len(since)}
                decision = None
        return {"kind": kind, "key": key, "tags": dict(tags), "surrogate": surrogate,
                "hidden": len({r.id for r, *_ in hidden}), "readable": len({r.id for r, *_ in readable}),
                "examples": examples, "decision": decision, "reviewer": stored.get("reviewer") if decision else None,
                "choices": list(CHOICES[kind]), "version": version[:16], "mentions": mentions,
                "grounds": grounds, "outdated": outdated}

    for key, hidden in hidden_at.items():
        tags = Counter(tag for *_, tag in hidden)
        if key in readable_at:
            cases.append(case("mixed", key, tags, hidden, readable_at[key]))
        if len(tags) > 1:
            cases.append(case("tags", key, tags, hidden, []))
    for (tag, entity), surrogate in surrogates.items():
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
    entities to draw again ((tag, entity) of the surrogate cases decided `readable`). A `readable`
    decision shows only the hidden mentions it was taken on (its grounds), when it kept them."""
    hide: dict[str, str] = {}  # key -> tag to hide its readable mentions with
    show: dict[str, set | None] = {}  # key -> the hidden mentions shown ((id, start, end); None: all)
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
            grounds = c.get("grounds")
            show[key] = None if grounds is None else {tuple(m) for m in grounds}
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
            key = span_key(row.text, start, end)
            if key in show and (show[key] is None or (row.id, start, end) in show[key]):
                continue
            spans.append([start, end, retag.get(key, tag)])
        spans += [[start, end, retag.get(key, hide[key])] for start, end, key in _words(row.text, row.spans, hide)]
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
        if c.get("outdated"):
            o = c["outdated"]
            state += (f" (decided {o['decision']} by {o['reviewer']}, then {o['hidden_since']} more mention"
                      f"{'s' if o['hidden_since'] != 1 else ''} hidden)")
        out.append(f"  {c['kind']:<9} '{c['key']}': {text}; {state}")
    return out
