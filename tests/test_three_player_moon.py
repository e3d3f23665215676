"""Scenario tests of Three-Player Moon (RULINGS T1–T7, docs/rules/three-player-moon.md) with
deals scripted through the engine's chance helper :func:`deal_hands`."""

from __future__ import annotations

import json
import random

import pytest

from engine.core import IllegalAction
from engine.three_player_moon import (
    ALL_TILES,
    MAX_HANDS,
    Bid,
    BidderView,
    Discard,
    MoonState,
    MoonView,
    NameTrump,
    Play,
    SeatView,
    ThreePlayerMoon,
    deal_hands,
    deal_order,
    estimate_tricks,
    legal_plays,
    suit_tiles,
    trick_winner,
)

G = ThreePlayerMoon()


def T(code: str) -> tuple[int, int]:
    """``"64" -> (6, 4)``."""
    return (int(code[0]), int(code[1]))


def TT(codes: str) -> tuple[tuple[int, int], ...]:
    return tuple(T(c) for c in codes.split())


def stacked(h0: str, h1: str, h2: str, widow: str, first: int = 0, scores=(0, 0, 0), hand_no: int = 1,
            seed: int = 5) -> MoonState:
    """A state at the start of bidding with the given hands (T1)."""
    base = MoonState(seed=seed, players=3, scores=scores)
    return deal_hands(base, (TT(h0), TT(h1), TT(h2)), T(widow), first_bidder=first, hand_no=hand_no)


def act(state: MoonState, *codes: str):
    """Apply codes in turn (each by the seat to act); returns (state, events)."""
    events = []
    for code in codes:
        (seat,) = G.to_act(state)
        step = G.apply(state, {seat: G.decode(code)})
        state = step.state
        events.extend(step.events)
    return state, events


def play_out(state: MoonState):
    """Let the AI play the rest of the current hand (until the next hand or the end)."""
    hand_no = state.hand_no
    events = []
    while G.to_act(state) and state.hand_no == hand_no:
        (seat,) = G.to_act(state)
        step = G.apply(state, {seat: G.ai_action(state, seat)})
        state = step.state
        events.extend(step.events)
    return state, events


def codes(state: MoonState, seat: int) -> list[str]:
    return [G.encode(a) for a in G.legal_actions(state, seat)]


def play_state(trump, hands, trick=(), turn=None) -> MoonState:
    """A state in the play phase (trick test helper). ``hands`` are strings, ``trick`` (seat, code)."""
    trick_t = tuple((s, T(c)) for s, c in trick)
    leader = trick_t[0][0] if trick_t else 0
    if turn is None:
        turn = (leader + len(trick_t)) % 3
    return MoonState(
        seed=1, players=3, phase="play", hands=tuple(TT(h) if h else () for h in hands), trump=trump,
        bidder=0, bid=4, turn=turn, leader=leader, trick=trick_t, widow=(0, 0), discard=(0, 0),
    )


# Strong stacked deal: seat 0 holds every 6 plus [5|5]; seat 1 the 5s and 4s; seat 2 the rest.
STRONG = ("66 65 64 63 62 61 55", "54 53 52 51 44 43 42", "41 33 32 31 22 21 11", "00")


# --- T1: the tiles and the deal ------------------------------------------------------------


def test_t1_tile_set_and_deal():
    assert len(ALL_TILES) == 22 and len(set(ALL_TILES)) == 22
    assert (0, 0) in ALL_TILES
    assert not any(0 in t for t in ALL_TILES if t != (0, 0))
    assert all(a >= b for a, b in ALL_TILES)
    s = G.setup(42, 3)
    assert [len(h) for h in s.hands] == [7, 7, 7]
    everything = [t for h in s.hands for t in h] + [s.widow]
    assert sorted(everything) == sorted(ALL_TILES)
    assert s.phase == "bid" and s.turn == s.first_bidder and s.hand_no == 1
    with pytest.raises(ValueError):
        deal_order(list(ALL_TILES[:-1]) + [ALL_TILES[0]])
    with pytest.raises(ValueError):
        G.setup(1, 2)
    with pytest.raises(ValueError):
        G.setup(1, 4)


