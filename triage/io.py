"""The corpus formats: reading messages from CSV, TSV, JSON Lines (and workbooks), and
writing rows of results in those formats.

Corpora arrive as spreadsheets exported by hand, so reading is forgiving about what
spreadsheets produce (encodings, delimiters, BOMs, Windows line endings, quoted newlines,
stray NUL bytes, empty trailing rows) and strict about what would silently corrupt the
data (rows with too many fields, undecodable bytes, missing columns): those raise
``InputError`` with a one-line message naming the file and the line.

Rows are written on a handle of ``triage.output.atomic_output``, the one writer, which
never damages the user's files.

Standard library only, on purpose: ``triage classify`` must start in under 0.5 s
(importing pandas alone costs that) and stream 10**7 messages in bounded memory.
"""

from __future__ import annotations

import codecs
import collections
import contextlib
import csv
import io
import itertools
import json
import os
import re
import stat
import sys
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Mapping, Sequence, TextIO

from triage.errors import (
    BadInput,
    BadModel,
    BadOption,
    InputError,
    OutputExists,
    OutputRefused,
)
from triage.spreadsheets import neutralise_formula, restore_formula

__all__ = [
    "DEFAULT_ID_COLUMN",
    "BadInput",
    "BadLineWarning",
    "BadModel",
    "BadOption",
    "InputError",
    "Message",
    "MessageTable",
    "OutputExists",
    "OutputRefused",
    "TableWriter",
    "duplicate_ids",
    "format_for",
    "neutralise_formula",
    "open_messages",
    "parse_json",
    "parse_labels",
    "restore_formula",
]

# An SMS corpus may hold a pasted document (the tests use 1 MB); the csv module's default
# cap is 128 KiB. The cap stays finite so that an unbalanced quote makes one field fail
# at 64 Mi characters instead of swallowing a 10 GB file into memory.
FIELD_SIZE_LIMIT = 64 * 1024 * 1024
# The longest message analysed: a pasted document of a few pages is a message, a message of
# megabytes is not one (analysing it costs about a hundred bytes of memory a character). A
# longer one is a bad row: an error naming it, or skipped under --on-bad-lines skip/warn.
MAX_MESSAGE_CHARS = 2_000_000


def _too_long(text: str) -> str:
    return (f"a message of {len(text):,} characters, more than the {MAX_MESSAGE_CHARS:,} "
            "that sms-triage analyses (split it, or remove it)")
csv.field_size_limit(max(csv.field_size_limit(), FIELD_SIZE_LIMIT))

ENCODING_SAMPLE_BYTES = 1024 * 1024  # bytes looked at to choose an encoding
SNIFF_SAMPLE_CHARS = 64 * 1024  # characters looked at to choose a delimiter
JSONL_COLUMNS_SCAN = 1000  # JSONL records whose keys make up `columns`
CANDIDATE_DELIMITERS = (",", ";", "\t", "|")
WARN_LIMIT = 5  # individual bad-line warnings before a single summary
LONG_RECORD_LINES = 50  # a record spanning more lines probably hides an unbalanced quote

_FORMATS_BY_SUFFIX = {
    ".csv": "csv",
    ".tsv": "tsv",
    ".tab": "tsv",
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".json": "jsonl",  # accepted only if it really is JSON Lines (checked on open)
}
_WORKBOOK_SUFFIXES = {".xlsx", ".xlsm", ".xls", ".ods", ".numbers"}
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


