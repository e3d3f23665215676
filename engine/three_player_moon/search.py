"""Three-Player Moon: the strong level (:func:`strong_action`), the hooks of the shared tree search
(:data:`HOOKS`) and the easy level (a beginner: :func:`easy_action`).

The strong level is a policy-improvement step over the normal AI (``engine/three_player_moon/ai.py``),
the policy the partner and the opponents actually play: determinized flat Monte-Carlo.

- Each *iteration* samples one determinization (``hidden_variant``: the tiles the seat has not
  seen re-dealt, shown voids kept, the widow unknown during the bidding) and plays *every*
  candidate move on it (common random numbers: the moves are compared on the same hidden
  tiles). With :data:`TRIES` above 1 it keeps the draw that best explains the others' bids and
  trumps as the normal AI's (:func:`misfits`); measured, that did not pay for its time, so the
  default is 1 (``docs/ai.md``).
- After the move every seat, the searcher included, plays the normal AI to the end of the hand
  (:class:`Rollout`: the same moves as ``ai.choose``, with its costly bid and trump estimates
  cached per hand).
- The end of the hand is scored by the real objective: the searcher's chance of winning the game
  (:func:`engine.three_player_moon.outlook.win_chance` from the scores and the next first
  bidder); a finished game scores its share of first place (a made moon wins at once, T6; T7).
- The normal AI's move is the default: another move is played only when its mean reward over the
  same determinizations beats the default's by more than :data:`MARGIN` plus :data:`Z` standard
  errors of the paired difference.

Budget: ``iterations`` counts playouts (one move on one determinization); ``should_stop`` is
asked before each determinization. The checks with every hand in view (the moon estimate, the
counts of a bid that needs every trick, the bidder's keep-the-bid check) search in proportion to
the iteration budget (:func:`checks`: in full at :data:`ITERATIONS`) and end when
``should_stop()`` says so. See ``docs/rules/three-player-moon.md`` and ``docs/ai.md``.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from engine.search import Hooks, outcome_rewards, softmax_rewards
from engine.three_player_moon import ai
from engine.three_player_moon.actions import Bid, Discard, MoonAction, NameTrump
from engine.three_player_moon.hidden import played_by
from engine.three_player_moon.outlook import (
    OverBudget,
    defence_counts,
    moon_chance,
    needed,
    pickup_counts,
    play_counts,
    win_chance,
)
from engine.three_player_moon.state import MoonState
from engine.three_player_moon.tiles import MOON, TARGET, TRICKS, TRUMP_OPTIONS, Tile, is_trump, sort_hand, trick_winner

__all__ = ["CHECK_BUDGET", "FULL_CHECKS", "HOOKS", "ITERATIONS", "LEAST_POSITIONS", "LEAST_SAMPLES", "MARGIN", "MOON_FLOOR", "MOON_LOOK", "MOON_SAMPLES", "TRIES", "SAMPLED_POSITIONS",
           "TRUMP_CANDIDATES", "Z", "Checks", "Rollout", "break_even", "candidates", "checks", "easy_action", "heavy_normal", "misfits", "moon_estimate", "strong_action",
           "sure_choice"]

#: A move other than the normal AI's must beat it by this much mean win chance ...
MARGIN = 0.005
#: ... plus this many standard errors of the paired difference.
Z = 1.0
#: Determinizations drawn per iteration at most, to find one that :func:`misfits` nothing.
TRIES = 1
#: Trump choices searched: the normal AI's and the next best by its trick estimate.
TRUMP_CANDIDATES = 4
#: Positions the strong level may search to drop a bidder's moves that lose its bid in every
#: deal while another keeps it (``outlook.keeping``).
CHECK_BUDGET = 100_000
#: Deals sampled for the moon estimate of a hand and for the moves of a bid that needs every trick.
MOON_SAMPLES = 32
#: Least chance against good defenders (:func:`moon_estimate`) with which the strong level bids
#: the moon, whatever the break-even.
MOON_FLOOR = 0.45
#: Hands expected to take fewer tricks than this (the normal AI's ``bid_outlook``) are not
#: considered for the moon.
MOON_LOOK = 5.5
#: The strong level's default iteration budget (:func:`engine.policies.iterations_for`), sized so
#: that a move takes well under 1 s on one idle core (p95; ``docs/ai.md``). The checks
#: above run in full from this budget; a smaller one scales them down (:func:`checks`).
ITERATIONS = 400
#: Positions of the sampled counts (:data:`MOON_SAMPLES` deals) at :data:`ITERATIONS`, when
#: scaled down (in full they have no limit but the deadline: about 0.5 s of CPU at most).
SAMPLED_POSITIONS = 400_000
#: Least positions, and least sampled deals, of a check scaled down (a few milliseconds).
LEAST_POSITIONS = 2_000
LEAST_SAMPLES = 2


@dataclass(frozen=True)
class Checks:
    """What the checks with every hand in view may search for one decision (:func:`checks`)."""

    #: positions of the bidder's keep-the-bid check (the normal AI's check of the default move
    #: searches ``min(ai.CHECK_BUDGET, positions)``)
    positions: int
    #: deals sampled for the moon estimate and for a bid that needs every trick
    samples: int
    #: deals sampled when the keep-the-bid check runs past its positions
    check_samples: int
    #: positions of the counts over sampled deals
    sampled: int
    #: the decision's deadline (``should_stop``), asked while searching
    stop: Callable[[], bool] | None = None


#: The checks in full (the previous design, no deadline).
FULL_CHECKS = Checks(CHECK_BUDGET, MOON_SAMPLES, ai.CHECK_SAMPLES, 1 << 62)


def heavy_normal(state: MoonState, seat: int) -> bool:
    """Whether the normal level's move for ``seat`` may take long (:func:`engine.policies.heavy`):
    a bidder's decision that checks its bid (:func:`ai.checks_the_bid`)."""
    return ai.checks_the_bid(state, seat)