def test_t1_stacked_deal_goes_to_the_right_seats():
    s = stacked(*STRONG)
    assert s.hands[0] == TT("66 65 64 63 62 61 55")
    assert s.hands[2] == TT("41 33 32 31 22 21 11")
    assert s.widow == (0, 0)


# --- T2: bidding ---------------------------------------------------------------------------


def test_t2_first_bidder_is_random_and_seeded():
    firsts = {G.setup(seed, 3).first_bidder for seed in range(30)}
    assert firsts == {0, 1, 2}
    assert G.setup(7, 3) == G.setup(7, 3)


def test_t2_bids_must_rise_and_each_seat_bids_once_clockwise():
    s = stacked(*STRONG, first=1)
    assert s.turn == 1
    assert codes(s, 1) == ["b0", "b4", "b5", "b6", "b7", "b21"]
    assert codes(s, 0) == []
    s, ev = act(s, "b5")
    assert s.turn == 2 and s.bidder == 1 and s.bid == 5
    assert codes(s, 2) == ["b0", "b6", "b7", "b21"]
    with pytest.raises(IllegalAction):
        G.apply(s, {2: Bid(bid=5)})  # not higher
    with pytest.raises(IllegalAction):
        G.apply(s, {2: Bid(bid=4)})
    s, ev = act(s, "b0", "b6")
    # Seat 0 bid last and highest: it is the bidder, bidding is over.
    assert s.phase == "discard" and s.bidder == 0 and s.bid == 6 and s.turn == 0
    assert s.bids == ((1, 5), (2, 0), (0, 6))
    assert [e.key for e in ev][:3] == ["tpm.pass", "tpm.bid", "tpm.widow_taken"]


def test_t2_moon_bid_ends_bidding_at_once():
    s = stacked(*STRONG, first=2)
    s, ev = act(s, "b4", "b21")
    assert s.phase == "discard" and s.bidder == 0 and s.bid == 21
    assert s.bids == ((2, 4), (0, 21))  # seat 1 never bid
    assert ev[1].key == "tpm.moon_bid"
    # 21 is legal even over a 7.
    s2, _ = act(stacked(*STRONG, first=0), "b7")
    assert codes(s2, 1) == ["b0", "b21"]


def test_t2_all_pass_redeals_by_the_next_first_bidder():
    s = stacked(*STRONG, first=2, scores=(3, -4, 9), hand_no=4)
    s2, ev = act(s, "b0", "b0", "b0")
    assert [e.key for e in ev] == ["tpm.pass"] * 3 + ["tpm.redeal", "tpm.hand_start"]
    assert ev[-1].params == {"hand": 5, "seat": 0}
    assert s2.phase == "bid" and s2.hand_no == 5 and s2.first_bidder == 0 and s2.turn == 0
    assert s2.scores == (3, -4, 9)
    assert s2.bids == () and s2.bidder is None and s2.bid == 0
    assert sorted([t for h in s2.hands for t in h] + [s2.widow]) == sorted(ALL_TILES)
    assert s2.hands != s.hands  # a fresh deal


def test_t2_first_bidder_rotates_each_hand():
    s = stacked(*STRONG, first=1)
    s, _ = act(s, "b0", "b0", "b4", "d00", "t6")  # seat 0 bids 4 with every 6
    s, _ = play_out(s)
    assert s.hand_no == 2 and s.first_bidder == 2 and s.turn == 2
    s, _ = act(s, "b0", "b0", "b0")
    assert s.hand_no == 3 and s.first_bidder == 0


# --- T3: widow, discard, trumps ------------------------------------------------------------


