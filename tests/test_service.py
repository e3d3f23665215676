"""TableService tests: real SQLite in a temporary folder, a fake clock, no Discord."""

from __future__ import annotations

import asyncio

import pytest

from bot.service import Notifier, ServiceError, TableService
from engine import registry
from storage.db import Database
from tests.simgame import PickGame


class FakeClock:
    def __init__(self, t: float = 1_000_000.0) -> None:
        self.t = t

    def now(self) -> float:
        return self.t

    def advance(self, seconds: float) -> None:
        self.t += seconds


class Recorder(Notifier):
    def __init__(self) -> None:
        self.calls: list[tuple[str, tuple]] = []

    async def step_applied(self, table, events):
        self.calls.append(("step", (table.version, [e.key for e in events])))

    async def choice_buffered(self, table, seat):
        self.calls.append(("buffered", (seat,)))

    async def reminder(self, table, seats):
        self.calls.append(("reminder", tuple(seats)))

    async def timed_out(self, table, seats):
        self.calls.append(("timeout", tuple(seats)))

    async def table_finished(self, table, outcome):
        self.calls.append(("finished", (outcome.ranks,)))

    def names(self):
        return [c[0] for c in self.calls]


@pytest.fixture
def pick_game(monkeypatch):
    game = PickGame()
    monkeypatch.setitem(registry.GAMES, game.key, game)
    # bot.service imported GAMES by reference: the same dict object
    return game


@pytest.fixture
async def env(tmp_path, pick_game):
    db = await Database.open(tmp_path / "t.db")
    clock = FakeClock()
    rec = Recorder()
    svc = TableService(db, clock=clock, notifier=rec, turn_timeout=100, seed_source=lambda: 42)
    yield svc, db, clock, rec
    await svc.close()
    await db.close()


async def open_two(svc: TableService, game: str = "test-pick", options=None):
    t = await svc.open_lobby(guild_id=1, channel_id=10, game=game, host_user_id=100, host_name="Host",
                             options=options)
    await svc.join(t.id, 200, "Guest")
    return t.id


async def test_migrations_are_tracked(tmp_path):
    db = await Database.open(tmp_path / "m.db")
    from storage.db import MIGRATIONS
    assert await db.schema_version() == len(MIGRATIONS)
    await db.close()
    db = await Database.open(tmp_path / "m.db")  # reopening does not re-run them
    assert await db.schema_version() == len(MIGRATIONS)
    await db.close()


async def test_lobby_rules(env):
    svc, db, clock, rec = env
    tid = await open_two(svc)
    with pytest.raises(ServiceError) as e:
        await svc.join(tid, 200, "Guest")
    assert e.value.key == "err.already_seated"
    with pytest.raises(ServiceError) as e:
        await svc.add_ai(tid, 200)
    assert e.value.key == "err.host_only"
    with pytest.raises(ServiceError) as e:
        await svc.start(tid, 200)
    assert e.value.key == "err.host_only"
    with pytest.raises(ServiceError) as e:
        await svc.leave(tid, 100)
    assert e.value.key == "err.host_cannot_leave"
    await svc.add_ai(tid, 100)
    await svc.add_ai(tid, 100)
    with pytest.raises(ServiceError) as e:
        await svc.add_ai(tid, 100)
    assert e.value.key == "err.table_full"
    # a member takes the place of an AI player when the table is full
    view = await svc.join(tid, 300, "Third")
    assert [s.user_id for s in view.seats] == [100, 200, None, 300]
    view = await svc.leave(tid, 200)
    assert [s.seat for s in view.seats] == [0, 1, 2]
    with pytest.raises(ServiceError) as e:
        await svc.leave(tid, 200)
    assert e.value.key == "err.not_seated"
    with pytest.raises(ServiceError) as e:
        await svc.set_option(tid, 100, "rounds", "lots")
    assert e.value.key == "err.bad_option"
    view = await svc.set_option(tid, 100, "rounds", 3)
    assert view.row.options == {"rounds": 3}


async def test_start_needs_enough_players(env):
    svc, *_ = env
    t = await svc.open_lobby(guild_id=1, channel_id=10, game="test-pick", host_user_id=100, host_name="Host")
    with pytest.raises(ServiceError) as e:
        await svc.start(t.id, 100)
    assert e.value.key == "err.not_enough_players"
    view = await svc.start(t.id, 100, fill_with_ai=True)
    assert view.row.status == "running" and len(view.seats) == 2 and view.seats[1].is_ai


