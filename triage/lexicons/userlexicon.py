"""The user lexicon: words a reviewer taught sms-triage for every future corpus.

Two plain files a person can read and edit, in the user's data folder (platformdirs), never
in the installed package or the repository: names.txt (always hidden) and words.txt (never
hidden), one lower-case entry per line, '#' for comments. lexicons.load reads them.

Writers take a lock (an exclusive flock on `.lock` in the folder) and read, merge and write
back under it, so two processes that learn at the same time both keep their words. A name
always wins: learning a name takes it out of words.txt and the reverse.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterable, Iterator
from pathlib import Path

from triage import lexicons as lexicon_module
from triage.errors import BadInput
from triage.io import outputs

NAMES_FILE, WORDS_FILE = lexicon_module.USER_NAMES_FILE, lexicon_module.USER_WORDS_FILE
HEADERS = {
    NAMES_FILE: "# Names taught by a reviewer (sms-triage): hidden in every message. One per line, lower case.",
    WORDS_FILE: "# Ordinary words taught by a reviewer (sms-triage): never hidden. One per line, lower case.",
}


def directory(chosen: str | os.PathLike[str] | None = None) -> Path:
    """`chosen`, else $TRIAGE_USER_LEXICON_DIR, else the user's data folder."""
    return Path(chosen) if chosen else lexicon_module.default_user_directory()


def entry(spelling: str) -> str:
    """A spelling as the lexicon files store it (the key lexicons.load reads)."""
    return spelling.strip().lower().translate(lexicon_module.APOSTROPHES)


def check_entry(spelling: str) -> str:
    """The entry of a spelling taken from a person or a file, refused when it could not be
    one line of a lexicon file (a cell holding a newline once wrote three entries)."""
    key = entry(spelling)
    if not key or any(c in key for c in "\n\r\t#\x00\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"):
        raise BadInput(f"{spelling!r} cannot be a lexicon entry (empty, or holds a line break, tab or '#')")
    return key


def _entry_of_line(line: str) -> str:
    if "#" in line or "\t" in line:
        line = line.split("#", 1)[0].split("\t", 1)[0]
    return entry(line)


def read(path: Path) -> list[str]:
    """The lines of a user list (none when it does not exist), as one-line errors."""
    try:
        if path.exists() and not path.is_file():
            raise BadInput(f"{path} is not a file; the user lexicon needs {path.name} to be a text file")
        return lexicon_module._read_lines(path)
    except OSError as err:
        raise BadInput(f"{path}: {err.strerror or err}") from None


@contextlib.contextmanager
def locked(folder: Path) -> Iterator[None]:
    """An exclusive lock on the user lexicon folder for a read-modify-write."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        descriptor = os.open(folder / ".lock", os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o600)
    except OSError as err:
        raise BadInput(f"cannot use the user lexicon folder {folder}: {err.strerror or err}") from None
    try:
        try:
            import fcntl

            fcntl.flock(descriptor, fcntl.LOCK_EX)
        except ImportError:  # Windows: msvcrt locks a byte range instead
            import msvcrt

            msvcrt.locking(descriptor, msvcrt.LK_LOCK, 1)
        yield
    finally:
        os.close(descriptor)  # closing releases the lock


def _write(path: Path, lines: list[str], remove: set[str], add: Iterable[str]) -> None:
    kept = [line for line in lines if _entry_of_line(line) not in remove]
    while kept and not kept[-1].strip():
        kept.pop()
    if not kept:
        kept = [HEADERS[path.name]]
    with outputs.atomic_output(path, force=True, private=True) as handle:
        handle.write("\n".join([*kept, *add]) + "\n")


def update(folder: Path, *, names: Iterable[str] = (), words: Iterable[str] = (),
           remove: Iterable[str] = ()) -> tuple[list[str], list[str]]:
    """Add names and words, remove entries, under the lock. A name wins over a word: a new name
    leaves words.txt, and a word already a name is not added. Returns (names added, words added)."""
    names = {check_entry(n) for n in names}
    words = {check_entry(w) for w in words} - names
    remove = {entry(r) for r in remove}
    with locked(folder):
        names_lines, words_lines = read(folder / NAMES_FILE), read(folder / WORDS_FILE)
        known_names = {_entry_of_line(line) for line in names_lines} - {""}
        known_words = {_entry_of_line(line) for line in words_lines} - {""}
        add_names = sorted(names - known_names)
        add_words = sorted(words - known_words - known_names - remove)
        drop_names, drop_words = remove & known_names, (remove | names) & known_words
        if add_names or drop_names:
            _write(folder / NAMES_FILE, names_lines, drop_names, add_names)
        if add_words or drop_words:
            _write(folder / WORDS_FILE, words_lines, drop_words, add_words)
    if add_names or add_words or drop_names or drop_words:
        lexicon_module.default.cache_clear()  # this process's lexicons are stale now
    return add_names, add_words
