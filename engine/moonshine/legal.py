"""Who acts and what they may do in Moonshine (RULINGS M2, M5; ``docs/rules/moonshine.md``).

Shared by the Game (:mod:`engine.moonshine.rules`) and the AI (:mod:`engine.moonshine.ai`).
"""

from __future__ import annotations

from collections.abc import Mapping
from itertools import combinations
from typing import Any

from engine.core import IllegalAction
from engine.moonshine.actions import (
    MoonshineAction,
)
from engine.moonshine.dice import DIE_NAMES, feasible, sources_of
from engine.moonshine.icons import (
    _UNPACKED,
    BLUE,
    CLIENT_INFOS,
    DISC,
    LOWERS,
    ORANGE,
    SIDE_INFOS,
    bundle_bits,
    lower_bits,
    unpack_bundle,
)
from engine.moonshine.legal_answers import (
    _DRAW_CARDS,
    _KEEP_OF,
    _PICK_NONE,
    _PICK_OF,
    _REPLACE_OF,
    _REROLL,
    _STOP,
    _TAKE_MOON,
    _VALIDATE,
    _shared_tuple,
    compute,
    discards,
    losses,
    places,
)
from engine.moonshine.state import MoonshineState, SeatState, remember_bundle
from engine.moonshine.supply import (
    DEMAND,
    DICE_SUPPLY,
    HIGH,
    MOON_LANE,
    RES_BITS,
    RES_SUPPLY,
    dice_supply,
    resource_supply,
)

__all__ = ["check_actions", "is_legal", "legal_actions", "to_act"]


_NOBODY: frozenset[int] = frozenset()
_ONE = tuple(frozenset({i}) for i in range(5))
_ALL = tuple(frozenset(range(n)) for n in range(6))
#: ``_BY_MASK[m]``: the seats whose bits are set in ``m`` (``to_act`` of a follow-up step).
_BY_MASK = tuple(frozenset(i for i in range(5) if m >> i & 1) for m in range(32))
#: The last state asked about and its answers (``"to_act"`` and one entry per seat): a step asks
#: ``to_act`` and ``legal_actions`` several times of the same immutable state (the caller, then
#: ``apply``'s check), so they are computed once. One entry only, replaced in one assignment.
_LAST: tuple[object, dict[object, object]] = (None, {})
#: An empty memo (never written).
_NO_MEMO: dict[object, object] = {}


def to_act(state: MoonshineState) -> frozenset[int]:
    """Seats to decide now: the active player (roll), every seat (action, M2), or the seats with
    a pending private follow-up (in parallel). Empty when the game is over."""
    global _LAST
    ph = state.phase
    if ph == "roll":
        return _ONE[state.active]
    if ph == "action":
        return _ALL[state.players]
    if ph == "over":
        return _NOBODY
    last = _LAST
    if last[0] is state:
        hit = last[1].get("to_act")
        if hit is not None:
            return hit  # type: ignore[return-value]
    m = 0
    bit = 1
    for s in state.seats:
        if s.queue or s.lose:
            m |= bit
        bit <<= 1
    out = _BY_MASK[m] if m < 32 else frozenset(i for i, s in enumerate(state.seats) if s.queue or s.lose)
    if last[0] is state:  # the memo of this state, or a new one
        last[1]["to_act"] = out
    else:
        _LAST = (state, {"to_act": out})
    return out


def legal_actions(state: MoonshineState, seat: int) -> tuple[MoonshineAction, ...]:
    """Every legal action of ``seat`` now, in the stable order of their codes (empty when the
    seat is not to act). Take a Moon token needs an empty space (M5). Computed once per state
    and seat (see ``_LAST``)."""
    global _LAST
    if seat.__class__ is not int and not isinstance(seat, int):  # the class test first: no call
        return ()
    last = _LAST
    if last[0] is state:
        memo = last[1]
        hit = memo.get(seat)
        if hit is not None:
            return hit  # type: ignore[return-value]
    else:
        memo = {}
        _LAST = (state, memo)
    ph = state.phase  # the roll and the action phase inlined (no _legal call)
    out: tuple[MoonshineAction, ...] | None
    if ph == "roll" and seat == state.active:
        out = _BY_DICE.get(state.dice)
        if out is None:
            out = _legal(state, seat)
    elif ph == "action" and 0 <= seat < state.players:
        out = _action_phase(state, state.seats[seat], seat)
    else:
        out = _legal(state, seat)
    memo[seat] = out
    return out