def checks(iterations: int | None, should_stop: Callable[[], bool] | None = None) -> Checks:
    """The checks for a decision budgeted by ``iterations`` (``None``: in full) and
    ``should_stop``: in full from :data:`ITERATIONS` iterations, else positions and sampled
    deals in proportion (at least :data:`LEAST_POSITIONS` and :data:`LEAST_SAMPLES`), so that a
    tiny budget gives a fast decision; every search also ends when ``should_stop()`` says so."""
    if iterations is None or iterations >= ITERATIONS:
        return Checks(FULL_CHECKS.positions, FULL_CHECKS.samples, FULL_CHECKS.check_samples, FULL_CHECKS.sampled,
                      should_stop)
    share = max(0, iterations) / ITERATIONS
    return Checks(positions=max(LEAST_POSITIONS, round(CHECK_BUDGET * share)),
                  samples=max(LEAST_SAMPLES, round(MOON_SAMPLES * share)),
                  check_samples=max(LEAST_SAMPLES, round(ai.CHECK_SAMPLES * share)),
                  sampled=max(LEAST_POSITIONS, round(SAMPLED_POSITIONS * share)), stop=should_stop)


def _cutoff(root: MoonState, state: MoonState) -> bool:
    return state.hand_no != root.hand_no


def _evaluate(game: Any, state: MoonState) -> tuple[float, ...]:
    return softmax_rewards(state.scores, 4.0)


def _rollout(game: Any, state: MoonState, seat: int, rng: random.Random) -> MoonAction:
    return ai.heuristic(state, seat)


def _prune(state: MoonState, seat: int, moves: Sequence[Any], limits: Checks = FULL_CHECKS) -> list[Any]:
    """``moves`` without a bidder's moves that lose its bid in every deal while another keeps it
    in some (``ai.keepers``: a complete search within ``limits.positions`` positions, in full
    :data:`CHECK_BUDGET`, else sampled deals; all of them when nothing was learned)."""
    keep = ai.keepers(state, seat, moves, limits.positions, samples=limits.check_samples, stop=limits.stop)
    return [m for m in moves if m in keep] if keep else list(moves)


#: Hooks of the shared tree search (:func:`engine.search.search`) for Three-Player Moon, kept for
#: the tree mode's callers and tests (playouts: the normal AI's rules of thumb,
#: ``ai.heuristic``); the strong level itself is :func:`strong_action`.
HOOKS = Hooks(rollout=_rollout, cutoff=_cutoff, evaluate=_evaluate, prune=lambda g, s, seat, moves: _prune(s, seat, moves),
              epsilon=0.0, exploration=0.6, max_depth=12)


