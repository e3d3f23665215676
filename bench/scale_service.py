"""Scale benchmark, service level (not a test): N running tables of all four games in a temporary
database, then the scale figures that need no Discord side.

    .venv/bin/python -m bench.scale_service [--tables 1000 10000] [--steps 300] [--background 100]
                                            [--database-url postgresql://...]

For each N it prints: the restart time (a fresh :class:`storage.sqlite.SqliteStore` open and
the table services (:class:`bot.house.House`) to the first accepted ``submit``; also from a new process,
imports included), the service-level step (``submit``) median and p99 while ``--background``
other tables keep playing (AI seats moved by the service's driver, the host seat by a member
loop), the engine step alone on the same states and actions, and the Python heap per live table
(tracemalloc, after every table was touched once). The last line is one JSON object.

Every piece is an importable function (``populate``, ``restart``, ``restart_in_new_process``,
``step_figures``, ``memory_per_table``) so that ``bench.scale`` can reuse them.

Tables are created fast: one real snapshot per game (set up and played a few random legal
steps, every seat a member), copied into N table rows with the storage's own methods in a few
large transactions, then one service resumes them once (that arms their deadlines), as a bot
that ran for a while would leave them.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.stats import quantile
from bot.games import GAMES
from bot.house import House
from bot.service import ServiceError
from storage.base import SeatRow, Store
from storage.factory import open_store, public_url, sqlite_path
from storage.postgres import create_schema, drop_schema, postgres_problem

#: Member ids: table ``t`` seat ``s`` is user ``USER_BASE * t + s + 1``.
USER_BASE = 10


def players_for(key: str) -> int:
    """Seat count used for ``key``: 3 where the game allows it."""
    game = GAMES[key].game
    return min(max(game.min_players, 3), game.max_players)


def snapshots(seed: int = 1, steps: int = 6) -> dict[str, tuple[dict[str, Any], int]]:
    """One running snapshot per game: ``{key: (dump_state, version)}`` after ``steps`` random
    legal steps from ``setup(seed, ...)`` (fewer if the game would end)."""
    out = {}
    for key, game in sorted((k, spec.game) for k, spec in GAMES.items()):
        rng = random.Random(f"{seed}:{key}")
        state = game.setup(seed, players_for(key), {})
        for _ in range(steps):
            to_act = game.to_act(state)
            nxt = game.apply(state, {s: rng.choice(game.legal_actions(state, s)) for s in sorted(to_act)}).state
            if not game.to_act(nxt):
                break
            state = nxt
        out[key] = (game.dump_state(state), state.version)
    return out


async def populate(path: str | Path, n: int, *, seed: int = 1, batch: int = 500) -> list[int]:
    """Create ``n`` running tables (games mixed in turn) in the database at ``path``, then resume
    them once with a service (arming their deadlines) and close. Returns the table ids."""
    snaps = snapshots(seed)
    keys = sorted(snaps)
    db = await open_store(path)
    ids: list[int] = []
    now = time.time()
    try:
        for start in range(0, n, batch):
            async with db.transaction():
                for i in range(start, min(n, start + batch)):
                    key = keys[i % len(keys)]
                    state, version = snaps[key]
                    tid = await db.create_table(guild_id=1 + i % 50, channel_id=1, game=key,
                                                host_user_id=USER_BASE * (i + 1) + 1, lang="en", options={}, now=now)
                    await db.replace_seats(tid, [SeatRow(s, USER_BASE * (i + 1) + s + 1, f"P{s}", False)
                                                 for s in range(players_for(key))])
                    await db.update_table(tid, now, status="running", seed=seed, state=state, version=version,
                                          rules_version=GAMES[key].game.rules_version)
                    ids.append(tid)
        svc = House(db, turn_timeout=3600)
        await svc.tables.resume()
        await svc.tables.idle()
        await svc.tables.close()
    finally:
        await db.close()
    return ids


def _member_move(view: Any) -> tuple[int, int, str] | None:
    """``(user_id, version, code)`` of a member who must act at a running table, or ``None``."""
    if view.row.status != "running":
        return None
    for seat in view.waiting_for():
        if not view.seats[seat].autoplay:
            game = view.game
            return view.seats[seat].user_id, view.version, game.encode(game.ai_action(view.state, seat))
    return None


async def restart(path: str | Path, *, turn_timeout: float = 3600) -> tuple[float, House, Store]:
    """Seconds from opening the database and a new service to the first accepted ``submit``
    (``resume`` and the timers started). Returns the open service and database too."""
    t0 = time.perf_counter()
    db = await open_store(path)
    svc = House(db, turn_timeout=turn_timeout)
    ids = await svc.tables.resume()
    svc.timers.start()
    for tid in ids:
        move = _member_move(await svc.hall.table(tid))
        if move is not None:
            await svc.tables.submit(tid, *move)
            break
    return time.perf_counter() - t0, svc, db


def restart_in_new_process(path: str | Path) -> float:
    """Seconds from spawning ``python -m bench.scale_service --child-restart path`` (imports and
    database open included) to the child's first accepted ``submit``."""
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "bench.scale_service", "--child-restart", str(path)],
                          capture_output=True, text=True, check=True,
                          cwd=Path(__file__).resolve().parent.parent)
    child_done = float(proc.stdout.strip().splitlines()[-1])
    return child_done - t0 if child_done > 0 else time.perf_counter() - t0


