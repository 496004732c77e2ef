"""Writing rows of results as CSV, TSV or JSON Lines: `TableWriter` on a handle of
``triage.io.outputs.atomic_output`` (the one writer, which never damages the user's files), rows
encoded once by worker processes (`encode_cells`), chunks held back until the expert budget
sets one cell by its position (`HeldChunks`, `encode_rows_held`), and rows kept in memory for the Python API (`RowCollector`).
"""

from __future__ import annotations

import codecs
import collections
import contextlib
import csv
import io
import itertools
import json
import operator
import os
import re
from json.encoder import encode_basestring  # json.dumps' own escaping, one string at a time
from pathlib import Path
from types import SimpleNamespace
from typing import Any, Iterable, Iterator, Mapping, NamedTuple, Sequence, TextIO

from triage.io.formats import format_for
from triage.io.spreadsheets import neutralise_formula

def _json_value(value: Any) -> Any:
    return value if value is None or isinstance(value, (str, int, float, bool)) else str(value)


class TableWriter:
    """Streaming writer of rows (dicts) as CSV, TSV or JSON Lines, on a handle from
    `atomic_output` (opened with newline='').

    CSV/TSV: header first, minimal double-quoting, CRLF line ends (so that a lone CR in a
    message is quoted and survives re-reading); None is written as ''. JSONL: one object
    per row with the given columns in order, UTF-8 kept as is. A key not in `columns`
    raises ValueError (extrasaction="ignore" drops it); a missing key is written as ''.
    """

    def __init__(
        self,
        handle: TextIO,
        columns: Sequence[str],
        format: str = "csv",
        neutralise_formulas: bool = False,
        *,
        extrasaction: str = "raise",
        header: bool = True,
    ) -> None:
        if format not in ("csv", "tsv", "jsonl"):
            raise ValueError(f"unknown table format {format!r}")
        if extrasaction not in ("raise", "ignore"):
            raise ValueError(f"extrasaction must be 'raise' or 'ignore', not {extrasaction!r}")
        self.columns = list(columns)
        if len(set(self.columns)) != len(self.columns):
            raise ValueError(f"duplicate column names: {self.columns}")
        self.format = format
        self.rows_written = 0
        self._handle = handle
        self._column_set = frozenset(self.columns)
        self._check_extras = extrasaction == "raise"
        self._neutralise = neutralise_formulas
        # The bytes under a text handle written in UTF-8, which UTF-8 text is written to as it is.
        encoding = getattr(handle, "encoding", None)
        self._utf8_buffer = getattr(handle, "buffer", None) \
            if encoding is not None and codecs.lookup(encoding).name == "utf-8" else None
        if format != "jsonl":
            self._writer = csv.writer(
                handle,
                delimiter="\t" if format == "tsv" else ",",
                quotechar='"',
                doublequote=True,
                quoting=csv.QUOTE_MINIMAL,
                lineterminator="\r\n",
            )
            if header:
                names = [neutralise_formula(c) for c in self.columns] if neutralise_formulas else self.columns
                self._writer.writerow(names)

    def _cells(self, row: Mapping[str, Any]) -> list[Any]:
        if self._check_extras and not self._column_set.issuperset(row):
            extra = sorted(set(row) - self._column_set)
            raise ValueError(f"row has keys that are not output columns: {extra}")
        get = row.get
        if self._neutralise:
            return [neutralise_formula(v) if isinstance(v := get(c, ""), str) else v for c in self.columns]
        return [get(c, "") for c in self.columns]

    def write(self, row: Mapping[str, Any]) -> None:
        self.write_many((row,))

    def write_many(self, rows: Iterable[Mapping[str, Any]]) -> int:
        """Write rows; returns how many."""
        return self.write_cells(map(self._cells, rows), neutralised=True)

    def write_encoded(self, text: str | bytes, rows: int) -> None:
        """Write `rows` rows already encoded by `encode_cells` in this writer's format (as text,
        or as its bytes in UTF-8)."""
        if isinstance(text, bytes):
            if self._utf8_buffer is None:
                self._handle.write(text.decode("utf-8"))
            else:
                self._handle.flush()  # what is written as text, then these bytes
                self._utf8_buffer.write(text)
        else:
            self._handle.write(text)
        self.rows_written += rows

    def write_chunk(self, chunk) -> None:
        """Write a classified chunk (triage.classifier.ClassifiedChunk) encoded in this format."""
        self.write_encoded(chunk.text, chunk.rows)

    def write_cells(self, rows: Iterable[Sequence[Any]], *, neutralised: bool = False) -> int:
        """Write rows given as lists of cells in column order (the fast path of classify);
        returns how many."""
        if self._neutralise and not neutralised:
            rows = ([neutralise_formula(v) if isinstance(v, str) else v for v in row] for row in rows)
        before = self.rows_written
        if self.format == "jsonl":
            columns = self.columns
            dumps = json.JSONEncoder(ensure_ascii=False, default=str).encode
            write = self._handle.write
            for cells in rows:
                write(dumps({c: _json_value(v) for c, v in zip(columns, cells)}) + "\n")
                self.rows_written += 1
        elif isinstance(rows, list):
            self._writer.writerows(rows)
            self.rows_written += len(rows)
        else:
            def counted() -> Iterator[Sequence[Any]]:
                for cells in rows:
                    yield cells
                    self.rows_written += 1

            self._writer.writerows(counted())
        return self.rows_written - before


