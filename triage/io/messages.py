"""The table of messages: `open_messages` opens a CSV, TSV or JSON Lines file (or Records held
in memory), checks it eagerly (file, encoding, header, columns, ids) and reads it lazily as
Messages or (id, text) pairs, with the rows that are bad (ragged, too long, not JSON) an error,
skipped or warned about.

Corpora arrive as spreadsheets exported by hand, so reading is forgiving about what
spreadsheets produce (encodings, delimiters, BOMs, Windows line endings, quoted newlines,
stray NUL bytes, empty trailing rows) and strict about what would silently corrupt the
data (rows with too many fields, undecodable bytes, missing columns): those raise
``InputError`` with a one-line message naming the file and the line.

Standard library only, on purpose: ``triage classify`` must start in under 0.5 s
(importing pandas alone costs that) and stream 10**7 messages in bounded memory.
"""

from __future__ import annotations

import collections
import csv
import itertools
import operator
import os
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Iterator, Sequence, TextIO

from triage.errors import BadInput, BadOption, InputError
from triage.io.decoding import (
    ENCODING_SAMPLE_BYTES,
    DecodingWarning,
    _check_encoding,
    _decode_error,
    _decode_head,
    _detect_encoding,
    _may_hold_nuls,
    _open_text,
    _read_head,
    _refuse_binary,
    _warn_replaced,
)
from triage.io.delimited import (
    LONG_RECORD_LINES,
    _check_delimiter,
    _delimited_columns,
    _dialect,
    _guess_delimiter,
    _read_header,
)
from triage.io.formats import _FORMATS_BY_SUFFIX, WARN_LIMIT, _show
from triage.io.jsonl import _json_cell, _jsonl_columns, _jsonl_records

# The longest message analysed: a pasted document of a few pages is a message, a message of
# megabytes is not one (analysing it costs about a hundred bytes of memory a character). A
# longer one is a bad row: an error naming it, or skipped under --on-bad-lines skip/warn.
MAX_MESSAGE_CHARS = 2_000_000


def _too_long(text: str) -> str:
    return (f"a message of {len(text):,} characters, more than the {MAX_MESSAGE_CHARS:,} "
            "that sms-triage analyses (split it, or remove it)")


_ON_BAD_LINES = ("error", "skip", "warn")


class BadLineWarning(UserWarning):
    """A row was skipped under on_bad_lines="warn"."""


class _DefaultColumn(str):
    """Marks the *default* id column: used when present, silently absent otherwise."""

    __slots__ = ()


#: Default of ``open_messages(id_column=...)``: use an "id" column if there is one, else
#: row numbers. Any other string (even a plain "id") must exist; None ignores ids.
#: A CLI whose --id-column defaults to None should pass
#: ``id_column=DEFAULT_ID_COLUMN if opt is None else opt``.
DEFAULT_ID_COLUMN = _DefaultColumn("id")


@dataclass(frozen=True)
class Message:
    """One record of an input table."""

    line: int  # 1-based physical line where the record starts (header = line 1)
    id: str  # value of the id column (surrounding whitespace stripped), or the row number
    text: str  # the message exactly as in the file; '' only when the cell is missing
    fields: dict[str, str] = field(hash=False)  # the whole row, by column name


# Messages are built by the million: setting __dict__ in one call is about 3x faster
# than the frozen dataclass __init__ (which goes through object.__setattr__ per field).
_new_object = object.__new__


_set_attribute = object.__setattr__


def _message(line: int, id_: str, text: str, fields: dict[str, str]) -> Message:
    message = _new_object(Message)
    _set_attribute(message, "__dict__", {"line": line, "id": id_, "text": text, "fields": fields})
    return message


