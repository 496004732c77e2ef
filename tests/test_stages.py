"""The classify pipeline's stages: listed in order in triage/stages.txt, each registered once
under its name, run in the file's order."""

from __future__ import annotations

import pytest

from triage import classifier
from triage.classifier import Batch, Classifier


def test_every_listed_stage_is_registered_and_every_registered_stage_is_listed():
    assert classifier.STAGES == ("fold", "seek", "features", "model", "evidence", "policy", "highlight", "hide")
    assert set(classifier.STAGES) == set(classifier._REGISTERED)


def test_the_stages_file_ships_with_the_package():
    from importlib import resources

    assert resources.files("triage").joinpath("stages.txt").is_file()


def test_a_stage_cannot_be_registered_twice():
    with pytest.raises(ValueError, match="registered twice"):
        classifier.stage("fold")(lambda classifier, batch: None)


def test_a_batch_goes_through_the_stages_in_the_files_order(monkeypatch):
    from triage.model import default_model_path, load_predictor

    seen = []
    for name in classifier.STAGES:
        def recorded(c, batch, name=name, run=classifier._REGISTERED[name]):
            seen.append(name)
            run(c, batch)
        monkeypatch.setitem(classifier._REGISTERED, name, recorded)
    rows = Classifier(load_predictor(default_model_path())).rows([("1", "Coucou Julie, appelle le 06 12 34 56 78")])
    assert seen == list(classifier.STAGES)
    assert '"PRE"' in rows[0][7] and "Julie" not in rows[0][6]  # the hide stage hid the first name


def test_each_stage_adds_the_fields_the_file_says(lexicons):
    from triage.model import default_model_path, load_predictor

    batch = Batch([("1", "Coucou Julie ! 😀"), ("2", "ok à demain")])
    machine = Classifier(load_predictor(default_model_path()), lexicons=lexicons)
    added = {}
    for name in classifier.STAGES:
        before = {k: v for k, v in vars(batch).items()}
        classifier._REGISTERED[name](machine, batch)
        added[name] = {k for k, v in vars(batch).items() if v is not before[k]}
    listed = {}
    from importlib import resources
    for line in resources.files("triage").joinpath("stages.txt").read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            fields = line[line.rindex("[") + 1:line.rindex("]")]
            listed[line.split()[0]] = {f.strip() for f in fields.split(",")}
    assert added == listed
