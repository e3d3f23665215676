"""The web pages' speed on a store of many finished games (:mod:`bench.web_seed` seeds it).

``python -m bench.web --db FILE | --postgres URL [--requests 200] [--seed-games N]``

Serves the pages in this process (``aiohttp``, the bot's own :func:`web.server.make_app`) and
requests them over HTTP from a client in the same process, one at a time, timing each from the
request to the last byte: p50 and p95 in milliseconds for

- ``leaderboard``: a random server and game, first page;
- ``profile``: a random ranked member, the rating history of their most played game already
  computed (``profile cold``: the first profile of a server and game, which replays that
  server's results of the game: reported apart);
- ``game page``: a random finished table seen for the first time (its replay computed from seed
  and log: what a link from Discord costs), then ``game page again``;
- ``replay step``: a board picture already drawn (cached); ``replay step cold``: its first
  drawing, reported apart.

``cpu ms`` is this process's CPU time per request (server and client together): on a busy
machine the wall-clock times include the waits for a core, the CPU time does not.

``--seed-games N`` seeds the (empty) store first with :func:`bench.web_seed.seed_store`.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import time
from collections.abc import Awaitable, Callable
from typing import Any

from aiohttp.test_utils import TestClient, TestServer

from bench.stats import quantile
from bot.games import GAMES
from bot.web.access import RatingHistory, WebDefaults
from bot.web.replay import Replays
from storage.factory import open_store
from web.server import RateLimit, WebContext, make_app


def _p(values: list[float], q: float) -> float:
    """The ``q`` quantile of ``values`` (seconds) in milliseconds (:func:`bench.stats.quantile`)."""
    return quantile(values, q) * 1000


#: CPU seconds of this process per request, by kind (the server and the client together)
CPU: dict[str, float] = {}


async def _timed(n: int, one: Callable[[int], Awaitable[Any]]) -> list[float]:
    out = []
    cpu = time.process_time()
    for i in range(n):
        started = time.perf_counter()
        await one(i)
        out.append(time.perf_counter() - started)
    CPU[f"_{len(CPU)}"] = (time.process_time() - cpu) / max(1, n)
    return out


async def run(url: str, requests: int, seed: int = 1) -> dict[str, list[float]]:
    """The timings of each kind of request (seconds)."""
    rng = random.Random(seed)
    db = await open_store(url)
    ctx = WebContext(db=db, defaults=WebDefaults(public=True), replays=Replays(), history=RatingHistory(),
                     min_games=3)
    client = TestClient(TestServer(make_app(ctx, RateLimit(10**9, 10**9))))
    await client.start_server()
    try:
        guilds = sorted({r.guild_id for r in await db.tables_with_status("running")}) or list(range(1000, 1020))
        total = 0
        while await db.get_table(total + 1) is not None and total < 10**7:
            total = total * 2 + 1 if total < 1000 else total + 1000
        while total and await db.get_table(total) is None:
            total -= 1
        keys = list(GAMES)

        async def get(path: str, status: int = 200) -> bytes:
            response = await client.get(path)
            body = await response.read()
            assert response.status == status, (path, response.status)
            return body

        times: dict[str, list[float]] = {}
        times["leaderboard"] = await _timed(requests, lambda i: get(
            f"/g/{rng.choice(guilds)}/lb/{rng.choice(keys)}"))
        # members: the leaders of each server's games
        members: list[tuple[int, int, str]] = []
        for g in guilds:
            for k in keys:
                _, rows = await db.leaderboard_page(g, k, 1, 20, 0)
                members += [(g, r.user_id, k) for r in rows]
        cold_pairs = sorted({(g, k) for g, _, k in members})
        rng.shuffle(cold_pairs)
        firsts = {}
        for g, u, k in members:
            firsts.setdefault((g, k), u)
        times["profile cold"] = await _timed(min(requests, len(cold_pairs)), lambda i: get(
            f"/g/{cold_pairs[i][0]}/u/{firsts[cold_pairs[i]]}?game={cold_pairs[i][1]}"))
        times["profile"] = await _timed(requests, lambda i: get(
            "/g/{}/u/{}?game={}".format(*rng.choice(members))))
        tables = rng.sample(range(1, total + 1), min(requests, total))
        rows = {t: await db.get_table(t) for t in tables}
        times["game page"] = await _timed(len(tables), lambda i: get(f"/g/{rows[tables[i]].guild_id}/t/{tables[i]}"))
        times["game page again"] = await _timed(len(tables), lambda i: get(
            f"/g/{rows[tables[i]].guild_id}/t/{tables[i]}?step=1"))
        steps = [(t, rng.randrange(0, rows[t].action_seq + 1)) for t in tables]
        times["replay step cold"] = await _timed(len(steps), lambda i: get(
            f"/g/{rows[steps[i][0]].guild_id}/t/{steps[i][0]}/{steps[i][1]}.png?lang=en"))
        times["replay step"] = await _timed(len(steps), lambda i: get(
            f"/g/{rows[steps[i][0]].guild_id}/t/{steps[i][0]}/{steps[i][1]}.png?lang=en"))
        times["_games"] = [float(total)]
        return times
    finally:
        await client.close()
        await db.close()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.web", description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", help="a SQLite file")
    parser.add_argument("--postgres", help="a PostgreSQL URL")
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--seed-games", type=int, default=0, help="seed the empty store with this many games first")
    args = parser.parse_args(argv)
    url = args.postgres or args.db
    if not url:
        parser.error("give --db FILE or --postgres URL")
    if args.seed_games:
        from bench.web_seed import seed_store

        started = time.perf_counter()
        counts = asyncio.run(seed_store(url, args.seed_games))
        print(f"seeded {counts} in {time.perf_counter() - started:.0f} s")
    times = asyncio.run(run(url, args.requests))
    print(f"{int(times.pop('_games')[0]):,} finished games, {'PostgreSQL' if args.postgres else 'SQLite'}")
    print(f"{'request':<20} {'n':>5} {'p50 ms':>8} {'p95 ms':>8} {'mean ms':>8} {'cpu ms':>8}")
    for (name, values), cpu in zip(times.items(), CPU.values(), strict=True):
        print(f"{name:<20} {len(values):>5} {_p(values, 0.5):>8.1f} {_p(values, 0.95):>8.1f} "
              f"{statistics.fmean(values) * 1000:>8.1f} {cpu * 1000:>8.1f}")


if __name__ == "__main__":
    main()
