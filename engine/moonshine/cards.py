"""Moonshine card sets as data (RULINGS M1): pydantic models of the cards, the loader of the
shipped sets, and the checks that a set is worth playing.

The published card list is not public, so the project ships its own set: 70 Client cards (14 in
each colour green/pink/purple/yellow/red, 10 of them Starting cards = 2 per colour) and 5
Speakeasy cards with a Standard and a Regular side. Every card is built only from the icon
vocabulary of the rulebook; effects are a closed set of typed kinds (discriminated unions on
``kind``) interpreted by the rules modules -- never code or expressions.

Icon kinds (``Icon``):

- ``resource`` with ``res`` one of ``food``, ``music``, ``drink``, ``any`` (resource of your
  choice) or a two-way choice ``food_or_music``, ``food_or_drink``, ``music_or_drink``;
- ``reroll``, ``draw`` (card-draw / eye), ``client`` (Client-card), ``blue_die``, ``orange_die``,
  ``discount`` (discount Moon), ``majority`` (the "?" icon: points, lower part only);
- ``silhouette`` with a ``colour`` (Regular Speakeasy sides only: 1 point per validated card of
  that colour).

A Client card has a ``cost`` (Food/Music/Drink units and Moon tokens to discard), ``points``
(0-5), a ``colour``, an ``upper`` part that is either a ``slot`` (1-3 Moon-token spaces and the
bonus they activate once all are covered) or an ``instant`` effect (``plus2_moon`` or
``plus1_minus1_moon``, applied when the card is chosen), and a ``lower`` bonus (icons available
once the card is validated). A Speakeasy side has its ``base`` icons (3 ``draw``, 2 ``client``, 1
``reroll``, plus silhouettes on the Regular side) and 1-3 upper ``slots``.

The shipped sets (:func:`card_sets`): ``data/cards.json`` is the first set, dealt under rules 1
and 2; each later set is the one before it with the changes of ``data/changes-rules<r>.json``
(:class:`SetChanges`: the Clients and Speakeasies it changes, only the fields or sides that
differ), dealt from rules version ``r`` (:data:`SET_RULES`). Every set is validated as a whole
(:class:`CardSet`) when it is built, once.

:func:`set_problems` checks the "worth playing" properties (no two identical Clients, every icon
on several cards, each colour spanning cheap to expensive cards, Speakeasies all different);
:func:`dominated_pairs` finds Clients no better than another in any way (none from the rules-3
set on). :func:`client_of` / :func:`speakeasy_of` read a card by its global id (set ``k`` holds
Clients ``70k..70k+69`` and Speakeasies ``5k..5k+4``).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

__all__ = [
    "COLOURS",
    "RESOURCES",
    "RES_MASK",
    "CardSet",
    "ClientCard",
    "Cost",
    "Icon",
    "Instant",
    "Name",
    "Slot",
    "SpeakeasyCard",
    "SpeakeasySide",
    "ClientChange",
    "SetChanges",
    "SpeakeasyChange",
    "all_clients",
    "apply_changes",
    "card_set",
    "card_sets",
    "client_of",
    "dominated_pairs",
    "dominates",
    "load_card_set",
    "load_changes",
    "set_index",
    "set_problems",
    "speakeasy_of",
]

Colour = Literal["green", "pink", "purple", "yellow", "red"]
COLOURS: tuple[str, ...] = ("green", "pink", "purple", "yellow", "red")
Resource = Literal["food", "music", "drink", "any", "food_or_music", "food_or_drink", "music_or_drink"]
RESOURCES: tuple[str, ...] = ("food", "music", "drink", "any", "food_or_music", "food_or_drink", "music_or_drink")
#: Resource kind -> the set of resources it can pay, as a mask (Food 1, Music 2, Drink 4).
RES_MASK = {"food": 1, "music": 2, "drink": 4, "food_or_music": 3, "food_or_drink": 5, "music_or_drink": 6, "any": 7}

DATA_DIR = Path(__file__).parent / "data"
#: The first card set, whole (rules 1 and 2).
DATA_PATH = DATA_DIR / "cards.json"
#: ``SET_RULES[k]``: the first rules version that deals set ``k``.
SET_RULES: tuple[int, ...] = (1, 3, 4, 5, 6, 7, 8)
#: ``CHANGE_PATHS[k - 1]``: the changes that make set ``k`` from set ``k - 1`` (``k >= 1``).
CHANGE_PATHS: tuple[Path, ...] = tuple(DATA_DIR / f"changes-rules{r}.json" for r in SET_RULES[1:])
#: Cards per set: global id = ``k * CLIENTS_PER_SET + local id`` (Speakeasies: ``SPEAKEASIES_PER_SET``),
#: one id space for states and codes; an old table's ids (set 0: 0..69, 0..4) never change.
CLIENTS_PER_SET = 70
SPEAKEASIES_PER_SET = 5


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class ResourceIcon(_Model):
    """One unit of a resource (or a two-way choice, or a resource of your choice)."""

    kind: Literal["resource"]
    res: Resource


class RerollIcon(_Model):
    """One reroll of any dice for the active player."""

    kind: Literal["reroll"]


class DrawIcon(_Model):
    """Card-draw (eye): one more card drawn when drawing."""

    kind: Literal["draw"]


class ClientIcon(_Model):
    """Client-card: one more Client card kept in front of you."""

    kind: Literal["client"]


class BlueDieIcon(_Model):
    """Access to the blue die."""

    kind: Literal["blue_die"]


class OrangeDieIcon(_Model):
    """Access to the orange die."""

    kind: Literal["orange_die"]


class DiscountIcon(_Model):
    """Discount Moon: discard one Moon token less when validating (stacks)."""

    kind: Literal["discount"]


class MajorityIcon(_Model):
    """Majority colour "?": points = validated cards of your n-th majority colour."""

    kind: Literal["majority"]


class SilhouetteIcon(_Model):
    """Silhouette (Regular Speakeasy sides): 1 point per validated card of ``colour``."""

    kind: Literal["silhouette"]
    colour: Colour


Icon = Annotated[
    ResourceIcon | RerollIcon | DrawIcon | ClientIcon | BlueDieIcon | OrangeDieIcon | DiscountIcon | MajorityIcon
    | SilhouetteIcon,
    Field(discriminator="kind"),
]

#: Icon kinds allowed on an upper (Moon-token) slot.
UPPER_KINDS = frozenset({"resource", "reroll", "draw", "blue_die", "orange_die", "discount"})
#: Icon kinds allowed in a Client card's lower (validated) part.
LOWER_KINDS = frozenset({"resource", "reroll", "draw", "client", "blue_die", "orange_die", "discount", "majority"})


class Slot(_Model):
    """An upper bonus: ``spaces`` Moon-token spaces; ``bonus`` is active while all are covered."""

    kind: Literal["slot"]
    spaces: int = Field(ge=1, le=3)
    bonus: tuple[Icon, ...] = Field(min_length=1, max_length=3)

    @model_validator(mode="after")
    def _kinds(self) -> Slot:
        bad = [i.kind for i in self.bonus if i.kind not in UPPER_KINDS]
        if bad:
            raise ValueError(f"icon kinds not allowed on a Moon-token slot: {bad}")
        return self


class Instant(_Model):
    """An instant upper effect, applied once when the card is chosen (never when validated).

    ``plus2_moon``: gain 2 Moon tokens. ``plus1_minus1_moon``: gain 1 Moon token; every other
    player loses 1 Moon token at the end of their action (RULINGS M6).
    """

    kind: Literal["instant"]
    effect: Literal["plus2_moon", "plus1_minus1_moon"]


Upper = Annotated[Slot | Instant, Field(discriminator="kind")]


class Cost(_Model):
    """What validating a Client card requires: resource units and Moon tokens to discard."""

    food: int = Field(default=0, ge=0, le=6)
    music: int = Field(default=0, ge=0, le=6)
    drink: int = Field(default=0, ge=0, le=6)
    moon: int = Field(default=0, ge=0, le=5)

    @model_validator(mode="after")
    def _not_free(self) -> Cost:
        if self.food + self.music + self.drink + self.moon == 0:
            raise ValueError("a Client card cannot be free")
        return self


class Name(_Model):
    """A card name in English and French."""

    en: str = Field(min_length=1, max_length=40)
    fr: str = Field(min_length=1, max_length=40)


class ClientCard(_Model):
    """A Client card (see the module docstring)."""

    id: int = Field(ge=0)
    name: Name
    colour: Colour
    starting: bool = False
    points: int = Field(ge=0, le=5)
    cost: Cost
    upper: Upper
    lower: tuple[Icon, ...] = Field(default=(), max_length=3)

    @model_validator(mode="after")
    def _check(self) -> ClientCard:
        bad = [i.kind for i in self.lower if i.kind not in LOWER_KINDS]
        if bad:
            raise ValueError(f"card {self.id}: icon kinds not allowed in the lower part: {bad}")
        if self.starting and self.upper.kind != "slot":
            raise ValueError(f"card {self.id}: Starting cards carry a Moon-token slot, not an instant")
        return self


class SpeakeasySide(_Model):
    """One side of a Speakeasy card: base icons and 1-3 Moon-token slots."""

    base: tuple[Icon, ...]
    slots: tuple[Slot, ...] = Field(min_length=1, max_length=3)

    @model_validator(mode="after")
    def _base(self) -> SpeakeasySide:
        counts = Counter(i.kind for i in self.base)
        expected = {"draw": 3, "client": 2, "reroll": 1}
        if {k: v for k, v in counts.items() if k != "silhouette"} != expected:
            raise ValueError(f"a Speakeasy side's base is 3 draw, 2 client, 1 reroll (+ silhouettes), got {dict(counts)}")
        return self

    @property
    def silhouettes(self) -> tuple[str, ...]:
        """Colours of the silhouette icons of this side."""
        return tuple(i.colour for i in self.base if i.kind == "silhouette")


class SpeakeasyCard(_Model):
    """A Speakeasy card with its Standard and Regular sides (the Regular side adds a silhouette)."""

    id: int = Field(ge=0)
    name: Name
    standard: SpeakeasySide
    regular: SpeakeasySide

    @model_validator(mode="after")
    def _sides(self) -> SpeakeasyCard:
        if self.standard.silhouettes:
            raise ValueError(f"speakeasy {self.id}: the Standard side has no silhouette")
        if not self.regular.silhouettes:
            raise ValueError(f"speakeasy {self.id}: the Regular side needs a silhouette")
        if self.standard.slots == self.regular.slots:
            raise ValueError(f"speakeasy {self.id}: both sides have the same slots")
        return self

    def side(self, variant: str) -> SpeakeasySide:
        """The side used in ``variant`` (``"standard"`` or ``"regular"``)."""
        return self.regular if variant == "regular" else self.standard


class CardSet(_Model):
    """The whole set: 70 Clients (ids 0..69) and 5 Speakeasies (ids 0..4)."""

    clients: tuple[ClientCard, ...]
    speakeasies: tuple[SpeakeasyCard, ...]

    @model_validator(mode="after")
    def _shape(self) -> CardSet:
        if len(self.clients) != 70:
            raise ValueError(f"70 Client cards expected, got {len(self.clients)}")
        if [c.id for c in self.clients] != list(range(70)):
            raise ValueError("Client ids must be 0..69 in order")
        per_colour: Counter[str] = Counter(c.colour for c in self.clients)
        if any(per_colour[c] != 14 for c in COLOURS):
            raise ValueError(f"14 Clients per colour expected, got {dict(per_colour)}")
        starting: Counter[str] = Counter(c.colour for c in self.clients if c.starting)
        if any(starting[c] != 2 for c in COLOURS):
            raise ValueError(f"2 Starting Clients per colour expected, got {dict(starting)}")
        if len(self.speakeasies) != 5 or [s.id for s in self.speakeasies] != list(range(5)):
            raise ValueError("5 Speakeasy cards with ids 0..4 expected")
        for lang in ("en", "fr"):
            cards: list[ClientCard | SpeakeasyCard] = [*self.clients, *self.speakeasies]
            names = [getattr(c.name, lang) for c in cards]
            dup = [n for n, k in Counter(names).items() if k > 1]
            if dup:
                raise ValueError(f"duplicate {lang} card names: {dup}")
        return self


class _Change(_Model):
    """A change to one card of a set: ``id`` names the card; every other field given replaces
    that field of the card (a field left out keeps its value, ``null`` is refused). An ``id``
    the set does not hold declares a new card: every field of the card must then be given."""

    id: int = Field(ge=0)

    @model_validator(mode="after")
    def _fields(self) -> _Change:
        given = self.model_fields_set - {"id"}
        if not given:
            raise ValueError(f"card {self.id}: a change names no field")
        nulls = sorted(k for k in given if getattr(self, k) is None)
        if nulls:
            raise ValueError(f"card {self.id}: a change gives no null field, got {nulls}")
        return self

    def changed(self) -> dict[str, Any]:
        """The fields this change gives (``id`` included), as the card model's arguments."""
        return {k: getattr(self, k) for k in self.model_fields_set}


