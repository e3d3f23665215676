"""What a game may add to the terminal mode (:mod:`bot.terminal`): :class:`TerminalHooks`, named
by its :attr:`bot.games.GameSpec.terminal`, and the :class:`Console` the hooks talk through.

The generic terminal shows a game's panel as a numbered menu (buttons, select options, number
prompts). A game whose input reads better another way gives hooks: Gang of Dice asks its
commits as a typed count and a reroll as one answer (``1 3 5``) on dice kept in place
(:mod:`bot.presenters.gang_of_dice_terminal`); Three-Player Moon keys its bids and trumps by
their own value (:class:`bot.presenters.three_player_moon.ThreePlayerMoonTerminal`).

The hooks read views (never a state) and legal codes, as presenters do, and return codes; the
terminal submits them through the same service as Discord. This module also holds the text
helpers hooks and the terminal share (:func:`plain`, :func:`parse_int`, :func:`parse_positions`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any, Protocol

from bot.i18n import Translator
from engine.core import Event

__all__ = ["QUIT", "Console", "TerminalHooks", "parse_int", "parse_positions", "plain"]

_MARKDOWN = re.compile(r"\*\*|__|~~|`|(?<!\\)\*|\\(?=[\\*_`~|>#\[\]()])")
_INT = re.compile(r"[0-9]{1,9}")
#: Answers that leave a question (the terminal then asks whether to leave the game).
QUIT = ("q", "quit", "exit")


def plain(text: str) -> str:
    """Discord markdown removed for the terminal (bold, code, escapes)."""
    return _MARKDOWN.sub("", text)


def parse_int(raw: str) -> int | None:
    """A whole number typed with ASCII digits (at most 9), else ``None``."""
    return int(raw) if _INT.fullmatch(raw) else None


def parse_positions(raw: str, count: int) -> list[int] | None:
    """Positions typed as ``"1 3 5"`` (commas allowed, ``all`` = every one) → sorted 0-based
    positions; ``None`` when empty, out of ``1..count`` or repeated."""
    if raw.strip().lower() in ("all", "tout", "tous"):
        return list(range(count))
    parts = [parse_int(p) for p in raw.replace(",", " ").split()]
    if not parts or None in parts:
        return None
    picks = [p for p in parts if p is not None]
    if len(set(picks)) != len(picks) or not all(1 <= p <= count for p in picks):
        return None
    return sorted(p - 1 for p in picks)


class Console(Protocol):
    """The terminal, as the hooks see it (:class:`bot.terminal.TerminalGame`).

    Attributes:
        t: the translator of the language shown (terminal variants first).
        out: prints a line.
    """

    t: Translator
    out: Callable[[str], None]

    def read(self, prompt: str, listing: Callable[[], None] | None = None) -> str | None:
        """A stripped answer to ``prompt``; ``None`` on Ctrl-C or Ctrl-D (the player wants to
        leave). ``b`` prints the whole board, then what ``listing`` prints (the list the prompt
        refers to), and asks again."""
        ...

    def yes(self, prompt: str) -> bool:
        """A yes/no question (Ctrl-C or Ctrl-D = no; any other answer asks again)."""
        ...

    def count(self, prompt: str, lo: int, hi: int) -> int | None:
        """A typed number in ``[lo, hi]``, asked until valid; ``None`` to leave."""
        ...

    def menu(self) -> str | None:
        """The generic terminal's turn: the panel as a numbered menu; the chosen code, ``None``
        to leave."""
        ...


class TerminalHooks:
    """A game's terminal input; this base class is the generic terminal (every method may be
    overridden). The terminal makes one instance per game it plays, so an instance may keep
    what it showed (Gang of Dice: the dice in place) from one call to the next."""

    def turn(self, console: Console, view: Any, legal: Sequence[str]) -> list[str] | None:
        """The human's turn (seat 0): the codes to submit, in order, or ``None`` to leave.
        ``view`` is the seat's view, ``legal`` its legal codes (at least two). By default, the
        panel as a menu (:meth:`Console.menu`)."""
        code = console.menu()
        return None if code is None else [code]

    def submitted(self) -> None:
        """The codes of :meth:`turn` were submitted (or one was refused): nothing by default."""

    def event_lines(self, event: Event, events: Sequence[Event], before: Any, t: Translator) -> list[str]:
        """Lines printed under the log line of the public ``event`` (one of ``events``, the
        step's events), ``before`` being the public view before the step (``None`` when
        unknown): none by default."""
        return []

    def value_key(self, code: str) -> str | None:
        """The key a choice is typed as when it stands for a number (a bid ``b6`` → ``6``): used
        for a menu only when every enabled choice has one; ``None`` (numbered) by default."""
        return None
