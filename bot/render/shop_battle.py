"""Shop Battle pictures: the public table and the private pile, from the typed views of
:mod:`engine.shop_battle.view` (:class:`ShopBattleView`, a seat's :class:`ShopBattleSeatView`).
The status line, the round against its cap, the prompts and the power texts are the text board's
(:mod:`bot.presenters.shop_battle`).

Board: round (and round cap), who chooses, the announced characteristic and direction, the cards
revealed this round as shop cards with their four characteristics (year founded, letters in the
name, street number, games in the shop; the compared one highlighted) and any Collector with its
power, the last round's result, every pile and the pot. Rules: ``docs/rules/shop-battle.md``.

Panel: the seat's own top card (only in its view) with the eight choices (a characteristic,
higher or lower wins) or the Collector targets, legal choices framed in blue.
"""

from __future__ import annotations

import re
from collections.abc import Hashable, Sequence
from typing import Any

from bot.i18n import Translator
from bot.presenters.base import RenderContext
from bot.presenters.shop_battle import deck_title, power_text, round_stage, status_text, target_prompt, wait_text
from bot.render import style
from bot.render.draw import Canvas, card_box, chip, die, legal_key, name_of, seat_chip
from bot.render.style import plain
from engine.shop_battle.view import (
    AnnounceView,
    CardView,
    CollectorCardView,
    LastRoundView,
    PlayView,
    ShopBattleSeatView,
    ShopBattleView,
    ShopCardView,
)

CHARS = ("year", "letters", "street", "games")
_CARD_W = 240
_CARD_H = 200
#: How far a winner's frame reaches out of its card (:func:`_card`), px.
_FRAME = 5
#: Height of the panel's top card: its four rows hold a row of chips each, badges included.
_TOP_H = 330
_SHOP_BAND = (214, 228, 240)
_COLLECTOR_BAND = style.PURPLE


