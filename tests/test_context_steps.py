"""Seek&Hide's context rules are one function each in triage/seekhide/context.py, registered
by name and run in the order of triage/seekhide/steps.txt: adding a rule is one function and
one line of the list."""

import numpy as np
import pytest

from triage.schema import DICTIONARY, UNKNOWN
from triage.seekhide import L_DICTIONARY, SeekAndHide, context, rule_code, steps

CONTEXT_RULES = ("title", "weak-name", "capitalised-guess", "determiner", "copula", "first-name-surname",
                 "word-surname", "abbreviation", "other-language", "known-names")


@pytest.fixture
def own_registry(monkeypatch):
    """The registry and the list as they are, restored after the test."""
    monkeypatch.setattr(steps, "_REGISTRY", dict(steps._REGISTRY))
    return monkeypatch


def test_each_context_rule_is_a_function_of_the_context_module():
    found = steps.registered()
    for name in CONTEXT_RULES:
        assert found[name].stage == "context"
        assert found[name].run.__module__ == "triage.seekhide.context", name
    assert [name for name, _ in steps.runs("context")] == list(CONTEXT_RULES)


def test_a_new_rule_is_one_function_and_one_line_of_the_list(lexicons, own_registry):
    def shouted(seeker):
        return {w.text: (w.label, str(w.rule)) for w in seeker.seek("TONTON arrive avec BISOU").words}

    assert shouted(SeekAndHide(lexicons))["BISOU"][0] != DICTIONARY

    @context.context_rule("shouted-name")
    def shouted_name(c):
        """A word in capitals after 'avec' is a name (for the test only)."""
        spelled = c.table.texts
        caps = np.array([spelled[s].isupper() for s in c.spelling.tolist()], dtype=bool)
        after_avec = c.previous(np.array([spelled[s] == "avec" for s in c.spelling.tolist()], dtype=bool))
        c.set(caps & after_avec & c.same_message(), L_DICTIONARY, rule_code("title"))

    own_registry.setattr(steps, "LISTED", steps.LISTED + (steps.Step("shouted-name", "context", "for the test"),))
    assert not [problem for problem in steps.check() if "shouted-name" in problem]
    words = shouted(SeekAndHide(lexicons))
    assert words["BISOU"] == (DICTIONARY, "title")
    assert words["TONTON"][0] != DICTIONARY
    assert shouted(SeekAndHide(lexicons, off={"shouted-name"}))["BISOU"][0] != DICTIONARY


def test_the_rules_run_in_the_order_of_the_list(lexicons, own_registry):
    """first-name-surname reads what weak-name decided: listed before it, it finds no weak surname."""
    def durand(seeker):
        return next((w.label, str(w.rule)) for w in seeker.seek("je suis avec marie durand").words
                    if w.text == "durand")

    assert durand(SeekAndHide(lexicons)) == (DICTIONARY, "first-name-surname")
    listed = list(steps.LISTED)
    moved = next(step for step in listed if step.name == "first-name-surname")
    listed.remove(moved)
    listed.insert(next(i for i, step in enumerate(listed) if step.name == "weak-name"), moved)
    own_registry.setattr(steps, "LISTED", tuple(listed))
    assert durand(SeekAndHide(lexicons)) == (UNKNOWN, "weak-name")


def test_a_rule_switched_off_leaves_its_named_array_empty_for_the_rules_after_it(lexicons):
    """first-name-surname reads the weak-name rule's array: with weak-name off, no weak
    surname is found after a first name either."""
    seeker = SeekAndHide(lexicons, off={"weak-name"})
    rules = {w.text: str(w.rule) for w in seeker.seek("je suis avec marie durand").words}
    assert rules["durand"] == "exact"


def test_a_listed_rule_without_its_function_is_an_error_not_a_silent_skip(lexicons, own_registry):
    own_registry.setattr(steps, "LISTED", steps.LISTED + (steps.Step("unwritten", "context", "for the test"),))
    with pytest.raises(LookupError, match="'unwritten' is listed in steps.txt but no function"):
        SeekAndHide(lexicons).analyse(["salut"])
