"""What the table services share: their errors, the stored form of events, and :class:`Hall`,
the state every service of the process works on.

No discord import: Discord (cogs/) and the terminal mode (bot/terminal.py) both drive tables
through the services, and tests drive them directly with a real store and a fake clock. The
services, each with one concern, are built together over one hall by :class:`bot.house.House`:

- :class:`bot.lobbies.Lobbies`: a table before it runs (open, seats, AI players and their
  levels, options, start, cancel, the lobby's expiry, rematch), and ``/table abandon``;
- :class:`bot.tables.Tables`: the running tables (submitted choices, steps, deadlines through
  :class:`bot.scheduler.Scheduler`, AI moves through :class:`bot.driver.Driver`, abandoning,
  replay, resume after a restart, closing a table or a server's tables silently);
- :class:`bot.decks.Decks`: a guild's custom decks;
- :class:`bot.records.Records`: read-only queries (leaderboard, stats, a table's events, the
  open tables of a guild or of a thread or channel).

Life of a table: ``Lobbies.open`` → ``join``/``leave``/``add_ai``/``remove_ai``/``set_option`` →
``Lobbies.start`` → ``Tables.submit``… (AI seats move by themselves; deadlines make the AI act
for a quiet member) → finished (result and ratings stored in one transaction) or abandoned.

The hall's guarantees:

- A per-table lock (:meth:`Hall.lock`) serialises every change of a table. It exists only
  while a task holds it or waits for it (then it is dropped), so the locks never outgrow the
  tables in use, whatever ids the clicks carry (:meth:`Hall.held`).
- The cache of a running table (:class:`bot.table.LiveTable`) is always equal to what is
  stored: it changes only under the table's lock, after the change is stored; a table that
  stops running leaves it (:meth:`Hall.forget`).
- A running table's last events, once read (:meth:`Hall.recent_events`), are kept in memory for
  the boards and panels drawn after each step: filled under the table's lock, followed by each
  step stored, dropped with the table's cache or when a step's events do not follow them.
- After a restart the running tables are indexed in bulk (:meth:`Hall.index`); each snapshot is
  decoded on first touch (:meth:`Hall.touch`). A table whose snapshot no longer loads is
  abandoned (logged), never crashes the bot.
- Sharding (``shards``, :class:`storage.base.Shards`): the process owns the tables of the guilds
  on its shards. Any other table is refused (``err.not_owned``), never read into the cache and
  never written; the timers of the process's shards alone are loaded. Should two processes act
  on one table anyway (a misconfiguration, or an overlap while the shard count changes), the
  store's compare-and-sets (on a table's version, and on its status for starting, cancelling
  and abandoning) let one change through; the other reloads the table.
"""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict, deque
from dataclasses import replace
from typing import Any

from bot.games import GAMES
from bot.table import LiveTable, Notifier, TableSnapshot
from bot.timers import Clock, Timers, turn_key
from engine.core import Event
from storage.base import (
    RunningTable,
    Shards,
    Store,
    TableRow,
    dumps,
    loads,
)

__all__ = ["Hall", "Notifier", "TableLock", "ReplayError", "ServiceError", "TableSnapshot", "event_dict", "event_from"]

log = logging.getLogger(__name__)


class ServiceError(Exception):
    """A refusal to show the user: ``key`` is an i18n key, ``params`` its values.

    Never carries hidden information.
    """

    def __init__(self, key: str, **params: Any) -> None:
        super().__init__(key)
        self.key = key
        self.params = params


class ReplayError(Exception):
    """:meth:`bot.tables.Tables.replay` refused: the table was set up under another rules
    version than the game's current one, never started, or its log cannot be replayed (the
    message says which). Not shown to players."""


def event_dict(e: Event) -> dict[str, Any]:
    """An event as the store keeps it: ``{"key", "params", "audience"}`` (audience sorted, or ``None``)."""
    return {"key": e.key, "params": dict(e.params), "audience": sorted(e.audience) if e.audience is not None else None}