def char_icon(c: Canvas, char: str, x: int, y: int, size: int) -> None:
    """Icon of a characteristic: a calendar (year), "Aa" (letters), a house (street), a die (games)."""
    if char == "year":
        c.d.rounded_rectangle((x, y + 3, x + size, y + size), radius=4, fill=(255, 255, 255), outline=style.INK,
                              width=2)
        c.d.rectangle((x + 2, y + 5, x + size - 2, y + size // 3 + 2), fill=style.VERMILLION)
        for i in range(3):
            c.d.rectangle((x + 5 + i * (size - 10) // 3, y + size // 2 + 2, x + 9 + i * (size - 10) // 3,
                           y + size // 2 + 6), fill=style.INK)
    elif char == "letters":
        c.d.rounded_rectangle((x, y, x + size, y + size), radius=4, fill=(255, 255, 255), outline=style.INK, width=2)
        c.text(x + size // 2, y + size // 2 + 1, "Aa", max(style.SMALL, size - 6) if size > 34 else style.SMALL,
               style.INK, bold=True, anchor="mm")
    elif char == "street":
        m = size // 2
        c.d.polygon([(x + m, y), (x + size, y + m), (x + size - 4, y + m), (x + size - 4, y + size),
                     (x + 4, y + size), (x + 4, y + m), (x, y + m)], fill=style.SKY, outline=style.INK, width=2)
        c.d.rectangle((x + m - 4, y + size - 12, x + m + 4, y + size), fill=style.INK)
    else:
        die(c, x, y, size, 5)


_LINE = style.SMALL + 4
#: A power text's line pitch, and the room its last line takes down to the card's edge (the
#: glyphs reach 34 px below the line's top at :data:`style.SMALL`, then a margin).
_POWER_LINE = style.SMALL + 2
_LAST_LINE = 42


def two_lines(c: Canvas, text: str, w: int = _CARD_W) -> list[str]:
    """``text`` in at most two lines of ``w - 20`` px (bold, :data:`style.SMALL`); only a text
    longer than two lines is shortened with "…"."""
    return c.wrap(text, w - 20, style.SMALL, bold=True, max_lines=2) or ["?"]


def title_lines(c: Canvas, card: CardView, w: int = _CARD_W) -> list[str]:
    """A card's name in at most two lines (:func:`two_lines`)."""
    return two_lines(c, card.name, w)


def _band(card: CollectorCardView, t: Translator) -> str:
    """A Collector's band: "Collector · <power>", the power's name without its parenthesis (the
    rules call the peek "Peek (HYPER U)" after the default deck's card, whose name, like any
    deck's, is printed under the band: "Coup d'œil (HYPER U)" was cut to "Coup d'œil (HY…")."""
    return f"{t('sb.pic.collector')} · {power_name(card, t)}"


def power_name(card: CollectorCardView, t: Translator) -> str:
    """A Collector's power by name, without the rules' parenthesis ("Peek", not "Peek (HYPER U)")."""
    kind = plain(t("sb.kind." + card.power))
    return re.sub(r" *[(][^()]*[)]$", "", kind) or kind


def _band_lines(c: Canvas, card: CardView, t: Translator | None, w: int) -> list[str]:
    """The lines of a card's coloured band: the name of a shop card, "Collector · <power>" of a
    Collector (whose name comes under the band)."""
    if isinstance(card, ShopCardView):
        return title_lines(c, card, w)
    return two_lines(c, _band(card, t), w) if t is not None else [""]


def _card(c: Canvas, x: int, y: int, card: CardView, char: str | None, t: Translator,
          winner: bool = False, w: int = _CARD_W, h: int = _CARD_H) -> None:
    """One revealed card: a shop card with its four values (``char`` highlighted) or a Collector
    with its power. Its band and a Collector's name take up to two lines each; the caller makes
    ``h`` taller to match (:func:`card_height`)."""
    box = (x, y, x + w, y + h)
    band = _band_lines(c, card, t, w)
    top = card_box(c, box, _SHOP_BAND if isinstance(card, ShopCardView) else _COLLECTOR_BAND, "", style.INK,
                   band_h=36 + _LINE * (len(band) - 1))
    for i, line in enumerate(band):
        c.text(x + 10, y + 20 + i * _LINE, line, style.SMALL, style.INK, bold=True, anchor="lm")
    if not isinstance(card, ShopCardView):
        for line in title_lines(c, card, w):
            c.text(x + 10, top, line, style.SMALL, bold=True)
            top += _LINE
        for i, line in enumerate(power_lines(c, card, t, w)):  # every line: card_height made room
            c.text(x + 10, top + 2 + i * _POWER_LINE, line, style.SMALL)
        return
    row = (h - (top - y) - 6) // 4
    for i, ch in enumerate(CHARS):
        yy = top + i * row
        hot = ch == char
        if hot:
            c.d.rectangle((x + 3, yy - 2, x + w - 3, yy + row - 2), fill=style.YELLOW)
        char_icon(c, ch, x + 10, yy + (row - 28) // 2, 28)
        c.text(x + w - 12, yy + row // 2 - 2, str(card.value(ch)), style.SMALL, style.INK, bold=hot, anchor="rm")
    if winner:
        c.d.rounded_rectangle((x - _FRAME, y - _FRAME, x + w + _FRAME, y + h + _FRAME), radius=14,
                              outline=style.GREEN, width=5)


def power_lines(c: Canvas, card: CollectorCardView, t: Translator, w: int = _CARD_W) -> list[str]:
    """A Collector's power text (:func:`bot.presenters.shop_battle.power_text`) in lines of
    ``w - 20`` px, all of them (never shortened)."""
    return c.wrap(plain(power_text(t, card.power, card.params)), w - 20, style.SMALL)


def card_height(c: Canvas, cards: Sequence[CardView], w: int = _CARD_W, h: int = _CARD_H,
                t: Translator | None = None) -> int:
    """Height in px of a row of cards drawn ``h`` px tall with one-line names: :data:`_LINE`
    more per extra line of the tallest card (a two-line name; with ``t``, a two-line Collector
    band too), and with ``t`` at least the height a Collector's whole power text needs, so the
    row stays aligned and no line of a power is left out."""
    def height(card: CardView) -> int:
        more = len(title_lines(c, card, w)) - 1
        if isinstance(card, ShopCardView) or t is None:
            return h + _LINE * more
        band = len(_band_lines(c, card, t, w))
        body = 36 + _LINE * (band - 1) + 6 + _LINE * len(title_lines(c, card, w)) + 2
        body += _POWER_LINE * (len(power_lines(c, card, t, w)) - 1) + _LAST_LINE
        return max(h + _LINE * (more + band - 1), body)

    return max((height(card) for card in cards), default=h)


_ROUND_KEYS = {"uncapped": "sb.pic.round_n", "within_cap": "sb.pic.round_of", "last_lap": "sb.pic.round_past_cap",
               "lap_done": "sb.pic.round_cap_done"}


def round_label(view: ShopBattleView, t: Translator) -> str:
    """The board's round by :func:`bot.presenters.shop_battle.round_stage`: "Round 7/30" up to
    the round cap, past it "Round 32 · past the 30-round cap: finishing the lap", and "lap
    finished" once the game is over; "Round 7" without a cap."""
    return t(_ROUND_KEYS[round_stage(view)], n=view.round, cap=view.round_cap)


def _status(view: ShopBattleView, names: Sequence[str], t: Translator) -> str:
    return plain(status_text(view, RenderContext(t, tuple(names))))


def _announce(c: Canvas, announce: AnnounceView | None, chooser: int, names: Sequence[str], t: Translator) -> None:
    if not announce:
        return
    x = style.MARGIN
    w = seat_chip(c, x, c.y, chooser, name_of(names, chooser), 300)
    char_icon(c, announce.char, x + w + 16, c.y, 32)
    text = f"{plain(t('sb.short.' + announce.char))} {announce.value} · " \
           f"{plain(t('sb.dir.hi' if announce.hi else 'sb.dir.lo'))}"
    c.text(x + w + 58, c.y, text, style.BODY, bold=True, max_w=style.WIDTH - x - (x + w + 58))
    c.y += style.BODY + 18


def _plays(c: Canvas, plays: Sequence[Sequence[PlayView]], char: str | None, names: Sequence[str],
           t: Translator, winner: int | None = None) -> None:
    """Each seat's latest revealed card under its name, side by side (earlier cards of the same
    round, after a bataille or a Collector, are named above the card: :func:`earlier_lines`)."""
    per_row = (style.WIDTH - 2 * style.MARGIN + 16) // (_CARD_W + 16)
    cells = [(seat, seq) for seat, seq in enumerate(plays) if seq]
    for start in range(0, len(cells), per_row):
        top = c.y
        row = cells[start:start + per_row]
        before = [earlier_lines(c, seq, char, t) for _, seq in row]
        extra = (style.SMALL + 4) * max(map(len, before)) + (4 if any(before) else 0)
        h = card_height(c, [seq[-1].card for _, seq in row], t=t)
        for i, (seat, seq) in enumerate(row):
            x = style.MARGIN + i * (_CARD_W + 16)
            seat_chip(c, x, top, seat, name_of(names, seat), _CARD_W, size=style.SMALL)
            y = top + style.SMALL + 14
            for k, line in enumerate(before[i]):
                c.text(x, y + k * (style.SMALL + 4), line, style.SMALL, style.MUTED)
            _revealed(c, x, y + extra, seq[-1].card, char, t, winner == seat, h)
        c.y = top + style.SMALL + 14 + extra + h + 22


def _revealed(c: Canvas, x: int, y: int, card: CardView, char: str | None, t: Translator, winner: bool,
              h: int) -> None:
    """A revealed card on the board (:func:`_card`, ``_CARD_W`` wide, ``h`` tall): a shop card as
    a kept sprite (:meth:`Canvas.sprite`: the same card shows in every picture of its round and
    of the next), a Collector drawn."""
    if not isinstance(card, ShopCardView):
        _card(c, x, y, card, char, t, winner=winner, h=h)
        return
    pad = _FRAME
    c.sprite(("sb-card", card, char, winner, h), (x - pad, y - pad, x + _CARD_W + pad + 1, y + h + pad + 1),
             lambda cv, x0, y0: _card(cv, x0 + pad, y0 + pad, card, char, t, winner=winner, h=h))


def earlier_lines(c: Canvas, seq: Sequence[PlayView], char: str | None, t: Translator) -> list[str]:
    """The cards a seat revealed this round before its last one (all face up: a bataille's tied
    cards, Collectors), named in at most three lines over a card's width: "Earlier: Lulu Jeux
    (8), Prix Imbattables (Tiebreaker)", a shop card with its compared value; none: ``[]``."""
    def name(card: CardView) -> str:
        if not isinstance(card, ShopCardView):
            return f"{card.name} ({power_name(card, t)})"
        return f"{card.name} ({card.value(char)})" if char else card.name

    if len(seq) < 2:
        return []
    text = t("sb.pic.earlier", cards=", ".join(name(play.card) for play in seq[:-1]))
    return c.wrap(text, _CARD_W, style.SMALL, max_lines=3)


def _piles(c: Canvas, view: ShopBattleView, names: Sequence[str], t: Translator) -> None:
    c.heading(plain(t("sb.field.piles")))
    x0, x1 = style.MARGIN, style.WIDTH - style.MARGIN
    for seat, count in enumerate(view.piles):
        out = view.out[seat] if seat < len(view.out) else None
        chooser = view.phase != "over" and seat == view.chooser
        seat_chip(c, x0, c.y, seat, name_of(names, seat), 420, current=chooser)
        if out is not None:
            gone = t("sb.pic.out_in", n=out) if out else t("sb.pic.out")  # round 0: dealt no card
            c.text(x1, c.y, gone, style.BODY, style.VERMILLION, bold=True, anchor="ra")
        else:
            _pile_icon(c, x1 - 170, c.y, min(count, 4))
            c.text(x1, c.y, t("sb.pic.pile", n=count), style.BODY, bold=True, anchor="ra")
        c.y += style.BODY + 18
    pot = view.pot
    down = view.pot_face_down  # in words: "Pot: 4 cards, 3 face down"
    text = t("sb.pic.pot_of", cards=plain(t("sb.pot_line", cards=pot, face_down=down))) if down else t("sb.pic.pot", n=pot)
    c.text(x0, c.y, text, style.BODY, bold=True, max_w=x1 - x0)
    c.y += style.BODY + 14


def _pile_icon(c: Canvas, x: int, y: int, n: int) -> None:
    for i in range(max(1, n)):
        c.d.rounded_rectangle((x + i * 5, y + 4 - i * 3, x + 24 + i * 5, y + 34 - i * 3), radius=4,
                              fill=_SHOP_BAND, outline=style.INK, width=2)


def _legend(c: Canvas, t: Translator, panel: bool = False) -> None:
    def drawer(name: str) -> Any:
        return lambda cv, x, y, s: char_icon(cv, name, x, y, s)

    items = [(drawer(ch), plain(t(f"sb.char.{ch}"))) for ch in CHARS]

    def hot(cv: Canvas, x: int, y: int, s: int) -> None:
        cv.d.rectangle((x, y + 4, x + s, y + s - 4), fill=style.YELLOW, outline=style.LINE)

    items.append((hot, t("sb.pic.compared")))
    if panel:
        items.append((legal_key, t("pic.legal")))
    c.legend(t("pic.legend"), items, kind=f"sb:{panel}")


def draw_board(view: ShopBattleView, names: Sequence[str], t: Translator) -> Canvas:
    """The public table on a :class:`Canvas` (see the module docstring)."""
    c = Canvas(max_height=3200)
    deck = deck_title(view.deck_name, t)
    subtitle = round_label(view, t) + (f" · {deck}" if deck and deck != plain(t("game.shop-battle.name")) else "")
    c.title_bar(plain(t("game.shop-battle.name")), subtitle)
    c.paragraph(style.MARGIN, _status(view, names, t), style.WIDTH - 2 * style.MARGIN, style.BODY, bold=True)
    c.space(8)
    if view.phase != "over":
        c.text(style.MARGIN, c.y, plain(t("sb.status.rotation", rotation=t(f"sb.rotation.{view.direction}"))),
               style.SMALL, style.MUTED)
        c.y += style.SMALL + 12
    if any(view.plays) or view.announce:
        c.heading(t("sb.pic.revealed"))
        _announce(c, view.announce, view.chooser, names, t)
        char = view.announce.char if view.announce else None
        _plays(c, view.plays, char, names, t)
    # the last round shows in every picture of the next round, the piles and the pot until a
    # round ends or the chooser changes: bands
    last = view.last
    if last:
        c.band(("sb-last", _hashable(last), tuple(names), t.lang), lambda cv: _last_round(cv, last, names, t))
    chooser = view.chooser if view.phase != "over" else None
    c.band(("sb-piles", view.piles, view.out, chooser, view.pot, view.pot_face_down, tuple(names), t.lang),
           lambda cv: _piles(cv, view, names, t))
    _legend(c, t)
    return c


def _hashable(value: Any) -> Hashable:
    """``value`` itself when it can be hashed, else its ``repr`` (a view holding a Collector,
    whose ``params`` is a dict): a band's key, equal for equal values."""
    try:
        hash(value)
    except TypeError:
        return repr(value)
    return value


def _last_round(c: Canvas, last: LastRoundView, names: Sequence[str], t: Translator) -> None:
    """The last round: its announce, its winner or the pot carried, every seat's cards."""
    c.heading(plain(t("sb.field.last", round=last.round)))
    _announce(c, last.announce, last.chooser, names, t)
    if last.winner is not None:
        c.text(style.MARGIN, c.y, plain(t("sb.winner", name=name_of(names, last.winner), cards=last.pot)),
               style.BODY, style.GREEN, bold=True, max_w=style.WIDTH - 2 * style.MARGIN)
        c.y += style.BODY + 12
    elif last.pot:
        c.text(style.MARGIN, c.y, plain(t("sb.carried", cards=last.pot)), style.BODY, bold=True)
        c.y += style.BODY + 12
    _plays(c, last.plays, last.char, names, t, winner=last.winner)


def board(view: ShopBattleView, names: Sequence[str], t: Translator) -> bytes:
    """PNG of the public table from the public view (``seat=None``)."""
    return draw_board(view, names, t).png()


def panel(view: ShopBattleView, legal: Sequence[str], names: Sequence[str], t: Translator) -> bytes:
    """PNG of a seat's pile from that seat's view and its legal codes (``c.<char>.<hi|lo>``,
    ``t.<seat>``); legal choices are framed."""
    legal = tuple(legal)
    c = Canvas()
    c.title_bar(plain(t("sb.panel.title")), t("sb.pic.round_n", n=view.round))
    x0, x1 = style.MARGIN, style.WIDTH - style.MARGIN
    seat, top = (view.seat, view.top) if isinstance(view, ShopBattleSeatView) else (None, None)
    if legal:
        c.text(x0, c.y, t("pic.your_turn"), style.HEAD, style.BLUE, bold=True)
        c.y += style.HEAD + 8
    if top and any(code.startswith("c.") for code in legal):
        c.paragraph(x0, plain(t("sb.panel.choose")), x1 - x0, style.SMALL)
        c.space(10)
        c.text(x0, c.y, t("sb.pic.your_card"), style.SMALL, style.MUTED, bold=True)
        c.y += style.SMALL + 8
        y0 = c.y
        h = card_height(c, [top], w=300, h=_TOP_H, t=t)
        _card(c, x0, y0, top, None, t, w=300, h=h)
        yy = y0 + h - _TOP_H + 44
        row = (_TOP_H - 44 - 6) // 4  # a chip and the badge of the chip under it
        for ch in CHARS:
            cx = x0 + 330
            cx += chip(c, cx, yy + (row - style.SMALL - 18) // 2, "▲ " + t("sb.pic.higher"),
                       legal=f"c.{ch}.hi" in legal, size=style.SMALL)
            chip(c, cx, yy + (row - style.SMALL - 18) // 2, "▼ " + t("sb.pic.lower"),
                 legal=f"c.{ch}.lo" in legal, size=style.SMALL)
            yy += row
        c.y = y0 + h + 20
    elif any(code.startswith("t.") for code in legal) and view.pending:
        card = view.pending.card
        c.paragraph(x0, plain(target_prompt(card, t)), x1 - x0, style.SMALL)
        c.space(24)  # the chips' badges stick out 14 px above them: clear of the prompt
        h = card_height(c, [card], t=t)
        _card(c, x0, c.y, card, None, t, h=h)
        cx, cy = x0 + _CARD_W + 30, c.y
        for code in legal:
            target = int(code.split(".")[1])
            text = f"{name_of(names, target)} · {t('sb.pic.pile', n=view.piles[target])}"
            chip(c, cx, cy, text, legal=True, max_w=x1 - cx - 10)
            cy += style.BODY + 40
        c.y = max(c.y + h, cy) + 16
    else:
        c.paragraph(x0, plain(wait_text(view, seat, RenderContext(t, tuple(names)))), x1 - x0, style.BODY)
        c.space(10)
    if seat is not None and 0 <= seat < len(view.piles):
        _pile_icon(c, x0, c.y, min(view.piles[seat], 4))
        c.text(x0 + 50, c.y, plain(t("sb.panel.pile", cards=view.piles[seat])), style.BODY, bold=True,
               max_w=x1 - x0 - 50)
        c.y += style.BODY + 18
    _legend(c, t, panel=True)
    return c.png()
