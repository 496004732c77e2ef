"""DataFrames in, DataFrames out: what the Python API (triage.api) makes of the messages it is
given, and of the rows the jobs give back.

Messages may come as a pandas DataFrame, a polars DataFrame, any iterable of (id, text)
pairs, a list of texts alone (numbered from 1), or a dict: {id: text} (as `pandas.Series(d)`
reads it: its keys are the ids, its values the texts) or {column: values} (as
`pandas.DataFrame(d)` reads it: lists of one length, one a column); any other dict is refused. They are read as the command line reads a file (triage.io.messages.Records: the same checks of
columns, ids and labels), every cell as text: a missing value (None, NaN, NA) is an empty cell,
a list or a dict (gold spans held as objects) is written as JSON, anything else as `str()`.
Results come back in the kind they were given in (pandas for pairs), with the input's index
when there is one row per message, and the input's own id values.

pandas and polars are imported only when they are given or asked for: the command line never
imports them.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from triage.errors import BadInput
from triage.io.messages import Records

PANDAS, POLARS, PAIRS = "pandas", "polars", "pairs"


def _module_of(data) -> str:
    return type(data).__module__.split(".")[0]


def kind_of(data) -> str:
    """pandas, polars or pairs; a clear error for what the API does not take."""
    if isinstance(data, (str, bytes, os.PathLike)):
        raise BadInput("give the messages as a DataFrame or (id, text) pairs; for a file, read it first "
                       "(pandas.read_csv) or use the command line")
    module = _module_of(data)
    if module == "pandas":
        import pandas

        if isinstance(data, pandas.DataFrame):
            return PANDAS
        raise BadInput(f"a pandas {type(data).__name__} is not a table of messages; give a DataFrame")
    if module == "polars":
        import polars

        if isinstance(data, polars.DataFrame):
            return POLARS
        if isinstance(data, polars.LazyFrame):
            raise BadInput("a polars LazyFrame: call .collect() first")
        raise BadInput(f"a polars {type(data).__name__} is not a table of messages; give a DataFrame")
    if isinstance(data, Iterable):
        return PAIRS
    raise BadInput(f"cannot read messages from a {type(data).__name__}; give a DataFrame or (id, text) pairs")


def _missing(value) -> bool:
    if value is None:
        return True
    if isinstance(value, float):
        return math.isnan(value)
    if _module_of(value) == "pandas":  # pandas.NA, pandas.NaT
        import pandas

        return value is pandas.NA or value is pandas.NaT
    return False


def cell(value: Any) -> str:
    """A value as the text a CSV file would hold."""
    if isinstance(value, str):
        return value
    if _missing(value):
        return ""
    if isinstance(value, (list, tuple, dict)):
        return json.dumps(value, ensure_ascii=False, default=_plain)
    if hasattr(value, "tolist") and not isinstance(value, (int, float)):  # numpy scalars and arrays
        plain = value.tolist()
        return cell(plain) if not isinstance(plain, str) else plain
    return str(value)


def _plain(value):
    if hasattr(value, "tolist"):
        return value.tolist()
    return str(value)


@dataclass
class Source:
    """Messages given to the API: as Records for the jobs, and what is needed to give results back
    in the same kind (the pandas index, the original id values)."""

    kind: str
    records: Records
    index: Any = None  # pandas index
    ids: dict[str, list] = field(default_factory=dict)  # column -> original values


def source(data, *, what: str = "messages") -> Source:
    """The messages of a pandas or polars DataFrame, of (id, text) pairs, or of texts alone (a
    list of strings: their ids are their row numbers, 1, 2, 3...), as Records."""
    if isinstance(data, Source):
        return data
    kind = kind_of(data)
    display = f"the {what} DataFrame" if kind != PAIRS else f"the {what}"
    if kind == PANDAS:
        columns = [str(c) for c in data.columns]
        values = [data.iloc[:, i].tolist() for i in range(len(columns))]  # by position: names may repeat
        index = data.index
    elif kind == POLARS:
        columns = list(data.columns)
        values = [data.get_column(c).to_list() for c in columns]
        index = None
    elif isinstance(data, Mapping):
        columns, values, index = _mapping(data)
    else:
        columns, values, index = ["id", "text"], _pairs(data), None
    cells = [[cell(v) for v in column] for column in values]
    rows = list(zip(*cells)) if cells else []
    found = Source(kind, Records(columns, rows, display), index)
    found.ids = {name: column for name, column in zip(columns, values)}
    return found


def _mapping(data: Mapping) -> tuple[list[str], list[list], None]:
    """A dict of messages: {id: text}, or {column: values} as pandas.DataFrame reads it."""
    values = list(data.values())
    if all(isinstance(v, str) or _missing(v) for v in values):
        return ["id", "text"], [list(data.keys()), values], None
    if all(isinstance(v, Sequence) and not isinstance(v, (str, bytes)) for v in values):
        lengths = {len(v) for v in values}
        if len(lengths) == 1:
            return [str(k) for k in data.keys()], [list(v) for v in values], None
        raise BadInput("a dict of columns must hold lists of one length (as pandas.DataFrame reads it), not "
                       f"lengths {', '.join(map(str, sorted(lengths)))}")
    raise BadInput("a dict of messages is {id: text} (every value a text) or {column: [values]} (as "
                   "pandas.DataFrame reads it), not a mix")


def lone_surrogate(found: Source) -> tuple[int, str] | None:
    """(row number from 1, column) of the first cell holding a lone surrogate code point ("\\ud800":
    half of a UTF-16 pair, not a character, which no file nor workspace can store), or None."""
    for number, row in enumerate(found.records.rows, 1):
        for column, value in zip(found.records.columns, row):
            if isinstance(value, str) and not value.isascii():
                try:
                    value.encode("utf-8")
                except UnicodeEncodeError:
                    return number, column
    return None


def _pairs(data) -> list[list]:
    data = list(data)
    if data and all(isinstance(item, str) for item in data):
        return [[str(number) for number in range(1, len(data) + 1)], data]  # texts alone: row numbers
    ids, texts = [], []
    for number, item in enumerate(data, 1):
        if isinstance(item, (str, bytes)) or not isinstance(item, Sequence) or len(item) != 2:
            raise BadInput(f"item {number} of the messages is neither an (id, text) pair nor, like every "
                           f"other item, a text: {str(item)[:40]!r}")
        ids.append(item[0])
        texts.append(item[1])
    return [ids, texts]


def frame(columns: Sequence[str], rows: list[list], like: Source | str | None = None, *,
          numbers: Sequence[str] = (), integers: Sequence[str] = (), one_per_message: bool = False,
          id_column: str | None = None):
    """Rows (cells in column order) as a DataFrame of the kind of `like` (pandas by default).

    `numbers` and `integers` are columns made numeric; column `id` takes the input's own id
    values from its `id_column`; with `one_per_message` (one row per message of `like`, in its
    order) the rows also take the input's index."""
    kind = like.kind if isinstance(like, Source) else (like or PANDAS)
    data: dict[str, list] = {c: [row[i] for row in rows] for i, c in enumerate(columns)}
    for name in numbers:
        data[name] = [float(v) if v not in ("", None) else math.nan for v in data[name]]
    for name in integers:
        data[name] = [int(v) for v in data[name]]
    if isinstance(like, Source) and id_column in like.ids and "id" in data:  # the input's own id values
        if one_per_message:
            data["id"] = list(like.ids[id_column])
        else:
            original = {cell(value): value for value in like.ids[id_column]}
            data["id"] = [original.get(ident, ident) for ident in data["id"]]
    if kind == POLARS:
        import polars

        return polars.DataFrame(data, strict=False)
    import pandas

    try:
        result = pandas.DataFrame(data, columns=list(columns))
    except UnicodeEncodeError:
        # pandas' pyarrow strings (its default where pyarrow is installed) cannot hold a lone
        # surrogate, which a message given as a Python string may: its columns stay Python strings.
        kept = set(numbers) | set(integers)
        result = pandas.DataFrame({c: v if c in kept else pandas.Series(v, dtype=object) for c, v in data.items()},
                                  columns=list(columns))
    if one_per_message and isinstance(like, Source) and like.index is not None and len(like.index) == len(result):
        result.index = like.index
    return result
