"""`python -m bot simulate`: same seed, same summary; bad arguments are refused cleanly."""

from __future__ import annotations

import subprocess
import sys

import pytest

from bot.__main__ import main
from bot.simulate import simulate
from engine.registry import GAMES


def test_same_seed_same_summary():
    game = GAMES["gang-of-dice"]
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
