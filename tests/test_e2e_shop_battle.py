"""Shop Battle end to end through discord.py's dispatch: a capped game of one member against two
AI players from a scripted deal (a bataille, Collectors and the self-deleting HYPER U peek; the
round cap under both rules versions), and custom decks."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from engine.shop_battle import ShopBattle
from tests.catalog import said, says
from tests.e2e import board_of, lobby_id, open_table, take_turn
from tests.harness import CommandNotVisible

EXAMPLE = Path(__file__).parents[1] / "docs" / "decks" / "example-deck.json"


# Card ids of the default deck (engine/shop_battle/data/default.json): Collectors 40-46, and the
# shop cards the scripted deal below needs (year founded in the comments).
HYPER_U, REVERSE, SKIP, SCOUT = 40, 41, 42, 45
LIBRAIRIE, CHEZ_MIMI, GRIMOIRE, REPAIRE, OAK_LANE = 2, 38, 6, 37, 35  # 1931, 1931, 1889, 2022, 1864


def scripted_deal(rules: int):
    """The ``deal`` hook of a 3-seat table (alice = seat 0, two AI players) starting from a deal
    written out through ``ShopBattle.start_from`` instead of a shuffle, under ``rules``:

    - round 1, alice chooses: her top card is HYPER U (a Collector: she peeks at a pile), then
      Librairie des Tilleuls (founded 1931); she announces "year, higher wins";
    - AI 1 reveals Chez Mimi (1931 too), AI 2 Au Vieux Grimoire (1889): a bataille between alice
      and AI 1, won by alice's Le Repaire des Héros (2022) over Oak Lane Bookshop (1864);
    - round 2, AI 2 chooses (counter-clockwise) and first reveals Lèche-Vitrines (a Collector);
    - the reverse and skip Collectors start face down in the first pot (S3's remainder), so the
      choosers go round 0, 2, 1 in laps of three rounds.
    """
    top = [[HYPER_U, LIBRAIRIE, REPAIRE], [CHEZ_MIMI, OAK_LANE], [GRIMOIRE, SCOUT]]
    pot = [REVERSE, SKIP]
    piles = [list(p) for p in top]
    for card in range(47):  # the other cards, dealt one by one to the shortest pile
        if card not in pot and not any(card in p for p in top):
            min(piles, key=len).append(card)

    def setup(seed, players, options):
        assert players == 3
        return ShopBattle().start_from(seed, piles, pot, chooser=0, options=options, rules=rules)
    return setup


@pytest.mark.parametrize("rules,last_round", [(1, 10), (2, 12)])
async def test_capped_game_with_bataille_collectors_and_hyper_u(e2e, rules, last_round):
    # round cap 10 (docs/rules/shop-battle.md, "End of the game"): rules 1 stop right after round
    # 10; rules 2 (RULINGS S6) finish the lap in progress: round 10 opens the fourth lap of three
    # choosers, so the game ends after round 12, everyone having chosen 4 times
    world = await e2e(deal={"shop-battle": scripted_deal(rules)})
    alice = world.member("alice")
    tid = await open_table(world, alice, "shop-battle", ai=2, options={"round_cap": "10"})
    service = world.bot
    table = await service.hall.table(tid)
    assert table.seat_of(alice.id) == 0 and table.state.rules == rules
    await take_turn(world, alice, tid, random.Random(0), code="t.1")  # HYPER U: peek at AI 1's pile
    await take_turn(world, alice, tid, random.Random(0), code="c.year.hi")
    events = await service.records.recent_events(tid, 10_000)
    bataille = next(e for e in events if e.key == "sb.ev.bataille")
    assert bataille.params["players"] == [0, 1] and bataille.params["value"] == 1931
    assert next(e for e in events if e.key == "sb.ev.win").params == {"winner": 0, "cards": 8}

    rng = random.Random(1)
    for _ in range(500):
        table = await service.hall.table(tid)
        if table.row.status != "running":
            break
        await take_turn(world, alice, tid, rng)
    table = await service.hall.table(tid)
    assert table.row.status == "finished" and table.state.round == last_round
    events = await service.records.recent_events(tid, 10_000)
    keys = [e.key for e in events]
    collectors = [(e.params["player"], e.params["card"]) for e in events if e.key == "sb.ev.collector"]
    assert collectors[:2] == [(0, "HYPER U"), (2, "Lèche-Vitrines")]
    assert next(e for e in events if e.key == "sb.ev.cap").params == {"round": last_round}
    # the laps stayed regular: nobody was put out, no reverse or skip was revealed
    assert not {"sb.ev.out", "sb.ev.reverse", "sb.ev.skip"} & set(keys)
    choosers = [e.params["chooser"] for e in events if e.key == "sb.ev.announce"]
    assert choosers == [0, 2, 1] * (last_round // 3) + [0, 2, 1][: last_round % 3]

    # the HYPER U peek reached alice alone, and disappears after its 10 seconds
    flashes = [m for m in world.ephemeral_for(alice, include_deleted=True) if "disappears in 10 seconds" in m.text()]
    assert len(flashes) == 1 and flashes[0].viewer_id == alice.id
    assert not flashes[0].deleted
    await world.advance(11)
    assert flashes[0].deleted
    assert not said(world.all_public_text(), "panel.flash", text="")
    board = board_of(world, tid)
    # past the cap the title says the lap after the cap was finished (not "round 12/10")
    title = "round 10/10" if last_round == 10 else f"round {last_round} (after the 10-round cap: lap finished)"
    assert title in board.text().lower()


async def test_custom_decks_admin_only_validated_and_offered_in_the_lobby(e2e):
    world = await e2e(seeds=[3])
    root = world.member("root", admin=True)
    alice = world.member("alice")
    service = world.bot

    # a member without Manage Server does not even see the command…
    with pytest.raises(CommandNotVisible):
        await world.slash(alice, "deck upload", file=world.file("deck.json", EXAMPLE.read_text()))
    # …and is refused by the bot's own check if an admin lets them see it
    world.allow_command("deck", alice)
    res = await world.slash(alice, "deck upload", file=world.file("deck.json", EXAMPLE.read_text()))
    assert res.ephemeral and "permission" in res.response.text()
    assert await service.decks.of(world.guild_id, "shop-battle") == []

    # hostile files are refused with every problem, and nothing is stored
    hostile = json.loads(EXAMPLE.read_text())
    hostile["cards"][1]["name"] = "**@everyone** <@1>"
    hostile["cards"][2]["name"] = hostile["cards"][3]["name"]
    hostile["cards"][4]["year_founded"] = "1979"
    hostile["cards"][5]["street_number"] = 10**9
    res = await world.slash(root, "deck upload", file=world.file("deck.json", json.dumps(hostile)))
    text = res.response.text()
    assert says("deck.refused_header") in text
    assert all(says("deck.where_card", n=n) in text for n in (2, 4, 5, 6))
    assert "@everyone" not in text
    res = await world.slash(root, "deck upload", file=world.file("big.json", " " * (300 * 1024)))
    assert said(res.response.text(), "deck.too_large")
    res = await world.slash(root, "deck upload", file=world.file("x.json", "{not json"))
    assert "not valid JSON" in res.response.text()  # the parser's detail (engine/shop_battle/deck.py), not a catalog text
    assert await service.decks.of(world.guild_id, "shop-battle") == []

    # a valid deck is stored and summarised
    res = await world.slash(root, "deck upload", file=world.file("deck.json", EXAMPLE.read_text()))
    assert res.ephemeral and says("deck.stored", name="Rue de la Paix") in res.response.text()
    decks = await service.decks.of(world.guild_id, "shop-battle")
    assert [name for _, name in decks] == ["Rue de la Paix"]
    listing = await world.slash(root, "deck list")
    assert "Rue de la Paix" in listing.response.text()

    # players pick it in the lobby; the game is dealt from it
    res = await world.slash(alice, "play", game="shop-battle")
    lobby = res.response
    tid = lobby_id(lobby)
    deck_select = next(s for s in lobby.selects if "deck=default" in s.option_values)
    assert f"deck={decks[0][0]}" in deck_select.option_values
    await world.select(alice, lobby, deck_select.custom_id, [f"deck={decks[0][0]}"])
    assert "Rue de la Paix" in lobby.text()
    await world.click(alice, lobby, f"se:l:{tid}:ai+")
    await world.click(alice, lobby, f"se:l:{tid}:start")
    table = await service.hall.table(tid)
    assert table.game.view(table.state, None).deck_name == "Rue de la Paix"
    assert table.game.dump_state(table.state)["cards"]  # the cards are copied into the game

    # removing the deck does not break the running table
    res = await world.slash(root, "deck remove", name="Rue de la Paix")
    assert "removed" in res.response.text()
    assert await service.decks.of(world.guild_id, "shop-battle") == []
    rng = random.Random(2)
    assert await take_turn(world, alice, tid, rng) or (await service.hall.table(tid)).to_act()
