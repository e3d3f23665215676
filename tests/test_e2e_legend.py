"""Moonshine's legend on demand: the board has a "Legend" button (pictures on) that answers the
clicker alone with the legend picture; the board and the panels leave the legend out. A game
whose pictures carry their own legend has no such button."""

from __future__ import annotations

import io

from PIL import Image

from bot.i18n import Translator
from bot.render import render_legend
from tests.e2e import board_of, open_table
from tests.pictures import pixels


async def test_the_legend_button_shows_the_legend_to_the_clicker_alone(e2e):
    world = await e2e(seeds=[3], pictures=True)
    alice = world.member("alice")
    tid = await open_table(world, alice, "moonshine", ai=2)
    board = board_of(world, tid)
    assert f"se:b:{tid}:legend" in board.custom_ids
    assert board.component(f"se:b:{tid}:legend").label == Translator("en")("board.legend")
    res = await world.click(alice, board, f"se:b:{tid}:legend")
    assert res.ephemeral
    att = res.response.attachment("legend.png")
    assert att is not None
    png = world.attachment_bytes(att)
    assert pixels(png) == pixels(render_legend("moonshine", "en", cache=None))
    assert Image.open(io.BytesIO(png)).height <= 600


async def test_no_legend_button_where_the_pictures_carry_their_legend_or_are_off(e2e):
    world = await e2e(seeds=[3], pictures=True)
    alice = world.member("alice")
    tid = await open_table(world, alice, "gang-of-dice", ai=1)
    assert f"se:b:{tid}:legend" not in board_of(world, tid).custom_ids
    await e2e.restart(pictures=False)
    tid = await open_table(world, alice, "moonshine", ai=1)
    assert f"se:b:{tid}:legend" not in board_of(world, tid).custom_ids


async def test_a_server_that_turned_pictures_off_gets_no_legend_button(e2e):
    """The bot draws pictures, but this server turned them off in /settings: its Moonshine
    board is text, without the pictures' Legend button."""
    world = await e2e(seeds=[3], pictures=True)
    root, alice = world.member("root", admin=True), world.member("alice")
    settings = (await world.slash(root, "settings")).response
    await world.click(root, settings, "se:c:pictures")
    assert (await world.bot.db.guild_settings(world.guild_id)).pictures is False
    tid = await open_table(world, alice, "moonshine", ai=2)
    board = board_of(world, tid)
    assert board.image_urls == [] and f"se:b:{tid}:legend" not in board.custom_ids
    assert f"se:b:{tid}:panel" in board.custom_ids
