"""A finished table's public steps, replayed from its seed and action log, and their board
pictures.

Step 0 is the table as dealt; step ``k`` the table after the ``k``-th logged step; the last
step is the final board (the final reveal). Each step keeps only what the public saw: the
public view's JSON (``game.view_json(state, None)``) and the public events of that step
(audience ``None``); states are dropped as soon as their view is taken.

Every finished game replays under the rules version it was played under: the game is set up
by a copy of the game object whose ``rules_version`` is the table's (each engine keeps every
older behaviour behind its ``state.rules`` checks), with the table's stored options (a custom
deck's cards were copied into them when the table started; for a table that has none, the
server's stored deck). The replay must end on the stored snapshot, or it is refused.
"""

from __future__ import annotations

import asyncio
import functools
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from bot.games import GAMES
from bot.render import PictureCache, render_board
from bot.service import ReplayError
from engine.core import Event, Game
from engine.fast import replace_state
from storage.base import SeatRow, Store, TableRow

__all__ = ["Replay", "Replays", "game_at", "replay_table"]


@functools.cache
def game_at(key: str, rules: int) -> Game[Any, Any, Any]:
    """The game ``key`` as set up under rules version ``rules`` (the registered game object
    itself for its current version). Raises ``KeyError`` for an unknown game."""
    game = GAMES[key].game
    if rules == game.rules_version:
        return game
    older: Any = type(f"{type(game).__name__}Rules{rules}", (type(game),), {"rules_version": rules})
    made: Game[Any, Any, Any] = older()
    return made


@dataclass(frozen=True)
class Replay:
    """A finished table's public steps: ``views[k]`` the public view JSON at step ``k``,
    ``events[k]`` the public events that step made (the opening events at step 0),
    ``sources[k - 1]`` who made step ``k`` (``user``, ``ai``, ``timeout``)."""

    row: TableRow
    seats: tuple[SeatRow, ...]
    views: tuple[Any, ...]
    events: tuple[tuple[Event, ...], ...]
    sources: tuple[str, ...]

    @property
    def steps(self) -> int:
        """How many steps there are (step numbers ``0 .. steps - 1``)."""
        return len(self.views)


async def replay_table(db: Store, row: TableRow) -> Replay:
    """Replay a finished table (see the module docstring). Raises :class:`ReplayError` when it
    did not start, its game is unknown, its deck is gone, or its log does not end on its
    stored snapshot."""
    if row.seed is None or row.state is None:
        raise ReplayError(f"table {row.id} has not started")
    if row.game not in GAMES:
        raise ReplayError(f"table {row.id}: unknown game {row.game!r}")
    options = dict(row.options)
    if options.get("deck") not in (None, "default") and not options.get("deck_data"):
        try:
            deck = await db.deck(row.guild_id, int(options["deck"]))
        except (TypeError, ValueError):
            deck = None
        if deck is None:
            raise ReplayError(f"table {row.id}: its custom deck is gone")
        options["deck_data"] = deck
    seats = tuple(await db.seats(row.id))
    log = await db.action_log(row.id)
    return await asyncio.to_thread(_replay, row, seats, options, log)


def _replay(row: TableRow, seats: tuple[SeatRow, ...], options: dict[str, Any],
            log: Sequence[tuple[int, dict[int, str], str]]) -> Replay:
    game = game_at(row.game, row.rules_version)
    try:
        state = game.setup(row.seed or 0, len(seats), options)
        if state.rules != row.rules_version:  # a game whose setup stamps its class's version only
            state = replace_state(state, rules=row.rules_version)
        views = [game.view_json(state, None)]
        events = [tuple(e for e in game.opening_events(state) if e.audience is None)]
        sources = []
        for version, codes, source in log:
            if state.version != version:
                raise ReplayError(f"table {row.id}: a step logged at version {version} meets state {state.version}")
            step = game.apply(state, {s: game.decode(c) for s, c in codes.items()})
            state = step.state
            views.append(game.view_json(state, None))
            events.append(tuple(e for e in step.events if e.audience is None))
            sources.append(source)
    except ReplayError:
        raise
    except Exception as exc:  # an engine refusal: the log does not replay under these rules
        raise ReplayError(f"table {row.id}: its log does not replay ({type(exc).__name__})") from None
    if row.state is not None and game.dump_state(state) != game.dump_state(game.load_state(row.state)):
        raise ReplayError(f"table {row.id}: the replay does not end on the stored snapshot")
    return Replay(row, seats, tuple(views), tuple(events), tuple(sources))


class Replays:
    """Replays of finished tables (``size`` kept, least recently used dropped) and the board
    pictures of their steps (a :class:`bot.render.PictureCache` of ``pictures`` entries).

    ``drawing`` counts the pictures being drawn now (the metrics' picture queue)."""

    def __init__(self, size: int = 256, pictures: int = 1024) -> None:
        self.size = size
        self._replays: OrderedDict[int, Replay] = OrderedDict()
        self.pictures = PictureCache(pictures)
        self.drawing = 0

    async def of(self, db: Store, row: TableRow) -> Replay:
        """The replay of the finished table ``row`` (cached; see :func:`replay_table`)."""
        found = self._replays.get(row.id)
        if found is not None and found.row.version == row.version:
            self._replays.move_to_end(row.id)
            return found
        made = await replay_table(db, row)
        self._replays[row.id] = made
        while len(self._replays) > self.size:
            self._replays.popitem(last=False)
        return made

    async def picture(self, replay: Replay, step: int, names: Sequence[str], lang: str) -> bytes:
        """The PNG of the public board at ``step`` (drawn in a thread on first use, then
        cached). Raises ``IndexError`` for a step out of range, and what the renderer raises."""
        if not 0 <= step < replay.steps:
            raise IndexError(step)
        self.drawing += 1
        try:
            return await asyncio.to_thread(render_board, replay.row.game, replay.views[step], tuple(names), lang,
                                           self.pictures)
        finally:
            self.drawing -= 1
