"""A store that fails to answer one statement: a step stored whose answer was lost, a blip at
a commit (nothing stored), a connection lost at COMMIT (the transaction rolled back). The table
goes on: one deadline for its step as stored, nobody charged a timeout twice or for a step
they played, the in-memory timers as the store has them. (Whole outages: tests/test_outages.py.)
"""

from __future__ import annotations

import asyncio
import sqlite3
from typing import Any

import pytest

from bot.house import House
from bot.service import Notifier
from bot.timers import Timers, lobby_key, turn_key
from storage.base import StoreUnavailable
from storage.sqlite import SqliteStore
from tests.stores import raw_sql
from tests.test_community import env as community_env  # noqa: F401,F811 - fixture
from tests.test_community import play_one
from tests.test_service import FakeClock, env, pick_game  # noqa: F401 - fixtures

UNAVAILABLE = "the database is unavailable (ConnectionResetError)"


@pytest.fixture
async def two(env):  # noqa: F811 - tests.test_service's fixture
    """A two-member lobby of Pick (host 100, guest 200): ``(svc, db, clock, table id)``."""
    svc, db, clock, _ = env
    a = (await svc.lobbies.open(guild_id=1, channel_id=10, game="test-pick", host_user_id=100, host_name="Host")).id
    await svc.lobbies.join(a, 200, "Guest")
    return svc, db, clock, a


class Heard(Notifier):
    """Records the notices of timeouts and comebacks (:meth:`on`: the list)."""

    def __init__(self) -> None:
        self.heard: list[tuple[str, Any]] = []

    @classmethod
    def on(cls, svc) -> list[tuple[str, Any]]:
        """Install one as ``svc``'s notifier; returns what it hears."""
        svc.hall.notifier = cls()
        return svc.hall.notifier.heard

    async def timed_out(self, table, seats):
        self.heard.append(("timed_out", tuple(seats)))

    async def went_away(self, table, seat):
        self.heard.append(("went_away", seat))

    async def came_back(self, table, seat):
        self.heard.append(("came_back", seat))


async def away_host_at_his_ok(svc, a: int) -> None:
    """Start table ``a`` with its host away (two timeouts: the AI picks for him), the guest
    picks: version 1 waits for the host's "ok"."""
    await svc.lobbies.start(a, 100)
    async with svc.hall.lock(a):
        await svc.tables.scheduler._set_seat(svc.hall.live(a), 0, away=True, timeouts=2)
    svc.tables.nudge(a)
    await svc.tables.idle()
    await svc.tables.submit(a, 200, 0, "p2")


async def his_deadline_plays_his_step(svc, db, clock, a: int) -> None:
    """The host, back, has a deadline for his step (at least in memory): its timeout plays the
    step, counting one timeout, and he is not away."""
    assert svc.timers.get(turn_key(a)) is not None
    for _ in range(2):
        clock.advance(50)
        await svc.timers.process()
        await svc.tables.idle()
    assert (await db.get_table(a)).version > 1
    host = (await db.seats(a))[0]
    assert (host.timeouts, host.away) == (1, False)


async def second_timeout_meets_a_blip(svc, db, clock, a: int) -> None:
    """Start table ``a``; the guest, who timed out once already, does not pick: his second
    timeout is counted (he is away now), then its move meets a blip."""
    await svc.lobbies.start(a, 100)
    async with svc.hall.lock(a):
        await svc.tables.scheduler._set_seat(svc.hall.live(a), 1, away=False, timeouts=1)
    await svc.tables.submit(a, 100, 0, "p1")  # the guest must pick (timeout at +100)
    clock.advance(50)
    await svc.timers.process()  # the reminder
    clock.advance(50)
    blip_on(db, "commit_step")
    with pytest.raises(StoreUnavailable):
        await svc.timers.process()


def lost_answer(db):
    """The next step is stored, but its answer never comes back."""
    real = db.commit_step

    async def commit(step):
        await real(step)
        db.commit_step = real
        raise StoreUnavailable(UNAVAILABLE)

    db.commit_step = commit


