"""Spreadsheets, where research teams read and annotate corpora: .xlsx written and read with
openpyxl, atomically and privately, and the formula-looking cells of every export meant for a
spreadsheet (CSV too) neutralised."""

from __future__ import annotations

import io as stdio
import os
import re
from collections.abc import Sequence

from triage.errors import BadInput
from triage.io import outputs

# A trigger, possibly after spaces or line breaks: spreadsheets skip those before a formula.
_FORMULA = re.compile(r"[ \n\r]*[=+\-@\t\r]")
_QUOTED_TRIGGER = re.compile(r"'+[ \n\r]*[=+\-@\t\r]")


def neutralise_formula(value: str) -> str:
    """Prefix a cell that a spreadsheet would run as a formula with a single quote.

    OWASP's advice against CSV injection: cells starting with = + - @ tab or carriage
    return get a leading ' so that Excel/LibreOffice show them as text. This CHANGES the
    cell, so it is only for expert-queue exports opened in a spreadsheet, never for data
    files the tool reads back as data. `restore_formula` undoes it exactly (`queue apply`
    must call it on every cell it reads from an exported queue): to keep the round trip
    exact, a cell already made of quotes followed by a trigger ("'=x") gets one quote more.
    """
    if _FORMULA.match(value) or _QUOTED_TRIGGER.match(value):
        return "'" + value
    return value


def restore_formula(value: str) -> str:
    """Inverse of neutralise_formula: drop one leading ' when quotes then a trigger follow."""
    if _QUOTED_TRIGGER.match(value):
        return value[1:]
    return value


# What a worksheet cell cannot hold as it is: the control characters XML 1.0 refuses, U+FFFE,
# U+FFFF and lone surrogates, and the carriage return (XML reads it back as a line feed). OOXML
# writes them as _xHHHH_, and an underscore that would start such a sequence as _x005F_; Excel
# and LibreOffice show the characters, and read_xlsx gives them back.
_UNWRITABLE = re.compile("[\x00-\x08\x0b\x0c\x0d\x0e-\x1f\ufffe\uffff\ud800-\udfff]|_(?=x[0-9A-Fa-f]{4}_)")
_ESCAPED = re.compile("_x([0-9A-Fa-f]{4})_")


def escape_cell(value: str) -> str:
    """A text as an OOXML cell string holds it (_xHHHH_ for what a worksheet cannot hold)."""
    return _UNWRITABLE.sub(lambda m: f"_x{ord(m.group()):04X}_", value)


def unescape_cell(value: str) -> str:
    """Inverse of escape_cell: each _xHHHH_ is the character HHHH."""
    if "_x" not in value:
        return value
    return _ESCAPED.sub(lambda m: chr(int(m.group(1), 16)), value)


def _text_cells(worksheet, values: Sequence[str]) -> list:
    """Cells that hold `values` as text: escaped, and typed as strings (a text starting with
    '=' stays text, never a formula)."""
    from openpyxl.cell import WriteOnlyCell

    cells = []
    for value in values:
        cell = WriteOnlyCell(worksheet, escape_cell(value))
        cell.data_type = "s"
        cells.append(cell)
    return cells


def _save_workbook(target, columns: Sequence[str], rows: Sequence[Sequence[str]], sheet: str, neutralise: bool) -> None:
    """Write a workbook of one sheet on `target` (a binary file object): a header row, then the
    rows, every cell as text (never a formula), any text kept (escape_cell). With `neutralise`
    (an expert's queue, read back by `queue apply`) formula-looking cells get neutralise_formula's
    leading quote; without it (a released corpus) every text is written exactly. openpyxl's
    write-only sheet keeps its rows in a temporary file, and the zip is written straight onto
    `target`: the workbook is never held whole in memory."""
    from openpyxl import Workbook

    prepare = neutralise_formula if neutralise else (lambda value: value)
    book = Workbook(write_only=True)
    worksheet = book.create_sheet(sheet)
    worksheet.append(_text_cells(worksheet, [prepare(str(c)) for c in columns]))
    for row in rows:
        worksheet.append(_text_cells(worksheet, [prepare("" if v is None else str(v)) for v in row]))
    book.save(target)


def xlsx_bytes(columns: Sequence[str], rows: Sequence[Sequence[str]], sheet: str = "corpus", *,
               neutralise: bool = True) -> bytes:
    """A workbook of one sheet as bytes (see _save_workbook)."""
    buffer = stdio.BytesIO()
    _save_workbook(buffer, columns, rows, sheet, neutralise)
    return buffer.getvalue()


