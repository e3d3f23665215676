"""Moonshine presenter: Discord limits over playouts for every seat, panels only produce legal
codes, nothing private leaks into the board or another seat's panel, catalogs are complete."""

from __future__ import annotations

import random

import pytest

from bot.games import GAMES
from bot.i18n import Translator, catalog
from bot.presenters.base import RenderContext
from bot.presenters.moonshine import MoonshinePresenter, card_name
from bot.ui import Button, Select, block_length, check_block_limits, check_panel_limits
from engine.moonshine import Moonshine
from tests.catalog import says

G = Moonshine()
P = GAMES["moonshine"].presenter
LANGS = ("en", "fr")


def _ctx(lang: str, n: int, seat=None) -> RenderContext:
    return RenderContext(Translator(lang), tuple(f"Player name {i}" for i in range(n)), seat)


def _playout(players: int, variant: str, seed: int):
    """States of a game where seats play a mix of AI and random moves."""
    rng = random.Random(seed)
    state = G.setup(seed, players, {"variant": variant})
    states, events = [state], []
    while G.to_act(state):
        acts = {s: G.ai_action(state, s) if rng.random() < 0.6 else rng.choice(G.legal_actions(state, s))
                for s in sorted(G.to_act(state))}
        step = G.apply(state, acts)
        state = step.state
        states.append(state)
        events.append(step.events)
    return states, events


def _codes(state, seat) -> tuple[str, ...]:
    """The legal codes of ``seat``, as the bot gives them to the presenter."""
    return tuple(G.encode(a) for a in G.legal_actions(state, seat))


def _panel_codes(panel) -> set[str]:
    """Codes a panel can produce: buttons, single selects, and each multi-select option set."""
    codes = set(panel.codes())
    for row in panel.rows:
        for comp in row:
            if isinstance(comp, Select) and (comp.max_values > 1 or comp.prefix):
                values = [o.value for o in comp.options]
                codes.add(G.encode(G.decode(comp.code_for(values[: comp.min_values]))))
                codes.add(G.encode(G.decode(comp.code_for(values[-comp.min_values:]))))
    return codes


def _mentions(text: str, cid: int, t: Translator) -> bool:
    """True when card ``cid`` is shown in ``text`` (bold line, option label or short line)."""
    from engine.moonshine.cards import client_of

    name = card_name(cid, t)
    pts = client_of(cid).points
    return any(p in text for p in (f"**{name}**", f"{name} (", f"{name} {pts}★"))


def _text(card) -> str:
    return "\n".join([card.title, card.description, *(f.name + "\n" + f.value for f in card.fields)])


def _panel_text(panel) -> str:
    parts = [_text(panel.card)]
    for row in panel.rows:
        for comp in row:
            if isinstance(comp, Button):
                parts.append(comp.label)
            else:
                parts.append(comp.placeholder)
                parts += [f"{o.label} {o.description or ''}" for o in comp.options]
    return "\n".join(parts)


