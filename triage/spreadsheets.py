"""Spreadsheets, where research teams read and annotate corpora: .xlsx written and read with
openpyxl, atomically and privately, and the formula-looking cells of every export meant for a
spreadsheet (CSV too) neutralised."""

from __future__ import annotations

import io as stdio
import os
import re
from collections.abc import Sequence

from triage import outputs
from triage.errors import BadInput

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


def xlsx_bytes(columns: Sequence[str], rows: Sequence[Sequence[str]], sheet: str = "corpus", *,
               neutralise: bool = True) -> bytes:
    """A workbook of one sheet: a header row, then the rows, every cell as text (never a
    formula), any text kept (escape_cell). With `neutralise` (an expert's queue, read back by
    `queue apply`) formula-looking cells get neutralise_formula's leading quote; without it
    (a released corpus) every text is written exactly."""
    from openpyxl import Workbook

    prepare = neutralise_formula if neutralise else (lambda value: value)
    book = Workbook(write_only=True)
    worksheet = book.create_sheet(sheet)
    worksheet.append(_text_cells(worksheet, [prepare(str(c)) for c in columns]))
    for row in rows:
        worksheet.append(_text_cells(worksheet, [prepare("" if v is None else str(v)) for v in row]))
    buffer = stdio.BytesIO()
    book.save(buffer)
    return buffer.getvalue()


def write_into(handle, columns: Sequence[str], rows: Sequence[Sequence[str]], sheet: str = "corpus", *,
               neutralise: bool = True) -> None:
    """Write a workbook on a text handle of outputs.atomic_output (through its byte buffer)."""
    handle.flush()
    handle.buffer.write(xlsx_bytes(columns, rows, sheet, neutralise=neutralise))


def write_xlsx(path: str | os.PathLike[str], columns: Sequence[str], rows: Sequence[Sequence[str]], *,
               force: bool = False, protect=(), sheet: str = "corpus") -> None:
    """A workbook of the rows with every text exactly as given (a released corpus keeps its
    texts: a cell written as a string is never a formula, so nothing is neutralised)."""
    with outputs.atomic_output(path, force=force, protect=protect) as handle:
        write_into(handle, columns, rows, sheet, neutralise=False)


def read_xlsx(path: str | os.PathLike[str]) -> tuple[list[str], list[list[str]]]:
    """The first sheet's header and rows, as text exactly as written (_xHHHH_ escapes decoded).
    The leading quote of a neutralised queue cell is kept: `queue apply` restores it, once."""
    from openpyxl import load_workbook

    try:
        book = load_workbook(path, read_only=True, data_only=True)
    except Exception as err:  # openpyxl raises many kinds on a damaged file
        raise BadInput(f"{path}: not a readable .xlsx spreadsheet ({type(err).__name__}); save it again "
                            "from your spreadsheet, or export it as CSV UTF-8") from None
    try:
        rows = [["" if v is None else unescape_cell(str(v)) for v in row] for row in book.worksheets[0].iter_rows(values_only=True)]
    finally:
        book.close()
    if not rows:
        raise BadInput(f"{path}: the first sheet is empty")
    return rows[0], rows[1:]


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
