"""Pictures of boards and panels (Pillow), one renderer module per game, with a cache and an
async entry point that renders off the event loop.

A game's renderer module is named by its :class:`bot.games.GameSpec` (``renderer``, imported on
first use by :func:`renderer`); it has::

    board(view, names, t) -> bytes           # PNG of the public table, from the PUBLIC view
    panel(view, legal, names, t) -> bytes    # PNG of a seat's panel, from that seat's view
    legend(t) -> bytes                       # optional: the legend, shown on demand (Moonshine;
                                             # its spec says ``legend=True``)

where ``view`` is the game's typed view (``game.view(state, seat)``, the classes of
``engine/<game>/view.py``), ``names[seat]`` the display names, ``t`` a
:class:`bot.i18n.Translator` and ``legal`` the seat's legal action codes. Renderers draw only
from the view (never from a state), so the public picture cannot show hidden information, and
they are deterministic: the same inputs give the same pixels (the deflate library, ISA-L, may
encode them in other but equally valid bytes from one call to the next). Their words come from the
i18n catalogs (``pic.*`` and each game's ``<prefix>.pic.*`` keys, beside its text board's).

The functions below take the view's JSON form (``game.view_json(state, seat)``: what is sent to
a picture worker process and hashed into the cache key) and rebuild the typed view with
``game.view_from_json`` before drawing.

For the Discord layer:

- :func:`render_board` / :func:`render_panel`: synchronous, cached, raise on a renderer bug;
- ``await`` :func:`render_board_png` / :func:`render_panel_png`: the same in a worker thread,
  returning ``None`` (and logging the error) when rendering fails, so the caller shows the text
  board instead and the table carries on.

The cache (:class:`PictureCache`) is keyed by a SHA-256 of the canonical JSON of the view, the
names, the language, the kind and the legal codes, so an unchanged picture is neither drawn nor
(by comparing :func:`picture_key` values) uploaded twice.
"""

from __future__ import annotations

import asyncio
import hashlib
import importlib
import json
import logging
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from types import ModuleType
from typing import Any

import orjson

from bot.games import GAMES
from bot.i18n import Translator

log = logging.getLogger(__name__)

#: Limits every picture respects (tests check them): bytes and pixels.
MAX_BYTES = 300_000
MAX_WIDTH = 800
MAX_HEIGHT = 4000


def renderer(game_key: str) -> ModuleType:
    """The renderer module of ``game_key`` (its spec's ``renderer``, imported on first use).
    Raises ``KeyError`` for an unknown game or a game without pictures."""
    name = GAMES[game_key].renderer
    if name is None:
        raise KeyError(f"{game_key!r} has no pictures")
    return importlib.import_module(name)


def draws(game_key: str) -> bool:
    """Whether ``game_key`` has pictures (a registered game whose spec names a renderer)."""
    spec = GAMES.get(game_key)
    return spec is not None and spec.renderer is not None


def picture_key(game_key: str, kind: str, view: Any, names: Sequence[str], lang: str,
                legal: Sequence[str] = ()) -> str:
    """Hex SHA-256 identifying a picture: same key ⇔ same inputs ⇔ same PNG bytes. The inputs
    are serialised by :mod:`orjson` (sorted keys; the standard library for what it refuses)."""
    inputs = [game_key, kind, view, list(names), lang, sorted(legal)]
    try:
        blob = orjson.dumps(inputs, default=str, option=orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS)
    except TypeError:
        blob = json.dumps(inputs, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str).encode()
    return hashlib.sha256(blob).hexdigest()


class PictureCache:
    """A thread-safe LRU of PNG bytes by :func:`picture_key` (``size`` entries, at most
    ``size`` × 300 KB). ``hits`` / ``misses`` count lookups."""

    def __init__(self, size: int = 256) -> None:
        self.size = size
        self._data: OrderedDict[str, bytes] = OrderedDict()
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def get_or_draw(self, key: str, draw: Callable[[], bytes]) -> bytes:
        """The cached bytes of ``key``, else ``draw()`` stored under it (exceptions propagate
        and nothing is stored; nor is an empty result, a failed drawing to try again)."""
        with self._lock:
            if key in self._data:
                self._data.move_to_end(key)
                self.hits += 1
                return self._data[key]
            self.misses += 1
        png = draw()
        if not png:
            return png
        with self._lock:
            self._data[key] = png
            self._data.move_to_end(key)
            while len(self._data) > self.size:
                self._data.popitem(last=False)
        return png

    def clear(self) -> None:
        """Forget every picture (counters too)."""
        with self._lock:
            self._data.clear()
            self.hits = self.misses = 0

    def __len__(self) -> int:
        return len(self._data)


