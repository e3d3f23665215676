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

from engine.moonshine.actions import Discard, Draft, Keep, Lose, MoonshineAction, Pick, Place, Replace
from engine.moonshine.icons import CLIENT, CLIENT_INFOS, DRAW, SIDE_INFOS, client_icons, client_info
from engine.moonshine.state import FollowUp, discard_options
from engine.moonshine.work import PLACE, Work, follow_up

__all__ = ["answer", "auto", "discard", "instant", "keep", "redraw_once"]


def answer(w: Work, seat: int, action: MoonshineAction) -> None:
    """Apply the (legal) answer of ``seat`` to its front follow-up, or to its pending loss."""
    s = w.work[seat] or w.copy(seat)
    kind = type(action)  # actions are exact classes (legal ones, or equal to one: same class)
    if kind is Lose:
        lose(w, seat, action.slot)  # type: ignore[union-attr]
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
            pick(w, seat, card, cards)
    elif kind is Replace:
        replace(w, seat, cards[0], action.old)  # type: ignore[union-attr]
    elif kind is Place:
        place(w, seat, action.slot)  # type: ignore[union-attr]
    elif kind is Keep:
        keep(w, seat, action.card, cards)  # type: ignore[union-attr, arg-type]
    elif kind is Discard:
        discard(w, seat, action.counts(), q.n, chosen=True)  # type: ignore[union-attr]
    elif kind is Draft:
        draft(w, seat, action.cards, cards)  # type: ignore[union-attr]


def place(w: Work, seat: int, key: str) -> None:
    """Place one token on slot ``key``."""
    w.add_token(seat, key, 1)
    if w.log:
        w.ev("ms.ev.place", seat=seat, slot=key)


def lose(w: Work, seat: int, key: str) -> None:
    """Lose one token from slot ``key`` (M6)."""
    w.add_token(seat, key, -1)
    (w.work[seat] or w.copy(seat)).lose -= 1
    if w.log:
        w.ev("ms.ev.lose", seat=seat, slot=key)


def discard(w: Work, seat: int, option: Sequence[tuple[str, int]], n: int, *, chosen: bool) -> None:
    """Discard ``n`` tokens given as ``(slot key, count)`` (RULINGS M4).

    The log: rules 2 emit ``ms.ev.discarded`` {seat, n, slots} for every discard, ``slots``
    mapping each slot key to its count in the seat's slot order (Speakeasy then Clients; placed
    tokens are public, so the public log names them); rules 1 emit {seat, n} only for a
    ``chosen`` discard (an answered ``discard`` follow-up), none for a one-way discard."""
    if w.log:
        if w.rules >= 2:
            counts = dict(option)
            slots = {k: counts[k] for k, _ in w.holding(seat) if counts.get(k)}
            w.ev("ms.ev.discarded", seat=seat, n=n, slots=slots)
        elif chosen:
            w.ev("ms.ev.discarded", seat=seat, n=n)
    for key, c in option:
        w.add_token(seat, key, -c)


def keep(w: Work, seat: int, cid: int, cards: Sequence[int]) -> None:
    """``seat`` keeps Client ``cid`` in front of it; the other ``cards`` go to the discard pile;
    the card's instant bonus applies at once."""
    s = w.work[seat] or w.copy(seat)
    s.clients += (cid,)
    s.cl_tokens += (0,)
    if cards:
        i = cards.index(cid)  # the cards are distinct
        w.discard = (*w.discard, *cards[:i], *cards[i + 1:])
    if w.log:
        w.ev("ms.ev.keep", seat=seat, card=cid)
    if CLIENT_INFOS[cid].instant:
        instant(w, seat, cid)


def pick(w: Work, seat: int, cid: int, cards: Sequence[int]) -> None:
    """Draw action: ``seat`` keeps drawn Client ``cid``; it is added when the seat has fewer
    Clients than Client-card icons (or none), else a ``replace`` follow-up asks which it replaces."""
    s = w.work[seat] or w.copy(seat)
    i = cards.index(cid)  # the cards are distinct
    w.discard = (*w.discard, *cards[:i], *cards[i + 1:])
    if not s.clients or len(s.clients) < client_icons(SIDE_INFOS[w.variant][s.speakeasy], s.validated):
        keep(w, seat, cid, ())
    else:
        s.queue = (_REPLACES[cid], *s.queue)


def replace(w: Work, seat: int, cid: int, old: int) -> None:
    """Client ``cid`` takes the place of ``old`` (discarded with its tokens, RULINGS M4).

    Logs ``ms.ev.replace`` {seat, card, old}; rules 2 add ``tokens``, the Moon tokens that were
    on ``old`` (public: they were placed)."""
    s = w.work[seat] or w.copy(seat)
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
        instant(w, seat, cid)


