"""The fifth game (``tests/fifth_game``, High Card) follows ``docs/ARCHITECTURE.md``, "How to add
a game", end to end: its engine passes the shared conformance suite, its presenter and catalogs
fit the contracts, and a full game runs through Discord (offline harness) from ``/play`` to
``/leaderboard``, with the hidden hands never in a public message.

Nothing in the product knows the game: the ``high_card`` fixture registers it for each test, in
one line (:func:`bot.games.register` of :data:`tests.fifth_game.spec.HIGH_CARD`).
"""

from __future__ import annotations

import json
import logging
import random
import subprocess
import sys
from pathlib import Path

import pytest

from bot.games import GAMES, register
from bot.i18n import Translator, catalog, placeholders
from bot.ui import check_block_limits, check_panel_limits
from engine.core import Event, IllegalAction
from tests import test_conformance, test_i18n
from tests.catalog import said, says
from tests.conformance import check_game
from tests.e2e import board_of, lobby_id, take_turn
from tests.fifth_game.high_card import KEEP, REDRAW, HighCard, Play, scripted_setup
from tests.fifth_game.presenter import block_text
from tests.fifth_game.spec import HIGH_CARD

ROOT = Path(__file__).resolve().parent.parent
KEY = HIGH_CARD.key


@pytest.fixture
def high_card():
    """High Card registered for this test only."""
    with register(HIGH_CARD):
        yield HIGH_CARD.game


def catalog_part(lang: str) -> dict[str, str]:
    """The fifth game's own catalog entries in ``lang``."""
    return json.loads(HIGH_CARD.catalogs[lang].read_text(encoding="utf-8"))


# --- engine ---------------------------------------------------------------------------------------


def test_registry_entry_like_every_game(high_card):
    test_conformance.test_registry_entry(KEY)  # the same checks as for the four real games


@pytest.mark.parametrize("players", [2, 3])
@pytest.mark.parametrize("options", HighCard.conformance_options)
@pytest.mark.parametrize("seed", test_conformance.SEEDS)
def test_shared_conformance_suite(high_card, players, options, seed):
    trace = check_game(high_card, players, seed, options)
    assert trace.final.round == trace.final.rounds == options.get("rounds", 3)


def test_a_scripted_game_scores_the_highest_revealed_card():
    game = HighCard()
    state = scripted_setup([(3, 9, 14), (5, 10, 12)], deck=(15, 1))
    assert game.to_act(state) == {0, 1}  # the simultaneous step
    with pytest.raises(IllegalAction):
        game.apply(state, {0: Play(5), 1: Play(10)})  # 5 is seat 1's card, not seat 0's
    with pytest.raises(IllegalAction):
        game.apply(state, {0: Play(9)})  # seat 1 has not chosen
    step = game.apply(state, {0: Play(9), 1: Play(10)})
    assert step.events == (Event("hc.reveal", {"cards": [9, 10]}),)
    state = step.state
    assert state.shown == (9, 10) and state.hands == ((3, 14), (5, 12))
    assert game.to_act(state) == {0}  # the turn-based step, from the leader (seat 0 in round 1)
    state = game.apply(state, {0: REDRAW}).state  # 9 -> the top card, 15
    assert state.shown == (15, 10) and state.deck == (1,)
    step = game.apply(state, {1: KEEP})
    assert step.events[-1] == Event("hc.round", {"round": 1, "winners": [0], "card": 15})
    state = step.state
    assert state.points == (1, 0) and state.round == 2 and state.shown == ()
    # round 2: seat 1 leads the decisions; seat 0 redraws the last card of the deck, a 1
    state = game.apply(state, {0: Play(3), 1: Play(12)}).state
    assert game.to_act(state) == {1}
    state = game.apply(state, {1: KEEP}).state
    assert game.legal_actions(state, 0) == (KEEP, REDRAW)
    state = game.apply(state, {0: REDRAW}).state
    assert state.points == (1, 1) and state.deck == ()
    # round 3: an empty deck allows no redraw; 14 beats 5
    state = game.apply(state, {0: Play(14), 1: Play(5)}).state
    assert game.legal_actions(state, 0) == (KEEP,)
    state = game.apply(state, {0: KEEP}).state
    step = game.apply(state, {1: KEEP})
    assert step.events[-1] == Event("hc.end", {"winners": [0], "points": [2, 1]})
    outcome = game.outcome(step.state)
    assert outcome is not None and outcome.ranks == (1, 2) and outcome.scores == (2, 1)
    assert not game.to_act(step.state)


