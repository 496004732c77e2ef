"""With --jobs, the input is read by a process of its own while the main process starts
(triage.engines.ReadAhead): the same chunks, the same rows, and every report of the reading said
by the main process, at the same chunk, as without it."""

import os
import warnings

import pytest

from triage import engines
from triage.errors import BadInput
from triage.io.messages import BadLineWarning, ReadOptions

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="the reader is a forked process")

TEXTS = ["slt Julie tu viens ?", "ok a demain", "Rdv chez Dubois 18h", "appelle Marc au 06 12 34 56 78"]


def write_corpus(path, bad_at: int | None = None, messages: int = 40):
    """`messages` rows of id,text; the row of id `bad_at` with a field too many."""
    rows = [f"{k},{TEXTS[k % 4]} {k}" + (",extra" if k == bad_at else "") for k in range(messages)]
    path.write_text("id,text\n" + "\n".join(rows) + "\n", encoding="utf-8")
    return path


def pairs_of(chunks) -> list:
    return [pair for chunk in chunks for pair in (chunk.pairs() if isinstance(chunk, engines.PickledPairs) else chunk)]


def as_taken(chunks, table) -> list[tuple]:
    """(the chunk's ids, the warnings said, the table's skipped and replaced rows and NULs) as each
    chunk is taken, then once more at the end: what the main process knows at each step."""
    taken = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for chunk in chunks:
            ids = chunk.ids if isinstance(chunk, engines.PickledPairs) else [ident for ident, _ in chunk]
            taken.append((ids, [str(w.message) for w in caught], list(table.skipped), list(table.replaced_lines),
                          table.nul_bytes))
        taken.append((None, [str(w.message) for w in caught], list(table.skipped), list(table.replaced_lines),
                      table.nul_bytes))
    return taken


def read_directly(path, on_bad_lines: str):
    """The chunks, warnings and skipped lines of this process reading the file as the workers take it."""
    table = ReadOptions(on_bad_lines=on_bad_lines).open(path)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        chunks = list(engines.even_tail(table.pairs(8, None), 2))
    return chunks, [str(w.message) for w in caught], list(table.skipped)


def test_a_clean_input_comes_whole_from_the_reader_as_the_chunks_this_process_would_read(tmp_path):
    source = write_corpus(tmp_path / "sms.csv")
    expected, _, _ = read_directly(source, "error")
    table = ReadOptions().open(source)
    with engines.ReadAhead(table, 8, None, 2) as reader:
        chunks = list(reader.chunks())
    assert all(isinstance(chunk, engines.PickledPairs) for chunk in chunks)
    assert [len(chunk) for chunk in chunks] == [len(chunk) for chunk in expected]
    assert [chunk.ids for chunk in chunks] == [[ident for ident, _ in chunk] for chunk in expected]
    assert pairs_of(chunks) == pairs_of(expected)


@pytest.mark.parametrize("bad", [[30], [3, 9, 15, 21, 27, 33, 37]], ids=["one", "more-than-are-said-one-by-one"])
def test_the_rows_the_reading_skips_are_said_here_at_the_chunk_this_process_would_have_said_them(tmp_path, bad):
    """The reader reads on past a bad row: its warning, and the row in the table's record of rows
    skipped, come here with the chunk read after it (the summary of many with the end)."""
    rows = [f"{k},{TEXTS[k % 4]} {k}" + (",extra" if k in bad else "") for k in range(40)]
    source = tmp_path / "sms.csv"
    source.write_text("id,text\n" + "\n".join(rows) + "\n", encoding="utf-8")
    table = ReadOptions(on_bad_lines="warn").open(source)
    expected = as_taken(engines.even_tail(table.pairs(8, None), 2), table)
    table = ReadOptions(on_bad_lines="warn").open(source)
    with engines.ReadAhead(table, 8, None, 2) as reader, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        chunks = list(reader.chunks())
        assert all(isinstance(chunk, engines.PickledPairs) for chunk in chunks)  # read by the reader, all of them
    table = ReadOptions(on_bad_lines="warn").open(source)
    with engines.ReadAhead(table, 8, None, 2) as reader:
        assert as_taken(reader.chunks(), table) == expected
    assert expected[-1][2] == [k + 2 for k in bad]  # (the header is line 1)
    assert len(expected[-1][1]) == min(len(bad), 5) + (len(bad) > 5)


