"""Gang of Dice engine: scenario tests with scripted cards and dice (rulings G1–G7)."""

from __future__ import annotations

import json
import random
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from engine.chance import hashed_draws, rng_for
from engine.core import IllegalAction
from engine.gang_of_dice import (
    BONUS_DICE,
    CARDS,
    CardSet,
    Commit,
    GangOfDice,
    GangOfDiceSeatView,
    GangOfDiceState,
    GangOfDiceView,
    Mark,
    Reroll,
    Stop,
    Unmark,
    apply_with_faces,
    card_triggers,
    roll_faces,
    scripted_setup,
    starting_stock,
)
from tests.conformance import check_game

GAME = GangOfDice()


def codes(state: GangOfDiceState, seat: int) -> tuple[str, ...]:
    return tuple(GAME.encode(a) for a in GAME.legal_actions(state, seat))


def ai(state: GangOfDiceState, seat: int) -> str:
    return GAME.encode(GAME.ai_action(state, seat))


def act(state: GangOfDiceState, action: str, faces=None, log: list | None = None) -> GangOfDiceState:
    step = apply_with_faces(state, action, faces)
    assert step.state.version == state.version + 1
    if log is not None:
        log.extend(step.events)
    return step.state


def keys(events) -> list[str]:
    return [e.key for e in events]


def reroll(state: GangOfDiceState, marked: dict[int, int], faces, log=None) -> GangOfDiceState:
    """Mark ``marked[face]`` dice of each face, then reroll them into ``faces``."""
    for face, n in marked.items():
        for _ in range(n):
            state = act(state, f"m{face}", log=log)
    return act(state, "r", faces, log=log)


# --- cards -------------------------------------------------------------------------------------

# card id -> list of (faces, triggers?) ; 0 is the boss.
CARD_CASES: dict[str, list[tuple[tuple[int, ...], bool]]] = {
    "sum7": [((2, 5), True), ((1, 5), False), ((0, 0, 5, 1), False), ((5, 0, 2), True)],
    "sum10": [((5, 5), True), ((4, 5), False), ((0, 5, 4), False), ((5, 5, 0), True)],
    "sum11": [((5, 5, 1), True), ((5, 5, 0), False), ((0, 0, 0, 5, 5), False)],
    "sum13": [((5, 5, 3), True), ((5, 5, 2), False), ((4, 4, 4, 0), False)],
    "run2": [((3, 4), True), ((5, 4), True), ((3, 5), False), ((0, 1), False), ((1, 3, 5, 0, 0), False)],
    "run3": [((2, 3, 4), True), ((3, 4, 5, 5), True), ((2, 3, 5), False), ((0, 1, 2), False),
             ((1, 2, 0, 4), False)],
    "odd1": [((1,), True), ((3,), True), ((0, 2, 4), False), ((0, 0), False)],
    "odd2": [((3, 3), True), ((1, 5), True), ((1, 0, 2), False), ((0, 0, 5), False)],
    "odd3": [((1, 3, 5), True), ((5, 5, 5), True), ((1, 3, 0, 0), False), ((5, 5, 2, 4, 0), False)],
    "diff2": [((2, 3), True), ((4, 4, 0), False), ((0, 0), False), ((5, 5, 5), False), ((0, 1), False)],
    "diff3": [((1, 2, 3), True), ((1, 2, 0), False), ((1, 1, 2, 2, 0, 0), False)],
    "pair": [((3, 3), True), ((5, 0, 5), True), ((0, 0), False), ((1, 2, 3, 4, 5, 0, 0), False)],
    "five2": [((5, 5), True), ((5, 4, 0), False), ((0, 0, 5), False)],
    "one": [((1,), True), ((0, 2, 3, 4, 5), False)],
    "four_five": [((4,), True), ((5,), True), ((0, 1, 2, 3), False)],
    "three_four_five": [((3,), True), ((0, 1, 2, 2), False)],
}

COLOURS = {
    "yellow": {"sum7", "sum10", "odd1", "odd2", "pair", "five2", "one", "four_five", "three_four_five"},
    "black": {"sum11", "sum13", "run2", "run3", "odd3", "diff2", "diff3"},
}


def test_card_data_is_the_ruling_table() -> None:
    assert set(CARDS) == set(CARD_CASES) and len(CARDS) == 16
    for colour, ids in COLOURS.items():
        assert {c for c in CARDS if CARDS[c].colour == colour} == ids


