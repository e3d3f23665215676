"""The win chance of a Three-Player Moon game from the scores (the strong AI's evaluation).

:func:`win_chance` estimates, for a game between hands (``scores`` and the seat that bids
first in the next hand), each seat's chance of winning the game (T7: first to 21 alone; T6: a
made moon wins at once). It plays the rest of the game many times with hand results drawn from
how hands between normal AIs end (``data/hand_outcomes.json``, written by ``python -m
bench.moon_hands``: the points of the first, second and third bidder of a hand and who made a
moon). Every estimate uses the same fixed sample of future hands (common random numbers), so
two nearby score lines are compared on the same futures and their difference is smooth.
Pure and deterministic; results are cached.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterable, Iterator, Sequence
from functools import cache, lru_cache
from itertools import combinations
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from engine.three_player_moon.hidden import voids
from engine.three_player_moon.state import MoonState
from engine.three_player_moon.tiles import (
    ALL_TILES,
    MOON,
    TARGET,
    TRICKS,
    TRUMP_OPTIONS,
    Tile,
    belongs,
    led_suit,
    trick_winner,
)

__all__ = ["FUTURES", "HORIZON", "HandOutcomes", "win_chance"]

#: Sampled futures per estimate.
FUTURES = 160
#: Hands per sampled future (a game that is still undecided after them goes to the leader).
HORIZON = 24


class _Row(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    points: tuple[int, int, int]
    moon: int = Field(ge=-1, le=2)
    hands: int = Field(gt=0)


class HandOutcomes(BaseModel):
    """The data file: hand results relative to the first bidder, with how often each happened.

    Raises ``pydantic.ValidationError`` (through ``model_validate``) on a bad file."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    source: str
    games: int = Field(gt=0)
    outcomes: tuple[_Row, ...] = Field(min_length=1)


# One sampled future: per hand (d0, d1, d2, moon maker or -1) in absolute seats.
_Future = tuple[tuple[int, int, int, int], ...]


@cache
def _futures() -> tuple[tuple[_Future, ...], tuple[_Future, ...], tuple[_Future, ...]]:
    """Per first bidder of the next hand (0, 1, 2): the :data:`FUTURES` sampled futures."""
    path = Path(__file__).parent / "data" / "hand_outcomes.json"
    data = HandOutcomes.model_validate(json.loads(path.read_text(encoding="utf-8")))
    rows = data.outcomes
    rng = random.Random("moon-outlook")
    picks = [rng.choices(range(len(rows)), weights=[r.hands for r in rows], k=HORIZON) for _ in range(FUTURES)]
    out: list[tuple[_Future, ...]] = []
    for first in range(3):
        futures: list[_Future] = []
        for pick in picks:
            hands: list[tuple[int, int, int, int]] = []
            for j, idx in enumerate(pick):
                row = rows[idx]
                f = (first + j) % 3  # the first bidder moves one seat per hand (T2)
                d = [0, 0, 0]
                for k in range(3):
                    d[(f + k) % 3] = row.points[k]
                hands.append((d[0], d[1], d[2], -1 if row.moon < 0 else (f + row.moon) % 3))
            futures.append(tuple(hands))
        out.append(tuple(futures))
    return out[0], out[1], out[2]


