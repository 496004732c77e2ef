"""Where `triage classify` keeps its memory on a corpus that grows like a real one.

    python benchmarks/memory_classify.py CORPUS.csv [--every 20] [--out FILE]

Runs the classify job (triage.jobs.run_classify, one process, no chart) in this process on a
corpus made by benchmarks/corpus.py, and every `--every` chunks prints the process's RSS and
the size of each structure that grows with the vocabulary: its entries, and its bytes counted
object by object (sys.getsizeof of the containers and of what they hold, each object counted
once, in the order of the list below). The counting takes a few seconds each time: the RSS
figures are the run's, the wall time is not.
"""

from __future__ import annotations

import argparse
import gc
import sys
import tempfile
import time
from pathlib import Path

import numpy as np


def rss_mb() -> float:
    with open("/proc/self/statm") as handle:
        return int(handle.read().split()[1]) * 4096 / 2**20


def peak_rss_mb() -> float:
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def deep_size(obj, seen: set[int]) -> int:
    """Bytes of `obj` and of everything it holds not counted yet (numpy arrays: their buffer;
    object arrays: their items too)."""
    total, stack = 0, [obj]
    while stack:
        item = stack.pop()
        if id(item) in seen:
            continue
        seen.add(id(item))
        if isinstance(item, np.ndarray):
            total += item.nbytes + 112
            if item.dtype == object:
                stack.extend(item.ravel().tolist())
            continue
        total += sys.getsizeof(item)
        if isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, (list, tuple, set, frozenset)):
            stack.extend(item)
    return total


def structures(classifier, stats) -> dict[str, object]:
    """The structures that grow with the vocabulary, by name."""
    from triage.model import names

    seeker = classifier.seeker
    table = seeker.spellings
    found = {
        "stats.counts": stats.counts if stats else {},
        "names._letter_runs": names._letter_runs,
        "table.stretches": (table.stretches, [c.values for c in (table.stretches.first, table.stretches.count,
                                                                 table.stretches.pieces)],
                            [c.array for c in (table.stretches.first, table.stretches.count, table.stretches.pieces)]),
        "table.piece_ids": dict(table.piece_ids),
        "table.spelling_ids": table.spelling_ids,
        "table.texts+infos+tags": (table.texts, table.infos, table.tags),
        "table.columns": [(c.values, c.array) for g in (table._columns, table._pieces, table._parts) for c in g.values()],
        "table._extra": table._extra,
        "table._rows": table._rows,
        "seeker._cache (labels)": seeker._cache,
        "seeker._codes": seeker._codes,
        "classifier._scores": (classifier._scores.keys, classifier._scores.values, classifier._scores.recent_keys,
                               classifier._scores.recent_values),
    }
    lexicons = seeker.lexicons
    counted: set[int] = set()  # the big lists may share one memory of the spellings asked: count it once
    for name in ("forms", "last_names", "folded_anti"):
        wordlist = getattr(lexicons, name, None)
        memory = getattr(wordlist, "_positions", None)
        if memory is not None and id(memory) not in counted:
            counted.add(id(memory))
            found[f"WordList {name}._positions"] = memory
    return found


def entries(obj) -> int:
    if isinstance(obj, tuple) and obj and isinstance(obj[0], dict):
        return sum(len(o) for o in obj if isinstance(o, dict))
    if isinstance(obj, tuple):
        return len(obj[0])
    return len(obj)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpus", type=Path)
    parser.add_argument("--every", type=int, default=20, help="chunks of 5,000 messages between two counts")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args(argv)

    from triage import jobs
    from triage.classifier import Classifier
    from triage.pipeline.memory import VOCABULARY

    lines: list[str] = []

    def say(text: str) -> None:
        print(text, flush=True)
        lines.append(text)

    state = {"chunks": 0, "stats": None}
    original_classify, original_stats = Classifier.classify, jobs.corpus_stats

    def counted_stats(*a, **k):
        stats, chunks = original_stats(*a, **k)
        state["stats"] = stats
        say(f"after corpus statistics: RSS {rss_mb():.0f} MB (peak {peak_rss_mb():.0f}), "
            f"{len(stats.counts):,} distinct letter runs counted")
        return stats, chunks

    def probed(self, messages):
        done = original_classify(self, messages)
        state["chunks"] += 1
        if state["chunks"] % args.every == 0:
            report(self, state["chunks"] * len(messages))
        return done

    def report(classifier, messages: int) -> None:
        gc.collect()
        say(f"--- {messages:,} messages: RSS {rss_mb():.0f} MB, peak {peak_rss_mb():.0f} MB, "
            f"{time.perf_counter() - started:.0f} s")
        seen: set[int] = set()
        total = 0
        for name, obj in structures(classifier, state["stats"]).items():
            size = deep_size(obj, seen)
            total += size
            say(f"  {name:<32}{entries(obj):>11,} entries {size / 2**20:>8.1f} MB")
        say(f"  {'total counted':<32}{'':>19} {total / 2**20:>8.1f} MB")
        say(f"  the memory budget's estimate of its caches (triage.pipeline.memory): {VOCABULARY.used() / 2**20:.1f} MB "
            f"of {VOCABULARY.limit / 2**20:.0f}, emptied {VOCABULARY.restarts} times so far")

    Classifier.classify, jobs.corpus_stats = probed, counted_stats
    say(f"before: RSS {rss_mb():.0f} MB")
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as work:
        jobs.run_classify(args.corpus, Path(work) / "out.csv", chart=False)
    say(f"end: {time.perf_counter() - started:.0f} s, peak RSS {peak_rss_mb():.0f} MB")
    if args.out:
        args.out.write_text("\n".join(lines) + "\n", "utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
