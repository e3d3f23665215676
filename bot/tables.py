"""The running tables: submitted choices, steps, deadlines, AI moves, the end of a table, replay,
and the resume after a restart.

:class:`Tables` owns two helpers, each with one job, and is their :class:`bot.table.TableHost`:
:class:`bot.scheduler.Scheduler` (turn deadlines: reminders, timeouts, away members) and
:class:`bot.driver.Driver` (AI moves). Neither imports this module. The lock and the cache of
each table are the hall's (:class:`bot.service.Hall`), shared with :class:`bot.lobbies.Lobbies`,
which hands a table over to this class when it starts (:meth:`Tables.begin`).

Guarantees:

- Every change of a table happens under its lock (:meth:`bot.service.Hall.lock`).
- Every button carries the state version it was drawn for; another version is refused as stale,
  so a double click or a click on an old board is never applied twice.
- Simultaneous steps (several seats in ``to_act``) buffer each seat's choice (persisted) until all
  have chosen; a seat may change its choice until then. Then they are applied at once.
- Every applied step is persisted before the notifier hears of it, in one short transaction
  (:meth:`storage.base.Store.commit_step`: snapshot, action log, events, next deadline, pending
  choices cleared), as a compare-and-set on the table's version: a second writer can never
  apply over it (a conflict reloads the table and refuses the click as stale).
- :meth:`Tables.resume` indexes every running table after a restart in a few bulk reads
  (O(tables)); clicks are accepted at once; each table's snapshot is decoded on first touch (a
  background task touches them all, restores deadlines and restarts AI drivers).
- Deadlines live in the database and in the timers' in-memory queue: a reminder at
  ``reminder_fraction`` of the timeout, then the game's ``timeout_action`` for every seat that
  has not acted. A deadline found overdue at start-up restarts from then (time given back).
- Per-table memory (locks, caches, timers, drivers) is dropped when a table ends.
- Each table records the game's ``rules_version`` it started under; :meth:`Tables.replay`
  rebuilds its state from seed and action log only under that same version.
- Only the process's own tables are played (see :class:`bot.service.Hall`): any other is
  refused (``err.not_owned``); when two processes act on one table anyway, a click that lost the
  version compare-and-set is refused as stale, an AI move or a timeout is simply dropped, and
  abandoning is a compare-and-set on the status.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from bot.ai_pool import AiPool
from bot.decks import Decks
from bot.driver import Driver
from bot.foreground import Foreground
from bot.games import GAMES
from bot.ratings import Rated, ai_rating, rate
from bot.scheduler import Scheduler
from bot.seasons import Seasons
from bot.service import Hall, ReplayError, ServiceError, event_dict
from bot.table import Chosen, LiveTable, TableSnapshot, notify
from bot.timers import lobby_key, turn_key
from engine.core import Event, Game, IllegalAction, Outcome
from engine.fast import replacer
from storage.base import Pace, RatingRow, SeatRow, StepWrite, StoreUnavailable, TableRow, VersionConflict

__all__ = ["Submitted", "Tables"]

log = logging.getLogger(__name__)

#: The cached row after a step (``dataclasses.replace`` of these fields, straight-line:
#: ``engine.fast.replacer``, about 1 µs instead of 9 µs a step)
_stepped_row: Callable[[TableRow, int, float, int, int, str], TableRow] = replacer(
    TableRow, "version", "updated_at", "action_seq", "event_seq", "status")


@dataclass(frozen=True)
class Submitted:
    """What :meth:`Tables.submit` did: ``status`` is ``"applied"`` or ``"buffered"``;
    ``events`` are the applied step's events (all audiences: filter before showing)."""

    status: Chosen
    events: tuple[Event, ...] = ()


