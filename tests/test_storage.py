"""Storage, on both drivers: transactions on the one shared connection are isolated from other
tasks; migrations; the step write (one compare-and-set transaction); bulk reads at start-up;
persisted timers."""

from __future__ import annotations

import asyncio
from dataclasses import replace

import pytest

from storage.base import SeatRow, StepWrite, TimerRow, VersionConflict
from storage.factory import open_store
from storage.migrations import latest
from tests.stores import raw_sql


async def test_another_tasks_write_never_joins_a_rolled_back_transaction(db_url):
    db = await open_store(db_url)
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


async def test_nested_transactions_join_and_seats_are_unique_per_user(db_url):
    db = await open_store(db_url)
    t = await db.create_table(guild_id=1, channel_id=1, game="g", host_user_id=1, lang="en", options={}, now=0)
    async with db.transaction():
        await db.replace_seats(t, [SeatRow(0, 1, "a", False), SeatRow(1, None, "AI", True)])  # nested
    assert [s.user_id for s in await db.seats(t)] == [1, None]
    with pytest.raises(integrity_error(db_url)):
        await db.replace_seats(t, [SeatRow(0, 1, "a", False), SeatRow(1, 1, "a again", False)])
    assert [s.user_id for s in await db.seats(t)] == [1, None]  # nothing half-stored
    await db.close()


async def test_migration_4_gives_old_tables_rules_version_1(db_url):
    path = db_url
    db = await open_store(path, upto=3)  # the schema before versions
    assert await db.schema_version() == 3
    t = await db.create_table(guild_id=1, channel_id=1, game="g", host_user_id=1, lang="en", options={}, now=0)
    await raw_sql(db_url, f"UPDATE game_tables SET status = 'running' WHERE id = {t}")  # no rules_version column yet
    await db.close()
    db = await open_store(path)
    assert await db.schema_version() == latest() == 12
    assert (await db.get_table(t)).rules_version == 1
    await db.update_table(t, 1.0, rules_version=2)
    assert (await db.get_table(t)).rules_version == 2
    with pytest.raises(ValueError, match="bad fields"):
        await db.update_table(t, 1.0, created_at=5)
    await db.close()


async def test_migration_5_moves_deadlines_to_timers_and_counts_the_logs(db_url):
    path = db_url
    db = await open_store(path, upto=4)  # the version before
    a = await db.create_table(guild_id=1, channel_id=1, game="g", host_user_id=1, lang="en", options={}, now=0)
    b = await db.create_table(guild_id=1, channel_id=1, game="g", host_user_id=2, lang="en", options={}, now=0)
    # rows as that version wrote them (literal SQL, the same in both dialects)
    await raw_sql(db_url, f"INSERT INTO seats (table_id, seat, user_id, name, is_ai) VALUES ({a}, 0, 1, 'a', 0)")
    for seq in (1, 2, 3):
        await raw_sql(db_url, f"INSERT INTO actions VALUES ({a}, {seq}, {seq - 1}, '{{}}', 'user', 0)")
    await raw_sql(db_url, f"INSERT INTO events VALUES ({a}, 1, 0, '{{}}')")
    await raw_sql(db_url, f"INSERT INTO deadlines VALUES ({a}, 3, 50.0, 100.0, 0)")
    await raw_sql(db_url, f"INSERT INTO deadlines VALUES ({b}, 1, 20.0, 40.0, 1)")
    await db.close()
    db = await open_store(path)
    assert await db.timers() == [
        TimerRow(f"turn:{b}", 40.0, {"version": 1, "remind_at": 20.0, "act_at": 40.0, "reminded": True}),
        TimerRow(f"turn:{a}", 50.0, {"version": 3, "remind_at": 50.0, "act_at": 100.0, "reminded": False}),
    ]
    row = await db.get_table(a)
    assert (row.action_seq, row.event_seq) == (3, 1)
    assert (await db.get_table(b)).action_seq == 0
    assert (await db.seats(a))[0].timeouts == 0
    await db.close()


