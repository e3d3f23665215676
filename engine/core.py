"""The engine contract shared by every game (``docs/ARCHITECTURE.md``, "The engine contract").

A *game* is a stateless object implementing the abstract base :class:`Game`. A *state* is an
immutable value carrying its own ``seed``, ``version`` and ``rules`` (the rules version that
wrote it). Seats are ``0..n-1``; the engine never knows Discord users.

Representation, decided once for every game:

- **inside the engine**, states, actions and views are frozen dataclasses with slots (cheap to
  build, compare and hash; no validation on the hot path). Copy a state with
  :func:`dataclasses.replace`, or on a hot path with the fast constructors of
  :mod:`engine.fast`; every draw of chance comes from :mod:`engine.chance`;
- **at the edges**, pydantic validates what comes from outside: :meth:`Game.load_state` (stored
  snapshots, through a cached ``pydantic.TypeAdapter`` of the state class), table options
  (:class:`GameOptions`) and data files (card sets, uploaded decks).

Contract summary (every method is pure: no I/O, no clock, no global random):

- ``setup(seed, players, options) -> state``
- ``to_act(state) -> frozenset[int]``: who must decide now (several seats = a simultaneous
  step); empty exactly when the game is over.
- ``legal_actions(state, seat) -> tuple[action, ...]``
- ``apply(state, {seat: action}) -> Step``: one action per seat in ``to_act``; raises
  :class:`IllegalAction` on anything else (never substitutes another action); bumps ``version``.
- ``view(state, seat | None) -> View``: a typed view of what that seat may see (``None`` = the
  public table); :meth:`Game.view_json` gives its JSON form and :meth:`Game.view_from_json`
  rebuilds the typed view from it. Never contains the seed, the deck order or another seat's
  hidden cards.
- ``outcome(state) -> Outcome | None``
- ``timeout_action(state, seat)`` / ``ai_action(state, seat)``
- ``encode(action) -> str`` / ``decode(code) -> action``: short stable codes (custom_id-safe:
  at most :data:`MAX_CODE_LEN` characters of ``[A-Za-z0-9._-]``).
- ``dump_state(state) -> dict`` / ``load_state(dict) -> state``: JSON round trip.

Rules versions: :attr:`Game.rules_version` is bumped by any change that alters what a seed and
an action log produce (a rule fix, a new card set, a new chance derivation). ``setup`` stamps it
into ``state.rules``; a snapshot written before versions existed loads as version 1. A game
keeps the behaviour of every version it still has running tables of (``if state.rules < 2``),
and replay from seed and log is claimed only for the version that wrote them.

Events are language-neutral: a message key plus parameters, rendered by ``bot/`` in the
reader's language. An event may be restricted to an audience of seats (private events are never
shown in public places).
"""

from __future__ import annotations

import dataclasses
import enum
import re
import sys
from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from typing import Any, ClassVar, Generic, TypeVar, get_args, get_origin

from pydantic import BaseModel, ConfigDict, TypeAdapter

from engine.chance import variant_seed

__all__ = [
    "Action",
    "Event",
    "Game",
    "GameOptions",
    "IllegalAction",
    "MAX_CODE_LEN",
    "Outcome",
    "State",
    "Step",
    "View",
    "ranks_from_scores",
    "to_json",
]

#: Longest action code allowed; custom_ids (100 chars) also carry the table id and version.
MAX_CODE_LEN = 40
_CODE_RE = re.compile(rf"^[A-Za-z0-9._-]{{1,{MAX_CODE_LEN}}}$")


class IllegalAction(ValueError):
    """Raised by ``apply``/``decode`` for an action that is not legal now or not well formed.

    The message is safe to show to the acting player: it never contains hidden information of
    another seat.
    """


