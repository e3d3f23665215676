"""Typed views of Gang of Dice: what the public, or one seat, may see.

:func:`view_of` builds them; ``GangOfDice.view_json`` (``core.to_json``) gives the JSON form,
whose keys and nesting are those of the views stored by earlier versions: the public view has
no ``me`` key, a seat's view (:class:`GangOfDiceSeatView`) adds it. ``GangOfDice.view_from_json``
rebuilds the typed view from that form (the class by its keys), as the picture workers do.

Stocks are private (RULINGS G1): before the end the public view shows no stock (a patient
observer could recount them from the public log); at the end ``stocks`` and ``ranks`` are public.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.core import Outcome, View, ranks_from_scores
from engine.gang_of_dice.cards import Card
from engine.gang_of_dice.state import (
    MAX_ROLLS,
    ROUNDS,
    GangOfDiceState,
    Phase,
    Status,
    best_seat,
    score_of,
)

__all__ = ["BestScore", "GangOfDiceSeatView", "GangOfDiceView", "OwnStock", "SeatInfo", "outcome_of", "view_of"]


@dataclass(frozen=True, slots=True, kw_only=True)
class BestScore:
    """The round's best stopped roll so far (G5 tie-breaks): its seat, score and dice committed."""

    seat: int
    score: int
    committed: int


@dataclass(frozen=True, slots=True, kw_only=True)
class SeatInfo:
    """One seat's public line: status, dice committed this round, current roll (sorted faces),
    rolls made (0–3) and the roll's score."""

    seat: int
    status: Status
    committed: int
    faces: tuple[int, ...]
    rolls: int
    score: int


@dataclass(frozen=True, slots=True, kw_only=True)
class OwnStock:
    """What only the viewing seat sees: its stock."""

    seat: int
    stock: int


@dataclass(frozen=True, slots=True, kw_only=True)
class GangOfDiceView(View):
    """The public view.

    Attributes:
        round / rounds: this round (1–12) and the number of rounds.
        players: seat count.
        card: this round's warning card; past_cards: ids of the cards of earlier rounds.
        phase: ``commit`` / ``roll`` / ``over``; current: the acting seat (``None`` when over).
        order: live seats of this round in playing order.
        table / carried / bonus / removed: dice on the table, carried over, bonus dice of this
            round, dice that left the game.
        marks: dice of the acting seat marked for reroll, per face.
        rolls_left: rolls the acting seat may still make.
        best: the best stopped roll of the round, or ``None``.
        seats: one :class:`SeatInfo` per seat, by seat.
        stocks / ranks: final stocks and competition ranks, ``None`` until the game is over.
    """

    round: int
    rounds: int
    players: int
    card: Card
    past_cards: tuple[str, ...]
    phase: Phase
    current: int | None
    order: tuple[int, ...]
    table: int
    carried: int
    bonus: int
    removed: int
    marks: tuple[int, ...]
    rolls_left: int
    best: BestScore | None
    seats: tuple[SeatInfo, ...]
    stocks: tuple[int, ...] | None
    ranks: tuple[int, ...] | None


@dataclass(frozen=True, slots=True, kw_only=True)
class GangOfDiceSeatView(GangOfDiceView):
    """A seat's view: the public view plus ``me`` (its own stock)."""

    me: OwnStock


def outcome_of(stocks: tuple[int, ...]) -> Outcome:
    """Ranks by stock, most dice first, ties share the place (G7); scores = the stocks."""
    return Outcome(ranks=ranks_from_scores([(x,) for x in stocks]), scores=stocks)


def view_of(state: GangOfDiceState, seat: int | None) -> GangOfDiceView:
    """The view of ``seat`` (``None`` = public): a :class:`GangOfDiceSeatView` for a seat."""
    over = state.phase == "over"
    cur = state.current
    best = best_seat(state)
    fields: dict[str, Any] = {
        "round": state.round,
        "rounds": ROUNDS,
        "players": state.players,
        "card": state.card,
        "past_cards": state.deck[: state.round - 1],
        "phase": state.phase,
        "current": cur,
        "order": state.order,
        "table": state.table,
        "carried": state.carried,
        "bonus": state.bonus,
        "removed": state.removed,
        "marks": state.marks,
        "rolls_left": 0 if cur is None else MAX_ROLLS - state.rolls[cur],
        "best": None if best is None else BestScore(
            seat=best, score=score_of(state.faces[best]), committed=state.committed[best]),
        "seats": tuple(
            SeatInfo(seat=s, status=state.status[s], committed=state.committed[s], faces=state.faces[s],
                     rolls=state.rolls[s], score=score_of(state.faces[s]))
            for s in range(state.players)
        ),
        "stocks": state.stocks if over else None,
        "ranks": outcome_of(state.stocks).ranks if over else None,
    }
    if seat is None:
        return GangOfDiceView(**fields)
    return GangOfDiceSeatView(**fields, me=OwnStock(seat=seat, stock=state.stocks[seat]))
