"""Moonshine end to end through discord.py's dispatch: two members and two AI players from a
scripted round (secret simultaneous actions, a validation with a token discard, a draw-and-replace)
to the end of the game; nobody sees another player's choice or drawn cards before the round
resolves."""

from __future__ import annotations

import random

from bot.games import GAMES
from bot.i18n import Translator
from bot.presenters import RenderContext
from bot.presenters.moonshine import card_name
from engine.moonshine import Moonshine, MoonshineState, SeatState
from tests.catalog import said
from tests.e2e import board_of, open_table, take_turn

ACTIONS = ("val", "moon", "draw")


def latest_private(world, member) -> str:
    msgs = world.ephemeral_for(member)
    return msgs[-1].text() if msgs else ""


# Client ids (engine/moonshine/data/cards.json) and Speakeasies of the scripted table below
BAKER, GREENGROCER, CROONER, FLAPPER, BARTENDER, SOMMELIER, NIGHT_OWL, DOORMAN = 0, 1, 14, 15, 28, 29, 42, 56
BLIND_PIG, VELVET, CELLAR, SILVER = range(4)


def seat(speakeasy: int, clients: tuple[int, int], se=(0, 0, 0), cl=(0, 0)) -> SeatState:
    return SeatState(speakeasy=speakeasy, se_tokens=se, clients=clients, cl_tokens=cl)


def scripted_round(seed: int, players: int, options) -> MoonshineState:
    """The ``deal`` hook: a Standard table of 4 (alice, bob, two AI players) at round 3's secret
    action phase, alice active, the dice showing Music, Music, Food, the deck in card-id order.

    Alice can validate The Night Owl (2 Moon tokens: the one on it, then one more she chooses
    among her Speakeasy's three slots: a validation with a token discard); bob holds two Clients,
    so a draw makes him keep one card and replace a Client. The AI players hold no token yet."""
    assert players == 4 and options.get("variant", "standard") == "standard"
    seats = (seat(BLIND_PIG, (NIGHT_OWL, BAKER), se=(1, 2, 1), cl=(1, 0)), seat(VELVET, (CROONER, DOORMAN)),
             seat(CELLAR, (BARTENDER, SOMMELIER)), seat(SILVER, (GREENGROCER, FLAPPER)))
    used = {c for s in seats for c in s.clients}
    return MoonshineState(seed=seed, players=players, rules=Moonshine.rules_version, variant="standard", target=12,
                          phase="action", round=3, first=0, active=0, dice=("music", "music", "food", "", ""),
                          deck=tuple(c for c in range(70) if c not in used), seats=seats)


async def test_two_members_two_ai_full_game(e2e):
    t = Translator("en")
    presenter = GAMES["moonshine"].presenter
    world = await e2e(deal={"moonshine": scripted_round})
    alice, bob = world.member("alice"), world.member("bob")
    tid = await open_table(world, alice, "moonshine", members=[bob], ai=2, options={"variant": "standard"})
    service = world.bot
    game = (await service.hall.table(tid)).game
    rng = random.Random(5)
    secret_checks = draw_checks = 0

    async def act(member, code=None):
        """``member`` acts (``code``, else as the AI would), then nobody's secret is public."""
        nonlocal secret_checks, draw_checks
        acted = await take_turn(world, member, tid, rng, code=code)
        assert acted or code is None, f"{member.name} could not play {code}"
        table = await service.hall.table(tid)
        if table.row.status != "running":
            return
        # every public message version posted since the last check (each is read once)
        # holds neither member's secret: a buffered choice, or cards drawn while deciding
        public = world.new_public_text()
        for m, other in ((alice, bob), (bob, alice)):
            seat = table.seat_of(m.id)
            ctx = RenderContext(t, table.names(), seat)
            code = table.pending.get(seat)
            if code and code.split(".")[0] in ACTIONS and code != "moon" and code != "draw":
                label = presenter.action_label(code, game.view(table.state, seat), ctx)
                assert label not in public
                assert label not in latest_private(world, other)
                assert said(board_of(world, tid).text(), "board.waiting_for")
                secret_checks += 1
            for item in game.view_json(table.state, seat).get("private", {}).get("queue", []):
                for cid in item.get("cards", []):
                    assert card_name(cid, t) not in public, cid
                    draw_checks += 1

    table = await service.hall.table(tid)
    assert (table.seat_of(alice.id), table.seat_of(bob.id)) == (0, 1) and table.to_act() == frozenset(range(4))
    # the secret action phase: alice validates The Night Owl, bob draws, at the same time
    await act(alice, f"val.{NIGHT_OWL}")
    await act(bob, "draw")
    # alice chooses the second token to discard; then the draws are made in seat order: alice's
    # redraw takes the deck's first three cards, bob draws the next three (ids 5, 6, 7)
    await act(alice, "dis.s1a")
    table = await service.hall.table(tid)
    drawn = next(q.cards for q in table.state.seats[1].queue if q.kind == "pick")
    assert drawn == (5, 6, 7)
    # in parallel: bob keeps The Fishmonger (buffered), alice keeps a card of her redraw
    await act(bob, f"pick.{drawn[0]}")
    await act(alice)
    await act(bob, f"rep.{CROONER}")  # The Fishmonger replaces The Crooner
    table = await service.hall.table(tid)
    assert table.state.seats[0].validated == (NIGHT_OWL,)
    assert drawn[0] in table.state.seats[1].clients and CROONER not in table.state.seats[1].clients

    for _ in range(3000):  # then everyone plays on as the AI would, to the end
        table = await service.hall.table(tid)
        if table.row.status != "running":
            break
        for m in (alice, bob):
            await act(m)
    table = await service.hall.table(tid)
    assert table.row.status == "finished"
    log = await service.db.action_log(tid)
    user_rows = [codes for _, codes, source in log if source == "user"]
    # both members chose an action in the same (simultaneous) step
    assert {0: f"val.{NIGHT_OWL}", 1: "draw"}.items() <= user_rows[0].items()
    member_codes = [c for codes in user_rows for s, c in codes.items() if s in (0, 1)]
    assert "dis.s1a" in member_codes and f"pick.{drawn[0]}" in member_codes and f"rep.{CROONER}" in member_codes
    assert secret_checks > 0 and draw_checks > 0
    thread_text = "\n".join(m.text() for m in world.thread_messages(world.threads[0]))
    assert said(thread_text, "result.title")
