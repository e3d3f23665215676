"""Moonshine hooks of the strong search (:mod:`engine.search`).

Flat Monte-Carlo with common random numbers: every determinization (the deck, the face-down
discard pile and the cards offered to other seats re-dealt by ``hidden_variant``, and so every
future die roll) plays every move of the seat, so rerolls and actions are compared on the same
dice and cards. The action phase is simultaneous (RULINGS M2): the other seats' choices there
come from the baseline AI on the same determinization, never from their real choice. Playouts: the baseline AI for a few rounds, evaluated by the
points (M8) and the Moon tokens held (the first tie-break), as a softmax win-chance estimate.
"""

from __future__ import annotations

from typing import Any

from engine.moonshine.scoring import outcome_of
from engine.moonshine.state import MoonshineState, seat_tokens
from engine.search import Hooks, softmax_rewards

__all__ = ["HOOKS"]

#: Rounds a playout runs past the searched one before it is evaluated.
HORIZON = 2


def _cutoff(root: MoonshineState, state: MoonshineState) -> bool:
    return state.round > root.round + HORIZON


def _evaluate(game: Any, state: MoonshineState) -> tuple[float, ...]:
    points = outcome_of(state).scores
    return softmax_rewards([p + 0.2 * seat_tokens(s) for p, s in zip(points, state.seats, strict=True)], 1.5)


HOOKS = Hooks(cutoff=_cutoff, evaluate=_evaluate, epsilon=0.0, flat=True)
