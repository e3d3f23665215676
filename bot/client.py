"""The Discord client: resources injected in the constructor, cogs loaded in ``setup_hook``.

The only ``bot`` module that imports discord.py. Nothing happens at import time:
:func:`run` builds a :class:`SpeakeasyBot` from the settings and runs it (``python -m bot``);
tests build one around a temporary database and the offline harness.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import secrets
import signal
import sys
from collections.abc import Callable
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from bot import compose
from bot.ai_pool import AiPool
from bot.decks import Decks
from bot.foreground import Foreground
from bot.guilds import Defaults, Guilds
from bot.house import House
from bot.i18n import Translator, catalog, pick_lang
from bot.lobbies import Lobbies
from bot.records import Records
from bot.seasons import Seasons
from bot.service import Hall, Notifier, ServiceError
from bot.settings import Settings
from bot.tables import Tables
from bot.timers import Clock, Timers
from bot.web.access import WebDefaults
from bot.web.metrics import Metrics, RateLimitLog, guarded
from storage.base import Store, StoreRefused, StoreUnavailable
from storage.factory import open_store, public_url

log = logging.getLogger(__name__)

#: The extension adding one cog per enabled game (:mod:`cogs.games`), loaded first.
GAMES_EXTENSION = "cogs.games"
#: The cogs every deployment loads, after the game cogs: the lobby (``/play`` and the routing of
#: every button) lists the game cogs loaded before it.
SHARED_EXTENSIONS: tuple[str, ...] = ("cogs.lobby", "cogs.info", "cogs.admin", "cogs.community", "cogs.help")


#: With at least this many running tables resumed, the heap is frozen once they are decoded
#: (:meth:`SpeakeasyBot._freeze_heap`); a small bot (and the tests' many small bots) never is.
FREEZE_AFTER_TABLES = 500

#: Permissions the bot needs in the channels where tables are played (see README).
REQUIRED_PERMISSIONS = discord.Permissions(
    view_channel=True, send_messages=True, embed_links=True, read_message_history=True,
    create_public_threads=True, send_messages_in_threads=True, attach_files=True,
)


# ---------------------------------------------------------------------------- replies and errors
def user_t(interaction: discord.Interaction) -> Translator:
    """Translator for the clicking user: their locale, then the guild's, then English."""
    return Translator(pick_lang(str(interaction.locale), str(interaction.guild_locale or "")))


def text_view(text: str) -> discord.ui.LayoutView:
    """A Components V2 layout of one text display (at most 4,000 characters)."""
    view = discord.ui.LayoutView(timeout=None)
    view.add_item(discord.ui.TextDisplay(text[:4000] or "…"))
    return view


#: The key of :attr:`discord.Interaction.extras` set once a deferred response was completed.
FILLED = "speakeasy_filled"


def thinking(interaction: discord.Interaction) -> bool:
    """Whether ``interaction`` was deferred with "thinking" and that response is not completed yet:
    the next answer edits the original response (Discord deprecates completing a defer with a
    follow-up)."""
    return (interaction.response.type is discord.InteractionResponseType.deferred_channel_message
            and not interaction.extras.get(FILLED))


async def answer(interaction: discord.Interaction, **fields: Any) -> None:
    """Send the private answer ``fields`` (a message's fields: ``view``, ``content``, ``embed``,
    ``file``…): as the response; once deferred with "thinking", by editing the original
    response (once); after that, as a follow-up."""
    if not interaction.response.is_done():
        await interaction.response.send_message(ephemeral=True, **fields)
    elif thinking(interaction):
        if "file" in fields:
            fields["attachments"] = [fields.pop("file")]
        await interaction.edit_original_response(**fields)
        interaction.extras[FILLED] = True
    else:
        await interaction.followup.send(ephemeral=True, **fields)


async def reply(interaction: discord.Interaction, content: str | None = None, **kwargs: Any) -> None:
    """Send an ephemeral reply (:func:`answer`): ``content`` as a V2 text message, unless
    ``kwargs`` carry the message's own ``view``."""
    if "view" not in kwargs:
        kwargs = {**kwargs, "view": text_view(content or "")}
        content = None
    await answer(interaction, content=content, embed=None, **kwargs)