def draft(w: Work, seat: int, kept: Sequence[int], cards: Sequence[int]) -> None:
    """Regular draft (M9): ``seat`` keeps ``kept`` of ``cards``; the others are discarded."""
    s = w.work[seat] or w.copy(seat)
    s.clients += tuple(kept)
    s.cl_tokens += (0,) * len(kept)
    w.to_discard(c for c in cards if c not in kept)
    if w.log:
        w.ev("ms.ev.drafted", seat=seat, cards=list(kept))


def instant(w: Work, seat: int, cid: int) -> None:
    """The instant bonus of Client ``cid`` chosen by ``seat``: ``plus2_moon`` gains 2 tokens,
    ``plus1_minus1_moon`` gains 1 and every other seat loses 1 at the end of its action (M6).
    Rules 1 queue the placements last; rules 2 first (before a pending second redraw)."""
    eff = client_info(cid).instant
    if not eff:
        return
    s = w.work[seat] or w.copy(seat)
    gains = 2 if eff == "plus2_moon" else 1
    if w.log:
        w.ev("ms.ev.plus2" if gains == 2 else "ms.ev.plus1minus1", seat=seat, card=cid)
    if w.rules < 2:
        s.queue += (PLACE,) * gains
    else:
        s.queue = (PLACE,) * gains + s.queue
    if gains == 1:
        for other in range(w.n):
            if other != seat:
                (w.work[other] or w.copy(other)).lose += 1


def redraw_once(w: Work, seat: int, at: int) -> None:
    """One redraw (rulebook "Redraw cards"): when ``seat`` has fewer Clients than Client-card
    icons, draw as many cards as its card-draw icons now and queue ``keep`` at position ``at``;
    when yet another Client is missing (a double redraw, rules 2), queue a ``redraw`` after it.
    Nothing more is queued once the deck and the discard pile are both exhausted (M7)."""
    b = w.bundle(seat)
    s = w.work[seat] or w.copy(seat)
    missing = b[CLIENT] - len(s.clients)
    if missing <= 0:
        return
    cards = w.draw(b[DRAW])
    if w.log:
        w.ev("ms.ev.redraw", seat=seat, n=len(cards))
        w.ev("ms.ev.drew_private", audience=seat, seat=seat, cards=cards)
    q = s.queue
    if missing > 1 and cards:
        s.queue = (*q[:at], follow_up("keep", tuple(cards)), _REDRAW, *q[at:])
    else:
        s.queue = (*q[:at], follow_up("keep", tuple(cards)), *q[at:])


#: The ``redraw`` follow-up (shared: follow-ups are immutable values).
_REDRAW = follow_up("redraw")


class _Replaces(dict[int, FollowUp]):
    """The ``replace`` follow-up of each picked card, made on first use and shared."""

    def __missing__(self, cid: int) -> FollowUp:
        value = self[cid] = follow_up("replace", (cid,))
        return value


_REPLACES = _Replaces()


def _pop(w: Work, seat: int) -> None:
    """Drop the front follow-up of ``seat`` (copying the seat for writing)."""
    s = w.work[seat] or w.copy(seat)
    s.queue = s.queue[1:]


def auto(w: Work, seat: int) -> bool:
    """Resolve the seat's front follow-up (or its loss) when it leaves no choice; True if
    something changed. A ``redraw`` is left to the phase logic (it is drawn in seat order).
    The seat is copied for writing only when something changes."""
    x = w.work[seat]
    s = w.state.seats[seat] if x is None else x
    if s.queue:
        q = s.queue[0]
        kind = q.kind
        if kind == "place":
            room = w.room(seat)
            if len(room) <= 1:
                _pop(w, seat)
                if room:
                    place(w, seat, room[0])
                else:
                    if w.log:
                        w.ev("ms.ev.token_lost", seat=seat)
                return True
        elif kind == "discard":
            n = q.n
            opts = discard_options(w.holding(seat), n)
            if len(opts) <= 1:
                _pop(w, seat)
                if opts:
                    discard(w, seat, opts[0], n, chosen=False)
                return True
        elif kind == "keep":
            cards = q.cards
            if len(cards) <= 1:
                _pop(w, seat)
                if cards:
                    keep(w, seat, cards[0], cards)
                return True
        elif kind == "pick":
            if not q.cards:
                _pop(w, seat)
                if w.log:
                    w.ev("ms.ev.pick_none", seat=seat)
                return True
        elif kind == "replace":
            if len(s.clients) <= 1:
                ws = w.work[seat] or w.copy(seat)
                ws.queue = ws.queue[1:]
                if ws.clients:
                    replace(w, seat, q.cards[0], ws.clients[0])
                else:
                    keep(w, seat, q.cards[0], ())
                return True
        elif kind == "draft":
            cards = q.cards
            if len(cards) <= q.n:
                _pop(w, seat)
                draft(w, seat, list(cards), cards)
                return True
        return False
    if s.lose:
        held = w.holding(seat)
        if len(held) <= 1:
            if held:
                lose(w, seat, held[0][0])
            else:
                (w.work[seat] or w.copy(seat)).lose = 0
            return True
    return False
