"""Would polars pay for itself on one part of classify alone? Two parts that read every message, timed
as classify runs them and as polars expressions (the statistics pass also in duckdb's SQL), on a
generated corpus.

    python benchmarks/columnar_parts.py [--messages 86000] [--batch 5000] [--repeat 5] [--out FILE]

- cutting: each message cut into its stretches (a run of white space and the text up to the next
  one, triage/text/stretches.py) and each stretch given the id of a table that grows batch by batch,
  as Spellings.cut and piece_ids_of find them; with polars, `str.extract_all`, then a left join
  against the stretches already known;
- statistics: the corpus statistics pass (triage.model.names.CorpusStats.add: the messages writing
  each lower-case run of letters, and each word written with a capital in the middle of a
  sentence); with polars, the runs found by `str.extract_all`, kept once per message and counted by
  `group_by`, the 64-bit key of each distinct run computed in Python. Both read the texts folded by
  the tool (fold_batch, in Python either way); with duckdb (when installed), the same in SQL on each
  batch handed over as an Arrow table, the counts kept in two tables of an in-memory database.

Each polars and duckdb answer is checked against the tool's on the same corpus. duckdb's regular
expressions (RE2) read `\\s` and `\\w` as ASCII: the runs of letters are written `[\\p{L}\\p{Nl}\\p{No}]+`.
polars' regular expressions have
no look-around: the capital's look-ahead is written as one more character matched and checked, and
its `\\s` and `\\w` are Unicode's, a little wider or narrower than Python's on rare characters, so a
port would need a fallback for them. The time to import polars, which every run of the tool would
pay, is measured in fresh processes, and whether polars still works in a process forked from one
that used it (`classify --jobs` forks its workers).

The figures depend on the machine and on what else runs on it: run on demand, never as a test.
"""

from __future__ import annotations

import gc
import itertools
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import corpus as growing  # noqa: E402  (benchmarks/corpus.py)

# _MID_CAPITAL of triage.model.names without its look-ahead (?![\w'’-]): the character after the
# word is matched (or the end), and the match is kept when that character is none of those.
_CAPITAL_AND_NEXT = r"[a-zß-ÿ][,;]?\s+([A-ZÀ-Þ][a-zß-ÿ]+)([\w'’-]?)"


def python_cut(batches: list[list[str]]) -> list[np.ndarray]:
    """The stretch ids of each batch, as classify finds them."""
    from triage.text.stretches import STRETCH as _STRETCH

    known: dict[str, int] = {}
    out = []
    for texts in batches:
        flat = list(itertools.chain.from_iterable(map(_STRETCH.findall, texts)))
        for stretch in dict.fromkeys(flat):
            if stretch not in known:
                known[stretch] = len(known)
        out.append(np.fromiter(map(known.__getitem__, flat), dtype=np.int64, count=len(flat)))
    return out


def polars_cut(batches: list[list[str]]) -> list[np.ndarray]:
    import polars as pl
    from triage.text.stretches import STRETCH as _STRETCH

    known = pl.DataFrame({"stretch": pl.Series([], dtype=pl.String), "sid": pl.Series([], dtype=pl.Int64)})
    out = []
    for texts in batches:
        flat = pl.Series("text", texts).str.extract_all(_STRETCH.pattern).explode().alias("stretch").to_frame()
        flat = flat.filter(pl.col("stretch").is_not_null())
        joined = flat.join(known, on="stretch", how="left", maintain_order="left")
        new = joined.filter(pl.col("sid").is_null()).select("stretch").unique(maintain_order=True)
        if len(new):
            new = new.with_columns(sid=pl.int_range(len(known), len(known) + len(new), dtype=pl.Int64))
            known = pl.concat([known, new])
            joined = flat.join(known, on="stretch", how="left", maintain_order="left")
        out.append(joined["sid"].to_numpy())
    return out


