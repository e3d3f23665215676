"""Losing moves of Moonshine (RULINGS M2, M4, M8; ``docs/rules/moonshine.md``).

Judged: a seat's choice in the action phase (simultaneous, M2). Passing up a validation that
wins the game is losing: when validating some Client ends the game with the seat alone first
whatever the other seats choose, every other choice of that decision is reported (it gives up
a sure win for a game that may still be lost). A roll, a follow-up (token placement, discard,
card choice) or a choice with no such validation is not judged.

"Whatever the others choose" is played through the engine: the action phase is applied with
the seat's validation and every combination of the other seats' legal actions, each follow-up
then answered by its first legal action until the round's resolution ends; the validation
wins when every one of those games is over with the seat the only winner. The worlds the seat
cannot tell apart differ only in the deck, the discard pile and the others' offers (hidden
cards that no points of this action phase depend on), so the true state stands for all of
them. Tables of more than :data:`MAX_COMBINATIONS` combinations raise
:class:`~bench.blunders.Undecided`.
"""

from __future__ import annotations

from itertools import product
from typing import Any

from engine.moonshine.actions import Validate
from engine.moonshine.icons import side_info
from engine.moonshine.scoring import points_of
from engine.moonshine.state import MoonshineState
from tests.blunders import Undecided

__all__ = ["MAX_COMBINATIONS", "losing_moves", "wins_whatever"]

#: Most combinations of the other seats' actions played for one validation.
MAX_COMBINATIONS = 4096


def _settle(game: Any, state: MoonshineState, round_: int) -> MoonshineState:
    """Answer every follow-up with its first legal action until the round's resolution ends."""
    while state.phase != "over" and state.round == round_ and state.phase not in ("roll", "action"):
        acts = {s: game.legal_actions(state, s)[0] for s in sorted(game.to_act(state))}
        state = game.apply(state, acts).state
    return state


def wins_whatever(game: Any, state: MoonshineState, seat: int, action: Validate) -> bool:
    """True when ``action`` ends the game with ``seat`` the only winner for every combination of
    the other seats' legal actions (module docstring)."""
    others = [s for s in sorted(game.to_act(state)) if s != seat]
    choices = [game.legal_actions(state, s) for s in others]
    count = 1
    for c in choices:
        count *= len(c)
    if count > MAX_COMBINATIONS:
        raise Undecided(f"{count} combinations of the other seats' actions")
    s = state.seats[seat]  # cheap first: the validation must reach the target
    if points_of((*s.validated, action.card), side_info(s.speakeasy, state.variant).silhouettes) < state.target:
        return False
    for combo in product(*choices):
        acts = {seat: action, **dict(zip(others, combo, strict=True))}
        end = _settle(game, game.apply(state, acts).state, state.round)
        outcome = game.outcome(end)
        if outcome is None or outcome.winners != (seat,):
            return False
    return True


def losing_moves(game: Any, state: MoonshineState, seat: int) -> frozenset[Any]:
    """Every action-phase choice of ``seat`` other than the validations that win the game
    whatever the others do, when there is one (module docstring); empty otherwise."""
    if state.phase != "action" or seat not in game.to_act(state):
        return frozenset()
    legal = game.legal_actions(state, seat)
    wins = {a for a in legal if isinstance(a, Validate) and wins_whatever(game, state, seat, a)}
    if not wins:
        return frozenset()
    return frozenset(a for a in legal if a not in wins)
