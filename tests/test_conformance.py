"""Run the shared conformance suite (tests/conformance.py) on every registered game.

Games are read from ``engine.registry.GAMES`` at collection time, so a newly registered game is
covered automatically: every seat count in ``[min_players, max_players]``, every option dict of
``Game.conformance_options``, a few seeds. Test ids look like ``gang-of-dice-p3-o0-s2`` so that
``-k gang-of-dice`` runs one game only.
"""

from __future__ import annotations

import pytest

from engine.core import Game, GameOptions
from engine.core import PydanticState as State
from engine.core import State as CoreState
from engine.registry import GAMES
from tests.conformance import check_game

#: Large seeds, so that "the seed value never appears in a view" is a meaningful check.
SEEDS = (1_000_003, 2_718_281_828, 31_415_926_535)


def _cases():
    for key, game in sorted(GAMES.items()):
        for players in range(game.min_players, game.max_players + 1):
            for o, options in enumerate(game.conformance_options):
                for s, seed in enumerate(SEEDS):
                    yield pytest.param(key, players, options, seed, id=f"{key}-p{players}-o{o}-s{s}")


@pytest.mark.parametrize("key", sorted(GAMES))
def test_registry_entry(key: str) -> None:
    game = GAMES[key]
    assert isinstance(game, Game)
    assert game.key == key
    assert 1 <= game.min_players <= game.max_players
    assert issubclass(game.state_model, (State, CoreState))
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
    check_game(GAMES[key], players, seed, options)


# --- the suite checks itself on a toy game -------------------------------------------------------


class _ToyState(State):
    cards: tuple[int, ...]  # hidden: one card per seat
    bids: tuple[int, ...] = ()
    rounds: int = 0


class _Toy(Game):
    """Simultaneous toy game: 3 rounds, every seat bids 0-2 at once; score = bids x own card."""

    key = "toy"
    min_players = 2
    max_players = 3
    state_model = _ToyState

    def setup(self, seed, players, options=None):
        if not self.min_players <= players <= self.max_players:
            raise ValueError("seat count")
        import random as _r

        rng = _r.Random(f"{seed}:deal")
        return _ToyState(seed=seed, players=players, cards=tuple(rng.randint(1, 9) for _ in range(players)),
                         bids=(0,) * players)

    def to_act(self, state):
        return frozenset() if state.rounds >= 3 else frozenset(range(state.players))

    def legal_actions(self, state, seat):
        return (0, 1, 2) if seat in self.to_act(state) else ()

    def apply(self, state, actions):
        from engine.core import Step

        self.check_actions(state, actions)
        bids = tuple(b + actions[s] for s, b in enumerate(state.bids))
        return Step(state.model_copy(update={"bids": bids, "rounds": state.rounds + 1, "version": state.version + 1}))

    def view(self, state, seat):
        out = {"bids": list(state.bids), "rounds": state.rounds}
        if seat is not None:
            out["card"] = state.cards[seat]
        return out

    def hidden_variant(self, state, seat, salt):
        cards = tuple(c if s == seat else (c + salt) % 9 + 1 for s, c in enumerate(state.cards))
        return super().hidden_variant(state, seat, salt).model_copy(update={"cards": cards})

    def outcome(self, state):
        from engine.core import Outcome, ranks_from_scores

        if state.rounds < 3:
            return None
        scores = tuple(b * c for b, c in zip(state.bids, state.cards))
        return Outcome(ranks_from_scores([(s,) for s in scores]), scores)

    def ai_action(self, state, seat):
        return 2

    def encode(self, action):
        return f"b{action}"

    def decode(self, code):
        from engine.core import IllegalAction

        if code not in ("b0", "b1", "b2"):
            raise IllegalAction("malformed")
        return int(code[1])


class _Leaky(_Toy):
    def view(self, state, seat):
        return {**super().view(state, seat), "cards": list(state.cards)}


class _SeedInView(_Toy):
    def view(self, state, seat):
        return {**super().view(state, seat), "meta": {"seed": state.seed}}


class _NoBump(_Toy):
    def apply(self, state, actions):
        step = super().apply(state, actions)
        return type(step)(step.state.model_copy(update={"version": state.version}))


class _Lenient(_Toy):
    def apply(self, state, actions):
        if set(actions) != set(self.to_act(state)):
            actions = {s: 0 for s in self.to_act(state)}
        return super().apply(state, actions)


class _LenientDecode(_Toy):
    def decode(self, code):
        return int(code[-1]) % 3 if code and code[-1].isdigit() else 0


class _BadAI(_Toy):
    def ai_action(self, state, seat):
        return 7


class _Endless(_Toy):
    def to_act(self, state):
        return frozenset(range(state.players))

    def outcome(self, state):
        return None


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
def test_suite_catches_broken_toys(game: Game, message: str) -> None:
    with pytest.raises(AssertionError, match=message):
        check_game(game, 2, 1_234_567, max_steps=50)
