"""Three-Player Moon's bidder never plays a move that loses its bid in every deal it cannot tell
from the true one while another keeps it in a few (``engine.three_player_moon.ai.keepers``),
on the positions of normal-level games where it once did (``python -m bench.blunders
three-player-moon --level normal --seed 1``, its first 141 games and then games 152, 281, 363 and 759)
and of a strong-level game (``--level strong``, game 196), each reached by replaying the moves of
the time; the judge is the checker (``tests/blunders/three_player_moon.py``)."""

from __future__ import annotations

import pytest

from bot.games import GAMES
from engine.policies import choose
from engine.three_player_moon import ai, search
from engine.three_player_moon.actions import Discard, Play
from engine.three_player_moon.outlook import keeping
from engine.three_player_moon.state import MoonState
from engine.three_player_moon.tiles import ALL_TILES, MOON, TRICKS
from tests.blunders.three_player_moon import Solver, losing_moves, worlds

G = GAMES["three-player-moon"].game

#: The moves the normal players made from each seed up to the position (action codes, in order).
_LOGS: dict[tuple[int, int], str] = {
    (100014, 8): (
        "b6 b0 b0 d53 t4 p44 p41 p21"),
    (100019, 34): (
        "b6 b0 b0 d51 t6 p66 p61 p62 p65 p64 p32 p33 p31 p43 p22 p21 p42 p11 p41 p53 p63 p00 p54 p52 p44 p55 "
        "b5 b0 b0 d31 t6 p66 p61 p21"),
    (100032, 216): (
        "b4 b0 b0 d41 t3 p66 p64 p61 p22 p21 p52 p11 p51 p31 p55 p54 p42 p44 p32 p43 p33 p62 p53 p00 p65 p63 "
        "b5 b0 b6 d62 t3 p33 p31 p21 p63 p43 p41 p55 p51 p52 p22 p65 p42 p11 p00 p61 p32 p44 p54 p53 p66 p64 "
        "b4 b6 b0 d32 t5 p55 p21 p52 p65 p43 p54 p66 p62 p31 p00 p63 p41 p51 p64 p42 p61 p33 p11 p53 p44 p22 "
        "b5 b0 b0 d53 t1 p66 p62 p63 p44 p43 p42 p21 p32 p61 p11 p31 p52 p55 p41 p54 p51 p00 p65 p64 p33 p22 "
        "b4 b5 b0 d41 t2 p22 p32 p31 p62 p42 p51 p66 p63 p61 p11 p52 p53 p55 p64 p65 p00 p33 p21 p43 p54 p44 "
        "b0 b6 b0 d53 t2 p44 p41 p54 p11 p51 p31 p00 p43 p32 p22 p21 p61 p63 p64 p66 p55 p65 p52 p62 p33 p42 "
        "b4 b5 b6 d21 t4 p44 p54 p31 p66 p61 p63 p55 p52 p51 p00 p64 p53 p22 p65 p41 p42 p32 p11 p43 p62 p33 "
        "b5 b6 b0 d41 t2 p22 p32 p31 p62 p42 p53 p55 p51 p54 p00 p43 p64 p21 p63 p11 p52 p65 p33 p61 p44 p66 "
        "b4 b5 b0 d21 t3 p66 p62 p61"),
    (100079, 209): (
        "b4 b5 b0 d64 t1 p44 p54 p42 p22 p32 p52 p65 p66 p43 p55 p53 p21 p41 p31 p11 p33 p51 p63 p61 p62 p00 "
        "b0 b6 b0 d52 t3 p33 p43 p31 p63 p41 p53 p66 p62 p61 p55 p51 p65 p44 p54 p42 p00 p11 p21 p32 p22 p64 "
        "b21 d43 t2 p22 p32 p21 p62 p31 p52 p66 p63 p61 p55 p51 p53 p33 p00 p41 p42 p11 p54 p64 p44 p65 b5 b0 "
        "b0 d51 t4 p44 p21 p41 p64 p53 p42 p55 p65 p52 p22 p62 p32 p00 p61 p54 p11 p43 p33 p63 p66 p31 b4 b5 "
        "b0 d21 t6 p66 p42 p61 p65 p43 p62 p00 p51 p41 p63 p52 p53 p64 p22 p54 p31 p44 p33 p11 p32 p55 b5 b0 "
        "b0 d32 t1 p11 p51 p31 p61 p43 p41 p66 p62 p64 p33 p63 p42 p21 p00 p54 p52 p55 p65 p22 p44 p53 b4 b5 "
        "b0 d42 t3 p33 p43 p31 p63 p53 p32 p66 p61 p62 p44 p64 p41 p11 p21 p54 p51 p65 p55 p22 p52 p00 b4 b5 "
        "b6 d42 t1 p11 p21 p32 p22 p62 p54 p31 p43 p64 p41 p53 p65 p51 p63 p00 p61 p44 p33 p52 p66 p55 b5 b0 "
        "b7"),
    (100135, 34): (
        "b5 b0 b0 d65 t2 p22 p21 p31 p62 p52 p54 p55 p51 p63 p33 p43 p64 p00 p41 p11 p32 p53 p44 p42 p61 p66 "
        "b5 b0 b0 d21 t3 p66 p64 p61"),
    (100152, 86): (
        "b6 b0 b0 d21 t6 p66 p31 p63 p44 p42 p41 p33 p43 p65 p55 p61 p52 p62 p53 p51 p32 p54 p11 p64 p00 p22 "
        "b5 b0 b0 d21 t6 p33 p31 p43 p22 p32 p42 p11 p41 p66 p44 p63 p51 p65 p62 p52 p61 p00 p53 p64 p55 p54 "
        "b4 b6 b0 d54 tD p66 p00 p44 p43 p41 p42 p11 p31 p21 p22 p61 p32 p33 p62 p51 p55 p63 p52 p64 p65 p53 "
        "b4 b5 b0 d32 t6 p33 p43 p31"),
    (100759, 108): (
        "b5 b0 b0 d32 t1 p11 p21 p31 p61 p53 p51 p66 p62 p63 p00 p65 p43 p41 p33 p52 p42 p44 p64 p55 p22 p54 "
        "b4 b0 b5 d53 t1 p11 p51 p31 p55 p52 p54 p33 p32 p63 p22 p42 p62 p21 p43 p64 p41 p65 p00 p61 p66 p44 "
        "b4 b5 b6 d21 t3 p33 p43 p53 p44 p42 p41 p22 p52 p62 p31 p51 p61 p32 p64 p65 p63 p00 p55 p54 p11 p66 "
        "b4 b5 b0 d21 t3 p33 p43 p32 p66 p61 p62 p22 p52 p63 p55 p51 p54 p44 p42 p64 p65 p31 p00 p53 p11 p41 "
        "b5 b0 b21 d43"),
    (100281, 211): (
        "b4 b0 b6 d21 t6 p66 p61 p41 p65 p63 p43 p44 p42 p51 p33 p31 p52 p62 p32 p00 p64 p54 p22 p53 p11 p55 "
        "b5 b0 b0 d63 t2 p66 p61 p65 p33 p43 p31 p00 p62 p41 p22 p53 p21 p11 p54 p32 p42 p51 p44 p52 p64 p55 "
        "b5 b0 b0 d32 t5 p55 p21 p51 p65 p41 p52 p22 p42 p62 p11 p64 p31 p53 p00 p61 p54 p33 p63 p43 p66 p44 "
        "b5 b0 b0 d21 t3 p33 p31 p43 p63 p32 p54 p22 p42 p62 p00 p41 p61 p53 p52 p64 p51 p44 p55 p11 p65 p66 "
        "b5 b7 b0 d31 t2 p22 p42 p32 p33 p43 p53 p11 p51 p41 p21 p61 p54 p52 p63 p00 p62 p65 p55 p64 p44 p66 "
        "b5 b0 b0 d31 t2 p22 p42 p21 p33 p53 p43 p00 p41 p51 p32 p54 p61 p52 p63 p65 p62 p11 p44 p64 p55 p66 "
        "b21 d42 t1 p11 p52 p21 p61 p53 p31 p66 p62 p51 p55 p65 p54 p22 p41 p63 p44 p00 p43 p64 p33 p32 b5 b0 "
        "b0 d54 t2 p22 p32 p21 p62 p31 p52 p55 p51 p65 p44 p64 p41 p00 p53 p43 p42 p61 p11 p63 p33 p66 b6 b0 "
        "b0 d21 t5"),
    # between strong players (``--level strong``)
    (100196, 31): (
        "b4 b5 b0 d63 t1 p11 p51 p61 p55 p53 p52 p33 p42 p32 p21 p62 p43 p31 p65 p54 p41 p00 p22 p64 p44 p66 "
        "b5 b6 b0 d31 t2"),
    (100363, 83): (
        "b5 b0 b0 d41 t5 p66 p64 p61 p22 p32 p21 p11 p55 p31 p44 p62 p43 p42 p63 p52 p65 p51 p00 p54 p53 p33 "
        "b5 b0 b0 d31 t2 p22 p43 p32 p21 p54 p41 p42 p61 p51 p52 p63 p64 p62 p00 p33 p53 p11 p55 p66 p65 p44 "
        "b6 b0 b0 d32 t1 p11 p51 p21 p61 p42 p41 p66 p65 p62 p55 p53 p52 p33 p43 p63 p54 p00 p64 p31 p22 p44 "
        "b0 b6 b0 d52 t1"),
}


