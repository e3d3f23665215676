"""SQLite access for Speakeasy: connection, migrations, repositories. The only place with SQL.

One :class:`Database` per process wraps one aiosqlite connection (WAL journal, foreign keys on,
``PRAGMA user_version`` tracks the schema). Every method is a small, named query; methods that
must be atomic together take place inside :meth:`Database.transaction`.

Times are UNIX seconds (float), always passed in by the caller (the service owns the clock).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sqlite3
from collections.abc import AsyncIterator, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

import aiosqlite

MIGRATIONS: tuple[str, ...] = (
    # 1: tables, seats, action log, events, pending simultaneous choices, deadlines, results, ratings
    """
    CREATE TABLE game_tables (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        guild_id INTEGER NOT NULL,
        channel_id INTEGER NOT NULL,
        thread_id INTEGER,
        lobby_message_id INTEGER,
        board_message_id INTEGER,
        game TEXT NOT NULL,
        options TEXT NOT NULL DEFAULT '{}',
        status TEXT NOT NULL CHECK (status IN ('lobby', 'running', 'finished', 'abandoned')),
        host_user_id INTEGER NOT NULL,
        lang TEXT NOT NULL DEFAULT 'en',
        seed INTEGER,
        version INTEGER NOT NULL DEFAULT 0,
        state TEXT,
        created_at REAL NOT NULL,
        updated_at REAL NOT NULL
    );
    CREATE INDEX game_tables_guild_status ON game_tables (guild_id, status);
    CREATE INDEX game_tables_thread ON game_tables (thread_id);
    CREATE TABLE seats (
        table_id INTEGER NOT NULL REFERENCES game_tables (id) ON DELETE CASCADE,
        seat INTEGER NOT NULL,
        user_id INTEGER,
        name TEXT NOT NULL,
        is_ai INTEGER NOT NULL CHECK (is_ai IN (0, 1)),
        PRIMARY KEY (table_id, seat)
    );
    CREATE UNIQUE INDEX seats_user ON seats (table_id, user_id) WHERE user_id IS NOT NULL;
    CREATE TABLE actions (
        table_id INTEGER NOT NULL REFERENCES game_tables (id) ON DELETE CASCADE,
        seq INTEGER NOT NULL,
        version INTEGER NOT NULL,
        actions TEXT NOT NULL,
        source TEXT NOT NULL,
        created_at REAL NOT NULL,
        PRIMARY KEY (table_id, seq)
    );
    CREATE TABLE events (
        table_id INTEGER NOT NULL REFERENCES game_tables (id) ON DELETE CASCADE,
        seq INTEGER NOT NULL,
        version INTEGER NOT NULL,
        event TEXT NOT NULL,
        PRIMARY KEY (table_id, seq)
    );
    CREATE TABLE pending (
        table_id INTEGER NOT NULL REFERENCES game_tables (id) ON DELETE CASCADE,
        seat INTEGER NOT NULL,
        version INTEGER NOT NULL,
        code TEXT NOT NULL,
        PRIMARY KEY (table_id, seat)
    );
    CREATE TABLE deadlines (
        table_id INTEGER PRIMARY KEY REFERENCES game_tables (id) ON DELETE CASCADE,
        version INTEGER NOT NULL,
        remind_at REAL NOT NULL,
        act_at REAL NOT NULL,
        reminded INTEGER NOT NULL DEFAULT 0
    );
    CREATE TABLE results (
        table_id INTEGER PRIMARY KEY REFERENCES game_tables (id) ON DELETE CASCADE,
        guild_id INTEGER NOT NULL,
        game TEXT NOT NULL,
        finished_at REAL NOT NULL,
        outcome TEXT NOT NULL
    );
    CREATE TABLE result_seats (
        table_id INTEGER NOT NULL REFERENCES results (table_id) ON DELETE CASCADE,
        seat INTEGER NOT NULL,
        user_id INTEGER,
        rank INTEGER NOT NULL,
        score INTEGER NOT NULL,
        PRIMARY KEY (table_id, seat)
    );
    CREATE TABLE ratings (
        guild_id INTEGER NOT NULL,
        game TEXT NOT NULL,
        user_id INTEGER NOT NULL,
        mu REAL NOT NULL,
        sigma REAL NOT NULL,
        played INTEGER NOT NULL DEFAULT 0,
        won INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (guild_id, game, user_id)
    );
    """,
    # 2: per-guild custom decks (Shop Battle)
    """
    CREATE TABLE decks (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        guild_id INTEGER NOT NULL,
        game TEXT NOT NULL,
        name TEXT NOT NULL,
        data TEXT NOT NULL,
        created_by INTEGER NOT NULL,
        created_at REAL NOT NULL,
        UNIQUE (guild_id, game, name)
    );
    """,
    # 3: a member who went quiet: the AI plays their seat until they come back
    """
    ALTER TABLE seats ADD COLUMN away INTEGER NOT NULL DEFAULT 0 CHECK (away IN (0, 1));
    """,
    # 4: the rules version a table was set up under (Game.rules_version); tables older than
    # versions were all set up under rules 1
    """
    ALTER TABLE game_tables ADD COLUMN rules_version INTEGER NOT NULL DEFAULT 1;
    """,
)


@dataclass(frozen=True)
class TableRow:
    """One row of ``game_tables`` (``state`` and ``options`` already JSON-decoded).

    ``rules_version`` is the game's ``rules_version`` when the table started (1 for a lobby, and
    for every table stored before versions were recorded); replay from ``seed`` and the action
    log is only claimed under that version.
    """

    id: int
    guild_id: int
    channel_id: int
    thread_id: int | None
    lobby_message_id: int | None
    board_message_id: int | None
    game: str
    options: dict[str, Any]
    status: str
    host_user_id: int
    lang: str
    seed: int | None
    version: int
    state: dict[str, Any] | None
    created_at: float
    updated_at: float
    rules_version: int = 1


@dataclass(frozen=True)
class SeatRow:
    """One seat: ``user_id`` is ``None`` for an AI player; ``away`` marks a member who went quiet
    (the AI plays for them until they come back)."""

    seat: int
    user_id: int | None
    name: str
    is_ai: bool
    away: bool = False

    @property
    def autoplay(self) -> bool:
        """True when the AI plays this seat now (an AI player, or a member who is away)."""
        return self.is_ai or self.away


@dataclass(frozen=True)
class RatingRow:
    """A member's rating and stats for one game in one guild."""

    user_id: int
    mu: float
    sigma: float
    played: int
    won: int

    @property
    def ordinal(self) -> float:
        """Conservative skill estimate ``mu - 3 sigma`` (openskill's ordinal).

        >>> RatingRow(user_id=1, mu=25.0, sigma=8.0, played=0, won=0).ordinal
        1.0
        """
        return self.mu - 3 * self.sigma


