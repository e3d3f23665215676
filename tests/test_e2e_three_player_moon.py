"""Three-Player Moon end to end through discord.py's dispatch: one member and two AI players play
to 21; the member's tiles never appear in a public message."""

from __future__ import annotations

import random

from tests.catalog import said
from tests.e2e import board_of, open_table, take_turn


def tile_text(tile) -> str:
    hi, lo = tile
    return f"[{hi}|{lo}]"


async def played_in_earlier_hands(service, tid) -> set[str]:
    """Tiles played publicly in an earlier hand (tiles are redealt each hand)."""
    events = await service.records.recent_events(tid, 100_000)
    starts = [i for i, e in enumerate(events) if e.key in ("tpm.hand_start", "tpm.redeal")]
    return {e.params["tile"] for e in events[: starts[-1] if starts else 0] if e.key == "tpm.play"}


async def test_one_member_two_ai_play_to_21_without_leaking_tiles(e2e):
    world = await e2e(seeds=[4])
    alice = world.member("alice")
    tid = await open_table(world, alice, "three-player-moon", ai=2)
    service = world.bot
    rng = random.Random(1)
    checks = 0
    for _ in range(2000):
        table = await service.hall.table(tid)
        if table.row.status != "running":
            break
        seat = table.seat_of(alice.id)
        hand = table.state.hands[seat]
        # every public message version posted since the last check (each is read once)
        public = world.new_public_text()
        shown = [tile for tile in hand if tile_text(tile) in public]
        if shown:  # only a tile played in an earlier hand may be in the log already
            earlier = await played_in_earlier_hands(service, tid)
            for tile in shown:
                assert tile_text(tile) in earlier, tile
        checks += 1
        panel_needed = seat in table.to_act()
        if panel_needed:
            await take_turn(world, alice, tid, rng)
            # her private panel did show her tiles
            private = world.new_private_text(alice)
            assert any(tile_text(t) in private for t in hand)
    table = await service.hall.table(tid)
    assert table.row.status == "finished"
    assert max(table.state.scores) >= 21 or table.state.moon_winner is not None
    assert checks > 20
    thread_text = "\n".join(m.text() for m in world.thread_messages(world.threads[0]))
    assert said(thread_text, "result.title")
    board = board_of(world, tid)
    assert "21" in board.text()