def check_actions(state: MoonshineState, actions: Mapping[int, MoonshineAction]) -> None:
    """:meth:`engine.core.Game.check_actions` (same checks and messages: one action per seat of
    ``to_act``, each legal), reading the legal actions the caller already asked for from the memo
    (``_LAST``) and matching by identity first. Raises :class:`~engine.core.IllegalAction`."""
    last = _LAST
    memo = last[1] if last[0] is state else _NO_MEMO
    ph = state.phase  # to_act: its two commonest phases inlined, else read from the memo first
    expected: Any
    if ph == "roll":
        expected = _ONE[state.active]
    elif ph == "action":
        expected = _ALL[state.players]
    else:
        expected = memo.get("to_act")
        if expected is None:
            expected = to_act(state)
    if not expected:
        raise IllegalAction("the game is over")
    if actions.keys() != expected:
        raise IllegalAction(f"expected actions from seats {sorted(expected)}, got {sorted(actions)}")
    for seat, action in actions.items():
        legal = memo.get(seat)
        if legal is None:
            legal = legal_actions(state, seat)
        for a in legal:  # type: ignore[attr-defined]
            if a is action:
                break
        else:
            if action not in legal:  # type: ignore[operator]
                raise IllegalAction(f"seat {seat}: that action is not legal now")


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
#: Roll-phase legal actions by the dice tuple (only which dice were rolled matters).
_BY_DICE: dict[tuple[str, ...], tuple[MoonshineAction, ...]] = {}


def _legal(state: MoonshineState, seat: int) -> tuple[MoonshineAction, ...]:
    ph = state.phase
    if ph == "roll":
        if seat != state.active:
            return ()
        hit = _BY_DICE.get(state.dice)
        if hit is None:
            if len(_BY_DICE) >= 1 << 12:
                _BY_DICE.clear()
            hit = _BY_DICE[state.dice] = _rolls(state.dice)
        return hit
    if ph == "over" or not 0 <= seat < state.players:
        return ()
    s = state.seats[seat]
    if ph == "action":
        return _action_phase(state, s, seat)
    key: tuple[object, ...]
    if s.queue:
        q = s.queue[0]
        kind = q.kind
        if kind == "pick":
            return (*map(_PICK_OF, q.cards), _PICK_NONE)
        if kind == "replace":
            return tuple(map(_REPLACE_OF, s.clients))
        if kind == "keep":
            return tuple(map(_KEEP_OF, q.cards))
        if kind == "place":
            return places(s, state.variant)
        if kind == "discard":
            return discards(s, q.n)
        key = (state.rules, state.variant, s.speakeasy, s.se_tokens, s.clients, s.cl_tokens, kind, q.cards, q.n)
    elif s.lose:
        return losses(s)
    else:
        return ()
    hit = _BY_KEY.get(key)
    if hit is None:
        if len(_BY_KEY) >= 1 << 16:
            _BY_KEY.clear()
        hit = _BY_KEY[key] = _shared_tuple(compute(state, seat))
    return hit


def _rolls(dice: tuple[str, ...]) -> tuple[MoonshineAction, ...]:
    """Stop, then every reroll of the rolled dice (by size, then in die order)."""
    names = [DIE_NAMES[i] for i in range(5) if dice[i]]
    out: list[MoonshineAction] = [_STOP]
    for r in range(1, len(names) + 1):
        out += [_REROLL[tuple(sorted(c))] for c in combinations(names, r)]
    return tuple(out)


