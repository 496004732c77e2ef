"""Decomposed accents (NFD) are analysed composed, with spans in the original text."""

import csv
import json
import unicodedata

from hypothesis import given, settings
from hypothesis import strategies as st

from triage.model.names import CorpusStats
from triage.text.normalise import CONFUSABLES, SPACED_LETTERS, fold, fold_batch, spans_to_folded, to_nfc

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


# ------------------------------------------------------------------ folding disguises

# Characters that folding acts on, with ordinary ones around them.
FOLDING_ALPHABET = ["a", "N", "i", "s", "é", " ", ".", "-", "0", "6", "\u0301", "\u0430", "\u0410", "\u03bf",
                    "\u200b", "\u200d", "\u202e", "\u2066", "\u00ad", "\ufeff", "\u202f", "\u2009", "\uff16",
                    "\uff2e", "\u0666", "\u06f6", "\u0431", "😀", "\u1100", "\u1161", "\u1f50", "\u1f08"]


@given(st.text(alphabet=st.sampled_from(FOLDING_ALPHABET), max_size=24))
def test_folded_spans_map_back_onto_whole_original_characters(text):
    folded, offsets = fold(text)
    if offsets is None:
        assert folded == text
        return
    assert len(offsets.starts) == len(offsets.ends) == len(folded)
    for start in range(len(folded)):
        for end in range(start + 1, len(folded) + 1):
            o_start, o_end = offsets.span(start, end)
            assert 0 <= o_start < o_end <= len(text)
            assert o_end == len(text) or not unicodedata.combining(text[o_end])  # no mark cut from its letter
    # the folded characters stand for the whole text, in order, each for at least one character
    assert all(a <= b for a, b in zip(offsets.starts, offsets.starts[1:]))
    assert all(a <= b for a, b in zip(offsets.ends, offsets.ends[1:]))
    assert fold_batch([text, "ok"]) == ([folded, "ok"], {0: offsets})


plain_text = st.text(alphabet=st.sampled_from(list("abcXYZ019 .,'!?-:\n")), max_size=40)


@given(st.lists(plain_text, max_size=8))
def test_folding_leaves_plain_text_alone(texts):
    texts = [text for text in texts if not SPACED_LETTERS.search(text)]
    assert fold_batch(texts) == (texts, {})
    for text in texts + ["salut Chloé ça va ?", "le cœur… à 18h", "Zoé 😀", "je t aime", "il y a un an"]:
        assert fold(text) == (text, None)


def test_a_russian_word_stays_russian_and_a_mixed_word_is_folded():
    assert fold("привет Nicolas")[0] == "привет Nicolas"
    assert fold("привет Nicol\u0430s")[0] == "привет Nicolas"
    assert fold("\u0410nn\u0430")[0] == "Anna"  # every letter a Latin look-alike


def test_invisible_characters_and_spaced_letters_are_hidden_with_the_name():
    text = "vu N.i.c\u200b.o.l.a.s ?"
    folded, offsets = fold(text)
    assert folded == "vu Nicolas ?"
    start = folded.index("Nicolas")
    assert text[slice(*offsets.span(start, start + 7))] == "N.i.c\u200b.o.l.a.s"


@given(st.text(alphabet=st.sampled_from(FOLDING_ALPHABET), min_size=1, max_size=24), st.data())
def test_a_gold_span_maps_onto_the_folded_characters_it_touches_and_never_shrinks(text, data):
    folded, offsets = fold(text)
    if offsets is None:
        return
    start = data.draw(st.integers(0, len(text) - 1))
    end = data.draw(st.integers(start + 1, len(text)))
    mapped = spans_to_folded([(start, end, "PRE")], offsets)
    touched = [j for j in range(len(folded)) if offsets.starts[j] < end and start < offsets.ends[j]]
    if not touched:  # only characters dropped from a text folded to nothing
        assert mapped == [] and folded == ""
        return
    ((f_start, f_end, tag),) = mapped
    assert (list(range(f_start, f_end)), tag) == (touched, "PRE")
    o_start, o_end = offsets.span(f_start, f_end)
    assert o_start <= start and end <= o_end  # hiding the folded span hides the whole gold span


