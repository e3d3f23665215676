"""Faults an operator meets, measured: the event loop while the AI pool starts, and tables through
PostgreSQL outages longer than the tests' second.

``python -m bench.faults pool [--runs 5] [--workers 1]``: the event loop's lag (how late a
1 ms sleep wakes, the worst over the window) from the moment the AI pool is asked to start
until its first strong move is answered, each run in a fresh process (the fork server is
per process), alternating two ways:

- ``thread``: what the bot does (:meth:`bot.ai_pool.AiPool.start` at boot: the processes and
  the fork server start in a thread; the first strong move waits for them, the loop does not);
- ``on the loop``: the processes started from the event loop's thread by the first strong
  move (what the pool did before it started in a thread);
- ``idle``: no pool, the sampler alone for 3 s: the machine's own noise, for reference.

``python -m bench.faults outage [--tables 20] [--down 1 5 15] [--timeout 2]``: a PostgreSQL
server of the benchmark's own (a copy of the cluster ``scripts/_postgres.sh`` keeps in
``.venv``: run ``scripts/test.sh`` once first) holds ``--tables`` Gang of Dice tables of two
members with a ``--timeout`` s turn deadline (reminder at half of it). The server is stopped
(``pg_ctl stop -m fast``) just before the reminders fall due and started again after each
``--down`` seconds; the deadlines that passed meanwhile must then fire. Per outage: how long
after the server was back the last table had its timeout played, the tables given up (must be
0), the timer task's retries, and the warnings the store logged (2: the outage's start and end).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import statistics
import subprocess
import sys
import time
from typing import Any

from bot.ai_pool import AiPool
from bot.games import GAMES
from bot.house import House
from bot.service import Notifier
from bot.timers import SystemClock
from storage.factory import open_store


# ---------------------------------------------------------------------------- pool start-up lag
async def _pool_once(mode: str, workers: int) -> dict[str, float]:
    """One run in this process: the worst loop lag (ms) and the time to the first strong move (s)."""
    worst = 0.0
    done = False

    async def sample() -> None:
        nonlocal worst
        while not done:
            before = time.perf_counter()
            await asyncio.sleep(0.001)
            worst = max(worst, time.perf_counter() - before - 0.001)

    sampler = asyncio.create_task(sample())
    await asyncio.sleep(0.05)
    game = GAMES["gang-of-dice"].game
    state = game.setup(7, 2)
    seat = min(game.to_act(state))
    started = time.perf_counter()
    if mode == "idle":  # the machine's own noise: nothing but the sampler, as long as a start-up
        await asyncio.sleep(3.0)
        elapsed = 0.0
    elif mode == "thread":
        pool = AiPool(workers, iterations=30)
        pool.start()
        await pool.choose(game, state, seat, "strong", salt=1)
        elapsed = time.perf_counter() - started
        await pool.close()
    else:  # the processes started from the loop's thread
        pool = AiPool(workers, iterations=30)
        pool.boot()
        elapsed = time.perf_counter() - started
        await pool.close()
    done = True
    await sampler
    return {"lag_ms": worst * 1000, "first_move_s": elapsed}


def pool_bench(runs: int, workers: int) -> None:
    results: dict[str, list[dict[str, float]]] = {"thread": [], "loop": [], "idle": []}
    for _ in range(runs):
        for mode in ("thread", "loop", "idle"):
            out = subprocess.run([sys.executable, "-m", "bench.faults", "pool-once", "--mode", mode,
                                  "--workers", str(workers)], capture_output=True, text=True, check=True)
            results[mode].append(json.loads(out.stdout.strip().splitlines()[-1]))
    print(f"AI pool start-up, {workers} worker(s), median of {runs} alternating runs (fresh process each):")
    for mode, label in (("thread", "started in a thread (the bot)"), ("loop", "started on the event loop"),
                        ("idle", "no pool (the machine's noise)")):
        lag = statistics.median(r["lag_ms"] for r in results[mode])
        worst = max(r["lag_ms"] for r in results[mode])
        first = statistics.median(r["first_move_s"] for r in results[mode])
        print(f"  {label:32} loop lag {lag:7.1f} ms (worst run {worst:7.1f} ms); first strong move after {first:.2f} s")


# ---------------------------------------------------------------------------- outages
class _Heard(Notifier):
    def __init__(self) -> None:
        self.timeouts: dict[int, float] = {}
        self.abandoned: set[int] = set()

    async def timed_out(self, table: Any, seats: Any) -> None:
        self.timeouts.setdefault(table.id, time.monotonic())

    async def table_abandoned(self, table: Any) -> None:
        self.abandoned.add(table.id)


class _Count(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


async def _one_outage(url: str, server: Any, tables: int, down: float, timeout: float) -> dict[str, Any]:
    db = await open_store(url)
    heard = _Heard()
    svc = House(db, clock=SystemClock(), notifier=heard, turn_timeout=timeout, reminder_fraction=0.5)
    count = _Count()
    logging.getLogger().addHandler(count)
    try:
        ids = []
        for n in range(tables):
            t = await svc.lobbies.open(guild_id=1, channel_id=n, game="gang-of-dice", host_user_id=2 * n + 1,
                                       host_name=f"H{n}")
            await svc.lobbies.join(t.id, 2 * n + 2, f"G{n}")
            await svc.lobbies.start(t.id, 2 * n + 1)
            ids.append(t.id)
        svc.timers.start()
        await asyncio.to_thread(server.stop)  # before the reminders (at timeout / 2) fall due
        await asyncio.sleep(down)
        await asyncio.to_thread(server.start)
        back = time.monotonic()
        while len(heard.timeouts) < tables and time.monotonic() - back < 120:
            await asyncio.sleep(0.02)
        last = max(heard.timeouts.values(), default=float("nan"))
        gave_up = len(heard.abandoned) + len(await db.tables_with_status("abandoned"))
        return {"down_s": down, "tables": tables, "timed_out": len(heard.timeouts),
                "last_deadline_after_back_s": round(last - back, 2), "given_up": gave_up,
                "timer_retries": svc.timers.retries, "store_warnings": sum(r.name == "storage.base" for r in count.records),
                "errors": sum(r.levelno >= logging.ERROR for r in count.records)}
    finally:
        logging.getLogger().removeHandler(count)
        await svc.tables.close()
        await db.close()


async def outage_bench(tables: int, downs: list[float], timeout: float) -> None:
    from tests.own_postgres import OwnPostgres

    for down in downs:
        server = OwnPostgres.from_cluster()
        if server is None:
            raise SystemExit("no PostgreSQL binaries or cached cluster: run scripts/test.sh once")
        server.start()
        try:
            print(json.dumps(await _one_outage(server.url, server, tables, down, timeout)), flush=True)
        finally:
            server.remove()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.faults", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="what", required=True)
    pool = sub.add_parser("pool")
    pool.add_argument("--runs", type=int, default=5)
    pool.add_argument("--workers", type=int, default=1)
    once = sub.add_parser("pool-once")
    once.add_argument("--mode", choices=("thread", "loop", "idle"), required=True)
    once.add_argument("--workers", type=int, default=1)
    outage = sub.add_parser("outage")
    outage.add_argument("--tables", type=int, default=20)
    outage.add_argument("--down", type=float, nargs="+", default=[1.0, 5.0, 15.0])
    outage.add_argument("--timeout", type=float, default=2.0)
    args = parser.parse_args(argv)
    if args.what == "pool":
        pool_bench(args.runs, args.workers)
    elif args.what == "pool-once":
        print(json.dumps(asyncio.run(_pool_once(args.mode, args.workers))))
    else:
        logging.basicConfig(level=logging.WARNING, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
        asyncio.run(outage_bench(args.tables, args.down, args.timeout))


if __name__ == "__main__":
    main()
