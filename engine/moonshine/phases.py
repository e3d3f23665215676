"""Moonshine round structure: setup, the secret actions and their resolution, deck draws, round
ends (RULINGS M2-M9; ``docs/rules/moonshine.md``); the roll and its gains are in
:mod:`engine.moonshine.roll` (re-exported here).

Every function works on a :class:`~engine.moonshine.work.Work` copy; :func:`settle` runs every
automatic step and phase change until a seat must decide or the game is over.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from functools import cache

from engine.moonshine.actions import DrawCards, MoonshineAction, TakeMoon, Validate
from engine.moonshine.cards import CLIENTS_PER_SET, SPEAKEASIES_PER_SET, card_sets, set_index
from engine.moonshine.followups import answer, auto, discard, instant, redraw_once
from engine.moonshine.icons import CLIENT, DISC, DRAW, REROLL, SIDE_INFOS, client_info, side_info
from engine.moonshine.roll import fast_roll, gains, roll_step, settled_roll, start_dice
from engine.moonshine.scoring import MAX_ROUNDS, TARGET, outcome_of, points_of
from engine.moonshine.state import DRAFT_SIZES, FollowUp, MoonshineState, Phase, SeatState, Variant, discard_options
from engine.moonshine.work import PLACE, Work, _shuffle, follow_up

__all__ = ["deal", "fast_roll", "roll_step", "resolve_actions", "answer_all", "settle", "settled_roll"]

_NO_DICE = ("", "", "", "", "")


def deal(seed: int, players: int, variant: Variant, rules: int) -> MoonshineState:
    """A new game: random Speakeasies and first player from the seed; Standard: 2 Starting
    Clients each and the first token to place; Regular: the draft of 4/5/5/6/6 cards (M9). The
    shuffles are ``rng.shuffle`` inlined (the same draws, :func:`engine.moonshine.work._shuffle`)."""
    rng = random.Random(f"{seed}:setup")
    first = rng.randrange(players)
    k = set_index(rules)
    speak = [k * SPEAKEASIES_PER_SET + s for s in range(SPEAKEASIES_PER_SET)]
    _shuffle(rng, speak)
    starting_ids, other_ids, every_id = _set_ids(k)
    seats = []
    if variant == "standard":
        starting = list(starting_ids)
        _shuffle(rng, starting)
        deck = [*other_ids, *starting[2 * players:]]
        _shuffle(rng, deck)
        for p in range(players):
            hand = tuple(starting[2 * p: 2 * p + 2])
            seats.append(_new_seat(speak[p], variant, hand, (PLACE,)))
        phase: Phase = "setup"
    else:
        deck = list(every_id)
        _shuffle(rng, deck)
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
    w = Work(state, log=False)
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


# --- 3. actions --------------------------------------------------------------------------------------


def resolve_actions(w: Work, actions: Mapping[int, MoonshineAction]) -> None:
    """M2: the secret actions resolve in seat order from the active player."""
    w.phase = "resolve"
    w.to_draw = list(w.to_draw)
    for seat in w.order():
        action = actions[seat]
        kind = type(action)  # exact classes (see followups.answer)
        if kind is DrawCards:
            if w.log:
                w.ev("ms.ev.act_draw", seat=seat)
            w.to_draw.append((seat, "pick"))
        elif kind is TakeMoon:
            if w.log:
                w.ev("ms.ev.act_moon", seat=seat)
            (w.work[seat] or w.copy(seat)).queue += (PLACE,)
        elif kind is Validate:
            _validate(w, seat, action.card)  # type: ignore[union-attr, arg-type]


def _validate(w: Work, seat: int, cid: int) -> None:
    """M4: the card moves to the validated ones; the Moon cost minus discounts is discarded, the
    tokens on the card first; a real choice among the others becomes a ``discard`` follow-up.

    Logs ``ms.ev.validate`` {seat, card, points, tokens} (``tokens`` = the Moon cost after
    discounts); rules 2 add ``on_card``, the tokens that were on the card (all discarded with it),
    and log a one-way discard of the rest as ``ms.ev.discarded`` (:func:`followups.discard`)."""
    ci = client_info(cid)
    need = max(0, ci.moon - w.bundle(seat)[DISC])  # before the copy: the bundle the legal actions read
    s = w.work[seat] or w.copy(seat)
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
        opts = discard_options(w.holding(seat), rest)
        if len(opts) == 1:
            discard(w, seat, opts[0], rest, chosen=False)
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
    rules2 = w.state.rules >= 2
    n = w.n
    orig = w.state.seats
    work = w.work
    seats = range(n)
    while True:
        # every automatic answer, and the front follow-ups and whether anything is pending after
        # them: read in the same pass while nothing changed (an answer may change another seat,
        # e.g. a +1/-1 Moon's loss, so after a change they are read again in a second pass)
        changed = redraw = discard = pending = False
        for seat in seats:
            x = work[seat]
            s = orig[seat] if x is None else x
            q = s.queue
            if q or s.lose:
                if q and q[0].kind == "pick" and q[0].cards:
                    pass  # a pick among drawn cards is a choice: auto() would return False
                elif auto(w, seat):
                    changed = True
                    while auto(w, seat):
                        pass
                    continue
                if not changed:
                    pending = True
                    if q:
                        kind = q[0].kind
                        if kind == "redraw":
                            redraw = True
                        elif kind == "discard":
                            discard = True
        if changed:
            redraw = discard = pending = False
            for x, s in zip(work, orig):  # noqa: B905
                if x is not None:
                    s = x
                q = s.queue
                if q:
                    pending = True
                    kind = q[0].kind
                    if kind == "redraw":
                        redraw = True
                    elif kind == "discard":
                        discard = True
                elif s.lose:
                    pending = True
        if redraw and rules2 and _second_redraws(w):
            continue
        phase = w.phase
        if phase == "resolve" and w.to_draw and not discard:
            _do_draws(w)
            continue
        if pending or phase == "roll" or phase == "action" or phase == "over":
            return
        # nobody has anything pending: next phase
        if phase == "draft":
            w.phase = "setup"
            for i in range(n):
                (w.work[i] or w.copy(i)).queue += (PLACE,)
        elif phase == "setup":
            if w.variant == "regular":
                w.phase = "instants"
                for seat in range(n):
                    for cid in (w.work[seat] or w.copy(seat)).clients:
                        instant(w, seat, cid)
            else:
                _start_round(w)
        elif phase == "instants":
            _start_round(w)
        elif phase == "gain":
            w.phase = "action"
        elif phase == "resolve":
            _end_round(w)


def _second_redraws(w: Work) -> bool:
    """Rules 2: the ``redraw`` follow-ups that reached the front, in seat order from the active
    player; True if one was drawn."""
    done = False
    for seat in w.order():
        if w.front(seat) == "redraw":
            ws = w.work[seat] or w.copy(seat)
            ws.queue = ws.queue[1:]
            redraw_once(w, seat, 0)
            done = True
    return done


def _do_draws(w: Work) -> None:
    """The deck draws of the action phase, in seat order (M2). Rules 1 deal both draws of a
    double redraw now; rules 2 deal the first and queue the second (:func:`redraw_once`)."""
    for seat, kind in w.to_draw:
        b = w.bundle(seat)
        s = w.work[seat] or w.copy(seat)
        if kind == "pick":
            cards = w.draw(b[DRAW])
            if w.log:
                w.ev("ms.ev.drew", seat=seat, n=len(cards))
                w.ev("ms.ev.drew_private", audience=seat, seat=seat, cards=cards)
            s.queue += (follow_up("pick", tuple(cards)),)
        elif w.rules >= 2:
            redraw_once(w, seat, len(s.queue))
        else:
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
    (:func:`engine.moonshine.roll.start_dice`)."""
    w.round += 1
    if w.round > 1:
        w.active = (w.active + 1) % w.n
    b = w.bundle(w.active)
    w.dice = dice = start_dice(w, w.state.rules, b)
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
        target = w.state.target
        sides = SIDE_INFOS[w.variant]
        for x, s in zip(w.work, w.state.seats):  # noqa: B905
            if x is not None:
                s = x  # type: ignore[assignment]  # the same fields
            if s.validated and points_of(s.validated, sides[s.speakeasy].silhouettes) >= target:
                over = True
                break
    if over:
        w.phase = "over"
        w.dice = _NO_DICE
        if w.log:
            out = outcome_of(w.freeze())
            w.ev("ms.ev.end", winners=list(out.winners), scores=list(out.scores))
    else:
        _start_round(w)
