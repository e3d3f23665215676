"""Adversarial end-to-end tests: hostile or confused members poking the Discord side through the
offline harness (double joins, races on the last seat and on Start, strangers on boards, stale
panels, bad numbers, restarts with buffered secret choices, timeouts, locales, nasty names).

Tests marked ``xfail(strict=True)`` document defects found by this suite (see their reasons)."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import discord
import pytest

from bot.games import GAMES
from engine.shop_battle import ShopBattle
from tests.catalog import said, says
from tests.e2e import board_of, lobby_id, open_table, take_turn
from tests.harness import ImpossibleAction
from tests.test_e2e_shop_battle import scripted_deal

NOT_SEATED = says("err.not_seated")
HOST_ONLY = says("err.host_only")
NOT_LOBBY = says("err.table_not_lobby")
NOT_RUNNING = says("err.table_not_running")


def private_text(res) -> str:
    """Every ephemeral message of an outcome (response and follow-ups)."""
    return "\n".join(m.text() for m in res.messages if m.ephemeral)


async def lobby(world, host, game):
    res = await world.slash(host, "play", game=game)
    return res.response, lobby_id(res.response)


# ---------------------------------------------------------------------------------------- lobby


async def test_lobby_double_join_leave_unseated_host_leave(e2e):
    world = await e2e()
    alice, bob, carol = world.member("alice"), world.member("bob"), world.member("carol")
    msg, tid = await lobby(world, alice, "gang-of-dice")
    await world.click(bob, msg, f"se:l:{tid}:join")
    res = await world.click(bob, msg, f"se:l:{tid}:join")
    assert res.ephemeral and says("err.already_seated") in private_text(res)
    res = await world.click(alice, msg, f"se:l:{tid}:join")
    assert says("err.already_seated") in private_text(res)
    table = await world.bot.hall.table(tid)
    assert [s.user_id for s in table.seats] == [alice.id, bob.id]
    res = await world.click(carol, msg, f"se:l:{tid}:leave")
    assert res.ephemeral and NOT_SEATED in private_text(res)
    res = await world.click(alice, msg, f"se:l:{tid}:leave")
    assert res.ephemeral and says("err.host_cannot_leave") in private_text(res)
    # bob leaves for real, then again
    await world.click(bob, msg, f"se:l:{tid}:leave")
    assert bob.mention not in msg.text()
    res = await world.click(bob, msg, f"se:l:{tid}:leave")
    assert NOT_SEATED in private_text(res)
    assert len((await world.bot.hall.table(tid)).seats) == 1


async def test_lobby_host_only_buttons_and_option_select(e2e):
    world = await e2e()
    alice, bob = world.member("alice"), world.member("bob")
    msg, tid = await lobby(world, alice, "moonshine")
    await world.click(bob, msg, f"se:l:{tid}:join")
    for op in ("start", "ai+", "cancel"):
        res = await world.click(bob, msg, f"se:l:{tid}:{op}")
        assert HOST_ONLY in private_text(res), op
    await world.click(alice, msg, f"se:l:{tid}:ai+")
    res = await world.click(bob, msg, f"se:l:{tid}:ai-")
    assert HOST_ONLY in private_text(res)
    sel = next(s for s in msg.selects if "variant=regular" in s.option_values)
    res = await world.select(bob, msg, sel.custom_id, ["variant=regular"])
    assert HOST_ONLY in private_text(res)
    table = await world.bot.hall.table(tid)
    assert table.row.status == "lobby" and len(table.seats) == 3
    assert table.row.options.get("variant") in (None, "standard")
    assert not world.threads


async def test_lobby_ai_limits(e2e):
    world = await e2e()
    alice, bob = world.member("alice"), world.member("bob")
    msg, tid = await lobby(world, alice, "three-player-moon")
    res = await world.click(alice, msg, f"se:l:{tid}:ai-")
    assert says("err.no_ai") in private_text(res)
    await world.click(alice, msg, f"se:l:{tid}:ai+")
    await world.click(alice, msg, f"se:l:{tid}:ai+")
    res = await world.click(alice, msg, f"se:l:{tid}:ai+")
    assert "full" in private_text(res)
    # a member takes the last AI's seat
    await world.click(bob, msg, f"se:l:{tid}:join")
    table = await world.bot.hall.table(tid)
    assert [(s.user_id, s.is_ai) for s in table.seats] == [(alice.id, False), (None, True), (bob.id, False)]
    carol, dave = world.member("carol"), world.member("dave")
    await world.click(carol, msg, f"se:l:{tid}:join")
    res = await world.click(dave, msg, f"se:l:{tid}:join")
    assert "full" in private_text(res)
    assert len((await world.bot.hall.table(tid)).seats) == 3


async def test_start_with_too_few_players_is_refused(e2e):
    world = await e2e()
    alice, bob = world.member("alice"), world.member("bob")
    msg, tid = await lobby(world, alice, "three-player-moon")
    await world.click(bob, msg, f"se:l:{tid}:join")
    res = await world.click(alice, msg, f"se:l:{tid}:start")
    assert says("err.players_exact", max=3) in private_text(res)
    assert says("lobby.seats_exact", n=2, max=3) in msg.text()
    assert (await world.bot.hall.table(tid)).row.status == "lobby"
    assert not world.threads
    # the lobby still works
    await world.click(alice, msg, f"se:l:{tid}:ai+")
    await world.click(alice, msg, f"se:l:{tid}:start")
    assert (await world.bot.hall.table(tid)).row.status == "running"
    assert len(world.threads) == 1


async def test_cancelled_lobby_is_closed(e2e):
    world = await e2e()
    alice, bob = world.member("alice"), world.member("bob")
    msg, tid = await lobby(world, alice, "gang-of-dice")
    await world.click(alice, msg, f"se:l:{tid}:cancel")
    assert "cancelled" in msg.text()
    assert all(b.disabled for b in msg.buttons) and not msg.selects
    with pytest.raises(ImpossibleAction):
        await world.click(bob, msg, f"se:l:{tid}:join")
    assert (await world.bot.hall.table(tid)).row.status == "abandoned"


async def test_join_and_cancel_at_the_same_instant(e2e):
    world = await e2e()
    alice, bob = world.member("alice"), world.member("bob")
    msg, tid = await lobby(world, alice, "gang-of-dice")
    cancel, join = await world.gather(world.click(alice, msg, f"se:l:{tid}:cancel"),
                                      world.click(bob, msg, f"se:l:{tid}:join"))
    assert cancel.acknowledged and join.acknowledged
    assert NOT_LOBBY in private_text(join)
    assert "cancelled" in msg.text() and all(b.disabled for b in msg.buttons)


async def test_two_members_race_for_the_last_seat(e2e):
    world = await e2e()
    alice, bob = world.member("alice"), world.member("bob")
    carol, dave = world.member("carol"), world.member("dave")
    msg, tid = await lobby(world, alice, "three-player-moon")
    await world.click(bob, msg, f"se:l:{tid}:join")
    rc, rd = await world.gather(world.click(carol, msg, f"se:l:{tid}:join"),
                                world.click(dave, msg, f"se:l:{tid}:join"))
    table = await world.bot.hall.table(tid)
    assert len(table.seats) == 3
    winners = [m for m in (carol, dave) if table.seat_of(m.id) is not None]
    assert len(winners) == 1
    loser_res = rd if winners[0] is carol else rc
    assert "full" in private_text(loser_res)
    assert winners[0].mention in msg.text()


async def test_concurrent_joins_keep_the_lobby_message_up_to_date(e2e):
    """Two members join at the same instant: both are seated, and the lobby shows both."""
    world = await e2e()
    alice, bob, carol = world.member("alice"), world.member("bob"), world.member("carol")
    msg, tid = await lobby(world, alice, "moonshine")
    await world.gather(world.click(bob, msg, f"se:l:{tid}:join"), world.click(carol, msg, f"se:l:{tid}:join"))
    table = await world.bot.hall.table(tid)
    assert {s.user_id for s in table.seats} == {alice.id, bob.id, carol.id}
    assert bob.mention in msg.text() and carol.mention in msg.text()


async def test_start_clicked_twice_at_once_creates_one_thread_and_one_board(e2e):
    world = await e2e()
    alice, bob = world.member("alice"), world.member("bob")
    msg, tid = await lobby(world, alice, "gang-of-dice")
    await world.click(bob, msg, f"se:l:{tid}:join")
    r1, r2 = await world.gather(world.click(alice, msg, f"se:l:{tid}:start"),
                                world.click(alice, msg, f"se:l:{tid}:start"))
    assert r1.acknowledged and r2.acknowledged
    assert len(world.threads) == 1
    boards = [m for m in world.thread_messages(world.threads[0]) if m.cards and f"se:b:{tid}:panel" in m.custom_ids]
    assert len(boards) == 1
    welcomes = [m for m in world.thread_messages(world.threads[0]) if "Welcome" in m.text()]
    assert len(welcomes) == 1
    assert (await world.bot.hall.table(tid)).row.status == "running"
    assert NOT_LOBBY in private_text(r2) or NOT_LOBBY in private_text(r1)


async def test_start_and_join_at_once_are_consistent(e2e):
    world = await e2e()
    alice, bob, carol = world.member("alice"), world.member("bob"), world.member("carol")
    msg, tid = await lobby(world, alice, "gang-of-dice")
    await world.click(bob, msg, f"se:l:{tid}:join")
    _, join = await world.gather(world.click(alice, msg, f"se:l:{tid}:start"),
                                 world.click(carol, msg, f"se:l:{tid}:join"))
    table = await world.bot.hall.table(tid)
    assert table.row.status == "running"
    assert len(table.state.stocks) == len(table.seats)  # the game was dealt for the seats shown
    if table.seat_of(carol.id) is None:
        assert NOT_LOBBY in private_text(join)
    # the lobby message and the seats agree
    for s in table.seats:
        assert f"<@{s.user_id}>" in msg.text()


async def test_started_lobby_links_its_thread(e2e):
    world = await e2e()
    alice = world.member("alice")
    msg, tid = await lobby(world, alice, "gang-of-dice")
    await world.click(alice, msg, f"se:l:{tid}:ai+")
    await world.click(alice, msg, f"se:l:{tid}:start")
    assert says("lobby.started") in msg.text()
    assert world.threads[0].mention in msg.text()


# ---------------------------------------------------------------------------------------- board


async def two_member_dice_table(e2e, seed=5, **kw):
    """The world, alice and bob at a running Gang of Dice table, its id and who acts first."""
    world = await e2e(seeds=[seed], **kw)
    alice, bob = world.member("alice"), world.member("bob")
    tid = await open_table(world, alice, "gang-of-dice", members=[bob])
    table = await world.bot.hall.table(tid)
    first = next(m for m in (alice, bob) if table.seat_of(m.id) in table.to_act())
    return world, alice, bob, tid, first


def ping_of(world, tid):
    """The last public ping (a message with a My panel button and no embed)."""
    return [m for m in world.thread_messages(world.threads[0]) if f"se:b:{tid}:panel" in m.custom_ids
            and not m.cards][-1]


async def test_stranger_on_board_and_ping_and_rules(e2e):
    world, alice, bob, tid, first = await two_member_dice_table(e2e)
    carol = world.member("carol")
    board = board_of(world, tid)
    for msg in (board, ping_of(world, tid)):
        res = await world.click(carol, msg, f"se:b:{tid}:panel")
        assert res.ephemeral and res.response.viewer_id == carol.id and NOT_SEATED in res.response.text()
    # anyone may read the rules, privately
    res = await world.click(carol, board, f"se:b:{tid}:rules")
    assert res.ephemeral and res.response.cards and says("game.gang-of-dice.name") in res.response.text()
    assert len(await world.bot.db.action_log(tid)) == 0


async def test_abandon_refused_for_a_player_allowed_for_an_admin(e2e):
    world, alice, bob, tid, first = await two_member_dice_table(e2e)
    root = world.member("root", admin=True)
    board = board_of(world, tid)
    old_panel = (await world.click(first, board, f"se:b:{tid}:panel")).response
    res = await world.click(bob, board, f"se:b:{tid}:abandon")  # seated, not host, not admin
    assert res.ephemeral and says("err.host_or_admin") in private_text(res)
    assert (await world.bot.hall.table(tid)).row.status == "running"
    res = await world.click(root, board, f"se:b:{tid}:abandon")  # admin, not seated
    assert res.ephemeral and says("table.abandoned_by_you") in private_text(res)
    table = await world.bot.hall.table(tid)
    assert table.row.status == "abandoned"
    assert any(says("table.abandoned") in m.text() for m in world.thread_messages(world.threads[0]))
    # the board's buttons are disabled, except Rules
    assert [b.custom_id for b in board.buttons if not b.disabled] == [f"se:b:{tid}:rules"]
    # old panel buttons and the old ping are refused politely, nothing is recorded
    cid = next(b.custom_id for b in old_panel.buttons if b.custom_id.startswith(f"se:a:{tid}:") and not b.disabled)
    res = await world.click(first, old_panel, cid)
    assert NOT_RUNNING in private_text(res)
    res = await world.click(first, ping_of(world, tid), f"se:b:{tid}:panel")
    assert NOT_RUNNING in private_text(res)
    st = await world.slash(alice, "stats")
    assert says("stats.none") in st.response.text()


async def test_abandon_by_host_and_admin_at_once(e2e):
    world, alice, bob, tid, first = await two_member_dice_table(e2e)
    root = world.member("root", admin=True)
    board = board_of(world, tid)
    r1, r2 = await world.gather(world.click(alice, board, f"se:b:{tid}:abandon"),
                                world.click(root, board, f"se:b:{tid}:abandon"))
    texts_ = private_text(r1) + "\n" + private_text(r2)
    assert texts_.count(says("table.abandoned_by_you")) == 1
    assert NOT_RUNNING in texts_
    notes = [m for m in world.thread_messages(world.threads[0]) if says("table.abandoned") in m.text()]
    assert len(notes) == 1


async def test_old_panel_and_ping_after_the_game_finished(e2e):
    world = await e2e(seeds=[7])
    alice, bob = world.member("alice"), world.member("bob")
    tid = await open_table(world, alice, "gang-of-dice", members=[bob])
    svc = world.bot
    board = board_of(world, tid)
    table = await svc.hall.table(tid)
    first = next(m for m in (alice, bob) if table.seat_of(m.id) in table.to_act())
    old_panel = (await world.click(first, board, f"se:b:{tid}:panel")).response
    old_ping = ping_of(world, tid)
    # the members leave their seats to the AI until the end (timeouts)
    for _ in range(400):
        table = await svc.hall.table(tid)
        if table.row.status != "running":
            break
        await world.advance(601)
    assert (await svc.hall.table(tid)).row.status == "finished"
    cid = next(b.custom_id for b in old_panel.buttons if b.custom_id.startswith(f"se:a:{tid}:") and not b.disabled)
    res = await world.click(first, old_panel, cid)
    assert NOT_RUNNING in private_text(res)
    res = await world.click(first, old_ping, f"se:b:{tid}:panel")
    assert NOT_RUNNING in private_text(res)
    res = await world.click(world.member("carol"), old_ping, f"se:b:{tid}:panel")
    assert NOT_SEATED in private_text(res)
    with pytest.raises(ImpossibleAction):  # the board's My panel is disabled
        await world.click(first, board, f"se:b:{tid}:panel")


# ---------------------------------------------------------------------------------------- number modal


async def commit_modal(world, member, tid):
    board = board_of(world, tid)
    panel = (await world.click(member, board, f"se:b:{tid}:panel")).response
    prompt = next(b.custom_id for b in panel.buttons if b.custom_id.startswith(f"se:p:{tid}:"))
    shown = await world.click(member, panel, prompt)
    assert shown.kind == "modal"
    return panel, prompt, shown


@pytest.mark.parametrize("raw", ["abc", "0", "999999", "-1", "²", "３", "1.5", "1e1", "0x2", " ", "+1", "٣"])
async def test_number_modal_bad_input_is_refused(e2e, raw):
    world, alice, bob, tid, first = await two_member_dice_table(e2e)
    panel, prompt, shown = await commit_modal(world, first, tid)
    res = await world.submit_modal(first, shown, {"number": raw})
    assert res.acknowledged and says("err.bad_number", min=1) in private_text(res)
    assert await world.bot.db.action_log(tid) == []


async def test_number_modal_good_input_with_spaces_and_leading_zero(e2e):
    world, alice, bob, tid, first = await two_member_dice_table(e2e)
    panel, prompt, shown = await commit_modal(world, first, tid)
    res = await world.submit_modal(first, shown, {"number": " 02 "})
    log = await world.bot.db.action_log(tid)
    assert len(log) == 1 and list(log[0][1].values()) == ["c2"]
    assert res.acknowledged


async def test_number_modal_submitted_after_the_game_moved_on(e2e):
    world, alice, bob, tid, first = await two_member_dice_table(e2e)
    panel, prompt, shown = await commit_modal(world, first, tid)
    # meanwhile the same member commits from a second panel
    board = board_of(world, tid)
    p2 = (await world.click(first, board, f"se:b:{tid}:panel")).response
    quick = next(b.custom_id for b in p2.buttons if b.custom_id.endswith(":c1"))
    await world.click(first, p2, quick)
    res = await world.submit_modal(first, shown, {"number": "2"})
    assert says("err.stale") in private_text(res)
    assert len(await world.bot.db.action_log(tid)) == 1


async def test_number_modal_opened_before_a_restart(e2e):
    world = await e2e(seeds=[5])
    alice, bob = world.member("alice"), world.member("bob")
    tid = await open_table(world, alice, "gang-of-dice", members=[bob])
    table = await world.bot.hall.table(tid)
    first = next(m for m in (alice, bob) if table.seat_of(m.id) in table.to_act())
    panel, prompt, shown = await commit_modal(world, first, tid)
    await e2e.restart()
    res = await world.submit_modal(first, shown, {"number": "2"})
    assert res.acknowledged
    log = await world.bot.db.action_log(tid)
    assert len(log) == 1 and list(log[0][1].values()) == ["c2"]


async def test_number_modal_submitted_after_ten_minutes(e2e):
    world, alice, bob, tid, first = await two_member_dice_table(e2e, turn_timeout_seconds=3600)
    panel, prompt, shown = await commit_modal(world, first, tid)
    await world.advance(700)  # a slow player, still well within the turn timeout
    res = await world.submit_modal(first, shown, {"number": "2"})
    assert res.acknowledged
    assert len(await world.bot.db.action_log(tid)) == 1


# ---------------------------------------------------------------------------------------- simultaneous


async def moonshine_pair(e2e, **kw):
    """The world, alice and bob at a Moonshine table (seed 1) driven to the first secret action
    phase, where both may take a Moon token or draw, and the table id."""
    world = await e2e(seeds=[1], **kw)
    alice, bob = world.member("alice"), world.member("bob")
    tid = await open_table(world, alice, "moonshine", members=[bob])
    svc = world.bot
    rng = random.Random(1)
    for _ in range(50):
        table = await svc.hall.table(tid)
        if table.state.phase == "action" and not table.pending:
            break
        for m in (alice, bob):
            await take_turn(world, m, tid, rng)
    table = await svc.hall.table(tid)
    assert table.state.phase == "action" and table.to_act() == frozenset({0, 1})
    for m in (alice, bob):
        assert {"moon", "draw"} <= {table.game.encode(a) for a in table.game.legal_actions(table.state, table.seat_of(m.id))}
    return world, alice, bob, tid


def without_waiting(text: str) -> str:
    return "\n".join(line for line in text.splitlines() if not line.startswith(("Waiting for", "Has chosen")))


async def test_secret_choice_can_change_and_stays_secret(e2e):
    world, alice, bob, tid = await moonshine_pair(e2e)
    svc = world.bot
    table = await svc.hall.table(tid)
    v = table.version
    board = board_of(world, tid)
    before = board.text()
    panel = (await world.click(alice, board, f"se:b:{tid}:panel")).response
    await world.click(alice, panel, f"se:a:{tid}:{v}:moon")
    assert says("panel.chosen", choice=says("ms.act.moon")) in panel.text()
    # alice changes her mind from the same (edited) panel
    await world.click(alice, panel, f"se:a:{tid}:{v}:draw")
    assert says("panel.chosen", choice=says("ms.act.draw")) in panel.text()
    table = await svc.hall.table(tid)
    assert table.pending == {table.seat_of(alice.id): "draw"} and table.version == v
    # the board shows that alice has chosen, never what
    assert says("board.waiting_for", names="bob", chosen="alice") in board.text()
    assert without_waiting(board.text()) == without_waiting(before)
    public = world.all_public_text()
    assert says("ms.act.moon") not in public and says("ms.act.draw") not in public
    # bob's panel shows nothing of alice's choice
    bpanel = (await world.click(bob, board, f"se:b:{tid}:panel")).response
    assert says("panel.chosen") not in bpanel.text()
    await world.click(bob, bpanel, f"se:a:{tid}:{v}:moon")
    log = await svc.db.action_log(tid)
    step = next(codes for before_v, codes, src in log if before_v == v)
    assert step == {table.seat_of(alice.id): "draw", table.seat_of(bob.id): "moon"}


async def test_same_member_two_choices_at_once_then_other_member(e2e):
    world, alice, bob, tid = await moonshine_pair(e2e)
    svc = world.bot
    v = (await svc.hall.table(tid)).version
    board = board_of(world, tid)
    pa = (await world.click(alice, board, f"se:b:{tid}:panel")).response
    pb = (await world.click(bob, board, f"se:b:{tid}:panel")).response
    n_before = len(await svc.db.action_log(tid))
    await world.gather(world.click(alice, pa, f"se:a:{tid}:{v}:moon"),
                       world.click(bob, pb, f"se:a:{tid}:{v}:draw"),
                       world.click(alice, pa, f"se:a:{tid}:{v}:draw"))
    log = await svc.db.action_log(tid)
    steps = [codes for before_v, codes, src in log if before_v == v]
    assert len(steps) == 1 and len(log) >= n_before + 1
    table = await svc.hall.table(tid)
    assert steps[0][table.seat_of(bob.id)] == "draw"
    assert steps[0][table.seat_of(alice.id)] in ("moon", "draw")


async def test_buffered_choice_survives_a_restart(e2e):
    world, alice, bob, tid = await moonshine_pair(e2e)
    svc = world.bot
    table = await svc.hall.table(tid)
    v = table.version
    sa, sb = table.seat_of(alice.id), table.seat_of(bob.id)
    board = board_of(world, tid)
    pa = (await world.click(alice, board, f"se:b:{tid}:panel")).response
    pb = (await world.click(bob, board, f"se:b:{tid}:panel")).response
    await world.click(alice, pa, f"se:a:{tid}:{v}:moon")
    await e2e.restart()
    svc = world.bot
    table = await svc.hall.table(tid)
    assert table.pending == {sa: "moon"} and table.version == v
    # alice's new panel remembers her choice; bob's old panel (drawn before the restart) works
    pa2 = (await world.click(alice, board, f"se:b:{tid}:panel")).response
    assert says("panel.chosen", choice=says("ms.act.moon")) in pa2.text()
    await world.click(bob, pb, f"se:a:{tid}:{v}:draw")
    log = await svc.db.action_log(tid)
    step = next(codes for before_v, codes, src in log if before_v == v)
    assert step == {sa: "moon", sb: "draw"}


async def test_quiet_member_in_a_secret_step_is_reminded_then_replaced(e2e):
    world, alice, bob, tid = await moonshine_pair(e2e, turn_timeout_seconds=200)
    svc = world.bot
    table = await svc.hall.table(tid)
    v = table.version
    sa, sb = table.seat_of(alice.id), table.seat_of(bob.id)
    board = board_of(world, tid)
    pa = (await world.click(alice, board, f"se:b:{tid}:panel")).response
    await world.click(alice, pa, f"se:a:{tid}:{v}:draw")
    thread = world.threads[0]
    n = len(world.thread_messages(thread))
    await world.advance(101)
    new = world.thread_messages(thread)[n:]
    reminders = [m for m in new if "time is running out" in m.text()]
    assert len(reminders) == 1
    assert bob.mention in reminders[0].text() and alice.mention not in reminders[0].text()
    await world.advance(100)
    new = world.thread_messages(thread)[n:]
    timed = [m for m in new if "the AI played for" in m.text()]
    assert len(timed) == 1 and "bob" in timed[0].text() and "alice" not in timed[0].text()
    log = await svc.db.action_log(tid)
    step = next((codes, src) for before_v, codes, src in log if before_v == v)
    assert step[0][sa] == "draw" and sb in step[0]


async def test_select_from_an_older_panel_version_is_stale(e2e):
    world = await e2e(seeds=[1])
    alice, bob = world.member("alice"), world.member("bob")
    tid = await open_table(world, alice, "moonshine", members=[bob])
    svc = world.bot
    board = board_of(world, tid)
    pa = (await world.click(alice, board, f"se:b:{tid}:panel")).response
    old = (await world.click(alice, board, f"se:b:{tid}:panel")).response  # a second copy, kept
    pb = (await world.click(bob, board, f"se:b:{tid}:panel")).response
    sel_a, sel_b = pa.selects[0], pb.selects[0]
    assert sel_a.custom_id == f"se:s:{tid}:0:0"
    await world.select(alice, pa, sel_a.custom_id, [sel_a.option_values[0]])
    await world.select(bob, pb, sel_b.custom_id, [sel_b.option_values[0]])
    n = len(await svc.db.action_log(tid))
    assert (await svc.hall.table(tid)).version > 0
    res = await world.select(alice, old, sel_a.custom_id, [sel_a.option_values[-1]])
    assert says("err.stale_refreshed") in private_text(res)
    assert len(await svc.db.action_log(tid)) == n


# ---------------------------------------------------------------------------------------- locales


async def test_french_guild_english_member(e2e):
    world = await e2e(guild_locale="fr", seeds=[5])
    amelie = world.member("amelie", locale="fr")
    ed = world.member("ed", locale="en-US")
    res = await world.slash(ed, "play", game="gang-of-dice")  # an English member opens the table
    msg = res.response
    tid = lobby_id(msg)
    assert "Rejoindre" in [b.label for b in msg.buttons] and "table n°" in msg.text()
    res = await world.click(ed, msg, f"se:l:{tid}:join")
    assert says("err.already_seated") in private_text(res)  # ephemeral: his language
    res = await world.click(amelie, msg, f"se:l:{tid}:leave")
    assert says("err.not_seated", "fr") in private_text(res)
    await world.click(amelie, msg, f"se:l:{tid}:join")
    await world.click(ed, msg, f"se:l:{tid}:start")
    assert says("lobby.started", "fr") in msg.text()
    board = board_of(world, tid)
    assert says("board.my_panel", "fr") in board.text() and says("god.board.round", "fr", round=1, rounds=12) in board.text()
    thread_text = "\n".join(m.text() for m in world.thread_messages(world.threads[0]))
    assert "Bienvenue" in thread_text
    panel = (await world.click(ed, board, f"se:b:{tid}:panel")).response
    assert says("god.panel.title") in panel.text()
    panel = (await world.click(amelie, board, f"se:b:{tid}:panel")).response
    assert says("god.panel.title", "fr") in panel.text()
    rules = await world.click(ed, board, f"se:b:{tid}:rules")
    assert rules.ephemeral and says("game.gang-of-dice.name") in rules.response.text()
    # reminders, timeouts and the abandon notice are public: French
    await world.advance(601)
    thread_text = "\n".join(m.text() for m in world.thread_messages(world.threads[0]))
    assert said(thread_text, "turn.reminder", "fr") and said(thread_text, "turn.timed_out", "fr")
    res = await world.click(ed, board, f"se:b:{tid}:abandon")
    assert says("table.abandoned_by_you") in private_text(res)
    thread_text = "\n".join(m.text() for m in world.thread_messages(world.threads[0]))
    assert says("table.abandoned", "fr") in thread_text
    assert not said(world.all_public_text(), "turn.reminder")


async def test_ai_names_follow_the_server_language(e2e):
    world = await e2e(guild_locale="fr")
    ed = world.member("ed", locale="en-US")
    res = await world.slash(ed, "play", game="gang-of-dice")
    msg, tid = res.response, lobby_id(res.response)
    await world.click(ed, msg, f"se:l:{tid}:ai+")
    assert "IA 1" in msg.text()


async def test_english_guild_french_member_gets_french_private_texts(e2e):
    world = await e2e(seeds=[5])
    alice = world.member("alice")
    zoe = world.member("zoe", locale="fr")
    tid = await open_table(world, alice, "gang-of-dice", members=[zoe])
    board = board_of(world, tid)
    assert says("board.my_panel") in board.text()
    res = await world.click(zoe, board, f"se:b:{tid}:abandon")
    assert said(private_text(res), "err.host_or_admin", "fr")
    panel = (await world.click(zoe, board, f"se:b:{tid}:panel")).response
    assert says("god.panel.title", "fr") in panel.text()
    res = await world.slash(zoe, "stats")
    assert "Statistiques" in res.response.text() or "Aucune" in res.response.text()
    res = await world.slash(zoe, "classement", game="gang-of-dice")  # localised command name
    assert res.response.public and res.response.cards


# ---------------------------------------------------------------------------------------- names


EVIL_NICKS = [
    "@everyone **bold** __u__ `code`",
    "@here <@&1> ||spoil|| ~~x~~ [l](x)",
    "# Title > quote \\ | " + "x" * 20,
]


async def test_hostile_display_names_neither_break_embeds_nor_ping(e2e):
    world = await e2e(seeds=[7])
    alice = world.member("alice")
    evil = [world.member(f"evil{i}", nick=nick) for i, nick in enumerate(EVIL_NICKS)]
    tid = await open_table(world, alice, "gang-of-dice", members=evil)
    svc = world.bot
    board = board_of(world, tid)
    assert "@\u200beveryone \\*\\*bold\\*\\*" in board.text()  # shown, escaped and defused
    # play to the end by timeouts: the names go through the board, the log, pings and the results
    for _ in range(400):
        if (await svc.hall.table(tid)).row.status != "running":
            break
        await world.advance(601)
    assert (await svc.hall.table(tid)).row.status == "finished"
    public = world.all_public_text()
    assert "@everyone" not in public and "@here" not in public
    assert "**bold**" not in public and "||spoil||" not in public
    assert said(public, "result.title")
    st = await world.slash(alice, "stats", options={"member": evil[0]})
    assert st.ephemeral and "@everyone" not in st.response.text() and "1 played" in st.response.text()
    lb = await world.slash(alice, "leaderboard", game="gang-of-dice")
    assert "@everyone" not in lb.response.text()


# ---------------------------------------------------------------------------------------- info


async def test_info_commands_on_an_empty_server(e2e):
    world = await e2e()
    alice, bob = world.member("alice"), world.member("bob")
    for game in GAMES:
        lb = await world.slash(alice, "leaderboard", game=game)
        assert says("lb.empty", min=1) in lb.response.text()
    st = await world.slash(alice, "stats")
    assert st.ephemeral and says("stats.none") in st.response.text()
    st = await world.slash(alice, "stats", options={"member": bob})
    assert st.ephemeral and says("stats.title", name="bob") in st.response.text()


@pytest.mark.parametrize("locale", ["en-US", "fr"])
async def test_rules_of_every_game_fit_in_an_embed(e2e, locale):
    world = await e2e()
    alice = world.member("alice", locale=locale)
    for game in GAMES:
        res = await world.slash(alice, "rules", game=game)
        assert res.ephemeral and res.response.cards, game
        assert res.response.cards[0]["description"]


# ---------------------------------------------------------------------------------------- moderators, threads, restarts


async def moderator_deletes(world, mod, msg) -> None:
    """A moderator deletes a bot message."""
    await world.delete_message(mod, msg)


async def test_moderator_deletes_the_board_mid_game(e2e):
    world, alice, bob, tid, first = await two_member_dice_table(e2e)
    root = world.member("root", admin=True)
    board = board_of(world, tid)
    await moderator_deletes(world, root, board)
    assert board.deleted
    # the next step posts a new board; the game goes on
    ping = ping_of(world, tid)
    panel = (await world.click(first, ping, f"se:b:{tid}:panel")).response
    cid = next(b.custom_id for b in panel.buttons if b.custom_id.endswith(":c1"))
    await world.click(first, panel, cid)
    new_board = board_of(world, tid)
    assert new_board.id != board.id and not new_board.deleted
    assert (await world.bot.hall.table(tid)).row.board_message_id == new_board.id


async def test_moderator_deletes_the_lobby_before_start(e2e):
    world = await e2e(seeds=[5])
    alice, bob = world.member("alice"), world.member("bob")
    root = world.member("root", admin=True)
    res = await world.slash(alice, "play", game="gang-of-dice")
    msg, tid = res.response, lobby_id(res.response)
    await world.click(bob, msg, f"se:l:{tid}:join")
    # alice presses Start while a moderator deletes the lobby message (same instant)
    async def start_while_deleted():
        res = await world.click(alice, msg, f"se:l:{tid}:start")  # dispatched, not yet handled
        await world.delete_message(root, msg)
        return res

    res, = await world.gather(start_while_deleted())
    assert msg.deleted and res.acknowledged
    assert (await world.bot.hall.table(tid)).row.status == "running"
    board = board_of(world, tid)  # no thread without its message: played in the channel
    assert board.public and board.channel_id == world.channel.id
    # the game did start: the host must not be told that something went wrong
    assert says("err.internal") not in private_text(res)
    world.assert_no_errors()


async def test_play_inside_a_table_thread(e2e):
    world = await e2e(seeds=[5])
    alice = world.member("alice")
    first = await open_table(world, alice, "gang-of-dice", ai=1)
    thread = world.threads[0]
    res = await world.slash(alice, "play", channel=thread, game="moonshine")
    msg, tid = res.response, lobby_id(res.response)
    assert msg.channel_id == thread.id
    await world.click(alice, msg, f"se:l:{tid}:ai+")
    await world.click(alice, msg, f"se:l:{tid}:start")
    table = await world.bot.hall.table(tid)
    assert table.row.status == "running"
    board = board_of(world, tid)
    assert board.channel_id == thread.id and board.public
    assert board_of(world, first).id != board.id


async def test_lobby_buttons_work_after_a_restart(e2e):
    world = await e2e(seeds=[5])
    alice, bob = world.member("alice"), world.member("bob")
    msg, tid = await lobby(world, alice, "moonshine")
    await e2e.restart()
    await world.click(bob, msg, f"se:l:{tid}:join")
    sel = next(s for s in msg.selects if "variant=regular" in s.option_values)
    await world.select(alice, msg, sel.custom_id, ["variant=regular"])
    await world.click(alice, msg, f"se:l:{tid}:start")
    table = await world.bot.hall.table(tid)
    assert table.row.status == "running" and table.row.options.get("variant") == "regular"
    assert len(world.threads) == 1


async def test_timeout_still_fires_after_a_restart(e2e):
    world = await e2e(seeds=[3], turn_timeout_seconds=120)
    alice, bob = world.member("alice"), world.member("bob")
    tid = await open_table(world, alice, "gang-of-dice", members=[bob])
    await world.advance(30)
    await e2e.restart()
    await world.advance(40)  # 70 s: past the reminder
    thread = world.thread_messages(world.threads[0])
    assert sum(said(m.text(), "turn.reminder") for m in thread) == 1
    await world.advance(60)  # 130 s: past the timeout
    log = await world.bot.db.action_log(tid)
    assert log and log[0][2] == "timeout"


async def test_deck_removed_while_a_lobby_offers_it(e2e):
    example = example_deck()
    world = await e2e(seeds=[3])
    root = world.member("root", admin=True)
    alice = world.member("alice")
    await world.slash(root, "deck upload", file=world.file("deck.json", example))
    (deck_id, name), = await world.bot.decks.of(world.guild_id, "shop-battle")
    msg, tid = await lobby(world, alice, "shop-battle")
    await world.click(alice, msg, f"se:l:{tid}:ai+")
    sel = next(s for s in msg.selects if "deck=default" in s.option_values)
    await world.select(alice, msg, sel.custom_id, [f"deck={deck_id}"])
    await world.slash(root, "deck remove", name=name)
    # Start with a deck that no longer exists: refused, the lobby stays open
    res = await world.click(alice, msg, f"se:l:{tid}:start")
    assert says("err.no_deck") in private_text(res)
    assert (await world.bot.hall.table(tid)).row.status == "lobby" and not world.threads
    # the stale select still offers the removed deck: picking it again is refused
    sel = next(s for s in msg.selects if "deck=default" in s.option_values)
    if f"deck={deck_id}" in sel.option_values:
        res = await world.select(alice, msg, sel.custom_id, [f"deck={deck_id}"])
        assert says("err.bad_option") in private_text(res)
    await world.select(alice, msg, sel.custom_id, ["deck=default"])
    await world.click(alice, msg, f"se:l:{tid}:start")
    assert (await world.bot.hall.table(tid)).row.status == "running"


async def test_abandon_and_action_at_the_same_instant(e2e):
    world, alice, bob, tid, first = await two_member_dice_table(e2e)
    board = board_of(world, tid)
    panel = (await world.click(first, board, f"se:b:{tid}:panel")).response
    cid = next(b.custom_id for b in panel.buttons if b.custom_id.endswith(":c1"))
    r1, r2 = await world.gather(world.click(alice, board, f"se:b:{tid}:abandon"), world.click(first, panel, cid))
    assert r1.acknowledged and r2.acknowledged
    table = await world.bot.hall.table(tid)
    assert table.row.status == "abandoned"
    assert not said(world.all_public_text(), "result.title")
    assert (await world.slash(bob, "stats")).response.text().count("played") == 0


async def test_double_click_on_my_panel(e2e):
    world, alice, bob, tid, first = await two_member_dice_table(e2e)
    board = board_of(world, tid)
    r1, r2 = await world.gather(world.click(first, board, f"se:b:{tid}:panel"),
                                world.click(first, board, f"se:b:{tid}:panel"))
    assert r1.ephemeral and r2.ephemeral
    assert r1.response.viewer_id == first.id and r2.response.viewer_id == first.id


async def test_add_ai_and_join_race_for_the_last_seat(e2e):
    world = await e2e()
    alice, bob, carol = world.member("alice"), world.member("bob"), world.member("carol")
    msg, tid = await lobby(world, alice, "three-player-moon")
    await world.click(bob, msg, f"se:l:{tid}:join")
    await world.gather(world.click(alice, msg, f"se:l:{tid}:ai+"), world.click(carol, msg, f"se:l:{tid}:join"))
    table = await world.bot.hall.table(tid)
    assert len(table.seats) == 3 and table.seat_of(carol.id) is not None  # members before AI players
    assert carol.mention in msg.text()


async def test_option_change_and_start_at_once_agree(e2e):
    world = await e2e(seeds=[2])
    alice, bob = world.member("alice"), world.member("bob")
    msg, tid = await lobby(world, alice, "moonshine")
    await world.click(bob, msg, f"se:l:{tid}:join")
    sel = next(s for s in msg.selects if "variant=regular" in s.option_values)
    r_sel, r_start = await world.gather(world.select(alice, msg, sel.custom_id, ["variant=regular"]),
                                        world.click(alice, msg, f"se:l:{tid}:start"))
    table = await world.bot.hall.table(tid)
    assert table.row.status == "running"
    assert table.state.variant == table.row.options.get("variant", "standard")
    if table.state.variant == "standard":
        assert NOT_LOBBY in private_text(r_sel)


async def test_five_hostile_long_names_at_a_regular_moonshine_table(e2e):
    nicks = ["@everyone " + "*_`~|>#[]()\\\\" * 2, "ʕ•ᴥ•ʔ" * 6, "<@&123> <#456> https://x.y", "W" * 32, "﷽" * 10]
    world = await e2e(seeds=[4])
    members = [world.member(f"m{i}", nick=n) for i, n in enumerate(nicks)]
    tid = await open_table(world, members[0], "moonshine", members=members[1:], options={"variant": "regular"})
    svc = world.bot
    board = board_of(world, tid)
    for _ in range(6):  # a few steps, each with every panel opened
        for m in members:
            res = await world.click(m, board, f"se:b:{tid}:panel")
            assert res.ephemeral and res.response.cards
        await world.advance(601)
        board = board_of(world, tid)
    assert (await svc.hall.table(tid)).version >= 3
    assert "@everyone" not in world.all_public_text()


# ---------------------------------------------------------------------------------------- decks


def example_deck(name: str | None = None) -> str:
    data = json.loads((Path(__file__).parents[1] / "docs" / "decks" / "example-deck.json").read_text())
    if name is not None:
        data["name"] = name
    return json.dumps(data)


async def test_deck_names_ignore_case_for_replace_and_remove(e2e):
    # (found as a defect: two decks differing only by case, and /deck remove taking the wrong one)
    world = await e2e()
    root = world.member("root", admin=True)
    await world.slash(root, "deck upload", file=world.file("a.json", example_deck("Rue de la Paix")))
    await world.slash(root, "deck upload", file=world.file("b.json", example_deck("RUE DE LA PAIX")))
    names = [n for _, n in await world.bot.decks.of(world.guild_id, "shop-battle")]
    assert names == ["RUE DE LA PAIX"]  # the same name, whatever the case: replaced
    await world.slash(root, "deck remove", name="rue de la paix")
    assert await world.bot.decks.of(world.guild_id, "shop-battle") == []


async def test_a_deck_replaced_while_a_lobby_offers_it_still_starts(e2e):
    world = await e2e(seeds=[3])
    root, alice = world.member("root", admin=True), world.member("alice")
    await world.slash(root, "deck upload", file=world.file("deck.json", example_deck("Rue de la Paix")))
    ((deck_id, _),) = await world.bot.decks.of(world.guild_id, "shop-battle")
    msg, tid = await lobby(world, alice, "shop-battle")
    await world.click(alice, msg, f"se:l:{tid}:ai+")
    sel = next(s for s in msg.selects if "deck=default" in s.option_values)
    await world.select(alice, msg, sel.custom_id, [f"deck={deck_id}"])
    await world.slash(root, "deck upload", file=world.file("deck.json", example_deck("RUE DE LA PAIX")))
    assert await world.bot.decks.of(world.guild_id, "shop-battle") == [(deck_id, "RUE DE LA PAIX")]  # the same id
    res = await world.click(alice, msg, f"se:l:{tid}:start")
    assert says("err.no_deck") not in private_text(res)
    assert (await world.bot.hall.table(tid)).row.status == "running"


async def test_deck_list_is_refused_to_a_member_without_manage_server(e2e):
    world = await e2e()
    root, bob = world.member("root", admin=True), world.member("bob")
    await world.slash(root, "deck upload", file=world.file("deck.json", example_deck("Secret Finals Deck")))
    world.allow_command("deck", bob)  # a server may grant the command; the bot still checks
    listing = private_text(await world.slash(bob, "deck list"))
    assert says("err.forbidden") in listing and "Secret Finals Deck" not in listing
    assert "Secret Finals Deck" in private_text(await world.slash(root, "deck list"))


async def test_deck_limit_and_a_full_deck_select(e2e):
    world = await e2e(seeds=[3])
    root = world.member("root", admin=True)
    alice = world.member("alice")
    for i in range(24):
        res = await world.slash(root, "deck upload", file=world.file("d.json", example_deck(f"{'Long deck name ' * 3}{i:02d}")))
        assert said(res.response.text(), "deck.stored"), res.response.text()
    res = await world.slash(root, "deck upload", file=world.file("d.json", example_deck("One too many")))
    assert says("err.too_many_decks", max=24) in private_text(res)
    # replacing an existing deck is still allowed at the limit
    res = await world.slash(root, "deck upload", file=world.file("d.json", example_deck(f"{'Long deck name ' * 3}00")))
    assert said(res.response.text(), "deck.stored")
    listing = await world.slash(root, "deck list")
    assert listing.ephemeral and listing.response.text().count("\n• ") == 24
    msg, tid = await lobby(world, alice, "shop-battle")
    sel = next(s for s in msg.selects if "deck=default" in s.option_values)
    assert len(sel.option_values) == 25
    await world.select(alice, msg, sel.custom_id, [sel.option_values[-1]])
    await world.click(alice, msg, f"se:l:{tid}:ai+")
    await world.click(alice, msg, f"se:l:{tid}:start")
    assert (await world.bot.hall.table(tid)).row.status == "running"


async def test_hostile_deck_remove_name_is_escaped(e2e):
    world = await e2e()
    root = world.member("root", admin=True)
    res = await world.slash(root, "deck remove", name="@everyone **x**")
    assert res.ephemeral and says("err.no_deck") in private_text(res)


# ---------------------------------------------------------------------------------------- permissions


async def test_manage_server_member_may_cancel_and_abandon_others_tables(e2e):
    world = await e2e(seeds=[5])
    alice, bob = world.member("alice"), world.member("bob")
    mod = world.member("mod", permissions=discord.Permissions(manage_guild=True))
    janitor = world.member("janitor", permissions=discord.Permissions(manage_messages=True))
    msg, tid = await lobby(world, alice, "gang-of-dice")
    res = await world.click(janitor, msg, f"se:l:{tid}:cancel")
    assert HOST_ONLY in private_text(res)
    await world.click(mod, msg, f"se:l:{tid}:cancel")
    assert (await world.bot.hall.table(tid)).row.status == "abandoned"
    tid2 = await open_table(world, alice, "gang-of-dice", members=[bob])
    board = board_of(world, tid2)
    res = await world.click(janitor, board, f"se:b:{tid2}:abandon")
    assert says("err.host_or_admin") in private_text(res)
    res = await world.click(mod, board, f"se:b:{tid2}:abandon")
    assert says("table.abandoned_by_you") in private_text(res)
    assert (await world.bot.hall.table(tid2)).row.status == "abandoned"


# ---------------------------------------------------------------------------------------- flashes


async def test_hyper_u_peek_disappears_even_across_a_restart(e2e):
    """The peek's deletion is a persisted timer (cogs.panels.delete_later): the restarted bot
    deletes it (an in-memory ``msg.delete(delay=...)`` was lost with the process)."""
    # the scripted deal: alice's first card is HYPER U, so her first action is the peek
    world = await e2e(deal={"shop-battle": scripted_deal(ShopBattle.rules_version)})
    alice = world.member("alice")
    tid = await open_table(world, alice, "shop-battle", ai=2, options={"round_cap": "10"})

    def flashes():
        return [m for m in world.ephemeral_for(alice, include_deleted=True) if "disappears in" in m.text()]

    assert not flashes()
    await take_turn(world, alice, tid, random.Random(0), code="t.1")
    assert len(flashes()) == 1 and not flashes()[0].deleted
    await e2e.restart()
    await world.advance(61)
    assert flashes()[0].deleted


async def test_members_are_pinged_for_a_new_step_with_the_same_seats(e2e):
    world, alice, bob, tid = await moonshine_pair(e2e)
    svc = world.bot
    v = (await svc.hall.table(tid)).version
    board = board_of(world, tid)
    pa = (await world.click(alice, board, f"se:b:{tid}:panel")).response
    pb = (await world.click(bob, board, f"se:b:{tid}:panel")).response
    thread = world.threads[0]
    n = len(world.thread_messages(thread))
    await world.click(alice, pa, f"se:a:{tid}:{v}:draw")
    await world.click(bob, pb, f"se:a:{tid}:{v}:draw")
    table = await svc.hall.table(tid)
    assert table.version > v and set(table.waiting_for()) == {table.seat_of(alice.id), table.seat_of(bob.id)}
    assert says("panel.buffered") in pa.text()  # alice's panel cannot know
    new = world.thread_messages(thread)[n:]
    assert any(alice.mention in m.text() and bob.mention in m.text() for m in new)


async def test_lobby_burst_of_joins_leaves_and_ai(e2e):
    """Seven lobby clicks at the same instant: the seats and the lobby message agree."""
    world = await e2e()
    alice = world.member("alice")
    ms = [world.member(f"m{k}") for k in range(4)]
    msg, tid = await lobby(world, alice, "moonshine")
    results = await world.gather(
        world.click(alice, msg, f"se:l:{tid}:ai+"), *[world.click(m, msg, f"se:l:{tid}:join") for m in ms[:3]],
        world.click(ms[1], msg, f"se:l:{tid}:leave"), world.click(alice, msg, f"se:l:{tid}:ai+"),
        world.click(ms[3], msg, f"se:l:{tid}:join"))
    assert all(r.acknowledged for r in results)
    table = await world.bot.hall.table(tid)
    shown = msg.cards[0]["fields"][0]["value"]
    assert shown.count("\n") == len(table.seats) - 1
    for s in table.seats:
        assert (s.name if s.is_ai else f"<@{s.user_id}>") in shown
    assert all(table.seat_of(m.id) is not None for m in (ms[0], ms[2], ms[3])) and table.seat_of(ms[1].id) is None


async def test_buffered_choice_then_restart_then_timeout(e2e):
    world, alice, bob, tid = await moonshine_pair(e2e, turn_timeout_seconds=200)
    table = await world.bot.hall.table(tid)
    v, sa, sb = table.version, table.seat_of(alice.id), table.seat_of(bob.id)
    board = board_of(world, tid)
    pa = (await world.click(alice, board, f"se:b:{tid}:panel")).response
    await world.click(alice, pa, f"se:a:{tid}:{v}:moon")
    await e2e.restart()
    thread = world.threads[0]
    n = len(world.thread_messages(thread))
    await world.advance(201)
    new = world.thread_messages(thread)[n:]
    reminders = [m.text() for m in new if "time is running out" in m.text()]
    assert len(reminders) == 1 and bob.mention in reminders[0] and alice.mention not in reminders[0]
    assert any(said(m.text(), "turn.timed_out", names="bob") for m in new)
    log = await world.bot.db.action_log(tid)
    step = next(codes for before_v, codes, src in log if before_v == v)
    assert step[sa] == "moon" and sb in step


async def test_public_leaderboard_is_in_the_server_language(e2e):
    world = await e2e(guild_locale="fr")
    ed = world.member("ed", locale="en-US")
    res = await world.slash(ed, "leaderboard", game="gang-of-dice")
    assert res.response.public
    assert "Classement" in res.response.text()


async def test_start_and_cancel_at_the_same_instant(e2e):
    world = await e2e()
    alice, bob = world.member("alice"), world.member("bob")
    root = world.member("root", admin=True)
    msg, tid = await lobby(world, alice, "gang-of-dice")
    await world.click(bob, msg, f"se:l:{tid}:join")
    start, cancel = await world.gather(world.click(alice, msg, f"se:l:{tid}:start"),
                                       world.click(root, msg, f"se:l:{tid}:cancel"))
    table = await world.bot.hall.table(tid)
    if table.row.status == "running":
        assert NOT_LOBBY in private_text(cancel) and len(world.threads) == 1
        assert says("lobby.started") in msg.text()
    else:
        assert table.row.status == "abandoned" and NOT_LOBBY in private_text(start) and not world.threads
        assert "cancelled" in msg.text()


async def test_stale_panel_and_old_ping_after_a_restart(e2e):
    world = await e2e(seeds=[5])
    alice, bob = world.member("alice"), world.member("bob")
    tid = await open_table(world, alice, "gang-of-dice", members=[bob])
    table = await world.bot.hall.table(tid)
    first = next(m for m in (alice, bob) if table.seat_of(m.id) in table.to_act())
    board, ping = board_of(world, tid), ping_of(world, tid)
    p1 = (await world.click(first, board, f"se:b:{tid}:panel")).response
    p2 = (await world.click(first, board, f"se:b:{tid}:panel")).response
    await world.click(first, p2, f"se:a:{tid}:0:c1")
    await e2e.restart()
    res = await world.click(first, p1, f"se:a:{tid}:0:c2")
    assert res.kind in ("update", "deferred_update") and says("err.stale_refreshed") in p1.text()
    assert len(await world.bot.db.action_log(tid)) == 1
    res = await world.click(first, ping, f"se:b:{tid}:panel")
    assert res.ephemeral and res.response.viewer_id == first.id


async def test_a_restart_pings_nobody_again_in_the_middle_of_a_turn_and_pings_the_next_turn(e2e):
    """The turn that was current when the bot stopped was pinged by the process before: the
    member's next move in that turn pings nobody; the next turn (the other member's) is pinged."""
    world = await e2e(seeds=[5])
    alice, bob = world.member("alice"), world.member("bob")
    tid = await open_table(world, alice, "gang-of-dice", members=[bob])
    table = await world.bot.hall.table(tid)
    first = next(m for m in (alice, bob) if table.seat_of(m.id) in table.to_act())
    other = bob if first is alice else alice
    panel = (await world.click(first, board_of(world, tid), f"se:b:{tid}:panel")).response
    await world.click(first, panel, f"se:a:{tid}:0:c1")
    await e2e.restart()
    thread = world.threads[0]
    table = await world.bot.hall.table(tid)
    assert table.to_act() == {table.seat_of(first.id)}  # still the first member's turn
    n = len(world.thread_messages(thread))
    panel = (await world.click(first, board_of(world, tid), f"se:b:{tid}:panel")).response
    mark = next(c for c in panel.custom_ids if re.fullmatch(rf"se:a:{tid}:{table.version}:m\d", c))
    await world.click(first, panel, mark)  # a move in the same turn
    table = await world.bot.hall.table(tid)
    assert table.to_act() == {table.seat_of(first.id)}
    assert not any(said(m.text(), "turn.yours") for m in world.thread_messages(thread)[n:])
    panel = (await world.click(first, board_of(world, tid), f"se:b:{tid}:panel")).response
    stop = f"se:a:{tid}:{table.version}:s"
    assert stop in panel.custom_ids
    await world.click(first, panel, stop)  # the turn ends: the other member's begins
    table = await world.bot.hall.table(tid)
    assert table.to_act() == {table.seat_of(other.id)}
    pings = [m.text() for m in world.thread_messages(thread)[n:] if said(m.text(), "turn.yours")]
    assert len(pings) == 1 and other.mention in pings[0] and first.mention not in pings[0]


@pytest.mark.parametrize("game,n", [("shop-battle", 6), ("three-player-moon", 3), ("gang-of-dice", 4)])
async def test_full_tables_of_long_escaped_names_fit_discord_limits(e2e, game, n):
    world = await e2e(seeds=[9])
    members = [world.member(f"m{i}", nick=(f"{i}" + "*_`|" * 8)[:32]) for i in range(n)]
    tid = await open_table(world, members[0], game, members=members[1:])
    for _ in range(4):
        board = board_of(world, tid)
        for m in members:
            res = await world.click(m, board, f"se:b:{tid}:panel")
            assert res.ephemeral and res.response.cards
        await world.advance(601)
    assert (await world.bot.hall.table(tid)).version >= 2


# ---------------------------------------------------------------------------------------- no thread permission


async def no_thread_lobby(e2e):
    """The world and a lobby in a channel where the bot may not create threads, started with
    one AI player."""
    world = await e2e(seeds=[5])
    alice = world.member("alice")
    channel = world.channel_with_overwrites("no-threads", {"@everyone": discord.PermissionOverwrite(create_public_threads=False)})
    await world.settle()
    res = await world.slash(alice, "play", channel=channel, game="gang-of-dice")
    msg, tid = res.response, lobby_id(res.response)
    await world.click(alice, msg, f"se:l:{tid}:ai+")
    await world.click(alice, msg, f"se:l:{tid}:start")
    return world, alice, channel, msg, tid


async def test_without_thread_permission_the_table_is_played_in_the_channel(e2e):
    world, alice, channel, msg, tid = await no_thread_lobby(e2e)
    assert not world.threads
    assert (await world.bot.hall.table(tid)).row.status == "running"
    board = next(m for m in world.channel_messages(channel) if m.cards and f"se:b:{tid}:panel" in m.custom_ids)
    res = await world.click(alice, board, f"se:b:{tid}:panel")
    assert res.ephemeral and res.response.cards
    assert any(said(m.text(), "turn.yours") for m in world.channel_messages(channel))


async def test_without_thread_permission_the_lobby_text_makes_sense(e2e):
    world, alice, channel, msg, tid = await no_thread_lobby(e2e)
    assert says("lobby.started_here") in msg.text()
    assert says("lobby.started", thread="") not in msg.text()


async def test_without_thread_post_permission_the_host_learns_why(e2e):
    world = await e2e(seeds=[5])
    alice = world.member("alice")
    channel = world.channel_with_overwrites("mute-threads", {"@everyone": discord.PermissionOverwrite(send_messages_in_threads=False)})
    await world.settle()
    res = await world.slash(alice, "play", channel=channel, game="gang-of-dice")
    msg, tid = res.response, lobby_id(res.response)
    await world.click(alice, msg, f"se:l:{tid}:ai+")
    start = await world.click(alice, msg, f"se:l:{tid}:start")
    table = await world.bot.hall.table(tid)
    if table.row.status == "running":  # acceptable: played in the channel
        assert any(m.cards and f"se:b:{tid}:panel" in m.custom_ids for m in world.channel_messages(channel))
    else:  # else the host must be told why, and no empty thread should be left behind
        assert private_text(start).strip(), "the host got no explanation"
        assert not world.threads


async def _finished_shop_battle(world, alice, bob):
    from tests.test_e2e_lifecycle import CAP, play_until

    tid = await open_table(world, alice, "shop-battle", members=[bob], ai=1, options=CAP)
    await play_until(world, [alice, bob], tid, random.Random(1))
    assert (await world.bot.hall.table(tid)).row.status == "finished"
    return tid


async def test_two_rematch_clicks_at_once_open_one_lobby_and_post_it_once(e2e):
    """Both players click Rematch on the finished board at the same instant: one lobby (a host
    has one per channel), one lobby message; the second click is pointed to it."""
    world = await e2e(seeds=[20, 21])
    alice, bob = world.member("alice"), world.member("bob")
    tid = await _finished_shop_battle(world, alice, bob)
    board = board_of(world, tid)
    before = len(world.channel_messages())
    a, b = await world.gather(world.click(alice, board, f"se:b:{tid}:rematch"),
                              world.click(bob, board, f"se:b:{tid}:rematch"))
    assert a.acknowledged and b.acknowledged
    lobbies = [t for t in await world.bot.records.guild_tables(world.guild_id) if t.row.status == "lobby"]
    assert len(lobbies) == 1, [t.id for t in lobbies]
    posted = [m for m in world.channel_messages()[before:] if any(c.startswith("se:l:") for c in m.custom_ids)]
    assert len(posted) == 1
    answers = {r.member.name: "\n".join(m.text() for m in r.messages if m.ephemeral) for r in (a, b)}
    opened = [name for name, text in answers.items() if said(text, "rematch.opened")]
    assert len(opened) == 1, answers
    refused = answers["bob" if opened == ["alice"] else "alice"]
    if opened == ["alice"]:  # bob, not the host, is told whose lobby it is
        assert said(refused, "rematch.exists", host="alice"), refused
    else:  # alice hosts it
        assert said(refused, "err.lobby_exists"), refused


async def test_a_rematch_refused_for_a_game_the_server_stopped_offering_names_the_game(e2e):
    """A French server finishes a Shop Battle, then stops offering it: the Rematch refusal
    names « Bataille des commerces », not its key."""
    from bot.i18n import Translator

    world = await e2e(seeds=[20, 21], guild_locale="fr")
    alice, bob = world.member("alice", locale="fr"), world.member("bob", locale="fr")
    root = world.member("root", admin=True, locale="fr")
    tid = await _finished_shop_battle(world, alice, bob)
    settings = (await world.slash(root, "settings")).response
    await world.select(root, settings, "se:cs:games", ["gang-of-dice", "moonshine"])
    res = await world.click(bob, board_of(world, tid), f"se:b:{tid}:rematch")
    fr = Translator("fr")
    assert [m.text() for m in res.messages if m.ephemeral] == [
        fr("err.game_not_enabled", game=fr("game.shop-battle.name"))]


async def _alice_away_at_her_turn(world, tid, alice, bob, rng, *, ai_wait: float):
    """Play until alice (who never acts) is away and her seat must act; returns her first
    panel, opened at her first turn (so an old panel with live buttons)."""
    old_panel = None
    for _ in range(400):
        table = await world.bot.hall.table(tid)
        a = table.seat_of(alice.id)
        if table.seats[a].away and a in table.to_act():
            return old_panel
        if a in table.to_act():
            if old_panel is None:
                old_panel = (await world.click(alice, board_of(world, tid), f"se:b:{tid}:panel")).response
            await world.advance(121)  # her turn times out
        elif not await take_turn(world, bob, tid, rng):
            await world.advance(ai_wait)  # the AI plays her seat after its pause
    raise AssertionError("alice never went away")


async def test_an_away_member_back_through_an_old_panel_gets_a_deadline_again(e2e):
    """Alice is away and the AI is about to play her turn (its 30 s pause); she clicks a button
    of an old panel: refused as out of date, but she is back, so the AI no longer plays her
    seat; her turn must still end, by her or by its deadline (it stayed without any)."""
    from bot.timers import turn_key

    world = await e2e(seeds=[8], turn_timeout_seconds=120, ai_delay_seconds=30)
    alice, bob = world.member("alice"), world.member("bob")
    tid = await open_table(world, alice, "gang-of-dice", members=[bob])
    old_panel = await _alice_away_at_her_turn(world, tid, alice, bob, random.Random(4), ai_wait=31)
    live = [b for b in old_panel.buttons if not b.disabled and b.custom_id.startswith(f"se:a:{tid}:")]
    res = await world.click(alice, old_panel, live[0].custom_id)
    assert res.ephemeral and said(res.response.text(), "err.stale_refreshed")
    table = await world.bot.hall.table(tid)
    a = table.seat_of(alice.id)
    assert not table.seats[a].away and a in table.to_act()
    assert world.bot.timers.get(turn_key(tid)) is not None, "her turn has a deadline again"
    v = table.version
    await world.advance(5000)
    assert (await world.bot.hall.table(tid)).version > v


async def test_a_member_coming_back_keeps_the_others_running_deadline(e2e):
    """Alice is away; bob is 10 s from his turn's deadline when alice opens her panel (back):
    bob's deadline stays where it was."""
    from bot.timers import turn_key

    world = await e2e(seeds=[8], turn_timeout_seconds=120)
    alice, bob = world.member("alice"), world.member("bob")
    tid = await open_table(world, alice, "gang-of-dice", members=[bob])
    rng = random.Random(4)
    for _ in range(400):  # alice never acts: away after her timeouts in a row
        table = await world.bot.hall.table(tid)
        if table.seats[table.seat_of(alice.id)].away:
            break
        if table.seat_of(alice.id) in table.to_act():
            await world.advance(121)
        else:
            assert await take_turn(world, bob, tid, rng)
    table = await world.bot.hall.table(tid)
    assert table.seats[table.seat_of(alice.id)].away
    b = table.seat_of(bob.id)
    while b not in table.to_act():
        await world.advance(1)  # the AI plays alice's seat
        table = await world.bot.hall.table(tid)
    act_at = float(world.bot.timers.get(turn_key(tid)).payload["act_at"])
    await world.advance(act_at - world.now().timestamp() - 10)
    res = await world.click(alice, board_of(world, tid), f"se:b:{tid}:panel")  # alice is back
    assert res.ephemeral and not (await world.bot.hall.table(tid)).seats[table.seat_of(alice.id)].away
    assert float(world.bot.timers.get(turn_key(tid)).payload["act_at"]) == act_at
