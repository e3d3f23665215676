"""Shop Battle decks: the deck model, upload validation and the default deck (RULINGS S1, S2).

A deck is data, never code. It is a JSON object::

    {"name": "My town",
     "cards": [
        {"name": "Boulangerie Martin", "year_founded": 1952, "street_number": 12, "games_in_shop": 0},
        {"name": "HYPER U", "power": {"kind": "peek", "seconds": 10}},
        {"name": "Le Grand Détour", "power": "reverse"}
     ]}

A card with a ``"power"`` key is a :class:`~engine.shop_battle.cards.CollectorCard`, any other
card a :class:`~engine.shop_battle.cards.ShopCard`. ``power`` is either a bare kind
(``"reverse"``) or an object ``{"kind": ..., <params>}``.

Power kinds (a closed set; the rules engine :mod:`engine.shop_battle.rules` interprets them):

==============  ======================================================================  ===========
kind            effect when the Collector is revealed                                    params
==============  ======================================================================  ===========
``peek``        HYPER U: the owner chooses another player who still has a pile and      ``seconds``
                privately looks at that whole pile (top first) for ``seconds`` seconds   3..60, def. 10
``reverse``     the direction in which the chooser role passes is reversed
``skip``        the player who would choose next round is passed over (once)
``steal_tie``   for the rest of this round the owner wins any tie they are part of
``swap``        the owner chooses another player who still has a pile; the top cards
                of both piles are exchanged face down
``scout``       the owner privately sees the top card of every other player's pile
``tribute``     every other player puts ``cards`` cards from the top of their pile       ``cards``
                face down into the pot                                                   1..3, def. 1
==============  ======================================================================  ===========

Validation (:func:`parse_deck`, :func:`deck_issues`, and the :class:`Deck` model itself):

- 8..200 cards, at least 4 shop cards, names unique ignoring case, accents and spacing;
- year 1000..2100, street number 0..99999, games 0..100000 (JSON integers only: ``"12"``,
  ``12.0`` and ``true`` are refused);
- names: trimmed, inner whitespace collapsed to one space, NFC-normalised, 1..60 characters,
  no control or invisible formatting characters, no line breaks
  (:func:`~engine.shop_battle.cards.clean_name`);
- **Markdown and mentions are refused, not escaped**: a name containing any of
  ``@ < > ` * _ ~ | # [ ] \\`` or ``://`` is an error. Refusing keeps the stored name equal to
  the displayed name, so a name can be put in embeds, buttons and select options as is.
- unknown fields are errors, missing fields are errors.

Letters (S1) are computed from the name, never stored
(:func:`~engine.shop_battle.cards.count_letters`). See ``docs/rules/shop-battle.md``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, TypeAdapter, ValidationError, model_validator
from pydantic_core import PydanticCustomError

from engine.shop_battle.cards import (
    GAMES_RANGE,
    POWER_KINDS,
    STREET_RANGE,
    YEAR_RANGE,
    Card,
    CollectorCard,
    Name,
    ShopCard,
    clean_name,
    name_key,
    safe_label,
)

__all__ = [
    "MAX_DECK_BYTES",
    "Deck",
    "DeckError",
    "DeckIssue",
    "deck_issues",
    "default_deck",
    "parse_deck",
]

#: Largest deck file accepted by :func:`parse_deck` (bytes of UTF-8).
MAX_DECK_BYTES = 256 * 1024

MIN_CARDS, MAX_CARDS, MIN_SHOPS = 8, 200, 4
_MAX_ISSUES = 50

_DEFAULT_PATH = Path(__file__).parent / "data" / "default.json"


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


# --- deck -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class DeckIssue:
    """One problem of a deck file.

    Attributes:
        index: 0-based position of the card in ``cards`` (``None`` for the deck itself).
        name: the card's name, made safe to display (:func:`safe_label`: markdown, mention and
            control characters replaced by ``?``, at most 60 characters; ``None`` when missing).
        field: the offending field (``"year_founded"``, ``"power.seconds"``…) or ``None``.
        code: a stable machine code (``"missing"``, ``"range"``, ``"type"``, ``"extra"``,
            ``"duplicate"``, ``"name_markdown"``, ``"too_large"``, ``"not_json"``…), for i18n.
        why: a short English explanation.
    """

    index: int | None
    name: str | None
    field: str | None
    code: str
    why: str

    def __str__(self) -> str:
        where = "deck" if self.index is None else f"card {self.index + 1}"
        if self.name:
            where += f" ({self.name[:60]})"
        if self.field:
            where += f", {self.field}"
        return f"{where}: {self.why}"


class DeckError(ValueError):
    """A deck was refused. ``issues`` lists every problem found (at most 50, in file order)."""

    def __init__(self, issues: list[DeckIssue]) -> None:
        self.issues = list(issues)
        super().__init__("; ".join(str(i) for i in self.issues) or "invalid deck")


class Deck(_Model):
    """A validated deck (S1): a name and 8..200 cards, at least 4 shops, unique names.

    ``Deck.model_validate`` enforces every rule (raising ``ValidationError``);
    :func:`parse_deck` gives per-card :class:`DeckIssue` lists instead.
    """

    name: Name
    cards: tuple[Card, ...]

    @model_validator(mode="after")
    def _deck_rules(self) -> Deck:
        problems = _deck_level([c.name for c in self.cards], [isinstance(c, ShopCard) for c in self.cards])
        if problems:
            raise ValueError("; ".join(str(p) for p in problems))
        return self

    @property
    def shops(self) -> tuple[ShopCard, ...]:
        """The shop cards."""
        return tuple(c for c in self.cards if isinstance(c, ShopCard))

    @property
    def collectors(self) -> tuple[CollectorCard, ...]:
        """The Collector cards."""
        return tuple(c for c in self.cards if isinstance(c, CollectorCard))


def _deck_level(names: list[str | None], is_shop: list[bool]) -> list[DeckIssue]:
    """Deck-wide rules: card count, shop count, unique names."""
    issues: list[DeckIssue] = []
    n = len(names)
    if not MIN_CARDS <= n <= MAX_CARDS:
        issues.append(DeckIssue(None, None, "cards", "card_count",
                                f"must hold {MIN_CARDS} to {MAX_CARDS} cards (has {n})"))
    shops = sum(is_shop)
    if shops < MIN_SHOPS:
        issues.append(DeckIssue(None, None, "cards", "shop_count",
                                f"needs at least {MIN_SHOPS} shop cards (has {shops})"))
    seen: dict[str, int] = {}
    for i, name in enumerate(names):
        if not isinstance(name, str):
            continue
        key = name_key(name)
        if key in seen:
            issues.append(DeckIssue(i, safe_label(name), "name", "duplicate",
                                    f"same name as card {seen[key] + 1} (case and accents are ignored)"))
        else:
            seen[key] = i
    return issues


_TYPE_WHY = {
    "missing": ("missing", "is missing"),
    "extra_forbidden": ("extra", "is not a known field"),
    "unexpected_keyword_argument": ("extra", "is not a known field"),
    "dataclass_type": ("type", "must be an object"),
    "dataclass_exact_type": ("type", "must be an object"),
    "int_type": ("type", "must be a whole number"),
    "int_parsing": ("type", "must be a whole number"),
    "int_from_float": ("type", "must be a whole number"),
    "string_type": ("type", "must be text"),
    "dict_type": ("type", "must be an object"),
    "model_type": ("type", "must be an object"),
    "model_attributes_type": ("type", "must be an object"),
    "tuple_type": ("type", "must be a list"),
    "list_type": ("type", "must be a list"),
    "literal_error": ("power_kind", "unknown power kind; expected one of: " + ", ".join(POWER_KINDS)),
    "power_kind": ("power_kind", "unknown power kind; expected one of: " + ", ".join(POWER_KINDS)),
    "union_tag_invalid": ("power_kind", "unknown power kind; expected one of: " + ", ".join(POWER_KINDS)),
}


def _issues_from(exc: ValidationError, index: int | None, name: str | None) -> list[DeckIssue]:
    """Translate a pydantic ``ValidationError`` into :class:`DeckIssue` s."""
    out: list[DeckIssue] = []
    for err in exc.errors():
        loc = [str(p) for p in err["loc"] if not (isinstance(p, str) and p in ("peek", "tribute", "simple", "shop", "collector"))]
        field = ".".join(loc) or None
        etype = err["type"]
        if etype in _TYPE_WHY:
            code, why = _TYPE_WHY[etype]
            if code == "power_kind":
                field = "power"
        elif etype in ("greater_than_equal", "less_than_equal"):
            code, why = "range", "must be between {} and {}".format(*_range_for(field))
        elif etype.startswith("name_"):
            code, why = etype, err["msg"]
        else:
            code, why = etype, err["msg"]
        out.append(DeckIssue(index, name, field, code, why))
    return out


def _range_for(field: str | None) -> tuple[int, int]:
    return {
        "year_founded": YEAR_RANGE,
        "street_number": STREET_RANGE,
        "games_in_shop": GAMES_RANGE,
        "power.seconds": (3, 60),
        "power.cards": (1, 3),
    }.get(field or "", (0, 0))


_SHOP_ADAPTER: TypeAdapter[ShopCard] = TypeAdapter(ShopCard)
_COLLECTOR_ADAPTER: TypeAdapter[CollectorCard] = TypeAdapter(CollectorCard)


def deck_issues(data: Any) -> tuple[Deck | None, list[DeckIssue]]:
    """Validate already-decoded JSON ``data``; returns ``(deck, [])`` or ``(None, issues)``.

    Every card is checked on its own so that each bad card gets its own issues
    (index, name, field, why); deck-wide rules are checked on the cards' names.
    """
    if not isinstance(data, dict):
        return None, [DeckIssue(None, None, None, "type",
                                'the deck must be a JSON object {"name": ..., "cards": [...]}')]
    issues: list[DeckIssue] = []
    for key in data:
        if key not in ("name", "cards"):
            issues.append(DeckIssue(None, None, str(key)[:40], "extra", "is not a known field"))
    deck_name = data.get("name")
    if "name" not in data:
        issues.append(DeckIssue(None, None, "name", "missing", "is missing"))
    elif not isinstance(deck_name, str):
        issues.append(DeckIssue(None, None, "name", "type", "must be text"))
    else:
        try:
            clean_name(deck_name)
        except PydanticCustomError as exc:
            issues.append(DeckIssue(None, safe_label(deck_name), "name", exc.type, exc.message()))
    cards = data.get("cards")
    if "cards" not in data:
        issues.append(DeckIssue(None, None, "cards", "missing", "is missing"))
        return None, issues
    if not isinstance(cards, list):
        issues.append(DeckIssue(None, None, "cards", "type", "must be a list of cards"))
        return None, issues
    names: list[str | None] = []
    kinds: list[bool] = []
    for i, raw in enumerate(cards):
        raw_name = raw.get("name") if isinstance(raw, dict) else None
        label = safe_label(raw_name)
        if not isinstance(raw, dict):
            issues.append(DeckIssue(i, None, None, "type", "a card must be a JSON object"))
            names.append(None)
            kinds.append(False)
            continue
        is_shop = "power" not in raw
        try:
            card: ShopCard | CollectorCard = (
                _SHOP_ADAPTER.validate_python(raw) if is_shop else _COLLECTOR_ADAPTER.validate_python(raw))
        except ValidationError as exc:
            issues.extend(_issues_from(exc, i, label))
            names.append(raw_name[:200] if isinstance(raw_name, str) else None)
            kinds.append(is_shop)
            continue
        names.append(card.name)
        kinds.append(is_shop)
    issues.extend(_deck_level(names, kinds))
    issues.sort(key=lambda p: (-1 if p.index is None else p.index))
    if issues:
        return None, issues[:_MAX_ISSUES]
    return Deck.model_validate(data), []


def _no_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise _DuplicateKey(key)
        out[key] = value
    return out


class _DuplicateKey(ValueError):
    pass


def _no_constants(name: str) -> Any:
    raise ValueError(f"{name} is not allowed")


def parse_deck(text: str | bytes, max_bytes: int = MAX_DECK_BYTES) -> Deck:
    """Parse and validate a deck file (UTF-8 JSON text, see the module docstring).

    Returns the :class:`Deck`. Raises :class:`DeckError` whose ``issues`` say what is wrong:
    ``too_large`` (more than ``max_bytes``, 256 KiB by default), ``not_utf8``, ``empty``,
    ``not_json`` (with line and column; duplicate keys, ``NaN`` and too deep nesting included),
    then every card and deck-level problem (see :func:`deck_issues`).
    """
    raw = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else bytes(text)
    if len(raw) > max_bytes:
        raise DeckError([DeckIssue(None, None, None, "too_large",
                                   f"the file is too large ({len(raw)} bytes, at most {max_bytes})")])
    try:
        decoded = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise DeckError([DeckIssue(None, None, None, "not_utf8", "the file is not UTF-8 text")]) from None
    if not decoded.strip():
        raise DeckError([DeckIssue(None, None, None, "empty", "the file is empty")])
    try:
        data = json.loads(decoded, object_pairs_hook=_no_duplicate_keys, parse_constant=_no_constants)
    except json.JSONDecodeError as exc:
        raise DeckError([DeckIssue(None, None, None, "not_json",
                                   f"not valid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})")]) from None
    except _DuplicateKey as exc:
        raise DeckError([DeckIssue(None, None, None, "not_json",
                                   f"not valid JSON: the key {str(exc)[:40]!r} appears twice in one object")]) from None
    except RecursionError:
        raise DeckError([DeckIssue(None, None, None, "not_json", "not valid JSON: nested too deeply")]) from None
    except ValueError as exc:  # NaN/Infinity, integers with too many digits
        raise DeckError([DeckIssue(None, None, None, "not_json", f"not valid JSON: {str(exc)[:80]}")]) from None
    deck, issues = deck_issues(data)
    if deck is None:
        raise DeckError(issues)
    return deck


@lru_cache(maxsize=1)
def default_deck() -> Deck:
    """The shipped default deck (``engine/shop_battle/data/default.json``), validated."""
    return parse_deck(_DEFAULT_PATH.read_bytes())
