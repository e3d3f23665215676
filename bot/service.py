"""TableService: the life of a table (lobby → running → finished/abandoned), seats, submitted
choices and persistence.

No discord import: Discord (cogs/) and the terminal mode (bot/terminal.py) both drive tables
through this class, and tests drive it directly with a real SQLite file and a fake clock.

Life of a table: ``open_lobby`` → ``join``/``leave``/``add_ai``/``remove_ai``/``set_option`` →
``start`` → ``submit``… (AI seats move by themselves; deadlines make the AI act for a quiet
member) → finished (result and ratings stored in one transaction) or ``abandon``.

The service owns two helpers, each with one job, and is their :class:`bot.table.TableHost`:
:class:`bot.scheduler.Scheduler` (turn deadlines: reminders, timeouts, away members) and
:class:`bot.driver.Driver` (AI moves). Neither imports this module.

Guarantees:
- A per-table :class:`asyncio.Lock` serialises every change of a table.
- Every button carries the state version it was drawn for; another version is refused as stale,
  so a double click or a click on an old board is never applied twice.
- Simultaneous steps (several seats in ``to_act``) buffer each seat's choice (persisted) until all
  have chosen; a seat may change its choice until then. Then they are applied at once.
- Every applied step is persisted before the notifier hears of it, in one short transaction
  (:meth:`storage.base.Store.commit_step`: snapshot, action log, events, next deadline, pending
  choices cleared), as a compare-and-set on the table's version: a second writer can never
  apply over it (a conflict reloads the table and refuses the click as stale).
- ``resume()`` indexes every running table after a restart in a few bulk reads (O(tables));
  clicks are accepted at once; each table's snapshot is decoded on first touch (a background
  task touches them all, restores deadlines and restarts AI drivers).
- Deadlines live in the database and in the scheduler's in-memory queue: a reminder at
  ``reminder_fraction`` of the timeout, then the game's ``timeout_action`` for every seat that
  has not acted. A deadline found overdue at start-up restarts from then (time given back).
- A lobby not started within ``lobby_timeout`` seconds closes itself (the persisted timer
  ``lobby:<table id>``, armed by ``open_lobby``, removed by ``start``/``cancel``; one already
  due when the bot starts fires at once): abandoned, nothing recorded, the notifier's
  ``lobby_expired`` redraws its message.
- Per-table memory (locks, caches, timers, drivers) is dropped when a table ends.
- Each table records the game's ``rules_version`` it started under; :meth:`TableService.replay`
  rebuilds its state from seed and action log only under that same version.
- Sharding (``shards``, :class:`storage.base.Shards`): the process owns the tables of the guilds
  on its shards. It resumes only those and loads only their timers (both filtered in the
  store's queries), so it runs only their deadlines and AI moves; any other table is refused
  (``err.not_owned``) and never written. Should two processes act on one table anyway (a
  misconfiguration, or an overlap while the shard count changes), the version compare-and-set
  lets one step through; the other reloads the table (a click is refused as stale, an AI move
  or a timeout is simply dropped). Starting, cancelling and abandoning are compare-and-sets on
  the status (``Store.update_table(expect_status=...)``): a lobby is dealt once.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from pydantic import ValidationError

from bot.ai_pool import LEVELS, AiPool
from bot.driver import Driver
from bot.foreground import Foreground
from bot.ratings import Rated, ai_rating, rate
from bot.scheduler import LOBBY, Clock, Scheduler, key_table, lobby_key, turn_key
from bot.table import LiveTable, Notifier, TableView, notify
from engine.core import Event, IllegalAction, Outcome
from engine.fast import replacer
from engine.registry import GAMES
from storage.base import (
    RatingRow,
    RunningTable,
    SeatRow,
    Shards,
    StepWrite,
    Store,
    TableRow,
    TimerRow,
    VersionConflict,
    loads,
)

__all__ = [
    "Clock",
    "Notifier",
    "ReplayError",
    "ServiceError",
    "Submitted",
    "SystemClock",
    "TableService",
    "TableView",
]

log = logging.getLogger(__name__)

#: The cached row after a step (``dataclasses.replace`` of these fields, straight-line:
#: ``engine.fast.replacer``, about 1 µs instead of 9 µs a step)
_stepped_row: Callable[[TableRow, int, float, int, int, str], TableRow] = replacer(
    TableRow, "version", "updated_at", "action_seq", "event_seq", "status")


class ServiceError(Exception):
    """A refusal to show the user: ``key`` is an i18n key, ``params`` its values.

    Never carries hidden information.
    """

    def __init__(self, key: str, **params: Any) -> None:
        super().__init__(key)
        self.key = key
        self.params = params


def check_level(level: str) -> None:
    """Refuse an AI level that is not one of :data:`bot.ai_pool.LEVELS` (``err.bad_level``)."""
    if level not in LEVELS:
        raise ServiceError("err.bad_level", level=str(level)[:20])


def lobby_tag(seats: list[SeatRow]) -> str:
    """A short fingerprint (8 hex digits) of a lobby's seats (who sits where, which seats are
    AI players): the level picker carries it in its custom_ids, and a pick is refused as stale
    when the seats changed since the picker was drawn (see :meth:`TableService.set_ai_level`).
    Levels are not part of it: changing one AI's level leaves the others' pickers valid.

    >>> lobby_tag([SeatRow(0, 7, "Ann", False), SeatRow(1, None, "AI 1", True)])
    'a8adfdeb'
    """
    blob = ";".join(f"{s.seat},{s.user_id},{int(s.is_ai)},{s.name}" for s in seats)
    return f"{zlib.crc32(blob.encode()):08x}"


class ReplayError(Exception):
    """:meth:`TableService.replay` refused: the table was set up under another rules version
    than the game's current one, never started, or its log cannot be replayed (the message says
    which). Not shown to players."""


class SystemClock:
    """The real clock."""

    def now(self) -> float:
        """``time.time()``."""
        return time.time()



@dataclass(frozen=True)
class Submitted:
    """What :meth:`TableService.submit` did: ``status`` is ``"applied"`` or ``"buffered"``;
    ``events`` are the applied step's events (all audiences: filter before showing)."""

    status: str
    events: tuple[Event, ...] = ()


