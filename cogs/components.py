"""discord.py adapters for the Discord-free UI specs (:mod:`bot.ui`), and the persistent components.

Every component is a :class:`discord.ui.DynamicItem`, one class per custom_id kind, whose
template (a regular expression with named groups) parses the typed fields once, in
``from_custom_id``. A custom_id carries what is needed to handle the click after a restart; the
formats below are those of every button already posted in Discord, byte for byte:

- ``se:l:<table>:<op>``              :class:`LobbyButton` (join, leave, ai+, ai-, start, cancel)
- ``se:o:<table>:<index>``           :class:`LobbyOptionSelect` (values ``field=value``)
- ``se:b:<table>:<op>``              :class:`BoardButton` (panel, rules, abandon)
- ``se:a:<table>:<version>:<code>``  :class:`ActionButton` (the engine's action code)
- ``se:p:<table>:<version>:<r>.<c>`` :class:`PromptButton`: opens a number modal (panel row r, column c)
- ``se:s:<table>:<version>:<r>``     :class:`PanelSelect`: a select in panel row r
- ``se:v:<table>:<seat>:<tag>``      :class:`LevelSelect`: the host's private level picker, the
  level of the AI in ``seat`` (values: a level); ``tag`` is the lobby's seats fingerprint
  (:func:`bot.lobbies.lobby_tag`) when the picker was drawn, so an old picker is refused
- ``se:m:<table>:<version>:<r>.<c>`` :class:`NumberModalId`: the number modal itself (modals have no
  dynamic items in discord.py: the lobby cog's interaction listener parses it)

A server's own settings and seasons are bound to no table: their components are in
:mod:`cogs.server_components`.

Action buttons, the clicks of play, are routed by the lobby cog's interaction listener too, from
their custom_id alone (:meth:`ActionButton.parse`), not through discord.py's dynamic-item
dispatch, which rebuilds a whole view from the clicked message for every click (about a tenth of
a click's cost); so :class:`ActionButton` is not in :data:`DYNAMIC_ITEMS`, and panels
are sent as stopped views (:func:`panel_components`), which discord.py never stores: nothing would
register the class there behind the router's back.

The callbacks only hand the parsed item to the click router (the lobby cog, always loaded, see
:mod:`cogs.lobby`), which finds the table's game cog: so buttons keep working whether or not
the game's cog is loaded. This module imports no other cog module.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol, Self, cast

import discord
from discord.ext import commands

from bot.ui import Button, NumberPrompt, Panel, Select

#: Name of the cog that routes every click (:class:`cogs.lobby.LobbyCog`).
ROUTER_COG = "LobbyCog"

STYLES = {
    "primary": discord.ButtonStyle.primary,
    "secondary": discord.ButtonStyle.secondary,
    "success": discord.ButtonStyle.success,
    "danger": discord.ButtonStyle.danger,
}

_ID = "[0-9]{1,20}"  # ASCII digits only (``\d`` would accept other scripts' digits)


class ClickRouter(Protocol):
    """What the routing cog offers the components (implemented by :class:`cogs.lobby.LobbyCog`)."""

    async def route(self, interaction: discord.Interaction, item: TableItem) -> None:
        """Handle a click on ``item`` (answer the interaction, whatever happens)."""
        ...


def _router(interaction: discord.Interaction) -> ClickRouter:
    client = interaction.client
    cog = client.get_cog(ROUTER_COG) if isinstance(client, (commands.Bot, commands.AutoShardedBot)) else None
    if cog is None:
        raise RuntimeError(f"{ROUTER_COG} is not loaded")
    return cast(ClickRouter, cog)


class TableItem(Protocol):
    """Every persistent component: bound to one table."""

    table_id: int


class _Routed:
    """Mixin: the callback hands the parsed item to the router."""

    async def callback(self, interaction: discord.Interaction) -> None:
        await _router(interaction).route(interaction, cast(TableItem, self))


class _RoutedButton(_Routed, discord.ui.DynamicItem[discord.ui.Button[Any]], template=r"se:_:(?!)"):
    """Base of the button kinds: the discord.py button from a spec's look."""

    def __init__(self, custom_id: str, label: str, style: discord.ButtonStyle, emoji: str | None,
                 disabled: bool, row: int | None) -> None:
        super().__init__(discord.ui.Button(custom_id=custom_id, label=label, style=style, emoji=emoji,
                                           disabled=disabled, row=row))


