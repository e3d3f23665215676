"""The losing-move checkers (tests/blunders/) and the AI levels' refusal of losing moves, on
scripted positions (the engines' chance helpers: ``apply_with_faces``, ``scripted_setup``,
``deal_hands``) and a few short games. How often each level plays a losing move over many
games is measured by ``python -m bench.blunders``, never here."""

from __future__ import annotations

import pytest

from bot.games import GAMES
from engine.gang_of_dice import ai as god_ai
from engine.gang_of_dice import apply_with_faces, scripted_setup
from engine.gang_of_dice.actions import REROLL, STOP
from engine.policies import choose
from engine.three_player_moon import ai as moon_ai
from engine.three_player_moon import deal_hands, outlook
from engine.three_player_moon.actions import Bid, Discard, NameTrump, Play
from engine.three_player_moon.state import MoonState, evolve
from tests.blunders import Undecided, checker_for, play_and_check
from tests.blunders.gang_of_dice import best_safe, threshold
from tests.blunders.three_player_moon import Solver, makes
from tests.blunders.three_player_moon import losing_moves as moon_losing

GOD = GAMES["gang-of-dice"].game
MOON = GAMES["three-player-moon"].game
god_losing = checker_for("gang-of-dice")


# --- Gang of Dice ---------------------------------------------------------------------------------------------------
def test_a_stop_on_a_triggered_black_card_with_rolls_left_is_losing() -> None:
    state = scripted_setup(2, cards=["run3"], first=0)  # Run of 3, black: checked on the final roll
    state = apply_with_faces(state, "c11", [1, 2, 3, 3, 4, 4, 5, 5, 0, 0, 2]).state  # 1-2-3: it triggers
    assert god_losing(GOD, state, 0) == {STOP}
    assert best_safe("run3", (0,) * 6, 11) == 55  # eleven fives are safe: the reroll can still win
    for level in ("normal", "strong"):
        assert choose(GOD, state, 0, level, salt=1, iterations=12) != STOP


def test_two_values_a_reroll_that_keeps_the_trigger_is_losing_on_the_last_roll() -> None:
    state = scripted_setup(2, cards=["diff2"], first=0)  # Two values, black
    state = apply_with_faces(state, "c2", [5, 5]).state
    state = apply_with_faces(state, "s").state  # seat 0 stopped on 10 with 2 dice
    state = apply_with_faces(state, "c3", [4, 5, 5]).state
    assert threshold(state, 1) == 10  # 10 is enough with more dice committed (G5)
    assert god_losing(GOD, state, 1) == {STOP}
    state = apply_with_faces(apply_with_faces(state, "m4").state, "r", [4]).state  # the second roll: 4 5 5 again
    assert state.rolls[1] == 2
    one_five = apply_with_faces(state, "m5").state  # keeps 4 and 5: triggers whatever the new die shows
    assert god_losing(GOD, one_five, 1) == {STOP, REROLL}
    the_four = apply_with_faces(state, "m4").state  # 5 5 and a boss or a five: safe and enough
    assert god_losing(GOD, the_four, 1) == {STOP}
    for level in ("normal", "strong"):
        act = choose(GOD, state, 1, level, salt=2, iterations=12)
        assert act not in god_losing(GOD, state, 1)


def test_nothing_is_losing_when_nothing_can_win_and_commits_are_not_judged() -> None:
    state = scripted_setup(2, cards=["diff2"], first=0)
    state = apply_with_faces(state, "c2", [5, 5]).state
    state = apply_with_faces(state, "s").state
    assert god_losing(GOD, state, 1) == frozenset()  # the commit phase
    state = apply_with_faces(state, "c2", [4, 5]).state  # two dice against 10 with as many: 11 needed
    assert threshold(state, 1) == 11 and best_safe("diff2", (0,) * 6, 2) == 10
    assert god_losing(GOD, state, 1) == frozenset()


def test_the_normal_ai_rerolls_instead_of_stopping_on_a_sure_loss() -> None:
    """Its sampled lookahead saw no winning reroll of 8 dice; the round is still winnable."""
    c = (0, 3, 0, 3, 0, 2)  # 1 1 1 3 3 3 5 5 on "three odd dice" (black): 8 odd dice
    assert god_ai.plan_loses("odd3", c, 1, 18, None)
    plan = god_ai.ai_plan("odd3", c, 1, 18, 0)
    assert plan is not None and not god_ai.plan_loses("odd3", c, 1, 18, plan)


# --- Three-Player Moon ----------------------------------------------------------------------------------------------
def _moon_trick_two() -> MoonState:
    """Seat 0 shoots the moon with trumps 6 and wins trick 1 with [6|6]; seat 2 still holds the
    trump [6|2], and [0|0] is the only tile of suit 0: led now, it is trumped."""
    h0 = ((6, 6), (6, 5), (6, 4), (5, 5), (4, 4), (0, 0), (3, 3))
    h1 = ((6, 3), (5, 4), (5, 3), (4, 3), (2, 2), (2, 1), (1, 1))
    h2 = ((6, 2), (6, 1), (5, 2), (5, 1), (4, 2), (4, 1), (3, 2))
    state = deal_hands(MOON.setup(1, 3), [h0, h1, h2], (3, 1), first_bidder=0)
    for act in (Bid(21), Discard((3, 1)), NameTrump("6"), Play((6, 6)), Play((6, 3)), Play((6, 1))):
        state = MOON.apply(state, {state.turn: act}).state
    assert state.turn == 0 and state.tricks_won == (1, 0, 0)
    return state


