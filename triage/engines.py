"""How chunks of messages are run: in this process, in a fork pool, or on a Dask cluster.

Reading, validation and writing stay in the parent process (triage.io: order, atomic
output); an engine only runs ``Classifier.classify`` on lists of ``(id, text)`` pairs and
gives the encoded chunks back in input order, with a bounded number of chunks in flight.

A Dask worker never receives the Classifier (its tables and caches are large and belong to
one process): it receives a small ``ClassifierSpec`` and builds its own Classifier once per
process.
dask and distributed are imported only when the dask engine is used (``triage classify``
must start in under 0.5 s).
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import itertools
import os
import sys
import threading
import uuid
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from triage.errors import BadInput, BadModel, BadOption
from triage.schema import DEFAULT_HIDE

if TYPE_CHECKING:
    from triage.model.names import CorpusStats

ENGINES = ("local", "dask")
DASK_MISSING = "the dask engine needs the 'dask' extra: pip install -e \".[dask]\""
WORKER_WAIT_SECONDS = 60  # for a worker to join an existing scheduler
SCHEDULER_WAIT_SECONDS = 10  # to connect and shake hands with a --scheduler
# Where the local cluster's workers may be forked from the parent (DaskSession(forked=True)): Linux.
# Elsewhere they start afresh (spawn), as on a scheduler's machines: macOS forks badly once a
# process has threads (the cluster's event loop runs in one), and Windows cannot fork.
FORKED_LOCAL_WORKERS = sys.platform.startswith("linux")
# The local cluster listens on loopback only; the scheduler's HTTP server (health checks, no
# dashboard) takes a free port instead of 8787, so that runs side by side do not collide.
LOCAL_CLUSTER_OPTIONS = dict(
    threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=None,
    scheduler_kwargs={"dashboard": False, "dashboard_address": "127.0.0.1:0"},
    # The workers log errors only: their warnings (a task cancelled because Ctrl-C closes the
    # cluster, an event loop held by a long chunk) are none of the user's business.
    silence_logs=40,  # logging.ERROR
    preload=["triage.engines"],  # dask_setup: the workers leave Ctrl-C to this process
)


def _user_lexicon_dir() -> str | None:
    from triage.lexicons import USER_DIR_ENV

    return os.environ.get(USER_DIR_ENV) or None


def _user_lexicon_files(value: str | None) -> list[Path]:
    """The user lexicon files triage.lexicons reads when TRIAGE_USER_LEXICON_DIR is `value`."""
    from triage import lexicons

    folder = Path(value) if value else lexicons.default_user_directory()
    return [folder / lexicons.USER_NAMES_FILE, folder / lexicons.USER_WORDS_FILE]


def _digest(paths: Iterable[Path]) -> str:
    digest = hashlib.sha256()
    for path in paths:
        try:
            digest.update(path.read_bytes() if path.is_file() else b"\0missing" if not path.exists() else b"\0other")
        except OSError as error:
            raise BadInput(f"cannot read {path}: {error.strerror or error}") from None
        digest.update(b"\0")
    return digest.hexdigest()


@dataclass(frozen=True)
class ClassifierSpec:
    """What a remote worker needs to build the parent's Classifier: small and picklable.
    The token names one run's classifier in the workers' cache; the digests of the parent's
    model file and user lexicon let a worker that sees other files refuse to classify
    (different learnt names would silently leave names readable)."""

    model_path: str
    policy: str | None = None
    budget: float | None = 0.10  # None: the parent ranks the corpus (Classifier)
    stats: CorpusStats | None = None
    user_lexicon_dir: str | None = field(default_factory=_user_lexicon_dir)
    token: str = field(default_factory=lambda: uuid.uuid4().hex)
    model_digest: str = ""
    user_lexicon_digest: str = ""
    output_format: str = "csv"  # what the workers encode their rows in
    hide: tuple[str, ...] = DEFAULT_HIDE  # the categories to hide (--hide)
    known_names: Any = None  # a triage.seekhide.KnownNames (--known-names), or None
    keep_cells: bool = False  # the chunks also carry their rows' cells (classify --workspace)

    def __post_init__(self):
        # Workers do not share the parent's working directory.
        object.__setattr__(self, "model_path", str(Path(self.model_path).resolve()))
        if not self.model_digest:
            object.__setattr__(self, "model_digest", _digest([Path(self.model_path)]))
        if not self.user_lexicon_digest:
            object.__setattr__(self, "user_lexicon_digest", _digest(_user_lexicon_files(self.user_lexicon_dir)))

    def __getstate__(self) -> dict:
        # Without known names the spec pickles without the field (the class holds the default, None).
        state = dict(self.__dict__)
        if state.get("known_names") is None:
            state.pop("known_names", None)
        return state

    def build(self):
        """The parent's Classifier, rebuilt in this process (once per run and worker)."""
        import socket

        from triage import lexicons, model
        from triage.classifier import Classifier

        wanted = self.user_lexicon_dir
        if os.environ.get(lexicons.USER_DIR_ENV) != wanted:
            if wanted is None:
                os.environ.pop(lexicons.USER_DIR_ENV, None)
            else:
                os.environ[lexicons.USER_DIR_ENV] = wanted
            lexicons.default.cache_clear()  # loaded with another user directory
        here = socket.gethostname()
        if _digest([Path(self.model_path)]) != self.model_digest:
            raise BadModel(
                f"the model {self.model_path} on {here} is not the parent's: "
                "every worker needs the same model file at the same path"
            )
        files = _user_lexicon_files(self.user_lexicon_dir)
        if _digest(files) != self.user_lexicon_digest:
            raise BadInput(
                f"the user lexicon {files[0].parent} on {here} is not the parent's: copy the parent's "
                f"{' and '.join(f.name for f in files)} there, or set {lexicons.USER_DIR_ENV} to a shared folder"
            )
        predictor = model.load_predictor(Path(self.model_path))
        classifier = Classifier(predictor, self.policy, self.budget, stats=self.stats,
                                output_format=self.output_format, hide=self.hide, known_names=self.known_names)
        classifier.keep_cells = self.keep_cells
        return classifier


# The garbage collector's first threshold while a job runs (new containers between two collections
# of the youngest generation; Python's default is 700).
COLLECT_EVERY = 100_000


def fewer_collections(job):
    """Run `job` with the garbage collector's first threshold at COLLECT_EVERY new containers
    instead of 700. A job creates millions of short-lived containers but almost no reference
    cycles, and a collection goes through every young container, the lists of a whole batch
    (its texts, its stretches) included: at the default threshold, collecting took about a tenth
    of classify's time; at 10,000, 0.3 to 0.6 s of 86,000 generated messages (71 collections of
    the youngest generation, 6 of the next, 1 full); at 100,000, one collection, 0.06 to 0.1 s."""

    @functools.wraps(job)
    def run(*args, **kwargs):
        import gc

        threshold = gc.get_threshold()
        gc.set_threshold(COLLECT_EVERY, *threshold[1:])
        try:
            return job(*args, **kwargs)
        finally:
            gc.set_threshold(*threshold)

    return run



def check_engine(engine: str) -> None:
    """Refuse an unknown engine, or the dask engine without dask installed, before any work."""
    if engine not in ENGINES:
        raise BadOption(f"unknown engine {engine!r}; choose one of: {', '.join(ENGINES)}")
    if engine == "dask":
        try:
            import distributed  # noqa: F401
        except ImportError as error:
            if (error.name or "").partition(".")[0] not in ("dask", "distributed"):
                raise
            raise BadOption(DASK_MISSING) from None


