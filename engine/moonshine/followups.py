"""Moonshine private follow-ups: answering them, and resolving those that leave no choice.

A seat's follow-ups are a queue (front first, :class:`~engine.moonshine.state.FollowUp`); its
``lose`` counter (+1/-1 Moon, RULINGS M6) is answered once the queue is empty, i.e. at the end of
its own action. All seats answer in parallel (RULINGS M2).

Automatic resolution (no question asked): a token with a single slot that has room is placed
there, with none it is lost (M5); a discard or a loss with a single way is made; a redraw of at
most one card keeps it; a pick of no card keeps none; a replacement with at most one Client in
front replaces it; a draft of at most the cards to keep keeps them all.

Double redraw (rules 2, ``docs/rules/moonshine.md``): a ``redraw`` follow-up stands for the
second draw; it waits behind the first ``keep`` and the placements of that card's instant bonus
(which are put at the front of the queue), and is then drawn with the card-draw icons the seat
has at that moment.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engine.moonshine.actions import Discard, Draft, Keep, Lose, MoonshineAction, Pick, Place, Replace
from engine.moonshine.icons import CLIENT, CLIENT_INFOS, DRAW, SIDE_INFOS, client_icons
from engine.moonshine.state import FollowUp, discard_options, held_slots
from engine.moonshine.work import PLACE, REDRAW, Work, WorkSeat, follow_up

__all__ = ["answer", "auto", "discard", "instant", "keep", "redraw_once"]


def answer(w: Work, seat: int, action: MoonshineAction) -> None:
    """Apply the (legal) answer of ``seat`` to its front follow-up, or to its pending loss."""
    s = w.own(seat)
    kind = action.__class__  # actions are exact classes (legal ones, or equal to one: same class)
    if kind is Lose:
        lose(w, seat, s, action.slot)  # type: ignore[union-attr]
        return
    q = s.queue[0]
    s.queue = s.queue[1:]
    cards = q.cards
    if kind is Pick:
        card = action.card  # type: ignore[union-attr]
        if card is None:
            w.to_discard(cards)
            if w.log:
                w.ev("ms.ev.pick_none", seat=seat)
        else:
            pick(w, seat, s, card, cards)
    elif kind is Replace:
        replace(w, seat, s, cards[0], action.old)  # type: ignore[union-attr]
    elif kind is Place:
        place(w, seat, s, action.slot)  # type: ignore[union-attr]
    elif kind is Keep:
        keep(w, seat, s, action.card, cards)  # type: ignore[union-attr, arg-type]
    elif kind is Discard:
        discard(w, seat, s, action.counts(), q.n, chosen=True)  # type: ignore[union-attr]
    elif kind is Draft:
        draft(w, seat, s, action.cards, cards)  # type: ignore[union-attr]


def place(w: Work, seat: int, s: WorkSeat, key: str) -> None:
    """Place one token on slot ``key`` of ``seat`` (``s``, its :class:`WorkSeat`)."""
    s.add_token(key, 1)
    if w.log:
        w.ev("ms.ev.place", seat=seat, slot=key)


def lose(w: Work, seat: int, s: WorkSeat, key: str) -> None:
    """Lose one token from slot ``key`` (M6)."""
    s.add_token(key, -1)
    s.lose -= 1
    if w.log:
        w.ev("ms.ev.lose", seat=seat, slot=key)


def discard(w: Work, seat: int, s: WorkSeat, option: Sequence[tuple[str, int]], n: int, *, chosen: bool) -> None:
    """Discard ``n`` tokens given as ``(slot key, count)`` (RULINGS M4).

    The log: rules 2 emit ``ms.ev.discarded`` {seat, n, slots} for every discard, ``slots``
    mapping each slot key to its count in the seat's slot order (Speakeasy then Clients; placed
    tokens are public, so the public log names them); rules 1 emit {seat, n} only for a
    ``chosen`` discard (an answered ``discard`` follow-up), none for a one-way discard."""
    if w.log:
        if w.rules >= 2:
            counts = dict(option)
            slots = {k: counts[k] for k, _ in held_slots(s) if counts.get(k)}
            w.ev("ms.ev.discarded", seat=seat, n=n, slots=slots)
        elif chosen:
            w.ev("ms.ev.discarded", seat=seat, n=n)
    for key, c in option:
        s.add_token(key, -c)


def keep(w: Work, seat: int, s: WorkSeat, cid: int, cards: Sequence[int]) -> None:
    """``seat`` keeps Client ``cid`` in front of it; the other ``cards`` go to the discard pile;
    the card's instant bonus applies at once."""
    s.clients += (cid,)
    s.cl_tokens += (0,)
    if cards:
        i = cards.index(cid)  # the cards are distinct
        w.discard = (*w.discard, *cards[:i], *cards[i + 1:])
    if w.log:
        w.ev("ms.ev.keep", seat=seat, card=cid)
    if CLIENT_INFOS[cid].instant:
        instant(w, seat, s, cid)