class ClientChange(_Change):
    """A change to a Client card (:class:`ClientCard`): the fields that differ."""

    name: Name | None = None
    colour: Colour | None = None
    starting: bool | None = None
    points: int | None = Field(default=None, ge=0, le=5)
    cost: Cost | None = None
    upper: Upper | None = None
    lower: tuple[Icon, ...] | None = Field(default=None, max_length=3)


class SpeakeasyChange(_Change):
    """A change to a Speakeasy card (:class:`SpeakeasyCard`): its name, or a side replaced whole."""

    name: Name | None = None
    standard: SpeakeasySide | None = None
    regular: SpeakeasySide | None = None


class SetChanges(_Model):
    """What a rules version changes in the card set before it (``data/changes-rules<r>.json``):
    ``about`` says it in one sentence; ``clients`` and ``speakeasies`` list the changed cards,
    each id at most once (:class:`ClientChange`, :class:`SpeakeasyChange`)."""

    about: str = Field(min_length=1)
    clients: tuple[ClientChange, ...] = ()
    speakeasies: tuple[SpeakeasyChange, ...] = ()

    @model_validator(mode="after")
    def _once(self) -> SetChanges:
        for kind, changes in (("Client", self.clients), ("Speakeasy", self.speakeasies)):
            ids = [c.id for c in changes]
            dup = sorted({i for i in ids if ids.count(i) > 1})
            if dup:
                raise ValueError(f"{kind} ids changed twice: {dup}")
        return self


