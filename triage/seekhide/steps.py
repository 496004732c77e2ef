"""Seek&Hide's steps by name, as data: the list and its order are the file steps.txt beside this
module (one step a line: name, stage, description); the code of each step registers itself
under the same name (`register` for a function, `declare` for steps decided inside a larger
function), and `check` says where the two disagree.

Stages: `word` steps are decided per spelling (triage/seekhide/words.py), `context` steps per
token in its message (triage/seekhide/context.py, run in the file's order), `recognizer` steps
by the recognizers of places, brands and nicknames (triage/recognizers.py). Every step can be
switched off by name: SeekAndHide(lexicons, off={"misspelling"})."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from importlib import resources

STAGES = ("word", "context", "recognizer")
STEPS_FILE = "steps.txt"


@dataclass(frozen=True)
class Step:
    name: str
    stage: str  # one of STAGES
    description: str


def parse(text: str) -> tuple[Step, ...]:
    """The steps of a steps file's text: one a line, `name stage description`; `#` starts a
    comment line, blank lines are skipped."""
    steps = []
    for number, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        parts = line.split(None, 2)
        if len(parts) < 3 or parts[1] not in STAGES:
            raise ValueError(f"{STEPS_FILE}, line {number}: expected 'name stage description' "
                             f"with a stage among {', '.join(STAGES)}: {line!r}")
        steps.append(Step(*parts))
    return tuple(steps)


def _read() -> tuple[Step, ...]:
    return parse(resources.files(__package__).joinpath(STEPS_FILE).read_text(encoding="utf-8"))


LISTED: tuple[Step, ...] = _read()  # in the file's order
NAMES: tuple[str, ...] = tuple(step.name for step in LISTED)


def listed(stage: str | None = None) -> tuple[Step, ...]:
    """The listed steps (of one stage), in the file's order."""
    return tuple(step for step in LISTED if stage is None or step.stage == stage)


def names(stage: str | None = None) -> tuple[str, ...]:
    return tuple(step.name for step in listed(stage))


def switchable() -> tuple[str, ...]:
    """The steps that can be switched off by name, in order: all of them."""
    return names()


@dataclass(frozen=True)
class Registered:
    name: str
    stage: str
    run: Callable | None  # the step's function; None for a step decided inside a larger one
    where: str  # the module that registered it


_REGISTRY: dict[str, Registered] = {}


def _add(name: str, stage: str, run: Callable | None, where: str) -> None:
    if stage not in STAGES:
        raise ValueError(f"step {name!r}: unknown stage {stage!r}; the stages are {', '.join(STAGES)}")
    if name in _REGISTRY:
        raise ValueError(f"step {name!r} registered twice ({_REGISTRY[name].where} and {where})")
    _REGISTRY[name] = Registered(name, stage, run, where)


def register(name: str, stage: str) -> Callable[[Callable], Callable]:
    """Decorator: the function is the step `name` of `stage`."""

    def add(run: Callable) -> Callable:
        _add(name, stage, run, run.__module__)
        return run

    return add


def declare(stage: str, *step_names: str, where: str = "") -> None:
    """Steps of `stage` decided inside a larger function of the module `where` (switched with
    is_on, not run one by one)."""
    for name in step_names:
        _add(name, stage, None, where)


def registered() -> dict[str, Registered]:
    """The registered steps, by name (those of the modules imported so far)."""
    return dict(_REGISTRY)


def runs(stage: str) -> list[tuple[str, Callable]]:
    """(name, function) of the steps of `stage`, in the file's order; a listed step that no
    function was registered for is an error (a rule listed but not written would else be
    skipped without a word)."""
    found = []
    for name in names(stage):
        registered = _REGISTRY.get(name)
        if registered is None or registered.run is None:
            raise LookupError(f"the {stage} step {name!r} is listed in {STEPS_FILE} but no function is registered "
                              f"for it")
        found.append((name, registered.run))
    return found


def check() -> list[str]:
    """Where the steps file and the registry disagree (empty when they agree): a step listed
    twice, listed but not registered, registered but not listed, or with two stages. Import the
    modules that register steps first (triage.seekhide, triage.recognizers)."""
    problems = []
    seen = set()
    for step in LISTED:
        if step.name in seen:
            problems.append(f"{step.name}: listed twice in {STEPS_FILE}")
        seen.add(step.name)
        found = _REGISTRY.get(step.name)
        if found is None:
            problems.append(f"{step.name}: listed in {STEPS_FILE} but registered by no module")
        elif found.stage != step.stage:
            problems.append(f"{step.name}: a {step.stage} step in {STEPS_FILE}, registered as a {found.stage} step "
                            f"by {found.where}")
    for name, found in _REGISTRY.items():
        if name not in seen:
            problems.append(f"{name}: registered by {found.where} but not listed in {STEPS_FILE}")
    return problems


def unknown(step_names) -> list[str]:
    """The names among `step_names` that are no step, sorted."""
    return sorted(set(step_names) - set(names()))
