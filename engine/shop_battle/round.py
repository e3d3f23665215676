"""The round machine of Shop Battle (RULINGS S2, S4, S5, S6; ``docs/rules/shop-battle.md``): every
step of a game, from the setup's first pre-choice to the end, goes through :class:`RoundWork`.

A :class:`RoundWork` is a mutable working copy of a state used inside one ``apply``/``setup``: it
applies the decision (the chooser's announcement, or a Collector's target), runs the automatic
steps (pre-choice, reveals, Collector powers, compare, bataille, end of round) until the next
decision, recording the events, then freezes into the next
:class:`~engine.shop_battle.state.ShopBattleState`.

Where its speed comes from: card facts are tuples indexed by card id
(:class:`~engine.shop_battle.cards.CardTable`, built once per deck and rules version); the seats
in rotation order are tuples built at import (:data:`_ROTATIONS`); the cards made public or seen
in a step are merged into the state's sorted tuples once, when it freezes (:func:`_seen`); events
are recorded as ``(key, values, audience)`` and made into :class:`~engine.core.Event` s only
when read (:func:`built`).
"""

from __future__ import annotations

from bisect import bisect_left, insort
from collections.abc import Callable, Sequence
from typing import Any, Literal

from engine.core import Event
from engine.fast import event, replacer
from engine.shop_battle.cards import CollectorCard, PeekPower, TributePower, card_table
from engine.shop_battle.state import CCW, CW, LastRound, Pending, ShopBattleState

__all__ = ["MAX_ROUNDS", "Record", "RoundWork", "built"]

#: Safety limit: a game without ``round_cap`` still ends after this many rounds (as at a cap).
MAX_ROUNDS = 500

#: An event as a round records it: ``(key, values, audience)``; ``values`` are the event's
#: parameters in the order :data:`_PARAMS` names them, or the arguments of the function that
#: :data:`_MADE` gives for the key (parameters holding card dicts, made only when read);
#: ``audience`` is the seats that may see it (``None``: public).
Record = tuple[str, tuple[Any, ...], "frozenset[int] | None"]

#: The parameter names of each event key, in the order a :data:`Record` gives their values
#: (``engine/shop_battle/rules.py`` lists what each event means).
_PARAMS: dict[str, tuple[str, ...]] = {
    "sb.ev.round": ("round", "chooser"),
    "sb.ev.no_effect": ("player", "card"),
    "sb.ev.pass": ("player",),
    "sb.ev.announce": ("chooser", "card", "char", "value", "dir"),
    "sb.ev.reveal": ("player", "card", "char", "value"),
    "sb.ev.no_card": ("player",),
    "sb.ev.bataille": ("players", "value", "level"),
    "sb.ev.tiebreak": ("winner", "value"),
    "sb.ev.win": ("winner", "cards"),
    "sb.ev.carry": ("cards",),
    "sb.ev.out": ("player",),
    "sb.ev.cap": ("round",),
    "sb.ev.end": ("players",),
    "sb.ev.peek": ("player", "target", "seconds"),
    "sb.ev.reverse": ("player", "rotation"),
    "sb.ev.skip": ("player",),
    "sb.ev.skipped": ("player",),
    "sb.ev.steal_tie": ("player",),
    "sb.ev.swap": ("player", "target"),
    "sb.ev.scout": ("player", "count"),
    "sb.ev.tribute": ("player", "cards"),
}


def _collector_params(player: int, card: CollectorCard) -> dict[str, Any]:
    return {"player": player, "card": card.name, "power": card.kind, "params": card.params}


def _peek_params(player: int, target: int, seconds: int, pile: tuple[int, ...],
                 dicts: Sequence[dict[str, Any]]) -> dict[str, Any]:
    return {"player": player, "target": target, "seconds": seconds, "count": len(pile),
            "cards": [dict(dicts[c]) for c in pile]}


