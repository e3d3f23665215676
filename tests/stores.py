"""Both storage backends for the tests: the ``db_url`` fixture gives each test a fresh, empty
store URL, once per backend (test ids ``[sqlite]`` and ``[postgres]``).

SQLite: a file in the test's ``tmp_path``. PostgreSQL: a new schema on the server named by
``TEST_DATABASE_URL`` (``scripts/test.sh`` starts a throwaway server and sets it), reached
through ``search_path`` in the URL, so a store opened on it sees an empty database and migrates
it (a few tens of milliseconds). Without ``TEST_DATABASE_URL`` the PostgreSQL cases are skipped,
saying why; when ``CI`` is set they fail instead (CI must run them).
"""

from __future__ import annotations

import itertools
import os
import sqlite3
from contextlib import closing
from typing import Any

import pytest

BACKENDS = ("sqlite", "postgres")
NO_SERVER = ("PostgreSQL tests need a server: set TEST_DATABASE_URL=postgresql://... "
             "(./scripts/test.sh starts a throwaway one itself)")
_schemas = itertools.count(1)


def postgres_base_url() -> str:
    """``TEST_DATABASE_URL``; skips the test without it (fails it when ``CI`` is set)."""
    url = os.environ.get("TEST_DATABASE_URL")
    if not url:
        if os.environ.get("CI"):
            pytest.fail(f"CI is set but TEST_DATABASE_URL is not: {NO_SERVER}")
        pytest.skip(NO_SERVER)
    return url


async def fresh_postgres_url() -> str:
    """A URL onto a new, empty schema of the test server."""
    from storage.postgres import create_schema

    return await create_schema(postgres_base_url(), f"t{os.getpid()}_{next(_schemas)}", replace=True)


async def raw_sql(db_url: str, sql: str) -> list[dict[str, Any]]:
    """Run one literal SQL statement on the store at ``db_url`` (a SQLite path or a PostgreSQL
    URL) through its database's own driver, beside the store: rows as an older version wrote them,
    or what a step left in a column. Write it the same in both dialects. Returns the rows, as
    dicts (none for a statement that returns none)."""
    if db_url.startswith("postgresql"):
        import asyncpg

        conn = await asyncpg.connect(db_url)  # its search_path parameter: the store's schema
        try:
            return [dict(r) for r in await conn.fetch(sql)]
        finally:
            await conn.close()
    with closing(sqlite3.connect(db_url)) as conn:
        conn.row_factory = sqlite3.Row
        with conn:  # committed
            return [dict(r) for r in conn.execute(sql).fetchall()]


@pytest.fixture(params=BACKENDS)
def backend(request) -> str:
    """``sqlite`` or ``postgres``: the storage backend of this run of the test."""
    return request.param


@pytest.fixture
def new_db_url(backend, tmp_path):
    """``await new_db_url()``: another fresh empty store on the test's backend (each call a new one)."""
    files = itertools.count(1)

    async def make() -> str:
        if backend == "sqlite":
            return str(tmp_path / f"store{next(files)}.db")
        return await fresh_postgres_url()
    return make


@pytest.fixture
async def db_url(new_db_url) -> str:
    """A fresh empty store: a SQLite file path, or a PostgreSQL URL onto a new schema."""
    return await new_db_url()
