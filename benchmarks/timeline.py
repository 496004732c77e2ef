"""How busy each process of a command is, over time: where a run with --jobs waits.

    python benchmarks/timeline.py [--every 0.1] [--bucket 0.5] [--out timeline.json] -- COMMAND...

Starts COMMAND, then samples the CPU time of it and of every process it starts (Linux's /proc) every `--every`
seconds until it ends, and prints, per `--bucket` seconds, the cores used by all of them together and by each
process (1.00: one core the whole time). A process forked as a worker shows up in its own column from its start.
Then each process's user and system CPU seconds and minor page faults, as last sampled (where `--jobs` spends the
CPU one process does not: the parent and each worker). Run by hand, never by the
test suite (benchmarks/README.md).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def descendants(pid: int) -> list[int]:
    """`pid` and every process it started, still running."""
    found = [pid]
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except FileNotFoundError:
        return found
    for task in tasks:
        try:
            children = Path(f"/proc/{pid}/task/{task}/children").read_text().split()
        except FileNotFoundError:
            continue
        for child in children:
            found += descendants(int(child))
    return found


def usage(pid: int) -> tuple[float, float, int] | None:
    """User and system CPU seconds of a process so far, and its minor page faults (None once it is gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return None
    return int(fields[11]) / TICKS, int(fields[12]) / TICKS, int(fields[7])


def sample(command: list[str], every: float, last: dict | None = None) -> list[tuple[float, dict[int, float]]]:
    """(seconds since the start, the CPU seconds of each process seen so far) until `command` ends;
    `last`, if given, receives each process's last usage() seen."""
    started = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    seen: dict[int, float] = {}
    samples = []
    while process.poll() is None:
        for pid in descendants(process.pid):
            used = usage(pid)
            if used is not None:
                seen[pid] = used[0] + used[1]
                if last is not None:
                    last[pid] = used
        samples.append((time.perf_counter() - started, dict(seen)))
        time.sleep(every)
    samples.append((time.perf_counter() - started, dict(seen)))
    if process.returncode:
        sys.exit(f"the command failed (exit {process.returncode}): {' '.join(command)}")
    return samples


def totals(last: dict[int, tuple[float, float, int]]) -> list[dict]:
    """Per process, in order of appearance: its user and system CPU seconds and minor page faults,
    as last seen (a process that ends between two samples loses what it did after the last)."""
    return [{"process": at + 1, "user_seconds": round(user, 2), "system_seconds": round(system, 2),
             "minor_faults": faults} for at, (user, system, faults) in enumerate(last.values())]


def buckets(samples: list[tuple[float, dict[int, float]]], width: float) -> list[dict]:
    """Per `width` seconds: the cores used by all processes together and by each (in order of appearance)."""
    pids = list(dict.fromkeys(pid for _, seen in samples for pid in seen))
    rows, (start, before) = [], samples[0]
    for at, seen in samples[1:]:
        if at - start >= width or at == samples[-1][0]:
            span = at - start
            each = [(seen.get(pid, 0.0) - before.get(pid, 0.0)) / span for pid in pids]
            rows.append({"until": round(at, 2), "cores": round(sum(each), 2), "per_process": [round(x, 2) for x in each]})
            start, before = at, seen
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--every", type=float, default=0.1, help="seconds between two samples")
    parser.add_argument("--bucket", type=float, default=0.5, help="seconds per printed line")
    parser.add_argument("--out", type=Path, help="JSON file to write")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="the command, after --")
    args = parser.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("give the command to follow after --")
    if not Path("/proc/self/stat").exists():
        parser.error("this needs Linux's /proc")
    last: dict = {}
    samples = sample(command, args.every, last)
    rows = buckets(samples, args.bucket)
    width = max((len(row["per_process"]) for row in rows), default=0)
    print("until (s)  cores   " + "  ".join(f"proc{i + 1}" for i in range(width)))
    for row in rows:
        print(f"{row['until']:9.1f}  {row['cores']:5.2f}   " + "  ".join(f"{x:5.2f}" for x in row["per_process"]))
    wall = samples[-1][0]
    total = sum(samples[-1][1].values())
    print(f"wall {wall:.2f} s, CPU {total:.2f} s ({total / wall:.2f} cores on average)")
    per_process = totals(last)
    for row in per_process:
        print(f"proc{row['process']}: {row['user_seconds']:.2f} s user, {row['system_seconds']:.2f} s system, "
              f"{row['minor_faults']:,} minor page faults")
    if args.out:
        args.out.write_text(json.dumps({"command": command, "wall_seconds": round(wall, 3),
                                        "cpu_seconds": round(total, 3), "buckets": rows,
                                        "processes": per_process}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
