"""Pictures on Discord, end to end through the offline harness: the board message carries the
picture of the public view (and only of it), edited as the game goes and uploaded again only
when the picture changes; panels carry theirs; a table whose pictures cannot be drawn, or whose
bot may not attach files, shows the text board and carries on; ``PICTURES=off``; and the REST
calls per applied step of a full game of every game stay within 3."""

from __future__ import annotations

import asyncio
import random

import discord
import pytest

from bot import render
from bot.games import GAMES
from bot.render import render_board, render_panel
from tests.catalog import said, says
from tests.e2e import board_of, open_table, play_counting, take_turn
from tests.pictures import pixels


def board_png(world, board) -> bytes:
    """The bytes of the board message's current picture (it must have one)."""
    assert board.image_urls == ["attachment://board.png"], board.cards
    att = board.attachment("board.png")
    assert att is not None, board.attachments
    return world.attachment_bytes(att)


async def expected_board(world, tid) -> bytes:
    """What the board picture must be: drawn from the PUBLIC view, raw names (an AI player's
    with its level, "AI 1 (normal)"), table language."""
    from bot.i18n import Translator

    table = await world.bot.hall.table(tid)
    view = table.game.view_json(table.state, None)
    t = Translator(table.row.lang)
    names = [t("ai.named", name=s.name, level=t(f"ai.level.{s.level}")) if s.is_ai else s.name for s in table.seats]
    return render_board(table.row.game, view, names, table.row.lang, cache=None)


async def test_board_carries_the_public_picture_and_it_follows_the_game(e2e):
    world = await e2e(seeds=[7], pictures=True)
    alice = world.member("alice", nick="Al*ce_`|")  # markdown in the name: raw in the picture
    tid = await open_table(world, alice, "gang-of-dice", ai=2)
    board = board_of(world, tid)
    first = board_png(world, board)
    assert first.startswith(b"\x89PNG")
    assert pixels(first) == pixels(await expected_board(world, tid))
    # the short text stays beside the picture: the headline, not the whole text board
    assert "Round 1/12" in board.text() and "Al*ce_`|" not in board.text()
    rng = random.Random(2)
    for _ in range(3):
        assert await take_turn(world, alice, tid, rng)
    later = board_png(world, board)
    assert later != first
    assert pixels(later) == pixels(await expected_board(world, tid))
    assert len({v.attachment_ids for v in board.versions}) > 1  # a new upload for a new picture


async def test_an_unchanged_picture_is_not_uploaded_again(e2e):
    """Moonshine's secret choices: "who has chosen" changes the board's text, not its picture."""
    world = await e2e(seeds=[1], pictures=True)
    alice, bob = world.member("alice"), world.member("bob")
    tid = await open_table(world, alice, "moonshine", members=[bob], ai=2, options={"variant": "standard"})
    service = world.bot
    rng = random.Random(5)
    checked = 0
    for _ in range(200):
        table = await service.hall.table(tid)
        if table.row.status != "running" or checked >= 3:
            break
        if len(table.to_act()) > 1 and not table.pending.keys() & {table.seat_of(alice.id)} \
                and table.seat_of(alice.id) in table.to_act() and table.seat_of(bob.id) in table.waiting_for():
            board = board_of(world, tid)
            before, versions, uploads = board.current, len(board.versions), len(world.uploads)
            await take_turn(world, alice, tid, rng)
            if (await service.hall.table(tid)).version == table.version:  # buffered: a secret choice
                assert len(board.versions) == versions + 1, "the board's text shows who has chosen"
                assert said(board.text(), "board.waiting_for", chosen="alice")
                assert board.current.attachment_ids == before.attachment_ids
                board_uploads = [u for u in world.uploads[uploads:] if u.filename == "board.png"]
                assert board_uploads == []
                assert pixels(board_png(world, board)) == pixels(await expected_board(world, tid))
                checked += 1
            continue
        for m in (alice, bob):
            await take_turn(world, m, tid, rng)
    assert checked >= 1