@lru_cache(maxsize=1 << 16)
def win_chance(scores: tuple[int, int, int], first: int) -> tuple[float, float, float]:
    """Each seat's chance of winning from ``scores`` before a hand whose first bidder is
    ``first`` (0-2); the three sum to 1. Over the sampled futures: a made moon wins (T6), the
    first hand after which one seat alone has the most points and at least :data:`TARGET`
    ends the game (T7); a future still open after :data:`HORIZON` hands goes to the leaders
    (shared). The caller handles a finished game itself."""
    win = [0.0, 0.0, 0.0]
    for future in _futures()[first]:
        s0, s1, s2 = scores
        for d0, d1, d2, moon in future:
            if moon >= 0:
                win[moon] += 1
                break
            s0 += d0
            s1 += d1
            s2 += d2
            if s0 >= TARGET or s1 >= TARGET or s2 >= TARGET:
                if s0 > s1 and s0 > s2:
                    win[0] += 1
                    break
                if s1 > s0 and s1 > s2:
                    win[1] += 1
                    break
                if s2 > s0 and s2 > s1:
                    win[2] += 1
                    break
        else:
            top = max(s0, s1, s2)
            leaders = [i for i, s in enumerate((s0, s1, s2)) if s == top]
            for i in leaders:
                win[i] += 1 / len(leaders)
    n = float(len(_futures()[first]))
    return win[0] / n, win[1] / n, win[2] / n


# --- what the bidder can make with every hand in view ---------------------------------------------------------------
#
# Hands are masks of the 22 tiles (bit ``i`` is ``ALL_TILES[i]``). A *deal* gives the three
# hands; a complete search of the rest of the hand says whether the bidder, seeing every tile,
# takes the tricks it needs whatever the two defenders (seeing every tile too) play: the judge
# of "this move keeps the bid in some deal" behind the AI levels' refusal of losing moves and of
# the strong level's moon estimate.

#: Tile index by tile.
INDEX: dict[Tile, int] = {t: i for i, t in enumerate(ALL_TILES)}
_FULL = (1 << len(ALL_TILES)) - 1


class OverBudget(Exception):
    """A complete search went past the positions it was allowed (:class:`SureTricks` ``budget``)
    or was told to stop (its ``stop``)."""


#: Positions searched between two calls of a search's ``stop``.
STOP_EVERY = 1024


def _high_first(mask: int) -> list[int]:
    out = []
    while mask:
        i = mask.bit_length() - 1
        out.append(i)
        mask ^= 1 << i
    return out


def _low_first(mask: int) -> list[int]:
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


class _Trick:
    """T5 under one trump choice, as masks: the tiles that follow each lead, the tiles that beat
    each lead, and the winner of three tiles (cached)."""

    def __init__(self, trump: str | None) -> None:
        self.trump = trump
        self.follow = [sum(1 << j for j, u in enumerate(ALL_TILES) if belongs(u, led_suit(t, trump), trump))
                       for t in ALL_TILES]
        self.beats = [sum(1 << j for j, u in enumerate(ALL_TILES)
                          if u != t and trick_winner(((0, t), (1, u)), trump) == 1) for t in ALL_TILES]
        n = len(ALL_TILES)
        #: per tile: the leads it beats, the leads whose suit it follows
        self.beaten_by = [sum(1 << i for i in range(n) if self.beats[i] >> j & 1) for j in range(n)]
        self.followed_by = [sum(1 << i for i in range(n) if self.follow[i] >> j & 1) for j in range(n)]
        self._won: dict[int, int] = {}

    def winner(self, a: int, b: int, c: int) -> int:
        """0, 1 or 2: which of the tiles ``a`` (led), ``b``, ``c`` (indexes) takes the trick."""
        key = (a * 32 + b) * 32 + c
        w = self._won.get(key)
        if w is None:
            w = self._won[key] = trick_winner(((0, ALL_TILES[a]), (1, ALL_TILES[b]), (2, ALL_TILES[c])), self.trump)
        return w

    def distinct(self, options: int, leads: int) -> int:
        """``options`` (a defender's tiles) with one tile kept per kind, while the bidder takes
        every trick leading from ``leads`` (the trick's lead included): two tiles that beat the
        same leads and follow the same ones play alike for the rest of the hand (the defenders
        never lead), so only the first of each kind needs trying."""
        seen: set[tuple[int, int]] = set()
        out = 0
        for j in _low_first(options):
            kind = (self.beaten_by[j] & leads, self.followed_by[j] & leads)
            if kind not in seen:
                seen.add(kind)
                out |= 1 << j
        return out

    def unbeatable(self, hand: int, others: int) -> int:
        """The tiles of ``hand`` that no tile of ``others`` beats when they are led."""
        return sum(1 << i for i in _high_first(hand) if not others & self.beats[i])