def test_equal_points_share_the_place():
    game = HighCard()
    state = scripted_setup([(1, 2), (11, 12), (3, 4)])
    state = game.apply(state, {0: Play(2), 1: Play(11), 2: Play(4)}).state
    for seat in (0, 1, 2):
        state = game.apply(state, {seat: KEEP}).state
    state = game.apply(state, {0: Play(1), 1: Play(12), 2: Play(3)}).state
    for seat in (1, 2, 0):
        state = game.apply(state, {seat: KEEP}).state
    outcome = game.outcome(state)
    assert outcome is not None and outcome.ranks == (2, 1, 2) and outcome.scores == (0, 2, 0)


def test_a_seat_sees_its_hand_and_nobody_elses():
    game = HighCard()
    state = scripted_setup([(3, 9, 14), (5, 10, 12)], deck=(15, 1, 2))
    mine = game.view_json(state, 0)
    assert mine["hand"] == [3, 9, 14]
    text = json.dumps(game.view_json(state, 1)) + json.dumps(game.view_json(state, None))
    assert "14" not in text and "15" not in text  # seat 0's top card and the deck's
    assert "hand" not in game.view_json(state, None)


def test_scripted_setup_refuses_impossible_deals():
    for hands, deck in [([(1, 2)], ()), ([(1, 2), (3,)], ()), ([(1, 2), (2, 3)], ()), ([(1, 2), (3, 16)], ())]:
        with pytest.raises(ValueError):
            scripted_setup(hands, deck)


def test_the_engine_package_imports_nothing_of_discord_storage_or_bot():
    code = ("import sys, tests.fifth_game.high_card; "
            "bad = sorted(m for m in sys.modules if m.split('.')[0] in "
            "('discord', 'aiohttp', 'aiosqlite', 'PIL', 'bot', 'cogs', 'storage')); print(bad)")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


# --- presenter and catalogs -------------------------------------------------------------------------


def test_catalogs_have_the_same_keys_and_placeholders_and_take_no_product_key():
    en, fr = catalog_part("en"), catalog_part("fr")
    assert set(en) == set(fr), sorted(set(en) ^ set(fr))
    for key in en:
        assert placeholders(en[key]) == placeholders(fr[key]), key
    assert not set(en) & set(catalog("en")), "a fifth-game key shadows a product key"
    assert {f"game.{KEY}.name", f"game.{KEY}.rules"} <= set(en)


@pytest.mark.parametrize("check", [
    test_i18n.test_catalogs_have_same_keys_and_placeholders,
    test_i18n.test_every_message_is_well_formed_for_its_language,
    test_i18n.test_no_catalog_text_hedges_a_plural,
    test_i18n.test_every_registered_game_has_a_name_rules_and_score_unit_in_both_languages,
    lambda: test_i18n.test_no_rendered_text_shows_a_placeholder_or_a_selector(KEY),
], ids=["same_keys", "well_formed", "no_hedged_plural", "name_rules_score", "no_placeholder_left"])
def test_catalog_checks_like_every_game(high_card, check):
    check()  # the same checks as for the four real games, with High Card's texts merged in


def test_registration_adds_the_game_and_its_texts_and_takes_them_out_again():
    assert KEY not in GAMES and not Translator("fr").has(f"game.{KEY}.name")
    with register(HIGH_CARD) as spec:
        assert GAMES[KEY] is spec and list(GAMES)[-1] == KEY  # listed after the built-in games
        assert Translator("fr")(f"game.{KEY}.name") == "Carte haute"
        assert spec.presenter.key == KEY
        with pytest.raises(ValueError, match="already registered"):
            register(HIGH_CARD)
    assert KEY not in GAMES and f"game.{KEY}.name" not in catalog("en")