class DeadlineRow(NamedTuple):
    """The turn deadline of a table: the step at ``version`` gets a reminder at ``remind_at`` and
    the timeout at ``act_at`` (UNIX seconds); ``reminded`` once the reminder was sent."""

    table_id: int
    version: int
    remind_at: float
    act_at: float
    reminded: bool


def _deadline(row: aiosqlite.Row) -> DeadlineRow:
    return DeadlineRow(row["table_id"], row["version"], row["remind_at"], row["act_at"], bool(row["reminded"]))


def _rating(row: aiosqlite.Row) -> RatingRow:
    return RatingRow(row["user_id"], row["mu"], row["sigma"], row["played"], row["won"])


def _table(row: aiosqlite.Row) -> TableRow:
    return TableRow(
        id=row["id"],
        guild_id=row["guild_id"],
        channel_id=row["channel_id"],
        thread_id=row["thread_id"],
        lobby_message_id=row["lobby_message_id"],
        board_message_id=row["board_message_id"],
        game=row["game"],
        options=json.loads(row["options"]),
        status=row["status"],
        host_user_id=row["host_user_id"],
        lang=row["lang"],
        seed=row["seed"],
        version=row["version"],
        state=json.loads(row["state"]) if row["state"] else None,
        created_at=row["created_at"],
        updated_at=row["updated_at"],
        rules_version=row["rules_version"],
    )


