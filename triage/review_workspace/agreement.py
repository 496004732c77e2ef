"""Agreement between two reviewers who decided the same messages blind (double review).

- Labels (TA / NTA): the share of messages both labelled alike, and Cohen's kappa, which discounts
  the agreement expected by chance (scikit-learn's `cohen_kappa_score`). Kappa is None when it is
  undefined: fewer than two messages, or both reviewers gave one same label to every message.
- Hidden spans, as INCEpTION reports them: pairwise F1 = 2 x matches / (spans of the first +
  spans of the second), with two definitions of a match: *exact* (same start, same end, same tag)
  and *overlapping* (the two spans share at least one character and have the same tag; each span
  matches at most one). Also per tag, and per pair of reviewers for the labels.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Iterable

from triage.schema import NTA, TA

#: A gap between two actions of a reviewer longer than this (seconds) is a pause: not reviewing time.
PAUSE = 600.0


def kappa(first: list[str], second: list[str]) -> float | None:
    """Cohen's kappa of two label sequences, or None when it is undefined."""
    if len(first) < 2 or len(set(first) | set(second)) < 2:
        return None
    from sklearn.metrics import cohen_kappa_score

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        value = float(cohen_kappa_score(first, second, labels=[TA, NTA]))
    return None if math.isnan(value) else round(value, 4)


def _matches(first: list, second: list, overlapping: bool) -> int:
    """How many spans of `first` match one of `second` (each used once)."""
    used: set[int] = set()
    count = 0
    for start, end, tag in first:
        for index, (s, e, t) in enumerate(second):
            if index in used or t != tag:
                continue
            if (start < e and s < end) if overlapping else (start == s and end == e):
                used.add(index)
                count += 1
                break
    return count


def _f1(matches: int, first: int, second: int) -> float | None:
    return round(2 * matches / (first + second), 4) if first + second else None


def span_agreement(pairs: Iterable[tuple[list, list]]) -> dict:
    """Exact and overlapping span agreement of (first's spans, second's spans) pairs, overall and per tag."""
    total = {"first": 0, "second": 0, "exact": 0, "overlap": 0}
    by_tag: dict[str, dict] = {}
    for first, second in pairs:
        for tag in {span[2] for span in first} | {span[2] for span in second}:
            mine = [s for s in first if s[2] == tag]
            theirs = [s for s in second if s[2] == tag]
            counts = {"first": len(mine), "second": len(theirs), "exact": _matches(mine, theirs, False),
                      "overlap": _matches(mine, theirs, True)}
            entry = by_tag.setdefault(tag, {"first": 0, "second": 0, "exact": 0, "overlap": 0})
            for key, value in counts.items():
                entry[key] += value
                total[key] += value

    def finish(counts: dict) -> dict:
        return {**counts, "f1_exact": _f1(counts["exact"], counts["first"], counts["second"]),
                "f1_overlap": _f1(counts["overlap"], counts["first"], counts["second"])}

    return {**finish(total), "by_tag": {tag: finish(counts) for tag, counts in sorted(by_tag.items())}}


def agreement(pairs: list[tuple[str, dict, dict]]) -> dict:
    """Agreement over (text, first review, second review) triples; a review is {reviewer, label, spans}."""
    first = [a["label"] for _, a, _ in pairs]
    second = [b["label"] for _, _, b in pairs]
    same = sum(a == b for a, b in zip(first, second))
    by_pair: dict[str, list] = {}
    for _, a, b in pairs:
        by_pair.setdefault(" + ".join(sorted((a["reviewer"], b["reviewer"]))), []).append((a["label"], b["label"]))
    return {
        "messages": len(pairs),
        "labels": {"agree": same, "observed": round(same / len(pairs), 4) if pairs else None,
                   "kappa": kappa(first, second)},
        "spans": span_agreement((a["spans"], b["spans"]) for _, a, b in pairs),
        "pairs": {name: {"messages": len(labels), "agree": sum(x == y for x, y in labels),
                         "kappa": kappa([x for x, _ in labels], [y for _, y in labels])}
                  for name, labels in sorted(by_pair.items())},
    }


def _number(value) -> str:
    return "undefined" if value is None else f"{value:.2f}"


