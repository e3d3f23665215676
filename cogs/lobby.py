"""The lobby cog: ``/play game:`` for the games of each server, and the routing of every click.

``/play`` is one command; its ``game`` is autocompleted with the games the server offers (its
``/settings``, else ``ENABLED_GAMES``). A game the server does not offer is refused with an
ephemeral message, and so is ``/play`` in a channel where the server does not allow it (the
message names the channels where it may be used).

Every persistent component (:mod:`cogs.components`) and every number modal lands in
:meth:`LobbyCog.route`, which hands it to the table's game cog: the loaded one, or a detached
instance of its class when the game is not enabled (its running tables still finish).
This cog also installs the Discord notifier (:mod:`cogs.notifier`).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

import discord
from discord import app_commands
from discord.app_commands import locale_str as _T
from discord.ext import commands

from bot import compose
from bot.games import GAMES
from bot.i18n import Translator
from bot.service import ServiceError
from cogs import pictures
from cogs.base import GameCog, arrived, report_click_error, report_error, user_t
from cogs.components import (
    DYNAMIC_ITEMS,
    ROUTER_COG,
    ActionButton,
    BoardButton,
    LevelSelect,
    LobbyButton,
    LobbyOptionSelect,
    NumberModalId,
    PanelSelect,
    PromptButton,
    TableItem,
    modal_value,
)
from cogs.notifier import DiscordNotifier
from cogs.panels import FLASH, flash_deleter

if TYPE_CHECKING:
    from bot.client import SpeakeasyBot

log = logging.getLogger(__name__)


def game_choices(games: list[str] | tuple[str, ...] | None = None) -> list[app_commands.Choice[str]]:
    """Slash-command choices for ``games`` (default: every registered game): the game's name
    (never its key) in English, localised by the command translator for the other languages."""
    en = Translator("en")
    return [app_commands.Choice(name=_T(compose.game_title(key, en)[:100], key=f"game.{key}.name"), value=key)
            for key in (games or tuple(GAMES))]


class LobbyCog(commands.Cog, name=ROUTER_COG):
    """``/play`` and the routing of every table component to its game's cog."""

    def __init__(self, bot: SpeakeasyBot) -> None:
        self.bot = bot
        self._detached: dict[str, GameCog] = {}
        self.play_command = self._build_play(self.enabled())

    # ------------------------------------------------------------------ game cogs
    def game_cogs(self) -> dict[str, GameCog]:
        """The loaded game cogs by registry key."""
        return {cog.game: cog for cog in self.bot.cogs.values() if isinstance(cog, GameCog)}

    def enabled(self) -> list[str]:
        """Registry keys of the loaded game cogs, in registry order."""
        loaded = self.game_cogs()
        return [key for key in GAMES if key in loaded]

    def cog_for(self, game: str) -> GameCog:
        """The cog handling ``game``'s tables: the loaded one, else a detached instance."""
        cog = self.game_cogs().get(game)
        if cog is None:
            cog = self._detached.get(game)
            if cog is None:
                cog = self._detached[game] = GameCog.detached(self.bot, game)
        return cog

    # ------------------------------------------------------------------ /play
    def _build_play(self, games: list[str]) -> app_commands.Command:  # type: ignore[type-arg]
        """The ``/play`` command, its ``game`` choices being ``games``."""

        @app_commands.command(name=_T("play", key="cmd.play.name"),
                              description=_T("Open a table for a game", key="cmd.play.desc"))
        @app_commands.describe(game=_T("Which game", key="cmd.play.game"))
        @app_commands.rename(game=_T("game", key="cmd.arg.game"))
        @app_commands.guild_only()
        async def play(interaction: discord.Interaction, game: str) -> None:
            """Open a lobby of ``game`` in this channel (refused when the game is not enabled)."""
            await self.play(interaction, game)

        @play.autocomplete("game")
        async def offered(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
            """The games this server offers whose name (in the member's language) or key holds ``current``."""
            return await self.offered(interaction, current)

        return play

    async def offered(self, interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
        """``/play``'s autocomplete: the games the server offers, filtered by ``current``."""
        t = user_t(interaction)
        community = await self.bot.communities.community(interaction.guild_id or 0)
        wanted = current.strip().casefold()
        found = [(compose.game_title(key, t), key) for key in community.games if key in self.enabled()]
        return [app_commands.Choice(name=title, value=key) for title, key in found
                if wanted in title.casefold() or wanted in key][:25]

    async def play(self, interaction: discord.Interaction, game: str) -> None:
        """``/play``: the game's cog opens the lobby; a game not enabled here is refused."""
        try:
            cog = self.game_cogs().get(game)
            if cog is None:
                if game in GAMES:
                    raise ServiceError("err.game_not_enabled", game=game)
                raise ServiceError("err.unknown_game", game=game[:40])
            community = await self.bot.communities.community(interaction.guild_id or 0)
            if game not in community.games:
                raise ServiceError("err.game_not_enabled", game=game)
            await cog.open_lobby(interaction)
        except Exception as exc:  # noqa: BLE001 - every failure gets an answer
            await report_error(interaction, exc)

    async def cog_load(self) -> None:
        """Register ``/play``, the persistent components, the Discord notifier and the handler
        of the flash-deleting timers (:func:`cogs.panels.flash_deleter`); start the picture
        workers (``RENDER_WORKERS``) when pictures are on."""
        self.bot.tree.add_command(self.play_command)
        self.bot.add_dynamic_items(*DYNAMIC_ITEMS)
        self.bot.set_notifier(DiscordNotifier(self.bot))
        self.bot.timers.handle(FLASH, flash_deleter(self.bot))
        if self.bot.settings.pictures:
            pictures.DRAWER.configure(self.bot.settings.render_workers)
            pictures.DRAWER.start()

    async def cog_unload(self) -> None:
        self.bot.tree.remove_command(self.play_command.name)
        self.bot.remove_dynamic_items(*DYNAMIC_ITEMS)
        pictures.DRAWER.close()

    # ------------------------------------------------------------------ routing
    async def route(self, interaction: discord.Interaction, item: TableItem) -> None:
        """A click on a persistent component: handled by the table's game cog; every failure
        is answered (a refusal as its text, anything else as an internal error). While it is
        answered, the loop's background work waits (:class:`bot.foreground.Foreground`)."""
        arrived(interaction)
        with self.bot.foreground.answering():  # background work waits (bot.foreground)
            await self._route(interaction, item)

    async def _route(self, interaction: discord.Interaction, item: TableItem) -> None:
        try:
            table = await self.bot.hall.table(item.table_id)
            cog = self.cog_for(table.row.game)
            if isinstance(item, LobbyButton):
                await cog.lobby_op(interaction, item.table_id, item.op)
            elif isinstance(item, LobbyOptionSelect):
                await cog.lobby_option(interaction, item.table_id, item.values)
            elif isinstance(item, LevelSelect):
                await cog.level_pick(interaction, item.table_id, item.seat, item.tag, item.values)
            elif isinstance(item, BoardButton):
                await cog.board_op(interaction, item.table_id, item.op)
            elif isinstance(item, ActionButton):
                await cog.act(interaction, item.table_id, item.version, item.code)
            elif isinstance(item, PromptButton):
                await cog.prompt(interaction, item.table_id, item.version, item.at)
            elif isinstance(item, PanelSelect):
                await cog.panel_select(interaction, item.table_id, item.version, item.panel_row, item.values)
            else:  # pragma: no cover - every kind is listed above
                raise ServiceError("err.bad_button")
        except Exception as exc:  # noqa: BLE001 - every click gets an answer
            await report_click_error(interaction, exc)

    @commands.Cog.listener()
    async def on_interaction(self, interaction: discord.Interaction) -> None:
        """Action buttons (``se:a:…``, :meth:`ActionButton.parse`) and number modals (``se:m:…``)
        are answered here, from their custom_id alone (see :mod:`cogs.components`)."""
        data = interaction.data
        if not isinstance(data, dict):
            return
        if interaction.type is discord.InteractionType.component:
            item = ActionButton.parse(str(data.get("custom_id", ""))) if data.get("component_type") == 2 else None
            if item is not None:
                await self.route(interaction, item)
            return
        if interaction.type is not discord.InteractionType.modal_submit:
            return
        custom_id = str(data.get("custom_id", ""))
        if not custom_id.startswith("se:m:"):
            return
        arrived(interaction)
        with self.bot.foreground.answering():
            await self._number(interaction, custom_id)

    async def _number(self, interaction: discord.Interaction, custom_id: str) -> None:
        try:
            modal = NumberModalId.parse(custom_id)
            if modal is None:
                raise ServiceError("err.bad_button")
            table = await self.bot.hall.table(modal.table_id)
            await self.cog_for(table.row.game).number(interaction, modal, modal_value(interaction.data, "number"))
        except Exception as exc:  # noqa: BLE001 - every submission gets an answer
            await report_click_error(interaction, exc)


async def setup(bot: SpeakeasyBot) -> None:
    """discord.py extension entry point (load it after the game cogs)."""
    await bot.add_cog(LobbyCog(bot))
