"""The engine contract shared by every game (see ``shared/design/ARCHITECTURE.md``).

A *game* is a stateless object implementing :class:`Game`. A *state* is an immutable pydantic
model (``frozen=True``) carrying its own ``seed`` and ``version``. Seats are ``0..n-1``; the
engine never knows Discord users.

Contract summary (every method is pure: no I/O, no clock, no global random):

- ``setup(seed, players, options) -> state``
- ``to_act(state) -> frozenset[int]``: who must decide now (several seats = a simultaneous
  step); empty exactly when the game is over.
- ``legal_actions(state, seat) -> tuple[action, ...]``
- ``apply(state, {seat: action}) -> Step``: one action per seat in ``to_act``; raises
  :class:`IllegalAction` on anything else (never substitutes another action); bumps ``version``.
- ``view(state, seat | None) -> dict``: what that seat may see (``None`` = the public table),
  JSON-compatible. Never contains the seed, the deck order or another seat's hidden cards.
- ``outcome(state) -> Outcome | None``
- ``timeout_action(state, seat)`` / ``ai_action(state, seat)``
- ``encode(action) -> str`` / ``decode(code) -> action``: short stable codes (custom_id-safe:
  at most :data:`MAX_CODE_LEN` characters of ``[A-Za-z0-9._-]``).
- ``dump_state(state) -> dict`` / ``load_state(dict) -> state``: JSON round trip.

Events are language-neutral: a message key plus parameters, rendered by ``bot/`` in the
reader's language. An event may be restricted to an audience of seats (private events are never
shown in public places).
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field
from typing import Any, ClassVar, Generic, Mapping, TypeVar

from pydantic import BaseModel, ConfigDict

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
    "ranks_from_scores",
    "rng_for",
]

#: Longest action code allowed; custom_ids (100 chars) also carry the table id and version.
MAX_CODE_LEN = 40
_CODE_RE = re.compile(r"^[A-Za-z0-9._-]{1,%d}$" % MAX_CODE_LEN)


class IllegalAction(ValueError):
    """Raised by ``apply``/``decode`` for an action that is not legal now or not well formed.

    The message is safe to show to the acting player: it never contains hidden information of
    another seat.
    """


class State(BaseModel):
    """Base class of every game state: an immutable value with its own ``seed`` and ``version``.

    Subclasses add their fields. ``version`` starts at 0 and is bumped by each ``apply``.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    seed: int
    version: int = 0
    players: int


class GameOptions(BaseModel):
    """Base class of a game's table options (chosen in the lobby). Games subclass it."""

    model_config = ConfigDict(frozen=True, extra="forbid")


class Action(BaseModel):
    """Base class for actions: small immutable values with a stable string code."""

    model_config = ConfigDict(frozen=True, extra="forbid")


@dataclass(frozen=True)
class Event:
    """Something that happened, for the log.

    Attributes:
        key: a message key of the i18n catalogs, e.g. ``"god.roll"``.
        params: JSON-compatible values substituted into the message (seats as ints under keys
            named ``seat``/``winner``/… are turned into player names by the renderer).
        audience: ``None`` for a public event, else the seats allowed to see it.
    """

    key: str
    params: Mapping[str, Any] = field(default_factory=dict)
    audience: frozenset[int] | None = None

    def visible_to(self, seat: int | None) -> bool:
        """True when ``seat`` (``None`` = public) may see this event."""
        return self.audience is None or (seat is not None and seat in self.audience)


@dataclass(frozen=True)
class Step:
    """The result of ``apply``: the new state and the events it produced, in order."""

    state: Any
    events: tuple[Event, ...] = ()


@dataclass(frozen=True)
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


def ranks_from_scores(keys: list[tuple]) -> tuple[int, ...]:
    """Competition ranking from sort keys (higher key = better), one key per seat.

    >>> ranks_from_scores([(5,), (7,), (5,)])
    (2, 1, 2)
    """
    return tuple(1 + sum(1 for other in keys if other > mine) for mine in keys)


def rng_for(state: State, salt: str = "") -> random.Random:
    """A private ``random.Random`` derived from ``(seed, version, salt)`` of ``state``.

    The same state always yields the same draws, so a game is reproducible from its seed and
    action log. Never use the global ``random`` in the engine.
    """
    return random.Random(f"{state.seed}:{state.version}:{salt}")