def agreement_lines(result: dict) -> list[str]:
    """The agreement in a few lines, as `triage review --report` prints it."""
    if not result.get("marked") and not result["messages"]:
        return ["double review: none (`triage review --double 0.1` marks a share for two reviewers)"]
    lines = [double_review_count(result)]
    if result["messages"]:
        labels, spans = result["labels"], result["spans"]
        lines.append(f"agreement: labels {labels['agree']:,}/{result['messages']:,} alike, Cohen's kappa "
                     f"{_number(labels['kappa'])}; spans F1 exact {_number(spans['f1_exact'])}, overlapping "
                     f"{_number(spans['f1_overlap'])} ({spans['first']:,} + {spans['second']:,} spans)")
        for tag, counts in spans["by_tag"].items():
            lines.append(f"  {tag}: F1 exact {_number(counts['f1_exact'])}, overlapping {_number(counts['f1_overlap'])} "
                         f"({counts['first']:,} + {counts['second']:,})")
    d = result.get("disagreements")
    if d:
        lines.append(f"disagreements: {d['resolved']:,} resolved by the lead, {d['unresolved']:,} unresolved")
    return lines


def double_review_count(result: dict) -> str:
    """How many messages two reviewers decided, against how many are marked for it: "N of M marked"
    only when every one of the N is among the M (a share lowered since, `--double 0`, says so)."""
    decided, marked = result["messages"], result.get("marked", 0)
    still = result.get("decided_marked", decided if decided <= marked else marked)
    if still == decided:
        return f"double review: {decided:,} of {marked:,} marked messages decided by two reviewers"
    now = f"{marked:,} message{'s' if marked != 1 else ''} marked now" if marked else "none marked now"
    return (f"double review: {decided:,} message{'s' if decided != 1 else ''} decided by two reviewers, "
            f"{still:,} of them still marked ({now}: the share marked for two reviewers was lowered since)")


def share_text(share: float) -> str:
    """A share as a percentage that never rounds a share above zero to 0% (0.4% stays 0.4%)."""
    percent = 100 * share
    if percent == 0 or percent >= 10 or percent == round(percent):
        return f"{percent:.0f}%"
    return f"{percent:.2g}%"


def reviewer_lines(figures: dict[str, dict]) -> list[str]:
    """Decisions and time per reviewer."""
    if not figures:
        return ["reviewers: none yet"]
    return ["reviewers: " + "; ".join(
        f"{name} {_count(f['decisions'], 'decision')}" + (f" ({_count(f['skips'], 'skip')})" if f["skips"] else "")
        + f", {_duration(f['seconds'])}" for name, f in figures.items())]


def _count(n: int, word: str) -> str:
    return f"{n:,} {word}{'s' if n != 1 else ''}"


def _duration(seconds: float) -> str:
    return f"{seconds:.0f} s" if seconds < 90 else f"{seconds / 60:.0f} min"


def published_names(deciding: list[str], *, named: bool = False) -> dict[str, str]:
    """The name each reviewer with at least one decision (`deciding`, in the order of their first)
    is published under: "reviewer 1", "reviewer 2"..., or with `named` the name they reviewed under
    (--reviewer). A reviewer with no decision is not published."""
    return {name: name if named else f"reviewer {n}" for n, name in enumerate(deciding, 1)}


def review_section(workspace, *, allow_disagreements: bool = False, reviewer_names: bool = False) -> dict:
    """The datasheet's `review` section: who reviewed (a pseudonym each unless `reviewer_names`;
    a reviewer with no decision left out), how many decisions, how long, and the agreement of the
    double review (with the disagreements the lead resolved or not, and the messages still
    awaiting their second blind reviewer)."""
    figures = workspace.reviewer_figures()
    names = published_names(workspace.deciding_reviewers(), named=reviewer_names)
    result = workspace.agreement()
    result["pairs"] = {" + ".join(sorted(names.get(n, n) for n in pair.split(" + "))): value
                       for pair, value in result.get("pairs", {}).items()}
    meta = workspace.meta()
    unresolved = result["disagreements"]["unresolved"]
    half = workspace.half_reviewed()
    return {
        "reviewers": [{"name": published, "decisions": figures[name]["decisions"], "skips": figures[name]["skips"],
                       "minutes": round(figures[name]["seconds"] / 60, 1)} for name, published in names.items()],
        "reviewer_names": "as they reviewed (--reviewer)" if reviewer_names else "pseudonyms (reviewer 1, 2...)",
        "time_rule": f"sum of the gaps between a reviewer's consecutive actions, a gap over {PAUSE / 60:.0f} min "
                     "being a pause (not counted)",
        "double_review_share": float(meta["double_share"]) if "double_share" in meta else 0.0,
        "agreement": result,
        "unresolved_disagreements_released": unresolved if allow_disagreements else 0,
        "awaiting_second_review": half,
        "awaiting_second_review_released": half if allow_disagreements else 0,
        "learning": learning_counts(workspace),
    }


