"""Run the shared conformance suite (tests/conformance.py) on every registered game.

Games are read from ``bot.games.GAMES`` at collection time, so a newly registered game is
covered automatically: every seat count in ``[min_players, max_players]``, every option dict of
``Game.conformance_options``, a few seeds. Test ids look like ``gang-of-dice-p3-o0-s2`` so that
``-k gang-of-dice`` runs one game only.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import pytest

from bot.games import GAMES
from engine.core import Action, Game, GameOptions, IllegalAction, Outcome, State, Step, View, ranks_from_scores
from engine.fast import replace_state
from tests.conformance import check_game, check_levels, checked_indices, random_playout

#: Large seeds, so that "the seed value never appears in a view" is a meaningful check.
SEEDS = (1_000_003, 2_718_281_828, 31_415_926_535)



def _cases():
    for key, game in sorted((k, spec.game) for k, spec in GAMES.items()):
        for players in range(game.min_players, game.max_players + 1):
            for o, options in enumerate(game.conformance_options):
                for s, seed in enumerate(SEEDS):
                    yield pytest.param(key, players, options, seed, id=f"{key}-p{players}-o{o}-s{s}")


@pytest.mark.parametrize("key", sorted(GAMES))
def test_registry_entry(key: str) -> None:
    game = GAMES[key].game
    assert isinstance(game, Game)
    assert game.key == key
    assert 1 <= game.min_players <= game.max_players
    assert issubclass(game.state_model, State) and dataclasses.is_dataclass(game.state_model)
    assert issubclass(game.options_model, GameOptions)
    assert game.conformance_options, "conformance_options needs at least one option dict"
    for options in game.conformance_options:
        game.parse_options(options)  # valid options
    with pytest.raises(ValueError):
        game.setup(1, game.max_players + 1)
    with pytest.raises(ValueError):
        game.setup(1, game.min_players - 1)


@pytest.mark.parametrize(("key", "players", "options", "seed"), list(_cases()))
def test_conformance(key: str, players: int, options: dict, seed: int) -> None:
    check_game(GAMES[key].game, players, seed, options)


@pytest.mark.parametrize(("key", "options"), [
    pytest.param(key, options, id=f"{key}-o{o}")
    for key, game in sorted((k, spec.game) for k, spec in GAMES.items()) for o, options in enumerate(game.conformance_options)
])
def test_levels(key: str, options: dict) -> None:
    """Every AI level's moves are legal and deterministic (a few states of one playout)."""
    game = GAMES[key].game
    players = min(max(game.min_players, 3), game.max_players)
    trace = random_playout(game, players, SEEDS[0], options)
    check_levels(trace, checked_indices(trace, 6))


# --- the suite checks itself on a toy game -------------------------------------------------------
#
# The toy follows the engine contract like the real games: frozen slotted dataclass state
# (core.State), dataclass actions (core.Action), typed views (core.View), Game[S, A, V].


@dataclass(frozen=True, slots=True, kw_only=True)
class _ToyState(State):
    cards: tuple[int, ...]  # hidden: one card per seat
    bids: tuple[int, ...] = ()
    rounds: int = 0


@dataclass(frozen=True, slots=True)
class _Bid(Action):
    n: int  # 0, 1 or 2; code ``b<n>``


@dataclass(frozen=True, slots=True)
class _ToyView(View):
    bids: tuple[int, ...]
    rounds: int
    card: int | None  # the viewer's own card (None in the public view)


_BIDS = (_Bid(0), _Bid(1), _Bid(2))


