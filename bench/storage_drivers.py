"""What SQLAlchemy Core would cost on the store's hot paths, against the thin drivers.

``python -m bench.storage_drivers [--ops 2000] [--runs 5] [--postgres URL]`` times, on SQLite and
(with a URL) on PostgreSQL, the hottest write (a step: the snapshot's compare-and-set, its
action-log row, its turn deadline) and a one-row table read, per operation:

- ``driver``: the store :func:`storage.factory.open_store` opens (the code the bot runs);
- ``sqlalchemy core``: the same statements built with SQLAlchemy Core on one long-lived
  ``AsyncConnection`` (``sqlite+aiosqlite``, ``postgresql+asyncpg``), a transaction per step;
- ``sqlalchemy core inline`` (SQLite): the same, through SQLAlchemy's synchronous engine on the
  event loop's own thread, as the driver writes a step: SQLAlchemy's own cost per statement;
- ``sqlalchemy text`` (PostgreSQL): the driver's own one-statement step passed through
  SQLAlchemy's ``text()``, its smallest possible cost.

Each figure is the median of ``--runs`` runs of ``--ops`` operations, in microseconds. SQLAlchemy
is not a dependency of Speakeasy: install it (``pip install 'sqlalchemy[asyncio]'``) to run this.
"""

from __future__ import annotations

import argparse
import asyncio
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from storage.base import StepWrite, TimerRow, dumps
from storage.factory import open_store

STATE = {"round": 3, "hands": [[i * 7 % 52 for i in range(13)] for _ in range(4)], "scores": [12, 40, 7, 33],
         "trick": [5, 18, None, None], "log": ["lead", "follow", "trump"] * 20, "name": "Table é"}


def _step(table_id: int, version: int) -> StepWrite:
    return StepWrite(table_id=table_id, version_before=version, version=version + 1, state=STATE,
                     actions={version % 4: f"c{version % 13}"}, source="user",
                     events=[{"key": "card.played", "params": {"seat": version % 4}}],
                     action_seq=version + 1, event_seq=version + 1, now=1000.0 + version,
                     timer=TimerRow(f"turn:{table_id}", 2000.0 + version, {"version": version + 1}))


async def _running_table(db: Any) -> int:
    from storage.base import SeatRow

    t: int = await db.create_table(guild_id=1, channel_id=1, game="g", host_user_id=1, lang="en", options={},
                                   now=0.0)
    await db.replace_seats(t, [SeatRow(i, i + 1, f"p{i}", False) for i in range(4)])
    await db.update_table(t, 0.0, status="running", state=STATE, version=0)
    return t


async def _time(fn: Any, ops: int) -> float:
    """Microseconds per call of ``await fn(i)`` for ``i`` in ``range(ops)``."""
    start = time.perf_counter()
    for i in range(ops):
        await fn(i)
    return (time.perf_counter() - start) / ops * 1e6


async def _driver(url: str, ops: int) -> tuple[float, float]:
    db = await open_store(url)
    try:
        t = await _running_table(db)
        base = 0

        async def step(i: int) -> None:
            await db.commit_step(_step(t, base + i))

        async def read(i: int) -> None:
            await db.get_table(t)

        write_us = await _time(step, ops)
        return write_us, await _time(read, ops)
    finally:
        await db.close()


def _sa_tables() -> Any:
    import sqlalchemy as sa

    meta = sa.MetaData()
    game_tables = sa.Table(
        "game_tables", meta, sa.Column("id", sa.BigInteger, primary_key=True), sa.Column("guild_id", sa.BigInteger),
        sa.Column("channel_id", sa.BigInteger), sa.Column("thread_id", sa.BigInteger),
        sa.Column("lobby_message_id", sa.BigInteger), sa.Column("board_message_id", sa.BigInteger),
        sa.Column("game", sa.Text), sa.Column("options", sa.Text), sa.Column("status", sa.Text),
        sa.Column("host_user_id", sa.BigInteger), sa.Column("lang", sa.Text), sa.Column("seed", sa.BigInteger),
        sa.Column("version", sa.BigInteger), sa.Column("state", sa.Text), sa.Column("created_at", sa.Float),
        sa.Column("updated_at", sa.Float), sa.Column("rules_version", sa.BigInteger),
        sa.Column("action_seq", sa.BigInteger), sa.Column("event_seq", sa.BigInteger),
        sa.Column("turn_due", sa.Float), sa.Column("turn_timer", sa.Text))
    actions = sa.Table(
        "actions", meta, sa.Column("table_id", sa.BigInteger), sa.Column("seq", sa.BigInteger),
        sa.Column("version", sa.BigInteger), sa.Column("actions", sa.Text), sa.Column("source", sa.Text),
        sa.Column("created_at", sa.Float), sa.Column("event_seq", sa.BigInteger), sa.Column("events", sa.Text))
    pending = sa.Table("pending", meta, sa.Column("table_id", sa.BigInteger), sa.Column("seat", sa.BigInteger))
    return game_tables, actions, pending


