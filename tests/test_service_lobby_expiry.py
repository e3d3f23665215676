"""Lobby expiry at the service level, on a fake clock: a lobby not started
within ``lobby_timeout`` closes itself through the persisted timer ``lobby:<id>`` (not before),
starting or cancelling it removes the timer, and the timer survives a restart (an expiry that
fell due while the bot was down closes the lobby as soon as the timers run)."""

from __future__ import annotations

import pytest

from bot.games import GAMES
from bot.house import House
from bot.service import Notifier, ServiceError
from bot.timers import lobby_key
from storage.base import Store
from storage.factory import open_store
from tests.simgame import register_pick
from tests.test_service import FakeClock

TIMEOUT = 1800  # seconds (LOBBY_TIMEOUT_MINUTES=30, the default)


class Heard(Notifier):
    """Records the lobby calls it hears."""

    def __init__(self) -> None:
        self.heard: list[tuple[str, int, str]] = []

    async def lobby_expired(self, table):
        self.heard.append(("expired", table.id, table.row.status))

    async def lobby_changed(self, table):
        self.heard.append(("changed", table.id, table.row.status))


@pytest.fixture
async def make(db_url):
    """``await make(clock)``: a service on the test's one database (a second call = a restart)."""
    registration = register_pick()
    made: list[tuple[House, Store]] = []

    async def build(clock: FakeClock, notifier: Notifier | None = None) -> House:
        if made:  # a restart: the previous process stops first
            await made[-1][0].tables.close()
            await made[-1][1].close()
        db = await open_store(db_url)
        svc = House(db, clock=clock, notifier=notifier or Heard(), turn_timeout=100,
                    seed_source=lambda: 42, lobby_timeout=TIMEOUT)
        made.append((svc, db))
        return svc

    yield build
    try:
        await made[-1][0].tables.close()
        await made[-1][1].close()
    finally:
        registration.unregister()


async def lobby(svc: House) -> int:
    t = await svc.lobbies.open(guild_id=1, channel_id=10, game="test-pick", host_user_id=100, host_name="Host")
    await svc.lobbies.join(t.id, 200, "Guest")
    return t.id


async def test_a_lobby_expires_after_the_timeout_not_before(make):
    clock = FakeClock()
    svc = await make(clock)
    opened = clock.now()
    tid = await lobby(svc)
    stored = await svc.hall.db.timer(lobby_key(tid))
    assert stored is not None and stored.due == opened + TIMEOUT

    clock.advance(TIMEOUT - 1)
    assert await svc.timers.process() == opened + TIMEOUT  # the next due time: the expiry
    assert (await svc.hall.table(tid)).row.status == "lobby"
    assert svc.hall.notifier.heard == [("changed", tid, "lobby")]  # the join only

    clock.advance(1)
    await svc.timers.process()
    table = await svc.hall.table(tid)
    assert table.row.status == "abandoned" and table.row.seed is None and table.state is None
    assert svc.hall.notifier.heard[1:] == [("expired", tid, "abandoned")]
    assert svc.lobbies.expired(table)
    assert await svc.hall.db.timer(lobby_key(tid)) is None and len(svc.timers) == 0
    # nothing recorded: no result, no events, nobody rated
    assert await svc.hall.db.all_events(tid) == []
    assert await svc.records.stats(1, 100) == {} and await svc.records.stats(1, 200) == {}
    # an old button of the lobby says why it is closed
    with pytest.raises(ServiceError) as err:
        await svc.lobbies.join(tid, 300, "Late")
    assert err.value.key == "err.lobby_expired" and err.value.params == {"minutes": 30}
    with pytest.raises(ServiceError) as err:
        await svc.lobbies.start(tid, 100)
    assert err.value.key == "err.lobby_expired"
    # the host may open a new lobby in that channel (the expired one is not open any more)
    assert await svc.lobbies.hosted(1, 10, 100) is None


async def test_starting_a_lobby_cancels_its_expiry(make):
    clock = FakeClock()
    svc = await make(clock)
    tid = await lobby(svc)
    clock.advance(TIMEOUT - 10)
    await svc.lobbies.start(tid, 100)
    assert await svc.hall.db.timer(lobby_key(tid)) is None
    assert svc.timers.get(lobby_key(tid)) is None
    clock.advance(TIMEOUT)
    await svc.timers.process()  # only the turn deadline fires (the AI picks for both)
    assert (await svc.hall.table(tid)).row.status in ("running", "finished")
    assert not any(kind == "expired" for kind, *_ in svc.hall.notifier.heard)


