"""A stepped Speakeasy bot over the light transport (:mod:`tests.harness.transport`): many tables
played through the cogs, with time moved by the caller.

The bot is the real one (``bot.client.SpeakeasyBot``: cogs, discord.py's dispatch, the services,
the store, pictures drawn in their worker processes); only Discord's HTTP and webhook seams are
fakes that answer at once and keep nothing. Its clock (:class:`StepClock`) moves only when
:meth:`SteppedBot.step` says so, so that a table whose member never acts goes forward one
deadline at a time: the reminder, the timeout (the AI acts for the member), and after
:data:`bot.scheduler.AWAY_AFTER_TIMEOUTS` timeouts the member is away and the AI plays their seat.
Between two steps every AI move, board edit and picture that follows runs to its end
(:meth:`SteppedBot.quiet`): nothing waits on a settle deadline, so a hundred tables whose every
seat ends up played by the AI go through in minutes.

Usage::

    rig = await SteppedBot.start(tmp_path / "soak.db", pictures=True)
    tid = await rig.open_table("gang-of-dice", host=1, ai=1)     # /play, "AI +", "Start"
    while rig.running:
        await rig.step()                                           # next deadline, then quiet
    census = rig.census()                                          # per-table structures
    await rig.close()

:meth:`SteppedBot.census` counts what the bot holds for its tables (the hall's locks and caches,
the timers, the AI drivers, the foreground, the board edit queues and pings, the panel picture
edits, the discord.py view store) and the asyncio tasks; :func:`process_figures` the process's
memory and file descriptors.
"""

from __future__ import annotations

import asyncio
import gc
import itertools
import os
import tracemalloc
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import discord

from bot.client import SpeakeasyBot
from bot.settings import Settings
from tests.harness.transport import FakeDiscord

__all__ = ["StepClock", "SteppedBot", "process_figures"]

GUILD_BASE = 710_000_000_000_000_000
CHANNEL_BASE = 720_000_000_000_000_000
USER_BASE = 730_000_000_000_000_000


class StepClock:
    """The bot's clock (``bot.timers.Clock``): UNIX seconds that move only by :meth:`advance`."""

    def __init__(self, start: float = 1_800_000_000.0) -> None:
        self.t = start

    def now(self) -> float:
        return self.t

    def advance(self, seconds: float) -> None:
        self.t += max(0.0, seconds)


def _custom_ids(components: Any) -> Iterator[str]:
    """Every ``custom_id`` in a message's components (rows, containers, sections, accessories)."""
    if isinstance(components, dict):
        if "custom_id" in components:
            yield str(components["custom_id"])
        for value in components.values():
            if isinstance(value, (list, dict)):
                yield from _custom_ids(value)
    elif isinstance(components, list):
        for item in components:
            yield from _custom_ids(item)


