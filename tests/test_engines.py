"""triage.engines with a fake classifier: order, real worker processes, one build per
worker process, errors and bounded chunks in flight (independent of the real Classifier)."""

import os
import signal
import subprocess
import sys
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

import pytest

from triage import engines
from triage.errors import InputError

WORDS = ["salut", "ça", "va", "on", "se", "voit", "demain", "à", "la", "gare", "bisous", "rdv", "18h", "ciné"]

_builds = 0  # per process: how many classifiers FakeSpec.build made here


class Msg(NamedTuple):
    id: str
    text: str


class FakeClassifier:
    """Upper-cases each text and says where and after how many builds it ran; two chunks at once
    too (classify_parts)."""

    def __init__(self, builds: int = 0, fail_on: str | None = None):
        self.builds = builds
        self.fail_on = fail_on

    def classify(self, pairs):
        rows = []
        for id_, text in pairs:
            if text == self.fail_on:
                raise InputError(f"message {id_}: texte illisible")
            rows.append({"id": id_, "text": text.upper(), "pid": os.getpid(), "builds": self.builds,
                         "trim": os.environ.get("MALLOC_TRIM_THRESHOLD_"), "omp": os.environ.get("OMP_NUM_THREADS"),
                         "profiled": _dask_profiling()})
        return rows

    def classify_parts(self, messages, sizes):
        rows, parts = self.classify(messages), []
        for size in sizes:
            parts.append(rows[:size])
            rows = rows[size:]
        return parts


def _dask_profiling():
    """Whether a Dask worker here would run its sampling profiler (None without dask)."""
    try:
        import dask
    except ImportError:
        return None
    return dask.config.get("distributed.worker.profile.enabled", None)


@dataclass(frozen=True)
class FakeSpec:
    fail_on: str | None = None
    token: str = field(default_factory=lambda: uuid.uuid4().hex)

    def build(self):
        global _builds
        _builds += 1
        return FakeClassifier(_builds, self.fail_on)


def make_chunks(count: int) -> list[list[Msg]]:
    chunks, n = [], 0
    for c in range(count):
        chunk = []
        for _ in range(1 + (c * 7) % 11):
            chunk.append(Msg(f"m{n}", " ".join(WORDS[(n + k) % len(WORDS)] for k in range(1 + n % 5))))
            n += 1
        chunks.append(chunk)
    return chunks


def expected(chunks):
    return [[(m.id, m.text.upper()) for m in chunk] for chunk in chunks]


def plain(results):
    return [[(r["id"], r["text"]) for r in rows] for rows in results]


def consume_bounded(results, pulled, in_flight):
    """All results, checking that never more than `in_flight` chunks were read ahead."""
    out = []
    for rows in results:
        out.append(rows)
        assert pulled[0] - len(out) <= in_flight
    return out


def counting(chunks, pulled):
    for chunk in chunks:
        pulled[0] += 1
        yield chunk


@pytest.fixture(scope="module")
def cluster():
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, **engines.LOCAL_CLUSTER_OPTIONS) as cluster:
        yield cluster


def test_local_engines_give_the_direct_rows_in_order():
    chunks = make_chunks(30)
    direct = [FakeClassifier().classify([(m.id, m.text) for m in chunk]) for chunk in chunks]
    one = list(engines.run_chunks(FakeClassifier(), chunks, jobs=1))
    assert one == direct
    pulled = [0]
    two = consume_bounded(engines.run_chunks(FakeClassifier(), counting(chunks, pulled), jobs=2), pulled, 4)
    assert plain(two) == plain(direct) == expected(chunks)
    # Every chunk is classified by one of the two workers (the first two chunks one each): none here.
    pids = [{r["pid"] for r in rows} for rows in two]
    assert all(len(chunk) == 1 for chunk in pids) and pids[0] != pids[1]
    assert set().union(*pids) == pids[0] | pids[1] and os.getpid() not in pids[0] | pids[1]


@pytest.mark.parametrize("engine", ["local", "dask"])
def test_a_classifier_that_learnt_the_first_chunk_sends_every_chunk_to_the_workers(engine):
    """Once this process has learnt the first chunk's spellings (Classifier.learn, while the
    statistics were counted), the workers classify every chunk: none is classified here."""
    if engine == "dask":
        pytest.importorskip("distributed")
        if not engines.FORKED_LOCAL_WORKERS:
            pytest.skip("the local cluster's workers are forked on Linux only")
    chunks = make_chunks(12)
    classifier = FakeClassifier(builds=0) if engine == "dask" else FakeClassifier()
    classifier.learnt = True
    results = list(engines.run_chunks(classifier, chunks, engine=engine, jobs=2,
                                      spec=FakeSpec() if engine == "dask" else None))
    assert plain(results) == expected(chunks)
    pids = {r["pid"] for rows in results for r in rows}
    assert pids and os.getpid() not in pids


def _where(item: list) -> tuple[int, int, list]:
    """In a worker of a fork pool: the item's address there, the worker's pid, and the item."""
    return id(item), os.getpid(), item


def test_a_fork_pool_takes_what_was_shared_with_it_from_the_memory_it_started_with():
    """Items shared before a fork pool starts (the chunks the statistics pass kept) reach its
    workers as keys: each worker takes the copy it started with, at the address it had here, and
    this process lets go of each once given. The first is sent whole, as is an item not shared."""
    shared = [[k, "texte"] for k in range(6)]
    alone = [99, "pas partagé"]
    engines.share_by_fork(shared)
    try:
        found = list(engines.fork_map(_where, [*shared, alone], 2))
    finally:
        engines.stop_sharing()
    assert [item for _, _, item in found] == [*shared, alone]
    assert {pid for _, pid, _ in found} - {os.getpid()}
    taken = [address == id(item) for (address, _, _), item in zip(found, [*shared, alone])]
    assert taken == [False, True, True, True, True, True, False]
    assert not engines._BY_FORK


def test_a_fork_pool_forks_no_more_workers_than_there_are_chunks(monkeypatch):
    """--jobs 16 on a corpus of two chunks forks two workers, not sixteen (each costs its start);
    with no chunk at all, none."""
    import concurrent.futures

    sizes = []
    real = concurrent.futures.ProcessPoolExecutor

    def counted(max_workers, **options):
        sizes.append(max_workers)
        return real(max_workers, **options)

    monkeypatch.setattr(concurrent.futures, "ProcessPoolExecutor", counted)
    chunks = make_chunks(2)
    assert plain(engines.fork_map(FakeClassifier().classify, chunks, 16)) == expected(chunks)
    assert list(engines.fork_map(FakeClassifier().classify, [], 16)) == []
    assert plain(engines.fork_map(FakeClassifier().classify, make_chunks(5), 3)) == expected(make_chunks(5))
    assert sizes == [2, 3]