@dataclass(frozen=True, slots=True, kw_only=True)
class State:
    """Base class of every game state: an immutable value with its own ``seed`` and ``version``.

    Subclasses are ``@dataclass(frozen=True, slots=True, kw_only=True)`` and add their fields.
    ``version`` starts at 0 and is bumped by each ``apply``; ``rules`` is the game's
    :attr:`Game.rules_version` when the table was set up (1 for snapshots older than versions).
    """

    seed: int
    version: int = 0
    players: int
    rules: int = 1


@dataclass(frozen=True, slots=True)
class Action:
    """Base class for actions: small immutable values with a stable string code."""


@dataclass(frozen=True, slots=True)
class View:
    """Base class of typed views (what one seat, or the public, may see).

    Subclasses are frozen dataclasses; :func:`to_json` gives their JSON form (field names as
    keys), which the terminal and tests may use.
    """


class GameOptions(BaseModel):
    """Base class of a game's table options (chosen in the lobby). Games subclass it.

    Options arrive from outside (lobby menus, the command line, stored rows), so they stay
    pydantic models and are validated.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")


#: Default of ``Event.params`` (a new empty dict each time, as ``field(default_factory=dict)``).
_NO_PARAMS: Any = object()


@dataclass(frozen=True, slots=True, init=False)
class Event:
    """Something that happened, for the log.

    Attributes:
        key: a message key of the i18n catalogs, e.g. ``"god.roll"``.
        params: JSON-compatible values substituted into the message (seats as ints under keys
            named ``seat``/``winner``/… are turned into player names by the renderer).
        audience: ``None`` for a public event, else the seats allowed to see it.

    ``__init__`` is written by hand (the slots set through their descriptors): the dataclass one
    goes through the frozen ``__setattr__`` guard, and a playout builds an event per step.
    """

    key: str
    params: Mapping[str, Any] = field(default_factory=dict)
    audience: frozenset[int] | None = None

    def __init__(self, key: str, params: Mapping[str, Any] = _NO_PARAMS,
                 audience: frozenset[int] | None = None) -> None:
        _set_event_key(self, key)
        _set_event_params(self, {} if params is _NO_PARAMS else params)
        _set_event_audience(self, audience)

    def visible_to(self, seat: int | None) -> bool:
        """True when ``seat`` (``None`` = public) may see this event."""
        return self.audience is None or (seat is not None and seat in self.audience)


S = TypeVar("S")
A = TypeVar("A")
V = TypeVar("V")

_set_event_key = getattr(Event, "key").__set__  # noqa: B009 (the slot descriptor, not a str)
_set_event_params = getattr(Event, "params").__set__  # noqa: B009
_set_event_audience = getattr(Event, "audience").__set__  # noqa: B009


@dataclass(frozen=True, slots=True, init=False)
class Step(Generic[S]):
    """The result of ``apply``: the new state and the events it produced, in order.

    ``__init__`` is written by hand, as :class:`Event`'s (one step per ``apply``)."""

    state: S
    events: tuple[Event, ...] = ()

    def __init__(self, state: S, events: tuple[Event, ...] = ()) -> None:
        _set_step_state(self, state)
        _set_step_events(self, events)


_set_step_state = getattr(Step, "state").__set__  # noqa: B009
_set_step_events = getattr(Step, "events").__set__  # noqa: B009




@dataclass(frozen=True, slots=True)
class Outcome:
    """Final result of a game.

    Attributes:
        ranks: ``ranks[seat]`` is the seat's place, 1 = first; tied seats share a place
            (competition ranking: 1, 1, 3).
        scores: ``scores[seat]`` is the game's own score (dice held, points, cards…).
    """

    ranks: tuple[int, ...]
    scores: tuple[int, ...]

    @property
    def winners(self) -> tuple[int, ...]:
        """Seats ranked first."""
        return tuple(s for s, r in enumerate(self.ranks) if r == 1)


def ranks_from_scores(keys: list[tuple[Any, ...]]) -> tuple[int, ...]:
    """Competition ranking from sort keys (higher key = better), one key per seat.

    >>> ranks_from_scores([(5,), (7,), (5,)])
    (2, 1, 2)
    """
    return tuple(1 + sum(1 for other in keys if other > mine) for mine in keys)




