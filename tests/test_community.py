"""Each server's own settings, paces, ``/table mine`` and seasons through the services
(:mod:`bot.guilds`, :mod:`bot.paces`, :mod:`bot.records`, :mod:`bot.seasons`): a real store of
each kind, a fake clock, no Discord."""

from __future__ import annotations

import asyncio

import pytest

from bot.house import House
from bot.paces import pace_rule
from bot.ratings import DEFAULT_MU, DEFAULT_SIGMA, Rated, rate
from bot.service import ServiceError
from bot.timers import turn_key
from storage.base import GuildSettings
from storage.factory import open_store
from tests.stores import raw_sql
from tests.test_service import FakeClock, Recorder, open_two, pick_game  # noqa: F401 - fixtures

G1, G2 = 1, 2


@pytest.fixture
async def env(db_url, pick_game):  # noqa: F811 - the fixture above
    db = await open_store(db_url)
    clock = FakeClock()
    rec = Recorder()
    svc = House(db, clock=clock, notifier=rec, turn_timeout=100, seed_source=lambda: 42, leaderboard_min_games=1)
    yield svc, db, clock, rec
    await svc.tables.close()
    await db.close()


async def play_one(svc: House, winner: int = 100, loser: int = 200, guild_id: int = G1) -> int:
    """One finished one-round table of Pick: ``winner`` picks 3, ``loser`` 1."""
    t = await svc.lobbies.open(guild_id=guild_id, channel_id=10, game="test-pick", host_user_id=winner,
                               host_name="W", options={"rounds": 1})
    await svc.lobbies.join(t.id, loser, "L")
    await svc.lobbies.start(t.id, winner)
    await svc.tables.submit(t.id, winner, 0, "p3")
    await svc.tables.submit(t.id, loser, 0, "p1")
    await svc.tables.submit(t.id, winner, 1, "ok")
    assert (await svc.hall.table(t.id)).row.status == "finished"
    return t.id


# ---------------------------------------------------------------------------------------- settings
async def test_settings_are_stored_logged_resolved_and_forgotten(env):
    svc, db, clock, rec = env
    assert (await svc.guilds.community(G1)).pace == "normal"  # nothing set: the bot's defaults
    community = await svc.guilds.change(G1, 555, games=["test-pick"], pace="relaxed", min_games=2, web="private")
    assert community.games == ("test-pick",) and community.pace == "relaxed" and community.min_games == 2
    stored = await db.guild_settings(G1)
    assert stored.updated_by == 555 and stored.web == "private" and len(stored.web_secret) >= 40
    assert {c.field for c in await db.settings_changes(G1)} == {"games", "pace", "min_games", "web"}
    assert all(c.user_id == 555 for c in await db.settings_changes(G1))
    secret = stored.web_secret
    rotated = await svc.guilds.rotate_secret(G1, 556)
    assert rotated.web_secret != secret and (await db.guild_settings(G1)).web_secret == rotated.web_secret
    assert (await db.settings_changes(G1))[0][1:3] == (556, "web_secret")  # newest first, no secret logged
    for bad in ({"pace": "fast"}, {"games": ["chess"]}, {"colour": "red"}):
        with pytest.raises(ServiceError) as e:
            await svc.guilds.change(G1, 555, **bad)
        assert e.value.key == "err.bad_setting"
    for bad_min in (0, 1001, "7", True):  # said as the admin reads the setting, with its range
        with pytest.raises(ServiceError) as e:
            await svc.guilds.change(G1, 555, min_games=bad_min)
        assert (e.value.key, e.value.params) == ("err.min_games", {"min": 1, "max": 1000})
    # another process reads what was stored; a second server is untouched
    fresh = House(db, clock=clock, turn_timeout=100)
    assert (await fresh.guilds.community(G1)).pace == "relaxed"
    assert (await fresh.guilds.community(G2)).pace == "normal"
    await svc.guilds.forget(G1)  # every setting forgotten but the pages, off
    assert await db.guild_settings(G1) == GuildSettings(G1, web="off", updated_at=clock.now())
    assert await db.settings_changes(G1) == []
    assert (await svc.guilds.community(G1)).pace == "normal" and (await svc.guilds.community(G1)).web == "off"


