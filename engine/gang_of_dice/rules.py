"""Gang of Dice (Reiner Knizia, Mandoo Games), 2–4 players: the :class:`GangOfDice` game.

Rules: ``docs/rules/gang-of-dice.md`` as decided by RULINGS G1–G7.

Game flow
---------
Twelve rounds. Each round one warning card (:mod:`engine.gang_of_dice.cards`) is shown; then the
live players act one after another: commit ``n`` dice of their private stock (:class:`Commit`),
which are rolled at once, then reroll any subset up to two more times (:class:`Mark` /
:class:`Unmark` then :class:`Reroll`) and :class:`Stop`. The best score among the players who
did not trigger the card takes every die on the table. Faces are ``0`` (the boss) and ``1``–``5``;
dice are interchangeable, so a roll is kept as a sorted tuple of faces.

Interpretations where the texts are silent (G1–G7 decide the rest)
------------------------------------------------------------------
- The 16 cards are shuffled at set-up and round ``r`` shows ``deck[r-1]``; the undrawn part is
  hidden.
- Turn order (G4): the first player of round 1 is drawn at set-up. From rules version 2 on, the
  first player of each later round is the next seat still in the game clockwise from the previous
  round's first player (eliminated seats are passed over). Rules version 1 (tables set up before
  the fix) keeps the old rotation: round ``r`` nominally starts with ``(first + r - 1) % players``
  and, if that seat is out, the next live seat starts (so one player could start two rounds in a
  row). Players then act clockwise, eliminated seats passed over.
- A player may stop after any roll, the first included; the third roll is final. Yellow cards are
  checked after each roll (a trigger ends the turn at once), black cards once, on the final roll
  (G3). A score of 0 is a valid score.
- Winner: highest score among non-triggered players; ties -> more dice committed this round,
  then the earlier roller (G5). If every player triggers, the table stays for the next round;
  after round 12 it leaves the game (``removed``); bonus dice 3/6/9 are put on the table when
  rounds 10/11/12 start (G6).
- Elimination is decided after the round is resolved: a player who committed their last die is
  out only if they did not win (G7). The game ends after round 12, or as soon as fewer than two
  players have dice.

Events (public unless noted; seats are ints)
-------------------------------------------
``god.round`` {round, card} · ``god.bonus`` {round, dice} · ``god.commit`` {seat, dice} ·
``god.stock`` {seat, stock} (audience: that seat only) · ``god.roll`` {seat, roll (1–3),
dice (rolled now), faces (the whole roll, sorted)} · ``god.trigger`` {seat, card, faces} ·
``god.stop`` {seat, score, faces} · ``god.win`` {winner, score, dice} · ``god.carry`` {dice} ·
``god.removed`` {dice} · ``god.eliminated`` {seat} · ``god.end`` {winners (list), stocks (list)}.
Marks produce no event. :meth:`GangOfDice.apply` builds the events of a commit, a reroll or a
stop only when ``Step.events`` is first read (``core.LazyStep``: the step is played again from the
state before it with the dice it rolled, the events recorded), so a random playout or a
search, which reads only the states, does not pay for them.

Chance
------
Every roll goes through :func:`roll_faces`: from rules version 3 on, a counter-based generator
(``core.hashed_draws``: BLAKE2b of ``seed:version:roll``); rules versions 1 and 2 keep the Mersenne
Twister seeded from the same text (``rng_for(state, "roll")``, drawn in bulk by
``core.rng_draws``). Tests script rolls with
:func:`apply_with_faces` and the card order / first player / stocks / rules version with
:func:`scripted_setup`.
"""

from __future__ import annotations

import random
from bisect import bisect_left
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace
from hashlib import blake2b
from itertools import chain, compress, repeat
from operator import add, lt, sub
from typing import Any

