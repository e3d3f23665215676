"""Moonshine pictures: the public table and the private panel, from the typed views of
:mod:`engine.moonshine.view` (:class:`MoonshineView`, a seat's :class:`PlayerView`) and the
printed card data (:func:`engine.moonshine.cards.client_of`: names, costs, bonuses). The status
line, the follow-up tasks, the pending follow-ups and the card names are the text board's
(:mod:`bot.presenters.moonshine`).

Board: round and goal, the dice on the Active player card (white, blue ``B`` and orange ``O``
dice showing their resource; a blue or orange die the active player did not roll, having no
access to it, is dimmed, struck through and named "not rolled (no access)" beside them; no dice
once the game is over), then every seat:
points and Moon tokens, its Speakeasy with its Moon-token spaces (filled or empty) and their
bonuses, its icons, its Clients in front drawn as strips (colour with its shape, points, cost,
upper part, lower bonus), its validated Clients by colour and what it still has to do. Rules:
``docs/rules/moonshine.md``. Every icon is explained by the legend.

The board fits a phone: at most 1,400 px tall at 5 players, with the rules' most Clients in
front (every seat's Client-card icons) drawn as the widest strips of the card set
(``tests/test_render_phone.py``). A seat's rows stay few as the game goes on: an icon count
alone is one ("×2" from two on), the validated Clients' lower bonuses are grouped by icon, what is
left to do says "placing a 🌙" with the Moon token icon and breaks between follow-ups, a strip's
cost shows 3 or more of a resource as one icon and its count, so that a strip takes two rows
only for a few long names (3 of the current card set's 70 in French, none in English).

Panel: the same seat block for the reader plus the cards offered to it; every Client, Speakeasy
space and action that is legal now is framed in blue.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

from bot.i18n import Translator
from bot.presenters.base import RenderContext
from bot.presenters.moonshine import (
    DIE_CODES,
    SIMPLE_ACTIONS,
    card_name,
    collapse_repeats,
    pending_parts,
    round_text,
    simple_action_text,
    speakeasy_name,
    status_text,
    task_text,
    validated_by_colour,
)
from bot.render import style
from bot.render.draw import Canvas, chip, die, legal_frame, legal_key, moon, name_of, reroll_icon, seat_chip, shape
from bot.render.style import Colour, plain
from engine.moonshine.cards import client_of, speakeasy_of
from engine.moonshine.view import MoonshineView, PlayerView, SeatBoard

_ICON = 28
_CARD_W = 354
_CARD_H = 150
#: Height in px of a Client name's second line in its band.
_LINE2 = 30
_DIE_FILLS: tuple[Colour, ...] = ((255, 255, 255),) * 3 + (style.SKY, style.ORANGE)
_DIE_TAGS = ("", "", "", "B", "O")
_RES_COLOURS: dict[str, Colour] = {"food": style.VERMILLION, "music": style.BLUE, "drink": style.ORANGE}


# --- icons --------------------------------------------------------------------------------------
def resource(c: Canvas, res: str, x: int, y: int, s: int) -> None:
    """A resource icon: food (a drumstick), music (a note), drink (a glass), any (a star);
    two-way choices (``food_or_music``…) as two halves."""
    if "_or_" in res:
        a, b = res.split("_or_")
        resource(c, a, x, y, s * 2 // 3)
        c.d.line((x + s * 2 // 3, y + s, x + s * 2 // 3 + 6, y), fill=style.INK, width=2)
        resource(c, b, x + s * 2 // 3 + 6, y + s // 3, s * 2 // 3)
        return
    if res == "food":
        c.d.ellipse((x + s * 0.3, y, x + s, y + s * 0.7), fill=style.VERMILLION, outline=style.INK, width=2)
        c.d.line((x + s * 0.45, y + s * 0.55, x + s * 0.1, y + s * 0.9), fill=style.INK, width=max(3, s // 7))
        c.d.ellipse((x, y + s * 0.78, x + s * 0.25, y + s), fill=(255, 255, 255), outline=style.INK, width=2)
    elif res == "music":
        c.d.ellipse((x + s * 0.05, y + s * 0.62, x + s * 0.45, y + s * 0.98), fill=style.BLUE, outline=style.INK)
        c.d.line((x + s * 0.42, y + s * 0.8, x + s * 0.42, y + s * 0.05), fill=style.INK, width=max(3, s // 8))
        c.d.polygon([(x + s * 0.42, y + s * 0.05), (x + s * 0.9, y + s * 0.25), (x + s * 0.42, y + s * 0.38)],
                    fill=style.BLUE, outline=style.INK)
    elif res == "drink":
        c.d.polygon([(x + s * 0.1, y + s * 0.05), (x + s * 0.9, y + s * 0.05), (x + s * 0.75, y + s * 0.95),
                     (x + s * 0.25, y + s * 0.95)], fill=(255, 255, 255), outline=style.INK, width=2)
        c.d.polygon([(x + s * 0.18, y + s * 0.35), (x + s * 0.82, y + s * 0.35), (x + s * 0.74, y + s * 0.9),
                     (x + s * 0.26, y + s * 0.9)], fill=style.ORANGE)
    elif res == "moon":
        moon(c, x, y, s)
    else:  # any
        shape(c, "star", (x, y, x + s, y + s), (255, 255, 255))
        c.d.ellipse((x + s * 0.4, y + s * 0.42, x + s * 0.6, y + s * 0.62), fill=style.PURPLE)


def colour_mark(c: Canvas, colour: str, x: int, y: int, s: int) -> None:
    """A Client colour: its fill and its own shape (triangle, circle, diamond, square, cross)."""
    shape(c, style.COLOUR_SHAPES.get(colour, "circle"), (x, y, x + s, y + s),
          style.CLIENT_COLOURS.get(colour, style.MUTED))


def icon(c: Canvas, kind: str, x: int, y: int, s: int, colour: str | None = None, res: str | None = None) -> None:
    """Any card icon by kind (``resource``, ``reroll``, ``draw``, ``client``, ``blue_die``,
    ``orange_die``, ``discount``, ``majority``, ``silhouette``) and the seat blocks' marks
    (``validated``: the validated Clients; ``todo``: what a seat still has to do)."""
    if kind == "resource":
        resource(c, res or "any", x, y, s)
    elif kind == "reroll":
        reroll_icon(c, x, y, s)
    elif kind == "draw":
        c.d.ellipse((x, y + s * 0.2, x + s, y + s * 0.8), fill=(255, 255, 255), outline=style.INK, width=2)
        c.d.ellipse((x + s * 0.32, y + s * 0.32, x + s * 0.68, y + s * 0.68), fill=style.INK)
    elif kind == "client":
        c.d.rounded_rectangle((x + s * 0.18, y, x + s * 0.82, y + s), radius=4, fill=(255, 255, 255),
                              outline=style.INK, width=2)
        c.d.rectangle((x + s * 0.25, y + s * 0.1, x + s * 0.75, y + s * 0.3), fill=style.GREEN)
    elif kind in ("blue_die", "orange_die"):
        fill = style.SKY if kind == "blue_die" else style.ORANGE
        c.d.rounded_rectangle((x, y, x + s, y + s), radius=5, fill=fill, outline=style.INK, width=2)
        c.text(x + s // 2, y + s // 2, "B" if kind == "blue_die" else "O", style.SMALL, style.INK, bold=True,
               anchor="mm")
    elif kind == "discount":
        c.d.polygon([(x, y + s * 0.5), (x + s * 0.35, y + s * 0.1), (x + s, y + s * 0.1), (x + s, y + s * 0.9),
                     (x + s * 0.35, y + s * 0.9)], fill=style.YELLOW, outline=style.INK, width=2)
        c.text(x + s * 2 // 3, y + s // 2, "−", style.SMALL, style.INK, bold=True, anchor="mm")
    elif kind == "majority":
        c.d.ellipse((x, y, x + s, y + s), fill=(255, 255, 255), outline=style.INK, width=2)
        c.text(x + s // 2, y + s // 2, "?", style.SMALL, style.INK, bold=True, anchor="mm")
    elif kind == "validated":  # a Client card with a check mark
        c.d.rounded_rectangle((x + s * 0.12, y, x + s * 0.78, y + s), radius=4, fill=(255, 255, 255),
                              outline=style.INK, width=2)
        c.d.line((x + s * 0.3, y + s * 0.55, x + s * 0.48, y + s * 0.78, x + s * 0.98, y + s * 0.22),
                 fill=style.GREEN, width=max(3, s // 7))
    elif kind == "todo":  # an hourglass
        c.d.polygon([(x + s * 0.2, y + s * 0.05), (x + s * 0.8, y + s * 0.05), (x + s * 0.5, y + s * 0.5)],
                    fill=style.ORANGE, outline=style.INK, width=2)
        c.d.polygon([(x + s * 0.5, y + s * 0.5), (x + s * 0.8, y + s * 0.95), (x + s * 0.2, y + s * 0.95)],
                    fill=(255, 255, 255), outline=style.INK, width=2)
    elif kind == "silhouette":
        fill = style.CLIENT_COLOURS.get(colour or "", style.MUTED)
        c.d.ellipse((x + s * 0.3, y, x + s * 0.7, y + s * 0.4), fill=fill, outline=style.INK)
        c.d.pieslice((x + s * 0.08, y + s * 0.42, x + s * 0.92, y + s * 1.3), 180, 360, fill=fill, outline=style.INK)
        colour_mark(c, colour or "", x + s * 2 // 3, y + s * 2 // 3, s // 3 + 2)


def _icons(c: Canvas, icons: Sequence[Any], x: int, y: int, s: int = _ICON) -> int:
    """Card icons in a row from ``x``; returns the x after them."""
    for i in icons:
        icon(c, i.kind, x, y, s, colour=getattr(i, "colour", None), res=getattr(i, "res", None))
        x += s + (s // 2 if getattr(i, "res", "") and "_or_" in i.res else 0) + 6
    return x


def slot(c: Canvas, spaces: int, tokens: int, bonus: Sequence[Any], x: int, y: int, s: int = _ICON) -> int:
    """A Moon-token slot: its spaces (filled crescent = covered, white ring = empty), then its
    bonus icons after a small arrow. Returns the x after it."""
    x0 = x
    for i in range(spaces):
        moon(c, x, y, s, filled=i < tokens)
        x += s + 4
    c.d.polygon([(x + 2, y + s * 0.3), (x + 12, y + s * 0.5), (x + 2, y + s * 0.7)], fill=style.MUTED)
    x = _icons(c, bonus, x + 16, y, s)
    c.d.rounded_rectangle((x0 - 5, y - 5, x, y + s + 5), radius=8, outline=style.LINE, width=2)
    return x + 10


# --- pieces -------------------------------------------------------------------------------------
def name_lines(c: Canvas, cid: int, t: Translator, w: int = _CARD_W) -> list[str]:
    """The Client's name as it fits in its band: one line, or two when one does not fit in
    ``w - 110`` px at the smallest font (the second line clipped with "…" only past two lines)."""
    return c.wrap(card_name(cid, t), w - 110, style.SMALL, bold=True, max_lines=2)


def band_extra(c: Canvas, cids: Sequence[int], t: Translator, w: int = _CARD_W) -> int:
    """The px a row of Client cards adds to its bands: one line when a name in the row takes
    two (the bands of a row are drawn the same height)."""
    return _LINE2 if any(len(name_lines(c, cid, t, w)) > 1 for cid in cids) else 0


def _effect_text(card: Any) -> str:
    return "+2" if card.upper.effect == "plus2_moon" else "+1/−1"


def instant_lines(c: Canvas, cid: int, t: Translator, w: int = _CARD_W) -> list[str]:
    """An instant upper effect's label ("instant effect") in the room after its "+2 🌙" or
    "+1/−1 🌙" and before the divider of the lower bonus: one line, or more when it does not fit
    (never clipped); ``[]`` for a card with a Moon-token slot."""
    card = client_of(cid)
    if card.upper.kind != "instant":
        return []
    start = 54 + c.width(_effect_text(card), style.SMALL, True)
    end = _lower_x(card, w) - 8 - 12 if card.lower else w - 10
    return c.wrap(t("ms.pic.instant"), end - start, style.SMALL)


def _lower_x(card: Any, w: int) -> int:
    """Where a card's lower bonus starts, from the card's left edge (its divider is 8 px before)."""
    return w - 12 - len(card.lower) * (_ICON + 12)


def row_height(c: Canvas, cids: Sequence[int], t: Translator, w: int = _CARD_W) -> int:
    """Height in px of a row of Client cards: :data:`_CARD_H`, plus :func:`band_extra`, plus a
    line per extra line of an instant effect's label (the cards of a row are drawn the same
    height)."""
    more = max((len(instant_lines(c, cid, t, w)) - 1 for cid in cids), default=0)
    return _CARD_H + band_extra(c, cids, t, w) + _LINE2 * max(0, more)


def client_card(c: Canvas, cid: int, x: int, y: int, t: Translator, tokens: int = 0, legal: bool = False,
                w: int = _CARD_W, slot_legal: bool = False, h: int = _CARD_H, band: int | None = None) -> None:
    """A Client card of ``h`` px (see :func:`row_height`) whose band is ``band`` px taller (its
    row's :func:`band_extra`; by default its own): colour band with its shape and name (one or
    two lines), points (a star), its cost (resources and Moon tokens), its upper part (slot with
    tokens or instant effect) and its lower bonus."""
    card = client_of(cid)
    fill = style.CLIENT_COLOURS.get(card.colour, style.MUTED)
    extra = band_extra(c, [cid], t, w) if band is None else band
    bottom = y + h
    c.d.rounded_rectangle((x, y, x + w, y + h), radius=12, fill=(255, 255, 255), outline=style.INK, width=2)
    c.d.rounded_rectangle((x + 2, y + 2, x + w - 2, y + 40 + extra), radius=10, fill=fill)
    colour_mark(c, card.colour, x + 8, y + 7, 26)
    ink = style.INK if sum(fill) > 420 else (255, 255, 255)
    for k, line in enumerate(name_lines(c, cid, t, w)):
        c.text(x + 42, y + 21 + k * _LINE2, line, style.SMALL, ink, bold=True, max_w=w - 110, anchor="lm")
    shape(c, "star", (x + w - 62, y + 6, x + w - 34, y + 34), style.YELLOW)
    c.text(x + w - 12, y + 21, str(card.points), style.SMALL, ink, bold=True, anchor="rm")
    y += extra
    # cost
    cx, cy = x + 10, y + 50
    for res in ("food", "music", "drink"):
        for _ in range(getattr(card.cost, res)):
            resource(c, res, cx, cy, 26)
            cx += 30
    if card.cost.moon:
        moon(c, cx + 4, cy, 26)
        c.text(cx + 34, cy + 13, f"×{card.cost.moon}", style.SMALL, bold=True, anchor="lm")
    # upper part
    uy = y + 96
    up = card.upper
    if up.kind == "instant":
        w0 = c.text(x + 10, uy + 14, _effect_text(card), style.SMALL, bold=True, anchor="lm")
        moon(c, x + 18 + w0, uy, 28)
        for k, line in enumerate(instant_lines(c, cid, t, w)):
            c.text(x + 54 + w0, uy + 14 + k * _LINE2, line, style.SMALL, style.MUTED, anchor="lm")
    else:
        end = slot(c, up.spaces, tokens, up.bonus, x + 14, uy)
        if slot_legal:
            legal_frame(c, (x + 9, uy - 5, end - 10, uy + _ICON + 5))
    if card.lower:
        lx = x + _lower_x(card, w)
        c.d.line((lx - 8, uy - 4, lx - 8, uy + _ICON + 4), fill=style.LINE, width=2)
        _icons(c, card.lower, lx, uy)
    if legal:
        legal_frame(c, (x, y - extra, x + w, bottom))


def _status(view: MoonshineView, names: Sequence[str], t: Translator) -> str:
    return plain(status_text(view, RenderContext(t, tuple(names))))


def _task(view: MoonshineView, legal: Sequence[str], names: Sequence[str], t: Translator) -> str:
    """The sentence under "Your turn": the seat's own task, as its text panel says it
    (:func:`bot.presenters.moonshine.task_text`); in the roll and the action phases, where the
    dice and the chips say the task, the table's status."""
    queue = view.private.queue if isinstance(view, PlayerView) else ()
    task = task_text(legal[0].partition(".")[0], queue[0] if queue else None, t) if legal else None
    return _status(view, names, t) if task is None else plain(task)


