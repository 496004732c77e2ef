"""JSON Lines: one object per line, parsed with bounded depth and unique keys; NULs and lone
surrogates cleaned; the columns are the keys of the first records. `parse_json` is the one
parser of JSON that a user wrote.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

from triage.errors import BadInput
from triage.io.decoding import _decode_error, _open_text
from triage.io.formats import _clean_name, _show

JSONL_COLUMNS_SCAN = 1000  # JSONL records whose keys make up `columns`


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
