"""The 16 warning cards of Gang of Dice: typed rules, the data file and its validation.

The cards are data (``engine/gang_of_dice/data/cards.json``), validated once at import by the
pydantic model :class:`CardSet`; at run time a card is a frozen dataclass whose ``rule`` decides
whether a roll triggers it (RULINGS G2, G3; ``docs/rules/gang-of-dice.md``).

A roll is handled as face counts ``(bosses, ones, …, fives)`` (index = face, see :func:`counts`);
the boss (face 0) is worth 0 and is never a value (G2).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

__all__ = [
    "AnyFace",
    "CARDS",
    "Card",
    "CardSet",
    "Colour",
    "CountFace",
    "DistinctAtLeast",
    "OddCount",
    "Rule",
    "Run",
    "SameValue",
    "SumAtLeast",
    "card_triggers",
    "compiled_hit",
    "counts",
]

#: Number of rounds of a game (one card each), so the least size of a card set.
ROUNDS = 12

Colour = Literal["yellow", "black"]
_FORBID = ConfigDict(extra="forbid")
_Value = Annotated[int, Field(ge=1, le=5)]


_FACES = (0, 1, 2, 3, 4, 5)


def counts(faces: Iterable[int]) -> tuple[int, ...]:
    """Faces (0 = boss, 1–5) -> count per face ``(bosses, ones, …, fives)``."""
    if isinstance(faces, (bytes, tuple)) and len(faces) > 20:
        # a big roll: six counts in C (each bytes.count has a fixed cost: a loop is cheaper below)
        return tuple(map(bytes(faces).count if isinstance(faces, tuple) else faces.count, _FACES))
    c = [0, 0, 0, 0, 0, 0]
    for f in faces:
        c[f] += 1
    return tuple(c)


@dataclass(frozen=True, slots=True, kw_only=True)
class SumAtLeast:
    """The total of the faces (boss = 0) is at least ``n``."""

    __pydantic_config__: ClassVar[ConfigDict] = _FORBID
    kind: Literal["sum_at_least"] = "sum_at_least"
    n: Annotated[int, Field(ge=1)]

    def hit(self, c: tuple[int, ...]) -> bool:
        """True when a roll with face counts ``c`` triggers the card."""
        return c[1] + 2 * c[2] + 3 * c[3] + 4 * c[4] + 5 * c[5] >= self.n


@dataclass(frozen=True, slots=True, kw_only=True)
class Run:
    """``length`` consecutive values (1–5) are all shown; bosses never take part (G2)."""

    __pydantic_config__: ClassVar[ConfigDict] = _FORBID
    kind: Literal["run"] = "run"
    length: Annotated[int, Field(ge=2, le=5)]

    def hit(self, c: tuple[int, ...]) -> bool:
        """True when a roll with face counts ``c`` triggers the card."""
        n = self.length
        return any(all(c[v:v + n]) for v in range(1, 7 - n))


@dataclass(frozen=True, slots=True, kw_only=True)
class OddCount:
    """At least ``n`` dice show an odd value (1, 3, 5); the boss is neither odd nor even."""

    __pydantic_config__: ClassVar[ConfigDict] = _FORBID
    kind: Literal["odd_count"] = "odd_count"
    n: Annotated[int, Field(ge=1)]

    def hit(self, c: tuple[int, ...]) -> bool:
        """True when a roll with face counts ``c`` triggers the card."""
        return c[1] + c[3] + c[5] >= self.n


@dataclass(frozen=True, slots=True, kw_only=True)
class DistinctAtLeast:
    """At least ``n`` distinct values among 1–5 are shown (the boss is not a value)."""

    __pydantic_config__: ClassVar[ConfigDict] = _FORBID
    kind: Literal["distinct_at_least"] = "distinct_at_least"
    n: Annotated[int, Field(ge=2, le=5)]

    def hit(self, c: tuple[int, ...]) -> bool:
        """True when a roll with face counts ``c`` triggers the card."""
        return 5 - c[1:].count(0) >= self.n


@dataclass(frozen=True, slots=True, kw_only=True)
class SameValue:
    """At least ``n`` dice show the same value 1–5 (two bosses are not a pair)."""

    __pydantic_config__: ClassVar[ConfigDict] = _FORBID
    kind: Literal["same_value"] = "same_value"
    n: Annotated[int, Field(ge=2)]

    def hit(self, c: tuple[int, ...]) -> bool:
        """True when a roll with face counts ``c`` triggers the card."""
        return max(c[1:]) >= self.n


@dataclass(frozen=True, slots=True, kw_only=True)
class CountFace:
    """At least ``n`` dice show ``face`` (1–5)."""

    __pydantic_config__: ClassVar[ConfigDict] = _FORBID
    kind: Literal["count_face"] = "count_face"
    face: _Value
    n: Annotated[int, Field(ge=1)]

    def hit(self, c: tuple[int, ...]) -> bool:
        """True when a roll with face counts ``c`` triggers the card."""
        return c[self.face] >= self.n


@dataclass(frozen=True, slots=True, kw_only=True)
class AnyFace:
    """At least one die shows one of ``faces`` (values 1–5)."""

    __pydantic_config__: ClassVar[ConfigDict] = _FORBID
    kind: Literal["any_face"] = "any_face"
    faces: Annotated[tuple[_Value, ...], Field(min_length=1)]

    def hit(self, c: tuple[int, ...]) -> bool:
        """True when a roll with face counts ``c`` triggers the card."""
        return any(c[f] for f in self.faces)


#: Any card rule; ``kind`` names the variant in the data file.
Rule = SumAtLeast | Run | OddCount | DistinctAtLeast | SameValue | CountFace | AnyFace


@dataclass(frozen=True, slots=True, kw_only=True)
class Card:
    """A warning card: ``id``, ``colour`` (yellow: checked after every roll; black: on the final
    roll only, G3) and its ``rule``. Also the ``card`` of the typed views."""

    __pydantic_config__: ClassVar[ConfigDict] = _FORBID
    id: Annotated[str, Field(pattern=r"^[a-z0-9_]{1,24}$")]
    colour: Colour
    rule: Annotated[Rule, Field(discriminator="kind")]

    def triggers(self, faces: Iterable[int]) -> bool:
        """True when a roll showing ``faces`` (0 = boss, 1–5) triggers this card."""
        return self.rule.hit(counts(faces))


class CardSet(BaseModel):
    """The data file: at least 12 warning cards with distinct ids; unknown fields are refused.

    Raises ``pydantic.ValidationError`` (through ``model_validate``) on a bad file."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    cards: tuple[Card, ...]

    @model_validator(mode="after")
    def _check(self) -> CardSet:
        ids = [c.id for c in self.cards]
        if len(set(ids)) != len(ids):
            raise ValueError("duplicate card ids")
        if len(ids) < ROUNDS:
            raise ValueError(f"need at least {ROUNDS} cards")
        return self


