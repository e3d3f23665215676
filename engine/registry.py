"""The registry of games: ``GAMES[key]`` is the stateless :class:`engine.core.Game` object.

Keys are stable (stored in the database and in custom_ids): ``gang-of-dice``, ``moonshine``,
``three-player-moon``, ``shop-battle``.
"""

from __future__ import annotations

from typing import Any

from engine.core import Game
from engine.gang_of_dice import GangOfDice
from engine.moonshine import Moonshine
from engine.shop_battle import ShopBattle
from engine.three_player_moon import ThreePlayerMoon

GAMES: dict[str, Game[Any, Any, Any]] = {
    GangOfDice.key: GangOfDice(),
    ThreePlayerMoon.key: ThreePlayerMoon(),
    ShopBattle.key: ShopBattle(),
    Moonshine.key: Moonshine(),
}
