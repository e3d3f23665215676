"""Shop Battle end to end through discord.py's dispatch: a capped game of one member against two
AI players (with a bataille, Collectors and the self-deleting HYPER U peek), and custom decks."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from tests.e2e import board_of, lobby_id, open_table, take_turn
from tests.harness import CommandNotVisible

EXAMPLE = Path(__file__).parents[1] / "docs" / "decks" / "example-deck.json"


async def test_capped_game_with_bataille_collectors_and_hyper_u(e2e):
    # seed 20 (found by AI simulation): a bataille, Collectors, and a HYPER U owned by seat 0
    world = await e2e(seeds=[20])
    alice = world.member("alice")
    tid = await open_table(world, alice, "shop-battle", ai=2, options={"round_cap": "10"})
    service = world.bot.service
    rng = random.Random(1)
    for _ in range(500):
        table = await service.table(tid)
        if table.row.status != "running":
            break
        await take_turn(world, alice, tid, rng)
    table = await service.table(tid)
    assert table.row.status == "finished" and table.state.round <= 10
    keys = [e.key for e in await service.recent_events(tid, 10_000)]
    assert "sb.ev.bataille" in keys and "sb.ev.collector" in keys and "sb.ev.cap" in keys

    # the HYPER U peek reached alice alone, and disappears after its 10 seconds
    flashes = [m for m in world.ephemeral_for(alice, include_deleted=True) if "disappears in 10 seconds" in m.text()]
    assert len(flashes) == 1 and flashes[0].viewer_id == alice.id
    assert not flashes[0].deleted
    await world.advance(11)
    assert flashes[0].deleted
    assert "disappears in" not in world.all_public_text()
    board = board_of(world, tid)
    assert "Round 10" in board.text() or "round 10" in board.text()


async def test_custom_decks_admin_only_validated_and_offered_in_the_lobby(e2e):
    world = await e2e(seeds=[3])
    root = world.member("root", admin=True)
    alice = world.member("alice")
    service = world.bot.service

    # a member without Manage Server does not even see the command…
    with pytest.raises(CommandNotVisible):
        await world.slash(alice, "deck upload", file=world.file("deck.json", EXAMPLE.read_text()))
    # …and is refused by the bot's own check if an admin lets them see it
    world.allow_command("deck", alice)
    res = await world.slash(alice, "deck upload", file=world.file("deck.json", EXAMPLE.read_text()))
    assert res.ephemeral and "permission" in res.response.text()
    assert await service.decks(world.guild_id, "shop-battle") == []

    # hostile files are refused with every problem, and nothing is stored
    hostile = json.loads(EXAMPLE.read_text())
    hostile["cards"][1]["name"] = "**@everyone** <@1>"
    hostile["cards"][2]["name"] = hostile["cards"][3]["name"]
    hostile["cards"][4]["year_founded"] = "1979"
    hostile["cards"][5]["street_number"] = 10**9
    res = await world.slash(root, "deck upload", file=world.file("deck.json", json.dumps(hostile)))
    text = res.response.text()
    assert "not stored" in text
    assert "card 2" in text and "card 4" in text and "card 5" in text and "card 6" in text
    assert "@everyone" not in text
    res = await world.slash(root, "deck upload", file=world.file("big.json", " " * (300 * 1024)))
    assert "too large" in res.response.text()
    res = await world.slash(root, "deck upload", file=world.file("x.json", "{not json"))
    assert "not valid JSON" in res.response.text()
    assert await service.decks(world.guild_id, "shop-battle") == []

    # a valid deck is stored and summarised
    res = await world.slash(root, "deck upload", file=world.file("deck.json", EXAMPLE.read_text()))
    assert res.ephemeral and "Deck stored: Rue de la Paix" in res.response.text()
    decks = await service.decks(world.guild_id, "shop-battle")
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
    table = await service.table(tid)
    assert table.game.view(table.state, None).deck_name == "Rue de la Paix"
    assert table.game.dump_state(table.state)["cards"]  # the cards are copied into the game

    # removing the deck does not break the running table
    res = await world.slash(root, "deck remove", name="Rue de la Paix")
    assert "removed" in res.response.text()
    assert await service.decks(world.guild_id, "shop-battle") == []
    rng = random.Random(2)
    assert await take_turn(world, alice, tid, rng) or (await service.table(tid)).to_act()
