"""The one progress bar of the tool (rich), on stderr: stdout carries results and reports."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager


@contextmanager
def _bar(description: str, total: int | None, unit: str):
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
        yield bar, bar.add_task(description, total=total)


def progress(items: Iterable, description: str, *, total: int | None = None,
             size: Callable[[object], int] = lambda item: 1, unit: str = "") -> Iterator:
    """The items, passed on unchanged, with a bar that advances by size(item): "3/10" when
    the total is known, else a running count of `unit`."""
    with _bar(description, total, unit) as (bar, task):
        for item in items:
            yield item
            bar.advance(task, size(item))


@contextmanager
def steps(description: str, total: int):
    """The same bar over `total` steps of a long job: yields a function that marks one step
    done and names the next (`done("scoring")`)."""
    with _bar(description, total, "") as (bar, task):
        def done(doing: str | None = None) -> None:
            bar.advance(task, 1)
            if doing:
                bar.update(task, description=f"{description}: {doing}")

        yield done
