"""The house: every part that runs the tables of one process, built together over one store.

No behaviour of its own: the parts are its attributes. The Discord client
(:class:`bot.client.SpeakeasyBot`) hands each part to the cogs as an attribute of the bot (the
cogs never see the whole); the terminal mode, the benchmarks and the tests use a house directly.
"""

from __future__ import annotations

from collections.abc import Callable

from bot.ai_pool import AiPool
from bot.decks import Decks
from bot.foreground import Foreground
from bot.guilds import Defaults, Guilds
from bot.lobbies import Lobbies
from bot.records import Records
from bot.seasons import Seasons
from bot.service import Hall
from bot.table import Notifier
from bot.tables import Tables
from bot.timers import Clock, SystemClock, Timers
from storage.base import Shards, Store

__all__ = ["House"]


class House:
    """The table services of a process and what they share, built in their order.

    Attributes: :attr:`hall` (the shared state: store, clock, notifier, locks, the cache of
    running tables; :meth:`bot.service.Hall.table` reads a table), :attr:`timers` (the
    process's persisted timers, the hall's), :attr:`foreground` (the member interactions being
    answered, :mod:`bot.foreground`), :attr:`decks`, :attr:`tables` (the running tables),
    :attr:`lobbies`, :attr:`records` (read-only queries), :attr:`guilds` (each server's settings),
    :attr:`seasons` (each server's seasons and the rating history).

    Args:
        db: an open store (:class:`storage.base.Store`).
        clock: time source (a fake one in tests; :class:`bot.timers.SystemClock` by default).
        notifier: what the UI hears (may be replaced later by assigning ``hall.notifier``).
        turn_timeout: seconds a member has to act before the AI acts for them.
        reminder_fraction: when the reminder is sent, as a fraction of ``turn_timeout``.
        ai_delay: seconds between AI moves (0 in tests).
        seed_source: returns a new game seed (``secrets.randbits(62)`` by default).
        leaderboard_min_games: games a member must have played to appear on the leaderboard.
        lobby_timeout: seconds a lobby may stay open without being started (then it closes).
        shards: the Discord shards of this process: it owns only the tables of their guilds
            (``None``: every table).
        ai_pool: chooses the AI moves at each seat's level (:class:`bot.ai_pool.AiPool`; a
            default one, one worker, when not given). Closed by :meth:`bot.tables.Tables.close`.
        defaults: the bot's own values of the servers' settings (:class:`bot.guilds.Defaults`;
            ``leaderboard_min_games`` is its ``min_games`` when not given).
    """

    def __init__(
        self,
        db: Store,
        *,
        clock: Clock | None = None,
        notifier: Notifier | None = None,
        turn_timeout: float = 300,
        reminder_fraction: float = 0.5,
        ai_delay: float = 0.0,
        seed_source: Callable[[], int] | None = None,
        leaderboard_min_games: int = 3,
        lobby_timeout: float = 1800,
        shards: Shards | None = None,
        ai_pool: AiPool | None = None,
        defaults: Defaults | None = None,
    ) -> None:
        self.hall = Hall(db, clock or SystemClock(), notifier=notifier, shards=shards)
        self.timers: Timers = self.hall.timers
        self.foreground = Foreground()
        self.decks = Decks(self.hall)
        self.guilds = Guilds(self.hall, defaults or Defaults(min_games=leaderboard_min_games))
        self.seasons = Seasons(self.hall, self.guilds)
        self.tables = Tables(self.hall, self.decks, foreground=self.foreground, turn_timeout=turn_timeout,
                             reminder_fraction=reminder_fraction, ai_delay=ai_delay, ai_pool=ai_pool,
                             seasons=self.seasons)
        self.lobbies = Lobbies(self.hall, self.tables, self.decks, lobby_timeout=lobby_timeout,
                               seed_source=seed_source, guilds=self.guilds)
        self.records = Records(self.hall, leaderboard_min_games=leaderboard_min_games, guilds=self.guilds,
                               seasons=self.seasons)