def test_card_data_rejects_unknown_fields() -> None:
    good = {"id": "x", "colour": "yellow", "rule": {"kind": "any_face", "faces": [1]}}
    cards = [dict(good, id=f"c{i}") for i in range(12)]
    CardSet.model_validate({"cards": cards})
    with pytest.raises(ValidationError):
        CardSet.model_validate({"cards": [dict(cards[0], extra=1), *cards[1:]]})
    with pytest.raises(ValidationError):
        CardSet.model_validate({"cards": [dict(cards[0], rule={"kind": "any_face", "faces": [1], "n": 2}),
                                          *cards[1:]]})
    with pytest.raises(ValidationError):
        CardSet.model_validate({"cards": [dict(cards[0], rule={"kind": "python", "code": "1"}), *cards[1:]]})
    with pytest.raises(ValidationError):
        CardSet.model_validate({"cards": cards[:11] + [cards[0]]})  # duplicate id


@pytest.mark.parametrize("card", sorted(CARD_CASES))
def test_card_predicates(card: str) -> None:
    cases = CARD_CASES[card]
    assert {hit for _, hit in cases} == {True, False}
    for faces, hit in cases:
        assert card_triggers(card, faces) is hit, (card, faces)


@pytest.mark.parametrize("card", sorted(CARD_CASES))
def test_every_card_in_play(card: str) -> None:
    """Each card, in a real turn: a triggering first roll and a safe one."""
    bad = next(f for f, hit in CARD_CASES[card] if hit)
    good = next(f for f, hit in CARD_CASES[card] if not hit)
    state = scripted_setup(2, cards=[card], first=0)
    log: list = []
    state = act(state, f"c{len(bad)}", bad, log)
    if CARDS[card].colour == "yellow":
        assert state.status[0] == "triggered" and "god.trigger" in keys(log)
    else:  # black: only the final roll counts
        assert state.status[0] == "rolling"
        state = act(state, "s", log=log)
        assert state.status[0] == "triggered"
    state = act(state, f"c{len(good)}", good, log)
    if state.phase == "roll":
        state = act(state, "s", log=log)
    # round over: seat 1 did not trigger and won every die on the table
    assert state.round == 2
    assert state.stocks == (48 - len(bad), 48 + len(bad))
    assert log[-1].key in ("god.round",)


# --- set-up and turn order ------------------------------------------------------------------------


@pytest.mark.parametrize(("players", "stock"), [(2, 48), (3, 48), (4, 36)])
def test_setup(players: int, stock: int) -> None:
    state = GAME.setup(7, players)
    assert starting_stock(players) == stock
    assert state.stocks == (stock,) * players
    assert sorted(state.deck) == sorted(CARDS)
    assert state.round == 1 and state.version == 0 and state.table == 0
    assert state.order[0] == state.first and sorted(state.order) == list(range(players))
    assert GAME.to_act(state) == {state.first}
    assert GAME.legal_actions(state, state.first) == tuple(Commit(n) for n in range(1, stock + 1))
    assert state.rules == GangOfDice.rules_version == 3
    assert GAME.setup(7, players) == state
    firsts = {GAME.setup(seed, players).first for seed in range(40)}
    assert firsts == set(range(players))  # the first player is random
    for bad in (1, 5):
        with pytest.raises(ValueError):
            GAME.setup(1, bad)


def test_commit_bounds_and_codes() -> None:
    state = scripted_setup(2, cards=["sum13"], first=0, stocks=(5, 9))
    assert codes(state, 0) == ("c1", "c2", "c3", "c4", "c5")
    assert GAME.legal_actions(state, 1) == ()
    for code in ("c0", "c05", "c-1", "c", "m6", "u", "rr", "x", "c12345"):
        with pytest.raises(IllegalAction):
            GAME.decode(code)
    for bad in ("c6", "c9", "r", "s", "m0"):
        with pytest.raises(IllegalAction):
            GAME.apply(state, {0: GAME.decode(bad)})
    with pytest.raises(IllegalAction):
        GAME.apply(state, {1: Commit(1)})  # not seat 1's turn
    with pytest.raises(IllegalAction):
        GAME.apply(state, {0: "c1"})  # a code is not an action
    after = act(state, "c5", (0, 0, 2, 2, 2))
    assert after.stocks == (0, 9) and after.committed == (5, 0)
    assert after.table == 5


