"""Moonshine rules 3 (the default, the second card set) plays the very same seeded games as
before its engine was made faster (issue 11, part 1): the rules-1/2 digests of
``tests/test_speed_digests_moonshine_shop.py`` do not cover rules 3.

``tests/data_speed/moonshine-r3.json`` holds one SHA-256 digest per game (the same
:func:`~tests.test_speed_digests_moonshine_shop.game_digest`: states, events, legal actions in
order, views, AI choices), recorded with the engine of commit 94a517b, before that speed work
(``python -m tests.test_speed_digests_moonshine_r3 --record``; never re-record to make a failure
pass). The suite replays the first game of every configuration; the module run alone checks all::

    .venv/bin/python -m tests.test_speed_digests_moonshine_r3
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from engine.moonshine import phases
from tests.test_speed_digests_moonshine_shop import MOONSHINE, game_digest

PATH = Path(__file__).parent / "data_speed" / "moonshine-r3.json"
#: Games per configuration in the fixture, and how many of them the test suite replays.
RECORDED, IN_SUITE = 6, 1


def configs() -> Iterator[tuple[str, Callable[[int], Any]]]:
    """``(name, make(seed) -> state)`` of every rules-3 configuration (variant, seat count)."""
    for variant in ("standard", "regular"):
        for players in range(2, 6):
            def make(seed: int, players: int = players, variant: Any = variant) -> Any:
                return phases.deal(seed, players, variant, 3)
            yield f"r3-{variant}-{players}p", make


def digests(games: int) -> dict[str, list[str]]:
    """``{config: [digest of game 0, 1, ...]}`` for the first ``games`` games of each config."""
    return {name: [game_digest(MOONSHINE, make, 1000 + g * 7919, f"moonshine:{name}:{g}") for g in range(games)]
            for name, make in configs()}


@pytest.mark.parametrize("config", [name for name, _ in configs()])
def test_seeded_rules_3_games_unchanged(config: str) -> None:
    recorded = json.loads(PATH.read_text())["digests"][config]
    make = dict(configs())[config]
    for g in range(IN_SUITE):
        assert game_digest(MOONSHINE, make, 1000 + g * 7919, f"moonshine:{config}:{g}") == recorded[g]


def main(argv: list[str]) -> int:
    got = digests(RECORDED)
    if "--record" in argv:
        PATH.write_text(json.dumps({"games_per_config": RECORDED, "digests": got}, indent=1) + "\n")
        print(f"recorded {PATH}")
        return 0
    want = json.loads(PATH.read_text())["digests"]
    bad = [(name, g) for name, ds in got.items() for g, (a, b) in enumerate(zip(ds, want[name], strict=True)) if a != b]
    for name, g in bad:
        print(f"MISMATCH {name} game {g}")
    print(f"moonshine rules 3: {sum(len(v) for v in got.values())} games checked")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
