"""The table services (bot.house.House: lobbies, running tables, decks, records; the scheduler
and the driver alone): a real store, a fake clock, no Discord."""

from __future__ import annotations

import asyncio

import pytest

from bot.games import GAMES
from bot.house import House
from bot.service import Notifier, ServiceError, event_from
from storage.factory import open_store
from tests.simgame import register_pick


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
def pick_game():
    with register_pick() as spec:
        yield spec.game


@pytest.fixture
async def env(db_url, pick_game):
    db = await open_store(db_url)
    clock = FakeClock()
    rec = Recorder()
    svc = House(db, clock=clock, notifier=rec, turn_timeout=100, seed_source=lambda: 42)
    yield svc, db, clock, rec
    await svc.tables.close()
    await db.close()


async def open_two(svc: House, game: str = "test-pick", options=None, channel_id: int = 10):
    t = await svc.lobbies.open(guild_id=1, channel_id=channel_id, game=game, host_user_id=100, host_name="Host",
                               options=options)
    await svc.lobbies.join(t.id, 200, "Guest")
    return t.id


async def test_migrations_are_tracked(db_url):
    db = await open_store(db_url)
    from storage.migrations import latest
    assert await db.schema_version() == latest()
    await db.close()
    db = await open_store(db_url)  # reopening does not re-run them
    assert await db.schema_version() == latest()
    await db.close()


async def test_lobby_rules(env):
    svc, db, clock, rec = env
    tid = await open_two(svc)
    with pytest.raises(ServiceError) as e:
        await svc.lobbies.join(tid, 200, "Guest")
    assert e.value.key == "err.already_seated"
    with pytest.raises(ServiceError) as e:
        await svc.lobbies.add_ai(tid, 200)
    assert e.value.key == "err.host_only"
    with pytest.raises(ServiceError) as e:
        await svc.lobbies.start(tid, 200)
    assert e.value.key == "err.host_only"
    with pytest.raises(ServiceError) as e:
        await svc.lobbies.leave(tid, 100)
    assert e.value.key == "err.host_cannot_leave"
    await svc.lobbies.add_ai(tid, 100)
    await svc.lobbies.add_ai(tid, 100)
    with pytest.raises(ServiceError) as e:
        await svc.lobbies.add_ai(tid, 100)
    assert e.value.key == "err.table_full"
    # a member takes the place of an AI player when the table is full
    view = await svc.lobbies.join(tid, 300, "Third")
    assert [s.user_id for s in view.seats] == [100, 200, None, 300]
    view = await svc.lobbies.leave(tid, 200)
    assert [s.seat for s in view.seats] == [0, 1, 2]
    with pytest.raises(ServiceError) as e:
        await svc.lobbies.leave(tid, 200)
    assert e.value.key == "err.not_seated"
    with pytest.raises(ServiceError) as e:
        await svc.lobbies.set_option(tid, 100, "rounds", "lots")
    assert e.value.key == "err.bad_option"
    view = await svc.lobbies.set_option(tid, 100, "rounds", 3)
    assert view.row.options == {"rounds": 3}


async def test_start_needs_enough_players(env):
    svc, *_ = env
    t = await svc.lobbies.open(guild_id=1, channel_id=10, game="test-pick", host_user_id=100, host_name="Host")
    with pytest.raises(ServiceError) as e:
        await svc.lobbies.start(t.id, 100)
    assert e.value.key == "err.not_enough_players"
    view = await svc.lobbies.start(t.id, 100, fill_with_ai=True)
    assert view.row.status == "running" and len(view.seats) == 2 and view.seats[1].is_ai


async def test_simultaneous_choices_are_buffered_and_changeable(env):
    svc, db, clock, rec = env
    tid = await open_two(svc)
    await svc.lobbies.start(tid, 100)
    view = await svc.hall.table(tid)
    assert view.to_act() == {0, 1}
    assert (await svc.tables.submit(tid, 100, 0, "p3")).status == "buffered"
    # nothing applied yet; the seat may change its choice with the same version
    assert (await svc.tables.submit(tid, 100, 0, "p2")).status == "buffered"
    assert (await svc.hall.table(tid)).version == 0
    assert (await svc.tables.submit(tid, 200, 0, "p3")).status == "applied"
    view = await svc.hall.table(tid)
    assert view.version == 1
    assert view.state.scores == (2, 3)  # the changed choice (p2) was used, not p3
    assert view.state.picks == (2, 3)
    log = await db.action_log(tid)
    assert log == [(0, {0: "p2", 1: "p3"}, "user")]


async def test_a_seat_s_legal_codes_exist_only_while_it_must_act(env):
    svc, db, clock, rec = env
    tid = await open_two(svc, options={"rounds": 1})
    assert (await svc.hall.table(tid)).legal_codes(0) == ()  # a lobby: no game yet
    await svc.lobbies.start(tid, 100)
    view = await svc.hall.table(tid)
    assert view.legal_codes(0) == view.legal_codes(1) == ("p1", "p2", "p3")  # both pick
    await svc.tables.submit(tid, 100, 0, "p1")
    await svc.tables.submit(tid, 200, 0, "p2")
    view = await svc.hall.table(tid)
    assert view.to_act() == {0} and view.legal_codes(0) == ("ok",) and view.legal_codes(1) == ()
    await svc.tables.submit(tid, 100, 1, "ok")
    view = await svc.hall.table(tid)
    assert view.row.status == "finished" and view.legal_codes(0) == view.legal_codes(1) == ()


async def test_pending_choices_survive_a_restart(env, tmp_path):
    svc, db, clock, rec = env
    tid = await open_two(svc)
    await svc.lobbies.start(tid, 100)
    await svc.tables.submit(tid, 100, 0, "p1")
    # a new service on the same database (a restart) keeps the buffered choice
    svc2 = House(db, clock=clock, turn_timeout=100)
    assert await svc2.tables.resume() == [tid]
    assert (await svc2.tables.submit(tid, 200, 0, "p2")).status == "applied"
    assert (await svc2.hall.table(tid)).state.scores == (1, 2)
    await svc2.tables.close()


