"""What every cog's answers share: the language of a table's public messages, the Manage Server
check, and the answer to a damaged component."""

from __future__ import annotations

import discord

from bot.client import report_error
from bot.i18n import pick_lang
from bot.service import ServiceError

__all__ = ["guild_lang", "is_admin", "report_click_error"]


def guild_lang(interaction: discord.Interaction) -> str:
    """Language of public table messages: the guild's locale, then the user's."""
    return pick_lang(str(interaction.guild_locale or ""), str(interaction.locale))


def is_admin(interaction: discord.Interaction) -> bool:
    """Manage Server (or Administrator) in this channel."""
    perms = getattr(interaction, "permissions", None)
    return bool(perms and (perms.manage_guild or perms.administrator))


async def report_click_error(interaction: discord.Interaction, error: BaseException) -> None:
    """Like :func:`bot.client.report_error`, for components: a malformed value (``ValueError``,
    ``IndexError`` while reading it) is answered as a damaged button."""
    if isinstance(error, (ValueError, IndexError)):
        error = ServiceError("err.bad_button")
    await report_error(interaction, error)
