"""Moonshine card data compiled for the rules: icon bundles (RULINGS M1, M4).

The pydantic models of :mod:`engine.moonshine.cards` validate the card files once, when this
module is imported; it turns every card into plain frozen dataclasses of integers
(:class:`ClientInfo`, :class:`SideInfo`; every set in :data:`CLIENT_INFOS` and
:data:`SIDE_INFOS`) that the rules read on the hot path.

A *bundle* is a tuple of :data:`NB` counters: index = resource mask (Food 1, Music 2, Drink 4;
3/5/6 two-way choices, 7 resource of your choice; index 0 unused), then the counters
:data:`REROLL`, :data:`DRAW` (card-draw), :data:`CLIENT` (Client-card), :data:`BLUE` /
:data:`ORANGE` (die access), :data:`DISC` (discount Moon) and :data:`MAJ` (majority "?").
On the hot path a bundle is also packed into one int, one byte per counter (:func:`_bits`), so
that :func:`bundle_of` sums bundles as ints; each Speakeasy side has the packed bundle and the
slots with room of every token layout in tables, built at import.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import product
from typing import Any

from engine.moonshine.cards import CLIENTS_PER_SET, COLOURS, RES_MASK, Icon, card_sets

__all__ = [
    "BLUE",
    "CLIENT",
    "CLIENT_INFOS",
    "DISC",
    "DRAW",
    "MAJ",
    "NB",
    "ORANGE",
    "REROLL",
    "KEY_CLIENT",
    "SE_INDEX",
    "SE_KEYS",
    "SIDE_INFOS",
    "ClientInfo",
    "SideInfo",
    "bundle_bits",
    "bundle_of",
    "client_icons",
    "client_info",
    "lower_bits",
    "side_info",
    "unpack_bundle",
]

REROLL, DRAW, CLIENT, BLUE, ORANGE, DISC, MAJ = range(8, 15)
#: Slot keys of the Speakeasy slots by index, and the index of each key.
SE_KEYS = ("s0", "s1", "s2")
SE_INDEX = {k: i for i, k in enumerate(SE_KEYS)}
#: Length of a bundle.
NB = 15
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


def _bits(bundle: Sequence[int]) -> int:
    """A bundle packed into one int, one byte per counter (counter ``i`` in byte ``i``), so that
    adding bundles is adding ints (every counter stays far below 256)."""
    return int.from_bytes(bytes(bundle), "little")


@dataclass(frozen=True, slots=True)
class ClientInfo:
    """A Client card compiled for the rules (see :class:`engine.moonshine.cards.ClientCard`).

    ``colour`` indexes :data:`engine.moonshine.cards.COLOURS`; ``cost`` is (food, music, drink)
    units; ``moon`` the Moon tokens to discard; ``spaces`` the Moon-token spaces of its upper slot
    (0 for an instant upper), ``slot`` that slot's bundle; ``instant`` ``""`` or the instant
    effect; ``lower`` the bundle of its lower (validated) part. For the hot path: ``key`` is its
    slot key (``c<id>``), ``slot_bits`` / ``lower_bits`` the two bundles packed (:func:`_bits`;
    ``slot_bits`` is 0 for an instant upper).
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
    key: str = ""
    slot_bits: int = 0
    lower_bits: int = 0


@dataclass(frozen=True, slots=True)
class SideInfo:
    """A Speakeasy side compiled for the rules: its base bundle, its upper slots as
    ``(spaces, bundle)`` and its silhouettes (colour indexes). For the hot path: ``base_bits``
    and ``slot_bits`` (``(spaces, packed bundle)`` per slot) are the same bundles packed, and
    ``by_tokens`` gives, for every tokens tuple a reachable state holds (at most ``spaces`` on
    each slot), the packed bundle of the base and the full slots; ``room_by_tokens`` the keys
    (:data:`SE_KEYS`) of the slots with an empty space."""

    base: tuple[int, ...]
    slots: tuple[tuple[int, tuple[int, ...]], ...]
    silhouettes: tuple[int, ...]
    base_bits: int = 0
    slot_bits: tuple[tuple[int, int], ...] = ()
    by_tokens: Mapping[tuple[int, ...], int] = field(default_factory=dict, compare=False, hash=False)
    room_by_tokens: Mapping[tuple[int, ...], tuple[str, ...]] = field(default_factory=dict, compare=False,
                                                                      hash=False)

    def rooms(self, tokens: Sequence[int]) -> tuple[str, ...]:
        """The keys (:data:`SE_KEYS`) of the slots with an empty space when they hold ``tokens``
        (what :attr:`room_by_tokens` holds for the layouts of play)."""
        return tuple(SE_KEYS[i] for i, ((sp, _), t) in enumerate(zip(self.slots, tokens)) if t < sp)  # noqa: B905


def _slots_sum(base_bits: int, slot_bits: Sequence[tuple[int, int]], tokens: Sequence[int]) -> int:
    """The packed base plus every slot whose spaces ``tokens`` all cover."""
    b = base_bits
    for (spaces, bits), t in zip(slot_bits, tokens):  # noqa: B905
        if t >= spaces:
            b += bits
    return b


