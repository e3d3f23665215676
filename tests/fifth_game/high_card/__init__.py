"""High Card (``high-card``), 2–3 players: a test-only engine package shaped like a real game's.

Modules: :mod:`~tests.fifth_game.high_card.rules` (the :class:`HighCard` game and the chance
helpers), :mod:`~tests.fifth_game.high_card.state`, :mod:`~tests.fifth_game.high_card.actions`
(actions and their codes), :mod:`~tests.fifth_game.high_card.view` (typed views) and
:mod:`~tests.fifth_game.high_card.ai` (the baseline AI). Rules: ``tests/fifth_game/rules.md``.
"""

from tests.fifth_game.high_card.actions import KEEP, REDRAW, HighCardAction, Keep, Play, Redraw
from tests.fifth_game.high_card.rules import HighCard, HighCardOptions, deal, scripted_setup
from tests.fifth_game.high_card.state import CARDS, MAX_ROUNDS, HighCardState
from tests.fifth_game.high_card.view import HighCardSeatView, HighCardView, SeatLine

__all__ = [
    "CARDS",
    "KEEP",
    "MAX_ROUNDS",
    "REDRAW",
    "HighCard",
    "HighCardAction",
    "HighCardOptions",
    "HighCardSeatView",
    "HighCardState",
    "HighCardView",
    "Keep",
    "Play",
    "Redraw",
    "SeatLine",
    "deal",
    "scripted_setup",
]
