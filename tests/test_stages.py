"""The pipeline: the components and presets listed in triage/pipeline/stages.txt, each component registered
once under its name, in the module the list names, with the fields the list names; each preset's
requirements met, and each component assigning what it declares."""

from __future__ import annotations

import pytest

from triage import classifier, pipeline  # noqa: F401  (the modules registering components)
from triage.classifier import Classifier
from triage.model import training  # noqa: F401
from triage.model.gold import GoldMessage
from triage.pipeline import LISTED, PRESETS, REGISTRY, Batch, Context, Pipeline
from triage.schema import DEFAULT_HIDE
from triage.seekhide import SeekAndHide

CLASSIFY = ("fold", "stretch", "seek", "features", "model", "recognizers", "word-scorer", "evidence", "policy", "highlight", "hide")

# Invented messages: a first name, a phone number, an emoji, a disguised name (folded), an empty one.
MESSAGES = [
    ("1", "Coucou Julie ! 😀"),
    ("2", "ok à demain"),
    ("3", "Appelle Marc au 06 12 34 56 78 stp"),
    ("4", "Je suis chez Ｊｕｌｉｅ ce soir"),
    ("5", ""),
]


@pytest.fixture(scope="module")
def predictor():
    from triage.model import default_model_path, load_predictor

    return load_predictor(default_model_path())


def test_every_listed_component_is_registered_as_listed_and_every_registered_one_is_listed():
    assert {c.name for c in LISTED} == set(REGISTRY)
    assert len(LISTED) == len(REGISTRY)
    for listed in LISTED:
        registered = REGISTRY[listed.name]
        assert (registered.module, registered.requires, registered.assigns) == (
            listed.module, listed.requires, listed.assigns), listed.name
        assert listed.description


def test_the_classify_preset_runs_the_classify_stages_in_order():
    assert PRESETS["classify"].components == CLASSIFY


def test_the_stages_file_ships_with_the_package():
    from importlib import resources

    assert resources.files("triage.pipeline").joinpath("stages.txt").is_file()


def test_a_component_cannot_be_registered_twice_nor_take_a_presets_name():
    with pytest.raises(ValueError, match="registered twice"):
        pipeline.component("fold")(lambda context, batch: None)
    with pytest.raises(ValueError, match="names a preset"):
        pipeline.component("classify")(lambda context, batch: None)
    assert "classify" not in REGISTRY


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_each_presets_requirements_are_its_input_or_assigned_by_an_earlier_component(name):
    preset = PRESETS[name]
    assert preset.components
    assert pipeline.unmet(preset.components, preset.inputs) == []
    Pipeline.preset(name)  # builds


def test_a_pipeline_whose_requirements_are_not_met_is_refused_before_any_message():
    with pytest.raises(ValueError, match="'features' requires 'analysis'"):
        Pipeline(["fold", "features"])
    with pytest.raises(ValueError, match="'seek' requires 'folded'"):
        Pipeline.preset("classify", without=["fold"])
    with pytest.raises(KeyError, match="no component registered as 'tokenise'"):
        Pipeline(["fold", "tokenise"])
    with pytest.raises(KeyError, match="no preset"):
        Pipeline.preset("everything")


def test_a_component_added_to_a_shared_start_reaches_every_preset_built_on_it():
    text = (
        "a  m  [texts -> folded]  one\n"
        "b  m  [folded -> tokens]  two\n"
        "c  m  [tokens -> labels]  three\n"
        "preset start  [texts]  a\n"
        "preset first  [texts]  start c\n"
        "preset second [texts]  start b c\n"
    )
    _, presets = pipeline.read_list(text)
    assert presets["second"].components == ("a", "b", "c")
    _, presets = pipeline.read_list(text.replace("preset start  [texts]  a\n", "preset start  [texts]  a b\n"))
    assert presets["first"].components == ("a", "b", "c")
    with pytest.raises(ValueError, match="neither a component nor a preset"):
        pipeline.read_list("preset p [texts] nothing\n")
    with pytest.raises(ValueError, match="named twice"):
        pipeline.read_list(text + "preset a [texts] b\n")