def _load_cards() -> dict[str, Card]:
    path = Path(__file__).parent / "data" / "cards.json"
    data = CardSet.model_validate(json.loads(path.read_text(encoding="utf-8")))
    return {c.id: c for c in data.cards}


#: Warning cards by id, in data-file order.
CARDS: dict[str, Card] = _load_cards()


def card_triggers(card_id: str, faces: Iterable[int]) -> bool:
    """True when ``faces`` trigger card ``card_id``. Raises ``KeyError`` on an unknown id."""
    return CARDS[card_id].triggers(faces)


def compiled_hit(rule: Rule) -> Callable[[tuple[int, ...]], bool]:
    """``rule.hit`` as one written-out expression of the face counts ``c`` (no generator, no
    attribute read): ``compiled_hit(Run(length=2))`` is ``lambda c: 0 < c[1] and 0 < c[2] or …``.
    Same answers as ``rule.hit`` for every counts tuple (RULINGS G2: the boss is never a value);
    for the engine's hot path. Raises ``TypeError`` for an unknown rule type."""
    if isinstance(rule, SumAtLeast):
        expr = f"c[1] + 2 * c[2] + 3 * c[3] + 4 * c[4] + 5 * c[5] >= {rule.n}"
    elif isinstance(rule, Run):
        windows = [" and ".join(f"0 < c[{v + k}]" for k in range(rule.length)) for v in range(1, 7 - rule.length)]
        expr = " or ".join(f"({w})" for w in windows)
    elif isinstance(rule, OddCount):
        expr = f"c[1] + c[3] + c[5] >= {rule.n}"
    elif isinstance(rule, DistinctAtLeast):
        expr = f"(0 < c[1]) + (0 < c[2]) + (0 < c[3]) + (0 < c[4]) + (0 < c[5]) >= {rule.n}"
    elif isinstance(rule, SameValue):
        expr = " or ".join(f"c[{v}] >= {rule.n}" for v in range(1, 6))
    elif isinstance(rule, CountFace):
        expr = f"c[{rule.face}] >= {rule.n}"
    elif isinstance(rule, AnyFace):
        expr = " or ".join(f"0 < c[{f}]" for f in rule.faces)
    else:
        raise TypeError(f"unknown rule {type(rule).__name__}")
    fn: Callable[[tuple[int, ...]], bool] = eval(f"lambda c: {expr}")  # built from validated ints only
    return fn
