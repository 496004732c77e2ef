"""The corpus being classified as evidence of its own names: a lower-case word the lists read as
ordinary is weighed by the word scorer when the corpus writes it with a capital mid-sentence, and a
reduplication is weighed whatever the lists say; an ordinary word of a nickname's shape (papa) is
never hidden by the scorer but counts in the risk. Invented messages only."""

import numpy as np
import pandas as pd

import triage
from triage import recognizers
from triage.model.names import WORD_FEATURES, CorpusStats, candidate_rows
from triage.seekhide import SeekAndHide


def candidates(lexicons, texts: list[str], corpus: list[str] | None = None) -> set[str]:
    """The word scorer's candidate words of `texts`, the corpus statistics counted on `corpus`."""
    analysis = SeekAndHide(lexicons).analyse(texts)
    stats = CorpusStats().add(corpus if corpus is not None else texts)
    tokens, _, _ = candidate_rows(analysis, stats)
    return {analysis.texts[analysis.message[t]][analysis.start[t]:analysis.end[t]] for t in tokens.tolist()}


def test_a_lower_case_word_the_corpus_capitalises_mid_sentence_is_weighed(lexicons):
    text = "pat arrive demain"
    assert "pat" not in candidates(lexicons, [text])
    corpus = [text, "on voit Pat ce soir", "merci, Pat"]
    assert "pat" in candidates(lexicons, [text], corpus)


def test_what_a_table_remembers_of_the_corpus_counts_follows_the_counts_when_they_grow(lexicons):
    """The rates of each spelling are remembered by the table of spellings, per state of the
    counts: counted again after more messages, a word reads with its new rates."""
    text = "pat arrive demain"
    analysis = SeekAndHide(lexicons).analyse([text])
    stats = CorpusStats().add([text])
    assert "pat" not in {analysis.texts[0][analysis.start[t]:analysis.end[t]]
                         for t in candidate_rows(analysis, stats)[0].tolist()}
    stats.add(["on voit Pat ce soir", "merci, Pat"])
    tokens, rows, _ = candidate_rows(analysis, stats)
    words = [analysis.texts[0][analysis.start[t]:analysis.end[t]] for t in tokens.tolist()]
    assert "pat" in words
    capitalised = rows[words.index("pat"), list(WORD_FEATURES).index("corpus_capitalised")]
    assert capitalised == stats.capitalised_many(["pat"])[0] > 0


def test_a_word_written_in_lower_case_ten_times_as_often_as_with_a_capital_is_not_weighed(lexicons):
    text = "pat arrive demain"
    corpus = [text, "on voit Pat ce soir"] + [f"la pat {i} est prête" for i in range(12)]
    assert "pat" not in candidates(lexicons, [text], corpus)


def test_a_capital_at_a_sentence_start_is_no_evidence(lexicons):
    text = "pat arrive demain"
    assert "pat" not in candidates(lexicons, [text], [text, "Pat arrive", "ok. Pat arrive"])


def test_a_reduplication_is_weighed_whatever_the_lists_say(lexicons):
    found = candidates(lexicons, ["bisous titi a demain", "je fais dodo", "papa arrive", "il fait beau"])
    assert {"titi", "dodo", "papa"} <= found
    assert not {"fait", "beau", "bisous"} & found


def test_an_ordinary_word_of_a_nicknames_shape_is_never_hidden_by_the_scorer(lexicons):
    analysis = SeekAndHide(lexicons).analyse(["je fais dodo", "bisous titi"])
    recognised = recognizers.recognise(analysis)
    kept = {analysis.texts[analysis.message[t]][analysis.start[t]:analysis.end[t]]
            for t in np.flatnonzero(recognised.kept_visible).tolist()}
    assert "dodo" in kept and "titi" not in kept


def test_classify_never_hides_papa_or_dodo_but_weighs_them():
    texts = ["papa arrive ce soir", "je fais dodo", "il fait beau aujourd'hui"]
    out = triage.classify(pd.DataFrame({"text": texts}), expert_budget=0)
    assert list(out.anonymised[:2]) == texts[:2]
    assert out.hidden[0] == "[]" and out.hidden[1] == "[]"
    # Weighed: each counts in its message's risk, above a message of ordinary words only.
    assert min(out.risk[:2]) > out.risk[2]


def test_a_capital_opening_a_sentence_does_not_make_a_word_of_a_nicknames_shape_a_name(lexicons):
    texts = ["Caca !! on a raté le bus", "Sisi je viens ce soir", "on voit Caca ce soir"]
    analysis = SeekAndHide(lexicons).analyse(texts)
    recognised = recognizers.recognise(analysis)
    kept = {(int(analysis.message[t]), analysis.texts[analysis.message[t]][analysis.start[t]:analysis.end[t]])
            for t in np.flatnonzero(recognised.kept_visible).tolist()}
    assert {(0, "Caca"), (1, "Sisi")} <= kept
    assert (2, "Caca") not in kept  # a capital in the middle of a sentence may make it a nickname
