"""The state of a Three-Player Moon game and the chance helpers that deal it (RULINGS T1, T2).

See ``docs/rules/three-player-moon.md``.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from engine.core import State
from engine.fast import replace_state
from engine.three_player_moon.tiles import ALL_TILES, Played, Tile, deal_order

__all__ = ["MAX_HANDS", "HandResult", "MoonState", "Phase", "deal_hands", "evolve", "shuffled_tiles", "start_hand"]

#: Safety cap on the number of hands (all-pass redeals included); see :mod:`engine.three_player_moon.rules`.
MAX_HANDS = 200

#: The phases of a hand, then ``"over"``.
Phase = Literal["bid", "discard", "trump", "play", "over"]


@dataclass(frozen=True, slots=True, kw_only=True)
class HandResult:
    """The result of a scored hand (shown until the next one is scored; T6).

    Attributes: ``hand_no``; ``bidder`` (seat); ``bid`` (4–7 or 21); ``trump`` (a
    ``TRUMP_OPTIONS`` code); ``tricks`` won per seat; ``points`` scored per seat this hand;
    ``made`` (the bidder made the bid).
    """

    hand_no: int
    bidder: int
    bid: int
    trump: str
    tricks: tuple[int, int, int]
    points: tuple[int, int, int]
    made: bool


@dataclass(frozen=True, slots=True, kw_only=True)
class MoonState(State):
    """Whole game state (private: holds every hand, the widow and the discard).

    Attributes:
        scores: points per seat (may be negative).
        hand_no: 1-based number of the current hand (redeals count as hands).
        first_bidder: the seat that bids first this hand (T2).
        phase: ``"bid"``, ``"discard"``, ``"trump"``, ``"play"`` or ``"over"``.
        hands: the tiles of each seat, sorted by ``sort_hand``.
        widow: this hand's widow tile (face down during ``bid``; afterwards known to the bidder only).
        discard: the bidder's discard (``None`` until made; known to the bidder only).
        bids: ``(seat, bid)`` in bidding order this hand (0 = pass).
        bidder / bid: the high bidder and the bid (``None`` / 0 before any bid).
        trump: a ``TRUMP_OPTIONS`` code once named.
        turn: the seat to act (meaningless when over).
        leader: the seat that led the current trick.
        trick: ``(seat, tile)`` played in the current trick.
        tricks_won: tricks per seat this hand.
        played: every tile played this hand, in order (public).
        last_trick / last_winner: the previous completed trick of this hand.
        last_hand: the result of the last scored hand.
        moon_winner: the seat that made a 21 bid (game over at once).
    """

    scores: tuple[int, int, int] = (0, 0, 0)
    hand_no: int = 1
    first_bidder: int = 0
    phase: Phase = "bid"
    hands: tuple[tuple[Tile, ...], ...] = ((), (), ())
    widow: Tile | None = None
    discard: Tile | None = None
    bids: tuple[tuple[int, int], ...] = ()
    bidder: int | None = None
    bid: int = 0
    trump: str | None = None
    turn: int = 0
    leader: int | None = None
    trick: tuple[Played, ...] = ()
    tricks_won: tuple[int, int, int] = (0, 0, 0)
    played: tuple[Tile, ...] = ()
    last_trick: tuple[Played, ...] = ()
    last_winner: int | None = None
    last_hand: HandResult | None = None
    moon_winner: int | None = None


def evolve(state: MoonState, **changes: Any) -> MoonState:
    """A copy of ``state`` with ``changes`` (no validation), equal to :func:`dataclasses.replace`
    but faster (``engine.fast.replace_state``: straight-line code made once per set of names).

    Raises ``TypeError`` on a name that is not a field."""
    return replace_state(state, **changes)


def start_hand(state: MoonState, order: Sequence[Sequence[int]], first_bidder: int, hand_no: int) -> MoonState:
    """``state`` with a fresh hand dealt from ``order`` (a permutation of the 22 tiles, see
    ``deal_order``), bidding open with ``first_bidder`` to bid (T1, T2).

    Scores and ``last_hand`` are kept; everything of the previous hand is cleared. Does not bump
    the version (callers do). Raises ``ValueError`` on a bad order.
    """
    hands, widow = deal_order(order)
    return evolve(
        state,
        hand_no=hand_no,
        first_bidder=first_bidder,
        phase="bid",
        hands=hands,
        widow=widow,
        discard=None,
        bids=(),
        bidder=None,
        bid=0,
        trump=None,
        turn=first_bidder,
        leader=None,
        trick=(),
        tricks_won=(0, 0, 0),
        played=(),
        last_trick=(),
        last_winner=None,
    )


def deal_hands(
    state: MoonState,
    hands: Sequence[Sequence[Tile]],
    widow: Tile,
    *,
    first_bidder: int = 0,
    hand_no: int | None = None,
) -> MoonState:
    """The chance helper for scripted deals: ``state`` with exactly ``hands`` (seat 0, 1, 2; 7
    tiles each) and ``widow`` dealt, bidding open with ``first_bidder`` (T1, T2).

    ``hand_no`` defaults to the state's current hand number. Scores and ``last_hand`` are kept.
    Raises ``ValueError`` unless the hands and the widow are the 22 tiles, 7 per seat.
    """
    if len(hands) != 3 or any(len(h) != 7 for h in hands):
        raise ValueError("three hands of 7 tiles are needed")
    order = [t for h in hands for t in h] + [widow]
    return start_hand(state, order, first_bidder, state.hand_no if hand_no is None else hand_no)


def shuffled_tiles(rng: random.Random) -> list[Tile]:
    """The 22 tiles in an order drawn from ``rng`` (the engine's deal, T1)."""
    order = list(ALL_TILES)
    rng.shuffle(order)
    return order
