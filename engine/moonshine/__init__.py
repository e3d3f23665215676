"""Moonshine (2-5 players): card set as data, rules engine, baseline AI.

Modules (each a few hundred lines at most):

- :mod:`~engine.moonshine.rules`: the :class:`Moonshine` Game (thin) and the rules docstring
  (every ruling and interpretation);
- :mod:`~engine.moonshine.state`: state dataclasses and token helpers;
- :mod:`~engine.moonshine.actions`: typed actions and their stable codes;
- :mod:`~engine.moonshine.legal`: who acts and the legal actions;
- :mod:`~engine.moonshine.phases` / :mod:`~engine.moonshine.followups`: what ``apply`` does;
  :mod:`~engine.moonshine.straight`: the commonest steps in straight-line code (the same states);
- :mod:`~engine.moonshine.dice`, :mod:`~engine.moonshine.scoring`: dice, resources, points;
- :mod:`~engine.moonshine.cards` (pydantic models of ``data/cards.json``) and
  :mod:`~engine.moonshine.icons` (the same compiled into plain dataclasses);
- :mod:`~engine.moonshine.view`: typed views; :mod:`~engine.moonshine.ai`: the baseline AI
  (imports no Game); :mod:`~engine.moonshine.sim`: AI-only games for ``docs/balance.md``.
"""

from engine.moonshine.actions import (
    Discard,
    Draft,
    DrawCards,
    Keep,
    Lose,
    MoonshineAction,
    Pick,
    Place,
    Replace,
    Reroll,
    Stop,
    TakeMoon,
    Validate,
)
from engine.moonshine.rules import Moonshine
from engine.moonshine.state import FollowUp, MoonshineOptions, MoonshineState, SeatState
from engine.moonshine.view import MoonshineView, PlayerView

__all__ = [
    "Discard",
    "Draft",
    "DrawCards",
    "FollowUp",
    "Keep",
    "Lose",
    "Moonshine",
    "MoonshineAction",
    "MoonshineOptions",
    "MoonshineState",
    "MoonshineView",
    "Pick",
    "Place",
    "PlayerView",
    "Replace",
    "Reroll",
    "SeatState",
    "Stop",
    "TakeMoon",
    "Validate",
]
