"""triage.io through real files: what a hand-exported spreadsheet can throw at the tool."""

from __future__ import annotations

import csv
import io
import json
import os

import subprocess
import sys
import tracemalloc
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from triage.io.outputs import atomic_output
from triage.errors import InputError
from triage.io.formats import format_for
from triage.io.labels import parse_labels
from triage.io.messages import BadLineWarning, DEFAULT_ID_COLUMN, Message, duplicate_ids, open_messages
from triage.io.writing import TableWriter, encode_cells
from triage.io.spreadsheets import neutralise_formula, restore_formula

# Synthetic messages only (never the real corpus), covering several scripts.
SCRIPTS = {
    "emoji": "rdv à 18h 🎉👍🏽 ok?",
    "arabic": "مرحبا، كيف حالك؟",
    "chinese": "你好，明天见",
    "cyrillic": "Привет, до завтра",
    "french": "c'est l'été, ça va ? 5€",
}


def write(tmp_path: Path, name: str, content: str | bytes) -> Path:
    path = tmp_path / name
    path.write_bytes(content.encode("utf-8") if isinstance(content, str) else content)
    return path


def texts(path: Path, **options) -> list[str]:
    return [m.text for m in open_messages(path, **options)]


# ------------------------------------------------------------------ columns and shape


def test_missing_text_column_names_the_columns_found(tmp_path):
    path = write(tmp_path, "sms.csv", "id,body,when\n1,salut,hier\n")
    with pytest.raises(InputError) as caught:
        open_messages(path)
    message = str(caught.value)
    assert "no column 'text'" in message and "sms.csv" in message
    assert "columns found: id, body, when" in message and "--text-column" in message
    assert "\n" not in message


def test_other_text_column_name(tmp_path):
    path = write(tmp_path, "sms.csv", "id,body\n1,salut\n")
    assert texts(path, text_column="body") == ["salut"]


def test_missing_required_label_column(tmp_path):
    path = write(tmp_path, "train.csv", "id,text\n1,salut\n")
    with pytest.raises(InputError, match=r"no column 'label' in .*train.csv; columns found: id, text"):
        open_messages(path, required_columns=["label"])
    labelled = write(tmp_path, "labelled.csv", "id,text,label\n1,salut,TA\n")
    assert open_messages(labelled, required_columns=["label"]).column("label") == ["TA"]


def test_id_column_default_explicit_and_none(tmp_path):
    without_id = write(tmp_path, "a.csv", "text\nun\ndeux\n")
    table = open_messages(without_id)
    assert table.id_column is None
    assert [m.id for m in table] == ["1", "2"]
    with pytest.raises(InputError, match="no column 'id'"):
        open_messages(without_id, id_column="id")  # an explicitly requested id must exist
    with pytest.raises(InputError, match="no column 'msg_id'"):
        open_messages(without_id, id_column="msg_id")
    with_id = write(tmp_path, "b.csv", "msg_id,text\n a7 ,un\nb8,deux\n")
    assert [m.id for m in open_messages(with_id, id_column="msg_id")] == ["a7", "b8"]
    assert [m.id for m in open_messages(with_id, id_column=None)] == ["1", "2"]
    assert open_messages(with_id, id_column=DEFAULT_ID_COLUMN).id_column is None


def test_empty_file_and_blank_file(tmp_path):
    with pytest.raises(InputError, match="is empty"):
        open_messages(write(tmp_path, "empty.csv", b""))
    with pytest.raises(InputError, match="no header"):
        open_messages(write(tmp_path, "blank.csv", "\n\r\n  \n"))


def test_missing_file_and_folder(tmp_path):
    with pytest.raises(InputError, match="no such file"):
        open_messages(tmp_path / "absent.csv")
    with pytest.raises(InputError, match="is a folder"):
        open_messages(tmp_path)


