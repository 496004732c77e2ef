"""Files a hand-exported spreadsheet can hold, on every command that reads messages: missing
columns, empty files, odd message contents, encodings, delimiters, ragged rows. (What a clean
failure is: `failed` in tests/conftest.py.)"""


from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import (
    HEADER,
    READING_COMMANDS,
    extra_rows,
    failed,
    labelled_rows,
    message_output,
    nothing_written,
    read_rows,
    run,
    succeeded,
    write_table,
)

from triage import schema

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


