"""Shop Battle hooks of the strong search (:mod:`engine.search`).

Flat Monte-Carlo with common random numbers: every determinization (the cards the seat does not
know re-dealt by ``hidden_variant``) plays every announcement (characteristic and direction) or
every target of a Collector power, so the moves are compared on the same deals. Playouts: the
baseline AI for a few rounds, evaluated by the cards each seat holds (a softmax: a win-chance
estimate; S6: most cards wins at the round cap).
"""

from __future__ import annotations

from typing import Any

from engine.search import Hooks, softmax_rewards
from engine.shop_battle.state import ShopBattleState

__all__ = ["HOOKS"]

#: Rounds a playout runs past the searched one before it is evaluated.
HORIZON = 3


def _cutoff(root: ShopBattleState, state: ShopBattleState) -> bool:
    return state.round > root.round + HORIZON


def _evaluate(game: Any, state: ShopBattleState) -> tuple[float, ...]:
    held = [len(p) if state.out[s] is None else -1 for s, p in enumerate(state.piles)]
    return softmax_rewards(held, 3.0)


HOOKS = Hooks(cutoff=_cutoff, evaluate=_evaluate, epsilon=0.0, flat=True)
