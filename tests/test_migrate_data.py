"""Choosing the store (``DATABASE_URL``) and moving a SQLite store into PostgreSQL
(``python -m bot migrate-data``): everything copied, ids never given twice, a non-empty target
refused, bad URLs and unreachable servers explained without a traceback or the password."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from bot.migrate import copy_store
from storage.factory import open_store
from storage.sqlite import SqliteStore
from tests.stores import fresh_postgres_url, raw_sql

DATA = Path(__file__).parent / "data"
TABLES = ("game_tables", "seats", "actions", "events", "pending", "timers", "results", "result_seats", "ratings",
          "decks")


async def _rows(db_url: str, table: str) -> list[tuple]:
    rows = await raw_sql(db_url, f"SELECT * FROM {table}")
    return sorted((tuple(r.values()) for r in rows), key=repr)


async def test_migrate_data_copies_every_table_into_postgres_and_ids_go_on_past_the_copied_ones(tmp_path):
    path = tmp_path / "old.db"
    shutil.copy(DATA / "legacy_v1.db", path)  # never touch tests/data itself
    url = await fresh_postgres_url()
    lines: list[str] = []
    assert await copy_store(str(path), url, out=lines.append) == 0
    assert "6 running game table(s) resume there" in lines[-1]
    src_url, dst_url = str(path), url
    src, dst = await open_store(path), await open_store(url)
    try:
        for table in TABLES:  # row for row, value for value
            assert await _rows(dst_url, table) == await _rows(src_url, table), table
            # the fixture's timers are turn deadlines, kept in the tables' rows since migration 8
            assert await _rows(src_url, table) or table in ("pending", "timers"), f"the fixture has no {table} row"
        assert await dst.timers() == await src.timers() and await src.timers()
        top = max(r.id for r in await src.tables_with_status("finished") + await src.tables_with_status("running"))
        new = await dst.create_table(guild_id=1, channel_id=1, game="g", host_user_id=1, lang="en", options={}, now=0)
        assert new > top
        deck = await dst.save_deck(1, "shop-battle", "another", {"cards": []}, 1, 0.0)
        assert deck > max(d for d, _ in await src.decks(1, "shop-battle"))
    finally:
        await src.close()
        await dst.close()
    lines.clear()  # a second run: the target is not empty any more, nothing is written
    assert await copy_store(str(path), url, out=lines.append) == 2
    assert "not empty" in lines[-1] and "game_tables: 8" in lines[-1]


async def test_migrate_data_to_postgres_refuses_what_it_cannot_use(tmp_path):
    lines: list[str] = []
    url = await fresh_postgres_url()
    assert await copy_store(str(tmp_path / "missing.db"), url, out=lines.append) == 2
    assert "no such file" in lines[-1] and not (tmp_path / "missing.db").exists()  # never created
    (tmp_path / "notes.txt").write_text("not a database " * 100)
    assert await copy_store(str(tmp_path / "notes.txt"), url, out=lines.append) == 2
    assert "not a SQLite database" in lines[-1]
    shutil.copy(DATA / "legacy_v1.db", tmp_path / "old.db")
    assert await copy_store(str(tmp_path / "old.db"), str(tmp_path / "other.db"), out=lines.append) == 2
    assert "give the PostgreSQL database" in lines[-1]
    assert await copy_store(str(tmp_path / "old.db"), "postgresql://bot:s3cret@127.0.0.1:1/db",
                            out=lines.append) == 2
    assert "cannot reach the PostgreSQL server" in lines[-1] and "s3cret" not in lines[-1]
    # a one-letter password: the message stays whole (masking every "o" once gave the password
    # away: "[Errn*** 2] N*** such file ***r direct***ry")
    assert await copy_store(str(tmp_path / "old.db"), "postgresql://x:o@/nope?host=/nonexistent-folder",
                            out=lines.append) == 2
    assert "No such file or directory" in lines[-1] and "x:***@" in lines[-1] and "x:o@" not in lines[-1]


def test_database_url_chooses_the_store_and_a_bad_one_is_explained(tmp_path, monkeypatch, capsys):
    from pydantic import ValidationError

    from bot.__main__ import run_bot
    from bot.settings import load_settings

    monkeypatch.chdir(tmp_path)
    for var in ("DATABASE_URL", "DATABASE_PATH"):
        monkeypatch.delenv(var, raising=False)
    assert load_settings().store_url == "speakeasy.db"  # the default: DATABASE_PATH's
    monkeypatch.setenv("DATABASE_PATH", "data/bot.db")
    assert load_settings().store_url == "data/bot.db"  # DATABASE_PATH keeps working
    monkeypatch.setenv("DATABASE_URL", "sqlite:///other.db")
    assert load_settings().store_url == "sqlite:///other.db"  # DATABASE_URL wins
    monkeypatch.setenv("DATABASE_URL", "mysql://h/db")
    with pytest.raises(ValidationError, match="unsupported database 'mysql'"):
        load_settings()
    monkeypatch.setenv("DISCORD_TOKEN", "a-token")
    assert run_bot() == 2
    assert "Invalid setting DATABASE_URL" in capsys.readouterr().err
    monkeypatch.setenv("DATABASE_URL", "postgresql://bot:s3cret@127.0.0.1:1/speakeasy")
    assert run_bot() == 2  # checked before connecting to Discord
    err = capsys.readouterr().err
    assert "DATABASE_URL=postgresql://bot:***@127.0.0.1:1/speakeasy: cannot reach the PostgreSQL server" in err
    assert "s3cret" not in err and "Traceback" not in err


async def test_open_store_opens_either_backend(db_url, tmp_path):
    from storage.postgres import PostgresStore

    db = await open_store(db_url)
    try:
        assert isinstance(db, PostgresStore) == db_url.startswith("postgresql")
        assert await db.schema_version() > 0
    finally:
        await db.close()
    with pytest.raises(ValueError, match="unsupported database"):
        await open_store("mysql://h/db")
    db = await open_store(f"sqlite:///{tmp_path / 'u.db'}")  # the URL form of a path
    await db.close()
    assert (tmp_path / "u.db").exists()


@pytest.mark.parametrize("url", [
    "postgresql://bot:s3cret@db:54x2/speakeasy",  # a port that is not a number
    "postgresql://bot:s3cret@db:70000/speakeasy",  # out of range
    "postgresql://bot:s3cret@db:5432:1/speakeasy",
    "postgresql://bot:s3cr@t@db/speakeasy",  # an @ in the password, not written %40
    "postgresql://bot:s3/cret@db/speakeasy",  # a / in the password, not written %2F
    "postgresql://bot:s3cret@[::1/speakeasy",  # an unclosed IPv6 bracket
    "postgresql://bot:s3cret@db/speakeasy?sslmode=sometimes",
    "postgresql://bot:s3cret@db/speakeasy?target_session_attrs=bogus",  # only asyncpg knows: its parser says so
    "postgresql:/db/speakeasy",  # one slash: not to be taken for a SQLite file name
])
def test_a_malformed_postgresql_url_is_reported_as_malformed_not_as_a_refused_connection(url, tmp_path,
                                                                                          monkeypatch):
    from storage.factory import store_problem

    monkeypatch.chdir(tmp_path)  # a URL mistaken for a path must not create anything
    problem = store_problem(url)
    assert problem is not None and problem.startswith(("malformed PostgreSQL URL", "malformed URL")), problem
    assert "refused" not in problem and "reach" not in problem
    assert "s3" not in problem and "cret" not in problem, "no part of the password"
    assert list(tmp_path.iterdir()) == []


def test_well_formed_postgresql_urls_pass_the_form_check():
    from storage.factory import url_problem

    for url in ("postgresql://bot:s%40cret@db:5432/speakeasy", "postgres://db", "postgresql://u@h1:5432,h2:5433/db",
                "postgresql://bot:pw@[::1]:5432/db", "postgresql:///speakeasy?host=/run/postgresql",
                "postgresql://bot@db/speakeasy?sslmode=require"):
        assert url_problem(url) is None, url


def test_a_malformed_database_url_stops_the_bot_before_discord(tmp_path, monkeypatch, capsys):
    from bot.__main__ import run_bot

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("DISCORD_TOKEN", "a-token")
    monkeypatch.setenv("DATABASE_URL", "postgresql://bot:s3cret@db:54x2/speakeasy")
    assert run_bot() == 2
    err = capsys.readouterr().err
    assert "Invalid setting DATABASE_URL: malformed PostgreSQL URL: a port must be a number" in err
    assert "s3cret" not in err and "Traceback" not in err


async def _add_local_game(path: Path) -> int:
    """A finished terminal game (guild 0, as `play --db` on the bot's file writes it): table,
    seats, events, a timer, a result and a rating, and a guild-0 deck."""
    from storage.base import RatingRow, SeatRow, TimerRow

    db = await SqliteStore.open(path)
    try:
        tid = await db.create_table(guild_id=0, channel_id=0, game="gang-of-dice", host_user_id=1, lang="en",
                                    options={}, now=1.0)
        await db.replace_seats(tid, [SeatRow(0, 1, "Player 1 (you)", False), SeatRow(1, None, "AI 1", True)])
        await db.record_events(tid, 1, [{"key": "god.round", "params": {"round": 1, "card": "sum13"}}])
        await db.set_timer(TimerRow(f"turn:{tid}", 5.0, {}))
        await db.record_result(tid, guild_id=0, game="gang-of-dice", outcome={"ranks": [1, 2]},
                               seats=[(0, 1, 1, 30), (1, None, 2, 18)], now=2.0)
        await db.save_rating(0, "gang-of-dice", RatingRow(user_id=1, mu=27.0, sigma=7.0, played=1, won=1))
        await db.save_deck(0, "shop-battle", "local", {"cards": []}, 1, 0.0)
        return tid
    finally:
        await db.close()


async def test_migrate_data_leaves_the_terminals_local_games_out_unless_asked(tmp_path):
    path = tmp_path / "old.db"
    shutil.copy(DATA / "legacy_v1.db", path)
    local = await _add_local_game(path)
    url = await fresh_postgres_url()
    lines: list[str] = []
    assert await copy_store(str(path), url, out=lines.append) == 0
    assert "Left out 1 local terminal game table(s) (guild 0" in "\n".join(lines) and "--include-local" in lines[-2]
    src_url, dst_url = str(path), url
    src, dst = await open_store(path), await open_store(url)
    try:
        # the local game's turn timer is in its table row (migration 8): left out with the row
        left_out = {"game_tables": 1, "seats": 2, "events": 1, "results": 1, "result_seats": 2, "ratings": 1,
                    "decks": 1}
        for table in TABLES:  # every row but the local game's
            theirs, ours = await _rows(src_url, table), await _rows(dst_url, table)
            assert set(ours) <= set(theirs) and len(theirs) - len(ours) == left_out.get(table, 0), table
        for guild_table in ("game_tables", "results", "ratings", "decks"):
            assert not await raw_sql(url, f"SELECT * FROM {guild_table} WHERE guild_id = 0"), guild_table
        for child in ("seats", "events", "result_seats"):
            assert not await raw_sql(url, f"SELECT * FROM {child} WHERE table_id = {local}"), child
        assert await dst.timer(f"turn:{local}") is None
        assert {r.key for r in await dst.timers()} == {r.key for r in await src.timers()} - {f"turn:{local}"}
        assert len(await dst.tables_with_status("running")) == 6  # the server's tables are all there
        new = await dst.create_table(guild_id=1, channel_id=1, game="g", host_user_id=1, lang="en", options={}, now=0)
        assert new > local, "an id left out is never given again"
    finally:
        await src.close()
        await dst.close()
    everything = await fresh_postgres_url()
    lines.clear()
    assert await copy_store(str(path), everything, out=lines.append, local_games=True) == 0
    assert not any("Left out" in line for line in lines)
    src_url, dst_url = str(path), everything
    src, dst = await open_store(path), await open_store(everything)
    try:
        for table in TABLES:
            assert await _rows(dst_url, table) == await _rows(src_url, table), table
    finally:
        await src.close()
        await dst.close()


def test_migrate_data_command_line_takes_include_local():
    from bot.__main__ import build_parser

    args = build_parser().parse_args(["migrate-data", "--from", "a.db", "--to", "postgresql://h/db"])
    assert args.include_local is False
    args = build_parser().parse_args(["migrate-data", "--from", "a.db", "--to", "postgresql://h/db", "--include-local"])
    assert args.include_local is True