async def test_a_panel_carries_its_picture(e2e):
    world = await e2e(seeds=[7], pictures=True)
    alice = world.member("alice")
    tid = await open_table(world, alice, "gang-of-dice", ai=1)
    table = await world.bot.hall.table(tid)
    seat = table.seat_of(alice.id)
    res = await world.click(alice, board_of(world, tid), f"se:b:{tid}:panel")
    panel = res.response
    assert panel.ephemeral and panel.viewer_id == alice.id
    [att] = panel.attachments
    assert att["filename"].startswith("panel-") and panel.image_urls == [f"attachment://{att['filename']}"]
    game = GAMES["gang-of-dice"].game
    legal = [game.encode(a) for a in game.legal_actions(table.state, seat)] if seat in table.to_act() else []
    want = render_panel("gang-of-dice", game.view_json(table.state, seat), legal, table.names(), "en", cache=None)
    assert pixels(world.attachment_bytes(att)) == pixels(want)
    assert panel.components, "the legal choices stay buttons"


async def test_a_table_whose_pictures_fail_shows_text_and_finishes(e2e, monkeypatch):
    def broken(*_args, **_kwargs):
        raise RuntimeError("no ink")

    monkeypatch.setattr(render.renderer("gang-of-dice"), "board", broken)
    monkeypatch.setattr(render.renderer("gang-of-dice"), "panel", lambda *a, **k: None)  # returns nothing
    render.CACHE.clear()
    world = await e2e(seeds=[7], pictures=True)
    alice, bob = world.member("alice"), world.member("bob")
    rng = random.Random(3)
    with world.expect_errors(match=r"drawing the (board|panel) of table \d+ \(gang-of-dice\) failed") as caught:
        tid = await open_table(world, alice, "gang-of-dice", members=[bob], ai=1)
        for _ in range(3000):
            if (await world.bot.hall.table(tid)).row.status != "running":
                break
            for m in (alice, bob):
                await take_turn(world, m, tid, rng)
    logged = "\n".join(e.format() for e in caught.errors)
    assert "board" in logged and "panel" in logged and len(caught.errors) == 2  # once per table and kind
    assert "no ink" not in logged  # the exception's message is not logged (it could be private)
    assert (await world.bot.hall.table(tid)).row.status == "finished"
    board = board_of(world, tid)
    assert not board.image_urls and [a["filename"] for a in board.attachments] == [f"speakeasy-table-{tid}.txt"]  # the game log only
    assert says("god.field.final") in board.text()  # the whole text board
    log_name = f"speakeasy-table-{tid}.txt"  # the finished board's game log is the only file
    assert all(a["filename"] == log_name for m in world.messages for a in m.attachments)
    assert all(u.filename == log_name for u in world.uploads)  # no picture was ever uploaded


async def test_without_attach_files_the_text_board_is_shown(e2e):
    world = await e2e(seeds=[5], pictures=True)
    alice = world.member("alice")
    channel = world.channel_with_overwrites("no-files", {"@everyone": discord.PermissionOverwrite(attach_files=False)})
    await world.settle()
    tid = await open_table(world, alice, "gang-of-dice", ai=1)  # in #general: pictures
    assert board_of(world, tid).image_urls
    res = await world.slash(alice, "play", channel=channel, game="gang-of-dice")
    tid2 = int(next(c for c in res.response.custom_ids if c.startswith("se:l:")).split(":")[2])
    await world.click(alice, res.response, f"se:l:{tid2}:ai+")
    await world.click(alice, res.response, f"se:l:{tid2}:start")
    board = board_of(world, tid2)
    assert not board.image_urls and not board.attachments and "Round 1/12" in board.text()
    assert await take_turn(world, alice, tid2, random.Random(1))
    assert (await world.bot.hall.table(tid2)).version >= 1


async def test_pictures_off_gives_text_boards(e2e):
    world = await e2e(seeds=[7], pictures=False)
    alice = world.member("alice")
    tid = await open_table(world, alice, "gang-of-dice", ai=1)
    await take_turn(world, alice, tid, random.Random(1))
    assert world.uploads == [] and not any(m.attachments for m in world.messages)
    assert not board_of(world, tid).image_urls


@pytest.mark.parametrize("game", sorted(GAMES))
async def test_rest_calls_per_applied_step_of_a_full_game(e2e, game):
    """Two members and AI players, pictures on: the REST calls the bot makes on its own (board
    posts and edits, pings, threads; not the answers to the members' clicks) average at most 3
    per applied step."""
    world = await e2e(seeds=[3], pictures=True)
    count = await play_counting(world, game, [world.member("alice"), world.member("bob")], random.Random(1))
    assert count.steps > 10
    assert count.own_per_step <= 3, count
    assert count.uploads > 0


