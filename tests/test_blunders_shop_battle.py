"""Shop Battle's losing-move checker (``tests/blunders/shop_battle.py``) and the levels' refusal
of dominated announcements (``engine.shop_battle.ai.dominated``), on scripted deals and the
position of the issue; how often a level plays one over many games is measured by
``python -m bench.blunders shop-battle``, never here."""

from __future__ import annotations

import dataclasses

import pytest

from engine.policies import choose
from engine.shop_battle import ShopBattle, odds
from engine.shop_battle.actions import CHOOSE_ALL, TARGETS
from engine.shop_battle.ai import choose_action, dominated
from engine.shop_battle.deck import Deck
from engine.shop_battle.hidden import pinned_variants
from engine.shop_battle.hidden import unseen as unseen_cards
from engine.shop_battle.search import easy_action
from engine.shop_battle.state import ShopBattleState
from tests.blunders import checker_for, play_and_check
from tests.blunders.shop_battle import round_results

G = ShopBattle()
losing = checker_for("shop-battle")


class _Rules4(ShopBattle):
    rules_version = 4


#: Three filler shops under each top card (a deck holds at least 8 cards).
_FILL = [(1950, 10, 10), (1960, 10, 10), (1970, 10, 10)]


def _stacked(tops: list[tuple[int, int, int]]) -> ShopBattleState:
    """One pile per top card (year, street, games), three :data:`_FILL` shops under each; every
    shop's name has 4 letters. Seat 0 chooses first."""
    cards: list[dict] = []
    ids: list[list[int]] = []
    for pile in ([top, *_FILL] for top in tops):
        ids.append([])
        for year, street, games in pile:
            ids[-1].append(len(cards))
            cards.append({"name": f"Shop{len(cards):04d}", "year_founded": year, "street_number": street,
                          "games_in_shop": games})
    deck = Deck.model_validate({"name": "T", "cards": cards})
    return G.start_from(3, ids, (), 0, {"deck_data": deck})


def test_the_oldest_shop_loses_on_year_high_in_every_world_and_wins_on_year_low():
    state = _stacked([(1800, 10, 10), (1990, 10, 10)])
    assert state.phase == "choose" and state.chooser == 0
    results = round_results(G, state, 0)
    by_code = {G.encode(a): r for a, r in results.items()}
    assert set(by_code["c.year.lo"]) == {2} and set(by_code["c.year.hi"]) == {0}
    bad = {G.encode(a) for a in losing(G, state, 0)}
    assert "c.year.hi" in bad and "c.year.lo" not in bad
    # letters, street and games are equal everywhere: a bataille on each, never a sure loss
    assert {G.encode(a) for a in dominated(state, 0)} >= {"c.year.hi"}
    for level in ("normal", "strong"):
        assert G.encode(choose(G, state, 0, level, salt=1, iterations=20)) == "c.year.lo"


#: The chooser's card in :func:`_close_call`: (year, street, games), 4 letters.
_MINE = (1900, 500, 500)


def _close_call() -> tuple[ShopBattleState, list[tuple[int, int, int, int]]]:
    """2 players, seat 0 to choose on ``Mine`` (:data:`_MINE`, 4 letters); the 21 other cards,
    which the chooser has not seen (10 under its card, 11 in the other pile), differ from it on
    every characteristic (no bataille, no Collector: the opponent's top card alone decides):
    card ``j`` is older for ``j`` < 10, on a lower street for ``j`` < 12, with fewer games for
    ``j`` < 10 and 3 letters (else 6) for ``j`` < 10. Street-high wins against 12 of the 21,
    year-low, letters-high and games-low against 11, the others against 10 or fewer. Returns the
    state and the other cards' (year, street, games, letters)."""
    others = [(1800 + 10 * j if j < 10 else 1950 + j, 100 + j if j < 12 else 600 + j,
               10 + j if j < 10 else 1000 + j, 3 if j < 10 else 6) for j in range(21)]
    cards = [{"name": "Mine", "year_founded": _MINE[0], "street_number": _MINE[1], "games_in_shop": _MINE[2]}]
    cards += [{"name": f"{'Abc' if letters == 3 else 'Abcdef'} {j:02d}", "year_founded": year, "street_number": street,
               "games_in_shop": games} for j, (year, street, games, letters) in enumerate(others)]
    deck = Deck.model_validate({"name": "T", "cards": cards})
    ids = list(range(1, 22))
    state = G.start_from(5, [[0, *ids[:10]], ids[10:]], (), 0, {"deck_data": deck})
    return state, others


