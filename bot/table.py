"""A table in memory: what the UI sees, what the service caches, and who is told of changes.

Shared by the table services (:mod:`bot.service`'s hall, :mod:`bot.lobbies`, :mod:`bot.tables`),
:mod:`bot.scheduler` (turn deadlines) and :mod:`bot.driver` (AI moves):

- :class:`TableSnapshot` is a read-only *snapshot* handed to the UI (cogs, the terminal, presenters).
  It is built fresh for every answer and never changes afterwards.
- :class:`LiveTable` is the hall's *mutable cache* of one running table, always equal to what
  is stored and changed only under the table's lock. It never leaves the modules above;
  :meth:`LiveTable.snapshot` takes a snapshot of it for the UI.
- :class:`Notifier` is what the UI hears; :func:`notify` calls one of its methods so that the UI
  failing never breaks a table.
- :class:`TableHost` is the narrow protocol through which the scheduler and the driver play
  and tell of a step (:class:`bot.tables.Tables` implements it; the lock and the cache they
  read are the hall's, :class:`bot.service.Hall`).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Literal, ParamSpec, Protocol

from bot.games import GAMES
from engine.core import Event, Game, Outcome
from storage.base import SeatRow, TableRow

__all__ = ["Chosen", "LiveTable", "Notifier", "TableHost", "TableSnapshot", "notify"]

log = logging.getLogger(__name__)

P = ParamSpec("P")

#: What a seat's choice did: the step was applied, or the choice waits for the other seats of a
#: simultaneous step.
Chosen = Literal["applied", "buffered"]


@dataclass(frozen=True)
class TableSnapshot:
    """A table as the UI sees it: the stored row, its seats, and (when running) the live state.

    A snapshot: later changes of the table do not show through (ask the service again).
    ``state`` is the engine state: only the bot layer may use it, through ``game.view``.
    ``pending`` maps seats to their buffered (secret) choice codes of a simultaneous step.
    """

    row: TableRow
    seats: list[SeatRow]
    state: Any = None
    pending: dict[int, str] = field(default_factory=dict)

    @property
    def id(self) -> int:
        """The table id."""
        return self.row.id

    @property
    def game(self) -> Game:
        """The engine game object."""
        return GAMES[self.row.game].game

    @property
    def version(self) -> int:
        """Current state version (0 in the lobby)."""
        return self.state.version if self.state is not None else 0

    def seat_of(self, user_id: int) -> int | None:
        """The seat of a member, or ``None`` when unseated."""
        for s in self.seats:
            if s.user_id == user_id:
                return s.seat
        return None

    def names(self) -> tuple[str, ...]:
        """Display names in seat order."""
        return tuple(s.name for s in self.seats)

    def to_act(self) -> frozenset[int]:
        """Seats that must act now (empty outside a running game)."""
        if self.state is None or self.row.status != "running":
            return frozenset()
        return self.game.to_act(self.state)

    def legal_codes(self, seat: int) -> tuple[str, ...]:
        """The codes of every action ``seat`` may take now (:meth:`engine.core.Game.legal_codes`);
        empty outside a running game and when the seat is not to act."""
        if seat not in self.to_act():
            return ()
        return self.game.legal_codes(self.state, seat)

    def waiting_for(self) -> list[int]:
        """Seats in ``to_act`` that have not chosen yet."""
        return sorted(s for s in self.to_act() if s not in self.pending)

    def turn(self) -> tuple[frozenset[int], int | None]:
        """The turn as the members see it, for "ping once per turn": the seats of members (not
        AI or autoplay) still to choose, and the version when a simultaneous step is open (a new
        one, e.g. a follow-up after a secret choice, is a new turn), else ``None``."""
        humans = frozenset(s for s in self.waiting_for() if not self.seats[s].autoplay)
        return humans, self.version if len(self.to_act()) > 1 else None

    def more_ai_choices_coming(self, seat: int) -> bool:
        """Whether ``seat`` is an AI seat and other AI seats still have to choose in this step
        (the board is then redrawn once they all have)."""
        ai = {s.seat for s in self.seats if s.autoplay}
        return seat in ai and any(s in ai and s != seat for s in self.waiting_for())


@dataclass(eq=False, slots=True)
class LiveTable:
    """The in-memory cache of a running table (always equal to what is stored).

    Mutable and owned by the hall (:class:`bot.service.Hall`): change it only under the table's lock and only after the
    change is stored. ``state`` is the engine state; ``pending`` the buffered choice codes of the
    current simultaneous step, by seat. ``row.state`` is ``None`` (the decoded ``state`` is the
    only copy); ``row.version``, ``row.action_seq`` and ``row.event_seq`` follow every step.
    """

    row: TableRow
    seats: list[SeatRow]
    state: Any
    pending: dict[int, str]
    #: The turn (:meth:`TableSnapshot.turn`) when this process first decoded the table after
    #: its restart (the process before pinged it, unless it stopped between a step and its
    #: ping); ``None`` for a table started here or reloaded from the store since.
    loaded_turn: tuple[frozenset[int], int | None] | None = None

    @property
    def id(self) -> int:
        """The table id."""
        return self.row.id

    @property
    def game(self) -> Game:
        """The engine game object."""
        return GAMES[self.row.game].game

    def seat_of(self, user_id: int) -> int | None:
        """The seat of a member, or ``None`` when unseated."""
        return next((s.seat for s in self.seats if s.user_id == user_id), None)

    def snapshot(self) -> TableSnapshot:
        """A snapshot for the UI (copies of the seat list and the pending choices)."""
        return TableSnapshot(self.row, list(self.seats), self.state, dict(self.pending))


class Notifier:
    """What the UI layer hears from the service. Every method may be overridden; all are async.

    The service calls these directly after the change is persisted, outside the table lock,
    through :func:`notify`: exceptions raised here are logged and never break the table.
    """

    async def lobby_changed(self, table: TableSnapshot) -> None:
        """The lobby's seats or options changed, or the lobby was cancelled/started."""

    async def lobby_expired(self, table: TableSnapshot) -> None:
        """A lobby was not started in time and closed itself (already stored as abandoned)."""

    async def table_started(self, table: TableSnapshot) -> None:
        """A table left the lobby and the game began."""

    async def step_applied(self, table: TableSnapshot, events: list[Event]) -> None:
        """A step was applied (``events`` include private ones; filter by audience)."""

    async def choice_buffered(self, table: TableSnapshot, seat: int) -> None:
        """A seat chose in a simultaneous step (the choice itself is secret)."""

    async def reminder(self, table: TableSnapshot, seats: list[int]) -> None:
        """These seats' time is running out."""

    async def timed_out(self, table: TableSnapshot, seats: list[int]) -> None:
        """The AI acted for these seats because their time ran out."""

    async def went_away(self, table: TableSnapshot, seat: int) -> None:
        """A member timed out repeatedly: the AI plays their seat until they come back."""

    async def came_back(self, table: TableSnapshot, seat: int) -> None:
        """An away member is back: their turns wait for them again."""

    async def table_finished(self, table: TableSnapshot, outcome: Outcome) -> None:
        """The game ended; result and ratings are stored."""

    async def table_abandoned(self, table: TableSnapshot) -> None:
        """The table was abandoned (host, admin or an unrecoverable error)."""

    async def members_gone(self, guild_id: int, user_ids: list[int]) -> set[int]:
        """Which of ``user_ids`` are no longer members of the server (asked when a game ends:
        they are not rated). Nobody by default."""
        return set()


