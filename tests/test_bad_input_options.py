"""Bad options and settings: policies, budgets, feature sets, lexicon folders and files, gold
spans, folds; and --debug, the one way to see a traceback. (What a clean
failure is: `failed` in tests/conftest.py.)"""


from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import (
    REPO,
    failed,
    labelled_rows,
    nothing_written,
    run,
    write_table,
)

# ------------------------------------------------------------------------ bad options


@pytest.mark.parametrize("command", ["classify", "evaluate"])
def test_an_unknown_policy(cli, labelled, out, command):
    failed(run(cli, command, labelled, out, "--policy", "coinflip"), 1, "unknown policy 'coinflip'", "choose one of paper, budget")
    nothing_written(out)


@pytest.mark.parametrize("command", ["classify", "evaluate"])
@pytest.mark.parametrize("budget", ["2.5", "-0.1", "nan"])
def test_an_expert_budget_neither_a_share_nor_a_count(cli, labelled, out, command, budget):
    failed(run(cli, command, labelled, out, "--expert-budget", budget), 1, "expert budget", "a count")
    nothing_written(out)


def test_a_budget_that_is_not_a_number_is_a_usage_error(cli, labelled, out):
    failed(run(cli, "classify", labelled, out, "--expert-budget", "ten"), 2, "Invalid value for '--expert-budget'")


@pytest.mark.parametrize("command", ["train", "evaluate"])
def test_an_unknown_feature_set(cli, labelled, out, command):
    failed(run(cli, command, labelled, out, "--features", "fancy"), 1, "unknown feature set 'fancy'", "paper, rich")
    nothing_written(out)


@pytest.mark.parametrize("where", ["missing", "file"])
def test_lexicons_from_a_folder_that_is_not_one(cli, labelled, tmp_path, where):
    directory = tmp_path / "nowhere" if where == "missing" else labelled
    failed(cli("lexicons", "--directory", directory), 1, "cannot read the lexicons", str(directory))


def _cp1252_names(user: Path) -> None:
    (user / "names.txt").write_bytes("Zoé\n".encode("cp1252"))  # a spreadsheet or Notepad on Windows


def _folder_names(user: Path) -> None:
    (user / "names.txt").mkdir()


@pytest.mark.parametrize("command, spoil, fragment", [
    ("seek", _cp1252_names, "UTF-8"),
    ("classify", _folder_names, "Is a directory"),
])
def test_an_unreadable_user_lexicon_file_is_one_clear_line(cli, labelled, tmp_path, monkeypatch, command, spoil,
                                                           fragment):
    from triage import lexicons as lexicon_module

    user = tmp_path / "user"
    user.mkdir()
    spoil(user)
    monkeypatch.setenv(lexicon_module.USER_DIR_ENV, str(user))
    lexicon_module.default.cache_clear()
    try:
        failed(cli(command, labelled, "-o", tmp_path / "out.csv"), 1, "names.txt", fragment)
    finally:
        lexicon_module.default.cache_clear()


# ----------------------------------------------------------------------------- --debug


def triage_process(*args, cwd=None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "triage", *map(str, args)], capture_output=True, text=True, cwd=cwd,
        env={**os.environ, "PYTHONPATH": str(REPO)}, timeout=120,
    )


def test_debug_shows_the_traceback_and_without_it_one_line(tmp_path):
    missing = tmp_path / "missing.csv"
    plain = triage_process("classify", missing)
    assert plain.returncode == 1
    assert plain.stderr == f"Error: {missing}: no such file\n"
    debug = triage_process("--debug", "classify", missing)
    assert debug.returncode == 1
    assert "Traceback (most recent call last)" in debug.stderr
    assert f"triage.errors.BadInput: {missing}: no such file" in debug.stderr


# ----------------------------------------------------------------------------- gold spans and folds


@pytest.mark.parametrize("spans, fragment", [
    ([[9, 99, "PRE"]], "outside the message"),
    ([[-1, 4, "PRE"]], "outside the message"),
    ([[9, 9, "PRE"]], "outside the message"),
    ([[9, 13, "PRE"], [11, 15, "NOM"]], "overlaps another span"),
])
def test_train_refuses_impossible_gold_spans(cli, tmp_path, spans, fragment):
    rows = labelled_rows()
    rows[0][3] = json.dumps(spans)
    source = write_table(tmp_path / "gold.csv", rows)
    failed(cli("train", source, "-o", tmp_path / "m.triage"), 1, "line 2: span", fragment)
    assert not (tmp_path / "m.triage").exists()


def test_more_folds_than_messages_is_one_line(cli, labelled, tmp_path):
    failed(cli("evaluate", labelled, "--folds", 1000, "--out-dir", tmp_path / "ev"), 1,
           "1000-fold cross-validation needs at least 1000 messages of each class", "--no-cross-validation")
