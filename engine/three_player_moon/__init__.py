"""Three-Player Moon (registry key ``three-player-moon``): a domino trick-taking game for exactly
3 players (RULINGS T1–T7, ``docs/rules/three-player-moon.md``).

Modules: :mod:`.tiles` (tiles, suits, tricks), :mod:`.state` (the state and the deal helpers),
:mod:`.actions` (actions and codes), :mod:`.view` (typed views), :mod:`.ai` (the baseline AI),
:mod:`.rules` (the :class:`ThreePlayerMoon` game), :mod:`.hidden` (determinizations),
:mod:`.search` (the strong and easy levels) and :mod:`.outlook` (the strong level's win chance).
"""

from __future__ import annotations

from engine.three_player_moon.actions import Bid, Discard, MoonAction, NameTrump, Play
from engine.three_player_moon.ai import best_trump, estimate_tricks
from engine.three_player_moon.rules import ThreePlayerMoon
from engine.three_player_moon.state import MAX_HANDS, HandResult, MoonState, Phase, deal_hands, start_hand
from engine.three_player_moon.tiles import (
    ALL_TILES,
    MOON,
    TARGET,
    TRICKS,
    TRUMP_OPTIONS,
    TRUMP_SUIT,
    Tile,
    belongs,
    deal_order,
    is_trump,
    led_suit,
    legal_plays,
    rank_in,
    sort_hand,
    suit_tiles,
    tile_str,
    trick_winner,
)
from engine.three_player_moon.view import BidderView, MoonView, SeatView

__all__ = [
    "ALL_TILES",
    "MAX_HANDS",
    "MOON",
    "TARGET",
    "TRICKS",
    "TRUMP_OPTIONS",
    "TRUMP_SUIT",
    "Bid",
    "BidderView",
    "Discard",
    "HandResult",
    "MoonAction",
    "MoonState",
    "MoonView",
    "NameTrump",
    "Phase",
    "Play",
    "SeatView",
    "ThreePlayerMoon",
    "Tile",
    "belongs",
    "best_trump",
    "deal_hands",
    "deal_order",
    "estimate_tricks",
    "is_trump",
    "led_suit",
    "legal_plays",
    "rank_in",
    "sort_hand",
    "start_hand",
    "suit_tiles",
    "tile_str",
    "trick_winner",
]
