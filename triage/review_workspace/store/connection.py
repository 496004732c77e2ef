"""The workspace's SQLite file: made private (mode 0600, put in place by rename), opened only when
SQLite's side files are this user's, its errors a user can cause (full disk, read-only, damaged,
busy, swapped) turned into one line (WorkspaceUnavailable and its kinds), and its transactions.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import stat
import tempfile
from pathlib import Path

from triage.errors import BadInput, InputError
from triage.review_workspace.codes import coded


#: The files SQLite keeps beside a workspace; they hold raw messages too.
SIDE_FILES = ("-wal", "-shm", "-journal")


class WorkspaceUnavailable(InputError):
    """The workspace cannot be read or written right now (a full disk, a read-only or damaged file,
    another file put in its place): one line saying what to do. `status` is the HTTP status the
    review server answers with."""

    status = 503


class WorkspaceFull(WorkspaceUnavailable):
    status = 507


class WorkspaceReadOnly(WorkspaceUnavailable):
    status = 503


class WorkspaceDamaged(WorkspaceUnavailable):
    status = 503


class WorkspaceBusy(WorkspaceUnavailable):
    status = 503


class WorkspaceSwapped(WorkspaceUnavailable):
    status = 409


def unavailable(error: sqlite3.Error, display: str) -> WorkspaceUnavailable | None:
    """The one-line diagnosis of a SQLite error on a workspace, or None for an error that is a bug."""
    code = getattr(error, "sqlite_errorcode", None)
    primary = code & 0xFF if isinstance(code, int) else None
    text = str(error)
    if primary == 13 or "database or disk is full" in text:  # SQLITE_FULL
        return coded(WorkspaceFull(f"cannot write {display}: disk full: nothing was lost, free space and retry"),
                     "workspace_full", display=display)
    if primary == 8 or "readonly database" in text:  # SQLITE_READONLY
        return coded(WorkspaceReadOnly(f"cannot write {display}: read-only (the file or its folder); "
                                       "make them writable and retry"), "workspace_read_only", display=display)
    if primary in (11, 26) or "malformed" in text or "not a database" in text:  # SQLITE_CORRUPT, SQLITE_NOTADB
        return coded(WorkspaceDamaged(f"{display} is damaged: {text}; restore it from a backup "
                                      "(the classified file can make a new one, without the decisions)"),
                     "workspace_damaged", display=display, detail=text)
    if primary in (5, 6) or "database is locked" in text:  # SQLITE_BUSY, SQLITE_LOCKED
        return coded(WorkspaceBusy(f"{display} is in use by another triage process; retry when it is done"),
                     "workspace_busy", display=display)
    if primary in (10, 14, 23):  # SQLITE_IOERR, SQLITE_CANTOPEN, SQLITE_AUTH
        folder = os.path.dirname(os.path.abspath(display))
        try:
            full = shutil.disk_usage(folder).free == 0
        except OSError:
            full = False
        if full:  # a side file (-wal, -shm) that could not grow
            return coded(WorkspaceFull(f"cannot write {display}: disk full: nothing was lost, free space and retry"),
                         "workspace_full", display=display)
        if not os.access(folder, os.W_OK) or (os.path.exists(display) and not os.access(display, os.W_OK)):
            return coded(WorkspaceReadOnly(f"cannot write {display}: read-only (the file or its folder); "
                                           "make them writable and retry"), "workspace_read_only", display=display)
        return coded(WorkspaceUnavailable(f"cannot read or write {display}: {text}"), "workspace_unavailable",
                     display=display, detail=text)
    return None


class _Cursor(sqlite3.Cursor):
    """A cursor whose SQLite errors go through `unavailable` (a damaged page may show only when
    its rows are read)."""

    def _guard(self, call, *args):
        try:
            return call(*args)
        except sqlite3.Error as err:
            self.connection._raise(err)

    def execute(self, *args):
        return self._guard(super().execute, *args)

    def executemany(self, *args):
        return self._guard(super().executemany, *args)

    def __next__(self):
        return self._guard(super().__next__)

    def fetchone(self):
        return self._guard(super().fetchone)

    def fetchmany(self, *args):
        return self._guard(super().fetchmany, *args)

    def fetchall(self):
        return self._guard(super().fetchall)


class _Connection(sqlite3.Connection):
    """A connection whose SQLite errors a user can cause (full disk, read-only, damaged file) are
    WorkspaceUnavailable: one line, never a traceback."""

    display = "the review workspace"

    def execute(self, *args):
        return self.cursor(_Cursor).execute(*args)

    def executemany(self, *args):
        return self.cursor(_Cursor).executemany(*args)

    def _raise(self, err: sqlite3.Error):
        problem = unavailable(err, self.display)
        if problem is None:
            raise err
        raise problem from None


def _owner_checked(path: Path, display: str) -> None:
    """Refuse a SQLite side file (-wal, -shm, -journal) that this user did not make: SQLite would
    write raw messages into it, where its owner reads them (or feed its content to the workspace)."""
    for suffix in SIDE_FILES:
        side = Path(f"{path}{suffix}")
        try:
            info = side.lstat()
        except FileNotFoundError:
            continue
        if not stat.S_ISREG(info.st_mode) or (hasattr(os, "getuid") and info.st_uid != os.getuid()):
            raise BadInput(f"{side} was not made by this workspace (another user's file or not a regular "
                              f"file): it would receive raw messages; check it, remove it, then retry")


def _make_private(path: Path) -> None:
    """A new workspace file, owned by this user with mode 0600, put in place by rename (an empty
    file already there is replaced, never written into: it keeps its owner and mode); SQLite side
    files left at that path by something else are removed first."""
    path.parent.mkdir(parents=True, exist_ok=True)
    descriptor, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".new", dir=path.parent)
    os.close(descriptor)  # mkstemp: 0600, owned by this user
    try:
        os.chmod(temporary, 0o600)
        for suffix in SIDE_FILES:
            side = f"{path}{suffix}"
            if os.path.lexists(side):
                os.unlink(side)
        os.replace(temporary, path)
    except OSError as err:
        if os.path.lexists(temporary):
            os.unlink(temporary)
        raise BadInput(f"cannot create the review workspace {path}: {err.strerror or err}") from None


class _Transaction:
    """BEGIN IMMEDIATE ... COMMIT, or ROLLBACK on any exception (the connection is in autocommit
    mode, so nothing is ever left half-written)."""

    def __init__(self, connection: sqlite3.Connection, check=None):
        self._db = connection
        self._check = check

    def __enter__(self):
        self._db.execute("BEGIN IMMEDIATE")
        if self._check is not None:
            try:
                self._check()
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
        return self._db

    def __exit__(self, kind, value, traceback):
        if kind is None:
            self._db.execute("COMMIT")
        elif self._db.in_transaction:  # SQLite may have rolled back itself (a full disk)
            try:
                self._db.execute("ROLLBACK")
            except (sqlite3.Error, InputError):
                pass  # the error that got here is the one to report
        return False


def _file_id(path: Path) -> tuple[int, int]:
    info = os.stat(path)
    return info.st_dev, info.st_ino


def _private_side_files(path: Path) -> None:
    """-wal and -shm files get the workspace's mode from SQLite: make sure they are 0600 too,
    like the workspace itself when this user owns it."""
    for name in (path, *(Path(f"{path}{suffix}") for suffix in SIDE_FILES)):
        try:
            info = name.lstat()
            if stat.S_ISREG(info.st_mode) and stat.S_IMODE(info.st_mode) & 0o077 and (
                    not hasattr(os, "getuid") or info.st_uid == os.getuid()):
                os.chmod(name, 0o600)
        except OSError:
            continue
