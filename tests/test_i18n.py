"""The catalogs: both languages have the same keys and parameters, plural objects have the CLDR
categories of their language, French elides before vowels, and the known bad texts are gone."""

import re

import pytest

from bot.games import GAMES  # the games' catalogs are merged once they are registered
from bot.i18n import (
    LANGS,
    Translator,
    catalog,
    pick_lang,
    placeholders,
    plural_categories,
    problems,
    render,
    starts_with_vowel,
)
from engine.core import Event


def leaves(message, skip_elisions=False):
    """Every template string of a message (all variants; without those of elision objects if
    ``skip_elisions``)."""
    if isinstance(message, str):
        yield message
    elif isinstance(message, list):
        for m in message:
            yield from leaves(m, skip_elisions)
    elif not (skip_elisions and "$elide" in message):
        for key, value in message.items():
            if not key.startswith("$"):
                yield from leaves(value, skip_elisions)


def test_catalogs_have_same_keys_and_placeholders():
    en, fr = catalog("en"), catalog("fr")
    assert set(en) == set(fr), sorted(set(en) ^ set(fr))
    for key in en:
        assert placeholders(en[key]) == placeholders(fr[key]), key
        assert render(en[key], "en", {}).strip() and render(fr[key], "fr", {}).strip(), key


def test_every_message_is_well_formed_for_its_language():
    for lang in LANGS:
        bad = {key: problems(msg, lang) for key, msg in catalog(lang).items() if problems(msg, lang)}
        assert not bad, bad


def test_cldr_categories_come_from_babel():
    assert plural_categories("en") == {"one", "other"}
    assert plural_categories("fr") == {"one", "many", "other"}


def test_problems_finds_a_missing_category_and_a_foreign_one():
    assert problems({"$plural": "n", "one": "{n} dé", "other": "{n} dés"}, "fr") == [
        "plural object misses ['many'] for fr"]
    assert problems({"$plural": "n", "one": "a", "few": "b", "other": "c"}, "en")
    assert problems({"$elide": "name", "vowel": "d'{name}"}, "fr")
    assert problems({"one": "a", "other": "b"}, "en")
    assert problems({"$plural": "n", "one": "a", "=0": "none", "other": "b"}, "en") == []


def test_no_catalog_text_hedges_a_plural():
    hedges = re.compile(r"\((s|e|x|es|nt)\)")
    for lang in LANGS:
        for key, msg in catalog(lang).items():
            for text in leaves(msg):
                assert not hedges.search(text), (lang, key, text)


def test_english_plurals_follow_cldr():
    t = Translator("en")
    assert t("god.seat.dice", n=1) == "1 die 🎲"
    assert t("god.seat.dice", n=2) == "2 dice 🎲"
    assert t("god.seat.dice", n=0) == "0 dice 🎲"
    assert t("god.table.dice", dice=1) == "🎲 **1** die on the table"
    assert t("god.panel.stock", stock=1) == "Your stock: **1** die."
    assert t("sb.pot_line_plain", cards=1) == "1 card"
    assert t("sb.pot_line_plain", cards=3) == "3 cards"
    assert t("ms.ev.gain", seat="Ann", n=1) == "🌙 Ann gains 1 Moon token from the dice."
    assert t("ms.status.roll", name="Ann", n=0) == "🎲 Ann rolls the dice (no reroll left)."
    assert t("ms.status.roll", name="Ann", n=1) == "🎲 Ann rolls the dice (1 reroll left)."
    assert t("tpm.seat_line", name="Ann", tricks=1, tiles=6) == "**Ann**: 1 trick · 6 tiles in hand"


def test_french_plurals_follow_cldr():
    t = Translator("fr")
    assert t("god.seat.dice", n=1) == "1 dé 🎲"
    assert t("god.seat.dice", n=2) == "2 dés 🎲"
    assert t("god.seat.dice", n=0) == "0 dé 🎲"  # French "one" covers 0 and 1
    assert t("god.seat.dice", n=1_000_000) == "1000000 de dés 🎲"  # CLDR "many"
    assert t("god.table.best", name="Bob", score=5, dice=1) == "Meilleur score : Bob, 5 avec 1 dé"
    assert t("god.table.best", name="Bob", score=5, dice=3) == "Meilleur score : Bob, 5 avec 3 dés"
    assert t("tpm.seat_line", name="Ann", tricks=0, tiles=7) == "**Ann** : 0 pli · 7 tuiles en main"


