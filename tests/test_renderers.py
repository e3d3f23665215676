"""Renderers for every game (board, panels, lobby, results) respect Discord's limits in both
languages, with hostile player names, and the public board depends only on public information."""

from __future__ import annotations

import random

import pytest

from bot import texts
from bot.i18n import Translator
from bot.service import TableView
from bot.ui import check_card_limits, check_panel_limits
from engine.core import Event
from engine.registry import GAMES
from storage.db import SeatRow, TableRow

NASTY = "**@everyone** `x` _y_ <@123> ~~z~~ | # [a](b) " * 3  # markdown, mentions, and too long


def table_view(key: str, state, status: str = "running") -> TableView:
    row = TableRow(id=42, guild_id=1, channel_id=2, thread_id=3, lobby_message_id=4, board_message_id=5, game=key,
                   options={}, status=status, host_user_id=100, lang="en", seed=state.seed, version=state.version,
                   state=None, created_at=0.0, updated_at=0.0)
    seats = [SeatRow(i, 100 + i if i % 2 == 0 else None, NASTY if i == 0 else f"AI {i}", i % 2 == 1)
             for i in range(state.players)]
    return TableView(row, seats, state)


def playout(key: str, players: int, seed: int, samples: int = 25):
    """Yield (state, recent events) at evenly spread steps of an AI game, then the final state."""
    game = GAMES[key]
    rng = random.Random(seed)
    state = game.setup(seed, players, {})
    events: list[Event] = []
    trace = [(state, [])]
    while to_act := game.to_act(state):
        actions = {s: (game.ai_action(state, s) if rng.random() < 0.7 else rng.choice(game.legal_actions(state, s)))
                   for s in sorted(to_act)}
        step = game.apply(state, actions)
        state = step.state
        events = (events + list(step.events))[-40:]
        trace.append((state, events))
    every = max(1, len(trace) // samples)
    return trace[::every] + [trace[-1]]


@pytest.mark.parametrize("key", sorted(GAMES))
@pytest.mark.parametrize("lang", ["en", "fr"])
def test_boards_and_panels_fit_discord_limits(key, lang):
    game = GAMES[key]
    t = Translator(lang)
    for players in sorted({game.min_players, game.max_players}):
        for state, events in playout(key, players, seed=players * 17):
            status = "running" if game.to_act(state) else "finished"
            view = table_view(key, state, status)
            board = texts.board(view, events, t)
            assert not check_card_limits(board.card), (key, check_card_limits(board.card))
            assert "@everyone" not in board.card.title + board.card.description + "".join(
                f.value for f in board.card.fields)
            for seat in range(players):
                panel = texts.panel(view, seat, t)
                assert not check_panel_limits(panel), (key, seat, check_panel_limits(panel))
        final = table_view(key, state, "finished")
        card = texts.results_card(final, game.outcome(state), t)
        assert not check_card_limits(card)
        lobby = texts.lobby_card(table_view(key, state, "lobby"), t)
        assert not check_card_limits(lobby)


@pytest.mark.parametrize("key", sorted(GAMES))
def test_public_board_is_the_same_for_states_differing_only_in_hidden_information(key):
    game = GAMES[key]
    t = Translator("en")
    players = min(max(game.min_players, 3), game.max_players)
    for state, events in playout(key, players, seed=5, samples=10):
        if not game.to_act(state):
            continue
        other = game.hidden_variant(state, None, salt=99)
        a = texts.board(table_view(key, state), events, t).card
        b = texts.board(table_view(key, other), events, t).card
        assert a == b


def test_escape_name_breaks_mentions_and_markdown():
    out = texts.escape_name("@everyone **bold** " + "x" * 50)
    assert "@everyone" not in out and "\\*\\*bold\\*\\*" in out and len(out) <= 40


@pytest.mark.parametrize(("lang", "line"), [
    ("en", "🤝 Shared victory: {a}, {c} share first place with 4 cards each."),
    ("fr", "🤝 Victoire partagée : {a}, {c} sont premiers ex æquo avec 4 cartes chacun."),
])
def test_results_card_names_a_shared_first_place(lang, line):
    """A tie for first (Shop Battle at the round cap, RULINGS S6) is said in the results card
    itself, so Discord shows it as the terminal does; a sole winner gets no such line."""
    from engine.core import Outcome

    game = GAMES["shop-battle"]
    state = game.setup(1, 3, {})
    t = Translator(lang)
    final = table_view("shop-battle", state, "finished")
    ctx = texts.context(final, t, None)
    card = texts.results_card(final, Outcome(ranks=(1, 3, 1), scores=(4, 2, 4)), t)
    assert card.description.splitlines()[-1] == line.format(a=ctx.name(0), c=ctx.name(2))
    alone = texts.results_card(final, Outcome(ranks=(1, 2, 3), scores=(5, 3, 2)), t)
    assert len(alone.description.splitlines()) == 3
