"""Gang of Dice (Reiner Knizia, Mandoo Games), 2–4 players.

Rules: ``shared/rules/gang-of-dice-fr.txt`` as decided by rulings G1–G7 of
``shared/rules/RULINGS.md``.

Game flow
---------
Twelve rounds. Each round one warning card (data: ``engine/data/gang_of_dice_cards.json``) is
shown; then the live players act one after another: commit ``n`` dice of their private stock
(action ``c{n}``), which are rolled at once, then reroll any subset up to two more times and stop.
The best score among the players who did not trigger the card takes every die on the table.

Faces are ``0`` (the boss) and ``1``–``5``. Dice are interchangeable, so a roll is kept as a
sorted tuple of faces.

Action codes (the action *is* its code, a ``str``)
---------------------------------------------------
- ``c{n}``: commit ``n`` dice (``1 <= n <= stock``) and roll them (commit phase).
- ``m{f}``: mark one more die showing face ``f`` (0–5) for the next reroll (roll phase).
- ``u{f}``: unmark one marked die showing face ``f``.
- ``r``: reroll the marked dice (needs at least one marked die; a roll is always left in the
  roll phase because the third roll ends the turn by itself).
- ``s``: stop: the current roll is final (marks are ignored).

Marks let a player reroll "any subset" without listing 2^n subsets; they are public.

Interpretations where the texts are silent (G1–G7 decide the rest)
------------------------------------------------------------------
- The round cards: the 16 cards are shuffled at set-up and round ``r`` shows ``deck[r-1]``
  (the same as drawing at random without replacement). The undrawn part is hidden.
- The first player of round 1 is drawn at set-up; round ``r`` nominally starts with seat
  ``(first + r - 1) % players``; if that seat is eliminated, the next live seat clockwise
  (``seat + 1``) starts. Players then act in clockwise order, skipping eliminated seats.
- A player may stop after any roll, the first included. The third roll is always final. A
  player may stop on a roll that triggers a black card: that roll is final and loses.
- Yellow cards are checked after each roll (first roll included); a trigger ends the turn at
  once. Black cards are checked once, on the final roll.
- A score of 0 (only bosses) is a valid score and can win the round.
- Winner: highest score among non-triggered players; ties -> more dice committed this round,
  then the earlier roller of the round (G5). The winner takes this round's committed dice, the
  dice carried over from earlier rounds and the bonus dice.
- If every player triggers, the table stays for the next round; after round 12 it leaves the
  game (``removed``) (G6). Bonus dice (3/6/9 in rounds 10/11/12) come from outside the stocks
  and are put on the table when the round starts, before anyone commits.
- Elimination is decided after the round is resolved: a player who commits their last die stays
  in the round and is out only if they did not win it (G7). The game ends after round 12, or as
  soon as fewer than two players have dice (if nobody has dice left, everybody ties at 0).
- Stocks are private (G1): the public view never shows another seat's stock before the end,
  even though a patient observer could recount them from the public log. At the end the final
  stocks are public; the outcome ranks by stock (competition ranking, ties share the place).

Events (public unless noted; seats are ints)
-------------------------------------------
``god.round`` {round, card} · ``god.bonus`` {round, dice} · ``god.commit`` {seat, dice} ·
``god.stock`` {seat, stock} (audience: that seat only) · ``god.roll`` {seat, roll (1–3),
dice (rolled now), faces (the whole roll, sorted)} · ``god.trigger`` {seat, card, faces} ·
``god.stop`` {seat, score, faces} · ``god.win`` {winner, score, dice} · ``god.carry`` {dice} ·
``god.removed`` {dice} · ``god.eliminated`` {seat} · ``god.end`` {winners (list), stocks (list)}.
Marks (``m``/``u``) produce no event.

AI
--
:meth:`GangOfDice.ai_action` (also the timeout action) only reads what its seat may see. It
commits a per-card number of dice (few for harsh yellow cards, more for black cards it can
reroll toward safety), adapted to the best score already stopped, at most a third of its stock
before round 12. After a roll it compares stopping with a few candidate rerolls by an exact
one-step lookahead (see :func:`_ai_plan`) and emits one micro-action at a time: marks, then ``r``.

Chance
------
Every roll goes through :func:`roll_faces` (``rng_for(state, "roll")``). Tests script rolls
with :func:`apply_with_faces` and the card order / first player / stocks with
:func:`scripted_setup`.
"""

from __future__ import annotations

import json
import math
import random
import re
from functools import lru_cache
from itertools import combinations_with_replacement
from pathlib import Path
from typing import Annotated, Any, Iterable, Literal, Mapping, Union

from pydantic import BaseModel, ConfigDict, Field, model_validator

from engine.core import (
    Event,
    Game,
    GameOptions,
    IllegalAction,
    Outcome,
    PydanticState as State,
    Step,
    ranks_from_scores,
    rng_for,
)

