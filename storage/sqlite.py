"""SQLite implementation of :class:`storage.base.Store`: connection, migrations, repositories.
With :mod:`storage.base`, the only place with SQL.

One :class:`Database` per process wraps one aiosqlite connection (WAL journal, foreign keys on,
``PRAGMA user_version`` tracks the schema). Every method is a small, named query; methods that
must be atomic together take place inside :meth:`Database.transaction`. The hot paths
(:meth:`Database.commit_step`, :meth:`Database.running_tables`) run as one function in the
connection's worker thread: one round trip each, however many statements.

Times are UNIX seconds (float), always passed in by the caller (the service owns the clock).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sqlite3
from collections.abc import AsyncIterator, Callable, Iterable
from pathlib import Path
from typing import Any, TypeVar

import aiosqlite
import orjson

from storage.base import (
    RatingRow,
    RunningTable,
    SeatRow,
    Shards,
    StepWrite,
    Store,
    TableRow,
    TimerRow,
    VersionConflict,
)

__all__ = ["MIGRATIONS", "Database", "database_problem", "dumps", "loads"]

T = TypeVar("T")


def dumps(value: Any) -> str:
    """Compact JSON text (no spaces) as stored in every JSON column: :mod:`orjson` (a step's
    snapshot in a few microseconds; non-ASCII text as UTF-8, not ``\\u`` escapes), or the
    standard library for what orjson refuses (an integer beyond 64 bits). Both forms read back
    equal (:func:`loads`).

    >>> dumps({"a": [1, "é"], 2: None})
    '{"a":[1,"é"],"2":null}'
    """
    try:
        return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode()
    except TypeError:
        return json.dumps(value, separators=(",", ":"))


def loads(text: str | bytes) -> Any:
    """The value of a stored JSON text (:mod:`orjson`; the standard library for what it refuses,
    such as a ``NaN`` an old row might hold).

    >>> loads('{"a":[1,"\\u00e9"]}') == {"a": [1, "é"]}
    True
    """
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        return json.loads(text)


# The schema of both backends: written in SQLite's dialect, kept to what PostgreSQL also reads after
# :func:`storage.postgres.to_postgres` (types, ``?`` marks, ``json_object``); so no ``MIN(a, b)``,
# no bare integer as a condition, an alias on every subquery in FROM.
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
    # 5: scale. General persisted timers (a turn deadline is the timer 'turn:<table id>', its
    # payload the step version, both times and whether the reminder went out); the per-table
    # deadlines move there. Sequence counters of the action and event logs kept on the table
    # (no MAX(seq) per step). A seat's timeouts in a row survive a restart. Running tables are
    # found by status.
    """
    CREATE TABLE timers (
        key TEXT PRIMARY KEY,
        due REAL NOT NULL,
        payload TEXT NOT NULL DEFAULT '{}'
    );
    INSERT INTO timers (key, due, payload)
        SELECT 'turn:' || table_id, CASE WHEN reminded <> 0 OR act_at < remind_at THEN act_at ELSE remind_at END,
               json_object('version', version, 'remind_at', remind_at, 'act_at', act_at,
                           'reminded', json(CASE WHEN reminded <> 0 THEN 'true' ELSE 'false' END))
        FROM deadlines;
    DROP TABLE deadlines;
    ALTER TABLE game_tables ADD COLUMN action_seq INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE game_tables ADD COLUMN event_seq INTEGER NOT NULL DEFAULT 0;
    UPDATE game_tables SET
        action_seq = (SELECT COALESCE(MAX(seq), 0) FROM actions WHERE actions.table_id = game_tables.id),
        event_seq = (SELECT COALESCE(MAX(seq), 0) FROM events WHERE events.table_id = game_tables.id);
    ALTER TABLE seats ADD COLUMN timeouts INTEGER NOT NULL DEFAULT 0;
    CREATE INDEX game_tables_status ON game_tables (status);
    """,
    # 6: the level of an AI seat (easy, normal, strong); NULL = normal (seats written before levels)
    """
    ALTER TABLE seats ADD COLUMN ai_level TEXT;
    """,
    # 7: a step's events ride in its action-log row (a JSON array, the first one's seq beside it):
    # a step then writes one B-tree and its index instead of two and two. Rows written before
    # keep their events in the events table (NULL here), which still takes the events recorded
    # outside a step (a table's opening events); readers merge both by seq.
    """
    ALTER TABLE actions ADD COLUMN event_seq INTEGER;
    ALTER TABLE actions ADD COLUMN events TEXT;
    """,
    # 8: a table's turn deadline (the timer 'turn:<table id>') is kept in the table's own row, so
    # a step that moves it writes no timers row; the stored ones move there
    """
    ALTER TABLE game_tables ADD COLUMN turn_due REAL;
    ALTER TABLE game_tables ADD COLUMN turn_timer TEXT;
    UPDATE game_tables SET
        turn_due = (SELECT tm.due FROM timers tm WHERE tm.key = 'turn:' || game_tables.id),
        turn_timer = (SELECT tm.payload FROM timers tm WHERE tm.key = 'turn:' || game_tables.id)
        WHERE EXISTS (SELECT 1 FROM timers tm WHERE tm.key = 'turn:' || game_tables.id);
    DELETE FROM timers WHERE CAST(CASE WHEN rtrim(key, '0123456789') = 'turn:' AND length(key) > 5
                                       THEN substr(key, 6) END AS INTEGER) IN (SELECT id FROM game_tables);
    """,
)


def _timer(row: sqlite3.Row) -> TimerRow:
    return TimerRow(row["key"], row["due"], loads(row["payload"]))


def _seat(r: sqlite3.Row) -> SeatRow:
    return SeatRow(r["seat"], r["user_id"], r["name"], bool(r["is_ai"]), bool(r["away"]), r["timeouts"], r["ai_level"])


def _rating(row: aiosqlite.Row) -> RatingRow:
    return RatingRow(row["user_id"], row["mu"], row["sigma"], row["played"], row["won"])


def _table(row: sqlite3.Row, *, decode_state: bool = True) -> TableRow:
    return TableRow(
        id=row["id"],
        guild_id=row["guild_id"],
        channel_id=row["channel_id"],
        thread_id=row["thread_id"],
        lobby_message_id=row["lobby_message_id"],
        board_message_id=row["board_message_id"],
        game=row["game"],
        options=loads(row["options"]),
        status=row["status"],
        host_user_id=row["host_user_id"],
        lang=row["lang"],
        seed=row["seed"],
        version=row["version"],
        state=loads(row["state"]) if decode_state and row["state"] else None,
        created_at=row["created_at"],
        updated_at=row["updated_at"],
        rules_version=row["rules_version"],
        action_seq=row["action_seq"],
        event_seq=row["event_seq"],
    )


def _statements(script: str) -> list[str]:
    r"""The statements of an SQL script, in order: split at the line ends where
    :func:`sqlite3.complete_statement` says a statement ends (so never two statements on one line).

    >>> _statements("CREATE TABLE a (x TEXT DEFAULT ';');\n  CREATE INDEX i ON a (x);\n")
    ["CREATE TABLE a (x TEXT DEFAULT ';');", 'CREATE INDEX i ON a (x);']
    """
    out, current = [], ""
    for line in script.splitlines(keepends=True):
        current += line
        if sqlite3.complete_statement(current):
            out.append(current.strip())
            current = ""
    if current.strip():
        out.append(current.strip())
    return out


def _owned(column: str, shards: Shards | None) -> tuple[str, tuple[int, ...]]:
    """The ``AND`` clause keeping the rows whose guild (``column``) is on ``shards``, and its
    arguments; nothing when every shard is owned.

    >>> _owned("t.guild_id", Shards(4, (0, 2)))
    (' AND ((t.guild_id >> 22) % ?) IN (?, ?)', (4, 0, 2))
    """
    if shards is None or shards.everything:
        return "", ()
    marks = ", ".join("?" for _ in shards.ids)
    return f" AND (({column} >> 22) % ?) IN ({marks})", (shards.count, *shards.ids)


def turn_table(key: str) -> int | None:
    """The table id of a turn-deadline timer key ``turn:<table id>``, else ``None``. Such a
    timer is kept in its table's row (``turn_due``, ``turn_timer``; migration 8) when the table
    is stored, in the timers table otherwise.

    >>> turn_table("turn:12"), turn_table("lobby:12"), turn_table("turn:"), turn_table("turn:1x")
    (12, None, None, None)
    """
    if key.startswith("turn:"):
        digits = key[5:]
        if digits.isascii() and digits.isdigit():
            return int(digits)
    return None


def _row_turn(step: StepWrite) -> tuple[TimerRow | None, str | None, tuple[float | None, str | None] | None]:
    """How a step's timer change is stored: ``(timer to set in the timers table, key to remove
    there, (turn_due, turn_timer) of the table's row or None when the row's deadline stays)``.
    The table's own turn deadline goes to its row (see :func:`turn_table`)."""
    timer, cancel = step.timer, step.cancel_timer
    turn: tuple[float | None, str | None] | None = None
    if cancel is not None and turn_table(cancel) == step.table_id:
        cancel, turn = None, (None, None)
    if timer is not None and turn_table(timer.key) == step.table_id:
        turn = (timer.due, dumps(timer.payload))
        timer = None
    return timer, cancel, turn