# What makes csv's minimal quoting quote a cell, by delimiter (the line end is "\r\n").
_QUOTED = {",": re.compile('[,"\r\n]'), "\t": re.compile('[\t"\r\n]')}


def _csv_columns(rows: Sequence[Sequence[Any]], width: int, delimiter: str, measured: bool = True) -> _Encoded | None:
    """The cells of `rows` encoded as csv.writer encodes them in a row of `width` cells (minimal
    quoting, quotes doubled), column by column (_encoded_table); None when a cell is not a string
    or a row not `width` long (csv.writer then encodes them)."""
    if width < 2 or not rows or set(map(len, rows)) != {width}:
        return None  # alone in its row, an empty cell is quoted
    return _encoded_table(list(zip(*rows)), delimiter, measured)


class _Encoded(NamedTuple):
    """Cells encoded for CSV or TSV, column by column, the length of each (a numpy array of one
    row per column, its quotes counted), from which the lines' lengths follow, and which cells
    are written between quotes (a numpy array of the same shape; None: the cells are as written,
    or none is)."""

    columns: Sequence[Sequence[str]]
    sizes: Any
    wrapped: Any = None


def _encoded_table(given: Sequence[Sequence[Any]], delimiter: str, measured: bool = True) -> _Encoded | None:
    """The cells of the columns `given` (at least two, as long as each other and not empty)
    encoded as csv.writer encodes them in rows (minimal quoting, quotes doubled), with their
    lengths if `measured` (else no sizes); None when a cell is not a string. The cells are
    looked at all at once: joined by NULs and encoded in UTF-8, where numpy finds the NULs
    between them and the bytes that make csv quote a cell. The quotes of the cells are doubled
    in their columns (a column with none is given back as it is); the quotes around a cell are
    left to _lines, which writes them beside its delimiters. (Cells that hold a NUL themselves
    are quoted by _encoded_columns.)"""
    import numpy as np

    width, count = len(given), len(given[0])
    try:
        joined = "\0".join(map("\0".join, given))
    except TypeError:  # a number, None...
        return None
    in_ascii = joined.isascii()
    data = np.frombuffer(joined.encode("ascii") if in_ascii else joined.encode("utf-8", "surrogatepass"),
                         dtype=np.uint8)
    del joined
    ends = np.flatnonzero(data == 0)  # where each cell but the last ends
    if len(ends) != width * count - 1:
        if (columns := _encoded_columns(given, delimiter)) is None or not measured:
            return _Encoded(columns, None) if columns is not None else None
        return _Encoded(columns, np.array([np.fromiter(map(len, cells), dtype=np.int64, count=count)
                                           for cells in columns]).reshape(width, count))
    sizes = None
    if measured:
        bounds = np.empty(width * count + 1, dtype=np.int64)
        bounds[0] = -1
        bounds[1:-1] = ends
        bounds[-1] = len(data)
        sizes = np.diff(bounds) - 1  # in bytes
        if not in_ascii:  # in characters: the bytes of a character after its first are 10xxxxxx
            sizes -= np.bincount(np.searchsorted(ends, np.flatnonzero((data & 0xC0) == 0x80)),
                                 minlength=width * count)
    quotes = data == ord('"')
    special = quotes | (data == ord(delimiter))
    special |= data == ord("\r")
    special |= data == ord("\n")
    if not (quoted := np.flatnonzero(special)).size:
        return _Encoded(given, sizes.reshape(width, count) if sizes is not None else None)
    wrapped = np.zeros(width * count, dtype=bool)
    wrapped[np.searchsorted(ends, quoted)] = True
    columns = list(given)
    if (doubled := np.flatnonzero(quotes)).size:
        in_cell = np.bincount(np.searchsorted(ends, doubled), minlength=width * count)  # quotes per cell
        if sizes is not None:
            sizes += in_cell
        which, rows = np.divmod(np.flatnonzero(in_cell), count)  # (column, row) of the cells with quotes
        cuts = np.searchsorted(which, np.arange(width + 1)).tolist()
        for k, (first, last) in enumerate(zip(cuts[:-1], cuts[1:])):
            if first < last:
                column = columns[k] = list(given[k])
                for row in rows[first:last].tolist():
                    column[row] = column[row].replace('"', '""')
    if sizes is not None:
        sizes += 2 * wrapped
    return _Encoded(columns, sizes.reshape(width, count) if sizes is not None else None, wrapped.reshape(width, count))


