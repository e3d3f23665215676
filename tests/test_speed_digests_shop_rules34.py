"""Shop Battle rules 3 and 4 (the default) must play the very same games after the speed work of
issue 11 part 1, as :mod:`tests.test_speed_digests_moonshine_shop` checks rules 1 and 2.

``tests/data_speed/shop-battle-r34.json`` holds one SHA-256 digest per seeded random game
(:func:`tests.test_speed_digests_moonshine_shop.game_digest`: states, ``to_act``, legal codes in
order, AI choices, views, events, outcome), recorded with the engine as it was before that work
(each deal drawn under the game's own rules version). Never re-record to make a failure pass.
The suite replays the first game of each rules-4 configuration and of rules 3 at cap 10; the
module run alone checks every recorded game::

    .venv/bin/python -m tests.test_speed_digests_shop_rules34
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from engine.shop_battle import ShopBattle, default_deck, shuffled_deal
from tests.test_speed_digests_moonshine_shop import game_digest

DATA = Path(__file__).parent / "data_speed" / "shop-battle-r34.json"
IN_SUITE = 1
SHOP = ShopBattle()


def configs() -> Iterator[tuple[str, Callable[[int], Any]]]:
    """``(name, make)`` for rules 3-4, caps 30/10/none, 2-6 players (``make(seed)`` deals)."""
    cards = len(default_deck().cards)
    for rules in (3, 4):
        for cap in (30, 10, None):
            for players in range(2, 7):
                def make(seed: int, players: int = players, cap: int | None = cap, rules: int = rules) -> Any:
                    piles, pot, chooser = shuffled_deal(seed, cards, players, rules)
                    return SHOP.start_from(seed, piles, pot, chooser=chooser, options={"round_cap": cap}, rules=rules)
                yield f"r{rules}-cap{cap}-{players}p", make


def _digest(name: str, make: Callable[[int], Any], g: int) -> str:
    return game_digest(SHOP, make, 1000 + g * 7919, f"shop:{name}:{g}")


#: Replayed by the suite (to keep it quick): every rules-4 configuration, rules 3 at cap 10.
IN_SUITE_CONFIGS = [name for name, _ in configs() if name.startswith("r4-") or "-cap10-" in name]


@pytest.mark.parametrize("name", IN_SUITE_CONFIGS)
def test_seeded_games_unchanged(name: str) -> None:
    recorded = json.loads(DATA.read_text())["digests"][name]
    make = dict(configs())[name]
    for g in range(IN_SUITE):
        assert _digest(name, make, g) == recorded[g], f"{name} game {g}"


def main() -> int:
    recorded = json.loads(DATA.read_text())["digests"]
    bad = [f"{name}:{g}" for name, make in configs() for g, want in enumerate(recorded[name])
           if _digest(name, make, g) != want]
    print("every game unchanged" if not bad else f"changed: {', '.join(bad)}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