async def test_migrations_7_and_8_keep_old_logs_readable_and_move_turn_deadlines_into_the_rows(db_url):
    db = await open_store(db_url, upto=6)  # the version before
    t = await _running(db)
    await db.record_events(t, 0, [{"key": "opening"}])
    # a step's rows as that version wrote them (literal SQL, the same in both dialects)
    await raw_sql(db_url, f"INSERT INTO actions VALUES ({t}, 1, 0, '{{\"0\":\"a\"}}', 'user', 1.0)")
    for seq, key in ((2, "e1"), (3, "e2")):
        await raw_sql(db_url, f"INSERT INTO events VALUES ({t}, {seq}, 1, '{{\"key\":\"{key}\"}}')")
    await db.update_table(t, 1.0, state={"v": 1}, version=1)
    await raw_sql(db_url, f"UPDATE game_tables SET action_seq = 1, event_seq = 3 WHERE id = {t}")
    await raw_sql(db_url, f"INSERT INTO timers VALUES ('turn:{t}', 50.0, '{{\"version\":1}}')")
    await raw_sql(db_url, "INSERT INTO timers VALUES ('lobby:99', 20.0, '{}')")
    await db.close()
    db = await open_store(db_url)
    assert await db.schema_version() == latest() == 12
    assert [r["key"] for r in await raw_sql(db_url, "SELECT key FROM timers")] == ["lobby:99"]  # the turn one moved
    assert await db.timers() == [("lobby:99", 20.0, {}), (f"turn:{t}", 50.0, {"version": 1})]
    assert await db.timer(f"turn:{t}") == (f"turn:{t}", 50.0, {"version": 1})
    # a step now stores its events in its action-log row and its deadline in the table's row
    await db.commit_step(StepWrite(table_id=t, version_before=1, version=2, state={"v": 2}, actions={1: "b"},
                                   source="ai", events=[{"key": "e3"}, {"key": "e4"}], action_seq=2, event_seq=4,
                                   now=2.0, timer=TimerRow(f"turn:{t}", 60.0, {"version": 2})))
    assert len(await raw_sql(db_url, f"SELECT * FROM events WHERE table_id = {t}")) == 3  # the old rows only
    assert [r["key"] for r in await raw_sql(db_url, "SELECT key FROM timers")] == ["lobby:99"]
    assert await db.action_log(t) == [(0, {0: "a"}, "user"), (1, {1: "b"}, "ai")]
    assert [e["key"] for e in await db.all_events(t)] == ["opening", "e1", "e2", "e3", "e4"]
    assert [e["key"] for e in await db.recent_events(t, 3)] == ["e2", "e3", "e4"]
    assert await db.timer(f"turn:{t}") == (f"turn:{t}", 60.0, {"version": 2})
    await db.commit_step(StepWrite(table_id=t, version_before=2, version=3, state={"v": 3}, actions={0: "c"},
                                   source="user", events=[], action_seq=3, event_seq=6, now=3.0,
                                   cancel_timer=f"turn:{t}"))
    assert await db.timer(f"turn:{t}") is None and [r.key for r in await db.timers()] == ["lobby:99"]
    assert [e["key"] for e in await db.recent_events(t, 10)] == ["opening", "e1", "e2", "e3", "e4"]
    assert (await db.get_table(t)).event_seq == 5
    await db.close()


async def test_a_tables_turn_timer_lives_in_its_row_and_any_other_in_the_timers_table(db_url):
    db = await open_store(db_url)
    t = await _running(db)
    await db.set_timer(TimerRow(f"turn:{t}", 30.0, {"version": 0}))
    await db.set_timer(TimerRow("turn:999", 10.0, {}))  # no such table: kept in the timers table
    await db.set_timers([TimerRow(f"turn:{t}", 40.0, {"version": 1}), TimerRow("lobby:5", 5.0, {"x": 1})])
    assert sorted(r["key"] for r in await raw_sql(db_url, "SELECT key FROM timers")) == ["lobby:5", "turn:999"]
    assert await db.timers() == [("lobby:5", 5.0, {"x": 1}), ("turn:999", 10.0, {}),
                                 (f"turn:{t}", 40.0, {"version": 1})]
    await db.cancel_timer("turn:999")
    await db.cancel_timer(f"turn:{t}")
    await db.cancel_timer(f"turn:{t}")  # no error
    assert [r.key for r in await db.timers()] == ["lobby:5"]
    await db.close()


