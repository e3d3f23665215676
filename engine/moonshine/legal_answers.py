"""Moonshine's legal answers to follow-ups (RULINGS M4-M6, M9) and the shared action values
of the legal actions (split from :mod:`engine.moonshine.legal`, which asks them).
"""

from __future__ import annotations

from itertools import combinations
from typing import Any

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
from engine.moonshine.icons import CLIENT_INFOS, SE_KEYS, SIDE_INFOS
from engine.moonshine.state import MoonshineState, SeatState, discard_ways, held_slots

__all__ = ["compute", "discards", "losses", "places"]


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
    hit = _TUPLES.get(actions)
    if hit is None:
        if len(_TUPLES) >= 1 << 14:
            _TUPLES.clear()
        hit = _TUPLES[actions] = actions
    return hit
_PICK_NONE = Pick(None)
#: The shared actions by card id (``dict.__getitem__``, which calls ``__missing__``), for ``map``.
_PICK_OF, _KEEP_OF, _REPLACE_OF = _PICK.__getitem__, _KEEP.__getitem__, _REPLACE.__getitem__
_TAKE_MOON, _DRAW_CARDS = TakeMoon(), DrawCards()
_STOP = Stop()


def places(s: SeatState, variant: str) -> tuple[MoonshineAction, ...]:
    """Place a token: every slot with an empty space, in slot order (M5)."""
    side = SIDE_INFOS[variant][s.speakeasy]
    rooms = side.room_by_tokens.get(s.se_tokens)
    if rooms is None:
        rooms = tuple(SE_KEYS[i] for i, ((sp, _), t) in enumerate(zip(side.slots, s.se_tokens)) if t < sp)  # noqa: B905
    out: list[MoonshineAction] = [_PLACE[k] for k in rooms]
    infos = CLIENT_INFOS
    for cid, t in zip(s.clients, s.cl_tokens):  # noqa: B905
        ci = infos[cid]
        if t < ci.spaces:
            out.append(_PLACE[ci.key])
    return tuple(out)


def losses(s: SeatState) -> tuple[MoonshineAction, ...]:
    """Lose a token (M6): every slot holding one, in slot order."""
    out: list[MoonshineAction] = []
    i = 0
    for t in s.se_tokens:
        if t:
            out.append(_LOSE[SE_KEYS[i]])
        i += 1
    infos = CLIENT_INFOS
    for cid, t in zip(s.clients, s.cl_tokens):  # noqa: B905
        if t:
            out.append(_LOSE[infos[cid].key])
    return tuple(out)


def discards(s: SeatState, n: int) -> tuple[MoonshineAction, ...]:
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


#: Legal discards by the slots holding tokens and the count (see :func:`discards`).
_BY_HELD: dict[tuple[tuple[tuple[str, int], ...], int], tuple[MoonshineAction, ...]] = {}


class _Tokens(dict[str, tuple[str, str, str]]):
    """A slot key's token names in discard codes (``s1`` -> ``s1a``, ``s1b``, ``s1c``)."""

    def __missing__(self, key: str) -> tuple[str, str, str]:
        value = self[key] = (key + "a", key + "b", key + "c")
        return value


_TOKENS = _Tokens()


def compute(state: MoonshineState, seat: int) -> tuple[MoonshineAction, ...]:
    """The legal answers of ``seat`` to a front follow-up that the other functions here do not
    build: a Regular draft (M9), every way to keep ``n`` of the offered cards (ids in the string
    order of the code); ``()`` otherwise."""
    s = state.seats[seat]
    if s.queue:
        kind, cards, n = s.queue[0].kind, s.queue[0].cards, s.queue[0].n
        if kind == "draft":
            return tuple(Draft(tuple(int(x) for x in sorted(str(c) for c in combo))) for combo in combinations(cards, n))
    return ()
