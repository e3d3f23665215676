"""Soak benchmark: many tables played through the Discord layer, and what the process holds before
and after.

    .venv/bin/python -m bench.soak [--tables 100] [--concurrent 25] [--warmup 4]
                                   [--pictures on|off] [--render-workers 1] [--database-url URL]

The bot is the real one (cogs, discord.py's dispatch, services, store, pictures drawn in their
worker processes) over the light fake Discord transport, stepped
(:class:`tests.harness.stepped.SteppedBot`; needs the test extras): each table is opened by a
member through ``/play``, "AI +" and "Start"; the member never acts, so the turn deadlines
(reminder, timeout: the AI acts for them, then away: the AI plays their seat) take the table to
its end. The clock moves from one deadline to the next; between two, every AI move, board edit
and picture runs to its end. The four games are mixed round robin; at most ``--concurrent``
tables run at once, a finished one is replaced by a new one.

``--warmup`` tables are played first (first-time costs: imports, catalogs, the picture worker,
the AI pool), then the figures are taken ("before"), the ``--tables`` are played, and the
figures are taken again ("after"): the process's resident set (RSS) and Python heap
(``tracemalloc``), open file descriptors, asyncio tasks, and every per-table structure of the
bot (:meth:`SteppedBot.census`: the hall's locks and caches, timers, AI drivers, foreground,
board edit queues, pings and pictures, panel picture edits, discord.py's view store). It prints
one line per figure (before, after, change) and ends with one JSON line; ``back_to_start`` lists
the per-table structures that did not come back to their starting size (empty when all did);
discord.py's views with a timeout (``discord.timed_views``: a level picker, kept for the 15
minutes its ephemeral message lives) and the caches bounded by their own limit (``cache.*``:
discord.py's message cache) are shown but not counted there.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path
from typing import Any

from bot.games import GAMES
from tests.harness.stepped import SteppedBot, process_figures

#: Figures that are not per-table structures (they may move a little and are reported as is).
PROCESS_KEYS = ("rss_kb", "heap_kb", "fds")
#: Structures that empty on a timer of their own, not when a table ends: discord.py keeps an
#: ephemeral message's view (a level picker) until its timeout, in real time.
TIMED_KEYS = ("discord.timed_views",)


def ai_for(game: str) -> int:
    """AI players beside the host: enough for the game's minimum, at least one."""
    return max(1, GAMES[game].game.min_players - 1)


async def play(rig: SteppedBot, count: int, concurrent: int, first_host: int) -> int:
    """Open ``count`` tables (at most ``concurrent`` running at once) and step until every one
    ended; returns the number of clock steps taken."""
    games = sorted(GAMES)
    opened = 0
    steps = rig.steps
    while opened < count or rig.running:
        while opened < count and len(rig.running) < concurrent:
            game = games[opened % len(games)]
            await rig.open_table(game, host=first_host + opened % concurrent, ai=ai_for(game))
            opened += 1
        if rig.running and not await rig.step():
            raise AssertionError(f"tables {sorted(rig.running)} still run with no timer left")
    return rig.steps - steps


async def soak(tables: int, concurrent: int, warmup: int, pictures: bool, render_workers: int,
               database: str | None) -> dict[str, Any]:
    """Run the soak; returns the summary (see the module's docstring)."""
    tracemalloc.start()
    with tempfile.TemporaryDirectory() as tmp:
        rig = await SteppedBot.start(database or Path(tmp) / "soak.db", pictures=pictures,
                                     render_workers=render_workers)
        try:
            await play(rig, warmup, concurrent, 0)
            before = {**rig.census(), **process_figures()}
            start = time.perf_counter()
            steps = await play(rig, tables, concurrent, 1000)
            seconds = time.perf_counter() - start
            after = {**rig.census(), **process_figures()}
            statuses: dict[str, int] = {}
            for tid in rig.finished:
                status = (await rig.bot.hall.table(tid)).row.status
                statuses[status] = statuses.get(status, 0) + 1
        finally:
            await rig.close()
    grown = sorted(k for k in before
                   if k not in PROCESS_KEYS + TIMED_KEYS and not k.startswith("cache.") and after[k] > before[k])
    return {"tables": tables, "warmup": warmup, "concurrent": concurrent, "pictures": pictures,
            "seconds": round(seconds, 1), "steps": steps, "statuses": statuses,
            "before": before, "after": after, "back_to_start": grown,
            "heap_kb_per_table": round((after["heap_kb"] - before["heap_kb"]) / max(1, tables), 2),
            "rss_kb_per_table": round((after["rss_kb"] - before["rss_kb"]) / max(1, tables), 2)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tables", type=int, default=100)
    parser.add_argument("--concurrent", type=int, default=25)
    parser.add_argument("--warmup", type=int, default=4)
    parser.add_argument("--pictures", choices=("on", "off"), default="on")
    parser.add_argument("--render-workers", type=int, default=1)
    parser.add_argument("--database-url", default=None, help="a SQLite path or a PostgreSQL URL (default: a temp file)")
    args = parser.parse_args(argv)
    if args.tables < 1 or args.concurrent < 1 or args.warmup < 0:
        parser.error("--tables and --concurrent must be at least 1, --warmup at least 0")
    summary = asyncio.run(soak(args.tables, args.concurrent, args.warmup, args.pictures == "on",
                               args.render_workers, args.database_url))
    before, after = summary["before"], summary["after"]
    print(f"soak: {summary['tables']} tables ({summary['concurrent']} at once, pictures "
          f"{'on' if summary['pictures'] else 'off'}) in {summary['seconds']} s, {summary['steps']} clock steps, "
          f"ended {summary['statuses']}")
    for key in before:
        change = after[key] - before[key]
        print(f"  {key:24} {before[key]:>10} -> {after[key]:>10}  ({change:+})")
    print(f"  heap per table {summary['heap_kb_per_table']} KB, RSS per table {summary['rss_kb_per_table']} KB; "
          f"back to start: {'all' if not summary['back_to_start'] else 'not ' + ', '.join(summary['back_to_start'])}")
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