async def test_a_game_disabled_in_one_server_stays_open_in_another(env):
    svc, db, clock, rec = env
    await svc.guilds.change(G1, 555, games=["gang-of-dice"])
    with pytest.raises(ServiceError) as e:
        await svc.lobbies.open(guild_id=G1, channel_id=10, game="test-pick", host_user_id=100, host_name="H")
    assert e.value.key == "err.game_not_enabled"
    lobby = await svc.lobbies.open(guild_id=G2, channel_id=20, game="test-pick", host_user_id=100, host_name="H")
    assert lobby.row.status == "lobby"


async def test_play_only_in_the_allowed_channels(env):
    svc, db, clock, rec = env
    await svc.guilds.change(G1, 555, channels=[11, 12])
    with pytest.raises(ServiceError) as e:
        await svc.lobbies.open(guild_id=G1, channel_id=10, game="test-pick", host_user_id=100, host_name="H")
    assert e.value.key == "err.channel_not_allowed" and e.value.params["channels"] == "<#11>, <#12>"
    assert (await svc.lobbies.open(guild_id=G1, channel_id=11, game="test-pick", host_user_id=100,
                                   host_name="H")).row.channel_id == 11
    # a thread of an allowed channel is allowed too
    assert (await svc.lobbies.open(guild_id=G1, channel_id=99, parent_id=12, game="test-pick", host_user_id=100,
                                   host_name="H")).row.channel_id == 99


async def test_settings_never_change_a_running_table(env):
    svc, db, clock, rec = env
    await svc.guilds.change(G1, 555, pace="live")
    tid = await open_two(svc)
    await svc.lobbies.start(tid, 100)
    await svc.guilds.change(G1, 555, pace="correspondence", games=["gang-of-dice"])
    table = await svc.hall.table(tid)
    assert table.row.pace == "live"
    assert svc.timers.get(turn_key(tid)).payload["act_at"] == clock.now() + 60


async def test_the_ai_levels_a_server_offers(env):
    svc, db, clock, rec = env
    await svc.guilds.change(G1, 555, ai_levels=["strong"])
    t = await svc.lobbies.open(guild_id=G1, channel_id=10, game="test-pick", host_user_id=100, host_name="H")
    t = await svc.lobbies.add_ai(t.id, 100)  # "normal" is not offered: the next level up
    assert t.seats[1].ai_level == "strong"
    with pytest.raises(ServiceError) as e:
        await svc.lobbies.set_ai_level(t.id, 100, 1, "easy")
    assert e.value.key == "err.level_not_offered"


# ---------------------------------------------------------------------------------------- paces
@pytest.mark.parametrize("pace", ["live", "normal", "relaxed", "correspondence"])
async def test_each_pace_times_reminds_and_times_out_across_a_restart(env, pace):
    svc, db, clock, rec = env
    rule = pace_rule(pace, turn_timeout=100, reminder_fraction=0.5)
    tid = await open_two(svc)
    await svc.lobbies.set_pace(tid, 100, pace)
    await svc.lobbies.start(tid, 100)
    start = clock.now()
    timer = svc.timers.get(turn_key(tid))
    assert timer.payload["act_at"] == start + rule.seconds and timer.due == start + rule.seconds * rule.reminders[0]
    reminders = 0
    for fraction in rule.reminders:  # each reminder on time, the second one after a restart
        clock.t = start + rule.seconds * fraction + 1
        await svc.timers.process()
        reminders += 1
        assert [c for c in rec.calls if c[0] == "reminder"] == [("reminder", (0, 1))] * reminders
        await svc.tables.close()
        svc = House(db, clock=clock, notifier=rec, turn_timeout=100, seed_source=lambda: 42)
        await svc.tables.resume()
        await svc.tables.warmed()
    clock.t = start + rule.seconds + 1
    await svc.timers.process()
    assert ("timeout", (0, 1)) in rec.calls
    table = await svc.hall.table(tid)
    assert table.version == 1 and [s.timeouts for s in table.seats] == [1, 1]
    # a second timeout in a row (the host's "ok" after the round): away at live and normal
    # pace, never at the slow ones, where the AI played the timed-out turn only
    assert table.to_act() == {0}
    clock.t = clock.now() + rule.seconds + 1
    await svc.timers.process()
    table = await svc.hall.table(tid)
    assert table.seats[0].timeouts == 2 and table.seats[0].away is rule.away
    assert [c for c in rec.calls if c[0] == "timeout"] == [("timeout", (0, 1)), ("timeout", (0,))]
    await svc.tables.close()