def test_first_player_moves_clockwise() -> None:
    state = scripted_setup(3, cards=["sum13", "sum11", "run3", "diff3"], first=2)
    seen = []
    for _ in range(4):
        seen.append(state.order)
        for _seat in range(3):
            state = act(state, "c1", (2,))
            state = act(state, "s")
    assert seen == [(2, 0, 1), (0, 1, 2), (1, 2, 0), (2, 0, 1)]


def test_roll_phase_legal_actions_and_marks() -> None:
    state = scripted_setup(2, cards=["sum13"], first=0)
    state = act(state, "c3", (3, 0, 0))
    assert state.faces[0] == (0, 0, 3)  # sorted
    assert GAME.legal_actions(state, 0) == (Mark(0), Mark(3), Stop())
    state = act(state, "m0")
    state = act(state, "m0")
    assert codes(state, 0) == ("m3", "u0", "r", "s")
    state = act(state, "u0")
    assert state.marks == (1, 0, 0, 0, 0, 0)
    log: list = []
    state = act(state, "r", (5,), log)
    assert state.faces[0] == (0, 3, 5) and state.rolls[0] == 2 and state.marks == (0,) * 6
    assert log[0].key == "god.roll" and log[0].params == {"seat": 0, "roll": 2, "dice": 1, "faces": [0, 3, 5]}
    with pytest.raises(IllegalAction):
        apply_with_faces(state, "r", (1,))  # nothing marked
    with pytest.raises(IllegalAction):
        apply_with_faces(act(state, "m5"), "r", (1, 2))  # one die marked, two faces
    # the third roll is final: the turn ends by itself
    state = reroll(state, {0: 1, 3: 1}, (4, 2), log)
    assert state.status[0] == "stopped" and state.faces[0] == (2, 4, 5)
    assert GAME.to_act(state) == {1}
    assert "god.stop" in keys(log)


def test_roll_faces_is_deterministic_and_in_range() -> None:
    state = GAME.setup(3, 2)
    faces = roll_faces(state, 200)
    assert faces == roll_faces(state, 200)
    assert set(faces) == {0, 1, 2, 3, 4, 5}
    bumped = replace(state, version=1)
    assert roll_faces(bumped, 20) != roll_faces(state, 20)


def test_rolls_by_rules_version() -> None:
    """Rules 3 roll from ``hashed_draws``; tables of rules 1 and 2 keep the Mersenne Twister
    seeded from ``seed:version:roll`` ("Chance" in docs/rules/gang-of-dice.md)."""
    state = replace(GAME.setup(11, 3), version=5)
    assert state.rules == 3
    assert roll_faces(state, 30) == hashed_draws(state, "roll", 30, 6)
    for rules in (1, 2):
        old = replace(state, rules=rules)
        rng = rng_for(old, "roll")
        assert tuple(roll_faces(old, 30)) == tuple(rng.randrange(6) for _ in range(30))


def test_rules_3_dice_are_uniform() -> None:
    """About 24,000 dice rolled by commits of rules-3 states: each face within 5 standard
    deviations of a sixth, and the sum of a roll of 8 dice averages 20 (faces 0-5)."""
    seen = [0] * 6
    sums = 0
    state = GAME.setup(5, 3)
    for version in range(3000):
        faces = roll_faces(replace(state, version=version), 8)
        sums += sum(faces)
        for f in faces:
            seen[f] += 1
    total = sum(seen)
    mean, sd = total / 6, (total * 5 / 36) ** 0.5
    assert all(abs(c - mean) < 5 * sd for c in seen), seen
    assert abs(sums / 3000 - 20) < 0.45


# --- checks of yellow and black cards --------------------------------------------------------------


def test_yellow_trigger_after_a_reroll() -> None:
    state = scripted_setup(2, cards=["pair"], first=0)
    log: list = []
    state = act(state, "c3", (1, 2, 3), log)
    assert state.status[0] == "rolling"
    state = reroll(state, {1: 1}, (2,), log)
    assert state.status[0] == "triggered"
    assert keys(log)[-1] == "god.trigger"
    assert log[-1].params == {"seat": 0, "card": "pair", "faces": [2, 2, 3]}
    assert GAME.to_act(state) == {1} and state.phase == "commit"
    assert state.committed[0] == 3 and state.table == 3  # committed dice stay on the table


