"""Gang of Dice hooks of the strong search (:mod:`engine.search`) and the easy level (a beginner:
:func:`easy_action`).

Macro-moves (the engine's rerolls are die-by-die micro-actions, ``docs/rules/gang-of-dice.md``):
in the roll phase a move is a whole plan, ``STOP`` or the marks per face of one reroll (a
6-tuple of counts); in the commit phase a move is a :class:`Commit`. A plan is mapped back to its
first micro-action (unmarks, then marks, then the reroll). To stay consistent over the
micro-actions of one reroll, the search always runs on the *canonical* state of the turn (marks
cleared, the version of the first mark), so a fixed budget finds the same plan at every call;
with a time budget the plan found for the turn position is kept for its next micro-actions (a
process-local memo), and a plan that does not contain the marks already made (another worker
searched) is replaced by a search among the plans that contain them (marks only grow: the
reroll always comes).

Playouts: the baseline AI (:mod:`engine.gang_of_dice.ai`) to the end of the round (the pot is
then paid, RULINGS G5-G7), evaluated by the stocks (a softmax: a win-chance estimate).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from functools import lru_cache
from typing import Any

from engine.gang_of_dice import ai
from engine.gang_of_dice.actions import REROLL, STOP, Commit, GangOfDiceAction
from engine.gang_of_dice.cards import counts
from engine.gang_of_dice.state import MAX_ROLLS, NO_MARKS, GangOfDiceState
from engine.search import Hooks, search, softmax_rewards

__all__ = ["ITERATIONS", "EASY_COMMIT", "HOOKS", "easy_action", "macro_moves", "prune", "strong_action"]

#: The strong level's default iteration budget (:func:`engine.policies.iterations_for`), sized so
#: that a move takes well under 1 s on one idle core (p95; ``docs/ai.md``).
ITERATIONS = 240

#: The "stop" macro-move of the roll phase.
STOP_MOVE = "stop"
#: Most dice a searched commit considers (beyond the baseline's own count).
MAX_COMMIT = 12


def _plan_of(state: GangOfDiceState, seat: int) -> tuple[int, ...] | str:
    plan = ai.ai_plan(state.card.id, counts(state.faces[seat]), MAX_ROLLS - state.rolls[seat],
                      *ai._context(state, seat))
    return STOP_MOVE if plan is None else plan


def macro_moves(game: Any, state: GangOfDiceState, seat: int, at_least: Sequence[int] = NO_MARKS
                ) -> list[Any]:
    """The moves of ``seat`` (to act): commits ``1..min(stock, MAX_COMMIT)`` plus the
    baseline's count, or ``STOP_MOVE`` and the reroll plans (marks per face) of the baseline's
    candidates that contain ``at_least``; the baseline's choice first."""
    if state.phase == "commit":
        stock = state.stocks[seat]
        count = ai.ai_commit(state, seat)
        return [Commit(count)] + [Commit(n) for n in range(1, min(stock, MAX_COMMIT) + 1) if n != count]
    c = counts(state.faces[seat])
    moves: list[Any] = []
    base = _plan_of(state, seat)
    if isinstance(base, str) or all(m >= a for m, a in zip(base, at_least, strict=True)):
        moves.append(base)
    if STOP_MOVE not in moves:
        moves.append(STOP_MOVE)
    if state.rolls[seat] < MAX_ROLLS:
        for plan in sorted(ai._candidates(state.card, c)):
            if plan != base and all(m >= a for m, a in zip(plan, at_least, strict=True)):
                moves.append(plan)
    return moves


def prune(game: Any, state: GangOfDiceState, seat: int, moves: Sequence[Any]) -> list[Any]:
    """``moves`` without the stop or reroll plans that surely lose the round while another
    choice of the turn can still win it (:func:`engine.gang_of_dice.ai.plan_loses`: a stop on a
    roll that triggers the card or is already beaten, a last reroll that cannot reach a safe
    winning roll); commits are kept."""
    if state.phase != "roll":
        return list(moves)
    c = counts(state.faces[seat])
    left = MAX_ROLLS - state.rolls[seat]
    need = ai._context(state, seat)[0]
    card = state.card.id
    return [m for m in moves
            if isinstance(m, Commit) or not ai.plan_loses(card, c, left, need, None if m == STOP_MOVE else m)]


def _advance(game: Any, state: GangOfDiceState, moves: Mapping[int, Any]) -> GangOfDiceState:
    ((seat, move),) = moves.items()
    if move == STOP_MOVE:
        return game.apply(state, {seat: STOP}).state  # type: ignore[no-any-return]
    if isinstance(move, tuple):
        state = replace(state, marks=move)
        return game.apply(state, {seat: REROLL}).state  # type: ignore[no-any-return]
    return game.apply(state, {seat: move}).state  # type: ignore[no-any-return]


