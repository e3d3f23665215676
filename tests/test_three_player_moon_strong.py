"""The strong Three-Player Moon level (engine/three_player_moon/search.py) and its win-chance
evaluation (engine/three_player_moon/outlook.py). Small iteration budgets and scripted positions;
strength is measured by ``python -m bench.arena three-player-moon``, never here."""

from __future__ import annotations

import random

import pytest

from bot.games import GAMES
from engine.policies import choose
from engine.three_player_moon import ai
from engine.three_player_moon.actions import Bid, Discard, NameTrump, Play
from engine.three_player_moon.outlook import OverBudget, moon_chance, win_chance
from engine.three_player_moon.search import (
    FULL_CHECKS,
    LEAST_POSITIONS,
    LEAST_SAMPLES,
    MOON_FLOOR,
    MOON_SAMPLES,
    Rollout,
    break_even,
    candidates,
    checks,
    misfits,
    moon_estimate,
    strong_action,
)
from engine.three_player_moon.state import MoonState, deal_hands, evolve
from engine.three_player_moon.tiles import ALL_TILES

MOON = GAMES["three-player-moon"].game


def test_the_rollout_policy_plays_the_normal_ai_and_the_real_deal_fits_every_public_choice() -> None:
    policy = Rollout()
    state = MOON.setup(3, 3)
    checked = 0
    while MOON.to_act(state) and state.hand_no <= 2:
        seat = state.turn
        act = ai.heuristic(state, seat)
        assert policy.action(state, seat) == act
        if state.bids and state.phase in ("bid", "play") and len(state.played) % 6 == 0:
            assert misfits(state, seat, policy) == 0  # the real tiles explain the normal AI's bids and trumps
            checked += 1
        state = MOON.apply(state, {seat: act}).state
    assert checked >= 3


def test_misfits_counts_a_bid_the_normal_ai_would_not_make() -> None:
    weak = ((2, 1), (3, 2), (4, 1), (4, 3), (5, 2), (5, 3), (6, 1))
    strong = ((6, 6), (6, 5), (6, 4), (6, 3), (6, 2), (5, 5), (4, 4))
    rest = ((0, 0), (1, 1), (2, 2), (3, 1), (3, 3), (4, 2), (5, 1))
    state = deal_hands(MOON.setup(1, 3), [weak, strong, rest], (5, 4), first_bidder=0)
    policy = Rollout()
    assert ai.choose(state, 0) == Bid(0)
    assert misfits(state, 1, policy) == 0
    lied = evolve(state, bids=((0, 7),), bidder=0, bid=7, turn=1)  # seat 0 bid 7 with that hand
    assert misfits(lied, 1, policy) == 1
    assert misfits(lied, 0, policy) == 0  # a seat's own bid is no evidence to it


def test_win_chance_sums_to_one_and_rises_with_the_score() -> None:
    even = win_chance((0, 0, 0), 0)
    assert abs(sum(even) - 1) < 1e-9 and all(0.2 < p < 0.5 for p in even)
    assert win_chance((18, 0, 0), 1)[0] > win_chance((10, 0, 0), 1)[0] > even[0]
    assert win_chance((-21, 0, 0), 1)[0] < even[0]
    # seats are interchangeable: rotating the scores and the first bidder rotates the chances
    a = win_chance((5, 12, -5), 0)
    b = win_chance((-5, 5, 12), 1)
    assert abs(a[0] - b[1]) < 1e-9 and abs(a[1] - b[2]) < 1e-9 and abs(a[2] - b[0]) < 1e-9


def test_strong_is_legal_deterministic_and_the_normal_move_without_iterations() -> None:
    state = MOON.setup(5, 3)
    seat = state.turn
    act = choose(MOON, state, seat, "strong", salt=2, iterations=30)
    assert act in MOON.legal_actions(state, seat)
    assert choose(MOON, state, seat, "strong", salt=2, iterations=30) == act
    assert strong_action(MOON, state, seat, salt=2, should_stop=lambda: True) == ai.choose(state, seat)
    moves = candidates(MOON, state, seat, ai.choose(state, seat))
    assert moves[0] == ai.choose(state, seat) and set(moves) == set(MOON.legal_actions(state, seat))


def _one_trick_from_the_game() -> MoonState:
    """Trick 6 of a no-trump hand: seat 0 bid 5 and took the first 5 tricks (it leads each);
    seat 1 (3 points) holds the trick with [5|4] over the bidder's [5|1]; seat 2, at 20 points,
    plays last with [5|5] and [5|2]. Every other 5 is gone, so [5|5] wins only now."""
    tricks = [((6, 6), (6, 5), (6, 1)), ((6, 4), (6, 3), (6, 2)), ((4, 4), (4, 3), (4, 2)),
              ((3, 3), (3, 2), (5, 3)), ((2, 2), (1, 1), (2, 1))]
    played = tuple(t for trick in tricks for t in trick) + ((5, 1), (5, 4))
    return evolve(
        MOON.setup(1, 3), scores=(10, 3, 20), first_bidder=0, phase="play",
        hands=(((4, 1),), ((3, 1),), ((5, 5), (5, 2))), widow=(0, 0), discard=(0, 0),
        bids=((0, 5), (1, 0), (2, 0)), bidder=0, bid=5, trump="N", turn=2, leader=0,
        trick=((0, (5, 1)), (1, (5, 4))), tricks_won=(5, 0, 0), played=played,
        last_trick=tuple(zip((0, 1, 2), tricks[-1], strict=True)), last_winner=0,
    )


