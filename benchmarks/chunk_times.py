"""When each worker of `triage classify --jobs N` counts and classifies each chunk: where the
wall time of a run with workers goes, step by step.

    python benchmarks/chunk_times.py [--out chunk_times.json] -- classify CORPUS -o OUT --jobs 2 [--no-chart]

Runs the `triage` command given after `--` in this process, with the worker functions of its keeping
pool (triage.engines: the count of a chunk, the answer for a chunk, the last chunks a worker takes,
the classifying of a batch) wrapped so that each worker writes down when it starts and ends each,
and the main process's steps stamped: its imports done, the workers forked, the statistics pass
over, the workers told to stop, its exit. Each worker also writes down the CPU it spent on each
chunk and batch: its CPU in a pass over the pass's span is how busy it kept its core. Every time is
in seconds since the process started (as /proc counts it: the interpreter's own start included). A
worker classifies two chunks it keeps as one batch where they fit in one (the second chunk's answer
then waits for its turn, ready). Prints the main steps, then per worker its chunks counted and
classified, in how many batches, how busy it kept its core in each pass, its first batch (where it
learns the corpus' commonest spellings) against the median of the others, and when it ended; then
how far apart the workers ended. Linux only (/proc); run by hand, never by the test suite
(benchmarks/README.md). The local engine only: a local Dask cluster classifies through other
functions."""

from __future__ import annotations

import argparse
import atexit
import json
import os
import runpy
import statistics
import sys
import tempfile
import time
from pathlib import Path

TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def since_start() -> float:
    """Seconds since this process started, as /proc counts it."""
    started = int(Path("/proc/self/stat").read_text().rsplit(")", 1)[1].split()[19]) / TICKS
    return float(Path("/proc/uptime").read_text().split()[0]) - started


class Clock:
    """Seconds since the process started, read from a monotonic clock (the same in a forked worker)."""

    def __init__(self) -> None:
        self.origin = time.perf_counter() - since_start()

    def __call__(self) -> float:
        return time.perf_counter() - self.origin


def summarise(main: dict[str, float], chunks: list[dict]) -> dict:
    """What a run's stamps say. `main`: the main process's steps (name -> seconds); `chunks`: one
    record per chunk a worker counted or answered for, and per batch it classified ({"worker",
    "step": "count", "classify" or "batch", "index", "start", "end", and "cpu", the CPU seconds the
    worker spent on it, where recorded}; a batch's index is its first chunk's). Without batch records,
    each chunk answered for is taken as a batch. A worker's CPU in a pass against the span from its
    first start to its last end says how busy it kept its core."""
    workers = {}
    for pid in sorted({chunk["worker"] for chunk in chunks}):
        mine = [chunk for chunk in chunks if chunk["worker"] == pid]
        counted = sorted((c for c in mine if c["step"] == "count"), key=lambda c: c["start"])
        classified = [c for c in mine if c["step"] == "classify"]
        batches = sorted((c for c in mine if c["step"] == "batch"), key=lambda c: c["start"]) or \
            sorted(classified, key=lambda c: c["start"])
        spans = [c["end"] - c["start"] for c in batches]
        workers[len(workers) + 1] = {
            "chunks_counted": len(counted),
            "counting_seconds": round(sum(c["end"] - c["start"] for c in counted), 4),
            "counting_busy": _busy(counted),
            "first_count": [round(counted[0]["start"], 4), round(counted[0]["end"], 4)] if counted else None,
            "chunks_classified": len(classified),
            "batches": len(batches),
            "classifying_seconds": round(sum(spans), 4),
            "classifying_busy": _busy(batches),
            "first_batch_seconds": round(spans[0], 4) if spans else None,
            "others_median_seconds": round(statistics.median(spans[1:]), 4) if len(spans) > 1 else None,
            "ended": round(max((c["end"] for c in mine), default=0.0), 4),
        }
    ends = [worker["ended"] for worker in workers.values()]
    return {
        "main": {name: round(value, 4) for name, value in main.items()},
        "workers": workers,
        "workers_ended_apart_seconds": round(max(ends) - min(ends), 4) if ends else None,
    }


def _busy(records: list[dict]) -> float | None:
    """The CPU seconds of `records` (a worker's, in order) over the span from the first one's start
    to the last one's end; None without their CPU."""
    if not records or any("cpu" not in record for record in records):
        return None
    span = records[-1]["end"] - records[0]["start"]
    return round(sum(record["cpu"] for record in records) / span, 3) if span > 0 else None