# --------------------------------------------------------------------------- reading


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

    def pairs(self, size: int = 10_000) -> Iterator[list[tuple[str, str]]]:
        """Lists of at most `size` (id, text) pairs: what classifying needs of a row, read
        as chunks() reads Messages (same checks, same skipped rows) at a third of the cost."""
        return _batches(self._read(pairs=True), size)

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
    DataFrame (triage.frames). `open_messages` reads them as it reads a file, with the same
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
    sheet (triage.spreadsheets), removed when the table is no longer used. `path` may also be
    Records (messages in memory), checked the same way.
    """
    if isinstance(path, Records):
        return _open_records(path, text_column, id_column, required_columns, on_bad_lines)
    if Path(path).suffix.lower() == ".xlsx" and Path(path).is_file():
        from triage.spreadsheets import as_csv  # openpyxl only when a workbook is read

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


class DecodingWarning(UserWarning):
    """Bytes that are not UTF-8 in a UTF-8 file were replaced by U+FFFD."""


def _warn_replaced(path: Path, display: str) -> None:
    """Say which lines of a UTF-8 file hold bytes that are not UTF-8 (one pass, rare)."""
    lines: list[int] = []
    with open(path, "rb") as handle:
        for number, line in enumerate(handle, 1):
            try:
                line.decode("utf-8")
            except UnicodeDecodeError:
                lines.append(number)
    if lines:
        shown = ", ".join(map(str, lines[:WARN_LIMIT])) + (", ..." if len(lines) > WARN_LIMIT else "")
        s, verb = ("s", "hold") if len(lines) > 1 else ("", "holds")
        warnings.warn(f"{display}: read as UTF-8; {len(lines):,} line{s} ({shown}) {verb} bytes that are not "
                      "UTF-8, shown as \ufffd (give --encoding if the file is in another encoding)",
                      DecodingWarning, stacklevel=3)


def _read_head(path: Path, display: str) -> bytes:
    try:
        info = path.stat()
    except FileNotFoundError:
        raise BadInput(f"{display}: no such file") from None
    except OSError as err:
        raise BadInput(f"{display}: {err.strerror or err}") from None
    if stat.S_ISDIR(info.st_mode):
        raise BadInput(f"{display} is a folder, not a file")
    if not stat.S_ISREG(info.st_mode):
        raise BadInput(f"{display} is not a regular file")
    if info.st_size == 0:
        raise BadInput(f"{display} is empty")
    try:
        with open(path, "rb") as handle:
            return handle.read(ENCODING_SAMPLE_BYTES)
    except OSError as err:
        raise BadInput(f"{display}: {err.strerror or err}") from None


def _refuse_binary(head: bytes, suffix: str, display: str) -> None:
    """Spreadsheets and archives are common mistakes: say what to do instead of parsing noise."""
    if suffix in _WORKBOOK_SUFFIXES or head.startswith((b"PK\x03\x04", b"\xd0\xcf\x11\xe0")):
        raise BadInput(
            f"{display} is a spreadsheet workbook, not a text table; export it as CSV UTF-8 (or TSV) first"
        )
    if head.startswith(b"\x1f\x8b"):
        raise BadInput(f"{display} is gzip-compressed; decompress it first")


def _detect_encoding(head: bytes, *, complete: bool) -> tuple[str, str]:
    """(encoding, errors) decided on the evidence of the first MiB.

    A byte-order mark decides. Text in UTF-16 without one shows as a zero byte in every
    other position. Otherwise UTF-8 if the head decodes as UTF-8; if it does not, UTF-8
    all the same when most of its non-ASCII characters are valid UTF-8 sequences (a few
    bad bytes in a UTF-8 file: they are replaced by U+FFFD and reported, instead of
    reading every accent wrong), else cp1252 (latin-1 where even cp1252 fails).
    General detectors were tried and guess wrong on short French text (charset-normalizer
    calls cp1252 French cp1250, and UTF-8 with one bad byte iso8859-10).
    """
    if head.startswith(codecs.BOM_UTF8):
        return "utf-8-sig", "strict"
    if head.startswith((codecs.BOM_UTF32_LE, codecs.BOM_UTF32_BE)):  # before UTF-16: same prefix
        return "utf-32", "strict"
    if head.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):  # Excel's "Unicode text"
        return "utf-16", "strict"
    without_bom = _utf16_byte_order(head)
    if without_bom:
        return without_bom, "strict"
    try:
        # `complete` is False when the sample may end inside a multi-byte character.
        codecs.getincrementaldecoder("utf-8")().decode(head, final=complete)
        return "utf-8", "strict"
    except UnicodeDecodeError:
        pass
    valid, invalid = _utf8_evidence(head)
    if valid > invalid:
        return "utf-8", "replace"
    try:
        head.decode("cp1252")
        return "cp1252", "strict"
    except UnicodeDecodeError:  # 0x81, 0x8d, 0x8f, 0x90, 0x9d are undefined in cp1252
        return "latin-1", "strict"


_UTF8_SEQUENCE = re.compile(
    rb"[\xc2-\xdf][\x80-\xbf]|\xe0[\xa0-\xbf][\x80-\xbf]|[\xe1-\xec\xee\xef][\x80-\xbf]{2}"
    rb"|\xed[\x80-\x9f][\x80-\xbf]|\xf0[\x90-\xbf][\x80-\xbf]{2}|[\xf1-\xf3][\x80-\xbf]{3}|\xf4[\x80-\x8f][\x80-\xbf]{2}"
)
_NON_ASCII = re.compile(rb"[\x80-\xff]")


def _utf8_evidence(head: bytes) -> tuple[int, int]:
    """(valid multi-byte UTF-8 sequences, non-ASCII bytes outside them) in `head`."""
    sequences = _UTF8_SEQUENCE.findall(head)
    return len(sequences), len(_NON_ASCII.findall(head)) - sum(map(len, sequences))


def _utf16_byte_order(head: bytes) -> str | None:
    """utf-16-le or utf-16-be for UTF-16 text without a byte-order mark: mostly Latin
    text, so one byte of each pair is zero, always the same one."""
    sample = head[: 1 << 14]
    sample = sample[: len(sample) // 2 * 2]
    pairs = len(sample) // 2
    if pairs < 2:
        return None
    zeros_first, zeros_second = sample[0::2].count(0), sample[1::2].count(0)
    if zeros_second >= 0.3 * pairs and zeros_first <= 0.05 * pairs:
        order = "utf-16-le"
    elif zeros_first >= 0.3 * pairs and zeros_second <= 0.05 * pairs:
        order = "utf-16-be"
    else:
        return None
    try:
        codecs.getincrementaldecoder(order)().decode(sample, final=False)
    except UnicodeDecodeError:
        return None
    return order


def _check_encoding(encoding: str, head: bytes, display: str) -> str:
    try:
        info = codecs.lookup(encoding)
    except LookupError:
        raise BadOption(f"unknown encoding {encoding!r} (try utf-8, cp1252 or latin-1)") from None
    if not getattr(info, "_is_text_encoding", True):  # rot13, base64, zlib...
        raise BadOption(f"{encoding!r} is not a text encoding (try utf-8, cp1252 or latin-1)")
    if info.name in ("utf-16", "utf-32"):
        marks = (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE) if info.name == "utf-16" else (
            codecs.BOM_UTF32_LE, codecs.BOM_UTF32_BE)
        if not head.startswith(marks):  # Python would stop at the first line
            order = _utf16_byte_order(head) if info.name == "utf-16" else None
            if order is None:
                raise BadInput(f"{display} does not start with a {info.name.upper()} byte-order mark; "
                                 f"give the byte order: --encoding {info.name}-le or {info.name}-be")
            return order
    return encoding


def _decode_head(head: bytes, encoding: str, path: Path, display: str, errors: str = "strict") -> str:
    complete = len(head) < ENCODING_SAMPLE_BYTES
    try:
        text = codecs.getincrementaldecoder(encoding)(errors).decode(head, final=complete)
    except UnicodeError:
        raise _decode_error(path, display, encoding) from None
    return text.lstrip("\ufeff")  # a BOM left by an explicit encoding="utf-8"


def _may_hold_nuls(path: Path, encoding: str) -> bool:
    """Whether the decoded text of a file may hold NUL characters: in the encodings that
    write NUL as one zero byte and no other character with one, only if the file holds a
    zero byte; in any other (UTF-16, UTF-32...), always."""
    if not codecs.lookup(encoding).name.startswith(("utf-8", "cp1252", "iso8859-", "ascii")):
        return True
    try:
        with open(path, "rb") as handle:
            return any(b"\0" in block for block in iter(lambda: handle.read(1 << 20), b""))
    except OSError:
        return True  # let the text reader report it


def _open_text(path: Path, display: str, encoding: str, newline: str, errors: str = "strict") -> TextIO:
    try:
        return open(path, encoding=encoding, errors=errors, newline=newline)
    except OSError as err:
        raise BadInput(f"{display}: {err.strerror or err}") from None


_ESCAPED_BYTES = re.compile("[\udc80-\udcff]+")


def _decode_error(path: Path, display: str, encoding: str) -> InputError:
    """Find the line of the first undecodable bytes (a rare path, so re-reading is fine)."""
    where, what = "", ""
    try:
        with open(path, encoding=encoding, errors="surrogateescape", newline="") as handle:
            for number, line in enumerate(handle, 1):  # same line splitting as csv's line_num
                found = _ESCAPED_BYTES.search(line)
                if found:
                    where = f"line {number}: "
                    what = " (" + bytes(ord(c) - 0xDC00 for c in found.group()[:8]).hex(" ") + ")"
                    break
    except (UnicodeDecodeError, OSError):
        pass  # e.g. UTF-16 errors cannot be escaped: report without a line number
    other = "utf-8" if encoding.lower().replace("_", "-") in ("cp1252", "latin-1", "iso-8859-1") else "cp1252"
    return BadInput(
        f"{display}: {where}bytes that are not valid {encoding}{what}; "
        f"use --encoding to give the file's encoding (e.g. --encoding {other})"
    )


def _dialect(delimiter: str | None) -> dict[str, Any]:
    # Always the double quote: csv.Sniffer takes French apostrophes (j'ai, c'est) for quotes.
    return {"delimiter": delimiter or ",", "quotechar": '"', "doublequote": True, "skipinitialspace": False, "strict": False}


def _check_delimiter(delimiter: str) -> str:
    if delimiter.lower() in ("\\t", "tab"):
        return "\t"
    if len(delimiter) != 1 or delimiter in "\"\r\n":
        raise BadOption(f"delimiter must be one character (such as , ; | or tab), not {delimiter!r}")
    return delimiter


def _first_record(text: str, delimiter: str) -> list[str]:
    reader = csv.reader(io.StringIO(text, newline=""), **_dialect(delimiter))
    try:
        for row in reader:
            if any(cell.strip() for cell in row):
                return row
    except csv.Error:
        pass
    return []


def _guess_delimiter(sample: str, text_column: str) -> str:
    if len(sample) > SNIFF_SAMPLE_CHARS:  # whole lines only, so that the sniffer sees no partial row
        cut = sample.rfind("\n", 0, SNIFF_SAMPLE_CHARS)
        sample = sample[: cut + 1] if cut > 0 else sample[:SNIFF_SAMPLE_CHARS]
    sample = sample.replace("\x00", "")
    headers = {d: [_clean_name(c) for c in _first_record(sample, d)] for d in CANDIDATE_DELIMITERS}
    # Strong hint: the delimiter that makes the text column appear in a multi-column header.
    hints = [d for d, names in headers.items() if len(names) > 1 and text_column in names]
    if len(hints) == 1:
        return hints[0]
    if not hints and all(len(names) <= 1 for names in headers.values()):
        # Single-column file: any delimiter splits the header into one field; pick the one
        # that also leaves the data rows whole (least likely to create ragged rows).
        def ragged(d: str) -> int:
            reader = csv.reader(io.StringIO(sample, newline=""), **_dialect(d))
            try:
                return sum(len(row) > 1 for row in reader)
            except csv.Error:
                return sys.maxsize

        return min(CANDIDATE_DELIMITERS, key=ragged)  # min keeps the first on ties: ','
    candidates = "".join(hints or CANDIDATE_DELIMITERS)
    try:
        guessed = csv.Sniffer().sniff(sample, delimiters=candidates).delimiter
    except csv.Error:
        guessed = ""
    if guessed in candidates and guessed:
        return guessed
    return "," if "," in candidates else candidates[0]


def _clean_name(name: str) -> str:
    return name.replace("\ufeff", "").strip()


def _read_header(reader: Iterator[list[str]]) -> list[str] | None:
    for row in reader:  # skips leading blank lines, as pandas does
        if any(cell.strip() for cell in row):
            return row
    return None


def _delimited_columns(path: Path, display: str, encoding: str, delimiter: str, errors: str) -> list[str]:
    with _open_text(path, display, encoding, "", errors) as handle:
        reader = csv.reader((line.replace("\x00", "") for line in handle), **_dialect(delimiter))
        try:
            header = _read_header(reader)
        except UnicodeDecodeError:
            raise _decode_error(path, display, encoding) from None
        except csv.Error as err:
            raise BadInput(f"{display}: line {reader.line_num}: {err}") from None
    if header is None:
        raise BadInput(f"{display} has no header (only blank lines)")
    return [_clean_name(name) for name in header]


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


def _show(value: str, limit: int = 40) -> str:
    """A cell as it can be shown on one line of an error message."""
    shown = value if len(value) <= limit else value[: limit - 1] + "…"
    return shown.encode("unicode_escape").decode("ascii") if not shown.isprintable() else shown


# ------------------------------------------------------------------------------ JSONL


MAX_JSON_DEPTH = 64  # nested lists/objects in one JSON value of a user's file (a span list needs 2)


class JSONTooDeep(ValueError):
    """A JSON value nested deeper than MAX_JSON_DEPTH (Python's decoder would overflow its stack)."""

    def __init__(self) -> None:
        super().__init__(f"JSON nested more than {MAX_JSON_DEPTH} levels deep")
        self.msg = str(self)


def parse_json(text: str, decode: Callable[[str], Any] = json.loads) -> Any:
    """The value of a JSON text from a user's file (a JSON Lines row, a spans or hidden cell).

    Raises ValueError for what is not JSON and its subclass JSONTooDeep for a value nested
    more than MAX_JSON_DEPTH levels deep (instead of a RecursionError from the decoder or from
    whatever walks the value later). Every parse of JSON that a user wrote goes through here.
    """
    try:
        value = decode(text)
    except RecursionError:
        raise JSONTooDeep() from None
    if isinstance(value, (list, dict)) and _too_deep(value):
        raise JSONTooDeep()
    return value


def _too_deep(value: list | dict) -> bool:
    stack = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > MAX_JSON_DEPTH:
            return True
        for child in node.values() if isinstance(node, dict) else node:
            if isinstance(child, (list, dict)):
                stack.append((child, depth + 1))
    return False


def _json_cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, (dict, list)):  # str() would give a Python repr, not JSON
        return json.dumps(value, ensure_ascii=False)
    return str(value)