async def report_error(interaction: discord.Interaction, error: BaseException) -> None:
    """Answer a failed interaction privately, in the user's language: a :class:`ServiceError`
    as its own text; :class:`storage.base.StoreUnavailable` as ``err.store_down`` (the game
    server is briefly unavailable, the table is safe; the store logs one warning per outage,
    so no traceback here); anything else is logged (with its traceback) and answered with a
    generic text that shows nothing of the error (no hidden information can leak through it)."""
    t = user_t(interaction)
    if isinstance(error, ServiceError):
        text = compose.refusal(error, t)
    elif isinstance(error, StoreUnavailable):
        text = t("err.store_down")
    else:
        log.error("unexpected error in interaction %s", getattr(interaction, "id", "?"), exc_info=error)
        text = t("err.internal")
    try:
        await reply(interaction, text)
    except discord.HTTPException:
        log.warning("could not report an error to the user", exc_info=True)


class SpeakeasyTree(app_commands.CommandTree):
    """The bot's command tree: a failing slash command is answered with a clear ephemeral text.

    A refused check (permissions, guild only) reads "you do not have permission"; a
    :class:`ServiceError` raised by a command reads as its text; anything else is logged and
    answered with the generic text of :func:`report_error`.
    """

    async def on_error(self, interaction: discord.Interaction, error: app_commands.AppCommandError, /) -> None:
        original: BaseException = getattr(error, "original", error)
        if isinstance(error, app_commands.CheckFailure) and not isinstance(original, ServiceError):
            original = ServiceError("err.forbidden")
        await report_error(interaction, original)


class CommandTranslator(app_commands.Translator):
    """Localises slash-command names, descriptions and choices from the i18n catalogs (French)."""

    async def translate(self, string: app_commands.locale_str, locale: discord.Locale,
                        context: app_commands.TranslationContextTypes) -> str | None:
        """The French text of ``string``'s catalog key (``None``: keep the English default)."""
        key = string.extras.get("key")
        if not key:
            return None
        lang = str(locale.value).split("-")[0]
        if lang == "en":
            return None  # English is the default text
        return catalog(lang).get(key) if lang in ("fr",) else None


