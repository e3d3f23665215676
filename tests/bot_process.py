"""A Speakeasy bot process in its own simulated Discord, driven over stdin/stdout: the entry
point of the multi-process tests (``tests/test_shards.py``).

``python -m tests.bot_process --db URL --world FILE --shard-count 2 --shard-ids 0 --guild-shard 0``
opens the offline harness world (``tests/harness``; with ``--restore``, the world saved in FILE,
as the real Discord outlives a killed bot process), adds one guild on shard ``--guild-shard``,
starts a real :class:`bot.client.SpeakeasyBot` running those shards on the database, and answers
one JSON object per line on stdin with one JSON line on stdout (logs go to stderr). After every
command the world is saved to FILE, so a ``kill -9`` loses nothing Discord would have kept.

Commands (``{"op": ..., ...}``; the answer is ``{"ok": true, ...}`` or ``{"ok": false, "error": ...}``):

- ``member`` {name}: the member ``name`` of the guild (created once) -> {id}
- ``open`` {host, game, ai, members}: ``/play``, joins, AI players, Start -> {table}
- ``turn`` {member, table, code?}: if the member must act, open their panel and click the AI's
  choice (or ``code``) -> {acted}
- ``play`` {members, table, limit}: turns until the table is no longer running -> {status, turns}
- ``table`` {table}: the table as this process's service reads it -> {status, version, to_act}
  or {error_key} (a :class:`bot.service.ServiceError`)
- ``owned``: what this process holds -> {live, index, timers} (table ids, timer keys)
- ``leaderboard`` {member, game}: ``/leaderboard`` -> {text}
- ``advance`` {seconds}: the simulated clock moves on (deadlines fire)
- ``quit``: stop the bot and close the world (the exit status is 1 if the bot logged errors)

SIGTERM stops the bot as it stops a real one (:meth:`bot.client.SpeakeasyBot.stop_on_signal`),
then the process ends once its standard input is closed.

Chance: ``--stocks N`` deals Gang of Dice with N dice per player (``scripted_setup``), so a game
lasts a few rounds; the seed is fixed (``--seed``).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import random
import signal
import sys
from pathlib import Path
from typing import Any

from bot.games import GAMES
from bot.service import ServiceError
from engine.core import IllegalAction
from engine.gang_of_dice import scripted_setup
from tests.e2e import bot_factory, open_table, take_turn
from tests.harness import DiscordWorld, ImpossibleAction


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m tests.bot_process")
    parser.add_argument("--db", required=True, help="the store: a SQLite file or a postgresql:// URL")
    parser.add_argument("--world", required=True, help="where the simulated Discord is saved")
    parser.add_argument("--restore", action="store_true", help="open the world saved in --world")
    parser.add_argument("--shard-count", type=int, required=True)
    parser.add_argument("--shard-ids", required=True)
    parser.add_argument("--guild-shard", type=int, default=None, help="the shard of the world's guild")
    parser.add_argument("--stocks", type=int, default=3)
    parser.add_argument("--seed", type=int, default=7)
    return parser.parse_args(argv)


class Process:
    """The world, the bot and the command handlers of one bot process."""

    def __init__(self, args: argparse.Namespace, world: DiscordWorld) -> None:
        self.args = args
        self.world = world
        self.rng = random.Random(args.seed)

    @property
    def bot(self) -> Any:
        return self.world.bot

    async def handle(self, cmd: dict[str, Any]) -> dict[str, Any]:
        op = cmd["op"]
        world = self.world
        if op == "member":
            return {"id": world.member(cmd["name"]).id}
        if op == "open":
            host = world.member(cmd["host"])
            members = [world.member(n) for n in cmd.get("members", [])]
            tid = await open_table(world, host, cmd["game"], members=members, ai=cmd.get("ai", 0))
            return {"table": tid}
        if op == "turn":
            try:
                acted = await take_turn(world, world.member(cmd["member"]), cmd["table"], self.rng,
                                        code=cmd.get("code"))
            except (IllegalAction, ImpossibleAction):  # the table moved (another process) meanwhile: the
                # helper's choice or control is not on the panel drawn a moment before
                return {"acted": False, "moved": True}
            return {"acted": acted}
        if op == "play":
            members = [world.member(n) for n in cmd["members"]]
            turns = 0
            for _ in range(cmd.get("limit", 500)):
                table = await self.bot.hall.table(cmd["table"])
                if table.row.status != "running":
                    return {"status": table.row.status, "turns": turns}
                acted = False
                for m in members:
                    acted = await take_turn(world, m, cmd["table"], self.rng) or acted
                turns += acted
                if not acted:
                    await self.bot.tables.idle()
                    await world.settle()
            table = await self.bot.hall.table(cmd["table"])
            return {"status": table.row.status, "turns": turns}
        if op == "table":
            try:
                table = await self.bot.hall.table(cmd["table"])
            except ServiceError as exc:
                return {"error_key": exc.key}
            return {"status": table.row.status, "version": table.version, "guild": table.row.guild_id,
                    "to_act": sorted(table.to_act()) if table.state is not None else []}
        if op == "owned":
            hall = self.bot.hall
            held = hall.held()
            return {"live": sorted(held["live"]), "index": sorted(held["index"]),
                    "timers": sorted(self.bot.timers.keys())}
        if op == "leaderboard":
            res = await world.slash(world.member(cmd["member"]), "leaderboard", game=cmd["game"])
            return {"text": res.response.text() if res.response is not None else ""}
        if op == "advance":
            await world.advance(cmd["seconds"])
            return {}
        if op == "idle":
            await self.bot.tables.idle()
            await world.settle()
            return {}
        raise ValueError(f"unknown op {op!r}")


async def main(argv: list[str]) -> int:
    args = parse_args(argv)
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr, format=f"[bot {args.shard_ids}] %(levelname)s %(name)s: %(message)s")
    stocks = args.stocks
    GAMES["gang-of-dice"].game.setup = (  # type: ignore[method-assign]
        lambda seed, players, options=None: scripted_setup(players, stocks=[stocks] * players, seed=seed))
    shard = (args.guild_shard, args.shard_count) if args.guild_shard is not None else None
    world_file = Path(args.world)
    out = sys.stdout
    status = 0
    async with DiscordWorld(guild_shard=None if args.restore else shard,
                            restore=world_file if args.restore else None) as world:
        factory = bot_factory(Path("unused.db"), [args.seed], database_url=args.db, shard_count=args.shard_count,
                              shard_ids=args.shard_ids)
        bot = await world.start_bot(factory)
        await bot.tables.idle()  # type: ignore[attr-defined]
        world.save(world_file)
        hall = bot.hall  # type: ignore[attr-defined]
        out.write(json.dumps({"ready": True, "guild": world.guild_id, "resumed": sorted(hall.held()["live"] | hall.held()["index"])}) + "\n")
        out.flush()
        proc = Process(args, world)
        loop = asyncio.get_running_loop()
        stop = asyncio.Event()

        def on_term() -> None:
            bot.stop_on_signal()  # type: ignore[attr-defined]
            stop.set()

        loop.add_signal_handler(signal.SIGTERM, on_term)
        stopping = asyncio.ensure_future(stop.wait())
        while True:
            reading = loop.run_in_executor(None, sys.stdin.readline)
            await asyncio.wait({reading, stopping}, return_when=asyncio.FIRST_COMPLETED)
            if stop.is_set():
                break
            line = reading.result()
            if not line:
                break
            cmd = json.loads(line)
            if cmd.get("op") == "quit":
                break
            try:
                answer = {"ok": True, **await proc.handle(cmd)}
            except Exception as exc:  # reported to the test, which fails on it
                logging.exception("command %s failed", cmd)
                answer = {"ok": False, "error": f"{type(exc).__name__}: {exc}"}
            world.save(world_file)
            out.write(json.dumps(answer) + "\n")
            out.flush()
        try:
            await world.stop_bot()
        except Exception:
            logging.exception("stopping the bot failed")
            status = 1
    return status


if __name__ == "__main__":
    try:
        sys.exit(asyncio.run(main(sys.argv[1:])))
    except Exception:
        logging.exception("the bot process failed")
        sys.exit(1)
