"""Posting in a table's place and drawing its board (the plumbing of
:class:`cogs.notifier.DiscordNotifier`, which adds the lifecycle: lobbies, pings, results,
vanished threads and servers).

Board edits are coalesced per table by a small updater task, so a burst of AI moves becomes a
few edits that always end on the latest state. Nothing here blocks an interaction response:
callers acknowledge the interaction first, the board is drawn in the background.

Each channel (a table's thread, or the channel of tables without one) has an edit budget
(:class:`cogs.edit_budget.EditBudget`): at most ``BOARD_EDITS_PER_5S`` board edits or posts in any 5 seconds.
An updater whose channel has spent its budget waits, then draws the state of that moment: the
steps it did not show stay in the board's recent events. Discord's per-channel limit is not
published; a 429 on a channel route (discord.py waits and retries it itself) is logged once per
route and channel, with its bucket, by :class:`cogs.edit_budget.RateLimitWatch`, and pauses that channel's board
edits for the time Discord asked.

The board message is one Components V2 container (:mod:`cogs.layout`): the picture of the table
(:mod:`cogs.pictures`, a media gallery showing ``attachment://board.png``), a short text (the
headline, who has chosen, the recent events) and the buttons. A new file is uploaded only when
the picture's key changes; otherwise the edit keeps the attachment and changes the text. Without
a picture (``PICTURES=off``, no Attach Files, rendering failed) the board is the full text in
the same container, and the table carries on. A board posted as an embed by an earlier version
becomes a V2 message at its next edit (the message fields clear its content and embeds).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import io
import logging
import time
import weakref
from collections.abc import Callable, Coroutine, Iterable
from typing import TYPE_CHECKING, Any

import discord

from bot import admin, compose, render
from bot.i18n import Translator
from bot.service import TableSnapshot
from bot.ui import Board
from cogs import pictures
from cogs.components import board_rows
from cogs.edit_budget import EditBudget, RateLimitWatch
from cogs.layout import Rows, text_message

if TYPE_CHECKING:
    from bot.client import SpeakeasyBot

log = logging.getLogger(__name__)

#: Where a table's messages go: its thread, or its channel.
Place = discord.TextChannel | discord.Thread | discord.VoiceChannel | discord.StageChannel | discord.PartialMessageable


#: Discord error code of a message that is gone while its channel is still there (Unknown Message).
UNKNOWN_MESSAGE = 10008
#: Discord error code of a post in an archived thread (a 400, not a 403).
THREAD_ARCHIVED = 50083


def board_buttons(table: TableSnapshot, t: Translator, legend: bool = False) -> Rows:
    """The board's buttons: open my panel; the rules; the pictures' legend (``legend``: a game
    whose pictures leave it out, with pictures on); abandon (host/admin) while running; at
    ``correspondence`` pace, mute (each member mutes their own pings of the table); Rematch once
    the game is finished."""
    running = table.row.status == "running"
    buttons = [
        ("panel", t("board.my_panel"), "primary", not running),
        ("rules", t("board.rules"), "secondary", False),
        *([("legend", t("board.legend"), "secondary", False)] if legend else []),
        ("abandon", t("board.abandon"), "danger", not running),
    ]
    if running and table.row.pace == "correspondence":
        buttons.append(("mute", t("board.mute"), "secondary", False))
    if table.row.status == "finished":
        buttons.append(("rematch", t("board.rematch"), "success", False))
    return board_rows(table.id, buttons)


def ping_message(text: str, table: TableSnapshot, t: Translator) -> dict[str, Any]:
    """A turn ping or a reminder: ``text`` (its mentions notify) and the one "My panel" button."""
    return text_message(text, board_rows(table.id, [("panel", t("board.my_panel"), "primary", False)]))


def mentions(table: TableSnapshot, seats: Iterable[int] | None = None) -> str:
    """Mentions of the members in ``seats`` (every member's seat if ``None``), AI seats skipped;
    a member who muted the table is named in bold, not pinged."""
    chosen = table.seats if seats is None else [table.seats[s] for s in seats]
    return " ".join(f"**{compose.escape_name(s.name)}**" if s.muted else f"<@{s.user_id}>" for s in chosen if s.user_id)


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


def _shown_in(row: Any) -> int:
    """The channel a table's board is in: its thread, else its channel."""
    return int(row.thread_id or row.channel_id)


_POSTERS: weakref.WeakSet[BoardPoster] = weakref.WeakSet()


def _rate_limited(channel: int, seconds: float) -> None:
    """Pause ``channel``'s board edits in every poster of this process (one per bot)."""
    for poster in list(_POSTERS):
        poster.budget.back_off(channel, seconds, poster.now())


#: Installed once on discord.py's HTTP logger (see :class:`RateLimitWatch`).
WATCH = RateLimitWatch(_rate_limited)
logging.getLogger("discord.http").addFilter(WATCH)


class BoardPoster:
    """Posts in each table's thread (or channel) and keeps its board message up to date; the
    base of :class:`cogs.notifier.DiscordNotifier` (one per bot instance)."""

    def __init__(self, bot: SpeakeasyBot) -> None:
        self.bot = bot
        self._dirty: set[int] = set()
        self._updaters: dict[int, asyncio.Task[None]] = {}
        self._tasks: set[asyncio.Task[Any]] = set()
        self._gone_guilds: set[int] = set()
        self._reopened_for: set[int] = set()  # tables whose thread was reopened, their board not drawn since
        self.pictures = pictures.BoardPictures(lambda: bot.settings.pictures,
                                               lambda guild_id: bot.communities.pictures_on(guild_id))
        self.budget = EditBudget(bot.settings.board_edits_per_5s)
        _POSTERS.add(self)

    def sizes(self) -> dict[str, int]:
        """Entries held now: ``dirty`` boards, board ``updaters``, other ``tasks``, ``gone_guilds``,
        and the board pictures known (``pictures``). For tests and the soak benchmark."""
        return {"dirty": len(self._dirty), "updaters": len(self._updaters), "tasks": len(self._tasks),
                "gone_guilds": len(self._gone_guilds), **self.pictures.sizes()}

    async def move_to_channel(self, table_id: int, thread_id: int) -> TableSnapshot | None:
        """Move a table whose thread is gone to its channel (see :class:`cogs.notifier.DiscordNotifier`)."""
        raise NotImplementedError

    async def reopen_thread(self, thread: discord.Thread | None, thread_id: int, locked: bool = False) -> bool:
        """Unarchive (and unlock) a table's thread; whether it worked (see :class:`cogs.notifier.DiscordNotifier`)."""
        raise NotImplementedError

    async def _reopened(self, table: TableSnapshot, err: discord.HTTPException) -> bool:
        """Whether a post or edit refused because the table's own thread is archived (archived
        while the bot was away: no event told it) was answered by reopening that thread: the
        caller tries once more there, rather than moving the table."""
        if err.code != THREAD_ARCHIVED or table.row.thread_id is None or table.id in self._reopened_for:
            return False  # (reopened once already and still refused: the table moves)
        if not await self.reopen_thread(None, table.row.thread_id):
            return False
        self._reopened_for.add(table.id)
        return True

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

    def _place(self, table: TableSnapshot) -> Place | None:
        if table.row.guild_id in self._gone_guilds:
            return None  # the bot left that server: no REST call for its tables
        return self._messageable(table.row.thread_id or table.row.channel_id)

    async def _send(self, table: TableSnapshot, *, fallback: bool = True, reopen: bool = True,
                    **kwargs: Any) -> discord.Message | None:
        """Post in the table's thread (or channel); ``None`` when it failed.

        Retries are discord.py's own, bounded, and only where one can help: rate limits (429)
        are waited out, server errors (5xx) get a few attempts with growing pauses. Here, an
        archived thread is reopened and the post tried once more (``reopen``); a thread that is
        gone or closed to the bot (404/403) moves the table to its channel (``fallback``, see
        :meth:`move_to_channel`) and the post goes there once."""
        place = self._place(table)
        if place is None:
            return None
        try:
            return await place.send(allowed_mentions=discord.AllowedMentions(users=True, roles=False, everyone=False),
                                    **kwargs)
        except discord.HTTPException as err:
            if fallback and reopen and await self._reopened(table, err):
                sent = await self._send(table, fallback=fallback, reopen=False, **kwargs)
                self._reopened_for.discard(table.id)
                return sent
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

    def now(self) -> float:
        """The bot's clock (UNIX seconds; the services' clock, simulated in tests)."""
        timers = getattr(self.bot, "timers", None)
        return timers.clock.now() if timers is not None else time.time()

    def edit_turn(self, table: TableSnapshot) -> contextlib.AbstractAsyncContextManager[None]:
        """The turn of an edit of the channel the table is shown in (its thread, else its
        channel; :meth:`EditBudget.turn`); for a table's first board, posted outside
        :meth:`_update_board` (before the table's first step, so that no update of its own
        can post a board meanwhile). A table moved to its channel does not wait: its updater
        may run meanwhile, and both would post a board."""
        return self.budget.turn(_shown_in(table.row), self.now)

    async def _update_board(self, table_id: int) -> None:
        while table_id in self._dirty:
            await self.bot.foreground.quiet()  # a member's answer first (bot.foreground)
            try:
                channel = _shown_in((await self.bot.hall.table(table_id)).row)
                async with self.budget.turn(channel, self.now):
                    await self.bot.foreground.quiet()  # again, after waiting for the turn
                    table = await self.bot.hall.table(table_id)  # the state of now
                    if _shown_in(table.row) != channel:
                        continue  # moved meanwhile: the turn of its new place
                    self._dirty.discard(table_id)
                    await self.draw_board(table)
            except Exception:
                self._dirty.discard(table_id)
                log.exception("board update of table %s failed", table_id)

    async def _log_file(self, table: TableSnapshot, t: Translator) -> discord.File | None:
        """The public game log of a finished table, as a text file (see :func:`bot.admin.game_log`)."""
        if table.row.status != "finished" or table.state is None:
            return None
        events = await self.bot.records.all_events(table.id)
        text = admin.game_log(table, events, table.game.outcome(table.state), t)
        return discord.File(io.BytesIO(text.encode("utf-8")), filename=admin.game_log_filename(table.id))

    async def draw_board(self, table: TableSnapshot, *, fallback: bool = True) -> bool:
        """Edit (or post, the first time) the board message of a table; False when it could not.

        A finished board carries the game log as a text file. When the thread is gone or closed
        to the bot, the table moves to its channel (``fallback``, see :meth:`move_to_channel`)."""
        t = Translator(table.row.lang)
        events = await self.bot.records.recent_events(table.id, 60)
        rows = board_buttons(table, t, legend=self.pictures.shown(table.row.guild_id) and render.legend(table.row.game))
        place = self._place(table)
        if place is None:
            return False

        def board_for(picture: pictures.Picture | None) -> Board:
            """The board's text: beside a picture only what shows there, else the full text."""
            return compose.board(table, events, t, full=picture is None)

        picture = await self.pictures.picture(table, place)
        # every edit or post counts, when it is sent (the picture drawn): sends stay spread out
        self.budget.spend(_shown_in(table.row), self.now())
        if table.row.board_message_id:
            try:
                log_file = await self._log_file(table, t)
                edited = await self._edit_board(place, table, board_for, t, rows, picture, log_file)
                self.pictures.remember(table.id, edited, picture)
                self._reopened_for.discard(table.id)
                return True
            except discord.HTTPException as err:
                if fallback and await self._reopened(table, err):  # drawn again, in the reopened thread
                    self.request_board(table.id)
                    return True
                if fallback and table.row.thread_id and place_gone(err):
                    self._reopened_for.discard(table.id)
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
        content = self.pictures.content(table.id, board_for(picture), t, picture, new=True, rows=rows,
                                        log_file=await self._log_file(table, t))
        msg = await self._send(table, fallback=fallback, **content)
        if msg is None and picture is not None:  # e.g. no Attach Files here after all: the text board
            picture = None
            content = self.pictures.content(table.id, board_for(None), t, None, new=True, rows=rows,
                                            log_file=await self._log_file(table, t))
            msg = await self._send(table, fallback=fallback, **content)
        if msg is None:
            return False
        self.pictures.remember(table.id, msg, picture)
        await self.bot.tables.set_messages(table.id, board_message_id=msg.id)
        return True

    async def _edit_board(self, place: Place, table: TableSnapshot, board_for: Callable[[pictures.Picture | None], Board],
                          t: Translator, rows: Rows, picture: pictures.Picture | None,
                          log_file: discord.File | None = None) -> discord.Message:
        """Edit the board message (with the game log file of a finished table; ``board_for``
        gives the board's text for a picture or none); a refused upload (403: no Attach Files)
        falls back to the text board in the same call sequence."""
        message = place.get_partial_message(table.row.board_message_id or 0)
        try:
            content = self.pictures.content(table.id, board_for(picture), t, picture, new=False, rows=rows,
                                            log_file=log_file)
            return await message.edit(**content)
        except discord.Forbidden:
            if picture is None:
                raise
            log.warning("board picture of table %s refused (Attach Files?); showing the text board", table.id)
            self.pictures.forget(table.id)
            if log_file is not None:
                log_file.reset()
            content = self.pictures.content(table.id, board_for(None), t, None, new=False, rows=rows, log_file=log_file)
            return await message.edit(**content)
