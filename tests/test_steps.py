"""Seek&Hide's steps are data: triage/seekhide/steps.txt lists them in order, with their stage
and what each does; the code of each step registers itself under the same name. These tests
check that the list and the registry agree, and that the file ships with the package."""

import tomllib
from pathlib import Path

import pytest

import triage.recognizers  # noqa: F401  (registers the recognizers' steps)
from triage.seekhide import steps

ROOT = Path(__file__).resolve().parents[1]


def test_every_listed_step_is_registered_once_and_every_registered_step_is_listed():
    assert steps.check() == []
    assert len(steps.NAMES) == len(set(steps.NAMES))
    assert set(steps.registered()) == set(steps.NAMES)
    for step in steps.LISTED:
        assert steps.registered()[step.name].stage == step.stage
        assert step.description.strip()


def test_a_step_listed_but_not_registered_or_registered_but_not_listed_is_reported(monkeypatch):
    monkeypatch.setattr(steps, "LISTED", steps.LISTED + (steps.Step("shouting", "word", "all capitals"),))
    monkeypatch.setattr(steps, "_REGISTRY", dict(steps._REGISTRY))
    steps.declare("context", "stray-rule", where="tests")
    problems = steps.check()
    assert any(p.startswith("shouting: listed") for p in problems)
    assert any(p.startswith("stray-rule: registered by tests but not listed") for p in problems)


def test_a_step_listed_twice_or_under_another_stage_is_reported(monkeypatch):
    title = next(step for step in steps.LISTED if step.name == "title")
    monkeypatch.setattr(steps, "LISTED", steps.LISTED + (steps.Step("title", "word", title.description),))
    problems = steps.check()
    assert "title: listed twice in steps.txt" in problems
    assert any(p.startswith("title: a word step in steps.txt, registered as a context step") for p in problems)


def test_a_step_cannot_be_registered_twice(monkeypatch):
    monkeypatch.setattr(steps, "_REGISTRY", dict(steps._REGISTRY))
    with pytest.raises(ValueError, match="registered twice"):
        steps.declare("word", "accent", where="tests")


def test_the_steps_file_reads_name_stage_and_description():
    parsed = steps.parse("# a comment\n\nshouting   word   all capitals (SALUT)\n")
    assert parsed == (steps.Step("shouting", "word", "all capitals (SALUT)"),)
    with pytest.raises(ValueError, match="line 1"):
        steps.parse("shouting somewhere all capitals\n")


def test_the_steps_are_in_the_files_order_word_then_context_then_recognizer():
    from triage.seekhide import RECOGNIZER_STEPS, STEPS, WORD_STEPS

    lines = [line.split()[0] for line in (ROOT / "triage/seekhide/steps.txt").read_text("utf-8").splitlines()
             if line.strip() and not line.startswith("#")]
    assert list(STEPS) == lines
    assert STEPS == WORD_STEPS + RECOGNIZER_STEPS
    assert steps.names("context") == ("title", "weak-name", "capitalised-guess", "determiner", "copula",
                                      "first-name-surname", "word-surname", "abbreviation", "other-language",
                                      "known-names")
    assert steps.names("recognizer") == ("glued-first-names", "initial", "other-language-word", "fixed-phrase",
                                         "unit-after-number", "emphasised-word", "subject-before-verb",
                                         "two-word-brand", "brand-person-cue", "brand-word", "misspelt-place",
                                         "place-district", "nickname-truncation", "common-names", "holiday",
                                         "capital-after-cue", "scorer-decides")


def test_the_steps_file_ships_with_the_package():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))
    assert "steps.txt" in config["tool"]["setuptools"]["package-data"]["triage.seekhide"]


def test_an_unknown_step_is_refused_in_one_line_listing_the_steps(lexicons):
    from triage.errors import BadOption
    from triage.seekhide import SeekAndHide

    with pytest.raises(BadOption) as refused:
        SeekAndHide(lexicons, off={"shouting", "accent", "spelling"})
    message = str(refused.value)
    assert "\n" not in message
    assert message.startswith("unknown Seek&Hide steps 'shouting', 'spelling'; the steps are accent, repetition,")
    assert message.endswith(", ".join(steps.NAMES[-3:]))


def test_a_step_is_switched_by_one_check_by_name(lexicons, monkeypatch):
    """Every step's code asks is_on: a step listed in steps.txt is on unless switched off, a
    name that is no step is an error, never a step silently off."""
    from triage.seekhide import SeekAndHide

    seeker = SeekAndHide(lexicons, off={"copula"})
    assert seeker.is_on("determiner") and not seeker.is_on("copula")
    with pytest.raises(KeyError, match="no Seek&Hide step 'copulas'"):
        seeker.is_on("copulas")
    asked = []
    real = SeekAndHide.is_on
    monkeypatch.setattr(SeekAndHide, "is_on", lambda self, step: asked.append(step) or real(self, step))
    import triage.recognizers as recognizers

    fresh = SeekAndHide(lexicons)
    recognizers.recognise(fresh.analyse(["Mme Zorblatt et marie durand chez Leroy Merlin avec Zara, jtattends, dèsolé"]))
    assert set(asked) == set(steps.NAMES)


def test_the_ablation_switches_off_every_step_of_the_list_in_order():
    from triage.model.evaluation import ablation

    assert steps.switchable() == steps.NAMES
    seen = []

    def analyse(gold, feature_set, off):
        seen.append(off)
        raise StopIteration

    import triage.model.evaluation as evaluation

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(evaluation, "analyse", analyse)
        with pytest.raises(StopIteration):
            ablation([], {k: 0 for k in (*evaluation.ABLATION_MEASURES, "untagged_share")}, feature_set="all",
                     policy="paper", budget=0.1, folds=2, seed=0)
        patch.setattr(steps, "LISTED", steps.LISTED[::-1])
        with pytest.raises(StopIteration):
            ablation([], {k: 0 for k in (*evaluation.ABLATION_MEASURES, "untagged_share")}, feature_set="all",
                     policy="paper", budget=0.1, folds=2, seed=0)
    assert seen == [(steps.NAMES[0],), (steps.NAMES[-1],)]
