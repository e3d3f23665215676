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

    async def games(self, guild_id: int | None) -> list[str]:
        """Registry keys of the games offered here (the server's settings; outside a server, the
        bot's default games), in registry order."""
        loaded = {cog.game for cog in self.bot.cogs.values() if isinstance(cog, GameCog)}
        offered = (await self.bot.communities.community(guild_id)).games if guild_id else self.bot.settings.games
        return [key for key in GAMES if key in loaded and key in offered]

    @app_commands.command(name=_T("help", key="cmd.help.name"),
                          description=_T("What Speakeasy does and how to play", key="cmd.help.desc"))
    async def help(self, interaction: discord.Interaction) -> None:
        """The help card, privately, in the member's language."""
        games = await self.games(interaction.guild_id)
        # a game's own commands (Shop Battle's /deck) are listed where the game is offered
        hidden = {cmd.name for cog in self.bot.cogs.values() if isinstance(cog, GameCog) and cog.game not in games
                  for cmd in cog.get_app_commands()}
        commands = {cmd.name for cmd in self.bot.tree.get_commands()} - hidden
        await answer(interaction, **card_message(admin.help_block(user_t(interaction), games, commands)))


async def setup(bot: SpeakeasyBot) -> None:
    """discord.py extension entry point."""
    await bot.add_cog(HelpCog(bot))