async def test_a_deleted_board_comes_back_with_its_picture(e2e):
    """A moderator deletes the board; the next redraw posts a new board that carries the picture again (drawn anew, not a dangling
    reference to the deleted message's attachment)."""
    world = await e2e(seeds=[7], pictures=True)
    alice, root = world.member("alice"), world.member("root", admin=True)
    tid = await open_table(world, alice, "gang-of-dice", ai=1)
    board = board_of(world, tid)
    await world.delete_message(root, board)
    # a redraw with the same picture (e.g. a member coming back), awaited here directly
    assert await world.bot.notifier.draw_board(await world.bot.hall.table(tid))
    await world.settle()
    new_board = board_of(world, tid)
    assert new_board.id != board.id
    assert pixels(board_png(world, new_board)) == pixels(await expected_board(world, tid))


async def _panel_after_one_click(world, alice, tid):
    """Open alice's panel, click the AI's move on it; return (panel message, its journal record)."""
    from tests.e2e import act_on_panel

    res = await world.click(alice, board_of(world, tid), f"se:b:{tid}:panel")
    panel = res.response
    first_att = panel.attachments[0]["filename"]
    assert await act_on_panel(world, alice, tid, panel, random.Random(1))
    await world.settle()
    return first_att, world.message(panel.id)


async def expected_panel(world, tid, member) -> bytes:
    table = await world.bot.hall.table(tid)
    seat = table.seat_of(member.id)
    game = table.game
    legal = [game.encode(a) for a in game.legal_actions(table.state, seat)] if seat in table.to_act() else []
    return render_panel(table.row.game, game.view_json(table.state, seat), legal, table.names(), "en", cache=None)


def recorded_outcomes(world, monkeypatch, *actions: str) -> list:
    """The outcomes of the world's ``actions`` (``"click"``, ``"select"``...) from now on, in order."""
    outcomes: list = []
    for name in actions:
        real = getattr(world, name)

        async def recorded(*args, _real=real, **kwargs):
            outcomes.append(await _real(*args, **kwargs))
            return outcomes[-1]

        monkeypatch.setattr(world, name, recorded)
    return outcomes


@pytest.mark.parametrize("workers", [0, 1], ids=["thread", "process"])
async def test_a_click_is_answered_at_once_and_its_new_picture_follows(e2e, workers):
    """A click on a panel with a picture: the first edit (the answer) has the new buttons and
    text beside the picture the panel carried; a second edit brings the new picture, drawn in
    a thread or in a worker process (``RENDER_WORKERS``), equal to the seat's view."""
    world = await e2e(seeds=[7], pictures=True, render_workers=workers)
    alice, bob = world.member("alice"), world.member("bob")
    tid = await open_table(world, alice, "gang-of-dice", members=[bob])  # no AI: nothing moves unseen
    table = await world.bot.hall.table(tid)
    if table.seat_of(alice.id) not in table.to_act():  # the member to act clicks
        alice, bob = bob, alice
    first_att, record = await _panel_after_one_click(world, alice, tid)
    answer, last = record.versions[-2], record.versions[-1]
    assert [a["filename"] for a in answer.attachments] == [first_att], "the answer keeps the old picture"
    assert answer.components != record.versions[0].components, "the answer has the new buttons"
    [att] = last.attachments
    assert att["filename"] != first_att
    assert pixels(world.attachment_bytes(att)) == pixels(await expected_panel(world, tid, alice))


