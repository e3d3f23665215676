"""The Discord side's structure, end to end: one cog per game chosen by ENABLED_GAMES, ``/play``
listing the loaded games, tables of a disabled game finishing, custom_ids unchanged, the command
tree's error handler."""

from __future__ import annotations

import random

import discord

from bot.client import SpeakeasyTree
from bot.games import GAMES
from bot.i18n import Translator
from bot.service import ServiceError
from bot.ui import Block, Button, NumberPrompt, Panel, Select, SelectOption
from cogs.base import GameCog
from cogs.components import (
    DYNAMIC_ITEMS,
    ActionButton,
    BoardButton,
    LobbyButton,
    LobbyOptionSelect,
    NumberModalId,
    PanelSelect,
    PromptButton,
    panel_components,
)
from tests.catalog import says
from tests.e2e import board_of, lobby_id, open_table, take_turn


async def play_choices(world, member) -> list[str]:
    """The games ``/play`` offers ``member``'s server (its autocomplete, nothing typed)."""
    return [c["value"] for c in await world.autocomplete(member, "play", "game", "")]


async def test_every_game_is_its_own_cog_and_play_lists_them(e2e):
    world = await e2e()
    cogs = {name: (cog.game, type(cog).__name__) for name, cog in world.bot.cogs.items() if isinstance(cog, GameCog)}
    assert cogs == {key: (key, spec.cog.split(":")[1] if spec.cog else "GameCog") for key, spec in GAMES.items()}
    assert cogs["shop-battle"] == ("shop-battle", "ShopBattleCog")  # the game with a command of its own
    assert set(world.bot.extensions) >= {"cogs.games", "cogs.lobby", "cogs.info"}
    assert await play_choices(world, world.member("alice")) == list(GAMES)
    assert [c["name"] for c in world.synced_commands()].count("play") == 1
    assert "deck" in [c["name"] for c in world.synced_commands()]


async def test_enabled_games_are_the_default_games_of_a_server(e2e):
    world = await e2e(enabled_games="moonshine, gang-of-dice")
    # every game's cog is loaded: each server chooses its own games (/settings)
    assert [cog.game for cog in world.bot.cogs.values() if isinstance(cog, GameCog)] == list(GAMES)
    assert set(world.bot.extensions) == {"cogs.games", "cogs.lobby", "cogs.info",
                                         "cogs.admin", "cogs.community", "cogs.help"}
    alice = world.member("alice")
    assert await play_choices(world, alice) == ["gang-of-dice", "moonshine"]
    names = [c["name"] for c in world.synced_commands()]
    assert {"leaderboard", "stats", "rules", "deck", "settings", "season"} <= set(names)
    res = await world.slash(alice, "play", game="shop-battle")  # typed by hand: refused
    t = Translator("en")
    assert res.ephemeral and res.response.text() == t("err.game_not_enabled", game=t("game.shop-battle.name"))
    res = await world.slash(alice, "play", game="moonshine")
    assert res.response.public and "Moonshine" in res.response.cards[0]["title"]


async def test_a_disabled_game_finishes_its_running_table_but_refuses_new_lobbies(e2e):
    world = await e2e(seeds=[4])
    alice = world.member("alice")
    tid = await open_table(world, alice, "three-player-moon", ai=2)
    old_lobby = (await world.slash(alice, "play", game="three-player-moon")).response  # an open lobby too
    # the deployment now offers Gang of Dice only; Discord still shows the old command list
    await e2e.restart(enabled_games="gang-of-dice", sync_commands=False)
    assert world.bot.get_cog("three-player-moon") is not None  # loaded, but no longer offered here
    res = await world.slash(alice, "play", game="three-player-moon")
    assert res.ephemeral and says("err.game_not_enabled", game=says("game.three-player-moon.name")) in res.response.text()
    lobbies = [m for m in world.channel_messages() if any(c.startswith("se:l:") for c in m.custom_ids)]
    assert len(lobbies) == 2  # the first table's lobby and the open one: no new lobby was posted
    # the running table's buttons keep working until the end
    rng = random.Random(1)
    for _ in range(2000):
        table = await world.bot.hall.table(tid)
        if table.row.status != "running":
            break
        await take_turn(world, alice, tid, rng)
    assert (await world.bot.hall.table(tid)).row.status == "finished"
    res = await world.click(alice, board_of(world, tid), f"se:b:{tid}:rules")
    assert res.ephemeral and res.response.cards
    # the lobby opened before still answers (it is not a new lobby)
    otid = lobby_id(old_lobby)
    res = await world.click(alice, old_lobby, f"se:l:{otid}:ai+")
    assert res.acknowledged and "🤖" in old_lobby.text()


