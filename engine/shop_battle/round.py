"""The round of Shop Battle (RULINGS S2, S4, S5, S6; ``docs/rules/shop-battle.md``): every step of
a game, from the setup's first pre-choice to the end, is one call of :func:`advance`.

:func:`advance` applies the decision (the chooser's announcement, or the target of a Collector's
``peek``/``swap``), then runs the automatic steps in the order of the rules (pre-choice, reveals,
Collector powers, compare, bataille, end of round) until the next decision or the end of the game.
:func:`next_chooser` settles who chooses next, with the round cap of each rules version.

Where its speed comes from: a step works on local variables (the state's tuples are copied into
lists only where a step changes them in place); card facts are tuples indexed by card id
(:class:`~engine.shop_battle.cards.CardTable`, built once per deck and rules version); the seats in
rotation order are tuples built at import (:data:`_ROTATIONS`); the cards made public or seen in a
step are merged into the state's sorted tuples once, at its end (:func:`_seen`); the events are
made only when asked for (a playout reads states only).
"""

from __future__ import annotations

from bisect import bisect_left, insort
from collections.abc import Sequence
from typing import Any, Literal, overload

from engine.core import Event
from engine.fast import event, replacer
from engine.shop_battle.actions import Choose, ShopBattleAction, Target
from engine.shop_battle.cards import CollectorCard, PeekPower, TributePower, card_table
from engine.shop_battle.state import CCW, CW, LastRound, Pending, ShopBattleState

__all__ = ["MAX_ROUNDS", "advance", "next_chooser"]

#: Safety limit: a game without ``round_cap`` still ends after this many rounds (as at a cap).
MAX_ROUNDS = 500


def _rotations(n: int, direction: int) -> tuple[tuple[int, ...], ...]:
    return tuple(tuple((start + direction * k) % n for k in range(n)) for start in range(n))


#: ``_ROTATIONS[direction][players][start]``: every seat in rotation order from ``start``, for
#: 2 to 6 players (built at import, looked up by small ints).
_ROTATIONS: dict[int, tuple[tuple[tuple[int, ...], ...], ...]] = {
    d: tuple(_rotations(n, d) for n in range(7)) for d in (CCW, CW)}

#: The next state: every field a step may change, the others copied (``engine.fast.replacer``).
_next_state = replacer(
    ShopBattleState, "version", "piles", "pot", "face_down", "out", "round", "chooser", "direction", "skips",
    "phase", "announce_char", "announce_hi", "level", "contenders", "queue", "plays", "current", "tiebreakers",
    "pending", "public", "known", "last", "lap_opener", "chosen")
#: ``LastRound(...)`` with every field given in order (the copied instance is never read).
_new_last = replacer(LastRound, "round", "chooser", "char", "hi", "plays", "winner", "batailles", "pot", "tiebreak")


def _next_active(orders: tuple[tuple[int, ...], ...], out: tuple[int | None, ...], seat: int) -> int | None:
    """The first seat still in after ``seat`` in the rotation ``orders`` (``None`` if none)."""
    for s in orders[seat][1:]:
        if out[s] is None:
            return s
    return None


