"""Typed views of Three-Player Moon: what the public, a seat and the bidder may see.

Three classes, each adding what its reader may know, so that the JSON form
(``ThreePlayerMoon.view_json``) has exactly the keys of the views stored before the move, and
``ThreePlayerMoon.view_from_json`` tells them apart by those keys (the picture workers rebuild
the typed view so):

- :class:`MoonView`: the public table (``view(state, None)``);
- :class:`SeatView`: a seat's view, adding ``seat`` and its ``hand``;
- :class:`BidderView`: the bidder's view once the widow is taken, adding ``widow`` and
  ``discard`` (RULINGS T3: the widow and the discard are known to the bidder only).

See ``docs/rules/three-player-moon.md``.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.core import View
from engine.three_player_moon.state import HandResult, Phase
from engine.three_player_moon.tiles import Played, Tile

__all__ = ["BidderView", "MoonView", "SeatView"]


@dataclass(frozen=True, slots=True, kw_only=True)
class MoonView(View):
    """The public table.

    Attributes:
        phase: ``"bid"``, ``"discard"``, ``"trump"``, ``"play"`` or ``"over"``.
        hand_no: 1-based hand number (redeals count); first_bidder: who bid first this hand.
        scores: points per seat; target: points to reach (21, T7).
        bids: ``(seat, bid)`` in bidding order this hand (0 = pass).
        bidder / bid: the high bidder (``None`` before any bid) and the bid (0 before any bid).
        trump: the named trump code (``"0"``..``"6"``, ``"D"``, ``"N"``) or ``None``.
        turn: the seat to act, ``None`` once over; to_act: the seats to act (sorted).
        leader: who led the current trick; trick: ``(seat, tile)`` in play order.
        tricks_won: tricks per seat this hand; hand_sizes: tiles in each hand.
        widow_down: the widow still lies face down (bidding); discarded: the bidder has discarded.
        played: the tiles played this hand, in order.
        last_trick / last_winner: the previous completed trick of this hand and who won it.
        last_hand: the last scored hand; moon_winner: the seat that made a moon.
        winners: the seats ranked first, once over (else empty).
    """

    phase: Phase
    hand_no: int
    first_bidder: int
    scores: tuple[int, int, int]
    target: int
    bids: tuple[tuple[int, int], ...]
    bidder: int | None
    bid: int
    trump: str | None
    turn: int | None
    to_act: tuple[int, ...]
    leader: int | None
    trick: tuple[Played, ...]
    tricks_won: tuple[int, int, int]
    hand_sizes: tuple[int, ...]
    widow_down: bool
    discarded: bool
    played: tuple[Tile, ...]
    last_trick: tuple[Played, ...]
    last_winner: int | None
    last_hand: HandResult | None
    moon_winner: int | None
    winners: tuple[int, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class SeatView(MoonView):
    """A seat's view: the public table plus ``seat`` and its ``hand`` (sorted, high first)."""

    seat: int
    hand: tuple[Tile, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class BidderView(SeatView):
    """The bidder's view after the pickup: adds the ``widow`` it took and its ``discard``
    (``None`` until made)."""

    widow: Tile | None
    discard: Tile | None
