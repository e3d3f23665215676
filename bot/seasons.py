"""Seasons of a server's leaderboards, and the rating history.

A server's ratings of a game belong to its current season (:meth:`storage.base.Store.seasons`;
season 1 until an admin starts another, so a server that never does sees its leaderboards as
they always were). ``/season start`` ends the current season of one game or of every game: the
season that ends keeps its ratings as its final standings (``/leaderboard season:`` shows them),
and every member starts the new one fresh. With the server's ``monthly_seasons`` setting a new
season starts by itself at the first result or leaderboard of each calendar month (UTC) after
the current season's start and the setting's own turning on, named ``YYYY-MM`` (``YYYY-MM (2)``
when an admin gave an earlier season that name).

Every rated result stores each member's new rating (``rating_history``, what the web pages
plot); :meth:`Seasons.backfill` fills it in for the results stored before the history existed,
replaying them in the order they finished with the same rating model (:mod:`bot.ratings`).
"""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Sequence
from datetime import UTC, datetime

from bot.games import GAMES
from bot.guilds import Guilds
from bot.ratings import DEFAULT_MU, DEFAULT_SIGMA, Rated, ai_rating, rate
from bot.service import Hall, ServiceError
from storage.base import GuildSettings, PastResult, SeasonRow, Store, dumps

__all__ = ["MAX_NAME", "Seasons", "month_name", "rollover_due"]

log = logging.getLogger(__name__)

#: The longest season name (characters).
MAX_NAME = 40


def month_name(at: float) -> str:
    """The calendar month (UTC) of a UNIX time, as a season's name.

    >>> month_name(0.0)
    '1970-01'
    """
    return datetime.fromtimestamp(at, UTC).strftime("%Y-%m")


async def rollover_due(db: Store, seasons: Sequence[SeasonRow], settings: GuildSettings, now: float) -> str | None:
    """The name of the season due to start by itself at ``now`` (UNIX s) after ``seasons`` (a
    game's, the current one last): its month (:func:`month_name`; "2024-01 (2)" when an admin
    gave an earlier season that name) when the server has monthly seasons and its current
    season, or monthly seasons themselves (turned on later: the settings' log), began in an
    earlier month; else ``None``. A first season (no start) with no log counts from the
    settings' last change."""
    current = seasons[-1]
    if not settings.monthly_seasons:
        return None
    month = month_name(now)
    if current.started_at is not None and month_name(current.started_at) == month:
        return None  # (the common case: no read of the log)
    turned_on = await db.setting_set_at(settings.guild_id, "monthly_seasons", dumps(True))
    starts = [at for at in (current.started_at, turned_on) if at is not None] or [settings.updated_at]
    if month_name(max(starts)) == month:
        return None
    taken = {(s.name or "").casefold() for s in seasons}
    name, n = month, 1
    while name.casefold() in taken:
        n += 1
        name = f"{month} ({n})"
    return name


