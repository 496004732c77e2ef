"""Two installations of sms-triage timed on the same corpus in one run, turn about: the way to
tell whether a change to the engine made it faster, on a machine whose speed varies.

    python benchmarks/ab.py --base /path/to/other/venv/bin/python [--messages 86000] [--seed 0]
                            [--jobs 1 2] [--repeat 3] [--option=--engine=dask] [--workspace {none,kept,new}]
                            [--chart] [--instructions] [--out FILE]

`--base` is the interpreter of another installation (for example a virtual environment with the
previous release, or another checkout installed with `pip install -e`); this one is the interpreter
running the script. Each is asked where it imports sms-triage from, in the environment the commands
run in (a PYTHONPATH that holds a checkout reaches both interpreters): two that import the same copy
are refused, and the JSON keeps each one's folder and git commit. The corpus is generated with
benchmarks/corpus.py in a temporary folder. For each --jobs value, `triage classify --no-chart`
(with `--chart`, `triage classify` and its bar chart) runs `--repeat` times for each installation,
alternating (base, this, base, this...), each in a fresh process (bench.measure: wall seconds, CPU
seconds of the process tree, peak RSS), each installation byte-compiled first (where
PYTHONDONTWRITEBYTECODE is set, every fresh process would otherwise compile every module from
source, about 0.2 s of CPU a run). The outputs of the two installations are compared byte for byte:
a difference is printed (and recorded) because it is either a named fix or a regression. The fastest
run of each is what the code costs (other processes can only slow a run down); then the medians of
the turns' ratios (turn_ratios), the cores kept busy among them; the JSON keeps every run. With
`--workspace kept` or `new`, each installation also brings a review workspace of its own up to date,
kept from run to run or made anew each run, and the two workspaces' messages and listed items are
compared too.

With `--instructions`, each run is counted instead of timed: the machine instructions of the command
and of every process it forks, under valgrind's callgrind (bench.instructions), with Python's hash
seed fixed for both installations. A count does not move with the load of the host (two runs of the
same installation agree to a few ten-thousandths), so it tells a change of one or two percent apart,
which the wall time of a shared host hides; it is not a time (a change that spares instructions but
waits on memory or on another process shows only in the wall time), and each run takes about 60
times as long. One run of each installation is usually enough (`--repeat 1`).
"""

from __future__ import annotations

import argparse
import filecmp
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench  # noqa: E402  (benchmarks/bench.py)
import corpus as growing  # noqa: E402  (benchmarks/corpus.py)


def classify_command(python: str, source: Path, output: Path, jobs: int, options: list[str],
                     chart: bool = False) -> list[str]:
    return [python, "-m", "triage", "classify", str(source), "-o", str(output), *([] if chart else ["--no-chart"]),
            "--force", "--jobs", str(jobs), *options]


def installed_from(python: str, env: dict) -> Path:
    """The folder `python` imports sms-triage from, run as the commands are (their folder and
    environment: a PYTHONPATH reaches both installations alike)."""
    found = subprocess.run([python, "-c", "import triage, pathlib; print(pathlib.Path(triage.__file__).parent.parent)"],
                           cwd=tempfile.gettempdir(), env=env, capture_output=True, text=True, check=True)
    return Path(found.stdout.strip()).resolve()


def described(top: Path) -> dict:
    """Where an installation's code is, with its git commit where it is a checkout (and whether
    files differ from that commit)."""
    found = {"folder": str(top)}
    head = subprocess.run(["git", "-C", str(top), "rev-parse", "HEAD"], capture_output=True, text=True)
    if head.returncode == 0:
        changed = subprocess.run(["git", "-C", str(top), "status", "--porcelain", "--untracked-files=no"],
                                 capture_output=True, text=True).stdout.strip()
        found["commit"] = head.stdout.strip() + (" with changes" if changed else "")
    return found


def compile_installation(python: str, top: Path) -> None:
    """Byte-compile the packages `python` imports sms-triage from (triage, features, dictionaries,
    in `top`), as bench.compile_bytecode does for this checkout."""
    packages = [str(top / name) for name in ("triage", "features", "dictionaries") if (top / name).is_dir()]
    subprocess.run([python, "-m", "compileall", "-q", *packages], check=True, stdout=subprocess.DEVNULL)