class LobbyButton(_RoutedButton, template=rf"se:l:(?P<table>{_ID}):(?P<op>[a-z+-]{{1,16}})"):
    """A lobby button ``se:l:<table>:<op>``; ``op`` in join, leave, ai+, ai-, start, cancel,
    lvl (opens the host's private AI level picker)."""

    def __init__(self, table_id: int, op: str, label: str = "·", style: discord.ButtonStyle = discord.ButtonStyle.secondary,
                 disabled: bool = False, row: int | None = None) -> None:
        self.table_id, self.op = table_id, op
        super().__init__(f"se:l:{table_id}:{op}", label, style, None, disabled, row)

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str]) -> Self:
        return cls(int(match["table"]), match["op"])


class BoardButton(_RoutedButton, template=rf"se:b:(?P<table>{_ID}):(?P<op>[a-z]{{1,16}})"):
    """A board button ``se:b:<table>:<op>``; ``op`` in panel, rules, abandon."""

    def __init__(self, table_id: int, op: str, label: str = "·", style: discord.ButtonStyle = discord.ButtonStyle.secondary,
                 disabled: bool = False, row: int | None = None) -> None:
        self.table_id, self.op = table_id, op
        super().__init__(f"se:b:{table_id}:{op}", label, style, None, disabled, row)

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str]) -> Self:
        return cls(int(match["table"]), match["op"])


_ACTION_TEMPLATE = rf"se:a:(?P<table>{_ID}):(?P<version>{_ID}):(?P<code>[A-Za-z0-9.:_+-]{{1,80}})"


class ActionButton(_RoutedButton, template=_ACTION_TEMPLATE):
    """An action button ``se:a:<table>:<version>:<code>``: submits the engine's action ``code``
    for the panel drawn at ``version`` (the service refuses malformed codes). Its clicks reach
    the router through the lobby cog's interaction listener (:meth:`parse`), see the module
    docstring."""

    TEMPLATE: ClassVar[re.Pattern[str]] = re.compile(_ACTION_TEMPLATE)

    def __init__(self, table_id: int, version: int, code: str, label: str = "·",
                 style: discord.ButtonStyle = discord.ButtonStyle.secondary, emoji: str | None = None,
                 disabled: bool = False, row: int | None = None) -> None:
        self.table_id, self.version, self.code = table_id, version, code
        super().__init__(f"se:a:{table_id}:{version}:{code}", label, style, emoji, disabled, row)

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str]) -> Self:
        return cls._of(match)

    @classmethod
    def _of(cls, match: re.Match[str]) -> Self:
        return cls(int(match["table"]), int(match["version"]), match["code"])

    @classmethod
    def parse(cls, custom_id: str) -> ActionButton | None:
        """The button of ``custom_id``, or ``None`` when it is not an action button's.

        >>> b = ActionButton.parse("se:a:12:7:pick.3.5")
        >>> (b.table_id, b.version, b.code) if b else None
        (12, 7, 'pick.3.5')
        >>> ActionButton.parse("se:a:12:7:") is None
        True
        """
        m = cls.TEMPLATE.fullmatch(custom_id)
        return None if m is None else cls._of(m)


class PromptButton(_RoutedButton,
                   template=rf"se:p:(?P<table>{_ID}):(?P<version>{_ID}):(?P<row>[0-9]{{1,2}})\.(?P<col>[0-9]{{1,2}})"):
    """A button ``se:p:<table>:<version>:<r>.<c>`` that opens the number modal of the panel's
    button at row ``r``, column ``c``."""

    def __init__(self, table_id: int, version: int, at: tuple[int, int], label: str = "·",
                 style: discord.ButtonStyle = discord.ButtonStyle.secondary, emoji: str | None = None,
                 disabled: bool = False, row: int | None = None) -> None:
        self.table_id, self.version, self.at = table_id, version, at
        super().__init__(f"se:p:{table_id}:{version}:{at[0]}.{at[1]}", label, style, emoji, disabled, row)

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str]) -> Self:
        return cls(int(match["table"]), int(match["version"]), (int(match["row"]), int(match["col"])))


class _RoutedSelect(_Routed, discord.ui.DynamicItem[discord.ui.Select[Any]], template=r"se:_:(?!)"):
    """Base of the select kinds; :attr:`values` are the chosen option values."""

    def __init__(self, custom_id: str, placeholder: str, options: list[discord.SelectOption] | None,
                 min_values: int, max_values: int, row: int | None) -> None:
        super().__init__(discord.ui.Select(custom_id=custom_id, placeholder=placeholder,
                                           options=options or [discord.SelectOption(label="…", value="-")],
                                           min_values=min_values, max_values=max_values, row=row))

    @property
    def values(self) -> list[str]:
        """The submitted values (after a click)."""
        return list(self.item.values)