S = TypeVar("S", bound=State)
A = TypeVar("A")


class Game(Generic[S, A]):
    """Abstract base of every game. Stateless: all data is in the state value.

    Class attributes to set in subclasses:
        key: stable registry key (``"gang-of-dice"``).
        min_players / max_players: seat limits (inclusive).
        state_model: the :class:`State` subclass.
        options_model: the :class:`GameOptions` subclass for table options.
        conformance_options: option dicts (for :meth:`setup`) that the shared conformance
            suite (``tests/conformance.py``) plays through, one playout set per dict; list one
            dict per meaningful variant (``({}, {"variant": "regular"})``). Default: defaults only.
    """

    key: ClassVar[str]
    min_players: ClassVar[int]
    max_players: ClassVar[int]
    state_model: ClassVar[type[State]]
    options_model: ClassVar[type[GameOptions]] = GameOptions
    conformance_options: ClassVar[tuple[dict[str, Any], ...]] = ({},)

    # --- lifecycle -------------------------------------------------------------------------
    def setup(self, seed: int, players: int, options: GameOptions | Mapping[str, Any] | None = None) -> S:
        """Deal a new game for ``players`` seats. Raises ``ValueError`` on a bad seat count."""
        raise NotImplementedError

    def to_act(self, state: S) -> frozenset[int]:
        """Seats that must decide now; empty exactly when the game is over."""
        raise NotImplementedError

    def legal_actions(self, state: S, seat: int) -> tuple[A, ...]:
        """Every action ``seat`` may take now (empty when the seat is not to act)."""
        raise NotImplementedError

    def apply(self, state: S, actions: Mapping[int, A]) -> Step:
        """Apply one action per seat in ``to_act``; raises :class:`IllegalAction` otherwise."""
        raise NotImplementedError

    def view(self, state: S, seat: int | None) -> dict[str, Any]:
        """JSON-compatible view for ``seat`` (``None`` = public). No seed, no hidden cards."""
        raise NotImplementedError

    def outcome(self, state: S) -> Outcome | None:
        """The final ranking once the game is over, else ``None``."""
        raise NotImplementedError

    def timeout_action(self, state: S, seat: int) -> A:
        """What a seat that let its time run out does (by default: the AI's choice)."""
        return self.ai_action(state, seat)

    def ai_action(self, state: S, seat: int) -> A:
        """The baseline AI player's choice for ``seat`` (must be in ``legal_actions``)."""
        raise NotImplementedError

    def hidden_variant(self, state: S, seat: int | None, salt: int) -> S:
        """A state that ``seat`` (``None`` = public) cannot tell apart from ``state``.

        Used by the conformance suite: ``view(variant, seat) == view(state, seat)`` must hold.
        Games re-deal what ``seat`` cannot see (other hands, deck order, widow) from ``salt``;
        the default only changes the seed (which decides every future draw).
        """
        return state.model_copy(update={"seed": (state.seed * 7919 + salt + 1) % (2**62)})

    def opening_events(self, state: S) -> tuple[Event, ...]:
        """Events that happened during ``setup`` (for example a card revealed before the first
        choice); the table records them when it starts. Default: none."""
        return ()

    def progress(self, state: S) -> int:
        """Rounds (or hands) played so far, for summaries; default: the number of applied steps."""
        return state.version

    def stats(self, state: S) -> dict[str, float]:
        """Game-specific counters of a finished game for ``simulate`` (e.g. cards validated)."""
        return {}

    # --- codecs ----------------------------------------------------------------------------
    def encode(self, action: A) -> str:
        """Short stable code for ``action`` (see :data:`MAX_CODE_LEN`)."""
        raise NotImplementedError

    def decode(self, code: str) -> A:
        """Inverse of :meth:`encode`; raises :class:`IllegalAction` on a malformed code."""
        raise NotImplementedError

    def dump_state(self, state: S) -> dict[str, Any]:
        """JSON-compatible dict of the whole state (private: it holds the seed)."""
        return state.model_dump(mode="json")

    def load_state(self, data: Mapping[str, Any]) -> S:
        """Inverse of :meth:`dump_state`; raises ``pydantic.ValidationError`` on bad data."""
        return self.state_model.model_validate(data)  # type: ignore[return-value]

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