def _lines(encoded: _Encoded, delimiter: str) -> str:
    """The rows that encoded columns (as long as each other, not empty) make, as CSV or TSV
    text: each row's cells joined by `delimiter`, each line ended by CRLF, joined at once. The
    quotes around the cells `wrapped` are written with the delimiters and line ends beside them."""
    import numpy as np

    columns, wrapped = encoded.columns, encoded.wrapped
    width, count = len(columns), len(columns[0])
    parts = [delimiter] * (2 * width * count)  # cell, delimiter, ..., cell, line end
    for k, cells in enumerate(columns):
        parts[2 * k::2 * width] = cells
    if wrapped is None:
        parts[2 * width - 1::2 * width] = ["\r\n"] * count
        return "".join(parts)
    # The separator after each cell, in row order, by what it holds: the cell's closing quote
    # (+1), the next cell's opening quote (+2), the line end instead of the delimiter (+4).
    after = wrapped.T.ravel()
    which = after.astype(np.int64)
    which[:-1] += 2 * after[1:]
    which[width - 1::width] += 4
    separators = np.array([delimiter, '"' + delimiter, delimiter + '"', '"' + delimiter + '"',
                           "\r\n", '"\r\n', '\r\n"', '"\r\n"'], dtype=object)
    parts[1::2] = separators[which].tolist()
    return '"' + "".join(parts) if after[0] else "".join(parts)


