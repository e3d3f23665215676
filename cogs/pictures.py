"""Pictures on Discord messages: the board's and the panels' PNG files (:mod:`bot.render`), with
the text fallback.

- :func:`board_picture` / :func:`panel_picture` (:func:`start_panel_picture`) draw (off the event loop, cached) the picture of
  a table's public view / of one seat's view and legal codes, and return a :class:`Picture`, or
  ``None`` when pictures are off (``PICTURES=off``), the bot may not attach files where the
  message goes, or rendering failed: the caller then shows the text board. A failure is logged
  with the table id and the exception's type only (a message could quote a private view).
- The :attr:`Picture.key` (:func:`bot.render.picture_key`, a hash of the view, names, language
  and legal codes) decides whether a new file is uploaded: a message whose picture has the same
  key keeps its attachment and only its text is edited.
- Display names reach the renderers raw (unescaped): a picture has no markdown.

The public board picture is drawn from ``game.view_json(state, None)`` only, so it cannot show
hidden information; a panel picture from that seat's own view.
"""

from __future__ import annotations

import asyncio
import io
import logging
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import discord

from bot import compose, render
from bot.i18n import Translator
from bot.render.workers import Drawer
from bot.service import TableSnapshot
from bot.ui import Block, Board
from cogs.layout import Rows, card_message

log = logging.getLogger(__name__)

BOARD_FILE = "board.png"


@dataclass(frozen=True)
class Picture:
    """A drawn picture: its PNG bytes, its key, the file name to upload it under and a short
    description (the attachment's alt text, for screen readers)."""

    png: bytes | None
    key: str
    filename: str
    alt: str = ""

    def file(self) -> discord.File:
        """A new upload of the picture (``ValueError`` when its bytes were not drawn)."""
        if self.png is None:
            raise ValueError("picture not drawn")
        return discord.File(io.BytesIO(self.png), filename=self.filename, description=self.alt[:1000] or None)

    @property
    def url(self) -> str:
        """What an embed's image points at: ``attachment://<filename>``."""
        return f"attachment://{self.filename}"


def panel_filename(key: str) -> str:
    """A panel picture's file name: it carries the key, so an ephemeral panel edited in place
    knows from its own attachment whether its picture changed."""
    return f"panel-{key[:20]}.png"


def can_attach(place: Any, me: Any = None) -> bool:
    """Whether the bot may attach files in ``place`` (a channel or thread) as far as the cache
    knows; ``True`` when it cannot tell (a partial channel: Discord's answer decides)."""
    perms_for = getattr(place, "permissions_for", None)
    guild = getattr(place, "guild", None)
    member = me if me is not None else getattr(guild, "me", None)
    if perms_for is None or member is None:
        return True
    try:
        return bool(perms_for(member).attach_files)
    except Exception:  # an incomplete cache: let Discord decide
        return True


def raw_names(table: TableSnapshot) -> tuple[str, ...]:
    """Display names in seat order, unescaped (pictures have no markdown); an AI player's name
    carries its level in the table's language ("AI 1 (strong)")."""
    return compose.picture_names(table, Translator(table.row.lang))


#: (table id, "board" or "panel") whose drawing failure was already logged as an error
_FAILED: set[tuple[int, str]] = set()

#: Where pictures are drawn (``RENDER_WORKERS`` processes, or a thread); the bot configures,
#: starts and closes it (:class:`bot.client.SpeakeasyBot`).
DRAWER = Drawer()


def _submit(draw: Any, *args: Any) -> asyncio.Future[bytes | None]:
    """Start ``draw(*args)`` off the event loop now (not at the caller's next ``await``)."""
    fut: asyncio.Future[bytes | None] = DRAWER.submit(draw, *args)  # type: ignore[assignment]
    return fut


async def _drawn(what: str, table: TableSnapshot, drawing: asyncio.Future[bytes | None]) -> bytes | None:
    """The bytes ``drawing`` (:func:`_submit`) gives; ``None`` on failure (an exception, or no
    bytes), logged as an error once per table and kind (then at debug level), without the
    exception's message: it could quote a private view."""
    try:
        png = await drawing
        problem = "" if png else "no picture"
    except Exception as exc:
        png, problem = None, type(exc).__name__
    if problem:
        first = (table.id, what) not in _FAILED
        _FAILED.add((table.id, what))
        log.log(logging.ERROR if first else logging.DEBUG,
                "drawing the %s of table %s (%s) failed: %s; showing the text instead",
                what, table.id, table.row.game, problem)
        return None
    return png