def test_known_bad_texts_are_fixed():
    en, fr = Translator("en"), Translator("fr")
    assert en("sb.status.over", names="Ann", n=1) == "🏆 Game over. Winner: **Ann**"
    assert en("sb.status.over", names="Ann, Bob", n=2) == "🏆 Game over. Winners: **Ann, Bob**"
    assert en("sb.ev.tribute", player="Ann", cards=1) == "🎁 **Ann**'s Collector: 1 card goes face down into the pot."
    assert en("god.btn.reroll", n=1) == "Reroll the marked die"
    assert en("god.btn.reroll", n=2) == "Reroll the 2 marked dice"
    assert en("err.players_exact", min=3, max=3).startswith("This game needs exactly 3 players")
    assert fr("deck.more", n=1) == "…et 1 autre problème."


@pytest.mark.parametrize("name, expected", [
    ("IA 1 🤖", "Statistiques d'IA 1 🤖"),
    ("Émile", "Statistiques d'Émile"),
    ("Hélène", "Statistiques d'Hélène"),
    ("Bob", "Statistiques de Bob"),
    ("42", "Statistiques de 42"),
])
def test_french_elides_de_before_a_vowel(name, expected):
    assert expected in Translator("fr")("stats.title", name=name)


@pytest.mark.parametrize("name", ["Joueur 1 (vous)", "IA 2", "Bob", "Émile"])
def test_french_shop_battle_and_waits_read_well_for_any_name(name):
    """No "de"/"d'"/"à" before a name (a generated "Joueur 1 (vous)" would want "du"/"au"): rephrased."""
    fr = Translator("fr")
    texts = [fr("sb.ev.peek", player="Ann", target=name, seconds=10),
             fr("sb.ev.peek_result", target=name, count=2, seconds=10, cards="x"),
             fr("sb.ev.swap", player="Ann", target=name), fr("sb.ev.tribute", player=name, cards=2),
             fr("sb.panel.wait", name=name), fr("god.panel.wait", name=name),
             fr("tpm.status.bid", name=name), fr("tpm.status.play", name=name)]
    assert texts[0] == f"🔍 **Ann** regarde le paquet que tient **{name}** pendant 10\u00a0s."  # never "10 / s"
    for text in texts:
        assert not re.search(r"(?:\bde |\bdu |\bd'|\b[àÀ] |\bau )\**" + re.escape(name), text), text


def test_elision_ignores_markdown_and_case():
    assert starts_with_vowel("**IA 2**") and starts_with_vowel("\\_ursula") and starts_with_vowel("Yves")
    assert not starts_with_vowel("**Bob**") and not starts_with_vowel("") and not starts_with_vowel("🤖")
    t = Translator("fr")
    assert t("stats.title", name="Anna") == "Statistiques d'Anna"
    assert t("stats.title", name="Zoé") == "Statistiques de Zoé"


def test_no_french_de_before_a_name_without_an_elision_object():
    """A French text with ``de {name}`` must be an elision object (or ``d'`` would be missing)."""
    names = {"name", "names", "seat", "player", "target", "winner", "chooser", "bidder", "slot", "card", "old"}
    for key, msg in catalog("fr").items():
        for text in leaves(msg, skip_elisions=True):
            for name in names:
                assert not re.search(r"\bde \**\{" + name + r"\}", text), (key, text)


def test_lobby_says_exactly_when_min_equals_max():
    t = Translator("en")
    assert t("lobby.seats_exact", n=2, min=3, max=3) == "Seats: 2 taken (exactly 3 players)"
    assert Translator("fr")("lobby.seats", n=1, min=2, max=5) == "Places : 1 prise (2 à 5 joueurs)"