async def notify(method: Callable[P, Awaitable[None]], *args: P.args, **kwargs: P.kwargs) -> None:
    """Await one bound :class:`Notifier` method, e.g. ``notify(notifier.reminder, view, seats)``.

    Any exception it raises is logged (``notifier <name> failed``) and swallowed: the UI failing
    must never break a table.
    """
    try:
        await method(*args, **kwargs)
    except Exception:
        log.exception("notifier %s failed", getattr(method, "__name__", repr(method)))


class TableHost(Protocol):
    """What the scheduler and the driver need from the owner of the running tables
    (:class:`bot.tables.Tables`): playing a seat's choice, telling the UI, giving up a table."""

    async def choose(self, live: LiveTable, seat: int, code: str, source: str) -> tuple[Chosen, TableSnapshot, list[Event]]:
        """Record a seat's choice under the lock: ``("applied" | "buffered", view, events)``."""
        ...

    async def after_change(self, table_id: int, view: TableSnapshot, events: list[Event], result: Chosen,
                           seat: int | None) -> None:
        """Tell the UI of a stored change (outside the lock) and let the AI continue."""
        ...

    async def give_up(self, table_id: int) -> None:
        """Abandon a table that keeps failing; raises only :class:`storage.base.StoreUnavailable`
        (the store is away: nothing changed, try again later)."""
        ...

    def nudge(self, table_id: int) -> None:
        """Start the AI driver of a table if an AI seat must act."""
        ...