def _encoded_columns(given: Sequence[Sequence[Any]], delimiter: str) -> list[list[str]] | None:
    """The cells of the columns `given` (at least two, as long as each other and not empty)
    encoded as csv.writer encodes them in rows (minimal quoting, quotes doubled), column by
    column; None when a cell is not a string. A column none of whose cells needs quoting, as
    most of classify's, is taken as it is, after one look at all its cells joined. A column
    whose cells are mostly the very strings of an earlier column (classify's anonymised texts,
    the texts themselves where nothing is hidden) takes those cells as that column encoded them."""
    search = _QUOTED[delimiter].search
    plain: list[Sequence[Any]] = []
    columns = []
    for cells in given:
        try:
            joined = "\n".join(cells)
        except TypeError:  # a number, None...
            return None
        if (delimiter in joined or '"' in joined or "\r" in joined
                or joined.count("\n") != len(cells) - 1):
            shared = next((j for j, earlier in enumerate(plain) if _mostly_same(cells, earlier)), None)
            if shared is None:
                encoded = [cell if search(cell) is None else '"' + cell.replace('"', '""') + '"' for cell in cells]
            else:
                earlier, done = plain[shared], columns[shared]
                encoded = [done[i] if same else (cell if search(cell) is None else '"' + cell.replace('"', '""') + '"')
                           for i, (cell, same) in enumerate(zip(cells, map(operator.is_, cells, earlier)))]
            plain.append(cells)
            cells = encoded
        else:
            plain.append(cells)
        columns.append(cells)
    return columns


def _mostly_same(cells: Sequence[str], earlier: Sequence[str], sample: int = 16) -> bool:
    """Whether most of the first `sample` cells of a column are the very strings of `earlier`."""
    return 2 * sum(map(operator.is_, cells[:sample], earlier[:sample])) > min(sample, len(cells))


def encode_cells(rows: Iterable[Sequence[Any]], columns: Sequence[str], format: str = "csv") -> str:
    """Rows (lists of cells in column order) as text in `format`, without a header: what a
    worker process sends back, for TableWriter.write_encoded in the process that writes."""
    if format in ("csv", "tsv") and isinstance(rows, (list, tuple)):
        delimiter = "\t" if format == "tsv" else ","
        if (encoded := _csv_columns(rows, len(columns), delimiter, measured=False)) is not None:
            return _lines(encoded, delimiter)
    buffer = io.StringIO()
    TableWriter(buffer, columns, format, header=False).write_cells(rows)
    return buffer.getvalue()


def _csv_columns_given(cells: Sequence[Sequence[Any]], columns: Sequence[str], format: str, measured: bool = True
                       ) -> _Encoded | None:
    """_encoded_table of the cells given column by column (`cells`, one list per name of
    `columns`), in CSV or TSV; None where the rows they make must be encoded as rows."""
    if format not in ("csv", "tsv") or len(columns) < 2 or len(cells) != len(columns) \
            or len(set(map(len, cells))) != 1 or not len(cells[0]):
        return None
    return _encoded_table(cells, "\t" if format == "tsv" else ",", measured)


def encode_columns(cells: Sequence[Sequence[Any]], columns: Sequence[str], format: str = "csv") -> str:
    """encode_cells of the rows that `cells`, given column by column (one list per name of
    `columns`, in row order), make: classify builds its cells a column at a time, and CSV and
    TSV encode them so."""
    if (encoded := _csv_columns_given(cells, columns, format, measured=False)) is not None:
        delimiter = "\t" if format == "tsv" else ","
        return _lines(encoded, delimiter)
    if format == "jsonl" and (lines := _jsonl_lines(cells, columns)) is not None:
        return "\n".join(lines[0]) + "\n"
    return encode_cells(list(zip(*cells)), columns, format)


def encode_columns_held(cells: Sequence[Sequence[Any]], columns: Sequence[str], format: str, column: str
                        ) -> tuple[str, Any, Any]:
    """encode_rows_held of the rows that `cells`, given column by column (as encode_columns
    takes them), make."""
    if (encoded := _csv_columns_given(cells, columns, format)) is not None:
        return _held_lines(encoded, list(columns).index(column), "\t" if format == "tsv" else ",")
    if format == "jsonl" and (lines := _jsonl_lines(cells, columns)) is not None:
        return _held_json_lines(*lines, list(columns).index(column))
    return encode_rows_held(list(zip(*cells)), columns, format, column)