def test_a_batch_without_a_field_says_no_component_assigns_it():
    with pytest.raises(AttributeError, match="no field 'analysis'"):
        _ = Batch(texts=[]).analysis


def _context(name: str, lexicons, predictor):
    """What the components of the preset `name` work with, as the tool gives it."""
    if name in ("vocabulary", "decided", "classify", "cells"):
        return Classifier(predictor, lexicons=lexicons)
    if name == "gold-evidence":
        return Context(predictor=predictor, feature_set=predictor.feature_set, normalise=predictor.normalise,
                       hide=frozenset(DEFAULT_HIDE))
    return Context(seeker=SeekAndHide(lexicons), feature_set="rich", normalise=False, reference=None, spelling=None)


def _inputs(name: str, lexicons, predictor) -> dict:
    texts = [text for _, text in MESSAGES]
    if name == "gold":
        return {"texts": texts, "gold": [GoldMessage(text, "NTA", []) for text in texts]}
    if name == "gold-evidence":  # what the gold preset gives
        batch = Pipeline.preset("gold", _context("gold", lexicons, predictor))(**_inputs("gold", lexicons, predictor))
        return {field: getattr(batch, field) for field in PRESETS[name].inputs}
    return {"texts": texts}


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_each_component_of_each_preset_assigns_what_it_declares_and_nothing_else(name, lexicons, predictor):
    preset = PRESETS[name]
    batch = Batch(**_inputs(name, lexicons, predictor))
    assert batch.fields() == set(preset.inputs)
    context = _context(name, lexicons, predictor)
    for step in Pipeline.preset(name).components:
        before = dict(vars(batch))
        step.run(context, batch)
        after = vars(batch)
        assert set(step.assigns) <= set(after), f"{step.name} does not assign {set(step.assigns) - set(after)}"
        changed = {f for f, value in after.items() if f not in before or value is not before[f]}
        assert changed <= set(step.assigns), f"{step.name} assigns {changed - set(step.assigns)} undeclared"
        for field in step.assigns:
            value = after[field]
            if isinstance(value, list):  # one entry per message
                assert len(value) == len(MESSAGES), (step.name, field)
    if "folding_maps" in vars(batch):
        assert list(batch.folding_maps) == [3]  # the disguised name was folded, with its way back


def test_a_batch_goes_through_the_classify_preset_in_order(monkeypatch, predictor):
    seen = []
    for name in CLASSIFY:
        step = REGISTRY[name]

        def recorded(context, batch, name=name, run=step.run):
            seen.append(name)
            run(context, batch)

        monkeypatch.setitem(REGISTRY, name, pipeline.Component(name, step.requires, step.assigns, recorded))
    rows = Classifier(predictor).rows([("1", "Coucou Julie, appelle le 06 12 34 56 78")])
    assert seen == list(CLASSIFY)
    assert '"PRE"' in rows[0][7] and "Julie" not in rows[0][6]  # the hide stage hid the first name



@pytest.mark.parametrize("module, presets", [
    ("triage.model.evaluation", ["gold-evidence"]), ("triage.model.training", ["gold"]),
    ("triage.features.extractor", ["message-features"]), ("triage.jobs", ["seek-rows", "seek-words"]),
    ("triage.classifier", ["classify", "cells"]),
])
def test_each_module_that_builds_a_preset_registers_its_components_when_imported_alone(module, presets):
    # In a fresh process: a component registered only because another test imported its module
    # first would pass in the suite and fail for a user of the library.
    import subprocess
    import sys

    code = (f"import {module}\nfrom triage.pipeline import PRESETS, REGISTRY\n"
            f"print([n for p in {presets!r} for n in PRESETS[p].components if n not in REGISTRY])")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"
