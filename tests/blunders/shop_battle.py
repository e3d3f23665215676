"""Losing moves of Shop Battle (RULINGS S2-S5; ``docs/rules/shop-battle.md``, "A round").

Judged: the chooser's announcement (phase ``choose``), made on the one card the chooser has
seen. A Collector's target is not judged.

Whatever is announced, the same cards are revealed and go to the round's winner (S4), so the
announcements differ only in who wins the round. An announcement is *losing* when its chance to
win the round is dominated by another's on the same card, over the worlds the chooser cannot
tell from the true one: the other wins the round in at least :data:`MIN_BETTER` of the worlds
more and loses it in no more of them, or does at least as well in every world and strictly
better in :data:`MIN_BETTER` of them. A world is a
determinization (``game.hidden_variant``, every card the chooser has not seen re-dealt); in it
each announcement's round is played to its end through the engine, and the chooser's result is
ranked win (takes the pot) > carried (nobody takes it, S5) > lost (another player takes it).
A Collector power that needs a target during that round takes the first target offered (the
result must not depend on any AI).

The worlds are :data:`WORLDS` determinizations from fixed salts (the same worlds for every
announcement), so the judgement is reproducible; it is an estimate of the chances (a gap of a tenth of the
worlds is far beyond the sampling noise of 256 paired worlds, but a rare world may be missed).
"""

from __future__ import annotations

from typing import Any

from engine.shop_battle.actions import Choose
from engine.shop_battle.state import ShopBattleState

__all__ = ["MIN_BETTER", "WORLDS", "losing_moves", "round_results"]

#: Determinizations per judged decision.
WORLDS = 256
#: Least share of the worlds in which the better announcement must do strictly better.
MIN_BETTER = 0.1


def _result(game: Any, state: ShopBattleState, seat: int, action: Choose) -> int:
    """2 when ``seat`` takes the pot of the round it announces ``action`` in, 1 when nobody
    does, 0 when another player does (the round played to its end through the engine)."""
    start = state.round
    state = game.apply(state, {seat: action}).state
    while state.phase == "target" and state.round == start:
        assert state.pending is not None
        state = game.apply(state, {state.pending.owner: game.decode(f"t.{state.pending.targets[0]}")}).state
    last = state.last
    assert last is not None and last.round == start
    return 1 if last.winner is None else (2 if last.winner == seat else 0)


def round_results(game: Any, state: ShopBattleState, seat: int, worlds: int = WORLDS) -> dict[Choose, tuple[int, ...]]:
    """Each legal announcement of ``seat`` (the chooser) and its results (:func:`_result`) in
    ``worlds`` determinizations (salts 0, 1, ...)."""
    legal = [a for a in game.legal_actions(state, seat) if isinstance(a, Choose)]
    dets = [game.hidden_variant(state, seat, salt) for salt in range(worlds)]
    return {a: tuple(_result(game, det, seat, a) for det in dets) for a in legal}


def losing_moves(game: Any, state: ShopBattleState, seat: int) -> frozenset[Any]:
    """The announcements of ``seat`` dominated by another on the same card (module docstring);
    empty outside the chooser's decision."""
    if state.phase != "choose" or seat != state.chooser:
        return frozenset()
    results = round_results(game, state, seat)
    need = max(1, round(MIN_BETTER * WORLDS))
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