class Tables:
    """Plays every running table of the process. See the module docstring for the guarantees.

    Args:
        hall: the tables' shared state (store, clock, notifier, timers, locks, cache).
        decks: the guilds' custom decks (a replayed table's deck).
        foreground: the member interactions being answered (:mod:`bot.foreground`): AI moves
            wait for them, and the AI's next move after a step starts once they are sent.
        turn_timeout: seconds a member has to act before the AI acts for them.
        reminder_fraction: when the reminder is sent, as a fraction of ``turn_timeout``.
        ai_delay: seconds between AI moves that showed something (0 in tests).
        ai_pool: chooses the AI moves at each seat's level, strong ones in worker processes
            (:class:`bot.ai_pool.AiPool`; a default one, one worker, when not given). Closed by
            :meth:`close`.
        seasons: the servers' seasons (a result is rated in its game's current season, after
            the monthly roll-over when due); without it, the current season as stored.
    """

    def __init__(self, hall: Hall, decks: Decks, *, foreground: Foreground | None = None,
                 turn_timeout: float = 300, reminder_fraction: float = 0.5, ai_delay: float = 0.0,
                 ai_pool: AiPool | None = None, seasons: Seasons | None = None) -> None:
        self.hall = hall
        self.decks = decks
        self.seasons = seasons
        self.foreground = foreground or Foreground()
        self.scheduler = Scheduler(hall, self, turn_timeout=turn_timeout, reminder_fraction=reminder_fraction)
        self.driver = Driver(hall, self, ai_delay=ai_delay, pool=ai_pool, foreground=self.foreground)
        self._warm: asyncio.Task[None] | None = None

    # ------------------------------------------------------------------ TableHost (scheduler, driver)
    def nudge(self, table_id: int) -> None:
        """Start the AI driver of a table if an AI seat must act and none is running."""
        self.driver.kick(table_id)

    async def give_up(self, table_id: int) -> None:
        """Abandon a table that keeps failing (an engine or storage error), telling its players.

        Raises :class:`storage.base.StoreUnavailable` when the store is away meanwhile (nothing
        changed: the caller tries again later, the deadline stays armed). Otherwise never
        raises: when even abandoning fails, the table's deadline is removed so that it stops
        firing (both failures are logged)."""
        try:
            await self.abandon(table_id, None)
        except StoreUnavailable:
            log.warning("table %s will be given up once the database answers", table_id)
            raise
        except Exception:
            log.exception("could not abandon failing table %s", table_id)
            try:
                await self.scheduler.clear(table_id)
            except Exception:
                log.exception("could not clear the deadline of table %s", table_id)

    # ------------------------------------------------------------------ start (from the lobby)
    async def begin(self, table_id: int, seats: list[SeatRow], game: Game[Any, Any, Any], state: Any,
                    now: float, pace: Pace | None = None) -> None:
        """Store what a table starting to run needs beside its row: the opening events and the
        first turn deadline. Joins the caller's transaction (:meth:`bot.lobbies.Lobbies.start`,
        which then caches the table and calls :meth:`nudge`)."""
        await self.hall.db.record_events(table_id, state.version, [event_dict(e) for e in game.opening_events(state)])
        await self.scheduler.write(table_id, seats, game, state, now, pace)

    # ------------------------------------------------------------------ play
    async def submit(self, table_id: int, user_id: int, version: int, code: str) -> Submitted:
        """A member's action from a button: applied, or buffered (simultaneous step).

        Raises :class:`ServiceError`: ``err.no_table``, ``err.not_owned``,
        ``err.table_not_running``, ``err.not_seated``, ``err.stale`` (another version: an old
        or double click, or a step another process stored first),
        ``err.not_your_turn``, ``err.illegal``. A button newer than the cached table reloads it.
        """
        hall = self.hall
        refused: ServiceError | None = None
        async with hall.lock(table_id):
            live = await self._get_live(table_id)
            if version > live.state.version:  # drawn by a newer state than the cache: another writer moved it
                hall.drop(table_id)
                live = await self._get_live(table_id)
            seat = live.seat_of(user_id)
            if seat is None:
                raise ServiceError("err.not_seated")
            back = await self.scheduler.present(live, seat)
            try:
                if version != live.state.version:
                    self.nudge(table_id)  # (a table read again after an outage may have an AI seat to act)
                    raise ServiceError("err.stale")
                try:
                    result, view, events = await self.choose(live, seat, code, source="user")
                except VersionConflict:
                    log.warning("table %s was moved by another writer; reloaded", table_id)
                    raise ServiceError("err.stale") from None
            except ServiceError as err:
                if not back:
                    raise
                # back from away, but this click is refused: the AI no longer plays their seat,
                # so the step needs a deadline of its own (the one running is kept)
                refused, view = err, live.snapshot()
                await self.scheduler.keep_or_arm(live)
            except StoreUnavailable:
                if back:  # the same, for a click the store did not answer (the table as stored now)
                    with contextlib.suppress(StoreUnavailable):
                        fresh = await hall.touch(table_id)
                        if fresh is not None:
                            await self.scheduler.keep_or_arm_now(fresh)
                raise
        if back:
            await notify(hall.notifier.came_back, view, seat)
        if refused is not None:
            raise refused
        await self.after_change(table_id, view, events, result, seat)
        return Submitted(result, tuple(events))

    async def back(self, table_id: int, user_id: int) -> bool:
        """A member shows up at a running table (opens their panel): if the AI was playing their
        seat because they were away, their turns wait for them again. Returns True if they were away."""
        hall = self.hall
        async with hall.lock(table_id):
            live = await hall.touch(table_id)
            seat = None if live is None else live.seat_of(user_id)
            if live is None or seat is None or not await self.scheduler.present(live, seat):
                return False
            await self.scheduler.keep_or_arm_now(live)  # the others' running deadline is kept
            view = live.snapshot()
        await notify(hall.notifier.came_back, view, seat)
        return True

    async def toggle_muted(self, table_id: int, user_id: int) -> bool:
        """A member mutes (or unmutes) the turn pings and reminders of one running table at
        ``correspondence`` pace (:mod:`bot.paces`); returns whether they are muted now. Raises
        ``err.not_seated``, ``err.table_not_running``, ``err.mute_pace`` (another pace)."""
        hall = self.hall
        async with hall.lock(table_id):
            live = await self._get_live(table_id)
            seat = live.seat_of(user_id)
            if seat is None:
                raise ServiceError("err.not_seated")
            if live.row.pace != "correspondence":
                raise ServiceError("err.mute_pace")
            muted = not live.seats[seat].muted
            await hall.db.set_seat_muted(table_id, seat, muted)
            live.seats[seat] = replace(live.seats[seat], muted=muted)
        return muted

    async def _get_live(self, table_id: int) -> LiveTable:
        live = await self.hall.touch(table_id)
        if live is None:
            await self.hall.row(table_id)  # err.no_table, err.not_owned
            raise ServiceError("err.table_not_running")  # not running, or its snapshot did not load: abandoned
        return live

    async def choose(self, live: LiveTable, seat: int, code: str, source: str) -> tuple[Chosen, TableSnapshot, list[Event]]:
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
            return "applied", live.snapshot(), events
        if action not in game.legal_actions(live.state, seat):
            raise ServiceError("err.illegal")
        chosen = {**live.pending, seat: code}
        if set(chosen) >= to_act:  # the last choice: stored with the step (no pending row)
            actions = {s: game.decode(c) for s, c in chosen.items() if s in to_act}
            events = await self._apply(live, actions, source)
            return "applied", live.snapshot(), events
        try:
            await self.hall.db.set_pending(live.id, seat, live.state.version, code)
        except StoreUnavailable:
            self.hall.unsure(live.id)  # stored or not: read again once the store answers
            raise
        live.pending[seat] = code
        return "buffered", live.snapshot(), []

    async def _apply(self, live: LiveTable, actions: dict[int, Any], source: str) -> list[Event]:
        """Apply and persist in one short transaction (:meth:`storage.base.Store.commit_step`:
        the snapshot by compare-and-set on the version, the action, the events, the next
        deadline or none, the pending choices cleared; the result and ratings too when the game
        ends), before anyone is told; only then update the cache (nothing there can fail).

        Raises ``ServiceError("err.illegal")`` when ``Game.apply`` refuses an action (nothing
        stored), :class:`storage.base.VersionConflict` when the stored table moved (another
        writer): nothing is stored and the cached table is dropped (reloaded on next touch);
        :class:`storage.base.StoreUnavailable` when the store did not answer: the step may have
        been stored (an answer lost), so the table is read again once the store answers
        (:meth:`bot.service.Hall.unsure`)."""
        game = live.game
        row = live.row
        try:
            step = game.apply(live.state, actions)  # checks that every action is legal now
        except IllegalAction:
            raise ServiceError("err.illegal") from None
        hall = self.hall
        now = hall.clock.now()
        events = list(step.events)
        outcome = game.outcome(step.state)
        gone = await self._members_gone(live) if outcome is not None else frozenset()
        if outcome is None:
            timer, cancel = self.scheduler.step_timer(live.id, live.seats, game, step.state, now, row.pace)
        else:
            timer, cancel = None, turn_key(live.id)
        write = StepWrite(
            table_id=live.id, version_before=row.version, version=step.state.version,
            state=game.dump_state(step.state), actions={s: game.encode(a) for s, a in actions.items()},
            source=source, events=[event_dict(e) for e in events], action_seq=row.action_seq + 1,
            event_seq=row.event_seq + 1, now=now, status="finished" if outcome is not None else None,
            timer=timer, cancel_timer=cancel, clear_pending=bool(live.pending),
        )
        db = hall.db
        try:
            if outcome is None:
                await db.commit_step(write)
            else:
                async with db.transaction():
                    await db.commit_step(write)
                    await self.finish(live, outcome, now, gone)
        except VersionConflict:
            hall.drop(live.id)
            raise
        except StoreUnavailable:
            hall.unsure(live.id)
            hall.timers.reread(turn_key(live.id))  # its deadline as stored, once the store answers
            raise
        live.state = step.state
        live.pending = {}
        live.row = _stepped_row(row, step.state.version, now, write.action_seq, write.event_seq + len(events) - 1,
                                "finished" if outcome is not None else row.status)
        hall.events_added(live.id, write.event_seq, write.events)
        self.scheduler.stepped(timer, cancel)
        if outcome is not None:
            self.scheduler.ended(live.id)
        return events

    async def finish(self, live: LiveTable, outcome: Outcome, now: float, gone: frozenset[int] = frozenset()) -> None:
        """Store the result and update ratings/stats in the game's current season, with each
        rated member's rating history row (inside the caller's transaction, which also stored
        the status and removed the deadline); the members in ``gone`` (no longer in the
        server) are not rated."""
        db = self.hall.db
        row, seats = live.row, live.seats
        if self.seasons is not None:
            await self.seasons.current(row.guild_id, row.game)  # the monthly roll-over, when due
        await db.record_result(
            row.id, guild_id=row.guild_id, game=row.game,
            outcome={"ranks": list(outcome.ranks), "scores": list(outcome.scores)},
            seats=[(s.seat, s.user_id, outcome.ranks[s.seat], outcome.scores[s.seat]) for s in seats], now=now,
        )
        users = [s.user_id for s in seats if s.user_id is not None]
        old = await db.ratings(row.guild_id, row.game, users)
        rated = [
            Rated(s.user_id, old[s.user_id].mu, old[s.user_id].sigma) if s.user_id in old
            else ai_rating(s.level) if s.user_id is None else Rated(s.user_id)
            for s in seats
        ]
        new = rate(rated, list(outcome.ranks))
        points = []
        for s, (mu, sigma) in zip(seats, new, strict=True):
            if s.user_id is None or s.user_id in gone:
                continue
            prev = old.get(s.user_id)
            await db.save_rating(row.guild_id, row.game, RatingRow(
                s.user_id, mu, sigma, (prev.played if prev else 0) + 1,
                (prev.won if prev else 0) + (1 if outcome.ranks[s.seat] == 1 else 0)))
            points.append((s.user_id, mu, sigma))
        await db.record_rating_history(row.guild_id, row.game, row.id, points, now)

    async def _members_gone(self, live: LiveTable) -> frozenset[int]:
        """Members of a finishing table no longer in its server (asked once each, through the
        notifier); never raises (an error counts nobody as gone)."""
        users = [s.user_id for s in live.seats if s.user_id is not None]
        if not users:
            return frozenset()
        try:
            return frozenset(await self.hall.notifier.members_gone(live.row.guild_id, users))
        except Exception:
            log.exception("could not check who left the server of table %s", live.id)
            return frozenset()

    async def after_change(self, table_id: int, view: TableSnapshot, events: list[Event], result: Chosen,
                           seat: int | None) -> None:
        """Tell the UI (outside the lock) and let the AI continue (no second driver is started
        while one runs, so the driver itself may call this)."""
        notifier = self.hall.notifier
        if result == "buffered":
            if seat is not None:
                await notify(notifier.choice_buffered, view, seat)
        else:
            await notify(notifier.step_applied, view, events)
            if view.row.status == "finished":
                self.hall.forget(table_id)
                outcome = view.game.outcome(view.state)
                if outcome is not None:
                    await notify(notifier.table_finished, view, outcome)
                return
        # the AI's next move starts once the member answers being built are sent (bot.foreground)
        self.foreground.later(self.driver.kick, table_id)

    # ------------------------------------------------------------------ the end of a table
    async def abandon(self, table_id: int, user_id: int | None, is_admin: bool = False) -> TableSnapshot:
        """End a running table without result (host or admin; ``user_id=None`` = the system).

        Raises ``err.no_table``, ``err.table_not_running``, ``err.host_or_admin``."""
        hall = self.hall
        async with hall.lock(table_id):
            row = await hall.row(table_id)
            if row.status != "running":
                raise ServiceError("err.table_not_running")
            if user_id is not None and user_id != row.host_user_id and not is_admin:
                raise ServiceError("err.host_or_admin")
            async with hall.db.transaction():
                if not await hall.db.update_table(table_id, hall.clock.now(), expect_status="running",
                                                  status="abandoned"):
                    hall.drop(table_id)  # another process ended it: reload
                    raise ServiceError("err.table_not_running")
                await self.scheduler.clear(table_id)
            hall.drop(table_id)
            view = await hall.table(table_id)  # read back from the database
        hall.forget(table_id)
        await notify(hall.notifier.table_abandoned, view)
        return view

    async def close_silently(self, table_id: int) -> bool:
        """Abandon a lobby or running table without telling anyone (no notifier call, nothing
        rated, its deadline or expiry cleared): the bot left its server, or its channel is gone.
        Returns False when the table was not open."""
        hall = self.hall
        async with hall.lock(table_id):
            row = await hall.row(table_id)
            if row.status not in ("lobby", "running"):
                return False
            async with hall.db.transaction():
                if not await hall.db.update_table(table_id, hall.clock.now(), expect_status=row.status,
                                                  status="abandoned"):
                    return False
                await self.scheduler.clear(table_id)
                if row.status == "lobby":
                    await hall.timers.cancel(lobby_key(table_id))
            hall.drop(table_id)
        hall.forget(table_id)
        return True

    async def close_guild(self, guild_id: int) -> list[int]:
        """The bot was removed from a server: close its lobbies and running tables at once,
        silently (see :meth:`close_silently`); returns their ids (none for a guild of another
        process's shards: its owner closes them)."""
        if not self.hall.owns(guild_id):
            return []
        closed = []
        for row in await self.hall.db.guild_tables(guild_id):
            if await self.close_silently(row.id):
                closed.append(row.id)
        return closed

    # ------------------------------------------------------------------ where a table is shown
    async def set_messages(self, table_id: int, **ids: int | None) -> None:
        """Remember a table's Discord message/thread ids, in any status (``lobby_message_id``,
        ``thread_id``, ``board_message_id``)."""
        hall = self.hall
        async with hall.lock(table_id):
            now = hall.clock.now()
            fields: dict[str, Any] = dict(ids)  # message and thread ids only (never expect_status)
            await hall.db.update_table(table_id, now, **fields)
            live = hall.live(table_id)
            if live is not None:
                changes: dict[str, Any] = dict(ids)
                live.row = replace(live.row, updated_at=now, **changes)

    async def leave_thread(self, table_id: int) -> TableSnapshot:
        """A running table's thread is gone (or cannot be posted in): from now on it plays in
        its channel (thread and board forgotten, a new board will be posted)."""
        hall = self.hall
        async with hall.lock(table_id):
            await hall.db.update_table(table_id, hall.clock.now(), thread_id=None, board_message_id=None)
            live = hall.live(table_id)
            if live is not None:
                live.row = await hall.row(table_id)
            return await hall.table(table_id)

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
        row = await self.hall.row(table_id)
        if row.seed is None or row.status == "lobby":
            raise ReplayError(f"table {table_id} has not started")
        spec = GAMES.get(row.game)
        if spec is None:
            raise ReplayError(f"table {table_id}: unknown game {row.game!r}")
        game = spec.game
        if row.rules_version != game.rules_version:
            raise ReplayError(
                f"table {table_id} started under rules version {row.rules_version} of {row.game}; "
                f"this version of the game replays only rules version {game.rules_version}")
        try:
            options = await self.decks.setup_options(row)
        except ServiceError:
            raise ReplayError(f"table {table_id}: its custom deck {row.options.get('deck')!r} was deleted") from None
        db = self.hall.db
        state = game.setup(row.seed, len(await db.seats(table_id)), options)
        for version, codes, _source in await db.action_log(table_id):
            if state.version != version:
                raise ReplayError(f"table {table_id}: a step logged at version {version} meets state {state.version}")
            state = game.apply(state, {s: game.decode(c) for s, c in codes.items()}).state
        return state

    # ------------------------------------------------------------------ start-up / shutdown
    async def resume(self, *, warm: bool = True) -> list[int]:
        """Load the process's timers and index every running table of its shards (all of them
        without shards) after a restart; returns their ids. O(tables): a few bulk reads
        (tables, seats, pending choices; the timers), no per-table query, no decoding.
        Clicks are accepted as soon as this returns.

        With ``warm`` (the default), a background task then touches every table (decodes its
        snapshot, restores its deadline, restarts its AI driver), yielding to clicks between
        tables; :meth:`idle` waits for it. A table whose stored state no longer loads is
        abandoned (and logged) when touched, never crashes the bot.
        """
        hall = self.hall
        if self.seasons is not None:
            await self.seasons.backfill()  # the rating history of results stored before it existed
        await hall.timers.load()
        shards = hall.shards
        ids = hall.index(await (hall.db.running_tables_of(shards) if shards is not None else hall.db.running_tables()))
        if warm and ids:
            self._warm = asyncio.create_task(self._warm_up(ids), name="resume-warm-up")
        return ids

    async def _warm_up(self, ids: list[int]) -> None:
        """Touch every resumed table once: decode it, restore its deadline, kick its driver. A
        table something else touched first (a click, a panel, a list) is decoded already; its
        deadline and its driver are still seen to here (both are kept when already right)."""
        hall = self.hall
        for n, table_id in enumerate(ids):
            try:
                async with hall.lock(table_id):
                    live = await hall.touch(table_id)
                    if live is not None:
                        await self.scheduler.keep_or_arm(live)
            except StoreUnavailable:  # the store logs the outage; the stored deadline (loaded) stays armed
                log.info("table %s: its deadline was not checked, the database is unavailable", table_id)
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

    async def idle(self) -> None:
        """Wait until every resumed table is decoded and no AI driver is running (tests and the
        terminal use it)."""
        if self._warm is not None:
            await asyncio.gather(self._warm, return_exceptions=True)
        await self.driver.idle()

    async def close(self) -> None:
        """Stop the timers, the warm-up, AI drivers and the AI pool (state is already persisted)."""
        tasks = self.hall.timers.shutdown() + self.driver.shutdown()
        if self._warm is not None and not self._warm.done():
            self._warm.cancel()
            tasks.append(self._warm)
        await asyncio.gather(*tasks, return_exceptions=True)
        await self.driver.pool.close()
