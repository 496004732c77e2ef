"""How long loading every lexicon takes, and how much memory it needs, in fresh processes.

    python benchmarks/lexicons.py [--runs 5] [--out reports/bench_lexicons.json]

Each run is a new Python process (nothing cached in memory, as for a user's first command)
that imports triage.lexicons, then times triage.lexicons.load() with time.perf_counter and
reads its own peak RSS with resource.getrusage. The import is timed separately: the target
(<= 0.05 s, so that start-up with the model stays under 0.5 s; <= 200 MB) is about the load.
The peak RSS is the whole process's (interpreter + imports + lexicons), which is what a
user's machine has to hold.

The processes share a fresh, empty cache folder (TRIAGE_CACHE_DIR): the first run is
the cold load (read the text files, save the snapshot), shown on its own; the --runs that
follow are warm loads (read the snapshot), which the targets judge.

Run on demand, never as a test: the figures depend on the machine and on what else runs on it.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
TARGET_SECONDS = 0.05
TARGET_RSS_MB = 200.0

# Runs in the child. ru_maxrss is in KiB on Linux and in bytes on macOS.
CHILD = r"""
import json, resource, sys, time

def peak_mb():
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / (1024 * 1024) if sys.platform == "darwin" else peak / 1024

t0 = time.perf_counter()
import triage.lexicons as lexicon_module
t1 = time.perf_counter()
rss_after_import = peak_mb()
loaded = lexicon_module.load(sys.argv[1] or None)
t2 = time.perf_counter()
rss = peak_mb()
sizes = {info.name: info.entries for info in loaded.describe()}
print(json.dumps({
    "import_seconds": t1 - t0,
    "load_seconds": t2 - t1,
    "peak_rss_mb_after_import": rss_after_import,
    "peak_rss_mb": rss,
    "entries": sum(sizes.values()),
    "lists": sizes,
    "module": lexicon_module.__file__,
}))
"""


def run_once(python: str = sys.executable, directory: str | None = None, cache: str | None = None) -> dict:
    """One fresh process: import + load timings and peak RSS (raises on failure). `cache`:
    the cache folder (default: the user's)."""
    env = dict(os.environ)  # the copy installed from this checkout (its top is not an importable triage)
    if cache:
        env["TRIAGE_CACHE_DIR"] = cache
    started = time.perf_counter()
    done = subprocess.run(
        [python, "-c", CHILD, directory or ""], cwd=tempfile.gettempdir(), env=env, capture_output=True, text=True, timeout=300
    )
    wall = time.perf_counter() - started
    if done.returncode != 0:
        raise RuntimeError(f"lexicon load failed (exit {done.returncode}): {done.stderr.strip()[-800:]}")
    result = json.loads(done.stdout.strip().splitlines()[-1])
    result["process_wall_seconds"] = wall
    return result


def spread(values: list[float]) -> dict:
    return {"median": statistics.median(values), "min": min(values), "max": max(values)}


def measure(runs: int = 5, python: str = sys.executable, directory: str | None = None) -> dict:
    """One cold load, then `runs` warm ones, each in a fresh process with the same new
    cache folder; the targets are judged on the warm loads' median time and largest peak
    RSS (the worst case a user meets once the snapshot exists)."""
    with tempfile.TemporaryDirectory(prefix="triage-lexicon-cache-") as cache:
        cold = run_once(python, directory, cache)
        results = [run_once(python, directory, cache) for _ in range(runs)]
    load = spread([r["load_seconds"] for r in results])
    rss = spread([r["peak_rss_mb"] for r in results])
    return {
        "runs": runs,
        "cold": {key: cold[key] for key in ("load_seconds", "peak_rss_mb", "process_wall_seconds")},
        "load_seconds": load,
        "import_seconds": spread([r["import_seconds"] for r in results]),
        "process_wall_seconds": spread([r["process_wall_seconds"] for r in results]),
        "peak_rss_mb": rss,
        "peak_rss_mb_after_import": spread([r["peak_rss_mb_after_import"] for r in results]),
        "entries": results[0]["entries"],
        "lists": results[0]["lists"],
        "module": results[0]["module"],
        "targets": {
            "load_seconds": {"target": TARGET_SECONDS, "value": load["median"], "pass": load["median"] <= TARGET_SECONDS},
            "peak_rss_mb": {"target": TARGET_RSS_MB, "value": rss["max"], "pass": rss["max"] <= TARGET_RSS_MB},
        },
        "each_run": [cold, *results],
    }


def describe(summary: dict) -> str:
    def line(name, s, unit, fmt):
        return f"  {name:<26}median {s['median']:{fmt}}{unit}  min {s['min']:{fmt}}{unit}  max {s['max']:{fmt}}{unit}"

    targets = summary["targets"]
    verdict = lambda t: "PASS" if t["pass"] else "FAIL"  # noqa: E731
    cold = summary["cold"]
    return "\n".join([
        f"triage.lexicons.load() in fresh processes ({summary['entries']:,} entries):",
        f"  {'cold load':<26}{cold['load_seconds']:.3f} s, peak RSS {cold['peak_rss_mb']:.1f} MB "
        "(reads the text files, saves the snapshot)",
        f"  then {summary['runs']} warm loads (read the snapshot):",
        line("load", summary["load_seconds"], " s", ".3f"),
        line("import triage.lexicons", summary["import_seconds"], " s", ".3f"),
        line("whole process (wall)", summary["process_wall_seconds"], " s", ".3f"),
        line("peak RSS after load", summary["peak_rss_mb"], " MB", ".1f"),
        line("peak RSS after import", summary["peak_rss_mb_after_import"], " MB", ".1f"),
        f"  target warm load <= {TARGET_SECONDS} s (median): {verdict(targets['load_seconds'])}; "
        f"peak RSS <= {TARGET_RSS_MB:.0f} MB (max): {verdict(targets['peak_rss_mb'])}",
    ])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5, help="warm loads to run after the cold one (default 5)")
    parser.add_argument("--directory", help="lexicon folder (default: the shipped dictionaries/)")
    parser.add_argument("--out", type=Path, default=REPO / "reports" / "bench_lexicons.json", help="JSON file to write")
    args = parser.parse_args(argv)
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    load_before = os.getloadavg() if hasattr(os, "getloadavg") else None
    summary = measure(args.runs, directory=args.directory)
    summary["load_average"] = {"start": load_before, "end": os.getloadavg() if load_before else None}
    summary["python"] = sys.version.split()[0]
    print(describe(summary))
    if load_before:
        print(f"  load average: {load_before[0]:.2f} at start, {summary['load_average']['end'][0]:.2f} at end "
              f"on {os.cpu_count()} CPUs (the machine may be shared)")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(summary, indent=2) + "\n", "utf-8")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