def blip(db):
    """The next step's commit meets the store away: nothing stored."""
    real = db.commit_step

    async def commit(step):
        db.commit_step = real
        raise StoreUnavailable(UNAVAILABLE)

    db.commit_step = commit


def lost_at_commit(db):
    """The next transaction's COMMIT never reaches the server: rolled back."""
    real = db._commit

    async def commit():
        db._commit = real
        await db._rollback()
        raise StoreUnavailable(UNAVAILABLE)

    db._commit = commit


async def test_a_step_whose_answer_was_lost_keeps_a_deadline_and_charges_nobody(two):
    svc, db, clock, a = two
    await svc.lobbies.start(a, 100)
    await svc.tables.submit(a, 100, 0, "p1")
    await svc.tables.submit(a, 200, 0, "p2")  # version 1: the host must say "ok"
    lost_answer(db)
    with pytest.raises(StoreUnavailable):
        await svc.tables.submit(a, 100, 1, "ok")
    assert (await db.get_table(a)).version == 2  # stored: both members must pick now
    for _ in range(2):  # nobody clicks; the step's deadline as stored runs
        clock.advance(50)
        await svc.timers.process()
    row, seats = await db.get_table(a), await db.seats(a)
    assert row.status == "running" and row.version == 3  # the step's timeout was played
    assert await db.timer(turn_key(a)) is not None and svc.timers.get(turn_key(a)) is not None
    assert [s.timeouts for s in seats] == [1, 1]  # the timed-out step counted once each; "ok" not counted


async def test_a_click_again_after_a_lost_answer_keeps_a_deadline(two):
    from bot.service import ServiceError

    svc, db, clock, a = two
    await svc.lobbies.start(a, 100)
    await svc.tables.submit(a, 100, 0, "p1")
    await svc.tables.submit(a, 200, 0, "p2")
    lost_answer(db)
    with pytest.raises(StoreUnavailable):
        await svc.tables.submit(a, 100, 1, "ok")
    with pytest.raises(ServiceError):  # the host clicks "ok" again: stale, the table reloads
        await svc.tables.submit(a, 100, 1, "ok")
    for _ in range(2):
        clock.advance(50)
        await svc.timers.process()
    assert await db.timer(turn_key(a)) is not None and svc.timers.get(turn_key(a)) is not None


async def test_an_away_member_back_through_a_click_the_store_refused_does_not_freeze_the_table(two):
    svc, db, clock, a = two
    await away_host_at_his_ok(svc, a)  # version 1: the host's "ok", the host away
    blip(db)
    with pytest.raises(StoreUnavailable):  # the host is back: his click meets the blip
        await svc.tables.submit(a, 100, 1, "ok")
    await svc.tables.idle()
    assert svc.timers.get(turn_key(a)) is not None  # his turn waits for him, with a deadline
    for _ in range(3):
        clock.advance(100)
        await svc.timers.process()
        await svc.tables.idle()
    assert (await db.get_table(a)).version > 1  # and the timeout played it


async def test_one_timeout_retried_through_a_blip_counts_once(two):
    svc, db, clock, a = two
    await svc.lobbies.start(a, 100)
    await svc.tables.submit(a, 100, 0, "p1")  # the guest must pick (reminder +50, timeout +100)
    clock.advance(50)
    await svc.timers.process()  # the reminder
    blip(db)
    clock.advance(50)
    with pytest.raises(StoreUnavailable):
        await svc.timers.process()  # the timeout meets the blip: tried again later
    await svc.timers.process()  # the store is back: the timeout is played
    guest = (await db.seats(a))[1]
    assert (await db.get_table(a)).version == 1
    assert (guest.timeouts, guest.away) == (1, False)


async def test_an_abandon_rolled_back_keeps_the_table_s_deadline_in_memory(two):
    svc, db, clock, a = two
    await svc.lobbies.start(a, 100)
    await svc.tables.submit(a, 100, 0, "p1")  # the guest must pick (deadline at +100)
    lost_at_commit(db)
    with pytest.raises(StoreUnavailable):  # the host's /table abandon: err.store_down
        await svc.tables.abandon(a, 100)
    assert (await db.get_table(a)).status == "running"
    assert await db.timer(turn_key(a)) is not None and svc.timers.get(turn_key(a)) is not None