def _step_events(step: StepWrite) -> tuple[int | None, str | None]:
    """The ``(event_seq, events)`` columns of a step's action-log row: the first event's seq and
    the events as one JSON array, or ``(None, None)`` for a step without events."""
    return (step.event_seq, dumps(step.events)) if step.events else (None, None)


def _merged_events(rows: Iterable[Any], steps: Iterable[Any]) -> list[dict[str, Any]]:
    """Events in seq order from the events table's ``(seq, event)`` rows and the action-log
    rows' ``(event_seq, events)`` arrays (a step's events have consecutive seqs).

    >>> _merged_events([(1, '{"k":"open"}')], [(2, '[{"k":"a"},{"k":"b"}]'), (4, '[{"k":"c"}]')])
    [{'k': 'open'}, {'k': 'a'}, {'k': 'b'}, {'k': 'c'}]
    """
    found = [(r[0], loads(r[1])) for r in rows]
    for r in steps:
        first = r[0]
        found.extend((first + i, event) for i, event in enumerate(loads(r[1])))
    found.sort(key=lambda pair: pair[0])
    return [event for _, event in found]


#: A passive WAL checkpoint is started (in a thread, see ``Database._wrote``) every this many writes.
CHECKPOINT_EVERY = 200
#: How long :meth:`Database.open` keeps retrying while another connection (another process
#: opening the same file) holds a lock that SQLite reports at once, without waiting (seconds).
OPEN_RETRY_SECONDS = 15.0

