"""benchmarks/second_process.py: the same halves of a corpus classified in one process and in two."""

import os

import pytest
from conftest import benchmark_module

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="the arrangements fork")


@pytest.fixture(scope="module")
def second_process():
    return benchmark_module("second_process")


def turn(cpu: float, faults: int = 1000, system: float = 0.1, processes: int = 1) -> dict:
    return {"cpu": cpu, "faults": faults, "system": system, "processes": processes}


def test_each_arrangement_is_given_by_its_median_and_range_against_one_process(second_process):
    runs = {"one": [turn(2.0), turn(4.0), turn(3.0)],
            "two processes": [turn(3.3, 5000, processes=2), turn(3.9, 7000, processes=2), turn(9.0, 6000, processes=2)]}
    summary = second_process.summary(runs)
    assert summary["one"]["cpu"] == {"median": 3.0, "least": 2.0, "most": 4.0}
    assert summary["two processes"]["cpu"]["median"] == 3.9  # the median, not the mean (5.4) nor the least
    assert summary["two processes"]["faults"]["median"] == 6000 and summary["two processes"]["processes"] == 2
    lines = second_process.table(summary)
    assert "+30%" in lines[2] and "6,000" in lines[2]  # 3.9 s against one process's 3.0 s


def test_the_forked_processes_report_what_they_spent_and_a_failed_one_stops_the_measure(second_process, tmp_path):
    source = tmp_path / "corpus.csv"
    second_process.growing.write_corpus(source, second_process.growing.generate(600, 0))
    figures = second_process.run_arrangement("two processes", str(source), 100)
    assert figures["processes"] == 2 and figures["cpu"] > 0 and figures["faults"] > 0
    with pytest.raises(RuntimeError, match="a forked process of the measure failed"):
        second_process._collect(second_process._in_child(lambda: 1 / 0))


def test_the_second_classifier_may_take_the_first_ones_seek_and_hide(second_process, tmp_path):
    """"two classifiers, one Seek&Hide": the second half is classified with the first half's table of
    spellings, so that what both halves hold is learnt once."""
    source = tmp_path / "corpus.csv"
    second_process.growing.write_corpus(source, second_process.growing.generate(600, 0))
    fresh, chunks = second_process._setup(str(source), 100)
    first = second_process._classify(fresh, chunks[0::2])
    known = len(first.seeker.spellings.texts)
    second = second_process._classify(fresh, chunks[1::2], first.seeker)
    assert second.seeker is first.seeker and len(first.seeker.spellings.texts) > known  # one table, grown
    apart = [len(second_process._classify(fresh, half).seeker.spellings.texts) for half in (chunks[0::2], chunks[1::2])]
    assert len(first.seeker.spellings.texts) < sum(apart)  # what both halves hold, held once
    figures = second_process.run_arrangement("two classifiers, one Seek&Hide", str(source), 100)
    assert figures["processes"] == 1 and figures["cpu"] > 0
    assert "two classifiers, one Seek&Hide" in second_process.table(
        second_process.summary({name: [figures] for name in ("one", "two classifiers, one Seek&Hide")}))[2]
