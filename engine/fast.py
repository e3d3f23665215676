"""The engine's fast constructors, for the games' hot paths (a playout builds a state, a step
and its events per ``apply``; a search builds millions).

Each builds exactly what the plain constructor builds, faster:

- :func:`event` / :func:`step_of`: an :class:`~engine.core.Event` / a :class:`~engine.core.Step`
  without the frozen ``__setattr__`` guard (the slots are stored into a mutable twin of the same
  layout, which then becomes the frozen class by ``__class__`` assignment);
- :func:`lazy_step`: a :class:`LazyStep`, a step whose events are made on first read (a random
  playout or a search reads only states);
- :func:`replacer` / :func:`replace_state`: copies of a frozen slotted dataclass equal to
  :func:`dataclasses.replace`, by straight-line code generated once per class and set of fields.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from functools import cache
from typing import Any, Generic, TypeVar, cast

from engine.core import Event, Step

__all__ = ["LazyStep", "event", "lazy_step", "replace_state", "replacer", "step_of"]

S = TypeVar("S")

_set_step_state = getattr(Step, "state").__set__  # noqa: B009 (the slot descriptor, not a str)
_set_step_events = getattr(Step, "events").__set__  # noqa: B009


class _EventDraft:
    """Same slots as :class:`Event`, mutable: :func:`event` fills one and makes it an Event."""

    __slots__ = ("key", "params", "audience")


_new_object = object.__new__


def event(key: str, params: Mapping[str, Any], audience: frozenset[int] | None = None) -> Event:
    """``Event(key, params, audience)``, built about twice as fast (for the games' hot paths):
    the slots are stored into a mutable twin that then becomes an :class:`Event` by
    ``__class__`` assignment (allowed between classes of the same layout)."""
    e: Any = _new_object(_EventDraft)
    e.key = key
    e.params = params
    e.audience = audience
    e.__class__ = Event
    made: Event = e
    return made


class _StepDraft(Generic[S]):
    """Same slots as :class:`Step`, mutable: :func:`step_of` fills one and makes it a Step."""

    __slots__ = ("state", "events")


def step_of(state: S, events: tuple[Event, ...] = ()) -> Step[S]:
    """``Step(state, events)``, built faster (the hot path of ``apply``), as :func:`event`."""
    made: Any = _new_object(_StepDraft)
    made.state = state
    made.events = events
    made.__class__ = Step
    result: Step[S] = made
    return result


class LazyStep(Step[S]):
    """A :class:`Step` whose ``events`` are made when first read, then kept (every read gives
    the same tuple), from a recipe ``(function, *arguments)`` stored by :func:`lazy_step`: a
    random playout or a search reads only states and does not pay for events.
    Compares equal to the plain ``Step(state, events)`` in both directions, hashes and pickles
    (and copies) as it."""

    __slots__ = ("_recipe",)
    _recipe: tuple[Any, ...]

    @property  # the Step field, made on first read
    def events(self) -> tuple[Event, ...]:
        """The step's events, in order (made from the recipe on first read)."""
        try:
            made: tuple[Event, ...] = _get_step_events(self)
        except AttributeError:
            recipe = self._recipe
            made = recipe[0](*recipe[1:])
            _set_step_events(self, made)
            _set_lazy_recipe(self, ())
        return made

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Step):
            return NotImplemented
        return (self.state, self.events) == (other.state, other.events)

    __hash__ = Step.__hash__

    def __reduce__(self) -> tuple[Any, ...]:
        return (Step, (self.state, self.events))


_get_step_events = getattr(Step, "events").__get__  # noqa: B009 (the slot descriptor of the base class)
_set_lazy_recipe = getattr(LazyStep, "_recipe").__set__  # noqa: B009


def lazy_step(state: S, *recipe: Any) -> Step[S]:
    """``Step(state, recipe[0](*recipe[1:]))`` with the events made on first read
    (:class:`LazyStep`); the recipe's arguments must not change afterwards."""
    step: Step[S] = _new_object(LazyStep)
    _set_step_state(step, state)  # the slot descriptors: no frozen __setattr__ on the way
    _set_lazy_recipe(step, recipe)
    return step