def test_t3_widow_pickup_discard_and_trump():
    s = stacked(*STRONG, first=0)
    s, ev = act(s, "b5", "b0", "b0")
    assert s.hands[0] == TT("66 65 64 63 62 61 55 00")
    keys = [(e.key, e.audience) for e in ev]
    assert ("tpm.widow_taken", None) in keys
    private = [e for e in ev if e.key == "tpm.widow_tile"]
    assert len(private) == 1 and private[0].audience == frozenset({0}) and private[0].params["tile"] == "[0|0]"
    assert all("[0|0]" not in json.dumps(e.params) for e in ev if e.audience is None)
    assert len(codes(s, 0)) == 8 and "d00" in codes(s, 0)  # the widow may be discarded
    with pytest.raises(IllegalAction):
        G.apply(s, {0: Discard(tile=(5, 4))})  # not in hand
    s, ev = act(s, "d55")
    assert s.discard == (5, 5) and (5, 5) not in s.hands[0] and len(s.hands[0]) == 7
    assert [e.key for e in ev] == ["tpm.discarded", "tpm.discard_tile"]
    assert ev[1].audience == frozenset({0}) and "tile" not in ev[0].params
    assert s.phase == "trump"
    assert codes(s, 0) == ["t0", "t1", "t2", "t3", "t4", "t5", "t6", "tD", "tN"]
    s, ev = act(s, "tD")
    assert s.trump == "D" and s.phase == "play" and s.turn == 0 and s.leader == 0
    assert ev[0].key == "tpm.trump_doubles"
    assert len(codes(s, 0)) == 7  # the bidder leads any tile


def test_t3_views_hide_widow_and_discard():
    s = stacked(*STRONG, first=0)
    pub = json.dumps(G.view_json(s, None))
    assert type(G.view(s, None)) is MoonView and "hand" not in G.view_json(s, None)
    assert type(G.view(s, 0)) is SeatView  # bidding: nobody has seen the widow yet
    s, _ = act(s, "b5", "b0", "b0", "d00", "t6")
    for seat in (None, 1, 2):
        v = G.view(s, seat)
        assert not isinstance(v, BidderView)
        data = G.view_json(s, seat)
        assert "widow" not in data and "discard" not in data
        assert v.hand_sizes == (7, 7, 7)
    v0 = G.view(s, 0)
    assert isinstance(v0, BidderView) and v0.widow == (0, 0) and v0.discard == (0, 0)
    assert v0.hand == TT("66 65 64 63 62 61 55")
    assert G.view_json(s, 0)["widow"] == [0, 0]
    # Other seats' views never reveal seat 0's tiles.
    assert "[6, 6]" not in json.dumps(G.view_json(s, 1)) and "[6, 6]" not in pub


def test_bidder_view_before_the_discard_shows_the_widow_and_no_discard_yet():
    s, _ = act(stacked(*STRONG, first=0), "b5", "b0", "b0")
    v0 = G.view(s, 0)
    assert isinstance(v0, BidderView) and v0.widow == (0, 0) and v0.discard is None
    assert G.view_json(s, 0)["discard"] is None  # the key is there, empty, as in stored views
    assert G.view(s, 0).hand == TT("66 65 64 63 62 61 55 00")


def test_hidden_variant_keeps_views_and_redeals():
    s = stacked(*STRONG, first=0)
    s, _ = act(s, "b5", "b0", "b0", "d00", "t6", "p66")
    for seat in (None, 0, 1, 2):
        variant = G.hidden_variant(s, seat, 3)
        assert G.view(variant, seat) == G.view(s, seat)
        all_tiles = [t for h in variant.hands for t in h] + list(variant.played) + [variant.discard]
        assert sorted(all_tiles) == sorted(ALL_TILES)
    v1 = G.hidden_variant(s, 1, 3)
    assert v1.hands[1] == s.hands[1] and v1.hands[0] != s.hands[0]


# --- T4 / T5: suits, following, trick winners ---------------------------------------------


def test_t4_suit_rankings():
    assert suit_tiles(6, "N") == TT("66 65 64 63 62 61")
    assert suit_tiles(4, "N") == TT("44 64 54 43 42 41")  # the double is top, others by other end
    assert suit_tiles(0, "N") == ((0, 0),)  # the double blank is alone in its suit
    assert suit_tiles(7, "D") == TT("66 55 44 33 22 11 00")
    assert suit_tiles(4, "D") == TT("64 54 43 42 41")  # doubles left their number
    assert suit_tiles(4, "6") == TT("44 54 43 42 41")  # [6|4] is only a trump
    assert suit_tiles(7, "6") == TT("66 65 64 63 62 61")