async def test_a_start_rolled_back_keeps_the_lobby_s_expiry_in_memory(two):
    svc, db, clock, a = two
    lost_at_commit(db)
    with pytest.raises(StoreUnavailable):  # the host's Start: err.store_down
        await svc.lobbies.start(a, 100)
    assert (await db.get_table(a)).status == "lobby"
    assert await db.timer(lobby_key(a)) is not None and svc.timers.get(lobby_key(a)) is not None


# --- found by the review of the fixes above ------------------------------------------------------
async def test_a_table_read_again_after_a_lost_answer_starts_its_ai_driver(two):
    """The host is away (the AI plays him); the guest's pick is stored but its answer lost; the
    step stored makes the AI say "ok" for the host. Once the store answers, the table must go on."""
    svc, db, clock, a = two
    await svc.lobbies.start(a, 100)
    async with svc.hall.lock(a):
        await svc.tables.scheduler._set_seat(svc.hall.live(a), 0, away=True, timeouts=2)
    svc.tables.nudge(a)
    await svc.tables.idle()  # the AI picked for the host (buffered)
    lost_answer(db)
    with pytest.raises(StoreUnavailable):
        await svc.tables.submit(a, 200, 0, "p2")
    assert (await db.get_table(a)).version == 1  # stored: the (away) host's "ok", played by the AI
    from bot.service import ServiceError
    with pytest.raises(ServiceError):  # the guest clicks again: stale (the table is re-read)
        await svc.tables.submit(a, 200, 0, "p2")
    for _ in range(6):  # nobody clicks; deadlines run, drivers run
        clock.advance(100)
        await svc.timers.process()
        await svc.tables.idle()
    row = await db.get_table(a)
    # frozen: version 1, no deadline stored or remembered, no AI driver
    assert row.version > 1, (row.version, await db.timer(turn_key(a)), svc.timers.get(turn_key(a)),
                             svc.tables.driver.running(a))


async def test_a_timeout_retried_after_one_seat_was_counted_counts_each_seat_once(two):
    """Both members late in a simultaneous step; the timeout stores the host's count, then the
    guest's meets a blip. The retry must not count the host again (he timed out once)."""
    svc, db, clock, a = two
    await svc.lobbies.start(a, 100)  # both must pick (reminder +50, timeout +100)
    real = db.set_seat_state
    calls = []

    async def flaky(table_id, seat, *, away, timeouts):
        calls.append(seat)
        if len(calls) == 2:
            raise StoreUnavailable(UNAVAILABLE)
        await real(table_id, seat, away=away, timeouts=timeouts)

    db.set_seat_state = flaky
    clock.advance(50)
    await svc.timers.process()  # the reminder
    clock.advance(50)
    with pytest.raises(StoreUnavailable):
        await svc.timers.process()  # the timeout: host counted, the guest's count meets the blip
    db.set_seat_state = real
    await svc.timers.process()  # retried once the store answers
    seats = await db.seats(a)
    assert [(s.timeouts, s.away) for s in seats] == [(1, False), (1, False)]


async def test_an_away_member_back_through_a_click_during_a_real_outage_gets_a_deadline(tmp_path, pick_game):  # noqa: F811
    """As the away-member case above, but the store is away for more than one statement
    (another connection holds the SQLite file's write lock, as tests/test_outages does): the
    click's step and the deadline armed after it both fail; the deadline is kept in memory."""
    path = tmp_path / "busy.db"
    db = await SqliteStore.open(path, busy_timeout=0.05)
    other = sqlite3.connect(path, isolation_level=None)
    clock = FakeClock()
    svc = House(db, clock=clock, turn_timeout=100, lobby_timeout=1800, seed_source=lambda: 42)
    try:
        a = (await svc.lobbies.open(guild_id=1, channel_id=10, game="test-pick", host_user_id=100,
                                    host_name="Host")).id
        await svc.lobbies.join(a, 200, "Guest")
        await svc.lobbies.start(a, 100)
        async with svc.hall.lock(a):  # the host went away earlier (two timeouts)
            await svc.tables.scheduler._set_seat(svc.hall.live(a), 0, away=True, timeouts=2)
        svc.tables.nudge(a)
        await svc.tables.idle()  # the AI picked for the host
        await svc.tables.submit(a, 200, 0, "p2")  # version 1: the host's "ok"
        real = db.commit_step

        async def commit(step):  # the outage begins right after his click's "present" was stored
            db.commit_step = real
            other.execute("BEGIN IMMEDIATE")
            await real(step)

        db.commit_step = commit
        with pytest.raises(StoreUnavailable):
            await svc.tables.submit(a, 100, 1, "ok")
        other.execute("COMMIT")  # the store is back
        assert db.unavailable_since is not None
        await db.get_table(a)  # it answers
        await svc.tables.idle()
        await his_deadline_plays_his_step(svc, db, clock, a)
    finally:
        await svc.tables.close()
        other.close()
        await db.close()


