"""Shop Battle / Bataille des commerces (2-6 players): rules engine (RULINGS S1-S6).

Cards and decks live in :mod:`engine.shop_battle_deck` (validated pydantic models; the default
deck is ``engine/data/shop_battle_default.json``). Card ids are indices into ``state.cards``.

Flow of a round (S4, S5, S2):

1. *Pre-choice*: the round's chooser looks at the top card of their pile. A Collector found
   there is revealed to everyone, put into the pot and its power applies at once (a power that
   needs a choice is a decision step of its owner); then the chooser looks at the next card.
   The chooser's shop card is then visible to the chooser only (``view(state, chooser)["top"]``).
2. *Choice*: the chooser announces a characteristic and a direction: action codes
   ``c.<year|letters|street|games>.<hi|lo>`` (``hi`` = the higher value wins). The chooser's card
   is revealed (the announced value).
3. *Reveal*: every other active player, in rotation order from the chooser, reveals the top card
   of their pile; Collectors apply and their owner reveals the next card.
4. *Compare*: the best value wins the whole pot, which goes under the winner's pile in the order
   the cards reached the pot (carried cards first). On an equal best value the tied players
   start a *bataille*: each reveals a new card (same characteristic and direction), repeated until
   one wins. A player who has no card to reveal drops out of the comparison; the last one left
   in a tie wins; if every tied player drops out the pot stays for the next round (S5).
5. *End of round*: players with an empty pile are out (S6); the next chooser is the next active
   player counter-clockwise (seat - 1, "to the right", S4), unless reversed.

Collector powers (``CollectorCard.power.kind``; S2):

- ``peek`` (HYPER U): decision ``t.<seat>`` among the other active players whose pile is not
  empty. Public event ``sb.ev.peek`` {player, target, seconds}; private event
  ``sb.ev.peek_result`` (audience = the owner only) {player, target, seconds, count,
  cards: [card dicts of the target's pile, top first]}. ``seconds`` (default 10) is how long the
  Discord message stays; the engine itself has no clock.
- ``reverse``: the chooser role passes in the other direction from this round's end on (and the
  reveal order of later reveal steps follows the new direction). Event ``sb.ev.reverse``.
- ``skip``: when the next chooser is designated, one more active player is passed over (skips
  stack; each is used once). Events ``sb.ev.skip`` and, at the round's end, ``sb.ev.skipped``.
- ``steal_tie``: for the rest of this round, when the owner is among the players tied for the
  best value, the owner wins at once (no bataille). If several tied players hold it, only they
  go on to the bataille. Event ``sb.ev.steal_tie`` then ``sb.ev.tiebreak``.
- ``swap``: decision ``t.<seat>`` among the other active players whose pile is not empty (no
  effect when the owner's own pile is empty): the top cards of both piles are exchanged face
  down; the owner then reveals (or, as chooser, looks at) their new top card. ``sb.ev.swap``.
- ``scout``: the owner privately sees the top card of each other active player's pile. Public
  ``sb.ev.scout`` {player}; private ``sb.ev.scout_result`` {player, tops: [{seat, card}]}.
- ``tribute`` (param ``cards`` 1..3): every other active player puts that many cards from the top
  of their pile face down into the pot (fewer if they have fewer). ``sb.ev.tribute``.
  Face-down cards are never revealed; they simply go to the round's winner.

Interpretations where the rules are silent (also in the issue note):

- Reveal order: the chooser first, then the others in rotation order (the current direction,
  counter-clockwise by default); a bataille reveals in the same order among the tied players.
  The pot is kept in the order cards reached it; that is the "reveal order" of S4.
- S3 remainder: the cards left over after an even deal start the first round's pot face down.
- The first chooser is drawn at random from the seed.
- A chooser whose pile runs out (only Collectors left) passes the choice to the next active
  player with cards; the rotation then continues from the player who actually chose. If nobody
  can choose, the pot stays and the round ends.
- A Collector revealed during a bataille (or by the chooser) applies the same way; a power
  with no valid target (``peek``/``swap``) has no effect (``sb.ev.no_effect``).
- Elimination is checked at the end of each round only (a player who reveals their last card
  can still win the round).
- End (S6): when at most one player still has cards, or after round ``round_cap`` (table
  option, 10..200, default 30; "none" = no cap). A safety limit of :data:`MAX_ROUNDS` rounds ends endless
  games like a cap. Ranking: most cards held; players with no card rank by how long they
  lasted (later elimination is better); equal keys share the place. Score = cards held.
- Hidden information: piles are face down, only their sizes are public. Every card ever revealed
  face up is public, and because every later move of a card is public (pot order, swaps,
  tributes), a player knows where every card they have seen lies; the AI uses exactly that
  (``state.public`` plus ``state.known[seat]``: own top cards, peeks, scouts).

Events (keys of ``bot/i18n/*/shop_battle.json``; public unless said otherwise):
``sb.ev.round`` {round, chooser} · ``sb.ev.collector`` {player, card, power, params} ·
``sb.ev.no_effect`` {player, card} · ``sb.ev.pass`` {player} · ``sb.ev.announce`` {chooser, card,
char, value, dir: "hi"|"lo"} · ``sb.ev.reveal`` {player, card, char, value} · ``sb.ev.no_card``
{player} · ``sb.ev.bataille`` {players, value, level} · ``sb.ev.tiebreak`` {winner, value} ·
``sb.ev.win`` {winner, cards} · ``sb.ev.carry`` {cards} · ``sb.ev.out`` {player} · ``sb.ev.cap``
{round} · ``sb.ev.end`` {players} · ``sb.ev.peek`` {player, target, seconds} ·
``sb.ev.peek_result`` **audience {owner}** {player, target, seconds, count, cards} ·
``sb.ev.reverse`` {player, rotation: "cw"|"ccw"} · ``sb.ev.skip`` {player} · ``sb.ev.skipped``
{player} · ``sb.ev.steal_tie`` {player} · ``sb.ev.swap`` {player, target} · ``sb.ev.scout``
{player, count} · ``sb.ev.scout_result`` **audience {owner}** {player, tops: [{seat, card}]} ·
``sb.ev.tribute`` {player, cards}. ``card`` is a card name, except in ``cards``/``tops`` lists
where cards are :func:`card_dict` values.

Table options (:class:`ShopBattleOptions`): ``round_cap`` (``None`` or 10..200; the lobby
strings ``"none"``/``"20"`` are accepted), ``deck`` (the deck id shown in the lobby,
``"default"``), ``deck_data`` (the full validated :class:`~engine.shop_battle_deck.Deck` to play;
``None`` = the default deck). A custom ``deck`` id without ``deck_data`` is refused by
:meth:`ShopBattle.setup` (``ValueError``): the bot must load the deck into ``deck_data``.
The cards are copied into the state, so a state never depends on files or the database.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from engine.core import (
    PydanticAction as Action,
    Event,
    Game,
    GameOptions,
    IllegalAction,
    Outcome,
    PydanticState as State,
    Step,
    ranks_from_scores,
    rng_for,
)
from engine.shop_battle_deck import (
    CHARACTERISTICS,
    Card,
    CollectorCard,
    Deck,
    ShopCard,
    default_deck,
)

__all__ = [
    "Choose",
    "MAX_ROUNDS",
    "ShopBattle",
    "ShopBattleOptions",
    "ShopBattleState",
    "Target",
    "card_dict",
    "deal",
]

#: Safety limit: a game without ``round_cap`` still ends after this many rounds (as at a cap).
MAX_ROUNDS = 500
#: Round-cap values offered in the lobby (``None`` = no cap).
ROUND_CAPS = (None, 10, 20, 30, 50)
CCW, CW = -1, 1


class ShopBattleOptions(GameOptions):
    """Table options. See the module docstring.

    Attributes:
        round_cap: ``None`` or 10..200 (default 30): the game ends after that round, most cards
            wins (S6). A default cap keeps a Discord table to a sensible length: between
            reasonable players a bataille rarely ends by itself (cards just cycle).
        deck: id of the deck chosen in the lobby (``"default"`` or a guild deck id).
        deck_data: the deck itself (required when ``deck`` is not ``"default"``).
    """

    round_cap: int | None = Field(30, ge=10, le=200)
    deck: str = Field("default", pattern=r"^[A-Za-z0-9_-]{1,32}$")
    deck_data: Deck | None = None

    @field_validator("deck", mode="before")
    @classmethod
    def _deck_id(cls, value: Any) -> Any:
        if isinstance(value, int) and not isinstance(value, bool):
            return str(value)
        return value

    @field_validator("round_cap", mode="before")
    @classmethod
    def _lobby_none(cls, value: Any) -> Any:
        if isinstance(value, str) and value.strip().lower() in ("", "none", "0", "off"):
            return None
        return value


class Choose(Action):
    """The chooser's announcement: ``char`` (year/letters/street/games), ``hi`` = higher wins."""

    char: Literal["year", "letters", "street", "games"]
    hi: bool