def python_statistics(batches: list[list[str]]):
    from triage.model.names import CorpusStats, forget_letter_runs

    forget_letter_runs()
    stats = CorpusStats()
    for texts in batches:
        stats.add(texts)
    forget_letter_runs()
    return stats.counts.arrays(), stats.capitalised.arrays()


def polars_statistics(batches: list[list[str]]):
    import polars as pl
    from triage.model.names import WordCounts, count_key
    from triage.text.normalise import fold_batch

    runs_per_batch, capitals_per_batch = [], []
    for texts in batches:
        folded, _ = fold_batch(texts)
        frame = pl.DataFrame({"text": folded}).with_row_index("message")
        runs = frame.select("message", run=pl.col("text").str.extract_all(r"[^\W\d_]+")).explode("run")
        runs = runs.filter(pl.col("run").is_not_null() & (pl.col("run") == pl.col("run").str.to_lowercase())
                           & (pl.col("run") != pl.col("run").str.to_uppercase())).unique()
        runs_per_batch.append(runs.group_by("run").len())
        capitals = frame.select("message", found=pl.col("text").str.extract_all(_CAPITAL_AND_NEXT)).explode("found")
        capitals = capitals.filter(pl.col("found").is_not_null()).with_columns(
            word=pl.col("found").str.extract(_CAPITAL_AND_NEXT, 1).str.to_lowercase(),
            after=pl.col("found").str.extract(_CAPITAL_AND_NEXT, 2))
        capitals = capitals.filter(pl.col("after") == "").select("message", "word").unique()
        capitals_per_batch.append(capitals.group_by("word").len())

    def counted(frames: list, column: str) -> tuple[np.ndarray, np.ndarray]:
        total = pl.concat(frames).group_by(column).agg(pl.col("len").sum())
        words = total[column].to_list()
        counts = WordCounts()
        counts.add(np.fromiter(map(count_key, words), np.uint64, len(words)), total["len"].to_numpy())
        return counts.arrays()

    return counted(runs_per_batch, "run"), counted(capitals_per_batch, "word")


def duckdb_statistics(batches: list[list[str]]):
    import duckdb
    import pyarrow as pa
    from triage.model.names import WordCounts, count_key
    from triage.text.normalise import fold_batch

    connection = duckdb.connect()
    connection.execute("CREATE TABLE runs (run VARCHAR, n BIGINT); CREATE TABLE capitals (word VARCHAR, n BIGINT)")
    for texts in batches:
        folded, _ = fold_batch(texts)
        connection.register("batch", pa.table({"message": np.arange(len(folded)), "text": pa.array(folded, pa.string())}))
        connection.execute(r"""INSERT INTO runs SELECT run, count(*) FROM (
            SELECT DISTINCT message, unnest(regexp_extract_all(text, '[\p{L}\p{Nl}\p{No}]+')) AS run FROM batch)
            WHERE run = lower(run) AND run <> upper(run) GROUP BY run""")
        connection.execute("""INSERT INTO capitals SELECT word, count(*) FROM (
            SELECT DISTINCT message, lower(word) AS word FROM (
                SELECT message, unnest(regexp_extract_all(text, $1, 1)) AS word,
                       unnest(regexp_extract_all(text, $1, 2)) AS after FROM batch)
            WHERE after = '') GROUP BY word""", [_CAPITAL_AND_NEXT])
        connection.unregister("batch")

    def counted(table: str, column: str) -> tuple[np.ndarray, np.ndarray]:
        total = connection.execute(f"SELECT {column}, sum(n) FROM {table} GROUP BY {column}").fetchall()
        counts = WordCounts()
        counts.add(np.fromiter((count_key(word) for word, _ in total), np.uint64, len(total)),
                   np.asarray([n for _, n in total], dtype=np.int64))
        return counts.arrays()

    return counted("runs", "run"), counted("capitals", "word")


def import_seconds(module: str, repeat: int) -> float:
    """The median time to import `module` in a fresh process, less that of a bare interpreter."""
    def run(code: str) -> float:
        started = time.perf_counter()
        subprocess.run([sys.executable, "-c", code], check=True)
        return time.perf_counter() - started

    bare = statistics.median(run("pass") for _ in range(repeat))
    return max(0.0, statistics.median(run(f"import {module}") for _ in range(repeat)) - bare)


