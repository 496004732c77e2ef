"""A text is cut into stretch ids once: the corpus statistics pass cuts the texts it keeps for
classifying, and Seek&Hide takes those ids as they are while they are valid (the messages with
detector hits are cut again, segment by segment); stale ids are never read."""

from __future__ import annotations

import multiprocessing
import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from triage.classifier import FoldedPairs
from triage.seekhide import SeekAndHide
from triage.seekhide import table as table_module
from triage.text import stretches
from triage.text.normalise import fold_batch
from triage.text.stretches import STRETCH_IDS

# Texts with what changes the cut: detector hits (a phone number, an e-mail address), white space
# other than single spaces, a text of white space alone, a NUL.
WORDS = ["salut", "Patrice,", "06 12 34 56 78", "marie@example.org", "ça", "va", "?", "demain\n", "  à", "\t",
         "Mme", "Petit", "l'école", "\x00x", "", ":-)", "j'arrive"]
TEXTS = st.lists(st.lists(st.sampled_from(WORDS), max_size=8).map(" ".join), min_size=1, max_size=8)


def tokens(analysis) -> list:
    return [(analysis.texts[m][b:e], b, e, k, label, m) for b, e, k, label, m in zip(
        *(getattr(analysis, name).tolist() for name in ("start", "end", "kind", "label", "message")))]


@pytest.fixture(scope="module")
def seekers(lexicons):
    return SeekAndHide(lexicons), SeekAndHide(lexicons)


@settings(max_examples=150, deadline=None)
@given(texts=TEXTS)
def test_given_stretch_ids_give_the_tokens_of_cutting_the_texts_again(seekers, texts):
    cutting, taking = seekers
    folded = fold_batch(texts)[0]
    stretched = STRETCH_IDS.cut(folded)
    assert tokens(taking.analyse(folded, stretched)) == tokens(cutting.analyse(folded))


def test_the_messages_without_hits_are_not_cut_into_stretches_again(lexicons, monkeypatch):
    texts = fold_batch(["salut Patrice, ça va ?", "appelle le 06 12 34 56 78 demain", "ok  à demain\n"])[0]
    seeker = SeekAndHide(lexicons)
    expected = tokens(seeker.analyse(texts))
    stretched = STRETCH_IDS.cut(texts)
    cut = []
    batch_keys = stretches.batch_keys
    monkeypatch.setattr(stretches, "batch_keys", lambda given: cut.append(list(given)) or batch_keys(given))
    assert tokens(SeekAndHide(lexicons).analyse(texts, stretched)) == expected
    # Only the segments of the message with a phone number around it are cut again.
    assert cut == [["appelle le ", " demain"]]


def test_stale_stretch_ids_are_not_read(lexicons):
    texts = fold_batch(["salut Patrice", "Mme Petit arrive"])[0]
    expected = tokens(SeekAndHide(lexicons).analyse(texts))
    stretched = STRETCH_IDS.cut(texts)
    STRETCH_IDS.clear()  # as the memory budget empties it: its ids are given again to other stretches
    STRETCH_IDS.cut(fold_batch(["tout autre chose", "encore"])[0])
    assert not STRETCH_IDS.valid(stretched)
    assert tokens(SeekAndHide(lexicons).analyse(texts, stretched)) == expected


def test_a_table_cuts_again_what_it_had_cut_once_the_stretch_ids_start_afresh(lexicons):
    seeker = SeekAndHide(lexicons)
    texts = fold_batch(["salut Patrice", "à demain"])[0]
    first = tokens(seeker.analyse(texts))
    STRETCH_IDS.clear()
    STRETCH_IDS.cut(["demain salut", "autre"])  # the ids of the table's stretches now name others
    assert tokens(seeker.analyse(texts)) == first
    assert tokens(seeker.analyse(fold_batch(["demain salut", "autre"])[0])) == tokens(
        SeekAndHide(lexicons).analyse(fold_batch(["demain salut", "autre"])[0]))