def test_yellow_checked_on_the_first_roll() -> None:
    state = scripted_setup(2, cards=["one"], first=1)
    state = act(state, "c4", (1, 0, 0, 0))
    assert state.status[1] == "triggered" and GAME.to_act(state) == {0}


def test_black_checked_on_the_final_roll_only() -> None:
    state = scripted_setup(2, cards=["diff2"], first=0)
    state = act(state, "c3", (2, 3, 3))  # two values: would trigger if it were final
    assert state.status[0] == "rolling"
    state = reroll(state, {2: 1}, (3,))
    assert state.faces[0] == (3, 3, 3) and state.status[0] == "rolling"
    state = act(state, "s")
    assert state.status[0] == "stopped"
    # seat 1 stops on a triggering roll: it loses
    state2 = act(act(state, "c2", (2, 3)), "s")
    assert state2.round == 2 and state2.stocks == (48 + 2, 48 - 2)


def test_black_trigger_on_the_third_roll_ends_the_turn() -> None:
    state = scripted_setup(2, cards=["run2"], first=0)
    state = act(state, "c2", (3, 4))
    state = reroll(state, {4: 1}, (2,))
    assert state.faces[0] == (2, 3) and state.status[0] == "rolling"
    state = reroll(state, {2: 1}, (4,))
    assert state.status[0] == "triggered" and GAME.to_act(state) == {1}


# --- scoring and the table --------------------------------------------------------------------------


def _play_round(state: GangOfDiceState, plays: list[tuple[int, ...]], log: list | None = None
                ) -> GangOfDiceState:
    """Each play: commit len(faces) dice showing ``faces`` then stop (unless the turn ended)."""
    for faces in plays:
        round_no = state.round
        seat = state.current
        state = act(state, f"c{len(faces)}", faces, log)
        if state.round == round_no and state.phase == "roll" and state.current == seat:
            state = act(state, "s", log=log)
    return state


def test_tie_break_more_dice_committed() -> None:
    state = scripted_setup(3, cards=["sum13"], first=0)
    log: list = []
    state = act(state, "c2", (5, 5), log)
    state = act(state, "s", log=log)
    state = act(state, "c3", (5, 5, 0), log)
    assert GAME.view_json(state, None)["best"] == {"seat": 0, "score": 10, "committed": 2}
    state = act(state, "s", log=log)
    best = GAME.view(state, None).best
    assert best is not None and (best.seat, best.score, best.committed) == (1, 10, 3)
    state = act(state, "c1", (3,), log)
    state = act(state, "s", log=log)
    win = next(e for e in log if e.key == "god.win")
    assert win.params == {"winner": 1, "score": 10, "dice": 6}
    assert state.stocks == (46, 48 - 3 + 6, 47)


def test_tie_break_earlier_roller() -> None:
    state = scripted_setup(3, cards=["sum13"], first=1)  # order 1, 2, 0
    state = _play_round(state, [(5, 4), (4, 5), (3,)])
    assert state.stocks == (47, 48 + 3, 46)  # seat 1 rolled first


def test_score_zero_can_win() -> None:
    state = scripted_setup(2, cards=["three_four_five"], first=0)
    state = _play_round(state, [(0,), (4,)])
    assert state.stocks == (49, 47)


def test_all_trigger_carries_the_table_over() -> None:
    state = scripted_setup(3, cards=["one", "sum13"], first=0)
    log: list = []
    for n in (2, 3, 4):
        state = act(state, f"c{n}", (1,) + (0,) * (n - 1), log)
    assert "god.carry" in keys(log) and next(e for e in log if e.key == "god.carry").params == {"dice": 9}
    assert state.round == 2 and state.carried == 9 and state.table == 9
    assert state.stocks == (46, 45, 44)
    state = _play_round(state, [(0,), (5,), (2,)])  # order 1, 2, 0
    assert state.stocks == (45, 44, 44 + 9 + 3 - 1)
    assert state.table == 0 and state.carried == 0


def _advance_to_round(state: GangOfDiceState, target: int, log: list | None = None) -> GangOfDiceState:
    """Play rounds where everybody commits 1 die and the first roller wins with a 2 (no card
    triggers on a single 2 or a boss)."""
    while state.round < target and state.phase != "over":
        state = _play_round(state, [(2,)] + [(0,)] * (len(state.order) - 1), log)
    return state


