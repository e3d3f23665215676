"""Stores are checked when they open: a schema newer than the code (a rollback to an older
Speakeasy) is refused on both stores, and so is a SQLite file that fails ``PRAGMA quick_check``;
the bot and the terminal say so in one line and exit 2, without a traceback."""

from __future__ import annotations

import asyncio
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from storage.base import DatabaseDamaged, SchemaTooNew
from storage.factory import open_store, store_problem
from storage.migrations import latest
from tests.stores import BACKENDS, fresh_postgres_url

ROOT = Path(__file__).resolve().parents[1]


async def _from_the_future(url: str) -> int:
    """A store with one table whose schema version is then set to 99 (as a newer Speakeasy
    would leave it); returns the table's id."""
    db = await open_store(url)
    try:
        table = await db.create_table(guild_id=1, channel_id=1, game="g", host_user_id=1, lang="en", options={},
                                      now=0)
    finally:
        await db.close()
    if url.startswith("postgresql"):
        import asyncpg

        conn = await asyncpg.connect(url)
        try:
            await conn.execute("UPDATE speakeasy_schema SET version = 99")
        finally:
            await conn.close()
    else:
        conn = sqlite3.connect(url)
        conn.execute("PRAGMA user_version = 99")
        conn.close()
    return table


async def _version(url: str) -> int:
    if url.startswith("postgresql"):
        import asyncpg

        conn = await asyncpg.connect(url)
        try:
            return int(await conn.fetchval("SELECT version FROM speakeasy_schema"))
        finally:
            await conn.close()
    conn = sqlite3.connect(url)
    try:
        return int(conn.execute("PRAGMA user_version").fetchone()[0])
    finally:
        conn.close()


async def test_a_schema_newer_than_the_code_is_refused_and_left_as_it_is(db_url):
    table = await _from_the_future(db_url)
    with pytest.raises(SchemaTooNew) as refused:
        await open_store(db_url)
    assert (refused.value.found, refused.value.known) == (99, latest())
    assert "version 99" in str(refused.value) and f"({latest()})" in str(refused.value)
    problem = await asyncio.to_thread(store_problem, db_url)  # the check before the bot starts
    assert problem == str(refused.value)
    assert await _version(db_url) == 99  # nothing migrated, nothing written
    if db_url.startswith("postgresql"):
        import asyncpg

        conn = await asyncpg.connect(db_url)
        try:
            assert await conn.fetchval("SELECT game FROM game_tables WHERE id = $1", table) == "g"
        finally:
            await conn.close()
    else:
        lite = sqlite3.connect(db_url)
        try:
            assert lite.execute("SELECT game FROM game_tables WHERE id = ?", (table,)).fetchone() == ("g",)
        finally:
            lite.close()


def damaged_file(path: Path) -> Path:
    """A real multi-page store, then garbage written over one page in the middle of the file
    (the table and index pages around it intact; no free page, the WAL folded in first)."""
    async def fill() -> None:
        db = await open_store(path)
        try:
            async with db.transaction():
                for i in range(400):
                    t = await db.create_table(guild_id=1, channel_id=1, game="g", host_user_id=i, lang="en",
                                              options={"i": i, "pad": "x" * 200}, now=float(i))
                    await db.record_events(t, 0, [{"key": "opening", "text": "y" * 100}])
        finally:
            await db.close()

    asyncio.run(fill())
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    page_size, pages = conn.execute("PRAGMA page_size").fetchone()[0], conn.execute("PRAGMA page_count").fetchone()[0]
    assert conn.execute("PRAGMA freelist_count").fetchone()[0] == 0 and pages > 50
    assert conn.execute("PRAGMA quick_check").fetchone()[0] == "ok"
    conn.close()
    with open(path, "r+b") as f:
        f.seek((pages // 2 - 1) * page_size)
        f.write(bytes(range(7, 256, 3)) * (page_size // 83 + 1))  # not a b-tree page any more
    return path


def test_a_sqlite_file_with_a_corrupted_page_in_the_middle_is_refused(tmp_path):
    path = damaged_file(tmp_path / "damaged.db")
    assert store_problem(path) is None  # its header and schema read fine: only the full check sees it
    with pytest.raises(DatabaseDamaged) as refused:
        asyncio.run(open_store(path))
    assert 'docs/operations.md, "Backups"' in str(refused.value) and "\n" not in str(refused.value)


def _stderr_lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.strip()]


@pytest.mark.parametrize("backend", BACKENDS)
def test_the_bot_refuses_a_newer_schema_in_one_line_before_discord(backend, tmp_path, monkeypatch, capsys):
    from bot.__main__ import run_bot

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("DISCORD_TOKEN", "a-token")
    url = str(tmp_path / "future.db") if backend == "sqlite" else asyncio.run(fresh_postgres_url())
    asyncio.run(_from_the_future(url))
    monkeypatch.setenv("DATABASE_URL", url)
    assert run_bot() == 2
    err = _stderr_lines(capsys.readouterr().err)
    assert len(err) == 1 and err[0].startswith("DATABASE_URL=") and "Traceback" not in err[0]
    assert "version 99" in err[0] and f"({latest()})" in err[0]


def test_the_bot_refuses_a_damaged_file_in_one_line_before_discord(tmp_path, monkeypatch, capsys):
    from bot.__main__ import run_bot

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("DISCORD_TOKEN", "a-token")
    monkeypatch.delenv("DATABASE_URL", raising=False)
    monkeypatch.setenv("DATABASE_PATH", str(damaged_file(tmp_path / "damaged.db")))
    assert run_bot() == 2  # the store is opened before Discord is contacted: no network needed
    err = _stderr_lines(capsys.readouterr().err)
    assert len(err) == 1 and err[0].startswith("DATABASE_PATH=") and "Traceback" not in err[0]
    assert "damaged" in err[0] and 'docs/operations.md, "Backups"' in err[0]


@pytest.mark.parametrize("case", ["damaged", "future"])
def test_the_terminal_refuses_them_in_one_line(case, tmp_path):
    path = tmp_path / f"{case}.db"
    if case == "damaged":
        damaged_file(path)
    else:
        asyncio.run(_from_the_future(str(path)))
    done = subprocess.run([sys.executable, "-m", "bot", "play", "--resume", "--db", str(path)], cwd=ROOT,
                          capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
    lines = _stderr_lines(done.stdout) + _stderr_lines(done.stderr)
    assert done.returncode == 2, done.stdout + done.stderr
    assert len(lines) == 1 and "Traceback" not in lines[0], lines
    assert str(path) in lines[0]
    assert ("damaged" in lines[0]) if case == "damaged" else ("version 99" in lines[0] and f"({latest()})" in lines[0])