def _position(seed: int, version: int) -> MoonState:
    """Seed ``seed`` (3 players) after the moves of :data:`_LOGS`, the bidder to act."""
    state = G.setup(seed, 3)
    for code in _LOGS[seed, version].split():
        state = G.apply(state, {state.turn: G.decode(code)}).state
    assert state.version == version and state.turn == state.bidder
    return state


def _discard_keeps(state: MoonState, act: Discard, trump: str) -> bool:
    """Whether the bidder's discard ``act`` keeps a bid of all seven tricks with ``trump`` named
    in one of the checker's worlds (searched until the first)."""
    assert state.bidder is not None and state.phase == "discard"
    solver = Solver(trump, state.bidder, TRICKS)
    bit = 1 << ALL_TILES.index(act.tile)
    return any(solver.spare(hands, bit) for hands in worlds(state))


@pytest.mark.parametrize(("seed", "version", "then"), [(100019, 34, "p44"), (100032, 216, "p22"), (100135, 34, "p00"),
                                                   (100152, 86, "p55"), (100281, 211, "p66"), (100363, 83, "p66")])
def test_a_bidder_plays_a_tile_that_keeps_its_bid_in_a_few_deals_rather_than_one_that_keeps_it_in_none(
        seed: int, version: int, then: str) -> None:
    state = _position(seed, version)
    seat = state.turn
    losing = losing_moves(G, state, seat)
    assert G.decode(then) in losing  # the move of the time
    act = G.ai_action(state, seat)
    assert act not in losing  # so it keeps the bid in some deal, as another move does