async def test_simultaneous_choices_are_buffered_and_changeable(env):
    svc, db, clock, rec = env
    tid = await open_two(svc)
    await svc.start(tid, 100)
    view = await svc.table(tid)
    assert view.to_act() == {0, 1}
    assert (await svc.submit(tid, 100, 0, "p3")).status == "buffered"
    # nothing applied yet; the seat may change its choice with the same version
    assert (await svc.submit(tid, 100, 0, "p2")).status == "buffered"
    assert (await svc.table(tid)).version == 0
    assert (await svc.submit(tid, 200, 0, "p3")).status == "applied"
    view = await svc.table(tid)
    assert view.version == 1
    assert view.state.scores == (2, 3)  # the changed choice (p2) was used, not p3
    assert view.state.picks == (2, 3)
    log = await db.action_log(tid)
    assert log == [(0, {0: "p2", 1: "p3"}, "user")]


async def test_pending_choices_survive_a_restart(env, tmp_path):
    svc, db, clock, rec = env
    tid = await open_two(svc)
    await svc.start(tid, 100)
    await svc.submit(tid, 100, 0, "p1")
    # a new service on the same database (a restart) keeps the buffered choice
    svc2 = TableService(db, clock=clock, turn_timeout=100)
    assert await svc2.resume() == [tid]
    assert (await svc2.submit(tid, 200, 0, "p2")).status == "applied"
    assert (await svc2.table(tid)).state.scores == (1, 2)
    await svc2.close()


async def test_refusals_stale_double_foreign_and_illegal(env):
    svc, db, clock, rec = env
    tid = await open_two(svc)
    await svc.start(tid, 100)
    await svc.submit(tid, 100, 0, "p1")
    await svc.submit(tid, 200, 0, "p2")  # version 1: seat 0 must confirm
    for user, version, code, key in [
        (999, 1, "ok", "err.not_seated"),     # a stranger
        (100, 0, "ok", "err.stale"),          # an old button
        (200, 1, "ok", "err.not_your_turn"),  # not this seat's turn
        (100, 1, "p1", "err.illegal"),        # not legal now
        (100, 1, "DROP TABLE", "err.illegal"),  # malformed
    ]:
        with pytest.raises(ServiceError) as e:
            await svc.submit(tid, user, version, code)
        assert e.value.key == key
    assert (await svc.submit(tid, 100, 1, "ok")).status == "applied"
    with pytest.raises(ServiceError) as e:  # the same click again
        await svc.submit(tid, 100, 1, "ok")
    assert e.value.key == "err.stale"
    assert len(await db.action_log(tid)) == 2


async def test_concurrent_clicks_apply_once(env):
    svc, db, clock, rec = env
    tid = await open_two(svc)
    await svc.start(tid, 100)
    await svc.submit(tid, 100, 0, "p1")
    await svc.submit(tid, 200, 0, "p2")
    results = await asyncio.gather(*(svc.submit(tid, 100, 1, "ok") for _ in range(5)), return_exceptions=True)
    applied = [r for r in results if not isinstance(r, Exception) and r.status == "applied"]
    refused = [r for r in results if isinstance(r, ServiceError)]
    assert len(applied) == 1 and len(refused) == 4
    assert all(r.key == "err.stale" for r in refused)
    assert len(await db.action_log(tid)) == 2


async def test_ai_seats_play_and_game_finishes_with_ratings(env):
    svc, db, clock, rec = env
    t = await svc.open_lobby(guild_id=1, channel_id=10, game="test-pick", host_user_id=100, host_name="Host",
                             options={"rounds": 1})
    await svc.add_ai(t.id, 100)
    await svc.start(t.id, 100)
    await svc.idle()
    # the AI buffered its choice; the member's choice completes the step
    assert (await svc.table(t.id)).pending.keys() == {1}
    await svc.submit(t.id, 100, 0, "p3")  # AI picks (1+1)%3 -> p3 too: both score 0
    await svc.submit(t.id, 100, 1, "ok")
    await svc.idle()
    view = await svc.table(t.id)
    assert view.row.status == "finished"
    assert "finished" in rec.names()
    stats = await svc.stats(1, 100)
    assert stats["test-pick"].played == 1 and stats["test-pick"].won == 1  # tie 0-0 shares first place
    assert await db.deadlines() == []