def test_t5_led_suit_is_the_higher_end():
    # Led [6|4] asks for 6s: a 4 without a 6 need not follow.
    s = play_state("N", ["", "41 22", "62 41"], trick=[(0, "64")])
    assert codes(s, 1) == ["p41", "p22"]
    s = play_state("N", ["", "", "62 41"], trick=[(0, "64"), (1, "22")])
    assert codes(s, 2) == ["p62"]
    # Led [4|2] asks for 4s, never 2s: a seat with 2s but no 4 plays anything.
    s = play_state("N", ["", "21 33", ""], trick=[(0, "42")])
    assert codes(s, 1) == ["p21", "p33"]
    # ...but a tile whose lower end is the led suit follows it.
    s = play_state("N", ["", "64 21", ""], trick=[(0, "42")])
    assert codes(s, 1) == ["p64"]


def test_t5_lower_end_follower_ranks_by_its_other_end():
    trick = ((0, (5, 3)), (1, (6, 5)), (2, (5, 4)))
    assert trick_winner(trick, "N") == 1  # [6|5] ranks 6 in the 5 suit
    assert trick_winner(((0, (5, 3)), (1, (6, 5)), (2, (5, 5))), "N") == 2  # the double is top


def test_t5_trump_tile_does_not_follow_another_suit():
    # Trump 6, led [5|3] asks for 5s: [6|5] is a trump, not a 5.
    s = play_state("6", ["", "65 21", ""], trick=[(0, "53")])
    assert codes(s, 1) == ["p65", "p21"]
    s = play_state("6", ["", "65 51", ""], trick=[(0, "53")])
    assert codes(s, 1) == ["p51"]
    # Leading [6|5] under trump 6 asks for trumps, not for 5s.
    s = play_state("6", ["", "55 61", ""], trick=[(0, "65")])
    assert codes(s, 1) == ["p61"]
    # The lowest trump beats the led double of another suit.
    assert trick_winner(((0, (5, 5)), (1, (6, 1)), (2, (5, 4))), "6") == 1
    assert trick_winner(((0, (6, 1)), (1, (6, 6)), (2, (6, 2))), "6") == 1


def test_t5_trump_zero_has_a_single_tile():
    assert trick_winner(((0, (6, 6)), (1, (0, 0)), (2, (6, 5))), "0") == 1
    s = play_state("0", ["", "00 61", ""], trick=[(0, "66")])
    assert codes(s, 1) == ["p61"]  # [0|0] is a trump, not a 6


def test_t5_doubles_as_trumps():
    # A led double asks for trumps (doubles), whatever its number.
    s = play_state("D", ["", "41 22", ""], trick=[(0, "44")])
    assert codes(s, 1) == ["p22"]
    s = play_state("D", ["", "41 31", ""], trick=[(0, "44")])
    assert codes(s, 1) == ["p41", "p31"]
    # Led [6|4] asks for 6s; [6|6] is a trump now and does not follow.
    s = play_state("D", ["", "66 61", ""], trick=[(0, "64")])
    assert codes(s, 1) == ["p61"]
    s = play_state("D", ["", "66 31", ""], trick=[(0, "64")])
    assert codes(s, 1) == ["p66", "p31"]
    assert trick_winner(((0, (6, 4)), (1, (0, 0)), (2, (6, 5))), "D") == 1  # [0|0] trumps
    assert trick_winner(((0, (4, 4)), (1, (6, 6)), (2, (0, 0))), "D") == 1  # 6-6 high
    assert trick_winner(((0, (6, 4)), (1, (3, 1)), (2, (6, 5))), "D") == 2


def test_t5_no_trump_and_off_suit_tiles():
    # Void seats' high doubles do not win: only the led suit counts.
    assert trick_winner(((0, (2, 1)), (1, (6, 6)), (2, (5, 5))), "N") == 0
    # Under no trump a double belongs to its number only.
    s = play_state("N", ["", "33 21", ""], trick=[(0, "31")])
    assert codes(s, 1) == ["p33"]
    assert legal_plays(TT("66 11"), (), "N") == TT("66 11")


