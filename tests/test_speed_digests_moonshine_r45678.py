"""Moonshine rules 4 to 8 play the very same seeded games as recorded (issue 11, part 1).

``tests/data_speed/moonshine-r4.json`` was recorded with the engine of commit 4dedb6c, before the
second round of speed work (lazy events, memoized bundles, the rules-5 dice); a faster engine must
play rules 4 exactly as it did. ``tests/data_speed/moonshine-r5.json`` pins rules 5 (the rules-4
Clients and rules, the rules-5 Speakeasy sides, dice and reshuffles from
:func:`engine.chance.hashed_draws`), recorded once the rules-5 card set was added, before rules 5
shipped; ``moonshine-r6.json`` pins rules 6 (the rules-5 game with the rules-6 Standard Moonlit
Garage), recorded when rules 6 was added; ``moonshine-r7.json`` rules 7 (the rules-6 game with the
rules-7 Regular Copper Still), recorded when rules 7 was added; ``moonshine-r8.json`` rules 8 (the
rules-7 game with the rules-8 Regular Hush Room), recorded when rules 8 was added. Same digest as the other Moonshine fixtures
(:func:`~tests.test_speed_digests_moonshine_shop.game_digest`: states, events, legal actions in
order, views, AI choices); never re-record to make a failure pass. The suite replays the first
game of every configuration; the module run alone checks all::

    .venv/bin/python -m tests.test_speed_digests_moonshine_r45678 [--record 4|5|6|7|8]
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from engine.moonshine import phases
from tests.test_speed_digests_moonshine_shop import MOONSHINE, game_digest, mismatches

DATA = Path(__file__).parent / "data_speed"
#: Games per configuration in the fixtures, and how many of them the test suite replays.
RECORDED, IN_SUITE = 6, 1
RULES = (4, 5, 6, 7, 8)


def configs(rules: int) -> Iterator[tuple[str, Callable[[int], Any]]]:
    """``(name, make(seed) -> state)`` of every configuration (variant, seat count) of ``rules``."""
    for variant in ("standard", "regular"):
        for players in range(2, 6):
            def make(seed: int, players: int = players, variant: Any = variant) -> Any:
                return phases.deal(seed, players, variant, rules)
            yield f"r{rules}-{variant}-{players}p", make


def digests(rules: int, games: int) -> dict[str, list[str]]:
    """``{config: [digest of game 0, 1, ...]}`` for the first ``games`` games of each config."""
    return {name: [game_digest(MOONSHINE, make, 1000 + g * 7919, f"moonshine:{name}:{g}") for g in range(games)]
            for name, make in configs(rules)}


@pytest.mark.parametrize(("rules", "config"), [(r, name) for r in RULES for name, _ in configs(r)])
def test_seeded_games_unchanged(rules: int, config: str) -> None:
    recorded = json.loads((DATA / f"moonshine-r{rules}.json").read_text())["digests"][config]
    make = dict(configs(rules))[config]
    for g in range(IN_SUITE):
        assert game_digest(MOONSHINE, make, 1000 + g * 7919, f"moonshine:{config}:{g}") == recorded[g]


def main(argv: list[str]) -> int:
    if "--record" in argv:
        rules = int(argv[argv.index("--record") + 1])
        path = DATA / f"moonshine-r{rules}.json"
        path.write_text(json.dumps({"games_per_config": RECORDED, "digests": digests(rules, RECORDED)}, indent=1) + "\n")
        print(f"recorded {path}")
        return 0
    bad = 0
    for rules in RULES:
        want = json.loads((DATA / f"moonshine-r{rules}.json").read_text())["digests"]
        bad += mismatches(digests(rules, RECORDED), want, f"moonshine rules {rules}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
