"""The release reads what was decided (the workspace's record), never an editable file, and
syncing never loses review work."""

import csv
import json
import sqlite3
from pathlib import Path

import pytest
from conftest import SAMPLE
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from triage.errors import BadInput, InputError
from triage.review_workspace import Workspace, open_synced
from triage import jobs
from triage.io.messages import ReadOptions
from triage.review_workspace.store import loading as loading_module

# Invented messages (a corpus of their own, with ids 1.. like the demo's).
OTHER_TEXTS = ["rdv a 8h devant la gare", "tu px m'appeler au 06 12 34 56 78 stp", "jsuis en retard dsl",
               "bisous a demain", "c'est Julie, tu viens ce soir ?", "ok ca marche", "il fait froid ici",
               "envoie moi ton mail", "on se voit chez Karim", "bonne nuit"]


def rows_of(path: Path) -> list[dict]:
    with open(path, newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def write_rows(path: Path, rows: list[dict]) -> Path:
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return path


def content(ws: Path) -> list[str]:
    """Everything a workspace holds, as SQL (read without changing it)."""
    connection = sqlite3.connect(f"file:{ws}?mode=ro", uri=True)
    try:
        return list(connection.iterdump())
    finally:
        connection.close()


@pytest.fixture
def reviewed(cli, tmp_path):
    """The demo corpus classified into a workspace, its queue decided."""
    classified, ws = tmp_path / "demo.csv", tmp_path / "demo.review.sqlite"
    result = cli("classify", SAMPLE, "-o", classified, "--workspace", ws)
    assert result.exit_code == 0, result.output
    with Workspace.open(ws) as opened:
        for item in opened.items(kind="queue", limit=1000):
            opened.decide(item.id, label="TA" if item.proposal else "NTA", spans=item.proposal, reviewer="ana")
        for item in opened.items(kind="audit", limit=5):
            opened.decide(item.id, label="TA" if item.proposal else "NTA", spans=item.proposal, reviewer="ana")
    return classified, ws


@pytest.fixture
def other_corpus(tmp_path) -> Path:
    return write_rows(tmp_path / "other.csv", [{"id": str(i + 1), "text": t} for i, t in enumerate(OTHER_TEXTS)])


# ------------------------------------------------------------ the release reads the record


def test_a_hidden_cell_emptied_after_review_is_refused_naming_the_message(cli, reviewed, tmp_path):
    classified, ws = reviewed
    rows = rows_of(classified)
    with Workspace.open(ws) as opened:
        listed = {item.id for item in opened.items(limit=10_000)}
    edited = next(r for r in rows if r["decision"] == "TA" and r["hidden"] != "[]" and r["id"] not in listed)
    edited["hidden"] = "[]"
    write_rows(classified, rows)
    before = content(ws)
    result = cli("release", classified, "--workspace", ws, "-o", tmp_path / "out" / "corpus.csv")
    assert result.exit_code == 1, result.output
    assert repr(edited["id"]) in result.output and "1 message" in result.output
    assert not (tmp_path / "out").exists()
    assert content(ws) == before  # the release never re-syncs the workspace from the file it is given


def test_the_release_names_the_first_messages_and_counts_them(cli, reviewed, tmp_path):
    classified, ws = reviewed
    rows = rows_of(classified)
    for row in rows[:7]:
        row["text"] += " !"
    write_rows(classified, rows)
    result = cli("release", classified, "--workspace", ws, "-o", tmp_path / "corpus.csv")
    assert result.exit_code == 1
    message = " ".join(result.output.split())
    assert "7 messages" in message and repr(rows[0]["id"]) in message and "2 more" in message
    assert not (tmp_path / "corpus.csv").exists()


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(row=st.integers(0, 5), column=st.sampled_from(["text", "decision", "hidden"]), data=st.data())
def test_any_edit_of_a_recorded_message_is_found(tmp_path, row, column, data):
    rows = [{"id": f"m{i}", "text": f"salut Julie {i}", "seekhide": "TA", "model": "TA", "score": "0.9",
             "decision": "TA", "anonymised": "salut <PRE> ", "hidden": json.dumps([[6, 11, "PRE"]]),
             "highlighted": "[]"} for i in range(6)]
    path = write_rows(tmp_path / "c.csv", rows)
    ws = tmp_path / "ws.sqlite"
    if ws.exists():
        ws.unlink()
    opened, _ = open_synced(path, ws, audit=0)
    with opened:
        assert opened.disagreements(path) == []
        changed = dict(rows[row])
        if column == "text":
            changed["text"] = data.draw(st.text(min_size=1).filter(lambda t: t != changed["text"] and t.strip()
                                                                   and "\x00" not in t and "\r" not in t))
            changed["hidden"] = "[]"
        elif column == "decision":
            changed["decision"] = data.draw(st.sampled_from(["NTA", "EXPERT"]))
        else:
            changed["hidden"] = data.draw(st.sampled_from(["[]", json.dumps([[0, 5, "PRE"]]),
                                                           json.dumps([[6, 11, "LOC"]])]))
        edited = write_rows(tmp_path / "edited.csv", [changed if i == row else r for i, r in enumerate(rows)])
        try:
            found = opened.disagreements(edited)
        except InputError:
            return  # a cell the classified format refuses is refused anyway
        assert found == [f"m{row}"]


# ------------------------------------------------------------ another corpus changes nothing


def test_a_release_with_another_corpus_changes_nothing(cli, reviewed, other_corpus, tmp_path):
    classified, ws = reviewed
    other = tmp_path / "other.classified.csv"
    assert cli("classify", other_corpus, "-o", other).exit_code == 0
    with Workspace.open(ws) as opened:
        audit = opened.audit_estimate()
    before = content(ws)
    result = cli("release", other, "--workspace", ws, "-o", tmp_path / "corpus.csv")
    assert result.exit_code == 1 and "disagrees with the review workspace" in " ".join(result.output.split())
    assert content(ws) == before
    with Workspace.open(ws) as opened:
        assert opened.audit_estimate() == audit and audit["audited"] == 5


def test_syncing_another_corpus_is_refused_before_anything_changes(cli, reviewed, other_corpus, tmp_path):
    classified, ws = reviewed
    other = tmp_path / "other.classified.csv"
    assert cli("classify", other_corpus, "-o", other).exit_code == 0
    before = content(ws)
    with pytest.raises(BadInput, match="not the corpus of the review workspace"):
        open_synced(other, ws)
    assert content(ws) == before
    again = cli("classify", other_corpus, "-o", tmp_path / "again.csv", "--workspace", ws)
    assert again.exit_code == 1 and "not the corpus" in again.output
    assert not (tmp_path / "again.csv").exists()
    assert content(ws) == before
    # The same corpus classified again still syncs (decisions kept).
    same = cli("classify", SAMPLE, "-o", tmp_path / "same.csv", "--workspace", ws)
    assert same.exit_code == 0, same.output


# ------------------------------------------------------------ preconditions and interruptions


def test_classify_with_a_workspace_and_repeated_ids_writes_nothing(cli, tmp_path):
    rows = [{"id": "1", "text": "salut"}, {"id": "2", "text": "ok"}, {"id": "1", "text": "a plus"}]
    source = write_rows(tmp_path / "dup.csv", rows)
    result = cli("classify", source, "-o", tmp_path / "c.csv", "--workspace", tmp_path / "ws.sqlite")
    assert result.exit_code == 1 and "'1'" in result.output
    assert not (tmp_path / "c.csv").exists() and not (tmp_path / "ws.sqlite").exists()
    assert not (tmp_path / "c.summary.png").exists()


def _interrupting(monkeypatch, after: int):
    calls = {"n": 0}
    original = loading_module.reasons

    def interrupted(*args, **kwargs):
        calls["n"] += 1
        if calls["n"] > after:
            raise KeyboardInterrupt
        return original(*args, **kwargs)

    monkeypatch.setattr(loading_module, "reasons", interrupted)


def test_an_interrupted_sync_leaves_the_workspace_as_it_was(reviewed, monkeypatch):
    classified, ws = reviewed
    before = content(ws)
    _interrupting(monkeypatch, after=3)
    with pytest.raises(KeyboardInterrupt):
        open_synced(classified, ws, audit=10, seed=1)
    assert content(ws) == before


def test_an_interrupted_first_sync_leaves_no_workspace(classified, tmp_path, monkeypatch):
    ws = tmp_path / "ws.sqlite"
    _interrupting(monkeypatch, after=3)
    with pytest.raises(KeyboardInterrupt):
        open_synced(classified, ws)
    assert not ws.exists()


def test_classify_interrupted_while_loading_its_workspace_leaves_it_as_it_was(reviewed, monkeypatch, tmp_path):
    classified, ws = reviewed
    before = content(ws)
    _interrupting(monkeypatch, after=3)
    with pytest.raises(KeyboardInterrupt):
        jobs.classify_with_workspace(SAMPLE, tmp_path / "again.csv", ws, read=ReadOptions(), chart=False)
    assert content(ws) == before
    fresh = tmp_path / "fresh.sqlite"
    with pytest.raises(KeyboardInterrupt):
        jobs.classify_with_workspace(SAMPLE, tmp_path / "again2.csv", fresh, read=ReadOptions(), chart=False)
    assert not fresh.exists() and not fresh.with_name(fresh.name + "-wal").exists()


# ------------------------------------------------------------ outputs


def test_the_release_never_replaces_the_input_classify_recorded(cli, tmp_path):
    source = tmp_path / "corpus.csv"
    source.write_bytes(SAMPLE.read_bytes())
    classified, ws = tmp_path / "c.csv", tmp_path / "ws.sqlite"
    assert cli("classify", source, "-o", classified, "--workspace", ws).exit_code == 0
    for target in (source, tmp_path / "." / "corpus.csv", ws, classified):
        result = cli("release", classified, "--workspace", ws, "-o", target, "--force", "--withhold-undecided")
        assert result.exit_code == 1, (target, result.output)
    assert source.read_bytes() == SAMPLE.read_bytes()


def test_every_output_is_checked_before_the_corpus_is_written(cli, reviewed, tmp_path):
    classified, ws = reviewed
    (tmp_path / "corpus.datasheet.md").mkdir()
    result = cli("release", classified, "--workspace", ws, "-o", tmp_path / "corpus.csv", "--force")
    assert result.exit_code == 1 and "folder" in result.output
    assert not (tmp_path / "corpus.csv").exists() and not (tmp_path / "corpus.datasheet.json").exists()


# ------------------------------------------------------------ id and text columns


def test_the_release_reads_the_id_and_text_columns_classify_was_told(cli, tmp_path):
    rows = [{"msgid": f"k{i}", "donor": f"d{i % 3}", "body": t} for i, t in enumerate(OTHER_TEXTS)]
    source = write_rows(tmp_path / "in.csv", rows)
    classified, ws = tmp_path / "c.csv", tmp_path / "ws.sqlite"
    result = cli("classify", source, "-o", classified, "--workspace", ws, "--id-column", "msgid",
                 "--text-column", "body")
    assert result.exit_code == 0, result.output
    released = cli("release", classified, "--workspace", ws, "-o", tmp_path / "r.csv", "--withhold-undecided",
                   "--columns", "donor")
    assert released.exit_code == 0, released.output
    records = rows_of(tmp_path / "r.csv")
    assert records and list(records[0]) == ["msgid", "donor", "body"]
    by_id = {r["msgid"]: r for r in rows}
    for record in records:
        assert record["donor"] == by_id[record["msgid"]]["donor"]
        assert record["body"]
    sheet = json.loads((tmp_path / "r.datasheet.json").read_text("utf-8"))
    assert sheet["columns"] == ["msgid", "donor", "body"]


# ------------------------------------------------------------ columns kept from the input


def _with_columns(cli, tmp_path, rows):
    source = write_rows(tmp_path / "in.csv", rows)
    classified, ws = tmp_path / "c.csv", tmp_path / "ws.sqlite"
    result = cli("classify", source, "-o", classified, "--workspace", ws)
    assert result.exit_code == 0, result.output
    return classified, ws


def test_every_kept_column_goes_through_the_machines(cli, tmp_path):
    rows = [{"id": f"sophie_{i}", "sender": "Julie Martin 06 12 34 56 78", "text": t, "copy": t}
            for i, t in enumerate(OTHER_TEXTS)]
    classified, ws = _with_columns(cli, tmp_path, rows)
    out = tmp_path / "r.csv"
    unnamed = cli("release", classified, "--workspace", ws, "-o", tmp_path / "u.csv", "--withhold-undecided",
                  "--columns", "sender")
    assert unnamed.exit_code == 0 and list(rows_of(tmp_path / "u.csv")[0]) == ["id", "sender", "text"]  # no copy
    released = cli("release", classified, "--workspace", ws, "-o", out, "--withhold-undecided",
                   "--columns", "sender,copy", "--style", "pseudonyms")
    assert released.exit_code == 0, released.output
    records = rows_of(out)
    assert records and list(records[0]) == ["id", "sender", "text", "copy"]
    for record in records:
        for cell in (record["id"], record["sender"]):
            assert "sophie" not in cell.lower() and "julie" not in cell.lower() and "06 12" not in cell, record
        assert record["copy"] == record["text"]  # a copy of the message is released as the message
    sheet = json.loads((tmp_path / "r.datasheet.json").read_text("utf-8"))
    assert sheet["columns_through_machines"] == ["id", "sender", "copy"]
    assert {"id", "sender"} <= set(sheet["hidden_in_columns"])
    markdown = (tmp_path / "r.datasheet.md").read_text("utf-8")
    assert "went through the same machines" in markdown and "sender" in markdown
    assert "addresss" not in markdown and "e-mail addresses" in markdown


NAMES = ["Julie", "Kevin", "Sophie", "Nicolas", "Karim", "Manon", "Lucas", "Chloé"]


@settings(max_examples=30, deadline=None)
@given(name=st.sampled_from(NAMES), digits=st.lists(st.integers(10, 99), min_size=4, max_size=4),
       before=st.sampled_from(["", "de ", "tel "]), shape=st.sampled_from(["{n} {p}", "{p} ({n})", "{n}_{p}"]))
def test_a_kept_cell_shows_no_name_or_phone(name, digits, before, shape):
    from triage.publication.corpus import Tags, machine_spans, release_text

    phone = "06 " + " ".join(map(str, digits))
    cell = before + shape.format(n=name, p=phone)
    spans = machine_spans({cell}, ("PRE", "NOM", "SUR", "TEL", "MEL", "URL", "ADR", "COD")).get(cell, [])
    released = release_text(cell, spans, Tags().replace)
    assert name not in released and phone not in released, (cell, released)


def test_a_corpus_classified_with_its_own_text_column_can_be_released(cli, tmp_path):
    rows = [{"body": t, "date": f"2024-01-{i + 1:02d}"} for i, t in enumerate(OTHER_TEXTS)]
    source = write_rows(tmp_path / "in.csv", rows)
    classified, ws = tmp_path / "c.csv", tmp_path / "ws.sqlite"
    assert cli("classify", source, "-o", classified, "--workspace", ws, "--text-column", "body").exit_code == 0
    released = cli("release", classified, "--workspace", ws, "-o", tmp_path / "r.csv", "--withhold-undecided",
                   "--columns", "date")
    assert released.exit_code == 0, released.output
    records = rows_of(tmp_path / "r.csv")
    assert records and list(records[0]) == ["id", "body", "date"]
    dates = {r["body"]: r["date"] for r in rows}
    assert all(record["date"] == dates[record["body"]] for record in records if record["body"] in dates)
    assert any(record["body"] in dates for record in records)


def test_kept_columns_go_through_the_model_classify_used(cli, tmp_path):
    from triage import model

    chosen = tmp_path / "mine.triage"
    chosen.write_bytes(model.default_model_path().read_bytes())
    rows = [{"id": str(i + 1), "sender": "Kevin", "text": t} for i, t in enumerate(OTHER_TEXTS)]
    source = write_rows(tmp_path / "in.csv", rows)
    classified, ws = tmp_path / "c.csv", tmp_path / "ws.sqlite"
    assert cli("classify", source, "-o", classified, "--workspace", ws, "--model", chosen).exit_code == 0
    released = cli("release", classified, "--workspace", ws, "-o", tmp_path / "r.csv", "--withhold-undecided",
                   "--columns", "sender")
    assert released.exit_code == 0, released.output
    sheet = json.loads((tmp_path / "r.datasheet.json").read_text("utf-8"))
    assert sheet["columns_model"] == "mine.triage"
    assert all("Kevin" not in record["sender"] for record in rows_of(tmp_path / "r.csv"))


@settings(max_examples=25, deadline=None)
@given(text=st.text(st.characters(codec="utf-8", exclude_categories=["Cs", "Cc"]), min_size=8, max_size=40)
       .filter(lambda t: len(t.strip()) >= 8),
       before=st.text(max_size=5), after=st.text(max_size=5))
def test_a_cell_holding_a_message_is_a_raw_copy(text, before, after):
    from triage.publication.corpus import _refuse_text_copies
    from triage.review_workspace import FinalRow

    row = FinalRow("1", 0, text, "NTA", [], "machine")
    finals = [(row, {"id": "1", "note": before + text + after})]
    with pytest.raises(BadInput, match="'note' holds the raw text"):
        _refuse_text_copies(finals, ["id", "note"], [], "text")
    _refuse_text_copies(finals, ["id", "note"], ["note"], "text")  # named with --columns: released
    _refuse_text_copies([(row, {"id": "1", "note": "ok"})], ["id", "note"], [], "text")
