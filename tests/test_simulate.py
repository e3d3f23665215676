"""`python -m bot simulate`: same seed, same summary; bad arguments are refused cleanly."""

from __future__ import annotations

import subprocess
import sys

import pytest

from bot.__main__ import main
from bot.games import GAMES
from bot.simulate import ci95, parse_levels, simulate


def test_same_seed_same_summary():
    game = GAMES["gang-of-dice"].game
    a = simulate(game, 20, 4, seed=1).lines()
    b = simulate(game, 20, 4, seed=1).lines()
    c = simulate(game, 20, 4, seed=2).lines()
    assert a == b
    assert a != c
    assert any("seat 3" in line for line in a)


def test_cli_prints_identical_summaries(capsys):
    assert main(["simulate", "gang-of-dice", "--games", "10", "--players", "3", "--seed", "1"]) == 0
    first = capsys.readouterr()
    assert main(["simulate", "gang-of-dice", "--games", "10", "--players", "3", "--seed", "1"]) == 0
    second = capsys.readouterr()
    assert first.out == second.out and "seat 0: won" in first.out
    assert "games/s" in first.err


def test_paths_typed_on_the_command_line_are_taken_from_where_they_were_typed(tmp_path, monkeypatch, capsys):
    """``scripts/start.sh`` runs the bot from the clone's root (for ``.env``) and passes the
    folder it was started from in ``SPEAKEASY_CALLER_DIR``: a relative ``--deck`` or render
    ``--out`` is found there, not in the clone."""
    import shutil
    from pathlib import Path

    from bot.settings import CALLER_DIR_ENV

    root = Path(__file__).resolve().parents[1]
    shutil.copy(root / "docs" / "decks" / "example-deck.json", tmp_path / "my-deck.json")
    monkeypatch.setenv(CALLER_DIR_ENV, str(tmp_path))
    assert main(["simulate", "shop-battle", "--games", "2", "--players", "2", "--deck", "my-deck.json"]) == 0
    assert "position 0: won" in capsys.readouterr().out
    assert main(["render", "gang-of-dice", "--players", "2", "--steps", "1", "--out", "pics"]) == 0
    assert list((tmp_path / "pics").glob("*.png")) and not (root / "pics").exists()
    monkeypatch.delenv(CALLER_DIR_ENV)
    with pytest.raises(SystemExit, match="my-deck.json"):  # run directly: from the current folder (the clone)
        main(["simulate", "shop-battle", "--games", "2", "--players", "2", "--deck", "my-deck.json"])


def test_cli_refuses_bad_player_count():
    with pytest.raises(SystemExit) as e:
        main(["simulate", "gang-of-dice", "--players", "9"])
    assert "2 to 4" in str(e.value)