async def test_a_muted_member_gets_no_reminder(env):
    svc, db, clock, rec = env
    tid = await open_two(svc)
    await svc.lobbies.set_pace(tid, 100, "correspondence")
    await svc.lobbies.start(tid, 100)
    assert await svc.tables.toggle_muted(tid, 200) is True
    clock.advance(86400 * 0.5 + 1)
    await svc.timers.process()
    assert ("reminder", (0,)) in rec.calls  # the muted member is left out
    assert (await db.seats(tid))[1].muted
    other = await open_two(svc)
    await svc.lobbies.start(other, 100)
    with pytest.raises(ServiceError) as e:
        await svc.tables.toggle_muted(other, 200)
    assert e.value.key == "err.mute_pace"


# ---------------------------------------------------------------------------------------- /table mine
async def test_my_tables_waiting_for_me_first(env):
    svc, db, clock, rec = env
    waiting_later = await open_two(svc)
    await svc.lobbies.set_pace(waiting_later, 100, "relaxed")
    await svc.lobbies.start(waiting_later, 100)
    done = await open_two(svc)
    await svc.lobbies.start(done, 100)
    await svc.tables.submit(done, 100, 0, "p1")  # chosen: it waits for the other member
    waiting_soon = await open_two(svc)
    await svc.lobbies.set_pace(waiting_soon, 100, "live")
    await svc.lobbies.start(waiting_soon, 100)
    lobby = await svc.lobbies.open(guild_id=G1, channel_id=11, game="test-pick", host_user_id=100, host_name="H")
    await play_one(svc)  # finished: not listed
    elsewhere = await svc.lobbies.open(guild_id=G2, channel_id=10, game="test-pick", host_user_id=100, host_name="H")
    mine = await svc.records.mine(G1, 100)
    assert [m.table.id for m in mine] == [waiting_soon, waiting_later, done, lobby.id]
    assert [m.waiting for m in mine] == [True, True, False, False]
    assert mine[0].deadline == clock.now() + 60 and mine[1].deadline == clock.now() + 3600
    assert mine[3].deadline is None and elsewhere.id not in [m.table.id for m in mine]
    # the other member: every table waits for them, the nearest deadline first (normal: 100 s here)
    assert [m.table.id for m in await svc.records.mine(G1, 200)] == [waiting_soon, done, waiting_later]


# ---------------------------------------------------------------------------------------- seasons
async def test_a_new_season_archives_the_old_one_and_starts_ratings_fresh(env):
    svc, db, clock, rec = env
    first = await play_one(svc)
    await play_one(svc)
    before = await svc.records.leaderboard(G1, "test-pick")
    assert [r.user_id for r in before] == [100, 200] and before[0].played == 2
    history = await db.rating_history(G1, "test-pick", 100)
    assert [p.table_id for p in history][0] == first and history[-1].mu == pytest.approx(before[0].mu)
    clock.advance(10)
    (started,) = await svc.seasons.start(G1, ("test-pick",), "Spring", 555)
    assert started.season == 2 and started.name == "Spring"
    assert await svc.records.leaderboard(G1, "test-pick") == []  # fresh
    old, current, rows = await svc.records.season_board(G1, "test-pick", "1")
    assert old.season == 1 and not current and rows == before and old.ended_at == clock.now()
    await play_one(svc, winner=200, loser=100)
    new = await svc.records.leaderboard(G1, "test-pick")
    assert [r.user_id for r in new] == [200, 100] and new[0].played == 1
    assert new[0].mu == pytest.approx(rate([Rated(200), Rated(100)], [1, 2])[0][0])  # from fresh ratings
    spring, current, rows = await svc.records.season_board(G1, "test-pick", "spring")
    assert spring.season == 2 and current and rows == new
    with pytest.raises(ServiceError) as e:
        await svc.records.season_board(G1, "test-pick", "Autumn")
    assert e.value.key == "err.no_season"
    with pytest.raises(ServiceError) as e:
        await svc.seasons.start(G1, ("test-pick",), "SPRING", 555)
    assert e.value.key == "err.season_name_taken"
    records = await svc.records.season_stats(G1, 100)
    assert [(r.season.season, r.rating.played, r.rating.won) for r in records] == [(1, 2, 2), (2, 1, 0)]
    assert {p.season for p in await db.rating_history(G1, "test-pick", 100)} == {1, 2}
    assert [r.user_id for r in await svc.records.leaderboard(G2, "test-pick")] == []  # another server


