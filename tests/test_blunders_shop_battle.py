"""Shop Battle's losing-move checker (``tests/blunders/shop_battle.py``) and the levels' refusal
of dominated announcements (``engine.shop_battle.ai.dominated``), on scripted deals and the
position of the issue; how often a level plays one over many games is measured by
``python -m bench.blunders shop-battle``, never here."""

from __future__ import annotations

import dataclasses

from engine.policies import choose
from engine.shop_battle import ShopBattle
from engine.shop_battle.ai import choose_action, dominated
from engine.shop_battle.deck import Deck
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


def _issue_position() -> ShopBattleState:
    """Seed 7003, 2 players, a table of rules 4 at state version 10, reached by normal play: the
    chooser holds Oak Lane Bookshop (founded 1864, the oldest shop it has not seen beaten)."""
    game = _Rules4()
    state = game.setup(7003, 2)
    while state.version < 10:
        (seat,) = game.to_act(state)
        state = game.apply(state, {seat: game.ai_action(state, seat)}).state
    assert state.rules == 4 and state.phase == "choose"
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
