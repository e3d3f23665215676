"""Moonshine as a cog: its lobbies and tables (the shared flow of :class:`cogs.base.GameCog`).

Rules: ``docs/rules/moonshine.md``. Loaded when ``ENABLED_GAMES`` includes ``moonshine``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from cogs.base import GameCog

if TYPE_CHECKING:
    from bot.client import SpeakeasyBot


class MoonshineCog(GameCog):
    """Moonshine tables: nothing beyond the shared lobby and table flow."""

    game = "moonshine"


async def setup(bot: SpeakeasyBot) -> None:
    """discord.py extension entry point."""
    await bot.add_cog(MoonshineCog(bot))
