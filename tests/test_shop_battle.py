"""Shop Battle engine: rulings S1-S6 and every Collector power as stacked-deck scenarios."""

from __future__ import annotations

import dataclasses
import json
import random
from typing import Any

import pytest

from engine.core import IllegalAction
from engine.shop_battle import (
    LATE_CHOOSERS_FROM,
    MAX_ROUNDS,
    Choose,
    Deck,
    ShopBattle,
    ShopBattleOptions,
    Target,
    deal,
    default_deck,
    give_leftovers,
    late_choosers,
    shuffled_deal,
)
from tests.shop_tables import G, act, coll, laps_table, shop, start


def names(state, ids) -> list[str]:
    return [state.cards[i].name for i in ids]


def pile_names(state, seat: int) -> list[str]:
    return names(state, state.piles[seat])


def keys(step) -> list[str]:
    return [e.key for e in step.events]


# --- S3: the deal -------------------------------------------------------------------------------


def test_deal_is_even_and_the_remainder_starts_the_pot_under_rules_2():
    piles, pot = deal(list(range(10)), 3)
    assert piles == ((0, 3, 6), (1, 4, 7), (2, 5, 8)) and pot == (9,)
    total = len(default_deck().cards)
    for n in range(2, 7):
        piles2, pot2, chooser2 = shuffled_deal(5, total, n, rules=2)
        assert {len(p) for p in piles2} == {total // n} and len(pot2) == total % n
        # rules 3 shuffle and draw the chooser the same way, then hand the leftovers out
        piles3, pot3, chooser3 = shuffled_deal(5, total, n, rules=3)
        assert chooser3 == chooser2 and pot3 == ()
        assert [p[: total // n] for p in piles3] == list(piles2)
        extra = [s for s in range(n) if len(piles3[s]) > total // n]
        assert len(extra) == total % n and all(len(piles3[s]) == total // n + 1 for s in extra)
        assert sorted(piles3[s][-1] for s in extra) == sorted(pot2)


def test_rules_4_deal_gives_the_leftovers_to_the_last_choosers_at_5_and_6_players():
    total = len(default_deck().cards)  # 47: 1 to 5 cards left over at 2 to 6 players
    for n in range(2, 7):
        piles2, pot2, chooser = shuffled_deal(5, total, n, rules=2)
        piles4, pot4, chooser4 = shuffled_deal(5, total, n, rules=4)
        assert chooser4 == chooser and pot4 == ()
        if n < LATE_CHOOSERS_FROM:  # 2-4 players: at random, exactly as rules 3
            assert (piles4, pot4) == shuffled_deal(5, total, n, rules=3)[:2]
            continue
        # the last chooser of the first lap (counter-clockwise: the seat after the chooser) first
        seats = late_choosers(chooser, n, len(pot2))
        assert seats == [(chooser + k) % n for k in range(1, len(pot2) + 1)]
        assert piles4 == give_leftovers(piles2, pot2, seats)
        order = G.turn_order(G.start_from(5, piles4, (), chooser))
        assert [len(piles4[order[k]]) for k in range(n)][-len(pot2):] == [total // n + 1] * len(pot2)
    with pytest.raises(ValueError):
        late_choosers(0, 3, 3)


class _Rules4(ShopBattle):
    rules_version = 4  # a table set up before rules 5


def test_rules_5_deal_sets_the_leftovers_aside_out_of_the_game():
    """S3 as written: every player starts with the same number of cards; the leftovers are set
    aside face down, seen by nobody, and never come back into the game."""
    total = len(default_deck().cards)
    for n in range(2, 7):
        piles2, pot2, chooser2 = shuffled_deal(5, total, n, rules=2)
        piles5, pot5, chooser5 = shuffled_deal(5, total, n, rules=5)
        assert (piles5, pot5, chooser5) == (piles2, (), chooser2)  # the same shuffle and chooser draw
        st = G.setup(5, n)
        assert st.rules == 5 and st.face_down == () and set(st.pot) <= set(st.public)  # Collectors shown (S2)
        assert st.aside == tuple(sorted(pot2)) and len(st.aside) == total % n
        back = sorted(len(p) + len(st.plays[s]) for s, p in enumerate(st.piles))
        assert back == [total // n] * n
        assert not set(st.aside) & (set(st.public) | {c for k in st.known for c in k})
        data = G.dump_state(st)
        assert data["aside"] == list(st.aside) and G.load_state(data) == st
    st = G.setup(9, 3)  # 47 = 3 * 15 + 2: two cards out of the game to the end
    while st.phase != "over":
        st = G.apply(st, {min(G.to_act(st)): G.ai_action(st, min(G.to_act(st)))}).state
        held = [c for p in st.piles for c in p] + list(st.pot)
        assert not set(held) & set(st.aside) and len(held) + len(st.aside) == total
    # start_from: the ids in neither the piles nor the pot are set aside; an id twice is refused
    ids = list(range(total))
    st = G.start_from(1, [ids[0:20], ids[20:40]], (), 0)
    assert st.aside == tuple(range(40, total))
    with pytest.raises(ValueError):
        G.start_from(1, [ids[0:20], ids[19:40]], (), 0)
    with pytest.raises(ValueError):
        G.start_from(1, [ids[0:20], ids[20:40]], (), 0, rules=4)  # rules 1-4: every card once


def test_rules_4_setup_gives_the_leftovers_one_each_and_starts_with_an_empty_pot():
    total = len(default_deck().cards)
    for n in range(2, 7):
        st = _Rules4().setup(5, n)
        assert st.rules == 4 and st.face_down == () and st.aside == ()
        assert "aside" not in _Rules4().dump_state(st)
        # the chooser may already have revealed Collectors into the pot (S2), so count plays back
        back = sorted(len(p) + len(st.plays[s]) for s, p in enumerate(st.piles))
        assert back == [total // n] * (n - total % n) + [total // n + 1] * (total % n)
        assert sum(back) == total


def test_give_leftovers_puts_each_card_under_a_distinct_pile():
    assert give_leftovers([(0, 1), (2, 3), (4, 5)], (6, 7), (2, 0)) == ((0, 1, 7), (2, 3), (4, 5, 6))
    with pytest.raises(ValueError):
        give_leftovers([(0,), (1,)], (2, 3), (0,))


def test_first_round_winner_takes_the_dealt_remainder():
    a, b, r = shop("Alpha", year=2000), shop("Beta", year=1900), shop("Rest")
    st = start([[a, shop(), shop(), shop()], [b, shop(), shop(), shop()]], pot=[r], chooser=0)
    view = G.view(st, None)
    assert view.pot == 1 and view.pot_face_down == 1
    step = act(st, "c.year.hi")
    st = step.state
    # the remainder first (it was in the pot), then the cards in reveal order
    assert pile_names(st, 0)[-3:] == ["Rest", "Alpha", "Beta"]
    assert len(st.piles[0]) == 6 and len(st.piles[1]) == 3 and st.pot == ()


# --- S4: a round ----------------------------------------------------------------------------------


def test_round_street_number_example_and_counter_clockwise_chooser():
    p0 = [shop("Forty Three", street=43), shop(), shop()]
    p1 = [shop("Two Two Four", street=224), shop(), shop()]
    p2 = [shop("Seven", street=7), shop(), shop()]
    st = start([p0, p1, p2], chooser=0)
    assert G.to_act(st) == {0}
    step = act(st, "c.street.hi")
    new = step.state
    ann = next(e for e in step.events if e.key == "sb.ev.announce")
    assert ann.params["value"] == 43 and ann.params["char"] == "street" and ann.params["dir"] == "hi"
    win = next(e for e in step.events if e.key == "sb.ev.win")
    assert win.params == {"winner": 1, "cards": 3}
    # under the winner's pile in reveal order: chooser, then counter-clockwise (seat 2, seat 1)
    assert pile_names(new, 1)[-3:] == ["Forty Three", "Seven", "Two Two Four"]
    assert new.round == 2 and new.chooser == 2  # to the right of seat 0 = seat 2
    assert G.view(new, None).last.winner == 1


def test_lower_value_wins_when_announced():
    st = start([[shop("Old", year=1900), shop(), shop(), shop()], [shop("New", year=2000), shop(), shop(), shop()]])
    st2 = act(st, "c.year.lo").state
    assert G.view(st2, None).last.winner == 0
    st3 = act(st, "c.year.hi").state
    assert G.view(st3, None).last.winner == 1


def test_only_the_chooser_sees_their_top_card():
    st = start([[shop("Secret Top"), shop("Second"), shop(), shop()], [shop("Hidden B"), shop(), shop(), shop()]])
    assert G.view(st, 0).top.name == "Secret Top"
    assert G.view(st, 0).top.letters == 9
    assert G.view(st, 1).top is None
    public = json.dumps(G.view_json(st, None))
    assert "top" not in G.view_json(st, None)
    for hidden in ("Secret Top", "Second", "Hidden B"):
        assert hidden not in public and hidden not in json.dumps(G.view_json(st, 1))
    assert len(G.legal_actions(st, 0)) == 8 and G.legal_actions(st, 1) == ()


# --- S5: bataille ---------------------------------------------------------------------------------


def test_bataille_chain_until_one_wins_takes_every_card():
    p0 = [shop("A1", games=5), shop("A2", games=7), shop("A3", games=1), shop()]
    p1 = [shop("B1", games=5), shop("B2", games=7), shop("B3", games=9), shop()]
    p2 = [shop("C1", games=2), shop("C2", games=99), shop()]
    st = start([p0, p1, p2], chooser=0)
    step = act(st, "c.games.hi")
    assert keys(step).count("sb.ev.bataille") == 2
    new = step.state
    last = G.view(new, None).last
    assert last.winner == 1 and last.batailles == 2 and last.pot == 7
    assert len(new.piles[1]) == 1 + 7 and len(new.piles[0]) == 1 and pile_names(new, 2)[0] == "C2"
    # the third player took no part in the bataille
    assert [p.card.name for p in last.plays[2]] == ["C1"]


def test_tied_player_without_card_drops_out_and_the_other_wins():
    p0 = [shop("A1", games=5), shop("A2", games=1)]
    p1 = [shop("B1", games=5)]
    st = start([p0, p1, [shop(games=1), shop(), shop(), shop(), shop()]], chooser=0)
    step = act(st, "c.games.hi")
    assert "sb.ev.no_card" in keys(step)
    last = G.view(step.state, None).last
    assert last.winner == 0
    assert step.state.out[1] == 1  # out at the end of round 1 (S6)


def test_every_tied_player_out_keeps_the_pot_for_the_next_round():
    p0 = [shop("A1", games=50)]
    p1 = [shop("B1", games=50)]
    p2 = [shop("C1", games=1), shop("C2", year=2000), shop(), shop()]
    p3 = [shop("D1", games=2), shop("D2", year=1900), shop(), shop()]
    st = start([p0, p1, p2, p3], chooser=0)
    step = act(st, "c.games.hi")
    new = step.state
    assert "sb.ev.carry" in keys(step) and "sb.ev.win" not in keys(step)
    assert new.out[0] == 1 and new.out[1] == 1
    assert names(new, new.pot) == ["A1", "D1", "C1", "B1"]  # reveal order: 0, then 3, 2, 1
    assert new.chooser == 3  # seat 0 is out: the next active seat to its right
    step2 = act(new, "c.year.hi")  # D2 (1900) vs C2 (2000): seat 2 wins everything
    final = step2.state
    assert G.view(final, None).last.winner == 2
    assert pile_names(final, 2)[-6:] == ["A1", "D1", "C1", "B1", "D2", "C2"]


def test_next_chooser_skips_eliminated_players():
    p0 = [shop("A1", year=2000), shop(), shop()]
    p1 = [shop("B1", year=1990), shop(), shop()]
    p2 = [shop("C1", year=1980), shop(), shop()]
    p3 = [shop("D1", year=1970)]  # seat 3 (to the right of seat 0) loses its last card
    st = start([p0, p1, p2, p3], chooser=0)
    new = act(st, "c.year.hi").state
    assert new.out == (None, None, None, 1)
    assert new.chooser == 2


# --- S6: end ------------------------------------------------------------------------------------


def test_game_ends_when_one_player_holds_every_card():
    st = start([[shop("A1", year=2000), shop(), shop(), shop(), shop(), shop(), shop()], [shop("B1", year=1900)]])
    step = act(st, "c.year.hi")
    final = step.state
    assert G.to_act(final) == frozenset() and final.phase == "over"
    out = G.outcome(final)
    assert out.ranks == (1, 2) and out.scores == (8, 0)
    assert keys(step)[-1] == "sb.ev.end" and step.events[-1].params["players"] == [0]
    with pytest.raises(IllegalAction):
        G.apply(final, {0: Choose(char="year", hi=True)})


@pytest.mark.parametrize("rules", [1, 2])
def test_round_cap_ends_the_game_most_cards_wins_and_ties_share(rules: int):
    p0 = [shop("A1", year=2000), shop()]
    p1 = [shop("B1", year=1950), shop(), shop(), shop(), shop()]
    p2 = [shop("C1", year=1900), shop(), shop()]
    st = start([p0, p1, p2], chooser=0, rules=rules, round_cap=10)
    # round 10, chosen by seat 0: the last chooser of the lap 2, 1, 0 (the choice goes back to 2)
    st = dataclasses.replace(st, round=10, lap_opener=2)
    step = act(st, "c.year.hi")
    final = step.state
    assert "sb.ev.cap" in keys(step) and final.phase == "over"
    out = G.outcome(final)
    assert out.scores == (4, 4, 2) and out.ranks == (1, 1, 3)
    assert G.view(final, None).winners == (0, 1)


def _play_counting_choosers(st) -> tuple[Any, list[int]]:
    chose = [0] * st.players
    while G.to_act(st):
        chose[st.chooser] += 1
        st = act(st, "c.year.hi").state
    return st, chose


def test_s6_round_cap_falls_at_the_end_of_a_full_lap():
    # rules 2: cap 10 at 4 players = 2.5 laps; the game plays the third lap out (rounds 11-12)
    final, chose = _play_counting_choosers(laps_table(rules=2))
    assert final.phase == "over" and final.round == 12
    assert chose == [3, 3, 3, 3]
    assert G.outcome(final) is not None and sum(len(p) for p in final.piles) == 80


def test_s6_rules_1_tables_keep_the_cap_at_the_round():
    # a table set up before the fix: the first two choosers (0, then 3) got one choice more
    final, chose = _play_counting_choosers(laps_table(rules=1))
    assert final.phase == "over" and final.round == 10
    assert chose == [3, 2, 2, 3]
    assert "lap_opener" not in G.dump_state(final)  # the stored form of rules 1 is unchanged


def test_s6_lap_ends_at_the_next_player_still_in_when_its_opener_is_out():
    # 3 players, lap opened by seat 0 (0, 2, 1); seat 0 loses its last card in round 10 (cap)
    p0 = [shop("A1", year=1900)]
    p1 = [shop("B1", year=2000), shop(), shop(), shop()]
    p2 = [shop("C1", year=1950), shop(), shop(), shop()]
    st = start([p0, p1, p2], chooser=1, round_cap=10, rules=3)
    st = dataclasses.replace(st, round=10, lap_opener=0)
    step = act(st, "c.year.hi")
    # the choice would go to seat 2, the next one still in after seat 0: the lap is over
    assert step.state.out[0] == 10 and step.state.phase == "over" and "sb.ev.cap" in keys(step)
    # while the opener is still in, a round that does not close the lap goes on past the cap
    st = start([[shop(year=1900), shop(), shop()], [shop(year=2000), shop(), shop()],
                [shop(year=1950), shop(), shop()]], chooser=1, round_cap=10, rules=3)
    st = dataclasses.replace(st, round=10, lap_opener=2)
    nxt = act(st, "c.year.hi").state
    assert nxt.phase == "choose" and nxt.round == 11 and nxt.chooser == 0 and nxt.lap_opener == 2


def test_s6_a_new_lap_starts_when_the_choice_comes_back():
    st = laps_table(rules=2, cap=50)
    assert st.lap_opener == 0
    for _ in range(4):
        st = act(st, "c.year.hi").state
    assert st.round == 5 and st.chooser == 0 and st.lap_opener == 0
    st = act(st, "c.year.hi").state
    assert st.chooser == 3 and st.lap_opener == 0


def _reverse_in_round_2(rules: int):
    """3 players, cap 10, lap opened by seat 0 (0, 2, 1); seat 1's second card is a ``reverse``,
    revealed in round 2 (chosen by seat 2): the choice goes back to seat 0 before seat 1 chose."""
    years = iter(range(1100, 2100, 7))
    piles = [[shop(year=next(years)) for _ in range(20)] for _ in range(3)]
    piles[1].insert(1, coll("Detour", "reverse"))
    return start(piles, chooser=0, rules=rules, round_cap=10)


def test_s6_rules_4_the_cap_waits_until_everybody_still_in_has_chosen_equally_often():
    # rules 3: the choice came back to the lap's opener, so the lap was over: seat 1 chose once less
    final, chose = _play_counting_choosers(_reverse_in_round_2(rules=3))
    assert final.round == 11 and chose == [4, 3, 4]
    assert "chosen" not in G.dump_state(final)  # the stored form of rules 1-3 is unchanged
    # rules 4: one more round, chosen by seat 1 (seat 0, next in the rotation, is passed over)
    final, chose = _play_counting_choosers(_reverse_in_round_2(rules=4))
    assert final.round == 12 and chose == [4, 4, 4] and final.chosen == (4, 4, 4)
    assert final.last is not None and final.last.chooser == 1 and final.phase == "over"
    assert G.dump_state(final)["chosen"] == [4, 4, 4]
    back = G.load_state(json.loads(json.dumps(G.dump_state(final))))
    assert back == final


def test_s6_rules_4_ends_at_the_cap_when_the_counts_are_already_equal():
    # rules 4 need no lap: the cap round ends the game as soon as the counts are equal
    st = laps_table(rules=4, cap=10)
    assert st.chosen == ()
    final, chose = _play_counting_choosers(st)
    assert final.round == 12 and chose == [3, 3, 3, 3] and final.chosen == (3, 3, 3, 3)


def test_s6_rules_4_past_the_cap_the_chooser_behind_chooses_again_and_skips_are_dropped():
    p0 = [shop("A1", year=2000), shop("A2", year=2001), shop(), shop()]
    p1 = [coll("Closed", "skip"), shop(year=1900), shop(), shop()]
    p2 = [shop(year=1950), shop(), shop(), shop()]
    st = start([p0, p1, p2], chooser=0, round_cap=10)
    st = dataclasses.replace(st, round=10, chosen=(2, 4, 4))
    step = act(st, "c.year.hi")
    nxt = step.state
    # seat 0 has chosen 3 times, the others 4: seat 0 again (it comes last in the rotation,
    # after seats 2 and 1, who are not behind); the skip revealed by seat 1 is dropped
    assert nxt.phase == "choose" and nxt.round == 11 and nxt.chooser == 0 and nxt.skips == 0
    assert nxt.chosen == (3, 4, 4) and "sb.ev.skipped" not in keys(step) and "sb.ev.cap" not in keys(step)
    step = act(nxt, "c.year.hi")
    assert step.state.phase == "over" and step.state.chosen == (4, 4, 4) and "sb.ev.cap" in keys(step)


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_s6_rules_4_dealt_games_at_cap_10_end_once_every_seat_still_in_has_chosen_equally_often(players: int):
    """Full dealt games (a scripted mix of AI and in-turn legal moves, so that powers, batailles
    and rounds past the cap occur): each ends, and one that ends with two or more seats still in
    ends at or after the cap with equal announcement counts, every announcement counted."""
    cards = len(default_deck().cards)
    for seed in (1, 2):
        piles, pot, chooser = shuffled_deal(seed, cards, players, 4)
        state = G.start_from(seed, piles, pot, chooser=chooser, options={"round_cap": 10}, rules=4)
        announced = [0] * players
        k = 0
        while acting := G.to_act(state):
            (seat,) = acting
            legal = G.legal_actions(state, seat)
            action = G.ai_action(state, seat) if k % 3 else legal[k % len(legal)]
            k += 1
            if isinstance(action, Choose):
                announced[seat] += 1
            state = G.apply(state, {seat: action}).state
        assert state.phase == "over"
        assert state.chosen == tuple(announced)
        alive = [s for s in range(players) if state.out[s] is None]
        if len(alive) > 1:
            assert state.round >= 10 and len({announced[s] for s in alive}) == 1


def test_s1_letters_follow_the_rules_version_of_the_table():
    # Dragonʼs Den: 10 letters (ʼ is a modifier letter, not a letter); rules 1 counted 11
    p0 = [shop("Dragonʼs Den"), shop(), shop(), shop()]
    p1 = [shop("Eleven Cards"), shop(), shop(), shop()]  # 11 letters under both rules
    new = start([p0, p1], chooser=0)
    assert new.rules == G.rules_version and G.view(new, 0).top.letters == 10
    step = act(new, "c.letters.hi")
    ann = next(e for e in step.events if e.key == "sb.ev.announce")
    assert ann.params["value"] == 10 and G.view(step.state, None).last.winner == 1
    assert "sb.ev.bataille" not in keys(step)
    old = start([p0, p1], chooser=0, rules=1)
    assert G.view(old, 0).top.letters == 11
    step = act(old, "c.letters.hi")
    assert next(e for e in step.events if e.key == "sb.ev.announce").params["value"] == 11
    assert "sb.ev.bataille" in keys(step)  # 11 against 11
    # a stored rules-1 snapshot keeps the letter counts it was dealt with
    back = G.load_state(json.loads(json.dumps(G.dump_state(old))))
    assert back.rules == 1 and G.view(back, 0).top.letters == 11 and back == old


def test_safety_limit_ends_endless_games():
    st = G.setup(3, 2)
    st = dataclasses.replace(st, round=MAX_ROUNDS)
    while G.to_act(st) and st.round == MAX_ROUNDS:
        (seat,) = G.to_act(st)
        st = G.apply(st, {seat: G.ai_action(st, seat)}).state
    assert st.phase == "over" and G.outcome(st) is not None


# --- S2: Collector powers -----------------------------------------------------------------------


def test_hyper_u_as_the_chooser_top_card_peeks_privately():
    p0 = [coll("HYPER U", {"kind": "peek", "seconds": 10}), shop("My Shop", year=2000), shop()]
    p1 = [shop("B Top", year=1900), shop("B Next"), shop()]
    p2 = [shop("C Top", year=1950), shop("C Next"), shop("C Last")]
    st = start([p0, p1, p2], chooser=0)
    assert st.phase == "target" and G.to_act(st) == {0}
    assert [G.encode(a) for a in G.legal_actions(st, 0)] == ["t.1", "t.2"]
    public = G.view(st, None)
    assert public.plays[0][0].card.name == "HYPER U" and public.pending.owner == 0
    step = act(st, "t.2")
    peek = next(e for e in step.events if e.key == "sb.ev.peek")
    result = next(e for e in step.events if e.key == "sb.ev.peek_result")
    assert peek.audience is None and peek.params == {"player": 0, "target": 2, "seconds": 10}
    assert result.audience == frozenset({0})
    assert [c["name"] for c in result.params["cards"]] == ["C Top", "C Next", "C Last"]
    assert result.params["seconds"] == 10 and result.params["count"] == 3
    st = step.state
    # nothing of the peek in any public place
    for e in step.events:
        if e.audience is None:
            assert "C Next" not in json.dumps(e.params)
    assert "C Next" not in json.dumps(G.view_json(st, None)) and "C Next" not in json.dumps(G.view_json(st, 0))
    # the owner then looks at their next card
    assert st.phase == "choose" and G.view(st, 0).top.name == "My Shop"
    final = act(st, "c.year.hi").state
    # the Collector stays in the pot and goes to the round's winner
    assert pile_names(final, 0)[-4:] == ["HYPER U", "My Shop", "C Top", "B Top"]


def test_collector_revealed_mid_round_is_a_decision_of_its_owner():
    p0 = [shop("A1", street=50), shop(), shop()]
    p1 = [coll("HYPER U", "peek"), shop("B1", street=90), shop()]
    p2 = [shop("C1", street=10), shop(), shop()]
    st = start([p0, p1, p2], chooser=0)
    step = act(st, "c.street.hi")
    mid = step.state
    assert mid.phase == "target" and G.to_act(mid) == {1}
    assert mid.queue == (1,)  # seat 2 revealed already (counter-clockwise), seat 1 pending
    assert [G.encode(a) for a in G.legal_actions(mid, 1)] == ["t.0", "t.2"]
    with pytest.raises(IllegalAction):
        G.apply(mid, {0: Target(target=1)})
    step2 = act(mid, "t.0")
    assert G.view(step2.state, None).last.winner == 1
    assert pile_names(step2.state, 1)[-4:] == ["A1", "C1", "HYPER U", "B1"]


def test_reverse_changes_the_chooser_direction():
    p0 = [shop("A1", year=2000), shop(), shop()]
    p1 = [shop(year=1900), shop(), shop()]
    p2 = [coll("Detour", "reverse"), shop(year=1950), shop()]
    st = start([p0, p1, p2], chooser=0)
    new = act(st, "c.year.hi").state
    assert new.direction == 1 and new.chooser == 1  # clockwise now: seat 0 -> seat 1
    assert G.view(new, None).direction == "cw"
    # and back again
    plain = start([[shop(year=2000), shop(), shop()], [shop(), shop(), shop()], [shop(), shop(), shop()]])
    assert act(plain, "c.year.hi").state.chooser == 2


def test_skip_passes_over_the_next_chooser():
    p0 = [shop("A1", year=2000), shop(), shop()]
    p1 = [coll("Closed", "skip"), shop(year=1900), shop()]
    p2 = [shop(year=1950), shop(), shop()]
    st = start([p0, p1, p2], chooser=0)
    step = act(st, "c.year.hi")
    assert "sb.ev.skipped" in keys(step)
    assert step.state.chooser == 1 and step.state.skips == 0


def test_steal_tie_wins_a_tie_without_bataille():
    p0 = [shop("A1", year=2000), shop("A2", year=2050), shop()]
    p1 = [coll("Unbeatable", "steal_tie"), shop("B1", year=2000), shop()]
    p2 = [shop(year=1950), shop(), shop()]
    st = start([p0, p1, p2], chooser=0)
    step = act(st, "c.year.hi")
    assert "sb.ev.bataille" not in keys(step) and "sb.ev.tiebreak" in keys(step)
    last = G.view(step.state, None).last
    assert last.winner == 1 and last.tiebreak and last.batailles == 0
    assert step.state.tiebreakers == ()  # only for that round


def test_swap_exchanges_the_top_cards():
    p0 = [coll("Barter", "swap"), shop("A Next", year=1900), shop()]
    p1 = [shop("B Top", year=2000), shop("B Next"), shop()]
    p2 = [shop("C Top"), shop(), shop()]
    st = start([p0, p1, p2], chooser=0)
    assert st.phase == "target"
    st = act(st, "t.1").state
    assert G.view(st, 0).top.name == "B Top"
    assert pile_names(st, 1)[:2] == ["A Next", "B Next"]


def test_swap_without_own_pile_has_no_effect():
    p0 = [shop("A1", year=1000), shop(), shop(), shop()]
    p1 = [coll("Barter", "swap")]
    p2 = [shop(year=1950), shop(), shop()]
    st = start([p0, p1, p2], chooser=0)
    step = act(st, "c.year.hi")
    assert "sb.ev.no_effect" in keys(step) and "sb.ev.no_card" in keys(step)
    assert step.state.out[1] == 1


def test_scout_shows_other_top_cards_privately_and_the_ai_uses_it():
    p0 = [coll("Window", "scout"), shop("A1", year=1900, street=5, games=3000), shop()]
    p1 = [shop("B1", year=2050, street=300, games=1), shop(), shop()]
    p2 = [shop("C1", year=2010, street=200, games=2), shop(), shop()]
    st = start([p0, p1, p2], chooser=0)
    assert st.phase == "choose"
    assert set(st.known[0]) >= {st.piles[1][0], st.piles[2][0]}
    # A1 wins for sure on games (higher) or year/street (lower): the AI picks a sure win
    action = G.ai_action(st, 0)
    assert (action.char, action.hi) in {("games", True), ("year", False), ("street", False)}
    # revealed mid-round by seat 1: the private event lists the next top cards of seats 0 and 2
    p1b = [coll("Window", "scout"), shop("B1b", year=1995), shop()]
    st = start([[shop("A1b", year=2000), shop("A2b"), shop()], p1b, [shop("C1b"), shop("C2b"), shop()]], chooser=0)
    step = act(st, "c.year.hi")
    res = next(e for e in step.events if e.key == "sb.ev.scout_result")
    assert res.audience == frozenset({1})
    assert {x["seat"]: x["card"]["name"] for x in res.params["tops"]} == {0: "A2b", 2: "C2b"}
    public = [e for e in step.events if e.audience is None]
    assert not any("A2b" in json.dumps(e.params) for e in public)


def test_tribute_puts_cards_face_down_into_the_pot():
    p0 = [shop("A1", year=2000), shop("A2"), shop("A3")]
    p1 = [coll("Flea Market", {"kind": "tribute", "cards": 1}), shop("B1", year=1900), shop("B2")]
    p2 = [shop("C1", year=1950), shop("C2"), shop("C3")]
    st = start([p0, p1, p2], chooser=0)
    step = act(st, "c.year.hi")
    trib = next(e for e in step.events if e.key == "sb.ev.tribute")
    assert trib.params == {"player": 1, "cards": 2}
    # seat 2 revealed C1 before the tribute (reveal order 0, 2, 1); then A2 and C2 went face down
    final = step.state
    assert G.view(final, None).last.pot == 6
    assert set(pile_names(final, 0)[-6:]) == {"A1", "C1", "Flea Market", "A2", "C2", "B1"}
    assert "A2" not in json.dumps([e.params for e in step.events])


def test_collector_in_a_bataille_applies_then_its_owner_plays_on():
    p0 = [shop("A1", games=5), coll("Detour", "reverse"), shop("A2", games=9), shop()]
    p1 = [shop("B1", games=5), shop("B2", games=7), shop()]
    p2 = [shop("C1", games=1), shop(), shop()]
    st = start([p0, p1, p2], chooser=0)
    step = act(st, "c.games.hi")
    last = G.view(step.state, None).last
    assert last.winner == 0
    assert [p.card.name for p in last.plays[0]] == ["A1", "Detour", "A2"]
    assert step.state.direction == 1


def test_chooser_with_only_collectors_passes_the_choice():
    p0 = [coll("Detour", "reverse")]
    p1 = [shop("B1", year=2000), shop(), shop(), shop()]
    p2 = [shop("C1", year=1900), shop(), shop(), shop()]
    st = start([p0, p1, p2], chooser=0)
    # seat 0 reveals its Collector (reverse: now clockwise), has nothing left: seat 1 chooses
    assert st.chooser == 1 and st.direction == 1
    new = act(st, "c.year.hi").state
    assert new.out[0] == 1 and G.view(new, None).last.winner == 1
    assert "Detour" in pile_names(new, 1)


def test_every_default_power_has_a_scenario_kind():
    kinds = {c.kind for c in default_deck().collectors}
    assert kinds == {"peek", "reverse", "skip", "steal_tie", "swap", "scout", "tribute"}


# --- hidden information, codecs, options ----------------------------------------------------------


def test_hidden_variant_keeps_every_view_and_known_cards():
    rng = random.Random(3)
    st = G.setup(21, 4)
    for _ in range(40):
        if not G.to_act(st):
            break
        for seat in [None, 0, 1, 2, 3]:
            var = G.hidden_variant(st, seat, 5)
            assert G.view(var, seat) == G.view(st, seat)
            know = G.knowledge(st, seat)
            for s in range(4):
                for a, b in zip(st.piles[s], var.piles[s], strict=True):
                    if a in know:
                        assert a == b
        (seat,) = G.to_act(st)
        st = G.apply(st, {seat: rng.choice(G.legal_actions(st, seat))}).state


def test_codes_round_trip_and_malformed_codes_are_refused():
    for code in ("c.year.hi", "c.letters.lo", "c.street.hi", "c.games.lo", "t.0", "t.5"):
        assert G.encode(G.decode(code)) == code
    for bad in ("c.year", "c.size.hi", "c.year.up", "t.6", "t.-1", "t.x", "x.1", "c.year.hi.1"):
        with pytest.raises(IllegalAction):
            G.decode(bad)


def test_state_json_round_trip_keeps_the_custom_deck():
    st = start([[shop("Café du Coin 2"), shop(), shop(), shop()], [shop(), shop(), shop(), coll("HYPER U", "peek")]])
    back = G.load_state(json.loads(json.dumps(G.dump_state(st))))
    assert back == st and back.cards[0].letters() == 10


def test_options_from_lobby_strings_and_custom_decks():
    assert ShopBattleOptions.model_validate({"round_cap": "none"}).round_cap is None
    assert ShopBattleOptions.model_validate({"round_cap": "20"}).round_cap == 20
    assert ShopBattleOptions.model_validate({"deck": 12}).deck == "12"
    for bad in ({"round_cap": 5}, {"round_cap": 500}, {"deck": "a b"}, {"colour": 1}):
        with pytest.raises(ValueError):
            ShopBattleOptions.model_validate(bad)
    with pytest.raises(ValueError):
        G.setup(1, 3, {"deck": "12"})  # a custom deck id without its data
    with pytest.raises(ValueError):
        G.setup(1, 7)
    deck = Deck.model_validate({"name": "Mini", "cards": [shop() for _ in range(8)]})
    st = G.setup(1, 3, {"deck": "12", "deck_data": deck.model_dump()})
    assert st.deck_name == "Mini" and len(st.cards) == 8 and st.deck_id == "12"


# --- AI -------------------------------------------------------------------------------------------


def test_ai_picks_the_characteristic_where_its_card_ranks_best():
    # a card with the highest year and middling values elsewhere: "year, higher" is the best bet
    others = [shop(year=1950 + k, street=100 + k, games=100 + k) for k in range(10)]
    me = shop("Topyer", year=2099, street=105, games=105)  # 6 letters, like every filler
    st = start([[me, *others[:5]], others[5:]], chooser=0)
    assert G.ai_action(st, 0) == Choose(char="year", hi=True)
    me_low = shop("Tinygm", year=1955, street=105, games=0)
    others2 = [shop(year=1950 + k, street=100 + k, games=100 + k) for k in range(10)]
    st2 = start([[me_low, *others2[:5]], others2[5:]], chooser=0)
    assert G.ai_action(st2, 0) == Choose(char="games", hi=False)


def test_ai_peeks_at_the_biggest_pile():
    p0 = [coll("HYPER U", "peek"), shop(), shop()]
    st = start([p0, [shop(), shop()], [shop(), shop(), shop(), shop()]], chooser=0)
    assert G.ai_action(st, 0) == Target(target=2)
    assert G.timeout_action(st, 0) == Target(target=2)


def _play_vs_random(seed: int, players: int) -> bool:
    st = G.setup(seed, players, {"round_cap": 30})
    rng = random.Random(seed)
    ai_seat = seed % players
    while G.to_act(st):
        (seat,) = G.to_act(st)
        legal = G.legal_actions(st, seat)
        st = G.apply(st, {seat: G.ai_action(st, seat) if seat == ai_seat else rng.choice(legal)}).state
    return G.outcome(st).ranks[ai_seat] == 1


def test_ai_beats_random_choosers():
    wins = sum(_play_vs_random(seed, 2) for seed in range(40))
    assert wins >= 32, wins
    wins3 = sum(_play_vs_random(seed, 3) for seed in range(24))
    assert wins3 >= 18, wins3  # a random player wins 1 in 3


def _deal_by_random(seed: int, cards: int, players: int, rules: int) -> Any:
    """The deal as first written (one ``random.Random`` call per draw)."""
    from engine.shop_battle.rules import deal, give_leftovers, late_choosers

    rng = random.Random(f"{seed}:deal")
    order = list(range(cards))
    rng.shuffle(order)
    piles, pot = deal(order, players)
    chooser = rng.randrange(players)
    if rules >= 4 and pot and players >= 5:
        piles, pot = give_leftovers(piles, pot, late_choosers(chooser, players, len(pot))), ()
    elif rules >= 3 and pot:
        piles, pot = give_leftovers(piles, pot, rng.sample(range(players), len(pot))), ()
    return piles, pot, chooser


def test_the_bulk_deal_draws_what_random_random_draws():
    # shuffled_deal reads the Mersenne Twister's words in bulk: same deals under every rules version
    rng = random.Random(11)
    for _ in range(400):
        seed = rng.getrandbits(62) if rng.random() < 0.9 else rng.randrange(-999, 999)
        cards, players, rules = rng.randrange(8, 201), rng.randrange(2, 7), rng.randrange(1, 5)
        assert shuffled_deal(seed, cards, players, rules) == _deal_by_random(seed, cards, players, rules)


def test_lazy_step_events_equal_the_recorded_ones_and_copy_as_plain_steps():
    import copy
    import pickle

    from engine.core import Step

    game = ShopBattle()
    state = game.setup(5, 3)
    for _ in range(40):
        if not game.to_act(state):
            break
        (seat,) = game.to_act(state)
        action = game.legal_actions(state, seat)[0]
        step, again = game.apply(state, {seat: action}), game.apply(state, {seat: action})
        assert step.events and step.events is step.events  # made once, then kept
        assert step == again
        plain = Step(step.state, step.events)
        assert copy.copy(step) == plain and pickle.loads(pickle.dumps(step)) == plain
        state = step.state


def test_loaded_states_of_one_deck_share_one_cards_tuple():
    """Two states decoded from storage with the same deck share their ``cards`` tuple (so the
    card table cached by identity serves both) and load equal to the state dumped."""
    g = G
    state = g.setup(3, 4, {})
    data = json.loads(json.dumps(g.dump_state(state)))
    a, b = g.load_state(data), g.load_state(data)
    assert a == state == b and a.cards is b.cards


def test_dump_and_load_take_a_known_decks_cards_as_they_are_and_validate_any_other():
    """``dump_state`` writes the same dict, in the same key order, as pydantic dumping the whole
    state (the stored form is unchanged); ``load_state`` takes an already validated deck's tuple
    for cards stored exactly as that deck dumps, and validates cards it does not know."""
    from pydantic import TypeAdapter, ValidationError

    from engine.shop_battle import default_deck
    from engine.shop_battle.state import ShopBattleState

    whole = TypeAdapter(ShopBattleState)
    custom = default_deck().model_copy(update={"name": "Mine", "cards": default_deck().cards[::-1]})
    for options in ({}, {"deck": "12", "deck_data": custom.model_dump()}):
        state = G.setup(4, 3, options)
        want = whole.dump_python(state, mode="json")
        data = G.dump_state(state)
        assert json.dumps(data) == json.dumps(want)  # same keys, same order, same values
        back = G.load_state(json.loads(json.dumps(data)))
        assert back == state and back.cards is G.load_state(data).cards
        data["cards"] = list(data["cards"])
        data["cards"][0] = {**data["cards"][0], "name": 12345}  # not a deck seen before
        with pytest.raises(ValidationError):
            G.load_state(data)
        assert G.dump_state(state)["cards"] == want["cards"]  # the cached form was not changed
