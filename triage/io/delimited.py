"""CSV and TSV: the dialect, the delimiter (given, or guessed from the header among , ; tab |)
and the header's column names.
"""

from __future__ import annotations

import csv
import io
import sys
from pathlib import Path
from typing import Any, Iterator

from triage.errors import BadInput, BadOption
from triage.io.decoding import _decode_error, _open_text
from triage.io.formats import _clean_name

SNIFF_SAMPLE_CHARS = 64 * 1024  # characters looked at to choose a delimiter


CANDIDATE_DELIMITERS = (",", ";", "\t", "|")


LONG_RECORD_LINES = 50  # a record spanning more lines probably hides an unbalanced quote


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
