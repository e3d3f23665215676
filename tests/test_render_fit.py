"""Pictures (bot/render) keep their text inside its box: every line of a text is drawn, nothing
runs past the edge of its card or into an icon, and the legal-choice badges leave labels clear.
Texts are measured as drawn (the font's box of each line at its place), not as the code means
to draw them."""

from __future__ import annotations

import pytest

from bot.games import GAMES
from bot.i18n import Translator
from bot.render import style
from bot.render.draw import Box, Canvas
from bot.render.style import plain


def drawn_boxes(monkeypatch) -> list[tuple[str, Box]]:
    """Every line of text the pictures draw from now on, as drawn (clipped with "…" when it was)
    with the box its glyphs cover."""
    boxes: list[tuple[str, Box]] = []
    real = Canvas.text

    def text(self, x, y, text, size=style.BODY, fill=style.INK, bold=False, max_w=None, anchor="la"):
        shown = text if max_w is None else self.fit(text, max_w, size, bold)
        if shown:
            x0, y0, x1, y1 = style.font(size, bold).getbbox(shown, anchor=anchor)
            boxes.append((shown, (int(x) + x0, int(y) + y0, int(x) + x1, int(y) + y1)))
        return real(self, x, y, text, size, fill, bold, max_w, anchor)

    monkeypatch.setattr(Canvas, "text", text)
    return boxes


def inside(box: Box, outer: Box, margin: int = 0) -> bool:
    """``box`` lies within ``outer`` shrunk by ``margin`` px."""
    return (box[0] >= outer[0] + margin and box[1] >= outer[1] + margin and box[2] <= outer[2] - margin
            and box[3] <= outer[3] - margin)


def overlap(a: Box, b: Box, gap: int = 0) -> bool:
    """``a`` and ``b`` overlap, or come closer than ``gap`` px."""
    return a[0] < b[2] + gap and b[0] < a[2] + gap and a[1] < b[3] + gap and b[1] < a[3] + gap


def run(key: str, players: int, seed: int, steps: int, options: dict | None = None):
    """The state after ``steps`` AI steps (fewer when the game ends), as ``python -m bot render``."""
    game = GAMES[key].game
    state = game.setup(seed, players, options or {})
    for _ in range(steps):
        if not (to_act := game.to_act(state)):
            break
        state = game.apply(state, {s: game.ai_action(state, s) for s in sorted(to_act)}).state
    return game, state


# --- Shop Battle: a Collector's power text --------------------------------------------------------
def _collectors() -> list:
    from engine.shop_battle.cards import POWER_KINDS
    from engine.shop_battle.view import CollectorCardView

    cards = []
    for power in POWER_KINDS:
        params = {"peek": [{"seconds": 10}], "tribute": [{"cards": 1}, {"cards": 3}]}.get(power, [{}])
        for p in params:
            for name in ("HYPER U", "Le Repaire des Héros"):  # one line, two lines
                cards.append(CollectorCardView(id=1, name=name, power=power, params=p))
    return cards


@pytest.mark.parametrize("lang", ["en", "fr"])
@pytest.mark.parametrize(("w", "h"), [(240, 200), (300, 280)])  # the board's and HYPER U panel's, the top card's
def test_shop_battle_collector_power_text_is_drawn_whole_inside_its_card(monkeypatch, lang, w, h):
    """Every word of every power (each kind of :data:`POWER_KINDS`) is drawn, on lines inside the
    card, which :func:`card_height` makes tall enough; a row with a shop card takes that height."""
    from bot.render.shop_battle import _card, card_height
    from engine.shop_battle.view import ShopCardView

    t = Translator(lang)
    shop = ShopCardView(id=2, name="Chez Lou", year=1990, letters=7, street=3, games=40)
    boxes = drawn_boxes(monkeypatch)
    for card in _collectors():
        c = Canvas(max_height=900)
        height = card_height(c, [card], w=w, h=h, t=t)
        assert card_height(c, [shop, card], w=w, h=h, t=t) == height  # the row is aligned on the tallest
        boxes.clear()
        _card(c, 10, 10, card, None, t, w=w, h=height)
        text = plain(t(f"sb.power.{card.power}", **{"seconds": 10, "cards": 1, **card.params}))
        lines = [s for s, _ in boxes]
        assert " ".join(lines).endswith(text), (card, lines)
        assert not any("…" in s for s in lines), lines
        for s, box in boxes:
            assert inside(box, (10, 10, 10 + w, 10 + height), margin=4), (card.power, lang, s, box, height)


