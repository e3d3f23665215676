"""The round machine of Shop Battle: a mutable working copy of a state used inside one
``apply``/``setup`` (RULINGS S2, S4, S5, S6; ``docs/rules/shop-battle.md``).

:class:`RoundWork` runs the automatic steps (pre-choice, reveals, Collector powers, compare,
bataille, end of round) until a decision is needed, collecting the events, then freezes into a
new :class:`~engine.shop_battle.state.ShopBattleState`.
"""

from __future__ import annotations

from bisect import insort
from collections.abc import Sequence
from collections.abc import Set as AbstractSet
from typing import Any, Literal

from engine.core import Event
from engine.fast import event, replacer
from engine.shop_battle import cards as _cards
from engine.shop_battle.cards import CardTable, CollectorCard, PeekPower, TributePower, card_table
from engine.shop_battle.state import CCW, CW, LastRound, Pending, ShopBattleState

__all__ = ["MAX_ROUNDS", "Record", "RoundWork", "built", "common_events", "common_round", "is_plain", "pre_choice_target"]

#: An event as a round records it: ``(key, params, audience)``; ``params`` is the dict, or
#: ``(function, *arguments)`` making it (big parameters, built only when the events are read).
Record = tuple[str, Any, "frozenset[int] | None"]


def built(records: Sequence[Record]) -> tuple[Event, ...]:
    """The :class:`~engine.core.Event` s of ``records`` (see :data:`Record`), in order."""
    return tuple([event(k, p if type(p) is dict else p[0](*p[1:]), a) for k, p, a in records])


def _peek_params(owner: int, target: int, seconds: int, pile: tuple[int, ...],
                 dicts: Sequence[dict[str, Any]]) -> dict[str, Any]:
    return {"player": owner, "target": target, "seconds": seconds, "count": len(pile),
            "cards": [dict(dicts[c]) for c in pile]}


def _scout_params(seat: int, tops: tuple[tuple[int, int], ...], dicts: Sequence[dict[str, Any]]) -> dict[str, Any]:
    return {"player": seat, "tops": [{"seat": s, "card": dict(dicts[c])} for s, c in tops]}


#: Safety limit: a game without ``round_cap`` still ends after this many rounds (as at a cap).
MAX_ROUNDS = 500

def _rotations(n: int, direction: int) -> tuple[tuple[int, ...], ...]:
    return tuple(tuple((start + direction * k) % n for k in range(n)) for start in range(n))


#: ``_ROTATIONS[direction][players][start]``: every seat in rotation order from ``start`` (2-6
#: players; built at import, looked up by small ints on the hot path).
_ROTATIONS: dict[int, tuple[tuple[tuple[int, ...], ...], ...]] = {
    d: tuple(_rotations(n, d) for n in range(7)) for d in (CCW, CW)}


def _orders(n: int, direction: int) -> tuple[tuple[int, ...], ...]:
    """``_ROTATIONS[direction][n]``: every seat of ``n`` in rotation order from each start."""
    return _ROTATIONS[direction][n] if n < 7 else _rotations(n, direction)


#: ``_NO_PLAYS[n]`` / ``_NO_CARDS[n]``: ``plays`` and ``current`` of ``n`` seats at a round's start.
_NO_PLAYS: tuple[tuple[tuple[tuple[int, int], ...], ...], ...] = tuple(((),) * n for n in range(7))
_NO_CARDS: tuple[tuple[int | None, ...], ...] = tuple((None,) * n for n in range(7))

#: The public tuple of the last frozen state and the same as a frozenset (the next step's start).
_PUBLIC: tuple[tuple[int, ...], AbstractSet[int]] = ((), frozenset())

#: The next state: every field a step may change, the others copied (``engine.fast.replacer``).
_next_state = replacer(
    ShopBattleState, "version", "piles", "pot", "face_down", "out", "round", "chooser", "direction", "skips",
    "phase", "announce_char", "announce_hi", "level", "contenders", "queue", "plays", "current", "tiebreakers",
    "pending", "public", "known", "last", "lap_opener", "chosen")
#: ``LastRound(...)`` with every field given in order (the copied instance is never read).
_new_last = replacer(LastRound, "round", "chooser", "char", "hi", "plays", "winner", "batailles", "pot", "tiebreak")


