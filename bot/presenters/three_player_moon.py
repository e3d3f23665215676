"""Three-Player Moon presenter: the public board, the private hand panel, action labels.

Views are the typed views of :meth:`engine.three_player_moon.ThreePlayerMoon.view`
(:class:`~engine.three_player_moon.MoonView`, :class:`~engine.three_player_moon.SeatView` with the
reader's hand, :class:`~engine.three_player_moon.BidderView` with the widow and the discard).
Tiles are drawn as dominoes ``[6|4]``. The hand is grouped by suit for the named trump (trumps first); only the
legal tiles become buttons, the rest of the hand is listed in the panel text.

In the terminal (:class:`ThreePlayerMoonTerminal`), bids and trumps are typed as their own value.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from bot.i18n import Translator
from bot.presenters.base import Presenter, RenderContext
from bot.terminal_hooks import TerminalHooks
from bot.ui import Block, Button, Field, Panel
from engine.core import Outcome
from engine.three_player_moon import TRUMP_SUIT, BidderView, MoonView, SeatView, Tile, is_trump, rank_in

_COLOR = 0x2B4C7E
_PER_ROW = 4


def tile_text(tile: Sequence[int]) -> str:
    """``[6, 4] -> "[6|4]"`` (the domino as drawn on buttons and in events)."""
    return f"[{tile[0]}|{tile[1]}]"


def _tile_md(tile: Sequence[int]) -> str:
    return f"`{tile_text(tile)}`"


def _parse(code: str) -> Tile:
    return (int(code[1]), int(code[2]))


def group_hand(hand: Sequence[Tile], trump: str | None) -> list[tuple[int, list[Tile]]]:
    """The hand grouped for display: ``[(suit, tiles)]``, the trump group (``TRUMP_SUIT``) first,
    then the other tiles by the suit they lead (their higher end), high suits first; each group
    highest tile first (RULINGS T4)."""
    groups: dict[int, list[Tile]] = {}
    for t in hand:
        suit = TRUMP_SUIT if is_trump(t, trump) else t[0]
        groups.setdefault(suit, []).append(t)
    out = []
    for suit in sorted(groups, reverse=True):

        def order(t: Tile, s: int = suit) -> tuple[int, int, int]:
            return (-rank_in(t, s, trump), -t[0], -t[1])

        out.append((suit, sorted(groups[suit], key=order)))
    return out


def sorted_hand(hand: Sequence[Tile], trump: str | None) -> list[Tile]:
    """The hand in display order (see :func:`group_hand`)."""
    return [t for _, tiles in group_hand(hand, trump) for t in tiles]


def trump_name(t: Translator, trump: str | None) -> str:
    """Display name of a trump code (``None`` = not named yet)."""
    if trump is None:
        return t("tpm.trump.unset")
    if trump == "D":
        return t("tpm.trump.doubles")
    if trump == "N":
        return t("tpm.trump.none")
    return t("tpm.trump.suit", n=trump)


def _rows(buttons: list[Button], per_row: int = _PER_ROW) -> tuple[tuple[Button, ...], ...]:
    return tuple(tuple(buttons[i : i + per_row]) for i in range(0, len(buttons), per_row))


# --- what the text board and the picture both say (bot/render/three_player_moon.py) -------------
def hand_of(view: MoonView) -> tuple[Tile, ...]:
    """The reader's hand (empty in the public view)."""
    return view.hand if isinstance(view, SeatView) else ()


def widow_of(view: MoonView) -> Tile | None:
    """The widow tile, in the bidder's view once taken (``None`` in any other view)."""
    return view.widow if isinstance(view, BidderView) else None


def bid_text(t: Translator, bid: int) -> str:
    """A bid as said: "pass" (0), "shoot the moon" (21) or the number."""
    if bid == 0:
        return t("tpm.bid.pass")
    if bid == 21:
        return t("tpm.bid.moon")
    return str(bid)


