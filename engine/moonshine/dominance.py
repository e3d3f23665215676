"""Dominated Moonshine Clients (issue 14, RULINGS M1): a card no better than another in any way.

A set worth playing has no Client that another beats or equals on everything: cost, points and
bonuses. :func:`dominated_pairs` lists such pairs; ``tests/test_moonshine_cards.py`` checks that
the rules-3 set (``data/cards-rules3.json``) has none (the first set has five).
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.moonshine.cards import CardSet, ClientCard, Icon

__all__ = ["dominated_pairs", "dominates"]

_SINGLE = {"food": 1, "music": 2, "drink": 4, "food_or_music": 3, "food_or_drink": 5, "music_or_drink": 6, "any": 7}


def _covers(better: Icon, worse: Icon) -> bool:
    """True when icon ``better`` is at least as good as ``worse``: the same icon, or a resource
    whose choices include every choice of ``worse`` ("any" covers every resource, "Food or
    Music" covers Food and Music)."""
    if better.kind == "resource" and worse.kind == "resource":
        return _SINGLE[better.res] & _SINGLE[worse.res] == _SINGLE[worse.res]
    return better == worse


def _bonus_covers(better: Sequence[Icon], worse: Sequence[Icon]) -> bool:
    """True when every icon of ``worse`` is covered by a distinct icon of ``better``."""
    rest = list(better)

    def place(k: int) -> bool:
        if k == len(worse):
            return True
        for i, icon in enumerate(rest):
            if icon is not None and _covers(icon, worse[k]):
                rest[i] = None  # type: ignore[call-overload]
                if place(k + 1):
                    return True
                rest[i] = icon
        return False

    return place(0)


def dominates(a: ClientCard, b: ClientCard) -> bool:
    """True when Client ``a`` is at least as good as ``b`` in every way (issue 14, M1): cost no
    higher in any of Food, Music, Drink and Moon tokens, points no lower, an upper part at least
    as good (the same instant, or a slot with no more spaces whose bonus covers ``b``'s) and a
    lower bonus covering ``b``'s. Colour is ignored."""
    ca, cb = a.cost, b.cost
    if ca.food > cb.food or ca.music > cb.music or ca.drink > cb.drink or ca.moon > cb.moon:
        return False
    if a.points < b.points:
        return False
    ua, ub = a.upper, b.upper
    if ua.kind == "instant" or ub.kind == "instant":
        if ua != ub:
            return False
    elif ua.spaces > ub.spaces or not _bonus_covers(ua.bonus, ub.bonus):
        return False
    return _bonus_covers(a.lower, b.lower)


def dominated_pairs(cards: CardSet) -> list[tuple[int, int]]:
    """Pairs ``(a, b)`` of Client ids where ``a`` strictly dominates ``b`` (:func:`dominates`)."""
    cl = cards.clients
    return [(a.id, b.id) for a in cl for b in cl if a.id != b.id and dominates(a, b)]