def apply_changes(base: CardSet, changes: SetChanges) -> CardSet:
    """The set ``base`` with ``changes`` applied: each change replaces the fields it gives of the
    card with its id, or appends a new card (an id ``base`` does not hold; every field given).
    The result is validated as any set (:class:`CardSet`: shape, ids, colours) and must pass
    :func:`set_problems`. Raises ``ValueError`` (``pydantic.ValidationError`` for a card or set
    of bad shape) when a change gives a field its card already has (nothing to change), a new
    card misses a field, or the set has a problem."""

    def changed(kind: str, cards: Sequence[Any], edits: Sequence[_Change], model: type[_Model]) -> list[Any]:
        out = list(cards)
        at = {c.id: i for i, c in enumerate(cards)}
        for edit in edits:
            fields = edit.changed()
            i = at.get(edit.id)
            if i is None:
                out.append(model.model_validate(fields))
                continue
            old = out[i]
            same = sorted(k for k, v in fields.items() if k != "id" and getattr(old, k) == v)
            if same:
                raise ValueError(f"{kind} {edit.id}: the change gives fields it already has: {same}")
            out[i] = model.model_validate({**{k: getattr(old, k) for k in type(old).model_fields}, **fields})
        return out

    out = CardSet.model_validate({
        "clients": changed("Client", base.clients, changes.clients, ClientCard),
        "speakeasies": changed("Speakeasy", base.speakeasies, changes.speakeasies, SpeakeasyCard),
    })
    problems = set_problems(out)
    if problems:
        raise ValueError(f"the changed set has problems: {problems}")
    return out