@pytest.mark.parametrize(("lang", "players", "seed", "steps", "tail"), [
    ("en", 4, 3, 6, "face down into the pot"),
    ("fr", 4, 4, 2, "à laquelle il participe pendant cette manche"),
])
def test_shop_battle_board_draws_the_whole_power_text(monkeypatch, lang, players, seed, steps, tail):
    """The newcomer's two boards (``render shop-battle``): the power text was cut mid-sentence."""
    from bot.render import draw
    from bot.render.shop_battle import draw_board

    monkeypatch.setattr(draw, "BANDS", draw.BandCache())  # every band drawn, none placed from before
    game, state = run("shop-battle", players, seed, steps)
    boxes = drawn_boxes(monkeypatch)
    draw_board(game.view(state, None), ("A", "B", "C", "D"), Translator(lang))
    assert " ".join(s for s, _ in boxes).find(tail) > 0


@pytest.mark.parametrize(("lang", "pot", "earlier"), [
    ("en", "Pot: 4 cards, 3 face down", "Earlier: Prix Imbattables (Tiebreaker)"),
    ("fr", "Pot : 4 cartes, dont 3 faces cachées", "Avant\u00a0: Prix Imbattables (Départage)"),
])
def test_shop_battle_board_says_the_face_down_pot_and_the_earlier_cards_in_words(monkeypatch, lang, pot, earlier):
    """The pot's face-down (Tribute) cards are said in words, not an unexplained "(3 ↓)"; a seat's
    earlier cards of the round, face up in the public view, are named (a Collector with its
    power), not only counted ("+1 earlier card")."""
    from bot.render import draw
    from bot.render.shop_battle import draw_board

    monkeypatch.setattr(draw, "BANDS", draw.BandCache())  # every band drawn, none placed from before
    game, state = run("shop-battle", 4, 3, 6)
    view = game.view(state, None)
    assert view.pot_face_down == 3 and view.last and view.last.plays[3][0].card.name == "Prix Imbattables"
    boxes = drawn_boxes(monkeypatch)
    draw_board(view, ("A", "B", "C", "D"), Translator(lang))
    lines = [s for s, _ in boxes]
    assert pot in lines and not any("↓" in s for s in lines)
    start = next(i for i, s in enumerate(lines) if s.startswith(earlier.split()[0]))
    assert " ".join(lines[start:start + 3]).startswith(earlier), lines[start:start + 3]
    for s, box in boxes[start:start + 3]:  # inside the card's column, above the card
        assert box[2] <= style.MARGIN + 240, (s, box)


def test_shop_battle_earlier_cards_name_a_bataille_card_with_its_compared_value():
    from bot.render.shop_battle import earlier_lines
    from engine.shop_battle.view import PlayView, ShopCardView

    c, t = Canvas(), Translator("en")
    tied = PlayView(card=ShopCardView(id=3, name="Lulu Jeux", year=2017, letters=8, street=509, games=1200), level=0)
    last = PlayView(card=ShopCardView(id=4, name="Chez Lou", year=1990, letters=7, street=3, games=40), level=1)
    assert earlier_lines(c, [last], "letters", t) == []
    assert " ".join(earlier_lines(c, [tied, last], "letters", t)) == "Earlier: Lulu Jeux (8)"
    assert " ".join(earlier_lines(c, [tied, last], None, t)) == "Earlier: Lulu Jeux"


# --- Moonshine: Client cards -----------------------------------------------------------------------
def _vertical_lines(c: Canvas) -> list[Box]:
    """The vertical rules drawn on ``c`` from now on (a card's divider before its lower bonus)."""
    lines: list[Box] = []
    real = c.d.line

    def line(xy, *args, **kwargs):
        x0, y0, x1, y1 = (int(v) for v in xy[:4])
        if x0 == x1:
            lines.append((x0, min(y0, y1), x1, max(y0, y1)))
        return real(xy, *args, **kwargs)

    c.d.line = line  # type: ignore[method-assign]
    return lines


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_moonshine_every_client_card_keeps_its_text_inside_and_clear_of_the_divider(monkeypatch, lang):
    """Every Client of every card set (``all_clients``), alone and beside the card with the
    longest name: each text drawn lies inside the card and stays 6 px clear of the divider before
    the lower bonus ("+1/−1 🌙 effet immédiat" ran into it and the bonus icon, in French); an
    instant effect's label is drawn whole (wrapped, the card grown by :func:`row_height`)."""
    from bot.render.moonshine import _CARD_W, band_extra, client_card, row_height
    from engine.moonshine.cards import all_clients

    t = Translator(lang)
    clients = all_clients()
    longest = max(range(len(clients)), key=lambda k: len(getattr(clients[k].name, lang)))
    boxes = drawn_boxes(monkeypatch)
    for cid, card in enumerate(clients):
        for row in ([cid], [cid, longest]):
            c = Canvas(max_height=400)
            rules = _vertical_lines(c)
            h = row_height(c, row, t)
            boxes.clear()
            client_card(c, cid, 10, 10, t, h=h, band=band_extra(c, row, t))
            outer = (10, 10, 10 + _CARD_W, 10 + h)
            for s, box in boxes:
                assert inside(box, outer, margin=2), (cid, s, box, outer)
                for rule in rules:
                    assert not overlap(box, rule, gap=6), (cid, lang, s, box, rule)
            if card.upper.kind == "instant":
                drawn = " ".join(s for s, _ in boxes)
                assert t("ms.pic.instant") in drawn, (cid, drawn)


