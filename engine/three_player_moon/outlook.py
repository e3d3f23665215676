"""The win chance of a Three-Player Moon game from the scores (the strong AI's evaluation).

:func:`win_chance` estimates, for a game between hands (``scores`` and the seat that bids
first in the next hand), each seat's chance of winning the game (T7: first to 21 alone; T6: a
made moon wins at once). It plays the rest of the game many times with hand results drawn from
how hands between normal AIs end (``data/hand_outcomes.json``, written by ``python -m
bench.moon_hands``: the points of the first, second and third bidder of a hand and who made a
moon). Every estimate uses the same fixed sample of future hands (common random numbers), so
two nearby score lines are compared on the same futures and their difference is smooth.
Pure and deterministic; results are cached.
"""

from __future__ import annotations

import json
import random
from functools import cache, lru_cache
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from engine.three_player_moon.tiles import TARGET

__all__ = ["FUTURES", "HORIZON", "HandOutcomes", "win_chance"]

#: Sampled futures per estimate.
FUTURES = 160
#: Hands per sampled future (a game that is still undecided after them goes to the leader).
HORIZON = 24


class _Row(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    points: tuple[int, int, int]
    moon: int = Field(ge=-1, le=2)
    hands: int = Field(gt=0)


class HandOutcomes(BaseModel):
    """The data file: hand results relative to the first bidder, with how often each happened.

    Raises ``pydantic.ValidationError`` (through ``model_validate``) on a bad file."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    source: str
    games: int = Field(gt=0)
    outcomes: tuple[_Row, ...] = Field(min_length=1)


# One sampled future: per hand (d0, d1, d2, moon maker or -1) in absolute seats.
_Future = tuple[tuple[int, int, int, int], ...]


@cache
def _futures() -> tuple[tuple[_Future, ...], tuple[_Future, ...], tuple[_Future, ...]]:
    """Per first bidder of the next hand (0, 1, 2): the :data:`FUTURES` sampled futures."""
    path = Path(__file__).parent / "data" / "hand_outcomes.json"
    data = HandOutcomes.model_validate(json.loads(path.read_text(encoding="utf-8")))
    rows = data.outcomes
    rng = random.Random("moon-outlook")
    picks = [rng.choices(range(len(rows)), weights=[r.hands for r in rows], k=HORIZON) for _ in range(FUTURES)]
    out: list[tuple[_Future, ...]] = []
    for first in range(3):
        futures: list[_Future] = []
        for pick in picks:
            hands: list[tuple[int, int, int, int]] = []
            for j, idx in enumerate(pick):
                row = rows[idx]
                f = (first + j) % 3  # the first bidder moves one seat per hand (T2)
                d = [0, 0, 0]
                for k in range(3):
                    d[(f + k) % 3] = row.points[k]
                hands.append((d[0], d[1], d[2], -1 if row.moon < 0 else (f + row.moon) % 3))
            futures.append(tuple(hands))
        out.append(tuple(futures))
    return out[0], out[1], out[2]


@lru_cache(maxsize=1 << 16)
def win_chance(scores: tuple[int, int, int], first: int) -> tuple[float, float, float]:
    """Each seat's chance of winning from ``scores`` before a hand whose first bidder is
    ``first`` (0-2); the three sum to 1. Over the sampled futures: a made moon wins (T6), the
    first hand after which one seat alone has the most points and at least :data:`TARGET`
    ends the game (T7); a future still open after :data:`HORIZON` hands goes to the leaders
    (shared). The caller handles a finished game itself."""
    win = [0.0, 0.0, 0.0]
    for future in _futures()[first]:
        s0, s1, s2 = scores
        for d0, d1, d2, moon in future:
            if moon >= 0:
                win[moon] += 1
                break
            s0 += d0
            s1 += d1
            s2 += d2
            if s0 >= TARGET or s1 >= TARGET or s2 >= TARGET:
                if s0 > s1 and s0 > s2:
                    win[0] += 1
                    break
                if s1 > s0 and s1 > s2:
                    win[1] += 1
                    break
                if s2 > s0 and s2 > s1:
                    win[2] += 1
                    break
        else:
            top = max(s0, s1, s2)
            leaders = [i for i, s in enumerate((s0, s1, s2)) if s == top]
            for i in leaders:
                win[i] += 1 / len(leaders)
    n = float(len(_futures()[first]))
    return win[0] / n, win[1] / n, win[2] / n
