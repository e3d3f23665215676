"""Presenters by game key (see :mod:`bot.presenters.base`)."""

from __future__ import annotations

from bot.presenters.base import Presenter, RenderContext
from bot.presenters.gang_of_dice import GangOfDicePresenter
from bot.presenters.moonshine import MoonshinePresenter
from bot.presenters.shop_battle import ShopBattlePresenter
from bot.presenters.three_player_moon import ThreePlayerMoonPresenter

PRESENTERS: dict[str, Presenter] = {
    p.game_key: p
    for p in (
        GangOfDicePresenter(),
        ThreePlayerMoonPresenter(),
        ShopBattlePresenter(),
        MoonshinePresenter(),
    )
}

__all__ = ["PRESENTERS", "Presenter", "RenderContext"]