def write_into(handle, columns: Sequence[str], rows: Sequence[Sequence[str]], sheet: str = "corpus", *,
               neutralise: bool = True) -> None:
    """Write a workbook on a text handle of outputs.atomic_output, through its byte buffer (see
    _save_workbook)."""
    handle.flush()
    _save_workbook(handle.buffer, columns, rows, sheet, neutralise)
    handle.buffer.flush()


def write_xlsx(path: str | os.PathLike[str], columns: Sequence[str], rows: Sequence[Sequence[str]], *,
               force: bool = False, protect=(), sheet: str = "corpus") -> None:
    """A workbook of the rows with every text exactly as given (a released corpus keeps its
    texts: a cell written as a string is never a formula, so nothing is neutralised)."""
    with outputs.atomic_output(path, force=force, protect=protect) as handle:
        write_into(handle, columns, rows, sheet, neutralise=False)


# A workbook is read whole into memory: what one may hold, checked before it is parsed (a few
# hundred kilobytes of zip can hold tens of millions of cells). A full sheet of Excel is
# 1,048,576 rows; a corpus of a million messages with a few columns fits.
MAX_XLSX_PART_BYTES = 512 * 2**20  # uncompressed bytes of any part (the shared strings, a sheet)
MAX_XLSX_STRINGS = 5_000_000  # shared strings (the count the workbook declares)
MAX_XLSX_CELLS = 20_000_000  # cells of the first sheet (its declared dimension, then as read)
_COUNT = re.compile(rb'\b(?:uniqueCount|count)="(\d+)"')


def _too_big(path, problem: str) -> BadInput:
    return BadInput(f"{path}: {problem}; sms-triage reads workbooks of up to {MAX_XLSX_CELLS:,} cells "
                    f"and {MAX_XLSX_PART_BYTES // 2**20} MB of text: export it as CSV UTF-8")


def check_workbook_size(path: str | os.PathLike[str]) -> None:
    """Refuse, before parsing it, a workbook whose parts or shared strings pass the limits above
    (their sizes and counts are read from the zip's directory and the first bytes of
    xl/sharedStrings.xml). A file that is no zip is left to the reader's own error."""
    import zipfile

    try:
        archive = zipfile.ZipFile(path)
    except (OSError, zipfile.BadZipFile, ValueError):
        return
    with archive:
        for info in archive.infolist():
            if info.file_size > MAX_XLSX_PART_BYTES:
                raise _too_big(path, f"its part {info.filename} holds {info.file_size / 2**20:,.0f} MB once unpacked")
        try:
            strings = archive.open("xl/sharedStrings.xml")
        except KeyError:
            return
        except Exception:  # damaged: the reader says so
            return
        with strings:
            try:
                count = _shared_strings(strings)
            except Exception:  # damaged: the reader says so
                return
        if count > MAX_XLSX_STRINGS:
            raise _too_big(path, f"it holds {count:,} shared strings or more (at most {MAX_XLSX_STRINGS:,})")


_SST = re.compile(rb"<(?:\w{1,10}:)?sst\b[^>]*>")
_SI = re.compile(rb"<(?:\w{1,10}:)?si[\s/>]")
_SI_LONGEST = 16  # bytes: no match of _SI is longer


def _shared_strings(strings) -> int:
    """The shared strings of xl/sharedStrings.xml: the count its root declares when that passes
    the limit, else its <si> elements counted in 1 MiB chunks (bounded memory, whatever it declares)."""
    head = strings.read(2**20)
    root = _SST.search(head)
    declared = [int(n) for n in _COUNT.findall(root.group())] if root else []
    if declared and max(declared) > MAX_XLSX_STRINGS:
        return max(declared)
    count, data = 0, head
    while True:
        chunk = strings.read(2**20)
        if not chunk:
            return count + len(_SI.findall(data))
        data += chunk
        cut = len(data) - _SI_LONGEST  # a match starting in the last bytes is counted with the next chunk
        count += sum(1 for m in _SI.finditer(data) if m.start() < cut)
        if count > MAX_XLSX_STRINGS:
            return count
        data = data[cut:]


