"""Moonshine (2-5 players): card set as data, rules engine, baseline AI.

See :mod:`engine.moonshine.rules` for the rules, the action codes and every interpretation made,
:mod:`engine.moonshine.cards` for the card models, :mod:`engine.moonshine.ai` for the AI and
``BALANCE.md`` for the simulation figures.
"""

from engine.moonshine.rules import Moonshine, MoonshineOptions, MoonshineState

__all__ = ["Moonshine", "MoonshineOptions", "MoonshineState"]