async def _draw(what: str, table: TableSnapshot, draw: Any, *args: Any) -> bytes | None:
    """``draw(*args)`` in a worker thread; ``None`` on failure (see :func:`_drawn`)."""
    return await _drawn(what, table, _submit(draw, *args))


async def board_picture(table: TableSnapshot, known_key: str | None = None) -> Picture | None:
    """The public board picture of ``table`` (``None`` when it cannot be drawn). When its key
    equals ``known_key`` (the picture the message already carries), nothing is drawn and the
    picture has no bytes: the caller keeps the attachment it has."""
    if table.state is None or not render.draws(table.row.game):
        return None
    game_key, lang, names = table.row.game, table.row.lang, raw_names(table)
    view = table.game.view_json(table.state, None)
    key = render.picture_key(game_key, "board", view, names, lang)
    if key == known_key:
        return Picture(None, key, BOARD_FILE)
    png = await _draw("board", table, render.render_board, game_key, view, names, lang)
    return Picture(png, key, BOARD_FILE) if png else None


async def panel_picture(table: TableSnapshot, seat: int, legal: tuple[str, ...],
                        known_filename: str | None = None) -> Picture | None:
    """The picture of ``seat``'s panel from its own view and ``legal`` codes (``None`` when it
    cannot be drawn); no bytes when ``known_filename`` is already this picture's file."""
    return await start_panel_picture(table, seat, legal, known_filename)


class PanelDrawing:
    """A panel picture to draw (:func:`start_panel_picture`): ``await`` it for the
    :class:`Picture` (``None`` when it could not be drawn). Created cheaply; the key is computed
    and the drawing submitted off the event loop by :meth:`begin` (at once with
    ``start_panel_picture(..., begin=True)``, else at the first use of :attr:`drawing` or
    ``await``), so that a click's answer can be sent before any of that work."""

    def __init__(self, table: TableSnapshot, seat: int, legal: Callable[[], tuple[str, ...]],
                 known_filename: str | None) -> None:
        self._args = (table, seat, legal, known_filename)
        self._begun = False
        self._drawing: asyncio.Future[bytes | None] | None = None
        self._picture: Picture | None = None
        self._key = self._filename = ""

    def begin(self) -> None:
        """Compute the picture's key and, when it is not the known file's, submit the drawing
        (idempotent; call from the event loop)."""
        if self._begun:
            return
        self._begun = True
        table, seat, legal, known_filename = self._args
        if table.state is None or not render.draws(table.row.game):
            return
        game_key, lang, names = table.row.game, table.row.lang, raw_names(table)
        view = table.game.view_json(table.state, seat)
        codes = legal()
        self._key = render.picture_key(game_key, "panel", view, names, lang, codes)
        self._filename = panel_filename(self._key)
        if self._filename == known_filename:
            self._picture = Picture(None, self._key, self._filename)
        else:
            self._drawing = _submit(render.render_panel, game_key, view, codes, names, lang)

    @property
    def drawing(self) -> bool:
        """False when nothing has to be drawn (the panel already carries this picture, or there
        is no state); begins the work (:meth:`begin`)."""
        self.begin()
        return self._drawing is not None

    async def _finish(self) -> Picture | None:
        self.begin()
        if self._drawing is None:
            return self._picture
        png = await _drawn("panel", self._args[0], self._drawing)
        return Picture(png, self._key, self._filename) if png else None

    def __await__(self) -> Any:
        return self._finish().__await__()

    def close(self) -> None:
        """Give up on the picture (a drawing already submitted still ends in the worker;
        nothing is logged)."""
        self._begun = True


def start_panel_picture(table: TableSnapshot, seat: int, legal: tuple[str, ...] | Callable[[], tuple[str, ...]],
                        known_filename: str | None = None, *, begin: bool = True) -> PanelDrawing:
    """:func:`panel_picture` as a :class:`PanelDrawing` (call it from the event loop): with
    ``begin``, its drawing starts at once off the event loop, and the caller builds the text of
    the panel meanwhile; without, nothing is computed until it is first used. ``legal``: the
    codes, or a function giving them (called once, at :meth:`PanelDrawing.begin`). Await the
    result (or close it: awaiting logs a failed drawing)."""
    codes = legal if callable(legal) else (lambda: legal)  # type: ignore[return-value]
    drawing = PanelDrawing(table, seat, codes, known_filename)
    if begin:
        drawing.begin()
    return drawing


