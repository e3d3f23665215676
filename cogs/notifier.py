"""The Discord side of :class:`bot.service.Notifier`: a table's lifecycle in Discord (the lobby
message, the start, turn pings and reminders, timeouts, results, vanished threads, channels and
servers). Posting and the board message are :class:`cogs.boards.BoardPoster`'s, its base.
Nothing here blocks an interaction response: callers acknowledge the interaction first, the
notifier works in the background.
"""

from __future__ import annotations

import contextlib
import logging
from typing import TYPE_CHECKING, Any

import discord

from bot import compose
from bot.i18n import Translator
from bot.service import Notifier, ServiceError, TableSnapshot
from bot.timers import turn_key
from bot.web import links
from cogs.boards import BoardPoster, mentions, ping_message
from cogs.components import ROUTER_COG, web_link
from cogs.layout import card_message, text_message
from engine.core import Event, Outcome

if TYPE_CHECKING:
    from bot.client import SpeakeasyBot

log = logging.getLogger(__name__)


class DiscordNotifier(BoardPoster, Notifier):
    """Keeps each table's thread up to date. One per bot instance."""

    def __init__(self, bot: SpeakeasyBot) -> None:
        super().__init__(bot)
        self._pinged: dict[int, tuple[frozenset[int], int | None]] = {}
        self._moving: set[int] = set()

    def sizes(self) -> dict[str, int]:
        """:meth:`cogs.boards.BoardPoster.sizes` and the turn pings remembered (``pinged``), the
        tables moving to their channel (``moving``)."""
        return {**super().sizes(), "pinged": len(self._pinged), "moving": len(self._moving)}

    # ---------------------------------------------------------------- notifier API
    async def lobby_changed(self, table: TableSnapshot) -> None:
        """Lobby edits are answered by the clicking interaction itself: nothing to do."""

    async def lobby_expired(self, table: TableSnapshot) -> None:
        """A lobby was not started in time: its message says so, with no buttons left."""
        await self.redraw_lobby(table, expired=True)

    async def redraw_lobby(self, table: TableSnapshot, *, expired: bool = False) -> bool:
        """Edit a lobby's message to show the table as it is now (a closed lobby's buttons
        disabled; with ``expired``, the expiry notice and no buttons at all). Returns False
        when there is no message to edit or the edit failed (logged; never raises)."""
        row = table.row
        if not row.lobby_message_id or row.guild_id in self._gone_guilds:
            return False
        router = self.bot.get_cog(ROUTER_COG)
        if router is None:
            return False
        content = await router.cog_for(row.game).lobby_message(table, expired=expired)  # type: ignore[attr-defined]
        channel = self.bot.get_partial_messageable(row.channel_id, guild_id=row.guild_id)
        try:
            await channel.get_partial_message(row.lobby_message_id).edit(**content)
        except discord.HTTPException:
            log.info("could not edit the lobby message of table %s", table.id, exc_info=True)
            return False
        return True

    async def table_started(self, table: TableSnapshot) -> None:
        """Open the table's thread from the lobby message and post the first board (awaited:
        the board exists before the first AI move)."""
        t = Translator(table.row.lang)
        channel = self.bot.get_channel(table.row.channel_id)
        thread_id = None
        name = t("thread.name", game=compose.game_title(table.row.game, t), id=table.id)[:100]
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
            await self.bot.tables.set_messages(table.id, thread_id=thread_id)
            table = await self.bot.hall.table(table.id)
        async with self.edit_turn(table):  # tables played in one channel share its budget
            posted = await self.draw_board(table, fallback=False)
        if not posted and thread_id:
            # a thread we cannot post in: play in the channel instead
            log.warning("cannot post in the thread of table %s; playing in the channel", table.id)
            await self.bot.tables.set_messages(table.id, thread_id=None)
            table = await self.bot.hall.table(table.id)
            async with self.edit_turn(table):
                posted = await self.draw_board(table, fallback=False)
        if not posted:
            # nowhere to show the board: nobody could play; the host is told by the Start click
            log.warning("table %s has no board; abandoning it", table.id)
            await self.bot.tables.abandon(table.id, None)
            return
        everyone = mentions(table)
        await self._send(table, **text_message(t("thread.welcome", players=everyone)))
        await self._ping_turn(table)

    async def step_applied(self, table: TableSnapshot, events: list[Event]) -> None:
        """The board edit and the turn ping of a running table start once the member answers
        being built are sent (:meth:`bot.foreground.Foreground.later`); those of a finished
        table at once, before its results."""
        if table.row.status == "running":
            self.bot.foreground.later(self._stepped, table)
        else:
            self.request_board(table.id)

    def _stepped(self, table: TableSnapshot) -> None:
        self.request_board(table.id)
        self._spawn(self._ping_turn(table))

    async def choice_buffered(self, table: TableSnapshot, seat: int) -> None:
        """Redraw the board's "who has chosen" text (once the answers being built are sent),
        except for an AI seat's choice when another AI seat of the table still has to choose at
        this step: the AI driver buffers that one at once, and its redraw shows both (one edit
        instead of two)."""
        if table.more_ai_choices_coming(seat):
            return
        self.bot.foreground.later(self.request_board, table.id)

    async def _ping_turn(self, table: TableSnapshot, *, moved: bool = False) -> None:
        """Ping the members who must act, once per turn: again when the set of members changes,
        or when a new simultaneous step opens (e.g. a follow-up after a secret choice); not for
        one member's consecutive moves in a turn, nor, after a restart, for the turn a table was
        resumed in (the process before pinged it: :attr:`bot.table.LiveTable.loaded_turn`). Not
        while the table moves to its channel (``table`` may still name the lost thread): the
        move pings the turn itself (``moved``)."""
        if table.id in self._moving and not moved:
            return
        if self.bot.foreground.busy:
            await self.bot.foreground.quiet()  # a member's answer first (bot.foreground)
            if table.id in self._moving and not moved:
                return
            with contextlib.suppress(ServiceError):
                if (await self.bot.hall.table(table.id)).row.thread_id != table.row.thread_id:
                    return  # moved to its channel meanwhile: the move pinged the turn
        turn = table.turn()
        humans = turn[0]
        pinged = self._pinged.get(table.id)
        if pinged is None and not moved:  # its first step here: the turn it was resumed in was pinged before
            live = self.bot.hall.live(table.id)
            pinged = live.loaded_turn if live is not None else None
        self._pinged[table.id] = turn
        if turn == pinged:
            return
        if not humans:
            return
        t = Translator(table.row.lang)
        key = "turn.everyone" if len(table.to_act()) > 1 else "turn.yours"
        content = t(key, players=mentions(table, sorted(humans)))
        timer = self.bot.timers.get(turn_key(table.id))
        if timer is not None and "act_at" in timer.payload:  # a Discord timestamp: each reader's own time zone
            content += " " + t("turn.deadline", at=int(float(timer.payload["act_at"])))
        await self._send(table, **ping_message(content, table, t))

    async def reminder(self, table: TableSnapshot, seats: list[int]) -> None:
        t = Translator(table.row.lang)
        self._spawn(self._send(table, **ping_message(t("turn.reminder", players=mentions(table, seats)), table, t)))

    async def timed_out(self, table: TableSnapshot, seats: list[int]) -> None:
        t = Translator(table.row.lang)
        self.request_board(table.id)
        names = ", ".join(compose.escape_name(table.seats[s].name) for s in seats)
        self._spawn(self._send(table, **text_message(t("turn.timed_out", names=names))))

    async def went_away(self, table: TableSnapshot, seat: int) -> None:
        t = Translator(table.row.lang)
        self.request_board(table.id)
        self._spawn(self._send(table, **text_message(t("turn.away", player=f"<@{table.seats[seat].user_id}>"))))

    async def came_back(self, table: TableSnapshot, seat: int) -> None:
        t = Translator(table.row.lang)
        self.request_board(table.id)
        self._spawn(self._send(table, **text_message(t("turn.back", name=compose.escape_name(table.seats[seat].name)))))

    async def table_finished(self, table: TableSnapshot, outcome: Outcome) -> None:
        t = Translator(table.row.lang)
        self.request_board(table.id)
        self._pinged.pop(table.id, None)
        self._spawn(self._results(table, outcome, t))

    async def _results(self, table: TableSnapshot, outcome: Outcome, t: Translator) -> None:
        """The final standings, with a link button to the game's replay page when the bot has pages."""
        guild_id, lang = table.row.guild_id, table.row.lang
        link = await web_link(self.bot, guild_id, t("web.link.replay"),
                              lambda base, key: links.game_url(base, guild_id, table.id, key=key, lang=lang))
        await self._send(table, **card_message(compose.results_block(table, outcome, t), rows=link))

    async def table_abandoned(self, table: TableSnapshot) -> None:
        t = Translator(table.row.lang)
        self.request_board(table.id)
        self._pinged.pop(table.id, None)
        self._spawn(self._send(table, **text_message(t("table.abandoned"))))

    # ---------------------------------------------------------------- Discord's lifecycle
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

    async def move_to_channel(self, table_id: int, thread_id: int) -> TableSnapshot | None:
        """The running table of ``thread_id`` lost its thread: play on in the parent channel
        with a notice and a new board. When the channel cannot be posted in either, the table
        is abandoned silently (unrated). Returns the moved table, or ``None`` when it was not
        in that thread any more (already moved, or finished)."""
        if table_id in self._moving:
            return None
        self._moving.add(table_id)
        try:
            table = await self.bot.hall.table(table_id)
            if table.row.status != "running" or table.row.thread_id != thread_id:
                return None
            log.info("table %s lost its thread %s; moving it to channel %s", table_id, thread_id,
                     table.row.channel_id)
            table = await self.bot.tables.leave_thread(table_id)
            t = Translator(table.row.lang)
            everyone = mentions(table)
            notice = await self._send(table, fallback=False, **text_message(t("thread.moved", id=table.id, players=everyone)))
            if notice is None or not await self.draw_board(table, fallback=False):
                log.warning("table %s can be shown nowhere; abandoning it (unrated)", table_id)
                await self.bot.tables.close_silently(table_id)
                return await self.bot.hall.table(table_id)
            self._pinged.pop(table_id, None)
            await self._ping_turn(table, moved=True)
            return table
        finally:
            self._moving.discard(table_id)

    async def thread_closed(self, thread: discord.Thread | None, thread_id: int, locked: bool) -> None:
        """A table's thread was archived or locked: reopen it when the bot may, otherwise move
        the table to its channel. A table played in the thread itself (opened by ``/play`` there,
        with no thread of its own) has no channel to move to: the bot unarchives that thread, but
        leaves it locked when a moderator locked it (its tables wait)."""
        tables = [tb for tb in await self.bot.records.tables_in(thread_id)
                  if tb.row.status == "running" and (tb.row.thread_id or tb.row.channel_id) == thread_id]
        if not tables:
            return
        if locked and not any(tb.row.thread_id == thread_id for tb in tables):
            # a members' thread a moderator locked (tables played in it, none of them its owner):
            # the bot does not undo a moderation; its tables wait until it is unlocked
            log.warning("thread %s, where table(s) %s play, was locked: they wait until it is unlocked",
                        thread_id, ", ".join(str(tb.id) for tb in tables))
            return
        if await self.reopen_thread(thread, thread_id, locked):
            return
        for tb in tables:
            if tb.row.thread_id == thread_id:
                await self.move_to_channel(tb.id, thread_id)
            else:
                log.warning("table %s plays in thread %s, closed to the bot: it waits until the thread is reopened",
                            tb.id, thread_id)

    async def reopen_thread(self, thread: discord.Thread | None, thread_id: int, locked: bool = False) -> bool:
        """Unarchive a table's thread (``locked``: unlock it too); whether Discord accepted it
        (refused: logged, the caller moves the table)."""
        changes: dict[str, Any] = {"archived": False}
        if locked:
            changes["locked"] = False
        try:
            if thread is not None:
                await thread.edit(**changes)
            else:
                await self.bot.http.edit_channel(thread_id, **changes)
            return True
        except discord.HTTPException:
            log.info("cannot reopen thread %s; moving its table to the channel", thread_id, exc_info=True)
            return False

    async def place_deleted(self, place_id: int) -> None:
        """A thread or channel was deleted: tables playing in a deleted thread move to their
        channel; lobbies and tables whose channel is gone are closed silently (unrated)."""
        for tb in await self.bot.records.tables_in(place_id):
            if tb.row.status == "running" and tb.row.thread_id == place_id and tb.row.channel_id != place_id:
                await self.move_to_channel(tb.id, place_id)
            else:
                await self.bot.tables.close_silently(tb.id)

    async def guild_left(self, guild_id: int) -> list[int]:
        """The bot was removed from a server: no further REST call for its tables, which are
        closed at once (deadlines cleared, nothing rated). Returns their ids."""
        self._gone_guilds.add(guild_id)
        return await self.bot.tables.close_guild(guild_id)

    def guild_joined(self, guild_id: int) -> None:
        """The bot is in ``guild_id`` (again): its new tables may post."""
        self._gone_guilds.discard(guild_id)