# A process that used polars forks a child that uses polars too, as `classify --jobs` forks its workers.
_FORKED_CHILD = """
import os, sys, time
import polars as pl
frame = pl.DataFrame({"text": ["a b c"] * 10_000})
frame.select(pl.col("text").str.extract_all(r"\\S+").list.len().sum())
child = os.fork()
if child == 0:
    frame.select(pl.col("text").str.extract_all(r"\\S+").list.len().sum())
    os._exit(0)
for _ in range(200):
    if os.waitpid(child, os.WNOHANG)[0]:
        sys.exit(0)
    time.sleep(0.1)
os.kill(child, 9)
sys.exit(1)
"""


def polars_after_fork() -> str:
    """Whether polars works in a process forked from one that used it ("works", "hangs"; "no fork"
    where the platform has none)."""
    if not hasattr(__import__("os"), "fork"):
        return "no fork"
    done = subprocess.run([sys.executable, "-c", _FORKED_CHILD], timeout=60)
    return "works" if done.returncode == 0 else "hangs"


def best_of(function, batches, repeat: int) -> tuple[float, float]:
    times = []
    for _ in range(repeat):
        gc.collect()
        started = time.perf_counter()
        function(batches)
        times.append(time.perf_counter() - started)
    return min(times), statistics.median(times)


def same(expected, found) -> bool:
    if isinstance(expected, np.ndarray):
        return np.array_equal(expected, found)
    return all(same(e, f) for e, f in zip(expected, found, strict=True))


def main(argv: list[str] | None = None) -> int:
    args = growing.batch_options(__doc__.split("\n\n")[0]).parse_args(argv)
    try:
        import polars
    except ImportError:
        print("polars is not installed: pip install polars")
        return 1

    texts = list(growing.generate(args.messages, args.seed, growing.Sources()))
    batches = [texts[start:start + args.batch] for start in range(0, len(texts), args.batch)]
    results = {"messages": args.messages, "batch": args.batch, "polars": polars.__version__,
               "polars_import_seconds": round(import_seconds("polars", args.repeat), 3), "parts": {}}
    results["polars_in_a_forked_child"] = polars_after_fork()
    print(f"{len(texts):,} messages in {len(batches)} batches; importing polars: "
          f"{results['polars_import_seconds']:.3f} s; polars in a child forked after using it: "
          f"{results['polars_in_a_forked_child']}")
    try:
        import duckdb
        import pyarrow  # noqa: F401  (how a batch is handed to duckdb)
    except ImportError:
        duckdb = None
        print("duckdb (with pyarrow) is not installed: the statistics pass is not measured in it")
    else:
        results["duckdb"] = duckdb.__version__
        results["duckdb_import_seconds"] = round(import_seconds("duckdb", args.repeat), 3)
    for part, tool, others in (("cutting", python_cut, {"polars": polars_cut}),
                               ("statistics", python_statistics,
                                {"polars": polars_statistics, **({"duckdb": duckdb_statistics} if duckdb else {})})):
        expected = tool(batches)
        for name, columnar in others.items():
            if not same(expected, columnar(batches)):
                raise SystemExit(f"{part}: {name}'s answer differs from the tool's")
        tool_best, tool_median = best_of(tool, batches, args.repeat)
        found = results["parts"][part] = {"tool_seconds": round(tool_best, 3),
                                          "tool_median_seconds": round(tool_median, 3)}
        line = f"{part:12} the tool {tool_best:6.3f} s (median {tool_median:.3f})"
        for name, columnar in others.items():
            best, median = best_of(columnar, batches, args.repeat)
            found[f"{name}_seconds"], found[f"{name}_median_seconds"] = round(best, 3), round(median, 3)
            line += f"   {name} {best:6.3f} s (median {median:.3f})"
        print(line)
    growing.write_results(args.out, results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
