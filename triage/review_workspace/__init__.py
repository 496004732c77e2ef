"""The review workspace: where a human decides what the machines could not (triage review).

- `workspace`: `Workspace`, the SQLite store of the list, the decisions, their audit log and the
  learnt words, made of one module per job in `store/` (CONTRIBUTING.md maps them);
- `agreement` and `consistency`: the double review's agreement, and the consistency cases;
- `server` and `static/`: the page in the browser and its JSON API (docs/review.md).

The functions below are what the command line calls.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path

from triage.errors import BadInput, BadOption
from triage.io import outputs
from triage.io.messages import Records, source_name
from triage.io.writing import table_output
from triage.review_workspace.store.loading import Staged
from triage.review_workspace.workspace import (
    DEFAULT_AUDIT,
    FinalRow,
    Item,
    NeedsConfirmation,
    SyncSummary,
    Workspace,
    default_path,
    default_reviewer,
)

__all__ = [
    "DEFAULT_AUDIT", "FinalRow", "Item", "NeedsConfirmation", "SyncSummary", "Workspace", "apply_workspace",
    "default_path", "default_reviewer", "is_workspace", "loading", "open_synced", "report_lines", "check_workspace_path",
    "review_lines", "serve_review", "invite_lines",
]

_SQLITE_MAGIC = b"SQLite format 3\x00"


def is_workspace(path: str | os.PathLike[str]) -> bool:
    """Whether a file is a SQLite file (the workspace format), by its first bytes."""
    try:
        with open(path, "rb") as handle:
            return handle.read(16) == _SQLITE_MAGIC
    except OSError:
        return False


def check_workspace_path(path: str | os.PathLike[str], inputs=()) -> Path:
    """A workspace path a command may create or reuse: never one of its inputs, never a file that
    is not a workspace (checked before any work starts)."""
    path = Path(path)
    outputs.refuse_inputs(path, inputs)
    if path.is_symlink():
        raise BadInput(f"{path} is a symbolic link; give the workspace file itself")
    if path.exists() and not (path.is_file() and (path.stat().st_size == 0 or is_workspace(path))):
        raise BadInput(f"{path} exists and is not a review workspace; choose another --workspace")
    return path


def _remove_made(path: Path) -> None:
    """Remove a workspace made for a load that failed, with its side files."""
    for leftover in (path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
        try:
            leftover.unlink()
        except FileNotFoundError:
            pass


@contextlib.contextmanager
def loading(workspace: str | os.PathLike[str], display: str, inputs=()) -> Iterator[tuple[Workspace, Staged]]:
    """A workspace opened (made if new) with an empty staging for the rows of a classification
    (`classify --workspace`: Workspace.staging, then Workspace.load), closed at the end. If the
    work fails or is interrupted, the workspace is as it was: one made for it is removed."""
    path = check_workspace_path(workspace, inputs)
    fresh = not path.exists()
    opened = Workspace.open(path, create=True)
    try:
        yield opened, opened.staging(display)
    except BaseException:
        opened.close()
        if fresh:
            _remove_made(path)
        raise
    opened.close()


def open_synced(classified: str | os.PathLike[str], workspace: str | os.PathLike[str] | None = None, *,
                audit: int = DEFAULT_AUDIT, seed: int = 0, input_path=None, id_column: str | None = None,
                text_column: str | None = None, model_file=None, double: float | None = None) -> tuple[Workspace, SyncSummary]:
    """The workspace of a classified file (created beside it by default), brought up to date with it.
    A sync that fails or is interrupted leaves the workspace as it was: one made for it is removed."""
    path = check_workspace_path(workspace or default_path(classified), [classified])
    fresh = not path.exists()
    opened = Workspace.open(path, create=True)
    try:
        return opened, opened.sync(classified, audit=audit, seed=seed, input_path=input_path,
                                   id_column=id_column, text_column=text_column, model_file=model_file,
                                   double=double)
    except BaseException:
        opened.close()
        if fresh:
            _remove_made(path)
        raise


def open_existing(classified: str | os.PathLike[str], workspace: str | os.PathLike[str] | None = None) -> Workspace:
    path = Path(workspace or default_path(classified))
    if not path.exists():
        raise BadInput(f"no review workspace {path} yet; run `triage review {classified}` first")
    return Workspace.open(path)


def sync_lines(path: Path, summary: SyncSummary, double: int = 0) -> list[str]:
    kept = f", {summary.kept:,} decided earlier" if summary.kept else ""
    stale = f", {summary.stale:,} changed since decided" if summary.stale else ""
    twice = f", {double:,} for two reviewers (double review)" if double else ""
    return [
        f"review workspace: {path}: {summary.queued:,} queued + {summary.audit:,} audit{kept}{stale}{twice}; "
        f"{summary.pending:,} still to look at"
    ]


def report_lines(workspace: Workspace) -> list[str]:
    """Progress and the audit estimate, as `triage review --report` prints them."""
    p = workspace.progress()
    audit = f"audit sample: {p['decided_audit']:,} / {p['audit']:,} decided" if p["audit"] else "audit sample: none"
    lines = [
        f"list: {p['total']:,} messages ({p['queue']:,} queued, {p['audit']:,} audit) of {p['messages']:,}",
        f"queue: {p['decided_queue']:,} / {p['queue']:,} decided; {audit}",
        f"decided {p['decided']:,}, still to look at {p['left']:,}: {p['pending']:,} pending, "
        f"{p['skipped']:,} skipped (they come back after the pending ones), {p['stale']:,} changed since decided",
    ]
    if p["seconds_per_message"]:
        lines.append(f"time: {p['seconds_per_message']} s per message, about {p['seconds_left'] / 60:.0f} min left")
    a = workspace.audit_estimate()
    if a["audited"]:
        lines.append(
            f"audit: {a['leaking']:,} of {a['audited']:,} machine-released messages reviewed still show something "
            f"identifying: {100 * a['share']:.1f}% (95% CI {100 * a['low']:.1f}%-{100 * a['high']:.1f}%, exact "
            f"binomial) of the {a['machine_released']:,} messages the machines released"
        )
    else:
        lines.append(f"audit: none of the {a['sample']:,} audit messages reviewed yet, so no estimate")
    from triage.review_workspace.agreement import agreement_lines, reviewer_lines

    lines.extend(reviewer_lines(workspace.reviewer_figures()))
    lines.extend(agreement_lines(workspace.agreement()))
    links = workspace.invites()
    if links:
        def when(at: str) -> str:
            return at[:16].replace("T", " ") + " UTC"

        lines.append("links: " + ", ".join(
            f"{e['reviewer']} (revoked {when(e['revoked_at'])})" if e["revoked_at"] else f"{e['reviewer']} (since {when(e['at'])})"
            for e in links))
    return lines


def review_lines(classified, workspace=None, *, reviewer: str | None = None, lexicon_dir=None, report: bool = False,
                 learnt: bool = False, unlearn: int | None = None) -> list[str]:
    """`triage review --report / --learnt / --unlearn ID`: undo a learnt entry, list the learnt
    words, print progress and the audit estimate; the lines to print."""
    lines: list[str] = []
    with open_existing(classified, workspace) as opened:
        if unlearn is not None:
            entry = opened.unlearn(unlearn, reviewer=reviewer or default_reviewer(), lexicon_dir=lexicon_dir)
            lines.append(unlearn_line(entry))
        if learnt:
            entries = opened.learnt()
            if not entries:
                lines.append("nothing learnt yet")
            for e in entries:
                state = "" if e["active"] else f"  (undone by {e['undone_by']})"
                what = f"name {e['tag']}" if e["kind"] == "name" else "ordinary word"
                lines.append(f"#{e['id']}  {e['spelling']}  {what}  {e['scope']}  {e['reviewer']}  {e['at']}{state}")
            lines.extend(taught_lines(opened.taught()))
        if report:
            lines.extend(report_lines(opened))
    return lines


def taught_lines(taught: list[dict]) -> list[str]:
    """The names `classify --workspace` will hide in every message of the corpus, with what taught
    them and in how many messages they stand: a preview of how far each spreads."""
    if not taught:
        return ["names taught to the next `triage classify --workspace`: none (a reviewer teaches a name by "
                "hiding it where the machines did not, or by learning it as a name)"]
    spread = sum(entry.get("messages", 0) for entry in taught)
    lines = [f"names taught to the next `triage classify --workspace` ({len(taught):,}), hidden with their variants in "
             f"every message that holds them (about {spread:,} messages):"]
    for entry in taught:
        how = ", ".join(filter(None, ["learnt as a name" if entry["learnt"] else "",
                                       f"marked in {entry['marked']:,} message{'s' if entry['marked'] != 1 else ''}"
                                       if entry["marked"] else ""]))
        count = entry.get("messages", 0)
        lines.append(f"  {entry['spelling']}  {entry['tag']}  in {count:,} message{'s' if count != 1 else ''}  ({how})")
    return lines


class NotConfirmed(BadOption):
    """A consistency decision that needs `--yes` (`yes=True`): `lines` is its preview, to print first."""

    def __init__(self, message: str, lines: list[str]):
        super().__init__(message)
        self.lines = lines


def consistency_list_lines(classified, workspace=None, *, q: str | None = None, tag: str | None = None,
                           status: str | None = None, kind: str | None = None) -> list[str]:
    """`triage review --consistency`: the consistency cases the filters find (all without them), in
    the page's order: undecided first, the riskiest first."""
    from triage.review_workspace.consistency import lines, select

    with open_existing(classified, workspace) as opened:
        cases = opened.consistency()
    if q is None and tag is None and status is None and kind is None:
        return lines(cases)
    found = select(cases, q=q, tag=tag, status=status, kind=kind)
    head = f"consistency: {len(found):,} of {len(cases):,} cases found by the filters"
    return [head, *lines(found)[1:]] if found else [head]