def commit_answer_lost(db):
    """The next transaction's COMMIT reaches the server (committed) but its answer is lost."""
    real = db._commit

    async def commit():
        db._commit = real
        await real()
        raise StoreUnavailable(UNAVAILABLE)

    db._commit = commit


async def test_a_start_whose_commit_answer_was_lost_has_its_deadline_read_back(two):
    svc, db, clock, a = two
    commit_answer_lost(db)
    with pytest.raises(StoreUnavailable):  # the host's Start: err.store_down
        await svc.lobbies.start(a, 100)
    assert (await db.get_table(a)).status == "running"  # it did start
    stored, remembered = await db.timer(turn_key(a)), svc.timers.get(turn_key(a))
    for _ in range(5):  # nobody clicks (nobody got a board); the deadlines run
        clock.advance(100)
        await svc.timers.process()
        await svc.tables.idle()
    assert (await db.get_table(a)).version > 0, (stored, remembered, svc.timers.get(lobby_key(a)))


async def test_a_lobby_whose_open_commit_answer_was_lost_still_expires(two):
    svc, db, clock, a = two
    commit_answer_lost(db)
    with pytest.raises(StoreUnavailable):
        await svc.lobbies.open(guild_id=1, channel_id=12, game="test-pick", host_user_id=300, host_name="Bea")
    lobby = (await db.open_lobby_of(1, 12, 300))
    assert lobby is not None and await db.timer(lobby_key(lobby.id)) is not None  # stored, with its expiry
    clock.advance(4000)
    await svc.timers.process()
    assert (await db.get_table(lobby.id)).status == "abandoned", svc.timers.get(lobby_key(lobby.id))


async def test_a_pick_whose_answer_was_lost_is_read_again_and_applied_with_the_next(two):
    """The host's pick of a simultaneous step is stored but its answer lost. The guest's pick
    then applies the step with both members' picks (the table read again), and nobody is
    charged a timeout."""
    svc, db, clock, a = two
    await svc.lobbies.start(a, 100)
    real = db.set_pending

    async def lost(*args):
        db.set_pending = real
        await real(*args)
        raise StoreUnavailable(UNAVAILABLE)

    db.set_pending = lost
    with pytest.raises(StoreUnavailable):
        await svc.tables.submit(a, 100, 0, "p1")
    assert set(await db.pending(a, 0)) == {0}  # stored
    result = await svc.tables.submit(a, 200, 0, "p2")  # the store answers again
    assert result.status == "applied"
    assert (await db.action_log(a))[0] == (0, {0: "p1", 1: "p2"}, "user")
    assert [s.timeouts for s in await db.seats(a)] == [0, 0]


async def test_a_backfill_interrupted_by_a_blip_fills_everything_at_the_next_start(community_env, db_url):  # noqa: F811
    """The first start after the upgrade fills the rating history of the older results; the
    store blips after the first result was filled (the start fails, the bot starts again). The
    second start must fill the rest; the cutoff (MIN(table_id) of the history) excludes them."""
    svc, db, clock, rec = community_env
    ids = [await play_one(svc), await play_one(svc, winner=200, loser=100), await play_one(svc)]
    await raw_sql(db_url, "DELETE FROM rating_history")  # a database of the previous version
    real = db.record_rating_history
    calls = []

    async def flaky(*args, **kw):
        calls.append(args)
        if len(calls) == 2:
            raise StoreUnavailable(UNAVAILABLE)
        await real(*args, **kw)

    db.record_rating_history = flaky
    with pytest.raises(StoreUnavailable):
        await svc.seasons.backfill()  # the first start meets the blip
    db.record_rating_history = real
    await svc.seasons.backfill()  # the next start
    filled = {p.table_id for p in await db.rating_history(1, "test-pick", 100)}
    assert filled == set(ids)


