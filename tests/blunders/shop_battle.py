"""Losing moves of Shop Battle (RULINGS S2-S5; ``docs/rules/shop-battle.md``, "A round").

Judged: the chooser's announcement (phase ``choose``), made on the one card the chooser has
seen. A Collector's target is not judged.

Whatever is announced, the same cards are revealed and go to the round's winner (S4), so the
announcements differ only in who wins the round. An announcement is *losing* when its chance to
win the round is dominated by another's on the same card, over the worlds the chooser cannot
tell from the true one: the other wins the round in at least :data:`MIN_BETTER` of the worlds
more and loses it in no more of them, or does at least as well in every world and strictly
better in :data:`MIN_BETTER` of them. The worlds are those of
:func:`engine.shop_battle.odds.round_results` (the engine's account of what the chooser cannot
see: the first unseen card it faces counted exactly, every card it has not seen lying there in
:data:`DEALS` worlds, the rest re-dealt); in each, each announcement's round is played to its
end by the rules, and the chooser's result is ranked win (takes the pot) > carried (nobody takes
it, S5) > lost (another player takes it). A Collector power that needs a target during that
round takes the first target offered (the result must not depend on any AI).

The worlds come from fixed salts (the same worlds for every announcement), so the judgement is
reproducible; the chances of the other unseen cards are estimates (a gap of a tenth of the
worlds is far beyond their sampling noise, but a rare world may be missed).
"""

from __future__ import annotations

from typing import Any

from engine.shop_battle import odds
from engine.shop_battle.actions import TARGETS, Choose, Target
from engine.shop_battle.state import ShopBattleState

__all__ = ["DEALS", "MIN_BETTER", "losing_moves", "round_results"]

#: Worlds per card the chooser has not seen.
DEALS = 32
#: Least share of the worlds in which the better announcement must do strictly better.
MIN_BETTER = 0.1


def _first_target(state: ShopBattleState, owner: int) -> Target:
    assert state.pending is not None
    return TARGETS[state.pending.targets[0]]


def round_results(game: Any, state: ShopBattleState, seat: int, deals: int = DEALS) -> dict[Choose, tuple[int, ...]]:
    """Each legal announcement of ``seat`` (the chooser) and its results (2 won, 1 carried, 0
    lost) in the worlds of ``odds.round_results`` (``deals`` per unseen card, salt 0)."""
    legal = [a for a in game.legal_actions(state, seat) if isinstance(a, Choose)]
    return odds.round_results(state, seat, legal, deals, salt=0, pick=_first_target)


def losing_moves(game: Any, state: ShopBattleState, seat: int) -> frozenset[Any]:
    """The announcements of ``seat`` dominated by another on the same card (module docstring);
    empty outside the chooser's decision."""
    if state.phase != "choose" or seat != state.chooser:
        return frozenset()
    results = round_results(game, state, seat)
    worlds = len(next(iter(results.values())))
    need = max(1, round(MIN_BETTER * worlds))
    out = set()
    for a, ra in results.items():
        for b, rb in results.items():
            if b == a:
                continue
            by_chance = rb.count(2) - ra.count(2) >= need and rb.count(0) <= ra.count(0)
            everywhere = all(y >= x for x, y in zip(ra, rb, strict=True)) \
                and sum(y > x for x, y in zip(ra, rb, strict=True)) >= need
            if by_chance or everywhere:
                out.add(a)
                break
    return frozenset(out)
