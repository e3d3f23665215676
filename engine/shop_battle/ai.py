"""The baseline Shop Battle AI (deterministic; uses only what its seat knows).

A player knows every card ever revealed face up (``state.public``) and what it saw privately
(``state.known[seat]``: own top cards, peeks, scouts); because every later move of a card is
public, it knows where each of those cards lies. See ``docs/rules/shop-battle.md``.
"""

from __future__ import annotations

from engine.shop_battle.actions import AI_ORDER, ShopBattleAction, Target
from engine.shop_battle.cards import CollectorCard, card_table
from engine.shop_battle.state import CCW, ShopBattleState, knowledge

__all__ = ["choose_action", "win_chance"]


def win_chance(state: ShopBattleState, seat: int, top: int, char: str, hi: bool,
               pool: list[int], know: frozenset[int]) -> float:
    """Chance (0..1) that card ``top`` beats every other active player's top card on
    ``char``/``hi``: a top card ``seat`` knows counts exactly, an unknown one is drawn from
    ``pool`` (ties count half)."""
    vals = card_table(state.cards, state.rules).values[char]
    mine = vals[top]
    assert mine is not None
    pool_vals = [v for v in (vals[c] for c in pool) if v is not None]
    if pool_vals:
        beat = sum(1 for v in pool_vals if (v < mine if hi else v > mine))
        tie = sum(1 for v in pool_vals if v == mine)
        p_unknown = (beat + 0.5 * tie) / len(pool_vals)
    else:
        p_unknown = 0.5
    p = 1.0
    for o in range(state.players):
        if o == seat or state.out[o] is not None or not state.piles[o]:
            continue
        t = state.piles[o][0]
        v = vals[t]
        if t in know and v is not None:
            p *= 1.0 if (v < mine if hi else v > mine) else (0.5 if v == mine else 0.0)
        else:
            p *= p_unknown
    return p


def _pool(state: ShopBattleState, seat: int, exclude: int | None) -> tuple[list[int], frozenset[int]]:
    """Shop cards ``seat`` has never seen (all shops but ``exclude`` if it has seen them all)."""
    know = knowledge(state, seat)
    shops = [i for i in card_table(state.cards, state.rules).shops if i != exclude]
    pool = [i for i in shops if i not in know]
    return (pool or shops), know


def choose_action(state: ShopBattleState, seat: int, legal: tuple[ShopBattleAction, ...]) -> ShopBattleAction:
    """The AI's choice among ``legal`` (non-empty) for ``seat``.

    Chooser: for every characteristic and direction, the chance that its top card beats every
    other active player's top card (:func:`win_chance`, unknown cards drawn from the shop cards
    it has never seen); picks the best (ties: characteristic order, higher before lower).
    ``peek``: the player with the most cards (ties: rotation order). ``swap``: the player whose
    top card is the strongest as far as it knows (unknown = average), then most cards.
    """
    if state.phase == "choose":
        top = state.piles[seat][0]
        pool, know = _pool(state, seat, top)
        best: tuple[float, int] | None = None
        choice: ShopBattleAction = legal[0]
        for rank, action in enumerate(AI_ORDER):
            p = win_chance(state, seat, top, action.char, action.hi, pool, know)
            key = (p, -rank)
            if best is None or key > best:
                best, choice = key, action
        return choice
    assert state.pending is not None
    card = state.cards[state.pending.card]
    targets = list(state.pending.targets)
    order = {s: k for k, s in enumerate((seat + CCW * k) % state.players for k in range(1, state.players))}
    if isinstance(card, CollectorCard) and card.kind == "swap":
        pool, know = _pool(state, seat, None)
        strength = card_table(state.cards, state.rules).strength
        avg = sum(strength[c] for c in pool) / len(pool)

        def gain(t: int) -> float:
            top = state.piles[t][0]
            return strength[top] if top in know else avg

        pick = max(targets, key=lambda t: (round(gain(t), 9), len(state.piles[t]), -order.get(t, 0)))
    else:
        pick = max(targets, key=lambda t: (len(state.piles[t]), -order.get(t, 0)))
    return Target(target=pick)