def test_workbook_refused_with_advice(tmp_path):
    with pytest.raises(InputError, match="export it as CSV"):
        open_messages(write(tmp_path, "sms.xlsx", b"PK\x03\x04rest of a zip"))


def test_header_only_gives_no_messages(tmp_path):
    table = open_messages(write(tmp_path, "h.csv", "id,text,label\n"))
    assert table.columns == ["id", "text", "label"]
    assert list(table) == [] and list(table.chunks()) == []


def test_empty_cells_and_nan_like_text_kept(tmp_path):
    path = write(tmp_path, "e.csv", "id,text,label\n1,,TA\n2,nan,NTA\n3,NULL,TA\n4,None,TA\n5,NaN,TA\n6\n")
    messages = list(open_messages(path))
    assert [m.text for m in messages] == ["", "nan", "NULL", "None", "NaN", ""]
    assert messages[-1].fields == {"id": "6", "text": "", "label": ""}  # short row padded


def test_blank_and_all_empty_rows_are_not_messages(tmp_path):
    path = write(tmp_path, "s.csv", "id;text;label\n1;un;TA\n\n;;\n2;deux;NTA\n;;\n")
    messages = list(open_messages(path))
    assert [(m.line, m.id, m.text) for m in messages] == [(2, "1", "un"), (5, "2", "deux")]


def test_duplicate_header_names(tmp_path):
    path = write(tmp_path, "d.csv", "id,text,note,note,\n1,a,x,y,z\n")
    table = open_messages(path)
    assert table.columns == ["id", "text", "note", "note.1", "Unnamed: 4"]
    assert next(iter(table)).fields["note.1"] == "y"
    with pytest.raises(InputError, match="'text' appears 2 times"):
        open_messages(write(tmp_path, "dd.csv", "text,text\na,b\n"))


def test_header_whitespace_stripped(tmp_path):
    table = open_messages(write(tmp_path, "w.csv", " id , text \n1,a\n"))
    assert table.columns == ["id", "text"]


# ------------------------------------------------------------------ content


def test_one_megabyte_message(tmp_path):
    big = "é" * 300_000 + "x" * 700_000
    path = write(tmp_path, "big.csv", f'id,text\n1,"{big}"\n2,{big}\n3,after\n')
    messages = list(open_messages(path))
    assert [len(m.text) for m in messages] == [1_000_000, 1_000_000, 5]
    assert messages[0].text == big and messages[1].text == big


def test_nul_bytes_removed_and_counted_control_characters_kept(tmp_path):
    path = write(tmp_path, "nul.csv", b"id,text\n1,ab\x00c\x01d\x1b\x7f\n2,\x00\x00\n")
    table = open_messages(path)
    assert [m.text for m in table] == ["abc\x01d\x1b\x7f", ""]
    assert table.nul_bytes == 3


@pytest.mark.parametrize("extension", ["csv", "tsv", "jsonl"])
def test_scripts_round_trip_exactly(tmp_path, extension):
    rows = [{"id": name, "text": text} for name, text in SCRIPTS.items()]
    out = tmp_path / f"out.{extension}"
    with atomic_output(out) as handle:
        TableWriter(handle, ["id", "text"], format_for(out)).write_many(rows)
    assert [{"id": m.id, "text": m.text} for m in open_messages(out)] == rows
    assert open_messages(out).encoding == "utf-8"


def test_windows_line_endings(tmp_path):
    path = write(tmp_path, "win.csv", b'id,text\r\n1,salut\r\n2,"deux\r\nlignes"\r\n3,fin\r\n')
    messages = list(open_messages(path))
    assert [(m.line, m.text) for m in messages] == [(2, "salut"), (3, "deux\r\nlignes"), (5, "fin")]


def test_utf8_bom_stripped_from_first_column(tmp_path):
    path = write(tmp_path, "bom.csv", "\ufeffid,text\n1,été\n".encode("utf-8"))
    table = open_messages(path)
    assert table.encoding == "utf-8-sig"
    assert table.columns == ["id", "text"]
    assert [(m.id, m.text) for m in table] == [("1", "été")]
    # Even when the caller forces plain utf-8, the header must not keep the BOM.
    assert open_messages(path, encoding="utf-8").columns == ["id", "text"]


