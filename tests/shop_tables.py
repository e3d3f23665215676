"""Stacked Shop Battle tables for the tests: card specs, a deal of exactly the cards given (the
engine's chance helper ``ShopBattle.start_from``), one chooser's move, and a long table of
distinct years (RULINGS S6's laps)."""

from __future__ import annotations

import itertools
from typing import Any

from engine.shop_battle import Deck, ShopBattle

__all__ = ["G", "act", "coll", "laps_table", "shop", "start"]

G = ShopBattle()

_counter = itertools.count()


def shop(name: str | None = None, year: int = 1990, street: int = 10, games: int = 10) -> dict[str, Any]:
    """A shop card spec (a unique filler name when ``name`` is None)."""
    return {"name": name or f"Filler {next(_counter)}", "year_founded": year, "street_number": street,
            "games_in_shop": games}


def coll(name: str, power: Any) -> dict[str, Any]:
    """A Collector card spec with its ``power``."""
    return {"name": name, "power": power}


def start(piles: list[list[dict]], pot: list[dict] = (), chooser: int = 0, rules: int | None = None, *,
          seed: int = 7, deck: str = "Test deck", **opts: Any):
    """Stacked game: piles of card specs (top first) and the pot; the deck ``deck`` is exactly
    these cards (``start_from`` takes the deal instead of shuffling it; ``seed`` is the table's)."""
    cards: list[dict] = []
    ids: list[list[int]] = []
    for pile in piles:
        ids.append([])
        for c in pile:
            ids[-1].append(len(cards))
            cards.append(c)
    pot_ids = []
    for c in pot:
        pot_ids.append(len(cards))
        cards.append(c)
    spec = Deck.model_validate({"name": deck, "cards": cards})
    return G.start_from(seed, ids, pot_ids, chooser, {"deck_data": spec, **opts}, rules=rules)


def act(state, code: str):
    """The one seat to act plays the action ``code``; returns the engine's step."""
    (seat,) = G.to_act(state)
    return G.apply(state, {seat: G.decode(code)})


def laps_table(rules: int, cap: int = 10):
    """4 players, 20 shop cards each with distinct years (no tie, nobody out for 19 rounds)."""
    years = iter(range(1100, 2100, 7))
    piles = [[shop(year=next(years)) for _ in range(20)] for _ in range(4)]
    return start(piles, chooser=0, rules=rules, round_cap=cap)
