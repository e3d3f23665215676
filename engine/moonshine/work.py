"""The mutable working copy of a Moonshine state used inside one ``apply`` (never stored).

:class:`Work` copies a :class:`~engine.moonshine.state.MoonshineState` into lists, collects the
events, and :meth:`Work.freeze` gives the next state (version + 1). Follow-ups stay
:class:`~engine.moonshine.state.FollowUp` values while working (immutable, so a frozen seat
shares them); :func:`follow_up` makes one, :data:`PLACE` is the shared ``place`` follow-up.

Hot-path ``zip`` calls of the Moonshine engine pass no ``strict=`` (``# noqa: B905``): a keyword
argument makes every call parse it (about 6% of a random playout's instructions), and the zipped
sequences have equal lengths by construction (slots and their tokens, Clients and theirs, seats).
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from typing import Any, Literal

from engine.core import Event
from engine.fast import replacer
from engine.moonshine.dice import DIE_FACES, HASHED_RULES, die_draws, hashed_shuffle
from engine.moonshine.icons import _UNPACKED, CLIENT_INFOS, SE_KEYS, SIDE_INFOS, SideInfo, bundle_bits, unpack_bundle
from engine.moonshine.state import ACTION_BUNDLES, FollowUp, FollowUpKind, MoonshineState, Phase, SeatState, held_slots

__all__ = ["PLACE", "Work", "WorkSeat", "follow_up"]


#: Fast constructors (``engine.fast.replacer``; when every field is given the copied instance
#: is never read): the next state, a follow-up.
_next_state = replacer(MoonshineState, "version", "phase", "round", "active", "dice", "rerolls", "deck", "discard",
                       "seats", "to_draw", "shuffles")
_new_follow_up = replacer(FollowUp, "kind", "cards", "n")


def follow_up(kind: FollowUpKind, cards: tuple[int, ...] = (), n: int = 0) -> FollowUp:
    """``FollowUp(kind, cards, n)``, built without the frozen ``__init__`` (hot path)."""
    return _new_follow_up(None, kind, cards, n)


#: The ``place`` follow-up (one gained token to place), shared: follow-ups are immutable values.
PLACE = follow_up("place")
class _EventTwin:
    """Same slots as :class:`~engine.core.Event`, mutable (see :meth:`Work.ev`)."""

    __slots__ = ("key", "params", "audience")


_new_object = object.__new__
_probe: Any = _new_object(_EventTwin)
_probe.__class__ = Event  # fails at import if the layouts ever differ
del _probe

#: ``_ORDERS[n][active]``: the seats of an ``n``-seat table in order from ``active`` (M2).
_ORDERS = tuple(tuple(tuple((a + i) % n for i in range(n)) for a in range(n)) for n in range(6))

#: ``frozenset({seat})``: the audience of a private event, shared.
_AUDIENCE = tuple(frozenset({i}) for i in range(5))


class WorkSeat:
    """Mutable copy of a :class:`SeatState`: the same fields, each replaced whole when it changes
    (they stay tuples, shared with the frozen seat until then: copying a seat and freezing it
    converts nothing; the rules write ``s.queue = s.queue[1:]`` rather than ``pop(0)``).

    The very layout of :class:`SeatState` (the same slots in the same order, checked at import),
    so that :meth:`Work.freeze` makes it the frozen seat by ``__class__`` assignment, in place,
    with no copy: a :class:`WorkSeat` is written only by the step that made it, and never after
    that step's ``freeze``. Made only by :meth:`Work.copy` (no ``__init__``: the copy fills the
    slots itself, one call less on the hot path)."""

    __slots__ = ("speakeasy", "se_tokens", "clients", "cl_tokens", "validated", "queue", "lose")
    speakeasy: int
    se_tokens: tuple[int, ...]
    clients: tuple[int, ...]
    cl_tokens: tuple[int, ...]
    validated: tuple[int, ...]
    queue: tuple[FollowUp, ...]
    lose: int

    def freeze(self) -> SeatState:
        """This seat made the frozen :class:`SeatState`, in place (write nothing to it after)."""
        frozen: Any = self
        frozen.__class__ = SeatState
        seat: SeatState = frozen
        return seat


_probe_seat: Any = _new_object(WorkSeat)
_probe_seat.__class__ = SeatState  # fails at import if the layouts ever differ
del _probe_seat


class Work:
    """Mutable copy of a state; ``freeze()`` gives the next state (version + 1).

    Seats are copied on write: ``work[i]`` is the :class:`WorkSeat` of seat ``i`` once copied,
    else ``None`` (a seat nobody touched keeps its frozen :class:`SeatState` in the next state);
    the rules write ``w.work[i] or w.copy(i)`` for the seat to change (a list index and a
    truth test: a ``dict`` subclass with ``__missing__`` would go through the generic, slower
    subscript slot). :meth:`peek` reads a seat without copying it. ``log``: whether the events are recorded (``events``); the rules call
    :meth:`ev` only when it is true, and skip the work that only feeds an event (``apply`` runs
    without it and makes the events only when they are read, by running the step again with it,
    see :func:`engine.fast.lazy_step`)."""

    __slots__ = ("active", "deck", "dice", "discard", "events", "log", "n", "phase", "rerolls", "round", "seed",
                 "work", "shuffles", "state", "to_draw", "variant", "version")

    def __init__(self, state: MoonshineState, log: bool = True) -> None:
        self.state = state
        self.seed = state.seed
        self.version = state.version + 1
        self.variant = state.variant
        self.phase: Phase = state.phase
        self.round = state.round
        self.active = state.active
        self.dice: tuple[str, ...] = state.dice  # replaced whole, never changed in place
        self.rerolls = state.rerolls
        self.deck: list[int] | tuple[int, ...] = state.deck  # copied into a list on the first change
        self.discard: tuple[int, ...] = state.discard  # replaced whole (draw, to_discard)
        self.work: list[WorkSeat | None] = [None] * state.players
        self.to_draw: list[tuple[int, Literal["keep", "pick"]]] | tuple[tuple[int, Literal["keep", "pick"]], ...] = (
            state.to_draw)  # a list once a draw is added (resolve_actions)
        self.shuffles = state.shuffles
        self.events: list[Event] = []
        self.log = log
        self.n = state.players

    def copy(self, seat: int) -> WorkSeat:
        """The :class:`WorkSeat` of ``seat``, copied now (call it when ``work[seat]`` is ``None``)."""
        s = self.state.seats[seat]
        x: Any = _new_object(WorkSeat)  # the frozen seat's fields, slot by slot
        x.speakeasy = s.speakeasy
        x.se_tokens = s.se_tokens
        x.clients = s.clients
        x.cl_tokens = s.cl_tokens
        x.validated = s.validated
        x.queue = s.queue
        x.lose = s.lose
        self.work[seat] = x
        return x  # type: ignore[no-any-return]

    @property
    def rules(self) -> int:
        """The rules version of the table."""
        return self.state.rules

    def freeze(self) -> MoonshineState:
        """The next state."""
        s = self.state
        seats: Any = s.seats
        changed: list[Any] | None = None
        frozen: Any = SeatState
        i = 0
        for x in self.work:
            if x is not None:
                if x.__class__ is not frozen:  # else a second freeze: already done
                    x.__class__ = frozen  # same layout (WorkSeat)
                if changed is None:
                    changed = list(seats)
                changed[i] = x
            i += 1
        if changed is not None:
            seats = tuple(changed)
        return _next_state(
            s, self.version, self.phase, self.round, self.active, self.dice, self.rerolls, tuple(self.deck),
            self.discard, seats, tuple(self.to_draw), self.shuffles)

    def faces(self, salt: str, dice: Sequence[int]) -> tuple[str, ...]:
        """Faces for the dice indexes ``dice`` drawn from this step's chance
        (:func:`engine.moonshine.dice.die_draws`): rules 1-4 the same values as
        ``roll_faces(self.rng(salt), dice)``, drawn in bulk; rules 5 from BLAKE2b."""
        draws = die_draws(self, self.state.rules, salt, len(dice))
        return tuple(DIE_FACES[d][v] for d, v in zip(dice, draws))  # noqa: B905

    def rng(self, salt: str) -> random.Random:
        """The chance of this step (seed, next version, salt), as :func:`engine.chance.rng_for`."""
        return random.Random(f"{self.state.seed}:{self.version}:{salt}")

    def ev(self, key: str, audience: int | None = None, **params: Any) -> None:
        """Record an event (private to ``audience`` when given; call it only when :attr:`log` is
        true): ``engine.fast.event`` inlined,
        the slots stored into a mutable twin that then becomes an :class:`~engine.core.Event`."""
        e: Any = _new_object(_EventTwin)
        e.key = key
        e.params = params
        e.audience = None if audience is None else _AUDIENCE[audience]
        e.__class__ = Event
        self.events.append(e)

    def peek(self, seat: int) -> WorkSeat | SeatState:
        """``seat`` for reading only (its :class:`WorkSeat` if copied, else the frozen seat)."""
        x = self.work[seat]
        return self.state.seats[seat] if x is None else x

    def pending(self, seat: int) -> bool:
        """True when ``seat`` has a follow-up or a loss pending."""
        x = self.work[seat]
        s = self.state.seats[seat] if x is None else x
        return bool(s.queue or s.lose)

    def fronts(self) -> list[str | None]:
        """:meth:`front` of every seat, in seat order."""
        out: list[str | None] = []
        for x, o in zip(self.work, self.state.seats):  # noqa: B905
            if x is None:
                out.append(o.queue[0].kind if o.queue else None)
            else:
                out.append(x.queue[0].kind if x.queue else None)
        return out

    def any_pending(self) -> bool:
        """True when some seat has a follow-up or a loss pending."""
        for x, o in zip(self.work, self.state.seats):  # noqa: B905
            s = o if x is None else x
            if s.queue or s.lose:
                return True
        return False

    def front(self, seat: int) -> str | None:
        """The kind of the front follow-up of ``seat`` (``None`` when its queue is empty)."""
        x = self.work[seat]
        if x is None:
            q = self.state.seats[seat].queue
            return q[0].kind if q else None
        return x.queue[0].kind if x.queue else None

    def side(self, seat: int) -> SideInfo:
        """The Speakeasy side of ``seat``."""
        return SIDE_INFOS[self.variant][self.state.seats[seat].speakeasy]

    def bundle(self, seat: int) -> tuple[int, ...]:
        """The active icons of ``seat`` now."""
        x = self.work[seat]
        if x is None:
            known = ACTION_BUNDLES[0]  # computed by the legal actions of this very state
            if known[0] is self.state:
                hit: tuple[int, ...] | None = known[1][seat]
                if hit is not None:
                    return hit
            s: WorkSeat | SeatState = self.state.seats[seat]
        else:
            s = x
        b = bundle_bits(SIDE_INFOS[self.variant][s.speakeasy], s.se_tokens, s.clients, s.cl_tokens, s.validated)
        out = _UNPACKED.get(b)
        return unpack_bundle(b) if out is None else out

    def order(self) -> tuple[int, ...]:
        """Seats in order from the active player (RULINGS M2), from a table (:data:`_ORDERS`)."""
        return _ORDERS[self.n][self.active]

    # --- tokens ----------------------------------------------------------------------------------
    def room(self, seat: int) -> list[str]:
        """Slots of ``seat`` with an empty space (slot keys, in slot order)."""
        x = self.work[seat]
        s: WorkSeat | SeatState = self.state.seats[seat] if x is None else x
        side = SIDE_INFOS[self.variant][s.speakeasy]
        tokens = s.se_tokens
        rooms = side.room_by_tokens.get(tokens)
        if rooms is None:
            rooms = tuple(SE_KEYS[i] for i, ((sp, _), t) in enumerate(zip(side.slots, tokens)) if t < sp)  # noqa: B905
        out = list(rooms)
        infos = CLIENT_INFOS
        for cid, t in zip(s.clients, s.cl_tokens):  # noqa: B905
            ci = infos[cid]
            if t < ci.spaces:
                out.append(ci.key)
        return out

    def holding(self, seat: int) -> list[tuple[str, int]]:
        """Slots of ``seat`` holding tokens, as ``(key, tokens)``."""
        x = self.work[seat]
        return held_slots(self.state.seats[seat] if x is None else x)

    def add_token(self, seat: int, key: str, delta: int) -> None:
        """Add ``delta`` tokens to slot ``key`` of ``seat``."""
        s = (self.work[seat] or self.copy(seat))
        if key[0] == "s":
            i = int(key[1:])
            t = s.se_tokens
            s.se_tokens = (*t[:i], t[i] + delta, *t[i + 1:])
        else:
            i = s.clients.index(int(key[1:]))
            t = s.cl_tokens
            s.cl_tokens = (*t[:i], t[i] + delta, *t[i + 1:])

    # --- deck ------------------------------------------------------------------------------------
    def draw(self, k: int) -> list[int]:
        """Draw ``k`` cards from the top, reshuffling the discard pile when the deck is empty (M7);
        fewer when both are exhausted. The reshuffle: the discard pile sorted, then shuffled by a
        ``random.Random`` of ``"{seed}:shuffle:{shuffles}"`` (rules 1-4) or by
        :func:`engine.moonshine.dice.hashed_shuffle` of this step's seed and version, salt
        ``"shuffle:{shuffles}"`` (rules 5)."""
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
                if self.state.rules >= HASHED_RULES:
                    hashed_shuffle(self, f"shuffle:{self.shuffles}", pile)
                else:
                    _shuffle(random.Random(f"{self.state.seed}:shuffle:{self.shuffles}"), pile)
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


def _shuffle(rng: random.Random, x: list[int]) -> None:
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
