"""Opening a workspace: the file checked (a workspace, of a format this version reads, this user's),
the tables added since its format made when missing, its identity (refusing to write into another
file put at its path), its transactions and its `meta` record; closing it.
"""

from __future__ import annotations

import json
import os
import sqlite3
import uuid
from pathlib import Path
from typing import Self

from triage.errors import BadInput, InputError
from triage.review_workspace.codes import coded
from triage.review_workspace.store.common import _now, marked_names
from triage.review_workspace.store.connection import (
    WorkspaceBusy,
    WorkspaceDamaged,
    WorkspaceReadOnly,
    WorkspaceSwapped,
    _Connection,
    _Transaction,
    _file_id,
    _make_private,
    _owner_checked,
    _private_side_files,
    unavailable,
)
from triage.review_workspace.store.tables import (
    SCHEMA_VERSION,
    _APPLICATION_ID,
    _INDEXES,
    _LISTING,
    _LISTING_FILL,
    _SCHEMA,
    _SEARCH,
    _SEARCH_REBUILD,
    _SURROGATES,
    _TEAM,
)


def _newer(version: str | None) -> bool:
    try:
        return int(version) > SCHEMA_VERSION
    except (TypeError, ValueError):
        return False


class Opening:
    """Opening, checking and closing the file; the tables older workspaces lack; `meta`."""

    @classmethod
    def open(cls, path: str | os.PathLike[str], *, create: bool = False) -> Self:
        path = Path(path)
        display = os.fspath(path)
        if path.is_symlink():
            raise BadInput(f"{display} is a symbolic link; give the workspace file itself")
        exists = path.exists()
        if not exists and not create:
            raise BadInput(f"{display}: no such workspace (run `triage review CLASSIFIED.csv` to make one)")
        if exists and not path.is_file():
            raise BadInput(f"{display} is not a file")
        if exists and path.stat().st_size == 0 and not create:
            raise BadInput(f"{display} is empty: not a review workspace (run `triage review CLASSIFIED.csv` "
                              "to make one)")
        new = not exists or path.stat().st_size == 0
        if new:
            _make_private(path)
        _owner_checked(path, display)
        try:
            connection = sqlite3.connect(path, isolation_level=None, check_same_thread=False, timeout=10,
                                         factory=_Connection)
        except sqlite3.Error as err:
            raise unavailable(err, display) or BadInput(f"cannot open {display}: {err}") from None
        connection.display = display
        try:
            connection.row_factory = sqlite3.Row
            application = connection.execute("PRAGMA application_id").fetchone()[0]
            tables = connection.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
            if tables and application != _APPLICATION_ID:
                raise BadInput(f"{display} is a SQLite file but not a review workspace")
            version = None
            if tables:  # the format is checked before anything is written
                try:
                    found = connection.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
                except WorkspaceDamaged:
                    raise
                except sqlite3.Error:
                    found = None
                version = found[0] if found else None
                if version != str(SCHEMA_VERSION):
                    raise BadInput(f"{display}: workspace format {version}, this sms-triage reads format "
                                      f"{SCHEMA_VERSION}" + (" (made by a newer sms-triage: update it)"
                                                             if _newer(version) else ""))
            connection.execute("PRAGMA journal_mode=WAL")
            connection.execute("PRAGMA synchronous=NORMAL")  # WAL + NORMAL: durable at each checkpoint, never corrupt
            connection.execute("PRAGMA foreign_keys=ON")
            _private_side_files(path)
            workspace = cls(connection, path)
            if not tables:
                with workspace._transaction():
                    for statement in _SCHEMA.split(";\n"):
                        if statement.strip():
                            connection.execute(statement)
                    connection.execute(f"PRAGMA application_id={_APPLICATION_ID}")
                    workspace._set_meta(schema_version=str(SCHEMA_VERSION), created=_now(), uuid=uuid.uuid4().hex)
            connection.execute(_SURROGATES)
            for statement in _INDEXES:
                try:
                    connection.execute(statement)
                except WorkspaceReadOnly:
                    pass  # read-only: the list is still read, a little slower
            workspace._team_tables()
            workspace._search_index()
            workspace._listing()
            meta = workspace.meta()
            if "uuid" not in meta:  # a workspace made before workspaces had an identity
                try:
                    with workspace._transaction():
                        workspace._set_meta(uuid=uuid.uuid4().hex)
                    meta = workspace.meta()
                except WorkspaceReadOnly:
                    pass  # read-only: it can still be read, and every write is refused anyway
            if "uuid" in meta:
                workspace._identity = (meta["uuid"], _file_id(path))
        except WorkspaceDamaged as err:
            connection.close()
            if new or "not a database" in str(err):
                raise BadInput(f"{display} is not a review workspace (not a SQLite file)") from None
            raise
        except BaseException:
            connection.close()
            raise
        return workspace

    def _search_index(self) -> None:
        """Make the trigram search index when the workspace has none (made before it existed);
        without it (a read-only file, a SQLite without FTS5) the search reads every listed text."""
        self._searchable = self._made_if_missing("message_search", (_SEARCH, *_SEARCH_REBUILD),
                                                 sqlite3.OperationalError)

    def _listing(self) -> None:
        """Make the list's narrow copy when the workspace has none (made before it existed); without
        it (a read-only file) the list's filters read the messages' long rows instead."""
        self._listed = self._made_if_missing("listing", (_LISTING, _LISTING_FILL))

    def _made_if_missing(self, name: str, statements, *also) -> bool:
        """Whether the table `name` is there, made by `statements` in one transaction when missing;
        False when it cannot be made (a read-only or busy file, or one of the errors `also`)."""
        if self._db.execute("SELECT 1 FROM sqlite_master WHERE name = ?", (name,)).fetchone() is not None:
            return True
        try:
            with self._transaction():
                for statement in statements:
                    self._db.execute(statement)
        except (WorkspaceReadOnly, WorkspaceBusy, *also):
            return False
        return True

    def close(self) -> None:
        try:  # the WAL emptied into this file: never left for whatever file is at the path now
            self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        except (sqlite3.Error, InputError):
            pass  # a full disk or a read-only file: SQLite keeps the WAL, nothing is lost
        self._db.close()

    def check_identity(self) -> None:
        """Refuse to write when the file at the workspace's path is no longer the one opened
        (replaced, moved, or overwritten with another workspace)."""
        if self._identity is None:
            return
        recorded_uuid, recorded_file = self._identity
        try:
            current_file = _file_id(self.path)
        except OSError:
            current_file = None
        found = None
        if current_file == recorded_file:  # a fresh look at the file: this connection may hold pages in memory
            from urllib.parse import quote

            try:
                peek = sqlite3.connect(f"file:{quote(os.path.abspath(self.path))}?mode=ro", uri=True, timeout=10)
                try:
                    if peek.execute("PRAGMA application_id").fetchone()[0] == _APPLICATION_ID:
                        found = peek.execute("SELECT value FROM meta WHERE key = 'uuid'").fetchone()
                finally:
                    peek.close()
            except sqlite3.Error:
                found = None
        if current_file != recorded_file or found is None or found[0] != recorded_uuid:
            raise coded(WorkspaceSwapped(f"{self.path} is no longer the workspace opened at start-up (the file was "
                                         "replaced or moved): nothing was written; restart `triage review`"),
                        "workspace_swapped", path=str(self.path))

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _transaction(self):
        return _Transaction(self._db, self.check_identity)

    def _set_meta(self, **values: str) -> None:
        self._db.executemany(
            "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            list(values.items()),
        )

    def meta(self) -> dict[str, str]:
        return {row["key"]: row["value"] for row in self._db.execute("SELECT key, value FROM meta")}

    def _team_tables(self) -> None:
        """The tables of several reviewers (leases, double review), made when missing. A read-only
        workspace of an older format gets empty temporary ones: it still reads, and writes nothing."""
        try:
            had_marks = self._db.execute("SELECT 1 FROM sqlite_master WHERE name = 'marked'").fetchone() is not None
            for statement in _TEAM:
                self._db.execute(statement)
            if not had_marks:
                self._backfill_marks()
        except WorkspaceReadOnly:
            present = {row[0] for row in self._db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            for statement in _TEAM:
                if statement.startswith("CREATE TABLE") and statement.split()[5] not in present:
                    self._db.execute(statement.replace("CREATE TABLE IF NOT EXISTS", "CREATE TEMP TABLE IF NOT EXISTS"))

    def _backfill_marks(self) -> None:
        """The names the reviewers marked in the decisions of a workspace made before marks were kept:
        what each decision hides as a name where the machines' current proposal does not."""
        rows = self._db.execute(
            "SELECT d.id, d.text_hash, d.spans, m.hidden FROM decisions d JOIN messages m USING (id) "
            "WHERE d.status = 'decided' AND d.text_hash = m.text_hash AND d.spans IS NOT NULL").fetchall()
        marks = [(row["id"], row["text_hash"], json.dumps(found)) for row in rows
                 if (found := marked_names(json.loads(row["spans"]), json.loads(row["hidden"])))]
        if marks:
            with self._transaction():
                self._db.executemany("INSERT OR REPLACE INTO marked VALUES (?,?,?)", marks)

    def _batch_column(self) -> None:
        """Workspaces made before bulk decisions get the events' batch column."""
        columns = {row[1] for row in self._db.execute("PRAGMA table_info(events)")}
        if "batch" not in columns:
            self._db.execute("ALTER TABLE events ADD COLUMN batch TEXT")
