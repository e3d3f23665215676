"""Pictures (bot/render): every game's board and panels render along AI playouts, in every phase,
publicly and for every seat, within the size limits; they are deterministic; a seat cannot tell
apart in its picture two states it cannot tell apart in its view; the public picture never
depends on hidden information; the cache does not redraw; a failing renderer yields None."""

from __future__ import annotations

import asyncio
import io
import random
import threading

import pytest
from PIL import Image

import bot.render as render
from bot.games import GAMES
from bot.render import MAX_BYTES, MAX_HEIGHT, MAX_WIDTH, PictureCache, style
from bot.render.cli import main as render_cli

NAMES = ("Alice", "Bérénice", "Zoé Ærøskøbing-Lefèvre the Third", "Dédé", "Élodie", "François")

#: Phases each game's playouts below must reach (the test fails if a playout misses one).
PHASES = {
    "gang-of-dice": {"commit", "roll", "over"},
    "three-player-moon": {"bid", "discard", "trump", "play", "over"},
    "shop-battle": {"choose", "target", "over"},
    "moonshine": {"setup", "roll", "action", "resolve", "over"},
    "moonshine-regular": {"setup", "draft", "instants", "roll", "action", "resolve", "gain", "over"},
}


def sample(key: str, players: int, seed: int, options: dict | None = None):
    """States of an AI playout (80 % AI moves, 20 % random legal ones, from a seeded generator):
    the first state of every phase, the state in the middle, and the final state."""
    game = GAMES[key].game
    rng = random.Random(seed)
    state = game.setup(seed, players, options or {})
    trace = [state]
    while to_act := game.to_act(state):
        state = game.apply(state, {s: (game.ai_action(state, s) if rng.random() < 0.8
                                       else rng.choice(game.legal_actions(state, s))) for s in sorted(to_act)}).state
        trace.append(state)
    picked, seen = [], set()
    for st in trace:
        phase = game.view_json(st, None)["phase"]
        if phase not in seen:
            seen.add(phase)
            picked.append(st)
    picked += [trace[len(trace) // 2], trace[-1]]
    return picked, seen


def check_png(png: bytes) -> Image.Image:
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    assert len(png) <= MAX_BYTES
    image = Image.open(io.BytesIO(png))
    assert image.width == MAX_WIDTH and 100 <= image.height <= MAX_HEIGHT
    assert not image.info.get("Creation Time") and "tIME" not in image.info
    return image


def legal_codes(game, state, seat) -> tuple[str, ...]:
    return tuple(game.encode(a) for a in game.legal_actions(state, seat))


CASES = [("gang-of-dice", 3, 4, {}), ("three-player-moon", 3, 3, {}), ("shop-battle", 4, 2, {}),
         ("shop-battle", 6, 6, {}), ("moonshine", 2, 101, {}), ("moonshine", 4, 3, {"variant": "regular"})]


@pytest.mark.parametrize("key,players,seed,options", CASES)
def test_boards_and_panels_render_in_every_phase_within_limits(key, players, seed, options):
    game = GAMES[key].game
    states, phases = sample(key, players, seed, options)
    assert PHASES[key + ("-regular" if options.get("variant") == "regular" else "")] <= phases, phases
    lang = "fr" if seed % 2 else "en"
    for state in states:
        check_png(render.render_board(key, game.view_json(state, None), NAMES[:players], lang, cache=None))
        for seat in range(players):
            png = render.render_panel(key, game.view_json(state, seat), legal_codes(game, state, seat),
                                      NAMES[:players], lang, cache=None)
            check_png(png)


@pytest.mark.parametrize("key", sorted(key for key, spec in GAMES.items() if spec.renderer))
def test_pictures_are_deterministic_and_follow_only_the_view(key):
    """Two states a seat cannot tell apart (``hidden_variant``) give it byte-identical pictures;
    the public picture is the same for states that differ only in hidden information; a changed
    view gives a changed picture."""
    game = GAMES[key].game
    players = min(max(game.min_players, 3), game.max_players)
    states, _ = sample(key, players, seed=7)
    running = [s for s in states if game.to_act(s)][:3]
    assert running
    for state in running:
        other = game.hidden_variant(state, None, salt=99)
        assert game.view_json(other, None) == game.view_json(state, None)
        a = render.render_board(key, game.view_json(state, None), NAMES[:players], "en", cache=None)
        b = render.render_board(key, game.view_json(other, None), NAMES[:players], "en", cache=None)
        assert a == b
        for seat in range(players):
            twin = game.hidden_variant(state, seat, salt=seat + 1)
            assert game.view_json(twin, seat) == game.view_json(state, seat)
            legal = legal_codes(game, state, seat)
            a = render.render_panel(key, game.view_json(state, seat), legal, NAMES[:players], "en", cache=None)
            b = render.render_panel(key, game.view_json(twin, seat), legal_codes(game, twin, seat),
                                    NAMES[:players], "en", cache=None)
            assert a == b
    first, last = running[0], states[-1]
    assert render.render_board(key, game.view_json(first, None), NAMES[:players], "en", cache=None) != \
        render.render_board(key, game.view_json(last, None), NAMES[:players], "en", cache=None)


def test_names_and_language_change_the_picture():
    game = GAMES["gang-of-dice"].game
    view = game.view_json(game.setup(3, 3, {}), None)
    en = render.render_board("gang-of-dice", view, NAMES[:3], "en", cache=None)
    assert render.render_board("gang-of-dice", view, NAMES[:3], "fr", cache=None) != en
    assert render.render_board("gang-of-dice", view, ("X", "Y", "Z"), "en", cache=None) != en


def test_the_cache_returns_the_same_bytes_without_redrawing(monkeypatch):
    game = GAMES["three-player-moon"].game
    view = game.view_json(game.setup(5, 3, {}), None)
    module = render.renderer("three-player-moon")
    calls = []
    real = module.board
    monkeypatch.setattr(module, "board", lambda *a: calls.append(1) or real(*a))
    cache = PictureCache(size=2)
    first = render.render_board("three-player-moon", view, NAMES[:3], "en", cache=cache)
    again = render.render_board("three-player-moon", dict(view), list(NAMES[:3]), "en", cache=cache)
    assert again == first and len(calls) == 1 and (cache.hits, cache.misses) == (1, 1)
    render.render_board("three-player-moon", view, NAMES[:3], "fr", cache=cache)
    assert len(calls) == 2
    # the least recently used picture leaves when the cache is full
    render.render_board("three-player-moon", view, ("A", "B", "C"), "en", cache=cache)
    render.render_board("three-player-moon", view, NAMES[:3], "en", cache=cache)
    assert len(calls) == 4 and len(cache) == 2


def test_a_drawing_that_gave_nothing_is_drawn_again():
    """A renderer that returned nothing (a failed picture) is not kept: the next call draws."""
    cache = PictureCache(size=4)
    results = iter([b"", b"png"])
    assert cache.get_or_draw("k", lambda: next(results)) == b""
    assert cache.get_or_draw("k", lambda: next(results)) == b"png"
    assert cache.get_or_draw("k", lambda: b"other") == b"png" and len(cache) == 1


def test_async_rendering_runs_in_a_worker_thread(monkeypatch):
    game = GAMES["gang-of-dice"].game
    view = game.view_json(game.setup(3, 3, {}), None)
    module = render.renderer("gang-of-dice")
    threads = []
    real = module.board
    monkeypatch.setattr(module, "board", lambda *a: threads.append(threading.get_ident()) or real(*a))
    png = asyncio.run(render.render_board_png("gang-of-dice", view, NAMES[:3], "en", cache=PictureCache()))
    assert png is not None and check_png(png)
    assert threads and threads[0] != threading.get_ident()


def test_a_failing_renderer_yields_none_and_logs(monkeypatch, caplog):
    def broken(*args):
        raise RuntimeError("boom")

    game = GAMES["moonshine"].game
    state = game.setup(3, 3, {})
    module = render.renderer("moonshine")
    monkeypatch.setattr(module, "board", broken)
    monkeypatch.setattr(module, "panel", broken)
    cache = PictureCache()
    assert asyncio.run(render.render_board_png("moonshine", game.view_json(state, None), NAMES[:3], "en",
                                               cache=cache)) is None
    assert asyncio.run(render.render_panel_png("moonshine", game.view_json(state, 0), (), NAMES[:3], "en",
                                               cache=cache)) is None
    assert len(cache) == 0
    assert "rendering the moonshine board failed" in caplog.text
    # a malformed view or an unknown game too
    assert asyncio.run(render.render_board_png("gang-of-dice", {"round": 1}, NAMES[:3], "en")) is None
    assert asyncio.run(render.render_board_png("no-such-game", {}, NAMES[:3], "en")) is None


def test_the_picture_functions_rebuild_the_typed_view_and_refuse_a_json_that_is_no_view(monkeypatch):
    """The worker gets the view's JSON and draws from the typed view it rebuilds: the very view
    ``game.view`` gives (its class chosen by the keys); keys or values of no view are refused."""
    game = GAMES["three-player-moon"].game
    state = game.setup(5, 3, {})
    module = render.renderer("three-player-moon")
    seen = []
    real = module.panel
    monkeypatch.setattr(module, "panel", lambda view, *a: seen.append(view) or real(view, *a))
    render.render_panel("three-player-moon", game.view_json(state, 1), (), NAMES[:3], "en", cache=None)
    assert seen == [game.view(state, 1)] and type(seen[0]) is type(game.view(state, 1))
    view = game.view_json(state, 0)
    for bad in ({**view, "extra": 1}, {**view, "phase": "dance"}, {**view, "hand": [[9, 9, 9]]}, [view]):
        with pytest.raises(ValueError):
            render.render_panel("three-player-moon", bad, (), NAMES[:3], "en", cache=None)
    with pytest.raises(ValueError):  # another game's view
        render.render_board("gang-of-dice", game.view_json(state, None), NAMES[:3], "en", cache=None)


def test_a_game_spec_says_whether_its_renderer_draws_a_legend_and_the_bot_reads_it_without_the_renderer(monkeypatch):
    """``GameSpec.legend`` is true exactly for the renderers that have ``legend(t)``; the
    board's "Legend" button (:func:`bot.render.legend`) is decided without importing one."""
    for key, spec in GAMES.items():
        if spec.renderer is not None:
            assert spec.legend == hasattr(render.renderer(key), "legend"), key

    def no_import(name):
        raise AssertionError(f"{name} imported")

    monkeypatch.setattr(render.importlib, "import_module", no_import)
    assert render.legend("moonshine") and not render.legend("gang-of-dice") and not render.legend("no-such-game")


def test_font_renders_french_accents_and_text_is_readable_at_400_px():
    font = style.font(style.SMALL)
    missing = font.getmask("\u0378").getbbox()  # an unassigned code point: the "missing glyph" box
    for ch in "éèêàçôœÉÀ":
        assert font.getmask(ch).getbbox() != missing, ch
    assert style.SMALL * 400 / style.WIDTH >= 14


def test_render_tool_writes_the_board_and_every_panel(tmp_path, capsys):
    assert render_cli(["shop-battle", "--players", "3", "--seed", "4", "--steps", "3", "--out", str(tmp_path)]) == 0
    files = sorted(p.name for p in tmp_path.iterdir())
    assert files == ["shop-battle-board.png", "shop-battle-panel-0.png", "shop-battle-panel-1.png",
                     "shop-battle-panel-2.png"]
    for name in files:
        check_png((tmp_path / name).read_bytes())
    assert render_cli(["shop-battle", "--players", "9", "--out", str(tmp_path)]) == 2
    capsys.readouterr()
    assert render_cli(["shop-battle", "--option", "round_cap=7", "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err  # one line, as play and simulate say it, no pydantic page
    assert err == "bad --option round_cap=7: round_cap takes a whole number from 10 to 200, or none.\n"


def test_the_render_tool_names_every_seat_of_a_six_player_table():
    from bot.games import GAMES
    from bot.render.cli import NAMES

    assert len(set(NAMES)) >= max(spec.game.max_players for spec in GAMES.values())


def test_picture_labels_say_1_card_not_1_cards():
    from bot.i18n import Translator

    en, fr = Translator("en"), Translator("fr")
    assert en("sb.pic.pot", n=1) == "Pot: 1 card" and en("sb.pic.pot", n=2) == "Pot: 2 cards"
    assert en("sb.pic.pile", n=1) == "1 card" and en("tpm.pic.tiles", n=1) == "1 tile"
    assert en("god.pic.stock", n=1) == "Your stock: 1 die" and en("god.pic.table", n=0) == "On the table: 0 dice"
    assert fr("sb.pic.pot", n=0) == "Pot : 0 carte" and fr("sb.pic.pile", n=3) == "3 cartes"  # French: 0 is singular
    assert fr("god.pic.table", n=1) == "Sur la table : 1 dé"
    assert en("ms.pic.moon", n=1) == "Moon token" and en("ms.pic.moon", n=2) == "Moon tokens"
    assert fr("ms.pic.moon", n=0) == "jeton Lune" and fr("ms.pic.moon", n=2) == "jetons Lune"


async def test_play_images_writes_the_board_after_each_step(tmp_path):
    from bot.terminal import TerminalGame

    answers = iter(["1", "1", "2", "1", "1", "2", "1", "1"])

    def ask(prompt: str) -> str:
        try:
            return next(answers)
        except StopIteration:
            raise EOFError from None

    tg = TerminalGame("gang-of-dice", 2, seed=1, db_path=tmp_path / "t.db", ask=ask, out=lambda s: None,
                      images=tmp_path / "img")
    await tg.run()
    files = sorted((tmp_path / "img").iterdir())
    assert len(files) >= 2 and files[0].name == "board-0000.png"
    pictures = [f.read_bytes() for f in files]
    for png in pictures:
        check_png(png)
    # each step (a commit, then marks for reroll, which are public) changed the board
    assert all(a != b for a, b in zip(pictures, pictures[1:], strict=False))


def shop_card(name: str):
    """A face-up shop card of the views (its values do not matter here)."""
    from engine.shop_battle.view import ShopCardView

    return ShopCardView(id=0, name=name, year=1990, letters=len(name), street=3, games=4)


def collector_card(name: str, power: str = "skip"):
    """A face-up Collector card of the views."""
    from engine.shop_battle.view import CollectorCardView

    return CollectorCardView(id=1, name=name, power=power, params={})


def test_shop_battle_long_names_take_two_lines_not_an_ellipsis():
    from bot.render.draw import Canvas
    from bot.render.shop_battle import _CARD_H, card_height, title_lines

    c = Canvas()
    short = shop_card("Chez Lou")
    long = shop_card("Le Repaire des Héros")
    assert title_lines(c, short) == ["Chez Lou"]
    assert title_lines(c, long) == ["Le Repaire des", "Héros"]
    assert card_height(c, [short]) == _CARD_H
    assert card_height(c, [short, long]) > _CARD_H
    endless = collector_card(" ".join(["Fermé pour Travaux"] * 4))
    lines = title_lines(c, endless)
    assert len(lines) == 2 and lines[1].endswith("…")


def test_shop_battle_collector_band_wraps_in_french_and_the_card_grows():
    from bot.i18n import Translator
    from bot.render.draw import Canvas
    from bot.render.shop_battle import _CARD_H, card_height

    c = Canvas()
    skip = collector_card("Fermé")
    assert card_height(c, [skip], t=Translator("en")) == _CARD_H
    assert card_height(c, [skip], t=Translator("fr")) > _CARD_H


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_shop_battle_every_collector_band_fits_without_an_ellipsis(lang):
    """The band names the power without the rules' parenthesis ("Coup d'œil (HYPER U)" was cut
    to "Coup d'œil (HY…"); the card's name is printed under it."""
    from bot.i18n import Translator
    from bot.render.draw import Canvas
    from bot.render.shop_battle import _band_lines
    from engine.shop_battle.cards import POWER_KINDS

    c, t = Canvas(), Translator(lang)
    for power in POWER_KINDS:
        lines = _band_lines(c, collector_card("HYPER U", power), t, 240)
        text = " ".join(lines)
        assert "…" not in text and "(" not in text and "HYPER" not in text, (power, lines)
        assert text.replace(" · ", " ").split()[-1] in t(f"sb.kind.{power}"), (power, lines)


def test_moonshine_long_client_names_take_two_lines_and_the_row_grows():
    from bot.i18n import Translator
    from bot.render.draw import Canvas
    from bot.render.moonshine import _CARD_H, name_lines, row_height

    c = Canvas()
    en, fr = Translator("en"), Translator("fr")
    assert name_lines(c, 268, en) == ["The Lookout"]
    assert name_lines(c, 210, en) == ["The Short-Order", "Cook"]
    assert name_lines(c, 254, fr) == ["La Diseuse de", "bonne aventure"]
    assert row_height(c, [268], en) == _CARD_H
    # a row of two cards: one long name makes both cards taller, so the row stays aligned
    assert row_height(c, [268, 210], en) > _CARD_H
    assert name_lines(c, 268, fr) == ["Le Guetteur"]
    assert row_height(c, [268], fr) == _CARD_H


def test_three_player_moon_board_shows_the_high_bid_once():
    import dataclasses

    from bot.render.three_player_moon import other_bids

    game = GAMES["three-player-moon"].game
    view = game.view(game.setup(5, 3, {}), None)
    assert view.phase == "bid"
    assert other_bids(dataclasses.replace(view, bidder=2, bid=6, bids=((0, 0), (1, 5), (2, 6)))) == [(0, 0), (1, 5)]
    # only the high bid so far: no second line at all
    assert other_bids(dataclasses.replace(view, bidder=0, bid=4, bids=((0, 4),))) == []
    assert other_bids(dataclasses.replace(view, bidder=None, bid=0, bids=())) == []


@pytest.mark.parametrize(("lang", "expected"), [("en", ("Player 1 (you)", "AI 1 (strong)")),
                                                ("fr", ("Joueur 1 (vous)", "IA 1 (fort)"))])
async def test_play_images_name_each_ai_players_level_as_the_text_board(tmp_path, monkeypatch, lang, expected):
    import bot.render
    from bot.terminal import TerminalGame

    seen: list[tuple[str, ...]] = []

    async def board(game, view, names, lang):
        seen.append(tuple(names))
        return None

    monkeypatch.setattr(bot.render, "render_board_png", board)

    def ask(prompt: str) -> str:
        raise EOFError

    tg = TerminalGame("gang-of-dice", 2, seed=1, lang=lang, db_path=tmp_path / "t.db", ask=ask,
                      out=lambda s: None, images=tmp_path / "img", ai_levels=["strong"], pace=0)
    await tg.run()
    assert seen and seen[0] == expected


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_moonshine_coloured_dice_not_rolled_are_named_not_blank(lang):
    from bot.games import GAMES
    from bot.i18n import Translator
    from bot.render.moonshine import unrolled_dice

    assert unrolled_dice(["food", "food", "music", "", "music"]) == [3]
    assert unrolled_dice(["food", "drink", "music", "", ""]) == [3, 4]
    assert unrolled_dice(["", "", "", "", ""]) == [] and unrolled_dice(["food", "food", "food", "moon", "drink"]) == []
    assert Translator(lang).has("ms.pic.unrolled_both")
    g = GAMES["moonshine"].game
    state = g.setup(1, 3, {})
    for _ in range(10):
        state = g.apply(state, {s: g.ai_action(state, s) for s in g.to_act(state)}).state
    view = g.view_json(state, None)
    view["dice"] = [*view["dice"][:3], "", ""]
    from bot.render import render_board

    check_png(render_board("moonshine", view, ["A", "B", "C"], lang, cache=None))


def _drawn(monkeypatch) -> list[str]:
    """Every line of text the pictures draw from now on."""
    from bot.render.draw import Canvas

    lines: list[str] = []
    real = Canvas.text

    def text(self, x, y, text, size=style.BODY, fill=style.INK, bold=False, max_w=None, anchor="la"):
        lines.append(text if max_w is None else self.fit(text, max_w, size, bold))  # as drawn: clipped?
        return real(self, x, y, text, size, fill, bold, max_w, anchor)

    monkeypatch.setattr(Canvas, "text", text)
    return lines


@pytest.mark.parametrize(("lang", "subtitles", "out"), [
    ("en", ["Round 10/10", "Round 11 · past the 10-round cap: finishing the lap",
            "Round 12 · past the 10-round cap: lap finished"], "out in round 12"),
    ("fr", ["Manche 10/10", "Manche 11 · limite de 10 passée : fin du tour de table",
            "Manche 12 · limite de 10 passée : tour de table fini"], "éliminé manche 12"),
])
def test_shop_battle_picture_says_the_round_past_the_cap_and_when_a_player_went_out(monkeypatch, lang, subtitles, out):
    """Past the round cap the picture says the lap is being finished (not "Round 12/10"), and a
    player out shows the round it went out in, not a bare number that reads as a card count."""
    import dataclasses

    from bot.i18n import Translator
    from bot.render.shop_battle import board
    from tests.shop_tables import G, act, laps_table

    t = Translator(lang)
    st = laps_table(rules=2, cap=10)
    seen: dict[tuple[int, str], str] = {}
    while True:
        lines = _drawn(monkeypatch)
        check_png(board(G.view(st, None), NAMES[:4], t))
        seen[(st.round, st.phase)] = lines[1].removesuffix(" · Test deck")  # the title bar: title, subtitle
        if not G.to_act(st):
            break
        st = act(st, "c.year.hi").state
    assert [seen[(10, "choose")], seen[(11, "choose")], seen[(12, "over")]] == subtitles
    assert not any("/10" in text for (r, _), text in seen.items() if r > 10)
    gone = dataclasses.replace(st, piles=((), *st.piles[1:]), out=(12, None, None, None))
    lines = _drawn(monkeypatch)
    board(G.view(gone, None), NAMES[:4], t)
    assert out in lines and not any(line.endswith("(12)") for line in lines)


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_hyper_u_seconds_never_wrap_apart_from_their_number(lang):
    """"10 s" is written with a no-break space, which the pictures keep: the HYPER U panel's
    sentence and the Collector's power text wrap before "10", never between "10" and "s"."""
    from bot.i18n import Translator
    from bot.render.draw import Canvas
    from bot.render.style import plain

    t, c = Translator(lang), Canvas()
    for text in (t("sb.panel.target.peek", card="HYPER U", seconds=10), t("sb.power.peek", seconds=10)):
        text = plain(text)
        assert "10\u00a0s" in text
        for width in range(120, 760, 4):
            lines = c.wrap(text, width, style.SMALL)
            assert not any(line.startswith(("s ", "s)", "s.")) or line == "s" for line in lines), (width, lines)
            assert " ".join(lines).replace("\u00a0", " ") == text.replace("\u00a0", " ")
    assert plain("a \n b\u00a0c  **d**") == "a b\u00a0c d"


def _catalog_lines(value: object) -> list[str]:
    if isinstance(value, str):
        return [line for line in value.split("\n") if line]
    if isinstance(value, dict):
        return [line for v in value.values() for line in _catalog_lines(v)]
    if isinstance(value, list):
        return [line for v in value for line in _catalog_lines(v)]
    return []


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_text_drawn_word_by_word_is_pillows_line(lang):
    """A line of text is drawn from its words' masks side by side: pixel for pixel, offset and
    width what Pillow draws for the whole line (the picture font has whole-pixel advances and
    no kerning), for the anchors the renderers use, in both fonts, on catalog texts and names."""
    import math

    from bot.i18n import catalog
    from bot.render import draw

    lines = sorted(set(_catalog_lines(catalog(lang))))
    texts = [*NAMES, "fi ffi AV Wo Tête-à-tête", "10\u00a0s ×2 — 3★", " 3 ", "a  b", *random.Random(1).sample(lines, 40)]
    for size, bold in ((style.SMALL, False), (style.HEAD, True)):
        font = style.font(size, bold)
        for anchor in ("la", "lm", "ma", "mm", "ra", "rm", "rb"):
            for text in texts:
                mask, offset = draw._text_mask(text, size, bold, anchor)
                ref, ref_offset = draw._pillow_mask(text, size, bold, anchor)
                assert (offset, mask.size) == (ref_offset, ref.size), (text, size, anchor)
                assert mask.tobytes() == ref.tobytes(), (text, size, anchor)
                assert draw._text_width(text, size, bold) == math.ceil(font.getlength(text)), text
