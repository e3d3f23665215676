"""The table cog: ``/play``, lobby buttons, the board's buttons and every private panel.

Thin by design: parse the interaction, call :class:`bot.service.TableService`, render specs from
:mod:`bot.texts` with :mod:`cogs.components`, reply. Every interaction is answered (or deferred)
before any slow work; every refusal is an ephemeral message in the clicker's language.
"""

from __future__ import annotations

import logging
import re
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.app_commands import locale_str as _T
from discord.ext import commands

from bot import texts
from bot.i18n import Translator, pick_lang
from bot.presenters import PRESENTERS
from bot.service import ServiceError, TableView
from bot.ui import Button, NumberPrompt, Panel, Select
from cogs.components import STYLES, NumberModal, RoutedButton, embed, modal_value, panel_view, select_item
from engine.registry import GAMES

if TYPE_CHECKING:
    from bot.client import SpeakeasyBot

log = logging.getLogger(__name__)


def user_t(interaction: discord.Interaction) -> Translator:
    """Translator for the clicking user: their locale, then the guild's, then English."""
    return Translator(pick_lang(str(interaction.locale), str(interaction.guild_locale or "")))


def guild_lang(interaction: discord.Interaction) -> str:
    """Language of public table messages: the guild's locale, then the user's."""
    return pick_lang(str(interaction.guild_locale or ""), str(interaction.locale))


def game_choices() -> list[app_commands.Choice[str]]:
    """Slash-command choices for every registered game (names localised by the translator)."""
    return [app_commands.Choice(name=_T(key, key=f"game.{key}.name"), value=key) for key in GAMES]


def is_admin(interaction: discord.Interaction) -> bool:
    """Manage Server (or Administrator) in this channel."""
    perms = getattr(interaction, "permissions", None)
    return bool(perms and (perms.manage_guild or perms.administrator))


async def reply(interaction: discord.Interaction, content: str | None = None, **kwargs: Any) -> None:
    """Send an ephemeral reply, as a response or as a follow-up once responded."""
    if interaction.response.is_done():
        await interaction.followup.send(content, ephemeral=True, **kwargs)
    else:
        await interaction.response.send_message(content, ephemeral=True, **kwargs)