def decide_consistency_lines(classified, workspace=None, *, decision: str, spelling: str, kind: str | None = None,
                             reviewer: str | None = None, yes: bool = False) -> list[str]:
    """`triage review --decide-consistency DECISION --spelling WORD`: one case decided for the whole
    corpus. Showing a spelling where it is hidden (`readable` on a mixed case) says how many hidden
    items become readable and is done only with `yes`."""
    from triage.review_workspace.consistency import CHOICES, KINDS, key_of

    if kind is not None and kind not in KINDS:
        raise BadInput(f"--case-kind must be one of {', '.join(KINDS)}, not {kind!r:.40}")
    if decision not in {d for choices in CHOICES.values() for d in choices}:
        raise BadInput("--decide-consistency must be hide, readable, homonyms, same or different, "
                       f"not {decision!r:.40}")
    key = key_of(" ".join(spelling.split())) if spelling.strip() else ""
    if not key:
        raise BadInput("--spelling needs a word")
    with open_existing(classified, workspace) as opened:
        cases = [c for c in opened.consistency() if c["key"] == key]
        fitting = [c for c in cases if decision in c["choices"] and (kind is None or c["kind"] == kind)]
        if not cases:
            raise BadInput(f"no consistency case '{key}' (list them with --consistency)")
        if not fitting:
            kinds = ", ".join(f"{c['kind']} ({' / '.join(c['choices'])})" for c in cases)
            raise BadInput(f"'{key}' is no case decided {decision}{f' of kind {kind}' if kind else ''}: its cases are {kinds}")
        if len(fitting) > 1:
            raise BadInput(f"'{key}' is a case of {' and of '.join(c['kind'] for c in fitting)}: choose one with --case-kind")
        case = fitting[0]
        lines: list[str] = []
        if decision == "readable" and case["kind"] == "mixed" and case["mentions"]:
            n, m = len(case["mentions"]), case["hidden"]
            tags = ", ".join(f"{t} {k:,}" for t, k in sorted(case["tags"].items()))
            lines.append(f"'{key}' shown everywhere: {n:,} hidden item{'s become' if n != 1 else ' becomes'} readable in "
                         f"{m:,} message{'s' if m != 1 else ''} ({tags})")
            if not yes:
                raise NotConfirmed("nothing was decided: add --yes to show it everywhere", lines)
        elif decision == "hide" and case["readable"]:
            lines.append(f"'{key}' hidden everywhere: in {case['readable']:,} more message{'s' if case['readable'] != 1 else ''}")
        stored = opened.decide_consistency(case["kind"], key, decision, reviewer=reviewer or default_reviewer(),
                                           version=case["version"])
    return lines + [f"decided: {case['kind']} '{key}' {stored['decision']} by {stored['reviewer']}"]