@pytest.mark.skipif(not engines.FORKED_LOCAL_WORKERS, reason="the local cluster's workers are forked on Linux only")
def test_a_local_dask_cluster_starts_no_more_workers_than_there_are_chunks_left(monkeypatch):
    """The first chunk classified here, one chunk left: a cluster of one worker, whatever --jobs
    says; nothing left: no cluster at all."""
    pytest.importorskip("distributed")
    sizes = []
    real = engines.DaskSession

    def counted(jobs, scheduler, forked=False):
        sizes.append(jobs)
        return real(jobs, scheduler, forked)

    monkeypatch.setattr(engines, "DaskSession", counted)
    chunks = make_chunks(2)
    results = list(engines.run_chunks(FakeClassifier(builds=0), chunks, engine="dask", jobs=8, spec=FakeSpec()))
    assert plain(results) == expected(chunks)
    one = make_chunks(1)
    assert plain(engines.run_chunks(FakeClassifier(builds=0), one, engine="dask", jobs=8, spec=FakeSpec())) == \
        expected(one)
    assert sizes == [1]


class _CountedKey(engines._Inherited):
    """engines._Inherited, each one made here counted."""

    made: list = []

    def __new__(cls, key):
        cls.made.append(key)
        return super().__new__(cls, key)


_classify_kept = engines._classify_kept


def _kept_chunks_only(setup, chunk):
    """engines._classify_kept in a worker, refusing a chunk sent whole (module-level: a pool pickles
    the function it runs by its name)."""
    if not isinstance(chunk, engines._KeptIndex):
        raise AssertionError(f"a chunk of {len(chunk)} pairs was sent whole")
    return _classify_kept(setup, chunk)


def test_with_jobs_the_worker_that_counts_a_chunk_keeps_it_and_classifies_it(tmp_path, monkeypatch):
    """With --jobs, the worker that counts the statistics of a chunk keeps it, folded and cut, and
    classifies it: the chunk is sent to be classified as its index alone, and the rows are those
    of one process."""
    from triage import jobs

    source = tmp_path / "sms.csv"
    texts = ["slt Julie tu viens ?", "ok a demain", "Rdv chez Dubois 18h", "appelle Marc au 06 12 34 56 78"]
    source.write_text("id,text\n" + "".join(f"{k},{texts[k % 4]} {k}\n" for k in range(40)), encoding="utf-8")
    monkeypatch.setattr(engines, "_classify_kept", _kept_chunks_only)
    jobs.run_classify(source, tmp_path / "two.csv", jobs=2, chunk_size=8, chart=False)
    jobs.run_classify(source, tmp_path / "one.csv", chunk_size=8, chart=False)
    assert (tmp_path / "two.csv").read_bytes() == (tmp_path / "one.csv").read_bytes()
    monkeypatch.setattr(engines, "TAIL_PART", 2)  # the last chunks cut again, into parts of two messages
    jobs.run_classify(source, tmp_path / "tail.csv", jobs=2, chunk_size=8, chart=False)
    assert (tmp_path / "tail.csv").read_bytes() == (tmp_path / "one.csv").read_bytes()
    monkeypatch.setattr(jobs, "KEEP_READ_MESSAGES", 20)  # too large to keep: sent whole to be classified
    with pytest.raises(AssertionError, match="sent whole"):
        jobs.run_classify(source, tmp_path / "again.csv", jobs=2, chunk_size=8, chart=False)


@pytest.fixture
def batches_noted(tmp_path, monkeypatch):
    """40 messages in a file, classified in chunks of 4 and batches of 8 by default, and a function
    that gives the batches classified since it was last asked, each as the sizes of its parts
    ("4 4"), in any order: each batch noted in a file, here or in the workers forked with it."""
    from triage import jobs
    from triage.classifier import Classifier

    source = tmp_path / "sms.csv"
    texts = ["slt Julie tu viens ?", "ok a demain", "Rdv chez Dubois 18h", "appelle Marc au 06 12 34 56 78"]
    source.write_text("id,text\n" + "".join(f"{k},{texts[k % 4]} {k}\n" for k in range(40)), encoding="utf-8")
    noted = tmp_path / "batches.txt"
    classify_parts = Classifier.classify_parts

    def noting(self, messages, sizes):
        with open(noted, "a", encoding="utf-8") as handle:
            handle.write(" ".join(map(str, sizes)) + "\n")
        return classify_parts(self, messages, sizes)

    def batches() -> list[str]:
        found = sorted(noted.read_text().splitlines())
        noted.unlink()
        return found

    monkeypatch.setattr(Classifier, "classify_parts", noting)
    monkeypatch.setattr(jobs, "CHUNK_MESSAGES", 4)
    monkeypatch.setattr(jobs, "BATCH_MESSAGES", 8)
    jobs.run_classify(source, tmp_path / "one.csv", chunk_size=4, chart=False)
    assert batches() == ["4"] * 10
    return source, batches


def test_with_jobs_a_worker_classifies_two_chunks_it_keeps_as_one_batch_where_they_fit(
        tmp_path, monkeypatch, batches_noted):
    """Counted in chunks, the chunks a worker keeps are classified two at a time while the two fit in
    one process's batch (messages and characters), with the rows of one process; a chunk size given
    by the caller is kept for classifying too."""
    from triage import jobs

    source, batches = batches_noted
    jobs.run_classify(source, tmp_path / "two.csv", jobs=2, chart=False)
    assert (tmp_path / "two.csv").read_bytes() == (tmp_path / "one.csv").read_bytes()
    # Eight chunks of 4 and the last two as one (engines.even_tail), classified as four batches of 8 and that one.
    assert batches() == ["4 4"] * 4 + ["8"]
    monkeypatch.setattr(jobs, "BATCH_CHARACTERS", 150)  # two chunks of about 90 characters each do not fit
    jobs.run_classify(source, tmp_path / "short.csv", jobs=2, chart=False)
    assert (tmp_path / "short.csv").read_bytes() == (tmp_path / "one.csv").read_bytes()
    assert batches() == ["4"] * 8 + ["8"]
    jobs.run_classify(source, tmp_path / "given.csv", jobs=2, chunk_size=4, chart=False)
    assert batches() == ["4"] * 8 + ["8"]


@pytest.fixture
def learning_noted(tmp_path, monkeypatch):
    """A function that gives what the processes learnt before classifying since it was last asked:
    "learnt N" for each batch of N messages learnt (Classifier.learn), "reused N" for each batch
    of N messages classified from what was learnt of it, in any order (noted in a file, here or in
    the workers forked with it)."""
    from triage.classifier import Classifier

    noted = tmp_path / "learnt.txt"
    learn, reused = Classifier.learn, Classifier._reused

    def note(line: str) -> None:
        with open(noted, "a", encoding="utf-8") as handle:
            handle.write(line + "\n")

    def noting_learn(self, messages):
        note(f"learnt {len(messages)}")
        return learn(self, messages)

    def noting_reused(self, messages):
        found = reused(self, messages)
        if found is not None:
            note(f"reused {len(messages)}")
        return found

    def learnt() -> list[str]:
        found = sorted(noted.read_text().splitlines()) if noted.exists() else []
        noted.unlink(missing_ok=True)
        return found

    monkeypatch.setattr(Classifier, "learn", noting_learn)
    monkeypatch.setattr(Classifier, "_reused", noting_reused)
    return learnt