from engine.chance import hashed_draws, rng_draws
from engine.core import Event, Game, GameOptions, IllegalAction, Outcome, Step
from engine.fast import event, lazy_step, replacer, step_of
from engine.gang_of_dice import ai, hidden
from engine.gang_of_dice.actions import (
    MARKS,
    REROLL,
    STOP,
    UNMARKS,
    Commit,
    GangOfDiceAction,
    Mark,
    Reroll,
    Stop,
    Unmark,
    commits,
    decode,
    encode,
)
from engine.gang_of_dice.cards import CARDS, compiled_hit, counts
from engine.gang_of_dice.state import (
    BONUS_DICE,
    FACES,
    MAX_ROLLS,
    NO_MARKS,
    ROUNDS,
    GangOfDiceState,
    Status,
    starting_stock,
)
from engine.gang_of_dice.view import GangOfDiceView, outcome_of, view_of

__all__ = ["GangOfDice", "apply_with_faces", "roll_faces", "round_order", "scripted_setup"]

def roll_faces(state: GangOfDiceState, n: int) -> Sequence[int]:
    """``n`` random faces (0 = boss, 1–5) of a roll made from ``state`` (``docs/rules/gang-of-dice.md``,
    "Chance").

    Rules version 3: ``core.hashed_draws(state, "roll", n, 6)`` (BLAKE2b blocks of
    ``seed:version:roll``). Rules versions 1 and 2 (older tables keep their draws): ``n`` calls of
    ``rng_for(state, "roll").randrange(6)``, computed in bulk by ``core.rng_draws``. The faces
    come as a ``bytes`` (one face a byte, in draw order); a test that patches this function may
    return any sequence of ints.
    """
    if state.rules >= 3:
        # hashed_draws' first block, inlined (up to ~63 dice): the same bytes
        out = blake2b(b"%d:%d:roll" % (state.seed, state.version)).digest().translate(_SIX, _SIX_REJECTED)
        if 0 < n <= len(out):
            return out[:n]
        return hashed_draws(state, "roll", n, 6)
    return rng_draws(state, "roll", n, 6)


#: ``core.hashed_draws``' tables for dice: byte ``b`` -> ``b % 6``; bytes 252-255 rejected.
_SIX = bytes(b % 6 for b in range(256))
_SIX_REJECTED = bytes(range(252, 256))


def _live_from(start: int, players: int, status: tuple[Status, ...]) -> tuple[int, ...]:
    """Live seats clockwise from ``start`` (``start`` included when live)."""
    return tuple(s for s in ((start + i) % players for i in range(players)) if status[s] != "out")


def round_order(state: GangOfDiceState, round_no: int, status: tuple[Status, ...]) -> tuple[int, ...]:
    """Live seats of round ``round_no`` (``>= 2``) in playing order; ``state`` is the previous
    round's state (its ``order[0]`` was that round's first player), ``status`` the statuses
    after its eliminations.

    RULINGS G4 (rules version 2): the next live seat clockwise from the previous first player
    starts. Rules version 1: the nominal seat ``(first + round_no - 1) % players`` starts, or the
    next live seat after it when it is out.
    """
    n = state.players
    if state.rules < 2:
        return _live_from((state.first + round_no - 1) % n, n, status)
    return _live_from((state.order[0] + 1) % n, n, status)


#: ``to_act`` answers and private event audiences, shared (seats 0..3).
_NOBODY: frozenset[int] = frozenset()
_ONLY: tuple[frozenset[int], ...] = tuple(frozenset((s,)) for s in range(4))


def _putter(n: int, i: int) -> Callable[[tuple[Any, ...], Any], tuple[Any, ...]]:
    """``lambda t, v: t[:i] + (v,) + t[i + 1:]`` for tuples of length ``n``, written out
    (``(t[0], v, t[2])``): one tuple built instead of three."""
    items = ", ".join("v" if k == i else f"t[{k}]" for k in range(n))
    fn: Callable[[tuple[Any, ...], Any], tuple[Any, ...]] = eval(f"lambda t, v: ({items},)")  # built from ints only
    return fn