def test_t5_illegal_plays_are_refused_and_winner_leads():
    s = stacked(*STRONG, first=0)
    s, _ = act(s, "b4", "b0", "b0", "d00", "tN", "p55")
    # Seat 1 holds 5s: must follow.
    assert codes(s, 1) == ["p54", "p53", "p52", "p51"]
    with pytest.raises(IllegalAction):
        G.apply(s, {1: Play(tile=(4, 4))})
    with pytest.raises(IllegalAction):
        G.apply(s, {2: Play(tile=(4, 1))})  # not its turn
    s, ev = act(s, "p51")
    assert codes(s, 2)[:2] == ["p41", "p33"] and len(codes(s, 2)) == 7  # void in 5s
    s, ev = act(s, "p11")
    assert ev[-1].key == "tpm.trick" and ev[-1].params == {"winner": 0, "trick": 1}
    assert s.turn == 0 and s.leader == 0 and s.tricks_won == (1, 0, 0)
    assert s.last_trick == ((0, (5, 5)), (1, (5, 1)), (2, (1, 1)))
    # Seat 0 leads [6|1]: nobody else holds a 6, so it wins again and leads next.
    s, _ = act(s, "p61", "p54")
    assert s.turn == 2  # seat 2 still to play on the 6 lead
    s, _ = act(s, "p21")
    assert s.turn == 0 and s.tricks_won == (2, 0, 0)


# --- T6: scoring -----------------------------------------------------------------------------


def test_t6_made_bid_scores_the_bid_without_overtricks():
    s = stacked(*STRONG, first=0, scores=(2, 5, 1))
    s, _ = act(s, "b4", "b0", "b0", "d00", "t6")
    s, ev = play_out(s)
    made = [e for e in ev if e.key == "tpm.made"]
    assert made and made[0].params == {"bidder": 0, "bid": 4, "tricks": 7}
    assert s.scores == (6, 5, 1)
    assert s.last_hand.points == (4, 0, 0) and s.last_hand.made and s.last_hand.tricks == (7, 0, 0)


def test_t6_set_bidder_loses_the_bid_and_others_score_tricks():
    # Seat 0 holds small tiles and bids 7: it cannot take every trick.
    s = stacked("21 31 32 41 42 43 51", "66 65 64 63 62 61 55", "54 53 52 44 33 22 11", "00", first=0)
    s, _ = act(s, "b7", "b0", "b0", "d00", "tN")
    s, ev = play_out(s)
    tricks = s.last_hand.tricks
    assert tricks[0] < 7 and sum(tricks) == 7
    assert s.last_hand.points == (-7, tricks[1], tricks[2])
    assert s.scores == (-7, tricks[1], tricks[2])  # scores may go negative
    assert [e.key for e in ev if e.key in ("tpm.made", "tpm.set")] == ["tpm.set"]
    assert s.phase == "bid" and s.hand_no == 2


def test_t6_made_moon_wins_at_once():
    s = stacked("66 55 44 33 22 11 00", "65 64 63 62 61 54 53", "52 51 43 42 41 32 31", "21",
                first=0, scores=(3, 17, 12))
    s, _ = act(s, "b21", "d21", "tD")
    s, ev = play_out(s)
    assert s.phase == "over" and s.moon_winner == 0 and s.tricks_won == (7, 0, 0)
    assert s.scores == (24, 17, 12)
    assert G.outcome(s).winners == (0,)
    assert ev[-1].key == "tpm.game_end_moon"
    assert G.to_act(s) == frozenset()


def test_t6_made_moon_wins_even_from_far_behind():
    s = stacked("66 55 44 33 22 11 00", "65 64 63 62 61 54 53", "52 51 43 42 41 32 31", "21",
                first=0, scores=(-8, 20, 19))
    s, _ = act(s, "b21", "d21", "tD")
    s, _ = play_out(s)
    assert s.phase == "over" and G.outcome(s).ranks == (1, 2, 3)
    assert s.scores == (13, 20, 19)  # the moon scores 21, no more: it wins by the rule, not the score


def test_t6_failed_moon_costs_21():
    s = stacked("21 31 32 41 42 43 51", "66 65 64 63 62 61 55", "54 53 52 44 33 22 11", "00",
                first=0, scores=(10, 0, 0))
    s, _ = act(s, "b21", "d00", "tN")
    s, ev = play_out(s)
    t = s.last_hand.tricks
    assert "tpm.moon_failed" in [e.key for e in ev]
    assert s.scores == (-11, t[1], t[2]) and s.phase == "bid"