@cache
def _trick(trump: str | None) -> _Trick:
    return _Trick(trump)


#: The positions a :class:`SureTricks` has settled (shared by the searches of one decision).
Seen = dict[tuple[int, int, int, tuple[int, ...], int], Any]


class SureTricks:
    """Complete searches of the rest of a hand with every hand in view, for one trump choice, one
    bidder and the tricks it ``need``s (T5, T6). Positions are remembered across calls and
    counted against ``budget`` (:class:`OverBudget` past it, or as soon as ``stop()``, asked
    every :data:`STOP_EVERY` positions, says so: a decision's deadline). ``seen``: the positions
    of an earlier search of the same trump, bidder and need to start from (:data:`Seen`)."""

    def __init__(self, trump: str | None, bidder: int, need: int, budget: int,
                 stop: Callable[[], bool] | None = None, seen: Seen | None = None) -> None:
        self.t = _trick(trump)
        self.bidder = bidder
        self.need = need
        self.budget = budget
        self.stop = stop
        self._seen: Seen = {} if seen is None else seen

    def makes(self, hands: tuple[int, int, int], trick: tuple[int, ...], turn: int, won: int) -> bool:
        """True when the bidder takes :attr:`need` tricks of the hand against any defence, from
        the position where ``turn`` is to play to ``trick`` (tile indexes in play order; fewer
        than three) with ``hands`` held and ``won`` tricks taken by the bidder."""
        if won >= self.need:
            return True
        bidder = self.bidder
        played = 1 <= (turn - bidder) % 3 <= len(trick)
        if won + hands[bidder].bit_count() + played < self.need:
            return False
        key = (hands[0], hands[1], hands[2], trick, turn * 8 + won)
        known = self._seen.get(key)
        if known is not None:
            return bool(known)
        self.budget -= 1
        if self.budget < 0 or (self.stop is not None and not self.budget % STOP_EVERY and self.stop()):
            raise OverBudget
        t = self.t
        hand = hands[turn]
        options = hand
        if trick:
            options = hand & t.follow[trick[0]] or hand
        mine = turn == bidder
        a, b = hands[(bidder + 1) % 3], hands[(bidder + 2) % 3]
        if not trick:
            if mine and won + t.unbeatable(hand, a | b).bit_count() >= self.need:
                self._seen[key] = True  # leads that nobody can beat, one after another
                return True
            if not mine and won + hand.bit_count() - t.unbeatable(hand, hands[bidder] | hands[3 - bidder - turn]
                                                                  ).bit_count() < self.need:
                self._seen[key] = False
                return False
            if mine and won + hand.bit_count() == self.need:  # every trick needed: no lead that loses now
                options = sum(1 << i for i in _high_first(options) if not (
                    (a & t.follow[i] or a) & t.beats[i] or (b & t.follow[i] or b) & t.beats[i]))
        result = not mine
        for i in _high_first(options) if mine else self._defence(options, trick, turn):
            rest = hand ^ (1 << i)
            nh = (rest, hands[1], hands[2]) if turn == 0 else (hands[0], rest, hands[2]) if turn == 1 else (
                hands[0], hands[1], rest)
            if len(trick) == 2:
                w = (turn + 1 + t.winner(trick[0], trick[1], i)) % 3
                value = self.makes(nh, (), w, won + (w == bidder))
            else:
                value = self.makes(nh, (*trick, i), (turn + 1) % 3, won)
            if value == mine:
                result = mine
                break
        self._seen[key] = result
        return result

    def _defence(self, options: int, trick: tuple[int, ...], turn: int) -> list[int]:
        """A defender's tiles in the order tried: those that take the trick from the bidder
        first, then the rest from the lowest."""
        t = self.t
        takes = 0
        if len(trick) == 1 and (turn - 1) % 3 == self.bidder:
            takes = options & t.beats[trick[0]]
        elif len(trick) == 2:
            holder = (turn - 2 + (1 if t.beats[trick[0]] >> trick[1] & 1 else 0)) % 3
            if holder == self.bidder:
                takes = sum(1 << i for i in _high_first(options) if t.winner(trick[0], trick[1], i) == 2)
        elif not trick:
            return _high_first(options)
        return _low_first(takes) + _low_first(options & ~takes)

    def spare(self, hands: tuple[int, int, int], wanted: int) -> int:
        """For the opening lead when the bidder holds one tile more than each defender (before
        its discard, T3): the tiles ``d`` of ``wanted`` such that the bidder, never playing
        ``d``, takes every trick against any defence (so discarding ``d`` keeps a moon)."""
        bidder = self.bidder
        mine_all = hands[bidder]
        if not mine_all & wanted:
            return 0
        if mine_all.bit_count() == 1:
            return mine_all
        key = (hands[0], hands[1], hands[2], (), 64 + wanted)
        known = self._seen.get(key)
        if known is not None:
            return int(known)
        result = self._spare(hands, (), wanted)
        self._seen[key] = result
        return result

    def _spare(self, hands: tuple[int, int, int], trick: tuple[int, ...], wanted: int) -> int:
        bidder = self.bidder
        if not hands[bidder] & wanted:
            return 0
        if not trick and hands[bidder].bit_count() == 1:
            return hands[bidder]
        key = (hands[0], hands[1], hands[2], trick, 64 + wanted)
        known = self._seen.get(key)
        if known is not None:
            return int(known)
        result = self._spare_search(hands, trick, wanted)
        self._seen[key] = result
        return result

    def _spare_search(self, hands: tuple[int, int, int], trick: tuple[int, ...], wanted: int) -> int:
        bidder = self.bidder
        self.budget -= 1
        if self.budget < 0 or (self.stop is not None and not self.budget % STOP_EVERY and self.stop()):
            raise OverBudget
        t = self.t
        turn = (bidder + len(trick)) % 3
        hand = hands[turn]
        mine = turn == bidder
        a, b = hands[(bidder + 1) % 3], hands[(bidder + 2) % 3]
        if mine:
            losers = hand & ~t.unbeatable(hand, a | b)
            result = 0
            if not losers & (losers - 1):  # at most one tile may lose: lead the others
                result = (losers or hand) & wanted
            if result == hand & wanted:
                return result
            options = sum(1 << i for i in _high_first(hand) if not (
                (a & t.follow[i] or a) & t.beats[i] or (b & t.follow[i] or b) & t.beats[i]))
        else:
            result = wanted
            options = t.distinct(hand & t.follow[trick[0]] or hand, hands[bidder] | 1 << trick[0])
        for i in _high_first(options) if mine else _low_first(options):
            rest = hand ^ (1 << i)
            nh = (rest, hands[1], hands[2]) if turn == 0 else (hands[0], rest, hands[2]) if turn == 1 else (
                hands[0], hands[1], rest)
            ask = wanted & ~result if mine else result
            if len(trick) == 2:
                value = self._spare(nh, (), ask) if t.winner(trick[0], trick[1], i) == 0 else 0
            else:
                value = self._spare(nh, (*trick, i), ask)
            if mine:
                result |= value
                if result == wanted & hands[bidder]:
                    break
            else:
                result &= value
                if not result:
                    break
        return result


