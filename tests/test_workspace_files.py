"""The files that hold messages: a workspace that is private from its first byte, its SQLite side
files, a damaged, read-only, full, replaced or newer workspace, and a spreadsheet's private copy."""

import os
import shutil
import sqlite3
import stat
from pathlib import Path

import pytest
from conftest import write_queued
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from starlette.testclient import TestClient

from triage.errors import BadInput, InputError
from triage.io.messages import open_messages
from triage.io.spreadsheets import xlsx_bytes
from triage.lexicons import userlexicon
from triage.review_workspace import Workspace, open_synced, review_lines
from triage.review_workspace import workspace as workspace_module
from triage.review_workspace.server import Settings, create_app

TOKEN = "s3cret-token"
PORT = 8123
NOBODY = 65534
ROOT = hasattr(os, "geteuid") and os.geteuid() == 0


def mode(path) -> int:
    return stat.S_IMODE(os.lstat(path).st_mode)


def other_users(path: Path) -> None:
    """Make a file look like another user's (only root can give a file away)."""
    if not ROOT:
        pytest.skip("giving a file to another user needs root")
    os.chown(path, NOBODY, NOBODY)


def client_of(workspace, tmp_path):
    app = create_app(workspace, Settings(token=TOKEN, port=PORT, reviewer="ana", lexicon_dir=str(tmp_path / "lex")))
    client = TestClient(app, base_url=f"http://127.0.0.1:{PORT}")
    client.headers["X-Triage-Token"] = TOKEN
    return client


def one_line_error(result, *needles):
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("Error:"), result.output
    for needle in needles:
        assert needle in lines[0], lines[0]
    return lines[0]


# ------------------------------------------------------------ a private workspace


def test_a_workspace_made_in_an_existing_empty_file_is_private(classified, tmp_path):
    path = tmp_path / "ws.sqlite"
    path.touch()
    os.chmod(path, 0o644)  # a folder where every user reads the corpus
    if ROOT:
        os.chown(path, NOBODY, NOBODY)
    opened, _ = open_synced(classified, path, audit=5)
    with opened:
        assert mode(path) == 0o600 and os.stat(path).st_uid == os.getuid()
        for suffix in ("-wal", "-shm"):
            if os.path.exists(f"{path}{suffix}"):
                assert mode(f"{path}{suffix}") == 0o600


def test_side_files_left_at_a_new_workspace_path_are_not_used(classified, tmp_path):
    path = tmp_path / "ws.sqlite"
    kept = {}
    for suffix in ("-wal", "-shm", "-journal"):
        side = Path(f"{path}{suffix}")
        side.write_bytes(b"someone else's file")
        os.chmod(side, 0o666)
        if ROOT:
            os.chown(side, NOBODY, NOBODY)
        kept[suffix] = tmp_path / f"kept{suffix}"
        os.link(side, kept[suffix])  # a second name, to see whether SQLite wrote into the planted file
    opened, summary = open_synced(classified, path, audit=5)
    with opened:
        assert summary.messages > 0
        for suffix, keep in kept.items():
            assert os.stat(keep).st_nlink == 1  # no longer at the workspace's side
            assert keep.read_bytes() == b"someone else's file"  # and nothing written into it
            side = Path(f"{path}{suffix}")
            if side.exists():
                assert os.stat(side).st_uid == os.getuid() and mode(side) == 0o600


def test_an_existing_workspace_refuses_a_side_file_it_did_not_make(classified, tmp_path):
    path = tmp_path / "ws.sqlite"
    opened, _ = open_synced(classified, path, audit=5)
    opened.close()
    wal = Path(f"{path}-wal")
    wal.write_bytes(b"")
    os.chmod(wal, 0o666)
    other_users(wal)
    with pytest.raises(BadInput, match="not made by this workspace") as caught:
        Workspace.open(path)
    assert "\n" not in str(caught.value)
    assert wal.read_bytes() == b""  # nothing written into it


