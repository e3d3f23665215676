"""Sharding in the service and the store: a process owns the tables of its shards' guilds (it
resumes only those, loads only their timers, refuses the others and never writes them), and two
writers on one table (two processes misconfigured onto the same shard) cannot both apply a step.

Real SQLite files, a fake clock, Gang of Dice with two members (no AI driver runs)."""

from __future__ import annotations

import pytest

from bot.games import GAMES
from bot.house import House
from bot.service import ServiceError
from storage.base import Shards
from storage.sqlite import SqliteStore
from tests.test_service import FakeClock

#: Guilds on shard 0 and on shard 1 of 2 (``(id >> 22) % 2``).
G0, G1 = 2 << 22, 3 << 22
GAME = GAMES["gang-of-dice"].game


async def start_table(svc: House, guild_id: int, host: int = 100, guest: int = 200) -> int:
    t = await svc.lobbies.open(guild_id=guild_id, channel_id=guild_id + 1, game="gang-of-dice", host_user_id=host,
                               host_name="Host")
    await svc.lobbies.join(t.id, guest, "Guest")
    await svc.lobbies.start(t.id, host)
    return t.id


async def play_one(svc: House, table_id: int) -> tuple[int, int, str]:
    """The member who must act submits the AI's choice; returns (user, version, code)."""
    table = await svc.hall.table(table_id)
    (seat,) = table.to_act()
    code = GAME.encode(GAME.ai_action(table.state, seat))
    user = table.seats[seat].user_id
    await svc.tables.submit(table_id, user, table.version, code)
    return user, table.version, code


@pytest.fixture
async def path(tmp_path):
    """A database with a running table on each shard and an open lobby on shard 1."""
    p = tmp_path / "shards.db"
    db = await SqliteStore.open(p)
    svc = House(db, clock=FakeClock(), turn_timeout=100, seed_source=lambda: 7)
    assert await start_table(svc, G0) == 1
    assert await start_table(svc, G1) == 2
    lobby = await svc.lobbies.open(guild_id=G1, channel_id=9, game="gang-of-dice", host_user_id=300, host_name="L")
    assert lobby.id == 3
    await svc.tables.close()
    await db.close()
    return p


def test_shards_are_validated():
    assert Shards(4, (0, 2)).owns(4 << 22) and not Shards(4, (0, 2)).owns(5 << 22)
    for count, ids in ((0, (0,)), (2, ()), (2, (2,)), (2, (1, 1)), (2, (-1,))):
        with pytest.raises(ValueError):
            Shards(count, ids)


async def test_the_store_filters_running_tables_and_timers_by_shard(path):
    db = await SqliteStore.open(path)
    try:
        assert [t.row.id for t in await db.running_tables()] == [1, 2]
        assert [t.row.id for t in await db.running_tables_of(Shards(2, (0,)))] == [1]
        assert [(t.row.id, len(t.seats)) for t in await db.running_tables_of(Shards(2, (1,)))] == [(2, 2)]
        assert [t.row.id for t in await db.running_tables_of(Shards(2, (0, 1)))] == [1, 2]
        everything = {t.key for t in await db.timers()}
        assert everything == {"turn:1", "turn:2", "lobby:3"}
        assert {t.key for t in await db.timers(Shards(2, (0,)))} == {"turn:1"}
        assert {t.key for t in await db.timers(Shards(2, (1,)))} == {"turn:2", "lobby:3"}
        # a timer of no table belongs to shard 0
        await db.set_timer(db_timer := (await db.timers())[0]._replace(key="cleanup"))
        assert "cleanup" in {t.key for t in await db.timers(Shards(2, (0,)))}
        assert "cleanup" not in {t.key for t in await db.timers(Shards(2, (1,)))}
        assert db_timer.key == "cleanup"
    finally:
        await db.close()


async def test_a_process_resumes_and_times_only_its_own_tables(path):
    db = await SqliteStore.open(path)
    svc = House(db, clock=FakeClock(), turn_timeout=100, shards=Shards(2, (0,)))
    try:
        assert await svc.tables.resume() == [1]
        await svc.tables.idle()
        assert svc.timers.keys() == {"turn:1"}
        # the deadlines of the other shard's tables are not even in memory: firing everything
        # due (much later) touches table 1 only, and leaves the others' timers stored
        svc.hall.clock.advance(10_000)  # type: ignore[attr-defined]
        await svc.timers.process()
        await svc.tables.idle()
        assert {t.key for t in await db.timers()} >= {"turn:2", "lobby:3"}
        assert (await db.get_table(3)).status == "lobby"
        assert (await db.get_table(2)).version == 0
        assert (await db.get_table(1)).version > 0
    finally:
        await svc.tables.close()
        await db.close()