class MessageTable:
    """A validated, lazily read table of messages; iterate it (several times if needed).

    After a complete iteration, ``skipped`` lists the line numbers of the rows skipped
    under on_bad_lines="skip"/"warn" and ``nul_bytes`` counts the NUL characters removed.
    Errors that can only be seen by reading the whole file (undecodable bytes, ragged rows
    far down) are raised during iteration, so write outputs through ``atomic_output``.
    """

    def __init__(
        self,
        *,
        path: Path,
        display: str,
        format: str,
        encoding: str,
        delimiter: str | None,
        columns: list[str],
        text_column: str,
        id_column: str | None,
        on_bad_lines: str,
        errors: str = "strict",
    ) -> None:
        self.path = path
        self.format = format
        self.encoding = encoding
        self.errors = errors  # "replace" for UTF-8 with a few bad sequences (shown as U+FFFD)
        self.delimiter = delimiter
        self.columns = columns
        self.text_column = text_column
        self.id_column = id_column
        self.on_bad_lines = on_bad_lines
        self.skipped: list[int] = []
        self.nul_bytes = 0
        self._display = display

    def __repr__(self) -> str:
        return (
            f"MessageTable({self._display!r}, format={self.format!r}, encoding={self.encoding!r}, "
            f"delimiter={self.delimiter!r}, columns={self.columns!r})"
        )

    def __iter__(self) -> Iterator[Message]:
        return self._read(pairs=False)

    def chunks(self, size: int = 10_000) -> Iterator[list[Message]]:
        """Lists of at most `size` messages, read lazily (memory bounded by `size`)."""
        return _batches(iter(self), size)

    def pairs(self, size: int = 10_000, characters: int | None = None) -> Iterator[list[tuple[str, str]]]:
        """Lists of at most `size` (id, text) pairs: what classifying needs of a row, read
        as chunks() reads Messages (same checks, same skipped rows) at a third of the cost. With
        `characters`, a list whose texts hold more characters than that is cut into equal parts
        that hold about that many each: a corpus of long messages comes in shorter lists."""
        batches = _batches(self._read(pairs=True), size)
        return batches if characters is None else _within(batches, characters)

    def _read(self, pairs: bool) -> Iterator:
        """Messages, or (id, text) pairs with `pairs`; the skipped rows and NULs of this read."""
        self.skipped = []
        self.replaced_lines: list[int] = []
        self.nul_bytes = 0
        if self.format == "jsonl":
            messages = self._iter_jsonl()
            return ((m.id, m.text) for m in messages) if pairs else messages
        return self._iter_delimited(pairs=pairs)

    def column(self, name: str) -> list[str]:
        """All values of one column (for small files: labels, spans)."""
        if name not in self.columns:
            raise BadInput(_missing_column_message(name, self._display, self.columns))
        return [message.fields.get(name, "") for message in self]

    # -- internals

    def _open_text(self, newline: str) -> TextIO:
        return _open_text(self.path, self._display, self.encoding, newline, self.errors)

    def _strip_nuls(self, lines: Iterable[str]) -> Iterable[str]:
        # csv mangles NULs and they are never part of a message: drop them, but count them
        # so that the caller can warn (they usually mean a binary or UTF-16 file).
        if not _may_hold_nuls(self.path, self.encoding):
            return lines  # read straight: a step per line less
        return self._without_nuls(lines)

    def _without_nuls(self, lines: Iterable[str]) -> Iterator[str]:
        for line in lines:
            if "\x00" in line:
                self.nul_bytes += line.count("\x00")
                line = line.replace("\x00", "")
            yield line

    def _bad_line(self, line: int, reason: str) -> None:
        if self.on_bad_lines == "error":
            raise BadInput(
                f"{self._display}: line {line}: {reason} (use --on-bad-lines skip to skip such rows)"
            )
        self.skipped.append(line)
        if self.on_bad_lines == "warn" and len(self.skipped) <= WARN_LIMIT:
            warnings.warn(f"{self._display}: line {line}: {reason}; row skipped", BadLineWarning, stacklevel=3)

    def _replaced(self, line: int) -> None:
        self.replaced_lines.append(line)
        if len(self.replaced_lines) <= WARN_LIMIT:
            warnings.warn(f"{self._display}: line {line}: a lone UTF-16 surrogate escape (not a character) "
                          "was replaced by \ufffd", DecodingWarning, stacklevel=3)

    def _finish_warnings(self) -> None:
        if self.on_bad_lines == "warn" and len(self.skipped) > WARN_LIMIT:
            warnings.warn(
                f"{self._display}: {len(self.skipped)} bad rows skipped in total "
                f"(first at lines {', '.join(map(str, self.skipped[:WARN_LIMIT]))})",
                BadLineWarning,
                stacklevel=3,
            )

    def _iter_delimited(self, pairs: bool = False) -> Iterator:
        """Messages, or (id, text) pairs with `pairs`."""
        columns = self.columns
        n_columns = len(columns)
        text_index = columns.index(self.text_column)
        id_index = columns.index(self.id_column) if self.id_column is not None else None
        warned_long = False
        with self._open_text(newline="") as handle:
            reader = csv.reader(self._strip_nuls(handle), **_dialect(self.delimiter))
            try:
                _read_header(reader)
                row_number = 0
                end = reader.line_num
                for row in reader:
                    start = end + 1
                    end = reader.line_num
                    n_fields = len(row)
                    if n_fields != n_columns:
                        if n_fields == 0 or (n_fields == 1 and n_columns > 1 and row[0].isspace()):
                            continue  # blank line
                        if n_fields > n_columns:
                            self._bad_line(start, f"{n_fields} fields, header has {n_columns}")
                            continue
                        row += [""] * (n_columns - n_fields)  # short row: missing cells are ''
                    if n_columns > 1 and not row[text_index] and not any(row):
                        continue  # an all-empty row (';;;' exported from a spreadsheet)
                    if len(row[text_index]) > MAX_MESSAGE_CHARS:
                        self._bad_line(start, _too_long(row[text_index]))
                        continue
                    if end - start >= LONG_RECORD_LINES and not warned_long:
                        warned_long = True
                        warnings.warn(
                            f"{self._display}: line {start}: one record spans {end - start + 1} lines; "
                            "check for an unbalanced double quote",
                            BadLineWarning,
                            stacklevel=2,
                        )
                    row_number += 1
                    ident = row[id_index].strip() if id_index is not None else str(row_number)
                    if pairs:
                        yield ident, row[text_index]
                    else:
                        yield _message(start, ident, row[text_index], dict(zip(columns, row)))
            except UnicodeDecodeError:
                raise _decode_error(self.path, self._display, self.encoding) from None
            except csv.Error as err:
                raise BadInput(f"{self._display}: line {reader.line_num}: {err}") from None
        self._finish_warnings()

    def _iter_jsonl(self) -> Iterator[Message]:
        columns = self.columns
        text_column = self.text_column
        id_column = self.id_column
        with self._open_text(newline="\n") as handle:
            try:
                row_number = 0
                for line, record in _jsonl_records(self._strip_nuls(handle), self._bad_line, self._replaced):
                    fields = dict.fromkeys(columns, "")
                    fields.update(record)
                    for key, value in record.items():
                        if type(value) is not str:  # most values are strings already
                            fields[key] = _json_cell(value)
                    if len(fields.get(text_column, "")) > MAX_MESSAGE_CHARS:
                        self._bad_line(line, _too_long(fields[text_column]))
                        continue
                    row_number += 1
                    yield _message(
                        line,
                        fields.get(id_column, "").strip() if id_column is not None else str(row_number),
                        fields.get(text_column, ""),
                        fields,
                    )
            except UnicodeDecodeError:
                raise _decode_error(self.path, self._display, self.encoding) from None
        self._finish_warnings()


