"""Who acts and what they may do in Moonshine (RULINGS M2, M4-M6, M9; ``docs/rules/moonshine.md``).

Shared by the Game (:mod:`engine.moonshine.rules`) and the AI (:mod:`engine.moonshine.ai`).
Legal actions are shared immutable values (one :class:`~engine.moonshine.actions.Validate` per
card id, one tuple per distinct list of actions), so that the memos here hold no thousands of
equal objects. The action phase tests every Client at once on packed ints (see
``Validation on packed ints`` below); the answers to follow-ups are built from the seat's slots.
"""

from __future__ import annotations

from collections.abc import Mapping
from itertools import combinations
from typing import Any

from engine.core import IllegalAction
from engine.moonshine.actions import (
    Discard,
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
)
from engine.moonshine.dice import DIE_NAMES, FACE_MASK, feasible, sources_of
from engine.moonshine.icons import (
    BLUE,
    CLIENT_INFOS,
    DISC,
    ORANGE,
    SIDE_INFOS,
    ClientInfo,
    bundle_bits,
    lower_bits,
    unpack_bundle,
)
from engine.moonshine.state import MoonshineState, SeatState, discard_ways, held_slots

__all__ = ["check_actions", "is_legal", "legal_actions", "to_act"]


# --- the shared action values ------------------------------------------------------------------


class _Shared(dict[Any, Any]):
    """Shared action values by their field (a card id, a slot key, die names, tokens), made on
    first use. Actions are immutable values, so one instance serves every state; sharing also
    keeps the memos below from holding thousands of equal objects (each one more object for
    the cyclic garbage collector to traverse)."""

    __slots__ = ("cls",)

    def __init__(self, cls: type[Any]) -> None:
        super().__init__()
        self.cls = cls

    def __missing__(self, key: Any) -> Any:
        value = self[key] = self.cls(key)
        return value


_PICK, _KEEP, _REPLACE, _VALIDATE = _Shared(Pick), _Shared(Keep), _Shared(Replace), _Shared(Validate)
_PLACE, _LOSE, _REROLL, _DISCARD = _Shared(Place), _Shared(Lose), _Shared(Reroll), _Shared(Discard)
#: Equal tuples of legal actions share one instance (see :class:`_Shared`).
_TUPLES: dict[tuple[MoonshineAction, ...], tuple[MoonshineAction, ...]] = {}


def _shared_tuple(actions: tuple[MoonshineAction, ...]) -> tuple[MoonshineAction, ...]:
    """``actions``, or the equal tuple already shared (:data:`_TUPLES`)."""
    hit = _TUPLES.get(actions)
    if hit is None:
        if len(_TUPLES) >= 1 << 14:
            _TUPLES.clear()
        hit = _TUPLES[actions] = actions
    return hit


