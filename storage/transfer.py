"""Copying a SQLite store into PostgreSQL (``python -m bot migrate-data``, through
:func:`storage.factory.move_to_postgres`): every table there is, row for row, in one PostgreSQL
transaction, with the bot stopped.

Both sides are first brought to the latest schema (opening a store migrates it), so they hold
the same tables and columns; the tables are read from the SQLite file itself (so a table added by
a later migration is copied too), parents before children (foreign keys), and written with
PostgreSQL's ``COPY``. Identity sequences are then set past the copied ids (past SQLite's
``AUTOINCREMENT`` counters too: an id is never given twice). A target that already holds a row is
refused: nothing is overwritten or merged.

The terminal's local games (``python -m bot play``) live in guild ``0`` (:data:`LOCAL_GUILD`); they
are left out unless asked (``local_games=True``): rows with ``guild_id = 0``, rows whose
``table_id`` is a guild-0 table, and timers ``<kind>:<id>`` of a guild-0 table. A server's
database only holds them when someone played locally with ``--db`` on the bot's own file.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import aiosqlite
import asyncpg

from storage.base import TargetNotEmpty, TransferError

__all__ = ["LOCAL_GUILD", "Copied", "copy_sqlite_to_postgres", "source_problem"]

_CHUNK = 5000  # rows read and written at a time
#: The guild id of the terminal's local games (``bot.terminal``: ``open_lobby(guild_id=0, ...)``).
LOCAL_GUILD = 0
_LOCAL_IDS = f"SELECT id FROM game_tables WHERE guild_id = {LOCAL_GUILD}"


@dataclass(frozen=True)
class Copied:
    """What :func:`copy_sqlite_to_postgres` did: ``rows`` copied per table, the ``running`` game
    tables the target now holds, and the local game tables ``left_out`` (guild 0)."""

    rows: dict[str, int]
    running: int
    left_out: int


async def _tables(source: aiosqlite.Connection) -> list[str]:
    """The source's tables, each after the tables its foreign keys point to."""
    async with source.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
                              " ORDER BY name") as cur:
        names = [r[0] for r in await cur.fetchall()]
    parents = {}
    for name in names:
        async with source.execute(f'PRAGMA foreign_key_list("{name}")') as cur:
            parents[name] = {r["table"] for r in await cur.fetchall()} - {name}
    ordered: list[str] = []
    while len(ordered) < len(names):
        ready = [n for n in names if n not in ordered and parents[n] <= set(ordered)]
        if not ready:
            raise TransferError(f"circular foreign keys among {sorted(set(names) - set(ordered))}")
        ordered.extend(ready)
    return ordered


async def _columns(source: aiosqlite.Connection, table: str) -> list[str]:
    async with source.execute(f'PRAGMA table_info("{table}")') as cur:
        return [r["name"] for r in await cur.fetchall()]


def _without_local(table: str, columns: list[str]) -> str:
    """The SQLite condition that leaves out the local games' rows of ``table`` (``1 = 1`` when
    none of its rows can belong to them)."""
    if "guild_id" in columns:
        return f"guild_id <> {LOCAL_GUILD}"
    if "table_id" in columns:
        return f"table_id NOT IN ({_LOCAL_IDS})"
    if table == "timers":  # '<kind>:<table id>'; other timers belong to no table
        return f"substr(key, instr(key, ':') + 1) NOT IN (SELECT CAST(id AS TEXT) FROM ({_LOCAL_IDS}))"
    return "1 = 1"


async def _one(source: aiosqlite.Connection, sql: str) -> int:
    async with source.execute(sql) as cur:
        row = await cur.fetchone()
    return int(row[0]) if row is not None else 0


async def copy_sqlite_to_postgres(source: str | Path, target: str, progress: Callable[[str, int], None] | None = None,
                                  *, local_games: bool = False) -> Copied:
    """Copy every row of every table of the SQLite file ``source`` into the PostgreSQL database
    ``target`` (a URL). The terminal's local games (guild 0, module docstring) are left out
    unless ``local_games``.

    Both must be at the same schema version (open each as a store first: that migrates it).
    Raises :class:`storage.base.TargetNotEmpty` when the target holds any row,
    :class:`storage.base.TransferError` when the versions differ or a source table or column
    has no counterpart in the target; asyncpg errors on a value the target refuses. Nothing is
    written unless everything is (one transaction). ``progress(table, rows)`` is called after
    each table.
    """
    src = await aiosqlite.connect(str(source))
    src.row_factory = aiosqlite.Row
    try:
        pg = await asyncpg.connect(target)
        try:
            return await _copy(src, pg, progress, local_games)
        finally:
            await pg.close()
    finally:
        await src.close()