async def test_refusals_stale_double_foreign_and_illegal(env):
    svc, db, clock, rec = env
    tid = await open_two(svc)
    await svc.lobbies.start(tid, 100)
    await svc.tables.submit(tid, 100, 0, "p1")
    await svc.tables.submit(tid, 200, 0, "p2")  # version 1: seat 0 must confirm
    for user, version, code, key in [
        (999, 1, "ok", "err.not_seated"),     # a stranger
        (100, 0, "ok", "err.stale"),          # an old button
        (200, 1, "ok", "err.not_your_turn"),  # not this seat's turn
        (100, 1, "p1", "err.illegal"),        # not legal now
        (100, 1, "DROP TABLE", "err.illegal"),  # malformed
    ]:
        with pytest.raises(ServiceError) as e:
            await svc.tables.submit(tid, user, version, code)
        assert e.value.key == key
    assert (await svc.tables.submit(tid, 100, 1, "ok")).status == "applied"
    with pytest.raises(ServiceError) as e:  # the same click again
        await svc.tables.submit(tid, 100, 1, "ok")
    assert e.value.key == "err.stale"
    assert len(await db.action_log(tid)) == 2


async def test_concurrent_clicks_apply_once(env):
    svc, db, clock, rec = env
    tid = await open_two(svc)
    await svc.lobbies.start(tid, 100)
    await svc.tables.submit(tid, 100, 0, "p1")
    await svc.tables.submit(tid, 200, 0, "p2")
    results = await asyncio.gather(*(svc.tables.submit(tid, 100, 1, "ok") for _ in range(5)), return_exceptions=True)
    applied = [r for r in results if not isinstance(r, Exception) and r.status == "applied"]
    refused = [r for r in results if isinstance(r, ServiceError)]
    assert len(applied) == 1 and len(refused) == 4
    assert all(r.key == "err.stale" for r in refused)
    assert len(await db.action_log(tid)) == 2


async def test_ai_seats_play_and_game_finishes_with_ratings(env):
    svc, db, clock, rec = env
    t = await svc.lobbies.open(guild_id=1, channel_id=10, game="test-pick", host_user_id=100, host_name="Host",
                               options={"rounds": 1})
    await svc.lobbies.add_ai(t.id, 100)
    await svc.lobbies.start(t.id, 100)
    await svc.tables.idle()
    # the AI buffered its choice; the member's choice completes the step
    assert (await svc.hall.table(t.id)).pending.keys() == {1}
    await svc.tables.submit(t.id, 100, 0, "p3")  # AI picks (1+1)%3 -> p3 too: both score 0
    await svc.tables.submit(t.id, 100, 1, "ok")
    await svc.tables.idle()
    view = await svc.hall.table(t.id)
    assert view.row.status == "finished"
    assert "finished" in rec.names()
    stats = await svc.records.stats(1, 100)
    assert stats["test-pick"].played == 1 and stats["test-pick"].won == 1  # tie 0-0 shares first place
    assert await db.timers() == [] and len(svc.timers) == 0


async def test_ratings_move_winner_up(env):
    svc, db, clock, rec = env
    for _ in range(3):
        tid = await open_two(svc, options={"rounds": 1})
        await svc.lobbies.start(tid, 100)
        await svc.tables.submit(tid, 100, 0, "p3")
        await svc.tables.submit(tid, 200, 0, "p1")
        await svc.tables.submit(tid, 100, 1, "ok")
    board = await svc.records.leaderboard(1, "test-pick")
    assert [r.user_id for r in board] == [100, 200]
    assert board[0].won == 3 and board[1].won == 0 and board[0].played == 3
    assert board[0].mu > 25 > board[1].mu
    assert await svc.records.leaderboard(2, "test-pick") == []  # another guild has its own board


async def test_leaderboard_minimum_games(env):
    svc, db, clock, rec = env
    tid = await open_two(svc, options={"rounds": 1})
    await svc.lobbies.start(tid, 100)
    await svc.tables.submit(tid, 100, 0, "p3")
    await svc.tables.submit(tid, 200, 0, "p1")
    await svc.tables.submit(tid, 100, 1, "ok")
    assert await svc.records.leaderboard(1, "test-pick") == []  # 1 game < 3 minimum
    svc.records.leaderboard_min_games = 1
    assert len(await svc.records.leaderboard(1, "test-pick")) == 2


async def test_deadline_reminds_then_ai_acts(env):
    svc, db, clock, rec = env
    tid = await open_two(svc)
    await svc.lobbies.start(tid, 100)
    await svc.tables.submit(tid, 100, 0, "p1")
    assert await svc.timers.process() == clock.now() + 50
    clock.advance(51)
    await svc.timers.process()
    assert ("reminder", (1,)) in rec.calls  # only the seat that has not chosen
    clock.advance(50)
    await svc.timers.process()
    assert ("timeout", (1,)) in rec.calls
    view = await svc.hall.table(tid)
    assert view.version == 1
    log = await db.action_log(tid)
    assert log[-1][2] == "timeout" and log[-1][1][0] == "p1"


async def test_deadlines_survive_restart(env):
    svc, db, clock, rec = env
    tid = await open_two(svc)
    await svc.lobbies.start(tid, 100)
    await svc.tables.close()
    rec2 = Recorder()
    svc2 = House(db, clock=clock, notifier=rec2, turn_timeout=100)
    await svc2.tables.resume()
    clock.advance(101)
    await svc2.timers.process()
    assert ("timeout", (0, 1)) in rec2.calls
    assert (await svc2.hall.table(tid)).version == 1
    await svc2.tables.close()


async def test_abandon_by_host_or_admin_only(env):
    svc, db, clock, rec = env
    tid = await open_two(svc)
    await svc.lobbies.start(tid, 100)
    with pytest.raises(ServiceError) as e:
        await svc.tables.abandon(tid, 200)
    assert e.value.key == "err.host_or_admin"
    view = await svc.tables.abandon(tid, 200, is_admin=True)
    assert view.row.status == "abandoned"
    with pytest.raises(ServiceError) as e:
        await svc.tables.submit(tid, 100, 0, "p1")
    assert e.value.key == "err.table_not_running"
    assert await db.timers() == [] and len(svc.timers) == 0