def _step_update(status: bool, turn: bool) -> str:
    """The compare-and-set ``UPDATE`` of a step: with ``status`` when it changes, with the
    row's turn deadline (``turn_due``, ``turn_timer``) when the step sets or clears it."""
    return ("UPDATE game_tables SET state = ?, version = ?, updated_at = ?, action_seq = ?, event_seq = ?"
            + (", status = ?" if status else "") + (", turn_due = ?, turn_timer = ?" if turn else "")
            + " WHERE id = ? AND version = ? AND status = 'running'")


#: ``_STEP_UPDATES[status, turn]``: see :func:`_step_update`.
_STEP_UPDATES = {(status, turn): _step_update(status, turn) for status in (False, True) for turn in (False, True)}
_SET_TURN = "UPDATE game_tables SET turn_due = ?, turn_timer = ? WHERE id = ?"
_CANCEL_TURN = "UPDATE game_tables SET turn_due = NULL, turn_timer = NULL WHERE id = ? AND turn_due IS NOT NULL"
_TURN_TIMERS = "SELECT 'turn:' || g.id AS key, g.turn_due AS due, g.turn_timer AS payload FROM game_tables g"
_STEP_ACTION = ("INSERT INTO actions (table_id, seq, version, actions, source, created_at, event_seq, events)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?)")
_SET_TIMER = ("INSERT INTO timers (key, due, payload) VALUES (?, ?, ?)"
              " ON CONFLICT (key) DO UPDATE SET due = excluded.due, payload = excluded.payload")


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
    """An open Speakeasy database (the SQLite :class:`storage.base.Store`). Use :meth:`open`
    (async) and :meth:`close`.

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
        # WAL checkpoints run off the event loop's thread (see _wrote)
        self._writes = 0
        self._checkpointing: asyncio.Task[None] | None = None
        self._checkpointer: sqlite3.Connection | None = None

    # --- lifecycle -------------------------------------------------------------------------
    @classmethod
    async def open(cls, path: str | Path) -> Database:
        """Open (creating if needed) the database at ``path`` and run pending migrations."""
        path = str(path)
        if path != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        # check_same_thread=False: the short writes of a step run on the event loop's thread
        # (see _inline), every other statement in aiosqlite's worker thread; the lock below
        # ensures the two never use the connection at the same time.
        if path != ":memory:":
            # a file that cannot be opened (a folder, no rights) fails here, on this thread: a
            # failed aiosqlite.connect leaves its worker thread answering a loop that may be
            # closed by then (a "RuntimeError: Event loop is closed" traceback at exit,
            # omnilib/aiosqlite#389)
            sqlite3.connect(path).close()
        conn = await aiosqlite.connect(path, isolation_level=None, check_same_thread=False)
        conn.row_factory = aiosqlite.Row
        db = cls(conn, path)
        loop = asyncio.get_running_loop()
        give_up = loop.time() + OPEN_RETRY_SECONDS
        try:
            while True:
                try:
                    await db._set_up()
                    break
                except sqlite3.OperationalError as err:
                    # Turning a new file to WAL needs its write lock, and SQLite does not wait
                    # for it while another connection reads the file (two processes opening a
                    # new database together): "database is locked" at once. Try again shortly.
                    if "locked" not in str(err) or loop.time() > give_up:
                        raise
                    await asyncio.sleep(0.02)
        except BaseException:
            await conn.close()  # its worker thread would keep the process alive
            raise
        return db

    async def _set_up(self) -> None:
        """The connection's settings, then the pending migrations (each in its own transaction,
        so this may run again after a lock error)."""
        # busy_timeout first: every statement after it waits for a lock held elsewhere
        # WAL + synchronous=NORMAL: durable across application crashes, fast commits
        # wal_autocheckpoint=0: this connection never checkpoints inside a write (a
        # checkpoint copies and syncs up to 1,000 pages: milliseconds on the event loop's
        # thread, see _inline); a second connection does it in a thread (_wrote)
        for pragma in ("PRAGMA busy_timeout=5000", "PRAGMA journal_mode=WAL", "PRAGMA synchronous=NORMAL",
                       "PRAGMA foreign_keys=ON", "PRAGMA wal_autocheckpoint=0"):
            async with self._conn.execute(pragma) as cur:
                row = await cur.fetchone()
            if pragma == "PRAGMA journal_mode=WAL" and self.path != ":memory:" and row is not None and row[0] != "wal":
                raise sqlite3.OperationalError(f"database is locked (journal mode still {row[0]})")
        await self.migrate()

    async def close(self) -> None:
        """Close the connection (after the WAL checkpoint in progress, if any)."""
        if self._checkpointing is not None:
            await asyncio.gather(self._checkpointing, return_exceptions=True)
        if self._checkpointer is not None:
            self._checkpointer.close()
            self._checkpointer = None
        await self._conn.close()

    def _wrote(self) -> None:
        """Count a write; every :data:`CHECKPOINT_EVERY` writes, start a passive WAL checkpoint
        on a second connection in a thread (unless one is running): the WAL stays short and no
        write on the event loop's thread ever pays for a checkpoint. A passive checkpoint never
        blocks a writer or a reader; a crash during one loses nothing (the WAL still holds
        every committed step until it is copied)."""
        self._writes += 1
        if self._writes < CHECKPOINT_EVERY or self.path == ":memory:":
            return
        if self._checkpointing is not None and not self._checkpointing.done():
            return
        self._writes = 0
        self._checkpointing = asyncio.get_running_loop().create_task(asyncio.to_thread(self._checkpoint))

    def _checkpoint(self) -> None:
        """``PRAGMA wal_checkpoint(PASSIVE)`` on the checkpoint connection (opened on first use)."""
        try:
            if self._checkpointer is None:
                self._checkpointer = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
            self._checkpointer.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
        except sqlite3.Error:  # a failed checkpoint loses nothing: the next one copies the pages
            pass

    async def schema_version(self) -> int:
        """Current ``PRAGMA user_version``."""
        async with self._conn.execute("PRAGMA user_version") as cur:
            row = await cur.fetchone()
        return int(row[0]) if row is not None else 0

    async def migrate(self) -> int:
        """Apply every migration newer than ``user_version``, each in its own transaction.

        Each is applied once even when several processes open a new file together: the
        version is read again inside the transaction (``BEGIN IMMEDIATE`` holds the file's write
        lock), and a migration another process applied meanwhile is skipped."""
        current = await self.schema_version()
        for number, script in enumerate(MIGRATIONS, start=1):
            if number <= current:
                continue

            def apply(conn: sqlite3.Connection, number: int = number, script: str = script) -> None:
                conn.execute("BEGIN IMMEDIATE")
                try:
                    if conn.execute("PRAGMA user_version").fetchone()[0] < number:
                        for statement in _statements(script):
                            conn.execute(statement)
                        conn.execute(f"PRAGMA user_version = {number}")
                    conn.execute("COMMIT")
                except BaseException:
                    if conn.in_transaction:
                        conn.execute("ROLLBACK")
                    raise

            await self._worker(apply)
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
        self._wrote()
        async with self._access(), self._conn.execute(sql, tuple(args)) as cur:
            return cur.rowcount

    async def _insert(self, sql: str, args: Iterable[Any] = ()) -> int:
        self._wrote()
        async with self._access(), self._conn.execute(sql, tuple(args)) as cur:
            if cur.lastrowid is None:
                raise RuntimeError(f"no row inserted by {sql!r}")
            return cur.lastrowid

    async def _call(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        """Run ``fn(connection)`` in the connection's worker thread: one round trip for any
        number of statements (exclusive use of the connection, joined inside our transaction)."""
        self._wrote()
        async with self._access():
            return await self._worker(fn)

    async def _inline(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        """Run ``fn(connection)`` on the event loop's own thread, with exclusive use of the
        connection: for the few short writes of a step (a WAL commit with synchronous=NORMAL
        takes tens of microseconds, less than a hand-over to the worker thread and back, which
        under load waits for the GIL). Big reads stay in the worker thread (:meth:`_call`)."""
        self._wrote()
        # _access() spelled out: no async generator and context manager per step (hot path)
        if self._owner is asyncio.current_task():
            return fn(self._conn._conn)
        async with self._lock:
            if self._conn.in_transaction:  # the _heal() coroutine only when there is a transaction to heal
                await self._heal()
            return fn(self._conn._conn)

    async def _exec_short(self, sql: str, args: tuple[Any, ...]) -> int:
        """:meth:`_exec` for one short write on the hot path (a buffered choice): on the loop's
        thread (see :meth:`_inline`). Backends without a worker thread use their ``_exec``."""
        return await self._inline(lambda conn: conn.execute(sql, args).rowcount)

    async def _atomic(self, fn: Callable[[sqlite3.Connection], None], *, inline: bool = False) -> None:
        """Run ``fn(connection)`` inside one transaction (BEGIN IMMEDIATE … COMMIT, rolled back
        if ``fn`` raises), or inside the caller's transaction when the current task holds one:
        in the worker thread (one round trip), or on the loop's thread when ``inline`` (short
        writes only, see :meth:`_inline`)."""
        nested = self._owner is asyncio.current_task()

        def run(conn: sqlite3.Connection) -> None:
            if nested:
                fn(conn)
                return
            conn.execute("BEGIN IMMEDIATE")
            try:
                fn(conn)
                conn.execute("COMMIT")
            except BaseException:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                raise

        await (self._inline(run) if inline else self._call(run))

    async def _worker(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        # aiosqlite runs every call as a function queued to its thread; this queues ours.
        raw: sqlite3.Connection = self._conn._conn
        result: T = await self._conn._execute(fn, raw)  # type: ignore[no-untyped-call]
        return result

    # --- tables ----------------------------------------------------------------------------
    async def create_table(
        self, *, guild_id: int, channel_id: int, game: str, host_user_id: int, lang: str,
        options: dict[str, Any], now: float,
    ) -> int:
        """Insert a table in the ``lobby`` status; returns its id."""
        return await self._insert(
            "INSERT INTO game_tables (guild_id, channel_id, game, options, status, host_user_id, lang,"
            " created_at, updated_at) VALUES (?, ?, ?, ?, 'lobby', ?, ?, ?, ?)",
            (guild_id, channel_id, game, dumps(options), host_user_id, lang, now, now),
        )

    async def get_table(self, table_id: int) -> TableRow | None:
        """The table with ``table_id`` or ``None``."""
        row = await self._one("SELECT * FROM game_tables WHERE id = ?", (table_id,))
        return _table(row) if row else None

    async def tables_with_status(self, status: str) -> list[TableRow]:
        """Every table with ``status`` (``lobby``, ``running``, ``finished``, ``abandoned``)."""
        return [_table(r) for r in await self._all("SELECT * FROM game_tables WHERE status = ? ORDER BY id", (status,))]

    async def update_table(self, table_id: int, now: float, *, expect_status: str | None = None,
                           **fields: Any) -> bool:
        """Set columns of a table (``options``/``state`` are JSON-encoded here); with
        ``expect_status``, only while the table still has that status (a compare-and-set: two
        processes cannot both start, or end, one table). True when the row was changed.

        Raises ``ValueError`` for no field or a column that may not be set.
        """
        allowed = {"thread_id", "lobby_message_id", "board_message_id", "options", "status", "seed",
                   "version", "state", "lang", "rules_version"}
        if not fields or set(fields) - allowed:
            raise ValueError(f"bad fields {sorted(set(fields) - allowed)}")
        values = [dumps(v) if k in ("options", "state") and v is not None else v for k, v in fields.items()]
        cols = ", ".join(f"{k} = ?" for k in fields)
        if expect_status is None:
            return await self._exec(f"UPDATE game_tables SET {cols}, updated_at = ? WHERE id = ?",
                                    (*values, now, table_id)) == 1
        return await self._exec(f"UPDATE game_tables SET {cols}, updated_at = ? WHERE id = ? AND status = ?",
                                (*values, now, table_id, expect_status)) == 1

    # --- seats -----------------------------------------------------------------------------
    async def seats(self, table_id: int) -> list[SeatRow]:
        """Seats of a table ordered by seat number."""
        rows = await self._all("SELECT * FROM seats WHERE table_id = ? ORDER BY seat", (table_id,))
        return [_seat(r) for r in rows]

    async def running_tables(self) -> list[RunningTable]:
        """Every running table with its seats and the buffered choices of its current step, by
        id: three bulk reads in one round trip; snapshots stay JSON text (``state_json``)."""
        def read(conn: sqlite3.Connection) -> list[RunningTable]:
            tables = conn.execute("SELECT * FROM game_tables WHERE status = 'running' ORDER BY id").fetchall()
            seats: dict[int, list[SeatRow]] = {}
            for r in conn.execute(
                    "SELECT s.* FROM seats s JOIN game_tables t ON t.id = s.table_id"
                    " WHERE t.status = 'running' ORDER BY s.table_id, s.seat"):
                seats.setdefault(r["table_id"], []).append(_seat(r))
            pending: dict[int, dict[int, str]] = {}
            for r in conn.execute(
                    "SELECT p.table_id, p.seat, p.code FROM pending p JOIN game_tables t ON t.id = p.table_id"
                    " WHERE t.status = 'running' AND p.version = t.version"):
                pending.setdefault(r["table_id"], {})[r["seat"]] = r["code"]
            return [RunningTable(_table(r, decode_state=False), r["state"], seats.get(r["id"], []),
                                 pending.get(r["id"], {})) for r in tables]
        return await self._call(read)

    async def running_tables_of(self, shards: Shards) -> list[RunningTable]:
        """:meth:`running_tables` of the guilds on ``shards`` only (``(guild_id >> 22) % count``
        in the ``WHERE`` clauses): three bulk reads in one transaction. Written with the
        portable query helpers only (``_all``), so a backend that translates them inherits it."""
        owned, args = _owned("t.guild_id", shards)
        async with self.transaction():
            tables = await self._all(
                f"SELECT * FROM game_tables t WHERE t.status = 'running'{owned} ORDER BY t.id", args)
            seats: dict[int, list[SeatRow]] = {}
            for r in await self._all(
                    "SELECT s.* FROM seats s JOIN game_tables t ON t.id = s.table_id"
                    f" WHERE t.status = 'running'{owned} ORDER BY s.table_id, s.seat", args):
                seats.setdefault(r["table_id"], []).append(_seat(r))
            pending: dict[int, dict[int, str]] = {}
            for r in await self._all(
                    "SELECT p.table_id, p.seat, p.code FROM pending p JOIN game_tables t ON t.id = p.table_id"
                    f" WHERE t.status = 'running' AND p.version = t.version{owned}", args):
                pending.setdefault(r["table_id"], {})[r["seat"]] = r["code"]
        return [RunningTable(_table(r, decode_state=False), r["state"], seats.get(r["id"], []),
                             pending.get(r["id"], {})) for r in tables]

    async def replace_seats(self, table_id: int, seats: list[SeatRow]) -> None:
        """Replace every seat of a table (lobby edits and the final seat order at start)."""
        async with self.transaction():
            await self._exec("DELETE FROM seats WHERE table_id = ?", (table_id,))
            for s in seats:
                await self._exec(
                    "INSERT INTO seats (table_id, seat, user_id, name, is_ai, away, timeouts, ai_level)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    (table_id, s.seat, s.user_id, s.name, int(s.is_ai), int(s.away), s.timeouts, s.ai_level),
                )

    async def set_seat_state(self, table_id: int, seat: int, *, away: bool, timeouts: int) -> None:
        """Store a seat's ``away`` flag and its timeouts-in-a-row counter."""
        await self._exec("UPDATE seats SET away = ?, timeouts = ? WHERE table_id = ? AND seat = ?",
                         (int(away), timeouts, table_id, seat))

    # --- play ------------------------------------------------------------------------------
    async def commit_step(self, step: StepWrite) -> None:
        """Store an applied step in one transaction and one round trip: the snapshot (compact
        JSON) and version by compare-and-set (``UPDATE ... WHERE id = ? AND version = ?`` on a
        running table), the action-log row carrying the step's events (a JSON array and the
        first one's seq, migration 7: one B-tree and its index written, not two and two), the
        sequence counters, the buffered choices cleared, the timer set or cancelled (the
        table's own turn deadline in its row, migration 8: no timers row written).

        Raises :class:`storage.base.VersionConflict` (nothing stored) when the table is no
        longer running at ``step.version_before``. Joins the caller's transaction if any.
        """
        last_event = step.event_seq + len(step.events) - 1 if step.events else step.event_seq - 1
        timer, cancel, turn = _row_turn(step)
        # status is SET only when it changes: a column in the SET list makes SQLite rewrite the
        # entries of every index holding it (two on status), whatever the value
        table_sql = _STEP_UPDATES[step.status is not None, turn is not None]
        table_args: tuple[Any, ...] = (dumps(step.state), step.version, step.now, step.action_seq, last_event,
                                       *((step.status,) if step.status is not None else ()), *(turn or ()),
                                       step.table_id, step.version_before)
        action_args = (step.table_id, step.action_seq, step.version_before,
                       dumps({str(k): v for k, v in step.actions.items()}), step.source, step.now,
                       *_step_events(step))
        timer_args = (timer.key, timer.due, dumps(timer.payload)) if timer is not None else None

        def write(conn: sqlite3.Connection) -> None:
            cur = conn.execute(table_sql, table_args)
            if cur.rowcount != 1:
                raise VersionConflict(step.table_id, step.version_before)
            conn.execute(_STEP_ACTION, action_args)
            if step.clear_pending:
                conn.execute("DELETE FROM pending WHERE table_id = ?", (step.table_id,))
            if cancel is not None:
                conn.execute("DELETE FROM timers WHERE key = ?", (cancel,))
            if timer_args is not None:
                conn.execute(_SET_TIMER, timer_args)

        await self._atomic(write, inline=True)

    async def record_step(
        self, table_id: int, *, version_before: int, actions: dict[int, str], source: str,
        state: dict[str, Any], version: int, events: list[dict[str, Any]], now: float,
    ) -> None:
        """Append an applied step (sequence numbers read from the table), see :meth:`commit_step`;
        for callers that keep no counters. Atomic (joins an outer transaction if any)."""
        async with self.transaction():
            row = await self._one("SELECT action_seq, event_seq FROM game_tables WHERE id = ?", (table_id,))
            if row is None:
                raise VersionConflict(table_id, version_before)
            await self.commit_step(StepWrite(
                table_id=table_id, version_before=version_before, version=version, state=state, actions=actions,
                source=source, events=events, action_seq=row["action_seq"] + 1, event_seq=row["event_seq"] + 1,
                now=now))

    async def record_events(self, table_id: int, version: int, events: list[dict[str, Any]]) -> None:
        """Append events (JSON dicts) to a table's event log, at state ``version`` (one
        ``executemany``; advances the table's ``event_seq``). Joins an outer transaction."""
        if not events:
            return
        def write(conn: sqlite3.Connection) -> None:
            row = conn.execute("SELECT event_seq FROM game_tables WHERE id = ?", (table_id,)).fetchone()
            first = (row[0] if row is not None else 0) + 1
            conn.executemany("INSERT INTO events (table_id, seq, version, event) VALUES (?, ?, ?, ?)",
                             [(table_id, seq, version, dumps(ev)) for seq, ev in enumerate(events, start=first)])
            conn.execute("UPDATE game_tables SET event_seq = ? WHERE id = ?", (first + len(events) - 1, table_id))

        await self._atomic(write)

    async def action_log(self, table_id: int) -> list[tuple[int, dict[int, str], str]]:
        """The append-only log: ``(version_before, {seat: code}, source)`` in order."""
        rows = await self._all("SELECT * FROM actions WHERE table_id = ? ORDER BY seq", (table_id,))
        return [(r["version"], {int(k): v for k, v in loads(r["actions"]).items()}, r["source"]) for r in rows]

    async def recent_events(self, table_id: int, limit: int) -> list[dict[str, Any]]:
        """The last ``limit`` events of a table, oldest first: from the events table (rows
        written before migration 7, events recorded outside a step) and the action-log rows
        carrying their step's events, merged by seq. Two reads (portable SQL, ``_all``)."""
        if limit <= 0:
            return []
        old = await self._all(
            "SELECT seq, event FROM events WHERE table_id = ? ORDER BY seq DESC LIMIT ?", (table_id, limit))
        # a row with events holds at least one: ``limit`` rows hold the last ``limit`` events
        steps = await self._all(
            "SELECT event_seq, events FROM actions WHERE table_id = ? AND events IS NOT NULL"
            " ORDER BY seq DESC LIMIT ?", (table_id, limit))
        return _merged_events(old, steps)[-limit:]

    async def set_pending(self, table_id: int, seat: int, version: int, code: str) -> None:
        """Buffer (or change) a seat's choice in a simultaneous step."""
        await self._exec_short(
            "INSERT INTO pending (table_id, seat, version, code) VALUES (?, ?, ?, ?)"
            " ON CONFLICT (table_id, seat) DO UPDATE SET version = excluded.version, code = excluded.code",
            (table_id, seat, version, code))

    async def pending(self, table_id: int, version: int) -> dict[int, str]:
        """Buffered choices for the step at ``version`` (older ones are ignored)."""
        rows = await self._all("SELECT seat, code FROM pending WHERE table_id = ? AND version = ?", (table_id, version))
        return {r["seat"]: r["code"] for r in rows}

    # --- timers ----------------------------------------------------------------------------
    # A table's turn deadline ``turn:<id>`` lives in its row (turn_due, turn_timer; migration 8),
    # every other timer (and a turn timer of no stored table) in the timers table. Written with
    # the portable helpers only, so PostgresDatabase inherits them.
    async def set_timer(self, timer: TimerRow) -> None:
        """Set (or replace, by key) a persisted timer (a table's turn deadline in its row)."""
        table_id = turn_table(timer.key)
        payload = dumps(timer.payload)
        if table_id is not None and await self._exec(_SET_TURN, (timer.due, payload, table_id)) == 1:
            return
        await self._exec(_SET_TIMER, (timer.key, timer.due, payload))

    async def set_timers(self, timers: Iterable[TimerRow]) -> None:
        """Set (or replace) many timers at once (one round trip: an ``executemany`` of the rest
        after the tables' turn deadlines)."""
        rows = [(t.key, t.due, dumps(t.payload)) for t in timers]

        def write(conn: sqlite3.Connection) -> None:
            rest = []
            for key, due, payload in rows:
                table_id = turn_table(key)
                if table_id is None or conn.execute(_SET_TURN, (due, payload, table_id)).rowcount != 1:
                    rest.append((key, due, payload))
            conn.executemany(_SET_TIMER, rest)

        if rows:
            await self._atomic(write)

    async def cancel_timer(self, key: str) -> None:
        """Remove a timer (no error when there is none)."""
        table_id = turn_table(key)
        if table_id is not None and await self._exec(_CANCEL_TURN, (table_id,)) == 1:
            return
        await self._exec("DELETE FROM timers WHERE key = ?", (key,))

    async def timers(self, shards: Shards | None = None) -> list[TimerRow]:
        """Every persisted timer, the earliest due first (one bulk read: the timers table and
        the tables' turn deadlines). With ``shards``, only the timers those shards own:
        ``<kind>:<table id>`` follows its table's guild (joined on the id after the ``:``); a
        timer of no table belongs to shard 0. Portable SQL through ``_all`` (inherited by a
        backend that translates it)."""
        if shards is None or shards.everything:
            return [_timer(r) for r in await self._all(
                f"SELECT key, due, payload FROM timers UNION ALL {_TURN_TIMERS} WHERE g.turn_due IS NOT NULL"
                " ORDER BY due, key")]
        owned, args = _owned("g.guild_id", shards)
        # the table id is the key's trailing digits when a ':' comes just before them (portable
        # SQL: rtrim/substr/length/NULLIF exist in SQLite and PostgreSQL alike)
        head = "length(rtrim(tm.key, '0123456789'))"
        rows = await self._all(
            "SELECT tm.key, tm.due, tm.payload FROM timers tm LEFT JOIN game_tables g"
            f" ON substr(tm.key, {head}, 1) = ':'"
            f" AND g.id = CAST(NULLIF(substr(tm.key, {head} + 1), '') AS INTEGER)"
            f" WHERE (g.id IS NOT NULL{owned}) OR (g.id IS NULL AND ?)"
            f" UNION ALL {_TURN_TIMERS} WHERE g.turn_due IS NOT NULL{owned} ORDER BY due, key",
            (*args, 0 in shards.ids, *args))
        return [_timer(r) for r in rows]

    async def timer(self, key: str) -> TimerRow | None:
        """One timer, or ``None``."""
        table_id = turn_table(key)
        if table_id is not None:
            row = await self._one(f"{_TURN_TIMERS} WHERE g.id = ? AND g.turn_due IS NOT NULL", (table_id,))
            if row is not None:
                return _timer(row)
        row = await self._one("SELECT * FROM timers WHERE key = ?", (key,))
        return _timer(row) if row is not None else None

    # --- results and ratings ---------------------------------------------------------------
    async def record_result(
        self, table_id: int, *, guild_id: int, game: str, outcome: dict[str, Any],
        seats: list[tuple[int, int | None, int, int]], now: float,
    ) -> None:
        """Store a finished game's result: ``seats`` = ``(seat, user_id, rank, score)``."""
        await self._exec(
            "INSERT INTO results (table_id, guild_id, game, finished_at, outcome) VALUES (?, ?, ?, ?, ?)",
            (table_id, guild_id, game, now, dumps(outcome)),
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
                (guild_id, game, name, dumps(data), created_by, now),
            )

    async def decks(self, guild_id: int, game: str) -> list[tuple[int, str]]:
        """A guild's decks for a game: ``(deck_id, name)``."""
        rows = await self._all("SELECT id, name FROM decks WHERE guild_id = ? AND game = ? ORDER BY name", (guild_id, game))
        return [(r["id"], r["name"]) for r in rows]

    async def deck(self, guild_id: int, deck_id: int) -> dict[str, Any] | None:
        """A stored deck's data (only if it belongs to ``guild_id``)."""
        row = await self._one("SELECT data FROM decks WHERE guild_id = ? AND id = ?", (guild_id, deck_id))
        return loads(row["data"]) if row else None

    async def delete_deck(self, guild_id: int, deck_id: int) -> bool:
        """Remove a guild's deck; True when something was removed."""
        return bool(await self._exec("DELETE FROM decks WHERE guild_id = ? AND id = ?", (guild_id, deck_id)))

    # ---------------------------------------------------------------- lifecycle and table admin
    async def guild_tables(self, guild_id: int, statuses: tuple[str, ...] = ("lobby", "running")) -> list[TableRow]:
        """A guild's tables whose status is in ``statuses``, oldest first."""
        marks = ", ".join("?" for _ in statuses)
        rows = await self._all(f"SELECT * FROM game_tables WHERE guild_id = ? AND status IN ({marks}) ORDER BY id",
                               (guild_id, *statuses))
        return [_table(r) for r in rows]

    async def tables_in_place(self, place_id: int, statuses: tuple[str, ...] = ("lobby", "running")) -> list[TableRow]:
        """Tables whose thread or channel is ``place_id`` and whose status is in ``statuses``."""
        marks = ", ".join("?" for _ in statuses)
        rows = await self._all(f"SELECT * FROM game_tables WHERE (thread_id = ? OR channel_id = ?)"
                               f" AND status IN ({marks}) ORDER BY id", (place_id, place_id, *statuses))
        return [_table(r) for r in rows]

    async def open_lobby_of(self, guild_id: int, channel_id: int, host_user_id: int) -> TableRow | None:
        """The open lobby ``host_user_id`` hosts in a channel (the oldest), or ``None``."""
        row = await self._one("SELECT * FROM game_tables WHERE guild_id = ? AND channel_id = ? AND host_user_id = ?"
                              " AND status = 'lobby' ORDER BY id LIMIT 1", (guild_id, channel_id, host_user_id))
        return _table(row) if row else None

    async def all_events(self, table_id: int) -> list[dict[str, Any]]:
        """Every event of a table in order (all audiences: filter before showing): the events
        table's rows and the action-log rows' events (migration 7), merged by seq."""
        old = await self._all("SELECT seq, event FROM events WHERE table_id = ? ORDER BY seq", (table_id,))
        steps = await self._all("SELECT event_seq, events FROM actions WHERE table_id = ? AND events IS NOT NULL"
                                " ORDER BY seq", (table_id,))
        return _merged_events(old, steps)


def _is_a_store(db: Database) -> Store:
    """Never called: mypy checks here that :class:`Database` implements :class:`Store`."""
    return db
