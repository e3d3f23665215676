"""AI levels and the process pool the strong AI thinks in.

Every AI seat plays at a level (:data:`LEVELS`: easy, normal, strong; stored with the seat,
:attr:`storage.base.SeatRow.level`). The moves come from :func:`engine.policies.choose`, the
pure engine side; this module adds what the engine may not have, a clock and processes:

- **easy** and **normal** are cheap: computed inline, in the event loop, under the table lock,
  except a normal move the engine calls heavy (:func:`engine.policies.heavy`: Three-Player
  Moon's bidder checking every deal of the unseen tiles for the moves that keep its bid, up to
  hundreds of milliseconds), which goes to the pool like a strong one once its workers are up
  (before, it is computed inline rather than waiting for their start). (A thread of the bot's
  process does not do: while it computes, each click waits for the interpreter at every system
  call, which measured worse than the inline move.)
- **strong** is a search (CPU-bound; the driver gives each move its share of the turn's
  :attr:`AiPool.think_seconds`, :func:`engine.policies.decision_seconds`): it runs in
  a :class:`concurrent.futures.ProcessPoolExecutor` of :attr:`AiPool.workers` processes, off the
  event loop, so clicks on other tables are not delayed, and outside the table lock (the
  driver, :mod:`bot.driver`, takes the lock only to read the state and later to apply the move).
- Workers run at the lowest priority (``SCHED_IDLE`` on Linux, else :data:`WORKER_NICENESS`),
  so on a busy machine the event loop's clicks go first; the driver also applies AI moves only
  while no member's click is being answered (:mod:`bot.foreground`).
- When every worker is busy, moves queue in the executor; the think time starts when a worker
  starts the move (the deadline is taken inside the worker, :func:`think`).
- The engine never reads a clock: the worker builds the ``should_stop`` callback from
  ``time.monotonic``. With :attr:`AiPool.iterations` set (tests), the search gets that
  iteration budget instead and no clock is read: the move depends on the state only.
- A crashed worker (:class:`concurrent.futures.process.BrokenProcessPool`) is replaced by a new
  pool; the move that was asked (and every one queued in the broken pool) falls back to the
  normal level, logged. :meth:`AiPool.close` shuts the pool down (queued moves cancelled, the
  running ones awaited, at most one think time).
- The processes start in a thread, never on the event loop: :meth:`AiPool.start` at boot (the
  bot calls it), else before the first strong move, and again after a crash; a move waits for
  them, the loop does not. Each worker watches the bot (:func:`bot.lifeline.watch`) and exits
  when it ends, SIGKILL included; the fork server then exits too.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import multiprocessing
import os
import signal
import threading
import time
from collections.abc import Callable
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from bot import lifeline
from bot.games import GAMES
from engine import policies
from engine.core import Game

__all__ = ["LEVELS", "AiPool", "default_workers", "think"]

log = logging.getLogger(__name__)


#: The levels offered to users, weakest first (:data:`engine.policies.LEVELS`).
LEVELS: tuple[str, ...] = policies.LEVELS


def default_workers() -> int:
    """The default ``AI_WORKERS``: the machine's cores minus one (the event loop's), at least 1."""
    return max(1, (os.cpu_count() or 2) - 1)


def think(game_key: str, state_data: Any, seat: int, level: str, salt: int, think_seconds: float,
          iterations: int | None) -> str:
    """The worker's job: ``seat``'s move at ``level`` in the stored state ``state_data``
    (``Game.dump_state``), as the game's action code.

    The search stops at the game's iteration budget (``engine.policies.iterations_for``, the
    budget the arena measures) or when ``think_seconds`` have passed since the worker started
    the move, whichever comes first; with ``iterations`` the search gets that budget instead
    and no clock is read."""
    started = time.monotonic()
    game = GAMES[game_key].game
    state = game.load_state(state_data)
    if iterations is not None:
        action = policies.choose(game, state, seat, level, salt=salt, iterations=iterations)
    else:
        deadline = started + think_seconds
        action = policies.choose(game, state, seat, level, salt=salt, iterations=policies.iterations_for(game),
                                  should_stop=lambda: time.monotonic() >= deadline)
    return game.encode(action)


#: Workers run at this lower priority (``os.nice``): on a machine with fewer free cores than
#: workers + 1, the event loop (clicks) goes first and the search takes what is left (a move
#: still ends on time: it searches less).
WORKER_NICENESS = 10


def _lower_priority(niceness: int = WORKER_NICENESS) -> None:
    """Worker initializer: the ``SCHED_IDLE`` scheduling policy where the platform has it
    (Linux): the worker then runs only on a core that nothing else wants, and a woken event
    loop preempts it at once instead of waiting for its time slice to end (a niced process
    keeps the core until the scheduler's next decision, up to a few milliseconds: a click's
    answer would wait that long). Also :data:`WORKER_NICENESS`, the fallback elsewhere. A
    strong move still ends on time: its think time is wall-clock, it searches less on a busy
    machine. Refusals by the platform are ignored. Workers ignore SIGINT: a Ctrl-C in the
    terminal is the parent's to handle (it asks before leaving), not a traceback per worker."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        os.nice(niceness)
    except (AttributeError, OSError):  # pragma: no cover - not on Linux
        pass
    idle = getattr(os, "SCHED_IDLE", None)
    if idle is not None:
        try:
            os.sched_setscheduler(0, idle, os.sched_param(0))
        except (AttributeError, OSError):  # pragma: no cover - a platform without it
            pass


