"""The SQLite driver (aiosqlite): :class:`SqliteStore`, the embedded :class:`storage.base.Store`.
Every statement here is SQLite's dialect (``?`` marks); the schema is the ``.sql`` files of
``storage/migrations/sqlite/``.

One :class:`SqliteStore` per process wraps one aiosqlite connection (WAL journal, foreign keys
on, ``PRAGMA user_version`` is the schema version). Opening a file checks it first: a schema
newer than the code is refused (:class:`storage.base.SchemaTooNew`), and so is a file that
fails ``PRAGMA quick_check`` (:class:`storage.base.DatabaseDamaged`). The hot paths run as one
function each: a step's few short writes on the event loop's own thread
(:meth:`SqliteStore.commit_step`), the bulk reads at start-up in the connection's worker thread
(:meth:`SqliteStore.running_tables`): one round trip each, however many statements.

Times are UNIX seconds (float), always passed in by the caller (the service owns the clock).
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any, TypeVar

import aiosqlite

from storage.base import (
    GUILD_SETTINGS_COLUMNS,
    DatabaseDamaged,
    GuildSettings,
    Pace,
    PastResult,
    RatingPoint,
    RatingRow,
    ResultRow,
    RunningTable,
    SchemaTooNew,
    SeasonRecord,
    SeasonRow,
    SeatRow,
    SettingsChange,
    Shards,
    StepWrite,
    Store,
    TableRow,
    TimerRow,
    VersionConflict,
    dumps,
    grouped_results,
    loads,
    merged_events,
    step_timers,
    table_update,
    turn_table,
)
from storage.migrations import latest, migrations

__all__ = ["BUSY_TIMEOUT", "CHECKPOINT_EVERY", "OPEN_RETRY_SECONDS", "SqliteStore", "database_problem", "script_statements"]

T = TypeVar("T")

#: A passive WAL checkpoint is started (in a thread, see ``SqliteStore._wrote``) every this many writes.
CHECKPOINT_EVERY = 200
#: How long :meth:`SqliteStore.open` keeps retrying while another connection (another process
#: opening the same file) holds a lock that SQLite reports at once, without waiting (seconds).
OPEN_RETRY_SECONDS = 15.0
#: SQLite's primary result code for a damaged file (``SQLITE_CORRUPT``).
_CORRUPT = 11
#: SQLite's primary result codes of a lock held elsewhere (``SQLITE_BUSY``, ``SQLITE_LOCKED``):
#: transient, the statement may succeed when asked again.
_BUSY = (5, 6)
#: How long a statement waits for a lock another connection holds before it fails as busy
#: (seconds, ``PRAGMA busy_timeout``; :class:`storage.base.StoreUnavailable` then).
BUSY_TIMEOUT = 5.0


def script_statements(script: str) -> list[str]:
    r"""The statements of an SQL script, in order: split at the line ends where
    :func:`sqlite3.complete_statement` says a statement ends (so never two statements on one
    line); comment lines between statements are left out.

    >>> script_statements("-- a table\nCREATE TABLE a (x TEXT DEFAULT ';');\n\n  CREATE INDEX i ON a (x);\n")
    ["CREATE TABLE a (x TEXT DEFAULT ';');", 'CREATE INDEX i ON a (x);']
    """
    out, current = [], ""
    for line in script.splitlines(keepends=True):
        if not current and (not line.strip() or line.lstrip().startswith("--")):
            continue
        current += line
        if sqlite3.complete_statement(current):
            out.append(current.strip())
            current = ""
    if current.strip():
        out.append(current.strip())
    return out


def _damaged(err: sqlite3.Error) -> bool:
    """Whether SQLite reported a corrupt file (``SQLITE_CORRUPT`` or one of its extended codes)."""
    code = getattr(err, "sqlite_errorcode", None)
    return code is not None and code & 0xFF == _CORRUPT


def database_problem(path: str | Path) -> str | None:
    """Why the SQLite file at ``path`` cannot be used (``None`` when it can), checked without
    running migrations or the integrity check: a folder, a file that is not a database, an
    unwritable place, a schema newer than this code (:class:`storage.base.SchemaTooNew`'s words).

    Synchronous, for start-up checks before the event loop runs; creates missing parent folders.
    """
    path = Path(path)
    if path.is_dir():
        return "this is a folder; give a file name such as speakeasy.db"
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(path)
        try:
            found = conn.execute("PRAGMA user_version").fetchone()[0]  # a real read: is it a database?
        finally:
            conn.close()
    except sqlite3.Error as exc:
        return str(DatabaseDamaged(str(exc))) if _damaged(exc) else f"cannot open the database ({exc})"
    except OSError as exc:
        return f"cannot open the database ({exc})"
    if found > latest("sqlite"):
        return str(SchemaTooNew(found, latest("sqlite")))
    return None


#: The step's compare-and-set ``UPDATE``, by (status changes, turn deadline changes): with
#: ``status`` only when it changes (a column in the SET list makes SQLite rewrite the entries of
#: every index holding it, two on status, whatever the value), with the row's turn deadline
#: (``turn_due``, ``turn_timer``) only when the step sets or clears it.
_STEP_UPDATES = {
    (status, turn): "UPDATE game_tables SET state = ?, version = ?, updated_at = ?, action_seq = ?, event_seq = ?"
                    + (", status = ?" if status else "") + (", turn_due = ?, turn_timer = ?" if turn else "")
                    + " WHERE id = ? AND version = ? AND status = 'running'"
    for status in (False, True) for turn in (False, True)
}
_STEP_ACTION = ("INSERT INTO actions (table_id, seq, version, actions, source, created_at, event_seq, events)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?)")
_SET_TURN = "UPDATE game_tables SET turn_due = ?, turn_timer = ? WHERE id = ?"
_CANCEL_TURN = "UPDATE game_tables SET turn_due = NULL, turn_timer = NULL WHERE id = ? AND turn_due IS NOT NULL"
_TURN_TIMERS = "SELECT 'turn:' || g.id AS key, g.turn_due AS due, g.turn_timer AS payload FROM game_tables g"
_SET_TIMER = ("INSERT INTO timers (key, due, payload) VALUES (?, ?, ?)"
              " ON CONFLICT (key) DO UPDATE SET due = excluded.due, payload = excluded.payload")


#: The current season of a server's game, given ``(guild_id, game)``: the highest stored, else 1.
_CURRENT = "(SELECT COALESCE(MAX(season), 1) FROM seasons WHERE guild_id = ? AND game = ?)"
#: The servers' games holding a result with a member seat and no rating history (``pairs``),
#: then every result ``r`` of them (see ``results_to_replay``): one pass over the results. Only
#: results older than every rated one (``cutoff``: stored before the history existed) count: a
#: later result without history was left unrated on purpose (its members had left the server).
_TO_REPLAY = ("WITH cutoff AS (SELECT COALESCE(MIN(h0.table_id), 9223372036854775807) AS id FROM rating_history h0),"
              " pairs AS (SELECT DISTINCT u.guild_id, u.game FROM results u"
              " JOIN result_seats us ON us.table_id = u.table_id WHERE us.user_id IS NOT NULL"
              " AND u.table_id < (SELECT id FROM cutoff)"
              " AND NOT EXISTS (SELECT 1 FROM rating_history h WHERE h.table_id = u.table_id))"
              " SELECT r.* FROM results r JOIN pairs p ON p.guild_id = r.guild_id AND p.game = r.game"
              " WHERE r.table_id < (SELECT id FROM cutoff)")
_SAVE_SETTINGS = (f"INSERT INTO guild_settings ({', '.join(GUILD_SETTINGS_COLUMNS)})"
                  f" VALUES ({', '.join('?' for _ in GUILD_SETTINGS_COLUMNS)}) ON CONFLICT (guild_id) DO UPDATE SET "
                  + ", ".join(f"{c} = excluded.{c}" for c in GUILD_SETTINGS_COLUMNS[1:]))


def _season(season: int | None, guild_id: int, game: str) -> tuple[str, tuple[Any, ...]]:
    """The SQL value of a season argument and its parameters: ``?`` and the number, or the
    current-season subquery (``None``)."""
    return ("?", (season,)) if season is not None else (_CURRENT, (guild_id, game))


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


class SqliteStore(Store):
    """An open SQLite store (:class:`storage.base.Store`). Use :meth:`open` (async) and :meth:`close`.

    Raises ``aiosqlite.Error`` / ``sqlite3.Error`` subclasses on I/O failure;
    ``sqlite3.IntegrityError`` on a broken constraint (for example a user seated twice at a table);
    :class:`storage.base.StoreUnavailable` when the file stays locked by another connection
    beyond ``busy_timeout`` seconds (``SQLITE_BUSY`` / ``SQLITE_LOCKED``: transient).
    """

    def __init__(self, conn: aiosqlite.Connection, path: str, *, busy_timeout: float = BUSY_TIMEOUT) -> None:
        super().__init__(path)
        self._conn = conn
        self.busy_timeout = busy_timeout
        # WAL checkpoints run off the event loop's thread (see _wrote)
        self._writes = 0
        self._checkpointing: asyncio.Task[None] | None = None
        self._checkpointer: sqlite3.Connection | None = None

    # --- lifecycle -------------------------------------------------------------------------
    @classmethod
    async def open(cls, path: str | Path, *, upto: int | None = None,
                   busy_timeout: float = BUSY_TIMEOUT) -> SqliteStore:
        """Open (creating if needed) the database at ``path``, check it and run the pending
        migrations (up to version ``upto`` only, when given: tests and tools that make an older
        database). A statement waits up to ``busy_timeout`` seconds for a lock held by another
        connection, then raises :class:`storage.base.StoreUnavailable`.

        Raises :class:`storage.base.SchemaTooNew` for a file of a newer Speakeasy,
        :class:`storage.base.DatabaseDamaged` for a file that fails ``PRAGMA quick_check``,
        ``sqlite3.Error`` / ``OSError`` for a file that cannot be opened or is no database.
        """
        path = str(path)
        if path != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
            # a file that cannot be opened (a folder, no rights) fails here, on this thread: a
            # failed aiosqlite.connect leaves its worker thread answering a loop that may be
            # closed by then (a "RuntimeError: Event loop is closed" traceback at exit,
            # omnilib/aiosqlite#389)
            sqlite3.connect(path).close()
        # check_same_thread=False: the short writes of a step run on the event loop's thread
        # (see _inline), every other statement in aiosqlite's worker thread; the lock ensures
        # the two never use the connection at the same time.
        conn = await aiosqlite.connect(path, isolation_level=None, check_same_thread=False)
        conn.row_factory = aiosqlite.Row
        db = cls(conn, path, busy_timeout=busy_timeout)
        loop = asyncio.get_running_loop()
        give_up = loop.time() + OPEN_RETRY_SECONDS
        try:
            while True:
                try:
                    await db._set_up(upto)
                    break
                except sqlite3.OperationalError as err:
                    # Turning a new file to WAL needs its write lock, and SQLite does not wait
                    # for it while another connection reads the file (two processes opening a
                    # new database together): "database is locked" at once. Try again shortly.
                    if "locked" not in str(err) or loop.time() > give_up:
                        raise
                    await asyncio.sleep(0.02)
        except sqlite3.DatabaseError as err:
            await conn.close()  # its worker thread would keep the process alive
            if _damaged(err):
                raise DatabaseDamaged(str(err)) from err
            raise
        except BaseException:
            await conn.close()
            raise
        return db

    async def _set_up(self, upto: int | None) -> None:
        """The connection's settings, the checks, then the pending migrations (each in its own
        transaction, so this may run again after a lock error)."""
        # busy_timeout first: every statement after it waits for a lock held elsewhere
        # WAL + synchronous=NORMAL: durable across application crashes, fast commits
        # wal_autocheckpoint=0: this connection never checkpoints inside a write (a
        # checkpoint copies and syncs up to 1,000 pages: milliseconds on the event loop's
        # thread, see _inline); a second connection does it in a thread (_wrote)
        for pragma in (f"PRAGMA busy_timeout={round(self.busy_timeout * 1000)}", "PRAGMA journal_mode=WAL",
                       "PRAGMA synchronous=NORMAL",
                       "PRAGMA foreign_keys=ON", "PRAGMA wal_autocheckpoint=0"):
            async with self._conn.execute(pragma) as cur:
                row = await cur.fetchone()
            if pragma == "PRAGMA journal_mode=WAL" and self.path != ":memory:" and row is not None and row[0] != "wal":
                raise sqlite3.OperationalError(f"database is locked (journal mode still {row[0]})")
        found = await self.schema_version()
        if found > latest("sqlite"):
            raise SchemaTooNew(found, latest("sqlite"))
        if self.path != ":memory:":
            await self.check()
        await self.migrate(upto)

    async def check(self) -> None:
        """``PRAGMA quick_check`` (every page and index entry's structure, in the worker thread);
        raises :class:`storage.base.DatabaseDamaged` with SQLite's first complaint."""
        rows = await self._worker(lambda conn: conn.execute("PRAGMA quick_check(1)").fetchall())
        verdict = rows[0][0] if rows else "no answer"
        if verdict != "ok":
            raise DatabaseDamaged(verdict)

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

    async def migrate(self, upto: int | None = None) -> int:
        """Apply every migration file (``storage/migrations/sqlite/``) newer than
        ``user_version``, up to ``upto`` when given, each in its own transaction; returns the
        version reached.

        Each is applied once even when several processes open a new file together: the
        version is read again inside the transaction (``BEGIN IMMEDIATE`` holds the file's write
        lock), and a migration another process applied meanwhile is skipped."""
        current = await self.schema_version()
        for migration in migrations("sqlite")[current:upto]:
            statements = script_statements(migration.sql)

            def apply(conn: sqlite3.Connection, number: int = migration.version,
                      statements: list[str] = statements) -> None:
                conn.execute("BEGIN IMMEDIATE")
                try:
                    if conn.execute("PRAGMA user_version").fetchone()[0] < number:
                        for statement in statements:
                            conn.execute(statement)
                        conn.execute(f"PRAGMA user_version = {number}")
                    conn.execute("COMMIT")
                except BaseException:
                    if conn.in_transaction:
                        conn.execute("ROLLBACK")
                    raise

            await self._worker(apply)
        return await self.schema_version()

    # --- the connection (Store's hooks, and the helpers every query goes through) ----------
    async def _begin(self) -> None:
        await self._raw("BEGIN IMMEDIATE")

    async def _commit(self) -> None:
        await self._raw("COMMIT")

    async def _rollback(self) -> None:
        await self._raw("ROLLBACK")

    async def _heal(self) -> None:
        """Roll back a transaction nobody owns (left by a task cancelled mid-BEGIN/COMMIT)."""
        if self._conn.in_transaction:
            await self._raw("ROLLBACK")

    def _transient(self, exc: BaseException) -> bool:
        """A lock held by another connection beyond the busy timeout (``SQLITE_BUSY``,
        ``SQLITE_LOCKED``, extended codes included)."""
        return isinstance(exc, sqlite3.OperationalError) and (getattr(exc, "sqlite_errorcode", 0) & 0xFF) in _BUSY

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
            return fn(self._conn._conn)  # the transaction's end classifies a busy error
        async with self._lock:
            try:
                if self._conn.in_transaction:  # the _heal() coroutine only when there is a transaction to heal
                    await self._heal()
                result = fn(self._conn._conn)
            except sqlite3.OperationalError as exc:
                unavailable = self._classify(exc)
                if unavailable is exc:
                    raise
                raise unavailable from exc
            if self.unavailable_since is not None:
                self._answered()
            return result

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
        options: dict[str, Any], now: float, pace: Pace | None = None,
    ) -> int:
        """Insert a table in the ``lobby`` status at ``pace``; returns its id."""
        paced = (", pace", ", ?", (pace,)) if pace is not None else ("", "", ())  # (no pace column before version 10)
        return await self._insert(
            f"INSERT INTO game_tables (guild_id, channel_id, game, options, status, host_user_id, lang,"
            f" created_at, updated_at{paced[0]}) VALUES (?, ?, ?, ?, 'lobby', ?, ?, ?, ?{paced[1]})",
            (guild_id, channel_id, game, dumps(options), host_user_id, lang, now, now, *paced[2]),
        )

    async def get_table(self, table_id: int) -> TableRow | None:
        """The table with ``table_id`` or ``None``."""
        row = await self._one("SELECT * FROM game_tables WHERE id = ?", (table_id,))
        return TableRow.of(row) if row else None

    async def tables_with_status(self, status: str) -> list[TableRow]:
        """Every table with ``status`` (``lobby``, ``running``, ``finished``, ``abandoned``)."""
        rows = await self._all("SELECT * FROM game_tables WHERE status = ? ORDER BY id", (status,))
        return [TableRow.of(r) for r in rows]

    async def update_table(self, table_id: int, now: float, *, expect_status: str | None = None,
                           **fields: Any) -> bool:
        """Set columns of a table (``options``/``state`` are JSON-encoded here); with
        ``expect_status``, only while the table still has that status (a compare-and-set: two
        processes cannot both start, or end, one table). True when the row was changed.

        Raises ``ValueError`` for no field or a column that may not be set.
        """
        names, values = table_update(fields)
        cols = ", ".join(f"{name} = ?" for name in names)
        if expect_status is None:
            return await self._exec(f"UPDATE game_tables SET {cols}, updated_at = ? WHERE id = ?",
                                    (*values, now, table_id)) == 1
        return await self._exec(f"UPDATE game_tables SET {cols}, updated_at = ? WHERE id = ? AND status = ?",
                                (*values, now, table_id, expect_status)) == 1

    async def running_tables(self) -> list[RunningTable]:
        """Every running table with its seats and the buffered choices of its current step, by
        id: three bulk reads in one round trip; snapshots stay JSON text (``state_json``)."""
        return await self._running(None)

    async def running_tables_of(self, shards: Shards) -> list[RunningTable]:
        """:meth:`running_tables` of the guilds on ``shards`` only (``(guild_id >> 22) % count``
        in the ``WHERE`` clauses)."""
        return await self._running(shards)

    async def _running(self, shards: Shards | None) -> list[RunningTable]:
        """The three bulk reads in the worker thread, in one read transaction (one snapshot of
        the file while other processes write; joined when the caller holds a transaction)."""
        owned, args = _owned("t.guild_id", shards)
        nested = self._owner is asyncio.current_task()

        def read(conn: sqlite3.Connection) -> list[RunningTable]:
            if not nested:
                conn.execute("BEGIN")
            try:
                return snapshot(conn)
            finally:
                if not nested:
                    conn.execute("COMMIT")

        def snapshot(conn: sqlite3.Connection) -> list[RunningTable]:
            tables = conn.execute(
                f"SELECT * FROM game_tables t WHERE t.status = 'running'{owned} ORDER BY t.id", args).fetchall()
            seats: dict[int, list[SeatRow]] = {}
            for r in conn.execute(
                    "SELECT s.* FROM seats s JOIN game_tables t ON t.id = s.table_id"
                    f" WHERE t.status = 'running'{owned} ORDER BY s.table_id, s.seat", args):
                seats.setdefault(r["table_id"], []).append(SeatRow.of(r))
            pending: dict[int, dict[int, str]] = {}
            for r in conn.execute(
                    "SELECT p.table_id, p.seat, p.code FROM pending p JOIN game_tables t ON t.id = p.table_id"
                    f" WHERE t.status = 'running' AND p.version = t.version{owned}", args):
                pending.setdefault(r["table_id"], {})[r["seat"]] = r["code"]
            return [RunningTable(TableRow.of(r, decode_state=False), r["state"], seats.get(r["id"], []),
                                 pending.get(r["id"], {})) for r in tables]

        async with self._access():
            return await self._worker(read)

    # --- seats -----------------------------------------------------------------------------
    async def seats(self, table_id: int) -> list[SeatRow]:
        """Seats of a table ordered by seat number."""
        rows = await self._all("SELECT * FROM seats WHERE table_id = ? ORDER BY seat", (table_id,))
        return [SeatRow.of(r) for r in rows]

    async def replace_seats(self, table_id: int, seats: list[SeatRow]) -> None:
        """Replace every seat of a table (lobby edits and the final seat order at start)."""
        # ``muted`` only when a seat is muted: the rows stay writable at schema versions before 10
        muted = any(s.muted for s in seats)
        rows = [(table_id, s.seat, s.user_id, s.name, int(s.is_ai), int(s.away), s.timeouts, s.ai_level,
                 *((int(s.muted),) if muted else ())) for s in seats]
        sql = ("INSERT INTO seats (table_id, seat, user_id, name, is_ai, away, timeouts, ai_level, muted)"
               " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)" if muted else
               "INSERT INTO seats (table_id, seat, user_id, name, is_ai, away, timeouts, ai_level)"
               " VALUES (?, ?, ?, ?, ?, ?, ?, ?)")

        def write(conn: sqlite3.Connection) -> None:
            conn.execute("DELETE FROM seats WHERE table_id = ?", (table_id,))
            conn.executemany(sql, rows)

        await self._atomic(write)

    async def set_seat_state(self, table_id: int, seat: int, *, away: bool, timeouts: int) -> None:
        """Store a seat's ``away`` flag and its timeouts-in-a-row counter."""
        await self._exec("UPDATE seats SET away = ?, timeouts = ? WHERE table_id = ? AND seat = ?",
                         (int(away), timeouts, table_id, seat))

    async def set_seat_muted(self, table_id: int, seat: int, muted: bool) -> None:
        """Store whether a seat's member muted the turn pings of this table."""
        await self._exec("UPDATE seats SET muted = ? WHERE table_id = ? AND seat = ?", (int(muted), table_id, seat))

    async def member_tables(self, guild_id: int, user_id: int,
                            statuses: tuple[str, ...] = ("lobby", "running")) -> list[TableRow]:
        """The tables of a server where ``user_id`` has a seat, with a status in ``statuses``, oldest first."""
        marks = ", ".join("?" for _ in statuses)
        rows = await self._all(
            "SELECT t.* FROM game_tables t JOIN seats s ON s.table_id = t.id AND s.user_id = ?"
            f" WHERE t.guild_id = ? AND t.status IN ({marks}) ORDER BY t.id", (user_id, guild_id, *statuses))
        return [TableRow.of(r) for r in rows]

    # --- play ------------------------------------------------------------------------------
    async def commit_step(self, step: StepWrite) -> None:
        """Store an applied step in one transaction and one round trip, on the loop's thread:
        the snapshot (compact JSON) and version by compare-and-set (``UPDATE ... WHERE id = ?
        AND version = ?`` on a running table), the action-log row carrying the step's events (a
        JSON array and the first one's seq: one B-tree and its index written, not two and two),
        the sequence counters, the buffered choices cleared, the timer set or cancelled (the
        table's own turn deadline in its row: no timers row written).

        Raises :class:`storage.base.VersionConflict` (nothing stored) when the table is no
        longer running at ``step.version_before``. Joins the caller's transaction if any.
        """
        timer, cancel, turn = step_timers(step)
        table_sql = _STEP_UPDATES[step.status is not None, turn is not None]
        table_args: tuple[Any, ...] = (dumps(step.state), step.version, step.now, step.action_seq, step.last_event,
                                       *((step.status,) if step.status is not None else ()), *(turn or ()),
                                       step.table_id, step.version_before)
        action_args = (step.table_id, step.action_seq, step.version_before, step.actions_json(), step.source,
                       step.now, *step.events_columns())
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
        rows = await self._all("SELECT version, actions, source FROM actions WHERE table_id = ? ORDER BY seq",
                               (table_id,))
        return [(r["version"], {int(k): v for k, v in loads(r["actions"]).items()}, r["source"]) for r in rows]

    async def first_action_at(self, table_id: int) -> float | None:
        """When the table's first action was stored."""
        rows = await self._all("SELECT MIN(created_at) AS at FROM actions WHERE table_id = ?", (table_id,))
        return None if rows[0]["at"] is None else float(rows[0]["at"])

    async def recent_events(self, table_id: int, limit: int) -> list[dict[str, Any]]:
        """The last ``limit`` events of a table, oldest first: from the events table (rows
        stored before schema version 7, events recorded outside a step) and the action-log rows
        carrying their step's events, merged by seq (one round trip)."""
        if limit <= 0:
            return []

        def read(conn: sqlite3.Connection) -> list[dict[str, Any]]:
            old = conn.execute("SELECT seq, event FROM events WHERE table_id = ? ORDER BY seq DESC LIMIT ?",
                               (table_id, limit)).fetchall()
            # a row with events holds at least one: ``limit`` rows hold the last ``limit`` events
            steps = conn.execute("SELECT event_seq, events FROM actions WHERE table_id = ? AND events IS NOT NULL"
                                 " ORDER BY seq DESC LIMIT ?", (table_id, limit)).fetchall()
            return merged_events(old, steps)[-limit:]

        async with self._access():
            return await self._worker(read)

    async def set_pending(self, table_id: int, seat: int, version: int, code: str) -> None:
        """Buffer (or change) a seat's choice in a simultaneous step (on the loop's thread: one
        short write on the click path, see :meth:`_inline`)."""
        args = (table_id, seat, version, code)
        await self._inline(lambda conn: conn.execute(
            "INSERT INTO pending (table_id, seat, version, code) VALUES (?, ?, ?, ?)"
            " ON CONFLICT (table_id, seat) DO UPDATE SET version = excluded.version, code = excluded.code", args))

    async def pending(self, table_id: int, version: int) -> dict[int, str]:
        """Buffered choices for the step at ``version`` (older ones are ignored)."""
        rows = await self._all("SELECT seat, code FROM pending WHERE table_id = ? AND version = ?", (table_id, version))
        return {r["seat"]: r["code"] for r in rows}

    # --- timers ----------------------------------------------------------------------------
    # A table's turn deadline ``turn:<id>`` lives in its row (turn_due, turn_timer), every other
    # timer (and a turn timer of no stored table) in the timers table.
    async def set_timer(self, timer: TimerRow) -> None:
        """Set (or replace, by key) a persisted timer (a table's turn deadline in its row)."""
        await self.set_timers((timer,))

    async def set_timers(self, timers: Iterable[TimerRow]) -> None:
        """Set (or replace) many timers at once (one round trip: the tables' turn deadlines,
        then an ``executemany`` of the rest)."""
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
        ``<kind>:<table id>`` follows its table's guild (joined on the id after the last
        ``:``); a timer of no table belongs to shard 0."""
        if shards is None or shards.everything:
            rows = await self._all(f"SELECT key, due, payload FROM timers UNION ALL {_TURN_TIMERS}"
                                   " WHERE g.turn_due IS NOT NULL ORDER BY due, key")
            return [TimerRow.of(r) for r in rows]
        owned, args = _owned("g.guild_id", shards)
        # the table id: the key's trailing digits, when a ':' comes just before them
        head = "length(rtrim(tm.key, '0123456789'))"
        rows = await self._all(
            "SELECT tm.key, tm.due, tm.payload FROM timers tm LEFT JOIN game_tables g"
            f" ON substr(tm.key, {head}, 1) = ':'"
            f" AND g.id = CAST(NULLIF(substr(tm.key, {head} + 1), '') AS INTEGER)"
            f" WHERE (g.id IS NOT NULL{owned}) OR (g.id IS NULL AND ?)"
            f" UNION ALL {_TURN_TIMERS} WHERE g.turn_due IS NOT NULL{owned} ORDER BY due, key",
            (*args, 0 in shards.ids, *args))
        return [TimerRow.of(r) for r in rows]

    async def timer(self, key: str) -> TimerRow | None:
        """One timer, or ``None``."""
        table_id = turn_table(key)
        if table_id is not None:
            row = await self._one(f"{_TURN_TIMERS} WHERE g.id = ? AND g.turn_due IS NOT NULL", (table_id,))
            if row is not None:
                return TimerRow.of(row)
        row = await self._one("SELECT key, due, payload FROM timers WHERE key = ?", (key,))
        return TimerRow.of(row) if row is not None else None

    # --- results and ratings ---------------------------------------------------------------
    async def record_result(
        self, table_id: int, *, guild_id: int, game: str, outcome: dict[str, Any],
        seats: list[tuple[int, int | None, int, int]], now: float,
    ) -> None:
        """Store a finished game's result: ``seats`` = ``(seat, user_id, rank, score)``."""
        result = (table_id, guild_id, game, now, dumps(outcome))
        rows = [(table_id, seat, user_id, rank, score) for seat, user_id, rank, score in seats]

        def write(conn: sqlite3.Connection) -> None:
            conn.execute("INSERT INTO results (table_id, guild_id, game, finished_at, outcome) VALUES (?, ?, ?, ?, ?)",
                         result)
            conn.executemany("INSERT INTO result_seats (table_id, seat, user_id, rank, score) VALUES (?, ?, ?, ?, ?)",
                             rows)

        await self._atomic(write)

    async def ratings(self, guild_id: int, game: str, user_ids: Iterable[int], *,
                      season: int | None = None) -> dict[int, RatingRow]:
        """Existing ratings of ``user_ids`` in ``season`` (``None``: the current one; missing
        users are absent from the result)."""
        ids = list(user_ids)
        if not ids:
            return {}
        marks = ",".join("?" * len(ids))
        value, args = _season(season, guild_id, game)
        rows = await self._all(
            f"SELECT * FROM ratings WHERE guild_id = ? AND game = ? AND season = {value} AND user_id IN ({marks})",
            (guild_id, game, *args, *ids))
        return {r["user_id"]: RatingRow.of(r) for r in rows}

    async def save_rating(self, guild_id: int, game: str, row: RatingRow, *, season: int | None = None) -> None:
        """Insert or replace one member's rating and stats in ``season`` (``None``: the current one)."""
        value, args = _season(season, guild_id, game)
        await self._exec(
            "INSERT INTO ratings (guild_id, game, season, user_id, mu, sigma, played, won)"
            f" VALUES (?, ?, {value}, ?, ?, ?, ?, ?)"
            " ON CONFLICT (guild_id, game, season, user_id) DO UPDATE SET mu = excluded.mu, sigma = excluded.sigma,"
            " played = excluded.played, won = excluded.won",
            (guild_id, game, *args, row.user_id, row.mu, row.sigma, row.played, row.won),
        )

    async def leaderboard(self, guild_id: int, game: str, min_games: int, limit: int = 10, *,
                          season: int | None = None) -> list[RatingRow]:
        """Top members of a server's game in ``season`` (``None``: the current one) by ordinal
        (``mu - 3 sigma``), with ``min_games`` played."""
        value, args = _season(season, guild_id, game)
        rows = await self._all(
            f"SELECT * FROM ratings WHERE guild_id = ? AND game = ? AND season = {value} AND played >= ?"
            " ORDER BY (mu - 3 * sigma) DESC, won DESC, user_id LIMIT ?",
            (guild_id, game, *args, min_games, limit),
        )
        return [RatingRow.of(r) for r in rows]

    async def member_stats(self, guild_id: int, user_id: int) -> dict[str, RatingRow]:
        """A member's rating and stats per game in each game's current season: ``{game: RatingRow}``."""
        rows = await self._all(
            "SELECT r.* FROM ratings r WHERE r.guild_id = ? AND r.user_id = ? AND r.season ="
            " (SELECT COALESCE(MAX(season), 1) FROM seasons s WHERE s.guild_id = r.guild_id AND s.game = r.game)"
            " ORDER BY r.game", (guild_id, user_id))
        return {r["game"]: RatingRow.of(r) for r in rows}

    # --- seasons and the rating history ----------------------------------------------------
    async def seasons(self, guild_id: int, game: str) -> list[SeasonRow]:
        """Every season of a server's game, oldest first (``[SeasonRow(1)]`` when none was started)."""
        rows = await self._all("SELECT * FROM seasons WHERE guild_id = ? AND game = ? ORDER BY season",
                               (guild_id, game))
        return [SeasonRow.of(r) for r in rows] or [SeasonRow(1)]

    async def start_season(self, guild_id: int, game: str, name: str | None, now: float, *,
                           after: int | None = None) -> SeasonRow:
        """End the current season (``ended_at = now``) and start the next one, named ``name``
        (returned: the season this call started, whatever other starts follow it); with
        ``after``, only when the current season is ``after`` (else the current one is returned)."""
        started: list[int] = []

        def write(conn: sqlite3.Connection) -> None:
            conn.execute("INSERT INTO seasons (guild_id, game, season) SELECT ?, ?, 1"
                         " WHERE NOT EXISTS (SELECT 1 FROM seasons WHERE guild_id = ? AND game = ?)",
                         (guild_id, game, guild_id, game))
            current = conn.execute("SELECT MAX(season) FROM seasons WHERE guild_id = ? AND game = ?",
                                   (guild_id, game)).fetchone()[0]
            if after is not None and current != after:  # started meanwhile: the current one is returned
                started.append(current)
                return
            conn.execute("UPDATE seasons SET ended_at = ? WHERE guild_id = ? AND game = ? AND season = ?",
                         (now, guild_id, game, current))
            conn.execute("INSERT INTO seasons (guild_id, game, season, name, started_at) VALUES (?, ?, ?, ?, ?)",
                         (guild_id, game, current + 1, name, now))
            started.append(current + 1)

        await self._atomic(write)
        return next(s for s in await self.seasons(guild_id, game) if s.season == started[0])

    async def member_seasons(self, guild_id: int, user_id: int) -> list[SeasonRecord]:
        """A member's record in every season of every game they played in a server, by game then season."""
        rows = await self._all(
            "SELECT r.*, s.name, s.started_at, s.ended_at FROM ratings r LEFT JOIN seasons s"
            " ON s.guild_id = r.guild_id AND s.game = r.game AND s.season = r.season"
            " WHERE r.guild_id = ? AND r.user_id = ? ORDER BY r.game, r.season", (guild_id, user_id))
        return [SeasonRecord(r["game"], SeasonRow.of(r), RatingRow.of(r)) for r in rows]

    async def record_rating_history(self, guild_id: int, game: str, table_id: int,
                                    points: Iterable[tuple[int, float, float]], now: float, *,
                                    season: int | None = None) -> None:
        """Store each member's rating after a result (``(user_id, mu, sigma)``; existing rows kept)."""
        value, args = _season(season, guild_id, game)
        rows = [(table_id, user_id, guild_id, game, *args, mu, sigma, now) for user_id, mu, sigma in points]
        if not rows:
            return

        def write(conn: sqlite3.Connection) -> None:
            conn.executemany("INSERT INTO rating_history (table_id, user_id, guild_id, game, season, mu, sigma,"
                             f" rated_at) VALUES (?, ?, ?, ?, {value}, ?, ?, ?) ON CONFLICT DO NOTHING", rows)

        await self._atomic(write)

    async def rating_history(self, guild_id: int, game: str, user_id: int,
                             season: int | None = None) -> list[RatingPoint]:
        """A member's rating after each rated result, oldest first (one season, or all when ``None``)."""
        where, args = ("", ()) if season is None else (" AND season = ?", (season,))
        rows = await self._all(
            "SELECT table_id, season, mu, sigma, rated_at FROM rating_history"
            f" WHERE guild_id = ? AND game = ? AND user_id = ?{where} ORDER BY rated_at, table_id",
            (guild_id, game, user_id, *args))
        return [RatingPoint(r["table_id"], r["season"], r["mu"], r["sigma"], r["rated_at"]) for r in rows]

    async def results_to_replay(self) -> list[PastResult]:
        """Every result of each server's game holding an unrated result with a member seat, in order."""
        def read(conn: sqlite3.Connection) -> list[PastResult]:
            results = conn.execute(
                f"WITH todo AS ({_TO_REPLAY}) SELECT r.table_id, r.guild_id, r.game, r.finished_at,"
                " EXISTS (SELECT 1 FROM rating_history h WHERE h.table_id = r.table_id) AS rated FROM todo r"
                " ORDER BY r.finished_at, r.table_id").fetchall()
            seats: dict[int, list[tuple[int, int | None, int, str | None]]] = {}
            for r in conn.execute(
                    "SELECT rs.table_id, rs.seat, rs.user_id, rs.rank, s.ai_level FROM result_seats rs"
                    " LEFT JOIN seats s ON s.table_id = rs.table_id AND s.seat = rs.seat"
                    f" WHERE rs.table_id IN (SELECT todo.table_id FROM ({_TO_REPLAY}) todo)"
                    " ORDER BY rs.table_id, rs.seat"):
                seats.setdefault(r["table_id"], []).append((r["seat"], r["user_id"], r["rank"], r["ai_level"]))
            return [PastResult(r["table_id"], r["guild_id"], r["game"], r["finished_at"],
                               tuple(seats.get(r["table_id"], ())), bool(r["rated"])) for r in results]

        async with self._access():
            return await self._worker(read)

    # --- a server's settings ---------------------------------------------------------------
    async def guild_settings(self, guild_id: int) -> GuildSettings:
        """A server's settings (every default when it saved none)."""
        row = await self._one("SELECT * FROM guild_settings WHERE guild_id = ?", (guild_id,))
        return GuildSettings.of(row) if row is not None else GuildSettings(guild_id)

    async def save_guild_settings(self, settings: GuildSettings, changed: Mapping[str, str | None]) -> None:
        """Store a server's settings and log each changed field, in one transaction."""
        row = settings.columns()
        log = [(settings.guild_id, settings.updated_at, settings.updated_by, field, value)
               for field, value in changed.items()]

        def write(conn: sqlite3.Connection) -> None:
            conn.execute(_SAVE_SETTINGS, row)
            conn.executemany("INSERT INTO guild_settings_log (guild_id, changed_at, user_id, field, value)"
                             " VALUES (?, ?, ?, ?, ?)", log)

        await self._atomic(write)

    async def settings_changes(self, guild_id: int, limit: int = 20) -> list[SettingsChange]:
        """A server's last ``limit`` logged settings changes, newest first."""
        rows = await self._all("SELECT changed_at, user_id, field, value FROM guild_settings_log WHERE guild_id = ?"
                               " ORDER BY changed_at DESC, rowid DESC LIMIT ?", (guild_id, limit))
        return [SettingsChange(r["changed_at"], r["user_id"], r["field"], r["value"]) for r in rows]

    async def setting_set_at(self, guild_id: int, field: str, value: str) -> float | None:
        """When ``field`` was last changed to ``value`` in the server's log."""
        rows = await self._all("SELECT MAX(changed_at) AS at FROM guild_settings_log"
                               " WHERE guild_id = ? AND field = ? AND value = ?", (guild_id, field, value))
        return None if rows[0]["at"] is None else float(rows[0]["at"])

    async def delete_guild_settings(self, guild_id: int) -> None:
        """Forget a server's settings and their log."""
        def write(conn: sqlite3.Connection) -> None:
            conn.execute("DELETE FROM guild_settings WHERE guild_id = ?", (guild_id,))
            conn.execute("DELETE FROM guild_settings_log WHERE guild_id = ?", (guild_id,))

        await self._atomic(write)

    # --- decks -----------------------------------------------------------------------------
    async def save_deck(self, guild_id: int, game: str, name: str, data: dict[str, Any], created_by: int,
                        now: float, *, deck_id: int | None = None) -> int:
        """Store (or replace, by name, or the deck ``deck_id``) a guild's custom deck; returns its id."""
        if deck_id is not None:
            await self._exec("UPDATE decks SET name = ?, data = ?, created_by = ?, created_at = ?"
                             " WHERE guild_id = ? AND game = ? AND id = ?",
                             (name, dumps(data), created_by, now, guild_id, game, deck_id))
            return deck_id
        async with self.transaction():
            await self._exec("DELETE FROM decks WHERE guild_id = ? AND game = ? AND name = ?", (guild_id, game, name))
            return await self._insert(
                "INSERT INTO decks (guild_id, game, name, data, created_by, created_at) VALUES (?, ?, ?, ?, ?, ?)",
                (guild_id, game, name, dumps(data), created_by, now),
            )

    async def decks(self, guild_id: int, game: str) -> list[tuple[int, str]]:
        """A guild's decks for a game: ``(deck_id, name)``."""
        rows = await self._all("SELECT id, name FROM decks WHERE guild_id = ? AND game = ? ORDER BY name",
                               (guild_id, game))
        return [(r["id"], r["name"]) for r in rows]

    async def deck(self, guild_id: int, deck_id: int) -> dict[str, Any] | None:
        """A stored deck's data (only if it belongs to ``guild_id``)."""
        row = await self._one("SELECT data FROM decks WHERE guild_id = ? AND id = ?", (guild_id, deck_id))
        return loads(row["data"]) if row else None

    async def delete_deck(self, guild_id: int, deck_id: int) -> bool:
        """Remove a guild's deck; True when something was removed."""
        return bool(await self._exec("DELETE FROM decks WHERE guild_id = ? AND id = ?", (guild_id, deck_id)))

    # --- lifecycle and table admin ---------------------------------------------------------
    async def guild_tables(self, guild_id: int, statuses: tuple[str, ...] = ("lobby", "running")) -> list[TableRow]:
        """A guild's tables whose status is in ``statuses``, oldest first."""
        marks = ", ".join("?" for _ in statuses)
        rows = await self._all(f"SELECT * FROM game_tables WHERE guild_id = ? AND status IN ({marks}) ORDER BY id",
                               (guild_id, *statuses))
        return [TableRow.of(r) for r in rows]

    async def tables_in_place(self, place_id: int, statuses: tuple[str, ...] = ("lobby", "running")) -> list[TableRow]:
        """Tables whose thread or channel is ``place_id`` and whose status is in ``statuses``."""
        marks = ", ".join("?" for _ in statuses)
        rows = await self._all(f"SELECT * FROM game_tables WHERE (thread_id = ? OR channel_id = ?)"
                               f" AND status IN ({marks}) ORDER BY id", (place_id, place_id, *statuses))
        return [TableRow.of(r) for r in rows]

    async def open_lobby_of(self, guild_id: int, channel_id: int, host_user_id: int) -> TableRow | None:
        """The open lobby ``host_user_id`` hosts in a channel (the oldest), or ``None``."""
        row = await self._one("SELECT * FROM game_tables WHERE guild_id = ? AND channel_id = ? AND host_user_id = ?"
                              " AND status = 'lobby' ORDER BY id LIMIT 1", (guild_id, channel_id, host_user_id))
        return TableRow.of(row) if row else None

    async def all_events(self, table_id: int) -> list[dict[str, Any]]:
        """Every event of a table in order (all audiences: filter before showing): the events
        table's rows and the action-log rows' events, merged by seq (one round trip)."""
        def read(conn: sqlite3.Connection) -> list[dict[str, Any]]:
            old = conn.execute("SELECT seq, event FROM events WHERE table_id = ? ORDER BY seq", (table_id,)).fetchall()
            steps = conn.execute("SELECT event_seq, events FROM actions WHERE table_id = ? AND events IS NOT NULL"
                                 " ORDER BY seq", (table_id,)).fetchall()
            return merged_events(old, steps)

        async with self._access():
            return await self._worker(read)

    # --- what the web pages read -----------------------------------------------------------
    async def leaderboard_page(self, guild_id: int, game: str, min_games: int, limit: int,
                               offset: int, *, season: int | None = None) -> tuple[int, list[RatingRow]]:
        """How many members are ranked in ``season`` (``None``: the current one), and one page of
        them in leaderboard order."""
        value, sargs = _season(season, guild_id, game)
        where = f"WHERE guild_id = ? AND game = ? AND season = {value} AND played >= ?"

        def read(conn: sqlite3.Connection) -> tuple[int, list[RatingRow]]:
            args = (guild_id, game, *sargs, min_games)
            count = conn.execute(f"SELECT count(*) FROM ratings {where}", args).fetchone()[0]
            rows = conn.execute(f"SELECT * FROM ratings {where}"
                                " ORDER BY (mu - 3 * sigma) DESC, won DESC, user_id LIMIT ? OFFSET ?",
                                (*args, limit, offset)).fetchall()
            return int(count), [RatingRow.of(r) for r in rows]

        async with self._access():
            return await self._worker(read)

    async def member_results(self, guild_id: int, user_id: int, game: str | None, limit: int,
                             offset: int) -> tuple[int, list[ResultRow]]:
        """How many games a member finished in a guild, and one page of them, newest first."""
        where = "rs.user_id = ? AND r.guild_id = ?" + (" AND r.game = ?" if game else "")
        args: tuple[Any, ...] = (user_id, guild_id, game) if game else (user_id, guild_id)

        def read(conn: sqlite3.Connection) -> tuple[int, list[ResultRow]]:
            base = f"FROM result_seats rs JOIN results r ON r.table_id = rs.table_id WHERE {where}"
            count = conn.execute(f"SELECT count(*) {base}", args).fetchone()[0]
            ids = [r[0] for r in conn.execute(f"SELECT r.table_id {base} ORDER BY r.finished_at DESC, r.table_id DESC"
                                              " LIMIT ? OFFSET ?", (*args, limit, offset))]
            if not ids:
                return int(count), []
            marks = ",".join("?" * len(ids))
            rows = conn.execute(f"{_RESULT_SEATS} WHERE r.table_id IN ({marks})"
                                " ORDER BY r.finished_at DESC, r.table_id DESC, rs.seat", ids).fetchall()
            return int(count), grouped_results(rows)

        async with self._access():
            return await self._worker(read)

    async def result_of(self, table_id: int) -> ResultRow | None:
        """The result of a finished table, or ``None``."""
        rows = await self._all(f"{_RESULT_SEATS} WHERE r.table_id = ? ORDER BY rs.seat", (table_id,))
        found = grouped_results(rows)
        return found[0] if found else None

    async def results_mark(self, guild_id: int, game: str) -> tuple[int, int]:
        """``(count, highest table id)`` of a guild's results of ``game``."""
        row = await self._one("SELECT count(*), coalesce(max(table_id), 0) FROM results WHERE guild_id = ? AND game = ?",
                              (guild_id, game))
        return (int(row[0]), int(row[1])) if row else (0, 0)

    async def guild_results(self, guild_id: int, game: str) -> list[ResultRow]:
        """Every result of ``game`` in a guild, oldest first."""
        def read(conn: sqlite3.Connection) -> list[ResultRow]:
            return grouped_results(conn.execute(
                f"{_RESULT_SEATS} WHERE r.guild_id = ? AND r.game = ? ORDER BY r.finished_at, r.table_id, rs.seat",
                (guild_id, game)))

        async with self._access():
            return await self._worker(read)


    async def member_names(self, guild_id: int, user_ids: Iterable[int]) -> dict[int, str]:
        """The name each member last played under in a guild (members never seated are absent)."""
        ids = list(user_ids)
        if not ids:
            return {}
        marks = ",".join("?" * len(ids))
        rows = await self._all(f"SELECT s.user_id, s.name FROM seats s JOIN game_tables g ON g.id = s.table_id"
                               f" WHERE s.user_id IN ({marks}) AND g.guild_id = ? ORDER BY s.table_id", (*ids, guild_id))
        return {r["user_id"]: r["name"] for r in rows}

#: A finished game's seats with their names and AI levels (the web pages' result reads).
_RESULT_SEATS = ("SELECT r.table_id, r.game, r.finished_at, rs.seat, rs.user_id, rs.rank, rs.score, s.name, s.ai_level"
                 " FROM results r JOIN result_seats rs ON rs.table_id = r.table_id"
                 " LEFT JOIN seats s ON s.table_id = rs.table_id AND s.seat = rs.seat")