def blip_on(db, name):
    """The next call of the store's method ``name`` meets the store away (nothing stored)."""
    real = getattr(db, name)

    async def fail(*args, **kw):
        setattr(db, name, real)
        raise StoreUnavailable(UNAVAILABLE)

    setattr(db, name, fail)


async def test_a_timeout_retried_after_a_blip_tells_its_member_once(two):
    """The guest's second timeout in a row makes him away; the timeout's move meets a blip and
    is retried: he is told neither that he timed out nor that he went away."""
    svc, db, clock, a = two
    heard = Heard.on(svc)
    await second_timeout_meets_a_blip(svc, db, clock, a)
    await svc.timers.process()  # retried
    await svc.tables.idle()
    seats = await db.seats(a)
    assert (seats[1].timeouts, seats[1].away) == (2, True)
    assert (await db.get_table(a)).version >= 1
    assert heard == [("timed_out", (1,)), ("went_away", 1)]


async def test_a_table_abandoned_during_a_timeout_retry_forgets_its_timeouts(two):
    svc, db, clock, a = two
    await svc.lobbies.start(a, 100)
    await svc.tables.submit(a, 100, 0, "p1")
    clock.advance(100)
    blip_on(db, "commit_step")
    with pytest.raises(StoreUnavailable):
        await svc.timers.process()  # the timeout counted, its move met a blip
    await svc.tables.abandon(a, 100)  # the host ends the table meanwhile
    await svc.timers.process()
    assert svc.timers.get(turn_key(a)) is None and (await db.get_table(a)).status == "abandoned"
    assert svc.tables.scheduler._counted == {}


async def test_a_member_back_through_his_panel_during_a_blip_keeps_a_deadline(two):
    """Tables.back: 'present' is stored (he is no longer away), then arming his step's deadline
    meets a blip: the deadline is kept in memory, and its timeout plays his step."""
    svc, db, clock, a = two
    await away_host_at_his_ok(svc, a)  # version 1: the host's "ok", the host away
    blip_on(db, "set_timers")
    with pytest.raises(StoreUnavailable):
        await svc.tables.back(a, 100)  # he opens his panel
    await svc.tables.idle()
    await his_deadline_plays_his_step(svc, db, clock, a)


# --- found by the review of those mends --------------------------------------------------------------
async def test_an_ai_step_whose_answer_was_lost_has_the_next_step_s_deadline_read_back(two):
    """Host away (AI plays him). The AI's "ok" is stored but its answer lost; the stored step
    makes both pick; the AI picks for the host; the guest (a member) must pick: his deadline
    is in the store but never in memory, so the table waits for him for ever."""
    svc, db, clock, a = two
    await away_host_at_his_ok(svc, a)  # version 1: the host's "ok", the host away
    lost_answer(db)  # the next step stored is the AI's "ok" for the host
    await svc.tables.idle()
    assert (await db.get_table(a)).version == 2  # the "ok" was stored
    stored, remembered = await db.timer(turn_key(a)), svc.timers.get(turn_key(a))
    for _ in range(6):  # the guest never clicks; deadlines should run
        clock.advance(100)
        await svc.timers.process()
        await svc.tables.idle()
    row = await db.get_table(a)
    assert row.version > 2, (stored, remembered, svc.timers.get(turn_key(a)))