def _jsonl_lines(cells: Sequence[Sequence[Any]], columns: Sequence[str]) -> tuple[list[str], Any] | None:
    """The JSON Lines (without their line ends) of the rows that `cells`, given column by column,
    make, as TableWriter writes them (one object per row, the columns in order), and a function
    of a column's position giving where its value starts and stops in each line (character
    offsets, two numpy arrays); None when a cell is not a string or there are no rows (each row
    is then encoded alone). Each value is encoded by json's own string encoder, a column at a
    time, and each line is joined from the values and the keys before them."""
    if not columns or len(cells) != len(columns) or len(set(map(len, cells))) != 1 or not len(cells[0]):
        return None
    try:
        values = [list(map(encode_basestring, column)) for column in cells]
    except TypeError:  # a number, None...
        return None
    keys = [("{" if i == 0 else ", ") + encode_basestring(name) + ": " for i, name in enumerate(columns)]
    parts = [part for key, column in zip(keys, values) for part in (itertools.repeat(key), column)]

    def value_at(at: int) -> tuple[Any, Any]:
        """Where the value of the column `at` starts and stops in each line."""
        import numpy as np

        count = len(values[0])
        starts = np.full(count, sum(map(len, keys[:at + 1])), dtype=np.int64)
        for column in values[:at]:
            starts += np.fromiter(map(len, column), dtype=np.int64, count=count)
        return starts, starts + np.fromiter(map(len, values[at]), dtype=np.int64, count=count)

    return list(map("".join, zip(*parts, itertools.repeat("}")))), value_at


def _held_json_lines(lines: list[str], value_at, at: int) -> tuple[str, Any, Any]:
    """The text of JSON Lines made by _jsonl_lines, and where the value of the column `at` starts
    and stops in each (character offsets into the text)."""
    import numpy as np

    count = len(lines)
    line_starts = np.empty(count, dtype=np.int64)
    line_starts[0] = 0
    np.cumsum(np.fromiter(map(len, lines[:-1]), dtype=np.int64, count=count - 1) + 1, out=line_starts[1:])
    starts, stops = value_at(at)
    return "\n".join(lines) + "\n", line_starts + starts, line_starts + stops


def _held_lines(encoded: _Encoded, at: int, delimiter: str) -> tuple[str, Any, Any]:
    """The lines of cells encoded column by column (_encoded_table), and where the cell of the
    column `at` starts and stops in each (character offsets into the text, from the cells'
    lengths)."""
    import numpy as np

    sizes = encoded.sizes
    width, count = sizes.shape
    line_sizes = sizes.sum(axis=0) + (width + 1)  # the delimiters and the line end
    starts = np.empty(count, dtype=np.int64)
    starts[0] = 0
    np.cumsum(line_sizes[:-1], out=starts[1:])
    starts += sizes[:at].sum(axis=0) + at  # the cells and delimiters before the cell
    return _lines(encoded, delimiter), starts, starts + sizes[at]


