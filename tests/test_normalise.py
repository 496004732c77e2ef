"""Decomposed accents (NFD) are analysed composed, with spans in the original text."""

import csv
import unicodedata

from hypothesis import given
from hypothesis import strategies as st

from triage.normalise import fold_batch, to_nfc

NAMES = ["Sébastien", "Hélène", "Zoé", "Chloé", "Mathéo", "Jérôme", "Noémie", "Maël", "Anaïs", "Benoît"]


@given(st.text(alphabet=st.sampled_from(["a", "e", "E", " ", "\u0301", "\u0300", "\u0327", "\u0308", "é", "\u1100",
                                         "\u1161", "\u11a8", "ß", "\u212b", "\u0323"]), max_size=20))
def test_spans_map_back_onto_whole_original_characters(text):
    composed, offsets = to_nfc(text)
    if offsets is None:
        assert composed == text
        return
    assert composed == unicodedata.normalize("NFC", text)
    for start in range(len(composed)):
        for end in range(start + 1, len(composed) + 1):
            o_start, o_end = offsets.span(start, end)
            assert 0 <= o_start < o_end <= len(text)
            # never a mark cut from its base letter
            assert o_end == len(text) or not unicodedata.combining(text[o_end])
            # the whole clusters around the span: a mark that stays apart after composing
            # is hidden with its letter
            assert composed[start:end] in unicodedata.normalize("NFC", text[o_start:o_end])


def test_composed_texts_are_left_alone():
    texts = ["salut Chloé", "ok", "Zoé 😀"]
    assert fold_batch(texts) == (texts, {})


def test_decomposed_names_are_hidden_whole_like_composed_ones(cli, tmp_path):
    def write(name, form):
        path = tmp_path / name
        with open(path, "w", newline="", encoding="utf-8") as handle:
            rows = csv.writer(handle)
            rows.writerow(["id", "text"])
            for i, first_name in enumerate(NAMES):
                rows.writerow([i, unicodedata.normalize(form, f"salut {first_name} ça va ? à demain")])
        return path

    for name, form in (("nfc", "NFC"), ("nfd", "NFD")):
        assert cli("classify", write(f"{name}.csv", form), "-o", tmp_path / f"{name}.out.csv").exit_code == 0
    composed = list(csv.DictReader(open(tmp_path / "nfc.out.csv", encoding="utf-8")))
    decomposed = list(csv.DictReader(open(tmp_path / "nfd.out.csv", encoding="utf-8")))
    for plain, nfd in zip(composed, decomposed):
        assert nfd["text"] == unicodedata.normalize("NFD", plain["text"])  # the text as written
        assert unicodedata.normalize("NFC", nfd["anonymised"]) == plain["anonymised"]
        assert "<PRE_" in plain["anonymised"]
    assert cli("seek", tmp_path / "nfd.csv", "--words", "-o", tmp_path / "words.csv").exit_code == 0
    words = list(csv.DictReader(open(tmp_path / "words.csv", encoding="utf-8")))
    assert unicodedata.normalize("NFD", "Sébastien") in [w["word"] for w in words]


def test_words_to_look_at_are_given_as_written(cli, tmp_path):
    text = unicodedata.normalize("NFD", "tu connais Zébulonette ? elle arrive")
    source = tmp_path / "sms.csv"
    source.write_text(f"id,text\n1,{text}\n", "utf-8")
    for command in ("seek", "classify"):
        assert cli(command, source, "-o", tmp_path / f"{command}.csv").exit_code == 0
        (row,) = csv.DictReader(open(tmp_path / f"{command}.csv", encoding="utf-8"))
        assert unicodedata.normalize("NFD", "Zébulonette") in row["highlighted"] or "<" in row["anonymised"]
        for word in __import__("json").loads(row["highlighted"]):
            assert word in text