#: ``_PUT[n][i](t, v)``: the tuple ``t`` of length ``n`` (a per-seat tuple; 6 = marks per face) with
#: entry ``i`` set to ``v``.
_PUT: tuple[tuple[Callable[[tuple[Any, ...], Any], tuple[Any, ...]], ...], ...] = tuple(
    tuple(_putter(n, i) for i in range(n)) for n in range(7))

# One copy per step, by straight-line code (engine.fast.replacer): the fields each kind of step sets.
_marked = replacer(GangOfDiceState, "version", "marks")
_rolled = replacer(GangOfDiceState, "version", "stocks", "committed", "table", "faces", "rolls", "marks",
                   "phase", "status")
_new_round = replacer(GangOfDiceState, "version", "round", "order", "turn", "phase", "committed", "faces", "rolls",
                      "status", "marks", "table", "carried", "bonus", "bonus_total", "stocks", "removed")
_next_turn = replacer(GangOfDiceState, "version", "stocks", "committed", "table", "faces", "rolls", "marks",
                      "phase", "status", "turn")
_game_over = replacer(GangOfDiceState, "version", "stocks", "committed", "table", "faces", "rolls", "marks",
                      "phase", "status", "removed")


#: The last roll whose face counts were asked for, and its counts (one entry, by identity: the
#: marks of a turn and their legal actions all read the same roll).
_last_counts: tuple[tuple[int, ...], tuple[int, ...]] = ((), NO_MARKS)


def _counts_of(faces: tuple[int, ...]) -> tuple[int, ...]:
    """``counts(faces)`` for a roll of the state, remembered for the next call on the same roll."""
    global _last_counts
    last = _last_counts
    if last[0] is faces:
        return last[1]
    c = counts(faces)
    _last_counts = (faces, c)
    return c


def _is_legal(state: GangOfDiceState, seat: int, action: object) -> bool:
    """``action in legal_actions(state, seat)``, without building the tuple."""
    phase = state.phase
    if phase == "over" or seat != state.order[state.turn]:
        return False
    kind = type(action)
    if phase == "commit":
        return kind is Commit and 1 <= action.dice <= state.stocks[seat]  # type: ignore[attr-defined]
    if kind is Mark:
        face: int = action.face  # type: ignore[attr-defined]
        return 0 <= face <= 5 and state.marks[face] < _counts_of(state.faces[seat])[face]
    if kind is Unmark:
        face = action.face  # type: ignore[attr-defined]
        return 0 <= face <= 5 and state.marks[face] > 0
    if kind is Reroll:
        return state.marks != NO_MARKS and state.rolls[seat] < MAX_ROLLS
    return kind is Stop


def _commit(state: GangOfDiceState, seat: int, n: int, rolled: Sequence[int],
            ev: list[Event] | None) -> GangOfDiceState:
    """``seat`` commits ``n`` dice (legal) and rolls them: ``rolled`` (``n`` faces, from
    :func:`roll_faces` or scripted); ``ev`` (``None`` = not recorded) receives the step's events."""
    put = _PUT[state.players][seat]
    stock = state.stocks[seat] - n
    faces = tuple(sorted(rolled))
    if ev is not None:
        ev.append(event("god.commit", {"seat": seat, "dice": n}))
        ev.append(event("god.stock", {"seat": seat, "stock": stock}, _ONLY[seat]))
    return _after_roll(state, seat, put, n, faces, counts(faces) if n <= 10 else _sorted_counts(faces),
                       put(state.stocks, stock), put(state.committed, n), state.table + n, ev)


def _sorted_counts(faces: tuple[int, ...]) -> tuple[int, ...]:
    """``counts(faces)`` of a sorted roll, from where each face starts (cheaper for big rolls)."""
    a = bisect_left(faces, 1)
    b = bisect_left(faces, 2, a)
    c = bisect_left(faces, 3, b)
    d = bisect_left(faces, 4, c)
    e = bisect_left(faces, 5, d)
    return (a, b - a, c - b, d - c, e - d, len(faces) - e)