def encode_rows_held(rows: Sequence[Sequence[Any]], columns: Sequence[str], format: str, column: str
                     ) -> tuple[str, Any, Any]:
    """encode_cells, and where the cell of `column` starts and stops in each row (character
    offsets into the text, two numpy arrays of len(rows)): what HeldChunks needs to set that
    cell later by its position, without reading the rows back. Every cell is encoded once:
    CSV/TSV rows are written as the cells before `column`, then the cell and those after it,
    each part for all the rows at once."""
    import numpy as np

    at = list(columns).index(column)
    buffer = io.StringIO()
    write = buffer.write
    starts = np.empty(len(rows), dtype=np.int64)
    stops = np.empty(len(rows), dtype=np.int64)
    where = 0
    if format == "jsonl":
        dumps = json.JSONEncoder(ensure_ascii=False, default=str).encode
        key = dumps(column) + ": "
        before, after = columns[:at], columns[at + 1:]
        for i, cells in enumerate(rows):
            head = dumps({c: _json_value(v) for c, v in zip(before, cells)})[:-1]
            head = (head + ", " if before else head) + key
            cell = dumps(_json_value(cells[at]))
            tail = dumps({c: _json_value(v) for c, v in zip(after, cells[at + 1:])})[1:]
            starts[i] = where + len(head)
            stops[i] = starts[i] + len(cell)
            line = head + cell + (", " + tail if after else tail) + "\n"
            write(line)
            where += len(line)
        return buffer.getvalue(), starts, stops
    options = dict(delimiter="\t" if format == "tsv" else ",", quotechar='"', doublequote=True,
                   quoting=csv.QUOTE_MINIMAL)
    delimiter = options["delimiter"]
    if (encoded := _csv_columns(rows, len(columns), delimiter)) is not None:
        # Every cell a string, as classify's: the lines joined from the encoded columns, and the
        # cell's place from their lengths.
        return _held_lines(encoded, at, delimiter)
    # The cells before `column`, then it and those after, are each encoded as rows of their own
    # (all the rows at once) and joined: quoting is decided cell by cell, as for the whole row,
    # once the line end is set aside.
    lines: list[str] = []
    writer = csv.writer(SimpleNamespace(write=lines.append), lineterminator="\r\n", **options)

    def parts(cells: Iterable[Sequence[Any]]) -> list[str]:
        """Each row of `cells` encoded, with its line end; alone, an empty cell would be quoted
        (csv's way of telling an empty row from a row of one empty cell): not in a longer row."""
        lines.clear()
        writer.writerows(cells)
        encoded = lines[:]
        lines.clear()
        return encoded

    def single(encoded: list[str], cells: Sequence[Any]) -> list[str]:
        return ["\r\n" if cell in ("", None) else line for line, cell in zip(encoded, cells)]

    rests = parts(cells[at:] for cells in rows)  # the cell and those after it
    values = [cells[at] for cells in rows]
    if at == len(columns) - 1:
        rests = single(rests, values)
    if at:
        heads = parts(cells[:at] for cells in rows)
        if at == 1:
            heads = single(heads, [cells[0] for cells in rows])
        text = "".join([head[:-2] + delimiter + rest for head, rest in zip(heads, rests)])
        head_sizes = np.fromiter(map(len, heads), dtype=np.int64, count=len(heads)) - 1
    else:
        text = "".join(rests)
        head_sizes = np.zeros(len(rows), dtype=np.int64)
    # A cell that needs no quoting is written as it is; any other is measured alone. The cells of
    # a column such as a decision take few values: each distinct one is measured once.
    special = frozenset(delimiter + '"\r\n')
    # (strings only: 1 and True would be one key)
    distinct = list(dict.fromkeys(values)) if set(map(type, values)) <= {str} else None
    measured = distinct if distinct is not None else values
    sizes = [len(value) if isinstance(value, str) and value and special.isdisjoint(value) else None
             for value in measured]
    odd = [i for i, size in enumerate(sizes) if size is None]
    for i, line in zip(odd, single(parts([measured[i]] for i in odd), [measured[i] for i in odd])):
        sizes[i] = len(line) - 2
    if distinct is not None:
        sizes = list(map(dict(zip(distinct, sizes)).__getitem__, values))
    line_sizes = head_sizes + np.fromiter(map(len, rests), dtype=np.int64, count=len(rests))
    if len(rows):
        starts[0] = 0
        np.cumsum(line_sizes[:-1], out=starts[1:])
    starts += head_sizes
    stops[:] = starts + np.asarray(sizes, dtype=np.int64)
    return text, starts, stops


def _encoded_cell(value: str, format: str) -> str:
    """One cell encoded alone in `format`, as encode_rows_held places it."""
    if format == "jsonl":
        return json.dumps(value, ensure_ascii=False)
    return encode_cells([[value]], ["cell"], format)[:-2] if value != "" else ""