def test_a_game_whose_catalog_takes_a_key_of_another_is_refused(tmp_path):
    from bot.games import GameSpec
    from bot.presenters import Presenter

    for lang in ("en", "fr"):
        (tmp_path / lang).mkdir()
        (tmp_path / lang / "clash.json").write_text('{"game.moonshine.name": "Moonshine again"}', encoding="utf-8")
    clash = GameSpec(HighCard(), Presenter(), {lang: tmp_path / lang / "clash.json" for lang in ("en", "fr")})
    with pytest.raises(ValueError, match="duplicate i18n key 'game.moonshine.name'"):
        register(clash)
    assert KEY not in GAMES and catalog("en")["game.moonshine.name"] == "Moonshine"


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_every_event_board_and_panel_renders_within_discord_limits(high_card, lang):
    from tests.conformance import random_playout

    presenter = HIGH_CARD.presenter
    t = Translator(lang)
    from bot.presenters import RenderContext

    trace = random_playout(high_card, 3, 5, {})
    events = [e for evs in trace.events for e in evs] + list(high_card.opening_events(trace.states[0]))
    for state in trace.states:
        assert not check_block_limits(presenter.board(high_card.view(state, None), RenderContext(t, ("a", "b", "c"))))
        for seat in range(3):
            legal = tuple(high_card.encode(a) for a in high_card.legal_actions(state, seat))
            panel = presenter.panel(high_card.view(state, seat), legal, RenderContext(t, ("a", "b", "c"), seat))
            assert not check_panel_limits(panel)
            assert panel.codes() == set(legal)
    keys = {e.key for e in events}
    assert keys >= {"hc.dealt", "hc.reveal", "hc.round", "hc.end"}
    for e in events:
        line = presenter.event(e, RenderContext(t, ("a", "b", "c")))
        assert line != e.key and "{" not in line, (e, line)


# --- through Discord ----------------------------------------------------------------------------------


def hand_leaks(public: str, state, seats) -> list[str]:
    """The cards still in these seats' hands that appear in ``public`` (cards are unique: a card
    in a hand was never revealed)."""
    return [block_text(c) for s in seats for c in state.hands[s] if block_text(c) in public]


