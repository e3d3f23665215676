"""Renderers for every game (board, panels, lobby, results) respect Discord's limits in both
languages, with hostile player names, and the public board depends only on public information."""

from __future__ import annotations

import random

import pytest

from bot import compose
from bot.games import GAMES
from bot.i18n import Translator
from bot.service import TableSnapshot
from bot.ui import check_block_limits, check_panel_limits
from engine.core import Event
from storage.base import SeatRow, TableRow

NASTY = "**@everyone** `x` _y_ <@123> ~~z~~ | # [a](b) " * 3  # markdown, mentions, and too long


def table_view(key: str, state, status: str = "running") -> TableSnapshot:
    row = TableRow(id=42, guild_id=1, channel_id=2, thread_id=3, lobby_message_id=4, board_message_id=5, game=key,
                   options={}, status=status, host_user_id=100, lang="en", seed=state.seed, version=state.version,
                   state=None, created_at=0.0, updated_at=0.0)
    seats = [SeatRow(i, 100 + i if i % 2 == 0 else None, NASTY if i == 0 else f"AI {i}", i % 2 == 1)
             for i in range(state.players)]
    return TableSnapshot(row, seats, state)


def playout(key: str, players: int, seed: int, samples: int = 25):
    """Yield (state, recent events) at evenly spread steps of an AI game, then the final state."""
    game = GAMES[key].game
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
    game = GAMES[key].game
    t = Translator(lang)
    for players in sorted({game.min_players, game.max_players}):
        for state, events in playout(key, players, seed=players * 17):
            status = "running" if game.to_act(state) else "finished"
            view = table_view(key, state, status)
            board = compose.board(view, events, t)
            assert not check_block_limits(board.card), (key, check_block_limits(board.card))
            assert "@everyone" not in board.card.title + board.card.description + "".join(
                f.value for f in board.card.fields)
            for seat in range(players):
                panel = compose.panel(view, seat, t)
                assert not check_panel_limits(panel), (key, seat, check_panel_limits(panel))
        final = table_view(key, state, "finished")
        card = compose.results_block(final, game.outcome(state), t)
        assert not check_block_limits(card)
        lobby = compose.lobby_block(table_view(key, state, "lobby"), t)
        assert not check_block_limits(lobby)


@pytest.mark.parametrize("key", sorted(GAMES))
@pytest.mark.parametrize("lang", ["en", "fr"])
def test_the_text_beside_a_picture_is_the_full_boards_head(key, lang):
    """The board built for a picture (``full=False``: the presenter's headline, not its whole
    card) shows beside it what the full board would (:func:`cogs.pictures.short_card`): title,
    status line, colour, footer, who has chosen, the tie-breaks and the recent events."""
    from bot.presenters.base import Presenter
    from cogs.pictures import short_card

    game = GAMES[key].game
    presenter = GAMES[key].presenter
    t = Translator(lang)
    keep = {t("board.waiting"), t("board.log"), t("result.tie_field")}
    for players in sorted({game.min_players, game.max_players}):
        for state, events in playout(key, players, seed=players * 31):
            status = "running" if game.to_act(state) else "finished"
            table = table_view(key, state, status)
            full = compose.board(table, events, t)
            short = compose.board(table, events, t, full=False)
            assert short_card(short.card, keep, True) == short_card(full.card, keep, True)
            assert short.log == full.log
            ctx = compose.context(table, t, None)
            view = game.view(state, None)
            assert presenter.headline(view, ctx) == Presenter.headline(presenter, view, ctx)  # the default: cut


@pytest.mark.parametrize("key", sorted(GAMES))
def test_public_board_is_the_same_for_states_differing_only_in_hidden_information(key):
    game = GAMES[key].game
    t = Translator("en")
    players = min(max(game.min_players, 3), game.max_players)
    for state, events in playout(key, players, seed=5, samples=10):
        if not game.to_act(state):
            continue
        other = game.hidden_variant(state, None, salt=99)
        a = compose.board(table_view(key, state), events, t).card
        b = compose.board(table_view(key, other), events, t).card
        assert a == b


