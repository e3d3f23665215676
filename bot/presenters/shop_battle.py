"""Shop Battle presenter: public board, private panels, log lines, lobby selects, rules.

Views are the typed views of :mod:`engine.shop_battle.view` (``ShopBattleView`` for the board,
``ShopBattleSeatView`` for a panel). The board only uses the public view (revealed cards, pile
counts); the chooser's panel shows the chooser's own top card, which is only in that seat's
view. Block names are safe to print as is: deck validation refuses markdown and mention
characters (see :mod:`engine.shop_battle.deck`). Event parameters stay JSON dicts.

Action codes: ``c.<year|letters|street|games>.<hi|lo>`` (8 buttons in 2 rows: higher, lower)
and ``t.<seat>`` (Collector targets, one button per player name).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any, Literal

from bot.i18n import Translator
from bot.presenters.base import Presenter, RenderContext, level_groups, tie_line
from bot.ui import Block, Button, Field, Panel, Select, SelectOption
from engine.core import Event, Outcome
from engine.shop_battle import CHARACTERISTICS, POWER_KINDS, ROUND_CAPS, default_deck
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

_COLOR = 0xC0392B
_FIELD_MAX = 1024
_CARDS_PER_SEAT = 4  # revealed cards shown per seat on the board (the latest ones)


def _clip(text: str, limit: int = _FIELD_MAX) -> str:
    """``text`` cut to ``limit`` characters (with an ellipsis)."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def card_label(card: CardView, char: str | None, t: Translator, bold: bool = True) -> str:
    """One revealed card: ``Name **1952**`` (``sb.card_value``: the compared value highlighted;
    the terminal's variant writes ``Name (1952)``, so that a name ending in a number, "Vinyle 33",
    stays apart from its value) or ``✨ *Name*``."""
    if not isinstance(card, ShopCardView):
        return f"✨ *{card.name}*"
    if char is None:
        return card.name
    value = card.value(char)
    return t("sb.card_value", name=card.name, value=value) if bold else f"{card.name} {value}"


def card_values(card: ShopCardView, t: Translator) -> str:
    """The four characteristics of a shop card, one per line."""
    return "\n".join(t(f"sb.value.{ch}", value=card.value(ch)) for ch in CHARACTERISTICS)


def power_text(t: Translator, kind: str, params: Mapping[str, Any] | None) -> str:
    """Description of a power kind with its parameters (``seconds``, ``cards``)."""
    p = {"seconds": 10, "cards": 1, **(params or {})}
    return t(f"sb.power.{kind}", **p)



@functools.cache
def _default_deck_name() -> str:
    """The name the shipped default deck carries in states and views (``data/default.json``)."""
    return default_deck().name


def deck_title(name: str, t: Translator) -> str:
    """A deck's display name: the shipped default deck's localised name (``sb.deck.default_name``:
    "Shop Battle", "Bataille des commerces"), any other deck's name as stored. Display only: the
    name stored in states and snapshots stays as it is (``docs/rules/shop-battle.md``, Decks)."""
    return t("sb.deck.default_name") if name == _default_deck_name() else name


# --- what the text board and the picture both say (bot/render/shop_battle.py) -------------------
RoundStage = Literal["uncapped", "within_cap", "last_lap", "lap_done"]


def round_stage(view: ShopBattleView) -> RoundStage:
    """Where the round stands against the round cap (RULINGS S6): no cap, up to the cap, past it
    (rules 2-3 play the lap of the cap round out, rules 4 the rounds until everybody still in has
    chosen equally often) while the game runs, or past it once the game is over."""
    cap = view.round_cap
    if cap is None:
        return "uncapped"
    if view.round <= cap:
        return "within_cap"
    return "lap_done" if view.phase == "over" else "last_lap"


def status_text(view: ShopBattleView, ctx: RenderContext) -> str:
    """The table's status line: who chooses, whose Collector awaits a target, or the winners."""
    t = ctx.t
    if view.phase == "over":
        names = ", ".join(ctx.name(s) for s in view.winners)
        return t("sb.status.over", names=names or "—", n=len(view.winners))
    if view.phase == "target" and view.pending:
        pend = view.pending
        return t("sb.status.target", name=ctx.name(pend.owner), card=pend.card.name)
    return t("sb.status.choose", name=ctx.name(view.chooser))


def target_prompt(card: CardView, t: Translator) -> str:
    """What a Collector's owner is asked (S2): whose pile to peek at for its ``seconds`` (HYPER
    U), or to swap with."""
    is_peek = isinstance(card, CollectorCardView) and card.power == "peek"
    seconds = card.params.get("seconds", 10) if isinstance(card, CollectorCardView) else 10
    return t("sb.panel.target.peek" if is_peek else "sb.panel.target.swap", card=card.name, seconds=seconds)


