"""Losing-move checkers: the independent judge of the AI levels' play, used by the tests (a few
positions and games) and by ``python -m bench.blunders`` (thousands of games).

A *losing move* of ``seat`` in ``state`` is a legal move that loses (the round, the bid, the
game, as the game's checker says) in every state ``seat`` cannot tell apart from the true one
(every determinization consistent with its view), while another legal move of the same
decision wins in some of them. No AI level above easy should ever play one.

Each game has a checker module ``tests/blunders/<engine package>.py`` (``gang_of_dice``,
``three_player_moon``, ``shop_battle``, ``moonshine``) with:

- ``losing_moves(game, state, seat) -> frozenset`` (the :class:`Checker` signature): the losing
  legal moves of ``seat`` (to act) in ``state``, computed from the rules alone (exhaustively over
  the seat's possible worlds or by a game-specific proof), never from the AI or its search.
  Every returned move is in ``game.legal_actions(state, seat)``; an empty set means the
  decision has no losing move or lies outside what the checker judges (its docstring says
  which decisions it judges). A checker may also take ``played`` (the move the player chose,
  ``losing_moves(game, state, seat, played=act)``): it then judges that move first and, when it
  is not losing, may return an empty set without judging the others (Three-Player Moon's does).

:func:`play_and_check` plays whole games at one level and runs the checker at every decision;
``python -m bench.blunders GAME --level normal --games 1000`` reports the count
(``bench/blunders.py``).
"""

from __future__ import annotations

import importlib
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from bot.games import GAMES
from engine.policies import choose

__all__ = ["Blunder", "Checker", "GameCheck", "Undecided", "checker_for", "play_and_check"]


class Undecided(Exception):
    """Raised by a checker that could not judge a decision within its work limit."""


class Checker(Protocol):
    """``losing_moves(game, state, seat)``: the losing legal moves of ``seat`` (see the module
    docstring)."""

    def __call__(self, game: Any, state: Any, seat: int) -> frozenset[Any]: ...


def checker_for(key: str) -> Checker:
    """The checker of the game registered as ``key`` (``tests/blunders/<engine package>.py``:
    ``losing_moves``). Raises ``KeyError`` for an unknown game and ``LookupError`` for a game
    that has no checker yet."""
    game = GAMES[key].game
    package = type(game).__module__.split(".")[1]
    try:
        module = importlib.import_module(f"tests.blunders.{package}")
    except ModuleNotFoundError as exc:
        raise LookupError(f"{key} has no losing-move checker yet") from exc
    check: Checker = module.losing_moves
    return check


@dataclass(frozen=True)
class Blunder:
    """A losing move that was played: the game's ``seed``, the state ``version`` it was played
    in, the ``seat``, the ``action`` code and the other losing moves' codes."""

    seed: int
    version: int
    seat: int
    action: str
    losing: tuple[str, ...]


@dataclass
class GameCheck:
    """What :func:`play_and_check` saw in one game: ``decisions`` checked (moves with one legal
    action not counted), ``with_losing`` (decisions that had at least one losing move),
    ``undecided`` (decisions the checker could not judge within its work limit), ``blunders``
    (losing moves played) and the checker's CPU seconds."""

    decisions: int = 0
    undecided: int = 0
    with_losing: int = 0
    blunders: list[Blunder] = field(default_factory=list)
    check_seconds: float = 0.0


def play_and_check(key: str, players: int, seed: int, levels: list[str], *, iterations: int | None = None,
                   check: Checker | None = None,
                   on_decision: Callable[[Any, int, Any, frozenset[Any]], None] | None = None,
                   played_first: bool = False) -> GameCheck:
    """Play one game of ``key`` from ``seed`` with ``levels[s]`` at seat ``s``
    (``engine.policies.choose``, salt ``seed * 7 + seat`` as in ``bench.arena``; ``iterations``
    budgets the strong level) and run the checker at every decision with more than one legal
    move; ``on_decision(state, seat, action, losing)`` is called at each of them.

    ``played_first`` passes the chosen move to the checker (``played``, for a checker that
    takes it): the losing moves played stay exact, ``with_losing`` then counts only the
    decisions whose chosen move was judged with the others (a lower bound)."""
    game = GAMES[key].game
    check = check or checker_for(key)
    judge: Any = check  # with ``played``: a checker that takes it
    state = game.setup(seed, players, {})
    result = GameCheck()
    while to_act := game.to_act(state):
        acts = {}
        for s in sorted(to_act):
            act = choose(game, state, s, levels[s], salt=seed * 7 + s, iterations=iterations)
            acts[s] = act
            legal = game.legal_actions(state, s)
            if len(legal) < 2:
                continue
            t0 = time.process_time()
            try:
                losing = judge(game, state, s, played=act) if played_first else check(game, state, s)
            except Undecided:
                losing = frozenset()
                result.undecided += 1
            result.check_seconds += time.process_time() - t0
            result.decisions += 1
            if losing:
                result.with_losing += 1
                if act in losing:
                    result.blunders.append(Blunder(seed, state.version, s, game.encode(act),
                                                   tuple(sorted(game.encode(a) for a in losing))))
            if on_decision is not None:
                on_decision(state, s, act, losing)
        state = game.apply(state, acts).state
    return result
