"""Both catalogs have the same keys and the same placeholders; languages are picked as documented."""

from bot.i18n import LANGS, Translator, catalog, pick_lang, placeholders


def test_catalogs_have_same_keys_and_placeholders():
    en, fr = catalog("en"), catalog("fr")
    assert set(en) == set(fr), sorted(set(en) ^ set(fr))
    for key in en:
        assert placeholders(en[key]) == placeholders(fr[key]), key
        assert en[key].strip() and fr[key].strip(), key


def test_every_registered_game_has_a_name_and_rules_in_both_languages():
    from engine.registry import GAMES

    for lang in LANGS:
        for key in GAMES:
            assert f"game.{key}.name" in catalog(lang)
            assert f"game.{key}.rules" in catalog(lang)


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


def test_french_command_names_are_valid_discord_names():
    import re

    for key, value in catalog("fr").items():
        if key.startswith("cmd.") and key.endswith(".name") or key.startswith("cmd.arg."):
            assert re.fullmatch(r"[-_\w]{1,32}", value) and value == value.lower(), key
