"""The AI levels (engine/policies.py), the shared search (engine/search.py), the Gang of Dice
macro-moves, the Wilson interval (bot/simulate.py) and a smoke run of the arena (``python -m
bench.arena``, as a subprocess). Tiny iteration budgets: strength is
measured by ``python -m bench.arena``, never here."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bot.games import GAMES
from bot.simulate import wilson
from engine.core import Outcome
from engine.gang_of_dice import apply_with_faces, scripted_setup
from engine.gang_of_dice.actions import MARKS, REROLL, STOP, Commit, Mark, Reroll, Stop
from engine.gang_of_dice.search import STOP_MOVE, canonical, first_action, macro_moves
from engine.policies import LEVELS, choose, iterations_for
from engine.search import Hooks, outcome_rewards, search, softmax_rewards
from engine.three_player_moon.ai import heuristic as moon_heuristic

ROOT = Path(__file__).resolve().parents[1]
GOD = GAMES["gang-of-dice"].game
MOON = GAMES["three-player-moon"].game


def test_levels_contract() -> None:
    assert LEVELS == ("easy", "normal", "strong")
    state = MOON.setup(3, 3)
    with pytest.raises(ValueError):
        choose(MOON, state, state.turn, "grandmaster")
    with pytest.raises(ValueError):
        choose(MOON, state, (state.turn + 1) % 3, "normal")  # not to act
    assert choose(MOON, state, state.turn, "normal") == MOON.ai_action(state, state.turn)
    assert iterations_for(MOON) >= 1


def test_strong_stop_callback_and_budget() -> None:
    state = MOON.setup(4, 3)
    seat = state.turn
    # a callback that is true at once: no iteration, the baseline's move
    assert choose(MOON, state, seat, "strong", should_stop=lambda: True) == MOON.ai_action(state, seat)
    calls = []

    def stop() -> bool:
        calls.append(1)
        return len(calls) > 5

    act = choose(MOON, state, seat, "strong", should_stop=stop)
    assert act in MOON.legal_actions(state, seat) and len(calls) == 6


def test_search_counts_iterations_and_is_deterministic() -> None:
    state = MOON.setup(5, 3)
    seat = state.turn
    hooks = Hooks(cutoff=lambda root, s: s.hand_no != root.hand_no,
                  evaluate=lambda g, s: softmax_rewards(s.scores, 4.0),
                  rollout=lambda g, s, seat_, rng: moon_heuristic(s, seat_))
    a = search(MOON, state, seat, hooks=hooks, salt=3, iterations=12)
    b = search(MOON, state, seat, hooks=hooks, salt=3, iterations=12)
    assert a.iterations == 12 and a == b
    assert sum(v for v, _ in a.stats.values()) == 12
    assert a.move in MOON.legal_actions(state, seat)
    with pytest.raises(ValueError):
        search(MOON, state, (seat + 1) % 3, iterations=1)


def test_rewards() -> None:
    assert outcome_rewards(Outcome(ranks=(2, 1), scores=(1, 5))) == (0.0, 1.0)
    assert outcome_rewards(Outcome(ranks=(1, 1, 3), scores=(4, 4, 1))) == (0.5, 0.5, 0.0)
    low, high = softmax_rewards([0.0, 10.0], 2.0)
    assert low < 0.01 < 0.99 < high and abs(low + high - 1) < 1e-9


def test_gang_of_dice_macro_moves_map_to_micro_actions() -> None:
    state = scripted_setup(2, cards=["sum13"], first=0)
    moves = macro_moves(GOD, state, 0)
    assert all(isinstance(m, Commit) for m in moves) and len(set(moves)) == len(moves)
    state = apply_with_faces(state, "c4", [5, 5, 1, 0]).state
    moves = macro_moves(GOD, state, 0)
    assert STOP_MOVE in moves and all(m == STOP_MOVE or len(m) == 6 for m in moves)
    plan = (1, 1, 0, 0, 0, 0)  # reroll the boss and the one
    assert first_action(GOD, state, 0, plan) == MARKS[0]
    marked = apply_with_faces(state, MARKS[0]).state
    assert first_action(GOD, marked, 0, plan) == MARKS[1]
    assert canonical(marked) == state  # the search sees the turn before its first mark
    both = apply_with_faces(marked, MARKS[1]).state
    assert first_action(GOD, both, 0, plan) == REROLL
    assert first_action(GOD, both, 0, STOP_MOVE) == STOP
    # only plans that keep the marks already made once a marking has started
    assert all(m == STOP_MOVE or m[0] >= 1 for m in macro_moves(GOD, marked, 0, marked.marks))


def test_gang_of_dice_strong_finishes_its_reroll() -> None:
    """The strong level's micro-actions of one turn: marks only grow, then a reroll or stop."""
    state = scripted_setup(2, cards=["sum13"], first=0)
    state = apply_with_faces(state, "c5", [5, 4, 1, 0, 0]).state
    seen = []
    for _ in range(12):
        act = choose(GOD, state, 0, "strong", salt=1, iterations=6)
        seen.append(act)
        if isinstance(act, (Reroll, Stop)):
            break
        assert isinstance(act, Mark)
        state = GOD.apply(state, {0: act}).state
    assert isinstance(seen[-1], (Reroll, Stop))