async def test_ratings_move_winner_up(env):
    svc, db, clock, rec = env
    for _ in range(3):
        tid = await open_two(svc, options={"rounds": 1})
        await svc.start(tid, 100)
        await svc.submit(tid, 100, 0, "p3")
        await svc.submit(tid, 200, 0, "p1")
        await svc.submit(tid, 100, 1, "ok")
    board = await svc.leaderboard(1, "test-pick")
    assert [r.user_id for r in board] == [100, 200]
    assert board[0].won == 3 and board[1].won == 0 and board[0].played == 3
    assert board[0].mu > 25 > board[1].mu
    assert await svc.leaderboard(2, "test-pick") == []  # another guild has its own board


async def test_leaderboard_minimum_games(env):
    svc, db, clock, rec = env
    tid = await open_two(svc, options={"rounds": 1})
    await svc.start(tid, 100)
    await svc.submit(tid, 100, 0, "p3")
    await svc.submit(tid, 200, 0, "p1")
    await svc.submit(tid, 100, 1, "ok")
    assert await svc.leaderboard(1, "test-pick") == []  # 1 game < 3 minimum
    svc.leaderboard_min_games = 1
    assert len(await svc.leaderboard(1, "test-pick")) == 2


async def test_deadline_reminds_then_ai_acts(env):
    svc, db, clock, rec = env
    tid = await open_two(svc)
    await svc.start(tid, 100)
    await svc.submit(tid, 100, 0, "p1")
    assert await svc.process_deadlines() == clock.now() + 50
    clock.advance(51)
    await svc.process_deadlines()
    assert ("reminder", (1,)) in rec.calls  # only the seat that has not chosen
    clock.advance(50)
    await svc.process_deadlines()
    assert ("timeout", (1,)) in rec.calls
    view = await svc.table(tid)
    assert view.version == 1
    log = await db.action_log(tid)
    assert log[-1][2] == "timeout" and log[-1][1][0] == "p1"


async def test_deadlines_survive_restart(env):
    svc, db, clock, rec = env
    tid = await open_two(svc)
    await svc.start(tid, 100)
    await svc.close()
    rec2 = Recorder()
    svc2 = TableService(db, clock=clock, notifier=rec2, turn_timeout=100)
    await svc2.resume()
    clock.advance(101)
    await svc2.process_deadlines()
    assert ("timeout", (0, 1)) in rec2.calls
    assert (await svc2.table(tid)).version == 1
    await svc2.close()


async def test_abandon_by_host_or_admin_only(env):
    svc, db, clock, rec = env
    tid = await open_two(svc)
    await svc.start(tid, 100)
    with pytest.raises(ServiceError) as e:
        await svc.abandon(tid, 200)
    assert e.value.key == "err.host_or_admin"
    view = await svc.abandon(tid, 200, is_admin=True)
    assert view.row.status == "abandoned"
    with pytest.raises(ServiceError) as e:
        await svc.submit(tid, 100, 0, "p1")
    assert e.value.key == "err.table_not_running"
    assert await db.deadlines() == []


async def test_corrupt_snapshot_is_abandoned_not_crashing(env):
    svc, db, clock, rec = env
    tid = await open_two(svc)
    await svc.start(tid, 100)
    await db.update_table(tid, clock.now(), state={"garbage": True})
    svc2 = TableService(db, clock=clock, turn_timeout=100)
    assert await svc2.resume() == []
    assert (await db.get_table(tid)).status == "abandoned"
    await svc2.close()


async def test_replay_from_action_log_gives_the_snapshot(env):
    svc, db, clock, rec = env
    tid = await open_two(svc, options={"rounds": 2})
    await svc.start(tid, 100)
    for v, (a, b) in enumerate([("p1", "p2"), ("p3", "p3")]):
        await svc.submit(tid, 100, 2 * v, a)
        await svc.submit(tid, 200, 2 * v, b)
        await svc.submit(tid, 100, 2 * v + 1, "ok")
    row = await db.get_table(tid)
    game = registry.GAMES["test-pick"]
    state = game.setup(row.seed, 2, row.options)
    for version, actions, _ in await db.action_log(tid):
        assert state.version == version
        state = game.apply(state, {s: game.decode(c) for s, c in actions.items()}).state
    assert game.dump_state(state) == row.state


