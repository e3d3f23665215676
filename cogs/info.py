"""``/leaderboard``, ``/stats`` and ``/rules``: read-only commands, shared by every game (their
choices list every registered game: ratings and rules of a game not enabled stay readable)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import discord
from discord import app_commands
from discord.app_commands import locale_str as _T
from discord.ext import commands

from bot.community import season_board_block, season_name, season_stats_block
from bot.games import GAMES
from bot.i18n import Translator
from bot.service import ServiceError
from bot.web import links
from cogs.base import answer, guild_lang, report_error, user_t
from cogs.components import web_link
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
    @app_commands.rename(game=_T("game", key="cmd.arg.game"), season=_T("season", key="cmd.arg.season"))
    @app_commands.describe(game=_T("Which game", key="cmd.play.game"),
                           season=_T("A past season (the current one by default)", key="cmd.leaderboard.season"))
    @app_commands.choices(game=game_choices())
    @app_commands.guild_only()
    async def leaderboard(self, interaction: discord.Interaction, game: app_commands.Choice[str],
                          season: str | None = None) -> None:
        """Top 10 members of a season (the current one by default; a past one by name or
        number) by rating (openskill ordinal) with the server's minimum number of games (a
        public message, so in the server's language; an unknown season is refused privately)."""
        t = Translator(guild_lang(interaction))
        guild_id, lang = interaction.guild_id or 0, t.lang
        try:
            found, current, rows = await self.bot.records.season_board(guild_id, game.value, season)
        except ServiceError as err:
            await report_error(interaction, err)
            return
        card = season_board_block(game.value, found, current, rows, await self.bot.records.min_games(guild_id), t)
        link = await web_link(self.bot, guild_id, t("web.link.leaderboard"),
                              lambda base, key: links.leaderboard_url(base, guild_id, game.value, key=key, lang=lang,
                                                                      season=None if current else found.season))
        await interaction.response.send_message(**card_message(card, rows=link),
                                                allowed_mentions=discord.AllowedMentions.none())

    @leaderboard.autocomplete("season")
    async def _seasons(self, interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
        """The seasons of the chosen game, newest first, whose name holds ``current``."""
        t = user_t(interaction)
        game = str(getattr(interaction.namespace, "game", "") or "")
        if game not in GAMES:
            return []
        seasons = await self.bot.seasons.all(interaction.guild_id or 0, game)
        wanted = current.strip().casefold()
        names = [season_name(s, t, plain=True) for s in reversed(seasons)]
        return [app_commands.Choice(name=n[:100], value=f"#{s.season}")
                for n, s in zip(names, reversed(seasons), strict=True) if wanted in n.casefold()][:25]

    @app_commands.command(name=_T("stats", key="cmd.stats.name"),
                          description=_T("Games played and won, per game", key="cmd.stats.desc"))
    @app_commands.rename(member=_T("member", key="cmd.arg.member"))
    @app_commands.describe(member=_T("Whose stats (you by default)", key="cmd.stats.member"))
    @app_commands.guild_only()
    async def stats(self, interaction: discord.Interaction, member: discord.Member | None = None) -> None:
        """A member's rating, games played and won, per game and season, in this server."""
        t = user_t(interaction)
        who = member or interaction.user
        guild_id, lang = interaction.guild_id or 0, t.lang
        records = await self.bot.records.season_stats(guild_id, who.id)
        link = await web_link(self.bot, guild_id, t("web.link.profile"),
                              lambda base, key: links.profile_url(base, guild_id, who.id, key=key, lang=lang))
        await answer(interaction, **card_message(season_stats_block(who.display_name, records, t),
                                                 rows=link if records else ()))

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
