"""Moonshine's validation test on packed ints (RULINGS M4; issue 11, part 1): the tables that
:func:`engine.moonshine.legal.legal_actions` reads in the action phase.

A seat's supply of every subset of {Food, Music, Drink} (Hall's condition, as
:func:`engine.moonshine.dice.shortfall`) and its Moon tokens are the eight bytes of one int
(:data:`LANES`), each Client's demand another (:data:`DEMAND`); with every lane below 128,
``((supply | HIGH) - demand) & HIGH == HIGH`` exactly when every lane of the supply covers the
demand's, so one subtraction tests a Client.
"""

from __future__ import annotations

from engine.moonshine.dice import FACE_MASK
from engine.moonshine.icons import CLIENT_INFOS, ClientInfo

__all__ = ["DEMAND", "DICE_SUPPLY", "HIGH", "LANES", "MOON_LANE", "RES_BITS", "RES_SUPPLY", "SUPPLY_OF", "dice_supply",
           "resource_supply"]

#: Packed supply (one byte per lane, see the module docstring): lanes 0-6 are the subsets
#: {Food}, {Music}, {Drink}, {Food, Music}, {Food, Drink}, {Music, Drink}, {Food, Music, Drink}
#: (resource masks 1, 2, 4, 3, 5, 6, 7), lane 7 the Moon tokens (held + discount icons).
LANES = (1, 2, 4, 3, 5, 6, 7)
#: ``SUPPLY_OF[mask]``: what one unit serving the resource set ``mask`` adds to each lane (it
#: serves a subset S when it can pay a resource of S: ``mask & S``; mask 0, a Moon face, nothing).
SUPPLY_OF = tuple(sum(1 << 8 * lane for lane, sub in enumerate(LANES) if m & sub) for m in range(8))
#: The top bit of every lane: with every lane below 128, ``((supply | HIGH) - demand) & HIGH``
#: keeps a lane's bit exactly when that lane's supply covers its demand (no borrow crosses lanes).
HIGH = int.from_bytes(b"\x80" * 8, "little")
MOON_LANE = 56


def _demand(ci: ClientInfo) -> int:
    """The packed demand of Client ``ci`` (:data:`LANES`); ``ValueError`` when a lane exceeds 127."""
    f, m, d = ci.cost
    lanes = (f, m, d, f + m, f + d, m + d, f + m + d, ci.moon)
    if max(lanes) > 127:
        raise ValueError(f"Client {ci.id}: a cost too big for the packed supply")
    return int.from_bytes(bytes(lanes), "little")


#: The packed demand of every Client by global id (:data:`LANES`, Moon cost in lane 7).
DEMAND = tuple(_demand(ci) for ci in CLIENT_INFOS)
#: ``resource bits -> packed supply | HIGH`` (the resource counters of a packed bundle, bytes
#: 1-7, see :func:`resource_supply`), or -1 when the icons are too many for the packed lanes
#: (then the legal actions use the plain test, :func:`engine.moonshine.dice.feasible`).
RES_SUPPLY: dict[int, int] = {}
#: The resource counters (bytes 1-7) of a packed bundle.
RES_BITS = (1 << 64) - 256
#: ``dice -> (packed supply of the white dice, of the blue die, of the orange die)``.
DICE_SUPPLY: dict[tuple[str, ...], tuple[int, int, int]] = {}


def resource_supply(bits: int) -> int:
    """The packed supply (``| HIGH``) of the resource counters ``bits`` of a packed bundle, memoized
    in :data:`RES_SUPPLY`; -1 when they are too many for the lanes."""
    counts = bits.to_bytes(8, "little")
    if sum(counts) > 120:  # with 5 dice, a lane could reach 128
        hit = -1
    else:
        hit = sum(counts[m] * SUPPLY_OF[m] for m in range(1, 8)) | HIGH
    if len(RES_SUPPLY) >= 1 << 12:
        RES_SUPPLY.clear()
    RES_SUPPLY[bits] = hit
    return hit


def dice_supply(dice: tuple[str, ...]) -> tuple[int, int, int]:
    """The packed supply of the white dice, the blue die and the orange die showing ``dice``,
    memoized in :data:`DICE_SUPPLY`."""
    mask = FACE_MASK
    hit = (SUPPLY_OF[mask[dice[0]]] + SUPPLY_OF[mask[dice[1]]] + SUPPLY_OF[mask[dice[2]]],
           SUPPLY_OF[mask[dice[3]]], SUPPLY_OF[mask[dice[4]]])
    if len(DICE_SUPPLY) >= 1 << 12:
        DICE_SUPPLY.clear()
    DICE_SUPPLY[dice] = hit
    return hit
