"""Moonshine's straight-line steps (issue 11, part 1): the commonest steps built directly on the
frozen state, without a :class:`~engine.moonshine.work.Work` and the general machine
(:func:`engine.moonshine.phases.settle`). Each returns the very state the general path makes
(``tests/test_moonshine_straight_line.py`` replays games through both, step by step), or
``None`` when the step is not its common case; then the general path runs.

- :func:`plain_actions`: an action phase (RULINGS M2, M4, M5) with Moon tokens taken (placed at
  once when a single slot has room), validations without a choice of tokens to discard, and
  the deck draws in seat order from the active player.
- :func:`plain_gains`: a roll that ends with Moon-token gains (M3), the tokens placed at once
  where a single slot has room.
- :func:`plain_answers`: answers to follow-ups that leave no automatic step behind (no instant
  bonus, no discard, no second redraw), and the next phase when nobody has anything left: the
  action phase after the gains, the next round (M3) after the action phase.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.fast import replacer
from engine.moonshine.actions import (
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
from engine.moonshine.dice import DIE_NAMES
from engine.moonshine.followups import _REDRAW, _REPLACES
from engine.moonshine.icons import (
    _UNPACKED,
    BLUE,
    CLIENT,
    CLIENT_INFOS,
    DISC,
    DRAW,
    ORANGE,
    REROLL,
    SE_KEYS,
    SIDE_INFOS,
    SideInfo,
    bundle_bits,
    client_icons,
    unpack_bundle,
)
from engine.moonshine.roll import _Chance, start_dice
from engine.moonshine.scoring import MAX_ROUNDS, points_of
from engine.moonshine.state import ACTION_BUNDLES, MoonshineState, SeatState
from engine.moonshine.work import _ORDERS, PLACE, follow_up

__all__ = ["plain_actions", "plain_answers", "plain_gains"]

#: The next state of an action phase (``engine.fast.replacer``).
_resolving = replacer(MoonshineState, "version", "phase", "deck", "seats", "to_draw")
#: A seat with new tokens, a new queue, or both.
_tokens = replacer(SeatState, "se_tokens", "cl_tokens")
_queue = replacer(SeatState, "queue")
_tokens_queue = replacer(SeatState, "se_tokens", "cl_tokens", "queue")
#: The ``place`` follow-up alone in a queue (shared).
_PLACE_ONLY = (PLACE,)


def plain_actions(state: MoonshineState, actions: Mapping[int, MoonshineAction]) -> MoonshineState | None:
    """The next state of an action phase (checked ``actions``) where every seat takes a Moon
    token, draws, or (rules 2 on) validates a Client with no token to discard beyond those on
    the card, when the deck holds every card drawn (no reshuffle) and someone is left with a
    choice; else ``None``. What :func:`~engine.moonshine.phases.resolve_actions` and
    :func:`~engine.moonshine.phases.settle` do then: a token with a single slot with room is
    placed there (else a ``place`` follow-up, M5); a validated card moves to the validated ones
    (M4); then in seat order from the active player each drawer draws as many cards as its
    card-draw icons and has them to pick from, and each validator missing a Client draws as
    many to keep one (a second redraw queued when two are missing,
    :func:`~engine.moonshine.followups.redraw_once`)."""
    if state.to_draw:
        return None
    seats: list[Any] = list(state.seats)
    variant = state.variant
    infos = CLIENT_INFOS
    known = ACTION_BUNDLES[0]
    bundles = known[1] if known[0] is state else _NO_BUNDLES
    pending = False
    for seat, s in enumerate(seats):
        if s.queue or s.lose:
            return None
        action: Any = actions[seat]
        kind = action.__class__
        if kind is DrawCards:
            pending = True
        elif kind is TakeMoon:
            placed = _place(SIDE_INFOS[variant][s.speakeasy], s.clients, s.se_tokens, s.cl_tokens)
            if placed is None:
                return None
            if placed[0] > 1:
                seats[seat] = _queue(s, _PLACE_ONLY)
                pending = True
            else:  # a legal Take a Moon token has a slot with room
                seats[seat] = _tokens(s, placed[1], placed[2])
        elif kind is Validate and state.rules >= 2:
            cid = action.card
            b = bundles[seat]
            if b is None:
                b = _bundle(s, variant)
            i = s.clients.index(cid)
            t = s.cl_tokens
            if infos[cid].moon - b[DISC] > t[i]:  # tokens to discard beyond those on the card
                return None
            c = s.clients
            seats[seat] = _validated(s, (*c[:i], *c[i + 1:]), (*t[:i], *t[i + 1:]), (*s.validated, cid))
        else:
            return None
    deck = state.deck
    for seat in _ORDERS[state.players][state.active]:
        kind = actions[seat].__class__
        if kind is DrawCards:
            s = seats[seat]
            b = bundles[seat]
            if b is None:
                b = _bundle(s, variant)
            k = b[DRAW]
            if not 0 < k <= len(deck):
                return None
            seats[seat] = _queue(s, (follow_up("pick", deck[:k]),))
            deck = deck[k:]
        elif kind is Validate:
            s = seats[seat]
            b = _bundle(s, variant)
            missing = b[CLIENT] - len(s.clients)
            if missing > 0:
                k = b[DRAW]
                if not 1 < k <= len(deck):  # a single card would be kept at once
                    return None
                drawn = follow_up("keep", deck[:k])
                seats[seat] = _queue(s, (drawn, _REDRAW) if missing > 1 else (drawn,))
                deck = deck[k:]
                pending = True
    if not pending:
        return None
    return _resolving(state, state.version + 1, "resolve", deck, tuple(seats), ())


#: No bundles known (:data:`~engine.moonshine.state.ACTION_BUNDLES` of another state).
_NO_BUNDLES: tuple[None, ...] = (None,) * 5
#: A seat after validating a Client (``clients``, ``cl_tokens``, ``validated``).
_validated = replacer(SeatState, "clients", "cl_tokens", "validated")


def _place(side: SideInfo, clients: tuple[int, ...], se: tuple[int, ...],
           cl: tuple[int, ...]) -> tuple[int, tuple[int, ...], tuple[int, ...]] | None:
    """One gained token of a seat (``se``/``cl`` its tokens) as :func:`~engine.moonshine.followups.auto`
    places it: ``(slots with room, se, cl)``, the token placed when a single slot has room (lost
    when none has, M5; a choice when several have: the tokens unchanged); ``None`` when the
    Speakeasy tokens are outside the side's tables (never in play)."""
    rooms = side.room_by_tokens.get(se)
    if rooms is None:
        return None
    count = len(rooms)
    at = -1
    i = 0
    infos = CLIENT_INFOS
    for cid, t in zip(clients, cl):  # noqa: B905
        if t < infos[cid].spaces:
            count += 1
            at = i
        i += 1
    if count == 1:
        if rooms:
            k = _SE_INDEX[rooms[0]]
            return 1, (*se[:k], se[k] + 1, *se[k + 1:]), cl
        return 1, se, (*cl[:at], cl[at] + 1, *cl[at + 1:])
    return count, se, cl