def pick(w: Work, seat: int, s: WorkSeat, cid: int, cards: Sequence[int]) -> None:
    """Draw action: ``seat`` keeps drawn Client ``cid``; it is added when the seat has fewer
    Clients than Client-card icons (or none), else a ``replace`` follow-up asks which it replaces."""
    i = cards.index(cid)  # the cards are distinct
    w.discard = (*w.discard, *cards[:i], *cards[i + 1:])
    if not s.clients or len(s.clients) < client_icons(SIDE_INFOS[w.variant][s.speakeasy], s.validated):
        keep(w, seat, s, cid, ())
    else:
        s.queue = (_REPLACES[cid], *s.queue)


def replace(w: Work, seat: int, s: WorkSeat, cid: int, old: int) -> None:
    """Client ``cid`` takes the place of ``old`` (discarded with its tokens, RULINGS M4).

    Logs ``ms.ev.replace`` {seat, card, old}; rules 2 add ``tokens``, the Moon tokens that were
    on ``old`` (public: they were placed)."""
    i = s.clients.index(old)
    lost = s.cl_tokens[i]
    s.clients = (*s.clients[:i], cid, *s.clients[i + 1:])
    s.cl_tokens = (*s.cl_tokens[:i], 0, *s.cl_tokens[i + 1:])
    w.discard = (*w.discard, old)
    if w.log:
        if w.rules >= 2:
            w.ev("ms.ev.replace", seat=seat, card=cid, old=old, tokens=lost)
        else:
            w.ev("ms.ev.replace", seat=seat, card=cid, old=old)
    if CLIENT_INFOS[cid].instant:
        instant(w, seat, s, cid)


def draft(w: Work, seat: int, s: WorkSeat, kept: Sequence[int], cards: Sequence[int]) -> None:
    """Regular draft (M9): ``seat`` keeps ``kept`` of ``cards``; the others are discarded."""
    s.clients += tuple(kept)
    s.cl_tokens += (0,) * len(kept)
    w.to_discard(c for c in cards if c not in kept)
    if w.log:
        w.ev("ms.ev.drafted", seat=seat, cards=list(kept))


def instant(w: Work, seat: int, s: WorkSeat, cid: int) -> None:
    """The instant bonus of Client ``cid`` chosen by ``seat``: ``plus2_moon`` gains 2 tokens,
    ``plus1_minus1_moon`` gains 1 and every other seat loses 1 at the end of its action (M6).
    Rules 1 queue the placements last; rules 2 first (before a pending second redraw)."""
    eff = CLIENT_INFOS[cid].instant
    if not eff:
        return
    gains = 2 if eff == "plus2_moon" else 1
    if w.log:
        w.ev("ms.ev.plus2" if gains == 2 else "ms.ev.plus1minus1", seat=seat, card=cid)
    if w.rules < 2:
        s.queue += (PLACE,) * gains
    else:
        s.queue = (PLACE,) * gains + s.queue
    if gains == 1:
        for other in range(w.players):
            if other != seat:
                w.own(other).lose += 1


