"""Which engine answers Seek&Hide's exact look-ups of a batch's new spellings fastest: numpy, polars,
pyarrow or duckdb, on the shipped lexicons and the new spellings of a generated corpus.

    python benchmarks/lexicon_lookup.py [--messages 86000] [--batch 5000] [--repeat 5] [--out FILE]

The task is what Lexicons.lookup answers for each new spelling of a batch, for all of them at
once: whether the spelling, as written and accent-folded, is in each list (first names,
surnames, inflected forms, the small anti-dictionaries, the accent-folded indexes), and from
that (is a name, is an ordinary word, found as written). The spellings are those of
benchmarks/corpus.py's generated corpus, distinct lower-case word spellings in corpus order,
cut into batches the size of classify's (`--batch` messages bring about 3,000 to 10,000 new
spellings). Each engine's answers are checked against Lexicons.lookup, one spelling at a time.

Engines (each with what it builds once per set of lexicons, and what it costs a batch):
- python: Lexicons.prefetch then Lexicons.lookup per spelling (what label_many did);
- numpy-lists: one sorted search per list on the lexicon snapshot's sorted arrays as they are
  (the small lists as sorted arrays made once), the batch encoded once;
- numpy-sorted: what classify uses (Lexicons.lookup_many's Sorted.flags): numpy-lists with the
  batch's spellings sorted once and searched in that order, the first-name ranks found on the way
  and the big lists' answers remembered for the batch (forgotten at the batch's end, as classify
  forgets them);
- numpy-union: one sorted array of every spelling of every list with a bit per list (made
  once), two sorted searches a batch (as written, folded);
- polars-join: the same union as a polars DataFrame, two left joins a batch;
- polars-is_in: one `is_in` per list;
- pyarrow-index_in: pyarrow.compute.index_in against the union (pyarrow builds its hash
  table of the union at every call: there is no way to keep it between calls);
- pyarrow-join: Table.join (Acero's hash join) against the union.
- duckdb-join: the union as a table of an in-memory duckdb database (made once), each batch
  handed over as an Arrow table and joined to it in SQL (duckdb builds its hash table on the
  smaller side, the batch).

The figures depend on the machine and on what else runs on it: run on demand, never as a test.
"""

from __future__ import annotations

import gc
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import corpus as growing  # noqa: E402  (benchmarks/corpus.py)

# Bits of the union table: which list holds a spelling.
FIRST, LAST, OTHER, FORM, FOLDED_NAME, FOLDED_ANTI = (1 << bit for bit in range(6))
NAMES_AS_WRITTEN = FIRST | LAST
ANTI_AS_WRITTEN = OTHER | FORM
NAMES_FOLDED = FIRST | LAST | FOLDED_NAME
ANTI_FOLDED = OTHER | FORM | FOLDED_ANTI


def batches_of_keys(messages: int, batch: int, seed: int) -> list[list[str]]:
    """The distinct lower-case word spellings of the generated corpus, each in the batch of
    `batch` messages where it first comes."""
    from triage.lexicons import default, spelling_key
    from triage.text.tokenise import WORD, Tokeniser

    tokeniser = Tokeniser(default().apostrophe_words)
    seen: set[str] = set()
    batches: list[list[str]] = [[]]
    for number, text in enumerate(growing.generate(messages, seed, growing.Sources())):
        if number and number % batch == 0:
            batches.append([])
        for token in tokeniser.tokenise(text):
            if token.kind == WORD:
                key = spelling_key(token.text)
                if key not in seen:
                    seen.add(key)
                    batches[-1].append(key)
    return [keys for keys in batches if keys]


def union_words(lexicons) -> tuple[list[str], np.ndarray]:
    """(sorted spellings of every list, a uint8 bit set per spelling)."""
    flags: dict[str, int] = {}
    for bit, words in ((FIRST, lexicons.first_names), (LAST, lexicons.last_names), (OTHER, lexicons.other_anti),
                       (FORM, lexicons.forms), (FOLDED_NAME, lexicons.folded_names),
                       (FOLDED_ANTI, lexicons.folded_anti)):
        for word in words:
            flags[word] = flags.get(word, 0) | bit
    words = sorted(flags)
    return words, np.array([flags[word] for word in words], dtype=np.uint8)