def test_kept_chunks_go_to_another_process_with_their_folded_texts_and_stretch_ids():
    pairs = [("1", "salut Patrice"), ("2", "ＭＭＥ Petit"), ("3", "à demain")]
    folded, maps = fold_batch([text for _, text in pairs])
    assert list(maps) == [1]  # the full-width letters are folded
    chunk = FoldedPairs(pairs, folded, maps, STRETCH_IDS.cut(folded))
    sent = pickle.loads(pickle.dumps(chunk))
    assert type(sent) is FoldedPairs and sent == pairs
    assert sent.folded == folded and list(sent.folding_maps) == [1]
    assert sent.stretched.ids.tolist() == chunk.stretched.ids.tolist() and STRETCH_IDS.valid(sent.stretched)


def test_kept_chunks_joined_keep_their_folded_texts_and_stretch_ids_while_these_are_of_one_table(lexicons):
    # As a worker of --jobs joins two chunks it keeps into one batch (engines._classify_with_next).
    chunks = []
    for pairs in ([("1", "salut Patrice"), ("2", "ＭＭＥ Petit")], [("3", "à demain"), ("4", "ｏｋ  Marc\t!")]):
        folded, maps = fold_batch([text for _, text in pairs])
        chunks.append(FoldedPairs(pairs, folded, maps, STRETCH_IDS.cut(folded)))
    joined = FoldedPairs.joined(chunks)
    texts = [text for _, text in joined]
    whole, maps = fold_batch(texts)
    assert joined == chunks[0] + chunks[1] and joined.folded == whole
    assert list(joined.folding_maps) == list(maps) == [1, 3] and joined.folding_maps == maps
    assert STRETCH_IDS.valid(joined.stretched)
    assert joined.stretched.ids.tolist() == STRETCH_IDS.cut(whole).ids.tolist()
    assert joined.stretched.counts.tolist() == STRETCH_IDS.cut(whole).counts.tolist()
    assert tokens(SeekAndHide(lexicons).analyse(whole, joined.stretched)) == tokens(SeekAndHide(lexicons).analyse(whole))
    STRETCH_IDS.clear()  # the ids of a chunk cut afterwards are of another table: none are kept
    folded, maps = fold_batch(["encore un"])
    later = FoldedPairs([("5", "encore un")], folded, maps, STRETCH_IDS.cut(folded))
    assert FoldedPairs.joined([chunks[0], later]).stretched is None
    assert FoldedPairs.joined([FoldedPairs(chunks[0], chunks[0].folded, chunks[0].folding_maps, None)]).stretched is None


_FORKED: dict = {}
_FORKED: dict = {}


def _cut_in_a_forked_worker(texts: list[str]) -> tuple[int, bool]:
    cut = _FORKED["seeker"].spellings.cut(texts)
    return len(cut.new), STRETCH_IDS.valid(_FORKED["stretched"])


def _valid_in_a_forked_worker(stretched) -> bool:
    return STRETCH_IDS.valid(stretched)


def test_a_forked_worker_keeps_what_the_parent_cut_and_takes_no_ids_given_there(lexicons):
    # As classify --jobs forks its workers once this process has learnt the first chunk.
    texts = fold_batch(["salut Patrice", "Mme Petit arrive demain"])[0]
    seeker = SeekAndHide(lexicons)
    seeker.analyse(texts)
    _FORKED.update(seeker=seeker, stretched=STRETCH_IDS.cut(texts))
    with multiprocessing.get_context("fork").Pool(1) as pool:
        new, valid = pool.apply(_cut_in_a_forked_worker, (texts,))
        # Ids this process gives after the fork name other stretches in the worker.
        after = STRETCH_IDS.cut(fold_batch(["une phrase toute neuve ici"])[0])
        valid_after = pool.apply(_valid_in_a_forked_worker, (after,))
    assert new == 0 and valid  # cut before the fork: the worker's ids too
    assert not valid_after
    assert len(seeker.spellings.cut(texts).new) == 0 and STRETCH_IDS.valid(_FORKED["stretched"])


def _cleared_then_valid(stretched) -> bool:
    STRETCH_IDS.clear()  # as the memory budget empties the worker's table
    return STRETCH_IDS.valid(stretched)


