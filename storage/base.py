"""The storage interface and what both drivers share: the rows the service exchanges with a store,
the errors a store raises, the JSON codec of every JSON column, and the :class:`Store` abstract
base that :class:`storage.sqlite.SqliteStore` (aiosqlite) and :class:`storage.postgres.PostgresStore`
(asyncpg) implement, each with its own dialect's SQL. No SQL here;
:func:`storage.factory.open_store` opens either from a URL.

Times are UNIX seconds (float), always passed in by the caller (the service owns the clock).
JSON-like values (``options``, ``state``, events, timer payloads) cross the interface decoded,
except the snapshots of :meth:`Store.running_tables`, which stay JSON text until the service
decodes a table on first touch with :func:`loads` (restart in O(tables)).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from abc import ABC, abstractmethod
from collections.abc import AsyncIterator, Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal, NamedTuple, Protocol, get_args

import orjson

log = logging.getLogger(__name__)

__all__ = [
    "PACES",
    "WEB_MODES",
    "Backoff",
    "DatabaseDamaged",
    "GUILD_SETTINGS_COLUMNS",
    "GuildSettings",
    "Pace",
    "PastResult",
    "RatingPoint",
    "RatingRow",
    "Record",
    "RunningTable",
    "SchemaTooNew",
    "SeasonRecord",
    "SeasonRow",
    "SeatRow",
    "SettingsChange",
    "Shards",
    "StepWrite",
    "Store",
    "StoreRefused",
    "StoreUnavailable",
    "TableRow",
    "TargetNotEmpty",
    "TimerRow",
    "TransferError",
    "UPDATABLE",
    "VersionConflict",
    "Web",
    "dumps",
    "loads",
    "merged_events",
    "step_timers",
    "table_update",
    "turn_table",
]


# ---------------------------------------------------------------------------- errors
class VersionConflict(RuntimeError):
    """A step's compare-and-set failed: the stored table ``table_id`` is no longer at
    ``expected`` (another writer applied a step first, or the table stopped running).
    Nothing of the step was stored; the writer must reload the table before trying again."""

    def __init__(self, table_id: int, expected: int) -> None:
        super().__init__(f"table {table_id} is no longer at version {expected}: another writer moved it; "
                         "reload the table")
        self.table_id = table_id
        self.expected = expected


class StoreUnavailable(RuntimeError):
    """The store cannot be reached for now: a transient failure, not a fault of the data (the
    PostgreSQL connection was lost, the server is restarting or refuses connections for now;
    SQLite's file is locked by another connection beyond the busy timeout). The failed call
    changed nothing, except a commit whose answer was lost: it may have been stored, and the
    version compare-and-set of the next step tells (:class:`VersionConflict`). Callers retry
    with :class:`Backoff` for as long as it lasts; ``__cause__`` is the driver's own error."""


class Backoff:
    """Capped exponential back-off for retrying a :class:`StoreUnavailable` call: ``first``,
    then twice the last delay, never more than ``cap`` seconds; :meth:`reset` after a success.

    >>> b = Backoff(0.1, 0.5)
    >>> [b.next() for _ in range(5)]
    [0.1, 0.2, 0.4, 0.5, 0.5]
    """

    __slots__ = ("cap", "first", "_next")

    def __init__(self, first: float = 0.1, cap: float = 2.0) -> None:
        self.first = first
        self.cap = cap
        self._next = first

    def next(self) -> float:
        """The delay before the next try, in seconds."""
        delay = self._next
        self._next = min(self.cap, delay * 2)
        return delay

    def reset(self) -> None:
        """Start again from ``first`` (the last try succeeded)."""
        self._next = self.first


#: Where the operator reads how to restore a store (named in the refusals below).
BACKUPS = 'docs/operations.md, "Backups"'


class StoreRefused(RuntimeError):
    """A store that must not be used as it is, found when it is opened; nothing was changed.
    Its message is one line for an operator (the bot and the terminal print it and exit 2)."""


class SchemaTooNew(StoreRefused):
    """The database's schema version ``found`` is above ``known``, the last one this code has a
    migration for: a newer Speakeasy wrote it, and this one would run its older queries on it.

    >>> print(SchemaTooNew(99, 8))
    the database's schema is version 99, newer than this Speakeasy knows (8): a newer version wrote it; run that version, or restore the backup made before it (docs/operations.md, "Backups")
    """

    def __init__(self, found: int, known: int) -> None:
        super().__init__(f"the database's schema is version {found}, newer than this Speakeasy knows ({known}): "
                         f"a newer version wrote it; run that version, or restore the backup made before it "
                         f"({BACKUPS})")
        self.found = found
        self.known = known


class DatabaseDamaged(StoreRefused):
    """The SQLite file failed its integrity check (``PRAGMA quick_check``, or SQLite found a
    corrupt page while opening it); ``detail`` is SQLite's first complaint, on one line.

    >>> print(DatabaseDamaged("*** in database main ***\\nPage 38: btreeInitPage() returns error code 11"))
    the database file is damaged (Page 38: btreeInitPage() returns error code 11); restore it from a backup (docs/operations.md, "Backups")
    """

    def __init__(self, detail: str) -> None:
        detail = "; ".join(line.strip() for line in detail.splitlines()
                           if line.strip() and not line.startswith("*** in database")) or detail.strip()
        super().__init__(f"the database file is damaged ({detail}); restore it from a backup ({BACKUPS})")
        self.detail = detail


class TransferError(RuntimeError):
    """A copy between stores cannot be made (a source or target that cannot be used, different
    schemas); nothing was written."""


class TargetNotEmpty(TransferError):
    """The target database already holds rows (``counts``: table -> rows); nothing was written."""

    def __init__(self, counts: dict[str, int]) -> None:
        listed = ", ".join(f"{t}: {n}" for t, n in counts.items())
        super().__init__(f"the target database is not empty ({listed}); migrate-data only fills an empty "
                         "database, it never overwrites or merges")
        self.counts = counts


# ---------------------------------------------------------------------------- the JSON codec
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


def _column(row: Record, name: str, damaged: Any) -> Any:
    """A table row's JSON column decoded, ``damaged`` (logged) when it is not JSON."""
    try:
        return loads(row[name])
    except ValueError:
        log.warning("table %s: its %s column is not JSON; read as %r", row["id"], name, damaged)
        return damaged


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


# ---------------------------------------------------------------------------- rows
class Record(Protocol):
    """A row as a driver reads it, by column name (``sqlite3.Row``, ``asyncpg.Record``)."""

    def __getitem__(self, key: str, /) -> Any: ...


@dataclass(frozen=True, slots=True)
class Shards:
    """The Discord shards one bot process runs: ``ids`` among ``count`` shards. A guild is on
    shard ``(guild_id >> 22) % count`` (Discord's formula), and the process owns the tables of
    the guilds on its shards. Timers not tied to a table (none today) belong to shard 0.

    Raises ``ValueError`` for a count below 1, no id, an id out of ``range(count)`` or a repeated id.

    >>> Shards(4, (0, 1)).owns(5 << 22)  # (id >> 22) % 4 == 1
    True
    >>> Shards(4, (0, 1)).owns(6 << 22)
    False
    >>> Shards(2, (1,)).shard_of(1 << 22)
    1
    """

    count: int
    ids: tuple[int, ...]

    def __post_init__(self) -> None:
        if self.count < 1:
            raise ValueError("the shard count must be at least 1")
        if not self.ids:
            raise ValueError("give at least one shard id")
        bad = [i for i in self.ids if not 0 <= i < self.count]
        if bad:
            raise ValueError(f"shard id {bad[0]} is out of range: the ids go from 0 to {self.count - 1}")
        if len(set(self.ids)) != len(self.ids):
            raise ValueError("a shard id is repeated")

    def shard_of(self, guild_id: int) -> int:
        """The shard of a guild: ``(guild_id >> 22) % count``."""
        return (guild_id >> 22) % self.count

    def owns(self, guild_id: int) -> bool:
        """Whether the guild is on one of :attr:`ids`."""
        return self.shard_of(guild_id) in self.ids

    @property
    def everything(self) -> bool:
        """True when :attr:`ids` are every shard (the process owns every table)."""
        return len(self.ids) == self.count


@dataclass(frozen=True, slots=True)
class TableRow:
    """One row of ``game_tables`` (``state`` and ``options`` already JSON-decoded).

    ``rules_version`` is the game's ``rules_version`` when the table started (1 for a lobby, and
    for every table stored before versions were recorded); replay from ``seed`` and the action
    log is only claimed under that version. ``action_seq`` / ``event_seq`` are the last sequence
    numbers used in the table's action and event logs (the next row gets ``seq + 1``).
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
    action_seq: int = 0
    event_seq: int = 0
    pace: Pace | None = None

    @classmethod
    def of(cls, row: Record, *, decode_state: bool = True) -> TableRow:
        """The row a driver read (``sqlite3.Row`` or ``asyncpg.Record`` of ``SELECT *``), its
        JSON columns decoded (``state`` left ``None`` unless ``decode_state``). A column that is
        not JSON (a damaged row) is logged and read as none: ``{}`` options, no snapshot (a
        running table without one is abandoned when touched, :meth:`bot.service.Hall.touch`)."""
        return cls(
            id=row["id"],
            guild_id=row["guild_id"],
            channel_id=row["channel_id"],
            thread_id=row["thread_id"],
            lobby_message_id=row["lobby_message_id"],
            board_message_id=row["board_message_id"],
            game=row["game"],
            options=_column(row, "options", {}),
            status=row["status"],
            host_user_id=row["host_user_id"],
            lang=row["lang"],
            seed=row["seed"],
            version=row["version"],
            state=_column(row, "state", None) if decode_state and row["state"] else None,
            created_at=row["created_at"],
            updated_at=row["updated_at"],
            rules_version=row["rules_version"],
            action_seq=row["action_seq"],
            event_seq=row["event_seq"],
            pace=row["pace"],
        )


@dataclass(frozen=True, slots=True)
class SeatRow:
    """One seat: ``user_id`` is ``None`` for an AI player; ``away`` marks a member who went quiet
    (the AI plays for them until they come back); ``timeouts`` counts their timeouts in a row
    (kept across restarts); ``ai_level`` is an AI player's level (``"easy"``, ``"normal"``,
    ``"strong"``; ``None`` = normal, as for seats stored before levels existed; see
    :attr:`level`); ``muted``: the member asked for no turn pings at this table."""

    seat: int
    user_id: int | None
    name: str
    is_ai: bool
    away: bool = False
    timeouts: int = 0
    ai_level: str | None = None
    muted: bool = False

    @classmethod
    def of(cls, row: Record) -> SeatRow:
        """The seat a driver read (a row of ``seats``; flags stored as 0/1)."""
        return cls(row["seat"], row["user_id"], row["name"], bool(row["is_ai"]), bool(row["away"]), row["timeouts"],
                   row["ai_level"], bool(row["muted"]))

    @property
    def level(self) -> str:
        """The level the AI plays this seat at: an AI player's :attr:`ai_level` (``"normal"``
        when unset); a member's stand-in (away, timeouts) always plays ``"normal"``."""
        return (self.ai_level or "normal") if self.is_ai else "normal"

    @property
    def autoplay(self) -> bool:
        """True when the AI plays this seat now (an AI player, or a member who is away)."""
        return self.is_ai or self.away


