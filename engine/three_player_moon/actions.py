"""Actions of Three-Player Moon and their stable codes (RULINGS T2, T3, T5).

Codes: ``b0`` (pass), ``b4``..``b7``, ``b21`` (bid); ``d<high><low>`` (discard, e.g. ``d64``);
``t0``..``t6``, ``tD``, ``tN`` (name trumps); ``p<high><low>`` (play, e.g. ``p64``).
See ``docs/rules/three-player-moon.md``.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.core import Action, IllegalAction
from engine.three_player_moon.tiles import TRUMP_OPTIONS, Tile, parse_tile, tile_code

__all__ = ["BID_CODES", "Bid", "Discard", "MoonAction", "NameTrump", "Play", "decode", "encode"]

#: The bid values that have a code: pass, 4–7 and the moon.
BID_CODES: tuple[str, ...] = ("0", "4", "5", "6", "7", "21")


@dataclass(frozen=True, slots=True)
class Bid(Action):
    """A bid: 0 = pass, 4–7, or 21 (shoot the moon) (T2). Code ``b<n>``."""

    bid: int


@dataclass(frozen=True, slots=True)
class Discard(Action):
    """The bidder's discard, face down (T3). Code ``d<high><low>``."""

    tile: Tile


@dataclass(frozen=True, slots=True)
class NameTrump(Action):
    """Trumps named by the bidder (T3): ``"0"``..``"6"``, ``"D"`` (doubles), ``"N"`` (no trump).
    Code ``t<x>``."""

    trump: str


@dataclass(frozen=True, slots=True)
class Play(Action):
    """Play a tile to the trick (T5). Code ``p<high><low>``."""

    tile: Tile


MoonAction = Bid | Discard | NameTrump | Play


def encode(action: MoonAction) -> str:
    """``b<n>``, ``d<hi><lo>``, ``t<x>``, ``p<hi><lo>``; raises :class:`IllegalAction` on
    anything else."""
    if isinstance(action, Play):
        return "p" + tile_code(action.tile)
    if isinstance(action, Bid):
        return f"b{action.bid}"
    if isinstance(action, Discard):
        return "d" + tile_code(action.tile)
    if isinstance(action, NameTrump):
        return "t" + action.trump
    raise IllegalAction("unknown action")


def decode(code: str) -> MoonAction:
    """Inverse of :func:`encode` for a code whose alphabet was checked; raises
    :class:`IllegalAction` on a malformed code (including a tile written low end first, ``p46``)."""
    kind, rest = code[:1], code[1:]
    if kind == "b":
        if rest not in BID_CODES:
            raise IllegalAction("malformed bid")
        return Bid(int(rest))
    if kind == "t":
        if rest not in TRUMP_OPTIONS:
            raise IllegalAction("malformed trump")
        return NameTrump(rest)
    if kind == "d":
        return Discard(parse_tile(rest))
    if kind == "p":
        return Play(parse_tile(rest))
    raise IllegalAction("malformed action code")
