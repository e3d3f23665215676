"""Moonshine pictures: the public table and the private panel, from the typed views of
:mod:`engine.moonshine.view` (:class:`MoonshineView`, a seat's :class:`PlayerView`) and the
printed card data (:func:`engine.moonshine.cards.client_of`: names, costs, bonuses). The status
line, the follow-up tasks, the pending follow-ups and the card names are the text board's
(:mod:`bot.presenters.moonshine`).

Board: round and goal, the dice on the Active player card (white, blue ``B`` and orange ``O``
dice showing their resource; a blue or orange die the active player did not roll, having no
access to it, is dimmed, struck through and named "not rolled (no access)"; no dice once the game
is over), then every seat:
points and Moon tokens, its Speakeasy with its Moon-token spaces (filled or empty) and their
bonuses, its icons, its Clients in front drawn as cards (colour with its shape, points, cost,
upper part, lower bonus) and its validated Clients by colour. Rules: ``docs/rules/moonshine.md``. Every icon is explained by the legend.

Panel: the same seat block for the reader plus the cards offered to it; every Client, Speakeasy
space and action that is legal now is framed in blue.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bot.i18n import Translator, colon
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
from engine.moonshine.view import MoonshineView, PlayerView

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
    ``orange_die``, ``discount``, ``majority``, ``silhouette``)."""
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
    x = style.MARGIN
    seat_chip(c, x, c.y, view.active, name_of(names, view.active), 340)
    c.text(style.WIDTH - style.MARGIN, c.y + 4, t("ms.pic.active"), style.SMALL, style.MUTED, anchor="ra")
    c.y += style.BODY + (26 if legal_dice else 16)  # framed dice: room for their badges
    dice = view.dice
    unrolled = unrolled_dice(dice)
    for i, face in enumerate(dice):
        dx = x + i * 78
        if i in unrolled:  # dimmed and struck through: not a blank face
            die(c, dx, c.y, 60, None, fill=_dim(_DIE_FILLS[i]), outline=style.LINE)
            c.d.line((dx + 10, c.y + 50, dx + 50, c.y + 10), fill=style.LINE, width=4)
        else:
            die(c, dx, c.y, 60, None, fill=_DIE_FILLS[i])
        if face:
            resource(c, face, dx + 8, c.y + 8, 34 if _DIE_TAGS[i] else 40)
        if _DIE_TAGS[i]:
            c.text(dx + 56, c.y + 58, _DIE_TAGS[i], style.SMALL, style.MUTED if i in unrolled else style.INK,
                   bold=True, anchor="rb")
        if i in legal_dice:
            legal_frame(c, (dx, c.y, dx + 60, c.y + 60))
    if unrolled:
        key = "unrolled_both" if len(unrolled) == 2 else "unrolled_blue" if unrolled[0] == 3 else "unrolled_orange"
        cx = x + len(dice) * 78 + 4
        lines = c.wrap(t(f"ms.pic.{key}"), style.WIDTH - style.MARGIN - cx, style.SMALL)[:2]
        ty = c.y + 30 - len(lines) * (style.SMALL + 4) // 2
        for line in lines:
            c.text(cx, ty, line, style.SMALL, style.MUTED)
            ty += style.SMALL + 4
    c.y += 78


def unrolled_dice(dice: Sequence[str]) -> list[int]:
    """Positions (3 = blue, 4 = orange) of the coloured dice the active player did not roll this
    round, having no access to them (``docs/rules/moonshine.md``, "A round", step 1): left blank
    while the white dice (0-2) show faces. Before the roll every die is blank: none is listed."""
    return [i for i in (3, 4) if any(dice[:3]) and i < len(dice) and not dice[i]]


