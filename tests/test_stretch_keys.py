"""The stretch ids key each stretch of text by the word after a single space, by a NUL and the
stretch for a text's first one, or by the stretch itself: one key per stretch, and the stretch
back from its key, whatever the texts hold."""

from __future__ import annotations

from itertools import chain

from hypothesis import example, given, settings
from hypothesis import strategies as st

from triage.text.stretches import STRETCH as _STRETCH
from triage.text.stretches import batch_keys as _stretch_keys
from triage.text.stretches import stretch_key as _key
from triage.text.stretches import bare, bare_many, stretch_of
from triage.text.stretches import text_keys as _keys

texts = st.one_of(st.text(max_size=12), st.text(alphabet=" a\u00e9\x00\t\n\u00a0\u2028,'", max_size=10))


@settings(max_examples=500, deadline=None)
@given(batch=st.lists(texts, max_size=8))
@example(batch=["", " ", "a ", " a", "a b", "a  b", "\x00a \x00b", "a \x00", " \x00", "\t a\n", "\u00a0a b"])
def test_the_keys_of_a_batch_are_those_of_each_text_in_turn(batch):
    flat, counts, order = _stretch_keys(batch)
    per_text = [_keys(_STRETCH.findall(text)) for text in batch]
    assert counts.tolist() == list(map(len, per_text))
    assert (flat if order is None else [flat[i] for i in order.tolist()]) == list(chain.from_iterable(per_text))


@settings(max_examples=500, deadline=None)
@given(batch=st.lists(texts, max_size=8))
@example(batch=["a", " a", "\x00a", " \x00a", "  a", "", " ", "\x00", " \x00"])
def test_each_key_gives_its_stretch_back_and_no_two_stretches_share_a_key(batch):
    first, later = set(), set()
    for text in batch:
        stretches = _STRETCH.findall(text)
        keys = _keys(stretches)
        assert list(map(stretch_of, keys)) == stretches
        first.add(stretches[0])
        later.update(stretches[1:])
    # A text's first stretch and a later one are keyed apart even when their texts would agree.
    keyed = {"\0" + s: s for s in first} | {_key(s): s for s in later}
    assert len(keyed) == len(first) + len(later)
    assert all(stretch_of(key) == stretch for key, stretch in keyed.items())


@settings(max_examples=300, deadline=None)
@given(batch=st.lists(texts, max_size=8))
@example(batch=["", " a", "\x00a", " \x00a", "  a", "\x00", "\x00\x00a", "\x00 a", "\u2003b", "abc"])
def test_the_bare_texts_of_many_keys_are_those_of_each_key(batch):
    keys = list(chain.from_iterable(_keys(_STRETCH.findall(text)) for text in batch)) + batch
    assert bare_many(keys) == [bare(key) for key in keys]