def mask_of(tiles: Iterable[Tile]) -> int:
    """The mask of ``tiles``."""
    return sum(1 << INDEX[t] for t in tiles)


def alike(trump: str | None, leads: int) -> int:
    """The tiles that play alike in either defender's hand while the bidder takes every trick
    leading from ``leads``: they beat none of those leads and follow none of the suits they ask
    for, so they are only ever thrown (the defenders never lead)."""
    t = _trick(trump)
    out = 0
    for j in range(len(ALL_TILES)):
        if not any((t.beats[i] | t.follow[i]) >> j & 1 for i in _high_first(leads)):
            out |= 1 << j
    return out


def deals(mine: int, unseen: int, sizes: tuple[int, int], voids: tuple[frozenset[int], frozenset[int]],
          trump: str | None, same: int = 0) -> Iterator[tuple[int, int]]:
    """Every split of ``unseen`` (a mask) into the two defenders' hands (the bidder's next seat
    first) of ``sizes`` that puts no tile of a suit in a defender who has shown it void (T5).
    Splits that differ only in which defender holds which tiles of ``same`` (tiles that play
    alike) are given once. ``mine`` is not used but documents the bidder's hand (kept apart)."""
    fits = [sum(1 << INDEX[u] for u in ALL_TILES if not any(belongs(u, s, trump) for s in v)) for v in voids]
    pool = _low_first(unseen)
    free = [i for i in pool if same >> i & 1 and fits[0] >> i & 1 and fits[1] >> i & 1]
    rest = [i for i in pool if i not in free]
    size_a = sizes[0]
    for k in range(max(0, size_a - len(free)), min(size_a, len(rest)) + 1):
        for group in combinations(rest, k):
            ga = sum(1 << i for i in group)
            gb = sum(1 << i for i in rest) & ~ga
            if ga & ~fits[0] or gb & ~fits[1]:
                continue
            fill = sum(1 << i for i in free[:size_a - k])
            yield ga | fill, gb | (sum(1 << i for i in free) & ~fill)