class Records:
    """Messages held in memory, as a header and rows of strings: what the Python API makes of a
    DataFrame (triage.io.frames). `open_messages` reads them as it reads a file, with the same
    checks of columns and ids; their rows are numbered from 1 where a file's lines would be."""

    def __init__(self, columns: Sequence[str], rows: Sequence[Sequence[str]], display: str = "the DataFrame"):
        self.columns = list(columns)
        self.rows = rows
        self.display = display

    def __len__(self) -> int:
        return len(self.rows)

    def __repr__(self) -> str:
        return f"Records({self.display!r}, columns={self.columns!r}, rows={len(self.rows):,})"


class MemoryTable(MessageTable):
    """A MessageTable over Records: every row is a message (none is blank or ragged)."""

    def __init__(self, records: Records, **settings) -> None:
        super().__init__(path=None, display=records.display, format="memory", encoding="utf-8", delimiter=None,
                         **settings)
        self.records = records

    def __repr__(self) -> str:
        return f"MemoryTable({self.records!r})"

    def _read(self, pairs: bool) -> Iterator:
        self.skipped, self.replaced_lines, self.nul_bytes = [], [], 0
        columns = self.columns
        text_index = columns.index(self.text_column)
        id_index = columns.index(self.id_column) if self.id_column is not None else None
        for number, row in enumerate(self.records.rows, 1):
            if len(row[text_index]) > MAX_MESSAGE_CHARS:
                self._bad_line(number, _too_long(row[text_index]))
                continue
            ident = row[id_index].strip() if id_index is not None else str(number)
            if pairs:
                yield ident, row[text_index]
            else:
                yield _message(number, ident, row[text_index], dict(zip(columns, row)))


def source_name(source: "str | os.PathLike[str] | Records") -> str:
    """How a source of messages is named in messages and reports: its path, or what holds it."""
    return source.display if isinstance(source, Records) else os.fspath(source)


