"""Two real bot processes on one database, each running some shards (``tests/bot_process.py``:
a SpeakeasyBot in its own simulated Discord, driven over stdin/stdout).

- Shard 0 and shard 1 of 2, a guild on each, a Gang of Dice game on each through real gateway
  payloads. Process 0 is killed (SIGKILL) mid-game and restarted: it resumes its own table only,
  the other process never holds it, and both results land on their own guild's leaderboard.
  On both backends: a SQLite file (WAL: the processes share it) and PostgreSQL (``[postgres]``,
  skipped without ``TEST_DATABASE_URL``; required in CI).
- A misconfiguration: two processes both run shard 0 and act on one table at the same time; the
  version compare-and-set keeps its log and state consistent.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from storage.factory import open_store
from tests.catalog import says

ROOT = Path(__file__).parents[1]


class BotProcess:
    """One ``python -m tests.bot_process`` subprocess: :meth:`ask` sends a command and reads
    its answer (an ``"ok": false`` answer fails the test)."""

    def __init__(self, tmp: Path, db: str, name: str, shard_ids: str, *, guild_shard: int | None = None,
                 restore: bool = False, shard_count: int = 2, stocks: int = 2) -> None:
        self.name = name
        self.world = tmp / f"{name}.world"
        args = [sys.executable, "-m", "tests.bot_process", "--db", str(db), "--world", str(self.world),
                "--shard-count", str(shard_count), "--shard-ids", shard_ids, "--stocks", str(stocks)]
        if guild_shard is not None:
            args += ["--guild-shard", str(guild_shard)]
        if restore:
            args.append("--restore")
        self.stderr = open(tmp / f"{name}.log", "a")  # noqa: SIM115  # closed in stop()
        self.proc = subprocess.Popen(args, cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=self.stderr, text=True,
                                     env={**os.environ, "PYTHONPATH": str(ROOT)})
        self._ready: dict[str, Any] | None = None

    @property
    def ready(self) -> dict[str, Any]:
        """The start-up line (``guild``, ``resumed`` table ids), waited for on first use."""
        if self._ready is None:
            self._ready = self._read()
            assert self._ready.get("ready"), self._ready
        return self._ready

    def _read(self) -> dict[str, Any]:
        line = self.proc.stdout.readline()  # type: ignore[union-attr]
        if not line:
            raise AssertionError(f"bot process {self.name} ended: see {self.stderr.name}\n"
                                 + Path(self.stderr.name).read_text()[-3000:])
        return json.loads(line)

    def send(self, **cmd: Any) -> None:
        self.proc.stdin.write(json.dumps(cmd) + "\n")  # type: ignore[union-attr]
        self.proc.stdin.flush()  # type: ignore[union-attr]

    def receive(self) -> dict[str, Any]:
        assert self.ready
        answer = self._read()
        assert answer.pop("ok"), f"{self.name}: {answer}"
        return answer

    def ask(self, **cmd: Any) -> dict[str, Any]:
        self.send(**cmd)
        return self.receive()

    def kill(self) -> None:
        """SIGKILL: no clean-up at all (the world was saved after the last command)."""
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)
        self.stderr.close()

    def stop(self) -> int:
        """Quit cleanly; the exit status (1 when the bot logged errors)."""
        if self.proc.poll() is None:
            self.send(op="quit")
            self.proc.wait(30)
        self.stderr.close()
        return self.proc.returncode

    def errors(self) -> str:
        return Path(self.stderr.name).read_text()


@pytest.fixture
def procs():
    """Every process started by a test; killed at the end if still running."""
    started: list[BotProcess] = []
    yield started
    for p in started:
        if p.proc.poll() is None:
            p.proc.kill()
            p.proc.wait(10)
        if not p.stderr.closed:
            p.stderr.close()


async def read_db(url: str, fn):
    db = await open_store(url)
    try:
        return await fn(db)
    finally:
        await db.close()


async def test_two_shards_two_processes_one_database_kill_and_resume(tmp_path, procs, db_url):
    db = db_url
    p0 = BotProcess(tmp_path, db, "shard0", "0", guild_shard=0)
    procs.append(p0)
    p1 = BotProcess(tmp_path, db, "shard1", "1", guild_shard=1)
    procs.append(p1)
    g0, g1 = p0.ready["guild"], p1.ready["guild"]
    assert ((g0 >> 22) % 2, (g1 >> 22) % 2) == (0, 1)
    alice = p0.ask(op="member", name="alice")["id"]
    bob = p1.ask(op="member", name="bob")["id"]

    t0 = p0.ask(op="open", host="alice", game="gang-of-dice", ai=1)["table"]
    t1 = p1.ask(op="open", host="bob", game="gang-of-dice", ai=1)["table"]
    assert t0 != t1
    # a step on each table, then process 0 dies in the middle of its game
    for p, member, table in ((p0, "alice", t0), (p1, "bob", t1)):
        assert p.ask(op="turn", member=member, table=table)["acted"]
    mid = p0.ask(op="table", table=t0)
    assert mid["status"] == "running" and mid["version"] > 0
    assert p1.ask(op="table", table=t0) == {"error_key": "err.not_owned"}
    assert p0.ask(op="table", table=t1) == {"error_key": "err.not_owned"}
    p0.kill()

    # the other shard plays on while process 0 is down, and never picks its table up
    assert p1.ask(op="play", members=["bob"], table=t1)["status"] == "finished"
    held = p1.ask(op="owned")
    assert t0 not in held["live"] + held["index"] and f"turn:{t0}" not in held["timers"]

    # restarted on the same database (and the same Discord: the world saved before the kill)
    p0 = BotProcess(tmp_path, db, "shard0", "0", restore=True)
    procs.append(p0)
    assert p0.ready["resumed"] == [t0]
    assert p0.ask(op="table", table=t0)["version"] == mid["version"]  # nothing lost, nothing redone
    assert p0.ask(op="owned")["timers"] == [f"turn:{t0}"]
    assert p0.ask(op="play", members=["alice"], table=t0)["status"] == "finished"
    held = p1.ask(op="owned")
    assert t0 not in held["live"] + held["index"]

    # each result on its own guild's leaderboard
    board0 = p0.ask(op="leaderboard", member="alice", game="gang-of-dice")["text"]
    board1 = p1.ask(op="leaderboard", member="bob", game="gang-of-dice")["text"]
    assert f"<@{alice}>" in board0 and f"<@{bob}>" not in board0
    assert f"<@{bob}>" in board1 and f"<@{alice}>" not in board1

    async def check(store):
        rows = {t: await store.get_table(t) for t in (t0, t1)}
        assert {t: (r.guild_id, r.status) for t, r in rows.items()} == {t0: (g0, "finished"), t1: (g1, "finished")}
        for t in (t0, t1):
            log = await store.action_log(t)
            assert [v for v, _, _ in log] == list(range(len(log))) == list(range(rows[t].version))
        assert {r.user_id: r.played for r in await store.leaderboard(g0, "gang-of-dice", 1)} == {alice: 1}
        assert {r.user_id: r.played for r in await store.leaderboard(g1, "gang-of-dice", 1)} == {bob: 1}

    await read_db(db, check)
    assert p0.stop() == 0, p0.errors()
    assert p1.stop() == 0, p1.errors()


async def test_two_processes_on_one_shard_cannot_corrupt_a_table(tmp_path, procs, db_url):
    """A misconfiguration: both processes run shard 0, see the same Discord (one copy of the
    world each) and the same table; the member's clicks reach both at once, both AI drivers
    move. One step per version is stored, the state is the replay of the log, one result."""
    db = db_url
    a = BotProcess(tmp_path, db, "a", "0", guild_shard=0)
    procs.append(a)
    alice = a.ask(op="member", name="alice")["id"]
    table = a.ask(op="open", host="alice", game="gang-of-dice", ai=1)["table"]
    a.ask(op="turn", member="alice", table=table)
    shutil.copy(a.world, tmp_path / "b.world")  # the same Discord, seen by a second process
    b = BotProcess(tmp_path, db, "b", "0", restore=True)
    procs.append(b)
    assert b.ready["resumed"] == [table]
    refused = 0
    for _ in range(60):
        state_a, state_b = a.ask(op="table", table=table), b.ask(op="table", table=table)
        if "finished" in (state_a["status"], state_b["status"]):
            break
        a.send(op="turn", member="alice", table=table)  # the same click, in both processes at once
        b.send(op="turn", member="alice", table=table)
        acted = [a.receive()["acted"], b.receive()["acted"]]
        refused += acted.count(True) - 1 if all(acted) else 0
    for p in (a, b):
        p.ask(op="play", members=["alice"], table=table)
    assert refused > 0  # the race did happen: both clicked the same version

    async def check(store):
        row = await store.get_table(table)
        assert row.status == "finished"
        log = await store.action_log(table)
        assert [v for v, _, _ in log] == list(range(len(log))) == list(range(row.version))
        from bot.games import GAMES
        game = GAMES["gang-of-dice"].game
        from engine.gang_of_dice import scripted_setup
        state = scripted_setup(2, stocks=[2, 2], seed=row.seed)
        for _, codes, _ in log:
            state = game.apply(state, {s: game.decode(c) for s, c in codes.items()}).state
        assert game.dump_state(state) == row.state
        assert {r.user_id: r.played for r in await store.leaderboard(row.guild_id, "gang-of-dice", 1)} == {alice: 1}

    await read_db(db, check)
    assert a.stop() == 0, a.errors()
    assert b.stop() == 0, b.errors()


async def test_one_bot_runs_both_shards_and_refuses_a_table_it_no_longer_owns(e2e):
    """In one world, a guild on each shard of 2: a bot running both plays in both. When its
    layout changes under it (as while processes with old and new layouts overlap), a click for
    the other shard's table is refused privately and changes nothing."""
    from storage.base import Shards
    from tests.e2e import board_of, open_table, take_turn

    world = await e2e(start=False, shard_count=2, guild_shard=(0, 2))
    g0, g1 = world.guilds[0], world.add_guild("Other", shard=(1, 2))
    assert (g0.shard(2), g1.shard(2)) == (0, 1)
    alice, bob = world.member("alice"), world.member("bob", guild=g1)
    await e2e.start()
    service = world.bot
    assert world.bot.shard_count == 2 and sorted(world.bot.shard_ids) == [0, 1]
    ta = await open_table(world, alice, "gang-of-dice", ai=1)
    tb = await open_table(world, bob, "gang-of-dice", ai=1)
    assert (await service.hall.table(ta)).row.guild_id == g0.id and (await service.hall.table(tb)).row.guild_id == g1.id
    rng = random.Random(1)
    assert await take_turn(world, alice, ta, rng) and await take_turn(world, bob, tb, rng)

    service.hall.shards = Shards(2, (0,))  # now only alice's guild is this process's
    before = await read_db(str(e2e.db_path), lambda db: db.get_table(tb))
    res = await world.click(bob, board_of(world, tb), f"se:b:{tb}:panel")
    assert res.ephemeral and says("err.not_owned") in res.response.text()
    assert await read_db(str(e2e.db_path), lambda db: db.get_table(tb)) == before
    assert await take_turn(world, alice, ta, rng)  # its own table goes on


async def test_a_bot_gets_only_its_shards_guild_events(e2e):
    """A bot running shard 0 of 2 in a world with a guild on each shard: Discord's gateway (the
    harness routes by shard) never delivers the other guild's interactions to it."""
    world = await e2e(start=False, shard_count=2, shard_ids="0", guild_shard=(0, 2), require_ack=False)
    home, other = world.guilds[0], world.add_guild("Other", shard=(1, 2))
    alice, bob = world.member("alice", guild=home), world.member("bob", guild=other)
    await e2e.start()
    assert (await world.slash(alice, "play", game="gang-of-dice")).acknowledged
    assert not (await world.slash(bob, "play", game="gang-of-dice")).acknowledged
    assert [t.row.guild_id for t in await world.bot.records.guild_tables(home.id)] == [home.id]
