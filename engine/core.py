"""The engine contract shared by every game (``docs/ARCHITECTURE.md``, "The engine contract").

A *game* is a stateless object implementing the abstract base :class:`Game`. A *state* is an
immutable value carrying its own ``seed``, ``version`` and ``rules`` (the rules version that
wrote it). Seats are ``0..n-1``; the engine never knows Discord users.

Representation, decided once for every game:

- **inside the engine**, states, actions and views are frozen dataclasses with slots (cheap to
  build, compare and hash; no validation on the hot path). Copy a state with
  :func:`replace_state` (same result as :func:`dataclasses.replace`, several times faster) or,
  in a game's inner loop, with a :func:`replacer` made once for the fields a step changes;
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
  public table); :meth:`Game.view_json` gives its JSON form. Never contains the seed, the deck
  order or another seat's hidden cards.
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

import _random
import dataclasses
import enum
import random
import re
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cache
from hashlib import blake2b, sha512
from typing import Any, ClassVar, Generic, TypeVar, cast

from pydantic import BaseModel, ConfigDict, TypeAdapter

__all__ = [
    "Action",
    "Event",
    "Game",
    "GameOptions",
    "IllegalAction",
    "LazyStep",
    "MAX_CODE_LEN",
    "Outcome",
    "State",
    "Step",
    "View",
    "event",
    "ranks_from_scores",
    "lazy_step",
    "step_of",
    "replace_state",
    "replacer",
    "hashed_draws",
    "rng_draws",
    "rng_for",
    "to_json",
    "variant_seed",
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
    random playout or a search reads only states and does not pay for events (issue 11 part 1).
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


def rng_for(state: Any, salt: str = "") -> random.Random:
    """A private ``random.Random`` derived from ``(seed, version, salt)`` of ``state``.

    The same state always yields the same draws, so a game is reproducible from its seed and
    action log. Never use the global ``random`` in the engine. For a batch of ``randrange``
    draws, :func:`rng_draws` gives the same values faster.
    """
    return random.Random(f"{state.seed}:{state.version}:{salt}")


def variant_seed(seed: int, salt: int) -> int:
    """The seed of a ``hidden_variant`` drawn with ``salt`` (it decides every future draw of the
    variant; see :meth:`Game.hidden_variant`)."""
    return (seed * 7919 + salt + 1) % (2**62)


_new_generator = _random.Random.__new__
_seed_generator = _random.Random.seed


@cache
def _draw_tables(below: int) -> tuple[bytes, bytes]:
    """``bytes.translate`` tables turning the top byte of each 32-bit Mersenne Twister word into
    the value ``randrange(below)`` reads from it (its top ``k`` bits, ``k = below.bit_length()``),
    and deleting the words ``randrange`` rejects (values ``>= below``)."""
    shift = 8 - below.bit_length()
    table = bytes(b >> shift for b in range(256))
    return table, bytes(b for b in range(256) if b >> shift >= below)


def rng_draws(state: Any, salt: str, n: int, below: int) -> bytes:
    """The first ``n`` values of ``rng_for(state, salt).randrange(below)`` (``1 <= below <=
    255``), as a ``bytes`` of ``n`` values: identical draws, computed in bulk.

    ``randrange(below)`` takes one 32-bit word of the Mersenne Twister per attempt, keeps its top
    ``below.bit_length()`` bits and retries when they are ``>= below``; this reads the same words
    with one ``getrandbits`` call and keeps the same values (a CPython detail that
    ``tests/test_engine_core.py`` pins). Raises ``ValueError`` for ``below`` outside 1..255.

    >>> class S: seed, version = 7, 3
    >>> rng = rng_for(S(), "roll")
    >>> list(rng_draws(S(), "roll", 5, 6)) == [rng.randrange(6) for _ in range(5)]
    True
    """
    if not 1 <= below <= 255:
        raise ValueError("below must be in 1..255")
    if n <= 0:
        return b""
    text = f"{state.seed}:{state.version}:{salt}".encode()
    # A generator taken from the pool (list.pop/append are atomic: threads never share one).
    gen = _generators.pop() if _generators else _new_generator(_random.Random)
    # random.Random.seed(str) (version 2) seeds with this integer: the same generator state.
    _seed_generator(gen, int.from_bytes(text + sha512(text).digest(), "big"))
    table, rejected = _draw_tables(below)
    out = b""
    while len(out) < n:
        words = (n - len(out)) * 3 // 2 + 4
        out += gen.getrandbits(32 * words).to_bytes(4 * words, "little")[3::4].translate(table, rejected)
    _generators.append(gen)
    return out[:n]


#: Spare generators for :func:`rng_draws` (each is fully re-seeded before use).
_generators: list[_random.Random] = []


@cache
def _hash_tables(below: int) -> tuple[bytes, bytes]:
    """``bytes.translate`` tables for :func:`hashed_draws`: byte ``b`` -> ``b % below``, and the
    bytes ``>= 256 - 256 % below`` deleted (rejected, so that every value is equally likely)."""
    keep = 256 - 256 % below
    return bytes(b % below for b in range(256)), bytes(range(keep, 256))


def hashed_draws(state: Any, salt: str, n: int, below: int) -> bytes:
    """``n`` values, each uniform in ``0..below-1`` (``1 <= below <= 255``), derived from
    ``(seed, version, salt)`` of ``state`` by a counter-based generator: cheap (no generator to
    seed) and the same on every platform and Python version.

    Block ``k`` (``k = 0, 1, …``) is the 64-byte BLAKE2b digest (RFC 7693, ``hashlib.blake2b``,
    default parameters) of the ASCII text ``"{seed}:{version}:{salt}"`` for ``k = 0`` and
    ``"{seed}:{version}:{salt}:{k}"`` after; the blocks' bytes are read in order, a byte ``b``
    gives the value ``b % below`` when ``b < 256 - 256 % below`` and is skipped otherwise
    (rejection: exactly uniform). For dice (``below = 6``) one block gives about 63 values.
    About a sixth of the work of :func:`rng_draws` for a roll (it seeds a Mersenne Twister).
    Raises ``ValueError`` for ``below`` outside 1..255.

    >>> class S: seed, version = 7, 3
    >>> list(hashed_draws(S(), "roll", 5, 6)) == list(hashed_draws(S(), "roll", 9, 6))[:5]
    True
    """
    tables = _HASH_TABLES.get(below)
    if tables is None:
        if not 1 <= below <= 255:
            raise ValueError("below must be in 1..255")
        tables = _HASH_TABLES[below] = _hash_tables(below)
    key = b"%d:%d:%s" % (state.seed, state.version, salt.encode())
    out = blake2b(key).digest().translate(*tables)
    if len(out) >= n:
        return out[:n] if n > 0 else b""
    block = 0
    while len(out) < n:
        block += 1
        out += blake2b(b"%s:%d" % (key, block)).digest().translate(*tables)
    return out[:n]


#: :func:`_hash_tables` by ``below``, read without a call on the hot path.
_HASH_TABLES: dict[int, tuple[bytes, bytes]] = {}


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

    @abstractmethod
    def apply(self, state: S, actions: Mapping[int, A]) -> Step[S]:
        """Apply one action per seat in ``to_act``; raises :class:`IllegalAction` otherwise."""

    @abstractmethod
    def view(self, state: S, seat: int | None) -> V:
        """Typed view for ``seat`` (``None`` = public). No seed, no hidden cards."""

    def view_json(self, state: S, seat: int | None) -> Any:
        """The JSON form of :meth:`view` (for the terminal, tests and fixtures)."""
        return to_json(self.view(state, seat))

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
        return replace_state(state, seed=variant_seed(seed, salt))

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