@pytest.mark.parametrize("slow", [False, True], ids=["answered", "deferred"])
async def test_a_panel_click_is_redrawn_in_its_answer_or_after_a_defer(e2e, monkeypatch, slow):
    """A panel click applied quickly is answered by redrawing the panel (one UPDATE_MESSAGE
    answer); when the service is slower than DEFER_AFTER_S, the click is deferred first and the
    panel edited after. Either way the panel shows the new version's buttons."""
    from cogs.base import DEFER_AFTER_S
    from tests.e2e import act_on_panel

    world = await e2e(seeds=[7])
    if slow:  # a service slower than DEFER_AFTER_S (simulated time)
        real_submit = world.bot.tables.submit

        async def slow_submit(*args, **kwargs):
            await asyncio.sleep(DEFER_AFTER_S + 1)
            return await real_submit(*args, **kwargs)

        monkeypatch.setattr(world.bot.tables, "submit", slow_submit)
    alice, bob = world.member("alice"), world.member("bob")
    tid = await open_table(world, alice, "three-player-moon", members=[bob], ai=1)
    table = await world.bot.hall.table(tid)
    member = alice if table.seat_of(alice.id) in table.to_act() else bob
    res = await world.click(member, board_of(world, tid), f"se:b:{tid}:panel")
    panel = res.response
    before = table.version
    outcomes = recorded_outcomes(world, monkeypatch, "click", "select")
    assert await act_on_panel(world, member, tid, panel, random.Random(2))
    [out] = outcomes
    assert out.acknowledged
    assert out.kind == ("deferred_update" if slow else "update")
    after = await world.bot.hall.table(tid)
    assert after.version > before
    assert all(f":{before}:" not in cid for cid in panel.custom_ids), "the panel shows the new version"


def test_a_finished_board_with_a_picture_keeps_its_tie_break_line():
    """Beside the picture the board keeps only its headline and a few fields: the tie-break
    line of a finished game (which no picture draws) is one of them."""
    from bot.i18n import Translator
    from bot.ui import Block, Board, Field
    from cogs.pictures import BoardPictures, Picture

    t = Translator("en")
    card = Block("Moonshine", "🏆 Game over. Winner: AI 2.\nmore", fields=(
        Field("AI 1", "seat block"), Field(t("result.tie_field"), "⚖️ AI 2, AI 1 level on 16 points: …"),
        Field(t("board.log"), "• line")))
    content = BoardPictures(lambda: True).content(1, Board(card=card, log=()), t,
                                                  Picture(b"png", "k", "board.png"), new=True)
    import discord
    texts = "\n".join(i.content for i in content["view"].walk_children() if isinstance(i, discord.ui.TextDisplay))
    assert f"**{t('result.tie_field')}**" in texts and f"**{t('board.log')}**" in texts and "**AI 1**" not in texts


async def _text_panel(e2e, monkeypatch, draw_panel):
    """A Gang of Dice table of two members (no AI: nothing moves unseen) whose panel pictures
    are drawn by ``draw_panel`` in place of the renderer's, and the text panel of the member to
    act (its first picture fails: ``draw_panel`` returns nothing): (world, table id, member,
    panel message)."""
    from cogs import pictures

    monkeypatch.setattr(render.renderer("gang-of-dice"), "panel", draw_panel)
    monkeypatch.setattr(pictures, "_FAILED", set())  # the failure is logged as an error, not as a repeat
    render.CACHE.clear()
    world = await e2e(seeds=[7], pictures=True)
    alice, bob = world.member("alice"), world.member("bob")
    tid = await open_table(world, alice, "gang-of-dice", members=[bob])
    table = await world.bot.hall.table(tid)
    member = alice if table.seat_of(alice.id) in table.to_act() else bob
    with world.expect_errors(match=r"drawing the panel of table \d+ \(gang-of-dice\) failed"):
        panel_message = (await world.click(member, board_of(world, tid), f"se:b:{tid}:panel")).response
    assert not panel_message.attachments, "the text panel"
    return world, tid, member, panel_message