def test_bonus_dice_in_rounds_10_to_12() -> None:
    state = _advance_to_round(scripted_setup(2, first=0), 9)
    assert state.table == 0 and state.bonus_total == 0 and state.bonus == 0
    log: list = []
    state = _advance_to_round(state, 10, log)
    assert state.round == 10
    assert state.bonus == 3 and state.carried == 0 and state.table == 3
    assert [e.params for e in log if e.key == "god.bonus"] == [{"round": 10, "dice": 3}]
    state = _advance_to_round(state, 11)
    assert state.bonus == 6 and state.table == 6
    state = _advance_to_round(state, 12)
    assert state.bonus == 9 and state.table == 9 and state.bonus_total == sum(BONUS_DICE.values())
    assert sum(state.stocks) + state.table == 96 + 18


def test_all_trigger_in_round_12_removes_the_table() -> None:
    state = scripted_setup(2, first=0)
    state = _advance_to_round(state, 12)
    deck = list(state.deck)
    deck[11], deck[deck.index("one")] = "one", deck[11]
    state = replace(state, deck=tuple(deck))
    before = sum(state.stocks)
    log: list = []
    for _ in range(2):
        state = act(state, "c3", (1, 1, 1), log)
    assert state.phase == "over" and GAME.to_act(state) == frozenset()
    assert state.removed == 6 + 9 and state.table == 0
    assert [e.params for e in log if e.key == "god.removed"] == [{"dice": 15}]
    assert sum(state.stocks) == before - 6
    end = next(e for e in log if e.key == "god.end")
    assert end.params["stocks"] == list(state.stocks)
    out = GAME.outcome(state)
    assert out.scores == state.stocks


def test_elimination_skips_the_seat_and_early_end() -> None:
    state = scripted_setup(3, cards=["one", "sum13", "sum11"], first=2)  # order 2, 0, 1
    log: list = []
    state = act(state, "c48", (1,) + (2,) * 47, log)  # seat 2 all in, triggers
    state = _play_round(state, [(2,), (3,)], log)
    assert state.stocks == (47, 48 + 1 + 48, 0)
    assert state.status[2] == "out" and [e.params for e in log if e.key == "god.eliminated"] == [{"seat": 2}]
    # round 2 would start with seat 0 (first + 1): seat 2 is skipped everywhere
    assert state.round == 2 and state.order == (0, 1)
    assert GAME.legal_actions(state, 2) == ()
    # seat 0 commits everything and loses: fewer than two players left -> the game ends
    log = []
    state = act(state, "c47", (5,) * 47, log)  # sum13 is black: not checked yet
    state = act(state, "s", log=log)
    assert state.status[0] == "triggered"
    state = _play_round(state, [(4,)], log)
    assert state.phase == "over" and state.round == 2
    assert [e.params for e in log if e.key == "god.eliminated"] == [{"seat": 0}]
    assert keys(log)[-1] == "god.end" and log[-1].params == {"winners": [1], "stocks": [0, 144, 0]}
    out = GAME.outcome(state)
    assert out.ranks == (2, 1, 2) and out.scores == (0, 97 + 47, 0)


def test_elimination_event_and_order_when_the_first_seat_is_out() -> None:
    state = scripted_setup(3, cards=["one", "sum13"], first=0)  # order 0, 1, 2
    log: list = []
    state = act(state, "c1", (2,), log)
    state = act(state, "s", log=log)
    state = act(state, "c48", (1,) * 48, log)  # seat 1 all in, triggers
    state = act(state, "c1", (0,), log)
    state = act(state, "s", log=log)
    assert [e.params for e in log if e.key == "god.eliminated"] == [{"seat": 1}]
    assert state.order == (2, 0)  # the next live seat after round 1's first player (0) starts
    assert GAME.view(state, None).stocks is None


def test_a_winner_with_an_empty_stock_is_not_eliminated() -> None:
    state = scripted_setup(2, cards=["sum13"], first=0, stocks=(3, 10))
    state = _play_round(state, [(4, 4, 4), (5,)])
    assert state.stocks == (4, 9) and state.status == ("waiting", "waiting")


# --- views, events, AI ---------------------------------------------------------------------------


