"""Properties that must hold for any text, checked on generated messages (hypothesis):
offsets point back into the text, hiding changes nothing outside what it hides, classify
never crashes and gives one decision per message, and a run is reproducible.

Each property is kept to a few seconds (max_examples, no deadline: the first example
loads the lexicons). Texts mix arbitrary Unicode with pieces that make Seek&Hide work:
names, titles, phone numbers, e-mails, elisions, emoticons, look-alikes of its own codes.
"""

from __future__ import annotations

import csv
import json
import os
import re
import subprocess
import sys
import tempfile
import unicodedata
from collections import Counter
from itertools import chain
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from triage import model
from triage.io.messages import Records
from triage.model.names import CorpusStats
from triage.text.normalise import JOINERS, fold, fold_batch
from triage.classifier import Classifier
from triage.jobs import run_classify, run_seek
from triage.schema import CLASSIFY_COLUMNS
from triage.seekhide import KINDS, LABELS, Rule, SeekAndHide, rule_code
from triage.text.tokenise import PIECE, PUNCT, WORD, split_piece, tokenise

from conftest import REPO, SAMPLE

# The autouse fixture only points the user lexicon at an empty folder: the same for every
# example, so sharing it across examples is safe.
SETTINGS = dict(deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])

PIECES = [
    "Julie", "julie", "JULIE", "Juuuliiie", "Kevin", "Pierre", "Jean-Marc", "Dupont", "M. Martin", "Mme Petit",
    "Chloé", "Zoé", "Léa", "Inès", "Zorglub", "kon", "Rose", "Paris", "Lyon", "Ile-de-France",
    "une", "La", "l'", "rose", "ange", "rose-bonbon",  # a determiner before a word that is a name too
    "est", "reste", "c'", "c", "qui", "claire", "est-ce",  # a copula, with or without a presentative
    "marie", "durand", "Girard", "seb", "flo",  # a surname after a first name; first names cut short
    "Sophie", "Petit", "PETIT", "Blanc", "Rivière", "GROS", "Le",  # a surname the lists read as a word
    "dem", "deso", "journé", "avec",  # everyday words cut short, and a person cue
    "I'm", "will", "my", "the", "you", "tomorrow", "with", "Will", "and", "hola", "just", "story",  # another language
    "Ahahaaaahahahaa", "gogogo", "Pppppp", "Marseile", "Free",  # laughter, a place misspelt, a brand
    "j'arrive", "aujourd'hui", "qu'il", "t’appelle", "c'est-à-dire", "jsp", "mdr", "tkt", "ok", "a+", "2m1",
    "06 12 34 56 78", "+33 6 12 34 56 78", "0612345678", "julie.martin@example.fr", "https://example.org/a?b=1",
    "www.exemple.fr", "12 rue de la Paix", "75001", "18h30", "5€", "1er",
    ":-)", ";)", "xD", "<3", "^^", "-_-", "😀", "👍🏽", "👨‍👩‍👧", "❤️", "e\u0301", "\u200b", "\ufeff",
    "<PRE_5_1234567>", "<TEL_", "_5_", ">",
    # disguises that messages are folded out of (triage/text/normalise.py)
    "Nicol\u0430s", "N i c o l a s", "N.i.c.o.l.a.s", "Ju\u202elie", "\u202f", "\u00ad", "\u0430",
    "\uff10\uff16 \uff11\uff12 \uff13\uff14 \uff15\uff16 \uff17\uff18", "\u0660\u0666", "o6 12 34 56 78", "code 4521B",
    " ", "  ", ", ", ". ", "! ", "?", "'", "’", "-", "\n", "\r\n", "\t", "\x00", "\x85", "\u2028",
]
# Arbitrary Unicode (no lone surrogates: they cannot be in a decoded file) and SMS-like text.
unicode_text = st.text(max_size=40)
piece = st.sampled_from(PIECES)
sms_text = st.lists(st.one_of(piece, piece, st.text(max_size=6)), max_size=14).map("".join)
any_text = st.one_of(unicode_text, sms_text)