async def test_a_full_game_from_play_to_leaderboard(high_card, e2e):
    world = await e2e(seeds=[5], enabled_games=KEY)
    cogs = {name: type(c).__name__ for name, c in world.bot.cogs.items() if hasattr(c, "game")}
    assert cogs[KEY] == "GameCog"  # a game without commands of its own: the generic cog, named after it
    alice, bob = world.member("alice"), world.member("bob")
    # every game's cog is loaded; /play offers the server the games it offers (ENABLED_GAMES here)
    assert [c["value"] for c in await world.autocomplete(alice, "play", "game", "")] == [KEY]

    # /play, join, an AI, the rounds option from the lobby's select, Start
    lobby = (await world.slash(alice, "play", game=KEY)).response
    assert lobby.public and says("game.high-card.name") in lobby.cards[0]["title"]
    tid = lobby_id(lobby)
    await world.click(bob, lobby, f"se:l:{tid}:join")
    await world.click(alice, lobby, f"se:l:{tid}:ai+")
    await world.select(alice, lobby, f"se:o:{tid}:0", ["rounds=2"])
    assert "2 rounds" in lobby.text()
    await world.click(alice, lobby, f"se:l:{tid}:start")
    service = world.bot
    table = await service.hall.table(tid)
    assert table.row.status == "running" and table.state.rounds == 2
    members = {table.seat_of(alice.id): alice, table.seat_of(bob.id): bob}
    board = board_of(world, tid)
    assert says("hc.board.round", n=1, of=2) in board.text() and says("hc.face_down") in board.text()

    # the simultaneous step: the AI has chosen; alice's choice is buffered, secret, changeable
    assert sorted(table.waiting_for()) == sorted(members)
    a_seat = table.seat_of(alice.id)
    panel = (await world.click(alice, board, f"se:b:{tid}:panel")).response
    assert said(panel.text(), "hc.dealt")  # the private opening event, in her panel only
    assert hand_leaks(world.private_text_for(alice), table.state, [a_seat])  # the check can see cards
    low, high = table.state.hands[a_seat][0], table.state.hands[a_seat][-1]
    await world.click(alice, panel, f"se:a:{tid}:{table.version}:p{low}")
    await world.click(alice, panel, f"se:a:{tid}:{table.version}:p{high}")  # changed her mind
    assert says("panel.buffered") in panel.text() and block_text(high) in panel.text()
    table = await service.hall.table(tid)
    assert table.pending[a_seat] == f"p{high}" and table.version == 0
    await world.settle()
    assert said(board.text(), "board.waiting_for", names="bob")
    public = world.new_public_text()
    assert not hand_leaks(public, table.state, members), "a hidden card reached a public message"

    # then everyone plays through their panels until the end; hands never leak
    rng = random.Random(2)
    for _ in range(200):
        table = await service.hall.table(tid)
        if table.row.status != "running":
            break
        acted = False
        for member in members.values():
            acted = await take_turn(world, member, tid, rng, prefer_ai=False) or acted
        table = await service.hall.table(tid)
        if table.state is not None:
            assert not hand_leaks(world.new_public_text(), table.state, members)
        assert acted or table.row.status != "running", "nobody could act but the table is running"
    table = await service.hall.table(tid)
    assert table.row.status == "finished" and table.state.phase == "over"
    log = await service.db.action_log(tid)
    assert len(log) == 2 * (1 + 3)  # per round: the simultaneous step, then 3 keep/redraw turns
    assert log[0][1][a_seat] == f"p{high}"  # her last choice was the one applied
    assert said(board.text(), "hc.reveal") and said(board.text(), "hc.status.over")
    thread_text = "\n".join(m.text() for m in world.thread_messages(world.threads[0]))
    assert said(thread_text, "result.title")
    assert not said(world.all_public_text(), "hc.dealt")

    # the result is on the leaderboard, and the rules read in French
    lb = (await world.slash(bob, "leaderboard", game=KEY)).response
    assert says("game.high-card.name") in lb.text() and alice.mention in lb.text() and bob.mention in lb.text()
    ranks = {seat: high_card.outcome(table.state).ranks[seat] for seat in members}
    if len(set(ranks.values())) == 2:  # the better-placed member is rated higher
        first_line = lb.cards[0]["description"].splitlines()[0]
        assert members[min(ranks, key=ranks.__getitem__)].mention in first_line
    claude = world.member("claude", locale="fr")
    rules = (await world.slash(claude, "rules", game=KEY)).response
    assert rules.ephemeral and says("game.high-card.name", "fr") in rules.text()


async def test_a_game_without_pictures_shows_text_boards_when_pictures_are_on(high_card, e2e, caplog):
    """No renderer in its spec: the boards and panels are text, and no drawing is tried (none
    fails, none is logged)."""
    world = await e2e(seeds=[5], enabled_games=KEY, pictures=True)
    alice = world.member("alice")
    lobby = (await world.slash(alice, "play", game=KEY)).response
    tid = lobby_id(lobby)
    await world.click(alice, lobby, f"se:l:{tid}:ai+")
    await world.click(alice, lobby, f"se:l:{tid}:start")
    board = board_of(world, tid)
    panel = (await world.click(alice, board, f"se:b:{tid}:panel")).response
    await world.settle()
    assert says("hc.board.round", n=1, of=3) in board.text() and said(panel.text(), "hc.dealt")
    assert not board.image_urls and not panel.image_urls and world.uploads == []
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], caplog.text
