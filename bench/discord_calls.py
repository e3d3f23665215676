"""Discord calls per applied step: a full game of each registered game through the offline Discord
harness (``tests/harness``; needs the test extras), two members playing through their panels (the
AI's move, clicked as a member would) and AI players (:func:`ai_players`), pictures on.

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
from dataclasses import dataclass
from pathlib import Path

from bot.games import GAMES

#: AI players beside the two members where the published figures were measured with more than
#: one (the default), by game key.
MORE_AI = {"moonshine": 2}


def ai_players(game: str) -> int:
    """AI players beside the two members: one (:data:`MORE_AI` for the exceptions), no more than
    the game seats."""
    return max(0, min(MORE_AI.get(game, 1), GAMES[game].game.max_players - 2))


@dataclass(frozen=True)
class CallCount:
    """What a full game cost: ``steps`` applied, ``own`` REST calls the bot made on its own,
    ``total`` HTTP calls (interaction answers included), ``uploads`` files uploaded."""

    game: str
    steps: int
    own: int
    total: int
    uploads: int

    @property
    def own_per_step(self) -> float:
        return self.own / max(1, self.steps)

    @property
    def total_per_step(self) -> float:
        return self.total / max(1, self.steps)

    @property
    def uploads_per_step(self) -> float:
        return self.uploads / max(1, self.steps)


async def play_counting(world, game: str, members, rng: random.Random, *, ai: int | None = None,
                        options: dict[str, str] | None = None, limit: int = 5000) -> CallCount:
    """Open a table of ``game`` in ``world`` (a started bot) hosted by ``members[0]``, with the
    other members and ``ai`` AI players (default :func:`ai_players`), and play it to the end
    through the members' panels; count the calls from the ``/play`` on. Raises
    ``AssertionError`` when the game does not end within ``limit`` rounds of turns."""
    from tests.e2e import open_table, take_turn

    start, uploads = len(world.http_log), len(world.uploads)
    tid = await open_table(world, members[0], game, members=members[1:],
                           ai=ai_players(game) if ai is None else ai, options=options)
    service = world.bot
    for _ in range(limit):
        table = await service.hall.table(tid)
        if table.row.status != "running":
            break
        for m in members:
            await take_turn(world, m, tid, rng)
    else:
        raise AssertionError(f"{game}: the game did not end")
    await world.settle()
    table = await service.hall.table(tid)
    assert table.row.status == "finished", table.row.status
    return CallCount(game, table.version, len(world.bot_rest_calls(start)), len(world.http_log) - start,
                     len(world.uploads) - uploads)


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
