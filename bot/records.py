"""Read-only queries of what the tables recorded: the leaderboard of a season and a member's
stats per season, a table's events, the open tables of a guild or of a thread or channel, and a
member's own tables (``/table mine``).

Nothing here changes a table. Events are returned with every audience: the caller filters them
before showing (``Event.audience``).
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.games import GAMES
from bot.guilds import Guilds
from bot.seasons import Seasons
from bot.service import Hall, ServiceError, event_from
from bot.table import TableSnapshot
from bot.timers import turn_key
from engine.core import Event
from storage.base import RatingRow, SeasonRecord, SeasonRow

__all__ = ["MyTable", "Records"]


@dataclass(frozen=True)
class MyTable:
    """One of a member's tables (``/table mine``): ``waiting`` when the table waits for them
    now, ``deadline`` the end of the current turn (UNIX seconds; ``None`` without a timer)."""

    table: TableSnapshot
    waiting: bool
    deadline: float | None


class Records:
    """What the store recorded, read for the UI.

    Args:
        hall: the tables' shared state (the store; tables are read through its cache).
        leaderboard_min_games: games a member must have played to appear on the leaderboard,
            for a server that set none (``/settings``).
        guilds: the servers' settings; seasons: their seasons (made over ``hall`` when not given).
    """

    def __init__(self, hall: Hall, *, leaderboard_min_games: int = 3, guilds: Guilds | None = None,
                 seasons: Seasons | None = None) -> None:
        self.hall = hall
        self.leaderboard_min_games = leaderboard_min_games
        self.guilds = guilds or Guilds(hall)
        self.seasons = seasons or Seasons(hall, self.guilds)

    async def min_games(self, guild_id: int) -> int:
        """Games a member of the server must have finished to appear on its leaderboards."""
        return (await self.guilds.settings(guild_id)).ranked_after(self.leaderboard_min_games)

    async def leaderboard(self, guild_id: int, game: str, limit: int = 10, *,
                          season: int | None = None) -> list[RatingRow]:
        """Top members of ``season`` (the current one by default) by ordinal with at least
        :meth:`min_games` games. Raises ``err.unknown_game``."""
        if game not in GAMES:
            raise ServiceError("err.unknown_game", game=game)
        if season is None:
            season = (await self.seasons.current(guild_id, game)).season
        return await self.hall.db.leaderboard(guild_id, game, await self.min_games(guild_id), limit, season=season)

    async def season_board(self, guild_id: int, game: str, season: str | None = None,
                           limit: int = 10) -> tuple[SeasonRow, bool, list[RatingRow]]:
        """``/leaderboard``: the season named ``season`` (its name or number; the current one
        when ``None``), whether it is the current one, and its top members. Raises
        ``err.unknown_game``, ``err.no_season``."""
        if game not in GAMES:
            raise ServiceError("err.unknown_game", game=game)
        found = await self.seasons.find(guild_id, game, season)
        current = (await self.hall.db.seasons(guild_id, game))[-1]
        return found, found.season == current.season, await self.leaderboard(guild_id, game, limit,
                                                                            season=found.season)

    async def stats(self, guild_id: int, user_id: int) -> dict[str, RatingRow]:
        """A member's stats per game (each game's current season)."""
        return await self.hall.db.member_stats(guild_id, user_id)

    async def season_stats(self, guild_id: int, user_id: int) -> list[SeasonRecord]:
        """A member's record in every season of every game, by game then season (``/stats``)."""
        return await self.hall.db.member_seasons(guild_id, user_id)

    async def mine(self, guild_id: int, user_id: int) -> list[MyTable]:
        """``/table mine``: a member's running tables and open lobbies in a server: those
        waiting for them first (the nearest deadline first), then their other running tables
        (by deadline, then age), then their lobbies. Raises ``err.not_owned``."""
        hall = self.hall
        hall.check_owned(guild_id)
        found = []
        for row in await hall.db.member_tables(guild_id, user_id):
            table = await hall.table(row.id)
            seat = table.seat_of(user_id)
            waiting = seat is not None and seat in table.waiting_for()
            timer = hall.timers.get(turn_key(row.id)) if row.status == "running" else None
            deadline = float(timer.payload["act_at"]) if timer is not None and "act_at" in timer.payload else None
            found.append(MyTable(table, waiting, deadline))
        found.sort(key=lambda m: (not m.waiting, m.table.row.status != "running",
                                  m.deadline if m.deadline is not None else float("inf"), m.table.id))
        return found

    async def recent_events(self, table_id: int, limit: int = 30) -> list[Event]:
        """The last ``limit`` events of a table (all audiences; filter before showing): see
        :meth:`bot.service.Hall.recent_events`."""
        return await self.hall.recent_events(table_id, limit)

    async def all_events(self, table_id: int) -> list[Event]:
        """Every event of a table, in order (all audiences: filter before showing)."""
        return [event_from(d) for d in await self.hall.db.all_events(table_id)]

    async def guild_tables(self, guild_id: int) -> list[TableSnapshot]:
        """A guild's open lobbies and running tables, oldest first (``/table list``). Raises
        ``err.not_owned`` for a guild of another process's shards."""
        hall = self.hall
        hall.check_owned(guild_id)
        return [await hall.table(row.id) for row in await hall.db.guild_tables(guild_id)]

    async def tables_in(self, place_id: int) -> list[TableSnapshot]:
        """Open lobbies and running tables whose thread or channel is ``place_id`` (this
        process's only)."""
        hall = self.hall
        return [await hall.table(row.id) for row in await hall.db.tables_in_place(place_id) if hall.owns(row.guild_id)]