def consistency_bulk_lines(classified, workspace=None, *, decision: str, q: str | None = None,
                           tag: str | None = None, status: str | None = "undecided", kind: str | None = None,
                           reviewer: str | None = None, yes: bool = False) -> list[str]:
    """`triage review --consistency-all hide|readable`: every case the filters find decided at once,
    in one transaction. The preview is printed first; without `yes` nothing is decided."""
    from triage.review_workspace.consistency import BULK, preview_lines, select

    if decision not in BULK:
        raise BadInput(f"--consistency-all must be hide or readable, not {decision!r:.40}")
    with open_existing(classified, workspace) as opened:
        found = select(opened.consistency(), q=q, tag=tag, status=status, kind=kind)
        if not found:
            raise BadInput("no consistency case found by the filters: nothing to decide")
        selection = [[c["kind"], c["key"]] for c in found]
        preview = opened.consistency_bulk_preview(decision, selection)
        lines = preview_lines(preview)
        if not preview["cases"]:
            return lines + ["nothing to decide"]
        if not yes:
            raise NotConfirmed(f"nothing was decided: add --yes to decide these {preview['cases']:,} cases", lines)
        done = opened.decide_consistency_bulk(decision, selection, reviewer=reviewer or default_reviewer(),
                                              digest=preview["digest"])
    return lines + [f"decided: {done['decided']:,} case{'s' if done['decided'] != 1 else ''} {decision} by {done['reviewer']}"]


