"""Determinization of Moonshine: a full state a seat cannot tell apart from the real one
(``Game.hidden_variant``; ``docs/rules/moonshine.md``, RULINGS M2, M7, M9).

Public: the Clients in front of every seat and their Moon tokens, the validated Clients, the
dice, the sizes of the deck, the discard pile and every pending offer. Private to a seat: the
cards of its own pending follow-ups (draft, redraw, draw offers). Unseen: the deck order, the
face-down discard pile and the cards offered to the other seats: those Client cards are
re-dealt as one pool, every size kept. (The discard pile's content is re-dealt whole: the state
does not record which of its cards went there face up, e.g. a replaced Client.)
"""

from __future__ import annotations

from dataclasses import replace

from engine.chance import rng_for, variant_seed
from engine.moonshine.state import MoonshineState, SeatState

__all__ = ["hidden_variant"]


def hidden_variant(state: MoonshineState, seat: int | None, salt: int) -> MoonshineState:
    """``state`` with the unseen Client cards of ``seat`` (``None`` = the public) re-dealt from
    ``salt`` (reproducible), with a new seed for the future dice and reshuffles
    (:func:`engine.chance.variant_seed`). Keeps every public card, the seat's own offers and the
    multiset of Client cards."""
    pool = list(state.deck) + list(state.discard)
    for i, s in enumerate(state.seats):
        if i != seat:
            for q in s.queue:
                pool.extend(q.cards)
    pool.sort()
    rng_for(state, f"variant:{seat}:{salt}").shuffle(pool)
    deck, pool = tuple(pool[: len(state.deck)]), pool[len(state.deck) :]
    discard, pool = tuple(pool[: len(state.discard)]), pool[len(state.discard) :]
    seats: list[SeatState] = []
    for i, s in enumerate(state.seats):
        if i != seat and any(q.cards for q in s.queue):
            queue = []
            for q in s.queue:
                k = len(q.cards)
                queue.append(replace(q, cards=tuple(pool[:k])))
                pool = pool[k:]
            s = replace(s, queue=tuple(queue))
        seats.append(s)
    return replace(state, seed=variant_seed(state.seed, salt), deck=deck, discard=discard, seats=tuple(seats))
