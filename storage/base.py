"""The storage interface: the one typed :class:`Store` protocol the service talks to, and the
rows it exchanges. No SQL here; :mod:`storage.sqlite` is the embedded implementation and
:mod:`storage.postgres` the one for several processes on one PostgreSQL database;
:func:`storage.factory.open_store` opens either from a URL.

Times are UNIX seconds (float), always passed in by the caller (the service owns the clock).
JSON-like values (``options``, ``state``, events, timer payloads) cross the interface decoded,
except the snapshots of :meth:`Store.running_tables`, which stay JSON text until the service
decodes a table on first touch (restart in O(tables)).
"""

from __future__ import annotations

from collections.abc import Iterable
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from typing import Any, NamedTuple, Protocol

__all__ = [
    "RatingRow",
    "RunningTable",
    "SeatRow",
    "Shards",
    "StepWrite",
    "Store",
    "TableRow",
    "TimerRow",
    "VersionConflict",
]


class VersionConflict(RuntimeError):
    """A step's compare-and-set failed: the stored table ``table_id`` is no longer at
    ``expected`` (another writer applied a step first, or the table stopped running).
    Nothing of the step was stored; the writer must reload the table before trying again."""

    def __init__(self, table_id: int, expected: int) -> None:
        super().__init__(f"table {table_id} is no longer at version {expected}: another writer moved it; "
                         "reload the table")
        self.table_id = table_id
        self.expected = expected


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


@dataclass(frozen=True, slots=True)
class SeatRow:
    """One seat: ``user_id`` is ``None`` for an AI player; ``away`` marks a member who went quiet
    (the AI plays for them until they come back); ``timeouts`` counts their timeouts in a row
    (kept across restarts); ``ai_level`` is an AI player's level (``"easy"``, ``"normal"``,
    ``"strong"``; ``None`` = normal, as for seats stored before levels existed; see
    :attr:`level`)."""

    seat: int
    user_id: int | None
    name: str
    is_ai: bool
    away: bool = False
    timeouts: int = 0
    ai_level: str | None = None

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

    @property
    def ordinal(self) -> float:
        """Conservative skill estimate ``mu - 3 sigma`` (openskill's ordinal).

        >>> RatingRow(user_id=1, mu=25.0, sigma=8.0, played=0, won=0).ordinal
        1.0
        """
        return self.mu - 3 * self.sigma


class TimerRow(NamedTuple):
    """A persisted timer: ``key`` (unique; its kind before the first ``:``, e.g. ``turn:12``) is
    due at ``due`` (UNIX seconds); ``payload`` is the owner's JSON object."""

    key: str
    due: float
    payload: dict[str, Any]

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