@pytest.fixture(scope="module")
def seeker(lexicons) -> SeekAndHide:
    return SeekAndHide(lexicons)


@pytest.fixture(scope="module")
def predictor():
    return model.load_predictor(model.default_model_path())


# ------------------------------------------------------------------------- offsets


@settings(max_examples=400, **SETTINGS)
@given(texts=st.lists(any_text, max_size=6))
def test_cutting_texts_at_their_white_space_gives_the_pieces_of_the_regular_expression(seeker, texts):
    table = seeker.spellings  # shared across examples, as across the batches of a run
    cut = table.cut(texts)
    ids, counts = table.piece_ids_of(cut)
    assert not cut.whole.any()  # every stretch cuts into whole pieces on its own
    whole = [[table.piece_ids[piece] for piece in PIECE.findall(text)] for text in texts]
    assert counts.tolist() == list(map(len, whole))
    assert ids.tolist() == [ident for pieces in whole for ident in pieces]


@settings(max_examples=300, **SETTINGS)
@given(texts=st.lists(any_text, max_size=6))
def test_the_table_holds_what_each_piece_and_spelling_is_made_of(seeker, texts):
    table = seeker.spellings  # shared across examples: the pieces and spellings of a batch are added to earlier ones
    seeker.analyse(texts)
    columns = table.numpy()
    assert len(columns.kind) == len(columns.label) == len(columns.length) == len(table.texts)
    for sid, (text, info, tag) in enumerate(zip(table.texts, table.infos, table.tags)):
        kind = KINDS[columns.kind[sid]]
        assert table.spelling_ids[(text or tag, kind)] == sid
        assert (info is not None) == (kind == WORD) and (info is None or info == seeker.label_word(text))
        assert columns.label[sid] == (LABELS.index(info.label) if info else -1)
        assert columns.rule[sid] == (rule_code(info.rule) if info else -1)
        assert columns.weak[sid] == bool(info and info.weak) and columns.title[sid] == bool(info and info.title)
        assert columns.capitalised[sid] == (text[:1].isupper() and not text.isupper())
        assert columns.sentence_end[sid] == (kind == PUNCT and re.search(r"[.!?…]", text) is not None)
        assert columns.length[sid] == len(text)
    for piece, ident in table.piece_ids.items():
        first, count = columns.piece_first[ident], columns.piece_parts[ident]
        parts = [(int(columns.part_offset[k]), table.texts[columns.part_spelling[k]], bool(columns.part_of_compound[k]))
                 for k in range(first, first + count)]
        if isinstance(piece, tuple):  # a detection
            assert columns.piece_length[ident] == 0 and parts == [(0, "", False)]
            assert table.tags[columns.part_spelling[first]] == piece[1]
            continue
        assert columns.piece_length[ident] == len(piece)
        expected = []
        for offset, text, kind in split_piece(piece, seeker.keep_whole):
            if kind == WORD and seeker.label_word(text).rule == Rule.COMPOUND:
                for part in text.split("-"):
                    if part:
                        expected.append((offset, part, True))
                    offset += len(part) + 1
            else:
                expected.append((offset, text, False))
        assert parts == expected, piece


@settings(max_examples=150, **SETTINGS)
@given(texts=st.lists(any_text, max_size=6), every=st.integers(1, 3))
def test_a_segment_cut_whole_gets_the_tokens_it_gets_cut_stretch_by_stretch(lexicons, texts, every):
    # No stretch of text is known that would not cut into whole pieces on its own; were one found, its
    # segment (a message, or the text between two detector hits) would be cut whole: as if one in
    # `every` segments were.
    def tokens(seeker):
        analysis = seeker.analyse(texts)
        return [(analysis.texts[m][b:e], b, e, k, label, rule, m) for b, e, k, label, rule, m in zip(
            *(getattr(analysis, name).tolist() for name in ("start", "end", "kind", "label", "rule", "message")))]

    expected = tokens(SeekAndHide(lexicons))
    seeker = SeekAndHide(lexicons)
    cut = seeker.spellings.cut

    def cut_whole(segments, given=None):
        found = cut(segments, given)
        whole = np.arange(len(segments)) % every == 0
        found.ids = found.ids[np.repeat(~whole, found.counts)]
        found.counts, found.whole = found.counts[~whole], whole
        return found

    seeker.spellings.cut = cut_whole
    assert tokens(seeker) == expected