def redraw_once(w: Work, seat: int, at: int) -> None:
    """One redraw (rulebook "Redraw cards"): when ``seat`` has fewer Clients than Client-card
    icons, draw as many cards as its card-draw icons now and queue ``keep`` at position ``at``;
    when yet another Client is missing (a double redraw, rules 2), queue a ``redraw`` after it.
    Nothing more is queued once the deck and the discard pile are both exhausted (M7)."""
    b = w.bundle(seat)
    s = w.own(seat)
    missing = b[CLIENT] - len(s.clients)
    if missing <= 0:
        return
    cards = w.draw(b[DRAW])
    if w.log:
        w.ev("ms.ev.redraw", seat=seat, n=len(cards))
        w.ev("ms.ev.drew_private", audience=seat, seat=seat, cards=cards)
    q = s.queue
    if missing > 1 and cards:
        s.queue = (*q[:at], follow_up("keep", tuple(cards)), REDRAW, *q[at:])
    else:
        s.queue = (*q[:at], follow_up("keep", tuple(cards)), *q[at:])


class _Replaces(dict[int, FollowUp]):
    """The ``replace`` follow-up of each picked card, made on first use and shared."""

    def __missing__(self, cid: int) -> FollowUp:
        value = self[cid] = follow_up("replace", (cid,))
        return value


_REPLACES = _Replaces()


def auto(w: Work, seat: int) -> bool:
    """Resolve the seat's front follow-up (or its loss) when it leaves no choice; True if
    something changed. A ``redraw`` is left to the phase logic (it is drawn in seat order).
    The seat is copied for writing only when something changes."""
    s = w.seats[seat]
    if s.queue:
        q = s.queue[0]
        kind = q.kind
        if kind == "place":
            key = _sole_room(s, w.variant)
            if key is None:
                return False
            ws = w.own(seat)
            ws.queue = ws.queue[1:]
            if key:
                place(w, seat, ws, key)
            elif w.log:
                w.ev("ms.ev.token_lost", seat=seat)
            return True
        if kind == "discard":
            n = q.n
            opts = discard_options(held_slots(s), n)
            if len(opts) > 1:
                return False
            ws = w.own(seat)
            ws.queue = ws.queue[1:]
            if opts:
                discard(w, seat, ws, opts[0], n, chosen=False)
            return True
        if kind == "keep":
            cards = q.cards
            if len(cards) > 1:
                return False
            ws = w.own(seat)
            ws.queue = ws.queue[1:]
            if cards:
                keep(w, seat, ws, cards[0], cards)
            return True
        if kind == "pick":
            if q.cards:
                return False
            ws = w.own(seat)
            ws.queue = ws.queue[1:]
            if w.log:
                w.ev("ms.ev.pick_none", seat=seat)
            return True
        if kind == "replace":
            if len(s.clients) > 1:
                return False
            ws = w.own(seat)
            ws.queue = ws.queue[1:]
            if ws.clients:
                replace(w, seat, ws, q.cards[0], ws.clients[0])
            else:
                keep(w, seat, ws, q.cards[0], ())
            return True
        if kind == "draft":
            cards = q.cards
            if len(cards) > q.n:
                return False
            ws = w.own(seat)
            ws.queue = ws.queue[1:]
            draft(w, seat, ws, list(cards), cards)
            return True
        return False
    if s.lose:
        held = held_slots(s)
        if len(held) > 1:
            return False
        ws = w.own(seat)
        if held:
            lose(w, seat, ws, held[0][0])
        else:
            ws.lose = 0
        return True
    return False


def _sole_room(s: Any, variant: str) -> str | None:
    """Where a gained token of seat ``s`` goes without asking (M5): the key of its only slot
    with an empty space, ``""`` when no slot has one (the token is lost), ``None`` when
    several have (a choice)."""
    side = SIDE_INFOS[variant][s.speakeasy]
    rooms = side.room_by_tokens.get(s.se_tokens)
    if rooms is None:
        rooms = side.rooms(s.se_tokens)
    if len(rooms) > 1:
        return None
    key = rooms[0] if rooms else ""
    infos = CLIENT_INFOS
    for cid, t in zip(s.clients, s.cl_tokens):  # noqa: B905
        ci = infos[cid]
        if t < ci.spaces:
            if key:
                return None
            key = ci.key
    return key
