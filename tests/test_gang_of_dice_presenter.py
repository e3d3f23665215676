"""Gang of Dice presenter: Discord limits, legal buttons, no stock on the public board, both languages."""

from __future__ import annotations

import dataclasses
import json
import random
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.games import GAMES
from bot.i18n import LANGS, Translator, catalog, placeholders
from bot.presenters.base import RenderContext
from bot.presenters.gang_of_dice import FACE_EMOJI, GangOfDicePresenter, faces_text
from bot.ui import Button, check_block_limits, check_panel_limits
from engine.gang_of_dice import CARDS, Commit, GangOfDice, GangOfDiceSeatView, apply_with_faces, scripted_setup

G = GangOfDice()
P = GAMES["gang-of-dice"].presenter
NAMES = ("Alice", "Bob", "Chloé", "Dmitri_with_a_rather_long_name")


def ctx(lang: str, seat: int | None = None, players: int = 4) -> RenderContext:
    return RenderContext(t=Translator(lang), names=NAMES[:players], seat=seat)


def block_text(card) -> str:
    return "\n".join([card.title, card.description, card.footer] + [f"{f.name}\n{f.value}" for f in card.fields])


def buttons(panel) -> list[Button]:
    return [b for row in panel.rows for b in row]


def act(state, action, faces=None):
    return apply_with_faces(state, action, faces).state


def test_registered_and_catalogs() -> None:
    assert isinstance(P, GangOfDicePresenter) and P.key == G.key
    en, fr = catalog("en"), catalog("fr")
    mine = {k for k in en if k.startswith("god.") or k.startswith("game.gang-of-dice.")}
    assert mine and mine <= set(fr)
    for key in mine:
        assert placeholders(en[key]) == placeholders(fr[key]), key
        same = {"game.gang-of-dice.name", "god.btn.quick", "god.btn.mark", "god.btn.unmark", "god.seat.dice",
                "god.pic.score"}
        assert en[key] != fr[key] or key in same, f"untranslated: {key}"
    for card in CARDS:
        for lang in LANGS:
            assert f"god.card.{card}.name" in catalog(lang) and f"god.card.{card}.desc" in catalog(lang)
    assert len(en["game.gang-of-dice.rules"]) < 3500 and len(fr["game.gang-of-dice.rules"]) < 3500


def _check(state, lang: str, players: int) -> None:
    pub = G.view(state, None)
    board = P.board(pub, ctx(lang, None, players))
    assert check_block_limits(board) == [], check_block_limits(board)
    text = block_text(board)
    assert "{" not in text, text
    if state.phase != "over":
        # the board cannot depend on the stocks: change them and render again (a
        # determinization keeps them: a perfect memory infers them from the public log)
        variant = dataclasses.replace(state, stocks=tuple(st + 2 for st in state.stocks))
        assert block_text(P.board(G.view(variant, None), ctx(lang, None, players))) == text
    for seat in range(players):
        legal = tuple(G.encode(a) for a in G.legal_actions(state, seat))
        view = G.view(state, seat)
        panel = P.panel(view, legal, ctx(lang, seat, players))
        assert check_panel_limits(panel) == [], check_panel_limits(panel)
        assert "{" not in block_text(panel.card)
        assert isinstance(view, GangOfDiceSeatView) and view.me.stock == state.stocks[seat]
        assert f"**{state.stocks[seat]}**" in panel.card.description  # its own stock
        bs = buttons(panel)
        codes = [b.code for b in bs if b.code]
        assert len(codes) == len(set(codes)), "custom_ids must be unique"
        for b in bs:
            if b.prompt is not None:
                assert b.prompt.template.format(n=b.prompt.minimum) in legal
                assert b.prompt.template.format(n=b.prompt.maximum) in legal
                assert b.prompt.maximum == state.stocks[seat]
            elif b.disabled:
                assert b.code not in legal
            else:
                assert b.code in legal
        if not legal:
            assert not panel.rows
        elif state.phase == "roll":
            enabled = {b.code for b in bs if not b.disabled}
            assert enabled == set(legal)  # every reroll micro-action is one click away
        for code in legal[:6] + legal[-3:]:
            label = P.action_label(code, view, ctx(lang, seat, players))
            assert label and label != code and "{" not in label


@pytest.mark.parametrize("players", [2, 3, 4])
def test_random_playouts_render_within_limits(players: int) -> None:
    for seed in range(2):
        rng = random.Random(seed)
        state = G.setup(seed + 100, players)
        step_no = 0
        while G.to_act(state):
            if step_no % 3 == 0:
                _check(state, LANGS[step_no % 2], players)
            (seat,) = G.to_act(state)
            legal = G.legal_actions(state, seat)
            commits = [a for a in legal if isinstance(a, Commit)]
            action = G.ai_action(state, seat) if rng.random() < 0.5 else rng.choice(commits[:8] or legal)
            step = G.apply(state, {seat: action})
            for event in step.events:
                for lang in LANGS:
                    line = P.event(event, ctx(lang, None, players))
                    assert line and "{" not in line and not line.startswith("god."), line
            state = step.state
            step_no += 1
        _check(state, "en", players)
        _check(state, "fr", players)


@settings(max_examples=25, deadline=None)
@given(faces=st.lists(st.integers(0, 5), min_size=1, max_size=40), marks=st.lists(st.integers(0, 5), max_size=40),
       lang=st.sampled_from(LANGS))
