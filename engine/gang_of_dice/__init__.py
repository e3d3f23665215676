"""Gang of Dice (``gang-of-dice``), 2–4 players: the engine package.

Modules: :mod:`~engine.gang_of_dice.rules` (the :class:`GangOfDice` game and the chance helpers
for tests), :mod:`~engine.gang_of_dice.state`, :mod:`~engine.gang_of_dice.actions` (actions and
their codes), :mod:`~engine.gang_of_dice.view` (typed views), :mod:`~engine.gang_of_dice.cards`
(the 16 warning cards, data in ``data/cards.json``) and :mod:`~engine.gang_of_dice.ai` (the
baseline AI). Rules: RULINGS G1–G7, ``docs/rules/gang-of-dice.md``.
"""

from engine.gang_of_dice.actions import Commit, GangOfDiceAction, Mark, Reroll, Stop, Unmark
from engine.gang_of_dice.cards import CARDS, Card, CardSet, card_triggers
from engine.gang_of_dice.rules import GangOfDice, apply_with_faces, roll_faces, round_order, scripted_setup
from engine.gang_of_dice.state import (
    BONUS_DICE,
    BOSS,
    FACES,
    MAX_ROLLS,
    ROUNDS,
    GangOfDiceState,
    score_of,
    starting_stock,
)
from engine.gang_of_dice.view import BestScore, GangOfDiceSeatView, GangOfDiceView, OwnStock, SeatInfo

__all__ = [
    "BONUS_DICE",
    "BOSS",
    "CARDS",
    "FACES",
    "MAX_ROLLS",
    "ROUNDS",
    "BestScore",
    "Card",
    "CardSet",
    "Commit",
    "GangOfDice",
    "GangOfDiceAction",
    "GangOfDiceSeatView",
    "GangOfDiceState",
    "GangOfDiceView",
    "Mark",
    "OwnStock",
    "Reroll",
    "SeatInfo",
    "Stop",
    "Unmark",
    "apply_with_faces",
    "card_triggers",
    "roll_faces",
    "round_order",
    "scripted_setup",
    "score_of",
    "starting_stock",
]
