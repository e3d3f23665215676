"""AI-only games straight through the engine, for balance checks and benchmarks.

``python -m bot simulate GAME --games N --players P --seed S`` prints a summary that depends only
on its arguments (same seed, same summary); the speed (games per second) is printed apart, on
standard error, because it depends on the machine.
"""

from __future__ import annotations

import random
import statistics
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from engine.core import Game

#: Bound on steps of one simulated game (a safety net against a game that never ends).
MAX_STEPS = 200_000


class SimulationError(RuntimeError):
    """A simulated game broke the contract (did not end, or the AI chose an illegal action)."""


@dataclass
class Summary:
    """Aggregated results of AI-only games.

    Attributes:
        wins: per seat, games won (a shared first place counts for every winner).
        rounds: per game, ``game.progress(final_state)``.
        steps: per game, the number of applied steps.
        stats: summed game-specific counters (``game.stats``).
        seconds: wall time (not part of the reproducible summary).
    """

    game: str
    players: int
    games: int
    wins: list[int]
    rounds: list[int]
    steps: list[int]
    stats: Counter = field(default_factory=Counter)
    seconds: float = 0.0

    def lines(self) -> list[str]:
        """The reproducible summary, one line each."""
        out = [f"{self.game}: {self.games} games, {self.players} players (AI only)"]
        for seat, w in enumerate(self.wins):
            out.append(f"  seat {seat}: won {w} ({100 * w / self.games:.1f}%)")
        if sum(self.wins) > self.games:
            out.append(f"  (shared first places count as a win for each tied seat: {sum(self.wins) - self.games} extra)")
        out.append(f"  rounds: average {statistics.mean(self.rounds):.2f}, median {statistics.median(self.rounds):g},"
                   f" min {min(self.rounds)}, max {max(self.rounds)}")
        out.append(f"  steps per game: average {statistics.mean(self.steps):.1f}")
        for key, value in sorted(self.stats.items()):
            out.append(f"  {key}: {value:g}")
        return out

    def speed(self) -> str:
        """Games per second (varies with the machine)."""
        rate = self.games / self.seconds if self.seconds > 0 else float("inf")
        return f"{rate:.1f} games/s ({self.seconds:.2f} s)"


def game_seeds(seed: int, games: int) -> list[int]:
    """The seed of each simulated game, derived from ``seed``."""
    rng = random.Random(seed)
    return [rng.getrandbits(62) for _ in range(games)]


def play_ai_game(game: Game, players: int, seed: int, options: dict[str, Any] | None = None) -> tuple[Any, int]:
    """Play one AI-only game; returns ``(final_state, steps)``. Raises :class:`SimulationError`."""
    state = game.setup(seed, players, options or {})
    for steps in range(MAX_STEPS):
        to_act = game.to_act(state)
        if not to_act:
            return state, steps
        actions = {s: game.ai_action(state, s) for s in sorted(to_act)}
        state = game.apply(state, actions).state
    raise SimulationError(f"{game.key}: a game did not end within {MAX_STEPS} steps (seed {seed})")


def simulate(game: Game, games: int, players: int, seed: int, options: dict[str, Any] | None = None) -> Summary:
    """Play ``games`` AI-only games and aggregate them. Raises ``ValueError`` on bad arguments."""
    if games < 1:
        raise ValueError("--games must be at least 1")
    if not game.min_players <= players <= game.max_players:
        raise ValueError(f"{game.key} is for {game.min_players} to {game.max_players} players")
    summary = Summary(game.key, players, games, [0] * players, [], [])
    started = time.perf_counter()
    for s in game_seeds(seed, games):
        state, steps = play_ai_game(game, players, s, options)
        outcome = game.outcome(state)
        assert outcome is not None
        for seat in outcome.winners:
            summary.wins[seat] += 1
        summary.rounds.append(game.progress(state))
        summary.steps.append(steps)
        summary.stats.update(game.stats(state))
    summary.seconds = time.perf_counter() - started
    return summary
