"""Per-guild, per-game ratings with openskill's Plackett-Luce model (one-player teams).

AI seats take part in the ranking with a fixed default rating (they are not stored), so a
member who plays against AI players is rated too; only members' ratings are updated.
"""

from __future__ import annotations

from dataclasses import dataclass

from openskill.models import PlackettLuce

_MODEL = PlackettLuce()
DEFAULT_MU: float = _MODEL.mu
DEFAULT_SIGMA: float = _MODEL.sigma


@dataclass(frozen=True)
class Rated:
    """A seat's rating before a game: ``user_id`` is ``None`` for an AI seat."""

    user_id: int | None
    mu: float = DEFAULT_MU
    sigma: float = DEFAULT_SIGMA


def rate(seats: list[Rated], ranks: list[int]) -> list[tuple[float, float]]:
    """New ``(mu, sigma)`` per seat after a game, from the outcome's ranks (1 = first, ties share).

    Args:
        seats: one entry per seat, in seat order.
        ranks: ``ranks[seat]`` from :class:`engine.core.Outcome`.

    Returns:
        ``(mu, sigma)`` per seat; AI seats keep their input values.

    Raises:
        ValueError: when the lengths differ or fewer than two seats are given.
    """
    if len(seats) != len(ranks) or len(seats) < 2:
        raise ValueError("need one rank per seat and at least two seats")
    teams = [[_MODEL.rating(mu=s.mu, sigma=s.sigma)] for s in seats]
    new = _MODEL.rate(teams, ranks=list(ranks))
    out = []
    for s, team in zip(seats, new, strict=True):
        out.append((s.mu, s.sigma) if s.user_id is None else (team[0].mu, team[0].sigma))
    return out
