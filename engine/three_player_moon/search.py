"""Three-Player Moon: the strong level (:func:`strong_action`), the hooks of the shared tree search
(:data:`HOOKS`) and the easy level (:func:`easy_action`).

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
asked before each determinization. See ``docs/rules/three-player-moon.md`` and ``docs/ai.md``.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from typing import Any

from engine.search import Hooks, outcome_rewards, softmax_rewards
from engine.three_player_moon import ai
from engine.three_player_moon.actions import Bid, MoonAction, NameTrump, Play
from engine.three_player_moon.hidden import played_by
from engine.three_player_moon.outlook import win_chance
from engine.three_player_moon.state import MoonState
from engine.three_player_moon.tiles import MOON, TARGET, TRUMP_OPTIONS, Tile, is_trump, sort_hand

__all__ = ["HOOKS", "MARGIN", "TRIES", "TRUMP_CANDIDATES", "Z", "Rollout", "candidates", "easy_action", "misfits",
           "strong_action"]

#: A move other than the normal AI's must beat it by this much mean win chance ...
MARGIN = 0.005
#: ... plus this many standard errors of the paired difference.
Z = 1.0
#: Determinizations drawn per iteration at most, to find one that :func:`misfits` nothing.
TRIES = 1
#: Trump choices searched: the normal AI's and the next best by its trick estimate.
TRUMP_CANDIDATES = 4


def _cutoff(root: MoonState, state: MoonState) -> bool:
    return state.hand_no != root.hand_no


def _evaluate(game: Any, state: MoonState) -> tuple[float, ...]:
    return softmax_rewards(state.scores, 4.0)


#: Hooks of the shared tree search (:func:`engine.search.search`) for Three-Player Moon, kept for
#: the tree mode's callers and tests; the strong level itself is :func:`strong_action`.
HOOKS = Hooks(cutoff=_cutoff, evaluate=_evaluate, epsilon=0.0, exploration=0.6, max_depth=12)


class Rollout:
    """The normal AI (``ai.choose``, same moves) with its bidding, discard and trump estimates
    cached by hand, for playouts that meet the same hands again and again (one object per
    search)."""

    __slots__ = ("_outlook", "_discard", "_trump")

    def __init__(self) -> None:
        self._outlook: dict[tuple[Tile, ...], tuple[bool, float, float]] = {}
        self._discard: dict[tuple[Tile, ...], MoonAction] = {}
        self._trump: dict[tuple[tuple[Tile, ...], Tile | None], MoonAction] = {}

    def action(self, state: MoonState, seat: int) -> MoonAction:
        """``ai.choose(state, seat)`` for the seat to act."""
        phase = state.phase
        if phase == "play":
            return ai.choose(state, seat)
        hand = state.hands[seat]
        if phase == "bid":
            return _normal_bid(state.bid, state.scores[seat], *self.outlook(hand))
        if phase == "discard":
            act = self._discard.get(hand)
            if act is None:
                act = self._discard[hand] = ai.choose(state, seat)
            return act
        key = (hand, state.discard)
        act = self._trump.get(key)
        if act is None:
            act = self._trump[key] = ai.choose(state, seat)
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
    """The strong level's move for ``seat`` (to act): the flat Monte-Carlo search of the module
    docstring over :func:`candidates`, within ``iterations`` playouts and/or until
    ``should_stop()``; the normal AI's move when nothing beats it (or no iteration ran).
    Deterministic for the same state, seat, salt and iterations (``should_stop`` ``None``);
    never reads the hidden tiles (only ``hidden_variant``). ``hooks`` is unused."""
    legal = game.legal_actions(state, seat)
    if not legal:
        raise ValueError(f"seat {seat} has no legal action now")
    base: MoonAction = ai.choose(state, seat)
    if len(legal) == 1:
        return base
    moves = candidates(game, state, seat, base)
    if len(moves) == 1:
        return base
    budget = iterations if iterations is not None else (None if should_stop is not None else 100)
    rng = random.Random(f"moon-strong:{salt}")
    policy = Rollout()
    n = len(moves)
    diff = [0.0] * n
    diff2 = [0.0] * n
    rounds = 0
    max_rounds = None if budget is None else max(2, budget // n)
    while max_rounds is None or rounds < max_rounds:
        if should_stop is not None and should_stop():
            break
        det = _determinize(game, state, seat, rng, policy)
        values = [_playout(game, game.apply(det, {seat: m}).state, state.hand_no, seat, policy) for m in moves]
        for i, v in enumerate(values):
            d = v - values[0]
            diff[i] += d
            diff2[i] += d * d
        rounds += 1
    if rounds < 2:
        return base
    best, best_score = 0, 0.0
    for i in range(1, n):
        mean = diff[i] / rounds
        var = max(0.0, diff2[i] / rounds - mean * mean)
        score = mean - MARGIN - Z * math.sqrt(var / (rounds - 1))
        if score > best_score:
            best, best_score = i, score
    return moves[best]


def easy_action(game: Any, state: MoonState, seat: int, rng: random.Random) -> MoonAction:
    """The easy level: the baseline, but a third of its bids are lowered (a pass or a lower
    legal bid) and a fifth of its plays are another legal tile. Never a
    moon bid the baseline would not make."""
    best: MoonAction = ai.choose(state, seat)
    legal = game.legal_actions(state, seat)
    if isinstance(best, Bid) and best.bid and rng.random() < 1 / 3:
        lower = [a for a in legal if isinstance(a, Bid) and a.bid < best.bid]
        return rng.choice(lower) if lower else best
    if isinstance(best, Play) and len(legal) > 1 and rng.random() < 0.2:
        return rng.choice(legal)  # type: ignore[no-any-return]
    return best