def test_cp1252_detected(tmp_path):
    path = write(tmp_path, "win1252.csv", "id;text\n1;café, très cher: 5€\n2;élève\n".encode("cp1252"))
    table = open_messages(path)
    assert table.encoding == "cp1252"
    assert [m.text for m in table] == ["café, très cher: 5€", "élève"]


def test_explicit_encoding_wins(tmp_path):
    path = write(tmp_path, "u.csv", "id,text\n1,été\n".encode("utf-8"))
    table = open_messages(path, encoding="latin-1")
    assert table.encoding == "latin-1"
    assert [m.text for m in table] == ["Ã©tÃ©"]
    with pytest.raises(InputError, match="unknown encoding"):
        open_messages(path, encoding="klingon")


def test_excel_unicode_text_utf16_with_tabs(tmp_path):
    path = write(tmp_path, "export.txt", "id\ttext\n1\tçà 🎉\n".encode("utf-16"))
    table = open_messages(path)
    assert (table.encoding, table.delimiter, table.format) == ("utf-16", "\t", "tsv")
    assert [m.text for m in table] == ["çà 🎉"]
    assert table.nul_bytes == 0


def test_decode_error_after_first_mebibyte_names_the_line(tmp_path):
    filler = "".join(f"{i},message numéro {i} sans rien de spécial\n" for i in range(30_000))
    assert len(filler.encode()) > 1024 * 1024
    path = write(tmp_path, "mixed.csv", b"id,text\n" + filler.encode() + b"30000,caf\xe9\n")
    table = open_messages(path)  # the first MiB is valid UTF-8
    assert table.encoding == "utf-8"
    with pytest.raises(InputError) as caught:
        for _ in table:
            pass
    assert "line 30002" in str(caught.value) and "--encoding" in str(caught.value)


def test_decode_error_with_explicit_encoding_is_eager(tmp_path):
    path = write(tmp_path, "latin.csv", "id,text\n1,ok\n2,café\n".encode("latin-1"))
    with pytest.raises(InputError, match=r"line 3: .*not valid utf-8 \(e9\).*--encoding cp1252"):
        open_messages(path, encoding="utf-8")


# ------------------------------------------------------------------ delimiters


@pytest.mark.parametrize("delimiter", [";", "\t", "|", ","])
@pytest.mark.parametrize("extension", ["csv", "txt"])
def test_delimiter_sniffed(tmp_path, delimiter, extension):
    rows = [["id", "text", "label"], ["1", "salut, ça va; bien|mal", "NTA"], ["2", "l'ami d'Anne, c'est 'top'", "TA"]]
    buffer = io.StringIO()
    csv.writer(buffer, delimiter=delimiter, lineterminator="\n").writerows(rows)
    table = open_messages(write(tmp_path, f"x.{extension}", buffer.getvalue()))
    assert table.delimiter == delimiter
    assert table.columns == rows[0]
    assert [m.text for m in table] == [rows[1][1], rows[2][1]]


def test_header_hint_beats_the_sniffer(tmp_path):
    # csv.Sniffer alone says ',' here: it takes the apostrophes for quotes.
    path = write(tmp_path, "x.csv", "id;text\n1;'salut', 'toi'\n2;'ok', 'non'\n")
    assert texts(path) == ["'salut', 'toi'", "'ok', 'non'"]


def test_delimiter_sniffed_without_text_column_hint(tmp_path):
    path = write(tmp_path, "x.csv", "num;message;date\n1;salut;lundi\n2;ok, merci;mardi\n")
    assert open_messages(path, text_column="message").delimiter == ";"
    with pytest.raises(InputError, match="columns found: num, message, date"):
        open_messages(path)  # the listing is useful only if the delimiter was right