class TablesCog(commands.Cog):
    """Lobbies and tables for every game in the registry."""

    def __init__(self, bot: "SpeakeasyBot") -> None:
        self.bot = bot

    @property
    def service(self):
        return self.bot.service

    # ------------------------------------------------------------------ errors
    async def report_error(self, interaction: discord.Interaction, error: BaseException) -> None:
        """User errors as ephemeral text; anything else logged and answered with a generic text."""
        t = user_t(interaction)
        if isinstance(error, ServiceError):
            text = t(error.key, **error.params)
        else:
            log.error("unexpected error in interaction %s", getattr(interaction, "id", "?"), exc_info=error)
            text = t("err.internal")
        try:
            await reply(interaction, text)
        except discord.HTTPException:
            log.warning("could not report an error to the user", exc_info=True)

    async def report_click_error(self, interaction: discord.Interaction, error: BaseException) -> None:
        """Like :meth:`report_error`, for components: a malformed custom_id or value (``ValueError``,
        ``IndexError`` while parsing it) is answered as a damaged button."""
        if isinstance(error, (ValueError, IndexError)):
            error = ServiceError("err.bad_button")
        await self.report_error(interaction, error)

    # ------------------------------------------------------------------ /play
    @app_commands.command(name=_T("play", key="cmd.play.name"), description=_T("Open a table for a game", key="cmd.play.desc"))
    @app_commands.describe(game=_T("Which game", key="cmd.play.game"))
    @app_commands.rename(game=_T("game", key="cmd.arg.game"))
    @app_commands.choices(game=game_choices())
    @app_commands.guild_only()
    async def play(self, interaction: discord.Interaction, game: app_commands.Choice[str]) -> None:
        """Open a lobby in this channel."""
        try:
            lang = guild_lang(interaction)
            table = await self.service.open_lobby(
                guild_id=interaction.guild_id or 0, channel_id=interaction.channel_id or 0, game=game.value,
                host_user_id=interaction.user.id, host_name=interaction.user.display_name, lang=lang)
            await interaction.response.send_message(**await self.lobby_message(table))
            msg = await interaction.original_response()
            await self.service.set_messages(table.id, lobby_message_id=msg.id)
        except Exception as exc:  # noqa: BLE001 - every failure gets an answer
            await self.report_error(interaction, exc)

    async def lobby_message(self, table: TableView) -> dict[str, Any]:
        """Embed and components of a lobby message, in the table's language."""
        t = Translator(table.row.lang)
        open_ = table.row.status == "lobby"
        view = discord.ui.View(timeout=None)
        buttons = [("join", "lobby.join", "success"), ("leave", "lobby.leave", "secondary"),
                   ("ai+", "lobby.add_ai", "secondary"), ("ai-", "lobby.remove_ai", "secondary"),
                   ("start", "lobby.start", "primary"), ("cancel", "lobby.cancel", "danger")]
        for i, (op, key, style) in enumerate(buttons):
            b = RoutedButton(f"se:l:{table.id}:{op}", t(key), STYLES[style], None, not open_)
            b.item.row = i // 5
            view.add_item(b)
        ctx = texts.context(table, t, None, extras=await self._lobby_extras(table))
        selects = texts.lobby_selects(table, ctx)
        if open_:
            for i, sel in enumerate(selects):
                item = select_item(sel, f"se:o:{table.id}:{i}")
                item.item.row = 2 + i
                view.add_item(item)
        return {"embed": embed(texts.lobby_card(table, t, selects)), "view": view}

    async def _lobby_extras(self, table: TableView) -> dict[str, Any]:
        """Game-specific lobby extras (the guild's custom decks)."""
        return {"decks": await self.service.decks(table.row.guild_id, table.row.game)}

    # ------------------------------------------------------------------ routing
    async def on_button(self, interaction: discord.Interaction, custom_id: str) -> None:
        """Every routed button click lands here (see :mod:`cogs.components`)."""
        try:
            parts = custom_id.split(":")
            kind, table_id = parts[1], int(parts[2])
            if kind == "l":
                await self._lobby_op(interaction, table_id, parts[3])
            elif kind == "b":
                await self._board_op(interaction, table_id, parts[3])
            elif kind == "a":
                await self._act(interaction, table_id, int(parts[3]), ":".join(parts[4:]))
            elif kind == "p":
                await self._prompt(interaction, table_id, int(parts[3]), parts[4])
        except Exception as exc:  # noqa: BLE001 - every click gets an answer
            await self.report_click_error(interaction, exc)

    async def on_select(self, interaction: discord.Interaction, custom_id: str, values: list[str]) -> None:
        """Every routed select lands here."""
        try:
            parts = custom_id.split(":")
            kind, table_id = parts[1], int(parts[2])
            if kind == "o":
                await self._lobby_option(interaction, table_id, values)
            else:
                version, row = int(parts[3]), int(parts[4])
                if version != (await self.service.table(table_id)).version:
                    await self._act(interaction, table_id, version, "-")  # stale: the panel is redrawn
                    return
                panel = await self._panel_for(interaction, table_id, version)
                comp = panel.rows[row][0] if row < len(panel.rows) else None
                if not isinstance(comp, Select) or not values or not all(v in {o.value for o in comp.options} for v in values):
                    raise ServiceError("err.stale")
                await self._act(interaction, table_id, version, comp.code_for(values))
        except Exception as exc:  # noqa: BLE001 - every click gets an answer
            await self.report_click_error(interaction, exc)

    # ------------------------------------------------------------------ lobby
    async def _lobby_op(self, interaction: discord.Interaction, table_id: int, op: str) -> None:
        user = interaction.user
        t = user_t(interaction)
        svc = self.service
        ai_name = Translator((await svc.table(table_id)).row.lang)("lobby.ai_name")  # public: table language
        if op == "join":
            table = await svc.join(table_id, user.id, user.display_name)
        elif op == "leave":
            table = await svc.leave(table_id, user.id)
        elif op == "ai+":
            table = await svc.add_ai(table_id, user.id, ai_name)
        elif op == "ai-":
            table = await svc.remove_ai(table_id, user.id)
        elif op == "cancel":
            table = await svc.cancel(table_id, user.id, is_admin(interaction))
        elif op == "start":
            await interaction.response.defer()  # thread + board creation may take a moment
            await svc.start(table_id, user.id, ai_name=ai_name)
            table = await svc.table(table_id)  # the thread is known now (or the table was abandoned)
            try:
                await interaction.edit_original_response(**await self.lobby_message(table))
            except discord.NotFound:
                pass  # the lobby message was deleted meanwhile: the game goes on in its thread
            if table.row.status == "abandoned":
                await interaction.followup.send(t("err.cannot_post"), ephemeral=True)
            return
        else:
            raise ServiceError("err.bad_button")
        await interaction.response.edit_message(**await self.lobby_message(table))

    async def _lobby_option(self, interaction: discord.Interaction, table_id: int, values: list[str]) -> None:
        """A lobby option select: only the values the lobby offers are accepted."""
        table = await self.service.table(table_id)
        ctx = texts.context(table, Translator(table.row.lang), None, extras=await self._lobby_extras(table))
        offered = {o.value for sel in texts.lobby_selects(table, ctx) for o in sel.options}
        if len(values) != 1 or values[0] not in offered or "=" not in values[0]:
            raise ServiceError("err.bad_option", detail="")
        name, value = values[0].split("=", 1)
        parsed: Any = None if value in ("", "none") else value
        table = await self.service.set_option(table_id, interaction.user.id, name, parsed)
        await interaction.response.edit_message(**await self.lobby_message(table))

    # ------------------------------------------------------------------ board and panels
    async def _board_op(self, interaction: discord.Interaction, table_id: int, op: str) -> None:
        t = user_t(interaction)
        table = await self.service.table(table_id)
        if op == "panel":
            seat = table.seat_of(interaction.user.id)
            if seat is None:
                raise ServiceError("err.not_seated")
            if table.row.status != "running":
                raise ServiceError("err.table_not_running")
            if await self.service.back(table_id, interaction.user.id):
                table = await self.service.table(table_id)
            await self.send_panel(interaction, table, seat, t)
        elif op == "rules":
            await reply(interaction, embed=embed(PRESENTERS[table.row.game].rules(t)))
        elif op == "abandon":
            await interaction.response.defer(ephemeral=True, thinking=True)
            await self.service.abandon(table_id, interaction.user.id, is_admin(interaction))
            await interaction.followup.send(t("table.abandoned_by_you"), ephemeral=True)
        else:
            raise ServiceError("err.bad_button")

    def _render_panel(self, table: TableView, seat: int, t: Translator, notice: str = "") -> dict[str, Any]:
        panel = texts.panel(table, seat, t, notice)
        e = embed(panel.card)
        content = panel.notice or None
        view = panel_view(panel, table.id, table.version) if panel.rows else None
        return {"content": content, "embed": e, "view": view}

    async def send_panel(self, interaction: discord.Interaction, table: TableView, seat: int, t: Translator) -> None:
        """A fresh ephemeral panel for ``seat``, with its latest private events (cards drawn…)."""
        events = await self.service.recent_events(table.id, 40)
        notes = texts.private_notes(events, table, t, seat)
        kwargs = self._render_panel(table, seat, t, "\n".join(notes)[:1900])
        if kwargs["view"] is None:
            kwargs.pop("view")
        await reply(interaction, **kwargs)

    async def _panel_for(self, interaction: discord.Interaction, table_id: int, version: int) -> Panel:
        """The panel the clicker saw at ``version`` (recomputed); refuses stale and foreign clicks."""
        table = await self.service.table(table_id)
        seat = table.seat_of(interaction.user.id)
        if seat is None:
            raise ServiceError("err.not_seated")
        if table.row.status != "running":
            raise ServiceError("err.table_not_running")
        if version != table.version:
            raise ServiceError("err.stale")
        return texts.panel(table, seat, user_t(interaction))

    async def _act(self, interaction: discord.Interaction, table_id: int, version: int, code: str) -> None:
        """Submit an action; redraw the clicker's panel in place. The interaction is deferred
        first: the table may be busy (an AI move, another click), and Discord waits 3 s only."""
        t = user_t(interaction)
        in_panel = interaction.message is not None and interaction.message.flags.ephemeral
        if in_panel:
            await interaction.response.defer()
        else:
            await interaction.response.defer(ephemeral=True, thinking=True)
        notice = ""
        events: tuple = ()
        try:
            submitted = await self.service.submit(table_id, interaction.user.id, version, code)
            events = submitted.events
            if submitted.status == "buffered":
                notice = t("panel.buffered")
        except ServiceError as err:
            if err.key != "err.stale":
                raise
            notice = t("err.stale_refreshed")
        table = await self.service.table(table_id)
        seat = table.seat_of(interaction.user.id)
        if seat is None:  # pragma: no cover - submit already refused
            raise ServiceError("err.not_seated")
        presenter = PRESENTERS[table.row.game]
        mine = [e for e in events if e.audience is not None and seat in e.audience]
        flashes = [(e, presenter.flash_seconds(e)) for e in mine]
        lines = texts.private_notes(list(events), table, t, seat, limit=10)
        notice = "\n".join([notice, *lines]).strip()[:1900]
        kwargs = self._render_panel(table, seat, t, notice)
        if in_panel:
            await interaction.edit_original_response(**kwargs)
        else:  # a click on a public message: answer privately
            if kwargs["view"] is None:
                kwargs.pop("view")
            await interaction.followup.send(ephemeral=True, **kwargs)
        for event, secs in flashes:
            if secs:
                text = texts.private_log([event], table, t, seat)[0]
                try:
                    msg = await interaction.followup.send(t("panel.flash", text=text, seconds=secs)[:2000],
                                                          ephemeral=True, wait=True)
                    await msg.delete(delay=secs)
                except discord.HTTPException:  # the move is applied; only the peek message failed
                    log.warning("could not show a private flash message at table %s", table_id, exc_info=True)

    async def _prompt_at(self, interaction: discord.Interaction, table_id: int, version: int, where: str) -> NumberPrompt:
        """The number prompt of the button at ``r.c`` in the clicker's panel at ``version``
        (refuses stale and foreign clicks). Raises ``ValueError`` on a malformed position."""
        panel = await self._panel_for(interaction, table_id, version)
        r, c = (int(x) for x in where.split("."))
        comp = panel.rows[r][c] if r < len(panel.rows) and c < len(panel.rows[r]) else None
        if not isinstance(comp, Button) or comp.prompt is None:
            raise ServiceError("err.stale")
        return comp.prompt

    async def _prompt(self, interaction: discord.Interaction, table_id: int, version: int, where: str) -> None:
        prompt = await self._prompt_at(interaction, table_id, version, where)
        placeholder = user_t(interaction)("prompt.range", min=prompt.minimum, max=prompt.maximum)
        await interaction.response.send_modal(NumberModal(f"se:m:{table_id}:{version}:{where}", prompt, placeholder))

    @commands.Cog.listener()
    async def on_interaction(self, interaction: discord.Interaction) -> None:
        """Number modals (``se:m:…``) are answered here, from their custom_id alone."""
        if interaction.type is not discord.InteractionType.modal_submit:
            return
        custom_id = str((interaction.data or {}).get("custom_id", ""))
        if custom_id.startswith("se:m:"):
            await self.on_number(interaction, custom_id, modal_value(interaction.data, "number"))

    async def on_number(self, interaction: discord.Interaction, custom_id: str, raw: str) -> None:
        """A submitted number modal: the prompt is found again in the panel it came from."""
        try:
            parts = custom_id.split(":")
            table_id, version = int(parts[2]), int(parts[3])
            prompt = await self._prompt_at(interaction, table_id, version, parts[4])
            raw = raw.strip()
            if not re.fullmatch(r"[0-9]{1,9}", raw) or not prompt.minimum <= int(raw) <= prompt.maximum:
                raise ServiceError("err.bad_number", min=prompt.minimum, max=prompt.maximum)
            await self._act(interaction, table_id, version, prompt.template.format(n=int(raw)))
        except Exception as exc:  # noqa: BLE001 - every click gets an answer
            await self.report_click_error(interaction, exc)


async def setup(bot: "SpeakeasyBot") -> None:
    """discord.py extension entry point: the cog, the routed components, the notifier and the
    command tree's error handler."""
    from cogs.components import RoutedButton, RoutedSelect
    from cogs.notifier import DiscordNotifier

    cog = TablesCog(bot)
    await bot.add_cog(cog)
    bot.add_dynamic_items(RoutedButton, RoutedSelect)
    bot.notifier = DiscordNotifier(bot)  # type: ignore[attr-defined]
    bot.service.notifier = bot.notifier  # type: ignore[attr-defined]

    async def on_tree_error(interaction: discord.Interaction, error: app_commands.AppCommandError) -> None:
        original = getattr(error, "original", error)
        if isinstance(error, app_commands.CheckFailure) and not isinstance(original, ServiceError):
            original = ServiceError("err.forbidden")
        await cog.report_error(interaction, original)

    bot.tree.on_error = on_tree_error