async def test_two_season_starts_at_once_each_return_the_season_they_started(env):
    svc, db, clock, rec = env
    await db.start_season(G1, "test-pick", None, 100.0)  # season 2 (season 1 made first)
    a, b = await asyncio.gather(db.start_season(G1, "test-pick", "A", 200.0),
                                db.start_season(G1, "test-pick", "B", 200.0))
    assert (a.name, b.name) == ("A", "B") and {a.season, b.season} == {3, 4}  # each its own season
    assert [s.season for s in await db.seasons(G1, "test-pick")] == [1, 2, 3, 4]


async def test_a_settings_read_while_the_bot_leaves_keeps_the_pages_off(env):
    """The bot removed from a server while something reads its settings (a board's picture
    switch): the pages stay off in this process too, and the server's next change keeps them off."""
    from bot.guilds import Defaults
    from bot.web.access import WebDefaults, link_key

    svc, db, clock, rec = env
    svc.guilds.defaults = Defaults(web="private")
    await svc.guilds.change(G1, 555, web="off")
    await asyncio.gather(svc.guilds.forget(G1), svc.guilds.community(G1))
    assert (await db.guild_settings(G1)).web == "off" and (await svc.guilds.community(G1)).web == "off"
    await svc.guilds.change(G1, 556, pace="relaxed")  # the bot added back: a first change
    assert (await link_key(db, G1, WebDefaults(public=False, secret="process")))[0] is False


async def test_monthly_seasons_roll_over_by_themselves(env):
    svc, db, clock, rec = env
    clock.t = 1_700_000_000.0  # 2023-11-14
    await svc.guilds.change(G1, 555, monthly_seasons=True)
    await play_one(svc)
    assert len(await db.seasons(G1, "test-pick")) == 1
    clock.t = 1_702_000_000.0  # 2023-12-08
    assert await svc.records.leaderboard(G1, "test-pick") == []  # a new month: a new season
    seasons = await db.seasons(G1, "test-pick")
    assert [(s.season, s.name) for s in seasons] == [(1, None), (2, "2023-12")]


async def test_two_reads_at_a_month_s_start_start_one_season(env):
    svc, db, clock, rec = env
    clock.t = 1_700_000_000.0  # 2023-11-14
    await svc.guilds.change(G1, 555, monthly_seasons=True)
    await play_one(svc)
    clock.t = 1_702_000_000.0  # 2023-12-08
    a, b = await asyncio.gather(svc.seasons.current(G1, "test-pick"), svc.seasons.current(G1, "test-pick"))
    assert (a.season, b.season) == (2, 2)
    assert [(s.season, s.name) for s in await db.seasons(G1, "test-pick")] == [(1, None), (2, "2023-12")]


async def test_a_settings_change_in_a_new_month_does_not_put_off_its_season(env):
    """The first season counts from when monthly seasons were turned on, not from the settings'
    last change."""
    svc, db, clock, rec = env
    clock.t = 1_700_000_000.0  # 2023-11-14
    await svc.guilds.change(G1, 555, monthly_seasons=True)
    await play_one(svc)
    clock.t = 1_702_000_000.0  # 2023-12-08
    await svc.guilds.change(G1, 555, pace="relaxed")
    assert await svc.records.leaderboard(G1, "test-pick") == []
    assert [(s.season, s.name) for s in await db.seasons(G1, "test-pick")] == [(1, None), (2, "2023-12")]


async def test_a_season_cannot_be_named_like_a_number(env):
    """Seasons are found by their name or their number: a name that reads as a number is refused."""
    svc, db, clock, rec = env
    await svc.seasons.start(G1, ("test-pick",), None, 555)  # season 2
    for name in ("2", "#3", " 12 "):
        with pytest.raises(ServiceError) as e:
            await svc.seasons.start(G1, ("test-pick",), name, 555)
        assert e.value.key == "err.season_name_number"
    await svc.seasons.start(G1, ("test-pick",), "Saison 2", 555)
    assert (await svc.seasons.find(G1, "test-pick", "2")).season == 2
    assert (await svc.seasons.find(G1, "test-pick", "saison 2")).season == 3
    # a season an earlier version let be named like a number: its name wins; "#N" is season N
    await db.start_season(G1, "test-pick", "1", 1_800_000_000.0)  # season 4, named "1"
    assert (await svc.seasons.find(G1, "test-pick", "1")).season == 4
    assert (await svc.seasons.find(G1, "test-pick", "#1")).season == 1


