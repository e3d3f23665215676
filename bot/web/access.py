"""What the web pages read of a server beyond its tables: whether its pages exist and are
public, its secret, its seasons and a member's rating over time.

A thin adapter, the one place the pages ask: the server's own settings (``/settings``:
``guild_settings``: ``web`` = ``"off"``, ``"private"`` or ``"public"``, ``web_secret``), its
``seasons`` and the stored ``rating_history``. A server that never saved its settings gets the
process defaults (private pages, public with ``WEB_PUBLIC=true``, under ``WEB_SECRET``); a
member's history with no stored points (results older than the history, not replayed yet) is
replayed from the results in order with the bot's rating model (:mod:`bot.ratings`: openskill,
AI seats at their level's fixed rating).
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace

from bot.ratings import DEFAULT_MU, DEFAULT_SIGMA, Rated, ai_rating, rate
from bot.seasons import rollover_due
from storage.base import RatingRow, ResultRow, SeasonRow, Store, Web

__all__ = ["GuildWeb", "RatingHistory", "Season", "WebDefaults", "guild_web", "leaderboard", "link_key", "rated_results",
           "replay_ratings", "seasons"]

WebMode = Web


@dataclass(frozen=True)
class WebDefaults:
    """The process's defaults (``WEB_PUBLIC``, ``WEB_SECRET``)."""

    public: bool = False
    secret: str = ""

    @property
    def mode(self) -> WebMode:
        """The pages of a server that never saved its settings: public with ``WEB_PUBLIC``,
        else private (links signed with :attr:`secret`)."""
        return "public" if self.public else "private"


@dataclass(frozen=True)
class GuildWeb:
    """A server's pages: ``mode`` (``off``: no page exists; ``private``: only with the key of
    :func:`bot.web.links.guild_key` under ``secret``; ``public``) and its ``secret``."""

    mode: WebMode
    secret: str


async def guild_web(db: Store, guild_id: int, defaults: WebDefaults) -> GuildWeb:
    """The server's web mode and secret (``/settings``: :meth:`Store.guild_settings`); a server
    that never saved its settings gets the process defaults (``WEB_PUBLIC``, ``WEB_SECRET``),
    and a private server without a secret of its own the process's."""
    settings = await db.guild_settings(guild_id)
    if not settings.saved:
        return GuildWeb(defaults.mode, defaults.secret)
    return GuildWeb(settings.web, settings.web_secret or defaults.secret)


async def link_key(db: Store, guild_id: int, defaults: WebDefaults) -> tuple[bool, str | None]:
    """Whether the server has pages, and the key its links carry (``None`` when public)."""
    from bot.web.links import guild_key

    gw = await guild_web(db, guild_id, defaults)
    if gw.mode == "off" or (gw.mode == "private" and not gw.secret):
        return False, None
    return True, guild_key(gw.secret, guild_id) if gw.mode == "private" else None


@dataclass(frozen=True)
class Season:
    """A season of a server's game: its ``number`` (1 = the first), ``name`` and whether it is
    the ``current`` one; not ``started``: the month's season of a server with monthly seasons,
    due but not begun yet (it begins at the month's first result or leaderboard in Discord), so
    nobody is ranked in it."""

    number: int
    name: str
    current: bool
    started: bool = True


async def seasons(db: Store, guild_id: int, game: str, now: float) -> list[Season]:
    """The server's seasons of ``game`` (:meth:`Store.seasons`), oldest first, the current one
    (the one not ended) last. When the monthly roll-over is due at ``now`` (UNIX s;
    :func:`bot.seasons.rollover_due`) the pages show what the bot will: the stored current
    season ended and the month's season current, not started (the pages write nothing)."""
    found = await db.seasons(guild_id, game) or [SeasonRow(1)]
    out = sorted((Season(s.season, s.name or "", s.ended_at is None) for s in found), key=lambda s: (s.current, s.number))
    due = await rollover_due(db, found, await db.guild_settings(guild_id), now) if found[-1].ended_at is None else None
    if due is not None:
        out = [replace(s, current=False) for s in out]
        out.append(Season(max(s.number for s in out) + 1, due, True, started=False))
    return out


async def leaderboard(db: Store, guild_id: int, game: str, season: Season, min_games: int, limit: int,
                      offset: int) -> tuple[int, list[RatingRow]]:
    """One page of a season's leaderboard and how many members it ranks (a past season's
    ratings are its final standings; a season not started ranks nobody)."""
    if not season.started:
        return 0, []
    return await db.leaderboard_page(guild_id, game, min_games, limit, offset,
                                     season=None if season.current else season.number)


def rated_results(results: Iterable[ResultRow]) -> Iterator[tuple[ResultRow, int, float, float, bool]]:
    """Each member's rating after each of their games, ``(result, user_id, mu, sigma, won)``,
    from ``results`` of one server's game, oldest first, rated as the bot rates a finishing
    table (:func:`bot.ratings.rate`; an AI seat at its level's fixed rating)."""
    current: dict[int, tuple[float, float]] = {}
    for result in results:
        seats = result.seats
        if len(seats) < 2:
            continue
        rated = [Rated(s.user_id, *current.get(s.user_id, (DEFAULT_MU, DEFAULT_SIGMA))) if s.user_id is not None
                 else ai_rating(s.ai_level or "normal") for s in seats]
        for s, (mu, sigma) in zip(seats, rate(rated, [s.rank for s in seats]), strict=True):
            if s.user_id is not None:
                current[s.user_id] = (mu, sigma)
                yield result, s.user_id, mu, sigma, s.rank == 1


def replay_ratings(results: Iterable[ResultRow]) -> dict[int, list[tuple[float, float]]]:
    """Each member's rating over time, ``{user_id: [(finished_at, ordinal)]}``, from the
    results of one server's game, oldest first (:func:`rated_results`)."""
    history: dict[int, list[tuple[float, float]]] = {}
    for result, user_id, mu, sigma, _ in rated_results(results):
        history.setdefault(user_id, []).append((result.finished_at, mu - 3 * sigma))
    return history


class RatingHistory:
    """Members' ratings over time, per server and game, computed once per new result
    (``size`` servers' games kept, least recently used dropped)."""

    def __init__(self, size: int = 256) -> None:
        self.size = size
        self._cache: OrderedDict[tuple[int, str], tuple[tuple[int, int], dict[int, list[tuple[float, float]]]]] = (
            OrderedDict())

    async def of(self, db: Store, guild_id: int, game: str, user_id: int, season: int | None = None
                 ) -> list[tuple[float, float]]:
        """``[(finished_at, ordinal)]`` of ``user_id``'s games of ``game`` in the server, oldest
        first (``season``: the store's seasons, when it keeps them)."""
        points = await db.rating_history(guild_id, game, user_id, season)
        if points:
            return [(p.rated_at, p.ordinal) for p in points]
        if season is not None:
            return []
        key = (guild_id, game)
        mark = await db.results_mark(guild_id, game)
        hit = self._cache.get(key)
        if hit is None or hit[0] != mark:
            results = await db.guild_results(guild_id, game)
            hit = (mark, await asyncio.to_thread(replay_ratings, results))
            self._cache[key] = hit
            while len(self._cache) > self.size:
                self._cache.popitem(last=False)
        self._cache.move_to_end(key)
        return hit[1].get(user_id, [])
