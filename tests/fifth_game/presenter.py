"""High Block presenter: the public board, the private panel, log lines, labels, lobby selects.

Reads the typed views of :mod:`tests.fifth_game.high_card.view` (a :class:`HighCardSeatView`
for a seat). Cards are drawn ``⟨7⟩``; every text comes from the catalogs (``i18n/<lang>/``).
"""

from __future__ import annotations

from bot.i18n import Translator
from bot.presenters.base import Presenter, RenderContext
from bot.ui import Block, Button, Field, Panel, Select, SelectOption
from engine.core import Event
from tests.fifth_game.high_card import MAX_ROUNDS, HighCardSeatView, HighCardView

__all__ = ["HighCardPresenter", "block_text"]

_COLOR = 0x8E44AD


def block_text(card: int) -> str:
    """``7 -> "⟨7⟩"`` (a card as drawn on buttons, boards and log lines)."""
    return f"⟨{card}⟩"


class HighCardPresenter(Presenter[HighCardView]):
    """Presenter of ``high-card``."""

    def _status(self, view: HighCardView, ctx: RenderContext) -> str:
        t = ctx.t
        if view.phase == "over":
            return t("hc.status.over", names=", ".join(ctx.name(s) for s in view.winners or ()))
        if view.phase == "play":
            return t("hc.status.play")
        return t("hc.status.decide", name=ctx.name(view.current))

    def board(self, view: HighCardView, ctx: RenderContext) -> Block:
        """Public board: status, each seat's revealed card (or its cards left), points, deck."""
        t = ctx.t
        table = "\n".join(
            t("hc.seat_line", name=ctx.name(line.seat),
              card=block_text(line.shown) if line.shown is not None else t("hc.face_down"), left=line.cards_left)
            for line in view.seats)
        points = "\n".join(t("hc.points_line", name=ctx.name(line.seat), points=line.points) for line in view.seats)
        fields = (Field(t("hc.field.table"), table), Field(t("hc.field.points"), points, True),
                  Field(t("hc.field.deck"), str(view.deck_left), True))
        title = f"{self.title(t)} · {t('hc.board.round', n=view.round, of=view.rounds)}"
        return Block(title=title, description=self._status(view, ctx), fields=fields, color=_COLOR)

    def panel(self, view: HighCardView, legal: tuple[str, ...], ctx: RenderContext) -> Panel:
        """Private panel: the reader's hand, and its buttons: one per card to play, or keep /
        redraw. Only ``legal`` codes become buttons."""
        t = ctx.t
        hand = view.hand if isinstance(view, HighCardSeatView) else ()
        buttons: list[Button] = []
        for code in legal:
            if code.startswith("p"):
                buttons.append(Button(block_text(int(code[1:])), code, "primary"))
            elif code == "k":
                buttons.append(Button(t("hc.btn.keep"), code, "success"))
            elif code == "r":
                buttons.append(Button(t("hc.btn.redraw"), code, "secondary"))
        if not legal:
            prompt = t("hc.panel.over") if view.phase == "over" else t("hc.panel.wait")
        elif view.phase == "play":
            prompt = t("hc.panel.play")
        else:
            mine = view.seats[ctx.seat].shown if ctx.seat is not None else None
            prompt = t("hc.panel.decide", card=block_text(mine) if mine is not None else "?")
        cards = " ".join(block_text(c) for c in hand) or t("hc.nothing")
        card = Block(title=t("hc.panel.title"), description=t("hc.panel.hand", cards=cards) + "\n\n" + prompt,
                    color=_COLOR)
        return Panel(card=card, rows=(tuple(buttons),) if buttons else ())

    def event(self, event: Event, ctx: RenderContext) -> str:
        """Log lines; card lists and winner lists are written out with names."""
        p = dict(event.params)
        t = ctx.t
        if event.key == "hc.reveal":
            cards = " · ".join(f"{ctx.name(s)} {block_text(c)}" for s, c in enumerate(p["cards"]))
            return t("hc.reveal", cards=cards)
        if event.key == "hc.dealt":
            return t("hc.dealt", cards=" ".join(block_text(c) for c in p["cards"]))
        if event.key in ("hc.round", "hc.end"):
            names = ", ".join(ctx.name(s) for s in p["winners"])
            return t(event.key, names=names, round=p.get("round"), card=block_text(p.get("card") or 0))
        if event.key in ("hc.keep", "hc.redraw"):
            for k in ("card", "old", "new"):
                if k in p:
                    p[k] = block_text(p[k])
            return t(event.key, name=ctx.name(p["seat"]), **{k: v for k, v in p.items() if k != "seat"})
        return super().event(event, ctx)

    def action_label(self, code: str, view: HighCardView, ctx: RenderContext) -> str:
        """``p7`` Play ⟨7⟩, ``k`` Keep, ``r`` Redraw."""
        if code.startswith("p") and code[1:].isdigit():
            return ctx.t("hc.act.play", card=block_text(int(code[1:])))
        return {"k": ctx.t("hc.btn.keep"), "r": ctx.t("hc.btn.redraw")}.get(code, code)

    def lobby_selects(self, ctx: RenderContext) -> tuple[Select, ...]:
        """One select: the number of rounds (``rounds=2`` / ``rounds=3``)."""
        t = ctx.t
        options = tuple(SelectOption(t("hc.opt.rounds_n", n=n), f"rounds={n}") for n in range(2, MAX_ROUNDS + 1))
        return (Select(t("hc.opt.rounds"), options),)

    def rules(self, t: Translator) -> Block:
        """The rules summary (``game.high-card.rules``)."""
        return Block(title=self.title(t), description=t(f"game.{self.key}.rules"), color=_COLOR)