@settings(max_examples=300, **SETTINGS)
@given(texts=st.lists(any_text, max_size=6))
def test_corpus_counts_are_the_lower_case_words_of_each_message_counted_once(texts):
    stats = CorpusStats().add(texts * 2)  # the second time from remembered stretches
    folded, _ = fold_batch(texts)  # counted as Seek&Hide reads the texts
    expected = Counter(word for text in folded for word in set(re.findall(r"[^\W\d_]+", text)) if word.islower())
    assert len(stats.counts) == len(expected)
    assert [stats.count(word) for word in expected] == [2 * n for n in expected.values()]
    for text in folded:  # every count asked is kept: count() reads lower-case words only
        for word in re.findall(r"[^\W\d_]+", text):
            assert stats.count(word) == (2 * expected[word.lower()] if word.lower().islower() else 0)


def check_tokens(text: str, tokens) -> None:
    previous_end = 0
    for token in tokens:
        assert text[token.start : token.end] == token.text
        assert previous_end <= token.start < token.end  # sorted, non-empty, non-overlapping
        previous_end = token.end


@settings(max_examples=300, **SETTINGS)
@given(text=any_text)
def test_token_offsets_point_back_into_the_text(seeker, text):
    check_tokens(text, tokenise(text))
    check_tokens(text, tokenise(text, seeker.keep_whole))


@settings(max_examples=200, **SETTINGS)
@given(texts=st.lists(any_text, max_size=6))
def test_each_token_of_a_batch_but_a_detector_hit_spans_its_spelling_in_its_message(seeker, texts):
    from triage.seekhide import K_DETECTED

    analysis = seeker.analyse(texts)
    spelled = analysis.spellings.texts
    tokens = np.flatnonzero(analysis.kind != K_DETECTED)  # (a hit is spelled by its tag alone)
    assert [analysis.texts[m][start:end] for m, start, end in zip(
        analysis.message[tokens].tolist(), analysis.start[tokens].tolist(), analysis.end[tokens].tolist())] == \
        [spelled[s] for s in analysis.spelling[tokens].tolist()]


@settings(max_examples=200, **SETTINGS)
@given(text=any_text)
def test_word_offsets_of_seek_point_back_into_the_text(seeker, text):
    result = seeker.seek(text)
    check_tokens(text, result.tokens)
    check_tokens(text, result.words)


@settings(max_examples=200, **SETTINGS)
@given(texts=st.lists(any_text, max_size=6))
def test_a_message_gets_the_same_words_in_a_batch_as_alone(seeker, texts):
    batch = seeker.analyse(texts)
    for m, text in enumerate(texts):
        assert batch.result(m) == seeker.seek(text), text


# ------------------------------------------------------------------- anonymisation


def check_only_spans_changed(text: str, hidden, anonymised: str, folded: bool = False) -> None:
    """`anonymised` is `text` with each hidden span replaced by a code <TAG_length_id>,
    every other character unchanged and in place. The length is the span's in composed form
    (NFC), and for classify, which analyses messages folded, the span's folded (no invisible
    characters, letters spaced out joined...: triage/text/normalise.py): a name has the same code
    however it was typed."""
    pattern, last = [], 0
    for start, end, tag in hidden:
        assert last <= start < end <= len(text), (hidden, len(text))
        pattern.append(re.escape(text[last:start]))
        pattern.append(f"<{re.escape(tag)}_{len(fold(text[start:end])[0] if folded else unicodedata.normalize('NFC', text[start:end]))}_[0-9]+>")
        last = end
    pattern.append(re.escape(text[last:]))
    assert re.fullmatch("".join(pattern), anonymised, re.DOTALL), (text, hidden, anonymised)


