"""Moonshine end to end through discord.py's dispatch: two members and two AI players, secret
simultaneous actions, a validation with a token discard and a draw-and-replace; nobody sees
another player's choice or drawn cards before the round resolves."""

from __future__ import annotations

import random

from bot.i18n import Translator
from bot.presenters import PRESENTERS, RenderContext
from bot.presenters.moonshine import card_name
from tests.e2e import board_of, open_table, take_turn

ACTIONS = ("val", "moon", "draw")


def latest_private(world, member) -> str:
    msgs = world.ephemeral_for(member)
    return msgs[-1].text() if msgs else ""


async def test_two_members_two_ai_full_game(e2e):
    t = Translator("en")
    presenter = PRESENTERS["moonshine"]
    # seed 1: AI-style play gives both members an action in the same round, a validation with a
    # token discard and a draw-and-replace (found by simulating the same seed)
    world = await e2e(seeds=[1])
    alice, bob = world.member("alice"), world.member("bob")
    tid = await open_table(world, alice, "moonshine", members=[bob], ai=2, options={"variant": "standard"})
    service = world.bot.service
    game = (await service.table(tid)).game
    rng = random.Random(5)
    secret_checks = draw_checks = 0
    for _ in range(3000):
        table = await service.table(tid)
        if table.row.status != "running":
            break
        for m in (alice, bob):
            await take_turn(world, m, tid, rng)
            table = await service.table(tid)
            if table.row.status != "running":
                break
            # every public message version posted since the last check (each is read once)
            # holds neither member's secret: a buffered choice, or cards drawn while deciding
            public = world.new_public_text()
            for member, other in ((alice, bob), (bob, alice)):
                seat = table.seat_of(member.id)
                ctx = RenderContext(t, table.names(), seat)
                code = table.pending.get(seat)
                if code and code.split(".")[0] in ACTIONS and code != "moon" and code != "draw":
                    label = presenter.action_label(code, game.view(table.state, seat), ctx)
                    assert label not in public
                    assert label not in latest_private(world, other)
                    assert "Has chosen" in board_of(world, tid).text()
                    secret_checks += 1
                for item in game.view_json(table.state, seat).get("private", {}).get("queue", []):
                    for cid in item.get("cards", []):
                        assert card_name(cid, t) not in public, cid
                        draw_checks += 1
    table = await service.table(tid)
    assert table.row.status == "finished"
    log = await service.db.action_log(tid)
    seats = {table.seat_of(alice.id), table.seat_of(bob.id)}
    user_rows = [codes for _, codes, source in log if source == "user"]
    member_codes = [c for codes in user_rows for s, c in codes.items() if s in seats]
    # both members chose an action in the same (simultaneous) step
    assert any(all(codes.get(s, "").split(".")[0] in ACTIONS for s in seats) for _, codes, _ in log)
    assert any(c.startswith("dis.") for c in member_codes)  # a validation with a token discard
    assert any(c.startswith("pick.") and c != "pick.none" for c in member_codes)  # draw…
    assert any(c.startswith("rep.") for c in member_codes)  # …and replace
    assert secret_checks > 0 and draw_checks > 0
    thread_text = "\n".join(m.text() for m in world.thread_messages(world.threads[0]))
    assert "final standings" in thread_text
