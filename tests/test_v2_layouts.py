"""Components V2 on Discord: every message within Discord's V2 limits at the largest table of
every game (boards with and without their picture, panels, results, in both languages, at every
step of a playout), the conformance check of the harness itself, a board posted as an embed by
an earlier version turned into a V2 message at its next edit, and game names in ``/play``."""

from __future__ import annotations

import random
from dataclasses import replace
from types import SimpleNamespace

import discord
import pytest

from bot import compose
from bot.games import GAMES
from bot.i18n import Translator
from bot.service import TableSnapshot
from bot.ui import Board
from cogs.boards import board_buttons
from cogs.layout import card_message
from cogs.panels import panel_fields
from cogs.pictures import BoardPictures, Picture
from engine.core import Event
from storage.base import SeatRow, TableRow
from tests.conformance import random_playout
from tests.e2e import open_table, take_turn
from tests.harness.conformance import body_violations, modal_violations, violations


def payload(fields: dict) -> dict:
    """The message body discord.py sends for ``fields`` (content, embeds, components, flags)."""
    view = fields["view"]
    return {"content": fields.get("content"), "embeds": [], "components": view.to_components(),
            "flags": (1 << 15) if view.has_components_v2() else 0}


def snapshot(key: str, state, players: int, lang: str, status: str = "running") -> TableSnapshot:
    row = TableRow(id=123456789, guild_id=1, channel_id=1, thread_id=2, lobby_message_id=None, board_message_id=None,
                   game=key, options={}, status=status, host_user_id=1, lang=lang, seed=1, version=state.version,
                   state=None, created_at=0, updated_at=0)
    seats = [SeatRow(0, 10**17, "A very long display name indeed, 32", False)]
    seats += [SeatRow(s, None, f"AI {s}", True, ai_level="strong") for s in range(1, players)]
    return TableSnapshot(row, seats, state)


