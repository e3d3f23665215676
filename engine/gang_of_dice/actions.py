"""Gang of Dice actions (frozen slotted dataclasses) and their stable codes.

One action per micro-step (``docs/rules/gang-of-dice.md``):

- :class:`Commit` ``c{n}``: commit ``n`` dice (``1 <= n <= stock``) and roll them (commit phase).
- :class:`Mark` ``m{f}``: mark one more die showing face ``f`` (0–5) for the next reroll.
- :class:`Unmark` ``u{f}``: unmark one marked die showing face ``f``.
- :class:`Reroll` ``r``: reroll the marked dice (at least one marked, at most 3 rolls: G3).
- :class:`Stop` ``s``: the current roll is final (marks are ignored).

Marks let a player reroll "any subset" of a roll (G3) without listing 2^n subsets.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

from engine.core import Action, IllegalAction

__all__ = [
    "REROLL",
    "STOP",
    "Commit",
    "GangOfDiceAction",
    "MARKS",
    "Mark",
    "Reroll",
    "Stop",
    "UNMARKS",
    "Unmark",
    "commits",
    "decode",
    "encode",
]


@dataclass(frozen=True, slots=True)
class Commit(Action):
    """Commit ``dice`` dice of the stock and roll them."""

    dice: int


@dataclass(frozen=True, slots=True)
class Mark(Action):
    """Mark one more die showing ``face`` (0–5) for the next reroll."""

    face: int


@dataclass(frozen=True, slots=True)
class Unmark(Action):
    """Unmark one marked die showing ``face`` (0–5)."""

    face: int


@dataclass(frozen=True, slots=True)
class Reroll(Action):
    """Reroll the marked dice."""


@dataclass(frozen=True, slots=True)
class Stop(Action):
    """Keep the current roll as final."""


GangOfDiceAction = Commit | Mark | Unmark | Reroll | Stop

REROLL = Reroll()
STOP = Stop()
MARKS: tuple[Mark, ...] = tuple(Mark(f) for f in range(6))
UNMARKS: tuple[Unmark, ...] = tuple(Unmark(f) for f in range(6))

_CODE = re.compile(r"^(?:c[1-9][0-9]{0,3}|[mu][0-5]|r|s)$")


@cache
def commits(stock: int) -> tuple[Commit, ...]:
    """``Commit(1) … Commit(stock)`` (shared tuples: the commit phase's legal actions)."""
    return tuple(Commit(n) for n in range(1, stock + 1))


def encode(action: GangOfDiceAction) -> str:
    """The code of ``action`` (``c{n}``, ``m{f}``, ``u{f}``, ``r``, ``s``).

    Raises :class:`IllegalAction` for anything that is not a Gang of Dice action."""
    if isinstance(action, Commit):
        return f"c{action.dice}"
    if isinstance(action, Mark):
        return f"m{action.face}"
    if isinstance(action, Unmark):
        return f"u{action.face}"
    if isinstance(action, Reroll):
        return "r"
    if isinstance(action, Stop):
        return "s"
    raise IllegalAction("not a Gang of Dice action")


def decode(code: str) -> GangOfDiceAction:
    """Inverse of :func:`encode`; raises :class:`IllegalAction` on a malformed code."""
    if not isinstance(code, str) or not _CODE.match(code):
        raise IllegalAction("malformed action code")
    kind = code[0]
    if kind == "c":
        return Commit(int(code[1:]))
    if kind == "m":
        return MARKS[int(code[1])]
    if kind == "u":
        return UNMARKS[int(code[1])]
    return REROLL if kind == "r" else STOP
