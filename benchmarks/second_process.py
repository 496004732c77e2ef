"""What a second process costs `triage classify --jobs 2`: the same halves of a corpus classified in
one process and in two.

    python benchmarks/second_process.py [--messages 86000] [--seed 0] [--repeat 5] [--chunk N] [--out FILE]

Generates the corpus with benchmarks/corpus.py in a temporary folder, counts its statistics, makes
the tables every process makes, then classifies its chunks (as --jobs deals them out, two by two as
a worker classifies the chunks it keeps) in five arrangements, each in a fresh process, the
arrangements turn about, `--repeat` turns:

- one: one classifier for every chunk, in one process;
- two classifiers: a fresh classifier for the even chunks, then another for the odd ones, in one
  process, as the two workers of --jobs 2 share the chunks (each learns the corpus's common
  spellings again);
- two classifiers, one Seek&Hide: the same, the second taking the first's Seek&Hide (its table of
  spellings, with their labels and per-spelling columns) instead of its own: what the two halves
  would cost if they shared that table (the spellings both hold learnt once) and nothing else;
- two processes: the same two halves in two processes forked once the statistics are counted and
  the tables made, at once;
- main and one: the even chunks classified by the process itself while a process forked from it
  classifies the odd ones;
- forked early: two processes forked before the model, the statistics and the tables, each making
  its own.

For each: the CPU seconds of the classifying alone (every process's, summed: the statistics and the
tables are left out), and the minor page faults and the system time within them. Prints the median
and the range of each over the turns. Where a second process's cost is learning the spellings both
halves hold, "two classifiers" costs as much as "two processes"; where it is the memory each
process touches for itself, "two processes" costs more. Needs fork (Linux, macOS).
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import corpus as growing  # noqa: E402  (benchmarks/corpus.py)

ARRANGEMENTS = ("one", "two classifiers", "two classifiers, one Seek&Hide", "two processes", "main and one",
                "forked early")


def _setup(source: str, chunk: int):
    """The model, the corpus's statistics and its chunks, and a function that makes a fresh
    classifier from them; the tables every process makes are made."""
    from triage import combiner, engines, jobs, model
    from triage.classifier import Classifier
    from triage.io.messages import ReadOptions

    predictor = model.load_predictor(model.default_model_path())
    stats, _ = jobs.corpus_stats(ReadOptions().open(Path(source)), chunk, predictor, characters=jobs.BATCH_CHARACTERS)
    chunks = list(engines.even_tail(ReadOptions().open(Path(source)).pairs(chunk, jobs.BATCH_CHARACTERS), 2))
    hide = combiner.parse_hide("default")

    def fresh():
        classifier = Classifier(predictor, None, None, output_format="csv", hide=hide)
        classifier.stats = stats
        return classifier

    fresh().make_tables()
    return fresh, chunks


def _classify(fresh, chunks: list, seeker=None):
    """`chunks` classified by a fresh classifier, two by two as a worker of --jobs classifies the
    chunks it keeps; with `seeker`, the classifier takes that Seek&Hide instead of its own. Gives
    the classifier."""
    classifier = fresh()
    if seeker is not None:
        classifier.seeker = seeker
    for at in range(0, len(chunks), 2):
        two = chunks[at:at + 2]
        classifier.classify_parts([pair for part in two for pair in part], [len(part) for part in two])
    return classifier


def _timed(work) -> dict:
    """The CPU seconds, minor page faults and system seconds of this process while it does `work`."""
    import resource
    import time

    before, started = resource.getrusage(resource.RUSAGE_SELF), time.process_time()
    work()
    after = resource.getrusage(resource.RUSAGE_SELF)
    return {"cpu": time.process_time() - started, "faults": after.ru_minflt - before.ru_minflt,
            "system": after.ru_stime - before.ru_stime}


def _in_child(work) -> tuple[int, int]:
    """Fork a process that does `work` (a function giving a dict of figures) and writes its figures
    to a pipe: (its pid, the pipe's end to read them from)."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            os.close(read)
            os.write(write, json.dumps(work()).encode())
            code = 0
        except BaseException:
            import traceback

            traceback.print_exc()
        finally:
            os._exit(code)
    os.close(write)
    return pid, read


def _collect(child: tuple[int, int]) -> dict:
    pid, read = child
    with os.fdopen(read, "rb") as pipe:
        data = pipe.read()
    _, status = os.waitpid(pid, 0)
    if status != 0 or not data:
        raise RuntimeError("a forked process of the measure failed")
    return json.loads(data)


def _summed(figures: list[dict], processes: int = 1) -> dict:
    """The figures of the parts of an arrangement added up, with how many processes classified."""
    return {name: sum(part[name] for part in figures) for name in ("cpu", "faults", "system")} | \
        {"processes": processes}


def run_arrangement(arrangement: str, source: str, chunk: int) -> dict:
    """In this process (a fresh one): the figures of one arrangement."""
    import gc

    import triage.classifier  # noqa: F401  (the package imported before any fork)
    import triage.jobs  # noqa: F401

    gc.disable()  # as the triage command runs its job
    if arrangement == "forked early":
        def own(half: int) -> dict:
            fresh, chunks = _setup(source, chunk)  # its own, untimed
            return _timed(functools.partial(_classify, fresh, chunks[half::2]))

        children = [_in_child(functools.partial(own, 0)), _in_child(functools.partial(own, 1))]
        return _summed([_collect(child) for child in children], processes=2)
    fresh, chunks = _setup(source, chunk)
    even, odd = chunks[0::2], chunks[1::2]
    if arrangement == "one":
        return _summed([_timed(lambda: _classify(fresh, chunks))])
    if arrangement == "two classifiers":
        return _summed([_timed(lambda: _classify(fresh, even)), _timed(lambda: _classify(fresh, odd))])
    if arrangement == "two classifiers, one Seek&Hide":
        first: list = []
        return _summed([_timed(lambda: first.append(_classify(fresh, even))),
                        _timed(lambda: _classify(fresh, odd, first[0].seeker))])
    if arrangement == "two processes":
        children = [_in_child(functools.partial(_timed, functools.partial(_classify, fresh, half))) for half in (even, odd)]
        return _summed([_collect(child) for child in children], processes=2)
    if arrangement == "main and one":
        child = _in_child(lambda: _timed(lambda: _classify(fresh, odd)))
        mine = _timed(lambda: _classify(fresh, even))
        return _summed([mine, _collect(child)], processes=2)
    raise ValueError(f"unknown arrangement {arrangement!r}")


def measure(source: Path, chunk: int, repeat: int) -> dict[str, list[dict]]:
    """Each arrangement's figures, one per turn, each in a fresh process, turn about."""
    runs: dict[str, list[dict]] = {arrangement: [] for arrangement in ARRANGEMENTS}
    for _ in range(repeat):
        for arrangement in ARRANGEMENTS:
            done = subprocess.run([sys.executable, __file__, "--child", arrangement, str(source), "--chunk", str(chunk)],
                                  capture_output=True, text=True, check=True)
            runs[arrangement].append(json.loads(done.stdout))
    return runs


def summary(runs: dict[str, list[dict]]) -> dict[str, dict]:
    """Per arrangement, the median, least and most of each figure over its turns."""
    found = {}
    for arrangement, turns in runs.items():
        found[arrangement] = {"processes": turns[0]["processes"]}
        for name in ("cpu", "faults", "system"):
            values = [turn[name] for turn in turns]
            found[arrangement][name] = {"median": statistics.median(values), "least": min(values), "most": max(values)}
    return found


def table(summarised: dict[str, dict]) -> list[str]:
    one = summarised["one"]["cpu"]["median"]
    wide = max(len("arrangement"), *map(len, summarised))
    lines = [f"{'arrangement':{wide}s} {'processes':>9s} {'CPU s (median, range)':>26s} {'vs one':>7s} "
             f"{'page faults':>12s} {'system s':>9s}"]
    for arrangement, figures in summarised.items():
        cpu = figures["cpu"]
        lines.append(f"{arrangement:{wide}s} {figures['processes']:9d} "
                     f"{cpu['median']:8.2f} ({cpu['least']:.2f} to {cpu['most']:.2f}) "
                     f"{cpu['median'] / one - 1:+7.0%} {figures['faults']['median']:12,.0f} "
                     f"{figures['system']['median']:9.2f}")
    return lines


def main(argv: list[str] | None = None) -> int:
    from triage.jobs import CHUNK_MESSAGES

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--messages", type=int, default=86_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--chunk", type=int, default=CHUNK_MESSAGES, help="messages a chunk, as --jobs deals them")
    parser.add_argument("--out", type=Path, help="also write the figures to this JSON file")
    parser.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(run_arrangement(args.child[0], args.child[1], args.chunk)))
        return 0
    work = Path(tempfile.mkdtemp(prefix="triage-second-process-"))
    try:
        source = work / "corpus.csv"
        growing.write_corpus(source, growing.generate(args.messages, args.seed))
        runs = measure(source, args.chunk, args.repeat)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    summarised = summary(runs)
    print(f"{args.messages:,} generated messages in chunks of {args.chunk:,}, the classifying alone, "
          f"{args.repeat} turns")
    print("\n".join(table(summarised)))
    if args.out:
        figures = {"messages": args.messages, "seed": args.seed, "chunk": args.chunk, "repeat": args.repeat,
                   "summary": summarised, "runs": runs}
        args.out.write_text(json.dumps(figures, indent=1) + "\n", "utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
