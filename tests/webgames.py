"""Finished games for the web tests: members and AI players play real tables through the
service (:class:`bot.house.House`), each member clicking the move the normal AI would choose,
so the games replay from their seed and log as any table does."""

from __future__ import annotations

from typing import Any

from bot.house import House
from bot.web.access import WebDefaults
from storage.base import Store
from web.server import WebContext

GUILD = 1_234_567_890_123_456_789  # a Discord snowflake: 64-bit ids


class Clock:
    """A clock the tests move by hand (a step a minute)."""

    def __init__(self, t: float = 1_700_000_000.0) -> None:
        self.t = t

    def now(self) -> float:
        self.t += 60
        return self.t


async def play(house: House, game: str, members: list[tuple[int, str]], ai: int = 0, *, guild: int = GUILD,
               finish: bool = True, steps: int | None = None, table_id: int | None = None) -> int:
    """Open a table of ``game`` hosted by the first member, seat the others and ``ai`` AI
    players, start it (``table_id``: one already started), then play until it ends (or
    ``steps`` member steps); returns its id."""
    host, host_name = members[0]
    if table_id is None:
        table = await house.lobbies.open(guild_id=guild, channel_id=10, game=game, host_user_id=host,
                                         host_name=host_name)
        for uid, name in members[1:]:
            await house.lobbies.join(table.id, uid, name)
        for _ in range(ai):
            await house.lobbies.add_ai(table.id, host)
        await house.lobbies.start(table.id, host)
    else:
        table = await house.hall.table(table_id)
    done = 0
    while finish or (steps is not None and done < steps):
        await house.tables.idle()
        snap = await house.hall.table(table.id)
        if snap.row.status != "running":
            break
        g = snap.game
        for seat in sorted(g.to_act(snap.state)):
            s = snap.seats[seat]
            if s.user_id is None or s.is_ai or seat in snap.pending:
                continue
            code = g.encode(g.ai_action(snap.state, seat))
            await house.tables.submit(table.id, s.user_id, snap.state.version, code)
            done += 1
            break
    await house.tables.idle()
    return table.id


def web_context(db: Store, public: bool = True, secret: str = "test-secret", **kw: Any) -> WebContext:
    """The pages' context over ``db`` (fresh caches), public or private under ``secret``."""
    from bot.web.access import RatingHistory
    from bot.web.replay import Replays

    return WebContext(db=db, defaults=WebDefaults(public=public, secret=secret), replays=Replays(),
                      history=RatingHistory(), min_games=1, **kw)
