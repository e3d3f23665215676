"""A server's own commands: ``/settings`` and ``/season start`` (Manage Server), and the clicks
of their components (:data:`cogs.server_components.COMMUNITY_COG`).

Both commands are hidden by default from members without Manage Server (``default_permissions``)
and refused by the bot's own check too (a server may grant a command to anyone in its
Integrations settings). Every change goes through the services (:class:`bot.guilds.Guilds`,
:class:`bot.seasons.Seasons`), which log who made it.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import collections
import logging
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.app_commands import locale_str as _T
from discord.ext import commands

from bot import community as texts
from bot.games import GAMES
from bot.guilds import MIN_GAMES
from bot.i18n import Translator
from bot.seasons import MAX_NAME
from bot.service import ServiceError
from cogs.base import answer, guild_lang, is_admin, report_click_error, report_error, user_t
from cogs.components import modal_value, typed_number
from cogs.layout import card_message, text_message
from cogs.lobby import game_choices
from cogs.server_components import (
    COMMUNITY_COG,
    COMMUNITY_ITEMS,
    SeasonConfirm,
    SettingsButton,
    SettingsChannels,
    SettingsSelect,
    settings_rows,
)

if TYPE_CHECKING:
    from bot.client import SpeakeasyBot

log = logging.getLogger(__name__)

#: Every game, as the ``game`` value of ``/season start``.
ALL_GAMES = "*"
_ADMIN = discord.Permissions(manage_guild=True)


def encode_name(name: str | None) -> str:
    """A season name as the confirm button carries it: ``~`` and the name as typed (``""`` for
    none). Raises ``err.season_name`` when it is longer than :data:`~bot.seasons.MAX_NAME`
    characters (or, made of many emoji, would not fit a custom_id's 100 UTF-16 units).

    >>> encode_name("Winter"), decode_name(encode_name("Зимний чемпионат")), decode_name("V2ludGVy")
    ('~Winter', 'Зимний чемпионат', 'Winter')
    """
    if not name:
        return ""
    coded = "~" + name
    if len(name) > MAX_NAME or len(SeasonConfirm.custom_id_of("three-player-moon", coded).encode("utf-16-le")) > 200:
        raise ServiceError("err.season_name", max=MAX_NAME)
    return coded


def decode_name(coded: str) -> str | None:
    """The season name a confirm button carries (``None`` for none): after ``~``, or in URL-safe
    base64 (buttons posted by earlier versions). Raises ``ValueError`` for a damaged one."""
    if not coded:
        return None
    if coded.startswith("~"):
        return coded[1:]
    try:
        return base64.urlsafe_b64decode(coded.encode()).decode()
    except (binascii.Error, UnicodeDecodeError):
        raise ValueError("damaged season name") from None


#: How many season confirm messages :class:`CommunityCog` remembers as used.
CONFIRMS_KEPT = 256

#: The custom_id of the "minimum games" modal of ``/settings``.
MIN_GAMES_MODAL = "se:cn"


class _MinGames(discord.ui.Modal):
    """The number of games to finish to appear on a leaderboard (a ``/settings`` button). Its
    submission is answered by the cog's interaction listener from its custom_id alone
    (:meth:`CommunityCog.on_interaction`), never by this object: a modal opened before a
    restart is still answered."""

    def __init__(self, t: Translator, current: int) -> None:
        super().__init__(title=t("settings.min_games")[:45], custom_id=MIN_GAMES_MODAL)
        self.number: discord.ui.TextInput[Any] = discord.ui.TextInput(
            default=str(current), min_length=1, max_length=4, custom_id="number")
        self.add_item(discord.ui.Label(text=t("settings.min_games.label")[:45], component=self.number))

    async def on_submit(self, interaction: discord.Interaction) -> None:
        """Nothing: the cog's interaction listener answers (see the class docstring)."""


class CommunityCog(commands.Cog, name=COMMUNITY_COG):
    """``/settings``, ``/season start`` and their components."""

    season = app_commands.Group(name=_T("season", key="cmd.season.name"),
                                description=_T("This server's seasons", key="cmd.season.desc"),
                                guild_only=True, default_permissions=_ADMIN)

    def __init__(self, bot: SpeakeasyBot) -> None:
        self.bot = bot
        #: Serialises the season confirmations, so that :attr:`_confirmed_ids` is checked and
        #: filled in one step.
        self._season_lock = asyncio.Lock()
        #: The confirm messages (ids) whose button already started their seasons, the latest
        #: :data:`CONFIRMS_KEPT`: a second click on one (a double click) is refused.
        self._confirmed_ids: collections.deque[int] = collections.deque(maxlen=CONFIRMS_KEPT)

    async def cog_load(self) -> None:
        """Register the persistent components of ``/settings`` and ``/season start``."""
        self.bot.add_dynamic_items(*COMMUNITY_ITEMS)

    async def cog_unload(self) -> None:
        self.bot.remove_dynamic_items(*COMMUNITY_ITEMS)

    def _check_admin(self, interaction: discord.Interaction) -> None:
        if interaction.guild_id is None or not is_admin(interaction):
            raise ServiceError("err.settings_admin")

    # ------------------------------------------------------------------ /settings
    @app_commands.command(name=_T("settings", key="cmd.settings.name"),
                          description=_T("This server's settings (Manage Server)", key="cmd.settings.desc"))
    @app_commands.default_permissions(manage_guild=True)
    @app_commands.guild_only()
    async def settings(self, interaction: discord.Interaction) -> None:
        """The server's settings in one private message, changed through its components."""
        try:
            self._check_admin(interaction)
        except ServiceError as err:  # a refusal is an answer, not an error
            await report_error(interaction, err)
            return
        await answer(interaction, **await self.settings_message(interaction))

    async def settings_message(self, interaction: discord.Interaction) -> dict[str, Any]:
        """The ``/settings`` message (its block and components, V2) in the member's language."""
        t = user_t(interaction)
        community = await self.bot.communities.community(interaction.guild_id or 0)
        panel = texts.settings_panel(community, t)
        return {**card_message(panel.card, rows=settings_rows(panel, t("settings.channels.pick"))),
                "allowed_mentions": discord.AllowedMentions.none()}

    @commands.Cog.listener()
    async def on_interaction(self, interaction: discord.Interaction) -> None:
        """The "minimum games" modal's submission (:data:`MIN_GAMES_MODAL`): a whole number,
        stored and the settings message redrawn (refused: ``err.min_games``)."""
        data = interaction.data
        if interaction.type is not discord.InteractionType.modal_submit or not isinstance(data, dict):
            return
        if data.get("custom_id") != MIN_GAMES_MODAL:
            return
        with self.bot.foreground.answering():
            try:
                value = typed_number(modal_value(data, "number"))
                if value is None:
                    raise ServiceError("err.min_games", min=MIN_GAMES[0], max=MIN_GAMES[1])
                await self.change(interaction, min_games=value)
            except Exception as exc:  # noqa: BLE001 - every submission gets an answer
                await report_click_error(interaction, exc)

    async def change(self, interaction: discord.Interaction, **changes: Any) -> None:
        """An admin's change from a component: stored, and the settings message redrawn."""
        self._check_admin(interaction)
        await self.bot.communities.change(interaction.guild_id or 0, interaction.user.id, **changes)
        message = await self.settings_message(interaction)
        if interaction.response.is_done():
            await interaction.edit_original_response(**message)
        else:
            await interaction.response.edit_message(**message)

    async def component(self, interaction: discord.Interaction, item: discord.ui.DynamicItem[Any]) -> None:
        """A click on a settings or season component (refused to a member without Manage Server)."""
        try:
            await self._component(interaction, item)
        except Exception as exc:  # noqa: BLE001 - every click gets an answer
            await report_click_error(interaction, exc)

    async def _component(self, interaction: discord.Interaction, item: discord.ui.DynamicItem[Any]) -> None:
        self._check_admin(interaction)
        guild_id = interaction.guild_id or 0
        if isinstance(item, SeasonConfirm):
            await self._confirmed(interaction, item)
            return
        community = await self.bot.communities.community(guild_id)
        if isinstance(item, SettingsSelect):
            values = item.values
            if item.field == "pace" and len(values) == 1:
                await self.change(interaction, pace=values[0])
            elif item.field in ("games", "ai_levels") and values:
                await self.change(interaction, **{item.field: tuple(values)})
            else:
                raise ServiceError("err.bad_button")
        elif isinstance(item, SettingsChannels):
            chosen = item.channel_ids
            await self.change(interaction, channels=tuple(chosen) if chosen else None)
        elif isinstance(item, SettingsButton):
            if item.op == "pictures":
                if not community.bot_pictures:  # a panel drawn before PICTURES was turned off
                    raise ServiceError("err.pictures_bot_off")
                await self.change(interaction, pictures=not community.pictures)
            elif item.op == "monthly":
                await self.change(interaction, monthly_seasons=not community.monthly_seasons)
            elif item.op == "web":
                await self.change(interaction, web=texts.next_web(community.web))
            elif item.op == "rotate":
                await self.bot.communities.rotate_secret(guild_id, interaction.user.id)
                await interaction.response.edit_message(**await self.settings_message(interaction))
                await interaction.followup.send(ephemeral=True, **text_message(user_t(interaction)("settings.web.rotated")))
            elif item.op == "min":
                await interaction.response.send_modal(_MinGames(user_t(interaction), community.min_games))
            else:
                raise ServiceError("err.bad_button")
        else:
            raise ServiceError("err.bad_button")

    # ------------------------------------------------------------------ /season start
    @season.command(name=_T("start", key="cmd.season.start.name"),
                    description=_T("End the current season and start a new one (Manage Server)",
                                   key="cmd.season.start.desc"))
    @app_commands.rename(game=_T("game", key="cmd.arg.game"), name=_T("name", key="cmd.arg.name"))
    @app_commands.describe(game=_T("Which game (all by default)", key="cmd.season.start.game"),
                           name=_T("The new season's name", key="cmd.season.start.season_name"))
    @app_commands.choices(game=[*game_choices(), app_commands.Choice(
        name=_T("All games", key="season.all_games"), value=ALL_GAMES)])
    async def season_start(self, interaction: discord.Interaction, game: str = ALL_GAMES,
                           name: str | None = None) -> None:
        """Ask the admin to confirm: which seasons end, the new one's name; a button starts it."""
        t = user_t(interaction)
        games = tuple(GAMES) if game == ALL_GAMES else (game,)
        guild_id = interaction.guild_id or 0
        try:
            self._check_admin(interaction)
            if any(g not in GAMES for g in games):
                raise ServiceError("err.unknown_game", game=game[:40])
            name = await self.bot.seasons.check(guild_id, games, name)  # refused now, not at the confirmation
            coded = encode_name(name)
        except ServiceError as err:  # a refusal is an answer, not an error
            await report_error(interaction, err)
            return
        current = {g: (await self.bot.seasons.all(guild_id, g))[-1] for g in games}
        confirm: discord.ui.ActionRow[Any] = discord.ui.ActionRow(SeasonConfirm(game, coded, t("season.confirm.button")))
        await answer(interaction, **card_message(texts.season_confirm(games, name, current, t), rows=[confirm]))

    async def _confirmed(self, interaction: discord.Interaction, item: SeasonConfirm) -> None:
        """The confirm button: the new seasons start; a public notice in the channel. A second
        click on the same confirmation (a double click) is refused: ``err.season_confirmed``."""
        games = tuple(GAMES) if item.game == ALL_GAMES else (item.game,)
        message_id = interaction.message.id if interaction.message is not None else None
        async with self._season_lock:
            if message_id is not None and message_id in self._confirmed_ids:
                raise ServiceError("err.season_confirmed")
            started = await self.bot.seasons.start(interaction.guild_id or 0, games, decode_name(item.name),
                                                   interaction.user.id)
            if message_id is not None:
                self._confirmed_ids.append(message_id)
        t = user_t(interaction)
        await interaction.response.edit_message(**text_message(t("season.confirm.done")))
        public = Translator(guild_lang(interaction))
        await interaction.followup.send(**card_message(texts.season_started_block(dict(zip(games, started, strict=True)),
                                                                              public)),
                                        allowed_mentions=discord.AllowedMentions.none())


async def setup(bot: SpeakeasyBot) -> None:
    """discord.py extension entry point (after the lobby cog, which registers the components)."""
    await bot.add_cog(CommunityCog(bot))
