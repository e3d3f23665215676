"""Turn deadlines: the reminder, the timeout, and members who went away.

When a member must act in a step, the step gets a deadline: a reminder at
``reminder_fraction * turn_timeout`` seconds, then at ``turn_timeout`` the game's
``timeout_action`` for every member who has not acted. A member who times out
:data:`AWAY_AFTER_TIMEOUTS` times in a row is *away*: the AI plays their seat at once (the driver
sees :attr:`storage.db.SeatRow.autoplay`) until they come back (any click of theirs at the table).

Deadlines live in the database (they survive a restart); one timer task sleeps until the next
one is due. :class:`Scheduler` is the only owner of both: the service calls the methods listed in
its docstring and nothing else, so the way due deadlines are found (today: the database rows and
one sleeping task) can change inside this module alone.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import replace
from typing import Any, Protocol

from bot.table import LiveTable, TableHost, TableView, notify
from engine.core import Event, Game
from storage.db import Database, SeatRow

__all__ = ["AWAY_AFTER_TIMEOUTS", "MAX_AUTO_STEPS", "Clock", "Scheduler"]

log = logging.getLogger(__name__)

#: Bound on consecutive automatic moves for one seat in one timeout (a safety net).
MAX_AUTO_STEPS = 1000
#: After this many timeouts in a row, a member is "away": the AI plays their seat at once,
#: without waiting for the timeout, until they come back (any click of theirs at the table).
AWAY_AFTER_TIMEOUTS = 2
#: Seconds before the timer looks again after processing the deadlines itself failed.
RETRY_SECONDS = 5.0


class Clock(Protocol):
    """Source of the current time in UNIX seconds."""

    def now(self) -> float: ...


class Scheduler:
    """The turn deadlines of every running table of the process.

    Interface used by the service (everything else is internal):

    - :meth:`write` inside the transaction that stores a step (or a start): the deadline of the
      step of ``state``, or none when no member must act in it;
    - :meth:`arm` for the current step of a cached table, :meth:`restore` after a restart,
      :meth:`clear` when a table stops running;
    - :meth:`present` when a member shows up (resets their timeouts; True if they were away);
    - :meth:`process` to handle what is due now; :meth:`start`, :meth:`wake`, :meth:`shutdown`
      for the timer task.

    Args:
        db: the open database (the ``deadlines`` table and seats' ``away`` flags).
        clock: time source (a fake one in tests).
        host: the owner of the tables (locks, cache, choices, the notifier).
        turn_timeout: seconds a member has to act before the AI acts for them.
        reminder_fraction: when the reminder is sent, as a fraction of ``turn_timeout``.
    """

    def __init__(self, db: Database, clock: Clock, host: TableHost, *, turn_timeout: float = 300,
                 reminder_fraction: float = 0.5) -> None:
        self.db = db
        self.clock = clock
        self.host = host
        self.turn_timeout = turn_timeout
        self.reminder_fraction = reminder_fraction
        self._timeouts: dict[tuple[int, int], int] = {}  # (table, seat) -> timeouts in a row
        self._timer: asyncio.Task[None] | None = None
        self._on = False
        self._sleeping: asyncio.Task[Any] | None = None
        self._recheck = False
        self._closed = False

    # ------------------------------------------------------------------ writing deadlines
    async def write(self, table_id: int, seats: list[SeatRow], game: Game, state: Any, now: float) -> None:
        """Store the deadline for the step of ``state`` when a member (a seat not played by the
        AI) must act in it; remove the table's deadline otherwise. Joins the caller's transaction."""
        humans = {s.seat for s in seats if not s.autoplay}
        if game.to_act(state) & humans:
            await self.db.set_deadline(table_id, state.version, now + self.turn_timeout * self.reminder_fraction,
                                       now + self.turn_timeout)
        else:
            await self.db.clear_deadline(table_id)

    async def arm(self, live: LiveTable) -> None:
        """Deadline for the current step of a cached table, from now (see :meth:`write`)."""
        await self.write(live.id, live.seats, live.game, live.state, self.clock.now())
        self.wake()

    async def restore(self, live: LiveTable) -> None:
        """After a restart: keep the stored deadline of the current step, or arm a new one."""
        existing = await self.db.deadline(live.id)
        if existing is None or existing.version != live.state.version:
            await self.arm(live)

    async def clear(self, table_id: int) -> None:
        """The table stopped running (finished, abandoned): no deadline. Joins a transaction."""
        await self.db.clear_deadline(table_id)

    # ------------------------------------------------------------------ away members
    async def present(self, live: LiveTable, seat: int) -> bool:
        """The member of ``seat`` is here (under the lock): reset their timeouts in a row; if
        they were away, their turns wait for them again and True is returned."""
        self._timeouts.pop((live.id, seat), None)
        if not live.seats[seat].away:
            return False
        await self._set_away(live, seat, False)
        return True

    async def _set_away(self, live: LiveTable, seat: int, away: bool) -> None:
        await self.db.set_away(live.id, seat, away)
        live.seats[seat] = replace(live.seats[seat], away=away)

    # ------------------------------------------------------------------ due deadlines
    async def process(self) -> float | None:
        """Send due reminders and apply due timeouts; returns the next due time (or ``None``).

        A table whose deadline fails (an engine or storage error) is given up (abandoned) and
        the others' deadlines still run. Called by the timer task, and directly by tests with a
        fake clock.
        """
        now = self.clock.now()
        next_due: float | None = None
        for table_id, version, remind_at, act_at, reminded in await self.db.deadlines():
            try:
                if act_at <= now:
                    await self._timeout(table_id, version)
                    continue
                if not reminded and remind_at <= now:
                    await self._remind(table_id, version)
                    reminded = True
            except Exception:  # one broken table must not stop the others' deadlines
                log.exception("deadline of table %s failed", table_id)
                await self.host.give_up(table_id)
                continue
            due = act_at if reminded else remind_at
            next_due = due if next_due is None else min(next_due, due)
        return next_due

    async def _remind(self, table_id: int, version: int) -> None:
        """Tell the members who have not acted in the step at ``version`` that time runs out."""
        async with self.host.table_lock(table_id):
            live = self.host.live_table(table_id)
            if live is None or live.state.version != version:
                return
            await self.db.mark_reminded(table_id)
            view = live.view()
        seats = [s for s in view.waiting_for() if not view.seats[s].autoplay]
        if seats:
            await notify(self.host.notifier.reminder, view, seats)

    async def _timeout(self, table_id: int, version: int) -> None:
        """The AI acts for every member who has not acted in the step at ``version``."""
        host = self.host
        async with host.table_lock(table_id):
            live = host.live_table(table_id)
            if live is None:
                await self.clear(table_id)
                return
            if live.state.version != version:
                await self.arm(live)  # a deadline left behind by an interrupted step
                return
            game = live.game
            late = [s for s in sorted(game.to_act(live.state)) if s not in live.pending
                    and not live.seats[s].autoplay]
            gone = []
            for seat in late:
                count = self._timeouts.get((table_id, seat), 0) + 1
                self._timeouts[(table_id, seat)] = count
                if count >= AWAY_AFTER_TIMEOUTS:
                    await self._set_away(live, seat, True)
                    gone.append(seat)
            all_events: list[Event] = []
            result: str = "buffered"
            view: TableView = live.view()
            for seat in late:
                # a seat may owe several consecutive actions (e.g. a whole turn of micro-actions)
                for _ in range(MAX_AUTO_STEPS):
                    if live.row.status != "running" or seat not in game.to_act(live.state) or seat in live.pending:
                        break
                    code = game.encode(game.timeout_action(live.state, seat))
                    result, view, events = await host.choose(live, seat, code, source="timeout")
                    all_events.extend(events)
                    if len(game.to_act(live.state)) > 1:
                        break  # a simultaneous step: one choice per seat
        if late:
            await notify(host.notifier.timed_out, view, late)
        for seat in gone:
            await notify(host.notifier.went_away, view, seat)
        if all_events or result == "applied":
            await host.after_change(table_id, view, all_events, "applied", None)
        else:
            host.nudge(table_id)

    # ------------------------------------------------------------------ the timer task
    def start(self) -> None:
        """Turn deadline processing on (call once the event loop runs)."""
        self._on = True
        self.wake()

    def wake(self) -> None:
        """A deadline may have changed: make the timer task look again (RoboDanny's pattern:
        a sleeping timer is cancelled and restarted; a busy one re-checks when done)."""
        if not self._on or self._closed:
            return
        task = self._timer
        if task is not None and not task.done():
            sleeping = self._sleeping is task
            if sleeping:
                task.cancel()
            else:
                self._recheck = True
                return
        self._timer = asyncio.create_task(self.run(), name="table-deadlines")

    async def run(self) -> None:
        """Timer task: process due deadlines, then sleep until the next one; ends when there is
        none (a new deadline restarts it)."""
        me = asyncio.current_task()
        while not self._closed:
            self._recheck = False
            try:
                next_due = await self.process()
            except Exception:
                log.exception("deadline processing failed")
                next_due = self.clock.now() + RETRY_SECONDS
            if self._recheck:
                continue
            if next_due is None:
                return
            self._sleeping = me
            try:
                await asyncio.sleep(max(0.0, next_due - self.clock.now()))
            finally:
                if self._sleeping is me:
                    self._sleeping = None

    def shutdown(self) -> list[asyncio.Task[Any]]:
        """Stop for good: no new timer; the running one is cancelled and returned (await it)."""
        self._closed = True
        task = self._timer
        if task is None or task.done():
            return []
        task.cancel()
        return [task]

    async def close(self) -> None:
        """:meth:`shutdown` and wait for the timer task to end."""
        await asyncio.gather(*self.shutdown(), return_exceptions=True)