def learning_counts(workspace) -> dict:
    """What the reviewers taught, by count: spellings learnt as names and as ordinary words (in force),
    and the names taught to `classify --workspace` (learnt or marked by a reviewer in a message)."""
    learnt = workspace.learnt(active_only=True)
    taught = workspace.taught()
    return {"names_learnt": sum(e["kind"] == "name" for e in learnt),
            "words_learnt": sum(e["kind"] == "word" for e in learnt),
            "names_taught": len(taught), "names_marked": sum(1 for e in taught if e["marked"])}


def review_markdown(section: dict | None) -> list[str]:
    """The datasheet's Review section in Markdown (nothing for an older datasheet without one)."""
    if not section:
        return []
    lines = ["", "## Review", ""]
    if section["reviewers"]:
        lines += ["| reviewer | decisions | time (min) |", "|---|---|---|",
                  *[f"| {r['name']} | {r['decisions']:,} | {r['minutes']:.1f} |" for r in section["reviewers"]],
                  "", f"Time: {section['time_rule']}.", ""]
    else:
        lines += ["No message was decided by a reviewer.", ""]
    a = section["agreement"]
    share, marked = section["double_review_share"], a.get("marked", 0)
    if a["messages"]:
        labels, spans = a["labels"], a["spans"]
        still = a.get("decided_marked", a["messages"] if a["messages"] <= marked else marked)
        both = f"{a['messages']:,} decided by both reviewers"
        if still == a["messages"] and share > 0:
            drawn = (f"{marked:,} message{'s' if marked != 1 else ''} marked ({share_text(share)} of the queue and "
                     f"of the audit sample, drawn with a seed), {both}, blind")
        else:  # the share was lowered after those decisions (--double 0): never "0% of the queue"
            drawn = (f"{both}, blind, marked for it when they were decided (the share marked is now "
                     f"{share_text(share)}, {marked:,} message{'s' if marked != 1 else ''}, {still:,} of them among "
                     "those decided)")
        lines.append(
            f"Double review: {drawn}. Labels (TA/NTA): "
            f"{labels['agree']:,} of {a['messages']:,} alike, Cohen's kappa {_number(labels['kappa'])}. Hidden spans: "
            f"pairwise F1 {_number(spans['f1_exact'])} on exact boundaries, {_number(spans['f1_overlap'])} on "
            f"overlapping ones (same tag; {spans['first']:,} and {spans['second']:,} spans).")
        if spans["by_tag"]:
            lines += ["", "| tag | spans (first + second) | F1 exact | F1 overlapping |", "|---|---|---|---|",
                      *[f"| {tag} | {c['first']:,} + {c['second']:,} | {_number(c['f1_exact'])} | "
                        f"{_number(c['f1_overlap'])} |" for tag, c in spans["by_tag"].items()]]
        d = a["disagreements"]
        lines += ["", f"Disagreements resolved by the lead reviewer: {d['resolved']:,}."]
        if section["unresolved_disagreements_released"]:
            lines.append(f"{section['unresolved_disagreements_released']:,} disagreements were left unresolved and "
                         "released as the more cautious decision (what either reviewer hid is hidden).")
    elif marked:
        lines.append(f"Double review: {marked:,} message{'s' if marked != 1 else ''} marked, none decided by both "
                     "reviewers (no agreement measured).")
    if section.get("awaiting_second_review_released"):
        n = section["awaiting_second_review_released"]
        lines.append(f"{n:,} message{'s' if n != 1 else ''} marked for double review had one blind decision, "
                     "the second reviewer's still awaited, and " + ("were" if n != 1 else "was")
                     + " released as the more cautious decision (what that reviewer or the machines hid is hidden).")
    elif not a["messages"] and not marked:
        lines.append("No double review: each message was decided by one reviewer (no agreement measured).")
    learning = section.get("learning")
    if learning:
        lines += ["", f"Learnt during the review: {_count(learning['names_learnt'], 'spelling')} learnt as a name, "
                  f"{_count(learning['words_learnt'], 'spelling')} as an ordinary word (never hidden); "
                  f"{_count(learning['names_taught'], 'name')} taught to the classification, hidden with their "
                  f"variants in every message ({learning['names_marked']:,} of them marked by a reviewer in a "
                  "message where the machines had not hidden them)."]
    return lines


def _count(n: int, what: str) -> str:
    return f"{n:,} {what}{'s' if n != 1 else ''}"
