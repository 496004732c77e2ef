"""What the readers and the writers of corpus files share: the formats by file name (CSV, TSV,
JSON Lines), the csv module's field size, how a header name is cleaned and a cell shown in an
error message.
"""

from __future__ import annotations

import csv
import os
from pathlib import Path

from triage.errors import BadOption

# An SMS corpus may hold a pasted document (the tests use 1 MB); the csv module's default
# cap is 128 KiB. The cap stays finite so that an unbalanced quote makes one field fail
# at 64 Mi characters instead of swallowing a 10 GB file into memory.
FIELD_SIZE_LIMIT = 64 * 1024 * 1024


csv.field_size_limit(max(csv.field_size_limit(), FIELD_SIZE_LIMIT))


WARN_LIMIT = 5  # individual bad-line warnings before a single summary


_FORMATS_BY_SUFFIX = {
    ".csv": "csv",
    ".tsv": "tsv",
    ".tab": "tsv",
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".json": "jsonl",  # accepted only if it really is JSON Lines (checked on open)
}


_WORKBOOK_SUFFIXES = {".xlsx", ".xlsm", ".xls", ".ods", ".numbers"}


def _clean_name(name: str) -> str:
    return name.replace("\ufeff", "").strip()


def _show(value: str, limit: int = 40) -> str:
    """A cell as it can be shown on one line of an error message."""
    shown = value if len(value) <= limit else value[: limit - 1] + "…"
    return shown.encode("unicode_escape").decode("ascii") if not shown.isprintable() else shown


def format_for(path: str | os.PathLike[str]) -> str:
    """Output format for a path by its extension: "tsv", "jsonl", else "csv"."""
    suffix = Path(path).suffix.lower()
    if suffix in (".xlsx", ".xls", ".xlsm", ".ods"):  # never a CSV under a spreadsheet's name
        raise BadOption(f"{Path(path).name}: this command writes .csv, .tsv or .jsonl "
                         "(spreadsheets: `triage release ... -o corpus.xlsx` or `triage queue export -o queue.xlsx`)")
    return _FORMATS_BY_SUFFIX.get(suffix, "csv")
