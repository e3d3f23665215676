"""The soak, seconds long: tables of every game played through the Discord layer (cogs, discord.py,
pictures on) by the stepped bot (:mod:`tests.harness.stepped`), their members never acting (the
deadlines hand their seats to the AI), and every per-table structure of the bot back to its size
once they ended. ``python -m bench.soak`` is the long run, with memory figures."""

from __future__ import annotations

from bot.games import GAMES
from tests.harness.stepped import SteppedBot

#: Structures that empty on a timer of their own (discord.py keeps an ephemeral level picker's
#: view for the 15 minutes its message lives), not when a table ends.
TIMED = {"discord.timed_views"}
#: The hall drops a table's lock once the table ended and its waiters are done: not yet.
LOCKS = {"hall.locks"}


async def play_round(rig: SteppedBot, first_host: int) -> list[int]:
    """One table of each game at once, stepped to their ends; their ids."""
    tids = [await rig.open_table(game, host=first_host + i, ai=max(1, GAMES[game].game.min_players - 1))
            for i, game in enumerate(sorted(GAMES))]
    for _ in range(200):
        if not rig.running:
            break
        assert await rig.step(), f"tables {sorted(rig.running)} run with no timer left"
    assert not rig.running
    return tids


async def test_tables_played_through_the_cogs_leave_nothing_behind(tmp_path):
    """A first round warms the bot up (catalogs, the picture thread, first-time caches); the
    census after a second round is no larger than before it (bounded caches aside)."""
    rig = await SteppedBot.start(tmp_path / "soak.db", pictures=True, render_workers=0)
    try:
        await play_round(rig, 0)
        before = rig.census()
        tids = await play_round(rig, 100)
        after = rig.census()
        statuses = [(await rig.bot.hall.table(t)).row.status for t in tids]
    finally:
        await rig.close()
    assert statuses == ["finished"] * len(GAMES)  # played to their ends, by deadlines and the AI
    assert after["timers.rows"] == after["driver.tasks"] == 0
    changed = {k: (before[k], after[k]) for k in before
               if k not in TIMED | LOCKS and not k.startswith("cache.") and after[k] > before[k]}
    assert changed == {}
    assert after["hall.locks"] == before["hall.locks"], "the hall keeps the locks of tables that ended"