def _action_phase(state: MoonshineState, s: SeatState, seat: int) -> tuple[MoonshineAction, ...]:
    """Validate each feasible Client (M4), take a Moon token with an empty space (M5), draw.

    Feasibility is :func:`engine.moonshine.dice.shortfall` ``== 0`` and enough Moon tokens
    (held + discount icons >= the Moon cost), tested for all eight at once on packed ints: the
    supply of every subset of {Food, Music, Drink} (Hall's condition) and the tokens are bytes
    of one int (:data:`_LANES`), each Client's demand another (:data:`DEMAND`), and a borrow
    test compares every lane in one subtraction. The seat's bundle
    (:func:`~engine.moonshine.icons.bundle_bits`, inlined with the tokens held and the room
    test of :func:`_has_room` in one pass over the Clients) is kept in
    :data:`~engine.moonshine.state.ACTION_BUNDLES` for the step."""
    side = SIDE_INFOS[state.variant][s.speakeasy]
    se = s.se_tokens
    b = side.by_tokens.get(se)
    rooms = side.room_by_tokens.get(se)
    if b is None or rooms is None:  # not a layout of the tables (never in play)
        return _plain_action_phase(state, s, seat)
    room = rooms != ()
    toks = sum(se)
    clients = s.clients
    infos = CLIENT_INFOS
    for cid, t in zip(clients, s.cl_tokens):  # noqa: B905
        ci = infos[cid]
        if t >= ci.spaces:  # an instant upper (0 spaces) adds nothing: its slot_bits are 0
            b += ci.slot_bits
        else:
            room = True
        toks += t
    v = s.validated
    if v:
        lower = LOWERS.get(v)
        b += lower_bits(v) if lower is None else lower
    bundle = _UNPACKED.get(b)
    if bundle is None:
        bundle = unpack_bundle(b)
    remember_bundle(state, seat, bundle)
    if clients:
        x = RES_SUPPLY.get(b & RES_BITS)
        if x is None:
            x = resource_supply(b & RES_BITS)
        if x < 0:
            return _slow_action_phase(state, s, bundle)
        dice = state.dice
        ds = DICE_SUPPLY.get(dice)
        if ds is None:
            ds = dice_supply(dice)
        x += ds[0]
        if bundle[BLUE]:
            x += ds[1]
        if bundle[ORANGE]:
            x += ds[2]
        toks += bundle[DISC]
        x += (toks if toks < 128 else 127) << MOON_LANE
        high = HIGH
        demand = DEMAND
        out: list[MoonshineAction] = []
        for cid in clients:
            if (x - demand[cid]) & high == high:
                out.append(_VALIDATE[cid])
        if room:
            out.append(_TAKE_MOON)
        out.append(_DRAW_CARDS)
        return tuple(out)
    return _MOON_DRAW if room else _DRAW_ONLY


#: The action phase's legal actions of a seat without Clients.
_MOON_DRAW: tuple[MoonshineAction, ...] = (_TAKE_MOON, _DRAW_CARDS)
_DRAW_ONLY: tuple[MoonshineAction, ...] = (_DRAW_CARDS,)


def _plain_action_phase(state: MoonshineState, s: SeatState, seat: int) -> tuple[MoonshineAction, ...]:
    """:func:`_action_phase` for a Speakeasy token layout outside the side's tables."""
    b = bundle_bits(SIDE_INFOS[state.variant][s.speakeasy], s.se_tokens, s.clients, s.cl_tokens, s.validated)
    bundle = unpack_bundle(b)
    remember_bundle(state, seat, bundle)
    return _slow_action_phase(state, s, bundle)


def _slow_action_phase(state: MoonshineState, s: SeatState, bundle: tuple[int, ...]) -> tuple[MoonshineAction, ...]:
    """:func:`_action_phase` with the plain tests (a seat with more resource icons than the
    packed lanes hold)."""
    toks = sum(s.se_tokens) + sum(s.cl_tokens)
    sources = sources_of(bundle, state.dice)
    out: list[MoonshineAction] = [_VALIDATE[cid] for cid in s.clients if feasible(cid, bundle, sources, toks)]
    if _has_room(s, state.variant):
        out.append(_TAKE_MOON)
    out.append(_DRAW_CARDS)
    return tuple(out)


def _has_room(s: SeatState, variant: str) -> bool:
    """True when a slot of the seat has an empty space (M5)."""
    side = SIDE_INFOS[variant][s.speakeasy]
    rooms = side.room_by_tokens.get(s.se_tokens)
    if rooms:
        return True
    if rooms is None:
        for (sp, _), t in zip(side.slots, s.se_tokens):  # noqa: B905
            if t < sp:
                return True
    infos = CLIENT_INFOS
    for c, t in zip(s.clients, s.cl_tokens):  # noqa: B905
        if t < infos[c].spaces:
            return True
    return False