@dataclass(frozen=True, slots=True)
class RatingRow:
    """A member's rating and stats for one game in one guild."""

    user_id: int
    mu: float
    sigma: float
    played: int
    won: int

    @classmethod
    def of(cls, row: Record) -> RatingRow:
        """The rating a driver read (a row of ``ratings``)."""
        return cls(row["user_id"], row["mu"], row["sigma"], row["played"], row["won"])

    @property
    def ordinal(self) -> float:
        """Conservative skill estimate ``mu - 3 sigma`` (openskill's ordinal).

        >>> RatingRow(user_id=1, mu=25.0, sigma=8.0, played=0, won=0).ordinal
        1.0
        """
        return self.mu - 3 * self.sigma


@dataclass(frozen=True, slots=True)
class ResultSeat:
    """One seat of a finished game's result: ``user_id`` ``None`` for an AI seat, whose level
    (``ai_level``, ``None`` = normal or a member) the rating replay needs."""

    seat: int
    user_id: int | None
    rank: int
    score: int
    name: str = ""
    ai_level: str | None = None


@dataclass(frozen=True, slots=True)
class ResultRow:
    """A finished game as the web pages list it: its table, game, when it finished (UNIX
    seconds) and its seats in seat order."""

    table_id: int
    game: str
    finished_at: float
    seats: tuple[ResultSeat, ...]

    def seat_of(self, user_id: int) -> ResultSeat | None:
        """The seat ``user_id`` played, or ``None``."""
        return next((s for s in self.seats if s.user_id == user_id), None)


