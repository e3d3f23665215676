"""High Card as a cog: its lobbies and tables (the shared flow of :class:`cogs.base.GameCog`).

Rules: ``tests/fifth_game/rules.md``. A real game's cog is ``cogs/<module>.py``; this one is
loaded as the extension ``tests.fifth_game.cog`` by :func:`tests.fifth_game.install`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from cogs.base import GameCog

if TYPE_CHECKING:
    from bot.client import SpeakeasyBot


class HighCardCog(GameCog):
    """High Card tables: nothing beyond the shared lobby and table flow."""

    game = "high-card"


async def setup(bot: SpeakeasyBot) -> None:
    """discord.py extension entry point."""
    await bot.add_cog(HighCardCog(bot))
