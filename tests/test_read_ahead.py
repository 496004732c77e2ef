"""With --jobs, the input is read by a process of its own while the main process starts
(triage.engines.ReadAhead): the same chunks, the same rows, and every report of the reading made
by the main process as without it."""

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


def test_the_reader_stops_before_a_row_the_reading_reports_and_this_process_reports_it(tmp_path):
    source = write_corpus(tmp_path / "sms.csv", bad_at=30)
    expected, expected_warnings, expected_skipped = read_directly(source, "warn")
    table = ReadOptions(on_bad_lines="warn").open(source)
    with warnings.catch_warnings(record=True) as caught, engines.ReadAhead(table, 8, None, 2) as reader:
        warnings.simplefilter("always")
        chunks = list(reader.chunks())
    read_there = [chunk for chunk in chunks if isinstance(chunk, engines.PickledPairs)]
    assert 0 < len(read_there) < len(chunks)  # the first chunks from the reader, the rest read here
    assert pairs_of(chunks) == pairs_of(expected)
    assert [str(w.message) for w in caught if issubclass(w.category, BadLineWarning)] == expected_warnings
    assert table.skipped == expected_skipped == [32]  # (the header is line 1)


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


def test_a_reader_killed_midway_leaves_the_rest_to_this_process(tmp_path):
    import signal

    source = write_corpus(tmp_path / "sms.csv", messages=400)
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