class Rollout:
    """The normal AI's rules of thumb (``ai.heuristic``, same moves) with its bidding, discard and
    trump estimates cached by hand, for playouts that meet the same hands again and again (one
    object per search)."""

    __slots__ = ("_outlook", "_discard", "_trump")

    def __init__(self) -> None:
        self._outlook: dict[tuple[Tile, ...], tuple[bool, float, float]] = {}
        self._discard: dict[tuple[Tile, ...], MoonAction] = {}
        self._trump: dict[tuple[tuple[Tile, ...], Tile | None], MoonAction] = {}

    def action(self, state: MoonState, seat: int) -> MoonAction:
        """``ai.heuristic(state, seat)`` for the seat to act (the normal AI's rules of thumb,
        without its check of the bidder's moves)."""
        phase = state.phase
        if phase == "play":
            return ai.heuristic(state, seat)
        hand = state.hands[seat]
        if phase == "bid":
            return _normal_bid(state.bid, state.scores[seat], *self.outlook(hand))
        if phase == "discard":
            act = self._discard.get(hand)
            if act is None:
                act = self._discard[hand] = ai.heuristic(state, seat)
            return act
        key = (hand, state.discard)
        act = self._trump.get(key)
        if act is None:
            act = self._trump[key] = ai.heuristic(state, seat)
        return act


    def outlook(self, hand: tuple[Tile, ...]) -> tuple[bool, float, float]:
        """``(every tile sure, expected tricks, moon chance)`` of a 7-tile hand (cached)."""
        info = self._outlook.get(hand)
        if info is None:
            _, _, sure = ai.best_trump(hand)
            est, moon = ai.bid_outlook(hand)
            info = self._outlook[hand] = (sure, est, moon)
        return info


def _normal_bid(standing: int, score: int, sure: bool, est: float, moon: float) -> Bid:
    """``ai._bid`` over the ``standing`` bid, for a seat with ``score`` points, from the two
    estimates of its hand (the same rule, T2, T6, T7)."""
    if sure or moon >= ai.MOON_CHANCE:
        return Bid(MOON)
    n = min(7, int(est + 0.25))
    if score + n + 1 >= TARGET:
        n = min(7, int(est + 0.6))
    if n >= 4 and n > standing:
        return Bid(n)
    return Bid(0)


def _dealt_hand(det: MoonState, s: int) -> tuple[Tile, ...]:
    """The 7 tiles ``s`` was dealt this hand in the determinization ``det``."""
    if det.phase == "bid" or det.bidder is None:
        return det.hands[s]
    tiles = list(det.hands[s]) + [t for p, t in played_by(det) if p == s]
    if s == det.bidder:
        if det.discard is not None:
            tiles.append(det.discard)
        if det.widow is not None and det.widow in tiles:
            tiles.remove(det.widow)
    return sort_hand(tiles)


def misfits(det: MoonState, seat: int, policy: Rollout) -> int:
    """How many public choices of the other seats the normal AI would not have made with their
    tiles in the determinization ``det``: each bid (T2) and the bidder's trumps (T3). 0 means
    ``det`` explains what ``seat`` saw as the normal AI's play."""
    miss = 0
    standing = 0
    for s, b in det.bids:
        if s != seat:
            sure, est, moon = policy.outlook(_dealt_hand(det, s))
            if _normal_bid(standing, det.scores[s], sure, est, moon).bid != b:
                miss += 1
        standing = max(standing, b)
    bidder = det.bidder
    if det.trump is not None and bidder is not None and bidder != seat and det.discard is not None:
        hand = tuple(t for t in _dealt_hand(det, bidder) if t != det.discard)
        if det.widow is not None and det.widow != det.discard:
            hand = (*hand, det.widow)
        if ai.best_trump(hand, (det.discard,))[0] != det.trump:
            miss += 1
    return miss


def candidates(game: Any, state: MoonState, seat: int, base: MoonAction) -> list[MoonAction]:
    """The moves the strong level compares, ``base`` (the normal AI's) first: every legal bid,
    discard and tile; for trumps, ``base`` and the best others by the normal AI's trick estimate
    (:data:`TRUMP_CANDIDATES` in all)."""
    legal = list(game.legal_actions(state, seat))
    if state.phase == "trump":
        gone = (state.discard,) if state.discard else ()
        hand = state.hands[seat]

        def est(t: str) -> tuple[float, int]:
            return -ai.estimate_tricks(hand, t, gone)[0], -sum(1 for x in hand if is_trump(x, t))

        ranked = sorted(TRUMP_OPTIONS, key=est)
        legal = [NameTrump(t) for t in ranked[:TRUMP_CANDIDATES]]
    return [base, *(a for a in legal if a != base)]