def test_bot_without_token_explains_and_exits_2(tmp_path):
    env = {"PATH": "/usr/bin:/bin", "DISCORD_TOKEN": ""}
    proc = subprocess.run([sys.executable, "-m", "bot"], cwd=tmp_path, env={**env, "PYTHONPATH": str(__import__("pathlib").Path(__file__).parents[1])},
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    assert "DISCORD_TOKEN" in proc.stderr and "start.sh play gang-of-dice" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_positions_count_from_the_starter_and_add_up_to_the_games():
    game = GAMES["shop-battle"].game
    summary = simulate(game, 12, 3, seed=4)
    assert sum(summary.positions) == pytest.approx(12)  # shared first places are split
    lines = summary.lines()
    assert any(line.startswith("  position 0: won ") and "%) ±" in line for line in lines)
    first = game.setup(5, 3)
    assert game.turn_order(first)[0] == first.chooser  # position 0 = the first chooser (S4: to the right)
    assert game.turn_order(first)[1] == (first.chooser - 1) % 3


def test_moonshine_summary_has_one_line_per_speakeasy(capsys):
    assert main(["simulate", "moonshine", "--games", "3", "--players", "2", "--seed", "2", "--ai", "normal"]) == 0
    out = capsys.readouterr().out
    assert "speakeasy The " in out and "position 1: won" in out


def test_ai_levels_per_seat_and_bad_levels():
    assert parse_levels("normal", 3) == ("normal",) * 3
    assert parse_levels("normal,random", 2) == ("normal", "random")
    with pytest.raises(ValueError):
        parse_levels("genius", 2)
    with pytest.raises(ValueError):
        parse_levels("normal,normal,normal", 2)
    summary = simulate(GAMES["gang-of-dice"].game, 4, 2, seed=3, levels=("normal", "random"))
    assert any(line.startswith("  level random (1 seat): won ") for line in summary.lines())
    assert any(line.startswith("  level normal (1 seat): won ") for line in summary.lines())


def test_ci95_is_the_half_width_of_the_wilson_interval_in_points():
    assert ci95(50, 100) == pytest.approx(9.6, abs=0.05)
    assert ci95(4, 4) > 20, "a share of 100 % over 4 games is far from certain"
    assert ci95(1, 0) == 0.0


def test_a_shared_first_place_is_split_in_the_seat_lines_as_in_the_position_lines(monkeypatch):
    from engine.core import Outcome
    from tests.simgame import PickGame

    game = PickGame()
    monkeypatch.setattr(PickGame, "outcome",  # seats 0 and 1 share every first place
                        lambda self, state: Outcome(ranks=(1, 1, 3), scores=(2, 2, 0)) if not self.to_act(state) else None)
    summary = simulate(game, 6, 3, seed=1)
    assert summary.wins == [3, 3, 0] and sum(summary.positions) == pytest.approx(6)
    lines = summary.lines()
    assert "  seat 0: won 3 (50.0%) ±" in "\n".join(lines) and "  seat 2: won 0 (0.0%) ±" in "\n".join(lines)
    assert not any("extra" in line for line in lines)


def test_the_summary_explains_its_lines_to_a_reader_without_the_docs():
    lines = simulate(GAMES["moonshine"].game, 2, 2, seed=3).lines()
    text = "\n".join(lines)
    assert lines[1].startswith("  how to read 'won N (P%) ±CI [LO-HI%]'") and "95% confidence interval" in text
    assert "1/k" in text  # how ties count
    assert "  win share by turn position (position 0 = the player who starts; fair 50.0%):" in lines
    assert "  win share by speakeasy dealt (of the games in which it was dealt; fair 50.0%):" in lines
    assert any(line.startswith("  win share by seat (seat 0 = ") for line in lines)
    heading = lines.index("  counters of the game, summed over the 2 games:")
    assert all(line.startswith("    ") for line in lines[heading + 1:])
    cards = [line for line in lines if line.startswith("    Clients validated, card ")]
    ids = [int(line.split()[3]) for line in cards]
    assert cards and ids == sorted(ids), "card counters in numeric order"
    assert any(line.startswith("    games ended by the 60-round cap: ") for line in lines)
    sides = [line for line in lines if line.startswith("  speakeasy The ")]
    assert sum(int(line.rsplit(" of ", 1)[1].split()[0]) for line in sides) == 2 * 2  # every seat's side, dealt


def test_a_reader_that_stops_early_gets_no_traceback():
    root = __import__("pathlib").Path(__file__).parents[1]
    proc = subprocess.Popen([sys.executable, "-m", "bot", "simulate", "gang-of-dice", "--games", "2"], cwd=root,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()  # as `| head -1` does once it has its line: here before the first one
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=60) == 1
    assert "Traceback" not in err and "BrokenPipeError" not in err


def test_game_lengths_are_counted_in_the_games_own_unit():
    """Three-Player Moon is played in hands, the other games in rounds: the length line says so."""
    moon = simulate(GAMES["three-player-moon"].game, 2, 3, seed=1).lines()
    assert any(line.startswith("  hands per game: average ") for line in moon)
    assert not any("rounds" in line for line in moon)
    dice = simulate(GAMES["gang-of-dice"].game, 2, 3, seed=1).lines()
    assert any(line.startswith("  rounds per game: average ") for line in dice)


def test_the_summary_names_the_game_by_its_title():
    lines = simulate(GAMES["three-player-moon"].game, 1, 3, seed=1).lines()
    assert lines[0].startswith("Three-Player Moon (three-player-moon): 1 games, 3 players"), lines[0]
