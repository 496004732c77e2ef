"""Seek&Hide's word labels on the regression examples kept as data (deduce's convention):
tests/regression/seekhide_words.tsv, one word per line with the label it must get and the
rule it exercises. Add a line when a word is labelled wrongly."""

import csv
from pathlib import Path

import pytest

from triage.seekhide import SeekAndHide

EXAMPLES = Path(__file__).parent / "regression" / "seekhide_words.tsv"


def examples():
    with EXAMPLES.open(encoding="utf-8", newline="") as handle:
        return [pytest.param(row["word"], row["label"], id=f"{row['reason']}:{row['word']}")
                for row in csv.DictReader(handle, delimiter="\t")]


@pytest.fixture(scope="module")
def seeker(lexicons):
    return SeekAndHide(lexicons)


@pytest.mark.parametrize("word, label", examples())
def test_word_label(seeker, word, label):
    assert seeker.label_word(word).label == label