async def test_a_click_on_a_text_panel_is_answered_before_its_picture_is_drawn(e2e, monkeypatch):
    """A panel that carries no picture (its first drawing failed) is answered at once with its
    new text and buttons, even when the new picture takes longer than DEFER_AFTER_S (simulated
    time; Discord waits 3 s); the picture follows in a second edit."""
    from cogs import pictures
    from cogs.base import DEFER_AFTER_S
    from tests.e2e import act_on_panel

    real_panel = render.renderer("gang-of-dice").panel
    failing = {"on": True}

    def panel(*args, **kwargs):
        return None if failing["on"] else real_panel(*args, **kwargs)

    world, tid, member, panel_message = await _text_panel(e2e, monkeypatch, panel)
    failing["on"] = False
    real_finish = pictures.PanelDrawing._finish

    async def slow_finish(self):  # a picture slower than DEFER_AFTER_S (simulated time)
        await asyncio.sleep(DEFER_AFTER_S + 1)
        return await real_finish(self)

    monkeypatch.setattr(pictures.PanelDrawing, "_finish", slow_finish)
    outcomes = recorded_outcomes(world, monkeypatch, "click", "select", "submit_modal")
    assert await act_on_panel(world, member, tid, panel_message, random.Random(2))
    out = outcomes[-1]
    assert out.acknowledged and out.kind == "update", "answered in the click's own response"
    await world.settle()
    record = world.message(panel_message.id)
    answer, last = record.versions[-2], record.versions[-1]
    assert not answer.attachments and answer.components != record.versions[0].components, "the new buttons, as text"
    [att] = last.attachments
    assert pixels(world.attachment_bytes(att)) == pixels(await expected_panel(world, tid, member))


@pytest.mark.parametrize("slow", [None, "reads", "table"], ids=["answered", "deferred", "deferred-from-arrival"])
async def test_my_panel_is_deferred_one_second_after_the_click_whatever_is_slow(e2e, monkeypatch, slow):
    """"My panel" is answered in the click's own response when the panel is ready within
    DEFER_AFTER_S of the click's arrival; when the table's reads before the picture take that
    long (simulated time; the router's own read of the table included), the click is deferred
    at DEFER_AFTER_S (Discord waits 3 s) and the panel, with its picture, fills the deferred
    answer."""
    from cogs.base import DEFER_AFTER_S

    world = await e2e(seeds=[7], pictures=True)
    alice = world.member("alice")
    tid = await open_table(world, alice, "gang-of-dice", ai=1)
    if slow == "table":  # each read of the table (the router's, then the panel's) well under it
        real_table = world.bot.hall.table

        async def table(*args, **kwargs):
            await asyncio.sleep(DEFER_AFTER_S * 0.6)
            return await real_table(*args, **kwargs)

        monkeypatch.setattr(world.bot.hall, "table", table)
    if slow == "reads":  # the reads before the picture: each well under DEFER_AFTER_S, together over it
        real_recent = world.bot.records.recent_events
        real_back = world.bot.tables.back

        async def recent_events(*args, **kwargs):
            await asyncio.sleep(DEFER_AFTER_S * 0.6)
            return await real_recent(*args, **kwargs)

        async def back(*args, **kwargs):
            await asyncio.sleep(DEFER_AFTER_S * 0.6)
            return await real_back(*args, **kwargs)

        monkeypatch.setattr(world.bot.records, "recent_events", recent_events)
        monkeypatch.setattr(world.bot.tables, "back", back)
    mark = len(world.http_log)
    res = await world.click(alice, board_of(world, tid), f"se:b:{tid}:panel")
    answers = [(r.json or {}).get("type") for r in world.http_log[mark:]
               if r.path.startswith("/interactions/") and r.path.endswith("/callback")]
    if slow == "table":
        monkeypatch.setattr(world.bot.hall, "table", real_table)  # the checks below read the table
    assert res.acknowledged and answers == ([5] if slow else [4]), answers  # 5: a "thinking" defer
    panel = res.response
    assert panel.ephemeral and panel.viewer_id == alice.id
    [att] = panel.attachments
    assert pixels(world.attachment_bytes(att)) == pixels(await expected_panel(world, tid, alice))


async def test_a_text_panel_whose_picture_fails_again_is_edited_once_a_click(e2e, monkeypatch):
    """A text panel (its picture failed) whose new picture fails again: the click's answer is
    the only edit of the panel (no second edit repeating the same text)."""
    from tests.e2e import act_on_panel

    world, tid, member, panel_message = await _text_panel(e2e, monkeypatch, lambda *a, **k: None)
    before = len(world.message(panel_message.id).versions)
    assert await act_on_panel(world, member, tid, panel_message, random.Random(2))  # fails again: logged once
    await world.settle()
    record = world.message(panel_message.id)
    assert len(record.versions) == before + 1, [v.seq for v in record.versions]
    assert not record.versions[-1].attachments and record.versions[-1].components != record.versions[0].components
