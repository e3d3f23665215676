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


async def test_migration_4_gives_old_tables_rules_version_1(tmp_path, monkeypatch):
    import storage.db as storage_db

    path = tmp_path / "old.db"
    monkeypatch.setattr(storage_db, "MIGRATIONS", storage_db.MIGRATIONS[:3])  # the schema before versions
    db = await Database.open(path)
    assert await db.schema_version() == 3
    t = await db._insert(  # a row as the previous version wrote it (no rules_version column)
        "INSERT INTO game_tables (guild_id, channel_id, game, status, host_user_id, created_at, updated_at)"
        " VALUES (1, 1, 'g', 'running', 1, 0, 0)")
    await db.close()
    monkeypatch.undo()
    db = await Database.open(path)
    assert await db.schema_version() == len(storage_db.MIGRATIONS) == 4
    assert (await db.get_table(t)).rules_version == 1
    await db.update_table(t, 1.0, rules_version=2)
    assert (await db.get_table(t)).rules_version == 2
    with pytest.raises(ValueError, match="bad fields"):
        await db.update_table(t, 1.0, created_at=5)
    await db.close()


async def test_deadlines_are_typed_rows_earliest_first(tmp_path):
    db = await Database.open(tmp_path / "d.db")
    a = await db.create_table(guild_id=1, channel_id=1, game="g", host_user_id=1, lang="en", options={}, now=0)
    b = await db.create_table(guild_id=1, channel_id=1, game="g", host_user_id=2, lang="en", options={}, now=0)
    await db.set_deadline(a, 3, 50.0, 100.0)
    await db.set_deadline(b, 1, 20.0, 40.0)
    await db.mark_reminded(b)
    rows = await db.deadlines()
    assert [(d.table_id, d.version, d.remind_at, d.act_at, d.reminded) for d in rows] == [
        (b, 1, 20.0, 40.0, True), (a, 3, 50.0, 100.0, False)]
    assert await db.deadline(a) == rows[1]
    await db.set_deadline(b, 2, 60.0, 70.0)  # a new step: the reminder is due again
    assert await db.deadline(b) == (b, 2, 60.0, 70.0, False)
    await db.clear_deadline(a)
    assert await db.deadline(a) is None and [d.table_id for d in await db.deadlines()] == [b]
    await db.close()


async def test_action_and_event_logs_append_in_order(tmp_path):
    db = await Database.open(tmp_path / "l.db")
    t = await db.create_table(guild_id=1, channel_id=1, game="g", host_user_id=1, lang="en", options={}, now=0)
    await db.record_events(t, 0, [{"key": "opening"}])
    await db.set_pending(t, 1, 0, "x")
    await db.record_step(t, version_before=0, actions={0: "a", 1: "x"}, source="user", state={"v": 1},
                         version=1, events=[{"key": "e1"}, {"key": "e2"}], now=1.0)
    await db.record_step(t, version_before=1, actions={0: "b"}, source="ai", state={"v": 2},
                         version=2, events=[{"key": "e3"}], now=2.0)
    assert await db.action_log(t) == [(0, {0: "a", 1: "x"}, "user"), (1, {0: "b"}, "ai")]
    assert [e["key"] for e in await db.recent_events(t, 3)] == ["e1", "e2", "e3"]
    assert [e["key"] for e in await db.recent_events(t, 10)] == ["opening", "e1", "e2", "e3"]
    assert await db.pending(t, 0) == {}  # a stored step clears the buffered choices
    row = await db.get_table(t)
    assert row.state == {"v": 2} and row.version == 2
    await db.close()


def test_database_problem_names_what_is_wrong_with_a_path(tmp_path):
    from storage.db import database_problem

    bad = tmp_path / "notes.txt"
    bad.write_text("hello, I am not a database " * 100)
    assert "cannot open" in database_problem(bad)
    assert "folder" in database_problem(tmp_path)
    assert database_problem(tmp_path / "new" / "speakeasy.db") is None
    assert (tmp_path / "new").is_dir()