def test_a_workspace_readable_by_others_becomes_private_with_its_side_files(classified, tmp_path):
    path = tmp_path / "ws.sqlite"
    opened, _ = open_synced(classified, path, audit=5)
    opened.close()
    os.chmod(path, 0o644)  # as an older sms-triage left it
    with Workspace.open(path) as again:
        item = again.items(limit=1)[0]
        again.decide(item.id, label="NTA", spans=[], reviewer="ana")
        assert mode(path) == 0o600
        assert mode(f"{path}-wal") == 0o600 and mode(f"{path}-shm") == 0o600


# ------------------------------------------------------------ a spreadsheet's private copy


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(columns=st.lists(st.text(st.characters(categories=["L", "N"]), min_size=1, max_size=8), min_size=1,
                        max_size=4, unique=True).filter(lambda c: "text" not in c))
def test_an_unreadable_workbook_names_itself_and_leaves_no_copy(tmp_path, monkeypatch, columns):
    import tempfile

    scratch = tmp_path / "tmp"
    scratch.mkdir(exist_ok=True)
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    book = tmp_path / "corpus.xlsx"
    book.write_bytes(xlsx_bytes(columns, [["x"] * len(columns)]))
    with pytest.raises(InputError) as caught:
        open_messages(book)
    assert str(book) in str(caught.value) and str(scratch) not in str(caught.value)
    assert list(scratch.iterdir()) == []


def test_a_workbook_read_to_the_end_leaves_no_copy(tmp_path, monkeypatch):
    import gc
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    book = tmp_path / "corpus.xlsx"
    book.write_bytes(xlsx_bytes(["id", "text"], [["1", "salut"]]))
    table = open_messages(book)
    assert [m.text for m in table] == ["salut"]
    del table
    gc.collect()
    assert list((tmp_path / "tmp").iterdir()) == []


# ------------------------------------------------------------ full, read-only, damaged


def fill_the_disk(workspace):
    """SQLite's own limit on the file's size: the next page it needs is refused like a full disk."""
    pages = workspace._db.execute("PRAGMA page_count").fetchone()[0]
    workspace._db.execute(f"PRAGMA max_page_count = {pages}")


def test_a_full_disk_is_said_and_loses_nothing(workspace):
    fill_the_disk(workspace)
    decided = 0
    with pytest.raises(workspace_module.WorkspaceFull, match="disk full: nothing was lost, free space and retry"):
        for item in workspace.items(limit=200):
            workspace.decide(item.id, label="TA", spans=[[0, 1, "PRE"]], reviewer="ana" * 20)
            decided += 1
    assert workspace.progress()["decided"] == decided  # every decision before stays, the failed one is not half-made
    workspace._db.execute("PRAGMA max_page_count = 1073741823")  # space freed: the next decision goes through
    pending = workspace.next_pending()
    assert workspace.decide(pending.id, label="NTA", spans=[], reviewer="ana").status == "decided"


def test_the_server_answers_a_full_disk_with_507_json(workspace, tmp_path):
    fill_the_disk(workspace)
    client = client_of(workspace, tmp_path)
    statuses = set()
    for item in workspace.items(limit=200):
        answer = client.post(f"/api/items/{item.id}/decision", json={"label": "TA", "spans": [[0, 1, "PRE"]]})
        statuses.add(answer.status_code)
        if answer.status_code != 200:
            break
    assert answer.status_code == 507 and statuses <= {200, 507}
    assert "disk full" in answer.json()["error"] and "not a SQLite file" not in answer.json()["error"]


@pytest.mark.parametrize("problem", ["database or disk is full", "disk I/O error"])
def test_a_valid_workspace_on_a_full_disk_is_never_called_not_a_sqlite_file(workspace, monkeypatch, problem):
    path = workspace.path

    def connect(*args, **kwargs):
        error = sqlite3.OperationalError(problem)
        error.sqlite_errorcode = 13 if "full" in problem else 10  # SQLITE_FULL, SQLITE_IOERR
        raise error

    monkeypatch.setattr(workspace_module.sqlite3, "connect", connect)
    monkeypatch.setattr(workspace_module.shutil, "disk_usage", lambda folder: shutil._ntuple_diskusage(100, 100, 0))
    with pytest.raises(InputError) as caught:
        Workspace.open(path)
    assert "disk full: nothing was lost, free space and retry" in str(caught.value)
    assert "not a SQLite file" not in str(caught.value)


