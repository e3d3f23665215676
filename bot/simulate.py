"""AI-only games straight through the engine, for balance checks and benchmarks.

``python -m bot simulate GAME --games N --players P --seed S [--ai LEVEL[,LEVEL...]]`` prints a
summary that depends only on its arguments (same seed, same summary); the speed (games per
second) is printed apart, on standard error, because it depends on the machine.

The summary gives the win share **by turn position** (``position K``: K = 0 is the player who
starts the game, ``Game.turn_order``; who starts is drawn at random, so per-seat figures would
hide a first-player advantage), by seat label (Moonshine: ``speakeasy NAME``, the share of the
games in which that Speakeasy side was dealt that its holder won, ``Game.seat_labels``), by AI
level when levels differ, and by seat, each as ``won N (P%) ±CI [LO-HI%]``: ``[LO-HI%]`` is the
95% Wilson score interval of the share (:func:`wilson`) and ``±CI`` its half-width in percentage
points. A shared first place counts ``1/k`` of a win for each of the ``k`` tied winners, in every
line, so shares add up to 100% and the fair share of a position or a seat is ``100 / players`` %.
A legend line under the title says so, for readers without the docs. Figures and the commands that
produced them: ``docs/balance.md``.
"""

from __future__ import annotations

import math
import random
import re
import statistics
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from bot.arguments import named
from bot.games import GAMES
from engine.core import Game
from engine.policies import LEVELS, choose

#: Bound on steps of one simulated game (a safety net against a game that never ends).
MAX_STEPS = 200_000

#: Levels ``--ai`` accepts: ``engine.policies.LEVELS`` plus ``random`` (benchmarks).
BASE_LEVELS: tuple[str, ...] = (*LEVELS, "random")

Policy = Callable[[Game, Any, int, str, int], Any]


class SimulationError(RuntimeError):
    """A simulated game broke the contract (did not end, or the AI chose an illegal action)."""


def policy(iterations: int | None = None) -> Policy:
    """The level policy: :func:`engine.policies.choose` (the shared AI-level contract) with the
    strong search's ``iterations`` budget (``None`` = :func:`engine.policies.iterations_for`)."""

    def run(game: Game, state: Any, seat: int, level: str, salt: int) -> Any:
        return choose(game, state, seat, level, salt=salt, iterations=iterations)

    return run


def parse_levels(text: str, players: int) -> tuple[str, ...]:
    """``--ai`` value: one level for every seat, or one per seat (comma-separated). Raises
    ``ValueError`` on an unknown level or a wrong count."""
    levels = tuple(x.strip().lower() for x in text.split(",") if x.strip())
    if not levels:
        raise ValueError("--ai needs a level: easy, normal, strong or random")
    for lv in levels:
        if lv not in BASE_LEVELS:
            raise ValueError(f"unknown AI level {lv!r} (easy, normal, strong, random)")
    if len(levels) == 1:
        return levels * players
    if len(levels) != players:
        raise ValueError(f"--ai gives {len(levels)} levels for {players} players (give 1 or {players})")
    return levels


def wilson(score: float, n: int, z: float = 1.959964) -> tuple[float, float]:
    """95% Wilson score interval of a proportion ``score`` (0..1) observed over ``n`` games:
    ``(c - h, c + h) / (1 + z²/n)`` with ``c = p + z²/2n`` and ``h = z·sqrt(p(1-p)/n + z²/4n²)``
    (Wilson 1927); a split tie counts as half a success. Sound for small ``n`` and for shares
    near 0 or 1 (where the normal approximation gives ±0 or bounds outside 0..1).

    >>> [round(x, 3) for x in wilson(0.5, 100)]
    [0.404, 0.596]
    """
    if n <= 0:
        return 0.0, 1.0
    d = 1 + z * z / n
    c = score + z * z / (2 * n)
    h = z * math.sqrt(score * (1 - score) / n + z * z / (4 * n * n))
    return max(0.0, (c - h) / d), min(1.0, (c + h) / d)


def ci95(wins: float, n: int) -> float:
    """Half-width of the 95% Wilson interval of ``wins / n`` (:func:`wilson`), in percentage
    points (the interval itself is printed beside it: it is not centred on the share)."""
    if n <= 0:
        return 0.0
    lo, hi = _interval(wins, n)
    return 100 * (hi - lo) / 2