async def test_corrupt_snapshot_is_abandoned_not_crashing(env):
    svc, db, clock, rec = env
    tid = await open_two(svc)
    await svc.lobbies.start(tid, 100)
    await db.update_table(tid, clock.now(), state={"garbage": True})
    svc2 = House(db, clock=clock, turn_timeout=100)
    assert await svc2.tables.resume() == [tid]  # indexed at once; decoded on first touch
    await svc2.tables.idle()  # the warm-up touched it: abandoned, and its deadline removed
    assert (await db.get_table(tid)).status == "abandoned"
    assert await db.timers() == []
    with pytest.raises(ServiceError) as e:
        await svc2.tables.submit(tid, 100, 0, "p1")
    assert e.value.key == "err.table_not_running"
    await svc2.tables.close()


@pytest.mark.parametrize("column", ["state", "options"])
async def test_a_row_whose_json_is_damaged_is_abandoned_or_plays_on_and_the_others_resume(env, db_url, column):
    """A snapshot that is not JSON: the table is abandoned at its first touch (logged), never an
    error at every click; options that are not JSON: read as none, the table plays on. Either
    way the other running tables resume."""
    from tests.stores import raw_sql

    svc, db, clock, rec = env
    bad, good = await open_two(svc), await open_two(svc, channel_id=11)
    for tid in (bad, good):
        await svc.lobbies.start(tid, 100)
    await raw_sql(db_url, f"UPDATE game_tables SET {column} = '{{\"round\": 1, \"rounds\"' WHERE id = {bad}")
    svc2 = House(db, clock=clock, turn_timeout=100)
    assert sorted(await svc2.tables.resume()) == sorted([bad, good])
    await svc2.tables.idle()
    assert (await svc2.tables.submit(good, 100, 0, "p1")).status in ("applied", "buffered")
    if column == "state":
        assert (await db.get_table(bad)).status == "abandoned"
        with pytest.raises(ServiceError) as e:
            await svc2.tables.submit(bad, 100, 0, "p1")
        assert e.value.key == "err.table_not_running"
    else:
        assert (await db.get_table(bad)).options == {}
        assert (await svc2.tables.submit(bad, 100, 0, "p1")).status in ("applied", "buffered")
    await svc2.tables.close()


async def test_replay_from_action_log_gives_the_snapshot(env):
    svc, db, clock, rec = env
    tid = await open_two(svc, options={"rounds": 2})
    await svc.lobbies.start(tid, 100)
    for v, (a, b) in enumerate([("p1", "p2"), ("p3", "p3")]):
        await svc.tables.submit(tid, 100, 2 * v, a)
        await svc.tables.submit(tid, 200, 2 * v, b)
        await svc.tables.submit(tid, 100, 2 * v + 1, "ok")
    row = await db.get_table(tid)
    game = GAMES["test-pick"].game
    state = game.setup(row.seed, 2, row.options)
    for version, actions, _ in await db.action_log(tid):
        assert state.version == version
        state = game.apply(state, {s: game.decode(c) for s, c in actions.items()}).state
    assert game.dump_state(state) == row.state


async def test_opening_events_are_recorded_when_the_table_starts(db_url):
    # Shop Battle, seed 1, 3 players: the first chooser's top card is a Collector (scout), revealed
    # during setup; its public reveal and the owner's private result must reach the event log.
    db = await open_store(db_url)
    svc = House(db, clock=FakeClock(), seed_source=lambda: 1)
    t = await svc.lobbies.open(guild_id=1, channel_id=1, game="shop-battle", host_user_id=1, host_name="h",
                               options={"round_cap": 10})
    await svc.lobbies.add_ai(t.id, 1)
    await svc.lobbies.add_ai(t.id, 1)
    await svc.lobbies.start(t.id, 1)
    events = await svc.records.recent_events(t.id)
    keys = [(e.key, e.audience) for e in events]
    assert ("sb.ev.collector", None) in keys
    assert ("sb.ev.scout_result", frozenset({0})) in keys
    await svc.tables.close()
    await db.close()


async def test_a_failing_ai_is_retried_then_the_table_is_abandoned_not_left_hanging(env, monkeypatch):
    import bot.driver as driver_module

    svc, db, clock, rec = env
    monkeypatch.setattr(driver_module, "AI_RETRY_SECONDS", 0)
    calls = []

    def broken(state, seat):
        calls.append(seat)
        raise RuntimeError("engine bug")

    monkeypatch.setattr(GAMES["test-pick"].game, "ai_action", broken)
    t = await svc.lobbies.open(guild_id=1, channel_id=10, game="test-pick", host_user_id=100, host_name="Host")
    await svc.lobbies.add_ai(t.id, 100)
    await svc.lobbies.start(t.id, 100)
    await svc.tables.idle()
    assert len(calls) == driver_module.MAX_AI_FAILURES
    assert (await svc.hall.table(t.id)).row.status == "abandoned"


async def test_one_broken_table_does_not_stop_other_tables_deadlines(env, monkeypatch):
    svc, db, clock, rec = env
    game = GAMES["test-pick"].game
    first = await open_two(svc)
    second = await open_two(svc)
    await svc.lobbies.start(first, 100)
    await svc.lobbies.start(second, 100)
    real = game.timeout_action
    broken_state = (await svc.hall.table(first)).state

    def timeout_action(state, seat):
        if state is broken_state:
            raise RuntimeError("broken table")
        return real(state, seat)

    monkeypatch.setattr(game, "timeout_action", timeout_action)
    clock.advance(101)
    await svc.timers.process()
    assert (await svc.hall.table(second)).version == 1  # the healthy table timed out normally
    assert (await svc.hall.table(first)).row.status == "abandoned"  # the broken one was given up
    assert [t.key for t in await db.timers()] == [f"turn:{second}"]  # only the healthy table's next step


