"""Shop Battle typed views (what one seat, or the public table, may see).

:func:`build_view` gives a :class:`ShopBattleView` for the public table and a
:class:`ShopBattleSeatView` (the public view plus ``seat`` and ``top``) for a seat;
``core.to_json`` of either is exactly the dict the game has always shown (stored fixtures and
the terminal rely on its keys), and ``ShopBattle.view_from_json`` rebuilds the typed view from
it (the class by its keys; a card by its ``kind``), as the picture workers do. Piles are face
down: only their sizes are public; every card shown was revealed face up, except ``top``, the
chooser's own top card in the chooser's view.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from engine.core import View
from engine.shop_battle.cards import CardTable, card_table
from engine.shop_battle.state import CW, KEY, ShopBattleState

__all__ = [
    "AnnounceView",
    "CardView",
    "CollectorCardView",
    "LastRoundView",
    "PendingView",
    "PlayView",
    "ShopBattleSeatView",
    "ShopBattleView",
    "ShopCardView",
    "build_view",
    "card_views",
]


@dataclass(frozen=True, slots=True, kw_only=True)
class ShopCardView(View):
    """A shop card face up: its id (index in the deck) and its four values (S1)."""

    id: int
    name: str
    kind: Literal["shop"] = "shop"
    year: int
    letters: int
    street: int
    games: int

    def value(self, char: str) -> int:
        """The value of characteristic ``char`` (``year``/``letters``/``street``/``games``)."""
        values = {"year": self.year, "letters": self.letters, "street": self.street, "games": self.games}
        return values[char]


@dataclass(frozen=True, slots=True, kw_only=True)
class CollectorCardView(View):
    """A Collector card face up: its power kind and parameters (``{"seconds": 10}``…; S2)."""

    id: int
    name: str
    kind: Literal["collector"] = "collector"
    power: str
    params: dict[str, int]


CardView = ShopCardView | CollectorCardView


@dataclass(frozen=True, slots=True, kw_only=True)
class PlayView(View):
    """A card revealed by a seat this round, at bataille ``level`` (0 = the main reveal)."""

    card: CardView
    level: int


@dataclass(frozen=True, slots=True, kw_only=True)
class AnnounceView(View):
    """The chooser's announcement (S4): characteristic, direction (``hi`` = higher wins), value
    and the chooser's card."""

    char: str
    hi: bool | None
    value: int
    card: ShopCardView


