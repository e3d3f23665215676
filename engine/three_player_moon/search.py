"""Three-Player Moon hooks of the strong search (:mod:`engine.search`) and the easy level.

The search plays every bid, discard, trump and tile itself (the action sets are small). Each
determinization re-deals the tiles the seat has not seen (``hidden_variant``), so the bidder
weighs the widow it may draw and the moon bid (21, RULINGS T2, T6) is tried like any other bid.
Playouts: the baseline AI to the end of the hand, evaluated by the scores (a softmax of the
scores, a win-chance estimate; T7: the game goes to 21).
"""

from __future__ import annotations

import random
from typing import Any

from engine.search import Hooks, softmax_rewards
from engine.three_player_moon import ai
from engine.three_player_moon.actions import Bid, MoonAction, Play
from engine.three_player_moon.state import MoonState

__all__ = ["HOOKS", "easy_action"]


def _cutoff(root: MoonState, state: MoonState) -> bool:
    return state.hand_no != root.hand_no


def _evaluate(game: Any, state: MoonState) -> tuple[float, ...]:
    return softmax_rewards(state.scores, 4.0)


HOOKS = Hooks(cutoff=_cutoff, evaluate=_evaluate, epsilon=0.0, exploration=0.6, max_depth=12)


def easy_action(game: Any, state: MoonState, seat: int, rng: random.Random) -> MoonAction:
    """The easy level: the baseline, but a third of its bids are lowered (a pass or a lower
    legal bid) and a fifth of its plays are another legal tile. Never a
    moon bid the baseline would not make."""
    best: MoonAction = ai.choose(state, seat)
    legal = game.legal_actions(state, seat)
    if isinstance(best, Bid) and best.bid and rng.random() < 1 / 3:
        lower = [a for a in legal if isinstance(a, Bid) and a.bid < best.bid]
        return rng.choice(lower) if lower else best
    if isinstance(best, Play) and len(legal) > 1 and rng.random() < 0.2:
        return rng.choice(legal)  # type: ignore[no-any-return]
    return best
