"""Messages as Components V2 (``discord.ui.LayoutView``): every message the bot posts or edits.

A block of text (:class:`bot.ui.Block`) becomes one container: its picture first (a media
gallery, ``attachment://<file>``), its text displays (:func:`bot.ui.block_texts`: the title as a
heading with the description, the fields, the footer in small text), a file (a finished board's
game log), then its rows of buttons and selects. A short notice (a panel's "you chose…", a turn
ping's mentions) is a text display of its own above it.

A V2 message carries no ``content`` and no embeds: the message fields built here set both to
nothing, so that an edit also turns a message posted as an embed by an earlier version into a V2
one (Discord lets an edit set the ``IS_COMPONENTS_V2`` flag, never remove it, with the content
cleared and ``embeds`` an empty array). Limits (40 components, 4,000 characters of text) are
kept by construction: the text is cut to the budget left by the notice
(:func:`bot.ui.block_texts`) and the callers' rows are at most five.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import discord
from discord import ui

from bot.ui import V2_TEXT_TOTAL, Block, block_texts

Rows = Sequence[ui.ActionRow[Any]]


def container(card: Block, *, picture: str | None = None, alt: str | None = None, rows: Rows = (),
              files: Sequence[str] = (), budget: int = V2_TEXT_TOTAL) -> ui.Container[Any]:
    """``card`` as one container: ``picture`` (an ``attachment://`` URL, ``alt`` its description),
    its text (at most ``budget`` characters), the ``files`` (``attachment://`` URLs) and ``rows``."""
    box: ui.Container[Any] = ui.Container(accent_colour=card.color)
    if picture:
        box.add_item(ui.MediaGallery(discord.MediaGalleryItem(picture, description=(alt or None) and alt[:1024])))
    for text in block_texts(card, budget):
        box.add_item(ui.TextDisplay(text))
    for url in files:
        box.add_item(ui.File(url))
    if rows:
        box.add_item(ui.Separator(visible=False))
        for row in rows:
            box.add_item(row)
    return box


def layout(*items: ui.Item[Any], stop: bool = False) -> ui.LayoutView:
    """A V2 layout of ``items``; ``stop``: a stopped view, which discord.py sends but never stores
    (a private panel, whose clicks are routed by custom_id: see :mod:`cogs.components`)."""
    view = ui.LayoutView(timeout=None)
    for item in items:
        view.add_item(item)
    if stop:
        view.stop()
    return view


def fields(view: ui.LayoutView) -> dict[str, Any]:
    """The message fields of a V2 message showing ``view``: no content, no embed."""
    return {"view": view, "content": None, "embed": None}


def card_message(card: Block, *, notice: str = "", picture: str | None = None, alt: str | None = None,
                 rows: Rows = (), files: Sequence[str] = (), stop: bool = False) -> dict[str, Any]:
    """The fields of a message showing ``card`` (see :func:`container`), ``notice`` above it."""
    notice = notice[: V2_TEXT_TOTAL // 2]
    box = container(card, picture=picture, alt=alt, rows=rows, files=files, budget=V2_TEXT_TOTAL - len(notice))
    items: list[ui.Item[Any]] = [ui.TextDisplay(notice)] if notice else []
    return fields(layout(*items, box, stop=stop))


def text_message(text: str, rows: Rows = ()) -> dict[str, Any]:
    """The fields of a message of plain ``text`` (at most 4,000 characters), then ``rows``."""
    return fields(layout(ui.TextDisplay(text[:V2_TEXT_TOTAL] or "…"), *rows))


def button_rows(items: Sequence[ui.Item[Any]], per_row: int = 5) -> list[ui.ActionRow[Any]]:
    """``items`` (buttons) in action rows of ``per_row``."""
    return [ui.ActionRow(*items[i:i + per_row]) for i in range(0, len(items), per_row)]