class RoundWork:
    """Mutable working copy of ``st`` (lists and sets instead of tuples; a pile and a seat's
    plays stay tuples, replaced when they change).

    ``public_dirty`` / ``known_dirty`` record whether a card became public or privately known
    during the step; when neither did, :meth:`freeze` reuses the state's tuples."""

    __slots__ = ("cards", "char", "chooser", "chosen", "contenders", "current", "direction", "events", "face_down",
                 "fresh", "hi", "known", "known_dirty", "lap_opener", "last", "level", "max_rounds", "n", "names", "orders",
                 "out", "pending", "phase", "piles", "plays", "pot", "public", "public_dirty", "queue", "round", "shop",
                 "skips", "st", "table", "tiebreakers", "vals")

    def __init__(self, st: ShopBattleState, max_rounds: int = MAX_ROUNDS) -> None:
        self.st = st
        self.max_rounds = max_rounds
        self.cards = st.cards
        table = self.table = card_table(st.cards, st.rules)
        self.shop = table.shop
        self.names = table.names
        n = self.n = st.players
        self.piles: list[tuple[int, ...]] = list(st.piles)
        self.pot = list(st.pot) if st.pot else []
        self.face_down = set(st.face_down) if st.face_down else set()
        self.out = list(st.out)
        self.round = st.round
        self.chooser = st.chooser
        self.direction = direction = st.direction
        self.skips = st.skips
        self.phase: Literal["choose", "target", "over"] = st.phase
        self.char = char = st.announce_char
        self.hi = st.announce_hi
        self.level = st.level
        self.contenders = list(st.contenders) if st.contenders else []
        self.queue = list(st.queue) if st.queue else []
        self.plays: list[tuple[tuple[int, int], ...]] = list(st.plays)
        self.current = list(st.current)
        self.tiebreakers = list(st.tiebreakers) if st.tiebreakers else []
        self.pending = st.pending
        cached = _PUBLIC
        self.public: AbstractSet[int] = cached[1] if cached[0] is st.public else frozenset(st.public)
        self.known: list[set[int] | None] = [None] * n  # a seat's set copied on first use (learn)
        self.public_dirty = self.known_dirty = False  # ``fresh`` (the cards made public) is set when dirty
        self.last = st.last
        self.lap_opener = st.lap_opener
        self.chosen = st.chosen
        self.events: list[Record] = []
        self.orders = _orders(n, direction)
        self.vals = table.values[char] if char is not None else ()

    # -- helpers
    def ev(self, key: str, audience: frozenset[int] | None = None, **params: Any) -> None:
        """Record an event (``audience`` = the seats that may see it, ``None`` = public)."""
        self.events.append((key, params, audience))

    def card_json(self, cid: int) -> dict[str, Any]:
        return dict(self.table.dicts[cid])

    def is_shop(self, cid: int) -> bool:
        return self.shop[cid]

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
        pub = self.public
        if self.public_dirty:
            listed = list(st.public)
            for c in self.fresh:  # the cards made public in this step (a few, against the sorted many)
                insort(listed, c)
            public = tuple(listed)
            _PUBLIC = (public, pub)  # the work is dropped after freezing: nothing changes pub again
            # cards seen privately may have become public: drop them
            known = tuple((o if pub.isdisjoint(o) else tuple(c for c in o if c not in pub)) if k is None
                          else tuple(sorted(k - pub)) for k, o in zip(self.known, st.known, strict=True))
        else:
            public = st.public
            if self.known_dirty:
                known = tuple(o if k is None else tuple(sorted(k - pub)) for k, o in zip(self.known, st.known, strict=True))
            else:
                known = st.known
        face_down = self.face_down
        pot, contenders, queue, tiebreakers = self.pot, self.contenders, self.queue, self.tiebreakers
        return _next_state(
            st, st.version + 1, tuple(self.piles), tuple(pot) if pot else (),
            tuple(sorted(face_down)) if face_down else (), tuple(self.out), self.round, self.chooser, self.direction,
            self.skips, self.phase, self.char, self.hi, self.level, tuple(contenders) if contenders else (),
            tuple(queue) if queue else (), tuple(self.plays), tuple(self.current),
            tuple(tiebreakers) if tiebreakers else (), self.pending, public, known, self.last, self.lap_opener,
            self.chosen)

    def learn(self, seat: int, cid: int) -> None:
        """``seat`` privately sees card ``cid``."""
        if cid in self.public:  # the state keeps only private knowledge (known minus public)
            return
        k = self.known[seat]
        if k is None:
            old = self.st.known[seat]
            if cid in old:  # known already (and not public): nothing changes
                return
            k = self.known[seat] = set(old)
        k.add(cid)
        self.known_dirty = True

    def make_public(self, cid: int) -> None:
        """Card ``cid`` is now face up for everyone."""
        if not self.public_dirty:
            self.public = set(self.public)
            self.public_dirty = True
            self.fresh = [cid]
        else:
            self.fresh.append(cid)
        self.public.add(cid)  # type: ignore[attr-defined]

    # -- reveals and powers
    def reveal(self, seat: int) -> int:
        """Turn the top card of ``seat``'s pile face up into the pot; returns its id."""
        pile = self.piles[seat]
        cid = pile[0]
        self.piles[seat] = pile[1:]
        if cid not in self.public:
            self.make_public(cid)
        self.pot.append(cid)
        self.plays[seat] += ((cid, self.level),)
        return cid

    def collector(self, seat: int, cid: int) -> None:
        """Apply the power of Collector ``cid`` revealed by ``seat`` (S2)."""
        card = self.cards[cid]
        assert isinstance(card, CollectorCard)
        kind = card.power.kind
        self.events.append(("sb.ev.collector", {"player": seat, "card": card.name, "power": kind,
                                                "params": card.params}, None))
        if kind in ("peek", "swap"):
            others = [s for s in self.rotation(seat, include_start=False) if self.piles[s]]
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
            others = [s for s in self.rotation(seat, include_start=False) if self.piles[s]]
            tops = []
            for s in others:
                top = self.piles[s][0]
                self.learn(seat, top)
                tops.append((s, top))
            self.ev("sb.ev.scout", player=seat, count=len(tops))
            self.events.append(("sb.ev.scout_result", (_scout_params, seat, tuple(tops), self.table.dicts),
                                frozenset({seat})))
        elif kind == "tribute":
            assert isinstance(card.power, TributePower)
            count = card.power.cards
            total = 0
            for s in self.rotation(seat, include_start=False):
                pile = self.piles[s]
                take = pile[:count]
                self.piles[s] = pile[count:]
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
            self.events.append(("sb.ev.peek_result", (_peek_params, owner, target, seconds, pile, self.table.dicts),
                                frozenset({owner})))
        else:  # swap
            a, b = self.piles[owner], self.piles[target]
            self.piles[owner], self.piles[target] = (b[0], *a[1:]), (a[0], *b[1:])
            self.ev("sb.ev.swap", player=owner, target=target)

    # -- the driver
    def advance(self) -> None:
        """Run the automatic steps until a decision is needed or the game is over."""
        while self.pending is None and self.phase != "over":
            if self.char is None:
                if self.pre_choice():
                    return
            elif self.queue:
                self.reveal_next()
            else:
                self.compare()

    def pre_choice(self) -> bool:
        """One pre-choice step; True when the chooser must now announce."""
        chooser = self.chooser
        pile = self.piles[chooser]
        if pile:
            top = pile[0]
            if self.shop[top]:
                self.learn(chooser, top)
                self.phase = "choose"
                return True
            cid = self.reveal(chooser)
            self.collector(chooser, cid)
            return False
        nxt = [s for s in self.rotation(chooser, include_start=False) if self.piles[s]]
        self.ev("sb.ev.pass", player=chooser)
        if not nxt:
            self.end_round(None)
            return False
        self.chooser = nxt[0]
        return False

    def announce(self, char: str, hi: bool) -> None:
        """The chooser's announcement (S4): reveal their card and queue the others."""
        self.char, self.hi = char, hi
        vals = self.vals = self.table.values[char]
        chooser = self.chooser
        cid = self.reveal(chooser)
        if self.st.rules >= 4:  # S6: count the choices, for the end at the cap
            self.chosen = counted(self.chosen, self.n, chooser)
        self.current[chooser] = cid
        self.events.append(("sb.ev.announce", {"chooser": chooser, "card": self.names[cid], "char": char,
                                               "value": vals[cid], "dir": "hi" if hi else "lo"}, None))
        out = self.out
        order = [s for s in self.orders[chooser][1:] if out[s] is None]
        self.contenders = [chooser, *order]
        self.queue = order

    def reveal_next(self) -> None:
        """The next seat of the queue reveals (a Collector applies; no card = drops out)."""
        queue = self.queue
        seat = queue[0]
        piles = self.piles
        pile = piles[seat]
        if not pile:
            del queue[0]
            if seat in self.contenders:
                self.contenders.remove(seat)
            self.events.append(("sb.ev.no_card", {"player": seat}, None))
            return
        cid = pile[0]  # reveal(), inlined: this is the hottest path of a playout
        piles[seat] = pile[1:]
        if cid not in self.public:
            self.make_public(cid)
        self.pot.append(cid)
        self.plays[seat] += ((cid, self.level),)
        if not self.shop[cid]:
            self.collector(seat, cid)
            return
        del queue[0]
        self.current[seat] = cid
        self.events.append(("sb.ev.reveal", {"player": seat, "card": self.names[cid], "char": self.char,
                                             "value": self.vals[cid]}, None))

    def compare(self) -> None:
        """Best value wins (S4); an equal best value starts a bataille (S5)."""
        current, vals, hi = self.current, self.vals, self.hi
        best: int | None = None
        tied: list[int] = []  # the contenders with the best value, in contenders order
        for s in self.contenders:
            c = current[s]
            if c is not None:
                v = vals[c]
                assert v is not None
                if best is None or (v > best if hi else v < best):
                    best, tied = v, [s]
                elif v == best:
                    tied.append(s)
        if best is None:
            self.end_round(None)
            return
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

    def next_active(self, seat: int) -> int | None:
        """The first active seat after ``seat`` in rotation order (``None`` if none)."""
        out = self.out
        for s in self.orders[seat][1:]:
            if out[s] is None:
                return s
        return None

    def lap_done(self, nxt: int) -> bool:
        """S6 (rules 2): the lap of choosers is complete when the choice comes back to the seat
        that opened it, or (when that seat is out) to the next seat still in after it."""
        opener = self.lap_opener
        if self.out[opener] is None:
            return nxt == opener
        return nxt == self.next_active(opener)

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
        piles = self.piles
        if winner is not None:
            piles[winner] += tuple(self.pot)
            self.pot = []
            if self.face_down:
                self.face_down = set()
            events.append(("sb.ev.win", {"winner": winner, "cards": size}, None))
        else:
            events.append(("sb.ev.carry", {"cards": size}, None))
        rnd, n = self.round, self.n
        self.last = _new_last(None, rnd, self.chooser, self.char, self.hi, tuple(self.plays), winner, self.level,
                              size, tiebreak)
        out = self.out
        for s in range(n):
            if out[s] is None and not piles[s]:
                out[s] = rnd
                events.append(("sb.ev.out", {"player": s}, None))
        alive = out.count(None)
        nxt: int | None = None
        skipped: list[int] = []
        if alive > 1:
            nxt = self.next_active(self.chooser)
            for _ in range(self.skips):
                assert nxt is not None
                skipped.append(nxt)
                nxt = self.next_active(nxt)
        st = self.st
        cap = st.round_cap
        capped = cap is not None and rnd >= cap
        if capped and st.rules >= 4 and nxt is not None:
            behind = self.catch_up([s for s in range(n) if out[s] is None])
            if behind is not None:
                capped, nxt, skipped = False, behind, []
        elif capped and st.rules >= 2 and nxt is not None and not self.lap_done(nxt):
            capped = False
        if nxt is None or capped or rnd >= self.max_rounds:
            self.phase = "over"
            self.queue, self.contenders, self.tiebreakers = [], [], []
            self.char = self.hi = None
            self.level = 0
            self.plays = [()] * n
            self.current = [None] * n
            if alive > 1:
                self.ev("sb.ev.cap", round=rnd)
            return
        if self.skips:
            self.skips = 0
            for s in skipped:
                self.ev("sb.ev.skipped", player=s)
        if st.rules >= 2 and self.lap_done(nxt):
            self.lap_opener = nxt
        self.round = rnd = rnd + 1
        self.chooser = nxt
        self.char = self.hi = None
        self.level = 0
        self.contenders, self.queue = [], []
        if self.tiebreakers:
            self.tiebreakers = []
        self.plays = [()] * n
        self.current = [None] * n
        events.append(("sb.ev.round", {"round": rnd, "chooser": nxt}, None))