class LobbyOptionSelect(_RoutedSelect, template=rf"se:o:(?P<table>{_ID}):(?P<index>[0-9]{{1,2}})"):
    """A lobby option select ``se:o:<table>:<index>`` (values ``field=value``)."""

    def __init__(self, table_id: int, index: int, placeholder: str = "…",
                 options: list[discord.SelectOption] | None = None, min_values: int = 1, max_values: int = 1,
                 row: int | None = None) -> None:
        self.table_id, self.index = table_id, index
        super().__init__(f"se:o:{table_id}:{index}", placeholder, options, min_values, max_values, row)

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str]) -> Self:
        return cls(int(match["table"]), int(match["index"]))


class PanelSelect(_RoutedSelect,
                  template=rf"se:s:(?P<table>{_ID}):(?P<version>{_ID}):(?P<row>[0-9]{{1,2}})"):
    """A select ``se:s:<table>:<version>:<r>`` in row ``r`` of the panel drawn at ``version``."""

    def __init__(self, table_id: int, version: int, panel_row: int, placeholder: str = "…",
                 options: list[discord.SelectOption] | None = None, min_values: int = 1, max_values: int = 1,
                 row: int | None = None) -> None:
        self.table_id, self.version, self.panel_row = table_id, version, panel_row
        super().__init__(f"se:s:{table_id}:{version}:{panel_row}", placeholder, options, min_values, max_values, row)

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str]) -> Self:
        return cls(int(match["table"]), int(match["version"]), int(match["row"]))


class LevelSelect(_RoutedSelect,
                  template=rf"se:v:(?P<table>{_ID}):(?P<seat>[0-9]{{1,2}}):(?P<tag>[0-9a-f]{{8}})"):
    """The level select ``se:v:<table>:<seat>:<tag>`` of the AI in ``seat``, in the host's
    private level picker drawn when the lobby's seats had the fingerprint ``tag``."""

    def __init__(self, table_id: int, seat: int, tag: str, placeholder: str = "…",
                 options: list[discord.SelectOption] | None = None, row: int | None = None) -> None:
        self.table_id, self.seat, self.tag = table_id, seat, tag
        super().__init__(f"se:v:{table_id}:{seat}:{tag}", placeholder, options, 1, 1, row)

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str]) -> Self:
        return cls(int(match["table"]), int(match["seat"]), match["tag"])


#: The tables' persistent component classes, registered with ``bot.add_dynamic_items`` by the
#: lobby cog (their templates are mutually exclusive, with the community cog's too,
#: :data:`cogs.server_components.COMMUNITY_ITEMS`: discord.py dispatches a click to every
#: matching class): all but :class:`ActionButton`, whose clicks the lobby cog's interaction
#: listener routes.
DYNAMIC_ITEMS: tuple[type[discord.ui.DynamicItem[Any]], ...] = (
    LobbyButton, LobbyOptionSelect, BoardButton, PromptButton, PanelSelect, LevelSelect)


@dataclass(frozen=True)
class NumberModalId:
    """The custom_id ``se:m:<table>:<version>:<r>.<c>`` of a number modal, parsed."""

    table_id: int
    version: int
    at: tuple[int, int]

    TEMPLATE: ClassVar[re.Pattern[str]] = re.compile(
        rf"se:m:(?P<table>{_ID}):(?P<version>{_ID}):(?P<row>[0-9]{{1,2}})\.(?P<col>[0-9]{{1,2}})")

    @classmethod
    def parse(cls, custom_id: str) -> NumberModalId | None:
        """The parsed id, or ``None`` when ``custom_id`` is not a number modal's.

        >>> NumberModalId.parse("se:m:12:40:1.0")
        NumberModalId(table_id=12, version=40, at=(1, 0))
        >>> NumberModalId.parse("se:a:12:40:c3") is None
        True
        """
        m = cls.TEMPLATE.fullmatch(custom_id)
        if m is None:
            return None
        return cls(int(m["table"]), int(m["version"]), (int(m["row"]), int(m["col"])))

    @property
    def custom_id(self) -> str:
        return f"se:m:{self.table_id}:{self.version}:{self.at[0]}.{self.at[1]}"


class NumberModal(discord.ui.Modal):
    """A modal asking one whole number for a :class:`bot.ui.NumberPrompt`: its text input inside
    a ``Label`` (Discord's current form; an input in an action row is deprecated).

    Its submission is handled by the lobby cog's interaction listener from the custom_id alone
    (:class:`NumberModalId`), never by this object: so a modal opened before a restart, or left
    open longer than the view store keeps it, is still answered.
    """

    def __init__(self, modal_id: NumberModalId, prompt: NumberPrompt, placeholder: str) -> None:
        super().__init__(title=prompt.title[:45], custom_id=modal_id.custom_id, timeout=600)
        self.prompt = prompt
        self.number: discord.ui.TextInput[Any] = discord.ui.TextInput(
            placeholder=placeholder[:100], min_length=1, max_length=6, required=True, custom_id="number")
        self.add_item(discord.ui.Label(text=prompt.label[:45], component=self.number))  # not a deprecated action row

    async def on_submit(self, interaction: discord.Interaction) -> None:
        """Nothing: the lobby cog's interaction listener answers (see the class docstring)."""


