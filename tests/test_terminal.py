"""The terminal mode plays every game to the end through the TableService, validating input."""

from __future__ import annotations

import random
import re

import pytest

from bot.terminal import TerminalGame
from engine.registry import GAMES


class Player:
    """Types answers: first some garbage, then random numbers (bounded, so a bug cannot hang)."""

    def __init__(self, seed: int, limit: int = 20000) -> None:
        self.rng = random.Random(seed)
        self.asked = 0
        self.limit = limit
        self.script = ["", "banana", "0", "999"]

    def __call__(self, prompt: str) -> str:
        self.asked += 1
        if self.asked > self.limit:
            raise AssertionError("the terminal game did not end")
        if self.script:
            return self.script.pop(0)
        m = re.search(r"\((\d+)-(\d+)", prompt)
        if m:
            lo, hi = int(m.group(1)), int(m.group(2))
            return str(self.rng.randint(lo, min(hi, lo + 5)))
        if "spaces" in prompt or "espaces" in prompt:
            return " ".join(str(self.rng.randint(1, 4)) for _ in range(self.rng.randint(1, 3)))
        return str(self.rng.randint(1, 12))


@pytest.mark.parametrize("key", sorted(GAMES))
async def test_terminal_game_plays_to_the_end(key, tmp_path):
    game = GAMES[key]
    players = min(max(game.min_players, 3), game.max_players)
    lines: list[str] = []
    player = Player(seed=3)
    tg = TerminalGame(key, players, seed=11, lang="en", db_path=tmp_path / "t.db", ask=player, out=lines.append)
    assert await tg.run() == 0
    text = "\n".join(lines)
    assert "final standings" in text
    assert "Please type a number from 1 to" in text  # garbage input was refused and asked again


async def test_terminal_quit_leaves_cleanly(tmp_path):
    lines: list[str] = []
    answers = iter(["q"])
    tg = TerminalGame("gang-of-dice", 2, seed=1, lang="fr", db_path=tmp_path / "t.db",
                      ask=lambda p: next(answers), out=lines.append)
    assert await tg.run() == 1
    assert "À bientôt" in "\n".join(lines)


async def test_terminal_end_of_input_leaves_cleanly(tmp_path):
    def eof(prompt: str) -> str:
        raise EOFError

    tg = TerminalGame("gang-of-dice", 2, seed=1, db_path=tmp_path / "t.db", ask=eof, out=lambda s: None)
    assert await tg.run() == 1


def test_terminal_refuses_odd_digits_and_goes_back_from_sub_questions():
    from bot.terminal import parse_int

    assert parse_int("12") == 12
    assert parse_int("²") is None and parse_int("1" * 5000) is None and parse_int("-3") is None


async def test_q_in_a_number_prompt_goes_back_to_the_menu(tmp_path):
    # Gang of Dice, first turn: 1) Commit… (a number prompt). "q" there goes back to the menu.
    answers = iter(["1", "q", "1", "2", "q"])
    lines: list[str] = []

    def ask(prompt: str) -> str:
        lines.append(prompt)
        return next(answers)

    tg = TerminalGame("gang-of-dice", 2, seed=2, db_path=tmp_path / "t.db", ask=ask, out=lines.append)
    await tg.run()
    text = "\n".join(lines)
    assert "(q to go back)" in text
    assert text.count("1) Commit") >= 2  # the menu was shown again after "q"


def test_cli_options_are_named_and_checked():
    from bot.__main__ import main

    with pytest.raises(SystemExit) as e:
        main(["play", "gang-of-dice", "--option", "foo=1"])
    assert "no option 'foo'" in str(e.value)
    with pytest.raises(SystemExit) as e:
        main(["simulate", "moonshine", "--option", "variant=bogus"])
    assert "variant" in str(e.value)
    with pytest.raises(SystemExit):
        main(["play", "gang-of-dice", "--seed", str(2**70)])