__all__ = [
    "BOSS",
    "BONUS_DICE",
    "CARDS",
    "FACES",
    "ROUNDS",
    "Card",
    "GangOfDice",
    "GangOfDiceState",
    "apply_with_faces",
    "card_triggers",
    "roll_faces",
    "score_of",
    "scripted_setup",
    "starting_stock",
]

#: Number of rounds of a game.
ROUNDS = 12
#: The boss face (worth 0, not a value: G2).
BOSS = 0
#: Every face of a die, boss first.
FACES: tuple[int, ...] = (0, 1, 2, 3, 4, 5)
#: Bonus dice put on the table at the start of these rounds (G6).
BONUS_DICE: dict[int, int] = {10: 3, 11: 6, 12: 9}
#: Rolls a player may make per round (G3: up to three whatever the colour).
MAX_ROLLS = 3


def starting_stock(players: int) -> int:
    """Dice per player at set-up: 48 for 2–3 players, 36 for 4 (G1)."""
    return 48 if players <= 3 else 36


# --- warning cards (data) ----------------------------------------------------------------------


def _counts(faces: Iterable[int]) -> tuple[int, ...]:
    """Faces -> count per face ``(bosses, ones, …, fives)``."""
    c = [0] * 6
    for f in faces:
        c[f] += 1
    return tuple(c)