def needed(state: MoonState) -> int:
    """Tricks the bidder must take this hand: its bid, all seven for a moon (T6)."""
    return TRICKS if state.bid == MOON else state.bid


def keeping(state: MoonState, seat: int, moves: Sequence[Any], budget: int,
            stop: Callable[[], bool] | None = None, seen: Seen | None = None, found: set[Any] | None = None
            ) -> set[Any] | None:
    """The moves among ``moves`` (the bidder's legal plays, discards or trump choices) that keep
    its bid in at least one deal the bidder cannot tell from the true one: every split of the
    tiles it has not seen between the defenders that fits their shown voids (T5), searched with
    every hand in view (:class:`SureTricks`).

    ``None`` when the question is not asked here: ``seat`` is not the bidder, the bid is made or
    beaten already, a discard or trump choice for a bid that may lose a trick (too many deals to
    search), or the searches ran past ``budget`` positions or were stopped by ``stop()`` (see
    :class:`SureTricks`). An empty set: no move keeps the bid. ``seen`` (while playing): the
    positions settled by an earlier search of the same decision, shared with this one.
    ``found``: a set the moves are added to as soon as a deal keeps the bid with them, so that
    a search past its budget or stopped still tells the moves it found."""
    bidder = state.bidder
    if bidder is None or seat != bidder or state.phase in ("bid", "over") or not moves:
        return None
    need = needed(state)
    won = state.tricks_won[bidder]
    if state.phase == "play":
        if won >= need or won + len(state.hands[bidder]) < need:
            return None
    elif need < TRICKS:
        return None
    hand = mask_of(state.hands[bidder])
    if state.phase != "discard" and state.discard is not None:
        hand8 = hand | (1 << INDEX[state.discard])
    else:
        hand8 = hand
    unseen = _FULL & ~hand8 & ~mask_of(state.played)
    a, b = (bidder + 1) % 3, (bidder + 2) % 3
    sizes = (len(state.hands[a]), len(state.hands[b]))
    try:
        return _keepers(state, hand, hand8, unseen, sizes, list(moves), budget, a, b,
                        set() if found is None else found, stop, seen)
    except OverBudget:
        return None