def test_custom_ids_keep_their_format_and_parse_into_typed_fields():
    """Buttons already posted in Discord must keep working: the formats are byte for byte those
    of the previous version, and each kind's template parses its fields."""
    assert LobbyButton(12, "ai+").custom_id == "se:l:12:ai+"
    assert BoardButton(12, "panel").custom_id == "se:b:12:panel"
    assert ActionButton(12, 7, "c1").custom_id == "se:a:12:7:c1"
    assert PromptButton(12, 7, (1, 2)).custom_id == "se:p:12:7:1.2"
    assert LobbyOptionSelect(12, 0).custom_id == "se:o:12:0"
    assert PanelSelect(12, 7, 3).custom_id == "se:s:12:7:3"
    assert NumberModalId(12, 7, (1, 2)).custom_id == "se:m:12:7:1.2"
    assert NumberModalId.parse("se:m:12:7:1.2") == NumberModalId(12, 7, (1, 2))
    assert NumberModalId.parse("se:m:12:x:1.2") is None
    templates = {cls: cls.__discord_ui_compiled_template__ for cls in DYNAMIC_ITEMS}
    assert ActionButton not in templates  # routed by the lobby cog's listener (cogs.components)
    templates[ActionButton] = ActionButton.TEMPLATE
    cases = {"se:l:12:join": LobbyButton, "se:l:3:ai-": LobbyButton, "se:b:12:abandon": BoardButton,
             "se:a:12:7:pick.3.5": ActionButton, "se:a:1:0:dis.c12-s3_x": ActionButton,
             "se:p:12:7:0.4": PromptButton, "se:o:12:2": LobbyOptionSelect, "se:s:12:7:1": PanelSelect}
    for custom_id, kind in cases.items():
        # exactly one class answers each custom_id (discord.py dispatches to every match)
        assert [cls for cls, t in templates.items() if t.fullmatch(custom_id)] == [kind], custom_id
    for bad in ("se:l:x:join", "se:a:12:7:", "se:m:1:2:0.0", "se:a:١٢:7:c1", "xx:l:1:join"):
        assert not any(t.fullmatch(bad) for t in templates.values()), bad
    m = ActionButton.__discord_ui_compiled_template__.fullmatch("se:a:12:7:pick.3.5")
    assert m is not None and (int(m["table"]), int(m["version"]), m["code"]) == (12, 7, "pick.3.5")
    assert ActionButton.TEMPLATE.pattern == ActionButton.__discord_ui_compiled_template__.pattern
    b = ActionButton.parse("se:a:1:0:dis.c12-s3_x")
    assert b is not None and (b.table_id, b.version, b.code) == (1, 0, "dis.c12-s3_x")
    assert ActionButton.parse("se:a:١٢:7:c1") is None and ActionButton.parse("se:p:12:7:0.4") is None


def test_panel_components_carry_the_typed_kinds():
    prompt = NumberPrompt(title="Bid", label="How many", minimum=1, maximum=9, template="bid.{n}")
    panel = Panel(card=Block(title="x"), rows=(
        (Button("Pass", code="pass"), Button("Bid", prompt=prompt)),
        (Select(placeholder="Pick", options=(SelectOption("A", "a"), SelectOption("B", "b"))),),
    ))
    rows = panel_components(panel, 5, 9)
    kinds = [(type(i).__name__, i.custom_id) for row in rows for i in row.children]  # type: ignore[attr-defined]
    assert kinds == [("ActionButton", "se:a:5:9:pass"), ("PromptButton", "se:p:5:9:0.1"),
                     ("PanelSelect", "se:s:5:9:1")]


