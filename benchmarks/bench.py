"""The speed benchmark of sms-triage: messages per second, start-up, peak memory.

    python benchmarks/bench.py [--messages 200000] [--jobs 1 2] [--repeat 3] [--scaling] [--peers]
                               [--peers-python PATH] [--no-warm] [--dask] [--out reports/bench.json]

1. Builds a corpus of N messages in a temporary folder (never in the repository) whose
   vocabulary grows like a real SMS corpus (benchmarks/corpus.py: the distinct stretches
   between spaces follow 88milSMS's curve; its growth beside the real one is reported).
   Every figure is measured on it. The old corpus, which repeats the demo and dev messages
   with light variation so that after its first rows every spelling is known, is kept only
   for one figure labelled "warm".
2. Byte-compiles the packages (as `pip install` does), then times, each in fresh processes:
   loading the lexicons (benchmarks/lexicons.py), start-up (imports, lexicons, model, the
   classifier built and a first message classified), `triage seek` and `triage classify --jobs J`
   end to end (CSV in, CSV and chart out; each run --repeat times, the fastest kept), classify
   --no-chart once, the warm figure, `triage classify` on the 2,000 dev messages once (every
   spelling new to the run) and `triage train` on 4,000 labelled dev messages.
3. --scaling: classify 10^4, 10^5 and 10^6 generated messages (one job) to show the cost grows
   linearly, and the peak RSS at 10^6, without and with the expert's queue (--queue).
4. --peers: the same messages (at most 20,000) through spaCy's fr_core_news_sm NER and
   Presidio's analyzer for French, when installed (in this interpreter or --peers-python),
   next to `triage classify` on the same file.
5. --dask: classify with `--engine dask --jobs 2` too (a local cluster; needs the dask extra).
6. Prints a table with the speed, CPU and memory targets (the CPU of --jobs 2 against one process's,
   and the Dask engine's wall time against --jobs 2's, from the medians of the runs), then the CPU
   of every --jobs N measured against one process's (`--jobs 1 2 4 8`: what each worker adds), and
   writes everything to a JSON file.

Run on demand, never as a test: the figures depend on the machine and on its load, which is
recorded at the start and end of the run, with a speed probe (the CPU time of a fixed Python
loop, alone and two at once) that shows how fast the cores ran then.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import platform
import random
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import corpus as growing  # noqa: E402  (benchmarks/corpus.py)
import lexicons as lexicon_bench  # noqa: E402  (benchmarks/lexicons.py)

REPO = Path(__file__).resolve().parent.parent
DEMO_CORPUS = REPO / "data" / "sample_sms.csv"
DEV_CORPUS = growing.DEV_CORPUS  # the development corpus, when present ($TRIAGE_DEV_CORPUS)
FIRST_NAMES = REPO / "dictionaries" / "names" / "first_names.tsv"

TARGET_JOBS1 = 25_000  # messages/s, classify with one process
TARGET_JOBS2 = 50_000  # messages/s, classify --jobs 2
TARGET_STARTUP = 0.5  # seconds
TARGET_RSS_1M = 500.0  # MB at 10^6 messages
TARGET_CPU_RATIO = 1.15  # CPU of classify --jobs 2 against one process (medians)
TARGET_DASK_RATIO = 1.3  # wall of classify --engine dask --jobs 2 against --jobs 2 (medians)
PEER_CAP = 20_000  # peers are slow: at most this many messages for them
TRAIN_MESSAGES = 4_000

# ---------------------------------------------------------------- the machine


def load_average() -> list[float] | None:
    return list(os.getloadavg()) if hasattr(os, "getloadavg") else None


# A fixed pure-Python loop: its CPU time says how fast this host's cores run right now
# (on a shared host the same command varies by tens of per cent from hour to hour).
_PROBE = "import time\nt = time.process_time()\nx = 0\nfor i in range(10_000_000):\n    x += i\nprint(time.process_time() - t)"


def speed_probe() -> dict:
    """CPU seconds of the probe loop in one fresh process, then in each of two run at once
    (what two processes, such as classify --jobs 2, can get from the cores)."""
    def start():
        return subprocess.Popen([sys.executable, "-c", _PROBE], stdout=subprocess.PIPE, text=True)

    def seconds(process) -> float:
        return round(float(process.communicate()[0]), 2)

    one = seconds(start())
    pair = [start(), start()]
    return {"one_process": one, "two_at_once": [seconds(p) for p in pair]}


def show_probe(when: str, probe: dict) -> str:
    two = " and ".join(f"{s:.2f}" for s in probe["two_at_once"])
    return f"speed probe at {when} (CPU s of a fixed Python loop): {probe['one_process']:.2f} alone, {two} two at once"


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.lower().startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def memory_total_mb() -> float | None:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return None


def checkout() -> dict:
    """Which code was measured: the lead's tree changes under the benchmark (read-only git)."""
    def git(*args):
        done = subprocess.run(["git", "-C", str(REPO), *args], capture_output=True, text=True)
        return done.stdout.strip() if done.returncode == 0 else None

    status = git("status", "--porcelain", "--untracked-files=no")
    return {"commit": git("rev-parse", "--short", "HEAD"), "modified_files": None if status is None else len(status.splitlines())}


def machine() -> dict:
    return {
        "platform": platform.platform(),
        "cpu_count": os.cpu_count(),
        "cpu_model": cpu_model(),
        "memory_mb": memory_total_mb(),
        "python": sys.version.split()[0],
        "python_executable": sys.executable,
    }


# ---------------------------------------------------------------- the warm corpus
# Repeats the demo and dev messages: after its first rows every spelling is known to the run,
# so it gives a "warm" figure only (what a message of known words costs), never the headline.

FIXED_SUFFIXES = ["!", " mdr", " :)", " stp", " ok", " ?", " lol", " bisous"]
# Real SMS corpora repeat short messages ("ok", "oui") verbatim. With the sign-offs below this
# gives about 32% exact duplicates at 200,000 messages and 45% at 10^6 (more repeats of the
# same 2,260 base messages): the share is reported for every corpus generated.
EXACT_COPY_SHARE = 0.15