def test_views_hide_stocks_until_the_end() -> None:
    state = scripted_setup(3, cards=["sum13"], first=0)
    state = act(state, "c2", (5, 5))
    typed = GAME.view(state, None)
    assert type(typed) is GangOfDiceView and typed.stocks is None and typed.ranks is None
    mine = GAME.view(state, 0)
    assert isinstance(mine, GangOfDiceSeatView) and (mine.me.seat, mine.me.stock) == (0, 46)
    pub = GAME.view_json(state, None)
    assert pub["stocks"] is None and "me" not in pub
    assert "46" not in json.dumps(pub)
    assert GAME.view_json(state, 0)["me"] == {"seat": 0, "stock": 46}
    assert GAME.view_json(state, 1)["me"] == {"seat": 1, "stock": 48}
    assert pub["card"] == {"id": "sum13", "colour": "black", "rule": {"kind": "sum_at_least", "n": 13}}
    assert pub["seats"][0] == {"seat": 0, "status": "rolling", "committed": 2, "faces": [5, 5],
                               "rolls": 1, "score": 10}
    assert pub["rolls_left"] == 2 and pub["table"] == 2 and pub["past_cards"] == []
    assert set(pub) == {"round", "rounds", "players", "card", "past_cards", "phase", "current",
                        "order", "table", "carried", "bonus", "removed", "marks", "rolls_left",
                        "best", "seats", "stocks", "ranks"}


def test_stock_events_are_private() -> None:
    state = scripted_setup(2, cards=["sum13"], first=0)
    step = apply_with_faces(state, "c5", (1, 1, 1, 1, 1))
    private = [e for e in step.events if e.key == "god.stock"]
    assert [(e.params, e.audience) for e in private] == [({"seat": 0, "stock": 43}, frozenset({0}))]
    assert all(e.audience is None for e in step.events if e.key != "god.stock")


def test_game_end_reveals_stocks() -> None:
    state = scripted_setup(2, first=0)
    state = _advance_to_round(state, 13)
    assert state.phase == "over"
    pub = GAME.view(state, None)
    assert pub.stocks == state.stocks and pub.ranks == GAME.outcome(state).ranks
    assert sum(state.stocks) == 96 + 18


def test_ai_emits_marks_then_reroll() -> None:
    state = scripted_setup(2, cards=["diff2"], first=0)
    state = act(state, "c4", (5, 5, 5, 2))  # the 2 makes the roll trigger if kept
    assert GAME.ai_action(state, 0) == Mark(2)
    state = act(state, "m2")
    assert GAME.ai_action(state, 0) == Reroll()


def test_ai_unmarks_what_it_does_not_want() -> None:
    state = scripted_setup(2, cards=["diff2"], first=0)
    state = act(act(state, "c4", (5, 5, 5, 2)), "m5")
    assert GAME.ai_action(state, 0) == Unmark(5)


def test_ai_stops_when_it_already_wins() -> None:
    state = scripted_setup(2, cards=["sum13"], first=0)
    state = _play_round(state, [(3, 4)])  # seat 0: 7
    state = act(state, "c3", (5, 3, 0))  # seat 1 rolls last with 8: nobody can beat it
    assert ai(state, 1) == "s"


def test_ai_rerolls_a_losing_safe_roll() -> None:
    state = scripted_setup(2, cards=["sum13"], first=0)
    state = _play_round(state, [(4, 4, 3)])  # seat 0: 11
    state = act(state, "c3", (0, 0, 4))  # 4: loses if kept
    assert ai(state, 1) in ("m0", "m4")


def test_ai_commit_sizes() -> None:
    state = scripted_setup(3, cards=["three_four_five", "run3"], first=0)
    assert ai(state, 0) == "c1"  # a harsh yellow card: one die
    state = scripted_setup(3, cards=["run3"], first=0)
    assert ai(state, 0) == "c8"  # a black card it can reroll toward safety
    state = scripted_setup(3, cards=["run3"], first=0, stocks=(12, 48, 48))
    assert ai(state, 0) == "c4"  # never more than a third of its stock early
    state = scripted_setup(3, cards=["one"], first=0)
    state = act(act(state, "c2", (1, 1)), "c2", (1, 2))  # two triggers before the last seat
    assert ai(state, 2) == "c1"


