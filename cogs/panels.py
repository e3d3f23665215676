"""The private panel as a Discord message: its text fields, its picture, and how a click on it is
answered (the panel counterpart of :class:`cogs.pictures.BoardPictures`).

A click on a panel is answered at once - the new text and buttons beside the picture the panel
already carries, or as text when it carries none - and only then is the new picture's key
computed and, when it changed, the picture drawn (off the event loop, :mod:`bot.render.workers`)
and sent in a second edit; a later click of the same member at the same table drops that edit
(its own answer is newer). A new panel (a click on a public message) is the original response
of the click's "thinking" defer, and waits for its picture. Without the Attach Files permission, with ``PICTURES=off`` or when the picture cannot
be drawn, the text panel is shown.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any

import discord

from bot.client import answer as send_answer
from bot.service import TableSnapshot
from bot.timers import Timers
from bot.ui import Panel
from cogs import pictures
from cogs.components import panel_components
from cogs.layout import card_message
from storage.base import TimerRow

log = logging.getLogger(__name__)

#: What :meth:`PanelMessages.start` returns: the drawing (``None``: no picture) and the panel
#: attachment the clicked message carries.
Drawing = tuple[pictures.PanelDrawing | None, list[discord.Attachment]]


def panel_fields(panel: Panel, table: TableSnapshot, picture: pictures.Picture | None = None) -> dict[str, Any]:
    """The message fields of a panel (V2, a stopped layout: see :func:`cogs.layout.layout`): its
    notice above one container holding its card and its rows. With ``picture``, the card's short
    text (title and description: the picture shows the rest) below the picture (its file is the
    caller's to attach)."""
    rows = panel_components(panel, table.id, table.version) if panel.rows else ()
    if picture is None:
        return card_message(panel.card, notice=panel.notice, rows=rows, stop=True)
    short = pictures.short_card(panel.card, set(), headline_only=False)
    return card_message(short, notice=panel.notice, picture=picture.url, alt=panel.card.title, rows=rows, stop=True)


#: The kind of the timers that delete a private flash message (key ``flash:<message id>:<table
#: id>``: the table's id last, so that the timer follows the table's shard).
FLASH = "flash"


def flash_key(message_id: int, table_id: int) -> str:
    """The timer key that deletes the flash message ``message_id`` of table ``table_id``."""
    return f"{FLASH}:{message_id}:{table_id}"


async def delete_later(timers: Timers, interaction: discord.Interaction, message: discord.Message,
                       table_id: int, seconds: float) -> None:
    """Delete the private ``message`` (a follow-up of ``interaction``) in ``seconds``, through a
    persisted timer (``timers``, :class:`bot.timers.Timers`), so that a restart in between does not leave
    it shown: the timer keeps the interaction's webhook (its token is valid 15 minutes, longer
    than any flash) and :func:`flash_deleter` deletes the message with it."""
    payload = {"application_id": str(interaction.application_id), "token": interaction.token,
               "message_id": str(message.id)}
    await timers.schedule(flash_key(message.id, table_id), timers.clock.now() + seconds, payload)


def flash_deleter(client: discord.Client) -> Callable[[TimerRow], Awaitable[None]]:
    """The handler of the :data:`FLASH` timers: delete the message through the interaction's
    webhook; a message already gone or a token expired during a long downtime is only logged."""

    async def due(row: TimerRow) -> None:
        p = row.payload
        try:
            webhook = discord.Webhook.partial(int(p["application_id"]), str(p["token"]), client=client)
            await webhook.delete_message(int(p["message_id"]))
        except (discord.HTTPException, KeyError, ValueError):
            log.info("could not delete the flash message of timer %s", row.key, exc_info=True)

    return due


async def redraw(interaction: discord.Interaction, fields: dict[str, Any]) -> None:
    """Redraw the clicked panel with ``fields`` (:func:`panel_fields`, ``attachments``): as the
    answer to the click (one call), or by editing it once deferred."""
    if interaction.response.is_done():
        await interaction.edit_original_response(**fields)
    else:
        await interaction.response.edit_message(**fields)


class PanelMessages:
    """Panel pictures and answers for one game cog. ``enabled`` reads the ``PICTURES`` setting
    (called at each use); ``quiet`` (:meth:`bot.foreground.Foreground.quiet`) is awaited before
    the work that follows an answer (the new picture's key, drawing and edit), whose task
    ``later`` (:meth:`bot.foreground.Foreground.later`) starts once the answers being built
    are sent (at once without it)."""

    def __init__(self, enabled: Callable[[], bool], quiet: Callable[[], Awaitable[None]] | None = None,
                 later: Callable[[Callable[[], object]], None] | None = None,
                 allowed: Callable[[int], bool] = lambda _guild: True) -> None:
        self.enabled = enabled
        self.allowed = allowed  # a server's own pictures setting (/settings), by guild id
        self.quiet = quiet
        self.later = later
        #: (table id, user id) -> the token of the panel picture edit still to come
        self._edits: dict[tuple[int, int], object] = {}
        self._tasks: set[asyncio.Task[None]] = set()

    def sizes(self) -> dict[str, int]:
        """Entries held now: panel picture ``edits`` to come and their ``tasks``."""
        return {"edits": len(self._edits), "tasks": len(self._tasks)}

    def start(self, interaction: discord.Interaction, table: TableSnapshot, seat: int, *, edit: bool) -> Drawing:
        """The panel's picture, not drawn yet (:class:`cogs.pictures.PanelDrawing`: its key is
        computed and its drawing submitted off the event loop at its first use, so a click on a
        panel is answered before any of it). ``edit``: for an edit of the clicked panel, whose
        attachment is kept when the picture did not change. No drawing when pictures are off or
        the bot may not attach files here."""
        if not self.enabled() or not self.allowed(table.row.guild_id):
            return None, []
        perms = getattr(interaction, "app_permissions", None)
        current = [a for a in (interaction.message.attachments if edit and interaction.message else [])
                   if a.filename.startswith("panel-")]
        if perms is not None and not perms.attach_files:
            log.warning("no Attach Files permission for the panels of table %s; showing text panels", table.id)
            return None, current

        known = current[0].filename if current else None
        return pictures.start_panel_picture(table, seat, lambda: table.legal_codes(seat), known, begin=False), current

    async def with_picture(self, panel: Panel, table: TableSnapshot, drawing: Drawing, *,
                           edit: bool) -> dict[str, Any]:
        """The fields of ``panel`` (:func:`panel_fields`) with its picture once drawn, and its file
        (``edit``: for an edit of the clicked panel, where an unchanged picture keeps its
        attachment). The text panel when there is no picture (on an edit, with no attachment
        left)."""
        fields = panel_fields(panel, table)
        if not self.enabled():
            return fields
        started, current = drawing
        picture = await started if started is not None else None
        if picture is None:
            return {**fields, "attachments": []} if edit else fields
        shown = panel_fields(panel, table, picture)
        if picture.png is None:
            return {**shown, "attachments": current[:1]}
        return {**shown, **({"attachments": [picture.file()]} if edit else {"file": picture.file()})}

    async def answer(self, interaction: discord.Interaction, table: TableSnapshot, panel: Panel,
                     drawing: Drawing, *, in_panel: bool) -> None:
        """Answer a click with the redrawn panel: in place (``in_panel``) or as a new private
        message (the original response of the click's "thinking" defer). A clicked panel is
        answered at once, beside the picture it carries or as text; then the new picture's key
        is computed and, when it changed, the new picture follows in a second edit. A new panel
        waits for its picture. A refused upload shows the text panel."""
        self._edits.pop((table.id, interaction.user.id), None)  # an older picture edit is dropped
        started, current = drawing
        if in_panel and started is not None:  # the full card only if the picture fails
            await self._answer_then_picture(interaction, table, panel, started, current)
            return
        shown = await self.with_picture(panel, table, drawing, edit=in_panel)
        try:
            if in_panel:
                await redraw(interaction, shown)
            else:  # a click on a public message: answer privately
                await send_answer(interaction, **shown)
        except discord.Forbidden:
            if "file" not in shown and not any(isinstance(a, discord.File) for a in shown.get("attachments", ())):
                raise
            log.warning("panel picture of table %s refused; showing the text panel", table.id)
            text = panel_fields(panel, table)
            if in_panel:
                await redraw(interaction, {**text, "attachments": []})
            else:
                await send_answer(interaction, **text)

    async def _answer_then_picture(self, interaction: discord.Interaction, table: TableSnapshot, panel: Panel,
                                   started: pictures.PanelDrawing, current: list[discord.Attachment]) -> None:
        if current:  # beside the picture the panel carries
            old = pictures.Picture(None, "", current[0].filename)
            await redraw(interaction, {**panel_fields(panel, table, old), "attachments": current[:1]})
        else:  # a text panel (its last picture failed, or pictures were off): the text first
            await redraw(interaction, panel_fields(panel, table))
        key = (table.id, interaction.user.id)
        token = object()
        self._edits[key] = token

        async def then() -> None:
            if self.quiet is not None:
                await self.quiet()  # other members' answers first (bot.foreground)
            if not started.drawing:  # the panel already carries this picture: nothing to add
                if self._edits.get(key) is token:
                    del self._edits[key]
                return
            picture = await started
            if self._edits.get(key) is not token:
                return
            del self._edits[key]
            try:
                if picture is None or picture.png is None:
                    if not current:  # a text panel with no picture again: it shows the text already
                        return
                    await interaction.edit_original_response(**panel_fields(panel, table), attachments=[])
                else:
                    await interaction.edit_original_response(**panel_fields(panel, table, picture),
                                                             attachments=[picture.file()])
            except discord.HTTPException:  # the panel is answered; only its picture is missing
                log.warning("could not add the new picture to a panel of table %s", table.id, exc_info=True)

        def begin() -> None:
            task = asyncio.create_task(then())
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

        if self.later is not None:
            self.later(begin)
        else:
            begin()
