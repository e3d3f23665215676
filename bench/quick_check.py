"""What the integrity check costs when a SQLite store opens, on a file of many finished games.

    .venv/bin/python -m bench.quick_check [--games 100000] [--file PATH] [--runs 3]

Builds (or reuses, when ``--file`` exists with that many games) a SQLite store holding
``--games`` finished games: one real game of each kind is played through the
:class:`bot.house.House` (a member and AI players, the member playing the AI's move),
and its rows (the table and its final snapshot, seats, action log with the steps' events, the
opening events, the result and its seats) are copied with new ids, members and guilds, round
robin over the four games; ratings are kept per member and game. Then it times, median of
``--runs``:

- ``quick_check``: ``PRAGMA quick_check`` alone on a new connection, with the file in the
  operating system's page cache (``warm``) and after asking the system to drop it from the cache
  (``cold``: ``posix_fadvise(DONTNEED)``; a disk, not memory, then);
- ``open``: :func:`storage.factory.open_store` on that file (the check included, migrations
  none), warm.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bot.games import GAMES
from bot.house import House
from storage.factory import open_store

CHUNK = 2000  # games a transaction
MEMBERS = 20_000
GUILDS = 50


async def real_games(seed: int = 7) -> dict[str, dict[str, list[dict[str, Any]]]]:
    """One finished game per kind, as rows: ``{game: {table: [row, ...]}}``."""
    path = Path(tempfile.mkdtemp()) / "one.db"
    db = await open_store(path)
    seeds = iter(range(seed, seed + 10**6))
    svc = House(db, ai_delay=0, turn_timeout=10**6, seed_source=lambda: next(seeds))
    ids = {}
    try:
        for key, spec in GAMES.items():
            game = spec.game
            table = await svc.lobbies.open(guild_id=1, channel_id=1, game=key, host_user_id=1, host_name="Host")
            for _ in range(min(max(game.min_players, 3), game.max_players) - 1):
                await svc.lobbies.add_ai(table.id, 1)
            await svc.lobbies.start(table.id, 1)
            for _ in range(5000):
                await svc.tables.idle()
                view = await svc.hall.table(table.id)
                if view.row.status != "running":
                    break
                if 0 in view.waiting_for():
                    await svc.tables.submit(table.id, 1, view.version, game.encode(game.ai_action(view.state, 0)))
            ids[key] = table.id
    finally:
        await svc.tables.close()
        await db.close()
    conn = sqlite3.connect(path)
    conn.row_factory = sqlite3.Row
    out: dict[str, dict[str, list[dict[str, Any]]]] = {}
    for key, tid in ids.items():
        out[key] = {}
        for table, column in (("game_tables", "id"), ("seats", "table_id"), ("actions", "table_id"),
                              ("events", "table_id"), ("results", "table_id"), ("result_seats", "table_id")):
            out[key][table] = [dict(r) for r in conn.execute(f"SELECT * FROM {table} WHERE {column} = ?", (tid,))]
        if out[key]["game_tables"][0]["status"] != "finished":
            raise RuntimeError(f"the {key} game did not finish")
    conn.close()
    return out


def _insert(conn: sqlite3.Connection, table: str, rows: list[dict[str, Any]]) -> None:
    if rows:
        cols = list(rows[0])
        conn.executemany(f"INSERT INTO {table} ({', '.join(cols)}) VALUES ({', '.join('?' * len(cols))})",
                         [tuple(r[c] for c in cols) for r in rows])


def build(path: Path, games: int, models: dict[str, dict[str, list[dict[str, Any]]]]) -> None:
    """Write ``games`` copies of ``models`` into the (migrated, empty) store at ``path``."""
    keys = list(models)
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA synchronous=OFF")
    for start in range(0, games, CHUNK):
        conn.execute("BEGIN")
        batch: dict[str, list[dict[str, Any]]] = {}
        for i in range(start, min(games, start + CHUNK)):
            key, tid = keys[i % len(keys)], i + 1
            member, guild = 10**17 + i % MEMBERS, 10**18 + i % GUILDS
            model = models[key]
            for table, rows in model.items():
                for row in rows:
                    copy = dict(row)
                    copy["id" if table == "game_tables" else "table_id"] = tid
                    if "guild_id" in copy:
                        copy["guild_id"] = guild
                    if table == "game_tables":
                        copy["host_user_id"] = member
                        copy["channel_id"] = guild + 1
                    if copy.get("user_id") == 1:
                        copy["user_id"] = member
                    batch.setdefault(table, []).append(copy)
            batch.setdefault("ratings", []).append({"guild_id": guild, "game": key, "user_id": member, "mu": 25.0,
                                                    "sigma": 8.0, "played": 1, "won": 0})
        for table in ("game_tables", "seats", "actions", "events", "results", "result_seats"):
            _insert(conn, table, batch.get(table, []))
        conn.executemany("INSERT INTO ratings (guild_id, game, user_id, mu, sigma, played, won)"
                         " VALUES (:guild_id, :game, :user_id, :mu, :sigma, :played, :won)"
                         " ON CONFLICT (guild_id, game, user_id) DO UPDATE SET played = played + 1",
                         batch["ratings"])
        conn.execute("COMMIT")
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()


def _drop_from_cache(path: Path) -> None:
    for name in (str(path), f"{path}-wal"):
        if os.path.exists(name):
            fd = os.open(name, os.O_RDONLY)
            try:
                os.fsync(fd)
                os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
            finally:
                os.close(fd)


def quick_check_seconds(path: Path, *, cold: bool) -> float:
    if cold:
        _drop_from_cache(path)
    else:
        with open(path, "rb") as f:  # read it once: in the page cache
            while f.read(1 << 24):
                pass
    conn = sqlite3.connect(path)
    try:
        start = time.perf_counter()
        verdict = conn.execute("PRAGMA quick_check(1)").fetchone()[0]
        took = time.perf_counter() - start
    finally:
        conn.close()
    if verdict != "ok":
        raise RuntimeError(f"quick_check: {verdict}")
    return took


async def open_seconds(path: Path) -> float:
    start = time.perf_counter()
    db = await open_store(path)
    took = time.perf_counter() - start
    await db.close()
    return took


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.quick_check", description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=100_000, help="finished games in the file (default 100000)")
    parser.add_argument("--file", type=Path, help="the store to build or reuse (default: a temporary file)")
    parser.add_argument("--runs", type=int, default=3, help="timings of each kind; the median is shown")
    args = parser.parse_args(argv)
    path = args.file or Path(tempfile.mkdtemp()) / "finished.db"
    count = 0
    if path.exists():
        conn = sqlite3.connect(path)
        count = conn.execute("SELECT count(*) FROM game_tables WHERE status = 'finished'").fetchone()[0]
        conn.close()
    if count != args.games:
        for suffix in ("", "-wal", "-shm"):
            Path(f"{path}{suffix}").unlink(missing_ok=True)
        started = time.perf_counter()
        models = asyncio.run(real_games())
        asyncio.run(open_seconds(path))  # the schema
        build(path, args.games, models)
        print(f"built {path} in {time.perf_counter() - started:.0f} s", file=sys.stderr)
    conn = sqlite3.connect(path)
    pages, size = conn.execute("PRAGMA page_count").fetchone()[0], conn.execute("PRAGMA page_size").fetchone()[0]
    rows = {t: conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in ("game_tables", "actions", "events")}
    conn.close()
    print(f"{args.games} finished games: {pages * size / 2**20:.0f} MiB ({pages} pages), "
          f"{rows['actions']} action-log rows, {rows['events']} event rows")
    warm = statistics.median(quick_check_seconds(path, cold=False) for _ in range(args.runs))
    cold = statistics.median(quick_check_seconds(path, cold=True) for _ in range(args.runs))
    opened = statistics.median(asyncio.run(open_seconds(path)) for _ in range(args.runs))
    print(f"quick_check warm {warm * 1000:.0f} ms, cold {cold * 1000:.0f} ms; open_store (check included, warm) "
          f"{opened * 1000:.0f} ms; median of {args.runs}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