async def test_a_member_who_keeps_timing_out_is_away_until_they_come_back(env):
    svc, db, clock, rec = env
    rec_calls = rec.calls
    tid = await open_two(svc, options={"rounds": 3})
    await svc.lobbies.start(tid, 100)
    clock.advance(101)
    await svc.timers.process()  # round 1: both members time out (1 in a row each)
    clock.advance(101)
    await svc.timers.process()  # seat 0 must confirm and times out again: away
    await svc.tables.idle()
    view = await svc.hall.table(tid)
    assert view.seats[0].away and not view.seats[1].away
    # round 2 (simultaneous): the AI chose for the away member at once; only seat 1 is waited for
    assert view.version == 2 and 0 in view.pending and view.waiting_for() == [1]
    assert [t.payload["version"] for t in await db.timers()] == [2]
    assert (await db.seats(tid))[0].away  # persisted: a restart keeps it
    # the member comes back (opens their panel): their turns wait for them again
    assert await svc.tables.back(tid, 100) is True
    assert not (await svc.hall.table(tid)).seats[0].away
    assert await svc.tables.back(tid, 100) is False
    await svc.tables.submit(tid, 200, 2, "p1")
    view = await svc.hall.table(tid)
    assert view.version == 3 and view.to_act() == {0}  # seat 0 confirms: a member's turn again
    assert [t.payload["version"] for t in await db.timers()] == [3]
    assert rec_calls.count(("timeout", (0, 1))) == 1


# ---------------------------------------------------------------------- rules version and replay
async def test_start_records_the_games_rules_version(env, monkeypatch):
    svc, db, clock, rec = env
    tid = await open_two(svc)
    assert (await db.get_table(tid)).rules_version == 1  # a lobby: the default
    monkeypatch.setattr(GAMES["test-pick"].game, "rules_version", 3)
    await svc.lobbies.start(tid, 100)
    assert (await db.get_table(tid)).rules_version == 3
    assert (await svc.hall.table(tid)).row.rules_version == 3


async def test_replay_helper_rebuilds_the_snapshot_under_the_same_rules(env):
    svc, db, clock, rec = env
    tid = await open_two(svc, options={"rounds": 2})
    await svc.lobbies.start(tid, 100)
    await svc.tables.submit(tid, 100, 0, "p1")
    await svc.tables.submit(tid, 200, 0, "p3")
    await svc.tables.submit(tid, 100, 1, "ok")
    await svc.tables.submit(tid, 100, 2, "p2")  # buffered only: not in the log, not in the snapshot
    game = GAMES["test-pick"].game
    state = await svc.tables.replay(tid)
    assert state.version == 2 and state.scores == (1, 3)
    assert game.dump_state(state) == (await db.get_table(tid)).state


async def test_replay_refuses_a_table_of_another_rules_version(env, monkeypatch):
    from bot.service import ReplayError

    svc, db, clock, rec = env
    tid = await open_two(svc)
    with pytest.raises(ReplayError, match="has not started"):
        await svc.tables.replay(tid)
    await svc.lobbies.start(tid, 100)  # under rules 1
    monkeypatch.setattr(GAMES["test-pick"].game, "rules_version", 2)  # the game moved on
    with pytest.raises(ReplayError, match="rules version 1 of test-pick.*only rules version 2"):
        await svc.tables.replay(tid)
    with pytest.raises(ServiceError) as e:
        await svc.tables.replay(9999)
    assert e.value.key == "err.no_table"


# ---------------------------------------------------------------------- notifier, views
async def test_a_failing_notifier_never_breaks_the_table(env, caplog):
    svc, db, clock, rec = env

    class Broken(Notifier):
        async def step_applied(self, table, events):
            raise RuntimeError("UI down")

    svc.hall.notifier = Broken()  # installed after construction, as the cogs do
    tid = await open_two(svc)
    await svc.lobbies.start(tid, 100)
    await svc.tables.submit(tid, 100, 0, "p1")
    assert (await svc.tables.submit(tid, 200, 0, "p2")).status == "applied"
    assert (await svc.hall.table(tid)).version == 1
    assert "notifier step_applied failed" in caplog.text


async def test_a_table_view_is_a_snapshot(env):
    svc, db, clock, rec = env
    tid = await open_two(svc)
    await svc.lobbies.start(tid, 100)
    before = await svc.hall.table(tid)
    await svc.tables.submit(tid, 100, 0, "p1")
    assert before.pending == {} and (await svc.hall.table(tid)).pending == {0: "p1"}
    await svc.tables.submit(tid, 200, 0, "p2")
    assert before.version == 0 and (await svc.hall.table(tid)).version == 1
    with pytest.raises(AttributeError):
        before.state = None  # frozen: the UI cannot change what the service holds


# ---------------------------------------------------------------------- scheduler and driver alone
class FakeHost:
    """A minimal TableHost over a real hall that caches one table of the Pick game: choices
    buffer until every seat in ``to_act`` has chosen, then the step is applied (and its deadline
    written, as the running tables do)."""

    def __init__(self, hall) -> None:
        self.hall = hall
        self.chosen: list[tuple[int, str, str]] = []
        self.changes: list[tuple[str, int | None]] = []
        self.given_up: list[int] = []
        self.nudged: list[int] = []
        self.scheduler = None
        self.fail = False

    async def choose(self, live, seat, code, source):
        if self.fail:
            raise RuntimeError("engine bug")
        self.chosen.append((seat, code, source))
        game = live.game
        live.pending[seat] = code
        if set(live.pending) < game.to_act(live.state):
            return "buffered", live.snapshot(), []
        step = game.apply(live.state, {s: game.decode(c) for s, c in live.pending.items()})
        live.state, live.pending = step.state, {}
        if self.scheduler is not None:
            await self.scheduler.write(live.id, live.seats, game, live.state, self.hall.clock.now())
        return "applied", live.snapshot(), list(step.events)

    async def after_change(self, table_id, view, events, result, seat):
        self.changes.append((result, seat))

    async def give_up(self, table_id):
        self.given_up.append(table_id)
        self.hall.drop(table_id)

    def nudge(self, table_id):
        self.nudged.append(table_id)


