"""Who acts and what they may do in Moonshine (RULINGS M2, M5; ``docs/rules/moonshine.md``).

Shared by the Game (:mod:`engine.moonshine.rules`) and the AI (:mod:`engine.moonshine.ai`).
"""

from __future__ import annotations

from itertools import combinations
from typing import Any

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
from engine.moonshine.dice import DIE_NAMES, shortfall, sources_of
from engine.moonshine.icons import DISC, client_info, side_info
from engine.moonshine.state import MoonshineState, SeatState, discard_options, seat_bundle, slot_keys

__all__ = ["is_legal", "legal_actions", "to_act"]


_NOBODY: frozenset[int] = frozenset()
_ONE = tuple(frozenset({i}) for i in range(5))
_ALL = tuple(frozenset(range(n)) for n in range(6))
#: The last state asked about and its answers (``"to_act"`` and one entry per seat): a step asks
#: ``to_act`` and ``legal_actions`` several times of the same immutable state (the caller, then
#: ``apply``'s check), so they are computed once. One entry only, replaced in one assignment.
_LAST: tuple[object, dict[object, object]] = (None, {})


def _memo(state: MoonshineState) -> dict[object, object]:
    global _LAST
    last, memo = _LAST
    if last is not state:
        memo = {}
        _LAST = (state, memo)
    return memo


def to_act(state: MoonshineState) -> frozenset[int]:
    """Seats to decide now: the active player (roll), every seat (action, M2), or the seats with
    a pending private follow-up (in parallel). Empty when the game is over."""
    ph = state.phase
    if ph == "over":
        return _NOBODY
    if ph == "roll":
        return _ONE[state.active]
    if ph == "action":
        return _ALL[state.players]
    memo = _memo(state)
    hit = memo.get("to_act")
    if hit is None:
        hit = memo["to_act"] = frozenset(i for i, s in enumerate(state.seats) if s.queue or s.lose)
    return hit  # type: ignore[return-value]


def legal_actions(state: MoonshineState, seat: int) -> tuple[MoonshineAction, ...]:
    """Every legal action of ``seat`` now, in the stable order of their codes (empty when the
    seat is not to act). Take a Moon token needs an empty space (M5). Computed once per state
    and seat (see ``_LAST``)."""
    if not isinstance(seat, int):
        return ()
    memo = _memo(state)
    hit = memo.get(seat)
    if hit is None:
        hit = memo[seat] = _legal(state, seat)
    return hit  # type: ignore[return-value]


def is_legal(state: MoonshineState, seat: int, action: object) -> bool:
    """True when ``action`` is in ``legal_actions(state, seat)`` (by identity first, then ``==``)."""
    legal = legal_actions(state, seat)
    for a in legal:
        if a is action:
            return True
    return action in legal


#: Legal actions by what they depend on (the key of :func:`_legal`): the same dice pattern, seat
#: layout and front follow-up give the same tuple (actions are immutable values, so it is shared).
#: The rules version is part of the key, so a card set of another version never shares entries.
_BY_KEY: dict[tuple[object, ...], tuple[MoonshineAction, ...]] = {}


def _legal(state: MoonshineState, seat: int) -> tuple[MoonshineAction, ...]:
    if seat not in to_act(state):
        return ()
    ph = state.phase
    s = state.seats[seat]
    if ph == "action":
        return _action_phase(state, s)
    key: tuple[object, ...]
    if ph == "roll":
        key = (ph, *(d != "" for d in state.dice))
    elif s.queue:
        q = s.queue[0]
        if q.kind == "keep":
            return tuple(_interned(Keep, c) for c in q.cards)
        if q.kind == "pick":
            return (*(_interned(Pick, c) for c in q.cards), _PICK_NONE)
        if q.kind == "replace":
            return tuple(_interned(Replace, c) for c in s.clients)
        key = (state.rules, state.variant, s.speakeasy, s.se_tokens, s.clients, s.cl_tokens, q.kind, q.cards, q.n)
    else:
        key = (state.rules, state.variant, s.speakeasy, s.se_tokens, s.clients, s.cl_tokens, s.lose > 0)
    hit = _BY_KEY.get(key)
    if hit is None:
        if len(_BY_KEY) >= 1 << 16:
            _BY_KEY.clear()
        hit = _BY_KEY[key] = _compute(state, seat)
    return hit


#: Shared action values (actions are immutable): ``_INTERNED[(class, value)]``.
_INTERNED: dict[tuple[type, object], MoonshineAction] = {}
_PICK_NONE = Pick(None)
_TAKE_MOON, _DRAW_CARDS = TakeMoon(), DrawCards()


def _interned(cls: type[Any], value: object) -> MoonshineAction:
    hit = _INTERNED.get((cls, value))
    if hit is None:
        if len(_INTERNED) >= 4096:
            _INTERNED.clear()
        hit = _INTERNED[(cls, value)] = cls(value)
    return hit


def _action_phase(state: MoonshineState, s: SeatState) -> tuple[MoonshineAction, ...]:
    """Validate each feasible Client (M4), take a Moon token with an empty space (M5), draw."""
    bundle = seat_bundle(s, state.variant)
    src = sources_of(bundle, state.dice)
    toks = sum(s.se_tokens) + sum(s.cl_tokens)
    disc = bundle[DISC]
    out: list[MoonshineAction] = []
    for cid in s.clients:
        ci = client_info(cid)
        if toks >= max(0, ci.moon - disc) and shortfall(ci.cost, src) == 0:
            out.append(_interned(Validate, cid))
    side = side_info(s.speakeasy, state.variant)
    if (any(t < sp for (sp, _), t in zip(side.slots, s.se_tokens, strict=False))
            or any(t < client_info(c).spaces for c, t in zip(s.clients, s.cl_tokens, strict=False))):
        out.append(_TAKE_MOON)
    out.append(_DRAW_CARDS)
    return tuple(out)


def _compute(state: MoonshineState, seat: int) -> tuple[MoonshineAction, ...]:
    ph = state.phase
    s = state.seats[seat]
    if ph == "roll":
        dice = [DIE_NAMES[i] for i in range(5) if state.dice[i]]
        out: list[MoonshineAction] = [Stop()]
        for r in range(1, len(dice) + 1):
            out += [Reroll(tuple(sorted(c))) for c in combinations(dice, r)]
        return tuple(out)
    if s.queue:
        kind, cards, n = s.queue[0].kind, s.queue[0].cards, s.queue[0].n
        if kind == "place":
            return tuple(Place(k) for k, t, sp in slot_keys(s, state.variant) if t < sp)
        if kind == "discard":
            slots = [(k, t) for k, t, _ in slot_keys(s, state.variant)]
            return tuple(discard_action(o) for o in discard_options(slots, n))
        if kind == "draft":
            return tuple(Draft(tuple(int(x) for x in sorted(str(c) for c in combo))) for combo in combinations(cards, n))
        return ()
    if s.lose:
        return tuple(Lose(k) for k, t, _ in slot_keys(s, state.variant) if t)
    return ()
