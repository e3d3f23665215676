"""A server's own settings, ``/table mine`` and seasons through the offline Discord harness:
an admin changes the settings and a member is refused, a game or a channel refused in one server
only, the member's tables in order, a season started after a confirmation, in both languages."""

from __future__ import annotations

import random

import pytest

from bot.i18n import Translator
from tests.e2e import lobby_id, open_table, take_turn
from tests.harness import ImpossibleAction

EN, FR = Translator("en"), Translator("fr")


def settings_message(res):
    msg = res.response
    assert res.ephemeral and msg is not None and "se:cc" in msg.custom_ids
    return msg


async def test_an_admin_changes_the_settings_and_a_member_is_refused(e2e):
    world = await e2e(pictures=True)
    root, bob = world.member("root", admin=True), world.member("bob")
    with pytest.raises(ImpossibleAction):  # Discord hides the command from members
        await world.slash(bob, "settings")
    world.allow_command("settings", bob)  # a server may grant it; the bot still refuses
    refused = await world.slash(bob, "settings")
    assert refused.ephemeral and refused.response.text() == EN("err.settings_admin")
    msg = settings_message(await world.slash(root, "settings"))
    assert EN("settings.channels.all") in msg.text() and EN("pace.normal") in msg.text()
    await world.select(root, msg, "se:cs:pace", ["correspondence"])
    await world.select(root, msg, "se:cs:games", ["gang-of-dice", "moonshine"])
    await world.click(root, msg, "se:c:pictures")
    text = msg.text()
    assert EN("pace.correspondence") in text and "Shop Battle" not in text.split(EN("settings.channels"))[0]
    stored = await world.bot.db.guild_settings(world.guild_id)
    assert stored.pace == "correspondence" and stored.games == ("gang-of-dice", "moonshine")
    assert stored.pictures is False and stored.updated_by == root.id  # the bot's default turned off here
    # the web pages, then a new link secret
    await world.click(root, msg, "se:c:web")
    first = (await world.bot.db.guild_settings(world.guild_id)).web_secret
    res = await world.click(root, msg, "se:c:rotate")
    assert res.followups[-1].text() == EN("settings.web.rotated")
    assert (await world.bot.db.guild_settings(world.guild_id)).web_secret not in ("", first)
    # the leaderboard minimum through its number prompt
    shown = await world.click(root, msg, "se:c:min")
    await world.submit_modal(root, shown, {"number": "7"})
    assert (await world.bot.db.guild_settings(world.guild_id)).min_games == 7
    # a new lobby reads the settings: the correspondence pace, the mute button on its board
    tid = await open_table(world, root, "gang-of-dice", ai=1)
    table = await world.bot.hall.table(tid)
    assert table.row.pace == "correspondence"
    changes = await world.bot.db.settings_changes(world.guild_id, 50)
    assert {c.field for c in changes} >= {"pace", "games", "pictures", "web", "web_secret", "min_games"}
    # the bot leaves the server: its settings go
    await world.remove_bot()
    assert (await world.bot.db.guild_settings(world.guild_id)).updated_by is None


async def test_a_game_disabled_in_one_server_stays_open_in_another(e2e):
    world = await e2e()
    other = world.add_guild("Other")
    root, alice = world.member("root", admin=True), world.member("alice")
    carol = world.member("carol", guild=other)
    msg = settings_message(await world.slash(root, "settings"))
    await world.select(root, msg, "se:cs:games", ["moonshine"])
    assert [c["value"] for c in await world.autocomplete(alice, "play", "game", "")] == ["moonshine"]
    res = await world.slash(alice, "play", game="gang-of-dice")
    assert res.ephemeral and res.response.text() == EN("err.game_not_enabled", game="Gang of Dice")
    res = await world.slash(carol, "play", game="gang-of-dice")
    assert res.response.public and "Gang of Dice" in res.response.cards[0]["title"]
    assert "gang-of-dice" in [c["value"] for c in await world.autocomplete(carol, "play", "game", "gang",
                                                                           channel=other.channel)]


async def test_play_is_refused_in_a_channel_the_server_does_not_allow(e2e):
    world = await e2e(guild_locale="fr")
    root, alice = world.member("root", admin=True), world.member("alice", locale="fr")
    games = world.text_channel("jeux")
    msg = settings_message(await world.slash(root, "settings"))
    await world.select(root, msg, "se:cc", [games])
    res = await world.slash(alice, "jouer", game="moonshine")
    assert res.ephemeral and res.response.text() == FR("err.channel_not_allowed", channels=f"<#{games.id}>")
    res = await world.slash(alice, "jouer", game="moonshine", channel=games)
    assert res.response.public and lobby_id(res.response)
    await world.select(root, msg, "se:cc", [])  # none chosen: every channel again
    assert (await world.slash(alice, "jouer", game="gang-of-dice")).response.public