def to_json(value: Any) -> Any:
    """The JSON form of a view (or any engine value): dataclasses become dicts (field order),
    tuples/lists lists, frozensets sorted lists, enums their value; dicts keep their keys.

    >>> to_json(Outcome(ranks=(1, 2), scores=(5, 3)))
    {'ranks': [1, 2], 'scores': [5, 3]}
    """
    cls: Any = type(value)
    kind = _JSON_KIND.get(cls)
    if kind is None:
        kind = _json_kind(cls)
    if kind == _SCALAR:
        return value
    if kind == _DATACLASS:
        return {name: to_json(getattr(value, name)) for name in _dataclass_names(cls)}
    if kind == _SEQUENCE:
        return [to_json(v) for v in value]
    if kind == _MAPPING:
        return {k: to_json(v) for k, v in value.items()}
    if kind == _SET:
        return [to_json(v) for v in sorted(value)]
    if kind == _ENUM:
        return to_json(value.value)
    if kind == _MODEL:
        return value.model_dump(mode="json")
    raise TypeError(f"not JSON-compatible: {type(value).__name__}")


_SCALAR, _DATACLASS, _MAPPING, _SET, _SEQUENCE, _ENUM, _MODEL, _OTHER = range(8)
#: How :func:`to_json` converts each type met so far (the order of checks decides, once).
_JSON_KIND: dict[type, int] = {}


def _json_kind(cls: type) -> int:
    if issubclass(cls, (bool, int, float, str)) or cls is type(None):
        kind = _SCALAR
    elif dataclasses.is_dataclass(cls):
        kind = _DATACLASS
    elif issubclass(cls, Mapping):
        kind = _MAPPING
    elif issubclass(cls, (frozenset, set)):
        kind = _SET
    elif issubclass(cls, (tuple, list)):
        kind = _SEQUENCE
    elif issubclass(cls, enum.Enum):
        kind = _ENUM
    elif issubclass(cls, BaseModel):
        kind = _MODEL
    else:
        return _OTHER  # not remembered: an error anyway
    _JSON_KIND[cls] = kind
    return kind


@cache
def _dataclass_names(cls: type) -> tuple[str, ...]:
    return tuple(f.name for f in dataclasses.fields(cls))


@cache
def _adapter(cls: type) -> TypeAdapter[Any]:
    return TypeAdapter(cls)


@cache
def _view_classes(game: type) -> dict[frozenset[str], type]:
    """The view classes of the :class:`Game` subclass ``game`` by their field names: the view
    type it declares (``Game[S, A, V]``) and the subclasses of it that ``V``'s module defines.
    Raises ``TypeError`` when it declares none, or when two classes have the same fields (their
    JSON could not be told apart)."""
    root = next((get_args(base)[2] for klass in game.__mro__ for base in klass.__dict__.get("__orig_bases__", ())
                 if get_origin(base) is Game), None)
    if not isinstance(root, type):
        raise TypeError(f"{game.__name__} declares no view type (class {game.__name__}(Game[S, A, V]))")
    module = vars(sys.modules[root.__module__])
    classes: list[type] = [value for value in module.values() if isinstance(value, type) and issubclass(value, root)]
    out: dict[frozenset[str], type] = {}
    for cls in classes:
        names = frozenset(_dataclass_names(cls))
        if names in out and out[names] is not cls:
            raise TypeError(f"{out[names].__name__} and {cls.__name__} have the same fields")
        out[names] = cls
    return out