def _engine(url: str, sa_url: str) -> Any:
    """An async engine on ``sa_url``; for PostgreSQL, its connections made by asyncpg from the
    store's own URL (``search_path`` and ``host`` query parameters as the driver reads them)."""
    from sqlalchemy.ext.asyncio import create_async_engine

    if sa_url.startswith("sqlite"):
        from sqlalchemy import event

        engine = create_async_engine(sa_url)

        @event.listens_for(engine.sync_engine, "connect")
        def settings(conn: Any, _record: Any) -> None:  # the driver's own connection settings
            for pragma in ("busy_timeout=5000", "journal_mode=WAL", "synchronous=NORMAL", "foreign_keys=ON",
                           "wal_autocheckpoint=0"):
                conn.execute(f"PRAGMA {pragma}")

        return engine
    import asyncpg

    return create_async_engine("postgresql+asyncpg://", async_creator=lambda: asyncpg.connect(url))


def _sa_step_statements() -> Any:
    """``statements(step)``: the step's compare-and-set ``UPDATE``, its action-log ``INSERT`` and
    the ``DELETE`` of its buffered choices, each as ``(statement, parameters)``. The SQLAlchemy
    Core statements are built once with bound parameters (so each execution reuses the compiled
    form and its cache key: SQLAlchemy's fastest use), the parameters per step."""
    import sqlalchemy as sa

    game_tables, actions, pending = _sa_tables()
    b = sa.bindparam
    update = (sa.update(game_tables)
              .where(game_tables.c.id == b("w_id"), game_tables.c.version == b("w_version"),
                     game_tables.c.status == "running")
              .values(state=b("state"), version=b("version"), updated_at=b("now"), action_seq=b("action_seq"),
                      event_seq=b("event_seq"), turn_due=b("turn_due"), turn_timer=b("turn_timer")))
    insert = sa.insert(actions).values(table_id=b("table_id"), seq=b("seq"), version=b("version"),
                                       actions=b("actions"), source=b("source"), created_at=b("now"),
                                       event_seq=b("event_seq"), events=b("events"))
    delete = sa.delete(pending).where(pending.c.table_id == b("table_id"))

    def statements(s: StepWrite) -> tuple[tuple[Any, dict[str, Any]], ...]:
        return (
            (update, {"w_id": s.table_id, "w_version": s.version_before, "state": dumps(s.state),
                      "version": s.version, "now": s.now, "action_seq": s.action_seq, "event_seq": s.last_event,
                      "turn_due": s.timer.due if s.timer else None,
                      "turn_timer": dumps(s.timer.payload) if s.timer else None}),
            (insert, {"table_id": s.table_id, "seq": s.action_seq, "version": s.version_before,
                      "actions": s.actions_json(), "source": s.source, "now": s.now, "event_seq": s.event_seq,
                      "events": dumps(s.events)}),
            (delete, {"table_id": s.table_id}),
        )

    return statements


async def _sqlalchemy_inline(path: str, ops: int) -> tuple[float, float]:
    """SQLite only: the same Core statements through SQLAlchemy's synchronous engine, on the
    event loop's own thread as the driver runs a step (no worker thread, no greenlet): what
    SQLAlchemy itself adds to each statement."""
    import sqlalchemy as sa
    from sqlalchemy import event

    from storage.base import TableRow

    db = await open_store(path)
    try:
        t = await _running_table(db)
    finally:
        await db.close()
    engine = sa.create_engine(f"sqlite:///{path}")

    @event.listens_for(engine, "connect")
    def settings(conn: Any, _record: Any) -> None:
        for pragma in ("busy_timeout=5000", "journal_mode=WAL", "synchronous=NORMAL", "foreign_keys=ON",
                       "wal_autocheckpoint=0"):
            conn.execute(f"PRAGMA {pragma}")

    statements = _sa_step_statements()
    game_tables = _sa_tables()[0]
    query = sa.select(game_tables).where(game_tables.c.id == sa.bindparam("id"))
    conn = engine.connect()
    try:
        async def step(i: int) -> None:
            update, insert, delete = statements(_step(t, i))
            with conn.begin():
                if conn.execute(*update).rowcount != 1:
                    raise RuntimeError("version conflict")
                conn.execute(*insert)
                conn.execute(*delete)

        async def read(i: int) -> None:
            TableRow.of(conn.execute(query, {"id": t}).mappings().one())

        write_us = await _time(step, ops)
        return write_us, await _time(read, ops)
    finally:
        conn.close()
        engine.dispose()