async def _child_restart(path: str | Path) -> None:
    """The child's side of :func:`restart_in_new_process`: prints ``time.perf_counter()`` (the
    same clock as the parent's on Linux: CLOCK_MONOTONIC) once the first submit is accepted."""
    _, svc, db = await restart(path)
    print(time.perf_counter(), flush=True)
    await svc.tables.close()
    await db.close()


@dataclass
class StepFigures:
    """Service-level ``submit`` and engine-only step times in milliseconds."""

    service_ms: list[float] = field(default_factory=list)
    engine_ms: list[float] = field(default_factory=list)
    apply_ms: list[float] = field(default_factory=list)
    background_steps: int = 0

    def summary(self) -> dict[str, float]:
        """Median and p99 of each series."""
        return {
            "service_step_ms": statistics.median(self.service_ms),
            "service_step_p99_ms": quantile(self.service_ms, 0.99),
            "engine_step_ms": statistics.median(self.engine_ms),
            "engine_step_p99_ms": quantile(self.engine_ms, 0.99),
            "engine_apply_ms": statistics.median(self.apply_ms),
            "background_steps": float(self.background_steps),
        }


def engine_step_ms(game: Any, state: Any, seat: int, code: str) -> tuple[float, float]:
    """The engine's share of one ``submit`` on ``state`` (to_act, decode, legal_actions, apply,
    outcome, dump_state) and ``apply`` alone, in milliseconds (best of 3)."""
    best = best_apply = float("inf")
    for _ in range(3):
        t0 = time.perf_counter()
        game.to_act(state)
        action = game.decode(code)
        game.legal_actions(state, seat)
        t1 = time.perf_counter()
        step = game.apply(state, {seat: action})
        t2 = time.perf_counter()
        game.outcome(step.state)
        game.dump_state(step.state)
        game.to_act(step.state)
        t3 = time.perf_counter()
        best, best_apply = min(best, t3 - t0), min(best_apply, t2 - t1)
    return best * 1e3, best_apply * 1e3


async def _background(svc: House, tables: int, stop: asyncio.Event, figures: StepFigures,
                      ready: asyncio.Event) -> None:
    """Keep ``tables`` tables playing: AI seats moved by the driver (``ai_delay`` of the service),
    the host seat by this loop (its AI move, twice a second); finished tables are replaced."""
    keys = sorted(GAMES)
    running: list[int] = []

    async def new_table(i: int) -> int:
        key = keys[i % len(keys)]
        host = 9_000_000_000 + i
        t = await svc.lobbies.open(guild_id=999, channel_id=1, game=key, host_user_id=host, host_name="bg")
        for _ in range(players_for(key) - 1):
            await svc.lobbies.add_ai(t.id, host)
        await svc.lobbies.start(t.id, host)
        return t.id

    made = 0
    for _ in range(tables):
        running.append(await new_table(made))
        made += 1
    ready.set()
    while not stop.is_set():
        for j, tid in enumerate(running):
            view = await svc.hall.table(tid)
            if view.row.status != "running":
                running[j] = await new_table(made)
                made += 1
                continue
            move = _member_move(view)
            if move is not None:
                try:
                    await svc.tables.submit(tid, *move)
                    figures.background_steps += 1
                except ServiceError:
                    pass
        try:
            await asyncio.wait_for(stop.wait(), timeout=0.5)
        except TimeoutError:
            pass