def test_roll_panel_layout(faces: list[int], marks: list[int], lang: str) -> None:
    """Any roll (up to 6 faces present) fits 5 rows x 5 buttons, one +/- column per face."""
    state = scripted_setup(2, cards=["run3"], first=0)
    state = act(state, f"c{len(faces)}", faces)
    for f in marks:
        if f"m{f}" in {G.encode(a) for a in G.legal_actions(state, 0)}:
            state = act(state, f"m{f}")
    legal = tuple(G.encode(a) for a in G.legal_actions(state, 0))
    panel = P.panel(G.view(state, 0), legal, ctx(lang, 0, 2))
    assert check_panel_limits(panel) == []
    present = sorted(set(faces))
    assert len(panel.rows) == (2 if len(present) <= 3 else 4) + 1
    plus = [b for b in buttons(panel) if b.code.startswith("m")]
    minus = [b for b in buttons(panel) if b.code.startswith("u")]
    assert [b.code for b in plus] == [f"m{f}" for f in present]
    assert [b.code for b in minus] == [f"u{f}" for f in present]
    for b in plus:
        f = int(b.code[1])
        assert f"{state.marks[f]}/{faces.count(f)}" in b.label and FACE_EMOJI[f] in b.label
    reroll, stop = panel.rows[-1]
    assert reroll.code == "r" and reroll.disabled == (sum(state.marks) == 0)
    assert stop.code == "s" and not stop.disabled


def test_commit_panel() -> None:
    state = scripted_setup(3, cards=["sum13"], first=1, stocks=(30, 4, 48))
    legal = tuple(G.encode(a) for a in G.legal_actions(state, 1))
    panel = P.panel(G.view(state, 1), legal, ctx("en", 1, 3))
    prompt_button = panel.rows[0][0]
    assert prompt_button.prompt.minimum == 1 and prompt_button.prompt.maximum == 4
    assert prompt_button.prompt.template == "c{n}"
    assert panel.codes() == {"c4", "c1", "c2", "c3"}  # "All 4" + quick 1, 2, 3
    assert "**4**" in panel.card.description
    other = P.panel(G.view(state, 2), (), ctx("en", 2, 3))
    assert other.rows == () and "**48**" in other.card.description
    assert "Bob" in other.card.description  # waiting for the acting player


def test_public_board_never_shows_stocks_before_the_end() -> None:
    state = scripted_setup(3, cards=["sum13", "sum11"], first=0, stocks=(37, 41, 29))
    for action, faces in [("c3", (2, 2, 2)), ("s", None), ("c1", (5,))]:
        state = act(state, action, faces)
        for lang in LANGS:
            text = block_text(P.board(G.view(state, None), ctx(lang, None, 3)))
            for stock in (37, 41, 29, 34, 40):
                assert str(stock) not in text, (stock, text)
    # the game ends: the final stocks are public
    state = scripted_setup(2, cards=["one"], first=0, stocks=(37, 41))
    state = act(state, "c37", (1,) * 37)  # all in, triggers
    state = act(act(state, "c1", (2,)), "s")
    assert state.phase == "over"
    for lang in LANGS:
        text = block_text(P.board(G.view(state, None), ctx(lang, None, 2)))
        assert "78" in text and "🥇" in text


def test_many_dice_stay_within_limits() -> None:
    rng = random.Random(3)
    faces = tuple(rng.randrange(6) for _ in range(150))
    state = scripted_setup(4, cards=["run3"], first=0, stocks=(160, 160, 160, 160))
    for _ in range(3):
        state = act(act(state, "c150", faces), "s")
    state = act(state, "c150", faces)
    for lang in LANGS:
        board = P.board(G.view(state, None), ctx(lang, None, 4))
        assert check_block_limits(board) == []
        assert "×" in block_text(board)  # grouped faces
        panel = P.panel(G.view(state, 3), tuple(G.encode(a) for a in G.legal_actions(state, 3)), ctx(lang, 3, 4))
        assert check_panel_limits(panel) == []


def test_faces_text() -> None:
    assert faces_text([3, 0, 5]) == "🕴️ 3️⃣ 5️⃣"
    assert faces_text([]) == "—"
    assert faces_text([2] * 13 + [0]) == "🕴️×1 2️⃣×13"


def test_events_render_in_both_languages() -> None:
    state = scripted_setup(2, cards=["pair"], first=0)
    events = list(apply_with_faces(state, "c3", (1, 2, 3)).events)
    events += apply_with_faces(act(act(state, "c3", (1, 2, 3)), "m1"), "r", (2,)).events
    by_key = {e.key: e for e in events}
    assert {"god.commit", "god.stock", "god.roll", "god.trigger"} <= set(by_key)
    en = P.event(by_key["god.trigger"], ctx("en", None, 2))
    fr = P.event(by_key["god.trigger"], ctx("fr", None, 2))
    assert "Alice" in en and "Pair" in en and "2️⃣ 2️⃣ 3️⃣" in en
    assert "Alice" in fr and "Paire" in fr and en != fr


def test_game_end_event_names_winners_and_stocks() -> None:
    state = scripted_setup(2, cards=["one"], first=0, stocks=(5, 7))
    state = act(state, "c5", (1,) * 5)
    step = apply_with_faces(act(state, "c1", (2,)), "s")
    end = next(e for e in step.events if e.key == "god.end")
    line = P.event(end, ctx("en", None, 2))
    assert "Bob" in line and "Alice 0" in line and "Bob 12" in line


def test_rules_card() -> None:
    for lang in LANGS:
        card = P.rules(Translator(lang))
        assert check_block_limits(card) == []
        text = block_text(card)
        assert all(Translator(lang)(f"god.card.{c}.name") in text for c in CARDS)
        assert not re.search(r"god\.", text)
    assert json.dumps(P.rules(Translator("fr")).description, ensure_ascii=False).count("🕴️") >= 1
