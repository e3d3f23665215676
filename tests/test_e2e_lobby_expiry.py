"""Lobby expiry end to end, through the offline harness on its simulated
clock: a lobby not started within ``LOBBY_TIMEOUT_MINUTES`` (30 by default) closes itself, its
message edited to say so with no buttons left; an old Join button (its edit failed) answers with
a clear ephemeral message; the expiry survives a restart, and one that fell due while the bot
was down closes the lobby at start-up."""

from __future__ import annotations

from bot.i18n import Translator
from bot.timers import lobby_key
from storage.base import TimerRow
from tests.catalog import says
from tests.e2e import lobby_id

TIMEOUT = 30 * 60  # the default LOBBY_TIMEOUT_MINUTES, in seconds


async def open_lobby(world, host, *members):
    lobby = (await world.slash(host, "play", game="gang-of-dice")).response
    tid = lobby_id(lobby)
    for m in members:
        await world.click(m, lobby, f"se:l:{tid}:join")
    return lobby, tid


async def test_a_lobby_not_started_in_time_closes_itself(e2e):
    world = await e2e()
    alice, bob = world.member("alice"), world.member("bob")
    lobby, tid = await open_lobby(world, alice, bob)
    expired = Translator("en")("lobby.expired", minutes=30)

    await world.advance(TIMEOUT - 5)
    assert (await world.bot.hall.table(tid)).row.status == "lobby"
    assert lobby.custom_ids and expired not in lobby.text()

    await world.advance(5)
    table = await world.bot.hall.table(tid)
    assert table.row.status == "abandoned" and table.row.seed is None
    assert expired in lobby.text()
    assert lobby.buttons == [] and lobby.selects == [] and lobby.custom_ids == []  # no buttons, no selects left
    assert alice.mention in lobby.text() and bob.mention in lobby.text()  # who was seated stays
    assert await world.bot.db.timer(lobby_key(tid)) is None
    assert await world.bot.records.stats(world.guild_id, alice.id) == {}  # nothing recorded
    # the host may open a new lobby in the channel at once
    assert (await world.slash(alice, "play", game="moonshine")).response.public
    world.assert_no_errors()


async def test_an_old_join_button_says_the_lobby_expired(e2e):
    world = await e2e()
    alice, bob = world.member("alice"), world.member("bob")
    lobby, tid = await open_lobby(world, alice)
    # Discord refuses the edit of the lobby message: its buttons stay on screen
    world.fail_requests("PATCH", f"/channels/{world.channel.id}/messages/{lobby.id}", status=500, times=None)
    await world.advance(TIMEOUT)
    assert (await world.bot.hall.table(tid)).row.status == "abandoned"
    assert f"se:l:{tid}:join" in lobby.custom_ids

    res = await world.click(bob, lobby, f"se:l:{tid}:join")
    assert res.ephemeral and res.response.viewer_id == bob.id
    assert res.response.text() == Translator("en")("err.lobby_expired", minutes=30)
    assert [s.user_id for s in (await world.bot.hall.table(tid)).seats] == [alice.id]  # bob not seated


async def test_starting_in_time_keeps_the_table(e2e):
    world = await e2e()
    alice = world.member("alice")
    lobby, tid = await open_lobby(world, alice)
    await world.click(alice, lobby, f"se:l:{tid}:ai+")
    await world.advance(TIMEOUT - 60)
    await world.click(alice, lobby, f"se:l:{tid}:start")
    assert await world.bot.db.timer(lobby_key(tid)) is None
    await world.advance(120)  # past the lobby's expiry
    assert (await world.bot.hall.table(tid)).row.status in ("running", "finished")
    assert Translator("en")("lobby.expired", minutes=30) not in lobby.text()


async def test_the_expiry_survives_a_restart(e2e):
    world = await e2e()
    alice = world.member("alice")
    lobby, tid = await open_lobby(world, alice)
    await world.advance(TIMEOUT / 2)
    await e2e.restart()
    await world.advance(TIMEOUT / 2 - 5)
    assert (await world.bot.hall.table(tid)).row.status == "lobby"
    await world.advance(5)  # the expiry keeps its time: it is not restarted by the restart
    assert (await world.bot.hall.table(tid)).row.status == "abandoned"
    assert Translator("en")("lobby.expired", minutes=30) in lobby.text() and lobby.custom_ids == []


async def test_a_lobby_that_expired_while_the_bot_was_down_closes_at_start_up(e2e):
    world = await e2e()
    alice = world.member("alice")
    lobby, tid = await open_lobby(world, alice)
    # the simulated clock cannot move while the bot is stopped: the stored expiry is moved
    # into the past instead, as a long downtime would leave it (the running bot keeps its own)
    now = world.now().timestamp()
    await world.bot.db.set_timer(TimerRow(lobby_key(tid), now - 60, {}))
    await e2e.restart()
    await world.settle()
    assert (await world.bot.hall.table(tid)).row.status == "abandoned"
    assert Translator("en")("lobby.expired", minutes=30) in lobby.text() and lobby.custom_ids == []


async def test_the_expiry_in_french_with_another_timeout(e2e):
    world = await e2e(guild_locale="fr", lobby_timeout_minutes=1)
    anne = world.member("anne", locale="fr")
    lobby = (await world.slash(anne, "jouer", game="gang-of-dice")).response
    await world.advance(60)
    assert says("lobby.expired", "fr", minutes=1) in lobby.text() and lobby.custom_ids == []