def _dice(c: Canvas, view: MoonshineView, names: Sequence[str], t: Translator, legal_dice: set[int]) -> None:
    """The dice on the Active player card in one row, the active player's name beside them with
    "active player" and, under them, why the coloured dice show no face when they were not
    rolled."""
    x = style.MARGIN
    if legal_dice:
        c.y += 16  # framed dice: room for their badges
    top = c.y
    dice = view.dice
    unrolled = unrolled_dice(dice)
    size, step = 56, 68
    for i, face in enumerate(dice):
        dx = x + i * step
        if i in unrolled:  # dimmed and struck through: not a blank face
            die(c, dx, top, size, None, fill=_dim(_DIE_FILLS[i]), outline=style.LINE)
            c.d.line((dx + 9, top + size - 9, dx + size - 9, top + 9), fill=style.LINE, width=4)
        else:
            die(c, dx, top, size, None, fill=_DIE_FILLS[i])
        if face:
            resource(c, face, dx + 7, top + 7, 31 if _DIE_TAGS[i] else 38)
        if _DIE_TAGS[i]:
            c.text(dx + size - 4, top + size - 2, _DIE_TAGS[i], style.SMALL, style.MUTED if i in unrolled else style.INK,
                   bold=True, anchor="rb")
        if i in legal_dice:
            legal_frame(c, (dx, top, dx + size, top + size))
    tx = x + len(dice) * step + 4
    room = style.WIDTH - style.MARGIN - tx
    active = t("ms.pic.active")
    aw = c.width(active, style.SMALL)
    used = seat_chip(c, tx, top - 2, view.active, name_of(names, view.active), room - aw - 16)
    c.text(tx + used + 12, top + 1, active, style.SMALL, style.MUTED)
    c.y = top + size + 10
    if unrolled:  # beside the dice, under the active player (two lines at most)
        key = "unrolled_both" if len(unrolled) == 2 else "unrolled_blue" if unrolled[0] == 3 else "unrolled_orange"
        y = top + style.BODY
        for line in _note_lines(c, t(f"ms.pic.{key}"), room):
            c.text(tx, y, line, style.SMALL, style.MUTED)
            y += style.SMALL + 2
        c.y = max(c.y, y + 10)