def test_a_gold_span_ending_inside_a_disguise_covers_the_whole_folded_character():
    text = "vu N.i.c\u200b.o.l.a.s et Rene\u0301 ?"
    folded, offsets = fold(text)
    assert folded == "vu Nicolas et René ?"
    name, accent = text.index("N."), text.index("Rene")

    def folded_words(spans):
        return [folded[s:e] for s, e, _ in spans_to_folded(spans, offsets)]

    assert folded_words([(name, name + len("N.i.c\u200b.o.l.a.s"), "PRE")]) == ["Nicolas"]  # the whole disguise
    assert folded_words([(name, name + 3, "PRE")]) == ["Ni"]  # "N.i" cut inside the dots
    assert folded_words([(name + 5, name + 6, "PRE")]) == ["c"]  # the zero-width space goes with the "c"
    assert folded_words([(accent, accent + 4, "PRE")]) == ["René"]  # "Rene" without its accent: the whole é


DISGUISES = {
    "plain": "Nicolas",
    "Cyrillic a": "Nicol\u0430s",
    "Greek omicron": "Nic\u03bflas",
    "zero-width space": "Nico\u200blas",
    "zero-width joiner": "Ni\u200dcolas",
    "soft hyphen": "Nico\u00adlas",
    "right-to-left override": "Nico\u202elas\u202c",
    "byte-order mark": "\ufeffNicolas",
    "spaced out": "N i c o l a s",
    "dotted out": "N.i.c.o.l.a.s",
    "full-width": "\uff2e\uff49\uff43\uff4f\uff4c\uff41\uff53",
    "capitals": "NICOLAS",
    "struck through": "N\u0336i\u0336c\u0336o\u0336l\u0336a\u0336s\u0336",
    "underlined": "N\u0332i\u0332c\u0332o\u0332l\u0332a\u0332s\u0332",
    "stacked marks": "Ni\u0338\u0335co\u0335las\u0332\u0336",
    "variation selectors": "Ni\ufe0fco\ufe00las\U000e0100",
    "grapheme joiner": "Nic\u034folas",
    "tag characters": "Nico\U000e0041\U000e007flas",
    "mathematical bold": "\U0001d40d\U0001d422\U0001d41c\U0001d428\U0001d425\U0001d41a\U0001d42c",
    "fraktur": "\U0001d511\U0001d526\U0001d520\U0001d52c\U0001d529\U0001d51e\U0001d530",
    "circled": "\u24c3\u24d8\u24d2\u24de\u24db\u24d0\u24e2",
    "small capitals": "N\u026a\u1d04\u1d0f\u029f\u1d00s",
    "no-break spaced": "N\u00a0i\u00a0c\u00a0o\u00a0l\u00a0a\u00a0s",
    "figure spaced": "N\u2007i\u2007c\u2007o\u2007l\u2007a\u2007s",
    "mixed separators": "N.i-c_o/l*a.s",
    "spaced dots": "N . i . c . o . l . a . s",
}


def test_a_disguised_name_gets_the_decision_of_its_plain_spelling(cli, tmp_path):
    source = tmp_path / "sms.csv"
    with open(source, "w", newline="", encoding="utf-8") as handle:
        rows = csv.writer(handle)
        rows.writerow(["id", "text"])
        for trick, name in DISGUISES.items():
            rows.writerow([trick, f"tu as vu {name} hier soir ?"])
    # Each message routed on its own (--calibrated): an exact budget would send one of these
    # equally risky messages to the expert, the first in input order.
    assert cli("classify", source, "-o", tmp_path / "out.csv", "--calibrated").exit_code == 0
    out = {row["id"]: row for row in csv.DictReader(open(tmp_path / "out.csv", encoding="utf-8"))}
    plain = out["plain"]
    assert plain["anonymised"].startswith("tu as vu <PRE_7_")
    for trick, name in DISGUISES.items():
        row = out[trick]
        if trick != "capitals":  # a capitalised word is another spelling, with other features
            assert [row[c] for c in ("seekhide", "model", "score", "decision", "anonymised")] == \
                [plain[c] for c in ("seekhide", "model", "score", "decision", "anonymised")], trick
        assert name not in row["anonymised"] and "<PRE_" in row["anonymised"], trick
        ((start, end, tag),) = json.loads(row["hidden"])
        assert (row["text"][start:end], tag) == (name, "PRE"), trick  # the whole disguise, as written


def test_a_disguised_name_counts_in_the_corpus_as_its_plain_spelling():
    # The corpus counts are a feature of the word scorer: a disguise must not make a name rarer.
    # (mathematical letters have no lower case: their "Nicolas" stays capitalised)
    disguised = [f"tu as vu {name.lower()} hier soir ?" for trick, name in DISGUISES.items()
                 if trick not in ("capitals", "mathematical bold", "fraktur")]
    stats = CorpusStats().add(disguised)
    words = "tu as vu nicolas hier soir".split()
    assert [stats.count(word) for word in words] == [len(disguised)] * len(words)
    assert len(stats.counts) == len(words)  # no other spelling (a disguised one) was counted


