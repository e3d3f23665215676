"""The command line's messages (``python -m bot play|render|simulate``): a bad argument is one
clear line and an exit status, never a traceback, in the same words whichever command says it."""

from __future__ import annotations

import errno
from pathlib import Path

import pytest

from bot.__main__ import main


@pytest.mark.parametrize("kind", ["file", "under a file"])
def test_render_refuses_an_out_that_is_a_file_or_cannot_be_made_in_one_line(tmp_path, capsys, kind):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    out = blocker if kind == "file" else blocker / "pics"  # under a file: the folder cannot be made
    assert main(["render", "gang-of-dice", "--steps", "0", "--out", str(out)]) == 2
    assert capsys.readouterr().err == (f"Cannot write pictures to {out}: Not a directory. Give --out a folder "
                                       "you can write to (it is created if missing).\n")


def test_render_says_in_one_line_when_a_picture_cannot_be_written(tmp_path, capsys, monkeypatch):
    def full(self: Path, data: bytes) -> int:
        raise OSError(errno.ENOSPC, "No space left on device", str(self))

    monkeypatch.setattr(Path, "write_bytes", full)
    assert main(["render", "gang-of-dice", "--steps", "0", "--out", str(tmp_path / "pics")]) == 2
    assert capsys.readouterr().err.startswith(f"Cannot write pictures to {tmp_path / 'pics'}: No space left on device.")


def _refusal(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    """The one line ``python -m bot ARGV`` refuses ``argv`` with (render: exit 2 and standard
    error; play and simulate: ``SystemExit`` with the line)."""
    try:
        status = main(argv)
    except SystemExit as exc:
        assert isinstance(exc.code, str), exc.code
        return exc.code
    assert status == 2, status
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    return err.rstrip("\n")


COMMANDS = {"play": ["play"], "simulate": ["simulate"], "render": ["render"]}


def _lines(capsys, game: str, *args: str, tmp_path: Path) -> dict[str, str]:
    out = str(tmp_path / "pics")
    return {name: _refusal([*head, game, *args, *(["--out", out] if name == "render" else [])], capsys)
            for name, head in COMMANDS.items()}


def test_a_player_count_the_game_refuses_is_said_alike_by_every_command(tmp_path, capsys):
    lines = _lines(capsys, "three-player-moon", "--players", "2", tmp_path=tmp_path)
    assert set(lines.values()) == {"Three-Player Moon (three-player-moon) is played by exactly 3 players (got --players 2)."}
    lines = _lines(capsys, "gang-of-dice", "--players", "9", tmp_path=tmp_path)
    assert set(lines.values()) == {"Gang of Dice (gang-of-dice) is played by 2 to 4 players (got --players 9)."}
    assert not (tmp_path / "pics").exists()


def test_an_option_value_out_of_range_says_the_values_the_option_takes(tmp_path, capsys):
    for value in ("5", "201", "abc"):
        lines = _lines(capsys, "shop-battle", "--option", f"round_cap={value}", tmp_path=tmp_path)
        assert set(lines.values()) == {
            f"bad --option round_cap={value}: round_cap takes a whole number from 10 to 200, or none."}, value
    lines = _lines(capsys, "moonshine", "--option", "variant=short", tmp_path=tmp_path)
    assert set(lines.values()) == {"bad --option variant=short: variant takes standard or regular."}


def test_an_unknown_option_is_said_alike_by_every_command(tmp_path, capsys):
    lines = _lines(capsys, "moonshine", "--option", "foo=1", tmp_path=tmp_path)
    assert set(lines.values()) == {"Moonshine (moonshine) has no option 'foo'. Options: variant."}
    lines = _lines(capsys, "gang-of-dice", "--option", "foo=1", tmp_path=tmp_path)
    assert set(lines.values()) == {"Gang of Dice (gang-of-dice) takes no options (--option foo was given)."}


def test_option_values_are_read_from_the_options_model():
    from pydantic import BaseModel, Field

    from bot.arguments import option_values
    from engine.moonshine import MoonshineOptions
    from engine.shop_battle import ShopBattleOptions

    class Toy(BaseModel):
        flag: bool = False
        count: int = Field(1, ge=1)
        name: str = "x"

    assert option_values(ShopBattleOptions, "round_cap") == "a whole number from 10 to 200, or none"
    assert option_values(MoonshineOptions, "variant") == "standard or regular"
    assert option_values(Toy, "flag") == "true or false"
    assert option_values(Toy, "count") is None and option_values(Toy, "name") is None


@pytest.mark.parametrize("xdg", [True, False])
def test_play_help_shows_the_real_default_of_db(tmp_path, capsys, monkeypatch, xdg):
    """The default file of ``--db`` follows ``XDG_DATA_HOME`` (bot.terminal.default_db_path):
    ``play --help`` shows the one in use, not a fixed ``~/.local/share`` path."""
    if xdg:
        monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
        expected = tmp_path / "data" / "speakeasy" / "terminal.db"
    else:
        monkeypatch.delenv("XDG_DATA_HOME", raising=False)
        expected = Path.home() / ".local" / "share" / "speakeasy" / "terminal.db"
    monkeypatch.setenv("COLUMNS", "400")  # one help line per option
    with pytest.raises(SystemExit):
        main(["play", "--help"])
    line = next(x for x in capsys.readouterr().out.splitlines() if "--db FILE " in x)
    assert line.endswith(f"(default: {expected})"), line
    assert "~" not in line


@pytest.mark.parametrize("argv", [["play", "chess"], ["frobnicate"], ["play", "gang-of-dice", "--pace", "abc"],
                                  ["rules", "chess"]])
def test_a_mistyped_command_is_one_line_naming_what_the_user_typed(argv, capsys, monkeypatch):
    monkeypatch.setenv("SPEAKEASY_COMMAND", "./scripts/start.sh")  # as scripts/start.sh sets it
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("./scripts/start.sh") and "--help" in err, err


def test_a_misused_play_option_is_one_line_saying_what_to_do(capsys, monkeypatch):
    monkeypatch.setenv("SPEAKEASY_COMMAND", "./scripts/start.sh")
    with pytest.raises(SystemExit) as exc:
        main(["play", "gang-of-dice", "--bogus"])
    assert exc.value.code == 2
    assert capsys.readouterr().err == ("./scripts/start.sh play: unrecognized arguments: --bogus "
                                       "(./scripts/start.sh play --help lists what it takes)\n")
    refusals = {
        ("gang-of-dice", "--pace", "1", "--fast"): "--fast is --pace 0: give one of --fast and --pace",
        ("gang-of-dice", "--table", "3"): "--table goes with --resume: play --resume --table N",
        ("moonshine", "--option", "variant=regular", "--option", "variant=standard"):
            "--option variant is given twice (regular, standard): give it once",
        ("gang-of-dice", "--ai", "strong,strong,strong,strong"):
            "--ai gives 4 levels, one per AI player, but Gang of Dice (gang-of-dice) has 1 to 3 AI players beside you: "
            "e.g. --ai normal",
        ("gang-of-dice", "--players", "4", "--ai", "easy,strong"):
            "--ai gives 2 levels but the table has 3 AI players (--players 4): give one level for them all, "
            "or one per AI seat, e.g. --ai normal,normal,normal",
    }
    for argv, line in refusals.items():
        with pytest.raises(SystemExit) as exc:
            main(["play", *argv])
        assert exc.value.code == line, argv
