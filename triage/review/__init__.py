"""The review workspace: where a human decides what the machines could not (triage review).

- `workspace`: the SQLite store of the list, the decisions, their audit log and the learnt words;
- `server` and `static/`: the page in the browser and its JSON API (docs/review.md).

The functions below are what the command line calls.
"""

from __future__ import annotations

import os
from pathlib import Path

from triage import io, outputs
from triage.review.workspace import (
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
    "default_path", "default_reviewer", "is_workspace", "open_synced", "report_lines", "check_workspace_path",
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
        raise io.InputError(f"{path} is a symbolic link; give the workspace file itself")
    if path.exists() and not (path.is_file() and (path.stat().st_size == 0 or is_workspace(path))):
        raise io.InputError(f"{path} exists and is not a review workspace; choose another --workspace")
    return path


def open_synced(classified: str | os.PathLike[str], workspace: str | os.PathLike[str] | None = None, *,
                audit: int = DEFAULT_AUDIT, seed: int = 0, input_path=None) -> tuple[Workspace, SyncSummary]:
    """The workspace of a classified file (created beside it by default), brought up to date with it."""
    path = check_workspace_path(workspace or default_path(classified), [classified])
    opened = Workspace.open(path, create=True)
    try:
        return opened, opened.sync(classified, audit=audit, seed=seed, input_path=input_path)
    except BaseException:
        opened.close()
        raise


def open_existing(classified: str | os.PathLike[str], workspace: str | os.PathLike[str] | None = None) -> Workspace:
    path = Path(workspace or default_path(classified))
    if not path.exists():
        raise io.InputError(f"no review workspace {path} yet; run `triage review {classified}` first")
    return Workspace.open(path)


def sync_lines(path: Path, summary: SyncSummary) -> list[str]:
    kept = f", {summary.kept:,} decided earlier" if summary.kept else ""
    stale = f", {summary.stale:,} changed since decided" if summary.stale else ""
    return [
        f"review workspace: {path}: {summary.queued:,} queued + {summary.audit:,} audit{kept}{stale}; "
        f"{summary.pending:,} still to look at"
    ]


def report_lines(workspace: Workspace) -> list[str]:
    """Progress and the audit estimate, as `triage review --report` prints them."""
    p = workspace.progress()
    lines = [
        f"list: {p['total']:,} messages ({p['queue']:,} queued, {p['audit']:,} audit) of {p['messages']:,}",
        f"decided {p['decided']:,}, skipped {p['skipped']:,}, changed since decided {p['stale']:,}, "
        f"still to look at {p['pending']:,}",
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
    return lines


def apply_workspace(workspace_path: str | os.PathLike[str], classified: str | os.PathLike[str],
                    output: str | os.PathLike[str], *, force: bool = False) -> dict:
    """The working copy (triage queue apply) from a workspace's decisions: every classified row
    plus `final` and `final_text`, like applying a filled queue file."""
    from triage import lexicons as lexicon_module
    from triage.queue import FINAL_COLUMNS, _open_classified
    from triage.seekhide import SeekAndHide

    seeker = SeekAndHide(lexicon_module.default())
    with Workspace.open(workspace_path) as opened:
        finals = {row.id: row for row in opened.final()}
    table = _open_classified(classified)
    counts: dict[str, int] = {}
    columns = [c for c in table.columns if c not in FINAL_COLUMNS] + list(FINAL_COLUMNS)
    with outputs.atomic_output(output, force=force, protect=[workspace_path, classified]) as handle:
        writer = io.TableWriter(handle, columns, format=io.format_for(output), extrasaction="ignore")
        for message in table:
            row = finals.get(message.id)
            if row is None or row.text != message.text:
                raise io.InputError(f"{classified}: line {message.line}: message {message.id!r} is not in the "
                                    f"workspace as it is here; run `triage review {classified}` to bring it up to date")
            final = row.label or "EXPERT"
            counts[final] = counts.get(final, 0) + 1
            writer.write({**message.fields, "final": final,
                          "final_text": seeker.hide(row.text, [tuple(s) for s in row.spans])})
    return counts