async def test_another_shards_table_is_refused_and_never_written(path):
    db = await SqliteStore.open(path)
    svc = House(db, clock=FakeClock(), turn_timeout=100, shards=Shards(2, (0,)))
    try:
        await svc.tables.resume()
        before = await db.get_table(2)
        for call in (svc.hall.table(2), svc.tables.submit(2, 100, 0, "c1"), svc.tables.abandon(2, 100),
                     svc.lobbies.join(3, 500, "X"), svc.records.guild_tables(G1), svc.lobbies.close_table(2, 100),
                     svc.lobbies.open(guild_id=G1, channel_id=1, game="gang-of-dice", host_user_id=1, host_name="A")):
            with pytest.raises(ServiceError) as err:
                await call
            assert err.value.key == "err.not_owned"
        assert await svc.tables.close_guild(G1) == []
        assert not await svc.tables.back(2, 100)
        assert await db.get_table(2) == before
        assert len(await db.seats(3)) == 1
        # its own tables work as usual; shared data (leaderboards) is readable from any process
        await play_one(svc, 1)
        assert await svc.records.leaderboard(G1, "gang-of-dice") == []
    finally:
        await svc.tables.close()
        await db.close()


async def test_two_writers_on_one_table_apply_one_step_and_the_other_reloads(path):
    """Two services (two connections: as two processes) both resume table 1 (a misconfiguration:
    both run shard 0). A click applied by one is refused as stale by the other, which reloads the
    table and then accepts the next click; the log stays one step per version."""
    db_a, db_b = await SqliteStore.open(path), await SqliteStore.open(path)
    a = House(db_a, clock=FakeClock(), turn_timeout=100, shards=Shards(2, (0,)))
    b = House(db_b, clock=FakeClock(), turn_timeout=100, shards=Shards(2, (0,)))
    try:
        assert await a.tables.resume() == [1] and await b.tables.resume() == [1]
        await a.tables.idle()
        await b.tables.idle()
        assert (await b.hall.table(1)).version == 0  # b's cache: version 0
        user, version, code = await play_one(a, 1)
        with pytest.raises(ServiceError) as err:  # the same click, in the other process
            await b.tables.submit(1, user, version, code)
        assert err.value.key == "err.stale"
        assert (await b.hall.table(1)).version == version + 1  # reloaded from the store
        # b goes on from the stored state; a's stale cache refuses, then catches up by itself:
        # a button drawn by b's newer state reloads a's table
        await play_one(b, 1)
        table = await b.hall.table(1)
        (seat,) = table.to_act()
        code = GAME.encode(GAME.ai_action(table.state, seat))
        await a.tables.submit(1, table.seats[seat].user_id, table.version, code)
        log = await db_a.action_log(1)
        assert [v for v, _, _ in log] == list(range(len(log))) == [0, 1, 2]
        assert await a.tables.replay(1) == (await a.hall.table(1)).state
    finally:
        for svc in (a, b):
            await svc.tables.close()
        await db_a.close()
        await db_b.close()


async def test_two_writers_cannot_both_start_or_end_a_table(path):
    """Starting, cancelling and abandoning are compare-and-sets on the status too: of two
    processes that start one lobby, one deals it and the other is refused (no second deal over
    the first); a table one process finished cannot be abandoned by the other."""
    db_a, db_b = await SqliteStore.open(path), await SqliteStore.open(path)
    a = House(db_a, clock=FakeClock(), turn_timeout=100, seed_source=lambda: 7)
    b = House(db_b, clock=FakeClock(), turn_timeout=100, seed_source=lambda: 8)
    try:
        await b.lobbies.join(3, 400, "Guest")
        lobby = await b.hall.table(3)  # b read the lobby: then a starts it first
        await a.lobbies.start(3, 300)
        original = b.hall.db.get_table

        async def stale_read(table_id):  # b's read happened before a's start
            return lobby.row if table_id == 3 else await original(table_id)

        b.hall.db.get_table = stale_read  # type: ignore[method-assign]
        with pytest.raises(ServiceError) as err:
            await b.lobbies.start(3, 300)
        assert err.value.key == "err.table_not_lobby"
        with pytest.raises(ServiceError) as err:
            await b.lobbies.cancel(3, 300)
        assert err.value.key == "err.table_not_lobby"
        b.hall.db.get_table = original  # type: ignore[method-assign]
        row = await db_a.get_table(3)
        assert row.status == "running" and row.seed == 7 and row.version == 0
        # a ends table 1 (abandoned here); b, still holding it as running, cannot end it again
        assert (await b.hall.table(1)).row.status == "running"
        await a.tables.abandon(1, 100)
        assert await b.tables.close_silently(1) is False
        assert (await db_a.get_table(1)).status == "abandoned"
    finally:
        for svc in (a, b):
            await svc.tables.close()
        await db_a.close()
        await db_b.close()