def wait_text(view: ShopBattleView, seat: int | None, ctx: RenderContext) -> str:
    """A panel with nothing to choose: the game is over, ``seat`` is out, or whom it waits for
    (the seats to act, else the chooser)."""
    t = ctx.t
    if view.phase == "over":
        return t("sb.panel.over")
    if seat is not None and view.out[seat] is not None:
        return t("sb.panel.out")
    acting = view.to_act or (view.chooser,)
    return t("sb.panel.wait", name=", ".join(ctx.name(s) for s in acting))


class ShopBattlePresenter(Presenter[ShopBattleView]):
    """Presenter of ``shop-battle``."""

    # --- pieces --------------------------------------------------------------------------------
    def _announce_line(self, announce: AnnounceView | None, chooser: int, ctx: RenderContext) -> str:
        if not announce:
            return ""
        t = ctx.t
        return t(
            "sb.announce",
            name=ctx.name(chooser),
            char=t(f"sb.char.{announce.char}"),
            value=announce.value,
            dir=t("sb.dir.hi" if announce.hi else "sb.dir.lo"),
        )

    def _plays_text(self, plays: Sequence[Sequence[PlayView]], char: str | None, winner: int | None,
                    chooser: int, ctx: RenderContext) -> str:
        lines = []
        order = sorted(range(len(plays)), key=lambda s: (s != chooser, s))
        for seat in order:
            seq = plays[seat]
            if not seq:
                continue
            shown = seq[-_CARDS_PER_SEAT:]
            parts = []
            for i, item in enumerate(shown):
                prefix = "⚔️ " if item.level > 0 and (i == 0 or shown[i - 1].level != item.level) else ""
                parts.append(prefix + card_label(item.card, char, ctx.t))
            text = " · ".join(parts)
            if len(seq) > len(shown):
                text = ctx.t("sb.more", n=len(seq) - len(shown)) + " " + text
            mark = "🏆 " if seat == winner else ""
            lines.append(mark + ctx.t("sb.play_line", name=f"**{ctx.name(seat)}**", cards=text))
        return _clip("\n".join(lines)) if lines else ctx.t("sb.no_plays")

    def _piles_text(self, view: ShopBattleView, ctx: RenderContext) -> str:
        t = ctx.t
        lines = []
        for seat, count in enumerate(view.piles):
            out = view.out[seat]
            if out is not None:
                lines.append("💀 " + t("sb.pile_out", name=ctx.name(seat), round=out))
                continue
            mark = "🎴 " if seat == view.chooser and view.phase != "over" else ""
            lines.append(mark + t("sb.pile_line", name=ctx.name(seat), cards=count))
        return _clip("\n".join(lines))

    def _result_text(self, last: LastRoundView, ctx: RenderContext) -> str:
        t = ctx.t
        lines = []
        head = self._announce_line(last.announce, last.chooser, ctx)
        if head:
            lines.append(head)
        lines.append(self._plays_text(last.plays, last.char, last.winner, last.chooser, ctx))
        if last.batailles:
            lines.append(t("sb.batailles", n=last.batailles))
        if last.winner is None:
            lines.append(t("sb.carried", cards=last.pot))
        else:
            key = "sb.tiebreak" if last.tiebreak else "sb.winner"
            lines.append(t(key, name=ctx.name(last.winner), cards=last.pot))
        return _clip("\n".join(lines))

    # --- board ---------------------------------------------------------------------------------
    def board(self, view: ShopBattleView, ctx: RenderContext) -> Block:
        """Public board: round, status (chooser / Collector decision / winner), the announce and
        the cards revealed so far this round (compared value in bold), the last round's result
        (batailles, winner or carried pot), pile counts, pot size, rotation and skips."""
        t = ctx.t
        top = self.headline(view, ctx)
        desc = [top.description]
        if view.phase != "over":
            desc.append(t("sb.status.rotation", rotation=t(f"sb.rotation.{view.direction}")))
            if view.skips:
                desc.append(t("sb.status.skips", n=view.skips))
        fields: list[Field] = []
        if any(view.plays):
            lines = []
            head = self._announce_line(view.announce, view.chooser, ctx)
            if head:
                lines.append(head)
            char = view.announce.char if view.announce else None
            lines.append(self._plays_text(view.plays, char, None, view.chooser, ctx))
            if view.level:
                lines.append(t("sb.batailles", n=view.level))
            fields.append(Field(t("sb.field.now", round=view.round), _clip("\n".join(lines))))
        if view.last:
            last = view.last
            fields.append(Field(t("sb.field.last", round=last.round), self._result_text(last, ctx)))
        fields.append(Field(t("sb.field.piles"), self._piles_text(view, ctx), True))
        pot = view.pot
        if not pot:
            pot_text = t("sb.pot_empty")
        elif view.pot_face_down:
            pot_text = t("sb.pot_line", cards=pot, face_down=view.pot_face_down)
        else:
            pot_text = t("sb.pot_line_plain", cards=pot)
        fields.append(Field(t("sb.field.pot"), pot_text, True))
        return replace(top, description="\n".join(desc), fields=tuple(fields))

    def headline(self, view: ShopBattleView, ctx: RenderContext) -> Block:
        """The board's title (round), status line and footer (the deck), no fields."""
        t = ctx.t
        footer = t("sb.footer", deck=deck_title(view.deck_name, t), cards=view.cards_total)
        return Block(title=self._title(view, t), description=status_text(view, ctx), color=_COLOR, footer=footer)

    def _title(self, view: ShopBattleView, t: Translator) -> str:
        """The board title by :func:`round_stage`: ``round 7/30`` up to the round cap, past it
        ``round 31 · last lap (cap: 30 rounds)``, and ``last lap played`` once the game is over."""
        stage, game = round_stage(view), self.title(t)
        if stage == "uncapped":
            return t("sb.board.title", game=game, round=view.round)
        if stage == "within_cap":
            return t("sb.board.title", game=game, round=f"{view.round}/{view.round_cap}")
        key = "sb.board.title_lap_done" if stage == "lap_done" else "sb.board.title_last_lap"
        return t(key, game=game, round=view.round, cap=view.round_cap)

    # --- panel ---------------------------------------------------------------------------------
    def panel(self, view: ShopBattleView, legal: tuple[str, ...], ctx: RenderContext) -> Panel:
        """Private panel. Chooser: the top card with its four values and 8 buttons
        (characteristic × higher/lower, higher row first). Collector owner: one button per
        target (player name and pile count). Anyone else: pile count and whom we wait for."""
        t = ctx.t
        seat = ctx.seat
        legal = tuple(legal)
        fields: list[Field] = []
        rows: list[tuple[Button, ...]] = []
        lines: list[str] = []
        count = view.piles[seat] if seat is not None and 0 <= seat < len(view.piles) else 0
        top = view.top if isinstance(view, ShopBattleSeatView) else None
        if any(c.startswith("c.") for c in legal) and isinstance(top, ShopCardView):
            lines.append(t("sb.panel.choose"))
            fields.append(Field(t("sb.field.your_card"), f"**{top.name}**\n" + card_values(top, t)))
            for hi in (True, False):
                row = []
                for ch in CHARACTERISTICS:
                    code = f"c.{ch}.{'hi' if hi else 'lo'}"
                    if code in legal:
                        label = t("sb.btn.hi" if hi else "sb.btn.lo", char=t(f"sb.short.{ch}"), value=top.value(ch))
                        row.append(Button(label[:80], code, "primary" if hi else "secondary"))
                if row:
                    rows.append(tuple(row))
        elif any(c.startswith("t.") for c in legal) and view.pending:
            lines.append(target_prompt(view.pending.card, t))
            buttons = []
            for code in legal:
                target = int(code.split(".")[1])
                label = t("sb.btn.target", name=ctx.name(target), cards=view.piles[target])
                buttons.append(Button(label[:80], code, "primary"))
            rows = [tuple(buttons[i : i + 5]) for i in range(0, len(buttons), 5)]
        else:
            lines.append(wait_text(view, seat, ctx))
        if seat is not None and view.out[seat] is None:
            lines.append(t("sb.panel.pile", cards=count))
        card = Block(title=t("sb.panel.title"), description="\n".join(lines), fields=tuple(fields), color=_COLOR)
        return Panel(card=card, rows=tuple(rows))

    def tie_breaks(self, view: ShopBattleView, outcome: Outcome, ctx: RenderContext) -> list[str]:
        """Players level on cards (those out, with none) are ranked by the round they went out
        in, the later the better (RULINGS S6); still in beats out."""
        t = ctx.t

        def lasted(s: int) -> int:
            out = view.out[s]
            return 10**9 if out is None else out

        def shown(s: int) -> str:
            out = view.out[s]
            return t("sb.tie.in") if out is None else t("sb.tie.out", round=out)

        criteria = [(t("sb.tie.lasted"), lasted, shown)]
        return [tie_line(g, self.score_text(outcome.scores[g[0]], t), criteria, ctx) for g in level_groups(outcome)]

    # --- log, labels, lobby, rules -------------------------------------------------------------
    def flash_seconds(self, event: Event) -> int | None:
        """HYPER U's peek (S2) is shown for its ``seconds`` (10 by default), then disappears."""
        if event.key == "sb.ev.peek_result":
            return int(event.params.get("seconds") or 10)
        return None

    def event(self, event: Event, ctx: RenderContext) -> str:
        """One log line: seats become names, characteristic/direction codes become words, card
        lists (HYPER U peek, scout) become ``Name (founded …, … letters, street no. …, … games)`` lists."""
        t = ctx.t
        params = dict(event.params)
        for key in ("seat", "winner", "target", "loser", "bidder", "chooser", "player"):
            if key in params and isinstance(params[key], int):
                params[key] = ctx.name(params[key])
        if isinstance(params.get("players"), list):
            params["n"] = len(params["players"])
            params["players"] = ", ".join(ctx.name(s) for s in params["players"])
        if params.get("char") in CHARACTERISTICS:
            params["char"] = t(f"sb.char.{params['char']}")
        if params.get("dir") in ("hi", "lo"):
            params["dir"] = t(f"sb.dir.{params['dir']}")
        if params.get("rotation") in ("cw", "ccw"):
            params["rotation"] = t(f"sb.rotation.{params['rotation']}")
        if event.key == "sb.ev.collector" and params.get("power") in POWER_KINDS:
            params["power"] = power_text(t, params["power"], params.get("params"))
        if isinstance(params.get("cards"), list):
            params["cards"] = "; ".join(self._card_brief(c, t) for c in params["cards"]) or "—"
        if isinstance(params.get("tops"), list):
            params["tops"] = "; ".join(
                f"{ctx.name(x['seat'])}: {self._card_brief(x['card'], t)}" for x in params["tops"]
            ) or "—"
        return t(event.key, **params)

    @staticmethod
    def _card_brief(card: dict[str, Any], t: Translator) -> str:
        """A card of a peek or scout list with its labelled values: ``Name (founded 2001 ·
        16 letters · street no. 9 · 0 games in the shop)``; a Collector as ``✨ Name``."""
        if card.get("kind") != "shop":
            return f"✨ {card['name']}"
        return t("sb.brief", name=card["name"], year=card["year"], letters=card["letters"], street=card["street"],
                 games=card["games"])

    def action_label(self, code: str, view: ShopBattleView, ctx: RenderContext) -> str:
        """``c.year.hi`` → "Year founded, higher wins"; ``t.2`` → "HYPER U: <name>" (the
        Collector waiting for its target; "Target: <name>" when the view has none)."""
        t = ctx.t
        parts = code.split(".")
        if len(parts) == 3 and parts[0] == "c" and parts[1] in CHARACTERISTICS and parts[2] in ("hi", "lo"):
            return t("sb.label.choose", char=t(f"sb.char.{parts[1]}"), dir=t(f"sb.dir.{parts[2]}"))
        if len(parts) == 2 and parts[0] == "t" and parts[1].isdigit():
            if view.pending is not None:
                return t("sb.label.target_card", card=view.pending.card.name, name=ctx.name(int(parts[1])))
            return t("sb.label.target", name=ctx.name(int(parts[1])))
        return code

    def lobby_selects(self, ctx: RenderContext) -> tuple[Select, ...]:
        """Deck select (``deck=default`` first, then ``ctx.extras["decks"]``: ``(deck_id, name)``
        pairs, at most 24) and round-cap select (``round_cap=none|10|20|30|50``)."""
        t = ctx.t
        options = [SelectOption(t("sb.lobby.deck_default")[:100], "deck=default")]
        seen = {"default"}
        for deck_id, name in list(ctx.extras.get("decks") or [])[:24]:
            value = f"deck={deck_id}"
            if str(deck_id) in seen or len(value) > 100:
                continue
            seen.add(str(deck_id))
            label = str(name).strip()[:100] or str(deck_id)
            options.append(SelectOption(label, value, t("sb.lobby.deck_custom")[:100]))
        caps = []
        for n in ROUND_CAPS:
            if n is None:
                caps.append(SelectOption(t("sb.lobby.cap_none")[:100], "round_cap=none"))
            else:
                caps.append(SelectOption(t("sb.lobby.cap_n", n=n)[:100], f"round_cap={n}"))
        return (
            Select(placeholder=t("sb.lobby.deck"), options=tuple(options)),
            Select(placeholder=t("sb.lobby.cap"), options=tuple(caps)),
        )

    def rules(self, t: Translator) -> Block:
        """Rules summary plus a field listing every Collector power."""
        powers = "\n".join(
            t("sb.rules.power_line", kind=t(f"sb.kind.{k}"), text=power_text(t, k, None)) for k in POWER_KINDS
        )
        return Block(
            title=self.title(t),
            description=t(f"game.{self.key}.rules"),
            fields=(Field(t("sb.rules.powers"), powers),),
            color=_COLOR,
        )