def common_round(st: ShopBattleState, char: str, hi: bool, max_rounds: int = MAX_ROUNDS,
                 target: int | None = None) -> ShopBattleState | None:
    """The rest of a round in straight-line code, when it takes one of its common courses (S4,
    S2; most steps of a playout): from the chooser's announcement ``(char, hi)`` on ``st``
    (phase ``choose``), or, with ``target``, from the choice of a ``peek``/``swap`` target
    during the reveals (phase ``target``, ``char``/``hi`` the round's announcement). Each seat
    of the reveal order reveals; a Collector's power applies (``reverse``, ``skip``,
    ``steal_tie``, ``scout``, ``tribute``; ``peek``/``swap`` with a target stop at that
    decision, phase ``target``) and its owner reveals the next card; then one best value wins,
    nobody is out, and the next chooser's pre-choice runs (:func:`_collector_pre_choice` for
    Collectors on top). Rules 4 past the cap (S6, :meth:`RoundWork.catch_up`): the next chooser
    is the first seat behind, or the game ends (phase ``over``) when every seat still in has
    chosen equally often. Returns the next state, exactly as :class:`RoundWork` would give it,
    or ``None`` (nothing computed is kept) when the round takes any other course (a seat
    without a card to reveal, a tie, a seat out, the cap of rules 1-3, the safety limit): the
    caller then runs :class:`RoundWork`. When only the pre-choice cannot be run here
    (the new chooser's pile runs out), the state returned is the one at the start of that
    pre-choice, with ``st``'s own ``version`` (so the caller tells it apart). The events are the
    caller's: :func:`common_events` tells those of the plainest course (:func:`is_plain`)."""
    global _PUBLIC
    rnd = st.round
    cap = st.round_cap
    rules = st.rules
    if rnd >= max_rounds or (cap is not None and rnd >= cap and rules < 2) or st.level:
        return None  # the game ends at this round (the safety limit, rules 1's cap), or a bataille: RoundWork
    n = st.players
    hit = _cards._LAST_TABLE  # card_table()'s first check, inlined
    table = hit[2] if hit[0] is st.cards and hit[1] == rules and hit[2] is not None else card_table(st.cards, rules)
    shop, vals, kinds, first_plays = table.shop, table.values[char], table.kinds, table.first_plays
    out = st.out
    chooser = st.chooser
    direction = st.direction
    skips = st.skips
    orders = _ROTATIONS[direction][n]
    rot = orders  # the rotation of the current direction (a reverse changes it, not the reveal order)
    piles = st.piles
    public = st.public
    cached = _PUBLIC
    pub: AbstractSet[int] = cached[1] if cached[0] is public else frozenset(public)
    new_piles = list(piles)
    plays = list(st.plays)
    new_public: list[int] = []
    learned: list[tuple[int, int]] = []  # (seat, card id) seen privately
    chosen = st.chosen
    tied = False
    everyone = out.count(None) == n  # nobody is out
    if target is None:  # the chooser's announcement: their card, then the others in rotation order
        if st.queue or st.pending is not None:
            return None
        pile = piles[chooser]
        cid = pile[0]
        pot = list(st.pot) if st.pot else []
        new_piles[chooser] = pile[1:]
        plays[chooser] += first_plays[cid]
        pot.append(cid)
        if cid not in pub:
            new_public.append(cid)
        queue: Sequence[int] = orders[chooser][1:]
        if not everyone:  # a seat is out: it does not reveal
            queue = [s for s in queue if out[s] is None]
        if not queue:
            return None
        first = vals[cid]
        assert first is not None
        best, winner = first, chooser
        if rules >= 4:  # S6: count the choices (counted(), inlined)
            counts = list(chosen) if chosen else [0] * n
            counts[chooser] += 1
            chosen = tuple(counts)
    else:  # the target of the Collector whose owner (queue[0]) then reveals the next card
        pend = st.pending
        if pend is None or not st.queue:
            return None
        owner = pend.owner
        if kinds[pend.card] == "peek":
            learned += [(owner, c) for c in piles[target]]
        else:  # swap
            a, b = piles[owner], piles[target]
            new_piles[owner], new_piles[target] = (b[0], *a[1:]), (a[0], *b[1:])
        pot = list(st.pot)
        queue = st.queue
        best = winner = -1
        for seat in st.contenders:  # the values revealed so far (compare, S4)
            cid = st.current[seat]  # type: ignore[assignment]
            if cid is not None:
                value = vals[cid]
                assert value is not None
                if winner < 0 or ((value > best) if hi else (value < best)):
                    best, winner, tied = value, seat, False
                elif value == best:
                    tied = True
    face_down: list[int] | None = None  # the tributes' cards, when there are any
    tiebreakers: list[int] | None = None
    emptied = target is not None or not new_piles[chooser]  # whether a pile may have run out (out unless it wins)
    for seat in queue:
        pile = new_piles[seat]
        if not pile:
            return None  # no card to reveal: drops out (RoundWork)
        cid = pile[0]
        pile = new_piles[seat] = pile[1:]
        plays[seat] += first_plays[cid]
        pot.append(cid)
        if cid not in pub:
            new_public.append(cid)
        while not shop[cid]:  # S2: the power applies, then the owner reveals the next card
            kind = kinds[cid]
            if kind == "skip":
                skips += 1
            elif kind == "reverse":
                direction = -direction
                rot = _orders(n, direction)
            elif kind == "steal_tie":
                if tiebreakers is None:
                    tiebreakers = list(st.tiebreakers)
                if seat not in tiebreakers:
                    tiebreakers.append(seat)
            elif kind == "scout":
                for s in rot[seat][1:]:
                    if out[s] is None and new_piles[s]:
                        learned.append((seat, new_piles[s][0]))
            elif kind == "tribute":
                card = st.cards[cid]
                assert isinstance(card, CollectorCard) and isinstance(card.power, TributePower)
                count = card.power.cards
                if face_down is None:
                    face_down = list(st.face_down)
                for s in rot[seat][1:]:
                    if out[s] is None:
                        taken = new_piles[s]
                        new_piles[s] = taken[count:]
                        pot += taken[:count]
                        face_down += taken[:count]
                        if len(taken) <= count:
                            emptied = True
            elif kind == "peek" or kind == "swap":
                others = [s for s in rot[seat][1:] if out[s] is None and new_piles[s]]
                if others and (kind == "peek" or pile):  # the owner's decision (else no effect)
                    if target is None:
                        current = list(_NO_CARDS[n])
                        current[chooser] = plays[chooser][-1][0]
                        contenders = (chooser, *queue)
                    else:
                        current = list(st.current)
                        contenders = st.contenders
                    rest = queue[queue.index(seat):]
                    for s in queue[:len(queue) - len(rest)]:
                        current[s] = plays[s][-1][0]
                    public, pub, known = _seen(public, pub, st.known, new_public, learned)
                    _PUBLIC = (public, pub)
                    if face_down is None:
                        face_down = list(st.face_down)
                    return _next_state(
                        st, st.version + 1, tuple(new_piles), tuple(pot), tuple(sorted(face_down)), out, rnd, chooser,
                        direction, skips, "target", char, hi, 0, contenders, tuple(rest), tuple(plays),
                        tuple(current), tuple(st.tiebreakers if tiebreakers is None else tiebreakers),
                        Pending(owner=seat, card=cid, targets=tuple(sorted(others))), public, known, st.last,
                        st.lap_opener, chosen)
            else:
                return None
            if not pile:
                return None  # no card left to reveal: drops out (RoundWork)
            cid = pile[0]
            pile = new_piles[seat] = pile[1:]
            plays[seat] += first_plays[cid]
            pot.append(cid)
            if cid not in pub:
                new_public.append(cid)
        if not pile:
            emptied = True
        value = vals[cid]
        assert value is not None
        if winner < 0 or ((value > best) if hi else (value < best)):
            best, winner, tied = value, seat, False
        elif value == best:
            tied = True
    if tied:
        return None
    if emptied:
        for seat in range(n):
            if out[seat] is None and not new_piles[seat] and seat != winner:
                return None  # a seat is out
    if direction != st.direction:
        orders = _ROTATIONS[direction][n]
    nxt: int | None = orders[chooser][1] if everyone else _next_active(orders, out, chooser)
    if nxt is None:
        return None
    new_piles[winner] += tuple(pot)
    if rules >= 4 and cap is not None and rnd >= cap:  # S6 (rules 4): past the cap, catch_up(), inlined
        most = max([chosen[s] for s in range(n) if out[s] is None])
        for s in (*orders[chooser][1:], chooser):
            if out[s] is None and chosen[s] < most and new_piles[s]:
                nxt = s  # the seat behind chooses next; pending skips are dropped
                break
        else:  # every seat still in has chosen equally often: the game ends (RoundWork.end_round)
            public, pub, known = _seen(public, pub, st.known, new_public, learned)
            _PUBLIC = (public, pub)
            last = _new_last(None, rnd, chooser, char, hi, tuple(plays), winner, 0, len(pot), False)
            return _next_state(
                st, st.version + 1, tuple(new_piles), (), (), out, rnd, chooser, direction, skips, "over", None, None, 0,
                (), (), _NO_PLAYS[n], _NO_CARDS[n], (), None, public, known, last, st.lap_opener, chosen)
    else:
        for _ in range(skips):  # the next chooser is passed over, once per skip (S2)
            nxt = _next_active(orders, out, nxt)
            assert nxt is not None
    opener = st.lap_opener
    if rules >= 2:
        lap_done = nxt == opener if out[opener] is None else nxt == _next_active(orders, out, opener)
        if lap_done:
            opener = nxt
            if cap is not None and rnd >= cap and rules < 4:
                return None  # rules 2-3: capped at the end of the lap, the game ends
    top = new_piles[nxt][0]
    looks = shop[top]  # else a Collector on the next chooser's pile (see _collector_pre_choice)
    last = _new_last(None, rnd, chooser, char, hi, tuple(plays), winner, 0, len(pot), False)
    if not looks:  # what this round made public and seen is merged there, with the pre-choice's own
        after = _collector_pre_choice(st, table, new_piles, nxt, direction, pub, public, st.known, last, rnd + 1,
                                      opener, chosen, learned=list(learned), new_public=new_public)
        if after is not None:
            return after
    public, pub, known = _seen(public, pub, st.known, new_public, learned)
    _PUBLIC = (public, pub)
    if looks:
        mine = known[nxt]
        if top not in pub and top not in mine:  # the next chooser looks at their top card
            listed = list(mine)
            insort(listed, top)
            known = (*known[:nxt], tuple(listed), *known[nxt + 1:])
    return _next_state(
        st, st.version + 1 if looks else st.version, tuple(new_piles), (), (), out, rnd + 1, nxt, direction, 0, "choose",
        None, None, 0, (), (), _NO_PLAYS[n], _NO_CARDS[n], (), None, public, known, last, opener, chosen)


