"""benchmarks/lexicon_lookup.py times the engines that could answer Seek&Hide's look-ups of a
batch's new spellings, the one classify uses among them: as classify runs it, it gives
Lexicons.lookup's answers and forgets them at the batch's end (the benchmark checks every engine's
answers before timing it; a run takes seconds, so it is run on demand)."""

from conftest import benchmark_module


def test_the_engine_classify_uses_forgets_its_answers_at_each_batch_end():
    from triage import lexicons

    lookup = benchmark_module("lexicon_lookup")
    engine = lookup.NumpySorted(lexicons.default())
    keys = ["bonjour", "marie", "xqzw"]
    expected = [lexicons.default().lookup(key) for key in keys]
    names, anti, _ = lookup.answers(engine.flags(keys), engine.flags(keys))
    assert list(zip(names.tolist(), anti.tolist())) == expected
    assert all(not words._positions for words in engine.sorted.shared)  # the batch's memory is gone