def _sheet_rows(worksheet, path) -> list[list[str]]:
    """The rows of a sheet as text, refused past MAX_XLSX_CELLS cells (declared or read)."""
    rows_declared, columns_declared = worksheet.max_row or 0, worksheet.max_column or 0
    if rows_declared * columns_declared > MAX_XLSX_CELLS:
        raise _too_big(path, f"its first sheet spans {rows_declared:,} rows by {columns_declared:,} columns")
    rows, cells = [], 0
    for row in worksheet.iter_rows(values_only=True):
        cells += len(row)
        if cells > MAX_XLSX_CELLS:
            raise _too_big(path, f"its first sheet holds more than {MAX_XLSX_CELLS:,} cells")
        rows.append(["" if v is None else unescape_cell(str(v)) for v in row])
    return rows


def read_xlsx(path: str | os.PathLike[str]) -> tuple[list[str], list[list[str]]]:
    """The first visible sheet's header and rows, as text exactly as written (_xHHHH_ escapes
    decoded); hidden sheets are never read. The leading quote of a neutralised queue cell is kept:
    `queue apply` restores it, once. A workbook past the limits above is refused before it is
    parsed (check_workbook_size); a formula with no computed value stored (a workbook written by a
    program, never opened and saved in a spreadsheet), or an empty one, is refused: never read as an
    empty cell without a word."""
    from openpyxl import load_workbook

    check_workbook_size(path)
    try:
        book = load_workbook(path, read_only=True, data_only=True)
    except Exception as err:  # openpyxl raises many kinds on a damaged file
        raise BadInput(f"{path}: not a readable .xlsx spreadsheet ({type(err).__name__}); save it again "
                            "from your spreadsheet, or export it as CSV UTF-8") from None
    try:
        index = next((i for i, sheet in enumerate(book.worksheets)
                      if getattr(sheet, "sheet_state", "visible") == "visible"), None)
        if index is None:
            raise BadInput(f"{path}: every sheet is hidden; show the sheet of messages (or export it as CSV UTF-8)")
        rows = _sheet_rows(book.worksheets[index], path)
    finally:
        book.close()
    if not rows:
        raise BadInput(f"{path}: the first visible sheet is empty")
    if any(value == "" for row in rows for value in row):
        _refuse_uncomputed(path, index, rows)
    return rows[0], rows[1:]


def _refuse_uncomputed(path, index: int, rows: list[list[str]]) -> None:
    """Refuse a sheet whose empty-looking cells include formulas without a stored value: read as
    empty, their messages would be lost without a word."""
    from openpyxl import load_workbook

    book = load_workbook(path, read_only=True, data_only=False)
    try:
        found, first = 0, None
        for number, (row, read) in enumerate(zip(book.worksheets[index].iter_rows(values_only=True), rows), 1):
            for column, (value, shown) in enumerate(zip(row, read)):
                if shown == "" and isinstance(value, str) and value.startswith("="):
                    found += 1
                    first = first or (number, column)
    finally:
        book.close()
    if found:
        number, column = first
        name = rows[0][column] if number > 1 and column < len(rows[0]) and rows[0][column] else f"{column + 1}"
        raise BadInput(f"{path}: {found:,} cell{'s' if found > 1 else ''} of the sheet "
                       f"{'are formulas' if found > 1 else 'is a formula'} with no computed value stored, or an empty one "
                       f"(first: row {number:,}, column {name!r}), which would be read as empty; open and save the "
                       "workbook in a spreadsheet (or replace the formulas by their values), or export it as CSV UTF-8")


def as_csv(path: str | os.PathLike[str]):
    """A private CSV copy of a workbook's first sheet, for the readers of triage.io, and the function
    that removes it."""
    import csv
    import shutil
    import tempfile

    header, rows = read_xlsx(path)
    folder = tempfile.mkdtemp(prefix="sms-triage-xlsx-")  # 0700: the copy holds messages

    def cleanup() -> None:
        shutil.rmtree(folder, ignore_errors=True)

    copy = os.path.join(folder, os.path.basename(os.fspath(path))[:-5] + ".csv")
    try:
        with open(copy, "w", newline="", encoding="utf-8") as handle:
            csv.writer(handle).writerows([header, *rows])
    except OSError as err:  # a full temporary folder: no copy is left behind
        cleanup()
        raise BadInput(f"{path}: cannot make its private CSV copy in {tempfile.gettempdir()}: "
                       f"{err.strerror or err}") from None
    except BaseException:
        cleanup()
        raise
    return copy, cleanup