def _beaten(others: list[tuple[int, int, int, int]], char: str, hi: bool) -> int:
    """How many of ``others`` the chooser's card beats on ``char`` (higher wins when ``hi``)."""
    k = ("year", "street", "games", "letters").index(char)
    mine = (*_MINE, 4)[k]
    return sum(1 for o in others if (mine > o[k] if hi else mine < o[k]))


def test_every_unseen_card_is_the_opponents_top_equally_often_and_the_chances_are_exact():
    state, others = _close_call()
    place = odds.first_unseen(state, 0)
    assert place == (1, 0)
    _places, unseen = unseen_cards(state, 0)
    assert sorted(unseen) == list(range(1, 22))  # every card but its own top, both piles
    for salt in (0, 9):
        worlds = pinned_variants(state, 0, salt, place, sorted(unseen))
        assert [w.piles[1][0] for w in worlds] == sorted(unseen)
        for w in worlds:  # the chooser's card and the multiset of cards stay, the rest is re-dealt
            assert w.piles[0][0] == 0 and sorted(w.piles[0] + w.piles[1]) == list(range(22))
    for deals in (1, 3):
        results = odds.round_results(state, 0, CHOOSE_ALL, deals, salt=4, pick=lambda st, o: TARGETS[0])
        for a, r in results.items():
            assert len(r) == 21 * deals
            assert r.count(2) == deals * _beaten(others, a.char, a.hi) and r.count(1) == 0


def test_a_close_call_is_no_losing_move_and_the_ai_takes_the_better_chance():
    state, others = _close_call()
    assert _beaten(others, "street", True) == 12 and _beaten(others, "year", False) == 11
    bad = {G.encode(a) for a in losing(G, state, 0)}
    # 11 or 10 of 21 against 12: less than a tenth of the worlds apart; 9 of 21 is more
    assert bad == {G.encode(a) for a in CHOOSE_ALL if _beaten(others, a.char, a.hi) <= 9}
    # the AI's own check sees the same exact chances and keeps only the best
    assert {G.encode(a) for a in CHOOSE_ALL} - {G.encode(a) for a in dominated(state, 0)} == {"c.street.hi"}
    for level in ("normal", "strong"):
        assert G.encode(choose(G, state, 0, level, salt=1, iterations=20)) == "c.street.hi"


#: The moves normal players made from seed 7003 up to the issue's position (seat, action code).
_ISSUE_LOG = [(1, "c.letters.lo"), (0, "c.letters.lo"), (1, "c.games.lo"), (0, "c.games.hi"), (1, "c.street.hi"),
              (0, "c.year.lo"), (1, "c.letters.lo"), (1, "c.games.lo"), (0, "c.letters.lo"), (1, "c.games.lo")]


def _issue_position() -> ShopBattleState:
    """Seed 7003, 2 players, a table of rules 4 at state version 10, reached by the normal play
    of the time (:data:`_ISSUE_LOG`): the chooser holds Oak Lane Bookshop (founded 1864, the
    oldest shop it has not seen beaten)."""
    game = _Rules4()
    state = game.setup(7003, 2)
    for seat, code in _ISSUE_LOG:
        assert game.to_act(state) == {seat}
        state = game.apply(state, {seat: game.decode(code)}).state
    assert state.rules == 4 and state.phase == "choose" and state.version == 10
    assert state.cards[state.piles[state.chooser][0]].name == "Oak Lane Bookshop"
    return state


def test_the_issues_position_year_low_dominates_letters_low_and_no_level_above_easy_announces_it():
    state = _issue_position()
    seat = state.chooser
    bad = {G.encode(a) for a in losing(G, state, seat)}
    assert "c.letters.lo" in bad and "c.year.lo" not in bad
    assert "c.letters.lo" in {G.encode(a) for a in dominated(state, seat)}
    assert G.encode(G.ai_action(state, seat)) == "c.year.lo"
    for salt in range(8):  # the search alone chose letters-low for 3 of these 8 salts
        assert G.encode(choose(G, state, seat, "strong", salt=salt, iterations=200)) not in bad