def database_problem(path: str | Path) -> str | None:
    """Why the SQLite file at ``path`` cannot be used (``None`` when it can), checked without
    running migrations: a folder, a file that is not a database, or an unwritable place.

    Synchronous, for start-up checks before the event loop runs; creates missing parent folders.
    """
    path = Path(path)
    if path.is_dir():
        return "this is a folder; give a file name such as speakeasy.db"
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(path)
        try:
            conn.execute("PRAGMA schema_version").fetchone()  # a real read: is it a database?
        finally:
            conn.close()
    except (OSError, sqlite3.Error) as exc:
        return f"cannot open the database ({exc})"
    return None


class Database:
    """An open Speakeasy database. Use :meth:`open` (async) and :meth:`close`.

    Raises ``aiosqlite.Error`` subclasses on I/O failure; ``sqlite3.IntegrityError`` on a
    broken constraint (for example a user seated twice at a table).
    """

    def __init__(self, conn: aiosqlite.Connection, path: str) -> None:
        self._conn = conn
        self.path = path
        # One connection is shared by every task: a transaction must not take in statements of
        # another task. The lock serialises access; the task that holds a transaction owns it.
        self._lock = asyncio.Lock()
        self._owner: asyncio.Task[Any] | None = None

    # --- lifecycle -------------------------------------------------------------------------
    @classmethod
    async def open(cls, path: str | Path) -> Database:
        """Open (creating if needed) the database at ``path`` and run pending migrations."""
        path = str(path)
        if path != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        conn = await aiosqlite.connect(path, isolation_level=None)
        conn.row_factory = aiosqlite.Row
        db = cls(conn, path)
        try:
            # WAL + synchronous=NORMAL: durable across application crashes, fast commits
            for pragma in ("PRAGMA journal_mode=WAL", "PRAGMA synchronous=NORMAL", "PRAGMA foreign_keys=ON",
                           "PRAGMA busy_timeout=5000"):
                async with conn.execute(pragma) as cur:
                    await cur.fetchall()
            await db.migrate()
        except BaseException:
            await conn.close()  # its worker thread would keep the process alive
            raise
        return db

    async def close(self) -> None:
        """Close the connection."""
        await self._conn.close()

    async def schema_version(self) -> int:
        """Current ``PRAGMA user_version``."""
        async with self._conn.execute("PRAGMA user_version") as cur:
            row = await cur.fetchone()
        return int(row[0]) if row is not None else 0

    async def migrate(self) -> int:
        """Apply every migration newer than ``user_version``, each in its own transaction."""
        current = await self.schema_version()
        for number, script in enumerate(MIGRATIONS, start=1):
            if number <= current:
                continue
            await self._conn.executescript(f"BEGIN IMMEDIATE;\n{script}\nPRAGMA user_version = {number};\nCOMMIT;")
        return await self.schema_version()

    @contextlib.asynccontextmanager
    async def transaction(self) -> AsyncIterator[None]:
        """``async with db.transaction():`` — everything inside commits together or not at all.

        Other tasks wait until it ends (their statements never land inside it); nested use by
        the same task joins the outer transaction.
        """
        me = asyncio.current_task()
        if self._owner is me:
            yield
            return
        async with self._lock:
            self._owner = me
            try:
                await self._heal()
                await self._raw("BEGIN IMMEDIATE")
                try:
                    yield
                except BaseException:
                    await asyncio.shield(self._raw("ROLLBACK"))
                    raise
                else:
                    await self._raw("COMMIT")
            finally:
                self._owner = None

    async def _heal(self) -> None:
        """Roll back a transaction nobody owns (left by a task cancelled mid-BEGIN/COMMIT).

        Called with the lock held and no owner: any open transaction is an orphan."""
        if self._conn.in_transaction:
            await self._raw("ROLLBACK")

    @contextlib.asynccontextmanager
    async def _access(self) -> AsyncIterator[None]:
        """Exclusive use of the connection for one statement (joined when inside our transaction)."""
        if self._owner is asyncio.current_task():
            yield
        else:
            async with self._lock:
                await self._heal()
                yield

    async def _raw(self, sql: str) -> None:
        async with self._conn.execute(sql) as cur:
            await cur.fetchall()

    async def _one(self, sql: str, args: Iterable[Any] = ()) -> aiosqlite.Row | None:
        async with self._access(), self._conn.execute(sql, tuple(args)) as cur:
            return await cur.fetchone()

    async def _all(self, sql: str, args: Iterable[Any] = ()) -> list[aiosqlite.Row]:
        async with self._access(), self._conn.execute(sql, tuple(args)) as cur:
            return list(await cur.fetchall())

    async def _exec(self, sql: str, args: Iterable[Any] = ()) -> int:
        async with self._access(), self._conn.execute(sql, tuple(args)) as cur:
            return cur.rowcount

    async def _insert(self, sql: str, args: Iterable[Any] = ()) -> int:
        async with self._access(), self._conn.execute(sql, tuple(args)) as cur:
            if cur.lastrowid is None:
                raise RuntimeError(f"no row inserted by {sql!r}")
            return cur.lastrowid

    async def _next_seq(self, table: str, table_id: int) -> int:
        """The next ``seq`` of a table's rows in the append-only ``actions``/``events`` logs."""
        row = await self._one(f"SELECT COALESCE(MAX(seq), 0) AS m FROM {table} WHERE table_id = ?", (table_id,))
        return int(row["m"]) + 1 if row is not None else 1

    # --- tables ----------------------------------------------------------------------------
    async def create_table(
        self, *, guild_id: int, channel_id: int, game: str, host_user_id: int, lang: str,
        options: dict[str, Any], now: float,
    ) -> int:
        """Insert a table in the ``lobby`` status; returns its id."""
        return await self._insert(
            "INSERT INTO game_tables (guild_id, channel_id, game, options, status, host_user_id, lang,"
            " created_at, updated_at) VALUES (?, ?, ?, ?, 'lobby', ?, ?, ?, ?)",
            (guild_id, channel_id, game, json.dumps(options), host_user_id, lang, now, now),
        )

    async def get_table(self, table_id: int) -> TableRow | None:
        """The table with ``table_id`` or ``None``."""
        row = await self._one("SELECT * FROM game_tables WHERE id = ?", (table_id,))
        return _table(row) if row else None

    async def tables_with_status(self, status: str) -> list[TableRow]:
        """Every table with ``status`` (``lobby``, ``running``, ``finished``, ``abandoned``)."""
        return [_table(r) for r in await self._all("SELECT * FROM game_tables WHERE status = ? ORDER BY id", (status,))]

    async def update_table(self, table_id: int, now: float, **fields: Any) -> None:
        """Set columns of a table (``options``/``state`` are JSON-encoded here).

        Raises ``ValueError`` for no field or a column that may not be set.
        """
        allowed = {"thread_id", "lobby_message_id", "board_message_id", "options", "status", "seed",
                   "version", "state", "lang", "rules_version"}
        if not fields or set(fields) - allowed:
            raise ValueError(f"bad fields {sorted(set(fields) - allowed)}")
        values = [json.dumps(v) if k in ("options", "state") and v is not None else v for k, v in fields.items()]
        cols = ", ".join(f"{k} = ?" for k in fields)
        await self._exec(f"UPDATE game_tables SET {cols}, updated_at = ? WHERE id = ?", (*values, now, table_id))

    # --- seats -----------------------------------------------------------------------------
    async def seats(self, table_id: int) -> list[SeatRow]:
        """Seats of a table ordered by seat number."""
        rows = await self._all("SELECT * FROM seats WHERE table_id = ? ORDER BY seat", (table_id,))
        return [SeatRow(r["seat"], r["user_id"], r["name"], bool(r["is_ai"]), bool(r["away"])) for r in rows]

    async def replace_seats(self, table_id: int, seats: list[SeatRow]) -> None:
        """Replace every seat of a table (lobby edits and the final seat order at start)."""
        async with self.transaction():
            await self._exec("DELETE FROM seats WHERE table_id = ?", (table_id,))
            for s in seats:
                await self._exec(
                    "INSERT INTO seats (table_id, seat, user_id, name, is_ai) VALUES (?, ?, ?, ?, ?)",
                    (table_id, s.seat, s.user_id, s.name, int(s.is_ai)),
                )

    async def set_away(self, table_id: int, seat: int, away: bool) -> None:
        """Mark a member's seat as away (the AI plays it) or back."""
        await self._exec("UPDATE seats SET away = ? WHERE table_id = ? AND seat = ?", (int(away), table_id, seat))

    # --- play ------------------------------------------------------------------------------
    async def record_step(
        self, table_id: int, *, version_before: int, actions: dict[int, str], source: str,
        state: dict[str, Any], version: int, events: list[dict[str, Any]], now: float,
    ) -> None:
        """Append an applied step to the action log and events, store the new snapshot, clear
        the pending choices. Atomic (joins an outer transaction if any)."""
        async with self.transaction():
            await self._exec(
                "INSERT INTO actions (table_id, seq, version, actions, source, created_at) VALUES (?, ?, ?, ?, ?, ?)",
                (table_id, await self._next_seq("actions", table_id), version_before,
                 json.dumps({str(k): v for k, v in actions.items()}), source, now),
            )
            await self.record_events(table_id, version, events)
            await self._exec("DELETE FROM pending WHERE table_id = ?", (table_id,))
            await self.update_table(table_id, now, state=state, version=version)

    async def record_events(self, table_id: int, version: int, events: list[dict[str, Any]]) -> None:
        """Append events (JSON dicts) to a table's event log, at state ``version``."""
        async with self.transaction():
            for i, ev in enumerate(events, start=await self._next_seq("events", table_id)):
                await self._exec(
                    "INSERT INTO events (table_id, seq, version, event) VALUES (?, ?, ?, ?)",
                    (table_id, i, version, json.dumps(ev)),
                )

    async def action_log(self, table_id: int) -> list[tuple[int, dict[int, str], str]]:
        """The append-only log: ``(version_before, {seat: code}, source)`` in order."""
        rows = await self._all("SELECT * FROM actions WHERE table_id = ? ORDER BY seq", (table_id,))
        return [(r["version"], {int(k): v for k, v in json.loads(r["actions"]).items()}, r["source"]) for r in rows]

    async def recent_events(self, table_id: int, limit: int) -> list[dict[str, Any]]:
        """The last ``limit`` events of a table, oldest first."""
        rows = await self._all(
            "SELECT event FROM (SELECT seq, event FROM events WHERE table_id = ? ORDER BY seq DESC LIMIT ?)"
            " ORDER BY seq", (table_id, limit))
        return [json.loads(r["event"]) for r in rows]

    async def set_pending(self, table_id: int, seat: int, version: int, code: str) -> None:
        """Buffer (or change) a seat's choice in a simultaneous step."""
        await self._exec(
            "INSERT INTO pending (table_id, seat, version, code) VALUES (?, ?, ?, ?)"
            " ON CONFLICT (table_id, seat) DO UPDATE SET version = excluded.version, code = excluded.code",
            (table_id, seat, version, code),
        )

    async def pending(self, table_id: int, version: int) -> dict[int, str]:
        """Buffered choices for the step at ``version`` (older ones are ignored)."""
        rows = await self._all("SELECT seat, code FROM pending WHERE table_id = ? AND version = ?", (table_id, version))
        return {r["seat"]: r["code"] for r in rows}

    # --- deadlines -------------------------------------------------------------------------
    async def set_deadline(self, table_id: int, version: int, remind_at: float, act_at: float) -> None:
        """Set the turn deadline of a table for the step at ``version``."""
        await self._exec(
            "INSERT INTO deadlines (table_id, version, remind_at, act_at, reminded) VALUES (?, ?, ?, ?, 0)"
            " ON CONFLICT (table_id) DO UPDATE SET version = excluded.version, remind_at = excluded.remind_at,"
            " act_at = excluded.act_at, reminded = 0",
            (table_id, version, remind_at, act_at),
        )

    async def clear_deadline(self, table_id: int) -> None:
        """Remove a table's deadline."""
        await self._exec("DELETE FROM deadlines WHERE table_id = ?", (table_id,))

    async def mark_reminded(self, table_id: int) -> None:
        """Record that the reminder of the current deadline was sent."""
        await self._exec("UPDATE deadlines SET reminded = 1 WHERE table_id = ?", (table_id,))

    async def deadlines(self) -> list[DeadlineRow]:
        """Every deadline, the earliest due first."""
        rows = await self._all("SELECT * FROM deadlines ORDER BY MIN(remind_at, act_at)")
        return [_deadline(r) for r in rows]

    async def deadline(self, table_id: int) -> DeadlineRow | None:
        """The deadline of one table, or ``None``."""
        row = await self._one("SELECT * FROM deadlines WHERE table_id = ?", (table_id,))
        return _deadline(row) if row is not None else None

    # --- results and ratings ---------------------------------------------------------------
    async def record_result(
        self, table_id: int, *, guild_id: int, game: str, outcome: dict[str, Any],
        seats: list[tuple[int, int | None, int, int]], now: float,
    ) -> None:
        """Store a finished game's result: ``seats`` = ``(seat, user_id, rank, score)``."""
        await self._exec(
            "INSERT INTO results (table_id, guild_id, game, finished_at, outcome) VALUES (?, ?, ?, ?, ?)",
            (table_id, guild_id, game, now, json.dumps(outcome)),
        )
        for seat, user_id, rank, score in seats:
            await self._exec(
                "INSERT INTO result_seats (table_id, seat, user_id, rank, score) VALUES (?, ?, ?, ?, ?)",
                (table_id, seat, user_id, rank, score),
            )

    async def ratings(self, guild_id: int, game: str, user_ids: Iterable[int]) -> dict[int, RatingRow]:
        """Existing ratings of ``user_ids`` (missing users are absent from the result)."""
        ids = list(user_ids)
        if not ids:
            return {}
        marks = ",".join("?" * len(ids))
        rows = await self._all(
            f"SELECT * FROM ratings WHERE guild_id = ? AND game = ? AND user_id IN ({marks})", (guild_id, game, *ids))
        return {r["user_id"]: _rating(r) for r in rows}

    async def save_rating(self, guild_id: int, game: str, row: RatingRow) -> None:
        """Insert or replace one member's rating and stats."""
        await self._exec(
            "INSERT INTO ratings (guild_id, game, user_id, mu, sigma, played, won) VALUES (?, ?, ?, ?, ?, ?, ?)"
            " ON CONFLICT (guild_id, game, user_id) DO UPDATE SET mu = excluded.mu, sigma = excluded.sigma,"
            " played = excluded.played, won = excluded.won",
            (guild_id, game, row.user_id, row.mu, row.sigma, row.played, row.won),
        )

    async def leaderboard(self, guild_id: int, game: str, min_games: int, limit: int = 10) -> list[RatingRow]:
        """Top members of a guild for a game by ordinal (``mu - 3 sigma``), with ``min_games`` played."""
        rows = await self._all(
            "SELECT * FROM ratings WHERE guild_id = ? AND game = ? AND played >= ?"
            " ORDER BY (mu - 3 * sigma) DESC, won DESC, user_id LIMIT ?",
            (guild_id, game, min_games, limit),
        )
        return [_rating(r) for r in rows]

    async def member_stats(self, guild_id: int, user_id: int) -> dict[str, RatingRow]:
        """A member's rating and stats per game in a guild: ``{game: RatingRow}``."""
        rows = await self._all("SELECT * FROM ratings WHERE guild_id = ? AND user_id = ? ORDER BY game", (guild_id, user_id))
        return {r["game"]: _rating(r) for r in rows}

    # --- decks -----------------------------------------------------------------------------
    async def save_deck(self, guild_id: int, game: str, name: str, data: dict[str, Any], created_by: int, now: float) -> int:
        """Store (or replace, by name) a guild's custom deck; returns its id."""
        async with self.transaction():
            await self._exec("DELETE FROM decks WHERE guild_id = ? AND game = ? AND name = ?", (guild_id, game, name))
            return await self._insert(
                "INSERT INTO decks (guild_id, game, name, data, created_by, created_at) VALUES (?, ?, ?, ?, ?, ?)",
                (guild_id, game, name, json.dumps(data), created_by, now),
            )

    async def decks(self, guild_id: int, game: str) -> list[tuple[int, str]]:
        """A guild's decks for a game: ``(deck_id, name)``."""
        rows = await self._all("SELECT id, name FROM decks WHERE guild_id = ? AND game = ? ORDER BY name", (guild_id, game))
        return [(r["id"], r["name"]) for r in rows]

    async def deck(self, guild_id: int, deck_id: int) -> dict[str, Any] | None:
        """A stored deck's data (only if it belongs to ``guild_id``)."""
        row = await self._one("SELECT data FROM decks WHERE guild_id = ? AND id = ?", (guild_id, deck_id))
        return json.loads(row["data"]) if row else None

    async def delete_deck(self, guild_id: int, deck_id: int) -> bool:
        """Remove a guild's deck; True when something was removed."""
        return bool(await self._exec("DELETE FROM decks WHERE guild_id = ? AND id = ?", (guild_id, deck_id)))