def test_a_forked_worker_reads_no_inherited_ids_once_its_table_is_emptied():
    stretched = STRETCH_IDS.cut(fold_batch(["salut Patrice"])[0])
    with multiprocessing.get_context("fork").Pool(1) as pool:
        assert pool.apply(_valid_in_a_forked_worker, (stretched,))
        assert not pool.apply(_cleared_then_valid, (stretched,))


def _cut_here(texts: list[str]):
    from triage.text.stretches import cut_for_another

    return cut_for_another(lambda: STRETCH_IDS.cut(texts))


def test_stretch_ids_given_in_workers_are_read_here_as_this_process_own():
    from triage.text.stretches import StretchTranslation

    batches = [["salut Patrice", "à demain"], ["salut  Marie", "demain\tPatrice"], ["ok", "salut Patrice"]]
    translation = StretchTranslation()
    with multiprocessing.get_context("fork").Pool(2) as pool:
        STRETCH_IDS.cut(["déjà là avant"])  # ids given here after the fork: the workers give the same ones
        read = [translation.translate(local) for local in pool.map(_cut_here, batches, chunksize=1)]
    for texts, stretched in zip(batches, read):
        assert STRETCH_IDS.valid(stretched)
        expected = STRETCH_IDS.cut(texts)
        assert stretched.ids.tolist() == expected.ids.tolist() and stretched.counts.tolist() == expected.counts.tolist()


def test_a_worker_batch_whose_earlier_ids_were_not_seen_is_not_read():
    from triage.text.stretches import StretchTranslation

    with multiprocessing.get_context("fork").Pool(1) as pool:
        first, second = pool.map(_cut_here, [["Zorglubine arrive"], ["Zorglubine part"]], chunksize=1)
    translation = StretchTranslation()
    assert translation.translate(second) is None  # the key of "Zorglubine" came with the first batch
    assert translation.translate(first) is None  # nor any later one of that worker
    in_order = StretchTranslation()
    assert STRETCH_IDS.valid(in_order.translate(first)) and STRETCH_IDS.valid(in_order.translate(second))
    STRETCH_IDS.clear()  # the ids the worker inherited name other stretches now
    assert StretchTranslation().translate(first) is None


def test_stretch_ids_made_in_another_process_are_not_valid_here():
    stretched = STRETCH_IDS.cut(["salut"])
    (pid, nonce), *rest = stretched.token
    stretched.token = ((pid + 1, nonce), *rest)
    assert not STRETCH_IDS.valid(stretched)
    # A process elsewhere (another machine's Dask worker) may have the same pid, and its table the
    # same address: the ids it sends are still not read as this process's.
    stretched.token = ((pid, bytes(8)), *rest)
    assert not STRETCH_IDS.valid(stretched)


def test_a_stretch_that_does_not_cut_into_whole_pieces_has_its_text_cut_whole(lexicons, monkeypatch):
    # No stretch is known that would not cut into whole pieces on its own: one is made so here.
    seeker = SeekAndHide(lexicons)
    texts = ["salut Patrice", "ok demain", "oui Patrice arrive"]
    expected = tokens(SeekAndHide(lexicons).analyse(texts))
    findall = table_module.PIECE.findall

    class Piece:
        @staticmethod
        def findall(stretch):
            found = findall(stretch)
            return found[:-1] if stretch == " Patrice" else found

    monkeypatch.setattr(table_module, "PIECE", Piece)
    monkeypatch.setattr(table_module, "are_plain", lambda values: [False] * len(values))
    cut = seeker.spellings.cut(texts)
    assert cut.whole.tolist() == [True, False, True]
    assert cut.counts.tolist() == [2] and len(cut.ids) == 2
    monkeypatch.undo()
    assert tokens(seeker.analyse(texts)) == expected


def test_the_ids_of_a_batch_are_those_of_its_texts_in_turn():
    texts = ["a b", "c\td", " e", "a  b", "b"]
    stretched = STRETCH_IDS.cut(texts)
    keys = [STRETCH_IDS.texts[i] for i in stretched.ids.tolist()]
    per_text = np.split(np.array(keys, dtype=object), np.cumsum(stretched.counts)[:-1])
    assert [list(k) for k in per_text] == [stretches.text_keys(stretches.STRETCH.findall(t)) for t in texts]
