"""The round machine of Shop Battle: a mutable working copy of a state used inside one
``apply``/``setup`` (RULINGS S2, S4, S5, S6; ``docs/rules/shop-battle.md``).

:class:`RoundWork` runs the automatic steps (pre-choice, reveals, Collector powers, compare,
bataille, end of round) until a decision is needed, collecting the events, then freezes into a
new :class:`~engine.shop_battle.state.ShopBattleState`.
"""

from __future__ import annotations

from typing import Any, Literal

from engine.core import Event, event, replacer
from engine.shop_battle.cards import CollectorCard, PeekPower, TributePower, card_table
from engine.shop_battle.state import CW, LastRound, Pending, ShopBattleState

__all__ = ["MAX_ROUNDS", "RoundWork"]

#: Safety limit: a game without ``round_cap`` still ends after this many rounds (as at a cap).
MAX_ROUNDS = 500

#: ``_ORDERS[(players, direction)][start]``: every seat in rotation order from ``start``.
_ORDERS: dict[tuple[int, int], tuple[tuple[int, ...], ...]] = {}


def _orders(n: int, direction: int) -> tuple[tuple[int, ...], ...]:
    hit = _ORDERS.get((n, direction))
    if hit is None:
        hit = _ORDERS[(n, direction)] = tuple(tuple((start + direction * k) % n for k in range(n)) for start in range(n))
    return hit


#: The public tuple of the last frozen state and the same as a frozenset (the next step's start).
_PUBLIC: tuple[tuple[int, ...], frozenset[int]] = ((), frozenset())

#: The next state: every field a step may change, the others copied (``engine.core.replacer``).
_next_state = replacer(
    ShopBattleState, "version", "piles", "pot", "face_down", "out", "round", "chooser", "direction", "skips",
    "phase", "announce_char", "announce_hi", "level", "contenders", "queue", "plays", "current", "tiebreakers",
    "pending", "public", "known", "last", "lap_opener", "chosen")
#: ``LastRound(...)`` with every field given in order (the copied instance is never read).
_new_last = replacer(LastRound, "round", "chooser", "char", "hi", "plays", "winner", "batailles", "pot", "tiebreak")