def test_a_moon_bidder_leading_the_double_blank_into_a_trump_is_losing() -> None:
    state = _moon_trick_two()
    assert moon_losing(MOON, state, 0) == {Play((0, 0))}
    assert moon_losing(MOON, state, 1) == frozenset()  # a defender's moves are not judged
    assert moon_losing(MOON, state, 0, played=Play((0, 0))) == {Play((0, 0))}  # judged first, then the others
    assert moon_losing(MOON, state, 0, played=Play((6, 5))) == frozenset()  # it keeps the moon: nothing more judged
    legal = list(MOON.legal_actions(state, 0))
    assert outlook.keeping(state, 0, legal, 1 << 40) == set(legal) - {Play((0, 0))}  # the engine's own search agrees
    for level in ("normal", "strong"):
        assert choose(MOON, state, 0, level, salt=3, iterations=24) != Play((0, 0))


def _brute(state: MoonState, bidder: int, need: int) -> bool:
    """Does the bidder make ``need`` tricks against any defence? Every line through the rules'
    own ``legal_actions`` and ``apply`` (no pruning: slow, for small endings only)."""
    hand_no = state.hand_no
    if state.hand_no != hand_no or MOON.outcome(state) is not None:
        raise AssertionError
    seat = state.turn
    results = []
    for act in MOON.legal_actions(state, seat):
        after = MOON.apply(state, {seat: act}).state
        if after.hand_no != hand_no or after.phase == "over":
            assert after.last_hand is not None
            results.append(after.last_hand.tricks[bidder] >= need)
        else:
            results.append(_brute(after, bidder, need))
    return any(results) if seat == bidder else all(results)


def _ending(seed: int, tricks_left: int) -> MoonState:
    """The first hand of a normal-AI game from ``seed`` with ``tricks_left`` tricks to play."""
    state = MOON.setup(seed, 3)
    while state.phase != "play" or len(state.hands[state.turn]) > tricks_left or state.trick:
        state = MOON.apply(state, {state.turn: moon_ai.heuristic(state, state.turn)}).state
    return state


def test_the_complete_search_agrees_with_every_line_of_the_rules() -> None:
    checked = 0
    for seed in (11, 12, 13, 14):
        state = _ending(seed, 3)
        bidder = state.bidder
        assert bidder is not None
        for need in range(state.tricks_won[bidder], state.tricks_won[bidder] + 4):
            hands = state.hands
            assert makes(hands, (), state.turn, state.trump, bidder, need, state.tricks_won[bidder]) == _brute(
                state, bidder, need)
            checked += 1
    assert checked == 16


def test_the_checker_reads_a_defenders_lead_in_the_led_suit_when_every_trick_is_needed() -> None:
    """Trumps 5, seat 2 leads and the bidder (seat 1) needs the last three tricks: its tiles are
    ranked in the suit led, not as leads (the checker once pruned the defenders' tiles by the
    latter and saw the bid kept in a deal where it is lost)."""
    state = evolve(_ending(11, 3), hands=(((4, 4), (4, 3), (3, 1)), ((6, 6), (6, 4), (5, 3)), ((4, 2), (3, 2), (1, 1))),
                   trump="5", bidder=1, bid=4, turn=2, leader=2, trick=(), tricks_won=(1, 1, 2))
    for need in (3, 4):
        assert makes(state.hands, (), 2, "5", 1, need, 1) == _brute(state, 1, need)
    assert not makes(state.hands, (), 2, "5", 1, 4, 1)


def test_the_checker_and_the_engines_search_agree_on_every_bidder_decision_of_a_hand() -> None:
    state = _ending(21, 5)
    bidder = state.bidder
    assert bidder is not None
    seen = 0
    while state.phase == "play":
        seat = state.turn
        legal = list(MOON.legal_actions(state, seat))
        if seat == bidder and len(legal) > 1:
            keep = outlook.keeping(state, seat, legal, 1 << 40)
            losing = moon_losing(MOON, state, seat)
            if keep is None:
                assert losing == frozenset()
            else:
                assert losing == (frozenset(m for m in legal if m not in keep) if keep else frozenset())
            seen += 1
        state = MOON.apply(state, {seat: moon_ai.heuristic(state, seat)}).state
    assert seen >= 2


def test_a_solver_past_its_position_limit_leaves_the_decision_undecided() -> None:
    state = _moon_trick_two()
    with pytest.raises(Undecided):
        Solver(state.trump, 0, 7, work=3).makes(state.hands, (), 0, 1)


# --- short games ----------------------------------------------------------------------------------------------------
def test_short_games_at_normal_level_play_no_losing_move() -> None:
    for seed in (5, 6):
        result = play_and_check("gang-of-dice", 2, seed, ["normal", "normal"])
        assert result.decisions > 20 and result.blunders == []


def test_a_scripted_moon_hand_at_normal_and_strong_level_plays_no_losing_move() -> None:
    state = _moon_trick_two()
    levels = {0: "strong", 1: "normal", 2: "normal"}
    judged = 0
    while state.phase == "play":
        seat = state.turn
        act = choose(MOON, state, seat, levels[seat], salt=seat, iterations=24)
        if len(MOON.legal_actions(state, seat)) > 1:
            assert act not in moon_losing(MOON, state, seat)
            judged += 1
        state = MOON.apply(state, {seat: act}).state
    assert judged >= 5