def test_with_jobs_each_worker_learns_its_first_batch_while_the_statistics_pass_ends(
        tmp_path, monkeypatch, batches_noted, learning_noted):
    """Once it has counted its last chunk, each worker learns the first batch it will classify (the
    steps that need no corpus statistics) instead of waiting for the other workers' counts, and
    classifies that batch from what it learnt: the rows are those of one process, and the batches
    those of a run that does not learn ahead."""
    from triage import jobs
    from triage.pipeline import memory

    source, batches = batches_noted
    jobs.run_classify(source, tmp_path / "two.csv", jobs=2, chart=False)
    assert (tmp_path / "two.csv").read_bytes() == (tmp_path / "one.csv").read_bytes()
    assert batches() == ["4 4"] * 4 + ["8"]
    assert learning_noted() == ["learnt 8", "learnt 8", "reused 8", "reused 8"]  # each worker's first two chunks
    monkeypatch.setattr(jobs, "BATCH_CHARACTERS", 150)  # the first chunk alone: two do not fit in one batch
    jobs.run_classify(source, tmp_path / "short.csv", jobs=2, chart=False)
    assert (tmp_path / "short.csv").read_bytes() == (tmp_path / "one.csv").read_bytes()
    assert batches() == ["4"] * 8 + ["8"]
    assert learning_noted() == ["learnt 4", "learnt 4", "reused 4", "reused 4"]
    # Nothing learnt ahead where the stretch ids kept take more of the memory budget than it keeps when
    # spent (the first chunk classified lets them go), nor where the corpus is too large to keep.
    low_water = memory.LOW_WATER
    monkeypatch.setattr(memory, "LOW_WATER", 0.0)
    jobs.run_classify(source, tmp_path / "budget.csv", jobs=2, chart=False)
    assert (tmp_path / "budget.csv").read_bytes() == (tmp_path / "one.csv").read_bytes()
    assert batches() == ["4"] * 8 + ["8"]
    assert learning_noted() == []
    monkeypatch.setattr(memory, "LOW_WATER", low_water)
    monkeypatch.setattr(jobs, "KEEP_READ_MESSAGES", 20)
    jobs.run_classify(source, tmp_path / "again.csv", jobs=2, chart=False)
    assert (tmp_path / "again.csv").read_bytes() == (tmp_path / "one.csv").read_bytes()
    assert learning_noted() == []


@pytest.mark.parametrize("cores", [2, 1])
def test_the_workers_of_a_keeping_pool_learn_nothing_ahead_with_a_classifier_that_cannot(monkeypatch, cores):
    """The workers of a KeepingPool learn their first batch ahead with a classifier that learns
    (Classifier.learn), and this process learns the first chunk where they outnumber the cores;
    with another classifier, they count, keep and classify their chunks all the same."""
    monkeypatch.setattr(engines, "usable_cores", lambda: cores)
    chunks = make_chunks(6)
    with engines.KeepingPool(FakeClassifier(), 2) as pool:
        assert len(list(pool.count(((chunk, True) for chunk in chunks), 4))) == 6
        kept = [engines.KeptChunk(chunk, at) for at, chunk in enumerate(chunks)]
        assert plain(pool.classify(kept, None)) == expected(chunks)


def test_with_more_workers_than_cores_this_process_learns_the_first_chunk_before_it_forks_them(
        tmp_path, monkeypatch, batches_noted, learning_noted):
    """Workers that outnumber the cores cannot all run at once: this process learns the first
    chunk's spellings before it forks them, and they start knowing them. No worker labels a word
    of that chunk again, nor works out the runs of letters of a stretch this process cut; the
    rows are those of one process. With a core for each worker, the workers learn their own."""
    from triage import jobs
    from triage.model import names
    from triage.seekhide.words import WordLabeller

    noted = tmp_path / "work.txt"
    decide, runs_of = WordLabeller.decide_listed, names._runs_of

    def note(kind: str, items) -> None:
        with open(noted, "a", encoding="utf-8") as handle:
            handle.write("".join(f"{os.getpid()}\t{kind}\t{item}\n" for item in items))

    def noting_decide(self, keys, folded, looked):
        note("label", keys)
        return decide(self, keys, folded, looked)

    def noting_runs(stretches):
        note("runs", stretches)
        return runs_of(stretches)

    def work() -> dict[tuple[str, bool], set[str]]:
        """(what, whether here) -> the words labelled, or the stretches whose runs were worked out."""
        found: dict[tuple[str, bool], set[str]] = {(kind, here): set() for kind in ("label", "runs")
                                                   for here in (True, False)}
        for line in noted.read_text(encoding="utf-8").splitlines():
            pid, kind, item = line.split("\t")
            found[kind, int(pid) == os.getpid()].add(item)
        noted.unlink()
        return found

    monkeypatch.setattr(WordLabeller, "decide_listed", noting_decide)
    monkeypatch.setattr(names, "_runs_of", noting_runs)
    source, batches = batches_noted
    # Words of the first chunk, by key, that this process does not label when it makes its tables.
    corpus_words = {"slt", "tu", "viens", "dubois"}
    monkeypatch.setattr(engines, "usable_cores", lambda: 1)
    jobs.run_classify(source, tmp_path / "learnt.csv", jobs=2, chart=False)
    assert (tmp_path / "learnt.csv").read_bytes() == (tmp_path / "one.csv").read_bytes()
    assert batches() == ["4 4"] * 4 + ["8"]
    assert learning_noted() == ["learnt 4", "learnt 8", "learnt 8", "reused 8", "reused 8"]
    done = work()
    assert corpus_words <= done["label", True] and not corpus_words & done["label", False]
    assert "Julie" in done["runs", True] and not done["runs", True] & done["runs", False]
    monkeypatch.setattr(engines, "usable_cores", lambda: 2)
    jobs.run_classify(source, tmp_path / "own.csv", jobs=2, chart=False)
    assert (tmp_path / "own.csv").read_bytes() == (tmp_path / "one.csv").read_bytes()
    assert learning_noted() == ["learnt 8", "learnt 8", "reused 8", "reused 8"]
    done = work()
    assert corpus_words <= done["label", False] and not corpus_words & done["label", True]


def _failing_learn(self, messages):
    raise RuntimeError("the learning failed")


def test_with_jobs_a_worker_that_fails_to_learn_its_first_batch_stops_the_run_with_that_error(tmp_path, monkeypatch):
    """A worker's learning of its first batch, which nothing waits for, fails the run when the worker
    is given that batch to classify: the same error, and no output."""
    from triage import jobs
    from triage.classifier import Classifier

    source = tmp_path / "sms.csv"
    source.write_text("id,text\n" + "".join(f"{k},slt Julie tu viens ? {k}\n" for k in range(40)), encoding="utf-8")
    monkeypatch.setattr(Classifier, "learn", _failing_learn)
    with pytest.raises(RuntimeError, match="the learning failed"):
        jobs.run_classify(source, tmp_path / "two.csv", jobs=2, chunk_size=8, chart=False)
    assert not (tmp_path / "two.csv").exists()


@pytest.mark.skipif(not engines.FORKED_LOCAL_WORKERS, reason="the local cluster's workers are forked on Linux only")
def test_a_forked_local_dask_cluster_classifies_the_kept_chunks_two_by_two_but_the_first_and_the_last(
        tmp_path, batches_noted):
    """Before a local Dask cluster, the chunks kept after the first (learnt by the main process) and
    before the last two a worker are joined two by two where they fit in one process's batch: each
    pair is classified as one batch, with the rows of one process."""
    pytest.importorskip("distributed")
    from triage import jobs

    source, batches = batches_noted
    jobs.run_classify(source, tmp_path / "dask.csv", jobs=2, chart=False, engine="dask")
    assert (tmp_path / "dask.csv").read_bytes() == (tmp_path / "one.csv").read_bytes()
    # Ten chunks of 4: the first alone, the second and third joined, the fourth and fifth, the sixth alone (the
    # seventh is one of the last four).
    assert batches() == ["4"] * 6 + ["8"] * 2


