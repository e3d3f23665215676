"""The table flow every game shares (board, panels, actions, rematch): :class:`GameCog`, the base
of the game cogs; its lobby flow is :class:`cogs.lobby_flow.LobbyFlow`.

Thin by design: the lobby cog (:mod:`cogs.lobby`) parses the interaction and hands it to the
table's game cog, which calls the services (:mod:`bot.lobbies`, :mod:`bot.tables`), renders specs from
:mod:`bot.compose` with :mod:`cogs.components`, and replies. Every interaction is answered (or
deferred) before any slow work; every refusal is an ephemeral message in the clicker's language.

Each enabled game is its own cog, a :class:`GameCog` named after the game's key
(:meth:`GameCog.for_game`, added by :mod:`cogs.games`); a game that adds commands names a
subclass in its spec (:attr:`bot.games.GameSpec.cog`: Shop Battle's ``/deck``). A table of a game
whose cog is not loaded (``ENABLED_GAMES``) is still handled by an instance that is not added to
the bot (:meth:`GameCog.detached`): running tables finish whatever the deployment enables.
"""

from __future__ import annotations

import asyncio
import importlib
import io
import logging
from typing import TYPE_CHECKING, Any

import discord
from discord.ext import commands

from bot import compose, render
from bot.client import answer, reply, report_error, user_t
from bot.games import GAMES
from bot.i18n import Translator
from bot.service import ServiceError, TableSnapshot
from bot.ui import Block, Button, NumberPrompt, Panel, Select
from cogs.boards import message_link
from cogs.components import NumberModal, NumberModalId, typed_number
from cogs.layout import card_message, text_message
from cogs.lobby_flow import LobbyFlow
from cogs.panels import PanelMessages, delete_later, panel_fields
from cogs.replies import guild_lang, is_admin, report_click_error
from engine.core import Event

if TYPE_CHECKING:
    from bot.client import SpeakeasyBot

log = logging.getLogger(__name__)

__all__ = ["GameCog", "answer", "guild_lang", "is_admin", "reply", "report_click_error", "report_error", "user_t"]


#: A click is answered in the interaction's own response when that answer is ready within this
#: many seconds of the click's arrival; otherwise the click is deferred first, so that it is
#: answered or deferred within 1 s (the defer's own request included; Discord allows 3 s).
DEFER_AFTER_S = 0.8

#: The key of :attr:`discord.Interaction.extras` holding when the bot began to handle it.
ARRIVED = "speakeasy.arrived"


def arrived(interaction: discord.Interaction) -> None:
    """Note that the bot begins to handle ``interaction`` now (event loop time), for its
    :class:`Deferral` (the first note counts)."""
    interaction.extras.setdefault(ARRIVED, asyncio.get_running_loop().time())


class Deferral:
    """Defers ``interaction`` when it has not been answered :data:`DEFER_AFTER_S` seconds after
    its arrival (:func:`arrived`, else when this is made): a private "thinking" answer
    (``thinking``, for an answer that is a new private message) or a deferred update of the
    clicked message. Before answering, await :meth:`settled`: the timer stops, and a defer
    already under way is sent first (then the answer edits the original response)."""

    def __init__(self, interaction: discord.Interaction, *, thinking: bool) -> None:
        self._interaction = interaction
        self._thinking = thinking
        self._deferring: list[asyncio.Future[Any]] = []
        loop = asyncio.get_running_loop()
        since = interaction.extras.get(ARRIVED, loop.time())
        self._timer = loop.call_at(since + DEFER_AFTER_S, self._defer)

    def _defer(self) -> None:
        response = self._interaction.response
        if not response.is_done():
            defer = response.defer(ephemeral=True, thinking=True) if self._thinking else response.defer()
            self._deferring.append(asyncio.ensure_future(defer))

    async def settled(self) -> None:
        """Stop the timer; wait for a defer it started (its error propagates)."""
        self._timer.cancel()
        deferring, self._deferring = self._deferring, []
        for fut in deferring:
            await fut