def workspace_rows(path: Path) -> dict[str, list]:
    """A review workspace's messages and listed items, in order."""
    import sqlite3

    with sqlite3.connect(path) as db:
        return {"messages": db.execute("SELECT * FROM messages ORDER BY position").fetchall(),
                "items": db.execute("SELECT * FROM items ORDER BY rank").fetchall()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", required=True, help="the other installation's Python interpreter")
    parser.add_argument("--messages", type=int, default=86_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--jobs", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--option", action="append", default=[],
                        help="an option for classify, e.g. --option=--workspace=ws.sqlite (repeatable)")
    parser.add_argument("--workspace", choices=("none", "kept", "new"), default="none",
                        help="also bring a review workspace up to date (classify --workspace), one per installation: "
                             "kept from run to run (a corpus classified again after a review), or new each run "
                             "(a first sync)")
    parser.add_argument("--chart", action="store_true",
                        help="write the bar chart too, as classify does unless told not to (compared byte for byte)")
    parser.add_argument("--instructions", action="store_true",
                        help="count each run's machine instructions under valgrind's callgrind instead of timing it")
    parser.add_argument("--timeout", type=float, default=1800)
    parser.add_argument("--out", type=Path, help="JSON file to write")
    args = parser.parse_args(argv)
    installations = {"base": args.base, "this": sys.executable}
    report: dict = {"started": time.strftime("%Y-%m-%d %H:%M:%S %z"), "machine": bench.machine(),
                    "load_average": {"start": bench.load_average()}, "messages": args.messages,
                    "seed": args.seed, "options": args.option, "workspace": args.workspace, "chart": args.chart,
                    "measured": "instructions" if args.instructions else "time", "runs": []}
    # Counted, both installations hash strings alike: the only run-to-run difference left in the count.
    env = dict(bench.child_env(), PYTHONHASHSEED="0") if args.instructions else bench.child_env()
    tops = {name: installed_from(python, env) for name, python in installations.items()}
    if tops["base"] == tops["this"]:  # (both would run the same code: every ratio would be noise)
        print(f"ab.py: both interpreters import sms-triage from {tops['this']} (a PYTHONPATH reaches both): "
              "give --base an installation of another copy", file=sys.stderr)
        return 2
    report["installations"] = {name: {"python": python, **described(tops[name])}
                               for name, python in installations.items()}
    work = Path(tempfile.mkdtemp(prefix="triage-ab-"))
    try:
        for name, python in installations.items():
            compile_installation(python, tops[name])
        source = work / "corpus.csv"
        sources = growing.Sources()
        # The corpus' base messages: the demo corpus, and the development file when it is found
        # (its real vocabulary is what the figures are meant for).
        report["development_corpus"] = growing.DEV_CORPUS.name if sources.dev else None
        if not sources.dev:
            print(f"no development corpus at {growing.DEV_CORPUS} (set TRIAGE_DEV_CORPUS): the corpus is generated "
                  "from the demo messages alone", file=sys.stderr)
        growing.write_corpus(source, growing.generate(args.messages, args.seed, sources))
        for jobs in args.jobs:
            fastest: dict[str, dict] = {}
            for turn in range(args.repeat):
                for name, python in installations.items():
                    output = work / f"{name}-{jobs}.csv"
                    options = list(args.option)
                    if args.workspace != "none":
                        workspace = work / f"{name}.sqlite"
                        if args.workspace == "new":
                            for made in work.glob(f"{name}.sqlite*"):
                                made.unlink()
                        options.append(f"--workspace={workspace}")
                    command = classify_command(python, source, output, jobs, options, args.chart)
                    if args.instructions:
                        result = bench.instructions(command, timeout=args.timeout, env=env)
                        kept = ("instructions", "processes", "per_process")
                    else:
                        result = bench.measure(command, timeout=args.timeout, env=env)
                        kept = ("seconds", "cpu_seconds", "peak_rss_mb")
                    if result["returncode"] != 0:
                        print(f"{name} --jobs {jobs}: failed\n{result.get('stderr_tail', '')}", file=sys.stderr)
                        return 1
                    run = {"installation": name, "jobs": jobs, "turn": turn, **{k: result[k] for k in kept}}
                    report["runs"].append(run)
                    measured = kept[0]
                    if name not in fastest or run[measured] < fastest[name][measured]:
                        fastest[name] = run
            same = filecmp.cmp(work / f"base-{jobs}.csv", work / f"this-{jobs}.csv", shallow=False)
            if args.chart:  # (the charts too)
                same = same and filecmp.cmp(work / f"base-{jobs}.summary.png", work / f"this-{jobs}.summary.png",
                                            shallow=False)
            report.setdefault("identical_outputs", {})[str(jobs)] = same
            alike = None
            if args.workspace != "none":
                alike = workspace_rows(work / "base.sqlite") == workspace_rows(work / "this.sqlite")
                report.setdefault("identical_workspaces", {})[str(jobs)] = alike
            for name in installations:
                run = fastest[name]
                if args.instructions:
                    ratio = run["instructions"] / fastest["base"]["instructions"]
                    print(f"{name:>4} --jobs {jobs}: {run['instructions'] / 1e9:.3f} billion instructions "
                          f"({run['processes']} processes), {ratio:.4f} of base's")
                else:
                    runs = [r for r in report["runs"] if r["installation"] == name and r["jobs"] == jobs]
                    median = statistics.median(r["seconds"] for r in runs)
                    cores = statistics.median(r["cpu_seconds"] / r["seconds"] for r in runs)
                    print(f"{name:>4} --jobs {jobs}: {run['seconds']:.2f} s ({args.messages / run['seconds']:,.0f} "
                          f"messages/s), CPU {run['cpu_seconds']:.2f} s, peak {run['peak_rss_mb']:.0f} MB; "
                          f"median {median:.2f} s, CPU {statistics.median(r['cpu_seconds'] for r in runs):.2f} s, "
                          f"cores busy {cores:.2f}")
            if not args.instructions:
                turns = turn_ratios([r for r in report["runs"] if r["jobs"] == jobs])
                report.setdefault("turn_ratios", {})[str(jobs)] = turns
                print(f"     this / base, turn by turn (medians): wall {turns['wall']:.3f} (faster in "
                      f"{turns['faster']} of {turns['turns']}), CPU {turns['cpu']:.3f}, cores busy {turns['cores']:.3f}")
            print(f"     outputs {'identical' if same else 'DIFFER'}"
                  + ("" if alike is None else f", workspaces {'identical' if alike else 'DIFFER'}"))
        report["load_average"]["end"] = bench.load_average()
        if args.out:
            args.out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
            print(f"-> {args.out}")
        return 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


def turn_ratios(runs: list[dict]) -> dict:
    """This installation's run against base's of the same turn, as medians of the turns' ratios:
    the wall time, the CPU time, and the cores kept busy (CPU / wall). On a host whose speed
    varies from one second to the next, a turn's two runs meet about the same load, and the
    cores kept busy hardly move with the host's speed: a change that leaves the workers waiting
    less shows there even where the wall times are too noisy to tell."""
    by_turn: dict = {}
    for run in runs:
        by_turn.setdefault(run["turn"], {})[run["installation"]] = run
    pairs = [(turn["this"], turn["base"]) for turn in by_turn.values() if {"this", "base"} <= turn.keys()]
    wall = [this["seconds"] / base["seconds"] for this, base in pairs]
    cpu = [this["cpu_seconds"] / base["cpu_seconds"] for this, base in pairs]
    cores = [(this["cpu_seconds"] / this["seconds"]) / (base["cpu_seconds"] / base["seconds"]) for this, base in pairs]
    return {"turns": len(pairs), "faster": sum(ratio < 1 for ratio in wall), "wall": statistics.median(wall),
            "cpu": statistics.median(cpu), "cores": statistics.median(cores)}


if __name__ == "__main__":
    raise SystemExit(main())