class _DuplicateKey(ValueError):
    pass


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict:
    """A JSON object whose keys are unique: a repeated "text" must not silently keep the
    last one (a CSV with a repeated column is refused too)."""
    record = dict(pairs)
    if len(record) != len(pairs):
        seen: set[str] = set()
        repeated = next(key for key, _ in pairs if key in seen or seen.add(key))
        raise _DuplicateKey(f"key {_show(repeated)!r} appears twice in one object")
    return record


# JSON escapes that decode to what a message must not hold: NUL (dropped, as in CSV files)
# and lone UTF-16 surrogates (not text: replaced by U+FFFD, visibly).
_RISKY_ESCAPE = re.compile(r"\\u(?:0000|[dD][89a-fA-F])")
_SURROGATE = re.compile("[\ud800-\udfff]")


def _clean_json(value: Any) -> tuple[Any, bool]:
    """(value without NULs and with lone surrogates replaced, whether any was replaced)."""
    if isinstance(value, str):
        cleaned, replaced = _SURROGATE.subn("\ufffd", value.replace("\x00", ""))
        return cleaned, replaced > 0
    if isinstance(value, dict):
        items = [(_clean_json(k), _clean_json(v)) for k, v in value.items()]
        return {k: v for (k, _), (v, _) in items}, any(a or b for (_, a), (_, b) in items)
    if isinstance(value, list):
        items = [_clean_json(v) for v in value]
        return [v for v, _ in items], any(r for _, r in items)
    return value, False


