"""Gang of Dice pictures: the public table and the private screen, from the typed views of
:mod:`engine.gang_of_dice.view` (the public :class:`GangOfDiceView`, a seat's
:class:`GangOfDiceSeatView`). The status lines, the seats' order and the quick commit amounts are
the text board's (:mod:`bot.presenters.gang_of_dice`).

Board: round, the warning card (its colour written out and its rule), the dice on the table
(carried over, bonus, best score so far), then every seat in playing order with its committed
dice, its roll drawn as dice with pips (the boss, face 0, drawn as a figure: RULINGS G5 "the boss
is worth 0"), its score and status; final stocks once the game is over. Rules:
``docs/rules/gang-of-dice.md``.

Panel: the seat's stock (hidden behind its screen), and when it acts, the commit amounts or its
roll with the marked dice, each legal choice framed in blue.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial

from bot.i18n import Translator
from bot.presenters.base import RenderContext
from bot.presenters.gang_of_dice import (
    face_counts,
    final_order,
    own_stock,
    quick_commits,
    reroll_text,
    seat_status,
    seats_in_order,
    status_text,
)
from bot.render import style
from bot.render.draw import Canvas, chip, die, legal_key, name_of, seat_chip
from bot.render.style import plain
from engine.gang_of_dice import GangOfDiceSeatView, GangOfDiceView
from engine.gang_of_dice.view import SeatInfo

_DIE = 48
_GAP = 14
#: Beyond this many dice a roll is drawn one die per face with a count.
_SPELL_OUT = 24


def stock_die(c: Canvas, x: int, y: int, size: int) -> None:
    """The icon of a count of dice committed or in stock (the legend's "dice committed / in stock")."""
    die(c, x, y, size, 6, fill=(236, 233, 226))


def _card(c: Canvas, view: GangOfDiceView, t: Translator) -> None:
    """The warning card, a band (the same all round)."""
    c.band(("god-card", view.card.id, view.card.colour, t.lang), lambda cv: _draw_card(cv, view, t))


def _draw_card(c: Canvas, view: GangOfDiceView, t: Translator) -> None:
    card = view.card
    colour = card.colour
    band = style.YELLOW if colour == "yellow" else (30, 30, 34)
    ink = style.INK if colour == "yellow" else (255, 255, 255)
    x0, x1 = style.MARGIN, style.WIDTH - style.MARGIN
    inner = x1 - x0 - 32
    desc = c.wrap(plain(t(f"god.card.{card.id}.desc")), inner, style.BODY)
    rule = c.wrap(plain(t(f"god.colour.{colour}")), inner, style.SMALL)
    h = 52 + len(desc) * (style.BODY + 6) + len(rule) * (style.SMALL + 4) + 20
    top = c.y
    c.d.rounded_rectangle((x0, top, x1, top + h), radius=14, fill=(255, 255, 255), outline=style.INK, width=3)
    c.d.rounded_rectangle((x0 + 3, top + 3, x1 - 3, top + 48), radius=12, fill=band)
    c.d.rectangle((x0 + 3, top + 36, x1 - 3, top + 48), fill=band)
    c.text(x0 + 16, top + 26, plain(t(f"god.card.{card.id}.name")), style.HEAD, ink, bold=True,
           max_w=inner, anchor="lm")
    c.y = top + 56
    for line in desc:
        c.text(x0 + 16, c.y, line, style.BODY)
        c.y += style.BODY + 6
    for line in rule:
        c.text(x0 + 16, c.y, line, style.SMALL, style.MUTED)
        c.y += style.SMALL + 4
    c.y = top + h + 16


def _dice_row(c: Canvas, x: int, faces: Sequence[int], max_w: int, marks: Sequence[int] | None = None) -> None:
    """Faces (sorted) as dice from ``c.y``, wrapped; grouped per face beyond :data:`_SPELL_OUT`.
    ``marks[f]`` dice of face ``f`` are drawn marked for reroll."""
    fs = sorted(int(f) for f in faces)
    if not fs:
        return
    left = list(marks) if marks else [0] * 6
    cx = x
    if len(fs) > _SPELL_OUT:
        for f in sorted(set(fs)):
            text = f"×{fs.count(f)}"
            w = _DIE + 6 + c.width(text, style.BODY, True) + 18
            if cx + w > x + max_w:
                cx, c.y = x, c.y + _DIE + 12
            die(c, cx, c.y, _DIE, f, marked=bool(left[f]))
            c.text(cx + _DIE + 6, c.y + _DIE // 2, text, style.BODY, bold=True, anchor="lm")
            cx += w
        c.y += _DIE + 12
        return
    for f in fs:
        if cx + _DIE > x + max_w:
            cx, c.y = x, c.y + _DIE + 12
        marked = left[f] > 0
        if marked:
            left[f] -= 1
        die(c, cx, c.y, _DIE, f, marked=marked)
        cx += _DIE + _GAP
    c.y += _DIE + 12


def _table(c: Canvas, view: GangOfDiceView, names: Sequence[str], t: Translator) -> None:
    x = style.MARGIN
    die(c, x, c.y, 40, 6)
    c.text(x + 52, c.y + 20, t("god.pic.table", n=view.table), style.HEAD, bold=True, anchor="lm")
    c.y += 52
    if view.phase != "over":
        c.text(x, c.y, t("god.pic.carried", n=view.carried, b=view.bonus), style.SMALL, style.MUTED)
        c.y += style.SMALL + 8
        best = view.best
        if best is not None:
            c.text(x, c.y, t("god.pic.best", name=name_of(names, best.seat), score=best.score),
                   style.SMALL, style.MUTED, max_w=style.WIDTH - 2 * x)
            c.y += style.SMALL + 8
    if view.removed:
        c.text(x, c.y, plain(t("god.table.removed", dice=view.removed)), style.SMALL, style.MUTED)
        c.y += style.SMALL + 8
    c.y += 8


def _players(c: Canvas, view: GangOfDiceView, names: Sequence[str], t: Translator) -> None:
    c.heading(plain(t("god.field.players")))
    for seat in seats_in_order(view):
        current = view.phase != "over" and view.current == seat.seat
        marks = view.marks if current and view.phase == "roll" else None
        name = name_of(names, seat.seat)
        c.band(("god-seat", seat, name, current, marks, t.lang), partial(_seat, seat=seat, name=name,
                                                                       current=current, marks=marks, t=t))


def _seat(c: Canvas, seat: SeatInfo, name: str, current: bool, marks: Sequence[int] | None, t: Translator) -> None:
    """One seat's block: name, committed dice, status and roll (a band of the board)."""
    x0, x1 = style.MARGIN, style.WIDTH - style.MARGIN
    s = seat.seat
    top = c.y
    c.y += 10
    seat_chip(c, x0 + 12, c.y, s, name, 420, current=current)
    if seat.committed:
        w = c.text(x1 - 14, c.y + 2, str(seat.committed), style.BODY, bold=True, anchor="ra")
        stock_die(c, x1 - 14 - w - 40, c.y + 2, 32)
    c.y += style.BODY + 12
    c.text(x0 + 16, c.y, plain(seat_status(seat, t)), style.SMALL,
           style.VERMILLION if seat.status == "triggered" else style.MUTED, max_w=x1 - x0 - 32)
    c.y += style.SMALL + 14
    if seat.faces:
        _dice_row(c, x0 + 16, seat.faces, x1 - x0 - 32, marks)
    h = c.y - top + 4
    c.d.rounded_rectangle((x0, top, x1, top + h), radius=12, outline=style.INK if current else style.LINE,
                          width=4 if current else 2)
    c.y = top + h + 12


def _final(c: Canvas, view: GangOfDiceView, names: Sequence[str], t: Translator) -> None:
    stocks, ranks = view.stocks, view.ranks
    if view.phase != "over" or stocks is None or ranks is None:
        return
    c.heading(plain(t("god.field.final")))
    for s in final_order(view):
        c.text(style.MARGIN, c.y, f"{ranks[s]}.", style.BODY, bold=True)
        seat_chip(c, style.MARGIN + 44, c.y, s, name_of(names, s), 480)
        w = c.text(style.WIDTH - style.MARGIN, c.y, str(stocks[s]), style.BODY, bold=True, anchor="ra")
        stock_die(c, style.WIDTH - style.MARGIN - w - 40, c.y, 32)
        c.y += style.BODY + 16


def _legend(c: Canvas, t: Translator, panel: bool = False) -> None:
    items = [
        (lambda cv, x, y, s: die(cv, x, y, s, 0), t("god.pic.boss")),
        (lambda cv, x, y, s: die(cv, x, y, s, 4, marked=True), t("god.pic.marked")),
        (stock_die, t("god.pic.dice_count")),
    ]
    if panel:
        items.append((legal_key, t("pic.legal")))
    c.legend(t("pic.legend"), items, kind=f"god:{panel}")


def _status(view: GangOfDiceView, names: Sequence[str], t: Translator) -> str:
    return plain(status_text(view, RenderContext(t, tuple(names))))


def draw_board(view: GangOfDiceView, names: Sequence[str], t: Translator) -> Canvas:
    """The public table drawn on a :class:`Canvas` (see the module docstring)."""
    c = Canvas()
    c.title_bar(plain(t("game.gang-of-dice.name")), t("god.pic.round", round=view.round, rounds=view.rounds))
    c.paragraph(style.MARGIN, _status(view, names, t), style.WIDTH - 2 * style.MARGIN, style.BODY, bold=True)
    c.space(10)
    _card(c, view, t)
    _table(c, view, names, t)
    _players(c, view, names, t)
    _final(c, view, names, t)
    _legend(c, t)
    return c


def board(view: GangOfDiceView, names: Sequence[str], t: Translator) -> bytes:
    """PNG of the public table from the public view (``seat=None``). Raises on a malformed view."""
    return draw_board(view, names, t).png()


def panel(view: GangOfDiceView, legal: Sequence[str], names: Sequence[str], t: Translator) -> bytes:
    """PNG of a seat's screen from that seat's view and its legal action codes (``c{n}``,
    ``m{f}``, ``u{f}``, ``r``, ``s``); legal choices are framed."""
    legal = tuple(legal)
    seat = view.me.seat if isinstance(view, GangOfDiceSeatView) else None
    stock = own_stock(view)
    c = Canvas()
    c.title_bar(plain(t("god.panel.title")), t("god.pic.round", round=view.round, rounds=view.rounds))
    x = style.MARGIN
    stock_die(c, x, c.y, 40)
    c.text(x + 52, c.y + 20, t("god.pic.stock", n=stock), style.HEAD, bold=True, anchor="lm")
    c.y += 56
    if not legal:
        text = _status(view, names, t) if view.phase == "over" else t(
            "god.pic.waiting", name=name_of(names, view.current))
        c.paragraph(x, text, style.WIDTH - 2 * x, style.BODY)
        c.space(10)
    elif view.phase == "commit":
        c.text(x, c.y, t("pic.your_turn"), style.HEAD, style.BLUE, bold=True)
        c.y += style.HEAD + 8
        c.paragraph(x, plain(t("god.panel.commit", round=view.round)), style.WIDTH - 2 * x, style.SMALL)
        c.space(24)  # the chips' badges stick out above them
        cx = x + 6
        for n in [*quick_commits(stock), stock]:
            code = f"c{n}"
            text = plain(t("god.btn.all", n=n)) if n == stock else str(n)
            cx += chip(c, cx, c.y, text, legal=code in legal)
        c.y += style.BODY + 40
    else:
        faces, score = (view.seats[seat].faces, view.seats[seat].score) if seat is not None else ((), 0)
        c.text(x, c.y, t("pic.your_turn"), style.HEAD, style.BLUE, bold=True)
        c.y += style.HEAD + 8
        c.text(x, c.y, f"{t('god.pic.score', n=score)} · {t('god.pic.rolls_left', n=view.rolls_left)}",
               style.BODY, bold=True)
        c.y += style.BODY + 22
        _dice_row(c, x + 6, faces, style.WIDTH - 2 * x, view.marks)
        cx = x + 6
        marks = view.marks or (0,) * 6
        for f, count in face_counts(faces):
            w = _DIE + 2 * 44 + 40
            if cx + w > style.WIDTH - x:
                cx, c.y = x + 6, c.y + _DIE + 30
            die(c, cx, c.y + 6, _DIE - 8, f)
            c.text(cx + _DIE - 2, c.y + _DIE // 2 + 2, f"{marks[f]}/{count}", style.SMALL, anchor="lm")
            bx = cx + _DIE + 44
            chip(c, bx, c.y, "+", legal=f"m{f}" in legal, size=style.SMALL)
            chip(c, bx + 50, c.y, "−", legal=f"u{f}" in legal, size=style.SMALL)
            cx += w + 46
        c.y += _DIE + 30
        cx = x + 6
        cx += chip(c, cx, c.y, plain(reroll_text(marks, t)), legal="r" in legal)
        chip(c, cx, c.y, plain(t("god.btn.stop", score=score)), legal="s" in legal)
        c.y += style.BODY + 40
    c.heading(plain(t("god.field.card")))
    _card(c, view, t)
    _table(c, view, names, t)
    _legend(c, t, panel=True)
    return c.png()