class RoundWork:
    """Mutable working copy of ``st`` (lists and sets instead of tuples).

    ``public_dirty`` / ``known_dirty`` record whether a card became public or privately known
    during the step; when neither did, :meth:`freeze` reuses the state's tuples."""

    __slots__ = ("cards", "char", "chooser", "chosen", "contenders", "current", "direction", "events", "face_down", "hi",
                 "known", "known_dirty", "lap_opener", "last", "level", "max_rounds", "n", "orders", "out", "pending",
                 "phase", "piles", "plays", "pot", "public", "public_dirty", "queue", "round", "skips", "st", "table",
                 "tiebreakers", "vals")

    def __init__(self, st: ShopBattleState, max_rounds: int = MAX_ROUNDS) -> None:
        self.st = st
        self.max_rounds = max_rounds
        self.cards = st.cards
        self.table = card_table(st.cards, st.rules)
        self.n = st.players
        self.piles = list(map(list, st.piles))
        self.pot = list(st.pot)
        self.face_down = set(st.face_down)
        self.out = list(st.out)
        self.round = st.round
        self.chooser = st.chooser
        self.direction = st.direction
        self.skips = st.skips
        self.phase: Literal["choose", "target", "over"] = st.phase
        self.char = st.announce_char
        self.hi = st.announce_hi
        self.level = st.level
        self.contenders = list(st.contenders)
        self.queue = list(st.queue)
        self.plays = list(map(list, st.plays))
        self.current = list(st.current)
        self.tiebreakers = list(st.tiebreakers)
        self.pending = st.pending
        cached = _PUBLIC
        self.public: set[int] | frozenset[int] = cached[1] if cached[0] is st.public else frozenset(st.public)
        self.known: list[set[int] | None] = [None] * self.n  # a seat's set copied on first use (learn)
        self.public_dirty = self.known_dirty = False
        self.last = st.last
        self.lap_opener = st.lap_opener
        self.chosen = st.chosen
        self.events: list[Event] = []
        self.orders = _orders(self.n, self.direction)
        self.vals = self.table.values[self.char] if self.char is not None else ()

    # -- helpers
    def ev(self, key: str, audience: frozenset[int] | None = None, **params: Any) -> None:
        """Record an event (``audience`` = the seats that may see it, ``None`` = public)."""
        self.events.append(event(key, params, audience))

    def card_json(self, cid: int) -> dict[str, Any]:
        return dict(self.table.dicts[cid])

    def is_shop(self, cid: int) -> bool:
        return self.table.shop[cid]

    def active(self, seat: int) -> bool:
        return self.out[seat] is None

    def rotation(self, start: int, include_start: bool = True) -> list[int]:
        """Active seats in rotation order from ``start`` (current direction)."""
        out = self.out
        seats = self.orders[start]
        return [s for s in (seats if include_start else seats[1:]) if out[s] is None]

    def value(self, cid: int) -> int:
        """The announced characteristic's value of shop card ``cid``."""
        v = self.vals[cid]
        assert v is not None
        return v

    def freeze(self) -> ShopBattleState:
        """The next state (version + 1)."""
        st = self.st
        global _PUBLIC
        if self.public_dirty:
            public = tuple(sorted(self.public))
            _PUBLIC = (public, frozenset(self.public))
        else:
            public = st.public
        pub = self.public
        if self.public_dirty:  # cards seen privately may have become public: drop them
            known = tuple((o if pub.isdisjoint(o) else tuple(c for c in o if c not in pub)) if k is None
                          else tuple(sorted(k - pub)) for k, o in zip(self.known, st.known, strict=True))
        elif self.known_dirty:
            known = tuple(o if k is None else tuple(sorted(k - pub)) for k, o in zip(self.known, st.known, strict=True))
        else:
            known = st.known
        return _next_state(
            st, st.version + 1, tuple(map(tuple, self.piles)), tuple(self.pot),
            tuple(sorted(self.face_down)) if self.face_down else (), tuple(self.out), self.round, self.chooser,
            self.direction, self.skips, self.phase, self.char, self.hi, self.level, tuple(self.contenders),
            tuple(self.queue), tuple(map(tuple, self.plays)), tuple(self.current), tuple(self.tiebreakers),
            self.pending, public, known, self.last, self.lap_opener, self.chosen)

    def learn(self, seat: int, cid: int) -> None:
        """``seat`` privately sees card ``cid``."""
        if cid in self.public:  # the state keeps only private knowledge (known minus public)
            return
        k = self.known[seat]
        if k is None:
            k = self.known[seat] = set(self.st.known[seat])
        k.add(cid)
        self.known_dirty = True

    def make_public(self, cid: int) -> None:
        """Card ``cid`` is now face up for everyone."""
        if not self.public_dirty:
            self.public = set(self.public)
            self.public_dirty = True
        self.public.add(cid)  # type: ignore[union-attr]

    # -- reveals and powers
    def reveal(self, seat: int) -> int:
        """Turn the top card of ``seat``'s pile face up into the pot; returns its id."""
        cid = self.piles[seat].pop(0)
        if cid not in self.public:
            self.make_public(cid)
        self.pot.append(cid)
        self.plays[seat].append((cid, self.level))
        return cid

    def collector(self, seat: int, cid: int) -> None:
        """Apply the power of Collector ``cid`` revealed by ``seat`` (S2)."""
        card = self.cards[cid]
        assert isinstance(card, CollectorCard)
        kind = card.kind
        self.ev("sb.ev.collector", player=seat, card=card.name, power=kind, params=card.params)
        others = [s for s in self.rotation(seat, include_start=False) if self.piles[s]]
        if kind in ("peek", "swap"):
            if not others or (kind == "swap" and not self.piles[seat]):
                self.ev("sb.ev.no_effect", player=seat, card=card.name)
                return
            self.pending = Pending(owner=seat, card=cid, targets=tuple(sorted(others)))
            self.phase = "target"
        elif kind == "reverse":
            self.direction = -self.direction
            self.orders = _orders(self.n, self.direction)
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
                self.learn(seat, top)
                tops.append({"seat": s, "card": self.card_json(top)})
            self.ev("sb.ev.scout", player=seat, count=len(tops))
            self.ev("sb.ev.scout_result", frozenset({seat}), player=seat, tops=tops)
        elif kind == "tribute":
            assert isinstance(card.power, TributePower)
            count = card.power.cards
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
        if isinstance(card.power, PeekPower):
            pile = self.piles[target]
            seconds = card.power.seconds
            for c in pile:
                self.learn(owner, c)
            self.ev("sb.ev.peek", player=owner, target=target, seconds=seconds)
            self.ev(
                "sb.ev.peek_result",
                frozenset({owner}),
                player=owner,
                target=target,
                seconds=seconds,
                count=len(pile),
                cards=[self.card_json(c) for c in pile],
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
        if pile and self.table.shop[pile[0]]:
            self.learn(self.chooser, pile[0])
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
        self.vals = self.table.values[char]
        cid = self.reveal(self.chooser)
        if self.st.rules >= 4:  # S6: count the choices, for the end at the cap
            counts = list(self.chosen) if self.chosen else [0] * self.n
            counts[self.chooser] += 1
            self.chosen = tuple(counts)
        self.current[self.chooser] = cid
        self.events.append(event("sb.ev.announce", {"chooser": self.chooser, "card": self.cards[cid].name, "char": char,
                                                    "value": self.value(cid), "dir": "hi" if hi else "lo"}))
        order = self.rotation(self.chooser, include_start=False)
        self.contenders = [self.chooser, *order]
        self.queue = order

    def reveal_next(self) -> None:
        """The next seat of the queue reveals (a Collector applies; no card = drops out)."""
        seat = self.queue[0]
        pile = self.piles[seat]
        if not pile:
            self.queue.pop(0)
            if seat in self.contenders:
                self.contenders.remove(seat)
            self.ev("sb.ev.no_card", player=seat)
            return
        cid = pile.pop(0)  # reveal(), inlined: this is the hottest path of a playout
        if cid not in self.public:
            self.make_public(cid)
        self.pot.append(cid)
        self.plays[seat].append((cid, self.level))
        if not self.table.shop[cid]:
            self.collector(seat, cid)
            return
        self.queue.pop(0)
        self.current[seat] = cid
        self.events.append(event("sb.ev.reveal", {"player": seat, "card": self.cards[cid].name, "char": self.char,
                                                  "value": self.vals[cid]}))

    def compare(self) -> None:
        """Best value wins (S4); an equal best value starts a bataille (S5)."""
        values: dict[int, int] = {}
        for s in self.contenders:
            c = self.current[s]
            if c is not None:
                values[s] = self.value(c)
        if not values:
            self.end_round(None)
            return
        best = max(values.values()) if self.hi else min(values.values())
        tied = [s for s in values if values[s] == best]
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

    def lap_done(self, nxt: int) -> bool:
        """S6 (rules 2): the lap of choosers is complete when the choice comes back to the seat
        that opened it, or (when that seat is out) to the next seat still in after it."""
        opener = self.lap_opener
        if self.active(opener):
            return nxt == opener
        after = self.rotation(opener, include_start=False)
        return bool(after) and nxt == after[0]

    def catch_up(self, alive: list[int]) -> int | None:
        """S6 (rules 4), past the round cap: the next chooser is the first seat still in, in
        rotation order after this round's chooser (this chooser last), that has made fewer
        announcements than the seat that made the most; ``None`` when every seat still in has
        chosen equally often (the game ends)."""
        counts = self.chosen or (0,) * self.n
        most = max(counts[s] for s in alive)
        for s in (*self.rotation(self.chooser, include_start=False), self.chooser):
            if self.out[s] is None and counts[s] < most and self.piles[s]:
                return s
        return None

    def end_round(self, winner: int | None, tiebreak: bool = False) -> None:
        """Give the pot (S4) or carry it (S5), eliminate (S6), start the next round or end.

        The round cap (S6): rules 1 end right after round ``round_cap``; rules 2-3 end at the end
        of the first full lap of choosers that finishes at or after round ``round_cap``; rules 4
        end after the first round at or after ``round_cap`` at which every seat still in has
        chosen equally often, the rounds past the cap going only to the seats behind
        (:meth:`catch_up`; pending skips are dropped there)."""
        size = len(self.pot)
        events = self.events
        if winner is not None:
            self.piles[winner].extend(self.pot)
            self.pot = []
            self.face_down = set()
            events.append(event("sb.ev.win", {"winner": winner, "cards": size}))
        else:
            events.append(event("sb.ev.carry", {"cards": size}))
        self.last = _new_last(None, self.round, self.chooser, self.char, self.hi, tuple(map(tuple, self.plays)),
                              winner, self.level, size, tiebreak)
        out, piles = self.out, self.piles
        for s in range(self.n):
            if out[s] is None and not piles[s]:
                out[s] = self.round
                events.append(event("sb.ev.out", {"player": s}))
        alive = [s for s in range(self.n) if out[s] is None]
        nxt: int | None = None
        skipped: list[int] = []
        if len(alive) > 1:
            nxt = self.rotation(self.chooser, include_start=False)[0]
            for _ in range(self.skips):
                skipped.append(nxt)
                nxt = self.rotation(nxt, include_start=False)[0]
        cap = self.st.round_cap
        capped = cap is not None and self.round >= cap
        if capped and self.st.rules >= 4 and nxt is not None:
            behind = self.catch_up(alive)
            if behind is not None:
                capped, nxt, skipped = False, behind, []
        elif capped and self.st.rules >= 2 and nxt is not None and not self.lap_done(nxt):
            capped = False
        if nxt is None or capped or self.round >= self.max_rounds:
            self.phase = "over"
            self.queue, self.contenders, self.tiebreakers = [], [], []
            self.char = self.hi = None
            self.level = 0
            self.plays = [[] for _ in range(self.n)]
            self.current = [None] * self.n
            if len(alive) > 1:
                self.ev("sb.ev.cap", round=self.round)
            return
        self.skips = 0
        for s in skipped:
            self.ev("sb.ev.skipped", player=s)
        if self.st.rules >= 2 and self.lap_done(nxt):
            self.lap_opener = nxt
        self.round += 1
        self.chooser = nxt
        self.char = self.hi = None
        self.level = 0
        self.contenders, self.queue, self.tiebreakers = [], [], []
        self.plays = [[] for _ in range(self.n)]
        self.current = [None] * self.n
        events.append(event("sb.ev.round", {"round": self.round, "chooser": nxt}))
