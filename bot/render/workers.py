"""Where pictures are drawn: a pool of separate processes (``RENDER_WORKERS``, default 1), or a
thread of this process (``RENDER_WORKERS=0``, and the fallback).

Drawing a board takes 5-20 ms of CPU in Pillow and Python. In a thread it holds the GIL for
much of that time, so every other table's click waits behind it; in another process it runs on
the other core and the event loop only pays for sending the view (its JSON form, a small dict,
from which the worker rebuilds the typed view) and receiving the PNG bytes. The pool is :class:`concurrent.futures.ProcessPoolExecutor` with the
``spawn`` start method (the bot has threads - aiosqlite's, the default executor's - and forking
a threaded process is unsafe). A worker that dies (``BrokenProcessPool``) is replaced, and the
picture that was being drawn is drawn in a thread instead. Each worker watches the bot
(:func:`bot.lifeline.watch`) and exits when it ends, however it ends (SIGKILL included).

The functions submitted must be importable by name and take picklable arguments
(:func:`bot.render.render_board`, :func:`bot.render.render_panel`).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import multiprocessing
import os
from collections.abc import Callable
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from bot import lifeline

log = logging.getLogger(__name__)

__all__ = ["Drawer", "warm_up"]


def warm_up() -> bool:
    """Load the renderers, their fonts, the validators of the public and seat views and the
    plural rules of every language (babel's locale data) in a new worker (its first picture is
    then as fast as the others). Returns True."""
    from bot.games import GAMES
    from bot.i18n import LANGS, plural_categories
    from bot.render import renderer, style

    for key, spec in GAMES.items():
        if spec.renderer is not None:
            renderer(key)
    style.font(14)
    for lang in LANGS:
        plural_categories(lang)
    for spec in GAMES.values():
        if spec.renderer is None:
            continue
        game = spec.game
        state = game.setup(0, game.min_players)
        for seat in (None, 0):
            game.view_from_json(game.view_json(state, seat))
    return True


class Drawer:
    """Runs drawing functions off the event loop.

    ``processes``: how many worker processes (0: a thread of this process). The pool is
    started lazily by :meth:`start` (or the first :meth:`submit`) and stopped by :meth:`close`.
    """

    #: pictures submitted and not drawn yet, over every drawer of the process (the metrics'
    #: picture queue)
    busy = 0
    #: pictures submitted since the process started, over every drawer (the benchmarks' count)
    submitted = 0

    def __init__(self, processes: int = 0) -> None:
        self.processes = processes
        self._pool: concurrent.futures.ProcessPoolExecutor | None = None

    def configure(self, processes: int) -> None:
        """Use ``processes`` worker processes from now on (0: a thread); stops a running pool
        of another size."""
        if processes != self.processes:
            self.close()
        self.processes = processes

    def start(self) -> None:
        """Start the worker processes now, and load the renderers in them (in the background:
        this returns at once)."""
        pool = self._get_pool()
        if pool is not None:
            for _ in range(self.processes):
                pool.submit(warm_up)

    def _get_pool(self) -> concurrent.futures.ProcessPoolExecutor | None:
        if self.processes <= 0:
            return None
        if self._pool is None:
            self._pool = concurrent.futures.ProcessPoolExecutor(
                max_workers=self.processes, mp_context=multiprocessing.get_context("spawn"),
                initializer=lifeline.watch, initargs=(os.getpid(),))
        return self._pool

    def submit(self, fn: Callable[..., bytes], *args: Any) -> asyncio.Future[bytes]:
        """Start ``fn(*args)`` now (call from the event loop); the future gives its result or
        raises its exception. A broken pool is replaced and the call runs in a thread."""
        fut = self._submit(fn, *args)
        Drawer.busy += 1
        Drawer.submitted += 1
        fut.add_done_callback(_done_drawing)
        return fut

    def _submit(self, fn: Callable[..., bytes], *args: Any) -> asyncio.Future[bytes]:
        loop = asyncio.get_running_loop()
        pool = self._get_pool()
        if pool is None:
            return loop.run_in_executor(None, fn, *args)
        try:
            inner = loop.run_in_executor(pool, fn, *args)
        except (BrokenProcessPool, RuntimeError):
            self._replace_pool()
            return loop.run_in_executor(None, fn, *args)
        outer: asyncio.Future[bytes] = loop.create_future()

        def done(f: asyncio.Future[bytes]) -> None:
            if outer.done():
                return
            exc = f.exception() if not f.cancelled() else None
            if isinstance(exc, BrokenProcessPool):
                log.warning("a picture worker process died; drawing in a thread and starting a new one")
                self._replace_pool()
                retry = loop.run_in_executor(None, fn, *args)
                retry.add_done_callback(lambda r: _copy(r, outer))
                return
            _copy(f, outer)

        inner.add_done_callback(done)
        return outer

    def _replace_pool(self) -> None:
        pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)

    def close(self) -> None:
        """Stop the worker processes (pictures still being drawn are dropped)."""
        self._replace_pool()


def _done_drawing(_: object) -> None:
    Drawer.busy -= 1


def _copy(src: asyncio.Future[bytes], dst: asyncio.Future[bytes]) -> None:
    if dst.done():
        return
    if src.cancelled():
        dst.cancel()
    elif (exc := src.exception()) is not None:
        dst.set_exception(exc)
    else:
        dst.set_result(src.result())