def first_action(game: Any, state: GangOfDiceState, seat: int, move: Any) -> GangOfDiceAction:
    """The micro-action that starts ``move`` in ``state`` (unmark, mark, reroll or stop)."""
    if move == STOP_MOVE:
        return STOP
    if isinstance(move, Commit):
        return move
    return ai.toward(state, move)


def _cutoff(root: GangOfDiceState, state: GangOfDiceState) -> bool:
    return state.round != root.round


def _evaluate(game: Any, state: GangOfDiceState) -> tuple[float, ...]:
    live = [st if state.status[s] != "out" else st - 5 for s, st in enumerate(state.stocks)]
    return softmax_rewards(live, 8.0)


def _rollout(game: Any, state: GangOfDiceState, seat: int, rng: random.Random) -> GangOfDiceAction:
    return ai.choose(state, seat)


HOOKS = Hooks(moves=macro_moves, advance=_advance, first_action=first_action, rollout=_rollout,
              cutoff=_cutoff, evaluate=_evaluate, prune=prune, flat=True)


def canonical(state: GangOfDiceState) -> GangOfDiceState:
    """The state at the start of the current marking (marks cleared, version before them)."""
    if state.phase != "roll" or not any(state.marks):
        return state
    return replace(state, marks=NO_MARKS, version=state.version - sum(state.marks))


#: Plans found with a time budget, by (canonical state, seat, salt): the micro-actions of one
#: reroll reuse the plan instead of searching again (oldest entries dropped first).
_PLANS: dict[tuple[GangOfDiceState, int, int], Any] = {}


@lru_cache(maxsize=256)
def _cached(game: Any, state: GangOfDiceState, seat: int, salt: int, iterations: int,
            at_least: tuple[int, ...]) -> Any:
    return _search(game, state, seat, salt, iterations, None, at_least)


def _search(game: Any, state: GangOfDiceState, seat: int, salt: int, iterations: int | None,
            should_stop: Callable[[], bool] | None, at_least: tuple[int, ...]) -> Any:
    every = macro_moves(game, state, seat, at_least)
    moves = prune(game, state, seat, every)
    if not moves:  # each plan that keeps the marks made loses: reroll every die (it keeps them all)
        c = counts(state.faces[seat])
        moves = prune(game, state, seat, [c]) or every
    if len(moves) == 1:
        return moves[0]
    result = search(game, state, seat, hooks=HOOKS, salt=salt, iterations=iterations,
                    should_stop=should_stop, root_moves=moves)
    return moves[0] if result.iterations == 0 else result.move


def strong_action(game: Any, state: GangOfDiceState, seat: int, *, hooks: Hooks, salt: int,
                  iterations: int | None, should_stop: Callable[[], bool] | None) -> GangOfDiceAction:
    """The strong level's micro-action: the searched macro-move's first micro-action."""
    base = canonical(state)
    if should_stop is None and iterations is not None:
        move = _cached(game, base, seat, salt, iterations, NO_MARKS)
    else:  # a time budget: search once per turn position, reuse the plan for its micro-actions
        key = (base, seat, salt)
        move = _PLANS.get(key)
        if move is None:
            move = _search(game, base, seat, salt, iterations, should_stop, NO_MARKS)
    if isinstance(move, tuple) and any(m < a for m, a in zip(move, state.marks, strict=True)):
        move = _search(game, base, seat, salt, iterations, should_stop, tuple(state.marks))
    if should_stop is not None or iterations is None:
        _PLANS[(base, seat, salt)] = move
        while len(_PLANS) > 256:
            _PLANS.pop(next(iter(_PLANS)))
    return first_action(game, state, seat, move)


#: Dice the easy level commits each round (its stock if it has fewer).
EASY_COMMIT = 3


def easy_action(game: Any, state: GangOfDiceState, seat: int, rng: random.Random) -> GangOfDiceAction:
    """The easy level, a beginner's habits (``rng`` is not used: it plays the same way every
    time): it commits :data:`EASY_COMMIT` dice whatever the card and the table, stops on the
    first roll that does not trigger the card, and when a black card is triggered with rolls
    left it rerolls every die (marks them one by one, then the reroll; RULINGS G3)."""
    if state.phase == "commit":
        return Commit(max(1, min(EASY_COMMIT, state.stocks[seat])))
    c = counts(state.faces[seat])
    if state.rolls[seat] >= MAX_ROLLS or not state.card.rule.hit(c):
        return STOP
    return ai.toward(state, c)
