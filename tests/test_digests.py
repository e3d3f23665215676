"""Every game plays the very same games from a seed and a log, under every rules version: seeded
games are hashed step by step and compared with the digests recorded in
``tests/data_speed/<game>-r<N>.json``, one file per game and rules version.

A file's ``method`` says how its games are played and hashed, through the engine contract
(``setup``, ``to_act``, ``legal_actions``, ``apply``, ``ai_action``, views, codecs):

- ``steps``: each case plays its ``seeds`` with ``players`` seats, the game set up under the
  current rules version and its state then given the file's (a table of that version); the
  ``policy`` is ``random`` (a uniformly random legal action from
  ``random.Random(f"speed-digest:{seed}")``) or ``ai`` (the baseline AI). At every step: who acts,
  every seat's legal codes in order, the snapshot (``dump_state``), the views (the public one and
  each seat's; every step before state version 500, then every 20th and the last), the actions,
  the events and the outcome. One SHA-256 per case.
- ``games``: each configuration (seats and table options) plays games ``g`` = 0, 1, ... with
  seed ``1000 + 7919 g``, set up under the file's rules version; at every step the snapshot,
  who acts, every view, each acting seat's legal codes and the AI's choice, then the AI's choice
  or a random legal action, half and half, from ``random.Random(f"{tag}:r{N}-{config}:{g}")``,
  the events, and the outcome at the end (events without the parameters added after the
  recording: :mod:`tests.recorded_events`). One SHA-256 per game; the suite replays the first
  game of each configuration (of those the file lists in ``suite``, when it has that key).

The digests were recorded before the engines were made faster, each rules version when it was
added; never re-record a file to make a failure pass (a change to a baseline AI on purpose is
first checked against the digests with the old AI, then its files are re-recorded). Run alone::

    .venv/bin/python -m tests.test_digests --all              # every recorded game
    .venv/bin/python -m tests.test_digests --record-new       # a file for each new rules version
    .venv/bin/python -m tests.test_digests --record FILE ...  # re-record files (e.g. gang-of-dice-r3)

``--record-new`` writes, for each game whose current rules version has no file yet, the cases of
its latest file played under the new version.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import random
import re
import sys
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from bot.games import GAMES
from engine.core import Game
from tests.recorded_events import as_recorded

DATA = Path(__file__).parent / "data_speed"
#: ``steps`` files: views are hashed at every step before this state version, then every ``VIEW_EVERY``.
VIEW_ALL_BELOW, VIEW_EVERY = 500, 20
#: ``games`` files: the games of each configuration that the suite replays.
IN_SUITE = 1


def recorded() -> list[tuple[str, int]]:
    """``(game key, rules version)`` of every data file, in order."""
    found = [re.fullmatch(r"(.+)-r(\d+)\.json", p.name) for p in DATA.glob("*.json")]
    return sorted((m[1], int(m[2])) for m in found if m is not None)


def path_of(key: str, rules: int) -> Path:
    return DATA / f"{key}-r{rules}.json"


@cache
def load(key: str, rules: int) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path_of(key, rules).read_text())
    return data


@cache
def game_at(key: str, rules: int) -> Game[Any, Any, Any]:
    """``GAMES[key]``, or its game at the older rules version ``rules`` (what ``setup`` deals for
    a table set up under that version)."""
    game = GAMES[key].game
    if rules == game.rules_version:
        return game
    older: Any = type(f"{type(game).__name__}Rules{rules}", (type(game),), {"rules_version": rules})
    made: Game[Any, Any, Any] = older()
    return made


def _json(value: Any) -> bytes:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), default=list).encode()


def _records(game: Game[Any, Any, Any], players: int, rules: int, policy: str, seed: int) -> Iterator[Any]:
    """Everything observable of one game of a ``steps`` case, step by step (JSON values)."""
    rng = random.Random(f"speed-digest:{seed}")
    state = game.setup(seed, players, {})
    if state.rules != rules:  # an older rules version: a table set up before the bump
        state = dataclasses.replace(state, rules=rules)
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
            "events": [as_recorded(e) for e in step.events],
        }
        state = step.state


def steps_digest(key: str, rules: int, case: dict[str, Any]) -> str:
    """SHA-256 of the games of a ``steps`` case (see the module docstring)."""
    h = hashlib.sha256()
    for seed in case["seeds"]:
        for record in _records(GAMES[key].game, case["players"], rules, case["policy"], seed):
            h.update(json.dumps(record, sort_keys=True, separators=(",", ":")).encode())
            h.update(b"\n")
    return h.hexdigest()


def game_digest(key: str, rules: int, tag: str, name: str, config: dict[str, Any], g: int) -> str:
    """SHA-256 of game ``g`` of configuration ``name`` of a ``games`` file (see the module
    docstring)."""
    game = game_at(key, rules)
    rng = random.Random(f"{tag}:r{rules}-{name}:{g}")
    h = hashlib.sha256()
    state = game.setup(1000 + g * 7919, config["players"], config["options"])
    h.update(_json([as_recorded(e) for e in game.opening_events(state)]))
    while True:
        h.update(_json(game.dump_state(state)))
        acting = sorted(game.to_act(state))
        h.update(_json(acting))
        h.update(_json([game.view_json(state, None)] + [game.view_json(state, s) for s in range(state.players)]))
        if not acting:
            break
        actions = {}
        for seat in acting:
            legal = game.legal_actions(state, seat)
            h.update(_json([game.encode(a) for a in legal]))
            ai = game.ai_action(state, seat)
            h.update(game.encode(ai).encode())
            actions[seat] = ai if rng.random() < 0.5 else rng.choice(legal)
        h.update(_json({s: game.encode(a) for s, a in actions.items()}))
        step = game.apply(state, actions)
        h.update(_json([as_recorded(e) for e in step.events]))
        state = step.state
    out = game.outcome(state)
    h.update(_json([list(out.ranks), list(out.scores)]))
    return h.hexdigest()


def replays(key: str, rules: int, games: int | None) -> Iterator[tuple[str, str, Any]]:
    """``(case id, recorded digest, how to compute it)`` of a file: every ``steps`` case, and the
    first ``games`` games of each ``games`` configuration of the file's ``suite`` (``None``:
    every recorded game of every configuration)."""
    data = load(key, rules)
    if data["method"] == "steps":
        for name, case in data["cases"].items():
            yield name, case["digest"], (steps_digest, key, rules, case)
    else:
        suite = data.get("suite", data["configs"]) if games is not None else data["configs"]
        for name, config in data["configs"].items():
            if name not in suite:
                continue
            for g, want in enumerate(config["digests"][:games]):
                yield f"{name}-g{g}", want, (game_digest, key, rules, data["tag"], name, config, g)


@pytest.mark.parametrize(("want", "how"), [
    pytest.param(want, how, id=f"{key}-r{rules}-{case}")
    for key, rules in recorded() for case, want, how in replays(key, rules, IN_SUITE)])
def test_recorded_games_play_the_same(want: str, how: tuple[Any, ...]) -> None:
    """Each game and rules version: the same seeds and actions give the same states, legal
    actions, views, events, AI choices and outcomes as when the digests were recorded."""
    digest, *args = how
    assert digest(*args) == want


def test_a_game_with_digests_has_those_of_its_current_rules_version() -> None:
    """A rules version bump records its file (``--record-new``)."""
    files = recorded()
    missing = [(key, game.rules_version) for key, game in ((k, spec.game) for k, spec in GAMES.items())
               if any(k == key for k, _ in files) and (key, game.rules_version) not in files]
    assert not missing


def record(key: str, rules: int, plan: dict[str, Any]) -> None:
    """Write ``<key>-r<rules>.json``: the cases of ``plan`` (a data file's contents) played under
    rules version ``rules``."""
    data = json.loads(json.dumps(plan))
    if data["method"] == "steps":
        for case in data["cases"].values():
            case["digest"] = steps_digest(key, rules, case)
    else:
        for name, config in data["configs"].items():
            config["digests"] = [game_digest(key, rules, data["tag"], name, config, g)
                                 for g in range(data["games_per_config"])]
    path_of(key, rules).write_text(json.dumps(data, indent=1) + "\n")
    print(f"recorded {path_of(key, rules)}")


def main(argv: list[str]) -> int:
    if argv[:1] == ["--record-new"]:
        for key, game in ((k, spec.game) for k, spec in GAMES.items()):
            versions = [r for k, r in recorded() if k == key]
            if versions and game.rules_version not in versions:
                record(key, game.rules_version, load(key, max(versions)))
        return 0
    if argv[:1] == ["--record"] and argv[1:]:
        for stem in argv[1:]:
            key, rules = stem.rsplit("-r", 1)
            record(key, int(rules), load(key, int(rules)))
        return 0
    if argv != ["--all"]:
        print(__doc__)
        return 2
    bad = 0
    for key, rules in recorded():
        checked = 0
        for case, want, (digest, *args) in replays(key, rules, None):
            checked += 1
            if digest(*args) != want:
                bad += 1
                print(f"MISMATCH {key}-r{rules} {case}")
        print(f"{key} rules {rules}: {checked} checked")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
