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

:func:`pinned_variants` draws such worlds with a chosen unknown card at a chosen place (the
chooser's exact odds, :mod:`engine.shop_battle.odds`).
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.chance import rng_for, variant_seed
from engine.fast import replacer
from engine.shop_battle.cards import ShopCard
from engine.shop_battle.state import ShopBattleState, knowledge

__all__ = ["Pinned", "hidden_variant", "pinned_variants", "unseen"]

#: A variant: the fields a re-deal changes, the others copied (``engine.fast.replacer``).
_variant = replacer(ShopBattleState, "seed", "piles", "pot", "aside", "face_down", "known")


def hidden_variant(state: ShopBattleState, seat: int | None, salt: int) -> ShopBattleState:
    """``state`` with every card ``seat`` (``None`` = the public) does not know re-dealt at
    random from ``salt`` (reproducible), every known card in its place, a new seed
    (:func:`engine.chance.variant_seed`).

    Other seats' private knowledge (``known``) follows the places: what another seat saw at a
    place is the card now lying there. Preserves the multiset of cards, pile sizes and the
    face-down pot (and the number of set-aside cards)."""
    rng = rng_for(state, f"variant:{seat}:{salt}")
    places, old = unseen(state, seat)
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
    return _redealt(state, salt, old, new)


def pinned_variants(state: ShopBattleState, seat: int, salt: int, place: tuple[int, int],
                    cards: Sequence[int]) -> list[ShopBattleState]:
    """One determinization of ``seat``'s view per card of ``cards`` (cards ``seat`` does not
    know), that card lying at ``place`` (``(pile seat, index)``, a place whose card ``seat``
    does not know) and every other unknown card re-dealt at random from ``salt`` and the card
    (each variant its own shuffle), as :func:`hidden_variant` re-deals them. Each variant is
    drawn from the worlds ``seat`` cannot tell from the true one in which that card lies at
    ``place``; since every unknown card is as likely as any other at any unknown place, giving
    every unknown card the same number of variants counts the card at ``place`` exactly.

    For a seat whose view holds the chooser's top card in phase ``choose`` (the chooser itself:
    the pre-choice constraint of :func:`hidden_variant` is not drawn); ``ValueError``
    otherwise, or when ``place`` or a card of ``cards`` is known to ``seat``."""
    pinned = Pinned(state, seat, place)
    if not set(cards) <= set(pinned.cards):
        raise ValueError("the place and the cards must be unknown to the seat")
    return [pinned(salt, card) for card in cards]


class Pinned:
    """The variants of :func:`pinned_variants` one at a time, the unknown places found once:
    ``Pinned(state, seat, place)(salt, card)`` is ``pinned_variants(state, seat, salt, place,
    [card])[0]``. ``cards``: the cards ``seat`` does not know, in place order. ``ValueError``
    as :func:`pinned_variants` for the seat and the place (a card is not checked)."""

    __slots__ = ("_k", "_old", "_seat", "_state", "cards")

    def __init__(self, state: ShopBattleState, seat: int, place: tuple[int, int]) -> None:
        places, old = unseen(state, seat)
        if state.phase == "choose" and (state.chooser, 0) in places:
            raise ValueError("the chooser's top card must be known to the seat")
        if place not in places:
            raise ValueError("the place and the cards must be unknown to the seat")
        self._old = old
        self._k = places.index(place)
        self._seat, self._state = seat, state
        self.cards: tuple[int, ...] = tuple(old)

    def __call__(self, salt: int, card: int) -> ShopBattleState:
        new = list(self._old)
        rng_for(self._state, f"pinned:{self._seat}:{salt}:{card}").shuffle(new)
        return _redealt(self._state, salt, self._old, self._at_place(new, card))

    def _at_place(self, new: list[int], card: int) -> list[int]:
        """``new`` (the unknown cards in place order) with ``card`` and the card at the place
        changed over."""
        j = new.index(card)
        k = self._k
        new[k], new[j] = new[j], new[k]
        return new

    def placed(self, card: int) -> ShopBattleState:
        """A world ``seat`` cannot tell from the true one with ``card`` at the place, not dealt
        at random: the card lying there and ``card`` change places, every other card stays (a
        round that reveals no other card ``seat`` does not know ends there as in every such
        world)."""
        return _redealt(self._state, 0, self._old, self._at_place(list(self._old), card))


def unseen(state: ShopBattleState, seat: int | None) -> tuple[list[tuple[int, int]], list[int]]:
    """The places of the cards ``seat`` does not know, ``(pile seat, index)`` with ``-1`` for the
    pot and ``-2`` for the set-aside cards (never seen by anyone), and those cards, in order."""
    known = knowledge(state, seat)
    places: list[tuple[int, int]] = []
    for s, p in enumerate(state.piles):
        places += [(s, i) for i, c in enumerate(p) if c not in known]
    places += [(-1, i) for i, c in enumerate(state.pot) if c not in known]
    places += [(-2, i) for i in range(len(state.aside))]
    old = [state.piles[s][i] if s >= 0 else (state.pot[i] if s == -1 else state.aside[i]) for s, i in places]
    return places, old


def _redealt(state: ShopBattleState, salt: int, old: list[int], new: list[int]) -> ShopBattleState:
    """``state`` with card ``new[k]`` wherever ``old[k]`` lay (the cards of :func:`unseen`):
    knowledge of a place follows it, the seed is the variant's. Every list of cards is read
    through one table of where each card id goes (``map`` over it)."""
    where = list(range(len(state.cards)))  # card ids index ``state.cards``
    for o, n in zip(old, new, strict=True):
        where[o] = n
    get = where.__getitem__
    return _variant(
        state,
        variant_seed(state.seed, salt),
        tuple([tuple(map(get, p)) for p in state.piles]),
        tuple(map(get, state.pot)),
        tuple(sorted(map(get, state.aside))),
        tuple(sorted(map(get, state.face_down))),
        tuple([tuple(sorted(map(get, k))) for k in state.known]),
    )
