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
from triage.review_workspace.codes import coded
from triage.surrogates import entity_key

KINDS = ("mixed", "surrogate", "tags")
CHOICES = {"mixed": ("hide", "readable", "homonyms"), "surrogate": ("hide", "readable"), "tags": ("same", "different")}
EXAMPLES = 3  # distinct example messages of each side (hidden, readable) per case
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
        raise coded(BadOption(f"kind must be one of {', '.join(KINDS)}, not {kind!r:.40}"), "case_kind_unknown",
                    kind=str(kind)[:40], kinds=", ".join(KINDS))
    if decision not in CHOICES[kind]:
        raise coded(BadOption(f"a {kind} case is decided {' or '.join(CHOICES[kind])}, not {decision!r:.40}"),
                    "case_choice_unknown", kind=kind, decision=str(decision)[:40], choices=" / ".join(CHOICES[kind]))


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


@lru_cache(maxsize=1 << 17)
def _word_forms(word: str) -> tuple:
    """The forms of a written word (see `_forms`), each a tuple of (start, end, key) offsets into the
    word, key None for a piece without a letter; kept per spelling, as words repeat across a corpus."""
    return tuple(tuple((s, e, key_of(word[s:e]) if any(c.isalpha() for c in word[s:e]) else None)
                       for s, e in form) for form in _forms(0, word))


def _words(text: str, spans: list, wanted) -> Iterable[tuple[int, int, str]]:
    """The readable mentions in a message (no character inside a span) of the keys `wanted`, with their
    key: a word, else its bare form, else the words it joins (see `_forms`)."""
    for match in _WORD.finditer(text):
        offset = match.start()
        for form in _word_forms(match.group()):
            found = []
            for s, e, key in form:
                if key is None or key not in wanted:
                    continue
                start, end = offset + s, offset + e
                if spans and any(start < e2 and s2 < end for s2, e2, _ in spans):
                    continue
                found.append((start, end, key))
            if found:
                yield from found
                break


def _example(row, start: int, end: int, hidden: bool) -> dict:
    return {"id": row.id, "text": row.text, "start": start, "end": end, "hidden": hidden}


def _distinct(found: list, limit: int) -> list:
    """At most `limit` of the mentions `found`, one per message and one per text: a message sent many
    times (the same text under several ids) is shown once."""
    seen_ids, seen_texts, out = set(), set(), []
    for mention in found:
        row = mention[0]
        text = " ".join(row.text.casefold().split())
        if row.id in seen_ids or text in seen_texts:
            continue
        seen_ids.add(row.id)
        seen_texts.add(text)
        out.append(mention)
        if len(out) == limit:
            break
    return out


def risk_of(hidden: int, readable: int, unreviewed: int) -> float:
    """How likely a case leaks someone, to rank the cases: the share of its messages where the spelling
    is hidden (how much it looks like a name) times the messages where it is readable, those no human
    read (released by the machines alone) counting whole and those a reviewer read counting half."""
    if not hidden or not readable:
        return 0.0
    return round(hidden / (hidden + readable) * (unreviewed + (readable - unreviewed) / 2), 2)


def rank_key(case: dict) -> tuple:
    """The order of the cases: undecided first, then the riskiest (`risk_of`), then the most messages
    where the spelling is readable, then where it is hidden, then kind and spelling."""
    return (case["decision"] is not None, -case["risk"], -case["readable"], -case["hidden"], case["kind"], case["key"])


class Mentions:
    """What `gather` finds: `hidden_at` (key -> [(row, start, end, tag)]), `readable_at` (key ->
    [(row, start, end)]) and the surrogates looked for; `parts` keeps each case's part that depends
    on them alone (built once, whatever the decisions)."""

    def __init__(self, hidden_at: dict, readable_at: dict, surrogates: dict):
        self.hidden_at, self.readable_at, self.surrogates = hidden_at, readable_at, surrogates
        self.parts: dict = {}


def gather(rows, surrogates: dict | None = None, *, only: Iterable[str] | None = None) -> Mentions:
    """The mentions the cases are made of (the costly part of `find_cases`, which depends on the
    released rows and the surrogates only, never on the decisions)."""
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
    return Mentions(hidden_at, readable_at, surrogates)


def find_cases(rows, surrogates: dict | None = None, decisions: dict | None = None, *,
               only: Iterable[str] | None = None) -> list[dict]:
    """The cases of the released rows (FinalRow, `undecided` ones left out), undecided first, the
    riskiest first (`rank_key`); each {"kind", "key", "tags", "hidden", "readable", "unreviewed", "risk",
    "examples", "surrogate", "decision", "reviewer", "choices", "version", "mentions", "grounds",
    "outdated"} where `decision` is the stored one (None: still to decide, or decided `readable` on
    fewer hidden mentions than there are now: `outdated` then says what was decided), `mentions` the
    hidden mentions ([id, start, end]), `grounds` those the stored decision was taken on, `unreviewed`
    the messages where it is readable that the machines released with no human reading them, and
    `version` names the case's state (its stored decision and its mentions). `examples` are a few
    distinct messages of each side. Keys starting with `_` are for this module (`public` drops them).
    `only`: the cases of these keys only."""
    return build(gather(rows, surrogates, only=only), decisions)


