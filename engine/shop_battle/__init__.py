"""Shop Battle / Bataille des commerces (2-6 players): rules, cards and decks, views, AI.

See :mod:`engine.shop_battle.rules` for the rules, the action codes, the rules versions and every
interpretation made; :mod:`engine.shop_battle.cards` for card values and letter counting (S1);
:mod:`engine.shop_battle.deck` for deck files and upload validation;
:mod:`engine.shop_battle.view` for the typed views; :mod:`engine.shop_battle.ai` for the AI.
"""

from engine.shop_battle.actions import Choose, ShopBattleAction, Target
from engine.shop_battle.cards import (
    CHARACTERISTICS,
    POWER_KINDS,
    Card,
    CollectorCard,
    ShopCard,
    card_dict,
    clean_name,
    count_letters,
)
from engine.shop_battle.deck import MAX_DECK_BYTES, Deck, DeckError, DeckIssue, deck_issues, default_deck, parse_deck
from engine.shop_battle.round import MAX_ROUNDS
from engine.shop_battle.rules import (
    LATE_CHOOSERS_FROM,
    ROUND_CAPS,
    ShopBattle,
    ShopBattleOptions,
    deal,
    give_leftovers,
    late_choosers,
    shuffled_deal,
)
from engine.shop_battle.state import ShopBattleState
from engine.shop_battle.view import ShopBattleSeatView, ShopBattleView

__all__ = [
    "CHARACTERISTICS",
    "LATE_CHOOSERS_FROM",
    "MAX_DECK_BYTES",
    "MAX_ROUNDS",
    "POWER_KINDS",
    "ROUND_CAPS",
    "Card",
    "Choose",
    "CollectorCard",
    "Deck",
    "DeckError",
    "DeckIssue",
    "ShopBattle",
    "ShopBattleAction",
    "ShopBattleOptions",
    "ShopBattleSeatView",
    "ShopBattleState",
    "ShopBattleView",
    "ShopCard",
    "Target",
    "card_dict",
    "clean_name",
    "count_letters",
    "deal",
    "give_leftovers",
    "late_choosers",
    "deck_issues",
    "default_deck",
    "parse_deck",
    "shuffled_deal",
]
