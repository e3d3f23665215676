"""The High Card state (a frozen slotted dataclass) and the facts read from it.

Rules: ``tests/fifth_game/rules.md``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from engine.core import State

__all__ = ["CARDS", "MAX_ROUNDS", "REDRAW_BELOW", "HighCardState", "Phase", "decide_order"]

#: The deck: one card of each value 1..15.
CARDS: tuple[int, ...] = tuple(range(1, 16))
#: Rounds (and cards dealt to each seat) at most.
MAX_ROUNDS = 3
#: The baseline AI redraws a revealed card below this value.
REDRAW_BELOW = 8

#: ``play`` (everyone picks a card face down, at once), ``decide`` (keep or redraw, one seat
#: after the other) or ``over``.
Phase = Literal["play", "decide", "over"]


@dataclass(frozen=True, slots=True, kw_only=True)
class HighCardState(State):
    """A High Card game.

    Attributes (per-seat tuples are indexed by seat):
        hands: each seat's cards, sorted (private: only that seat sees its hand).
        deck: the undealt cards in draw order (hidden).
        rounds: rounds of this game (cards dealt to each seat at set-up).
        round: 1..rounds.
        phase: ``play``, ``decide`` or ``over``.
        shown: the card each seat revealed this round (empty during ``play``).
        turn: index in :func:`decide_order` of the seat deciding (``decide`` phase).
        points: rounds won by each seat.
    """

    hands: tuple[tuple[int, ...], ...]
    deck: tuple[int, ...]
    rounds: int
    round: int = 1
    phase: Phase = "play"
    shown: tuple[int, ...] = ()
    turn: int = 0
    points: tuple[int, ...]

    @property
    def leader(self) -> int:
        """The seat that decides first this round: seat 0 in round 1, then one seat clockwise."""
        return (self.round - 1) % self.players

    @property
    def current(self) -> int | None:
        """The seat deciding now (``decide`` phase), else ``None``."""
        return decide_order(self)[self.turn] if self.phase == "decide" else None


def decide_order(state: HighCardState) -> tuple[int, ...]:
    """Seats in deciding order this round: the leader, then clockwise.

    >>> decide_order(HighCardState(seed=0, players=3, hands=(), deck=(), rounds=3, round=2, points=()))
    (1, 2, 0)
    """
    n = state.players
    return tuple((state.leader + i) % n for i in range(n))