class Target(Action):
    """The target seat of a Collector power that needs a choice (``peek``, ``swap``)."""

    target: int


_CHOOSE_ALL: tuple[Choose, ...] = tuple(Choose(char=c, hi=h) for h in (True, False) for c in CHARACTERISTICS)
_AI_ORDER: tuple[Choose, ...] = tuple(Choose(char=c, hi=h) for c in CHARACTERISTICS for h in (True, False))
_TARGETS: tuple[Target, ...] = tuple(Target(target=t) for t in range(6))


class Pending(BaseModel):
    """A Collector power waiting for its owner's choice of target."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    owner: int
    card: int
    targets: tuple[int, ...]


class LastRound(BaseModel):
    """Summary of the last finished round, for the board (all public).

    ``plays[seat]`` lists ``(card id, level)`` revealed by that seat (level 0 = main reveal,
    k = k-th bataille); ``winner`` is ``None`` when the pot was carried over.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")
    round: int
    chooser: int
    char: str | None
    hi: bool | None
    plays: tuple[tuple[tuple[int, int], ...], ...]
    winner: int | None
    batailles: int
    pot: int
    tiebreak: bool = False


class OpeningEvent(BaseModel):
    """An event of the setup's pre-choice step, kept for :meth:`ShopBattle.opening_events`."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    key: str
    params: dict[str, Any] = {}
    audience: tuple[int, ...] | None = None


class ShopBattleState(State):
    """The whole game (JSON round trip safe). Card ids index ``cards``; piles are top first.

    ``phase`` is ``choose`` (the chooser must announce), ``target`` (``pending.owner`` must pick
    a target) or ``over``. ``announce_char`` is ``None`` during the pre-choice step.
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