def next_chooser(st: ShopBattleState, rnd: int, chooser: int, skips: int, orders: tuple[tuple[int, ...], ...],
                 out: tuple[int | None, ...], piles: Sequence[tuple[int, ...]], opener: int,
                 chosen: tuple[int, ...]) -> tuple[int | None, list[int], int]:
    """Who chooses after round ``rnd``, chosen by ``chooser`` (S4, S2, S6): ``(seat, the seats
    passed over by the skips, the seat that opens the current lap)``, or ``(None, [], opener)``
    when the game ends.

    ``skips`` are the pending skips, ``orders`` the rotation of the current direction,
    ``out``/``piles`` the seats and piles after the round, ``opener`` the seat that opened the
    current lap (rules 2 on: a lap is complete when the choice comes back to that seat, or to the
    next seat still in after it when it is out; the next lap opens there), ``chosen`` the
    announcements per seat (rules 4; ``()`` = none yet).

    The game ends when at most one seat is still in, at the safety limit :data:`MAX_ROUNDS`, and
    at the round cap of ``st``'s rules version: rules 1 right after round ``round_cap``; rules 2-3
    at the end of the first full lap that finishes at or after that round; rules 4 after the first
    round at or after it at which every seat still in has chosen equally often, the rounds past
    the cap going to the first seat behind (in rotation order, this round's chooser last; pending
    skips are dropped)."""
    alive = out.count(None)
    if alive <= 1 or rnd >= MAX_ROUNDS:
        return None, [], opener
    nxt = orders[chooser][1] if alive == st.players else _next_active(orders, out, chooser)
    assert nxt is not None
    skipped: list[int] = []
    for _ in range(skips):
        skipped.append(nxt)
        nxt = _next_active(orders, out, nxt)
        assert nxt is not None
    rules = st.rules
    lap_end = (opener if out[opener] is None else _next_active(orders, out, opener)) if rules >= 2 else None
    cap = st.round_cap
    if cap is not None and rnd >= cap:
        if rules >= 4:
            counts = chosen or (0,) * st.players
            most = max([counts[s] for s in range(st.players) if out[s] is None])
            for s in (*orders[chooser][1:], chooser):
                if out[s] is None and counts[s] < most and piles[s]:
                    nxt, skipped = s, []
                    break
            else:
                return None, [], opener
        elif rules < 2 or nxt == lap_end:
            return None, [], opener
    return nxt, skipped, nxt if nxt == lap_end else opener


def _seen(public: tuple[int, ...], known: tuple[tuple[int, ...], ...], fresh: list[int],
          learned: list[tuple[int, int]]) -> tuple[tuple[int, ...], tuple[tuple[int, ...], ...]]:
    """``(public, known)`` once the cards ``fresh`` (distinct, not in ``public``) are face up and
    each ``(seat, card)`` of ``learned`` was seen by that seat: ``public`` and each seat's
    ``known`` stay sorted (membership is found by bisection), and ``known`` holds only private
    knowledge (a public card leaves it). The tuples that do not change are returned as they are."""
    if fresh:
        listed = list(public)
        for c in fresh:
            insort(listed, c)
        public = tuple(listed)
        shown = frozenset(fresh)
        if not all(map(shown.isdisjoint, known)):
            known = tuple([o if shown.isdisjoint(o) else tuple([c for c in o if c not in shown]) for o in known])
    size = len(public)
    for seat, c in learned:
        i = bisect_left(public, c)
        mine = known[seat]
        if (i == size or public[i] != c) and c not in mine:
            listed = list(mine)
            insort(listed, c)
            known = (*known[:seat], tuple(listed), *known[seat + 1:])
    return public, known


def _collector(seat: int, card: CollectorCard) -> Event:
    return event("sb.ev.collector", {"player": seat, "card": card.name, "power": card.kind, "params": card.params})


@overload
def advance(st: ShopBattleState, action: ShopBattleAction | None, record: bool = False, *,
            round_end: Literal[False] = False) -> tuple[ShopBattleState, list[Event]]: ...


@overload
def advance(st: ShopBattleState, action: ShopBattleAction | None, record: bool = False, *,
            round_end: Literal[True]) -> tuple[ShopBattleState | LastRound, list[Event]]: ...


