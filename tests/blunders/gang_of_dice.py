"""Losing moves of Gang of Dice (RULINGS G3, G5; ``docs/rules/gang-of-dice.md``).

Judged: the decisions of the roll phase (stop or reroll), where the committed dice are already
on the table and the round is won or lost whole. A commit is not judged: committing fewer dice
than it takes to win the round is a way to lose less, not a loss.

"Wins in some world" means: the turn can end on a roll that does not trigger the card and beats
every roll already stopped this round (higher score, or the same score with more dice committed:
G5; the seat rolls after every stopped player, so an equal pair of score and dice loses); the
players still to roll may all trigger or roll lower. "Loses in every world": no sequence of
faces lets it end so.

- A **stop** loses in every world when the roll triggers the card (a black card: yellow cards end
  the turn at the roll, G3) or does not beat the stopped rolls.
- A **reroll** loses in every world only when it is the last roll (two made) and no faces of the
  rerolled dice, with the kept ones, give a roll that is safe and beats the stopped rolls. An
  earlier reroll can always reach any final roll of the same number of dice: its new dice may all
  show the boss (safe whatever the card: bosses count for none, G2, and the kept dice did not
  trigger the yellow card), and the third roll may reroll every die.
- Marks and unmarks decide nothing and are never losing.

A move is reported only when the turn can still win (a safe winning stop, or some final roll of
its dice is safe and beats the stopped rolls).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from engine.gang_of_dice.actions import REROLL, STOP
from engine.gang_of_dice.cards import CARDS, counts
from engine.gang_of_dice.state import MAX_ROLLS, GangOfDiceState

__all__ = ["best_safe", "losing_moves", "threshold"]


def threshold(state: GangOfDiceState, seat: int) -> int:
    """The least score with which ``seat``'s roll beats every roll stopped so far this round
    (G5: higher score, then more dice committed; equal on both, the earlier roller wins)."""
    need = 0
    mine = state.committed[seat]
    for s in state.order:
        if s != seat and state.status[s] == "stopped":
            score = sum(state.faces[s])
            need = max(need, score if mine > state.committed[s] else score + 1)
    return need


@lru_cache(maxsize=100_000)
def best_safe(card_id: str, kept: tuple[int, ...], new: int) -> int:
    """The highest score of a roll made of ``kept`` (face counts, boss first) and ``new`` dice
    showing any faces that does not trigger card ``card_id``; -1 when every such roll triggers.

    Every card rule only grows with the counts (one more die of any value never un-triggers a
    roll), and a boss counts for none (G2), so the search fills the new dice from the five down,
    cutting a branch once it triggers or cannot beat the best found."""
    hit = CARDS[card_id].rule.hit
    base = sum(f * k for f, k in enumerate(kept))
    best = -1

    def fill(face: int, c: list[int], left: int, score: int) -> None:
        nonlocal best
        if score + face * left <= best:
            return
        if face == 0:
            best = max(best, score)  # the rest are bosses: counted for nothing, never trigger
            return
        for k in range(left, -1, -1):
            c[face] += k
            if not hit(tuple(c)):
                fill(face - 1, c, left - k, score + face * k)
            c[face] -= k

    if not hit(kept):
        fill(5, list(kept), new, base)
    return best


def losing_moves(game: Any, state: GangOfDiceState, seat: int) -> frozenset[Any]:
    """The losing stop or reroll of ``seat`` (to act) in ``state`` (see the module docstring);
    empty outside the roll phase."""
    if state.phase != "roll" or state.current != seat:
        return frozenset()
    card = state.card
    c = counts(state.faces[seat])
    need = threshold(state, seat)
    stop_wins = not card.rule.hit(c) and sum(state.faces[seat]) >= need
    n = len(state.faces[seat])
    can_win = stop_wins or best_safe(card.id, (0,) * 6, n) >= need
    if not can_win:
        return frozenset()
    out: set[Any] = set()
    if not stop_wins:
        out.add(STOP)
    marks = state.marks
    if any(marks) and state.rolls[seat] == MAX_ROLLS - 1:
        kept = tuple(x - m for x, m in zip(c, marks, strict=True))
        if best_safe(card.id, kept, sum(marks)) < need:
            out.add(REROLL)
    legal = game.legal_actions(state, seat)
    return frozenset(a for a in out if a in legal)
