"""The baseline High Card AI: play the highest card; redraw a revealed card below
:data:`~tests.fifth_game.high_card.state.REDRAW_BELOW` while the deck has cards."""

from __future__ import annotations

from tests.fifth_game.high_card.actions import KEEP, REDRAW, HighCardAction, Play
from tests.fifth_game.high_card.state import REDRAW_BELOW, HighCardState

__all__ = ["choose"]


def choose(state: HighCardState, seat: int) -> HighCardAction:
    """The AI's action for ``seat``, which must be to act (deterministic, always legal)."""
    if state.phase == "play":
        return Play(max(state.hands[seat]))
    return REDRAW if state.deck and state.shown[seat] < REDRAW_BELOW else KEEP