def _reroll(state: GangOfDiceState, seat: int, rolled: Sequence[int],
            ev: list[Event] | None) -> GangOfDiceState:
    """``seat`` rerolls its marked dice (legal): they leave the roll and show ``rolled`` (one
    face per marked die, from :func:`roll_faces` or scripted)."""
    marks = state.marks
    n = len(rolled)
    kept = map(sub, _counts_of(state.faces[seat]), marks)
    c = tuple(map(add, kept, counts(rolled)))
    return _after_roll(state, seat, _PUT[state.players][seat], n, tuple(chain.from_iterable(map(repeat, FACES, c))),
                       c, state.stocks, state.committed, state.table, ev)


def _after_roll(state: GangOfDiceState, seat: int, put: Callable[[tuple[Any, ...], Any], tuple[Any, ...]], n: int,
                faces: tuple[int, ...], c: tuple[int, ...], stocks: tuple[int, ...], committed: tuple[int, ...],
                table: int, ev: list[Event] | None) -> GangOfDiceState:
    """The state after ``seat`` rolled ``n`` dice, its roll now ``faces`` (face counts ``c``):
    the card checked (G3), then the turn goes on or ends."""
    global _last_counts
    _last_counts = (faces, c)
    roll_no = state.rolls[seat] + 1
    if ev is not None:
        ev.append(event("god.roll", {"seat": seat, "roll": roll_no, "dice": n, "faces": list(faces)}))
    all_faces = put(state.faces, faces)
    rolls = put(state.rolls, roll_no)
    yellow, hit = _CHECKS[state.deck[state.round - 1]]
    if yellow and hit(c):  # G3: yellow, after every roll
        return _end_turn(state, seat, put, ev, stocks, committed, table, all_faces, rolls, faces, True)
    if roll_no >= MAX_ROLLS:  # the third roll is final
        return _end_turn(state, seat, put, ev, stocks, committed, table, all_faces, rolls, faces, hit(c))
    return _rolled(state, state.version + 1, stocks, committed, table, all_faces, rolls, NO_MARKS, "roll",
                   put(state.status, "rolling"))


def _stop(state: GangOfDiceState, seat: int, ev: list[Event] | None) -> GangOfDiceState:
    """``seat`` keeps its roll: the card is checked (black cards: now, G3) and the turn ends."""
    faces = state.faces[seat]
    return _end_turn(state, seat, _PUT[state.players][seat], ev, state.stocks, state.committed, state.table,
                     state.faces, state.rolls, faces, _CHECKS[state.deck[state.round - 1]][1](_counts_of(faces)))


#: Per card id: is it yellow (checked after every roll, G3), and its rule (``cards.compiled_hit``).
_CHECKS: dict[str, tuple[bool, Callable[[tuple[int, ...]], bool]]] = {
    key: (card.colour == "yellow", compiled_hit(card.rule)) for key, card in CARDS.items()}


def _forced(forced: Iterable[int], n: int) -> tuple[int, ...]:
    """The scripted faces of a roll of ``n`` dice; raises :class:`IllegalAction` unless they are
    ``n`` faces in 0..5."""
    new = tuple(forced)
    if len(new) != n or any(f not in FACES for f in new):
        raise IllegalAction(f"forced faces must be {n} faces in 0..5")
    return new