@pytest.mark.parametrize("key", list(GAMES))
@pytest.mark.parametrize("lang", ["en", "fr"])
def test_every_message_of_the_largest_table_keeps_the_v2_limits(key, lang):
    """At the game's largest table, at every step of a playout: the board (text only, and with
    its picture beside the short text), every seat's panel (text and picture) and the results
    are V2 messages within 40 components and 4,000 characters, with unique custom_ids."""
    game = GAMES[key].game
    players = game.max_players
    trace = random_playout(game, players, seed=5)
    t = Translator(lang)
    pictures = BoardPictures(lambda: True)
    picture = Picture(b"png", "k", "board.png")
    events: list[Event] = []
    step = max(1, len(trace.states) // 40)
    for i, state in list(enumerate(trace.states))[::step] + [(len(trace.states) - 1, trace.states[-1])]:
        events = [*events, *(trace.events[i - 1] if i else [])][-60:]
        done = game.outcome(state) is not None
        table = snapshot(key, state, players, lang, "finished" if done else "running")
        board = compose.board(table, events, t)
        rows = board_buttons(table, t)
        for shown in (None, picture):
            for new in (True, False):
                body = payload(pictures.content(table.id, board, t, shown, new=new, rows=rows))
                assert body_violations(body, v2_only=True) == [], (i, shown, new)
        for seat in range(players):
            panel = compose.panel(table, seat, t, "\n".join(["notice"] * 40))
            for shown in (None, Picture(b"png", "k", "panel-k.png")):
                body = payload(panel_fields(panel, table, shown))
                assert body_violations(body, v2_only=True) == [], (i, seat, shown)
        if done:
            body = payload(card_message(compose.results_block(table, game.outcome(state), t)))
            assert body_violations(body, v2_only=True) == []


def test_the_conformance_check_finds_each_breach():
    """The harness's check names a follow-up completing a "thinking" defer, an embed beside V2
    components, a legacy message, too many components or too much text, duplicate custom_ids
    and a text input outside a Label; the answers the bot gives pass it."""
    def entry(method, path, body):
        return SimpleNamespace(method=method, path=path, json=body)

    v2 = {"flags": 1 << 15, "components": [{"type": 10, "content": "hi"}]}
    defer = entry("POST", "/interactions/1/tok/callback", {"type": 5})
    assert violations([defer, entry("POST", "/webhooks/9/tok", v2)])
    assert violations([defer, entry("PATCH", "/webhooks/9/tok/messages/@original", v2)]) == []
    assert violations([defer, entry("PATCH", "/webhooks/9/tok/messages/@original", v2),
                       entry("POST", "/webhooks/9/tok", v2)]) == []  # a second message is a follow-up
    assert body_violations({**v2, "embeds": [{"title": "x"}]}, v2_only=True)
    assert body_violations({"content": "old", "components": []}, v2_only=True) == ["not a Components V2 message"]
    many = {"flags": 1 << 15, "components": [{"type": 10, "content": "x" * 100}] * 41}
    assert len(body_violations(many, v2_only=True)) == 2
    twice = {"type": 1, "components": [{"type": 2, "custom_id": "a"}, {"type": 2, "custom_id": "a"}]}
    assert body_violations({"flags": 1 << 15, "components": [twice]}, v2_only=True)
    assert modal_violations({"components": [{"type": 1, "components": [{"type": 4, "custom_id": "n"}]}]})
    assert modal_violations({"components": [{"type": 18, "label": "n", "component": {"type": 4}}]}) == []


async def test_a_board_posted_as_an_embed_becomes_v2_at_its_next_edit(e2e):
    """A board an earlier version posted as an embed: Discord lets an edit set the V2 flag (the
    content cleared, the embeds an empty array), so the next board edit turns it into the V2
    board, buttons and all."""
    world = await e2e(seeds=[3])
    alice, bob = world.member("alice"), world.member("bob")
    tid = await open_table(world, alice, "gang-of-dice", members=[bob])
    table = await world.bot.hall.table(tid)
    thread = world.bot.get_channel(table.row.thread_id)
    old = await thread.send(embed=discord.Embed(title="Gang of Dice", description="the board of an earlier version"))
    await world.bot.tables.set_messages(tid, board_message_id=old.id)
    e2e.conformance_since = len(world.http_log)  # the embed above is the earlier version's request
    rng = random.Random(1)
    while not (await take_turn(world, alice, tid, rng) or await take_turn(world, bob, tid, rng)):
        pass
    await world.settle()
    board = world.message(old.id)
    assert board.versions[0].embeds and not board.versions[0].v2
    assert board.v2 and not board.embeds and not board.content
    assert f"se:b:{tid}:panel" in board.custom_ids and "Gang of Dice" in board.cards[0]["title"]


async def test_play_offers_game_names_in_every_language(e2e):
    """``/play``'s autocomplete offers the games' names (never their keys), in the member's
    language."""
    world = await e2e()
    for lang, locale in (("en", "en-US"), ("fr", "fr")):
        member = world.member(f"m-{lang}", locale=locale)
        choices = await world.autocomplete(member, "play", "game", "")
        assert {c["value"] for c in choices} == set(GAMES)
        for choice in choices:
            assert choice["name"] == Translator(lang)(f"game.{choice['value']}.name") != choice["value"]


def test_a_board_without_its_log_lines_still_reads(monkeypatch):
    """The text board keeps the 4,000 characters: fields go from the end first."""
    from bot.ui import Block, Field, block_texts

    card = Block("T", "d", tuple(Field(f"f{i}", "v" * 900) for i in range(8)), footer="foot")
    texts = block_texts(card)
    assert sum(map(len, texts)) <= 4000 and "**f0**" in texts[1] and "**f7**" not in texts[1]
    assert texts[-1] == "-# foot"
    board = Board(card=replace(card, fields=()), log=())
    assert board.card.title == "T"
