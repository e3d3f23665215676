"""Presenters: a game's engine views as boards, panels and log lines (see :mod:`bot.presenters.base`).

Each game's presenter is named by its :class:`bot.games.GameSpec` (``GAMES[key].presenter``).
"""

from __future__ import annotations

from bot.presenters.base import Presenter, RenderContext

__all__ = ["Presenter", "RenderContext"]
