"""AI moves: one driver task per table plays its AI seats (and away members' seats).

A driver runs while a seat played by the AI (:attr:`storage.base.SeatRow.autoplay`) must act and
has not chosen yet; it makes one move at a time, through the same path as a member's click
(:meth:`bot.table.TableHost.choose`: :meth:`bot.tables.Tables.choose`), so every move is stored
before anyone is told. It stops as soon as a member must act or the game ends. While the store
is unavailable (:class:`storage.base.StoreUnavailable`: a lost connection, a server restarting,
a busy file) the move is tried again with capped exponential back-off for as long as it lasts,
and the table is never given up for it. An AI move that fails otherwise (an engine error, a
store error that is not transient) is retried :data:`MAX_AI_FAILURES` times, then the table is
given up rather than left hanging.

Member clicks go first: before each move (and before applying a strong move that was
thought off the loop) the driver waits while a member's interaction is being answered
(:class:`bot.foreground.Foreground`, bounded).

Each seat plays at its level (:attr:`storage.base.SeatRow.level`; a member's stand-in plays
normal). Easy and normal moves are chosen under the table's lock. A strong move is a search
in the process pool (:class:`bot.ai_pool.AiPool`), and so is a normal move that may take long
(:func:`engine.policies.heavy`), so the lock is held only to read the state and, later, to
apply the move: clicks at the table (and everywhere else) go on meanwhile. When
the table's version changed while the AI thought, the move is dropped and thought again. A move refused because another writer stored
a step first (:class:`storage.base.VersionConflict`: two processes on one table) is no failure:
the table is reloaded and the driver goes on from the stored state (or stops if it ended).
"""

from __future__ import annotations

import asyncio
import functools
import logging
from typing import Any

from bot.ai_pool import AiPool
from bot.foreground import Foreground
from bot.service import Hall
from bot.table import TableHost
from engine.policies import decision_seconds
from storage.base import Backoff, StoreUnavailable, VersionConflict

__all__ = ["AI_RETRY_SECONDS", "MAX_AI_FAILURES", "OUTAGE_RETRY_CAP", "OUTAGE_RETRY_FIRST", "TURN_PACE", "Driver"]

log = logging.getLogger(__name__)

#: An AI move that fails (engine or storage error) is retried this many times, then the table is
#: abandoned rather than left hanging.
MAX_AI_FAILURES = 3
#: Pause before the n-th retry of a failed AI move: ``AI_RETRY_SECONDS * n`` seconds.
AI_RETRY_SECONDS = 2.0
#: Within a turn, the pause after a step that showed something is this share of ``ai_delay``
#: (the turn's first move gets the whole pause): a Gang of Dice turn of a commit, a reroll and
#: a stop shows each roll without the turn taking three pauses.
TURN_PACE = 0.3
#: First and longest pause before trying a move again while the store is unavailable (seconds).
OUTAGE_RETRY_FIRST, OUTAGE_RETRY_CAP = 0.05, 2.0