# --- pure helpers -----------------------------------------------------------------------------


def deal(order: Sequence[int], players: int) -> tuple[tuple[tuple[int, ...], ...], tuple[int, ...]]:
    """Deal ``order`` (top of the shuffled deck first) evenly (S3).

    Card ``k`` of the first ``players * (len // players)`` goes to seat ``k % players``; the
    remainder (fewer than ``players`` cards) is returned as the first round's pot.
    Returns ``(piles, pot)``, each pile top first.
    """
    per = len(order) // players
    dealt = list(order[: per * players])
    piles = tuple(tuple(dealt[s::players]) for s in range(players))
    return piles, tuple(order[per * players :])


def card_dict(card: ShopCard | CollectorCard, card_id: int) -> dict[str, Any]:
    """JSON view of a card: ``{"id", "name", "kind": "shop", "year", "letters", "street",
    "games"}`` or ``{"id", "name", "kind": "collector", "power", "params"}``."""
    if isinstance(card, ShopCard):
        return {
            "id": card_id,
            "name": card.name,
            "kind": "shop",
            "year": card.year_founded,
            "letters": card.letters,
            "street": card.street_number,
            "games": card.games_in_shop,
        }
    params = card.power.model_dump(exclude={"kind"})
    return {"id": card_id, "name": card.name, "kind": "collector", "power": card.kind, "params": params}