async def _sqlalchemy(url: str, sa_url: str, ops: int) -> tuple[float, float]:
    """The step as SQLAlchemy Core statements in one transaction, and ``select`` of one row."""
    import sqlalchemy as sa

    from storage.base import TableRow

    db = await open_store(url)  # migrated, with a running table
    try:
        t = await _running_table(db)
    finally:
        await db.close()
    statements = _sa_step_statements()
    engine = _engine(url, sa_url)
    conn = await engine.connect()
    try:
        async def step(i: int) -> None:
            update, insert, delete = statements(_step(t, i))
            async with conn.begin():
                if (await conn.execute(*update)).rowcount != 1:
                    raise RuntimeError("version conflict")
                await conn.execute(*insert)
                await conn.execute(*delete)

        game_tables = _sa_tables()[0]
        query = sa.select(game_tables).where(game_tables.c.id == sa.bindparam("id"))

        async def read(i: int) -> None:
            row = (await conn.execute(query, {"id": t})).mappings().one()
            TableRow.of(row)

        write_us = await _time(step, ops)
        return write_us, await _time(read, ops)
    finally:
        await conn.close()
        await engine.dispose()


async def _sqlalchemy_text(url: str, sa_url: str, ops: int) -> float:
    """The PostgreSQL driver's one-statement step, sent through SQLAlchemy ``text()``."""
    import sqlalchemy as sa

    from storage import postgres

    db = await open_store(url)
    try:
        t = await _running_table(db)
    finally:
        await db.close()
    # SQLAlchemy's named marks for asyncpg's numbered ones ("$4" -> ":p4", "$4::text" -> a CAST)
    sql = re.sub(r"\$(\d+)::(\w+)", r"CAST(:p\1 AS \2)", postgres.COMMIT_STEP)
    statement = sa.text(re.sub(r"\$(\d+)", r":p\1", sql))
    engine = _engine(url, sa_url)
    conn = await (await engine.connect()).execution_options(isolation_level="AUTOCOMMIT")  # one statement
    try:
        async def step(i: int) -> None:
            args = postgres.step_arguments(_step(t, i))
            matched = (await conn.execute(statement, {f"p{n}": a for n, a in enumerate(args, 1)})).scalar()
            if matched != 1:
                raise RuntimeError("version conflict")

        return await _time(step, ops)
    finally:
        await conn.close()
        await engine.dispose()


def _median(runs: list[float]) -> str:
    return f"{statistics.median(runs):7.1f} us"


async def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.storage_drivers", description=__doc__.split("\n\n")[0])
    parser.add_argument("--ops", type=int, default=2000, help="operations per run (default 2000)")
    parser.add_argument("--runs", type=int, default=5, help="runs; the median is shown (default 5)")
    parser.add_argument("--postgres", metavar="URL", help="also time PostgreSQL (a scratch schema is made there)")
    args = parser.parse_args(argv)
    try:
        import sqlalchemy
    except ImportError:
        print("SQLAlchemy is not installed: pip install 'sqlalchemy[asyncio]'", file=sys.stderr)
        return 2
    print(f"SQLAlchemy {sqlalchemy.__version__}; {args.ops} operations a run, median of {args.runs} runs")
    rows: dict[str, list[tuple[float, ...]]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for run in range(args.runs):  # the contenders alternate inside each run
            path = str(Path(tmp) / f"d{run}.db")
            rows.setdefault("sqlite driver", []).append(await _driver(path, args.ops))
            path = str(Path(tmp) / f"s{run}.db")
            rows.setdefault("sqlite sqlalchemy core", []).append(
                await _sqlalchemy(path, f"sqlite+aiosqlite:///{path}", args.ops))
            path = str(Path(tmp) / f"i{run}.db")
            rows.setdefault("sqlite sqlalchemy core inline", []).append(await _sqlalchemy_inline(path, args.ops))
            if args.postgres:
                from storage.postgres import create_schema, drop_schema

                for name, timed in (("driver", "d"), ("sqlalchemy core", "s"), ("sqlalchemy text", "t")):
                    schema = f"bench_drivers_{timed}{run}"
                    url = await create_schema(args.postgres, schema, replace=True)
                    sa_url = url.replace("postgresql://", "postgresql+asyncpg://", 1)
                    try:
                        if timed == "d":
                            got: tuple[float, ...] = await _driver(url, args.ops)
                        elif timed == "s":
                            got = await _sqlalchemy(url, sa_url, args.ops)
                        else:
                            got = (await _sqlalchemy_text(url, sa_url, args.ops),)
                    finally:
                        await drop_schema(args.postgres, schema)
                    rows.setdefault(f"postgres {name}", []).append(got)
    print(f"{'':28}{'step write':>12}{'table read':>14}")
    for name, runs in rows.items():
        write = _median([r[0] for r in runs])
        read = _median([r[1] for r in runs]) if len(runs[0]) > 1 else ""
        print(f"{name:28}{write:>12}{read:>14}")
    return 0


if __name__ == "__main__":
    raise SystemExit(asyncio.run(main()))