def cached_in(db, clock, live, notifier=None):
    """A hall on ``db`` with ``clock`` (and ``notifier``: a new Recorder by default) that caches ``live``."""
    from bot.service import Hall

    hall = Hall(db, clock, notifier=notifier or Recorder())
    hall.keep(live)
    return hall


@pytest.fixture
async def host_env(db_url, pick_game):
    """A database with one running Pick table (seat 0 and 1 members, seat 2 an AI), cached in a
    hall (a fake clock, a recording notifier) behind a fake host; the table's rows exist so that
    deadlines and away flags can be stored."""
    from bot.table import LiveTable
    from storage.base import SeatRow

    db = await open_store(db_url)
    tid = await db.create_table(guild_id=1, channel_id=1, game="test-pick", host_user_id=100, lang="en",
                                options={}, now=0)
    seats = [SeatRow(0, 100, "A", False), SeatRow(1, 200, "B", False), SeatRow(2, None, "AI 1", True)]
    await db.replace_seats(tid, seats)
    await db.update_table(tid, 0, status="running")
    live = LiveTable(await db.get_table(tid), seats, pick_game.setup(42, 3, {}), {})
    hall = cached_in(db, FakeClock(), live)
    yield db, hall, FakeHost(hall), live
    await db.close()


def turn(table_id, version, remind_at, act_at, reminded=False):
    """The stored turn-deadline timer of a table."""
    return (f"turn:{table_id}", act_at if reminded else remind_at,
            {"version": version, "remind_at": remind_at, "act_at": act_at, "reminded": reminded})


async def test_scheduler_alone_reminds_then_times_out_members_only(host_env):
    from bot.scheduler import Scheduler

    db, hall, host, live = host_env
    clock = hall.clock
    sched = Scheduler(hall, host, turn_timeout=100, reminder_fraction=0.25)
    host.scheduler = sched
    live.pending[2] = "p1"  # the AI seat already chose
    await sched.arm(live)
    t0 = clock.now()
    assert await db.timer(f"turn:{live.id}") == turn(live.id, 0, t0 + 25, t0 + 100)
    assert await hall.timers.process() == t0 + 25 and hall.notifier.calls == []
    clock.advance(25)
    assert await hall.timers.process() == t0 + 100
    assert hall.notifier.calls == [("reminder", (0, 1))]
    assert await db.timer(f"turn:{live.id}") == turn(live.id, 0, t0 + 25, t0 + 100, reminded=True)
    await hall.timers.process()
    assert hall.notifier.calls == [("reminder", (0, 1))]  # once per step
    game, state = live.game, live.state
    clock.advance(75)
    # the due deadline is handled; the next step's deadline is already in the queue
    assert await hall.timers.process() == clock.now() + 25
    expected = [(seat, game.encode(game.timeout_action(state, seat)), "timeout") for seat in (0, 1)]
    assert host.chosen == expected  # members only: the AI seat had chosen
    assert hall.notifier.calls[-1] == ("timeout", (0, 1))
    assert host.changes == [("applied", None)]
    assert live.state.version == 1
    assert await db.timer(f"turn:{live.id}") == turn(live.id, 1, clock.now() + 25, clock.now() + 100)


async def test_scheduler_alone_marks_a_member_away_after_two_timeouts_and_present_resets(host_env):
    from bot.scheduler import AWAY_AFTER_TIMEOUTS, Scheduler

    db, hall, host, live = host_env
    assert AWAY_AFTER_TIMEOUTS == 2
    clock = hall.clock
    sched = Scheduler(hall, host, turn_timeout=100)
    host.scheduler = sched
    live.pending[2] = "p1"
    await sched.arm(live)
    clock.advance(100)
    await hall.timers.process()  # round 1: seats 0 and 1 time out (1 in a row each)
    assert not any(s.away for s in live.seats)
    assert [s.timeouts for s in await db.seats(live.id)] == [1, 1, 0]  # stored: a restart keeps them
    assert await sched.present(live, 1) is False  # seat 1 shows up: its count starts again
    assert [s.timeouts for s in await db.seats(live.id)] == [1, 0, 0]
    clock.advance(100)
    await hall.timers.process()  # seat 0 must confirm and times out again: away
    assert live.seats[0].away and (await db.seats(live.id))[0].away
    assert not live.seats[1].away
    assert hall.notifier.calls[-1] == ("timeout", (0,))
    assert await sched.present(live, 0) is True
    assert not live.seats[0].away and not (await db.seats(live.id))[0].away
    assert (await db.seats(live.id))[0].timeouts == 0


async def test_scheduler_alone_rearms_a_stale_deadline_and_gives_up_a_failing_table(host_env):
    from bot.scheduler import Scheduler

    db, hall, host, live = host_env
    clock = hall.clock
    sched = Scheduler(hall, host, turn_timeout=100)
    # a deadline left by an interrupted step (version 7), due now: re-armed for the current step
    await sched.timers.schedule(f"turn:{live.id}", clock.now() - 5,
                                {"version": 7, "remind_at": clock.now() - 10, "act_at": clock.now() - 5})
    assert await hall.timers.process() == clock.now() + 50  # nothing played
    assert await db.timer(f"turn:{live.id}") == turn(live.id, 0, clock.now() + 50, clock.now() + 100)
    assert host.chosen == []
    clock.advance(100)
    host.fail = True
    assert await hall.timers.process() is None
    assert host.given_up == [live.id]
    assert await db.timer(f"turn:{live.id}") is None  # a fired deadline nobody renewed is removed


