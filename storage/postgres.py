"""The PostgreSQL driver (asyncpg): :class:`PostgresStore`, the :class:`storage.base.Store` for
several bot processes sharing one database. Every statement here is PostgreSQL's dialect
(``$1`` marks, ``unnest``, ``ANY``, data-modifying ``WITH``); the schema is the ``.sql`` files of
``storage/migrations/postgres/``.

Migrations run under an advisory lock (:data:`MIGRATION_LOCK`), so processes starting together
apply each one once, and the version is kept in the table ``speakeasy_schema``; a database of a
newer schema than the code is refused (:class:`storage.base.SchemaTooNew`).

Like the SQLite store, one connection per process, shared by every task under an
``asyncio.Lock`` (a transaction owns it until it ends): the same ordering and isolation as the
embedded store. Several processes on one database are kept consistent by the version
compare-and-set of :meth:`PostgresStore.commit_step`. The hot paths are one statement each (one
round trip): the step write, the event append, the timer batch.

Errors: :class:`storage.base.StoreUnavailable` while the server cannot be reached (a lost
connection, a restart, a failover: see ``PostgresStore._transient``), other
``asyncpg.PostgresError`` subclasses as they come;
``asyncpg.UniqueViolationError`` (an ``asyncpg.IntegrityConstraintViolationError``) on a broken
constraint; :class:`storage.base.VersionConflict` from :meth:`PostgresStore.commit_step`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any
from urllib.parse import parse_qsl, unquote, urlencode, urlsplit, urlunsplit

import asyncpg

from storage.base import (
    GUILD_SETTINGS_COLUMNS,
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

__all__ = ["COMMIT_STEP", "MIGRATION_LOCK", "PostgresStore", "create_schema", "drop_schema", "is_postgres_url",
           "postgres_problem", "step_arguments", "with_schema"]

#: ``pg_advisory_lock`` key held while migrations run (any 64-bit number unique to Speakeasy).
MIGRATION_LOCK = 0x5EA4EA5E


def is_postgres_url(url: str) -> bool:
    """Whether ``url`` names a PostgreSQL database (``postgresql://`` or ``postgres://``).

    >>> is_postgres_url("postgresql://bot:secret@db:5432/speakeasy"), is_postgres_url("speakeasy.db")
    (True, False)
    """
    return url.startswith(("postgresql://", "postgres://"))


def with_schema(url: str, schema: str) -> str:
    """``url`` with ``search_path=schema`` among its query parameters: a store opened on it
    keeps its tables in that schema (a database can hold several stores, e.g. benchmarks).

    >>> with_schema("postgresql://u@h/db?host=/run/pg", "bench_1")
    'postgresql://u@h/db?host=%2Frun%2Fpg&search_path=bench_1'
    """
    parts = urlsplit(url)
    query = [(k, v) for k, v in parse_qsl(parts.query) if k != "search_path"] + [("search_path", schema)]
    return urlunsplit(parts._replace(query=urlencode(query)))


_SCHEMA_NAME = re.compile(r"^[a-z_][a-z0-9_]{0,62}$")


async def create_schema(url: str, schema: str, *, replace: bool = False) -> str:
    """Create the empty schema ``schema`` in the database at ``url``; returns the URL of a store
    kept there (:func:`with_schema`). Raises ``ValueError`` for a bad name (lower-case letters,
    digits, ``_``) or, unless ``replace`` (then it is dropped first), an existing schema."""
    if not _SCHEMA_NAME.match(schema):
        raise ValueError(f"bad schema name {schema!r}")
    conn = await asyncpg.connect(url)
    try:
        if replace:
            await conn.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")
        elif await conn.fetchval("SELECT 1 FROM pg_namespace WHERE nspname = $1", schema):
            raise ValueError(f"schema {schema} already exists in this database")
        await conn.execute(f"CREATE SCHEMA {schema}")
    finally:
        await conn.close()
    return with_schema(url, schema)


async def drop_schema(url: str, schema: str) -> None:
    """Drop the schema ``schema`` and everything in it (no error when there is none)."""
    if not _SCHEMA_NAME.match(schema):
        raise ValueError(f"bad schema name {schema!r}")
    conn = await asyncpg.connect(url)
    try:
        await conn.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")
    finally:
        await conn.close()


async def _stored_version(conn: asyncpg.Connection) -> int:
    """The version in ``speakeasy_schema`` (0 when the table is missing: an empty database)."""
    if not await conn.fetchval("SELECT to_regclass('speakeasy_schema') IS NOT NULL"):
        return 0
    return int(await conn.fetchval("SELECT COALESCE(max(version), 0) FROM speakeasy_schema"))


async def postgres_problem(url: str, *, timeout: float = 10.0) -> str | None:
    """Why the PostgreSQL database at ``url`` cannot be used (``None`` when it can): a malformed
    URL (one asyncpg cannot parse: ``ValueError``), a server that does not answer, a refused
    login, a database that does not exist, a schema newer than this code
    (:class:`storage.base.SchemaTooNew`'s words). Connects once and closes; runs no migration.
    The message never repeats the password."""
    try:
        conn = await asyncpg.connect(url, timeout=timeout)
    except (OSError, TimeoutError) as exc:
        return f"cannot reach the PostgreSQL server ({exc.__class__.__name__}: {_scrub(str(exc), url)})"
    except ValueError as exc:  # asyncpg parses the URL before it connects
        return f"malformed PostgreSQL URL ({_scrub(str(exc), url)})"
    except (asyncpg.PostgresError, asyncpg.InterfaceError) as exc:
        return f"PostgreSQL refused the connection ({_scrub(str(exc), url)})"
    try:
        found = await _stored_version(conn)
    finally:
        await conn.close()
    if found > latest("postgres"):
        return str(SchemaTooNew(found, latest("postgres")))
    return None


def _scrub(text: str, url: str) -> str:
    """``text`` without the password of ``url``: where the message quotes the URL or its
    ``user:password@`` part (as given or percent-decoded), the password becomes ``***``. A bare
    occurrence is masked only when the password is long (8 characters or more): masking every
    occurrence of a short one garbled the message and gave the password away (``No such file
    or direct***ry`` for ``o``).

    >>> _scrub("Errno 2: No such file or directory (dsn postgresql://bot:o@/db)", "postgresql://bot:o@/db")
    'Errno 2: No such file or directory (dsn postgresql://bot:***@/db)'
    >>> _scrub("bad token 'longsecret9'", "postgresql://bot:longsecret9@h/db")
    "bad token '***'"
    """
    match = re.match(r"^[a-z]+://([^:/@]*):([^@/]*)@", url)
    if match is None or not match.group(2):
        return text
    user, password = match.group(1), match.group(2)
    for pw in dict.fromkeys((password, unquote(password))):
        text = text.replace(f"{user}:{pw}@", f"{user}:***@").replace(f":{pw}@", ":***@")
        if len(pw) >= 8:
            text = text.replace(pw, "***")
    return text


def _rowcount(status: str) -> int:
    """The row count of a command status such as ``UPDATE 1`` or ``INSERT 0 3``.

    >>> _rowcount("UPDATE 1"), _rowcount("INSERT 0 3"), _rowcount("BEGIN")
    (1, 3, 0)
    """
    last = status.rsplit(" ", 1)[-1]
    return int(last) if last.isdigit() else 0


def _owned(column: str, shards: Shards | None, first: int) -> tuple[str, tuple[Any, ...]]:
    """The ``AND`` clause keeping the rows whose guild (``column``) is on ``shards``, its marks
    numbered from ``first``, and its arguments; nothing when every shard is owned.

    >>> _owned("t.guild_id", Shards(4, (0, 2)), 3)
    (' AND ((t.guild_id >> 22) % $3) = ANY($4::bigint[])', (4, [0, 2]))
    """
    if shards is None or shards.everything:
        return "", ()
    return f" AND (({column} >> 22) % ${first}) = ANY(${first + 1}::bigint[])", (shards.count, list(shards.ids))


#: A step in one statement: the compare-and-set (with the table's own turn deadline when $18),
#: then, only when it matched, the action-log row with the step's events, the buffered choices
#: cleared, another timer cancelled / set. Atomic as any single statement. Arguments:
#: :func:`step_arguments`.
COMMIT_STEP = """
WITH t AS (
    UPDATE game_tables SET state = $1, version = $2, updated_at = $3, action_seq = $4, event_seq = $5,
           status = COALESCE($6, status),
           turn_due = CASE WHEN $18::boolean THEN $19::float8 ELSE turn_due END,
           turn_timer = CASE WHEN $18::boolean THEN $20::text ELSE turn_timer END
    WHERE id = $7 AND version = $8 AND status = 'running' RETURNING id),
a AS (
    INSERT INTO actions (table_id, seq, version, actions, source, created_at, event_seq, events)
    SELECT id, $4, $8, $9, $10, $3, $11::bigint, $12::text FROM t),
p AS (
    DELETE FROM pending WHERE $13 AND table_id = $7 AND EXISTS (SELECT 1 FROM t)),
c AS (
    DELETE FROM timers WHERE key = $14 AND EXISTS (SELECT 1 FROM t)),
s AS (
    INSERT INTO timers (key, due, payload) SELECT $15, $16, $17 FROM t WHERE $15::text IS NOT NULL
    ON CONFLICT (key) DO UPDATE SET due = excluded.due, payload = excluded.payload)
SELECT count(*) FROM t
"""


def step_arguments(step: StepWrite) -> tuple[Any, ...]:
    """The 20 arguments of :data:`COMMIT_STEP` for ``step``."""
    timer, cancel, turn = step_timers(step)
    if timer is not None and cancel == timer.key:
        cancel = None  # the set replaces it (one statement may not touch a row twice)
    return (dumps(step.state), step.version, step.now, step.action_seq, step.last_event, step.status,
            step.table_id, step.version_before, step.actions_json(), step.source, *step.events_columns(),
            step.clear_pending, cancel, timer.key if timer else None, timer.due if timer else None,
            dumps(timer.payload) if timer else None, turn is not None, *(turn or (None, None)))


_RECORD_EVENTS = """
WITH t AS (
    UPDATE game_tables SET event_seq = event_seq + $3 WHERE id = $1 RETURNING event_seq - $3 AS base)
INSERT INTO events (table_id, seq, version, event)
SELECT $1, t.base + u.ord, $2, u.ev FROM t, unnest($4::text[]) WITH ORDINALITY AS u(ev, ord)
"""

_SET_TURNS = """
UPDATE game_tables g SET turn_due = u.due, turn_timer = u.payload
FROM unnest($1::bigint[], $2::float8[], $3::text[]) AS u(id, due, payload) WHERE g.id = u.id RETURNING g.id
"""

_SET_TIMERS = """
INSERT INTO timers (key, due, payload) SELECT * FROM unnest($1::text[], $2::float8[], $3::text[])
ON CONFLICT (key) DO UPDATE SET due = excluded.due, payload = excluded.payload
"""

_TURN_TIMERS = "SELECT 'turn:' || g.id AS key, g.turn_due AS due, g.turn_timer AS payload FROM game_tables g"

_INSERT_SEATS = """
INSERT INTO seats (table_id, seat, user_id, name, is_ai, away, timeouts, ai_level)
SELECT $1::bigint, * FROM unnest($2::bigint[], $3::bigint[], $4::text[], $5::bigint[], $6::bigint[], $7::bigint[], $8::text[])
"""
#: :data:`_INSERT_SEATS` with the ``muted`` flags (only when a seat is muted: the plain one stays
#: valid at schema versions before 10).
_INSERT_MUTED_SEATS = """
INSERT INTO seats (table_id, seat, user_id, name, is_ai, away, timeouts, ai_level, muted)
SELECT $1::bigint, * FROM unnest($2::bigint[], $3::bigint[], $4::text[], $5::bigint[], $6::bigint[], $7::bigint[], $8::text[],
                                 $9::bigint[])
"""


def _season(mark: int) -> str:
    """The season of a ratings statement whose ``$1`` is the guild and ``$2`` the game: the
    argument ``$mark`` (a number), or the current season when it is ``NULL`` (the highest
    stored, else 1)."""
    return (f"COALESCE(${mark}::bigint,"
            " (SELECT COALESCE(MAX(season), 1) FROM seasons WHERE guild_id = $1 AND game = $2))")


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
                  f" VALUES ({', '.join(f'${i}' for i in range(1, len(GUILD_SETTINGS_COLUMNS) + 1))})"
                  " ON CONFLICT (guild_id) DO UPDATE SET "
                  + ", ".join(f"{c} = excluded.{c}" for c in GUILD_SETTINGS_COLUMNS[1:]))


#: The asyncpg and system errors of an outage (see ``PostgresStore._transient``).
_TRANSIENT: tuple[type[BaseException], ...] = (
    OSError, TimeoutError, asyncpg.PostgresConnectionError, asyncpg.CannotConnectNowError,
    asyncpg.AdminShutdownError, asyncpg.CrashShutdownError, asyncpg.TooManyConnectionsError,
    asyncpg.SerializationError, asyncpg.DeadlockDetectedError,
)


class PostgresStore(Store):
    """An open PostgreSQL store (:class:`storage.base.Store`). Use :meth:`connect` (async) and
    :meth:`close`. ``path`` is the URL it was opened with (shown in logs: keep passwords out of
    logs by using a ``.pgpass`` file or ``PGPASSWORD``).

    Raises ``asyncpg.PostgresError`` subclasses (``asyncpg.UniqueViolationError`` for a user
    seated twice); :class:`storage.base.StoreUnavailable` while the server cannot be reached
    (a lost connection is opened again by the next statement); :meth:`commit_step` raises
    :class:`storage.base.VersionConflict`.
    """

    def __init__(self, conn: asyncpg.Connection, url: str) -> None:
        super().__init__(url)
        self._pg = conn

    # --- lifecycle -------------------------------------------------------------------------
    @classmethod
    async def connect(cls, url: str, *, upto: int | None = None) -> PostgresStore:
        """Connect to ``url`` (``postgresql://user:pass@host:port/db``; ``?host=/socket/dir``
        for a unix socket) and apply the pending migrations (up to version ``upto`` only, when
        given). Raises :class:`storage.base.SchemaTooNew` for a database of a newer Speakeasy,
        ``OSError`` / asyncpg errors when it cannot connect."""
        conn = await asyncpg.connect(url)
        db = cls(conn, url)
        try:
            await db.migrate(upto)
        except BaseException:
            await conn.close()
            raise
        return db

    async def close(self) -> None:
        """Close the connection."""
        await self._pg.close()

    async def schema_version(self) -> int:
        """The number of migrations applied (0 for an empty database)."""
        async with self._access():
            return await _stored_version(self._pg)

    async def migrate(self, upto: int | None = None) -> int:
        """Apply every migration file (``storage/migrations/postgres/``) newer than the stored
        version, up to ``upto`` when given, each in its own transaction; returns the version
        reached. Holds ``pg_advisory_lock(MIGRATION_LOCK)`` meanwhile: processes starting
        together wait for the first one, then find nothing left to do. Raises
        :class:`storage.base.SchemaTooNew` (and changes nothing) when the stored version is
        above the last migration this code has."""
        async with self._access():
            await self._pg.execute("SELECT pg_advisory_lock($1)", MIGRATION_LOCK)
            try:
                await self._pg.execute("CREATE TABLE IF NOT EXISTS speakeasy_schema (version BIGINT NOT NULL)")
                await self._pg.execute(
                    "INSERT INTO speakeasy_schema (version) SELECT 0 WHERE NOT EXISTS (SELECT 1 FROM speakeasy_schema)")
                current = await _stored_version(self._pg)
                if current > latest("postgres"):
                    raise SchemaTooNew(current, latest("postgres"))
                for migration in migrations("postgres")[current:upto]:
                    async with self._pg.transaction():
                        await self._pg.execute(migration.sql)
                        await self._pg.execute("UPDATE speakeasy_schema SET version = $1", migration.version)
            finally:
                await self._pg.execute("SELECT pg_advisory_unlock($1)", MIGRATION_LOCK)
        return await self.schema_version()

    # --- the connection (Store's hooks, and the helpers every query goes through) ----------
    async def _begin(self) -> None:
        await self._pg.execute("BEGIN")

    async def _commit(self) -> None:
        await self._pg.execute("COMMIT")

    async def _rollback(self) -> None:
        if not self._pg.is_closed():  # a lost connection: the server rolled the transaction back
            await self._pg.execute("ROLLBACK")

    async def _heal(self) -> None:
        """Connect again when the connection was lost (a server restart, a network cut); roll
        back an orphan transaction."""
        if self._pg.is_closed():
            self._pg = await asyncpg.connect(self.path)
        elif self._pg.is_in_transaction():
            await self._pg.execute("ROLLBACK")

    def _transient(self, exc: BaseException) -> bool:
        """A lost or refused connection (a server restarting, failing over, shutting down,
        not accepting connections yet, out of connection slots), a network error or timeout,
        a serialization failure or deadlock: the same call may succeed when asked again.

        A connection asyncpg can no longer use (closed, or its protocol left mid-operation by
        a statement the server cut: ``InternalClientError``, a bare ``InterfaceError``) is
        dropped here, so that the next statement connects again. Asyncpg's errors about the
        arguments (``DataError``) or its configuration are not transient."""
        broken = isinstance(exc, asyncpg.InternalClientError) or type(exc) is asyncpg.InterfaceError
        if broken:
            if not self._pg.is_closed():
                self._pg.terminate()
            return True
        return isinstance(exc, _TRANSIENT)

    async def _one(self, sql: str, *args: Any) -> Any:
        async with self._access():
            return await self._pg.fetchrow(sql, *args)

    async def _all(self, sql: str, *args: Any) -> list[Any]:
        async with self._access():
            return list(await self._pg.fetch(sql, *args))

    async def _exec(self, sql: str, *args: Any) -> int:
        async with self._access():
            return _rowcount(await self._pg.execute(sql, *args))

    # --- tables ----------------------------------------------------------------------------
    async def create_table(
        self, *, guild_id: int, channel_id: int, game: str, host_user_id: int, lang: str,
        options: dict[str, Any], now: float, pace: Pace | None = None,
    ) -> int:
        """Insert a table in the ``lobby`` status at ``pace``; returns its id."""
        async with self._access():
            paced = (", pace", ", $8", (pace,)) if pace is not None else ("", "", ())  # (no pace column before version 10)
            return int(await self._pg.fetchval(
                f"INSERT INTO game_tables (guild_id, channel_id, game, options, status, host_user_id, lang,"
                f" created_at, updated_at{paced[0]}) VALUES ($1, $2, $3, $4, 'lobby', $5, $6, $7, $7{paced[1]})"
                " RETURNING id", guild_id, channel_id, game, dumps(options), host_user_id, lang, now, *paced[2]))

    async def get_table(self, table_id: int) -> TableRow | None:
        """The table with ``table_id`` or ``None``."""
        row = await self._one("SELECT * FROM game_tables WHERE id = $1", table_id)
        return TableRow.of(row) if row else None

    async def tables_with_status(self, status: str) -> list[TableRow]:
        """Every table with ``status`` (``lobby``, ``running``, ``finished``, ``abandoned``)."""
        return [TableRow.of(r) for r in await self._all("SELECT * FROM game_tables WHERE status = $1 ORDER BY id",
                                                       status)]

    async def update_table(self, table_id: int, now: float, *, expect_status: str | None = None,
                           **fields: Any) -> bool:
        """Set columns of a table (``options``/``state`` are JSON-encoded here); with
        ``expect_status``, only while the table still has that status (a compare-and-set: two
        processes cannot both start, or end, one table). True when the row was changed.

        Raises ``ValueError`` for no field or a column that may not be set.
        """
        names, values = table_update(fields)
        cols = ", ".join(f"{name} = ${n}" for n, name in enumerate(names, start=1))
        at = len(names)
        if expect_status is None:
            return await self._exec(f"UPDATE game_tables SET {cols}, updated_at = ${at + 1} WHERE id = ${at + 2}",
                                    *values, now, table_id) == 1
        return await self._exec(f"UPDATE game_tables SET {cols}, updated_at = ${at + 1}"
                                f" WHERE id = ${at + 2} AND status = ${at + 3}",
                                *values, now, table_id, expect_status) == 1

    async def running_tables(self) -> list[RunningTable]:
        """Every running table with its seats and the buffered choices of its current step, by
        id (three bulk reads in one transaction); snapshots stay JSON text (``state_json``)."""
        return await self._running(None)

    async def running_tables_of(self, shards: Shards) -> list[RunningTable]:
        """:meth:`running_tables` of the guilds on ``shards`` only (``(guild_id >> 22) % count``
        in the ``WHERE`` clauses)."""
        return await self._running(shards)

    async def _running(self, shards: Shards | None) -> list[RunningTable]:
        owned, args = _owned("t.guild_id", shards, 1)
        async with self.transaction():
            tables = await self._pg.fetch(
                f"SELECT * FROM game_tables t WHERE t.status = 'running'{owned} ORDER BY t.id", *args)
            seats: dict[int, list[SeatRow]] = {}
            for r in await self._pg.fetch(
                    "SELECT s.* FROM seats s JOIN game_tables t ON t.id = s.table_id"
                    f" WHERE t.status = 'running'{owned} ORDER BY s.table_id, s.seat", *args):
                seats.setdefault(r["table_id"], []).append(SeatRow.of(r))
            pending: dict[int, dict[int, str]] = {}
            for r in await self._pg.fetch(
                    "SELECT p.table_id, p.seat, p.code FROM pending p JOIN game_tables t ON t.id = p.table_id"
                    f" WHERE t.status = 'running' AND p.version = t.version{owned}", *args):
                pending.setdefault(r["table_id"], {})[r["seat"]] = r["code"]
        return [RunningTable(TableRow.of(r, decode_state=False), r["state"], seats.get(r["id"], []),
                             pending.get(r["id"], {})) for r in tables]

    # --- seats -----------------------------------------------------------------------------
    async def seats(self, table_id: int) -> list[SeatRow]:
        """Seats of a table ordered by seat number."""
        return [SeatRow.of(r) for r in await self._all("SELECT * FROM seats WHERE table_id = $1 ORDER BY seat",
                                                      table_id)]

    async def replace_seats(self, table_id: int, seats: list[SeatRow]) -> None:
        """Replace every seat of a table (lobby edits and the final seat order at start)."""
        async with self.transaction():
            await self._pg.execute("DELETE FROM seats WHERE table_id = $1", table_id)
            if seats:
                muted = any(s.muted for s in seats)
                await self._pg.execute(
                    _INSERT_MUTED_SEATS if muted else _INSERT_SEATS, table_id, [s.seat for s in seats],
                    [s.user_id for s in seats], [s.name for s in seats], [int(s.is_ai) for s in seats],
                    [int(s.away) for s in seats], [s.timeouts for s in seats], [s.ai_level for s in seats],
                    *(([int(s.muted) for s in seats],) if muted else ()))

    async def set_seat_state(self, table_id: int, seat: int, *, away: bool, timeouts: int) -> None:
        """Store a seat's ``away`` flag and its timeouts-in-a-row counter."""
        await self._exec("UPDATE seats SET away = $1, timeouts = $2 WHERE table_id = $3 AND seat = $4",
                         int(away), timeouts, table_id, seat)

    async def set_seat_muted(self, table_id: int, seat: int, muted: bool) -> None:
        """Store whether a seat's member muted the turn pings of this table."""
        await self._exec("UPDATE seats SET muted = $1 WHERE table_id = $2 AND seat = $3", int(muted), table_id, seat)

    async def member_tables(self, guild_id: int, user_id: int,
                            statuses: tuple[str, ...] = ("lobby", "running")) -> list[TableRow]:
        """The tables of a server where ``user_id`` has a seat, with a status in ``statuses``, oldest first."""
        rows = await self._all(
            "SELECT t.* FROM game_tables t JOIN seats s ON s.table_id = t.id AND s.user_id = $1"
            " WHERE t.guild_id = $2 AND t.status = ANY($3::text[]) ORDER BY t.id", user_id, guild_id, list(statuses))
        return [TableRow.of(r) for r in rows]

    # --- play ------------------------------------------------------------------------------
    async def commit_step(self, step: StepWrite) -> None:
        """Store an applied step in one statement (one round trip, atomic): the compare-and-set
        of the snapshot and version on a running table, the action-log row carrying the step's
        events, the counters, the buffered choices cleared, the timer cancelled / set (see
        :class:`storage.base.StepWrite` and :data:`COMMIT_STEP`). Raises
        :class:`storage.base.VersionConflict` (nothing stored) when the table is no longer
        running at ``step.version_before``. Joins the caller's transaction if any."""
        args = step_arguments(step)
        async with self._access():
            matched = await self._pg.fetchval(COMMIT_STEP, *args)
        if matched != 1:
            raise VersionConflict(step.table_id, step.version_before)

    async def record_events(self, table_id: int, version: int, events: list[dict[str, Any]]) -> None:
        """Append events to a table's event log at state ``version`` and advance its
        ``event_seq`` (one statement). Joins an outer transaction."""
        if not events:
            return
        async with self._access():
            await self._pg.execute(_RECORD_EVENTS, table_id, version, len(events), [dumps(ev) for ev in events])

    async def action_log(self, table_id: int) -> list[tuple[int, dict[int, str], str]]:
        """The append-only log: ``(version_before, {seat: code}, source)`` in order."""
        rows = await self._all("SELECT version, actions, source FROM actions WHERE table_id = $1 ORDER BY seq",
                               table_id)
        return [(r["version"], {int(k): v for k, v in loads(r["actions"]).items()}, r["source"]) for r in rows]

    async def first_action_at(self, table_id: int) -> float | None:
        """When the table's first action was stored."""
        row = await self._one("SELECT MIN(created_at) AS at FROM actions WHERE table_id = $1", table_id)
        return None if row["at"] is None else float(row["at"])

    async def recent_events(self, table_id: int, limit: int) -> list[dict[str, Any]]:
        """The last ``limit`` events of a table, oldest first: from the events table (rows
        stored before schema version 7, events recorded outside a step) and the action-log rows
        carrying their step's events, merged by seq (one statement)."""
        if limit <= 0:
            return []
        # a row with events holds at least one: ``limit`` rows of each hold the last ``limit`` events
        rows = await self._all(
            "(SELECT 0 AS step, seq, event AS body FROM events WHERE table_id = $1 ORDER BY seq DESC LIMIT $2)"
            " UNION ALL (SELECT 1, event_seq, events FROM actions WHERE table_id = $1 AND events IS NOT NULL"
            " ORDER BY seq DESC LIMIT $2)", table_id, limit)
        return merged_events([(r["seq"], r["body"]) for r in rows if not r["step"]],
                             [(r["seq"], r["body"]) for r in rows if r["step"]])[-limit:]

    async def set_pending(self, table_id: int, seat: int, version: int, code: str) -> None:
        """Buffer (or change) a seat's choice in a simultaneous step."""
        await self._exec(
            "INSERT INTO pending (table_id, seat, version, code) VALUES ($1, $2, $3, $4)"
            " ON CONFLICT (table_id, seat) DO UPDATE SET version = excluded.version, code = excluded.code",
            table_id, seat, version, code)

    async def pending(self, table_id: int, version: int) -> dict[int, str]:
        """Buffered choices for the step at ``version`` (older ones are ignored)."""
        rows = await self._all("SELECT seat, code FROM pending WHERE table_id = $1 AND version = $2", table_id, version)
        return {r["seat"]: r["code"] for r in rows}

    # --- timers ----------------------------------------------------------------------------
    # A table's turn deadline ``turn:<id>`` lives in its row (turn_due, turn_timer), every other
    # timer (and a turn timer of no stored table) in the timers table.
    async def set_timer(self, timer: TimerRow) -> None:
        """Set (or replace, by key) a persisted timer (a table's turn deadline in its row)."""
        await self.set_timers((timer,))

    async def set_timers(self, timers: Iterable[TimerRow]) -> None:
        """Set (or replace) many timers at once: the tables' turn deadlines in their rows (one
        statement), the rest in the timers table (one more; the last of a repeated key wins)."""
        rows = {t.key: t for t in timers}
        if not rows:
            return
        turns = {tid: t for t in rows.values() if (tid := turn_table(t.key)) is not None}
        async with self._access():
            if turns:
                done = await self._pg.fetch(_SET_TURNS, list(turns), [float(t.due) for t in turns.values()],
                                            [dumps(t.payload) for t in turns.values()])
                for r in done:
                    rows.pop(turns[r["id"]].key, None)
            if rows:
                await self._pg.execute(_SET_TIMERS, list(rows), [float(t.due) for t in rows.values()],
                                       [dumps(t.payload) for t in rows.values()])

    async def cancel_timer(self, key: str) -> None:
        """Remove a timer (no error when there is none)."""
        table_id = turn_table(key)
        if table_id is not None and await self._exec(
                "UPDATE game_tables SET turn_due = NULL, turn_timer = NULL WHERE id = $1 AND turn_due IS NOT NULL",
                table_id) == 1:
            return
        await self._exec("DELETE FROM timers WHERE key = $1", key)

    async def timers(self, shards: Shards | None = None) -> list[TimerRow]:
        """Every persisted timer, the earliest due first (one bulk read: the timers table and
        the tables' turn deadlines). With ``shards``, only the timers those shards own:
        ``<kind>:<table id>`` follows its table's guild (joined on the digits after the last
        ``:``); a timer of no table belongs to shard 0."""
        if shards is None or shards.everything:
            rows = await self._all(f"SELECT key, due, payload FROM timers UNION ALL {_TURN_TIMERS}"
                                   " WHERE g.turn_due IS NOT NULL ORDER BY due, key")
            return [TimerRow.of(r) for r in rows]
        owned, args = _owned("g.guild_id", shards, 2)
        rows = await self._all(
            "SELECT tm.key, tm.due, tm.payload FROM timers tm LEFT JOIN game_tables g"
            " ON g.id = (regexp_match(tm.key, ':([0-9]{1,18})$'))[1]::bigint"
            f" WHERE (g.id IS NOT NULL{owned}) OR (g.id IS NULL AND $1)"
            f" UNION ALL {_TURN_TIMERS} WHERE g.turn_due IS NOT NULL{owned} ORDER BY due, key",
            0 in shards.ids, *args)
        return [TimerRow.of(r) for r in rows]

    async def timer(self, key: str) -> TimerRow | None:
        """One timer, or ``None``."""
        table_id = turn_table(key)
        if table_id is not None:
            row = await self._one(f"{_TURN_TIMERS} WHERE g.id = $1 AND g.turn_due IS NOT NULL", table_id)
            if row is not None:
                return TimerRow.of(row)
        row = await self._one("SELECT key, due, payload FROM timers WHERE key = $1", key)
        return TimerRow.of(row) if row is not None else None

    # --- results and ratings ---------------------------------------------------------------
    async def record_result(
        self, table_id: int, *, guild_id: int, game: str, outcome: dict[str, Any],
        seats: list[tuple[int, int | None, int, int]], now: float,
    ) -> None:
        """Store a finished game's result: ``seats`` = ``(seat, user_id, rank, score)``."""
        async with self.transaction():
            await self._pg.execute(
                "INSERT INTO results (table_id, guild_id, game, finished_at, outcome) VALUES ($1, $2, $3, $4, $5)",
                table_id, guild_id, game, now, dumps(outcome))
            await self._pg.executemany(
                "INSERT INTO result_seats (table_id, seat, user_id, rank, score) VALUES ($1, $2, $3, $4, $5)",
                [(table_id, *seat) for seat in seats])

    async def ratings(self, guild_id: int, game: str, user_ids: Iterable[int], *,
                      season: int | None = None) -> dict[int, RatingRow]:
        """Existing ratings of ``user_ids`` in ``season`` (``None``: the current one); inside a
        transaction their rows stay locked until it ends (``FOR UPDATE``), so two processes
        rating the same members one after the other never lose an update (the
        read-modify-write of a finished game)."""
        ids = list(user_ids)
        if not ids:
            return {}
        async with self._access():
            rows = await self._pg.fetch(
                f"SELECT * FROM ratings WHERE guild_id = $1 AND game = $2 AND season = {_season(4)}"
                " AND user_id = ANY($3::bigint[])"
                + (" FOR UPDATE OF ratings" if self._pg.is_in_transaction() else ""), guild_id, game, ids, season)
        return {r["user_id"]: RatingRow.of(r) for r in rows}

    async def save_rating(self, guild_id: int, game: str, row: RatingRow, *, season: int | None = None) -> None:
        """Insert or replace one member's rating and stats in ``season`` (``None``: the current one)."""
        await self._exec(
            "INSERT INTO ratings (guild_id, game, season, user_id, mu, sigma, played, won)"
            f" VALUES ($1, $2, {_season(8)}, $3, $4, $5, $6, $7)"
            " ON CONFLICT (guild_id, game, season, user_id) DO UPDATE SET mu = excluded.mu, sigma = excluded.sigma,"
            " played = excluded.played, won = excluded.won",
            guild_id, game, row.user_id, row.mu, row.sigma, row.played, row.won, season)

    async def leaderboard(self, guild_id: int, game: str, min_games: int, limit: int = 10, *,
                          season: int | None = None) -> list[RatingRow]:
        """Top members of a server's game in ``season`` (``None``: the current one) by ordinal
        (``mu - 3 sigma``), with ``min_games`` played."""
        rows = await self._all(
            f"SELECT * FROM ratings WHERE guild_id = $1 AND game = $2 AND season = {_season(5)} AND played >= $3"
            " ORDER BY (mu - 3 * sigma) DESC, won DESC, user_id LIMIT $4", guild_id, game, min_games, limit, season)
        return [RatingRow.of(r) for r in rows]

    async def member_stats(self, guild_id: int, user_id: int) -> dict[str, RatingRow]:
        """A member's rating and stats per game in each game's current season: ``{game: RatingRow}``."""
        rows = await self._all(
            "SELECT r.* FROM ratings r WHERE r.guild_id = $1 AND r.user_id = $2 AND r.season ="
            " (SELECT COALESCE(MAX(season), 1) FROM seasons s WHERE s.guild_id = r.guild_id AND s.game = r.game)"
            " ORDER BY r.game", guild_id, user_id)
        return {r["game"]: RatingRow.of(r) for r in rows}

    # --- seasons and the rating history ----------------------------------------------------
    async def seasons(self, guild_id: int, game: str) -> list[SeasonRow]:
        """Every season of a server's game, oldest first (``[SeasonRow(1)]`` when none was started)."""
        rows = await self._all("SELECT * FROM seasons WHERE guild_id = $1 AND game = $2 ORDER BY season",
                               guild_id, game)
        return [SeasonRow.of(r) for r in rows] or [SeasonRow(1)]

    async def start_season(self, guild_id: int, game: str, name: str | None, now: float, *,
                           after: int | None = None) -> SeasonRow:
        """End the current season (``ended_at = now``) and start the next one, named ``name``
        (returned: the season this call started, whatever other starts follow it); with
        ``after``, only when the current season is ``after`` (else the current one is returned)."""
        async with self.transaction():
            await self._pg.execute("SELECT pg_advisory_xact_lock(hashtext('season:' || $1::bigint::text || ':' || $2::text))",
                                   guild_id, game)
            await self._pg.execute("INSERT INTO seasons (guild_id, game, season) VALUES ($1, $2, 1)"
                                   " ON CONFLICT DO NOTHING", guild_id, game)
            current = await self._pg.fetchval("SELECT MAX(season) FROM seasons WHERE guild_id = $1 AND game = $2",
                                              guild_id, game)
            if after is None or current == after:  # else started meanwhile: the current one is returned
                await self._pg.execute("UPDATE seasons SET ended_at = $3 WHERE guild_id = $1 AND game = $2"
                                       " AND season = $4", guild_id, game, now, current)
                await self._pg.execute("INSERT INTO seasons (guild_id, game, season, name, started_at)"
                                       " VALUES ($1, $2, $3, $4, $5)", guild_id, game, current + 1, name, now)
                current += 1
        return next(s for s in await self.seasons(guild_id, game) if s.season == current)

    async def member_seasons(self, guild_id: int, user_id: int) -> list[SeasonRecord]:
        """A member's record in every season of every game they played in a server, by game then season."""
        rows = await self._all(
            "SELECT r.*, s.name, s.started_at, s.ended_at FROM ratings r LEFT JOIN seasons s"
            " ON s.guild_id = r.guild_id AND s.game = r.game AND s.season = r.season"
            " WHERE r.guild_id = $1 AND r.user_id = $2 ORDER BY r.game, r.season", guild_id, user_id)
        return [SeasonRecord(r["game"], SeasonRow.of(r), RatingRow.of(r)) for r in rows]

    async def record_rating_history(self, guild_id: int, game: str, table_id: int,
                                    points: Iterable[tuple[int, float, float]], now: float, *,
                                    season: int | None = None) -> None:
        """Store each member's rating after a result (``(user_id, mu, sigma)``; existing rows kept)."""
        rows = list(points)
        if not rows:
            return
        await self._exec(
            "INSERT INTO rating_history (table_id, user_id, guild_id, game, season, mu, sigma, rated_at)"
            f" SELECT $3, u, $1, $2, {_season(4)}, m, s, $5"
            " FROM unnest($6::bigint[], $7::float8[], $8::float8[]) AS p (u, m, s) ON CONFLICT DO NOTHING",
            guild_id, game, table_id, season, now, [r[0] for r in rows], [r[1] for r in rows], [r[2] for r in rows])

    async def rating_history(self, guild_id: int, game: str, user_id: int,
                             season: int | None = None) -> list[RatingPoint]:
        """A member's rating after each rated result, oldest first (one season, or all when ``None``)."""
        rows = await self._all(
            "SELECT table_id, season, mu, sigma, rated_at FROM rating_history"
            " WHERE guild_id = $1 AND game = $2 AND user_id = $3 AND ($4::bigint IS NULL OR season = $4)"
            " ORDER BY rated_at, table_id", guild_id, game, user_id, season)
        return [RatingPoint(r["table_id"], r["season"], r["mu"], r["sigma"], r["rated_at"]) for r in rows]

    async def results_to_replay(self) -> list[PastResult]:
        """Every result of each server's game holding an unrated result with a member seat, in order."""
        async with self.transaction():
            results = await self._pg.fetch(
                f"WITH todo AS ({_TO_REPLAY}) SELECT r.table_id, r.guild_id, r.game, r.finished_at,"
                " EXISTS (SELECT 1 FROM rating_history h WHERE h.table_id = r.table_id) AS rated FROM todo r"
                " ORDER BY r.finished_at, r.table_id")
            seats: dict[int, list[tuple[int, int | None, int, str | None]]] = {}
            for r in await self._pg.fetch(
                    "SELECT rs.table_id, rs.seat, rs.user_id, rs.rank, s.ai_level FROM result_seats rs"
                    " LEFT JOIN seats s ON s.table_id = rs.table_id AND s.seat = rs.seat"
                    f" WHERE rs.table_id IN (SELECT todo.table_id FROM ({_TO_REPLAY}) todo)"
                    " ORDER BY rs.table_id, rs.seat"):
                seats.setdefault(r["table_id"], []).append((r["seat"], r["user_id"], r["rank"], r["ai_level"]))
        return [PastResult(r["table_id"], r["guild_id"], r["game"], r["finished_at"],
                           tuple(seats.get(r["table_id"], ())), bool(r["rated"])) for r in results]

    # --- a server's settings ---------------------------------------------------------------
    async def guild_settings(self, guild_id: int) -> GuildSettings:
        """A server's settings (every default when it saved none)."""
        row = await self._one("SELECT * FROM guild_settings WHERE guild_id = $1", guild_id)
        return GuildSettings.of(row) if row is not None else GuildSettings(guild_id)

    async def save_guild_settings(self, settings: GuildSettings, changed: Mapping[str, str | None]) -> None:
        """Store a server's settings and log each changed field, in one transaction."""
        async with self.transaction():
            await self._pg.execute(_SAVE_SETTINGS, *settings.columns())
            if changed:
                await self._pg.executemany(
                    "INSERT INTO guild_settings_log (guild_id, changed_at, user_id, field, value)"
                    " VALUES ($1, $2, $3, $4, $5)",
                    [(settings.guild_id, settings.updated_at, settings.updated_by, field, value)
                     for field, value in changed.items()])

    async def settings_changes(self, guild_id: int, limit: int = 20) -> list[SettingsChange]:
        """A server's last ``limit`` logged settings changes, newest first."""
        rows = await self._all("SELECT changed_at, user_id, field, value FROM guild_settings_log"
                               " WHERE guild_id = $1 ORDER BY changed_at DESC, ctid DESC LIMIT $2", guild_id, limit)
        return [SettingsChange(r["changed_at"], r["user_id"], r["field"], r["value"]) for r in rows]

    async def setting_set_at(self, guild_id: int, field: str, value: str) -> float | None:
        """When ``field`` was last changed to ``value`` in the server's log."""
        row = await self._one("SELECT MAX(changed_at) AS at FROM guild_settings_log"
                              " WHERE guild_id = $1 AND field = $2 AND value = $3", guild_id, field, value)
        return None if row["at"] is None else float(row["at"])

    async def delete_guild_settings(self, guild_id: int) -> None:
        """Forget a server's settings and their log."""
        async with self.transaction():
            await self._pg.execute("DELETE FROM guild_settings WHERE guild_id = $1", guild_id)
            await self._pg.execute("DELETE FROM guild_settings_log WHERE guild_id = $1", guild_id)

    # --- decks -----------------------------------------------------------------------------
    async def save_deck(self, guild_id: int, game: str, name: str, data: dict[str, Any], created_by: int,
                        now: float, *, deck_id: int | None = None) -> int:
        """Store (or replace, by name, or the deck ``deck_id``) a guild's custom deck; returns its id."""
        if deck_id is not None:
            await self._exec("UPDATE decks SET name = $1, data = $2, created_by = $3, created_at = $4"
                             " WHERE guild_id = $5 AND game = $6 AND id = $7",
                             name, dumps(data), created_by, now, guild_id, game, deck_id)
            return deck_id
        async with self.transaction():
            await self._pg.execute("DELETE FROM decks WHERE guild_id = $1 AND game = $2 AND name = $3",
                                   guild_id, game, name)
            return int(await self._pg.fetchval(
                "INSERT INTO decks (guild_id, game, name, data, created_by, created_at)"
                " VALUES ($1, $2, $3, $4, $5, $6) RETURNING id", guild_id, game, name, dumps(data), created_by, now))

    async def decks(self, guild_id: int, game: str) -> list[tuple[int, str]]:
        """A guild's decks for a game: ``(deck_id, name)``."""
        rows = await self._all("SELECT id, name FROM decks WHERE guild_id = $1 AND game = $2 ORDER BY name",
                               guild_id, game)
        return [(r["id"], r["name"]) for r in rows]

    async def deck(self, guild_id: int, deck_id: int) -> dict[str, Any] | None:
        """A stored deck's data (only if it belongs to ``guild_id``)."""
        row = await self._one("SELECT data FROM decks WHERE guild_id = $1 AND id = $2", guild_id, deck_id)
        return loads(row["data"]) if row else None

    async def delete_deck(self, guild_id: int, deck_id: int) -> bool:
        """Remove a guild's deck; True when something was removed."""
        return bool(await self._exec("DELETE FROM decks WHERE guild_id = $1 AND id = $2", guild_id, deck_id))

    # --- lifecycle and table admin ---------------------------------------------------------
    async def guild_tables(self, guild_id: int, statuses: tuple[str, ...] = ("lobby", "running")) -> list[TableRow]:
        """A guild's tables whose status is in ``statuses``, oldest first."""
        rows = await self._all("SELECT * FROM game_tables WHERE guild_id = $1 AND status = ANY($2::text[])"
                               " ORDER BY id", guild_id, list(statuses))
        return [TableRow.of(r) for r in rows]

    async def tables_in_place(self, place_id: int, statuses: tuple[str, ...] = ("lobby", "running")) -> list[TableRow]:
        """Tables whose thread or channel is ``place_id`` and whose status is in ``statuses``."""
        rows = await self._all("SELECT * FROM game_tables WHERE (thread_id = $1 OR channel_id = $1)"
                               " AND status = ANY($2::text[]) ORDER BY id", place_id, list(statuses))
        return [TableRow.of(r) for r in rows]

    async def open_lobby_of(self, guild_id: int, channel_id: int, host_user_id: int) -> TableRow | None:
        """The open lobby ``host_user_id`` hosts in a channel (the oldest), or ``None``."""
        row = await self._one("SELECT * FROM game_tables WHERE guild_id = $1 AND channel_id = $2"
                              " AND host_user_id = $3 AND status = 'lobby' ORDER BY id LIMIT 1",
                              guild_id, channel_id, host_user_id)
        return TableRow.of(row) if row else None

    async def all_events(self, table_id: int) -> list[dict[str, Any]]:
        """Every event of a table in order (all audiences: filter before showing): the events
        table's rows and the action-log rows' events, merged by seq (one statement)."""
        rows = await self._all(
            "SELECT 0 AS step, seq, event AS body FROM events WHERE table_id = $1"
            " UNION ALL SELECT 1, event_seq, events FROM actions WHERE table_id = $1 AND events IS NOT NULL",
            table_id)
        return merged_events([(r["seq"], r["body"]) for r in rows if not r["step"]],
                             [(r["seq"], r["body"]) for r in rows if r["step"]])

    # --- what the web pages read -----------------------------------------------------------
    async def leaderboard_page(self, guild_id: int, game: str, min_games: int, limit: int,
                               offset: int, *, season: int | None = None) -> tuple[int, list[RatingRow]]:
        """How many members are ranked in ``season`` (``None``: the current one), and one page of
        them in leaderboard order (one statement)."""
        where = f"WHERE guild_id = $1 AND game = $2 AND season = {_season(6)} AND played >= $3"
        rows = await self._all(
            f"SELECT *, count(*) OVER () AS total FROM ratings {where}"
            " ORDER BY (mu - 3 * sigma) DESC, won DESC, user_id LIMIT $4 OFFSET $5",
            guild_id, game, min_games, limit, offset, season)
        if rows:
            return int(rows[0]["total"]), [RatingRow.of(r) for r in rows]
        count = await self._pg_count(
            f"SELECT count(*) FROM ratings WHERE guild_id = $1 AND game = $2 AND season = {_season(4)} AND played >= $3",
            guild_id, game, min_games, season)
        return count, []

    async def _pg_count(self, sql: str, *args: Any) -> int:
        row = await self._one(sql, *args)
        return int(row[0]) if row else 0

    async def member_results(self, guild_id: int, user_id: int, game: str | None, limit: int,
                             offset: int) -> tuple[int, list[ResultRow]]:
        """How many games a member finished in a guild, and one page of them, newest first."""
        where = "rs.user_id = $1 AND r.guild_id = $2" + (" AND r.game = $3" if game else "")
        args: tuple[Any, ...] = (user_id, guild_id, game) if game else (user_id, guild_id)
        n = len(args)
        base = f"FROM result_seats rs JOIN results r ON r.table_id = rs.table_id WHERE {where}"
        page = await self._all(f"SELECT r.table_id, count(*) OVER () AS total {base}"
                               f" ORDER BY r.finished_at DESC, r.table_id DESC LIMIT ${n + 1} OFFSET ${n + 2}",
                               *args, limit, offset)
        if not page:
            return await self._pg_count(f"SELECT count(*) {base}", *args), []
        rows = await self._all(f"{_RESULT_SEATS} WHERE r.table_id = ANY($1::bigint[])"
                               " ORDER BY r.finished_at DESC, r.table_id DESC, rs.seat", [r["table_id"] for r in page])
        return int(page[0]["total"]), grouped_results(rows)

    async def result_of(self, table_id: int) -> ResultRow | None:
        """The result of a finished table, or ``None``."""
        found = grouped_results(await self._all(f"{_RESULT_SEATS} WHERE r.table_id = $1 ORDER BY rs.seat", table_id))
        return found[0] if found else None

    async def results_mark(self, guild_id: int, game: str) -> tuple[int, int]:
        """``(count, highest table id)`` of a guild's results of ``game``."""
        row = await self._one("SELECT count(*), coalesce(max(table_id), 0) FROM results WHERE guild_id = $1"
                              " AND game = $2", guild_id, game)
        return (int(row[0]), int(row[1])) if row else (0, 0)

    async def guild_results(self, guild_id: int, game: str) -> list[ResultRow]:
        """Every result of ``game`` in a guild, oldest first."""
        return grouped_results(await self._all(
            f"{_RESULT_SEATS} WHERE r.guild_id = $1 AND r.game = $2 ORDER BY r.finished_at, r.table_id, rs.seat",
            guild_id, game))


    async def member_names(self, guild_id: int, user_ids: Iterable[int]) -> dict[int, str]:
        """The name each member last played under in a guild (members never seated are absent)."""
        ids = list(user_ids)
        if not ids:
            return {}
        rows = await self._all("SELECT s.user_id, s.name FROM seats s JOIN game_tables g ON g.id = s.table_id"
                               " WHERE s.user_id = ANY($2::bigint[]) AND g.guild_id = $1 ORDER BY s.table_id",
                               guild_id, ids)
        return {r["user_id"]: r["name"] for r in rows}

#: A finished game's seats with their names and AI levels (the web pages' result reads).
_RESULT_SEATS = ("SELECT r.table_id, r.game, r.finished_at, rs.seat, rs.user_id, rs.rank, rs.score, s.name, s.ai_level"
                 " FROM results r JOIN result_seats rs ON rs.table_id = r.table_id"
                 " LEFT JOIN seats s ON s.table_id = rs.table_id AND s.seat = rs.seat")

