"""AI levels end to end through discord.py's dispatch: the host's private level picker (Add AI,
AI levels), stale, duplicate and foreign picks, the levels in the lobby and on the board, and a
game against a strong AI thinking in a real worker process (an iteration budget: no clock)."""

from __future__ import annotations

import random

from bot.i18n import Translator
from bot.lobbies import lobby_tag
from cogs.components import LevelSelect, LobbyButton
from tests.catalog import says
from tests.e2e import board_of, lobby_id, take_turn


def ai(n: int, level: str | None = None, *, robot: bool = False, lang: str = "en") -> str:
    """AI seat ``n``'s name as the bot shows it (the lobby's name for AI players; with its level
    and, on the board, the robot)."""
    name = f"{says('lobby.ai_name', lang)} {n}" + (" 🤖" if robot else "")
    return name if level is None else says("ai.named", lang, name=name, level=says(f"ai.level.{level}", lang))


def picker_selects(msg) -> list:
    return [s for s in msg.selects if s.custom_id.startswith("se:v:")]


def action_rows(msg) -> list:
    """The action rows of a message (inside its V2 container)."""
    return [c for top in msg.raw_components for c in [top, *(top.get("components") or [])] if c.get("type") == 1]


async def test_the_host_picks_levels_in_a_private_picker_and_the_board_shows_them(e2e):
    # a worker process starts (spawn and imports) inside the first strong move: on a loaded
    # machine that can take longer than the default 5 s bound on settling
    world = await e2e(seeds=[4], ai_iterations=2, ai_workers=1, settle_timeout=60)
    alice, bob = world.member("alice"), world.member("bob")
    lobby = (await world.slash(alice, "play", game="three-player-moon")).response
    tid = lobby_id(lobby)
    assert f"se:l:{tid}:lvl" in lobby.custom_ids and len(action_rows(lobby)) <= 5

    # a member who is not the host: refused privately
    res = await world.click(bob, lobby, f"se:l:{tid}:lvl")
    assert res.ephemeral and says("err.host_only") in res.response.text()

    # Add AI: the lobby is edited, and the host alone gets the picker of every AI seat
    res = await world.click(alice, lobby, f"se:l:{tid}:ai+")
    assert ai(1, "normal") in lobby.text()
    picker = res.followups[0]
    assert picker.ephemeral and picker.viewer_id == alice.id
    assert says("lobby.picker.added", name=ai(1)) in picker.text()
    (sel,) = picker_selects(picker)
    assert sel.option_values == ["easy", "normal", "strong"] and sel.option_labels == [says(f"ai.level.{lv}").capitalize() for lv in ("easy", "normal", "strong")]
    table = await world.bot.hall.table(tid)
    assert sel.custom_id == f"se:v:{tid}:1:{lobby_tag(table.seats)}"

    res = await world.select(alice, picker, sel.custom_id, ["strong"])
    assert res.kind == "update" and says("lobby.picker.set", name=ai(1), level=says("ai.level.strong")) in picker.text()
    assert ai(1, "strong") in lobby.text()  # the lobby message was edited too
    # the same pick again (a double click): a clear private message, nothing changes
    res = await world.select(alice, picker, sel.custom_id, ["strong"])
    assert res.ephemeral and res.response is not picker and says("err.level_same", name=ai(1)) in res.response.text()

    await world.click(alice, lobby, f"se:l:{tid}:ai+")
    # the first picker was drawn before AI 2 sat down: stale
    res = await world.select(alice, picker, sel.custom_id, ["easy"])
    assert res.ephemeral and says("err.level_stale") in res.response.text()
    assert (await world.bot.hall.table(tid)).seats[1].ai_level == "strong"

    res = await world.click(alice, lobby, f"se:l:{tid}:lvl")  # a fresh picker, current levels marked
    picker = res.response
    assert picker.ephemeral and [s.custom_id.split(":")[3] for s in picker_selects(picker)] == ["1", "2"]
    res = await world.select(alice, picker, picker_selects(picker)[1].custom_id, ["easy"])
    assert says("lobby.picker.set", name=ai(2), level=says("ai.level.easy")) in picker.text()
    assert ai(1, "strong") in lobby.text() and ai(2, "easy") in lobby.text()

    await world.click(alice, lobby, f"se:l:{tid}:start")
    board = board_of(world, tid)
    assert ai(1, "strong", robot=True) in board.text() and ai(2, "easy", robot=True) in board.text()
    # a picker of a started table: refused
    res = await world.select(alice, picker, picker_selects(picker)[0].custom_id, ["normal"])
    assert res.ephemeral and says("err.table_not_lobby") in res.response.text()

    # play to the end: the strong AI thinks in a worker process, the member clicks meanwhile
    service = world.bot
    rng = random.Random(1)
    for _ in range(3000):
        table = await service.hall.table(tid)
        if table.row.status != "running":
            break
        if not await take_turn(world, alice, tid, rng):
            await service.tables.idle()
    table = await service.hall.table(tid)
    assert table.row.status == "finished"
    log = await service.db.action_log(tid)
    assert {source for _, codes, source in log if 1 in codes} == {"ai"}
    assert service.tables.driver.pool.replaced == 0 and service.tables.driver.pool.started
    assert (await service.db.ratings(table.row.guild_id, table.row.game, [alice.id]))[alice.id].played == 1
    world.assert_no_errors()