def _value(game: Any, state: MoonState, seat: int) -> float:
    """The win chance of ``seat`` after a hand (or the share of first place at the end)."""
    out = game.outcome(state)
    if out is not None:
        return outcome_rewards(out)[seat]
    return win_chance(state.scores, state.first_bidder)[seat]


def _playout(game: Any, state: MoonState, hand_no: int, seat: int, policy: Rollout) -> float:
    """Normal AI for every seat to the end of hand ``hand_no``; the win chance of ``seat``."""
    while state.hand_no == hand_no and state.phase != "over":
        turn = state.turn
        state = game.apply(state, {turn: policy.action(state, turn)}).state
    return _value(game, state, seat)


def _determinize(game: Any, state: MoonState, seat: int, rng: random.Random, policy: Rollout) -> MoonState:
    """A determinization that the others' bids and trumps fit (:func:`misfits`), the best of
    :data:`TRIES` ``hidden_variant`` draws."""
    best: MoonState | None = None
    fewest = 1 << 30
    for _ in range(TRIES):
        det: MoonState = game.hidden_variant(state, seat, rng.getrandbits(48))
        miss = misfits(det, seat, policy) if TRIES > 1 else 0
        if miss < fewest:
            best, fewest = det, miss
            if not miss:
                break
    assert best is not None
    return best


def strong_action(game: Any, state: MoonState, seat: int, *, hooks: Hooks | None = None, salt: int = 0,
                  iterations: int | None = None, should_stop: Callable[[], bool] | None = None) -> MoonAction:
    """The strong level's move for ``seat`` (to act), never reading the hidden tiles:

    - bidding: the flat Monte-Carlo search of the module docstring over every bid but the moon;
      then the moon instead when :func:`moon_estimate` (its chance against good defenders) is at
      least :data:`MOON_FLOOR` and above the break-even against the best other bid
      (:func:`break_even`);
    - against a bid that needs every trick left (a moon, or no trick to spare): the bidder's
      discard, trumps and tiles that keep it, a defender's tiles that stop it, in the most deals
      with every hand in view (:func:`sure_choice`);
    - otherwise the flat search over :func:`candidates`, a bidder's moves that lose its bid in
      every deal while another keeps it in some being dropped first (``ai.keepers``,
      :data:`CHECK_BUDGET` positions).

    Those checks (and the normal AI's own, for the default move) search as much as
    :func:`checks` allows for ``iterations`` and stop with ``should_stop``.

    ``iterations`` counts playouts and/or ``should_stop()`` ends the search; the normal AI's move
    when nothing beats it (or no iteration ran). Deterministic for the same state, seat, salt and
    iterations (``should_stop`` ``None``). ``hooks`` is unused."""
    legal = game.legal_actions(state, seat)
    if not legal:
        raise ValueError(f"seat {seat} has no legal action now")
    limits = checks(iterations, should_stop)
    base: MoonAction = ai.choose(state, seat, min(ai.CHECK_BUDGET, limits.positions), limits.check_samples,
                                 limits.stop)
    if len(legal) == 1:
        return base
    rng = random.Random(f"moon-strong:{salt}")
    budget = iterations if iterations is not None else (None if should_stop is not None else 100)
    if state.phase == "bid":
        return _strong_bid(game, state, seat, base, rng, budget, should_stop, limits)
    sure = sure_choice(game, state, seat, legal, base, random.Random(f"moon-sure:{salt}:{state.version}"), limits)
    if sure is not None:
        return sure
    moves = candidates(game, state, seat, base)
    if seat == state.bidder:
        kept = _prune(state, seat, moves, limits)
        if len(kept) < len(moves):
            if base not in kept:
                base = ai.heuristic(state, seat, frozenset(m for m in legal if m not in kept))
            moves = [base, *(m for m in kept if m != base)]
    if len(moves) == 1:
        return moves[0]
    return _flat(game, state, seat, moves, rng, budget, should_stop)[0]