async def test_cancelling_a_lobby_cancels_its_expiry(make):
    clock = FakeClock()
    svc = await make(clock)
    tid = await lobby(svc)
    await svc.lobbies.cancel(tid, 100)
    assert await svc.hall.db.timer(lobby_key(tid)) is None and len(svc.timers) == 0
    clock.advance(2 * TIMEOUT)
    await svc.timers.process()
    table = await svc.hall.table(tid)
    assert table.row.status == "abandoned" and not svc.lobbies.expired(table)
    assert svc.hall.notifier.heard[-1] == ("changed", tid, "abandoned")
    assert not any(kind == "expired" for kind, *_ in svc.hall.notifier.heard)
    with pytest.raises(ServiceError) as err:  # cancelled, not expired: the usual refusal
        await svc.lobbies.join(tid, 300, "Late")
    assert err.value.key == "err.table_not_lobby"


async def test_closing_a_lobby_silently_cancels_its_expiry(make):
    clock = FakeClock()
    svc = await make(clock)
    tid = await lobby(svc)
    assert await svc.tables.close_guild(1) == [tid]
    assert await svc.hall.db.timer(lobby_key(tid)) is None and len(svc.timers) == 0


async def test_a_rematch_lobby_expires_too(make):
    clock = FakeClock()
    svc = await make(clock)
    tid = await lobby(svc)
    await svc.lobbies.set_option(tid, 100, "rounds", 1)
    await svc.lobbies.start(tid, 100)
    game = GAMES["test-pick"].game
    while (table := await svc.hall.table(tid)).row.status == "running":
        seat = min(s for s in table.to_act() if s not in table.pending)
        await svc.tables.submit(tid, table.seats[seat].user_id, table.version,
                                game.encode(game.legal_actions(table.state, seat)[0]))
    again = await svc.lobbies.rematch(tid, 200)
    assert (await svc.hall.db.timer(lobby_key(again.id))).due == clock.now() + TIMEOUT
    clock.advance(TIMEOUT)
    await svc.timers.process()
    assert (await svc.hall.table(again.id)).row.status == "abandoned"
    assert svc.hall.notifier.heard[-1] == ("expired", again.id, "abandoned")


async def test_the_expiry_survives_a_restart(make):
    clock = FakeClock()
    svc = await make(clock)
    opened = clock.now()
    tid = await lobby(svc)
    clock.advance(600)
    svc = await make(clock)  # restart: the timer is read back from the database
    await svc.tables.resume()
    assert svc.timers.get(lobby_key(tid)).due == opened + TIMEOUT  # no time given back
    clock.advance(TIMEOUT - 601)
    await svc.timers.process()
    assert (await svc.hall.table(tid)).row.status == "lobby"
    clock.advance(1)
    await svc.timers.process()
    assert (await svc.hall.table(tid)).row.status == "abandoned"
    assert svc.hall.notifier.heard == [("expired", tid, "abandoned")]


async def test_a_lobby_that_expired_while_the_bot_was_down_closes_at_start_up(make):
    clock = FakeClock()
    svc = await make(clock)
    tid = await lobby(svc)
    clock.advance(3 * TIMEOUT)  # the bot is down meanwhile
    svc = await make(clock)
    await svc.tables.resume()
    assert (await svc.hall.table(tid)).row.status == "lobby"  # until the timers run
    await svc.timers.process()
    table = await svc.hall.table(tid)
    assert table.row.status == "abandoned" and svc.lobbies.expired(table)
    assert svc.hall.notifier.heard == [("expired", tid, "abandoned")]


def test_the_lobby_timeout_setting(tmp_path, monkeypatch):
    from pydantic import ValidationError

    from bot.settings import load_settings

    monkeypatch.chdir(tmp_path)  # no .env here
    monkeypatch.delenv("LOBBY_TIMEOUT_MINUTES", raising=False)
    assert load_settings().lobby_timeout_minutes == 30 and load_settings().lobby_timeout_seconds == 1800
    monkeypatch.setenv("LOBBY_TIMEOUT_MINUTES", "5")
    assert load_settings().lobby_timeout_seconds == 300
    for bad in ("0", "10081", "soon"):
        monkeypatch.setenv("LOBBY_TIMEOUT_MINUTES", bad)
        with pytest.raises(ValidationError):
            load_settings()
