"""The Discord client: resources injected in the constructor, cogs loaded in ``setup_hook``.

Nothing happens at import time. ``python -m bot`` builds a :class:`SpeakeasyBot` from the
settings and runs it; tests build one around a temporary database and the fake transport.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Callable

import discord
from discord import app_commands
from discord.ext import commands

from bot.i18n import catalog
from bot.service import Clock, TableService
from bot.settings import Settings
from storage.db import Database

log = logging.getLogger(__name__)

EXTENSIONS: tuple[str, ...] = ("cogs.tables", "cogs.info", "cogs.decks")

#: Permissions the bot needs in the channels where tables are played (see README).
REQUIRED_PERMISSIONS = discord.Permissions(
    view_channel=True, send_messages=True, embed_links=True, read_message_history=True,
    create_public_threads=True, send_messages_in_threads=True, attach_files=True,
)


class CommandTranslator(app_commands.Translator):
    """Localises slash-command names, descriptions and choices from the i18n catalogs (French)."""

    async def translate(self, string: app_commands.locale_str, locale: discord.Locale, context) -> str | None:
        """The French text of ``string``'s catalog key (``None``: keep the English default)."""
        key = string.extras.get("key")
        if not key:
            return None
        lang = str(locale.value).split("-")[0]
        if lang == "en":
            return None  # English is the default text
        return catalog(lang).get(key) if lang in ("fr",) else None


class SpeakeasyBot(commands.Bot):
    """Speakeasy. Attributes after ``setup_hook``: ``db``, ``service``.

    Args:
        settings: runtime settings.
        db: an already open database (tests); otherwise ``settings.database_path`` is opened.
        clock / seed_source: injected into the TableService (tests).
        sync_commands: sync the command tree on start (guild-only when ``dev_guild_id`` is set).
    """

    def __init__(self, settings: Settings, *, db: Database | None = None, clock: Clock | None = None,
                 seed_source: Callable[[], int] | None = None, sync_commands: bool = True) -> None:
        # Speakeasy never uses voice: no warning about voice libraries at start-up
        discord.VoiceClient.warn_nacl = discord.VoiceClient.warn_dave = False
        super().__init__(command_prefix=commands.when_mentioned, intents=discord.Intents.default(), help_command=None,
                         allowed_mentions=discord.AllowedMentions(everyone=False, roles=False, users=True))
        self.settings = settings
        self._given_db = db
        self._clock = clock
        self._seed_source = seed_source
        self._sync = sync_commands
        self.db: Database = db  # type: ignore[assignment]
        self.service: TableService = None  # type: ignore[assignment]

    async def setup_hook(self) -> None:
        """Open the database, build the service, load cogs, sync commands, resume tables."""
        if self.db is None:
            self.db = await Database.open(self.settings.database_path)
        self.service = TableService(
            self.db, clock=self._clock, turn_timeout=self.settings.turn_timeout_seconds,
            reminder_fraction=self.settings.reminder_fraction, ai_delay=self.settings.ai_delay_seconds,
            seed_source=self._seed_source, leaderboard_min_games=self.settings.leaderboard_min_games,
        )
        await self.tree.set_translator(CommandTranslator())
        for ext in EXTENSIONS:
            await self.load_extension(ext)
        if self._sync:
            if self.settings.dev_guild_id:
                guild = discord.Object(id=self.settings.dev_guild_id)
                self.tree.copy_global_to(guild=guild)
                await self.tree.sync(guild=guild)
            else:
                await self.tree.sync()
        resumed = await self.service.resume()
        if resumed:
            log.info("resumed %d running table(s)", len(resumed))
        self.service.start_timers()

    async def on_ready(self) -> None:
        log.info("logged in as %s (%s) in %d guild(s)", self.user, getattr(self.user, "id", "?"), len(self.guilds))

    async def close(self) -> None:
        """Stop the service, close the connection, close the database we opened."""
        if self.service is not None:
            await self.service.close()
        notifier = getattr(self, "notifier", None)
        if notifier is not None:  # the last board edit or results message
            try:
                await asyncio.wait_for(notifier.flush(), timeout=5)
            except (asyncio.TimeoutError, Exception):
                log.warning("some table messages were not sent before closing", exc_info=True)
        await super().close()
        if self._given_db is None and self.db is not None:
            await self.db.close()


def invite_url(client_id: int | str) -> str:
    """The OAuth2 invite link with the ``bot`` and ``applications.commands`` scopes."""
    return discord.utils.oauth_url(int(client_id), permissions=REQUIRED_PERMISSIONS,
                                   scopes=("bot", "applications.commands"))
