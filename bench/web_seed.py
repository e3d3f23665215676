"""Seed a store with many finished games for the web pages' benchmark (:mod:`bench.web`).

``python -m bench.web_seed --games 100000 [--guilds 20] [--members 400] [--db FILE | --postgres URL]``

First a few games of every game are recorded: played to the end through the service
(:class:`bot.house.House`) on a scratch SQLite store, members clicking what the normal AI would
choose, one seat in three an AI player. Then their rows are copied ``--games`` times in all into
the target store, as finished tables of ``--guilds`` servers: the table (seed, rules version,
options, final snapshot), its seats (members of that server, drawn at random, keeping the AI
seats), its whole action log (codes and events), its result and result seats, each copy
finishing 30 seconds after the one before. Last, every server's ratings are computed from those
results in order, as the bot rates (:func:`bot.web.access.rated_results`). Every copied game
replays from its seed and log exactly as the recorded one did.

Rows are written in bulk (SQLite: ``executemany`` in one transaction; PostgreSQL: ``COPY``), into
an empty store migrated to the current schema.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sqlite3
import tempfile
import time
from pathlib import Path
from typing import Any

from bot.games import GAMES
from bot.house import House
from bot.web.access import rated_results
from storage.base import ResultRow, ResultSeat
from storage.factory import open_store

RECORDED_PER_GAME = 4
START = 1_700_000_000.0


class _Clock:
    def __init__(self) -> None:
        self.t = START

    def now(self) -> float:
        self.t += 20
        return self.t


async def record(path: str, per_game: int = RECORDED_PER_GAME) -> None:
    """Play ``per_game`` games of every registered game to the end on the SQLite file ``path``."""
    db = await open_store(path)
    seeds = iter(range(1, 10_000))
    house = House(db, clock=_Clock(), seed_source=lambda: next(seeds), ai_delay=0)
    try:
        for key, spec in GAMES.items():
            game = spec.game
            for i in range(per_game):
                players = min(game.max_players, max(game.min_players, 3))
                members = players - (1 if i % 3 == 1 else 0)
                table = await house.lobbies.open(guild_id=1, channel_id=1, game=key, host_user_id=1, host_name="m1")
                for uid in range(2, members + 1):
                    await house.lobbies.join(table.id, uid, f"m{uid}")
                for _ in range(players - members):
                    await house.lobbies.add_ai(table.id, 1)
                await house.lobbies.start(table.id, 1)
                while True:
                    await house.tables.idle()
                    snap = await house.hall.table(table.id)
                    if snap.row.status != "running":
                        break
                    for seat in sorted(snap.game.to_act(snap.state)):
                        s = snap.seats[seat]
                        if s.user_id is not None and not s.is_ai and seat not in snap.pending:
                            code = snap.game.encode(snap.game.ai_action(snap.state, seat))
                            await house.tables.submit(table.id, s.user_id, snap.state.version, code)
                            break
    finally:
        await house.tables.close()
        await db.close()


def _recorded(path: str) -> list[dict[str, Any]]:
    """The recorded finished games' rows, by table."""
    conn = sqlite3.connect(path)
    conn.row_factory = sqlite3.Row
    out = []
    for t in conn.execute("SELECT * FROM game_tables WHERE status = 'finished' ORDER BY id"):
        tid = t["id"]
        out.append({
            "table": dict(t),
            "seats": [dict(r) for r in conn.execute("SELECT * FROM seats WHERE table_id = ? ORDER BY seat", (tid,))],
            "actions": [dict(r) for r in conn.execute("SELECT * FROM actions WHERE table_id = ? ORDER BY seq", (tid,))],
            "result": dict(conn.execute("SELECT * FROM results WHERE table_id = ?", (tid,)).fetchone()),
            "result_seats": [dict(r) for r in conn.execute("SELECT * FROM result_seats WHERE table_id = ? ORDER BY seat",
                                                            (tid,))],
        })
    conn.close()
    return out


def copies(recorded: list[dict[str, Any]], games: int, guilds: int, members: int, *, first: int = 0,
           seed: int = 1) -> tuple[dict[str, list[tuple[Any, ...]]], list[ResultRow]]:
    """The rows of copies ``first .. games - 1`` of the recorded games (see the module
    docstring), by table name, and the results they make (oldest first)."""
    rows: dict[str, list[tuple[Any, ...]]] = {k: [] for k in ("game_tables", "seats", "actions", "results",
                                                              "result_seats")}
    results = []
    for i in range(first, games):
        rng = random.Random(seed * 1_000_003 + i)
        tid = i + 1
        src = recorded[i % len(recorded)]
        guild = 1000 + i % guilds
        t = src["table"]
        humans = [s for s in src["seats"] if s["user_id"] is not None]
        drawn = rng.sample(range(1, members + 1), len(humans))
        user_of = {s["user_id"]: guild * 10_000 + u for s, u in zip(humans, drawn, strict=True)}
        finished = START + 30.0 * i
        began = finished - (t["updated_at"] - t["created_at"])
        rows["game_tables"].append((tid, guild, 1, None, None, None, t["game"], t["options"], "finished",
                                    user_of[humans[0]["user_id"]], t["lang"], t["seed"], t["version"], t["state"],
                                    began, finished, t["rules_version"], t["action_seq"], t["event_seq"], None, None))
        for s in src["seats"]:
            uid = user_of.get(s["user_id"]) if s["user_id"] is not None else None
            rows["seats"].append((tid, s["seat"], uid, f"Member {uid % 10_000}" if uid else s["name"], s["is_ai"],
                                  s["away"], s["timeouts"], s["ai_level"]))
        for a in src["actions"]:
            rows["actions"].append((tid, a["seq"], a["version"], a["actions"], a["source"],
                                    began + (a["created_at"] - t["created_at"]), a["event_seq"], a["events"]))
        r = src["result"]
        rows["results"].append((tid, guild, r["game"], finished, r["outcome"]))
        seats = []
        for rs in src["result_seats"]:
            uid = user_of.get(rs["user_id"]) if rs["user_id"] is not None else None
            rows["result_seats"].append((tid, rs["seat"], uid, rs["rank"], rs["score"]))
            level = src["seats"][rs["seat"]]["ai_level"]
            seats.append(ResultSeat(rs["seat"], uid, rs["rank"], rs["score"], "", level))
        results.append(ResultRow(tid, r["game"], finished, tuple(seats)))
    return rows, results


