"""Board edits stay within a per-channel budget (``BOARD_EDITS_PER_5S``, cogs/edit_budget.py): a Gang
of Dice table of four AI players (the host's turns played for them when their time runs out)
moving every half second of the simulated clock edits its board at most 5 times in any 5 s, the
budget wins over the AI's pace (fewer edits than steps), every step still reaches the board's
recent events, and the last edit shows the latest state. A 429 that discord.py reports pauses
that channel and is told once per route and channel."""

from __future__ import annotations

import logging

import pytest

from bot import compose
from bot.i18n import Translator
from cogs.edit_budget import EditBudget, RateLimitWatch
from tests.e2e import board_of, open_table


async def test_four_ai_players_edit_the_board_at_most_5_times_in_any_5_seconds(e2e):
    world = await e2e(seeds=[11], ai_delay_seconds=1.0, board_edits_per_5s=5, turn_timeout_seconds=10)  # the default AI_DELAY_SECONDS
    host = world.member("host")
    poster = world.bot.notifier
    sent: list[tuple[float, int]] = []
    real = poster.draw_board

    logged: list[int] = []  # public log lines at each edit

    async def draw_board(table, **kwargs):
        sent.append((poster.now(), table.row.version))
        events = await world.bot.records.all_events(table.id)
        logged.append(len(compose.public_log(events, table, Translator("en"))))
        return await real(table, **kwargs)

    poster.draw_board = draw_board
    tid = await open_table(world, host, "gang-of-dice", ai=3)
    for _ in range(80):  # 40 simulated seconds
        await world.advance(0.5)
    table = await world.bot.hall.table(tid)
    assert table.row.status == "running" and table.version > 20, table.version
    times = [at for at, _ in sent]
    assert len(times) >= 8
    busiest = max(sum(1 for u in times if t <= u < t + 5) for t in times)
    assert busiest == 5, busiest  # the budget is used, never exceeded
    assert len(sent) < table.version  # merged: fewer edits than steps
    for _ in range(300):  # on to the end of the game
        await world.advance(2)
        table = await world.bot.hall.table(tid)
        if table.row.status != "running":
            break
    await world.advance(5)
    assert table.row.status == "finished"
    assert sent[-1][1] == table.version  # the last edit shows the latest state
    # what happened between two edits fits in the recent events of the second: no step unseen
    assert max(b - a for a, b in zip(logged, logged[1:], strict=False)) <= compose.LOG_LINES
    events = await world.bot.records.all_events(tid)
    lines = compose.public_log(events, table, Translator("en"))
    shown = board_of(world, tid).text()
    assert lines[-1] in shown and lines[-compose.LOG_LINES] in shown


def test_the_budget_counts_a_sliding_window_and_a_429_pauses_the_channel():
    budget = EditBudget(5)
    for k in range(5):  # a burst (the spreading leaves edits 1 s apart, not the count)
        budget.spend(7, 100.0 + k * 0.1)
    assert budget.delay(7, 100.5) > 0
    # the first edit leaves the window at 105.0, and a little more (EditBudget.SLACK_S)
    assert budget.delay(7, 100.5) == pytest.approx(4.5 + EditBudget.SLACK_S)
    assert budget.delay(8, 100.5) == 0.0  # another channel
    assert budget.delay(7, 105.0 + EditBudget.SLACK_S) == 0.0
    budget.spend(7, 106.0)
    assert budget.delay(7, 106.5) == pytest.approx(0.5)  # edits spread out: 1 s apart
    budget.back_off(8, 2.5, 101.0)
    assert budget.delay(8, 102.0) == pytest.approx(1.5) and budget.delay(8, 103.5) == 0.0
    assert EditBudget(0).delay(7, 0.0) == 0.0


def test_a_429_is_told_once_per_route_and_channel(caplog):
    limited: list[tuple[int, float]] = []
    watch = RateLimitWatch(lambda channel, seconds: limited.append((channel, seconds)))
    fmt = "We are being rate limited. %s %s responded with 429. Retrying in %.2f seconds."

    def record(url: str, seconds: float) -> logging.LogRecord:
        return logging.LogRecord("discord.http", logging.WARNING, __file__, 1, fmt, ("PATCH", url, seconds), None)

    base = "https://discord.com/api/v10/channels/42/messages/"
    with caplog.at_level(logging.WARNING, logger="cogs.edit_budget"):
        assert watch.filter(record(base + "1", 1.5)) is False
        assert watch.filter(record(base + "2", 0.5)) is False  # same route, same channel: told once
        assert watch.filter(record("https://discord.com/api/v10/guilds/3/members/4", 1.0)) is True
    assert limited == [(42, 1.5), (42, 0.5)]
    told = [r.getMessage() for r in caplog.records if r.name == "cogs.edit_budget"]
    assert len(told) == 1 and "PATCH /channels/{channel}/messages/{id}" in told[0] and "42" in told[0]


def test_the_routes_told_of_a_429_are_bounded(monkeypatch):
    """A bot rate limited in ever new channels remembers the latest RateLimitWatch.TOLD only."""
    monkeypatch.setattr(RateLimitWatch, "TOLD", 8)
    watch = RateLimitWatch(lambda channel, seconds: None)
    fmt = "We are being rate limited. %s %s responded with 429. Retrying in %.2f seconds."
    for channel in range(100):
        url = f"https://discord.com/api/v10/channels/{channel}/messages/1"
        watch.filter(logging.LogRecord("discord.http", logging.WARNING, __file__, 1, fmt, ("PATCH", url, 1.0), None))
    assert len(watch._told) == 8


