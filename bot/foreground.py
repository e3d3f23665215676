"""Member interactions first: background work of the event loop waits while one is answered.

One event loop serves every table: a member's click, the board edits of every table, turn
pings, AI moves. A click's answer is what a member waits for (Discord allows 3 s, and a slow
answer feels broken), so the cogs mark each interaction they answer
(:meth:`Foreground.answering`) and the background work calls :meth:`Foreground.quiet` before
each of its steps: board and panel picture edits (:mod:`cogs.notifier`, :mod:`cogs.panels`),
turn pings, AI moves (:mod:`bot.driver`). ``quiet`` returns at once when no answer is being
built, and otherwise waits until none is, for at most :attr:`Foreground.max_wait` seconds, so
that a stream of clicks never starves the boards or the AI. Work that is only *started* by an
answer (the board edit, the turn ping and the AI driver a click's step asks for) is handed to
:meth:`Foreground.later`: it starts once the answers are sent, so that neither creating its
task nor its first steps run between the step and the member's answer.

Pure bookkeeping: no clock of its own (a timer of the event loop bounds the wait), no Discord import.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Iterator
from typing import Any

__all__ = ["Foreground"]

log = logging.getLogger(__name__)


class Foreground:
    """Counts the interactions being answered (see the module docstring).

    Args:
        max_wait: the longest :meth:`quiet` waits, in seconds (background work then goes on even
            while answers are still being built).
    """

    def __init__(self, max_wait: float = 0.25) -> None:
        self.max_wait = max_wait
        self._busy = 0
        self._tasks: dict[asyncio.Task[object] | None, int] = {}
        self._waiters: list[asyncio.Future[None]] = []
        self._deferred: list[tuple[Callable[..., object], tuple[Any, ...]]] = []
        self._deferred_timer: asyncio.TimerHandle | None = None

    @property
    def busy(self) -> int:
        """How many interactions are being answered now."""
        return self._busy

    def sizes(self) -> dict[str, int]:
        """Entries held now: ``tasks`` answering, ``waiters`` in :meth:`quiet`, ``deferred`` calls."""
        return {"tasks": len(self._tasks), "waiters": len(self._waiters), "deferred": len(self._deferred)}

    @contextlib.contextmanager
    def answering(self) -> Iterator[None]:
        """``with foreground.answering():`` around the answer to one interaction (in the task
        that answers it: that task itself never waits in :meth:`quiet`)."""
        task = asyncio.current_task()
        self._busy += 1
        self._tasks[task] = self._tasks.get(task, 0) + 1
        try:
            yield
        finally:
            self._busy -= 1
            left = self._tasks.pop(task, 1) - 1
            if left:
                self._tasks[task] = left
            if not self._busy:
                waiters, self._waiters = self._waiters, []
                for fut in waiters:
                    if not fut.done():
                        fut.set_result(None)
                self._run_deferred()

    def later(self, callback: Callable[..., object], *args: Any) -> None:
        """Call ``callback(*args)`` (a plain function: it may create tasks, it must not block)
        once no interaction is being answered: at once when none is, else as soon as the last
        answer being built ends, or after :attr:`max_wait` seconds at the latest (as
        :meth:`quiet`). Callbacks run in the order given; one that raises is logged and the
        others still run."""
        if not self._busy:
            callback(*args)
            return
        self._deferred.append((callback, args))
        if self._deferred_timer is None:
            self._deferred_timer = asyncio.get_running_loop().call_later(self.max_wait, self._run_deferred)

    def _run_deferred(self) -> None:
        """Run the callbacks :meth:`later` deferred (the answers ended, or the wait is over)."""
        if self._deferred_timer is not None:
            self._deferred_timer.cancel()
            self._deferred_timer = None
        deferred, self._deferred = self._deferred, []
        for callback, args in deferred:
            try:
                callback(*args)
            except Exception:
                log.exception("deferred background work %r failed", callback)

    async def quiet(self) -> None:
        """Return once no interaction is being answered (at once, without yielding to the event
        loop, when none is, or when called from a task that is answering one: work it awaits
        is part of its answer), or after :attr:`max_wait` seconds."""
        if not self._busy or asyncio.current_task() in self._tasks:
            return
        loop = asyncio.get_running_loop()
        fut: asyncio.Future[None] = loop.create_future()  # woken directly: no helper task
        self._waiters.append(fut)
        timer = loop.call_later(self.max_wait, _release, fut)
        try:
            await fut
        finally:
            timer.cancel()


def _release(fut: asyncio.Future[None]) -> None:
    """The bounded wait of :meth:`Foreground.quiet` is over."""
    if not fut.done():
        fut.set_result(None)
