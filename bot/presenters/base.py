"""The presenter contract: how a game's engine views become boards, panels and log lines.

One presenter per game (``bot/presenters/<module>.py``), named by the game's
:class:`bot.games.GameSpec`. Presenters are pure functions of
views: they never see the state (so they cannot leak what the view hides), never import discord,
and take every text from the i18n catalogs through ``ctx.t``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from bot.i18n import Translator
from bot.ui import Block, Panel, Select
from engine.core import Event, Outcome


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

    Subclasses implement :meth:`board` and :meth:`panel`. :attr:`key`, the game's key (for its
    catalog keys ``game.<key>.*``), is set by the :class:`bot.games.GameSpec` that names the
    presenter: the key is defined once, by the engine game.
    """

    key: str = ""

    def title(self, t: Translator) -> str:
        """The game's display name in the reader's language."""
        return t(f"game.{self.key}.name")

    def board(self, view: V, ctx: RenderContext) -> Block:
        """The public board card from the public view (``game.view(state, None)``)."""
        raise NotImplementedError

    def headline(self, view: V, ctx: RenderContext) -> Block:
        """The head of :meth:`board`'s card, what a board picture's text shows of it: its title,
        colour and footer, a description whose first line is the board's (its status line), no
        fields. By default cut from :meth:`board`; a presenter builds it without the fields."""
        card = self.board(view, ctx)
        return Block(title=card.title, description=card.description.split("\n", 1)[0], color=card.color,
                     footer=card.footer)

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

    def tie_breaks(self, view: V, outcome: Outcome, ctx: RenderContext) -> list[str]:
        """Lines under the final standings saying what ranked apart players the score alone
        does not (the rules' tie-breaks), read from the public view of the finished game, so
        they show nothing hidden: none by default (a game whose ties share the place)."""
        return []

    def score_text(self, score: int, t: Translator) -> str:
        """A final score with its unit ("16 points", "12 dice"), as the standings show it."""
        key = f"game.{self.key}.score"
        return t(key, score=score) if t.has(key) else str(score)

    def action_label(self, code: str, view: V, ctx: RenderContext) -> str:
        """Short human label of an action code (terminal menus, confirmations)."""
        return code

    def lobby_selects(self, ctx: RenderContext) -> tuple[Select, ...]:
        """Table-option selects for the lobby; each option value is ``"field=value"``."""
        return ()

    def rules(self, t: Translator) -> Block:
        """A short rules summary for ``/rules``."""
        return Block(title=self.title(t), description=t(f"game.{self.key}.rules"))


#: A tie-break criterion for :func:`tie_line`: its name in the reader's language, the key of a
#: seat (higher ranks first, as the engine orders them) and the key as shown for a seat.
Criterion = tuple[str, Callable[[int], Any], Callable[[int], str]]


def level_groups(outcome: Outcome) -> list[list[int]]:
    """The seats level on score but not all ranked alike (a tie the rules broke), one group per
    score, each in standings order, the best group first."""
    by_score: dict[int, list[int]] = {}
    for s in sorted(range(len(outcome.ranks)), key=lambda s: (outcome.ranks[s], s)):
        by_score.setdefault(outcome.scores[s], []).append(s)
    groups = [g for g in by_score.values() if len(g) > 1 and len({outcome.ranks[s] for s in g}) > 1]
    return sorted(groups, key=lambda g: outcome.ranks[g[0]])


def tie_line(group: Sequence[int], score: str, criteria: Sequence[Criterion], ctx: RenderContext) -> str:
    """One line saying how ``group`` (seats level on ``score``, in standings order) was ranked:
    each criterion in turn, with the values of the seats it had to separate, and the seats still
    level after the last one ("⚖️ AI 2, AI 1 level on 16 points: decided by Moon tokens (5 for
    AI 2, 0 for AI 1).")."""
    t = ctx.t
    parts: list[str] = []
    tied = [list(group)]
    for name, key, shown in criteria:
        split, still = [], []
        for g in tied:
            if len({key(s) for s in g}) > 1:
                split += g
            values: dict[Any, list[int]] = {}
            for s in g:
                values.setdefault(key(s), []).append(s)
            still += [v for v in values.values() if len(v) > 1]
        if split:
            values_text = ", ".join(t("result.tie_value", value=shown(s), name=ctx.name(s)) for s in split)
            parts.append(t("result.tie_then" if parts else "result.tie_by", criterion=name, values=values_text))
        tied = still
    for g in tied:
        parts.append(t("result.tie_still", names=", ".join(ctx.name(s) for s in g)))
    return t("result.tie", names=", ".join(ctx.name(s) for s in group), score=score, how="; ".join(parts))