class _Work:
    """Mutable working copy of a state used inside one ``apply``/``setup``."""

    def __init__(self, st: ShopBattleState, max_rounds: int = MAX_ROUNDS) -> None:
        self.st = st
        self.max_rounds = max_rounds
        self.cards = st.cards
        self.n = st.players
        self.piles = [list(p) for p in st.piles]
        self.pot = list(st.pot)
        self.face_down = set(st.face_down)
        self.out = list(st.out)
        self.round = st.round
        self.chooser = st.chooser
        self.direction = st.direction
        self.skips = st.skips
        self.phase = st.phase
        self.char = st.announce_char
        self.hi = st.announce_hi
        self.level = st.level
        self.contenders = list(st.contenders)
        self.queue = list(st.queue)
        self.plays = [list(p) for p in st.plays]
        self.current = list(st.current)
        self.tiebreakers = list(st.tiebreakers)
        self.pending = st.pending
        self.public = set(st.public)
        self.known = [set(k) for k in st.known]
        self.last = st.last
        self.events: list[Event] = []

    # -- helpers
    def ev(self, key: str, audience: frozenset[int] | None = None, **params: Any) -> None:
        self.events.append(Event(key, params, audience))

    def is_shop(self, cid: int) -> bool:
        return isinstance(self.cards[cid], ShopCard)

    def active(self, seat: int) -> bool:
        return self.out[seat] is None

    def rotation(self, start: int, include_start: bool = True) -> list[int]:
        """Active seats in rotation order from ``start`` (current direction)."""
        seats = [(start + self.direction * k) % self.n for k in range(self.n)]
        if not include_start:
            seats = seats[1:]
        return [s for s in seats if self.active(s)]

    def value(self, cid: int) -> int:
        card = self.cards[cid]
        assert isinstance(card, ShopCard) and self.char is not None
        return card.value(self.char)

    def freeze(self) -> ShopBattleState:
        return self.st.model_copy(
            update={
                "version": self.st.version + 1,
                "piles": tuple(tuple(p) for p in self.piles),
                "pot": tuple(self.pot),
                "face_down": tuple(sorted(self.face_down)),
                "out": tuple(self.out),
                "round": self.round,
                "chooser": self.chooser,
                "direction": self.direction,
                "skips": self.skips,
                "phase": self.phase,
                "announce_char": self.char,
                "announce_hi": self.hi,
                "level": self.level,
                "contenders": tuple(self.contenders),
                "queue": tuple(self.queue),
                "plays": tuple(tuple(p) for p in self.plays),
                "current": tuple(self.current),
                "tiebreakers": tuple(self.tiebreakers),
                "pending": self.pending,
                "public": tuple(sorted(self.public)),
                "known": tuple(tuple(sorted(k - self.public)) for k in self.known),
                "last": self.last,
            }
        )

    # -- reveals and powers
    def reveal(self, seat: int) -> int:
        """Turn the top card of ``seat``'s pile face up into the pot; returns its id."""
        cid = self.piles[seat].pop(0)
        self.public.add(cid)
        self.pot.append(cid)
        self.plays[seat].append((cid, self.level))
        return cid

    def collector(self, seat: int, cid: int) -> None:
        """Apply the power of Collector ``cid`` revealed by ``seat`` (S2)."""
        card = self.cards[cid]
        assert isinstance(card, CollectorCard)
        kind = card.kind
        self.ev("sb.ev.collector", player=seat, card=card.name, power=kind,
                params=card.power.model_dump(exclude={"kind"}))
        others = [s for s in self.rotation(seat, include_start=False) if self.piles[s]]
        if kind in ("peek", "swap"):
            if not others or (kind == "swap" and not self.piles[seat]):
                self.ev("sb.ev.no_effect", player=seat, card=card.name)
                return
            self.pending = Pending(owner=seat, card=cid, targets=tuple(sorted(others)))
            self.phase = "target"
        elif kind == "reverse":
            self.direction = -self.direction
            self.ev("sb.ev.reverse", player=seat, rotation="cw" if self.direction == CW else "ccw")
        elif kind == "skip":
            self.skips += 1
            self.ev("sb.ev.skip", player=seat)
        elif kind == "steal_tie":
            if seat not in self.tiebreakers:
                self.tiebreakers.append(seat)
            self.ev("sb.ev.steal_tie", player=seat)
        elif kind == "scout":
            tops = []
            for s in others:
                top = self.piles[s][0]
                self.known[seat].add(top)
                tops.append({"seat": s, "card": card_dict(self.cards[top], top)})
            self.ev("sb.ev.scout", player=seat, count=len(tops))
            self.ev("sb.ev.scout_result", frozenset({seat}), player=seat, tops=tops)
        elif kind == "tribute":
            count = card.power.cards  # type: ignore[union-attr]
            total = 0
            for s in self.rotation(seat, include_start=False):
                take = self.piles[s][:count]
                del self.piles[s][:count]
                self.pot.extend(take)
                self.face_down.update(take)
                total += len(take)
            self.ev("sb.ev.tribute", player=seat, cards=total)

    def resolve_target(self, target: int) -> None:
        """Apply the pending ``peek``/``swap`` on ``target``."""
        pend = self.pending
        assert pend is not None
        card = self.cards[pend.card]
        assert isinstance(card, CollectorCard)
        owner = pend.owner
        self.pending = None
        self.phase = "choose"
        if card.kind == "peek":
            pile = self.piles[target]
            seconds = card.power.seconds  # type: ignore[union-attr]
            self.known[owner].update(pile)
            self.ev("sb.ev.peek", player=owner, target=target, seconds=seconds)
            self.ev(
                "sb.ev.peek_result",
                frozenset({owner}),
                player=owner,
                target=target,
                seconds=seconds,
                count=len(pile),
                cards=[card_dict(self.cards[c], c) for c in pile],
            )
        else:  # swap
            a, b = self.piles[owner], self.piles[target]
            a[0], b[0] = b[0], a[0]
            self.ev("sb.ev.swap", player=owner, target=target)

    # -- the driver
    def advance(self) -> None:
        """Run the automatic steps until a decision is needed or the game is over."""
        while self.phase != "over" and self.pending is None:
            if self.char is None:
                if self.pre_choice():
                    return
            elif self.queue:
                self.reveal_next()
            else:
                self.compare()

    def pre_choice(self) -> bool:
        """One pre-choice step; True when the chooser must now announce."""
        pile = self.piles[self.chooser]
        if pile and self.is_shop(pile[0]):
            self.known[self.chooser].add(pile[0])
            self.phase = "choose"
            return True
        if pile:
            cid = self.reveal(self.chooser)
            self.collector(self.chooser, cid)
            return False
        nxt = [s for s in self.rotation(self.chooser, include_start=False) if self.piles[s]]
        self.ev("sb.ev.pass", player=self.chooser)
        if not nxt:
            self.end_round(None)
            return False
        self.chooser = nxt[0]
        return False

    def announce(self, char: str, hi: bool) -> None:
        """The chooser's announcement (S4): reveal their card and queue the others."""
        self.char, self.hi = char, hi
        cid = self.reveal(self.chooser)
        self.current[self.chooser] = cid
        self.ev(
            "sb.ev.announce",
            chooser=self.chooser,
            card=self.cards[cid].name,
            char=char,
            value=self.value(cid),
            dir="hi" if hi else "lo",
        )
        order = self.rotation(self.chooser, include_start=False)
        self.contenders = [self.chooser, *order]
        self.queue = order

    def reveal_next(self) -> None:
        seat = self.queue[0]
        if not self.piles[seat]:
            self.queue.pop(0)
            if seat in self.contenders:
                self.contenders.remove(seat)
            self.ev("sb.ev.no_card", player=seat)
            return
        cid = self.reveal(seat)
        if not self.is_shop(cid):
            self.collector(seat, cid)
            return
        self.queue.pop(0)
        self.current[seat] = cid
        self.ev("sb.ev.reveal", player=seat, card=self.cards[cid].name, char=self.char, value=self.value(cid))

    def compare(self) -> None:
        cands = [s for s in self.contenders if self.current[s] is not None]
        if not cands:
            self.end_round(None)
            return
        values = {s: self.value(self.current[s]) for s in cands}  # type: ignore[arg-type]
        best = max(values.values()) if self.hi else min(values.values())
        tied = [s for s in cands if values[s] == best]
        if len(tied) == 1:
            self.end_round(tied[0])
            return
        holders = [s for s in tied if s in self.tiebreakers]
        if len(holders) == 1:
            self.ev("sb.ev.tiebreak", winner=holders[0], value=best)
            self.end_round(holders[0], tiebreak=True)
            return
        if holders:
            tied = holders
        order = [s for s in self.rotation(self.chooser) if s in tied]
        self.level += 1
        self.contenders = order
        self.queue = list(order)
        self.current = [None] * self.n
        self.ev("sb.ev.bataille", players=order, value=best, level=self.level)

    def end_round(self, winner: int | None, tiebreak: bool = False) -> None:
        """Give the pot (S4) or carry it (S5), eliminate (S6), start the next round or end."""
        size = len(self.pot)
        if winner is not None:
            self.piles[winner].extend(self.pot)
            self.pot = []
            self.face_down = set()
            self.ev("sb.ev.win", winner=winner, cards=size)
        else:
            self.ev("sb.ev.carry", cards=size)
        self.last = LastRound(
            round=self.round,
            chooser=self.chooser,
            char=self.char,
            hi=self.hi,
            plays=tuple(tuple(p) for p in self.plays),
            winner=winner,
            batailles=self.level,
            pot=size,
            tiebreak=tiebreak,
        )
        for s in range(self.n):
            if self.active(s) and not self.piles[s]:
                self.out[s] = self.round
                self.ev("sb.ev.out", player=s)
        alive = [s for s in range(self.n) if self.active(s)]
        cap = self.st.round_cap
        if len(alive) <= 1 or (cap is not None and self.round >= cap) or self.round >= self.max_rounds:
            self.phase = "over"
            self.queue, self.contenders, self.tiebreakers = [], [], []
            self.char = self.hi = None
            self.level = 0
            self.plays = [[] for _ in range(self.n)]
            self.current = [None] * self.n
            if len(alive) > 1:
                self.ev("sb.ev.cap", round=self.round)
            return
        nxt = self.rotation(self.chooser, include_start=False)[0]
        while self.skips:
            self.skips -= 1
            self.ev("sb.ev.skipped", player=nxt)
            nxt = self.rotation(nxt, include_start=False)[0] if len(alive) > 1 else nxt
        self.round += 1
        self.chooser = nxt
        self.char = self.hi = None
        self.level = 0
        self.contenders, self.queue, self.tiebreakers = [], [], []
        self.plays = [[] for _ in range(self.n)]
        self.current = [None] * self.n
        self.ev("sb.ev.round", round=self.round, chooser=nxt)