def load_changes(path: Path | str) -> SetChanges:
    """Load and validate a card-set changes file; raises ``pydantic.ValidationError`` on bad data."""
    return SetChanges.model_validate(json.loads(Path(path).read_text(encoding="utf-8")))


def _rules_key(card: ClientCard) -> str:
    """The card without its id and name: two Clients are identical when these keys match."""
    return card.model_dump_json(exclude={"id", "name"})


def set_problems(cards: CardSet) -> list[str]:
    """The "set worth playing" checks of RULINGS M1; returns the problems found (empty = fine).

    - no two Client cards identical (same colour, cost, points, upper and lower parts);
    - every icon of the vocabulary on at least 3 Client cards (silhouettes: on at least 3
      Speakeasy sides), every two-way choice in a bonus, Moon-token costs on several cards;
    - each colour has a 0-1 point card with a non-empty lower bonus and a 4-5 point card, and
      cost (resource units + Moon tokens) grows with points on average;
    - the five Speakeasy cards differ pairwise on both sides.
    """
    problems: list[str] = []
    keys = Counter(_rules_key(c) for c in cards.clients)
    for key, n in keys.items():
        if n > 1:
            problems.append(f"{n} identical Clients: {key[:80]}")
    icons: Counter[str] = Counter()
    for c in cards.clients:
        seen: set[str] = set()
        parts = list(c.lower)
        if c.upper.kind == "slot":
            parts += list(c.upper.bonus)
        else:
            seen.add(c.upper.effect)
        for i in parts:
            seen.add(i.res if i.kind == "resource" else i.kind)
        if c.cost.moon:
            seen.add("moon_cost")
        icons.update(seen)
    wanted = [*RESOURCES, "reroll", "draw", "client", "blue_die", "orange_die", "discount", "majority",
              "plus2_moon", "plus1_minus1_moon", "moon_cost"]
    for kind in wanted:
        if icons[kind] < 3:
            problems.append(f"icon {kind} on only {icons[kind]} Client cards")
    sil = sum(1 for s in cards.speakeasies if s.regular.silhouettes)
    if sil < 3:
        problems.append("silhouettes on fewer than 3 Speakeasy cards")
    for colour in COLOURS:
        mine = [c for c in cards.clients if c.colour == colour]
        if not any(c.points <= 1 and c.lower for c in mine):
            problems.append(f"{colour}: no cheap 0-1 point card with a bonus")
        if not any(c.points >= 4 for c in mine):
            problems.append(f"{colour}: no 4-5 point card")

        def size(c: ClientCard) -> int:
            return c.cost.food + c.cost.music + c.cost.drink + c.cost.moon

        low = [size(c) for c in mine if c.points <= 1]
        high = [size(c) for c in mine if c.points >= 3]
        if low and high and sum(high) / len(high) <= sum(low) / len(low):
            problems.append(f"{colour}: expensive cards do not cost more than cheap ones")
    for side in ("standard", "regular"):
        slots = [getattr(s, side).model_dump_json() for s in cards.speakeasies]
        if len(set(slots)) != len(slots):
            problems.append(f"two Speakeasy cards share their {side} side")
    return problems


