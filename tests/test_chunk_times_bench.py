"""benchmarks/chunk_times.py: when each worker of classify --jobs counts and classifies each chunk."""

import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO, benchmark_module


@pytest.fixture(scope="module")
def chunk_times():
    return benchmark_module("chunk_times")


def stamps(*rows: tuple) -> list[dict]:
    """The records a run writes, one per (worker, step, index, start, end)."""
    return [dict(zip(("worker", "step", "index", "start", "end"), row)) for row in rows]


def test_the_stamps_of_each_worker_are_summed_and_its_first_chunk_set_apart(chunk_times):
    chunks = stamps(
        (7, "count", 0, 0.3, 0.35),
        (9, "count", 1, 0.31, 0.37),
        (7, "classify", 0, 0.5, 0.9),
        (7, "classify", 2, 0.9, 1.0),
        (7, "classify", 4, 1.0, 1.2),
        (9, "classify", 1, 0.5, 1.1),
    )
    summary = chunk_times.summarise({"workers forked": 0.25, "exit": 1.3}, chunks)
    first, second = summary["workers"][1], summary["workers"][2]
    assert (first["chunks_counted"], first["chunks_classified"], first["batches"]) == (1, 3, 3)
    assert first["first_batch_seconds"] == pytest.approx(0.4)
    assert first["others_median_seconds"] == pytest.approx(0.15)
    assert first["ended"] == pytest.approx(1.2) and second["ended"] == pytest.approx(1.1)
    assert second["others_median_seconds"] is None  # one chunk classified
    assert summary["workers_ended_apart_seconds"] == pytest.approx(0.1)
    assert "the workers ended 0.100 s apart" in chunk_times.report(summary)


def test_two_chunks_classified_as_one_batch_are_timed_as_that_batch(chunk_times):
    # The second chunk of a batch is answered at once, when its turn comes: timed with its batch.
    chunks = stamps(
        (7, "batch", 0, 0.5, 1.1),
        (7, "classify", 0, 0.5, 1.1),
        (7, "classify", 2, 1.2, 1.2),
        (7, "batch", 4, 1.2, 1.5),
        (7, "classify", 4, 1.2, 1.5),
        (7, "classify", 6, 1.6, 1.6),
        (7, "batch", 8, 1.6, 1.8),
        (7, "classify", 8, 1.6, 1.8),
    )
    worker = chunk_times.summarise({}, chunks)["workers"][1]
    assert (worker["chunks_classified"], worker["batches"]) == (5, 3)
    assert worker["first_batch_seconds"] == pytest.approx(0.6)
    assert worker["others_median_seconds"] == pytest.approx(0.25)
    assert worker["classifying_seconds"] == pytest.approx(1.1)
    assert worker["ended"] == pytest.approx(1.8)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="chunk_times.py reads Linux's /proc")
def test_a_run_with_two_workers_is_stamped_chunk_by_chunk(tmp_path):
    corpus = tmp_path / "sms.csv"
    texts = ["slt Julie tu viens ce soir ?", "ok a demain a la gare", "Rdv chez Dubois 18h", "bisous"]
    corpus.write_text("id,text\n" + "".join(f"{k},{texts[k % 4]} {k}\n" for k in range(6_000)), encoding="utf-8")
    out = tmp_path / "times.json"
    run = subprocess.run([sys.executable, str(REPO / "benchmarks" / "chunk_times.py"), "--out", str(out), "--",
                          "classify", str(corpus), "-o", str(tmp_path / "out.csv"), "--jobs", "2", "--no-chart"],
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    summary = json.loads(out.read_text())
    assert list(summary["main"]) == ["script", "imports done", "workers forked", "statistics pass over",
                                     "workers told to stop", "exit"]
    assert list(summary["main"].values()) == sorted(summary["main"].values())
    workers = summary["workers"].values()
    assert len(workers) == 2
    # 6,000 messages: a chunk of 5,000 and one of 1,000, cut again into four parts of 1,500.
    assert sum(worker["chunks_counted"] for worker in workers) == 4
    # The parts are the last chunks, which whichever worker is free takes: its own two as one batch,
    # another's alone.
    assert sum(worker["chunks_classified"] for worker in workers) == 4
    assert 2 <= sum(worker["batches"] for worker in workers) <= 4
    assert all(worker["counting_busy"] > 0 for worker in workers)
    assert all(worker["classifying_busy"] > 0 for worker in workers if worker["batches"])
    assert "the workers ended" in run.stderr
    assert Path(tmp_path / "out.csv").exists()


def test_a_workers_cpu_over_the_span_of_a_pass_is_how_busy_its_core_was(chunk_times):
    chunks = [dict(row, cpu=cpu) for row, cpu in zip(stamps(
        (7, "count", 0, 0.0, 0.4),
        (7, "count", 2, 0.5, 1.0),
        (7, "batch", 0, 2.0, 3.0),
        (7, "batch", 4, 3.0, 4.0),
    ), (0.4, 0.5, 0.9, 0.7))]
    worker = chunk_times.summarise({}, chunks)["workers"][1]
    assert worker["counting_busy"] == pytest.approx(0.9)  # 0.9 s of CPU from 0.0 to 1.0 s
    assert worker["classifying_busy"] == pytest.approx(0.8)
    assert "its core busy 90% of the time" in chunk_times.report(chunk_times.summarise({}, chunks))
    without = chunk_times.summarise({}, stamps((7, "count", 0, 0.0, 0.4)))["workers"][1]
    assert without["counting_busy"] is None  # records without their CPU