async def test_timers_are_typed_rows_earliest_first(db_url):
    db = await open_store(db_url)
    await db.set_timer(TimerRow("turn:1", 50.0, {"version": 3}))
    await db.set_timer(TimerRow("lobby:7", 20.0, {}))
    rows = await db.timers()
    assert rows == [("lobby:7", 20.0, {}), ("turn:1", 50.0, {"version": 3})]
    assert rows[1].kind == "turn" and await db.timer("turn:1") == rows[1]
    await db.set_timer(TimerRow("turn:1", 60.0, {"version": 4}))  # replaced by key
    assert await db.timer("turn:1") == ("turn:1", 60.0, {"version": 4})
    await db.set_timers([TimerRow("a:1", 1.0, {}), TimerRow("a:2", 2.0, {"x": 1})])
    await db.cancel_timer("lobby:7")
    await db.cancel_timer("nothing")  # no error
    assert [t.key for t in await db.timers()] == ["a:1", "a:2", "turn:1"]
    await db.close()


def integrity_error(db_url):
    """The backend's error for a broken constraint."""
    if db_url.startswith("postgresql"):
        import asyncpg

        return asyncpg.IntegrityConstraintViolationError
    import sqlite3

    return sqlite3.IntegrityError


async def _running(db, *, seats=2):
    t = await db.create_table(guild_id=1, channel_id=1, game="g", host_user_id=1, lang="en", options={}, now=0)
    await db.replace_seats(t, [SeatRow(i, i + 1, f"p{i}", False) for i in range(seats)])
    await db.update_table(t, 0.0, status="running", state={"v": 0}, version=0)
    return t


async def test_action_and_event_logs_append_in_order(db_url):
    db = await open_store(db_url)
    t = await _running(db)
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
    assert (row.action_seq, row.event_seq) == (2, 4)
    await db.close()


async def test_commit_step_is_one_compare_and_set_transaction(db_url):
    db = await open_store(db_url)
    t = await _running(db)
    await db.set_pending(t, 1, 0, "x")
    await db.set_timer(TimerRow(f"turn:{t}", 5.0, {"version": 0}))
    step = StepWrite(table_id=t, version_before=0, version=1, state={"v": 1, "s": [1, 2]}, actions={0: "a", 1: "x"},
                     source="user", events=[{"key": "e1"}, {"key": "e2"}], action_seq=1, event_seq=1, now=3.0,
                     timer=TimerRow(f"turn:{t}", 9.0, {"version": 1}))
    await db.commit_step(step)
    row = await db.get_table(t)
    assert (row.version, row.state, row.action_seq, row.event_seq, row.updated_at) == (1, {"v": 1, "s": [1, 2]}, 1, 2, 3.0)
    (raw,) = await raw_sql(db_url, f"SELECT state FROM game_tables WHERE id = {t}")
    assert raw["state"] == '{"v":1,"s":[1,2]}'  # compact JSON
    assert await db.pending(t, 0) == {} and await db.timer(f"turn:{t}") == (f"turn:{t}", 9.0, {"version": 1})
    # a second writer still at version 0: refused, nothing of it stored
    late = StepWrite(table_id=t, version_before=0, version=1, state={"v": "other"}, actions={0: "b"},
                     source="user", events=[{"key": "other"}], action_seq=1, event_seq=1, now=4.0,
                     cancel_timer=f"turn:{t}")
    with pytest.raises(VersionConflict, match="no longer at version 0"):
        await db.commit_step(late)
    assert (await db.get_table(t)).state == {"v": 1, "s": [1, 2]}
    assert await db.action_log(t) == [(0, {0: "a", 1: "x"}, "user")]
    assert [e["key"] for e in await db.recent_events(t, 10)] == ["e1", "e2"]
    assert await db.timer(f"turn:{t}") is not None
    # the last step finishes the table and removes its deadline; a finished table takes no step
    await db.commit_step(StepWrite(table_id=t, version_before=1, version=2, state={"v": 2}, actions={0: "c"},
                                   source="ai", events=[], action_seq=2, event_seq=3, now=5.0, status="finished",
                                   cancel_timer=f"turn:{t}"))
    row = await db.get_table(t)
    assert (row.status, row.version, row.event_seq) == ("finished", 2, 2)
    assert await db.timer(f"turn:{t}") is None
    with pytest.raises(VersionConflict):
        await db.commit_step(replace(late, version_before=2, action_seq=3))
    await db.close()