def event_from(d: dict[str, Any]) -> Event:
    """The event of a stored dict (see :func:`event_dict`)."""
    aud = d.get("audience")
    return Event(d["key"], d.get("params") or {}, frozenset(aud) if aud is not None else None)


class TableLock:
    """``async with hall.lock(table_id):`` one table's lock, counted: the
    :class:`asyncio.Lock` is made by the first task that asks for it and dropped from the
    hall's ``locks`` when the last holder or waiter leaves (a lock nobody holds or awaits
    guards nothing: the next task makes a fresh one)."""

    __slots__ = ("_entry", "_id", "_locks")

    def __init__(self, locks: dict[int, list[Any]], table_id: int) -> None:
        self._locks = locks
        self._id = table_id
        self._entry: list[Any] | None = None

    async def __aenter__(self) -> None:
        entry = self._locks.get(self._id)
        if entry is None:
            entry = self._locks[self._id] = [asyncio.Lock(), 0]  # [lock, holders and waiters]
        entry[1] += 1
        self._entry = entry
        try:
            await entry[0].acquire()
        except BaseException:
            self._leave(entry)
            raise

    async def __aexit__(self, *exc: object) -> None:
        entry = self._entry
        assert entry is not None
        entry[0].release()
        self._leave(entry)

    def _leave(self, entry: list[Any]) -> None:
        entry[1] -= 1
        if not entry[1] and self._locks.get(self._id) is entry:
            del self._locks[self._id]


#: Events a running table's tail keeps (:meth:`Hall.recent_events`): what a board reads.
TAIL_EVENTS = 60
#: Running tables whose tails the hall keeps, the least recently read dropped first.
TAILS = 1024


class _Tail:
    """The last events of a running table (at most :data:`TAIL_EVENTS`), as the store returns
    them, through ``seq`` (the table's ``event_seq`` then); ``whole`` when they are all its
    events."""

    __slots__ = ("events", "seq", "whole")

    def __init__(self, events: list[Event], seq: int, whole: bool) -> None:
        self.events: deque[Event] = deque(events, maxlen=TAIL_EVENTS)
        self.seq = seq
        self.whole = whole