async def test_opening_events_are_recorded_when_the_table_starts(tmp_path):
    # Shop Battle, seed 1, 3 players: the first chooser's top card is a Collector (scout), revealed
    # during setup; its public reveal and the owner's private result must reach the event log.
    db = await Database.open(tmp_path / "o.db")
    svc = TableService(db, clock=FakeClock(), seed_source=lambda: 1)
    t = await svc.open_lobby(guild_id=1, channel_id=1, game="shop-battle", host_user_id=1, host_name="h",
                             options={"round_cap": 10})
    await svc.add_ai(t.id, 1)
    await svc.add_ai(t.id, 1)
    await svc.start(t.id, 1)
    events = await svc.recent_events(t.id)
    keys = [(e.key, e.audience) for e in events]
    assert ("sb.ev.collector", None) in keys
    assert ("sb.ev.scout_result", frozenset({0})) in keys
    await svc.close()
    await db.close()


async def test_a_failing_ai_is_retried_then_the_table_is_abandoned_not_left_hanging(env, monkeypatch):
    import bot.driver as driver_module

    svc, db, clock, rec = env
    monkeypatch.setattr(driver_module, "AI_RETRY_SECONDS", 0)
    calls = []

    def broken(state, seat):
        calls.append(seat)
        raise RuntimeError("engine bug")

    monkeypatch.setattr(registry.GAMES["test-pick"], "ai_action", broken)
    t = await svc.open_lobby(guild_id=1, channel_id=10, game="test-pick", host_user_id=100, host_name="Host")
    await svc.add_ai(t.id, 100)
    await svc.start(t.id, 100)
    await svc.idle()
    assert len(calls) == driver_module.MAX_AI_FAILURES
    assert (await svc.table(t.id)).row.status == "abandoned"


async def test_one_broken_table_does_not_stop_other_tables_deadlines(env, monkeypatch):
    svc, db, clock, rec = env
    game = registry.GAMES["test-pick"]
    first = await open_two(svc)
    second = await open_two(svc)
    await svc.start(first, 100)
    await svc.start(second, 100)
    real = game.timeout_action
    broken_state = (await svc.table(first)).state

    def timeout_action(state, seat):
        if state is broken_state:
            raise RuntimeError("broken table")
        return real(state, seat)

    monkeypatch.setattr(game, "timeout_action", timeout_action)
    clock.advance(101)
    await svc.process_deadlines()
    assert (await svc.table(second)).version == 1  # the healthy table timed out normally
    assert (await svc.table(first)).row.status == "abandoned"  # the broken one was given up
    assert [d[0] for d in await db.deadlines()] == [second]  # only the healthy table's next step


async def test_a_member_who_keeps_timing_out_is_away_until_they_come_back(env):
    svc, db, clock, rec = env
    rec_calls = rec.calls
    tid = await open_two(svc, options={"rounds": 3})
    await svc.start(tid, 100)
    clock.advance(101)
    await svc.process_deadlines()  # round 1: both members time out (1 in a row each)
    clock.advance(101)
    await svc.process_deadlines()  # seat 0 must confirm and times out again: away
    await svc.idle()
    view = await svc.table(tid)
    assert view.seats[0].away and not view.seats[1].away
    # round 2 (simultaneous): the AI chose for the away member at once; only seat 1 is waited for
    assert view.version == 2 and 0 in view.pending and view.waiting_for() == [1]
    assert [d[1] for d in await db.deadlines()] == [2]
    assert (await db.seats(tid))[0].away  # persisted: a restart keeps it
    # the member comes back (opens their panel): their turns wait for them again
    assert await svc.back(tid, 100) is True
    assert not (await svc.table(tid)).seats[0].away
    assert await svc.back(tid, 100) is False
    await svc.submit(tid, 200, 2, "p1")
    view = await svc.table(tid)
    assert view.version == 3 and view.to_act() == {0}  # seat 0 confirms: a member's turn again
    assert [d[1] for d in await db.deadlines()] == [3]
    assert rec_calls.count(("timeout", (0, 1))) == 1