def test_nul_characters_and_lone_surrogates_are_counted_here_as_the_reader_meets_them(tmp_path):
    import json

    records = [{"id": str(k), "text": f"{TEXTS[k % 4]} {k}"} for k in range(40)]
    records[12]["text"] = "slt \ud83d Julie"  # a lone surrogate, which JSON may escape
    lines = [json.dumps(record) for record in records]
    lines[22] = lines[22].replace("Rdv", "R\x00dv")  # a NUL character, removed
    source = tmp_path / "sms.jsonl"
    source.write_text("\n".join(lines) + "\n", encoding="utf-8")
    table = ReadOptions().open(source)
    expected = as_taken(engines.even_tail(table.pairs(8, None), 2), table)
    table = ReadOptions().open(source)
    with engines.ReadAhead(table, 8, None, 2) as reader:
        assert as_taken(reader.chunks(), table) == expected
    assert expected[-1][3] == [13] and expected[-1][4] == 1 and "surrogate" in expected[-1][1][0]


def test_a_bad_row_stops_the_run_with_the_error_this_process_gives_after_the_clean_chunks(tmp_path):
    source = write_corpus(tmp_path / "sms.csv", bad_at=30)
    with pytest.raises(BadInput) as direct:
        read_directly(source, "error")
    table = ReadOptions().open(source)
    given = []
    with pytest.raises(BadInput) as ahead, engines.ReadAhead(table, 8, None, 2) as reader:
        for chunk in reader.chunks():
            given.append(chunk)
    assert str(ahead.value) == str(direct.value) and "line 32" in str(ahead.value)
    assert given and all(isinstance(chunk, engines.PickledPairs) for chunk in given)


def test_an_error_after_a_warning_is_raised_here_and_the_warning_said_once(tmp_path):
    """A row too long ends the reading (--on-bad-lines error); a NUL character before it was
    reported with a chunk already taken: this process reads again up to the error without saying
    it twice."""
    rows = [f"{k},{TEXTS[k % 4]} {k}" for k in range(40)]
    rows[4] = rows[4].replace("slt", "s\x00lt")
    rows[30] += ",extra"
    source = tmp_path / "sms.csv"
    source.write_text("id,text\n" + "\n".join(rows) + "\n", encoding="utf-8")
    table = ReadOptions().open(source)
    given = []
    with pytest.raises(BadInput, match="line 32") as ahead, engines.ReadAhead(table, 8, None, 2) as reader:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            for chunk in reader.chunks():
                given.append((chunk, table.nul_bytes))
    assert given and isinstance(given[0][0], engines.PickledPairs) and given[0][1] == 1
    assert not caught and table.nul_bytes == 1  # NULs are counted, not warned of, by the reading
    assert str(ahead.value) == str(pytest.raises(BadInput, read_directly, source, "error").value)


def test_a_warning_said_before_the_reader_was_killed_is_not_said_again(tmp_path):
    import signal

    rows = [f"{k},{TEXTS[k % 4]} {k}" + (",extra" if k == 3 else "") for k in range(400)]
    source = tmp_path / "sms.csv"
    source.write_text("id,text\n" + "\n".join(rows) + "\n", encoding="utf-8")
    table = ReadOptions(on_bad_lines="warn").open(source)
    expected = as_taken(engines.even_tail(table.pairs(8, None), 2), table)
    table = ReadOptions(on_bad_lines="warn").open(source)
    with engines.ReadAhead(table, 8, None, 2) as reader:
        chunks = reader.chunks()

        def killed_after_the_first():
            yield next(chunks)
            os.kill(reader._pid, signal.SIGKILL)
            yield from chunks

        assert as_taken(killed_after_the_first(), table) == expected
    assert expected[-1][2] == [5] and len(expected[-1][1]) == 1


