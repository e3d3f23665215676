"""Moonshine state: frozen slotted dataclasses (``engine.core.State``) and the token helpers.

Slots: ``s0``..``s2`` are the upper slots of the seat's Speakeasy, ``c<id>`` the upper slot of a
Client card in front of the seat. Card ids are global over the card sets
(:func:`engine.moonshine.cards.client_of`): Clients 0..69 and Speakeasies 0..4 are the first set
(``data/cards.json``, rules 1-2), Clients ``70k..70k+69`` and Speakeasies ``5k..5k+4`` set ``k``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from engine.core import GameOptions, State
from engine.moonshine.icons import CLIENT_INFOS, SE_KEYS, SIDE_INFOS, bundle_of

__all__ = [
    "DRAFT_SIZES",
    "FollowUp",
    "FollowUpKind",
    "MoonshineOptions",
    "MoonshineState",
    "Phase",
    "SeatState",
    "Variant",
    "discard_options",
    "discard_ways",
    "held_slots",
    "seat_bundle",
    "seat_tokens",
    "slot_keys",
]

Variant = Literal["standard", "regular"]
Phase = Literal["draft", "setup", "instants", "roll", "gain", "action", "resolve", "over"]
FollowUpKind = Literal["draft", "discard", "keep", "pick", "replace", "place", "redraw"]
#: Cards seen in the Regular draft by position from the first player (RULINGS M9).
DRAFT_SIZES = (4, 5, 5, 6, 6)


class MoonshineOptions(GameOptions):
    """Table options: ``variant`` is ``"standard"`` (12 points) or ``"regular"`` (M9, 15 points)."""

    variant: Variant = "standard"


@dataclass(frozen=True, slots=True)
class FollowUp:
    """A pending private choice of a seat.

    ``kind``: ``draft`` (keep ``n`` of ``cards``), ``discard`` (discard ``n`` tokens), ``keep``
    (keep 1 of ``cards``), ``pick`` (keep 0 or 1 of ``cards``), ``replace`` (the picked card
    ``cards[0]`` replaces a Client), ``place`` (place one gained token). Rules 2 only:
    ``redraw``, the second draw of a double redraw, made by the engine (never a choice) once the
    follow-ups before it are answered.
    """

    kind: FollowUpKind
    cards: tuple[int, ...] = ()
    n: int = 0


@dataclass(frozen=True, slots=True)
class SeatState:
    """One seat: its Speakeasy (id), tokens per Speakeasy slot, Clients in front (ids) with their
    tokens, validated Clients, its own pending follow-ups (front first) and tokens still to lose
    (+1/-1 Moon, RULINGS M6)."""

    speakeasy: int
    se_tokens: tuple[int, ...]
    clients: tuple[int, ...] = ()
    cl_tokens: tuple[int, ...] = ()
    validated: tuple[int, ...] = ()
    queue: tuple[FollowUp, ...] = ()
    lose: int = 0


@dataclass(frozen=True, slots=True, kw_only=True)
class MoonshineState(State):
    """The whole game. ``deck[0]`` is the top card. ``dice`` = 3 white, blue, orange faces
    (``""`` = not rolled). ``to_draw`` lists the deck draws still to make in the resolve phase,
    as ``(seat, "keep" | "pick")`` in seat order; ``shuffles`` counts the reshuffles (M7)."""

    variant: Variant = "standard"
    target: int = 12
    phase: Phase
    round: int = 0
    first: int = 0
    active: int = 0
    dice: tuple[str, ...] = ("", "", "", "", "")
    rerolls: int = 0
    deck: tuple[int, ...] = ()
    discard: tuple[int, ...] = ()
    seats: tuple[SeatState, ...]
    to_draw: tuple[tuple[int, Literal["keep", "pick"]], ...] = ()
    shuffles: int = 0


def seat_bundle(seat: SeatState, variant: str) -> tuple[int, ...]:
    """Every active icon of a seat as a bundle (:mod:`engine.moonshine.icons`): Speakeasy base
    and full slots, full Client slots, validated lower parts."""
    return bundle_of(SIDE_INFOS[variant][seat.speakeasy], seat.se_tokens, seat.clients, seat.cl_tokens, seat.validated)


def held_slots(seat: Any) -> list[tuple[str, int]]:
    """The Moon-token slots of a seat (a :class:`SeatState` or anything with its token fields)
    that hold tokens, as ``(key, tokens)``: the Speakeasy's (``s<i>``), then the Clients'."""
    out = []
    i = 0
    for t in seat.se_tokens:
        if t:
            out.append((SE_KEYS[i], t))
        i += 1
    infos = CLIENT_INFOS
    for cid, t in zip(seat.clients, seat.cl_tokens):  # noqa: B905
        if t:
            out.append((infos[cid].key, t))
    return out


def seat_tokens(seat: SeatState) -> int:
    """Moon tokens the seat holds (on its Speakeasy and its Clients)."""
    return sum(seat.se_tokens) + sum(seat.cl_tokens)


def slot_keys(seat: SeatState, variant: str) -> list[tuple[str, int, int]]:
    """Every Moon-token slot of a seat as ``(key, tokens, spaces)`` (``s<i>`` then ``c<id>``)."""
    slots = SIDE_INFOS[variant][seat.speakeasy].slots
    out = [(SE_KEYS[i], t, sp) for i, ((sp, _), t) in enumerate(zip(slots, seat.se_tokens))]  # noqa: B905
    infos = CLIENT_INFOS
    for cid, t in zip(seat.clients, seat.cl_tokens):  # noqa: B905
        ci = infos[cid]
        if ci.spaces:
            out.append((ci.key, t, ci.spaces))
    return out


def discard_options(slots: Sequence[tuple[str, int]], n: int) -> list[tuple[tuple[str, int], ...]]:
    """Every way to discard ``n`` tokens from ``slots`` = ``(key, tokens)``, as tuples of
    ``(key, count)`` with count > 0 (in slot order); empty when they hold fewer than ``n``.
    Memoized: the list returned is shared, do not change it. The ways depend only on the token
    counts of the slots holding some (:func:`discard_ways`), so only the names are put in here."""
    key = (tuple(slots), n)
    hit = _DISCARDS.get(key)
    if hit is None:
        if len(_DISCARDS) >= 1 << 14:
            _DISCARDS.clear()
        held = [k for k, t in slots if t > 0]
        hit = _DISCARDS[key] = [tuple([(held[i], c) for i, c in way])
                                for way in discard_ways(tuple([t for _, t in slots if t > 0]), n)]
    return hit


_DISCARDS: dict[tuple[tuple[tuple[str, int], ...], int], list[tuple[tuple[str, int], ...]]] = {}


def discard_ways(counts: tuple[int, ...], n: int) -> tuple[tuple[tuple[int, int], ...], ...]:
    """Every way to discard ``n`` tokens from slots holding ``counts`` tokens (each > 0), as
    tuples of ``(slot index, count)`` with count > 0, in slot order, the first slot's count
    falling first (the order of :func:`discard_options`); empty when they hold fewer than ``n``.
    Memoized (a few hundred token layouts occur)."""
    key = (counts, n)
    hit = _WAYS.get(key)
    if hit is None:
        if len(_WAYS) >= 1 << 12:
            _WAYS.clear()
        hit = _WAYS[key] = _discard_ways(counts, n)
    return hit


_WAYS: dict[tuple[tuple[int, ...], int], tuple[tuple[tuple[int, int], ...], ...]] = {}


def _discard_ways(counts: tuple[int, ...], n: int) -> tuple[tuple[tuple[int, int], ...], ...]:
    out: list[tuple[tuple[int, int], ...]] = []

    def rec(i: int, left: int, acc: list[tuple[int, int]]) -> None:
        if left == 0:
            out.append(tuple(acc))
            return
        if i == len(counts):
            return
        if sum(counts[i:]) < left:
            return
        t = counts[i]
        for c in range(min(t, left), -1, -1):
            rec(i + 1, left - c, acc + [(i, c)] if c else acc)

    rec(0, n, [])
    return tuple(out)