async def step_figures(svc: House, ids: list[int], *, steps: int = 300, background: int = 100,
                       ai_delay: float = 0.5, seed: int = 7) -> StepFigures:
    """Time ``steps`` member submits that each apply a step (tables whose step waits for one
    seat), on idle running tables among ``ids`` (one per table, random order), while ``background`` other tables play; the engine step is timed afterwards on the
    same states and actions."""
    figures = StepFigures()
    svc.tables.driver.ai_delay = ai_delay
    stop = asyncio.Event()
    ready = asyncio.Event()
    bg = asyncio.create_task(_background(svc, background, stop, figures, ready))
    await ready.wait()
    await asyncio.sleep(1.0)  # let the background tables get going
    rng = random.Random(seed)
    chosen = rng.sample(ids, min(steps, len(ids)))
    samples = []
    for tid in chosen:
        view = await svc.hall.table(tid)
        move = _member_move(view)
        if move is None or len(view.to_act()) != 1:
            continue  # a simultaneous step would only buffer this choice: time whole steps
        seat = view.seat_of(move[0])
        t0 = time.perf_counter()
        await svc.tables.submit(tid, *move)
        figures.service_ms.append((time.perf_counter() - t0) * 1e3)
        samples.append((view.game, view.state, seat, move[2]))
        await asyncio.sleep(0.002)  # clicks arrive spread out, as members click
    stop.set()
    await bg
    svc.tables.driver.ai_delay = 0
    for game, state, seat, code in samples:
        total, apply = engine_step_ms(game, state, seat, code)
        figures.engine_ms.append(total)
        figures.apply_ms.append(apply)
    return figures


async def memory_per_table(path: str | Path, ids: list[int]) -> float:
    """Python heap (tracemalloc) per live table in KB: a fresh service resumes the database and
    every table is touched once (its view read)."""
    gc.collect()
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    db = await open_store(path)
    svc = House(db, turn_timeout=3600)
    await svc.tables.resume()
    for tid in ids:
        await svc.hall.table(tid)
    await svc.tables.idle()
    gc.collect()
    used = tracemalloc.get_traced_memory()[0] - base
    tracemalloc.stop()
    await svc.tables.close()
    await db.close()
    return used / len(ids) / 1024


async def run_one(n: int, *, steps: int, background: int, new_process: bool = True,
                  database_url: str | None = None) -> dict[str, float]:
    """Every figure for ``n`` tables, in a temporary folder (SQLite), or in a new schema
    ``speakeasy_scale_service_<n>`` of the PostgreSQL database ``database_url`` (dropped after)."""
    pg = database_url is not None and sqlite_path(database_url) is None
    schema = f"speakeasy_scale_service_{n}"
    with tempfile.TemporaryDirectory() as tmp:
        path: str | Path = await create_schema(database_url, schema) if pg and database_url else Path(tmp) / "scale.db"
        t0 = time.perf_counter()
        ids = await populate(path, n)
        made = time.perf_counter() - t0
        restart_s, svc, db = await restart(path)
        try:
            figs = await step_figures(svc, ids, steps=steps, background=background)
        finally:
            await svc.tables.close()
            await db.close()
        out = {"tables": float(n), "populate_s": made, "restart_s": restart_s, **figs.summary()}
        if new_process:
            out["restart_new_process_s"] = restart_in_new_process(path)
        out["kb_per_table"] = await memory_per_table(path, ids)
        if pg and database_url:
            await drop_schema(database_url, schema)
    out["service_overhead_ms"] = out["service_step_ms"] - out["engine_step_ms"]
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tables", type=int, nargs="+", default=[1000, 10000])
    parser.add_argument("--steps", type=int, default=300, help="member submits timed per N")
    parser.add_argument("--background", type=int, default=100, help="tables playing meanwhile")
    parser.add_argument("--no-new-process", action="store_true", help="skip the new-process restart")
    parser.add_argument("--database-url", default=None,
                        help="postgresql://user:pass@host:5432/db: run on PostgreSQL (a new schema per N, dropped "
                             "after); default SQLite in a temporary folder")
    parser.add_argument("--child-restart", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child_restart:
        asyncio.run(_child_restart(args.child_restart))
        return
    if args.database_url and sqlite_path(args.database_url) is None:
        problem = asyncio.run(postgres_problem(args.database_url))
        if problem:
            raise SystemExit(f"--database-url {public_url(args.database_url)}: {problem}")
    final: dict[str, float] = {}
    for n in args.tables:
        res = asyncio.run(run_one(n, steps=args.steps, background=args.background,
                                  new_process=not args.no_new_process, database_url=args.database_url))
        tag = f"{n // 1000}k" if n % 1000 == 0 else str(n)
        print(f"N={n}: " + "  ".join(f"{k}={v:.4g}" for k, v in res.items()), flush=True)
        for k, v in res.items():
            final[f"{k}_{tag}"] = round(v, 4)
    last = args.tables[-1]
    tag = f"{last // 1000}k" if last % 1000 == 0 else str(last)
    for k in ("service_step_ms", "engine_step_ms", "kb_per_table", "restart_s"):
        final[k] = final[f"{k}_{tag}"]
    print(json.dumps(final))


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    try:
        main()
    except KeyboardInterrupt:
        raise SystemExit(130) from None