def _seen(public: tuple[int, ...], pub: AbstractSet[int], known: tuple[tuple[int, ...], ...],
          new_public: list[int], learned: list[tuple[int, int]]
          ) -> tuple[tuple[int, ...], AbstractSet[int], tuple[tuple[int, ...], ...]]:
    """``(public, pub, known)`` once the cards ``new_public`` (distinct, not yet public) are face
    up and each ``(seat, card)`` of ``learned`` was seen by that seat (``known`` holds only
    private knowledge: a public card leaves it)."""
    if new_public:
        fresh = frozenset(new_public)
        pub = pub | fresh
        listed = list(public)
        for c in new_public:
            insort(listed, c)
        public = tuple(listed)
        changed: list[tuple[int, ...]] | None = None  # ``known`` is kept when no seat's knowledge changes
        for s, o in enumerate(known):
            if not fresh.isdisjoint(o):
                if changed is None:
                    changed = list(known)
                changed[s] = tuple([c for c in o if c not in fresh])
        if changed is not None:
            known = tuple(changed)
    if learned:
        seen: dict[int, set[int]] = {}
        for seat, c in learned:
            if c not in pub:
                seen.setdefault(seat, set()).add(c)
        if seen:
            known = tuple([tuple(sorted(seen[s].union(o))) if s in seen else o for s, o in enumerate(known)])
    return public, pub, known


