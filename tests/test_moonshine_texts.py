"""Moonshine comprehension: the card-line legend in /rules and in every panel,
what each Client misses, warnings before a replacement discards Moon tokens, and log lines that
name every discarded token when the event gives them."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from bot.games import GAMES
from bot.i18n import Translator
from bot.presenters.base import RenderContext
from bot.presenters.moonshine import card_option, missing
from engine.core import Event
from engine.moonshine.cards import card_set
from engine.moonshine.dice import shortfall
from engine.moonshine.icons import client_info
from tests.test_moonshine import (
    BLIND_PIG,
    VELVET,
    C,
    baker_replaced,
    codes_of,
    make,
    owl_chosen,
    owl_one_way,
    play,
    seat,
)

P = GAMES["moonshine"].presenter
LANGS = ("en", "fr")


def ctx(lang: str, seat_: int | None = 0) -> RenderContext:
    return RenderContext(Translator(lang), ("Ann", "IA 1"), seat_)


def panel_of(state, seat_: int, lang: str = "en"):
    from engine.moonshine import Moonshine

    g = Moonshine()
    return P.panel(g.view(state, seat_), codes_of(state, seat_), ctx(lang, seat_))


def field(panel, name: str) -> str:
    return next(f.value for f in panel.card.fields if f.name == name)


def test_rules_explain_the_card_line_notation():
    for lang in LANGS:
        card = P.rules(Translator(lang))
        legend = next(f.value for f in card.fields if f.name == Translator(lang)("ms.rules.cards"))
        assert "★" in legend and "🌙1" in legend and "→" in legend and "[●○ 🔵]" in legend
    en = next(f.value for f in P.rules(Translator("en")).fields if f.name == "Reading a Client card")
    assert "the Moon tokens to discard when you validate it" in en
    assert "the points it scores" in en and "lower bonus" in en


def test_every_panel_carries_the_legend():
    s = seat(BLIND_PIG, clients=("The Baker", "The Night Owl"))
    state = make([s, seat(VELVET, clients=("The Crooner",))], dice=("music", "music", "food", "", ""))
    for lang in LANGS:
        for seat_ in (0, 1):
            footer = panel_of(state, seat_, lang).card.footer
            assert footer == Translator(lang)("ms.legend.short")
            assert "★" in footer and "🌙" in footer and "→" in footer


def test_action_panel_says_what_each_client_misses():
    s = seat(BLIND_PIG, clients=("The Baker", "The Night Owl"))
    state = make([s, seat(VELVET, clients=("The Crooner",))], dice=("music", "music", "food", "food", ""))
    legal = codes_of(state, 0)
    assert not any(c.startswith("val.") for c in legal)
    panel = panel_of(state, 0)
    assert "No Client can be validated with these dice" in panel.card.description
    text = field(panel, "Not validable yet")
    # The Baker costs 🍗🍗🍗🥃: one white 🍗 only; the blue die shows 🍗 but Ann has no blue access
    assert "The Baker: missing 🍗🍗🥃 (🔵 shows 🍗 but you have no access to that die)" in text
    # The Night Owl costs 🎵🎵 and 2 Moon tokens: the dice are there, the tokens are not
    assert "The Night Owl: missing 2 Moon tokens 🌙" in text
    fr = field(panel_of(state, 0, "fr"), "Pas encore validables")
    assert "il manque 2 jetons Lune 🌙" in fr


def test_a_validable_client_is_not_listed_as_missing():
    s = seat(BLIND_PIG, se=(0, 0, 0), clients=("The Doorman", "The Baker"))
    state = make([s, seat(VELVET, clients=("The Crooner",))], dice=("music", "drink", "drink", "", ""))
    legal = codes_of(state, 0)
    assert f"val.{C['The Doorman']}" in legal and f"val.{C['The Baker']}" not in legal
    panel = panel_of(state, 0)
    text = field(panel, "Not validable yet")
    assert text == "The Baker: missing 🍗🍗🍗"  # its 🥃 is there, no die is locked
    assert "No Client can be validated" not in panel.card.description


@settings(max_examples=200, deadline=None)
@given(cid=st.integers(0, len(card_set().clients) - 1), sources=st.lists(st.integers(0, 3), min_size=7, max_size=7),
       tokens=st.integers(0, 4), discount=st.integers(0, 2))
def test_missing_is_exactly_what_makes_the_client_payable(cid, sources, tokens, discount):
    (food, music, drink), moon = missing(cid, sources, tokens, discount)
    ci = client_info(cid)
    src = [0, *sources]
    assert food + music + drink == shortfall(ci.cost, src)  # no more than needed
    more = list(src)
    more[1] += food
    more[2] += music
    more[4] += drink
    assert shortfall(ci.cost, more) == 0  # and enough
    assert moon == max(0, ci.moon - discount - tokens)


def test_replacing_a_client_warns_that_its_tokens_are_discarded():
    s = seat(BLIND_PIG, se=(0, 0, 0), clients=("The Baker", "The Crooner"), cl=(1, 0))
    state = make([s, seat(VELVET, clients=("The Doorman",))],
                 deck=[C["The Gambler"], C["The Cook"], C["The Regular"], 9])
    picking = play(state, {0: "draw", 1: "moon"}).state
    pick_panel = panel_of(picking, 0)
    assert "Keeping a card replaces one of your Clients: the Moon tokens on that Client are discarded" in \
        pick_panel.card.description
    replacing = play(picking, {0: f"pick.{C['The Cook']}", 1: "pl.s1"}).state
    panel = panel_of(replacing, 0)
    assert "⚠️ Replacing The Baker discards the Moon token on it." in panel.card.description
    assert "The Crooner discards" not in panel.card.description
    options = {o.value: o for row in panel.rows for comp in row for o in getattr(comp, "options", ())}
    assert options[f"rep.{C['The Baker']}"].description.startswith("⚠️ discards its 🌙")
    assert not options[f"rep.{C['The Crooner']}"].description.startswith("⚠️")
    # each option draws the Client's spaces as they are: the Baker's token is shown, not an empty space
    assert options[f"rep.{C['The Baker']}"].description.split(" · ", 1)[1] == \
        card_option(C["The Baker"], Translator("en"), "x", 1).description
    assert card_option(C["The Baker"], Translator("en"), "x", 1).description != \
        card_option(C["The Baker"], Translator("en"), "x", 0).description
    fr = panel_of(replacing, 0, "fr").card.description
    assert "⚠️ Remplacer La Boulangère défausse le jeton Lune qui s'y trouve." in fr


def test_no_pick_warning_without_tokens_at_stake():
    s = seat(BLIND_PIG, clients=("The Baker", "The Crooner"))
    state = make([s, seat(VELVET, clients=("The Doorman",))], deck=[1, 2, 3, 4])
    picking = play(state, {0: "draw", 1: "moon"}).state
    assert "⚠️" not in panel_of(picking, 0).card.description


def test_log_lines_name_every_discarded_token_when_the_event_gives_them():
    baker, owl = C["The Baker"], C["The Night Owl"]
    en, fr = ctx("en", None), ctx("fr", None)
    validate = Event("ms.ev.validate", {"seat": 0, "card": owl, "points": 3, "tokens": 2, "on_card": 1})
    assert P.event(validate, en) == ("✅ Ann validates The Night Owl (2 🌙 to discard) and now has 3 points. "
                                     "The Moon token on The Night Owl is discarded with it.")
    discarded = Event("ms.ev.discarded", {"seat": 0, "n": 2, "slots": {"s1": 1, f"c{baker}": 1}})
    assert P.event(discarded, en) == "🌙 Ann discards 2 Moon tokens: 1 from Speakeasy bonus 2, 1 from The Baker."
    assert P.event(discarded, fr) == "🌙 Ann défausse 2 jetons Lune : 1 sur le bonus 2 du bar, 1 sur La Boulangère."
    replaced = Event("ms.ev.replace", {"seat": 1, "card": C["The Cook"], "old": baker, "tokens": 2})
    assert P.event(replaced, en) == ("🔄 IA 1 replaces The Baker with The Cook; "
                                     "the 2 Moon tokens on The Baker are discarded.")


def public_lines(step, lang: str, *keys: str) -> list[str]:
    """The public log lines of a real engine step, for the given event keys."""
    c = ctx(lang, None)
    return [P.event(e, c) for e in step.events if e.key in keys and e.visible_to(None)]


def test_public_log_of_a_real_validation_names_every_discarded_token():
    owl = C["The Night Owl"]
    step = play(owl_one_way(), {0: f"val.{owl}", 1: "moon"})
    keys = ("ms.ev.validate", "ms.ev.discarded")
    assert public_lines(step, "en", *keys) == [
        "✅ Ann validates The Night Owl (2 🌙 to discard) and now has 0 points. "
        "The Moon token on The Night Owl is discarded with it.",
        "🌙 Ann discards 1 Moon token: 1 from Speakeasy bonus 2.",
    ]
    assert public_lines(step, "fr", *keys) == [
        "✅ Ann valide Le Noctambule (2 🌙 à défausser) et a maintenant 0 point. "
        "Le jeton Lune posé sur Le Noctambule est défaussé avec la carte.",
        "🌙 Ann défausse 1 jeton Lune : 1 sur le bonus 2 du bar.",
    ]


def test_public_log_of_a_real_chosen_discard_names_both_slots():
    owl, baker = C["The Night Owl"], C["The Baker"]
    new = play(owl_chosen(), {0: f"val.{owl}", 1: "moon"})
    assert public_lines(new, "en", "ms.ev.validate") == [
        "✅ Ann validates The Night Owl (2 🌙 to discard) and now has 0 points."]
    step = play(new.state, {0: f"dis.c{baker}a.s1a", 1: "pl.s0"})
    assert public_lines(step, "en", "ms.ev.discarded") == [
        "🌙 Ann discards 2 Moon tokens: 1 from Speakeasy bonus 2, 1 from The Baker."]
    assert public_lines(step, "fr", "ms.ev.discarded") == [
        "🌙 Ann défausse 2 jetons Lune : 1 sur le bonus 2 du bar, 1 sur La Boulangère."]


def test_public_log_of_a_real_replacement_says_the_tokens_go_with_the_old_client():
    step = play(baker_replaced(), {0: f"rep.{C['The Baker']}"})
    assert public_lines(step, "en", "ms.ev.replace") == [
        "🔄 Ann replaces The Baker with The Cook; the Moon token on The Baker is discarded."]
    assert public_lines(step, "fr", "ms.ev.replace") == [
        "🔄 Ann remplace La Boulangère par Le Cuisinier ; le jeton Lune posé sur La Boulangère est défaussé."]
    bare = play(baker_replaced(), {0: f"rep.{C['The Crooner']}"})
    assert public_lines(bare, "en", "ms.ev.replace") == ["🔄 Ann replaces The Crooner with The Cook."]
    assert public_lines(bare, "fr", "ms.ev.replace") == ["🔄 Ann remplace Le Crooner par Le Cuisinier."]


def test_rules_1_log_lines_stay_as_they_were():
    owl = C["The Night Owl"]
    step = play(owl_one_way(rules=1), {0: f"val.{owl}", 1: "moon"})
    assert public_lines(step, "en", "ms.ev.validate", "ms.ev.discarded") == [
        "✅ Ann validates The Night Owl (2 🌙 to discard) and now has 0 points."]
    step = play(baker_replaced(rules=1), {0: f"rep.{C['The Baker']}"})
    assert public_lines(step, "en", "ms.ev.replace") == ["🔄 Ann replaces The Baker with The Cook."]


def test_log_lines_without_token_names_keep_a_correct_plural():
    en = ctx("en", None)
    assert P.event(Event("ms.ev.discarded", {"seat": 0, "n": 1}), en) == "🌙 Ann discards 1 Moon token."
    line = P.event(Event("ms.ev.validate", {"seat": 0, "card": C["The Baker"], "points": 1, "tokens": 0}), en)
    assert line == "✅ Ann validates The Baker (no 🌙 to discard) and now has 1 point."


def test_the_active_player_sees_what_the_rerolls_should_find():
    s = seat(BLIND_PIG, clients=("The Doorman", "The Baker"))
    state = make([s, seat(VELVET, clients=("The Crooner",))], phase="roll", dice=("music", "drink", "food", "", ""),
                 rerolls=1)
    panel = panel_of(state, 0)
    text = field(panel, "Not validable yet")
    assert "The Doorman: missing 🥃" in text and "The Baker: missing 🍗🍗" in text


def test_the_same_follow_up_twice_is_shown_once_with_its_count():
    from bot.presenters.moonshine import collapse_repeats

    assert collapse_repeats(["placing a 🌙", "placing a 🌙", "losing 1 🌙"]) == ["placing a 🌙 ×2", "losing 1 🌙"]
    assert collapse_repeats(["a", "b", "a"]) == ["a", "b", "a"] and collapse_repeats([]) == []


def test_the_log_names_a_speakeasy_space_as_the_menu_does():
    """One name for one space: "The Copper Still (bonus 2)" in the menu, the log and the labels."""
    from bot.presenters.moonshine import speakeasy_name
    from engine.moonshine import Moonshine
    from engine.moonshine.cards import speakeasy_of

    g = Moonshine()
    state = g.setup(1, 2, {})
    sp = g.view(state, None).seats[0].speakeasy
    for lang in LANGS:
        t = Translator(lang)
        extras = P.log_extras(lambda: g.view(state, None))
        c = RenderContext(t, ("Ann", "IA 1"), None, extras)
        name = t("ms.slot.speakeasy", n=2, name=speakeasy_name(sp, t))
        assert speakeasy_of(sp).name.en in name or speakeasy_of(sp).name.fr in name
        assert P.event(Event("ms.ev.place", {"seat": 0, "slot": "s1"}), c) == t("ms.ev.place", seat="Ann", slot=name)
        assert P.action_label("pl.s1", g.view(state, 0), ctx(lang, 0)) == t("ms.act.pl", slot=name)