# --- T7: end of the game -----------------------------------------------------------------------


def test_t7_reaching_21_ends_with_the_highest_score():
    s = stacked(*STRONG, first=0, scores=(18, 20, 3))
    s, _ = act(s, "b4", "b0", "b0", "d00", "t6")
    s, ev = play_out(s)
    assert s.phase == "over" and s.scores == (22, 20, 3)
    out = G.outcome(s)
    assert out.ranks == (1, 2, 3) and out.scores == (22, 20, 3)
    assert ev[-1].key == "tpm.game_end" and ev[-1].params == {"winner": 0, "score": 22}


def test_t7_non_bidder_can_win_with_tricks():
    s = stacked("21 31 32 41 42 43 51", "66 65 64 63 62 61 55", "54 53 52 44 33 22 11", "00",
                first=0, scores=(0, 19, 0))
    s, _ = act(s, "b7", "b0", "b0", "d00", "tN")
    s, _ = play_out(s)
    # Seat 1 holds the top 6s and takes 3 tricks: 19 + 3 = 22 ends the game for a non-bidder.
    assert s.last_hand.tricks == (0, 3, 4) and s.last_hand.points == (-7, 3, 4)
    assert s.phase == "over" and s.scores == (-7, 22, 4) and G.outcome(s).ranks == (3, 1, 2)


def test_t7_tie_at_the_top_plays_on_until_strictly_ahead():
    s = stacked(*STRONG, first=0, scores=(17, 21, 0))
    s, _ = act(s, "b4", "b0", "b0", "d00", "t6")
    s, ev = play_out(s)
    assert s.scores == (21, 21, 0)
    assert s.phase == "bid" and s.hand_no == 2 and G.outcome(s) is None
    assert "tpm.tie_continue" in [e.key for e in ev]
    # Next hand (stacked): seat 1 holds the 6s and makes 4.
    s = deal_hands(s, (TT("54 53 52 51 44 43 42"), TT(STRONG[0]), TT(STRONG[2])), T("00"), first_bidder=1)
    s, _ = act(s, "b4", "b0", "b0", "d00", "t6")
    s, _ = play_out(s)
    assert s.phase == "over" and s.scores == (21, 25, 0) and G.outcome(s).winners == (1,)


def test_below_21_the_game_goes_on():
    s = stacked(*STRONG, first=0, scores=(10, 3, 20))
    s, _ = act(s, "b4", "b0", "b0", "d00", "t6")
    s, _ = play_out(s)
    assert s.scores == (14, 3, 20) and s.phase == "bid" and s.hand_no == 2


def test_safety_cap_ends_the_game():
    s = stacked(*STRONG, first=0, hand_no=MAX_HANDS, scores=(5, 5, 1))
    s, ev = act(s, "b0", "b0", "b0")
    assert s.phase == "over" and G.outcome(s).ranks == (1, 1, 3)
    assert ev[-1].key == "tpm.game_end_cap"


# --- codes, views, JSON ----------------------------------------------------------------------


def test_codec_round_trip_and_malformed_codes():
    for action in [Bid(bid=0), Bid(bid=21), Discard(tile=(6, 4)), NameTrump(trump="D"), NameTrump(trump="3"),
                   Play(tile=(0, 0))]:
        assert G.decode(G.encode(action)) == action
    assert G.encode(Play(tile=(6, 4))) == "p64" and G.encode(Discard(tile=(6, 4))) == "d64"
    for bad in ["p46", "p60", "p7", "p", "b3", "b8", "b22", "tX", "t7", "d", "x64", "p644", ""]:
        with pytest.raises(IllegalAction):
            G.decode(bad)


