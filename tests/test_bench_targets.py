"""benchmarks/bench.py's targets table: the CPU of --jobs 2 against one process's and the Dask
engine's wall time against --jobs 2's, read from the medians of runs made turn about."""

import pytest
from conftest import benchmark_module


@pytest.fixture(scope="module")
def bench():
    return benchmark_module("bench")


def ratios(bench, rows: dict) -> dict[str, dict]:
    """The two ratio targets of the table, by what they compare."""
    found = bench.targets(rows, None)
    return {"cpu": next(t for t in found if t["target"].startswith("CPU of --jobs 2")),
            "dask": next(t for t in found if t["target"].startswith("--engine dask"))}


def test_the_ratios_are_read_from_the_medians_and_checked_against_their_targets(bench):
    # The medians, not the fastest runs: one quick run of one process would flatter --jobs 2.
    rows = {"classify --jobs 1": {"cpu_seconds_each": [4.0, 3.0, 9.0], "median_seconds": 3.0},
            "classify --jobs 2": {"cpu_seconds_each": [4.4, 4.6, 4.2], "median_seconds": 2.0},
            "classify --engine dask --jobs 2": {"median_seconds": 2.5}}
    found = ratios(bench, rows)
    assert found["cpu"]["value"] == pytest.approx(1.1) and found["cpu"]["pass"] is True
    assert found["cpu"]["shown"] == "1.10x"
    assert found["dask"]["value"] == pytest.approx(1.25) and found["dask"]["pass"] is True
    rows["classify --jobs 2"]["cpu_seconds_each"] = [4.7, 4.6, 4.8]
    rows["classify --engine dask --jobs 2"]["median_seconds"] = 2.7
    found = ratios(bench, rows)
    assert found["cpu"]["value"] == pytest.approx(1.175) and found["cpu"]["pass"] is False
    assert found["dask"]["value"] == pytest.approx(1.35) and found["dask"]["pass"] is False


def test_a_ratio_not_measured_says_how_to_measure_it(bench):
    found = ratios(bench, {"classify --jobs 2": {"cpu_seconds_each": [4.4], "median_seconds": 2.0}})
    assert found["cpu"]["value"] is None and found["cpu"]["pass"] is None
    assert found["cpu"]["shown"] == "not measured (use --jobs 1 2)"
    assert found["dask"]["shown"] == "not measured (use --dask)" and found["dask"]["pass"] is None


def test_the_steps_compared_are_run_turn_about(bench, monkeypatch):
    # The ratios' steps share the host's moods: one run of each in turn, `repeat` times.
    calls = []
    seconds = iter([3.0, 2.0, 3.3, 2.2, 2.9, 2.1])

    def run(step, arguments, messages, timeout):
        calls.append(step)
        if step == "broken":
            return {"step": step, "ok": False, "error": "no"}
        taken = next(seconds)
        return {"step": step, "ok": True, "seconds": taken, "cpu_seconds": 2 * taken, "peak_rss_mb": 100.0,
                "messages_per_second": messages / taken}

    monkeypatch.setattr(bench, "run_triage", run)
    one, two, broken = bench.run_turn_about([("one", []), ("two", []), ("broken", [])], 1000, 60, 3)
    assert calls == ["one", "two", "broken", "one", "two", "one", "two"]  # a failed step is not run again
    assert one["seconds_each"] == [3.0, 3.3, 2.9] and two["seconds_each"] == [2.0, 2.2, 2.1]
    assert one["seconds"] == 2.9 and one["median_seconds"] == 3.0 and two["cpu_seconds_each"] == [4.0, 4.4, 4.2]
    assert broken["ok"] is False


def test_the_cpu_of_each_number_of_workers_is_read_against_one_process(bench):
    rows = {"classify --jobs 1": {"cpu_seconds_each": [4.0, 3.0, 2.0]},
            "classify --jobs 8": {"cpu_seconds_each": [6.0, 5.4, 5.0]},
            "classify --jobs 2": {"cpu_seconds_each": [3.3, 3.6, 3.9]},
            "classify --engine dask --jobs 2": {"cpu_seconds_each": [9.0]}}
    growth = bench.cpu_growth(rows)
    assert [g["jobs"] for g in growth] == [2, 8]  # the Dask engine is not a number of workers
    assert growth[0]["ratio"] == pytest.approx(1.2) and growth[1]["ratio"] == pytest.approx(1.8)
    assert growth[1]["per_extra_worker"] == pytest.approx(0.8 / 7)
    assert bench.show_cpu_growth(growth) == ("CPU against one process (medians): --jobs 2 1.20x (+20% a worker more), "
                                             "--jobs 8 1.80x (+11% a worker more)")
    assert bench.cpu_growth({"classify --jobs 2": {"cpu_seconds_each": [3.0]}}) == []  # no one process to compare