@pytest.mark.skipif(not engines.FORKED_LOCAL_WORKERS, reason="the local cluster's workers are forked on Linux only")
def test_the_workers_of_a_forked_local_dask_cluster_take_the_kept_chunks_from_memory(tmp_path, monkeypatch):
    """As the fork pool's: forked after the statistics pass, the local cluster's workers take the
    chunks it kept from the memory they start with. They are forked before the first chunk is
    given, so every chunk goes as its key; nothing is kept for them after the run."""
    pytest.importorskip("distributed")
    from triage import jobs

    source = tmp_path / "sms.csv"
    texts = ["slt Julie tu viens ?", "ok a demain", "Rdv chez Dubois 18h", "appelle Marc au 06 12 34 56 78"]
    source.write_text("id,text\n" + "".join(f"{k},{texts[k % 4]} {k}\n" for k in range(40)), encoding="utf-8")
    _CountedKey.made.clear()
    monkeypatch.setattr(engines, "_Inherited", _CountedKey)
    jobs.run_classify(source, tmp_path / "dask.csv", jobs=2, chunk_size=8, chart=False, engine="dask")
    assert len(set(_CountedKey.made)) == 5  # (made twice each: the scheduler, in this process, reads each task back)
    assert not engines._BY_FORK
    jobs.run_classify(source, tmp_path / "one.csv", chunk_size=8, chart=False)
    assert (tmp_path / "dask.csv").read_bytes() == (tmp_path / "one.csv").read_bytes()


class DyingOnceClassifier(FakeClassifier):
    """Dies on the chunk holding "adieu" the first time a process meets it (a marker file says
    it has been met), then classifies as FakeClassifier."""

    def __init__(self, marker, builds: int = 0):
        super().__init__(builds)
        self.marker = marker

    def classify(self, pairs):
        if any(text == "adieu" for _, text in pairs) and not self.marker.exists():
            self.marker.touch()
            os._exit(1)
        return super().classify(pairs)


@pytest.mark.skipif(not engines.FORKED_LOCAL_WORKERS, reason="the local cluster's workers are forked on Linux only")
def test_a_chunk_sent_as_its_key_to_a_worker_that_dies_on_it_is_classified_all_the_same(tmp_path):
    """A chunk sent as its key stays here until it is answered: when the worker given it dies,
    Dask gives it to another worker, or to the one it restarts, and the run ends as it would."""
    pytest.importorskip("distributed")
    chunks = make_chunks(6)
    chunks[2][0] = Msg("x", "adieu")
    classifier = DyingOnceClassifier(tmp_path / "died")
    classifier.learnt = True  # every chunk to the cluster, each as its key
    engines.share_by_fork(chunks)
    try:
        results = list(engines.run_chunks(classifier, chunks, engine="dask", jobs=2, spec=FakeSpec()))
        assert not engines._BY_FORK
    finally:
        engines.stop_sharing()
    assert (tmp_path / "died").exists()
    assert plain(results) == expected(chunks)


def test_a_worker_not_forked_from_here_is_sent_whole_what_it_was_given_as_a_key():
    """A worker started afresh (as Dask restarts one) does not hold what was shared by fork:
    given a key, it says so, and the item is sent again whole."""
    pytest.importorskip("distributed")
    chunks = make_chunks(5)
    engines.share_by_fork(chunks)
    try:
        with engines.DaskSession(2, None) as session:  # workers started afresh
            session._inherited = set(engines._BY_FORK)  # as if forked from here
            results = list(session.classify(FakeSpec(), chunks))
        assert not engines._BY_FORK
    finally:
        engines.stop_sharing()
    assert plain(results) == expected(chunks)


@dataclass
class _Chunk:
    """What a classifier gives back (as triage.classifier.ClassifiedChunk): its rows encoded."""

    text: str | bytes
    rows: int


class EncodingClassifier(FakeClassifier):
    def classify(self, pairs):
        return _Chunk("".join(f"{id_},{text}\r\n" for id_, text in pairs), len(pairs))


def test_a_worker_sends_its_encoded_rows_back_in_utf8():
    """Rows encoded in a worker come back as the UTF-8 bytes the output is written in (not as a
    string, decoded from the pipe here and encoded again to be written); here, they stay a string."""
    chunks = make_chunks(9)
    chunks[4][0] = Msg("x", "déjà vu, Zoé ✓")
    done = list(engines.run_chunks(EncodingClassifier(), chunks, jobs=2))
    expected = ["".join(f"{m.id},{m.text}\r\n" for m in chunk) for chunk in chunks]
    assert [chunk.text for chunk in done] == [text.encode("utf-8") for text in expected]
    assert EncodingClassifier().classify([(m.id, m.text) for m in chunks[4]]).text == expected[4]


def test_local_pool_error_keeps_its_type():
    chunks = make_chunks(6)
    chunks[3][0] = Msg("x", "illisible")
    with pytest.raises(InputError, match="^message x: texte illisible$"):
        list(engines.run_chunks(FakeClassifier(fail_on="illisible"), chunks, jobs=2))


class DyingClassifier(FakeClassifier):
    def classify(self, pairs):
        if any(text == "adieu" for _, text in pairs):
            os._exit(1)  # a worker killed mid-chunk (out of memory, say)
        return super().classify(pairs)


def test_a_pool_worker_that_dies_stops_the_run_instead_of_hanging():
    chunks = make_chunks(6)
    chunks[2][0] = Msg("x", "adieu")
    with pytest.raises(InputError, match="worker process died"):
        list(engines.run_chunks(DyingClassifier(), chunks, jobs=2))


class WaitingClassifier(FakeClassifier):
    """Classifies as FakeClassifier (two chunks at once: its rows say the ids of the batch); a
    message "lent" makes it wait until the message "last" has been classified, in
    whichever worker (a file `signal` says so), at most 30 seconds."""

    def __init__(self, signal: Path):
        super().__init__()
        self.signal = signal

    def classify(self, pairs):
        pairs = list(pairs)
        if any(text == "lent" for _, text in pairs):
            deadline = time.monotonic() + 30
            while not self.signal.exists() and time.monotonic() < deadline:
                time.sleep(0.01)
        rows = super().classify(pairs)
        if any(text == "last" for _, text in pairs):
            self.signal.touch()
        return rows

    def classify_parts(self, messages, sizes):
        parts = super().classify_parts(messages, sizes)
        for row in (row for part in parts for row in part):
            row["batch"] = " ".join(r["id"] for part in parts for r in part)
        return parts


