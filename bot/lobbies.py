"""Lobbies: a table before it runs, from ``/play`` to its start (or its end without a game).

A lobby is a table in the status ``lobby``: the host in seat 0, members joining and leaving, AI
players added, removed and given a level, options set by the host. :meth:`Lobbies.start` deals
the game and hands the table over to :class:`bot.tables.Tables` (the running tables); a rematch
opens a new lobby after a finished table. Every change of a lobby happens under its lock (the
hall's, :class:`bot.service.Hall`) and is told to the notifier's ``lobby_changed``.

A lobby not started within ``lobby_timeout`` seconds closes itself (the persisted timer
``lobby:<table id>``, armed by :meth:`Lobbies.open`, removed by ``start``/``cancel``; one already
due when the bot starts fires at once): abandoned, nothing recorded, the notifier's
``lobby_expired`` redraws its message. Starting and cancelling are compare-and-sets on the
status (``Store.update_table(expect_status=...)``): a lobby is dealt once, even by two processes.
"""

from __future__ import annotations

import logging
import secrets
import zlib
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from pydantic import ValidationError

from bot.ai_pool import LEVELS
from bot.decks import Decks
from bot.games import GAMES
from bot.guilds import Guilds
from bot.service import Hall, ServiceError
from bot.table import LiveTable, TableSnapshot, notify
from bot.tables import Tables
from bot.timers import LOBBY, key_table, lobby_key
from storage.base import PACES, SeatRow, TableRow, TimerRow

__all__ = ["Lobbies", "check_level", "lobby_tag"]

log = logging.getLogger(__name__)


def check_level(level: str) -> None:
    """Refuse an AI level that is not one of :data:`bot.ai_pool.LEVELS` (``err.bad_level``)."""
    if level not in LEVELS:
        raise ServiceError("err.bad_level", level=str(level)[:20])


def lobby_tag(seats: list[SeatRow]) -> str:
    """A short fingerprint (8 hex digits) of a lobby's seats (who sits where, which seats are
    AI players): the level picker carries it in its custom_ids, and a pick is refused as stale
    when the seats changed since the picker was drawn (see :meth:`Lobbies.set_ai_level`).
    Levels are not part of it: changing one AI's level leaves the others' pickers valid.

    >>> lobby_tag([SeatRow(0, 7, "Ann", False), SeatRow(1, None, "AI 1", True)])
    'a8adfdeb'
    """
    blob = ";".join(f"{s.seat},{s.user_id},{int(s.is_ai)},{s.name}" for s in seats)
    return f"{zlib.crc32(blob.encode()):08x}"