async def test_my_tables_and_their_deadlines(e2e):
    world = await e2e(seeds=[3])
    alice, bob = world.member("alice"), world.member("bob")
    first = await open_table(world, alice, "three-player-moon", ai=2)
    second = await open_table(world, bob, "gang-of-dice", members=[alice], options={"pace": "relaxed"})
    res = await world.slash(alice, "table mine")
    text = res.response.text()
    assert res.ephemeral and f"#{first}" in text and f"#{second}" in text
    table = await world.bot.hall.table(second)
    assert table.row.pace == "relaxed"
    mine = await world.bot.records.mine(world.guild_id, alice.id)
    waiting = [m.table.id for m in mine if m.waiting]
    assert [m.table.id for m in mine][:len(waiting)] == waiting  # the tables waiting for her first
    deadline = next(m.deadline for m in mine if m.table.id == second)
    assert deadline is not None and f"<t:{int(deadline)}:R>" in text
    assert EN("pace.relaxed") in text


async def test_a_season_is_started_after_a_confirmation(e2e):
    world = await e2e(seeds=[5], guild_locale="fr")
    root, alice = world.member("root", admin=True, locale="fr"), world.member("alice", locale="fr")
    tid = await open_table(world, alice, "three-player-moon", ai=2)
    rng = random.Random(5)
    for _ in range(400):  # alice plays through her panel; the AI players' moves are the bot's own work
        if (await world.bot.hall.table(tid)).row.status != "running":
            break
        await take_turn(world, alice, tid, rng)
        await world.settle()
    assert (await world.bot.hall.table(tid)).row.status == "finished"
    before = await world.bot.records.leaderboard(world.guild_id, "three-player-moon")
    assert [r.user_id for r in before] == [alice.id]
    with pytest.raises(ImpossibleAction):
        await world.slash(alice, "saison commencer", game="three-player-moon")
    ask = await world.slash(root, "season start", game="three-player-moon", name="Hiver")
    assert ask.ephemeral and FR("season.confirm.title") in ask.response.text()
    button = next(c for c in ask.response.custom_ids if c.startswith("se:y:"))
    await world.click(root, ask.response, button)
    assert [s.name for s in await world.bot.db.seasons(world.guild_id, "three-player-moon")] == [None, "Hiver"]
    assert FR("season.started.title") in world.new_public_text()
    board = await world.slash(alice, "classement", game="three-player-moon")
    assert FR("lb.season.current", season="Hiver") in board.response.text()
    old = await world.slash(alice, "classement", game="three-player-moon", season="1")
    assert FR("season.numbered", n=1) in old.response.text() and f"<@{alice.id}>" in old.response.text()
    assert "<t:0:" not in old.response.text()  # the first season has no stored start: only its end is said
    stats = await world.slash(alice, "stats")
    assert FR("season.numbered", n=1) in stats.response.text()
    names = [c["name"] for c in await world.autocomplete(alice, "classement", "season", "",
                                                           game="three-player-moon")]
    assert names == ["Hiver", FR("season.numbered", n=1)]


async def test_a_season_name_of_40_characters_in_any_script_is_carried_whole(e2e):
    world = await e2e()
    root = world.member("root", admin=True)
    name = "Зимний чемпионат нашего сервера 2026 🏆"  # 38 characters, 71 bytes of UTF-8
    ask = await world.slash(root, "season start", game="moonshine", name=name)
    button = next(c for c in ask.response.custom_ids if c.startswith("se:y:"))
    await world.click(root, ask.response, button)
    assert [s.name for s in await world.bot.db.seasons(world.guild_id, "moonshine")] == [None, name]
    refused = await world.slash(root, "season start", game="moonshine", name="x" * 41)
    assert refused.response.text() == EN("err.season_name", max=40)
    for taken in (name.upper(), "7"):  # refused at once, before any confirmation
        refused = await world.slash(root, "season start", game="moonshine", name=taken)
        assert not any(c.startswith("se:y:") for c in refused.response.custom_ids)
        assert refused.response.text() in (EN("err.season_name_taken", name=taken), EN("err.season_name_number", name=taken))


