"""Determinization of Shop Battle: a full state a seat cannot tell apart from the real one
(``Game.hidden_variant``; ``docs/rules/shop-battle.md``, "Hidden information", RULINGS S2-S5).

What a seat knows: every card ever revealed face up (``state.public``) and what it saw privately
(``state.known[seat]``: its own top cards, peeks, scouts); every later move of a card is public,
so it knows where each of those cards lies. Every other card (face-down piles, the face-down
pot, the cards the deal set aside under rules 5, S3) is re-dealt among the places such cards
occupy, shop cards and Collectors mixed (a face-down card may be either). One fact is public
without being a card: during ``choose`` the chooser's top card is a shop card (a Collector on
top would have been revealed in the pre-choice step, S4), so that place always receives a shop
card.
"""

from __future__ import annotations

import dataclasses

from engine.chance import rng_for, variant_seed
from engine.shop_battle.cards import ShopCard
from engine.shop_battle.state import ShopBattleState, knowledge

__all__ = ["hidden_variant"]


def hidden_variant(state: ShopBattleState, seat: int | None, salt: int) -> ShopBattleState:
    """``state`` with every card ``seat`` (``None`` = the public) does not know re-dealt at
    random from ``salt`` (reproducible), every known card in its place, a new seed
    (:func:`engine.chance.variant_seed`).

    Other seats' private knowledge (``known``) follows the places: what another seat saw at a
    place is the card now lying there. Preserves the multiset of cards, pile sizes and the
    face-down pot (and the number of set-aside cards)."""
    rng = rng_for(state, f"variant:{seat}:{salt}")
    known = knowledge(state, seat)
    piles = [list(p) for p in state.piles]
    pot = list(state.pot)
    places: list[tuple[int, int]] = []  # (pile seat, -1 for the pot or -2 for the set-aside cards, index)
    for s, p in enumerate(piles):
        places += [(s, i) for i, c in enumerate(p) if c not in known]
    aside = list(state.aside)  # never seen by anyone
    places += [(-1, i) for i, c in enumerate(pot) if c not in known]
    places += [(-2, i) for i in range(len(aside))]
    old = [piles[s][i] if s >= 0 else (pot[i] if s == -1 else aside[i]) for s, i in places]
    new = list(old)
    rng.shuffle(new)
    chooser_top = (state.chooser, 0)
    if state.phase == "choose" and chooser_top in places:
        # The chooser's top card is a shop card (S4 pre-choice): swap one in from elsewhere.
        k = places.index(chooser_top)
        if not isinstance(state.cards[new[k]], ShopCard):
            shops = [j for j, c in enumerate(new) if isinstance(state.cards[c], ShopCard)]
            j = shops[rng.randrange(len(shops))]
            new[k], new[j] = new[j], new[k]
    mapping: dict[int, int] = {}
    for (s, i), o, n in zip(places, old, new, strict=True):
        mapping[o] = n
        if s >= 0:
            piles[s][i] = n
        elif s == -1:
            pot[i] = n
        else:
            aside[i] = n
    return dataclasses.replace(
        state,
        seed=variant_seed(state.seed, salt),
        piles=tuple(tuple(p) for p in piles),
        pot=tuple(pot),
        aside=tuple(sorted(aside)),
        face_down=tuple(sorted(mapping.get(c, c) for c in state.face_down)),
        known=tuple(tuple(sorted(mapping.get(c, c) for c in k)) for k in state.known),
    )