def run_chunks(
    classifier,
    chunks: Iterable[Sequence],
    *,
    engine: str = "local",
    jobs: int = 1,
    spec: ClassifierSpec | None = None,
    scheduler: str | None = None,
    session: DaskSession | None = None,
    pool: KeepingPool | None = None,
) -> Iterator:
    """For each chunk (a list of (id, text) pairs), ``classifier.classify`` of it, in input
    order. The engine is checked now; the work starts on iteration.

    local: in this process (jobs <= 1) or by the workers of `pool` (a KeepingPool of `jobs`
    processes forked from this one, which may keep the chunks they counted; one is made if none
    is given), with `classifier`'s statistics and cells to keep. dask: on a
    cluster, each worker building its classifier from `spec`; on `session` (a DaskSession the
    caller opened) if given, else on the scheduler at `scheduler` if given, else on a local
    cluster of `jobs` worker processes, closed at the end. Given `classifier` (the spec's, built
    here), a local cluster's workers are forked from this process (where processes can be forked:
    Linux): it classifies the first chunk unless it has learnt it already, and the workers start
    with its classifier.
    """
    check_engine(engine)
    if engine == "dask":
        if spec is None:
            raise ValueError("the dask engine needs a ClassifierSpec")
        return _dask_chunks(spec, chunks, jobs, scheduler, session, classifier)
    if jobs > 1:
        return _pool_chunks(classifier, chunks, jobs, pool)
    return (classifier.classify(chunk) for chunk in chunks)


def _in_order(submit, chunks: Iterable[Sequence], in_flight: int) -> Iterator:
    """Results of submit(pairs) chunk by chunk, in input order, with at most `in_flight`
    chunks submitted and not yet yielded, so memory stays bounded whatever the corpus size."""
    pending: deque = deque()
    for chunk in chunks:
        pending.append(submit(chunk))
        if len(pending) >= in_flight:
            yield pending.popleft()
    while pending:
        yield pending.popleft()


# ---------------------------------------------------------------------- local: fork pool

_pool_worker = None

# What this process holds that the workers of the fork pools it starts from now on hold too (a
# forked process starts with a copy of its parent's memory): given to such a pool, an item of it is
# sent as its key, and the worker takes its own copy (share_by_fork).
_BY_FORK: dict[int, Any] = {}


class _Inherited(NamedTuple):
    """An item of _BY_FORK sent to a worker of a fork pool: its key."""

    key: int


class _NotInherited(Exception):
    """Raised by a worker given an item by its key (_Inherited) that the memory it started with
    does not hold: on Dask, a worker the cluster restarted, started afresh; the item is then sent
    whole (DaskSession._run)."""


def share_by_fork(items: Iterable) -> None:
    """Let the workers of the fork pools started from now on (fork_map), and those of a local
    Dask cluster forked from now on (DaskSession._run), take each of `items` from the memory they
    start with, when they are given it, instead of a copy pickled through a pipe. Before a local
    Dask cluster, these are the chunks the statistics pass kept, folded and cut, for its workers,
    forked afterwards: 12 MB of them for 86,000 messages, about 0.04 s to pickle here and 0.04 s
    to read back there. Each is let go of here once given (once answered, on Dask); the items
    not given are let go of by stop_sharing."""
    for item in items:
        _BY_FORK[id(item)] = item


def stop_sharing() -> None:
    """Let go of the items share_by_fork kept for pools that did not take them."""
    _BY_FORK.clear()


def _call(function, item):
    """In a worker of a fork pool: function(item), an item sent as its key taken from the memory
    the worker started with (_taken)."""
    return function(_taken(item))


def _taken(item):
    """In a worker: an item sent as its key (_Inherited), taken from the memory the worker started
    with (share_by_fork), or _NotInherited when that memory does not hold it; any other item as
    it is."""
    if isinstance(item, _Inherited):
        found = _BY_FORK.pop(item.key, None)
        if found is None:
            raise _NotInherited(item.key)
        return found
    return item


def _init_pool_worker(classifier, claims=None) -> None:
    global _pool_worker, _claims
    _pool_worker, _claims = classifier, claims


def _sent_back(done):
    """A chunk classified in a worker (triage.classifier.ClassifiedChunk), its encoded rows in
    UTF-8, the encoding of the output, with where its decision cells lie in those bytes
    (triage.io.writing.in_utf8). Sent as a string, they were encoded into the pickle here,
    decoded from it in the parent, then encoded again to be written: for 86,000 messages, 18 MB
    and about 0.045 s of the parent's time; and the parent worked out the cells' offsets in
    bytes once every row was ranked, alone at the end of the run (about 0.01 s)."""
    from triage.io.writing import in_utf8

    return in_utf8(done)


def _pool_chunks(classifier, chunks: Iterable[Sequence], jobs: int, pool: KeepingPool | None) -> Iterator:
    """The chunks classified by the workers of `pool`, or of a KeepingPool of `jobs` made here."""
    stats, keep_cells = getattr(classifier, "stats", None), getattr(classifier, "keep_cells", False)
    if pool is not None:
        yield from pool.classify(chunks, stats, keep_cells)
        return
    with KeepingPool(classifier, jobs) as made:
        yield from made.classify(chunks, stats, keep_cells)


def _start_worker(parent: int, initializer, initargs) -> None:
    die_with_parent(parent)
    leave_ctrl_c_to_the_parent()
    if initializer is not None:
        initializer(*initargs)


def leave_ctrl_c_to_the_parent() -> None:
    """In a worker process: ignore Ctrl-C (SIGINT), which reaches every process of the command.
    The parent answers it in one line and stops the workers (fork_map, DaskSession), instead of
    each worker printing its own traceback under that line."""
    import signal

    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    if hasattr(signal, "pthread_sigmask"):  # forked with Ctrl-C held back (ctrl_c_held_back): ignored from now on
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


@contextmanager
def ctrl_c_held_back():
    """Ctrl-C (SIGINT) held back in this thread while the block runs, then answered as usual: a
    process forked meanwhile starts with it held back until it ignores it (leave_ctrl_c_to_the_parent),
    instead of being interrupted, with a traceback, before it can."""
    import signal

    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    held = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, held)


def die_with_parent(parent: int) -> None:
    """Ask Linux to kill this worker when its parent dies, even by SIGKILL (a killed run
    must not leave workers holding hundreds of MB); elsewhere, workers notice a closed pipe."""
    if not sys.platform.startswith("linux"):
        return
    import ctypes
    import signal

    try:
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # 1 = PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        return
    if os.getppid() != parent:  # the parent died before the request: nothing will signal us
        os._exit(1)


def _worker_died() -> BadOption:
    """The one-line error of a run whose fork pool lost a worker."""
    return BadOption("a worker process died (out of memory?); nothing was written: retry with fewer --jobs")


