"""The memory budget of the caches that grow with the vocabulary (triage.pipeline.memory): a
cache is only a memory of work done, so emptying it midway must change no output."""


import pytest
from conftest import benchmark_module

from triage import jobs
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


def test_with_jobs_the_parent_reads_the_workers_stretch_ids_only_while_the_budget_keeps_them(generated, tmp_path,
                                                                                              monkeypatch):
    from triage.text import stretches

    read = []
    translate = stretches.StretchTranslation.translate
    monkeypatch.setattr(stretches.StretchTranslation, "translate",
                        lambda self, batch: read.append(batch) or translate(self, batch))
    monkeypatch.setattr(VOCABULARY, "limit", 2**40)
    jobs.run_classify(generated, tmp_path / "one.csv", chart=False, chunk_size=250)
    jobs.run_classify(generated, tmp_path / "unbounded.csv", chart=False, chunk_size=250, jobs=2)
    assert len(read) == 2_000 // 250  # every chunk reaches the classifying workers cut
    read.clear()
    # The parent's stretches pass half the budget with the first chunk it learns: the chunks go
    # to the workers as plain pairs, which cut them again, as past the budget in one process.
    monkeypatch.setattr(VOCABULARY, "limit", 100_000)
    jobs.run_classify(generated, tmp_path / "bounded.csv", chart=False, chunk_size=250, jobs=2)
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
