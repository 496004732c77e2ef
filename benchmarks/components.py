"""Where `triage classify` spends its time, by component of the pipeline, without a profiler.

    python benchmarks/components.py [--messages 86000] [--seed 0] [--repeat 3] [--listed] [--columns] [--jobs N] [--out FILE]

Generates the corpus with benchmarks/corpus.py in a temporary folder, then runs the classify job
(triage.jobs.run_classify, CSV in, CSV out, one process, no chart) `--repeat` times, each in a
fresh process, and times each component of triage/pipeline/stages.txt as it runs (CPU seconds of the
process, steadier than wall time on a machine shared with other work; the garbage collector off, as the
`triage` command runs the job), Seek&Hide's three costliest parts inside `seek` (cutting the messages
into pieces, gathering and adding the pieces, labelling the new spellings), and what runs outside the pipeline: the corpus statistics
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

`--columns` also times each per-spelling column of Seek&Hide's table of spellings (triage/seekhide/columns.py: a
column is worked out once per spelling, for the new spellings of each batch; the word scorer's rows too) in one
process: its own CPU seconds, those of the columns it reads left out, listed apart from the parts. They are most of
what a new spelling costs beyond its label.

`--jobs N` also times the corpus classified with `--jobs N`, each part timed inside the process
that runs it (the timers are inherited by the forked workers, each of which reports what it spent
itself): the parent (which gives the chunks to the workers, then writes), the process that reads the
input ahead of them, and the workers
(which count the chunks they are given, keep them and classify them), beside one process; with how
many new spellings were labelled and how many rows the word scorer scored, in one process and in all
the processes of `--jobs N` (what `--jobs` learns more than once).
"""

from __future__ import annotations

import argparse
import functools
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


def timed_run(source: str, output: str, workers: int = 1, columns: bool = False) -> dict:
    """In this process: the classify job on `source`, with the seconds of each part (the timers
    are taken off afterwards). With `workers` > 1, the job runs with that many --jobs, and the
    figures are by process role (timed_roles). With `columns`, also the seconds of each
    per-spelling column ("column: NAME", _time_columns)."""
    import collections
    import gc
    import importlib
    import time

    from triage import jobs, pipeline

    seconds: collections.Counter = collections.Counter()
    counts: collections.Counter = collections.Counter()  # labels learnt, rows scored
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
    _count_learning(patch, counts)
    if columns:
        _time_columns(patch, seconds)
    roles = None
    if workers > 1:
        roles = tempfile.mkdtemp(prefix="triage-components-roles-")
        _report_roles(patch, timer, seconds, counts, roles)
    try:
        gc.disable()  # as the triage command runs its job (triage.cli): the parts hold no collections
        started = time.process_time()
        jobs.run_classify(Path(source), Path(output), chart=False, force=True, jobs=workers)
        total = time.process_time() - started
    finally:
        gc.enable()
        for owner, name, original in reversed(patched):
            setattr(owner, name, original)
        _ROLES.clear()
    if roles is not None:
        try:
            return timed_roles(roles, {"total": total, **seconds}, counts)
        finally:
            shutil.rmtree(roles, ignore_errors=True)
    inside = sum(value for name, value in seconds.items() if not name.startswith(("seek: ", "column: ")))
    return {"total": total, **seconds, "outside the pipeline and the statistics pass": total - inside,
            **{f"count: {name}": value for name, value in counts.items()}}


def _count_learning(patch, counts) -> None:
    """Count, in `counts`, the new spellings labelled (the labeller's memory grows by the spelling
    and its key) and the rows the word scorer scores: what a process learns."""
    from triage.model import Forest
    from triage.seekhide.words import WordLabeller

    label_many, predict_proba = WordLabeller.label_many, Forest.predict_proba

    def labelled(self, words):
        before = len(self._cache)
        try:
            return label_many(self, words)
        finally:
            counts["labels learnt"] += len(self._cache) - before

    def scored(self, X):
        counts["rows scored"] += len(X)
        return predict_proba(self, X)

    patch(WordLabeller, "label_many", labelled)
    patch(Forest, "predict_proba", scored)