class Store(Protocol):
    """What the service needs from storage. Every method is a coroutine except :meth:`transaction`.

    Errors: backend I/O errors propagate (``aiosqlite.Error`` / ``sqlite3.Error`` subclasses for
    SQLite, ``asyncpg.PostgresError`` / ``OSError`` for PostgreSQL); a broken constraint (a user seated twice at a table) raises the backend's integrity
    error; :meth:`commit_step` raises :class:`VersionConflict`.
    """

    path: str

    async def close(self) -> None:
        """Close the store."""
        ...

    def transaction(self) -> AbstractAsyncContextManager[None]:
        """``async with store.transaction():`` everything inside commits together or not at all;
        other tasks' statements never land inside it; nested use by the same task joins it."""
        ...

    # --- tables
    async def create_table(self, *, guild_id: int, channel_id: int, game: str, host_user_id: int, lang: str,
                           options: dict[str, Any], now: float) -> int:
        """Insert a table in the ``lobby`` status; returns its id."""
        ...

    async def get_table(self, table_id: int) -> TableRow | None:
        """The table with ``table_id`` or ``None``."""
        ...

    async def tables_with_status(self, status: str) -> list[TableRow]:
        """Every table with ``status``, by id."""
        ...

    async def update_table(self, table_id: int, now: float, *, expect_status: str | None = None,
                           **fields: Any) -> bool:
        """Set columns of a table (with ``expect_status``: only while it has that status, a
        compare-and-set); True when the row changed. Raises ``ValueError`` for no field or one
        that may not be set."""
        ...

    async def running_tables(self) -> list[RunningTable]:
        """Every running table with its seats and current buffered choices, in a few bulk reads."""
        ...

    async def running_tables_of(self, shards: Shards) -> list[RunningTable]:
        """:meth:`running_tables` of the guilds on ``shards`` only (filtered in the query)."""
        ...

    # --- seats
    async def seats(self, table_id: int) -> list[SeatRow]:
        """Seats of a table ordered by seat number."""
        ...

    async def replace_seats(self, table_id: int, seats: list[SeatRow]) -> None:
        """Replace every seat of a table."""
        ...

    async def set_seat_state(self, table_id: int, seat: int, *, away: bool, timeouts: int) -> None:
        """Store a seat's ``away`` flag and timeouts-in-a-row counter."""
        ...

    # --- play
    async def commit_step(self, step: StepWrite) -> None:
        """Store an applied step atomically (see :class:`StepWrite`); raises :class:`VersionConflict`."""
        ...

    async def record_events(self, table_id: int, version: int, events: list[dict[str, Any]]) -> None:
        """Append events to a table's event log at state ``version`` (advances ``event_seq``)."""
        ...

    async def action_log(self, table_id: int) -> list[tuple[int, dict[int, str], str]]:
        """The append-only log: ``(version_before, {seat: code}, source)`` in order."""
        ...

    async def recent_events(self, table_id: int, limit: int) -> list[dict[str, Any]]:
        """The last ``limit`` events of a table, oldest first."""
        ...

    async def set_pending(self, table_id: int, seat: int, version: int, code: str) -> None:
        """Buffer (or change) a seat's choice in a simultaneous step."""
        ...

    async def pending(self, table_id: int, version: int) -> dict[int, str]:
        """Buffered choices for the step at ``version``."""
        ...

    # --- timers (a table's turn deadline ``turn:<table id>`` is kept in the table's row, so a
    # step that moves it writes no other row; every other timer in a timers table)
    async def set_timer(self, timer: TimerRow) -> None:
        """Set (or replace, by key) a persisted timer."""
        ...

    async def set_timers(self, timers: Iterable[TimerRow]) -> None:
        """Set (or replace) many timers at once."""
        ...

    async def cancel_timer(self, key: str) -> None:
        """Remove a timer (no error when there is none)."""
        ...

    async def timers(self, shards: Shards | None = None) -> list[TimerRow]:
        """Every persisted timer, the earliest due first; with ``shards``, only those the shards
        own (filtered in the query): a timer ``<kind>:<table id>`` follows its table's guild,
        any other timer belongs to shard 0."""
        ...

    async def timer(self, key: str) -> TimerRow | None:
        """One timer, or ``None``."""
        ...

    # --- results, ratings
    async def record_result(self, table_id: int, *, guild_id: int, game: str, outcome: dict[str, Any],
                            seats: list[tuple[int, int | None, int, int]], now: float) -> None:
        """Store a finished game's result: ``seats`` = ``(seat, user_id, rank, score)``."""
        ...

    async def ratings(self, guild_id: int, game: str, user_ids: Iterable[int]) -> dict[int, RatingRow]:
        """Existing ratings of ``user_ids``."""
        ...

    async def save_rating(self, guild_id: int, game: str, row: RatingRow) -> None:
        """Insert or replace one member's rating and stats."""
        ...

    async def leaderboard(self, guild_id: int, game: str, min_games: int, limit: int = 10) -> list[RatingRow]:
        """Top members by ordinal with ``min_games`` played."""
        ...

    async def member_stats(self, guild_id: int, user_id: int) -> dict[str, RatingRow]:
        """A member's rating and stats per game: ``{game: RatingRow}``."""
        ...

    # --- decks
    async def save_deck(self, guild_id: int, game: str, name: str, data: dict[str, Any], created_by: int,
                        now: float) -> int:
        """Store (or replace, by name) a guild's custom deck; returns its id."""
        ...

    async def decks(self, guild_id: int, game: str) -> list[tuple[int, str]]:
        """A guild's decks for a game: ``(deck_id, name)``."""
        ...

    async def deck(self, guild_id: int, deck_id: int) -> dict[str, Any] | None:
        """A stored deck's data (only if it belongs to ``guild_id``)."""
        ...

    async def delete_deck(self, guild_id: int, deck_id: int) -> bool:
        """Remove a guild's deck; True when something was removed."""
        ...

    async def guild_tables(self, guild_id: int, statuses: tuple[str, ...] = ("lobby", "running")) -> list[TableRow]:
        """A guild's tables whose status is in ``statuses``, oldest first."""
        ...

    async def tables_in_place(self, place_id: int, statuses: tuple[str, ...] = ("lobby", "running")) -> list[TableRow]:
        """Tables whose thread or channel is ``place_id`` and whose status is in ``statuses``."""
        ...

    async def open_lobby_of(self, guild_id: int, channel_id: int, host_user_id: int) -> TableRow | None:
        """The open lobby ``host_user_id`` hosts in a channel (the oldest), or ``None``."""
        ...

    async def all_events(self, table_id: int) -> list[dict[str, Any]]:
        """Every event of a table in order (all audiences: filter before showing)."""
        ...
