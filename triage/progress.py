"""The one progress bar of the tool (rich), on stderr: stdout carries results and reports."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator


def progress(items: Iterable, description: str, *, total: int | None = None,
             size: Callable[[object], int] = lambda item: 1, unit: str = "") -> Iterator:
    """The items, passed on unchanged, with a bar that advances by size(item): "3/10" when
    the total is known, else a running count of `unit`."""
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
    )

    count = MofNCompleteColumn() if total is not None else TextColumn(f"{{task.completed:,}} {unit}".rstrip())
    columns = (TextColumn("[progress.description]{task.description}"), BarColumn(), count, TimeElapsedColumn())
    with Progress(*columns, transient=True, console=Console(stderr=True)) as bar:
        task = bar.add_task(description, total=total)
        for item in items:
            yield item
            bar.advance(task, size(item))