def _decoded_cell(text: str, format: str) -> str:
    """The value of one cell encoded alone (the inverse of _encoded_cell)."""
    if format == "jsonl":
        return json.loads(text)
    if '"' not in text:  # not quoted: the cell is its value
        return text
    return next(csv.reader([text], delimiter="\t" if format == "tsv" else ",", quotechar='"', doublequote=True))[0]


# Chunks held back by HeldChunks stay in memory up to this many bytes (encoded in UTF-8), then all
# go to disk.
HELD_IN_MEMORY = 32 * 1024 * 1024


class HeldChunks:
    """The chunks of a table, held back until one cell of some rows can be set (exact expert
    budgets: which rows go to the expert is known only once every row has been ranked).

    Encoded chunks (with `cell_at` and `cell_stop`, where the cell of each row lies: see
    encode_rows_held) are held in UTF-8, the encoding of the output, in memory while they take
    at most HELD_IN_MEMORY bytes; beyond, they all go to a private scratch file beside the output
    (outputs.scratch_file: on disk, unnamed, gone with the process). `release` copies them to the
    writer, replacing the chosen rows' cells by their position. Rows kept in memory (a
    RowCollector) are written at once and set in place."""

    def __init__(self, writer: TableWriter | RowCollector, column: str, folder: Path | None = None) -> None:
        self.writer = writer
        self.at = writer.columns.index(column)
        # (the chunk in UTF-8, or its bytes in the scratch file; where each cell starts, stops)
        self._chunks: list[tuple[bytes | int, Any, Any]] = []
        self._in_memory: int | None = 0  # bytes held in memory (None: every chunk is on disk)
        self._scratch = None
        if not isinstance(writer, RowCollector):
            from triage.io import outputs

            self._scratch = outputs.scratch_file(folder if folder is not None else Path("."), binary=True)

    def write_chunk(self, chunk) -> None:
        """Hold a chunk (triage.classifier.ClassifiedChunk: encoded with `cell_at` and
        `cell_stop`, or cells)."""
        if self._scratch is None:
            self.writer.write_chunk(chunk)
            return
        chunk = in_utf8(chunk)
        data = chunk.text
        if self._in_memory is not None:
            self._in_memory += len(data)
            if self._in_memory <= HELD_IN_MEMORY:
                self._chunks.append((data, chunk.cell_at, chunk.cell_stop))
                return
            self._in_memory = None
            for i, (held, cell_at, cell_stop) in enumerate(self._chunks):
                self._scratch.write(held)
                self._chunks[i] = (len(held), cell_at, cell_stop)
        self._scratch.write(data)
        self._chunks.append((len(data), chunk.cell_at, chunk.cell_stop))

    def release(self, rows: Sequence[int], value: str) -> collections.Counter:
        """Write every held row, the cell of each of `rows` (increasing positions) set to
        `value`; returns how many cells of each old value were replaced."""
        import numpy as np

        replaced: collections.Counter = collections.Counter()
        rows = np.asarray(rows, dtype=np.int64)
        if self._scratch is None:
            for row in rows.tolist():
                cells = self.writer.rows[row]
                replaced[cells[self.at]] += 1
                cells[self.at] = value
            return replaced
        format = self.writer.format
        encoded = _encoded_cell(value, format).encode("utf-8")
        first = 0
        self._scratch.seek(0)
        chunks, self._chunks = self._chunks, []
        chunks.reverse()
        while chunks:  # each chunk let go of once written
            held, cell_at, cell_stop = chunks.pop()
            data = held if isinstance(held, bytes) else self._scratch.read(held)
            del held
            count = len(cell_at)
            mine = rows[np.searchsorted(rows, first):np.searchsorted(rows, first + count)] - first
            if len(mine):
                starts, stops = cell_at[mine].tolist(), cell_stop[mine].tolist()
                cells = collections.Counter(map(data.__getitem__, map(slice, starts, stops)))
                for cell, times in cells.items():  # (a few distinct cells: TA, NTA)
                    replaced[_decoded_cell(cell.decode("utf-8"), format)] += times
                pieces = [data[: starts[0]]]
                for stop, start in zip(stops, starts[1:] + [len(data)]):
                    pieces += [encoded, data[stop:start]]
                data = b"".join(pieces)
            self.writer.write_encoded(data, count)
            first += count
        self._scratch.close()
        return replaced