def _part(kind: str, key: str, tags: Counter, hidden: list, readable: list, surrogate) -> dict:
    """A case's part that depends on its mentions alone: counts, examples, mentions, and the digest of
    its mentions its version is made from."""
    mentions = sorted([r.id, s, e] for r, s, e, _ in hidden)
    state = [mentions, sorted([r.id, s, e] for r, s, e in readable)]
    hidden_ids = {r.id for r, *_ in hidden}
    readable_ids = {r.id for r, *_ in readable}
    unreviewed = len({r.id for r, *_ in readable if r.route == "machine"})
    examples = [_example(r, s, e, True) for r, s, e, _ in _distinct(hidden, EXAMPLES)]
    examples += [_example(r, s, e, False) for r, s, e in _distinct(readable, EXAMPLES)]
    return {"kind": kind, "key": key, "tags": dict(tags), "surrogate": surrogate,
            "hidden": len(hidden_ids), "readable": len(readable_ids), "unreviewed": unreviewed,
            "risk": risk_of(len(hidden_ids), len(readable_ids), unreviewed) if kind == "mixed" else 0.0,
            "examples": examples, "mentions": mentions, "_readable": sorted(readable_ids),
            "_readable_items": len(readable),
            "_state": hashlib.sha256(json.dumps(state, ensure_ascii=False).encode("utf-8", "surrogatepass")).hexdigest()}


def build(gathered: Mentions, decisions: dict | None = None, *, only: Iterable[str] | None = None) -> list[dict]:
    """The cases of `gather`'s mentions with the stored `decisions` (see `find_cases`)."""
    hidden_at, readable_at, surrogates = gathered.hidden_at, gathered.readable_at, gathered.surrogates
    decisions = decisions or {}
    only = None if only is None else set(only)
    cases = []

    def case(kind: str, key: str, tags: Counter, hidden: list, readable: list, surrogate=None) -> dict:
        name = (kind, key, surrogate["entity"] if surrogate else None)
        part = gathered.parts.get(name)
        if part is None:
            part = gathered.parts[name] = _part(kind, key, tags, hidden, readable, surrogate)
        stored = decisions.get((kind, key)) or {}
        version = hashlib.sha256(f"{stored.get('seq', 0)}:{part['_state']}".encode()).hexdigest()
        decision, outdated = stored.get("decision"), None
        grounds = stored.get("grounds")
        if decision == "readable" and kind == "mixed" and grounds is not None:
            kept = {tuple(m) for m in grounds}
            since = [m for m in part["mentions"] if tuple(m) not in kept]
            if since:  # a reviewer hid a mention after it was decided readable: decided again
                outdated = {"decision": decision, "reviewer": stored.get("reviewer"), "hidden_since": len(since)}
                decision = None
        return {**part, "decision": decision, "reviewer": stored.get("reviewer") if decision else None,
                "choices": list(CHOICES[kind]), "version": version[:16], "grounds": grounds, "outdated": outdated}

    for key, hidden in hidden_at.items():
        if only is not None and key not in only:
            continue
        tags = Counter(tag for *_, tag in hidden)
        if key in readable_at:
            cases.append(case("mixed", key, tags, hidden, readable_at[key]))
        if len(tags) > 1:
            cases.append(case("tags", key, tags, hidden, []))
    for (tag, entity), surrogate in surrogates.items():
        key = key_of(surrogate)
        if key in readable_at and (only is None or key in only):
            cases.append(case("surrogate", key, Counter({tag: 1}), [], readable_at[key],
                              surrogate={"tag": tag, "entity": entity, "surrogate": surrogate}))
    cases.sort(key=rank_key)
    return cases


def public(case: dict, *, mentions: bool = True) -> dict:
    """A case as the API and the page get it: without this module's own keys (and, `mentions` False,
    without its lists of mentions, which a page of cases does not show)."""
    out = {k: v for k, v in case.items() if not k.startswith("_")}
    if not mentions:
        out.pop("mentions")
        out.pop("grounds")
    return out


STATUSES = ("undecided", "decided")