def test_a_seven_bidder_discards_the_one_tile_whose_discard_keeps_the_bid_in_some_deal() -> None:
    state = _position(100079, 209)  # a bid of 7 after the widow: 8 tiles, one to discard
    assert state.phase == "discard" and state.bid == 7
    act = G.ai_action(state, state.turn)
    # the discard of the time was [2|1] (d21), one of seven that lose the bid in every deal (the
    # checker says so in seconds); only [6|5] keeps it, with 3s trumps, in about 7 % of the deals
    assert act == Discard((6, 5)) and _discard_keeps(state, act, "3")


def test_a_lead_the_checker_once_called_losing_loses_like_every_other_lead() -> None:
    """Seed 100014, the first lead after a bid of 6 with 4s trumps: no lead keeps the bid in
    any deal (the checker once saw [6|1] keep it in one, misreading a defender's lead)."""
    state = _position(100014, 8)
    seat = state.turn
    assert losing_moves(G, state, seat) == frozenset()


def test_a_moon_bidder_names_trumps_that_keep_the_moon_in_some_deal() -> None:
    state = _position(100759, 108)  # a moon bid after the widow and the discard
    assert state.phase == "trump" and state.bid == MOON
    losing = losing_moves(G, state, state.turn)
    assert G.decode("t5") in losing  # the move of the time
    assert G.ai_action(state, state.turn) not in losing  # so it keeps the moon in some deal


def test_the_strong_level_keeps_the_leads_found_to_keep_the_bid_when_the_search_of_every_lead_runs_out() -> None:
    """Seed 100196 between strong players, the bidder's first lead (a bid of 6, 2s trumps): [6|3],
    [6|1] and [0|0] lose the bid in every deal, the four other leads keep it in a few. The complete
    search of all seven leads (the strong level's prune) runs past its positions while proving
    the losing ones, and the 16 sampled deals hold none that keeps the bid: the leads that search
    found to keep it before it ran out are kept, the losing ones dropped, and [6|3] (the move
    of the time) is not played."""
    state = _position(100196, 31)
    seat = state.turn
    losing = losing_moves(G, state, seat)
    assert losing == {Play((6, 3)), Play((6, 1)), Play((0, 0))}
    legal = ai.legal_moves(state, seat)
    assert keeping(state, seat, legal, search.CHECK_BUDGET) is None  # past its budget
    keep = ai.keepers(state, seat, legal, search.CHECK_BUDGET)
    assert keep and not keep & losing
    assert choose(G, state, seat, "strong", salt=100196 * 7 + seat) not in losing