def is_plain(st: ShopBattleState, new: ShopBattleState) -> bool:
    """Whether the :func:`common_round` from ``st`` to ``new`` took the course that
    :func:`common_events` tells: an announcement, reveals with ``reverse``/``skip``/``steal_tie``
    Collectors at most (a ``peek``/``swap`` without effect is not told there), a win, and a shop card on top of the next chooser's pile."""
    last = new.last
    if st.phase != "choose" or new.phase != "choose" or new.plays[new.chooser] or last is None:
        return False
    cap = st.round_cap
    if cap is not None and st.round >= cap:
        return False  # rules 4 past the cap: the seats behind catch up (pending skips are dropped)
    kinds = card_table(st.cards, st.rules).kinds
    return all(kinds[c] in _PLAIN_KINDS for p in last.plays for c, _level in p)


#: The Collectors :func:`common_events` tells (``None``: a shop card).
_PLAIN_KINDS = frozenset({None, "reverse", "skip", "steal_tie"})


def _collector_pre_choice(st: ShopBattleState, table: CardTable, piles: list[tuple[int, ...]], chooser: int,
                          direction: int, pub: AbstractSet[int], public: tuple[int, ...],
                          known: tuple[tuple[int, ...], ...], last: LastRound | None, rnd: int, opener: int,
                          chosen: tuple[int, ...], resumed: bool = False,
                          learned: list[tuple[int, int]] | None = None,
                          new_public: Sequence[int] = ()) -> ShopBattleState | None:
    """The pre-choice of round ``rnd`` (S2, :meth:`RoundWork.pre_choice`) in straight-line code,
    for :func:`common_round` when the new chooser finds a Collector on top of their pile: each
    Collector on top is revealed into the pot and its power applies (``peek``/``swap`` with a
    target: the chooser's decision, phase ``target``), until a shop card is on top (the chooser
    looks at it). ``piles``, ``pub``/``public``/``known`` and the other arguments describe the
    state at the end of the previous round, or (``resumed``, :func:`pre_choice_target`) ``st``
    after the chooser's target was applied (its pot, face-down cards, plays, skips and tie
    breakers go on; ``learned``: the ``(seat, card)`` seen privately). ``new_public``: cards made
    public since ``pub``/``public``/``known`` (distinct, not in ``pub``; they and ``learned`` are
    merged with the pre-choice's own in one :func:`_seen`). Returns the next state
    (its events are the caller's), or ``None`` when the chooser's pile runs out (the choice
    passes on: the caller runs :class:`RoundWork`)."""
    global _PUBLIC
    shop, kinds, cards = table.shop, table.kinds, st.cards
    n = st.players
    out = st.out
    orders = _ROTATIONS[direction][n]
    piles = list(piles)
    if learned is None:
        learned = []  # (seat, card) seen privately
    pot: list[int] = list(st.pot) if resumed else []
    face_down: list[int] = list(st.face_down) if resumed else []
    shown: list[int] = [c for c, _level in st.plays[chooser]] if resumed else []  # the chooser's Collectors
    skips = st.skips if resumed else 0
    tiebreakers: tuple[int, ...] = st.tiebreakers if resumed else ()
    pending: Pending | None = None
    phase: Literal["choose", "target"] = "choose"
    while True:
        pile = piles[chooser]
        if not pile:
            return None
        cid = pile[0]
        if shop[cid]:
            learned.append((chooser, cid))
            break
        piles[chooser] = pile[1:]
        shown.append(cid)
        pot.append(cid)
        kind = kinds[cid]
        if kind == "peek" or kind == "swap":
            others = [s for s in orders[chooser][1:] if out[s] is None and piles[s]]
            if others and (kind == "peek" or piles[chooser]):
                pending = Pending(owner=chooser, card=cid, targets=tuple(sorted(others)))
                phase = "target"
                break
        elif kind == "reverse":
            direction = -direction
            orders = _ROTATIONS[direction][n]
        elif kind == "skip":
            skips += 1
        elif kind == "steal_tie":
            if chooser not in tiebreakers:
                tiebreakers = (*tiebreakers, chooser)
        elif kind == "scout":
            for s in orders[chooser][1:]:
                if out[s] is None and piles[s]:
                    learned.append((chooser, piles[s][0]))
        elif kind == "tribute":
            card = cards[cid]
            assert isinstance(card, CollectorCard) and isinstance(card.power, TributePower)
            count = card.power.cards
            for s in orders[chooser][1:]:
                if out[s] is None:
                    taken = piles[s]
                    piles[s] = taken[count:]
                    pot += taken[:count]
                    face_down += taken[:count]
        else:
            return None
    shown_public = [c for c in shown if c not in pub and c not in new_public]
    public, pub, known = _seen(public, pub, known, [*new_public, *shown_public] if new_public else shown_public, learned)
    _PUBLIC = (public, pub)
    plays = list(st.plays if resumed else _NO_PLAYS[n])
    plays[chooser] = table.first_plays[shown[0]] if len(shown) == 1 else tuple([(c, 0) for c in shown])
    return _next_state(
        st, st.version + 1, tuple(piles), tuple(pot), tuple(sorted(face_down)), out, rnd, chooser, direction, skips,
        phase, None, None, 0, (), (), tuple(plays), _NO_CARDS[n], tiebreakers, pending, public, known, last, opener,
        chosen)