def select(cases: list[dict], *, q: str | None = None, tag: str | None = None, status: str | None = None,
           kind: str | None = None) -> list[dict]:
    """The cases the filters find, in the cases' order: `q` a piece of the spelling (any case or accents,
    letter repetitions folded), `tag` one of its tags, `status` undecided or decided, `kind` mixed,
    surrogate or tags."""
    if status is not None and status not in STATUSES:
        raise coded(BadOption(f"status must be undecided or decided, not {status!r:.40}"), "case_status_unknown",
                    status=str(status)[:40])
    if kind is not None and kind not in KINDS:
        raise coded(BadOption(f"kind must be one of {', '.join(KINDS)}, not {kind!r:.40}"), "case_kind_unknown",
                    kind=str(kind)[:40], kinds=", ".join(KINDS))
    if tag is not None and tag not in _TAG_ORDER:
        raise coded(BadOption(f"tag must be one of {', '.join(_TAG_ORDER)}, not {tag!r:.40}"), "case_tag_unknown",
                    tag=str(tag)[:40], tags=", ".join(_TAG_ORDER))
    needles = set()
    if q is not None and q.strip():
        text = " ".join(q.split()).casefold()
        needles = {text} | ({key_of(text)} if any(c.isalpha() for c in text) else set())
    out = []
    for c in cases:
        if status is not None and (c["decision"] is None) != (status == "undecided"):
            continue
        if kind is not None and c["kind"] != kind:
            continue
        if tag is not None and tag not in c["tags"]:
            continue
        if needles and not any(n in c["key"] for n in needles):
            continue
        out.append(c)
    return out


BULK = ("hide", "readable")


def bulk_preview(cases: list[dict], decision: str) -> dict:
    """What deciding every case of `cases` `decision` (hide or readable) changes, before anything is
    stored: {decision, selected, cases (to decide so), unchanged (decided so already), other (cases
    decided otherwise: two tags), messages (that change in the release), items (hidden by `hide`),
    readable, readable_messages, readable_tags (hidden items a `readable` decision makes readable),
    redrawn (surrogates drawn again), examples (spellings), selection ([kind, key] of `cases`), digest}.
    `digest` names the decision and every selected case at its version: a bulk decision sent with it
    is refused when any of them changed since."""
    if decision not in BULK:
        raise coded(BadOption(f"a decision for many cases is hide or readable, not {decision!r:.40}"),
                    "bulk_decision_unknown", decision=str(decision)[:40])
    applicable = [c for c in cases if decision in c["choices"]]
    targets = [c for c in applicable if c["decision"] != decision]
    messages: set = set()
    items = readable = redrawn = 0
    readable_messages: set = set()
    readable_tags: Counter = Counter()
    for c in targets:
        if decision == "hide":
            messages.update(c["_readable"])
            items += c["_readable_items"]
        elif c["kind"] == "mixed":
            ids = {m[0] for m in c["mentions"]}
            messages.update(ids)
            readable_messages.update(ids)
            readable += len(c["mentions"])
            readable_tags.update(c["tags"])
        else:
            redrawn += 1
    state = [decision, [[c["kind"], c["key"], c["version"]] for c in cases]]
    digest = hashlib.sha256(json.dumps(state, ensure_ascii=False).encode("utf-8", "surrogatepass")).hexdigest()[:16]
    return {"decision": decision, "selected": len(cases), "cases": len(targets),
            "unchanged": len(applicable) - len(targets), "other": len(cases) - len(applicable),
            "messages": len(messages), "items": items, "readable": readable,
            "readable_messages": len(readable_messages), "readable_tags": dict(sorted(readable_tags.items())),
            "redrawn": redrawn, "examples": [c["key"] for c in targets[:8]],
            "selection": [[c["kind"], c["key"]] for c in cases], "digest": digest}


def preview_lines(preview: dict) -> list[str]:
    """A bulk decision's preview as the command line prints it."""
    n = preview["cases"]
    what = "hidden everywhere" if preview["decision"] == "hide" else "shown everywhere"
    out = [f"{n:,} case{'s' if n != 1 else ''} to be {what}: {preview['messages']:,} message"
           f"{'s' if preview['messages'] != 1 else ''} change in the release"]
    if preview["decision"] == "hide":
        out[0] += f" ({preview['items']:,} readable mention{'s' if preview['items'] != 1 else ''} hidden)"
    else:
        tags = ", ".join(f"{t} {k:,}" for t, k in preview["readable_tags"].items())
        out.append(f"{preview['readable']:,} hidden item{'s become' if preview['readable'] != 1 else ' becomes'} readable in "
                   f"{preview['readable_messages']:,} message{'s' if preview['readable_messages'] != 1 else ''}"
                   + (f" ({tags})" if tags else ""))
        if preview["redrawn"]:
            out.append(f"{preview['redrawn']:,} surrogate{'s' if preview['redrawn'] != 1 else ''} of an earlier "
                       "release drawn again")
    if preview["unchanged"]:
        out.append(f"{preview['unchanged']:,} already decided so")
    if preview["other"]:
        out.append(f"{preview['other']:,} spelling{'s' if preview['other'] != 1 else ''} with two tags left as they "
                   "are (decided same or different)")
    if preview["examples"]:
        more = n - len(preview["examples"])
        out.append("for example: " + ", ".join(f"'{k}'" for k in preview["examples"]) + (f" and {more:,} more" if more > 0 else ""))
    return out


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
           "(decide them in the page, with --decide-consistency or --consistency-all, or release with --inconsistent-ok)"]
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
        if c["kind"] == "mixed" and c.get("unreviewed"):
            text += f" ({c['unreviewed']:,} released with no human reading {'them' if c['unreviewed'] != 1 else 'it'})"
        out.append(f"  {c['kind']:<9} '{c['key']}': {text}; {state}")
    return out