def _by_tokens(base_bits: int, slot_bits: tuple[tuple[int, int], ...]) -> dict[tuple[int, ...], int]:
    """:attr:`SideInfo.by_tokens`: every tokens tuple with at most ``spaces`` on each slot."""
    return {tokens: _slots_sum(base_bits, slot_bits, tokens)
            for tokens in product(*(range(spaces + 1) for spaces, _ in slot_bits))}


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
            cid = k * CLIENTS_PER_SET + c.id
            lower = _bundle(c.lower)
            clients.append(ClientInfo(cid, COLOURS.index(c.colour), c.points,
                                      (c.cost.food, c.cost.music, c.cost.drink),
                                      c.cost.moon, spaces, slot, instant, lower,
                                      f"c{cid}", _bits(slot), _bits(lower)))
        for variant in ("standard", "regular"):
            for s in cs.speakeasies:
                side = s.side(variant)
                base = _bundle(side.base)
                slots = tuple((sl.spaces, _bundle(sl.bonus)) for sl in side.slots)
                slot_bits = tuple((sp, _bits(b)) for sp, b in slots)
                info = SideInfo(base, slots, tuple(COLOURS.index(c) for c in side.silhouettes), _bits(base),
                                slot_bits, _by_tokens(_bits(base), slot_bits))
                rooms = {tokens: info.rooms(tokens) for tokens in product(*(range(sp + 1) for sp, _ in slots))}
                sides[variant].append(dataclasses.replace(info, room_by_tokens=rooms))
    return tuple(clients), {v: tuple(x) for v, x in sides.items()}


#: Every compiled Client by global id, and the Speakeasy sides by variant then global id (the
#: card files are read and validated once, at import).
CLIENT_INFOS: tuple[ClientInfo, ...]
SIDE_INFOS: dict[str, tuple[SideInfo, ...]]
CLIENT_INFOS, SIDE_INFOS = _compiled()
#: The Client id of each Client slot key (``c<id>``).
KEY_CLIENT = {ci.key: ci.id for ci in CLIENT_INFOS}
if any(ci.slot[CLIENT] for ci in CLIENT_INFOS) or any(b[CLIENT] for x in SIDE_INFOS.values() for si in x
                                                      for _, b in si.slots):
    raise ValueError("a Moon-token slot with a Client-card icon (client_icons counts none there)")


def client_info(cid: int) -> ClientInfo:
    """Compiled data of Client card ``cid`` (global id: 0..69 the first set, 70..139 the rules-3
    set); ``IndexError`` for an unknown id."""
    return CLIENT_INFOS[cid]


def side_info(speakeasy: int, variant: str) -> SideInfo:
    """Compiled data of Speakeasy ``speakeasy`` (global id: 0..4 the first set, 5..9 the rules-3
    set) on its ``variant`` side."""
    return SIDE_INFOS[variant][speakeasy]


def bundle_bits(side: SideInfo, se_tokens: Sequence[int], clients: Sequence[int], cl_tokens: Sequence[int],
                validated: Sequence[int]) -> int:
    """:func:`bundle_of` packed into one int (one byte per counter, :func:`_bits`), for the hot
    path; :func:`unpack_bundle` gives the tuple."""
    b: int | None
    try:  # the rules pass tuples: no copy (a list is accepted, as before)
        b = side.by_tokens.get(se_tokens)  # type: ignore[call-overload]
    except TypeError:
        b = side.by_tokens.get(tuple(se_tokens))
    if b is None:
        b = _slots_sum(side.base_bits, side.slot_bits, se_tokens)
    if clients:
        infos = CLIENT_INFOS
        for cid, t in zip(clients, cl_tokens):  # noqa: B905
            ci = infos[cid]
            if t >= ci.spaces:  # an instant upper (0 spaces) adds nothing: its slot_bits are 0
                b += ci.slot_bits
    if validated:
        v: Any = validated if validated.__class__ is tuple else tuple(validated)
        lower = _LOWERS.get(v)
        b += lower_bits(v) if lower is None else lower
    return b


def lower_bits(validated: tuple[int, ...]) -> int:
    """The packed lower bundles of the validated Clients ``validated``, summed (memoized)."""
    lower = _LOWERS.get(validated)
    if lower is None:
        if len(_LOWERS) >= 1 << 14:
            _LOWERS.clear()
        lower = _LOWERS[validated] = sum(CLIENT_INFOS[cid].lower_bits for cid in validated)
    return lower


def client_icons(side: SideInfo, validated: Sequence[int]) -> int:
    """The Client-card icons of a seat (``bundle_of(...)[CLIENT]``): its Speakeasy base and the
    lower parts of its validated Clients (no Moon-token slot carries one, checked at import)."""
    n = side.base[CLIENT]
    infos = CLIENT_INFOS
    for cid in validated:
        n += infos[cid].lower[CLIENT]
    return n


def unpack_bundle(b: int) -> tuple[int, ...]:
    """The bundle (a tuple of :data:`NB` counters) packed in ``b`` (:func:`bundle_bits`); memoized."""
    out = _UNPACKED.get(b)
    if out is None:
        if len(_UNPACKED) >= 1 << 14:
            _UNPACKED.clear()
        out = _UNPACKED[b] = tuple(b.to_bytes(NB, "little"))
    return out


def bundle_of(side: SideInfo, se_tokens: Sequence[int], clients: Sequence[int], cl_tokens: Sequence[int],
              validated: Sequence[int]) -> tuple[int, ...]:
    """Every active icon (RULINGS M4): the Speakeasy base, its slots whose spaces are all covered,
    the covered slots of the Clients in front, and the lower parts of the validated Clients.

    Summed as packed ints (:func:`bundle_bits`; the Speakeasy part read from
    :attr:`SideInfo.by_tokens`, the validated part memoized); the result is an immutable tuple of
    :data:`NB` counters."""
    b = bundle_bits(side, se_tokens, clients, cl_tokens, validated)
    out = _UNPACKED.get(b)
    return unpack_bundle(b) if out is None else out


#: Bundles by their packed int (memo of :func:`unpack_bundle`: unpacking costs more than a
#: lookup; a few hundred distinct bundles occur in a game).
_UNPACKED: dict[int, tuple[int, ...]] = {}
#: The packed lower bundles of a tuple of validated Clients, summed (memo of :func:`lower_bits`).
_LOWERS: dict[tuple[int, ...], int] = {}
