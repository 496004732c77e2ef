"""Bounds on what a run reads and computes: a side file that is a pipe, a device or too large, a
word far longer than any name, too many simulated review rounds, a text no workspace can keep.
Each gets one line before any work, never a hang, a MemoryError or a traceback."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import pandas as pd
import pytest
from conftest import SAMPLE, failed, nothing_written, write_table

import triage
from triage.errors import BadInput, BadOption


def finishes(call, seconds: float = 60.0):
    """What `call()` returns or raises, run in a thread: a call still running after `seconds`
    fails the test instead of hanging it (a FIFO with no writer blocks its reader forever)."""
    outcome: dict = {}

    def target():
        try:
            outcome["value"] = call()
        except BaseException as error:  # noqa: BLE001 - handed to the test
            outcome["error"] = error

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(seconds)
    if thread.is_alive():
        pytest.fail(f"still running after {seconds:.0f} s")
    if "error" in outcome:
        raise outcome["error"]
    return outcome.get("value")


@pytest.fixture
def fifo(tmp_path) -> Path:
    path = tmp_path / "names.fifo"
    os.mkfifo(path)
    yield path
    try:  # a reader still blocked on it (before the bound existed) is let go
        descriptor = os.open(path, os.O_WRONLY | os.O_NONBLOCK)
        os.close(descriptor)
    except OSError:
        pass


@pytest.fixture
def small_corpus(tmp_path) -> Path:
    return write_table(tmp_path / "sms.csv", [["1", "Salut Julie ca va"], ["2", "ok merci"]], header=["id", "text"])


# ---------------------------------------------------------------- side files: regular files only


@pytest.mark.parametrize("which", ["fifo", "/dev/zero", "folder", "large"])
def test_known_names_must_be_a_regular_file_of_bounded_size(which, fifo, tmp_path):
    from triage.seekhide.known import MAX_FILE_BYTES, read_known_names

    if which == "large":
        path = tmp_path / "large.txt"
        with open(path, "wb") as handle:
            handle.truncate(MAX_FILE_BYTES + 1)  # sparse: as large as claimed, without the disk
    else:
        path = {"fifo": fifo, "/dev/zero": Path("/dev/zero"), "folder": tmp_path}[which]
    with pytest.raises(BadInput, match="--known-names") as refused:
        finishes(lambda: read_known_names(path), 30)
    assert len(str(refused.value).splitlines()) == 1


@pytest.mark.parametrize("which", ["fifo", "/dev/zero"])
def test_classify_refuses_known_names_from_a_pipe_or_a_device_in_one_line(cli, small_corpus, tmp_path, fifo, which):
    out = tmp_path / "out"
    path = fifo if which == "fifo" else Path("/dev/zero")
    result = finishes(lambda: cli("classify", small_corpus, "-o", out / "c.csv", "--no-chart", "--known-names",
                                  path), 60)
    failed(result, 1, "--known-names", "not a regular file")
    nothing_written(out)


def test_the_api_refuses_known_names_from_a_device():
    with pytest.raises(BadInput, match="not a regular file"):
        finishes(lambda: triage.classify(pd.DataFrame({"text": ["ok"]}), known_names="/dev/zero"), 60)


@pytest.mark.parametrize("which", ["fifo", "/dev/zero"])
def test_release_refuses_an_evaluation_from_a_pipe_or_a_device_in_one_line(cli, small_corpus, tmp_path, fifo, which):
    classified, ws, out = tmp_path / "c.csv", tmp_path / "ws.sqlite", tmp_path / "release" / "r.csv"
    assert cli("classify", small_corpus, "-o", classified, "--workspace", ws, "--no-chart").exit_code == 0
    path = fifo if which == "fifo" else Path("/dev/zero")
    result = finishes(lambda: cli("release", classified, "--workspace", ws, "-o", out, "--withhold-undecided",
                                  "--evaluation", path), 60)
    failed(result, 1, "--evaluation", "not a regular file")
    nothing_written(out.parent)


def test_read_evaluation_refuses_a_file_larger_than_its_bound(tmp_path):
    from triage.publication.datasheet import MAX_EVALUATION_BYTES, read_evaluation

    path = tmp_path / "evaluate.json"
    with open(path, "wb") as handle:
        handle.truncate(MAX_EVALUATION_BYTES + 1)
    with pytest.raises(BadInput, match="--evaluation: .* bytes, more than"):
        read_evaluation(path, {})


# ---------------------------------------------------------------- known names: a long word costs little


@pytest.mark.parametrize("length", [2_000, 20_000])
def test_a_very_long_word_is_looked_up_among_the_known_names_quickly(lexicons, length):
    from triage.seekhide.known import KnownMatcher, known_names_of

    matcher = KnownMatcher(known_names_of(["Zorglubine", "Bartholomew", "Léa"]), lexicons)
    word = "abcdefghij" * (length // 10)
    started = time.perf_counter()
    assert finishes(lambda: matcher.find(word), 30) == -1
    assert time.perf_counter() - started < 5
    assert matcher.find("Zorglubinne") >= 0 and matcher.find("zorglubiiiiine") >= 0  # variants still found


def test_a_very_long_known_name_matches_as_written_only(lexicons):
    from triage.seekhide.known import VARIANTS_UP_TO, KnownMatcher, known_names_of

    long_name = ("Zorglubinettabartholomea" * 40)[:VARIANTS_UP_TO * 5]
    started = time.perf_counter()
    matcher = finishes(lambda: KnownMatcher(known_names_of([long_name, "Zorglubine"]), lexicons), 30)
    assert time.perf_counter() - started < 5
    assert matcher.find(long_name.upper()) == 0 and matcher.find(long_name[:-1]) == -1
    assert matcher.find("Zorglubinne") == 1


def test_classify_with_known_names_reads_a_message_of_one_very_long_word(tmp_path):
    text = "Zorglubine " + "abcdefghij" * 300 + " ok"  # a word of 3,000 letters, no run to collapse
    frame = pd.DataFrame({"text": [text, "salut zorglubinne"]})
    result = finishes(lambda: triage.classify(frame, known_names=["Zorglubine"]), 120)
    assert "Zorglubine" not in result["anonymised"][0] and "zorglubinne" not in result["anonymised"][1]


# ---------------------------------------------------------------- the simulated review has a bound


def test_simulate_review_refuses_more_rounds_than_its_bound_before_any_work(cli, tmp_path):
    from triage.jobs import MAX_SIMULATED_ROUNDS

    out = tmp_path / "evaluate"
    started = time.perf_counter()
    result = cli("evaluate", SAMPLE, "--no-cross-validation", "--simulate-review", str(MAX_SIMULATED_ROUNDS + 1),
                 "--out-dir", out)
    failed(result, 1, "--simulate-review", f"at most {MAX_SIMULATED_ROUNDS} rounds")
    assert time.perf_counter() - started < 20
    nothing_written(out)
    with pytest.raises(BadOption, match="at most"):
        triage.evaluate(pd.DataFrame({"text": ["ok"], "label": ["NTA"]}), simulate_review=10**9)


# ---------------------------------------------------------------- a text no workspace can keep


@pytest.mark.parametrize("column", ["text", "id"])
def test_a_lone_surrogate_with_a_workspace_is_one_line_and_writes_nothing(tmp_path, column):
    # Python strings (object): pandas' pyarrow strings, the default where pyarrow is installed, cannot
    # hold a lone surrogate at all.
    frame = pd.DataFrame({"id": ["a", "b"], "text": ["Salut Julie ca va", "ok merci"]}, dtype=object)
    frame.loc[1, column] = frame.loc[1, column] + "\ud800"
    ws = tmp_path / "ws.sqlite"
    with pytest.raises(BadInput, match="row 2, column '" + column + "', holds a lone surrogate") as refused:
        triage.classify(frame, workspace=ws, id_column="id")
    assert len(str(refused.value).splitlines()) == 1
    assert not ws.exists()
    classified = triage.classify(frame, id_column="id")  # without a workspace the frame is classified as given
    assert len(classified) == 2