@settings(max_examples=300, **SETTINGS)
@given(text=any_text)
@example(text="HTTP://A\u0300")  # a decomposed accent inside a detector hit: the code counts it composed
def test_seek_never_changes_a_character_outside_hidden_spans(seeker, text):
    result = seeker.seek(text)
    check_only_spans_changed(text, result.hidden, result.anonymised)
    if not result.hidden:
        assert result.anonymised == text


# ------------------------------------------------------------------------ classify


def classify(predictor, texts: list[str]) -> list[dict]:
    """The library's classifier on in-memory messages, with the corpus statistics that
    run_classify would compute for this corpus."""
    classifier = Classifier(predictor, stats=CorpusStats().add(texts))
    rows = classifier.rows([(str(i + 1), text) for i, text in enumerate(texts)])
    return [dict(zip(CLASSIFY_COLUMNS, row)) for row in rows]


@settings(max_examples=15, **SETTINGS)
@given(texts=st.lists(any_text, max_size=40))  # many messages per (costly) classifier
@example(texts=["0000000\uff10\u0300"])  # a code ending in a full-width digit with a mark: the mark counts
def test_classify_never_crashes_and_decides_every_message(predictor, texts):
    rows = classify(predictor, texts)
    assert [(r["id"], r["text"]) for r in rows] == [(str(i + 1), t) for i, t in enumerate(texts)]
    for row in rows:
        assert row["decision"] in {"TA", "NTA", "EXPERT"}
        assert row["seekhide"] in {"TA", "NTA", "UNTAGGED"}
        assert 0.0 <= float(row["score"]) <= 1.0
        # What classify hides (Seek&Hide's spans or the word scorer's) also leaves the rest intact.
        check_only_spans_changed(row["text"], json.loads(row["hidden"]), row["anonymised"], folded=True)


def write_corpus(path: Path, texts: list[str]) -> Path:
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)  # CRLF line ends: a CR inside a message is quoted
        writer.writerow(["id", "text"])
        writer.writerows((i + 1, text) for i, text in enumerate(texts))
    return path


@settings(max_examples=4, **SETTINGS)
@given(texts=st.lists(any_text, min_size=1, max_size=12))
def test_the_same_input_and_model_give_the_same_output(texts):
    with tempfile.TemporaryDirectory() as folder:
        source = write_corpus(Path(folder) / "sms.csv", texts)
        outputs = []
        for run in ("one", "two"):
            out = Path(folder) / f"{run}.csv"
            run_classify(source, out, chart=False, chunk_size=5)
            run_seek(source, Path(folder) / f"{run}.seek.csv")
            outputs.append((out.read_bytes(), (Path(folder) / f"{run}.seek.csv").read_bytes()))
        assert outputs[0] == outputs[1]


def test_the_output_does_not_depend_on_the_process(tmp_path):
    """Two processes with different string hashing (set and dict orders that a run could
    leak into its output) write the same bytes."""
    outputs = []
    for seed in ("1", "2"):
        out = tmp_path / f"out{seed}.csv"
        done = subprocess.run(
            [sys.executable, "-m", "triage", "classify", str(SAMPLE), "-o", str(out)],
            capture_output=True, text=True, timeout=120,
            env={**os.environ, "PYTHONHASHSEED": seed, "PYTHONPATH": str(REPO),
                 "TRIAGE_USER_LEXICON_DIR": str(tmp_path / "no-user-lexicon")},
        )
        assert done.returncode == 0, done.stderr
        outputs.append(out.read_bytes())
    assert outputs[0] == outputs[1]


# ------------------------------------------------------------------- the reference


@settings(max_examples=400, **SETTINGS)
@given(texts=st.lists(any_text, min_size=1, max_size=5),
       off=st.sets(st.sampled_from(["title", "weak-name", "capitalised-guess", "misspelling", "determiner",
                                        "copula", "first-name-surname", "word-surname", "onomatopoeia",
                                        "abbreviation", "other-language"]),
                   max_size=2))
