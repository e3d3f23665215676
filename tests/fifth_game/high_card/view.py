"""Typed views of High Card: what the public, or one seat, may see.

The public view shows hand sizes, revealed cards, points and the deck's size; a seat's view
(:class:`HighCardSeatView`) adds its own hand. The deck order and other hands never appear.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.core import Outcome, View, ranks_from_scores
from tests.fifth_game.high_card.state import HighCardState, Phase

__all__ = ["HighCardSeatView", "HighCardView", "SeatLine", "outcome_of", "view_of"]


@dataclass(frozen=True, slots=True, kw_only=True)
class SeatLine:
    """One seat's public line: cards left in hand, the card revealed this round (``None``
    before the reveal) and rounds won."""

    seat: int
    cards_left: int
    shown: int | None
    points: int


@dataclass(frozen=True, slots=True, kw_only=True)
class HighCardView(View):
    """The public view.

    Attributes:
        round / rounds: this round and the number of rounds.
        phase: ``play`` / ``decide`` / ``over``; current: the deciding seat (``None`` otherwise).
        leader: the seat deciding first this round.
        deck_left: cards left in the deck (a redraw needs one).
        seats: one :class:`SeatLine` per seat.
        winners: the seats with most points once the game is over, else ``None``.
    """

    round: int
    rounds: int
    phase: Phase
    current: int | None
    leader: int
    deck_left: int
    seats: tuple[SeatLine, ...]
    winners: tuple[int, ...] | None


@dataclass(frozen=True, slots=True, kw_only=True)
class HighCardSeatView(HighCardView):
    """A seat's view: the public view plus its own hand."""

    hand: tuple[int, ...]


def outcome_of(points: tuple[int, ...]) -> Outcome:
    """Ranks by points, ties share the place; scores = points."""
    return Outcome(ranks=ranks_from_scores([(p,) for p in points]), scores=points)


def view_of(state: HighCardState, seat: int | None) -> HighCardView:
    """The view of ``seat`` (``None`` = public): a :class:`HighCardSeatView` for a seat."""
    fields: dict[str, Any] = {
        "round": state.round,
        "rounds": state.rounds,
        "phase": state.phase,
        "current": state.current,
        "leader": state.leader,
        "deck_left": len(state.deck),
        "seats": tuple(
            SeatLine(seat=s, cards_left=len(state.hands[s]), shown=state.shown[s] if state.shown else None,
                     points=state.points[s])
            for s in range(state.players)
        ),
        "winners": outcome_of(state.points).winners if state.phase == "over" else None,
    }
    if seat is None:
        return HighCardView(**fields)
    return HighCardSeatView(**fields, hand=state.hands[seat])