def usable_cores() -> int:
    """The cores this process may run on (its CPU affinity where the system tells it)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def _at_most_one_worker_a_chunk(chunks: Iterable, jobs: int) -> tuple[Iterator, int]:
    """(the chunks, as many workers as there are chunks up to `jobs`): the first `jobs` chunks
    read ahead. A worker started for no chunk costs its start: with --jobs 16, 10,000 messages
    took a tenth longer than with --jobs 2, and 1,000 on a local Dask cluster 1.9 s instead of 1.1."""
    chunks = iter(chunks)
    head = list(itertools.islice(chunks, max(1, jobs)))
    return itertools.chain(head, chunks), min(jobs, len(head))


# The last chunks of a corpus cut again for the workers: into this many parts a worker, each of at
# least TAIL_PART items (a corpus of a few messages is not spread over processes for nothing).
TAIL_PARTS_A_WORKER = 2
TAIL_PART = 500


def even_tail(chunks: Iterable[list], workers: int) -> Iterator[list]:
    """The chunks, in order, their last two (the last one often short) cut again into parts of
    equal length: TAIL_PARTS_A_WORKER for each of `workers`, of at least TAIL_PART items. Given to
    the workers with the fewest items, the parts even out what each has to do, so that none is
    left working alone at the end (86,000 messages in chunks of 5,000 are nine chunks for one
    worker, eight and a short one for the other)."""
    held: list = []
    for chunk in chunks:
        held.append(chunk)
        if len(held) > 2:
            yield held.pop(0)
    tail = list(itertools.chain.from_iterable(held))
    if not tail:
        return
    parts = max(1, min(TAIL_PARTS_A_WORKER * workers, len(tail) // TAIL_PART))
    size, longer = divmod(len(tail), parts)  # the first `longer` parts hold one item more
    start = 0
    for part in range(parts):
        end = start + size + (part < longer)
        yield tail[start:end]
        start = end


def fork_map(function, chunks: Iterable, jobs: int, *, initializer=None, initargs=(), in_flight: int | None = None,
             meanwhile: Callable[[], None] | None = None) -> Iterator:
    """function(chunk) for each chunk, in input order, in a pool of `jobs` forked processes
    (they share what this process has loaded: lexicons, model), with at most `in_flight` chunks
    (2 * jobs by default) given to the pool and not yet answered. `meanwhile()` is run here once
    the first chunks are given, while the pool works on them. No more processes are forked than
    there are chunks (the first `jobs` are read before the pool starts)."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    chunks, jobs = _at_most_one_worker_a_chunk(chunks, jobs)
    if not jobs:
        return
    # An executor, not multiprocessing.Pool: if a worker dies, the run stops with
    # BrokenProcessPool instead of waiting forever.
    context = multiprocessing.get_context("fork")
    setup = (os.getpid(), initializer, initargs)
    pool = ProcessPoolExecutor(jobs, mp_context=context, initializer=_start_worker, initargs=setup)
    done = False
    try:
        inherited = set(_BY_FORK)  # the items of _BY_FORK the workers start with (forked at the first submit)
        started = False

        def submit(chunk):
            nonlocal inherited, started
            key = id(chunk)
            by_key = started and key in inherited and _BY_FORK.get(key) is chunk
            with ctrl_c_held_back():
                future = pool.submit(_call, function, _Inherited(key) if by_key else chunk)
            if key in inherited:  # given: let go of here
                inherited.discard(key)
                _BY_FORK.pop(key, None)
            if not started:
                # A fork pool starts all its workers at the first submit (forking once its manager
                # thread runs could deadlock them): the first chunk is sent whole, and the others
                # the workers hold are sent as keys once every worker is known to have started.
                started = True
                if len(getattr(pool, "_processes", None) or ()) != jobs:
                    for key in inherited:
                        _BY_FORK.pop(key, None)
                    inherited = set()
            return future

        try:  # a broken pool shows in submit() or in result(), whichever comes first
            for future in _in_order(submit, chunks, in_flight or 2 * jobs):
                if meanwhile is not None:
                    meanwhile()
                    meanwhile = None
                yield future.result()
            done = True
        except BrokenProcessPool:
            raise _worker_died() from None
    finally:
        # The pool is waited for: one left stopping its workers closes its pipe while the
        # interpreter, exiting, writes to it (a traceback under Ctrl-C's one-line answer). Its
        # work done, the workers stop at once, and a Ctrl-C pressed meanwhile is answered once
        # they have. Stopped before the end (Ctrl-C, an error, the caller stopped reading), the
        # chunks not started are dropped, each worker finishes the one it holds, and a second
        # Ctrl-C cuts that wait short.
        if done:
            with ctrl_c_held_back():
                pool.shutdown(wait=True)
        else:
            pool.shutdown(wait=True, cancel_futures=True)


# ---------------------------------------------------------------------- local: one pool for both passes


class PickledPairs:
    """A chunk of (id, text) pairs as a ReadAhead read it: pickled (`data`), with its ids (`ids`,
    which this process keeps: KeptChunk) and what the ReadAhead's `digest` gave of it (`digest`).
    Its length is its number of pairs. Sent to a worker as its bytes alone, unpickled there
    (_count_kept)."""

    __slots__ = ("data", "ids", "digest")

    def __init__(self, data: bytes, ids: list[str] | None = None, digest=None):
        self.data, self.ids, self.digest = data, ids, digest

    def __len__(self) -> int:
        return len(self.ids) if self.ids is not None else len(self.pairs())

    def pairs(self) -> list:
        import pickle

        return pickle.loads(self.data)

    def __reduce__(self):
        return PickledPairs, (self.data,)


# How a ReadAhead's frames begin: a chunk read (with what its reading reported); the reading over
# (with what its end reported); stopped before an error, which this process reads again and raises.
_CHUNK, _DONE, _STOPPED = b"C", b"D", b"S"


def _registry_of(filename: str) -> dict | None:
    """The registry of the warnings said from the module of `filename` (where a warning said once
    is not said again), or None."""
    for module in list(sys.modules.values()):
        if getattr(module, "__file__", None) == filename:
            return module.__dict__.setdefault("__warningregistry__", {})
    return None


