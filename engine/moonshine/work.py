"""The next Moonshine state while a step builds it (inside one ``apply``; never stored).

A :class:`Work` has the very layout of :class:`~engine.moonshine.state.MoonshineState` (the
same fields), mutable: :func:`work_on` copies a state into one (version + 1) and the rules change
its fields; :meth:`Work.freeze` makes it the next state in place, by ``__class__`` assignment.
Its seats are a list while working: a seat keeps its frozen
:class:`~engine.moonshine.state.SeatState` until a rule changes it (:meth:`Work.own` replaces it
with a :class:`WorkSeat`, its mutable twin, frozen in place the same way). Follow-ups stay
:class:`~engine.moonshine.state.FollowUp` values (immutable, shared): :func:`follow_up` makes
one, :data:`PLACE` and :data:`REDRAW` are shared.

Events are recorded only by a :class:`LoggedWork` (:attr:`Work.log` true), the same step run
again when someone reads them; the rules skip the work that only feeds an event otherwise.

Hot-path ``zip`` calls of the Moonshine engine pass no ``strict=`` (``# noqa: B905``): a keyword
argument makes every call parse it, and the zipped sequences have equal lengths by construction
(slots and their tokens, Clients and theirs, seats).
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from typing import Any, ClassVar, Literal

from engine.core import Event, State
from engine.fast import replacer
from engine.moonshine.dice import HASHED_RULES, hashed_shuffle
from engine.moonshine.icons import KEY_CLIENT, SE_INDEX, SIDE_INFOS, SideInfo, bundle_of
from engine.moonshine.state import FollowUp, FollowUpKind, MoonshineState, Phase, SeatState, Variant

__all__ = ["ORDERS", "PLACE", "REDRAW", "LoggedWork", "Work", "WorkSeat", "follow_up", "rng_shuffle", "work_on"]


#: A follow-up built fast (``engine.fast.replacer``; every field given, the copied instance is
#: never read).
_new_follow_up = replacer(FollowUp, "kind", "cards", "n")


def follow_up(kind: FollowUpKind, cards: tuple[int, ...] = (), n: int = 0) -> FollowUp:
    """``FollowUp(kind, cards, n)``, built without the frozen ``__init__`` (hot path)."""
    return _new_follow_up(None, kind, cards, n)


#: The ``place`` follow-up (one gained token to place), shared: follow-ups are immutable values.
PLACE = follow_up("place")
#: The ``redraw`` follow-up (the second draw of a double redraw, rules 2), shared.
REDRAW = follow_up("redraw")
#: ``ORDERS[n][active]``: the seats of an ``n``-seat table in order from ``active`` (M2).
ORDERS = tuple(tuple(tuple((a + i) % n for i in range(n)) for a in range(n)) for n in range(6))


class _EventTwin:
    """Same slots as :class:`~engine.core.Event`, mutable (see :meth:`LoggedWork.ev`)."""

    __slots__ = ("key", "params", "audience")


_new_object = object.__new__
_probe: Any = _new_object(_EventTwin)
_probe.__class__ = Event  # fails at import if the layouts ever differ
del _probe

#: ``frozenset({seat})``: the audience of a private event, shared.
_AUDIENCE = tuple(frozenset({i}) for i in range(5))


class WorkSeat:
    """Mutable copy of a :class:`SeatState`: the same fields, each replaced whole when it changes
    (they stay tuples, shared with the frozen seat until then: copying a seat and freezing it
    converts nothing; the rules write ``s.queue = s.queue[1:]`` rather than ``pop(0)``).

    The very layout of :class:`SeatState` (the same slots in the same order, checked at import),
    so that :meth:`Work.freeze` makes it the frozen seat by ``__class__`` assignment, in place,
    with no copy. Made only by :meth:`Work.own`."""

    __slots__ = ("speakeasy", "se_tokens", "clients", "cl_tokens", "validated", "queue", "lose")
    speakeasy: int
    se_tokens: tuple[int, ...]
    clients: tuple[int, ...]
    cl_tokens: tuple[int, ...]
    validated: tuple[int, ...]
    queue: tuple[FollowUp, ...]
    lose: int

    def add_token(self, key: str, delta: int) -> None:
        """Add ``delta`` tokens to slot ``key``."""
        i = SE_INDEX.get(key)
        if i is not None:
            t = self.se_tokens
            self.se_tokens = (*t[:i], t[i] + delta, *t[i + 1:])
        else:
            i = self.clients.index(KEY_CLIENT[key])
            t = self.cl_tokens
            self.cl_tokens = (*t[:i], t[i] + delta, *t[i + 1:])


_probe_seat: Any = _new_object(WorkSeat)
_probe_seat.__class__ = SeatState  # fails at import if the layouts ever differ
del _probe_seat


class Work(State):
    """The next state, mutable (see the module docstring): the fields of
    :class:`~engine.moonshine.state.MoonshineState`, with ``seats`` a list (frozen seats, and the
    :class:`WorkSeat` of each seat changed so far), ``deck`` and ``to_draw`` lists once changed.
    Made by :func:`work_on`; :meth:`freeze` gives the state. The rules read a seat as
    ``w.seats[i]`` and call :meth:`own` before changing it."""

    __slots__ = MoonshineState.__slots__
    __setattr__ = object.__setattr__
    __delattr__ = object.__delattr__
    #: Whether the events are recorded (:class:`LoggedWork`): the rules call :meth:`ev` only then.
    log: ClassVar[bool] = False

    seed: int
    players: int
    rules: int
    version: int
    variant: Variant
    target: int
    phase: Phase
    round: int
    first: int
    active: int
    dice: tuple[str, ...]  # replaced whole, never changed in place
    rerolls: int
    deck: list[int] | tuple[int, ...]  # copied into a list on the first change (draw)
    discard: tuple[int, ...]  # replaced whole
    seats: list[SeatState | WorkSeat]
    to_draw: list[tuple[int, Literal["keep", "pick"]]] | tuple[tuple[int, Literal["keep", "pick"]], ...]
    shuffles: int

    def own(self, seat: int) -> WorkSeat:
        """``seat`` for writing: its :class:`WorkSeat`, made now (a copy of the frozen seat) on
        the first call of the step."""
        s: Any = self.seats[seat]
        if s.__class__ is WorkSeat:
            return s
        x: Any = _new_object(WorkSeat)  # the frozen seat's fields, slot by slot
        x.speakeasy = s.speakeasy
        x.se_tokens = s.se_tokens
        x.clients = s.clients
        x.cl_tokens = s.cl_tokens
        x.validated = s.validated
        x.queue = s.queue
        x.lose = s.lose
        self.seats[seat] = x
        return x  # type: ignore[no-any-return]

    def freeze(self) -> MoonshineState:
        """The next state: this work itself, made a :class:`MoonshineState` (its changed seats
        frozen in place too); nothing may change it after this."""
        seats = self.seats
        for s in seats:
            if s.__class__ is WorkSeat:
                s.__class__ = SeatState  # type: ignore[assignment]  # same layout
        self.seats = tuple(seats)  # type: ignore[assignment]
        deck = self.deck
        if deck.__class__ is not tuple:
            self.deck = tuple(deck)
        to_draw = self.to_draw
        if to_draw.__class__ is not tuple:
            self.to_draw = tuple(to_draw)
        return self._frozen()

    def _frozen(self) -> MoonshineState:
        """This work made the state, by ``__class__`` assignment (the same layout)."""
        state: Any = self
        state.__class__ = MoonshineState  # same layout
        return state  # type: ignore[no-any-return]

    def ev(self, key: str, audience: int | None = None, **params: Any) -> None:
        """Record an event (private to ``audience`` when given): called only when :attr:`log`
        is true (:meth:`LoggedWork.ev`)."""
        raise TypeError("a Work records no event: the rules call ev() only when w.log is true")

    def front(self, seat: int) -> str | None:
        """The kind of the front follow-up of ``seat`` (``None`` when its queue is empty)."""
        q = self.seats[seat].queue
        return q[0].kind if q else None

    def side(self, seat: int) -> SideInfo:
        """The Speakeasy side of ``seat``."""
        return SIDE_INFOS[self.variant][self.seats[seat].speakeasy]

    def bundle(self, seat: int) -> tuple[int, ...]:
        """The active icons of ``seat`` now (:func:`~engine.moonshine.icons.bundle_of`)."""
        s = self.seats[seat]
        return bundle_of(SIDE_INFOS[self.variant][s.speakeasy], s.se_tokens, s.clients, s.cl_tokens, s.validated)

    def order(self) -> tuple[int, ...]:
        """Seats in order from the active player (RULINGS M2), from a table (:data:`ORDERS`)."""
        return ORDERS[self.players][self.active]

    # --- deck ------------------------------------------------------------------------------------
    def draw(self, k: int) -> list[int]:
        """Draw ``k`` cards from the top, reshuffling the discard pile when the deck is empty (M7);
        fewer when both are exhausted. The reshuffle: the discard pile sorted, then shuffled by a
        ``random.Random`` of ``"{seed}:shuffle:{shuffles}"`` (rules 1-4, :func:`rng_shuffle`) or
        by :func:`engine.moonshine.dice.hashed_shuffle` of this step's seed and version, salt
        ``"shuffle:{shuffles}"`` (rules 5 on)."""
        deck = self.deck
        if len(deck) >= k:
            self.deck = deck[k:]
            return list(deck[:k])
        out: list[int] = []
        deck = self.deck = list(deck)
        while len(out) < k:
            if not deck:
                if not self.discard:
                    break
                pile = sorted(self.discard)
                if self.rules >= HASHED_RULES:
                    hashed_shuffle(self, f"shuffle:{self.shuffles}", pile)
                else:
                    rng_shuffle(random.Random(f"{self.seed}:shuffle:{self.shuffles}"), pile)
                deck = self.deck = pile
                self.discard = ()
                self.shuffles += 1
                if self.log:
                    self.ev("ms.ev.reshuffle", n=len(pile))
            out.append(deck.pop(0))
        return out

    def to_discard(self, cards: Iterable[int]) -> None:
        """Put ``cards`` on the discard pile (in order)."""
        self.discard = (*self.discard, *cards)


class LoggedWork(Work):
    """A :class:`Work` that records the step's events (:attr:`events`, in order)."""

    __slots__ = ("events",)
    log: ClassVar[bool] = True
    events: list[Event]

    def ev(self, key: str, audience: int | None = None, **params: Any) -> None:
        """Record an event (private to ``audience`` when given): ``engine.fast.event`` inlined,
        the slots stored into a mutable twin that then becomes an :class:`~engine.core.Event`."""
        e: Any = _new_object(_EventTwin)
        e.key = key
        e.params = params
        e.audience = None if audience is None else _AUDIENCE[audience]
        e.__class__ = Event
        self.events.append(e)

    def _frozen(self) -> MoonshineState:
        """A :class:`Work` has the state's layout, this subclass one slot more: its fields are
        copied into a new one, made the state."""
        out = _new_object(Work)
        _copy(self, out)
        return out._frozen()


