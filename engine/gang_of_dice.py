"""Gang of Dice (work in progress: the full engine lands in the next commits)."""

from __future__ import annotations

from engine.core import Game, State


class GangOfDiceState(State):
    """Placeholder state."""


class GangOfDice(Game):
    """Gang of Dice, 2-4 players (placeholder)."""

    key = "gang-of-dice"
    min_players = 2
    max_players = 4
    state_model = GangOfDiceState