class ReadAhead:
    """The chunks of a corpus for the workers of --jobs (cut as even_tail cuts them), read and
    pickled by a process of its own, forked once the input is open: it reads while this process
    loads the model and makes the tables, on the core that start leaves idle, and this process
    hands each worker its chunk's bytes (PickledPairs) instead of reading and pickling them among
    the workers. What the reading reports comes with the chunk read after it (the warnings of bad
    rows and lone surrogates, the rows skipped, the NUL characters removed): this process gives
    each warning and adds each to its table's record (`table.skipped`) as it takes the chunk, as if
    it had read it itself. An error stops the reader: this process reads the input again from its
    start, without saying again what was said, up to the chunk where it stopped, and raises the
    error itself, with its line. With `digest`, a function of a chunk's pairs, the reader gives what
    it makes of each chunk with the chunk (PickledPairs.digest): the hashes that the checks of
    `classify --workspace` keep (triage.jobs.InputCheck.digest), worked out where the texts are.
    Where processes cannot be forked, this process reads. Used as a context manager: the reader is
    stopped when it ends."""

    AHEAD = 16  # chunks read and not yet taken, at most

    def __init__(self, table, size: int, characters: int | None, workers: int, digest=None):
        self.table, self.size, self.characters, self.workers = table, size, characters, workers
        self.digest = digest
        self._pid: int | None = None
        self._pipe = None
        self._ended = False  # the reader's last frame received
        if hasattr(os, "fork"):
            try:
                self._start()
            except BaseException:  # a Ctrl-C held back while it forked, answered here: no reader left
                self.close()
                raise

    def __enter__(self) -> ReadAhead:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _start(self) -> None:
        read, write = os.pipe()
        parent = os.getpid()
        with ctrl_c_held_back():
            pid = os.fork()
            if pid == 0:  # the reader: never returns
                code = 1
                try:
                    os.close(read)
                    die_with_parent(parent)
                    leave_ctrl_c_to_the_parent()
                    self._read(write)
                    code = 0
                finally:
                    os._exit(code)
            self._pid = pid
            os.close(write)
            self._pipe = os.fdopen(read, "rb")

    def _read(self, fd: int) -> None:
        """In the reader: each chunk sent with what its reading reported, then _DONE with what the
        end of the reading reported, or _STOPPED at an error."""
        import pickle
        import queue
        import struct
        import warnings

        frames: queue.Queue = queue.Queue(self.AHEAD)

        def send() -> None:
            with contextlib.suppress(OSError), os.fdopen(fd, "wb") as out:  # (the main process gone: nothing to say)
                for frame in iter(frames.get, None):
                    out.write(struct.pack("<Q", len(frame)))
                    out.write(frame)

        sender = threading.Thread(target=send, daemon=True)
        sender.start()
        table, end, said = self.table, _STOPPED, [0, 0, 0, 0]  # the warnings, skipped, replaced rows, NULs sent

        def news(reported: list) -> tuple | None:
            """What the reading reported since the last frame: (the warnings, as message, category,
            file and line; the rows skipped; the rows whose lone surrogates were replaced; the NUL
            characters removed so far), or None."""
            skipped, replaced = table.skipped, table.replaced_lines
            now = [len(reported), len(skipped), len(replaced), table.nul_bytes]
            if now == said:
                return None
            new = ([(str(w.message), w.category, w.filename, w.lineno) for w in reported[said[0]:]],
                   skipped[said[1]:], replaced[said[2]:], table.nul_bytes)
            said[:] = now
            return new

        try:
            with warnings.catch_warnings(record=True) as reported:
                warnings.simplefilter("always")
                for chunk in even_tail(table.pairs(self.size, self.characters), self.workers):
                    ids = [ident for ident, _ in chunk]
                    digested = self.digest(chunk) if self.digest is not None else None
                    frames.put(_CHUNK + pickle.dumps((ids, pickle.dumps(chunk, protocol=pickle.HIGHEST_PROTOCOL),
                                                      news(reported), digested), protocol=pickle.HIGHEST_PROTOCOL))
                end = _DONE + pickle.dumps(news(reported), protocol=pickle.HIGHEST_PROTOCOL)
        except Exception:  # this process reads again up to here, and raises it itself
            end = _STOPPED
        frames.put(end)
        frames.put(None)
        sender.join()

    def _frames(self) -> Iterator[bytes]:
        import struct

        while True:
            head = self._pipe.read(8)
            size = struct.unpack("<Q", head)[0] if len(head) == 8 else -1
            frame = self._pipe.read(size) if size > 0 else b""
            if len(frame) != size or frame[:1] not in (_CHUNK, _DONE):
                self._ended = frame == _STOPPED
                yield _STOPPED  # stopped, or ended before its input did (killed): read here from there
                return
            if frame[:1] == _DONE:  # (said before it is given: the caller stops there)
                self._ended = True
                yield frame
                return
            yield frame

    def _say(self, news: tuple | None) -> None:
        """What the reader's reading reported, said here and kept in this process's table."""
        import warnings

        if news is None:
            return
        said, skipped, replaced, nul_bytes = news
        for message, category, filename, lineno in said:
            # Given as the reading gives it, in the registry of the module it is said from: a
            # reading again (the classify pass of a corpus too large to keep) does not say it twice.
            warnings.warn_explicit(message, category, filename, lineno, registry=_registry_of(filename))
        table = self.table
        table.skipped.extend(skipped)
        table.replaced_lines.extend(replaced)
        table.nul_bytes = nul_bytes

    def chunks(self) -> Iterator:
        """The chunks of the corpus, in order: PickledPairs while the reader reads, then the pairs
        this process reads from the chunk where it stopped (all of them where none was forked)."""
        import pickle
        import warnings

        taken = 0
        if self._pipe is not None:
            table = self.table
            table.skipped, table.replaced_lines, table.nul_bytes = [], [], 0  # as a reading starts
            for frame in self._frames():
                if frame[:1] == _DONE:
                    self._say(pickle.loads(memoryview(frame)[1:]))
                    return
                if frame[:1] == _STOPPED:
                    break
                ids, data, news, digested = pickle.loads(memoryview(frame)[1:])
                self._say(news)
                taken += 1
                yield PickledPairs(data, ids, digested)
            self.close()
        rest = even_tail(self.table.pairs(self.size, self.characters), self.workers)
        if taken:
            with warnings.catch_warnings():  # said already, as the reader read them
                warnings.simplefilter("ignore")
                for _ in range(taken):
                    next(rest, None)
        yield from rest

    def close(self) -> None:
        """Wait for the reader, stopped at once if it has not said it was done."""
        import signal
        import time

        pid, self._pid = self._pid, None
        if self._pipe is not None:
            self._pipe.close()
            self._pipe = None
        if pid is None:
            return
        with contextlib.suppress(ChildProcessError):
            if self._ended:  # its last frame sent, it ends by itself (a second at most)
                for _ in range(100):
                    if os.waitpid(pid, os.WNOHANG)[0]:
                        return
                    time.sleep(0.01)
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)