def _time_columns(patch, seconds) -> None:
    """Add to `seconds`, as "column: NAME" (with its parameters), the CPU seconds of each
    per-spelling column of the table of spellings and of each table of rows (Spellings.column,
    column_at, rows_for), less those of the columns it asks for itself."""
    import time

    from triage.seekhide.table import Spellings

    inner: list[float] = []  # per column being worked out, the seconds of those it asked for

    def timed(original, label_of):
        def run(self, first, *rest, **kwargs):
            started = time.process_time()
            inner.append(0.0)
            try:
                return original(self, first, *rest, **kwargs)
            finally:
                spent = time.process_time() - started
                seconds[f"column: {label_of(first, rest)}"] += spent - inner.pop()
                if inner:
                    inner[-1] += spent

        return run

    patch(Spellings, "column", timed(Spellings.column, lambda column, rest: " ".join([column.name, *map(str, rest)])))
    patch(Spellings, "column_at", timed(Spellings.column_at, lambda column, rest: column.name))
    patch(Spellings, "rows_for", timed(Spellings.rows_for, lambda name, rest: name))


# What the workers of a timed run with --jobs report (_report_roles): the counters, the folder, the
# functions timed. Module-level, as the functions the workers run must be: a pool pickles them by name.
_ROLES: dict = {}


def _report_roles(patch, timer, seconds, counts, folder: str) -> None:
    """Make each forked worker of `--jobs` write what it spent itself (its parts, less what it
    inherited from the parent at the fork; its counts; its CPU seconds) to `folder` after each
    chunk it counts (a call timed whole) or classifies, and after the last chunks it takes."""
    from triage import engines

    _ROLES.update(seconds=seconds, counts=counts, folder=folder, inherited={},
                  classify=engines._classify_kept, take=engines._classify_taken,
                  count=timer(engines._count_kept, "counting and cutting"), read=engines.ReadAhead._read)
    patch(engines, "_classify_kept", _classifying)
    patch(engines, "_classify_taken", _taking)
    patch(engines, "_count_kept", _counting)
    patch(engines.ReadAhead, "_read", _reading)


def _reading(self, *arguments):
    """ReadAhead._read in the process that reads the input ahead of the workers, then its CPU written."""
    return _reported("reader", functools.partial(_ROLES["read"], self), *arguments)


def _classifying(*arguments):
    return _reported("workers", _ROLES["classify"], *arguments)


def _taking(*arguments):
    return _reported("workers", _ROLES["take"], *arguments)


def _counting(*arguments):
    return _reported("workers", _ROLES["count"], *arguments)


def _reported(role: str, original, *arguments):
    """original(*arguments) in a worker, then what this worker spent so far written to the folder."""
    import collections
    import os
    import resource

    seconds, counts, inherited = _ROLES["seconds"], _ROLES["counts"], _ROLES["inherited"]
    here = os.getpid()
    if here not in inherited:  # its first call: what the counters hold is the parent's
        inherited[here] = (collections.Counter(seconds), collections.Counter(counts))
    try:
        return original(*arguments)
    finally:
        usage = resource.getrusage(resource.RUSAGE_SELF)
        own = {"role": role, "seconds": dict(seconds - inherited[here][0]),
               "counts": dict(counts - inherited[here][1]), "cpu": usage.ru_utime + usage.ru_stime}
        Path(_ROLES["folder"], f"{here}.json").write_text(json.dumps(own), "utf-8")


def timed_roles(folder: str, parent: dict, counts) -> dict:
    """The figures of a run with --jobs: per role (the parent, the reader of the input, the workers), the seconds of each
    part summed over its processes, with "cpu", the CPU seconds of its processes; and "counts",
    what all the processes learnt together."""
    found = {"parent": {**parent, "cpu": parent["total"]}, "workers": {}, "reader": {}}
    learnt = dict(counts)
    for path in Path(folder).glob("*.json"):
        own = json.loads(path.read_text("utf-8"))
        role = found[own["role"]]
        for name, value in [*own["seconds"].items(), ("cpu", own["cpu"]), ("processes", 1)]:
            role[name] = role.get(name, 0) + value
        for name, value in own["counts"].items():
            learnt[name] = learnt.get(name, 0) + value
    found["counts"] = learnt
    return found


def measure(source: Path, output: Path, repeat: int, workers: int = 1, columns: bool = False) -> dict:
    """The median seconds of each part over `repeat` fresh processes (with `workers` > 1, of each
    part of each role of timed_roles; with `columns`, of each per-spelling column too)."""
    runs = []
    for _ in range(repeat):
        done = subprocess.run([sys.executable, __file__, "--child", str(source), str(output), "--jobs", str(workers),
                               *(["--columns"] if columns else [])], capture_output=True, text=True, check=True)
        runs.append(json.loads(done.stdout))
    return _medians(runs)