def _jsonl_records(lines: Iterable[str], bad_line, replaced=None) -> Iterator[tuple[int, dict]]:
    """(line number, object) for each non-blank line; bad lines go to `bad_line`, and the
    numbers of lines whose lone surrogates were replaced to `replaced`."""
    decode = json.JSONDecoder(strict=False, object_pairs_hook=_unique_keys).decode  # raw tabs happen
    for number, line in enumerate(lines, 1):
        stripped = line.strip()
        if not stripped:
            continue
        try:
            record = parse_json(stripped, decode)
        except (_DuplicateKey, JSONTooDeep) as err:
            bad_line(number, str(err))
            continue
        except ValueError as err:
            bad_line(number, f"not valid JSON ({getattr(err, 'msg', err)} at column {getattr(err, 'colno', '?')})")
            continue
        if not isinstance(record, dict):
            bad_line(number, f"not a JSON object but a {type(record).__name__} (JSON Lines needs one object per line)")
            continue
        if "\\u" in stripped and _RISKY_ESCAPE.search(stripped):
            record, surrogates = _clean_json(record)
            if surrogates and replaced is not None:
                replaced(number)
        yield number, record


def _jsonl_columns(path: Path, display: str, encoding: str, on_bad_lines: str, errors: str) -> list[str]:
    def bad_line(number: int, reason: str) -> None:
        if on_bad_lines == "error":  # eager: the same error would come at iteration
            raise BadInput(f"{display}: line {number}: {reason} (use --on-bad-lines skip to skip such rows)")

    columns: dict[str, None] = {}
    with _open_text(path, display, encoding, "\n", errors) as handle:
        try:
            lines = (line.replace("\x00", "") for line in handle)
            for count, (_, record) in enumerate(_jsonl_records(lines, bad_line), 1):
                columns.update(dict.fromkeys(record))
                if count >= JSONL_COLUMNS_SCAN:
                    break
        except UnicodeDecodeError:
            raise _decode_error(path, display, encoding) from None
    return [_clean_name(name) if name.startswith("\ufeff") else name for name in columns]