def test_wilson_interval() -> None:
    lo, hi = wilson(0.6, 200)
    assert 0.53 < lo < 0.6 < hi < 0.67
    assert wilson(1.0, 10)[1] == pytest.approx(1.0) and wilson(0.0, 10)[0] == pytest.approx(0.0)


def test_arena_summary() -> None:
    proc = subprocess.run([sys.executable, "-m", "bench.arena", "shop-battle", "--a", "normal", "--b", "random",
                           "--games", "2", "--seed", "3", "--quiet"], cwd=ROOT,
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-3000:]
    summary = json.loads(proc.stdout.strip().splitlines()[-1])
    for key in ("game", "a", "b", "players", "games", "score_a", "ci_low", "ci_high", "fair_share",
                "ms_p95_a", "ms_p95_b"):
        assert key in summary
    assert summary["games"] == 2 and summary["fair_share"] == 0.5
    assert summary["ci_low"] <= summary["score_a"] <= summary["ci_high"]
    lo, hi = wilson(summary["score_a"], 2)
    assert (summary["ci_low"], summary["ci_high"]) == (round(lo, 4), round(hi, 4))


def test_arena_times_whole_turns() -> None:
    """A Gang of Dice turn is a commit, marks, rerolls and a stop: the arena counts fewer turns
    than decisions, and a turn's CPU is at least its median decision's."""
    proc = subprocess.run([sys.executable, "-m", "bench.arena", "gang-of-dice", "--a", "strong", "--b", "normal",
                           "--games", "1", "--seed", "5", "--iterations", "4", "--quiet"], cwd=ROOT,
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    summary = json.loads(proc.stdout.strip().splitlines()[-1])
    for side in ("a", "b"):
        assert 2 <= summary[f"turns_{side}"] < summary[f"moves_{side}"]  # several decisions per turn
        assert summary[f"turn_wall_ms_median_{side}"] >= 0
        assert summary[f"turn_cpu_ms_p95_{side}"] >= summary[f"turn_cpu_ms_median_{side}"] >= 0


def test_gang_of_dice_time_budget_searches_once_per_reroll() -> None:
    """With a stop callback, the micro-actions after the first reuse the turn's plan."""
    state = scripted_setup(2, cards=["sum13"], first=0)
    state = apply_with_faces(state, "c5", [5, 4, 1, 0, 0]).state
    calls: list[int] = []

    def stop() -> bool:
        calls.append(1)
        return len(calls) % 8 == 0

    act = choose(GOD, state, 0, "strong", salt=2, should_stop=stop)
    searched = len(calls)
    while isinstance(act, Mark):
        state = GOD.apply(state, {0: act}).state
        act = choose(GOD, state, 0, "strong", salt=2, should_stop=stop)
    assert isinstance(act, (Reroll, Stop)) and len(calls) == searched


def test_gang_of_dice_easy_commits_three_stops_on_a_safe_roll_and_rerolls_a_triggered_one() -> None:
    state = scripted_setup(2, cards=["run3"], first=0)  # Run of 3, black
    assert choose(GOD, state, 0, "easy") == Commit(3)
    safe = apply_with_faces(state, "c3", [5, 5, 1]).state
    assert choose(GOD, safe, 0, "easy") == STOP
    hit = apply_with_faces(state, "c3", [1, 2, 3]).state
    for _ in range(4):
        act = choose(GOD, hit, 0, "easy")
        if act == REROLL:
            break
        hit = GOD.apply(hit, {0: act}).state
    assert act == REROLL and hit.marks == (0, 1, 1, 1, 0, 0)  # every die
    last = apply_with_faces(apply_with_faces(hit, "r", [1, 2, 3]).state, "m1").state
    last = apply_with_faces(apply_with_faces(last, "m2").state, "m3").state
    last = apply_with_faces(last, "r", [3, 4, 5]).state  # the third roll is final: the turn is over
    assert last.current == 1