def trump_count(hand: Sequence[Tile], trump: str) -> int:
    """How many tiles of ``hand`` are trumps if ``trump`` is named (T4)."""
    return sum(1 for tile in hand if is_trump(tile, trump))


def status_text(view: MoonView, ctx: RenderContext) -> str:
    """The table's status line: who bids, discards, names trumps or plays now, or the winners."""
    t = ctx.t
    phase = view.phase
    if phase == "over":
        names = ", ".join(ctx.name(s) for s in view.winners)
        return t("tpm.status.over", names=names, n=len(view.winners))
    name = ctx.name(view.turn)
    if phase == "bid":
        return t("tpm.status.bid", name=name)
    if phase == "discard":
        return t("tpm.status.discard", name=name)
    if phase == "trump":
        return t("tpm.status.trump", name=name)
    return t("tpm.status.play", name=name)


def panel_prompt(view: MoonView, legal: Sequence[str], ctx: RenderContext, play: str = "tpm.panel.play") -> str:
    """What the seat is asked now: wait (or the game is over), bid (over the current bid),
    discard (naming the widow taken), name trumps, lead, or play on the trick (message ``play``:
    the picture's says the legal tiles are framed)."""
    t = ctx.t
    phase = view.phase
    if not legal:
        return t("tpm.panel.over") if phase == "over" else t("tpm.panel.wait", name=ctx.name(view.turn))
    if phase == "bid":
        return t("tpm.panel.bid", bid=view.bid) if view.bid else t("tpm.panel.bid_first")
    if phase == "discard":
        widow = widow_of(view)
        return t("tpm.panel.discard", tile=tile_text(widow) if widow else "?")
    if phase == "trump":
        return t("tpm.panel.trump")
    return t("tpm.panel.lead") if not view.trick else t(play)