def grouped_results(rows: Iterable[Any]) -> list[ResultRow]:
    """:class:`ResultRow` values from rows ordered by table then seat, each with the columns
    ``table_id, game, finished_at, seat, user_id, rank, score, name, ai_level`` (both drivers'
    result queries)."""
    out: list[ResultRow] = []
    head: tuple[int, str, float] | None = None
    seats: list[ResultSeat] = []
    for r in rows:
        if head is None or r["table_id"] != head[0]:
            if head is not None:
                out.append(ResultRow(*head, tuple(seats)))
            head, seats = (r["table_id"], r["game"], r["finished_at"]), []
        seats.append(ResultSeat(r["seat"], r["user_id"], r["rank"], r["score"], r["name"] or "", r["ai_level"]))
    if head is not None:
        out.append(ResultRow(*head, tuple(seats)))
    return out
#: A table's turn pace (see ``bot.paces``): how long a member has for a turn.
Pace = Literal["live", "normal", "relaxed", "correspondence"]
#: Every pace, fastest first.
PACES: tuple[Pace, ...] = get_args(Pace)
#: A server's web pages: ``"off"``, ``"private"`` (only through links signed with the server's
#: :attr:`GuildSettings.web_secret`) or ``"public"``.
Web = Literal["off", "private", "public"]
#: Every web mode.
WEB_MODES: tuple[Web, ...] = get_args(Web)


@dataclass(frozen=True, slots=True)
class GuildSettings:
    """A server's own settings (``/settings``), one row of ``guild_settings``.

    ``None`` means "the bot's default" (its environment variable): ``games`` (the game keys the
    server offers; default ``ENABLED_GAMES``), ``channels`` (the channel ids where ``/play`` may
    open a lobby; default every channel), ``pace`` (the default pace of new tables; default
    ``"normal"``), ``min_games`` (games to finish to appear on a leaderboard; default
    ``LEADERBOARD_MIN_GAMES``), ``pictures`` (default ``PICTURES``), ``ai_levels`` (the AI
    levels a lobby offers; default all). ``monthly_seasons``: a new season starts by itself
    every calendar month (UTC). ``web``: the server's web pages (:data:`Web`); ``web_secret``
    signs their private links (``""`` until one is made), ``web_secret_at`` when it was made
    (UNIX seconds). ``updated_at`` / ``updated_by``: the last change and the member who made it.
    A server that never saved anything reads as ``GuildSettings(guild_id)``.
    """

    guild_id: int
    games: tuple[str, ...] | None = None
    channels: tuple[int, ...] | None = None
    pace: Pace | None = None
    min_games: int | None = None
    pictures: bool | None = None
    ai_levels: tuple[str, ...] | None = None
    monthly_seasons: bool = False
    web: Web = "off"
    web_secret: str = ""
    web_secret_at: float | None = None
    updated_at: float = 0.0
    updated_by: int | None = None

    def ranked_after(self, default: int) -> int:
        """Games a member must have finished to appear on the server's leaderboards: its own
        ``min_games``, else ``default`` (``LEADERBOARD_MIN_GAMES``)."""
        return default if self.min_games is None else self.min_games

    @property
    def saved(self) -> bool:
        """Whether the server's settings were ever written (a change, a new web secret, the bot
        leaving the server): until then the bot's defaults are in force, its web mode included."""
        return bool(self.updated_at) or self.updated_by is not None or bool(self.web_secret)

    @classmethod
    def of(cls, row: Record) -> GuildSettings:
        """The settings a driver read (a row of ``guild_settings``; lists as JSON text)."""
        def listed(value: str | None) -> tuple[Any, ...] | None:
            return None if value is None else tuple(loads(value))

        return cls(
            guild_id=row["guild_id"], games=listed(row["games"]), channels=listed(row["channels"]), pace=row["pace"],
            min_games=row["min_games"], pictures=None if row["pictures"] is None else bool(row["pictures"]),
            ai_levels=listed(row["ai_levels"]), monthly_seasons=bool(row["monthly_seasons"]), web=row["web"],
            web_secret=row["web_secret"], web_secret_at=row["web_secret_at"], updated_at=row["updated_at"],
            updated_by=row["updated_by"])

    def columns(self) -> tuple[Any, ...]:
        """The stored values, in the column order of ``guild_settings`` (lists as JSON text, flags 0/1).

        >>> GuildSettings(5, games=("moonshine",), pictures=False).columns()[:6]
        (5, '["moonshine"]', None, None, None, 0)
        """
        def listed(value: tuple[Any, ...] | None) -> str | None:
            return None if value is None else dumps(list(value))

        return (self.guild_id, listed(self.games), listed(self.channels), self.pace, self.min_games,
                None if self.pictures is None else int(self.pictures), listed(self.ai_levels),
                int(self.monthly_seasons), self.web, self.web_secret, self.web_secret_at, self.updated_at,
                self.updated_by)