class Seasons:
    """Seasons of every server's games (see the module docstring).

    Args:
        hall: the store and the clock.
        guilds: the servers' settings (``monthly_seasons``).
    """

    def __init__(self, hall: Hall, guilds: Guilds) -> None:
        self.hall = hall
        self.guilds = guilds

    async def current(self, guild_id: int, game: str) -> SeasonRow:
        """The current season of a server's game, after the monthly roll-over when it is due."""
        seasons = await self.hall.db.seasons(guild_id, game)
        current = seasons[-1]
        community = await self.guilds.community(guild_id)
        now = self.hall.clock.now()
        due = await rollover_due(self.hall.db, seasons, community.stored, now)
        if due is not None:  # one roll-over, whoever else reads the season meanwhile
            started = await self.hall.db.start_season(guild_id, game, due, now, after=current.season)
            if started.season != current.season:
                log.info("guild %s: %s season %s started by itself", guild_id, game, started.season)
            current = started
        return current

    async def all(self, guild_id: int, game: str) -> list[SeasonRow]:
        """Every season of a server's game, oldest first (the current one last)."""
        await self.current(guild_id, game)
        return await self.hall.db.seasons(guild_id, game)

    async def check(self, guild_id: int, games: tuple[str, ...], name: str | None) -> str | None:
        """The name a new season of ``games`` would take (stripped; ``None`` for none), checked:
        raises ``err.unknown_game``, ``err.season_name`` (longer than :data:`MAX_NAME`),
        ``err.season_name_number`` (a number, as ``#2``: seasons are found by number too),
        ``err.season_name_taken`` (the name of an earlier season of one of the games)."""
        name = (name or "").strip() or None
        if name is not None and len(name) > MAX_NAME:
            raise ServiceError("err.season_name", max=MAX_NAME)
        if name is not None and name.lstrip("#").isdecimal():
            raise ServiceError("err.season_name_number", name=name)
        for game in games:
            if game not in GAMES:
                raise ServiceError("err.unknown_game", game=game)
            if name is not None and any((s.name or "").casefold() == name.casefold()
                                        for s in await self.hall.db.seasons(guild_id, game)):
                raise ServiceError("err.season_name_taken", name=name)
        return name

    async def start(self, guild_id: int, games: tuple[str, ...], name: str | None, user_id: int) -> list[SeasonRow]:
        """An admin starts a new season of ``games`` (the caller checked the permission and had
        it confirmed): each game's current season ends with its standings kept; returns the new
        seasons. Raises what :meth:`check` raises."""
        name = await self.check(guild_id, games, name)
        now = self.hall.clock.now()
        started = [await self.hall.db.start_season(guild_id, game, name, now) for game in games]
        log.info("guild %s: new season of %s started by user %s", guild_id, ", ".join(games), user_id)
        return started

    async def find(self, guild_id: int, game: str, wanted: str | None) -> SeasonRow:
        """The season of a server's game ``wanted``: ``#N`` is season N (the autocomplete's
        values); else its name (case ignored; a name an earlier version let look like a number
        wins), else its number; the current one when ``wanted`` is empty. Raises
        ``err.no_season``."""
        seasons = await self.all(guild_id, game)
        text = (wanted or "").strip()
        if not text:
            return seasons[-1]
        if not (text.startswith("#") and text[1:].isdecimal()):
            for s in seasons:
                if (s.name or "").casefold() == text.casefold():
                    return s
        for s in seasons:
            if str(s.season) == text.removeprefix("#"):
                return s
        raise ServiceError("err.no_season", name=text[:MAX_NAME])

    async def backfill(self) -> int:
        """Fill in the rating history of the results stored before it existed: each server's
        game whose results lack it is replayed from fresh ratings in the order its results
        finished (season 1: seasons did not exist then); rows that exist are kept. Returns the
        number of results given history rows."""
        results = await self.hall.db.results_to_replay()
        if not results:
            return 0
        async with self.hall.db.transaction():  # all or nothing: the next start finds what is left
            filled = await self._replay(results)
        log.info("rating history filled in for %d earlier result(s)", filled)
        return filled

    async def _replay(self, results: list[PastResult]) -> int:
        """The backfill's replay and writes (see :meth:`backfill`); the results given rows."""
        ratings: dict[tuple[int, str], dict[int, tuple[float, float]]] = defaultdict(dict)
        filled = 0
        for result in results:
            if len(result.seats) < 2:
                continue
            current = ratings[result.guild_id, result.game]
            seats = [Rated(uid, *current.get(uid, (DEFAULT_MU, DEFAULT_SIGMA))) if uid is not None
                     else ai_rating(level or "normal") for _seat, uid, _rank, level in result.seats]
            new = rate(seats, [rank for _seat, _uid, rank, _level in result.seats])
            points = []
            for (_seat, uid, _rank, _level), (mu, sigma) in zip(result.seats, new, strict=True):
                if uid is not None:
                    current[uid] = (mu, sigma)
                    points.append((uid, mu, sigma))
            if not result.rated and points:
                await self.hall.db.record_rating_history(result.guild_id, result.game, result.table_id, points,
                                                         result.finished_at, season=1)
                filled += 1
        return filled
