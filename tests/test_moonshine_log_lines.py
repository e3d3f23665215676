"""Moonshine's log and text board as a phone shows them: a reroll's line names the dice it
changed and their new faces (it repeated the whole roll, like the roll before it), and the text
board gives each player a few lines."""

from __future__ import annotations

import pytest

from bot.games import GAMES
from bot.i18n import Translator
from bot.presenters.base import RenderContext
from engine.core import Event


@pytest.mark.parametrize(("lang", "left"), [("en", "1 reroll left"), ("fr", "encore 1 relance")])
def test_a_reroll_line_names_the_rerolled_dice_and_their_new_faces(lang, left):
    presenter = GAMES["moonshine"].presenter
    ctx = RenderContext(Translator(lang), ("Alice", "Bob"))
    events = [Event("ms.ev.roll", {"seat": 0, "dice": ["food", "music", "drink", "", ""]}),
              Event("ms.ev.reroll", {"seat": 0, "dice": ["food", "drink", "drink", "", ""], "left": 1}),
              Event("ms.ev.reroll", {"seat": 0, "dice": ["food", "drink", "drink", "", ""], "left": 0})]
    roll, first, second = (presenter.event(e, ctx) for e in presenter.log_events(events))
    assert "🍗" in roll and "🎵" in roll
    assert "⚪🥃" in first and "🍗" not in first and "🎵" not in first and left in first
    assert "🍗" in second and "⚪🥃 ⚪🥃" in second  # nothing changed: the faces kept, said so
    assert first != second
    # a reroll whose roll is not in the list (an older page of the log) shows its dice
    alone = presenter.event(presenter.log_events(events[2:])[0], ctx)
    assert "🍗" in alone and "🥃" in alone


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_a_reroll_line_names_a_die_rerolled_to_the_face_it_showed(lang):
    presenter = GAMES["moonshine"].presenter
    ctx = RenderContext(Translator(lang), ("Alice", "Bob"))
    events = [Event("ms.ev.roll", {"seat": 0, "dice": ["food", "music", "drink", "moon", ""]}),
              Event("ms.ev.reroll", {"seat": 0, "dice": ["food", "drink", "drink", "moon", ""], "left": 0,
                                     "rerolled": [0, 1, 3]})]
    line = presenter.event(presenter.log_events(events)[1], ctx)
    assert line.count("⚪🍗") == 1 and "⚪🥃" in line and "🔵🌙" in line  # dice 0 and 3 kept their faces
    assert line.count("🥃") == 1  # die 2 was not rerolled: not named
    assert presenter.event(presenter.log_events(events[1:])[0], ctx) == line  # alone, the same line


def test_the_text_board_is_a_few_lines_per_player():
    game = GAMES["moonshine"].game
    presenter = GAMES["moonshine"].presenter
    state = game.setup(5, 5, {})
    for _ in range(30):
        state = game.apply(state, {s: game.ai_action(state, s) for s in game.to_act(state)}).state
    view = game.view(state, None)
    board = presenter.board(view, RenderContext(Translator("en"), tuple("ABCDE")))
    for field, seat in zip(board.fields, view.seats, strict=False):
        assert len(field.value.split("\n")) == 2 + len(seat.clients), field.value
