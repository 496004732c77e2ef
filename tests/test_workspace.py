"""The review workspace: decisions that last, learning with a scope, the audit estimate."""

import csv
import json
import os
import signal
import sqlite3
import stat
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from conftest import SAMPLE
from scipy.stats import binomtest

from triage.lexicons import userlexicon
from triage.review_workspace import Workspace, apply_workspace, open_synced
from triage.review_workspace.workspace import NeedsConfirmation


def rows_of(path: Path) -> list[dict]:
    with open(path, newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def test_the_list_is_the_queue_riskiest_first_then_a_seeded_audit_sample(classified, workspace):
    rows = rows_of(classified)
    expert = [r for r in rows if r["decision"] == "EXPERT"]
    queue = workspace.items(kind="queue", limit=1000)
    assert [i.id for i in queue] == [r["id"] for r in sorted(expert, key=lambda r: -float(r["risk"]))]
    audit = workspace.items(kind="audit", limit=1000)
    assert len(audit) == 20 and all(next(r for r in rows if r["id"] == i.id)["decision"] != "EXPERT" for i in audit)
    assert [i.rank for i in queue + audit] == list(range(len(queue) + 20))
    again = Workspace.open(workspace.path)
    again.sync(classified, audit=20)  # a re-sync keeps the same sample
    assert [i.id for i in again.items(kind="audit", limit=1000)] == [i.id for i in audit]
    again.close()


def test_the_workspace_is_private_and_refuses_other_files(workspace, tmp_path):
    assert stat.S_IMODE(workspace.path.stat().st_mode) == 0o600
    other = tmp_path / "other.sqlite"
    sqlite3.connect(other).execute("CREATE TABLE t (x)").connection.close()
    with pytest.raises(Exception, match="not a review workspace"):
        Workspace.open(other)
    text = tmp_path / "notes.txt"
    text.write_text("hello", "utf-8")
    with pytest.raises(Exception, match="not a review workspace"):
        Workspace.open(text)


def test_a_decision_is_logged_with_before_and_after_and_can_be_undone(workspace):
    first = workspace.items(limit=1)[0]
    start = first.text.index(first.text.split()[0])
    decided = workspace.decide(first.id, label="TA", spans=[[start, start + len(first.text.split()[0]), "PRE"]],
                               reviewer="ana")
    assert (decided.status, decided.label, decided.reviewer) == ("decided", "TA", "ana")
    (event,) = workspace.history(first.id)
    assert (event["action"], event["label_before"], event["label_after"]) == ("decide", None, "TA")
    assert event["spans_after"] == decided.spans and event["reviewer"] == "ana"
    assert workspace.next_pending().id != first.id  # resumes at the next message
    undone = workspace.undo(reviewer="ana")
    assert undone.id == first.id and undone.status == "pending" and undone.label is None
    assert [e["action"] for e in workspace.history(first.id)] == ["decide", "undo"]  # append-only
    assert workspace.undo(reviewer="ana") is None  # nothing left to undo
    assert workspace.next_pending().id == first.id


def test_bad_decisions_are_refused_with_one_line(workspace):
    item = workspace.items(limit=1)[0]
    for label, spans, problem in [
        ("maybe", [], "TA or NTA"),
        ("TA", [[0, 10_000, "PRE"]], "outside the message"),
        ("TA", [[0, 2, "XYZ"]], "unknown tag"),
        ("TA", [[0, 3, "PRE"], [2, 4, "PRE"]], "overlap"),
        ("NTA", [[0, 2, "PRE"]], "hides nothing"),
        ("TA", "0-2", "list of"),
    ]:
        with pytest.raises(Exception, match=problem):
            workspace.decide(item.id, label=label, spans=spans, reviewer="ana")
    assert workspace.history() == []


def test_decisions_survive_a_new_classification_and_a_changed_text_is_looked_at_again(classified, tmp_path):
    ws_path = tmp_path / "ws.sqlite"
    opened, _ = open_synced(classified, ws_path, audit=5)
    queued = opened.items(kind="queue", limit=3)
    for item in queued:
        opened.decide(item.id, label="NTA", spans=[], reviewer="ana")
    opened.close()
    # The same corpus classified again with another budget, and one decided text edited.
    rows = rows_of(classified)
    for row in rows:
        if row["id"] == queued[0].id:
            row["text"] += " (edited)"
            row["hidden"] = "[]"
    changed = tmp_path / "again.csv"
    with open(changed, "w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    opened, summary = open_synced(changed, ws_path, audit=5)
    with opened:
        assert summary.kept == 2 and summary.stale == 1
        assert opened.item(queued[1].id).status == "decided"
        assert opened.item(queued[0].id).status == "stale"
        assert opened.next_pending().id == queued[0].id  # asked again, first


def test_classify_with_a_workspace_does_not_ask_twice(cli, tmp_path):
    ws = tmp_path / "ws.sqlite"
    first = cli("classify", SAMPLE, "-o", tmp_path / "a.csv", "--workspace", ws, "--expert-budget", "0.05")
    assert first.exit_code == 0, first.output
    assert "still to look at" in first.output
    with Workspace.open(ws) as opened:
        for item in opened.items(kind="queue", limit=1000):
            opened.decide(item.id, label="NTA", spans=[], reviewer="ana")
        decided = {i.id for i in opened.items(kind="queue", limit=1000)}
    second = cli("classify", SAMPLE, "-o", tmp_path / "b.csv", "--workspace", ws, "--expert-budget", "0.10")
    assert second.exit_code == 0, second.output
    assert f"{len(decided)} decided earlier" in second.output
    with Workspace.open(ws) as opened:
        pending = {i.id for i in opened.items(kind="queue", status="pending", limit=1000)}
        assert pending and not pending & decided


def test_a_frequent_ordinary_word_needs_confirmation_with_a_preview_and_can_be_undone(workspace):
    with pytest.raises(NeedsConfirmation) as refused:
        workspace.learn("les", kind="name", scope="corpus", reviewer="ana")
    preview = refused.value.preview
    assert preview["messages"] >= 10 and preview["summary"] == f"hides 'les' in {preview['messages']} messages"
    assert preview["examples"] and all("les" in ex["text"][ex["start"]:ex["end"]].lower() for ex in preview["examples"])
    assert workspace.learnt() == []
    entry = workspace.learn("les", kind="name", scope="corpus", reviewer="ana", confirm=True)
    hidden_les = [r for r in workspace.final() if any(r.text[s:e].lower() == "les" for s, e, _ in r.spans)]
    assert len(hidden_les) == preview["messages"]
    workspace.unlearn(entry["id"], reviewer="ana")
    assert not [r for r in workspace.final() if any(r.text[s:e].lower() == "les" for s, e, _ in r.spans)]
    assert [e["active"] for e in workspace.learnt()] == [0]


def test_a_phrase_is_learnt_as_a_phrase_not_word_by_word(workspace):
    workspace.learn("Les Tamaris", kind="name", scope="corpus", tag="LIE", reviewer="ana")
    for row in workspace.final():
        for start, end, _tag in row.spans:
            if row.text[start:end].lower() == "les":
                raise AssertionError(f"'les' hidden alone in {row.text!r}")
    tamaris = [r for r in workspace.final() if "Tamaris" in r.text]
    assert tamaris and all(any(r.text[s:e] == "Les Tamaris" and t == "LIE" for s, e, t in r.spans) for r in tamaris)


def test_an_nta_answer_never_teaches_a_word(workspace, monkeypatch, tmp_path):
    user = tmp_path / "user"
    monkeypatch.setenv("TRIAGE_USER_LEXICON_DIR", str(user))
    for item in workspace.items(kind="queue", limit=1000):
        workspace.decide(item.id, label="NTA", spans=[], reviewer="ana")
    assert workspace.learnt() == [] and not user.exists()
    machine = [r for r in workspace.final() if r.route == "machine"]
    assert any(r.spans for r in machine)  # the machines' other decisions are untouched


def test_learning_for_future_corpora_goes_to_the_user_lexicon(workspace, tmp_path):
    user = tmp_path / "mine"
    entry = workspace.learn("Zorblatt", kind="name", scope="user", reviewer="ana", lexicon_dir=user)
    assert "zorblatt" in (user / "names.txt").read_text("utf-8").splitlines()
    assert stat.S_IMODE((user / "names.txt").stat().st_mode) == 0o600
    workspace.unlearn(entry["id"], reviewer="ana", lexicon_dir=user)
    assert "zorblatt" not in (user / "names.txt").read_text("utf-8").splitlines()
    with pytest.raises(Exception, match="for this corpus only"):  # a cell with a newline never writes two lines
        workspace.learn("jean\npierre", kind="word", scope="user", reviewer="ana", lexicon_dir=user)
    with pytest.raises(Exception, match="line break"):
        userlexicon.update(user, words=["jean\npierre"])


def test_the_user_lexicon_default_is_the_users_data_folder_not_the_package(monkeypatch):
    from triage import lexicons

    monkeypatch.delenv(lexicons.USER_DIR_ENV, raising=False)
    folder = lexicons.default_user_directory()
    assert lexicons.DICTIONARIES_DIR not in folder.parents and "sms-triage" in str(folder)


def test_a_new_name_leaves_the_words_file_and_comments_stay(tmp_path):
    user = tmp_path / "user"
    user.mkdir()
    (user / "words.txt").write_text("# words\nzorglub\nzblorf  # a comment\n", "utf-8")
    added = userlexicon.update(user, names=["Zorglub"])
    assert added == (["zorglub"], [])
    assert (user / "words.txt").read_text("utf-8") == "# words\nzblorf  # a comment\n"
    assert userlexicon.update(user, words=["zorglub"]) == ([], [])  # a name wins


def test_two_processes_learning_at_once_both_keep_their_words(tmp_path):
    script = textwrap.dedent("""
        import sys
        from pathlib import Path
        from triage.lexicons import userlexicon
        folder, prefix = Path(sys.argv[1]), sys.argv[2]
        for i in range(15):
            userlexicon.update(folder, names=[f"{prefix}{i}"])
    """)
    for trial in range(10):
        folder = tmp_path / f"user{trial}"
        runs = [subprocess.Popen([sys.executable, "-c", script, str(folder), p]) for p in ("aaa", "bbb")]
        assert [run.wait(60) for run in runs] == [0, 0]
        names = set((folder / "names.txt").read_text("utf-8").split())
        assert {f"{p}{i}" for p in ("aaa", "bbb") for i in range(15)} <= names, trial


def test_killing_the_process_loses_at_most_the_decision_in_flight(classified, tmp_path):
    ws = tmp_path / "ws.sqlite"
    opened, _ = open_synced(classified, ws, audit=200)
    opened.close()
    script = textwrap.dedent("""
        import sys, itertools
        from triage.review_workspace import Workspace
        ws = Workspace.open(sys.argv[1])
        items = ws.items(limit=1000)
        for n, item in enumerate(itertools.cycle(items)):
            ws.decide(item.id, label="NTA", spans=[], reviewer="ana")
            print(n, item.id, flush=True)
    """)
    run = subprocess.Popen([sys.executable, "-c", script, str(ws)], stdout=subprocess.PIPE, text=True)
    lines = []
    while len(lines) < 40:
        lines.append(run.stdout.readline())
    os.kill(run.pid, signal.SIGKILL)
    run.wait(10)
    confirmed = [line.split()[1] for line in lines if line.strip()]
    with sqlite3.connect(ws) as db:
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    with Workspace.open(ws) as reopened:
        decided = {i.id for i in reopened.items(status="decided", limit=1000)}
        assert set(confirmed) <= decided
        assert len(reopened.history()) >= len(confirmed)


def test_the_audit_estimate_is_the_exact_binomial_interval(workspace):
    audit = workspace.items(kind="audit", limit=1000)
    leaking = 0
    for n, item in enumerate(audit[:10]):
        machine = item.machine_spans
        if n < 3:  # the reviewer finds something the machines left readable
            word_end = item.text.find(" ") if " " in item.text else len(item.text)
            extra = [0, word_end, "PRE"]
            if not any(s < word_end and e > 0 for s, e, _ in machine):
                workspace.decide(item.id, label="TA", spans=[*machine, extra], reviewer="ana")
                leaking += 1
                continue
        workspace.decide(item.id, label=item.machine_label, spans=machine, reviewer="ana")
    estimate = workspace.audit_estimate()
    expected = binomtest(leaking, 10).proportion_ci(method="exact")
    assert (estimate["audited"], estimate["leaking"]) == (10, leaking) and leaking >= 1
    assert estimate["low"] == pytest.approx(expected.low) and estimate["high"] == pytest.approx(expected.high)


def test_review_report_prints_the_estimate_and_learnt_lists_entries(cli, classified, tmp_path):
    ws = tmp_path / "ws.sqlite"
    opened, _ = open_synced(classified, ws, audit=4)
    with opened:
        for item in opened.items(kind="audit", limit=10):
            opened.decide(item.id, label=item.machine_label, spans=item.machine_spans, reviewer="ana")
        opened.learn("juju", kind="name", scope="corpus", tag="SUR", reviewer="ana")
    result = cli("review", classified, "--workspace", ws, "--report")
    assert result.exit_code == 0, result.output
    assert "audit: 0 of 4 machine-released messages reviewed still show something identifying: 0.0% (95% CI 0.0%-60.2%" in result.output
    listed = cli("review", classified, "--workspace", ws, "--learnt")
    assert "#1  juju  name SUR  corpus  ana" in listed.output
    undone = cli("review", classified, "--workspace", ws, "--unlearn", "1")
    assert undone.exit_code == 0 and "undone: #1 'juju'" in undone.output
    missing = cli("review", classified, "--workspace", tmp_path / "none.sqlite", "--report")
    assert missing.exit_code == 1 and "no review workspace" in missing.output


def test_queue_apply_takes_a_workspace(cli, classified, tmp_path):
    ws = tmp_path / "ws.sqlite"
    opened, _ = open_synced(classified, ws, audit=0)
    with opened:
        first = opened.items(limit=1)[0]
        opened.decide(first.id, label="NTA", spans=[], reviewer="ana")
        undecided = opened.undecided()
    result = cli("queue", "apply", ws, classified, "-o", tmp_path / "final.csv")
    assert result.exit_code == 0, result.output
    final = {r["id"]: r for r in rows_of(tmp_path / "final.csv")}
    assert final[first.id]["final"] == "NTA" and final[first.id]["final_text"] == first.text
    assert sum(r["final"] == "EXPERT" for r in final.values()) == undecided
    counts = apply_workspace(ws, classified, tmp_path / "again.csv")
    assert counts.get("EXPERT") == undecided


def test_candidates_group_the_pending_words_by_spelling(workspace):
    groups = workspace.candidates()
    assert groups and all(g["messages"] >= 1 and g["examples"] for g in groups)
    assert [g["messages"] for g in groups] == sorted((g["messages"] for g in groups), reverse=True)
    top = groups[0]  # the spelling pending in the most messages
    assert len({g["spelling"] for g in groups}) == len(groups)  # one group a spelling
    workspace.learn(top["spelling"], kind="word", scope="corpus", reviewer="ana", confirm=True, digest=top["digest"])
    assert top["spelling"] not in {g["spelling"] for g in workspace.candidates()}


def test_progress_counts_and_time_left(workspace):
    items = workspace.items(limit=3)
    for item in items:
        workspace.decide(item.id, label="NTA", spans=[], reviewer="ana")
        time.sleep(0)  # decisions in the same second: no time estimate yet, never a crash
    progress = workspace.progress()
    assert progress["decided"] == 3 and progress["left"] == progress["total"] - 3
    assert json.dumps(progress)


def test_two_writers_of_the_user_lexicon_lose_nothing(tmp_path):
    """Two reviews (or a review and `triage lexicons`) learning at the same time: each
    once kept only its own names. The lock and the read-modify-write keep both."""
    import multiprocessing

    from triage.lexicons import userlexicon

    def learn(prefix: str) -> None:
        for i in range(25):
            userlexicon.update(tmp_path, names=[f"{prefix}zorg{i}"])

    context = multiprocessing.get_context("fork")
    writers = [context.Process(target=learn, args=(prefix,)) for prefix in ("a", "b")]
    for writer in writers:
        writer.start()
    for writer in writers:
        writer.join(60)
        assert writer.exitcode == 0
    learnt = {line for line in (tmp_path / "names.txt").read_text("utf-8").splitlines() if not line.startswith("#")}
    assert learnt == {f"{p}zorg{i}" for p in "ab" for i in range(25)}


# ------------------------------------------------- decisions bound to their text


def write_messages(path: Path, texts: dict[str, str]) -> Path:
    """A classified file of these messages (id -> text), all queued for a human, in this order."""
    from conftest import CLASSIFIED_COLUMNS

    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(CLASSIFIED_COLUMNS)
        for rank, (ident, text) in enumerate(texts.items()):
            writer.writerow([ident, text, "UNTAGGED", "TA", "0.6", "EXPERT", text, "[]", "[]", str(0.9 - rank / 100)])
    return path


def test_a_decision_or_skip_on_a_text_changed_since_is_refused_and_stores_nothing(tmp_path):
    from triage.review_workspace.workspace import TextChanged, text_hash

    classified = write_messages(tmp_path / "c.csv", {"1": "salut Kevin", "2": "ok a demain"})
    opened, _ = open_synced(classified, tmp_path / "ws.sqlite", audit=0)
    with opened as ws:
        shown = ws.item("1")
        assert shown.text_hash == text_hash(shown.text)
        # The corpus classified again while the page still shows the old text.
        ws.sync(write_messages(classified, {"1": "🎉 salut Kevin", "2": "ok a demain"}), audit=0)
        with pytest.raises(TextChanged, match="changed since it was shown"):
            ws.decide("1", label="TA", spans=[[6, 11, "PRE"]], reviewer="ana", text_hash=shown.text_hash)
        with pytest.raises(TextChanged, match="changed since it was shown"):
            ws.skip("1", reviewer="ana", text_hash=shown.text_hash)
        assert ws.history() == [] and ws.item("1").status == "pending"
        with pytest.raises(Exception, match="text_hash must be"):
            ws.decide("1", label="NTA", spans=[], reviewer="ana", text_hash=["not", "a", "hash"])
        now = ws.item("1")
        decided = ws.decide("1", label="TA", spans=[[8, 13, "PRE"]], reviewer="ana", text_hash=now.text_hash)
        assert decided.text[8:13] == "Kevin" and decided.status == "decided"
        assert ws.skip("2", reviewer="ana", text_hash=ws.item("2").text_hash).status == "skipped"


def test_undo_never_brings_back_spans_of_another_text(tmp_path):
    before = {"1": "salut Kevin", "2": "coucou Léa"}
    classified = write_messages(tmp_path / "c.csv", before)
    opened, _ = open_synced(classified, tmp_path / "ws.sqlite", audit=0)
    with opened as ws:
        ws.decide("2", label="TA", spans=[[7, 10, "PRE"]], reviewer="ana")
        ws.decide("1", label="TA", spans=[[6, 11, "PRE"]], reviewer="ana")
        ws.decide("1", label="TA", spans=[[0, 11, "PRE"]], reviewer="ana")
        # Message 1 is classified again with another text: its decisions were made on a text it no
        # longer holds, so they no longer apply and an undo passes over them.
        ws.sync(write_messages(classified, {"1": "Kevin est là", "2": "coucou Léa"}), audit=0)
        assert ws.item("1").status == "stale"
        undone = ws.undo(reviewer="ana")
        assert undone.id == "2" and undone.status == "pending"
        one = ws.item("1")
        assert one.status == "stale" and one.spans is None  # nothing of the old text came back
        assert [e["action"] for e in ws.history("1")] == ["decide", "decide"]
        assert ws.undo(reviewer="ana") is None
        # The old text back: the decisions made on it are its own again, and undo reaches them.
        ws.sync(write_messages(classified, before), audit=0)
        undone = ws.undo(reviewer="ana")
        assert undone.id == "1" and undone.status == "decided" and undone.spans == [[6, 11, "PRE"]]