def _end_turn(state: GangOfDiceState, seat: int, put: Callable[[tuple[Any, ...], Any], tuple[Any, ...]],
              ev: list[Event] | None, stocks: tuple[int, ...], committed: tuple[int, ...], table: int,
              all_faces: tuple[tuple[int, ...], ...], rolls: tuple[int, ...], faces: tuple[int, ...],
              triggered: bool) -> GangOfDiceState:
    """Finish ``seat``'s turn (stopped or triggered, its roll ``faces``) with the step's per-seat
    tuples, then the next turn or the round's end."""
    status = put(state.status, "triggered" if triggered else "stopped")
    if ev is not None:
        if triggered:
            ev.append(event("god.trigger", {"seat": seat, "card": state.deck[state.round - 1], "faces": list(faces)}))
        else:
            ev.append(event("god.stop", {"seat": seat, "score": sum(faces), "faces": list(faces)}))
    turn = state.turn + 1
    if turn < len(state.order):
        return _next_turn(state, state.version + 1, stocks, committed, table, all_faces, rolls, NO_MARKS, "commit",
                          status, turn)
    return _resolve_round(state, ev, stocks, committed, table, all_faces, rolls, status)


def _resolve_round(state: GangOfDiceState, ev: list[Event] | None, stocks: tuple[int, ...],
                   committed: tuple[int, ...], pot: int, all_faces: tuple[tuple[int, ...], ...],
                   rolls: tuple[int, ...], status: tuple[Status, ...]) -> GangOfDiceState:
    """The round of ``state`` is played (its last turn left these per-seat tuples and ``pot``
    dice on the table): pay the winner (G5) or carry / remove the table (G6), eliminate (G7),
    then the next round or the end (the step's one copy of the state)."""
    order = state.order
    removed = state.removed
    table = 0
    # best_seat (G5): higher score, then more dice committed, then the earlier roller
    winner = -1
    best = (-1, -1)
    for s in order:
        if status[s] == "stopped":
            key = (sum(all_faces[s]), committed[s])
            if key > best:
                winner, best = s, key
    if winner >= 0:
        stock = stocks[winner] + pot
        stocks = _PUT[state.players][winner](stocks, stock)
        if ev is not None:
            ev.append(event("god.win", {"winner": winner, "score": best[0], "dice": pot}))
            ev.append(event("god.stock", {"seat": winner, "stock": stock}, _ONLY[winner]))
    elif state.round < ROUNDS:
        table = pot
        if ev is not None:
            ev.append(event("god.carry", {"dice": pot}))
    else:
        removed += pot
        if ev is not None:
            ev.append(event("god.removed", {"dice": pot}))
    if 0 in stocks:
        out = list(status)
        for s in order:
            if stocks[s] == 0:
                out[s] = "out"
                if ev is not None:
                    ev.append(event("god.eliminated", {"seat": s}))
        status = tuple(out)
    if state.round >= ROUNDS or len(status) - status.count("out") < 2:
        if ev is not None:
            ev.append(event("god.end", {"winners": list(outcome_of(stocks).winners), "stocks": list(stocks)}))
        return _game_over(state, state.version + 1, stocks, committed, table, all_faces, rolls, NO_MARKS, "over",
                          status, removed)
    round_no = state.round + 1
    n = state.players
    status = _WAITING[n] if "out" not in status else tuple(_OUT if s == "out" else _WAIT for s in status)
    bonus = BONUS_DICE.get(round_no, 0)
    if ev is not None:
        ev.append(event("god.round", {"round": round_no, "card": state.deck[round_no - 1]}))
        if bonus:
            ev.append(event("god.bonus", {"round": round_no, "dice": bonus}))
    return _new_round(state, state.version + 1, round_no, round_order(state, round_no, status), 0, "commit",
                      _ZEROS[n], _NO_FACES[n], _ZEROS[n], status, NO_MARKS, table + bonus, table, bonus,
                      state.bonus_total + bonus, stocks, removed)


_OUT: Status = "out"
_WAIT: Status = "waiting"
#: Per seat count: every seat waiting, zeros, empty rolls (shared tuples of a new round).
_WAITING: tuple[tuple[Status, ...], ...] = tuple((_WAIT,) * n for n in range(5))
_ZEROS: tuple[tuple[int, ...], ...] = tuple((0,) * n for n in range(5))
_NO_FACES: tuple[tuple[tuple[int, ...], ...], ...] = tuple(((),) * n for n in range(5))


