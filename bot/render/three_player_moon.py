"""Three-Player Moon pictures: the public table and the private hand, from the typed views of
:mod:`engine.three_player_moon.view` (:class:`MoonView`, a seat's :class:`SeatView`, the bidder's
:class:`BidderView`). Status lines, bids, trump names, the prompts and the hand's grouping are the
text board's (:mod:`bot.presenters.three_player_moon`).

Board: hand number and target, the bid and bidder, the trumps (a suit drawn as its pips, doubles
as a double, or "no trump"), the trick on the table as domino tiles with who led it, each seat's
tricks, tiles in hand and score, the last trick and the last hand's result. Rules:
``docs/rules/three-player-moon.md`` (trump suits and ranks: RULINGS T4, leading: T5).

Panel: the seat's hand as tiles grouped by suit under the named trumps (trumps first); legal
tiles (plays ``p..``, discards ``d..``) framed in blue, the others greyed (a legend entry says
so when there are any); bids and trump choices as chips.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bot.i18n import Translator, colon
from bot.presenters import three_player_moon as presenter
from bot.presenters.base import RenderContext
from bot.presenters.three_player_moon import group_hand, hand_of, panel_prompt, trump_count, widow_of
from bot.render import style
from bot.render.draw import Canvas, chip, domino, legal_frame, legal_key, name_of, pips, seat_chip
from bot.render.style import plain
from engine.three_player_moon import TRUMP_OPTIONS, TRUMP_SUIT, MoonView
from engine.three_player_moon.tiles import Played

_TILE = 52  # short side of a tile on the table
_HAND = 46  # short side of a tile in the hand


def trump_name(t: Translator, trump: str | None) -> str:
    """Display name of a trump code (``None`` = not named yet), as the text board says it."""
    return plain(presenter.trump_name(t, trump))


def _bid_text(t: Translator, bid: int) -> str:
    return plain(presenter.bid_text(t, bid))


def _trump_icon(c: Canvas, x: int, y: int, size: int, trump: str | None) -> int:
    """The trump drawn: a square of pips for a suit, a small double for doubles. Returns width."""
    if trump is None or trump == "N":
        return 0
    if trump == "D":
        domino(c, x, y, size // 2 + 4, 6, 6, vertical=False)
        return size + 18
    c.box((x, y, x + size, y + size), radius=8, outline=style.INK)
    pips(c, (x, y, x + size, y + size), int(trump))
    return size + 10


def _status(view: MoonView, names: Sequence[str], t: Translator) -> str:
    return plain(presenter.status_text(view, RenderContext(t, tuple(names))))


def other_bids(view: MoonView) -> list[tuple[int, int]]:
    """The bids of ``view.bids`` (``(seat, bid)`` pairs, 0 = pass, 21 = shoot the moon) other
    than the high bid, which the board's bid box shows with its bidder: the line under the box
    lists these only, so no bid is shown twice."""
    high = (view.bidder, view.bid)
    return [(s, b) for s, b in view.bids if (s, b) != high]


#: Width of a seat chip's disc and the gap after it (:func:`bot.render.draw.seat_chip`, body size).
_CHIP = 2 * (style.BODY // 2 + 2) + 10


def _header(c: Canvas, view: MoonView, names: Sequence[str], t: Translator) -> None:
    x0, x1 = style.MARGIN, style.WIDTH - style.MARGIN
    mid = (x0 + x1) // 2
    top = c.y
    h = 116
    c.box((x0, top, mid - 8, top + h))
    c.box((mid + 8, top, x1, top + h))
    c.text(x0 + 14, top + 10, t("tpm.pic.bid"), style.SMALL, style.MUTED)
    if view.bidder is not None and view.bid:
        bid, name = _bid_text(t, view.bid), name_of(names, view.bidder)
        room = mid - 22 - c.width(bid, style.HEAD, True) - 12 - (x0 + 14)  # left of the bid, on one line
        if _CHIP + c.width(name, style.BODY, True) <= room:
            seat_chip(c, x0 + 14, top + 48, view.bidder, name, room, bold=True)
            c.text(mid - 22, top + 48, bid, style.HEAD, bold=True, anchor="ra")
        else:  # a long name ("Bérénice (normal)"): the name, then the bid under it
            seat_chip(c, x0 + 14, top + 40, view.bidder, name, mid - 8 - 14 - (x0 + 14), bold=True)
            c.text(mid - 22, top + 74, bid, style.HEAD, bold=True, anchor="ra")
    else:
        c.text(x0 + 14, top + 50, plain(t("tpm.no_bid")), style.BODY)
    c.text(mid + 22, top + 10, t("tpm.pic.trump"), style.SMALL, style.MUTED)
    w = _trump_icon(c, mid + 22, top + 46, 52, view.trump)
    c.text(mid + 22 + w, top + 72, trump_name(t, view.trump), style.HEAD, bold=True,
           max_w=x1 - mid - 40 - w, anchor="lm")
    c.y = top + h + 14
    others = other_bids(view)
    if view.phase == "bid" and others:
        bids = ", ".join(f"{name_of(names, s)} {_bid_text(t, b)}" for s, b in others)
        c.paragraph(x0, plain(t("tpm.other_bids", bids=bids)), x1 - x0, style.SMALL, style.MUTED)
        c.space(20)  # room before the next heading


def _trick(c: Canvas, trick: Sequence[Played], names: Sequence[str], t: Translator, title: str,
           winner: int | None = None, size: int = _TILE) -> None:
    c.heading(title)
    if not trick:
        c.text(style.MARGIN, c.y, plain(t("tpm.nothing")), style.BODY, style.MUTED)
        c.y += style.BODY + 16
        return
    slot = (style.WIDTH - 2 * style.MARGIN) // 3
    top = c.y
    for i, (seat, (a, b)) in enumerate(trick):
        cx = style.MARGIN + i * slot + slot // 2
        domino(c, cx - size // 2, top, size, a, b)
        y = top + 2 * size + 10
        seat_chip(c, style.MARGIN + i * slot + 8, y, seat, name_of(names, seat), slot - 16, size=style.SMALL)
        if i == 0:
            c.d.rounded_rectangle((cx + size // 2 + 8, top + 4, cx + size // 2 + 8 + c.width(t("tpm.pic.led"),
                                   style.SMALL, True) + 16, top + 40), radius=8, fill=style.INK)
            c.text(cx + size // 2 + 16, top + 22, t("tpm.pic.led"), style.SMALL, (255, 255, 255), bold=True,
                   anchor="lm")
        if winner is not None and seat == winner:
            c.d.rounded_rectangle((cx - size // 2 - 8, top - 8, cx + size // 2 + 8, top + 2 * size + 8),
                                  radius=10, outline=style.GREEN, width=4)
    c.y = top + 2 * size + 10 + style.SMALL + 24


def _seats(c: Canvas, view: MoonView, names: Sequence[str], t: Translator) -> None:
    c.heading(f"{plain(t('tpm.field.tricks'))} · {t('tpm.pic.target', n=view.target)}")
    x0, x1 = style.MARGIN, style.WIDTH - style.MARGIN
    for s, score in enumerate(view.scores):
        current = view.phase != "over" and s in view.to_act
        seat_chip(c, x0, c.y, s, name_of(names, s), 330, current=current)
        c.text(x0 + 360, c.y + 2, t("tpm.pic.tricks", n=view.tricks_won[s]), style.SMALL, style.MUTED)
        c.text(x0 + 490, c.y + 2, t("tpm.pic.tiles", n=view.hand_sizes[s]), style.SMALL, style.MUTED)
        c.text(x1, c.y, t("tpm.pic.points", n=score), style.BODY, bold=True, anchor="ra")
        c.y += style.BODY + 18


def _last_hand(c: Canvas, view: MoonView, names: Sequence[str], t: Translator) -> None:
    last = view.last_hand
    if not last:
        return
    c.heading(plain(t("tpm.field.last_hand", n=last.hand_no)))
    key = "tpm.last_hand.made" if last.made else "tpm.last_hand.set"
    text = plain(t(key, name=name_of(names, last.bidder), bid=_bid_text(t, last.bid),
                   trump=trump_name(t, last.trump), tricks=last.tricks[last.bidder]))
    c.paragraph(style.MARGIN, text, style.WIDTH - 2 * style.MARGIN, style.SMALL)
    pts = ", ".join(f"{name_of(names, s)} {p:+d}" for s, p in enumerate(last.points))
    c.paragraph(style.MARGIN, plain(t("tpm.last_hand.points", points=pts)), style.WIDTH - 2 * style.MARGIN,
                style.SMALL, style.MUTED)
    c.space(8)


_GREYED = (232, 229, 222)


def _legend(c: Canvas, t: Translator, panel: bool = False, greyed: bool = False) -> None:
    def led(cv: Canvas, x: int, y: int, s: int) -> None:
        cv.d.rounded_rectangle((x, y + 4, x + s, y + s - 4), radius=6, fill=style.INK)

    def won(cv: Canvas, x: int, y: int, s: int) -> None:
        cv.d.rounded_rectangle((x, y, x + s, y + s), radius=6, outline=style.GREEN, width=4)

    def grey(cv: Canvas, x: int, y: int, s: int) -> None:
        domino(cv, x + s // 4, y - 3, s // 2 + 3, 2, 1, fill=_GREYED, dim=True)

    items: list[tuple[Any, str]] = [(led, t("tpm.pic.led")), (won, plain(t("tpm.last_trick_winner", name="")).strip(" →:"))]
    if panel:
        items.append((legal_key, t("pic.legal")))
    if greyed:
        items.append((grey, t("tpm.pic.unplayable")))
    c.legend(t("pic.legend"), items, kind=f"tpm:{panel}")


def draw_board(view: MoonView, names: Sequence[str], t: Translator) -> Canvas:
    """The public table on a :class:`Canvas` (see the module docstring)."""
    c = Canvas()
    c.title_bar(plain(t("game.three-player-moon.name")),
                plain(t("tpm.board.hand", n=view.hand_no)).capitalize() + " · " + t("tpm.pic.target", n=view.target))
    c.paragraph(style.MARGIN, _status(view, names, t), style.WIDTH - 2 * style.MARGIN, style.BODY, bold=True)
    c.space(10)
    _header(c, view, names, t)
    if view.phase == "play" or view.trick:
        _trick(c, view.trick, names, t, t("tpm.pic.trick"))
    _seats(c, view, names, t)
    # the last trick and the last hand show in every picture until the next trick / hand: bands
    if view.last_trick:
        trick, winner = view.last_trick, view.last_winner
        c.band(("tpm-last-trick", trick, winner, tuple(name_of(names, seat) for seat, _ in trick), t.lang),
               lambda cv: _trick(cv, trick, names, t, t("tpm.pic.last_trick"), winner=winner, size=40))
    if view.last_hand:
        last = view.last_hand
        c.band(("tpm-last-hand", last, tuple(name_of(names, s) for s in range(len(last.points))), t.lang),
               lambda cv: _last_hand(cv, view, names, t))
    _legend(c, t)
    return c


def board(view: MoonView, names: Sequence[str], t: Translator) -> bytes:
    """PNG of the public table from the public view (``seat=None``)."""
    return draw_board(view, names, t).png()


def _hand(c: Canvas, view: MoonView, legal: Sequence[str], t: Translator) -> bool:
    """The hand grouped by suit (:func:`bot.presenters.three_player_moon.group_hand`), legal
    tiles framed, the others greyed while choosing; returns whether a tile was greyed (the
    legend then explains it)."""
    greyed = False
    trump = view.trump
    codes = set(legal)
    choosing = any(code[:1] in ("p", "d") for code in codes)
    widow = widow_of(view)
    x0, x1 = style.MARGIN, style.WIDTH - style.MARGIN
    step = _HAND + 26
    lift = 10 if choosing else 0  # the framed tiles' badges stick out above them: room under the labels
    row_h = style.SMALL + 12 + lift + 2 * _HAND + style.SMALL + 18
    x = x0
    for suit, tiles in group_hand(hand_of(view), trump):
        name = t("tpm.pic.trump") if suit == TRUMP_SUIT else plain(t("tpm.trump.suit", n=suit))
        width = max(len(tiles) * step, c.width(name, style.SMALL, True) + 12)
        if x + width > x1 + 26 and x > x0:
            x, c.y = x0, c.y + row_h
        c.text(x, c.y, name, style.SMALL, style.MUTED, bold=True)
        if x > x0:
            c.d.line((x - 14, c.y, x - 14, c.y + row_h - 24), fill=style.LINE, width=2)
        ty = c.y + style.SMALL + 14 + lift
        tx = x + 4
        for a, b in tiles:
            ok = f"p{a}{b}" in codes or f"d{a}{b}" in codes
            greyed = greyed or (choosing and not ok)
            box = domino(c, tx, ty, _HAND, a, b, dim=choosing and not ok,
                         fill=(255, 255, 255) if not choosing or ok else _GREYED)
            if ok:
                legal_frame(c, box)
            if widow == (a, b):
                c.text(tx + _HAND // 2, ty + 2 * _HAND + 8, t("tpm.pic.widow"), style.SMALL, style.ORANGE,
                       bold=True, anchor="ma")
            tx += step
        x += width + 28
    c.y += row_h
    return greyed


def panel(view: MoonView, legal: Sequence[str], names: Sequence[str], t: Translator) -> bytes:
    """PNG of a seat's hand from that seat's view and its legal action codes (``b..``, ``d..``,
    ``t..``, ``p..``); legal choices are framed."""
    legal = tuple(legal)
    c = Canvas()
    c.title_bar(plain(t("tpm.panel.title")), plain(t("tpm.board.hand", n=view.hand_no)).capitalize())
    x0 = style.MARGIN
    phase = view.phase
    prompt = plain(panel_prompt(view, legal, RenderContext(t, tuple(names)), play="tpm.pic.play_framed"))
    if legal:
        c.text(x0, c.y, t("pic.your_turn"), style.HEAD, style.BLUE, bold=True)
        c.y += style.HEAD + 8
    c.paragraph(x0, prompt, style.WIDTH - 2 * x0, style.SMALL)
    c.space(24 if legal and phase in ("bid", "trump") else 12)  # the chips' badges stick out above them
    if phase == "bid" and legal:
        x = x0 + 6
        for code in legal:
            n = int(code[1:])
            x += chip(c, x, c.y, plain(t("tpm.btn.pass") if n == 0 else t("tpm.btn.moon") if n == 21
                                       else t("tpm.btn.bid", n=n)), legal=True)
        c.y += style.BODY + 44
    if phase == "trump" and legal:
        x = x0 + 6
        hand = hand_of(view)
        for option in TRUMP_OPTIONS:
            code = f"t{option}"
            words = f"{trump_name(t, option)} · {trump_count(hand, option)}"
            w = c.width(words, style.BODY, code in legal) + 50
            if x + w > style.WIDTH - x0:
                x, c.y = x0 + 6, c.y + style.BODY + 36
            x += chip(c, x, c.y, words, legal=code in legal)
        c.y += style.BODY + 44
    c.heading(t("tpm.pic.hand"))
    greyed = _hand(c, view, legal, t)
    if view.trump is not None or view.trick:
        c.text(x0, c.y, f"{t('tpm.pic.trump')}{colon(t.lang)} {trump_name(t, view.trump)}", style.BODY, bold=True)
        c.y += style.BODY + 12
    if phase == "play" and view.trick:
        _trick(c, view.trick, names, t, t("tpm.pic.trick"), size=40)
    _legend(c, t, panel=True, greyed=greyed)
    return c.png()
