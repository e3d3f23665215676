"""Shop Battle cards: names, letter counting (RULINGS S1), the card values and per-deck tables.

Cards are plain frozen slotted dataclasses (they live inside the state). Pydantic validates them
at the edges only (deck upload, the default deck file, a stored snapshot): every field type
carries its constraint (``Annotated``), and each class forbids unknown fields through
``__pydantic_config__``. See ``docs/rules/shop-battle.md``.

Letters (S1) are computed from the name, never stored, and depend on the rules version of the
table (:func:`count_letters`); the engine reads them through :func:`card_table`.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Annotated, Any, ClassVar, Literal

from pydantic import AfterValidator, BeforeValidator, ConfigDict, Discriminator, Field, StrictInt, StrictStr, Tag
from pydantic_core import PydanticCustomError

__all__ = [
    "CHARACTERISTICS",
    "FORBIDDEN_CHARS",
    "POWER_KINDS",
    "Card",
    "CardTable",
    "CollectorCard",
    "PeekPower",
    "Power",
    "ShopCard",
    "SimplePower",
    "TributePower",
    "card_dict",
    "card_table",
    "clean_name",
    "count_letters",
    "name_key",
    "safe_label",
]

#: The four characteristics of a shop card, in display order (S1).
CHARACTERISTICS: tuple[str, ...] = ("year", "letters", "street", "games")
#: Every power kind a Collector card may carry (S2).
POWER_KINDS: tuple[str, ...] = ("peek", "reverse", "skip", "steal_tie", "swap", "scout", "tribute")

NAME_MAX = 60
YEAR_RANGE = (1000, 2100)
STREET_RANGE = (0, 99_999)
GAMES_RANGE = (0, 100_000)
#: Characters refused in names (Discord markdown, mentions, masked links, escapes).
FORBIDDEN_CHARS = frozenset("@<>`*_~|#[]\\")
#: Unicode categories counted as letters from rules version 2 on (S1).
_LETTER_CATEGORIES = frozenset({"Lu", "Ll", "Lt", "Lo"})
_FORBID: ConfigDict = ConfigDict(extra="forbid")


# --- names ------------------------------------------------------------------------------------


def clean_name(value: str) -> str:
    """Normalise and check a card or deck name; returns the cleaned name.

    NFC-normalises, trims, collapses inner whitespace to single spaces. Raises
    ``PydanticCustomError`` (types ``name_empty``, ``name_too_long``, ``name_control``,
    ``name_markdown``) when the name is empty, longer than 60 characters, holds a control /
    invisible formatting character, or a markdown/mention character (``@ < > ` * _ ~ | # [ ] \\``
    or ``://``: refused, not escaped, so the stored name is the displayed name).
    """
    if any(ch in "\n\r\t\v\f\u2028\u2029\x85" for ch in value):
        raise PydanticCustomError("name_control", "must not contain line breaks or tabs")
    name = " ".join(unicodedata.normalize("NFC", value).split())
    if not name:
        raise PydanticCustomError("name_empty", "must not be empty")
    if len(name) > NAME_MAX:
        raise PydanticCustomError(
            "name_too_long", "must be at most {max} characters (has {length})", {"max": NAME_MAX, "length": len(name)}
        )
    for ch in name:
        if unicodedata.category(ch)[0] == "C":
            raise PydanticCustomError(
                "name_control", "must not contain control or invisible characters (U+{code})", {"code": f"{ord(ch):04X}"}
            )
    bad = sorted({ch for ch in name if ch in FORBIDDEN_CHARS})
    if bad or "://" in name:
        shown = " ".join(bad) if bad else "://"
        raise PydanticCustomError(
            "name_markdown", "must not contain markdown, mention or link characters: {chars}", {"chars": shown}
        )
    return name


def count_letters(name: str, rules: int = 2) -> int:
    """Letters in ``name`` (RULINGS S1, ``docs/rules/shop-battle.md``).

    Rules version 2 (S1 as settled): normalise to NFKC (the ligature ``ﬁ`` is two letters, the
    ordinal ``º`` is ``o``), then count the characters of Unicode category Lu, Ll, Lt or Lo;
    modifier letters (Lm, such as the apostrophe-like ``ʼ``), combining marks, digits, spaces and
    punctuation do not count. Rules version 1 (tables set up before the fix): NFC, then every
    character with ``str.isalpha()`` (so Lm counted and a ligature was one letter).

    >>> count_letters("Café du Coin 2"), count_letters("Dragonʼs Den"), count_letters("ﬁve")
    (10, 10, 4)
    >>> count_letters("Dragonʼs Den", rules=1), count_letters("ﬁve", rules=1)
    (11, 3)
    """
    if rules < 2:
        return sum(1 for ch in unicodedata.normalize("NFC", name) if ch.isalpha())
    return sum(1 for ch in unicodedata.normalize("NFKC", name) if unicodedata.category(ch) in _LETTER_CATEGORIES)


def safe_label(name: Any) -> str | None:
    """A name made safe to echo in an error message: at most 60 characters, every control,
    invisible, markdown or mention character replaced by ``?``; ``None`` if not text/empty."""
    if not isinstance(name, str):
        return None
    text = "".join(
        "?" if ch in FORBIDDEN_CHARS or unicodedata.category(ch)[0] == "C" else ch for ch in name[:60]
    ).strip()
    return text or None


def name_key(name: str) -> str:
    """Comparison key for unique names: accents removed, case-folded, whitespace collapsed."""
    decomposed = unicodedata.normalize("NFKD", name)
    bare = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    return " ".join(bare.casefold().split())


Name = Annotated[StrictStr, AfterValidator(clean_name)]
Year = Annotated[StrictInt, Field(ge=YEAR_RANGE[0], le=YEAR_RANGE[1])]
Street = Annotated[StrictInt, Field(ge=STREET_RANGE[0], le=STREET_RANGE[1])]
Games = Annotated[StrictInt, Field(ge=GAMES_RANGE[0], le=GAMES_RANGE[1])]


# --- cards ------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class ShopCard:
    """A local shop (S1): name (1..60 characters, see :func:`clean_name`), ``year_founded``
    1000..2100, ``street_number`` 0..99999, ``games_in_shop`` 0..100000. The letters are
    computed from the name (:func:`count_letters`), never stored."""

    __pydantic_config__: ClassVar[ConfigDict] = _FORBID
    name: Name
    year_founded: Year
    street_number: Street
    games_in_shop: Games

    def letters(self, rules: int = 2) -> int:
        """Letters in the name under rules version ``rules`` (:func:`count_letters`)."""
        return count_letters(self.name, rules)

    def value(self, characteristic: str, rules: int = 2) -> int:
        """The value of ``characteristic`` (one of :data:`CHARACTERISTICS`); ``KeyError`` else."""
        if characteristic == "year":
            return self.year_founded
        if characteristic == "letters":
            return self.letters(rules)
        if characteristic == "street":
            return self.street_number
        if characteristic == "games":
            return self.games_in_shop
        raise KeyError(characteristic)


@dataclass(frozen=True, slots=True)
class PeekPower:
    """HYPER U (S2): look at another player's pile for ``seconds`` seconds (3..60, default 10)."""

    __pydantic_config__: ClassVar[ConfigDict] = _FORBID
    kind: Literal["peek"]
    seconds: Annotated[StrictInt, Field(ge=3, le=60)] = 10


@dataclass(frozen=True, slots=True)
class TributePower:
    """Every other player puts ``cards`` (1..3, default 1) cards of their pile face down into the pot."""

    __pydantic_config__: ClassVar[ConfigDict] = _FORBID
    kind: Literal["tribute"]
    cards: Annotated[StrictInt, Field(ge=1, le=3)] = 1


@dataclass(frozen=True, slots=True)
class SimplePower:
    """A power without parameters: ``reverse``, ``skip``, ``steal_tie``, ``swap`` or ``scout``."""

    __pydantic_config__: ClassVar[ConfigDict] = _FORBID
    kind: Literal["reverse", "skip", "steal_tie", "swap", "scout"]


def _power_tag(value: Any) -> str | None:
    kind = value.get("kind") if isinstance(value, dict) else getattr(value, "kind", None)
    if kind in ("peek", "tribute"):
        return str(kind)
    if isinstance(kind, str):
        return "simple"
    return None


def _bare_kind(value: Any) -> Any:
    return {"kind": value} if isinstance(value, str) else value


#: A Collector's power: :class:`PeekPower`, :class:`TributePower` or :class:`SimplePower`. In
#: JSON either ``{"kind": "peek", "seconds": 10}`` or a bare kind string (``"swap"``).
Power = Annotated[
    Annotated[PeekPower, Tag("peek")] | Annotated[TributePower, Tag("tribute")] | Annotated[SimplePower, Tag("simple")],
    Discriminator(_power_tag, custom_error_type="power_kind", custom_error_message="must be one of the power kinds"),
    BeforeValidator(_bare_kind),
]


@dataclass(frozen=True, slots=True, kw_only=True)
class CollectorCard:
    """A Collector card (S2): a name and a power (one of :data:`POWER_KINDS`, plus params)."""

    __pydantic_config__: ClassVar[ConfigDict] = _FORBID
    name: Name
    power: Power

    @property
    def kind(self) -> str:
        """The power kind."""
        return self.power.kind

    @property
    def params(self) -> dict[str, int]:
        """The power's parameters (``{"seconds": 10}``, ``{"cards": 1}`` or ``{}``)."""
        if isinstance(self.power, PeekPower):
            return {"seconds": self.power.seconds}
        if isinstance(self.power, TributePower):
            return {"cards": self.power.cards}
        return {}


def _card_tag(value: Any) -> str:
    if isinstance(value, CollectorCard) or (isinstance(value, dict) and "power" in value):
        return "collector"
    return "shop"


#: A card of a deck: a :class:`ShopCard` or a :class:`CollectorCard` (JSON: has ``power``).
Card = Annotated[
    Annotated[ShopCard, Tag("shop")] | Annotated[CollectorCard, Tag("collector")],
    Discriminator(_card_tag),
]


def card_dict(card: ShopCard | CollectorCard, card_id: int, rules: int = 2) -> dict[str, Any]:
    """JSON form of a card (event parameters): ``{"id", "name", "kind": "shop", "year",
    "letters", "street", "games"}`` or ``{"id", "name", "kind": "collector", "power", "params"}``."""
    if isinstance(card, ShopCard):
        return {
            "id": card_id,
            "name": card.name,
            "kind": "shop",
            "year": card.year_founded,
            "letters": card.letters(rules),
            "street": card.street_number,
            "games": card.games_in_shop,
        }
    return {"id": card_id, "name": card.name, "kind": "collector", "power": card.kind, "params": card.params}


# --- per-deck tables --------------------------------------------------------------------------


class CardTable:
    """Lookup tables of one deck under one rules version (built once, then shared).

    Attributes:
        shop: ``shop[cid]`` is True for a shop card.
        shops: ids of the shop cards.
        values: ``values[char][cid]``, the value of each characteristic (``None`` for Collectors).
        strength: each card's strength as a chooser's card, for the AI (mean over characteristics
            of its best percentile, higher or lower, against the other shops; Collectors 0.5).
        dicts: :func:`card_dict` of every card, for views and events.
        names: every card's name (event parameters).
        kinds: each Collector's power kind (``None`` for a shop card).
        first_plays: ``((cid, 0),)`` for each card: a seat's play of that card at the round's
            main reveal (``plays[seat] += first_plays[cid]``); :meth:`plays_at` gives those of a
            bataille level.
    """

    __slots__ = ("_plays", "_strength", "dicts", "first_plays", "kinds", "names", "shop", "shops", "values")

    def __init__(self, cards: tuple[ShopCard | CollectorCard, ...], rules: int) -> None:
        self.shop = tuple(isinstance(c, ShopCard) for c in cards)
        self.shops = tuple(i for i, c in enumerate(cards) if isinstance(c, ShopCard))
        self.values: Mapping[str, tuple[int | None, ...]] = {
            ch: tuple(c.value(ch, rules) if isinstance(c, ShopCard) else None for c in cards) for ch in CHARACTERISTICS
        }
        self.dicts = tuple(card_dict(c, i, rules) for i, c in enumerate(cards))
        self.names = tuple(c.name for c in cards)
        self.kinds = tuple(c.power.kind if isinstance(c, CollectorCard) else None for c in cards)
        self.first_plays = tuple(((cid, 0),) for cid in range(len(cards)))
        self._plays = [self.first_plays]
        self._strength: tuple[float, ...] | None = None

    def plays_at(self, level: int) -> tuple[tuple[tuple[int, int]], ...]:
        """``plays_at(level)[cid]`` is ``((cid, level),)``: a seat's play of card ``cid`` at
        bataille level ``level`` (0: the main reveal, :attr:`first_plays`), made once per level."""
        made = self._plays
        while len(made) <= level:
            made.append(tuple(((cid, len(made)),) for cid in range(len(self.shop))))
        return made[level]

    @property
    def strength(self) -> tuple[float, ...]:
        """See the class docstring (computed on first use)."""
        if self._strength is None:
            out: list[float] = []
            for cid in range(len(self.shop)):
                others = [i for i in self.shops if i != cid]
                if not self.shop[cid] or not others:
                    out.append(0.5)
                    continue
                total = 0.0
                for ch in CHARACTERISTICS:
                    vals = self.values[ch]
                    v = vals[cid]
                    assert v is not None
                    xs = [x for x in (vals[i] for i in others) if x is not None]
                    lo = sum(1 for x in xs if x < v) + 0.5 * sum(1 for x in xs if x == v)
                    total += max(lo, len(xs) - lo) / len(xs)
                out.append(total / len(CHARACTERISTICS))
            self._strength = tuple(out)
        return self._strength


_TABLES: dict[tuple[int, int], tuple[tuple[ShopCard | CollectorCard, ...], CardTable]] = {}


def card_table(cards: tuple[ShopCard | CollectorCard, ...], rules: int) -> CardTable:
    """The :class:`CardTable` of ``cards`` under rules version ``rules``, cached by identity of
    the tuple (the entry keeps ``cards`` alive, so an id cannot be reused while cached; a state
    copied with ``dataclasses.replace`` keeps its tuple, so one table serves a whole game); at
    most 64 tables, the oldest out first."""
    key = (id(cards), rules)
    hit = _TABLES.get(key)
    if hit is not None and hit[0] is cards:
        return hit[1]
    if len(_TABLES) >= 64:
        _TABLES.pop(next(iter(_TABLES)))
    table = CardTable(cards, rules)
    _TABLES[key] = (cards, table)
    return table


#: Card tuples of loaded states, by value (at most 64, oldest out first): see :func:`shared_cards`.
_SHARED: dict[tuple[ShopCard | CollectorCard, ...], tuple[ShopCard | CollectorCard, ...]] = {}


def shared_cards(cards: tuple[ShopCard | CollectorCard, ...]) -> tuple[ShopCard | CollectorCard, ...]:
    """One tuple object for every equal deck: ``cards`` itself the first time, the earlier equal
    tuple afterwards. A state decoded from storage gets a new tuple each time; sharing it lets
    :func:`card_table` (cached by identity) serve every table of one deck, instead of building a
    table at the first step of each resumed table (about 0.3 ms)."""
    hit = _SHARED.get(cards)
    if hit is not None:
        return hit
    if len(_SHARED) >= 64:
        _SHARED.pop(next(iter(_SHARED)))
    _SHARED[cards] = cards
    return cards