#: The columns of ``guild_settings``, in the order of :meth:`GuildSettings.columns`.
GUILD_SETTINGS_COLUMNS = ("guild_id", "games", "channels", "pace", "min_games", "pictures", "ai_levels",
                          "monthly_seasons", "web", "web_secret", "web_secret_at", "updated_at", "updated_by")


class SettingsChange(NamedTuple):
    """One logged change of a server's settings: ``field`` set to ``value`` (JSON text; ``None``
    back to the default) by ``user_id`` at ``changed_at`` (UNIX seconds)."""

    changed_at: float
    user_id: int | None
    field: str
    value: str | None


@dataclass(frozen=True, slots=True)
class SeasonRow:
    """One season of a game in a server: ``season`` counts from 1; ``name`` is what the admin
    called it (``None``: shown as its number); ``started_at``/``ended_at`` in UNIX seconds
    (``started_at`` is ``None`` for the season 1 of ratings stored before seasons existed,
    ``ended_at`` ``None`` for the current season). Its ratings rows (``season``) are its
    standings, final once it ended."""

    season: int
    name: str | None = None
    started_at: float | None = None
    ended_at: float | None = None

    @classmethod
    def of(cls, row: Record) -> SeasonRow:
        """The season a driver read (a row of ``seasons``)."""
        return cls(row["season"], row["name"], row["started_at"], row["ended_at"])


@dataclass(frozen=True, slots=True)
class SeasonRecord:
    """A member's record in one season of one game (``/stats``): ``rating`` is their rating and
    counts at the end of it (now, for the current season)."""

    game: str
    season: SeasonRow
    rating: RatingRow


class RatingPoint(NamedTuple):
    """A member's rating right after one rated result (``rating_history``): the result's table,
    the season it counted in, the new ``mu``/``sigma`` and when it was rated (UNIX seconds)."""

    table_id: int
    season: int
    mu: float
    sigma: float
    rated_at: float

    @property
    def ordinal(self) -> float:
        """``mu - 3 sigma``, as :attr:`RatingRow.ordinal`."""
        return self.mu - 3 * self.sigma


@dataclass(frozen=True, slots=True)
class PastResult:
    """A stored result as the rating history's replay reads it: ``seats`` are ``(seat,
    user_id, rank, ai_level)`` in seat order (``user_id`` ``None`` for an AI seat), ``rated``
    whether its rating history rows exist already."""

    table_id: int
    guild_id: int
    game: str
    finished_at: float
    seats: tuple[tuple[int, int | None, int, str | None], ...]
    rated: bool


class TimerRow(NamedTuple):
    """A persisted timer: ``key`` (unique; its kind before the first ``:``, e.g. ``turn:12``) is
    due at ``due`` (UNIX seconds); ``payload`` is the owner's JSON object."""

    key: str
    due: float
    payload: dict[str, Any]

    @classmethod
    def of(cls, row: Record) -> TimerRow:
        """The timer a driver read (``key``, ``due`` and the JSON text ``payload``)."""
        return cls(row["key"], row["due"], loads(row["payload"]))

    @property
    def kind(self) -> str:
        """The part of ``key`` before the first ``:`` (the whole key when there is none)."""
        return self.key.partition(":")[0]


@dataclass(frozen=True, slots=True)
class RunningTable:
    """A running table as :meth:`Store.running_tables` reads it in bulk at start-up: its row
    (``state`` left ``None``), its snapshot as stored JSON text (decoded on first touch), its
    seats and the buffered choices of its current step."""

    row: TableRow
    state_json: str | None
    seats: list[SeatRow]
    pending: dict[int, str]


@dataclass(slots=True)  # not frozen: made once per step, and a frozen __init__ costs 4x (9 vs 2 us)
class StepWrite:
    """Everything one applied step stores, in one transaction (:meth:`Store.commit_step`).
    Treat it as read-only once made (the store reads it as it writes).

    The write is a compare-and-set: it applies only while the stored table is still at
    ``version_before`` and running. ``action_seq`` is the seq of the new action-log row,
    ``event_seq`` the seq of the first event (the caller keeps both counters in memory).
    ``status`` sets a new table status (``finished``); ``timer`` is set or replaced and
    ``cancel_timer`` removed in the same transaction (the table's own turn deadline within its
    row's write); ``clear_pending`` drops buffered choices. The events are stored with the
    action-log row (one row per step).
    """

    table_id: int
    version_before: int
    version: int
    state: dict[str, Any]
    actions: dict[int, str]
    source: str
    events: list[dict[str, Any]]
    action_seq: int
    event_seq: int
    now: float
    status: str | None = None
    timer: TimerRow | None = None
    cancel_timer: str | None = None
    clear_pending: bool = True

    @property
    def last_event(self) -> int:
        """The table's ``event_seq`` once the step is stored: its last event's seq (the one
        before ``event_seq`` when the step has no event)."""
        return self.event_seq + len(self.events) - 1 if self.events else self.event_seq - 1

    def actions_json(self) -> str:
        """The action-log row's ``actions`` column: ``{"<seat>": code}`` as JSON text."""
        return dumps({str(k): v for k, v in self.actions.items()})

    def events_columns(self) -> tuple[int | None, str | None]:
        """The action-log row's ``(event_seq, events)`` columns: the first event's seq and the
        events as one JSON array, or ``(None, None)`` for a step without events."""
        return (self.event_seq, dumps(self.events)) if self.events else (None, None)


