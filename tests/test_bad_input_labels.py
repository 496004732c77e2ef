"""Ids and labels: repeated ids in classify and the queue, label spellings, classes too small
for training, evaluation and the reports. (What a clean
failure is: `failed` in tests/conftest.py.)"""


from __future__ import annotations

import pytest
from conftest import (
    command_line,
    duplicate_first_id,
    failed,
    fill_queue,
    labelled_rows,
    nothing_written,
    read_rows,
    run,
    succeeded,
    write_table,
)

# ------------------------------------------------------------------------ ids, labels


@pytest.mark.parametrize("jobs", [[], ["--jobs", "2"]], ids=["one process", "workers"])
def test_classify_keeps_duplicate_ids_and_warns_once(cli, tmp_path, out, jobs):
    # With workers, the main process holds the ids of the chunks they keep, not their texts.
    rows = [["1", "ok"], ["1", "Coucou Julie"], ["2", "merci"], ["3", "a plus"], ["3", "bisous"], ["3", "tkt"]]
    source = write_table(tmp_path / "sms.csv", rows, ["id", "text"])
    result = run(cli, "classify", source, out, *jobs)
    succeeded(result)
    assert [(r["id"], r["text"]) for r in read_rows(out / "classified.csv")] == [tuple(r) for r in rows]
    warnings = [line for line in result.stderr.splitlines() if "id" in line]
    assert len(warnings) == 1, result.stderr
    assert "2 ids" in warnings[0] and "3 rows" in warnings[0] and "queue export" in warnings[0]


def test_classify_without_an_id_column_numbers_the_rows_and_does_not_warn(cli, tmp_path, out):
    source = write_table(tmp_path / "sms.csv", [["ok"], ["ok"], ["ok"]], ["text"])
    result = run(cli, "classify", source, out)
    succeeded(result)
    assert [r["id"] for r in read_rows(out / "classified.csv")] == ["1", "2", "3"]
    assert result.stderr == ""


def test_queue_export_refuses_duplicate_ids(cli, expert_classified, tmp_path):
    duplicate_first_id(expert_classified)
    queue = tmp_path / "queue.csv"
    failed(cli("queue", "export", expert_classified, "-o", queue), 1, "id '1' appears on lines 2 and 3", "ids must be unique")
    assert not queue.exists()


def test_queue_apply_refuses_duplicate_ids(cli, expert_classified, tmp_path):
    queue = tmp_path / "queue.csv"
    succeeded(cli("queue", "export", expert_classified, "-o", queue))
    fill_queue(queue)
    duplicate_first_id(queue)
    final = tmp_path / "final.csv"
    failed(cli("queue", "apply", queue, expert_classified, "-o", final), 1, "ids must be unique")
    assert not final.exists()


ACCEPTED_TA = ["TA", "ta", "Ta", " TA ", "1", "true", "TRUE", "1.0", "tA", "TA", "1", "ta"]
ACCEPTED_NTA = ["NTA", "nta", "Nta", "NTA ", "0", "false", "False", "0.0", "nTa", "NTA", "0", "nta"]


@pytest.mark.parametrize("command", ["seek", "train", "evaluate"])
def test_label_case_variants_and_1_0_are_accepted(cli, tmp_path, out, command):
    rows = labelled_rows()
    for row, label in zip(rows, ACCEPTED_TA + ACCEPTED_NTA):
        row[2] = label
    source = write_table(tmp_path / "sms.csv", rows)
    result = run(cli, command, source, out)
    succeeded(result)
    if command == "train":
        assert "(12 TA, 12 NTA)" in result.stdout
    if command == "seek":  # the gold labels were read: the paper's Table 4 is printed
        assert "Accuracy on tagged messages: 1.000" in result.stdout


@pytest.mark.parametrize("command", ["seek", "train", "evaluate"])
def test_other_labels_are_refused_with_their_lines(cli, tmp_path, out, command):
    rows = labelled_rows()
    rows[1][2], rows[3][2], rows[7][2], rows[20][2] = "yes", "", "TA?", "2"
    source = write_table(tmp_path / "sms.csv", rows)
    failed(
        run(cli, command, source, out), 1,
        "line 3: label 'yes' is not TA or NTA", "also lines 5 (''), 9 ('TA?')", "4 bad labels in total",
    )
    nothing_written(out)


@pytest.mark.parametrize("command", ["train", "evaluate"])
@pytest.mark.parametrize("ta, nta", [(24, 0), (12, 9)], ids=["single-class", "nine-nta"])
def test_too_few_examples_of_a_class(cli, tmp_path, out, command, ta, nta):
    source = write_table(tmp_path / "sms.csv", labelled_rows(ta, nta))
    args = command_line(command, source, out)
    if command == "evaluate":  # cross-validation trains: same rule as train
        args = ["evaluate", source, "--folds", "2", "--out-dir", out / "evaluate"]
    failed(cli(*args), 1, "at least 10 messages of each class", f"found {nta} NTA, {ta} TA")
    nothing_written(out)


@pytest.mark.parametrize("command", ["report cv", "report holdout", "report infogain"])
def test_reports_refuse_a_single_class(cli, tmp_path, out, command):
    source = write_table(tmp_path / "sms.csv", labelled_rows(24, 0))
    failed(run(cli, command, source, out), 1)
    nothing_written(out)


