"""Moonshine card data compiled for the rules: icon bundles (RULINGS M1, M4).

The pydantic models of :mod:`engine.moonshine.cards` validate ``data/cards.json`` once; this
module turns every card into plain frozen dataclasses of integers (:class:`ClientInfo`,
:class:`SideInfo`) that the rules read on the hot path.

A *bundle* is a tuple of :data:`NB` counters: index = resource mask (Food 1, Music 2, Drink 4;
3/5/6 two-way choices, 7 resource of your choice; index 0 unused), then the counters
:data:`REROLL`, :data:`DRAW` (card-draw), :data:`CLIENT` (Client-card), :data:`BLUE` /
:data:`ORANGE` (die access), :data:`DISC` (discount Moon) and :data:`MAJ` (majority "?").
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from operator import add

from engine.moonshine.cards import CLIENTS_PER_SET, COLOURS, Icon, card_sets

__all__ = [
    "BLUE",
    "CLIENT",
    "DISC",
    "DRAW",
    "MAJ",
    "NB",
    "ORANGE",
    "RES_MASK",
    "REROLL",
    "ClientInfo",
    "SideInfo",
    "bundle_of",
    "client_info",
    "side_info",
]

REROLL, DRAW, CLIENT, BLUE, ORANGE, DISC, MAJ = range(8, 15)
#: Length of a bundle.
NB = 15
#: Resource kind -> mask (the bundle index of one unit of it).
RES_MASK = {"food": 1, "music": 2, "drink": 4, "food_or_music": 3, "food_or_drink": 5, "music_or_drink": 6, "any": 7}
_KIND_INDEX = {"reroll": REROLL, "draw": DRAW, "client": CLIENT, "blue_die": BLUE, "orange_die": ORANGE,
               "discount": DISC, "majority": MAJ}


def _bundle(icons: Iterable[Icon]) -> tuple[int, ...]:
    b = [0] * NB
    for i in icons:
        if i.kind == "resource":
            b[RES_MASK[i.res]] += 1
        elif i.kind in _KIND_INDEX:
            b[_KIND_INDEX[i.kind]] += 1
    return tuple(b)


@dataclass(frozen=True, slots=True)
class ClientInfo:
    """A Client card compiled for the rules (see :class:`engine.moonshine.cards.ClientCard`).

    ``colour`` indexes :data:`engine.moonshine.cards.COLOURS`; ``cost`` is (food, music, drink)
    units; ``moon`` the Moon tokens to discard; ``spaces`` the Moon-token spaces of its upper slot
    (0 for an instant upper), ``slot`` that slot's bundle; ``instant`` ``""`` or the instant
    effect; ``lower`` the bundle of its lower (validated) part.
    """

    id: int
    colour: int
    points: int
    cost: tuple[int, int, int]
    moon: int
    spaces: int
    slot: tuple[int, ...]
    instant: str
    lower: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class SideInfo:
    """A Speakeasy side compiled for the rules: its base bundle, its upper slots as
    ``(spaces, bundle)`` and its silhouettes (colour indexes)."""

    base: tuple[int, ...]
    slots: tuple[tuple[int, tuple[int, ...]], ...]
    silhouettes: tuple[int, ...]


@lru_cache(maxsize=1)
def _compiled() -> tuple[tuple[ClientInfo, ...], dict[str, tuple[SideInfo, ...]]]:
    clients = []
    sides: dict[str, list[SideInfo]] = {"standard": [], "regular": []}
    for k, cs in enumerate(card_sets()):
        for c in cs.clients:
            if c.upper.kind == "slot":
                spaces, slot, instant = c.upper.spaces, _bundle(c.upper.bonus), ""
            else:
                spaces, slot, instant = 0, (0,) * NB, c.upper.effect
            clients.append(ClientInfo(k * CLIENTS_PER_SET + c.id, COLOURS.index(c.colour), c.points,
                                      (c.cost.food, c.cost.music, c.cost.drink),
                                      c.cost.moon, spaces, slot, instant, _bundle(c.lower)))
        for variant in ("standard", "regular"):
            sides[variant].extend(
                SideInfo(_bundle(s.side(variant).base),
                         tuple((sl.spaces, _bundle(sl.bonus)) for sl in s.side(variant).slots),
                         tuple(COLOURS.index(c) for c in s.side(variant).silhouettes))
                for s in cs.speakeasies
            )
    return tuple(clients), {v: tuple(x) for v, x in sides.items()}


#: ``_compiled()`` read once (filled by the first :func:`client_info` / :func:`side_info` call).
_CLIENT_INFOS: tuple[ClientInfo, ...] = ()
_SIDE_INFOS: dict[str, tuple[SideInfo, ...]] = {}


def _load() -> None:
    global _CLIENT_INFOS
    clients, sides = _compiled()
    _SIDE_INFOS.update(sides)
    _CLIENT_INFOS = clients


def client_info(cid: int) -> ClientInfo:
    """Compiled data of Client card ``cid`` (global id: 0..69 the first set, 70..139 the rules-3
    set); ``IndexError`` for an unknown id."""
    try:
        return _CLIENT_INFOS[cid]
    except IndexError:
        if _CLIENT_INFOS:
            raise
    _load()
    return _CLIENT_INFOS[cid]


def side_info(speakeasy: int, variant: str) -> SideInfo:
    """Compiled data of Speakeasy ``speakeasy`` (global id: 0..4 the first set, 5..9 the rules-3
    set) on its ``variant`` side."""
    sides = _SIDE_INFOS.get(variant)
    if sides is None:
        _load()
        return _compiled()[1][variant][speakeasy]
    return sides[speakeasy]


#: Memo of :func:`bundle_of`: ``(id(side), se_tokens, clients, cl_tokens, validated)`` -> bundle.
#: Sides live for the whole process (``_compiled`` is cached), so their ids stay valid. The key
#: must name everything the result depends on: a card set chosen by rules version must join it.
_BUNDLES: dict[tuple[int, tuple[int, ...], tuple[int, ...], tuple[int, ...], tuple[int, ...]], tuple[int, ...]] = {}
_BUNDLES_MAX = 1 << 16


def bundle_of(side: SideInfo, se_tokens: Sequence[int], clients: Sequence[int], cl_tokens: Sequence[int],
              validated: Sequence[int]) -> tuple[int, ...]:
    """Every active icon (RULINGS M4): the Speakeasy base, its slots whose spaces are all covered,
    the covered slots of the Clients in front, and the lower parts of the validated Clients.

    Memoized (the same seat layout gives the same bundle); the result is an immutable tuple."""
    key = (id(side), tuple(se_tokens), tuple(clients), tuple(cl_tokens), tuple(validated))
    hit = _BUNDLES.get(key)
    if hit is not None:
        return hit
    b = side.base
    for (spaces, bb), t in zip(side.slots, se_tokens, strict=False):
        if t >= spaces:
            b = tuple(map(add, b, bb))
    infos = _compiled()[0]
    for cid, t in zip(clients, cl_tokens, strict=False):
        ci = infos[cid]
        if ci.spaces and t >= ci.spaces:
            b = tuple(map(add, b, ci.slot))
    if key[4]:
        b = tuple(map(add, b, _lower_sum(key[4])))
    if len(_BUNDLES) >= _BUNDLES_MAX:
        _BUNDLES.clear()
    _BUNDLES[key] = b
    return b


#: Memo of :func:`_lower_sum`.
_LOWERS: dict[tuple[int, ...], tuple[int, ...]] = {}


def _lower_sum(validated: tuple[int, ...]) -> tuple[int, ...]:
    """The sum of the lower bundles of the ``validated`` Clients (memoized)."""
    hit = _LOWERS.get(validated)
    if hit is None:
        infos = _compiled()[0]
        hit = (0,) * NB
        for cid in validated:
            hit = tuple(map(add, hit, infos[cid].lower))
        if len(_LOWERS) >= 1 << 14:
            _LOWERS.clear()
        _LOWERS[validated] = hit
    return hit
