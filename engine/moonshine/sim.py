"""Balance check helper: AI-only Moonshine games and their figures (pure, deterministic).

``simulate(games=200, players=4, variant="standard", seed=0)`` plays ``games`` games between
baseline AIs (seeds ``seed .. seed + games - 1``) and returns a :class:`SimReport`: median and
quartile rounds, win share by seat and by turn position (0 = first player; shared wins split),
validations per card, how games ended. Used to tune the card sets (see ``docs/balance.md``); the
figures there come from
``python -c "from engine.moonshine.sim import simulate; print(simulate(1000, 4).summary())"``.
"""

from __future__ import annotations

import statistics
from collections import Counter
from dataclasses import dataclass, field

from engine.moonshine.cards import CLIENTS_PER_SET, set_index
from engine.moonshine.rules import Moonshine
from engine.moonshine.scoring import MAX_ROUNDS
from engine.moonshine.state import MoonshineState

__all__ = ["SimReport", "play_ai_game", "simulate"]


@dataclass
class SimReport:
    """Figures of a batch of AI games (see :func:`simulate`)."""

    games: int
    players: int
    variant: str
    rounds: list[int] = field(default_factory=list)
    steps: int = 0
    wins_by_seat: list[float] = field(default_factory=list)
    wins_by_position: list[float] = field(default_factory=list)
    validations: Counter[int] = field(default_factory=Counter)
    capped: int = 0
    winning_points: list[int] = field(default_factory=list)

    @property
    def median_rounds(self) -> float:
        """Median game length in rounds."""
        return statistics.median(self.rounds)

    def quartiles(self) -> tuple[float, float]:
        """First and third quartiles of the game length (rounds)."""
        q = statistics.quantiles(self.rounds, n=4)
        return q[0], q[2]

    def share(self, wins: list[float]) -> list[float]:
        """Wins as fractions of the games played."""
        return [w / self.games for w in wins]

    def summary(self) -> str:
        """A few lines for docs/balance.md: length, win shares, cards never validated."""
        q1, q3 = self.quartiles()
        seat = ", ".join(f"{x:.1%}" for x in self.share(self.wins_by_seat))
        pos = ", ".join(f"{x:.1%}" for x in self.share(self.wins_by_position))
        base = CLIENTS_PER_SET * set_index(Moonshine.rules_version)
        ids = range(base, base + CLIENTS_PER_SET)
        never = [c for c in ids if not self.validations[c]]
        return (
            f"{self.games} games, {self.players} players, {self.variant}: median {self.median_rounds} rounds "
            f"(quartiles {q1}-{q3}, min {min(self.rounds)}, max {max(self.rounds)}), capped {self.capped}\n"
            f"win share by seat: {seat}\nwin share by position: {pos}\n"
            f"winner's points: median {statistics.median(self.winning_points)}\n"
            f"validations per card: min {min(self.validations[c] for c in ids)}, "
            f"max {max(self.validations.values())}, never validated: {never}\n"
            f"steps: {self.steps}"
        )


def play_ai_game(seed: int, players: int, variant: str = "standard") -> tuple[MoonshineState, int]:
    """Play one AI-only game; returns ``(final_state, steps)``."""
    game = Moonshine()
    state = game.setup(seed, players, {"variant": variant})
    steps = 0
    while True:
        acting = game.to_act(state)
        if not acting:
            return state, steps
        state = game.apply(state, {s: game.ai_action(state, s) for s in acting}).state
        steps += 1


def simulate(games: int = 200, players: int = 4, variant: str = "standard", seed: int = 0) -> SimReport:
    """Play ``games`` AI-only games and collect the figures (see the module docstring)."""
    game = Moonshine()
    rep = SimReport(games, players, variant, wins_by_seat=[0.0] * players, wins_by_position=[0.0] * players)
    for g in range(seed, seed + games):
        state, steps = play_ai_game(g, players, variant)
        rep.steps += steps
        rep.rounds.append(state.round)
        out = game.outcome(state)
        assert out is not None
        winners = out.winners
        for w in winners:
            rep.wins_by_seat[w] += 1 / len(winners)
            rep.wins_by_position[(w - state.first) % players] += 1 / len(winners)
        rep.winning_points.append(max(out.scores))
        if state.round >= MAX_ROUNDS and max(out.scores) < state.target:
            rep.capped += 1
        for s in state.seats:
            rep.validations.update(s.validated)
    return rep