@example(texts=["why just story", "avec marie durand", "just Durand", "Marie story", "M:La", "Mme Petit",
                 "M:0\nJulieJulie", "M. Martin", "Madame. Martin", "Dr: 5 Martin"], off=set())
def test_the_batch_code_agrees_with_the_per_message_reference(lexicons, texts, off):
    from seekhide_reference import reference_seek

    seeker = SeekAndHide(lexicons, off=off)
    analysis = seeker.analyse(texts)
    for m, text in enumerate(texts):
        result = analysis.result(m)
        # Seek&Hide's spans as found (hiding then widens them to whole grapheme clusters)
        found = sorted(analysis.hidden_spans()[m])
        batch = (result.label, [(w.start, w.end, w.label, str(w.rule)) for w in result.words], found)
        assert batch == reference_seek(seeker, text), text


# ------------------------------------------------------------------------ disguises

# First names Seek&Hide hides in "tu as vu <name> hier soir ?", accents included.
DISGUISED_NAMES = ["Jérôme", "Nicolas", "Anaïs", "Julie", "Chloé", "Sébastien", "Hélène", "Benoît"]


def _styled(upper: int, lower: int):
    """A letter style of Unicode (mathematical bold..., circled, full-width) from the code points
    of its "A" and "a"; a letter the style lacks stays as it is."""
    def style(letter: str) -> str:
        if not letter.isascii():
            return letter
        point = (upper + ord(letter) - ord("A")) if letter.isupper() else (lower + ord(letter) - ord("a"))
        return chr(point) if unicodedata.name(chr(point), "") else letter
    return style


def _small_capital(letter: str) -> str:
    found = unicodedata.lookup(f"LATIN LETTER SMALL CAPITAL {letter.upper()}") if letter.islower() and letter.isascii() and \
        f"LATIN LETTER SMALL CAPITAL {letter.upper()}" in SMALL_CAPITAL_NAMES else None
    return found or letter


SMALL_CAPITAL_NAMES = {unicodedata.name(chr(p), "") for p in range(0x1D00, 0x1D80)} | {
    unicodedata.name(chr(p), "") for p in range(0x0250, 0x02B0)} | {unicodedata.name(chr(p), "") for p in range(0xA730, 0xA780)}
LETTER_STYLES = [
    lambda letter: letter,
    _styled(0x1D400, 0x1D41A),  # mathematical bold
    _styled(0x1D434, 0x1D44E),  # mathematical italic
    _styled(0x1D49C, 0x1D4B6),  # mathematical script
    _styled(0x1D504, 0x1D51E),  # fraktur
    _styled(0x1D538, 0x1D552),  # double-struck
    _styled(0x1D5A0, 0x1D5BA),  # sans-serif
    _styled(0x1D670, 0x1D68A),  # monospace
    _styled(0x24B6, 0x24D0),  # circled
    _styled(0xFF21, 0xFF41),  # full-width
    _small_capital,
]
# What may follow a letter and still be read through: doubled accents, strokes, underlines,
# variation selectors, the grapheme joiner, tag characters, zero-width characters.
LETTER_DRESSING = ["\u0301", "\u0336", "\u0335", "\u0338", "\u0332", "\ufe00", "\ufe0f", "\U000e0100", "\u034f",
                   "\U000e0041", "\U000e007f", "\u200b", "\u200d", "\u2060"]
# What may stand between the letters of a name spelled out: spaces, or marks with or without
# spaces around them (each kind mixed at will).
LETTER_SEPARATORS = [[" ", "\u00a0", "\u202f", "\u2007", "\u2009", "\u3000", "  ", "\t"],
                     [".", "-", "_", "/", "*", "·", "\u2013", " . ", " - ", ". ", "\u00a0/ ", "--"]]