async def test_a_deck_upload_replaces_every_case_of_its_name_an_earlier_version_stored(env):
    """Names once matched with case: a database may hold "Rue" and "RUE"; an upload of "Rue"
    leaves one deck, under the new upload's name and data."""
    svc, db, clock, rec = env
    await db.save_deck(G1, "shop-battle", "Rue", {"x": 1}, 5, 0.0)
    await db.save_deck(G1, "shop-battle", "RUE", {"x": 2}, 5, 0.0)
    kept = await svc.decks.save(G1, "shop-battle", "Rue", {"x": 3}, 5)
    assert await svc.decks.of(G1, "shop-battle") == [(kept, "Rue")]
    assert await svc.decks.get(G1, kept) == {"x": 3}


async def test_a_season_started_last_month_by_hand_lasts_until_monthly_seasons_were_turned_on_a_month(env):
    """Monthly seasons count from the later of the current season's start and their own
    turning on; the month's season takes a free name."""
    svc, db, clock, rec = env
    clock.t = 1_700_000_000.0  # 2023-11-14
    await svc.seasons.start(G1, ("test-pick",), "2023-12", 555)  # an admin's season, named ahead
    clock.t = 1_702_000_000.0  # 2023-12-08
    await svc.guilds.change(G1, 555, monthly_seasons=True)
    assert (await svc.seasons.current(G1, "test-pick")).name == "2023-12"  # not ended at once
    clock.t = 1_704_500_000.0  # 2024-01-06
    assert (await svc.seasons.current(G1, "test-pick")).name == "2024-01"
    assert (await svc.seasons.current(G1, "test-pick")).name == "2024-01"  # started this month: kept
    await svc.seasons.start(G1, ("test-pick",), "2024-02", 555)  # named ahead again, in January
    clock.t = 1_707_000_000.0  # 2024-02-03
    assert (await svc.seasons.current(G1, "test-pick")).name == "2024-02 (2)"  # the month's name was taken


async def test_two_settings_changes_at_once_both_stay(env):
    svc, db, clock, rec = env
    await svc.guilds.community(G1)
    await asyncio.gather(svc.guilds.change(G1, 555, pace="relaxed"), svc.guilds.change(G1, 556, min_games=7))
    stored = await db.guild_settings(G1)
    assert (stored.pace, stored.min_games) == ("relaxed", 7)


async def test_a_new_link_secret_is_not_undone_by_a_change_at_the_same_time(env):
    svc, db, clock, rec = env
    await svc.guilds.change(G1, 555, web="private")
    leaked = (await db.guild_settings(G1)).web_secret
    await asyncio.gather(svc.guilds.rotate_secret(G1, 555), svc.guilds.change(G1, 556, pictures=False))
    stored = await db.guild_settings(G1)
    assert stored.web_secret != leaked and stored.pictures is False


async def test_the_rating_history_of_older_results_is_filled_in_by_replaying_them(env, db_url):
    svc, db, clock, rec = env
    await play_one(svc)
    await play_one(svc, winner=200, loser=100)
    await play_one(svc)
    kept = await db.rating_history(G1, "test-pick", 100)
    # a database of the previous version: results and ratings, no history
    await raw_sql(db_url, "DELETE FROM rating_history")
    assert await db.rating_history(G1, "test-pick", 100) == []
    fresh = House(db, clock=clock, turn_timeout=100)
    await fresh.tables.resume()
    again = await db.rating_history(G1, "test-pick", 100)
    assert [(p.table_id, p.season) for p in again] == [(p.table_id, p.season) for p in kept]
    assert [p.mu for p in again] == pytest.approx([p.mu for p in kept])
    assert again[-1].mu == pytest.approx((await db.ratings(G1, "test-pick", [100]))[100].mu)
    assert await fresh.seasons.backfill() == 0  # nothing left to fill
    await fresh.tables.close()
    assert DEFAULT_MU and DEFAULT_SIGMA  # the replay starts from openskill's defaults
