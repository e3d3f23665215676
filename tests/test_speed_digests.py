"""Engine speed work changes no game outcome: digests of seeded games against recorded ones.

The fixtures in ``tests/data_speed/<game>.json`` were recorded with the engines *before* the
speed work of issue 11 (part 1). Each case plays a few seeded games (uniformly random legal
actions from a local ``random.Random``, and AI-only games) and hashes, at every step: who acts,
every seat's legal actions in order (as codes), the JSON snapshot (``dump_state``), every view
(public and each seat, ``view_json``), the step's events (key, parameters, audience) and the
outcome. A faster engine must give the very same digests, for every rules version.

The ``ai`` cases also pin the baseline AIs' choices: when a baseline is changed on purpose
(issue 11, part 4), re-record only those with ``python -m tests.test_speed_digests --record ai``.
The ``random`` cases must never be re-recorded without a rules-version bump; a new rules version
gets new cases, recorded alone with ``python -m tests.test_speed_digests --record-new`` (it writes
only the cases that have no digest yet).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import random
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bot.games import GAMES
from engine.core import Game

DATA = Path(__file__).parent / "data_speed"

#: (game key, players, rules version, policy, seeds). Random Moon games often run to the
#: 200-hand safety cap (seed 1 does): their views are hashed on a sample of the steps only.
CASES: tuple[tuple[str, int, int, str, tuple[int, ...]], ...] = (
    ("gang-of-dice", 2, 1, "random", (1, 2)),
    ("gang-of-dice", 3, 1, "random", (3, 4)),
    ("gang-of-dice", 4, 1, "random", (5, 6)),
    ("gang-of-dice", 2, 2, "random", (7, 8)),
    ("gang-of-dice", 3, 2, "random", (9, 10, 11)),
    ("gang-of-dice", 4, 2, "random", (12, 13)),
    ("gang-of-dice", 3, 1, "ai", (14,)),
    ("gang-of-dice", 3, 2, "ai", (15, 16)),
    ("gang-of-dice", 4, 2, "ai", (17,)),
    # rules 3 (a cheaper chance derivation, issue 11 part 1): recorded after that change
    ("gang-of-dice", 2, 3, "random", (18, 19)),
    ("gang-of-dice", 3, 3, "random", (20, 21)),
    ("gang-of-dice", 4, 3, "random", (22,)),
    ("gang-of-dice", 3, 3, "ai", (23,)),
    ("three-player-moon", 3, 1, "random", (8, 9, 11, 1)),
    ("three-player-moon", 3, 1, "ai", (1, 2)),
)
#: Views are hashed at every step before this version, then every ``VIEW_EVERY`` steps.
VIEW_ALL_BELOW, VIEW_EVERY = 500, 20


def _case_id(key: str, players: int, rules: int, policy: str) -> str:
    return f"{key}-p{players}-r{rules}-{policy}"


def _setup(game: Game[Any, Any, Any], seed: int, players: int, rules: int) -> Any:
    state = game.setup(seed, players, {})
    if state.rules != rules:  # an older rules version: a table set up before the bump
        state = dataclasses.replace(state, rules=rules)
    return state


def _records(game: Game[Any, Any, Any], players: int, rules: int, policy: str, seed: int) -> Iterator[Any]:
    """Everything observable of one seeded game, step by step (JSON values)."""
    rng = random.Random(f"speed-digest:{seed}")
    state = _setup(game, seed, players, rules)
    while True:
        acting = sorted(game.to_act(state))
        out = game.outcome(state)
        yield {
            "to_act": acting,
            "legal": [[game.encode(a) for a in game.legal_actions(state, s)] for s in range(players)],
            "state": game.dump_state(state),
            "views": [game.view_json(state, None)] + [game.view_json(state, s) for s in range(players)]
            if state.version < VIEW_ALL_BELOW or state.version % VIEW_EVERY == 0 or not acting else None,
            "outcome": None if out is None else [list(out.ranks), list(out.scores)],
        }
        if not acting:
            return
        if policy == "random":
            actions = {s: rng.choice(game.legal_actions(state, s)) for s in acting}
        else:
            actions = {s: game.ai_action(state, s) for s in acting}
        step = game.apply(state, actions)
        yield {
            "actions": {str(s): game.encode(a) for s, a in actions.items()},
            "events": [[e.key, e.params, None if e.audience is None else sorted(e.audience)] for e in step.events],
        }
        state = step.state


def digest(key: str, players: int, rules: int, policy: str, seeds: tuple[int, ...]) -> str:
    """SHA-256 of every record of the seeded games of one case."""
    game = GAMES[key].game
    h = hashlib.sha256()
    for seed in seeds:
        for record in _records(game, players, rules, policy, seed):
            h.update(json.dumps(record, sort_keys=True, separators=(",", ":")).encode())
            h.update(b"\n")
    return h.hexdigest()


def _recorded(key: str) -> dict[str, str]:
    data: dict[str, str] = json.loads((DATA / f"{key}.json").read_text())
    return data


@pytest.mark.parametrize(("key", "players", "rules", "policy", "seeds"), CASES,
                         ids=[_case_id(*c[:4]) for c in CASES])
def test_digest_unchanged(key: str, players: int, rules: int, policy: str, seeds: tuple[int, ...]) -> None:
    """The same seeds and actions give the same states, events, legal actions and views."""
    assert digest(key, players, rules, policy, seeds) == _recorded(key)[_case_id(key, players, rules, policy)]


def _record(policies: set[str], only_new: bool = False) -> None:
    """Write (or update) the fixtures of ``policies`` from the current engines; with
    ``only_new``, only the cases that have no digest yet (the others are left untouched)."""
    DATA.mkdir(exist_ok=True)
    for key in sorted({c[0] for c in CASES}):
        path = DATA / f"{key}.json"
        data = json.loads(path.read_text()) if path.exists() else {}
        for k, players, rules, policy, seeds in CASES:
            case = _case_id(k, players, rules, policy)
            if k == key and policy in policies and not (only_new and case in data):
                data[case] = digest(k, players, rules, policy, seeds)
        path.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n")


if __name__ == "__main__":
    if sys.argv[1:] == ["--record-new"]:
        _record({"random", "ai"}, only_new=True)
    elif sys.argv[1:2] != ["--record"] or not set(sys.argv[2:]) <= {"random", "ai"} or not sys.argv[2:]:
        raise SystemExit("usage: python -m tests.test_speed_digests --record ai|random ... | --record-new")
    else:
        _record(set(sys.argv[2:]))