@st.composite
def disguised_names(draw) -> tuple[str, str]:
    """(a first name, that name in disguise): each letter drawn in one style, its accent decomposed
    or not, with extra marks and invisible characters after it; the letters joined as they are
    or spelled out with separators (mixed), and some letters swapped for a look-alike."""
    name = draw(st.sampled_from(DISGUISED_NAMES))
    style = draw(st.sampled_from(LETTER_STYLES))
    decompose, spaced = draw(st.booleans()), draw(st.booleans())
    letters = []
    for letter in name:
        base, *marks = unicodedata.normalize("NFD", letter)
        styled = style(base)
        if styled == base and draw(st.integers(0, 5)) == 0:
            styled = {"a": "\u0430", "e": "\u0435", "o": "\u043e", "c": "\u0441", "i": "\u0456"}.get(base, base)
        written = styled + "".join(marks)
        if not decompose and styled == base:
            written = unicodedata.normalize("NFC", written)
        written += "".join(draw(st.lists(st.sampled_from(LETTER_DRESSING), max_size=2)))
        letters.append(written)
    if not spaced:
        return name, "".join(letters)
    separators, disguise = draw(st.sampled_from(LETTER_SEPARATORS)), letters[0]
    for letter in letters[1:]:
        disguise += draw(st.sampled_from(separators)) + letter
    return name, disguise


@settings(max_examples=300, **SETTINGS)
@given(disguised=disguised_names())
@example(disguised=("Jérôme", "J\u00e9\u0301r\u00f4me"))
@example(disguised=("Nicolas", "N\u0336i\u0336c\u0336o\u0336l\u0336a\u0336s\u0336"))
@example(disguised=("Anaïs", "A\u00a0n\u00a0a\u00a0\u00ef\u00a0s"))
@example(disguised=("Julie", "J.u-l_i/e"))
@example(disguised=("Nicolas", "N.i.c.o.l.a.s"))
@example(disguised=("Chloé", "\U0001d402\U0001d421\U0001d425\U0001d428e\u0301"))
def test_a_disguised_name_is_hidden_whole_with_its_plain_spelling_s_code(seeker, disguised):
    name, disguise = disguised
    # a word of one letter after letters dotted out stays a word (after letters spaced out, it
    # would be one letter more)
    after = " à 18h ?" if any(char in JOINERS for char in disguise) else " hier soir ?"
    plain_text, text = f"tu as vu {name}{after}", f"tu as vu {disguise}{after}"
    (plain, row) = [dict(zip(("id", "text", "seekhide", "anonymised", "hidden", "highlighted"), cells))
                    for cells in run_seek(Records(["id", "text"], [["1", plain_text], ["2", text]]), None,
                                          seeker=seeker).rows]
    assert plain["anonymised"].startswith("tu as vu <PRE_")
    # the whole disguise is hidden, as written, and gets the code of the plain spelling
    assert json.loads(row["hidden"]) == [[9, 9 + len(disguise), "PRE"]], (disguise, row["hidden"])
    assert row["anonymised"] == plain["anonymised"], disguise
    assert row["seekhide"] == plain["seekhide"]


def test_ordinary_text_is_not_folded_as_a_disguise():
    for text in ["a - b", "2 / 3", "c'est", ":-)", ";-)", "^_^", "o_O", "x-x", "y a-t-il", "a/b/c", "et/ou",
                 "https://exemple.fr/a/b/c/d", "l'A.S.M", "1er", "J'ai vu E.T. hier", "il y a un an", "à 18h30",
                 "le cœur… à 18h", "Zoé 😀", "❤️ merci", "👍🏽 ok", "x² + 1", "№ 5"]:
        assert fold(text) == (text, None), text


# --------------------------------------------------------------- dangling marks

MARKED_ALPHABET = ["a", "e", "N", " ", ".", "😀", "\u0301", "\u0336", "\u0332", "\u20e3", "\ufe0f", "\u034f",
                   "\U000e0041", "\u200d", "\U0001f3fd", "\u093f", "क"]


def _marks_after_codes(anonymised: str) -> list[str]:
    return [found.group(1) for found in re.finditer(r"<[A-Z]+_\d+_\d+>(.)", anonymised, re.DOTALL)
            if unicodedata.category(found.group(1)) in ("Mn", "Me", "Mc") or found.group(1) in "\ufe0f\u034f"
            or "\U000e0000" <= found.group(1) <= "\U000e007f" or "\U0001f3fb" <= found.group(1) <= "\U0001f3ff"]