def plain_gains(state: MoonshineState, action: MoonshineAction, faces: tuple[str, ...] | None) -> MoonshineState | None:
    """The next state of a roll step (checked ``action``; a reroll's ``faces`` as
    :func:`~engine.moonshine.roll.fast_roll` returns them) that ends the roll with a Moon face on
    the blue or orange die, when nobody had anything pending: every seat with access to such a
    die gains a token (M3) per die, placed at once while a single slot has room (lost when none
    has, M5), else left to place; then the gain phase, or the action phase when nothing is
    left (:func:`~engine.moonshine.roll.gains`, :func:`~engine.moonshine.phases.settle`). Else
    ``None``."""
    dice = state.dice
    if action.__class__ is Reroll:
        if faces is None or state.rerolls != 1:
            return None
        made = list(dice)
        for name, f in zip(action.dice, faces):  # noqa: B905
            made[_DIE_INDEX[name]] = f
        dice = tuple(made)
    elif action.__class__ is not Stop:
        return None
    blue, orange = dice[3] == "moon", dice[4] == "moon"
    if not (blue or orange):
        return None
    seats: list[Any] = list(state.seats)
    variant = state.variant
    sides = SIDE_INFOS[variant]
    pending = False
    for seat, s in enumerate(seats):
        if s.queue or s.lose:
            return None
        b = _bundle(s, variant)
        n = (blue and b[BLUE] > 0) + (orange and b[ORANGE] > 0)
        if n:
            se, cl = s.se_tokens, s.cl_tokens
            while n:
                placed = _place(sides[s.speakeasy], s.clients, se, cl)
                if placed is None:
                    return None
                if placed[0] > 1:
                    break
                se, cl = placed[1], placed[2]
                n -= 1
            if n:
                pending = True
            seats[seat] = _tokens_queue(s, se, cl, (PLACE,) * n)
    return _gained(state, state.version + 1, "gain" if pending else "action", dice, 0, tuple(seats))


#: The next state of a roll step with Moon-token gains.
_gained = replacer(MoonshineState, "version", "phase", "dice", "rerolls", "seats")
#: Die index by name.
_DIE_INDEX = {name: i for i, name in enumerate(DIE_NAMES)}


def _bundle(s: SeatState, variant: str) -> tuple[int, ...]:
    """The seat's bundle (:func:`~engine.moonshine.icons.bundle_of`)."""
    bits = bundle_bits(SIDE_INFOS[variant][s.speakeasy], s.se_tokens, s.clients, s.cl_tokens, s.validated)
    b = _UNPACKED.get(bits)
    return unpack_bundle(bits) if b is None else b


#: The next state of a follow-up step (every field :func:`plain_answers` may change).
_answered = replacer(MoonshineState, "version", "phase", "round", "active", "dice", "rerolls", "discard", "seats")
#: A seat after its answer.
_answer_seat = replacer(SeatState, "se_tokens", "clients", "cl_tokens", "queue", "lose")
#: Speakeasy slot index by slot key; Client id by slot key.
_SE_INDEX = {k: i for i, k in enumerate(SE_KEYS)}
_KEY_CLIENT = {ci.key: ci.id for ci in CLIENT_INFOS}
_new_object = object.__new__