@cache
def _state_fields(cls: type) -> tuple[str, ...] | None:
    """Field names of the dataclass ``cls``, or ``None`` when a plain copy of its slots would not
    equal :func:`dataclasses.replace` (no slots, a ``__post_init__``, ``init=False`` fields)."""
    if not dataclasses.is_dataclass(cls) or "__slots__" not in cls.__dict__ or hasattr(cls, "__post_init__"):
        return None
    fs = dataclasses.fields(cls)
    if any(not f.init for f in fs):
        return None
    return tuple(f.name for f in fs)


@cache
def _draft_class(cls: type) -> type | None:
    """A mutable twin of the slotted dataclass ``cls``: same base, same slots, the plain
    ``object.__setattr__``. A copy is written into a twin (fast slot stores) and then becomes a
    ``cls`` by ``__class__`` assignment, which Python allows between classes of the same
    layout; ``None`` when it refuses (the copy then goes through the slot descriptors)."""
    base = cls.__base__ or object
    try:
        draft = type(f"_{cls.__name__}Draft", (base,), {
            "__slots__": cls.__dict__["__slots__"], "__setattr__": object.__setattr__,
            "__delattr__": object.__delattr__, "__module__": cls.__module__})
        probe: Any = object.__new__(draft)
        probe.__class__ = cls
    except TypeError:
        return None
    return draft


@cache
def _make_replacer(cls: type, names: tuple[str, ...]) -> Callable[..., Any]:
    """Straight-line code (as :mod:`dataclasses` builds ``__init__``) copying every field of a
    ``cls`` instance, ``names`` taken from the arguments instead. Nothing runs ``__init__`` nor
    the frozen ``__setattr__``: the fields are stored into a :func:`_draft_class` instance that
    then becomes a ``cls`` (else each slot is set through its member descriptor, slower)."""
    every = _state_fields(cls)
    if every is None:
        raise TypeError(f"{cls.__name__} is not a frozen slotted dataclass without __post_init__")
    unknown = [n for n in names if n not in every]
    if unknown or len(set(names)) != len(names):
        raise TypeError(f"{cls.__name__}: unknown or repeated fields {names}")
    draft = _draft_class(cls)
    args = "".join(f", _rp_v_{n}" for n in names)
    lines = [f"def replace(_rp_state{args}):"]
    namespace: dict[str, Any] = {"_rp_new": object.__new__, "_rp_cls": cls, "_rp_draft": draft}
    if draft is not None:
        lines.append("    _rp_o = _rp_new(_rp_draft)")
        lines += [f"    _rp_o.{n} = _rp_v_{n}" if n in names else f"    _rp_o.{n} = _rp_state.{n}" for n in every]
        lines.append("    _rp_o.__class__ = _rp_cls")
    else:
        lines.append("    _rp_o = _rp_new(_rp_cls)")
        lines += [f"    _rp_set_{n}(_rp_o, _rp_v_{n})" if n in names else f"    _rp_set_{n}(_rp_o, _rp_state.{n})"
                  for n in every]
        namespace.update({f"_rp_set_{n}": getattr(cls, n).__set__ for n in every})
    lines.append("    return _rp_o")
    exec("\n".join(lines), namespace)  # the code is built from field names only
    fn: Callable[..., Any] = namespace["replace"]
    return fn


def replacer(cls: type[S], *names: str) -> Callable[..., S]:
    """A fast copier for the hot path: ``replacer(C, "version", "marks")(state, v, m)`` equals
    ``dataclasses.replace(state, version=v, marks=m)`` for an instance of exactly ``C``, without
    validation (several times faster; make it once, at import).

    ``cls`` must be a frozen slotted dataclass without ``__post_init__`` nor ``init=False``
    fields (every :class:`State` subclass of the engine); raises ``TypeError`` otherwise or on
    an unknown or repeated field name.
    """
    target: Any = cls
    return cast(Callable[..., S], _make_replacer(target, names))


def replace_state(state: S, **changes: Any) -> S:
    """A copy of ``state`` with ``changes`` (no validation): equal to
    :func:`dataclasses.replace`, by a :func:`replacer` cached per class and set of names (falls
    back to :func:`dataclasses.replace` for a class it cannot copy that way).

    Raises ``TypeError`` on a name that is not a field."""
    cls: Any = type(state)
    if _state_fields(cls) is None:
        return dataclasses.replace(state, **changes)  # type: ignore[type-var]
    new: S = _make_replacer(cls, tuple(changes))(state, *changes.values())
    return new
