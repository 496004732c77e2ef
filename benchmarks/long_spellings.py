"""Peak memory of `triage classify` when every message brings long spellings never seen before.

    python benchmarks/long_spellings.py --messages 200000 [--letters 200] [--per-message 2] [--triage PATH]

A hostile corpus for the memory budget: each message is an ordinary short SMS plus
`--per-message` new words of `--letters` random lower-case letters, so the vocabulary caches
grow by long spellings at every message. The budget must count their bytes, not only their
number. The corpus is written to a temporary folder; `triage classify` runs in a child process
(`--triage` names another installation's command, for an A/B run) and its peak RSS is read from
the kernel's accounting of the child (`ru_maxrss`).
"""

from __future__ import annotations

import argparse
import csv
import random
import resource
import string
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BASES = ["coucou tu viens ce soir ?", "jsuis a la gare dans 10 min", "ok a demain bisous",
         "tu peux rappeler stp", "on se voit au resto a 20h", "bon courage pour demain"]


def write_corpus(path: Path, messages: int, letters: int, per_message: int, seed: int) -> None:
    rng = random.Random(seed)
    with open(path, "w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["id", "text"])
        for i in range(messages):
            words = ["".join(rng.choices(string.ascii_lowercase, k=letters)) for _ in range(per_message)]
            writer.writerow([i, f"{rng.choice(BASES)} {' '.join(words)}"])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=200_000)
    parser.add_argument("--letters", type=int, default=200)
    parser.add_argument("--per-message", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--triage", default="triage", help="the triage command to run (another installation for A/B)")
    parser.add_argument("--queue", choices=["csv", "xlsx"], help="also write the expert's queue, in this format")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as folder:
        corpus = Path(folder) / "long.csv"
        write_corpus(corpus, args.messages, args.letters, args.per_message, args.seed)
        started = time.perf_counter()
        queue = ["--queue", str(Path(folder) / f"queue.{args.queue}")] if args.queue else []
        done = subprocess.run([args.triage, "classify", str(corpus), "-o", str(Path(folder) / "out.csv"),
                               "--no-chart", *queue], capture_output=True, text=True)
        seconds = time.perf_counter() - started
    if done.returncode != 0:
        print(done.stderr.strip().splitlines()[-1] if done.stderr.strip() else "classify failed", file=sys.stderr)
        return 1
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    print(f"{args.messages:,} messages, {args.per_message} new {args.letters}-letter spellings each"
          f"{f', with an .{args.queue} queue' if args.queue else ''}: peak RSS {peak:,.0f} MB, {seconds:.1f} s ({args.triage})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