#: The columns :meth:`Store.update_table` may set.
UPDATABLE = frozenset({"thread_id", "lobby_message_id", "board_message_id", "options", "status", "seed", "version",
                       "state", "lang", "rules_version", "pace"})


def table_update(fields: Mapping[str, Any]) -> tuple[list[str], list[Any]]:
    """The columns and stored values of :meth:`Store.update_table`'s ``fields`` (``options`` and
    ``state`` JSON-encoded). Raises ``ValueError`` for no field or a column not in :data:`UPDATABLE`.

    >>> table_update({"status": "running", "state": {"v": 1}})
    (['status', 'state'], ['running', '{"v":1}'])
    """
    if not fields or set(fields) - UPDATABLE:
        raise ValueError(f"bad fields {sorted(set(fields) - UPDATABLE)}")
    return list(fields), [dumps(v) if k in ("options", "state") and v is not None else v for k, v in fields.items()]


def turn_table(key: str) -> int | None:
    """The table id of a turn-deadline timer key ``turn:<table id>``, else ``None``. Such a
    timer is kept in its table's row (``turn_due``, ``turn_timer``; schema version 8) when the
    table is stored, in the timers table otherwise.

    >>> turn_table("turn:12"), turn_table("lobby:12"), turn_table("turn:"), turn_table("turn:1x")
    (12, None, None, None)
    """
    if key.startswith("turn:"):
        digits = key[5:]
        if digits.isascii() and digits.isdigit():
            return int(digits)
    return None


def step_timers(step: StepWrite) -> tuple[TimerRow | None, str | None, tuple[float | None, str | None] | None]:
    """How a step's timer change is stored: ``(timer to set in the timers table, key to remove
    there, (turn_due, turn_timer) for the table's row, or None when the row's deadline stays)``.
    The table's own turn deadline goes to its row (see :func:`turn_table`).

    >>> step_timers(StepWrite(7, 0, 1, {}, {}, "user", [], 1, 1, 0.0, timer=TimerRow("turn:7", 9.0, {})))
    (None, None, (9.0, '{}'))
    >>> step_timers(StepWrite(7, 0, 1, {}, {}, "user", [], 1, 1, 0.0, cancel_timer="turn:8"))
    (None, 'turn:8', None)
    """
    timer, cancel = step.timer, step.cancel_timer
    turn: tuple[float | None, str | None] | None = None
    if cancel is not None and turn_table(cancel) == step.table_id:
        cancel, turn = None, (None, None)
    if timer is not None and turn_table(timer.key) == step.table_id:
        turn = (timer.due, dumps(timer.payload))
        timer = None
    return timer, cancel, turn


def merged_events(rows: Iterable[Any], steps: Iterable[Any]) -> list[dict[str, Any]]:
    """Events in seq order from the events table's ``(seq, event)`` rows and the action-log
    rows' ``(event_seq, events)`` arrays (a step's events have consecutive seqs).

    >>> merged_events([(1, '{"k":"open"}')], [(2, '[{"k":"a"},{"k":"b"}]'), (4, '[{"k":"c"}]')])
    [{'k': 'open'}, {'k': 'a'}, {'k': 'b'}, {'k': 'c'}]
    """
    found = [(r[0], loads(r[1])) for r in rows]
    for r in steps:
        first = r[0]
        found.extend((first + i, event) for i, event in enumerate(loads(r[1])))
    found.sort(key=lambda pair: pair[0])
    return [event for _, event in found]


