"""Determinization of Gang of Dice: a full state a seat cannot tell apart from the real one
(``Game.hidden_variant``; ``docs/rules/gang-of-dice.md``, RULINGS G1, G5-G7).

The stocks behind the screens are private in the view, but every change to them is public: the
starting stocks (G1), every commit (``god.commit``), every pot won (``god.win``: the table's
dice, carried and bonus dice included). A seat with perfect memory therefore infers every other
stock exactly, and the determinization keeps the stocks as they are. The only hidden
information is the order of the warning cards not drawn yet (and every future roll, which the
new seed decides): those are re-dealt.
"""

from __future__ import annotations

import dataclasses

from engine.chance import rng_for, variant_seed
from engine.gang_of_dice.state import GangOfDiceState

__all__ = ["hidden_variant", "inferred_stocks"]


def inferred_stocks(state: GangOfDiceState, seat: int | None) -> tuple[int, ...]:
    """The stocks ``seat`` (``None`` = the public) can infer from the public log: the exact
    stocks (every change to a stock is public, G1/G5/G7)."""
    return state.stocks


def hidden_variant(state: GangOfDiceState, seat: int | None, salt: int) -> GangOfDiceState:
    """``state`` with the undrawn warning cards re-shuffled from ``salt`` (reproducible), the
    stocks kept exactly (:func:`inferred_stocks`) and a new seed for the future rolls
    (:func:`engine.chance.variant_seed`)."""
    rest = list(state.deck[state.round :])
    rng_for(state, f"variant:{seat}:{salt}").shuffle(rest)
    deck = state.deck[: state.round] + tuple(rest)
    seed = variant_seed(state.seed, salt)
    return dataclasses.replace(state, seed=seed, deck=deck, stocks=inferred_stocks(state, seat))