@pytest.mark.parametrize("variant", ["standard", "regular"])
@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_limits_codes_and_no_leaks_over_a_playout(players, variant):
    states, _ = _playout(players, variant, seed=players * 31 + len(variant))
    lang = LANGS[players % 2]
    secrets = 0
    for state in states[:: max(1, len(states) // 40)] + [states[-1]]:
        public = G.view(state, None)
        board = P.board(public, _ctx(lang, players))
        assert check_block_limits(board) == [], check_block_limits(board)
        shown = {c for s in public.seats for c in (*s.clients, *s.validated)}
        hidden = {s: {c for q in seat.queue for c in q.cards} - shown for s, seat in enumerate(state.seats)}
        secrets += sum(len(h) for h in hidden.values())
        t = Translator(lang)
        board_text = _text(board)
        for s in range(players):
            for c in hidden[s]:
                assert not _mentions(board_text, c, t), "an offered card leaks into the board"
        for s in range(players):
            legal = _codes(state, s)
            panel = P.panel(G.view(state, s), legal, _ctx(lang, players, s))
            assert check_panel_limits(panel) == [], (state.phase, check_panel_limits(panel))
            codes = _panel_codes(panel)
            assert codes <= set(legal), (state.phase, codes - set(legal))
            direct = {c for c in legal if not c.startswith(("rr.", "draft.", "dis."))}
            assert direct <= codes, (state.phase, direct - codes)
            if legal:
                assert codes, "an acting seat must get controls"
            text = _panel_text(panel)
            for other in range(players):
                if other != s:
                    for c in hidden[other] - hidden[s]:
                        assert not _mentions(text, c, t), "another seat's offered card leaks"
    assert secrets, "the sample should include private offers"


def test_event_lines_are_complete_in_both_languages():
    states, events = _playout(4, "regular", seed=5)
    keys = set()
    for step_events in events:
        for e in step_events:
            keys.add(e.key)
            for lang in LANGS:
                line = P.event(e, _ctx(lang, 4))
                assert "{" not in line and not line.startswith("ms."), line
    assert {"ms.ev.roll", "ms.ev.validate", "ms.ev.keep", "ms.ev.end", "ms.ev.drafted"} <= keys
    for lang in LANGS:
        for key in ("ms.ev.gain", "ms.ev.plus2", "ms.ev.plus1minus1", "ms.ev.reshuffle", "ms.ev.lose",
                    "ms.ev.replace", "ms.ev.token_lost", "ms.ev.discarded", "ms.ev.pick_none"):
            assert key in catalog(lang)


def test_private_drawn_cards_are_only_in_private_events():
    _, events = _playout(3, "standard", seed=8)
    private = [e for evs in events for e in evs if e.key == "ms.ev.drew_private"]
    assert private and all(e.audience is not None and len(e.audience) == 1 for e in private)
    assert all("cards" not in e.params for evs in events for e in evs if e.audience is None and e.key != "ms.ev.drafted")


def test_action_phase_panel_offers_the_three_actions():
    state = G.setup(11, 3, {"variant": "standard"})
    while state.phase != "action":
        state = G.apply(state, {s: G.ai_action(state, s) for s in G.to_act(state)}).state
    for s in range(3):
        legal = _codes(state, s)
        panel = P.panel(G.view(state, s), legal, _ctx("en", 3, s))
        codes = _panel_codes(panel)
        assert "draw" in codes and set(c for c in legal if c.startswith("val.")) <= codes
        assert "moon" in codes
    # the public board says everyone is choosing and never shows a choice
    board = P.board(G.view(state, None), _ctx("en", 3))
    assert says("ms.status.action") in board.description


def test_reroll_panel_is_a_multi_select_of_the_dice_and_a_stop_button():
    state = G.setup(11, 3, {"variant": "standard"})
    state = G.apply(state, {s: G.ai_action(state, s) for s in G.to_act(state)}).state
    assert state.phase == "roll"
    seat = state.active
    panel = P.panel(G.view(state, seat), _codes(state, seat), _ctx("fr", 3, seat))
    select = panel.rows[0][0]
    assert isinstance(select, Select) and select.prefix == "rr." and select.max_values == len(select.options) >= 3
    assert G.encode(G.decode(select.code_for(["2", "0"]))) == "rr.0.2" in _codes(state, seat)
    assert "stop" in panel.codes()


def test_rules_lobby_and_labels():
    for lang in LANGS:
        t = Translator(lang)
        card = P.rules(t)
        assert check_block_limits(card) == [] and len(card.description) < 3500
        sel = P.lobby_selects(_ctx(lang, 2))[0]
        for o in sel.options:
            name, _, value = o.value.partition("=")
            G.parse_options({name: value})
        view = G.view(G.setup(1, 2), None)
        assert P.action_label("moon", view, _ctx(lang, 2)) != "moon"
        assert card_name(0, t) in P.action_label("val.0", view, _ctx(lang, 2))
    assert GAMES["moonshine"].presenter.key == "moonshine"


def test_board_stays_within_the_embed_total_with_five_crowded_seats():
    states, _ = _playout(5, "regular", seed=21)
    worst = max(block_length(P.board(G.view(s, None), _ctx("fr", 5))) for s in states[::5])
    assert worst <= 6000


def test_double_redraw_board_says_a_second_draw_follows_and_the_panel_offers_the_first_only():
    from tests.test_moonshine import BLIND_PIG, VELVET, C, make, play, seat

    s = seat(BLIND_PIG, se=(0, 2, 1), clients=("The Cook", "The Baker"))
    state = make([s, seat(VELVET, clients=("The Crooner",))], dice=("food", "food", "food", "", ""),
                 deck=list(range(40, 50)))
    state = play(state, {0: f"val.{C['The Cook']}", 1: "moon"}).state
    for lang, text in (("en", "drawing again next"), ("fr", "piochera à nouveau")):
        board = P.board(G.view(state, None), _ctx(lang, 2))
        assert text in board.fields[0].value and text not in board.fields[1].value
    panel = P.panel(G.view(state, 0), _codes(state, 0), _ctx("en", 2, 0))
    assert _panel_codes(panel) == {"keep.40", "keep.41", "keep.42"}
    t = Translator("en")
    assert not any(_mentions(_panel_text(panel), c, t) for c in range(43, 50))


@pytest.mark.parametrize("lang", LANGS)
def test_discard_ways_follow_the_board_order_and_say_2x_only_for_two(lang):
    """Tokens on s1 (2), s2 (1) and The Baker (1), 2 to discard: each way names its places as
    the board lists them (Speakeasy bonuses, then Clients), the ways in that order too."""
    from tests.test_moonshine import C, owl_chosen, play

    state = play(owl_chosen(), {0: f"val.{C['The Night Owl']}", 1: "moon"}).state
    panel = P.panel(G.view(state, 0), _codes(state, 0), _ctx(lang, 2, 0))
    (sel,) = [c for row in panel.rows for c in row if isinstance(c, Select)]
    t = Translator(lang)
    me = G.view(state, 0).seats[0]
    s1, s2, baker = (P.slot_label(k, me, "standard", t)[0] for k in ("s1", "s2", f"c{C['The Baker']}"))
    assert baker == card_name(C["The Baker"], t) and s1 != s2
    assert [o.label for o in sel.options] == [f"2× {s1}", f"{s1} + {s2}", f"{s1} + {baker}", f"{s2} + {baker}"]
    assert set(_panel_codes(panel)) >= set(_codes(state, 0))


@pytest.mark.parametrize(("lang", "line"), [("en", "👁️ Ann draws 3 cards."), ("fr", "👁️ Ann pioche 3 cartes.")])
def test_a_draw_action_and_its_draw_are_one_log_line(lang, line):
    from engine.core import Event

    events = [Event("ms.ev.act_draw", {"seat": 0}, None), Event("ms.ev.act_moon", {"seat": 1}, None),
              Event("ms.ev.drew", {"seat": 0, "n": 3}, None),
              Event("ms.ev.drew_private", {"seat": 0, "cards": []}, (0,))]
    p = MoonshinePresenter()
    folded = p.log_events(events)
    assert [e.key for e in folded] == ["ms.ev.drew", "ms.ev.act_moon", "ms.ev.drew_private"]
    ctx = RenderContext(t=Translator(lang), names=("Ann", "Bob"), seat=None)
    assert p.event(folded[0], ctx) == line
    assert [e.key for e in p.log_events(events[:1])] == ["ms.ev.act_draw"]  # no draw yet: the action alone
