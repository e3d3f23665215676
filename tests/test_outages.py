"""A database that blinks: the store is away for about a second around a turn deadline, a
reminder, an AI move and a click, and the tables go on.

On PostgreSQL the test starts its own server from the cluster ``scripts/_postgres.sh`` keeps in
``.venv`` (never the shared one) and stops it for about a second (``pg_ctl stop -m fast``, the
way an operator restarts it); on SQLite another connection holds the file's write lock for as
long (the store's busy timeout is short, so its writes fail as busy). Either way: the click is
answered ``err.store_down``; the deadlines that fell due meanwhile stay armed and fire in order
once the store is back (reminder, then timeout); the AI move is tried again until it is stored;
nothing is abandoned or lost; one warning says the outage began, one that it ended, no
traceback. Longer outages: ``python -m bench.faults outage``.
"""

from __future__ import annotations

import asyncio
import logging
import os
import sqlite3
from collections.abc import Awaitable, Callable
from types import SimpleNamespace

import discord
import pytest

from bot.client import report_error
from bot.house import House
from bot.service import Notifier
from bot.timers import turn_key
from storage.base import Store, StoreUnavailable
from storage.factory import open_store
from storage.sqlite import SqliteStore
from tests.own_postgres import OwnPostgres
from tests.simgame import register_pick
from tests.test_service import FakeClock


