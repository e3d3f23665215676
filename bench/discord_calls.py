"""Discord calls per applied step: a full game of each registered game through the offline Discord
harness (``tests/harness``; needs the test extras), two members playing through their panels (the
AI's move, clicked as a member would) and AI players (:func:`tests.e2e.ai_players`), pictures on.

    .venv/bin/python -m bench.discord_calls [--only GAME] [--pictures off]

Prints, per game, the applied steps, the REST calls the bot made on its own per step (posting
and editing the board and the turn pings, threads: :meth:`DiscordWorld.bot_rest_calls`; the
budget is 3), all HTTP calls per step (answers to the members' clicks included) and the files
uploaded per step. These are counts, not timings: the same seed gives the same figures.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import tempfile
from pathlib import Path

from bot.games import GAMES
from tests.e2e import CallCount, play_counting


async def count_game(game: str, *, pictures: bool = True, seed: int = 3, rng_seed: int = 1) -> CallCount:
    """:func:`play_counting` in a fresh world and database (table seed ``seed``)."""
    from tests.e2e import bot_factory
    from tests.harness import DiscordWorld

    with tempfile.TemporaryDirectory() as tmp:
        async with DiscordWorld() as world:
            await world.start_bot(bot_factory(Path(tmp) / "db.sqlite", [seed], pictures=pictures))
            members = [world.member("alice"), world.member("bob")]
            return await play_counting(world, game, members, random.Random(rng_seed))


def line(c: CallCount) -> str:
    """One benchmark line."""
    return (f"discord {c.game:18} {c.steps:4d} steps  {c.own_per_step:4.2f} REST calls/step (bot's own; budget 3)  "
            f"{c.total_per_step:4.2f} HTTP calls/step (with click answers)  {c.uploads_per_step:4.2f} uploads/step")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", choices=sorted(GAMES))
    parser.add_argument("--pictures", choices=("on", "off"), default="on")
    args = parser.parse_args()
    for game in [args.only] if args.only else sorted(GAMES):
        print(line(asyncio.run(count_game(game, pictures=args.pictures == "on"))))


if __name__ == "__main__":
    main()
