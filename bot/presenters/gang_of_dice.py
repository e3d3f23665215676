"""Gang of Dice presenter (work in progress)."""

from __future__ import annotations

from bot.presenters.base import Presenter


class GangOfDicePresenter(Presenter):
    """Placeholder presenter."""

    game_key = "gang-of-dice"