def _worker_start(bot_pid: int) -> None:
    """Worker initializer: exit when the bot ends (:func:`bot.lifeline.watch`), then
    :func:`_lower_priority` to :data:`WORKER_NICENESS` above the bot (counting what the fork
    server, started niced, already gave the worker)."""
    lifeline.watch(bot_pid)
    try:
        step = os.getpriority(os.PRIO_PROCESS, bot_pid) + WORKER_NICENESS - os.getpriority(os.PRIO_PROCESS, 0)
    except (AttributeError, OSError):  # pragma: no cover - not on Linux
        step = WORKER_NICENESS
    _lower_priority(max(0, step))


def _started() -> tuple[int, int]:
    """A worker's first job at start: its process id and its parent's (the fork server)."""
    return os.getpid(), os.getppid()


def _context() -> Any:
    """Worker processes: forked from a clean server process that imported the games once
    ("forkserver": no copy of the bot's threads or sockets), else spawned."""
    if "forkserver" in multiprocessing.get_all_start_methods():
        ctx = multiprocessing.get_context("forkserver")
        ctx.set_forkserver_preload(["bot.ai_pool"])
        return ctx
    return multiprocessing.get_context("spawn")  # pragma: no cover - not on Linux


class AiPool:
    """Chooses AI moves; strong ones in a process pool (see the module docstring).

    Args:
        workers: processes of the pool (``AI_WORKERS``; at least 1).
        think_seconds: search time of a strong AI turn (``AI_THINK_SECONDS``: every decision of
            the turn together); a move thinks for the share the driver passes (``seconds``),
            counted from when a worker starts it.
        iterations: when set, strong moves get this iteration budget instead of a time (tests).
        executor_factory: builds the executor from ``workers`` (a
            :class:`~concurrent.futures.ProcessPoolExecutor` by default; it is created in a
            thread by :meth:`start`, or before the first strong move).
        task: the function run in a worker (:func:`think`; tests pass one that crashes).
    """

    def __init__(self, workers: int = 1, think_seconds: float = 1.0, *, iterations: int | None = None,
                 executor_factory: Callable[[int], Executor] | None = None,
                 task: Callable[..., str] = think) -> None:
        self.workers = max(1, workers)
        self.think_seconds = think_seconds
        self.iterations = iterations
        self._factory = executor_factory or (lambda n: ProcessPoolExecutor(
            n, mp_context=_context(), initializer=_worker_start, initargs=(os.getpid(),)))
        self.task = task
        self._executor: Executor | None = None
        self._starting: asyncio.Future[None] | None = None
        #: process ids of the running workers and of their parent (the fork server), once started
        self.pids: set[int] = set()
        self._generation = 0
        self._closed = False
        #: strong moves asked and not answered yet (queued or thinking)
        self.waiting = 0
        #: workers replaced after a crash (since the pool was made)
        self.replaced = 0

    @staticmethod
    def pooled(game: Game[Any, Any, Any], state: Any, seat: int, level: str) -> bool:
        """Whether ``seat``'s move at ``level`` is computed in the pool (a move that may take
        long, :func:`engine.policies.heavy`), else inline."""
        return policies.heavy(game, state, seat, level)

    @property
    def started(self) -> bool:
        """Whether worker processes run now (started by :meth:`start` at boot, or before the first
        pooled move)."""
        return self._executor is not None

    def inline(self, game: Game[Any, Any, Any], state: Any, seat: int, level: str, salt: int) -> str:
        """A cheap level's move (easy, normal), computed now: the action code."""
        return game.encode(policies.choose(game, state, seat, level, salt=salt))

    def start(self) -> None:
        """Start the worker processes now, in a thread (call from the event loop, e.g. at boot;
        this returns at once and the loop never waits for them). No-op when they run or are
        starting, or after :meth:`close`."""
        if self._closed or (self._starting is not None and not self._starting.done()) or self._executor is not None:
            return
        # a thread of its own, ended once the processes are up
        booter = ThreadPoolExecutor(1, thread_name_prefix="ai-pool-start")
        self._starting = asyncio.get_running_loop().run_in_executor(booter, self._boot_niced)
        booter.shutdown(wait=False)

    def _boot_niced(self) -> None:
        """:meth:`boot` in the start thread, which runs at :data:`WORKER_NICENESS` first: the
        fork server it starts inherits it, so its second of imports takes only the CPU the event
        loop leaves."""
        with contextlib.suppress(AttributeError, OSError):  # Linux: a thread's own niceness
            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(),
                           os.getpriority(os.PRIO_PROCESS, 0) + WORKER_NICENESS)
        self.boot()

    def boot(self) -> None:
        """Make the executor and have every worker answer once (the processes, and the fork
        server with the games imported, are then up); blocks the calling thread until then.
        :meth:`start` runs it in a niced thread of its own; ``bench.faults pool`` also runs it
        on the event loop, to compare."""
        executor = self._factory(self.workers)
        try:
            found = [f.result() for f in [executor.submit(_started) for _ in range(self.workers)]]
        except Exception:
            log.warning("the AI workers did not start cleanly; strong moves will try again", exc_info=True)
            found = []
        self.pids = {pid for pair in found for pid in pair}
        self._executor = executor
        self._generation += 1

    async def _current(self) -> tuple[Executor, int]:
        """The running executor, started off the loop first when there is none."""
        while self._executor is None:
            if self._closed:
                raise RuntimeError("the AI pool is closed")
            self.start()
            if self._starting is not None:
                await asyncio.shield(self._starting)
        return self._executor, self._generation

    def _replace(self, generation: int) -> None:
        """Drop a broken executor (once, whatever the number of moves that saw it break)."""
        if generation != self._generation or self._executor is None:
            return
        broken, self._executor = self._executor, None
        self.replaced += 1
        self.pids = set()
        broken.shutdown(wait=False, cancel_futures=True)
        self.start()  # the new workers start in a thread now, not on the next move

    async def choose(self, game: Game[Any, Any, Any], state: Any, seat: int, level: str, *, salt: int = 0,
                     seconds: float | None = None) -> str:
        """``seat``'s move at ``level`` as an action code: strong in a worker (awaited, off the
        event loop; thinking at most ``seconds``, by default :attr:`think_seconds`), the other
        levels inline. A crashed worker makes this move a normal one (logged) and the pool is
        replaced. Raises ``RuntimeError`` after :meth:`close`, and whatever the engine raised in
        the worker."""
        if not self.pooled(game, state, seat, level) or (level != "strong" and not self.started):
            # a heavy normal move goes to the workers only once they are up: it does not wait
            # seconds for their start (a strong move does: it needs them)
            return self.inline(game, state, seat, level, salt)
        if self._closed:
            raise RuntimeError("the AI pool is closed")
        executor, generation = await self._current()
        loop = asyncio.get_running_loop()
        self.waiting += 1
        try:
            return await loop.run_in_executor(executor, self.task, game.key, game.dump_state(state), seat, level,
                                              salt, self.think_seconds if seconds is None else seconds,
                                              self.iterations)
        except BrokenProcessPool:
            log.warning("an AI worker died during a %s move of %s; the pool is replaced and this move "
                        "is played at normal level", level, game.key, exc_info=True)
            self._replace(generation)
            return self.inline(game, state, seat, "normal", salt)
        finally:
            self.waiting -= 1

    async def close(self) -> None:
        """Stop for good: queued moves are cancelled, the running ones awaited (in a thread, so
        the event loop keeps serving meanwhile)."""
        self._closed = True
        if self._starting is not None:
            await asyncio.gather(self._starting, return_exceptions=True)
        executor, self._executor = self._executor, None
        if executor is not None:
            await asyncio.to_thread(executor.shutdown, wait=True, cancel_futures=True)
