"""A tiny test-only game with simultaneous steps, to prove the buffering of simultaneous choices.

"Pick": for ``rounds`` rounds every seat secretly picks 1, 2 or 3 at the same time; each seat
scores its pick unless another seat picked the same number. Then one sequential step: seat 0
says "ok" (to mix simultaneous and sequential steps). Most points wins.

It follows the engine contract of ``engine/core.py`` like the real games: a frozen slotted
dataclass state (:class:`PickState`), dataclass actions (:class:`Pick`, :class:`Confirm`; codes
``p1``..``p3`` and ``ok``), a typed view (:class:`PickView`), ``Game[PickState, PickAction,
PickView]``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from engine.core import Action, Event, Game, GameOptions, IllegalAction, Outcome, State, Step, View, ranks_from_scores
from engine.fast import replace_state

__all__ = ["PICKS", "Confirm", "Pick", "PickAction", "PickGame", "PickOptions", "PickState", "PickView", "register_pick"]


class PickOptions(GameOptions):
    """Table options: ``rounds`` of simultaneous picks (default 2)."""

    rounds: int = 2


@dataclass(frozen=True, slots=True)
class Pick(Action):
    """A secret pick of ``n`` (1, 2 or 3). Code ``p<n>``."""

    n: int


@dataclass(frozen=True, slots=True)
class Confirm(Action):
    """Seat 0's "ok" that ends a round. Code ``ok``."""


PickAction = Pick | Confirm
#: The three picks, in code order.
PICKS: tuple[Pick, ...] = (Pick(1), Pick(2), Pick(3))


@dataclass(frozen=True, slots=True, kw_only=True)
class PickState(State):
    """The whole game.

    Attributes:
        round: 1-based round; the game is over once it exceeds ``rounds``.
        rounds: rounds to play (from :class:`PickOptions`).
        scores: points per seat.
        picks: last round's picks per seat (public once resolved; empty before the first).
        confirm: True while seat 0 must say "ok" (the sequential step of a round).
    """

    round: int = 1
    rounds: int = 2
    scores: tuple[int, ...] = ()
    picks: tuple[int, ...] = ()
    confirm: bool = False


@dataclass(frozen=True, slots=True)
class PickView(View):
    """What everybody sees (the game has no hidden information once a round is resolved)."""

    round: int
    scores: tuple[int, ...]
    picks: tuple[int, ...]
    confirm: bool


class PickGame(Game[PickState, PickAction, PickView]):
    """The "Pick" test game (2–4 seats); see the module docstring."""

    key: ClassVar[str] = "test-pick"
    min_players: ClassVar[int] = 2
    max_players: ClassVar[int] = 4
    state_model: ClassVar[type[Any]] = PickState
    options_model: ClassVar[type[GameOptions]] = PickOptions

    def setup(self, seed: int, players: int, options: GameOptions | Mapping[str, Any] | None = None) -> PickState:
        """A new game (``state.rules`` = :attr:`rules_version`). Raises ``ValueError`` on a bad
        seat count or bad options."""
        if not self.min_players <= players <= self.max_players:
            raise ValueError(f"Pick needs 2 to 4 players, not {players}")
        opts = self.parse_options(options)
        assert isinstance(opts, PickOptions)
        return PickState(seed=seed, players=players, rules=self.rules_version, rounds=opts.rounds,
                         scores=(0,) * players)

    def to_act(self, state: PickState) -> frozenset[int]:
        """Every seat while picking, seat 0 alone while confirming, nobody once over."""
        if state.round > state.rounds:
            return frozenset()
        if state.confirm:
            return frozenset({0})
        return frozenset(range(state.players))

    def legal_actions(self, state: PickState, seat: int) -> tuple[PickAction, ...]:
        """:class:`Confirm` for seat 0 while confirming, :data:`PICKS` while picking, else ``()``."""
        if seat not in self.to_act(state):
            return ()
        return (Confirm(),) if state.confirm else PICKS

    def apply(self, state: PickState, actions: Mapping[int, PickAction]) -> Step[PickState]:
        """Resolve the picks (a unique pick scores its value) or the confirmation.

        Raises :class:`IllegalAction` unless ``actions`` has one legal action per seat to act."""
        self.check_actions(state, actions)
        if state.confirm:
            new = replace_state(state, confirm=False, round=state.round + 1, version=state.version + 1)
            return Step(new, (Event("test.ok", {"seat": 0}),))
        picks = tuple(_pick(actions[s]) for s in range(state.players))
        scores = tuple(sc + (p if picks.count(p) == 1 else 0) for sc, p in zip(state.scores, picks, strict=True))
        new = replace_state(state, scores=scores, picks=picks, confirm=True, version=state.version + 1)
        return Step(new, (Event("test.picks", {"picks": list(picks)}),))

    def view(self, state: PickState, seat: int | None) -> PickView:
        """The same view for every seat and the public."""
        return PickView(round=state.round, scores=state.scores, picks=state.picks, confirm=state.confirm)

    def outcome(self, state: PickState) -> Outcome | None:
        """Ranks by score once every round is played, else ``None``."""
        if state.round <= state.rounds:
            return None
        return Outcome(ranks_from_scores([(s,) for s in state.scores]), state.scores)

    def ai_action(self, state: PickState, seat: int) -> PickAction:
        """:class:`Confirm` when confirming, else ``Pick(1 + (seat + round) % 3)``."""
        return Confirm() if state.confirm else PICKS[(seat + state.round) % 3]

    def encode(self, action: PickAction) -> str:
        """``p<n>`` for a pick, ``ok`` for the confirmation."""
        return "ok" if isinstance(action, Confirm) else f"p{action.n}"

    def decode(self, code: str) -> PickAction:
        """Raises :class:`IllegalAction` unless ``code`` is ``ok``, ``p1``, ``p2`` or ``p3``."""
        if code == "ok":
            return Confirm()
        if code in ("p1", "p2", "p3"):
            return Pick(int(code[1]))
        raise IllegalAction("malformed action code")


def _pick(action: PickAction) -> int:
    """The number of a pick (``check_actions`` already refused anything else)."""
    assert isinstance(action, Pick)
    return action.n


def register_pick() -> Any:
    """Register Pick as a game of the bot (``with register_pick() as spec:``; the
    :class:`bot.games.Registration`): its engine game with the base presenter and no catalog
    (the service tests read no text of it)."""
    from bot.games import GameSpec, register
    from bot.presenters import Presenter

    return register(GameSpec(PickGame(), Presenter(), {}))
