"""Spreadsheets, where research teams read and annotate corpora: .xlsx written and read with
openpyxl (formula-looking cells neutralised as in the CSV exports), atomically and privately."""

from __future__ import annotations

import io as stdio
import os
from collections.abc import Sequence

from triage import io, outputs


def xlsx_bytes(columns: Sequence[str], rows: Sequence[Sequence[str]], sheet: str = "corpus") -> bytes:
    """A workbook of one sheet: a header row, then the rows, every cell as text (never a formula)."""
    from openpyxl import Workbook

    book = Workbook(write_only=True)
    worksheet = book.create_sheet(sheet)
    worksheet.append([io.neutralise_formula(str(c)) for c in columns])
    for row in rows:
        worksheet.append([io.neutralise_formula("" if v is None else str(v)) for v in row])
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
        raise io.InputError(f"{path}: not a readable .xlsx spreadsheet ({type(err).__name__}); save it again "
                            "from your spreadsheet, or export it as CSV UTF-8") from None
    try:
        rows = [["" if v is None else io.restore_formula(str(v)) for v in row] for row in book.worksheets[0].iter_rows(values_only=True)]
    finally:
        book.close()
    if not rows:
        raise io.InputError(f"{path}: the first sheet is empty")
    return rows[0], rows[1:]


def as_csv(path: str | os.PathLike[str]):
    """A private CSV copy of a workbook's first sheet, for the readers of triage.io, and the function
    that removes it."""
    import csv
    import shutil
    import tempfile

    header, rows = read_xlsx(path)
    folder = tempfile.mkdtemp(prefix="sms-triage-xlsx-")  # 0700: the copy holds messages
    copy = os.path.join(folder, os.path.basename(os.fspath(path))[:-5] + ".csv")
    with open(copy, "w", newline="", encoding="utf-8") as handle:
        csv.writer(handle).writerows([header, *rows])
    return copy, lambda: shutil.rmtree(folder, ignore_errors=True)
