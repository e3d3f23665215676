"""Moonshine's steps (RULINGS M2-M9; ``docs/rules/moonshine.md``): the deal, the roll and its
gains, the secret actions and their resolution, deck draws, round ends.

:func:`step` is what ``Moonshine.apply`` does, for every step of every game: a roll step
(:func:`roll`) changes the dice and the rerolls left on the frozen state, and goes through a
:class:`~engine.moonshine.work.Work` for its Moon-token gains; any other step answers on a
:class:`~engine.moonshine.work.Work` copy, then :func:`settle` runs every automatic step and
phase change until a seat must decide or the game is over.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from functools import cache
from itertools import combinations
from typing import Any, cast

from engine.core import Event, IllegalAction
from engine.fast import event, replacer
from engine.moonshine.actions import DrawCards, MoonshineAction, Reroll, TakeMoon, Validate
from engine.moonshine.cards import CLIENTS_PER_SET, SPEAKEASIES_PER_SET, card_sets, set_index
from engine.moonshine.dice import DIE_FACES, DIE_NAMES, die_draws
from engine.moonshine.followups import answer, auto, discard, instant, redraw_once
from engine.moonshine.icons import BLUE, CLIENT, DISC, DRAW, ORANGE, REROLL, SIDE_INFOS, client_info, side_info
from engine.moonshine.scoring import MAX_ROUNDS, TARGET, outcome_of, points_of
from engine.moonshine.state import (
    DRAFT_SIZES,
    FollowUp,
    MoonshineState,
    Phase,
    SeatState,
    Variant,
    discard_options,
    held_slots,
)
from engine.moonshine.work import PLACE, LoggedWork, Work, follow_up, rng_shuffle, work_on

__all__ = ["answer_all", "deal", "gains", "resolve_actions", "roll", "settle", "start_dice", "step"]

_NO_DICE = ("", "", "", "", "")


def deal(seed: int, players: int, variant: Variant, rules: int) -> MoonshineState:
    """A new game: random Speakeasies and first player from the seed; Standard: 2 Starting
    Clients each and the first token to place; Regular: the draft of 4/5/5/6/6 cards (M9). The
    shuffles are ``rng.shuffle`` inlined (the same draws, :func:`engine.moonshine.work.rng_shuffle`)."""
    rng = random.Random(f"{seed}:setup")
    first = rng.randrange(players)
    k = set_index(rules)
    speak = [k * SPEAKEASIES_PER_SET + s for s in range(SPEAKEASIES_PER_SET)]
    rng_shuffle(rng, speak)
    starting_ids, other_ids, every_id = _set_ids(k)
    seats = []
    if variant == "standard":
        starting = list(starting_ids)
        rng_shuffle(rng, starting)
        deck = [*other_ids, *starting[2 * players:]]
        rng_shuffle(rng, deck)
        for p in range(players):
            hand = tuple(starting[2 * p: 2 * p + 2])
            seats.append(_new_seat(speak[p], variant, hand, (PLACE,)))
        phase: Phase = "setup"
    else:
        deck = list(every_id)
        rng_shuffle(rng, deck)
        for p in range(players):
            pos = (p - first) % players
            k = DRAFT_SIZES[pos]
            offer, deck = tuple(deck[:k]), deck[k:]
            keep = side_info(speak[p], variant).base[CLIENT]
            seats.append(_new_seat(speak[p], variant, (), (FollowUp(kind="draft", cards=offer, n=keep),)))
        phase = "draft"
    state = MoonshineState(seed=seed, players=players, rules=rules, variant=variant, target=TARGET[variant],
                           phase=phase, first=first, active=first,
                           deck=tuple(deck), seats=tuple(seats))
    w = work_on(state)
    w.version = 0
    settle(w)
    return w.freeze()


@cache
def _set_ids(k: int) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
    """The global ids of card set ``k``'s Clients in card order: the Starting ones, the others,
    all (read from the card models once)."""
    cards = card_sets()[k].clients
    base = k * CLIENTS_PER_SET
    return (tuple(base + c.id for c in cards if c.starting), tuple(base + c.id for c in cards if not c.starting),
            tuple(base + c.id for c in cards))


def _new_seat(speakeasy: int, variant: str, hand: tuple[int, ...], queue: tuple[FollowUp, ...]) -> SeatState:
    side = side_info(speakeasy, variant)
    return SeatState(speakeasy=speakeasy, se_tokens=(0,) * len(side.slots), clients=hand,
                     cl_tokens=(0,) * len(hand), queue=queue)


# --- a step --------------------------------------------------------------------------------------


def step(state: MoonshineState, actions: Mapping[int, MoonshineAction], faces: tuple[str, ...] | None,
         events: list[Event] | None) -> MoonshineState:
    """The state after ``state`` when the seats play ``actions`` (checked legal): a roll step
    (:func:`roll`; ``faces`` forced for a reroll, else drawn from the step's chance), the secret
    actions (:func:`resolve_actions`) or answers to follow-ups (:func:`answer_all`), then every
    automatic step (:func:`settle`). The events are appended to ``events`` unless it is
    ``None``. Raises :class:`~engine.core.IllegalAction` when forced ``faces`` do not fit."""
    phase = state.phase
    if phase == "roll":
        return roll(state, actions[state.active], faces, events)
    w = work_on(state, events)
    if phase == "action":
        resolve_actions(w, actions)
    else:
        answer_all(w, actions)
    settle(w)
    return w.freeze()


# --- the roll (M3) ----------------------------------------------------------------------------------


class _Chance:
    """``seed`` and ``version`` of a step's next state: what :func:`engine.chance.hashed_draws`
    and :func:`engine.chance.rng_draws` read (made without ``__init__``, see :func:`roll`)."""

    __slots__ = ("seed", "version")
    seed: int
    version: int


_new_object = object.__new__


#: Die indexes of every reroll (its die names, sorted).
_REROLL_DICE = {tuple(sorted(c)): tuple(DIE_NAMES.index(d) for d in sorted(c))
                for r in range(1, 6) for c in combinations(DIE_NAMES, r)}
#: The next state of a roll step without a Moon-token gain (``engine.fast.replacer``).
_rolled = replacer(MoonshineState, "version", "phase", "dice", "rerolls")


def roll(state: MoonshineState, action: MoonshineAction, faces: Sequence[str] | None,
         events: list[Event] | None) -> MoonshineState:
    """The active player rerolls some dice (``faces`` forced, in die order, else drawn from the
    step's chance, :func:`engine.moonshine.dice.die_draws`) or stops. The roll ends at a stop or
    the last reroll: then every seat with access to a die showing a Moon face gains a token
    (:func:`gains`; M3). A step that gains no token and finds nothing pending is made on the
    frozen state, without a :class:`Work`. Raises :class:`IllegalAction` when forced ``faces``
    do not fit the rerolled dice."""
    seat = state.active
    dice = state.dice
    version = state.version + 1
    left = 0
    if action.__class__ is Reroll:
        which = _REROLL_DICE[action.dice]
        made = list(dice)
        if faces is None:
            chance = _new_object(_Chance)
            chance.seed = state.seed
            chance.version = version
            for i, v in zip(which, die_draws(chance, state.rules, "reroll", len(which))):  # noqa: B905
                made[i] = DIE_FACES[i][v]
        else:
            if len(faces) != len(which) or any(f not in DIE_FACES[i] for i, f in zip(which, faces, strict=False)):
                raise IllegalAction("impossible faces for these dice")
            for i, f in zip(which, faces):  # noqa: B905
                made[i] = f
        dice = tuple(made)
        left = state.rerolls - 1
        if events is not None:
            events.append(event("ms.ev.reroll", {"seat": seat, "dice": made, "left": left, "rerolled": list(which)}))
    for s in state.seats:
        if s.queue or s.lose:
            break
    else:  # nothing pending
        if left:
            return _rolled(state, version, "roll", dice, left)
        if dice[3] != "moon" and dice[4] != "moon":  # no token gained: the action phase
            if events is not None:
                events.append(_dice_event(seat, dice))
            return _rolled(state, version, "action", dice, 0)
    w = work_on(state, events)
    w.dice = dice
    w.rerolls = left
    if not left:
        gains(w)
    settle(w)
    return w.freeze()


def _dice_event(seat: int, dice: tuple[str, ...]) -> Event:
    """``ms.ev.dice``: the dice at the end of the roll."""
    return event("ms.ev.dice", {"seat": seat, "dice": list(dice)})


def gains(w: Work) -> None:
    """End of the roll: Moon-token gains from the dice for every player with access (M3)."""
    dice = w.dice
    if w.log:
        cast(LoggedWork, w).events.append(_dice_event(w.active, dice))
    blue, orange = dice[3] == "moon", dice[4] == "moon"
    if blue or orange:
        for seat in range(w.players):
            b = w.bundle(seat)
            n = (blue and b[BLUE] > 0) + (orange and b[ORANGE] > 0)
            if n:
                if w.log:
                    w.ev("ms.ev.gain", seat=seat, n=n)
                w.own(seat).queue += (PLACE,) * n
    w.phase = "gain"


#: ``_ROLLED[blue][orange]``: the dice a round starts with (white always, blue/orange with access).
_ROLLED = (((0, 1, 2), (0, 1, 2, 4)), ((0, 1, 2, 3), (0, 1, 2, 3, 4)))
#: ``_START_DICE[blue][orange]``: the dice a round starts with by the draws of the rolled dice
#: (:data:`_ROLLED`), made on first use (at most ``6 ** 5`` of each).
_START_DICE: tuple[tuple[dict[bytes, tuple[str, ...]], ...], ...] = (({}, {}), ({}, {}))


def start_dice(chance: Any, rules: int, bundle: Sequence[int]) -> tuple[str, ...]:
    """The dice a round starts with (M3): the white dice, plus the blue and orange ones when
    ``bundle`` (the active player's icons) has access, drawn from the chance of ``chance`` (the
    step's ``seed`` and ``version``; salt ``roll``; :func:`engine.moonshine.dice.die_draws`);
    the other dice ``""``."""
    blue, orange = bundle[BLUE] > 0, bundle[ORANGE] > 0
    which = _ROLLED[blue][orange]
    draws = die_draws(chance, rules, "roll", len(which))
    memo = _START_DICE[blue][orange]
    dice = memo.get(draws)
    if dice is None:
        made = [""] * 5
        for i, v in zip(which, draws):  # noqa: B905
            made[i] = DIE_FACES[i][v]
        dice = memo[draws] = tuple(made)
    return dice


# --- the secret actions (M2, M4) ---------------------------------------------------------------------


def resolve_actions(w: Work, actions: Mapping[int, MoonshineAction]) -> None:
    """M2: the secret actions resolve in seat order from the active player."""
    w.phase = "resolve"
    w.to_draw = list(w.to_draw)
    for seat in w.order():
        action = actions[seat]
        kind = action.__class__  # exact classes (see followups.answer)
        if kind is DrawCards:
            if w.log:
                w.ev("ms.ev.act_draw", seat=seat)
            w.to_draw.append((seat, "pick"))
        elif kind is TakeMoon:
            if w.log:
                w.ev("ms.ev.act_moon", seat=seat)
            w.own(seat).queue += (PLACE,)
        elif kind is Validate:
            _validate(w, seat, action.card)  # type: ignore[union-attr, arg-type]


def _validate(w: Work, seat: int, cid: int) -> None:
    """M4: the card moves to the validated ones; the Moon cost minus discounts is discarded, the
    tokens on the card first; a real choice among the others becomes a ``discard`` follow-up.

    Logs ``ms.ev.validate`` {seat, card, points, tokens} (``tokens`` = the Moon cost after
    discounts); rules 2 add ``on_card``, the tokens that were on the card (all discarded with it),
    and log a one-way discard of the rest as ``ms.ev.discarded``
    (:func:`~engine.moonshine.followups.discard`)."""
    ci = client_info(cid)
    need = max(0, ci.moon - w.bundle(seat)[DISC])
    s = w.own(seat)
    i = s.clients.index(cid)
    on_card = s.cl_tokens[i]
    s.clients = s.clients[:i] + s.clients[i + 1:]
    s.cl_tokens = s.cl_tokens[:i] + s.cl_tokens[i + 1:]
    s.validated += (cid,)
    rest = max(0, need - on_card)
    if w.log:
        points = points_of(s.validated, w.side(seat).silhouettes)
        if w.rules >= 2:
            w.ev("ms.ev.validate", seat=seat, card=cid, points=points, tokens=need, on_card=on_card)
        else:
            w.ev("ms.ev.validate", seat=seat, card=cid, points=points, tokens=need)
    if rest:
        opts = discard_options(held_slots(s), rest)
        if len(opts) == 1:
            discard(w, seat, s, opts[0], rest, chosen=False)
        else:
            s.queue += (follow_up("discard", (), rest),)
    w.to_draw.append((seat, "keep"))  # type: ignore[union-attr]  # a list in the resolve phase


def answer_all(w: Work, actions: Mapping[int, MoonshineAction]) -> None:
    """The parallel answers to private follow-ups, in seat order."""
    for seat in sorted(actions):
        answer(w, seat, actions[seat])


# --- automatic steps and phase changes ------------------------------------------------------------


def settle(w: Work) -> None:
    """Run every automatic step and phase change until someone must decide or the game ends."""
    rules2 = w.rules >= 2
    seats = w.seats
    n = w.players
    while True:
        # every automatic answer, then each seat's front follow-up and whether anything is
        # pending, read after that seat's automatic answers (those of a later seat may give an
        # earlier one a loss, +1/-1 Moon: the only change to another seat, checked below)
        changed = redraw = discard = pending = False
        for seat, s in enumerate(seats):
            q = s.queue
            if q or s.lose:
                if not (q and q[0].kind == "pick" and q[0].cards) and auto(w, seat):
                    # (a pick among drawn cards is a choice: auto() would return False)
                    changed = True
                    while auto(w, seat):
                        pass
                    s = seats[seat]
                    q = s.queue
                    if not q and not s.lose:
                        continue
                pending = True
                if q:
                    kind = q[0].kind
                    if kind == "redraw":
                        redraw = True
                    elif kind == "discard":
                        discard = True
        if changed and not pending:
            for s in seats:
                if s.lose:
                    pending = True
                    break
        if redraw and rules2 and _second_redraws(w):
            continue
        phase = w.phase
        if phase == "resolve" and w.to_draw and not discard:
            _do_draws(w)
            continue
        if pending or phase in _DECIDING:
            return
        # nobody has anything pending: the next phase (settled again only when it queued
        # something: a new round without rerolls has gained tokens to place)
        if phase == "resolve":
            _end_round(w)
        elif phase == "gain":
            w.phase = "action"
            return
        elif phase == "draft":
            w.phase = "setup"
            for i in range(n):
                w.own(i).queue += (PLACE,)
        elif phase == "setup":
            if w.variant == "regular":
                w.phase = "instants"
                for seat in range(n):
                    s = w.own(seat)
                    for cid in s.clients:
                        instant(w, seat, s, cid)
            else:
                _start_round(w)
        elif phase == "instants":
            _start_round(w)
        if w.phase in _DECIDING:
            return


#: The phases where settling stops: the roll and the secret actions wait for a seat, the game
#: is over.
_DECIDING = frozenset({"roll", "action", "over"})


def _second_redraws(w: Work) -> bool:
    """Rules 2: the ``redraw`` follow-ups that reached the front, in seat order from the active
    player; True if one was drawn."""
    done = False
    for seat in w.order():
        if w.front(seat) == "redraw":
            ws = w.own(seat)
            ws.queue = ws.queue[1:]
            redraw_once(w, seat, 0)
            done = True
    return done


def _do_draws(w: Work) -> None:
    """The deck draws of the action phase, in seat order (M2). Rules 1 deal both draws of a
    double redraw now; rules 2 deal the first and queue the second (:func:`redraw_once`)."""
    for seat, kind in w.to_draw:
        if kind == "pick":
            cards = w.draw(w.bundle(seat)[DRAW])
            if w.log:
                w.ev("ms.ev.drew", seat=seat, n=len(cards))
                w.ev("ms.ev.drew_private", audience=seat, seat=seat, cards=cards)
            s = w.own(seat)
            s.queue += (follow_up("pick", tuple(cards)),)
        elif w.rules >= 2:
            redraw_once(w, seat, len(w.seats[seat].queue))
        else:
            b = w.bundle(seat)
            s = w.own(seat)
            missing = b[CLIENT] - len(s.clients)
            for _ in range(max(0, missing)):
                cards = w.draw(b[DRAW])
                if w.log:
                    w.ev("ms.ev.redraw", seat=seat, n=len(cards))
                    w.ev("ms.ev.drew_private", audience=seat, seat=seat, cards=cards)
                s.queue += (follow_up("keep", tuple(cards)),)
    w.to_draw = ()


def _start_round(w: Work) -> None:
    """A new round: the next active player rolls the white dice, plus blue/orange with access
    (:func:`start_dice`)."""
    w.round += 1
    if w.round > 1:
        w.active = (w.active + 1) % w.players
    b = w.bundle(w.active)
    w.dice = dice = start_dice(w, w.rules, b)
    w.rerolls = b[REROLL]
    if w.log:
        w.ev("ms.ev.round", round=w.round, seat=w.active)
        w.ev("ms.ev.roll", seat=w.active, dice=list(dice))
    w.phase = "roll"
    if w.rerolls == 0:
        gains(w)


def _end_round(w: Work) -> None:
    """After the action phase: the game ends at the target (M8) or the round cap, else next round."""
    over = w.round >= MAX_ROUNDS
    if not over:
        target = w.target
        sides = SIDE_INFOS[w.variant]
        for s in w.seats:
            if s.validated and points_of(s.validated, sides[s.speakeasy].silhouettes) >= target:
                over = True
                break
    if over:
        w.phase = "over"
        w.dice = _NO_DICE
        if w.log:
            out = outcome_of(w)  # type: ignore[arg-type]  # the fields outcome_of reads
            w.ev("ms.ev.end", winners=list(out.winners), scores=list(out.scores))
    else:
        _start_round(w)