# =============================================================================================
# Lifecycle and table admin queries (issue 13): module functions over an open Database, kept in
# one block so they merge apart from the Database class.
# =============================================================================================


async def guild_tables(db: Database, guild_id: int, statuses: tuple[str, ...] = ("lobby", "running")) -> list[TableRow]:
    """A guild's tables whose status is in ``statuses``, oldest first."""
    marks = ", ".join("?" for _ in statuses)
    rows = await db._all(f"SELECT * FROM game_tables WHERE guild_id = ? AND status IN ({marks}) ORDER BY id",
                         (guild_id, *statuses))
    return [_table(r) for r in rows]


async def tables_in_place(db: Database, place_id: int, statuses: tuple[str, ...] = ("lobby", "running")) -> list[TableRow]:
    """Tables whose thread or channel is ``place_id`` and whose status is in ``statuses``."""
    marks = ", ".join("?" for _ in statuses)
    rows = await db._all(f"SELECT * FROM game_tables WHERE (thread_id = ? OR channel_id = ?) AND status IN ({marks})"
                         " ORDER BY id", (place_id, place_id, *statuses))
    return [_table(r) for r in rows]


async def open_lobby_of(db: Database, guild_id: int, channel_id: int, host_user_id: int) -> TableRow | None:
    """The open lobby ``host_user_id`` hosts in a channel (the oldest), or ``None``."""
    row = await db._one("SELECT * FROM game_tables WHERE guild_id = ? AND channel_id = ? AND host_user_id = ?"
                        " AND status = 'lobby' ORDER BY id LIMIT 1", (guild_id, channel_id, host_user_id))
    return _table(row) if row else None


async def all_events(db: Database, table_id: int) -> list[dict[str, Any]]:
    """Every event of a table in order (all audiences: filter before showing)."""
    rows = await db._all("SELECT event FROM events WHERE table_id = ? ORDER BY seq", (table_id,))
    return [json.loads(r["event"]) for r in rows]