class _Table:
    """Per-deck lookup tables for the AI: values per characteristic (``None`` for Collectors),
    shop ids, and each card's strength as a chooser's card (mean over characteristics of its best
    percentile, higher or lower, against the other shops; Collectors 0.5)."""

    def __init__(self, cards: tuple[Any, ...]) -> None:
        self.shops = [i for i, c in enumerate(cards) if isinstance(c, ShopCard)]
        self.values: dict[str, list[int | None]] = {
            ch: [c.value(ch) if isinstance(c, ShopCard) else None for c in cards] for ch in CHARACTERISTICS
        }
        self.strength: list[float] = []
        for cid, card in enumerate(cards):
            others = [i for i in self.shops if i != cid]
            if not isinstance(card, ShopCard) or not others:
                self.strength.append(0.5)
                continue
            total = 0.0
            for ch in CHARACTERISTICS:
                v = self.values[ch][cid]
                xs = [self.values[ch][i] for i in others]
                lo = sum(1 for x in xs if x < v) + 0.5 * sum(1 for x in xs if x == v)  # type: ignore[operator]
                total += max(lo, len(xs) - lo) / len(xs)
            self.strength.append(total / len(CHARACTERISTICS))


_TABLES: dict[int, tuple[tuple[Any, ...], _Table]] = {}


def _table(cards: tuple[Any, ...]) -> _Table:
    """The :class:`_Table` of a deck, cached by identity (the entry keeps ``cards`` alive, so
    an id cannot be reused while cached); equal decks loaded separately get their own entry."""
    hit = _TABLES.get(id(cards))
    if hit is not None and hit[0] is cards:
        return hit[1]
    if len(_TABLES) >= 32:
        _TABLES.pop(next(iter(_TABLES)))
    table = _Table(cards)
    _TABLES[id(cards)] = (cards, table)
    return table


# --- the game ---------------------------------------------------------------------------------