def test_ai_concedes_an_unreachable_sum() -> None:
    state = scripted_setup(2, cards=["sum7"], first=0)
    state = _play_round(state, [(3, 3)])  # 6, the most a safe roll can make
    assert ai(state, 1) == "c1"


@pytest.mark.parametrize("salt", [1, 2, 3])
def test_ai_does_not_peek(salt: int) -> None:
    """The AI's choice depends only on what its seat sees."""
    state = GAME.setup(11, 3)
    rng = random.Random(salt)
    for _ in range(120):
        if not GAME.to_act(state):
            break
        (seat,) = GAME.to_act(state)
        variant = GAME.hidden_variant(state, seat, salt)
        assert GAME.ai_action(variant, seat) == GAME.ai_action(state, seat)
        state = GAME.apply(state, {seat: rng.choice(GAME.legal_actions(state, seat))}).state


def _play(seed: int, players: int, ai_seats: set[int]) -> tuple:
    state = GAME.setup(seed, players)
    rng = random.Random(seed)
    while GAME.to_act(state):
        (seat,) = GAME.to_act(state)
        legal = GAME.legal_actions(state, seat)
        action = GAME.ai_action(state, seat) if seat in ai_seats else rng.choice(legal)
        assert action in legal
        state = GAME.apply(state, {seat: action}).state
    return GAME.outcome(state), state


def test_ai_beats_a_random_player() -> None:
    wins = 0
    for seed in range(100):
        ai = seed % 2
        out, _ = _play(seed, 2, {ai})
        wins += out.ranks[ai] == 1 and out.ranks[1 - ai] == 2
    assert wins >= 90  # chance would be about 50


def test_ai_beats_a_naive_player() -> None:
    """Against "commit 3 dice, keep the first roll" the AI should win most games."""
    wins = 0
    for seed in range(60):
        ai = seed % 2
        state = GAME.setup(seed, 2)
        while GAME.to_act(state):
            (seat,) = GAME.to_act(state)
            if seat == ai:
                action = GAME.ai_action(state, seat)
            else:
                action = Commit(min(3, state.stocks[seat])) if state.phase == "commit" else Stop()
            state = GAME.apply(state, {seat: action}).state
        wins += GAME.outcome(state).ranks[ai] == 1
    assert wins >= 45  # measured: about 95 %


def test_ai_only_games_end_and_conserve_dice() -> None:
    for players in (2, 3, 4):
        out, state = _play(5, players, set(range(players)))
        assert sum(state.stocks) + state.table + state.removed == starting_stock(players) * players + state.bonus_total
        assert len(out.ranks) == players


def test_conformance_suite() -> None:
    check_game(GAME, 4, 9_876_543_210)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**40), players=st.integers(2, 4), walk=st.integers(0, 2**32))
def test_dice_are_conserved(seed: int, players: int, walk: int) -> None:
    """Stocks + table + removed == initial dice + bonus dice, after every step."""
    state = GAME.setup(seed, players)
    rng = random.Random(walk)
    total0 = starting_stock(players) * players
    while GAME.to_act(state):
        (seat,) = GAME.to_act(state)
        legal = GAME.legal_actions(state, seat)
        # commit small amounts mostly, so that games last
        commits = [a for a in legal if isinstance(a, Commit)]
        action = rng.choice(commits[:6]) if commits else rng.choice(legal)
        state = GAME.apply(state, {seat: action}).state
        assert sum(state.stocks) + state.table + state.removed == total0 + state.bonus_total
        assert min(state.stocks) >= 0
        for s in range(players):
            if state.status[s] == "out" and state.phase != "over":
                assert state.stocks[s] == 0 and s not in state.order
    assert state.round == 12 or sum(1 for x in state.stocks if x > 0) < 2


@settings(max_examples=40, deadline=None)
@given(faces=st.lists(st.integers(0, 5), min_size=1, max_size=12))
def test_bosses_never_count(faces: list[int]) -> None:
    """Adding bosses to a roll never changes whether any card triggers (G2)."""
    for card in CARDS:
        assert card_triggers(card, faces) == card_triggers(card, faces + [0, 0, 0]), card


# --- turn order after an elimination (RULINGS G4, rules version 2) ---------------------------------


#: Round 1 "one" (a 1 triggers at once); then cards that a single 2 or a boss never triggers.
CARDS_4_ROUNDS = ["one", "sum13", "sum11", "run3"]