async def test_commit_step_joins_an_outer_transaction_and_rolls_back_with_it(db_url):
    db = await open_store(db_url)
    t = await _running(db)
    step = StepWrite(table_id=t, version_before=0, version=1, state={"v": 1}, actions={0: "a"}, source="user",
                     events=[{"key": "e"}], action_seq=1, event_seq=1, now=1.0)
    with pytest.raises(RuntimeError):
        async with db.transaction():
            await db.commit_step(step)
            raise RuntimeError("the result could not be stored")
    assert (await db.get_table(t)).version == 0 and await db.action_log(t) == []
    await db.commit_step(step)  # the connection is usable again
    assert (await db.get_table(t)).version == 1
    await db.close()


async def test_running_tables_are_read_in_bulk_with_seats_pending_and_raw_snapshots(db_url):
    db = await open_store(db_url)
    a = await _running(db, seats=3)
    b = await _running(db)
    lobby = await db.create_table(guild_id=1, channel_id=1, game="g", host_user_id=1, lang="en", options={}, now=0)
    await db.set_pending(a, 2, 0, "x")
    await db.set_pending(b, 0, 7, "old")  # an older step's choice: not the current one
    await db.set_seat_state(a, 1, away=True, timeouts=2)
    calls = []
    if "postgres" not in db_url:  # SQLite: count the round trips to the connection's worker thread
        real = db._worker

        async def counting(fn):
            calls.append(fn)
            return await real(fn)

        db._worker = counting
    got = await db.running_tables()
    if "postgres" not in db_url:
        assert len(calls) == 1  # one round trip for every table
    assert [r.row.id for r in got] == [a, b] and lobby not in [r.row.id for r in got]
    assert got[0].state_json == '{"v":0}' and got[0].row.state is None
    assert [(s.seat, s.away, s.timeouts) for s in got[0].seats] == [(0, False, 0), (1, True, 2), (2, False, 0)]
    assert got[0].pending == {2: "x"} and got[1].pending == {}
    await db.close()


def test_database_problem_names_what_is_wrong_with_a_path(tmp_path):
    from storage.sqlite import database_problem

    bad = tmp_path / "notes.txt"
    bad.write_text("hello, I am not a database " * 100)
    assert "cannot open" in database_problem(bad)
    assert "folder" in database_problem(tmp_path)
    assert database_problem(tmp_path / "new" / "speakeasy.db") is None
    assert (tmp_path / "new").is_dir()


async def test_a_sqlite_file_another_process_is_writing_still_opens(tmp_path):
    """Two processes opening one new SQLite file together: turning it to WAL reads the file,
    then needs its write lock, and SQLite refuses that at once, without waiting (a deadlock
    rule), while another connection holds it ("database is locked"; a bot process of the
    shards test once failed to start this way). The open waits for the writer instead."""
    import sqlite3
    import threading

    from storage.sqlite import SqliteStore

    path = tmp_path / "shared.db"
    other = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    other.execute("CREATE TABLE t (x)")  # a new file, still in rollback-journal mode
    other.execute("BEGIN IMMEDIATE")
    other.execute("INSERT INTO t VALUES (1)")  # the other process writes: it holds the write lock
    writing = threading.Timer(0.3, lambda: other.execute("COMMIT"))
    writing.start()
    try:
        db = await SqliteStore.open(path)
    finally:
        writing.join()
        other.close()
    async with db._conn.execute("PRAGMA journal_mode") as cur:
        assert (await cur.fetchone())[0] == "wal"
    assert await db.schema_version() >= 8
    await db.close()


