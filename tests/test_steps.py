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
                                      "first-name-surname")


def test_the_steps_file_ships_with_the_package():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))
    assert "steps.txt" in config["tool"]["setuptools"]["package-data"]["triage.seekhide"]