def test_views_json_and_public_shape():
    s = stacked(*STRONG, first=0)
    s, _ = act(s, "b4", "b0", "b0", "d00", "t6", "p66", "p54")
    v = G.view(s, None)
    assert v.trick == ((0, (6, 6)), (1, (5, 4))) and v.turn == 2 and v.to_act == (2,)
    assert v.bidder == 0 and v.bid == 4 and v.trump == "6"
    assert v.hand_sizes == (6, 6, 7) and v.played == ((6, 6), (5, 4))
    data = G.view_json(s, None)
    assert json.loads(json.dumps(data)) == data
    assert data["trick"] == [[0, [6, 6]], [1, [5, 4]]] and data["to_act"] == [2]
    assert "hand" not in data and "widow" not in data and "discard" not in data and "seat" not in data
    assert G.view_json(s, 1)["seat"] == 1 and G.view_json(s, 1)["hand"][0] == [5, 3]
    back = G.load_state(json.loads(json.dumps(G.dump_state(s))))
    assert back == s


def test_over_view_has_no_turn_and_names_the_winners():
    s = stacked(*STRONG, first=0, scores=(18, 20, 3))
    s, _ = act(s, "b4", "b0", "b0", "d00", "t6")
    s, _ = play_out(s)
    v = G.view(s, 2)
    assert v.phase == "over" and v.turn is None and v.to_act == () and v.winners == (0,)
    assert v.last_hand is not None and v.last_hand.points == (4, 0, 0)
    assert G.view_json(s, None)["last_hand"]["points"] == [4, 0, 0]


def test_deal_hands_refuses_a_deal_that_is_not_the_22_tiles():
    base = MoonState(seed=1, players=3)
    with pytest.raises(ValueError):
        deal_hands(base, (TT(STRONG[0]), TT(STRONG[1])), T("00"))  # two hands
    with pytest.raises(ValueError):
        deal_hands(base, (TT(STRONG[0]), TT(STRONG[1]), TT(STRONG[1])), T("00"))  # a tile twice
    s = deal_hands(base, (TT(STRONG[2]), TT(STRONG[0]), TT(STRONG[1])), T("00"), first_bidder=2)
    assert s.hands[1] == TT(STRONG[0]) and s.widow == (0, 0) and s.turn == 2 and s.hand_no == 1


_EVERY_CODE = ["b0", "b4", "b5", "b6", "b7", "b21", *("t" + x for x in "0123456DN"),
               *(f"d{a}{b}" for a, b in ALL_TILES), *(f"p{a}{b}" for a, b in ALL_TILES)]


def test_apply_accepts_exactly_the_legal_actions():
    """``apply``'s own legality check agrees with ``legal_actions`` for every code and seat."""
    for seed in range(3):
        rng = random.Random(seed)
        s = G.setup(seed, 3)
        for _ in range(60):  # two hands or more: every phase, redeals included
            for seat in range(3):
                legal = G.legal_actions(s, seat)
                for code in _EVERY_CODE:
                    action = G.decode(code)
                    assert G.is_legal(s, seat, action) == (action in legal), (code, seat, s.phase)
            (seat,) = G.to_act(s)
            s = G.apply(s, {seat: rng.choice(G.legal_actions(s, seat))}).state
    over = stacked("66 55 44 33 22 11 00", "65 64 63 62 61 54 53", "52 51 43 42 41 32 31", "21")
    over, _ = play_out(act(over, "b21", "d21", "tD")[0])
    assert over.phase == "over"
    assert not any(G.is_legal(over, seat, G.decode(c)) for seat in range(3) for c in _EVERY_CODE)
    with pytest.raises(IllegalAction):
        G.apply(over, {over.turn: Bid(bid=0)})


# --- AI ------------------------------------------------------------------------------------------


def test_estimate_counts_sure_tricks():
    est, sure = estimate_tricks(TT("66 65 64 63 62 61 55"), "6")
    assert est == 7 and sure
    est, sure = estimate_tricks(TT("21 31 32 41 42 43 51"), "N")
    assert est == 0 and not sure