class Hall:
    """The state the table services share: the store, the clock, the process's shards, the
    notifier, the persisted timers, the per-table locks, the cache of running tables and the
    tails of their event logs (see the module docstring for what it guarantees).

    Args:
        db: an open store (:class:`storage.base.Store`).
        clock: time source (a fake one in tests); the timers read the same one.
        notifier: what the UI hears (the default hears nothing). Every use reads
            :attr:`notifier`, so the UI may install its own later by assigning it.
        shards: the Discord shards of this process: it owns only the tables of their guilds
            (``None``: every table).
    """

    def __init__(self, db: Store, clock: Clock, *, notifier: Notifier | None = None,
                 shards: Shards | None = None) -> None:
        self.db = db
        self.clock = clock
        self.shards = None if shards is None or shards.everything else shards
        self.notifier: Notifier = notifier or Notifier()
        #: the persisted timers of the process (turn deadlines, lobby expiries, the UI's own)
        self.timers = Timers(db, clock, shards=self.shards)
        self._locks: dict[int, list[Any]] = {}  # table id -> [lock, holders and waiters] (TableLock)
        self._live: dict[int, LiveTable] = {}  # running tables, decoded
        self._index: dict[int, RunningTable] = {}  # running tables resumed but not decoded yet
        self._tails: OrderedDict[int, _Tail] = OrderedDict()  # running tables' last events (TAILS at most)
        self._unsure: set[int] = set()  # tables whose last step met an outage (:meth:`unsure`)

    # ------------------------------------------------------------------ ownership
    def owns(self, guild_id: int) -> bool:
        """Whether this process owns the guild's tables (its shard is one of :attr:`shards`)."""
        return self.shards is None or self.shards.owns(guild_id)

    def check_owned(self, guild_id: int) -> None:
        """Raise ``ServiceError("err.not_owned")`` for a guild of another process's shards."""
        if not self.owns(guild_id):
            log.warning("refused a request for guild %s: it is on shard %s, this process runs %s", guild_id,
                        self.shards.shard_of(guild_id) if self.shards else 0, self.shards)
            raise ServiceError("err.not_owned")

    # ------------------------------------------------------------------ locks and the cache
    def lock(self, table_id: int) -> TableLock:
        """The lock serialising every change of a table (``async with``; see :class:`TableLock`)."""
        return TableLock(self._locks, table_id)

    def live(self, table_id: int) -> LiveTable | None:
        """The cache of a running table, or ``None`` (not running, or not decoded yet)."""
        return self._live.get(table_id)

    def held(self) -> dict[str, frozenset[int]]:
        """The table ids each per-table structure holds now: ``locks``, ``live`` (running tables,
        decoded), ``index`` (resumed, not decoded yet) and ``tails`` (running tables' last events
        kept). For tests and the soak benchmark."""
        return {"locks": frozenset(self._locks), "live": frozenset(self._live), "index": frozenset(self._index),
                "tails": frozenset(self._tails)}

    def keep(self, live: LiveTable) -> LiveTable:
        """Cache a table that starts running (under its lock, once stored); returns it."""
        self._live[live.id] = live
        return live

    def unsure(self, table_id: int) -> None:
        """A step of the table met an outage: it may have been stored (its answer lost). The
        cache serves on while the store is away and is read again at its first touch once the
        store answers (:meth:`touch`)."""
        self._unsure.add(table_id)

    def drop(self, table_id: int) -> None:
        """Drop a table from the cache (its next touch reloads it from the store: another writer
        moved it, or it stopped running)."""
        self._live.pop(table_id, None)
        self._index.pop(table_id, None)
        self._tails.pop(table_id, None)

    def forget(self, table_id: int) -> None:
        """Drop the per-table memory of a table that stopped running (its lock goes by itself
        when its last holder or waiter leaves)."""
        self._live.pop(table_id, None)
        self._index.pop(table_id, None)
        self._tails.pop(table_id, None)
        self._unsure.discard(table_id)

    def running(self) -> int:
        """How many running tables the process holds (decoded or waiting to be)."""
        return len(self._live) + len(self._index)

    def index(self, tables: list[RunningTable]) -> list[int]:
        """Remember running tables read in bulk after a restart, to decode each on first touch
        (a table already cached is kept as it is); returns their ids."""
        ids = []
        for entry in tables:
            if entry.row.id not in self._live:
                self._index[entry.row.id] = entry
            ids.append(entry.row.id)
        return ids

    def indexed(self, table_id: int) -> bool:
        """Whether a resumed table is still waiting to be decoded."""
        return table_id in self._index

    async def touch(self, table_id: int) -> LiveTable | None:
        """The cache of a running table, decoded on first touch after a restart, or reloaded
        from the store when not cached (after a version conflict, or started elsewhere).

        ``None`` when the table is not running or is another process's (its guild is on a shard
        this process does not run: never read into the cache, never written); a table whose
        snapshot no longer loads is abandoned (logged), never crashes the bot. Call under the
        table's lock."""
        live = self._live.get(table_id)
        if live is not None and table_id in self._unsure and self.db.unavailable_since is None:
            self._unsure.discard(table_id)  # the store answers again: read what it holds
            self.drop(table_id)
            live = None
        if live is not None:
            if self.owns(live.row.guild_id):
                return live
            self._live.pop(table_id, None)  # the layout changed under it: no longer ours
            return None
        entry = self._index.pop(table_id, None)
        resumed = entry is not None  # decoded for the first time since the restart (else reloaded)
        if entry is None:
            row = await self.db.get_table(table_id)
            if row is None or row.status != "running" or not self.owns(row.guild_id):
                return None
            entry = RunningTable(replace(row, state=None), None, await self.db.seats(table_id),
                                 await self.db.pending(table_id, row.version))
            state_data: Any = row.state
        else:
            state_data = entry.state_json
        try:
            if isinstance(state_data, (str, bytes)):
                state_data = loads(state_data)
            if entry.row.game not in GAMES:
                raise ValueError(f"unknown game {entry.row.game}")
            if state_data is None:
                raise ValueError(f"table {table_id} is running without a snapshot")
            state = GAMES[entry.row.game].game.load_state(state_data)
        except Exception:
            log.exception("table %s could not be resumed; abandoning it", table_id)
            async with self.db.transaction():
                await self.db.update_table(table_id, self.clock.now(), status="abandoned")
                await self.timers.cancel(turn_key(table_id))
            self.forget(table_id)
            return None
        pending = entry.pending if entry.row.version == state.version else {}
        live = LiveTable(entry.row, list(entry.seats), state, dict(pending))
        if resumed:
            live.loaded_turn = live.snapshot().turn()
        self._live[table_id] = live
        return live

    # ------------------------------------------------------------------ a table's last events
    async def recent_events(self, table_id: int, limit: int) -> list[Event]:
        """The last ``limit`` events of a table, oldest first (all audiences: filter before
        showing). A running table's last :data:`TAIL_EVENTS` are kept in memory once read
        (:meth:`events_added` follows its steps), so a board or a panel drawn after each step
        does not ask the store; the store is asked for anything else. The tail is filled under
        the table's lock (no step half-stored meanwhile), and only when nobody holds the lock."""
        live = self._live.get(table_id)
        tail = self._tails.get(table_id)
        if live is not None and tail is not None and tail.seq == live.row.event_seq and limit <= TAIL_EVENTS:
            if tail.whole or len(tail.events) >= limit:
                self._tails.move_to_end(table_id)
                return list(tail.events)[-limit:] if limit > 0 else []
        if live is None or limit > TAIL_EVENTS or table_id in self._locks:
            return [event_from(d) for d in await self.db.recent_events(table_id, limit)]
        async with self.lock(table_id):
            live = self._live.get(table_id)
            rows = await self.db.recent_events(table_id, TAIL_EVENTS)
            events = [event_from(d) for d in rows]
            if live is not None:
                self._tails[table_id] = _Tail(events, live.row.event_seq, len(rows) < TAIL_EVENTS)
                self._tails.move_to_end(table_id)
                while len(self._tails) > TAILS:
                    self._tails.popitem(last=False)
        return events[-limit:] if limit > 0 else []

    def events_added(self, table_id: int, first_seq: int, events: list[dict[str, Any]]) -> None:
        """A step of a running table stored ``events`` (as :func:`event_dict` makes them) from
        seq ``first_seq``: its tail follows (each event as the store would return it), or is
        dropped when it did not end just before them. Call under the table's lock."""
        tail = self._tails.get(table_id)
        if tail is None:
            return
        if tail.seq != first_seq - 1:
            del self._tails[table_id]
            return
        tail.events.extend(event_from(loads(dumps(d))) for d in events)
        tail.seq = first_seq + len(events) - 1

    # ------------------------------------------------------------------ reading a table
    async def row(self, table_id: int) -> TableRow:
        """The stored row of one of this process's tables. Raises ``err.no_table``, and
        ``err.not_owned`` for another process's table."""
        row = await self.db.get_table(table_id)
        if row is None:
            raise ServiceError("err.no_table")
        self.check_owned(row.guild_id)
        return row

    async def table(self, table_id: int) -> TableSnapshot:
        """A table as it is now, in any status (lobby, running, finished, abandoned): the cache
        for a running table, else the store. Raises :class:`ServiceError` ``err.no_table``, and
        ``err.not_owned`` for another process's table (see :attr:`shards`)."""
        live = self._live.get(table_id)
        if live is None and table_id in self._index:
            async with self.lock(table_id):
                live = await self.touch(table_id)
        if live is not None:
            self.check_owned(live.row.guild_id)
            return live.snapshot()
        return await self.stored(table_id)

    async def stored(self, table_id: int) -> TableSnapshot:
        """The table as its store holds it, not this process's cache (another process, e.g. a
        second terminal window, may have moved or finished it). Raises :class:`ServiceError`
        ``err.no_table``, ``err.not_owned``."""
        row = await self.row(table_id)
        seats = await self.db.seats(table_id)
        state = GAMES[row.game].game.load_state(row.state) if row.state and row.game in GAMES else None
        return TableSnapshot(row, seats, state)
