"""Local terminal mode: play any game against AI players through the same TableService.

``python -m bot play GAME [--players N] [--seed S] [--lang en|fr]``. The table lives in a SQLite
file in a temporary folder (or ``--db``). The human sits in seat 0; every other seat is an AI
player. Public events print as they happen; on the human's turn the board and the private panel
print, with numbered choices built from the very same panel as in Discord. Every input is
validated and asked again on error; end of input (Ctrl-D) or Ctrl-C leaves cleanly.
"""

from __future__ import annotations

import asyncio
import re
import signal
import tempfile
import threading
from pathlib import Path
from typing import Any, Callable

from bot import texts
from bot.i18n import Translator
from bot.service import Notifier, ServiceError, TableService, TableView
from bot.ui import Button, Card, Panel, Select
from engine.core import Event, Outcome
from storage.db import Database

HUMAN_ID = 1
_MARKDOWN = re.compile(r"\*\*|__|~~|`|(?<!\\)\*|\\(?=[\\*_`~|>#\[\]()])")
_INT = re.compile(r"[0-9]{1,9}")
BACK = object()


def plain(text: str) -> str:
    """Discord markdown removed for the terminal (bold, code, escapes)."""
    return _MARKDOWN.sub("", text)


def parse_int(raw: str) -> int | None:
    """A whole number typed with ASCII digits (at most 9), else ``None``."""
    return int(raw) if _INT.fullmatch(raw) else None


def card_text(card: Card) -> str:
    """Plain text of a card."""
    parts = [f"== {plain(card.title)} =="]
    if card.description:
        parts.append(plain(card.description))
    for f in card.fields:
        parts.append(f"-- {plain(f.name)} --\n{plain(f.value)}")
    if card.footer:
        parts.append(f"({plain(card.footer)})")
    return "\n".join(parts)


class Choice:
    """One numbered menu entry: either an action code or a way to build one."""

    def __init__(self, label: str, code: str | None = None, component: Any = None, disabled: bool = False) -> None:
        self.label = label
        self.code = code
        self.component = component
        self.disabled = disabled


def menu(panel: Panel) -> list[Choice]:
    """Numbered choices of a panel, in panel order: buttons (disabled ones keep their number, so
    numbers do not shift from one screen to the next), the options of single selects, and
    multi-selects and number prompts as one entry each."""
    out: list[Choice] = []
    for row in panel.rows:
        for comp in row:
            if isinstance(comp, Button):
                if comp.disabled:
                    out.append(Choice(comp.label, None, None, disabled=True))
                elif comp.prompt is not None:
                    out.append(Choice(comp.label, None, comp.prompt))
                elif comp.code:
                    out.append(Choice(comp.label, comp.code))
            elif isinstance(comp, Select):
                if comp.max_values == 1 and not comp.prefix:
                    for o in comp.options:
                        desc = f" — {o.description}" if o.description else ""
                        out.append(Choice(f"{comp.placeholder}: {o.label}{desc}", o.value))
                else:
                    out.append(Choice(comp.placeholder, None, comp))
    return out


class TerminalNotifier(Notifier):
    """Prints public events (and the human's private ones) as they happen."""

    def __init__(self, t: Translator, out: Callable[[str], None], images: Path | None = None) -> None:
        self.t = t
        self.out = out
        self.images = images  # folder for board pictures (``play --images DIR``)
        self.public_news = True  # something public happened since the board was last printed

    async def table_started(self, table: TableView) -> None:
        await self.step_applied(table, list(table.game.opening_events(table.state)))

    async def step_applied(self, table: TableView, events: list[Event]) -> None:
        if self.images is not None:
            from bot.render import render_board_png

            png = await render_board_png(table.row.game, table.game.view_json(table.state, None),
                                         table.names(), self.t.lang)
            if png is not None:
                self.images.mkdir(parents=True, exist_ok=True)
                (self.images / f"board-{table.version:04d}.png").write_bytes(png)
        for event in events:  # in order: a private result right after what caused it
            if event.audience is None:
                for line in texts.public_log([event], table, self.t):
                    self.out(f"  • {plain(line)}")
                self.public_news = True
            else:
                for line in texts.private_log([event], table, self.t, 0):
                    self.out(f"  🔒 {plain(line)}")

    async def table_finished(self, table: TableView, outcome: Outcome) -> None:
        self.out("")
        card = texts.results_card(table, outcome, self.t)
        self.out(card_text(Card(card.title, card.description, card.fields, card.color, self.t("term.footer"))))


