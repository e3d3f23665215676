"""Moonshine's losing-move checker (``tests/blunders/moonshine.py``) and the levels' refusal to
pass up a validation that wins the game (``engine.moonshine.ai.sure_wins``); how often a level
plays a losing move over many games is measured by ``python -m bench.blunders moonshine``."""

from __future__ import annotations

import dataclasses

from bot.games import GAMES
from engine.moonshine.actions import Validate
from engine.moonshine.ai import sure_wins
from engine.moonshine.state import MoonshineState
from engine.policies import choose
from tests.blunders import checker_for, play_and_check
from tests.blunders.moonshine import wins_whatever

G = GAMES["moonshine"].game
losing = checker_for("moonshine")


def _first_sure_win(seed: int) -> tuple[MoonshineState, int]:
    """A normal-level game from ``seed`` played up to the first action phase in which a seat
    can validate a Client that wins the game whatever the other seat does."""
    state = G.setup(seed, 2, {})
    while state.phase != "over":
        if state.phase == "action":
            for seat in range(state.players):
                if sure_wins(state, seat):
                    return state, seat
        state = G.apply(state, {s: G.ai_action(state, s) for s in sorted(G.to_act(state))}).state
    raise AssertionError("the game ended without a sure win")


def test_a_sure_win_is_one_for_the_engine_and_every_other_choice_is_losing():
    state, seat = _first_sure_win(5)
    wins = set(sure_wins(state, seat))
    legal = G.legal_actions(state, seat)
    assert wins and all(isinstance(a, Validate) for a in wins)
    assert {a for a in legal if isinstance(a, Validate) and wins_whatever(G, state, seat, a)} == wins
    assert losing(G, state, seat) == frozenset(a for a in legal if a not in wins)
    for level in ("normal", "strong"):
        assert choose(G, state, seat, level, salt=3, iterations=10) in wins


def test_no_sure_win_when_another_seat_can_reach_as_many_points():
    state, seat = _first_sure_win(5)
    other = 1 - seat
    rich = dataclasses.replace(state.seats[other], validated=state.seats[seat].validated * 2)
    tied = dataclasses.replace(state, seats=tuple(rich if i == other else s for i, s in enumerate(state.seats)))
    assert not sure_wins(tied, seat) and losing(G, tied, seat) == frozenset()


def test_a_few_games_at_normal_and_strong_pass_up_no_winning_validation():
    for seed in (21, 22):
        check = play_and_check("moonshine", 2, seed, ["normal", "normal"])
        assert check.decisions > 20 and check.with_losing and not check.blunders
    check = play_and_check("moonshine", 2, 23, ["strong", "strong"], iterations=8)
    assert check.decisions > 20 and not check.blunders