def _share(busy: float | None) -> str:
    return "" if busy is None else f", its core busy {100 * busy:.0f}% of the time"


def report(summary: dict) -> str:
    lines = ["main process (seconds since it started):"]
    lines += [f"  {name:<28} {value:7.3f}" for name, value in summary["main"].items()]
    for number, worker in summary["workers"].items():
        lines.append(
            f"worker {number}: counted {worker['chunks_counted']} chunks in {worker['counting_seconds']:.3f} s"
            f"{_share(worker.get('counting_busy'))}, classified {worker['chunks_classified']} in {worker['batches']} "
            f"batches in {worker['classifying_seconds']:.3f} s{_share(worker.get('classifying_busy'))} (the first "
            f"batch {worker['first_batch_seconds']} s, the others' median {worker['others_median_seconds']} s), ended "
            f"at {worker['ended']:.3f} s")
    if summary["workers_ended_apart_seconds"] is not None:
        lines.append(f"the workers ended {summary['workers_ended_apart_seconds']:.3f} s apart")
    return "\n".join(lines)


def _wrapped(module, name: str, clock: Clock, record: Path, step: str) -> None:
    """module.name, in the workers forked from now on, writing each call's start and end to
    `record`. The wrapper takes the function's name: a pool sends the function by its name."""
    function = getattr(module, name)

    def stamped(*arguments):
        start, cpu = clock(), time.process_time()
        done = None
        try:
            done = function(*arguments)
            return done
        finally:
            if step == "classify":
                indexes = [getattr(arguments[1], "index", None)]
            elif step == "taken":  # the last chunks this worker took: (index, rows) each
                indexes = [index for index, _ in done or ()]
            else:
                indexes = [arguments[0][0] if step == "batch" else arguments[0]]
            end, spent = clock(), time.process_time() - cpu
            with open(record, "a", encoding="utf-8") as out:
                for index in indexes:
                    out.write(json.dumps({"worker": os.getpid(), "step": "classify" if step == "taken" else step,
                                          "index": index, "start": start, "end": end, "cpu": spent}) + "\n")

    stamped.__name__ = stamped.__qualname__ = name
    stamped.__module__ = module.__name__
    setattr(module, name, stamped)


def _stamped_method(cls, name: str, main: dict, label: str, clock: Clock, after: bool = False) -> None:
    method = getattr(cls, name)

    def stamped(self, *arguments, **options):
        if not after:
            main.setdefault(label, clock())
        try:
            return method(self, *arguments, **options)
        finally:
            if after:
                main.setdefault(label, clock())

    setattr(cls, name, stamped)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if "--" not in argv:
        print("give the triage command after --, e.g. -- classify corpus.csv -o out.csv --jobs 2", file=sys.stderr)
        return 2
    at = argv.index("--")
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, help="JSON file to write")
    args = parser.parse_args(argv[:at])
    command = argv[at + 1:]
    clock = Clock()
    stamps = {"script": clock()}
    from triage import engines, jobs

    stamps["imports done"] = clock()
    record = Path(tempfile.mkdtemp(prefix="chunk-times-")) / "chunks.jsonl"
    record.touch()
    _wrapped(engines, "_count_kept", clock, record, "count")
    _wrapped(engines, "_classify_kept", clock, record, "classify")
    _wrapped(engines, "_classify_taken", clock, record, "taken")
    _wrapped(engines, "_classify_batch", clock, record, "batch")
    _stamped_method(engines.KeepingPool, "_start", stamps, "workers forked", clock, after=True)
    _stamped_method(engines.KeepingPool, "stop", stamps, "workers told to stop", clock)
    statistics_pass = jobs.corpus_stats

    def counted(*arguments, **options):
        try:
            return statistics_pass(*arguments, **options)
        finally:
            stamps.setdefault("statistics pass over", clock())

    jobs.corpus_stats = counted

    def at_exit() -> None:  # the command leaves through the exit functions (triage.cli._exit_at_once)
        stamps["exit"] = clock()
        lines = record.read_text(encoding="utf-8").splitlines()
        summary = summarise(stamps, [json.loads(line) for line in lines])
        summary["command"] = command
        print(report(summary), file=sys.stderr)
        if args.out:
            args.out.write_text(json.dumps(summary, indent=1) + "\n", encoding="utf-8")
        record.unlink()
        record.parent.rmdir()

    atexit.register(at_exit)
    sys.argv = ["triage", *command]
    try:
        runpy.run_module("triage", run_name="__main__")
    except SystemExit as stop:
        return stop.code if isinstance(stop.code, int) else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
