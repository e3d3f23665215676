"""Presenters by game key (see :mod:`bot.presenters.base`)."""

from __future__ import annotations

from bot.presenters.base import Presenter, RenderContext
from bot.presenters.gang_of_dice import GangOfDicePresenter

PRESENTERS: dict[str, Presenter] = {
    p.game_key: p
    for p in (
        GangOfDicePresenter(),
    )
}

__all__ = ["PRESENTERS", "Presenter", "RenderContext"]
