"""Gang of Dice as a cog: its lobbies and tables (the shared flow of :class:`cogs.base.GameCog`).

Rules: ``docs/rules/gang-of-dice.md``. Loaded when ``ENABLED_GAMES`` includes ``gang-of-dice``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from cogs.base import GameCog

if TYPE_CHECKING:
    from bot.client import SpeakeasyBot


class GangOfDiceCog(GameCog):
    """Gang of Dice tables: nothing beyond the shared lobby and table flow."""

    game = "gang-of-dice"


async def setup(bot: SpeakeasyBot) -> None:
    """discord.py extension entry point."""
    await bot.add_cog(GangOfDiceCog(bot))
