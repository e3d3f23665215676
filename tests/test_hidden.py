"""Determinization scenarios (``Game.hidden_variant``, ``engine/<game>/hidden.py``): what a seat
has seen, including the public history, survives in every sample; what it has not seen varies.
Chance is scripted through the engines' helpers (stacked piles, deals and rolls)."""

from __future__ import annotations

from engine.gang_of_dice import GangOfDice, apply_with_faces, scripted_setup
from engine.shop_battle import Deck, ShopBattle, ShopCard
from engine.three_player_moon import ThreePlayerMoon, deal_hands
from engine.three_player_moon.hidden import voids
from engine.three_player_moon.state import MoonState

SALTS = range(1, 25)


# --- Shop Battle ----------------------------------------------------------------------------------


def _shop(name: str, year: int) -> dict:
    return {"name": name, "year_founded": year, "street_number": 1, "games_in_shop": 1}


def _shop_table():
    """Seat 0 chooses with shop A on top; seat 1's face-down top card is a Collector."""
    cards = [_shop("A", 1990), _shop("B", 1991), _shop("C", 1992),
             {"name": "Reverse", "power": "reverse"}, _shop("D", 1993), _shop("E", 1994),
             _shop("F", 1995), _shop("G", 1996)]
    deck = Deck.model_validate({"name": "Test deck", "cards": cards})
    game = ShopBattle()
    return game, game.start_from(7, [[0, 1, 2, 6], [3, 4, 5, 7]], (), 0, {"deck_data": deck})


def test_shop_battle_an_unseen_collector_on_top_may_come_out_a_shop():
    game, st = _shop_table()
    assert st.phase == "choose" and st.chooser == 0 and st.piles[1][0] == 3
    tops = {game.hidden_variant(st, 0, salt).piles[1][0] for salt in SALTS}
    assert 3 in tops and tops - {3}, tops  # the Collector and shop cards, mixed
    for salt in SALTS:
        var = game.hidden_variant(st, 0, salt)
        assert var.piles[0][0] == 0 and var.known[0] == st.known[0]  # what seat 0 saw stays


def test_shop_battle_the_choosers_top_card_is_always_a_shop_for_the_others():
    game, st = _shop_table()
    seen = set()
    for salt in SALTS:
        var = game.hidden_variant(st, 1, salt)
        top = var.piles[0][0]
        seen.add(top)
        assert isinstance(var.cards[top], ShopCard)
        assert var.known[0] == (top,)  # the chooser's knowledge follows the place
        assert game.view(var, 1) == game.view(st, 1)
        assert 3 in [c for p in var.piles for c in p]
    assert len(seen) > 1


# --- Three-Player Moon ----------------------------------------------------------------------------


def _T(code: str) -> tuple[int, int]:
    return (int(code[0]), int(code[1]))


def _moon_after_a_shown_void() -> tuple[ThreePlayerMoon, MoonState]:
    """Seat 0 bids 4, discards [0|0], no trump, leads [6|6]; seat 1 has no 6 and plays [1|1]."""
    game = ThreePlayerMoon()
    hands = [tuple(_T(c) for c in h.split()) for h in
             ("66 65 64 55 54 53 52", "11 21 22 31 32 33 41", "61 62 63 42 43 44 51")]
    st = deal_hands(MoonState(seed=5, players=3), hands, _T("00"), first_bidder=0)
    for code in ("b4", "b0", "b0", "d00", "tN", "p66", "p11"):
        (seat,) = game.to_act(st)
        st = game.apply(st, {seat: game.decode(code)}).state
    return game, st


def test_moon_a_shown_void_holds_in_every_variant():
    game, st = _moon_after_a_shown_void()
    assert voids(st) == (frozenset(), frozenset({6}), frozenset())
    for viewer, unseen in ((2, 0), (0, 2)):
        hands = set()
        for salt in SALTS:
            var = game.hidden_variant(st, viewer, salt)
            assert not any(6 in t for t in var.hands[1]), var.hands[1]
            assert game.view(var, viewer) == game.view(st, viewer)
            hands.add(var.hands[unseen])
        assert len(hands) > 1
    # seat 2 does not know the discard nor the widow: both drawn among what the bidder held
    widows = set()
    for salt in SALTS:
        var = game.hidden_variant(st, 2, salt)
        assert var.widow in (*var.hands[0], var.discard, _T("66"))
        widows.add(var.widow)
    assert len(widows) > 1


def test_moon_the_bidder_keeps_its_widow_and_discard():
    game, st = _moon_after_a_shown_void()
    for salt in SALTS:
        var = game.hidden_variant(st, 0, salt)
        assert (var.widow, var.discard, var.hands[0]) == (st.widow, st.discard, st.hands[0])
        assert all((6, x) in var.hands[2] for x in (1, 2, 3))  # seat 1 is void in 6


# --- Gang of Dice ---------------------------------------------------------------------------------


def test_gang_of_dice_stocks_are_inferred_exactly():
    game = GangOfDice()
    st = scripted_setup(2, cards=["sum13"], first=0)
    for code, faces in (("c3", (5, 5, 5)), ("s", None), ("c1", (1,)), ("s", None)):
        st = apply_with_faces(st, code, faces).state
    # seat 0 triggered "sum of 13 or more" with 15; seat 1 won the 4 dice on the table (public)
    assert st.round == 2 and st.stocks == (45, 51)
    decks = set()
    for seat in (None, 0, 1):
        for salt in SALTS:
            var = game.hidden_variant(st, seat, salt)
            assert var.stocks == (45, 51)
            assert var.deck[:2] == st.deck[:2] and sorted(var.deck) == sorted(st.deck)
            decks.add(var.deck)
    assert len(decks) > 1