def plain_answers(state: MoonshineState, actions: Mapping[int, MoonshineAction]) -> MoonshineState | None:
    """The next state of a follow-up step (checked ``actions``, in the ``resolve`` phase with no
    deck draw waiting, or in the ``gain`` phase) whose answers are places, losses (M6), picks,
    replacements and keeps of cards without an instant bonus, when no answering seat is left
    with a follow-up or a loss that :func:`~engine.moonshine.followups.auto` would resolve;
    else ``None``. The answers are those of :func:`~engine.moonshine.followups.answer` in seat
    order; when nobody has anything left, the gains lead to the action phase, and the action
    phase to the next round (:func:`~engine.moonshine.phases._end_round`: ``None`` when the
    game ends or the new active player has no reroll, left to the general path)."""
    phase = state.phase
    if (phase != "resolve" and phase != "gain") or state.to_draw:
        return None
    seats: list[Any] = list(state.seats)
    discard = state.discard
    variant = state.variant
    infos = CLIENT_INFOS
    pending = False
    for seat in sorted(actions):
        action: Any = actions[seat]
        s = seats[seat]
        se, clients, cl, queue, lose = s.se_tokens, s.clients, s.cl_tokens, s.queue, s.lose
        kind = action.__class__
        delta = 0
        if kind is Lose:
            delta = -1
            lose -= 1
        else:
            q = queue[0]
            queue = queue[1:]
            cards = q.cards
            if kind is Place:
                delta = 1
            elif kind is Pick:
                card = action.card
                if card is None:
                    discard = (*discard, *cards)
                else:
                    i = cards.index(card)
                    discard = (*discard, *cards[:i], *cards[i + 1:])
                    if not clients or len(clients) < client_icons(SIDE_INFOS[variant][s.speakeasy], s.validated):
                        if infos[card].instant:
                            return None
                        clients = (*clients, card)
                        cl = (*cl, 0)
                    else:
                        queue = (_REPLACES[card], *queue)
            elif kind is Replace:
                card = cards[0]
                if infos[card].instant:
                    return None
                i = clients.index(action.old)
                clients = (*clients[:i], card, *clients[i + 1:])
                cl = (*cl[:i], 0, *cl[i + 1:])
                discard = (*discard, action.old)
            elif kind is Keep:
                card = action.card
                if infos[card].instant:
                    return None
                clients = (*clients, card)
                cl = (*cl, 0)
                i = cards.index(card)
                discard = (*discard, *cards[:i], *cards[i + 1:])
            else:
                return None
        if delta:
            key = action.slot
            i = _SE_INDEX.get(key, -1)
            if i >= 0:
                se = (*se[:i], se[i] + delta, *se[i + 1:])
            else:
                i = clients.index(_KEY_CLIENT[key])
                cl = (*cl[:i], cl[i] + delta, *cl[i + 1:])
        # what settle would find: a choice left (pending), or an automatic step (general path)
        if queue:
            q = queue[0]
            left = q.kind
            if left == "pick":
                if not q.cards:
                    return None
            elif left == "place":
                rooms = SIDE_INFOS[variant][s.speakeasy].room_by_tokens.get(se)
                if rooms is None:
                    return None
                count = len(rooms)
                for cid, t in zip(clients, cl):  # noqa: B905
                    if t < infos[cid].spaces:
                        count += 1
                if count <= 1:
                    return None
            elif left == "keep":
                if len(q.cards) <= 1:
                    return None
            elif left == "replace":
                if len(clients) <= 1:
                    return None
            else:
                return None
            pending = True
        elif lose:
            count = 0
            for t in se:
                if t:
                    count += 1
            for t in cl:
                if t:
                    count += 1
            if count <= 1:
                return None
            pending = True
        seats[seat] = _answer_seat(s, se, clients, cl, queue, lose)
    version = state.version + 1
    if pending:
        return _answered(state, version, phase, state.round, state.active, state.dice, state.rerolls, discard,
                         tuple(seats))
    if phase == "gain":
        return _answered(state, version, "action", state.round, state.active, state.dice, state.rerolls, discard,
                         tuple(seats))
    if state.round >= MAX_ROUNDS:
        return None
    target = state.target
    sides = SIDE_INFOS[variant]
    for s in seats:
        if s.validated and points_of(s.validated, sides[s.speakeasy].silhouettes) >= target:
            return None
    active = (state.active + 1) % state.players if state.round else state.active
    s = seats[active]
    bits = bundle_bits(sides[s.speakeasy], s.se_tokens, s.clients, s.cl_tokens, s.validated)
    b = _UNPACKED.get(bits)
    if b is None:
        b = unpack_bundle(bits)
    rerolls = b[REROLL]
    if not rerolls:
        return None
    chance: Any = _new_object(_Chance)
    chance.seed = state.seed
    chance.version = version
    return _answered(state, version, "roll", state.round + 1, active, start_dice(chance, state.rules, b), rerolls,
                     discard, tuple(seats))
