"""Read-only queries of what the tables recorded: the leaderboard and a member's stats, a
table's events, and the open tables of a guild or of a thread or channel.

Nothing here changes a table. Events are returned with every audience: the caller filters them
before showing (``Event.audience``).
"""

from __future__ import annotations

from bot.games import GAMES
from bot.service import Hall, ServiceError, event_from
from bot.table import TableSnapshot
from engine.core import Event
from storage.base import RatingRow

__all__ = ["Records"]


class Records:
    """What the store recorded, read for the UI.

    Args:
        hall: the tables' shared state (the store; tables are read through its cache).
        leaderboard_min_games: games a member must have played to appear on the leaderboard.
    """

    def __init__(self, hall: Hall, *, leaderboard_min_games: int = 3) -> None:
        self.hall = hall
        self.leaderboard_min_games = leaderboard_min_games

    async def leaderboard(self, guild_id: int, game: str, limit: int = 10) -> list[RatingRow]:
        """Top members by ordinal with at least :attr:`leaderboard_min_games` games. Raises
        ``err.unknown_game``."""
        if game not in GAMES:
            raise ServiceError("err.unknown_game", game=game)
        return await self.hall.db.leaderboard(guild_id, game, self.leaderboard_min_games, limit)

    async def stats(self, guild_id: int, user_id: int) -> dict[str, RatingRow]:
        """A member's stats per game."""
        return await self.hall.db.member_stats(guild_id, user_id)

    async def recent_events(self, table_id: int, limit: int = 30) -> list[Event]:
        """The last ``limit`` events of a table (all audiences; filter before showing)."""
        return [event_from(d) for d in await self.hall.db.recent_events(table_id, limit)]

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
