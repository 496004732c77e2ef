"""Train and evaluate read a gold corpus folded, as classify reads messages: a gold
name in disguise (look-alike letters, dotted out, a zero-width space) gives the training rows,
the model and the evaluation counts of its plain spelling, its gold span mapped onto the
folded text."""

import csv
import json

import numpy as np
import pytest

from triage.model.gold import labelled_gold
from triage.io.messages import ReadOptions
from triage.model.training import analyse, word_training_rows

from conftest import succeeded

NAMES = ["Julie", "Kevin", "Sophie", "Nicolas", "Chloé", "Karim", "Léa", "Hugo", "Inès", "Yanis", "Manon", "Lucas"]
# The plain spelling of three mentions, and how a sender disguises it.
DISGUISED = {0: ("Nicolas", "Nicol\u0430s"), 1: ("Nicolas", "N.i.c.o.l.a.s"), 2: ("Lucas", "Lu\u200bcas")}
ORDINARY = ["ok", "jarrive", "bonne nuit", "tkt", "a plus", "merci", "trop bien", "on mange ?", "je suis la",
            "bisous", "il pleut", "c cool"]


def write_gold(path, disguised: bool):
    """A gold file of invented messages; with `disguised`, three gold names in disguise (their
    spans cover the disguise as written)."""
    rows = []
    names = [*NAMES * 2, *(plain for plain, _ in DISGUISED.values())]
    for i, name in enumerate(names):
        n = i - 2 * len(NAMES)
        written = DISGUISED[n][1] if disguised and n in DISGUISED else name
        text = f"rdv avec {written} à 18h"
        rows.append([f"t{i}", text, "TA", json.dumps([[9, 9 + len(written), "PRE"]]), str(i % 6)])
    for i, text in enumerate(ORDINARY * 2):
        rows.append([f"n{i}", text, "NTA", "[]", str(i % 6)])
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["id", "text", "label", "spans", "donor"])
        writer.writerows(rows)
    return path


@pytest.fixture(scope="module")
def gold_files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("gold")
    return write_gold(folder / "plain.csv", False), write_gold(folder / "disguised.csv", True)


def test_a_disguised_gold_name_gives_the_training_rows_of_its_plain_spelling(gold_files):
    plain, disguised = (analyse(labelled_gold(path, ReadOptions())[0]) for path in gold_files)
    assert np.array_equal(plain.X, disguised.X)
    X_plain, y_plain = word_training_rows(plain, range(len(plain.gold)))
    X_disguised, y_disguised = word_training_rows(disguised, range(len(disguised.gold)))
    assert np.array_equal(X_plain, X_disguised) and np.array_equal(y_plain, y_disguised)
    assert y_plain.sum() >= len(NAMES) * 2  # every gold name is a positive row, the disguised ones too
    # The gold spans now point into the folded text; the map leads back to the text as written.
    last = len(disguised.gold) - len(ORDINARY) * 2 - 1
    (start, end, _), = disguised.gold[last].spans
    assert disguised.gold[last].text[start:end] == "Lucas"
    assert disguised.written[last].text[slice(*disguised.folding[last].span(start, end))] == "Lu\u200bcas"


def test_a_disguised_gold_corpus_trains_the_model_of_its_plain_spelling(cli, gold_files, tmp_path):
    probe = tmp_path / "probe.csv"
    probe.write_text("id,text\n1,rdv avec Nicolas à 18h\n2,bonne nuit\n3,on voit Lucas et Manon ?\n4,merci\n",
                     "utf-8")
    outputs = []
    for path in gold_files:
        model = tmp_path / f"{path.stem}.triage"
        succeeded(cli("train", path, "-o", model))
        out = tmp_path / f"{path.stem}.classified.csv"
        succeeded(cli("classify", probe, "-o", out, "--model", model, "--no-chart"))
        outputs.append(out.read_bytes())
    assert outputs[0] == outputs[1]


def test_a_disguised_gold_corpus_gets_the_evaluation_of_its_plain_spelling(cli, gold_files, tmp_path):
    reports = []
    for path in gold_files:
        out = tmp_path / path.stem
        succeeded(cli("evaluate", path, "--out-dir", out, "--folds", "3"))
        data = json.loads((out / "evaluate.json").read_text("utf-8"))
        assert data.pop("gold") == str(path)
        reports.append(data)
    assert reports[0] == reports[1]
    assert reports[0]["paper_policy"]["gold_spans"] == len(NAMES) * 2 + len(DISGUISED)
