"""The lobby flow of a game's cog (:class:`LobbyFlow`, a base of :class:`cogs.base.GameCog`):
``/play``'s lobby message, its buttons (join, leave, AI players and their levels, start,
cancel) and option selects. Each calls :mod:`bot.lobbies` and redraws the lobby; refusals are
:class:`bot.service.ServiceError`, answered by the caller."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

import discord

from bot import compose
from bot.client import answer, reply, user_t
from bot.i18n import Translator
from bot.lobbies import lobby_tag
from bot.service import ServiceError, TableSnapshot
from cogs.boards import message_link
from cogs.components import STYLES, LobbyButton, level_picker_rows, lobby_option_select
from cogs.layout import button_rows, card_message
from cogs.notifier import DiscordNotifier
from cogs.replies import guild_lang, is_admin

if TYPE_CHECKING:
    from bot.client import SpeakeasyBot

__all__ = ["LOBBY_BUTTONS", "LobbyFlow"]

LOBBY_BUTTONS = (("join", "lobby.join", "success"), ("leave", "lobby.leave", "secondary"),
                 ("ai+", "lobby.add_ai", "secondary"), ("ai-", "lobby.remove_ai", "secondary"),
                 ("start", "lobby.start", "primary"), ("cancel", "lobby.cancel", "danger"),
                 ("lvl", "lobby.ai_levels", "secondary"))


class LobbyFlow:
    """The lobby methods of a game's cog: :attr:`bot` and :attr:`game` (the game's key) are the
    cog's."""

    bot: SpeakeasyBot
    game: str

    async def open_lobby(self, interaction: discord.Interaction) -> None:
        """``/play`` of this game: a lobby message in this channel, the host in seat 0. A member
        hosts at most one open lobby per channel: a second ``/play`` points to the first."""
        existing = await self.bot.lobbies.hosted(interaction.guild_id or 0, interaction.channel_id or 0,
                                                 interaction.user.id)
        if existing is not None:
            link = message_link(existing.row.guild_id, existing.row.channel_id, existing.row.lobby_message_id)
            await reply(interaction, user_t(interaction)("err.lobby_exists", link=link))
            return
        lang = guild_lang(interaction)
        table = await self.bot.lobbies.open(
            guild_id=interaction.guild_id or 0, channel_id=interaction.channel_id or 0, game=self.game,
            host_user_id=interaction.user.id, host_name=interaction.user.display_name, lang=lang,
            parent_id=getattr(interaction.channel, "parent_id", None))
        await interaction.response.send_message(**await self.lobby_message(table))
        msg = await interaction.original_response()
        await self.bot.tables.set_messages(table.id, lobby_message_id=msg.id)

    async def lobby_extras(self, table: TableSnapshot) -> dict[str, Any]:
        """Game-specific values for the lobby's rendering (none by default)."""
        return {}

    async def lobby_message(self, table: TableSnapshot, *, expired: bool = False) -> dict[str, Any]:
        """The lobby message (V2: one container, its text then its buttons and option selects),
        in the table's language; ``expired``: the expiry notice and no buttons."""
        t = Translator(table.row.lang)
        open_ = table.row.status == "lobby"
        ctx = compose.context(table, t, None, extras=await self.lobby_extras(table))
        selects = compose.lobby_selects(table, ctx)
        block = compose.lobby_block(table, t, selects)
        if expired:
            return card_message(replace(block, description=t("lobby.expired", minutes=self.bot.lobbies.lobby_minutes)))
        rows = button_rows([LobbyButton(table.id, op, t(key), STYLES[style], not open_)
                            for op, key, style in LOBBY_BUTTONS])
        if open_:
            rows += [discord.ui.ActionRow(lobby_option_select(sel, table.id, i)) for i, sel in enumerate(selects)]
        return card_message(block, rows=rows)

    async def lobby_op(self, interaction: discord.Interaction, table_id: int, op: str) -> None:
        """A lobby button: join, leave, ai+, ai-, cancel (host or Manage Server), start."""
        user = interaction.user
        t = user_t(interaction)
        lobbies = self.bot.lobbies
        ai_name = Translator((await self.bot.hall.table(table_id)).row.lang)("lobby.ai_name")  # public: table language
        if op == "join":
            table = await lobbies.join(table_id, user.id, user.display_name)
        elif op == "leave":
            table = await lobbies.leave(table_id, user.id)
        elif op == "ai+":
            table = await lobbies.add_ai(table_id, user.id, ai_name)
            await interaction.response.edit_message(**await self.lobby_message(table))
            added = next(s for s in reversed(table.seats) if s.is_ai)
            await answer(interaction, **self.level_picker_message(
                table, t, t("lobby.picker.added", name=compose.escape_name(added.name)),
                await lobbies.offered_levels(table_id)))
            return
        elif op == "lvl":
            table = await self.bot.hall.table(table_id)
            if table.row.status != "lobby":
                raise ServiceError("err.table_not_lobby")
            if user.id != table.row.host_user_id:
                raise ServiceError("err.host_only")
            await answer(interaction, **self.level_picker_message(
                table, t, levels=await lobbies.offered_levels(table_id)))
            return
        elif op == "ai-":
            table = await lobbies.remove_ai(table_id, user.id)
        elif op == "cancel":
            table = await lobbies.cancel(table_id, user.id, is_admin(interaction))
        elif op == "start":
            await interaction.response.defer()  # thread + board creation may take a moment
            await lobbies.start(table_id, user.id, ai_name=ai_name)
            table = await self.bot.hall.table(table_id)  # the thread is known now (or the table was abandoned)
            try:
                await interaction.edit_original_response(**await self.lobby_message(table))
            except discord.NotFound:
                pass  # the lobby message was deleted meanwhile: the game goes on in its thread
            if table.row.status == "abandoned":
                await reply(interaction, t("err.cannot_post"))
            return
        else:
            raise ServiceError("err.bad_button")
        await interaction.response.edit_message(**await self.lobby_message(table))

    @staticmethod
    def level_picker_message(table: TableSnapshot, t: Translator, notice: str = "",
                             levels: tuple[str, ...] | None = None) -> dict[str, Any]:
        """The host's private level picker of a lobby (:func:`bot.compose.level_picker`, offering
        ``levels``: the server's), in the host's language; its selects carry the seats'
        fingerprint (:func:`bot.lobbies.lobby_tag`)."""
        card, selects = compose.level_picker(table, t, notice, *((levels,) if levels else ()))
        return card_message(card, rows=level_picker_rows(table.id, lobby_tag(table.seats), selects) if selects else ())

    async def level_pick(self, interaction: discord.Interaction, table_id: int, seat: int, tag: str,
                         values: list[str]) -> None:
        """A level chosen in the picker: the AI in ``seat`` plays at that level from now on; the
        picker is redrawn in place and the lobby message edited. A picker drawn before the seats
        changed, a level it already has, a closed lobby or another member's click are refused
        (an ephemeral message, see :meth:`bot.lobbies.Lobbies.set_ai_level`)."""
        t = user_t(interaction)
        if len(values) != 1:
            raise ServiceError("err.bad_level")
        table = await self.bot.lobbies.set_ai_level(table_id, interaction.user.id, seat, values[0], expect=tag)
        row = next(s for s in table.seats if s.seat == seat)
        notice = t("lobby.picker.set", name=compose.escape_name(row.name), level=compose.level_name(row.level, t))
        await interaction.response.edit_message(**self.level_picker_message(
            table, t, notice, await self.bot.lobbies.offered_levels(table_id)))
        notifier = self.bot.notifier
        if isinstance(notifier, DiscordNotifier):
            await notifier.redraw_lobby(table)

    async def lobby_option(self, interaction: discord.Interaction, table_id: int, values: list[str]) -> None:
        """A lobby option select: only the values the lobby offers are accepted."""
        table = await self.bot.hall.table(table_id)
        ctx = compose.context(table, Translator(table.row.lang), None, extras=await self.lobby_extras(table))
        offered = {o.value for sel in compose.lobby_selects(table, ctx) for o in sel.options}
        if len(values) != 1 or values[0] not in offered or "=" not in values[0]:
            raise ServiceError("err.bad_option", detail="")
        name, value = values[0].split("=", 1)
        parsed: Any = None if value in ("", "none") else value
        if name == "pace":  # the table's pace, not a game option (bot.paces)
            table = await self.bot.lobbies.set_pace(table_id, interaction.user.id, value)
        else:
            table = await self.bot.lobbies.set_option(table_id, interaction.user.id, name, parsed)
        await interaction.response.edit_message(**await self.lobby_message(table))