class ShopBattle(Game):
    """Shop Battle, 2-6 players (RULINGS S1-S6). See the module docstring for the rules."""

    key = "shop-battle"
    min_players = 2
    max_players = 6
    state_model = ShopBattleState
    options_model = ShopBattleOptions
    conformance_options: ClassVar[tuple[dict[str, Any], ...]] = ({}, {"round_cap": 10}, {"round_cap": None})

    # -- setup
    def _deck(self, opts: ShopBattleOptions) -> Deck:
        if opts.deck_data is not None:
            return opts.deck_data
        if opts.deck != "default":
            raise ValueError(f"deck {opts.deck!r} is not loaded: pass it as deck_data")
        return default_deck()

    def setup(self, seed: int, players: int, options: GameOptions | Mapping[str, Any] | None = None) -> ShopBattleState:
        """Shuffle the deck from the seed, deal it (S3), draw the first chooser, run the
        pre-choice step. Raises ``ValueError`` on a bad seat count, options or deck."""
        if not self.min_players <= players <= self.max_players:
            raise ValueError(f"Shop Battle needs 2 to 6 players, not {players}")
        opts = self.parse_options(options)
        assert isinstance(opts, ShopBattleOptions)
        deck = self._deck(opts)
        import random as _random  # local: a seeded instance only, never the global generator

        rng = _random.Random(f"{seed}:deal")
        order = list(range(len(deck.cards)))
        rng.shuffle(order)
        piles, pot = deal(order, players)
        return self.start_from(seed, piles, pot, chooser=rng.randrange(players), options=opts)

    def start_from(
        self,
        seed: int,
        piles: Sequence[Sequence[int]],
        pot: Sequence[int] = (),
        chooser: int = 0,
        options: GameOptions | Mapping[str, Any] | None = None,
    ) -> ShopBattleState:
        """Pure helper (tests, replays): start a game from explicit piles (top first) and
        first-round pot (face down). Every card id of the deck must appear exactly once.
        Runs the first pre-choice step. Raises ``ValueError`` on bad input."""
        opts = self.parse_options(options)
        assert isinstance(opts, ShopBattleOptions)
        deck = self._deck(opts)
        players = len(piles)
        if not self.min_players <= players <= self.max_players:
            raise ValueError(f"Shop Battle needs 2 to 6 players, not {players}")
        ids = sorted([c for p in piles for c in p] + list(pot))
        if ids != list(range(len(deck.cards))):
            raise ValueError("piles and pot must hold every card id exactly once")
        if not 0 <= chooser < players:
            raise ValueError("bad chooser seat")
        st = ShopBattleState(
            seed=seed,
            version=-1,
            players=players,
            deck_id=opts.deck,
            deck_name=deck.name,
            cards=deck.cards,
            piles=tuple(tuple(p) for p in piles),
            pot=tuple(pot),
            face_down=tuple(sorted(pot)),
            out=(None,) * players,
            round_cap=opts.round_cap,
            chooser=chooser,
            plays=((),) * players,
            current=(None,) * players,
            known=((),) * players,
        )
        w = _Work(st, self._max_rounds(st))
        for s in range(players):  # a seat dealt no card at all is out from the start
            if not w.piles[s]:
                w.out[s] = 0
        if not w.piles[chooser]:
            alive = [s for s in range(players) if w.piles[s]]
            if alive:
                w.chooser = alive[0]
        if sum(1 for s in range(players) if w.out[s] is None) <= 1:
            w.phase = "over"
        else:
            w.advance()
        opening = tuple(
            OpeningEvent(key=e.key, params=dict(e.params),
                         audience=tuple(sorted(e.audience)) if e.audience is not None else None)
            for e in w.events)
        return w.freeze().model_copy(update={"opening": opening})

    def progress(self, state: ShopBattleState) -> int:
        """Rounds played so far, for ``simulate``."""
        return state.round

    def opening_events(self, state: ShopBattleState) -> tuple[Event, ...]:
        """The events of the setup's pre-choice step: Collectors revealed on the first
        chooser's pile before round 1's choice (S2), with their private results."""
        return tuple(Event(e.key, dict(e.params), frozenset(e.audience) if e.audience is not None else None)
                     for e in state.opening)

    def _max_rounds(self, st: ShopBattleState) -> int:
        return MAX_ROUNDS

    # -- contract
    def to_act(self, state: ShopBattleState) -> frozenset[int]:
        """``{chooser}`` in phase ``choose``, ``{pending.owner}`` in ``target``, else empty."""
        if state.phase == "choose":
            return frozenset({state.chooser})
        if state.phase == "target" and state.pending is not None:
            return frozenset({state.pending.owner})
        return frozenset()

    def legal_actions(self, state: ShopBattleState, seat: int) -> tuple[Choose | Target, ...]:
        """The 8 announcements for the chooser; a :class:`Target` per valid target in ``target``."""
        if seat not in self.to_act(state):
            return ()
        if state.phase == "choose":
            return _CHOOSE_ALL
        assert state.pending is not None
        return tuple(_TARGETS[t] for t in state.pending.targets)

    def apply(self, state: ShopBattleState, actions: Mapping[int, Choose | Target]) -> Step:
        """Apply the chooser's announcement or a Collector target, then run the round on
        until the next decision. Raises :class:`IllegalAction` (state unchanged)."""
        self.check_actions(state, actions)
        (seat, action), = actions.items()
        w = _Work(state, self._max_rounds(state))
        if isinstance(action, Choose):
            w.announce(action.char, action.hi)
        else:
            w.resolve_target(action.target)
        w.advance()
        if w.phase == "over":
            out = self.outcome_of(w.freeze())
            w.ev("sb.ev.end", players=list(out.winners))
        return Step(w.freeze(), tuple(w.events))

    def outcome(self, state: ShopBattleState) -> Outcome | None:
        """Once over: score = cards held; ranked by cards, then by elimination round (S6)."""
        if state.phase != "over":
            return None
        return self.outcome_of(state)

    @staticmethod
    def outcome_of(state: ShopBattleState) -> Outcome:
        scores = tuple(len(p) for p in state.piles)
        keys = [(scores[s], 10**9 if state.out[s] is None else state.out[s]) for s in range(state.players)]
        return Outcome(ranks=ranks_from_scores(keys), scores=scores)

    # -- views
    def view(self, state: ShopBattleState, seat: int | None) -> dict[str, Any]:
        """JSON view. Public keys: ``deck_name, round, round_cap, phase, to_act, chooser,
        direction ("ccw"/"cw"), skips, piles [counts], out [round|None], pot, pot_face_down,
        announce {char, hi, value, card}|None, level, contenders, queue, plays [[{card, level}]],
        current [card|None], tiebreakers, pending {owner, card, targets}|None,
        last {round, chooser, char, hi, announce, plays, winner, batailles, pot, tiebreak}|None,
        cards_total, winners`` (card = :func:`card_dict`).
        A seat's view adds ``seat`` and ``top``: the chooser's own top card (card dict) while
        choosing, else ``None``."""
        cards = state.cards

        def cd(cid: int) -> dict[str, Any]:
            return card_dict(cards[cid], cid)

        def announced(plays: tuple[tuple[int, int], ...], char: str | None, hi: bool | None) -> dict | None:
            first = next((c for c, lvl in plays if lvl == 0 and isinstance(cards[c], ShopCard)), None)
            if char is None or first is None:
                return None
            return {"char": char, "hi": hi, "value": cards[first].value(char), "card": cd(first)}  # type: ignore[union-attr]

        announce = announced(state.plays[state.chooser], state.announce_char, state.announce_hi)
        last = None
        if state.last is not None:
            lr = state.last
            last = {
                "round": lr.round,
                "chooser": lr.chooser,
                "char": lr.char,
                "hi": lr.hi,
                "announce": announced(lr.plays[lr.chooser], lr.char, lr.hi),
                "plays": [[{"card": cd(c), "level": lvl} for c, lvl in p] for p in lr.plays],
                "winner": lr.winner,
                "batailles": lr.batailles,
                "pot": lr.pot,
                "tiebreak": lr.tiebreak,
            }
        out: dict[str, Any] = {
            "game": self.key,
            "deck_name": state.deck_name,
            "round": state.round,
            "round_cap": state.round_cap,
            "phase": state.phase,
            "to_act": sorted(self.to_act(state)),
            "chooser": state.chooser,
            "direction": "cw" if state.direction == CW else "ccw",
            "skips": state.skips,
            "piles": [len(p) for p in state.piles],
            "out": list(state.out),
            "pot": len(state.pot),
            "pot_face_down": len(state.face_down),
            "announce": announce,
            "level": state.level,
            "contenders": list(state.contenders),
            "queue": list(state.queue),
            "plays": [[{"card": cd(c), "level": lvl} for c, lvl in p] for p in state.plays],
            "current": [None if c is None else cd(c) for c in state.current],
            "tiebreakers": list(state.tiebreakers),
            "pending": None
            if state.pending is None
            else {
                "owner": state.pending.owner,
                "card": cd(state.pending.card),
                "targets": list(state.pending.targets),
            },
            "last": last,
            "cards_total": len(cards),
            "winners": list(self.outcome_of(state).winners) if state.phase == "over" else [],
        }
        if seat is not None:
            out["seat"] = seat
            top = None
            if state.phase == "choose" and seat == state.chooser and state.piles[seat]:
                top = cd(state.piles[seat][0])
            out["top"] = top
        return out

    def knowledge(self, state: ShopBattleState, seat: int | None) -> frozenset[int]:
        """Card ids whose identity ``seat`` knows (public ones plus its private knowledge)."""
        extra = state.known[seat] if seat is not None else ()
        return frozenset(state.public) | frozenset(extra)

    def hidden_variant(self, state: ShopBattleState, seat: int | None, salt: int) -> ShopBattleState:
        """Re-deal every card ``seat`` does not know among the places such cards occupy (piles
        and face-down pot), shop cards among shop places and Collectors among Collector places."""
        import random as _random

        rng = _random.Random(f"variant:{salt}:{seat}")
        known = self.knowledge(state, seat)
        piles = [list(p) for p in state.piles]
        pot = list(state.pot)
        mapping: dict[int, int] = {}
        for shop in (True, False):
            places: list[tuple[int, int]] = []  # (pile seat or -1 for pot, index)
            for s, p in enumerate(piles):
                places += [(s, i) for i, c in enumerate(p) if c not in known and isinstance(state.cards[c], ShopCard) == shop]
            places += [(-1, i) for i, c in enumerate(pot) if c not in known and isinstance(state.cards[c], ShopCard) == shop]
            ids = [piles[s][i] if s >= 0 else pot[i] for s, i in places]
            new = list(ids)
            rng.shuffle(new)
            for (s, i), old, nid in zip(places, ids, new):
                mapping[old] = nid
                if s >= 0:
                    piles[s][i] = nid
                else:
                    pot[i] = nid
        face_down = tuple(sorted(mapping.get(c, c) for c in state.face_down))
        known_sets = tuple(tuple(sorted(mapping.get(c, c) for c in k)) for k in state.known)
        base = super().hidden_variant(state, seat, salt)
        return base.model_copy(
            update={
                "piles": tuple(tuple(p) for p in piles),
                "pot": tuple(pot),
                "face_down": face_down,
                "known": known_sets,
            }
        )

    # -- AI
    def _win_chance(self, state: ShopBattleState, seat: int, top: int, char: str, hi: bool,
                    pool: list[int], know: frozenset[int]) -> float:
        """Chance that ``top`` beats every other active player's top card on ``char``/``hi``:
        a top card ``seat`` knows counts exactly, an unknown one is drawn from ``pool``."""
        vals = _table(state.cards).values[char]
        mine = vals[top]
        pool_vals = [vals[c] for c in pool]
        if pool_vals:
            beat = sum(1 for v in pool_vals if (v < mine if hi else v > mine))
            tie = sum(1 for v in pool_vals if v == mine)
            p_unknown = (beat + 0.5 * tie) / len(pool_vals)
        else:
            p_unknown = 0.5
        p = 1.0
        for o in range(state.players):
            if o == seat or state.out[o] is not None or not state.piles[o]:
                continue
            t = state.piles[o][0]
            v = vals[t]
            if t in know and v is not None:
                p *= 1.0 if (v < mine if hi else v > mine) else (0.5 if v == mine else 0.0)
            else:
                p *= p_unknown
        return p

    def _pool(self, state: ShopBattleState, seat: int, exclude: int | None) -> tuple[list[int], frozenset[int]]:
        """Shop cards ``seat`` has never seen (all shops but ``exclude`` if it has seen them all)."""
        know = self.knowledge(state, seat)
        shops = [i for i in _table(state.cards).shops if i != exclude]
        pool = [i for i in shops if i not in know]
        return (pool or shops), know

    def ai_action(self, state: ShopBattleState, seat: int) -> Choose | Target:
        """Baseline AI (deterministic).

        Chooser: for every characteristic and direction, the chance that its top card beats
        every other active player's top card, where a top card it knows (public or seen) counts
        exactly and an unknown one is drawn from the shop cards it has never seen (percentile of
        its value); picks the best (ties: characteristic order, higher before lower).
        ``peek``: the player with the most cards (ties: rotation order). ``swap``: the player
        whose top card is the strongest as far as it knows (unknown = average), then most cards.
        Raises :class:`IllegalAction` when ``seat`` is not to act.
        """
        legal = self.legal_actions(state, seat)
        if not legal:
            raise IllegalAction("not your turn")
        if state.phase == "choose":
            top = state.piles[seat][0]
            pool, know = self._pool(state, seat, top)
            best: tuple[float, int] | None = None
            choice = legal[0]
            for rank, action in enumerate(_AI_ORDER):
                p = self._win_chance(state, seat, top, action.char, action.hi, pool, know)
                key = (p, -rank)
                if best is None or key > best:
                    best, choice = key, action
            return choice
        assert state.pending is not None
        card = state.cards[state.pending.card]
        targets = list(state.pending.targets)
        order = {s: k for k, s in enumerate((seat + CCW * k) % state.players for k in range(1, state.players))}
        if isinstance(card, CollectorCard) and card.kind == "swap":
            pool, know = self._pool(state, seat, None)
            strength = _table(state.cards).strength
            avg = sum(strength[c] for c in pool) / len(pool)

            def gain(t: int) -> float:
                top = state.piles[t][0]
                return strength[top] if top in know else avg

            pick = max(targets, key=lambda t: (round(gain(t), 9), len(state.piles[t]), -order.get(t, 0)))
        else:
            pick = max(targets, key=lambda t: (len(state.piles[t]), -order.get(t, 0)))
        return Target(target=pick)

    # -- codecs
    def encode(self, action: Choose | Target) -> str:
        """``c.<char>.<hi|lo>`` or ``t.<seat>``."""
        if isinstance(action, Choose):
            return f"c.{action.char}.{'hi' if action.hi else 'lo'}"
        if isinstance(action, Target):
            return f"t.{action.target}"
        raise IllegalAction("unknown action")

    def decode(self, code: str) -> Choose | Target:
        """Inverse of :meth:`encode`; raises :class:`IllegalAction` on anything else."""
        self.check_code(code)
        parts = code.split(".")
        if len(parts) == 3 and parts[0] == "c" and parts[1] in CHARACTERISTICS and parts[2] in ("hi", "lo"):
            return Choose(char=parts[1], hi=parts[2] == "hi")  # type: ignore[arg-type]
        if len(parts) == 2 and parts[0] == "t" and parts[1] in ("0", "1", "2", "3", "4", "5"):
            return Target(target=int(parts[1]))
        raise IllegalAction("malformed action code")
