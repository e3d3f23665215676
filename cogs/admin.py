"""``/table list``, ``/table mine`` and ``/table abandon``, and Discord's lifecycle events for tables.

Lifecycle (no privileged intent needed): a deleted thread moves its running table to the
parent channel (a notice and a new board); an archived or locked thread is reopened when the
bot may, otherwise the same fallback; a deleted channel closes its lobbies and tables; the
bot removed from a server closes that server's lobbies and tables at once, silently (no
further REST call for them, nothing rated), and forgets the server's settings. The work itself is in
:class:`cogs.notifier.DiscordNotifier` and the services (:mod:`bot.tables`, :mod:`bot.lobbies`).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

import discord
from discord import app_commands
from discord.app_commands import locale_str as _T
from discord.ext import commands

from bot import admin
from bot.community import mine_block
from bot.service import ServiceError, TableSnapshot
from bot.ui import Block
from cogs.base import answer, is_admin, reply, report_error, user_t
from cogs.boards import message_link
from cogs.layout import card_message
from cogs.notifier import DiscordNotifier

if TYPE_CHECKING:
    from bot.client import SpeakeasyBot

log = logging.getLogger(__name__)


def table_link(table: TableSnapshot) -> str | None:
    """Where a table is: its thread, its board in the channel, or its lobby message."""
    row = table.row
    if row.status == "running" and row.thread_id:
        return message_link(row.guild_id, row.thread_id, None)
    if row.status == "running" and row.board_message_id:
        return message_link(row.guild_id, row.channel_id, row.board_message_id)
    if row.lobby_message_id:
        return message_link(row.guild_id, row.channel_id, row.lobby_message_id)
    return None


class AdminCog(commands.Cog):
    """``/table`` (list, abandon) and the lifecycle listeners."""

    table = app_commands.Group(name=_T("table", key="cmd.table.name"),
                               description=_T("This server's tables", key="cmd.table.desc"), guild_only=True)

    def __init__(self, bot: SpeakeasyBot) -> None:
        self.bot = bot

    @property
    def notifier(self) -> DiscordNotifier | None:
        notifier = self.bot.notifier
        return notifier if isinstance(notifier, DiscordNotifier) else None

    # ------------------------------------------------------------------ /table
    @table.command(name=_T("list", key="cmd.table.list.name"),
                   description=_T("The open lobbies and running tables of this server", key="cmd.table.list.desc"))
    async def list_(self, interaction: discord.Interaction) -> None:
        """This server's lobbies and running tables: links, game, seats and age (privately)."""
        t = user_t(interaction)
        tables = await self.bot.records.guild_tables(interaction.guild_id or 0)
        lines = [admin.table_line(tb, t, table_link(tb)) for tb in tables]
        text = ""
        for n, line in enumerate(lines):
            if len(text) + len(line) + 1 > 4000:
                text += "\n…" + str(len(lines) - n)
                break
            text += ("\n" if text else "") + line
        card = Block(title=t("admin.title"), description=text or t("admin.none"))
        await answer(interaction, **card_message(card), allowed_mentions=discord.AllowedMentions.none())

    @table.command(name=_T("mine", key="cmd.table.mine.name"),
                   description=_T("Your tables in this server, those waiting for you first", key="cmd.table.mine.desc"))
    async def mine(self, interaction: discord.Interaction) -> None:
        """The member's tables here (waiting for them first), with links and deadlines (privately)."""
        t = user_t(interaction)
        mine = await self.bot.records.mine(interaction.guild_id or 0, interaction.user.id)
        links = {m.table.id: table_link(m.table) for m in mine}
        await answer(interaction, **card_message(mine_block(mine, t, links)), allowed_mentions=discord.AllowedMentions.none())

    @table.command(name=_T("abandon", key="cmd.table.abandon.name"),
                   description=_T("Close a lobby or abandon a running table (host or Manage Server)",
                                  key="cmd.table.abandon.desc"))
    @app_commands.rename(table=_T("table", key="cmd.arg.table"))
    @app_commands.describe(table=_T("Which table", key="cmd.table.abandon.table"))
    async def abandon(self, interaction: discord.Interaction, table: int) -> None:
        """Close one of this server's lobbies or abandon a running table, unrated (its host or a
        member with Manage Server). Refusals are ephemeral texts."""
        t = user_t(interaction)
        try:
            try:
                found = await self.bot.hall.table(table)
            except ServiceError:
                found = None
            if found is None or found.row.guild_id != interaction.guild_id or found.row.status not in ("lobby", "running"):
                raise ServiceError("err.no_table")
            if interaction.user.id != found.row.host_user_id and not is_admin(interaction):
                raise ServiceError("err.host_or_admin")
            await interaction.response.defer(ephemeral=True, thinking=True)
            closed = await self.bot.lobbies.close_table(table, interaction.user.id, is_admin(interaction))
        except ServiceError as err:  # a refusal is an answer, not an error
            await report_error(interaction, err)
            return
        if found.row.status == "lobby" and self.notifier is not None:
            await self.notifier.redraw_lobby(closed)
        await reply(interaction, t("admin.closed", id=table))

    @abandon.autocomplete("table")
    async def _tables(self, interaction: discord.Interaction, current: str) -> list[app_commands.Choice[int]]:
        """The server's open tables (a member without Manage Server sees the ones they host)."""
        t = user_t(interaction)
        tables = await self.bot.records.guild_tables(interaction.guild_id or 0)
        if not is_admin(interaction):
            tables = [tb for tb in tables if tb.row.host_user_id == interaction.user.id]
        choices = [app_commands.Choice(name=admin.table_choice_label(tb, t), value=tb.id) for tb in tables]
        wanted = current.strip().lstrip("#").casefold()
        return [c for c in choices if wanted in c.name.casefold()][:25]

    # ------------------------------------------------------------------ lifecycle
    @commands.Cog.listener()
    async def on_raw_thread_delete(self, payload: discord.RawThreadDeleteEvent) -> None:
        """A thread was deleted: its running table moves to the channel."""
        if self.notifier is not None:
            await self.notifier.place_deleted(payload.thread_id)

    @commands.Cog.listener()
    async def on_guild_channel_delete(self, channel: discord.abc.GuildChannel) -> None:
        """A channel was deleted (its threads with it): its lobbies and tables are closed."""
        if self.notifier is not None:
            await self.notifier.place_deleted(channel.id)

    @commands.Cog.listener()
    async def on_raw_thread_update(self, payload: discord.RawThreadUpdateEvent) -> None:
        """A thread was archived or locked: reopened when the bot may, else the table moves."""
        meta = payload.data.get("thread_metadata") or {}
        archived, locked = bool(meta.get("archived")), bool(meta.get("locked"))
        if (archived or locked) and self.notifier is not None:
            await self.notifier.thread_closed(payload.thread, payload.thread_id, locked)

    @commands.Cog.listener()
    async def on_guild_remove(self, guild: discord.Guild) -> None:
        """The bot was removed from a server: its tables there are closed at once."""
        if self.notifier is not None:
            closed = await self.notifier.guild_left(guild.id)
            log.info("removed from guild %s: closed tables %s", guild.id, closed)
        await self.bot.communities.forget(guild.id)
        log.info("removed from guild %s: its settings were deleted", guild.id)

    @commands.Cog.listener()
    async def on_guild_join(self, guild: discord.Guild) -> None:
        """The bot was added to a server (again)."""
        if self.notifier is not None:
            self.notifier.guild_joined(guild.id)


async def setup(bot: SpeakeasyBot) -> None:
    """discord.py extension entry point (load it after the lobby cog, which installs the notifier)."""
    await bot.add_cog(AdminCog(bot))