# ---------------------------------------------------------------------- labels and ids

_LABELS = {"ta": "TA", "nta": "NTA", "1": "TA", "0": "NTA", "1.0": "TA", "0.0": "NTA", "true": "TA", "false": "NTA"}
ACCEPTED_LABELS = "TA, NTA, 1, 0, true, false, any case"



@dataclass
class ReadOptions:
    """How to read an input table (the CLI's shared input options)."""

    text_column: str = "text"
    id_column: str | None = DEFAULT_ID_COLUMN
    label_column: str = "label"
    encoding: str | None = None
    delimiter: str | None = None
    on_bad_lines: str = "error"

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


def parse_labels(values: Iterable[tuple[int, str]]) -> list[str]:
    """Map (line, raw label) pairs to "TA"/"NTA".

    Accepted, in any case and with surrounding whitespace: TA/NTA; 1/0 and true/false,
    where 1/true means TA (the positive class, "to anonymise"); 1.0/0.0 too, because
    pandas writes integer columns with a gap that way. yes/no are refused: whether "yes"
    answers "to anonymise?" or "anonymised already?" depends on who made the file.
    Every value is checked; the error lists the first 3 bad lines and the total.
    """
    labels: list[str] = []
    bad: list[tuple[int, str]] = []
    for line, raw in values:
        label = _LABELS.get((raw if isinstance(raw, str) else str(raw)).strip().lower())
        if label is None:
            bad.append((line, raw))
            label = ""
        labels.append(label)
    if bad:
        line, raw = bad[0]
        message = f"line {line}: label {_show(str(raw))!r} is not TA or NTA (accepted: {ACCEPTED_LABELS})"
        if len(bad) > 1:
            others = ", ".join(f"{n} ({_show(str(r))!r})" for n, r in bad[1:3])
            message += f"; also line{'s' if len(bad) > 2 else ''} {others}"
            message += f"; {len(bad)} bad labels in total"
        raise BadInput(message)
    return labels