def test_escape_name_breaks_mentions_and_markdown():
    out = compose.escape_name("@everyone **bold** " + "x" * 50)
    assert "@everyone" not in out and "\\*\\*bold\\*\\*" in out and len(out) <= 40


@pytest.mark.parametrize(("lang", "line"), [
    ("en", "🤝 Shared victory: {a}, {c} share first place with 4 cards each."),
    ("fr", "🤝 Victoire partagée : {a}, {c} sont premiers ex æquo avec 4 cartes chacun."),
])
def test_results_card_names_a_shared_first_place(lang, line):
    """A tie for first (Shop Battle at the round cap, RULINGS S6) is said in the results card
    itself, so Discord shows it as the terminal does; a sole winner gets no such line."""
    from engine.core import Outcome

    game = GAMES["shop-battle"].game
    state = game.setup(1, 3, {})
    t = Translator(lang)
    final = table_view("shop-battle", state, "finished")
    ctx = compose.context(final, t, None)
    card = compose.results_block(final, Outcome(ranks=(1, 3, 1), scores=(4, 2, 4)), t)
    assert card.description.splitlines()[-1] == line.format(a=ctx.name(0), c=ctx.name(2))
    alone = compose.results_block(final, Outcome(ranks=(1, 2, 3), scores=(5, 3, 2)), t)
    assert len(alone.description.splitlines()) == 3


# --- the final standings say what broke a tie on score (each game's rules) --------------------------------
def _finished(key: str, state):
    """The finished table of ``state`` and its outcome as the engine computes it."""
    game = GAMES[key].game
    outcome = game.outcome(state)
    assert outcome is not None and not game.to_act(state)
    return table_view(key, state, "finished"), outcome


@pytest.mark.parametrize(("lang", "line"), [
    ("en", "⚖️ AI 2, AI 1 level on {points} points: decided by Moon tokens (5 for AI 2, 0 for AI 1)."),
    ("fr", "⚖️ AI 2, AI 1 à égalité avec {points} points : départagés par les jetons Lune (5 pour AI 2, 0 pour AI 1)."),
])
def test_moonshine_standings_say_moon_tokens_broke_a_tie_on_points(lang, line):
    """Moonshine (RULINGS M8): AI 1 and AI 2 level on points, AI 2 holds 5 Moon tokens and AI 1
    none: the standings, in Discord as in the terminal, and the finished board say so."""
    import dataclasses

    game = GAMES["moonshine"].game
    state = game.setup(3, 3, {"variant": "regular"})
    one = state.seats[1]
    cards = tuple(range(1, 8))
    tied = dataclasses.replace(one, validated=cards, clients=(), cl_tokens=(), se_tokens=(0,) * len(one.se_tokens))
    rich = dataclasses.replace(tied, se_tokens=(5,) + (0,) * (len(one.se_tokens) - 1))
    state = dataclasses.replace(state, phase="over", seats=(state.seats[0], tied, rich))
    final, outcome = _finished("moonshine", state)
    assert outcome.scores[1] == outcome.scores[2] > outcome.scores[0] and outcome.ranks[1:] == (2, 1)
    t = Translator(lang)
    text = line.format(points=outcome.scores[1]).replace("AI 1", compose.context(final, t, None).name(1)) \
        .replace("AI 2", compose.context(final, t, None).name(2))
    lines = compose.results_block(final, outcome, t).description.splitlines()
    assert lines[-1] == text and len(lines) == 4
    board = compose.board(final, [], t).card
    assert [f.value for f in board.fields if f.name == t("result.tie_field")] == [text]
    assert not check_block_limits(board)