#: The process-wide cache used by the functions below.
CACHE = PictureCache()


def render_board(game_key: str, view: Any, names: Sequence[str], lang: str,
                 cache: PictureCache | None = CACHE) -> bytes:
    """PNG of the public board of ``game_key`` from its public view JSON (cached). Raises
    ``KeyError`` for an unknown game, ``ValueError`` for a JSON that is not one of its views, and
    whatever the renderer raises."""
    module = renderer(game_key)
    names = tuple(names)

    def draw() -> bytes:
        png: bytes = module.board(GAMES[game_key].game.view_from_json(view), names, Translator(lang))
        return png

    if cache is None:
        return draw()
    return cache.get_or_draw(picture_key(game_key, "board", view, names, lang), draw)


def render_panel(game_key: str, view: Any, legal: Sequence[str], names: Sequence[str], lang: str,
                 cache: PictureCache | None = CACHE) -> bytes:
    """PNG of a seat's panel from that seat's view JSON and legal codes (cached). Raises like
    :func:`render_board`."""
    module = renderer(game_key)
    names, legal = tuple(names), tuple(legal)

    def draw() -> bytes:
        png: bytes = module.panel(GAMES[game_key].game.view_from_json(view), legal, names, Translator(lang))
        return png

    if cache is None:
        return draw()
    return cache.get_or_draw(picture_key(game_key, "panel", view, names, lang, legal), draw)


def legend(game_key: str) -> bool:
    """Whether ``game_key``'s pictures have a legend of their own, shown on demand (a board's
    "Legend" button) rather than in every picture: its spec says so (``GameSpec.legend``; its
    renderer then has ``legend(t) -> bytes``), read without importing the renderer."""
    spec = GAMES.get(game_key)
    return spec is not None and spec.renderer is not None and spec.legend


def render_legend(game_key: str, lang: str, cache: PictureCache | None = CACHE) -> bytes:
    """PNG of ``game_key``'s legend in ``lang`` (cached). Raises ``KeyError`` for a game without
    one, and whatever the renderer raises."""
    module = renderer(game_key)
    if not hasattr(module, "legend"):
        raise KeyError(f"{game_key!r} has no legend picture")

    def draw() -> bytes:
        png: bytes = module.legend(Translator(lang))
        return png

    if cache is None:
        return draw()
    return cache.get_or_draw(picture_key(game_key, "legend", None, (), lang), draw)


async def render_board_png(game_key: str, view: Any, names: Sequence[str], lang: str,
                           cache: PictureCache | None = CACHE) -> bytes | None:
    """:func:`render_board` in a worker thread; ``None`` (error logged) when it fails."""
    try:
        return await asyncio.to_thread(render_board, game_key, view, names, lang, cache)
    except Exception:
        log.exception("rendering the %s board failed; showing the text board", game_key)
        return None


async def render_panel_png(game_key: str, view: Any, legal: Sequence[str], names: Sequence[str], lang: str,
                           cache: PictureCache | None = CACHE) -> bytes | None:
    """:func:`render_panel` in a worker thread; ``None`` (error logged) when it fails."""
    try:
        return await asyncio.to_thread(render_panel, game_key, view, legal, names, lang, cache)
    except Exception:
        log.exception("rendering a %s panel failed; showing the text panel", game_key)
        return None


__all__ = [
    "CACHE", "MAX_BYTES", "MAX_HEIGHT", "MAX_WIDTH", "PictureCache", "picture_key", "render_board",
    "draws", "legend", "render_board_png", "render_legend", "render_panel", "render_panel_png", "renderer",
]
