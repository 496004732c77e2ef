"""benchmarks/timeline.py: the cores each process of a command uses, over time."""

import sys
from pathlib import Path

import pytest
from conftest import benchmark_module


@pytest.fixture(scope="module")
def timeline():
    return benchmark_module("timeline")


def test_buckets_give_the_cores_each_process_used(timeline):
    samples = [(0.0, {1: 0.0}), (0.25, {1: 0.25}), (0.5, {1: 0.5, 2: 0.0}), (1.0, {1: 0.5, 2: 0.5})]
    rows = timeline.buckets(samples, 0.5)
    assert rows == [{"until": 0.5, "cores": 1.0, "per_process": [1.0, 0.0]},
                    {"until": 1.0, "cores": 1.0, "per_process": [0.0, 1.0]}]


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="timeline.py reads Linux's /proc")
def test_a_command_and_the_process_it_starts_are_followed(timeline, tmp_path, capsys):
    busy = "import time; end = time.process_time() + 0.4\nwhile time.process_time() < end: pass"
    script = (f"import subprocess, sys; subprocess.run([sys.executable, '-c', {busy!r}], check=True)")
    out = tmp_path / "timeline.json"
    assert timeline.main(["--every", "0.02", "--bucket", "0.1", "--out", str(out), "--", sys.executable, "-c", script]) == 0
    import json

    written = json.loads(out.read_text())
    assert max(len(row["per_process"]) for row in written["buckets"]) == 2  # the command and its child
    assert written["cpu_seconds"] >= 0.3
    processes = written["processes"]
    assert [row["process"] for row in processes] == [1, 2]
    assert processes[1]["user_seconds"] + processes[1]["system_seconds"] >= 0.3  # the busy child
    assert all(row["minor_faults"] > 0 for row in processes)
    printed = capsys.readouterr().out
    assert "cores on average" in printed and "proc2: " in printed and "minor page faults" in printed


def test_totals_give_each_process_last_usage_in_order(timeline):
    assert timeline.totals({7: (0.5, 0.25, 10), 3: (1.0, 0.0, 2)}) == [
        {"process": 1, "user_seconds": 0.5, "system_seconds": 0.25, "minor_faults": 10},
        {"process": 2, "user_seconds": 1.0, "system_seconds": 0.0, "minor_faults": 2}]
