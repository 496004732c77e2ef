"""The pipeline: named components, one registry, and the presets the tool runs, built from data.

A component is one step a batch of messages goes through: a function registered under its name
with `@component(name, requires=..., assigns=...)` in the module whose code it runs. It reads
the fields of the `Batch` it requires (the input's, or those an earlier component assigned) and
assigns its own; what it works with besides the batch (the Seek&Hide instance, the model, the
policy...) it finds on the pipeline's context, the object that runs it (a
triage.classifier.Classifier, for example).

`triage/pipeline/stages.txt` lists every component (its module, its fields, what it does) and the
presets: the ordered lists of components the tool runs (`classify`, `seek-rows`, `cells`,
`gold`, `message-features`...). A preset may start with another preset, so that a component
added to the shared start reaches every preset built on it. `Pipeline.preset(name, context)` builds one;
`Pipeline(names, context)` builds any list. Either checks, before any message goes through, that
each component's requirements are the input's or assigned by an earlier component.
tests/test_stages.py checks that the file and the code agree.

This module imports nothing of the tool: every layer can register components and build
pipelines.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from importlib import resources
from types import SimpleNamespace
from typing import Any


class Batch:
    """A batch of messages on its way down a pipeline: the fields of the input (for example
    `ids` and `texts`), then those each component assigns, as attributes."""

    def __init__(self, **fields: Any) -> None:
        self.__dict__.update(fields)

    def __getattr__(self, name: str):
        # Only called for a field no one assigned.
        if name.startswith("__"):
            raise AttributeError(name)
        raise AttributeError(f"the batch has no field {name!r}: neither the input nor an earlier component assigns it")

    def fields(self) -> set[str]:
        """The names of the fields the batch holds."""
        return set(vars(self))


class Context(SimpleNamespace):
    """What the components of a pipeline work with besides the batch, as attributes (for
    example `seeker`, `feature_set`, `normalise`, `predictor`), for the pipelines whose runner
    is no object of its own."""


@dataclass(frozen=True)
class Component:
    """A registered step: its name, the batch fields it reads and those it assigns, and the
    function `run(context, batch)`."""

    name: str
    requires: tuple[str, ...]
    assigns: tuple[str, ...]
    run: Callable[[Any, Batch], None]

    @property
    def module(self) -> str:
        return self.run.__module__


REGISTRY: dict[str, Component] = {}
"""Every registered component, by name (filled by the modules that define them, on import)."""


def component(name: str, *, requires: Iterable[str] = (), assigns: Iterable[str] = ()):
    """Register the decorated function `run(context, batch)` as the component `name`, reading
    the batch fields `requires` and assigning `assigns`."""
    def register(run: Callable[[Any, Batch], None]):
        if name in REGISTRY:
            raise ValueError(f"the component {name!r} is registered twice")
        if name in PRESETS:
            raise ValueError(f"{name!r} names a preset: a component needs a name of its own")
        REGISTRY[name] = Component(name, tuple(requires), tuple(assigns), run)
        return run

    return register


@dataclass(frozen=True)
class Listed:
    """A component as triage/pipeline/stages.txt lists it."""

    name: str
    module: str
    requires: tuple[str, ...]
    assigns: tuple[str, ...]
    description: str


@dataclass(frozen=True)
class Preset:
    """A preset as triage/pipeline/stages.txt lists it: the input fields, and the components in order
    (presets named in its list expanded)."""

    name: str
    inputs: tuple[str, ...]
    components: tuple[str, ...]


def unmet(names: Iterable[str], inputs: Iterable[str], components: dict | None = None) -> list[tuple[str, str]]:
    """(component, field) for each field a component of `names` requires that neither the
    `inputs` nor an earlier component assigns."""
    components = REGISTRY if components is None else components
    available, missing = set(inputs), []
    for name in names:
        step = components[name]
        missing += [(name, field) for field in step.requires if field not in available]
        available.update(step.assigns)
    return missing


class Pipeline:
    """Components run in order on a batch, with a context (what they work with besides the
    batch: see the module's docstring)."""

    def __init__(self, names: Iterable[str], context: Any = None, *, inputs: Iterable[str] = ("texts",)):
        names = tuple(names)
        unknown = [name for name in names if name not in REGISTRY]
        if unknown:
            where = {listed.name: listed.module for listed in LISTED}
            raise KeyError("no component registered as " + ", ".join(
                f"{name!r}" + (f" (registered by {where[name]}: import it first)" if name in where else "")
                for name in unknown))
        self.inputs = tuple(inputs)
        missing = unmet(names, self.inputs)
        if missing:
            raise ValueError("; ".join(f"the component {name!r} requires {field!r}, which neither the input nor an "
                                       f"earlier component assigns" for name, field in missing))
        self.names = names
        self.components = tuple(REGISTRY[name] for name in names)
        self.context = context

    @classmethod
    def preset(cls, name: str, context: Any = None, *, without: Iterable[str] = (),
               given: Iterable[str] = ()) -> Pipeline:
        """The preset `name` of triage/pipeline/stages.txt, but for the components `without` (switched
        off: what they assign must then come from elsewhere, for example as fields `given` with the
        preset's input)."""
        if name not in PRESETS:
            raise KeyError(f"no preset {name!r}; the presets are {', '.join(PRESETS)}")
        off = set(without)
        preset = PRESETS[name]
        return cls([c for c in preset.components if c not in off], context, inputs=(*preset.inputs, *given))

    def __call__(self, batch: Batch | None = None, **inputs: Any) -> Batch:
        """The batch (a new one of the `inputs` fields by default) after every component."""
        batch = Batch(**inputs) if batch is None else batch
        context = self.context
        for step in self.components:
            step.run(context, batch)
        return batch

    def __repr__(self) -> str:
        return f"Pipeline({list(self.names)!r})"


# ---------------------------------------------------------------------- the list, as data


def read_list(text: str) -> tuple[tuple[Listed, ...], dict[str, Preset]]:
    """The components and presets of triage/pipeline/stages.txt (`#` starts a comment line)."""
    listed: list[Listed] = []
    raw: dict[str, tuple[tuple[str, ...], list[str]]] = {}
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        head, bracket, rest = line.partition("[")
        fields, closing, tail = rest.partition("]")
        words = head.split()
        if not bracket or not closing or len(words) != 2:
            raise ValueError(f"stages.txt, line {number}: expected 'NAME MODULE [REQUIRES -> ASSIGNS] WHAT' or "
                             f"'preset NAME [INPUTS] COMPONENTS...': {line!r}")
        if words[0] == "preset":
            raw[words[1]] = (_names(fields), tail.split())
            continue
        requires, arrow, assigns = fields.partition("->")
        if not arrow:
            raise ValueError(f"stages.txt, line {number}: the fields are [REQUIRES -> ASSIGNS]: {line!r}")
        listed.append(Listed(words[0], words[1], _names(requires), _names(assigns), tail.strip()))
    components = {c.name for c in listed}
    both = sorted(components & set(raw)) or sorted({c.name for c in listed if sum(o.name == c.name for o in listed) > 1})
    if both:
        raise ValueError(f"stages.txt: {', '.join(map(repr, both))} named twice (components and presets need "
                         "names of their own)")

    def expand(name: str, seen: tuple[str, ...]) -> list[str]:
        if name in seen:
            raise ValueError(f"stages.txt: the preset {name!r} includes itself")
        out: list[str] = []
        for item in raw[name][1]:
            if item in raw:
                out += expand(item, (*seen, name))
            elif item in components:
                out.append(item)
            else:
                raise ValueError(f"stages.txt: the preset {name!r} names {item!r}, neither a component nor a preset")
        return out

    presets = {name: Preset(name, inputs, tuple(expand(name, ()))) for name, (inputs, _) in raw.items()}
    return tuple(listed), presets


def _names(fields: str) -> tuple[str, ...]:
    return tuple(f.strip() for f in fields.split(",") if f.strip())


LISTED, PRESETS = read_list(resources.files("triage.pipeline").joinpath("stages.txt").read_text(encoding="utf-8"))
"""The components as triage/pipeline/stages.txt lists them, in its order; its presets, by name."""