async def test_scheduler_gives_time_back_after_downtime_instead_of_auto_playing(host_env):
    from bot.scheduler import Scheduler

    db, hall, host, live = host_env
    clock = hall.clock
    first = Scheduler(hall, host, turn_timeout=100)
    await first.arm(live)  # then the bot goes down for an hour
    clock.advance(3600)
    hall = host.hall = cached_in(db, clock, live, hall.notifier)  # the restart: a new hall
    sched = Scheduler(hall, host, turn_timeout=100)
    host.scheduler = sched
    assert await hall.timers.load() == 1
    # the overdue deadline restarts from now, stored so: a member has the whole turn again
    assert await db.timer(f"turn:{live.id}") == turn(live.id, 0, clock.now() + 50, clock.now() + 100)
    assert await hall.timers.process() == clock.now() + 50
    assert host.chosen == [] and hall.notifier.calls == []
    clock.advance(50)
    await hall.timers.process()
    assert hall.notifier.calls == [("reminder", (0, 1))] and host.chosen == []  # members only


async def test_general_timers_fire_once_persist_and_cancel(host_env):
    from bot.timers import Timers

    db, *_ = host_env
    clock = FakeClock()
    timers = Timers(db, clock)
    fired = []

    async def expire(row):
        fired.append((row.key, row.payload))

    timers.handle("lobby", expire)
    await timers.schedule("lobby:5", clock.now() + 10, {"table": 5})
    await timers.schedule("lobby:6", clock.now() + 20, {"table": 6})
    await timers.cancel("lobby:6")
    assert [t.key for t in await db.timers()] == ["lobby:5"]
    again = Timers(db, clock)  # a restart: loaded from the store
    again.handle("lobby", expire)
    assert await again.load() == 1 and again.get("lobby:5").payload == {"table": 5}
    assert await again.process() == clock.now() + 10 and fired == []
    clock.advance(10)
    assert await again.process() is None
    assert fired == [("lobby:5", {"table": 5})]
    assert await db.timers() == []  # one-shot: removed once fired


async def test_timer_task_is_one_sleeping_task_woken_only_by_an_earlier_timer(host_env):
    from bot.timers import Timers

    db, *_ = host_env
    clock = FakeClock()
    timers = Timers(db, clock)
    fired = []

    async def note(row):
        fired.append(row.key)

    timers.handle("x", note)
    await timers.schedule("x:far", clock.now() + 300)
    timers.start()
    task = timers.task
    for _ in range(100):  # wait (bounded) until the task sleeps: it reads nothing, only the heap
        if timers.sleeping:
            break
        await asyncio.sleep(0)
    assert timers.sleeping
    tasks_before = len(asyncio.all_tasks())
    for i in range(50):  # later timers (as every step moves a deadline later): nobody is woken
        await timers.schedule(f"x:{i}", clock.now() + 400 + i)
    assert timers.wakeups == 0 and timers.task is task and len(asyncio.all_tasks()) == tasks_before
    await timers.schedule("x:soon", clock.now())  # an earlier one (due now): the one task wakes
    assert timers.wakeups == 1
    for _ in range(100):
        if "x:soon" in fired and timers.sleeping:
            break
        await asyncio.sleep(0)
    assert "x:soon" in fired and timers.task is task and timers.loads == 0
    tasks = timers.shutdown()
    await asyncio.gather(*tasks, return_exceptions=True)
    assert task.done()
    timers.start()
    assert timers.task is task  # closed: no new task


async def test_driver_alone_plays_the_ai_seat_and_stops_for_members(host_env):
    from bot.driver import Driver

    db, hall, host, live = host_env
    driver = Driver(hall, host)
    driver.kick(live.id)
    assert driver.running(live.id)
    driver.kick(live.id)  # at most one driver per table
    await driver.idle()
    # the AI picks ("p1", "p2", "p3")[(seat + round) % 3] = p1 for seat 2 in round 1
    assert host.chosen == [(2, "p1", "ai")] and live.pending == {2: "p1"}
    assert host.changes == [("buffered", 2)]
    driver.kick(live.id)  # nothing left for the AI: no driver
    assert not driver.running(live.id)
    await driver.close()
    live.pending.clear()
    driver.kick(live.id)  # closed: never again
    assert not driver.running(live.id)


async def test_driver_alone_retries_a_failing_move_then_gives_up(host_env, monkeypatch):
    import bot.driver as driver_module

    db, hall, host, live = host_env
    monkeypatch.setattr(driver_module, "AI_RETRY_SECONDS", 0)
    host.fail = True
    driver = driver_module.Driver(hall, host)
    driver.kick(live.id)
    await driver.idle()
    assert host.given_up == [live.id] and host.chosen == []


# ---------------------------------------------------------------------- scale: restart, steps, memory
class CountingDb:
    """Wraps a store and counts the calls of each method (storage round trips by name)."""

    def __init__(self, db) -> None:
        self._db = db
        self.calls: dict[str, int] = {}

    def __getattr__(self, name):
        attr = getattr(self._db, name)
        if not callable(attr) or name == "transaction":
            return attr

        def counted(*args, **kwargs):
            self.calls[name] = self.calls.get(name, 0) + 1
            return attr(*args, **kwargs)
        return counted


async def test_steps_never_rescan_deadlines_and_write_one_step_each(db_url, pick_game):
    db = await open_store(db_url)
    counting = CountingDb(db)
    clock = FakeClock()
    svc = House(counting, clock=clock, turn_timeout=100, seed_source=lambda: 42)
    tids = []
    for _ in range(3):
        tids.append(await open_two(svc, options={"rounds": 5}))
        await svc.lobbies.start(tids[-1], 100)
    assert await svc.tables.resume() == tids  # (a no-op here: they are live) one bulk read of the timers
    svc.timers.start()
    task = svc.timers.task
    before = dict(counting.calls)
    for tid in tids:  # a simultaneous pick (buffered, then applied), then a confirm
        assert (await svc.tables.submit(tid, 100, 0, "p1")).status == "buffered"
        assert (await svc.tables.submit(tid, 200, 0, "p2")).status == "applied"
        assert (await svc.tables.submit(tid, 100, 1, "ok")).status == "applied"
    calls = {k: n - before.get(k, 0) for k, n in counting.calls.items() if n - before.get(k, 0)}
    assert calls.get("timers", 0) == 0 and counting.calls["timers"] == 1  # loaded once, never rescanned
    assert calls["commit_step"] == 2 * len(tids)  # one write per applied step
    assert calls["set_pending"] == len(tids)  # only the buffered choice; the completing one is in the step
    assert set(calls) == {"commit_step", "set_pending"}  # nothing else on the way of a click
    assert svc.timers.task is task  # still the one timer task
    assert [t.payload["version"] for t in await db.timers()] == [2, 2, 2]
    await svc.tables.close()
    await db.close()