class SteppedBot:
    """The bot under test, its fake Discord (:attr:`fake`), its clock (:attr:`clock`) and the
    tables it opened that still run (:attr:`running`). Build it with :meth:`start`."""

    def __init__(self, bot: SpeakeasyBot, fake: FakeDiscord, clock: StepClock, guilds: list[int]) -> None:
        self.bot = bot
        self.fake = fake
        self.clock = clock
        self.guilds = guilds
        self.running: set[int] = set()
        self.finished: list[int] = []
        self.steps = 0
        self._which = itertools.count()

    @classmethod
    async def start(cls, database: str | Path, *, pictures: bool = True, render_workers: int = 1,
                    guilds: int = 4, turn_timeout: int = 300) -> SteppedBot:
        """Build the bot on ``database`` (a SQLite path or a PostgreSQL URL), log in through the
        fake, feed READY and one GUILD_CREATE per guild (one text channel each)."""
        discord.VoiceClient.warn_nacl = discord.VoiceClient.warn_dave = False  # no voice: no warning
        settings = Settings(_env_file=None, database_url=str(database), ai_delay_seconds=0,  # type: ignore[call-arg]
                            turn_timeout_seconds=turn_timeout, enabled_games="all", discord_token=None,
                            pictures=pictures, render_workers=render_workers, ai_workers=1,
                            board_edits_per_5s=0)  # the clock moves only when stepped: no edit budget
        clock = StepClock()
        bot = SpeakeasyBot(settings, clock=clock, sync_commands=False)
        fake = FakeDiscord()
        fake.install(bot)
        await bot.login("stepped")
        ids = [GUILD_BASE + g for g in range(guilds)]
        fake.connect(bot, [fake.guild(g, [CHANNEL_BASE + i]) for i, g in enumerate(ids)])
        return cls(bot, fake, clock, ids)

    # ------------------------------------------------------------------ acting
    def _channel(self, guild_id: int) -> dict[str, Any]:
        return self.fake.text_channel(CHANNEL_BASE + self.guilds.index(guild_id), guild_id)

    async def _interact(self, payload: dict[str, Any]) -> dict[str, Any]:
        """Feed an interaction; return the body of the bot's first answer to it."""
        answer = self.fake.expect_webhook(payload["token"])
        self.fake.feed(self.bot, "INTERACTION_CREATE", payload)
        sent = await asyncio.wait_for(answer, 30)
        return sent.json if isinstance(sent.json, dict) else {}

    async def _click(self, custom_id: str, user_id: int, guild_id: int, shown: dict[str, Any]) -> dict[str, Any]:
        """Click ``custom_id`` on the message the bot ``shown`` (a message body it sent: content,
        components, flags); return the body of the bot's answer."""
        channel = self._channel(guild_id)
        message = self.fake.message(int(channel["id"]), shown)
        payload = self.fake.button_click(custom_id, user_id=user_id, guild_id=guild_id, channel=channel,
                                         message=message)
        return await self._interact(payload)

    async def open_table(self, game: str, *, host: int, ai: int) -> int:
        """Member ``host`` (a number: its user id is derived) runs ``/play game``, adds ``ai`` AI
        players and starts; returns the table id. The host never acts afterwards: the deadlines
        (:meth:`step`) hand their seat to the AI."""
        guild = self.guilds[next(self._which) % len(self.guilds)]
        user = USER_BASE + host
        payload = self.fake.slash("play", user_id=user, guild_id=guild, channel=self._channel(guild),
                                  options=[{"name": "game", "type": 3, "value": game}])
        shown = (await self._interact(payload)).get("data") or {}
        lobby = next((c for c in _custom_ids(shown.get("components")) if c.startswith("se:l:")), None)
        if lobby is None:
            raise AssertionError(f"/play {game} opened no lobby: {shown}")
        table_id = int(lobby.split(":")[2])
        for op in ["ai+"] * ai + ["start"]:
            answer = await self._click(f"se:l:{table_id}:{op}", user, guild, shown)
            shown = answer.get("data") or shown
        await self.quiet()
        table = await self.bot.hall.table(table_id)
        if table.row.status != "running":
            raise AssertionError(f"table {table_id} did not start: {table.row.status}")
        self.running.add(table_id)
        return table_id

    # ------------------------------------------------------------------ time
    async def quiet(self) -> None:
        """Wait until nothing the bot started is left to do: AI drivers, board edits and pings,
        panel pictures, the answers being built."""
        bot = self.bot
        while True:
            await bot.tables.idle()
            notifier = bot.notifier
            if notifier is not None and hasattr(notifier, "flush"):
                await notifier.flush()
            pending = [t for t in asyncio.all_tasks() if t is not asyncio.current_task() and not t.done()
                       and t.get_name() not in ("timers",) and not _idle_task(t)]
            if not pending and not bot.foreground.busy:
                break
            await asyncio.sleep(0.01)
        await self._collect()

    async def _collect(self) -> None:
        """Move the tables that ended from :attr:`running` to :attr:`finished`."""
        for table_id in sorted(self.running):
            if (await self.bot.hall.table(table_id)).row.status != "running":
                self.running.discard(table_id)
                self.finished.append(table_id)

    async def step(self) -> bool:
        """Move the clock to the nearest due timer and fire what is due, then :meth:`quiet`.
        Returns False when no timer is left."""
        due = self.bot.timers.next_due()
        if due is None:
            return False
        self.clock.advance(due - self.clock.now())
        await self.bot.timers.process()
        self.steps += 1
        await self.quiet()
        return True

    # ------------------------------------------------------------------ looking
    def census(self) -> dict[str, int]:
        """What the bot holds now for its tables, by structure (names are stable keys), and the
        asyncio tasks alive: ``discord.timed_views`` counts the views discord.py keeps until their
        timeout (an ephemeral message's components, for its 15 minutes), ``asyncio.tasks`` the
        other tasks; ``cache.*`` are caches bounded by their own size limit."""
        bot = self.bot
        figures: dict[str, int] = {f"hall.{k}": len(v) for k, v in bot.hall.held().items()}
        figures.update({f"timers.{k}": v for k, v in bot.timers.sizes().items()})
        figures["driver.tasks"] = len(bot.tables.driver.tables())
        figures.update({f"foreground.{k}": v for k, v in bot.foreground.sizes().items()})
        notifier = bot.notifier
        if notifier is not None and hasattr(notifier, "sizes"):
            figures.update({f"boards.{k}": v for k, v in notifier.sizes().items()})
        panels: dict[str, int] = {}
        for cog in bot.cogs.values():
            held = getattr(cog, "panels", None)
            if held is not None and hasattr(held, "sizes"):
                for k, v in held.sizes().items():
                    panels[k] = panels.get(k, 0) + v
        figures.update({f"panels.{k}": v for k, v in panels.items()})
        store = bot._connection._view_store
        figures["discord.dynamic_items"] = len(store._dynamic_items)
        figures["discord.message_views"] = len(store._synced_message_views)
        figures["discord.views"] = len(store._views)
        tasks = asyncio.all_tasks()
        timed = sum(1 for t in tasks if getattr(t.get_coro(), "__qualname__", "").endswith("__timeout_task_impl"))
        figures["discord.timed_views"] = timed  # views with a timeout (e.g. an ephemeral level picker)
        figures["asyncio.tasks"] = len(tasks) - timed
        figures["cache.discord_messages"] = len(bot.cached_messages)  # bounded by max_messages
        figures["fake.waiters"] = self.fake.waiting()
        return figures

    async def close(self) -> None:
        """Close the bot (its store, pools and picture workers)."""
        await self.bot.close()


def _idle_task(task: asyncio.Task[Any]) -> bool:
    """A task that waits for good while idle (discord.py's own keep-alives), not work to finish."""
    coro = task.get_coro()
    name = getattr(coro, "__qualname__", "")
    return name.startswith(("Client._", "AutoShardedClient.", "ConnectionState.", "Loop.")) or name.endswith(
        "__timeout_task_impl")


def process_figures() -> dict[str, float]:
    """The process now, after a full garbage collection: ``rss_kb`` (resident set, from
    ``/proc``), ``heap_kb`` (Python allocations traced by :mod:`tracemalloc`, 0 when it is not
    tracing), ``fds`` (open file descriptors)."""
    gc.collect()
    rss = 0.0
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    rss = float(line.split()[1])
    except OSError:
        pass
    heap = tracemalloc.get_traced_memory()[0] / 1024 if tracemalloc.is_tracing() else 0.0
    try:
        fds = len(os.listdir("/proc/self/fd"))
    except OSError:
        fds = -1
    return {"rss_kb": round(rss), "heap_kb": round(heap), "fds": fds}