class KeepingPool:
    """The workers of --jobs on this machine, forked once for both passes of classify. The worker
    that counts the corpus statistics of a chunk keeps it, its texts folded and cut into stretch
    ids, and classifies it once the statistics of the whole corpus reach it (`classify`): a text
    goes to a worker once, and comes back as its rows. A chunk to keep goes to the worker that keeps
    the fewest messages, so that the workers end together; the last chunks kept (a batch at most),
    which this process holds too, go to whichever worker is done with its other chunks first
    (`classify`), so that they end together even where one core is slower or one worker's chunks
    cost more (with a core for each worker). A chunk it was not asked to keep (a corpus too large to
    keep) is sent again to be classified, to the worker with the fewest chunks given and not yet
    answered (the first of them on a tie), so that a worker held up by a costly chunk is given
    fewer. Each worker learns the spellings of its own chunks: those of the first batch it will
    classify as soon as it has counted its last chunk (_learn_ahead), instead of waiting idle for
    the other workers' counts and for this process to merge them; where the workers outnumber the
    cores, this process learns the first chunk before it forks them (_learn_first). With `batch` (a
    number of messages and of characters), a worker classifies a chunk it keeps together with the
    next one it keeps while the two hold no more than that: fewer batches, less of the steps' fixed
    work a batch. Used as a context manager: the workers stop when it ends, at once if it ends with
    an error."""

    def __init__(self, classifier, jobs: int, batch: tuple[int, int] | None = None):
        self.classifier, self.jobs, self.batch = classifier, jobs, batch
        self._pools: list = []
        self._given = 0  # chunks given to be counted, each given its index in the corpus
        self._counted_by: dict[int, int] = {}  # the worker that counted each chunk it keeps, by index
        # The last chunks kept, as given to be counted (at most a batch of them): any worker may classify them.
        self._held: dict[int, tuple[Sequence, tuple[int, int]]] = {}  # (pairs, _sized) by index
        self._claims = None  # which of those a worker has taken (shared with the workers)
        self._core_each = True  # whether each worker has a core of its own (usable_cores), as counting starts
        self._waiting: list[int] = []  # chunks given to each worker and not yet answered
        self._stopping: list = []  # the threads of the pools told to stop, not yet waited for
        self._lock = threading.Lock()

    def __enter__(self) -> KeepingPool:
        return self

    def __exit__(self, kind, *exc) -> None:
        self.close(failed=kind is not None)

    def close(self, failed: bool = False) -> None:
        """Stop the workers and wait until they have: once they have done their work, or at once
        (`failed`: the chunks not started are dropped)."""
        self.stop(failed)
        stopping, self._stopping = self._stopping, []
        # As fork_map's pool: their work done, a Ctrl-C pressed meanwhile is answered once they have
        # stopped; stopped before the end, each finishes the chunk it holds, and a second Ctrl-C
        # cuts that wait short.
        with contextlib.nullcontext() if failed else ctrl_c_held_back():
            for thread in stopping:
                thread.join()

    def stop(self, failed: bool = False) -> None:
        """Tell the workers to stop once they have done their work (at once if `failed`), without
        waiting: they end while this process writes the end of the output (close waits for them,
        by the thread of each pool that waits for its worker to end)."""
        pools, self._pools = self._pools, []
        for pool in pools:
            thread = getattr(pool, "_executor_manager_thread", None)
            if thread is None:  # forked but never given work (stopped before its first chunk): no thread
                for worker in list((getattr(pool, "_processes", None) or {}).values()):  # tells it to stop
                    worker.kill()  # it holds nothing yet, and would be waited for at exit, forever
                    worker.join()
            pool.shutdown(wait=thread is None, cancel_futures=failed)
            if thread is not None:
                self._stopping.append(thread)

    def _start(self, workers: int) -> None:
        """Fork the workers, each a pool of its own (a chunk a worker keeps goes back to it), every
        one before any pool starts the threads that feed it: a process forked while another thread
        holds a lock may wait for it forever."""
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        context = multiprocessing.get_context("fork")
        self._claims = context.Array("b", self._most_held())
        setup = (os.getpid(), _init_pool_worker, (self.classifier, self._claims))
        # The tables every process makes at its first batch, made once, here, for every worker: on
        # two cores, as long as two workers making them each, with less CPU.
        make_tables = getattr(self.classifier, "make_tables", None)
        if make_tables is not None:
            make_tables()
        self._waiting = [0] * workers
        with ctrl_c_held_back():
            for _ in range(workers):
                pool = ProcessPoolExecutor(1, mp_context=context, initializer=_start_worker, initargs=setup)
                self._pools.append(pool)
                launch = getattr(pool, "_launch_processes", None)  # else forked at its first submit
                if launch is not None:
                    launch()

    def _submit(self, worker: int | None, function, *arguments):
        """function(*arguments) given to `worker`, or to the worker with the fewest chunks waiting."""
        with self._lock:
            worker = self._least_waiting() if worker is None else worker
            self._waiting[worker] += 1
        with ctrl_c_held_back():
            future = self._pools[worker].submit(function, *arguments)
        future.add_done_callback(lambda _: self._answered(worker))
        return worker, future

    def _least_waiting(self, first: list[int] | None = None) -> int:
        """The worker with the fewest chunks given and not yet answered (the first on a tie); with
        `first` (a number per worker), the worker with the least of it, then as said. Asked with
        the lock held."""
        return min(range(len(self._waiting)), key=lambda w: (first[w] if first else 0, self._waiting[w], w))

    def _answered(self, worker: int) -> None:
        with self._lock:
            self._waiting[worker] -= 1

    def _results(self, submit, items: Iterable, in_flight: int) -> Iterator:
        from concurrent.futures.process import BrokenProcessPool

        try:
            for future in _in_order(submit, items, in_flight):
                yield future.result()
        except BrokenProcessPool:
            raise _worker_died() from None

    def count(self, chunks: Iterable[tuple[Sequence, bool]], in_flight: int) -> Iterator:
        """The corpus statistics (CorpusStats) of each (chunk of pairs, whether to keep it), in input
        order, with at most `in_flight` chunks given and not yet answered. The workers are forked
        at the first chunk, no more of them than there are chunks (the first `jobs` read ahead)."""
        chunks, workers = _at_most_one_worker_a_chunk(chunks, self.jobs)
        if not workers:
            return iter(())
        self.jobs = workers
        self._core_each = workers <= usable_cores()
        if not self._core_each:
            chunks = self._learn_first(chunks)
        self._start(workers)

        kept = [0] * workers  # the messages each worker keeps

        def submit(item):
            at, self._given = self._given, self._given + 1
            pairs, keep = item
            if not keep:
                return self._submit(None, _count_kept, at, pairs, keep)[1]
            # A chunk kept goes to the worker that keeps the fewest messages (the fewest chunks
            # waiting on a tie): it classifies it too, and the workers end together.
            with self._lock:
                worker = self._least_waiting(kept)
            kept[worker] += len(pairs)
            self._counted_by[at] = worker
            self._hold(at, pairs)
            return self._submit(worker, _count_kept, at, pairs, keep)[1]

        def then_learn(chunks: Iterable) -> Iterator:
            yield from chunks
            # Every chunk given: each worker that keeps some learns, after its last count, the first
            # batch it will classify (_learn_ahead), instead of waiting for the counts of the others.
            if self._counted_by:
                for worker in sorted(set(self._counted_by.values())):
                    self._submit(worker, _learn_ahead, self.batch, self._first_held())

        return self._results(submit, then_learn(chunks), in_flight)

    def _most_held(self) -> int:
        """The most chunks held for any worker to classify (_hold): enough for the last chunks cut
        again for the workers (even_tail) and the one before."""
        return TAIL_PARTS_A_WORKER * max(1, self.jobs) + 2

    def _hold(self, at: int, pairs: Sequence) -> None:
        """Hold the chunk counted at `at`, kept by the worker that counted it, as it was given: the
        last chunks held (those that hold at most a batch of messages and of characters, and
        _most_held of them) may be classified by any worker, whichever has done its other chunks
        first (_classify_taken). None is held where the workers outnumber the cores: the cores are
        busy to the end all the same, and a chunk another worker takes is folded, cut and learnt
        again."""
        if self.batch is None or not self._core_each:
            return
        self._held[at] = (pairs, _sized(pairs))
        most_messages, most_characters = self.batch
        while self._held:
            sizes = [size for _, size in self._held.values()]
            if (len(sizes) <= self._most_held() and sum(m for m, _ in sizes) <= most_messages
                    and sum(c for _, c in sizes) <= most_characters):
                break
            del self._held[next(iter(self._held))]

    def _first_held(self) -> int | None:
        """The index of the first chunk any worker may classify (the chunks held), None if none."""
        return next(iter(self._held), None)

    def _learn_first(self, chunks: Iterable[tuple[Sequence, bool]]) -> Iterator:
        """The chunks, once this process has learnt the first one's spellings (Classifier.learn):
        for workers that outnumber the cores. Those cannot all run at once, and the CPU they spend
        is the time the run takes; forked afterwards, each starts knowing the commonest words of
        the corpus instead of learning them again from its own chunks (on the 86,000 messages of
        benchmarks/corpus.py, sixteen workers meet 2.3 times the corpus's distinct words in their
        own chunks, 1.2 times leaving out those of the first chunk, learnt once). The runs of
        letters of the stretches learnt are worked out here too, which each worker's statistics
        pass would otherwise work out again (names.grow_letter_runs). With a classifier that does
        not learn, the chunks as they are."""
        learn = getattr(self.classifier, "learn", None)
        if learn is None:
            return chunks
        from triage.model.names import grow_letter_runs

        chunks = iter(chunks)
        first = next(chunks)  # (there is one: a worker is forked for each chunk read ahead)
        learn(first[0].pairs() if isinstance(first[0], PickledPairs) else first[0])  # (folded and cut there)
        grow_letter_runs()
        return itertools.chain([first], chunks)

    def run(self, function, *arguments) -> Callable[[], Any]:
        """function(*arguments) given to the worker with the fewest chunks waiting, while this
        process goes on: what it gives, when asked (a function that waits for it). Given before
        `stop`: a job of the end of a run (classify's chart, drawn while this process writes).
        With no worker (a corpus of no message forks none), run here when asked."""
        if not self._pools:
            return functools.partial(function, *arguments)
        future = self._submit(None, function, *arguments)[1]

        def result():
            from concurrent.futures.process import BrokenProcessPool

            try:
                return future.result()
            except BrokenProcessPool:
                raise _worker_died() from None

        return result

    def forget_kept(self) -> None:
        """Let the workers go of the chunks they keep: the corpus is too large to keep, and its
        chunks are sent again to be classified."""
        self._counted_by.clear()
        self._held.clear()
        for worker in range(len(self._pools)):
            self._submit(worker, _forget_kept)

    def classify(self, chunks: Iterable, stats, keep_cells: bool = False) -> Iterator:
        """Each chunk classified (ClassifiedChunk), in input order: a chunk kept by its worker
        given as its KeptChunk (to the worker that keeps it), any other as its pairs. The first
        chunk each worker is given brings the statistics of the corpus. The last chunks kept, which
        this process holds (_hold), are given to every worker once the others are: each takes
        those it keeps, then those of the others that none has taken yet, from the last
        (_classify_taken), so that a worker that is done first, on a core less loaded or with
        chunks that cost less, is not left waiting for the others."""
        import pickle

        if not self._pools:  # no statistics pass: forked now
            chunks, self.jobs = _at_most_one_worker_a_chunk(chunks, self.jobs)
            if not self.jobs:
                return iter(())
            self._start(self.jobs)
        held_from = self._first_held()
        held, self._held = self._held, {}
        payload = pickle.dumps((stats, keep_cells, self.batch, held_from),
                               protocol=pickle.HIGHEST_PROTOCOL)  # once, for all
        sent: set[int] = set()

        def setup(worker: int) -> bytes | None:
            with self._lock:
                first = worker not in sent
                sent.add(worker)
            return payload if first else None

        def submit(chunk):
            with self._lock:
                worker = self._counted_by[chunk.index] if isinstance(chunk, KeptChunk) else self._least_waiting()
            return self._submit(worker, _classify_kept, setup(worker), chunk)[1]

        aside: list[KeptChunk] = []  # the chunks held, given to every worker after the others
        taking: list = []

        def given() -> Iterator:
            for chunk in chunks:
                if isinstance(chunk, KeptChunk) and chunk.index in held:
                    aside.append(chunk)
                    continue
                if aside:  # not the last chunks: given as the others (classified alone)
                    yield from aside
                    aside.clear()
                yield chunk
            if aside:
                items = [(chunk.index, held[chunk.index][0]) for chunk in aside]
                self._claims[:] = bytes(len(self._claims))
                taking.extend(self._submit(worker, _classify_taken, setup(worker), items)[1]
                              for worker in range(len(self._pools)))

        def results() -> Iterator:
            from concurrent.futures.process import BrokenProcessPool

            # Kept chunks: two batches of two chunks a worker given ahead, so that a worker done with a
            # batch has its next one while the rows wait here for another worker's older chunk (with
            # one, it waited). Chunks sent whole: two a worker, as their texts are held until answered.
            yield from self._results(submit, given(), (4 if self._counted_by else 2) * self.jobs)
            if not taking:
                return
            done: dict = {}
            try:
                for future in taking:
                    done.update(future.result())
            except BrokenProcessPool:
                raise _worker_died() from None
            for chunk in aside:
                yield done.pop(chunk.index)

        return results()


