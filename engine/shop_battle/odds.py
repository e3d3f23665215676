"""The chooser's chance to win the round with each announcement (RULINGS S2, S4, S5; rules 5:
S3), over exactly the cards it has not seen: the one place of the engine where an announcement's
round is played out in the worlds the chooser cannot tell from the true one. The normal AI's
refusal of dominated announcements (:func:`engine.shop_battle.ai.dominated`, which the strong
search also prunes with) and the losing-move checker (``tests/blunders/shop_battle.py``) both
count on it; each judges the results by its own rule.

Whatever is announced, the same cards are revealed (S4), and most rounds are settled by the
first card the chooser cannot see that the round reveals (:func:`first_unseen`: usually the
top card of the next opponent). That card is counted exactly: every card the
chooser has not seen (the others' face-down cards, its own cards under its top, the face-down
pot, the cards set aside by the deal) lies there in the same number of worlds
(:func:`~engine.shop_battle.hidden.pinned_variants`), the rest of the unseen cards re-dealt at
random in each. A round that reveals no unseen card but that one, and asks no Collector's
target, ends the same way in every world with that card there, so it is played once for them
all (the results are those of playing every world). The other unseen cards a round reveals
(after a Collector, in a bataille) are sampled, so the deals per card set the precision there.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from engine.shop_battle.actions import Choose, Target
from engine.shop_battle.hidden import hidden_variant, pinned_variants, unseen
from engine.shop_battle.round import advance
from engine.shop_battle.state import ShopBattleState, knowledge

__all__ = ["TargetPick", "first_unseen", "round_results"]

#: ``pick(state, owner)``: the target a Collector's owner picks (phase ``target``, ``state.pending``).
TargetPick = Callable[[ShopBattleState, int], Target]


def first_unseen(state: ShopBattleState, seat: int) -> tuple[int, int] | None:
    """The place ``(pile seat, index)`` of the first card ``seat`` (the chooser) does not know
    that a round is likely to reveal: the top-most such card of the first other player still in,
    in reveal order (S4: the current direction from the chooser), whose pile holds one; when it
    knows every card of the others' piles, the top-most such card of its own pile (revealed in a
    bataille, or handed to another player by a ``swap``); ``None`` when it knows every card of
    every pile."""
    know = knowledge(state, seat)
    n = state.players
    for o in [(seat + state.direction * k) % n for k in range(1, n)] + [seat]:
        if state.out[o] is not None:
            continue
        for i, c in enumerate(state.piles[o]):
            if c not in know:
                return o, i
    return None


def _play(state: ShopBattleState, seat: int, action: Choose, pick: TargetPick) -> tuple[int, set[int], bool]:
    """The round ``seat`` announces ``action`` in, played to its end by the rules (``advance``,
    a Collector's target by ``pick``): ``(result, cards revealed, whether a target was
    picked)``; the result is 2 when ``seat`` takes the pot, 1 when nobody does (carried, S5), 0
    when another player does."""
    start = state.round
    state, _ = advance(state, action)
    picked = False
    while state.phase == "target" and state.round == start:
        assert state.pending is not None
        state, _ = advance(state, pick(state, state.pending.owner))
        picked = True
    last = state.last
    assert last is not None and last.round == start
    result = 1 if last.winner is None else (2 if last.winner == seat else 0)
    return result, {c for plays in last.plays for c, _level in plays}, picked


def round_results(state: ShopBattleState, seat: int, actions: Iterable[Choose], deals: int, *, salt: int,
                  pick: TargetPick) -> dict[Choose, tuple[int, ...]]:
    """Each announcement of ``actions`` and its results (2 won, 1 carried, 0 lost, as
    :func:`_play`) in the same worlds, for the chooser ``seat`` (phase ``choose``): world
    ``d * u + i`` (``d`` < ``deals``, ``u`` the number of cards ``seat`` has not seen) holds the
    ``i``-th of those cards (by id) at :func:`first_unseen`, the other unseen cards dealt by
    ``salt + d``; when ``seat`` knows every card of every pile, ``deals`` worlds of
    ``hidden_variant`` (salts ``salt``, ``salt + 1``, ...). Reproducible from ``state`` and
    ``salt``. ``ValueError`` outside the chooser's decision."""
    if state.phase != "choose" or seat != state.chooser or not state.piles[seat]:
        raise ValueError("round_results is for the chooser's announcement")
    place = first_unseen(state, seat)
    actions = list(actions)
    if place is None:
        plain = [hidden_variant(state, seat, salt + d) for d in range(deals)]
        return {a: tuple(_play(w, seat, a, pick)[0] for w in plain) for a in actions}
    know = knowledge(state, seat)
    cards = sorted(unseen(state, seat)[1])
    u = len(cards)
    first = pinned_variants(state, seat, salt, place, cards)
    out: dict[Choose, list[int]] = {}
    again: dict[Choose, list[int]] = {}  # per action, the indices of the cards to deal again
    for a in actions:
        results = [0] * (deals * u)
        redo = []
        for i, w in enumerate(first):
            result, shown, picked = _play(w, seat, a, pick)
            results[i] = result
            if picked or any(c not in know and c != cards[i] for c in shown):
                redo.append(i)
            else:  # settled by known cards and this one: the same in every deal
                for d in range(1, deals):
                    results[d * u + i] = result
        out[a], again[a] = results, redo
    need = sorted({i for redo in again.values() for i in redo})
    for d in range(1, deals):
        if not need:
            break
        worlds = pinned_variants(state, seat, salt + d, place, [cards[i] for i in need])
        for a in actions:
            todo = set(again[a])
            for i, w in zip(need, worlds, strict=True):
                if i in todo:
                    out[a][d * u + i] = _play(w, seat, a, pick)[0]
    return {a: tuple(r) for a, r in out.items()}
