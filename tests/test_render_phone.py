"""Moonshine's pictures fit a phone: Discord shows a picture about 360 px wide, so the board stays
at most 1,400 px tall at 2-5 players (in both languages, along whole games), its smallest text
is at least 11 px there, and the legend is a small picture of its own, in neither the board nor
a panel. Pictures are banded (bot/render/draw.py): the PNG bytes of a picture do not depend on
what was kept from earlier pictures."""

from __future__ import annotations

import io
import zlib

import pytest
from PIL import Image

from bot.games import GAMES
from bot.i18n import Translator
from bot.render import render_board, render_panel, style
from tests.pictures import pixels
from tests.test_render import legal_codes

NAMES = ("Bérénice", "Élodie", "François", "Dédé", "Chloé")
#: What a phone shows of the picture's width, in px.
PHONE = 360


def _size(png: bytes) -> tuple[int, int]:
    image = Image.open(io.BytesIO(png))
    image.load()
    return image.size


def test_the_smallest_text_reads_at_a_phones_width():
    assert style.font(1).size == style.SMALL  # no text is drawn smaller
    assert style.SMALL * PHONE / style.WIDTH >= 11


@pytest.mark.parametrize("players", [2, 3, 4, 5])
@pytest.mark.parametrize("lang", ["en", "fr"])
def test_moonshine_board_is_at_most_1400_px_tall(players, lang):
    game = GAMES["moonshine"].game
    state = game.setup(players, players, {})
    tallest, step = 0, 0
    while to_act := game.to_act(state):
        if step % 3 == 0:
            png = render_board("moonshine", game.view_json(state, None), NAMES[:players], lang, cache=None)
            width, height = _size(png)
            assert width == style.WIDTH
            tallest = max(tallest, height)
            assert height <= 1400, (players, lang, step, height)
        state = game.apply(state, {s: game.ai_action(state, s) for s in sorted(to_act)}).state
        step += 1
    assert step > 20 and tallest > 500  # whole games, real boards


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_moonshine_legend_is_its_own_small_picture(monkeypatch, lang):
    """The legend's words are drawn by :func:`legend` and by no board or panel."""
    import bot.render.draw as draw
    import bot.render.moonshine as ms
    from bot.render.draw import Canvas

    monkeypatch.setattr(draw, "BANDS", draw.BandCache())
    t = Translator(lang)
    drawn: list[str] = []
    real = Canvas.text
    monkeypatch.setattr(Canvas, "text", lambda self, x, y, text, *a, **k: (drawn.append(text), real(self, x, y, text, *a, **k))[1])
    width, height = _size(ms.legend(t))
    assert width == style.WIDTH and height <= 600
    assert t("pic.legend") in drawn and t("ms.pic.silhouette") in drawn and t("ms.pic.validated") in drawn
    drawn.clear()
    game = GAMES["moonshine"].game
    state = game.setup(1, 3, {})
    for _ in range(12):
        state = game.apply(state, {s: game.ai_action(state, s) for s in game.to_act(state)}).state
    ms.board(game.view(state, None), NAMES[:3], t)
    for seat in range(3):
        ms.panel(game.view(state, seat), legal_codes(game, state, seat), NAMES[:3], t)
    assert t("pic.legend") not in drawn and t("ms.pic.silhouette") not in drawn


@pytest.mark.parametrize("key", ["moonshine", "gang-of-dice"])
def test_banded_pictures_are_the_same_with_or_without_kept_bands(monkeypatch, key):
    """A board and a panel drawn with every band kept from the picture before, and again with
    nothing kept, are valid PNG files of the same pixels (the bands join into one zlib stream)."""
    import bot.render.draw as draw

    game = GAMES[key].game
    players = 4
    state = game.setup(2, players, {})
    seen = []
    for _ in range(8):
        to_act = game.to_act(state)
        if not to_act:
            break
        seat = min(to_act)
        view, legal = game.view_json(state, seat), legal_codes(game, state, seat)
        warm = (render_board(key, game.view_json(state, None), NAMES[:players], "en", cache=None),
                render_panel(key, view, legal, NAMES[:players], "en", cache=None))
        monkeypatch.setattr(draw, "BANDS", draw.BandCache())
        cold = (render_board(key, game.view_json(state, None), NAMES[:players], "en", cache=None),
                render_panel(key, view, legal, NAMES[:players], "en", cache=None))
        assert [pixels(p) for p in warm] == [pixels(p) for p in cold]
        for png in cold:
            image = Image.open(io.BytesIO(png))
            image.load()
            assert image.mode == "P" and image.width == style.WIDTH
        seen.append(cold[0])
        state = game.apply(state, {s: game.ai_action(state, s) for s in sorted(to_act)}).state
    assert len(set(seen)) > 1


def test_adler32_of_joined_bands_is_zlibs():
    from bot.render.draw import adler32_combine

    a, b = b"speakeasy" * 999, bytes(range(256)) * 77
    assert adler32_combine(zlib.adler32(a), zlib.adler32(b), len(b)) == zlib.adler32(a + b)
    assert adler32_combine(1, zlib.adler32(b), len(b)) == zlib.adler32(b)
