"""Discord-free UI specifications shared by Discord (cogs/) and the terminal mode.

A game's presenter (``bot/presenters/<game>.py``) turns engine views into these plain values;
``cogs/`` maps them onto embeds and components, ``bot/terminal.py`` onto text and prompts. So
the same panel, with the same action codes, drives a player in Discord and in the terminal.

Discord limits these specs must respect (checked by :func:`check_panel_limits` and tests):
5 component rows, 5 buttons per row, 1 select per row, 25 select options, 80-character button
labels, 100-character option labels/descriptions, 150-character placeholders; embeds: title 256,
description 4096, 25 fields, field name 256, field value 1024, footer 2048, 6000 in all.

Discord shows blocks as Components V2 (:func:`block_texts`: a block's text displays inside one
container): at most 40 components in a message (nested ones included) and 4,000 characters of
text displays in all (:data:`V2_COMPONENTS`, :data:`V2_TEXT_TOTAL`, :func:`check_v2_limits`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

Style = Literal["primary", "secondary", "success", "danger"]

MAX_ROWS = 5
MAX_BUTTONS_PER_ROW = 5
MAX_SELECT_OPTIONS = 25
MAX_BUTTON_LABEL = 80
MAX_OPTION_LABEL = 100
MAX_PLACEHOLDER = 150
EMBED_TITLE = 256
EMBED_DESCRIPTION = 4096
EMBED_FIELDS = 25
EMBED_FIELD_NAME = 256
EMBED_FIELD_VALUE = 1024
EMBED_FOOTER = 2048
EMBED_TOTAL = 6000
#: Components V2: components in one message (every nested one counts) and characters of all its
#: text displays together.
V2_COMPONENTS = 40
V2_TEXT_TOTAL = 4000


@dataclass(frozen=True)
class NumberPrompt:
    """Ask for a whole number in ``[minimum, maximum]`` (a Discord modal; a terminal prompt).

    The resulting action code is ``template.format(n=value)``.
    """

    title: str
    label: str
    minimum: int
    maximum: int
    template: str


@dataclass(frozen=True)
class Button:
    """A button. ``code`` is an engine action code; ``prompt`` asks a number first instead."""

    label: str
    code: str = ""
    style: Style = "secondary"
    emoji: str | None = None
    disabled: bool = False
    prompt: NumberPrompt | None = None


@dataclass(frozen=True)
class SelectOption:
    """One option of a :class:`Select`; ``value`` is an action code or a part of one."""

    label: str
    value: str
    description: str | None = None
    default: bool = False


@dataclass(frozen=True)
class Select:
    """A select menu (at most 25 options).

    With ``max_values == 1`` the chosen value is the action code. With several values, the
    action code is ``prefix + ".".join(sorted chosen values)`` (sorted as strings).
    """

    placeholder: str
    options: tuple[SelectOption, ...]
    min_values: int = 1
    max_values: int = 1
    prefix: str = ""

    def code_for(self, values: list[str] | tuple[str, ...]) -> str:
        """The action code for the chosen ``values``.

        >>> Select("Discard", (), max_values=3, prefix="d").code_for(["7", "12", "3"])
        'd12.3.7'
        >>> Select("Trumps", ()).code_for(["t6"])
        't6'
        """
        if self.max_values == 1 and not self.prefix:
            return values[0]
        return self.prefix + ".".join(sorted(values))


Component = Button | Select


@dataclass(frozen=True)
class Field:
    """An embed field."""

    name: str
    value: str
    inline: bool = False


@dataclass(frozen=True)
class Block:
    """One block of text shown as a unit (an embed on Discord, a framed paragraph in the
    terminal): title, description, fields, colour (0xRRGGBB) and footer."""

    title: str
    description: str = ""
    fields: tuple[Field, ...] = ()
    color: int = 0x5865F2
    footer: str = ""


@dataclass(frozen=True)
class Panel:
    """A private panel: a card and up to 5 rows of components."""

    card: Block
    rows: tuple[tuple[Component, ...], ...] = ()
    notice: str = ""

    def codes(self) -> set[str]:
        """Every action code reachable directly from a button or single select (not prompts)."""
        out: set[str] = set()
        for row in self.rows:
            for comp in row:
                if isinstance(comp, Button) and comp.code and not comp.prompt:
                    out.add(comp.code)
                elif isinstance(comp, Select) and comp.max_values == 1 and not comp.prefix:
                    out.update(o.value for o in comp.options)
        return out


@dataclass(frozen=True)
class Board:
    """The public board of a table: one card plus the recent event log lines."""

    card: Block
    log: tuple[str, ...] = field(default_factory=tuple)


def block_length(card: Block) -> int:
    """Characters Discord counts toward the 6000-character embed total."""
    return len(card.title) + len(card.description) + len(card.footer) + sum(
        len(f.name) + len(f.value) for f in card.fields
    )


def check_block_limits(card: Block) -> list[str]:
    """Return the list of Discord embed limits ``card`` breaks (empty when it fits)."""
    errors = []
    if not card.title or len(card.title) > EMBED_TITLE:
        errors.append("title length")
    if len(card.description) > EMBED_DESCRIPTION:
        errors.append("description length")
    if len(card.fields) > EMBED_FIELDS:
        errors.append("too many fields")
    for f in card.fields:
        if not f.name or len(f.name) > EMBED_FIELD_NAME:
            errors.append(f"field name length: {f.name[:20]!r}")
        if not f.value or len(f.value) > EMBED_FIELD_VALUE:
            errors.append(f"field value length: {f.name[:20]!r}")
    if len(card.footer) > EMBED_FOOTER:
        errors.append("footer length")
    if block_length(card) > EMBED_TOTAL:
        errors.append("embed total length")
    return errors


def check_panel_limits(panel: Panel) -> list[str]:
    """Return the list of Discord component/embed limits ``panel`` breaks (empty when it fits)."""
    errors = check_block_limits(panel.card)
    if len(panel.rows) > MAX_ROWS:
        errors.append("too many rows")
    for i, row in enumerate(panel.rows):
        selects = [c for c in row if isinstance(c, Select)]
        if selects and len(row) != 1:
            errors.append(f"row {i}: a select must be alone in its row")
        if len(row) > MAX_BUTTONS_PER_ROW or not row:
            errors.append(f"row {i}: 1 to 5 components")
        for comp in row:
            if isinstance(comp, Button):
                if not comp.label or len(comp.label) > MAX_BUTTON_LABEL:
                    errors.append(f"row {i}: button label length")
            else:
                if not 1 <= len(comp.options) <= MAX_SELECT_OPTIONS:
                    errors.append(f"row {i}: select needs 1 to 25 options")
                if len(comp.placeholder) > MAX_PLACEHOLDER:
                    errors.append(f"row {i}: placeholder length")
                if not 1 <= comp.max_values <= len(comp.options) or comp.min_values > comp.max_values:
                    errors.append(f"row {i}: min/max values")
                for o in comp.options:
                    if not o.label or len(o.label) > MAX_OPTION_LABEL:
                        errors.append(f"row {i}: option label length")
                    if o.description and len(o.description) > MAX_OPTION_LABEL:
                        errors.append(f"row {i}: option description length")
                if len({o.value for o in comp.options}) != len(comp.options):
                    errors.append(f"row {i}: duplicate option values")
    return errors


def _heading(card: Block) -> str:
    return f"### {card.title}" + (f"\n{card.description}" if card.description else "")


def _fields_text(fields: tuple[Field, ...]) -> str:
    return "\n\n".join(f"**{f.name}**\n{f.value}" for f in fields)


def _footer_text(footer: str) -> str:
    return "\n".join(f"-# {line}" for line in footer.splitlines() if line.strip())


def block_texts(card: Block, budget: int = V2_TEXT_TOTAL) -> tuple[str, ...]:
    """The text displays of ``card`` in a Components V2 message, at most ``budget`` characters
    in all: its title as a heading with its description, its fields (bold names) as one text,
    its footer as small text. Over the budget, the last fields go first, then the description
    is cut (ending with "…").

    >>> block_texts(Block("Lobby", "Open", (Field("Seats", "1. Ann"),), footer="Join below"))
    ('### Lobby\\nOpen', '**Seats**\\n1. Ann', '-# Join below')
    >>> sum(map(len, block_texts(Block("T", "x" * 5000), budget=100)))
    100
    """
    footer = _footer_text(card.footer)[: budget // 4]
    fields = card.fields
    while fields and len(_heading(card)) + len(_fields_text(fields)) + len(footer) > budget:
        fields = fields[:-1]
    rest = budget - len(_fields_text(fields)) - len(footer)
    head = _heading(card)
    if len(head) > rest:
        head = head[: max(rest - 1, 0)] + "…"
    return tuple(t for t in (head, _fields_text(fields), footer) if t)


def check_v2_limits(texts: list[str] | tuple[str, ...], components: int) -> list[str]:
    """The Components V2 limits a message with these text displays and ``components`` components
    (every nested one counted) breaks (empty when it fits)."""
    errors = []
    if components > V2_COMPONENTS:
        errors.append(f"{components} components (at most {V2_COMPONENTS})")
    total = sum(len(t) for t in texts)
    if total > V2_TEXT_TOTAL:
        errors.append(f"{total} characters of text (at most {V2_TEXT_TOTAL})")
    if any(not t for t in texts):
        errors.append("an empty text display")
    return errors