async def start_tables_in(world, channel, hosts) -> list[int]:
    """A Gang of Dice table of each host and an AI player in ``channel``, started 0.8 s apart."""
    from tests.e2e import lobby_id

    tids = []
    for host in hosts:
        res = await world.slash(host, "play", channel=channel, game="gang-of-dice")
        msg, tid = res.response, lobby_id(res.response)
        await world.click(host, msg, f"se:l:{tid}:ai+")
        await world.click(host, msg, f"se:l:{tid}:start")
        tids.append(tid)
        await world.advance(0.8)
    return tids


async def test_tables_started_one_after_another_in_one_channel_keep_its_budget(e2e):
    """Six tables start 0.8 s apart in a channel without threads (their boards are posted
    there), then each host plays a turn: at most 5 board posts and edits in any 5 s in that
    channel (a table's first board waits for the channel's budget too)."""
    import random

    import discord

    from tests.e2e import act_on_panel

    world = await e2e(seeds=[11], board_edits_per_5s=5)
    channel = world.channel_with_overwrites("no-threads",
                                            {"@everyone": discord.PermissionOverwrite(create_public_threads=False)})
    await world.settle()
    hosts = [world.member(f"h{i}") for i in range(6)]
    poster = world.bot.notifier
    spent: list[float] = []
    real = poster.budget.spend

    def spend(ch, now):
        if ch == channel.id:
            spent.append(now)
        real(ch, now)

    poster.budget.spend = spend
    tids = await start_tables_in(world, channel, hosts)
    rng = random.Random(1)
    for host, tid in zip(hosts, tids, strict=True):
        board = next(m for m in world.channel_messages(channel) if m.cards and f"se:b:{tid}:panel" in m.custom_ids)
        res = await world.click(host, board, f"se:b:{tid}:panel")
        await act_on_panel(world, host, tid, res.response, rng)
    for _ in range(10):
        await world.advance(1)
    assert not world.threads and len(spent) >= 12  # six first boards and their edits, all in the channel
    busiest = max(sum(1 for u in spent if t <= u < t + 5) for t in spent)
    assert busiest <= 5, [round(t - spent[0], 2) for t in spent]


async def test_boards_of_one_channel_redrawn_at_the_same_instant_share_its_budget(e2e):
    """Six tables of one channel (no threads) whose hosts act at the same instant: the board
    edits actually sent in that channel stay at most 5 in any 5 s, at least a second apart (no
    updater finds the budget free while another one is drawing its picture), and every board
    is redrawn."""
    import discord

    from bot import compose
    from bot.i18n import Translator
    from bot.ui import Button

    world = await e2e(seeds=[11], board_edits_per_5s=5)
    channel = world.channel_with_overwrites("no-threads",
                                            {"@everyone": discord.PermissionOverwrite(create_public_threads=False)})
    await world.settle()
    hosts = [world.member(f"h{i}") for i in range(6)]
    tids = await start_tables_in(world, channel, hosts)
    for _ in range(20):  # the AI seats play their turns: every host is to act
        await world.advance(1)
    clicks = []
    for host, tid in zip(hosts, tids, strict=True):
        table = await world.bot.hall.table(tid)
        seat = table.seat_of(host.id)
        assert seat in table.to_act()
        board = next(m for m in world.channel_messages(channel) if m.cards and f"se:b:{tid}:panel" in m.custom_ids)
        panel = (await world.click(host, board, f"se:b:{tid}:panel")).response
        code = next(c.code for row in compose.panel(table, seat, Translator("en")).rows for c in row
                    if isinstance(c, Button) and c.code and not c.disabled)
        clicks.append((host, panel, f"se:a:{tid}:{table.version}:{code}"))
    await world.advance(6)  # the channel's budget is whole again
    poster = world.bot.notifier
    sent: list[tuple[float, int]] = []
    real = poster._edit_board

    async def edit_board(place, table, *args, **kwargs):
        sent.append((poster.now(), table.id))
        return await real(place, table, *args, **kwargs)

    poster._edit_board = edit_board
    outcomes = await world.gather(*(world.click(host, panel, cid) for host, panel, cid in clicks))
    assert all(o.acknowledged for o in outcomes)
    for _ in range(30):
        await world.advance(1)
    assert not world.threads
    assert {tid for _, tid in sent} == set(tids), "every board redrawn"
    times = sorted(at for at, _ in sent)
    busiest = max(sum(1 for u in times if t <= u < t + 5) for t in times)
    assert busiest <= 5, [round(t - times[0], 2) for t in times]
    assert min(b - a for a, b in zip(times, times[1:], strict=False)) >= 1 - 1e-6, [round(t - times[0], 2) for t in times]


def test_a_channels_edits_take_their_turns_in_the_order_asked():
    """A table whose board is dirty again as soon as its edit is sent asks for the channel's
    next turn behind the table already waiting: it does not keep the channel."""
    import asyncio

    async def main() -> list[str]:
        budget = EditBudget(0)
        order: list[str] = []
        other_waits = asyncio.Event()

        async def busy() -> None:
            for k in range(3):
                async with budget.turn(7, lambda: 0.0):
                    order.append(f"busy {k}")
                    if k == 0:
                        await other_waits.wait()

        async def other() -> None:
            await asyncio.sleep(0)  # the busy table holds the turn
            other_waits.set()  # its edit ends as soon as this one asks
            async with budget.turn(7, lambda: 0.0):
                order.append("other")

        await asyncio.gather(busy(), other())
        assert not budget._queues
        return order

    assert asyncio.run(main()) == ["busy 0", "other", "busy 1", "busy 2"]