async def test_downtime_gives_members_their_time_back(env):
    svc, db, clock, rec = env
    tid = await open_two(svc)
    await svc.lobbies.start(tid, 100)
    await svc.tables.close()
    clock.advance(10 * 3600)  # the bot was down for ten hours
    rec2 = Recorder()
    svc2 = House(db, clock=clock, notifier=rec2, turn_timeout=100)
    await svc2.tables.resume()
    await svc2.tables.idle()
    assert await svc2.timers.process() == clock.now() + 50  # not auto-played at once
    assert (await svc2.hall.table(tid)).version == 0 and rec2.calls == []
    clock.advance(100)
    await svc2.timers.process()
    assert ("timeout", (0, 1)) in rec2.calls and (await svc2.hall.table(tid)).version == 1
    await svc2.tables.close()


async def test_timeouts_in_a_row_survive_a_restart(env):
    svc, db, clock, rec = env
    tid = await open_two(svc, options={"rounds": 3})
    await svc.lobbies.start(tid, 100)
    clock.advance(101)
    await svc.timers.process()  # round 1: both members time out once
    await svc.tables.close()
    svc2 = House(db, clock=clock, turn_timeout=100)
    await svc2.tables.resume()
    await svc2.tables.idle()
    clock.advance(101)
    await svc2.timers.process()  # seat 0 times out a second time in a row, across the restart: away
    assert (await svc2.hall.table(tid)).seats[0].away
    await svc2.tables.close()


async def test_a_second_writer_never_applies_over_a_step_and_the_table_is_reloaded(env):
    from storage.base import StepWrite

    svc, db, clock, rec = env
    tid = await open_two(svc)
    await svc.lobbies.start(tid, 100)
    await svc.tables.submit(tid, 100, 0, "p1")
    game = GAMES["test-pick"].game
    view = await svc.hall.table(tid)
    other = game.apply(view.state, {0: game.decode("p3"), 1: game.decode("p3")}).state
    row = await db.get_table(tid)
    # another process applies the step first (through the same store interface)
    await db.commit_step(StepWrite(table_id=tid, version_before=0, version=1, state=game.dump_state(other),
                                   actions={0: "p3", 1: "p3"}, source="user", events=[],
                                   action_seq=row.action_seq + 1, event_seq=row.event_seq + 1, now=clock.now()))
    with pytest.raises(ServiceError) as e:
        await svc.tables.submit(tid, 200, 0, "p2")  # this process's cache is still at version 0
    assert e.value.key == "err.stale"
    assert await db.action_log(tid) == [(0, {0: "p3", 1: "p3"}, "user")]  # nothing applied over it
    view = await svc.hall.table(tid)  # reloaded from the store
    assert view.version == 1 and view.state.scores == (0, 0)
    assert (await svc.tables.submit(tid, 100, 1, "ok")).status == "applied"


async def test_per_table_memory_is_dropped_when_a_table_ends(env):
    svc, db, clock, rec = env
    done = await open_two(svc, options={"rounds": 1})
    gone = await open_two(svc)
    lobby = await open_two(svc)
    await svc.lobbies.start(done, 100)
    await svc.lobbies.start(gone, 100)
    await svc.tables.submit(done, 100, 0, "p1")
    await svc.tables.submit(done, 200, 0, "p2")
    await svc.tables.submit(done, 100, 1, "ok")
    await svc.tables.abandon(gone, 100)
    await svc.lobbies.cancel(lobby, 100)
    assert (await svc.hall.table(done)).row.status == "finished"
    for tid in (done, gone, lobby):
        assert not any(tid in ids for ids in svc.hall.held().values())
        assert svc.timers.get(f"turn:{tid}") is None
    assert not svc.tables.driver.tables()


async def test_resume_indexes_in_bulk_and_decodes_on_first_touch(env):
    svc, db, clock, rec = env
    tids = []
    for _ in range(3):
        tids.append(await open_two(svc))
        await svc.lobbies.start(tids[-1], 100)
    await svc.tables.submit(tids[1], 100, 0, "p2")
    counting = CountingDb(db)
    svc2 = House(counting, clock=clock, turn_timeout=100)
    assert await svc2.tables.resume(warm=False) == tids
    # no per-table query (results_to_replay: the rating history of older results, empty here)
    assert counting.calls == {"timers": 1, "running_tables": 1, "results_to_replay": 1}
    assert not svc2.hall.held()["live"] and sorted(svc2.hall.held()["index"]) == tids  # nothing decoded yet
    assert (await svc2.tables.submit(tids[1], 200, 0, "p1")).status == "applied"  # a click is accepted at once
    assert svc2.hall.held()["live"] == {tids[1]}  # only the touched table was decoded
    assert (await svc2.hall.table(tids[1])).state.scores == (2, 1)  # the buffered choice came back
    assert counting.calls == {"timers": 1, "running_tables": 1, "results_to_replay": 1, "commit_step": 1}
    await svc2.tables.close()