@pytest.fixture
def read_only(monkeypatch):
    """Make a workspace read-only: chmod for a user; as root (whom chmod does not stop), SQLite's
    read-only mode."""

    def make(path: Path):
        if not ROOT:
            os.chmod(path, 0o400)
            os.chmod(path.parent, 0o500)
            return
        real = sqlite3.connect

        def connect(database, *args, **kwargs):
            if os.fspath(database) == os.fspath(path):
                from urllib.parse import quote

                return real(f"file:{quote(os.fspath(database))}?mode=ro", *args, uri=True, **kwargs)
            return real(database, *args, **kwargs)

        monkeypatch.setattr(workspace_module.sqlite3, "connect", connect)

    yield make


def test_a_read_only_workspace_is_one_line_and_still_reports(classified, tmp_path, cli, read_only):
    path = tmp_path / "ws.sqlite"
    opened, _ = open_synced(classified, path, audit=5)
    with opened:  # as a workspace made before workspaces had an identity
        opened._db.execute("DELETE FROM meta WHERE key = 'uuid'")
    read_only(path)
    try:
        report = cli("review", classified, "--workspace", path, "--report")
        if report.exit_code:  # SQLite may need to write beside a WAL workspace even to read it
            one_line_error(report, "cannot write", "read-only")
        else:
            assert "still to look at" in report.output, report.output
        # A release only reads what was decided: a read-only workspace still releases, in tags or
        # pseudonyms; surrogates must be saved in it (the same ones next time), so that is one line.
        tags = cli("release", classified, "-o", tmp_path / "out" / "corpus.csv", "--workspace", path,
                   "--withhold-undecided", "--inconsistent-ok")
        if tags.exit_code:  # as for the report: SQLite may need to write beside a WAL workspace
            one_line_error(tags, "cannot write", "read-only")
        one_line_error(cli("release", classified, "-o", tmp_path / "out" / "surrogates.csv", "--workspace", path,
                           "--withhold-undecided", "--inconsistent-ok", "--style", "surrogates"), "cannot write",
                       "read-only")
        assert not (tmp_path / "out" / "surrogates.csv").exists()
        with pytest.raises(workspace_module.WorkspaceReadOnly):
            with Workspace.open(path) as again:
                again.decide(again.items(limit=1)[0].id, label="NTA", spans=[], reviewer="ana")
    finally:
        os.chmod(tmp_path, 0o700)


def damage(path: Path) -> None:
    """Garbage over every page but the first (the schema still reads, the tables do not)."""
    size = path.stat().st_size
    with open(path, "r+b") as handle:
        handle.seek(4096)
        handle.write(bytes((i * 37 + 11) % 256 for i in range(size - 4096)))


def test_a_damaged_workspace_is_one_line_everywhere(classified, tmp_path, cli):
    path = tmp_path / "ws.sqlite"
    opened, _ = open_synced(classified, path, audit=5)
    opened.close()
    damage(path)
    one_line_error(cli("review", classified, "--workspace", path, "--report"), "is damaged")
    one_line_error(cli("queue", "apply", path, classified, "-o", tmp_path / "final.csv"), "is damaged")
    one_line_error(cli("release", classified, "-o", tmp_path / "corpus.csv", "--workspace", path,
                       "--withhold-undecided"), "is damaged")
    assert not (tmp_path / "final.csv").exists() and not (tmp_path / "corpus.csv").exists()


# ------------------------------------------------------------ newer, replaced


def test_a_newer_workspace_is_refused_before_anything_is_written(classified, tmp_path):
    path = tmp_path / "ws.sqlite"
    opened, _ = open_synced(classified, path, audit=5)
    with opened:
        opened._db.execute("UPDATE meta SET value = '99' WHERE key = 'schema_version'")
        opened._db.execute("DROP TABLE surrogates")  # a newer format may keep them elsewhere
        opened._db.execute("PRAGMA journal_mode=DELETE")  # and journal differently
    before = path.read_bytes()
    with pytest.raises(BadInput, match="workspace format 99.*newer"):
        Workspace.open(path)
    assert path.read_bytes() == before