def _keepers(state: MoonState, hand: int, hand8: int, unseen: int, sizes: tuple[int, int], moves: list[Any],
             budget: int, a: int, b: int, good: set[Any], stop: Callable[[], bool] | None = None,
             seen: Seen | None = None) -> set[Any]:
    """:func:`keeping` for ``moves`` (all of one kind), adding each move to ``good`` (returned)
    as soon as a deal keeps the bid with it; raises :class:`OverBudget`."""
    bidder = state.bidder
    assert bidder is not None
    if not moves:
        return good
    if state.phase == "play":
        solver = SureTricks(state.trump, bidder, needed(state), budget, stop, seen)
        won = state.tricks_won[bidder]
        void = voids(state)
        every = not state.trick and won + len(state.hands[bidder]) == needed(state)
        same = alike(state.trump, hand) if every else 0
        trick = tuple(INDEX[t] for _, t in state.trick)
        turn = (bidder + 1) % 3
        for ha, hb in deals(hand, unseen, sizes, (void[a], void[b]), state.trump, same):
            for m in moves:
                if m in good:
                    continue
                i = INDEX[m.tile]
                hands = [0, 0, 0]
                hands[bidder], hands[a], hands[b] = hand ^ (1 << i), ha, hb
                h = (hands[0], hands[1], hands[2])
                if len(trick) == 2:
                    w = (bidder + 1 + solver.t.winner(trick[0], trick[1], i)) % 3
                    ok = solver.makes(h, (), w, won + (w == bidder))
                else:
                    ok = solver.makes(h, (*trick, i), turn, won)
                if ok:
                    good.add(m)
            if len(good) == len(moves):
                break
        return good
    no_voids: tuple[frozenset[int], frozenset[int]] = (frozenset(), frozenset())
    if state.phase == "discard":
        wanted = sum(1 << INDEX[m.tile] for m in moves)
        for trump in TRUMP_OPTIONS:
            solver = SureTricks(trump, bidder, TRICKS, budget, stop)
            for ha, hb in deals(hand8, unseen, sizes, no_voids, trump, alike(trump, hand8)):
                hands = [0, 0, 0]
                hands[bidder], hands[a], hands[b] = hand8, ha, hb
                kept = solver.spare((hands[0], hands[1], hands[2]), wanted)
                if kept:
                    wanted &= ~kept
                    good.update(m for m in moves if kept >> INDEX[m.tile] & 1)
                if not wanted:
                    break
            budget = solver.budget
            if not wanted:
                break
        return good
    for m in moves:
        solver = SureTricks(m.trump, bidder, TRICKS, budget, stop)
        for ha, hb in deals(hand, unseen, sizes, no_voids, m.trump, alike(m.trump, hand)):
            hands = [0, 0, 0]
            hands[bidder], hands[a], hands[b] = hand, ha, hb
            if solver.makes((hands[0], hands[1], hands[2]), (), bidder, 0):
                good.add(m)
                break
        budget = solver.budget
    return good


def moon_chance(hand: Sequence[Tile], samples: int, rng: random.Random, budget: int = 1 << 62,
                stop: Callable[[], bool] | None = None) -> float:
    """The share of ``samples`` deals drawn with ``rng`` (the widow and the two other hands from
    the 15 tiles not in the 7-tile ``hand``) in which, taking the widow, the hand makes a moon
    against any defence with the best discard and trumps (T3, T6), every hand in view: an
    estimate of the moon's chance against good defenders. Raises :class:`OverBudget` past
    ``budget`` positions or when ``stop()`` says so (:class:`SureTricks`)."""
    mine = mask_of(hand)
    pool = [i for i in range(len(ALL_TILES)) if not mine >> i & 1]
    order = sorted(TRUMP_OPTIONS, key=lambda t: -_rough(hand, t))
    solvers: dict[str, SureTricks] = {}
    made = 0
    for _ in range(samples):
        rng.shuffle(pool)
        h8 = mine | 1 << pool[0]
        a = sum(1 << i for i in pool[1:8])
        b = sum(1 << i for i in pool[8:15])
        for trump in order:
            solver = solvers.get(trump)
            if solver is None:
                solver = solvers[trump] = SureTricks(trump, 0, TRICKS, budget, stop)
            solver.budget = budget
            if solver.spare((h8, a, b), h8):
                made += 1
                break
            budget = solver.budget
    return made / samples