async def test_stores_opening_a_new_sqlite_file_together_apply_each_migration_once(tmp_path):
    """Three connections (as three processes would) open one new file at once: each migration
    runs in BEGIN IMMEDIATE and re-reads user_version there, so the later ones skip what the
    first applied (a second CREATE TABLE would fail)."""
    path = tmp_path / "new.db"
    stores = await asyncio.gather(*(open_store(path) for _ in range(3)))
    try:
        assert [await db.schema_version() for db in stores] == [latest()] * 3
        t = await stores[0].create_table(guild_id=1, channel_id=1, game="g", host_user_id=1, lang="en", options={},
                                         now=0)
        assert (await stores[2].get_table(t)).game == "g"
    finally:
        for db in stores:
            await db.close()


async def test_processes_starting_together_apply_each_postgres_migration_once():
    """Two stores opened at once on one empty PostgreSQL database (two connections, as two
    processes would): the advisory lock makes the second wait, then find nothing to do."""
    from tests.stores import fresh_postgres_url

    url = await fresh_postgres_url()
    a, b = await asyncio.gather(open_store(url), open_store(url))
    try:
        assert await a.schema_version() == await b.schema_version() == latest("postgres")
        t = await a.create_table(guild_id=1, channel_id=1, game="g", host_user_id=1, lang="en", options={}, now=0)
        assert (await b.get_table(t)).game == "g"  # one database
        assert await a._all("SELECT * FROM speakeasy_schema") == [(latest("postgres"),)]
    finally:
        await a.close()
        await b.close()


async def test_a_lost_postgres_connection_is_made_again_before_the_next_statement():
    import asyncpg

    from tests.stores import fresh_postgres_url

    url = await fresh_postgres_url()
    db = await open_store(url)
    try:
        t = await db.create_table(guild_id=1, channel_id=1, game="g", host_user_id=1, lang="en", options={}, now=0)
        admin = await asyncpg.connect(url)
        try:  # the server ends the store's connection (as a restart or a network cut would)
            assert await admin.fetchval("SELECT pg_terminate_backend($1)", db._pg.get_server_pid())
        finally:
            await admin.close()
        for _ in range(100):
            if db._pg.is_closed():
                break
            await asyncio.sleep(0.01)
        assert (await db.get_table(t)).id == t
    finally:
        await db.close()


async def test_two_postgres_connections_racing_for_one_step_store_it_once():
    """Two processes (two connections) write the same step of one table at once: the version
    compare-and-set lets exactly one through; the other gets VersionConflict and stores nothing."""
    from tests.stores import fresh_postgres_url

    url = await fresh_postgres_url()
    a, b = await open_store(url), await open_store(url)
    try:
        t = await _running(a)
        def step(who):
            return StepWrite(table_id=t, version_before=0, version=1, state={"by": who}, actions={0: who},
                             source="user", events=[{"key": who}], action_seq=1, event_seq=1, now=1.0)
        results = await asyncio.gather(a.commit_step(step("a")), b.commit_step(step("b")), return_exceptions=True)
        assert sorted(type(r).__name__ for r in results) == ["NoneType", "VersionConflict"]
        winner = "a" if results[0] is None else "b"
        assert (await b.get_table(t)).state == {"by": winner}
        assert await a.action_log(t) == [(0, {0: winner}, "user")]
        assert [e["key"] for e in await a.all_events(t)] == [winner]
    finally:
        await a.close()
        await b.close()
