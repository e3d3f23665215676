"""Bounded memory: 1,000 tables played through the services (two members clicking at once, an AI
player, abandons, clicks on ended and unknown tables) leave every per-table structure (locks,
the cache of running tables, the resume index, timers, AI drivers) at its size before them."""

from __future__ import annotations

import asyncio

import pytest

from bot.house import House
from bot.service import ServiceError
from storage.factory import open_store
from tests.simgame import register_pick
from tests.test_service import FakeClock

TABLES = 1000
AT_ONCE = 25


@pytest.fixture
def pick_game():
    with register_pick() as spec:
        yield spec.game


async def one_table(svc: House, n: int) -> None:
    host, guest = 10_000 + 2 * n, 10_001 + 2 * n
    tid = (await svc.lobbies.open(guild_id=1, channel_id=n, game="test-pick", host_user_id=host, host_name=f"H{n}",
                                  options={"rounds": 1})).id
    with_ai = n % 5 == 0
    if with_ai:
        await svc.lobbies.add_ai(tid, host)
    else:
        await svc.lobbies.join(tid, guest, f"G{n}")
    await svc.lobbies.start(tid, host)
    if n % 4 == 3:  # ended by its host before anyone played
        await svc.tables.abandon(tid, host)
    else:
        picks = [svc.tables.submit(tid, host, 0, "p1")]
        if not with_ai:
            picks.append(svc.tables.submit(tid, guest, 0, "p2"))
        await asyncio.gather(*picks)  # both wait on the table's lock at once
        if with_ai:
            await svc.tables.idle()  # the AI's pick
        assert (await svc.tables.submit(tid, host, 1, "ok")).status == "applied"  # the last step: finished
    if n % 10 < 2:  # a click on the ended table, and one on a table that never existed
        with pytest.raises(ServiceError):
            await svc.tables.submit(tid, host, 1, "ok")
        with pytest.raises(ServiceError):
            await svc.tables.submit(10_000_000 + n, host, 0, "p1")


async def test_a_thousand_tables_leave_every_per_table_structure_as_it_was(tmp_path, pick_game):
    db = await open_store(tmp_path / "many.db")
    svc = House(db, clock=FakeClock(), seed_source=lambda: 42)
    try:
        def sizes() -> dict[str, int]:
            return {**{k: len(v) for k, v in svc.hall.held().items()}, "timers": len(svc.timers),
                    "drivers": len(svc.tables.driver.tables()), **svc.foreground.sizes()}

        before = sizes()
        assert before == {"locks": 0, "live": 0, "index": 0, "tails": 0, "timers": 0, "drivers": 0, "tasks": 0,
                          "waiters": 0, "deferred": 0}
        for start in range(0, TABLES, AT_ONCE):
            await asyncio.gather(*(one_table(svc, n) for n in range(start, start + AT_ONCE)))
        await svc.tables.idle()
        assert sizes() == before
        # stale queue entries are compacted away: at most 2 per timer held at once (a lobby's
        # expiry and a turn deadline per table in play) + 64
        assert svc.timers.sizes()["heap"] <= 2 * (2 * AT_ONCE) + 64
        assert len(await db.tables_with_status("finished")) == TABLES - TABLES // 4
    finally:
        await svc.tables.close()
        await db.close()
