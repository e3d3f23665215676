"""Moonshine typed views: what the public, and each seat, may see.

:func:`build_view` gives a :class:`MoonshineView` for the public table and a :class:`PlayerView`
(the same plus ``me`` and ``private``) for a seat. Their JSON form (``Game.view_json``) is the
stable view dict the terminal, tests and fixtures read; ``Game.view_from_json`` rebuilds the typed
view from it (the class by its keys), as the picture workers do. Never the seed, the deck order,
the face-down discard pile (only its size) or another seat's offered cards.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.core import View
from engine.moonshine.dice import feasible, sources_of
from engine.moonshine.icons import BLUE, CLIENT, DISC, DRAW, ORANGE, REROLL, side_info
from engine.moonshine.legal import to_act
from engine.moonshine.scoring import outcome_of, points_of
from engine.moonshine.state import MoonshineState, seat_bundle, seat_tokens

__all__ = ["IconCounts", "MoonshineView", "Offer", "Pending", "PlayerView", "PrivateView", "SeatBoard", "build_view"]


@dataclass(frozen=True, slots=True)
class IconCounts:
    """Active icon counts of a seat (reroll, card-draw, Client-card, blue/orange die access,
    discount Moon)."""

    reroll: int
    draw: int
    client: int
    blue: int
    orange: int
    discount: int


@dataclass(frozen=True, slots=True)
class Pending:
    """A follow-up as the public sees it: its kind and a size (cards offered for keep/pick/draft,
    else the follow-up's ``n``), never the cards."""

    kind: str
    n: int


@dataclass(frozen=True, slots=True)
class SeatBoard:
    """The public part of a seat: Speakeasy (id) and its tokens per slot, Clients in front with
    their tokens, validated Clients, points, Moon tokens held, active icons, pending follow-ups
    and tokens still to lose."""

    speakeasy: int
    se_tokens: tuple[int, ...]
    clients: tuple[int, ...]
    cl_tokens: tuple[int, ...]
    validated: tuple[int, ...]
    points: int
    tokens: int
    icons: IconCounts
    pending: tuple[Pending, ...]
    lose: int


@dataclass(frozen=True, slots=True)
class Offer:
    """One of the seat's own follow-ups with the offered cards (Client ids)."""

    kind: str
    cards: tuple[int, ...]
    n: int


@dataclass(frozen=True, slots=True)
class PrivateView:
    """What only the seat sees: its follow-up queue with the offered cards, the Clients it can
    validate now, and its resource sources by mask 1..7 (Food, Music, Food/Music, Drink,
    Food/Drink, Music/Drink, any)."""

    queue: tuple[Offer, ...]
    feasible: tuple[int, ...]
    sources: tuple[int, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class MoonshineView(View):
    """The public table: variant, target points, round, phase, active and first seats, the 5 dice
    faces (``""`` = not rolled), rerolls left, deck and discard sizes, seats to act, one
    :class:`SeatBoard` per seat, and the ranks once the game is over (else ``None``)."""

    variant: str
    target: int
    round: int
    phase: str
    active: int
    first: int
    dice: tuple[str, ...]
    rerolls: int
    deck: int
    discard: int
    to_act: tuple[int, ...]
    seats: tuple[SeatBoard, ...]
    ranks: tuple[int, ...] | None


@dataclass(frozen=True, slots=True, kw_only=True)
class PlayerView(MoonshineView):
    """The view of seat ``me``: the public table plus its :class:`PrivateView`."""

    me: int
    private: PrivateView


def _pending_size(kind: str, cards: tuple[int, ...], n: int) -> int:
    return len(cards) if kind in ("keep", "pick", "draft") else n


def build_view(state: MoonshineState, seat: int | None) -> MoonshineView:
    """The view of ``seat`` (``None`` or an unknown seat: the public :class:`MoonshineView`)."""
    seats = []
    for s in state.seats:
        b = seat_bundle(s, state.variant)
        seats.append(SeatBoard(
            speakeasy=s.speakeasy,
            se_tokens=s.se_tokens,
            clients=s.clients,
            cl_tokens=s.cl_tokens,
            validated=s.validated,
            points=points_of(s.validated, side_info(s.speakeasy, state.variant).silhouettes),
            tokens=seat_tokens(s),
            icons=IconCounts(b[REROLL], b[DRAW], b[CLIENT], b[BLUE], b[ORANGE], b[DISC]),
            pending=tuple(Pending(q.kind, _pending_size(q.kind, q.cards, q.n)) for q in s.queue),
            lose=s.lose,
        ))
    common: dict[str, Any] = {
        "variant": state.variant, "target": state.target, "round": state.round, "phase": state.phase,
        "active": state.active, "first": state.first, "dice": state.dice, "rerolls": state.rerolls,
        "deck": len(state.deck), "discard": len(state.discard), "to_act": tuple(sorted(to_act(state))),
        "seats": tuple(seats), "ranks": outcome_of(state).ranks if state.phase == "over" else None,
    }
    if seat is None or not 0 <= seat < state.players:
        return MoonshineView(**common)
    s = state.seats[seat]
    b = seat_bundle(s, state.variant)
    src = sources_of(b, state.dice)
    toks = seat_tokens(s)
    private = PrivateView(
        queue=tuple(Offer(q.kind, q.cards, q.n) for q in s.queue),
        feasible=tuple(c for c in s.clients if state.dice[0] and feasible(c, b, src, toks)),
        sources=tuple(src[1:8]),
    )
    return PlayerView(**common, me=seat, private=private)