_probe_work: Any = _new_object(Work)
_probe_work.__class__ = MoonshineState  # fails at import if the layouts ever differ
del _probe_work


def _copy(state: Any, w: Any) -> None:
    """Every field of ``state`` stored into ``w`` (``seats`` as it is)."""
    w.seed = state.seed
    w.players = state.players
    w.rules = state.rules
    w.version = state.version
    w.variant = state.variant
    w.target = state.target
    w.phase = state.phase
    w.round = state.round
    w.first = state.first
    w.active = state.active
    w.dice = state.dice
    w.rerolls = state.rerolls
    w.deck = state.deck
    w.discard = state.discard
    w.seats = state.seats
    w.to_draw = state.to_draw
    w.shuffles = state.shuffles


def work_on(state: MoonshineState, events: list[Event] | None = None) -> Work:
    """The work of the step after ``state``: its fields, version + 1, the seats in a list; a
    :class:`LoggedWork` recording into ``events`` when it is given."""
    w: Any
    if events is None:
        w = _new_object(Work)
    else:
        w = _new_object(LoggedWork)
        w.events = events
    _copy(state, w)
    w.version = state.version + 1
    w.seats = list(state.seats)
    return w  # type: ignore[no-any-return]


def rng_shuffle(rng: random.Random, x: list[int]) -> None:
    """``rng.shuffle(x)`` with the same draws, inlined: CPython's ``Random.shuffle`` swaps ``x[i]``
    with ``x[_randbelow(i + 1)]`` for ``i`` from the end, and ``_randbelow(n)`` draws
    ``getrandbits(n.bit_length())`` until the value is below ``n`` (the same CPython detail that
    :func:`engine.chance.rng_draws` relies on; the seeded-game digests pin both)."""
    getrandbits = rng.getrandbits
    for i in range(len(x) - 1, 0, -1):
        n = i + 1
        k = n.bit_length()
        j = getrandbits(k)
        while j >= n:
            j = getrandbits(k)
        x[i], x[j] = x[j], x[i]
