"""The games: each declared once, as a :class:`GameSpec`, in the registry :data:`GAMES`.

A spec names everything a game is: its engine game object (whose ``key`` is the game's key,
defined there only), its presenter, its catalogs, and optionally its picture renderer, its
terminal hooks and a cog class that adds commands. Every part of the bot finds a game here:
the service and the AI workers (``GAMES[key].game``), the texts (``GAMES[key].presenter``), the
pictures (:func:`bot.render.renderer`), the terminal (:mod:`bot.terminal_hooks`), the cogs
(``cogs/games.py``), the settings (``ENABLED_GAMES``).

Keys are stable: they are stored in the database (tables, ratings, decks). The registry's order
is the order games are listed in (``/play``, ``/help``, ``ENABLED_GAMES=all``).

:func:`register` adds a game (a test's game, in one line) and returns its
:class:`Registration`, which takes it out again.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any

from bot import i18n
from bot.presenters.base import Presenter
from bot.presenters.gang_of_dice import GangOfDicePresenter
from bot.presenters.gang_of_dice_terminal import GangOfDiceTerminal
from bot.presenters.moonshine import MoonshinePresenter
from bot.presenters.shop_battle import ShopBattlePresenter
from bot.presenters.three_player_moon import ThreePlayerMoonPresenter, ThreePlayerMoonTerminal
from bot.terminal_hooks import TerminalHooks
from engine.core import Game
from engine.gang_of_dice import GangOfDice
from engine.moonshine import Moonshine
from engine.shop_battle import ShopBattle
from engine.three_player_moon import ThreePlayerMoon

__all__ = ["GAMES", "GameSpec", "Registration", "register"]

_KEY = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")


@dataclass(frozen=True, eq=False)
class GameSpec:
    """Everything a game is, in one declaration (compared by identity: one object per game).

    Attributes:
        game: the stateless engine game object (:class:`engine.core.Game`); ``game.key`` is the
            game's key (lower-case words joined by ``-``).
        presenter: its presenter (:mod:`bot.presenters.base`); the spec sets its ``key``.
        catalogs: its catalog files by language (``{"en": path, "fr": path}``, as
            :func:`bot.i18n.part` gives), merged into the catalogs while it is registered.
        renderer: the module that draws its pictures (``board`` and ``panel``, see
            :mod:`bot.render`), as a dotted name imported on the first picture (Pillow stays
            out of the processes that draw none); ``None``: text only.
        legend: its renderer draws a legend picture of its own (``legend(t) -> bytes``), shown
            on demand (a board's "Legend" button) rather than in every picture: said here, so
            that the bot knows it without importing the renderer.
        terminal: makes its terminal hooks (a :class:`bot.terminal_hooks.TerminalHooks`
            subclass); ``None``: the generic terminal.
        cog: ``"module:Class"`` of a :class:`cogs.base.GameCog` subclass adding commands
            (``bot/`` does not import ``cogs/``: the cogs resolve it); ``None``: the generic
            ``GameCog``.

    Raises ``ValueError`` when the key is malformed or the presenter already serves another game.
    """

    game: Game[Any, Any, Any]
    presenter: Presenter[Any]
    catalogs: Mapping[str, Path]
    renderer: str | None = None
    legend: bool = False
    terminal: Callable[[], TerminalHooks] | None = None
    cog: str | None = None

    def __post_init__(self) -> None:
        if not _KEY.fullmatch(self.key):
            raise ValueError(f"game key {self.key!r}: lower-case letters and digits, words joined by '-'")
        if self.presenter.key not in ("", self.key):
            raise ValueError(f"{type(self.presenter).__name__} already presents {self.presenter.key!r}")
        self.presenter.key = self.key

    @property
    def key(self) -> str:
        """The game's key (``game.key``)."""
        return self.game.key


#: The registered games by key, in registration order (the built-in games first).
GAMES: dict[str, GameSpec] = {}


class Registration:
    """A registered game: :meth:`unregister` takes it out again (registry and catalogs); so does
    leaving ``with register(spec) as spec:``."""

    def __init__(self, spec: GameSpec, remove_catalogs: Callable[[], None]) -> None:
        self.spec = spec
        self._remove_catalogs: Callable[[], None] | None = remove_catalogs

    def unregister(self) -> None:
        """Take the game out of :data:`GAMES` and its texts out of the catalogs (once)."""
        if self._remove_catalogs is None:
            return
        if GAMES.get(self.spec.key) is self.spec:
            del GAMES[self.spec.key]
        self._remove_catalogs()
        self._remove_catalogs = None

    def __enter__(self) -> GameSpec:
        return self.spec

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self.unregister()


def register(spec: GameSpec) -> Registration:
    """Add ``spec`` to :data:`GAMES` and its catalogs to :func:`bot.i18n.catalog`.

    Raises ``ValueError`` (and registers nothing) when its key is taken or one of its catalog
    keys is already defined."""
    if spec.key in GAMES:
        raise ValueError(f"game {spec.key!r} is already registered")
    remove_catalogs = i18n.add_catalogs(spec.catalogs)
    GAMES[spec.key] = spec
    return Registration(spec, remove_catalogs)


for _spec in (
    GameSpec(GangOfDice(), GangOfDicePresenter(), i18n.part("gang_of_dice"),
             renderer="bot.render.gang_of_dice", terminal=GangOfDiceTerminal),
    GameSpec(ThreePlayerMoon(), ThreePlayerMoonPresenter(), i18n.part("three_player_moon"),
             renderer="bot.render.three_player_moon", terminal=ThreePlayerMoonTerminal),
    GameSpec(ShopBattle(), ShopBattlePresenter(), i18n.part("shop_battle"),
             renderer="bot.render.shop_battle", cog="cogs.shop_battle:ShopBattleCog"),
    GameSpec(Moonshine(), MoonshinePresenter(), i18n.part("moonshine"), renderer="bot.render.moonshine",
             legend=True),
):
    register(_spec)
del _spec
