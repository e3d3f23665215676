"""Per-guild, per-game ratings with openskill's Plackett-Luce model (one-player teams).

AI seats take part in the ranking with a fixed rating per level (:data:`AI_RATINGS`; they are
never stored as players), so a member who plays against AI players is rated too, and beating a
strong AI counts for more than beating an easy one; only members' ratings are updated.
"""

from __future__ import annotations

from dataclasses import dataclass

from openskill.models import PlackettLuce

_MODEL = PlackettLuce()
DEFAULT_MU: float = _MODEL.mu
DEFAULT_SIGMA: float = _MODEL.sigma

#: The fixed ``(mu, sigma)`` an AI seat of each level is rated at (openskill's defaults are
#: mu 25, sigma 25/3). "normal" is a new member's rating (what every AI seat counted as before
#: levels existed); "easy" and "strong" sit one default sigma/2 (about 4.2 mu) below and above:
#: a member who beats a strong AI gains more, and loses less when beaten by it, than against a
#: normal one. Documented in docs/ARCHITECTURE.md ("Ratings").
AI_RATINGS: dict[str, tuple[float, float]] = {
    "easy": (DEFAULT_MU - DEFAULT_SIGMA / 2, DEFAULT_SIGMA),
    "normal": (DEFAULT_MU, DEFAULT_SIGMA),
    "strong": (DEFAULT_MU + DEFAULT_SIGMA / 2, DEFAULT_SIGMA),
}


@dataclass(frozen=True)
class Rated:
    """A seat's rating before a game: ``user_id`` is ``None`` for an AI seat."""

    user_id: int | None
    mu: float = DEFAULT_MU
    sigma: float = DEFAULT_SIGMA


def ai_rating(level: str) -> Rated:
    """The fixed rating of an AI seat playing at ``level`` (:data:`AI_RATINGS`; an unknown
    level counts as normal)."""
    mu, sigma = AI_RATINGS.get(level, AI_RATINGS["normal"])
    return Rated(None, mu, sigma)


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
