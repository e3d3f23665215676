"""TableService: lobbies, seats, turns, deadlines, simultaneous choices and persistence.

No discord import: Discord (cogs/) and the terminal mode (bot/terminal.py) both drive tables
through this class, and tests drive it directly with a real SQLite file and a fake clock.

Life of a table: ``open_lobby`` → ``join``/``leave``/``add_ai``/``remove_ai``/``set_option`` →
``start`` → ``submit``… (AI seats move by themselves; deadlines make the AI act for a quiet
member) → finished (result and ratings stored in one transaction) or ``abandon``.

Guarantees:
- A per-table :class:`asyncio.Lock` serialises every change of a table.
- Every button carries the state version it was drawn for; another version is refused as stale,
  so a double click or a click on an old board is never applied twice.
- Simultaneous steps (several seats in ``to_act``) buffer each seat's choice (persisted) until all
  have chosen; a seat may change its choice until then. Then they are applied at once.
- Every applied step is persisted (snapshot + append-only action log + events) before the
  notifier hears of it; ``resume()`` reloads every running table after a restart.
- Deadlines live in the database: a reminder at ``reminder_fraction`` of the timeout, then the
  game's ``timeout_action`` for every seat that has not acted.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Protocol

from pydantic import ValidationError

from bot.ratings import Rated, rate
from engine.core import Event, Game, IllegalAction, Outcome
from engine.registry import GAMES
from storage.db import Database, RatingRow, SeatRow, TableRow

log = logging.getLogger(__name__)

#: Bound on consecutive automatic moves for one seat in one timeout (a safety net).
MAX_AUTO_STEPS = 1000
#: An AI move that fails (engine or storage error) is retried this many times, then the table is
#: abandoned rather than left hanging.
MAX_AI_FAILURES = 3
AI_RETRY_SECONDS = 2.0
#: After this many timeouts in a row, a member is "away": the AI plays their seat at once,
#: without waiting for the timeout, until they come back (any click of theirs at the table).
AWAY_AFTER_TIMEOUTS = 2


class ServiceError(Exception):
    """A refusal to show the user: ``key`` is an i18n key, ``params`` its values.

    Never carries hidden information.
    """

    def __init__(self, key: str, **params: Any) -> None:
        super().__init__(key)
        self.key = key
        self.params = params


class Clock(Protocol):
    """Source of the current time in UNIX seconds."""

    def now(self) -> float: ...


class SystemClock:
    """The real clock."""

    def now(self) -> float:
        """``time.time()``."""
        return time.time()


class Notifier:
    """What the UI layer hears from the service. Every method may be overridden; all are async.

    The service calls these after the change is persisted, outside the table lock.
    Exceptions raised here are logged and never break the table.
    """

    async def lobby_changed(self, table: "TableView") -> None:
        """The lobby's seats or options changed, or the lobby was cancelled/started."""

    async def table_started(self, table: "TableView") -> None:
        """A table left the lobby and the game began."""

    async def step_applied(self, table: "TableView", events: list[Event]) -> None:
        """A step was applied (``events`` include private ones; filter by audience)."""

    async def choice_buffered(self, table: "TableView", seat: int) -> None:
        """A seat chose in a simultaneous step (the choice itself is secret)."""

    async def reminder(self, table: "TableView", seats: list[int]) -> None:
        """These seats' time is running out."""

    async def timed_out(self, table: "TableView", seats: list[int]) -> None:
        """The AI acted for these seats because their time ran out."""

    async def went_away(self, table: "TableView", seat: int) -> None:
        """A member timed out repeatedly: the AI plays their seat until they come back."""

    async def came_back(self, table: "TableView", seat: int) -> None:
        """An away member is back: their turns wait for them again."""

    async def table_finished(self, table: "TableView", outcome: Outcome) -> None:
        """The game ended; result and ratings are stored."""

    async def table_abandoned(self, table: "TableView") -> None:
        """The table was abandoned (host, admin or an unrecoverable error)."""


@dataclass(frozen=True)
class Submitted:
    """What :meth:`TableService.submit` did: ``status`` is ``"applied"`` or ``"buffered"``;
    ``events`` are the applied step's events (all audiences: filter before showing)."""

    status: str
    events: tuple[Event, ...] = ()


