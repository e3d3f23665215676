"""End-to-end smoke test of the table flow with Three-Player Moon (one member, two AI players)."""

from __future__ import annotations

import random

from tests.e2e import bot_factory, open_table, take_turn
from tests.harness import DiscordWorld


async def test_tpm_one_member_two_ai(tmp_path):
    async with DiscordWorld() as world:
        alice = world.member("alice")
        await world.start_bot(bot_factory(tmp_path / "e2e.db"))
        tid = await open_table(world, alice, "three-player-moon", ai=2)
        rng = random.Random(1)
        for _ in range(400):
            table = await world.bot.service.table(tid)
            if table.row.status != "running":
                break
            assert await take_turn(world, alice, tid, rng)
        assert (await world.bot.service.table(tid)).row.status == "finished"
