"""The Gang of Dice state (a frozen slotted dataclass) and the pure facts read from it.

Rules: RULINGS G1–G7 and ``docs/rules/gang-of-dice.md``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from engine.core import State
from engine.gang_of_dice.cards import CARDS, ROUNDS, Card

__all__ = [
    "BONUS_DICE",
    "BOSS",
    "FACES",
    "MAX_ROLLS",
    "NO_MARKS",
    "ROUNDS",
    "GangOfDiceState",
    "Phase",
    "Status",
    "best_seat",
    "score_of",
    "starting_stock",
]

#: The boss face (worth 0, not a value: G2).
BOSS = 0
#: Every face of a die, boss first.
FACES: tuple[int, ...] = (0, 1, 2, 3, 4, 5)
#: Bonus dice put on the table at the start of these rounds (G6).
BONUS_DICE: dict[int, int] = {10: 3, 11: 6, 12: 9}
#: Rolls a player may make per round (G3: up to three whatever the colour).
MAX_ROLLS = 3
#: Marks of a seat that marked nothing.
NO_MARKS: tuple[int, ...] = (0, 0, 0, 0, 0, 0)

#: A seat's situation in the round; ``out`` = eliminated (G7).
Status = Literal["waiting", "rolling", "stopped", "triggered", "out"]
#: ``commit`` (choose n), ``roll`` (marks / reroll / stop) or ``over``.
Phase = Literal["commit", "roll", "over"]


def starting_stock(players: int) -> int:
    """Dice per player at set-up: 48 for 2–3 players, 36 for 4 (G1).

    >>> starting_stock(3), starting_stock(4)
    (48, 36)
    """
    return 48 if players <= 3 else 36


def score_of(faces: Iterable[int]) -> int:
    """Score of a roll: the sum of its faces, the boss worth 0 (G5)."""
    return sum(faces)


@dataclass(frozen=True, slots=True, kw_only=True)
class GangOfDiceState(State):
    """A Gang of Dice game.

    Attributes (per-seat tuples are indexed by seat):
        deck: the 16 card ids in draw order; round ``r`` shows ``deck[r-1]`` (the rest is hidden).
        round: 1..12.
        first: the first seat of round 1.
        order: the seats acting this round, in order (live seats only); ``order[0]`` is the
            round's first player (G4).
        turn: index in ``order`` of the seat to act.
        phase: ``commit``, ``roll`` or ``over``.
        stocks: dice behind each screen (private, G1).
        committed: dice committed this round.
        faces: the current roll of each seat this round (sorted).
        rolls: rolls made this round (0–3).
        status: ``waiting`` / ``rolling`` / ``stopped`` / ``triggered`` / ``out`` (eliminated).
        marks: dice of the acting seat marked for reroll, per face (index = face).
        table: every die on the table now (carried over + bonus + this round's commits); 0 once
            a round's winner took them or they left the game.
        carried: dice carried over to this round because everybody triggered the round before.
        bonus: bonus dice put on the table this round.
        bonus_total: every bonus die put in so far.
        removed: dice that left the game (all triggered in round 12).
    """

    deck: tuple[str, ...]
    round: int = 1
    first: int
    order: tuple[int, ...]
    turn: int = 0
    phase: Phase = "commit"
    stocks: tuple[int, ...]
    committed: tuple[int, ...]
    faces: tuple[tuple[int, ...], ...]
    rolls: tuple[int, ...]
    status: tuple[Status, ...]
    marks: tuple[int, ...] = NO_MARKS
    table: int = 0
    carried: int = 0
    bonus: int = 0
    bonus_total: int = 0
    removed: int = 0

    @property
    def card(self) -> Card:
        """This round's warning card."""
        return CARDS[self.deck[self.round - 1]]

    @property
    def current(self) -> int | None:
        """The seat to act, or ``None`` when the game is over."""
        return None if self.phase == "over" else self.order[self.turn]


def best_seat(state: GangOfDiceState) -> int | None:
    """The seat winning the round so far among stopped players, or ``None``.

    Tie-breaks (G5): higher score, then more dice committed this round, then the earlier roller.
    """
    best: int | None = None
    best_key: tuple[int, int] = (-1, -1)
    for s in state.order:  # earlier rollers first: only a strictly better key replaces them
        if state.status[s] == "stopped":
            key = (score_of(state.faces[s]), state.committed[s])
            if key > best_key:
                best, best_key = s, key
    return best
