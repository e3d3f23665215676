"""Moonshine's pictures fit a phone: Discord shows a picture about 360 px wide, so the board stays
at most 1,400 px tall at 2-5 players (in both languages and both variants, at every step of whole
games, and with the rules' most Clients in front at 5 players), its smallest text is at least
11 px there, and the legend is a small picture of its own, in neither the board nor
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


#: Seeds of the whole games below; at 5 players, seed 3 (Standard, English: 1,458 px at step 53),
#: seed 6 (Regular: 1,456 px in English, 1,453 in French) and seed 23 (Standard, French: 1,484 px)
#: were the tallest boards of the layout before the seat blocks were bounded.
SEEDS = (3, 6, 23)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("variant", ["standard", "regular"])
@pytest.mark.parametrize("players", [2, 3, 4, 5])
@pytest.mark.parametrize("lang", ["en", "fr"])
def test_moonshine_board_is_at_most_1400_px_tall(players, lang, variant, seed):
    """Every step of a whole AI game (both variants, both languages): the board stays at most
    1,400 px tall."""
    game = GAMES["moonshine"].game
    state = game.setup(seed, players, {"variant": variant})
    tallest, step = 0, 0
    while to_act := game.to_act(state):
        png = render_board("moonshine", game.view_json(state, None), NAMES[:players], lang, cache=None)
        width, height = _size(png)
        assert width == style.WIDTH
        tallest = max(tallest, height)
        assert height <= 1400, (players, lang, variant, seed, step, height)
        state = game.apply(state, {s: game.ai_action(state, s) for s in sorted(to_act)}).state
        step += 1
    assert step > 20 and tallest > 500  # whole games, real boards


def _most_clients_in_front(view, t):
    """``view`` with the rules' most Clients in front at its table: every Client with a Client-card
    icon of the dealt set validated (dealt round the seats), so that each seat holds its Speakeasy's
    Client-card icons plus those (13 at 5 players); the Clients in front are the set's widest
    strips in ``t``'s language (every one that takes two rows there first)."""
    import dataclasses

    import bot.render.moonshine as ms
    from bot.render.draw import Canvas
    from engine.moonshine.cards import CLIENTS_PER_SET, SPEAKEASIES_PER_SET, client_of
    from engine.moonshine.icons import client_icons, side_info

    c = Canvas(max_height=10)
    x0, x1 = style.MARGIN + 10, style.WIDTH - style.MARGIN - 10
    first = view.seats[0].speakeasy // SPEAKEASIES_PER_SET * CLIENTS_PER_SET
    ids = range(first, first + CLIENTS_PER_SET)
    more = [cid for cid in ids if any(i.kind == "client" for i in client_of(cid).lower)]
    validated = [tuple(cid for cid in s.validated if cid not in more) + tuple(more[i::len(view.seats)])
                 for i, s in enumerate(view.seats)]
    taken = {cid for v in validated for cid in v}

    def overflow(cid):
        return (ms.strip_height(c, cid, x0, x1, t),
                c.width(ms.card_name(cid, t), style.SMALL, True) - ms._name_room(c, cid, x0, x1, True))

    widest = iter(sorted((cid for cid in ids if cid not in taken), key=overflow, reverse=True))
    seats = []
    for s, val in zip(view.seats, validated, strict=True):
        n = client_icons(side_info(s.speakeasy, view.variant), val)
        front = tuple(next(widest) for _ in range(n))
        seats.append(dataclasses.replace(s, clients=front, cl_tokens=(0,) * n, validated=val,
                                         icons=dataclasses.replace(s.icons, client=n)))
    return dataclasses.replace(view, seats=tuple(seats))


@pytest.mark.parametrize("variant", ["standard", "regular"])
@pytest.mark.parametrize("lang", ["en", "fr"])
def test_moonshine_board_fits_with_the_most_clients_in_front(variant, lang):
    """What grows along a game at its rules' maximum: at 5 players, every seat holding as many
    Clients as its Client-card icons allow once every Client with that icon is validated (13),
    each the widest strip of the set (two rows where the language needs them), on the seat heads
    of the last rounds of whole games: the board stays at most 1,400 px tall."""
    import bot.render.moonshine as ms

    game = GAMES["moonshine"].game
    t = Translator(lang)
    tallest = 0
    for seed in SEEDS:
        state = game.setup(seed, 5, {"variant": variant})
        states = []
        while to_act := game.to_act(state):
            states.append(state)
            state = game.apply(state, {s: game.ai_action(state, s) for s in sorted(to_act)}).state
        for late in states[-20:]:
            view = _most_clients_in_front(game.view(late, None), t)
            assert sum(len(s.clients) for s in view.seats) == 13
            width, height = _size(ms.board(view, NAMES, t))
            tallest = max(tallest, height)
            assert height <= 1400, (lang, variant, seed, height)
    assert tallest > 1200


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_moonshine_client_strips_draw_every_name_whole(monkeypatch, lang):
    """Every Client of every card set as a strip in a seat block: its name is drawn whole (one
    row, or two when the name and the card's icons do not fit on one), never shortened."""
    import bot.render.moonshine as ms
    from bot.render.draw import Canvas
    from engine.moonshine.cards import all_clients

    t = Translator(lang)
    drawn: list[str] = []
    real = Canvas.text
    monkeypatch.setattr(Canvas, "text", lambda self, x, y, text, *a, **k: (drawn.append(text), real(self, x, y, text, *a, **k))[1])
    c = Canvas(max_height=200)
    rows = set()
    for cid in range(len(all_clients())):
        drawn.clear()
        c.y = 10
        ms.client_strip(c, cid, style.MARGIN + 10, style.WIDTH - style.MARGIN - 10, t)
        rows.add(c.y - 10)
        assert ms.card_name(cid, t) in drawn, (cid, drawn)
    assert len(rows) == 2  # one row or two


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


def test_the_offered_cards_are_drawn_whole_below_their_heading():
    """A panel offering Clients to keep: each offered card's frame (a legal choice) is drawn
    whole, its top edge below the heading's rule (not lost in the heading's band)."""
    import bot.render.moonshine as ms

    game = GAMES["moonshine"].game
    state = game.setup(3, 3, {})
    while not any(game.encode(a).startswith("keep.") for a in game.legal_actions(state, 0)):
        state = game.apply(state, {s: game.ai_action(state, s) for s in sorted(game.to_act(state))}).state
    codes = [game.encode(a) for a in game.legal_actions(state, 0)]
    image = Image.open(io.BytesIO(render_panel("moonshine", game.view_json(state, 0), codes, NAMES[:3], "en",
                                               cache=None))).convert("RGB")
    px, (width, height) = image.load(), image.size
    line, legal = tuple(style.LINE[:3]), tuple(style.LEGAL[:3])
    rules = [y for y in range(height) if sum(px[x, y] == line for x in range(width)) > 0.9 * (width - 2 * style.MARGIN)]
    heading = next(y for y in rules if any(px[x, y + 12] == legal for x in range(width)))  # the cards' heading
    top_edge = max(sum(px[x, y] == legal for x in range(width)) for y in range(heading + 1, heading + 40))
    assert top_edge > 0.8 * ms._CARD_W, top_edge
