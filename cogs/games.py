"""The game cogs: one :class:`cogs.base.GameCog` per registered game (always every game, in
registry order: each server chooses the games it offers, ``/settings``), named after the game's key; a game whose spec names a cog class (Shop Battle's
``/deck``) gets an instance of that class (:meth:`GameCog.for_game`).

Loaded before the shared extensions: the lobby (``/play``) lists the game cogs loaded before it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from bot.games import GAMES
from cogs.base import GameCog

if TYPE_CHECKING:
    from bot.client import SpeakeasyBot


async def setup(bot: SpeakeasyBot) -> None:
    """discord.py extension entry point: add every game's cog."""
    for key in GAMES:
        await bot.add_cog(GameCog.for_game(bot, key))


async def teardown(bot: SpeakeasyBot) -> None:
    """discord.py extension exit point: remove the game cogs (their class is not this module's,
    so discord.py would not)."""
    for name, cog in list(bot.cogs.items()):
        if isinstance(cog, GameCog):
            await bot.remove_cog(name)