#: A new game's state is a copy of this one (every other field at its default: version 0, round
#: 1, turn 0, the commit phase, nothing marked nor on the table) with the dealt fields set.
_UNDEALT = GangOfDiceState(seed=0, players=0, deck=(), first=0, order=(), stocks=(), committed=(), faces=(),
                           rolls=(), status=())
_dealt = replacer(GangOfDiceState, "seed", "players", "rules", "deck", "first", "order", "stocks", "committed",
                  "faces", "rolls", "status")


def _lazy(state: GangOfDiceState, before: GangOfDiceState, action: GangOfDiceAction,
          rolled: Sequence[int] | None) -> Step[GangOfDiceState]:
    """The step to ``state`` made by ``action`` from ``before``, which rolled ``rolled`` (``None``
    for a stop); its events are built when read (:class:`~engine.fast.LazyStep`: the step is
    played again from ``before`` with the dice it rolled, the events recorded)."""
    return lazy_step(state, _replayed_events, before, action, rolled)


def _replayed_events(state: GangOfDiceState, action: GangOfDiceAction, rolled: Sequence[int] | None
                     ) -> tuple[Event, ...]:
    """The events of the (legal) commit, reroll or stop ``action`` of the seat to act in
    ``state``, whose roll gave ``rolled``."""
    events: list[Event] = []
    seat = state.order[state.turn]
    kind = type(action)
    if kind is Commit:
        _commit(state, seat, action.dice, rolled, events)  # type: ignore[arg-type, union-attr]
    elif kind is Reroll:
        _reroll(state, seat, rolled, events)  # type: ignore[arg-type]
    else:
        _stop(state, seat, events)
    return tuple(events)


