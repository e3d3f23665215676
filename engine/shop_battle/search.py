"""Shop Battle hooks of the strong search (:mod:`engine.search`), its root pruning and the easy
level (a beginner: :func:`easy_action`).

Flat Monte-Carlo with common random numbers: every determinization (the cards the seat does not
know re-dealt by ``hidden_variant``) plays every announcement (characteristic and direction) or
every target of a Collector power, so the moves are compared on the same deals. Playouts: the
baseline AI's estimate (``choose_action``) for a few rounds, evaluated by the cards each seat holds (a softmax: a win-chance
estimate; S6: most cards wins at the round cap).

Before any playout, :func:`strong_action` leaves out the announcements whose chance to win the
round is dominated by another's on the same card (:func:`engine.shop_battle.ai.dominated`): the
stakes are the same whatever is announced, so those only give up rounds, and the playouts'
noise must not pick one.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from engine.search import Hooks, search, softmax_rewards
from engine.shop_battle.actions import AI_ORDER, CHOOSE_ALL, Choose, ShopBattleAction, Target
from engine.shop_battle.ai import choose_action, dominated
from engine.shop_battle.cards import card_table
from engine.shop_battle.state import ShopBattleState

__all__ = ["ITERATIONS", "HOOKS", "easy_action", "heavy_normal", "strong_action"]

#: The strong level's default iteration budget (:func:`engine.policies.iterations_for`), sized so
#: that a move takes well under 1 s on one idle core (p95; ``docs/ai.md``).
ITERATIONS = 1000

#: Rounds a playout runs past the searched one before it is evaluated.
HORIZON = 3


def _cutoff(root: ShopBattleState, state: ShopBattleState) -> bool:
    return state.round > root.round + HORIZON


def _evaluate(game: Any, state: ShopBattleState) -> tuple[float, ...]:
    held = [len(p) if state.out[s] is None else -1 for s, p in enumerate(state.piles)]
    return softmax_rewards(held, 3.0)


def _rollout(game: Any, state: ShopBattleState, seat: int, rng: random.Random) -> ShopBattleAction:
    """The playout policy: the baseline's estimate alone (:func:`~engine.shop_battle.ai.choose_action`,
    without the rounds played out by :func:`~engine.shop_battle.ai.dominated`)."""
    return choose_action(state, seat, game.legal_actions(state, seat))


HOOKS = Hooks(rollout=_rollout, cutoff=_cutoff, evaluate=_evaluate, epsilon=0.0, flat=True)


def heavy_normal(state: ShopBattleState, seat: int) -> bool:
    """Whether the normal level's move for ``seat`` may take long (:func:`engine.policies.heavy`):
    a chooser's announcement with three players or more still holding cards, whose rounds
    :func:`engine.shop_battle.ai.safe_action` plays out (tens of milliseconds at its p95; two
    players' take about a millisecond)."""
    return state.phase == "choose" and seat == state.chooser and sum(1 for pile in state.piles if pile) >= 3


def strong_action(game: Any, state: ShopBattleState, seat: int, *, hooks: Hooks, salt: int,
                  iterations: int | None, should_stop: Callable[[], bool] | None) -> ShopBattleAction:
    """The strong level (``engine.policies.choose``): the search over the legal moves, the
    dominated announcements left out (module docstring); the baseline's move when the search
    ran no iteration."""
    legal: tuple[ShopBattleAction, ...] = game.legal_actions(state, seat)
    bad = dominated(state, seat)
    moves = [a for a in legal if a not in bad] or list(legal)
    if len(moves) == 1:
        return moves[0]
    result = search(game, state, seat, hooks=hooks, salt=salt, iterations=iterations,
                    should_stop=should_stop, root_moves=moves)
    if result.iterations == 0:
        fallback: ShopBattleAction = game.ai_action(state, seat)
        return fallback
    move: ShopBattleAction = hooks.first_action(game, state, seat, result.move)
    return move


def easy_action(game: Any, state: ShopBattleState, seat: int, rng: random.Random) -> ShopBattleAction:
    """The easy level, a beginner's habits (``rng`` is not used: it plays the same way every
    time): it looks at its card alone, remembers no card seen before and always says "the
    higher wins", on the characteristic where its card stands highest among the deck's shops
    (ties: characteristic order). A Collector power's target is the first one offered."""
    if state.phase != "choose":
        assert state.pending is not None
        return Target(target=state.pending.targets[0])
    top = state.piles[seat][0]
    table = card_table(state.cards, state.rules)
    best: tuple[float, int] | None = None
    choice: Choose = CHOOSE_ALL[0]
    for rank, action in enumerate(a for a in AI_ORDER if a.hi):
        vals = [v for v in (table.values[action.char][c] for c in table.shops) if v is not None]
        mine = table.values[action.char][top]
        assert mine is not None
        standing = sum(1 for v in vals if v < mine) / len(vals)
        if best is None or (standing, -rank) > best:
            best, choice = (standing, -rank), action
    return choice