def test_moonshine_french_instant_text_wraps_and_its_row_grows():
    """"effet immédiat" beside "+1/−1 🌙" does not fit before a lower bonus: two lines, and the
    row is one line taller (the English "instant effect" fits on one)."""
    from bot.render.moonshine import _CARD_H, _LINE2, name_lines, row_height
    from engine.moonshine.cards import all_clients

    en, fr, c = Translator("en"), Translator("fr"), Canvas()
    cards = [k for k, cl in enumerate(all_clients()) if cl.upper.kind == "instant" and cl.lower
             and cl.upper.effect == "plus1_minus1_moon" and len(name_lines(c, k, fr)) == len(name_lines(c, k, en)) == 1]
    assert cards
    for k in cards:
        assert row_height(c, [k], fr) == _CARD_H + _LINE2 and row_height(c, [k], en) == _CARD_H


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_moonshine_game_over_board_has_no_dice_row(monkeypatch, lang):
    """Before the first roll and once the game is over no die is drawn: the last round's blank white dice and solid blue and
    orange dice beside "active player" read as a roll. A running board still shows its five dice."""
    import bot.render.moonshine as ms

    t = Translator(lang)
    game, over = run("moonshine", 5, 4, 2000)
    assert not game.to_act(over)
    _, running = run("moonshine", 5, 4, 20)
    dice: list[int] = []
    monkeypatch.setattr(ms, "die", lambda c, x, y, size, *a, **k: dice.append(size))
    boxes = drawn_boxes(monkeypatch)
    ms.draw_board(game.view(running, None), ("A", "B", "C", "D", "E"), t)
    assert len(dice) == 5 and t("ms.pic.active") in [s for s, _ in boxes]
    dice.clear()
    boxes.clear()
    ms.draw_board(game.view(over, None), ("A", "B", "C", "D", "E"), t)
    assert dice == [] and t("ms.pic.active") not in [s for s, _ in boxes]
    for options in ({}, {"variant": "regular"}):  # before the first roll: set-up, draft
        game, start = run("moonshine", 5, 4, 0, options)
        assert game.view(start, None).phase in ("setup", "draft")
        ms.draw_board(game.view(start, None), ("A", "B", "C", "D", "E"), t)
        assert dice == [], options


# --- the legal-choice badges ----------------------------------------------------------------------
def badges(monkeypatch, *modules) -> list[tuple[Box, Box]]:
    """The "✓" tab of every legal-choice frame drawn from now on, with the box it frames
    (through ``draw`` and each of ``modules``, which import :func:`legal_frame` by name)."""
    import bot.render.draw as draw

    tabs: list[tuple[Box, Box]] = []
    real = draw.legal_frame

    def frame(c, box):
        box = tuple(int(v) for v in box)
        tabs.append((draw.legal_tab(box), box))
        return real(c, box)

    for module in (draw, *modules):
        monkeypatch.setattr(module, "legal_frame", frame)
    return tabs