def _rough(hand: Sequence[Tile], trump: str) -> float:
    """How many tiles of ``hand`` count as trumps or top tiles under ``trump`` (an order in which
    to try the trump choices)."""
    t = _trick(trump)
    mine = mask_of(hand)
    return float(t.unbeatable(mine, _FULL & ~mine).bit_count()) + 0.5 * sum(
        1 for x in hand if belongs(x, 7, trump))


def pickup_counts(bidder: int, hand8: Sequence[Tile], samples: int, rng: random.Random,
                  discard: Tile | None = None, budget: int = 1 << 62,
                  stop: Callable[[], bool] | None = None) -> dict[tuple[Tile, str], int]:
    """For a bid that needs every trick, before the discard (or after it: ``discard``): over
    ``samples`` deals of the 14 tiles the bidder has not seen drawn with ``rng``, how many keep
    every trick (against any defence, every hand in view) with each discard and trump choice
    (T3). Raises :class:`OverBudget` past ``budget`` positions or when ``stop()`` says so."""
    mine = mask_of(hand8)
    pool = [i for i in range(len(ALL_TILES)) if not mine >> i & 1]
    wanted = mine if discard is None else 1 << INDEX[discard]
    solvers = {t: SureTricks(t, bidder, TRICKS, budget, stop) for t in TRUMP_OPTIONS}
    a, b = (bidder + 1) % 3, (bidder + 2) % 3
    counts: dict[tuple[Tile, str], int] = {}
    for _ in range(samples):
        rng.shuffle(pool)
        hands = [0, 0, 0]
        hands[bidder], hands[a], hands[b] = mine, sum(1 << i for i in pool[:7]), sum(1 << i for i in pool[7:14])
        for trump, solver in solvers.items():
            solver.budget = budget
            found = solver.spare((hands[0], hands[1], hands[2]), wanted)
            budget = solver.budget
            for i in _high_first(found):
                key = (ALL_TILES[i], trump)
                counts[key] = counts.get(key, 0) + 1
    return counts


def _sampled_deals(state: MoonState, seat: int, samples: int, rng: random.Random) -> list[tuple[int, int]]:
    """``samples`` deals (the defenders' hands as masks, the bidder's next seat first) drawn with
    ``rng`` among those the bidder (``seat``, playing) cannot tell from the true one: the unseen
    tiles split as the defenders' shown voids allow (T5); every such deal when there are fewer."""
    hand = mask_of(state.hands[seat])
    seen = hand | mask_of(state.played) | (mask_of((state.discard,)) if state.discard is not None else 0)
    a, b = (seat + 1) % 3, (seat + 2) % 3
    void = voids(state)
    every = list(deals(hand, _FULL & ~seen, (len(state.hands[a]), len(state.hands[b])), (void[a], void[b]),
                       state.trump))
    if len(every) > samples:
        every = rng.sample(every, samples)
    return every


def _keeps_after(state: MoonState, solver: SureTricks, deal: tuple[int, int], tile: Tile) -> bool:
    """Whether the bidder (to play, an open bid) keeps its bid after playing ``tile`` in ``deal``
    (the defenders' hands, the bidder's next seat first), every hand in view."""
    bidder = solver.bidder
    i = INDEX[tile]
    hands = [0, 0, 0]
    hands[bidder], hands[(bidder + 1) % 3], hands[(bidder + 2) % 3] = (
        mask_of(state.hands[bidder]) ^ (1 << i), deal[0], deal[1])
    h = (hands[0], hands[1], hands[2])
    won = state.tricks_won[bidder]
    trick = tuple(INDEX[t] for _, t in state.trick)
    if len(trick) == 2:
        w = (bidder + 1 + solver.t.winner(trick[0], trick[1], i)) % 3
        return solver.makes(h, (), w, won + (w == bidder))
    return solver.makes(h, (*trick, i), (bidder + 1) % 3, won)