class GameCog(LobbyFlow, commands.Cog):
    """Lobbies and tables of one game (:attr:`game`, its key): the cog of every game, named
    after its key; a game that adds commands subclasses it (see :meth:`for_game`). Its lobby
    flow is :class:`cogs.lobby_flow.LobbyFlow`; the table's (board, panels, actions) is here.

    The public methods are called by the lobby cog with the table id and the typed fields of
    the clicked component (:mod:`cogs.components`); each raises :class:`ServiceError` for a
    refusal, which the caller answers.
    """

    def __init__(self, bot: SpeakeasyBot, game: str) -> None:
        self.bot = bot
        self.game = game
        self.__cog_name__ = game  # discord.py's cog name, unique per bot: one cog per game
        self.panels = PanelMessages(lambda: bot.settings.pictures, bot.foreground.quiet, bot.foreground.later,
                                    lambda guild_id: bot.communities.pictures_on(guild_id))

    @staticmethod
    def for_game(bot: SpeakeasyBot, game: str) -> GameCog:
        """The cog of registered ``game``: an instance of the class its spec names
        (:attr:`bot.games.GameSpec.cog`, ``"module:Class"``), else of :class:`GameCog`. Raises
        ``KeyError`` for an unknown game, ``ImportError``/``AttributeError`` when the class
        cannot be found, ``TypeError`` when it is not a :class:`GameCog`."""
        path = GAMES[game].cog
        if path is None:
            return GameCog(bot, game)
        module, _, name = path.partition(":")
        klass = getattr(importlib.import_module(module), name)
        if not (isinstance(klass, type) and issubclass(klass, GameCog)):
            raise TypeError(f"the cog of {game!r}, {path}, is not a GameCog")
        return klass(bot, game)

    @staticmethod
    def detached(bot: SpeakeasyBot, game: str) -> GameCog:
        """A cog of ``game`` that is not added to the bot (no commands, no listeners): for the
        tables of a game whose cog is not loaded. The shared flow when its own cog cannot be
        made (logged)."""
        try:
            return GameCog.for_game(bot, game)
        except (KeyError, ImportError, AttributeError, TypeError):
            log.warning("no cog for game %r; using the shared table flow", game)
            return GameCog(bot, game)

    # ------------------------------------------------------------------ board and panels
    async def board_op(self, interaction: discord.Interaction, table_id: int, op: str) -> None:
        """A board button: open my panel, the rules, the pictures' legend, abandon (host or
        Manage Server)."""
        t = user_t(interaction)
        if op in ("panel", "legend"):  # a picture to draw: deferred when not answered in time
            deferral = Deferral(interaction, thinking=True)
            try:
                await self._picture_op(interaction, table_id, op, t, deferral)
            finally:  # a refusal is answered after a defer under way
                await deferral.settled()
            return
        table = await self.bot.hall.table(table_id)
        if op == "rules":
            await answer(interaction, **card_message(GAMES[table.row.game].presenter.rules(t)))
        elif op == "abandon":
            await interaction.response.defer(ephemeral=True, thinking=True)
            await self.bot.tables.abandon(table_id, interaction.user.id, is_admin(interaction))
            await reply(interaction, t("table.abandoned_by_you"))
        elif op == "rematch":
            await self.rematch(interaction, table_id)
        elif op == "mute":
            muted = await self.bot.tables.toggle_muted(table_id, interaction.user.id)
            await reply(interaction, t("board.muted" if muted else "board.unmuted"))
        else:
            raise ServiceError("err.bad_button")

    async def _picture_op(self, interaction: discord.Interaction, table_id: int, op: str, t: Translator,
                          deferral: Deferral) -> None:
        """The board buttons that answer with a picture: my panel, the pictures' legend (for
        games that draw it apart); ``deferral`` was made at the click's arrival."""
        table = await self.bot.hall.table(table_id)
        if op == "panel":
            seat = table.seat_of(interaction.user.id)
            if seat is None:
                raise ServiceError("err.not_seated")
            if table.row.status != "running":
                raise ServiceError("err.table_not_running")
            if await self.bot.tables.back(table_id, interaction.user.id):
                table = await self.bot.hall.table(table_id)
            await self.send_panel(interaction, table, seat, t, deferral)
            return
        if not render.legend(table.row.game):
            raise ServiceError("err.bad_button")
        png = await asyncio.to_thread(render.render_legend, table.row.game, t.lang)
        await deferral.settled()
        await answer(interaction, file=discord.File(io.BytesIO(png), filename="legend.png"),
                     **card_message(Block(title=t("board.legend")), picture="attachment://legend.png",
                                    alt=t("board.legend")))

    async def _parent_of(self, table_id: int, interaction: discord.Interaction) -> int | None:
        """The channel of the thread a table was opened in (``/play`` in a thread), else ``None``."""
        channel_id = (await self.bot.hall.table(table_id)).row.channel_id
        channel = self.bot.get_channel(channel_id)
        if channel is None and interaction.channel_id == channel_id:
            channel = interaction.channel
        return channel.parent_id if isinstance(channel, discord.Thread) else None

    async def rematch(self, interaction: discord.Interaction, table_id: int) -> None:
        """The finished board's Rematch button: a new lobby in the table's channel with the same
        game, options and seats (see :meth:`bot.lobbies.Lobbies.rematch`); the clicker
        gets a link to it (or to the host's lobby already open there)."""
        t = user_t(interaction)
        await interaction.response.defer(ephemeral=True, thinking=True)
        try:
            table = await self.bot.lobbies.rematch(table_id, interaction.user.id,
                                                   parent_id=await self._parent_of(table_id, interaction))
        except ServiceError as err:
            if err.key != "err.lobby_exists":
                raise
            other = await self.bot.hall.table(int(err.params["table"]))
            link = message_link(other.row.guild_id, other.row.channel_id, other.row.lobby_message_id)
            if interaction.user.id == other.row.host_user_id:
                await reply(interaction, t("err.lobby_exists", link=link))
            else:  # the host's lobby (this rematch, opened by another click, or one of their own)
                host = next((s.name for s in other.seats if s.user_id == other.row.host_user_id), "")
                await reply(interaction, t("rematch.exists", host=compose.escape_name(host), link=link))
            return
        channel = self.bot.get_partial_messageable(table.row.channel_id, guild_id=table.row.guild_id)
        try:
            msg = await channel.send(**await self.lobby_message(table))
        except discord.HTTPException:
            log.warning("could not post the rematch lobby of table %s", table_id, exc_info=True)
            await self.bot.lobbies.cancel(table.id, table.row.host_user_id)
            await reply(interaction, t("err.cannot_post"))
            return
        await self.bot.tables.set_messages(table.id, lobby_message_id=msg.id)
        link = message_link(table.row.guild_id, table.row.channel_id, msg.id)
        await reply(interaction, t("rematch.opened", link=link))

    async def send_panel(self, interaction: discord.Interaction, table: TableSnapshot, seat: int, t: Translator,
                         deferral: Deferral) -> None:
        """A fresh ephemeral panel for ``seat``, with its latest private events (cards drawn…),
        and its picture (the text panel if the upload is refused). When it is not ready within
        :data:`DEFER_AFTER_S` of the click (``deferral``, made at its arrival), the interaction
        is deferred first (Discord waits 3 s) and the panel fills its original response."""
        events = await self.bot.records.recent_events(table.id, 40)
        drawing = self.panels.start(interaction, table, seat, edit=False)
        notes = compose.private_notes(events, table, t, seat)
        panel = compose.panel(table, seat, t, "\n".join(notes)[:1900])
        shown = await self.panels.with_picture(panel, table, drawing, edit=False)
        await deferral.settled()
        try:
            await answer(interaction, **shown)
        except discord.Forbidden:
            log.warning("panel picture of table %s refused; sending the text panel", table.id)
            await answer(interaction, **panel_fields(panel, table))

    async def panel_for(self, interaction: discord.Interaction, table_id: int, version: int) -> Panel:
        """The panel the clicker saw at ``version`` (recomputed); refuses stale and foreign clicks."""
        table = await self.bot.hall.table(table_id)
        seat = table.seat_of(interaction.user.id)
        if seat is None:
            raise ServiceError("err.not_seated")
        if table.row.status != "running":
            raise ServiceError("err.table_not_running")
        if version != table.version:
            raise ServiceError("err.stale")
        return compose.panel(table, seat, user_t(interaction))

    async def panel_select(self, interaction: discord.Interaction, table_id: int, version: int, row: int,
                           values: list[str]) -> None:
        """A panel select: the values must be options of the select the clicker saw; a select
        of an older version redraws the panel."""
        if version != (await self.bot.hall.table(table_id)).version:
            await self.act(interaction, table_id, version, "-")  # stale: the panel is redrawn
            return
        panel = await self.panel_for(interaction, table_id, version)
        comp = panel.rows[row][0] if row < len(panel.rows) else None
        if not isinstance(comp, Select) or not values or not all(v in {o.value for o in comp.options} for v in values):
            raise ServiceError("err.stale")
        await self.act(interaction, table_id, version, comp.code_for(values))

    async def act(self, interaction: discord.Interaction, table_id: int, version: int, code: str) -> None:
        """Submit an action; redraw the clicker's panel in place (the answer to the click itself
        when the service takes less than :data:`DEFER_AFTER_S`, else the interaction is deferred
        first, since Discord waits 3 s only: the table may be busy with another click). A click
        on a public message is answered with a new private panel (deferred at once)."""
        t = user_t(interaction)
        in_panel = interaction.message is not None and interaction.message.flags.ephemeral
        if not in_panel:
            await interaction.response.defer(ephemeral=True, thinking=True)
        notice = ""
        events: tuple[Event, ...] = ()
        # the submit is awaited in this task (no hand-over to another task, no extra turn of the
        # event loop); a timer defers the interaction if it takes longer than DEFER_AFTER_S
        deferral = Deferral(interaction, thinking=False) if in_panel else None
        try:
            submitted = await self.bot.tables.submit(table_id, interaction.user.id, version, code)
            events = tuple(submitted.events)
            if submitted.status == "buffered":
                notice = t("panel.buffered")
        except ServiceError as err:
            if err.key != "err.stale":
                raise
            notice = t("err.stale_refreshed")
        finally:
            if deferral is not None:  # the answer below edits the deferred message
                await deferral.settled()
        table = await self.bot.hall.table(table_id)
        seat = table.seat_of(interaction.user.id)
        if seat is None:  # pragma: no cover - submit already refused
            raise ServiceError("err.not_seated")
        drawing = self.panels.start(interaction, table, seat, edit=in_panel)
        presenter = GAMES[table.row.game].presenter
        mine = [e for e in events if e.audience is not None and seat in e.audience]
        flashes = [(e, presenter.flash_seconds(e)) for e in mine]
        lines = compose.private_notes(list(events), table, t, seat, limit=10)
        notice = "\n".join([notice, *lines]).strip()[:1900]
        panel = compose.panel(table, seat, t, notice)
        await self.panels.answer(interaction, table, panel, drawing, in_panel=in_panel)
        for event, secs in flashes:
            if secs:
                text = compose.private_log([event], table, t, seat)[0]
                try:
                    msg = await interaction.followup.send(ephemeral=True, wait=True,
                                                          **text_message(t("panel.flash", text=text, seconds=secs)))
                    await delete_later(self.bot.timers, interaction, msg, table_id, secs)  # survives a restart
                except discord.HTTPException:  # the move is applied; only the peek message failed
                    log.warning("could not show a private flash message at table %s", table_id, exc_info=True)

    async def prompt_at(self, interaction: discord.Interaction, table_id: int, version: int,
                        at: tuple[int, int]) -> NumberPrompt:
        """The number prompt of the button at row, column ``at`` in the clicker's panel at
        ``version`` (refuses stale and foreign clicks)."""
        panel = await self.panel_for(interaction, table_id, version)
        r, c = at
        comp = panel.rows[r][c] if r < len(panel.rows) and c < len(panel.rows[r]) else None
        if not isinstance(comp, Button) or comp.prompt is None:
            raise ServiceError("err.stale")
        return comp.prompt

    async def prompt(self, interaction: discord.Interaction, table_id: int, version: int, at: tuple[int, int]) -> None:
        """A number button: show its modal (answered from its custom_id, see :meth:`number`)."""
        prompt = await self.prompt_at(interaction, table_id, version, at)
        placeholder = user_t(interaction)("prompt.range", min=prompt.minimum, max=prompt.maximum)
        await interaction.response.send_modal(NumberModal(NumberModalId(table_id, version, at), prompt, placeholder))

    async def number(self, interaction: discord.Interaction, modal: NumberModalId, raw: str) -> None:
        """A submitted number modal: the prompt is found again in the panel it came from; the
        number must be 1 to 9 ASCII digits within the prompt's bounds."""
        prompt = await self.prompt_at(interaction, modal.table_id, modal.version, modal.at)
        n = typed_number(raw)
        if n is None or not prompt.minimum <= n <= prompt.maximum:
            raise ServiceError("err.bad_number", min=prompt.minimum, max=prompt.maximum)
        await self.act(interaction, modal.table_id, modal.version, prompt.template.format(n=n))