def _eliminate_seat_1(rules: int) -> GangOfDiceState:
    """3 players, first 0: seat 1 commits all 48 dice and triggers the yellow card "one"; seat 0
    wins round 1 with a 2, so seat 1 is out when round 2 starts."""
    state = scripted_setup(3, cards=CARDS_4_ROUNDS, first=0, rules=rules)
    assert state.rules == rules and state.order == (0, 1, 2)
    state = _play_round(state, [(2,), (1,) * 48, (0,)])
    assert state.round == 2 and state.status[1] == "out"
    return state


def _orders_of_rounds_2_to_4(state: GangOfDiceState) -> list[tuple[int, ...]]:
    """The playing order of rounds 2, 3 and 4; the first roller wins each round with a 2."""
    seen = []
    for _ in range(3):
        seen.append(state.order)
        state = _play_round(state, [(2,)] + [(0,)] * (len(state.order) - 1))
    return seen


def test_after_an_elimination_the_next_live_seat_starts_each_round() -> None:
    """G4: round 2 starts with seat 2 (seat 1 is passed over), round 3 with the next live seat
    after seat 2, i.e. seat 0: nobody starts two rounds in a row."""
    for rules in (2, 3):  # rules 3 changed only the dice
        state = _eliminate_seat_1(rules=rules)
        assert _orders_of_rounds_2_to_4(state) == [(2, 0), (0, 2), (2, 0)], rules


def test_rules_1_tables_keep_the_old_rotation() -> None:
    """A table set up before the fix keeps its rotation: round r nominally starts with seat
    (first + r - 1) % 3 and a missing starter is replaced by the next live seat, so seat 2
    starts rounds 2 and 3."""
    state = _eliminate_seat_1(rules=1)
    assert _orders_of_rounds_2_to_4(state) == [(2, 0), (2, 0), (0, 2)]


def test_an_old_snapshot_without_rules_loads_as_rules_1_and_keeps_the_old_rotation() -> None:
    data = GAME.dump_state(_eliminate_seat_1(rules=2))
    assert data["rules"] == 2
    del data["rules"]  # what the previous version stored
    old = GAME.load_state(data)
    assert old.rules == 1
    assert _orders_of_rounds_2_to_4(old) == [(2, 0), (2, 0), (0, 2)]


def test_four_players_rotation_after_an_elimination() -> None:
    """4 players, first 0, seat 2 out after round 1. Rules 2: rounds 2–4 start with seats 1, 3
    and 0. Rules 1: the nominal starters are 1, 2 (out, so 3) and 3: seat 3 starts twice."""
    for rules, expected in ((2, [(1, 3, 0), (3, 0, 1), (0, 1, 3)]), (1, [(1, 3, 0), (3, 0, 1), (3, 0, 1)])):
        state = scripted_setup(4, cards=CARDS_4_ROUNDS, first=0, rules=rules)
        state = _play_round(state, [(2,), (0,), (1,) * 36, (0,)])
        assert state.round == 2 and state.status[2] == "out" and state.stocks[0] == 36 - 1 + 39
        assert _orders_of_rounds_2_to_4(state) == expected, rules


def test_scripted_setup_refuses_an_unknown_rules_version() -> None:
    for bad in (0, 4):
        with pytest.raises(ValueError):
            scripted_setup(2, rules=bad)


# --- actions, codes and views ----------------------------------------------------------------------


def test_action_codes_round_trip() -> None:
    for action, code in [(Commit(12), "c12"), (Mark(0), "m0"), (Unmark(5), "u5"), (Reroll(), "r"), (Stop(), "s")]:
        assert GAME.encode(action) == code and GAME.decode(code) == action
    with pytest.raises(IllegalAction):
        GAME.encode("c1")  # type: ignore[arg-type]


def test_seat_view_json_has_the_stored_keys() -> None:
    state = act(scripted_setup(2, cards=["sum13"], first=0), "c2", (1, 4))
    mine = GAME.view_json(state, 1)
    assert set(mine) == set(GAME.view_json(state, None)) | {"me"}
    assert mine["me"] == {"seat": 1, "stock": 48} and mine["order"] == [0, 1] and mine["marks"] == [0] * 6
    assert GAME.view(state, 1) == GAME.view(GAME.hidden_variant(state, 1, 3), 1)
