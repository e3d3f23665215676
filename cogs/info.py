"""``/leaderboard``, ``/stats`` and ``/rules``: read-only commands, shared by every game (their
choices list every registered game: ratings and rules of a game not enabled stay readable)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import discord
from discord import app_commands
from discord.app_commands import locale_str as _T
from discord.ext import commands

from bot import compose
from bot.games import GAMES
from bot.i18n import Translator
from bot.ui import Block, Field
from cogs.base import answer, guild_lang, user_t
from cogs.layout import card_message
from cogs.lobby import game_choices

if TYPE_CHECKING:
    from bot.client import SpeakeasyBot


class InfoCog(commands.Cog):
    """Leaderboards, member stats and rules summaries (ephemeral where personal)."""

    def __init__(self, bot: SpeakeasyBot) -> None:
        self.bot = bot

    @app_commands.command(name=_T("leaderboard", key="cmd.leaderboard.name"),
                          description=_T("This server's best players of a game", key="cmd.leaderboard.desc"))
    @app_commands.rename(game=_T("game", key="cmd.arg.game"))
    @app_commands.describe(game=_T("Which game", key="cmd.play.game"))
    @app_commands.choices(game=game_choices())
    @app_commands.guild_only()
    async def leaderboard(self, interaction: discord.Interaction, game: app_commands.Choice[str]) -> None:
        """Top 10 members by rating (openskill ordinal) with the minimum number of games (a public
        message, so in the server's language)."""
        t = Translator(guild_lang(interaction))
        rows = await self.bot.records.leaderboard(interaction.guild_id or 0, game.value)
        title = t("lb.title", game=compose.game_title(game.value, t))
        if not rows:
            desc = t("lb.empty", min=self.bot.records.leaderboard_min_games)
        else:
            desc = "\n".join(
                t("lb.line", rank=i + 1, player=f"<@{r.user_id}>", rating=f"{r.ordinal:.1f}", won=r.won, played=r.played)
                for i, r in enumerate(rows))
        card = Block(title=title, description=desc, footer=t("lb.footer", min=self.bot.records.leaderboard_min_games),
                    color=0xF1C40F)
        await interaction.response.send_message(**card_message(card), allowed_mentions=discord.AllowedMentions.none())

    @app_commands.command(name=_T("stats", key="cmd.stats.name"),
                          description=_T("Games played and won, per game", key="cmd.stats.desc"))
    @app_commands.rename(member=_T("member", key="cmd.arg.member"))
    @app_commands.describe(member=_T("Whose stats (you by default)", key="cmd.stats.member"))
    @app_commands.guild_only()
    async def stats(self, interaction: discord.Interaction, member: discord.Member | None = None) -> None:
        """A member's rating, games played and won, per game, in this server."""
        t = user_t(interaction)
        who = member or interaction.user
        stats = await self.bot.records.stats(interaction.guild_id or 0, who.id)
        fields = tuple(
            Field(compose.game_title(g, t), t("stats.line", rating=f"{r.ordinal:.1f}", won=r.won, played=r.played), True)
            for g, r in stats.items())
        card = Block(title=t("stats.title", name=compose.escape_name(who.display_name)),
                    description="" if fields else t("stats.none"), fields=fields)
        await answer(interaction, **card_message(card))

    @app_commands.command(name=_T("rules", key="cmd.rules.name"),
                          description=_T("How to play a game", key="cmd.rules.desc"))
    @app_commands.rename(game=_T("game", key="cmd.arg.game"))
    @app_commands.describe(game=_T("Which game", key="cmd.play.game"))
    @app_commands.choices(game=game_choices())
    async def rules(self, interaction: discord.Interaction, game: app_commands.Choice[str]) -> None:
        """A rules summary, privately."""
        await answer(interaction, **card_message(GAMES[game.value].presenter.rules(user_t(interaction))))


async def setup(bot: SpeakeasyBot) -> None:
    """discord.py extension entry point."""
    await bot.add_cog(InfoCog(bot))