def test_shop_battle_standings_say_the_later_elimination_ranks_higher():
    """Shop Battle (S6): two players out with no card are ranked by the round they went out in."""
    import dataclasses

    game = GAMES["shop-battle"].game
    state = game.setup(1, 3, {})
    every = tuple(c for pile in state.piles for c in pile)
    state = dataclasses.replace(state, phase="over", piles=((), every, ()), out=(9, None, 18), round=20)
    final, outcome = _finished("shop-battle", state)
    assert outcome.ranks == (3, 1, 2) and outcome.scores[0] == outcome.scores[2] == 0
    t = Translator("en")
    ctx = compose.context(final, t, None)
    assert compose.results_block(final, outcome, t).description.splitlines()[3] == (
        f"⚖️ {ctx.name(2)}, {ctx.name(0)} level on 0 cards: decided by how long each lasted "
        f"(out in round 18 for {ctx.name(2)}, out in round 9 for {ctx.name(0)}).")


def test_three_player_moon_standings_say_a_made_moon_wins_whatever_the_scores():
    import dataclasses

    game = GAMES["three-player-moon"].game
    state = game.setup(1, 3, {})
    t = Translator("fr")
    for scores, said in (((30, 30, 5), True), ((12, 30, 5), True), ((40, 30, 5), False)):
        final, outcome = _finished("three-player-moon",
                                   dataclasses.replace(state, phase="over", scores=scores, moon_winner=0))
        assert outcome.ranks[0] == 1
        lines = compose.results_block(final, outcome, t).description.splitlines()
        moon = f"🌕 {compose.context(final, t, None).name(0)} a tiré la lune et fait tous les plis, ce qui gagne la " \
               "partie quels que soient les scores."
        assert (moon in lines) is said and len(lines) == 3 + said


def test_a_tie_the_rules_share_gets_no_tie_break_line():
    """Gang of Dice shares a place on equal stocks (G7): no tie-break line, only the shared victory."""
    import dataclasses

    game = GAMES["gang-of-dice"].game
    state = dataclasses.replace(game.setup(1, 3, {}), phase="over", stocks=(10, 10, 4))
    final, outcome = _finished("gang-of-dice", state)
    lines = compose.results_block(final, outcome, Translator("en")).description.splitlines()
    assert len(lines) == 4 and lines[-1].startswith("🤝 Shared victory") and not any("⚖️" in x for x in lines)
    assert not [f for f in compose.board(final, [], Translator("en")).card.fields if f.name == "Tie-break"]


def test_a_tie_line_follows_each_criterion_and_names_who_stays_level():
    from bot.presenters.base import RenderContext, level_groups, tie_line
    from engine.core import Outcome

    outcome = Outcome(ranks=(1, 2, 2, 4), scores=(16, 16, 16, 3))
    assert level_groups(outcome) == [[0, 1, 2]]
    assert level_groups(Outcome(ranks=(1, 1, 3), scores=(5, 5, 2))) == []
    tokens, clients = (5, 3, 3, 0), (6, 6, 6, 1)
    ctx = RenderContext(t=Translator("en"), names=("A", "B", "C", "D"))
    line = tie_line([0, 1, 2], "16 points", [("Moon tokens", tokens.__getitem__, lambda s: str(tokens[s])),
                                              ("validated Clients", clients.__getitem__, lambda s: str(clients[s]))], ctx)
    assert line == ("⚖️ A, B, C level on 16 points: decided by Moon tokens (5 for A, 3 for B, 3 for C); "
                    "B, C stay level and share their place.")
    clients = (6, 6, 5, 1)
    line = tie_line([0, 1, 2], "16 points", [("Moon tokens", tokens.__getitem__, lambda s: str(tokens[s])),
                                              ("validated Clients", clients.__getitem__, lambda s: str(clients[s]))], ctx)
    assert line == ("⚖️ A, B, C level on 16 points: decided by Moon tokens (5 for A, 3 for B, 3 for C); "
                    "then by validated Clients (6 for B, 5 for C).")