class ThreePlayerMoonPresenter(Presenter[MoonView]):
    """Presenter of ``three-player-moon``: reads :class:`~engine.three_player_moon.MoonView`
    (and its seat / bidder subclasses)."""

    def tie_breaks(self, view: MoonView, outcome: Outcome, ctx: RenderContext) -> list[str]:
        """A made moon wins whatever the scores (T6): said when its shooter does not lead alone
        on points (otherwise the points say it)."""
        shooter = view.moon_winner
        if shooter is None or not 0 <= shooter < len(outcome.scores):
            return []
        if all(outcome.scores[shooter] > x for s, x in enumerate(outcome.scores) if s != shooter):
            return []
        return [ctx.t("tpm.tie.moon", name=ctx.name(shooter))]

    # --- shared pieces -------------------------------------------------------------------------
    def _trick_lines(self, trick: Sequence[tuple[int, Tile]], ctx: RenderContext) -> str:
        return "\n".join(f"{ctx.name(s)} {_tile_md(tile)}" for s, tile in trick)

    def _bid_field(self, view: MoonView, ctx: RenderContext) -> Field:
        """The bid block, the bid said once: while bidding, "Bids" lists every bid made so far in
        order, one a line, the high one in bold (``tpm.bid_line``); afterwards "Bid" is the
        bidder's bid alone (or "No bid yet")."""
        t = ctx.t
        if view.phase == "bid" and view.bids:
            lines = [t("tpm.bid_line" if b and s == view.bidder and b == view.bid else "tpm.bid_entry",
                       name=ctx.name(s), bid=bid_text(t, b)) for s, b in view.bids]
            return Field(t("tpm.field.bids"), "\n".join(lines), True)
        if view.bidder is not None and view.bid:
            value = t("tpm.bid_line", name=ctx.name(view.bidder), bid=bid_text(t, view.bid))
        else:
            value = t("tpm.no_bid")
        return Field(t("tpm.field.bid"), value, True)

    # --- board ---------------------------------------------------------------------------------
    def board(self, view: MoonView, ctx: RenderContext) -> Block:
        """Public board: status, bid & bidder, trumps, the trick on the table, tricks and tiles
        per seat, scores to 21, the last trick and the last hand's result. No hidden tile."""
        t = ctx.t
        head = self.headline(view, ctx)
        fields = [
            self._bid_field(view, ctx),
            Field(t("tpm.field.trump"), trump_name(t, view.trump), True),
        ]
        if view.phase == "play" or view.trick:
            fields.append(Field(t("tpm.field.table"), self._trick_lines(view.trick, ctx) or t("tpm.nothing")))
        bidder = view.bidder if view.phase != "bid" else None
        seat_lines = []
        for s in range(len(view.scores)):
            mark = " 🎯" if s == bidder else ""
            seat_lines.append(
                t("tpm.seat_line", name=ctx.name(s), tricks=view.tricks_won[s], tiles=view.hand_sizes[s]) + mark
            )
        fields.append(Field(t("tpm.field.tricks"), "\n".join(seat_lines)))
        scores = "\n".join(t("tpm.score_line", name=ctx.name(s), score=x) for s, x in enumerate(view.scores))
        fields.append(Field(t("tpm.field.scores", target=view.target), scores, True))
        if view.last_trick:
            value = self._trick_lines(view.last_trick, ctx) + "\n" + t(
                "tpm.last_trick_winner", name=ctx.name(view.last_winner)
            )
            fields.append(Field(t("tpm.field.last_trick"), value, True))
        last = view.last_hand
        if last:
            key = "tpm.last_hand.made" if last.made else "tpm.last_hand.set"
            pts = " · ".join(f"{ctx.name(s)} {p:+d}" for s, p in enumerate(last.points))
            trump = trump_name(t, last.trump)  # inside a sentence: "(doubles)", "(les 1)"
            value = t(key, name=ctx.name(last.bidder), bid=last.bid, tricks=last.tricks[last.bidder],
                      trump=trump[:1].lower() + trump[1:]) + "\n" + t("tpm.last_hand.points", points=pts)
            fields.append(Field(t("tpm.field.last_hand", n=last.hand_no), value))
        return replace(head, fields=tuple(fields))

    def headline(self, view: MoonView, ctx: RenderContext) -> Block:
        """The board's title (hand number) and status line, no fields."""
        t = ctx.t
        title = f"{self.title(t)} · {t('tpm.board.hand', n=view.hand_no)}"
        return Block(title=title, description=status_text(view, ctx), color=_COLOR)

    # --- panel ---------------------------------------------------------------------------------
    def _hand_text(self, view: MoonView, legal_tiles: set[Tile], ctx: RenderContext) -> str:
        t = ctx.t
        lines = []
        for suit, tiles in group_hand(hand_of(view), view.trump):
            label = t("tpm.panel.trumps") if suit == TRUMP_SUIT else t("tpm.trump.suit", n=suit)
            shown = " ".join(f"**{tile_text(x)}**" if x in legal_tiles else _tile_md(x) for x in tiles)
            lines.append(t("tpm.panel.group", label=label, tiles=shown))
        return "\n".join(lines) or t("tpm.nothing")

    def panel(self, view: MoonView, legal: tuple[str, ...], ctx: RenderContext) -> Panel:
        """Private panel: the hand grouped by suit (trumps first), the seat's prompt and its
        buttons: bids (pass, 4–7 when legal, 21), the 8 tiles to discard, the 9 trump choices,
        or the legal tiles to play."""
        t = ctx.t
        legal = tuple(legal)
        phase = view.phase
        trump = view.trump
        hand = hand_of(view)
        widow = widow_of(view)
        discard = view.discard if isinstance(view, BidderView) else None
        legal_tiles = {_parse(c) for c in legal if c[:1] == "p" and len(c) == 3}
        buttons: list[Button] = []
        per_row = _PER_ROW
        prompt = panel_prompt(view, legal, ctx)
        if phase == "bid":  # every loop below makes no button when nothing is legal
            per_row = 5
            for code in legal:
                n = int(code[1:])
                if n == 0:
                    buttons.append(Button(t("tpm.btn.pass"), code, "secondary"))
                elif n == 21:
                    buttons.append(Button(t("tpm.btn.moon"), code, "danger", emoji="🌕"))
                else:
                    buttons.append(Button(t("tpm.btn.bid", n=n), code, "primary"))
        elif phase == "discard":
            for tile in sorted_hand(hand, None):
                code = f"d{tile[0]}{tile[1]}"
                if code in legal:
                    label = t("tpm.btn.widow", tile=tile_text(tile)) if tile == widow else tile_text(tile)
                    buttons.append(Button(label, code, "secondary"))
        elif phase == "trump":
            per_row = 5
            for code in legal:
                x = code[1:]
                count = trump_count(hand, x)
                label = trump_name(t, x) if x == "N" else t("tpm.btn.trump", trump=trump_name(t, x), count=count)
                buttons.append(Button(label, code, "primary" if x not in ("N",) else "secondary"))
        else:
            for tile in sorted_hand(hand, trump):
                code = f"p{tile[0]}{tile[1]}"
                if code in legal:
                    buttons.append(Button(tile_text(tile), code, "success" if is_trump(tile, trump) else "primary"))
        # Any legal code not drawn above (defensive): a plain labelled button.
        drawn = {b.code for b in buttons}
        for code in legal:
            if code not in drawn:
                buttons.append(Button(self.action_label(code, view, ctx), code))
        fields = [Field(t("tpm.field.trump"), trump_name(t, trump), True)]
        fields.append(self._bid_field(view, ctx))
        if phase == "play":
            fields.append(Field(t("tpm.field.table"), self._trick_lines(view.trick, ctx) or t("tpm.nothing")))
        if widow and phase != "discard":
            info = t("tpm.panel.widow_info", tile=tile_text(widow))
            if discard:
                info += "\n" + t("tpm.panel.discard_info", tile=tile_text(discard))
            fields.append(Field(t("tpm.field.secret"), info))
        description = self._hand_text(view, legal_tiles, ctx) + "\n\n" + prompt
        card = Block(title=t("tpm.panel.title"), description=description, fields=tuple(fields), color=_COLOR)
        return Panel(card=card, rows=_rows(buttons, per_row))

    # --- labels & rules ------------------------------------------------------------------------
    def action_label(self, code: str, view: MoonView, ctx: RenderContext) -> str:
        """``b0`` Pass, ``b5`` Bid 5, ``b21`` Shoot the moon, ``d64`` Discard [6|4],
        ``t6`` Trumps: 6s, ``p64`` Play [6|4]."""
        t = ctx.t
        try:
            kind, rest = code[0], code[1:]
            if kind == "b":
                n = int(rest)
                if n == 0:
                    return t("tpm.btn.pass")
                return t("tpm.btn.moon") if n == 21 else t("tpm.btn.bid", n=n)
            if kind == "d":
                return t("tpm.act.discard", tile=tile_text(_parse(code)))
            if kind == "t":
                return t("tpm.act.trump", trump=trump_name(t, rest))
            if kind == "p":
                return t("tpm.act.play", tile=tile_text(_parse(code)))
        except (ValueError, IndexError):
            pass
        return code

    def rules(self, t: Translator) -> Block:
        """The compact rules summary (``game.three-player-moon.rules``)."""
        return Block(title=self.title(t), description=t(f"game.{self.key}.rules"), color=_COLOR)


class ThreePlayerMoonTerminal(TerminalHooks):
    """Three-Player Moon in the terminal: a bid menu and a trump menu are keyed by their value,
    so a typed number always means what it says."""

    def value_key(self, code: str) -> str | None:
        """Bids ``b6`` → ``6`` (pass ``b0`` → ``0``) and trumps ``t6`` → ``6`` (doubles ``d``,
        no trump ``n``); ``None`` for any other code."""
        if re.fullmatch(r"b[0-9]+", code):
            return code[1:]
        if re.fullmatch(r"t[0-6DN]", code):
            return code[1:].lower()
        return None
