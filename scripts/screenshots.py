"""What a player sees in Discord, as pictures, for the README: ``python -m scripts.screenshots``.

Plays the start of a Gang of Dice table through the offline harness (a real bot, real
interactions, pictures on) and screenshots, as Alice sees them in the harness's Discord-like page
(:mod:`tests.harness.preview`, the system Chromium): the lobby, the board message in the table's
thread and her private panel. Writes ``docs/images/discord-lobby.png``, ``discord-board.png`` and
``discord-panel.png`` (or into ``--out``). Needs the test extras (``pip install -e '.[test]'``)
and Chromium (``scripts/_browser.sh`` installs it).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tests.e2e import board_of, bot_factory, lobby_id  # noqa: E402
from tests.harness import DiscordWorld  # noqa: E402
from tests.harness.preview import screenshot  # noqa: E402

#: the picture names, in the order they are taken
NAMES = ("discord-lobby.png", "discord-board.png", "discord-panel.png")


async def take(out: Path, seed: int = 7) -> list[Path]:
    """Play the opening of a table and write the three screenshots into ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        async with DiscordWorld() as world:
            await world.start_bot(bot_factory(Path(tmp) / "db.sqlite", [seed], pictures=True))
            alice, bob = world.member("Alice"), world.member("Bob")
            lobby = (await world.slash(alice, "play", game="gang-of-dice")).response
            tid = lobby_id(lobby)
            await world.click(bob, lobby, f"se:l:{tid}:join")
            await world.click(alice, lobby, f"se:l:{tid}:ai+")
            paths = [await screenshot(world, alice, lobby, out / NAMES[0], size=(760, 560), layout="message")]
            await world.click(alice, lobby, f"se:l:{tid}:start")
            board = board_of(world, tid)
            panel = (await world.click(alice, board, f"se:b:{tid}:panel")).response
            paths.append(await screenshot(world, alice, board, out / NAMES[1], size=(760, 1080), layout="message"))
            paths.append(await screenshot(world, alice, panel, out / NAMES[2], size=(760, 940), layout="message"))
            await world.stop_bot()
    return paths


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "images", help="folder for the PNG files")
    args = parser.parse_args(argv)
    for path in asyncio.run(take(args.out)):
        print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
