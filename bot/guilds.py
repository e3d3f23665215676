"""Each server's own settings (``/settings``): read when a lobby opens, cached, changed by its
admins, logged with who changed them, forgotten when the bot leaves the server.

What is stored is :class:`storage.base.GuildSettings`, where ``None`` means "the bot's default";
:class:`Guilds` resolves it over the bot's environment (:class:`Defaults`) into a
:class:`Community`, the values in force. Settings never change a running table: a table keeps
the pace it was opened with, and a lobby reads the settings when it opens.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from dataclasses import dataclass, fields, replace
from typing import Any

from bot.ai_pool import LEVELS
from bot.games import GAMES
from bot.service import Hall, ServiceError
from storage.base import PACES, WEB_MODES, GuildSettings, Pace, Web, dumps

__all__ = ["CHANGEABLE", "MIN_GAMES", "Community", "Defaults", "Guilds", "new_secret"]

log = logging.getLogger(__name__)

#: The fields of :class:`storage.base.GuildSettings` an admin changes through :meth:`Guilds.change`
#: (the web secret is made by :meth:`Guilds.rotate_secret`).
CHANGEABLE = ("games", "channels", "pace", "min_games", "pictures", "ai_levels", "monthly_seasons", "web")
#: The most channels a server may name for ``/play`` (Discord's channel select allows 25).
MAX_CHANNELS = 25
#: The range of a server's minimum of finished games to appear on its leaderboards.
MIN_GAMES = (1, 1000)


def new_secret() -> str:
    """A new secret for a server's signed web links: 32 random bytes, URL-safe base64 (43 characters)."""
    return secrets.token_urlsafe(32)


@dataclass(frozen=True, slots=True)
class Defaults:
    """The bot's own values (its environment), in force for a server that set nothing;
    ``games`` ``None`` is every registered game."""

    games: tuple[str, ...] | None = None
    pace: Pace = "normal"
    min_games: int = 3
    pictures: bool = True
    ai_levels: tuple[str, ...] = LEVELS
    #: the web pages of a server that never saved its settings (:attr:`bot.web.access.WebDefaults.mode`,
    #: ``"off"`` when the bot neither serves nor links pages: no ``WEB_PORT``, no ``WEB_BASE_URL``)
    web: Web = "off"


@dataclass(frozen=True, slots=True)
class Community:
    """A server's settings in force: its own where it set them, the bot's :class:`Defaults`
    elsewhere. ``channels`` is ``None`` when ``/play`` may open a lobby in every channel.
    ``pictures``: whether its tables show pictures (never when the bot draws none: ``PICTURES``
    off, ``bot_pictures`` false). ``stored`` is what the server saved
    (:class:`storage.base.GuildSettings`)."""

    guild_id: int
    games: tuple[str, ...]
    channels: tuple[int, ...] | None
    pace: Pace
    min_games: int
    pictures: bool
    ai_levels: tuple[str, ...]
    monthly_seasons: bool
    web: Web
    stored: GuildSettings
    bot_pictures: bool = True

    def check_play(self, game: str, channel_ids: tuple[int, ...]) -> None:
        """Refuse a lobby of ``game`` opened in a channel (``channel_ids``: the channel, and the
        parent channel of a thread) the server does not allow: ``err.game_not_enabled`` (a game it
        does not offer; ``game`` is its key, shown as its name by :func:`bot.compose.refusal`), ``err.channel_not_allowed`` (naming the allowed channels)."""
        if game not in self.games:
            raise ServiceError("err.game_not_enabled", game=game)
        if self.channels is not None and not set(channel_ids) & set(self.channels):
            raise ServiceError("err.channel_not_allowed", channels=", ".join(f"<#{c}>" for c in self.channels))


