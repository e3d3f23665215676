"""Storage: transactions on the one shared connection are isolated from other tasks."""

from __future__ import annotations

import asyncio

import pytest

from storage.db import Database, SeatRow


async def test_another_tasks_write_never_joins_a_rolled_back_transaction(tmp_path):
    db = await Database.open(tmp_path / "s.db")
    a = await db.create_table(guild_id=1, channel_id=1, game="g", host_user_id=1, lang="en", options={}, now=0)
    b = await db.create_table(guild_id=1, channel_id=1, game="g", host_user_id=2, lang="en", options={}, now=0)
    inside = asyncio.Event()

    async def failing_transaction():
        async with db.transaction():
            await db.update_table(a, 1.0, version=5)
            inside.set()
            await asyncio.sleep(0.05)  # another task runs meanwhile
            raise RuntimeError("boom")

    async def other_task():
        await inside.wait()
        await db.update_table(b, 1.0, version=7)  # must not land inside the failing transaction

    results = await asyncio.gather(failing_transaction(), other_task(), return_exceptions=True)
    assert isinstance(results[0], RuntimeError)
    assert (await db.get_table(a)).version == 0  # rolled back
    assert (await db.get_table(b)).version == 7  # kept
    await db.close()


async def test_nested_transactions_join_and_seats_are_unique_per_user(tmp_path):
    import sqlite3

    db = await Database.open(tmp_path / "s.db")
    t = await db.create_table(guild_id=1, channel_id=1, game="g", host_user_id=1, lang="en", options={}, now=0)
    async with db.transaction():
        await db.replace_seats(t, [SeatRow(0, 1, "a", False), SeatRow(1, None, "AI", True)])  # nested
    assert [s.user_id for s in await db.seats(t)] == [1, None]
    with pytest.raises(sqlite3.IntegrityError):
        await db.replace_seats(t, [SeatRow(0, 1, "a", False), SeatRow(1, 1, "a again", False)])
    assert [s.user_id for s in await db.seats(t)] == [1, None]  # nothing half-stored
    await db.close()
