"""Shop Battle presenter: Discord limits, one click per legal action, no unrevealed card on the
board or in public log lines, both languages."""

from __future__ import annotations

import json
import random

import pytest

from bot.games import GAMES
from bot.i18n import LANGS, Translator, catalog, placeholders
from bot.presenters.base import RenderContext
from bot.presenters.shop_battle import ShopBattlePresenter
from bot.ui import Button, Select, check_block_limits, check_panel_limits
from engine.shop_battle import ShopBattle
from tests.catalog import says
from tests.shop_tables import act, laps_table, shop, start

G = GAMES["shop-battle"].game
P = GAMES["shop-battle"].presenter
NAMES = ("Alice", "Bob", "Chloé", "Dan", "Eve", "Farid")


def ctx(lang: str, seat: int | None = None, players: int = 6, **extras) -> RenderContext:
    return RenderContext(t=Translator(lang), names=NAMES[:players], seat=seat, extras=extras)


def text_of(card) -> str:
    return "\n".join([card.title, card.description, card.footer] + [f"{f.name}\n{f.value}" for f in card.fields])


def legal_codes(state, seat) -> tuple[str, ...]:
    return tuple(G.encode(a) for a in G.legal_actions(state, seat))


def revealed_names(view) -> set[str]:
    names = {p.card.name for seq in view.plays for p in seq}
    if view.last:
        names |= {p.card.name for seq in view.last.plays for p in seq}
    return names


def test_registered():
    assert isinstance(G, ShopBattle) and isinstance(P, ShopBattlePresenter) and P.key == G.key


def _check(state, lang: str, deck_names: list[str], step_events) -> None:
    n = state.players
    public = G.view(state, None)
    board = P.board(public, ctx(lang, players=n))
    assert check_block_limits(board) == [], check_block_limits(board)
    text = text_of(board)
    shown = revealed_names(public)
    for name in deck_names:
        if name in text:
            assert name in shown, (name, text)
    for seat in range(n):
        legal = legal_codes(state, seat)
        view = G.view(state, seat)
        panel = P.panel(view, legal, ctx(lang, seat, n))
        assert check_panel_limits(panel) == [], check_panel_limits(panel)
        assert panel.codes() == set(legal)
        ptext = text_of(panel.card) + json.dumps([[b.label for b in row] for row in panel.rows])
        own_top = view.top.name if view.top else None
        for name in deck_names:
            if name in ptext:
                assert name == own_top or name in shown, (seat, name)
        if "c.year.hi" in legal:
            assert [len(r) for r in panel.rows] == [4, 4] and own_top in ptext
        else:
            assert view.top is None
    ids = {c.name: i for i, c in enumerate(state.cards)}
    for event in step_events:
        line = P.event(event, ctx(lang, players=n))
        assert "{" not in line, line
        if event.audience is None:  # a public line names revealed cards only
            for name in deck_names:
                if name in line:
                    assert ids[name] in state.public, (name, line)


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_random_playouts_fit_discord_and_never_show_unrevealed_cards(players: int):
    deck_names = [c.name for c in G.setup(1, players).cards]
    for lang in LANGS:
        rng = random.Random(players * 10 + len(lang))
        state = G.setup(100 + players, players, {"round_cap": 30})
        events = ()
        steps = 0
        while True:
            if steps % 3 == 0 or not G.to_act(state):
                _check(state, lang, deck_names, events)
            if not G.to_act(state):
                break
            (seat,) = G.to_act(state)
            step = G.apply(state, {seat: rng.choice(G.legal_actions(state, seat))})
            state, events = step.state, step.events
            steps += 1
        assert state.phase == "over"
        board = P.board(G.view(state, None), ctx(lang, players=players))
        winners = ", ".join(NAMES[s] for s in G.outcome(state).winners)
        assert winners in board.description


def stacked(piles, chooser=0):
    """A stacked table (:func:`tests.shop_tables.start`) as this module's cases were written."""
    return start(piles, chooser=chooser, seed=3, deck="T")


def test_chooser_panel_shows_the_top_card_and_eight_buttons():
    st = stacked([[shop("Café du Coin 2", 1952, 43, 7), shop("X1"), shop("X2"), shop("X3")],
                   [shop("Y0"), shop("Y1"), shop("Y2"), shop("Y3")]])
    for lang, hi_word in (("en", "higher"), ("fr", "plus élevée")):
        panel = P.panel(G.view(st, 0), legal_codes(st, 0), ctx(lang, 0, 2))
        text = text_of(panel.card)
        assert "Café du Coin 2" in text and "1952" in text and "43" in text and "**10**" in text  # 10 letters
        buttons = [b for row in panel.rows for b in row]
        assert all(isinstance(b, Button) for b in buttons) and len(buttons) == 8
        assert [b.code for b in panel.rows[0]] == ["c.year.hi", "c.letters.hi", "c.street.hi", "c.games.hi"]
        assert [b.code for b in panel.rows[1]] == ["c.year.lo", "c.letters.lo", "c.street.lo", "c.games.lo"]
        assert hi_word in panel.rows[0][0].label and "1952" in panel.rows[0][0].label
        other = P.panel(G.view(st, 1), (), ctx(lang, 1, 2))
        assert other.rows == () and "Café" not in text_of(other.card) and "4" in text_of(other.card)


