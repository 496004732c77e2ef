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


def xlsx_bytes(columns: Sequence[str], rows: Sequence[Sequence[str]], sheet: str = "corpus") -> bytes:
    """A workbook of one sheet: a header row, then the rows, every cell as text (never a formula)."""
    from openpyxl import Workbook

    book = Workbook(write_only=True)
    worksheet = book.create_sheet(sheet)
    worksheet.append([neutralise_formula(str(c)) for c in columns])
    for row in rows:
        worksheet.append([neutralise_formula("" if v is None else str(v)) for v in row])
    buffer = stdio.BytesIO()
    book.save(buffer)
    return buffer.getvalue()


def write_into(handle, columns: Sequence[str], rows: Sequence[Sequence[str]], sheet: str = "corpus") -> None:
    """Write a workbook on a text handle of outputs.atomic_output (through its byte buffer)."""
    handle.flush()
    handle.buffer.write(xlsx_bytes(columns, rows, sheet))


def write_xlsx(path: str | os.PathLike[str], columns: Sequence[str], rows: Sequence[Sequence[str]], *,
               force: bool = False, protect=(), sheet: str = "corpus") -> None:
    with outputs.atomic_output(path, force=force, protect=protect) as handle:
        write_into(handle, columns, rows, sheet)


def read_xlsx(path: str | os.PathLike[str]) -> tuple[list[str], list[list[str]]]:
    """The first sheet's header and rows, as text (formula cells neutralised by an export are restored)."""
    from openpyxl import load_workbook

    try:
        book = load_workbook(path, read_only=True, data_only=True)
    except Exception as err:  # openpyxl raises many kinds on a damaged file
        raise BadInput(f"{path}: not a readable .xlsx spreadsheet ({type(err).__name__}); save it again "
                            "from your spreadsheet, or export it as CSV UTF-8") from None
    try:
        rows = [["" if v is None else restore_formula(str(v)) for v in row] for row in book.worksheets[0].iter_rows(values_only=True)]
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
