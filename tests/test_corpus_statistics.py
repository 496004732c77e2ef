"""The corpus statistics pass counts each text's words from its stretches between white space,
worked out once per distinct stretch (triage.model.names): its counts must be those of the
regular expressions read over each whole text, message by message."""

from __future__ import annotations

import re
from collections import Counter

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from triage.model import names
from triage.model.names import _MID_CAPITAL, CorpusStats, count_key
from triage.pipeline.memory import VOCABULARY
from triage.text.normalise import fold_batch
from triage.text.stretches import STRETCH_IDS

SETTINGS = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow])

# What _MID_CAPITAL reads: lower-case letters, capitals (× and ÷ are inside its ranges), commas and
# semicolons, white space of several kinds, and what may or may not follow a capitalised word.
CHARACTERS = "abBCéÉz×÷ß,;.'’-_1 \t\n\u00a0\u2009"
STRETCH = st.one_of(st.sampled_from(["Bob", "Bob,", "Bob;", "Carl", "a", "b,", "x;", "Bob.x", "Éva", "Bob,,", "éé"]),
                    st.text(CHARACTERS, min_size=1, max_size=6))
TEXT = st.lists(st.tuples(STRETCH, st.sampled_from([" ", "  ", "\t", "\n", "\u00a0", " , "])), max_size=8).map(
    lambda parts: "".join(stretch + space for stretch, space in parts))


def expected(texts: list[str]) -> tuple[Counter, Counter]:
    """(messages writing each lower-case run of letters, messages writing each word with a
    capital mid-sentence), by key, from the regular expressions over each folded text."""
    folded, _ = fold_batch(texts)
    lower = Counter(count_key(run) for text in folded for run in set(re.findall(r"[^\W\d_]+", text)) if run.islower())
    capitals = Counter(key for text in folded for key in {count_key(word.lower()) for word in _MID_CAPITAL.findall(text)})
    return lower, capitals


def counted(stats: CorpusStats) -> tuple[Counter, Counter]:
    return tuple(Counter(dict(zip(*(column.tolist() for column in counts.arrays()))))
                 for counts in (stats.counts, stats.capitalised))


@settings(max_examples=400, **SETTINGS)
@given(batches=st.lists(st.lists(st.one_of(TEXT, st.text(CHARACTERS, max_size=30)), max_size=6), max_size=4))
@example(batches=[["a Bob Carl Dan Eve"]])  # one capitalised word in two: the letter before each is taken
@example(batches=[["a Bob, Carl", "a Bob.x Carl", "a Bob,, Carl", "é Éva;\tBob", "a\nBob", "Bob Carl"]])
@example(batches=[["× Bob", "a ×b", "÷ Bob", "a Bob'", "a Bob-x", "a Bob1", "a Bob_"]])
def test_counts_of_stretches_are_those_of_the_regular_expressions_over_each_text(batches):
    stats = CorpusStats()
    for texts in batches + batches:  # the second time, every stretch is known
        stats.add(texts)
    lower, capitals = expected([text for texts in batches for text in texts])
    assert counted(stats) == ({key: 2 * n for key, n in lower.items()}, {key: 2 * n for key, n in capitals.items()})


@settings(max_examples=50, **SETTINGS)
@given(batches=st.lists(st.lists(TEXT, min_size=1, max_size=6), min_size=2, max_size=4))
def test_counts_are_the_same_when_the_stretches_are_forgotten_between_batches(batches):
    # From a table of stretches of its own: the stretches earlier tests left in this process (thousands) would
    # otherwise have their runs worked out again at every forgetting.
    STRETCH_IDS.clear()
    whole = CorpusStats()
    for texts in batches:
        whole.add(texts)
    forgetting = CorpusStats()
    for texts in batches:
        names.forget_letter_runs()  # as the memory budget empties the caches between two batches
        forgetting.add(texts)
    assert counted(forgetting) == counted(whole)


def test_the_stretches_start_afresh_within_the_memory_budget(monkeypatch):
    names.forget_letter_runs()
    CorpusStats().add(["on voit Julie demain", "merci, Julie"])
    assert len(names._letter_runs) and len(names._letter_runs.words)
    monkeypatch.setattr(VOCABULARY, "limit", 0)  # every cache is over budget at the next batch
    stats = CorpusStats().add(["Julie arrive"])
    assert STRETCH_IDS.texts == ["\0Julie", "arrive"]  # emptied, then this batch's stretches only
    assert len(names._letter_runs) == 2
    assert sorted(names._letter_runs.words) == ["arrive", "julie"]  # a run, and a capitalised word
    assert stats.count("arrive") == 1 and stats.count("julie") == 0


def test_counts_pickled_are_merged_and_pickling_them_changes_nothing_held():
    """The counts of a corpus are pickled merged (sent to the workers of --jobs), and pickling them
    reads them only: two threads may pickle the same counts at once (each a process pool's)."""
    import pickle

    stats = CorpusStats()
    stats.add_folded(fold_batch(["salut toi", "alors toi ça va", "Bon"])[0])
    stats.add_folded(fold_batch(["salut Marc", "toi alors"])[0])
    held = [(name, getattr(stats, name)._pending, getattr(stats, name).keys) for name in ("counts", "capitalised")]
    copy = pickle.loads(pickle.dumps(stats))
    for name, pending, keys in held:
        assert getattr(stats, name)._pending is pending and getattr(stats, name).keys is keys
    assert any(pending for _, pending, _ in held)  # something was still to merge
    for name in ("counts", "capitalised"):
        mine, theirs = getattr(stats, name).arrays(), getattr(copy, name).arrays()
        assert all((a == b).all() for a, b in zip(mine, theirs))
    assert stats.count("toi") == copy.count("toi") == 3 and copy.count("salut") == 2
