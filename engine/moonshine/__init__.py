"""Moonshine (2-5 players): card sets as data, rules engine, baseline AI.

Modules:

- :mod:`~engine.moonshine.rules`: the :class:`Moonshine` Game (thin) and the rules docstring
  (every ruling and interpretation);
- :mod:`~engine.moonshine.state`: state dataclasses and token helpers;
- :mod:`~engine.moonshine.actions`: typed actions and their stable codes;
- :mod:`~engine.moonshine.legal`: who acts and the legal actions;
- :mod:`~engine.moonshine.phases` (the steps: deal, roll, actions, round ends),
  :mod:`~engine.moonshine.followups` (the private follow-ups) and :mod:`~engine.moonshine.work`
  (the mutable copy of a state a step works on): what ``apply`` does;
- :mod:`~engine.moonshine.dice`, :mod:`~engine.moonshine.scoring`: dice, resources, points;
- :mod:`~engine.moonshine.cards` (pydantic models of the card sets: ``data/cards.json`` and each
  rules version's ``data/changes-rules<r>.json``) and :mod:`~engine.moonshine.icons` (the same
  compiled into plain dataclasses and packed ints);
- :mod:`~engine.moonshine.view`: typed views; :mod:`~engine.moonshine.ai`: the baseline AI
  (imports no Game); :mod:`~engine.moonshine.search` and :mod:`~engine.moonshine.hidden`: the
  strong AI's hooks and determinization; :mod:`~engine.moonshine.sim`: AI-only games for
  ``docs/balance.md``.
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