def test_single_column_file_keeps_commas(tmp_path):
    path = write(tmp_path, "one.txt", "text\nbonjour\"\"\ncoucou; toi\n")
    table = open_messages(path)
    assert table.columns == ["text"]
    assert [m.text for m in table] == ['bonjour""', "coucou; toi"]


def test_explicit_delimiter_wins(tmp_path):
    path = write(tmp_path, "x.csv", "text;n,m\nun;1,2\n")
    assert open_messages(path).columns == ["text", "n,m"]
    table = open_messages(path, delimiter=",", text_column="text;n")
    assert (table.delimiter, table.columns) == (",", ["text;n", "m"])
    assert [m.fields for m in table] == [{"text;n": "un;1", "m": "2"}]
    assert open_messages(write(tmp_path, "t.txt", "id\ttext\n1\ta\n"), delimiter="\\t").delimiter == "\t"
    with pytest.raises(InputError, match="one character"):
        open_messages(path, delimiter=";;")


def test_tsv_input(tmp_path):
    path = write(tmp_path, "x.tsv", "id\ttext\tlabel\n1\tun, deux; trois\tTA\n2\t\"cité\"\tNTA\n")
    table = open_messages(path, required_columns=["label"])
    assert (table.format, table.delimiter) == ("tsv", "\t")
    assert [m.text for m in table] == ["un, deux; trois", "cité"]


# ------------------------------------------------------------------ records and bad rows


def test_quoted_newlines_keep_physical_line_numbers(tmp_path):
    path = write(tmp_path, "q.csv", 'id,text\n1,"ligne un\nligne deux\n\nquatre"\n2,apres\n3,"dit ""oui"""\n')
    messages = list(open_messages(path))
    assert [m.text for m in messages] == ["ligne un\nligne deux\n\nquatre", "apres", 'dit "oui"']
    assert [m.line for m in messages] == [2, 6, 7]


def test_ragged_row_error_names_the_line(tmp_path):
    path = write(tmp_path, "r.csv", 'id,text,label\n1,"a\nb",TA\n2,c,d,e,NTA\n3,f,TA\n')
    table = open_messages(path)
    with pytest.raises(InputError) as caught:
        list(table)
    assert "line 4: 5 fields, header has 3" in str(caught.value)
    assert "--on-bad-lines skip" in str(caught.value)


def test_ragged_rows_skipped_and_counted(tmp_path):
    path = write(tmp_path, "r.csv", "id,text\n1,a\n2,b,x\n3,c\n4,d,y,z\n")
    table = open_messages(path, on_bad_lines="skip")
    assert [m.id for m in table] == ["1", "3"]
    assert table.skipped == [3, 5]
    warned = open_messages(path, on_bad_lines="warn")
    with pytest.warns(BadLineWarning) as caught:
        assert [m.id for m in warned] == ["1", "3"]
    assert ["line 3:" in str(w.message) for w in caught] == [True, False]
    assert warned.skipped == [3, 5]
    with pytest.raises(InputError, match="on-bad-lines must be one of"):
        open_messages(path, on_bad_lines="ignore")


def test_jsonl_input(tmp_path):
    lines = [
        json.dumps({"id": 7, "text": "salut 🎉", "meta": None}, ensure_ascii=False),
        "",
        json.dumps({"text": "deux", "tags": ["a", "b"], "ok": True}),
        '{"id": "9", "text": "tab\there"}',  # a raw tab inside a string: hand-made files have them
    ]
    path = write(tmp_path, "m.jsonl", "\r\n".join(lines) + "\n")
    table = open_messages(path)
    assert table.format == "jsonl" and table.delimiter is None
    assert table.columns == ["id", "text", "meta", "tags", "ok"]
    messages = list(table)
    assert [(m.line, m.id, m.text) for m in messages] == [(1, "7", "salut 🎉"), (3, "", "deux"), (4, "9", "tab\there")]
    assert messages[0].fields["meta"] == ""
    assert messages[1].fields == {"id": "", "text": "deux", "meta": "", "tags": '["a", "b"]', "ok": "True"}


