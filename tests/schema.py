"""What a store's schema is, read from the database's own catalogue, in a form two databases can be
compared by (JSON-ready, sorted, whitespace of stored SQL text collapsed).

``tests/data/schema_sqlite.json`` and ``tests/data/schema_postgres.json`` hold, for each schema
version 1..8, what the previous storage layer (its SQLite migrations, translated to PostgreSQL by
regular expressions) left in a database, and for each later version what its migration file made
when it was added; ``tests/test_schema.py`` checks the migration files produce the very same
schema, version by version.
"""

from __future__ import annotations

import re
import sqlite3
from typing import Any

DATA_FILES = {"sqlite": "schema_sqlite.json", "postgres": "schema_postgres.json"}


def _collapse(sql: str | None) -> str | None:
    """SQL text with every run of white space made one space, none inside parentheses' edges."""
    if sql is None:
        return None
    sql = re.sub(r"\s+", " ", sql).strip()
    return re.sub(r"\( ", "(", re.sub(r" \)", ")", sql))


def sqlite_schema(conn: sqlite3.Connection) -> dict[str, Any]:
    """Every table and index of a SQLite database: ``sqlite_master`` (SQL text collapsed) and, per
    table, its columns (``PRAGMA table_xinfo``), foreign keys and indexes with their columns."""
    master = [[t, n, tn, _collapse(sql)] for t, n, tn, sql in conn.execute(
        "SELECT type, name, tbl_name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_stat%' ORDER BY type, name")]
    tables: dict[str, Any] = {}
    for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").fetchall():
        columns = [list(r) for r in conn.execute(f'PRAGMA table_xinfo("{name}")')]
        keys = sorted(list(r) for r in conn.execute(f'PRAGMA foreign_key_list("{name}")'))
        indexes = {}
        for _seq, index, unique, origin, partial in conn.execute(f'PRAGMA index_list("{name}")').fetchall():
            cols = [r[2] for r in conn.execute(f'PRAGMA index_info("{index}")')]
            indexes[index] = [unique, origin, partial, cols]
        tables[name] = {"columns": columns, "foreign_keys": keys, "indexes": dict(sorted(indexes.items()))}
    return {"master": master, "tables": tables}


async def postgres_schema(conn: Any) -> dict[str, Any]:
    """Every table, column, index, constraint and sequence of the connection's current schema
    (an ``asyncpg`` connection): ``information_schema.columns`` (type, nullability, default,
    identity), ``pg_indexes`` definitions, ``pg_constraint`` definitions, ``pg_sequence`` rows."""
    columns = [list(r) for r in await conn.fetch(
        "SELECT table_name, column_name, ordinal_position, data_type, is_nullable, column_default, is_identity,"
        " identity_generation, identity_start, identity_increment, character_maximum_length, numeric_precision"
        " FROM information_schema.columns WHERE table_schema = current_schema()"
        " ORDER BY table_name, ordinal_position")]
    indexes = [list(r) for r in await conn.fetch(
        "SELECT tablename, indexname, replace(indexdef, current_schema() || '.', '') FROM pg_indexes"
        " WHERE schemaname = current_schema() ORDER BY tablename, indexname")]
    constraints = [list(r) for r in await conn.fetch(
        "SELECT c.conrelid::regclass::text, c.conname, c.contype::text, pg_get_constraintdef(c.oid)"
        " FROM pg_constraint c JOIN pg_namespace n ON n.oid = c.connamespace"
        " WHERE n.nspname = current_schema() ORDER BY 1, 2")]
    sequences = [list(r) for r in await conn.fetch(
        "SELECT c.relname, s.seqtypid::regtype::text, s.seqstart, s.seqincrement, s.seqmax, s.seqcycle"
        " FROM pg_sequence s JOIN pg_class c ON c.oid = s.seqrelid JOIN pg_namespace n ON n.oid = c.relnamespace"
        " WHERE n.nspname = current_schema() ORDER BY c.relname")]
    return {"columns": columns, "indexes": indexes, "constraints": constraints, "sequences": sequences}


def dumps(schemas: dict[str, Any]) -> str:
    """JSON text of ``{version: schema}`` with one catalogue row a line (readable diffs)."""
    import json

    def block(value: Any, indent: str) -> str:
        if isinstance(value, dict) and value:
            inner = ",\n".join(f"{indent} {json.dumps(k)}: {block(v, indent + ' ')}" for k, v in value.items())
            return "{\n" + inner + "\n" + indent + "}"
        if isinstance(value, list) and value and isinstance(value[0], list):
            return "[\n" + ",\n".join(f"{indent} {json.dumps(v)}" for v in value) + "\n" + indent + "]"
        return json.dumps(value)

    return block(schemas, "") + "\n"
