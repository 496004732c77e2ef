"""Opening a corpus file as text: its first bytes (refusing folders, empty files, workbooks and
archives), its encoding (detected or checked), and the line of undecodable bytes in errors.
"""

from __future__ import annotations

import codecs
import re
import stat
import warnings
from pathlib import Path
from typing import TextIO

from triage.errors import BadInput, BadOption, InputError
from triage.io.formats import WARN_LIMIT, _WORKBOOK_SUFFIXES

ENCODING_SAMPLE_BYTES = 1024 * 1024  # bytes looked at to choose an encoding


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


def read_small_file(path, what: str, limit: int) -> bytes:
    """The bytes of a small side file (known names, an evaluation): a regular file of at most `limit`
    bytes, else one line (`what` names it): a FIFO, a device (/dev/zero), a folder or a larger file
    is refused before it is read, and the read stops at the bound whatever the file claimed."""
    import os

    display = str(path)
    try:
        info = os.stat(path)
    except FileNotFoundError:
        raise BadInput(f"{what}: no such file {display}") from None
    except OSError as err:
        raise BadInput(f"{what}: cannot read {display}: {err.strerror or err}") from None
    if stat.S_ISDIR(info.st_mode):
        raise BadInput(f"{what}: {display} is a folder, not a file")
    if not stat.S_ISREG(info.st_mode):
        raise BadInput(f"{what}: {display} is not a regular file (a pipe or a device is not read)")
    if info.st_size > limit:
        raise BadInput(f"{what}: {display} is {info.st_size:,} bytes, more than the {limit:,} it may hold")
    try:
        # O_NONBLOCK: a file swapped for a FIFO since the check never blocks the open.
        descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
        with os.fdopen(descriptor, "rb") as handle:
            if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
                raise BadInput(f"{what}: {display} is not a regular file (a pipe or a device is not read)")
            data = handle.read(limit + 1)
    except OSError as err:
        raise BadInput(f"{what}: cannot read {display}: {err.strerror or err}") from None
    if len(data) > limit:
        raise BadInput(f"{what}: {display} is more than the {limit:,} bytes it may hold")
    return data


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
