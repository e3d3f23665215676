"""The components of a server's own settings and seasons: bound to no table, they go to the
community cog (:data:`COMMUNITY_COG`, :mod:`cogs.community`, which registers them) and are
refused there to a member without Manage Server. Their custom_ids, as every one already posted:

- ``se:c:<op>``                      :class:`SettingsButton` (``/settings``: pictures, monthly, min, web, rotate)
- ``se:cs:<field>``                  :class:`SettingsSelect` (``/settings``: games, pace, ai_levels)
- ``se:cc``                          :class:`SettingsChannels` (``/settings``: the channels of ``/play``)
- ``se:y:<game or *>:<name>``        :class:`SeasonConfirm` (``/season start``; ``name``: the new
  season's name in URL-safe base64, empty for none)
"""

from __future__ import annotations

import re
from typing import Any, Protocol, Self, cast

import discord
from discord.ext import commands

from bot.ui import Panel, Select
from cogs.components import STYLES

__all__ = ["COMMUNITY_COG", "COMMUNITY_ITEMS", "CommunityHandler", "SeasonConfirm", "SettingsButton",
           "SettingsChannels", "SettingsSelect", "settings_rows"]


#: Name of the cog handling the components of a server's settings and seasons
#: (:class:`cogs.community.CommunityCog`).
COMMUNITY_COG = "CommunityCog"


class CommunityHandler(Protocol):
    """What the community cog offers its components."""

    async def component(self, interaction: discord.Interaction, item: discord.ui.DynamicItem[Any]) -> None:
        """Handle a click on a settings or season component (answer the interaction)."""
        ...


class _ToCommunity:
    """Mixin: the callback hands the parsed item to the community cog."""

    async def callback(self, interaction: discord.Interaction) -> None:
        client = interaction.client
        cog = client.get_cog(COMMUNITY_COG) if isinstance(client, (commands.Bot, commands.AutoShardedBot)) else None
        if cog is None:
            raise RuntimeError(f"{COMMUNITY_COG} is not loaded")
        await cast(CommunityHandler, cog).component(interaction, cast(discord.ui.DynamicItem[Any], self))


class SettingsButton(_ToCommunity, discord.ui.DynamicItem[discord.ui.Button[Any]], template=r"se:c:(?P<op>[a-z]{1,16})"):
    """A ``/settings`` button ``se:c:<op>``."""

    def __init__(self, op: str, label: str = "·", style: discord.ButtonStyle = discord.ButtonStyle.secondary,
                 disabled: bool = False, row: int | None = None) -> None:
        self.op = op
        super().__init__(discord.ui.Button(custom_id=f"se:c:{op}", label=label, style=style, disabled=disabled, row=row))

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str]) -> Self:
        return cls(match["op"])


class SettingsSelect(_ToCommunity, discord.ui.DynamicItem[discord.ui.Select[Any]],
                     template=r"se:cs:(?P<field>[a-z_]{1,16})"):
    """A ``/settings`` select ``se:cs:<field>``; :attr:`values` are the chosen option values."""

    def __init__(self, field: str, placeholder: str = "…", options: list[discord.SelectOption] | None = None,
                 min_values: int = 1, max_values: int = 1, row: int | None = None) -> None:
        self.field = field
        super().__init__(discord.ui.Select(custom_id=f"se:cs:{field}", placeholder=placeholder,
                                           options=options or [discord.SelectOption(label="…", value="-")],
                                           min_values=min_values, max_values=max_values, row=row))

    @property
    def values(self) -> list[str]:
        """The submitted values (after a click)."""
        return list(self.item.values)

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str]) -> Self:
        return cls(match["field"])


class SettingsChannels(_ToCommunity, discord.ui.DynamicItem[discord.ui.ChannelSelect[Any]], template=r"se:cc"):
    """The ``/settings`` channel select ``se:cc``: the text channels where ``/play`` may open a
    lobby (none chosen: every channel)."""

    def __init__(self, placeholder: str = "…", row: int | None = None) -> None:
        super().__init__(discord.ui.ChannelSelect(custom_id="se:cc", placeholder=placeholder, min_values=0,
                                                  max_values=25, row=row,
                                                  channel_types=[discord.ChannelType.text]))

    @property
    def channel_ids(self) -> list[int]:
        """The chosen channels' ids (after a click)."""
        return [c.id for c in self.item.values]

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str]) -> Self:
        return cls()


class SeasonConfirm(_ToCommunity, discord.ui.DynamicItem[discord.ui.Button[Any]],
                    template=r"se:y:(?P<game>[a-z0-9-]{1,20}|\*):(?P<name>~.{1,40}|[A-Za-z0-9_=-]{0,75})"):
    """The ``/season start`` confirm button ``se:y:<game or *>:<name>`` (``*``: every game;
    ``name``: ``~`` and the name as typed, or URL-safe base64 from earlier versions, empty for
    none: :func:`cogs.community.decode_name`)."""

    def __init__(self, game: str, name: str, label: str = "·", row: int | None = None) -> None:
        self.game, self.name = game, name
        super().__init__(discord.ui.Button(custom_id=self.custom_id_of(game, name), label=label,
                                           style=discord.ButtonStyle.danger, row=row))

    @staticmethod
    def custom_id_of(game: str, name: str) -> str:
        """The button's custom_id for ``game`` and the carried ``name``."""
        return f"se:y:{game}:{name}"

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str]) -> Self:
        return cls(match["game"], match["name"])


#: The persistent component classes the community cog registers (``bot.add_dynamic_items``).
COMMUNITY_ITEMS: tuple[type[discord.ui.DynamicItem[Any]], ...] = (
    SettingsButton, SettingsSelect, SettingsChannels, SeasonConfirm)


def settings_rows(panel: Panel, channels_placeholder: str) -> list[discord.ui.ActionRow[Any]]:
    """The action rows of the ``/settings`` panel (:func:`bot.community.settings_panel`): its
    selects (a row each, the field being the select's prefix before ``=``), the channel select
    as the second row, then its buttons."""
    out: list[discord.ui.ActionRow[Any]] = []
    for i, row in enumerate(panel.rows):
        if i == 1:
            out.append(discord.ui.ActionRow(SettingsChannels(channels_placeholder)))
        items: list[Any] = []
        for comp in row:
            if isinstance(comp, Select):
                options = [discord.SelectOption(label=o.label, value=o.value.partition("=")[2] or o.value,
                                                description=o.description, default=o.default) for o in comp.options]
                field = comp.prefix.rstrip("=") or comp.options[0].value.partition("=")[0]
                items.append(SettingsSelect(field, comp.placeholder, options, comp.min_values, comp.max_values))
            else:
                items.append(SettingsButton(comp.code, comp.label, STYLES[comp.style], comp.disabled))
        out.append(discord.ui.ActionRow(*items))
    return out