async def test_the_picker_without_ai_players_and_after_a_level_changed_elsewhere(e2e):
    world = await e2e(seeds=[4])
    alice = world.member("alice")
    assert LobbyButton(12, "ai+").custom_id == "se:l:12:ai+"
    assert LevelSelect(12, 1, "0a1b2c3d").custom_id == "se:v:12:1:0a1b2c3d"
    lobby = (await world.slash(alice, "play", game="gang-of-dice")).response
    tid = lobby_id(lobby)
    res = await world.click(alice, lobby, f"se:l:{tid}:lvl")
    assert res.ephemeral and says("lobby.picker.none") in res.response.text()
    picker = (await world.click(alice, lobby, f"se:l:{tid}:ai+")).followups[0]
    (sel,) = picker_selects(picker)
    await world.bot.lobbies.set_ai_level(tid, alice.id, 1, "easy")  # an edit the picker did not see
    res = await world.select(alice, picker, sel.custom_id, ["easy"])
    assert res.ephemeral and says("err.level_same", name=ai(1)) in res.response.text()


def test_levels_have_localised_names_on_the_board_and_in_pictures():
    from bot import compose
    from bot.service import TableSnapshot
    from cogs.pictures import raw_names
    from storage.base import SeatRow, TableRow

    row = TableRow(id=3, guild_id=1, channel_id=1, thread_id=None, lobby_message_id=None, board_message_id=None,
                   game="three-player-moon", options={}, status="running", host_user_id=1, lang="fr", seed=1,
                   version=0, state=None, created_at=0, updated_at=0)
    seats = [SeatRow(0, 1, "Ann", False), SeatRow(1, None, "IA 1", True, ai_level="strong"),
             SeatRow(2, None, "IA 2", True)]
    table = TableSnapshot(row, seats, None)
    assert compose.context(table, Translator("fr"), None).names == ("Ann", "IA 1 🤖 (fort)", "IA 2 🤖 (normal)")
    assert raw_names(table) == ("Ann", "IA 1 (fort)", "IA 2 (normal)")
    assert compose.context(table, Translator("en"), None).names[1] == "IA 1 🤖 (strong)"


async def test_six_seats_fit_discords_five_rows(e2e):
    world = await e2e(seeds=[4])
    alice = world.member("alice")
    lobby = (await world.slash(alice, "play", game="shop-battle")).response
    tid = lobby_id(lobby)
    for _ in range(5):
        res = await world.click(alice, lobby, f"se:l:{tid}:ai+")
        assert res.acknowledged
    picker = res.followups[0]
    assert len(picker_selects(picker)) == 5 and len(action_rows(picker)) == 5
    assert len(action_rows(lobby)) <= 5 and lobby.text().count(f"({says('ai.level.normal')})") == 5
    res = await world.select(alice, picker, picker_selects(picker)[4].custom_id, ["strong"])
    assert says("lobby.picker.set", name=ai(5), level=says("ai.level.strong")) in picker.text() and ai(5, "strong") in lobby.text()
    res = await world.click(alice, lobby, f"se:l:{tid}:ai+")  # a seventh seat: refused, privately
    assert res.ephemeral and says("err.table_full", max=6) in res.response.text()
    world.assert_no_errors()