async def test_a_read_back_asked_while_the_timer_task_runs_a_handler_is_done(tmp_path):
    """A COMMIT whose answer was lost asks the task to read a key back (Timers.reread) while the
    task runs another timer's handler: the task neither wakes for it nor reads it back; it
    ends (no timer left) and the stored timer is never remembered."""
    db = await SqliteStore.open(tmp_path / "t.db")
    clock = FakeClock()
    timers = Timers(db, clock)
    entered, gate = asyncio.Event(), asyncio.Event()

    async def slow(row):
        entered.set()
        await gate.wait()

    timers.handle("x", slow)
    timers.handle("y", lambda row: asyncio.sleep(0))
    try:
        await timers.schedule("x:1", clock.now())  # due now
        timers.start()
        await entered.wait()  # the task runs x:1's handler
        commit_answer_lost(db)
        with pytest.raises(StoreUnavailable):
            async with db.transaction():
                await timers.schedule("y:1", clock.now() + 5)
        assert await db.timer("y:1") is not None  # it was stored
        gate.set()
        for _ in range(20):
            await asyncio.sleep(0.01)
        assert timers.get("y:1") is not None, (timers._reread, timers.task.done())
    finally:
        for t in timers.shutdown():
            t.cancel()
        await db.close()


async def test_a_member_back_between_two_tries_of_a_timeout_is_not_told_he_went_away(two):
    svc, db, clock, a = two
    heard = Heard.on(svc)
    await second_timeout_meets_a_blip(svc, db, clock, a)
    assert await svc.tables.back(a, 200)  # he opens his panel: back, not away
    await svc.timers.process()  # the timeout retried
    await svc.tables.idle()
    seats = await db.seats(a)
    assert seats[1].away is False
    assert ("went_away", 1) not in heard, heard


async def test_a_deadline_kept_in_memory_during_an_outage_survives_a_read_back(two):
    """An abandon whose COMMIT is lost (rolled back) asks for the turn timer to be read back;
    during the same outage the away host comes back through his panel, and his step's
    deadline is kept in memory only (keep_or_arm_now). The read back then drops it: his step
    has no deadline at all."""
    from tests.test_store_answers import lost_at_commit

    svc, db, clock, a = two
    await away_host_at_his_ok(svc, a)  # version 1: the host's "ok", the host away
    lost_at_commit(db)
    with pytest.raises(StoreUnavailable):
        await svc.tables.abandon(a, 100)  # rolled back; the turn key is to be read back
    blip_on(db, "set_timers")
    with pytest.raises(StoreUnavailable):
        await svc.tables.back(a, 100)  # he opens his panel: deadline in memory only
    assert svc.timers.get(turn_key(a)) is not None and svc.timers._reread == {turn_key(a)}
    assert (await db.seats(a))[0].away is False  # he is back: his turn waits for him
    await svc.timers.process()  # the store answers: the key is read back (none stored)
    assert svc.timers.get(turn_key(a)) is not None, "the in-memory deadline was dropped by the read back"
    await svc.tables.idle()
    for _ in range(4):
        clock.advance(60)
        await svc.timers.process()
        await svc.tables.idle()
    assert (await db.get_table(a)).version > 1, (svc.timers.get(turn_key(a)), await db.timer(turn_key(a)))


async def test_a_table_finished_by_a_click_during_a_timeout_retry_forgets_its_timeouts(env):  # noqa: F811
    """A timeout try counts the guest, its move meets a blip; the guest then plays and the host
    finishes the game (one round): Scheduler._counted keeps the table's entry for ever."""
    svc, db, clock, _ = env
    t = await svc.lobbies.open(guild_id=1, channel_id=10, game="test-pick", host_user_id=100,
                               host_name="W", options={"rounds": 1})
    await svc.lobbies.join(t.id, 200, "L")
    await svc.lobbies.start(t.id, 100)
    await svc.tables.submit(t.id, 100, 0, "p3")
    clock.advance(100)
    blip_on(db, "commit_step")
    with pytest.raises(StoreUnavailable):
        await svc.timers.process()  # the guest counted, the timeout's move met a blip
    await svc.tables.submit(t.id, 200, 0, "p1")  # he plays after all
    await svc.tables.submit(t.id, 100, 1, "ok")
    assert (await db.get_table(t.id)).status == "finished"
    await svc.timers.process()
    assert svc.tables.scheduler._counted == {}


