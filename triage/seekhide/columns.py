"""The per-spelling columns of a table of spellings (triage.seekhide.table.Spellings), declared
once each where their code is, as pipeline components are: a column has a name, the type of
its values and how to compute them for many new spellings at once. Spellings.column computes
each for the spellings it has not seen yet; SPELLING_COLUMNS lists them all."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class SpellingColumn:
    """A per-spelling column of a table of spellings, declared once (`spelling_column`).
    `compute(table, sids, *parameters)` gives the values of the new spelling ids `sids` (an int
    array) at once, as an array-like of len(sids) values (rows of `width` values for a 2-D
    column); the `parameters` a column is asked with (Spellings.column) are part of its
    identity: a lexicon's name, a word scorer's prefixes."""

    name: str
    compute: Callable[..., object]
    dtype: object = float
    width: int | None = None


# Every per-spelling column, by name: one declaration each, wherever its code is.
SPELLING_COLUMNS: dict[str, SpellingColumn] = {}


def spelling_column(name: str, dtype: object = float, width: int | None = None):
    """Declare the function (table, sids, *parameters) -> values as the per-spelling column
    `name` (see SpellingColumn); the decorated name is then the column, which Spellings.column
    takes."""
    def declare(compute: Callable[..., object]) -> SpellingColumn:
        if name in SPELLING_COLUMNS:
            raise ValueError(f"the spelling column {name!r} is declared twice")
        column = SPELLING_COLUMNS[name] = SpellingColumn(name, compute, dtype, width)
        return column
    return declare
