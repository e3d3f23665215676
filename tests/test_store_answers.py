"""A store that fails to answer one statement: a step stored whose answer was lost, a blip at
a commit (nothing stored), a connection lost at COMMIT (the transaction rolled back). The table
goes on: one deadline for its step as stored, nobody charged a timeout twice or for a step
they played, the in-memory timers as the store has them. (Whole outages: tests/test_outages.py.)
"""

from __future__ import annotations

import pytest

from bot.timers import lobby_key, turn_key
from storage.base import StoreUnavailable
from tests.test_service import env, pick_game  # noqa: F401 - fixtures

UNAVAILABLE = "the database is unavailable (ConnectionResetError)"


@pytest.fixture
async def two(env):  # noqa: F811 - tests.test_service's fixture
    """A two-member lobby of Pick (host 100, guest 200): ``(svc, db, clock, table id)``."""
    svc, db, clock, _ = env
    a = (await svc.lobbies.open(guild_id=1, channel_id=10, game="test-pick", host_user_id=100, host_name="Host")).id
    await svc.lobbies.join(a, 200, "Guest")
    return svc, db, clock, a


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
    for _ in range(4):  # nobody clicks; the deadlines run
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
    await svc.lobbies.start(a, 100)
    async with svc.hall.lock(a):  # the host went away earlier (two timeouts)
        await svc.tables.scheduler._set_seat(svc.hall.live(a), 0, away=True, timeouts=2)
    svc.tables.nudge(a)
    await svc.tables.idle()  # the AI picked for the host
    await svc.tables.submit(a, 200, 0, "p2")  # version 1: the host's "ok"
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