def pre_choice_target(st: ShopBattleState, target: int) -> ShopBattleState | None:
    """The chooser's ``target`` for the ``peek``/``swap`` they revealed in the pre-choice (phase
    ``target``, no announcement yet; :meth:`RoundWork.resolve_target`), then the rest of the
    pre-choice (:func:`_collector_pre_choice`), in straight-line code. Returns the next state,
    exactly as :class:`RoundWork` gives it, or ``None`` (the chooser's pile runs out: the
    caller runs :class:`RoundWork`)."""
    pend = st.pending
    if pend is None or st.announce_char is not None or pend.owner != st.chooser:
        return None
    table = card_table(st.cards, st.rules)
    owner = pend.owner
    piles = list(st.piles)
    learned: list[tuple[int, int]] = []
    if table.kinds[pend.card] == "peek":
        learned += [(owner, c) for c in piles[target]]
    else:  # swap
        a, b = piles[owner], piles[target]
        piles[owner], piles[target] = (b[0], *a[1:]), (a[0], *b[1:])
    public = st.public
    cached = _PUBLIC
    pub: AbstractSet[int] = cached[1] if cached[0] is public else frozenset(public)
    return _collector_pre_choice(st, table, piles, owner, st.direction, pub, public, st.known, st.last, st.round,
                                 st.lap_opener, st.chosen, resumed=True, learned=learned)