def test_jsonl_bad_lines(tmp_path):
    path = write(tmp_path, "m.ndjson", '{"text": "a"}\n[1, 2]\n{"text": "b"}\n{"text": oops}\n{"text": "c"}\n')
    with pytest.raises(InputError, match=r"line 2: not a JSON object"):
        open_messages(path)  # found while collecting the columns, before any output
    table = open_messages(path, on_bad_lines="skip")
    assert [m.text for m in table] == ["a", "b", "c"]
    assert table.skipped == [2, 4]
    with pytest.raises(InputError, match="no column 'text'"):
        open_messages(write(tmp_path, "n.jsonl", '{"body": "a"}\n'))
    with pytest.raises(InputError, match="JSON array"):
        open_messages(write(tmp_path, "a.json", '[{"text": "a"}]\n'))


def test_chunks_sizes(tmp_path):
    path = write(tmp_path, "c.csv", "text\n" + "".join(f"m{i}\n" for i in range(25)))
    sizes = [len(chunk) for chunk in open_messages(path).chunks(10)]
    assert sizes == [10, 10, 5]
    with pytest.raises(ValueError):
        next(open_messages(path).chunks(0))


@pytest.mark.parametrize("name, content, id_column", [
    ("bad.csv", 'id,text\n 1 ,"a, b"\n2,b,extra\n\n3\n4,"two\nlines"\n', "id"),
    ("rows.csv", "text\nun\n\ndeux\n", None),
    ("m.jsonl", '{"id": "x", "text": "a"}\n[1]\n{"text": "b", "id": 7}\n', "id"),
])
def test_pairs_are_the_ids_and_texts_of_the_messages(tmp_path, name, content, id_column):
    path = write(tmp_path, name, content)
    messages = open_messages(path, id_column=id_column, on_bad_lines="skip")
    expected = [[(m.id, m.text) for m in chunk] for chunk in messages.chunks(2)]
    table = open_messages(path, id_column=id_column, on_bad_lines="skip")
    assert list(table.pairs(2)) == expected
    assert table.skipped == messages.skipped


def test_pairs_of_long_texts_come_in_shorter_lists_in_order(tmp_path):
    texts = ["court"] * 6 + ["x" * 40] * 6 + ["court"] * 3
    path = write(tmp_path, "l.csv", "id,text\n" + "".join(f"{i},{text}\n" for i, text in enumerate(texts)))
    lists = list(open_messages(path).pairs(6, characters=60))
    # The first six short texts hold 30 characters: one list; the six long ones 240: four lists of two.
    assert [len(found) for found in lists] == [6, 2, 2, 2, 3]
    assert [pair for found in lists for pair in found] == [(str(i), text) for i, text in enumerate(texts)]
    assert list(open_messages(path).pairs(6)) == [lists[0], [p for found in lists[1:4] for p in found], lists[4]]
    with pytest.raises(ValueError):
        next(open_messages(path).pairs(6, characters=0))


def test_iteration_is_streaming(tmp_path):
    path = tmp_path / "many.csv"
    path.write_text("id,text,label\n" + "".join(f"{i},message court {i},NTA\n" for i in range(200_000)))
    table = open_messages(path)
    chunks = table.chunks(1000)
    tracemalloc.start()
    try:
        first = next(chunks)
        after_first, _ = tracemalloc.get_traced_memory()
        for _ in range(3):  # tracemalloc makes each row ~50x slower: a few chunks suffice
            next(chunks)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    chunks.close()
    assert len(first) == 1000 and first[0].text == "message court 0"
    # The file is ~6 MB and 200,000 messages would take ~100 MB: reading lazily keeps
    # one chunk of 1,000 in memory at a time, whatever the file size.
    assert after_first < 2_000_000 and peak < 3_000_000