def test_collector_target_panel_names_the_players():
    st = stacked([[{"name": "HYPER U", "power": "peek"}, shop("A1"), shop("A2")],
                   [shop("B1"), shop("B2"), shop("B3")], [shop("C1"), shop("C2"), shop("C3")]])
    for lang in LANGS:
        panel = P.panel(G.view(st, 0), legal_codes(st, 0), ctx(lang, 0, 3))
        assert [(b.code, b.label.split(" ")[0]) for b in panel.rows[0]] == [("t.1", "Bob"), ("t.2", "Chloé")]
        assert "HYPER U" in text_of(panel.card) and "10" in text_of(panel.card)
        board = P.board(G.view(st, None), ctx(lang, players=3))
        assert "HYPER U" in text_of(board) and "Alice" in board.description
        # the label of a target names the Collector (the terminal's "→ HYPER U: Bob" forced line)
        assert P.action_label("t.1", G.view(st, 0), ctx(lang, 0, 3)) == ("HYPER U: Bob" if lang == "en"
                                                                          else "HYPER U : Bob")
    step = G.apply(st, {0: G.decode("t.2")})
    private = next(e for e in step.events if e.key == "sb.ev.peek_result")
    line = P.event(private, ctx("en", 0, 3))
    assert "Chloé" in line and "C1 (founded 1990 · 1 letter · street no. 10 · 10 games in the shop)" in line and line.index("C1") < line.index("C3")
    assert "10\u00a0s" in line  # a no-break space: "10" and "s" never on two lines


def test_board_highlights_the_compared_value_and_the_winner():
    st = stacked([[shop("Forty Three", street=43), shop("A1"), shop("A2")],
                   [shop("Two Two Four", street=224), shop("B1"), shop("B2")],
                   [shop("Seven", street=7), shop("C1"), shop("C2")]])
    st = G.apply(st, {0: G.decode("c.street.hi")}).state
    board = P.board(G.view(st, None), ctx("en", players=3))
    result = next(f for f in board.fields if f.name.startswith("Round 1"))
    assert "Forty Three **43**" in result.value and "Two Two Four **224**" in result.value
    assert "🏆 **Bob**" in result.value and says("sb.char.street") in result.value and says("sb.dir.hi") in result.value
    assert result.value.index("Alice") < result.value.index("Bob")  # the chooser first
    piles = next(f for f in board.fields if f.name == "Piles")
    assert "Bob: 🂠 5" in piles.value and "🎴 Chloé" in piles.value
    fr = P.board(G.view(st, None), ctx("fr", players=3))
    assert fr.title.endswith(says("sb.board.title", "fr", round=2)) and any(
        says("sb.field.last", "fr", round=1) == f.name for f in fr.fields)


def test_action_labels_both_languages():
    view = G.view(G.setup(1, 3), None)
    assert P.action_label("c.year.hi", view, ctx("en", players=3)) == says(
        "sb.label.choose", char=says("sb.char.year"), dir=says("sb.dir.hi"))
    assert P.action_label("c.games.lo", view, ctx("fr", players=3)) == says(
        "sb.label.choose", "fr", char=says("sb.char.games", "fr"), dir=says("sb.dir.lo", "fr"))
    assert P.action_label("t.1", view, ctx("en", players=3)) == says("sb.label.target", name="Bob")
    assert P.action_label("t.2", view, ctx("fr", players=3)) == says("sb.label.target", "fr", name="Chloé")
    assert P.action_label("zz", view, ctx("en", players=3)) == "zz"


def test_lobby_selects_offer_decks_default_first_and_round_caps():
    decks = [(7, "Ma ville"), (9, "Quartier Nord")] + [(100 + k, f"Deck {k}") for k in range(40)]
    for lang in LANGS:
        deck_sel, cap_sel = P.lobby_selects(ctx(lang, decks=decks))
        assert isinstance(deck_sel, Select) and len(deck_sel.options) == 25
        assert deck_sel.options[0].value == "deck=default"
        assert [o.value for o in deck_sel.options[1:3]] == ["deck=7", "deck=9"]
        assert deck_sel.options[1].label == "Ma ville"
        assert [o.value for o in cap_sel.options] == [
            "round_cap=none", "round_cap=10", "round_cap=20", "round_cap=30", "round_cap=50"
        ]
        from bot.ui import Block, Panel

        assert check_panel_limits(Panel(Block(title="x"), rows=((deck_sel,), (cap_sel,)))) == []
    only_default, _ = P.lobby_selects(ctx("en"))
    assert [o.value for o in only_default.options] == ["deck=default"]
    # every option value is accepted by the options model (deck data aside)
    for value in ("round_cap=none", "round_cap=10", "round_cap=50"):
        name, raw = value.split("=")
        G.parse_options({name: raw})


