"""Shop Battle actions and their codes: ``c.<year|letters|street|games>.<hi|lo>`` and ``t.<seat>``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, TypeAlias

from engine.core import Action
from engine.shop_battle.cards import CHARACTERISTICS

__all__ = ["AI_ORDER", "CHOOSE_ALL", "TARGETS", "Choose", "ShopBattleAction", "Target", "decode_action", "encode_action"]

Characteristic: TypeAlias = Literal["year", "letters", "street", "games"]


@dataclass(frozen=True, slots=True)
class Choose(Action):
    """The chooser's announcement (S4): ``char`` (year/letters/street/games), ``hi`` = higher wins."""

    char: Characteristic
    hi: bool


@dataclass(frozen=True, slots=True)
class Target(Action):
    """The target seat of a Collector power that needs a choice (``peek``, ``swap``; S2)."""

    target: int


ShopBattleAction: TypeAlias = Choose | Target

_CHARS: tuple[Characteristic, ...] = ("year", "letters", "street", "games")
assert _CHARS == CHARACTERISTICS
#: The 8 announcements in legal-action order: every characteristic higher, then lower.
CHOOSE_ALL: tuple[Choose, ...] = tuple(Choose(char=c, hi=h) for h in (True, False) for c in _CHARS)
#: The AI's tie-break order: characteristic order, higher before lower.
AI_ORDER: tuple[Choose, ...] = tuple(Choose(char=c, hi=h) for c in _CHARS for h in (True, False))
#: ``TARGETS[seat]``.
TARGETS: tuple[Target, ...] = tuple(Target(target=t) for t in range(6))
_DECODE: dict[str, ShopBattleAction] = {
    **{f"c.{a.char}.{'hi' if a.hi else 'lo'}": a for a in CHOOSE_ALL},
    **{f"t.{a.target}": a for a in TARGETS},
}


def encode_action(action: ShopBattleAction) -> str:
    """``c.<char>.<hi|lo>`` or ``t.<seat>``; ``ValueError`` for anything else."""
    if isinstance(action, Choose):
        return f"c.{action.char}.{'hi' if action.hi else 'lo'}"
    if isinstance(action, Target):
        return f"t.{action.target}"
    raise ValueError("unknown action")


def decode_action(code: str) -> ShopBattleAction | None:
    """The action of a well-formed code, else ``None``."""
    return _DECODE.get(code)