class TerminalGame:
    """One game in the terminal. ``ask`` reads a line (raises ``EOFError`` at end of input)."""

    def __init__(self, game: str, players: int, seed: int | None, lang: str = "en", db_path: Path | None = None,
                 ask: Callable[[str], str] = input, out: Callable[[str], None] = print,
                 options: dict[str, Any] | None = None, images: str | Path | None = None) -> None:
        self.game, self.players, self.seed, self.options = game, players, seed, options or {}
        self.images = Path(images) if images is not None else None
        self.t = Translator(lang)
        self.db_path = db_path
        self.ask, self.out = ask, out

    async def run(self) -> int:
        """Play to the end; returns a process exit code (0 = finished, 1 = left early)."""
        with tempfile.TemporaryDirectory(prefix="speakeasy-") as tmp:
            db = await Database.open(self.db_path or Path(tmp) / "terminal.db")
            seed = self.seed
            self.notifier = TerminalNotifier(self.t, self.out, self.images)
            service = TableService(db, notifier=self.notifier, ai_delay=0,
                                   seed_source=(lambda: seed) if seed is not None else None)
            if threading.current_thread() is threading.main_thread():
                # Ctrl-C must interrupt input() at once (asyncio.run defers SIGINT otherwise)
                signal.signal(signal.SIGINT, signal.default_int_handler)
            try:
                return await self._play(service)
            except ServiceError as err:
                self.out(self.t(err.key, **err.params))
                return 2
            finally:
                await service.close()
                await db.close()

    async def _play(self, service: TableService) -> int:
        t = self.t
        table = await service.open_lobby(guild_id=0, channel_id=0, game=self.game, host_user_id=HUMAN_ID,
                                         host_name=t("term.you"), lang=t.lang, options=self.options)
        for _ in range(self.players - 1):
            await service.add_ai(table.id, HUMAN_ID, t("lobby.ai_name"))
        self.out(t("term.welcome", game=texts.game_title(self.game, t), players=self.players, key=self.game))
        table = await service.start(table.id, HUMAN_ID)
        stuck = 0
        while True:
            await service.idle()
            table = await service.table(table.id)
            if table.row.status != "running":
                return 0
            if 0 not in table.to_act() or 0 in table.pending:
                # AI seats must act: make sure their driver runs (bounded: never hang)
                stuck += 1
                if stuck > 3:
                    self.out(t("err.internal"))
                    return 1
                service.nudge(table.id)
                await asyncio.sleep(0)
                continue
            stuck = 0
            self.out("")
            if self.notifier.public_news:
                self.out(card_text(texts.board(table, [], t).card))
                self.notifier.public_news = False
            panel = texts.panel(table, 0, t)
            self.out(card_text(panel.card))
            code = self._choose(panel)
            if code is None:
                self.out(t("term.bye"))
                return 1
            try:
                await service.submit(table.id, HUMAN_ID, table.version, code)
            except Exception as exc:  # a ServiceError: say it and ask again
                self.out(t(getattr(exc, "key", "err.internal"), **getattr(exc, "params", {})))

    def _read(self, prompt: str) -> str | None:
        try:
            return self.ask(prompt).strip()
        except (EOFError, KeyboardInterrupt):
            return None

    def _choose(self, panel: Panel) -> str | None:
        """Ask until a valid choice; ``None`` when the player leaves."""
        t = self.t
        choices = menu(panel)
        self._show(choices)
        while True:
            raw = self._read(t("term.prompt", n=len(choices)))
            if raw is None or raw.lower() in ("q", "quit", "exit"):
                return None
            if parse_int(raw) is None or not 1 <= int(raw) <= len(choices):
                self.out(t("term.bad_choice", n=len(choices)))
                continue
            choice = choices[int(raw) - 1]
            if choice.disabled:
                self.out(t("term.disabled"))
                continue
            if choice.code is not None:
                return choice.code
            code = self._detail(choice.component)
            if code is None:
                return None
            if code is not BACK:
                return code
            self._show(choices)

    def _show(self, choices: list[Choice]) -> None:
        for i, c in enumerate(choices, start=1):
            self.out(f"  {i}) {c.label}" + (f"  ({self.t('term.not_now')})" if c.disabled else ""))

    def _detail(self, comp: Any) -> Any:
        """Ask the details of a multi-select or a number prompt: a code, ``BACK`` (``q``) or
        ``None`` (end of input)."""
        t = self.t
        if isinstance(comp, Select):
            for i, o in enumerate(comp.options, start=1):
                self.out(f"    {i}) {o.label}")
            ask = (t("term.multi_n", n=comp.min_values) if comp.min_values == comp.max_values
                   else t("term.multi", min=comp.min_values, max=comp.max_values))
            while True:
                raw = self._read(ask)
                if raw is None:
                    return None
                if raw.lower() in ("q", "quit"):
                    return BACK
                typed = [parse_int(p) for p in raw.replace(",", " ").split()]
                picks = set(typed)
                if (None not in picks and len(picks) == len(typed) and all(1 <= p <= len(comp.options) for p in picks)
                        and comp.min_values <= len(picks) <= comp.max_values):
                    return comp.code_for([comp.options[p - 1].value for p in picks])
                self.out(t("term.bad_multi_n", n=comp.min_values, options=len(comp.options))
                         if comp.min_values == comp.max_values
                         else t("term.bad_multi", min=comp.min_values, max=comp.max_values, n=len(comp.options)))
        prompt = comp
        while True:
            raw = self._read(t("term.number", label=prompt.label))
            if raw is None:
                return None
            if raw.lower() in ("q", "quit"):
                return BACK
            n = parse_int(raw)
            if n is not None and prompt.minimum <= n <= prompt.maximum:
                return prompt.template.format(n=n)
            self.out(t("err.bad_number", min=prompt.minimum, max=prompt.maximum))