def test_the_last_chunks_kept_are_classified_by_whichever_worker_is_free_first(tmp_path):
    """The last chunks kept (a batch of them at most) go to every worker once the others are given:
    a worker held up by a chunk that costs more does not keep the last chunks it counted for
    itself; the other, done first, classifies them (its own first, two at once where they fit in
    the batch, then the others' from the last, each alone), and the rows come in input order all
    the same. The chunks before are classified by the worker that keeps them, two at once where
    they fit in the batch."""
    texts = ["lent", "a", "b", "c", "d", "e", "f", "last"]  # the worker that keeps the first waits for the last
    chunks = [[Msg(f"m{at}", text)] for at, text in enumerate(texts)]
    with engines.KeepingPool(WaitingClassifier(tmp_path / "signal"), 2, batch=(4, 10**6)) as pool:
        assert len(list(pool.count(((chunk, True) for chunk in chunks), 16))) == len(chunks)
        assert [pool._counted_by[at] for at in range(8)] == [0, 1] * 4
        assert list(pool._held) == [4, 5, 6, 7]  # four messages: a batch
        kept = [engines.KeptChunk(chunk, at) for at, chunk in enumerate(chunks)]
        results = list(pool.classify(kept, None))
    assert plain(results) == expected(chunks)
    by = [rows[0]["pid"] for rows in results]
    assert by[0] == by[2] != by[1] == by[3]  # each of the first four by the worker that kept it
    assert by[4:] == [by[1]] * 4  # the last four by the worker done first, those of the other too
    batches = [rows[0].get("batch") for rows in results]
    assert batches == ["m0 m2", "m1 m3", "m0 m2", "m1 m3", None, "m5 m7", None, "m5 m7"]


def test_with_more_workers_than_cores_each_worker_classifies_the_last_chunks_it_keeps(monkeypatch):
    """Where the workers outnumber the cores, the cores are busy to the end all the same: no chunk
    is held for any worker to take (taken, it would be folded, cut and learnt again), and each
    worker classifies every chunk it keeps, two at once where they fit."""
    monkeypatch.setattr(engines, "usable_cores", lambda: 1)
    chunks = [[Msg(f"m{at}", f"salut {at}")] for at in range(8)]
    with engines.KeepingPool(FakeClassifier(), 2, batch=(4, 10**6)) as pool:
        assert len(list(pool.count(((chunk, True) for chunk in chunks), 16))) == len(chunks)
        assert pool._held == {}
        kept = [engines.KeptChunk(chunk, at) for at, chunk in enumerate(chunks)]
        results = list(pool.classify(kept, None))
    assert plain(results) == expected(chunks)
    by = [rows[0]["pid"] for rows in results]
    assert by[0::2] == [by[0]] * 4 and by[1::2] == [by[1]] * 4 and by[0] != by[1]


@pytest.mark.parametrize("dies_on", [5, 6], ids=["its-own", "another's"])
def test_a_worker_that_dies_on_one_of_the_last_chunks_stops_the_run_instead_of_hanging(dies_on):
    """A worker that dies on one of the last chunks, which any worker may take (its own or another's),
    stops the run with the one-line error of a worker that died."""
    chunks = [[Msg(f"m{at}", "adieu" if at == dies_on else f"salut {at}")] for at in range(8)]
    with engines.KeepingPool(DyingClassifier(), 2, batch=(4, 10**6)) as pool:
        assert len(list(pool.count(((chunk, True) for chunk in chunks), 16))) == len(chunks)
        assert list(pool._held) == [4, 5, 6, 7]
        kept = [engines.KeptChunk(chunk, at) for at, chunk in enumerate(chunks)]
        with pytest.raises(InputError, match="worker process died"):
            list(pool.classify(kept, None))


def test_a_keeping_pool_gives_a_chunk_to_the_worker_with_the_fewest_waiting():
    """A worker held up by a long chunk is not given the next ones while another waits for none."""
    with engines.KeepingPool(None, 2) as pool:
        pool._start(2)
        slow, waiting = pool._submit(None, time.sleep, 3.0)
        quick, answered = pool._submit(None, abs, -1)
        assert (slow, quick) == (0, 1) and answered.result() == 1
        deadline = time.monotonic() + 2.0
        while pool._waiting[1] and time.monotonic() < deadline:  # the answer counted (just after it is given)
            time.sleep(0.01)
        assert pool._waiting == [1, 0] and not waiting.done()
        assert [pool._submit(None, abs, -k)[0] for k in range(2)] == [1, 0]
        waiting.result()


def test_the_last_chunks_are_cut_again_into_equal_parts_for_the_workers(monkeypatch):
    """The last two chunks (the last one short) come as parts of equal length, as many as the
    workers take (or as their items allow), every item once and in order; a few items stay whole."""
    monkeypatch.setattr(engines, "TAIL_PART", 2)
    chunks = [list(range(at, min(at + 5, 17))) for at in range(0, 17, 5)]  # 5, 5, 5, 2
    parts = list(engines.even_tail(iter(chunks), 2))
    assert parts[:2] == chunks[:2]
    assert [len(part) for part in parts[2:]] == [3, 2, 2]  # seven items: at most two parts a worker, of two or more
    assert [item for part in parts for item in part] == list(range(17))
    monkeypatch.setattr(engines, "TAIL_PART", 500)
    assert list(engines.even_tail(iter(chunks), 2)) == chunks[:2] + [list(range(10, 17))]
    assert list(engines.even_tail(iter([]), 2)) == []


def test_a_keeping_pool_gives_a_kept_chunk_to_the_worker_that_keeps_the_fewest_messages():
    """A worker classifies the chunks it keeps: chunks of unequal length are given so that the two
    keep about as many messages, whichever answers first."""
    sizes = [6, 2, 2, 2, 2, 1, 1]
    chunks = [([(str(k), "Salut Julie")] * size, True) for k, size in enumerate(sizes)]
    with engines.KeepingPool(None, 2) as pool:
        assert len(list(pool.count(iter(chunks), 16))) == len(sizes)
        kept = [0, 0]
        for at, worker in pool._counted_by.items():
            kept[worker] += sizes[at]
    assert kept == [8, 8]


@pytest.mark.parametrize("failed", [True, False], ids=["failed", "done"])
def test_a_keeping_pool_stopped_before_its_first_chunk_leaves_no_worker_running(failed):
    """A Ctrl-C between the fork of the workers and the first chunk given: no worker is left
    waiting for work, which the command would wait for at its exit, forever."""
    pool = engines.KeepingPool(None, 2)
    pool._start(2)
    workers = [process for each in pool._pools for process in each._processes.values()]
    assert len(workers) == 2 and all(worker.is_alive() for worker in workers)
    pool.close(failed)
    assert not any(worker.is_alive() for worker in workers)


def test_a_keeping_pool_told_to_stop_ends_its_workers_without_waiting_and_close_waits_for_them():
    with engines.KeepingPool(None, 1) as pool:
        pool._start(1)
        _, sleeping = pool._submit(None, time.sleep, 1.0)
        process = next(iter(pool._pools[0]._processes.values()))
        started = time.monotonic()
        pool.stop()
        assert time.monotonic() - started < 0.5 and process.is_alive()
        pool.close()
        assert sleeping.done() and not process.is_alive()


_count_kept = engines._count_kept


def _dies_counting(index, pairs, keep):
    """engines._count_kept in a worker, which dies on the third chunk (module-level: a pool pickles
    the function it runs by its name)."""
    if index == 2:
        os._exit(1)
    return _count_kept(index, pairs, keep)


