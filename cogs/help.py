"""``/help``: what Speakeasy does, the games of this deployment, how to start a table, the
commands; in the member's language, privately."""

from __future__ import annotations

from typing import TYPE_CHECKING

import discord
from discord import app_commands
from discord.app_commands import locale_str as _T
from discord.ext import commands

from bot import admin
from bot.games import GAMES
from cogs.base import GameCog, answer, user_t
from cogs.layout import card_message

if TYPE_CHECKING:
    from bot.client import SpeakeasyBot


class HelpCog(commands.Cog):
    """``/help``."""

    def __init__(self, bot: SpeakeasyBot) -> None:
        self.bot = bot

    def games(self) -> list[str]:
        """Registry keys of the loaded game cogs, in registry order."""
        loaded = {cog.game for cog in self.bot.cogs.values() if isinstance(cog, GameCog)}
        return [key for key in GAMES if key in loaded]

    @app_commands.command(name=_T("help", key="cmd.help.name"),
                          description=_T("What Speakeasy does and how to play", key="cmd.help.desc"))
    async def help(self, interaction: discord.Interaction) -> None:
        """The help card, privately, in the member's language."""
        commands = {cmd.name for cmd in self.bot.tree.get_commands()}
        await answer(interaction, **card_message(admin.help_block(user_t(interaction), self.games(), commands)))


async def setup(bot: SpeakeasyBot) -> None:
    """discord.py extension entry point."""
    await bot.add_cog(HelpCog(bot))