class Heard(Notifier):
    """Records what the UI hears, with the table's id."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, int, tuple[int, ...]]] = []

    async def reminder(self, table, seats):
        self.calls.append(("reminder", table.id, tuple(seats)))

    async def timed_out(self, table, seats):
        self.calls.append(("timeout", table.id, tuple(seats)))

    async def table_abandoned(self, table):
        self.calls.append(("abandoned", table.id, ()))


@pytest.fixture
def pick_game():
    with register_pick() as spec:
        yield spec.game


async def wait_for(condition: Callable[[], bool], seconds: float = 15.0) -> None:
    loop = asyncio.get_running_loop()
    end = loop.time() + seconds
    while not condition():
        assert loop.time() < end, "timed out"
        await asyncio.sleep(0.02)


async def play_through_an_outage(db: Store, down: Callable[[], Awaitable[None]], up: Callable[[], Awaitable[None]],
                                 caplog: pytest.LogCaptureFixture) -> None:
    """The scenario of the module docstring on ``db``; ``down``/``up`` start and end the outage."""
    caplog.set_level(logging.WARNING)
    clock, heard = FakeClock(), Heard()
    svc = House(db, clock=clock, notifier=heard, turn_timeout=100, seed_source=lambda: 42)
    try:
        # table a: two members; the host has picked, the guest must act (reminder at +50, timeout at +100)
        a = (await svc.lobbies.open(guild_id=1, channel_id=10, game="test-pick", host_user_id=100,
                                    host_name="Host")).id
        await svc.lobbies.join(a, 200, "Guest")
        await svc.lobbies.start(a, 100)
        await svc.tables.submit(a, 100, 0, "p1")
        clock.advance(10)
        # table b: a member and an AI player; round 1 played, then the member's "ok" gives the AI a move
        b = (await svc.lobbies.open(guild_id=1, channel_id=11, game="test-pick", host_user_id=300,
                                    host_name="Bea")).id
        await svc.lobbies.add_ai(b, 300)
        await svc.lobbies.start(b, 300)
        await svc.tables.idle()
        await svc.tables.submit(b, 300, 0, "p3")
        await svc.tables.submit(b, 300, 1, "ok")
        async with svc.hall.lock(b):  # taken before the AI's driver runs: its move meets the outage
            b_version = svc.hall.live(b).state.version
            await down()
        clock.advance(61)  # a's reminder (at +50), then b's (at +60), fall due while the store is away
        svc.timers.start()
        with pytest.raises(StoreUnavailable):  # a click: the cog answers err.store_down
            await svc.tables.submit(a, 200, 0, "p2")
        await wait_for(lambda: svc.timers.retries >= 2 and svc.tables.driver.retries >= 2)
        await asyncio.sleep(0.3)
        assert svc.timers.get(turn_key(a)) is not None  # still armed
        assert heard.calls == []  # nothing fired yet
        await up()
        await wait_for(lambda: len(heard.calls) >= 2)
        await svc.tables.idle()
        # the deadlines that passed fired once the store was back, in order, once each
        assert heard.calls == [("reminder", a, (1,)), ("reminder", b, (0,))]
        # the click refused during the outage goes through now; the host's buffered pick was kept
        assert (await svc.tables.submit(a, 200, 0, "p2")).status == "applied"
        assert [(v, codes, src) for v, codes, src in await db.action_log(a)] == [(0, {0: "p1", 1: "p2"}, "user")]
        # the AI's move was tried again until it was stored (a pick of a simultaneous step: buffered)
        assert set(await db.pending(b, b_version)) == {1}
        # nothing abandoned, nothing lost
        for tid in (a, b):
            assert (await svc.hall.table(tid)).row.status == "running"
        assert not [c for c in heard.calls if c[0] == "abandoned"]
        assert await db.tables_with_status("abandoned") == []
        assert svc.timers.get(turn_key(a)) is not None  # the next step's deadline
        # one warning when the outage began, one when it ended; no error, no traceback
        warnings = [r.getMessage() for r in caplog.records if r.name == "storage.base"]
        assert len(warnings) == 2, warnings
        assert "unavailable" in warnings[0] and "answers again" in warnings[1]
        assert not [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]
        assert db.outages == 1 and db.unavailable_since is None
    finally:
        await svc.tables.close()


# ---------------------------------------------------------------------------- SQLite: a busy file
async def test_a_busy_sqlite_file_delays_the_tables_and_loses_nothing(tmp_path, pick_game, caplog):
    path = tmp_path / "busy.db"
    db = await SqliteStore.open(path, busy_timeout=0.05)
    other = sqlite3.connect(path, isolation_level=None)

    async def down() -> None:
        other.execute("BEGIN IMMEDIATE")  # another process writing: our writes find the file busy

    async def up() -> None:
        await asyncio.sleep(1.0)
        other.execute("COMMIT")

    try:
        await asyncio.wait_for(play_through_an_outage(db, down, up, caplog), 120)
    finally:
        other.close()
        await db.close()


# ---------------------------------------------------------------------------- PostgreSQL: a restart
@pytest.fixture
def own_postgres():
    server = OwnPostgres.from_cluster()
    if server is None:
        if os.environ.get("CI"):
            pytest.fail("no PostgreSQL binaries or cluster (scripts/test.sh makes them)")
        pytest.skip("no PostgreSQL binaries or cached cluster: run scripts/test.sh once")
    server.start()
    yield server
    server.remove()


async def test_a_postgresql_restart_delays_the_tables_and_loses_nothing(own_postgres, pick_game, caplog):
    db = await open_store(own_postgres.url)

    async def down() -> None:
        await asyncio.to_thread(own_postgres.stop)

    async def up() -> None:
        await asyncio.sleep(0.8)
        await asyncio.to_thread(own_postgres.start)

    try:
        await asyncio.wait_for(play_through_an_outage(db, down, up, caplog), 120)
    finally:
        await db.close()


# ---------------------------------------------------------------------------- the click's answer
class _Response:
    def __init__(self) -> None:
        self.sent: list[tuple[str | None, bool]] = []

    def is_done(self) -> bool:
        return bool(self.sent)

    async def send_message(self, content=None, *, ephemeral=False, view=None, **_):
        texts = [item.content for item in view.walk_children() if isinstance(item, discord.ui.TextDisplay)]
        self.sent.append(("\n".join(texts) if view is not None else content, ephemeral))


@pytest.mark.parametrize("locale", ["en-US", "fr"])
async def test_a_click_during_an_outage_is_told_the_table_is_safe_without_a_traceback(locale, caplog):
    from bot.i18n import Translator

    interaction = SimpleNamespace(id=1, locale=locale, guild_locale=None, response=_Response(), extras={})
    caplog.set_level(logging.WARNING)
    await report_error(interaction, StoreUnavailable("the database is unavailable (OSError)"))  # type: ignore[arg-type]
    lang = "fr" if locale == "fr" else "en"
    assert interaction.response.sent == [(Translator(lang)("err.store_down"), True)]
    assert interaction.response.sent[0][0] != Translator(lang)("err.internal")
    assert not caplog.records
