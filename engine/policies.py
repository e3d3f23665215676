"""The AI levels offered to users (``easy``, ``normal``, ``strong``) behind one function,
:func:`choose`, plus ``random`` for benchmarks.

- ``normal``: the game's baseline AI, ``game.ai_action(state, seat)``.
- ``easy``: a beginner's plain habits (per game in ``engine/<game>/search.py``:
  ``easy_action``, every game has one); a game without one would play the baseline with a
  random legal action a quarter of the time.
- ``strong``: the determinized Monte-Carlo search of :mod:`engine.search` with the game's
  hooks (``engine/<game>/search.py``: ``HOOKS`` and optionally ``strong_action``), run for
  ``iterations`` or until ``should_stop()`` (the engine never reads a clock: the bot passes a
  callback built from its clock).

Above easy, no level plays a move that loses in every state the seat cannot tell from the true
one while another move can still win (the game's rule in its hooks: ``Hooks.prune``, and the
baseline's own check); ``tests/blunders/`` is the independent judge.
- ``random``: a uniformly random legal action (benchmarks only).

Every level is deterministic for the same ``(state, seat, level, salt, iterations)`` when
``should_stop`` is ``None``, and only uses what ``seat`` may know (the search samples hidden
cards with ``game.hidden_variant``). Every returned action is in ``game.legal_actions(state, seat)``.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from engine.core import Game
from engine.search import Hooks, search

__all__ = ["DEFAULT_ITERATIONS", "heavy", "LEVELS", "TURN_SHARE", "choose", "decision_seconds", "hooks_for",
           "iterations_for"]

#: The levels a host may pick for an AI seat, weakest first.
LEVELS: tuple[str, ...] = ("easy", "normal", "strong")
#: Iterations of the strong search when neither ``iterations`` nor ``should_stop`` is given and
#: the game's search module declares no ``ITERATIONS``.
DEFAULT_ITERATIONS = 200

#: Share of what is left of a turn's thinking time that one strong decision may use; the rest
#: stays for the decisions the turn may still ask (a Gang of Dice reroll after its commit, a
#: Three-Player Moon bidder's trumps after its discard).
TURN_SHARE = 0.5

AnyGame = Game[Any, Any, Any]


def decision_seconds(left: float) -> float:
    """Seconds one decision of a turn may think when ``left`` seconds of the turn's thinking
    time remain: :data:`TURN_SHARE` of them (0 when none remain). A turn is a seat's
    consecutive decisions; its decisions together never think longer than the turn's time."""
    return max(0.0, left) * TURN_SHARE


def _module(game: AnyGame) -> Any:
    """``engine.<game module>.search`` or ``None``."""
    import importlib

    pkg = type(game).__module__.rsplit(".", 1)[0]
    try:
        return importlib.import_module(f"{pkg}.search")
    except ModuleNotFoundError:
        return None


def hooks_for(game: AnyGame) -> Hooks:
    """The search hooks of ``game`` (``engine/<game>/search.py``: ``HOOKS``), else the defaults."""
    mod = _module(game)
    hooks = getattr(mod, "HOOKS", None) if mod is not None else None
    return hooks if isinstance(hooks, Hooks) else Hooks()


def heavy(game: AnyGame, state: Any, seat: int, level: str) -> bool:
    """Whether the move of an AI of ``level`` for ``seat`` may take long (tens of milliseconds
    and more), so that a host computes it away from its event loop: a strong search always; a
    normal move when the game's search module says so for this state (``heavy_normal(state,
    seat)``: Three-Player Moon's bidder checking which moves keep its bid); never an easy or
    random one."""
    if level == "strong":
        return True
    if level != "normal":
        return False
    mod = _module(game)
    check = getattr(mod, "heavy_normal", None) if mod is not None else None
    return bool(check(state, seat)) if check is not None else False


def iterations_for(game: AnyGame) -> int:
    """The strong level's default iteration budget for ``game``: its search module's
    ``ITERATIONS`` (``engine/<game>/search.py``), else :data:`DEFAULT_ITERATIONS`."""
    mod = _module(game)
    budget = getattr(mod, "ITERATIONS", None) if mod is not None else None
    return budget if isinstance(budget, int) else DEFAULT_ITERATIONS


def _rng(state: Any, seat: int, salt: int, level: str) -> random.Random:
    """A private generator from public facts only (version, seat, salt), not from hidden cards."""
    return random.Random(f"{level}:{salt}:{state.version}:{seat}")


def _easy(game: AnyGame, state: Any, seat: int, salt: int) -> Any:
    mod = _module(game)
    rng = _rng(state, seat, salt, "easy")
    easy = getattr(mod, "easy_action", None) if mod is not None else None
    if easy is not None:
        return easy(game, state, seat, rng)
    legal = game.legal_actions(state, seat)
    if len(legal) > 1 and rng.random() < 0.25:
        return rng.choice(legal)
    return game.ai_action(state, seat)


def _strong(game: AnyGame, state: Any, seat: int, salt: int, iterations: int | None,
            should_stop: Callable[[], bool] | None) -> Any:
    if iterations is None and should_stop is None:
        iterations = iterations_for(game)
    mod = _module(game)
    custom = getattr(mod, "strong_action", None) if mod is not None else None
    hooks = hooks_for(game)
    if custom is not None:
        return custom(game, state, seat, hooks=hooks, salt=salt, iterations=iterations, should_stop=should_stop)
    legal = game.legal_actions(state, seat)
    if len(legal) == 1:
        return legal[0]
    result = search(game, state, seat, hooks=hooks, salt=salt, iterations=iterations, should_stop=should_stop)
    if result.iterations == 0:
        return game.ai_action(state, seat)
    return hooks.first_action(game, state, seat, result.move)


def choose(game: AnyGame, state: Any, seat: int, level: str, *, salt: int = 0,
           iterations: int | None = None, should_stop: Callable[[], bool] | None = None) -> Any:
    """The action of an AI of ``level`` (one of :data:`LEVELS` or ``"random"``) for ``seat``,
    which must be in ``game.to_act(state)``.

    ``iterations`` / ``should_stop`` budget the ``strong`` search (default
    :func:`iterations_for`); the other levels ignore them. Deterministic for the same state,
    seat, level, salt and iterations when ``should_stop`` is ``None``. Raises ``ValueError`` on
    an unknown level or when ``seat`` has no legal action.
    """
    if level not in LEVELS and level != "random":
        raise ValueError(f"unknown AI level {level!r}")
    legal = game.legal_actions(state, seat)
    if not legal:
        raise ValueError(f"seat {seat} has no legal action now")
    if level == "normal":
        return game.ai_action(state, seat)
    if level == "random":
        return _rng(state, seat, salt, "random").choice(legal)
    if level == "easy":
        return _easy(game, state, seat, salt)
    return _strong(game, state, seat, salt, iterations, should_stop)