def test_peek_and_scout_lines_label_every_value():
    from bot.presenters.base import RenderContext

    card = {"kind": "shop", "name": "Le Dé Rieur", "year": 2001, "letters": 16, "street": 9, "games": 0}
    one = {"kind": "shop", "name": "Tiny", "year": 1990, "letters": 1, "street": 1, "games": 1}
    presenter = GAMES["shop-battle"].presenter
    for lang, want, want_one in [
        ("en", "Le Dé Rieur (founded 2001 · 16 letters · street no. 9 · 0 games in the shop)",
         "Tiny (founded 1990 · 1 letter · street no. 1 · 1 game in the shop)"),
        ("fr", "Le Dé Rieur (fondé en 2001 · 16 lettres · n° 9 de la rue · 0 jeu en boutique)",
         "Tiny (fondé en 1990 · 1 lettre · n° 1 de la rue · 1 jeu en boutique)"),
    ]:
        ctx = RenderContext(t=Translator(lang), names=("Ann", "IA 1"), seat=0)
        peek = presenter.event(Event("sb.ev.peek_result", {"target": 1, "count": 2, "seconds": 10,
                                                           "cards": [card, one]}, audience=(0,)), ctx)
        assert want in peek and want_one in peek
        assert "(2001 · 16 · 9 · 0)" not in peek
        scout = presenter.event(Event("sb.ev.scout_result", {"player": 0, "tops": [{"seat": 1, "card": card}]},
                                      audience=(0,)), ctx)
        assert want in scout
    fr = RenderContext(t=Translator("fr"), names=("Ann", "IA 1"), seat=0)
    assert "Paquet que tient **IA 1**" in presenter.event(
        Event("sb.ev.peek_result", {"target": 1, "count": 1, "seconds": 10, "cards": [card]}, audience=(0,)), fr)


def test_every_registered_game_has_a_name_rules_and_score_unit_in_both_languages():
    for lang in LANGS:
        for key in GAMES:
            assert f"game.{key}.name" in catalog(lang)
            assert f"game.{key}.rules" in catalog(lang)
            assert f"game.{key}.score" in catalog(lang)


def test_pick_lang_prefers_user_then_guild_then_english():
    assert pick_lang("fr", "en-US") == "fr"
    assert pick_lang("de", "fr") == "fr"
    assert pick_lang("de", "ja") == "en"
    assert pick_lang(None, "") == "en"


def test_translator_falls_back_without_raising():
    t = Translator("fr")
    assert t("err.table_full", max=4) == "Cette table est complète (4 joueurs au plus)."
    assert t("no.such.key") == "no.such.key"
    assert "{max}" in t("err.table_full")  # a missing parameter never raises
    assert t("god.seat.dice") in ("{n} dés 🎲",)  # a missing count picks "other" and shows the placeholder


def test_french_command_names_are_valid_discord_names():
    for key, value in catalog("fr").items():
        if key.startswith("cmd.") and key.endswith(".name") or key.startswith("cmd.arg."):
            assert isinstance(value, str)
            assert re.fullmatch(r"[-_\w]{1,32}", value) and value == value.lower(), key


@pytest.mark.parametrize("key", sorted(GAMES))
def test_no_rendered_text_shows_a_placeholder_or_a_selector(key):
    """Over an AI game, every board, panel and log line in both languages is fully formatted:
    no ``{param}`` left visible (a parameter a message needs but its caller does not give)."""
    from bot.presenters.base import RenderContext
    from bot.ui import Button, Select

    game, presenter = GAMES[key].game, GAMES[key].presenter
    state = game.setup(7, game.min_players, {})
    left = re.compile(r"\{[a-z_]+(:[^}]*)?\}|\$plural|\$elide")
    texts: list[str] = []
    for _ in range(60):
        acting = sorted(game.to_act(state))
        if not acting:
            break
        for lang in LANGS:
            ctx = RenderContext(Translator(lang), tuple(f"IA {i}" for i in range(game.min_players)), None)
            card = presenter.board(game.view(state, None), ctx)
            texts += [card.title, card.description, card.footer or "", *(f.name + f.value for f in card.fields)]
            for seat in acting:
                sctx = RenderContext(ctx.t, ctx.names, seat)
                legal = tuple(game.encode(a) for a in game.legal_actions(state, seat))
                panel = presenter.panel(game.view(state, seat), legal, sctx)
                texts += [panel.card.description, panel.card.footer or "", *(f.name + f.value for f in panel.card.fields)]
                for row in panel.rows:
                    for comp in row:
                        texts.append(comp.label if isinstance(comp, Button) else comp.placeholder)
                        if isinstance(comp, Select):
                            texts += [o.label + (o.description or "") for o in comp.options]
                texts += [presenter.action_label(c, game.view(state, seat), sctx) for c in legal]
        step = game.apply(state, {s: game.ai_action(state, s) for s in acting})
        for lang in LANGS:
            ctx = RenderContext(Translator(lang), tuple(f"IA {i}" for i in range(game.min_players)), 0)
            texts += [presenter.event(e, ctx) for e in step.events]
        state = step.state
    bad = [x for x in texts if left.search(x)]
    assert not bad, bad[:5]
    assert len(texts) > 100


