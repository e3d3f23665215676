"""SIGTERM stops a bot cleanly in the middle of a game, on both stores: the click being answered
is stored, the process exits with status 0 without an error logged, and the next start resumes
the table where it was (its stored snapshot is what its seed and log replay to)."""

from __future__ import annotations

import signal

from bot.games import GAMES
from bot.house import House
from tests.test_e2e_shards import BotProcess, procs, read_db

__all__ = ["procs"]


async def test_sigterm_mid_game_stores_every_step_and_exits_0(tmp_path, procs, db_url):
    bot = BotProcess(tmp_path, db_url, "a", "0", shard_count=1)
    procs.append(bot)
    for name in ("Ann", "Bob"):
        bot.ask(op="member", name=name)
    table = bot.ask(op="open", host="Ann", game="three-player-moon", members=["Bob"], ai=1)["table"]
    for _ in range(3):
        for name in ("Ann", "Bob"):
            bot.ask(op="turn", member=name, table=table)
    before = bot.ask(op="table", table=table)
    assert before["status"] == "running"
    bot.send(op="play", members=["Ann", "Bob"], table=table, limit=40)  # clicks in flight...
    bot.proc.send_signal(signal.SIGTERM)  # ...when the signal comes
    bot.proc.stdin.close()  # type: ignore[union-attr]
    assert bot.proc.wait(60) == 0
    bot.stderr.close()
    log = bot.errors()
    assert "ERROR" not in log and "Traceback" not in log, log[-3000:]

    async def check(db):
        house = House(db)
        row = await db.get_table(table)
        state = await house.tables.replay(table)
        return row, state, len(await db.action_log(table))

    row, state, steps = await read_db(db_url, check)
    assert row.status == "running" and row.version >= before["version"] and steps >= 1
    game = GAMES["three-player-moon"].game
    assert game.dump_state(state) == game.dump_state(game.load_state(row.state))  # the log replays to the snapshot

    again = BotProcess(tmp_path, db_url, "a", "0", shard_count=1, restore=True)
    procs.append(again)
    assert table in again.ready["resumed"]
    assert again.ask(op="table", table=table)["version"] == row.version
    assert again.stop() == 0
