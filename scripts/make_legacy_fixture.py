"""Write ``tests/data/legacy_v1.db``: a database from the version before the architecture change.

Run once, with the code of that version (the commit that added the file: `git log tests/data/legacy_v1.db`), to freeze what a deployed bot had on
disk: one running table of each game (and of each variant) stopped mid-game, one with a buffered
simultaneous choice, a Shop Battle table on a custom deck, and a finished game with ratings.
``tests/test_compat.py`` resumes these tables with today's code. Not part of the product.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import sys
from pathlib import Path

from bot.games import GAMES
from bot.house import House
from storage.base import Store
from storage.sqlite import SqliteStore

OUT = Path(__file__).resolve().parent.parent / "tests" / "data" / "legacy_v1.db"


class Clock:
    t = 1_700_000_000.0

    def now(self) -> float:
        return self.t


async def play(svc: House, tid: int, steps: int, host: int) -> None:
    """Let the AI play ``steps`` applied steps for every seat (members included)."""
    for _ in range(steps):
        view = await svc.hall.table(tid)
        if view.row.status != "running" or not view.to_act():
            return
        game = view.game
        for seat in sorted(view.to_act()):
            if seat in view.pending:
                continue
            action = game.ai_action(view.state, seat)
            seatrow = view.seats[seat]
            if seatrow.is_ai:
                await svc.tables.idle()
                break
            await svc.tables.submit(tid, seatrow.user_id, view.version, game.encode(action))
        await svc.tables.idle()


async def main() -> None:
    tmp = OUT.with_suffix(".tmp")
    tmp.unlink(missing_ok=True)
    db = await SqliteStore.open(tmp)
    seeds = iter(range(1001, 2000))
    svc = House(db, clock=Clock(), turn_timeout=300, seed_source=lambda: next(seeds))
    deck = json.loads((Path(__file__).resolve().parent.parent / "docs/decks/example-deck.json").read_text())
    deck_id = await svc.decks.save(1, "shop-battle", deck["name"], deck, 100)
    plans = [
        ("gang-of-dice", {}, 3, 9),
        ("three-player-moon", {}, 3, 6),
        ("shop-battle", {}, 3, 5),
        ("shop-battle", {"deck": deck_id}, 2, 4),
        ("moonshine", {}, 3, 7),
        ("moonshine", {"variant": "regular"}, 2, 5),
        ("gang-of-dice", {}, 2, 400),  # played to the end: a result and ratings
    ]
    for i, (game, options, members, steps) in enumerate(plans):
        host = 100 + 10 * i
        t = await svc.lobbies.open(guild_id=1, channel_id=10 + i, game=game, host_user_id=host,
                                   host_name=f"Host{i}", options=dict(options))
        for m in range(1, members):
            await svc.lobbies.join(t.id, host + m, f"Member{i}.{m}")
        await svc.lobbies.start(t.id, host, fill_with_ai=True, ai_name="AI")
        await play(svc, t.id, steps, host)
    # a buffered simultaneous choice: the first member of the Moonshine table chose, others not
    for row in await db.tables_with_status("running"):
        view = await svc.hall.table(row.id)
        if row.game == "moonshine" and len(view.to_act()) > 1:
            seat = min(view.to_act())
            if not view.seats[seat].is_ai:
                code = view.game.encode(view.game.ai_action(view.state, seat))
                await svc.tables.submit(row.id, view.seats[seat].user_id, view.version, code)
                break
    await svc.tables.close()
    await db.close()
    for suffix in ("-wal", "-shm"):
        Path(str(tmp) + suffix).unlink(missing_ok=True)
    shutil.move(tmp, OUT)
    print(f"wrote {OUT}", file=sys.stderr)


if __name__ == "__main__":
    asyncio.run(main())
