"""The README and docs/operations.md against the code: the README stays short and free of
history; every command they quote is one the command line accepts as written; the README's
slash-command table is the bot's registered commands with who may use them; the README names
every setting; their relative links lead somewhere; the systemd unit passes
``systemd-analyze verify``."""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import discord
import pytest

from bot.__main__ import build_parser, main
from bot.settings import Settings

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
OPERATIONS = ROOT / "docs" / "operations.md"
UNIT = ROOT / "scripts" / "systemd" / "speakeasy.service"

#: What the README may weigh: it is for players and server admins (galleries, figures and
#: running the bot for real live in docs/).
README_MAX_BYTES = 15_000

#: Placeholders the docs may put in a command, and what the test types in their place.
PLACEHOLDERS = {"APPLICATION_ID": "123456789012345678", "GAME": "moonshine"}


def _text(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def test_the_readme_stays_under_15_kb():
    size = len(README.read_bytes())
    assert size <= README_MAX_BYTES, f"README.md is {size} bytes; move details to docs/ (at most {README_MAX_BYTES})"


def test_the_readme_has_no_history_and_no_benchmark_figures():
    text = _text(README)
    for pattern in (r"\bissue \d+", r"\bround \d+", r"\bsteps/s\b", r"\bp\d\d\b", r"\bbaseline"):
        found = re.search(pattern, text, re.IGNORECASE)
        assert found is None, f"README.md: {found.group(0)!r} belongs in docs/performance.md or git"
    assert "(docs/performance.md)" in text


def _quoted(text: str) -> list[str]:
    """Every piece of code the page quotes: each line of a fenced block (its ``#`` comment cut
    off) and each inline code span outside the blocks."""
    pieces: list[str] = []
    outside = []
    for n, part in enumerate(re.split(r"^```[^\n]*\n", text, flags=re.MULTILINE)):
        if n % 2:  # inside a fence
            pieces += [re.sub(r"\s+#.*$", "", line).strip() for line in part.splitlines()]
        else:
            outside.append(part)
    pieces += re.findall(r"`([^`\n]+)`", "\n".join(outside))
    return [p for p in pieces if p]


def _commands(path: Path) -> list[list[str]]:
    """The arguments of every ``python -m bot`` / ``scripts/start.sh`` command ``path`` quotes,
    placeholders filled in."""
    found = []
    for piece in _quoted(_text(path)):
        match = re.search(r"(?:scripts/start\.sh|python -m bot)(?=\s|$)(.*)", piece)
        if match is None:
            continue
        argv = [PLACEHOLDERS.get(word, word) for word in shlex.split(match.group(1))]
        unknown = [word for word in argv if re.fullmatch(r"[A-Z][A-Z_]+", word)]
        assert not unknown, f"{path.name}: {piece!r}: placeholder {unknown} not in PLACEHOLDERS"
        found.append(argv)
    return found


class _NoGame:
    """Stands in for the terminal game: ``main`` checks every argument of ``play`` first (game,
    seats, AI levels, options, pace), then builds the game; it is recorded instead of played."""

    made: list[dict[str, object]] = []

    def __init__(self, game: str | None, players: int, *args: object, **kwargs: object) -> None:
        _NoGame.made.append({"game": game, "players": players, **kwargs})

    async def run(self) -> int:
        return 0


@pytest.mark.parametrize("page", [README, OPERATIONS], ids=lambda p: p.name)
def test_every_command_the_docs_quote_is_accepted_as_written(page, monkeypatch, tmp_path, capsys):
    commands = _commands(page)
    assert commands, f"{page.name} quotes no command"
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    monkeypatch.setattr("bot.terminal.TerminalGame", _NoGame)
    monkeypatch.setattr("logging.basicConfig", lambda **kwargs: None)
    for argv in commands:  # an unknown subcommand or option: argparse's SystemExit(2) fails the test
        if "--help" in argv:
            with pytest.raises(SystemExit) as exit_:
                build_parser().parse_args(argv)
            assert exit_.value.code == 0, argv
        elif argv[:1] == ["render"]:
            from bot.render.cli import build_parser as render_parser

            render_parser().parse_args(argv[1:])
        elif argv[:1] in (["play"], ["rules"], ["invite"]):
            _NoGame.made.clear()
            assert main(argv) == 0, argv
            assert argv[0] != "play" or len(_NoGame.made) == 1, argv
        else:  # run, simulate, migrate-data: parsed, not run
            build_parser().parse_args(argv)
    capsys.readouterr()


def test_the_readme_quotes_the_five_terminal_examples():
    plays = [argv for argv in _commands(README) if argv[:1] == ["play"] and "--help" not in argv]
    assert len(plays) >= 5, plays
    assert ["play", "--resume"] in plays


def _registered(commands: list[dict]) -> dict[str, tuple[set[str], str | None]]:
    """``"table abandon"`` -> (its option names, the group's default member permissions)."""
    out = {}
    for command in commands:
        options = command.get("options") or []
        subs = [o for o in options if o["type"] == discord.AppCommandOptionType.subcommand.value]
        for sub in subs or [command]:
            path = command["name"] if sub is command else f"{command['name']} {sub['name']}"
            out[path] = ({o["name"] for o in sub.get("options") or []}, command.get("default_member_permissions"))
    return out


def _listed() -> dict[str, tuple[set[str], str]]:
    """The README's slash-command table: ``"table abandon"`` -> (option names, who may use it)."""
    out = {}
    for line in _text(README).splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 3 and cells[0].startswith("`/"):
            words = cells[0].strip("`/").split()
            path = " ".join(w for w in words if not w.endswith(":"))
            out[path] = ({w.rstrip(":") for w in words if w.endswith(":")}, cells[1])
    return out


async def test_the_readme_lists_every_slash_command_with_who_may_use_it(e2e):
    world = await e2e()
    registered = _registered(world.synced_commands())
    listed = _listed()
    assert sorted(listed) == sorted(registered)
    manage_guild = discord.Permissions(manage_guild=True).value
    for path, (options, permissions) in registered.items():
        names, who = listed[path]
        assert names == options, (path, names, options)
        if permissions is None:
            assert who.startswith("everyone"), (path, who)
        else:
            assert int(permissions) == manage_guild and who == "Manage Server", (path, who, permissions)


def test_the_readme_names_every_setting():
    text = _text(README)
    for name in Settings.model_fields:
        assert f"`{name.upper()}`" in text, name


def _anchors(text: str) -> set[str]:
    """The GitHub anchors of a Markdown page's headings."""
    anchors = set()
    for heading in re.findall(r"^#+ (.+)$", text, flags=re.MULTILINE):
        anchors.add(re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-"))
    return anchors


@pytest.mark.parametrize("page", [README, OPERATIONS, ROOT / "docs" / "performance.md"], ids=lambda p: p.name)
def test_the_pages_relative_links_lead_somewhere(page):
    text = _text(page)
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if re.match(r"[a-z]+:", target):
            continue
        file, _, anchor = target.partition("#")
        path = (page.parent / file).resolve() if file else page
        assert path.exists(), f"{page.name}: {target} leads nowhere"
        if anchor:
            assert anchor in _anchors(_text(path)), f"{page.name}: no heading for #{anchor} in {path.name}"


def test_operations_has_the_backups_section_the_storage_errors_point_to():
    """A damaged database file's start-up message points to "the backup and restore section of
    docs/operations.md": it is named "Backups" (anchor #backups)."""
    assert "backups" in _anchors(_text(OPERATIONS))
    for word in ("VACUUM INTO", ".backup", "pg_dump", "pg_restore", "PRAGMA integrity_check", "user_version"):
        assert word in _text(OPERATIONS), word


def _unit_lines(text: str) -> dict[str, str]:
    return dict(line.split("=", 1) for line in text.splitlines() if re.match(r"^[A-Z]\w*=", line))


def test_the_systemd_unit_starts_the_bot_from_the_clones_venv():
    keys = _unit_lines(_text(UNIT))
    assert keys["ExecStart"] == f"{keys['WorkingDirectory']}/.venv/bin/python -m bot"
    assert keys["KillSignal"] == "SIGINT"  # the bot closes cleanly on it (discord.py's KeyboardInterrupt)


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd-analyze is not installed here")
def test_the_systemd_unit_passes_systemd_analyze_verify(tmp_path):
    """The unit, with ``ExecStart`` pointed at this interpreter and ``WorkingDirectory`` at this
    checkout, loads without an error or a warning."""
    text = _text(UNIT)
    keys = _unit_lines(text)
    text = text.replace(f"WorkingDirectory={keys['WorkingDirectory']}", f"WorkingDirectory={ROOT}")
    text = text.replace(f"ExecStart={keys['ExecStart']}", f"ExecStart={sys.executable} -m bot")
    copy = tmp_path / UNIT.name
    copy.write_text(text, encoding="utf-8")
    done = subprocess.run(["systemd-analyze", "verify", "--man=no", str(copy)], capture_output=True, text=True,
                          cwd=tmp_path, timeout=60)
    ours = [line for line in (done.stdout + done.stderr).splitlines() if UNIT.name in line]
    assert done.returncode == 0 and not ours, done.stdout + done.stderr
