"""Three-Player Moon pictures: the public table and the private hand, from the view's JSON form
(``game.view_json(state, seat)``; keys documented at
:meth:`engine.three_player_moon.ThreePlayerMoon.view`).

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
from bot.render import style
from bot.render.draw import Canvas, chip, domino, legal_frame, legal_key, name_of, pips, seat_chip
from bot.render.style import label, plain
from engine.three_player_moon import TRUMP_OPTIONS, TRUMP_SUIT, is_trump, rank_in

_TILE = 52  # short side of a tile on the table
_HAND = 46  # short side of a tile in the hand


def trump_name(t: Translator, trump: str | None) -> str:
    """Display name of a trump code (``None`` = not named yet)."""
    if trump is None:
        return plain(t("tpm.trump.unset"))
    if trump == "D":
        return plain(t("tpm.trump.doubles"))
    if trump == "N":
        return plain(t("tpm.trump.none"))
    return plain(t("tpm.trump.suit", n=trump))


def _bid_text(t: Translator, bid: int) -> str:
    if not bid:
        return plain(t("tpm.bid.pass"))
    if bid == 21:
        return plain(t("tpm.bid.moon"))
    return str(bid)


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


def _tile(tile: Sequence[int]) -> tuple[int, int]:
    return int(tile[0]), int(tile[1])


def group_hand(hand: Sequence[Sequence[int]], trump: str | None) -> list[tuple[int, list[tuple[int, int]]]]:
    """The hand grouped for display: ``[(suit, tiles)]``, trumps (``TRUMP_SUIT``) first, then by
    the suit each tile leads (its higher end), high suits first; each group highest first."""
    groups: dict[int, list[tuple[int, int]]] = {}
    for raw in hand:
        tile = _tile(raw)
        suit = TRUMP_SUIT if is_trump(tile, trump) else tile[0]
        groups.setdefault(suit, []).append(tile)
    out = []
    for suit in sorted(groups, key=lambda s: (s != TRUMP_SUIT, -s)):
        def order(tl: tuple[int, int], s: int = suit) -> tuple[int, int, int]:
            return (-rank_in(tl, s, trump), -tl[0], -tl[1])

        out.append((suit, sorted(groups[suit], key=order)))
    return out


def _status(view: dict[str, Any], names: Sequence[str], t: Translator) -> str:
    phase = view["phase"]
    if phase == "over":
        return plain(t("tpm.status.over", names=", ".join(name_of(names, s) for s in view.get("winners", [])),
                       n=len(view.get("winners", []))))
    return plain(t(f"tpm.status.{phase}", name=name_of(names, view.get("turn"))))


def other_bids(view: dict[str, Any]) -> list[tuple[int, int]]:
    """The bids of ``view["bids"]`` (``[seat, bid]`` pairs, 0 = pass, 21 = shoot the moon) other
    than the high bid, which the board's bid box shows with its bidder: the line under the box
    lists these only, so no bid is shown twice."""
    high = (view.get("bidder"), view.get("bid"))
    return [(s, b) for s, b in view.get("bids") or () if (s, b) != high]


#: Width of a seat chip's disc and the gap after it (:func:`bot.render.draw.seat_chip`, body size).
_CHIP = 2 * (style.BODY // 2 + 2) + 10


def _header(c: Canvas, view: dict[str, Any], names: Sequence[str], t: Translator) -> None:
    x0, x1 = style.MARGIN, style.WIDTH - style.MARGIN
    mid = (x0 + x1) // 2
    top = c.y
    h = 116
    c.box((x0, top, mid - 8, top + h))
    c.box((mid + 8, top, x1, top + h))
    c.text(x0 + 14, top + 10, label(t, "bid"), style.SMALL, style.MUTED)
    if view.get("bidder") is not None and view.get("bid"):
        bid, name = _bid_text(t, view["bid"]), name_of(names, view["bidder"])
        room = mid - 22 - c.width(bid, style.HEAD, True) - 12 - (x0 + 14)  # left of the bid, on one line
        if _CHIP + c.width(name, style.BODY, True) <= room:
            seat_chip(c, x0 + 14, top + 48, view["bidder"], name, room, bold=True)
            c.text(mid - 22, top + 48, bid, style.HEAD, bold=True, anchor="ra")
        else:  # a long name ("Bérénice (normal)"): the name, then the bid under it
            seat_chip(c, x0 + 14, top + 40, view["bidder"], name, mid - 8 - 14 - (x0 + 14), bold=True)
            c.text(mid - 22, top + 74, bid, style.HEAD, bold=True, anchor="ra")
    else:
        c.text(x0 + 14, top + 50, plain(t("tpm.no_bid")), style.BODY)
    c.text(mid + 22, top + 10, label(t, "trump"), style.SMALL, style.MUTED)
    w = _trump_icon(c, mid + 22, top + 46, 52, view.get("trump"))
    c.text(mid + 22 + w, top + 72, trump_name(t, view.get("trump")), style.HEAD, bold=True,
           max_w=x1 - mid - 40 - w, anchor="lm")
    c.y = top + h + 14
    others = other_bids(view)
    if view["phase"] == "bid" and others:
        bids = ", ".join(f"{name_of(names, s)} {_bid_text(t, b)}" for s, b in others)
        c.paragraph(x0, plain(t("tpm.other_bids", bids=bids)), x1 - x0, style.SMALL, style.MUTED)
        c.space(20)  # room before the next heading


def _trick(c: Canvas, trick: Sequence[Any], names: Sequence[str], t: Translator, title: str,
           winner: int | None = None, size: int = _TILE) -> None:
    c.heading(title)
    if not trick:
        c.text(style.MARGIN, c.y, plain(t("tpm.nothing")), style.BODY, style.MUTED)
        c.y += style.BODY + 16
        return
    slot = (style.WIDTH - 2 * style.MARGIN) // 3
    top = c.y
    for i, (seat, tile) in enumerate(trick):
        cx = style.MARGIN + i * slot + slot // 2
        a, b = _tile(tile)
        domino(c, cx - size // 2, top, size, a, b)
        y = top + 2 * size + 10
        seat_chip(c, style.MARGIN + i * slot + 8, y, seat, name_of(names, seat), slot - 16, size=style.SMALL)
        if i == 0:
            c.d.rounded_rectangle((cx + size // 2 + 8, top + 4, cx + size // 2 + 8 + c.width(label(t, "led"),
                                   style.SMALL, True) + 16, top + 40), radius=8, fill=style.INK)
            c.text(cx + size // 2 + 16, top + 22, label(t, "led"), style.SMALL, (255, 255, 255), bold=True,
                   anchor="lm")
        if winner is not None and seat == winner:
            c.d.rounded_rectangle((cx - size // 2 - 8, top - 8, cx + size // 2 + 8, top + 2 * size + 8),
                                  radius=10, outline=style.GREEN, width=4)
    c.y = top + 2 * size + 10 + style.SMALL + 24


def _seats(c: Canvas, view: dict[str, Any], names: Sequence[str], t: Translator) -> None:
    c.heading(f"{plain(t('tpm.field.tricks'))} · {label(t, 'target', n=view.get('target', 21))}")
    x0, x1 = style.MARGIN, style.WIDTH - style.MARGIN
    for s, score in enumerate(view["scores"]):
        current = view["phase"] != "over" and s in (view.get("to_act") or [])
        seat_chip(c, x0, c.y, s, name_of(names, s), 330, current=current)
        c.text(x0 + 360, c.y + 2, label(t, "tricks", n=view["tricks_won"][s]), style.SMALL, style.MUTED)
        c.text(x0 + 490, c.y + 2, label(t, "tiles", n=view["hand_sizes"][s]), style.SMALL, style.MUTED)
        c.text(x1, c.y, label(t, "points", n=score), style.BODY, bold=True, anchor="ra")
        c.y += style.BODY + 18


def _last_hand(c: Canvas, view: dict[str, Any], names: Sequence[str], t: Translator) -> None:
    last = view.get("last_hand")
    if not last:
        return
    c.heading(plain(t("tpm.field.last_hand", n=last["hand_no"])))
    key = "tpm.last_hand.made" if last["made"] else "tpm.last_hand.set"
    text = plain(t(key, name=name_of(names, last["bidder"]), bid=_bid_text(t, last["bid"]),
                   trump=trump_name(t, last["trump"]), tricks=last["tricks"][last["bidder"]]))
    c.paragraph(style.MARGIN, text, style.WIDTH - 2 * style.MARGIN, style.SMALL)
    pts = ", ".join(f"{name_of(names, s)} {p:+d}" for s, p in enumerate(last["points"]))
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

    items: list[tuple[Any, str]] = [(led, label(t, "led")), (won, plain(t("tpm.last_trick_winner", name="")).strip(" →:"))]
    if panel:
        items.append((legal_key, label(t, "legal")))
    if greyed:
        items.append((grey, label(t, "unplayable")))
    c.legend(label(t, "legend"), items, kind=f"tpm:{panel}")


def draw_board(view: dict[str, Any], names: Sequence[str], t: Translator) -> Canvas:
    """The public table on a :class:`Canvas` (see the module docstring)."""
    c = Canvas()
    c.title_bar(plain(t("game.three-player-moon.name")),
                plain(t("tpm.board.hand", n=view["hand_no"])).capitalize() + " · " + label(t, "target", n=view.get("target", 21)))
    c.paragraph(style.MARGIN, _status(view, names, t), style.WIDTH - 2 * style.MARGIN, style.BODY, bold=True)
    c.space(10)
    _header(c, view, names, t)
    if view["phase"] == "play" or view.get("trick"):
        _trick(c, view.get("trick") or [], names, t, label(t, "trick"))
    _seats(c, view, names, t)
    if view.get("last_trick"):
        _trick(c, view["last_trick"], names, t, label(t, "last_trick"), winner=view.get("last_winner"), size=40)
    _last_hand(c, view, names, t)
    _legend(c, t)
    return c


def board(view: dict[str, Any], names: Sequence[str], t: Translator) -> bytes:
    """PNG of the public table from the public view (``seat=None``). Raises on a malformed view."""
    return draw_board(view, names, t).png()


def _hand(c: Canvas, view: dict[str, Any], legal: Sequence[str], t: Translator) -> bool:
    """The hand grouped by suit (:func:`group_hand`), legal tiles framed, the others greyed
    while choosing; returns whether a tile was greyed (the legend then explains it)."""
    greyed = False
    trump = view.get("trump")
    codes = set(legal)
    choosing = any(code[:1] in ("p", "d") for code in codes)
    widow = _tile(view["widow"]) if view.get("widow") else None
    x0, x1 = style.MARGIN, style.WIDTH - style.MARGIN
    step = _HAND + 26
    lift = 10 if choosing else 0  # the framed tiles' badges stick out above them: room under the labels
    row_h = style.SMALL + 12 + lift + 2 * _HAND + style.SMALL + 18
    x = x0
    for suit, tiles in group_hand(view.get("hand", []), trump):
        name = label(t, "trump") if suit == TRUMP_SUIT else plain(t("tpm.trump.suit", n=suit))
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
                c.text(tx + _HAND // 2, ty + 2 * _HAND + 8, label(t, "widow"), style.SMALL, style.ORANGE,
                       bold=True, anchor="ma")
            tx += step
        x += width + 28
    c.y += row_h
    return greyed


def panel(view: dict[str, Any], legal: Sequence[str], names: Sequence[str], t: Translator) -> bytes:
    """PNG of a seat's hand from that seat's view and its legal action codes (``b..``, ``d..``,
    ``t..``, ``p..``); legal choices are framed. Raises on a malformed view."""
    legal = tuple(legal)
    c = Canvas()
    c.title_bar(plain(t("tpm.panel.title")), plain(t("tpm.board.hand", n=view["hand_no"])).capitalize())
    x0 = style.MARGIN
    phase = view["phase"]
    if not legal:
        text = plain(t("tpm.panel.over")) if phase == "over" else plain(
            t("tpm.panel.wait", name=name_of(names, view.get("turn"))))
    elif phase == "bid":
        text = plain(t("tpm.panel.bid", bid=view["bid"]) if view.get("bid") else t("tpm.panel.bid_first"))
    elif phase == "discard":
        w = view.get("widow")
        text = plain(t("tpm.panel.discard", tile=f"[{w[0]}|{w[1]}]" if w else "?"))
    elif phase == "trump":
        text = plain(t("tpm.panel.trump"))
    else:
        text = plain(t("tpm.panel.lead")) if not view.get("trick") else label(t, "play_framed")
    if legal:
        c.text(x0, c.y, label(t, "your_turn"), style.HEAD, style.BLUE, bold=True)
        c.y += style.HEAD + 8
    c.paragraph(x0, text, style.WIDTH - 2 * x0, style.SMALL)
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
        hand = [_tile(tl) for tl in view.get("hand", [])]
        for option in TRUMP_OPTIONS:
            code = f"t{option}"
            count = sum(1 for tl in hand if is_trump(tl, option))
            text = f"{trump_name(t, option)} · {count}"
            w = c.width(text, style.BODY, code in legal) + 50
            if x + w > style.WIDTH - x0:
                x, c.y = x0 + 6, c.y + style.BODY + 36
            x += chip(c, x, c.y, text, legal=code in legal)
        c.y += style.BODY + 44
    c.heading(label(t, "hand"))
    greyed = _hand(c, view, legal, t)
    if view.get("trump") is not None or view.get("trick"):
        c.text(x0, c.y, f"{label(t, 'trump')}{colon(t.lang)} {trump_name(t, view.get('trump'))}", style.BODY, bold=True)
        c.y += style.BODY + 12
    if phase == "play" and view.get("trick"):
        _trick(c, view["trick"], names, t, label(t, "trick"), size=40)
    _legend(c, t, panel=True, greyed=greyed)
    return c.png()
