"""Shop Battle state: frozen slotted dataclasses (JSON round trip through ``Game.load_state``).

Card ids index ``state.cards``; piles are top first. See :mod:`engine.shop_battle.rules` for the
flow of a round and ``docs/rules/shop-battle.md`` for the rules.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from engine.core import State
from engine.shop_battle.cards import Card

__all__ = ["CCW", "CW", "KEY", "LastRound", "OpeningEvent", "Pending", "ShopBattleState", "knowledge"]

#: The game's key (stored with every table and in its public view's ``game`` field).
KEY = "shop-battle"

CCW, CW = -1, 1


@dataclass(frozen=True, slots=True, kw_only=True)
class Pending:
    """A Collector power (card id ``card``) waiting for ``owner``'s choice among ``targets``."""

    owner: int
    card: int
    targets: tuple[int, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class LastRound:
    """Summary of the last finished round, for the board (all public).

    ``plays[seat]`` lists ``(card id, level)`` revealed by that seat (level 0 = main reveal,
    k = k-th bataille); ``winner`` is ``None`` when the pot was carried over.
    """

    round: int
    chooser: int
    char: str | None
    hi: bool | None
    plays: tuple[tuple[tuple[int, int], ...], ...]
    winner: int | None
    batailles: int
    pot: int
    tiebreak: bool = False


@dataclass(frozen=True, slots=True, kw_only=True)
class OpeningEvent:
    """An event of the setup's pre-choice step, kept for ``ShopBattle.opening_events``."""

    key: str
    params: Mapping[str, Any] = field(default_factory=dict)
    audience: tuple[int, ...] | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class ShopBattleState(State):
    """The whole game. Card ids index ``cards``; piles are top first.

    ``phase`` is ``choose`` (the chooser must announce), ``target`` (``pending.owner`` must pick
    a target) or ``over``. ``announce_char`` is ``None`` during the pre-choice step.
    ``out[seat]`` is the round the seat was eliminated in (``None`` = still in, 0 = dealt no
    card). ``public`` holds every card id ever revealed face up; ``known[seat]`` what that seat
    saw privately on top (own top cards, peeks, scouts). ``lap_opener`` (rules 2, S6) is the
    seat that opened the current lap of choosers; it is not stored for rules-1 tables.
    ``chosen`` (rules 4, S6) counts the announcements each seat has made (``()`` = none yet);
    it is not stored for tables of rules 1-3. ``aside`` (rules 5, S3) holds the cards left over
    by the even deal, set aside face down, out of the game and unseen by everyone; it is not
    stored for tables of rules 1-4.
    """

    deck_id: str = "default"
    deck_name: str
    cards: tuple[Card, ...]
    piles: tuple[tuple[int, ...], ...]
    pot: tuple[int, ...] = ()
    face_down: tuple[int, ...] = ()
    out: tuple[int | None, ...]
    round: int = 1
    round_cap: int | None = None
    chooser: int = 0
    direction: int = CCW
    skips: int = 0
    phase: Literal["choose", "target", "over"] = "choose"
    announce_char: str | None = None
    announce_hi: bool | None = None
    level: int = 0
    contenders: tuple[int, ...] = ()
    queue: tuple[int, ...] = ()
    plays: tuple[tuple[tuple[int, int], ...], ...]
    current: tuple[int | None, ...]
    tiebreakers: tuple[int, ...] = ()
    pending: Pending | None = None
    public: tuple[int, ...] = ()
    known: tuple[tuple[int, ...], ...]
    last: LastRound | None = None
    opening: tuple[OpeningEvent, ...] = ()  # events of the setup step (private ones included)
    lap_opener: int = 0
    chosen: tuple[int, ...] = ()
    aside: tuple[int, ...] = ()


def knowledge(state: ShopBattleState, seat: int | None) -> frozenset[int]:
    """Card ids whose identity ``seat`` knows (public ones plus its private knowledge)."""
    extra = state.known[seat] if seat is not None else ()
    return frozenset(state.public) | frozenset(extra)