async def _copy(src: aiosqlite.Connection, pg: asyncpg.Connection, progress: Callable[[str, int], None] | None,
                local_games: bool) -> Copied:
    versions = (await _one(src, "PRAGMA user_version"),
                int(await pg.fetchval("SELECT COALESCE(max(version), 0) FROM speakeasy_schema")))
    if versions[0] != versions[1]:
        raise TransferError(f"schema versions differ (source {versions[0]}, target {versions[1]})")
    tables = await _tables(src)
    target_cols: dict[str, list[str]] = {}
    for r in await pg.fetch("SELECT table_name, column_name FROM information_schema.columns"
                            " WHERE table_schema = current_schema() ORDER BY table_name, ordinal_position"):
        target_cols.setdefault(r["table_name"], []).append(r["column_name"])
    for table in tables:
        if table not in target_cols:
            raise TransferError(f"the target has no table {table!r}")
        missing = set(await _columns(src, table)) - set(target_cols[table])
        if missing:
            raise TransferError(f"the target's {table!r} has no column {sorted(missing)}")
    counts = {t: int(await pg.fetchval(f'SELECT count(*) FROM "{t}"')) for t in target_cols if t != "speakeasy_schema"}
    if any(counts.values()):
        raise TargetNotEmpty({t: n for t, n in counts.items() if n})
    sequences: dict[str, int] = {}
    if await _one(src, "SELECT count(*) FROM sqlite_master WHERE name = 'sqlite_sequence'"):
        async with src.execute("SELECT name, seq FROM sqlite_sequence") as cur:
            sequences = {r["name"]: int(r["seq"]) for r in await cur.fetchall()}
    left_out = 0 if local_games else await _one(src, f"SELECT count(*) FROM ({_LOCAL_IDS}) AS local_ids")
    schema = await pg.fetchval("SELECT current_schema()")
    copied: dict[str, int] = {}
    async with pg.transaction():
        for table in tables:
            columns = await _columns(src, table)
            names = ", ".join(f'"{c}"' for c in columns)
            keep = "1 = 1" if local_games else _without_local(table, columns)
            total = 0
            last = 0
            while True:  # by rowid, a chunk at a time
                async with src.execute(f'SELECT rowid AS "__rowid", {names} FROM "{table}" WHERE rowid > ?'
                                       f" AND ({keep}) ORDER BY rowid LIMIT {_CHUNK}", (last,)) as cur:
                    rows = list(await cur.fetchall())
                if not rows:
                    break
                last = rows[-1]["__rowid"]
                await pg.copy_records_to_table(table, records=[tuple(r)[1:] for r in rows], columns=columns,
                                               schema_name=schema)
                total += len(rows)
            copied[table] = total
            if progress is not None:
                progress(table, total)
        for table in tables:  # identity sequences past every id given so far
            seq = await pg.fetchval("SELECT pg_get_serial_sequence($1, 'id')", table) if "id" in target_cols[table] \
                else None
            if seq is None:
                continue
            top = max(int(await pg.fetchval(f'SELECT COALESCE(MAX(id), 0) FROM "{table}"')), sequences.get(table, 0))
            if top > 0:
                await pg.execute("SELECT setval($1, $2)", seq, top)
        running = int(await pg.fetchval("SELECT count(*) FROM game_tables WHERE status = 'running'"))
    return Copied(copied, running, left_out)


def source_problem(path: str | Path) -> str | None:
    """Why ``path`` is not a SQLite store to copy from (``None`` when it is): missing, a folder,
    or not a SQLite database. Never creates a file."""
    path = Path(path)
    if not path.exists():
        return "no such file"
    if path.is_dir():
        return "this is a folder; give the SQLite file (speakeasy.db)"
    try:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
        finally:
            conn.close()
    except sqlite3.Error as exc:
        return f"not a SQLite database ({exc})"
    return None