def _interval(wins: float, n: int) -> tuple[float, float]:
    """:func:`wilson` of the share ``wins / n`` (clamped to 0..1); ``(0, 1)`` when ``n <= 0``."""
    return wilson(min(max(wins / n, 0.0), 1.0), n) if n > 0 else (0.0, 1.0)


#: Lines under the title of :meth:`Summary.lines` that say how to read the share lines.
LEGEND: tuple[str, ...] = (
    "  how to read 'won N (P%) ±CI [LO-HI%]': N games won (a first place shared by k players counts 1/k for",
    "  each, so N may be fractional), P = N / games, [LO-HI%] = the 95% confidence interval of P (Wilson)",
    "  and ±CI its half-width in points; a share is plausibly fair when the interval holds the fair share",
)


def _natural(key: str) -> tuple[Any, ...]:
    """Sort key reading runs of digits as numbers (``card 70`` before ``card 101``)."""
    return tuple(int(part) if part.isdigit() else part for part in re.split(r"([0-9]+)", key))


def share_line(label: str, wins: float, n: int) -> str:
    """``label: won N (P%) ±CI [LO-HI%]`` (``N`` may be fractional: shared wins count ``1/k``;
    ``±CI`` is the half-width of the 95% Wilson interval ``[LO-HI%]``)."""
    pct = 100 * wins / n if n else 0.0
    lo, hi = _interval(wins, n)
    half = 100 * (hi - lo) / 2 if n > 0 else 0.0
    return f"  {label}: won {wins:.4g} ({pct:.1f}%) ±{half:.1f} [{100 * lo:.1f}-{100 * hi:.1f}%]"


@dataclass
class Summary:
    """Aggregated results of AI-only games.

    Attributes:
        wins: per seat, games won (a shared first place counts ``1/k`` for each of the ``k`` winners).
        positions: per turn position (0 = the starter), wins with shared places split.
        labels: per ``(kind, name)`` seat label, ``[wins (split), games where dealt]``.
        levels: per seat, its AI level.
        rounds: per game, ``game.progress(final_state)`` (rounds, or the game's
            ``progress_unit``: Three-Player Moon counts hands).
        unit: what ``rounds`` counts, plural (``Game.progress_unit``).
        steps: per game, the number of applied steps.
        stats: summed game-specific counters (``game.stats``).
        seconds: wall time (not part of the reproducible summary).
    """

    game: str
    players: int
    games: int
    wins: list[float]
    rounds: list[int]
    steps: list[int]
    positions: list[float] = field(default_factory=list)
    labels: dict[tuple[str, str], list[float]] = field(default_factory=dict)
    levels: tuple[str, ...] = ()
    iterations: int | None = None
    unit: str = "rounds"
    level_wins: dict[str, float] = field(default_factory=dict)
    stats: Counter = field(default_factory=Counter)
    seconds: float = 0.0

    def lines(self) -> list[str]:
        """The reproducible summary, one line each: a title, a legend of the share lines, then the
        win shares by position, seat label, AI level (when levels differ) and seat (all with
        shared wins split, :func:`share_line`), the game lengths and the game's own counters."""
        ai = ",".join(self.levels) if len(set(self.levels)) > 1 else (self.levels[0] if self.levels else "normal")
        if "strong" in self.levels and self.iterations is not None:
            ai += f", strong search {self.iterations} iterations per move"
        fair = f"fair {100 / self.players:.1f}%"
        title = named(self.game) if self.game in GAMES else self.game
        out = [f"{title}: {self.games} games, {self.players} players (AI only: {ai})", *LEGEND]
        out.append(f"  win share by turn position (position 0 = the player who starts; {fair}):")
        for pos, won in enumerate(self.positions):
            out.append(share_line(f"position {pos}", won, self.games))
        kinds = sorted({kind for kind, _name in self.labels})
        for kind in kinds:
            out.append(f"  win share by {kind} dealt (of the games in which it was dealt; {fair}):")
            for (k, name), (won, dealt) in sorted(self.labels.items()):
                if k == kind:
                    out.append(share_line(f"{kind} {name}", won, int(dealt)) + f" of {int(dealt)} dealt")
        if len(set(self.levels)) > 1:
            out.append(f"  win share by AI level (per seat and game; {fair}):")
            for lv in sorted(set(self.levels)):
                seats = sum(1 for x in self.levels if x == lv)
                out.append(share_line(f"level {lv} ({seats} seat{'' if seats == 1 else 's'})",
                                      self.level_wins.get(lv, 0.0), self.games * seats))
        out.append(f"  win share by seat (seat 0 = the first seat at the table, not the starter; {fair}):")
        for seat, w in enumerate(self.wins):
            out.append(share_line(f"seat {seat}", w, self.games))
        out.append(f"  {self.unit} per game: average {statistics.mean(self.rounds):.2f}, median {statistics.median(self.rounds):g},"
                   f" min {min(self.rounds)}, max {max(self.rounds)}")
        out.append(f"  steps per game (one step = one decision applied): average {statistics.mean(self.steps):.1f}")
        if self.stats:
            out.append(f"  counters of the game, summed over the {self.games} games:")
            for key, value in sorted(self.stats.items(), key=lambda kv: _natural(kv[0])):
                out.append(f"    {key}: {value:g}")
        return out

    def speed(self) -> str:
        """Games per second (varies with the machine)."""
        rate = self.games / self.seconds if self.seconds > 0 else float("inf")
        return f"{rate:.1f} games/s ({self.seconds:.2f} s)"