def test_each_look_alike_is_a_non_ascii_letter_for_an_ascii_letter():
    assert len(CONFUSABLES) >= 40
    for look_alike, latin in CONFUSABLES.items():
        assert look_alike.isalpha() and not look_alike.isascii() and latin.isascii() and latin.isalpha()
        assert fold(f"x{look_alike}")[0] == f"x{latin}"  # in a word with a Latin letter


def test_compatibility_forms_read_as_their_letters_and_symbols_stay():
    assert fold("\U0001d40d\U0001d422\U0001d41c\U0001d428\U0001d425\U0001d41a\U0001d42c")[0] == "Nicolas"  # bold
    assert fold("\u24c3\u24d8\u24d2\u24de\u24db\u24d0\u24e2")[0] == "Nicolas"  # circled
    assert fold("\u1d3a\u2071\u1d9c\u1d52\u02e1\u1d43\u02e2")[0] == "Nicolas"  # superscript
    assert fold("n\u026a\u1d04\u1d0f\u029f\u1d00s")[0] == "nicolas"  # small capitals
    assert fold("\uff2d\uff41\uff52\uff49\uff45")[0] == "Marie"  # full-width
    text = "vu So\ufb01a ?"  # a ligature: two letters, both standing for it
    folded, offsets = fold(text)
    assert folded == "vu Sofia ?"
    assert text[slice(*offsets.span(3, 8))] == "So\ufb01a"
    assert text[slice(*offsets.span(5, 6))] == "\ufb01"
    for kept in ["le c\u0153ur\u2026", "20\u2103", "Apple\u2122", "\u2116 5", "Louis \u2161", "x\u00b2"]:
        assert fold(kept) == (kept, None), kept


def test_marks_on_a_folded_letter_compose_with_it_and_those_left_are_dropped():
    assert fold("J\u00e9\u0301r\u00f4me")[0] == "J\u00e9r\u00f4me"  # a doubled accent
    assert fold("J\U0001d41e\u0301r\u043e\u0302me")[0] == "J\u00e9r\u00f4me"  # on a bold "e", a Cyrillic "o"
    assert fold("H\u0435\u0301l\u0450n\u0435")[0] == "H\u00e9l\u00e8ne"  # a Cyrillic look-alike with its accent
    assert fold("\u043f\u0440\u0438\u0432\u0435\u0301\u0442")[0] == "\u043f\u0440\u0438\u0432\u0435\u0442"  # stress mark
    # a Greek look-alike whose breathing mark composes with no Latin letter: the letter, the mark dropped
    for disguised, plain in [("\u1f08lice", "Alice"), ("\u1f500A", "u0A")]:
        folded, offsets = fold(disguised)
        assert folded == plain and len(offsets.starts) == len(offsets.ends) == len(plain)
    # a variation selector after an emoji, a skin tone, a keycap's mark on a symbol are not letters' dressing
    for kept in ["\u2764\ufe0f merci", "\U0001f44d\U0001f3fd ok", "#\ufe0f\u20e3"]:
        assert fold(kept) == (kept, None), kept


def test_letters_spelled_out_with_any_separators_are_joined_and_hidden_with_the_name():
    for text in ["vu N\u00a0i\u00a0c\u00a0o\u00a0l\u00a0a\u00a0s !", "vu N\u202fi\u202fc\u202fo\u202fl\u202fa\u202fs !",
                 "vu N.i-c_o/l*a.s !", "vu N . i . c . o . l . a . s !", "vu N . i-c_o / l*a. s !", "vu N\u00b7i\u00b7c\u00b7o\u00b7l\u00b7a\u00b7s !",
                 "vu N - i - c - o - l - a - s !"]:
        folded, offsets = fold(text)
        assert folded == "vu Nicolas !", text
        assert text[slice(*offsets.span(3, 10))] == text[3:-2], text
    # a word of one letter after the name is read as a word
    assert fold("rdv avec N.i.c.o.l.a.s \u00e0 18h")[0] == "rdv avec Nicolas \u00e0 18h"
    assert fold("rdv avec N-i-c-o-l-a-s a 18h")[0] == "rdv avec Nicolas a 18h"
    # not a name spelled out: fewer than four letters, a path, a run going on into a word
    for kept in ["a - b", "2 / 3", "a/b/c", "y a-t-il", "https://exemple.fr/a/b/c/d", "x.a.b.c.de", "J'ai vu E.T. hier"]:
        assert fold(kept) == (kept, None), kept