def advance(st: ShopBattleState, action: ShopBattleAction | None, record: bool = False, *,
            round_end: bool = False) -> tuple[ShopBattleState | LastRound, list[Event]]:
    """One step from ``st``: ``action`` (the chooser's announcement, the target of the pending
    ``peek``/``swap``, or ``None`` for the setup's first pre-choice), then the automatic steps
    until the next decision or the end of the game. Returns the next state (version + 1) and,
    with ``record``, the step's events in order (the caller adds ``sb.ev.end``); without, the
    list is empty (the events of a step are made by running it again). ``action`` must be legal.

    With ``round_end`` (for the AI, which reads a round's result: :mod:`engine.shop_battle.odds`),
    a step that ends the round stops there and returns the round's :class:`LastRound` instead
    of the next state (the winner settled; the next chooser not named, the next round's
    pre-choice not run); a step that stops at a Collector's target returns that state as usual.

    The rules, in the order they apply (``docs/rules/shop-battle.md``, "A round"):

    - *Pre-choice* (S4, S2): a Collector on top of the chooser's pile is revealed into the pot and
      its power applies; a shop card on top is seen by the chooser, who must announce. A chooser
      without cards passes the choice to the next seat still in that has cards (none: the round
      ends, the pot is carried).
    - *Announcement* (S4): the chooser's card is revealed first (``sb.ev.announce``), then every
      other seat still in, in rotation order.
    - *Reveals* (S4, S2): each seat reveals the top card of its pile; a Collector's power applies
      at once (a ``peek``/``swap`` with a target waits for its owner's decision, phase
      ``target``) and its owner reveals the next card; a seat without a card to reveal drops out
      of the comparison (S5).
    - *Compare* (S4, S5): the one best value wins; a tie with exactly one ``steal_tie`` owner
      among the tied seats goes to that owner; otherwise the tied seats (only the ``steal_tie``
      owners among them, if several) start a bataille: one more reveal each, same announcement,
      until one wins or none is left (the pot is carried).
    - *End of round* (S4, S6): the winner takes the pot under their pile, seats with an empty
      pile are out, and :func:`next_chooser` names the next chooser or ends the game.
    """
    table = card_table(st.cards, st.rules)
    shop, first_plays = table.shop, table.first_plays
    n = st.players
    piles = list(st.piles)
    pot = list(st.pot)
    plays = list(st.plays)
    current = list(st.current)
    face_down, out, tiebreakers, pending = st.face_down, st.out, st.tiebreakers, st.pending
    rnd, chooser, direction, skips, phase = st.round, st.chooser, st.direction, st.skips, st.phase
    char, hi, level = st.announce_char, st.announce_hi, st.level
    last, opener, chosen = st.last, st.lap_opener, st.chosen
    public = st.public
    size = len(public)
    fresh: list[int] = []  # the cards made public in this step (not in ``public``)
    learned: list[tuple[int, int]] = []  # (seat, card) seen privately in this step
    events: list[Event] = []
    orders = _ROTATIONS[direction][n]
    vals: Any = table.values[char] if char is not None else ()  # shop cards' values (Collectors: None)
    level_plays = first_plays if not level else table.plays_at(level)  # ``[cid]``: a play at this level

    # -- the decision
    if type(action) is Choose:  # the announcement: the chooser reveals first, then the others
        char, hi = action.char, action.hi
        vals = table.values[char]
        if st.rules >= 4:  # S6 (rules 4): the announcements are counted, for the end at the cap
            counts = list(chosen) if chosen else [0] * n
            counts[chooser] += 1
            chosen = tuple(counts)
        queue = list(orders[chooser]) if out.count(None) == n else [s for s in orders[chooser] if out[s] is None]
        contenders = list(queue)
    else:
        queue = list(st.queue)  # the seats that reveal next, in order
        contenders = list(st.contenders)
        if action is not None:  # the pending peek/swap's target (S2)
            assert pending is not None and isinstance(action, Target)
            card = st.cards[pending.card]
            assert isinstance(card, CollectorCard)
            owner, power, target = pending.owner, card.power, action.target
            pending, phase = None, "choose"
            if isinstance(power, PeekPower):
                pile = piles[target]
                learned += [(owner, c) for c in pile]
                if record:
                    seconds = power.seconds
                    events += [event("sb.ev.peek", {"player": owner, "target": target, "seconds": seconds}),
                               event("sb.ev.peek_result", {"player": owner, "target": target, "seconds": seconds,
                                                           "count": len(pile),
                                                           "cards": [dict(table.dicts[c]) for c in pile]},
                                     frozenset({owner}))]
            else:  # swap: the two top cards change piles, face down
                a, b = piles[owner], piles[target]
                piles[owner], piles[target] = (b[0], *a[1:]), (a[0], *b[1:])
                if record:
                    events.append(event("sb.ev.swap", {"player": owner, "target": target}))

    # -- the automatic steps
    while pending is None:
        while queue:  # the seat at the head of the queue reveals its top card into the pot
            seat = queue[0]
            pile = piles[seat]
            if not pile:  # no card to reveal: the seat drops out of the comparison
                del queue[0]
                if seat in contenders:
                    # in place: a bataille's ``sb.ev.bataille`` event holds this very list, so its
                    # ``players`` leave out a seat that drops out within the same step
                    contenders.remove(seat)
                if record:
                    events.append(event("sb.ev.no_card", {"player": seat}))
                continue
            cid = pile[0]
            piles[seat] = pile[1:]
            if cid not in fresh:  # face up for everyone from now on (``public`` is sorted)
                i = bisect_left(public, cid)
                if i == size or public[i] != cid:
                    fresh.append(cid)
            pot.append(cid)
            plays[seat] += level_plays[cid]
            if shop[cid]:
                del queue[0]
                current[seat] = cid
                if not record:
                    continue
                if seat != chooser or level:
                    events.append(event("sb.ev.reveal", {"player": seat, "card": table.names[cid], "char": char,
                                                         "value": vals[cid]}))
                else:
                    events.append(event("sb.ev.announce", {"chooser": seat, "card": table.names[cid], "char": char,
                                                           "value": vals[cid], "dir": "hi" if hi else "lo"}))
                continue
            # a Collector: its power applies at once (S2), then its owner reveals the next card (in
            # the pre-choice: looks at it)
            if char is None:
                del queue[0]
            card = st.cards[cid]
            assert isinstance(card, CollectorCard)
            kind = table.kinds[cid]
            if record:
                events.append(_collector(seat, card))
            if kind == "peek" or kind == "swap":
                others = [s for s in orders[seat][1:] if out[s] is None and piles[s]]
                if others and (kind == "peek" or piles[seat]):  # the owner picks the target
                    pending, phase = Pending(owner=seat, card=cid, targets=tuple(sorted(others))), "target"
                    break
                if record:
                    events.append(event("sb.ev.no_effect", {"player": seat, "card": card.name}))
            elif kind == "reverse":
                direction = -direction
                orders = _ROTATIONS[direction][n]
                if record:
                    events.append(event("sb.ev.reverse", {"player": seat, "rotation": "cw" if direction == CW else "ccw"}))
            elif kind == "skip":
                skips += 1
                if record:
                    events.append(event("sb.ev.skip", {"player": seat}))
            elif kind == "steal_tie":
                if seat not in tiebreakers:
                    tiebreakers = (*tiebreakers, seat)
                if record:
                    events.append(event("sb.ev.steal_tie", {"player": seat}))
            elif kind == "scout":
                tops = [(s, piles[s][0]) for s in orders[seat][1:] if out[s] is None and piles[s]]
                learned += [(seat, top) for _s, top in tops]
                if record:
                    events += [event("sb.ev.scout", {"player": seat, "count": len(tops)}),
                               event("sb.ev.scout_result",
                                     {"player": seat, "tops": [{"seat": s, "card": dict(table.dicts[c])} for s, c in tops]},
                                     frozenset({seat}))]
            elif kind == "tribute":  # the others' top cards go face down into the pot
                assert isinstance(card.power, TributePower)
                count = card.power.cards
                taken: list[int] = []
                for s in orders[seat][1:]:
                    if out[s] is None:
                        pile = piles[s]
                        taken += pile[:count]
                        piles[s] = pile[count:]
                pot += taken
                if taken:
                    face_down = tuple(sorted((*face_down, *taken)))
                if record:
                    events.append(event("sb.ev.tribute", {"player": seat, "cards": len(taken)}))
        if pending is not None:
            break

        winner: int | None = None
        tiebreak = False
        if char is None:  # the pre-choice
            pile = piles[chooser]
            if pile:
                if shop[pile[0]]:  # the chooser sees their top card and must announce
                    learned.append((chooser, pile[0]))
                    phase = "choose"
                    break
                queue.append(chooser)  # a Collector on top is revealed (above)
                continue
            if record:
                events.append(event("sb.ev.pass", {"player": chooser}))
            able = [s for s in orders[chooser][1:] if out[s] is None and piles[s]]
            if able:
                chooser = able[0]
                continue
            # nobody can choose: the round ends, the pot is carried
        else:  # every contender has revealed: the compare
            best: int | None = None
            tied: list[int] = []  # the contenders with the best value, in contenders order
            for s in contenders:
                c = current[s]
                if c is not None:
                    v = vals[c]
                    if best is None or (v > best if hi else v < best):
                        best, tied = v, [s]
                    elif v == best:
                        tied.append(s)
            if len(tied) == 1:
                winner = tied[0]
            elif tied:
                holders = [s for s in tied if s in tiebreakers]
                if len(holders) == 1:
                    winner, tiebreak = holders[0], True
                    if record:
                        events.append(event("sb.ev.tiebreak", {"winner": winner, "value": best}))
                else:  # a bataille, among the steal_tie owners if several are tied
                    contenders = [s for s in orders[chooser] if out[s] is None and s in (holders or tied)]
                    level += 1
                    level_plays = table.plays_at(level)
                    queue = list(contenders)
                    current = [None] * n
                    if record:
                        events.append(event("sb.ev.bataille", {"players": contenders, "value": best, "level": level}))
                    continue
            # (no contender left: the pot is carried)

        # -- the end of the round: the pot is won or carried, empty piles are out
        cards_won = len(pot)
        if winner is not None:
            piles[winner] += tuple(pot)
            pot = []
            face_down = ()
        if record:
            events.append(event("sb.ev.win", {"winner": winner, "cards": cards_won}) if winner is not None
                          else event("sb.ev.carry", {"cards": cards_won}))
        last = _new_last(None, rnd, chooser, char, hi, tuple(plays), winner, level, cards_won, tiebreak)
        if round_end:
            return last, events
        if () in piles:
            for s in range(n):
                if out[s] is None and not piles[s]:
                    out = (*out[:s], rnd, *out[s + 1:])
                    if record:
                        events.append(event("sb.ev.out", {"player": s}))
        nxt, skipped, opener = next_chooser(st, rnd, chooser, skips, orders, out, piles, opener, chosen)
        char = hi = None
        level = 0
        level_plays = first_plays
        contenders, queue, tiebreakers = [], [], ()
        plays = [()] * n
        current = [None] * n
        if nxt is None:
            phase = "over"
            if record and out.count(None) > 1:
                events.append(event("sb.ev.cap", {"round": rnd}))
            break
        if skips:
            skips = 0
            if record:
                events += [event("sb.ev.skipped", {"player": s}) for s in skipped]
        rnd += 1
        chooser = nxt
        if record:
            events.append(event("sb.ev.round", {"round": rnd, "chooser": nxt}))

    known = st.known
    if fresh or learned:
        public, known = _seen(public, known, fresh, learned)
    new = _next_state(
        st, st.version + 1, tuple(piles), tuple(pot), face_down, out, rnd, chooser, direction, skips, phase, char, hi,
        level, tuple(contenders), tuple(queue), tuple(plays), tuple(current), tiebreakers, pending, public, known, last,
        opener, chosen)
    return new, events
