"""Persisted timers: one API for every feature that must act at a time, across restarts.

:class:`Timers` is ``schedule(key, at, payload)`` / ``cancel(key)``, persisted through the
store's ``timers`` rows: an in-memory priority queue (``heapq``) loaded once at start and kept in
step with the database, and ONE sleeping task that wakes for the nearest timer. Nothing rescans
the stored timers after start-up; a step that moves a timer later does not even wake the task.

A key is ``<kind>:...:<table id>`` (the table's id last: a timer follows its table's guild, so its
shard). Each feature registers a handler for its own kind: :data:`TURN` (``turn:<table id>``,
the turn deadlines of :class:`bot.scheduler.Scheduler`), :data:`LOBBY` (``lobby:<table id>``, a
lobby's expiry, :class:`bot.lobbies.Lobbies`), and ``flash`` (:mod:`cogs.panels`, a private
message deleted after a few seconds).
"""

from __future__ import annotations

import asyncio
import asyncio.futures
import heapq
import itertools
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

from storage.base import Backoff, Shards, Store, StoreUnavailable, TimerRow

__all__ = ["LOBBY", "TURN", "Clock", "SystemClock", "Timers", "key_table", "lobby_key", "turn_key"]

log = logging.getLogger(__name__)

#: Seconds before the timer task looks again after processing itself failed.
RETRY_SECONDS = 5.0
#: First and longest pause before processing again while the store is unavailable (seconds).
RETRY_FIRST, RETRY_CAP = 0.05, 2.0
#: The kind of the turn-deadline timers (key ``turn:<table id>``; :class:`bot.scheduler.Scheduler`).
TURN = "turn"
#: The kind of the lobby-expiry timers (key ``lobby:<table id>``; :class:`bot.lobbies.Lobbies`).
LOBBY = "lobby"


def turn_key(table_id: int) -> str:
    """The timer key of a table's turn deadline."""
    return f"{TURN}:{table_id}"


def lobby_key(table_id: int) -> str:
    """The timer key of a lobby's expiry (see :meth:`bot.lobbies.Lobbies.open`)."""
    return f"{LOBBY}:{table_id}"


def key_table(key: str) -> int:
    """The table id of a timer key ``<kind>:<table id>``. Raises ``ValueError`` otherwise."""
    return int(key.partition(":")[2])


class Clock(Protocol):
    """Source of the current time in UNIX seconds."""

    def now(self) -> float: ...


class SystemClock:
    """The real clock."""

    def now(self) -> float:
        """``time.time()``."""
        return time.time()


_set_result_unless_cancelled = asyncio.futures._set_result_unless_cancelled  # type: ignore[attr-defined]  # as asyncio.sleep

Handler = Callable[[TimerRow], Awaitable[None]]
Overdue = Callable[[TimerRow, float], TimerRow | None]


