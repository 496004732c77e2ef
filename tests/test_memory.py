"""The memory budget of the caches that grow with the vocabulary (triage.pipeline.memory): a
cache is only a memory of work done, so emptying it midway must change no output."""


import pytest
from conftest import benchmark_module

from triage import engines, jobs
from triage.pipeline.memory import BYTES_PER_CHAR, BYTES_PER_ENTRY, VOCABULARY, Budget, Cache


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    """2,000 messages of the benchmark's generator (SMS spellings, names, nicknames: a vocabulary
    that keeps growing), as a CSV file."""
    corpus = benchmark_module("corpus")
    path = tmp_path_factory.mktemp("memory") / "generated.csv"
    corpus.write_corpus(path, corpus.generate(2_000, seed=5))
    return path


def test_caches_emptied_at_every_batch_give_the_output_of_unbounded_caches(generated, tmp_path, monkeypatch):
    monkeypatch.setattr(VOCABULARY, "limit", 2**40)
    restarts = VOCABULARY.restarts
    unbounded = jobs.run_classify(generated, tmp_path / "unbounded.csv", chart=False, chunk_size=250)
    assert VOCABULARY.restarts == restarts

    monkeypatch.setattr(VOCABULARY, "limit", 0)  # spent at once: every cache starts afresh at each batch
    tiny = jobs.run_classify(generated, tmp_path / "tiny.csv", chart=False, chunk_size=250)
    assert VOCABULARY.restarts >= restarts + 2_000 // 250  # the statistics' chunks and the batches

    assert (tmp_path / "tiny.csv").read_bytes() == (tmp_path / "unbounded.csv").read_bytes()
    assert tiny.decisions == unbounded.decisions


def test_with_jobs_the_output_does_not_depend_on_the_budget(generated, tmp_path, monkeypatch):
    """The workers of --jobs keep the stretch ids of the chunks they keep while the budget keeps
    them, and cut the texts again past it, as one process does: the same rows either way."""
    monkeypatch.setattr(VOCABULARY, "limit", 2**40)
    jobs.run_classify(generated, tmp_path / "one.csv", chart=False, chunk_size=250)
    jobs.run_classify(generated, tmp_path / "unbounded.csv", chart=False, chunk_size=250, jobs=2)
    monkeypatch.setattr(VOCABULARY, "limit", 100_000)
    jobs.run_classify(generated, tmp_path / "bounded.csv", chart=False, chunk_size=250, jobs=2)
    monkeypatch.setattr(VOCABULARY, "limit", 0)
    jobs.run_classify(generated, tmp_path / "tiny.csv", chart=False, chunk_size=250, jobs=2)
    for name in ("unbounded", "bounded", "tiny"):
        assert (tmp_path / f"{name}.csv").read_bytes() == (tmp_path / "one.csv").read_bytes(), name


@pytest.mark.skipif(not engines.FORKED_LOCAL_WORKERS, reason="the local cluster's workers are forked on Linux only")
def test_on_a_local_dask_cluster_the_parent_reads_the_counting_workers_stretch_ids_only_while_the_budget_keeps_them(
        generated, tmp_path, monkeypatch):
    pytest.importorskip("distributed")
    from triage.text import stretches

    read = []
    translate = stretches.StretchTranslation.translate
    monkeypatch.setattr(stretches.StretchTranslation, "translate",
                        lambda self, batch: read.append(batch) or translate(self, batch))
    monkeypatch.setattr(VOCABULARY, "limit", 2**40)
    jobs.run_classify(generated, tmp_path / "one.csv", chart=False, chunk_size=250)
    jobs.run_classify(generated, tmp_path / "unbounded.csv", chart=False, chunk_size=250, jobs=2, engine="dask")
    assert len(read) == 2_000 // 250  # every chunk reaches the classifying workers cut
    read.clear()
    # The parent's stretches pass half the budget with the first chunk it learns: the chunks go
    # to the workers as plain pairs, which cut them again, as past the budget in one process.
    monkeypatch.setattr(VOCABULARY, "limit", 100_000)
    jobs.run_classify(generated, tmp_path / "bounded.csv", chart=False, chunk_size=250, jobs=2, engine="dask")
    assert read == []
    assert (tmp_path / "unbounded.csv").read_bytes() == (tmp_path / "one.csv").read_bytes()
    assert (tmp_path / "bounded.csv").read_bytes() == (tmp_path / "one.csv").read_bytes()


