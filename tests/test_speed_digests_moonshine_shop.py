"""Speed work must not change a single outcome: seeded random games of Moonshine and Shop Battle,
under every rules version and seat count, give the same states, events, legal actions (in order), views and AI
choices as the code had before the engines were made faster (issue 11, part 1).

``tests/data_speed/<game>.json`` holds one SHA-256 digest per game, recorded with the code as
it was before that work (``python -m tests.test_speed_digests_moonshine_shop --record``; never re-record to
make a failure pass; the AI choices are part of each game, so when the normal AI changes on
purpose, first check the engines against the old digests with the old ``ai.py``, then re-record).
The test replays the first few games of every configuration; the module
run alone checks them all::

    .venv/bin/python -m tests.test_speed_digests_moonshine_shop [GAME]   # every recorded game (of GAME)
"""

from __future__ import annotations

import hashlib
import json
import random
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from engine.moonshine import Moonshine, phases
from engine.shop_battle import ShopBattle, shuffled_deal

DATA = Path(__file__).parent / "data_speed"
#: Games per configuration in the fixture, and how many of them the test suite replays.
RECORDED, IN_SUITE = 12, 1

MOONSHINE = Moonshine()
SHOP = ShopBattle()


def _moonshine_configs() -> Iterator[tuple[str, Callable[[int], Any]]]:
    for rules in (1, 2):
        for variant in ("standard", "regular"):
            for players in range(2, 6):
                def make(seed: int, players: int = players, variant: Any = variant, rules: int = rules) -> Any:
                    return phases.deal(seed, players, variant, rules)
                yield f"r{rules}-{variant}-{players}p", make


def _shop_configs() -> Iterator[tuple[str, Callable[[int], Any]]]:
    for rules in (1, 2):
        for cap in (30, 10, None):
            for players in range(2, 7):
                def make(seed: int, players: int = players, cap: int | None = cap, rules: int = rules) -> Any:
                    opts = {"round_cap": cap}
                    piles, pot, chooser = shuffled_deal(seed, _deck_size(), players)
                    return SHOP.start_from(seed, piles, pot, chooser=chooser, options=opts, rules=rules)
                yield f"r{rules}-cap{cap}-{players}p", make


def _deck_size() -> int:
    from engine.shop_battle import default_deck

    return len(default_deck().cards)


GAMES: dict[str, tuple[Any, Callable[[], Iterator[tuple[str, Callable[[int], Any]]]]]] = {
    "moonshine": (MOONSHINE, _moonshine_configs),
    "shop-battle": (SHOP, _shop_configs),
}


def _j(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=list, separators=(",", ":"))


def game_digest(game: Any, make: Callable[[int], Any], seed: int, tag: str) -> str:
    """SHA-256 of one seeded random game: at every step the dumped state, ``to_act``, each acting
    seat's legal codes (in order) and AI choice, the public and every seat's view, the actions
    played (the AI's choice or a random legal one, half and half, from ``Random(tag)``), the
    events (key, params, audience) and the outcome."""
    rng = random.Random(tag)
    h = hashlib.sha256()
    state = make(seed)
    h.update(_j([[e.key, e.params, sorted(e.audience) if e.audience is not None else None]
                 for e in game.opening_events(state)]).encode())
    while True:
        h.update(_j(game.dump_state(state)).encode())
        acting = sorted(game.to_act(state))
        h.update(_j(acting).encode())
        views = [game.view_json(state, None)] + [game.view_json(state, s) for s in range(state.players)]
        h.update(_j(views).encode())
        if not acting:
            break
        actions = {}
        for seat in acting:
            legal = game.legal_actions(state, seat)
            h.update(_j([game.encode(a) for a in legal]).encode())
            ai = game.ai_action(state, seat)
            h.update(game.encode(ai).encode())
            actions[seat] = ai if rng.random() < 0.5 else rng.choice(legal)
        h.update(_j({s: game.encode(a) for s, a in actions.items()}).encode())
        step = game.apply(state, actions)
        h.update(_j([[e.key, e.params, sorted(e.audience) if e.audience is not None else None]
                     for e in step.events]).encode())
        state = step.state
    out = game.outcome(state)
    h.update(_j([list(out.ranks), list(out.scores)]).encode())
    return h.hexdigest()


def digests(key: str, games: int) -> dict[str, list[str]]:
    """``{config: [digest of game 0, 1, ...]}`` for the first ``games`` games of each config."""
    game, configs = GAMES[key]
    out = {}
    for name, make in configs():
        out[name] = [game_digest(game, make, 1000 + g * 7919, f"{key}:{name}:{g}") for g in range(games)]
    return out


def _cases() -> list[tuple[str, str, int]]:
    return [(key, name, g) for key, (_, configs) in GAMES.items() for name, _ in configs() for g in range(IN_SUITE)]


@pytest.mark.parametrize(("key", "config", "g"), _cases())
def test_seeded_games_unchanged(key: str, config: str, g: int) -> None:
    recorded = json.loads((DATA / f"{key}.json").read_text())["digests"][config]
    game, configs = GAMES[key]
    make = dict(configs())[config]
    assert game_digest(game, make, 1000 + g * 7919, f"{key}:{config}:{g}") == recorded[g]


def main(argv: list[str]) -> int:
    record = "--record" in argv
    only = [a for a in argv if not a.startswith("--")] or list(GAMES)
    bad = 0
    for key in only:
        got = digests(key, RECORDED)
        path = DATA / f"{key}.json"
        if record:
            DATA.mkdir(exist_ok=True)
            path.write_text(json.dumps({"games_per_config": RECORDED, "digests": got}, indent=1) + "\n")
            print(f"recorded {path}")
            continue
        bad += mismatches(got, json.loads(path.read_text())["digests"], key)
    return 1 if bad else 0


def mismatches(got: dict[str, list[str]], want: dict[str, list[str]], label: str) -> int:
    """Print every game whose digest differs from the recorded one, and how many games were
    checked; returns the number of mismatches."""
    bad = 0
    for name, ds in got.items():
        for g, (a, b) in enumerate(zip(ds, want[name], strict=True)):
            if a != b:
                bad += 1
                print(f"MISMATCH {label} {name} game {g}")
    print(f"{label}: {sum(len(v) for v in got.values())} games checked")
    return bad


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