class GangOfDice(Game[GangOfDiceState, GangOfDiceAction, GangOfDiceView]):
    """Gang of Dice for 2–4 players (RULINGS G1–G7, ``docs/rules/gang-of-dice.md``).

    Rules versions: 1 = the turn order before the G4 fix (kept for running tables); 2 = G4 as
    ruled (the next live seat after the previous first player starts each round); 3 = rolls from
    the cheap counter-based generator (:func:`roll_faces`; same rules, other dice for a seed).
    """

    key = "gang-of-dice"
    min_players = 2
    max_players = 4
    state_model = GangOfDiceState
    options_model = GameOptions
    rules_version = 3

    def setup(self, seed: int, players: int, options: GameOptions | Mapping[str, Any] | None = None
              ) -> GangOfDiceState:
        """New game: shuffled deck, random first player, 48/36 dice each (G1, G3, G4).

        Raises ``ValueError`` unless ``2 <= players <= 4``.
        """
        if not self.min_players <= players <= self.max_players:
            raise ValueError(f"Gang of Dice needs 2 to 4 players, not {players}")
        if options:  # an empty dict or None: the defaults, nothing to validate
            self.parse_options(options)
        rng = random.Random(f"gang-of-dice:{seed}:setup")
        deck = list(CARDS)
        rng.shuffle(deck)
        first = rng.randrange(players)
        status = _WAITING[players]
        return _dealt(_UNDEALT, seed, players, self.rules_version, tuple(deck), first,
                      _live_from(first, players, status), (starting_stock(players),) * players, _ZEROS[players],
                      _NO_FACES[players], _ZEROS[players], status)

    def to_act(self, state: GangOfDiceState) -> frozenset[int]:
        """The single seat whose turn it is; empty when the game is over."""
        if state.phase == "over":
            return _NOBODY
        return _ONLY[state.order[state.turn]]

    def legal_actions(self, state: GangOfDiceState, seat: int) -> tuple[GangOfDiceAction, ...]:
        """Commits of 1..stock dice in the commit phase; after a roll the marks, unmarks, the
        reroll (something marked, fewer than 3 rolls) and stop, in that order."""
        phase = state.phase
        if phase == "roll":
            if seat != state.order[state.turn]:
                return ()
            faces = state.faces[seat]
            last = _last_counts
            c = last[1] if last[0] is faces else _counts_of(faces)
            marks = state.marks
            if marks is NO_MARKS or marks == NO_MARKS:
                return (*compress(MARKS, c), STOP)
            if state.rolls[seat] < MAX_ROLLS:
                return (*compress(MARKS, map(lt, marks, c)), *compress(UNMARKS, marks), REROLL, STOP)
            return (*compress(MARKS, map(lt, marks, c)), *compress(UNMARKS, marks), STOP)
        if phase == "commit" and seat == state.order[state.turn]:
            return commits(state.stocks[seat])
        return ()

    def apply(self, state: GangOfDiceState, actions: Mapping[int, GangOfDiceAction]) -> Step[GangOfDiceState]:
        """Apply the acting seat's action; rolls come from :func:`roll_faces`.

        Raises :class:`IllegalAction` unless ``actions`` is exactly ``{current seat: legal action}``.
        """
        phase = state.phase
        if phase == "over":
            raise IllegalAction("the game is over")
        seat = state.order[state.turn]
        if len(actions) != 1 or seat not in actions:
            raise IllegalAction(f"expected actions from seats [{seat}], got {sorted(actions)}")
        action = actions[seat]
        kind = type(action)
        if phase == "roll":
            if kind is Mark or kind is Unmark:  # the commonest steps, inlined
                face = action.face  # type: ignore[union-attr]
                marks = state.marks
                if 0 <= face <= 5:
                    had = marks[face]
                    if kind is Unmark:
                        if had > 0:
                            return step_of(_marked(state, state.version + 1, _PUT[6][face](marks, had - 1)))
                    else:
                        faces = state.faces[seat]
                        last = _last_counts
                        if had < (last[1] if last[0] is faces else _counts_of(faces))[face]:
                            return step_of(_marked(state, state.version + 1, _PUT[6][face](marks, had + 1)))
            elif kind is Stop:
                return _lazy(_stop(state, seat, None), state, action, None)
            elif kind is Reroll and state.marks != NO_MARKS and state.rolls[seat] < MAX_ROLLS:
                rolled = roll_faces(state, sum(state.marks))
                return _lazy(_reroll(state, seat, rolled, None), state, action, rolled)
        elif kind is Commit and 1 <= action.dice <= state.stocks[seat]:  # type: ignore[union-attr]
            n = action.dice  # type: ignore[union-attr]
            rolled = roll_faces(state, n)
            return _lazy(_commit(state, seat, n, rolled, None), state, action, rolled)
        raise IllegalAction(f"seat {seat}: that action is not legal now")

    def view(self, state: GangOfDiceState, seat: int | None) -> GangOfDiceView:
        """The typed view of ``seat`` (``None`` = public); see :mod:`engine.gang_of_dice.view`."""
        return view_of(state, seat)

    def outcome(self, state: GangOfDiceState) -> Outcome | None:
        """Ranks by final stock (most dice first, ties share: G7); scores = final stocks."""
        return outcome_of(state.stocks) if state.phase == "over" else None

    def turn_order(self, state: GangOfDiceState) -> tuple[int, ...]:
        """Seats clockwise from round 1's first player (G4), for ``simulate``'s positions."""
        return tuple((state.first + k) % state.players for k in range(state.players))

    def progress(self, state: GangOfDiceState) -> int:
        """Rounds played so far (for ``simulate`` summaries)."""
        return state.round if state.phase == "over" else state.round - 1

    def stats(self, state: GangOfDiceState) -> dict[str, float]:
        """Counters of a finished game for ``simulate``, named as its summary prints them:
        players put out and dice that left the game."""
        return {"players put out": sum(1 for s in state.status if s == "out"),
                "dice removed from the game": state.removed}

    def hidden_variant(self, state: GangOfDiceState, seat: int | None, salt: int) -> GangOfDiceState:
        """Undrawn cards re-dealt, stocks inferred exactly (:func:`engine.gang_of_dice.hidden.hidden_variant`)."""
        return hidden.hidden_variant(state, seat, salt)

    def ai_action(self, state: GangOfDiceState, seat: int) -> GangOfDiceAction:
        """The baseline AI's micro-action (:func:`engine.gang_of_dice.ai.choose`).

        Raises :class:`IllegalAction` when ``seat`` is not to act."""
        if seat != state.current:
            raise IllegalAction(f"seat {seat} is not to act")
        return ai.choose(state, seat)

    def encode(self, action: GangOfDiceAction) -> str:
        """``c{n}``, ``m{f}``, ``u{f}``, ``r`` or ``s`` (:mod:`engine.gang_of_dice.actions`)."""
        return encode(action)

    def decode(self, code: str) -> GangOfDiceAction:
        """Inverse of :meth:`encode`; raises :class:`IllegalAction` on a malformed code."""
        return decode(code)


