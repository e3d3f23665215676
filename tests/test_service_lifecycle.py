"""The lifecycle and admin actions of the table services without Discord: members gone at the end
are not rated (and a failing check rates everyone), a server's tables closed silently, the
one-lobby rule's query, rematch, ``close_table`` permissions."""

from __future__ import annotations

import pytest

from bot.games import GAMES
from bot.house import House
from bot.service import Notifier, ServiceError
from bot.timers import turn_key
from storage.factory import open_store
from tests.simgame import register_pick
from tests.test_service import FakeClock


class Gone(Notifier):
    """Says ``gone`` left the server; records every other call it hears."""

    def __init__(self, gone: set[int] | None = None, fail: bool = False) -> None:
        self.gone, self.fail, self.heard, self.asked = gone or set(), fail, [], []

    async def members_gone(self, guild_id, user_ids):
        self.asked.append((guild_id, sorted(user_ids)))
        if self.fail:
            raise RuntimeError("Discord is down")
        return self.gone & set(user_ids)

    async def table_abandoned(self, table):
        self.heard.append(("abandoned", table.id))

    async def lobby_changed(self, table):
        self.heard.append(("lobby", table.id))


@pytest.fixture
async def make(new_db_url):
    registration = register_pick()
    made = []

    async def build(notifier: Notifier) -> House:
        db = await open_store(await new_db_url())
        svc = House(db, clock=FakeClock(), notifier=notifier, turn_timeout=100, seed_source=lambda: 42)
        made.append((svc, db))
        return svc

    yield build
    try:
        for svc, db in made:
            await svc.tables.close()
            await db.close()
    finally:
        registration.unregister()


async def running_table(svc: House) -> int:
    t = await svc.lobbies.open(guild_id=1, channel_id=10, game="test-pick", host_user_id=100, host_name="Host",
                               options={"rounds": 1})
    await svc.lobbies.join(t.id, 200, "Guest")
    await svc.lobbies.start(t.id, 100)
    return t.id


async def finish(svc: House, tid: int) -> None:
    game = GAMES["test-pick"].game
    for _ in range(20):
        table = await svc.hall.table(tid)
        if table.row.status != "running":
            return
        for seat in sorted(table.to_act()):
            if seat in table.pending:
                continue
            code = game.encode(game.legal_actions(table.state, seat)[0])
            await svc.tables.submit(tid, table.seats[seat].user_id, table.version, code)
            table = await svc.hall.table(tid)
    raise AssertionError("the game did not end")


async def test_a_member_gone_at_the_end_is_not_rated(make):
    notifier = Gone({200})
    svc = await make(notifier)
    tid = await running_table(svc)
    await finish(svc, tid)
    assert notifier.asked == [(1, [100, 200])]  # asked once per member, when the game ended
    assert set(await svc.hall.db.ratings(1, "test-pick", [100, 200])) == {100}


async def test_a_result_whose_members_all_left_gets_no_history_at_the_next_start(make):
    """Nobody rated (both had left the server): the next start's backfill of the rating history
    (for results stored before it existed) leaves it alone, whatever season it was played in."""
    notifier = Gone()
    svc = await make(notifier)
    await finish(svc, await running_table(svc))  # a rated result: the history exists
    notifier.gone = {100, 200}
    await svc.seasons.start(1, ("test-pick",), "Spring", user_id=1)
    tid = await running_table(svc)
    await finish(svc, tid)
    db = svc.hall.db
    before = await db.rating_history(1, "test-pick", 100)
    await svc.tables.resume()  # the next start
    assert await svc.seasons.backfill() == 0
    assert await db.rating_history(1, "test-pick", 100) == before
    assert not [p for p in before if p.table_id == tid]


async def test_a_failing_membership_check_rates_everyone(make):
    svc = await make(Gone(fail=True))
    tid = await running_table(svc)
    await finish(svc, tid)
    assert set(await svc.hall.db.ratings(1, "test-pick", [100, 200])) == {100, 200}


async def test_close_guild_is_silent_clears_deadlines_and_rates_nobody(make):
    notifier = Gone()
    svc = await make(notifier)
    tid = await running_table(svc)
    lobby = await svc.lobbies.open(guild_id=1, channel_id=11, game="test-pick", host_user_id=300, host_name="L")
    other = await svc.lobbies.open(guild_id=2, channel_id=20, game="test-pick", host_user_id=300, host_name="L")
    assert await svc.hall.db.timer(turn_key(tid)) is not None
    notifier.heard.clear()
    assert await svc.tables.close_guild(1) == [tid, lobby.id]
    assert notifier.heard == []
    assert (await svc.hall.table(tid)).row.status == "abandoned"
    assert (await svc.hall.table(lobby.id)).row.status == "abandoned"
    assert (await svc.hall.table(other.id)).row.status == "lobby"
    assert await svc.hall.db.timer(turn_key(tid)) is None
    assert svc.hall.live(tid) is None
    assert await svc.hall.db.ratings(1, "test-pick", [100, 200]) == {}


async def test_hosted_lobby_close_table_and_rematch(make):
    svc = await make(Gone())
    tid = await running_table(svc)
    assert await svc.lobbies.hosted(1, 10, 100) is None  # the host's table is running, not a lobby
    with pytest.raises(ServiceError) as e:
        await svc.lobbies.close_table(tid, 200)
    assert e.value.key == "err.host_or_admin"
    with pytest.raises(ServiceError) as e:
        await svc.lobbies.rematch(tid, 100)
    assert e.value.key == "err.not_finished"
    await finish(svc, tid)
    with pytest.raises(ServiceError) as e:
        await svc.lobbies.rematch(tid, 999)
    assert e.value.key == "err.not_seated"
    again = await svc.lobbies.rematch(tid, 200)  # any seated member may ask; the host stays the host
    assert again.row.host_user_id == 100 and [s.user_id for s in again.seats] == [100, 200]
    assert again.row.options == {"rounds": 1}
    assert (await svc.lobbies.hosted(1, 10, 100)).id == again.id
    with pytest.raises(ServiceError) as e:
        await svc.lobbies.rematch(tid, 100)
    assert e.value.key == "err.lobby_exists" and e.value.params == {"table": again.id}
    closed = await svc.lobbies.close_table(again.id, 100)
    assert closed.row.status == "abandoned"