def read_rows(path: Path) -> list[dict]:
    with path.open(encoding="utf-8", newline="") as handle:
        return [row for row in csv.DictReader(handle) if row.get("text")]


def common_first_names(limit: int = 3_000) -> list[str]:
    """The most frequent first names, in lower case as SMS writers type them."""
    names = []
    with FIRST_NAMES.open(encoding="utf-8") as handle:
        header = handle.readline().rstrip("\n").split("\t")
        name_at, rank_at = header.index("name"), header.index("rank")
        for line in handle:
            cells = line.rstrip("\n").split("\t")
            names.append((int(cells[rank_at]), cells[name_at].lower()))
    return [name for _, name in sorted(names)[:limit]]


def random_suffix(rng: random.Random, names: list[str]) -> str:
    kind = rng.random()
    if kind < 0.34:
        return rng.choice(FIXED_SUFFIXES)
    if kind < 0.67:
        return f" {rng.randrange(24)}h{rng.randrange(60):02d}"
    return " " + rng.choice(names)


def recase(word: str, rng: random.Random) -> str:
    changed = rng.choice((word.upper(), word.capitalize(), word.lower()))
    return changed if len(changed) == len(word) else word  # 'ß'.upper() is 'SS': keep offsets


def vary(text: str, rng: random.Random, names: list[str]) -> str:
    """A light variant of a message: as real re-sent SMS differ (case, a word, a sign-off)."""
    if rng.random() < EXACT_COPY_SHARE:
        return text
    words = text.split(" ")  # split on spaces only: newlines and tabs inside stay as they are
    changed = False
    if len(words) >= 3 and rng.random() < 0.2:
        del words[rng.randrange(len(words))]
        changed = True
    if rng.random() < 0.35:
        i = rng.randrange(len(words))
        words[i] = recase(words[i], rng)
        changed = True
    text = " ".join(words)
    if not changed or rng.random() < 0.5:
        text += random_suffix(rng, names)
    return text


def generate_warm(base: list[str], count: int, seed: int, names: list[str]):
    """`count` messages: the base messages over and over, each pass in a new seeded order,
    each message lightly varied. Same seed, same sequence, so a smaller corpus is a prefix."""
    rng = random.Random(seed)
    produced = 0
    while produced < count:
        order = list(range(len(base)))
        rng.shuffle(order)
        for i in order[: count - produced]:
            yield vary(base[i], rng, names)
        produced += min(len(order), count - produced)


def write_training(path: Path, dev_rows: list[dict], count: int, seed: int) -> dict:
    """The first `count` labelled dev messages; when the dev corpus holds fewer, it is topped
    up with variants that keep the label and the gold spans valid (case changed in place, a
    sign-off without any name appended)."""
    rng = random.Random(seed)
    columns = ["id", "donor", "text", "label", "spans"]
    rows = [{c: row.get(c, "") for c in columns} for row in dev_rows[:count]]
    originals = len(rows)
    while len(rows) < count:
        row = dict(rng.choice(dev_rows[:originals]))
        words = row["text"].split(" ")
        i = rng.randrange(len(words))
        words[i] = recase(words[i], rng)
        row = {c: row.get(c, "") for c in columns}
        row["text"] = " ".join(words) + rng.choice(FIXED_SUFFIXES)
        rows.append(row)
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, columns)
        writer.writeheader()
        for number, row in enumerate(rows, 1):
            writer.writerow({**row, "id": number})
    return {"path": str(path), "messages": len(rows), "from_dev": originals, "label_preserving_variants": len(rows) - originals}


# ---------------------------------------------------------------- measuring one process


class TreeMemory(threading.Thread):
    """Samples the summed PSS of a process and all its descendants (Linux /proc): with
    --jobs 2 the workers are separate processes, and the largest single RSS under-counts
    them. PSS shares the pages the forked workers have in common fairly between them."""

    def __init__(self, pid: int, interval: float = 0.2):
        super().__init__(daemon=True)
        self.pid, self.interval = pid, interval
        self.peak_mb: float | None = None
        self.stopped = threading.Event()

    @staticmethod
    def _tree(root: int) -> list[int]:
        children: dict[int, list[int]] = {}
        for entry in os.listdir("/proc"):
            if entry.isdigit():
                try:
                    stat = Path(f"/proc/{entry}/stat").read_text()
                except OSError:
                    continue
                ppid = int(stat.rsplit(")", 1)[1].split()[1])
                children.setdefault(ppid, []).append(int(entry))
        tree, todo = [], [root]
        while todo:
            pid = todo.pop()
            tree.append(pid)
            todo.extend(children.get(pid, []))
        return tree

    @staticmethod
    def _pss_kb(pid: int) -> int:
        try:
            for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
                if line.startswith("Pss:"):
                    return int(line.split()[1])
        except (OSError, ValueError):
            pass
        return 0

    def run(self) -> None:
        if not Path("/proc/self/smaps_rollup").exists():
            return
        while not self.stopped.wait(self.interval):
            total = sum(self._pss_kb(pid) for pid in self._tree(self.pid)) / 1024
            self.peak_mb = max(self.peak_mb or 0.0, total)

    def stop(self) -> float | None:
        self.stopped.set()
        self.join()
        return self.peak_mb


# Fallback when /usr/bin/time is missing: a wrapper process whose only child is the command,
# so RUSAGE_CHILDREN's maxrss is the command's peak (largest single process of its tree).
RUSAGE_WRAPPER = r"""
import resource, subprocess, sys
code = subprocess.call(sys.argv[2:])
usage = resource.getrusage(resource.RUSAGE_CHILDREN)
peak = usage.ru_maxrss
with open(sys.argv[1], "w") as handle:
    handle.write(f"{peak // 1024 if sys.platform == 'darwin' else peak} {usage.ru_utime:.2f} {usage.ru_stime:.2f}")
sys.exit(code)
"""