class _Rule(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    def hit(self, c: tuple[int, ...]) -> bool:  # pragma: no cover - abstract
        """True when a roll with face counts ``c`` (index = face) triggers the card."""
        raise NotImplementedError


class SumAtLeast(_Rule):
    """The total of the faces (boss = 0) is at least ``n``."""

    kind: Literal["sum_at_least"]
    n: int = Field(ge=1)

    def hit(self, c: tuple[int, ...]) -> bool:
        return sum(f * k for f, k in enumerate(c)) >= self.n


class Run(_Rule):
    """``length`` consecutive values (1–5) are all shown; bosses never take part (G2)."""

    kind: Literal["run"]
    length: int = Field(ge=2, le=5)

    def hit(self, c: tuple[int, ...]) -> bool:
        return any(all(c[v + i] for i in range(self.length)) for v in range(1, 7 - self.length))


class OddCount(_Rule):
    """At least ``n`` dice show an odd value (1, 3, 5); the boss is neither odd nor even."""

    kind: Literal["odd_count"]
    n: int = Field(ge=1)

    def hit(self, c: tuple[int, ...]) -> bool:
        return c[1] + c[3] + c[5] >= self.n


class DistinctAtLeast(_Rule):
    """At least ``n`` distinct values among 1–5 are shown (the boss is not a value)."""

    kind: Literal["distinct_at_least"]
    n: int = Field(ge=2, le=5)

    def hit(self, c: tuple[int, ...]) -> bool:
        return sum(1 for v in range(1, 6) if c[v]) >= self.n


class SameValue(_Rule):
    """At least ``n`` dice show the same value 1–5 (two bosses are not a pair)."""

    kind: Literal["same_value"]
    n: int = Field(ge=2)

    def hit(self, c: tuple[int, ...]) -> bool:
        return any(c[v] >= self.n for v in range(1, 6))


class CountFace(_Rule):
    """At least ``n`` dice show ``face`` (1–5)."""

    kind: Literal["count_face"]
    face: int = Field(ge=1, le=5)
    n: int = Field(ge=1)

    def hit(self, c: tuple[int, ...]) -> bool:
        return c[self.face] >= self.n


class AnyFace(_Rule):
    """At least one die shows one of ``faces`` (values 1–5)."""

    kind: Literal["any_face"]
    faces: tuple[Annotated[int, Field(ge=1, le=5)], ...] = Field(min_length=1)

    def hit(self, c: tuple[int, ...]) -> bool:
        return any(c[f] for f in self.faces)


RuleSpec = Annotated[
    Union[SumAtLeast, Run, OddCount, DistinctAtLeast, SameValue, CountFace, AnyFace],
    Field(discriminator="kind"),
]


class Card(BaseModel):
    """A warning card: ``id``, ``colour`` (yellow: checked after every roll; black: final roll
    only, G3) and a typed ``rule`` interpreted by :meth:`triggers`."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str = Field(pattern=r"^[a-z0-9_]{1,24}$")
    colour: Literal["yellow", "black"]
    rule: RuleSpec

    def triggers(self, faces: Iterable[int]) -> bool:
        """True when a roll showing ``faces`` (0 = boss, 1–5) triggers this card."""
        return self.rule.hit(_counts(faces))


class CardSet(BaseModel):
    """The data file: 16 warning cards with distinct ids."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    cards: tuple[Card, ...]

    @model_validator(mode="after")
    def _check(self) -> "CardSet":
        ids = [c.id for c in self.cards]
        if len(set(ids)) != len(ids):
            raise ValueError("duplicate card ids")
        if len(ids) < ROUNDS:
            raise ValueError(f"need at least {ROUNDS} cards")
        return self


def _load_cards() -> dict[str, Card]:
    path = Path(__file__).parent / "data" / "gang_of_dice_cards.json"
    data = CardSet.model_validate(json.loads(path.read_text(encoding="utf-8")))
    return {c.id: c for c in data.cards}


#: Warning cards by id, in data-file order.
CARDS: dict[str, Card] = _load_cards()


def card_triggers(card_id: str, faces: Iterable[int]) -> bool:
    """True when ``faces`` trigger card ``card_id``. Raises ``KeyError`` on an unknown id."""
    return CARDS[card_id].triggers(faces)


def score_of(faces: Iterable[int]) -> int:
    """Score of a roll: the sum of its faces, the boss worth 0 (G5)."""
    return sum(faces)


# --- state ---------------------------------------------------------------------------------------

Status = Literal["waiting", "rolling", "stopped", "triggered", "out"]
Phase = Literal["commit", "roll", "over"]


class GangOfDiceState(State):
    """A Gang of Dice game.

    Attributes (per-seat tuples are indexed by seat):
        deck: the 16 card ids in draw order; round ``r`` shows ``deck[r-1]`` (the rest is hidden).
        round: 1..12.
        first: the first seat of round 1.
        order: the seats acting this round, in order (live seats only).
        turn: index in ``order`` of the seat to act.
        phase: ``commit`` (choose n), ``roll`` (marks / reroll / stop) or ``over``.
        stocks: dice behind each screen (private, G1).
        committed: dice committed this round.
        faces: the current roll of each seat this round (sorted).
        rolls: rolls made this round (0–3).
        status: ``waiting`` / ``rolling`` / ``stopped`` / ``triggered`` / ``out`` (eliminated).
        marks: dice of the acting seat marked for reroll, per face (index = face).
        table: every die on the table now (carried over + bonus + this round's commits); 0 once
            a round's winner took them or they left the game.
        carried: dice carried over to this round because everybody triggered the round before.
        bonus: bonus dice put on the table this round.
        bonus_total: every bonus die put in so far.
        removed: dice that left the game (all triggered in round 12).
    """

    deck: tuple[str, ...]
    round: int = 1
    first: int
    order: tuple[int, ...]
    turn: int = 0
    phase: Phase = "commit"
    stocks: tuple[int, ...]
    committed: tuple[int, ...]
    faces: tuple[tuple[int, ...], ...]
    rolls: tuple[int, ...]
    status: tuple[Status, ...]
    marks: tuple[int, ...] = (0, 0, 0, 0, 0, 0)
    table: int = 0
    carried: int = 0
    bonus: int = 0
    bonus_total: int = 0
    removed: int = 0

    @property
    def card(self) -> Card:
        """This round's warning card."""
        return CARDS[self.deck[self.round - 1]]

    @property
    def current(self) -> int | None:
        """The seat to act, or ``None`` when the game is over."""
        return None if self.phase == "over" else self.order[self.turn]


# --- pure helpers -------------------------------------------------------------------------------


def roll_faces(state: GangOfDiceState, n: int) -> tuple[int, ...]:
    """``n`` random faces (0 = boss, 1–5) drawn from ``rng_for(state, "roll")``."""
    rng = rng_for(state, "roll")
    return tuple(rng.randrange(6) for _ in range(n))


def _order_for(first: int, round_no: int, players: int, status: tuple[str, ...]) -> tuple[int, ...]:
    """Live seats of round ``round_no`` in playing order (G4)."""
    start = (first + round_no - 1) % players
    return tuple(s for s in ((start + i) % players for i in range(players)) if status[s] != "out")


def _fresh_round(state: GangOfDiceState, round_no: int, status: tuple[str, ...],
                 events: list[Event]) -> dict[str, Any]:
    """Field updates that start round ``round_no`` (order, bonus dice, reset rolls)."""
    n = state.players
    status = tuple("out" if s == "out" else "waiting" for s in status)
    bonus = BONUS_DICE.get(round_no, 0)
    events.append(Event("god.round", {"round": round_no, "card": state.deck[round_no - 1]}))
    if bonus:
        events.append(Event("god.bonus", {"round": round_no, "dice": bonus}))
    return {
        "round": round_no,
        "order": _order_for(state.first, round_no, n, status),
        "turn": 0,
        "phase": "commit",
        "committed": (0,) * n,
        "faces": ((),) * n,
        "rolls": (0,) * n,
        "status": status,
        "marks": (0,) * 6,
        "table": state.table + bonus,
        "carried": state.table,
        "bonus": bonus,
        "bonus_total": state.bonus_total + bonus,
    }


def scripted_setup(players: int, *, cards: Iterable[str] = (), first: int = 0,
                   stocks: Iterable[int] | None = None, seed: int = 0) -> GangOfDiceState:
    """A new game with a scripted card order (``cards`` first, then the other ids in data
    order), first player ``first`` and optionally given stocks. For tests and puzzles.

    Raises ``ValueError`` on a bad seat count, an unknown or repeated card id or a bad seat.
    """
    state = GangOfDice().setup(seed, players)
    head = list(cards)
    if any(c not in CARDS for c in head) or len(set(head)) != len(head):
        raise ValueError("unknown or repeated card id")
    if not 0 <= first < players:
        raise ValueError("bad first seat")
    deck = tuple(head + [c for c in CARDS if c not in head])
    upd: dict[str, Any] = {"deck": deck, "first": first,
                           "order": _order_for(first, 1, players, state.status)}
    if stocks is not None:
        st = tuple(stocks)
        if len(st) != players or min(st) < 1:
            raise ValueError("one positive stock per seat")
        upd["stocks"] = st
    return state.model_copy(update=upd)


_CODE = re.compile(r"^(?:c[1-9][0-9]{0,3}|[mu][0-5]|r|s)$")


def _step(state: GangOfDiceState, seat: int, action: str,
          forced: Iterable[int] | None) -> Step:
    """Apply a legal ``action`` of ``seat``; ``forced`` = faces of the roll it makes (``c``/``r``
    only; ``None`` = roll with :func:`roll_faces`). Raises :class:`IllegalAction` on bad faces."""
    upd: dict[str, Any] = {"version": state.version + 1}
    kind = action[0]
    if kind not in "cr" and forced is not None:
        raise IllegalAction("only commits and rerolls roll dice")
    if kind in "mu":
        face = int(action[1])
        upd["marks"] = _set(state.marks, face, state.marks[face] + (1 if kind == "m" else -1))
        return Step(state.model_copy(update=upd))
    if kind == "s":
        faces = state.faces[seat]
        return _end_turn(state, seat, upd, [], faces, triggered=state.card.triggers(faces))
    events: list[Event] = []
    if kind == "c":
        n = int(action[1:])
        stock = state.stocks[seat] - n
        upd.update(stocks=_set(state.stocks, seat, stock), committed=_set(state.committed, seat, n),
                   table=state.table + n)
        events.append(Event("god.commit", {"seat": seat, "dice": n}))
        events.append(Event("god.stock", {"seat": seat, "stock": stock}, frozenset({seat})))
        kept: tuple[int, ...] = ()
    else:  # "r": the marked dice leave the roll and are rolled again
        n = sum(state.marks)
        kept_counts = [c - m for c, m in zip(_counts(state.faces[seat]), state.marks)]
        kept = tuple(f for f in FACES for _ in range(kept_counts[f]))
    new = roll_faces(state, n) if forced is None else tuple(forced)
    if len(new) != n or any(f not in FACES for f in new):
        raise IllegalAction(f"forced faces must be {n} faces in 0..5")
    faces = tuple(sorted(kept + new))
    roll_no = state.rolls[seat] + 1
    events.append(Event("god.roll", {"seat": seat, "roll": roll_no, "dice": n, "faces": list(faces)}))
    upd.update(faces=_set(state.faces, seat, faces), rolls=_set(state.rolls, seat, roll_no), marks=(0,) * 6)
    card = state.card
    if card.colour == "yellow" and card.triggers(faces):  # G3: yellow, after every roll
        return _end_turn(state, seat, upd, events, faces, triggered=True)
    if roll_no >= MAX_ROLLS:  # the third roll is final
        return _end_turn(state, seat, upd, events, faces, triggered=card.triggers(faces))
    upd.update(phase="roll", status=_set(state.status, seat, "rolling"))
    return Step(state.model_copy(update=upd), tuple(events))


def _set(t: tuple, i: int, v: Any) -> tuple:
    return t[:i] + (v,) + t[i + 1:]


def _end_turn(state: GangOfDiceState, seat: int, upd: dict[str, Any], events: list[Event],
              faces: tuple[int, ...], triggered: bool) -> Step:
    """Finish ``seat``'s turn (stopped or triggered), then the next turn or the round's end."""
    upd["status"] = _set(state.status, seat, "triggered" if triggered else "stopped")
    upd["marks"] = (0,) * 6
    if triggered:
        events.append(Event("god.trigger", {"seat": seat, "card": state.deck[state.round - 1],
                                            "faces": list(faces)}))
    else:
        events.append(Event("god.stop", {"seat": seat, "score": score_of(faces),
                                         "faces": list(faces)}))
    mid = state.model_copy(update=upd)
    if mid.turn + 1 < len(mid.order):
        return Step(mid.model_copy(update={"turn": mid.turn + 1, "phase": "commit"}), tuple(events))
    return Step(_resolve_round(mid, events), tuple(events))


def _resolve_round(state: GangOfDiceState, events: list[Event]) -> GangOfDiceState:
    """Pay the round's winner (G5) or carry / remove the table (G6), eliminate (G7), go on."""
    stocks = list(state.stocks)
    status = list(state.status)
    pot = state.table
    table = 0
    removed = state.removed
    stopped = [s for s in state.order if status[s] == "stopped"]
    if stopped:
        rank = {s: i for i, s in enumerate(state.order)}
        winner = max(stopped, key=lambda s: (score_of(state.faces[s]), state.committed[s], -rank[s]))
        stocks[winner] += pot
        events.append(Event("god.win", {"winner": winner, "score": score_of(state.faces[winner]),
                                        "dice": pot}))
        events.append(Event("god.stock", {"seat": winner, "stock": stocks[winner]},
                            frozenset({winner})))
    elif state.round < ROUNDS:
        table = pot
        events.append(Event("god.carry", {"dice": pot}))
    else:
        removed += pot
        events.append(Event("god.removed", {"dice": pot}))
    for s in state.order:
        if stocks[s] == 0:
            status[s] = "out"
            events.append(Event("god.eliminated", {"seat": s}))
    live = [s for s in range(state.players) if status[s] != "out"]
    base = state.model_copy(update={"stocks": tuple(stocks), "removed": removed, "table": table})
    if state.round >= ROUNDS or len(live) < 2:
        out = _outcome_of(stocks)
        events.append(Event("god.end", {"winners": list(out.winners), "stocks": list(stocks)}))
        return base.model_copy(update={"phase": "over", "status": tuple(status),
                                       "marks": (0,) * 6})
    return base.model_copy(update=_fresh_round(base, state.round + 1, tuple(status), events))


def _outcome_of(stocks: Iterable[int]) -> Outcome:
    st = tuple(stocks)
    return Outcome(ranks=ranks_from_scores([(x,) for x in st]), scores=st)


def apply_with_faces(state: GangOfDiceState, action: str, faces: Iterable[int] | None = None) -> Step:
    """Apply the acting seat's ``action`` with the roll it makes forced to ``faces``.

    ``faces``: for ``c{n}`` exactly ``n`` faces; for ``r`` one face per marked die (they join
    the kept dice); ``None`` for marks and ``s`` (or to roll at random). Raises
    :class:`IllegalAction` when the action is not legal or the faces do not fit.
    """
    game = GangOfDice()
    seat = state.current
    if seat is None:
        raise IllegalAction("the game is over")
    if action not in game.legal_actions(state, seat):
        raise IllegalAction(f"seat {seat}: that action is not legal now")
    return _step(state, seat, action, faces)


# --- the game -----------------------------------------------------------------------------------


class GangOfDice(Game[GangOfDiceState, str, dict]):
    """Gang of Dice for 2–4 players (rulings G1–G7). Actions are their codes (see module doc)."""

    key = "gang-of-dice"
    min_players = 2
    max_players = 4
    state_model = GangOfDiceState
    options_model = GameOptions

    def setup(self, seed: int, players: int, options: GameOptions | Mapping[str, Any] | None = None
              ) -> GangOfDiceState:
        """New game: shuffled deck, random first player, 48/36 dice each (G1, G3, G4).

        Raises ``ValueError`` unless ``2 <= players <= 4``.
        """
        if not self.min_players <= players <= self.max_players:
            raise ValueError(f"Gang of Dice needs 2 to 4 players, not {players}")
        self.parse_options(options)
        rng = random.Random(f"gang-of-dice:{seed}:setup")
        deck = list(CARDS)
        rng.shuffle(deck)
        first = rng.randrange(players)
        status = ("waiting",) * players
        return GangOfDiceState(
            seed=seed, players=players, deck=tuple(deck), first=first,
            order=_order_for(first, 1, players, status), stocks=(starting_stock(players),) * players,
            committed=(0,) * players, faces=((),) * players, rolls=(0,) * players, status=status,
        )

    def to_act(self, state: GangOfDiceState) -> frozenset[int]:
        """The single seat whose turn it is; empty when the game is over."""
        return frozenset() if state.current is None else frozenset({state.current})

    def legal_actions(self, state: GangOfDiceState, seat: int) -> tuple[str, ...]:
        """``c1..c{stock}`` in the commit phase; marks, unmarks, ``r`` and ``s`` after a roll."""
        if seat != state.current:
            return ()
        if state.phase == "commit":
            return tuple(f"c{n}" for n in range(1, state.stocks[seat] + 1))
        counts = _counts(state.faces[seat])
        out = [f"m{f}" for f in FACES if state.marks[f] < counts[f]]
        out += [f"u{f}" for f in FACES if state.marks[f] > 0]
        if sum(state.marks) > 0 and state.rolls[seat] < MAX_ROLLS:
            out.append("r")
        out.append("s")
        return tuple(out)

    def apply(self, state: GangOfDiceState, actions: Mapping[int, str]) -> Step:
        """Apply the acting seat's action; rolls come from :func:`roll_faces`.

        Raises :class:`IllegalAction` unless ``actions`` is exactly ``{current seat: legal code}``.
        """
        self.check_actions(state, actions)
        (seat, action), = actions.items()
        return _step(state, seat, action, None)

    def view(self, state: GangOfDiceState, seat: int | None) -> dict[str, Any]:
        """JSON view. Keys: ``round``, ``rounds``, ``players``, ``card`` {id, colour, rule}, ``past_cards``,
        ``phase``, ``current``, ``order``, ``table``, ``carried``, ``bonus``, ``removed``,
        ``marks``, ``rolls_left``, ``best`` ({seat, score, committed} or None), ``seats`` (per
        seat: seat, status, committed, faces, rolls, score), ``stocks`` and ``ranks`` (None
        until the game is over). A seat's view adds ``me`` {seat, stock}.
        """
        over = state.phase == "over"
        cur = state.current
        best = _best(state)
        view: dict[str, Any] = {
            "round": state.round,
            "rounds": ROUNDS,
            "players": state.players,
            "card": {"id": state.card.id, "colour": state.card.colour,
                     "rule": state.card.rule.model_dump(mode="json")},
            "past_cards": list(state.deck[: state.round - 1]),
            "phase": state.phase,
            "current": cur,
            "order": list(state.order),
            "table": state.table,
            "carried": state.carried,
            "bonus": state.bonus,
            "removed": state.removed,
            "marks": list(state.marks),
            "rolls_left": 0 if cur is None else MAX_ROLLS - state.rolls[cur],
            "best": None if best is None else {"seat": best, "score": score_of(state.faces[best]),
                                               "committed": state.committed[best]},
            "seats": [
                {"seat": s, "status": state.status[s], "committed": state.committed[s],
                 "faces": list(state.faces[s]), "rolls": state.rolls[s],
                 "score": score_of(state.faces[s])}
                for s in range(state.players)
            ],
            "stocks": list(state.stocks) if over else None,
            "ranks": list(_outcome_of(state.stocks).ranks) if over else None,
        }
        if seat is not None:
            view["me"] = {"seat": seat, "stock": state.stocks[seat]}
        return view

    def outcome(self, state: GangOfDiceState) -> Outcome | None:
        """Ranks by final stock (most dice first, ties share: G7); scores = final stocks."""
        return _outcome_of(state.stocks) if state.phase == "over" else None

    def progress(self, state: GangOfDiceState) -> int:
        """Rounds played so far (for ``simulate`` summaries)."""
        return state.round if state.phase == "over" else state.round - 1

    def stats(self, state: GangOfDiceState) -> dict[str, float]:
        """Counters of a finished game: eliminated players and dice that left the game."""
        return {"eliminated": sum(1 for s in state.status if s == "out"), "dice_removed": state.removed}

    def hidden_variant(self, state: GangOfDiceState, seat: int | None, salt: int) -> GangOfDiceState:
        """Other seats' stocks (before the end) and the undrawn cards re-dealt from ``salt``."""
        base = super().hidden_variant(state, seat, salt)
        rest = list(state.deck[state.round:])
        random.Random(f"variant:{salt}").shuffle(rest)
        upd: dict[str, Any] = {"deck": state.deck[: state.round] + tuple(rest)}
        if state.phase != "over":
            upd["stocks"] = tuple(
                st if s == seat or state.status[s] == "out" else st + salt % 3 + 1
                for s, st in enumerate(state.stocks)
            )
        return base.model_copy(update=upd)

    def ai_action(self, state: GangOfDiceState, seat: int) -> str:
        """The baseline AI (see :func:`_ai_commit` and :func:`_ai_plan`); one micro-action."""
        if seat != state.current:
            raise IllegalAction(f"seat {seat} is not to act")
        if state.phase == "commit":
            return f"c{_ai_commit(state, seat)}"
        plan = _ai_plan(state.card.id, _counts(state.faces[seat]),
                        MAX_ROLLS - state.rolls[seat], *_ai_context(state, seat))
        if plan is None:
            return "s"
        for f in FACES:
            if state.marks[f] > plan[f]:
                return f"u{f}"
        for f in FACES:
            if state.marks[f] < plan[f]:
                return f"m{f}"
        return "r"

    def encode(self, action: str) -> str:
        """Actions are their codes; raises :class:`IllegalAction` on a malformed one."""
        return self.decode(action)

    def decode(self, code: str) -> str:
        """Validate a code (``c{n}``, ``m{f}``, ``u{f}``, ``r``, ``s``); raises :class:`IllegalAction`."""
        if not isinstance(code, str) or not _CODE.match(code):
            raise IllegalAction("malformed action code")
        return code


def _best(state: GangOfDiceState) -> int | None:
    """The seat currently winning the round among stopped players (G5 tie-breaks), or None."""
    stopped = [s for s in state.order if state.status[s] == "stopped"]
    if not stopped:
        return None
    rank = {s: i for i, s in enumerate(state.order)}
    return max(stopped, key=lambda s: (score_of(state.faces[s]), state.committed[s], -rank[s]))


# --- the AI ---------------------------------------------------------------------------------------
#
# The AI only uses what its seat can see: the card, the table, the public rolls and its own stock.
# Roll phase: a one-step lookahead. For a few candidate rerolls (the dice that make the roll
# trigger, low dice, the highest dice for sum cards…) it computes exactly (up to 5 rerolled dice;
# a fixed sample beyond) the chance that the reroll triggers and the value of the result, and
# compares with stopping now. Values: 0 when the score cannot win the round against the best
# score already stopped; otherwise the chance that the players still to roll do not beat it,
# modelled per card by a typical score.

#: Per card: the typical safe score of a good turn (scale of the "a later player beats me"
#: model) and the two dice counts the AI commits when it starts a round (it picks one of the two
#: at random, from public information only, so that it cannot be read too easily). Tuned by
#: best-response simulations of this AI against itself (3 players, first round).
_AI_TABLE: dict[str, tuple[float, tuple[int, int]]] = {
    "sum7": (4.0, (1, 2)),
    "sum10": (7.0, (2, 3)),
    "sum11": (8.5, (3, 5)),
    "sum13": (10.0, (4, 6)),
    "run2": (14.0, (6, 7)),
    "run3": (20.0, (8, 8)),
    "odd1": (3.0, (1, 1)),
    "odd2": (5.0, (1, 2)),
    "odd3": (17.0, (6, 7)),
    "diff2": (4.0, (1, 2)),
    "diff3": (12.0, (4, 5)),
    "pair": (6.5, (2, 3)),
    "five2": (17.0, (6, 7)),
    "one": (5.0, (1, 2)),
    "four_five": (2.0, (1, 1)),
    "three_four_five": (1.5, (1, 1)),
}
_AI_DEFAULT: tuple[float, tuple[int, int]] = (8.0, (2, 3))
_EXACT_LIMIT = 5
_SAMPLES = 160


@lru_cache(maxsize=None)
def _outcomes(r: int) -> tuple[tuple[tuple[int, ...], float], ...]:
    """Distribution of the face counts of ``r`` fresh dice: exact for small ``r``, else a
    fixed deterministic sample."""
    if r <= _EXACT_LIMIT:
        out = []
        for combo in combinations_with_replacement(FACES, r):
            c = _counts(combo)
            ways = math.factorial(r)
            for k in c:
                ways //= math.factorial(k)
            out.append((c, ways / 6**r))
        return tuple(out)
    rng = random.Random(f"gang-of-dice:ai-sample:{r}")
    freq: dict[tuple[int, ...], int] = {}
    for _ in range(_SAMPLES):
        c = _counts(rng.randrange(6) for _ in range(r))
        freq[c] = freq.get(c, 0) + 1
    return tuple((c, k / _SAMPLES) for c, k in sorted(freq.items()))


def _ai_context(state: GangOfDiceState, seat: int) -> tuple[int, int]:
    """``(need, later)``: the least score that beats the round's best so far, and the number of
    players still to roll after ``seat``."""
    best = _best(state)
    later = len(state.order) - 1 - state.order.index(seat)
    if best is None:
        return 0, later
    b = score_of(state.faces[best])
    return (b if state.committed[seat] > state.committed[best] else b + 1), later


def _utility(card_id: str, score: int, need: int, later: int) -> float:
    """Chance-like value of finishing safe with ``score``."""
    if score < need:
        return 0.0
    typical = _AI_TABLE.get(card_id, _AI_DEFAULT)[0]
    single = (score + 1) / (score + 1 + typical)
    return single**later if later else 1.0


def _leaf(card: Card, c: tuple[int, ...], rolls_left: int, need: int, later: int) -> float:
    """Value of holding counts ``c`` with ``rolls_left`` rolls still possible."""
    hit = card.rule.hit(c)
    if hit and (card.colour == "yellow" or rolls_left == 0):
        return 0.0
    u = _utility(card.id, sum(f * k for f, k in enumerate(c)), need, later)
    if hit:  # black, not final: a later reroll may still fix it
        return 0.4 * u
    return u


def _candidates(card: Card, c: tuple[int, ...]) -> set[tuple[int, ...]]:
    """Reroll candidates (marks per face) worth evaluating for counts ``c``."""
    cands: set[tuple[int, ...]] = set()

    def add(m: Iterable[int]) -> None:
        m = tuple(min(x, y) for x, y in zip(m, c))
        if sum(m):
            cands.add(m)

    for f in FACES:  # every die of one face
        add(tuple(c[g] if g == f else 0 for g in FACES))
    for t in range(0, 4):  # low dice
        add(tuple(c[g] if g <= t else 0 for g in FACES))
    dice = sorted((f for f in FACES for _ in range(c[f])), reverse=True)
    for j in (1, 2, 3):  # the highest / lowest dice
        add(_counts(dice[:j]))
        add(_counts(dice[-j:]))
    rule = card.rule
    if isinstance(rule, (Run, DistinctAtLeast)):
        # keep the best-scoring set of values that does not trigger, reroll the others
        best_keep, best_val = None, -1
        for mask in range(32):
            vals = [v for v in range(1, 6) if mask >> (v - 1) & 1]
            kept = tuple(c[f] if (f == 0 or f in vals) else 0 for f in FACES)
            if rule.hit(kept):
                continue
            val = sum(f * k for f, k in enumerate(kept))
            if val > best_val:
                best_keep, best_val = kept, val
        if best_keep is not None:
            add(tuple(x - y for x, y in zip(c, best_keep)))
            add(tuple(x - y if f > 0 else x for f, (x, y) in enumerate(zip(c, best_keep))))
    if isinstance(rule, (OddCount, SameValue, CountFace)):
        # keep at most (n - 1) of the offending dice, highest first
        limit = rule.n - 1
        kept = list(c)
        offenders = [5, 3, 1] if isinstance(rule, OddCount) else (
            [rule.face] if isinstance(rule, CountFace) else [5, 4, 3, 2, 1])
        if isinstance(rule, OddCount):
            left = limit
            for f in offenders:
                keep = min(kept[f], left)
                left -= keep
                kept[f] = keep
        else:
            for f in offenders:
                kept[f] = min(kept[f], limit)
        add(tuple(x - y for x, y in zip(c, kept)))
        add(tuple((x - y) + (c[0] if f == 0 else 0) for f, (x, y) in enumerate(zip(c, kept))))
    return cands


@lru_cache(maxsize=200_000)
def _ai_plan(card_id: str, c: tuple[int, ...], rolls_left: int, need: int, later: int
             ) -> tuple[int, ...] | None:
    """The AI's decision after a roll: marks per face to reroll, or ``None`` to stop.

    ``c``: face counts of the current roll; ``rolls_left``: rolls still allowed (1 or 2).
    """
    card = CARDS[card_id]
    stop_value = _leaf(card, c, 0, need, later)
    best, best_value = None, stop_value + 1e-9
    if rolls_left <= 0:
        return None
    for marks in sorted(_candidates(card, c)):
        kept = tuple(x - m for x, m in zip(c, marks))
        value = 0.0
        for out, p in _outcomes(sum(marks)):
            total = tuple(k + o for k, o in zip(kept, out))
            value += p * _leaf(card, total, rolls_left - 1, need, later)
        if value > best_value:
            best, best_value = marks, value
    return best


def _ai_commit(state: GangOfDiceState, seat: int) -> int:
    """How many dice the AI commits (at least 1).

    Its per-card favourite (one of two counts, picked by a generator seeded with public
    information only: round, seat and the cards shown so far); a single die when it rolls last
    and everybody before triggered (any safe roll wins); raised when an earlier player
    stopped with a score the AI can still reach with a few more dice, cut to 1 die when that
    score is out of reach; never more than a third of its stock before round 12.
    """
    stock = state.stocks[seat]
    typical, (low, high) = _AI_TABLE.get(state.card.id, _AI_DEFAULT)
    public = ".".join(state.deck[: state.round])
    n = random.Random(f"gang-of-dice:ai:{state.round}:{seat}:{public}").choice((low, high))
    need, later = _ai_context(state, seat)
    if need == 0 and later == 0 and _best(state) is None:
        n = 1  # everybody before triggered: any safe roll wins, so play it safe
    elif need > 0:
        per_die = max(1.0, typical / n)
        wanted = math.ceil(need / per_die)
        rule = state.card.rule
        out_of_reach = wanted > n + 3 or (isinstance(rule, SumAtLeast) and need >= rule.n)
        n = 1 if out_of_reach else max(n, wanted)
    cap = stock if state.round >= ROUNDS else max(1, stock // 3)
    return max(1, min(n, cap))
