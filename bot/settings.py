"""Settings from the environment and ``.env`` (pydantic-settings). Documented in ``.env.example``.

Nothing is read at import time: call :func:`load_settings`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field, SecretStr, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from bot.ai_pool import default_workers
from bot.games import GAMES
from storage.base import Shards
from storage.factory import url_problem

#: Set by ``scripts/start.sh`` to the folder it was started from (it runs the bot from the
#: clone's root, where ``.env`` lives): relative paths given on the command line are taken from
#: there, as the member who typed them expects.
CALLER_DIR_ENV = "SPEAKEASY_CALLER_DIR"


def caller_path(value: str) -> str:
    """A path given on the command line (``--db``, ``--images``, ``--deck``, ``--from``,
    ``--out``), relative to the folder the command was typed in: ``value`` itself when absolute,
    a URL (``sqlite:///…``), or when no :data:`CALLER_DIR_ENV` is set (``python -m bot`` run
    directly), else joined to it.

    >>> import os; os.environ[CALLER_DIR_ENV] = "/home/ann/games"
    >>> caller_path("mine.db"), caller_path("/tmp/x.db"), caller_path("sqlite:///x.db")
    ('/home/ann/games/mine.db', '/tmp/x.db', 'sqlite:///x.db')
    >>> del os.environ[CALLER_DIR_ENV]; caller_path("mine.db")
    'mine.db'
    """
    import os

    if "://" in value:
        return value
    base = os.environ.get(CALLER_DIR_ENV)
    path = Path(value).expanduser()
    if base and not path.is_absolute():
        return str(Path(base) / path)
    return str(path) if value.startswith("~") else value


class Settings(BaseSettings):
    """Every runtime setting of the bot.

    Attributes:
        discord_token: the bot token (Developer Portal → your application → Bot → Reset Token).
        database_url: the store: a SQLite file path or ``sqlite:///path``, or
            ``postgresql://user:pass@host:5432/db`` (several bot processes on one database).
            Unset: :attr:`database_path`. Read the chosen one as :attr:`store_url`.
        database_path: SQLite file (created if missing), used when ``database_url`` is unset.
        dev_guild_id: when set, slash commands are synced to this guild only (instant).
        turn_timeout_seconds: how long a player has to act before the AI plays for them.
        reminder_fraction: fraction of the timeout after which the player is reminded.
        lobby_timeout_minutes: a lobby not started within this many minutes closes itself
            (its message says so; nothing is recorded). Read it in seconds as
            :attr:`lobby_timeout_seconds`.
        ai_delay_seconds: pause after an AI step that showed something, so people can follow the
            board; the AI thinks during it (a shorter pause within one AI turn; :mod:`bot.driver`).
        leaderboard_min_games: games a member must finish to appear on a leaderboard.
        log_level: Python logging level name.
        enabled_games: which games this deployment offers: registry keys separated by commas
            (``"gang-of-dice,moonshine"``), or ``"all"`` (the default; blank means all too).
            Stored normalised (registry order, no repeats); read it as :attr:`games`. Running
            tables of a game disabled later still finish; only new lobbies are refused.
        ai_workers: ``AI_WORKERS``: processes the strong AI thinks in (default: the machine's
            cores minus one, at least 1; :class:`bot.ai_pool.AiPool`). Strong moves queue when
            every worker is busy.
        ai_think_seconds: ``AI_THINK_SECONDS``: search time of a strong AI turn, every decision
            of the turn together (0.05 to 10; default 1.0); a move also stops at the game's
            iteration budget (``engine.policies.iterations_for``).
        ai_iterations: ``AI_ITERATIONS``: when set, a strong move searches this many iterations
            instead of for a time (reproducible moves: tests, benchmarks); unset in production.
        pictures: ``PICTURES=on|off`` (also true/false, 1/0, yes/no; default on): the board
            and the private panels carry a picture (``bot/render``) beside a short text; off
            shows the text boards only. Without the Attach Files permission, or when a picture
            cannot be drawn, the text board is shown anyway.
        shard_count: how many Discord shards the whole bot runs (``SHARD_COUNT``; unset: one
            shard). Discord requires sharding from 2,500 servers.
        shard_ids: the shards this process runs (``SHARD_IDS=0,1``: comma-separated, each in
            ``0..SHARD_COUNT-1``, no repeats; unset: every shard). The process owns the tables
            of the guilds on its shards (``(guild_id >> 22) % SHARD_COUNT``). Read both as
            :attr:`shards`. See the README, "Running more than one process".
        board_edits_per_5s: ``BOARD_EDITS_PER_5S`` (0-50, default 5): at most this many board
            edits (or posts) in one channel or thread in any 5 seconds; a table's edits beyond it
            wait and are merged, so its board always ends on the latest state
            (:class:`cogs.edit_budget.EditBudget`). 0: no budget (tests that click faster than people).
        render_workers: ``RENDER_WORKERS`` (0-8, default 1): processes that draw the pictures,
            so that drawing never holds up the event loop; 0 draws in a thread of the bot's
            process instead (slower clicks under load, one process less).
        web_port: ``WEB_PORT``: the web pages' port (leaderboards, profiles, replays;
            :mod:`bot.web`); unset or blank: no web server. ``WEB_HOST`` (default ``0.0.0.0``)
            the address it listens on.
        web_base_url: ``WEB_BASE_URL``: the pages' public address as the bot links them in
            Discord (``https://games.example.org``; behind a reverse proxy); unset: no link
            buttons.
        web_secret: ``WEB_SECRET``: the key of private pages' signed links (unset: a random one
            per start, so links stop working after a restart); change it to invalidate every
            link given so far.
        web_public: ``WEB_PUBLIC`` (default off): servers' pages are public (plain links) unless
            a server says otherwise; off: every link is signed.
        web_rate_per_minute: ``WEB_RATE_PER_MINUTE`` (default 120): page requests per minute
            per client address (bursts of 60), then 429.
        metrics_port: ``METRICS_PORT``: ``/healthz`` and ``/metrics`` (Prometheus), on
            ``METRICS_HOST`` (default ``127.0.0.1``); unset: not served.
    """

    model_config = SettingsConfigDict(env_file=".env", env_file_encoding="utf-8", extra="ignore",
                                      env_ignore_empty=True)

    discord_token: SecretStr | None = None
    database_url: str | None = Field(default=None, repr=False)  # may hold a password
    database_path: Path = Path("speakeasy.db")
    dev_guild_id: int | None = None
    turn_timeout_seconds: int = Field(default=300, ge=10, le=7 * 24 * 3600)
    reminder_fraction: float = Field(default=0.5, gt=0, lt=1)
    lobby_timeout_minutes: int = Field(default=30, ge=1, le=7 * 24 * 60)
    ai_delay_seconds: float = Field(default=1.0, ge=0, le=30)
    leaderboard_min_games: int = Field(default=3, ge=1, le=1000)
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"] = "INFO"
    enabled_games: str = "all"
    pictures: bool = True
    shard_count: int | None = Field(default=None, ge=1, le=100_000)
    shard_ids: str | None = None
    render_workers: int = Field(default=1, ge=0, le=8)
    board_edits_per_5s: int = Field(default=5, ge=0, le=50)
    ai_workers: int = Field(default_factory=default_workers, ge=1, le=256)
    ai_think_seconds: float = Field(default=1.0, ge=0.05, le=10)
    ai_iterations: int | None = Field(default=None, ge=1, le=1_000_000)
    web_port: int | None = Field(default=None, ge=0, le=65535)
    web_host: str = "0.0.0.0"
    web_base_url: str | None = None
    web_secret: SecretStr | None = None
    web_public: bool = False
    web_rate_per_minute: int = Field(default=120, ge=1, le=100_000)
    metrics_port: int | None = Field(default=None, ge=0, le=65535)
    metrics_host: str = "127.0.0.1"

    @property
    def store_url(self) -> str:
        """Where the store is: :attr:`database_url`, else :attr:`database_path`."""
        return self.database_url or str(self.database_path)

    @property
    def lobby_timeout_seconds(self) -> int:
        """:attr:`lobby_timeout_minutes` in seconds."""
        return self.lobby_timeout_minutes * 60

    @property
    def games(self) -> tuple[str, ...]:
        """The enabled games' registry keys, in registry order."""
        return tuple(GAMES) if self.enabled_games == "all" else tuple(self.enabled_games.split(","))

    @property
    def shards(self) -> Shards:
        """The shards this process runs (:class:`storage.base.Shards`): ``SHARD_IDS`` of
        ``SHARD_COUNT``; every shard when ``SHARD_IDS`` is unset; one shard when neither is set."""
        count = self.shard_count or 1
        ids = tuple(int(i) for i in self.shard_ids.split(",")) if self.shard_ids else tuple(range(count))
        return Shards(count, ids)

    @field_validator("shard_ids", mode="before")
    @classmethod
    def _shard_ids(cls, v: object) -> object:
        """Comma-separated integers (spaces ignored; blank = unset), stored normalised (``0,1``)."""
        if isinstance(v, int) and not isinstance(v, bool):
            return str(v)
        if isinstance(v, (list, tuple)):
            v = ",".join(str(i) for i in v)
        if not isinstance(v, str):
            return v
        parts = [p.strip() for p in v.split(",") if p.strip()]
        if not parts:
            return None
        if not all(p.isdigit() for p in parts):
            raise ValueError(f"SHARD_IDS must be shard numbers separated by commas (e.g. 0,1), not {v!r}")
        return ",".join(str(int(p)) for p in parts)

    @model_validator(mode="after")
    def _check_shards(self) -> Settings:
        """``SHARD_IDS`` needs ``SHARD_COUNT``; its ids must be in range and not repeated."""
        if self.shard_ids is not None and self.shard_count is None:
            raise ValueError("SHARD_IDS needs SHARD_COUNT (how many shards the whole bot runs)")
        try:
            self.shards  # noqa: B018  # validates
        except ValueError as exc:
            raise ValueError(f"SHARD_IDS: {exc} (SHARD_COUNT={self.shard_count})") from None
        return self

    @field_validator("enabled_games", mode="before")
    @classmethod
    def _game_keys(cls, v: object) -> object:
        """``"all"``, blank, or comma-separated registry keys (case and spaces ignored); an
        unknown key raises ``ValueError`` naming the valid ones."""
        if not isinstance(v, str):
            return v
        keys = [k.strip().lower() for k in v.split(",") if k.strip()]
        if not keys or keys == ["all"]:
            return "all"
        unknown = [k for k in keys if k not in GAMES]
        if unknown:
            raise ValueError(f"unknown game {unknown[0]!r}; the games are {', '.join(GAMES)} (or all)")
        chosen = [k for k in GAMES if k in keys]
        return "all" if len(chosen) == len(GAMES) else ",".join(chosen)

    @field_validator("database_url")
    @classmethod
    def _store_url(cls, v: str | None) -> str | None:
        """A file path, ``sqlite:///path`` or ``postgresql://...``; another scheme raises ``ValueError``."""
        if v is None:
            return v
        problem = url_problem(v.strip())
        if problem:
            raise ValueError(problem)
        return v.strip()

    @field_validator("discord_token", "dev_guild_id", "shard_count", "ai_iterations", "web_port", "web_base_url",
                     "web_secret", "metrics_port", mode="before")
    @classmethod
    def _blank_is_none(cls, v: object) -> object:
        """A blank value (``DEV_GUILD_ID=`` or spaces) means "not set"."""
        if isinstance(v, str) and not v.strip():
            return None
        return v

    @field_validator("log_level", mode="before")
    @classmethod
    def _upper(cls, v: object) -> object:
        return v.upper() if isinstance(v, str) else v