# --- dominated Clients (RULINGS M1): a card no better than another in any way ----------------------
# A set worth playing has no Client that another beats or equals on everything: cost, points and
# bonuses. The first set has five such pairs; the tests check that the sets from rules 3 on have none.

def _covers(better: Icon, worse: Icon) -> bool:
    """True when icon ``better`` is at least as good as ``worse``: the same icon, or a resource
    whose choices include every choice of ``worse`` ("any" covers every resource, "Food or
    Music" covers Food and Music)."""
    if better.kind == "resource" and worse.kind == "resource":
        return RES_MASK[better.res] & RES_MASK[worse.res] == RES_MASK[worse.res]
    return better == worse


def _bonus_covers(better: Sequence[Icon], worse: Sequence[Icon]) -> bool:
    """True when every icon of ``worse`` is covered by a distinct icon of ``better``."""
    rest = list(better)

    def place(k: int) -> bool:
        if k == len(worse):
            return True
        for i, icon in enumerate(rest):
            if icon is not None and _covers(icon, worse[k]):
                rest[i] = None  # type: ignore[call-overload]
                if place(k + 1):
                    return True
                rest[i] = icon
        return False

    return place(0)


def dominates(a: ClientCard, b: ClientCard) -> bool:
    """True when Client ``a`` is at least as good as ``b`` in every way (RULINGS M1): cost no
    higher in any of Food, Music, Drink and Moon tokens, points no lower, an upper part at least
    as good (the same instant, or a slot with no more spaces whose bonus covers ``b``'s) and a
    lower bonus covering ``b``'s. Colour is ignored."""
    ca, cb = a.cost, b.cost
    if ca.food > cb.food or ca.music > cb.music or ca.drink > cb.drink or ca.moon > cb.moon:
        return False
    if a.points < b.points:
        return False
    ua, ub = a.upper, b.upper
    if ua.kind == "instant" or ub.kind == "instant":
        if ua != ub:
            return False
    elif ua.spaces > ub.spaces or not _bonus_covers(ua.bonus, ub.bonus):
        return False
    return _bonus_covers(a.lower, b.lower)


