"""Moonshine's roll (RULINGS M3; ``docs/rules/moonshine.md`` "A round", steps 1-2): the active
player's rerolls and stop, and the Moon-token gains at the end of the roll. :func:`fast_roll` is
the hot path of a roll step that gains no token (no :class:`~engine.moonshine.work.Work`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engine.chance import hashed_draws, rng_draws
from engine.core import Event, IllegalAction, Step
from engine.fast import event, lazy_step, replacer
from engine.moonshine.actions import MoonshineAction, Reroll
from engine.moonshine.dice import DIE_FACES, DIE_NAMES, HASHED_RULES, die_draws
from engine.moonshine.icons import BLUE, ORANGE
from engine.moonshine.state import MoonshineState
from engine.moonshine.work import PLACE, Work

__all__ = ["fast_roll", "gains", "roll_step", "settled_roll", "start_dice"]

_new_object = object.__new__
#: Die index by name (``DIE_NAMES``).
_DIE_INDEX = {name: i for i, name in enumerate(DIE_NAMES)}



def roll_step(w: Work, action: MoonshineAction, faces: tuple[str, ...] | None) -> None:
    """The active player stops or rerolls (``faces`` forced, else drawn from the step's chance).

    Raises :class:`IllegalAction` when forced ``faces`` do not fit the rerolled dice."""
    if isinstance(action, Reroll):
        which = [_DIE_INDEX[p] for p in action.dice]
        if faces is None:
            new = w.faces("reroll", which)
        else:
            new = faces
            if len(new) != len(which) or any(f not in DIE_FACES[i] for i, f in zip(which, new, strict=False)):
                raise IllegalAction("impossible faces for these dice")
        dice = list(w.dice)
        for i, f in zip(which, new):  # noqa: B905
            dice[i] = f
        w.dice = tuple(dice)
        w.rerolls -= 1
        if w.log:
            w.ev("ms.ev.reroll", seat=w.active, dice=dice, left=w.rerolls)
    else:
        w.rerolls = 0
    if w.rerolls == 0:
        gains(w)


class _Chance:
    """``seed`` and ``version`` of the next state, for :func:`engine.moonshine.dice.die_draws`
    (the same draws as ``Work.faces`` of that step)."""

    __slots__ = ("seed", "version")

    def __init__(self, seed: int, version: int) -> None:
        self.seed = seed
        self.version = version


#: The next state of a roll step without a Moon-token gain (``engine.fast.replacer``).
_rolled = replacer(MoonshineState, "version", "phase", "dice", "rerolls")
#: Die indexes of each reroll (by its die names).
_REROLL_DICE: dict[tuple[str, ...], tuple[int, ...]] = {}


def fast_roll(state: MoonshineState, action: MoonshineAction) -> Step[MoonshineState] | tuple[str, ...] | None:
    """The roll step of ``action`` (legal, by the active player) without a :class:`Work`, when no
    Moon token is gained: the same state and events as :func:`roll_step`, :func:`settled_roll`
    and :func:`settle` (the events made when read, :func:`engine.fast.lazy_step`). Else (a Moon face on the blue or orange die ends the roll, M3) nothing is
    built: the rerolled faces (``None`` for a stop) are returned for the general path, which
    must use them (so the dice are drawn once)."""
    for s in state.seats:
        if s.queue or s.lose:
            return None if type(action) is not Reroll else _faces(state, action)
    seat = state.active
    if type(action) is Reroll:
        which = _REROLL_DICE.get(action.dice)
        if which is None:
            which = _REROLL_DICE[action.dice] = tuple(_DIE_INDEX[p] for p in action.dice)
        chance: Any = _new_object(_Chance)  # no __init__ call on the hot path
        chance.seed = state.seed
        chance.version = state.version + 1
        if state.rules >= HASHED_RULES:  # die_draws, inlined
            draws = hashed_draws(chance, "reroll", len(which), 6)
        else:
            draws = rng_draws(chance, "reroll", len(which), 6)
        dice = list(state.dice)
        for i, v in zip(which, draws):  # noqa: B905
            dice[i] = DIE_FACES[i][v]
        left = state.rerolls - 1
        new = tuple(dice)
        if left:
            return lazy_step(_rolled(state, state.version + 1, "roll", new, left), _roll_events, seat, new, left)
        if dice[3] == "moon" or dice[4] == "moon":
            return tuple(dice[i] for i in which)
        return lazy_step(_rolled(state, state.version + 1, "action", new, 0), _roll_events, seat, new, 0)
    old = state.dice
    if old[3] == "moon" or old[4] == "moon":
        return None
    return lazy_step(_rolled(state, state.version + 1, "action", old, 0), _roll_events, seat, old, None)


#: ``_ROLLED[blue][orange]``: the dice a round starts with (white always, blue/orange with access).
_ROLLED = (((0, 1, 2), (0, 1, 2, 4)), ((0, 1, 2, 3), (0, 1, 2, 3, 4)))
#: ``_START_DICE[blue][orange]``: the dice a round starts with by the draws of the rolled dice
#: (:data:`_ROLLED`), made on first use (at most ``6 ** 5`` of each).
_START_DICE: tuple[tuple[dict[bytes, tuple[str, ...]], ...], ...] = (({}, {}), ({}, {}))


def start_dice(chance: Any, rules: int, bundle: Sequence[int]) -> tuple[str, ...]:
    """The dice a round starts with (M3): the white dice, plus the blue and orange ones when
    ``bundle`` (the active player's icons) has access, drawn from the chance of ``chance`` (the
    step's ``seed`` and ``version``; salt ``roll``) as :meth:`engine.moonshine.work.Work.faces`
    draws them; the other dice ``""``."""
    blue, orange = bundle[BLUE] > 0, bundle[ORANGE] > 0
    which = _ROLLED[blue][orange]
    if rules >= HASHED_RULES:  # die_draws, inlined
        draws = hashed_draws(chance, "roll", len(which), 6)
    else:
        draws = rng_draws(chance, "roll", len(which), 6)
    memo = _START_DICE[blue][orange]
    dice = memo.get(draws)
    if dice is None:
        made = [""] * 5
        for i, v in zip(which, draws):  # noqa: B905
            made[i] = DIE_FACES[i][v]
        dice = memo[draws] = tuple(made)
    return dice


def _roll_events(seat: int, dice: Sequence[str], left: int | None) -> tuple[Event, ...]:
    """The events of a :func:`fast_roll` step: a reroll with ``left`` rerolls left (``None``: a
    stop), then the final dice when the roll is over."""
    if left is None:
        return (event("ms.ev.dice", {"seat": seat, "dice": list(dice)}),)
    if left:
        return (event("ms.ev.reroll", {"seat": seat, "dice": list(dice), "left": left}),)
    return (event("ms.ev.reroll", {"seat": seat, "dice": list(dice), "left": 0}),
            event("ms.ev.dice", {"seat": seat, "dice": list(dice)}))


def _faces(state: MoonshineState, action: Reroll) -> tuple[str, ...]:
    """The faces :func:`roll_step` draws for ``action`` in the step after ``state``."""
    which = [_DIE_INDEX[p] for p in action.dice]
    draws = die_draws(_Chance(state.seed, state.version + 1), state.rules, "reroll", len(which))
    return tuple(DIE_FACES[d][v] for d, v in zip(which, draws))  # noqa: B905


def settled_roll(w: Work) -> bool:
    """After :func:`roll_step`, what :func:`settle` would do when no seat has anything pending
    (no Moon token gained): stay in the roll (rerolls left) or go to the action phase. False
    (nothing done) when a seat has something pending: then :func:`settle` must run."""
    work = w.work
    for i, s in enumerate(w.state.seats):
        x = work[i]
        if x is not None:
            s = x  # type: ignore[assignment]
        if s.queue or s.lose:
            return False
    if w.phase == "gain":
        w.phase = "action"
    return True


def gains(w: Work) -> None:
    """End of the roll: Moon-token gains from the dice for every player with access (M3)."""
    dice = w.dice
    if w.log:
        w.ev("ms.ev.dice", seat=w.active, dice=list(dice))
    blue, orange = dice[3] == "moon", dice[4] == "moon"
    if blue or orange:
        for seat in range(w.n):
            b = w.bundle(seat)
            n = (blue and b[BLUE] > 0) + (orange and b[ORANGE] > 0)
            if n:
                if w.log:
                    w.ev("ms.ev.gain", seat=seat, n=n)
                (w.work[seat] or w.copy(seat)).queue += (PLACE,) * n
    w.phase = "gain"