def test_a_worker_that_dies_counting_the_statistics_stops_the_run_with_nothing_written(tmp_path, monkeypatch):
    from triage import jobs

    source = tmp_path / "sms.csv"
    source.write_text("id,text\n" + "".join(f"{k},Salut Julie {k}\n" for k in range(40)), encoding="utf-8")
    monkeypatch.setattr(engines, "_count_kept", _dies_counting)
    with pytest.raises(InputError, match="worker process died"):
        jobs.run_classify(source, tmp_path / "out.csv", jobs=2, chunk_size=8, chart=False)
    assert sorted(path.name for path in tmp_path.iterdir()) == ["sms.csv"]


def test_dask_on_its_own_local_cluster():
    pytest.importorskip("distributed")
    chunks = make_chunks(50)
    pulled = [0]
    results = engines.run_chunks(None, counting(chunks, pulled), engine="dask", jobs=2, spec=FakeSpec())
    results = consume_bounded(results, pulled, 4)
    assert plain(results) == expected(chunks)
    pids = {r["pid"] for rows in results for r in rows}
    assert os.getpid() not in pids and 1 <= len(pids) <= 2
    assert {r["builds"] for rows in results for r in rows} == {1}  # one build per worker process
    # The workers keep distributed's environment but not its memory trimming, which costs classify
    # a third more CPU (freed memory handed back to the system at once, and taken again).
    assert {(r["trim"], r["omp"]) for rows in results for r in rows} == {(os.environ.get("MALLOC_TRIM_THRESHOLD_"), "1")}
    # Nor the sampling profiler, which feeds a dashboard the local cluster does not have.
    assert {r["profiled"] for rows in results for r in rows} == {False}


@pytest.mark.skipif(not engines.FORKED_LOCAL_WORKERS, reason="the local cluster's workers are forked on Linux only")
def test_a_local_cluster_forks_its_workers_with_the_classifier_that_classified_the_first_chunk():
    """As the fork pool: the first chunk is classified here, and the workers, forked afterwards,
    classify the others with this process's classifier (what it learnt is theirs) instead of
    building one from the spec."""
    pytest.importorskip("distributed")
    chunks = make_chunks(12)
    results = list(engines.run_chunks(FakeClassifier(builds=0), chunks, engine="dask", jobs=2, spec=FakeSpec()))
    assert plain(results) == expected(chunks)
    assert {r["pid"] for r in results[0]} == {os.getpid()}
    workers = {r["pid"] for rows in results[1:] for r in rows}
    assert workers and os.getpid() not in workers
    assert {r["builds"] for rows in results for r in rows} == {0}  # no worker built a classifier of its own
    assert engines._built is None  # this process keeps no classifier once the workers have theirs


def test_dask_on_a_scheduler_builds_once_per_spec(cluster):
    chunks = make_chunks(20)
    spec = FakeSpec()
    runs = [list(engines.run_chunks(None, chunks, engine="dask", spec=s, scheduler=cluster.scheduler_address))
            for s in (spec, spec, FakeSpec())]
    for results in runs:
        assert plain(results) == expected(chunks)
    builds = [{(r["pid"], r["builds"]) for rows in results for r in rows} for results in runs]
    assert builds[0] == builds[1]  # the same spec again: the workers' classifiers are reused
    first = dict(builds[0])
    for pid, count in builds[2]:  # a new spec: built anew, once
        assert count == first[pid] + 1 if pid in first else count >= 1


def test_dask_task_error_keeps_its_type_and_message(cluster):
    chunks = make_chunks(12)
    chunks[7][1] = Msg("m-bad", "illisible")
    results = engines.run_chunks(None, chunks, engine="dask", spec=FakeSpec(fail_on="illisible"),
                                 scheduler=cluster.scheduler_address)
    with pytest.raises(InputError, match="^message m-bad: texte illisible$"):
        list(results)


def test_dask_unreachable_scheduler_is_one_line():
    pytest.importorskip("distributed")
    import dask

    with dask.config.set({"distributed.comm.timeouts.connect": "1s"}):
        with pytest.raises(InputError, match="^no dask scheduler answered at tcp://127.0.0.1:9 within"):
            list(engines.run_chunks(None, make_chunks(2), engine="dask", spec=FakeSpec(),
                                    scheduler="tcp://127.0.0.1:9"))


def test_a_service_that_is_not_a_dask_scheduler_is_one_line_within_the_bound(monkeypatch):
    """It accepts the connection and never answers: without a bound Client() waits forever."""
    import socket

    pytest.importorskip("distributed")
    monkeypatch.setattr(engines, "SCHEDULER_WAIT_SECONDS", 1)
    with socket.create_server(("127.0.0.1", 0)) as silent:
        address = f"tcp://127.0.0.1:{silent.getsockname()[1]}"
        with pytest.raises(InputError, match=f"^no dask scheduler answered at {address} within 1 s"):
            list(engines.run_chunks(None, make_chunks(2), engine="dask", spec=FakeSpec(), scheduler=address))


def test_dask_malformed_address_is_one_line():
    pytest.importorskip("distributed")
    with pytest.raises(InputError, match="^'tcp://127.0.0.1:abc' is not a dask scheduler address"):
        list(engines.run_chunks(None, make_chunks(2), engine="dask", spec=FakeSpec(), scheduler="tcp://127.0.0.1:abc"))


def test_dask_scheduler_without_workers_is_one_line(monkeypatch):
    distributed = pytest.importorskip("distributed")
    monkeypatch.setattr(engines, "WORKER_WAIT_SECONDS", 0.5)
    with distributed.LocalCluster(n_workers=0, **engines.LOCAL_CLUSTER_OPTIONS) as empty:
        with pytest.raises(InputError, match="^no dask worker joined the scheduler at tcp://127.0.0.1:"):
            list(engines.run_chunks(None, make_chunks(2), engine="dask", spec=FakeSpec(),
                                    scheduler=empty.scheduler_address))


def test_missing_dask_is_an_input_error(monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)
    with pytest.raises(InputError, match=r"^the dask engine needs the 'dask' extra: pip install -e \"\.\[dask\]\"$"):
        engines.run_chunks(None, make_chunks(2), engine="dask", spec=FakeSpec())


def test_unknown_engine_is_an_input_error():
    with pytest.raises(InputError, match="^unknown engine 'spark'"):
        engines.run_chunks(FakeClassifier(), make_chunks(2), engine="spark")


def test_spec_is_small_and_absolute(tmp_path, monkeypatch):
    import pickle

    from triage.lexicons import USER_DIR_ENV
    from triage.model.names import CorpusStats

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv(USER_DIR_ENV, str(tmp_path / "mes-mots"))
    spec = engines.ClassifierSpec("model.triage", "budget", 0.05, CorpusStats().add(["salut ça va", "bisous"]))
    assert spec.model_path == str(tmp_path / "model.triage")
    assert spec.user_lexicon_dir == str(tmp_path / "mes-mots")
    copy = pickle.loads(pickle.dumps(spec))
    assert (copy.token, copy.policy, copy.stats.messages) == (spec.token, "budget", 2)
    assert [copy.stats.count(word) for word in ("salut", "ça", "va", "bisous", "nicolas")] == [1, 1, 1, 1, 0]
    assert len(pickle.dumps(spec)) < 1000