def answers(flags_as_written: np.ndarray, flags_folded: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(is a name, is an ordinary word, found as written) from the bit sets of the spellings
    as written and folded (no user lexicon: the benchmark's is empty)."""
    names = (flags_as_written & NAMES_AS_WRITTEN) > 0
    anti = (flags_as_written & ANTI_AS_WRITTEN) > 0
    written = names | anti
    return (np.where(written, names, (flags_folded & NAMES_FOLDED) > 0),
            np.where(written, anti, (flags_folded & ANTI_FOLDED) > 0), written)


def _encode(keys: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """The keys as one 'S' array and their lengths in bytes (a key longer than any list's
    spellings is left empty: it is in none, and would widen the whole array)."""
    encoded = [key.encode("utf-8", "surrogatepass") for key in keys]
    lengths = np.fromiter(map(len, encoded), dtype=np.int64, count=len(encoded))
    encoded = [key if len(key) <= MAX_WIDTH else b"" for key in encoded]
    return np.array(encoded, dtype=bytes), np.where(lengths <= MAX_WIDTH, lengths, 0)


MAX_WIDTH = 64  # bytes: wider than every list's longest spelling


def _search(array: np.ndarray, keys: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """Whether each of `keys` ('S') is in the sorted 'S' `array` (keys wider than it are not)."""
    width = array.dtype.itemsize
    possible = (lengths > 0) & (lengths <= width)
    cut = keys.astype(array.dtype) if keys.dtype.itemsize > width else keys
    index = np.minimum(array.searchsorted(cut), len(array) - 1)
    return possible & (array[index] == cut)


class NumpyLists:
    name = "numpy-lists"

    def __init__(self, lexicons):
        self.big = (lexicons.first_names, lexicons.last_names, lexicons.other_anti, lexicons.forms,
                    lexicons.folded_names, lexicons.folded_anti)
        self.arrays = [lexicons_array(words) for words in self.big]

    def nbytes(self) -> int:
        return sum(a.nbytes for a, words in zip(self.arrays, self.big) if not hasattr(words, "array"))

    def flags(self, keys: list[str]) -> np.ndarray:
        encoded, lengths = _encode(keys)
        found = np.zeros(len(keys), dtype=np.uint8)
        for bit, array in enumerate(self.arrays):
            found |= _search(array, encoded, lengths).astype(np.uint8) << bit
        return found


class NumpySorted:
    name = "numpy-sorted"

    def __init__(self, lexicons):
        from triage.lexicons import Sorted
        from triage.pipeline.memory import VOCABULARY

        self.sorted, self.forget = Sorted(lexicons), VOCABULARY.enforce

    def nbytes(self) -> int:
        return sum(words.array.nbytes for words in self.sorted.lists if words not in self.sorted.shared)

    def flags(self, keys: list[str]) -> np.ndarray:
        found = self.sorted.flags(keys).bits
        self.forget()  # the answers the big lists remember last one batch
        return found


def lexicons_array(words) -> np.ndarray:
    """The sorted 'S' array of a list: a WordList's own, else one made from the strings."""
    array = getattr(words, "array", None)
    if array is not None:
        return array
    return np.array(sorted(word.encode("utf-8") for word in words), dtype=bytes)


class NumpyUnion:
    name = "numpy-union"

    def __init__(self, lexicons, union):
        words, self.bits = union
        self.array = np.array([word.encode("utf-8") for word in words], dtype=bytes)

    def nbytes(self) -> int:
        return self.array.nbytes + self.bits.nbytes

    def flags(self, keys: list[str]) -> np.ndarray:
        encoded, lengths = _encode(keys)
        hit = _search(self.array, encoded, lengths)
        index = np.minimum(self.array.searchsorted(encoded.astype(self.array.dtype)), len(self.array) - 1)
        return np.where(hit, self.bits[index], 0).astype(np.uint8)


class PolarsJoin:
    """An inner join with the batch on the left: polars builds its hash table on the smaller
    side, the batch (a left join would build it on the 816,000 spellings at every call)."""

    name = "polars-join"

    def __init__(self, lexicons, union):
        import polars as pl

        self.pl = pl
        words, bits = union
        self.table = pl.DataFrame({"key": words, "flags": bits})

    def nbytes(self) -> int:
        return int(self.table.estimated_size())

    def flags(self, keys: list[str]) -> np.ndarray:
        pl = self.pl
        batch = pl.DataFrame({"key": keys, "row": np.arange(len(keys))})
        joined = batch.join(self.table, on="key", how="inner")
        found = np.zeros(len(keys), dtype=np.uint8)
        found[joined["row"].to_numpy()] = joined["flags"].to_numpy()
        return found


class PolarsIsIn:
    name = "polars-is_in"

    def __init__(self, lexicons):
        import polars as pl

        self.pl = pl
        self.lists = [pl.Series(list(words), dtype=pl.String) for words in
                      (lexicons.first_names, lexicons.last_names, lexicons.other_anti, lexicons.forms,
                       lexicons.folded_names, lexicons.folded_anti)]

    def nbytes(self) -> int:
        return sum(int(series.estimated_size()) for series in self.lists)

    def flags(self, keys: list[str]) -> np.ndarray:
        series = self.pl.Series(keys, dtype=self.pl.String)
        found = np.zeros(len(keys), dtype=np.uint8)
        for bit, words in enumerate(self.lists):
            found |= series.is_in(words.implode()).to_numpy().astype(np.uint8) << bit
        return found


class PyarrowIndexIn:
    name = "pyarrow-index_in"

    def __init__(self, lexicons, union):
        import pyarrow as pa
        import pyarrow.compute as pc

        self.pa, self.pc = pa, pc
        words, self.bits = union
        self.words = pa.array(words, type=pa.string())

    def nbytes(self) -> int:
        return self.words.nbytes + self.bits.nbytes

    def flags(self, keys: list[str]) -> np.ndarray:
        index = self.pc.index_in(self.pa.array(keys, type=self.pa.string()), value_set=self.words)
        index = index.to_numpy(zero_copy_only=False)
        hit = ~np.isnan(index)
        return np.where(hit, self.bits[np.where(hit, index, 0).astype(np.int64)], 0).astype(np.uint8)


class PyarrowJoin:
    name = "pyarrow-join"

    def __init__(self, lexicons, union):
        import pyarrow as pa

        self.pa = pa
        words, bits = union
        self.table = pa.table({"key": pa.array(words, type=pa.string()), "flags": pa.array(bits)})

    def nbytes(self) -> int:
        return self.table.nbytes

    def flags(self, keys: list[str]) -> np.ndarray:
        pa = self.pa
        batch = pa.table({"key": pa.array(keys, type=pa.string()), "row": pa.array(np.arange(len(keys)))})
        joined = batch.join(self.table, "key", join_type="left outer").sort_by("row")
        return joined["flags"].fill_null(0).to_numpy().astype(np.uint8)


class DuckdbJoin:
    name = "duckdb-join"

    def __init__(self, lexicons, union):
        import duckdb
        import pyarrow as pa

        self.pa = pa
        words, bits = union
        self.connection = duckdb.connect()
        union_table = pa.table({"key": pa.array(words, type=pa.string()), "flags": pa.array(bits)})
        self.connection.register("union_table", union_table)
        self.connection.execute("CREATE TABLE lexicon AS SELECT key, flags FROM union_table")
        self.connection.unregister("union_table")
        self.bytes = union_table.nbytes  # what duckdb holds is not reported: the Arrow table's size

    def nbytes(self) -> int:
        return self.bytes

    def flags(self, keys: list[str]) -> np.ndarray:
        pa = self.pa
        batch = pa.table({"key": pa.array(keys, type=pa.string()), "row": pa.array(np.arange(len(keys)))})
        self.connection.register("batch", batch)
        try:
            joined = self.connection.execute("SELECT row, flags FROM batch JOIN lexicon USING (key)").fetchnumpy()
        finally:
            self.connection.unregister("batch")
        found = np.zeros(len(keys), dtype=np.uint8)
        found[np.asarray(joined["row"], dtype=np.int64)] = np.asarray(joined["flags"], dtype=np.uint8)
        return found


def main(argv: list[str] | None = None) -> int:
    args = growing.batch_options(__doc__.split("\n\n")[0]).parse_args(argv)

    from triage import lexicons as lexicon_module
    from triage.lexicons import fold

    lexicons = lexicon_module.default()
    batches = batches_of_keys(args.messages, args.batch, args.seed)
    total = sum(map(len, batches))
    print(f"{total:,} new spellings in {len(batches)} batches of {args.batch:,} messages "
          f"({min(map(len, batches)):,} to {max(map(len, batches)):,} a batch)")
    folded = [fold("\n".join(keys)).split("\n") for keys in batches]
    expected = [[lexicons.lookup(key) for key in keys] for keys in batches]
    started = time.perf_counter()
    union = union_words(lexicons)
    union_seconds = time.perf_counter() - started
    print(f"union of the lists: {len(union[0]):,} spellings, built from the lists in {union_seconds:.2f} s")

    results = {"messages": args.messages, "batch": args.batch, "spellings": total, "batches": len(batches),
               "union_spellings": len(union[0]), "union_seconds": round(union_seconds, 3), "engines": {}}
    for library in ("numpy", "polars", "pyarrow", "duckdb"):
        try:
            results.setdefault("versions", {})[library] = __import__(library).__version__
        except ImportError:
            pass

    def python_engine() -> float:
        fresh = lexicon_module.load()
        gc.collect()
        started = time.perf_counter()
        for keys in batches:
            fresh.prefetch(keys)
            [fresh.lookup(key) for key in keys]
        return time.perf_counter() - started

    times = [python_engine() for _ in range(args.repeat)]
    results["engines"]["python"] = {"build_seconds": 0.0, "batches_seconds": round(min(times), 4),
                                    "median_seconds": round(statistics.median(times), 4), "extra_bytes": 0}
    print(f"{'python':18} build {0:6.3f} s  all batches {min(times):6.3f} s (median {statistics.median(times):.3f})")

    makers = [lambda: NumpySorted(lexicons), lambda: NumpyLists(lexicons), lambda: NumpyUnion(lexicons, union), lambda: PolarsJoin(lexicons, union),
              lambda: PolarsIsIn(lexicons), lambda: PyarrowIndexIn(lexicons, union), lambda: PyarrowJoin(lexicons, union),
              lambda: DuckdbJoin(lexicons, union)]
    for make in makers:
        try:
            started = time.perf_counter()
            engine = make()
            build = time.perf_counter() - started
        except ImportError as error:
            print(f"skipped: {error}")
            continue
        for keys, folds, wanted in zip(batches, folded, expected):
            names, anti, _ = answers(engine.flags(keys), engine.flags(folds))
            assert list(zip(names.tolist(), anti.tolist())) == wanted, engine.name
        times = []
        for _ in range(args.repeat):
            gc.collect()
            started = time.perf_counter()
            for keys, folds in zip(batches, folded):
                answers(engine.flags(keys), engine.flags(folds))
            times.append(time.perf_counter() - started)
        results["engines"][engine.name] = {"build_seconds": round(build, 3), "batches_seconds": round(min(times), 4),
                                           "median_seconds": round(statistics.median(times), 4),
                                           "extra_bytes": engine.nbytes()}
        print(f"{engine.name:18} build {build:6.3f} s  all batches {min(times):6.3f} s "
              f"(median {statistics.median(times):.3f})  built {engine.nbytes() / 2**20:6.1f} MB")
    growing.write_results(args.out, results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