def test_rules_cards_in_both_languages():
    for lang in LANGS:
        t = Translator(lang)
        card = P.rules(t)
        assert check_block_limits(card) == []
        assert len(t("game.shop-battle.rules")) < 3500
        assert "HYPER U" in card.description and len(card.fields[0].value.splitlines()) == 7
    assert "Bataille des commerces" == Translator("fr")("game.shop-battle.name")


def test_catalogs_match():
    en = {k: v for k, v in catalog("en").items() if k.startswith(("sb.", "game.shop-battle."))}
    fr = {k: v for k, v in catalog("fr").items() if k.startswith(("sb.", "game.shop-battle."))}
    assert set(en) == set(fr) and len(en) > 50
    for k in en:
        assert placeholders(en[k]) == placeholders(fr[k]), k


def _titles_through_the_cap(rules: int, lang: str) -> list[tuple[int, str, str]]:
    """``(round, phase, board title)`` of every state of a real 4-player game with cap 10."""

    st = laps_table(rules=rules, cap=10)
    out = []
    while True:
        out.append((st.round, st.phase, P.board(G.view(st, None), ctx(lang, players=4)).title))
        if not G.to_act(st):
            return out
        st = act(st, "c.year.hi").state


def test_board_title_past_the_round_cap_says_the_last_lap_is_being_played():
    # rules 2, 4 players, cap 10: rounds 11 and 12 finish the lap the cap fell in (RULINGS S6)
    for lang in ("en", "fr"):
        game = says("game.shop-battle.name", lang)
        titles = {(r, ph): title for r, ph, title in _titles_through_the_cap(2, lang)}
        assert titles[(9, "choose")] == says("sb.board.title", lang, game=game, round="9/10")
        assert titles[(10, "choose")] == says("sb.board.title", lang, game=game, round="10/10")
        for r in (11, 12):
            assert titles[(r, "choose")] == says("sb.board.title_last_lap", lang, game=game, round=r, cap=10)
        assert titles[(12, "over")] == says("sb.board.title_lap_done", lang, game=game, round=12, cap=10)
        assert not any("/10" in title for (r, _), title in titles.items() if r > 10)


def test_board_title_of_a_rules_1_table_stops_at_the_cap():
    titles = _titles_through_the_cap(1, "en")
    assert titles[-1] == (10, "over", says("sb.board.title", game=says("game.shop-battle.name"), round="10/10"))
    assert all("cap" not in title for _, _, title in titles)


def test_board_title_without_a_cap_is_the_round_alone():

    st = start([[shop() for _ in range(4)] for _ in range(2)], round_cap=None)
    for lang in ("en", "fr"):
        want = says("sb.board.title", lang, game=says("game.shop-battle.name", lang), round=1)
        view = G.view(st, None)
        assert view.round_cap is None
        assert P.board(view, ctx(lang, players=2)).title == want


def test_the_default_deck_has_a_name_in_each_language_and_stored_data_keeps_its_own():
    from bot.presenters.shop_battle import deck_title
    from engine.shop_battle import default_deck

    stored = default_deck().name
    assert stored == "Bataille des commerces"  # what states and snapshots carry: unchanged
    assert deck_title(stored, Translator("en")) == says("sb.deck.default_name")
    assert deck_title(stored, Translator("fr")) == says("sb.deck.default_name", "fr")
    assert deck_title("Mon paquet", Translator("en")) == "Mon paquet"  # an uploaded deck: as named


def test_a_bataille_left_to_one_tied_player_says_only_they_still_reveal():
    """A tied player with no card left drops out of the bataille within the same step (its
    event then lists the others only, S5): one left reads as such, not as a tie of one."""
    from engine.core import Event

    def line(lang: str, players: list[int]) -> str:
        return P.event(Event("sb.ev.bataille", {"players": players, "value": 0, "level": 1}), ctx(lang, players=4))

    assert line("en", [0, 2]) == "⚔️ Tie at 0 between Alice, Chloé: bataille!"
    assert line("en", [2]) == "⚔️ Tie at 0: bataille! Only Chloé still has a card to reveal."
    assert line("fr", [2]) == "⚔️ Égalité à 0 : bataille ! Seul Chloé a encore une carte à retourner."