def apply_with_faces(state: GangOfDiceState, action: GangOfDiceAction | str,
                     faces: Iterable[int] | None = None) -> Step[GangOfDiceState]:
    """Apply the acting seat's ``action`` (an action or its code) with the roll it makes forced
    to ``faces``: the engine's chance helper for scripted tests.

    ``faces``: for a commit of ``n`` exactly ``n`` faces; for a reroll one face per marked die
    (they join the kept dice); ``None`` for marks and stop (or to roll at random). Raises
    :class:`IllegalAction` when the action is not legal or the faces do not fit.
    """
    act = decode(action) if isinstance(action, str) else action
    seat = state.current
    if seat is None:
        raise IllegalAction("the game is over")
    if not _is_legal(state, seat, act):
        raise IllegalAction(f"seat {seat}: that action is not legal now")
    kind = type(act)
    if faces is not None and kind is not Commit and kind is not Reroll:
        raise IllegalAction("only commits and rerolls roll dice")
    if kind is Mark or kind is Unmark:
        return GangOfDice.apply(GangOfDice(), state, {seat: act})
    events: list[Event] = []
    if kind is Commit:
        n = act.dice  # type: ignore[union-attr]
        new = _commit(state, seat, n, roll_faces(state, n) if faces is None else _forced(faces, n), events)
    elif kind is Reroll:
        n = sum(state.marks)
        new = _reroll(state, seat, roll_faces(state, n) if faces is None else _forced(faces, n), events)
    else:
        new = _stop(state, seat, events)
    return step_of(new, tuple(events))


def scripted_setup(players: int, *, cards: Iterable[str] = (), first: int = 0,
                   stocks: Iterable[int] | None = None, seed: int = 0,
                   rules: int = GangOfDice.rules_version) -> GangOfDiceState:
    """A new game with a scripted card order (``cards`` first, then the other ids in data
    order), first player ``first``, optionally given stocks, and rules version ``rules`` (1 =
    a table set up before the G4 fix). For tests and puzzles.

    Raises ``ValueError`` on a bad seat count, an unknown or repeated card id, a bad seat, bad
    stocks or an unknown rules version.
    """
    state = GangOfDice().setup(seed, players)
    head = list(cards)
    if any(c not in CARDS for c in head) or len(set(head)) != len(head):
        raise ValueError("unknown or repeated card id")
    if not 0 <= first < players:
        raise ValueError("bad first seat")
    if not 1 <= rules <= GangOfDice.rules_version:
        raise ValueError(f"unknown rules version {rules}")
    deck = tuple(head + [c for c in CARDS if c not in head])
    state = replace(state, deck=deck, first=first, order=_live_from(first, players, state.status), rules=rules)
    if stocks is not None:
        st = tuple(stocks)
        if len(st) != players or min(st) < 1:
            raise ValueError("one positive stock per seat")
        state = replace(state, stocks=st)
    return state