class Driver:
    """The AI drivers of every running table of the process.

    Args:
        hall: the tables' shared state (the locks and the cache of running tables).
        host: plays a seat's choice and tells the UI (:class:`bot.tables.Tables`).
        ai_delay: the pause after an AI step that showed something (0 in tests), counted from
            when the next move starts: the AI thinks during it (see :meth:`_drive`).
        pool: chooses the moves (a default :class:`bot.ai_pool.AiPool` when not given).
        foreground: the member interactions being answered: each AI move waits until none is
            (:meth:`bot.foreground.Foreground.quiet`, bounded), so clicks go first.
    """

    def __init__(self, hall: Hall, host: TableHost, *, ai_delay: float = 0.0, pool: AiPool | None = None,
                 foreground: Foreground | None = None) -> None:
        self.hall = hall
        self.host = host
        self.ai_delay = ai_delay
        self.pool = pool or AiPool()
        self.foreground = foreground or Foreground()
        #: strong moves thrown away because the table moved while the AI thought
        self.dropped = 0
        #: AI moves tried again because the store was unavailable
        self.retries = 0
        self._tasks: dict[int, asyncio.Task[None]] = {}
        self._closed = False

    def kick(self, table_id: int) -> None:
        """Make sure a driver runs for the table if an AI seat must act (at most one per table)."""
        if self._closed:
            return
        task = self._tasks.get(table_id)
        if task is not None and not task.done():
            return
        live = self.hall.live(table_id)
        if live is None:
            return
        ai = {s.seat for s in live.seats if s.autoplay}
        if not (live.game.to_act(live.state) & ai - set(live.pending)):
            return
        task = asyncio.create_task(self._drive(table_id), name=f"ai-driver-{table_id}")
        self._tasks[table_id] = task
        task.add_done_callback(functools.partial(self._forget, table_id))

    def _forget(self, table_id: int, task: asyncio.Task[None]) -> None:
        """Done callback: drop the table's entry if it is still this task."""
        if self._tasks.get(table_id) is task:
            del self._tasks[table_id]

    def running(self, table_id: int) -> bool:
        """True while a driver task of the table runs."""
        task = self._tasks.get(table_id)
        return task is not None and not task.done()

    def tables(self) -> frozenset[int]:
        """The tables whose driver task is held now (running, or done and not yet forgotten)."""
        return frozenset(self._tasks)

    async def _drive(self, table_id: int) -> None:
        """Let AI seats act one step at a time until a member must act or the game ends.

        A *turn* is a seat's consecutive decisions with nobody else acting between them (Gang of
        Dice's commit, marks, rerolls and stop; a Moon bidder's discard and trumps); each seat
        of a simultaneous step has a turn of one decision. The strong level's thinking time
        (the pool's ``think_seconds``) covers the whole turn: each decision gets its share of
        what is left (:func:`engine.policies.decision_seconds`), and the seats of a
        simultaneous step think side by side (in parallel workers, else sharing the time).

        The pause after a step that showed something (public events) is the AI's thinking
        time, not added to it: the next move is applied no sooner than ``ai_delay`` after it
        was started (:data:`TURN_PACE` of that within a turn), however short the thought, and
        no later than the thought ends. Silent steps (e.g. marking dice) follow at once."""
        host, hall = self.host, self.hall
        loop = asyncio.get_running_loop()
        pause = True
        failures = 0
        turn: tuple[int, int] | None = None  # (seat, version after its last move) while a turn goes on
        turn_end, salt = 0.0, 0
        outage = Backoff(OUTAGE_RETRY_FIRST, OUTAGE_RETRY_CAP)
        while not self._closed:
            await self.foreground.quiet()  # a member's answer first
            started = loop.time()
            try:
                async with hall.lock(table_id):
                    live = await hall.touch(table_id)
                    if live is None or live.row.status != "running":
                        return
                    game = live.game
                    ai = sorted(s.seat for s in live.seats if s.autoplay)
                    todo = [s for s in ai if s in game.to_act(live.state) and s not in live.pending]
                    if not todo:
                        return
                    state = live.state
                    levels = {s.seat: s.level for s in live.seats}
                    same = len(todo) == 1 and turn == (todo[0], state.version)
                    if not same:  # a new turn: its thinking time, and one salt for its decisions
                        turn_end, salt = started + self.pool.think_seconds, table_id * 1_000_003 + state.version
                    wait = self.ai_delay * (TURN_PACE if same else 1) if pause else 0
                    codes = {s: self.pool.inline(game, state, s, levels[s], salt)
                             for s in todo if not self.pool.pooled(game, state, s, levels[s])}
                thinkers = [s for s in todo if s not in codes]
                if thinkers:  # think outside the lock, side by side
                    rounds = -(-len(thinkers) // self.pool.workers)
                    seconds = decision_seconds(turn_end - loop.time()) if len(todo) == 1 else (
                        max(0.0, turn_end - loop.time()) / rounds)
                    found = await asyncio.gather(*(self.pool.choose(game, state, s, levels[s], salt=salt,
                                                                    seconds=seconds) for s in thinkers))
                    codes.update(zip(thinkers, found, strict=True))
                rest = started + wait - loop.time()
                if rest > 0:
                    await asyncio.sleep(rest)  # the pause is the thinking shown, not added after it
                await self.foreground.quiet()
                applied = []
                async with hall.lock(table_id):
                    live = await hall.touch(table_id)
                    if live is None or live.row.status != "running":
                        return
                    for seat in todo:
                        seats = {s.seat: s for s in live.seats}
                        if (live.state.version != state.version or seat in live.pending or seat not in seats
                                or not seats[seat].autoplay or seat not in live.game.to_act(live.state)):
                            self.dropped += 1
                            log.info("table %s moved while the AI of seat %s thought; thinking again", table_id, seat)
                            break
                        applied.append((seat, *await host.choose(live, seat, codes[seat], source="ai")))
            except asyncio.CancelledError:
                raise
            except VersionConflict:
                log.warning("table %s was moved by another writer; reloaded", table_id)
                pause, turn = False, None
                continue
            except StoreUnavailable:  # logged once per outage by the store; the table is safe
                self.retries += 1
                await asyncio.sleep(outage.next())
                pause = False
                continue
            except Exception:
                failures += 1
                log.exception("AI move at table %s failed (%d/%d)", table_id, failures, MAX_AI_FAILURES)
                if failures >= MAX_AI_FAILURES:
                    log.error("giving up table %s: its AI move failed %d times", table_id, failures)
                    while True:
                        try:
                            await host.give_up(table_id)
                            return
                        except StoreUnavailable:  # abandon it once the store answers
                            await asyncio.sleep(outage.next())
                await asyncio.sleep(AI_RETRY_SECONDS * failures)
                continue
            failures = 0
            outage.reset()
            if not applied:
                pause, turn = False, None
                continue
            pause = any(e.audience is None for _, _, _, events in applied for e in events)
            last = hall.live(table_id)
            turn = (todo[0], last.state.version) if len(todo) == 1 and last is not None else None
            for seat, result, view, events in applied:
                await host.after_change(table_id, view, events, result, seat)  # the running driver is not restarted

    async def idle(self) -> None:
        """Wait until no driver is running (tests and the terminal use it)."""
        while True:
            tasks = [t for t in self._tasks.values() if not t.done()]
            if not tasks:
                return
            await asyncio.gather(*tasks, return_exceptions=True)

    def shutdown(self) -> list[asyncio.Task[Any]]:
        """Stop for good: no new driver; running ones are cancelled and returned (await them)."""
        self._closed = True
        tasks = [t for t in self._tasks.values() if not t.done()]
        for t in tasks:
            t.cancel()
        return list(tasks)

    async def close(self) -> None:
        """:meth:`shutdown`, wait for the drivers to end, then close the pool."""
        await asyncio.gather(*self.shutdown(), return_exceptions=True)
        await self.pool.close()
