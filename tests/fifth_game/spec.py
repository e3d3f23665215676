"""The fifth game's declaration: the :class:`bot.games.GameSpec` a real game adds to the tuple
at the end of ``bot/games.py``. No renderer (text only), no terminal hooks (the generic menu),
no cog class (the generic ``GameCog``). A test registers it with ``register(HIGH_CARD)``."""

from __future__ import annotations

from pathlib import Path

from bot import i18n
from bot.games import GameSpec
from tests.fifth_game.high_card import HighCard
from tests.fifth_game.presenter import HighCardPresenter

__all__ = ["HIGH_CARD"]

HIGH_CARD = GameSpec(HighCard(), HighCardPresenter(), i18n.part("high_card", Path(__file__).parent / "i18n"))