class Game(ABC, Generic[S, A, V]):
    """Abstract base of every game. Stateless: all data is in the state value.

    Type parameters: the state class, the action type, the view type.

    Class attributes to set in subclasses:
        key: stable registry key (``"gang-of-dice"``).
        min_players / max_players: seat limits (inclusive).
        state_model: the state class (a :class:`State` dataclass).
        options_model: the :class:`GameOptions` subclass for table options.
        rules_version: bumped by every change that alters what a seed and a log produce.
        progress_unit: what :meth:`progress` counts, plural, as ``simulate`` prints it
            (``"rounds"``; Three-Player Moon: ``"hands"``).
        conformance_options: option dicts (for :meth:`setup`) that the shared conformance
            suite (``tests/conformance.py``) plays through, one playout set per dict; list one
            dict per meaningful variant (``({}, {"variant": "regular"})``). Default: defaults only.
    """

    key: ClassVar[str]
    min_players: ClassVar[int]
    max_players: ClassVar[int]
    state_model: ClassVar[type[Any]]
    options_model: ClassVar[type[GameOptions]] = GameOptions
    rules_version: ClassVar[int] = 1
    progress_unit: ClassVar[str] = "rounds"
    conformance_options: ClassVar[tuple[dict[str, Any], ...]] = ({},)

    # --- lifecycle -------------------------------------------------------------------------
    @abstractmethod
    def setup(self, seed: int, players: int, options: GameOptions | Mapping[str, Any] | None = None) -> S:
        """Deal a new game for ``players`` seats (``state.rules`` = :attr:`rules_version`).

        Raises ``ValueError`` on a bad seat count."""

    @abstractmethod
    def to_act(self, state: S) -> frozenset[int]:
        """Seats that must decide now; empty exactly when the game is over."""

    @abstractmethod
    def legal_actions(self, state: S, seat: int) -> tuple[A, ...]:
        """Every action ``seat`` may take now (empty when the seat is not to act)."""

    def legal_codes(self, state: S, seat: int) -> tuple[str, ...]:
        """The codes (:meth:`encode`) of every action ``seat`` may take now, in the order of
        :meth:`legal_actions` (empty when the seat is not to act)."""
        return tuple(self.encode(a) for a in self.legal_actions(state, seat))

    @abstractmethod
    def apply(self, state: S, actions: Mapping[int, A]) -> Step[S]:
        """Apply one action per seat in ``to_act``; raises :class:`IllegalAction` otherwise."""

    @abstractmethod
    def view(self, state: S, seat: int | None) -> V:
        """Typed view for ``seat`` (``None`` = public). No seed, no hidden cards."""

    def view_json(self, state: S, seat: int | None) -> Any:
        """The JSON form of :meth:`view` (for the terminal, the picture workers, tests and fixtures)."""
        return to_json(self.view(state, seat))

    def view_from_json(self, data: Any) -> V:
        """Inverse of :meth:`view_json`: ``view_from_json(view_json(state, seat)) == view(state, seat)``
        for the public view and every seat's.

        The class is the one, among the game's view type (its third type parameter) and that
        type's subclasses, whose fields are exactly the keys of ``data``; pydantic validates the
        values into it (lists become tuples, nested dicts their dataclasses). Raises
        ``ValueError`` (``pydantic.ValidationError`` is one) when ``data`` is no view of this game."""
        cls = _view_classes(type(self)).get(frozenset(data)) if isinstance(data, Mapping) else None
        if cls is None:
            keys = sorted(map(str, data)) if isinstance(data, Mapping) else type(data).__name__
            raise ValueError(f"not a view of {type(self).__name__}: {keys}")
        view: V = _adapter(cls).validate_python(data)
        return view

    @abstractmethod
    def outcome(self, state: S) -> Outcome | None:
        """The final ranking once the game is over, else ``None``."""

    def timeout_action(self, state: S, seat: int) -> A:
        """What a seat that let its time run out does (by default: the AI's choice)."""
        return self.ai_action(state, seat)

    @abstractmethod
    def ai_action(self, state: S, seat: int) -> A:
        """The baseline AI player's choice for ``seat`` (must be in ``legal_actions``)."""

    def hidden_variant(self, state: S, seat: int | None, salt: int) -> S:
        """A state that ``seat`` (``None`` = public) cannot tell apart from ``state``.

        Used by the conformance suite: ``view(variant, seat) == view(state, seat)`` must hold.
        Games re-deal what ``seat`` cannot see (other hands, deck order, widow) from ``salt``;
        the default only changes the seed (which decides every future draw).
        """
        seed: int = state.seed  # type: ignore[attr-defined]
        return dataclasses.replace(state, seed=variant_seed(seed, salt))  # type: ignore[type-var]

    def opening_events(self, state: S) -> tuple[Event, ...]:
        """Events that happened during ``setup`` (for example a card revealed before the first
        choice); the table records them when it starts. Default: none."""
        return ()

    def progress(self, state: S) -> int:
        """Rounds (or hands: :attr:`progress_unit`) played so far, for summaries; default: the
        number of applied steps."""
        version: int = state.version  # type: ignore[attr-defined]
        return version

    def turn_order(self, state: S) -> tuple[int, ...]:
        """The seats in turn order from the one who starts the game (first player, first
        chooser, first bidder), read from the state ``setup`` returned; ``simulate`` reports
        win shares by this position (0 = the starter). Default: seat order from seat 0."""
        players: int = state.players  # type: ignore[attr-defined]
        return tuple(range(players))

    def seat_labels(self, state: S) -> dict[str, tuple[str, ...]]:
        """Named things each seat is dealt at ``setup`` (Moonshine: ``{"speakeasy": (side name
        per seat)}``), for ``simulate``'s win shares per label. Default: none."""
        return {}

    def stats(self, state: S) -> dict[str, float]:
        """Game-specific counters of a finished game for ``simulate`` (e.g. cards validated)."""
        return {}

    # --- codecs ----------------------------------------------------------------------------
    @abstractmethod
    def encode(self, action: A) -> str:
        """Short stable code for ``action`` (see :data:`MAX_CODE_LEN`)."""

    @abstractmethod
    def decode(self, code: str) -> A:
        """Inverse of :meth:`encode`; raises :class:`IllegalAction` on a malformed code."""

    def dump_state(self, state: S) -> dict[str, Any]:
        """JSON-compatible dict of the whole state (private: it holds the seed)."""
        cls: Any = type(state)
        data: dict[str, Any] = _adapter(cls).dump_python(state, mode="json")
        return data

    def load_state(self, data: Mapping[str, Any]) -> S:
        """Inverse of :meth:`dump_state`, validated by pydantic (a missing ``rules`` = 1).

        Raises ``pydantic.ValidationError`` on bad data."""
        model: Any = self.state_model
        state: S = _adapter(model).validate_python(dict(data))
        return state

    def parse_options(self, options: GameOptions | Mapping[str, Any] | None) -> GameOptions:
        """Validate table options into :attr:`options_model` (``None`` = defaults)."""
        if isinstance(options, GameOptions):
            return options
        return self.options_model.model_validate(dict(options or {}))

    # --- helpers for subclasses -----------------------------------------------------------
    def check_code(self, code: str) -> str:
        """Validate the alphabet and length of an action code; raises :class:`IllegalAction`."""
        if not isinstance(code, str) or not _CODE_RE.match(code):
            raise IllegalAction("malformed action code")
        return code

    def check_actions(self, state: S, actions: Mapping[int, A]) -> None:
        """Check that ``actions`` has exactly the seats of ``to_act`` and each action is legal.

        Raises :class:`IllegalAction` with a message that names only the acting seat.
        """
        expected = self.to_act(state)
        if not expected:
            raise IllegalAction("the game is over")
        if set(actions) != set(expected):
            raise IllegalAction(f"expected actions from seats {sorted(expected)}, got {sorted(actions)}")
        for seat, action in actions.items():
            if action not in self.legal_actions(state, seat):
                raise IllegalAction(f"seat {seat}: that action is not legal now")