def test_seek_output_does_not_depend_on_the_budget(generated, tmp_path, monkeypatch):
    monkeypatch.setattr(VOCABULARY, "limit", 2**40)
    jobs.run_seek(generated, tmp_path / "unbounded.csv")
    monkeypatch.setattr(VOCABULARY, "limit", 0)
    jobs.run_seek(generated, tmp_path / "tiny.csv")
    assert (tmp_path / "tiny.csv").read_bytes() == (tmp_path / "unbounded.csv").read_bytes()


def test_past_the_budget_the_caches_cheapest_to_rebuild_start_afresh_first():
    budget = Budget(megabytes=1)  # a budget of its own (the caches are in the process's one too)
    labels, scores = Cache("labels"), Cache("scores")
    budget.track(labels, "labels")
    budget.track(scores, "scores")
    labels.update((f"mot{i}", i) for i in range(1_000))
    scores.update((i, 0.5) for i in range(20_000))
    label_bytes = 1_000 * BYTES_PER_ENTRY["labels"] + sum(map(len, labels)) * BYTES_PER_CHAR["labels"]
    assert budget.used() == label_bytes + 20_000 * BYTES_PER_ENTRY["scores"]  # the scores' keys are no text
    assert not budget.enforce()
    budget.limit = 2 * label_bytes  # the word scorer's rows, cheaper to rebuild, go first: the labels fit in half
    assert budget.enforce() and len(scores) == 0 and len(labels) == 1_000
    budget.limit = 0
    assert budget.enforce() and len(labels) == 0 and budget.restarts == 2
    del labels  # a cache that is gone is no longer counted
    scores[1] = 0.5
    assert budget.used() == BYTES_PER_ENTRY["scores"]


def test_past_the_budget_the_caches_are_emptied_down_to_half_of_it_not_just_below_it():
    """Emptying just enough to fit would pass the budget again at the next batch, and empty the
    same small caches batch after batch while a large one keeps growing."""
    budget = Budget(megabytes=1)
    scores, stretches = Cache("scores"), Cache("stretches")
    budget.track(scores, "scores")
    budget.track(stretches, "stretches")
    scores.update((i, 1.0) for i in range(1_000))  # no text: 16 bytes an entry (the word scorer's scores)
    stretches.update((i, 1) for i in range(3_000))  # no text: 140 bytes an entry
    total = budget.used()
    assert total == 1_000 * BYTES_PER_ENTRY["scores"] + 3_000 * BYTES_PER_ENTRY["stretches"]
    budget.limit = total - 1  # emptying the cheaper cache alone would fit, but leave more than half
    assert budget.enforce() and len(scores) == 0 and len(stretches) == 0
    scores.update((i, 1.0) for i in range(10_000))
    stretches.update((i, 1) for i in range(1_000))
    budget.limit = 2 * 1_000 * BYTES_PER_ENTRY["stretches"]  # over; the stretches alone take half of it
    assert budget.enforce() and len(scores) == 0 and len(stretches) == 1_000


def test_a_cache_travels_empty():
    import pickle

    cache = Cache("labels")
    cache["bonjour"] = 1
    copy = pickle.loads(pickle.dumps(cache))
    assert isinstance(copy, Cache) and copy.kind == "labels" and len(copy) == 0