def common_events(st: ShopBattleState, new: ShopBattleState) -> tuple[Event, ...]:
    """The events of the :func:`common_round` from ``st`` to ``new``, as :class:`RoundWork`
    records them: the announcement, each reveal in rotation order (a Collector's own events
    first, S2), the win, the seats passed over by skips, the next round."""
    last = new.last
    assert last is not None and last.char is not None
    char, chooser = last.char, st.chooser
    table = card_table(st.cards, st.rules)
    names, vals, kinds, cards = table.names, table.values[char], table.kinds, st.cards
    out, plays = st.out, last.plays
    direction = st.direction
    skips = st.skips
    events = []
    for seat in _orders(st.players, direction)[chooser]:
        if out[seat] is not None:
            continue
        if seat == chooser:
            cid = plays[seat][-1][0]
            events.append(event("sb.ev.announce", {"chooser": chooser, "card": names[cid], "char": char,
                                                   "value": vals[cid], "dir": "hi" if last.hi else "lo"}))
            continue
        for cid, _level in plays[seat]:
            kind = kinds[cid]
            if kind is None:
                events.append(event("sb.ev.reveal", {"player": seat, "card": names[cid], "char": char,
                                                     "value": vals[cid]}))
                continue
            card = cards[cid]
            assert isinstance(card, CollectorCard)
            events.append(event("sb.ev.collector", {"player": seat, "card": card.name, "power": kind,
                                                    "params": card.params}))
            if kind == "reverse":
                direction = -direction
                events.append(event("sb.ev.reverse", {"player": seat, "rotation": "cw" if direction == CW else "ccw"}))
            elif kind == "skip":
                skips += 1
                events.append(event("sb.ev.skip", {"player": seat}))
            else:
                events.append(event("sb.ev.steal_tie", {"player": seat}))
    events.append(event("sb.ev.win", {"winner": last.winner, "cards": last.pot}))
    if skips:
        orders = _orders(st.players, direction)
        nxt = _next_active(orders, out, chooser)
        for _ in range(skips):
            assert nxt is not None
            events.append(event("sb.ev.skipped", {"player": nxt}))
            nxt = _next_active(orders, out, nxt)
    events.append(event("sb.ev.round", {"round": new.round, "chooser": new.chooser}))
    return tuple(events)


def counted(chosen: tuple[int, ...], n: int, chooser: int) -> tuple[int, ...]:
    """``chosen`` (announcements per seat, ``()`` = none yet) with one more for ``chooser``
    (rules 4, S6: the cap ends the game once the seats still in have chosen equally often)."""
    counts = list(chosen) if chosen else [0] * n
    counts[chooser] += 1
    return tuple(counts)


def _next_active(orders: tuple[tuple[int, ...], ...], out: tuple[int | None, ...], seat: int) -> int | None:
    """The first active seat after ``seat`` in rotation order (``None`` if none)."""
    for s in orders[seat][1:]:
        if out[s] is None:
            return s
    return None