def test_unbalanced_quote_is_reported(tmp_path):
    path = write(tmp_path, "u.csv", 'id,text\n1,"oups\n' + "".join(f"{i},m{i}\n" for i in range(2, 80)))
    with pytest.warns(BadLineWarning, match="line 2: one record spans 79 lines; check for an unbalanced"):
        assert len(list(open_messages(path))) == 1


# ------------------------------------------------------------------ labels and ids


def test_labels_accepted():
    raw = ["TA", "nta", " Nta ", "ta\n", "1", "0", "True", "FALSE", "1.0", "0.0"]
    assert parse_labels(enumerate(raw, 2)) == ["TA", "NTA", "NTA", "TA", "TA", "NTA", "TA", "NTA", "TA", "NTA"]


def test_labels_rejected_lists_three_lines_and_total():
    raw = ["TA", "maybe", "", "yes", "NTA", "2", "x"]
    with pytest.raises(InputError) as caught:
        parse_labels(enumerate(raw, 2))
    message = str(caught.value)
    assert message.startswith("line 3: label 'maybe' is not TA or NTA (accepted: TA, NTA, 1, 0")
    assert "4 ('')" in message and "5 ('yes')" in message and "7 (" not in message
    assert "5 bad labels in total" in message


def test_duplicate_ids(tmp_path):
    path = write(tmp_path, "d.csv", "id,text\na,1\nb,2\na,3\nc,4\na,5\nc,6\n")
    assert duplicate_ids(open_messages(path)) == {"a": [2, 4, 6], "c": [5, 7]}
    assert duplicate_ids([Message(2, "x", "t", {}), Message(3, "y", "t", {})]) == {}


# ------------------------------------------------------------------ table writer

TRICKY = [
    {"id": "1", "text": 'il a dit "oui", puis; non|peut-être', "label": "TA"},
    {"id": "2", "text": "tab\tand\nnewline and lone\rreturn and crlf\r\n", "label": "NTA"},
    {"id": "3", "text": "=1+1", "label": ""},
    {"id": "4", "text": "", "label": "TA"},
    {"id": "5", "text": "  espaces autour  ", "label": "NTA"},
    *({"id": name, "text": text, "label": "TA"} for name, text in SCRIPTS.items()),
]


@pytest.mark.parametrize("format", ["csv", "tsv", "jsonl"])
def test_table_writer_round_trip(tmp_path, format):
    out = tmp_path / f"rows.{format}"
    with atomic_output(out) as handle:
        writer = TableWriter(handle, ["id", "text", "label"], format)
        writer.write(TRICKY[0])
        assert writer.write_many(TRICKY[1:]) == len(TRICKY) - 1
    table = open_messages(out, required_columns=["label"])
    assert table.format == format
    assert [m.fields for m in table] == TRICKY


@pytest.mark.parametrize("format", ["csv", "tsv", "jsonl"])
def test_rows_encoded_elsewhere_read_back_like_rows_written_here(tmp_path, format):
    # What --jobs workers do: encode their rows, then the parent writes the text as it is.
    columns = ["id", "text", "label"]
    cells = [[row[c] for c in columns] for row in TRICKY]
    out = tmp_path / f"rows.{format}"
    with atomic_output(out) as handle:
        writer = TableWriter(handle, columns, format)
        writer.write_encoded(encode_cells(cells[:3], columns, format), 3)
        writer.write_encoded(encode_cells(cells[3:], columns, format), len(cells) - 3)
        assert writer.rows_written == len(TRICKY)
    assert [m.fields for m in open_messages(out, required_columns=["label"])] == TRICKY


# Cells that csv quotes or not: delimiters, quotes, line ends, a NUL, letters of one to four bytes
# in UTF-8 and a lone surrogate (each one character), and cells that are not strings.
_CELLS = st.one_of(st.text(alphabet=st.sampled_from(',\t"\r\n\0 aé\u2028\U0001f600\udc80'), max_size=6), st.none(),
                   st.integers(-9, 9), st.sampled_from(["", "[]", "TA", '["Aude"]']))


