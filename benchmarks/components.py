"""Where `triage classify` spends its time, by component of the pipeline, without a profiler.

    python benchmarks/components.py [--messages 86000] [--seed 0] [--repeat 3] [--listed] [--out FILE]

Generates the corpus with benchmarks/corpus.py in a temporary folder, then runs the classify job
(triage.jobs.run_classify, CSV in, CSV out, one process, no chart) `--repeat` times, each in a
fresh process, and times each component of triage/pipeline/stages.txt as it runs (CPU seconds of the
process, steadier than wall time on a machine shared with other work), Seek&Hide's
three costliest parts inside `seek` (cutting the messages into pieces, gathering and adding the
pieces, labelling the new spellings), and what runs outside the pipeline: the corpus statistics
pass (reading the input included) and the rest (writing the output, ranking for the exact budget).
A profiler slows Python code two-fold and unevenly (benchmarks/profile_classify.py says which
functions; this says how long each part takes). Then it does the same on a corpus whose every
spelling is known: the first tenth of the corpus ten times, classified after one pass over it
(what a message costs once its words are learnt). The figure kept for each part is its median
over the runs.

`--listed` also estimates what the corpus would cost if the spellings a list holds were known
before the run (their labels and per-spelling columns worked out once per lexicon snapshot
rather than once per run): it times the corpus's distinct words that a list holds (as written or
accents aside), ten to a message, alone and then followed by the corpus; the second minus the
first is the corpus with those spellings known. It overstates such a snapshot a little: the
stretches and pieces of those words (a word after a space) are known too.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import corpus as growing  # noqa: E402  (benchmarks/corpus.py)

# Seek&Hide's parts inside the `seek` component, as (class path, method).
SEEK_PARTS = [("triage.seekhide.table.Spellings", "cut"), ("triage.seekhide.table.Spellings", "piece_ids_of"),
              ("triage.seekhide.words.WordLabeller", "label_many")]


def timed_run(source: str, output: str) -> dict:
    """In this process: the classify job on `source`, with the seconds of each part (the timers
    are taken off afterwards)."""
    import collections
    import importlib
    import time

    from triage import jobs, pipeline

    seconds: collections.Counter = collections.Counter()
    patched: list[tuple[object, str, object]] = []  # (owner, name, original)

    def patch(owner, name, replacement) -> None:
        patched.append((owner, name, getattr(owner, name)))
        setattr(owner, name, replacement)

    def call(self, batch=None, **inputs):
        batch = pipeline.Batch(**inputs) if batch is None else batch
        for step in self.components:
            started = time.process_time()
            step.run(self.context, batch)
            seconds[step.name] += time.process_time() - started
        return batch

    def timer(original, label):
        def timed(*args, **kwargs):
            started = time.process_time()
            try:
                return original(*args, **kwargs)
            finally:
                seconds[label] += time.process_time() - started

        return timed

    patch(pipeline.Pipeline, "__call__", call)
    for path, name in SEEK_PARTS:
        module, owner = path.rsplit(".", 1)
        cls = getattr(importlib.import_module(module), owner)
        patch(cls, name, timer(getattr(cls, name), f"seek: {name}"))
    patch(jobs, "corpus_stats", timer(jobs.corpus_stats, "statistics pass (reading included)"))
    try:
        started = time.process_time()
        jobs.run_classify(Path(source), Path(output), chart=False, force=True)
        total = time.process_time() - started
    finally:
        for owner, name, original in reversed(patched):
            setattr(owner, name, original)
    inside = sum(value for name, value in seconds.items() if not name.startswith("seek: "))
    return {"total": total, **seconds, "outside the pipeline and the statistics pass": total - inside}


def measure(source: Path, output: Path, repeat: int) -> dict:
    """The median seconds of each part over `repeat` fresh processes."""
    runs = []
    for _ in range(repeat):
        done = subprocess.run([sys.executable, __file__, "--child", str(source), str(output)],
                              capture_output=True, text=True, check=True)
        runs.append(json.loads(done.stdout))
    names = list(runs[0])
    return {name: statistics.median(run.get(name, 0.0) for run in runs) for name in names}


def warm_corpus(texts: list[str]) -> list[str]:
    """The first tenth of `texts`, eleven times: classified after one pass over it, every spelling is known."""
    head = texts[: max(1, len(texts) // 10)]
    return head * 11


# A word as the --listed estimate takes it: letters, maybe joined by hyphens or apostrophes.
_WORD = re.compile(r"[^\W\d_]+(?:[-'’][^\W\d_]+)*")


def listed_messages(texts: list[str]) -> list[str]:
    """The distinct words of `texts` that a list of the shipped lexicons holds (as written, or
    accents aside: Lexicons.lookup_many), in the order they first come, ten to a message."""
    from triage import lexicons
    from triage.lexicons import fold, spelling_key

    words = list(dict.fromkeys(word for text in texts for word in _WORD.findall(text)))
    keys = [spelling_key(word) for word in words]
    looked = lexicons.default().lookup_many(keys, [fold(key) for key in keys], remember=False)
    listed = [word for word, name, ordinary in zip(words, looked.in_names.tolist(), looked.in_anti.tolist())
              if name or ordinary]
    return [" ".join(listed[at:at + 10]) for at in range(0, len(listed), 10)]


def known_listed(alone: dict, followed: dict) -> dict:
    """Per part, the seconds of the corpus once its listed words are known: those of the listed
    words followed by the corpus, less those of the listed words alone."""
    return {name: followed[name] - alone.get(name, 0.0) for name in followed}


def table(parts: dict, messages: int) -> list[str]:
    total = parts["total"]
    lines = [f"total {total:.2f} s ({messages / total:,.0f} messages/s)"]
    for name, value in sorted(parts.items(), key=lambda item: -item[1]):
        if name != "total":
            lines.append(f"  {name:48s} {value:6.2f} s  {100 * value / total:5.1f}%")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--messages", type=int, default=86_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--listed", action="store_true",
                        help="also estimate the corpus with the spellings a list holds known before the run")
    parser.add_argument("--out", type=Path, help="also write the figures to this JSON file")
    parser.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(timed_run(*args.child)))
        return 0
    work = Path(tempfile.mkdtemp(prefix="triage-components-"))
    try:
        texts = list(growing.generate(args.messages, args.seed))
        source, warm = work / "corpus.csv", work / "warm.csv"
        growing.write_corpus(source, texts)
        growing.write_corpus(warm, warm_corpus(texts))
        growing_parts = measure(source, work / "out.csv", args.repeat)
        warm_parts = measure(warm, work / "out.csv", args.repeat)
        listed_parts = None
        if args.listed:
            listed = listed_messages(texts)
            alone, followed = work / "listed.csv", work / "listed-then-corpus.csv"
            growing.write_corpus(alone, listed)
            growing.write_corpus(followed, listed + texts)
            listed_parts = {"listed_messages": len(listed),
                            "alone": measure(alone, work / "out.csv", args.repeat),
                            "followed": measure(followed, work / "out.csv", args.repeat)}
            listed_parts["known"] = known_listed(listed_parts["alone"], listed_parts["followed"])
    finally:
        shutil.rmtree(work, ignore_errors=True)
    warm_messages = len(warm_corpus(texts))
    print(f"{args.messages:,} generated messages, one process, medians of {args.repeat} runs")
    print("\n".join(table(growing_parts, args.messages)))
    print(f"\n{warm_messages:,} messages: the first tenth eleven times (every spelling known after the first tenth)")
    print("\n".join(table(warm_parts, warm_messages)))
    if listed_parts is not None:
        print(f"\n{args.messages:,} generated messages once the spellings a list holds are known (their "
              f"{listed_parts['listed_messages']:,} messages of listed words, then the corpus, less those messages alone)")
        print("\n".join(table(listed_parts["known"], args.messages)))
    if args.out:
        figures = {"messages": args.messages, "seed": args.seed, "repeat": args.repeat, "growing": growing_parts,
                   "warm_messages": warm_messages, "warm": warm_parts}
        if listed_parts is not None:
            figures["listed"] = listed_parts
        args.out.write_text(json.dumps(figures, indent=1) + "\n", "utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
