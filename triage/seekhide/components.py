"""Seek&Hide's components of the pipeline: folding, the analysis, and what Seek&Hide alone
decides (the rows of `triage seek`), each registered under its name in
triage/pipeline/stages.txt (triage.pipeline). The context gives `seeker` (the
triage.seekhide.SeekAndHide to analyse with).

Also the two steps every pipeline that writes texts ends with, shared by `triage seek` and
`triage classify`: hiding spans in the texts as written (`hide_spans`), and finding words of the
folded texts in them (`located_words`).
"""

from __future__ import annotations

import itertools

from triage.pipeline import component
from triage.pipeline.memory import VOCABULARY
from triage.seekhide import hidden_json
from triage.text.normalise import fold_batch, grapheme_spans, hide_in_original, is_whole, words_in_original
from triage.text.stretches import STRETCH_IDS


@component("fold", requires=["texts"], assigns=["folded", "folding_maps"])
def _fold(context, batch) -> None:
    batch.folded, batch.folding_maps = fold_batch(batch.texts)  # offsets into the original


@component("stretch", requires=["folded"], assigns=["stretched"])
def _stretch(context, batch) -> None:
    VOCABULARY.enforce()  # between two batches: the caches may start afresh
    batch.stretched = STRETCH_IDS.cut(batch.folded)


@component("seek", requires=["folded", "stretched"], assigns=["analysis"])
def _seek(context, batch) -> None:
    batch.analysis = context.seeker.analyse(batch.folded, batch.stretched)


@component("labels", requires=["analysis"], assigns=["seekhide"])
def _labels(context, batch) -> None:
    batch.seekhide = batch.analysis.message_labels()


@component("words", requires=["folding_maps", "analysis"], assigns=["words"])
def _words(context, batch) -> None:
    analysis, folding_maps = batch.analysis, batch.folding_maps
    words = []
    for i in range(len(analysis)):
        offsets = folding_maps.get(i)
        words.append([(*(offsets.span(w.start, w.end) if offsets else (w.start, w.end)), w)
                      for w in analysis.result(i).words])
    batch.words = words


@component("seek-hide", requires=["texts", "folded", "folding_maps", "analysis"], assigns=["anonymised", "hidden"])
def _seek_hide(context, batch) -> None:
    spans = batch.analysis.hidden_spans()
    batch.anonymised, batch.hidden = hide_spans(context.seeker, batch.texts, batch.folded, batch.folding_maps, spans,
                                                itertools.compress(range(len(spans)), spans))


@component("seek-highlight", requires=["texts", "folded", "folding_maps", "analysis"], assigns=["highlighted"])
def _seek_highlight(context, batch) -> None:
    batch.highlighted = located_words(batch.analysis.highlighted(), batch.texts, batch.folded, batch.folding_maps)


def hide_spans(seeker, texts: list[str], folded: list[str], folding_maps: dict, spans, messages) -> tuple[list, list]:
    """(the texts as written with the spans of the `messages` (indices) hidden, the hidden
    spans of each as JSON); `spans` are per message, in the folded text. The other messages
    stay as written, with nothing hidden."""
    anonymised, hidden_cells = list(texts), ["[]"] * len(texts)
    code_for = seeker.code_for
    for m in messages:
        found, text = spans[m], texts[m]
        if m in folding_maps:
            anonymised[m], found = hide_in_original(code_for, text, folded[m], found, folding_maps[m])
        elif len(found) == 1 and (text.isascii() or is_whole(text, found[0][0], found[0][1])):
            # Most messages hide one span, most often whole characters already: grapheme_spans
            # would leave it as it is.
            anonymised[m] = seeker.coded(text, found)
        else:
            found = grapheme_spans(text, found)
            anonymised[m] = seeker.coded(text, found)
        hidden_cells[m] = hidden_json(found)
    return anonymised, hidden_cells


def located_words(words: list[list[str]], texts: list[str], folded: list[str], folding_maps: dict) -> list[list[str]]:
    """Per message, words of the folded text as written in the text (in place: `words` is
    returned)."""
    for m, offsets in folding_maps.items():
        words[m] = words_in_original(words[m], texts[m], folded[m], offsets)
    return words
