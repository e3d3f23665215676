"""Turn deadlines: the reminders, the timeout, and members who went away.

:class:`Scheduler` is the turn deadlines' user of the persisted timers (:class:`bot.timers.Timers`):
when a member must act in a step, the step gets the timer ``turn:<table id>``, following the
table's pace (:mod:`bot.paces`): its reminders (at ``reminder_fraction * turn_timeout`` seconds
for a ``normal`` table, at half time and at 90 % for the slow paces), then at the end of the
turn the game's ``timeout_action`` for every member who has not acted. At ``live`` and
``normal`` pace a member who times out :data:`AWAY_AFTER_TIMEOUTS` times in a row (the count is
stored with the seat, so it survives a restart) is *away*: the AI plays their seat at once (the
driver sees :attr:`storage.base.SeatRow.autoplay`) until they come back (any click of theirs);
at ``relaxed`` and ``correspondence`` pace the AI plays the timed-out turn only. A member who
muted a table (:attr:`storage.base.SeatRow.muted`) gets no reminder ping there.

The timer's payload: ``version`` (the step), ``remind_at`` (the next reminder), ``act_at`` (the
timeout), ``reminded`` (no reminder left), and for a table with a pace ``pace`` and ``later``
(the reminders after the next one); a payload stored before paces has neither and keeps its
one reminder.

After downtime members get their time back: a turn deadline found overdue at start-up restarts
from the moment the bot is up (a full turn), it is not auto-played at once.
"""

from __future__ import annotations

import logging
from dataclasses import replace
from typing import Any

from bot.paces import PaceRule, pace_rule
from bot.service import Hall
from bot.table import Chosen, LiveTable, TableHost, TableSnapshot, notify
from bot.timers import TURN, turn_key
from engine.core import Event, Game
from storage.base import Pace, SeatRow, StoreUnavailable, TimerRow, VersionConflict

__all__ = ["AWAY_AFTER_TIMEOUTS", "MAX_AUTO_STEPS", "Scheduler"]

log = logging.getLogger(__name__)

#: Bound on consecutive automatic moves for one seat in one timeout (a safety net).
MAX_AUTO_STEPS = 1000
#: After this many timeouts in a row, a member is "away": the AI plays their seat at once,
#: without waiting for the timeout, until they come back (any click of theirs at the table).
AWAY_AFTER_TIMEOUTS = 2