class KeptChunk:
    """A chunk of (id, text) pairs that a worker of a KeepingPool kept when it counted it (the
    `index`-th of the corpus), as this process holds it: its ids alone (the texts are the
    worker's; held here too, those of 86,000 messages took the main process about 21 MB more),
    sent to the workers as its index alone (_KeptIndex). Its length is its number of messages."""

    __slots__ = ("ids", "index")

    def __init__(self, pairs: Sequence, index: int):
        self.ids = pairs.ids if isinstance(pairs, PickledPairs) else [ident for ident, _ in pairs]
        self.index = index

    def __len__(self) -> int:
        return len(self.ids)

    def __reduce__(self):
        return _KeptIndex, (self.index,)


class _KeptIndex(NamedTuple):
    """A KeptChunk as a worker receives it: the index of a chunk it keeps."""

    index: int


_kept: dict[int, Any] = {}  # in a worker of a KeepingPool: the chunks it keeps, by index
_done: dict[int, Any] = {}  # ... and those it classified with an earlier one, sent back when asked for
_batch: tuple[int, int] | None = None  # ... and how many messages and characters it classifies at most at once
_held_from: int | None = None  # ... and the index of the first chunk any worker may classify (classified alone)
_claims = None  # ... and which of those a worker has taken (KeepingPool._claims)
_ahead_failed: Exception | None = None  # ... and what failed as it learnt its first batch (_learn_ahead)


def _count_kept(index: int, pairs: Sequence, keep: bool):
    """In a worker of a KeepingPool: the corpus statistics of a chunk (CorpusStats), the chunk kept
    (its texts folded and cut into stretch ids: FoldedPairs) if asked."""
    from triage.classifier import FoldedPairs
    from triage.model.names import CorpusStats
    from triage.text.normalise import fold_batch

    stats = CorpusStats()
    if isinstance(pairs, PickledPairs):  # as a ReadAhead read it
        pairs = pairs.pairs()
    folded, maps = fold_batch([text for _, text in pairs])
    stretched = stats.add_folded(folded)
    if keep:
        _kept[index] = FoldedPairs(pairs, folded, maps, stretched)
    return stats


def _set_up(setup: bytes | None) -> None:
    """In a worker of a KeepingPool, with its first chunk to classify: `setup`, the corpus
    statistics (whether the rows keep their cells, the batch, and the first chunk any worker may
    classify), from which this worker classifies; what it remembered of its counting is let go of
    then, and the stretch ids of the chunks it keeps are held while they take at most what the
    memory budget keeps when it is spent, and let go of if it keeps none (as in one process:
    triage.jobs.corpus_stats). Nothing without `setup` (not the first chunk)."""
    from triage.pipeline.memory import LOW_WATER, VOCABULARY

    if setup is None:
        return
    import pickle

    from triage.model.names import forget_letter_runs
    from triage.text.stretches import STRETCH_IDS

    global _batch, _held_from, _ahead_failed
    if _ahead_failed is not None:
        failed, _ahead_failed = _ahead_failed, None
        raise failed
    _pool_worker.stats, _pool_worker.keep_cells, _batch, _held_from = pickle.loads(setup)
    forget_letter_runs()
    if not _kept or VOCABULARY.used_by("stretches") > VOCABULARY.limit * LOW_WATER:
        STRETCH_IDS.clear()  # they serve no chunk kept here, or take too much of the budget
    else:
        size = len(_kept)
        VOCABULARY.hold("stretches", lambda: (size - len(_kept), len(_kept)))


def _classify_kept(setup: bytes | None, chunk):
    """In a worker of a KeepingPool: a chunk classified, kept here (KeptChunk) or given; a chunk
    kept is classified with the next one kept here while the two fit in the pool's batch
    (_classify_with_next). `setup`: as _set_up."""
    from triage.pipeline.memory import VOCABULARY

    _set_up(setup)
    if not isinstance(chunk, _KeptIndex):
        return _sent_back(_pool_worker.classify(chunk))
    done = _done.pop(chunk.index, None)
    if done is None:
        done = _classify_with_next(chunk.index)
    if not _kept:
        VOCABULARY.release("stretches")
    return done


def _classify_taken(setup: bytes | None, items: list[tuple[int, Sequence]]) -> list:
    """In a worker of a KeepingPool, once it has classified the other chunks it was given: the
    last chunks of the corpus, (index, pairs) each, which any worker may classify. It takes those
    it keeps, in order, then those of the others, from the last, each if no worker has taken it
    yet (_claims, shared by the workers): two it keeps are classified as one batch where they
    fit in the pool's batch (as _classify_with_next), another from its pairs. Gives [(index, the
    chunk classified and sent back)] for those it took, and lets go of the others it keeps.
    `setup`: as _set_up."""
    from triage.classifier import fit_in_batch
    from triage.pipeline.memory import VOCABULARY

    def claimed(at: int) -> bool:
        with _claims.get_lock():
            free = not _claims[at]
            _claims[at] = 1
        return free

    _set_up(setup)
    mine = [at for at, (index, _) in enumerate(items) if index in _kept]
    theirs = [at for at in reversed(range(len(items))) if at not in mine]
    done = []
    while mine:
        at = mine.pop(0)
        if not claimed(at):
            continue
        indexes = [items[at][0]]
        if mine and _batch is not None and fit_in_batch([_kept[indexes[0]], _kept[items[mine[0]][0]]], _batch) \
                and claimed(mine[0]):
            indexes.append(items[mine.pop(0)][0])
        done += zip(indexes, _classify_batch(indexes, [_kept.pop(index) for index in indexes]))
    for at in theirs:
        if claimed(at):
            index, pairs = items[at]
            done += zip([index], _classify_batch([index], [pairs.pairs() if isinstance(pairs, PickledPairs)
                                                           else pairs]))
    for index, _ in items:
        _kept.pop(index, None)
    if not _kept:
        VOCABULARY.release("stretches")
    return done


