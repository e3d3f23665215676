"""Three-Player Moon as a cog: its lobbies and tables (the shared flow of :class:`cogs.base.GameCog`).

Rules: ``docs/rules/three-player-moon.md``. Loaded when ``ENABLED_GAMES`` includes ``three-player-moon``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from cogs.base import GameCog

if TYPE_CHECKING:
    from bot.client import SpeakeasyBot


class ThreePlayerMoonCog(GameCog):
    """Three-Player Moon tables: nothing beyond the shared lobby and table flow."""

    game = "three-player-moon"


async def setup(bot: SpeakeasyBot) -> None:
    """discord.py extension entry point."""
    await bot.add_cog(ThreePlayerMoonCog(bot))