def in_utf8(chunk):
    """A classified chunk (triage.classifier.ClassifiedChunk) with its encoded rows in UTF-8, the
    encoding of the output, and where the decision cell of each row lies (`cell_at`, `cell_stop`)
    as offsets into those bytes, as HeldChunks holds it: the same chunk if it is so already (its
    text bytes). A worker sends its chunks so, and works out the offsets beside the others."""
    text = getattr(chunk, "text", None)
    if not isinstance(text, str):
        return chunk
    data = text.encode("utf-8")
    if getattr(chunk, "cell_at", None) is not None and len(data) != len(text):
        chunk.cell_at, chunk.cell_stop = _byte_offsets(data, chunk.cell_at, chunk.cell_stop)
    chunk.text = data
    return chunk


def _byte_offsets(data: bytes, *offsets: Any) -> list[Any]:
    """Character offsets into the UTF-8 text `data` (numpy arrays) as offsets into its bytes
    (numpy arrays): a character's bytes after its first are 10xxxxxx, one more byte for each
    before it."""
    import numpy as np

    raw = np.frombuffer(data, dtype=np.uint8)
    following = np.flatnonzero((raw & 0xC0) == 0x80)  # the bytes after a character's first
    if not len(following):
        return list(offsets)
    # The character each such byte belongs to (its position less the following bytes up to it).
    following -= np.arange(1, len(following) + 1)
    return [offset + np.searchsorted(following, offset) for offset in offsets]


class RowCollector:
    """What a job writes its rows to when it has no output file (the Python API): the rows kept
    in memory as lists of cells in column order, with TableWriter's methods."""

    format = "cells"

    def __init__(self, columns: Sequence[str], *, extrasaction: str = "raise") -> None:
        self.columns = list(columns)
        self.rows: list[list[Any]] = []
        self._check_extras = extrasaction == "raise"
        self._column_set = frozenset(self.columns)

    @property
    def rows_written(self) -> int:
        return len(self.rows)

    def write(self, row: Mapping[str, Any]) -> None:
        self.write_many((row,))

    def write_many(self, rows: Iterable[Mapping[str, Any]]) -> int:
        before = len(self.rows)
        for row in rows:
            if self._check_extras and not self._column_set.issuperset(row):
                raise ValueError(f"row has keys that are not output columns: {sorted(set(row) - self._column_set)}")
            self.rows.append([row.get(c, "") for c in self.columns])
        return len(self.rows) - before

    def write_cells(self, rows: Iterable[Sequence[Any]], *, neutralised: bool = False) -> int:
        before = len(self.rows)
        self.rows.extend(list(row) for row in rows)
        return len(self.rows) - before

    def write_chunk(self, chunk) -> None:
        self.rows.extend(chunk.cells)


@contextlib.contextmanager
def table_output(output: str | os.PathLike[str] | None, columns: Sequence[str], *, force: bool = False,
                 protect: Iterable[Any] = (), extrasaction: str = "raise") -> Iterator[TableWriter | RowCollector]:
    """Where a job's rows go: a file in the format of its name, written all at once by the one
    writer (triage.io.outputs), or, when `output` is None, a RowCollector in memory."""
    if output is None:
        yield RowCollector(columns, extrasaction=extrasaction)
        return
    from triage.io import outputs

    with outputs.atomic_output(output, force=force, protect=protect) as handle:
        yield TableWriter(handle, columns, format=format_for(output), extrasaction=extrasaction)