class TableService:
    """Runs every table of the process. See the module docstring for the guarantees.

    Args:
        db: an open store (:class:`storage.base.Store`, e.g. :class:`storage.sqlite.SqliteStore`).
        clock: time source (a fake one in tests).
        notifier: UI callbacks (may be replaced later by assigning :attr:`notifier`).
        turn_timeout: seconds a member has to act before the AI acts for them.
        reminder_fraction: when the reminder is sent, as a fraction of ``turn_timeout``.
        ai_delay: seconds between AI moves (0 in tests).
        seed_source: returns a new game seed (``secrets.randbits(62)`` by default).
        leaderboard_min_games: games a member must have played to appear on the leaderboard.
        lobby_timeout: seconds a lobby may stay open without being started (then it closes).
        shards: the Discord shards of this process: it owns only the tables of their guilds
            (``None``: every table).
        ai_pool: chooses the AI moves at each seat's level, strong ones in worker processes
            (:class:`bot.ai_pool.AiPool`; a default one, one worker, when not given). Closed by
            :meth:`close`.
    """

    def __init__(
        self,
        db: Store,
        *,
        clock: Clock | None = None,
        notifier: Notifier | None = None,
        turn_timeout: float = 300,
        reminder_fraction: float = 0.5,
        ai_delay: float = 0.0,
        seed_source: Callable[[], int] | None = None,
        leaderboard_min_games: int = 3,
        lobby_timeout: float = 1800,
        shards: Shards | None = None,
        ai_pool: AiPool | None = None,
    ) -> None:
        self.db = db
        self.shards = None if shards is None or shards.everything else shards
        self.notifier: Notifier = notifier or Notifier()
        self.seed_source = seed_source or (lambda: secrets.randbits(62))
        self.leaderboard_min_games = leaderboard_min_games
        self.scheduler = Scheduler(db, clock or SystemClock(), self, turn_timeout=turn_timeout,
                                   reminder_fraction=reminder_fraction, shards=self.shards)
        #: member interactions being answered (the cogs mark them): AI moves and the UI's
        #: background work (board edits) wait for them, see :mod:`bot.foreground`
        self.foreground = Foreground()
        self.driver = Driver(self, ai_delay=ai_delay, pool=ai_pool, foreground=self.foreground)
        self.lobby_timeout = lobby_timeout
        self.scheduler.timers.handle(LOBBY, self._lobby_due)
        self._locks: dict[int, asyncio.Lock] = {}
        self._live: dict[int, LiveTable] = {}  # running tables, decoded
        self._index: dict[int, RunningTable] = {}  # running tables resumed but not decoded yet
        self._warm: asyncio.Task[None] | None = None

    @property
    def clock(self) -> Clock:
        """The time source, shared with the scheduler."""
        return self.scheduler.clock

    @clock.setter
    def clock(self, clock: Clock) -> None:
        self.scheduler.clock = clock

    @property
    def turn_timeout(self) -> float:
        """Seconds a member has to act (the scheduler's setting)."""
        return self.scheduler.turn_timeout

    @turn_timeout.setter
    def turn_timeout(self, seconds: float) -> None:
        self.scheduler.turn_timeout = seconds

    @property
    def reminder_fraction(self) -> float:
        """When the reminder is sent, as a fraction of :attr:`turn_timeout` (the scheduler's)."""
        return self.scheduler.reminder_fraction

    @reminder_fraction.setter
    def reminder_fraction(self, fraction: float) -> None:
        self.scheduler.reminder_fraction = fraction

    @property
    def ai_delay(self) -> float:
        """Seconds between AI moves that showed something (the driver's setting)."""
        return self.driver.ai_delay

    @ai_delay.setter
    def ai_delay(self, seconds: float) -> None:
        self.driver.ai_delay = seconds

    def owns(self, guild_id: int) -> bool:
        """Whether this process owns the guild's tables (its shard is one of :attr:`shards`)."""
        return self.shards is None or self.shards.owns(guild_id)

    def _check_owned(self, guild_id: int) -> None:
        """Raise ``ServiceError("err.not_owned")`` for a guild of another process's shards."""
        if not self.owns(guild_id):
            log.warning("refused a request for guild %s: it is on shard %s, this process runs %s", guild_id,
                        self.shards.shard_of(guild_id) if self.shards else 0, self.shards)
            raise ServiceError("err.not_owned")

    # ------------------------------------------------------------------ TableHost (scheduler, driver)
    def table_lock(self, table_id: int) -> asyncio.Lock:
        """The lock serialising every change of a table (for the scheduler and the driver)."""
        return self._locks.setdefault(table_id, asyncio.Lock())

    def live_table(self, table_id: int) -> LiveTable | None:
        """The cache of a running table, or ``None`` (for the scheduler and the driver)."""
        return self._live.get(table_id)

    async def touch(self, table_id: int) -> LiveTable | None:
        """The cache of a running table, decoded on first touch after a restart, or reloaded
        from the store when not cached (after a version conflict, or started elsewhere).

        ``None`` when the table is not running or is another process's (its guild is on a shard
        this process does not run: never read into the cache, never written); a table whose
        snapshot no longer loads is abandoned (logged), never crashes the bot. Call under the
        table's lock."""
        live = self._live.get(table_id)
        if live is not None:
            if self.owns(live.row.guild_id):
                return live
            self._live.pop(table_id, None)  # the layout changed under it: no longer ours
            return None
        entry = self._index.pop(table_id, None)
        if entry is None:
            row = await self.db.get_table(table_id)
            if row is None or row.status != "running" or not self.owns(row.guild_id):
                return None
            entry = RunningTable(replace(row, state=None), None, await self.db.seats(table_id),
                                 await self.db.pending(table_id, row.version))
            state_data: Any = row.state
        else:
            state_data = loads(entry.state_json) if entry.state_json else None
        try:
            if entry.row.game not in GAMES:
                raise ValueError(f"unknown game {entry.row.game}")
            if state_data is None:
                raise ValueError(f"table {table_id} is running without a snapshot")
            state = GAMES[entry.row.game].load_state(state_data)
        except Exception:
            log.exception("table %s could not be resumed; abandoning it", table_id)
            async with self.db.transaction():
                await self.db.update_table(table_id, self.clock.now(), status="abandoned")
                await self.scheduler.clear(table_id)
            self._forget(table_id)
            return None
        pending = entry.pending if entry.row.version == state.version else {}
        live = self._live[table_id] = LiveTable(entry.row, list(entry.seats), state, dict(pending))
        return live

    def _forget(self, table_id: int) -> None:
        """Drop the per-table memory of a table that stopped running (its lock when free)."""
        self._live.pop(table_id, None)
        self._index.pop(table_id, None)
        lock = self._locks.get(table_id)
        if lock is not None and not lock.locked():
            del self._locks[table_id]

    def nudge(self, table_id: int) -> None:
        """Start the AI driver of a table if an AI seat must act and none is running."""
        self.driver.kick(table_id)

    async def give_up(self, table_id: int) -> None:
        """Abandon a table that keeps failing (an engine or storage error), telling its players.

        Never raises: when even abandoning fails, the table's deadline is removed so that it
        stops firing (both failures are logged)."""
        try:
            await self.abandon(table_id, None)
        except Exception:
            log.exception("could not abandon failing table %s", table_id)
            try:
                await self.scheduler.clear(table_id)
            except Exception:
                log.exception("could not clear the deadline of table %s", table_id)

    # ------------------------------------------------------------------ helpers
    async def _row(self, table_id: int) -> TableRow:
        """The stored row of one of this process's tables. Raises ``err.no_table``, and
        ``err.not_owned`` for another process's table."""
        row = await self.db.get_table(table_id)
        if row is None:
            raise ServiceError("err.no_table")
        self._check_owned(row.guild_id)
        return row

    async def table(self, table_id: int) -> TableView:
        """The current view of a table. Raises :class:`ServiceError` ``err.no_table``, and
        ``err.not_owned`` for another process's table (see :attr:`shards`)."""
        live = self._live.get(table_id)
        if live is None and table_id in self._index:
            async with self.table_lock(table_id):
                live = await self.touch(table_id)
        if live is not None:
            self._check_owned(live.row.guild_id)
            return live.view()
        return await self.stored(table_id)

    async def stored(self, table_id: int) -> TableView:
        """The table as its store holds it, not this process's cache (another process, e.g. a
        second terminal window, may have moved or finished it). Raises :class:`ServiceError`
        ``err.no_table``, ``err.not_owned``."""
        row = await self._row(table_id)
        seats = await self.db.seats(table_id)
        state = GAMES[row.game].load_state(row.state) if row.state and row.game in GAMES else None
        return TableView(row, seats, state)

    def _check_status(self, row: TableRow, *allowed: str) -> None:
        if row.status not in allowed:
            if "lobby" in allowed and self.expired(TableView(row, [], None)):
                raise ServiceError("err.lobby_expired", minutes=self.lobby_minutes)
            raise ServiceError("err.table_not_lobby" if "lobby" in allowed else "err.table_not_running")

    # ------------------------------------------------------------------ lobby
    async def open_lobby(
        self, *, guild_id: int, channel_id: int, game: str, host_user_id: int, host_name: str,
        lang: str = "en", options: dict[str, Any] | None = None,
    ) -> TableView:
        """Open a lobby with the host in seat 0, and arm its expiry: the timer ``lobby:<id>``
        due :attr:`lobby_timeout` seconds from now (see :meth:`_lobby_due`). Raises
        ``err.unknown_game``/``err.bad_option``, ``err.not_owned`` in a guild of another
        process's shards."""
        self._check_owned(guild_id)
        if game not in GAMES:
            raise ServiceError("err.unknown_game", game=game)
        opts = self._validate_options(game, options or {})
        now = self.clock.now()
        async with self.db.transaction():
            table_id = await self.db.create_table(
                guild_id=guild_id, channel_id=channel_id, game=game, host_user_id=host_user_id,
                lang=lang, options=opts, now=now,
            )
            await self.db.replace_seats(table_id, [SeatRow(0, host_user_id, host_name, False)])
            await self.scheduler.timers.schedule(lobby_key(table_id), now + self.lobby_timeout)
        return await self.table(table_id)

    async def _lobby_due(self, timer: TimerRow) -> None:
        """The expiry timer of a lobby fired: a lobby still open is closed (abandoned, nothing
        recorded) and the notifier's ``lobby_expired`` told; a lobby that started or closed
        meanwhile is left alone."""
        table_id = key_table(timer.key)
        row = await self.db.get_table(table_id)
        if row is None or row.status != "lobby" or not self.owns(row.guild_id):
            return
        try:
            view = await self.cancel(table_id, row.host_user_id, is_admin=True, quiet=True)
        except ServiceError:  # started or cancelled between the read and the lock
            return
        log.info("lobby %s expired after %s s without starting", table_id, self.lobby_timeout)
        await notify(self.notifier.lobby_expired, view)

    @property
    def lobby_minutes(self) -> int:
        """:attr:`lobby_timeout` in whole minutes (at least 1), for the texts."""
        return max(1, round(self.lobby_timeout / 60))

    def expired(self, table: TableView) -> bool:
        """Whether a closed lobby closed by itself: never started, and closed no earlier than
        :attr:`lobby_timeout` after it opened (read from its timestamps, so a click on an old
        lobby button can say why it is closed)."""
        row = table.row
        return (row.status == "abandoned" and row.seed is None
                and row.updated_at - row.created_at >= self.lobby_timeout)

    def _validate_options(self, game: str, options: dict[str, Any]) -> dict[str, Any]:
        try:
            return GAMES[game].parse_options(options).model_dump(mode="json", exclude_defaults=True)
        except ValidationError as exc:
            raise ServiceError("err.bad_option", detail=str(exc.errors()[0].get("msg", ""))) from None

    async def _edit_lobby(self, table_id: int, user_id: int, change: Callable[[TableRow, list[SeatRow]], list[SeatRow] | None],
                          host_only: bool = False) -> TableView:
        async with self.table_lock(table_id):
            row = await self._row(table_id)
            self._check_status(row, "lobby")
            if host_only and user_id != row.host_user_id:
                raise ServiceError("err.host_only")
            seats = await self.db.seats(table_id)
            new = change(row, seats)
            if new is not None:
                await self.db.replace_seats(table_id, [SeatRow(i, s.user_id, s.name, s.is_ai, ai_level=s.ai_level)
                                                       for i, s in enumerate(new)])
            view = await self.table(table_id)
        await notify(self.notifier.lobby_changed, view)
        return view

    async def join(self, table_id: int, user_id: int, name: str) -> TableView:
        """Seat a member. Raises ``err.already_seated``, ``err.table_full``, ``err.table_not_lobby``."""
        def change(row: TableRow, seats: list[SeatRow]) -> list[SeatRow]:
            if any(s.user_id == user_id for s in seats):
                raise ServiceError("err.already_seated")
            if len(seats) >= GAMES[row.game].max_players:
                if not any(s.is_ai for s in seats):
                    raise ServiceError("err.table_full", max=GAMES[row.game].max_players)
                # a member takes the place of the last AI player
                last_ai = max(i for i, s in enumerate(seats) if s.is_ai)
                seats = seats[:last_ai] + seats[last_ai + 1:]
            return seats + [SeatRow(len(seats), user_id, name, False)]
        return await self._edit_lobby(table_id, user_id, change)

    async def leave(self, table_id: int, user_id: int) -> TableView:
        """Unseat a member (the host cancels instead). Raises ``err.not_seated``/``err.host_cannot_leave``."""
        def change(row: TableRow, seats: list[SeatRow]) -> list[SeatRow]:
            if user_id == row.host_user_id:
                raise ServiceError("err.host_cannot_leave")
            if not any(s.user_id == user_id for s in seats):
                raise ServiceError("err.not_seated")
            return [s for s in seats if s.user_id != user_id]
        return await self._edit_lobby(table_id, user_id, change)

    async def add_ai(self, table_id: int, user_id: int, ai_name: str = "AI", level: str = "normal") -> TableView:
        """The host adds an AI player at ``level`` (one of :data:`bot.ai_pool.LEVELS`).

        Raises ``err.host_only``, ``err.table_full``, ``err.bad_level``."""
        check_level(level)

        def change(row: TableRow, seats: list[SeatRow]) -> list[SeatRow]:
            if len(seats) >= GAMES[row.game].max_players:
                raise ServiceError("err.table_full", max=GAMES[row.game].max_players)
            n = sum(1 for s in seats if s.is_ai) + 1
            return seats + [SeatRow(len(seats), None, f"{ai_name} {n}", True, ai_level=level)]
        return await self._edit_lobby(table_id, user_id, change, host_only=True)

    async def set_ai_level(self, table_id: int, user_id: int, seat: int, level: str,
                           expect: str | None = None) -> TableView:
        """The host sets the level of the AI player in ``seat`` (lobby only).

        ``expect``: the :func:`lobby_tag` of the seats the caller saw; when the lobby's seats
        changed since (a join, a leave, an AI added or removed), the change is refused as
        ``err.level_stale``, so a click on an old level picker never changes another seat.
        Raises ``err.host_only``, ``err.table_not_lobby``, ``err.bad_level``, ``err.level_stale``
        (also when ``seat`` is not an AI player), ``err.level_same`` (already that level: a
        double click)."""
        check_level(level)

        def change(row: TableRow, seats: list[SeatRow]) -> list[SeatRow]:
            if (expect is not None and lobby_tag(seats) != expect) or not (0 <= seat < len(seats)) \
                    or not seats[seat].is_ai:
                raise ServiceError("err.level_stale")
            if seats[seat].level == level:
                raise ServiceError("err.level_same", name=seats[seat].name, level=level)
            return [replace(s, ai_level=level) if s.seat == seat else s for s in seats]
        return await self._edit_lobby(table_id, user_id, change, host_only=True)

    async def remove_ai(self, table_id: int, user_id: int) -> TableView:
        """The host removes the last AI player. Raises ``err.host_only``/``err.no_ai``."""
        def change(row: TableRow, seats: list[SeatRow]) -> list[SeatRow]:
            ai = [i for i, s in enumerate(seats) if s.is_ai]
            if not ai:
                raise ServiceError("err.no_ai")
            return seats[:ai[-1]] + seats[ai[-1] + 1:]
        return await self._edit_lobby(table_id, user_id, change, host_only=True)

    async def set_option(self, table_id: int, user_id: int, name: str, value: Any) -> TableView:
        """The host sets a table option (validated by the game's options model).

        The option ``deck`` names one of the guild's custom decks (or ``"default"``); its cards
        are copied into the game when it starts. Raises ``err.host_only``, ``err.bad_option``,
        ``err.no_deck``.
        """
        async with self.table_lock(table_id):
            row = await self._row(table_id)
            self._check_status(row, "lobby")
            if user_id != row.host_user_id:
                raise ServiceError("err.host_only")
            if name == "deck" and value not in (None, "default"):
                await self._deck_data(row, value)
            opts = self._validate_options(row.game, {**row.options, name: value})
            await self.db.update_table(table_id, self.clock.now(), options=opts)
            view = await self.table(table_id)
        await notify(self.notifier.lobby_changed, view)
        return view

    async def set_messages(self, table_id: int, **ids: int | None) -> None:
        """Remember Discord message/thread ids (``lobby_message_id``, ``thread_id``, ``board_message_id``)."""
        async with self.table_lock(table_id):
            now = self.clock.now()
            fields: dict[str, Any] = dict(ids)  # message and thread ids only (never expect_status)
            await self.db.update_table(table_id, now, **fields)
            live = self._live.get(table_id)
            if live is not None:
                changes: dict[str, Any] = dict(ids)
                live.row = replace(live.row, updated_at=now, **changes)

    async def start(self, table_id: int, user_id: int, *, fill_with_ai: bool = False, ai_name: str = "AI") -> TableView:
        """The host starts the game. Raises ``err.host_only``, ``err.not_enough_players``.

        With ``fill_with_ai``, empty seats up to the game's minimum are filled with AI players.
        The table records the game's ``rules_version`` (see :meth:`replay`).
        """
        async with self.table_lock(table_id):
            row = await self._row(table_id)
            self._check_status(row, "lobby")
            if user_id != row.host_user_id:
                raise ServiceError("err.host_only")
            game = GAMES[row.game]
            seats = await self.db.seats(table_id)
            if fill_with_ai:
                while len(seats) < game.min_players:
                    n = sum(1 for s in seats if s.is_ai) + 1
                    seats.append(SeatRow(len(seats), None, f"{ai_name} {n}", True))
                await self.db.replace_seats(table_id, seats)
            if not game.min_players <= len(seats) <= game.max_players:
                raise ServiceError("err.players_exact" if game.min_players == game.max_players else "err.not_enough_players",
                                   min=game.min_players, max=game.max_players)
            options = await self._setup_options(row)
            seed = self.seed_source()
            try:
                state = game.setup(seed, len(seats), options)
            except (ValueError, ValidationError) as exc:
                log.warning("table %s could not start: %s", table_id, exc)
                raise ServiceError("err.bad_option", detail="") from None
            now = self.clock.now()
            # a custom deck's cards are stored with the table: it replays after the deck is gone
            stored = {**row.options, "deck_data": options["deck_data"]} if options.get("deck_data") else row.options
            async with self.db.transaction():
                if not await self.db.update_table(table_id, now, expect_status="lobby", status="running", seed=seed,
                                                  state=game.dump_state(state), version=state.version,
                                                  rules_version=game.rules_version, options=stored):
                    raise ServiceError("err.table_not_lobby")  # another process started or closed it
                await self.db.record_events(table_id, state.version,
                                            [_event_dict(e) for e in game.opening_events(state)])
                await self.scheduler.write(table_id, seats, game, state, now)
                await self.scheduler.timers.cancel(lobby_key(table_id))
            row = await self._row(table_id)
            live = self._live[table_id] = LiveTable(replace(row, state=None), seats, state, {})
            view = live.view()
        await notify(self.notifier.table_started, view)
        self.driver.kick(table_id)
        return view

    async def _setup_options(self, row: TableRow) -> dict[str, Any]:
        """The options ``setup`` gets: the stored ones plus the cards of a custom deck
        (``deck_data``). Raises ``err.no_deck`` when that deck is gone."""
        options = dict(row.options)
        if options.get("deck") not in (None, "default") and not options.get("deck_data"):
            options["deck_data"] = await self._deck_data(row, options["deck"])
        return options

    async def cancel(self, table_id: int, user_id: int, is_admin: bool = False, *, quiet: bool = False) -> TableView:
        """Host (or admin) cancels a lobby (its expiry timer removed). Raises ``err.host_only``,
        ``err.table_not_lobby``/``err.lobby_expired``. ``quiet``: no ``lobby_changed`` call
        (the caller tells the notifier itself)."""
        async with self.table_lock(table_id):
            row = await self._row(table_id)
            self._check_status(row, "lobby")
            if user_id != row.host_user_id and not is_admin:
                raise ServiceError("err.host_only")
            async with self.db.transaction():
                if not await self.db.update_table(table_id, self.clock.now(), expect_status="lobby", status="abandoned"):
                    raise ServiceError("err.table_not_lobby")  # another process started or closed it
                await self.scheduler.timers.cancel(lobby_key(table_id))
            view = await self.table(table_id)
        self._forget(table_id)
        if not quiet:
            await notify(self.notifier.lobby_changed, view)
        return view

    async def abandon(self, table_id: int, user_id: int | None, is_admin: bool = False) -> TableView:
        """End a running table without result (host or admin; ``user_id=None`` = the system).

        Raises ``err.no_table``, ``err.table_not_running``, ``err.host_or_admin``."""
        async with self.table_lock(table_id):
            row = await self._row(table_id)
            self._check_status(row, "running")
            if user_id is not None and user_id != row.host_user_id and not is_admin:
                raise ServiceError("err.host_or_admin")
            async with self.db.transaction():
                if not await self.db.update_table(table_id, self.clock.now(), expect_status="running",
                                                  status="abandoned"):
                    self._live.pop(table_id, None)  # another process ended it: reload
                    raise ServiceError("err.table_not_running")
                await self.scheduler.clear(table_id)
            self._live.pop(table_id, None)
            self._index.pop(table_id, None)
            view = await self.table(table_id)  # read back from the database
        self._forget(table_id)
        await notify(self.notifier.table_abandoned, view)
        return view

    # ------------------------------------------------------------------ play
    async def submit(self, table_id: int, user_id: int, version: int, code: str) -> Submitted:
        """A member's action from a button: applied, or buffered (simultaneous step).

        Raises :class:`ServiceError`: ``err.no_table``, ``err.not_owned``,
        ``err.table_not_running``, ``err.not_seated``, ``err.stale`` (another version: an old
        or double click, or a step another process stored first, see :attr:`shards`),
        ``err.not_your_turn``, ``err.illegal``. A button newer than the cached table reloads it.
        """
        async with self.table_lock(table_id):
            live = await self._get_live(table_id)
            if version > live.state.version:  # drawn by a newer state than the cache: another writer moved it
                self._live.pop(table_id, None)
                live = await self._get_live(table_id)
            seat = live.seat_of(user_id)
            if seat is None:
                raise ServiceError("err.not_seated")
            back = await self.scheduler.present(live, seat)
            if version != live.state.version:
                raise ServiceError("err.stale")
            try:
                result, view, events = await self.choose(live, seat, code, source="user")
            except VersionConflict:
                log.warning("table %s was moved by another writer; reloaded", table_id)
                raise ServiceError("err.stale") from None
        if back:
            await notify(self.notifier.came_back, view, seat)
        await self.after_change(table_id, view, events, result, seat)
        return Submitted(result, tuple(events))

    async def back(self, table_id: int, user_id: int) -> bool:
        """A member shows up at a running table (opens their panel): if the AI was playing their
        seat because they were away, their turns wait for them again. Returns True if they were away."""
        async with self.table_lock(table_id):
            live = await self.touch(table_id)
            seat = None if live is None else live.seat_of(user_id)
            if live is None or seat is None or not await self.scheduler.present(live, seat):
                return False
            await self.scheduler.arm(live)
            view = live.view()
        await notify(self.notifier.came_back, view, seat)
        return True

    async def _get_live(self, table_id: int) -> LiveTable:
        live = await self.touch(table_id)
        if live is None:
            row = await self._row(table_id)
            self._check_status(row, "running")
            raise ServiceError("err.table_not_running")  # its snapshot did not load: abandoned
        return live

    async def choose(self, live: LiveTable, seat: int, code: str, source: str) -> tuple[str, TableView, list[Event]]:
        """Record ``seat``'s choice (under the lock); apply the step when everyone has chosen.

        ``source`` (``user``, ``ai``, ``timeout``) goes to the action log. Returns ``("applied",
        view, events)`` or ``("buffered", view, [])``. Raises ``err.not_your_turn``,
        ``err.illegal``. Used by :meth:`submit`, the scheduler and the driver.

        The choice of a one-seat step is checked by ``Game.apply`` itself (the engine contract:
        ``IllegalAction`` for an action not legal now, nothing changed), so the seat's legal
        actions are not listed first; a choice of a simultaneous step is checked here.
        """
        game = live.game
        to_act = game.to_act(live.state)
        if seat not in to_act:
            raise ServiceError("err.not_your_turn")
        try:
            action = game.decode(code)
        except IllegalAction:
            raise ServiceError("err.illegal") from None
        if len(to_act) == 1:
            events = await self._apply(live, {seat: action}, source)
            return "applied", live.view(), events
        if action not in game.legal_actions(live.state, seat):
            raise ServiceError("err.illegal")
        chosen = {**live.pending, seat: code}
        if set(chosen) >= to_act:  # the last choice: stored with the step (no pending row)
            actions = {s: game.decode(c) for s, c in chosen.items() if s in to_act}
            events = await self._apply(live, actions, source)
            return "applied", live.view(), events
        await self.db.set_pending(live.id, seat, live.state.version, code)
        live.pending[seat] = code
        return "buffered", live.view(), []

    async def _apply(self, live: LiveTable, actions: dict[int, Any], source: str) -> list[Event]:
        """Apply and persist in one short transaction (:meth:`storage.base.Store.commit_step`:
        the snapshot by compare-and-set on the version, the action, the events, the next
        deadline or none, the pending choices cleared; the result and ratings too when the game
        ends), before anyone is told; only then update the cache (nothing there can fail).

        Raises ``ServiceError("err.illegal")`` when ``Game.apply`` refuses an action (nothing
        stored), :class:`storage.base.VersionConflict` when the stored table moved (another
        writer): nothing is stored and the cached table is dropped (reloaded on next touch)."""
        game = live.game
        row = live.row
        try:
            step = game.apply(live.state, actions)  # checks that every action is legal now
        except IllegalAction:
            raise ServiceError("err.illegal") from None
        now = self.clock.now()
        events = list(step.events)
        outcome = game.outcome(step.state)
        gone = await self._members_gone(live) if outcome is not None else frozenset()
        if outcome is None:
            timer, cancel = self.scheduler.step_timer(live.id, live.seats, game, step.state, now)
        else:
            timer, cancel = None, turn_key(live.id)
        write = StepWrite(
            table_id=live.id, version_before=row.version, version=step.state.version,
            state=game.dump_state(step.state), actions={s: game.encode(a) for s, a in actions.items()},
            source=source, events=[_event_dict(e) for e in events], action_seq=row.action_seq + 1,
            event_seq=row.event_seq + 1, now=now, status="finished" if outcome is not None else None,
            timer=timer, cancel_timer=cancel, clear_pending=bool(live.pending),
        )
        try:
            if outcome is None:
                await self.db.commit_step(write)
            else:
                async with self.db.transaction():
                    await self.db.commit_step(write)
                    await self._finish(live, outcome, now, gone)
        except VersionConflict:
            self._live.pop(live.id, None)
            raise
        live.state = step.state
        live.pending = {}
        live.row = _stepped_row(row, step.state.version, now, write.action_seq, write.event_seq + len(events) - 1,
                                "finished" if outcome is not None else row.status)
        self.scheduler.stepped(timer, cancel)
        return events

    async def _finish(self, live: LiveTable, outcome: Outcome, now: float, gone: frozenset[int] = frozenset()) -> None:
        """Store the result and update ratings/stats (inside the caller's transaction, which
        also stored the status and removed the deadline); the members in ``gone`` (no longer in
        the server) are not rated."""
        row, seats = live.row, live.seats
        await self.db.record_result(
            row.id, guild_id=row.guild_id, game=row.game,
            outcome={"ranks": list(outcome.ranks), "scores": list(outcome.scores)},
            seats=[(s.seat, s.user_id, outcome.ranks[s.seat], outcome.scores[s.seat]) for s in seats], now=now,
        )
        users = [s.user_id for s in seats if s.user_id is not None]
        old = await self.db.ratings(row.guild_id, row.game, users)
        rated = [
            Rated(s.user_id, old[s.user_id].mu, old[s.user_id].sigma) if s.user_id in old
            else ai_rating(s.level) if s.user_id is None else Rated(s.user_id)
            for s in seats
        ]
        new = rate(rated, list(outcome.ranks))
        for s, (mu, sigma) in zip(seats, new, strict=True):
            if s.user_id is None or s.user_id in gone:
                continue
            prev = old.get(s.user_id)
            await self.db.save_rating(row.guild_id, row.game, RatingRow(
                s.user_id, mu, sigma, (prev.played if prev else 0) + 1,
                (prev.won if prev else 0) + (1 if outcome.ranks[s.seat] == 1 else 0)))

    async def after_change(self, table_id: int, view: TableView, events: list[Event], result: str,
                           seat: int | None) -> None:
        """Tell the UI (outside the lock) and let the AI continue (no second driver is started
        while one runs, so the driver itself may call this)."""
        if result == "buffered":
            if seat is not None:
                await notify(self.notifier.choice_buffered, view, seat)
        else:
            await notify(self.notifier.step_applied, view, events)
            if view.row.status == "finished":
                self._forget(table_id)
                outcome = view.game.outcome(view.state)
                if outcome is not None:
                    await notify(self.notifier.table_finished, view, outcome)
                return
        # the AI's next move starts once the member answers being built are sent (bot.foreground)
        self.foreground.later(self.driver.kick, table_id)

    async def idle(self) -> None:
        """Wait until every resumed table is decoded and no AI driver is running (tests and the
        terminal use it)."""
        if self._warm is not None:
            await asyncio.gather(self._warm, return_exceptions=True)
        await self.driver.idle()

    # ------------------------------------------------------------------ deadlines
    async def process_deadlines(self) -> float | None:
        """Send due reminders and apply due timeouts; returns the next due time (or ``None``).

        See :meth:`bot.scheduler.Scheduler.process`; tests call it with a fake clock.
        """
        return await self.scheduler.process()

    async def run_timers(self) -> None:
        """Start the one timer task if needed and wait for it to end (at :meth:`close`)."""
        self.scheduler.start()
        task = self.scheduler.timers.task
        if task is not None:
            await asyncio.gather(task, return_exceptions=True)

    # ------------------------------------------------------------------ replay
    async def replay(self, table_id: int) -> Any:
        """The state reached by setting the table up again (its seed, seat count and options)
        and applying its action log in order: equal to the stored snapshot.

        Claimed only under the rules the table started with: raises :class:`ReplayError` when
        the table's ``rules_version`` is not the game's current one (a later rules version may
        make the same seed and log give another game), when it never started, or when its log
        does not replay (a step out of order, a custom deck deleted since). Raises
        ``ServiceError("err.no_table")`` for an unknown table.
        """
        row = await self._row(table_id)
        if row.seed is None or row.status == "lobby":
            raise ReplayError(f"table {table_id} has not started")
        game = GAMES.get(row.game)
        if game is None:
            raise ReplayError(f"table {table_id}: unknown game {row.game!r}")
        if row.rules_version != game.rules_version:
            raise ReplayError(
                f"table {table_id} started under rules version {row.rules_version} of {row.game}; "
                f"this version of the game replays only rules version {game.rules_version}")
        try:
            options = await self._setup_options(row)
        except ServiceError:
            raise ReplayError(f"table {table_id}: its custom deck {row.options.get('deck')!r} was deleted") from None
        state = game.setup(row.seed, len(await self.db.seats(table_id)), options)
        for version, codes, _source in await self.db.action_log(table_id):
            if state.version != version:
                raise ReplayError(f"table {table_id}: a step logged at version {version} meets state {state.version}")
            state = game.apply(state, {s: game.decode(c) for s, c in codes.items()}).state
        return state

    # ------------------------------------------------------------------ start-up / shutdown
    async def resume(self, *, warm: bool = True) -> list[int]:
        """Index every running table of this process's shards (all of them without
        :attr:`shards`) after a restart; returns their ids. O(tables): a few bulk
        reads (tables, seats, pending choices; the timers), no per-table query, no decoding.
        Clicks are accepted as soon as this returns.

        With ``warm`` (the default), a background task then touches every table (decodes its
        snapshot, restores its deadline, restarts its AI driver), yielding to clicks between
        tables; :meth:`idle` waits for it. A table whose stored state no longer loads is
        abandoned (and logged) when touched, never crashes the bot.
        """
        await self.scheduler.load()
        ids = []
        tables = await (self.db.running_tables_of(self.shards) if self.shards is not None else self.db.running_tables())
        for entry in tables:
            if entry.row.id not in self._live:
                self._index[entry.row.id] = entry
            ids.append(entry.row.id)
        if warm and ids:
            self._warm = asyncio.create_task(self._warm_up(ids), name="resume-warm-up")
        return ids

    async def _warm_up(self, ids: list[int]) -> None:
        """Touch every resumed table once: decode it, restore its deadline, kick its driver."""
        for n, table_id in enumerate(ids):
            if table_id in self._index:
                try:
                    async with self.table_lock(table_id):
                        live = await self.touch(table_id)
                        if live is not None:
                            await self.scheduler.restore(live)
                except Exception:
                    log.exception("table %s could not be restored", table_id)
                self.driver.kick(table_id)
            if n % 64 == 63:
                await asyncio.sleep(0)  # let clicks in

    async def warmed(self) -> None:
        """Wait until the warm-up of :meth:`resume` has touched every resumed table (at once
        when there is none)."""
        if self._warm is not None:
            await asyncio.gather(self._warm, return_exceptions=True)

    def start_timers(self) -> None:
        """Turn deadline processing on (call once the event loop runs)."""
        self.scheduler.start()

    async def close(self) -> None:
        """Stop timers, the warm-up, AI drivers and the AI pool (state is already persisted)."""
        tasks = self.scheduler.shutdown() + self.driver.shutdown()
        if self._warm is not None and not self._warm.done():
            self._warm.cancel()
            tasks.append(self._warm)
        await asyncio.gather(*tasks, return_exceptions=True)
        await self.driver.pool.close()

    # ------------------------------------------------------------------ custom decks
    async def _deck_data(self, row: TableRow, deck_id: Any) -> dict[str, Any]:
        try:
            data = await self.db.deck(row.guild_id, int(deck_id))
        except (TypeError, ValueError):
            data = None
        if data is None:
            raise ServiceError("err.no_deck")
        return data

    async def save_deck(self, guild_id: int, game: str, name: str, data: dict[str, Any], user_id: int,
                        max_decks: int = 24) -> int:
        """Store a validated custom deck for a guild (same name, ignoring case = replaced); returns its id.

        Raises ``err.too_many_decks`` when the guild already has ``max_decks`` others (the lobby
        select holds 25 options, the default deck included).
        """
        async with self.db.transaction():
            existing = await self.db.decks(guild_id, game)
            same = [n for _, n in existing if n.casefold() == name.casefold()]
            if len(existing) >= max_decks and not same:
                raise ServiceError("err.too_many_decks", max=max_decks)
            for old in same:  # names are matched ignoring case: "RUE DE LA PAIX" replaces "Rue de la Paix"
                await self.db.delete_deck(guild_id, next(i for i, n in existing if n == old))
            return await self.db.save_deck(guild_id, game, name, data, user_id, self.clock.now())

    async def decks(self, guild_id: int, game: str) -> list[tuple[int, str]]:
        """A guild's custom decks for a game: ``(deck_id, name)``."""
        return await self.db.decks(guild_id, game)

    async def deck(self, guild_id: int, deck_id: int) -> dict[str, Any] | None:
        """A guild's deck data, or ``None``."""
        return await self.db.deck(guild_id, deck_id)

    async def delete_deck(self, guild_id: int, deck_id: int) -> bool:
        """Remove a guild's deck (tables already started keep their copy of the cards)."""
        return await self.db.delete_deck(guild_id, deck_id)

    # ------------------------------------------------------------------ queries
    async def leaderboard(self, guild_id: int, game: str, limit: int = 10) -> list[RatingRow]:
        """Top members by ordinal with at least ``leaderboard_min_games`` games."""
        if game not in GAMES:
            raise ServiceError("err.unknown_game", game=game)
        return await self.db.leaderboard(guild_id, game, self.leaderboard_min_games, limit)

    async def stats(self, guild_id: int, user_id: int) -> dict[str, RatingRow]:
        """A member's stats per game."""
        return await self.db.member_stats(guild_id, user_id)

    async def recent_events(self, table_id: int, limit: int = 30) -> list[Event]:
        """The last ``limit`` events of a table (all audiences; filter before showing)."""
        return [_event_from(d) for d in await self.db.recent_events(table_id, limit)]

    # ------------------------------------------------------------------ lifecycle and admin (issue 13)
    async def all_events(self, table_id: int) -> list[Event]:
        """Every event of a table, in order (all audiences: filter before showing)."""
        return [_event_from(d) for d in await self.db.all_events(table_id)]

    async def guild_tables(self, guild_id: int) -> list[TableView]:
        """A guild's open lobbies and running tables, oldest first (``/table list``). Raises
        ``err.not_owned`` for a guild of another process's shards."""
        self._check_owned(guild_id)
        return [await self.table(row.id) for row in await self.db.guild_tables(guild_id)]

    async def lobby_of(self, guild_id: int, channel_id: int, host_user_id: int) -> TableView | None:
        """The open lobby a member hosts in a channel (a member hosts at most one per channel)."""
        self._check_owned(guild_id)
        row = await self.db.open_lobby_of(guild_id, channel_id, host_user_id)
        return None if row is None else await self.table(row.id)

    async def tables_in(self, place_id: int) -> list[TableView]:
        """Open lobbies and running tables whose thread or channel is ``place_id``."""
        return [await self.table(row.id) for row in await self.db.tables_in_place(place_id) if self.owns(row.guild_id)]

    async def close_table(self, table_id: int, user_id: int | None, is_admin: bool = False) -> TableView:
        """``/table abandon``: cancel a lobby or abandon a running table (host or admin).

        Raises ``err.no_table``, ``err.host_or_admin``, ``err.table_not_running`` (finished)."""
        row = await self._row(table_id)
        if user_id is not None and user_id != row.host_user_id and not is_admin:
            raise ServiceError("err.host_or_admin")
        if row.status == "lobby":
            return await self.cancel(table_id, user_id or row.host_user_id, True)
        return await self.abandon(table_id, user_id, is_admin)

    async def close_silently(self, table_id: int) -> bool:
        """Abandon a lobby or running table without telling anyone (no notifier call, nothing
        rated, its deadline cleared): the bot left its server, or its channel is gone.
        Returns False when the table was not open."""
        async with self.table_lock(table_id):
            row = await self._row(table_id)
            if row.status not in ("lobby", "running"):
                return False
            async with self.db.transaction():
                if not await self.db.update_table(table_id, self.clock.now(), expect_status=row.status,
                                                  status="abandoned"):
                    return False
                await self.scheduler.clear(table_id)
                if row.status == "lobby":
                    await self.scheduler.timers.cancel(lobby_key(table_id))
            self._live.pop(table_id, None)
            self._index.pop(table_id, None)
        self._forget(table_id)
        return True

    async def close_guild(self, guild_id: int) -> list[int]:
        """The bot was removed from a server: close its lobbies and running tables at once,
        silently (see :meth:`close_silently`); returns their ids (none for a guild of another
        process's shards: its owner closes them)."""
        if not self.owns(guild_id):
            return []
        closed = []
        for row in await self.db.guild_tables(guild_id):
            if await self.close_silently(row.id):
                closed.append(row.id)
        return closed

    async def leave_thread(self, table_id: int) -> TableView:
        """A running table's thread is gone (or cannot be posted in): from now on it plays in
        its channel (thread and board forgotten, a new board will be posted)."""
        async with self.table_lock(table_id):
            await self.db.update_table(table_id, self.clock.now(), thread_id=None, board_message_id=None)
            live = self._live.get(table_id)
            if live is not None:
                live.row = await self._row(table_id)
            return await self.table(table_id)

    async def rematch(self, table_id: int, user_id: int) -> TableView:
        """A new lobby after a finished table: same game, channel, host, options (a custom deck
        by its id) and seats (members may leave it; the host starts it as usual). Any seated
        member may ask. Raises ``err.not_seated``, ``err.not_finished``, ``err.lobby_exists``
        (``table``: the host's open lobby in that channel)."""
        row = await self._row(table_id)
        seats = await self.db.seats(table_id)
        if not any(s.user_id == user_id for s in seats):
            raise ServiceError("err.not_seated")
        if row.status != "finished":
            raise ServiceError("err.not_finished")
        existing = await self.db.open_lobby_of(row.guild_id, row.channel_id, row.host_user_id)
        if existing is not None:
            raise ServiceError("err.lobby_exists", table=existing.id)
        options = {k: v for k, v in row.options.items() if k != "deck_data"}
        host_name = next((s.name for s in seats if s.user_id == row.host_user_id), "")
        lobby = await self.open_lobby(guild_id=row.guild_id, channel_id=row.channel_id, game=row.game,
                                      host_user_id=row.host_user_id, host_name=host_name, lang=row.lang,
                                      options=options)
        await self.db.replace_seats(lobby.id, [SeatRow(i, s.user_id, s.name, s.is_ai, ai_level=s.ai_level)
                                               for i, s in enumerate(seats)])
        return await self.table(lobby.id)

    async def _members_gone(self, live: LiveTable) -> frozenset[int]:
        """Members of a finishing table no longer in its server (asked once each, through the
        notifier); never raises (an error counts nobody as gone)."""
        users = [s.user_id for s in live.seats if s.user_id is not None]
        if not users:
            return frozenset()
        try:
            return frozenset(await self.notifier.members_gone(live.row.guild_id, users))
        except Exception:
            log.exception("could not check who left the server of table %s", live.id)
            return frozenset()


def _event_dict(e: Event) -> dict[str, Any]:
    return {"key": e.key, "params": dict(e.params), "audience": sorted(e.audience) if e.audience is not None else None}


def _event_from(d: dict[str, Any]) -> Event:
    aud = d.get("audience")
    return Event(d["key"], d.get("params") or {}, frozenset(aud) if aud is not None else None)