# ---------------------------------------------------------------------------- the bot
class SpeakeasyBot(commands.AutoShardedBot):
    """Speakeasy. Attributes after ``setup_hook``, the parts of a :class:`bot.house.House` the
    cogs use: ``db``, ``hall`` (reads a table: ``hall.table``), ``lobbies``, ``tables``,
    ``decks``, ``records``, ``communities`` (each server's settings, :class:`bot.guilds.Guilds`),
    ``seasons``, ``foreground`` (the interactions being answered) and ``timers`` (the
    persisted timers); ``notifier`` once the lobby cog is loaded (see :meth:`set_notifier`).

    It runs the shards of ``settings.shards`` (``SHARD_COUNT``/``SHARD_IDS``; one shard when
    unset) with discord.py's ``AutoShardedBot``, and its services own the tables of their guilds.

    Args:
        settings: runtime settings (``enabled_games`` is the games a server offers until its
            admins choose, ``/settings``; every game's cog is loaded).
        db: an already open database (tests); otherwise the store ``settings.store_url`` names is opened.
        clock / seed_source: injected into the services (tests).
        sync_commands: sync the command tree on start (guild-only when ``dev_guild_id`` is set).
        start_workers: start the AI worker processes at boot, in a thread (off the event loop);
            without it they start before the first strong move (tests' many small bots).
    """

    def __init__(self, settings: Settings, *, db: Store | None = None, clock: Clock | None = None,
                 seed_source: Callable[[], int] | None = None, sync_commands: bool = True,
                 start_workers: bool = True) -> None:
        shards = settings.shards
        super().__init__(command_prefix=commands.when_mentioned, intents=discord.Intents.default(), help_command=None,
                         allowed_mentions=discord.AllowedMentions(everyone=False, roles=False, users=True),
                         tree_cls=SpeakeasyTree, shard_count=shards.count, shard_ids=list(shards.ids))
        self.settings = settings
        self._given_db = db
        self._clock = clock
        self._seed_source = seed_source
        self._sync = sync_commands
        self._start_workers = start_workers
        self.db: Store = db  # type: ignore[assignment]  # opened in setup_hook
        # the services, built in setup_hook
        self.hall: Hall = None  # type: ignore[assignment]
        self.lobbies: Lobbies = None  # type: ignore[assignment]
        self.tables: Tables = None  # type: ignore[assignment]
        self.decks: Decks = None  # type: ignore[assignment]
        self.records: Records = None  # type: ignore[assignment]
        self.communities: Guilds = None  # type: ignore[assignment]
        self.seasons: Seasons = None  # type: ignore[assignment]
        self.foreground: Foreground = None  # type: ignore[assignment]
        self.timers: Timers = None  # type: ignore[assignment]
        self.notifier: Notifier | None = None
        self._freezing: asyncio.Task[None] | None = None
        #: the process's metrics (:mod:`bot.web.metrics`), served on ``METRICS_PORT``
        self.metrics = Metrics()
        self.web: Any = None  # web.server.WebServer, on WEB_PORT
        self.metrics_server: Any = None  # web.metrics.MetricsServer, on METRICS_PORT
        #: False from the start of :meth:`close` (SIGTERM): clicks are refused (``err.closing``)
        self.accepting = True
        self._clicking = 0
        self._closing_all: asyncio.Future[None] | None = None

    def extensions_to_load(self) -> list[str]:
        """The game cogs' extension (it adds the ``ENABLED_GAMES``), then the shared ones (the
        lobby lists the game cogs loaded before it)."""
        return [GAMES_EXTENSION, *SHARED_EXTENSIONS]

    def set_notifier(self, notifier: Notifier) -> None:
        """Install the UI side of the services (the lobby cog's Discord notifier)."""
        self.notifier = notifier
        self.hall.notifier = notifier

    async def setup_hook(self) -> None:
        """Open the database, build the services, load cogs, sync commands, resume tables."""
        if self.db is None:
            self.db = await open_store(self.settings.store_url)
        ai_pool = AiPool(self.settings.ai_workers, self.settings.ai_think_seconds, iterations=self.settings.ai_iterations)
        if self._start_workers:
            ai_pool.start()  # in a thread: the first strong move does not wait for the processes
        house = House(
            self.db, clock=self._clock, turn_timeout=self.settings.turn_timeout_seconds,
            reminder_fraction=self.settings.reminder_fraction, ai_delay=self.settings.ai_delay_seconds,
            seed_source=self._seed_source, leaderboard_min_games=self.settings.leaderboard_min_games,
            lobby_timeout=self.settings.lobby_timeout_seconds, shards=self.settings.shards,
            ai_pool=ai_pool,
            defaults=Defaults(games=None if self.settings.enabled_games == "all" else self.settings.games,
                              min_games=self.settings.leaderboard_min_games,
                              pictures=self.settings.pictures,
                              web=WebDefaults(self.settings.web_public).mode
                              if self.settings.web_port is not None or self.settings.web_base_url else "off"),
        )
        self.hall, self.lobbies, self.tables = house.hall, house.lobbies, house.tables
        self.decks, self.records = house.decks, house.records
        self.communities, self.seasons = house.guilds, house.seasons
        self.foreground, self.timers = house.foreground, house.timers
        self._instrument()
        await self._serve()
        await self.tree.set_translator(CommandTranslator())
        for ext in self.extensions_to_load():
            await self.load_extension(ext)
        if self._sync:
            if self.settings.dev_guild_id:
                guild = discord.Object(id=self.settings.dev_guild_id)
                self.tree.copy_global_to(guild=guild)
                await self.tree.sync(guild=guild)
            else:
                await self.tree.sync()
        resumed = await self.tables.resume()
        if resumed:
            log.info("resumed %d running table(s)", len(resumed))
        self.timers.start()
        if len(resumed) >= FREEZE_AFTER_TABLES:
            self._freezing = asyncio.create_task(self._freeze_heap(), name="gc-freeze")

    def _instrument(self) -> None:
        """Metrics on the clicks, steps and Discord's REST answers; clicks refused once closing."""
        from bot.render.workers import Drawer

        metrics = self.metrics
        metrics.instrument(self.tables)
        submit = self.tables.submit

        async def gated(*args: Any, **kwargs: Any) -> Any:
            if not self.accepting:
                raise ServiceError("err.closing")
            self._clicking += 1
            try:
                return await submit(*args, **kwargs)
            finally:
                self._clicking -= 1

        self.tables.submit = gated  # type: ignore[method-assign]
        pool = self.tables.driver.pool
        metrics.watch(self.hall.running, lambda: pool.waiting,
                      lambda: Drawer.busy + (self.web.ctx.replays.drawing if self.web is not None else 0))
        self.http.request = guarded(metrics, self.http.request)  # type: ignore[method-assign, assignment]
        logging.getLogger("discord.http").addHandler(RateLimitLog(metrics))

    async def _serve(self) -> None:
        """Start the web pages (``WEB_PORT``) and the operators' endpoints (``METRICS_PORT``)."""
        settings = self.settings
        if settings.web_port is not None:
            from bot.web.access import RatingHistory
            from bot.web.replay import Replays
            from web.server import RateLimit, WebContext, WebServer

            ctx = WebContext(db=self.db, defaults=WebDefaults(settings.web_public, self.web_secret),
                             replays=Replays(), history=RatingHistory(),
                             min_games=settings.leaderboard_min_games, observe=self.metrics.web_request,
                             clock=self.hall.clock.now)
            self.web = WebServer(ctx, settings.web_host, settings.web_port,
                                 RateLimit(settings.web_rate_per_minute))
            await self.web.start()
            log.info("web pages on %s:%s", settings.web_host, self.web.port)
        if settings.metrics_port is not None:
            from web.metrics import MetricsServer

            self.metrics_server = MetricsServer(self.metrics, self.health, settings.metrics_host, settings.metrics_port)
            await self.metrics_server.start()
            log.info("/healthz and /metrics on %s:%s", settings.metrics_host, self.metrics_server.port)

    @property
    def web_secret(self) -> str:
        """``WEB_SECRET``, or a random one made once per start."""
        if self.settings.web_secret is not None:
            return self.settings.web_secret.get_secret_value()
        made = getattr(self, "_random_secret", None)
        if made is None:
            made = self._random_secret = secrets.token_urlsafe(32)
        return str(made)

    async def health(self) -> dict[str, bool]:
        """``/healthz``'s checks: the store answers, every shard of the process is connected."""
        try:
            await self.db.schema_version()
            store = True
        except Exception:
            log.warning("the store does not answer", exc_info=True)
            store = False
        shards = [not info.is_closed() for info in self.shards.values()] if not self.is_closed() else [False]
        return {"store": store, "shards": bool(shards) and all(shards), "accepting": self.accepting}

    def stop_on_signal(self) -> None:
        """SIGTERM or SIGINT: refuse new clicks now, then close (:meth:`close`)."""
        log.info("stop signal: closing")
        self.accepting = False
        asyncio.get_running_loop().create_task(self.close(), name="sigterm-close")

    async def _freeze_heap(self) -> None:
        """Once every resumed table is decoded, move what the heap holds then (catalogs, cogs,
        thousands of tables) out of the garbage collector's sight (:func:`gc.freeze`): the
        collections that run while members click then traverse only what changed since, not
        the whole heap (a full collection over 10,000 live tables is a pause of milliseconds).
        Tables that end are still freed by reference counting."""
        await self.tables.warmed()
        gc.freeze()
        log.debug("garbage collector: %d objects frozen after the resume", gc.get_freeze_count())

    async def on_ready(self) -> None:
        log.info("logged in as %s (%s) in %d guild(s), shards %s of %s", self.user, getattr(self.user, "id", "?"),
                 len(self.guilds), ",".join(map(str, self.shard_ids or [0])), self.shard_count)

    async def close(self) -> None:
        """Stop the services, flush the last table messages, close the connection and the database
        we opened. Clicks are refused from the start (``err.closing``) and the ones being
        answered finish (their steps are stored) before the services stop; then the web
        servers, the timers, AI drivers and workers, Discord and the store close. Calling it
        again waits for the first call's work."""
        self.accepting = False
        if self._closing_all is None:
            self._closing_all = asyncio.ensure_future(self._close_all())
        await asyncio.shield(self._closing_all)

    async def _close_all(self) -> None:
        for _ in range(200):  # the clicks being answered (at most 10 s)
            if not self._clicking:
                break
            await asyncio.sleep(0.05)
        for server in (self.web, self.metrics_server):
            if server is not None:
                try:
                    await server.stop()
                except Exception:
                    log.warning("a web server did not stop cleanly", exc_info=True)
        if self._freezing is not None and not self._freezing.done():
            self._freezing.cancel()
        if self.tables is not None:
            await self.tables.close()
        flush = getattr(self.notifier, "flush", None)
        if flush is not None:  # the last board edit or results message
            try:
                await asyncio.wait_for(flush(), timeout=5)
            except (TimeoutError, Exception):
                log.warning("some table messages were not sent before closing", exc_info=True)
        await super().close()
        if self._given_db is None and self.db is not None:
            await self.db.close()


