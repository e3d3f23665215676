"""The presenter contract: how a game's engine views become boards, panels and log lines.

One presenter per game (``bot/presenters/<module>.py``), registered in
``bot/presenters/__init__.py`` under the game's registry key. Presenters are pure functions of
views: they never see the state (so they cannot leak what the view hides), never import discord,
and take every text from the i18n catalogs through ``ctx.t``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from bot.i18n import Translator
from bot.ui import Card, Panel, Select
from engine.core import Event


@dataclass(frozen=True)
class RenderContext:
    """What a presenter needs besides the view.

    Attributes:
        t: translator of the reader's language.
        names: display name per seat (``names[seat]``), already escaped for markdown.
        seat: the reader's seat, ``None`` for the public board.
        extras: game-specific extras (for example the guild's custom decks for the lobby).
    """

    t: Translator
    names: tuple[str, ...]
    seat: int | None = None
    extras: dict[str, Any] = field(default_factory=dict)

    def name(self, seat: int | None) -> str:
        """Display name of ``seat`` (or ``?`` when out of range)."""
        if seat is None or not 0 <= seat < len(self.names):
            return "?"
        return self.names[seat]


V = TypeVar("V")


class Presenter(Generic[V]):
    """Base presenter, generic over its game's typed view class ``V`` (``engine/<game>/view.py``).

    Subclasses set ``game_key`` and implement :meth:`board` and :meth:`panel`.
    """

    game_key: str = ""

    def title(self, t: Translator) -> str:
        """The game's display name in the reader's language."""
        return t(f"game.{self.game_key}.name")

    def board(self, view: V, ctx: RenderContext) -> Card:
        """The public board card from the public view (``game.view(state, None)``)."""
        raise NotImplementedError

    def panel(self, view: V, legal: tuple[str, ...], ctx: RenderContext) -> Panel:
        """The private panel of ``ctx.seat`` from its view and its legal action codes.

        Every button/select code must be one of ``legal`` (or produce one: prompts and
        multi-selects). When ``legal`` is empty the panel only shows information.
        """
        raise NotImplementedError

    def log_events(self, events: Sequence[Event]) -> list[Event]:
        """The events of the log, in order, as they are to be read: the game's events unchanged by
        default; a game may fold two events that say one thing into one (Moonshine)."""
        return list(events)

    def log_extras(self, view: Callable[[], Any]) -> dict[str, Any]:
        """What the log lines need of the table beyond the events (``ctx.extras`` of
        :meth:`event`), read from the public view ``view()`` (called only when needed): nothing by
        default; Moonshine's Speakeasy of each seat."""
        return {}

    def event(self, event: Event, ctx: RenderContext) -> str:
        """One log line for ``event`` (already filtered for the reader's audience)."""
        params = dict(event.params)
        for key in ("seat", "winner", "target", "loser", "bidder", "chooser", "player"):
            if key in params and isinstance(params[key], int):
                params[key] = ctx.name(params[key])
        return ctx.t(event.key, **params)

    def flash_seconds(self, event: Event) -> int | None:
        """Seconds a private event stays visible before its message disappears (``None`` = it
        is shown in the panel like any other private event). Example: Shop Battle's HYPER U."""
        return None

    def action_label(self, code: str, view: V, ctx: RenderContext) -> str:
        """Short human label of an action code (terminal menus, confirmations)."""
        return code

    def lobby_selects(self, ctx: RenderContext) -> tuple[Select, ...]:
        """Table-option selects for the lobby; each option value is ``"field=value"``."""
        return ()

    def rules(self, t: Translator) -> Card:
        """A short rules summary for ``/rules``."""
        return Card(title=self.title(t), description=t(f"game.{self.game_key}.rules"))