def test_ai_bids_strong_hands_and_passes_weak_ones():
    s = stacked("21 31 32 41 42 43 51", "66 65 64 63 62 61 55", "54 53 52 44 33 22 11", "00", first=0)
    assert G.ai_action(s, 0) == Bid(bid=0)
    s, _ = act(s, "b0")
    assert G.ai_action(s, 1) == Bid(bid=21)
    s = stacked(*STRONG, first=0)
    assert G.ai_action(s, 0) == Bid(bid=21)  # every tile is a sure trick with 6s as trumps
    s = stacked("66 65 64 63 55 54 11", "62 61 53 52 51 44 43", "42 41 33 32 31 22 21", "00", first=0)
    assert G.ai_action(s, 0) == Bid(bid=21)  # 4 top trumps over 2, then the tops of 5 and 1
    s = stacked("66 65 64 55 54 31 11", "63 62 61 53 52 51 44", "43 42 41 33 32 22 21", "00", first=0)
    # [3|1] is not a sure trick, but most widows let it be discarded: shoot the moon.
    assert G.ai_action(s, 0) == Bid(bid=21)
    s = stacked("66 64 53 44 41 31 11", "43 42 33 32 22 21 51", "65 63 62 61 55 54 52", "00", first=0)
    assert G.ai_action(s, 0) == Bid(bid=5)  # about 5.7 tricks, the widow's value counted
    s, _ = act(s, "b5")
    assert G.ai_action(s, 1) == Bid(bid=0)


def test_ai_discard_trump_and_play_choices():
    s = stacked("66 65 64 55 54 31 11", "63 62 61 53 52 51 44", "43 42 41 33 32 22 21", "00", first=0)
    s, _ = act(s, "b5", "b0", "b0")
    assert G.ai_action(s, 0) == Discard(tile=(3, 1))  # the weakest non-trump
    s, _ = act(s, G.encode(G.ai_action(s, 0)))
    # 5s or 6s as trumps both make every tile a sure trick here; doubles would not.
    assert G.ai_action(s, 0) in (NameTrump(trump="5"), NameTrump(trump="6"))
    s, _ = act(s, "t6")
    assert G.ai_action(s, 0) == Play(tile=(6, 6))  # pull trumps with the top trump
    s, _ = act(s, "p66")
    assert G.ai_action(s, 1) == Play(tile=(6, 1))  # must follow: the lowest trump
    # Winning cheaply: seat 2, last to play on a 5 lead won by the bidder (seat 0), wins with
    # the lowest winner.
    s = play_state("N", ["", "", "55 54 51 22"], trick=[(0, "53"), (1, "52")])
    assert G.ai_action(s, 2) == Play(tile=(5, 4))
    # The other defender (seat 1) holds the trick and the bidder has played: no overtaking.
    s = play_state("N", ["", "", "55 54 51 22"], trick=[(0, "52"), (1, "53")])
    assert G.ai_action(s, 2) == Play(tile=(5, 1))
    # Losing: throw the lowest tile, keeping trumps and doubles.
    s = play_state("6", ["", "", "61 33 42 21"], trick=[(0, "55"), (1, "65")])
    assert G.ai_action(s, 2) == Play(tile=(2, 1))


def _random_vs_ai(seed: int, ai_seat: int) -> bool:
    rng = random.Random(f"t:{seed}")
    s = G.setup(seed, 3)
    while G.to_act(s):
        (seat,) = G.to_act(s)
        legal = G.legal_actions(s, seat)
        if seat == ai_seat:
            a = G.ai_action(s, seat)
            assert a in legal and G.ai_action(s, seat) == a
        else:
            a = rng.choice(legal)
        s = G.apply(s, {seat: a}).state
    return ai_seat in G.outcome(s).winners


def test_ai_beats_random_players():
    wins = sum(_random_vs_ai(seed, seed % 3) for seed in range(36))
    assert wins >= 27, wins  # three in four (the arena's 200-game figure is in docs/ai.md)


def test_ai_self_play_ends_and_mostly_makes_its_bids():
    made = set_ = moons = failed = 0
    for seed in range(15):
        s = G.setup(seed, 3)
        while G.to_act(s):
            (seat,) = G.to_act(s)
            step = G.apply(s, {seat: G.ai_action(s, seat)})
            s = step.state
            for e in step.events:
                made += e.key == "tpm.made"
                set_ += e.key == "tpm.set"
                moons += e.key == "tpm.moon_made"
                failed += e.key == "tpm.moon_failed"
        assert G.outcome(s) is not None
    assert made > 3 * set_ and made + moons > 2 * (set_ + failed) and moons
