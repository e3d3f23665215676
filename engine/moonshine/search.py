"""Moonshine hooks of the strong search (:mod:`engine.search`), its root pruning (a validation
that wins the game whatever the others do is never passed up: :func:`strong_action`) and the
easy level (a beginner: :func:`easy_action`).

Flat Monte-Carlo with common random numbers: every determinization (the deck, the face-down
discard pile and the cards offered to other seats re-dealt by ``hidden_variant``, and so every
future die roll) plays every move of the seat, so rerolls and actions are compared on the same
dice and cards. The action phase is simultaneous (RULINGS M2): the other seats' choices there
come from the baseline AI on the same determinization, never from their real choice. Playouts: the baseline AI for a few rounds, evaluated by the
points (M8) and the Moon tokens held (the first tie-break), as a softmax win-chance estimate.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from engine.moonshine.actions import DrawCards, MoonshineAction, Place, Stop, TakeMoon, Validate
from engine.moonshine.ai import sure_wins
from engine.moonshine.icons import client_info
from engine.moonshine.scoring import outcome_of
from engine.moonshine.state import MoonshineState, seat_tokens
from engine.search import Hooks, search, softmax_rewards

__all__ = ["ITERATIONS", "EASY_TOKENS", "HOOKS", "easy_action", "strong_action"]

#: The strong level's default iteration budget (:func:`engine.policies.iterations_for`), sized so
#: that a move takes well under 1 s on one idle core (p95; ``docs/ai.md``).
ITERATIONS = 300

#: Rounds a playout runs past the searched one before it is evaluated.
HORIZON = 2


def _cutoff(root: MoonshineState, state: MoonshineState) -> bool:
    return state.round > root.round + HORIZON


def _evaluate(game: Any, state: MoonshineState) -> tuple[float, ...]:
    points = outcome_of(state).scores
    return softmax_rewards([p + 0.2 * seat_tokens(s) for p, s in zip(points, state.seats, strict=True)], 1.5)


HOOKS = Hooks(cutoff=_cutoff, evaluate=_evaluate, epsilon=0.0, flat=True)


def strong_action(game: Any, state: MoonshineState, seat: int, *, hooks: Hooks, salt: int,
                  iterations: int | None, should_stop: Callable[[], bool] | None) -> MoonshineAction:
    """The strong level (``engine.policies.choose``): the search over the legal moves; in the
    action phase, when a validation wins the game whatever the others do
    (:func:`engine.moonshine.ai.sure_wins`), only those are searched. The baseline's move when
    the search ran no iteration."""
    legal: tuple[MoonshineAction, ...] = game.legal_actions(state, seat)
    moves: list[MoonshineAction] = list(sure_wins(state, seat)) or list(legal)
    if len(moves) == 1:
        return moves[0]
    result = search(game, state, seat, hooks=hooks, salt=salt, iterations=iterations,
                    should_stop=should_stop, root_moves=moves)
    if result.iterations == 0:
        fallback: MoonshineAction = game.ai_action(state, seat)
        return fallback
    move: MoonshineAction = hooks.first_action(game, state, seat, result.move)
    return move


#: Moon tokens the easy level gathers before it draws cards instead.
EASY_TOKENS = 4


def easy_action(game: Any, state: MoonshineState, seat: int, rng: random.Random) -> MoonshineAction:
    """The easy level, a beginner's habits (``rng`` is not used: it plays the same way every
    time): as the active player it keeps its first roll; in the action phase it validates the
    Client worth the most points on its card whenever it can, else takes a Moon token while it
    holds fewer than :data:`EASY_TOKENS` and has room, else draws cards; a gained token goes on
    the first slot offered. Its other follow-ups
    (discards, losses, the cards it keeps) are the baseline's."""
    legal = game.legal_actions(state, seat)
    if state.phase == "roll":
        return Stop() if Stop() in legal else legal[0]
    if state.phase == "action":
        vals = [a for a in legal if isinstance(a, Validate)]
        if vals:
            return max(vals, key=lambda a: (client_info(a.card).points, -a.card))
        held = seat_tokens(state.seats[seat])
        return TakeMoon() if TakeMoon() in legal and held < EASY_TOKENS else DrawCards()
    if isinstance(legal[0], Place):
        return legal[0]
    action: MoonshineAction = game.ai_action(state, seat)
    return action