async def test_warm_up_restarts_the_ai_of_a_table_read_before_it(env):
    """A resumed table that something reads (``Hall.table``: a panel, a list) before the warm-up
    reaches it is decoded then; the warm-up still restarts its AI driver."""
    svc, db, clock, rec = env
    t = await svc.lobbies.open(guild_id=1, channel_id=10, game="test-pick", host_user_id=100, host_name="Host")
    await svc.lobbies.add_ai(t.id, 100)
    await asyncio.gather(*svc.tables.driver.shutdown())  # this process stops before its AI chooses
    await svc.lobbies.start(t.id, 100)
    assert not (await svc.hall.table(t.id)).pending
    svc2 = House(db, clock=clock, turn_timeout=100)
    assert await svc2.tables.resume() == [t.id]  # the warm-up task is made, it has not run yet
    assert svc2.hall.indexed(t.id)
    assert not (await svc2.hall.table(t.id)).pending  # read first: decoded here, not by the warm-up
    await svc2.tables.idle()
    assert (await svc2.hall.table(t.id)).pending.keys() == {1}  # the AI chose all the same
    await svc2.tables.close()


# ---------------------------------------------------------------------- crash safety (kill -9)
_CHILD = r'''
import asyncio, sys
from bot.house import House
from tests.simgame import register_pick
from storage.factory import open_store

async def main(url):
    game = register_pick().spec.game
    db = await open_store(url)
    svc = House(db, turn_timeout=3600, seed_source=lambda: 42)
    await svc.tables.resume()
    t = await svc.lobbies.open(guild_id=1, channel_id=1, game=game.key, host_user_id=100, host_name="A",
                               options={"rounds": 90})
    await svc.lobbies.join(t.id, 200, "B")
    await svc.lobbies.start(t.id, 100)
    print("table", t.id, flush=True)
    while True:
        view = await svc.hall.table(t.id)
        if view.row.status != "running":
            print("over", flush=True)
            await asyncio.sleep(60)
        for seat in view.waiting_for():
            code = "ok" if view.version % 2 else f"p{1 + (view.version // 2 + seat) % 3}"
            result = await svc.tables.submit(t.id, view.seats[seat].user_id, view.version, code)
            print("ack", view.version, seat, code, result.status, flush=True)  # acknowledged to the member

asyncio.run(main(sys.argv[1]))
'''


async def test_kill_9_during_play_loses_no_acknowledged_action(db_url, pick_game):
    import os
    import signal
    import subprocess
    import sys
    from pathlib import Path

    path = db_url  # a SQLite file or a PostgreSQL schema
    root = Path(__file__).resolve().parent.parent
    proc = subprocess.Popen([sys.executable, "-c", _CHILD, str(path)], cwd=root, stdout=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONPATH": str(root)})
    acked: list[tuple[int, int, str, str]] = []
    try:
        assert proc.stdout is not None
        tid = int(proc.stdout.readline().split()[1])
        while len(acked) < 60:  # kill it in the middle of play, at whatever point it has reached
            words = proc.stdout.readline().split()
            assert words and words[0] == "ack", words
            acked.append((int(words[1]), int(words[2]), words[3], words[4]))
        proc.send_signal(signal.SIGKILL)
    finally:
        proc.kill()
        proc.wait()
    db = await open_store(path)
    try:
        log = await db.action_log(tid)
        stored = {(v, seat): code for v, codes, _ in log for seat, code in codes.items()}
        row = await db.get_table(tid)
        for version, seat, code, status in acked:
            if status == "applied" or version < row.version:
                assert stored.get((version, seat)) == code, f"acknowledged step {version} of seat {seat} lost"
            else:  # buffered at the current step: the pending choice survived
                assert (await db.pending(tid, version)).get(seat) == code
        # what is stored is whole: the log replays to the snapshot, and a restart carries on
        svc = House(db, turn_timeout=3600)
        await svc.tables.resume()
        state = await svc.tables.replay(tid)
        assert pick_game.dump_state(state) == row.state and row.version == len(log) == row.action_seq
        view = await svc.hall.table(tid)
        seat = view.waiting_for()[0]
        code = "ok" if view.version % 2 else "p1"
        await svc.tables.submit(tid, view.seats[seat].user_id, view.version, code)
        await svc.tables.close()
    finally:
        await db.close()


async def test_a_running_tables_last_events_come_from_memory_after_the_first_read(db_url):
    """``Hall.recent_events``: once read, a running table's tail follows its steps (the same
    events the store returns, audiences included) and the store is not asked again; a tail
    that did not end just before a step's events is dropped, and the store asked again."""
    db = await open_store(db_url)
    svc = House(db, clock=FakeClock(), seed_source=lambda: 1)
    asked: list[int] = []
    stored = db.recent_events

    async def counted(table_id: int, limit: int):
        asked.append(limit)
        return await stored(table_id, limit)

    db.recent_events = counted  # type: ignore[method-assign]
    try:
        t = await svc.lobbies.open(guild_id=1, channel_id=1, game="three-player-moon", host_user_id=1,
                                   host_name="h")
        await svc.lobbies.add_ai(t.id, 1)
        await svc.lobbies.add_ai(t.id, 1)
        await svc.lobbies.start(t.id, 1)
        await svc.tables.idle()
        game = GAMES["three-player-moon"].game
        first = await svc.records.recent_events(t.id, 60)
        assert asked == [60]
        steps = 0
        while steps < 5:  # the game still runs after them (a finished table is read from the store)
            view = await svc.hall.table(t.id)
            assert view.row.status == "running"
            if 0 in view.to_act():
                code = game.encode(game.legal_actions(view.state, 0)[0])
                await svc.tables.submit(t.id, 1, view.version, code)
                await svc.tables.idle()
                steps += 1
            mine = await svc.records.recent_events(t.id, 60)
            panel = await svc.records.recent_events(t.id, 40)
            truth = [event_from(d) for d in await stored(t.id, 60)]
            assert mine == truth and panel == truth[-40:]
        assert steps >= 4 and len(mine) > len(first)
        assert asked == [60]  # every read after the first from the tail
        live = svc.hall.live(t.id)
        assert live is not None
        svc.hall.events_added(t.id, live.row.event_seq + 5, [{"key": "x", "params": {}, "audience": None}])
        assert await svc.records.recent_events(t.id, 60) == truth  # a gap: the store again
        assert asked == [60, 60]
    finally:
        await svc.tables.close()
        await db.close()