def _classify_with_next(index: int):
    """In a worker of a KeepingPool: the chunk kept at `index` classified and sent back, with the
    next chunk kept here if the two fit in the batch (that one's rows kept until it is asked for:
    the chunks are asked for in input order)."""
    indexes = _batch_at(index, _batch)
    done = _classify_batch(indexes, [_kept.pop(at) for at in indexes])
    if len(done) > 1:
        _done[indexes[1]] = done[1]
    return done[0]


def _classify_batch(indexes: list[int], parts: list) -> list:
    """In a worker of a KeepingPool: `parts`, the chunks at `indexes` (one or two: kept here,
    folded and cut, or their pairs), classified as one batch, each sent back. Every batch a worker
    classifies from the chunks it keeps or takes is classified here (benchmarks/chunk_times.py
    times each, by its first index)."""
    from triage.classifier import FoldedPairs

    if len(parts) == 1:
        return [_sent_back(_pool_worker.classify(parts[0]))]
    return [_sent_back(part) for part in
            _pool_worker.classify_parts(FoldedPairs.joined(parts), [len(part) for part in parts])]


def _batch_at(index: int, batch: tuple[int, int] | None) -> list[int]:
    """In a worker of a KeepingPool: the indexes of the chunks kept here that it classifies as one
    batch from the chunk kept at `index`: that chunk, and the next one kept here if the two fit in
    `batch`."""
    from triage.classifier import fit_in_batch

    later = min((at for at in _kept if at > index), default=None)
    if _held_from is not None and later is not None and max(index, later) >= _held_from:
        return [index]  # any worker may classify those: each alone
    if batch is not None and later is not None and fit_in_batch([_kept[index], _kept[later]], batch):
        return [index, later]
    return [index]


def _learn_ahead(batch: tuple[int, int] | None, held_from: int | None = None) -> None:
    """In a worker of a KeepingPool, given once it has counted its last chunk: learn the batch it
    classifies first (Classifier.learn: the steps that need no corpus statistics) while the other
    workers count their last chunks and the main process merges the counts, instead of waiting for
    them; that batch is then classified from what was learnt. Nothing is learnt where the stretch
    ids of the chunks kept take more than the memory budget keeps when it is spent (the first chunk
    classified lets them go first: _classify_kept). What fails is raised by the first chunk given
    to classify, which nothing waits for here. `held_from`: the index of the first of the last
    chunks, which any worker may take, each alone (_batch_at), or None."""
    from triage.classifier import FoldedPairs
    from triage.model.names import forget_letter_runs
    from triage.pipeline.memory import LOW_WATER, VOCABULARY

    global _ahead_failed, _held_from
    try:
        _held_from = held_from
        forget_letter_runs()  # counted: the memory goes to classifying (as when the corpus statistics come)
        learn = getattr(_pool_worker, "learn", None)  # (without it, the first batch is classified as the others)
        if learn is None or not _kept or VOCABULARY.used_by("stretches") > VOCABULARY.limit * LOW_WATER:
            return
        parts = [_kept[at] for at in _batch_at(min(_kept), batch)]
        learn(parts[0] if len(parts) == 1 else FoldedPairs.joined(parts))
    except Exception as error:
        _ahead_failed = error


def _sized(pairs: Sequence) -> tuple[int, int]:
    """(messages, characters) of a chunk of pairs, or of its pickled bytes (PickledPairs)."""
    if isinstance(pairs, PickledPairs):
        return len(pairs), len(pairs.data)
    return len(pairs), sum(len(text) for _, text in pairs)


def _forget_kept() -> None:
    """In a worker of a KeepingPool: let go of the chunks it keeps (the corpus is read again)."""
    _kept.clear()
    _done.clear()


# ---------------------------------------------------------------------- dask

_built: tuple[str, Any] | None = None  # (spec token, classifier) of this worker process
_built_lock = threading.Lock()


def _worker_classify(spec, pairs: list[tuple[str, str]]):
    """On a Dask worker: build the spec's classifier once per process (a new run's spec
    replaces the previous classifier), then classify. The lock serialises the threads of a
    multi-threaded worker: the classifier's caches are not thread-safe, and the work holds
    the GIL anyway."""
    global _built
    with _built_lock:
        if _built is None or _built[0] != spec.token:
            from triage.model.names import forget_letter_runs

            _built = None
            forget_letter_runs()  # what this worker's counting of the statistics remembered
            _built = (spec.token, spec.build())
        return _sent_back(fewer_collections(_built[1].classify)(pairs))  # as the local run classifies


def _worker_count(texts: list[str]):
    """On a Dask worker: the corpus statistics of some texts (CorpusStats.from_texts), one
    thread of the worker at a time, as _worker_classify."""
    from triage.model.names import CorpusStats

    with _built_lock:
        return fewer_collections(CorpusStats.from_texts)(texts)


def _probe_scheduler(address: str, seconds: float) -> None:
    """Ask `address` who it is, within `seconds`: a service that is not a dask scheduler
    may accept the connection and never answer, and Client() then waits forever."""
    import asyncio

    from distributed.core import rpc

    async def identity() -> dict:
        async with rpc(address) as remote:
            return await remote.identity()

    async def bounded() -> dict:
        return await asyncio.wait_for(identity(), seconds)

    try:
        answer = asyncio.run(bounded())
    except (OSError, TimeoutError, asyncio.TimeoutError):
        raise BadOption(
            f"no dask scheduler answered at {address} within {seconds:g} s (is one running there?)"
        ) from None
    except Exception as error:  # it answered, but not in dask's protocol
        raise BadOption(f"{address} is not a dask scheduler ({type(error).__name__})") from None
    if not isinstance(answer, dict) or answer.get("type") != "Scheduler":
        raise BadOption(f"{address} is not a dask scheduler (it answered as {answer.get('type')!r})"
                            if isinstance(answer, dict) else f"{address} is not a dask scheduler")


def _local_worker_environment() -> dict:
    """The configuration of the local cluster's worker processes: distributed's, without the
    MALLOC_TRIM_THRESHOLD_ it sets for them, and without the workers' sampling profiler.
    MALLOC_TRIM_THRESHOLD_ makes the C library hand freed memory back to the system at once, and
    take it again for the next batch: a third more CPU for classify, whose memory is bounded by
    its own budget (triage/pipeline/memory.py). The profiler looks at the running task every
    10 ms for a dashboard the local cluster does not have (LOCAL_CLUSTER_OPTIONS): on 86,000
    generated messages with two workers, about 0.2 s of a 4 s run."""
    import dask

    environment = dict(dask.config.get("distributed.nanny.pre-spawn-environ", {}))
    environment.pop("MALLOC_TRIM_THRESHOLD_", None)
    return {"distributed.nanny.pre-spawn-environ": environment, "distributed.worker.profile.enabled": False}


def dask_setup(worker) -> None:
    """Run by each worker process of the local cluster as it starts (this module is its Dask
    preload: LOCAL_CLUSTER_OPTIONS): the worker ignores Ctrl-C (leave_ctrl_c_to_the_parent); the
    parent closes the cluster, and the workers with it."""
    leave_ctrl_c_to_the_parent()