def duplicate_ids(messages: Iterable[Message]) -> dict[str, list[int]]:
    """id -> lines where it occurs, only for ids seen more than once (memory: one int per id)."""
    first_line: dict[str, int] = {}
    repeated: dict[str, list[int]] = {}
    for message in messages:
        previous = first_line.setdefault(message.id, message.line)
        if previous != message.line:
            repeated.setdefault(message.id, [previous]).append(message.line)
    return repeated


# ---------------------------------------------------------------------------- writing


def format_for(path: str | os.PathLike[str]) -> str:
    """Output format for a path by its extension: "tsv", "jsonl", else "csv"."""
    suffix = Path(path).suffix.lower()
    if suffix in (".xlsx", ".xls", ".xlsm", ".ods"):  # never a CSV under a spreadsheet's name
        raise BadOption(f"{Path(path).name}: this command writes .csv, .tsv or .jsonl "
                         "(spreadsheets: `triage release ... -o corpus.xlsx` or `triage queue export -o queue.xlsx`)")
    return _FORMATS_BY_SUFFIX.get(suffix, "csv")


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

    def write_encoded(self, text: str, rows: int) -> None:
        """Write `rows` rows already encoded by `encode_cells` in this writer's format."""
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


def encode_cells(rows: Iterable[Sequence[Any]], columns: Sequence[str], format: str = "csv") -> str:
    """Rows (lists of cells in column order) as text in `format`, without a header: what a
    worker process sends back, for TableWriter.write_encoded in the process that writes."""
    buffer = io.StringIO()
    TableWriter(buffer, columns, format, header=False).write_cells(rows)
    return buffer.getvalue()


