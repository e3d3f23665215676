"""High Card actions (frozen slotted dataclasses) and their stable codes.

- :class:`Play` ``p{card}``: put ``card`` (1–15) of the hand face down (the simultaneous step).
- :class:`Keep` ``k``: keep the revealed card (the turn-based step).
- :class:`Redraw` ``r``: discard the revealed card and reveal the top card of the deck instead.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from engine.core import Action, IllegalAction

__all__ = ["KEEP", "REDRAW", "HighCardAction", "Keep", "Play", "Redraw", "decode", "encode"]


@dataclass(frozen=True, slots=True)
class Play(Action):
    """Put ``card`` face down for this round."""

    card: int


@dataclass(frozen=True, slots=True)
class Keep(Action):
    """Keep the revealed card."""


@dataclass(frozen=True, slots=True)
class Redraw(Action):
    """Swap the revealed card for the top card of the deck."""


HighCardAction = Play | Keep | Redraw
KEEP = Keep()
REDRAW = Redraw()

_CODE = re.compile(r"^(?:p(?:1[0-5]|[1-9])|k|r)$")


def encode(action: HighCardAction) -> str:
    """``p{card}``, ``k`` or ``r``; raises :class:`IllegalAction` for a foreign action.

    >>> encode(Play(12)), encode(KEEP), encode(REDRAW)
    ('p12', 'k', 'r')
    """
    if isinstance(action, Play):
        return f"p{action.card}"
    if isinstance(action, Keep):
        return "k"
    if isinstance(action, Redraw):
        return "r"
    raise IllegalAction("not a High Card action")


def decode(code: str) -> HighCardAction:
    """Inverse of :func:`encode`; raises :class:`IllegalAction` on a malformed code.

    >>> decode("p7")
    Play(card=7)
    """
    if not isinstance(code, str) or not _CODE.match(code):
        raise IllegalAction("malformed action code")
    if code == "k":
        return KEEP
    if code == "r":
        return REDRAW
    return Play(int(code[1:]))