def short_card(card: Block, keep_fields: set[str], headline_only: bool) -> Block:
    """The text that stays beside a picture: the card's title, its headline (the first line of
    its description, or all of it), the fields named in ``keep_fields``, the footer."""
    desc = card.description or ""
    if headline_only:
        desc = desc.split("\n", 1)[0]
    return replace(card, description=desc, fields=tuple(f for f in card.fields if f.name in keep_fields))


class BoardPictures:
    """What picture each table's board message carries, so that an unchanged picture is not
    uploaded again: table id -> (board message id, picture key, the attachment it carries).

    ``enabled`` reads the ``PICTURES`` setting (called at each use)."""

    def __init__(self, enabled: Callable[[], bool], allowed: Callable[[int], bool] = lambda _guild: True) -> None:
        self.enabled = enabled
        self.allowed = allowed  # a server's own pictures setting (/settings), by guild id
        self._known: dict[int, tuple[int, str, discord.Attachment]] = {}

    def sizes(self) -> dict[str, int]:
        """Entries held now: the boards whose picture is known (``pictures``)."""
        return {"pictures": len(self._known)}

    def shown(self, guild_id: int) -> bool:
        """Whether a server's boards show pictures: the bot's setting and the server's."""
        return self.enabled() and self.allowed(guild_id)

    async def picture(self, table: TableSnapshot, place: Any) -> Picture | None:
        """The board's picture, ``None`` for the text board (pictures off, no Attach Files in
        the table's channel, or rendering failed: logged)."""
        if not self.shown(table.row.guild_id):
            return None
        if not can_attach(place):
            log.warning("no Attach Files permission for table %s's board; showing the text board", table.id)
            return None
        known = self._known.get(table.id)
        same_message = known is not None and known[0] == table.row.board_message_id
        return await board_picture(table, known[1] if known and same_message else None)

    def content(self, table_id: int, board: Board, t: Translator, picture: Picture | None, *, new: bool,
                rows: Rows = (), log_file: discord.File | None = None) -> dict[str, Any]:
        """The fields of the board message (``new``: a message to post, else an edit), V2: one
        container with the picture, the short text beside it (the headline, who has chosen, the
        recent events; the kept attachment when the picture did not change), the finished
        table's game log (``log_file``) and the buttons (``rows``). Without a picture, the full
        text board (and, pictures being on, no picture attachment). The layout is a stopped
        view (:func:`cogs.layout.layout`): the board's buttons are dynamic items, which
        discord.py routes by custom_id alone, so nothing is stored per board message."""
        logs = [f"attachment://{log_file.filename}"] if log_file is not None else []
        kept: list[Any] = []
        uploads: list[discord.File] = []
        if picture is None:
            out = card_message(board.card, rows=rows, files=logs, stop=True)
            if new or not (self.enabled() or log_file is not None):
                return {**out, "files": [log_file]} if log_file is not None else out
        else:
            keep = {t("board.waiting"), t("board.log"), t("result.tie_field")}  # the picture has none of these
            out = card_message(short_card(board.card, keep, headline_only=True), picture=picture.url,
                               alt=board.card.title, rows=rows, files=logs, stop=True)
            if picture.png is None:  # unchanged: keep the attachment the message has
                kept = [self._known[table_id][2]]
            else:
                uploads = [replace(picture, alt=board.card.title).file()]
        if log_file is not None:
            uploads.append(log_file)
        if new:
            return {**out, "files": uploads} if uploads else out
        return {**out, "attachments": [*kept, *uploads]}

    def remember(self, table_id: int, msg: discord.Message, picture: Picture | None) -> None:
        """Remember which picture the board message now carries (none: forget)."""
        images = [a for a in msg.attachments if a.filename == BOARD_FILE]
        if picture is None or not images:
            self._known.pop(table_id, None)
        else:
            self._known[table_id] = (msg.id, picture.key, images[0])

    def forget(self, table_id: int) -> None:
        """The board message lost its picture (deleted, or the upload was refused)."""
        self._known.pop(table_id, None)