def test_the_letters_drawn_in_another_style_are_every_one_unicode_gives():
    """The table built at import skips runs of code points that NFKC leaves alone and finds
    the small capitals by name; it must hold exactly what testing every code point gives."""
    from triage.text.normalise import _LETTER_FORMS, _STYLED_LETTER_RANGES, COMPATIBILITY_LETTERS

    expected = {}
    for low, high in _STYLED_LETTER_RANGES:
        for point in range(low, high):
            char = chr(point)
            if char in CONFUSABLES:
                continue
            tag = unicodedata.decomposition(char).partition(" ")[0]
            if tag in _LETTER_FORMS or tag == "<compat>" and char.isalpha():
                folded = unicodedata.normalize("NFKC", char)
                if folded.isalpha() and (char.isalpha() or len(folded) == 1):
                    expected[char] = folded
            elif unicodedata.name(char, "").startswith("LATIN LETTER SMALL CAPITAL ") and len(unicodedata.name(char)) == 28:
                expected[char] = unicodedata.name(char)[-1].lower()
    assert COMPATIBILITY_LETTERS == expected
    assert COMPATIBILITY_LETTERS["𝐍"] == "N" and COMPATIBILITY_LETTERS["ᴀ"] == "a" and COMPATIBILITY_LETTERS["ﬁ"] == "fi"


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.characters(max_codepoint=127), max_size=20))
def test_in_a_text_of_ascii_characters_a_span_is_already_whole_characters(text):
    """grapheme_spans leaves the spans of an ASCII text as they are (no mark, selector nor
    joiner there), which is why it does not look at such a text's characters."""
    from triage.text.normalise import _whole_clusters

    assert all(_whole_clusters(text, start, end) == (start, end)
               for start in range(len(text)) for end in range(start + 1, len(text) + 1))


def test_no_character_before_the_first_extending_one_extends_a_cluster():
    """grapheme_spans looks at a span's ends only where one is at or after _FIRST_EXTENDING:
    no character before it is a mark, a selector, a joiner or a skin tone."""
    from triage.text.normalise import _FIRST_EXTENDING, _extends_cluster

    assert not any(_extends_cluster(chr(point)) for point in range(ord(_FIRST_EXTENDING)))
    assert _extends_cluster(_FIRST_EXTENDING) and "\u200d" > _FIRST_EXTENDING


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet=st.sampled_from(["a", "é", "’", " ", "\u0301", "\u0327", "\u200d", "\u2764", "\ufe0f",
                                         "\U0001f44d", "\U0001f3fd", "\u034f", "…", "Ω"]), min_size=1, max_size=12),
       st.data())
def test_spans_are_widened_to_whole_characters_as_each_end_looked_at_widens_them(text, data):
    """grapheme_spans gives what widening every span by _whole_clusters gives (then merging the
    spans that touch), though it looks only at the ends that may need it."""
    from triage.text.normalise import _whole_clusters, grapheme_spans

    cuts = sorted(data.draw(st.lists(st.integers(0, len(text)), min_size=2, max_size=6)))
    spans = [(start, end, "PRE") for start, end in zip(cuts[::2], cuts[1::2]) if start < end]
    expected: list = []
    for start, end, tag in spans:
        if not text.isascii():
            start, end = _whole_clusters(text, start, end)
        if expected and start < expected[-1][1]:
            expected[-1] = (expected[-1][0], max(end, expected[-1][1]), expected[-1][2])
        else:
            expected.append((start, end, tag))
    assert grapheme_spans(text, spans) == expected


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet=st.sampled_from(["a", "é", "’", " ", "\u0301", "\u0327", "\u200d", "\u2764", "\ufe0f",
                                         "\U0001f44d", "\U0001f3fd", "\u034f", "…", "Ω"]), min_size=1, max_size=12),
       st.data())
def test_a_span_said_whole_is_one_grapheme_spans_leaves_as_it_is(text, data):
    """is_whole (hiding's test for a message's one span) says that grapheme_spans leaves the span
    as it is; where it says no, grapheme_spans is asked."""
    from triage.text.normalise import grapheme_spans, is_whole

    start = data.draw(st.integers(0, len(text) - 1))
    end = data.draw(st.integers(start + 1, len(text)))
    if is_whole(text, start, end):
        assert grapheme_spans(text, [(start, end, "PRE")]) == [(start, end, "PRE")]
