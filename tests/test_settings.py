"""Settings come from the environment and .env; blanks mean unset; bad values are refused."""

import pytest
from pydantic import ValidationError

from bot.settings import load_settings


def test_env_file_and_blanks(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for var in ("DISCORD_TOKEN", "DEV_GUILD_ID", "TURN_TIMEOUT_SECONDS", "LOG_LEVEL", "DATABASE_PATH"):
        monkeypatch.delenv(var, raising=False)
    (tmp_path / ".env").write_text("DISCORD_TOKEN=\nDEV_GUILD_ID=\nTURN_TIMEOUT_SECONDS=90\nLOG_LEVEL=debug\n")
    s = load_settings()
    assert s.discord_token is None and s.dev_guild_id is None
    assert s.turn_timeout_seconds == 90 and s.log_level == "DEBUG"
    assert str(s.database_path) == "speakeasy.db"
    monkeypatch.setenv("DISCORD_TOKEN", "abc")  # the environment wins over .env
    s = load_settings()
    assert s.discord_token.get_secret_value() == "abc" and "abc" not in repr(s)


def test_bad_values_are_refused(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("TURN_TIMEOUT_SECONDS", "abc")
    with pytest.raises(ValidationError):
        load_settings()


def test_every_setting_is_documented_in_env_example():
    from pathlib import Path

    from bot.settings import Settings

    example = (Path(__file__).parents[1] / ".env.example").read_text()
    for name in Settings.model_fields:
        assert f"{name.upper()}=" in example, name


def test_enabled_games_default_all_and_comma_separated(tmp_path, monkeypatch):
    from bot.games import GAMES

    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("ENABLED_GAMES", raising=False)
    assert load_settings().games == tuple(GAMES)
    monkeypatch.setenv("ENABLED_GAMES", "")  # blank means unset: all
    assert load_settings().games == tuple(GAMES)
    monkeypatch.setenv("ENABLED_GAMES", " Moonshine , gang-of-dice,moonshine ")
    s = load_settings()
    assert s.games == ("gang-of-dice", "moonshine")  # registry order, no repeats, case ignored
    assert s.enabled_games == "gang-of-dice,moonshine"
    monkeypatch.setenv("ENABLED_GAMES", "all")
    assert load_settings().games == tuple(GAMES)


def test_unknown_enabled_game_is_refused_with_the_valid_keys(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("ENABLED_GAMES", "gang-of-dice,chess")
    with pytest.raises(ValidationError) as caught:
        load_settings()
    msg = caught.value.errors()[0]["msg"]
    assert "'chess'" in msg and "shop-battle" in msg


def test_shard_settings_are_validated(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for var in ("SHARD_COUNT", "SHARD_IDS"):
        monkeypatch.delenv(var, raising=False)
    from storage.base import Shards

    assert load_settings().shards == Shards(1, (0,))  # unset: one process, one shard
    assert load_settings(shard_count=4).shards == Shards(4, (0, 1, 2, 3))  # no ids: every shard
    monkeypatch.setenv("SHARD_COUNT", "4")
    monkeypatch.setenv("SHARD_IDS", " 2, 3 ")
    assert load_settings().shards == Shards(4, (2, 3))
    for count, ids, message in (("4", "4", "out of range"), ("4", "1,1", "repeated"), ("4", "one", "numbers"),
                                ("", "0", "needs SHARD_COUNT"), ("0", "0", "greater than or equal to 1")):
        monkeypatch.setenv("SHARD_COUNT", count)
        monkeypatch.setenv("SHARD_IDS", ids)
        with pytest.raises(ValidationError, match=message):
            load_settings()


def test_a_env_file_that_is_not_utf8_is_one_line_and_exit_2(tmp_path, monkeypatch, capsys):
    from bot.__main__ import run_bot

    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("DISCORD_TOKEN", raising=False)
    (tmp_path / ".env").write_bytes(b"LOG_LEVEL=INFO\nDISCORD_TOKEN=caf\xe9\n")  # Latin-1, not UTF-8
    assert run_bot() == 2
    err = capsys.readouterr().err
    assert err == ".env is not UTF-8 text (line 2: byte 0xe9, invalid continuation byte); save it as UTF-8 (see .env.example)\n"


def test_a_malformed_setting_is_one_line_naming_it_and_exit_2(tmp_path, monkeypatch, capsys):
    from bot.__main__ import run_bot

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PICTURES", "maybe")
    assert run_bot() == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("Invalid setting PICTURES: ") and \
        err.endswith("(.env.example lists every setting).\n"), err