def test_a_workspace_replaced_while_served_is_never_written(classified, tmp_path):
    served, _ = open_synced(classified, tmp_path / "served.sqlite", audit=5)
    other_corpus = write_queued(tmp_path / "other.csv", "Rdv chez Albane demain")
    other, _ = open_synced(other_corpus, tmp_path / "other.sqlite", audit=0)
    other.close()
    client = client_of(served, tmp_path)
    item = served.items(limit=1)[0]
    assert client.post(f"/api/items/{item.id}/skip").status_code == 200
    os.replace(tmp_path / "other.sqlite", served.path)  # another workspace put in its place
    answer = client.post(f"/api/items/{item.id}/decision", json={"label": "NTA", "spans": []})
    assert answer.status_code == 409 and "no longer the workspace opened" in answer.json()["error"]
    with pytest.raises(workspace_module.WorkspaceSwapped):
        served.learn("albane", kind="name", scope="corpus", reviewer="ana")
    served.close()
    with Workspace.open(tmp_path / "served.sqlite") as now:  # the other corpus, untouched
        assert now.progress()["messages"] == 1 and now.learnt() == [] and now.progress()["decided"] == 0


def test_a_workspace_overwritten_in_place_while_served_is_never_written(classified, tmp_path):
    served, _ = open_synced(classified, tmp_path / "served.sqlite", audit=5)
    other, _ = open_synced(write_queued(tmp_path / "other.csv", "Rdv chez Albane demain"), tmp_path / "o.sqlite",
                           audit=0)
    other.close()
    served._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    shutil.copyfile(tmp_path / "o.sqlite", served.path)  # same file, another workspace's content
    with pytest.raises(workspace_module.WorkspaceSwapped):
        served.learn("albane", kind="name", scope="corpus", reviewer="ana")
    served.close()


# ------------------------------------------------------------ learning


def test_unlearn_edits_the_lexicon_folder_the_entry_was_learnt_into(classified, tmp_path):
    path = tmp_path / "ws.sqlite"
    first, second = tmp_path / "lex-a", tmp_path / "lex-b"
    opened, _ = open_synced(classified, path, audit=5)
    with opened:
        entry = opened.learn("zorglubette", kind="name", scope="user", reviewer="ana", lexicon_dir=first)
        opened.learn("bulgroz", kind="name", scope="user", reviewer="ana", lexicon_dir=second)
    names = userlexicon.NAMES_FILE
    lines = review_lines(classified, path, reviewer="ana", unlearn=entry["id"])
    assert "zorglubette" not in (first / names).read_text("utf-8")
    assert "bulgroz" in (second / names).read_text("utf-8")
    assert lines == [f"undone: #{entry['id']} 'zorglubette' (name, user): removed from the user lexicon in "
                     f"{os.path.abspath(first)}"]


def test_unlearn_says_when_the_lexicon_no_longer_held_the_entry(classified, tmp_path):
    path = tmp_path / "ws.sqlite"
    folder = tmp_path / "lex"
    opened, _ = open_synced(classified, path, audit=5)
    with opened:
        entry = opened.learn("zorglubette", kind="name", scope="user", reviewer="ana", lexicon_dir=folder)
    userlexicon.update(folder, remove=["zorglubette"])  # taken out by hand meanwhile
    (line,) = review_lines(classified, path, reviewer="ana", unlearn=entry["id"])
    assert "no longer held it" in line and "removed from" not in line


@pytest.mark.parametrize("confirm", ["false", "true", 0, 1, None, [], {}])
def test_confirm_must_be_a_json_boolean(workspace, tmp_path, confirm):
    client = client_of(workspace, tmp_path)
    answer = client.post("/api/learn", json={"spelling": "les", "kind": "name", "scope": "corpus",
                                             "confirm": confirm})
    assert answer.status_code == 400 and "confirm must be true or false" in answer.json()["error"]
    assert workspace.learnt() == []
    assert client.post("/api/learn", json={"spelling": "les", "kind": "name", "scope": "corpus",
                                           "confirm": False}).status_code == 409
