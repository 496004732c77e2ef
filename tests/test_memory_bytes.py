"""The memory budget counts bytes: the characters of what the caches hold, not only their
entries, so that long spellings spend it sooner. Measured by counting, never by time."""

from __future__ import annotations

import random

import pytest

from triage.pipeline import memory
from triage.pipeline.memory import Budget, Cache


def spelling(rng: random.Random, length: int) -> str:
    return "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(length))


def filled(kind: str, keys) -> Cache:
    cache = Cache(kind)
    for key in keys:
        cache[key] = 0
    return cache


def test_long_spellings_count_for_their_length():
    rng = random.Random(0)
    budget = Budget(1)
    short = budget.track(filled("labels", (spelling(rng, 5) for _ in range(1000))), "labels")
    used_short = budget.used()
    long = budget.track(filled("labels", (spelling(rng, 200) for _ in range(1000))), "labels")
    used_long = budget.used() - used_short
    assert used_long - used_short >= 1000 * 195 * memory.BYTES_PER_CHAR["labels"]
    assert len(short) == len(long) == 1000


def test_a_few_long_spellings_pass_the_budget_that_as_many_short_ones_do_not():
    rng = random.Random(1)
    budget = Budget(0.5)  # 524,288 bytes: 2,000 labels are 150,000 bytes of entries
    cache = budget.track(Cache("labels"), "labels")
    cache.update((spelling(rng, 5), 0) for _ in range(2000))
    assert not budget.enforce() and len(cache) == 2000
    cache.update((spelling(rng, 300), 0) for _ in range(2000))  # 600,000 characters more
    assert budget.enforce() and len(cache) == 0 and budget.restarts == 1


def test_only_new_entries_are_measured_and_an_emptied_cache_is_measured_again():
    budget = Budget(10)
    cache = budget.track(Cache("codes"), "codes")
    per_entry = memory.BYTES_PER_ENTRY["codes"]
    cache["a" * 100] = 1
    assert budget.used() == per_entry + 100
    cache[("b" * 10, "c" * 5)] = 2  # tuples of strings count their strings
    assert budget.used() == 2 * per_entry + 115
    cache.clear()
    cache["d" * 3] = 3
    assert budget.used() == per_entry + 3


@pytest.mark.parametrize("keys", [
    ["ab", "cde", ""],  # strings
    [("ab", "PRE"), ("c", "NOM", 3)],  # tuples: their strings count
    [("ab", "PRE"), ("çé", "NOM"), ("", "TEL"), ("x", "MEL")],  # tuples of strings only (hidden words' codes)
    [1, 2, 3],  # numbers hold no text
    ["ab", ("cd", "e"), 7, True, 2.5, ("f", 1), "ghij"],  # a mixed cache
])
def test_the_characters_of_new_keys_are_those_of_their_strings(keys):
    budget = Budget(10)
    cache = budget.track(Cache("codes"), "codes")
    cache.update((key, 0) for key in keys[:2])
    first = budget.used()
    assert first == 2 * memory.BYTES_PER_ENTRY["codes"] + sum(map(memory._chars, keys[:2]))
    cache.update((key, 0) for key in keys[2:])  # only these are measured now
    assert budget.used() == len(keys) * memory.BYTES_PER_ENTRY["codes"] + sum(map(memory._chars, keys))


def test_a_table_counts_the_characters_of_its_texts():
    class Table:
        def __init__(self):
            self.texts: list[str] = []

        def __len__(self):
            return len(self.texts)

        def clear(self):
            self.texts = []

    budget = Budget(10)
    table = budget.track(Table(), "spellings")
    table.texts += ["x" * 200, "y" * 200]
    per_entry, per_char = memory.BYTES_PER_ENTRY["spellings"], memory.BYTES_PER_CHAR["spellings"]
    assert budget.used() == 2 * per_entry + 400 * per_char
    table.texts.append("z")
    assert budget.used() == 3 * per_entry + 401 * per_char


def test_the_seekers_table_counts_its_long_spellings(lexicons):
    from triage.seekhide import SeekAndHide

    rng = random.Random(2)

    def spent(length: int) -> int:
        seeker = SeekAndHide(lexicons)
        budget = Budget(10_000)  # a budget of its own: the process's one may retire tables meanwhile
        seeker.analyse([f"salut {spelling(rng, length)} {spelling(rng, length)}" for _ in range(200)])
        budget.track(seeker.spellings, "spellings")
        return budget.used()

    assert spent(200) - spent(5) >= 200 * 2 * 190 * memory.BYTES_PER_CHAR["spellings"]


def test_the_stretches_a_table_has_cut_are_counted_and_may_be_forgotten(lexicons):
    from triage.seekhide import SeekAndHide
    from triage.text.stretches import STRETCH_IDS

    texts = ["salut Patrice, ça va ?", "ok  à demain\n", " Mme Petit arrive "]
    STRETCH_IDS.clear()
    seeker = SeekAndHide(lexicons)
    first = seeker.analyse(texts)
    stretches = seeker.spellings.stretches
    budget = Budget(10_000)  # a budget of its own: the process's one may retire tables meanwhile
    budget.track(STRETCH_IDS, "stretches")
    budget.track(stretches, "stretch_pieces")
    per_entry = memory.BYTES_PER_ENTRY["stretches"] + memory.BYTES_PER_ENTRY["stretch_pieces"]
    # By the word after a single space, or with their white space: "  à".
    assert len(stretches) == len(STRETCH_IDS) == 14
    assert budget.used() == 14 * per_entry + sum(map(len, STRETCH_IDS)) * memory.BYTES_PER_CHAR["stretches"]
    budget.limit = 0
    assert budget.enforce() and len(stretches) == len(STRETCH_IDS) == 0 and budget.used() == 0
    again = seeker.analyse(texts)  # cut again, into the same pieces of the same table
    assert seeker.spellings.stretches is stretches and len(stretches) == 14
    assert [again.result(i) for i in range(3)] == [first.result(i) for i in range(3)]


