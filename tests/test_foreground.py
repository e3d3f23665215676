"""Member answers first (bot.foreground), and SQLite's WAL checkpoints off the event loop."""

from __future__ import annotations

import asyncio
import sqlite3

from bot.foreground import Foreground
from bot.house import House
from storage import sqlite as sqlite_store
from storage.base import TimerRow
from storage.factory import open_store


async def test_background_work_waits_while_an_answer_is_built():
    fg = Foreground(max_wait=60)
    order: list[str] = []

    async def background() -> None:
        await fg.quiet()
        order.append("background")

    with fg.answering():
        task = asyncio.create_task(background())
        for _ in range(5):
            await asyncio.sleep(0)
        await fg.quiet()  # the answering task itself never waits
        order.append("answer sent")
    await task
    assert order == ["answer sent", "background"] and fg.busy == 0


async def test_quiet_returns_at_once_when_idle_and_a_wait_is_bounded():
    fg = Foreground(max_wait=0.01)
    finished: list[bool] = []

    async def background() -> None:
        await fg.quiet()
        finished.append(True)

    await fg.quiet()  # nobody is being answered: no wait at all
    with fg.answering():
        await asyncio.create_task(background())  # a never-ending stream of answers cannot starve it
        assert finished == [True]


async def test_work_started_by_an_answer_starts_once_it_is_sent():
    fg = Foreground(max_wait=60)
    started: list[str] = []

    def broken() -> None:
        raise RuntimeError("a failing callback is logged; the others still run")

    fg.later(started.append, "idle")  # nobody is being answered: at once
    assert started == ["idle"]
    with fg.answering():
        with fg.answering():  # two answers at once: the work waits for both
            fg.later(started.append, "board")
            fg.later(broken)
            fg.later(started.append, "ping")
            await asyncio.sleep(0)
        assert started == ["idle"]
    assert started == ["idle", "board", "ping"]


async def test_work_started_by_an_answer_waits_at_most_max_wait():
    fg = Foreground(max_wait=0.01)
    started: list[str] = []
    with fg.answering():
        fg.later(started.append, "board")
        await asyncio.sleep(0.05)  # a long answer does not hold the work back for ever
        assert started == ["board"]
    assert started == ["board"]  # run once only


async def test_ai_moves_wait_for_a_members_answer(tmp_path):
    db = await open_store(tmp_path / "fg.db")
    svc = House(db, ai_delay=0, seed_source=lambda: 5)  # seed 5: an AI seat bids first
    try:
        table = await svc.lobbies.open(guild_id=1, channel_id=1, game="three-player-moon", host_user_id=1,
                                       host_name="H")
        await svc.lobbies.add_ai(table.id, 1)
        await svc.lobbies.add_ai(table.id, 1)
        svc.foreground.max_wait = 60
        with svc.foreground.answering():  # a click elsewhere is being answered
            await svc.lobbies.start(table.id, 1)  # kicks the driver if an AI seat must act
            started = await svc.hall.table(table.id)
            assert started.to_act() == {1}
            for _ in range(20):
                await asyncio.sleep(0)
            assert (await svc.hall.table(table.id)).version == started.version  # no AI move meanwhile
        await svc.tables.idle()
        assert (await svc.hall.table(table.id)).version > started.version  # then the AI played
    finally:
        await svc.tables.close()
        await db.close()


async def test_wal_checkpoints_run_in_a_thread_and_lose_nothing(tmp_path, monkeypatch):
    monkeypatch.setattr(sqlite_store, "CHECKPOINT_EVERY", 10)
    path = tmp_path / "ckpt.db"
    db = await open_store(path)
    try:
        for i in range(25):
            await db.set_timer(TimerRow(f"t:{i}", float(i), {"n": i, "name": "é"}))
        assert db._checkpointing is not None  # started by the writes, not by a clock
        await db._checkpointing
        other = sqlite3.connect(path)  # another reader sees every write
        try:
            assert other.execute("SELECT COUNT(*) FROM timers").fetchone()[0] == 25
        finally:
            other.close()
        assert [t.payload for t in await db.timers()][-1] == {"n": 24, "name": "é"}
    finally:
        await db.close()
