"""The baseline Gang of Dice AI (also the timeout action): :func:`choose`.

It only reads what its seat may see (the card, the table, the public rolls and its own stock;
checked by ``tests/test_gang_of_dice.py``). It commits a per-card number of dice (few for harsh
yellow cards, more for black cards it can reroll toward safety), adapted to the best score
already stopped, at most a third of its stock before round 12 (:func:`ai_commit`). After a roll it
compares stopping with a few candidate rerolls by an exact one-step lookahead (:func:`ai_plan`)
and emits one micro-action at a time: marks, then the reroll. Rules: RULINGS G1–G7,
``docs/rules/gang-of-dice.md``.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterable
from functools import cache, lru_cache
from itertools import combinations_with_replacement

from engine.gang_of_dice.actions import MARKS, REROLL, STOP, UNMARKS, Commit, GangOfDiceAction
from engine.gang_of_dice.cards import (
    CARDS,
    Card,
    CountFace,
    DistinctAtLeast,
    OddCount,
    Run,
    SameValue,
    SumAtLeast,
    counts,
)
from engine.gang_of_dice.state import FACES, MAX_ROLLS, ROUNDS, GangOfDiceState, best_seat, score_of

__all__ = ["ai_commit", "ai_plan", "best_safe", "choose", "plan_loses", "toward"]


def choose(state: GangOfDiceState, seat: int) -> GangOfDiceAction:
    """The AI's one micro-action for the acting ``seat`` (a commit, a mark/unmark, the reroll
    or stop). The caller checks that ``seat`` is to act."""
    if state.phase == "commit":
        return Commit(ai_commit(state, seat))
    plan = ai_plan(state.card.id, counts(state.faces[seat]), MAX_ROLLS - state.rolls[seat], *_context(state, seat))
    if plan is None:
        return STOP
    return toward(state, plan)


def toward(state: GangOfDiceState, plan: tuple[int, ...]) -> GangOfDiceAction:
    """The next micro-action of a reroll ``plan`` (dice to reroll per face, in ``FACES``
    order) from ``state``'s marks: unmark a face marked beyond the plan, else mark a face
    short of it, else the reroll itself (``docs/rules/gang-of-dice.md``, "A turn")."""
    for f in FACES:
        if state.marks[f] > plan[f]:
            return UNMARKS[f]
    for f in FACES:
        if state.marks[f] < plan[f]:
            return MARKS[f]
    return REROLL


# --- the AI ---------------------------------------------------------------------------------------
#
# The AI only uses what its seat can see: the card, the table, the public rolls and its own stock.
# Roll phase: a one-step lookahead. For a few candidate rerolls (the dice that make the roll
# trigger, low dice, the highest dice for sum cards…) it computes exactly (up to 5 rerolled dice;
# a fixed sample beyond) the chance that the reroll triggers and the value of the result, and
# compares with stopping now. Values: 0 when the score cannot win the round against the best
# score already stopped; otherwise the chance that the players still to roll do not beat it,
# modelled per card by a typical score.

#: Per card: the typical safe score of a good turn (scale of the "a later player beats me"
#: model) and the two dice counts the AI commits when it starts a round (it picks one of the two
#: at random, from public information only, so that it cannot be read too easily). Tuned by
#: best-response simulations of this AI against itself (3 players, first round).
_AI_TABLE: dict[str, tuple[float, tuple[int, int]]] = {
    "sum7": (4.0, (1, 2)),
    "sum10": (7.0, (2, 3)),
    "sum11": (8.5, (3, 5)),
    "sum13": (10.0, (4, 6)),
    "run2": (14.0, (6, 7)),
    "run3": (20.0, (8, 8)),
    "odd1": (3.0, (1, 1)),
    "odd2": (5.0, (1, 2)),
    "odd3": (17.0, (6, 7)),
    "diff2": (4.0, (1, 2)),
    "diff3": (12.0, (4, 5)),
    "pair": (6.5, (2, 3)),
    "five2": (17.0, (6, 7)),
    "one": (5.0, (1, 2)),
    "four_five": (2.0, (1, 1)),
    "three_four_five": (1.5, (1, 1)),
}
_AI_DEFAULT: tuple[float, tuple[int, int]] = (8.0, (2, 3))
_EXACT_LIMIT = 5
_SAMPLES = 160


@cache
def _outcomes(r: int, exact: bool = False) -> tuple[tuple[tuple[int, ...], float], ...]:
    """Distribution of the face counts of ``r`` fresh dice: exact for small ``r`` (or when
    ``exact``), else a fixed deterministic sample."""
    if r <= _EXACT_LIMIT or exact:
        out = []
        for combo in combinations_with_replacement(FACES, r):
            c = counts(combo)
            ways = math.factorial(r)
            for k in c:
                ways //= math.factorial(k)
            out.append((c, ways / 6**r))
        return tuple(out)
    rng = random.Random(f"gang-of-dice:ai-sample:{r}")
    freq: dict[tuple[int, ...], int] = {}
    for _ in range(_SAMPLES):
        c = counts(rng.randrange(6) for _ in range(r))
        freq[c] = freq.get(c, 0) + 1
    return tuple((c, k / _SAMPLES) for c, k in sorted(freq.items()))


def _context(state: GangOfDiceState, seat: int) -> tuple[int, int]:
    """``(need, later)``: the least score that beats the round's best so far, and the number of
    players still to roll after ``seat``."""
    best = best_seat(state)
    later = len(state.order) - 1 - state.order.index(seat)
    if best is None:
        return 0, later
    b = score_of(state.faces[best])
    return (b if state.committed[seat] > state.committed[best] else b + 1), later


def _utility(card_id: str, score: int, need: int, later: int) -> float:
    """Chance-like value of finishing safe with ``score``."""
    if score < need:
        return 0.0
    typical = _AI_TABLE.get(card_id, _AI_DEFAULT)[0]
    single = (score + 1) / (score + 1 + typical)
    return single**later if later else 1.0


def _leaf(card: Card, c: tuple[int, ...], rolls_left: int, need: int, later: int) -> float:
    """Value of holding counts ``c`` with ``rolls_left`` rolls still possible."""
    hit = card.rule.hit(c)
    if hit and (card.colour == "yellow" or rolls_left == 0):
        return 0.0
    u = _utility(card.id, sum(f * k for f, k in enumerate(c)), need, later)
    if hit:  # black, not final: a later reroll may still fix it
        return 0.4 * u
    return u


def _candidates(card: Card, c: tuple[int, ...]) -> set[tuple[int, ...]]:
    """Reroll candidates (marks per face) worth evaluating for counts ``c``."""
    cands: set[tuple[int, ...]] = set()

    def add(m: Iterable[int]) -> None:
        m = tuple(min(x, y) for x, y in zip(m, c, strict=True))
        if sum(m):
            cands.add(m)

    for f in FACES:  # every die of one face
        add(tuple(c[g] if g == f else 0 for g in FACES))
    for t in range(0, 4):  # low dice
        add(tuple(c[g] if g <= t else 0 for g in FACES))
    dice = sorted((f for f in FACES for _ in range(c[f])), reverse=True)
    for j in (1, 2, 3):  # the highest / lowest dice
        add(counts(dice[:j]))
        add(counts(dice[-j:]))
    rule = card.rule
    if isinstance(rule, (Run, DistinctAtLeast)):
        # keep the best-scoring set of values that does not trigger, reroll the others
        best_keep, best_val = None, -1
        for mask in range(32):
            vals = [v for v in range(1, 6) if mask >> (v - 1) & 1]
            kept = tuple(c[f] if (f == 0 or f in vals) else 0 for f in FACES)
            if rule.hit(kept):
                continue
            val = sum(f * k for f, k in enumerate(kept))
            if val > best_val:
                best_keep, best_val = kept, val
        if best_keep is not None:
            add(tuple(x - y for x, y in zip(c, best_keep, strict=True)))
            add(tuple(x - y if f > 0 else x for f, (x, y) in enumerate(zip(c, best_keep, strict=True))))
    if isinstance(rule, (OddCount, SameValue, CountFace)):
        # keep at most (n - 1) of the offending dice, highest first
        limit = rule.n - 1
        left_kept = list(c)
        offenders = [5, 3, 1] if isinstance(rule, OddCount) else (
            [rule.face] if isinstance(rule, CountFace) else [5, 4, 3, 2, 1])
        if isinstance(rule, OddCount):
            left = limit
            for f in offenders:
                keep = min(left_kept[f], left)
                left -= keep
                left_kept[f] = keep
        else:
            for f in offenders:
                left_kept[f] = min(left_kept[f], limit)
        add(tuple(x - y for x, y in zip(c, left_kept, strict=True)))
        add(tuple((x - y) + (c[0] if f == 0 else 0) for f, (x, y) in enumerate(zip(c, left_kept, strict=True))))
    return cands


@lru_cache(maxsize=100_000)
def best_safe(card_id: str, kept: tuple[int, ...], new: int) -> int:
    """The highest score of a roll that does not trigger card ``card_id``, made of the dice
    ``kept`` (face counts, boss first) and ``new`` dice showing any faces; -1 when every such roll
    triggers. Every card rule only grows with the counts and the boss counts for none (RULINGS
    G2), so the new dice are filled from the five down and a branch stops once it triggers."""
    hit = CARDS[card_id].rule.hit
    best = -1
    c = list(kept)

    def fill(face: int, left: int, score: int) -> None:
        nonlocal best
        if score + face * left <= best:
            return
        if face == 0:  # the other new dice show the boss
            best = score
            return
        for k in range(left, -1, -1):
            c[face] += k
            if not hit(tuple(c)):
                fill(face - 1, left - k, score + face * k)
            c[face] -= k

    if not hit(kept):
        fill(5, new, sum(f * k for f, k in enumerate(kept)))
    return best


def plan_loses(card_id: str, c: tuple[int, ...], rolls_left: int, need: int, plan: tuple[int, ...] | None) -> bool:
    """True when ``plan`` (marks per face to reroll, or ``None`` to stop) cannot end the turn on
    a roll that does not trigger the card and scores at least ``need``, while another choice of
    the turn still can (``c``: the face counts of the roll; ``rolls_left``: rolls still allowed).

    A stop keeps the roll (a black card is checked now, RULINGS G3). A reroll that leaves a roll
    to come can reach any roll of as many dice (its new dice may all show the boss, safe for
    every card, and the next reroll may take every die); the last reroll keeps the dice it does
    not mark."""
    n = sum(c)
    stop_ok = not CARDS[card_id].rule.hit(c) and sum(f * k for f, k in enumerate(c)) >= need
    can_win = stop_ok or (rolls_left > 0 and best_safe(card_id, (0,) * 6, n) >= need)
    if not can_win:
        return False
    if plan is None:
        return not stop_ok
    if rolls_left > 1:
        return False
    kept = tuple(x - m for x, m in zip(c, plan, strict=True))
    return best_safe(card_id, kept, sum(plan)) < need


def _plan_value(card: Card, c: tuple[int, ...], marks: tuple[int, ...], rolls_left: int, need: int, later: int,
                exact: bool = False) -> float:
    """The lookahead value of rerolling ``marks`` (the chance-like value of the roll it gives)."""
    kept = tuple(x - m for x, m in zip(c, marks, strict=True))
    value = 0.0
    for out, p in _outcomes(sum(marks), exact):
        total = tuple(k + o for k, o in zip(kept, out, strict=True))
        value += p * _leaf(card, total, rolls_left - 1, need, later)
    return value


#: Most dice whose outcomes are counted exactly when a stop would surely lose.
_RESCUE_EXACT = 12


@lru_cache(maxsize=200_000)
def ai_plan(card_id: str, c: tuple[int, ...], rolls_left: int, need: int, later: int
             ) -> tuple[int, ...] | None:
    """The AI's decision after a roll: marks per face to reroll, or ``None`` to stop.

    ``c``: face counts of the current roll; ``rolls_left``: rolls still allowed (1 or 2).
    Never a choice that surely loses the round while another can still win it
    (:func:`plan_loses`): when stopping would surely lose and no candidate looked better, it
    rerolls the candidate (or every die) with the best value counted exactly, among those that
    can still win.
    """
    card = CARDS[card_id]
    stop_value = _leaf(card, c, 0, need, later)
    best, best_value = None, stop_value + 1e-9
    if rolls_left <= 0:
        return None
    cands = sorted(_candidates(card, c))
    for marks in cands:
        value = _plan_value(card, c, marks, rolls_left, need, later)
        if value > best_value:
            best, best_value = marks, value
    if best is None and plan_loses(card_id, c, rolls_left, need, None):
        rescue = [m for m in (*cands, c) if not plan_loses(card_id, c, rolls_left, need, m)]
        if rescue:
            best = max(rescue, key=lambda m: _plan_value(card, c, m, rolls_left, need, later,
                                                         exact=sum(m) <= _RESCUE_EXACT) if sum(m) <= _RESCUE_EXACT
                       else -1.0 + (m == c))
    return best


def ai_commit(state: GangOfDiceState, seat: int) -> int:
    """How many dice the AI commits (at least 1).

    Its per-card favourite (one of two counts, picked by a generator seeded with public
    information only: round, seat and the cards shown so far); a single die when it rolls last
    and everybody before triggered (any safe roll wins); raised when an earlier player
    stopped with a score the AI can still reach with a few more dice, cut to 1 die when that
    score is out of reach; never more than a third of its stock before round 12.
    """
    stock = state.stocks[seat]
    typical, (low, high) = _AI_TABLE.get(state.card.id, _AI_DEFAULT)
    public = ".".join(state.deck[: state.round])
    n = random.Random(f"gang-of-dice:ai:{state.round}:{seat}:{public}").choice((low, high))
    need, later = _context(state, seat)
    if need == 0 and later == 0 and best_seat(state) is None:
        n = 1  # everybody before triggered: any safe roll wins, so play it safe
    elif need > 0:
        per_die = max(1.0, typical / n)
        wanted = math.ceil(need / per_die)
        rule = state.card.rule
        out_of_reach = wanted > n + 3 or (isinstance(rule, SumAtLeast) and need >= rule.n)
        n = 1 if out_of_reach else max(n, wanted)
    cap = stock if state.round >= ROUNDS else max(1, stock // 3)
    return max(1, min(n, cap))