def _dim(colour: Colour) -> Colour:
    """``colour`` faded two thirds of the way into the paper (a die not rolled this round)."""
    return tuple((2 * b + a) // 3 for a, b in zip(colour, style.BG, strict=True))  # type: ignore[return-value]


def _seat(c: Canvas, i: int, view: MoonshineView, names: Sequence[str], t: Translator,
          legal_cards: set[int] | None = None, legal_slots: set[str] | None = None) -> None:
    seat = view.seats[i]
    x0, x1 = style.MARGIN, style.WIDTH - style.MARGIN
    top = c.y
    c.y += 12
    current = view.phase not in ("over",) and i in view.to_act
    seat_chip(c, x0 + 12, c.y, i, name_of(names, i), 420, current=current)
    shape(c, "star", (x1 - 200, c.y, x1 - 170, c.y + 30), style.YELLOW)
    c.text(x1 - 164, c.y, str(seat.points), style.BODY, bold=True)
    moon(c, x1 - 110, c.y, 30)
    c.text(x1 - 74, c.y, str(seat.tokens), style.BODY, bold=True)
    c.y += style.BODY + 18
    # Speakeasy
    side = speakeasy_of(seat.speakeasy).side(view.variant)
    c.text(x0 + 14, c.y, speakeasy_name(seat.speakeasy, t), style.SMALL, style.MUTED, bold=True, max_w=x1 - x0 - 28)
    c.y += style.SMALL + (30 if legal_slots else 12)
    sx = x0 + 20
    for k, (sl, tok) in enumerate(zip(side.slots, seat.se_tokens, strict=False)):
        start = sx
        sx = slot(c, sl.spaces, tok, sl.bonus, sx, c.y)
        if legal_slots and f"s{k}" in legal_slots:
            legal_frame(c, (start - 5, c.y - 5, sx - 10, c.y + _ICON + 5))
        sx += 6
    for colour in side.silhouettes:
        icon(c, "silhouette", sx, c.y, _ICON, colour=colour)
        sx += _ICON + 8
    c.y += _ICON + 16
    # icons
    ic = seat.icons
    ix = x0 + 14
    for kind, n in (("reroll", ic.reroll), ("draw", ic.draw), ("client", ic.client)):
        icon(c, kind, ix, c.y, _ICON)
        c.text(ix + _ICON + 6, c.y + _ICON // 2, f"×{n}", style.SMALL, bold=True, anchor="lm")
        ix += _ICON + 64
    for kind, on in (("blue_die", ic.blue), ("orange_die", ic.orange)):
        if on:
            icon(c, kind, ix, c.y, _ICON)
            ix += _ICON + 16
    if ic.discount:
        icon(c, "discount", ix, c.y, _ICON)
        c.text(ix + _ICON + 6, c.y + _ICON // 2, f"×{ic.discount}", style.SMALL, bold=True, anchor="lm")
    c.y += _ICON + 14
    # Clients in front
    clients = list(seat.clients)
    h, band = _CARD_H, 0
    for k, (cid, tok) in enumerate(zip(clients, seat.cl_tokens, strict=False)):
        cx = x0 + 12 + (k % 2) * (_CARD_W + 16)
        if k % 2 == 0:
            if k:
                c.y += h + 14
            h, band = row_height(c, clients[k:k + 2], t), band_extra(c, clients[k:k + 2], t)
        client_card(c, cid, cx, c.y, t, tokens=tok, legal=bool(legal_cards and cid in legal_cards),
                    slot_legal=bool(legal_slots and f"c{cid}" in legal_slots), h=h, band=band)
    if clients:
        c.y += h + 14
    # validated
    vx = x0 + 14
    c.text(vx, c.y, t("ms.pic.validated") + colon(t.lang), style.SMALL, style.MUTED, bold=True)
    vx += c.width(t("ms.pic.validated") + colon(t.lang), style.SMALL, True) + 12
    if not seat.validated:
        c.text(vx, c.y, t("ms.pic.none"), style.SMALL, style.MUTED)
    counts, lower = validated_by_colour(seat.validated)
    for colour in style.COLOUR_SHAPES:
        if counts.get(colour):
            colour_mark(c, colour, vx, c.y + 2, 26)
            c.text(vx + 30, c.y, f"×{counts[colour]}", style.SMALL, bold=True)
            vx += 80
    if lower and vx < x1 - 100:
        _icons(c, lower[: max(0, (x1 - vx - 20) // (_ICON + 6))], vx + 10, c.y + 2)
    c.y += style.SMALL + 14
    # the 🌙 of "placing a 🌙", "discarding 2 🌙" in words ("Moon token", "Moon tokens")
    pending = [plain(text.replace("🌙", t("ms.pic.moon", n=moons))) for text, moons in pending_parts(seat, t)]
    if pending and view.phase != "over":
        c.text(x0 + 14, c.y, t("ms.pic.pending", what=" · ".join(collapse_repeats(pending))), style.SMALL, style.MUTED,
               max_w=x1 - x0 - 28)
        c.y += style.SMALL + 12
    c.d.rounded_rectangle((x0, top, x1, c.y + 4), radius=12, outline=style.INK if current else style.LINE,
                          width=3 if current else 2)
    c.y += 20


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
    for k in ("reroll", "draw", "client", "blue_die", "orange_die", "discount", "majority", "silhouette"):
        items.append((kind(k), t(f"ms.pic.{k}")))
    for colour in style.COLOUR_SHAPES:
        items.append(((lambda col: lambda cv, x, y, s: colour_mark(cv, col, x, y, s))(colour),
                      t(f"ms.pic.colour_{colour}")))
    if panel:
        items.append((legal_key, t("pic.legal")))
    c.legend(t("pic.legend"), items, kind=f"ms:{panel}")
    c.paragraph(style.MARGIN, t("ms.pic.slot"), style.WIDTH - 2 * style.MARGIN, style.SMALL, style.MUTED)


def _head(c: Canvas, view: MoonshineView, t: Translator, title: str) -> None:
    c.title_bar(title, f"{plain(round_text(view, t))} · {t('ms.pic.goal', n=view.target)} · "
                       f"{t('ms.pic.deck', n=view.deck, d=view.discard)}")


def draw_board(view: MoonshineView, names: Sequence[str], t: Translator) -> Canvas:
    """The public table on a :class:`Canvas` (see the module docstring)."""
    c = Canvas(max_height=1400 + 700 * len(view.seats))
    _head(c, view, t, plain(t("game.moonshine.name")))
    c.paragraph(style.MARGIN, _status(view, names, t), style.WIDTH - 2 * style.MARGIN, style.BODY, bold=True)
    c.space(10)
    # no dice before the first roll (set-up, draft: every face blank) nor at the end (the last
    # round's): blank white dice beside solid blue and orange ones read as a roll
    if view.phase != "over" and any(view.dice):
        _dice(c, view, names, t, set())
    for i in range(len(view.seats)):
        _seat(c, i, view, names, t)
    _legend(c, t)
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
        c.space(12)  # the chips' badges stick out above them
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
    _legend(c, t, panel=True)
    return c.png()


__all__ = ["board", "client_card", "draw_board", "icon", "panel", "resource", "slot"]
