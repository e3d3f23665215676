"""Shop Battle: the straight-line round (``engine.shop_battle.round.common_round`` and the setup's
first pre-choice) gives exactly the states and events of the general round machine
(:class:`~engine.shop_battle.round.RoundWork`), including rules 4's rounds past the cap (the
seats behind catch up, S6) and the game's end there (issue 11 part 1)."""

from __future__ import annotations

from typing import Any

from engine.shop_battle import ShopBattle, default_deck, shuffled_deal
from engine.shop_battle.actions import Choose
from engine.shop_battle.round import MAX_ROUNDS, built, common_round

SHOP = ShopBattle()


def reference(state: Any, action: Any) -> tuple[Any, tuple[Any, ...]]:
    """``apply`` by :class:`RoundWork` alone: the new state and its events."""
    new, w = SHOP.round_machine(state, action, MAX_ROUNDS)
    return new, built(w.events)


def test_straight_line_rounds_match_the_round_machine_past_the_cap() -> None:
    cards = len(default_deck().cards)
    past_cap = ended = 0
    for players in range(2, 7):
        for seed in (1, 2):
            piles, pot, chooser = shuffled_deal(seed, cards, players, 4)
            state = SHOP.start_from(seed, piles, pot, chooser=chooser, options={"round_cap": 10}, rules=4)
            k = 0
            while acting := SHOP.to_act(state):
                (seat,) = acting
                legal = SHOP.legal_actions(state, seat)
                action = SHOP.ai_action(state, seat) if k % 3 else legal[k % len(legal)]  # a scripted mix
                k += 1
                if (type(action) is Choose and state.round >= 10
                        and common_round(state, action.char, action.hi) is not None):
                    past_cap += 1
                step = SHOP.apply(state, {seat: action})
                want_state, want_events = reference(state, action)
                assert step.state == want_state
                assert SHOP.dump_state(step.state) == SHOP.dump_state(want_state)
                assert step.events == want_events
                state = step.state
            ended += state.phase == "over"
    assert ended == 10
    assert past_cap > 0  # rounds past the cap went through the straight line