@pytest.mark.parametrize("format", ["csv", "tsv"])
@given(st.lists(st.lists(_CELLS, min_size=2, max_size=4), min_size=1, max_size=6))
def test_rows_are_encoded_as_csv_writer_encodes_them_whatever_their_cells(format, table):
    """encode_cells and encode_rows_held (which encode a chunk's cells a column at a time when
    every cell is a string) write what csv.writer writes, and find each row's cell where it is."""
    from triage.io import writing

    width = len(table[0])
    rows = [row[:width] + [""] * (width - len(row)) for row in table]
    columns = [f"c{i}" for i in range(width)]
    for cells in (rows, [["" if cell is None else str(cell) for cell in row] for row in rows]):
        expected = io.StringIO()
        csv.writer(expected, delimiter="\t" if format == "tsv" else ",", lineterminator="\r\n").writerows(cells)
        assert encode_cells(cells, columns, format) == expected.getvalue()
        for at, column in enumerate(columns):
            text, starts, stops = writing.encode_rows_held(cells, columns, format, column)
            assert text == expected.getvalue()
            assert [writing._decoded_cell(text[a:b], format) for a, b in zip(starts.tolist(), stops.tolist())] == \
                ["" if row[at] is None else str(row[at]) for row in cells]


@pytest.mark.parametrize("format", ["csv", "tsv"])
@given(st.lists(st.tuples(st.text(alphabet=st.sampled_from(',\t"\r\n a'), max_size=5), st.booleans()), min_size=1,
                max_size=40))
def test_a_column_of_the_very_strings_of_an_earlier_one_is_encoded_as_csv_writer_encodes_it(format, texts):
    """A column whose cells are mostly those of an earlier column (classify's anonymised texts and
    its texts) is encoded as csv.writer encodes it, where its cells are the same and elsewhere."""
    from triage.io import writing

    rows = [[text, "TA", text if same else text + ',"x"', "[]"] for text, same in texts]
    expected = io.StringIO()
    csv.writer(expected, delimiter="\t" if format == "tsv" else ",", lineterminator="\r\n").writerows(rows)
    assert encode_cells(rows, ["text", "decision", "anonymised", "hidden"], format) == expected.getvalue()
    text, starts, stops = writing.encode_rows_held(rows, ["text", "decision", "anonymised", "hidden"], format,
                                                   "decision")
    assert text == expected.getvalue() and {text[a:b] for a, b in zip(starts.tolist(), stops.tolist())} <= {"TA"}



@pytest.mark.parametrize("format", ["csv", "tsv", "jsonl"])
@given(st.lists(st.lists(_CELLS, min_size=1, max_size=4), min_size=0, max_size=6), st.booleans())
def test_cells_given_column_by_column_are_encoded_as_the_rows_they_make(format, table, strings):
    """encode_columns and encode_columns_held (classify's cells, built a column at a time) write
    the rows those columns make as encode_cells and encode_rows_held write them."""
    from triage.io import writing

    width = len(table[0]) if table else 2
    rows = [row[:width] + [""] * (width - len(row)) for row in table]
    if strings:
        rows = [["" if cell is None else str(cell) for cell in row] for row in rows]
    columns = [f"c{i}" for i in range(width)]
    given = [[row[i] for row in rows] for i in range(width)]
    assert writing.encode_columns(given, columns, format) == encode_cells(rows, columns, format)
    for column in columns:
        text, starts, stops = writing.encode_columns_held(given, columns, format, column)
        expected, expected_starts, expected_stops = writing.encode_rows_held(rows, columns, format, column)
        assert text == expected
        assert starts.tolist() == expected_starts.tolist() and stops.tolist() == expected_stops.tolist()