def _medians(runs: list[dict]) -> dict:
    """The median of each figure over `runs` (dicts of numbers, or of such dicts)."""
    found = {}
    for name, value in runs[0].items():
        if isinstance(value, dict):
            found[name] = _medians([run.get(name, {}) for run in runs])
        else:
            found[name] = statistics.median(run.get(name, 0.0) for run in runs)
    return found


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
        if name != "total" and not name.startswith(("count: ", "column: ")):
            lines.append(f"  {name:48s} {value:6.2f} s  {100 * value / total:5.1f}%")
    return lines


def columns_table(parts: dict, top: int = 20) -> list[str]:
    """The `top` costliest per-spelling columns of `parts` (measure's with columns), and all of them together."""
    found = sorted(((name.removeprefix("column: "), value) for name, value in parts.items()
                    if name.startswith("column: ")), key=lambda item: -item[1])
    lines = [f"per-spelling columns: {sum(value for _, value in found):.2f} s in all ({len(found)} columns), "
             f"the {min(top, len(found))} costliest (each without the columns it reads)"]
    lines += [f"  {name:48s} {value:6.3f} s" for name, value in found[:top]]
    return lines


def jobs_table(one: dict, roles: dict, workers: int) -> list[str]:
    """One process's parts beside those of each role of a run with --jobs `workers` (CPU seconds,
    summed over the processes of a role), then what each learnt."""
    columns = ("parent", "reader", "workers")
    names = [name for name in one if name != "total" and not name.startswith("count: ")]
    names += [name for role in columns for name in roles[role] if name not in names
              and name not in ("total", "cpu", "processes")]
    lines = [f"{'CPU seconds':48s} {'one process':>11s} " + " ".join(f"{role:>19s}" for role in columns)]
    for name in names:
        cells = " ".join(f"{roles[role].get(name, 0.0):19.2f}" for role in columns)
        lines.append(f"  {name:46s} {one.get(name, 0.0):11.2f} {cells}")
    cells = " ".join(f"{roles[role].get('cpu', 0.0):19.2f}" for role in columns)
    lines.append(f"  {'all (CPU of the processes)':46s} {one['total']:11.2f} {cells}")
    everything = sum(roles[role].get("cpu", 0.0) for role in columns)
    lines.append(f"--jobs {workers} in all: {everything:.2f} s of CPU, {everything / one['total']:.2f} times one process's")
    for name, value in roles["counts"].items():
        alone = one.get(f"count: {name}", 0)
        lines.append(f"{name}: {value:,.0f} with --jobs {workers}, {alone:,.0f} in one process"
                     + (f" ({value / alone - 1:+.0%})" if alone else ""))
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--messages", type=int, default=86_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--listed", action="store_true",
                        help="also estimate the corpus with the spellings a list holds known before the run")
    parser.add_argument("--columns", action="store_true",
                        help="also time each per-spelling column of Seek&Hide's table of spellings (one process)")
    parser.add_argument("--jobs", type=int, default=1,
                        help="also time the corpus with this many --jobs, each part in the process that runs it")
    parser.add_argument("--out", type=Path, help="also write the figures to this JSON file")
    parser.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(timed_run(*args.child, workers=args.jobs, columns=args.columns)))
        return 0
    work = Path(tempfile.mkdtemp(prefix="triage-components-"))
    try:
        texts = list(growing.generate(args.messages, args.seed))
        source, warm = work / "corpus.csv", work / "warm.csv"
        growing.write_corpus(source, texts)
        growing.write_corpus(warm, warm_corpus(texts))
        growing_parts = measure(source, work / "out.csv", args.repeat, columns=args.columns)
        jobs_parts = measure(source, work / "out.csv", args.repeat, args.jobs) if args.jobs > 1 else None
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
    if args.columns:
        print()
        print("\n".join(columns_table(growing_parts)))
    if jobs_parts is not None:
        print(f"\nthe same corpus with --jobs {args.jobs}, each part timed in the processes that run it "
              "(the parent's statistics pass: reading the corpus and handing it to the workers)")
        print("\n".join(jobs_table(growing_parts, jobs_parts, args.jobs)))
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
        if jobs_parts is not None:
            figures["jobs"] = {"jobs": args.jobs, **jobs_parts}
        args.out.write_text(json.dumps(figures, indent=1) + "\n", "utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