@st.composite
def texts_with_spans(draw):
    text = draw(st.text(alphabet=st.sampled_from(MARKED_ALPHABET), min_size=1, max_size=20))
    cuts = sorted(draw(st.sets(st.integers(0, len(text)), min_size=2, max_size=6)))
    pairs = list(zip(cuts[::2], cuts[1::2]))
    return text, [(start, end, "PRE") for start, end in pairs if start < end]


@settings(max_examples=400, **SETTINGS)
@given(case=texts_with_spans())
@example(case=("Ne\u0301\u0336 ok", [(0, 2, "PRE")]))
@example(case=("vu 😀\ufe0f ok", [(3, 4, "URL")]))
def test_hiding_never_leaves_a_mark_dangling_after_a_code(seeker, case):
    from triage.publication.corpus import release_text
    from triage.text.normalise import grapheme_spans, hide_in_original

    text, spans = case
    anonymised = seeker.hide(text, spans)
    assert _marks_after_codes(anonymised) == [], (text, spans, anonymised)
    # what is hidden is whole clusters, and never less than the spans asked for
    widened = grapheme_spans(text, spans)
    for start, end, _ in spans:
        assert any(w_start <= start and end <= w_end for w_start, w_end, _ in widened)
    for (start, end, _) in widened:
        assert start == 0 or not unicodedata.category(text[start]).startswith("M")
        assert end == len(text) or not unicodedata.category(text[end]).startswith("M")
    # the folded path (codes from the folded text) and the release's replacement alike
    folded, offsets = fold(text)
    if offsets is not None and folded:
        f_spans = [(start, end, tag) for start, end, tag in
                   sorted({offsets.folded_span(s, e) + (t,) for s, e, t in spans if offsets.folded_span(s, e)})]
        f_spans = [span for i, span in enumerate(f_spans) if i == 0 or span[0] >= f_spans[i - 1][1]]
        anonymised, _ = hide_in_original(seeker.code_for, text, folded, f_spans, offsets)
        assert _marks_after_codes(anonymised) == [], (text, f_spans, anonymised)
    released = release_text(text, spans, lambda tag, original: f"<{tag}_1_1>")
    assert _marks_after_codes(released) == [], (text, spans, released)


@settings(max_examples=300, **SETTINGS)
@given(cases=st.lists(texts_with_spans(), min_size=1, max_size=4))
@example(cases=[("Ne\u0301\u0336 ok", [(0, 2, "PRE")]), ("vu 😀\ufe0f ok", [(3, 4, "URL")]), ("a", [])])
def test_a_batch_hides_each_text_as_hiding_it_alone_does(seeker, cases):
    from triage.seekhide import hidden_json
    from triage.seekhide.components import hide_spans
    from triage.text.normalise import grapheme_spans

    texts, spans = [text for text, _ in cases], [found for _, found in cases]
    anonymised, cells = hide_spans(seeker, texts, texts, {}, spans, [m for m, found in enumerate(spans) if found])
    for text, found, hidden, cell in zip(texts, spans, anonymised, cells):
        assert hidden == seeker.hide(text, found), (text, found)
        assert cell == hidden_json(grapheme_spans(text, found)), (text, found)


@settings(max_examples=500, **SETTINGS)
@given(texts=st.lists(st.one_of(any_text, st.text(alphabet=" a\u00e9\x00\t\n\u00a0\u2028,", max_size=8)), max_size=8))
def test_the_stretches_of_a_batch_are_those_of_each_text_in_turn(texts):
    from triage.text.stretches import STRETCH, batch_keys, stretch_of

    keys, counts, order = batch_keys(texts)
    flat = list(map(stretch_of, keys))
    per_text = [STRETCH.findall(text) for text in texts]
    assert counts.tolist() == list(map(len, per_text))
    assert sorted(flat) == sorted(chain.from_iterable(per_text))
    assert (flat if order is None else [flat[i] for i in order.tolist()]) == list(chain.from_iterable(per_text))
