"""Tiles, suits and tricks of Three-Player Moon: pure functions of tiles (RULINGS T1, T4, T5).

Tiles are ``(high, low)`` pairs of pips with ``high >= low`` (:data:`Tile`), drawn ``[6|4]``.
See ``docs/rules/three-player-moon.md``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import cache
from itertools import compress

from engine.core import IllegalAction

__all__ = [
    "ALL_TILES",
    "MOON",
    "TARGET",
    "TRICKS",
    "TRUMP_OPTIONS",
    "TRUMP_SUIT",
    "Tile",
    "belongs",
    "deal_order",
    "is_trump",
    "led_suit",
    "legal_plays",
    "parse_tile",
    "rank_in",
    "sort_hand",
    "suit_tiles",
    "tile_code",
    "tile_str",
    "trick_winner",
]

#: A domino ``(high, low)``, ``high >= low``.
Tile = tuple[int, int]
#: A played tile: ``(seat, tile)``.
Played = tuple[int, Tile]

#: The 22 tiles (T1): ``[0|0]`` plus every ``[a|b]`` with ``1 <= b <= a <= 6``.
ALL_TILES: tuple[Tile, ...] = ((0, 0),) + tuple((a, b) for a in range(1, 7) for b in range(1, a + 1))
_TILE_SET = frozenset(ALL_TILES)
#: Points to reach (T7).
TARGET = 21
#: The moon bid (T2).
MOON = 21
#: Trump choices (T3): suits ``"0"``..``"6"``, doubles ``"D"``, no trump ``"N"``.
TRUMP_OPTIONS: tuple[str, ...] = ("0", "1", "2", "3", "4", "5", "6", "D", "N")
#: Pseudo-suit number standing for "the trump suit" in :func:`led_suit` / :func:`belongs`.
TRUMP_SUIT = 7
#: Number of tricks in a hand.
TRICKS = 7


def tile_str(tile: Sequence[int]) -> str:
    """Neutral display of a tile: ``(6, 4) -> "[6|4]"``."""
    return f"[{tile[0]}|{tile[1]}]"


def tile_code(tile: Tile) -> str:
    """The two digits of a tile in action codes: ``(6, 4) -> "64"``."""
    return f"{tile[0]}{tile[1]}"


def parse_tile(text: str) -> Tile:
    """Inverse of :func:`tile_code`; raises :class:`IllegalAction` on anything but one of the 22
    tiles written high end first (``"46"`` is refused)."""
    if len(text) != 2 or not text.isdigit():
        raise IllegalAction("malformed tile")
    tile = (int(text[0]), int(text[1]))
    if tile not in _TILE_SET:
        raise IllegalAction("no such tile")
    return tile


def is_trump(tile: Tile, trump: str | None) -> bool:
    """True when ``tile`` is a trump for ``trump`` (T4): carries the trump number, is a double
    under doubles trumps; never under no trump (``"N"``) or before trumps are named (``None``)."""
    if trump is None or trump == "N":
        return False
    if trump == "D":
        return tile[0] == tile[1]
    t = int(trump)
    return t in tile


def led_suit(tile: Tile, trump: str | None) -> int:
    """The suit a led tile asks for (T5): :data:`TRUMP_SUIT` for a trump, else its higher end."""
    return TRUMP_SUIT if is_trump(tile, trump) else tile[0]


def belongs(tile: Tile, suit: int, trump: str | None) -> bool:
    """True when ``tile`` belongs to ``suit`` (a number 0–6 or :data:`TRUMP_SUIT`) under ``trump`` (T4)."""
    if suit == TRUMP_SUIT:
        return is_trump(tile, trump)
    return not is_trump(tile, trump) and suit in tile


def rank_in(tile: Tile, suit: int, trump: str | None) -> int:
    """Rank of ``tile`` inside ``suit`` (higher is better), assuming it belongs there (T4).

    The double ranks 7 (top); another tile ranks by its other end. In the doubles trump suit a
    double ranks by its pips (``[6|6]`` = 6 high, ``[0|0]`` = 0 low). Raises ``ValueError`` for
    :data:`TRUMP_SUIT` without a named trump.
    """
    if suit == TRUMP_SUIT:
        if trump == "D":
            return tile[0]
        if trump is None or trump == "N":
            raise ValueError("no trump suit")
        suit = int(trump)
    if tile[0] == tile[1]:
        return 7
    return tile[0] + tile[1] - suit


@cache
def suit_tiles(suit: int, trump: str | None) -> tuple[Tile, ...]:
    """Every tile of ``suit`` under ``trump``, highest first (T4)."""
    return tuple(
        sorted((t for t in ALL_TILES if belongs(t, suit, trump)), key=lambda t: -rank_in(t, suit, trump))
    )


def legal_plays(hand: Iterable[Tile], trick: Sequence[Played], trump: str | None) -> tuple[Tile, ...]:
    """Tiles of ``hand`` that may be played on ``trick`` (T5): any tile on the lead; else the
    tiles of the led suit if there are some, else any tile. Sorted like the hand."""
    hand = tuple(hand)
    if not trick:
        return hand
    members = _FOLLOWERS[trump][trick[0][1]]
    follow = tuple(compress(hand, map(members.__contains__, hand)))
    return follow or hand


def trick_winner(trick: Sequence[Played], trump: str | None) -> int:
    """Seat winning ``trick`` (``(seat, tile)`` in play order, at least one): the highest trump,
    else the highest tile of the led suit (T5)."""
    power = _POWER[trump][trick[0][1]]
    return max((power[t], s) for s, t in trick)[1]


_TRUMPS_OR_NONE: tuple[str | None, ...] = (*TRUMP_OPTIONS, None)
#: ``_FOLLOWERS[trump][led tile]``: the tiles that follow the suit a led tile asks for (T5).
_FOLLOWERS: dict[str | None, dict[Tile, frozenset[Tile]]] = {
    trump: {lead: frozenset(t for t in ALL_TILES if belongs(t, led_suit(lead, trump), trump)) for lead in ALL_TILES}
    for trump in _TRUMPS_OR_NONE
}
#: ``_POWER[trump][led tile][tile]``: how strongly a tile plays on that lead (T5): a trump beats
#: the led suit, which beats the rest (-1); higher ranks beat lower ones inside each.
_POWER: dict[str | None, dict[Tile, dict[Tile, int]]] = {
    trump: {
        lead: {
            t: 100 + rank_in(t, TRUMP_SUIT, trump) if is_trump(t, trump)
            else rank_in(t, led_suit(lead, trump), trump) if belongs(t, led_suit(lead, trump), trump) else -1
            for t in ALL_TILES
        }
        for lead in ALL_TILES
    }
    for trump in _TRUMPS_OR_NONE
}
#: One tuple object per tile (deals use them, so comparisons usually stop at identity).
_CANONICAL: dict[tuple[int, int], Tile] = {t: t for t in ALL_TILES}


def sort_hand(tiles: Iterable[Tile]) -> tuple[Tile, ...]:
    """Canonical order of a hand: highest end first, then the other end (``[6|6]`` first)."""
    return tuple(sorted(tiles, reverse=True))


def deal_order(order: Sequence[Sequence[int]]) -> tuple[tuple[tuple[Tile, ...], ...], Tile]:
    """Split a permutation of :data:`ALL_TILES` into 3 hands of 7 (in seat order: tiles 0–6 to
    seat 0, 7–13 to seat 1, 14–20 to seat 2) and the widow (tile 21) (T1).

    Raises ``ValueError`` when ``order`` is not a permutation of the 22 tiles.
    """
    tiles: tuple[Tile, ...] = tuple(_CANONICAL.get((t[0], t[1]), (int(t[0]), int(t[1]))) for t in order if len(t) == 2)
    if len(tiles) != len(order) or len(tiles) != len(ALL_TILES) or set(tiles) != _TILE_SET:
        raise ValueError("order must be a permutation of the 22 tiles")
    hands = tuple(sort_hand(tiles[7 * i : 7 * i + 7]) for i in range(3))
    return hands, tiles[21]
