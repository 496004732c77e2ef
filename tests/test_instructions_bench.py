"""benchmarks/bench.py's instruction counts (benchmarks/ab.py --instructions): each process of a
command counted once, a forked one from its own start; benchmarks/ab.py's runs compared turn by turn."""

import shutil
import sys

import pytest
from conftest import benchmark_module


@pytest.fixture(scope="module")
def bench():
    return benchmark_module("bench")


def test_a_callgrind_file_gives_its_summary(bench, tmp_path):
    counted = tmp_path / "callgrind.1"
    counted.write_text("# callgrind format\nversion: 1\nevents: Ir\nsummary: 12345\n\nfn=(1) main\n3 12345\ntotals: 12399\n")
    stopped = tmp_path / "callgrind.2"
    stopped.write_text("# callgrind format\nversion: 1\n")
    assert bench.callgrind_total(counted) == 12345
    assert bench.callgrind_total(stopped) == 0


def test_the_command_comes_first_and_its_children_in_turn_even_when_the_ids_wrapped_around(bench, tmp_path):
    # The command ran as process 32760; its children were given 32766, then 301 and 302 once the ids wrapped.
    files = [tmp_path / f"callgrind.{pid}" for pid in (301, 32766, 302, 32760)]
    assert [path.suffix for path in bench.in_start_order(files, 32760)] == [".32760", ".32766", ".301", ".302"]


@pytest.mark.skipif(shutil.which("valgrind") is None, reason="instruction counts need valgrind's callgrind")
def test_a_forked_process_is_counted_from_the_fork_not_with_its_parents_work(bench):
    # The parent works, then forks a child that exits at once: counted with its parent's work, the
    # child would count about as much as the parent.
    script = ("import os\nx = 0\nfor i in range(200_000): x += i\n"
              "pid = os.fork()\nif pid == 0: os._exit(0)\nos.waitpid(pid, 0)\n")
    counted = bench.instructions([sys.executable, "-c", script], timeout=300)
    assert counted["returncode"] == 0, counted["stderr_tail"]
    parent, child = counted["per_process"]
    assert counted["instructions"] == parent + child
    # The child's own part: what Python does after a fork, and its exit.
    assert 0 < child < parent / 10


@pytest.mark.skipif(shutil.which("valgrind") is None, reason="instruction counts need valgrind's callgrind")
def test_a_command_that_runs_too_long_is_stopped_with_what_it_wrote(bench):
    counted = bench.instructions([sys.executable, "-c", "import time; time.sleep(60)"], timeout=3)
    assert counted["returncode"] == -9
    # valgrind's own lines, written as it starts, read as text (not the repr of bytes)
    assert "callgrind_control" in counted["stderr_tail"] and "\\n" not in counted["stderr_tail"]
    assert counted["stderr_tail"].endswith("\n(killed after 3 s)")


def test_the_runs_turn_about_are_compared_turn_by_turn_with_the_cores_they_kept_busy():
    ab = benchmark_module("ab")
    runs = [
        {"installation": "base", "turn": 0, "seconds": 2.0, "cpu_seconds": 3.0},
        {"installation": "this", "turn": 0, "seconds": 1.5, "cpu_seconds": 3.0},  # as much CPU, busier cores
        {"installation": "base", "turn": 1, "seconds": 4.0, "cpu_seconds": 6.0},  # a slow moment for both
        {"installation": "this", "turn": 1, "seconds": 4.4, "cpu_seconds": 6.6},
        {"installation": "base", "turn": 2, "seconds": 2.0, "cpu_seconds": 3.0},  # a turn left unfinished
    ]
    ratios = ab.turn_ratios(runs)
    assert ratios["turns"] == 2 and ratios["faster"] == 1
    assert ratios["wall"] == pytest.approx((0.75 + 1.1) / 2)
    assert ratios["cpu"] == pytest.approx((1.0 + 1.1) / 2)
    assert ratios["cores"] == pytest.approx((2.0 / 1.5 + 1.0) / 2)