def test_a_reader_killed_midway_leaves_the_rest_to_this_process(tmp_path):
    import signal

    # More than the pipe and the reader's queue hold: the reader cannot have sent it all before it is killed.
    source = write_corpus(tmp_path / "sms.csv", messages=20_000)
    expected = list(engines.even_tail(ReadOptions().open(source).pairs(8, None), 2))
    with engines.ReadAhead(ReadOptions().open(source), 8, None, 2) as reader:
        chunks = reader.chunks()
        first = next(chunks)
        os.kill(reader._pid, signal.SIGKILL)
        rest = list(chunks)
    assert isinstance(first, engines.PickledPairs) and any(isinstance(chunk, list) for chunk in rest)
    assert pairs_of([first, *rest]) == pairs_of(expected)


def test_a_reader_stopped_early_is_gone(tmp_path):
    table = ReadOptions().open(write_corpus(tmp_path / "sms.csv", messages=400))
    reader = engines.ReadAhead(table, 8, None, 2)
    pid = reader._pid
    next(iter(reader.chunks()))
    reader.close()
    with pytest.raises(ProcessLookupError):  # stopped and waited for: no such process
        os.kill(pid, 0)


_COUNTED = engines._count_kept


def _read_ahead_only(index, pairs, keep):
    """_count_kept in a worker, for the chunks the reader read only (the workers are forked with it)."""
    if not isinstance(pairs, engines.PickledPairs):
        raise AssertionError("a chunk the main process read")
    return _COUNTED(index, pairs, keep)


def test_with_jobs_the_workers_count_the_chunks_the_reader_read_and_the_rows_are_those_of_one_process(
        tmp_path, monkeypatch):
    from triage import jobs

    source = write_corpus(tmp_path / "sms.csv")
    monkeypatch.setattr(engines, "_count_kept", _read_ahead_only)
    jobs.run_classify(source, tmp_path / "two.csv", jobs=2, chunk_size=8, chart=False)
    monkeypatch.setattr(engines, "_count_kept", _COUNTED)
    jobs.run_classify(source, tmp_path / "one.csv", chunk_size=8, chart=False)
    assert (tmp_path / "two.csv").read_bytes() == (tmp_path / "one.csv").read_bytes()


def test_with_jobs_a_skipped_row_is_reported_and_counted_as_in_one_process(tmp_path):
    from triage import jobs

    source = write_corpus(tmp_path / "sms.csv", bad_at=30)
    read = ReadOptions(on_bad_lines="warn")
    with pytest.warns(BadLineWarning, match="line 32"):
        two = jobs.run_classify(source, tmp_path / "two.csv", jobs=2, chunk_size=8, chart=False, read=read)
    with pytest.warns(BadLineWarning, match="line 32"):
        one = jobs.run_classify(source, tmp_path / "one.csv", chunk_size=8, chart=False, read=read)
    assert two.skipped_lines == one.skipped_lines == [32]
    assert (tmp_path / "two.csv").read_bytes() == (tmp_path / "one.csv").read_bytes()


def test_a_corpus_read_twice_says_each_bad_row_once_with_jobs_as_in_one_process(tmp_path, monkeypatch):
    """A corpus too large to keep is read again for classifying: a warning the reader carried is
    not said a second time then, as one process, reading twice, says it once (under Python's
    default filter, as the command runs)."""
    from triage import jobs

    monkeypatch.setattr(jobs, "KEEP_READ_MESSAGES", 10)
    source = write_corpus(tmp_path / "sms.csv", bad_at=30)
    read = ReadOptions(on_bad_lines="warn")
    said = {}
    for workers in (1, 2):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("default")
            jobs.run_classify(source, tmp_path / f"{workers}.csv", jobs=workers, chunk_size=8, chart=False, read=read)
        said[workers] = [str(w.message) for w in caught if issubclass(w.category, BadLineWarning)]
    assert len(said[1]) == 1 and said[2] == said[1]
    assert (tmp_path / "2.csv").read_bytes() == (tmp_path / "1.csv").read_bytes()