def _open_records(records: Records, text_column: str, id_column: str | None, required_columns: Sequence[str],
                  on_bad_lines: str) -> MemoryTable:
    display = records.display
    explicit_id = id_column is not None and not isinstance(id_column, _DefaultColumn)
    wanted = [text_column, *required_columns] + ([id_column] if explicit_id else [])
    for name in wanted:
        if name not in records.columns:
            raise BadInput(_missing_column_message(name, display, records.columns))
    columns = _dedupe_columns(records.columns, display, important=wanted + ([id_column] if id_column else []))
    if id_column is not None and id_column not in columns:
        id_column = None
    return MemoryTable(records, columns=columns, text_column=text_column,
                       id_column=str(id_column) if id_column is not None else None, on_bad_lines=on_bad_lines)


def _batches(items: Iterator, size: int) -> Iterator[list]:
    if size < 1:
        raise ValueError(f"chunk size must be at least 1, not {size}")
    while batch := list(itertools.islice(items, size)):
        yield batch


def _within(batches: Iterator[list[tuple[str, str]]], characters: int) -> Iterator[list[tuple[str, str]]]:
    """Each list of (id, text) pairs, cut into as many parts of equal length as its texts hold
    `characters` characters (rounded up), in order."""
    if characters < 1:
        raise ValueError(f"a chunk's characters must be at least 1, not {characters}")
    for batch in batches:
        parts = min(len(batch), -(-sum(map(len, map(operator.itemgetter(1), batch))) // characters))
        if parts <= 1:
            yield batch
            continue
        step = -(-len(batch) // parts)
        for start in range(0, len(batch), step):
            yield batch[start:start + step]


def open_messages(
    path: str | os.PathLike[str],
    *,
    text_column: str = "text",
    id_column: str | None = DEFAULT_ID_COLUMN,
    required_columns: Sequence[str] = (),
    encoding: str | None = None,
    delimiter: str | None = None,
    on_bad_lines: str = "error",
) -> MessageTable:
    """Open a table of messages (CSV, TSV or JSON Lines) and validate it eagerly.

    Checks, before anything is written: the file exists, is a regular non-empty file with
    a header, the first MiB decodes, `text_column` and every `required_columns` exist, and
    an explicitly named `id_column` exists (the default "id" may be absent: row numbers are
    used then; None always uses row numbers). `encoding` None detects UTF-8 (with or
    without BOM), UTF-16/32 with a BOM, else cp1252 (latin-1 if even cp1252 fails).
    `delimiter` None means tab for .tsv/.tab, else guessed among , ; tab | from the header
    (the line holding `text_column`) and csv.Sniffer. `on_bad_lines` is "error", "skip" or
    "warn" for rows with more fields than the header (CSV/TSV) or lines that are not
    JSON objects (JSONL), and for messages longer than MAX_MESSAGE_CHARS (2,000,000
    characters), which are not analysed. A .xlsx spreadsheet is read through a private CSV copy of its first
    sheet (triage.io.spreadsheets), removed when the table is no longer used. `path` may also be
    Records (messages in memory), checked the same way.
    """
    if isinstance(path, Records):
        return _open_records(path, text_column, id_column, required_columns, on_bad_lines)
    if Path(path).suffix.lower() == ".xlsx" and Path(path).is_file():
        from triage.io.spreadsheets import as_csv  # openpyxl only when a workbook is read

        copy, cleanup = as_csv(path)
        try:
            table = open_messages(copy, text_column=text_column, id_column=id_column,
                                  required_columns=required_columns, encoding="utf-8", delimiter=",",
                                  on_bad_lines=on_bad_lines)
        except InputError as err:  # the error names the user's workbook, and the copy is gone
            cleanup()
            raise type(err)(str(err).replace(copy, os.fspath(path))) from None
        except BaseException:
            cleanup()
            raise
        table._display = os.fspath(path)  # errors met while reading rows name the workbook too
        import weakref

        weakref.finalize(table, cleanup)
        return table
    display = os.fspath(path)
    path = Path(path)
    if on_bad_lines not in _ON_BAD_LINES:
        raise BadOption(f"on-bad-lines must be one of {', '.join(_ON_BAD_LINES)}, not {on_bad_lines!r}")
    explicit_id = id_column is not None and not isinstance(id_column, _DefaultColumn)

    head = _read_head(path, display)
    suffix = path.suffix.lower()
    _refuse_binary(head, suffix, display)

    errors = "strict"
    if encoding is None:
        encoding, errors = _detect_encoding(head, complete=len(head) < ENCODING_SAMPLE_BYTES)
        if errors != "strict":
            _warn_replaced(path, display)
    else:
        encoding = _check_encoding(encoding, head, display)
    sample = _decode_head(head, encoding, path, display, errors)
    if not sample.lstrip("\ufeff \t\r\n\x00"):
        raise BadInput(f"{display} has no header (only blank lines)")

    format = _FORMATS_BY_SUFFIX.get(suffix)
    if format == "jsonl" or (format is None and sample.lstrip("\ufeff \t\r\n").startswith("{")):
        if sample.lstrip("\ufeff \t\r\n").startswith("["):
            raise BadInput(f"{display} is a JSON array; convert it to JSON Lines (one object per line)")
        format, delimiter = "jsonl", None
        columns = _jsonl_columns(path, display, encoding, on_bad_lines, errors)
    else:
        if delimiter is not None:
            delimiter = _check_delimiter(delimiter)
        elif format == "tsv":
            delimiter = "\t"
        else:
            delimiter = _guess_delimiter(sample, text_column)
        if format is None:  # .txt and unknown extensions: named after what they hold
            format = "tsv" if delimiter == "\t" else "csv"
        columns = _delimited_columns(path, display, encoding, delimiter, errors)

    wanted = [text_column, *required_columns] + ([id_column] if explicit_id else [])
    for name in wanted:
        if name not in columns:
            raise BadInput(_missing_column_message(name, display, columns, hint=name == text_column))
    columns = _dedupe_columns(columns, display, important=wanted + ([id_column] if id_column else []))
    if id_column is not None and id_column not in columns:
        id_column = None  # the default "id" column is absent: row numbers
    return MessageTable(
        path=path,
        display=display,
        format=format,
        encoding=encoding,
        delimiter=delimiter,
        columns=columns,
        text_column=text_column,
        id_column=str(id_column) if id_column is not None else None,
        on_bad_lines=on_bad_lines,
        errors=errors,
    )


def _dedupe_columns(columns: list[str], display: str, important: Sequence[str]) -> list[str]:
    """Empty names become "Unnamed: i" and repeats "name.1" (as pandas does), except that a
    repeated column the command relies on is ambiguous, hence an error."""
    counts = collections.Counter(columns)
    for name in dict.fromkeys(important):
        if counts[name] > 1:
            raise BadInput(f"{display}: column {name!r} appears {counts[name]} times in the header")
    seen = set(columns)
    result: list[str] = []
    used: set[str] = set()
    next_suffix: dict[str, int] = {}  # where the search for a free "name.N" resumes: linear, not quadratic
    for index, name in enumerate(columns):
        if not name:
            name = f"Unnamed: {index}"
        if name in used:
            suffix = next_suffix.get(name, 1)
            while f"{name}.{suffix}" in used or f"{name}.{suffix}" in seen:
                suffix += 1
            next_suffix[name] = suffix + 1
            name = f"{name}.{suffix}"
        used.add(name)
        result.append(name)
    return result


def _missing_column_message(name: str, display: str, columns: Sequence[str], hint: bool = False) -> str:
    shown = [_show(c) for c in columns[:20]]
    if len(columns) > 20:
        shown.append(f"... ({len(columns)} columns)")
    found = ", ".join(shown) if shown else "none"
    advice = " (use --text-column)" if hint else ""
    return f"no column {name!r} in {display}; columns found: {found}{advice}"


@dataclass
class ReadOptions:
    """How to read an input table (the CLI's shared input options)."""

    text_column: str = "text"
    id_column: str | None = DEFAULT_ID_COLUMN
    label_column: str = "label"
    encoding: str | None = None
    delimiter: str | None = None
    on_bad_lines: str = "error"
    spans_column: str = "spans"  # the gold spans [[start, end, TYPE], ...] of an annotated file

    def open(self, path: os.PathLike | str, *, require_label: bool = False) -> MessageTable:
        return open_messages(
            path,
            text_column=self.text_column,
            id_column=self.id_column,
            required_columns=(self.label_column,) if require_label else (),
            encoding=self.encoding,
            delimiter=self.delimiter,
            on_bad_lines=self.on_bad_lines,
        )


def duplicate_ids(messages: Iterable[Message]) -> dict[str, list[int]]:
    """id -> lines where it occurs, only for ids seen more than once (memory: one int per id)."""
    seen = RepeatedIds()
    for message in messages:
        seen.add(message)
    return seen.repeated


class RepeatedIds:
    """The ids seen more than once among the messages `add`ed, as duplicate_ids gives them
    (`repeated`), for a pass over the messages that does something else too."""

    def __init__(self) -> None:
        self._first_line: dict[str, int] = {}
        self.repeated: dict[str, list[int]] = {}

    def add(self, message: Message) -> None:
        previous = self._first_line.setdefault(message.id, message.line)
        if previous != message.line:
            self.repeated.setdefault(message.id, [previous]).append(message.line)