class Scheduler:
    """The turn deadlines of every running table of the process, one user of the hall's
    :class:`bot.timers.Timers` (the kind :data:`bot.timers.TURN`).

    Interface used by :class:`bot.tables.Tables` and :class:`bot.lobbies.Lobbies` (everything
    else is internal):

    - :meth:`step_timer` gives the timer change a stored step carries (its transaction writes
      it), :meth:`stepped` remembers it once stored; :meth:`write` stores one directly (joins a
      transaction); :meth:`arm` for the current step of a cached table, :meth:`keep_or_arm`
      after a restart and when an away member comes back, :meth:`clear` when a table stops
      running;
    - :meth:`present` when a member shows up (resets their timeouts; True if they were away).

    The timers themselves are loaded, run and stopped by their owner (the hall's
    :class:`bot.timers.Timers`: ``load``, ``process``, ``start``, ``shutdown``).

    Args:
        hall: the tables' shared state: the store (seats' ``away`` flags and timeout counters),
            the clock, the timers, the locks and the cache, the notifier.
        host: plays a seat's choice and tells the UI (:class:`bot.tables.Tables`).
        turn_timeout: seconds a member has to act before the AI acts for them.
        reminder_fraction: when the reminder is sent, as a fraction of ``turn_timeout``.
    """

    def __init__(self, hall: Hall, host: TableHost, *, turn_timeout: float = 300,
                 reminder_fraction: float = 0.5) -> None:
        self.hall = hall
        self.timers = hall.timers
        self.host = host
        self.turn_timeout = turn_timeout
        self.reminder_fraction = reminder_fraction
        self.timers.handle(TURN, self._fire, on_overdue=self._give_time_back)
        #: a step whose timeout is being played, by table id: ``(version, seats counted, seats
        #: made away)`` until it is played (a retry after an outage counts and tells each seat once)
        self._counted: dict[int, tuple[int, set[int], list[int]]] = {}

    # ------------------------------------------------------------------ turn deadlines
    def rule(self, pace: Pace | str | None) -> PaceRule:
        """What ``pace`` means here (``normal`` and ``None``: this scheduler's ``turn_timeout``
        and ``reminder_fraction``)."""
        return pace_rule(pace, turn_timeout=self.turn_timeout, reminder_fraction=self.reminder_fraction)

    def deadline(self, table_id: int, version: int, now: float, pace: Pace | str | None = None) -> TimerRow:
        """The turn timer of the step at ``version`` starting at ``now`` at ``pace`` (its first
        reminder first)."""
        rule = self.rule(pace)
        act_at = now + rule.seconds
        reminders = [now + rule.seconds * f for f in rule.reminders]
        payload: dict[str, Any] = {"version": version, "remind_at": reminders[0], "act_at": act_at, "reminded": False}
        if pace is not None:
            payload["pace"] = pace
            payload["later"] = reminders[1:]
        return TimerRow(turn_key(table_id), min(reminders[0], act_at), payload)

    def step_timer(self, table_id: int, seats: list[SeatRow], game: Game[Any, Any, Any], state: Any,
                   now: float, pace: Pace | str | None = None) -> tuple[TimerRow | None, str | None]:
        """The timer change for the step of ``state`` at ``pace``: ``(timer to set, None)`` when
        a member (a seat not played by the AI) must act in it, else ``(None, key to cancel)``."""
        humans = {s.seat for s in seats if not s.autoplay}
        if game.to_act(state) & humans:
            return self.deadline(table_id, state.version, now, pace), None
        return None, turn_key(table_id)

    def stepped(self, timer: TimerRow | None, cancel: str | None) -> None:
        """Remember the timer change a step stored (see :meth:`step_timer`)."""
        if cancel is not None:
            self.timers.forget(cancel)
        if timer is not None:
            self.timers.remember(timer)

    async def write(self, table_id: int, seats: list[SeatRow], game: Game[Any, Any, Any], state: Any,
                    now: float, pace: Pace | str | None = None) -> None:
        """Store (and remember) the deadline for the step of ``state``, or remove the table's
        (see :meth:`step_timer`). Joins the caller's transaction."""
        timer, cancel = self.step_timer(table_id, seats, game, state, now, pace)
        if timer is not None:
            await self.timers.schedule(timer.key, timer.due, timer.payload)
        elif cancel is not None and self.timers.get(cancel) is not None:
            await self.timers.cancel(cancel)

    async def arm(self, live: LiveTable) -> None:
        """Deadline for the current step of a cached table, from now (see :meth:`write`)."""
        await self.write(live.id, live.seats, live.game, live.state, self.hall.clock.now(), live.row.pace)

    async def keep_or_arm(self, live: LiveTable) -> None:
        """The deadline of a cached table's current step as it should be now: the remembered
        one kept, one armed from now when a member must act and there is none (or one of another
        step), one nobody needs dropped. No store access when nothing changes. After a restart
        (the table is decoded), and when an away member comes back (their seat is no longer
        the AI's: :meth:`present`)."""
        timer = self.timers.get(turn_key(live.id))
        wanted, _ = self.step_timer(live.id, live.seats, live.game, live.state, self.hall.clock.now(), live.row.pace)
        if wanted is None:
            if timer is not None:
                await self.timers.cancel(turn_key(live.id))
        elif timer is None or timer.payload.get("version") != live.state.version:
            await self.arm(live)

    async def keep_or_arm_now(self, live: LiveTable) -> None:
        """:meth:`keep_or_arm`, and while the store is away (:class:`StoreUnavailable`, raised
        again) the deadline it wanted kept in memory only: it fires in this process, and its
        handler stores what follows once the store answers (a member back from away during an
        outage: their step has a deadline, never none)."""
        try:
            await self.keep_or_arm(live)
        except StoreUnavailable:
            wanted, _ = self.step_timer(live.id, live.seats, live.game, live.state, self.hall.clock.now(),
                                        live.row.pace)
            if wanted is not None and self.timers.get(wanted.key) is None:
                self.timers.keep_unstored(wanted)
            raise

    async def clear(self, table_id: int) -> None:
        """The table stopped running (finished, abandoned): no deadline. Joins a transaction."""
        self.ended(table_id)
        await self.timers.cancel(turn_key(table_id))

    def ended(self, table_id: int) -> None:
        """The table stopped running: nothing of its timeouts is kept."""
        self._counted.pop(table_id, None)

    def _give_time_back(self, row: TimerRow, now: float) -> TimerRow:
        """At start-up, a turn deadline already due restarts from ``now`` (the bot was down)."""
        return self.deadline(int(row.key.partition(":")[2]), int(row.payload.get("version", -1)), now,
                             row.payload.get("pace"))

    # ------------------------------------------------------------------ away members
    async def present(self, live: LiveTable, seat: int) -> bool:
        """The member of ``seat`` is here (under the lock): reset their timeouts in a row
        (stored); if they were away, their turns wait for them again and True is returned."""
        s = live.seats[seat]
        if not s.away and not s.timeouts:
            return False
        await self._set_seat(live, seat, away=False, timeouts=0)
        counted = self._counted.get(live.id)
        if counted is not None and seat in counted[2]:  # a timeout being retried: not "went away"
            counted[2].remove(seat)
        return s.away

    async def _set_seat(self, live: LiveTable, seat: int, *, away: bool, timeouts: int) -> None:
        await self.hall.db.set_seat_state(live.id, seat, away=away, timeouts=timeouts)
        live.seats[seat] = replace(live.seats[seat], away=away, timeouts=timeouts)

    # ------------------------------------------------------------------ due deadlines
    async def _fire(self, row: TimerRow) -> None:
        """A turn timer is due: the reminder, or the timeout. While the store is unavailable
        (:class:`storage.base.StoreUnavailable`) the error goes to the timers, which keep the
        deadline armed and fire it again once the store answers. A table whose deadline fails
        otherwise (an engine error, a store error that is not transient) is given up (abandoned,
        the error logged first); the others' deadlines still run."""
        table_id = int(row.key.partition(":")[2])
        version = int(row.payload["version"])
        try:
            if float(row.payload["act_at"]) <= self.hall.clock.now():
                await self._timeout(table_id, version)
            elif not row.payload.get("reminded"):
                await self._remind(table_id, version, row)
        except VersionConflict:
            log.warning("table %s moved in another writer; reloaded", table_id)
            await self._rearm(table_id)  # the deadline of the step as stored now
        except StoreUnavailable:
            raise  # not the table's fault: the timers try again
        except Exception:  # one broken table must not stop the others' deadlines
            log.exception("deadline of table %s failed; giving the table up", table_id)
            await self.host.give_up(table_id)

    async def _remind(self, table_id: int, version: int, row: TimerRow) -> None:
        """Tell the members who have not acted in the step at ``version`` (and did not mute the
        table) that time runs out; the timer moves on to the next reminder, or to the timeout."""
        async with self.hall.lock(table_id):
            live = await self.hall.touch(table_id)
            if live is None:
                await self.clear(table_id)
                return
            if live.state.version != version:
                await self.arm(live)  # a deadline left behind by an interrupted step
                self.host.nudge(table_id)  # (and an AI seat to act in the step as stored)
                return
            later = [float(at) for at in row.payload.get("later") or ()]
            if later:
                await self.timers.schedule(row.key, later[0], {**row.payload, "remind_at": later[0], "later": later[1:]})
            else:
                await self.timers.schedule(row.key, float(row.payload["act_at"]), {**row.payload, "reminded": True})
            view = live.snapshot()
        seats = [s for s in view.waiting_for() if not view.seats[s].autoplay and not view.seats[s].muted]
        if seats:
            await notify(self.hall.notifier.reminder, view, seats)

    async def _rearm(self, table_id: int) -> None:
        """The deadline of a table's current step as the store has it now (after another
        writer moved it)."""
        async with self.hall.lock(table_id):
            live = await self.hall.touch(table_id)
            if live is None:
                await self.clear(table_id)
            else:
                await self.keep_or_arm(live)
                self.host.nudge(table_id)

    async def _timeout(self, table_id: int, version: int) -> None:
        """The AI acts for every member who has not acted in the step at ``version``. A retry
        after an outage (:attr:`_counted`) neither counts nor tells a seat twice."""
        host, hall = self.host, self.hall
        async with hall.lock(table_id):
            live = await hall.touch(table_id)
            if live is None:
                await self.clear(table_id)
                return
            if live.state.version != version:
                self._counted.pop(table_id, None)
                await self.arm(live)  # a deadline left behind by an interrupted step
                host.nudge(table_id)  # (and an AI seat to act in the step as stored)
                return
            late, gone, view, all_events, result = await self._play_timeout(live, version)
        if late:
            await notify(hall.notifier.timed_out, view, late)
        for seat in gone:
            await notify(hall.notifier.went_away, view, seat)
        if all_events or result == "applied":
            await host.after_change(table_id, view, all_events, "applied", None)
        else:
            host.nudge(table_id)

    async def _play_timeout(self, live: LiveTable, version: int
                            ) -> tuple[list[int], list[int], TableSnapshot, list[Event], Chosen]:
        """Count and play the timeout of the step at ``version`` (under the table's lock):
        ``(late seats, seats made away, view, events, last result)``."""
        host, game, table_id = self.host, live.game, live.id
        # a retry after an outage: the seats counted by the try before (stored, perhaps made
        # away since) are late still, and are neither counted nor told twice
        counted = self._counted.get(table_id)
        if counted is None or counted[0] != version:
            counted = self._counted[table_id] = (version, set(), [])
        _, done, gone = counted
        late = [s for s in sorted(game.to_act(live.state)) if s not in live.pending
                and (not live.seats[s].autoplay or s in done)]
        makes_away = self.rule(live.row.pace).away
        for seat in late:
            if seat in done:
                continue
            count = live.seats[seat].timeouts + 1
            away = makes_away and count >= AWAY_AFTER_TIMEOUTS
            await self._set_seat(live, seat, away=away, timeouts=count)
            done.add(seat)
            if away:
                gone.append(seat)
        all_events: list[Event] = []
        result: Chosen = "buffered"
        view: TableSnapshot = live.snapshot()
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
        self._counted.pop(table_id, None)
        return late, list(gone), view, all_events, result