def encode_rows_located(rows: Sequence[Sequence[Any]], columns: Sequence[str], format: str = "csv") -> tuple[str, Any]:
    """encode_cells, and where each row starts in the text (character offsets, a numpy array
    of len(rows) + 1 ending with the text's length): what HeldChunks needs to rewrite a row."""
    import numpy as np

    buffer = io.StringIO()
    writer = TableWriter(buffer, columns, format, header=False)
    if format == "jsonl":
        dumps = json.JSONEncoder(ensure_ascii=False, default=str).encode
        lines = [dumps({c: _json_value(v) for c, v in zip(columns, cells)}) + "\n" for cells in rows]
        text, lengths = "".join(lines), map(len, lines)
    else:  # each writerow returns what the buffer's write returns: the characters of the row
        lengths = list(map(writer._writer.writerow, rows))
        text = buffer.getvalue()
    starts = np.zeros(len(rows) + 1, dtype=np.int64)
    np.cumsum(np.fromiter(lengths, dtype=np.int64, count=len(rows)), out=starts[1:])
    return text, starts


def _decode_rows(texts: Sequence[str], format: str) -> list[list[Any]]:
    """The cells of rows each encoded by encode_cells (the inverse of encoding them)."""
    if format == "jsonl":
        return [list(json.loads(text).values()) for text in texts]
    return list(csv.reader(texts, delimiter="\t" if format == "tsv" else ",", quotechar='"', doublequote=True))


# Chunks held back by HeldChunks stay in memory up to this many characters, then go to disk.
HELD_IN_MEMORY = 32 * 1024 * 1024


class HeldChunks:
    """The chunks of a table, held back until one cell of some rows can be set (exact expert
    budgets: which rows go to the expert is known only once every row has been ranked).

    Encoded chunks (with `row_at`, where each row starts) are held in a private scratch file
    beside the output (outputs.scratch_file: in memory while small, then on disk, unnamed,
    gone with the process); `release` copies them to the writer, re-encoding only the rows
    whose cell it sets. Rows kept in memory (a RowCollector) are written at once and set in
    place."""

    def __init__(self, writer: TableWriter | RowCollector, column: str, folder: Path | None = None) -> None:
        self.writer = writer
        self.at = writer.columns.index(column)
        self._chunks: list[tuple[int, Any]] = []  # (characters, where each row starts)
        self._scratch = None
        if not isinstance(writer, RowCollector):
            from triage import outputs

            self._scratch = outputs.scratch_file(folder if folder is not None else Path("."), HELD_IN_MEMORY)

    def write_chunk(self, chunk) -> None:
        """Hold a chunk (triage.classifier.ClassifiedChunk: encoded with `row_at`, or cells)."""
        if self._scratch is None:
            self.writer.write_chunk(chunk)
            return
        self._scratch.write(chunk.text)
        self._chunks.append((len(chunk.text), chunk.row_at))

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
        columns, format = self.writer.columns, self.writer.format
        first = 0
        self._scratch.seek(0)
        for size, row_at in self._chunks:
            text = self._scratch.read(size)
            count = len(row_at) - 1
            mine = rows[np.searchsorted(rows, first):np.searchsorted(rows, first + count)] - first
            if len(mine):  # the chosen rows decoded, set and encoded again, all at once
                starts, stops = row_at[mine].tolist(), row_at[mine + 1].tolist()
                rewritten = _decode_rows(list(map(text.__getitem__, map(slice, starts, stops))), format)
                for cells in rewritten:
                    replaced[cells[self.at]] += 1
                    cells[self.at] = value
                encoded, at = encode_rows_located(rewritten, columns, format)
                pieces = [text[: starts[0]]]
                for i, (stop, start) in enumerate(zip(stops, starts[1:] + [len(text)])):
                    pieces += [encoded[at[i]:at[i + 1]], text[stop:start]]
                text = "".join(pieces)
            self.writer.write_encoded(text, count)
            first += count
        self._scratch.close()
        return replaced


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
    writer (triage.outputs), or, when `output` is None, a RowCollector in memory."""
    if output is None:
        yield RowCollector(columns, extrasaction=extrasaction)
        return
    from triage import outputs

    with outputs.atomic_output(output, force=force, protect=protect) as handle:
        yield TableWriter(handle, columns, format=format_for(output), extrasaction=extrasaction)