class _Toy(Game[_ToyState, _Bid, View]):
    """Simultaneous toy game: 3 rounds, every seat bids 0-2 at once; score = bids x own card."""

    key = "toy"
    min_players = 2
    max_players = 3
    state_model = _ToyState

    def setup(self, seed: int, players: int, options: GameOptions | Mapping[str, Any] | None = None) -> _ToyState:
        if not self.min_players <= players <= self.max_players:
            raise ValueError("seat count")
        rng = random.Random(f"{seed}:deal")
        return _ToyState(seed=seed, players=players, rules=self.rules_version,
                         cards=tuple(rng.randint(1, 9) for _ in range(players)), bids=(0,) * players)

    def to_act(self, state: _ToyState) -> frozenset[int]:
        return frozenset() if state.rounds >= 3 else frozenset(range(state.players))

    def legal_actions(self, state: _ToyState, seat: int) -> tuple[_Bid, ...]:
        return _BIDS if seat in self.to_act(state) else ()

    def apply(self, state: _ToyState, actions: Mapping[int, _Bid]) -> Step[_ToyState]:
        self.check_actions(state, actions)
        bids = tuple(b + actions[s].n for s, b in enumerate(state.bids))
        return Step(replace_state(state, bids=bids, rounds=state.rounds + 1, version=state.version + 1))

    def view(self, state: _ToyState, seat: int | None) -> View:
        return _ToyView(bids=state.bids, rounds=state.rounds, card=None if seat is None else state.cards[seat])

    def hidden_variant(self, state: _ToyState, seat: int | None, salt: int) -> _ToyState:
        cards = tuple(c if s == seat else (c + salt) % 9 + 1 for s, c in enumerate(state.cards))
        return replace_state(super().hidden_variant(state, seat, salt), cards=cards)

    def outcome(self, state: _ToyState) -> Outcome | None:
        if state.rounds < 3:
            return None
        scores = tuple(b * c for b, c in zip(state.bids, state.cards, strict=True))
        return Outcome(ranks_from_scores([(s,) for s in scores]), scores)

    def ai_action(self, state: _ToyState, seat: int) -> _Bid:
        return _BIDS[2]

    def encode(self, action: _Bid) -> str:
        return f"b{action.n}"

    def decode(self, code: str) -> _Bid:
        if code not in ("b0", "b1", "b2"):
            raise IllegalAction("malformed")
        return _BIDS[int(code[1])]


@dataclass(frozen=True, slots=True)
class _LeakyView(View):
    bids: tuple[int, ...]
    rounds: int
    card: int | None
    cards: tuple[int, ...]  # every seat's hidden card: a leak


class _Leaky(_Toy):
    def view(self, state: _ToyState, seat: int | None) -> View:
        own = None if seat is None else state.cards[seat]
        return _LeakyView(bids=state.bids, rounds=state.rounds, card=own, cards=state.cards)


@dataclass(frozen=True, slots=True)
class _SeedView(View):
    bids: tuple[int, ...]
    meta: Mapping[str, int]  # holds the seed: forbidden


class _SeedInView(_Toy):
    def view(self, state: _ToyState, seat: int | None) -> View:
        return _SeedView(bids=state.bids, meta={"seed": state.seed})


class _NoBump(_Toy):
    def apply(self, state: _ToyState, actions: Mapping[int, _Bid]) -> Step[_ToyState]:
        step = super().apply(state, actions)
        return Step(replace_state(step.state, version=state.version))


class _Lenient(_Toy):
    def apply(self, state: _ToyState, actions: Mapping[int, _Bid]) -> Step[_ToyState]:
        if set(actions) != set(self.to_act(state)):
            actions = {s: _BIDS[0] for s in self.to_act(state)}
        return super().apply(state, actions)


class _LenientDecode(_Toy):
    def decode(self, code: str) -> _Bid:
        return _BIDS[int(code[-1]) % 3 if code and code[-1].isdigit() else 0]


class _BadAI(_Toy):
    def ai_action(self, state: _ToyState, seat: int) -> _Bid:
        return _Bid(7)


class _Endless(_Toy):
    def to_act(self, state: _ToyState) -> frozenset[int]:
        return frozenset(range(state.players))

    def outcome(self, state: _ToyState) -> Outcome | None:
        return None


def test_the_toy_is_on_the_dataclass_contract() -> None:
    game = _Toy()
    state = game.setup(1_234_567, 2)
    assert isinstance(state, State) and state.rules == game.rules_version
    step = game.apply(state, {0: _Bid(2), 1: _Bid(1)})
    assert step.state.bids == (2, 1) and step.state.version == 1
    assert state.bids == (0, 0), "apply must not change the old state"
    assert game.view_json(step.state, 0) == {"bids": [2, 1], "rounds": 1, "card": state.cards[0]}
    assert game.view_json(step.state, None)["card"] is None
    assert game.load_state(game.dump_state(step.state)) == step.state


def test_suite_accepts_a_conforming_toy() -> None:
    check_game(_Toy(), 3, 1_234_567, max_steps=50)


@pytest.mark.parametrize(
    ("game", "message"),
    [
        (_Leaky(), "leaks hidden information"),
        (_SeedInView(), "'seed' key"),
        (_NoBump(), "version must grow"),
        (_Lenient(), "must raise IllegalAction"),
        (_LenientDecode(), "decode"),
        (_BadAI(), "not legal"),
        (_Endless(), "did not end"),
    ],
)
def test_suite_catches_broken_toys(game: Game[Any, Any, Any], message: str) -> None:
    with pytest.raises(AssertionError, match=message):
        check_game(game, 2, 1_234_567, max_steps=50)
