"""The Discord side of :class:`bot.service.Notifier`: threads, the board, pings and results.

Board edits are coalesced per table by a small updater task, so a burst of AI moves becomes a
few edits that always end on the latest state. Nothing here blocks an interaction response:
callers acknowledge the interaction first, the notifier works in the background.

The board message carries the picture of the table (:mod:`cogs.pictures`, an embed image
``attachment://board.png``) beside a short text (the headline, who has chosen, the recent
events). A new file is uploaded only when the picture's key changes; otherwise the edit keeps
the attachment and changes the text. Without a picture (``PICTURES=off``, no Attach Files,
rendering failed) the board is the full text embed, and the table carries on.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import io
import logging
from collections.abc import Coroutine, Iterable
from typing import TYPE_CHECKING, Any

import discord

from bot import admin, texts
from bot.i18n import Translator
from bot.service import Notifier, ServiceError, TableView
from bot.ui import Board
from cogs import pictures
from cogs.components import ROUTER_COG, board_view, embed
from engine.core import Event, Outcome

if TYPE_CHECKING:
    from bot.client import SpeakeasyBot

log = logging.getLogger(__name__)

#: Where a table's messages go: its thread, or its channel.
Place = discord.TextChannel | discord.Thread | discord.VoiceChannel | discord.StageChannel | discord.PartialMessageable


#: Discord error code of a message that is gone while its channel is still there (Unknown Message).
UNKNOWN_MESSAGE = 10008
#: Discord error code of a post in an archived thread (a 400, not a 403).
THREAD_ARCHIVED = 50083


def board_buttons(table: TableView, t: Translator) -> discord.ui.View:
    """The board's buttons: open my panel; abandon (host/admin) while running; Rematch once
    the game is finished."""
    running = table.row.status == "running"
    buttons = [
        ("panel", t("board.my_panel"), "primary", not running),
        ("rules", t("board.rules"), "secondary", False),
        ("abandon", t("board.abandon"), "danger", not running),
    ]
    if table.row.status == "finished":
        buttons.append(("rematch", t("board.rematch"), "success", False))
    return board_view(table.id, buttons)


def panel_button(table: TableView, t: Translator) -> discord.ui.View:
    """The one "My panel" button that goes with a turn ping or a reminder."""
    return board_view(table.id, [("panel", t("board.my_panel"), "primary", False)])


def mentions(table: TableView, seats: Iterable[int] | None = None) -> str:
    """Mentions of the members in ``seats`` (every member's seat if ``None``), AI seats skipped."""
    chosen = table.seats if seats is None else [table.seats[s] for s in seats]
    return " ".join(f"<@{s.user_id}>" for s in chosen if s.user_id)


def place_gone(error: discord.HTTPException) -> bool:
    """Whether ``error`` says the thread or channel itself cannot be used (any 403, a 404 other
    than Unknown Message, a post in an archived thread): the table must move, no retry helps."""
    if isinstance(error, discord.Forbidden):
        return True
    if isinstance(error, discord.NotFound):
        return error.code != UNKNOWN_MESSAGE
    return error.code == THREAD_ARCHIVED


def message_link(guild_id: int, channel_id: int, message_id: int | None) -> str:
    """A jump link to a message (or to the channel when ``message_id`` is None)."""
    tail = f"/{message_id}" if message_id else ""
    return f"https://discord.com/channels/{guild_id}/{channel_id}{tail}"


class DiscordNotifier(Notifier):
    """Keeps each table's thread up to date. One per bot instance."""

    def __init__(self, bot: SpeakeasyBot) -> None:
        self.bot = bot
        self._dirty: set[int] = set()
        self._updaters: dict[int, asyncio.Task[None]] = {}
        self._tasks: set[asyncio.Task[Any]] = set()
        self._pinged: dict[int, tuple[frozenset[int], int | None]] = {}
        self._gone_guilds: set[int] = set()
        self._moving: set[int] = set()
        self.pictures = pictures.BoardPictures(lambda: bot.settings.pictures)

    # ---------------------------------------------------------------- plumbing
    def _spawn(self, coro: Coroutine[Any, Any, Any]) -> None:
        task = asyncio.create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def flush(self) -> None:
        """Wait until every pending board edit and message is sent (tests, shutdown)."""
        while True:
            pending = [t for t in (*self._tasks, *self._updaters.values()) if not t.done()]
            if not pending:
                return
            await asyncio.gather(*pending, return_exceptions=True)

    def _messageable(self, channel_id: int | None) -> Place | None:
        if channel_id is None:
            return None
        channel = self.bot.get_channel(channel_id)
        if isinstance(channel, (discord.TextChannel, discord.Thread, discord.VoiceChannel, discord.StageChannel)):
            return channel
        return self.bot.get_partial_messageable(channel_id)

    def _place(self, table: TableView) -> Place | None:
        if table.row.guild_id in self._gone_guilds:
            return None  # the bot left that server: no REST call for its tables
        return self._messageable(table.row.thread_id or table.row.channel_id)

    async def _send(self, table: TableView, *, fallback: bool = True, **kwargs: Any) -> discord.Message | None:
        """Post in the table's thread (or channel); ``None`` when it failed.

        Retries are discord.py's own, bounded, and only where one can help: rate limits (429)
        are waited out, server errors (5xx) get a few attempts with growing pauses. Nothing is
        retried here: a thread that is gone or closed to the bot (404/403) moves the table to
        its channel (``fallback``, see :meth:`move_to_channel`) and the post goes there once."""
        place = self._place(table)
        if place is None:
            return None
        try:
            return await place.send(allowed_mentions=discord.AllowedMentions(users=True, roles=False, everyone=False),
                                    **kwargs)
        except discord.HTTPException as err:
            if fallback and table.row.thread_id and place_gone(err):
                moved = await self.move_to_channel(table.id, table.row.thread_id)
                if moved is not None and moved.row.status == "running":
                    return await self._send(moved, fallback=False, **kwargs)
                return None
            log.warning("could not post in table %s's thread", table.id, exc_info=True)
            return None

    # ---------------------------------------------------------------- board
    def request_board(self, table_id: int) -> None:
        """Ask for the board of ``table_id`` to be redrawn soon (coalesced)."""
        self._dirty.add(table_id)
        task = self._updaters.get(table_id)
        if task is None or task.done():
            task = asyncio.create_task(self._update_board(table_id))
            self._updaters[table_id] = task
            task.add_done_callback(functools.partial(self._updater_done, table_id))

    def _updater_done(self, table_id: int, done: asyncio.Task[None]) -> None:
        """Forget a finished board updater (unless a newer one took its place)."""
        if self._updaters.get(table_id) is done:
            del self._updaters[table_id]

    async def _update_board(self, table_id: int) -> None:
        while table_id in self._dirty:
            await self.bot.service.foreground.quiet()  # a member's answer first (bot.foreground)
            self._dirty.discard(table_id)
            try:
                await self.draw_board(await self.bot.service.table(table_id))
            except Exception:
                log.exception("board update of table %s failed", table_id)

    async def _log_file(self, table: TableView, t: Translator) -> discord.File | None:
        """The public game log of a finished table, as a text file (see :func:`bot.admin.game_log`)."""
        if table.row.status != "finished" or table.state is None:
            return None
        events = await self.bot.service.all_events(table.id)
        text = admin.game_log(table, events, table.game.outcome(table.state), t)
        return discord.File(io.BytesIO(text.encode("utf-8")), filename=admin.game_log_filename(table.id))

    async def draw_board(self, table: TableView, *, fallback: bool = True) -> bool:
        """Edit (or post, the first time) the board message of a table; False when it could not.

        A finished board carries the game log as a text file. When the thread is gone or closed
        to the bot, the table moves to its channel (``fallback``, see :meth:`move_to_channel`)."""
        t = Translator(table.row.lang)
        events = await self.bot.service.recent_events(table.id, 60)
        board = texts.board(table, events, t)
        view = board_buttons(table, t)
        place = self._place(table)
        if place is None:
            return False
        picture = await self.pictures.picture(table, place)
        if table.row.board_message_id:
            try:
                log_file = await self._log_file(table, t)
                edited = await self._edit_board(place, table, board, t, view, picture, log_file)
                self.pictures.remember(table.id, edited, picture)
                return True
            except discord.HTTPException as err:
                if fallback and table.row.thread_id and place_gone(err):
                    moved = await self.move_to_channel(table.id, table.row.thread_id)
                    if moved is None:  # moved meanwhile by another path: draw where it is now
                        self.request_board(table.id)
                    return moved is not None
                if not isinstance(err, discord.NotFound):
                    log.warning("board edit of table %s failed", table.id, exc_info=True)
                    return False
                log.info("board of table %s was deleted; posting a new one", table.id)
        if picture is not None and picture.png is None:  # the message that kept it is gone: draw it
            self.pictures.forget(table.id)
            picture = await self.pictures.picture(table, place)
        content = self.pictures.content(table.id, board, t, picture, new=True)
        msg = await self._send(table, fallback=fallback, view=view,
                               **pictures.with_log(content, await self._log_file(table, t), new=True))
        if msg is None and picture is not None:  # e.g. no Attach Files here after all: the text board
            picture = None
            content = self.pictures.content(table.id, board, t, None, new=True)
            msg = await self._send(table, fallback=fallback, view=view,
                                   **pictures.with_log(content, await self._log_file(table, t), new=True))
        if msg is None:
            return False
        self.pictures.remember(table.id, msg, picture)
        await self.bot.service.set_messages(table.id, board_message_id=msg.id)
        return True

    async def _edit_board(self, place: Place, table: TableView, board: Board, t: Translator,
                          view: discord.ui.View, picture: pictures.Picture | None,
                          log_file: discord.File | None = None) -> discord.Message:
        """Edit the board message (with the game log file of a finished table); a refused upload
        (403: no Attach Files) falls back to the text board in the same call sequence."""
        message = place.get_partial_message(table.row.board_message_id or 0)
        try:
            content = self.pictures.content(table.id, board, t, picture, new=False)
            return await message.edit(view=view, **pictures.with_log(content, log_file, new=False))
        except discord.Forbidden:
            if picture is None:
                raise
            log.warning("board picture of table %s refused (Attach Files?); showing the text board", table.id)
            self.pictures.forget(table.id)
            if log_file is not None:
                log_file.reset()
            content = self.pictures.content(table.id, board, t, None, new=False)
            return await message.edit(view=view, **pictures.with_log(content, log_file, new=False))

    # ---------------------------------------------------------------- notifier API
    async def lobby_changed(self, table: TableView) -> None:
        """Lobby edits are answered by the clicking interaction itself: nothing to do."""

    async def lobby_expired(self, table: TableView) -> None:
        """A lobby was not started in time: its message says so, with no buttons left."""
        await self.redraw_lobby(table, expired=True)

    async def redraw_lobby(self, table: TableView, *, expired: bool = False) -> bool:
        """Edit a lobby's message to show the table as it is now (a closed lobby's buttons
        disabled; with ``expired``, the expiry notice and no buttons at all). Returns False
        when there is no message to edit or the edit failed (logged; never raises)."""
        row = table.row
        if not row.lobby_message_id or row.guild_id in self._gone_guilds:
            return False
        router = self.bot.get_cog(ROUTER_COG)
        if router is None:
            return False
        content = await router.cog_for(row.game).lobby_message(table)  # type: ignore[attr-defined]
        if expired:
            minutes = self.bot.service.lobby_minutes
            content["embed"].description = Translator(row.lang)("lobby.expired", minutes=minutes)
            content["view"] = None
        channel = self.bot.get_partial_messageable(row.channel_id, guild_id=row.guild_id)
        try:
            await channel.get_partial_message(row.lobby_message_id).edit(**content)
        except discord.HTTPException:
            log.info("could not edit the lobby message of table %s", table.id, exc_info=True)
            return False
        return True

    async def table_started(self, table: TableView) -> None:
        """Open the table's thread from the lobby message and post the first board (awaited:
        the board exists before the first AI move)."""
        t = Translator(table.row.lang)
        channel = self.bot.get_channel(table.row.channel_id)
        thread_id = None
        name = t("thread.name", game=texts.game_title(table.row.game, t), id=table.id)[:100]
        try:
            if isinstance(channel, discord.TextChannel):
                if table.row.lobby_message_id:
                    thread = await channel.get_partial_message(table.row.lobby_message_id).create_thread(
                        name=name, auto_archive_duration=1440)
                else:
                    thread = await channel.create_thread(name=name, type=discord.ChannelType.public_thread,
                                                         auto_archive_duration=1440)
                thread_id = thread.id
        except discord.HTTPException:
            log.warning("could not create a thread for table %s; playing in the channel", table.id, exc_info=True)
        if thread_id:
            await self.bot.service.set_messages(table.id, thread_id=thread_id)
            table = await self.bot.service.table(table.id)
        posted = await self.draw_board(table, fallback=False)
        if not posted and thread_id:
            # a thread we cannot post in: play in the channel instead
            log.warning("cannot post in the thread of table %s; playing in the channel", table.id)
            await self.bot.service.set_messages(table.id, thread_id=None)
            table = await self.bot.service.table(table.id)
            posted = await self.draw_board(table, fallback=False)
        if not posted:
            # nowhere to show the board: nobody could play; the host is told by the Start click
            log.warning("table %s has no board; abandoning it", table.id)
            await self.bot.service.abandon(table.id, None)
            return
        everyone = mentions(table)
        await self._send(table, content=t("thread.welcome", players=everyone))
        await self._ping_turn(table)

    async def step_applied(self, table: TableView, events: list[Event]) -> None:
        self.request_board(table.id)
        if table.row.status == "running":
            self._spawn(self._ping_turn(table))

    async def choice_buffered(self, table: TableView, seat: int) -> None:
        """Redraw the board's "who has chosen" text, except for an AI seat's choice when another
        AI seat of the table still has to choose at this step: the AI driver buffers that one
        at once, and its redraw shows both (one edit instead of two)."""
        if table.more_ai_choices_coming(seat):
            return
        self.request_board(table.id)

    async def _ping_turn(self, table: TableView, *, moved: bool = False) -> None:
        """Ping the members who must act, once per turn: again when the set of members changes,
        or when a new simultaneous step opens (e.g. a follow-up after a secret choice); not for
        one member's consecutive moves in a turn. Not while the table moves to its channel
        (``table`` may still name the lost thread): the move pings the turn itself (``moved``)."""
        if table.id in self._moving and not moved:
            return
        if self.bot.service.foreground.busy:
            await self.bot.service.foreground.quiet()  # a member's answer first (bot.foreground)
            if table.id in self._moving and not moved:
                return
            with contextlib.suppress(ServiceError):
                if (await self.bot.service.table(table.id)).row.thread_id != table.row.thread_id:
                    return  # moved to its channel meanwhile: the move pinged the turn
        turn = table.turn()
        humans = turn[0]
        if turn == self._pinged.get(table.id):
            return
        self._pinged[table.id] = turn
        if not humans:
            return
        t = Translator(table.row.lang)
        key = "turn.everyone" if len(table.to_act()) > 1 else "turn.yours"
        await self._send(table, content=t(key, players=mentions(table, sorted(humans))), view=panel_button(table, t))

    async def reminder(self, table: TableView, seats: list[int]) -> None:
        t = Translator(table.row.lang)
        self._spawn(self._send(table, content=t("turn.reminder", players=mentions(table, seats)),
                               view=panel_button(table, t)))

    async def timed_out(self, table: TableView, seats: list[int]) -> None:
        t = Translator(table.row.lang)
        self.request_board(table.id)
        names = ", ".join(texts.escape_name(table.seats[s].name) for s in seats)
        self._spawn(self._send(table, content=t("turn.timed_out", names=names)))

    async def went_away(self, table: TableView, seat: int) -> None:
        t = Translator(table.row.lang)
        self.request_board(table.id)
        self._spawn(self._send(table, content=t("turn.away", player=f"<@{table.seats[seat].user_id}>")))

    async def came_back(self, table: TableView, seat: int) -> None:
        t = Translator(table.row.lang)
        self.request_board(table.id)
        self._spawn(self._send(table, content=t("turn.back", name=texts.escape_name(table.seats[seat].name))))

    async def table_finished(self, table: TableView, outcome: Outcome) -> None:
        t = Translator(table.row.lang)
        self.request_board(table.id)
        self._pinged.pop(table.id, None)
        self._spawn(self._send(table, embed=embed(texts.results_card(table, outcome, t))))

    async def table_abandoned(self, table: TableView) -> None:
        t = Translator(table.row.lang)
        self.request_board(table.id)
        self._pinged.pop(table.id, None)
        self._spawn(self._send(table, content=t("table.abandoned")))

    # ---------------------------------------------------------------- Discord's lifecycle (issue 13)
    async def members_gone(self, guild_id: int, user_ids: list[int]) -> set[int]:
        """Members no longer in the server, asked once each (``GET /guilds/…/members/…``, no
        privileged intent needed): a 404 means gone; any other error counts as present."""
        if guild_id in self._gone_guilds:
            return set()
        gone = set()
        for user_id in user_ids:
            try:
                await self.bot.http.get_member(guild_id, user_id)
            except discord.NotFound:
                gone.add(user_id)
            except discord.HTTPException:
                log.warning("could not check whether member %s is still in guild %s", user_id, guild_id,
                            exc_info=True)
        return gone

    async def move_to_channel(self, table_id: int, thread_id: int) -> TableView | None:
        """The running table of ``thread_id`` lost its thread: play on in the parent channel
        with a notice and a new board. When the channel cannot be posted in either, the table
        is abandoned silently (unrated). Returns the moved table, or ``None`` when it was not
        in that thread any more (already moved, or finished)."""
        if table_id in self._moving:
            return None
        self._moving.add(table_id)
        try:
            table = await self.bot.service.table(table_id)
            if table.row.status != "running" or table.row.thread_id != thread_id:
                return None
            log.info("table %s lost its thread %s; moving it to channel %s", table_id, thread_id,
                     table.row.channel_id)
            table = await self.bot.service.leave_thread(table_id)
            t = Translator(table.row.lang)
            everyone = mentions(table)
            notice = await self._send(table, fallback=False, content=t("thread.moved", id=table.id, players=everyone))
            if notice is None or not await self.draw_board(table, fallback=False):
                log.warning("table %s can be shown nowhere; abandoning it (unrated)", table_id)
                await self.bot.service.close_silently(table_id)
                return await self.bot.service.table(table_id)
            self._pinged.pop(table_id, None)
            await self._ping_turn(table, moved=True)
            return table
        finally:
            self._moving.discard(table_id)

    async def thread_closed(self, thread: discord.Thread | None, thread_id: int, locked: bool) -> None:
        """A table's thread was archived or locked: reopen it when the bot may, otherwise move
        the table to its channel."""
        tables = [tb for tb in await self.bot.service.tables_in(thread_id)
                  if tb.row.status == "running" and tb.row.thread_id == thread_id]
        if not tables:
            return
        try:
            changes: dict[str, Any] = {"archived": False}
            if locked:
                changes["locked"] = False
            if thread is not None:
                await thread.edit(**changes)
            else:
                await self.bot.http.edit_channel(thread_id, **changes)
            return
        except discord.HTTPException:
            log.info("cannot reopen thread %s; moving its table to the channel", thread_id, exc_info=True)
        for tb in tables:
            await self.move_to_channel(tb.id, thread_id)

    async def place_deleted(self, place_id: int) -> None:
        """A thread or channel was deleted: tables playing in a deleted thread move to their
        channel; lobbies and tables whose channel is gone are closed silently (unrated)."""
        for tb in await self.bot.service.tables_in(place_id):
            if tb.row.status == "running" and tb.row.thread_id == place_id and tb.row.channel_id != place_id:
                await self.move_to_channel(tb.id, place_id)
            else:
                await self.bot.service.close_silently(tb.id)

    async def guild_left(self, guild_id: int) -> list[int]:
        """The bot was removed from a server: no further REST call for its tables, which are
        closed at once (deadlines cleared, nothing rated). Returns their ids."""
        self._gone_guilds.add(guild_id)
        return await self.bot.service.close_guild(guild_id)

    def guild_joined(self, guild_id: int) -> None:
        """The bot is in ``guild_id`` (again): its new tables may post."""
        self._gone_guilds.discard(guild_id)