def clear_of(boxes: list[tuple[str, Box]], tabs: list[tuple[Box, Box]], gap: int = 4) -> list[tuple[str, Box, Box]]:
    """The texts that a badge covers or comes within ``gap`` px of (but a chip's own label, in
    the box the badge frames)."""
    return [(s, box, tab) for s, box in boxes for tab, framed in tabs
            if overlap(box, tab, gap) and not inside(box, framed)]


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_three_player_moon_badges_leave_the_suit_labels_clear(monkeypatch, lang):
    """The hand's "✓" badges sat on the group labels ("Les 6", "Les 3"): the newcomer's discard
    (``render three-player-moon --seed 2 --steps 3``) and every seat along a playout."""
    import bot.render.three_player_moon as tpm
    from tests.test_render import legal_codes, sample

    game, state = run("three-player-moon", 3, 2, 3)
    states = [state, *sample("three-player-moon", 3, 5)[0]]
    tabs = badges(monkeypatch, tpm)
    boxes = drawn_boxes(monkeypatch)
    for st in states:
        for seat in range(3):
            tabs.clear()
            boxes.clear()
            tpm.panel(game.view(st, seat), legal_codes(game, st, seat), ("A", "B", "C"), Translator(lang))
            assert not clear_of(boxes, tabs), clear_of(boxes, tabs)


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_shop_battle_hyper_u_badges_leave_the_prompt_clear(monkeypatch, lang):
    """The target chips' badges touched the prompt above them (``render shop-battle --players 3
    --seed 1 --steps 7``, the panel of the Collector's owner)."""
    from bot.render.shop_battle import panel
    from tests.test_render import legal_codes

    game, state = run("shop-battle", 3, 1, 7)
    pending = game.view(state, None).pending
    assert pending is not None
    owner = pending.owner
    tabs = badges(monkeypatch)
    boxes = drawn_boxes(monkeypatch)
    panel(game.view(state, owner), legal_codes(game, state, owner), ("A", "B", "C"), Translator(lang))
    assert len(tabs) >= 2 and not clear_of(boxes, tabs), clear_of(boxes, tabs)


@pytest.mark.parametrize(("key", "players", "seed", "options"), [
    ("gang-of-dice", 3, 4, {}), ("three-player-moon", 3, 3, {}), ("shop-battle", 4, 2, {}), ("moonshine", 3, 101, {}),
    ("moonshine", 4, 3, {"variant": "regular"})])
@pytest.mark.parametrize("lang", ["en", "fr"])
def test_no_badge_covers_a_text_in_any_panel(monkeypatch, key, players, seed, options, lang):
    """Every seat's panel along a playout (every phase): a badge stays 4 px clear of every text
    but its own chip's label (Gang of Dice's commit chips and Moonshine's chips touched the
    text above them, Moonshine's dice the seat's name and its spaces the Speakeasy's, Shop
    Battle's chips the label of the chip above)."""
    import bot.render as render
    import bot.render.draw as draw
    from tests.test_render import legal_codes, sample

    monkeypatch.setattr(draw, "BANDS", draw.BandCache())
    module = render.renderer(key)
    game = GAMES[key].game
    tabs = badges(monkeypatch, *[m for m in map(render.renderer, GAMES) if hasattr(m, "legal_frame")])
    boxes = drawn_boxes(monkeypatch)
    names = ("Alice", "Bérénice", "Chloé", "Dédé")[:players]
    framed = 0
    for state in sample(key, players, seed, options)[0]:
        for seat in range(players):
            tabs.clear()
            boxes.clear()
            module.panel(game.view(state, seat), legal_codes(game, state, seat), names, Translator(lang))
            framed += len(tabs)
            assert not clear_of(boxes, tabs), (state.phase, seat, clear_of(boxes, tabs))
    assert framed


# --- legends ----------------------------------------------------------------------------------------
def drawn_in_order(monkeypatch, module) -> list[tuple]:
    """Dice (``("die", face, fill)``) and texts (``("text", line)``) as ``module`` draws them,
    legends included (their cache emptied)."""
    import bot.render.draw as draw

    events: list[tuple] = []
    real_die, real_text = module.die, Canvas.text

    def die(c, x, y, size, face, fill=(255, 255, 255), *args, **kwargs):
        events.append(("die", face, tuple(fill)))
        return real_die(c, x, y, size, face, fill, *args, **kwargs)

    def text(self, x, y, text, *args, **kwargs):
        events.append(("text", text))
        return real_text(self, x, y, text, *args, **kwargs)

    monkeypatch.setattr(draw, "BANDS", draw.BandCache())
    monkeypatch.setattr(module, "die", die)
    monkeypatch.setattr(Canvas, "text", text)
    return events


def icon_before(events: list[tuple], prefix: str) -> tuple:
    """The die drawn just before the first text starting with ``prefix``."""
    k = next(i for i, e in enumerate(events) if e[0] == "text" and e[1].startswith(prefix))
    return next(e for e in reversed(events[:k]) if e[0] == "die")


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_gang_of_dice_stock_icon_is_the_legends(monkeypatch, lang):
    """The legend explains "dice committed / in stock" with the icon drawn beside "Your stock"
    (it showed six pips, the stock five) and beside each committed count on the board."""
    import bot.render.gang_of_dice as god
    from tests.test_render import legal_codes

    t = Translator(lang)
    game, state = run("gang-of-dice", 4, 5, 4)
    events = drawn_in_order(monkeypatch, god)
    god.panel(game.view(state, 0), legal_codes(game, state, 0), ("A", "B", "C", "D"), t)
    key = icon_before(events, t("god.pic.dice_count"))
    assert icon_before(events, t("god.pic.stock", n=0).split(":")[0].rstrip()) == key
    events.clear()
    view = game.view(state, None)
    committed = next(s.committed for s in view.seats if s.committed)
    god.draw_board(view, ("A", "B", "C", "D"), t)
    assert icon_before(events, t("god.pic.dice_count")) == key
    counts = [k for k, e in enumerate(events) if e == ("text", str(committed)) and events[k + 1][0] == "die"]
    assert counts and all(events[k + 1] == key for k in counts)  # a count, then its icon on its left


