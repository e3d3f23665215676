"""The migration files (``storage/migrations/<dialect>/``) make, version by version, the very
schema the previous storage layer made: its SQLite migrations, and on PostgreSQL their
regex-translated form, recorded in ``tests/data/schema_sqlite.json`` and
``tests/data/schema_postgres.json`` (:mod:`tests.schema`). So a database that layer left at any
version migrates forward exactly as a new one does."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from storage.factory import open_store
from storage.migrations import latest, migrations
from tests.schema import DATA_FILES, postgres_schema, sqlite_schema

DATA = Path(__file__).parent / "data"
VERSIONS = range(1, 13)


def test_both_dialects_have_the_same_versions_and_names():
    assert latest("sqlite") == latest("postgres") == len(VERSIONS)
    assert [m.name for m in migrations("sqlite")] == [m.name for m in migrations("postgres")]


@pytest.mark.parametrize("version", VERSIONS)
async def test_the_files_make_the_recorded_schema_at_each_version(version, backend, new_db_url):
    recorded = json.loads((DATA / DATA_FILES[backend]).read_text(encoding="utf-8"))[str(version)]
    url = await new_db_url()
    db = await open_store(url, upto=version)
    await db.close()
    if backend == "sqlite":
        conn = sqlite3.connect(url)
        try:
            got = sqlite_schema(conn)
        finally:
            conn.close()
    else:
        import asyncpg

        pg = await asyncpg.connect(url)
        try:
            got = await postgres_schema(pg)
        finally:
            await pg.close()
    assert json.loads(json.dumps(got, default=str)) == recorded