def test_the_normal_ai_does_not_follow_its_estimate_into_a_dominated_announcement():
    state = _issue_position()
    seat = state.chooser
    legal = G.legal_actions(state, seat)
    bad = dominated(state, seat)
    estimate = choose_action(state, seat, legal)
    safe = G.ai_action(state, seat)
    assert safe not in bad and (estimate not in bad) == (estimate == safe)


def test_a_few_games_at_normal_and_strong_play_no_losing_announcement():
    for seed in (11, 12):
        check = play_and_check("shop-battle", 2, seed, ["normal", "normal"])
        assert check.decisions > 10 and not check.blunders
    check = play_and_check("shop-battle", 2, 13, ["strong", "strong"], iterations=30)
    assert check.decisions > 10 and not check.blunders


def test_easy_says_higher_on_its_cards_best_characteristic_and_forgets_what_it_saw():
    state = _stacked([(1985, 5, 4000), (1990, 20, 20)])
    act = easy_action(G, state, 0, rng=None)  # type: ignore[arg-type]
    assert G.encode(act) == "c.games.hi"  # the most games of the deck: the top of its standing
    known = dataclasses.replace(state, public=tuple(range(len(state.cards))))
    assert easy_action(G, known, 0, rng=None) == act  # type: ignore[arg-type]
    state = _stacked([(1800, 1, 1), (1990, 20, 20)])
    assert G.encode(easy_action(G, state, 0, rng=None)).endswith(".hi")  # type: ignore[arg-type]


#: Positions reached by the normal level from a seed (players, seed, the moves ``seat:code``),
#: where the estimate's announcement (``choose_action``) is dominated: the estimate there and
#: the announcement the normal level makes instead.
_DOMINATED_ESTIMATES = [
    (6, 100004, "3:c.street.lo 4:c.letters.lo 5:c.year.lo 4:t.3 4:t.0 1:c.year.lo 2:c.year.hi 3:c.year.hi 4:c.year.hi"
                " 3:c.letters.hi 2:c.street.hi 5:c.year.hi 3:c.year.hi 2:c.street.lo 1:c.year.lo 5:c.year.hi"
                " 1:c.street.lo 2:c.year.lo 3:c.year.lo 5:t.2 5:t.2 5:c.year.hi 1:c.year.hi 2:c.street.hi"
                " 5:c.year.hi 3:c.year.lo", "c.year.lo", "c.street.lo"),
    (3, 100006, "1:c.street.lo 0:c.street.hi 2:c.letters.lo 0:c.games.lo 2:c.letters.lo 1:c.street.lo 2:t.0"
                " 0:c.street.lo 2:c.games.lo 1:c.year.hi 0:c.year.hi 2:c.letters.lo 1:c.year.lo",
     "c.street.lo", "c.games.lo"),
]


@pytest.mark.parametrize(("players", "seed", "log", "estimate", "played"), _DOMINATED_ESTIMATES)
def test_the_normal_level_replaces_a_dominated_estimate_by_the_best_announcement_left(
        players: int, seed: int, log: str, estimate: str, played: str) -> None:
    state = G.setup(seed, players)
    for move in log.split():
        seat, code = move.split(":")
        assert G.to_act(state) == {int(seat)}
        state = G.apply(state, {int(seat): G.decode(code)}).state
    seat = state.chooser
    legal = G.legal_actions(state, seat)
    bad = dominated(state, seat)
    assert G.encode(choose_action(state, seat, legal)) == estimate and estimate in {G.encode(a) for a in bad}
    assert len(bad) >= 2  # more than the estimate: the next candidates are judged too
    # the normal level judges its candidates best first, playing the others' rounds only as far
    # as that needs: the same announcement as the best one outside the whole dominated set
    assert G.encode(G.ai_action(state, seat)) == played
    assert G.encode(choose_action(state, seat, tuple(a for a in legal if a not in bad))) == played


@pytest.mark.parametrize(("players", "seed"), [(3, 21), (5, 22)])
def test_the_normal_level_plays_the_best_announcement_outside_the_dominated_set(players: int, seed: int) -> None:
    state = G.setup(seed, players)
    judged = 0
    while to_act := G.to_act(state):
        (seat,) = to_act
        legal = G.legal_actions(state, seat)
        move = G.ai_action(state, seat)
        if state.phase == "choose" and len(legal) > 1:
            bad = dominated(state, seat)
            assert move == choose_action(state, seat, tuple(a for a in legal if a not in bad))
            judged += 1
        state = G.apply(state, {seat: move}).state
    assert judged > 10