def _note_lines(c: Canvas, text: str, room: int) -> list[str]:
    """A note in ``room`` px: one line, or two, broken before its parenthesis when it has one
    ("Blue and orange dice not rolled" / "(no access)")."""
    head, paren, tail = text.partition(" (")
    if c.width(text, style.SMALL) > room and paren and c.width(head, style.SMALL) <= room:
        return [head, c.fit("(" + tail, room, style.SMALL)]
    return c.wrap(text, room, style.SMALL, max_lines=2)


def unrolled_dice(dice: Sequence[str]) -> list[int]:
    """Positions (3 = blue, 4 = orange) of the coloured dice the active player did not roll this
    round, having no access to them (``docs/rules/moonshine.md``, "A round", step 1): left blank
    while the white dice (0-2) show faces. Before the roll every die is blank: none is listed."""
    return [i for i in (3, 4) if any(dice[:3]) and i < len(dice) and not dice[i]]


def _dim(colour: Colour) -> Colour:
    """``colour`` faded two thirds of the way into the paper (a die not rolled this round)."""
    return tuple((2 * b + a) // 3 for a, b in zip(colour, style.BG, strict=True))  # type: ignore[return-value]


#: Icon size and row height in px of the seat blocks (a phone shows the picture about 360 px
#: wide: a row of text stays at :data:`bot.render.style.SMALL` px, 12.6 px there).
_S = 26
_ROW = 32
#: Gap in px between the items of a seat's rows.
_GAP = 14
#: Row height and icon size of a Client strip.
_STRIP = 31
_SI = 22
#: The least gap in px between a strip's points and its cost.
_LEAD = 8
#: From this many units of a resource on, a strip draws that part of the cost as one icon and its
#: count ("×4"); fewer are drawn one icon a unit.
_RUN = 3


def _icons_width(icons: Sequence[Any], s: int = _S) -> int:
    """The width :func:`_icons` takes for ``icons``."""
    return sum(s + (s // 2 if getattr(i, "res", "") and "_or_" in i.res else 0) + 6 for i in icons)


def slot_width(spaces: int, bonus: Sequence[Any], s: int = _S) -> int:
    """The width :func:`slot` takes (its frame and the gap after it included)."""
    return spaces * (s + 4) + 16 + _icons_width(bonus, s) + 10


Item = tuple[int, Callable[[int, int], None]]


def _flow(c: Canvas, items: Sequence[Item], x0: int, x1: int, row: int = _ROW, gap: int = _GAP) -> None:
    """Items ``(width, draw(x, y))`` placed left to right from ``c.y``, a new row of ``row`` px
    when the next one does not fit before ``x1``; advances ``c.y`` past the last row."""
    x = x0
    for w, draw in items:
        if x > x0 and x + w > x1:
            x, c.y = x0, c.y + row
        draw(x, c.y)
        x += w + gap
    c.y += row


def _count(n: int) -> str:
    """The count after an icon: "×3", "×0", nothing for one (an icon alone is one)."""
    return "" if n == 1 else f"×{n}"


def _grouped_width(c: Canvas, grouped: dict[Any, int]) -> int:
    """The width :func:`_grouped` takes."""
    return sum(_icons_width([i]) + (c.width(f"×{n}", style.SMALL, True) + 4 if n > 1 else 0)
               for i, n in grouped.items())


def _grouped(c: Canvas, grouped: dict[Any, int], x: int, y: int) -> None:
    """Card icons in a row from ``x``, each once with its count when it is there more than once
    ("×2")."""
    for i, n in grouped.items():
        x = _icons(c, [i], x, y, _S)
        if n > 1:
            x += c.text(x - 4, y + _S // 2, f"×{n}", style.SMALL, bold=True, anchor="lm") + 4


def _counted(c: Canvas, kind: str, n: int | None) -> Item:
    """An icon with its count ("×3"; alone for one, or ``n`` None)."""
    label = "" if n is None else _count(n)
    w = _S + (6 + c.width(label, style.SMALL, True) if label else 0)

    def draw(x: int, y: int) -> None:
        icon(c, kind, x, y + 2, _S)
        if label:
            c.text(x + _S + 6, y + 2 + _S // 2, label, style.SMALL, bold=True, anchor="lm")
    return w, draw


def _upper_width(c: Canvas, cid: int) -> int:
    card = client_of(cid)
    if card.upper.kind == "instant":
        return c.width(_effect_text(card), style.SMALL, True) + 6 + _SI
    return slot_width(card.upper.spaces, card.upper.bonus, _SI) - 6


def strip_height(c: Canvas, cid: int, x0: int, x1: int, t: Translator) -> int:
    """Height in px of :func:`client_strip` between ``x0`` and ``x1``: one row, or two when the
    name and the card's icons do not fit on one."""
    one_row = c.width(card_name(cid, t), style.SMALL, True) <= _name_room(c, cid, x0, x1, True)
    return _STRIP if one_row else 2 * _STRIP


def _name_room(c: Canvas, cid: int, x0: int, x1: int, one_row: bool) -> int:
    """The px a strip's name has: from after its colour mark to its star and points, which come
    before its cost, upper part and lower bonus (``one_row``) or the strip's right edge."""
    tail = 2 + _SI + 12 + c.width(str(client_of(cid).points), style.SMALL, True)
    return (x1 - 8 - _strip_rest(c, cid) if one_row else x1 - 8) - (x0 + 12 + _SI + 10) - tail


def _strip_cost(c: Canvas, cid: int) -> list[tuple[str, int, int]]:
    """A strip's cost as (resource, units, width) in drawing order: Food, Music, Drink as one
    icon a unit, or one icon and "×n" from :data:`_RUN` units on; then the Moon tokens with
    their count."""
    card = client_of(cid)
    out = []
    for res in ("food", "music", "drink", "moon"):
        n = getattr(card.cost, res)
        if n and (res == "moon" or n >= _RUN):
            out.append((res, n, _SI + 2 + c.width(f"×{n}", style.SMALL, True) + 8))
        elif n:
            out.append((res, n, n * (_SI + 2)))
    return out


def _strip_rest(c: Canvas, cid: int) -> int:
    card = client_of(cid)
    cost = sum(w for _, _, w in _strip_cost(c, cid))
    lower = (16 + _icons_width(card.lower, _SI)) if card.lower else 0
    return _LEAD + cost + 10 + _upper_width(c, cid) + lower


def client_strip(c: Canvas, cid: int, x0: int, x1: int, t: Translator, tokens: int = 0, legal: bool = False,
                 slot_legal: bool = False) -> None:
    """A Client in front of a seat as a strip from ``c.y`` (advanced past it): its colour and
    shape, name and points, then its cost (resources and Moon tokens), its upper part (slot with
    its tokens, or instant effect) and its lower bonus after a divider; on two rows when one is
    not wide enough (see :func:`strip_height`). The same facts as :func:`client_card`."""
    card = client_of(cid)
    h = strip_height(c, cid, x0, x1, t)
    two = h > _STRIP
    if two and slot_legal:  # the slot's badge stays clear of the name above it
        h += 20
    top = c.y
    c.d.rounded_rectangle((x0, top, x1, top + h - 2), radius=8, fill=(255, 255, 255), outline=style.LINE, width=2)
    fill = style.CLIENT_COLOURS.get(card.colour, style.MUTED)
    c.d.rounded_rectangle((x0 + 2, top + 2, x0 + 6, top + h - 4), radius=2, fill=fill)
    y = top + 3  # the top of a row's icons; its text is centred on y + mid
    mid = _SI // 2 + 1
    x = x0 + 12
    colour_mark(c, card.colour, x, y - 1, _SI + 2)
    x += _SI + 10
    rest = _strip_rest(c, cid)
    x += 2 + c.text(x, y + mid, card_name(cid, t), style.SMALL, bold=True, max_w=_name_room(c, cid, x0, x1, not two),
                    anchor="lm")
    shape(c, "star", (x + 6, y, x + 6 + _SI, y + _SI), style.YELLOW)
    x += _SI + 12
    c.text(x, y + mid, str(card.points), style.SMALL, bold=True, anchor="lm")
    if two:
        x, y = x0 + 12 + _SI + 10, y + h - _STRIP
    else:
        x = x1 - 8 - rest + _LEAD
    for res, n, w in _strip_cost(c, cid):
        if res == "moon" or n >= _RUN:
            resource(c, res, x, y, _SI)
            c.text(x + _SI + 2, y + mid, f"×{n}", style.SMALL, bold=True, anchor="lm")
        else:
            for k in range(n):
                resource(c, res, x + k * (_SI + 2), y, _SI)
        x += w
    x += 10
    up = card.upper
    if up.kind == "instant":
        x += c.text(x, y + mid, _effect_text(card), style.SMALL, bold=True, anchor="lm") + 6
        moon(c, x, y, _SI)
        x += _SI
    else:
        end = slot(c, up.spaces, tokens, up.bonus, x + 4, y, _SI)
        if slot_legal:
            legal_frame(c, (x - 1, y - 5, end - 10, y + _SI + 5))
        x = end - 6
    if card.lower:
        x += 8
        c.d.line((x, y - 1, x, y + _SI + 1), fill=style.LINE, width=2)
        _icons(c, card.lower, x + 8, y, _SI)
    if legal:
        legal_frame(c, (x0, top, x1, top + h - 2))
    c.y = top + h + 2


def _todo_items(c: Canvas, seat: SeatBoard, t: Translator, left: int, room: int) -> list[Item]:
    """What a seat still has to do, one item a follow-up so that a row breaks between two of
    them (the first, and any that starts a row, after the hourglass; the others after a "·"):
    the 🌙 of "placing a 🌙", "discarding 2 🌙" is drawn as the Moon token icon; in words ("Moon
    token") when a follow-up with icons would not fit in ``room`` px. ``left``: the rows' left
    edge."""
    parts = pending_parts(seat, t)
    moons = [n for k, (text, n) in enumerate(parts) if not k or text != parts[k - 1][0]]  # a run's first
    items: list[Item] = []
    for k, (part, n) in enumerate(zip(collapse_repeats([text for text, _ in parts]), moons, strict=True)):
        pieces = [plain(p) for p in part.split("🌙")]
        w = _S + 6 + sum(c.width(p, style.SMALL) for p in pieces) + (len(pieces) - 1) * (_S + 12)
        if w > room:
            pieces = [c.fit(plain(part.replace("🌙", t("ms.pic.moon", n=n))), room - _S - 6, style.SMALL)]
            w = _S + 6 + c.width(pieces[0], style.SMALL)
        items.append((w, partial(_todo, c, pieces, k == 0, left)))
    return items


def _todo(c: Canvas, pieces: Sequence[str], first: bool, left: int, x: int, y: int) -> None:
    """A follow-up to do: its texts with a Moon token icon between them, after the hourglass
    (the ``first`` one, or one at the rows' ``left`` edge) or a "·"; centred on the icons, as
    the counts beside it: the descenders stay inside the row."""
    mid = y + 2 + _S // 2
    if first or x <= left:
        icon(c, "todo", x, y + 2, _S)
        x += _S + 6
    else:
        x += c.text(x, mid, "·", style.SMALL, style.MUTED, anchor="lm") + 8
    for k, piece in enumerate(pieces):
        if k:
            moon(c, x + 6, y + 2, _S)
            x += _S + 12
        x += c.text(x, mid, piece, style.SMALL, style.MUTED, anchor="lm") if piece else 0


def _silhouette(c: Canvas, colour: str, x: int, y: int) -> None:
    icon(c, "silhouette", x, y + 2, _S, colour=colour)


def _seat(c: Canvas, i: int, view: MoonshineView, names: Sequence[str], t: Translator,
          legal_cards: set[int] | None = None, legal_slots: set[str] | None = None) -> None:
    """A seat's block: its head (:func:`_seat_head`) and each Client in front as a strip
    (:func:`client_strip`), each a band, so that a step redraws only what it changed. A rule
    above each seat; the seat to act has a dark bar on its left (and the ▶ of its name). Legal
    cards and spaces are framed."""
    seat = view.seats[i]
    current = view.phase not in ("over",) and i in view.to_act
    cards = frozenset(legal_cards or ()) & frozenset(seat.clients)
    slots = frozenset(legal_slots or ())
    marked = bool(cards or slots)
    name = name_of(names, i)
    head = ("ms-head", i, name, current, seat.speakeasy, seat.se_tokens, seat.validated, seat.points, seat.tokens,
            seat.icons, seat.pending, seat.lose, view.variant, view.phase == "over", slots, marked, t.lang)
    c.band(head, partial(_seat_head, i=i, view=view, names=names, t=t, legal_slots=set(slots), marked=marked,
                         current=current))
    for cid, tok in zip(seat.clients, seat.cl_tokens, strict=False):
        legal, slot_legal = cid in cards, f"c{cid}" in slots
        c.band(("ms-strip", cid, tok, legal, slot_legal, current, marked, t.lang),
               partial(_seat_strip, cid=cid, tok=tok, t=t, legal=legal, slot_legal=slot_legal, marked=marked,
                       current=current))
    c.y += 4


def _current_bar(c: Canvas, top: int, current: bool) -> None:
    """The dark bar left of the rows of the seat to act, from ``top`` to ``c.y``."""
    if current:
        c.d.rectangle((style.MARGIN, top + 6, style.MARGIN + 4, c.y - 1), fill=style.INK)


def _seat_strip(c: Canvas, cid: int, tok: int, t: Translator, legal: bool, slot_legal: bool, marked: bool,
                current: bool) -> None:
    top = c.y
    if marked:
        c.y += 18  # room for this strip's badge, clear of the texts above
    client_strip(c, cid, style.MARGIN + 10, style.WIDTH - style.MARGIN - 10, t, tokens=tok, legal=legal,
                 slot_legal=slot_legal)
    if marked:
        c.y += 4  # the legal frame's lower edge
    _current_bar(c, top, current)


def _seat_head(c: Canvas, i: int, view: MoonshineView, names: Sequence[str], t: Translator, legal_slots: set[str],
               marked: bool, current: bool) -> None:
    """A seat's name, Speakeasy, points and Moon tokens on one row; its Speakeasy spaces (filled
    or empty) with their bonuses, its silhouettes, its icons, its validated Clients by colour
    and what it still has to do flowing on the next rows."""
    seat = view.seats[i]
    x0, x1 = style.MARGIN, style.WIDTH - style.MARGIN
    top = c.y
    c.d.line((x0, top + 1, x1, top + 1), fill=style.LINE, width=2)
    c.y += 6
    right = x1 - 12
    w = c.text(right, c.y + 2, str(seat.tokens), style.BODY, bold=True, anchor="ra")
    moon(c, right - w - 34, c.y + 2, 28)
    right -= w + 48
    w = c.text(right, c.y + 2, str(seat.points), style.BODY, bold=True, anchor="ra")
    shape(c, "star", (right - w - 34, c.y + 2, right - w - 6, c.y + 30), style.YELLOW)
    right -= w + 50
    used = seat_chip(c, x0 + 10, c.y, i, name_of(names, i), min(330, right - x0 - 10), current=current)
    c.text(x0 + 10 + used + 14, c.y + 3, speakeasy_name(seat.speakeasy, t), style.SMALL, style.MUTED, bold=True,
           max_w=right - (x0 + 10 + used + 14))
    c.y += style.BODY + (30 if legal_slots else 6)
    # Speakeasy spaces, silhouettes, icons, validated Clients
    side = speakeasy_of(seat.speakeasy).side(view.variant)
    items: list[Item] = []
    for k, (sl, tok) in enumerate(zip(side.slots, seat.se_tokens, strict=False)):
        def draw_slot(x: int, y: int, sl: Any = sl, tok: int = tok, k: int = k) -> None:
            end = slot(c, sl.spaces, tok, sl.bonus, x + 5, y + 2)
            if f"s{k}" in legal_slots:
                legal_frame(c, (x, y - 3, end - 10, y + _S + 7))
        items.append((slot_width(sl.spaces, sl.bonus) - 4, draw_slot))
    for colour in side.silhouettes:
        items.append((_S, partial(_silhouette, c, colour)))
    ic = seat.icons
    items += [_counted(c, "reroll", ic.reroll), _counted(c, "draw", ic.draw), _counted(c, "client", ic.client)]
    if ic.blue:
        items.append(_counted(c, "blue_die", None))
    if ic.orange:
        items.append(_counted(c, "orange_die", None))
    if ic.discount:
        items.append(_counted(c, "discount", ic.discount))
    counts, lower = validated_by_colour(seat.validated)
    marks = [(colour, counts[colour]) for colour in style.COLOUR_SHAPES if counts.get(colour)]
    shown = marks or [("", 0)]
    lw = _S + 8
    widths = [_S + 4 + c.width(f"×{n}", style.SMALL, True) if colour else c.width(t("ms.pic.none"), style.SMALL)
              for colour, n in shown]

    def draw_validated(x: int, y: int) -> None:
        icon(c, "validated", x, y + 2, _S)
        x += lw
        for (colour, n), w in zip(shown, widths, strict=True):
            if colour:
                colour_mark(c, colour, x, y + 3, _S - 2)
                c.text(x + _S + 2, y + 2, f"×{n}", style.SMALL, bold=True)
            else:
                c.text(x, y + 2, t("ms.pic.none"), style.SMALL, style.MUTED)
            x += w + 10
        if lower:  # the lower bonuses of the validated Clients, with them
            _grouped(c, grouped, x + 4, y + 2)
    grouped: dict[Any, int] = {}
    for low in lower:  # an icon met n times: once, with "×n"
        grouped[low] = grouped.get(low, 0) + 1
    items.append((lw + sum(w + 10 for w in widths) - 10 + (14 + _grouped_width(c, grouped) if lower else 0),
                  draw_validated))
    if view.phase != "over":
        items += _todo_items(c, seat, t, x0 + 12, x1 - x0 - 22)
    _flow(c, items, x0 + 12, x1 - 10, row=_ROW + (14 if legal_slots else 0))
    _current_bar(c, top, current)


def _legend(c: Canvas, t: Translator, panel: bool = False) -> None:
    def res(name: str) -> Any:
        return lambda cv, x, y, s: resource(cv, name, x, y, s)

    def kind(name: str) -> Any:
        return lambda cv, x, y, s: icon(cv, name, x, y, s, colour="green")

    items: list[Any] = [(res("food"), t("ms.pic.food")), (res("music"), t("ms.pic.music")),
                        (res("drink"), t("ms.pic.drink")), (res("any"), t("ms.pic.any")),
                        (lambda cv, x, y, s: moon(cv, x, y, s), t("ms.pic.moon", n=1)),
                        (lambda cv, x, y, s: moon(cv, x, y, s, filled=False), t("ms.pic.empty_space")),
                        (lambda cv, x, y, s: shape(cv, "star", (x, y, x + s, y + s), style.YELLOW),
                         t("ms.pic.points_icon"))]
    for k in ("reroll", "draw", "client", "blue_die", "orange_die", "discount", "majority", "silhouette",
              "validated", "todo"):
        items.append((kind(k), t(f"ms.pic.{k}")))
    for colour in style.COLOUR_SHAPES:
        items.append(((lambda col: lambda cv, x, y, s: colour_mark(cv, col, x, y, s))(colour),
                      t(f"ms.pic.colour_{colour}")))
    if panel:
        items.append((legal_key, t("pic.legal")))
    c.legend(t("pic.legend"), items, kind=f"ms:{panel}")
    c.paragraph(style.MARGIN, t("ms.pic.slot"), style.WIDTH - 2 * style.MARGIN, style.SMALL, style.MUTED)
    c.paragraph(style.MARGIN, t("ms.pic.instant_key"), style.WIDTH - 2 * style.MARGIN, style.SMALL, style.MUTED)


def legend(t: Translator) -> bytes:
    """PNG of the legend of the board and the panels, shown on demand (the board's "Legend"
    button) rather than in every picture: every icon, colour and the legal-choice frame."""
    c = Canvas(max_height=1000)
    c.y = 12
    _legend(c, t, panel=True)
    return c.png()


def _head(c: Canvas, view: MoonshineView, t: Translator, title: str) -> None:
    c.title_bar(title, f"{plain(round_text(view, t))} · {t('ms.pic.goal', n=view.target)} · "
                       f"{t('ms.pic.deck', n=view.deck, d=view.discard)}")


def draw_board(view: MoonshineView, names: Sequence[str], t: Translator) -> Canvas:
    """The public table on a :class:`Canvas` (see the module docstring)."""
    c = Canvas(max_height=800 + 700 * len(view.seats))
    _head(c, view, t, plain(t("game.moonshine.name")))
    c.paragraph(style.MARGIN, _status(view, names, t), style.WIDTH - 2 * style.MARGIN, style.BODY, bold=True)
    c.space(2)
    # no dice before the first roll (set-up, draft: every face blank) nor at the end (the last
    # round's): blank white dice beside solid blue and orange ones read as a roll
    if view.phase != "over" and any(view.dice):
        _dice(c, view, names, t, set())
    for i in range(len(view.seats)):
        _seat(c, i, view, names, t)
    return c


def board(view: MoonshineView, names: Sequence[str], t: Translator) -> bytes:
    """PNG of the public table from the public view (``seat=None``)."""
    return draw_board(view, names, t).png()


def panel(view: MoonshineView, legal: Sequence[str], names: Sequence[str], t: Translator) -> bytes:
    """PNG of a seat's panel from that seat's view and its legal codes (``val.<id>``, ``moon``,
    ``draw``, ``rr.<dice>``, ``stop``, ``pl.<slot>``, ``lose.<slot>``, ``keep/pick/rep.<id>``,
    ``draft.<ids>``, ``dis.…``); legal cards, spaces and actions are framed."""
    legal = tuple(legal)
    me = view.me if isinstance(view, PlayerView) else None
    c = Canvas(max_height=3000)
    _head(c, view, t, plain(t("ms.panel.title")))
    cards: set[int] = set()
    slots: set[str] = set()
    dice: set[int] = set()
    n_other = 0
    for code in legal:
        head, _, rest = code.partition(".")
        if head in ("val", "keep", "pick", "rep", "draft") and rest != "none":
            cards.update(int(p) for p in rest.split(".") if p.isdigit())
        elif head in ("pl", "lose"):
            slots.add(rest)
        elif head == "rr":
            dice.update(DIE_CODES.index(d) for d in rest.split(".") if d in DIE_CODES)
        elif head == "dis":
            n_other += 1
    if legal:
        c.text(style.MARGIN, c.y, t("pic.your_turn"), style.HEAD, style.BLUE, bold=True)
        c.y += style.HEAD + 8
    c.paragraph(style.MARGIN, _task(view, legal, names, t), style.WIDTH - 2 * style.MARGIN, style.SMALL)
    c.space(10)
    if view.phase in ("roll", "action", "resolve", "gain") and any(view.dice):
        _dice(c, view, names, t, dice)
    chips = [code for code in SIMPLE_ACTIONS if code in legal]
    if dice:
        chips.insert(0, "rr")
    texts = [plain(simple_action_text(code, t)) if code in SIMPLE_ACTIONS else t("ms.pic.reroll_framed")
             for code in chips]
    if n_other:
        texts.append(plain(t("ms.act.dis", n="…")))
    if texts:
        c.space(16)  # the chips' badges stick out above them
        # Chips flow left to right and wrap to a new row rather than clip their label.
        left, right = style.MARGIN + 6, style.WIDTH - style.MARGIN
        x = left
        for text in texts:
            w = c.width(text, style.BODY, bold=True) + 28
            if x > left and x + w > right:
                x = left
                c.y += style.BODY + 30
            x += chip(c, x, c.y, text, legal=True, max_w=right - x)
        c.y += style.BODY + 44
    queue = view.private.queue if isinstance(view, PlayerView) else ()
    own = set(view.seats[me].clients) if me is not None else set()
    offered = [cid for cid in (queue[0].cards if queue else ()) if cid not in own]
    if offered:
        c.heading(plain(t("ms.panel.offered", n=len(offered))))
        c.space(16)  # the cards' frames and badges stick out above them (below the heading's band)
        h, band = _CARD_H, 0
        for k, cid in enumerate(offered):
            if k % 2 == 0:
                if k:
                    c.y += h + 18
                h, band = row_height(c, offered[k:k + 2], t), band_extra(c, offered[k:k + 2], t)
            client_card(c, cid, style.MARGIN + 8 + (k % 2) * (_CARD_W + 16), c.y, t, legal=cid in cards, h=h,
                        band=band)
        c.y += h + 24
    if me is not None:
        _seat(c, me, view, names, t, legal_cards=cards, legal_slots=slots)
    return c.png()


__all__ = ["board", "client_card", "client_strip", "draw_board", "icon", "legend", "panel", "resource", "slot"]