class Guilds:
    """Every server's settings, read through a cache (one store read per server and process).

    Args:
        hall: the store and the clock.
        defaults: the bot's own values (:class:`Defaults`).
    """

    def __init__(self, hall: Hall, defaults: Defaults | None = None) -> None:
        self.hall = hall
        self.defaults = defaults or Defaults()
        self._cache: dict[int, GuildSettings] = {}
        self._loading: set[asyncio.Task[GuildSettings]] = set()
        self._writing: dict[int, asyncio.Lock] = {}  # one change of a server's settings at a time

    async def settings(self, guild_id: int) -> GuildSettings:
        """What a server saved (cached; a read that ends after a write of this process keeps
        the written value)."""
        found = self._cache.get(guild_id)
        if found is None:
            loaded = await self.hall.db.guild_settings(guild_id)
            found = self._cache.setdefault(guild_id, loaded)
        return found

    async def community(self, guild_id: int) -> Community:
        """A server's settings in force (see :class:`Community`)."""
        return self.resolve(await self.settings(guild_id))

    def cached(self, guild_id: int) -> Community | None:
        """A server's settings in force when already read by this process, else ``None``
        (synchronous readers: a picture switch)."""
        found = self._cache.get(guild_id)
        return None if found is None else self.resolve(found)

    def pictures_on(self, guild_id: int) -> bool:
        """Whether the server shows pictures, read synchronously (a picture being drawn): from
        the cache; a server not read yet by this process counts as the bot's default while its
        settings are read in the background (the next board reads them)."""
        found = self._cache.get(guild_id)
        if found is None:
            task = asyncio.get_running_loop().create_task(self.settings(guild_id))
            self._loading.add(task)
            task.add_done_callback(self._loading.discard)
            return self.defaults.pictures
        return self._pictures(found)

    def _pictures(self, s: GuildSettings) -> bool:
        """Whether the server's tables show pictures: its own choice, when the bot draws any."""
        return self.defaults.pictures and (s.pictures is None or s.pictures)

    def resolve(self, s: GuildSettings) -> Community:
        """``s`` over the bot's defaults; a game or level no longer known is left out."""
        d = self.defaults
        default_games = tuple(GAMES) if d.games is None else tuple(g for g in GAMES if g in d.games)
        games = default_games if s.games is None else tuple(g for g in GAMES if g in s.games)
        levels = d.ai_levels if s.ai_levels is None else tuple(lv for lv in LEVELS if lv in s.ai_levels) or d.ai_levels
        return Community(
            guild_id=s.guild_id, games=games, channels=s.channels, pace=s.pace or d.pace,
            min_games=s.ranked_after(d.min_games),
            pictures=self._pictures(s), ai_levels=levels,
            monthly_seasons=s.monthly_seasons, web=s.web if s.saved else d.web, stored=s, bot_pictures=d.pictures)

    async def change(self, guild_id: int, user_id: int, **changes: Any) -> Community:
        """An admin changes settings (the caller checked the permission): each keyword one of
        :data:`CHANGEABLE`, ``None`` = back to the bot's default. Stored with who and when,
        each changed field logged (the store's log and this module's logger). A running table
        is not affected. Raises ``err.bad_setting`` for an unknown field or a bad value. Changes
        of one server are made one at a time (two admins at once: both stay)."""
        values = {name: self._check(name, value) for name, value in changes.items()}
        async with self._write_lock(guild_id):
            current = await self._to_write(guild_id)
            changed = {name: (None if value is None else dumps(list(value) if isinstance(value, tuple) else value))
                       for name, value in values.items() if getattr(current, name) != value}
            if not changed:
                return self.resolve(current)
            new = replace(current, **values, updated_at=self.hall.clock.now(), updated_by=user_id)
            if "web" in changed and new.web != "off" and not new.web_secret:  # pages turned on: a secret of its own
                new = replace(new, web_secret=new_secret(), web_secret_at=new.updated_at)
            await self.hall.db.save_guild_settings(new, changed)
            self._cache[guild_id] = new
        log.info("guild %s: settings %s changed by user %s", guild_id,
                 ", ".join(f"{k}={v}" for k, v in changed.items()), user_id)
        return self.resolve(new)

    async def rotate_secret(self, guild_id: int, user_id: int) -> GuildSettings:
        """Make a new secret for the server's signed web links (every link signed before stops
        working); logged as a change of ``web_secret`` (its value never written to a log)."""
        async with self._write_lock(guild_id):
            current = await self._to_write(guild_id)
            now = self.hall.clock.now()
            new = replace(current, web_secret=new_secret(), web_secret_at=now, updated_at=now, updated_by=user_id)
            await self.hall.db.save_guild_settings(new, {"web_secret": None})
            self._cache[guild_id] = new
        log.info("guild %s: web link secret rotated by user %s", guild_id, user_id)
        return new

    async def _to_write(self, guild_id: int) -> GuildSettings:
        """The stored settings a change starts from: a server that never saved any starts from
        the web pages the bot gave it (:attr:`Defaults.web`), so that its first write keeps them."""
        current = await self.settings(guild_id)
        return current if current.saved else replace(current, web=self.defaults.web)

    async def forget(self, guild_id: int) -> None:
        """The bot left the server: its settings and their log are deleted, and its web pages
        are off (stored as its only setting, unlogged: the bot's default would serve them again)."""
        left = GuildSettings(guild_id, web="off", updated_at=self.hall.clock.now())
        async with self._write_lock(guild_id):
            async with self.hall.db.transaction():  # never a moment without the row (a crash, a read meanwhile)
                await self.hall.db.delete_guild_settings(guild_id)
                await self.hall.db.save_guild_settings(left, {})
            self._cache[guild_id] = left

    def _write_lock(self, guild_id: int) -> asyncio.Lock:
        """The lock a change of the server's settings holds (its read, change and write)."""
        return self._writing.setdefault(guild_id, asyncio.Lock())

    def _check(self, name: str, value: Any) -> Any:
        """The stored form of a changed field, or ``err.bad_setting`` (``err.min_games`` for a
        minimum of games out of :data:`MIN_GAMES`)."""
        if name not in CHANGEABLE:
            raise ServiceError("err.bad_setting", name=str(name)[:30])
        if value is None:
            if name in ("monthly_seasons", "web"):
                return {f.name: f.default for f in fields(GuildSettings)}[name]
            return None
        ok: Any = None
        if name == "games" and isinstance(value, (list, tuple)) and value and all(g in GAMES for g in value):
            ok = tuple(g for g in GAMES if g in value)
        elif name == "ai_levels" and isinstance(value, (list, tuple)) and value and all(v in LEVELS for v in value):
            ok = tuple(lv for lv in LEVELS if lv in value)
        elif name == "channels" and isinstance(value, (list, tuple)) and 0 < len(value) <= MAX_CHANNELS:
            ok = tuple(dict.fromkeys(int(c) for c in value))
        elif name == "pace" and value in PACES:
            ok = value
        elif name == "min_games":
            if not (isinstance(value, int) and not isinstance(value, bool) and MIN_GAMES[0] <= value <= MIN_GAMES[1]):
                raise ServiceError("err.min_games", min=MIN_GAMES[0], max=MIN_GAMES[1])
            ok = value
        elif name in ("pictures", "monthly_seasons") and isinstance(value, bool):
            ok = value
        elif name == "web" and value in WEB_MODES:
            ok = value
        if ok is None:
            raise ServiceError("err.bad_setting", name=name)
        return ok