async def test_an_action_click_is_routed_once_and_no_panel_view_is_kept(e2e):
    """Action buttons are routed by the lobby cog's interaction listener, not by discord.py's
    dynamic items (cogs.components): a click is submitted once and answered once, whether the
    panel was drawn by this process or before a restart, and discord.py keeps no panel view
    (which would also register the action button class behind the router's back)."""
    world = await e2e(seeds=[5])
    alice, bob = world.member("alice"), world.member("bob")
    tid = await open_table(world, alice, "gang-of-dice", members=[bob])
    svc = world.bot
    submits: list[tuple[int, str]] = []
    real_submit = svc.tables.submit

    async def counting_submit(table_id, user_id, version, code):
        submits.append((table_id, code))
        return await real_submit(table_id, user_id, version, code)

    svc.tables.submit = counting_submit  # type: ignore[method-assign]
    rng = random.Random(3)
    for _ in range(4):
        table = await svc.hall.table(tid)
        first = next(m for m in (alice, bob) if table.seat_of(m.id) in table.to_act())
        before = len(submits)
        assert await take_turn(world, first, tid, rng)
        assert len(submits) == before + 1
    dynamic, bound = world.bot_persistent_items()
    assert ActionButton not in dynamic
    assert not any(isinstance(i, ActionButton) for i in bound)
    # after a restart, a panel drawn by the old process is still answered (from its custom_id)
    table = await svc.hall.table(tid)
    first = next(m for m in (alice, bob) if table.seat_of(m.id) in table.to_act())
    res = await world.click(first, board_of(world, tid), f"se:b:{tid}:panel")
    await world.restart_bot()
    code = next(b.custom_id for b in res.response.buttons
                if b.custom_id.startswith(f"se:a:{tid}:") and not b.disabled)
    answered = await world.click(first, res.response, code)
    assert answered.kind == "update" and answered.acknowledged
    assert (await world.bot.hall.table(tid)).version == table.version + 1


async def test_tree_errors_are_answered_privately_and_logged(e2e, caplog):
    world = await e2e()
    alice = world.member("alice")
    assert isinstance(world.bot.tree, SpeakeasyTree)

    @world.bot.tree.command(name="boom", description="fails")
    async def boom(interaction: discord.Interaction) -> None:
        raise RuntimeError("secret seed 1234")

    @world.bot.tree.command(name="nope", description="refuses")
    async def nope(interaction: discord.Interaction) -> None:
        raise ServiceError("err.not_seated")

    await world.bot.tree.sync()
    with world.expect_errors(RuntimeError, match="secret seed"):
        res = await world.slash(alice, "boom")
    text = res.response.text()
    assert res.ephemeral and says("err.internal") in text and "1234" not in text
    assert any("secret seed 1234" in str(r.exc_info[1]) for r in caplog.records if r.exc_info)
    with world.expect_errors(ServiceError):
        res = await world.slash(alice, "nope")
    assert res.ephemeral and says("err.not_seated") in res.response.text()


def test_network_errors_are_recognised_without_importing_aiohttp_in_bot():
    import aiohttp

    from bot.client import is_network_error

    assert is_network_error(OSError("no route to host"))
    assert is_network_error(TimeoutError())
    assert is_network_error(aiohttp.ServerDisconnectedError())
    assert not is_network_error(ValueError("a bug"))


async def test_a_bot_that_links_pages_served_elsewhere_gives_never_saved_servers_the_default_pages(e2e):
    """WEB_BASE_URL set without WEB_PORT (another process serves the pages): a server that
    never saved its settings has the default pages (private), as the links posted say."""
    world = await e2e(web_base_url="https://pages.example")
    assert world.bot.communities.defaults.web == "private"
    assert (await world.bot.communities.community(world.guild_id)).web == "private"
