"""User text cannot turn the text around it: a display name with a right-to-left override (or
any bidirectional control) loses it in messages and pictures, and a right-to-left name is
wrapped in Unicode isolates in messages, so the board, the lobby and the results read in order."""

from __future__ import annotations

import pytest

from bot import compose
from bot.house import House
from bot.i18n import Translator
from storage.factory import open_store
from tests.simgame import register_pick
from tests.test_service import FakeClock

RLO, PDF, FSI, PDI = "\u202e", "\u202c", "\u2068", "\u2069"
HEBREW = "\u05d3\u05e0\u05d4"  # "Dana"


@pytest.fixture
async def table(tmp_path):
    with register_pick():
        db = await open_store(tmp_path / "names.db")
        svc = House(db, clock=FakeClock(), seed_source=lambda: 1)
        t = await svc.lobbies.open(guild_id=1, channel_id=1, game="test-pick", host_user_id=1,
                                   host_name=f"Eve{RLO}niw sah", options={"rounds": 1})
        await svc.lobbies.join(t.id, 2, HEBREW + PDI)
        await svc.lobbies.add_ai(t.id, 1, ai_name=f"Bot{RLO}x")
        yield await svc.hall.table(t.id)
        await svc.tables.close()
        await db.close()


def _bidi_free(text: str) -> bool:
    return not any(c in text for c in (RLO, PDF, "\u202a", "\u202b", "\u202d", "\u2066", "\u2067", "\u200e", "\u200f"))


async def test_names_in_messages_lose_bidi_controls_and_right_to_left_names_are_isolated(table):
    t = Translator("en")
    ctx = compose.context(table, t, None)
    assert ctx.name(0) == "Eveniw sah"
    assert ctx.name(1) == FSI + HEBREW + PDI  # its own stray PDI removed, then isolated
    block = compose.lobby_block(table, t)
    text = "\n".join([block.title or "", block.description or "", *(f.value for f in block.fields)])
    assert "Botx" in text and _bidi_free(text)  # the AI player's name, as the lobby lists it
    for name in ctx.names:
        assert _bidi_free(name)
        assert name.count(FSI) == name.count(PDI) <= 1  # balanced: nothing leaks past the name


async def test_names_in_pictures_lose_every_bidi_control(table):
    names = compose.picture_names(table, Translator("fr"))
    assert names[0] == "Eveniw sah" and names[1] == HEBREW
    assert names[2].startswith("Botx")
    assert all(_bidi_free(n) and FSI not in n and PDI not in n for n in names)