def play_counts(state: MoonState, seat: int, moves: Sequence[Any], samples: int, rng: random.Random,
                budget: int = 1 << 62, stop: Callable[[], bool] | None = None) -> dict[Any, int]:
    """For the bidder (``seat``, to play) of an open bid: over ``samples`` deals drawn with
    ``rng`` among those it cannot tell from the true one (the unseen tiles split between the
    defenders as their shown voids allow, T5), how many keep the bid after each of ``moves``
    (its legal plays), every hand in view. Raises :class:`OverBudget` past ``budget`` or when
    ``stop()`` says so."""
    solver = SureTricks(state.trump, seat, needed(state), budget, stop)
    counts = {m: 0 for m in moves}
    for deal in _sampled_deals(state, seat, samples, rng):
        for m in moves:
            counts[m] += _keeps_after(state, solver, deal, m.tile)
    return counts


def play_keepers(state: MoonState, seat: int, moves: Sequence[Any], samples: int, rng: random.Random,
                 budget: int = 1 << 62, stop: Callable[[], bool] | None = None, seen: Seen | None = None
                 ) -> set[Any]:
    """For the bidder (``seat``, to play) of an open bid: the ``moves`` (its legal plays) seen to
    keep the bid in one of ``samples`` deals drawn with ``rng`` as :func:`play_counts` draws
    them, every hand in view. A move is searched only until one deal keeps the bid with it (the
    deals after that go to the others); past ``budget`` positions or when ``stop()`` says so,
    the moves found so far (each of them keeps the bid in a deal the bidder cannot rule out).
    ``seen``: as for :func:`keeping`."""
    solver = SureTricks(state.trump, seat, needed(state), budget, stop, seen)
    found: set[Any] = set()
    try:
        for deal in _sampled_deals(state, seat, samples, rng):
            for m in moves:
                if m not in found and _keeps_after(state, solver, deal, m.tile):
                    found.add(m)
            if len(found) == len(moves):
                break
    except OverBudget:
        pass
    return found


def defence_counts(state: MoonState, seat: int, moves: Sequence[Any], deals_seen: Sequence[MoonState],
                   budget: int = 1 << 62, stop: Callable[[], bool] | None = None) -> dict[Any, int]:
    """For a defender (``seat``, to play) against an open bid: in how many of ``deals_seen``
    (full states it cannot tell from the true one, e.g. ``hidden_variant`` draws) the bidder no
    longer makes its bid after each of ``moves`` (its legal plays), every hand in view and both
    defenders playing their best (T5, T6). Raises :class:`OverBudget` past ``budget`` or when
    ``stop()`` says so."""
    bidder = state.bidder
    assert bidder is not None
    solver = SureTricks(state.trump, bidder, needed(state), budget, stop)
    won = state.tricks_won[bidder]
    trick = tuple(INDEX[t] for _, t in state.trick)
    counts = {m: 0 for m in moves}
    for det in deals_seen:
        base = [mask_of(h) for h in det.hands]
        for m in moves:
            i = INDEX[m.tile]
            hands = list(base)
            hands[seat] ^= 1 << i
            h = (hands[0], hands[1], hands[2])
            if len(trick) == 2:
                w = (seat + 1 + solver.t.winner(trick[0], trick[1], i)) % 3
                ok = solver.makes(h, (), w, won + (w == bidder))
            else:
                ok = solver.makes(h, (*trick, i), (seat + 1) % 3, won)
            counts[m] += not ok
    return counts