@pytest.fixture
def recorded_builds(monkeypatch):
    """ClassifierSpec.build without loading anything: what the Classifier was built with."""
    from triage import classifier, lexicons, model

    seen = []

    class Recorder:
        def __init__(self, predictor, policy, budget, stats=None, output_format="csv", hide=(), known_names=None):
            seen.append((predictor, policy, budget, stats, lexicons.default_user_directory(), hide))

    class Default:
        cache_clear = staticmethod(lambda: seen.append("cache cleared"))

    monkeypatch.setattr(model, "load_predictor", lambda path: ("predictor", path))
    monkeypatch.setattr(classifier, "Classifier", Recorder)
    monkeypatch.setattr(lexicons, "default", Default)
    return seen


def test_spec_builds_with_the_parents_user_lexicon(tmp_path, recorded_builds):
    (tmp_path / "model.triage").write_bytes(b"modele")
    (tmp_path / "mes-mots").mkdir()
    (tmp_path / "mes-mots" / "names.txt").write_text("kevin\n", encoding="utf-8")
    spec = engines.ClassifierSpec(tmp_path / "model.triage", None, 0.2, user_lexicon_dir=str(tmp_path / "mes-mots"),
                                  hide=("PRE", "LIE"))
    spec.build()
    spec.build()
    # The workers hide what the parent was asked to hide.
    built = (("predictor", tmp_path / "model.triage"), None, 0.2, None, tmp_path / "mes-mots", ("PRE", "LIE"))
    # The lexicons loaded with another user directory are dropped, once.
    assert recorded_builds == ["cache cleared", built, built]


def test_a_worker_seeing_other_files_refuses(tmp_path, recorded_builds):
    model_file, names = tmp_path / "model.triage", tmp_path / "mes-mots" / "names.txt"
    model_file.write_bytes(b"modele")
    names.parent.mkdir()
    names.write_text("kevin\n", encoding="utf-8")
    spec = engines.ClassifierSpec(model_file, user_lexicon_dir=str(names.parent))
    names.write_text("kevin\nmaelys\n", encoding="utf-8")
    with pytest.raises(InputError, match=f"^the user lexicon {names.parent} on .* is not the parent's: copy"):
        spec.build()
    spec = engines.ClassifierSpec(model_file, user_lexicon_dir=str(names.parent))
    model_file.write_bytes(b"autre modele")
    with pytest.raises(InputError, match=f"^the model {model_file} on .* is not the parent's"):
        spec.build()
    assert [r for r in recorded_builds if r != "cache cleared"] == []


# ---------------------------------------------------------------- through the command line


def test_classify_on_dask_writes_what_the_local_run_writes(cli, tmp_path):
    from conftest import SAMPLE

    local, distributed = tmp_path / "local.csv", tmp_path / "dask.csv"
    assert cli("classify", SAMPLE, "-o", local).exit_code == 0
    result = cli("classify", SAMPLE, "-o", distributed, "--engine", "dask", "--jobs", "2")
    assert result.exit_code == 0, result.output
    assert distributed.read_bytes() == local.read_bytes()
    assert "expert budget: 10% asked (26 messages), 26 sent (10.00%)" in result.output  # exact on dask too


def test_on_a_scheduler_the_workers_count_the_statistics_and_the_output_is_the_local_runs(cli, tmp_path, cluster,
                                                                                         monkeypatch):
    from conftest import SAMPLE

    from triage.model.names import CorpusStats

    local, distributed = tmp_path / "local.csv", tmp_path / "dask.csv"
    assert cli("classify", SAMPLE, "-o", local).exit_code == 0

    def counted_here(*_):
        raise AssertionError("the statistics pass counted in the parent process")

    monkeypatch.setattr(CorpusStats, "add_folded", counted_here)  # the workers are other processes
    result = cli("classify", SAMPLE, "-o", distributed, "--engine", "dask", "--scheduler", cluster.scheduler_address)
    assert result.exit_code == 0, result.output
    assert distributed.read_bytes() == local.read_bytes()


def _workers_ignoring_ctrl_c(pid: int) -> int:
    """How many processes started by `pid` ignore SIGINT (the local cluster's workers, once
    started), by Linux's /proc: a process's children are listed under the thread that started
    them. multiprocessing's resource tracker, which ignores it too, is not counted."""
    workers = 0
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            children = (task / "children").read_text().split()
        except OSError:
            continue
        for child in children:
            try:
                command = Path(f"/proc/{child}/cmdline").read_bytes()
                status = dict(line.split(":", 1) for line in Path(f"/proc/{child}/status").read_text().splitlines()
                              if ":" in line)
            except OSError:
                continue
            ignored = int(status.get("SigIgn", "0").strip(), 16) & (1 << (signal.SIGINT - 1))
            workers += bool(b"resource_tracker" not in command and ignored)
    return workers


def test_a_ctrl_c_while_the_client_connects_closes_the_client_with_the_cluster(monkeypatch):
    """A Ctrl-C pressed while the local cluster's client connects is answered once it has
    connected: the client is closed with the cluster, not left to try again at exit (for a
    minute, with a traceback, its cluster gone)."""
    distributed = pytest.importorskip("distributed")
    made = []
    start = distributed.Client.start

    def interrupted(self, **kwargs):
        made.append(self)
        os.kill(os.getpid(), signal.SIGINT)  # Ctrl-C, while it connects
        return start(self, **kwargs)

    monkeypatch.setattr(distributed.Client, "start", interrupted)
    with pytest.raises(KeyboardInterrupt):
        engines.DaskSession(1, None).__enter__()
    assert len(made) == 1 and made[0].status == "closed"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Ctrl-C sent to a process group")