class Timers:
    """General persisted timers of the process: a heap in memory, the store's rows on disk.

    - :meth:`load` once at start (one bulk read; overdue timers of a kind registered with
      ``on_overdue`` are replaced, e.g. restarted from now);
    - :meth:`schedule` / :meth:`cancel` store and remember a timer; :meth:`remember` /
      :meth:`forget` only remember what the caller already stored in its own transaction (a
      step writes its turn deadline with the step);
    - :meth:`process` runs the handlers of the due timers (tests call it with a fake clock);
      :meth:`start` runs it from one task that sleeps until the nearest due time.

    A fired timer that its handler neither rescheduled nor cancelled is removed (one-shot). A
    handler that raises is logged and its timer removed, except for
    :class:`storage.base.StoreUnavailable` (the database is briefly away): a timer leaves the
    queue only once its handler has succeeded, so the timer stays armed, processing stops
    there, and the task tries again with capped exponential back-off (:data:`RETRY_FIRST` to
    :data:`RETRY_CAP` seconds) for as long as the outage lasts; the timers that fell due
    meanwhile then fire in due order.

    With ``shards``, :meth:`load` reads only the timers of the process's shards (a table's timer
    follows its guild, see :meth:`storage.base.Store.timers`): another process's timers are
    never fired here.
    """

    def __init__(self, store: Store, clock: Clock, *, shards: Shards | None = None) -> None:
        self.store = store
        self.clock = clock
        self.shards = shards
        self._handlers: dict[str, tuple[Handler, Overdue | None]] = {}
        self._rows: dict[str, tuple[int, TimerRow]] = {}  # key -> (entry id, row)
        self._heap: list[tuple[float, int, str]] = []  # (due, entry id, key); stale entries skipped
        self._ids = itertools.count()
        self._task: asyncio.Task[None] | None = None
        self._alarm: asyncio.Future[None] | None = None
        self._alarm_at: float | None = None
        self._closed = False
        self._started = False
        self.loads = 0  # bulk reads of the stored timers (1 per process: tests check it)
        self.wakeups = 0  # times the sleeping task was woken early (an earlier timer appeared)
        self.retries = 0  # processing rounds that met an unavailable store and were tried again
        self._reread: set[str] = set()  # keys to read back from the store (:meth:`reread`)
        self._unstored: dict[str, TimerRow] = {}  # kept in memory, to store (:meth:`keep_unstored`)

    # ------------------------------------------------------------------ registration, loading
    def handle(self, kind: str, handler: Handler, *, on_overdue: Overdue | None = None) -> None:
        """Run ``handler(row)`` when a timer of ``kind`` is due. ``on_overdue(row, now)`` is
        asked at :meth:`load` for each timer of the kind already due: it returns a replacement
        row (stored, e.g. the same timer restarted from now) or ``None`` (fire it as it is)."""
        self._handlers[kind] = (handler, on_overdue)

    async def load(self) -> int:
        """Read every stored timer of the process's shards (once, at start) into memory;
        returns how many."""
        self.loads += 1
        now = self.clock.now()
        replaced: list[TimerRow] = []
        for row in await self.store.timers(self.shards):
            entry = self._handlers.get(row.kind)
            if row.due <= now and entry is not None and entry[1] is not None:
                new = entry[1](row, now)
                if new is not None:
                    replaced.append(new)
                    row = new
            self.remember(row)
        if replaced:
            await self.store.set_timers(replaced)
        return len(self._rows)

    # ------------------------------------------------------------------ the API
    def get(self, key: str) -> TimerRow | None:
        """The timer of ``key`` as remembered, or ``None``."""
        entry = self._rows.get(key)
        return entry[1] if entry is not None else None

    def keys(self) -> frozenset[str]:
        """The keys of the timers remembered now."""
        return frozenset(self._rows)

    def sizes(self) -> dict[str, int]:
        """Entries held now: ``rows`` (one per timer), ``heap`` (queue entries, stale ones
        included), ``handlers`` (kinds registered). For tests and the soak benchmark."""
        return {"rows": len(self._rows), "heap": len(self._heap), "handlers": len(self._handlers)}

    def __len__(self) -> int:
        return len(self._rows)

    async def schedule(self, key: str, at: float, payload: dict[str, Any] | None = None) -> TimerRow:
        """Store and remember the timer ``key`` due at ``at`` (replaces one of the same key).
        Joins the caller's transaction: remembered once it commits (a rollback leaves the
        timers in memory as they were)."""
        row = TimerRow(key, at, dict(payload or {}))
        await self.store.set_timer(row)
        self.store.after_commit(lambda: self.remember(row), lambda: self.reread(key))
        return row

    async def cancel(self, key: str) -> None:
        """Remove the timer ``key`` (stored and remembered, once the caller's transaction
        commits); no error when there is none."""
        await self.store.cancel_timer(key)
        self.store.after_commit(lambda: self.forget(key), lambda: self.reread(key))

    def reread(self, key: str) -> None:
        """The store did not answer a change of ``key`` (it may have been stored): the task
        reads it back once the store answers (:meth:`process`)."""
        self._reread.add(key)
        self._wake()

    def keep_unstored(self, row: TimerRow) -> None:
        """Keep ``row`` in memory while the store cannot take it (an outage): it fires here,
        and the task stores it once the store answers (:meth:`process`), unless the key
        changes meanwhile."""
        self.remember(row)
        self._unstored[row.key] = row
        self._wake()

    def _wake(self) -> None:
        alarm = self._alarm
        if alarm is not None and not alarm.done():
            alarm.set_result(None)
        elif self._started and not self._closed and (self._task is None or self._task.done()):
            self._spawn()

    def remember(self, row: TimerRow) -> None:
        """Keep ``row`` in memory (the caller stored it); wakes the task only if it is now the
        nearest timer."""
        self._unstored.pop(row.key, None)
        entry = next(self._ids)
        self._rows[row.key] = (entry, row)
        heapq.heappush(self._heap, (row.due, entry, row.key))
        if len(self._heap) > 2 * len(self._rows) + 64:
            self._compact()
        alarm = self._alarm
        if alarm is not None and not alarm.done() and (self._alarm_at is None or row.due < self._alarm_at):
            self.wakeups += 1
            alarm.set_result(None)
        elif self._started and not self._closed and (self._task is None or self._task.done()):
            self._spawn()  # the task ended when no timer was left: the first new one restarts it

    def forget(self, key: str) -> None:
        """Drop ``key`` from memory (the caller removed it from the store)."""
        self._rows.pop(key, None)
        self._unstored.pop(key, None)

    def _compact(self) -> None:
        self._heap = [(row.due, entry, key) for key, (entry, row) in self._rows.items()]
        heapq.heapify(self._heap)

    def next_due(self) -> float | None:
        """The nearest due time, or ``None`` when there is no timer."""
        heap = self._heap
        while heap:
            due, entry, key = heap[0]
            current = self._rows.get(key)
            if current is not None and current[0] == entry:
                return due
            heapq.heappop(heap)
        return None

    # ------------------------------------------------------------------ firing
    async def process(self) -> float | None:
        """Run the handlers of every timer due now (in due order); returns the next due time.

        First, once the store answers, the timers kept in memory during an outage are stored and
        those whose change it may or may not have stored are read back (:meth:`_catch_up`).
        Raises :class:`storage.base.StoreUnavailable` when a handler (or removing its fired
        timer, or a read back) met an outage: that timer and every later one stay armed."""
        if self.store.unavailable_since is None:  # not during an outage (a read may pass while
            await self._catch_up()                    # writes fail: a busy SQLite file)
        now = self.clock.now()
        while (due := self.next_due()) is not None and due <= now:
            _, entry, key = self._heap[0]  # stays queued until its handler has succeeded
            row = self._rows[key][1]
            handler = self._handlers.get(row.kind)
            try:
                if handler is None:
                    log.warning("no handler for timer %s; removing it", key)
                else:
                    await handler[0](row)
            except StoreUnavailable:
                raise
            except Exception:
                log.exception("timer %s failed; removing it", key)
            current = self._rows.get(key)
            if current is not None and current[0] == entry:  # neither rescheduled nor cancelled
                await self.cancel(key)
        return self.next_due()

    async def _catch_up(self) -> None:
        """Store the timers kept in memory during an outage (:meth:`keep_unstored`) and read back
        those whose change the store may or may not have stored (:meth:`reread`)."""
        for key, kept in list(self._unstored.items()):  # kept during an outage: stored now
            await self.store.set_timer(kept)
            if self._unstored.get(key) is kept:
                del self._unstored[key]
            self._reread.discard(key)  # (memory holds what is now stored)
        for key in sorted(self._reread):  # as stored (the store answers again, or this raises)
            stored = await self.store.timer(key)
            if key not in self._reread:
                continue  # changed meanwhile
            if stored is None:
                self.forget(key)
            else:
                self.remember(stored)
            self._reread.discard(key)

    def start(self) -> None:
        """Start the one timer task (call once the event loop runs; again is a no-op). The task
        ends while no timer is left and is started again by the next one."""
        self._started = True
        if self._closed or (self._task is not None and not self._task.done()):
            return
        self._spawn()

    def _spawn(self) -> None:
        self._task = asyncio.create_task(self._run(), name="timers")

    @property
    def task(self) -> asyncio.Task[None] | None:
        """The one timer task (``None`` before :meth:`start`)."""
        return self._task

    @property
    def sleeping(self) -> bool:
        """True while the timer task waits for the nearest due time."""
        return self._alarm is not None and not self._alarm.done()

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        backoff = Backoff(RETRY_FIRST, RETRY_CAP)
        while not self._closed:
            try:
                next_due = await self.process()
                backoff.reset()
                if self._reread or self._unstored:  # asked for while processing, or during an outage
                    wait = 0.0 if self.store.unavailable_since is None else RETRY_CAP
                    next_due = min(next_due if next_due is not None else float("inf"), self.clock.now() + wait)
            except StoreUnavailable:  # logged once per outage by the store
                self.retries += 1
                next_due = self.clock.now() + backoff.next()
            except Exception:
                log.exception("timer processing failed")
                next_due = self.clock.now() + RETRY_SECONDS
            if next_due is None:
                return  # nothing to wait for: the next timer starts a new task
            alarm: asyncio.Future[None] = loop.create_future()
            # the same wake-up as asyncio.sleep (tools that drive virtual time recognise it)
            handle = loop.call_later(max(0.0, next_due - self.clock.now()), _set_result_unless_cancelled, alarm, None)
            self._alarm, self._alarm_at = alarm, next_due
            try:
                await alarm
            finally:
                self._alarm = self._alarm_at = None
                handle.cancel()

    def shutdown(self) -> list[asyncio.Task[Any]]:
        """Stop for good: the task is cancelled and returned (await it)."""
        self._closed = True
        task = self._task
        if task is None or task.done():
            return []
        task.cancel()
        return [task]