def typed_number(raw: str) -> int | None:
    """The whole number typed in a modal's text input: 1 to 9 ASCII digits (spaces around
    ignored), else ``None``.

    >>> typed_number(" 12 "), typed_number("１２"), typed_number("-3"), typed_number("1" * 10)
    (12, None, None, None)
    """
    raw = raw.strip()
    return int(raw) if raw.isascii() and raw.isdigit() and len(raw) <= 9 else None


def modal_value(data: Any, custom_id: str) -> str:
    """The value of the text input ``custom_id`` in a modal submission payload ("" if absent)."""
    stack = list((data or {}).get("components") or [])
    while stack:
        comp = stack.pop()
        if not isinstance(comp, dict):
            continue
        if comp.get("custom_id") == custom_id and "value" in comp:
            return str(comp.get("value") or "")
        stack.extend(comp.get("components") or [])
        if isinstance(comp.get("component"), dict):
            stack.append(comp["component"])
    return ""


def _options(comp: Select) -> list[discord.SelectOption]:
    return [discord.SelectOption(label=o.label, value=o.value, description=o.description, default=o.default)
            for o in comp.options]


def panel_components(panel: Panel, table_id: int, version: int) -> list[discord.ui.ActionRow[Any]]:
    """The rows of a private panel; every code is bound to ``table_id``/``version``. Send them in
    a stopped layout (:func:`cogs.layout.card_message` with ``stop``), which discord.py never
    stores (their clicks are routed by custom_id, see the module docstring)."""
    rows = []
    for r, row in enumerate(panel.rows):
        items: list[discord.ui.Item[Any]] = []
        for c, comp in enumerate(row):
            if isinstance(comp, Button):
                style = STYLES[comp.style]
                if comp.prompt is not None:
                    items.append(PromptButton(table_id, version, (r, c), comp.label, style, comp.emoji, comp.disabled))
                else:
                    items.append(ActionButton(table_id, version, comp.code, comp.label, style, comp.emoji,
                                              comp.disabled))
            else:
                items.append(PanelSelect(table_id, version, r, comp.placeholder, _options(comp), comp.min_values,
                                         comp.max_values))
        rows.append(discord.ui.ActionRow(*items))
    return rows


def lobby_option_select(comp: Select, table_id: int, index: int) -> LobbyOptionSelect:
    """The lobby's option select number ``index`` from a :class:`bot.ui.Select`."""
    return LobbyOptionSelect(table_id, index, comp.placeholder, _options(comp), comp.min_values, comp.max_values)


def level_picker_rows(table_id: int, tag: str, selects: tuple[tuple[int, Select], ...]) -> list[discord.ui.ActionRow[Any]]:
    """The rows of a level picker: one :class:`LevelSelect` per ``(seat, select)``, a row each."""
    return [discord.ui.ActionRow(LevelSelect(table_id, seat, tag, comp.placeholder, _options(comp)))
            for seat, comp in selects[:5]]


def board_rows(table_id: int, buttons: list[tuple[str, str, str, bool]]) -> list[discord.ui.ActionRow[Any]]:
    """Rows of board buttons ``(op, label, style, disabled)`` of a table, 5 per row."""
    items = [BoardButton(table_id, op, label, STYLES[style], disabled) for op, label, style, disabled in buttons]
    return [discord.ui.ActionRow(*items[i:i + 5]) for i in range(0, len(items), 5)]


async def web_link(bot: Any, guild_id: int | None, label: str, url_of: Any) -> list[discord.ui.ActionRow[Any]]:
    """An action row holding one link button to a web page of the guild (``url_of(base, key)``
    makes its address: :mod:`bot.web.links`), to put inside a message's container; none when
    the bot has no ``WEB_BASE_URL`` or the guild no pages. A private guild's link carries its key."""
    from bot.web.access import WebDefaults, link_key

    base = bot.settings.web_base_url
    if not base or not guild_id:
        return []
    try:
        shown, key = await link_key(bot.db, guild_id, WebDefaults(bot.settings.web_public, bot.web_secret))
    except Exception:
        return []
    if not shown:
        return []
    return [discord.ui.ActionRow(discord.ui.Button(style=discord.ButtonStyle.link, label=label, url=url_of(base, key)))]