# ------------------------------------------------------------------ workbooks


def workbook_with_strings(path, count: int, declared: int | None = None):
    """A workbook (made by openpyxl, which writes shared strings) whose xl/sharedStrings.xml is
    replaced by `count` strings, declaring `declared` (its true count by default)."""
    import zipfile

    from openpyxl import Workbook

    book = Workbook()
    book.active.append(["id", "text"])
    book.active.append(["1", "salut"])
    book.save(path)
    with zipfile.ZipFile(path) as archive:
        members = {name: archive.read(name) for name in archive.namelist()}
    declared = count if declared is None else declared
    members["xl/sharedStrings.xml"] = (
        '<?xml version="1.0" encoding="UTF-8"?>\n<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" '
        f'count="{declared}" uniqueCount="{declared}">' + "<si><t>a</t></si>" * count + "</sst>").encode()
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return path


@pytest.mark.parametrize("declared", [None, 1])  # told or hidden, the count is known before parsing
def test_a_workbook_with_too_many_shared_strings_is_refused_in_bounded_memory(tmp_path, monkeypatch, declared):
    import tracemalloc

    from triage.errors import BadInput
    from triage.io import spreadsheets

    monkeypatch.setattr(spreadsheets, "MAX_XLSX_STRINGS", 100_000, raising=False)
    path = workbook_with_strings(tmp_path / "many.xlsx", 400_000, declared)  # 7 MB of XML in a few kB
    assert path.stat().st_size < 200_000
    tracemalloc.start()
    try:
        with pytest.raises(BadInput, match="shared strings"):
            spreadsheets.read_xlsx(path)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 12 * 2**20, f"{peak / 2**20:.0f} MiB to refuse it"  # parsing it takes about 30 times more


def test_a_workbook_within_the_limits_is_read(tmp_path):
    from triage.io.spreadsheets import read_xlsx

    header, rows = read_xlsx(workbook_with_strings(tmp_path / "few.xlsx", 3))
    assert header == ["id", "text"] and rows == [["1", "salut"]]


def test_a_sheet_past_the_cell_limit_is_refused(tmp_path, monkeypatch, cli):
    from triage.io import spreadsheets
    from triage.io.spreadsheets import write_xlsx

    write_xlsx(tmp_path / "sms.xlsx", ["id", "text"], [[str(i), "ok"] for i in range(100)])
    monkeypatch.setattr(spreadsheets, "MAX_XLSX_CELLS", 150, raising=False)
    result = cli("classify", tmp_path / "sms.xlsx", "-o", tmp_path / "c.csv")
    assert result.exit_code == 1 and "cells" in result.output and "Traceback" not in result.output
    assert not (tmp_path / "c.csv").exists()


# ------------------------------------------------------------------ one huge message


@pytest.mark.parametrize("suffix", [".csv", ".jsonl"])
def test_a_message_past_the_longest_is_one_line_naming_its_row_in_bounded_memory(cli, tmp_path, suffix):
    import json
    import tracemalloc

    from conftest import failed


    token = "z" * 2_000_001  # one token without a space: the costliest to analyse
    source = tmp_path / f"sms{suffix}"
    if suffix == ".csv":
        source.write_text(f"id,text\n1,salut\n2,{token}\n3,ok\n", "utf-8")
        line = "line 3"
    else:
        source.write_text("\n".join(json.dumps({"id": str(i), "text": t}) for i, t in
                                    enumerate(["salut", token, "ok"], 1)) + "\n", "utf-8")
        line = "line 2"
    warm = tmp_path / "warm.csv"  # the lexicons and the model are loaded once per process: not counted
    warm.write_text("id,text\n1,salut\n", "utf-8")
    assert cli("classify", warm, "-o", tmp_path / "w.csv").exit_code == 0
    tracemalloc.start()
    try:
        result = cli("classify", source, "-o", tmp_path / "c.csv")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    failed(result, 1, source.name, line, "more than the 2,000,000")
    assert not (tmp_path / "c.csv").exists()
    assert peak < 50 * 2**20, f"{peak / 2**20:.0f} MiB to refuse it"


def test_a_message_past_the_longest_is_skipped_on_request(cli, tmp_path, monkeypatch):
    from conftest import read_rows

    from triage.io import messages

    monkeypatch.setattr(messages, "MAX_MESSAGE_CHARS", 1000)
    source = tmp_path / "sms.csv"
    source.write_text(f"id,text\n1,salut Julie\n2,{'mot ' * 400}\n3,ok\n", "utf-8")
    result = cli("classify", source, "-o", tmp_path / "c.csv", "--on-bad-lines", "skip")
    assert result.exit_code == 0, result.output
    assert [row["id"] for row in read_rows(tmp_path / "c.csv")] == ["1", "3"]