class SettingsFileError(ValueError):
    """The settings file (``.env``) cannot be read; the message is one line for the operator."""


def load_settings(**overrides: object) -> Settings:
    """Read the settings (environment, then ``.env``, then defaults); overrides win.

    Raises ``pydantic.ValidationError`` on a malformed value, :class:`SettingsFileError` for a
    ``.env`` that is not UTF-8 text (saying where the first bad byte is).
    """
    try:
        return Settings(**overrides)  # type: ignore[arg-type]
    except UnicodeDecodeError as exc:
        env_file = Settings.model_config.get("env_file") or ".env"
        raise SettingsFileError(_undecodable(str(env_file), exc)) from None


def _undecodable(name: str, exc: UnicodeDecodeError) -> str:
    r"""One line saying where ``name`` stops being UTF-8 (line and byte).

    >>> _undecodable(".env", UnicodeDecodeError("utf-8", b"A=1\nB=\xff", 6, 7, "invalid start byte"))
    '.env is not UTF-8 text (line 2: byte 0xff, invalid start byte); save it as UTF-8 (see .env.example)'
    """
    data = exc.object if isinstance(exc.object, bytes) else bytes(exc.object)
    line = data.count(b"\n", 0, exc.start) + 1
    return (f"{name} is not UTF-8 text (line {line}: byte 0x{data[exc.start]:02x}, {exc.reason}); "
            "save it as UTF-8 (see .env.example)")
