"""Local terminal mode: play any game against AI players through the same table services.

``python -m bot play GAME [--players N] [--seed S] [--lang en|fr] [--db FILE] [--pace S | --fast]``
and ``python -m bot play --resume``. The human sits in seat 0; every other seat is an AI player.

What the terminal does for a person at a keyboard:

- The table lives in a SQLite file in a known place (:func:`default_db_path`, or ``--db``); every
  step is saved as it happens, so ``play --resume`` continues the last unfinished terminal table.
- ``q``, Ctrl-C and Ctrl-D never leave at once: the terminal asks first and says how to resume.
  A yes/no question takes ``y``/``n`` (``o``/``n`` in French; ``yes``, ``no``, ``oui``, ``non``);
  any other answer is not taken for a no: a short line ("Please answer y or n.") asks again.
- Menus are numbered choices built from the very same panel as in Discord; a count is never a
  menu entry but a typed number, and number-valued choices are typed as their own value
  (:func:`value_key`), so a typed number always means what it says.
- A game may ask its turns its own way and add lines under its log lines: its terminal hooks
  (:class:`bot.terminal_hooks.TerminalHooks`, named by its :attr:`bot.games.GameSpec.terminal`).
  Gang of Dice types its commits as a count and a reroll as one answer (``1 3 5``) on dice kept
  in place; Three-Player Moon keys its bids and trumps by their value.
- The final standings name the players who share a victory (a tie for first place). A game
  finished in another window shows, at this window's next answer, its whole board and the final
  standings.
- A choice with only one legal action is applied with a line instead of a prompt; so is a
  sub-question with a single answer, and a menu whose only entry is a sub-question (Moonshine's
  "Choose 2 Clients…") goes straight to it.
- ``play --resume`` says in one line which new-game options it cannot apply (the table keeps its
  seats, seed, AI levels and options), and shows the table in the language it was started in, or
  in ``--lang``, generated names included (:func:`display_seats`).
- ``--images DIR`` is checked before anything starts (:func:`folder_problem`: one line, exit 2);
  a picture that cannot be written later is one warning line, printed after the step's lines.
- AI steps are paced (``pace`` seconds, the service's ``ai_delay``; ``--fast`` = 0).
- The board prints once per change, without the blocks that did not change since it was last
  printed, which one line under it names (:func:`block_names`; ``b`` prints it whole); the panel below it leaves out the blocks the board shows and,
  when nothing public happened since, those it showed last time. A footer that does not change
  (Moonshine's notation legend) is printed once.
- The board's footer (here as on Discord) and the resume line name the table but count no
  moves: the stored count is of engine steps (a Gang of Dice reroll of 40 dice is 41 of them:
  40 marks and the roll), which means nothing to a player; the heading says where the game
  stands (round, hand).
- Texts come from the catalogs, preferring a terminal variant ``term.alt.<key>`` where the
  Discord text speaks of buttons or bold tiles (:class:`TerminalTranslator`).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import glob
import logging
import os
import re
import signal
import sqlite3
import sys
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from bot import compose
from bot.arguments import folder_problem, os_reason
from bot.games import GAMES
from bot.house import House
from bot.i18n import DEFAULT_LANG, LANGS, Translator, colon
from bot.service import Notifier, ServiceError, TableSnapshot
from bot.terminal_hooks import QUIT, TerminalHooks, parse_int, parse_positions, plain
from bot.ui import Block, Button, Field, NumberPrompt, Panel, Select
from engine.core import Event, Outcome
from storage.base import SeatRow, Store, StoreRefused, TableRow
from storage.factory import open_store

log = logging.getLogger(__name__)

HUMAN_ID = 1
#: Seconds between AI steps unless ``--pace`` / ``--fast`` says otherwise.
DEFAULT_PACE = 0.6
_YES = ("y", "yes", "o", "oui")
_NO = ("n", "no", "non")
BACK = object()


def default_db_path() -> Path:
    """Where the terminal keeps its tables: ``$XDG_DATA_HOME/speakeasy/terminal.db`` (by default
    ``~/.local/share/speakeasy/terminal.db``)."""
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "speakeasy" / "terminal.db"


def log_path(db_path: Path | None = None) -> Path:
    """Where ``play`` writes its log lines (never onto the player's screen): beside the tables'
    file, ``terminal.db`` → ``terminal.log`` (``db_path`` ``None`` = :func:`default_db_path`)."""
    return (db_path or default_db_path()).with_suffix(".log")


def marker_path(db_path: Path, table_id: int) -> Path:
    """The file that says which process has table ``table_id`` of ``db_path`` open
    (``terminal.db`` → ``terminal.db.table-3.pid``): a hint for a warning, not a lock."""
    return db_path.with_name(f"{db_path.name}.table-{table_id}.pid")


def sweep_markers(db_path: Path) -> None:
    """Remove the markers (:func:`marker_path`) of ``db_path`` whose process no longer runs (a
    terminal that was killed leaves its marker behind; a marker means something only while its
    process runs). This process's own, other running terminals' and any it cannot read (one
    being written) stay; elsewhere than POSIX, where a process cannot be asked, all stay.
    Never raises."""
    if os.name != "posix":
        return
    try:
        markers = list(db_path.parent.glob(f"{glob.escape(db_path.name)}.table-*.pid"))
    except OSError:
        return
    for marker in markers:
        try:
            text = marker.read_text(encoding="ascii")
            pid = int(text.strip())
            if pid > 0 and pid != os.getpid() and not _runs_elsewhere(pid) \
                    and marker.read_text(encoding="ascii") == text:  # not rewritten meanwhile
                marker.unlink()
        except (OSError, ValueError):
            continue


def open_elsewhere(marker: Path) -> bool:
    """Whether ``marker`` (:func:`marker_path`) names another process that is still running
    (POSIX only: elsewhere, and on any doubt, ``False``). Never raises."""
    if os.name != "posix":
        return False
    try:
        pid = int(marker.read_text(encoding="ascii").strip())
    except (OSError, ValueError):
        return False
    return _runs_elsewhere(pid)


def _runs_elsewhere(pid: int) -> bool:
    """Whether ``pid`` is another process that still runs a terminal game (POSIX)."""
    if pid <= 0 or pid == os.getpid():
        return False
    try:
        os.kill(pid, 0)  # signal 0: only asks whether the process exists
    except ProcessLookupError:
        return False
    except OSError:  # it exists but belongs to someone else
        return True
    return _still_a_terminal_game(pid)


def _still_a_terminal_game(pid: int) -> bool:
    """Whether process ``pid`` still looks like a terminal game where ``/proc`` can tell (Linux):
    not a zombie (exited, not yet reaped by its parent), and its command line says ``play`` (a
    window killed with ``kill -9`` leaves its marker behind, and its number may be reused by an
    unrelated process). ``True`` where ``/proc`` cannot tell."""
    proc = Path("/proc") / str(pid)
    try:
        stat = (proc / "stat").read_text(encoding="ascii", errors="replace")
        cmdline = (proc / "cmdline").read_bytes().split(b"\0")
    except OSError:
        return True
    state = stat.rsplit(")", 1)[-1].split()[:1]
    if state == ["Z"]:
        return False
    return not cmdline or cmdline == [b""] or b"play" in cmdline


def list_lines(line: str, width: int = 100) -> list[str]:
    """A long line that lists items after a label (``…: A; B; C``, Shop Battle's peek at a
    pile) as the label and then one numbered item a line; any other line as it is.

    >>> list_lines("Pile: " + "; ".join(["a card with a long name"] * 4), width=40)[:2]
    ['Pile:', '      1. a card with a long name']
    """
    if len(line) <= width or "; " not in line:
        return [line]
    head, sep, rest = line.partition(": ")
    if not sep or "; " in head:
        return [line]
    return [head + sep.rstrip()] + [f"      {i}. {item}" for i, item in enumerate(rest.split("; "), start=1)]


def block_text(card: Block) -> str:
    """Plain text of a card (the ``rules`` command)."""
    parts = [f"== {plain(card.title)} =="]
    if card.description:
        parts.append(plain(card.description))
    for f in card.fields:
        parts.append(f"-- {plain(f.name)} --\n{plain(f.value)}")
    if card.footer:
        parts.append(f"({plain(card.footer)})")
    return "\n".join(parts)


def compact_block(card: Block, skip: set[tuple[str, str]] | None = None, lang: str = "en", note: str = "") -> str:
    """Plain text of a card for the play loop: a field whose value fits one line prints as
    ``Name: value``, unless the value has a label of its own (``Bid: AI 2: 4`` would read as two
    labels): that one, like a value of several lines, prints under its name, indented. Fields in
    ``skip`` (``(name, value)`` pairs already on screen) are left out; ``note`` (a line saying
    which) follows the fields, before the footer."""
    parts = [f"== {plain(card.title)} =="]
    if card.description:
        parts.append(plain(card.description))
    for f in card.fields:
        if skip and (f.name, f.value) in skip:
            continue
        value = plain(f.value)
        if "\n" in value or colon(lang) + " " in value:
            parts.append(f"{plain(f.name)}{colon(lang)}\n" + "\n".join(f"  {line}" for line in value.splitlines()))
        else:
            parts.append(f"{plain(f.name)}{colon(lang)} {value}")
    if note:
        parts.append(note)
    if card.footer:
        parts.append(f"({plain(card.footer)})")
    return "\n".join(parts)


def block_names(fields: Iterable[Field], names: Sequence[str]) -> list[str]:
    """What to call each of the board's blocks ``fields`` in one short line: the player's name
    (``names``, the seats' display names, plain) when the block's heading names a player (a
    Moonshine seat: "AI 1 🤖 (normal) — 16 pts · 🌙 1" → "AI 1 🤖 (normal)"), else its heading."""
    out = []
    for f in fields:
        heading = plain(f.name)
        named = [n for n in sorted(names, key=len, reverse=True) if n and n in heading]
        label = named[0] if named else heading
        if label not in out:
            out.append(label)
    return out


@functools.cache
def _generated_names() -> tuple[frozenset[str], re.Pattern[str]]:
    """The human's generated name in every language, and the pattern of a generated AI name."""
    you = frozenset(Translator(lang)("term.you") for lang in LANGS)
    names = "|".join(re.escape(Translator(lang)("lobby.ai_name")) for lang in LANGS)
    return you, re.compile(f"(?:{names}) ([0-9]+)")


def display_seats(seats: Sequence[SeatRow], t: Translator) -> list[SeatRow]:
    """The seats with the names the terminal generated put in ``t``'s language: the human's
    "Player 1 (you)" / "Joueur 1 (vous)" and the AI players' "AI 2" / "IA 2", in whichever
    language they were stored (a table started with ``--lang fr``, resumed in English). Any other
    name is kept as stored."""
    you, ai = _generated_names()
    out = []
    for s in seats:
        m = ai.fullmatch(s.name) if s.is_ai else None
        if m:
            s = replace(s, name=f"{t('lobby.ai_name')} {m.group(1)}")
        elif not s.is_ai and s.user_id == HUMAN_ID and s.name in you:
            s = replace(s, name=t("term.you"))
        out.append(s)
    return out


class TerminalTranslator(Translator):
    """A translator that prefers the terminal variant ``term.alt.<key>`` of a text when the
    catalogs have one (texts that speak of Discord's buttons or bold tiles)."""

    def __call__(self, key: str, /, **params: Any) -> str:
        alt = f"term.alt.{key}"
        return super().__call__(alt if self.has(alt) else key, **params)


class Choice:
    """One menu entry: the ``key`` typed to pick it, a label, and an action code or a way to
    build one (a multi-select or a number prompt). ``group`` is the heading it is listed under."""

    def __init__(self, label: str, code: str | None = None, component: Any = None, disabled: bool = False,
                 group: str | None = None, key: str = "", confirm: bool = False) -> None:
        self.label = label
        self.code = code
        self.component = component
        self.disabled = disabled
        self.group = group
        self.key = key
        self.confirm = confirm  # a risky choice (a "danger" button in Discord): asked again first


def menu(panel: Panel) -> list[Choice]:
    """Numbered choices of a panel, in panel order: buttons (disabled ones keep their number, so
    numbers do not shift from one screen to the next; a "danger" one, such as shooting the moon,
    is confirmed before it is played), the options of single selects (under the select's
    placeholder), and multi-selects and number prompts as one entry each."""
    out: list[Choice] = []
    for row in panel.rows:
        for comp in row:
            if isinstance(comp, Button):
                if comp.disabled:
                    out.append(Choice(comp.label, None, None, disabled=True))
                elif comp.prompt is not None:
                    out.append(Choice(comp.label, None, comp.prompt))
                elif comp.code:
                    out.append(Choice(comp.label, comp.code, confirm=comp.style == "danger"))
            elif isinstance(comp, Select):
                if comp.max_values == 1 and not comp.prefix:
                    for o in comp.options:
                        desc = f" — {o.description}" if o.description else ""
                        out.append(Choice(f"{o.label}{desc}", o.value, group=comp.placeholder))
                else:
                    out.append(Choice(comp.placeholder, None, comp))
    for i, c in enumerate(out, start=1):
        c.key = str(i)
    return out


def hooks_of(game: str) -> TerminalHooks:
    """New terminal hooks of ``game`` (its spec's :attr:`~bot.games.GameSpec.terminal`; the
    generic terminal's for a game without, or unknown)."""
    spec = GAMES.get(game)
    return spec.terminal() if spec is not None and spec.terminal is not None else TerminalHooks()


def value_key(game: str, code: str) -> str | None:
    """The key of a number-valued choice of ``game``, typed as its own value (its hooks'
    :meth:`~bot.terminal_hooks.TerminalHooks.value_key`: Three-Player Moon's bids ``b6`` → ``6``).
    ``None`` for any other choice (it keeps its menu number)."""
    return hooks_of(game).value_key(code)


def keyed(game: str, choices: list[Choice]) -> list[Choice]:
    """``choices`` keyed by :func:`value_key` when every enabled choice has a value key (a bid
    menu, a trump menu); otherwise unchanged (numbered)."""
    live = [c for c in choices if not c.disabled]
    hooks = hooks_of(game)
    keys = [hooks.value_key(c.code) if c.code else None for c in live]
    if live and all(keys) and len(set(keys)) == len(keys):
        for c, k in zip(live, keys, strict=True):
            c.key = str(k)
        return live
    return choices


class TerminalNotifier(Notifier):
    """Prints the events of one table (public ones, and the human's private ones) as they happen."""

    def __init__(self, t: Translator, out: Callable[[str], None], images: Path | None = None) -> None:
        self.t = t
        self.out = out
        self.images = images  # folder for board pictures (``play --images DIR``)
        self.picture_failed = False  # the last picture could not be written (warned once)
        self.last_picture: bytes | None = None  # the PNG written last (an unchanged board is not written again)
        self.finished = False  # the final standings were printed
        self.table_id: int | None = None  # the table followed (None: every table)
        self.seat: int | None = 0  # whose private events are printed (None: watching, public only)
        #: the terminal hooks of a game (they add lines under its public events)
        self.hooks: Callable[[str], TerminalHooks] = hooks_of
        self.public_news = True  # something public happened since the board was last printed
        self.before: Any = None  # the public view after the step printed last (what a reroll kept)
        #: the table as shown (generated names in the reader's language: :func:`display_seats`)
        self.shown: Callable[[TableSnapshot], TableSnapshot] = lambda table: table

    def _mine(self, table: TableSnapshot) -> bool:
        return self.table_id is None or table.id == self.table_id

    async def table_started(self, table: TableSnapshot) -> None:
        await self.step_applied(table, list(table.game.opening_events(table.state)))

    async def step_applied(self, table: TableSnapshot, events: list[Event]) -> None:
        if not self._mine(table):
            return
        table = self.shown(table)
        before, self.before = self.before, table.game.view(table.state, None)
        hooks = self.hooks(table.row.game)
        # in order: a private result right after what caused it; two events saying one thing, one line
        for event in GAMES[table.row.game].presenter.log_events(events):
            if event.audience is None:
                for line in compose.public_log([event], table, self.t):
                    self.out(f"  • {plain(line)}")
                self.public_news = True
                for extra in hooks.event_lines(event, events, before, self.t):
                    self.out(extra)
            elif self.seat is not None:
                for line in compose.private_log([event], table, self.t, self.seat):
                    for part in list_lines(f"  🔒 {plain(line)}"):
                        self.out(part)
        if self.images is not None:  # after the lines: a picture that fails never hides them
            await self._picture(table)

    async def _picture(self, table: TableSnapshot) -> None:
        """Write the public board of ``table`` as ``board-NNNN.png`` in :attr:`images` (``NNNN``:
        the table's stored step), unless it is the picture written last: the steps that change
        nothing public (a Gang of Dice reroll marks each die, one step a die) write no copies. A
        failure (disk full, the folder removed) prints one warning line, until a picture is
        written again; the game goes on without the picture. A game without pictures (no
        renderer in its spec) writes none."""
        from bot.render import draws, render_board_png

        assert self.images is not None
        if not draws(table.row.game):
            return
        png = await render_board_png(table.row.game, table.game.view_json(table.state, None),
                                     compose.picture_names(table, self.t), self.t.lang)
        if png is None or png == self.last_picture:  # the renderer failed (logged), or nothing changed
            return
        try:
            self.images.mkdir(parents=True, exist_ok=True)  # removed during the game: made again
            (self.images / f"board-{table.version:04d}.png").write_bytes(png)
        except OSError as err:
            log.warning("writing a picture to %s failed: %s", self.images, err)
            if not self.picture_failed:
                reason = folder_problem(self.images) or os_reason(err)  # "Not a directory" before "File exists"
                self.out(self.t("term.images_failed", path=str(self.images), reason=reason))
            self.picture_failed = True
        else:
            self.picture_failed = False
            self.last_picture = png

    async def table_finished(self, table: TableSnapshot, outcome: Outcome) -> None:
        if not self._mine(table):
            return
        self.standings(self.shown(table), outcome)

    def standings(self, table: TableSnapshot, outcome: Outcome) -> None:
        """Print the final standings of ``table`` (once it is finished, here or elsewhere)."""
        self.finished = True
        self.out("")
        card = compose.results_block(table, outcome, self.t)
        self.out(block_text(Block(card.title, card.description, card.fields, card.color, self.t("term.footer"))))


class Leave(Exception):
    """The player asked to leave (``q``, Ctrl-C or Ctrl-D) and confirmed."""



def fresh_input(prompt: str) -> str:
    """``input(prompt)`` after dropping what was typed ahead (for example while the AI players
    moved), so that a stray key never answers a prompt it was not meant for. Only on a terminal.

    Raises ``EOFError``/``KeyboardInterrupt`` as ``input`` does."""
    if sys.stdin.isatty():
        try:
            import termios

            termios.tcflush(sys.stdin, termios.TCIFLUSH)
        except (ImportError, OSError):
            pass
    return input(prompt)

class TerminalGame:
    """One game in the terminal. ``ask`` reads a line (raises ``EOFError`` at end of input,
    ``KeyboardInterrupt`` on Ctrl-C); ``out`` prints a line.

    ``db_path``: the SQLite file (default :func:`default_db_path`); ``resume``: continue the last
    unfinished terminal table of that file (``game`` may then be ``None`` = any game);
    ``pace``: seconds between AI steps (0 = no pause); ``ai_levels``: the AI players' levels in
    seat order (``--ai``; a missing one is normal). Strong AI players think in worker processes
    (:class:`bot.ai_pool.AiPool`, one second a move). ``watch``: every seat is an AI player and
    the terminal prints the public table only (``play --watch``; a resumed table without the
    player's seat is watched too).

    On a resumed table, ``players``, ``seed``, ``options`` and ``ai_levels`` cannot apply (the
    table keeps its own): when given and different from the table's, one line says so. ``lang``
    (``None`` = English for a new table, the table's stored language for a resumed one) is the
    language of everything shown, the generated names included ("Player 1 (you)", "AI 2": see
    :func:`display_seats`), whatever language the table was started in.
    """

    def __init__(self, game: str | None, players: int, seed: int | None, lang: str | None = None,
                 db_path: Path | None = None,
                 ask: Callable[[str], str] | None = None, out: Callable[[str], None] = print,
                 options: dict[str, Any] | None = None, images: str | Path | None = None,
                 resume: bool = False, pace: float = DEFAULT_PACE, ai_levels: list[str] | None = None,
                 watch: bool = False, table_id: int | None = None) -> None:
        self.game, self.players, self.seed, self.options = game, players, seed, options or {}
        self.watch = watch
        self.ai_levels = list(ai_levels or [])
        self.images = Path(images) if images is not None else None
        self.lang = lang  # None: English for a new table, the stored language for a resumed one
        self.t: Translator = TerminalTranslator(lang or DEFAULT_LANG)
        self.db_path = db_path
        self.ask, self.out = ask or fresh_input, out
        self.resume = resume
        self.table_id = table_id  # with resume: that table, not the most recent one
        self.pace = max(0.0, pace)
        self.notifier = TerminalNotifier(self.t, self.out, self.images)
        self.notifier.seat = None if watch else 0
        self.notifier.hooks = self.hooks
        self.notifier.shown = self._shown
        self.board: Block | None = None  # the board printed last
        self.on_screen: set[tuple[str, str]] = set()  # its blocks (name, value)
        self.panel_seen: set[tuple[str, str]] = set()  # the blocks of the panel printed last
        self.footers: set[str] = set()  # the footers printed so far (each is printed once)
        self._hooks: dict[str, TerminalHooks] = {}  # each game's terminal hooks (hooks())
        self._table: TableSnapshot | None = None  # the table of the turn being asked (menu())

    def hooks(self, game: str) -> TerminalHooks:
        """The terminal hooks of ``game`` (:func:`hooks_of`), one instance for this game's play."""
        if game not in self._hooks:
            self._hooks[game] = hooks_of(game)
        return self._hooks[game]

    def _shown(self, table: TableSnapshot) -> TableSnapshot:
        """``table`` with the generated names in the language shown (:func:`display_seats`)."""
        return replace(table, seats=display_seats(table.seats, self.t))

    @property
    def resume_command(self) -> str:
        """The command that continues this game (with ``--db`` when another file was given, and
        ``--table`` when the game was resumed by its number: it may not be the most recent)."""
        command = "./scripts/start.sh play --resume"
        if self.db_path is not None:
            command = f"{command} --db {self.db_path}"
        return command if self.table_id is None else f"{command} --table {self.table_id}"

    async def run(self) -> int:
        """Play to the end; returns a process exit code (0 = finished, 1 = left (the game is saved),
        2 = nothing to resume or the table could not start)."""
        path = self.db_path or default_db_path()
        problem = folder_problem(self.images) if self.images is not None else None
        if problem is not None:  # a file, a folder that cannot be made or written: say it, start nothing
            self.out(self.t("term.bad_images", path=str(self.images), reason=problem))
            return 2
        if self.resume and not path.exists():  # nothing to resume: create no file (a mistyped --db)
            self.out(self.t("term.nothing_saved"))
            return 2
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            db = await open_store(path)  # the terminal keeps its own SQLite file
        except StoreRefused as err:  # a file of a newer Speakeasy, a damaged file: its one line says which
            self.out(self.t("term.bad_db", path=str(path), reason=str(err)))
            return 2
        except (OSError, sqlite3.Error) as err:  # a folder, a file that is not a database, no rights
            # the system's words without "[Errno 17] ... : path"; "Not a directory" before "File exists"
            reason = (folder_problem(path.parent) or os_reason(err)) if isinstance(err, OSError) else str(err)
            self.out(self.t("term.bad_db", path=str(path), reason=reason))
            return 2
        seed = self.seed
        service = House(db, notifier=self.notifier, ai_delay=self.pace,
                        seed_source=(lambda: seed) if seed is not None else None)
        if threading.current_thread() is threading.main_thread():
            # Ctrl-C must interrupt input() at once (asyncio.run defers SIGINT otherwise)
            signal.signal(signal.SIGINT, signal.default_int_handler)
        marker: Path | None = None
        table: TableSnapshot | None = None
        try:
            table = await (self._resume(service) if self.resume else self.open_table(service))
            if table is None:
                return 2
            marker = self._mark(path, table.id)
            return await self._play(service, table)
        except Leave:  # the game is saved: leaving is not a failure
            finished = None if table is None else await self._ended_meanwhile(service, table.id)
            if finished is not None:  # another window ended it: nothing is left to save
                if not self.notifier.finished:
                    self._finished_elsewhere(finished)
                return 0
            self.out(self.t("term.bye", command=self.resume_command))
            return 0
        except ServiceError as err:
            self.out(compose.refusal(err, self.t))
            return 2
        finally:
            if marker is not None:
                self._unmark(marker)
            await service.tables.close()
            await db.close()

    @staticmethod
    async def _ended_meanwhile(service: House, table_id: int) -> TableSnapshot | None:
        """The table when it is no longer running (finished or closed, e.g. in another window)
        as the player leaves; ``None`` while it runs (or cannot be read: then it is saved)."""
        try:  # from the file, not the service's cache: the other window wrote it
            table = await service.hall.stored(table_id)
        except (ServiceError, OSError, ValueError, sqlite3.Error):
            return None
        return table if table.row.status != "running" and table.state is not None else None

    def _mark(self, path: Path, table_id: int) -> Path | None:
        """Say so when another terminal has this table open (:func:`open_elsewhere`: a warning,
        both may play on), then note this process as the one that has it open (and forget the
        other tables' markers left by processes that ended without removing theirs: killed)."""
        sweep_markers(path)
        marker = marker_path(path, table_id)
        if open_elsewhere(marker):
            self.out(self.t("term.open_elsewhere"))
        partial = marker.with_name(f"{marker.name}.{os.getpid()}.tmp")
        try:  # written whole, then put in place: a reader never sees it empty
            partial.write_text(str(os.getpid()), encoding="ascii")
            os.replace(partial, marker)
        except OSError:
            with contextlib.suppress(OSError):
                partial.unlink()
            return None
        return marker

    @staticmethod
    def _unmark(marker: Path) -> None:
        """Remove ``marker`` when it still names this process."""
        try:
            if marker.read_text(encoding="ascii").strip() == str(os.getpid()):
                marker.unlink()
        except OSError:
            pass

    async def _saved(self, db: Store, any_game: bool = False) -> TableRow | None:
        """The last unfinished terminal table of the file (of ``self.game`` when set, unless
        ``any_game``); with :attr:`table_id`, that table when it is one of them."""
        rows = [r for r in await db.tables_with_status("running")
                if r.guild_id == 0 and r.host_user_id == HUMAN_ID
                and (any_game or self.game is None or r.game == self.game)
                and (self.table_id is None or r.id == self.table_id)]
        return max(rows, key=lambda r: (r.updated_at, r.id), default=None)

    async def open_table(self, service: House) -> TableSnapshot:
        """Open and start a new table of the chosen game (the player in seat 0, AI players at
        their levels in the others; watching: AI players in every seat), says so, and starts it;
        returns it."""
        t = self.t
        assert self.game is not None
        saved = await self._saved(service.hall.db)
        table = await service.lobbies.open(guild_id=0, channel_id=0, game=self.game, host_user_id=HUMAN_ID,
                                           host_name=t("term.you"), lang=t.lang, options=self.options,
                                           seated=not self.watch)
        for i in range(self.players - (0 if self.watch else 1)):
            level = self.ai_levels[i] if i < len(self.ai_levels) else "normal"
            await service.lobbies.add_ai(table.id, HUMAN_ID, t("lobby.ai_name"), level=level)
        welcome = "term.watch_welcome" if self.watch else "term.welcome"
        self.out(t(welcome, game=compose.game_title(self.game, t), players=self.players, key=self.game))
        if saved is not None:
            self.out(t("term.saved_other", game=compose.game_title(saved.game, t), id=saved.id,
                       command=f"{self.resume_command} --table {saved.id}"))
        self.notifier.table_id = table.id
        return await service.lobbies.start(table.id, HUMAN_ID)

    async def _resume(self, service: House) -> TableSnapshot | None:
        t = self.t
        saved = await self._saved(service.hall.db)
        if saved is None and self.table_id is not None:
            self.out(t("term.no_such_table", id=self.table_id))
            return None
        if saved is None:
            other = await self._saved(service.hall.db, any_game=True) if self.game is not None else None
            if other is not None and self.game is not None:  # another game is saved: say how to go on
                self.out(t("term.nothing_saved_game", game=compose.game_title(self.game, t),
                           other=compose.game_title(other.game, t), command=self.resume_command))
            else:
                self.out(t("term.nothing_saved"))
            return None
        if self.lang is None and saved.lang in LANGS and saved.lang != t.lang:  # shown as it was started
            t = self.t = self.notifier.t = TerminalTranslator(saved.lang)
        self.notifier.table_id = saved.id
        self.game = saved.game
        await service.tables.resume()
        table = await service.hall.table(saved.id)
        self.notifier.before = table.game.view(table.state, None)
        if not any(s.user_id == HUMAN_ID for s in table.seats):  # a watched table: watched again
            self.watch, self.notifier.seat = True, None
        kept = self._not_applied(table)
        self.players = len(table.seats)
        self.out(t("term.resumed", game=compose.game_title(saved.game, t), id=saved.id))
        if kept:
            self.out(t("term.resume_keeps", flags=", ".join(kept), players=self.players))
        return table

    def _not_applied(self, table: TableSnapshot) -> list[str]:
        """The options of a new game given with ``--resume`` that the resumed ``table`` does not
        take, as typed (``--players 4``, ``--seed 7``, ``--ai strong``, ``--option K=V``,
        ``--deck``): its seats, seed, AI levels and options stay as stored. An option equal to the
        table's own is not listed."""
        out = []
        if self.players and self.players != len(table.seats):
            out.append(f"--players {self.players}")
        if self.seed is not None and self.seed != getattr(table.state, "seed", None):
            out.append(f"--seed {self.seed}")
        levels = [s.level for s in table.seats if s.is_ai]
        if self.ai_levels and self.ai_levels != levels and not (len(self.ai_levels) == 1 and set(levels) == set(self.ai_levels)):
            out.append("--ai " + ",".join(self.ai_levels))
        stored = table.row.options or {}
        for key, value in self.options.items():
            if key != "deck" and stored.get(key) != value:
                out.append("--deck" if key == "deck_data" else f"--option {key}={value}")
        return out

    async def _play(self, service: House, table: TableSnapshot) -> int:
        t = self.t
        stuck = 0
        while True:
            await service.tables.idle()
            table = self._shown(await service.hall.table(table.id))
            if table.row.status != "running":
                if table.row.status == "finished" and not self.notifier.finished:
                    self._finished_elsewhere(table)
                return 0 if table.row.status == "finished" else 1
            if self.watch or 0 not in table.to_act() or 0 in table.pending:
                # AI seats must act: make sure their driver runs (bounded: never hang)
                stuck += 1
                if stuck > 3:
                    self.out(t("err.internal"))
                    return 1
                service.tables.nudge(table.id)
                await asyncio.sleep(0)
                continue
            stuck = 0
            legal = list(table.legal_codes(0))
            if len(legal) == 1:  # a forced choice: say it, do not ask
                self.out(t("term.forced", choice=plain(self._label(table, legal[0]))))
                await self._submit(service, table.id, legal)
                continue
            self.out("")
            if self.notifier.public_news:  # the board once per change, without the unchanged blocks
                self.board = compose.board(table, [], t).card
                self.out(self._once(compact_block(self.board, self.on_screen, self.t.lang,
                                                 note=self._unchanged(table, self.board)), self.board))
                self.on_screen = {(f.name, f.value) for f in self.board.fields}
                self.notifier.public_news = False
                self.panel_seen = set()  # things happened since the last panel: it is shown whole
            self._table = table
            codes = self.hooks(table.row.game).turn(self, table.game.view(table.state, 0), legal)
            if codes is None:
                if self._confirm_leave():
                    raise Leave
                self.panel_seen = set()  # staying: the panel comes back whole
                continue
            await self._submit(service, table.id, codes)

    def _finished_elsewhere(self, table: TableSnapshot) -> None:
        """The end of a game finished in another window (this one saw no last step): the whole
        board as it stands, then the final standings, as a game finished here shows them."""
        outcome = table.game.outcome(table.state) if table.state is not None else None
        if outcome is None:
            return
        self.board = compose.board(table, [], self.t).card
        self.out(compact_block(self.board, lang=self.t.lang))
        self.notifier.standings(table, outcome)

    def _unchanged(self, table: TableSnapshot, board: Block) -> str:
        """The line under a board printed without its unchanged blocks, naming them ("AI 1:
        unchanged (b shows the whole board)"); empty when every block is printed."""
        left_out = [f for f in board.fields if (f.name, f.value) in self.on_screen]
        if not left_out:
            return ""
        names = [plain(n) for n in compose.context(table, self.t, None).names]
        return self.t("term.unchanged", blocks=", ".join(block_names(left_out, names)))

    async def _submit(self, service: House, table_id: int, codes: list[str]) -> None:
        """Submit ``codes`` in order (each at the table's current version); on an error, say it
        (the loop shows the panel again)."""
        for code in codes:
            table = await service.hall.table(table_id)
            try:
                await service.tables.submit(table_id, HUMAN_ID, table.version, code)
            except ServiceError as exc:
                self.out(compose.refusal(exc, self.t))
                if exc.key == "err.stale":  # moved in another window: show where it stands now, whole
                    self.notifier.public_news = True
                    self.on_screen = set()
                break
        if self.game is not None:
            self.hooks(self.game).submitted()

    def _label(self, table: TableSnapshot, code: str) -> str:
        ctx = compose.context(table, self.t, 0)
        return GAMES[table.row.game].presenter.action_label(code, table.game.view(table.state, 0), ctx)

    # ------------------------------------------------------------------ input
    def read(self, prompt: str, listing: Callable[[], None] | None = None, back: bool = False) -> str | None:
        """A stripped answer; ``None`` on Ctrl-C or Ctrl-D. ``b`` prints the whole board, then the
        player's own blocks of the panel being asked (its hand, tiles or dice) and the list the
        prompt refers to (``listing`` prints it: the numbered choices, the dice by position),
        and asks again; ``?`` (``help``, ``aide``) prints the keys (``back``: a sub-question,
        where ``q`` goes back) and the rules command, and asks again."""
        while True:
            try:
                raw = self.ask(prompt).strip()
            except (EOFError, KeyboardInterrupt):
                self.out("")
                return None
            if raw.lower() in ("b", "board", "plateau") and self.board is not None:
                self.out(compact_block(self.board, lang=self.t.lang))
                if self._table is not None:  # the turn being asked: the player's own blocks
                    panel = compose.panel(self._table, 0, self.t).card
                    self.out(compact_block(panel, {(f.name, f.value) for f in self.board.fields}, self.t.lang))
                if listing is not None:
                    listing()
                continue
            if raw.lower() in ("?", "help", "aide") and self._table is not None:
                self.out(self.t("term.help_back", key=self._table.row.game) if back
                         else self.t("term.help", command=self.resume_command, key=self._table.row.game))
                continue
            return raw

    def _yes_no(self, prompt: str, yes: Sequence[str], interrupted: bool, no: Sequence[str] = _NO) -> bool:
        """A yes/no question: ``True`` for an answer in ``yes``, ``False`` for one in ``no``,
        ``interrupted`` on Ctrl-C or Ctrl-D; any other answer says "answer y or n" and asks again."""
        while True:
            raw = self.read(prompt, back=True)  # (q is no: back to the question before)
            if raw is None:
                return interrupted
            if raw.lower() in yes:
                return True
            if raw.lower() in no:
                return False
            self.out(self.t("term.yes_no"))

    def yes(self, prompt: str) -> bool:
        """A yes/no question: yes for ``y``/``yes`` (``o``/``oui``), no for ``n``/``no``/``non`` and
        for ``q`` (a sub-question's way back); Ctrl-C/Ctrl-D = no; any other answer asks again."""
        return self._yes_no(prompt, _YES, interrupted=False, no=_NO + QUIT)

    def _confirm_leave(self) -> bool:
        """Ask before leaving. Yes (or ``q`` again), or end of input / Ctrl-C again, leaves (the
        game is saved); no stays; any other answer asks again."""
        return self._yes_no(self.t("term.leave", command=self.resume_command), _YES + QUIT, interrupted=True)

    def count(self, prompt: str, lo: int, hi: int) -> int | None:
        """A typed count in ``[lo, hi]``, asked until valid; ``None`` when the player wants to leave."""
        while True:
            raw = self.read(prompt)
            if raw is None or raw.lower() in QUIT:
                return None
            n = parse_int(raw)
            if n is not None and lo <= n <= hi:
                return n
            self.out(self.t("err.bad_number", min=lo, max=hi))

    def menu(self) -> str | None:
        """The panel of the turn being asked as a numbered menu (:meth:`_choose`): the chosen
        code, ``None`` when the player wants to leave."""
        assert self._table is not None
        return self._choose(self._table)

    def _choose(self, table: TableSnapshot) -> str | None:
        """Show the panel (without the blocks the board shows) and ask until a valid choice;
        ``None`` when the player wants to leave."""
        t = self.t
        panel = compose.panel(table, 0, t)
        self.out(self._once(compact_block(panel.card, self.on_screen | self.panel_seen, self.t.lang), panel.card))
        self.panel_seen = {(f.name, f.value) for f in panel.card.fields}
        choices = keyed(table.row.game, menu(panel))
        live = [c for c in choices if not c.disabled]
        if len(live) == 1 and live[0].code is None:  # one entry, a sub-question: go straight to it
            self.out(t("term.taken", choice=plain(live[0].label)))
            code = self.ask_component(live[0].component, alone=True)
            return None if code is None or code is BACK else str(code)
        by_key = {c.key.lower(): c for c in choices}
        numbered = all(c.key == str(i) for i, c in enumerate(choices, start=1))
        prompt = (t("term.prompt_one" if len(choices) == 1 else "term.prompt", n=len(choices)) if numbered
                  else t("term.prompt_keys", keys=", ".join(c.key for c in choices)))
        self._show(choices)
        while True:
            raw = self.read(prompt, lambda: self._show(choices))
            if raw is None or raw.lower() in QUIT:
                return None
            choice = by_key.get(raw.lower())
            if choice is None:
                self.out(t("term.bad_choice_one" if len(choices) == 1 else "term.bad_choice", n=len(choices))
                         if numbered
                         else t("term.bad_key", keys=", ".join(c.key for c in choices)))
                continue
            if choice.disabled:
                self.out(t("term.disabled"))
                continue
            if choice.code is not None:
                if choice.confirm and not self.yes(self._confirm_text(table.row.game, choice)):
                    continue
                return choice.code
            code = self.ask_component(choice.component)
            if code is None:
                return None
            if code is not BACK:
                return str(code)
            self._show(choices)

    def _confirm_text(self, game: str, choice: Choice) -> str:
        """The question before a risky choice: the game's own (``term.confirm.<game>.<code>``,
        which says what is at stake) or a plain "Sure?"."""
        key = f"term.confirm.{game}.{choice.code}"
        return self.t(key if self.t.has(key) else "term.confirm", choice=plain(choice.label))

    def _once(self, text: str, card: Block) -> str:
        """``text`` (``card`` printed) without its footer when that footer was printed before:
        a footer that does not change (Moonshine's notation legend, Shop Battle's deck) is
        printed once; ``b`` prints the board's again."""
        if not card.footer:
            return text
        footer = f"({plain(card.footer)})"
        if footer in self.footers:
            return text.removesuffix("\n" + footer)
        self.footers.add(footer)
        return text

    def _show(self, choices: list[Choice]) -> None:
        group = None
        width = max((len(c.key) for c in choices), default=1)
        for c in choices:
            if c.group != group:
                group = c.group
                if group:
                    self.out(f"  {plain(group)}")
            indent = "    " if c.group else "  "
            self.out(f"{indent}{c.key.rjust(width)}) {plain(c.label)}" + (f"  ({self.t('term.not_now')})" if c.disabled else ""))

    def ask_component(self, comp: Any, alone: bool = False) -> Any:
        """Ask the details of a multi-select or a number prompt: a code, ``BACK`` (``q``) or
        ``None`` (Ctrl-C / Ctrl-D: the player wants to leave). ``alone``: the menu had no other
        entry, so ``q`` quits (``BACK`` too) instead of going back. A question with a single
        answer (every option to take, a number from n to n) is not asked: the answer is taken,
        with a line."""
        t = self.t
        q = t("term.q_quit" if alone else "term.q_back")
        if isinstance(comp, Select):
            if comp.min_values >= len(comp.options) and comp.options:  # one way: take them all
                self.out(t("term.taken", choice=", ".join(plain(o.label) for o in comp.options)))
                return comp.code_for([o.value for o in comp.options])
            def options() -> None:
                for i, o in enumerate(comp.options, start=1):
                    self.out(f"    {i}) {plain(o.label)}")

            options()
            ask = (t("term.multi_n", n=comp.min_values, q=q) if comp.min_values == comp.max_values
                   else t("term.multi", min=comp.min_values, max=comp.max_values, q=q))
            while True:
                raw = self.read(ask, options, back=not alone)
                if raw is None:
                    return None
                if raw.lower() in QUIT:
                    return BACK
                picks = parse_positions(raw, len(comp.options))
                if picks is not None and comp.min_values <= len(picks) <= comp.max_values:
                    return comp.code_for([comp.options[p].value for p in picks])
                self.out(t("term.bad_multi_n", n=comp.min_values, options=len(comp.options))
                         if comp.min_values == comp.max_values
                         else t("term.bad_multi", min=comp.min_values, max=comp.max_values, n=len(comp.options)))
        prompt: NumberPrompt = comp
        if prompt.minimum == prompt.maximum:  # one number: take it
            self.out(t("term.taken", choice=f"{plain(prompt.label)} {prompt.minimum}"))
            return prompt.template.format(n=prompt.minimum)
        while True:
            raw = self.read(t("term.number", label=prompt.label, q=q), back=not alone)
            if raw is None:
                return None
            if raw.lower() in QUIT:
                return BACK
            n = parse_int(raw)
            if n is not None and prompt.minimum <= n <= prompt.maximum:
                return prompt.template.format(n=n)
            self.out(t("err.bad_number", min=prompt.minimum, max=prompt.maximum))


__all__ = ["DEFAULT_PACE", "Choice", "TerminalGame", "TerminalNotifier", "TerminalTranslator", "block_text",
           "compact_block", "default_db_path", "log_path", "marker_path", "open_elsewhere", "sweep_markers", "display_seats", "list_lines", "keyed", "menu", "parse_int", "parse_positions",
           "plain", "block_names", "hooks_of", "value_key"]