def test_a_real_ctrl_c_on_the_dask_engine_is_one_line_and_the_workers_go(tmp_path):
    """Ctrl-C reaches every process of the command, the local cluster's workers too: they leave it
    to the parent, which closes the cluster. One line, no traceback, no worker left."""
    source = tmp_path / "sms.csv"
    with source.open("w", encoding="utf-8") as handle:
        handle.write("id,text\n")
        for i in range(80_000):  # each message a spelling of its own to learn: seconds of work
            handle.write(f"{i},slt Julie{i % 97} tu viens au ciné {i % 13} ce soir ? bisous Zorane{i}\n")
    process = subprocess.Popen([sys.executable, "-m", "triage", "classify", str(source), "-o", str(tmp_path / "c.csv"),
                                "--no-chart", "--engine", "dask", "--jobs", "2"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    waited = time.monotonic()
    while time.monotonic() - waited < 120 and process.poll() is None and _workers_ignoring_ctrl_c(process.pid) < 2:
        time.sleep(0.05)  # until both workers have started and leave Ctrl-C to the parent
    assert process.poll() is None, "the run ended before its workers were seen"
    time.sleep(0.3)
    os.killpg(process.pid, signal.SIGINT)
    out, err = process.communicate(timeout=120)
    assert process.returncode == 130, out + err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1 and err.startswith("Interrupted:"), err
    assert not (tmp_path / "c.csv").exists()
    waited = time.monotonic()
    while time.monotonic() - waited < 10 and subprocess.run(["pgrep", "-g", str(process.pid)],
                                                             capture_output=True).stdout:
        time.sleep(0.1)
    left = subprocess.run(["pgrep", "-a", "-g", str(process.pid)], capture_output=True, text=True).stdout
    assert left == "", left  # no worker left behind


def test_a_scheduler_without_the_dask_engine_is_one_line(cli, tmp_path):
    from conftest import SAMPLE

    result = cli("classify", SAMPLE, "-o", tmp_path / "out.csv", "--scheduler", "tcp://127.0.0.1:8786")
    assert result.exit_code == 1
    assert result.output.strip() == "Error: --scheduler is for --engine dask"
    assert not (tmp_path / "out.csv").exists()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG is Linux's")
def test_workers_die_with_a_killed_parent(tmp_path):
    """A run killed with SIGKILL (no clean-up at all) must not leave its --jobs workers alive."""
    script = (
        "import os, signal, sys, threading, time\n"
        "from pathlib import Path\n"
        "from triage.engines import fork_map\n"
        "def kill_when_workers_run():\n"
        "    for _ in range(200):\n"
        "        children = [c for t in Path('/proc/self/task').iterdir()\n"
        "                    for c in (t / 'children').read_text().split()]\n"
        "        if len(children) >= 2:\n"
        "            break\n"
        "        time.sleep(0.05)\n"
        "    time.sleep(0.5)\n"
        "    print(' '.join(children), flush=True)\n"
        "    os.kill(os.getpid(), signal.SIGKILL)\n"
        "threading.Thread(target=kill_when_workers_run, daemon=True).start()\n"
        "for _ in fork_map(time.sleep, [60, 60, 60, 60], 2):\n"
        "    pass\n"
    )
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert run.returncode == -signal.SIGKILL, run.stderr
    workers = [int(pid) for pid in run.stdout.split()]
    assert len(workers) >= 2
    for _ in range(100):  # the kernel signals them at once; allow a loaded machine a few seconds
        alive = [pid for pid in workers if _running(pid)]
        if not alive:
            break
        time.sleep(0.1)
    assert not alive, f"workers {alive} outlived their parent"


def _running(pid: int) -> bool:
    try:  # a zombie (state Z) is dead, only not yet reaped
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


def _pool_threads() -> list:
    import threading
    from concurrent.futures import process

    return [thread for thread in threading.enumerate() if isinstance(thread, process._ExecutorManagerThread)]


class Calling:
    """A classifier that answers each chunk (anything) with function(chunk)."""

    def __init__(self, function):
        self.function = function

    def classify(self, chunk):
        return self.function(chunk)


def _pooled(pool: str, function, items, jobs: int):
    """function(item) for each item in a fork pool: fork_map's, or a KeepingPool's (run_chunks')."""
    if pool == "fork_map":
        return engines.fork_map(function, items, jobs, in_flight=jobs)
    return engines.run_chunks(Calling(function), items, jobs=jobs)


POOLS = ["fork_map", "keeping"]


@pytest.mark.parametrize("pool", POOLS)
def test_a_caller_that_stops_reading_stops_the_pool_there(pool):
    """A caller that stops reading (Ctrl-C while it writes a chunk, an error) closes the pool and
    waits for its workers then: a pool left stopping them at exit closes its pipe while the
    interpreter writes to it, which prints a traceback under Ctrl-C's one-line answer."""
    results = _pooled(pool, abs, range(-1, -40, -1), 2)
    assert next(results) == 1
    results.close()
    assert not _pool_threads()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the workers are found in /proc")
@pytest.mark.parametrize("pool", POOLS)
def test_a_second_ctrl_c_cuts_short_the_wait_for_work_under_way(pool):
    """Stopped before the end, the pool waits for the chunk each worker holds (a hostile message
    may take minutes): a second Ctrl-C cuts that wait short."""
    import threading

    def children() -> set[int]:
        tasks = Path("/proc/self/task").iterdir()
        return {int(pid) for task in tasks for pid in (task / "children").read_text().split()}

    before = children()  # (this process's other children, such as multiprocessing's resource tracker)
    results = _pooled(pool, time.sleep, [0, 30, 30, 30], 2)
    assert next(results) is None
    workers = children() - before
    assert len(workers) == 2
    # Python's own handler of Ctrl-C, in the C library too: a library another test loaded (polars,
    # by the Python API's tests) puts its own there, under which a wait is not interrupted.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGINT)).start()
    started = time.monotonic()
    try:
        with pytest.raises(KeyboardInterrupt):
            results.close()
        assert time.monotonic() - started < 20
    finally:
        for pid in workers:  # the sleeping workers, stopped for the tests that follow
            os.kill(pid, signal.SIGKILL)
    for _ in range(200):
        if not _pool_threads():
            break
        time.sleep(0.05)
    assert not _pool_threads()


@pytest.mark.skipif(not hasattr(signal, "pthread_sigmask"), reason="Ctrl-C is held back with pthread_sigmask")
@pytest.mark.parametrize("pool", POOLS)
def test_a_ctrl_c_as_the_pool_stops_still_waits_for_its_workers(monkeypatch, pool):
    """Ctrl-C pressed while the pool waits for its workers to stop is answered once they have."""
    from concurrent.futures import process

    stop, wait = process.ProcessPoolExecutor.shutdown, process._ExecutorManagerThread.join

    def pressed_as_it_stops(executor, wait=True, **options):
        if wait:
            signal.raise_signal(signal.SIGINT)
        return stop(executor, wait, **options)

    def pressed_as_it_waits(thread, *options):  # a KeepingPool waits for the thread that stops its worker
        signal.raise_signal(signal.SIGINT)
        return wait(thread, *options)

    monkeypatch.setattr(process.ProcessPoolExecutor, "shutdown", pressed_as_it_stops)
    monkeypatch.setattr(process._ExecutorManagerThread, "join", pressed_as_it_waits)
    with pytest.raises(KeyboardInterrupt):
        assert list(_pooled(pool, abs, [-1, -2, -3], 2)) == [1, 2, 3]
    assert not _pool_threads()


def test_chunks_are_joined_two_by_two_only_where_the_two_fit_and_are_alike():
    from triage.classifier import FoldedPairs
    from triage.jobs import _two_by_two
    from triage.text.normalise import fold_batch

    def plain(first, count, text="abcd"):
        return [(str(k), text) for k in range(first, first + count)]

    def folded(first, count):
        pairs = plain(first, count)
        texts, maps = fold_batch([text for _, text in pairs])
        return FoldedPairs(pairs, texts, maps, None)

    chunks = [plain(0, 2), plain(2, 2), plain(4, 2), plain(6, 3), plain(9, 2), folded(11, 2), plain(13, 2), plain(15, 2)]
    joined = _two_by_two(chunks, (4, 100), tail=1)
    # The first alone; 2+4 join; 6+9 would hold five messages; 9+11 are not alike; 11+13 neither; 13+15 would
    # pass into the tail.
    assert [[ident for ident, _ in chunk] for chunk in joined] == [
        ["0", "1"], ["2", "3", "4", "5"], ["6", "7", "8"], ["9", "10"], ["11", "12"], ["13", "14"], ["15", "16"]]
    assert [type(chunk) for chunk in joined] == [list] * 4 + [FoldedPairs] + [list] * 2
    assert sum(joined, []) == sum(chunks, [])
    # After the first, two messages of "abcd" join within eight characters, not within seven.
    assert len(_two_by_two([plain(0, 1), plain(1, 1), plain(2, 1)], (10, 8), tail=0)) == 2
    assert len(_two_by_two([plain(0, 1), plain(1, 1), plain(2, 1)], (10, 7), tail=0)) == 3
    assert [len(chunk) for chunk in _two_by_two([folded(0, 1), folded(1, 2), folded(3, 1)], (10, 100), 0)] == [1, 3]