def invite_url(client_id: int | str) -> str:
    """The OAuth2 invite link with the ``bot`` and ``applications.commands`` scopes."""
    return discord.utils.oauth_url(int(client_id), permissions=REQUIRED_PERMISSIONS,
                                   scopes=("bot", "applications.commands"))


# ---------------------------------------------------------------------------- running it
def is_network_error(exc: BaseException) -> bool:
    """Whether ``exc`` means Discord could not be reached (no network, DNS, TLS, gateway):
    ``OSError``, timeouts, discord.py's gateway errors, or any aiohttp error (recognised by
    its class's module, so this module does not import aiohttp)."""
    if isinstance(exc, (OSError, TimeoutError, discord.GatewayNotFound, discord.ConnectionClosed)):
        return True
    return any(cls.__module__.split(".")[0] == "aiohttp" for cls in type(exc).__mro__)


def run(settings: Settings, token: str) -> int:
    """Run the bot until it is stopped; the exit status. The store is opened (checked and
    migrated) first; a store that must not be used (:class:`storage.base.StoreRefused`: a schema
    newer than the code, a damaged file), a refused token or an unreachable Discord is
    explained in one line on stderr (status 2) instead of a traceback."""
    # Speakeasy never uses voice: no warning about voice libraries at start-up
    discord.VoiceClient.warn_nacl = discord.VoiceClient.warn_dave = False
    bot = SpeakeasyBot(settings)

    async def start() -> None:  # discord.py's Client.run, with the store opened before Discord is reached
        async with bot:
            bot.db = await open_store(settings.store_url)
            for sig in (signal.SIGTERM, signal.SIGINT):
                asyncio.get_running_loop().add_signal_handler(sig, bot.stop_on_signal)
            await bot.start(token)

    try:
        asyncio.run(start())
    except KeyboardInterrupt:
        return 0
    except StoreRefused as exc:  # a schema newer than the code, a damaged file: one line, no traceback
        name = "DATABASE_URL" if settings.database_url else "DATABASE_PATH"
        print(f"{name}={public_url(settings.store_url)}: {exc}", file=sys.stderr)
        return 2
    except discord.LoginFailure:
        print("Discord refused the token (DISCORD_TOKEN). Copy it again from the Developer Portal.", file=sys.stderr)
        return 2
    except Exception as exc:
        if not is_network_error(exc):
            raise
        print(f"Cannot reach Discord ({exc.__class__.__name__}: {exc}). Check this machine's network access.\n"
              "Without Discord you can still play locally: ./scripts/start.sh play gang-of-dice", file=sys.stderr)
        return 2
    return 0