def undo_consistency_lines(classified, workspace=None, *, reviewer: str | None = None, yes: bool = False) -> list[str]:
    """`triage review --undo-consistency`: the reviewer's last consistency decision undone (one case, or
    every case of a bulk decision), each case back to the decision it had before. An undo that makes
    hidden items readable says how many and is done only with `yes`."""
    from triage.review_workspace.workspace import NeedsConfirmation

    reviewer = reviewer or default_reviewer()
    with open_existing(classified, workspace) as opened:
        recent = opened.consistency_recent(reviewer=reviewer, limit=1)
        if not recent:
            return [f"nothing to undo: {reviewer} has no consistency decision that still applies"]
        entry = recent[0]
        lines = []
        digest = None
        try:
            done = opened.undo_consistency(reviewer=reviewer, seq=entry["seq"])
        except NeedsConfirmation as asked:
            preview = asked.preview
            n, m = preview["readable"], preview["readable_messages"]
            tags = ", ".join(f"{t} {k:,}" for t, k in preview["readable_tags"].items())
            lines.append(f"undo: {n:,} hidden item{'s become' if n != 1 else ' becomes'} readable in {m:,} "
                         f"message{'s' if m != 1 else ''}" + (f" ({tags})" if tags else ""))
            if not yes:
                raise NotConfirmed("nothing was undone: add --yes to undo it", lines) from None
            digest = preview["digest"]
            done = opened.undo_consistency(reviewer=reviewer, seq=entry["seq"], digest=digest)
    for case in done["cases"][:20]:
        back = f"decided {case['restored']}" if case["restored"] else "undecided"
        lines.append(f"undone: {case['kind']} '{case['key']}' {case['decision']}: {back} again")
    if done["undone"] > 20:
        lines.append(f"... and {done['undone'] - 20:,} more")
    if done["undone"] > 1:
        lines.append(f"undone: {done['undone']:,} cases of the decision for many cases")
    return lines