def test_a_held_kind_is_emptied_after_the_spellings_while_what_is_left_would_stay_within_the_budget():
    """The stretch ids of the chunks kept for classifying serve every chunk still to come: past the
    budget they are emptied after the table of spellings, unless what is left, growing a chunk as
    much as the caches grew since, would pass the budget again before the last chunk."""
    from triage.pipeline.memory import HELD_AFTER

    budget = Budget(megabytes=1)
    caches = {kind: Cache(kind) for kind in ("scores", "stretches", HELD_AFTER, "labels")}
    for kind, cache in caches.items():
        budget.track(cache, kind)
    progress = [0, 10]  # chunks given, chunks to come

    def fill(kind: str, entries: int) -> None:
        caches[kind].update((len(caches[kind]) + i, 0) for i in range(entries))

    assert budget.order().index("stretches") < budget.order().index(HELD_AFTER)
    budget.hold("stretches", lambda: tuple(progress))
    assert budget.order().index("stretches") == budget.order().index(HELD_AFTER) + 1
    fill("stretches", 1_000)  # 140,000 bytes
    fill("labels", 1_000)  # 150,000 bytes
    assert not budget.enforce()  # where the growth is measured from
    # Nine chunks later, the table of spellings took 800,000 bytes (about 89,000 a chunk): with one
    # chunk to come, what is left (290,000 bytes) grows to about 379,000 within the budget.
    progress[:] = [9, 1]
    fill(HELD_AFTER, 2_000)
    assert budget.enforce()
    assert len(caches[HELD_AFTER]) == 0 and len(caches["stretches"]) == 1_000 and len(caches["labels"]) == 1_000
    assert "stretches" in budget.order()[budget.order().index(HELD_AFTER):]  # still held

    # From there, 900,000 bytes in one chunk with six to come: what is left would pass the budget
    # again, so the stretch ids go at their own place, and the hold ends.
    progress[:] = [10, 6]
    fill(HELD_AFTER, 2_250)
    assert budget.enforce()
    assert len(caches["stretches"]) == 0 and len(caches[HELD_AFTER]) == 0 and len(caches["labels"]) == 1_000
    assert budget.order().index("stretches") < budget.order().index(HELD_AFTER)
    with pytest.raises(ValueError, match="cannot be held"):
        budget.hold(HELD_AFTER, lambda: (0, 0))


def test_the_kept_chunks_keep_their_stretch_ids_when_the_budget_is_passed_near_the_end(generated, tmp_path,
                                                                                       monkeypatch):
    """Past the budget with two chunks to come, the table of spellings starts afresh but the stretch
    ids of the kept chunks stay (they are not cut again), with the output of unbounded caches."""
    from triage.text.stretches import STRETCH_IDS

    monkeypatch.setattr(VOCABULARY, "limit", 2**40)
    unbounded = jobs.run_classify(generated, tmp_path / "unbounded.csv", chart=False, chunk_size=250)
    handed_over = jobs._handed_over

    def passed_near_the_end(chunks, held=()):
        for left, chunk in zip(range(len(chunks), 0, -1), handed_over(chunks, held)):
            if left == 2:
                seen.append((held, STRETCH_IDS.generation, VOCABULARY.restarts))
                monkeypatch.setattr(VOCABULARY, "limit", VOCABULARY.used() - 1)
            yield chunk

    for hold in (True, False):
        seen = []
        monkeypatch.setattr(jobs, "_handed_over", passed_near_the_end)
        monkeypatch.setattr(VOCABULARY, "limit", 2**40)
        if not hold:
            monkeypatch.setattr(Budget, "hold", lambda self, kind, progress: None)
        bounded = jobs.run_classify(generated, tmp_path / f"bounded-{hold}.csv", chart=False, chunk_size=250)
        ((held, generation, restarts),) = seen
        assert held == ("stretches",) and VOCABULARY.restarts == restarts + 1
        assert (STRETCH_IDS.generation == generation) is hold
        assert (tmp_path / f"bounded-{hold}.csv").read_bytes() == (tmp_path / "unbounded.csv").read_bytes()
        assert bounded.decisions == unbounded.decisions
    assert VOCABULARY.order() == list(BYTES_PER_ENTRY)  # the hold ends with the chunks
