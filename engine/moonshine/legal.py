"""Who acts and what they may do in Moonshine (RULINGS M2, M5; ``docs/rules/moonshine.md``).

Shared by the Game (:mod:`engine.moonshine.rules`) and the AI (:mod:`engine.moonshine.ai`).
"""

from __future__ import annotations

from itertools import combinations

from engine.moonshine.actions import (
    Draft,
    DrawCards,
    Keep,
    Lose,
    MoonshineAction,
    Pick,
    Place,
    Replace,
    Reroll,
    Stop,
    TakeMoon,
    Validate,
    discard_action,
)
from engine.moonshine.dice import DIE_NAMES, feasible, sources_of
from engine.moonshine.state import MoonshineState, discard_options, seat_bundle, seat_tokens, slot_keys

__all__ = ["legal_actions", "to_act"]


def to_act(state: MoonshineState) -> frozenset[int]:
    """Seats to decide now: the active player (roll), every seat (action, M2), or the seats with
    a pending private follow-up (in parallel). Empty when the game is over."""
    ph = state.phase
    if ph == "over":
        return frozenset()
    if ph == "roll":
        return frozenset({state.active})
    if ph == "action":
        return frozenset(range(state.players))
    return frozenset(i for i, s in enumerate(state.seats) if s.queue or s.lose)


def legal_actions(state: MoonshineState, seat: int) -> tuple[MoonshineAction, ...]:
    """Every legal action of ``seat`` now, in the stable order of their codes (empty when the
    seat is not to act). Take a Moon token needs an empty space (M5)."""
    if not isinstance(seat, int) or seat not in to_act(state):
        return ()
    ph = state.phase
    s = state.seats[seat]
    if ph == "roll":
        dice = [DIE_NAMES[i] for i in range(5) if state.dice[i]]
        out: list[MoonshineAction] = [Stop()]
        for r in range(1, len(dice) + 1):
            out += [Reroll(tuple(sorted(c))) for c in combinations(dice, r)]
        return tuple(out)
    if ph == "action":
        bundle = seat_bundle(s, state.variant)
        src = sources_of(bundle, state.dice)
        toks = seat_tokens(s)
        out = [Validate(cid) for cid in s.clients if feasible(cid, bundle, src, toks)]
        if any(t < sp for _, t, sp in slot_keys(s, state.variant)):
            out.append(TakeMoon())
        out.append(DrawCards())
        return tuple(out)
    if s.queue:
        kind, cards, n = s.queue[0].kind, s.queue[0].cards, s.queue[0].n
        if kind == "place":
            return tuple(Place(k) for k, t, sp in slot_keys(s, state.variant) if t < sp)
        if kind == "discard":
            slots = [(k, t) for k, t, _ in slot_keys(s, state.variant)]
            return tuple(discard_action(o) for o in discard_options(slots, n))
        if kind == "keep":
            return tuple(Keep(c) for c in cards)
        if kind == "pick":
            return (*(Pick(c) for c in cards), Pick(None))
        if kind == "replace":
            return tuple(Replace(c) for c in s.clients)
        if kind == "draft":
            return tuple(Draft(tuple(int(x) for x in sorted(str(c) for c in combo))) for combo in combinations(cards, n))
        return ()
    if s.lose:
        return tuple(Lose(k) for k, t, _ in slot_keys(s, state.variant) if t)
    return ()