def test_table_writer_values_and_extra_keys(tmp_path):
    out = io.StringIO(newline="")
    writer = TableWriter(out, ["id", "score", "note"])
    writer.write({"id": 1, "score": 0.25, "note": None})
    writer.write({"id": 2})
    assert out.getvalue() == "id,score,note\r\n1,0.25,\r\n2,,\r\n"
    with pytest.raises(ValueError, match="not output columns"):
        writer.write({"id": 3, "surprise": "x"})
    TableWriter(out, ["id"], extrasaction="ignore").write({"id": 3, "surprise": "x"})
    lines = io.StringIO()
    TableWriter(lines, ["id", "score", "note"], "jsonl").write({"id": 1, "score": 0.25, "note": None})
    assert json.loads(lines.getvalue()) == {"id": 1, "score": 0.25, "note": None}


def test_table_writer_neutralises_formulas_and_restore_gives_back_the_text(tmp_path):
    out = tmp_path / "queue.csv"
    rows = [{"id": "1", "text": '=HYPERLINK("http://x","clic")'}, {"id": "2", "text": "-- salut"}, {"id": "3", "text": "ok"}]
    with atomic_output(out) as handle:
        TableWriter(handle, ["id", "text"], neutralise_formulas=True).write_many(rows)
    stored = [m.text for m in open_messages(out)]
    assert stored == ["'" + rows[0]["text"], "'-- salut", "ok"]
    assert [restore_formula(text) for text in stored] == [row["text"] for row in rows]


def test_neutralise_restore_round_trip():
    samples = ["", "'", "''", "=", "=SUM(A1)", "+33 6 12", "-1", "@cmd", "\tx", "\rx", "'=x", "''+x", "'abc", "a=b", "ok"]
    samples += [a + b + c for a in "'=+-@\tx" for b in "'=x" for c in "'-y"]
    for value in samples:
        safe = neutralise_formula(value)
        assert restore_formula(safe) == value
        assert not safe or safe[0] not in "=+-@\t\r"  # nothing a spreadsheet would evaluate
    assert neutralise_formula("=1+1") == "'=1+1"
    assert neutralise_formula("bonjour") == "bonjour"
    assert restore_formula("'bonjour") == "'bonjour"  # only quotes the tool could have added go
    # Spreadsheets skip spaces and line breaks before a formula.
    assert neutralise_formula(" =1+1") == "' =1+1" and neutralise_formula("\n=cmd") == "'\n=cmd"
    assert neutralise_formula(" bonjour") == " bonjour"


@given(st.text(alphabet=st.sampled_from("' \n\r\t=+-@ax"), max_size=8))
def test_any_cell_is_inert_after_neutralising_and_comes_back_exactly(value):
    safe = neutralise_formula(value)
    assert restore_formula(safe) == value
    assert not safe.lstrip(" \n\r") or safe.lstrip(" \n\r")[0] not in "=+-@\t\r"


def test_format_for():
    assert [format_for(p) for p in ["a.csv", "a.TSV", "a.tab", "a.jsonl", "a.ndjson", "a.txt", "a"]] == [
        "csv", "tsv", "tsv", "jsonl", "jsonl", "csv", "csv",
    ]


def test_import_is_light():
    code = "import sys, triage.io; sys.exit('pandas' in sys.modules or 'numpy' in sys.modules)"
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    assert subprocess.run([sys.executable, "-c", code], env=env).returncode == 0


def test_a_huge_header_of_repeated_names_is_read_in_linear_time(tmp_path):
    # 100,000 repeats: searching for a free "name.N" from 1 each time would take about 5 * 10**9 steps.
    path = tmp_path / "wide.csv"
    path.write_text("text," + ",".join(["a"] * 100_000) + "\nbonjour" + "," * 100_000 + "\n", "utf-8")
    table = open_messages(path)
    assert table.columns[:3] == ["text", "a", "a.1"] and table.columns[-1] == "a.99999"
    assert [m.text for m in table] == ["bonjour"]