_PICK_NONE = Pick(None)
#: The shared actions by card id or slot key (``dict.__getitem__``, which calls ``__missing__``), for ``map``.
_PICK_OF, _KEEP_OF, _REPLACE_OF = _PICK.__getitem__, _KEEP.__getitem__, _REPLACE.__getitem__
_PLACE_OF = _PLACE.__getitem__
_TAKE_MOON, _DRAW_CARDS = TakeMoon(), DrawCards()
_STOP = Stop()


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
            return _places(s, state.variant)
        if kind == "discard":
            return _discards(s, q.n)
        key = (state.rules, state.variant, s.speakeasy, s.se_tokens, s.clients, s.cl_tokens, kind, q.cards, q.n)
    elif s.lose:
        return _losses(s)
    else:
        return ()
    hit = _BY_KEY.get(key)
    if hit is None:
        if len(_BY_KEY) >= 1 << 16:
            _BY_KEY.clear()
        hit = _BY_KEY[key] = _shared_tuple(_drafts(state, seat))
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
    (held + discount icons >= the Moon cost), tested for all Clients at once on packed ints
    (:data:`LANES`, :data:`DEMAND`). The seat's packed bundle
    (:func:`~engine.moonshine.icons.bundle_bits`) is summed here with the tokens held and the
    room test of :func:`_has_room`, in one pass over the Clients."""
    side = SIDE_INFOS[state.variant][s.speakeasy]
    se = s.se_tokens
    b = side.by_tokens.get(se)
    rooms = side.room_by_tokens.get(se)
    if b is None or rooms is None:  # not a layout of the tables (never in play)
        return _slow_action_phase(state, s)
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
    if not clients:
        return _MOON_DRAW if room else _DRAW_ONLY
    v = s.validated
    if v:
        b += lower_bits(v)
    x = _RES_SUPPLY.get(b & RES_BITS)
    if x is None:
        x = resource_supply(b & RES_BITS)
    if x < 0:
        return _slow_action_phase(state, s)
    dice = state.dice
    ds = _DICE_SUPPLY.get(dice)
    if ds is None:
        ds = dice_supply(dice)
    x += ds[0]
    if b & _BLUE_BITS:
        x += ds[1]
    if b & _ORANGE_BITS:
        x += ds[2]
    toks += b >> _DISC_SHIFT & 255
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


#: The action phase's legal actions of a seat without Clients.
_MOON_DRAW: tuple[MoonshineAction, ...] = (_TAKE_MOON, _DRAW_CARDS)
_DRAW_ONLY: tuple[MoonshineAction, ...] = (_DRAW_CARDS,)
#: The blue and orange die-access counters of a packed bundle, and the shift of its discounts.
_BLUE_BITS, _ORANGE_BITS, _DISC_SHIFT = 255 << 8 * BLUE, 255 << 8 * ORANGE, 8 * DISC


def _slow_action_phase(state: MoonshineState, s: SeatState) -> tuple[MoonshineAction, ...]:
    """:func:`_action_phase` with the plain tests (a seat with more resource icons than the
    packed lanes hold, or Speakeasy tokens outside the side's tables)."""
    bundle = unpack_bundle(bundle_bits(SIDE_INFOS[state.variant][s.speakeasy], s.se_tokens, s.clients, s.cl_tokens,
                                       s.validated))
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


# --- answers to follow-ups (M4-M6, M9) -------------------------------------------------------


def _places(s: SeatState, variant: str) -> tuple[MoonshineAction, ...]:
    """Place a token: every slot with an empty space, in slot order (M5)."""
    side = SIDE_INFOS[variant][s.speakeasy]
    rooms = side.room_by_tokens.get(s.se_tokens)
    if rooms is None:
        rooms = side.rooms(s.se_tokens)
    out: list[MoonshineAction] = list(map(_PLACE_OF, rooms))
    infos = CLIENT_INFOS
    for cid, t in zip(s.clients, s.cl_tokens):  # noqa: B905
        ci = infos[cid]
        if t < ci.spaces:
            out.append(_PLACE[ci.key])
    return tuple(out)


def _losses(s: SeatState) -> tuple[MoonshineAction, ...]:
    """Lose a token (M6): every slot holding one, in slot order."""
    return tuple([_LOSE[k] for k, _ in held_slots(s)])


def _discards(s: SeatState, n: int) -> tuple[MoonshineAction, ...]:
    """Discard ``n`` tokens (M4): every way (:func:`~engine.moonshine.state.discard_ways`), each
    as its :class:`Discard` (tokens sorted as strings), memoized by the slots holding tokens."""
    held = tuple(held_slots(s))
    key = (held, n)
    hit = _BY_HELD.get(key)
    if hit is None:
        if len(_BY_HELD) >= 1 << 14:
            _BY_HELD.clear()
        names = [_TOKENS[k] for k, _ in held]
        hit = _BY_HELD[key] = _shared_tuple(tuple([
            _DISCARD[tuple(sorted([tok for i, c in way for tok in names[i][:c]]))]
            for way in discard_ways(tuple([t for _, t in held]), n)]))
    return hit


#: Legal discards by the slots holding tokens and the count (see :func:`_discards`).
_BY_HELD: dict[tuple[tuple[tuple[str, int], ...], int], tuple[MoonshineAction, ...]] = {}


class _Tokens(dict[str, tuple[str, str, str]]):
    """A slot key's token names in discard codes (``s1`` -> ``s1a``, ``s1b``, ``s1c``)."""

    def __missing__(self, key: str) -> tuple[str, str, str]:
        value = self[key] = (key + "a", key + "b", key + "c")
        return value


_TOKENS = _Tokens()


def _drafts(state: MoonshineState, seat: int) -> tuple[MoonshineAction, ...]:
    """The legal answers of ``seat`` to a Regular draft (M9): every way to keep ``n`` of the
    offered cards (ids in the string order of the code); ``()`` for any other front follow-up."""
    s = state.seats[seat]
    if s.queue:
        kind, cards, n = s.queue[0].kind, s.queue[0].cards, s.queue[0].n
        if kind == "draft":
            return tuple(Draft(tuple(int(x) for x in sorted(str(c) for c in combo))) for combo in combinations(cards, n))
    return ()


# --- validation on packed ints (M4) ---------------------------------------------------------------
# A seat's supply of every subset of {Food, Music, Drink} (Hall's condition, as
# engine.moonshine.dice.shortfall) and its Moon tokens are the eight bytes of one int (LANES), each
# Client's demand another (DEMAND); with every lane below 128, ((supply | HIGH) - demand) & HIGH
# == HIGH exactly when every lane of the supply covers the demand's, so one subtraction tests a
# Client.


#: Packed supply (one byte per lane, see above): lanes 0-6 are the subsets
#: {Food}, {Music}, {Drink}, {Food, Music}, {Food, Drink}, {Music, Drink}, {Food, Music, Drink}
#: (resource masks 1, 2, 4, 3, 5, 6, 7), lane 7 the Moon tokens (held + discount icons).
LANES = (1, 2, 4, 3, 5, 6, 7)
#: ``SUPPLY_OF[mask]``: what one unit serving the resource set ``mask`` adds to each lane (it
#: serves a subset S when it can pay a resource of S: ``mask & S``; mask 0, a Moon face, nothing).
SUPPLY_OF = tuple(sum(1 << 8 * lane for lane, sub in enumerate(LANES) if m & sub) for m in range(8))
#: The top bit of every lane: with every lane below 128, ``((supply | HIGH) - demand) & HIGH``
#: keeps a lane's bit exactly when that lane's supply covers its demand (no borrow crosses lanes).
HIGH = int.from_bytes(b"\x80" * 8, "little")
MOON_LANE = 56


def _demand(ci: ClientInfo) -> int:
    """The packed demand of Client ``ci`` (:data:`LANES`); ``ValueError`` when a lane exceeds 127."""
    f, m, d = ci.cost
    lanes = (f, m, d, f + m, f + d, m + d, f + m + d, ci.moon)
    if max(lanes) > 127:
        raise ValueError(f"Client {ci.id}: a cost too big for the packed supply")
    return int.from_bytes(bytes(lanes), "little")


#: The packed demand of every Client by global id (:data:`LANES`, Moon cost in lane 7).
DEMAND = tuple(_demand(ci) for ci in CLIENT_INFOS)
#: ``resource bits -> packed supply | HIGH`` (the resource counters of a packed bundle, bytes
#: 1-7, see :func:`resource_supply`), or -1 when the icons are too many for the packed lanes
#: (then the legal actions use the plain test, :func:`engine.moonshine.dice.feasible`).
_RES_SUPPLY: dict[int, int] = {}
#: The resource counters (bytes 1-7) of a packed bundle.
RES_BITS = (1 << 64) - 256
#: ``dice -> (packed supply of the white dice, of the blue die, of the orange die)``.
_DICE_SUPPLY: dict[tuple[str, ...], tuple[int, int, int]] = {}


def resource_supply(bits: int) -> int:
    """The packed supply (``| HIGH``) of the resource counters ``bits`` of a packed bundle, memoized
    in :data:`_RES_SUPPLY`; -1 when they are too many for the lanes."""
    counts = bits.to_bytes(8, "little")
    if sum(counts) > 120:  # with 5 dice, a lane could reach 128
        hit = -1
    else:
        hit = sum(counts[m] * SUPPLY_OF[m] for m in range(1, 8)) | HIGH
    if len(_RES_SUPPLY) >= 1 << 12:
        _RES_SUPPLY.clear()
    _RES_SUPPLY[bits] = hit
    return hit


def dice_supply(dice: tuple[str, ...]) -> tuple[int, int, int]:
    """The packed supply of the white dice, the blue die and the orange die showing ``dice``,
    memoized in :data:`_DICE_SUPPLY`."""
    mask = FACE_MASK
    hit = (SUPPLY_OF[mask[dice[0]]] + SUPPLY_OF[mask[dice[1]]] + SUPPLY_OF[mask[dice[2]]],
           SUPPLY_OF[mask[dice[3]]], SUPPLY_OF[mask[dice[4]]])
    if len(_DICE_SUPPLY) >= 1 << 12:
        _DICE_SUPPLY.clear()
    _DICE_SUPPLY[dice] = hit
    return hit