def check_consistency_options(listing: bool, decide: str | None, spelling: str | None, bulk: str | None,
                               yes: bool, filters: tuple, undo: bool = False) -> None:
    """The consistency options of `review` that go together, or a one-line error (`filters`: search,
    tag, status, kind)."""
    if undo and (decide is not None or bulk is not None or listing):
        raise BadOption("--undo-consistency undoes your last consistency decision: give it alone, without "
                        "--consistency, --decide-consistency or --consistency-all")
    if undo and any(f is not None for f in filters):
        raise BadOption("--undo-consistency takes no --case-* filter: it undoes your last consistency decision")
    if undo:
        return
    if decide is not None and bulk is not None:
        raise BadOption("--decide-consistency decides one case and --consistency-all many: give one of them")
    if decide is not None and not spelling:
        raise BadOption("--decide-consistency needs --spelling WORD (the case's spelling, see --consistency)")
    if spelling is not None and decide is None:
        raise BadOption("--spelling goes with --decide-consistency")
    if yes and decide is None and bulk is None:
        raise BadOption("--yes confirms --consistency-all, --decide-consistency or --undo-consistency; give one of them")
    if decide is not None and any(f is not None for f in filters[:3]):
        raise BadOption("--case-search, --case-tag and --case-status go with --consistency or --consistency-all")
    if any(f is not None for f in filters) and not (listing or decide is not None or bulk is not None):
        raise BadOption("the --case-* filters go with --consistency or --consistency-all")


def consistency_decision_lines(classified, workspace=None, *, decide: str | None, spelling: str | None,
                               bulk: str | None, q: str | None = None, tag: str | None = None,
                               status: str | None = None, kind: str | None = None, reviewer: str | None = None,
                               yes: bool = False) -> list[str]:
    """`--decide-consistency DECISION --spelling WORD` or `--consistency-all DECISION` with its filters."""
    if decide is not None:
        return decide_consistency_lines(classified, workspace, decision=decide, spelling=spelling or "", kind=kind,
                                        reviewer=reviewer, yes=yes)
    return consistency_bulk_lines(classified, workspace, decision=bulk, q=q, tag=tag, status=status or "undecided",
                                  kind=kind, reviewer=reviewer, yes=yes)


def unlearn_line(entry: dict) -> str:
    """What `--unlearn` did, and where."""
    line = f"undone: #{entry['id']} '{entry['spelling']}' ({entry['kind']}, {entry['scope']})"
    if entry["scope"] != "user":
        return line + ": no longer applied to this corpus"
    if entry.get("lexicon_had"):
        return line + f": removed from the user lexicon in {entry['removed_from']}"
    return line + f": the user lexicon in {entry['removed_from']} no longer held it (nothing to remove there)"


def serve_review(classified, workspace=None, *, port: int = 0, no_browser: bool = False, reviewer: str | None = None,
                 audit: int = DEFAULT_AUDIT, seed: int = 0, lexicon_dir=None, announce, say,
                 double: float | None = None, lead: bool = False, host: str = "127.0.0.1", certificate=None,
                 key=None) -> None:
    """`triage review`: the workspace brought up to date, then the page served on `host`
    (127.0.0.1 by default; over TLS with `certificate` and `key`) until the process is
    interrupted. `announce(address)` is called once the server listens (the first line of output:
    scripts read the address from it); `say(line)` gets the rest. `reviewer` names whoever opens
    the printed address; colleagues open their own links (invite_lines) on the same server.
    `double` marks a share for double review, `lead` lets the printed address resolve disagreements."""
    from triage.review_workspace.server import (
        Settings,
        check_host,
        check_tls,
        is_network,
        links_line,
        network_warning,
        serve,
    )

    host = check_host(host)
    tls = check_tls(certificate, key)
    opened, summary = open_synced(classified, workspace, audit=audit, seed=seed, double=double)

    started = []

    def listening(address: str) -> None:
        started.append(address)
        announce(address)
        for line in sync_lines(opened.path, summary, len(opened.double_ids())):
            say(line)
        links = [entry["reviewer"] for entry in opened.invites() if entry["revoked_at"] is None]
        if links:
            say(f"links: {', '.join(links)} (their own links open this page; `--revoke NAME` withdraws one)")
        if is_network(host):
            say(network_warning(host, tls is not None))
        where = links_line(Settings(token="", port=0, reviewer="", host=host))
        if where:
            say(where)

    reviewer = reviewer or default_reviewer()
    with opened:
        links = {entry["reviewer"] for entry in opened.invites() if entry["revoked_at"] is None}
        if " ".join(reviewer.split()) in links:
            raise BadInput(f"{reviewer} holds a link to this workspace: start the server under another --reviewer name, "
                           f"or `--revoke {reviewer}` first (two people must not share a name in the log)")
        try:
            serve(opened, port=port, reviewer=reviewer, lexicon_dir=lexicon_dir,
                  open_browser=not no_browser, announce=listening, lead=lead, host=host, tls=tls)
        finally:  # Ctrl-C or kill: the server has stopped and every decision is stored
            if started:
                say("review: stopped; " + report_lines(opened)[1])