def _scout_params(player: int, tops: tuple[tuple[int, int], ...], dicts: Sequence[dict[str, Any]]) -> dict[str, Any]:
    return {"player": player, "tops": [{"seat": s, "card": dict(dicts[c])} for s, c in tops]}


#: The events whose parameters a function makes from the recorded values (card names and dicts).
_MADE: dict[str, Callable[..., dict[str, Any]]] = {
    "sb.ev.collector": _collector_params, "sb.ev.peek_result": _peek_params, "sb.ev.scout_result": _scout_params}


def built(records: Sequence[Record]) -> tuple[Event, ...]:
    """The :class:`~engine.core.Event` s of ``records`` (see :data:`Record`), in order."""
    names = _PARAMS
    return tuple([event(key, dict(zip(names[key], values, strict=True)) if key in names else _MADE[key](*values),
                        audience) for key, values, audience in records])


def _rotations(n: int, direction: int) -> tuple[tuple[int, ...], ...]:
    return tuple(tuple((start + direction * k) % n for k in range(n)) for start in range(n))


#: ``_ROTATIONS[direction][players][start]``: every seat in rotation order from ``start`` (2-6
#: players; built at import, looked up by small ints).
_ROTATIONS: dict[int, tuple[tuple[tuple[int, ...], ...], ...]] = {
    d: tuple(_rotations(n, d) for n in range(7)) for d in (CCW, CW)}


def _orders(n: int, direction: int) -> tuple[tuple[int, ...], ...]:
    """``_ROTATIONS[direction][n]``: every seat of ``n`` in rotation order from each start."""
    return _ROTATIONS[direction][n] if n < 7 else _rotations(n, direction)


#: The next state: every field a step may change, the others copied (``engine.fast.replacer``).
_next_state = replacer(
    ShopBattleState, "version", "piles", "pot", "face_down", "out", "round", "chooser", "direction", "skips",
    "phase", "announce_char", "announce_hi", "level", "contenders", "queue", "plays", "current", "tiebreakers",
    "pending", "public", "known", "last", "lap_opener", "chosen")
#: ``LastRound(...)`` with every field given in order (the copied instance is never read).
_new_last = replacer(LastRound, "round", "chooser", "char", "hi", "plays", "winner", "batailles", "pot", "tiebreak")


def _seen(public: tuple[int, ...], known: tuple[tuple[int, ...], ...], fresh: list[int],
          learned: list[tuple[int, int]]) -> tuple[tuple[int, ...], tuple[tuple[int, ...], ...]]:
    """``(public, known)`` once the cards ``fresh`` (distinct, not in ``public``) are face up and
    each ``(seat, card)`` of ``learned`` was seen by that seat: ``public`` and each seat's
    ``known`` stay sorted, and ``known`` holds only private knowledge (a public card leaves it).
    The tuples that do not change are returned as they are."""
    if fresh:
        listed = list(public)
        for c in fresh:
            insort(listed, c)
        public = tuple(listed)
        shown = frozenset(fresh)
        if any(not shown.isdisjoint(o) for o in known):
            known = tuple([o if shown.isdisjoint(o) else tuple([c for c in o if c not in shown]) for o in known])
    if learned:
        size = len(public)
        seen: dict[int, set[int]] = {}
        for seat, c in learned:
            i = bisect_left(public, c)
            if (i == size or public[i] != c) and c not in known[seat]:
                seen.setdefault(seat, set()).add(c)
        if seen:
            known = tuple([tuple(sorted(seen[s].union(o))) if s in seen else o for s, o in enumerate(known)])
    return public, known


def counted(chosen: tuple[int, ...], n: int, chooser: int) -> tuple[int, ...]:
    """``chosen`` (announcements per seat, ``()`` = none yet) with one more for ``chooser``
    (rules 4, S6: the cap ends the game once the seats still in have chosen equally often)."""
    counts = list(chosen) if chosen else [0] * n
    counts[chooser] += 1
    return tuple(counts)


