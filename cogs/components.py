"""discord.py adapters for the Discord-free UI specs (:mod:`bot.ui`).

Every component is a :class:`discord.ui.DynamicItem` whose custom_id carries what is needed to
handle the click after a restart (``se:<kind>:<table>[:<version>:<detail>]``):

- ``se:l:<table>:<op>``            lobby buttons (join, leave, ai+, ai-, start, cancel)
- ``se:o:<table>``                 lobby option select (values ``field=value``)
- ``se:b:<table>:<op>``            board buttons (panel, abandon)
- ``se:a:<table>:<version>:<code>`` an action button (the engine's action code)
- ``se:p:<table>:<version>:<r>.<c>`` a button that opens a number modal (panel row r, column c)
- ``se:s:<table>:<version>:<r>``   a select in panel row r
- ``se:m:<table>:<version>:<r>.<c>`` the number modal itself

The callbacks only route to :class:`cogs.tables.TablesCog`, which holds the logic.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

import discord

from bot.ui import Button, Card, NumberPrompt, Panel, Select

if TYPE_CHECKING:
    from cogs.tables import TablesCog

STYLES = {
    "primary": discord.ButtonStyle.primary,
    "secondary": discord.ButtonStyle.secondary,
    "success": discord.ButtonStyle.success,
    "danger": discord.ButtonStyle.danger,
}


def embed(card: Card) -> discord.Embed:
    """A :class:`discord.Embed` from a :class:`bot.ui.Card`."""
    e = discord.Embed(title=card.title, description=card.description or None, color=card.color)
    for f in card.fields:
        e.add_field(name=f.name, value=f.value, inline=f.inline)
    if card.footer:
        e.set_footer(text=card.footer)
    return e


def _cog(interaction: discord.Interaction) -> "TablesCog":
    cog = interaction.client.get_cog("TablesCog")  # type: ignore[union-attr]
    if cog is None:
        raise RuntimeError("TablesCog is not loaded")
    return cog  # type: ignore[return-value]


class RoutedButton(discord.ui.DynamicItem[discord.ui.Button], template=r"se:(?P<kind>[lbap]):(?P<rest>[A-Za-z0-9.:_+-]{1,90})"):
    """Every Speakeasy button; the click is routed to the TablesCog by ``kind``."""

    def __init__(self, custom_id: str, label: str = "·", style: discord.ButtonStyle = discord.ButtonStyle.secondary,
                 emoji: str | None = None, disabled: bool = False) -> None:
        super().__init__(discord.ui.Button(custom_id=custom_id, label=label, style=style, emoji=emoji, disabled=disabled))

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Button, match: re.Match[str]) -> "RoutedButton":
        return cls(item.custom_id or "")

    async def callback(self, interaction: discord.Interaction) -> None:
        await _cog(interaction).on_button(interaction, self.item.custom_id or "")


class RoutedSelect(discord.ui.DynamicItem[discord.ui.Select], template=r"se:(?P<kind>[os]):(?P<rest>[A-Za-z0-9.:_+-]{1,90})"):
    """Every Speakeasy select; routed to the TablesCog."""

    def __init__(self, custom_id: str, placeholder: str = "…", options: list[discord.SelectOption] | None = None,
                 min_values: int = 1, max_values: int = 1) -> None:
        super().__init__(discord.ui.Select(custom_id=custom_id, placeholder=placeholder,
                                           options=options or [discord.SelectOption(label="…", value="-")],
                                           min_values=min_values, max_values=max_values))

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Select, match: re.Match[str]) -> "RoutedSelect":
        return cls(item.custom_id or "")

    async def callback(self, interaction: discord.Interaction) -> None:
        values = list((interaction.data or {}).get("values", []))  # type: ignore[union-attr]
        await _cog(interaction).on_select(interaction, self.item.custom_id or "", values)


class NumberModal(discord.ui.Modal):
    """A modal asking one whole number for a :class:`bot.ui.NumberPrompt`.

    Its submission is handled by :meth:`cogs.tables.TablesCog.on_interaction` from the custom_id
    alone (``se:m:<table>:<version>:<r>.<c>``), never by this object: so a modal opened before a
    restart, or left open longer than the view store keeps it, is still answered.
    """

    def __init__(self, custom_id: str, prompt: NumberPrompt, placeholder: str) -> None:
        super().__init__(title=prompt.title[:45], custom_id=custom_id, timeout=600)
        self.prompt = prompt
        self.number: discord.ui.TextInput = discord.ui.TextInput(
            label=prompt.label[:45], placeholder=placeholder[:100], min_length=1, max_length=6, required=True,
            custom_id="number")
        self.add_item(self.number)

    async def on_submit(self, interaction: discord.Interaction) -> None:
        """Nothing: the cog's interaction listener answers (see the class docstring)."""


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


def panel_view(panel: Panel, table_id: int, version: int) -> discord.ui.View:
    """The components of a private panel; every code is bound to ``table_id``/``version``."""
    view = discord.ui.View(timeout=None)
    for r, row in enumerate(panel.rows):
        for c, comp in enumerate(row):
            if isinstance(comp, Button):
                if comp.prompt is not None:
                    cid = f"se:p:{table_id}:{version}:{r}.{c}"
                else:
                    cid = f"se:a:{table_id}:{version}:{comp.code}"
                item: Any = RoutedButton(cid, comp.label, STYLES[comp.style], comp.emoji, comp.disabled)
            else:
                item = select_item(comp, f"se:s:{table_id}:{version}:{r}")
            item.item.row = r
            view.add_item(item)
    return view


def select_item(comp: Select, custom_id: str) -> RoutedSelect:
    """A routed select from a :class:`bot.ui.Select`."""
    options = [discord.SelectOption(label=o.label, value=o.value, description=o.description, default=o.default)
               for o in comp.options]
    return RoutedSelect(custom_id, comp.placeholder, options, comp.min_values, comp.max_values)


def buttons_view(buttons: list[tuple[str, str, str, bool]]) -> discord.ui.View:
    """A view of routed buttons ``(custom_id, label, style, disabled)``, 5 per row."""
    view = discord.ui.View(timeout=None)
    for i, (cid, label, style, disabled) in enumerate(buttons):
        item = RoutedButton(cid, label, STYLES[style], None, disabled)
        item.item.row = i // 5
        view.add_item(item)
    return view