#: Per language, the words a game's texts must not use for one of its things, and the term they
#: use instead (the pictures' term too): one name for one thing in every text of a language.
OTHER_WORDS = {
    "fr": [
        (r"\bCollectors?\b", "Collectionneur"),  # Shop Battle
        (r"\b[Mm]is(?:é|és|ée|ées|er|ez)\b|\b(?:met|mis|mettre) en jeu\b", "engagés"),  # Gang of Dice
        (r"\b[Dd]ominos?\b", "tuile"),  # Three-Player Moon
        (r"\b[Ll]ancers\b|\b(?:[Uu]n|[Ll]e|[Dd]u|[Cc]e|[Cc]haque|premier|dernier) lancer\b", "jet"),  # a roll (the noun)
        (r"\b[Cc]ases?\b", "emplacement"),  # Moonshine: a Moon-token space
    ],
    "en": [
        (r"\bCollectionneurs?\b", "Collector"),
        (r"\b(?:[Bb]ets?|[Ss]takes?|[Ww]agers?)\b|\bput (?:in|into) play\b", "commit"),
        (r"\b[Dd]ominoe?s?\b", "tile"),
    ],
}


@pytest.mark.parametrize("lang", sorted(OTHER_WORDS))
def test_each_thing_has_one_name_in_each_language(lang):
    messages = catalog(lang)
    text = "\n".join(leaf for message in messages.values() for leaf in leaves(message))
    for pattern, term in OTHER_WORDS[lang]:
        found = sorted(key for key, message in messages.items()
                       if any(re.search(pattern, leaf) for leaf in leaves(message)))
        assert not found, f"{lang}: {found} use another word than {term!r} ({pattern})"
        assert term in text, term


def test_the_pictures_words_are_catalog_messages_of_both_languages():
    """The pictures take every word from the catalogs (the picture words are ``pic.*`` and each
    game's ``<prefix>.pic.*``, so the checks above cover them: "8 dominos", "lancers restants",
    "case vide" were once the pictures' own words). Every key a renderer names, and every key
    it asks for while drawing each phase of each game, exists in both languages: a missing key
    would be drawn as the key itself."""
    from pathlib import Path

    import bot.render
    from bot.games import GAMES
    from tests.test_render import legal_codes, sample

    en, fr = catalog("en"), catalog("fr")
    named: set[str] = set()
    for path in Path(bot.render.__file__).parent.glob("*.py"):
        named |= set(re.findall(r"""\bt\(\s*["']([a-z][\w.-]*)["']\s*[,)]""", path.read_text(encoding="utf-8")))
    assert {"pic.legend", "god.pic.stock", "tpm.pic.trick", "sb.pic.pile", "ms.pic.active"} <= named
    asked: set[str] = set()

    class Recording(Translator):
        def __call__(self, key: str, /, **params: object) -> str:
            asked.add(key)
            return super().__call__(key, **params)

    for key, spec in GAMES.items():
        if spec.renderer is None:
            continue
        module, game = bot.render.renderer(key), spec.game
        names = tuple(f"P{s}" for s in range(game.max_players))
        for options in game.conformance_options:
            for state in sample(key, game.min_players, 3, options)[0]:
                module.board(game.view(state, None), names, Recording("en"))
                for seat in range(state.players):
                    module.panel(game.view(state, seat), legal_codes(game, state, seat), names, Recording("fr"))
        if hasattr(module, "legend"):  # the legend on demand (Moonshine)
            module.legend(Recording("en"))
            module.legend(Recording("fr"))
    assert {"ms.pic.colour_red", "ms.pic.silhouette"} <= asked  # the keys made from a variable
    missing = sorted(k for k in named | asked if k not in en or k not in fr)
    assert not missing, missing


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_counts_that_can_be_one_say_it_in_the_singular(lang):
    """Three-Player Moon's points beside a seat in its picture, and a winner's score."""
    t = Translator(lang)
    assert t("tpm.pic.points", n=1) != t("tpm.pic.points", n=2).replace("2", "1")
    assert t("tpm.game_end", winner="A", score=1) != t("tpm.game_end", winner="A", score=2).replace("2", "1")