def measure(command: list[str], *, timeout: float, env: dict | None = None) -> dict:
    """Runs `command` in a fresh process: wall seconds, peak RSS (largest process of the tree,
    from /usr/bin/time or getrusage), sampled peak PSS of the whole tree, exit code, output."""
    with tempfile.NamedTemporaryFile("r", suffix=".rss", delete=False) as handle:
        rss_file = handle.name
    gnu_time = shutil.which("time", path="/usr/bin")
    if gnu_time:
        wrapped = [gnu_time, "-f", "%M %U %S", "-o", rss_file, *command]
    else:
        wrapped = [sys.executable, "-c", RUSAGE_WRAPPER, rss_file, *command]
    started = time.perf_counter()
    process = subprocess.Popen(wrapped, cwd=tempfile.gettempdir(), env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    sampler = TreeMemory(process.pid)
    sampler.start()
    try:
        stdout, stderr = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        stdout, stderr = process.communicate()
        stderr += f"\n(killed after {timeout:.0f} s)"
    except BaseException:  # interrupted: leave no benchmark process behind
        process.kill()
        sampler.stop()
        raise
    seconds = time.perf_counter() - started
    tree_pss = sampler.stop()
    # Peak RSS, and the CPU seconds of the whole tree (user + system): on a shared host wall
    # time also counts the time spent waiting for a core, CPU time far less.
    peak_rss = cpu = None
    try:
        lines = Path(rss_file).read_text().splitlines()
        fields = lines[-1].split() if lines else []
        if fields:
            peak_rss = int(fields[0]) / 1024
            cpu = float(fields[1]) + float(fields[2]) if len(fields) >= 3 else None
    except (OSError, ValueError):
        pass
    finally:
        Path(rss_file).unlink(missing_ok=True)
    return {
        "seconds": seconds,
        "peak_rss_mb": peak_rss,
        "cpu_seconds": cpu,
        "tree_peak_pss_mb": tree_pss,
        "memory_tool": "GNU time %M" if gnu_time else "getrusage(RUSAGE_CHILDREN)",
        "returncode": process.returncode,
        "stdout": stdout,
        "stderr_tail": stderr.strip()[-600:],
    }


# Process ids on Linux are below 2**22 (the kernel's largest pid_max).
PID_SPACE = 2**22


def instructions(command: list[str], *, timeout: float, env: dict | None = None) -> dict:
    """Runs `command` under valgrind's callgrind: the machine instructions executed by its
    process and by every process it starts or forks, each counted from its own start (summed,
    and per process), exit code, output. A count, not a time: the same for the same code and
    input whatever else the machine is doing (to a few ten-thousandths, with the hash seed
    fixed), so that a change of a percent shows where the wall time of a shared host moves by a
    tenth. About 60 times slower than the command alone."""
    valgrind = shutil.which("valgrind")
    if valgrind is None:
        raise SystemExit("valgrind is not installed: instruction counts need its callgrind tool")
    with tempfile.TemporaryDirectory(prefix="triage-callgrind-") as folder:
        # A forked process starts with its parent's counts: zeroed where Python begins the child's
        # own life after a fork, so that each process counts what it did itself.
        wrapped = [valgrind, "--tool=callgrind", "--trace-children=yes", "--zero-before=PyOS_AfterFork_Child",
                   f"--callgrind-out-file={folder}/callgrind.%p", *command]
        with subprocess.Popen(wrapped, cwd=tempfile.gettempdir(), env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) as process:
            try:
                stdout, stderr = process.communicate(timeout=timeout)
                returncode = process.returncode
            except subprocess.TimeoutExpired as stopped:  # as subprocess.run: what it wrote so far
                process.kill()
                process.wait()
                stdout, stderr = (part.decode("utf-8", "replace") if isinstance(part, bytes) else part or ""
                                  for part in (stopped.stdout, stopped.stderr))  # (bytes, text=True or not)
                returncode, stderr = -9, f"{stderr}\n(killed after {timeout:.0f} s)"
        counts = [callgrind_total(path) for path in in_start_order(Path(folder).glob("callgrind.*"), process.pid)]
    return {"instructions": sum(counts), "processes": len(counts), "per_process": counts, "returncode": returncode,
            "stdout": stdout, "stderr_tail": stderr.strip()[-600:]}


def in_start_order(files, first: int) -> list[Path]:
    """Callgrind's files (each named by its process's id: valgrind runs the command in the process it
    starts as) in the order their processes started: the command's own (id `first`) first, then the
    others by their ids counted from it, so that an id given after the ids wrapped around (past the
    system's largest) still comes after the ones given before."""
    return sorted(files, key=lambda path: (int(path.suffix[1:]) - first) % PID_SPACE)


def callgrind_total(path: Path) -> int:
    """The instructions a callgrind output file counts (its `summary:` line; 0 for a file
    with none, such as the file of a process stopped before it could write one)."""
    with open(path, encoding="utf-8", errors="replace") as handle:
        for line in handle:
            if line.startswith("summary:"):
                return int(line.split()[1])
    return 0


def child_env() -> dict:
    """No network for peers. The commands run from a neutral folder (measure): the checkout's
    top is not an importable `triage` (features/, dictionaries/ and data/ install inside it),
    so they run the copy installed from this checkout, which installed_checkout() checks."""
    return dict(os.environ, HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS="")


def installed_checkout() -> None:
    """Refuses to time another copy of sms-triage than this checkout's (pip install -e .)."""
    found = subprocess.run([sys.executable, "-c", "import triage; print(triage.__file__)"],
                           cwd=tempfile.gettempdir(), capture_output=True, text=True)
    where = Path(found.stdout.strip() or ".").resolve()
    if found.returncode != 0 or REPO.resolve() not in where.parents:
        sys.exit(f"bench.py: {sys.executable} does not import this checkout's triage "
                 f"({found.stdout.strip() or 'not installed'}); run `pip install -e .` here first")


def triage_command() -> list[str]:
    """`python -m triage` when the package has a __main__, else the CLI's entry function
    (the same code the `triage` console script runs)."""
    if (REPO / "triage" / "__main__.py").exists():
        return [sys.executable, "-m", "triage"]
    return [sys.executable, "-c", "from triage.cli import run; run()"]


# ---------------------------------------------------------------- the steps

# Start-up: until classify is ready, its first message classified (so that nothing put off
# to first use escapes the figure).
STARTUP = r"""
import json, time
t0 = time.perf_counter()
import triage.classifier, triage.lexicons, triage.model
t1 = time.perf_counter()
triage.lexicons.default()
t2 = time.perf_counter()
predictor = triage.model.load_predictor(triage.model.default_model_path())
t3 = time.perf_counter()
triage.classifier.Classifier(predictor).classify([("1", "Salut Julie, on se voit à 18h ? :)")])
t4 = time.perf_counter()
print(json.dumps({"import_seconds": t1 - t0, "lexicons_seconds": t2 - t1, "model_seconds": t3 - t2,
                  "first_message_seconds": t4 - t3}))
"""


def compile_bytecode() -> None:
    """Byte-compile the packages, as `pip install` does: otherwise, where
    PYTHONDONTWRITEBYTECODE is set, every fresh process compiles every module from source."""
    packages = [str(REPO / name) for name in ("triage", "features", "dictionaries")]
    subprocess.run([sys.executable, "-m", "compileall", "-q", *packages], check=True, stdout=subprocess.DEVNULL)


def step_row(step: str, messages: int | None, result: dict, **extra) -> dict:
    ok = result["returncode"] == 0
    row = {
        "step": step,
        "messages": messages,
        "seconds": result["seconds"],
        "messages_per_second": messages / result["seconds"] if ok and messages else None,
        "peak_rss_mb": result["peak_rss_mb"],
        "cpu_seconds": result["cpu_seconds"],
        "tree_peak_pss_mb": result["tree_peak_pss_mb"],
        "ok": ok,
        "load_average_after": load_average(),
        **extra,
    }
    if not ok:
        row["error"] = result["stderr_tail"]
    return row


def processed_count(stdout: str) -> int | None:
    """The message count the command printed ('200,000 messages -> ...')."""
    found = re.search(r"([\d,]+) messages ->", stdout)
    return int(found.group(1).replace(",", "")) if found else None


def run_startup(runs: int, timeout: float) -> dict:
    results = []
    for _ in range(runs):
        result = measure([sys.executable, "-c", STARTUP], timeout=timeout, env=child_env())
        if result["returncode"] != 0:
            return step_row("start-up", None, result)
        result["parts"] = json.loads(result["stdout"].strip().splitlines()[-1])
        results.append(result)
    middle = sorted(results, key=lambda r: r["seconds"])[len(results) // 2]
    return step_row(
        "start-up", None, middle, runs=runs, kept="median",
        seconds_each=[r["seconds"] for r in results],
        parts=middle["parts"],
    )


def run_triage(step: str, arguments: list[str], messages: int, timeout: float) -> dict:
    result = measure(triage_command() + arguments, timeout=timeout, env=child_env())
    row = step_row(step, messages, result, command=["triage", *arguments])
    count = processed_count(result["stdout"])
    if row["ok"] and count is not None and count != messages:
        row["ok"] = False
        row["error"] = f"processed {count} messages, expected {messages}"
    return row


def run_triage_repeated(step: str, arguments: list[str], messages: int, timeout: float, repeat: int) -> dict:
    """The fastest of `repeat` runs (timeit's rule: on a shared machine other processes can
    only slow a run down), with every run's seconds and the median kept beside it."""
    return run_turn_about([(step, arguments)], messages, timeout, repeat)[0]


def run_turn_about(steps: list[tuple[str, list[str]]], messages: int, timeout: float, repeat: int) -> list[dict]:
    """run_triage_repeated of each (step, arguments), the steps run turn about (`repeat` turns of
    one run each), so that the host's slower and quicker moments fall on all of them alike: the
    ratios of their medians (the targets') are then measured on the same moments. A step that
    fails is given back as its failed run, and no longer run."""
    runs: list[list[dict]] = [[] for _ in steps]
    failed: dict[int, dict] = {}
    for _ in range(repeat):
        for at, (step, arguments) in enumerate(steps):
            if at not in failed:
                row = run_triage(step, arguments, messages, timeout)
                if row["ok"]:
                    runs[at].append(row)
                else:
                    failed[at] = row
    return [failed.get(at) or _repeated(step_runs, messages, repeat) for at, step_runs in enumerate(runs)]


def _repeated(runs: list[dict], messages: int, repeat: int) -> dict:
    """The row of a step's runs: the fastest, with every run's seconds, CPU seconds and the median."""
    fastest = min(runs, key=lambda r: r["seconds"])
    median = sorted(r["seconds"] for r in runs)[len(runs) // 2]
    peaks = [r["peak_rss_mb"] for r in runs if r["peak_rss_mb"] is not None]
    return {**fastest, "runs": repeat, "kept": "fastest", "seconds_each": [r["seconds"] for r in runs],
            "cpu_seconds_each": [r["cpu_seconds"] for r in runs],
            "median_seconds": median, "median_messages_per_second": messages / median,
            "peak_rss_mb": max(peaks) if peaks else None}  # memory: the largest of the runs


PEER = r"""
import csv, json, os, sys, time
os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS"] = ""  # Presidio's e-mail check: the bundled list, no fetch
kind, corpus, output = sys.argv[1:4]
MODEL = "fr_core_news_sm"
t0 = time.perf_counter()
try:
    import spacy
    if not spacy.util.is_package(MODEL):  # never let spaCy or Presidio download it
        raise ImportError(f"{MODEL} is not installed")
    if kind == "spacy":
        # Only what the NER needs: in fr_core_news_sm the ner has its own embedding layer.
        nlp = spacy.load(MODEL, exclude=["morphologizer", "parser", "senter", "attribute_ruler", "lemmatizer"])
        if "tok2vec" in nlp.pipe_names and "ner" not in nlp.get_pipe("tok2vec").listening_components:
            nlp.remove_pipe("tok2vec")
        version = f"spaCy {spacy.__version__}, {MODEL} {nlp.meta.get('version')}, pipes {nlp.pipe_names}"
    else:
        from importlib.metadata import version as package_version
        from presidio_analyzer import AnalyzerEngine, BatchAnalyzerEngine
        from presidio_analyzer.nlp_engine import NlpEngineProvider
        config = {"nlp_engine_name": "spacy", "models": [{"lang_code": "fr", "model_name": MODEL}]}
        engine = AnalyzerEngine(nlp_engine=NlpEngineProvider(nlp_configuration=config).create_engine(),
                                supported_languages=["fr"])
        batch = BatchAnalyzerEngine(analyzer_engine=engine)
        version = f"presidio-analyzer {package_version('presidio-analyzer')}, spaCy {spacy.__version__}, {MODEL}"
except Exception as error:  # not installed, model missing, or it wanted the network
    print(json.dumps({"unavailable": f"{type(error).__name__}: {error}"}))
    sys.exit(0)
t1 = time.perf_counter()
with open(corpus, encoding="utf-8", newline="") as handle:
    rows = list(csv.DictReader(handle))
texts = [row["text"] for row in rows]
t2 = time.perf_counter()
found = {}
labels = []
if kind == "spacy":
    for doc in nlp.pipe(texts, batch_size=256):
        kinds = {ent.label_ for ent in doc.ents}
        for k in kinds:
            found[k] = found.get(k, 0) + 1
        labels.append("TA" if kinds & {"PER", "LOC"} else "NTA")
else:
    for results in batch.analyze_iterator(texts, language="fr", batch_size=256):
        kinds = {r.entity_type for r in results}
        for k in kinds:
            found[k] = found.get(k, 0) + 1
        labels.append("TA" if kinds else "NTA")
t3 = time.perf_counter()
with open(output, "w", encoding="utf-8", newline="") as handle:
    writer = csv.writer(handle)
    writer.writerow(["id", "label"])
    writer.writerows(zip((row["id"] for row in rows), labels))
print(json.dumps({"version": version, "load_seconds": t1 - t0, "process_seconds": t3 - t2,
                  "messages": len(texts), "ta": labels.count("TA"), "messages_with_entity_type": found}))
"""

PEER_RULES = {
    "spacy": "TA when the NER finds a PER or LOC entity (nlp.pipe, batch_size 256, ner only)",
    "presidio": "TA when the analyzer finds any entity (AnalyzerEngine, French, spaCy fr_core_news_sm; batches of 256)",
}


def run_peer(kind: str, python: str, corpus: Path, output: Path, messages: int, timeout: float) -> dict:
    result = measure([python, "-c", PEER, kind, str(corpus), str(output)], timeout=timeout, env=child_env())
    name = f"peer: {kind}"
    if result["returncode"] != 0:
        return {**step_row(name, messages, result), "available": False, "reason": result["stderr_tail"]}
    report = json.loads(result["stdout"].strip().splitlines()[-1])
    if "unavailable" in report:
        return {"step": name, "available": False, "reason": report["unavailable"], "python": python}
    processed = report.pop("messages")
    row = step_row(
        name, processed, result, available=True, python=python, rule=PEER_RULES[kind], **report,
        processing_messages_per_second=processed / report["process_seconds"] if report["process_seconds"] else None,
    )
    if processed != messages:
        row["ok"], row["error"] = False, f"processed {processed} messages, expected {messages}"
    return row


# ---------------------------------------------------------------- the report


def verdict(passed: bool | None) -> str:
    return "-" if passed is None else ("PASS" if passed else "FAIL")


def targets(rows: dict[str, dict], lexicon_summary: dict | None) -> list[dict]:
    """The speed, CPU, memory and start-up targets (the lexicons' share of the start-up too) against what was
    measured."""
    def rate(key):
        row = rows.get(key)
        return row.get("messages_per_second") if row else None

    out = []
    for jobs, goal in ((2, TARGET_JOBS2), (1, TARGET_JOBS1)):
        value = rate(f"classify --jobs {jobs}")
        median = (rows.get(f"classify --jobs {jobs}") or {}).get("median_messages_per_second")
        out.append({"target": f"classify --jobs {jobs} >= {goal:,} msg/s", "value": value,
                    "shown": (f"{value:,.0f} msg/s" + (f" (median {median:,.0f})" if median else "")) if value
                    else "not measured",
                    "pass": None if value is None else value >= goal})
    out += _ratio_targets(rows)
    startup = rows.get("start-up")
    value = startup["seconds"] if startup and startup["ok"] else None
    out.append({"target": f"start-up <= {TARGET_STARTUP} s (fresh process until a first message is classified)",
                "value": value,
                "shown": f"{value:.2f} s" if value is not None else "not measured",
                "pass": None if value is None else value <= TARGET_STARTUP})
    for queued, label in ((False, ""), (True, " with --queue")):
        million = next((r for k, r in rows.items() if k.startswith("scaling") and ("--queue" in k) == queued
                        and r.get("messages") == 10**6), None)
        value = million["peak_rss_mb"] if million and million["ok"] else None
        out.append({"target": f"peak RSS <= {TARGET_RSS_1M:.0f} MB at 10^6 messages{label}", "value": value,
                    "shown": f"{value:.0f} MB" if value is not None else "not measured (use --scaling)",
                    "pass": None if value is None else value <= TARGET_RSS_1M})
    if lexicon_summary:
        for key, label, shown in (("load_seconds", "lexicon load <= {:g} s (median, fresh process)", "{:.2f} s"),
                                  ("peak_rss_mb", "lexicon load peak RSS <= {:g} MB", "{:.0f} MB")):
            t = lexicon_summary["targets"][key]
            out.append({"target": label.format(t["target"]), "value": t["value"],
                        "shown": shown.format(t["value"]), "pass": t["pass"]})
    return out


def _median(values: list[float] | None) -> float | None:
    return statistics.median(values) if values else None


def _ratio_targets(rows: dict[str, dict]) -> list[dict]:
    """The CPU of classify --jobs 2 against one process's, and the wall time of --engine dask
    --jobs 2 (`--dask`) against --jobs 2's, each from the medians of the runs."""
    one, two, dask = (rows.get(step) or {} for step in (
        "classify --jobs 1", "classify --jobs 2", "classify --engine dask --jobs 2"))
    out = []
    for label, numerator, denominator, goal, hint in (
            ("CPU of --jobs 2 <= {:g}x one process's (medians)", _median(two.get("cpu_seconds_each")),
             _median(one.get("cpu_seconds_each")), TARGET_CPU_RATIO, "not measured (use --jobs 1 2)"),
            ("--engine dask <= {:g}x --jobs 2's wall (medians)", dask.get("median_seconds"),
             two.get("median_seconds"), TARGET_DASK_RATIO, "not measured (use --dask)")):
        value = numerator / denominator if numerator and denominator else None
        out.append({"target": label.format(goal), "value": value,
                    "shown": f"{value:.2f}x" if value is not None else hint,
                    "pass": None if value is None else value <= goal})
    return out


def cpu_growth(rows: dict[str, dict]) -> list[dict]:
    """The CPU of classify --jobs N against one process's (medians), for every N > 1 measured with
    --jobs 1: what each worker adds (each learns the spellings of its own chunks and touches its own
    memory), the figure a vocabulary shared between the workers would bring down."""
    one = _median((rows.get("classify --jobs 1") or {}).get("cpu_seconds_each"))
    found = []
    for step, row in rows.items():
        jobs = re.fullmatch(r"classify --jobs (\d+)", step)
        cpu = _median(row.get("cpu_seconds_each"))
        if jobs and int(jobs[1]) > 1 and one and cpu:
            ratio = cpu / one
            found.append({"jobs": int(jobs[1]), "cpu_seconds": cpu, "ratio": ratio,
                          "per_extra_worker": (ratio - 1) / (int(jobs[1]) - 1)})
    return sorted(found, key=lambda item: item["jobs"])


def show_cpu_growth(growth: list[dict]) -> str:
    """One line: the CPU of each --jobs N against one process's."""
    return ("CPU against one process (medians): " + ", ".join(
        f"--jobs {g['jobs']} {g['ratio']:.2f}x ({100 * g['per_extra_worker']:+.0f}% a worker more)" for g in growth))


def format_table(rows: list[dict]) -> str:
    def number(value, fmt):
        return "-" if value is None else format(value, fmt)

    header = f"{'step':<30}{'messages':>11}{'seconds':>10}{'CPU s':>8}{'msg/s':>11}{'peak RSS MB':>13}{'tree PSS MB':>13}"
    lines = [header, "-" * len(header)]
    for row in rows:
        if row.get("available") is False:
            lines.append(f"{row['step']:<30}  unavailable: {row['reason'][:90]}")
            continue
        lines.append(
            f"{row['step'][:29]:<30}{number(row.get('messages'), ',d'):>11}{number(row.get('seconds'), '.2f'):>10}"
            f"{number(row.get('cpu_seconds'), '.1f'):>8}"
            f"{number(row.get('messages_per_second'), ',.0f'):>11}{number(row.get('peak_rss_mb'), '.0f'):>13}"
            f"{number(row.get('tree_peak_pss_mb'), '.0f'):>13}" + ("" if row.get("ok", True) else "  FAILED")
        )
    return "\n".join(lines)


def linearity(rows: list[dict]) -> dict | None:
    """Marginal cost per message between consecutive sizes: equal when cost grows linearly
    (the fixed start-up cost cancels out of the differences)."""
    done = sorted((r for r in rows if r["ok"]), key=lambda r: r["messages"])
    if len(done) < 2:
        return None
    marginal = [
        {"from": a["messages"], "to": b["messages"],
         "microseconds_per_message": 1e6 * (b["seconds"] - a["seconds"]) / (b["messages"] - a["messages"])}
        for a, b in zip(done, done[1:])
    ]
    costs = [m["microseconds_per_message"] for m in marginal]
    return {"marginal": marginal, "max_over_min": max(costs) / min(costs) if min(costs) > 0 else None}


# ---------------------------------------------------------------- main


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--messages", type=int, default=200_000, help="corpus size (default 200,000)")
    parser.add_argument("--jobs", type=int, nargs="+", default=[1, 2], help="classify --jobs values (default: 1 2)")
    parser.add_argument("--scaling", action="store_true", help="also classify 10^4, 10^5, 10^6 messages (one job)")
    parser.add_argument("--scaling-sizes", type=int, nargs="+", default=[10**4, 10**5, 10**6], help=argparse.SUPPRESS)
    parser.add_argument("--peers", action="store_true", help="also run spaCy NER and Presidio on the same messages")
    parser.add_argument("--peers-python", default=sys.executable,
                        help="interpreter that has spaCy/Presidio installed (default: this one)")
    parser.add_argument("--startup-runs", type=int, default=5, help="fresh processes for start-up and lexicon load")
    parser.add_argument("--repeat", type=int, default=3,
                        help="runs of seek and of each classify --jobs, the fastest kept (default 3)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the generated corpus")
    parser.add_argument("--timeout", type=float, default=1800, help="seconds allowed per step")
    parser.add_argument("--skip-train", action="store_true", help="do not time `triage train`")
    parser.add_argument("--no-warm", action="store_true", help="skip the warm figure (the old repeating corpus)")
    parser.add_argument("--dask", action="store_true",
                        help="also classify with --engine dask --jobs 2 (needs the dask extra), for its target")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder (corpora, outputs)")
    parser.add_argument("--out", type=Path, default=REPO / "reports" / "bench.json", help="JSON file to write")
    args = parser.parse_args(argv)
    if args.messages < 1 or min(args.jobs) < 1 or args.startup_runs < 1 or args.repeat < 1:
        parser.error("--messages, --jobs, --startup-runs and --repeat must be positive")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    installed_checkout()
    # A plain `kill` ends the run through the `finally` below, which removes the temporary folder.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    report: dict = {
        "started": time.strftime("%Y-%m-%d %H:%M:%S %z"),
        "machine": machine(),
        "checkout": checkout(),
        "load_average": {"start": load_average()},
        "triage_command": triage_command(),
        "corpus_generator": "benchmarks/corpus.py (vocabulary growing like 88milSMS)",
        "notes": [],
    }
    note = lambda text: (report["notes"].append(text), print(f"note: {text}"))  # noqa: E731
    m = report["machine"]
    print(f"machine: {m['platform']}, {m['cpu_count']} CPUs ({m['cpu_model']}), Python {m['python']}")
    print(f"load average at start: {report['load_average']['start']}")
    report["speed_probe"] = {"start": speed_probe()}
    print(show_probe("start", report["speed_probe"]["start"]))

    compile_bytecode()
    work = Path(tempfile.mkdtemp(prefix="triage-bench-"))
    try:
        # ---- corpora
        sources = growing.Sources()
        demo, dev_rows = sources.demo, read_rows(DEV_CORPUS) if DEV_CORPUS.exists() else []
        if not dev_rows:
            note(f"dev corpus {DEV_CORPUS} absent: corpus built from the demo corpus only; training skipped")
        names = common_first_names()
        base = sources.base
        report["corpus_sources"] = {
            "demo_messages": len(demo), "dev_messages": len(dev_rows), "seed": args.seed,
            "base_duplicate_share": 1 - len(set(base)) / len(base),
        }

        def corpus(size: int) -> tuple[Path, dict]:
            """`size` messages growing their vocabulary like a real corpus (benchmarks/corpus.py)."""
            path, growth = work / f"corpus_{size}.csv", []
            stats = growing.write_corpus(path, growing.generate(size, args.seed, sources, growth=growth))
            return path, {**stats, "growth": growing.growth_report(growth)}

        main_corpus, stats = corpus(args.messages)
        report["corpus"] = stats
        print(f"corpus: {stats['messages']:,} messages grown from {len(demo)} demo + {len(dev_rows):,} dev messages, "
              f"{stats['distinct_texts']:,} distinct texts ({100 * stats['duplicate_share']:.1f}% exact duplicates), "
              f"{stats['bytes'] / 1e6:.1f} MB, in {work}")
        print("vocabulary growth (distinct stretches between spaces, case kept):")
        print(growing.format_growth(stats["growth"]))

        rows: list[dict] = []

        def record(row: dict) -> None:
            rows.append(row)
            shown = f"{row['seconds']:.2f} s" if row.get("seconds") is not None else row.get("reason", "")
            rate = row.get("messages_per_second")
            print(f"  {row['step']:<30}{shown}" + (f", {rate:,.0f} msg/s" if rate else "")
                  + (f", peak RSS {row['peak_rss_mb']:.0f} MB" if row.get("peak_rss_mb") else "")
                  + (f" ({row['kept']} of {row['runs']}: " + ", ".join(f"{s:.2f}" for s in row["seconds_each"]) + " s)"
                     if row.get("runs", 1) > 1 else "")
                  + ("" if row.get("ok", True) else f"  FAILED: {row.get('error', '')[-300:]}"), flush=True)

        # ---- lexicon load and start-up
        print("timing (fresh processes):")
        try:
            lexicon_summary = lexicon_bench.measure(args.startup_runs)
            record({"step": "lexicon load (median)", "messages": None, "seconds": lexicon_summary["load_seconds"]["median"],
                    "messages_per_second": None, "peak_rss_mb": lexicon_summary["peak_rss_mb"]["max"],
                    "tree_peak_pss_mb": None, "ok": True})
            report["lexicons"] = {k: v for k, v in lexicon_summary.items() if k != "each_run"}
        except RuntimeError as error:
            lexicon_summary = None
            record({"step": "lexicon load", "seconds": None, "ok": False, "error": str(error)})
        record(run_startup(args.startup_runs, args.timeout))

        # ---- seek, classify, train
        n = stats["messages"]
        record(run_triage_repeated("seek", ["seek", str(main_corpus), "-o", str(work / "seek.csv"), "--force"], n,
                                   args.timeout, args.repeat))
        # Turn about: the CPU of --jobs 2 and the Dask engine are targets as ratios to other runs.
        classifying = [(f"classify --jobs {jobs}", ["classify", str(main_corpus), "-o",
                                                    str(work / f"classified_j{jobs}.csv"), "--jobs", str(jobs), "--force"])
                       for jobs in args.jobs]
        if args.dask:  # on a local cluster of two workers, against --jobs 2
            classifying.append(("classify --engine dask --jobs 2",
                                ["classify", str(main_corpus), "-o", str(work / "classified_dask.csv"), "--engine",
                                 "dask", "--jobs", "2", "--force"]))
        for row in run_turn_about(classifying, n, args.timeout, args.repeat):
            record(row)
        record(run_triage("classify --jobs 1 --no-chart",
                          ["classify", str(main_corpus), "-o", str(work / "classified_nochart.csv"), "--no-chart",
                           "--force"], n, args.timeout))
        if not args.no_warm:
            # What a message of known words costs: the old corpus repeats 2,260 messages, so after
            # its first rows every spelling is one the run has labelled. Never the headline figure.
            warm_corpus = work / "warm.csv"
            report["warm_corpus"] = {k: v for k, v in growing.write_corpus(
                warm_corpus, generate_warm(base, n, args.seed, names)).items() if k != "path"}
            record(run_triage_repeated("warm: classify --jobs 1 (repeated corpus)",
                                       ["classify", str(warm_corpus), "-o", str(work / "warm_out.csv"), "--jobs", "1",
                                        "--force"], n, args.timeout, args.repeat))
            warm_corpus.unlink()
        if dev_rows:
            # Real messages, classified once with nothing learnt yet: every spelling is new to the run.
            row = run_triage("classify dev once (new words)",
                             ["classify", str(DEV_CORPUS), "-o", str(work / "dev.csv"), "--force"],
                             len(dev_rows), args.timeout)
            startup = next((r["seconds"] for r in rows if r["step"] == "start-up" and r.get("ok")), None)
            if row["ok"] and startup is not None:
                row["microseconds_per_message_after_startup"] = 1e6 * (row["seconds"] - startup) / len(dev_rows)
            record(row)
            if "microseconds_per_message_after_startup" in row:
                print(f"  {'':<30}{row['microseconds_per_message_after_startup']:,.0f} us per message after start-up")
        if dev_rows and not args.skip_train:
            training = write_training(work / "train.csv", dev_rows, TRAIN_MESSAGES, args.seed)
            report["training_corpus"] = {k: v for k, v in training.items() if k != "path"}
            if training["label_preserving_variants"]:
                note(f"the dev corpus holds {training['from_dev']:,} messages: training on them plus "
                     f"{training['label_preserving_variants']:,} label-preserving variants to reach {TRAIN_MESSAGES:,}")
            record(run_triage("train", ["train", training["path"], "-o", str(work / "model.triage"), "--force"],
                              training["messages"], args.timeout))

        # ---- scaling
        if args.scaling:
            scaling_rows = []
            for size in sorted(args.scaling_sizes):
                path, size_stats = (main_corpus, stats) if size == n else corpus(size)
                row = run_triage(f"scaling: classify {size:,}", ["classify", str(path), "-o", str(work / f"scaling_{size}.csv"),
                                                                  "--jobs", "1", "--force"], size, args.timeout)
                row["duplicate_share"] = size_stats["duplicate_share"]
                row["vocabulary_ratio_to_real"] = size_stats["growth"]["points"][-1]["ratio"]
                record(row)
                scaling_rows.append(row)
                if size == max(args.scaling_sizes):  # the memory target holds with the expert's queue too
                    record(run_triage(f"scaling: classify --queue {size:,}",
                                      ["classify", str(path), "-o", str(work / f"scaling_{size}.csv"), "--queue",
                                       str(work / f"scaling_{size}.queue.csv"), "--jobs", "1", "--force"],
                                      size, args.timeout))
                if path != main_corpus:
                    path.unlink()
            report["scaling"] = linearity(scaling_rows)
            if report["scaling"]:
                marginal = ", ".join(f"{m['from']:,}->{m['to']:,}: {m['microseconds_per_message']:.1f} us/msg"
                                     for m in report["scaling"]["marginal"])
                print(f"  marginal cost per message ({marginal})")
                print("  exact duplicate texts: " + ", ".join(f"{r['messages']:,}: {100 * r['duplicate_share']:.1f}%"
                                                         for r in scaling_rows))

        # ---- peers
        if args.peers:
            peer_size = min(n, PEER_CAP)
            peer_corpus, peer_stats = (main_corpus, stats) if peer_size == n else corpus(peer_size)
            report["peers_corpus"] = {k: v for k, v in peer_stats.items() if k != "path"}
            reference = next((r for r in rows if r["step"] == "classify --jobs 1" and r["messages"] == peer_size), None)
            if reference is None:  # the main corpus is larger: time sms-triage on the peers' file
                reference = run_triage(f"classify {peer_size:,} (vs peers)",
                                       ["classify", str(peer_corpus), "-o", str(work / "peer_triage.csv"), "--jobs", "1",
                                        "--force"], peer_size, args.timeout)
                record(reference)
            for kind in ("spacy", "presidio"):
                row = run_peer(kind, args.peers_python, peer_corpus, work / f"peer_{kind}.csv", peer_size, args.timeout)
                if row.get("messages_per_second") and reference.get("messages_per_second"):
                    row["sms_triage_speedup"] = reference["messages_per_second"] / row["messages_per_second"]
                record(row)
                if row.get("available"):
                    print(f"    {row['version']}; model load {row['load_seconds']:.1f} s, "
                          f"{row['processing_messages_per_second']:,.0f} msg/s once loaded; "
                          f"sms-triage is {row.get('sms_triage_speedup', float('nan')):.1f}x faster end to end")

        # ---- report
        report["load_average"]["end"] = load_average()
        report["speed_probe"]["end"] = speed_probe()
        report["steps"] = rows
        report["targets"] = targets({r["step"]: r for r in rows}, lexicon_summary)
        print()
        print(format_table(rows))
        print()
        print(f"{'target':<54}{'measured':>30}  result")
        for t in report["targets"]:
            print(f"{t['target']:<54}{t['shown']:>30}  {verdict(t['pass'])}")
        report["cpu_growth"] = cpu_growth({r["step"]: r for r in rows})
        if report["cpu_growth"]:
            print(show_cpu_growth(report["cpu_growth"]))
        print()
        print(f"machine: {m['cpu_count']} CPUs, {m['cpu_model']}; load average {report['load_average']['start'][0]:.2f} "
              f"at start, {report['load_average']['end'][0]:.2f} at end (1-minute; other processes share the machine)"
              if report["load_average"]["start"] else "")
        for when in ("start", "end"):
            print(show_probe(when, report["speed_probe"][when]))
        print("CPU s: user + system seconds of the command's processes together (on a shared host, wall seconds also count "
              "waiting for a core); peak RSS: the largest single process; tree PSS: all processes of the command "
              "together, sampled every 0.2 s")
    finally:
        if args.keep:
            print(f"kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)

    args.out.parent.mkdir(parents=True, exist_ok=True)
    for row in report.get("steps", []):
        row.pop("stdout", None)
    args.out.write_text(json.dumps(report, indent=2, default=str) + "\n", "utf-8")
    print(f"wrote {args.out}")
    return 0 if all(r.get("ok", True) for r in report.get("steps", [])) else 1


if __name__ == "__main__":
    sys.exit(main())
