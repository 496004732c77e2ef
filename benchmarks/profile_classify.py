"""Where `triage classify` spends its time on a corpus that grows like a real one.

    python benchmarks/profile_classify.py [--messages 20000] [--seed 0] [--top 15] [--chart] [--out FILE]

Generates the corpus with benchmarks/corpus.py in a temporary folder, then runs the classify job
(triage.jobs.run_classify, CSV in, CSV out, one process, no chart unless --chart) under cProfile
and prints the top functions by cumulative and by own time, and how many spellings went through
the misspelling heuristic. The imports are done before profiling: start-up is bench.py's figure.
The job runs with the garbage collector off, as the `triage` command runs it.
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import io
import pstats
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import corpus as growing  # noqa: E402  (benchmarks/corpus.py)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--messages", type=int, default=20_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--top", type=int, default=15)
    parser.add_argument("--chart", action="store_true", help="draw the bar chart too (imports matplotlib)")
    parser.add_argument("--out", type=Path, help="also write the printed report to this file")
    args = parser.parse_args(argv)

    from triage import jobs
    from triage.seekhide import words

    work = Path(tempfile.mkdtemp(prefix="triage-profile-"))
    try:
        source = work / "corpus.csv"
        growing.write_corpus(source, growing.generate(args.messages, args.seed))
        calls = {"misspelling": 0}
        original = words.WordLabeller._misspelling

        def counted(self, folded):
            calls["misspelling"] += 1
            return original(self, folded)

        words.WordLabeller._misspelling = counted
        profiler = cProfile.Profile()
        started = time.perf_counter()
        gc.disable()  # as the triage command runs its job (triage.cli)
        profiler.enable()
        jobs.run_classify(source, work / "out.csv", chart=args.chart)
        profiler.disable()
        gc.enable()
        seconds = time.perf_counter() - started
        words.WordLabeller._misspelling = original
    finally:
        shutil.rmtree(work, ignore_errors=True)

    text = io.StringIO()
    print(f"classify of {args.messages:,} generated messages under cProfile: {seconds:.2f} s "
          f"(chart {'drawn' if args.chart else 'not drawn'}); {calls['misspelling']:,} spellings went through "
          f"the misspelling heuristic", file=text)
    for order in ("cumulative", "tottime"):
        print(f"\n--- top {args.top} by {order} time", file=text)
        pstats.Stats(profiler, stream=text).strip_dirs().sort_stats(order).print_stats(args.top)
    print("\n--- the Seek&Hide heuristics, the models and the writer", file=text)
    stats = pstats.Stats(profiler, stream=text).strip_dirs().sort_stats("cumulative")
    stats.print_stats(r"_misspelling|within_one_edit|label_many|_repetitions|_apostrophe|_concatenation|predict_proba|write_chunk|label_word")
    print(text.getvalue())
    if args.out:
        args.out.write_text(text.getvalue(), "utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