class Lobbies:
    """Every lobby of the process. See the module docstring.

    Args:
        hall: the tables' shared state (store, clock, notifier, timers, locks, cache).
        tables: the running tables, which a lobby becomes when it starts.
        decks: the guilds' custom decks (the option ``deck``).
        lobby_timeout: seconds a lobby may stay open without being started (then it closes).
        seed_source: returns a new game seed (``secrets.randbits(62)`` by default).
        guilds: the servers' settings (the games and channels a server allows, its default
            pace, the AI levels it offers); the bot's defaults everywhere when not given.
    """

    def __init__(self, hall: Hall, tables: Tables, decks: Decks, *, lobby_timeout: float = 1800,
                 seed_source: Callable[[], int] | None = None, guilds: Guilds | None = None) -> None:
        self.hall = hall
        self.tables = tables
        self.decks = decks
        self.guilds = guilds or Guilds(hall)
        self.lobby_timeout = lobby_timeout
        self.seed_source = seed_source or (lambda: secrets.randbits(62))
        hall.timers.handle(LOBBY, self._due)

    # ------------------------------------------------------------------ expiry
    async def _due(self, timer: TimerRow) -> None:
        """The expiry timer of a lobby fired: a lobby still open is closed (abandoned, nothing
        recorded) and the notifier's ``lobby_expired`` told; a lobby that started or closed
        meanwhile is left alone."""
        table_id = key_table(timer.key)
        row = await self.hall.db.get_table(table_id)
        if row is None or row.status != "lobby" or not self.hall.owns(row.guild_id):
            return
        try:
            view = await self.cancel(table_id, row.host_user_id, is_admin=True, quiet=True)
        except ServiceError:  # started or cancelled between the read and the lock
            return
        log.info("lobby %s expired after %s s without starting", table_id, self.lobby_timeout)
        await notify(self.hall.notifier.lobby_expired, view)

    @property
    def lobby_minutes(self) -> int:
        """:attr:`lobby_timeout` in whole minutes (at least 1), for the texts."""
        return max(1, round(self.lobby_timeout / 60))

    def expired(self, table: TableSnapshot) -> bool:
        """Whether a closed lobby closed by itself: never started, and closed no earlier than
        :attr:`lobby_timeout` after it opened (read from its timestamps, so a click on an old
        lobby button can say why it is closed)."""
        row = table.row
        return (row.status == "abandoned" and row.seed is None
                and row.updated_at - row.created_at >= self.lobby_timeout)

    def _check_lobby(self, row: TableRow) -> None:
        """Refuse a table that is no longer a lobby: ``err.lobby_expired`` when it expired, else
        ``err.table_not_lobby``."""
        if row.status != "lobby":
            if self.expired(TableSnapshot(row, [], None)):
                raise ServiceError("err.lobby_expired", minutes=self.lobby_minutes)
            raise ServiceError("err.table_not_lobby")

    # ------------------------------------------------------------------ opening and reading
    async def open(
        self, *, guild_id: int, channel_id: int, game: str, host_user_id: int, host_name: str,
        lang: str = "en", options: dict[str, Any] | None = None, parent_id: int | None = None,
        seated: bool = True,
    ) -> TableSnapshot:
        """Open a lobby with the host in seat 0 (with ``seated=False``, a host without a seat:
        the terminal's ``play --watch``, every seat an AI player), at the server's default pace, and arm its
        expiry: the timer ``lobby:<id>`` due :attr:`lobby_timeout` seconds from now (see
        :meth:`_due`). The server's settings are read now (``parent_id``: the channel of a
        thread ``channel_id`` is in). Raises ``err.unknown_game``/``err.bad_option``,
        ``err.game_not_enabled`` (a game the server does not offer), ``err.channel_not_allowed``
        (a channel where the server does not allow ``/play``), ``err.not_owned`` in a guild of
        another process's shards."""
        hall = self.hall
        hall.check_owned(guild_id)
        if game not in GAMES:
            raise ServiceError("err.unknown_game", game=game)
        community = await self.guilds.community(guild_id)
        community.check_play(game, (channel_id,) if parent_id is None else (channel_id, parent_id))
        opts = self._validate_options(game, options or {})
        now = hall.clock.now()
        async with hall.db.transaction():
            table_id = await hall.db.create_table(
                guild_id=guild_id, channel_id=channel_id, game=game, host_user_id=host_user_id,
                lang=lang, options=opts, now=now, pace=community.pace,
            )
            await hall.db.replace_seats(table_id, [SeatRow(0, host_user_id, host_name, False)] if seated else [])
            await hall.timers.schedule(lobby_key(table_id), now + self.lobby_timeout)
        return await hall.table(table_id)

    async def hosted(self, guild_id: int, channel_id: int, host_user_id: int) -> TableSnapshot | None:
        """The open lobby a member hosts in a channel (a member hosts at most one per channel)."""
        self.hall.check_owned(guild_id)
        row = await self.hall.db.open_lobby_of(guild_id, channel_id, host_user_id)
        return None if row is None else await self.hall.table(row.id)

    def _validate_options(self, game: str, options: dict[str, Any]) -> dict[str, Any]:
        try:
            return GAMES[game].game.parse_options(options).model_dump(mode="json", exclude_defaults=True)
        except ValidationError as exc:
            raise ServiceError("err.bad_option", detail=str(exc.errors()[0].get("msg", ""))) from None

    # ------------------------------------------------------------------ seats and options
    async def _edit(self, table_id: int, user_id: int, change: Callable[[TableRow, list[SeatRow]], list[SeatRow] | None],
                    host_only: bool = False) -> TableSnapshot:
        hall = self.hall
        async with hall.lock(table_id):
            row = await hall.row(table_id)
            self._check_lobby(row)
            if host_only and user_id != row.host_user_id:
                raise ServiceError("err.host_only")
            seats = await hall.db.seats(table_id)
            new = change(row, seats)
            if new is not None:
                await hall.db.replace_seats(table_id, [SeatRow(i, s.user_id, s.name, s.is_ai, ai_level=s.ai_level)
                                                       for i, s in enumerate(new)])
            view = await hall.table(table_id)
        await notify(hall.notifier.lobby_changed, view)
        return view

    async def join(self, table_id: int, user_id: int, name: str) -> TableSnapshot:
        """Seat a member. Raises ``err.already_seated``, ``err.table_full``, ``err.table_not_lobby``."""
        def change(row: TableRow, seats: list[SeatRow]) -> list[SeatRow]:
            if any(s.user_id == user_id for s in seats):
                raise ServiceError("err.already_seated")
            if len(seats) >= GAMES[row.game].game.max_players:
                if not any(s.is_ai for s in seats):
                    raise ServiceError("err.table_full", max=GAMES[row.game].game.max_players)
                # a member takes the place of the last AI player
                last_ai = max(i for i, s in enumerate(seats) if s.is_ai)
                seats = seats[:last_ai] + seats[last_ai + 1:]
            return seats + [SeatRow(len(seats), user_id, name, False)]
        return await self._edit(table_id, user_id, change)

    async def leave(self, table_id: int, user_id: int) -> TableSnapshot:
        """Unseat a member (the host cancels instead). Raises ``err.not_seated``/``err.host_cannot_leave``."""
        def change(row: TableRow, seats: list[SeatRow]) -> list[SeatRow]:
            if user_id == row.host_user_id:
                raise ServiceError("err.host_cannot_leave")
            if not any(s.user_id == user_id for s in seats):
                raise ServiceError("err.not_seated")
            return [s for s in seats if s.user_id != user_id]
        return await self._edit(table_id, user_id, change)

    async def offered_levels(self, table_id: int) -> tuple[str, ...]:
        """The AI levels the lobby's server offers (``/settings``), weakest first."""
        row = await self.hall.row(table_id)
        return (await self.guilds.community(row.guild_id)).ai_levels

    async def add_ai(self, table_id: int, user_id: int, ai_name: str = "AI", level: str = "normal") -> TableSnapshot:
        """The host adds an AI player at ``level`` (one of :data:`bot.ai_pool.LEVELS`; when the
        server does not offer it, at the offered level nearest above, else the strongest offered).

        Raises ``err.host_only``, ``err.table_full``, ``err.bad_level``."""
        check_level(level)
        offered = await self.offered_levels(table_id)
        if level not in offered:
            above = [lv for lv in offered if LEVELS.index(lv) > LEVELS.index(level)]
            level = above[0] if above else offered[-1]

        def change(row: TableRow, seats: list[SeatRow]) -> list[SeatRow]:
            if len(seats) >= GAMES[row.game].game.max_players:
                raise ServiceError("err.table_full", max=GAMES[row.game].game.max_players)
            n = sum(1 for s in seats if s.is_ai) + 1
            return seats + [SeatRow(len(seats), None, f"{ai_name} {n}", True, ai_level=level)]
        return await self._edit(table_id, user_id, change, host_only=True)

    async def set_ai_level(self, table_id: int, user_id: int, seat: int, level: str,
                           expect: str | None = None) -> TableSnapshot:
        """The host sets the level of the AI player in ``seat`` (lobby only).

        ``expect``: the :func:`lobby_tag` of the seats the caller saw; when the lobby's seats
        changed since (a join, a leave, an AI added or removed), the change is refused as
        ``err.level_stale``, so a click on an old level picker never changes another seat.
        Raises ``err.host_only``, ``err.table_not_lobby``, ``err.bad_level``, ``err.level_stale``
        (also when ``seat`` is not an AI player), ``err.level_same`` (already that level: a
        double click), ``err.level_not_offered`` (a level the server does not offer)."""
        check_level(level)
        if level not in await self.offered_levels(table_id):
            raise ServiceError("err.level_not_offered", level=level)

        def change(row: TableRow, seats: list[SeatRow]) -> list[SeatRow]:
            if (expect is not None and lobby_tag(seats) != expect) or not (0 <= seat < len(seats)) \
                    or not seats[seat].is_ai:
                raise ServiceError("err.level_stale")
            if seats[seat].level == level:
                raise ServiceError("err.level_same", name=seats[seat].name, level=level)
            return [replace(s, ai_level=level) if s.seat == seat else s for s in seats]
        return await self._edit(table_id, user_id, change, host_only=True)

    async def remove_ai(self, table_id: int, user_id: int) -> TableSnapshot:
        """The host removes the last AI player. Raises ``err.host_only``/``err.no_ai``."""
        def change(row: TableRow, seats: list[SeatRow]) -> list[SeatRow]:
            ai = [i for i, s in enumerate(seats) if s.is_ai]
            if not ai:
                raise ServiceError("err.no_ai")
            return seats[:ai[-1]] + seats[ai[-1] + 1:]
        return await self._edit(table_id, user_id, change, host_only=True)

    async def set_option(self, table_id: int, user_id: int, name: str, value: Any) -> TableSnapshot:
        """The host sets a table option (validated by the game's options model).

        The option ``deck`` names one of the guild's custom decks (or ``"default"``); its cards
        are copied into the game when it starts. Raises ``err.host_only``, ``err.bad_option``,
        ``err.no_deck``.
        """
        hall = self.hall
        async with hall.lock(table_id):
            row = await hall.row(table_id)
            self._check_lobby(row)
            if user_id != row.host_user_id:
                raise ServiceError("err.host_only")
            if name == "deck" and value not in (None, "default"):
                await self.decks.require(row.guild_id, value)
            opts = self._validate_options(row.game, {**row.options, name: value})
            await hall.db.update_table(table_id, hall.clock.now(), options=opts)
            view = await hall.table(table_id)
        await notify(hall.notifier.lobby_changed, view)
        return view

    async def set_pace(self, table_id: int, user_id: int, pace: str) -> TableSnapshot:
        """The host sets the lobby's pace (one of :data:`storage.base.PACES`; see
        :mod:`bot.paces`). Raises ``err.host_only``, ``err.table_not_lobby``, ``err.bad_option``."""
        if pace not in PACES:
            raise ServiceError("err.bad_option", detail=str(pace)[:20])
        hall = self.hall
        async with hall.lock(table_id):
            row = await hall.row(table_id)
            self._check_lobby(row)
            if user_id != row.host_user_id:
                raise ServiceError("err.host_only")
            await hall.db.update_table(table_id, hall.clock.now(), pace=pace)
            view = await hall.table(table_id)
        await notify(hall.notifier.lobby_changed, view)
        return view

    # ------------------------------------------------------------------ start, cancel, close
    async def start(self, table_id: int, user_id: int, *, fill_with_ai: bool = False, ai_name: str = "AI") -> TableSnapshot:
        """The host starts the game. Raises ``err.host_only``, ``err.not_enough_players``.

        With ``fill_with_ai``, empty seats up to the game's minimum are filled with AI players.
        The table records the game's ``rules_version`` (see :meth:`bot.tables.Tables.replay`)
        and runs from then on (:meth:`bot.tables.Tables.begin`).
        """
        hall = self.hall
        db = hall.db
        async with hall.lock(table_id):
            row = await hall.row(table_id)
            self._check_lobby(row)
            if user_id != row.host_user_id:
                raise ServiceError("err.host_only")
            game = GAMES[row.game].game
            seats = await db.seats(table_id)
            if fill_with_ai:
                while len(seats) < game.min_players:
                    n = sum(1 for s in seats if s.is_ai) + 1
                    seats.append(SeatRow(len(seats), None, f"{ai_name} {n}", True))
                await db.replace_seats(table_id, seats)
            if not game.min_players <= len(seats) <= game.max_players:
                raise ServiceError("err.players_exact" if game.min_players == game.max_players else "err.not_enough_players",
                                   min=game.min_players, max=game.max_players)
            options = await self.decks.setup_options(row)
            seed = self.seed_source()
            try:
                state = game.setup(seed, len(seats), options)
            except (ValueError, ValidationError) as exc:
                log.warning("table %s could not start: %s", table_id, exc)
                raise ServiceError("err.bad_option", detail="") from None
            now = hall.clock.now()
            # a custom deck's cards are stored with the table: it replays after the deck is gone
            stored = {**row.options, "deck_data": options["deck_data"]} if options.get("deck_data") else row.options
            async with db.transaction():
                if not await db.update_table(table_id, now, expect_status="lobby", status="running", seed=seed,
                                             state=game.dump_state(state), version=state.version,
                                             rules_version=game.rules_version, options=stored):
                    raise ServiceError("err.table_not_lobby")  # another process started or closed it
                await self.tables.begin(table_id, seats, game, state, now, row.pace)
                await hall.timers.cancel(lobby_key(table_id))
            row = await hall.row(table_id)
            view = hall.keep(LiveTable(replace(row, state=None), seats, state, {})).snapshot()
        await notify(hall.notifier.table_started, view)
        self.tables.nudge(table_id)
        return view

    async def cancel(self, table_id: int, user_id: int, is_admin: bool = False, *, quiet: bool = False) -> TableSnapshot:
        """Host (or admin) cancels a lobby (its expiry timer removed). Raises ``err.host_only``,
        ``err.table_not_lobby``/``err.lobby_expired``. ``quiet``: no ``lobby_changed`` call
        (the caller tells the notifier itself)."""
        hall = self.hall
        async with hall.lock(table_id):
            row = await hall.row(table_id)
            self._check_lobby(row)
            if user_id != row.host_user_id and not is_admin:
                raise ServiceError("err.host_only")
            async with hall.db.transaction():
                if not await hall.db.update_table(table_id, hall.clock.now(), expect_status="lobby", status="abandoned"):
                    raise ServiceError("err.table_not_lobby")  # another process started or closed it
                await hall.timers.cancel(lobby_key(table_id))
            view = await hall.table(table_id)
        hall.forget(table_id)
        if not quiet:
            await notify(hall.notifier.lobby_changed, view)
        return view

    async def close_table(self, table_id: int, user_id: int | None, is_admin: bool = False) -> TableSnapshot:
        """``/table abandon``: cancel a lobby (:meth:`cancel`) or abandon a running table
        (:meth:`bot.tables.Tables.abandon`), by its host or an admin.

        Raises ``err.no_table``, ``err.host_or_admin``, ``err.table_not_running`` (finished)."""
        row = await self.hall.row(table_id)
        if user_id is not None and user_id != row.host_user_id and not is_admin:
            raise ServiceError("err.host_or_admin")
        if row.status == "lobby":
            return await self.cancel(table_id, user_id or row.host_user_id, True)
        return await self.tables.abandon(table_id, user_id, is_admin)

    # ------------------------------------------------------------------ rematch
    async def rematch(self, table_id: int, user_id: int, parent_id: int | None = None) -> TableSnapshot:
        """A new lobby after a finished table: same game, channel, host, options (a custom deck
        by its id) and seats (members may leave it; the host starts it as usual). Any seated
        member may ask. ``parent_id``: the channel of the thread the table was opened in, when
        it was (the server's channels for ``/play`` count it, as :meth:`open` does). Raises
        ``err.not_seated``, ``err.not_finished``, ``err.lobby_exists``
        (``table``: the host's open lobby in that channel). Rematches of one table are
        serialised by its lock: of two members asking at once, the second gets
        ``err.lobby_exists`` with the first one's lobby."""
        hall = self.hall
        async with hall.lock(table_id):
            row = await hall.row(table_id)
            seats = await hall.db.seats(table_id)
            if not any(s.user_id == user_id for s in seats):
                raise ServiceError("err.not_seated")
            if row.status != "finished":
                raise ServiceError("err.not_finished")
            existing = await hall.db.open_lobby_of(row.guild_id, row.channel_id, row.host_user_id)
            if existing is not None:
                raise ServiceError("err.lobby_exists", table=existing.id)
            options = {k: v for k, v in row.options.items() if k != "deck_data"}
            host_name = next((s.name for s in seats if s.user_id == row.host_user_id), "")
            lobby = await self.open(guild_id=row.guild_id, channel_id=row.channel_id, game=row.game,
                                    host_user_id=row.host_user_id, host_name=host_name, lang=row.lang,
                                    options=options, parent_id=parent_id)
            if row.pace is not None and row.pace != lobby.row.pace:  # a rematch keeps its table's pace
                await hall.db.update_table(lobby.id, hall.clock.now(), pace=row.pace)
            await hall.db.replace_seats(lobby.id, [SeatRow(i, s.user_id, s.name, s.is_ai, ai_level=s.ai_level)
                                                   for i, s in enumerate(seats)])
        return await hall.table(lobby.id)