def game_seeds(seed: int, games: int) -> list[int]:
    """The seed of each simulated game, derived from ``seed``."""
    rng = random.Random(seed)
    return [rng.getrandbits(62) for _ in range(games)]


def play_ai_game(game: Game, players: int, seed: int, options: dict[str, Any] | None = None,
                 levels: Sequence[str] | None = None, iterations: int | None = None) -> tuple[Any, int]:
    """Play one AI-only game (``levels[seat]``, default all ``normal``; ``iterations``: the
    strong search's budget per move); returns ``(final_state, steps)``. Raises
    :class:`SimulationError`."""
    state, steps, _first = _play(game, players, seed, options, levels, policy(iterations))
    return state, steps


def _play(game: Game, players: int, seed: int, options: dict[str, Any] | None,
          levels: Sequence[str] | None, pick: Policy) -> tuple[Any, int, Any]:
    state = game.setup(seed, players, options or {})
    first = state
    lv = tuple(levels) if levels else ("normal",) * players
    plain = all(x == "normal" for x in lv)
    for steps in range(MAX_STEPS):
        to_act = game.to_act(state)
        if not to_act:
            return state, steps, first
        if plain:
            actions = {s: game.ai_action(state, s) for s in sorted(to_act)}
        else:
            actions = {s: pick(game, state, s, lv[s], seed & 0xFFFF) for s in sorted(to_act)}
        state = game.apply(state, actions).state
    raise SimulationError(f"{game.key}: a game did not end within {MAX_STEPS} steps (seed {seed})")


def simulate(game: Game, games: int, players: int, seed: int, options: dict[str, Any] | None = None,
             levels: Sequence[str] | None = None, iterations: int | None = None) -> Summary:
    """Play ``games`` AI-only games and aggregate them (``levels``: one AI level per seat,
    default all ``normal``, through :func:`engine.policies.choose`; ``iterations``: the strong
    search's budget per move, default the game's). Raises ``ValueError`` on bad arguments."""
    if games < 1:
        raise ValueError("--games must be at least 1")
    if not game.min_players <= players <= game.max_players:
        raise ValueError(f"{game.key} is for {game.min_players} to {game.max_players} players")
    lv = tuple(levels) if levels else ("normal",) * players
    if len(lv) != players:
        raise ValueError(f"{len(lv)} AI levels for {players} players")
    chooser = policy(iterations)
    summary = Summary(game.key, players, games, [0.0] * players, [], [], positions=[0.0] * players, levels=lv,
                      iterations=iterations, unit=game.progress_unit)
    started = time.perf_counter()
    for s in game_seeds(seed, games):
        state, steps, first = _play(game, players, s, options, lv, chooser)
        outcome = game.outcome(state)
        assert outcome is not None
        winners = outcome.winners
        credit = 1 / len(winners)
        order = game.turn_order(first)
        labels = game.seat_labels(first)
        for seat in winners:
            summary.wins[seat] += credit
            summary.positions[order.index(seat)] += credit
            summary.level_wins[lv[seat]] = summary.level_wins.get(lv[seat], 0.0) + credit
        for kind, names in labels.items():
            for seat, name in enumerate(names):
                cell = summary.labels.setdefault((kind, name), [0.0, 0.0])
                cell[1] += 1
                if seat in winners:
                    cell[0] += credit
        summary.rounds.append(game.progress(state))
        summary.steps.append(steps)
        summary.stats.update(game.stats(state))
    summary.seconds = time.perf_counter() - started
    return summary