@dataclass
class TableView:
    """A table as the UI sees it: the stored row, its seats, and (when running) the live state.

    ``state`` is the engine state: only the bot layer may use it, through ``game.view``.
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
        return GAMES[self.row.game]

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

    def waiting_for(self) -> list[int]:
        """Seats in ``to_act`` that have not chosen yet."""
        return sorted(s for s in self.to_act() if s not in self.pending)


@dataclass
class _Live:
    """In-memory cache of a running table (always equal to what is stored)."""

    row: TableRow
    seats: list[SeatRow]
    state: Any
    pending: dict[int, str]


class TableService:
    """Runs every table of the process. See the module docstring for the guarantees.

    Args:
        db: an open :class:`storage.db.Database`.
        clock: time source (a fake one in tests).
        notifier: UI callbacks.
        turn_timeout: seconds a member has to act before the AI acts for them.
        reminder_fraction: when the reminder is sent, as a fraction of ``turn_timeout``.
        ai_delay: seconds between AI moves (0 in tests).
        seed_source: returns a new game seed (``secrets.randbits(62)`` by default).
    """

    def __init__(
        self,
        db: Database,
        *,
        clock: Clock | None = None,
        notifier: Notifier | None = None,
        turn_timeout: float = 300,
        reminder_fraction: float = 0.5,
        ai_delay: float = 0.0,
        seed_source: Callable[[], int] | None = None,
        leaderboard_min_games: int = 3,
    ) -> None:
        self.db = db
        self.clock = clock or SystemClock()
        self.notifier = notifier or Notifier()
        self.turn_timeout = turn_timeout
        self.reminder_fraction = reminder_fraction
        self.ai_delay = ai_delay
        self.seed_source = seed_source or (lambda: secrets.randbits(62))
        self.leaderboard_min_games = leaderboard_min_games
        self._locks: dict[int, asyncio.Lock] = {}
        self._live: dict[int, _Live] = {}
        self._drivers: dict[int, asyncio.Task] = {}
        self._timeouts: dict[tuple[int, int], int] = {}  # (table, seat) -> timeouts in a row
        self._timer: asyncio.Task | None = None
        self._timers_on = False
        self._sleeping: asyncio.Task | None = None
        self._recheck = False
        self._closed = False

    # ------------------------------------------------------------------ helpers
    def _lock(self, table_id: int) -> asyncio.Lock:
        return self._locks.setdefault(table_id, asyncio.Lock())

    async def _row(self, table_id: int) -> TableRow:
        row = await self.db.get_table(table_id)
        if row is None:
            raise ServiceError("err.no_table")
        return row

    async def table(self, table_id: int) -> TableView:
        """The current view of a table. Raises :class:`ServiceError` ``err.no_table``."""
        live = self._live.get(table_id)
        if live is not None:
            return TableView(live.row, list(live.seats), live.state, dict(live.pending))
        row = await self._row(table_id)
        seats = await self.db.seats(table_id)
        state = GAMES[row.game].load_state(row.state) if row.state and row.game in GAMES else None
        return TableView(row, seats, state)

    async def _notify(self, name: str, *args: Any) -> None:
        try:
            await getattr(self.notifier, name)(*args)
        except Exception:  # the UI failing must never break a table
            log.exception("notifier %s failed", name)

    def _check_status(self, row: TableRow, *allowed: str) -> None:
        if row.status not in allowed:
            raise ServiceError("err.table_not_lobby" if "lobby" in allowed else "err.table_not_running")

    # ------------------------------------------------------------------ lobby
    async def open_lobby(
        self, *, guild_id: int, channel_id: int, game: str, host_user_id: int, host_name: str,
        lang: str = "en", options: dict[str, Any] | None = None,
    ) -> TableView:
        """Open a lobby with the host in seat 0. Raises ``err.unknown_game``/``err.bad_option``."""
        if game not in GAMES:
            raise ServiceError("err.unknown_game", game=game)
        opts = self._validate_options(game, options or {})
        table_id = await self.db.create_table(
            guild_id=guild_id, channel_id=channel_id, game=game, host_user_id=host_user_id,
            lang=lang, options=opts, now=self.clock.now(),
        )
        await self.db.replace_seats(table_id, [SeatRow(0, host_user_id, host_name, False)])
        return await self.table(table_id)

    def _validate_options(self, game: str, options: dict[str, Any]) -> dict[str, Any]:
        try:
            return GAMES[game].parse_options(options).model_dump(mode="json", exclude_defaults=True)
        except ValidationError as exc:
            raise ServiceError("err.bad_option", detail=str(exc.errors()[0].get("msg", ""))) from None

    async def _edit_lobby(self, table_id: int, user_id: int, change: Callable[[TableRow, list[SeatRow]], list[SeatRow] | None],
                          host_only: bool = False) -> TableView:
        async with self._lock(table_id):
            row = await self._row(table_id)
            self._check_status(row, "lobby")
            if host_only and user_id != row.host_user_id:
                raise ServiceError("err.host_only")
            seats = await self.db.seats(table_id)
            new = change(row, seats)
            if new is not None:
                await self.db.replace_seats(table_id, [SeatRow(i, s.user_id, s.name, s.is_ai) for i, s in enumerate(new)])
            view = await self.table(table_id)
        await self._notify("lobby_changed", view)
        return view

    async def join(self, table_id: int, user_id: int, name: str) -> TableView:
        """Seat a member. Raises ``err.already_seated``, ``err.table_full``, ``err.table_not_lobby``."""
        def change(row: TableRow, seats: list[SeatRow]) -> list[SeatRow]:
            if any(s.user_id == user_id for s in seats):
                raise ServiceError("err.already_seated")
            if len(seats) >= GAMES[row.game].max_players:
                if not any(s.is_ai for s in seats):
                    raise ServiceError("err.table_full", max=GAMES[row.game].max_players)
                # a member takes the place of the last AI player
                last_ai = max(i for i, s in enumerate(seats) if s.is_ai)
                seats = seats[:last_ai] + seats[last_ai + 1:]
            return seats + [SeatRow(len(seats), user_id, name, False)]
        return await self._edit_lobby(table_id, user_id, change)

    async def leave(self, table_id: int, user_id: int) -> TableView:
        """Unseat a member (the host cancels instead). Raises ``err.not_seated``/``err.host_cannot_leave``."""
        def change(row: TableRow, seats: list[SeatRow]) -> list[SeatRow]:
            if user_id == row.host_user_id:
                raise ServiceError("err.host_cannot_leave")
            if not any(s.user_id == user_id for s in seats):
                raise ServiceError("err.not_seated")
            return [s for s in seats if s.user_id != user_id]
        return await self._edit_lobby(table_id, user_id, change)

    async def add_ai(self, table_id: int, user_id: int, ai_name: str = "AI") -> TableView:
        """The host adds an AI player. Raises ``err.host_only``/``err.table_full``."""
        def change(row: TableRow, seats: list[SeatRow]) -> list[SeatRow]:
            if len(seats) >= GAMES[row.game].max_players:
                raise ServiceError("err.table_full", max=GAMES[row.game].max_players)
            n = sum(1 for s in seats if s.is_ai) + 1
            return seats + [SeatRow(len(seats), None, f"{ai_name} {n}", True)]
        return await self._edit_lobby(table_id, user_id, change, host_only=True)

    async def remove_ai(self, table_id: int, user_id: int) -> TableView:
        """The host removes the last AI player. Raises ``err.host_only``/``err.no_ai``."""
        def change(row: TableRow, seats: list[SeatRow]) -> list[SeatRow]:
            ai = [i for i, s in enumerate(seats) if s.is_ai]
            if not ai:
                raise ServiceError("err.no_ai")
            return seats[:ai[-1]] + seats[ai[-1] + 1:]
        return await self._edit_lobby(table_id, user_id, change, host_only=True)

    async def set_option(self, table_id: int, user_id: int, name: str, value: Any) -> TableView:
        """The host sets a table option (validated by the game's options model).

        The option ``deck`` names one of the guild's custom decks (or ``"default"``); its cards
        are copied into the game when it starts. Raises ``err.host_only``, ``err.bad_option``,
        ``err.no_deck``.
        """
        async with self._lock(table_id):
            row = await self._row(table_id)
            self._check_status(row, "lobby")
            if user_id != row.host_user_id:
                raise ServiceError("err.host_only")
            if name == "deck" and value not in (None, "default"):
                await self._deck_data(row, value)
            opts = self._validate_options(row.game, {**row.options, name: value})
            await self.db.update_table(table_id, self.clock.now(), options=opts)
            view = await self.table(table_id)
        await self._notify("lobby_changed", view)
        return view

    async def set_messages(self, table_id: int, **ids: int | None) -> None:
        """Remember Discord message/thread ids (``lobby_message_id``, ``thread_id``, ``board_message_id``)."""
        async with self._lock(table_id):
            await self.db.update_table(table_id, self.clock.now(), **ids)
            live = self._live.get(table_id)
            if live is not None:
                live.row = await self._row(table_id)

    async def start(self, table_id: int, user_id: int, *, fill_with_ai: bool = False, ai_name: str = "AI") -> TableView:
        """The host starts the game. Raises ``err.host_only``, ``err.not_enough_players``.

        With ``fill_with_ai``, empty seats up to the game's minimum are filled with AI players.
        """
        async with self._lock(table_id):
            row = await self._row(table_id)
            self._check_status(row, "lobby")
            if user_id != row.host_user_id:
                raise ServiceError("err.host_only")
            game = GAMES[row.game]
            seats = await self.db.seats(table_id)
            if fill_with_ai:
                while len(seats) < game.min_players:
                    n = sum(1 for s in seats if s.is_ai) + 1
                    seats.append(SeatRow(len(seats), None, f"{ai_name} {n}", True))
                await self.db.replace_seats(table_id, seats)
            if not game.min_players <= len(seats) <= game.max_players:
                raise ServiceError("err.not_enough_players", min=game.min_players, max=game.max_players)
            options = dict(row.options)
            if options.get("deck") not in (None, "default") and not options.get("deck_data"):
                options["deck_data"] = await self._deck_data(row, options["deck"])
            seed = self.seed_source()
            try:
                state = game.setup(seed, len(seats), options)
            except (ValueError, ValidationError) as exc:
                log.warning("table %s could not start: %s", table_id, exc)
                raise ServiceError("err.bad_option", detail="") from None
            now = self.clock.now()
            async with self.db.transaction():
                await self.db.update_table(table_id, now, status="running", seed=seed,
                                           state=game.dump_state(state), version=state.version)
                await self.db.record_events(table_id, state.version,
                                            [_event_dict(e) for e in game.opening_events(state)])
            row = await self._row(table_id)
            self._live[table_id] = _Live(row, seats, state, {})
            await self._arm_deadline(table_id)
            view = await self.table(table_id)
        await self._notify("table_started", view)
        self._kick(table_id)
        return view

    async def cancel(self, table_id: int, user_id: int, is_admin: bool = False) -> TableView:
        """Host (or admin) cancels a lobby. Raises ``err.host_only``."""
        async with self._lock(table_id):
            row = await self._row(table_id)
            self._check_status(row, "lobby")
            if user_id != row.host_user_id and not is_admin:
                raise ServiceError("err.host_only")
            await self.db.update_table(table_id, self.clock.now(), status="abandoned")
            view = await self.table(table_id)
        await self._notify("lobby_changed", view)
        return view

    async def abandon(self, table_id: int, user_id: int | None, is_admin: bool = False) -> TableView:
        """End a running table without result (host or admin; ``user_id=None`` = the system)."""
        async with self._lock(table_id):
            row = await self._row(table_id)
            self._check_status(row, "running")
            if user_id is not None and user_id != row.host_user_id and not is_admin:
                raise ServiceError("err.host_or_admin")
            async with self.db.transaction():
                await self.db.update_table(table_id, self.clock.now(), status="abandoned")
                await self.db.clear_deadline(table_id)
            self._live.pop(table_id, None)
            view = await self.table(table_id)  # read back from the database
        self._wake_timers()
        await self._notify("table_abandoned", view)
        return view

    # ------------------------------------------------------------------ play
    async def submit(self, table_id: int, user_id: int, version: int, code: str) -> Submitted:
        """A member's action from a button: applied, or buffered (simultaneous step).

        Raises :class:`ServiceError`: ``err.no_table``, ``err.table_not_running``,
        ``err.not_seated``, ``err.stale`` (another version: an old or double click),
        ``err.not_your_turn``, ``err.illegal``.
        """
        async with self._lock(table_id):
            live = await self._get_live(table_id)
            seat = next((s.seat for s in live.seats if s.user_id == user_id), None)
            if seat is None:
                raise ServiceError("err.not_seated")
            back = await self._present(live, seat)
            if version != live.state.version:
                raise ServiceError("err.stale")
            result, view, events = await self._choose(live, seat, code, source="user")
        if back:
            await self._notify("came_back", view, seat)
        await self._after(table_id, view, events, result, seat)
        return Submitted(result, tuple(events))

    async def back(self, table_id: int, user_id: int) -> bool:
        """A member shows up at a running table (opens their panel): if the AI was playing their
        seat because they were away, their turns wait for them again. Returns True if they were away."""
        async with self._lock(table_id):
            live = self._live.get(table_id)
            seat = None if live is None else next((s.seat for s in live.seats if s.user_id == user_id), None)
            if live is None or seat is None or not await self._present(live, seat):
                return False
            await self._arm_deadline(table_id)
            view = self._view(live)
        await self._notify("came_back", view, seat)
        return True

    async def _present(self, live: _Live, seat: int) -> bool:
        """The member of ``seat`` is here: reset their timeouts; True if they were away."""
        self._timeouts.pop((live.row.id, seat), None)
        if not live.seats[seat].away:
            return False
        await self._set_away(live, seat, False)
        return True

    async def _set_away(self, live: _Live, seat: int, away: bool) -> None:
        await self.db.set_away(live.row.id, seat, away)
        live.seats[seat] = replace(live.seats[seat], away=away)

    async def _get_live(self, table_id: int) -> _Live:
        live = self._live.get(table_id)
        if live is None:
            row = await self._row(table_id)
            self._check_status(row, "running")
            # running but not cached (e.g. another process started it): load it
            await self._load(row)
            live = self._live[table_id]
        return live

    async def _load(self, row: TableRow) -> None:
        game = GAMES[row.game]
        state = game.load_state(row.state)
        seats = await self.db.seats(row.id)
        pending = await self.db.pending(row.id, state.version)
        self._live[row.id] = _Live(row, seats, state, pending)

    async def _choose(self, live: _Live, seat: int, code: str, source: str) -> tuple[str, TableView, list[Event]]:
        """Record ``seat``'s choice (under the lock); apply the step when everyone has chosen."""
        game = GAMES[live.row.game]
        to_act = game.to_act(live.state)
        if seat not in to_act:
            raise ServiceError("err.not_your_turn")
        try:
            action = game.decode(code)
        except IllegalAction:
            raise ServiceError("err.illegal") from None
        if action not in game.legal_actions(live.state, seat):
            raise ServiceError("err.illegal")
        if len(to_act) == 1:
            events = await self._apply(live, {seat: action}, source)
            return "applied", self._view(live), events
        await self.db.set_pending(live.row.id, seat, live.state.version, code)
        live.pending[seat] = code
        if set(live.pending) >= to_act:
            actions = {s: game.decode(c) for s, c in live.pending.items() if s in to_act}
            events = await self._apply(live, actions, source)
            return "applied", self._view(live), events
        return "buffered", self._view(live), []

    def _view(self, live: _Live) -> TableView:
        return TableView(live.row, list(live.seats), live.state, dict(live.pending))

    async def _apply(self, live: _Live, actions: dict[int, Any], source: str) -> list[Event]:
        """Apply and persist in one transaction (the step, its events, the result or the next
        deadline), before anyone is told; only then update the cache (nothing there can fail)."""
        game = GAMES[live.row.game]
        before = live.state.version
        step = game.apply(live.state, actions)
        now = self.clock.now()
        codes = {s: game.encode(a) for s, a in actions.items()}
        events = list(step.events)
        outcome = game.outcome(step.state)
        async with self.db.transaction():
            await self.db.record_step(
                live.row.id, version_before=before, actions=codes, source=source,
                state=game.dump_state(step.state), version=step.state.version,
                events=[_event_dict(e) for e in events], now=now,
            )
            if outcome is not None:
                await self._finish(live, outcome, now)
            else:
                await self._write_deadline(live.row.id, live.seats, game, step.state, now)
        live.state = step.state
        live.pending = {}
        live.row = replace(live.row, version=step.state.version, state=None, updated_at=now,
                           status="finished" if outcome is not None else live.row.status)
        self._wake_timers()
        return events

    async def _finish(self, live: _Live, outcome: Outcome, now: float) -> None:
        """Store the result and update ratings/stats (inside the caller's transaction)."""
        row, seats = live.row, live.seats
        await self.db.update_table(row.id, now, status="finished")
        await self.db.clear_deadline(row.id)
        await self.db.record_result(
            row.id, guild_id=row.guild_id, game=row.game,
            outcome={"ranks": list(outcome.ranks), "scores": list(outcome.scores)},
            seats=[(s.seat, s.user_id, outcome.ranks[s.seat], outcome.scores[s.seat]) for s in seats], now=now,
        )
        users = [s.user_id for s in seats if s.user_id is not None]
        old = await self.db.ratings(row.guild_id, row.game, users)
        rated = [
            Rated(s.user_id, old[s.user_id].mu, old[s.user_id].sigma) if s.user_id in old else Rated(s.user_id)
            for s in seats
        ]
        new = rate(rated, list(outcome.ranks))
        for s, (mu, sigma) in zip(seats, new):
            if s.user_id is None:
                continue
            prev = old.get(s.user_id)
            await self.db.save_rating(row.guild_id, row.game, RatingRow(
                s.user_id, mu, sigma, (prev.played if prev else 0) + 1,
                (prev.won if prev else 0) + (1 if outcome.ranks[s.seat] == 1 else 0)))

    async def _after(self, table_id: int, view: TableView, events: list[Event], result: str, seat: int | None) -> None:
        """Tell the UI (outside the lock) and let the AI continue (no second driver is started
        while one runs, so the driver itself may call this)."""
        if result == "buffered":
            await self._notify("choice_buffered", view, seat)
        else:
            await self._notify("step_applied", view, events)
            if view.row.status == "finished":
                self._live.pop(table_id, None)
                await self._notify("table_finished", view, GAMES[view.row.game].outcome(view.state))
        self._wake_timers()
        self._kick(table_id)

    # ------------------------------------------------------------------ AI driver
    def nudge(self, table_id: int) -> None:
        """Start the AI driver of a table if an AI seat must act and none is running."""
        self._kick(table_id)

    def _kick(self, table_id: int) -> None:
        """Make sure an AI driver runs for the table if an AI seat must act."""
        if self._closed:
            return
        task = self._drivers.get(table_id)
        if task is not None and not task.done():
            return
        live = self._live.get(table_id)
        if live is None:
            return
        ai = {s.seat for s in live.seats if s.autoplay}
        if not (GAMES[live.row.game].to_act(live.state) & ai - set(live.pending)):
            return
        task = asyncio.create_task(self._drive(table_id), name=f"ai-driver-{table_id}")
        self._drivers[table_id] = task
        task.add_done_callback(lambda t, tid=table_id: self._drivers.pop(tid, None) if self._drivers.get(tid) is t else None)

    async def _drive(self, table_id: int) -> None:
        """Let AI seats act one step at a time until a member must act or the game ends.

        The pause (``ai_delay``) comes after a step that showed something (public events), so
        people can follow the board; silent steps (e.g. marking dice) follow at once."""
        pause = True
        failures = 0
        while not self._closed:
            await asyncio.sleep(self.ai_delay if pause else 0)
            try:
                async with self._lock(table_id):
                    live = self._live.get(table_id)
                    if live is None or live.row.status != "running":
                        return
                    game = GAMES[live.row.game]
                    ai = sorted(s.seat for s in live.seats if s.autoplay)
                    todo = [s for s in ai if s in game.to_act(live.state) and s not in live.pending]
                    if not todo:
                        return
                    seat = todo[0]
                    code = game.encode(game.ai_action(live.state, seat))
                    result, view, events = await self._choose(live, seat, code, source="ai")
            except asyncio.CancelledError:
                raise
            except Exception:
                failures += 1
                log.exception("AI move at table %s failed (%d/%d)", table_id, failures, MAX_AI_FAILURES)
                if failures >= MAX_AI_FAILURES:
                    await self._give_up(table_id)
                    return
                await asyncio.sleep(AI_RETRY_SECONDS * failures)
                continue
            failures = 0
            pause = any(e.audience is None for e in events)
            await self._after(table_id, view, events, result, seat)  # the running driver is not restarted

    async def idle(self) -> None:
        """Wait until no AI driver is running (tests and the terminal use it)."""
        while True:
            tasks = [t for t in self._drivers.values() if not t.done()]
            if not tasks:
                return
            await asyncio.gather(*tasks, return_exceptions=True)

    # ------------------------------------------------------------------ deadlines
    async def _arm_deadline(self, table_id: int) -> None:
        """Deadline for the current step of a cached table (see :meth:`_write_deadline`)."""
        live = self._live.get(table_id)
        if live is None:
            return
        await self._write_deadline(table_id, live.seats, GAMES[live.row.game], live.state, self.clock.now())
        self._wake_timers()

    async def _write_deadline(self, table_id: int, seats: list[SeatRow], game: Game, state: Any, now: float) -> None:
        """A deadline for the step of ``state`` when a member must act in it; none otherwise."""
        humans = {s.seat for s in seats if not s.autoplay}
        if game.to_act(state) & humans:
            await self.db.set_deadline(table_id, state.version, now + self.turn_timeout * self.reminder_fraction,
                                       now + self.turn_timeout)
        else:
            await self.db.clear_deadline(table_id)

    async def process_deadlines(self) -> float | None:
        """Send due reminders and apply due timeouts; returns the next due time (or ``None``).

        Called by the timer task, and directly by tests with a fake clock.
        """
        now = self.clock.now()
        next_due: float | None = None
        for table_id, version, remind_at, act_at, reminded in await self.db.deadlines():
            try:
                if act_at <= now:
                    await self._timeout(table_id, version)
                    continue
                if not reminded and remind_at <= now:
                    await self._remind(table_id, version)
                    reminded = True
            except Exception:  # one broken table must not stop the others' deadlines
                log.exception("deadline of table %s failed", table_id)
                await self._give_up(table_id)
                continue
            due = act_at if reminded else remind_at
            next_due = due if next_due is None else min(next_due, due)
        return next_due

    async def _give_up(self, table_id: int) -> None:
        """Abandon a table that keeps failing (an engine or storage error), telling its players."""
        try:
            await self.abandon(table_id, None)
        except Exception:
            log.exception("could not abandon failing table %s", table_id)
            try:
                await self.db.clear_deadline(table_id)
            except Exception:
                log.exception("could not clear the deadline of table %s", table_id)

    async def _remind(self, table_id: int, version: int) -> None:
        async with self._lock(table_id):
            live = self._live.get(table_id)
            if live is None or live.state.version != version:
                return
            await self.db.mark_reminded(table_id)
            view = self._view(live)
        seats = [s for s in view.waiting_for() if not view.seats[s].autoplay]
        if seats:
            await self._notify("reminder", view, seats)

    async def _timeout(self, table_id: int, version: int) -> None:
        """The AI acts for every member who has not acted in the step at ``version``."""
        async with self._lock(table_id):
            live = self._live.get(table_id)
            if live is None:
                await self.db.clear_deadline(table_id)
                return
            if live.state.version != version:
                await self._arm_deadline(table_id)  # a deadline left behind by an interrupted step
                return
            game = GAMES[live.row.game]
            late = [s for s in sorted(game.to_act(live.state)) if s not in live.pending
                    and not live.seats[s].autoplay]
            gone = []
            for seat in late:
                count = self._timeouts.get((table_id, seat), 0) + 1
                self._timeouts[(table_id, seat)] = count
                if count >= AWAY_AFTER_TIMEOUTS:
                    await self._set_away(live, seat, True)
                    gone.append(seat)
            all_events: list[Event] = []
            result, view = "buffered", self._view(live)
            for seat in late:
                # a seat may owe several consecutive actions (e.g. a whole turn of micro-actions)
                for _ in range(MAX_AUTO_STEPS):
                    if live.row.status != "running" or seat not in game.to_act(live.state) or seat in live.pending:
                        break
                    code = game.encode(game.timeout_action(live.state, seat))
                    result, view, events = await self._choose(live, seat, code, source="timeout")
                    all_events.extend(events)
                    if len(game.to_act(live.state)) > 1:
                        break  # a simultaneous step: one choice per seat
        if late:
            await self._notify("timed_out", view, late)
        for seat in gone:
            await self._notify("went_away", view, seat)
        if all_events or result == "applied":
            await self._after(table_id, view, all_events, "applied", None)
        else:
            self._kick(table_id)

    def _wake_timers(self) -> None:
        """A deadline may have changed: make the timer task look again (RoboDanny's pattern:
        a sleeping timer is cancelled and restarted; a busy one re-checks when done)."""
        if not self._timers_on or self._closed:
            return
        task = self._timer
        if task is not None and not task.done():
            if self._sleeping is task:
                task.cancel()
            else:
                self._recheck = True
                return
        self._timer = asyncio.create_task(self.run_timers(), name="table-deadlines")

    async def run_timers(self) -> None:
        """Timer task: process due deadlines, then sleep until the next one; ends when there is
        none (a new deadline restarts it)."""
        me = asyncio.current_task()
        while not self._closed:
            self._recheck = False
            try:
                next_due = await self.process_deadlines()
            except Exception:
                log.exception("deadline processing failed")
                next_due = self.clock.now() + 5
            if self._recheck:
                continue
            if next_due is None:
                return
            self._sleeping = me
            try:
                await asyncio.sleep(max(0.0, next_due - self.clock.now()))
            finally:
                if self._sleeping is me:
                    self._sleeping = None

    # ------------------------------------------------------------------ start-up / shutdown
    async def resume(self) -> list[int]:
        """Reload every running table (after a restart), restart AI drivers; returns their ids.

        A table whose stored state no longer loads is abandoned (and logged), never crashes the bot.
        """
        ids = []
        for row in await self.db.tables_with_status("running"):
            try:
                if row.game not in GAMES:
                    raise ValueError(f"unknown game {row.game}")
                await self._load(row)
            except Exception:
                log.exception("table %s could not be resumed; abandoning it", row.id)
                await self.db.update_table(row.id, self.clock.now(), status="abandoned")
                await self.db.clear_deadline(row.id)
                continue
            ids.append(row.id)
            existing = [d for d in await self.db.deadlines() if d[0] == row.id]
            if not existing or existing[0][1] != self._live[row.id].state.version:
                await self._arm_deadline(row.id)
            self._kick(row.id)
        return ids

    def start_timers(self) -> None:
        """Turn deadline processing on (call once the event loop runs)."""
        self._timers_on = True
        self._wake_timers()

    async def close(self) -> None:
        """Stop timers and AI drivers (state is already persisted)."""
        self._closed = True
        tasks = [t for t in [self._timer, *self._drivers.values()] if t is not None and not t.done()]
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    # ------------------------------------------------------------------ custom decks
    async def _deck_data(self, row: TableRow, deck_id: Any) -> dict[str, Any]:
        try:
            data = await self.db.deck(row.guild_id, int(deck_id))
        except (TypeError, ValueError):
            data = None
        if data is None:
            raise ServiceError("err.no_deck")
        return data

    async def save_deck(self, guild_id: int, game: str, name: str, data: dict[str, Any], user_id: int,
                        max_decks: int = 24) -> int:
        """Store a validated custom deck for a guild (same name, ignoring case = replaced); returns its id.

        Raises ``err.too_many_decks`` when the guild already has ``max_decks`` others (the lobby
        select holds 25 options, the default deck included).
        """
        async with self.db.transaction():
            existing = await self.db.decks(guild_id, game)
            same = [n for _, n in existing if n.casefold() == name.casefold()]
            if len(existing) >= max_decks and not same:
                raise ServiceError("err.too_many_decks", max=max_decks)
            for old in same:  # names are matched ignoring case: "RUE DE LA PAIX" replaces "Rue de la Paix"
                await self.db.delete_deck(guild_id, next(i for i, n in existing if n == old))
            return await self.db.save_deck(guild_id, game, name, data, user_id, self.clock.now())

    async def decks(self, guild_id: int, game: str) -> list[tuple[int, str]]:
        """A guild's custom decks for a game: ``(deck_id, name)``."""
        return await self.db.decks(guild_id, game)

    async def deck(self, guild_id: int, deck_id: int) -> dict[str, Any] | None:
        """A guild's deck data, or ``None``."""
        return await self.db.deck(guild_id, deck_id)

    async def delete_deck(self, guild_id: int, deck_id: int) -> bool:
        """Remove a guild's deck (tables already started keep their copy of the cards)."""
        return await self.db.delete_deck(guild_id, deck_id)

    # ------------------------------------------------------------------ queries
    async def leaderboard(self, guild_id: int, game: str, limit: int = 10) -> list[RatingRow]:
        """Top members by ordinal with at least ``leaderboard_min_games`` games."""
        if game not in GAMES:
            raise ServiceError("err.unknown_game", game=game)
        return await self.db.leaderboard(guild_id, game, self.leaderboard_min_games, limit)

    async def stats(self, guild_id: int, user_id: int) -> dict[str, RatingRow]:
        """A member's stats per game."""
        return await self.db.member_stats(guild_id, user_id)

    async def recent_events(self, table_id: int, limit: int = 30) -> list[Event]:
        """The last ``limit`` events of a table (all audiences; filter before showing)."""
        return [_event_from(d) for d in await self.db.recent_events(table_id, limit)]


def _event_dict(e: Event) -> dict[str, Any]:
    return {"key": e.key, "params": dict(e.params), "audience": sorted(e.audience) if e.audience is not None else None}


def _event_from(d: dict[str, Any]) -> Event:
    aud = d.get("audience")
    return Event(d["key"], d.get("params") or {}, frozenset(aud) if aud is not None else None)