def invite_lines(classified, workspace=None, *, invite=(), revoke=(), host: str = "127.0.0.1", port: int = 0,
                 certificate=None, key=None) -> list[str]:
    """`triage review --invite NAME / --revoke NAME`: a personal link for each reviewer invited (a
    new one replaces theirs), naming the server `triage review --host --port` will serve; each
    revoked link refused from now on. The lines to print (a link is shown once: the workspace
    keeps only its SHA-256)."""
    from triage.errors import BadOption
    from triage.review_workspace.server import Settings, check_host, check_tls

    host = check_host(host)
    tls = check_tls(certificate, key)
    if invite and not port:
        raise BadOption("--invite needs --port: a link names the port the server listens on (start it with the "
                        "same --host and --port)")
    lines: list[str] = []
    with open_existing(classified, workspace) as opened:
        for name in revoke:
            done = opened.revoke(name)
            lines.append(f"revoked: {' '.join(name.split())}'s link no longer opens the page" if done
                         else f"revoke: {' '.join(name.split())} holds no link in force (nothing changed)")
        settings = Settings(token="", port=port, reviewer="", host=host, tls=tls is not None)
        for name in invite:
            token = opened.invite(name)
            lines.append(f"invite: {' '.join(name.split())}: {settings.link(token)}")
    if invite and settings.every_address and settings.network is None:
        lines.append("invite: this machine has no network address: the links name 127.0.0.1 and reach this "
                     "computer only (invite with --host ADDRESS, an address colleagues reach)")
    return lines


def apply_workspace(workspace_path: str | os.PathLike[str], classified: str | os.PathLike[str] | Records,
                    output: str | os.PathLike[str] | None, *, force: bool = False,
                    collected: list | None = None) -> dict:
    """The working copy (triage queue apply) from a workspace's decisions: every classified row
    plus `final` and `final_text`, like applying a filled queue file. With no `output`, the
    columns and the rows are appended to `collected` (the Python API)."""
    from triage import lexicons as lexicon_module
    from triage.queue.files import FINAL_COLUMNS, _open_classified
    from triage.seekhide import SeekAndHide

    seeker = SeekAndHide(lexicon_module.default())
    with Workspace.open(workspace_path) as opened:
        finals = {row.id: row for row in opened.final()}
    table = _open_classified(classified)
    counts: dict[str, int] = {}
    columns = [c for c in table.columns if c not in FINAL_COLUMNS] + list(FINAL_COLUMNS)
    with table_output(output, columns, force=force, protect=[workspace_path, classified],
                         extrasaction="ignore") as writer:
        for message in table:
            row = finals.get(message.id)
            if row is None or row.text != message.text:
                raise BadInput(f"{source_name(classified)}: line {message.line}: message {message.id!r} is not in the "
                                    f"workspace as it is here; run `triage review {classified}` to bring it up to date")
            final = row.label or "EXPERT"
            counts[final] = counts.get(final, 0) + 1
            writer.write({**message.fields, "final": final,
                          "final_text": seeker.hide(row.text, [tuple(s) for s in row.spans])})
    if collected is not None and output is None:
        collected.extend([columns, writer.rows])
    return counts