def ratings(results: list[ResultRow], guild_of: dict[int, int]) -> list[tuple[Any, ...]]:
    """``ratings`` rows ``(guild, game, user, mu, sigma, played, won)`` from the results in
    order (what the bot stored as they finished; ``guild_of[table_id]``)."""
    by_place: dict[tuple[int, str], list[ResultRow]] = {}
    for r in results:
        by_place.setdefault((guild_of[r.table_id], r.game), []).append(r)
    rows = []
    for (guild, game), found in by_place.items():
        last: dict[int, list[Any]] = {}
        for _, user, mu, sigma, won in rated_results(found):
            old = last.get(user, [0, 0, 0, 0])
            last[user] = [mu, sigma, old[2] + 1, old[3] + won]
        rows += [(guild, game, u, v[0], v[1], v[2], v[3]) for u, v in last.items()]
    return rows


#: Copies written per batch (bounded memory whatever ``--games``).
BATCH = 5_000
ORDER = ("game_tables", "seats", "actions", "results", "result_seats")
#: The columns the copies fill, by table (the others keep their defaults: a later migration's
#: columns, such as a table's pace or a rating's season, take the value it gives old rows).
COLUMNS: dict[str, tuple[str, ...]] = {
    "game_tables": ("id", "guild_id", "channel_id", "thread_id", "lobby_message_id", "board_message_id", "game",
                    "options", "status", "host_user_id", "lang", "seed", "version", "state", "created_at",
                    "updated_at", "rules_version", "action_seq", "event_seq", "turn_due", "turn_timer"),
    "seats": ("table_id", "seat", "user_id", "name", "is_ai", "away", "timeouts", "ai_level"),
    "actions": ("table_id", "seq", "version", "actions", "source", "created_at", "event_seq", "events"),
    "results": ("table_id", "guild_id", "game", "finished_at", "outcome"),
    "result_seats": ("table_id", "seat", "user_id", "rank", "score"),
    "ratings": ("guild_id", "game", "user_id", "mu", "sigma", "played", "won"),
}


async def seed_store(url: str, games: int, guilds: int = 20, members: int = 400) -> dict[str, int]:
    """Record the games, copy them into the empty store ``url`` (migrated first) in batches,
    then its ratings; row counts by table."""
    with tempfile.TemporaryDirectory() as scratch:
        path = str(Path(scratch) / "recorded.db")
        await record(path)
        recorded = _recorded(path)
    db = await open_store(url)
    await db.close()
    counts = dict.fromkeys((*ORDER, "ratings"), 0)
    results: list[ResultRow] = []
    pg: Any = None
    conn: sqlite3.Connection | None = None
    if url.startswith("postgresql"):
        import asyncpg

        pg = await asyncpg.connect(url)
    else:
        conn = sqlite3.connect(url.removeprefix("sqlite:///"))
    try:
        for first in range(0, games, BATCH):
            rows, made = copies(recorded, min(games, first + BATCH), guilds, members, first=first)
            results += made
            await _write(pg, conn, rows)
            for k, v in rows.items():
                counts[k] += len(v)
        rated = {"ratings": ratings(results, {i + 1: 1000 + i % guilds for i in range(games)})}
        await _write(pg, conn, rated)
        counts["ratings"] = len(rated["ratings"])
        if pg is not None:
            await pg.execute("SELECT setval(pg_get_serial_sequence('game_tables', 'id'), $1)", games + 1)
            await pg.execute("ANALYZE")
        elif conn is not None:
            conn.execute("ANALYZE")
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        if pg is not None:
            await pg.close()
        if conn is not None:
            conn.close()
    return counts


async def _write(pg: Any, conn: sqlite3.Connection | None, rows: dict[str, list[tuple[Any, ...]]]) -> None:
    if pg is not None:
        async with pg.transaction():
            for name, values in rows.items():
                await pg.copy_records_to_table(name, records=values, columns=list(COLUMNS[name]))
        return
    assert conn is not None
    with conn:
        for name, values in rows.items():
            if values:
                names = COLUMNS[name]
                conn.executemany(f"INSERT INTO {name} ({', '.join(names)}) VALUES ({', '.join('?' * len(names))})",
                                 values)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.web_seed", description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--guilds", type=int, default=20)
    parser.add_argument("--members", type=int, default=400)
    parser.add_argument("--db", help="a new SQLite file")
    parser.add_argument("--postgres", help="an empty PostgreSQL database's URL")
    args = parser.parse_args(argv)
    url = args.postgres or args.db
    if not url:
        parser.error("give --db FILE or --postgres URL")
    started = time.perf_counter()
    counts = asyncio.run(seed_store(url, args.games, args.guilds, args.members))
    print(f"seeded {counts} in {time.perf_counter() - started:.1f} s")


if __name__ == "__main__":
    main()
