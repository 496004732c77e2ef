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
    assert "cores on average" in capsys.readouterr().out