@dataclass(frozen=True, slots=True, kw_only=True)
class PendingView(View):
    """A Collector power waiting for ``owner``'s choice among ``targets`` (S2)."""

    owner: int
    card: CardView
    targets: tuple[int, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class LastRoundView(View):
    """The last finished round: announcement, every seat's plays, winner (``None`` = the pot was
    carried, S5), number of batailles, pot size, and whether a ``steal_tie`` decided it."""

    round: int
    chooser: int
    char: str | None
    hi: bool | None
    announce: AnnounceView | None
    plays: tuple[tuple[PlayView, ...], ...]
    winner: int | None
    batailles: int
    pot: int
    tiebreak: bool


@dataclass(frozen=True, slots=True, kw_only=True)
class ShopBattleView(View):
    """The public table.

    ``direction`` is ``"ccw"`` or ``"cw"``; ``piles`` are pile sizes; ``out[seat]`` the round a
    seat was eliminated in (``None`` = still in); ``pot``/``pot_face_down`` are counts;
    ``plays``/``current`` the cards revealed this round (per seat); ``winners`` is empty until
    the game is over.
    """

    game: str
    deck_name: str
    round: int
    round_cap: int | None
    phase: str
    to_act: tuple[int, ...]
    chooser: int
    direction: Literal["ccw", "cw"]
    skips: int
    piles: tuple[int, ...]
    out: tuple[int | None, ...]
    pot: int
    pot_face_down: int
    announce: AnnounceView | None
    level: int
    contenders: tuple[int, ...]
    queue: tuple[int, ...]
    plays: tuple[tuple[PlayView, ...], ...]
    current: tuple[CardView | None, ...]
    tiebreakers: tuple[int, ...]
    pending: PendingView | None
    last: LastRoundView | None
    cards_total: int
    winners: tuple[int, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class ShopBattleSeatView(ShopBattleView):
    """A seat's view: the public view plus ``seat`` and ``top``, the chooser's own top card
    while choosing (``None`` otherwise and for every other seat)."""

    seat: int
    top: CardView | None


_VIEWS: dict[int, tuple[CardTable, tuple[CardView, ...]]] = {}


def card_views(table: CardTable) -> tuple[CardView, ...]:
    """The face-up view of every card of ``table`` (cached per table)."""
    hit = _VIEWS.get(id(table))
    if hit is not None and hit[0] is table:
        return hit[1]
    out: list[CardView] = []
    for d in table.dicts:
        if d["kind"] == "shop":
            out.append(ShopCardView(id=d["id"], name=d["name"], year=d["year"], letters=d["letters"],
                                    street=d["street"], games=d["games"]))
        else:
            out.append(CollectorCardView(id=d["id"], name=d["name"], power=d["power"], params=dict(d["params"])))
    if len(_VIEWS) >= 64:
        _VIEWS.pop(next(iter(_VIEWS)))
    views = tuple(out)
    _VIEWS[id(table)] = (table, views)
    return views


def _announced(cards: tuple[CardView, ...], shop: tuple[bool, ...], plays: tuple[tuple[int, int], ...],
               char: str | None, hi: bool | None) -> AnnounceView | None:
    first = next((c for c, lvl in plays if lvl == 0 and shop[c]), None)
    if char is None or first is None:
        return None
    card = cards[first]
    assert isinstance(card, ShopCardView)
    return AnnounceView(char=char, hi=hi, value=card.value(char), card=card)


def _plays(cards: tuple[CardView, ...], plays: tuple[tuple[tuple[int, int], ...], ...]) -> tuple[tuple[PlayView, ...], ...]:
    return tuple(tuple(PlayView(card=cards[c], level=lvl) for c, lvl in p) for p in plays)


def build_view(state: ShopBattleState, seat: int | None, to_act: frozenset[int],
               winners: tuple[int, ...]) -> ShopBattleView:
    """The view of ``seat`` (``None`` = public); ``to_act`` and ``winners`` come from the game."""
    table = card_table(state.cards, state.rules)
    cards = card_views(table)
    last = None
    if state.last is not None:
        lr = state.last
        last = LastRoundView(
            round=lr.round,
            chooser=lr.chooser,
            char=lr.char,
            hi=lr.hi,
            announce=_announced(cards, table.shop, lr.plays[lr.chooser], lr.char, lr.hi),
            plays=_plays(cards, lr.plays),
            winner=lr.winner,
            batailles=lr.batailles,
            pot=lr.pot,
            tiebreak=lr.tiebreak,
        )
    pending = None
    if state.pending is not None:
        pending = PendingView(owner=state.pending.owner, card=cards[state.pending.card], targets=state.pending.targets)
    public: dict[str, Any] = dict(
        game=KEY,
        deck_name=state.deck_name,
        round=state.round,
        round_cap=state.round_cap,
        phase=state.phase,
        to_act=tuple(sorted(to_act)),
        chooser=state.chooser,
        direction="cw" if state.direction == CW else "ccw",
        skips=state.skips,
        piles=tuple(len(p) for p in state.piles),
        out=state.out,
        pot=len(state.pot),
        pot_face_down=len(state.face_down),
        announce=_announced(cards, table.shop, state.plays[state.chooser], state.announce_char, state.announce_hi),
        level=state.level,
        contenders=state.contenders,
        queue=state.queue,
        plays=_plays(cards, state.plays),
        current=tuple(None if c is None else cards[c] for c in state.current),
        tiebreakers=state.tiebreakers,
        pending=pending,
        last=last,
        cards_total=len(state.cards),
        winners=winners,
    )
    if seat is None:
        return ShopBattleView(**public)
    top = None
    if state.phase == "choose" and seat == state.chooser and state.piles[seat]:
        top = cards[state.piles[seat][0]]
    return ShopBattleSeatView(**public, seat=seat, top=top)

