"""Why a human should look at a word (triage.queue.reasons): the reasons the review page shows beside
each word of a message, read from what Seek&Hide hid and highlighted."""

from __future__ import annotations

import re
import subprocess
import sys
from types import SimpleNamespace

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from triage.queue import reasons as reasons_module
from triage.queue.reasons import reasons, spots, unique
from triage.seekhide import SeekAndHide

# Invented messages only.
CEDRIC = "Coucou Cédric, tu as vu Zorglub ?"  # Cédric a first name (hidden), Zorglub unknown after 'vu'
PHONE = "appelle au 06 12 34 56 78 stp Zorglub"  # a phone number hidden, Zorglub unknown
PIERRE_KON = "Pierre a appelé kon hier"  # Pierre a name and a word, kon a surname read as unknown


@pytest.fixture(scope="module")
def seeker(lexicons):
    return SeekAndHide(lexicons)


def classified(seeker, text: str, model: str = "TA") -> SimpleNamespace:
    """A classified message as the review workspace holds it: any object with these four fields."""
    found = seeker.seek(text)
    return SimpleNamespace(text=text, model=model, hidden=[tuple(span) for span in found.hidden],
                           highlighted=list(found.highlighted))


def test_each_hidden_or_highlighted_word_gets_its_reason_in_plain_words(seeker):
    assert reasons(classified(seeker, CEDRIC), seeker) == {
        "Cédric": "in the first-name list",
        "Zorglub": "in no list, capitalised, after 'vu' (a name often follows)",
    }
    assert reasons(classified(seeker, PHONE), seeker) == {
        "06 12 34 56 78": "phone number",
        "Zorglub": "in no list, capitalised",
    }
    assert reasons(classified(seeker, PIERRE_KON), seeker) == {
        "Pierre": "is a name and a word",
        "kon": "in no list (also a surname)",
    }


def test_the_page_gets_every_hidden_item_whatever_the_model_says(seeker):
    # The queue's words to look at add the hidden items only where the model disagrees (NTA);
    # the page explains every hidden item.
    for model in ("TA", "NTA"):
        assert "Cédric" in reasons(classified(seeker, CEDRIC, model), seeker)
    assert [spot.text for spot in unique(spots(classified(seeker, CEDRIC, "TA")))] == ["Zorglub"]
    assert [spot.text for spot in unique(spots(classified(seeker, CEDRIC, "NTA")))] == ["Cédric", "Zorglub"]


def test_reasons_kept_across_rows_leave_each_row_its_own_cue(seeker):
    # A word's reason is kept from one row to the next by its word and tag; the cue before it is the row's.
    rows = [classified(seeker, text) for text in (CEDRIC, PHONE, PIERRE_KON, CEDRIC, PHONE)]
    said: dict = {}
    assert [reasons(row, seeker, said=said) for row in rows] == [reasons(row, seeker) for row in rows]
    assert ("Zorglub", "") in said
    assert reasons(rows[0], seeker, said=said)["Zorglub"].endswith("after 'vu' (a name often follows)")
    assert reasons(rows[1], seeker, said=said)["Zorglub"] == "in no list, capitalised"


def test_a_word_written_twice_is_explained_once_as_first_written(seeker):
    text = "Zorglub ou zorglub ? demande à Zorglub"
    row = SimpleNamespace(text=text, model="TA", hidden=[], highlighted=["Zorglub", "zorglub", "Zorglub"])
    assert list(reasons(row, seeker)) == ["Zorglub"]


def test_the_reasons_stand_apart_from_the_queue_of_classified_files():
    # The review's reasons load without the expert queue (which parses and writes classified files).
    code = "import sys, triage.queue.reasons; print('triage.queue.files' in sys.modules)"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "False"


@settings(max_examples=500, deadline=None)
@given(text=st.text(alphabet="ab' ’,.9_\n-éÀⅫ²٣", max_size=200), end=st.integers(0, 200))
@example(text="x" * 100 + "  ", end=102)  # a long word
@example(text="avec" + " " * 80, end=84)  # the word before lies far back
def test_the_word_before_a_spot_is_the_one_the_whole_text_gives(text, end):
    end = min(end, len(text))
    found = re.search(r"([^\W\d_]+['’]?)\W*$", text[:end])  # the cue, as a pattern
    assert reasons_module.word_before(text, end) == (found.group(1) if found else None)