def _flat(game: Any, state: MoonState, seat: int, moves: list[MoonAction], rng: random.Random, budget: int | None,
          should_stop: Callable[[], bool] | None) -> tuple[MoonAction, float | None]:
    """The flat search over ``moves`` (``moves[0]`` the default): the move played and its mean
    playout value (``None`` when fewer than two determinizations were played)."""
    policy = Rollout()
    n = len(moves)
    diff = [0.0] * n
    diff2 = [0.0] * n
    total = 0.0
    rounds = 0
    max_rounds = None if budget is None else max(2, budget // n)
    while max_rounds is None or rounds < max_rounds:
        if should_stop is not None and should_stop():
            break
        det = _determinize(game, state, seat, rng, policy)
        values = [_playout(game, game.apply(det, {seat: m}).state, state.hand_no, seat, policy) for m in moves]
        total += values[0]
        for i, v in enumerate(values):
            d = v - values[0]
            diff[i] += d
            diff2[i] += d * d
        rounds += 1
    if rounds < 2:
        return moves[0], None
    best, best_score = 0, 0.0
    for i in range(1, n):
        mean = diff[i] / rounds
        var = max(0.0, diff2[i] / rounds - mean * mean)
        score = mean - MARGIN - Z * math.sqrt(var / (rounds - 1))
        if score > best_score:
            best, best_score = i, score
    return moves[best], (total + diff[best]) / rounds


def moon_estimate(state: MoonState, seat: int, rng: random.Random, limits: Checks = FULL_CHECKS) -> float:
    """The chance that ``seat``'s hand makes a moon against good defenders: the share of
    ``limits.samples`` (in full :data:`MOON_SAMPLES`) deals in which it does with every hand in
    view (``outlook.moon_chance``); 0 for a hand whose expected tricks (the normal AI's
    ``bid_outlook``) are below :data:`MOON_LOOK`, and when the search runs past
    ``limits.sampled`` positions or its deadline (no moon on a guess)."""
    hand = state.hands[seat]
    if ai.bid_outlook(hand)[0] < MOON_LOOK:
        return 0.0
    try:
        return moon_chance(hand, limits.samples, rng, limits.sampled, limits.stop)
    except OverBudget:
        return 0.0


def break_even(state: MoonState, seat: int, other: float) -> float:
    """The chance of making a moon at which bidding it is worth ``other`` (the win chance of the
    best other bid): a made moon wins the game (T6), a failed one costs 21 points (the two others
    counted one trick each) before the next hand (T2)."""
    scores = tuple(x - MOON if s == seat else x + 1 for s, x in enumerate(state.scores))
    failed = win_chance(scores, (state.first_bidder + 1) % 3)[seat]
    return max(0.0, (other - failed) / (1.0 - failed))


def _strong_bid(game: Any, state: MoonState, seat: int, base: MoonAction, rng: random.Random,
                budget: int | None, should_stop: Callable[[], bool] | None, limits: Checks = FULL_CHECKS
                ) -> MoonAction:
    """The strong level's bid (see :func:`strong_action`)."""
    chance = moon_estimate(state, seat, random.Random(f"moon-bid:{rng.random()}"), limits)
    hand = state.hands[seat]
    if isinstance(base, Bid) and base.bid == MOON:
        sure, est, _ = Rollout().outlook(hand)
        base = _normal_bid(state.bid, state.scores[seat], False, est, 0.0)
    legal = [a for a in game.legal_actions(state, seat) if not (isinstance(a, Bid) and a.bid == MOON)]
    moves = [base, *(a for a in legal if a != base)]
    best, value = _flat(game, state, seat, moves, rng, budget, should_stop) if len(moves) > 1 else (base, None)
    if value is None:
        value = win_chance(state.scores, state.first_bidder)[seat]
    if chance >= MOON_FLOOR and chance > break_even(state, seat, value):
        return Bid(MOON)
    return best


def sure_choice(game: Any, state: MoonState, seat: int, legal: Sequence[MoonAction], base: MoonAction,
                rng: random.Random, limits: Checks = FULL_CHECKS) -> MoonAction | None:
    """Against an open bid that needs every trick left (a moon, or no trick to spare), every
    hand in view on ``limits.samples`` (in full :data:`MOON_SAMPLES`) deals drawn with ``rng``
    among those ``seat`` cannot tell from the true one:

    - the bidder's discard (then trumps) or tile that keeps the bid in the most deals
      (``outlook.pickup_counts``, ``outlook.play_counts``);
    - a defender's tile after which the defenders stop it in the most deals
      (``outlook.defence_counts`` on ``hidden_variant`` draws).

    Ties go to ``base`` (the normal AI's move), then to the legal order. ``None`` when no bid
    needs every trick left, no move counts in any sampled deal, or the counts run past
    ``limits.sampled`` positions or the deadline (``limits.stop``)."""
    bidder = state.bidder
    if bidder is None or state.phase not in ("discard", "trump", "play"):
        return None
    need = needed(state)
    won = state.tricks_won[bidder]
    left = len(state.hands[bidder]) + (1 if any(s == bidder for s, _ in state.trick) else 0) \
        if state.phase == "play" else TRICKS
    if won >= need or won + left != need:
        return None
    order = [base, *(m for m in legal if m != base)]
    try:
        return _sure(game, state, seat, order, rng, limits)
    except OverBudget:
        return None


def _sure(game: Any, state: MoonState, seat: int, order: list[MoonAction], rng: random.Random,
          limits: Checks) -> MoonAction | None:
    """:func:`sure_choice` once it applies; raises :class:`OverBudget`."""
    n, budget, stop = limits.samples, limits.sampled, limits.stop
    if seat != state.bidder:
        if state.phase != "play":
            return None
        seen = [game.hidden_variant(state, seat, rng.getrandbits(48)) for _ in range(n)]
        counts = defence_counts(state, seat, order, seen, budget, stop)
        best = max(order, key=lambda m: counts[m])
        return best if counts[best] else None
    if state.phase == "play":
        counts = play_counts(state, seat, order, n, rng, budget, stop)
        best = max(order, key=lambda m: counts[m])
        return best if counts[best] else None
    value: dict[MoonAction, int]
    if state.phase == "discard":
        pick = pickup_counts(seat, state.hands[seat], n, rng, budget=budget, stop=stop)
        value = {m: max((pick.get((m.tile, t), 0) for t in TRUMP_OPTIONS), default=0)
                 for m in order if isinstance(m, Discard)}
    else:
        assert state.discard is not None
        pick = pickup_counts(seat, (*state.hands[seat], state.discard), n, rng, state.discard, budget, stop)
        value = {m: pick.get((state.discard, m.trump), 0) for m in order if isinstance(m, NameTrump)}
    best = max(value, key=lambda m: value[m])
    return best if value[best] else None


def _easy_trump(hand: Sequence[Tile]) -> str:
    """The easy level's trumps: the number its tiles show most (ties to the higher number)."""
    shows = [sum(1 for t in hand if n in t) for n in range(7)]
    return str(max(range(7), key=lambda n: (shows[n], n)))


def easy_action(game: Any, state: MoonState, seat: int, rng: random.Random) -> MoonAction:
    """The easy level, a beginner's habits (``rng`` is not used), never the moon:

    - bids the tiles of the number it holds most plus its other doubles (4 to 7; T2), when that
      beats the standing bid, else passes;
    - discards its lowest tile that is not of that number (T3) and names that number trumps;
    - leads its highest tile (trumps first); follows with its highest tile when that takes the
      trick, else with its lowest (T5), whoever holds the trick.
    """
    hand = state.hands[seat]
    if state.phase == "bid":
        trump = _easy_trump(hand)
        n = sum(1 for t in hand if is_trump(t, trump)) + sum(1 for t in hand if t[0] == t[1] and not is_trump(t, trump))
        n = min(7, n)
        return Bid(n) if n >= 4 and n > state.bid else Bid(0)
    if state.phase == "discard":
        trump = _easy_trump(hand)
        others = [t for t in hand if not is_trump(t, trump)] or list(hand)
        return Discard(min(others, key=lambda t: (t[0] + t[1], t)))
    if state.phase == "trump":
        return NameTrump(_easy_trump(hand))
    legal = game.legal_actions(state, seat)
    named = state.trump

    def height(a: MoonAction) -> tuple[bool, int, int]:
        t = a.tile  # type: ignore[union-attr]
        return (is_trump(t, named), t[0], t[1])

    if not state.trick:
        return max(legal, key=height)  # type: ignore[no-any-return]
    top = max(legal, key=height)
    if trick_winner((*state.trick, (seat, top.tile)), named) == seat:
        return top  # type: ignore[no-any-return]
    return min(legal, key=height)  # type: ignore[no-any-return]
