"""Losing moves of Three-Player Moon: the bidder's moves that give up its bid (RULINGS T3-T6;
``docs/rules/three-player-moon.md``).

Judged: the bidder's decisions while its bid is still open (not yet made, not yet beaten).

- **Plays** (leads, follows and discards onto a trick): exhaustively over every deal of the
  tiles the bidder has not seen between the two defenders that fits the hand sizes and the voids
  they have shown (T5: a player who did not follow the led suit holds none of it).
- **The widow discard and the trumps** (T3), when the bid needs all seven tricks (a moon or a
  7): over every deal of the 14 unseen tiles, every trump choice after a discard.

In one deal (one world) a move *makes* the bid when the bidder, seeing every hand, can take the
tricks it needs whatever the defenders play, and *loses* it when the defenders, seeing every
hand, can stop it whatever the bidder plays (:func:`makes`: a complete search of the rest of the
hand, the rules' own ``legal_plays`` and ``trick_winner``). A move is losing when it loses the
bid in every world while another legal move makes it in at least one.

Not judged: the defenders' moves, the bids themselves, and the discard and trumps of a bid that
may still lose a trick (its worlds are too many to search whole).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from itertools import combinations
from typing import Any

from engine.three_player_moon.actions import Discard, NameTrump, Play
from engine.three_player_moon.state import MoonState, evolve
from engine.three_player_moon.tiles import (
    ALL_TILES,
    MOON,
    TRICKS,
    TRUMP_OPTIONS,
    Tile,
    belongs,
    led_suit,
    trick_winner,
)
from tests.blunders import Undecided

__all__ = ["losing_moves", "makes", "worlds"]

Hands = tuple[tuple[Tile, ...], tuple[Tile, ...], tuple[Tile, ...]]
Trick = tuple[tuple[int, Tile], ...]


def _needed(state: MoonState) -> int:
    """Tricks the bidder must take in the hand: the bid, all seven for a moon (T6)."""
    return TRICKS if state.bid == MOON else state.bid


#: Tile index (bit ``i`` of a hand mask is ``ALL_TILES[i]``).
_INDEX = {t: i for i, t in enumerate(ALL_TILES)}


#: Positions a single judgement may visit before it gives up (:class:`Undecided`).
WORK = 400_000


class _Rules:
    """T5 for one trump choice, read from the rules' own ``belongs``/``led_suit`` and
    ``trick_winner``: which tiles follow a led tile, and who wins a trick (cached)."""

    def __init__(self, trump: str | None) -> None:
        self.trump = trump
        self.follow = [sum(1 << j for j, u in enumerate(ALL_TILES) if belongs(u, led_suit(t, trump), trump))
                       for t in ALL_TILES]
        #: ``beats[x]``: the tiles that win a trick led by tile ``x`` over it
        self.beats = [sum(1 << j for j, u in enumerate(ALL_TILES)
                          if u != t and trick_winner(((0, t), (1, u)), trump) == 1) for t in ALL_TILES]
        n = len(ALL_TILES)
        #: per tile ``j``: the leads it beats, and the leads whose suit it follows (masks)
        self.beats_leads = [sum(1 << i for i in range(n) if self.beats[i] >> j & 1) for j in range(n)]
        self.follows_leads = [sum(1 << i for i in range(n) if self.follow[i] >> j & 1) for j in range(n)]
        self._won: dict[tuple[int, int, int], int] = {}

    def masters(self, hand: int, others: int) -> int:
        """The tiles of ``hand`` (a mask) that no tile of ``others`` can ever beat when led: they
        win their trick whenever they are led, whatever the others still hold (a mask)."""
        out = 0
        for i in _bits(hand):
            if not others & self.beats[i]:
                out |= 1 << i
        return out

    def one_of_each(self, options: int, leads: int) -> int:
        """``options`` (a defender's tiles) keeping the first of each kind while the bidder
        takes every trick leading from ``leads`` (the trick's lead included): a defender's tile
        then matters only by the leads it could beat and the leads whose suit it follows (the
        defenders never lead), so two tiles alike in both play the same."""
        kinds = set()
        out = 0
        for j in _bits_up(options):
            kind = (self.beats_leads[j] & leads, self.follows_leads[j] & leads)
            if kind not in kinds:
                kinds.add(kind)
                out |= 1 << j
        return out

    def beaten(self, lead: int, hand: int) -> bool:
        """True when a player holding ``hand`` (a mask) may play a tile that beats ``lead``."""
        legal = hand & self.follow[lead] or hand
        return bool(legal & self.beats[lead])

    def winner2(self, a: int, b: int) -> int:
        """The position (0 = the leader) that holds a trick of tiles ``a``, ``b`` so far."""
        return 1 if self.beats[a] >> b & 1 else 0

    def winner(self, a: int, b: int, c: int) -> int:
        """The position (0 = the leader) that wins the trick of tiles ``a``, ``b``, ``c`` (indexes)."""
        key = (a, b, c)
        w = self._won.get(key)
        if w is None:
            w = self._won[key] = trick_winner(((0, ALL_TILES[a]), (1, ALL_TILES[b]), (2, ALL_TILES[c])), self.trump)
        return w


_RULES: dict[str | None, _Rules] = {}


def _rules(trump: str | None) -> _Rules:
    r = _RULES.get(trump)
    if r is None:
        r = _RULES[trump] = _Rules(trump)
    return r


def _mask(tiles: Sequence[Tile]) -> int:
    return sum(1 << _INDEX[t] for t in tiles)


def _bits(mask: int) -> list[int]:
    """The set bits of ``mask``, highest first."""
    out = []
    while mask:
        i = mask.bit_length() - 1
        out.append(i)
        mask ^= 1 << i
    return out


def _bits_up(mask: int) -> list[int]:
    """The set bits of ``mask``, lowest first."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


class Solver:
    """Complete searches of the rest of a hand with every hand in view (T5, T6), for one trump
    choice, one bidder and the tricks it needs; positions are remembered across calls (so the
    worlds of one judgement share what they have in common) and counted against ``work``."""

    def __init__(self, trump: str | None, bidder: int, need: int, work: int | None = None) -> None:
        self.rules = _rules(trump)
        self.bidder = bidder
        self.need = need
        self.work = WORK if work is None else work
        self.memo: dict[tuple[int, int, int, tuple[int, ...], int, int], bool] = {}

    def makes(self, hands: Sequence[Sequence[Tile]], trick: Trick, turn: int, won: int) -> bool:
        """True when the bidder, seeing every hand, can take :attr:`need` tricks of the hand
        whatever the two others play, from the position where ``turn`` is to play to ``trick``
        (``hands``: the tiles each seat holds; ``won``: the bidder's tricks so far). Raises
        :class:`Undecided` past the work limit."""
        h = (_mask(hands[0]), _mask(hands[1]), _mask(hands[2]))
        if len(trick) == 3:
            w = trick_winner(trick, self.rules.trump)
            return self._go(h, (), w, won + (w == self.bidder))
        return self._go(h, tuple(_INDEX[t] for _, t in trick), turn, won)

    def _defence(self, options: int, trick: tuple[int, ...], turn: int) -> list[int]:
        """A defender's tiles in the order they are tried: a lead from the highest; on the
        bidder's lead or behind a trick the bidder holds, the tiles that take it (lowest
        first), then the others from the lowest."""
        if not trick:
            return _bits(options)
        rules = self.rules
        if len(trick) == 1:
            takes = options & rules.beats[trick[0]] if (turn - 1) % 3 == self.bidder else 0
        else:
            holder = (turn - 2 + rules.winner2(trick[0], trick[1])) % 3
            takes = 0
            if holder == self.bidder:
                takes = sum(1 << i for i in _bits(options) if rules.winner(trick[0], trick[1], i) == 2)
        return _bits_up(takes) + _bits_up(options & ~takes)

    def _go(self, h: tuple[int, int, int], trick: tuple[int, ...], turn: int, won: int) -> bool:
        """:meth:`makes` on masks (``trick``: tile indexes)."""
        bidder = self.bidder
        if won >= self.need:
            return True
        # tricks still open to the bidder: one per tile it holds, plus this one if it has played to it
        played = 1 <= (turn - bidder) % 3 <= len(trick)
        if won + h[bidder].bit_count() + played < self.need:
            return False
        key = (h[0], h[1], h[2], trick, turn, won)
        hit = self.memo.get(key)
        if hit is not None:
            return hit
        self.work -= 1
        if self.work < 0:
            raise Undecided
        hand = h[turn]
        options = hand
        if trick:
            follow = hand & self.rules.follow[trick[0]]
            if follow:
                options = follow
        want = turn == bidder
        result = not want
        rules = self.rules
        if (not want and trick and (turn - len(trick)) % 3 == bidder
                and won + h[bidder].bit_count() + (1 <= (turn - bidder) % 3 <= len(trick)) == self.need):
            # every trick needed, this one led by the bidder (a tile's kind is read against the
            # tiles as led: on a defender's lead the bidder's tile ranks in the led suit instead)
            options = rules.one_of_each(options, h[bidder] | 1 << trick[0])
        if not trick:
            if want:  # tiles no defender can ever beat win trick after trick when led
                a, b = h[(bidder + 1) % 3], h[(bidder + 2) % 3]
                if won + rules.masters(hand, a | b).bit_count() >= self.need:
                    self.memo[key] = True
                    return True
            elif won + hand.bit_count() - rules.masters(hand, h[bidder] | h[3 - bidder - turn]).bit_count() < self.need:
                # the defender on lead holds tiles nobody can beat: it leads them one by one
                self.memo[key] = False
                return False
        if want and not trick and won + h[bidder].bit_count() == self.need:
            # every trick is needed: a lead either defender can beat at once loses
            a, b = h[(bidder + 1) % 3], h[(bidder + 2) % 3]
            options = sum(1 << i for i in _bits(options) if not rules.beaten(i, a) and not rules.beaten(i, b))
        for i in _bits(options) if want else self._defence(options, trick, turn):
            rest = hand ^ (1 << i)
            nh = (rest, h[1], h[2]) if turn == 0 else (h[0], rest, h[2]) if turn == 1 else (h[0], h[1], rest)
            if len(trick) == 2:
                w = (turn + 1 + rules.winner(trick[0], trick[1], i)) % 3
                value = self._go(nh, (), w, won + (w == bidder))
            else:
                value = self._go(nh, (*trick, i), (turn + 1) % 3, won)
            if value == want:
                result = want
                break
        self.memo[key] = result
        return result


    def spare(self, hands: Sequence[Sequence[Tile]], wanted: int) -> int:
        """For the opening lead of a hand in which the bidder holds one tile more than each
        defender (before its discard, T3): the tiles ``d`` among ``wanted`` (a mask) such that the
        bidder, leading first and never playing ``d``, takes every trick whatever the others play
        (so discarding ``d`` keeps a moon in this world), as a mask. Raises :class:`Undecided`
        past the work limit."""
        return self._spare((_mask(hands[0]), _mask(hands[1]), _mask(hands[2])), (), wanted)

    def _spare(self, h: tuple[int, int, int], trick: tuple[int, ...], wanted: int) -> int:
        bidder = self.bidder
        hand = h[bidder]
        if not hand & wanted:
            return 0  # the tile left at the end is always one of those the bidder holds now
        if not trick and hand.bit_count() == 1:
            return hand  # every trick taken; the tile left is the discard
        turn = (bidder + len(trick)) % 3  # the bidder leads every trick it keeps winning
        key = (h[0], h[1], h[2], trick, turn, -1 - wanted)
        hit = self.memo.get(key)
        if hit is not None:
            return hit  # type: ignore[return-value]
        self.work -= 1
        if self.work < 0:
            raise Undecided
        hand = h[turn]
        options = hand
        if trick:
            follow = hand & self.rules.follow[trick[0]]
            if follow:
                options = follow
        mine = turn == bidder
        result = 0 if mine else wanted
        if mine:  # a lead either defender can beat at once loses the trick
            rules, a, b = self.rules, h[(bidder + 1) % 3], h[(bidder + 2) % 3]
            losers = hand & ~rules.masters(hand, a | b)
            if losers & (losers - 1) == 0:  # at most one tile that could lose: lead the others
                result = losers & wanted if losers else hand & wanted
            if result == hand & wanted:
                self.memo[key] = result  # type: ignore[assignment]
                return result
            options = sum(1 << i for i in _bits(options) if not rules.beaten(i, a) and not rules.beaten(i, b))
        if not mine:
            options = self.rules.one_of_each(options, h[bidder] | 1 << trick[0])
        for i in _bits(options) if mine else _bits_up(options):
            rest = hand ^ (1 << i)
            nh = (rest, h[1], h[2]) if turn == 0 else (h[0], rest, h[2]) if turn == 1 else (h[0], h[1], rest)
            if len(trick) == 2:
                value = self._spare(nh, (), result if not mine else wanted & ~result) \
                    if self.rules.winner(trick[0], trick[1], i) == 0 else 0
            else:
                value = self._spare(nh, (*trick, i), result if not mine else wanted & ~result)
            if mine:
                result |= value
                if result == wanted & h[bidder]:
                    break
            else:
                result &= value
                if not result:
                    break
        self.memo[key] = result  # type: ignore[assignment]
        return result


def makes(hands: Hands, trick: Trick, turn: int, trump: str | None, bidder: int, need: int, won: int) -> bool:
    """True when ``bidder``, with every hand in view, can take ``need`` tricks of the hand
    whatever the two others play, from the position where ``turn`` is to play to ``trick``
    (:meth:`Solver.makes` without a work limit)."""
    return Solver(trump, bidder, need, work=1 << 62).makes(hands, trick, turn, won)


def _seats_played(state: MoonState) -> list[tuple[int, Tile]]:
    """``(seat, tile)`` of every tile played this hand, in order: the bidder leads the first
    trick, each trick's winner the next (T5)."""
    out: list[tuple[int, Tile]] = []
    leader = state.bidder
    assert leader is not None
    played = state.played
    for k in range(0, len(played), 3):
        trick = tuple(((leader + j) % 3, t) for j, t in enumerate(played[k:k + 3]))
        out.extend(trick)
        if len(trick) == 3:
            leader = trick_winner(trick, state.trump)
    return out


def _voids(state: MoonState) -> list[set[int]]:
    """The suits each seat has shown it lacks this hand (it did not follow the led suit, T5)."""
    out: list[set[int]] = [set(), set(), set()]
    seq = _seats_played(state)
    for k in range(0, len(seq), 3):
        trick = seq[k:k + 3]
        suit = led_suit(trick[0][1], state.trump)
        for s, t in trick[1:]:
            if not belongs(t, suit, state.trump):
                out[s].add(suit)
    return out


def worlds(state: MoonState, alike: int = 0) -> Iterator[Hands]:
    """Every deal of the tiles the bidder has not seen between the two defenders that fits their
    hand sizes and shown voids (after the pickup the bidder knows its hand, the widow, the discard
    and every played tile), as the three hands (the bidder's is its own).

    ``alike`` (a mask): tiles that play alike in either defender's hand for the question asked;
    deals that differ only in which defender holds which of them are given once."""
    bidder = state.bidder
    assert bidder is not None
    mine = state.hands[bidder]
    seen = set(mine) | set(state.played) | ({state.discard} if state.discard is not None else set())
    unseen = [t for t in ALL_TILES if t not in seen]
    a, b = (bidder + 1) % 3, (bidder + 2) % 3
    void = _voids(state) if state.phase == "play" else [set(), set(), set()]
    trump = state.trump

    def fits(tile: Tile, seat: int) -> bool:
        return not any(belongs(tile, suit, trump) for suit in void[seat])

    same = [t for t in unseen if alike >> _INDEX[t] & 1 and fits(t, a) and fits(t, b)]
    relevant = [t for t in unseen if t not in same]
    size_a = len(state.hands[a])
    for k in range(max(0, size_a - len(same)), min(size_a, len(relevant)) + 1):
        for group in combinations(relevant, k):
            rest = [t for t in relevant if t not in group]
            if all(fits(t, a) for t in group) and all(fits(t, b) for t in rest):
                hands: list[tuple[Tile, ...]] = [(), (), ()]
                fill = size_a - k
                hands[bidder], hands[a], hands[b] = mine, (*group, *same[:fill]), (*rest, *same[fill:])
                yield hands[0], hands[1], hands[2]


def _alike(rules: _Rules, leads: int) -> int:
    """The tiles that play alike in either defender's hand while the bidder takes every trick
    leading from ``leads`` (a mask): they can beat none of those leads and follow none of the
    suits they ask for, so they are only ever thrown on a trick (the defenders never lead)."""
    out = 0
    for j in range(len(ALL_TILES)):
        if not any(rules.beats[i] >> j & 1 or rules.follow[i] >> j & 1 for i in _bits(leads)):
            out |= 1 << j
    return out


def _play_losing(state: MoonState, legal: Sequence[Any], played: Any = None) -> frozenset[Any]:
    bidder = state.bidder
    assert bidder is not None
    need = _needed(state)
    won = state.tricks_won[bidder]
    if won >= need or won + len(state.hands[bidder]) < need:
        return frozenset()  # made already, or beaten whatever happens
    solver = Solver(state.trump, bidder, need)
    every = not state.trick and won + len(state.hands[bidder]) == need
    alike = _alike(solver.rules, _mask(state.hands[bidder])) if every else 0
    if played in legal:
        for hands in worlds(state, alike):
            if solver.makes(_after(hands, bidder, played.tile), (*state.trick, (bidder, played.tile)),
                            (bidder + 1) % 3, won):
                return frozenset()  # the played tile keeps the bid in this world: not losing
    good: set[Any] = set()
    for hands in worlds(state, alike):
        for act in legal:
            if act not in good and solver.makes(_after(hands, bidder, act.tile), (*state.trick, (bidder, act.tile)),
                                                (bidder + 1) % 3, won):
                good.add(act)
        if len(good) == len(legal):
            return frozenset()
    return frozenset(a for a in legal if a not in good) if good else frozenset()


def _after(hands: Hands, seat: int, tile: Tile) -> Hands:
    """``hands`` with ``tile`` taken out of ``seat``'s."""
    mine = tuple(t for t in hands[seat] if t != tile)
    return (mine if seat == 0 else hands[0], mine if seat == 1 else hands[1], mine if seat == 2 else hands[2])


#: The last pickup judged: its key (bidder, the 8 tiles it held before discarding, the tiles it
#: has not seen) and, per trump choice, the discards that keep a moon in some world.
_LAST_PICKUP: tuple[tuple[int, int, int], dict[str, int]] | None = None


def _opening(state: MoonState, bidder: int, hand8: int) -> MoonState:
    """``state`` as it was before the bidder's discard, holding the tiles of ``hand8`` (a mask)."""
    eight = [t for t in ALL_TILES if hand8 >> _INDEX[t] & 1]
    return evolve(state, phase="discard", hands=tuple(tuple(eight) if s == bidder else state.hands[s]
                                                     for s in range(3)), discard=None)


def _kept_by_trump(bidder: int, hand8: int, unseen: int, state: MoonState,
                   solvers: dict[str, Solver]) -> dict[str, int]:
    """Per trump choice, the tiles of ``hand8`` (a mask) whose discard keeps a moon in at least
    one world (remembered for the trump decision that follows the discard); ``solvers``: one
    per trump choice already used for this pickup (made as needed)."""
    global _LAST_PICKUP
    key = (bidder, hand8, unseen)
    if _LAST_PICKUP is not None and _LAST_PICKUP[0] == key:
        return _LAST_PICKUP[1]
    opening = _opening(state, bidder, hand8)
    kept: dict[str, int] = {}
    for trump in TRUMP_OPTIONS:
        solver = solvers.setdefault(trump, Solver(trump, bidder, TRICKS))
        found = 0
        for hands in worlds(opening, _alike(solver.rules, hand8)):
            found |= solver.spare(hands, hand8 & ~found)
            if found == hand8:
                break
        kept[trump] = found
    _LAST_PICKUP = (key, kept)
    return kept


def _pickup_losing(state: MoonState, legal: Sequence[Any], played: Any = None) -> frozenset[Any]:
    bidder = state.bidder
    assert bidder is not None
    if _needed(state) < TRICKS:
        return frozenset()
    hand8 = _mask(state.hands[bidder]) | (_mask((state.discard,)) if state.discard is not None else 0)
    unseen = (1 << len(ALL_TILES)) - 1 & ~hand8
    solvers: dict[str, Solver] = {}
    if played in legal and (_LAST_PICKUP is None or _LAST_PICKUP[0] != (bidder, hand8, unseen)):
        opening = _opening(state, bidder, hand8)
        bit = _mask((played.tile,) if state.phase == "discard" else (state.discard,))  # type: ignore[arg-type]
        for trump in TRUMP_OPTIONS if state.phase == "discard" else (played.trump,):
            solver = solvers.setdefault(trump, Solver(trump, bidder, TRICKS))
            if any(solver.spare(hands, bit) for hands in worlds(opening, _alike(solver.rules, hand8))):
                return frozenset()  # the played discard or trumps keep the bid in a world: not losing
    kept = _kept_by_trump(bidder, hand8, unseen, state, solvers)
    if state.phase == "discard":
        union = 0
        for found in kept.values():
            union |= found
        good = {a for a in legal if union >> _INDEX[a.tile] & 1}
    else:
        bit = _mask((state.discard,))  # type: ignore[arg-type]
        good = {a for a in legal if kept[a.trump] & bit}
    return frozenset(a for a in legal if a not in good) if good else frozenset()


def losing_moves(game: Any, state: MoonState, seat: int, played: Any = None) -> frozenset[Any]:
    """The bidder's losing plays, discard or trumps in ``state`` (see the module docstring);
    empty for a defender, during the bidding and once the bid is made or beaten.

    With ``played`` (the move a player chose), that move is judged first: when it keeps the bid
    in some world it is not losing and the set returned is empty, whatever the other moves (so
    whether ``played`` is losing is exact; whether the decision had a losing move is not)."""
    if state.phase in ("bid", "over") or seat != state.bidder or seat != state.turn:
        return frozenset()
    legal = game.legal_actions(state, seat)
    if state.phase == "play":
        return _play_losing(state, [a for a in legal if isinstance(a, Play)], played)
    if state.phase == "discard":
        return _pickup_losing(state, [a for a in legal if isinstance(a, Discard)], played)
    return _pickup_losing(state, [a for a in legal if isinstance(a, NameTrump)], played)
