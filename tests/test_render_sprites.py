"""Kept sprites (:meth:`bot.render.draw.Canvas.sprite`) and bands (:meth:`~bot.render.draw.Canvas.band`)
show the very pixels the drawing gives: a picture drawn with what was kept from the pictures before,
with nothing kept, and (sprites) drawn straight on the picture is the same picture."""

from __future__ import annotations

import pytest

from bot.games import GAMES
from bot.render import draw, render_board
from bot.render.draw import Canvas
from tests.pictures import pixels

NAMES = ("Alice", "Bérénice", "Chloé", "Dédé", "Élodie", "François")


def _in_place(self: Canvas, key, box, paint) -> None:
    """:meth:`Canvas.sprite` without a sprite: ``paint`` draws straight on the picture."""
    paint(self, box[0], box[1])


def _public_views(key: str, seed: int, players: int, steps: int) -> list[dict]:
    """The public view JSON before each of the first ``steps`` steps of an AI game of ``key``."""
    game = GAMES[key].game
    state = game.setup(seed, players, {})
    views = []
    for _ in range(steps):
        if not (to_act := game.to_act(state)):
            break
        views.append(game.view_json(state, None))
        state = game.apply(state, {s: game.ai_action(state, s) for s in sorted(to_act)}).state
    return views


def test_a_sprite_keeps_what_lies_under_the_pixels_it_does_not_draw(monkeypatch):
    monkeypatch.setattr(draw, "SPRITES", draw.SpriteCache())
    c = Canvas(max_height=60, width=60)
    c.d.rectangle((0, 0, 59, 9), fill=draw.style.INK)  # what lies under the sprite's top rows

    def paint(cv: Canvas, x: int, y: int) -> None:
        cv.d.rectangle((x + 10, y + 5, x + 19, y + 14), fill=draw.style.GREEN)

    c.sprite("square", (0, 0, 30, 30), paint)
    c.sprite("square", (30, 30, 60, 60), paint)
    assert len(draw.SPRITES) == 1
    green, ink, bg = (draw.palette_index(col) for col in (draw.style.GREEN, draw.style.INK, draw.style.BG))
    assert c.image.getpixel((12, 7)) == green and c.image.getpixel((40, 37)) == green
    assert c.image.getpixel((2, 2)) == ink and c.image.getpixel((25, 2)) == ink  # not drawn over
    assert c.image.getpixel((2, 20)) == bg and c.image.getpixel((35, 35)) == bg


@pytest.mark.parametrize(("players", "lang"), [(2, "en"), (3, "fr"), (4, "en"), (5, "fr")])
def test_shop_battle_boards_are_the_same_with_kept_sprites_none_kept_and_none(monkeypatch, players, lang):
    """A Shop Battle game's boards (its revealed shop cards are sprites) with the sprites kept
    from the boards before, with none kept and drawn in place are the same pictures."""
    key = "shop-battle"
    names = NAMES[:players]
    monkeypatch.setattr(draw, "SPRITES", draw.SpriteCache())
    views = _public_views(key, players, players, 40)
    warm = [render_board(key, v, names, lang, cache=None) for v in views]
    assert len(draw.SPRITES) > 0
    cold = []
    for v in views:
        monkeypatch.setattr(draw, "SPRITES", draw.SpriteCache())
        cold.append(render_board(key, v, names, lang, cache=None))
    monkeypatch.setattr(Canvas, "sprite", _in_place)
    straight = [render_board(key, v, names, lang, cache=None) for v in views]
    assert [pixels(p) for p in warm] == [pixels(p) for p in straight]
    assert [pixels(p) for p in cold] == [pixels(p) for p in straight]
    assert len({pixels(p) for p in straight}) > 1


@pytest.mark.parametrize(("players", "lang"), [(3, "en"), (3, "fr")])
def test_three_player_moon_boards_are_the_same_with_kept_bands_or_none(monkeypatch, players, lang):
    """Three-Player Moon's last trick and last hand are bands: a game's boards drawn with the
    bands kept from the boards before and with none kept are the same pictures."""
    key = "three-player-moon"
    names = NAMES[:players]
    monkeypatch.setattr(draw, "BANDS", draw.BandCache())
    views = _public_views(key, 11, players, 60)
    assert any(v["last_hand"] for v in views) and any(v["last_trick"] for v in views)
    warm = [render_board(key, v, names, lang, cache=None) for v in views]
    cold = []
    for v in views:
        monkeypatch.setattr(draw, "BANDS", draw.BandCache())
        cold.append(render_board(key, v, names, lang, cache=None))
    assert [pixels(p) for p in warm] == [pixels(p) for p in cold]


@pytest.mark.parametrize(("players", "lang"), [(2, "fr"), (4, "en"), (6, "fr")])
def test_shop_battle_boards_are_the_same_with_kept_bands_or_none(monkeypatch, players, lang):
    """Shop Battle's last round and its piles are bands: a game's boards drawn with the bands
    kept from the boards before and with none kept are the same pictures, and bands are reused."""
    key = "shop-battle"
    names = NAMES[:players]
    monkeypatch.setattr(draw, "BANDS", draw.BandCache())
    views = _public_views(key, players + 7, players, 30)
    assert sum(1 for v in views if v["last"]) > 3
    placed: list[str] = []
    painted: list[str] = []
    real = draw.Canvas.band

    def band(self, key, paint):
        name = key[0] if isinstance(key, tuple) else key
        placed.append(name)
        real(self, key, lambda cv: (painted.append(name), paint(cv)))

    monkeypatch.setattr(draw.Canvas, "band", band)
    warm = [render_board(key, v, names, lang, cache=None) for v in views]
    assert placed.count("sb-piles") == len(views)
    for name in ("sb-last", "sb-piles"):  # drawn at the first board that shows them, then kept
        assert 0 < painted.count(name) < placed.count(name), (name, painted.count(name), placed.count(name))
    cold = []
    for v in views:
        monkeypatch.setattr(draw, "BANDS", draw.BandCache())
        cold.append(render_board(key, v, names, lang, cache=None))
    assert [pixels(p) for p in warm] == [pixels(p) for p in cold]