# ------------------------------------------------------------ with a review workspace


def _digested_here(monkeypatch) -> list[int]:
    """The processes that worked out InputCheck's digests, as this process sees them: its own calls
    only (the reader's are made in its memory)."""
    from triage import jobs

    here, real = [], jobs.InputCheck.digest
    monkeypatch.setattr(jobs.InputCheck, "digest", lambda self, pairs: here.append(os.getpid()) or real(self, pairs))
    return here


def test_with_jobs_and_a_workspace_the_reader_reads_and_hashes_and_the_workspace_is_that_of_one_process(
        cli, tmp_path, monkeypatch):
    """The workspace's checks of the input keep the hashes the reader worked out: this process
    neither reads the input nor hashes it, and the workspace lists what one process lists."""
    from triage.review_workspace import Workspace

    source = write_corpus(tmp_path / "sms.csv", messages=6_000)
    here = _digested_here(monkeypatch)
    monkeypatch.setattr(engines, "_count_kept", _read_ahead_only)
    two = cli("classify", source, "-o", tmp_path / "two.csv", "--no-chart", "--jobs", "2", "--workspace",
              tmp_path / "two.sqlite")
    assert two.exit_code == 0, two.output
    assert here == []
    monkeypatch.setattr(engines, "_count_kept", _COUNTED)
    one = cli("classify", source, "-o", tmp_path / "one.csv", "--no-chart", "--workspace", tmp_path / "one.sqlite")
    assert one.exit_code == 0, one.output
    assert here  # (one process hashes here: the check is there to see)
    assert (tmp_path / "two.csv").read_bytes() == (tmp_path / "one.csv").read_bytes()
    with Workspace.open(tmp_path / "two.sqlite") as two_ws, Workspace.open(tmp_path / "one.sqlite") as one_ws:
        assert two_ws.stored_messages().ids.tolist() == one_ws.stored_messages().ids.tolist()
        assert two_ws.stored_messages().texts.tolist() == one_ws.stored_messages().texts.tolist()


def test_with_jobs_a_workspace_refuses_repeated_ids_and_another_corpus_as_one_process_does(cli, tmp_path, monkeypatch):
    source = write_corpus(tmp_path / "sms.csv", messages=6_000)
    repeated = tmp_path / "repeated.csv"
    repeated.write_text(source.read_text(encoding="utf-8").replace("\n4000,", "\n17,", 1), encoding="utf-8")
    other = tmp_path / "other.csv"
    other.write_text(source.read_text(encoding="utf-8").replace(" 1", " un"), encoding="utf-8")
    monkeypatch.setattr(engines, "_count_kept", _read_ahead_only)
    for workers in ("1", "2"):
        ws = tmp_path / f"ws{workers}.sqlite"
        refused = cli("classify", repeated, "-o", tmp_path / f"r{workers}.csv", "--no-chart", "--jobs", workers,
                      "--workspace", ws)
        assert refused.exit_code == 1 and "id '17' appears on lines 19, 4002" in refused.output, refused.output
        assert not (tmp_path / f"r{workers}.csv").exists() and not ws.exists()
        made = cli("classify", source, "-o", tmp_path / f"s{workers}.csv", "--no-chart", "--workspace", ws)
        assert made.exit_code == 0, made.output
        again = cli("classify", source, "-o", tmp_path / f"a{workers}.csv", "--no-chart", "--jobs", workers,
                    "--workspace", ws)
        assert again.exit_code == 0, again.output  # the same corpus: taken
        another = cli("classify", other, "-o", tmp_path / f"o{workers}.csv", "--no-chart", "--jobs", workers,
                      "--workspace", ws)
        assert another.exit_code == 1 and "is not the corpus of the review workspace" in another.output
        assert not (tmp_path / f"o{workers}.csv").exists()