def dominated_pairs(cards: CardSet) -> list[tuple[int, int]]:
    """Pairs ``(a, b)`` of Client ids where ``a`` strictly dominates ``b`` (:func:`dominates`)."""
    cl = cards.clients
    return [(a.id, b.id) for a in cl for b in cl if a.id != b.id and dominates(a, b)]


def load_card_set(path: Path | str = DATA_PATH) -> CardSet:
    """Load and validate a card set JSON file; raises ``pydantic.ValidationError`` on bad data."""
    return CardSet.model_validate(json.loads(Path(path).read_text(encoding="utf-8")))


@lru_cache(maxsize=1)
def card_set() -> CardSet:
    """The first shipped card set (rules versions 1-2; ``data/cards.json``), loaded once."""
    return load_card_set()


@lru_cache(maxsize=1)
def card_sets() -> tuple[CardSet, ...]:
    """Every shipped card set, set ``k`` dealt from rules :data:`SET_RULES` ``[k]`` on: the first
    set, then each set the one before with the changes of :data:`CHANGE_PATHS` ``[k - 1]``
    (:func:`apply_changes`); built and validated once. Raises ``ValueError`` (with the file's
    name in a note) when a changes file is not valid."""
    sets = [card_set()]
    for path in CHANGE_PATHS:
        try:
            sets.append(apply_changes(sets[-1], load_changes(path)))
        except ValueError as e:
            e.add_note(f"in {path.name}")
            raise
    return tuple(sets)


def set_index(rules: int) -> int:
    """The card set dealt under rules version ``rules`` (0 for rules 1-2, then one set per version: 6 from rules 8)."""
    return max(k for k, first in enumerate(SET_RULES) if rules >= first)


@lru_cache(maxsize=1)
def all_clients() -> tuple[ClientCard, ...]:
    """Every Client card of every set, indexed by global id (``all_clients()[cid]``)."""
    return tuple(c for cs in card_sets() for c in cs.clients)


def client_of(cid: int) -> ClientCard:
    """The Client card of global id ``cid`` (see :data:`CLIENTS_PER_SET`); ``IndexError`` if unknown."""
    if cid < 0:
        raise IndexError(cid)
    return card_sets()[cid // CLIENTS_PER_SET].clients[cid % CLIENTS_PER_SET]


def speakeasy_of(sid: int) -> SpeakeasyCard:
    """The Speakeasy card of global id ``sid``; ``IndexError`` if unknown."""
    if sid < 0:
        raise IndexError(sid)
    return card_sets()[sid // SPEAKEASIES_PER_SET].speakeasies[sid % SPEAKEASIES_PER_SET]
