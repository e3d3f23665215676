"""Shop Battle's cog (named by its spec, :attr:`bot.games.GameSpec.cog`): its lobbies and tables,
and ``/deck upload|list|remove``, a server's own Shop Battle decks (Manage Server only).

Rules: ``docs/rules/shop-battle.md``. The deck JSON format is documented in the README (example:
``docs/decks/example-deck.json``) and validated by :func:`engine.shop_battle.deck.parse_deck`:
every problem is answered (card, field, why) and nothing is stored unless the whole deck is
valid. The guild's decks are offered in the lobby's deck select.
"""

from __future__ import annotations

import asyncio
from typing import Any

import discord
from discord import app_commands
from discord.app_commands import locale_str as _T

from bot import compose
from bot.i18n import Translator
from bot.service import ServiceError, TableSnapshot
from bot.ui import Block, Field
from cogs.base import GameCog, answer, reply, user_t
from cogs.layout import card_message
from engine.shop_battle import MAX_DECK_BYTES, CollectorCard, Deck, DeckError, DeckIssue, parse_deck

MAX_LISTED_ISSUES = 15


def issue_line(issue: DeckIssue, t: Translator) -> str:
    """One refusal line, in the reader's language (English adds the detailed reason)."""
    where = t("deck.where_deck") if issue.index is None else t("deck.where_card", n=issue.index + 1)
    if issue.name:
        where += f" ({compose.escape_name(issue.name, 60)})"
    if issue.field:
        where += f", `{issue.field}`"
    key = f"deck.issue.{issue.code}"
    why = t(key) if t.lang != "en" and t.has(key) else issue.why
    return f"• {where}: {why}"


def summary_card(deck: Deck, deck_id: int, t: Translator) -> Block:
    """What was stored: counts, Collector powers."""
    collectors = [c for c in deck.cards if isinstance(c, CollectorCard)]
    shops = len(deck.cards) - len(collectors)
    powers = "\n".join(f"• {compose.escape_name(c.name, 60)} — {t(f'sb.kind.{c.power.kind}')}" for c in collectors) or "—"
    return Block(title=t("deck.stored", name=compose.escape_name(deck.name, 60)),
                description=t("deck.counts", cards=len(deck.cards), shops=shops, collectors=len(collectors)),
                fields=(Field(t("deck.collectors"), powers[:1024]),), footer=t("deck.footer", id=deck_id),
                color=0x2ECC71)


class ShopBattleCog(GameCog):
    """Shop Battle tables (the lobby offers the guild's decks) and the ``/deck`` group."""

    deck = app_commands.Group(name=_T("deck", key="cmd.deck.name"),
                              description=_T("Your server's Shop Battle decks", key="cmd.deck.desc"),
                              guild_only=True, default_permissions=discord.Permissions(manage_guild=True))

    async def lobby_extras(self, table: TableSnapshot) -> dict[str, Any]:
        """The guild's custom decks, for the lobby's deck select."""
        return {"decks": await self.bot.decks.of(table.row.guild_id, table.row.game)}

    @deck.command(name=_T("upload", key="cmd.deck.upload.name"),
                  description=_T("Add or replace a deck from a JSON file", key="cmd.deck.upload.desc"))
    @app_commands.rename(file=_T("file", key="cmd.arg.file"))
    @app_commands.describe(file=_T("The deck, as JSON (see the README)", key="cmd.deck.upload.file"))
    @app_commands.checks.has_permissions(manage_guild=True)
    async def upload(self, interaction: discord.Interaction, file: discord.Attachment) -> None:
        """Validate the attached deck; store it (replacing a deck of the same name) or list every problem."""
        t = user_t(interaction)
        if file.size > MAX_DECK_BYTES:
            await reply(interaction, t("deck.refused_header") + "\n" + t("deck.too_large", max=MAX_DECK_BYTES // 1024))
            return
        await interaction.response.defer(ephemeral=True, thinking=True)
        try:
            deck = await asyncio.to_thread(parse_deck, await file.read())  # up to 256 KB: not on the event loop
        except DeckError as err:
            lines = [issue_line(i, t) for i in err.issues[:MAX_LISTED_ISSUES]]
            if len(err.issues) > MAX_LISTED_ISSUES:
                lines.append(t("deck.more", n=len(err.issues) - MAX_LISTED_ISSUES))
            await reply(interaction, (t("deck.refused_header") + "\n" + "\n".join(lines))[:2000],
                        allowed_mentions=discord.AllowedMentions.none())
            return
        except discord.HTTPException:
            await reply(interaction, t("deck.download_failed"))
            return
        try:
            deck_id = await self.bot.decks.save(interaction.guild_id or 0, self.game, deck.name,
                                                       deck.model_dump(mode="json"), interaction.user.id)
        except ServiceError as err:
            await reply(interaction, compose.refusal(err, t))
            return
        await answer(interaction, **card_message(summary_card(deck, deck_id, t)))

    @deck.command(name=_T("list", key="cmd.deck.list.name"),
                  description=_T("The decks of this server", key="cmd.deck.list.desc"))
    @app_commands.checks.has_permissions(manage_guild=True)
    async def list_(self, interaction: discord.Interaction) -> None:
        """The guild's decks (they are offered in Shop Battle lobbies); Manage Server, as the
        other /deck commands."""
        t = user_t(interaction)
        decks = await self.bot.decks.of(interaction.guild_id or 0, self.game)
        lines = [f"• {compose.escape_name(name, 60)} (#{deck_id})" for deck_id, name in decks] or [t("deck.none")]
        await answer(interaction, **card_message(Block(title=t("deck.list_title"), description="\n".join(lines))))

    @deck.command(name=_T("remove", key="cmd.deck.remove.name"),
                  description=_T("Remove one of this server's decks", key="cmd.deck.remove.desc"))
    @app_commands.rename(name=_T("name", key="cmd.arg.name"))
    @app_commands.describe(name=_T("The deck's name", key="cmd.deck.remove.deck"))
    @app_commands.checks.has_permissions(manage_guild=True)
    async def remove(self, interaction: discord.Interaction, name: str) -> None:
        """Remove a deck by name (tables already started keep their cards)."""
        t = user_t(interaction)
        decks = await self.bot.decks.of(interaction.guild_id or 0, self.game)
        exact = [d for d, n in decks if n == name.strip()]
        match = exact or [d for d, n in decks if n.casefold() == name.strip().casefold()]
        if not match or not await self.bot.decks.delete(interaction.guild_id or 0, match[0]):
            await reply(interaction, t("err.no_deck"))
            return
        await reply(interaction, t("deck.removed", name=compose.escape_name(name, 60)))

    @remove.autocomplete("name")
    async def _deck_names(self, interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
        decks = await self.bot.decks.of(interaction.guild_id or 0, self.game)
        return [app_commands.Choice(name=n[:100], value=n[:100]) for _, n in decks
                if current.casefold() in n.casefold()][:25]

