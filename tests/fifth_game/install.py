"""Registering the fifth game for one test (see :mod:`tests.fifth_game`)."""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

from tests.fifth_game.high_card import HighCard
from tests.fifth_game.presenter import HighCardPresenter

__all__ = ["EXTENSION", "KEY", "catalog_part", "install"]

#: The registry key of the fifth game.
KEY = HighCard.key
#: The discord.py extension holding its cog (a real game's is ``bot.client.game_extension(key)``).
EXTENSION = "tests.fifth_game.cog"
_I18N = Path(__file__).parent / "i18n"


def catalog_part(lang: str) -> dict[str, str]:
    """The fifth game's own catalog entries in ``lang`` (``i18n/<lang>/*.json`` merged)."""
    merged: dict[str, str] = {}
    for path in sorted((_I18N / lang).glob("*.json")):
        merged.update(json.loads(path.read_text(encoding="utf-8")))
    return merged


def install(monkeypatch: Any) -> HighCard:
    """Register High Card for the current test: registry, presenter, catalogs, cog extension.

    ``monkeypatch`` is pytest's fixture; everything is undone when the test ends. Returns the
    registered game object. Raises ``ValueError`` if one of its catalog keys is already taken.
    """
    from bot import client, i18n, presenters
    from cogs import base
    from engine import registry

    game = HighCard()
    monkeypatch.setitem(registry.GAMES, KEY, game)
    monkeypatch.setitem(presenters.PRESENTERS, KEY, HighCardPresenter())

    product_catalog = i18n.catalog

    @functools.cache
    def catalog(lang: str) -> dict[str, str]:
        merged = dict(product_catalog(lang))
        for key, value in catalog_part(lang).items():
            if key in merged:
                raise ValueError(f"duplicate i18n key {key!r}")
            merged[key] = value
        return merged

    monkeypatch.setattr(i18n, "catalog", catalog)
    monkeypatch.setattr(client, "catalog", catalog)  # French command choices (CommandTranslator)

    product_extension = client.game_extension

    def game_extension(key: str) -> str:
        return EXTENSION if key == KEY else product_extension(key)

    monkeypatch.setattr(client, "game_extension", game_extension)
    monkeypatch.setattr(base, "game_extension", game_extension)
    # the cog class registers itself in GameCog._classes when its module runs: keep that local
    monkeypatch.setattr(base.GameCog, "_classes", dict(base.GameCog._classes))
    return game