def test_strong_overtakes_its_partner_when_the_trick_wins_the_game() -> None:
    state = _one_trick_from_the_game()
    # the normal AI leaves the trick to the other defender (it throws [5|2]) ...
    assert ai.choose(state, 2) == Play((5, 2))
    # ... the strong level takes it (and the last trick): 22 points, alone on top, wins (T7)
    assert choose(MOON, state, 2, "strong", salt=1, iterations=40) == Play((5, 5))
    after = MOON.apply(state, {2: Play((5, 5))}).state
    after = MOON.apply(after, {2: Play((5, 2))}).state
    while MOON.to_act(after):
        after = MOON.apply(after, {after.turn: ai.choose(after, after.turn)}).state
    out = MOON.outcome(after)
    assert out is not None and out.ranks[2] == 1 and after.scores[2] == 22


SURE_MOON = ((6, 6), (6, 5), (6, 4), (6, 3), (6, 2), (6, 1), (5, 5))  # every trump 6 and the top five
#: The normal AI's own estimate gives this hand 7 tricks with 2 widows in 5; with every hand in
#: view the defenders stop a moon in nearly every deal.
LOOKS_LIKE_A_MOON = ((6, 6), (6, 3), (5, 3), (4, 3), (3, 1), (2, 2), (0, 0))


def _deal(mine: tuple[tuple[int, int], ...], widow: tuple[int, int] = (1, 1)) -> MoonState:
    rest = [t for t in ALL_TILES if t not in mine and t != widow]
    return deal_hands(MOON.setup(1, 3), [mine, tuple(rest[:7]), tuple(rest[7:])], widow, first_bidder=0)


def test_the_strong_level_bids_a_sure_moon_and_plays_it_out() -> None:
    state = _deal(SURE_MOON)
    assert moon_estimate(state, 0, random.Random(1)) == 1.0
    act = choose(MOON, state, 0, "strong", salt=1, iterations=30)
    assert act == Bid(21)
    while MOON.to_act(state) and state.hand_no == 1:
        seat = state.turn
        state = MOON.apply(state, {seat: choose(MOON, state, seat, "strong", salt=seat, iterations=30)}).state
    assert state.phase == "over" and state.moon_winner == 0  # a made moon wins at once (T6)


def test_the_strong_level_does_not_shoot_a_moon_good_defenders_stop() -> None:
    state = _deal(LOOKS_LIKE_A_MOON)
    assert moon_estimate(state, 0, random.Random(1)) < MOON_FLOOR
    assert choose(MOON, state, 0, "strong", salt=1, iterations=30) != Bid(21)


def test_the_checks_scale_with_the_iteration_budget_and_end_at_the_deadline() -> None:
    assert checks(None) == FULL_CHECKS and checks(400) == FULL_CHECKS and checks(1000) == FULL_CHECKS
    tiny = checks(2)  # the tests' budget: a fast decision
    assert (tiny.positions, tiny.samples, tiny.check_samples) == (LEAST_POSITIONS, LEAST_SAMPLES, LEAST_SAMPLES)
    assert tiny.sampled == LEAST_POSITIONS
    assert checks(100).samples == MOON_SAMPLES // 4 and checks(100).positions < FULL_CHECKS.positions
    stop = checks(400, lambda: True)
    assert stop.positions == FULL_CHECKS.positions and stop.stop is not None
    # a deadline ends the complete searches; the estimate then says no moon rather than guess
    with pytest.raises(OverBudget):
        moon_chance(LOOKS_LIKE_A_MOON, MOON_SAMPLES, random.Random(1), stop=lambda: True)
    assert moon_estimate(_deal(LOOKS_LIKE_A_MOON), 0, random.Random(1), stop) == 0.0
    # a sure moon is still seen with the fewest deals
    assert moon_estimate(_deal(SURE_MOON), 0, random.Random(1), tiny) == 1.0
    assert choose(MOON, _deal(SURE_MOON), 0, "strong", salt=1, iterations=2) == Bid(21)


def test_the_break_even_of_a_moon_rises_with_the_other_bids_value() -> None:
    state = _deal(SURE_MOON)
    low, high = break_even(state, 0, 0.2), break_even(state, 0, 0.6)
    assert 0.0 <= low < high < 1.0
    assert break_even(state, 0, 0.0) == 0.0


def test_the_easy_level_never_shoots_the_moon_bids_what_it_counts_and_leads_its_highest() -> None:
    state = _deal(SURE_MOON)
    assert choose(MOON, state, 0, "easy") == Bid(7)  # six trumps 6 and the double five: 7 (T2: never 21)
    weak = _deal(((6, 1), (5, 2), (4, 3), (6, 2), (5, 3), (4, 1), (3, 2)))  # no number more than 3 times
    assert choose(MOON, weak, 0, "easy") == Bid(0)
    state = MOON.apply(state, {0: Bid(7)}).state
    state = MOON.apply(state, {1: Bid(0)}).state
    state = MOON.apply(state, {2: Bid(0)}).state
    assert choose(MOON, state, 0, "easy") == Discard((1, 1))  # the widow: its lowest tile not a 6
    state = MOON.apply(state, {0: Discard((1, 1))}).state
    assert choose(MOON, state, 0, "easy") == NameTrump("6")
    state = MOON.apply(state, {0: NameTrump("6")}).state
    assert choose(MOON, state, 0, "easy") == Play((6, 6))
