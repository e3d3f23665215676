"""Moonshine actions: typed frozen dataclasses and their stable codes.

=====================  =============================  ===============================================
action                 code                           when
=====================  =============================  ===============================================
:class:`Stop`          ``stop``                       roll: keep the dice
:class:`Reroll`        ``rr.<dice>``                  roll: reroll these dice (names ``0 1 2 b o``)
:class:`Validate`      ``val.<id>``                   action: validate a Client
:class:`TakeMoon`      ``moon``                       action: take a Moon token (M5)
:class:`DrawCards`     ``draw``                       action: draw cards
:class:`Place`         ``pl.<slot>``                  place a gained token
:class:`Lose`          ``lose.<slot>``                lose a token to a +1/-1 Moon (M6)
:class:`Discard`       ``dis.<tokens>``               the tokens discarded by a validation (M4)
:class:`Keep`          ``keep.<id>``                  redraw: keep 1 of the drawn cards
:class:`Pick`          ``pick.<id>`` / ``pick.none``  draw action: keep one drawn card or none
:class:`Replace`       ``rep.<id>``                   the picked card replaces this Client
:class:`Draft`         ``draft.<ids>``                Regular draft: the kept cards (M9)
=====================  =============================  ===============================================

A token of a discard code is a slot key and a letter (``s1a``, ``c12b``: the first, second token
of that slot). Codes are canonical (:func:`canonical_code`): die names and token lists sorted as
strings, ids without leading zeros; every field of an action holds that canonical order, so
equal codes give equal actions.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from engine.core import Action, IllegalAction
from engine.moonshine.dice import DIE_NAMES

__all__ = [
    "Discard",
    "Draft",
    "DrawCards",
    "Keep",
    "Lose",
    "MoonshineAction",
    "Pick",
    "Place",
    "Replace",
    "Reroll",
    "Stop",
    "TakeMoon",
    "Validate",
    "canonical_code",
    "decode",
    "discard_action",
    "discard_code",
    "encode",
]


@dataclass(frozen=True, slots=True)
class Stop(Action):
    """The active player keeps the dice (``stop``)."""


@dataclass(frozen=True, slots=True)
class Reroll(Action):
    """The active player rerolls ``dice`` (die names ``0 1 2 b o``, sorted)."""

    dice: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Validate(Action):
    """Validate Client ``card`` (``val.<id>``)."""

    card: int


@dataclass(frozen=True, slots=True)
class TakeMoon(Action):
    """Take a Moon token and place it (``moon``)."""


@dataclass(frozen=True, slots=True)
class DrawCards(Action):
    """Draw as many cards as card-draw icons, keep 0 or 1 (``draw``)."""


@dataclass(frozen=True, slots=True)
class Place(Action):
    """Place one gained token on ``slot`` (``pl.<slot>``)."""

    slot: str


@dataclass(frozen=True, slots=True)
class Lose(Action):
    """Lose one token from ``slot`` (``lose.<slot>``)."""

    slot: str


@dataclass(frozen=True, slots=True)
class Discard(Action):
    """Discard these tokens (``dis.<tokens>``; tokens like ``s1a``, sorted as strings)."""

    tokens: tuple[str, ...]

    def counts(self) -> list[tuple[str, int]]:
        """The tokens as ``(slot key, count)`` pairs."""
        out: dict[str, int] = {}
        for p in self.tokens:
            out[p[:-1]] = out.get(p[:-1], 0) + 1
        return list(out.items())


@dataclass(frozen=True, slots=True)
class Keep(Action):
    """Keep Client ``card`` of a redraw (``keep.<id>``)."""

    card: int


@dataclass(frozen=True, slots=True)
class Pick(Action):
    """Keep drawn Client ``card`` (``pick.<id>``), or none of them (``card=None``, ``pick.none``)."""

    card: int | None


@dataclass(frozen=True, slots=True)
class Replace(Action):
    """The picked card replaces Client ``old`` (``rep.<id>``)."""

    old: int


@dataclass(frozen=True, slots=True)
class Draft(Action):
    """Keep these drafted Clients (``draft.<ids>``; ids in the string order of the code)."""

    cards: tuple[int, ...]


MoonshineAction = Stop | Reroll | Validate | TakeMoon | DrawCards | Place | Lose | Discard | Keep | Pick | Replace | Draft

_SLOT = r"(?:s[0-2]|c[0-9]{1,3})"  # card ids: 0..69 (first set), 70..139 (rules 3)
_ID = r"[0-9]{1,3}"
_RE_CODE = re.compile(r"^[A-Za-z0-9._-]{1,40}$")
_RE_SIMPLE = re.compile(rf"^(?:stop|moon|draw|pick\.none|(?:val|keep|pick|rep)\.{_ID}|(?:pl|lose)\.{_SLOT})$")
_RE_TOKEN = re.compile(rf"^({_SLOT})([abc])$")
_RE_ID = re.compile(rf"^{_ID}$")


def discard_code(option: Sequence[tuple[str, int]]) -> str:
    """Canonical ``dis.`` code of a discard option ``(slot key, count)`` (tokens sorted as strings)."""
    return "dis." + ".".join(sorted(f"{k}{'abc'[j]}" for k, c in option for j in range(c)))


def discard_action(option: Sequence[tuple[str, int]]) -> Discard:
    """The :class:`Discard` of a discard option ``(slot key, count)``."""
    return Discard(tuple(sorted(f"{k}{'abc'[j]}" for k, c in option for j in range(c))))


def canonical_code(code: str) -> str:
    """The canonical form of an action code; raises :class:`IllegalAction` when malformed."""
    if not isinstance(code, str) or not _RE_CODE.match(code):
        raise IllegalAction("malformed action code")
    if _RE_SIMPLE.match(code):
        head, _, rest = code.partition(".")
        if rest and rest[0] == "c":
            rest = "c" + str(int(rest[1:]))
        elif rest and rest[0].isdigit():
            rest = str(int(rest))
        return f"{head}.{rest}" if rest else head
    head, _, rest = code.partition(".")
    parts = rest.split(".") if rest else []
    if not parts or len(set(parts)) != len(parts):
        raise IllegalAction("malformed action code")
    if head == "rr" and all(p in DIE_NAMES for p in parts):
        return "rr." + ".".join(sorted(parts))
    if head == "draft" and len(parts) <= 6 and all(_RE_ID.match(p) for p in parts):
        ids = sorted({str(int(p)) for p in parts})
        if len(ids) != len(parts):
            raise IllegalAction("malformed action code")
        return "draft." + ".".join(ids)
    if head == "dis" and len(parts) <= 8:
        counts: dict[str, int] = {}
        for p in parts:
            m = _RE_TOKEN.match(p)
            if not m:
                raise IllegalAction("malformed action code")
            key = m.group(1)
            if key[0] == "c":
                key = "c" + str(int(key[1:]))
            counts[key] = counts.get(key, 0) + 1
        if any(c > 3 for c in counts.values()):
            raise IllegalAction("malformed action code")
        return discard_code(list(counts.items()))
    raise IllegalAction("malformed action code")


def encode(action: MoonshineAction) -> str:
    """The stable code of ``action`` (see the module table)."""
    match action:
        case Stop():
            return "stop"
        case Reroll(dice):
            return "rr." + ".".join(dice)
        case Validate(card):
            return f"val.{card}"
        case TakeMoon():
            return "moon"
        case DrawCards():
            return "draw"
        case Place(slot):
            return f"pl.{slot}"
        case Lose(slot):
            return f"lose.{slot}"
        case Discard(tokens):
            return "dis." + ".".join(tokens)
        case Keep(card):
            return f"keep.{card}"
        case Pick(card):
            return "pick.none" if card is None else f"pick.{card}"
        case Replace(old):
            return f"rep.{old}"
        case Draft(cards):
            return "draft." + ".".join(str(c) for c in cards)
    raise IllegalAction("not a Moonshine action")


@lru_cache(maxsize=4096)
def decode(code: str) -> MoonshineAction:
    """The action of ``code`` (any accepted spelling); raises :class:`IllegalAction` when malformed."""
    canon = canonical_code(code)
    head, _, rest = canon.partition(".")
    if head == "stop":
        return Stop()
    if head == "moon":
        return TakeMoon()
    if head == "draw":
        return DrawCards()
    parts = tuple(rest.split("."))
    if head == "rr":
        return Reroll(parts)
    if head == "val":
        return Validate(int(rest))
    if head == "pl":
        return Place(rest)
    if head == "lose":
        return Lose(rest)
    if head == "dis":
        return Discard(parts)
    if head == "keep":
        return Keep(int(rest))
    if head == "pick":
        return Pick(None if rest == "none" else int(rest))
    if head == "rep":
        return Replace(int(rest))
    return Draft(tuple(int(p) for p in parts))
