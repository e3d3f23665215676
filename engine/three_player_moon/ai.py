"""The baseline AI of Three-Player Moon: deterministic, using only what the seat may see.

Imports the tiles and the state, never the rules module (no import cycle). See
``docs/rules/three-player-moon.md`` for the rules (RULINGS T1–T7).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from engine.three_player_moon.actions import Bid, Discard, MoonAction, NameTrump, Play
from engine.three_player_moon.outlook import OverBudget, Seen, keeping, needed, pickup_counts, play_keepers
from engine.three_player_moon.state import MoonState
from engine.three_player_moon.tiles import (
    ALL_TILES,
    MOON,
    TARGET,
    TRICKS,
    TRUMP_OPTIONS,
    TRUMP_SUIT,
    Tile,
    is_trump,
    led_suit,
    legal_plays,
    rank_in,
    suit_tiles,
    trick_winner,
)

__all__ = ["CHECK_BUDGET", "CHECK_SAMPLES", "CHECK_WIDEN", "MOON_CHANCE", "best_trump", "bid_outlook", "choose", "estimate_tricks",
           "checks_the_bid", "heuristic", "keepers", "legal_moves"]

#: Share of the possible widows with which the hand takes every trick that makes the AI shoot
#: the moon (T2, T6: a made 21 wins the game, a failed one costs 21).
MOON_CHANCE = 0.6
#: Trump choices (the best of the 7-tile hand) tried with each possible widow.
_TRUMP_CANDIDATES = 3


def _throw_value(tile: Tile, trump: str | None) -> tuple[bool, bool, int, int]:
    """Sort key of how much we want to keep a tile (low = throw first)."""
    return (is_trump(tile, trump), tile[0] == tile[1], tile[0], tile[1])


def estimate_tricks(hand: Sequence[Tile], trump: str, gone: Iterable[Tile] = ()) -> tuple[float, bool]:
    """Heuristic count of the tricks ``hand`` takes as the leader with ``trump``.

    Trumps: leading the top trump pulls (about) two opposing trumps; a trump below an opposing
    one loses. Non-trumps: a tile is a winner when every higher tile of its (higher-end) suit is
    in the hand or ``gone``; it counts 1 when the opposing trumps are drawn, else 1/2.

    Returns ``(estimate capped at 7, sure)`` where ``sure`` means every tile wins whatever the
    other hands hold (used for the moon bid).
    """
    mine = set(hand)
    gone = set(gone)
    tricks = 0.0
    sure = True
    drawn = True
    if trump != "N":
        order = suit_tiles(TRUMP_SUIT, trump)
        my = [t for t in order if t in mine]
        opp = [t for t in order if t not in mine and t not in gone]
        if opp and (not my or rank_in(my[-1], TRUMP_SUIT, trump) < rank_in(opp[0], TRUMP_SUIT, trump)
                    or len(my) < len(opp)):
            sure = False
        my_left, opp_left = list(my), list(opp)
        while my_left and opp_left:
            t = my_left.pop(0)
            if rank_in(t, TRUMP_SUIT, trump) > rank_in(opp_left[0], TRUMP_SUIT, trump):
                tricks += 1
                del opp_left[-2:]
            else:
                sure = False
                opp_left.pop(0)
                if opp_left:
                    opp_left.pop()
        tricks += len(my_left)
        drawn = not opp_left
    for t in hand:
        if is_trump(t, trump):
            continue
        suit = t[0]
        above = [u for u in suit_tiles(suit, trump) if rank_in(u, suit, trump) > rank_in(t, suit, trump)]
        if all(u in mine or u in gone for u in above):
            tricks += 1.0 if drawn else 0.5
        else:
            sure = False
    return min(float(TRICKS), tricks), sure and len(hand) >= TRICKS


def best_trump(hand: Sequence[Tile], gone: Iterable[Tile] = (), banned: Iterable[str] = ()
               ) -> tuple[str, float, bool]:
    """Best trump choice for ``hand`` (not one of ``banned``, which must leave one):
    ``(trump, estimate, that choice makes every tile sure)``. Ties go to a sure choice, then to
    more trumps, then to the first of ``TRUMP_OPTIONS``."""
    gone = tuple(gone)
    banned = frozenset(banned)
    best: tuple[float, bool, int, str] | None = None
    for trump in TRUMP_OPTIONS:
        if trump in banned:
            continue
        est, sure = estimate_tricks(hand, trump, gone)
        ntr = sum(1 for t in hand if is_trump(t, trump))
        key = (est, sure, ntr, trump)
        if best is None or key[:3] > best[:3]:
            best = key
    assert best is not None
    return best[3], best[0], best[1]


#: Positions the normal AI may search to make sure a bidder's move does not give up its bid (a
#: few tens of milliseconds; :func:`engine.three_player_moon.outlook.keeping`).
CHECK_BUDGET = 60_000
#: Deals sampled when that search runs past its budget (:func:`keepers`).
CHECK_SAMPLES = 16
#: How much further :func:`keepers` looks when its first searches learn nothing: this many times
#: its positions for a play's preferred tile when its budget did not settle it, and for a complete
#: search of the other tiles once the preferred move is shown to lose the bid in every deal; when the sampled deals show no move that keeps it, this many times
#: its sampled deals more for a discard or trumps, and for a play the deals that follow in the
#: same draw, up to this many times its sampled deals in all; for trumps, when those show none
#: either, this many times its positions for a complete search of every trump.
CHECK_WIDEN = 3


def keepers(state: MoonState, seat: int, moves: Sequence[Any], budget: int, prefer: Any = None,
            samples: int = CHECK_SAMPLES, stop: Callable[[], bool] | None = None) -> set[Any] | None:
    """The bidder's ``moves`` known to keep its bid in some deal it cannot tell from the true
    one, by :func:`engine.three_player_moon.outlook.keeping` (a complete search, every hand in
    view) within ``budget`` positions: every such move; with ``prefer`` (one of ``moves``),
    that one alone first, ``{prefer}`` as soon as one deal keeps the bid with it (while playing,
    searched again within :data:`CHECK_WIDEN` times ``budget`` positions when ``budget`` did not
    settle it), and when it loses the bid in every deal, the other moves, while playing within
    :data:`CHECK_WIDEN` times ``budget`` positions (a tile that keeps the bid in a few deals
    only is found there).

    Past those budgets, the moves those searches found to keep it before they ran out (a move
    that keeps it in one deal is no losing move), with those that keep it in one of ``samples``
    sampled deals (``outlook.play_keepers`` while playing, ``outlook.pickup_counts`` for a discard or trumps
    when the bid needs every trick, the complete search of their other moves being too long
    there: seconds; again within ``budget`` positions), drawn from a generator seeded by public
    facts; for a discard or trumps with ``prefer``, :data:`CHECK_WIDEN` times ``samples`` more
    deals when the first show no move that keeps it, and so for a play (the deals that follow
    in the same draw, up to :data:`CHECK_WIDEN` times ``samples`` in all); for trumps, when
    those deals show none either, a complete search of every trump within :data:`CHECK_WIDEN`
    times ``budget`` positions.

    Every search also ends as soon as ``stop()`` says so (a decision's deadline). ``None`` when
    nothing was learned (not the bidder, nothing asked, no move found to keep the bid, or out
    of budget); an empty set when no move keeps the bid in any deal."""
    seen: Seen = {}  # positions settled while playing, shared by the searches below
    early: set[Any] = set()  # the moves a search found to keep the bid before it ran out of budget
    if prefer is None:
        keep = keeping(state, seat, moves, budget, stop=stop, seen=seen, found=early)
    else:
        keep = keeping(state, seat, [prefer], budget, stop=stop, seen=seen)
        if keep is None and state.phase == "play" and not (stop is not None and stop()):
            # no deal found to keep it within budget: it may keep the bid in a few deals only
            keep = keeping(state, seat, [prefer], budget * CHECK_WIDEN, stop=stop, seen=seen)
        if keep is not None and not keep:  # ``prefer`` loses the bid in every deal: does another keep it?
            wide = budget * CHECK_WIDEN if state.phase == "play" else budget
            keep = keeping(state, seat, [m for m in moves if m != prefer], wide, stop=stop, seen=seen, found=early)
    if keep is not None or seat != state.bidder or state.phase not in ("discard", "trump", "play"):
        return keep
    if stop is not None and stop():
        return early or None
    rng = random.Random(f"moon-check:{state.version}:{seat}")
    if state.phase == "play":
        found = early | play_keepers(state, seat, moves, samples, rng, budget, stop, seen)
        if not found and prefer is not None and not (stop is not None and stop()):
            found = play_keepers(state, seat, moves, samples * (CHECK_WIDEN - 1), rng, budget, stop, seen)
        return found or None
    if needed(state) < TRICKS:
        return early or None
    discard = state.discard if state.phase == "trump" else None
    hand8 = state.hands[seat] if discard is None else (*state.hands[seat], discard)
    found = early
    for more in (samples, samples * CHECK_WIDEN if prefer is not None else 0):
        if not more or (stop is not None and stop()):
            break
        try:
            pick = pickup_counts(seat, hand8, more, rng, discard, budget, stop)
        except OverBudget:
            break
        found = early | ({m for m in moves if any(pick.get((m.tile, t)) for t in TRUMP_OPTIONS)} if discard is None
                         else {m for m in moves if pick.get((discard, m.trump))})
        if found:
            break
    if not found and discard is not None and prefer is not None and not (stop is not None and stop()):
        # no sampled deal kept it with any trumps: every trump searched whole, wider (a trump that
        # keeps the bid in a few deals only is found there)
        return keeping(state, seat, moves, budget * CHECK_WIDEN, stop=stop) or None
    return found or None


def checks_the_bid(state: MoonState, seat: int) -> bool:
    """Whether :func:`choose` checks ``seat``'s moves against its bid (:func:`keepers`): the
    bidder's discard, trumps and plays after the bidding. Those decisions search every deal
    of the unseen tiles, tens to hundreds of milliseconds; every other move is the heuristic's,
    microseconds."""
    return seat == state.bidder and state.phase not in ("bid", "over")


def choose(state: MoonState, seat: int, budget: int = CHECK_BUDGET, samples: int = CHECK_SAMPLES,
           stop: Callable[[], bool] | None = None) -> MoonAction:
    """The AI's action for ``seat``, the seat to act (the caller checks that): the
    :func:`heuristic`'s, except that a bidder never plays a tile, discards or names trumps so
    as to lose its bid in every deal it cannot tell from the true one while another move keeps
    it in some (:func:`keepers`: a complete search within ``budget`` positions, else ``samples``
    sampled deals, both ending early when ``stop()`` says so): it then plays the heuristic's
    choice among the moves found to keep the bid. The normal level is the defaults
    (:data:`CHECK_BUDGET`, :data:`CHECK_SAMPLES`, no ``stop``); the strong level scales them
    to its own budget."""
    act = heuristic(state, seat)
    if not checks_the_bid(state, seat):
        return act
    legal = legal_moves(state, seat)
    if len(legal) < 2:
        return act
    keep = keepers(state, seat, legal, budget, prefer=act, samples=samples, stop=stop)
    if not keep or act in keep:
        return act
    return heuristic(state, seat, frozenset(m for m in legal if m not in keep))


def legal_moves(state: MoonState, seat: int) -> tuple[MoonAction, ...]:
    """The bidder's legal moves after the bidding (T3, T5): its discards, the trump choices or
    its legal plays."""
    if state.phase == "discard":
        return tuple(Discard(t) for t in state.hands[seat])
    if state.phase == "trump":
        return tuple(NameTrump(t) for t in TRUMP_OPTIONS)
    return tuple(Play(t) for t in legal_plays(state.hands[seat], state.trick, state.trump))


def heuristic(state: MoonState, seat: int, exclude: frozenset[MoonAction] = frozenset()) -> MoonAction:
    """The AI's rules of thumb for ``seat`` (to act), never one of ``exclude`` (which must leave
    a legal move), with no search (the strong level's playouts use it).

    Bidding (:func:`bid_outlook`): the widow's expected value counted (every tile it may be),
    21 when the hand takes every trick with most widows (:data:`MOON_CHANCE`), else the expected
    tricks (4-7), a little bolder when a made bid would reach 21 (T7).
    Discard: the tile whose removal leaves the best estimate (the weakest non-trump).
    Trumps: the best estimate. Play: pull trumps with the top trump, cash sure winners,
    else lead low; when following, the two defenders play as partners: a defender does not
    overtake the other defender when the bidder cannot beat it any more (or it holds the top
    tile) unless that defender, ahead of it, may reach 21 with half the tricks left (T7), the cheapest winning tile
    otherwise, else throw the lowest tile (keeping trumps and doubles).
    """
    hand = state.hands[seat]
    if state.phase == "bid":
        return _bid(state, seat)
    if state.phase == "discard":
        best: tuple[tuple[float, bool, tuple[int, ...]], Tile] | None = None
        for tile in hand:
            if Discard(tile) in exclude:
                continue
            rest = [t for t in hand if t != tile]
            trump, est, _ = best_trump(rest, (tile,))
            key = (est, not is_trump(tile, trump), tuple(-x for x in _throw_value(tile, trump)))
            if best is None or key > best[0]:
                best = (key, tile)
        assert best is not None
        return Discard(best[1])
    if state.phase == "trump":
        gone = (state.discard,) if state.discard else ()
        banned = {a.trump for a in exclude if isinstance(a, NameTrump)}
        trump, _, _ = best_trump(hand, gone, banned)
        return NameTrump(trump)
    return Play(_play(state, seat, frozenset(a.tile for a in exclude if isinstance(a, Play))))


def bid_outlook(hand: Sequence[Tile]) -> tuple[float, float]:
    """``(expected tricks, moon chance)`` of a 7-tile ``hand`` as the bidder, averaged over the
    15 tiles the widow may be (T3: the bidder takes it, then discards one): for each widow, the
    best :func:`estimate_tricks` of the 8 tiles (capped at 7) among the trump choices that suit
    the 7 tiles best; the moon chance is the share of widows giving 7 tricks."""
    cands = sorted(TRUMP_OPTIONS, key=lambda t: -estimate_tricks(hand, t)[0])[:_TRUMP_CANDIDATES]
    unseen = [t for t in ALL_TILES if t not in hand]
    total = 0.0
    full = 0
    for w in unseen:
        h8 = (*hand, w)
        best = 0.0
        for trump in cands:
            est, sure = estimate_tricks(h8, trump)
            if sure:
                est = float(TRICKS)
            best = max(best, est)
        total += best
        full += best >= TRICKS
    return total / len(unseen), full / len(unseen)


def _bid(state: MoonState, seat: int) -> MoonAction:
    hand = state.hands[seat]
    _, _, sure = best_trump(hand)
    est, moon = bid_outlook(hand)
    if sure or moon >= MOON_CHANCE:
        return Bid(MOON)
    n = min(7, int(est + 0.25))
    if state.scores[seat] + n + 1 >= TARGET:  # one more trick would end the game: be bolder
        n = min(7, int(est + 0.6))
    if n >= 4 and n > state.bid:
        return Bid(n)
    return Bid(0)


def _play(state: MoonState, seat: int, exclude: frozenset[Tile] = frozenset()) -> Tile:
    trump = state.trump
    known_hand = state.hands[seat]
    hand = tuple(t for t in known_hand if t not in exclude)
    legal = tuple(t for t in legal_plays(known_hand, state.trick, trump) if t not in exclude)
    if len(legal) == 1:
        return legal[0]
    known = set(known_hand) | set(state.played)
    if seat == state.bidder and state.discard:
        known.add(state.discard)

    def top_of_suit(tile: Tile, suit: int) -> bool:
        r = rank_in(tile, suit, trump)
        return all(u in known for u in suit_tiles(suit, trump) if rank_in(u, suit, trump) > r)

    def throw(tiles: Sequence[Tile]) -> Tile:
        return min(tiles, key=lambda t: _throw_value(t, trump))

    if not state.trick:
        my_trumps = sorted((t for t in hand if is_trump(t, trump)), key=lambda t: -rank_in(t, TRUMP_SUIT, trump))
        trumps_out = [t for t in suit_tiles(TRUMP_SUIT, trump) if t not in known] if trump != "N" else []
        if my_trumps and trumps_out and top_of_suit(my_trumps[0], TRUMP_SUIT):
            return my_trumps[0]
        winners = [t for t in hand if not is_trump(t, trump) and top_of_suit(t, t[0])]
        if winners:
            return max(winners, key=lambda t: (t[0] == t[1], t[0], t[1]))
        if my_trumps and not trumps_out:
            return my_trumps[-1]
        non_trumps = [t for t in hand if not is_trump(t, trump)]
        return throw(non_trumps or hand)
    winning = [t for t in legal if trick_winner(state.trick + ((seat, t),), trump) == seat]
    bidder = state.bidder
    if seat != bidder and bidder is not None:
        leader_now = trick_winner(state.trick, trump)
        bidder_after = all(s != bidder for s, _ in state.trick)
        left = TRICKS - sum(state.tricks_won)
        threat = (state.scores[leader_now] > state.scores[seat]
                  and 2 * (state.scores[leader_now] + state.tricks_won[leader_now]) + left >= 2 * TARGET)
        if leader_now != bidder and not threat:  # the other defender holds the trick
            top = state.trick[[s for s, _ in state.trick].index(leader_now)][1]
            suit = TRUMP_SUIT if is_trump(top, trump) else led_suit(state.trick[0][1], trump)
            if not bidder_after or top_of_suit(top, suit):
                return throw(legal)
    if winning:
        if len(state.trick) == 1:
            safe = []
            for t in winning:
                suit = TRUMP_SUIT if is_trump(t, trump) else led_suit(state.trick[0][1], trump)
                if top_of_suit(t, suit):
                    safe.append(t)
            if safe:
                return throw(safe)
        return throw(winning)
    return throw(legal)