# ---------------------------------------------------------------------------- the store
class Store(ABC):
    """What the service needs from storage, and the connection discipline both drivers share.
    Every method is a coroutine except :meth:`transaction`.

    A driver holds one connection, shared by every task of the process: an ``asyncio.Lock``
    gives one task at a time the connection, and a transaction belongs to the task that opened
    it until it ends (other tasks' statements wait; the same task's nested use joins it). A
    driver implements the abstract methods with its dialect's SQL, and the four connection
    hooks :meth:`_begin`, :meth:`_commit`, :meth:`_rollback` and :meth:`_heal`; a statement
    outside a transaction takes the connection with ``async with self._access():``.

    Errors: backend I/O errors propagate (``aiosqlite.Error`` / ``sqlite3.Error`` subclasses for
    SQLite, ``asyncpg.PostgresError`` / ``OSError`` for PostgreSQL); a broken constraint (a user
    seated twice at a table) raises the backend's integrity error; :meth:`commit_step` raises
    :class:`VersionConflict`. Opening a store raises a :class:`StoreRefused` for a schema newer
    than the code (:class:`SchemaTooNew`) or a damaged SQLite file (:class:`DatabaseDamaged`).

    Outages: a driver error that :meth:`_transient` calls transient (a lost connection, a server
    restarting, a busy SQLite file) is raised as :class:`StoreUnavailable` (the driver's error
    as its cause) by every statement and transaction. One warning is logged when an outage
    begins and one when the store answers again (:attr:`unavailable_since` meanwhile), not one
    per failed call.
    """

    def __init__(self, path: str) -> None:
        #: What the store was opened with: a SQLite file path or a PostgreSQL URL (keep
        #: passwords out of logs: ``storage.factory.public_url``).
        self.path = path
        self._lock = asyncio.Lock()
        self._owner: asyncio.Task[Any] | None = None
        self._on_commit: list[tuple[Callable[[], None], Callable[[], None] | None]] = []  # (after_commit)
        #: when the current outage began (``time.monotonic()``), ``None`` while the store answers
        self.unavailable_since: float | None = None
        #: outages seen since the store was opened
        self.outages = 0

    @abstractmethod
    async def close(self) -> None:
        """Close the store."""

    @abstractmethod
    async def schema_version(self) -> int:
        """The schema version of the database (the number of migrations applied)."""

    # --- the shared connection -------------------------------------------------------------
    @contextlib.asynccontextmanager
    async def transaction(self) -> AsyncIterator[None]:
        """``async with store.transaction():`` everything inside commits together or not at all;
        other tasks' statements never land inside it; nested use by the same task joins it."""
        me = asyncio.current_task()
        if self._owner is me:
            yield
            return
        committing = False
        async with self._lock:
            self._owner = me
            self._on_commit = []
            try:
                try:
                    await self._heal()
                    await self._begin()
                    try:
                        yield
                    except BaseException:
                        with contextlib.suppress(Exception):  # a lost connection: the server rolled back
                            await asyncio.shield(self._rollback())
                        raise
                    else:
                        committing = True
                        await self._commit()
                except Exception as exc:
                    unavailable = self._classify(exc)
                    if committing and isinstance(unavailable, StoreUnavailable):  # committed or not: unknown
                        for _, unsure in self._on_commit:
                            if unsure is not None:
                                unsure()
                    if unavailable is exc:
                        raise
                    raise unavailable from exc
                self._answered()
                done = self._on_commit
            finally:
                self._owner = None
                self._on_commit = []
        for fn, _ in done:
            fn()

    def after_commit(self, fn: Callable[[], None], unsure: Callable[[], None] | None = None) -> None:
        """Run ``fn`` (memory that mirrors what was written: no I/O, no error) once the calling
        task's transaction has committed, or at once outside a transaction; never when the
        transaction rolls back. ``unsure`` runs instead when the store did not answer the
        COMMIT itself (:class:`StoreUnavailable`: it may have committed): the caller reads back
        what is stored once the store answers."""
        if self._owner is asyncio.current_task():
            self._on_commit.append((fn, unsure))
        else:
            fn()

    @contextlib.asynccontextmanager
    async def _access(self) -> AsyncIterator[None]:
        """Exclusive use of the connection for one statement (joined inside our transaction)."""
        if self._owner is asyncio.current_task():
            yield
        else:
            async with self._lock:
                try:
                    await self._heal()
                    yield
                except Exception as exc:
                    unavailable = self._classify(exc)
                    if unavailable is exc:
                        raise
                    raise unavailable from exc
                self._answered()

    def _transient(self, exc: BaseException) -> bool:
        """Whether a driver error is transient (the store may answer if asked again later: a
        lost connection, a server restarting, a busy file). The drivers say; False here."""
        return False

    def _classify(self, exc: Exception) -> Exception:
        """``exc`` itself, or a :class:`StoreUnavailable` for a transient driver error (the
        outage's first one is logged, once)."""
        if isinstance(exc, StoreUnavailable) or not self._transient(exc):
            return exc
        if self.unavailable_since is None:
            self.unavailable_since = time.monotonic()
            self.outages += 1
            log.warning("the database is unavailable (%s: %s); retrying until it answers, tables are safe",
                        exc.__class__.__name__, str(exc).strip() or "no detail")
        return StoreUnavailable(f"the database is unavailable ({exc.__class__.__name__})")

    def _answered(self) -> None:
        """A statement or transaction succeeded: ends an outage (logged once)."""
        if self.unavailable_since is not None:
            log.warning("the database answers again after %.1f s", time.monotonic() - self.unavailable_since)
            self.unavailable_since = None

    @abstractmethod
    async def _begin(self) -> None:
        """Start a transaction on the connection (the lock held)."""

    @abstractmethod
    async def _commit(self) -> None:
        """Commit the connection's transaction."""

    @abstractmethod
    async def _rollback(self) -> None:
        """Roll back the connection's transaction."""

    @abstractmethod
    async def _heal(self) -> None:
        """Make the connection usable before a statement outside any transaction (the lock held,
        no owner): roll back an orphan transaction (left by a task cancelled mid-BEGIN/COMMIT);
        connect again when the driver can and the connection was lost."""

    async def record_step(
        self, table_id: int, *, version_before: int, actions: dict[int, str], source: str,
        state: dict[str, Any], version: int, events: list[dict[str, Any]], now: float,
    ) -> None:
        """:meth:`commit_step` for callers that keep no sequence counters (read from the table
        first). Atomic; raises :class:`VersionConflict` for a table that is not stored."""
        async with self.transaction():
            row = await self.get_table(table_id)
            if row is None:
                raise VersionConflict(table_id, version_before)
            await self.commit_step(StepWrite(
                table_id=table_id, version_before=version_before, version=version, state=state, actions=actions,
                source=source, events=events, action_seq=row.action_seq + 1, event_seq=row.event_seq + 1,
                now=now))

    # --- tables
    @abstractmethod
    async def create_table(self, *, guild_id: int, channel_id: int, game: str, host_user_id: int, lang: str,
                           options: dict[str, Any], now: float, pace: Pace | None = None) -> int:
        """Insert a table in the ``lobby`` status at ``pace``; returns its id."""

    @abstractmethod
    async def get_table(self, table_id: int) -> TableRow | None:
        """The table with ``table_id`` or ``None``."""

    @abstractmethod
    async def tables_with_status(self, status: str) -> list[TableRow]:
        """Every table with ``status``, by id."""

    @abstractmethod
    async def update_table(self, table_id: int, now: float, *, expect_status: str | None = None,
                           **fields: Any) -> bool:
        """Set columns of a table (with ``expect_status``: only while it has that status, a
        compare-and-set); True when the row changed. Raises ``ValueError`` for no field or one
        that may not be set."""

    @abstractmethod
    async def running_tables(self) -> list[RunningTable]:
        """Every running table with its seats and current buffered choices, in a few bulk reads."""

    @abstractmethod
    async def running_tables_of(self, shards: Shards) -> list[RunningTable]:
        """:meth:`running_tables` of the guilds on ``shards`` only (filtered in the query)."""

    # --- seats
    @abstractmethod
    async def seats(self, table_id: int) -> list[SeatRow]:
        """Seats of a table ordered by seat number."""

    @abstractmethod
    async def replace_seats(self, table_id: int, seats: list[SeatRow]) -> None:
        """Replace every seat of a table."""

    @abstractmethod
    async def set_seat_state(self, table_id: int, seat: int, *, away: bool, timeouts: int) -> None:
        """Store a seat's ``away`` flag and timeouts-in-a-row counter."""

    @abstractmethod
    async def set_seat_muted(self, table_id: int, seat: int, muted: bool) -> None:
        """Store whether a seat's member muted the turn pings of this table."""

    @abstractmethod
    async def member_tables(self, guild_id: int, user_id: int,
                            statuses: tuple[str, ...] = ("lobby", "running")) -> list[TableRow]:
        """The tables of a server where ``user_id`` has a seat and whose status is in
        ``statuses``, oldest first (``/table mine``)."""

    # --- play
    @abstractmethod
    async def commit_step(self, step: StepWrite) -> None:
        """Store an applied step atomically (see :class:`StepWrite`); raises :class:`VersionConflict`."""

    @abstractmethod
    async def record_events(self, table_id: int, version: int, events: list[dict[str, Any]]) -> None:
        """Append events to a table's event log at state ``version`` (advances ``event_seq``)."""

    @abstractmethod
    async def action_log(self, table_id: int) -> list[tuple[int, dict[int, str], str]]:
        """The append-only log: ``(version_before, {seat: code}, source)`` in order."""

    @abstractmethod
    async def first_action_at(self, table_id: int) -> float | None:
        """When the table's first action was stored (UNIX s), ``None`` before any."""

    @abstractmethod
    async def recent_events(self, table_id: int, limit: int) -> list[dict[str, Any]]:
        """The last ``limit`` events of a table, oldest first."""

    @abstractmethod
    async def set_pending(self, table_id: int, seat: int, version: int, code: str) -> None:
        """Buffer (or change) a seat's choice in a simultaneous step."""

    @abstractmethod
    async def pending(self, table_id: int, version: int) -> dict[int, str]:
        """Buffered choices for the step at ``version``."""

    # --- timers (a table's turn deadline ``turn:<table id>`` is kept in the table's row, so a
    # step that moves it writes no other row; every other timer in a timers table)
    @abstractmethod
    async def set_timer(self, timer: TimerRow) -> None:
        """Set (or replace, by key) a persisted timer."""

    @abstractmethod
    async def set_timers(self, timers: Iterable[TimerRow]) -> None:
        """Set (or replace) many timers at once."""

    @abstractmethod
    async def cancel_timer(self, key: str) -> None:
        """Remove a timer (no error when there is none)."""

    @abstractmethod
    async def timers(self, shards: Shards | None = None) -> list[TimerRow]:
        """Every persisted timer, the earliest due first; with ``shards``, only those the shards
        own (filtered in the query): a timer ``<kind>:<table id>`` follows its table's guild,
        any other timer belongs to shard 0."""

    @abstractmethod
    async def timer(self, key: str) -> TimerRow | None:
        """One timer, or ``None``."""

    # --- results, ratings
    @abstractmethod
    async def record_result(self, table_id: int, *, guild_id: int, game: str, outcome: dict[str, Any],
                            seats: list[tuple[int, int | None, int, int]], now: float) -> None:
        """Store a finished game's result: ``seats`` = ``(seat, user_id, rank, score)``."""

    # The ratings of a server's game are per season: ``season=None`` reads and writes the current
    # one (the highest of :meth:`seasons`; 1 while none was ever started), in the same statement.
    @abstractmethod
    async def ratings(self, guild_id: int, game: str, user_ids: Iterable[int], *,
                      season: int | None = None) -> dict[int, RatingRow]:
        """Existing ratings of ``user_ids`` in ``season`` (``None``: the current one)."""

    @abstractmethod
    async def save_rating(self, guild_id: int, game: str, row: RatingRow, *, season: int | None = None) -> None:
        """Insert or replace one member's rating and stats in ``season`` (``None``: the current one)."""

    @abstractmethod
    async def leaderboard(self, guild_id: int, game: str, min_games: int, limit: int = 10, *,
                          season: int | None = None) -> list[RatingRow]:
        """Top members of ``season`` (``None``: the current one) by ordinal with ``min_games`` played."""

    @abstractmethod
    async def member_stats(self, guild_id: int, user_id: int) -> dict[str, RatingRow]:
        """A member's rating and stats per game in each game's current season: ``{game: RatingRow}``."""

    # --- seasons and the rating history
    @abstractmethod
    async def seasons(self, guild_id: int, game: str) -> list[SeasonRow]:
        """Every season of a server's game, oldest first; ``[SeasonRow(1)]`` (season 1, unnamed,
        no dates) when none was ever started."""

    @abstractmethod
    async def start_season(self, guild_id: int, game: str, name: str | None, now: float, *,
                           after: int | None = None) -> SeasonRow:
        """End the current season of a server's game (``ended_at = now``; its ratings stay, as its
        final standings) and start the next one, named ``name``; returns the new season. Its
        ratings start empty: every member starts fresh. Atomic. With ``after``, only when the
        current season is still season ``after`` (a roll-over another call may have made); else
        nothing changes and the current season is returned."""

    @abstractmethod
    async def member_seasons(self, guild_id: int, user_id: int) -> list[SeasonRecord]:
        """A member's record in every season of every game they played in a server, by game then
        season (``/stats``)."""

    @abstractmethod
    async def record_rating_history(self, guild_id: int, game: str, table_id: int,
                                    points: Iterable[tuple[int, float, float]], now: float, *,
                                    season: int | None = None) -> None:
        """Store each member's rating after the result of ``table_id``: ``points`` are
        ``(user_id, mu, sigma)``; ``season`` ``None`` is the current one. A row that exists
        already is kept (a replay may run twice)."""

    @abstractmethod
    async def rating_history(self, guild_id: int, game: str, user_id: int,
                             season: int | None = None) -> list[RatingPoint]:
        """A member's rating after each rated result of a server's game, oldest first: in
        ``season``, or in every season when ``None``."""

    @abstractmethod
    async def results_to_replay(self) -> list[PastResult]:
        """Every result of each server's game that holds a result with a member seat and no rating
        history (stored before the history existed), in the order they finished (then table id),
        with :attr:`PastResult.rated`: what :mod:`bot.seasons` replays to fill the history in."""

    # --- a server's settings
    @abstractmethod
    async def guild_settings(self, guild_id: int) -> GuildSettings:
        """A server's settings (``GuildSettings(guild_id)``, every default, when it saved none)."""

    @abstractmethod
    async def save_guild_settings(self, settings: GuildSettings, changed: Mapping[str, str | None]) -> None:
        """Store a server's settings (insert or replace) and log each ``changed`` field with its
        new value (JSON text, ``None`` = back to the default), by ``settings.updated_by`` at
        ``settings.updated_at``. Atomic."""

    @abstractmethod
    async def settings_changes(self, guild_id: int, limit: int = 20) -> list[SettingsChange]:
        """A server's last ``limit`` logged settings changes, newest first."""

    @abstractmethod
    async def setting_set_at(self, guild_id: int, field: str, value: str) -> float | None:
        """When the server's setting ``field`` was last changed to ``value`` (its logged, stored
        form: ``"true"``), UNIX seconds; ``None`` when its log has no such change."""

    @abstractmethod
    async def delete_guild_settings(self, guild_id: int) -> None:
        """Forget a server's settings and their log (the bot left the server)."""

    # --- decks
    @abstractmethod
    async def save_deck(self, guild_id: int, game: str, name: str, data: dict[str, Any], created_by: int,
                        now: float, *, deck_id: int | None = None) -> int:
        """Store (or replace, by name) a guild's custom deck; returns its id. With ``deck_id``,
        that deck of the guild is replaced (name and data; its id kept, so lobbies offering it
        keep it)."""

    @abstractmethod
    async def decks(self, guild_id: int, game: str) -> list[tuple[int, str]]:
        """A guild's decks for a game: ``(deck_id, name)``."""

    @abstractmethod
    async def deck(self, guild_id: int, deck_id: int) -> dict[str, Any] | None:
        """A stored deck's data (only if it belongs to ``guild_id``)."""

    @abstractmethod
    async def delete_deck(self, guild_id: int, deck_id: int) -> bool:
        """Remove a guild's deck; True when something was removed."""

    @abstractmethod
    async def guild_tables(self, guild_id: int, statuses: tuple[str, ...] = ("lobby", "running")) -> list[TableRow]:
        """A guild's tables whose status is in ``statuses``, oldest first."""

    @abstractmethod
    async def tables_in_place(self, place_id: int, statuses: tuple[str, ...] = ("lobby", "running")) -> list[TableRow]:
        """Tables whose thread or channel is ``place_id`` and whose status is in ``statuses``."""

    @abstractmethod
    async def open_lobby_of(self, guild_id: int, channel_id: int, host_user_id: int) -> TableRow | None:
        """The open lobby ``host_user_id`` hosts in a channel (the oldest), or ``None``."""

    @abstractmethod
    async def all_events(self, table_id: int) -> list[dict[str, Any]]:
        """Every event of a table in order (all audiences: filter before showing)."""

    # --- what the web pages read (bounded: every list takes a limit) ----------------------
    @abstractmethod
    async def leaderboard_page(self, guild_id: int, game: str, min_games: int, limit: int,
                               offset: int, *, season: int | None = None) -> tuple[int, list[RatingRow]]:
        """How many members of a guild have ``min_games`` of ``game`` in ``season`` (``None``:
        the current one), and ``limit`` of them from ``offset`` in leaderboard order
        (:meth:`leaderboard`'s)."""

    @abstractmethod
    async def member_results(self, guild_id: int, user_id: int, game: str | None, limit: int,
                             offset: int) -> tuple[int, list[ResultRow]]:
        """How many finished games a member played in a guild (of ``game``, or of every game
        for ``None``), and ``limit`` of them from ``offset``, newest first."""

    @abstractmethod
    async def result_of(self, table_id: int) -> ResultRow | None:
        """The result of a finished table, or ``None``."""

    @abstractmethod
    async def results_mark(self, guild_id: int, game: str) -> tuple[int, int]:
        """``(count, highest table id)`` of a guild's results of ``game``: changes whenever one
        is added (a cache key for what is computed from them)."""

    @abstractmethod
    async def guild_results(self, guild_id: int, game: str) -> list[ResultRow]:
        """Every result of ``game`` in a guild, oldest first (the rating replay)."""

    @abstractmethod
    async def member_names(self, guild_id: int, user_ids: Iterable[int]) -> dict[int, str]:
        """The name each of ``user_ids`` last played under in a guild (absent: never seated)."""