class RoundWork:
    """Mutable working copy of ``st``: the piles, the pot, ``out``, the plays, ``current``, the
    reveal queue and the contenders are lists; the other fields keep the state's values (tuples
    replaced when they change). The cards made public in the step (``fresh``) and the
    ``(seat, card)`` seen privately (``learned``) are merged into ``public``/``known`` by
    :meth:`freeze`."""

    __slots__ = ("char", "chooser", "chosen", "contenders", "current", "direction", "events", "face_down", "fresh",
                 "hi", "lap_opener", "last", "learned", "level", "max_rounds", "n", "orders", "out", "pending",
                 "phase", "piles", "plays", "pot", "public", "queue", "round", "shop", "skips", "st", "table",
                 "tiebreakers", "vals")

    def __init__(self, st: ShopBattleState, max_rounds: int = MAX_ROUNDS) -> None:
        self.st = st
        self.max_rounds = max_rounds
        table = self.table = card_table(st.cards, st.rules)
        self.shop = table.shop
        n = self.n = st.players
        self.piles: list[tuple[int, ...]] = list(st.piles)
        self.pot = list(st.pot)
        self.face_down = st.face_down
        self.out = list(st.out)
        self.round = st.round
        self.chooser = st.chooser
        direction = self.direction = st.direction
        self.skips = st.skips
        self.phase: Literal["choose", "target", "over"] = st.phase
        char = self.char = st.announce_char
        self.hi = st.announce_hi
        self.level = st.level
        self.contenders = list(st.contenders)
        self.queue = list(st.queue)
        self.plays: list[tuple[tuple[int, int], ...]] = list(st.plays)
        self.current = list(st.current)
        self.tiebreakers = st.tiebreakers
        self.pending = st.pending
        self.public = st.public
        self.fresh: list[int] = []
        self.learned: list[tuple[int, int]] = []
        self.last = st.last
        self.lap_opener = st.lap_opener
        self.chosen = st.chosen
        self.events: list[Record] = []
        self.orders = _orders(n, direction)
        self.vals = table.values[char] if char is not None else ()

    # -- helpers
    def ev(self, key: str, *values: Any) -> None:
        """Record a public event: ``values`` are its parameters, in :data:`_PARAMS` order."""
        self.events.append((key, values, None))

    def rotation(self, start: int, include_start: bool = True) -> list[int]:
        """Active seats in rotation order from ``start`` (current direction)."""
        out = self.out
        seats = self.orders[start]
        return [s for s in (seats if include_start else seats[1:]) if out[s] is None]

    def next_active(self, seat: int) -> int | None:
        """The first active seat after ``seat`` in rotation order (``None`` if none)."""
        out = self.out
        for s in self.orders[seat][1:]:
            if out[s] is None:
                return s
        return None

    def freeze(self) -> ShopBattleState:
        """The next state (version + 1)."""
        st = self.st
        public, known = _seen(st.public, st.known, self.fresh, self.learned)
        return _next_state(
            st, st.version + 1, tuple(self.piles), tuple(self.pot), self.face_down, tuple(self.out), self.round,
            self.chooser, self.direction, self.skips, self.phase, self.char, self.hi, self.level,
            tuple(self.contenders), tuple(self.queue), tuple(self.plays), tuple(self.current), self.tiebreakers,
            self.pending, public, known, self.last, self.lap_opener, self.chosen)

    def learn(self, seat: int, cid: int) -> None:
        """``seat`` privately sees card ``cid`` (kept unless it is or becomes public)."""
        self.learned.append((seat, cid))

    def show(self, cid: int) -> None:
        """Card ``cid`` is now face up for everyone."""
        fresh = self.fresh
        if cid not in fresh:
            public = self.public
            i = bisect_left(public, cid)
            if i == len(public) or public[i] != cid:
                fresh.append(cid)

    # -- reveals and powers
    def reveal(self, seat: int) -> int:
        """Turn the top card of ``seat``'s pile face up into the pot (a play at the current
        level); returns its id."""
        pile = self.piles[seat]
        cid = pile[0]
        self.piles[seat] = pile[1:]
        self.show(cid)
        self.pot.append(cid)
        level = self.level
        self.plays[seat] += self.table.first_plays[cid] if not level else ((cid, level),)
        return cid

    def collector(self, seat: int, cid: int) -> None:
        """Apply the power of Collector ``cid`` revealed by ``seat`` (S2)."""
        card = self.st.cards[cid]
        assert isinstance(card, CollectorCard)
        kind = card.power.kind
        self.events.append(("sb.ev.collector", (seat, card), None))
        if kind in ("peek", "swap"):
            others = [s for s in self.rotation(seat, include_start=False) if self.piles[s]]
            if not others or (kind == "swap" and not self.piles[seat]):
                self.ev("sb.ev.no_effect", seat, card.name)
                return
            self.pending = Pending(owner=seat, card=cid, targets=tuple(sorted(others)))
            self.phase = "target"
        elif kind == "reverse":
            self.direction = -self.direction
            self.orders = _orders(self.n, self.direction)
            self.ev("sb.ev.reverse", seat, "cw" if self.direction == CW else "ccw")
        elif kind == "skip":
            self.skips += 1
            self.ev("sb.ev.skip", seat)
        elif kind == "steal_tie":
            if seat not in self.tiebreakers:
                self.tiebreakers = (*self.tiebreakers, seat)
            self.ev("sb.ev.steal_tie", seat)
        elif kind == "scout":
            tops = tuple((s, self.piles[s][0]) for s in self.rotation(seat, include_start=False) if self.piles[s])
            for _s, top in tops:
                self.learn(seat, top)
            self.ev("sb.ev.scout", seat, len(tops))
            self.events.append(("sb.ev.scout_result", (seat, tops, self.table.dicts), frozenset({seat})))
        elif kind == "tribute":
            assert isinstance(card.power, TributePower)
            count = card.power.cards
            taken: list[int] = []
            for s in self.rotation(seat, include_start=False):
                pile = self.piles[s]
                taken += pile[:count]
                self.piles[s] = pile[count:]
            self.pot += taken
            if taken:
                self.face_down = tuple(sorted((*self.face_down, *taken)))
            self.ev("sb.ev.tribute", seat, len(taken))

    def resolve_target(self, target: int) -> None:
        """Apply the pending ``peek``/``swap`` on ``target``."""
        pend = self.pending
        assert pend is not None
        card = self.st.cards[pend.card]
        assert isinstance(card, CollectorCard)
        owner = pend.owner
        self.pending = None
        self.phase = "choose"
        if isinstance(card.power, PeekPower):
            pile = self.piles[target]
            seconds = card.power.seconds
            for c in pile:
                self.learn(owner, c)
            self.ev("sb.ev.peek", owner, target, seconds)
            self.events.append(("sb.ev.peek_result", (owner, target, seconds, pile, self.table.dicts),
                                frozenset({owner})))
        else:  # swap
            a, b = self.piles[owner], self.piles[target]
            self.piles[owner], self.piles[target] = (b[0], *a[1:]), (a[0], *b[1:])
            self.ev("sb.ev.swap", owner, target)

    # -- the driver
    def advance(self) -> None:
        """Run the automatic steps until a decision is needed or the game is over."""
        while self.pending is None and self.phase != "over":
            if self.char is None:
                if self.pre_choice():
                    return
            elif self.queue:
                self.reveals()
            else:
                self.compare()

    def pre_choice(self) -> bool:
        """One pre-choice step (S4, S2); True when the chooser must now announce."""
        chooser = self.chooser
        pile = self.piles[chooser]
        if pile:
            top = pile[0]
            if self.shop[top]:
                self.learn(chooser, top)
                self.phase = "choose"
                return True
            self.collector(chooser, self.reveal(chooser))
            return False
        nxt = [s for s in self.rotation(chooser, include_start=False) if self.piles[s]]
        self.ev("sb.ev.pass", chooser)
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
        self.ev("sb.ev.announce", chooser, self.table.names[cid], char, vals[cid], "hi" if hi else "lo")
        out = self.out
        order = [s for s in self.orders[chooser][1:] if out[s] is None]
        self.contenders = [chooser, *order]
        self.queue = order

    def reveals(self) -> None:
        """The seats of the queue reveal in turn (S4, and a bataille's reveals, S5): a Collector's
        power applies and its owner reveals the next card (S2; this stops at a power waiting for
        its owner's target); a seat with no card to reveal drops out of the comparison."""
        queue, piles, shop, current, events = self.queue, self.piles, self.shop, self.current, self.events
        names, char, vals = self.table.names, self.char, self.vals
        while queue:
            seat = queue[0]
            if not piles[seat]:
                del queue[0]
                if seat in self.contenders:
                    # in place: the round's ``sb.ev.bataille`` event holds this very list, so its
                    # ``players`` leave out a seat that drops out in the same step
                    self.contenders.remove(seat)
                events.append(("sb.ev.no_card", (seat,), None))
                continue
            cid = self.reveal(seat)
            if not shop[cid]:
                self.collector(seat, cid)
                if self.pending is not None:
                    return
                continue
            del queue[0]
            current[seat] = cid
            events.append(("sb.ev.reveal", (seat, names[cid], char, vals[cid]), None))

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
            self.ev("sb.ev.tiebreak", holders[0], best)
            self.end_round(holders[0], tiebreak=True)
            return
        if holders:
            tied = holders
        order = [s for s in self.rotation(self.chooser) if s in tied]
        self.level += 1
        self.contenders = order
        self.queue = list(order)
        self.current = [None] * self.n
        self.ev("sb.ev.bataille", order, best, self.level)

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
            self.face_down = ()
            events.append(("sb.ev.win", (winner, size), None))
        else:
            events.append(("sb.ev.carry", (size,), None))
        rnd, n = self.round, self.n
        self.last = _new_last(None, rnd, self.chooser, self.char, self.hi, tuple(self.plays), winner, self.level,
                              size, tiebreak)
        out = self.out
        for s in range(n):
            if out[s] is None and not piles[s]:
                out[s] = rnd
                events.append(("sb.ev.out", (s,), None))
        alive = out.count(None)
        nxt: int | None = None
        skipped: list[int] = []
        if alive > 1:
            nxt = self.next_active(self.chooser)
            for _ in range(self.skips):
                assert nxt is not None
                skipped.append(nxt)
                nxt = self.next_active(nxt)
        rules = self.st.rules
        cap = self.st.round_cap
        capped = cap is not None and rnd >= cap
        if capped and rules >= 4 and nxt is not None:
            behind = self.catch_up([s for s in range(n) if out[s] is None])
            if behind is not None:
                capped, nxt, skipped = False, behind, []
        elif capped and rules >= 2 and nxt is not None and not self.lap_done(nxt):
            capped = False
        self.char = self.hi = None
        self.level = 0
        self.contenders, self.queue = [], []
        self.tiebreakers = ()
        self.plays = [()] * n
        self.current = [None] * n
        if nxt is None or capped or rnd >= self.max_rounds:
            self.phase = "over"
            if alive > 1:
                self.ev("sb.ev.cap", rnd)
            return
        if self.skips:
            self.skips = 0
            for s in skipped:
                self.ev("sb.ev.skipped", s)
        if rules >= 2 and self.lap_done(nxt):
            self.lap_opener = nxt
        self.round = rnd = rnd + 1
        self.chooser = nxt
        events.append(("sb.ev.round", (rnd, nxt), None))