@pytest.mark.parametrize(("lang", "text"), [("en", "not playable now"), ("fr", "injouable pour l'instant")])
def test_three_player_moon_legend_explains_greyed_tiles_where_they_are_shown(monkeypatch, lang, text):
    """A hand with tiles that cannot be played (greyed: follow suit) has a legend entry for them;
    a hand with none greyed (every tile legal, or waiting) has none."""
    import bot.render.draw as draw
    import bot.render.three_player_moon as tpm
    from tests.test_render import legal_codes

    monkeypatch.setattr(draw, "BANDS", draw.BandCache())
    game, state = run("three-player-moon", 3, 1, 4)
    assert state.phase == "play" and 0 in game.to_act(state)
    legal = legal_codes(game, state, 0)
    assert 0 < len(legal) < len(game.view_json(state, 0)["hand"])
    boxes = drawn_boxes(monkeypatch)
    tpm.panel(game.view(state, 0), legal, ("A", "B", "C"), Translator(lang))
    assert text in [s for s, _ in boxes]
    for seat in (1, 2):  # waiting: no tile greyed
        boxes.clear()
        tpm.panel(game.view(state, seat), legal_codes(game, state, seat), ("A", "B", "C"), Translator(lang))
        assert text not in [s for s, _ in boxes]


@pytest.mark.parametrize(("lang", "line"), [("en", "Trumps: 5s"), ("fr", "Atouts : Les 5")])
def test_three_player_moon_panel_names_the_trumps_with_the_languages_colon(monkeypatch, lang, line):
    import bot.render.three_player_moon as tpm
    from tests.test_render import legal_codes

    game, state = run("three-player-moon", 3, 1, 4)
    boxes = drawn_boxes(monkeypatch)
    tpm.panel(game.view(state, 0), legal_codes(game, state, 0), ("A", "B", "C"), Translator(lang))
    assert line in [s for s, _ in boxes]


# --- Moonshine: the panel says the seat's own task ------------------------------------------------------
@pytest.mark.parametrize("variant", ["standard", "regular"])
@pytest.mark.parametrize("lang", ["en", "fr"])
def test_moonshine_panel_picture_says_the_seats_own_task_as_the_text_panel_does(monkeypatch, variant, lang):
    """Under "Your turn" a seat with a follow-up (keep a card, choose the Clients it keeps, place
    or lose a Moon token, discard, replace, draft) reads its own task, the first sentence of its
    text panel, not the table's public status; in the roll and action phases, the status."""
    from bot.i18n import Translator
    from bot.presenters.moonshine import task_text
    from bot.render import moonshine as ms
    from bot.render.style import plain
    from tests.test_moonshine_texts import P, ctx

    boxes = drawn_boxes(monkeypatch)
    game = GAMES["moonshine"].game
    t = Translator(lang)
    heads: set[str] = set()
    for seed in (1, 2, 3, 4):
        state = game.setup(seed, 3, {"variant": variant})
        for _ in range(400):
            to_act = game.to_act(state)
            if not to_act:
                break
            for seat in sorted(to_act):
                legal = tuple(game.encode(a) for a in game.legal_actions(state, seat))
                head = legal[0].partition(".")[0]
                if task_text(head, None, t) is None or head in heads:
                    continue
                heads.add(head)
                boxes.clear()
                ms.panel(game.view(state, seat), legal, ("A", "B", "C"), t)
                texts = [text for text, _ in boxes]
                sentence = texts[texts.index(t("pic.your_turn")) + 1]
                expected = plain(P.panel(game.view(state, seat), legal, ctx(lang, seat)).card.description)
                assert expected.startswith(sentence), (head, sentence, expected)
                assert sentence != plain(t(f"ms.status.{state.phase}")), head
            state = game.apply(state, {s: game.ai_action(state, s) for s in sorted(to_act)}).state
    assert {"keep", "pl"} <= heads and (variant == "standard" or "draft" in heads), heads