@contextmanager
def _ctrl_c_deferred():
    """Answer a Ctrl-C (SIGINT) pressed while the local cluster starts (and its client connects)
    once it has started (or failed to), so that closing it closes a whole cluster: a cluster
    stopped halfway through its start is left to Dask's own clean-up at exit, which fails with a
    traceback. The workers starting then see the Ctrl-C too, before their dask_setup: they stop,
    and the cluster fails to start, which is the Ctrl-C's doing."""
    import signal

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    pressed: list[int] = []
    before = signal.signal(signal.SIGINT, lambda number, _frame: pressed.append(number))
    try:
        yield
    except Exception:
        if not (pressed and callable(before)):
            raise
    finally:
        signal.signal(signal.SIGINT, before)
    if pressed and callable(before):
        before(signal.SIGINT, None)  # the default handler raises KeyboardInterrupt


class DaskSession:
    """One run's Dask client, opened on entering: on the scheduler at `scheduler` (checked, with
    a one-line error when it is not one or has no worker), else on a local cluster of `jobs`
    worker processes, closed on leaving. The workers classify (`classify`); a scheduler's also
    count the corpus statistics first (`count`), on the same client."""

    def __init__(self, jobs: int, scheduler: str | None, forked: bool = False):
        """`forked`: a local cluster's workers are forked from this process (what it has loaded
        and learnt is theirs from the start) instead of started afresh."""
        self.jobs, self.scheduler, self.forked = jobs, scheduler, forked
        self.client = None
        self._stack = None
        self._inherited: set[int] = set()  # the keys of _BY_FORK its forked workers start with

    def __enter__(self) -> DaskSession:
        from contextlib import ExitStack

        self._stack = ExitStack()
        try:
            self.client = self._open(self._stack)
        except BaseException:
            self._stack.close()
            raise
        return self

    def __exit__(self, *exc) -> None:
        self.client = None
        if self._stack is not None:
            self._stack.close()

    def _open(self, stack):
        import dask
        from distributed import Client, LocalCluster
        from distributed.comm.addressing import get_address_host_port

        scheduler = self.scheduler
        if not scheduler:
            settings = _local_worker_environment()
            if self.forked:
                settings["distributed.worker.multiprocessing-method"] = "fork"
                self._inherited = set(_BY_FORK)
            # The client too: one that a Ctrl-C stopped while it connected would be closed by no one,
            # and would try again at exit, for a minute, once its cluster is gone.
            with dask.config.set(settings), _ctrl_c_deferred():
                cluster = stack.enter_context(LocalCluster(n_workers=max(1, self.jobs), **LOCAL_CLUSTER_OPTIONS))
                return stack.enter_context(Client(cluster, set_as_default=False))
        # Checked before Client(): a Client failing on a malformed address stalls the exit.
        try:
            get_address_host_port(scheduler)
        except ValueError as error:
            raise BadOption(
                f"{scheduler!r} is not a dask scheduler address like tcp://host:8786 ({error})"
            ) from None
        _probe_scheduler(scheduler, SCHEDULER_WAIT_SECONDS)
        try:
            client = stack.enter_context(Client(scheduler, set_as_default=False, timeout=SCHEDULER_WAIT_SECONDS))
        except (OSError, TimeoutError) as error:
            raise BadOption(f"cannot reach the dask scheduler at {scheduler}: {error}") from None
        try:
            client.wait_for_workers(1, timeout=WORKER_WAIT_SECONDS)
        except TimeoutError:
            raise BadOption(
                f"no dask worker joined the scheduler at {scheduler} within {WORKER_WAIT_SECONDS} s"
            ) from None
        return client

    def _run(self, function, *arguments, items: Iterable) -> Iterator:
        """function(*arguments, item) for each item on the workers, in input order, with two
        items a worker in flight. Each item is sent sealed (_Sealed): Dask looks through the lists
        and tuples a task is given for futures, pair by pair of a chunk (about 0.03 s of a 3 s run
        on 86,000 messages with two local workers). To the workers of a local cluster forked from
        this process, an item shared with them (share_by_fork) is sent as its key, and let go of
        here once answered: the 12 MB of chunks kept for 86,000 messages are neither pickled here
        nor sent through the scheduler (about 0.2 s of CPU, 0.1 s of a 3.5 s run)."""
        workers = len(self.client.nthreads())
        submit = self.client.submit
        given: deque = deque()  # the key of each item in flight sent by its key, else None

        def sent(item):
            key = id(item)
            by_key = key in self._inherited and _BY_FORK.get(key) is item
            given.append(key if by_key else None)
            return submit(_unsealed, function, *arguments, _Sealed(_Inherited(key) if by_key else item), pure=False)

        pending = _in_order(sent, items, 2 * max(1, workers))
        try:
            for future in pending:
                key = given.popleft()
                try:
                    done = future.result()
                except _NotInherited:  # a worker started afresh (one restarted) got it: sent whole
                    done = submit(_unsealed, function, *arguments, _Sealed(_BY_FORK[key]), pure=False).result()
                if key is not None:  # answered: let go of here
                    self._inherited.discard(key)
                    _BY_FORK.pop(key, None)
                yield done
        finally:
            pending.close()

    def count(self, texts: Iterable[list[str]]) -> Iterator:
        """The corpus statistics (CorpusStats) of each list of texts, counted on the workers, in
        input order: the statistics pass."""
        return self._run(_worker_count, items=texts)

    def classify(self, spec: ClassifierSpec, chunks: Iterable[Sequence]) -> Iterator:
        """The workers' classify of each chunk, in input order: each builds the spec's classifier
        once (_worker_classify)."""
        shared = self.client.scatter(spec, broadcast=True, hash=False)
        return self._run(_worker_classify, shared, items=chunks)


class _Sealed:
    """An item sent to a Dask worker as one value, which Dask does not look into (DaskSession._run)."""

    __slots__ = ("item",)

    def __init__(self, item):
        self.item = item

    def __reduce__(self):
        return _Sealed, (self.item,)


def _unsealed(function, *arguments):
    """On a Dask worker: function(*arguments), the last of them sealed (_Sealed), or, for a worker
    forked from the process that sent it, sent as its key (_Inherited) and taken from the memory
    the worker started with (share_by_fork)."""
    *given, sealed = arguments
    return function(*given, _taken(sealed.item))




def _dask_chunks(spec, chunks: Iterable[Sequence], jobs: int, scheduler: str | None,
                 session: DaskSession | None = None, classifier=None) -> Iterator:
    if session is not None:
        yield from session.classify(spec, chunks)
        return
    if scheduler or classifier is None or not FORKED_LOCAL_WORKERS:
        if not scheduler:  # a local cluster: no more workers than chunks
            chunks, jobs = _at_most_one_worker_a_chunk(chunks, jobs)
            if not jobs:
                return
        with DaskSession(jobs, scheduler) as session:
            yield from session.classify(spec, chunks)
        return
    # The first chunk classified here (unless learnt already), then the local
    # cluster's workers forked with this process's classifier as the one they built for the spec
    # (_built): what it learnt of the first chunk (the corpus' commonest spellings) is not learnt
    # again by each of them, and they neither import nor load anything.
    global _built
    chunks = iter(chunks)
    if not getattr(classifier, "learnt", False):
        first = next(chunks, None)
        if first is None:
            return
        yield fewer_collections(classifier.classify)(first)
    chunks, jobs = _at_most_one_worker_a_chunk(chunks, jobs)
    if not jobs:
        return
    _built = (spec.token, classifier)
    try:
        with DaskSession(jobs, None, forked=True) as session:
            _built = None  # the workers have their copy; this process's goes with the run
            yield from session.classify(spec, chunks)
    finally:
        _built = None
