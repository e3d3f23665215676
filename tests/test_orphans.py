"""No orphans: a bot process killed with SIGKILL after a strong AI move and a picture leaves no
process of its pools behind (AI workers, their fork server, picture workers, multiprocessing's
resource tracker) after 5 seconds; and the process pool starts in a thread, so the event loop
keeps running while it starts."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bot.ai_pool import AiPool
from bot.games import GAMES

ROOT = Path(__file__).resolve().parent.parent

#: The bot's side: one strong move in the AI pool, one picture drawn by a picture worker, then wait.
BOT = """
import asyncio
from bot.ai_pool import AiPool
from bot.games import GAMES
from bot.render.workers import Drawer, warm_up

async def main():
    pool = AiPool(1, iterations=30)
    pool.start()
    game = GAMES["gang-of-dice"].game
    state = game.setup(7, 2)
    seat = min(game.to_act(state))
    await pool.choose(game, state, seat, "strong", salt=1)
    drawer = Drawer(1)
    drawer.start()
    await drawer.submit(warm_up)
    print("ready", flush=True)
    await asyncio.sleep(600)

asyncio.run(main())
"""


def _children() -> dict[int, list[int]]:
    """Every process's children, from /proc."""
    kids: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            ppid = int(stat.rsplit(")", 1)[1].split()[1])
            kids.setdefault(ppid, []).append(int(entry))
    return kids


def _descendants(pid: int) -> set[int]:
    kids, found, todo = _children(), set(), [pid]
    while todo:
        for child in kids.get(todo.pop(), []):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found


def _running(pid: int) -> bool:
    """Whether ``pid`` is a live process (a zombie waiting for its reaper is not)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc (Linux)")
def test_a_bot_killed_with_sigkill_leaves_no_process_of_its_pools():
    bot = subprocess.Popen([sys.executable, "-c", BOT], cwd=ROOT, stdout=subprocess.PIPE, text=True,
                           env={**os.environ, "PYTHONPATH": str(ROOT)})
    try:
        assert bot.stdout is not None
        assert bot.stdout.readline().strip() == "ready"
        pool = _descendants(bot.pid)
        # the AI worker, its fork server, the picture worker, the resource tracker
        assert len(pool) >= 4, pool
        os.kill(bot.pid, signal.SIGKILL)
        bot.wait(10)
        end = time.monotonic() + 5
        while any(_running(p) for p in pool) and time.monotonic() < end:
            time.sleep(0.05)
        assert [p for p in pool if _running(p)] == []
    finally:
        if bot.poll() is None:
            bot.kill()
            bot.wait()


async def test_the_pool_starts_off_the_event_loop_and_serves_a_strong_move():
    pool = AiPool(1, iterations=30)
    loop = asyncio.get_running_loop()
    lag = 0.0
    started = loop.time()
    pool.start()
    try:
        while not pool.pids:  # the loop keeps turning while the processes start
            before = loop.time()
            await asyncio.sleep(0.005)
            lag = max(lag, loop.time() - before - 0.005)
            assert loop.time() - started < 60
        assert len(pool.pids) == 2  # the worker and its fork server
        game = GAMES["gang-of-dice"].game
        state = game.setup(7, 2)
        code = await pool.choose(game, state, min(game.to_act(state)), "strong", salt=1)
        assert game.decode(code) in game.legal_actions(state, min(game.to_act(state)))
    finally:
        await pool.close()
    # the loop was never held for the pool's start-up (about a second of work in the thread);
    # generous bound for a busy test machine: the benchmark measures the lag itself
    assert lag < 0.5, lag
