"""Moonshine dice and resources: faces, rolls, and the exact feasibility test of a validation.

Dice (rulebook "Content"): white Food x3, Music x2, Drink; blue Food x2, Moon x3, resource of
your choice; orange Moon, Music, Drink x2, resource of your choice x2. Die indexes ``0``-``2``
white, ``3`` blue, ``4`` orange; their names in codes ``0 1 2 b o``. The dice are shared: every
player may use the same faces; white always, blue/orange only with access (RULINGS M4).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from engine.chance import hashed_draws, rng_draws
from engine.moonshine.icons import BLUE, DISC, ORANGE, client_info

__all__ = [
    "BLUE_FACES",
    "DIE_FACES",
    "DIE_NAMES",
    "FACE_MASK",
    "HASHED_RULES",
    "ORANGE_FACES",
    "WHITE_FACES",
    "die_draws",
    "feasible",
    "hashed_shuffle",
    "roll_faces",
    "shortfall",
    "sources_of",
]

WHITE_FACES: tuple[str, ...] = ("food", "food", "food", "music", "music", "drink")
BLUE_FACES: tuple[str, ...] = ("food", "food", "moon", "moon", "moon", "any")
ORANGE_FACES: tuple[str, ...] = ("moon", "music", "drink", "drink", "any", "any")
#: Faces of each die by index (3 white, blue, orange).
DIE_FACES = (WHITE_FACES, WHITE_FACES, WHITE_FACES, BLUE_FACES, ORANGE_FACES)
#: Die names used in reroll codes, by index.
DIE_NAMES = ("0", "1", "2", "b", "o")
#: Face -> resource mask (a Moon face and a die not rolled, ``""``, are no resource).
FACE_MASK = {"food": 1, "music": 2, "drink": 4, "any": 7, "moon": 0, "": 0}
#: The first rules version whose dice and reshuffles come from :func:`engine.chance.hashed_draws`.
HASHED_RULES = 5


def die_draws(chance: Any, rules: int, salt: str, n: int) -> bytes:
    """``n`` die values (each ``0..5``, an index into :data:`DIE_FACES`) of the step whose
    ``chance.seed`` and ``chance.version`` are given (the next state's version), for a table of
    ``rules``: :func:`engine.chance.hashed_draws` from rules 5 (:data:`HASHED_RULES`), else
    :func:`engine.chance.rng_draws` (the first ``n`` of ``rng_for(chance, salt).randrange(6)``)."""
    if rules >= HASHED_RULES:
        return hashed_draws(chance, salt, n, 6)
    return rng_draws(chance, salt, n, 6)


def hashed_shuffle(chance: Any, salt: str, x: list[int]) -> None:
    """Shuffle ``x`` (at most 128 items) in place, rules 5 (M7): Fisher-Yates from the end,
    ``x[i]`` swapped with ``x[j]``, ``j`` uniform in ``0..i``: the low ``(i).bit_length()`` bits of
    the next 7-bit value of :func:`engine.chance.hashed_draws` ``(chance, salt, ·, 128)`` (no byte
    is rejected there: 256 is a multiple of 128), drawn again while ``j > i`` (rejection: every
    order equally likely). Raises ``ValueError`` for more than 128 items."""
    size = len(x)
    if size > 128:
        raise ValueError("hashed_shuffle: at most 128 items")
    want = 2 * size + 8
    values = hashed_draws(chance, salt, want, 128)
    k = 0
    n = len(values)
    masks = _MASKS
    for i in range(size - 1, 0, -1):
        mask = masks[i]
        while True:
            if k == n:
                want *= 2
                values = hashed_draws(chance, salt, want, 128)  # the same values first (a prefix)
                n = len(values)
            j = values[k] & mask
            k += 1
            if j <= i:
                break
        x[i], x[j] = x[j], x[i]


#: ``_MASKS[i]``: the low ``i.bit_length()`` bits (:func:`hashed_shuffle`).
_MASKS = tuple((1 << i.bit_length()) - 1 for i in range(128))


def roll_faces(rng: random.Random, dice: Sequence[int]) -> tuple[str, ...]:
    """Faces for the dice indexes ``dice`` (0-2 white, 3 blue, 4 orange), drawn from ``rng``."""
    return tuple(DIE_FACES[d][rng.randrange(6)] for d in dice)


def shortfall(cost: Sequence[int], sources: Sequence[int]) -> int:
    """How many "any" resources are missing to pay ``cost`` = (food, music, drink).

    ``sources[mask]`` counts the units serving the resource set ``mask`` (1 Food, 2 Music, 4
    Drink, 3/5/6 two-way choices, 7 any). By Hall's theorem (deficiency version) the number of
    unmatched units of the best assignment is ``max over subsets S of demand(S) - supply(S)``, so
    0 means the cost can be paid exactly (RULINGS M4). ``supply(S)`` is every unit but those
    serving only resources outside ``S``; the 7 subsets are written out.
    """
    f, m, d = cost
    a1, a2, a3, a4, a5, a6, a7 = sources[1], sources[2], sources[3], sources[4], sources[5], sources[6], sources[7]
    t = a1 + a2 + a3 + a4 + a5 + a6 + a7
    worst = f + m + d - t  # S = {Food, Music, Drink}
    x = f - (t - a2 - a4 - a6)  # S = {Food}
    if x > worst:
        worst = x
    x = m - (t - a1 - a4 - a5)  # {Music}
    if x > worst:
        worst = x
    x = d - (t - a1 - a2 - a3)  # {Drink}
    if x > worst:
        worst = x
    x = f + m - (t - a4)  # {Food, Music}
    if x > worst:
        worst = x
    x = f + d - (t - a2)  # {Food, Drink}
    if x > worst:
        worst = x
    x = m + d - (t - a1)  # {Music, Drink}
    if x > worst:
        worst = x
    return worst if worst > 0 else 0


def sources_of(bundle: Sequence[int], dice: Sequence[str]) -> list[int]:
    """Resource sources (8 counters by mask, index 0 = 0) of a seat with ``bundle`` for the rolled
    ``dice`` (5 faces): white dice always, blue/orange only with access (RULINGS M4)."""
    src = list(bundle[:8])
    for i in range(3):
        src[FACE_MASK[dice[i]]] += 1
    if bundle[BLUE]:
        src[FACE_MASK[dice[3]]] += 1
    if bundle[ORANGE]:
        src[FACE_MASK[dice[4]]] += 1
    src[0] = 0
    return src


def feasible(cid: int, bundle: Sequence[int], sources: Sequence[int], tokens: int) -> bool:
    """True when Client ``cid`` can be validated (RULINGS M4): its resources matched exactly by
    ``sources`` and ``tokens`` Moon tokens covering its Moon cost minus the discount icons."""
    ci = client_info(cid)
    return tokens >= max(0, ci.moon - bundle[DISC]) and shortfall(ci.cost, sources) == 0
