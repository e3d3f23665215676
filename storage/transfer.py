"""Moving a SQLite store into PostgreSQL (``python -m bot migrate-data``): every table there is,
row for row, in one PostgreSQL transaction, with the bot stopped.

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

from collections.abc import Callable
from pathlib import Path

from storage.postgres import PostgresDatabase
from storage.sqlite import Database

__all__ = ["LOCAL_GUILD", "TargetNotEmpty", "TransferError", "copy_sqlite_to_postgres", "local_tables"]

_CHUNK = 5000  # rows read and written at a time
#: The guild id of the terminal's local games (``bot.terminal``: ``open_lobby(guild_id=0, ...)``).
LOCAL_GUILD = 0
_LOCAL_IDS = f"SELECT id FROM game_tables WHERE guild_id = {LOCAL_GUILD}"


class TransferError(RuntimeError):
    """The copy cannot be made (different schemas, a missing source); nothing was written."""


class TargetNotEmpty(TransferError):
    """The target database already holds rows (``counts``: table -> rows); nothing was written."""

    def __init__(self, counts: dict[str, int]) -> None:
        listed = ", ".join(f"{t}: {n}" for t, n in counts.items())
        super().__init__(f"the target database is not empty ({listed}); migrate-data only fills an empty "
                         "database, it never overwrites or merges")
        self.counts = counts


async def _sqlite_tables(source: Database) -> list[str]:
    """The source's tables, each after the tables its foreign keys point to."""
    rows = await source._all("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
                             " ORDER BY name")
    names = [r["name"] for r in rows]
    parents = {n: {r["table"] for r in await source._all(f'PRAGMA foreign_key_list("{n}")')} - {n} for n in names}
    ordered: list[str] = []
    while len(ordered) < len(names):
        ready = [n for n in names if n not in ordered and parents[n] <= set(ordered)]
        if not ready:
            raise TransferError(f"circular foreign keys among {sorted(set(names) - set(ordered))}")
        ordered.extend(ready)
    return ordered


async def _columns(source: Database, table: str) -> list[str]:
    return [r["name"] for r in await source._all(f'PRAGMA table_info("{table}")')]


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


async def local_tables(source: Database) -> int:
    """How many game tables of ``source`` are the terminal's local games (guild 0)."""
    row = await source._one(f"SELECT count(*) AS n FROM ({_LOCAL_IDS}) AS local_ids")
    return int(row["n"]) if row is not None else 0


async def copy_sqlite_to_postgres(source: Database, target: PostgresDatabase,
                                  progress: Callable[[str, int], None] | None = None,
                                  *, local_games: bool = False) -> dict[str, int]:
    """Copy every row of every table of ``source`` into ``target``; returns ``{table: rows}``.
    The terminal's local games (guild 0, module docstring) are left out unless ``local_games``.

    Both stores must be open (so migrated to the same version). Raises :class:`TargetNotEmpty`
    when the target holds any row, :class:`TransferError` when a source table or column has no
    counterpart in the target; asyncpg errors on a value the target refuses. Nothing is written
    unless everything is (one transaction). ``progress(table, rows)`` is called after each table.
    """
    if await source.schema_version() != await target.schema_version():
        raise TransferError(f"schema versions differ (source {await source.schema_version()}, "
                            f"target {await target.schema_version()})")
    tables = await _sqlite_tables(source)
    pg = target._pg
    target_cols: dict[str, list[str]] = {}
    for r in await pg.fetch("SELECT table_name, column_name FROM information_schema.columns"
                            " WHERE table_schema = current_schema() ORDER BY table_name, ordinal_position"):
        target_cols.setdefault(r["table_name"], []).append(r["column_name"])
    for table in tables:
        if table not in target_cols:
            raise TransferError(f"the target has no table {table!r}")
        missing = set(await _columns(source, table)) - set(target_cols[table])
        if missing:
            raise TransferError(f"the target's {table!r} has no column {sorted(missing)}")
    counts = {t: int(await pg.fetchval(f'SELECT count(*) FROM "{t}"')) for t in target_cols if t != "speakeasy_schema"}
    if any(counts.values()):
        raise TargetNotEmpty({t: n for t, n in counts.items() if n})
    sequences = {r["name"]: int(r["seq"]) for r in await source._all("SELECT name, seq FROM sqlite_sequence")} \
        if await source._one("SELECT 1 FROM sqlite_master WHERE name = 'sqlite_sequence'") else {}
    copied: dict[str, int] = {}
    async with target.transaction():
        for table in tables:
            columns = await _columns(source, table)
            names = ", ".join(f'"{c}"' for c in columns)
            keep = "1 = 1" if local_games else _without_local(table, columns)
            total = 0
            last = 0
            while True:  # by rowid, a chunk at a time
                rows = await source._all(f'SELECT rowid AS "__rowid", {names} FROM "{table}" WHERE rowid > ?'
                                         f" AND ({keep}) ORDER BY rowid LIMIT {_CHUNK}", (last,))
                if not rows:
                    break
                last = rows[-1]["__rowid"]
                await pg.copy_records_to_table(table, records=[tuple(r)[1:] for r in rows], columns=columns,
                                               schema_name=await pg.fetchval("SELECT current_schema()"))
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
    return copied


def source_problem(path: str | Path) -> str | None:
    """Why ``path`` is not a SQLite store to copy from (``None`` when it is): missing, a folder,
    or not a SQLite database. Never creates a file."""
    import sqlite3

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