async def test_a_season_name_cannot_ping_or_break_the_public_notice(e2e):
    world = await e2e()
    root = world.member("root", admin=True)
    name = f"<@{root.id}> **Cup**"
    ask = await world.slash(root, "season start", game="moonshine", name=name)
    await world.click(root, ask.response, next(c for c in ask.response.custom_ids if c.startswith("se:y:")))
    assert [s.name for s in await world.bot.db.seasons(world.guild_id, "moonshine")] == [None, name]  # stored as typed
    notice = world.new_public_text()
    assert f"<@{root.id}>" not in notice and "\\*\\*Cup\\*\\*" in notice  # no mention, its stars shown as stars
    choices = await world.autocomplete(root, "leaderboard", "season", "", game="moonshine")
    assert choices[0]["name"] == name  # an autocomplete choice is plain text: as typed
    assert [c["value"] for c in choices] == ["#2", "#1"]  # by number: never mistaken for a name
    board = (await world.slash(root, "leaderboard", game="moonshine", season="#1")).response.text()
    assert EN("season.numbered", n=1) in board


async def test_settings_do_not_offer_pictures_when_the_bot_draws_none(e2e):
    """``PICTURES=off`` turns pictures off everywhere: /settings says so and its toggle is
    disabled, even for a server that had turned them on."""
    world = await e2e(pictures=False)
    root = world.member("root", admin=True)
    await world.bot.communities.change(world.guild_id, root.id, pictures=True)
    msg = (await world.slash(root, "settings")).response
    assert EN("settings.pictures.bot_off") in msg.text()
    toggle = next(b for b in msg.buttons if b.custom_id == "se:c:pictures")
    assert toggle.disabled
    assert (await world.bot.communities.community(world.guild_id)).pictures is False


async def test_a_pictures_toggle_drawn_before_pictures_were_turned_off_changes_nothing(e2e):
    world = await e2e(pictures=True)
    root = world.member("root", admin=True)
    msg = (await world.slash(root, "settings")).response  # "Pictures: turn off"
    await e2e.restart(pictures=False)
    res = await world.click(root, msg, "se:c:pictures")
    assert (await world.bot.db.guild_settings(world.guild_id)).pictures is None  # not stored as on
    assert EN("err.pictures_bot_off") in "\n".join(m.text() for m in res.messages if m.ephemeral)


async def test_the_minimum_games_window_opened_before_a_restart_is_answered(e2e):
    """An admin opens /settings' "minimum games" window, the bot restarts, the admin submits:
    the value is stored and the settings message redrawn (the window's custom_id alone routes
    it); a value out of range is refused clearly."""
    world = await e2e()
    root = world.member("root", admin=True)
    settings = (await world.slash(root, "settings")).response
    shown = await world.click(root, settings, "se:c:min")
    assert shown.kind == "modal"
    await e2e.restart()
    out = await world.submit_modal(root, shown, {"number": "7"})
    assert out.acknowledged
    assert (await world.bot.db.guild_settings(world.guild_id)).min_games == 7
    again = await world.click(root, settings, "se:c:min")
    out = await world.submit_modal(root, again, {"number": "0"})
    assert out.acknowledged and (await world.bot.db.guild_settings(world.guild_id)).min_games == 7
    text = "\n".join(m.text() for m in out.messages)
    assert text == Translator("en")("err.min_games", min=1, max=1000)  # the setting as the admin reads it


async def test_a_double_click_on_the_season_confirmation_starts_one_season(e2e):
    """Two clicks at once on /season start's confirm button: one new season, one public notice;
    the second click is told the confirmation was used."""
    world = await e2e()
    root = world.member("root", admin=True)
    ask = await world.slash(root, "season start", game="moonshine")
    button = next(c for c in ask.response.custom_ids if c.startswith("se:y:"))
    a, b = await world.gather(world.click(root, ask.response, button), world.click(root, ask.response, button))
    assert a.acknowledged and b.acknowledged
    assert [s.season for s in await world.bot.db.seasons(world.guild_id, "moonshine")] == [1, 2]
    en = Translator("en")
    notices = [m for m in world.channel_messages() if en("season.started.title") in m.text()]
    assert len(notices) == 1
    texts = [m.text() for r in (a, b) for m in r.messages if m.ephemeral]
    assert en("err.season_confirmed") in texts, texts
    past = (await world.slash(root, "leaderboard", game="moonshine", season="1")).response.text()
    assert en("lb.empty_past", min=1) in past and "/play" not in past  # nobody played it: no call to play it
