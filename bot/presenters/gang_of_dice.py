"""Gang of Dice presenter: the public board, the private screen panel, action labels, rules.

Views are the typed views of :mod:`engine.gang_of_dice.view` (``GangOfDice.view``): the public
:class:`GangOfDiceView` for the board, a :class:`GangOfDiceSeatView` for a seat's panel. Dice are drawn as emoji
(:data:`FACE_EMOJI`: 🕴️ is the boss, worth 0); long rolls are grouped (``2️⃣×4``) so that a
field never exceeds Discord's limits whatever the number of dice.

Panel layout (acting seat, at most 5 rows of at most 5 buttons):

- commit phase: row 1 = "Commit…" (a number prompt 1..stock, template ``c{n}``) and "All N";
  row 2 = quick commits 1, 2, 3, 5, 8 (those below the stock);
- roll phase: the faces of the roll in up to two groups of three columns; for each group a row
  of ``+face marked/count`` buttons (``m{f}``) and below it a row of ``−face`` buttons
  (``u{f}``); the last row holds "Reroll N dice" (``r``) and "Stop with score S" (``s``).
  Buttons that are not legal now are shown disabled.

Every other seat (or the acting seat once the game is over) gets an information panel: its own
stock, the card, the table; no buttons.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace

from bot.i18n import Translator
from bot.presenters.base import Presenter, RenderContext
from bot.ui import Block, Button, Field, NumberPrompt, Panel
from engine.core import Event
from engine.gang_of_dice import CARDS, GangOfDiceSeatView, GangOfDiceView, SeatInfo, card_triggers

#: Emoji per face; face 0 is the boss.
FACE_EMOJI: dict[int, str] = {0: "🕴️", 1: "1️⃣", 2: "2️⃣", 3: "3️⃣", 4: "4️⃣", 5: "5️⃣"}
#: Colour squares of the warning cards.
COLOUR_EMOJI = {"yellow": "🟨", "black": "⬛"}
_EMBED_COLOUR = {"yellow": 0xF1C40F, "black": 0x2C2F33}
_STATUS_EMOJI = {"waiting": "⏳", "rolling": "🎲", "stopped": "✅", "triggered": "💥", "out": "❌"}
_QUICK = (1, 2, 3, 5, 8)
#: Rolls up to this many dice are drawn die by die; longer ones are grouped by face.
_SPELL_OUT = 12


def faces_text(faces: Iterable[int]) -> str:
    """Emoji text of a roll: ``"🕴️ 2️⃣ 5️⃣"``; grouped (``"🕴️×3 2️⃣×7"``) beyond 12 dice; ``"—"`` if empty."""
    fs = sorted(int(f) for f in faces)
    if not fs:
        return "—"
    if len(fs) <= _SPELL_OUT:
        return " ".join(FACE_EMOJI[f] for f in fs)
    return " ".join(f"{FACE_EMOJI[f]}×{fs.count(f)}" for f in sorted(set(fs)))


def card_name(t: Translator, card_id: str) -> str:
    """Display name of a warning card, with its colour square."""
    colour = CARDS[card_id].colour if card_id in CARDS else "black"
    return f"{COLOUR_EMOJI[colour]} {t(f'god.card.{card_id}.name')}"


# --- what the text board and the picture both say (bot/render/gang_of_dice.py) ----------------------
def status_text(view: GangOfDiceView, ctx: RenderContext) -> str:
    """The table's status line: who commits or rolls now (with the roll number), or the
    winners once the game is over."""
    t = ctx.t
    cur = view.current
    if view.phase == "over" or cur is None:
        winners = [s for s, r in enumerate(view.ranks or ()) if r == 1]
        return t("god.status.over", names=", ".join(ctx.name(s) for s in winners), n=len(winners))
    if view.phase == "commit":
        return t("god.status.commit", name=ctx.name(cur))
    return t("god.status.roll", name=ctx.name(cur), roll=view.seats[cur].rolls)


def seat_status(seat: SeatInfo, t: Translator) -> str:
    """A seat's status this round: out, waiting (no roll yet), rolling (roll and score),
    stopped (score) or triggered the warning card."""
    status = seat.status
    if status == "out":
        return t("god.status.out")
    if status == "waiting" or not seat.rolls:
        return t("god.status.waiting")
    if status == "rolling":
        return t("god.status.rolling", roll=seat.rolls, score=seat.score)
    if status == "stopped":
        return t("god.status.stopped", score=seat.score)
    return t("god.status.triggered")


def seats_in_order(view: GangOfDiceView) -> list[SeatInfo]:
    """Every seat's line, the round's playing order first, then the seats not in it (out)."""
    by_seat = {s.seat: s for s in view.seats}
    order = list(view.order)
    return [by_seat[s] for s in order + [s.seat for s in view.seats if s.seat not in order]]


def final_order(view: GangOfDiceView) -> list[int]:
    """The seats in standings order (rank, then seat) once the game is over; ``[]`` before."""
    stocks, ranks = view.stocks or (), view.ranks or ()
    return sorted(range(len(stocks)), key=lambda s: (ranks[s], s))


def own_stock(view: GangOfDiceView) -> int:
    """The reader's stock (0 in the public view)."""
    return view.me.stock if isinstance(view, GangOfDiceSeatView) else 0


def quick_commits(stock: int) -> list[int]:
    """The quick commit amounts offered below ``stock`` (1, 2, 3, 5, 8); "all" is offered apart."""
    return [n for n in _QUICK if n < stock]


def face_counts(faces: Iterable[int]) -> list[tuple[int, int]]:
    """``(face, count)`` of each face present in a roll, lowest face first."""
    fs = [int(f) for f in faces]
    return [(f, fs.count(f)) for f in sorted(set(fs))]


def reroll_text(marks: Sequence[int], t: Translator) -> str:
    """The reroll button: "Reroll the N marked dice", or the hint to mark some first."""
    n = sum(marks)
    return t("god.btn.reroll", n=n) if n else t("god.btn.reroll_none")


class GangOfDicePresenter(Presenter[GangOfDiceView]):
    """Presenter of ``gang-of-dice``."""

    # --- shared pieces ---------------------------------------------------------------------------
    def _card_field(self, view: GangOfDiceView, t: Translator) -> Field:
        card = view.card
        value = "\n".join([
            f"**{card_name(t, card.id)}**",
            t(f"god.card.{card.id}.desc"),
            t(f"god.colour.{card.colour}"),
        ])
        return Field(t("god.field.card"), value)

    def _table_text(self, view: GangOfDiceView, ctx: RenderContext) -> str:
        t = ctx.t
        committed = sum(s.committed for s in view.seats)
        lines = [t("god.table.dice", dice=view.table)]
        if view.phase != "over":
            lines.append(t("god.table.detail", committed=committed, carried=view.carried, bonus=view.bonus))
        if view.removed:
            lines.append(t("god.table.removed", dice=view.removed))
        best = view.best
        if best is not None and view.phase != "over":
            lines.append(t("god.table.best", name=ctx.name(best.seat), score=best.score, dice=best.committed))
        return "\n".join(lines)

    def _seat_line(self, seat: SeatInfo, view: GangOfDiceView, ctx: RenderContext) -> str:
        t = ctx.t
        status = seat.status
        name = ctx.name(seat.seat)
        if status == "out":
            return f"{_STATUS_EMOJI['out']} ~~{name}~~ — {seat_status(seat, t)}"
        cur = "▶️ " if view.current == seat.seat else ""
        head = f"{cur}{_STATUS_EMOJI[status]} **{name}**"
        if status == "waiting" or not seat.rolls:
            return f"{head} — {seat_status(seat, t)}"
        dice = t("god.seat.dice", n=seat.committed)
        return f"{head} — " + t("god.seat.line", dice=dice, faces=faces_text(seat.faces), status=seat_status(seat, t))

    def _players_text(self, view: GangOfDiceView, ctx: RenderContext) -> str:
        return "\n".join(self._seat_line(seat, view, ctx) for seat in seats_in_order(view))

    def _final_text(self, view: GangOfDiceView, ctx: RenderContext) -> str:
        stocks, ranks = view.stocks or (), view.ranks or ()
        medals = {1: "🥇", 2: "🥈", 3: "🥉"}
        return "\n".join(
            ctx.t("god.final.line", rank=medals.get(ranks[s], f"{ranks[s]}."), name=ctx.name(s), dice=stocks[s])
            for s in final_order(view)
        )

    # --- board -----------------------------------------------------------------------------------
    def board(self, view: GangOfDiceView, ctx: RenderContext) -> Block:
        """Public board: round n/12, the warning card (colour, plain description), the table
        (dice, carried over, bonus, best score so far), each seat's committed dice, faces and
        status in playing order; final stocks only once the game is over."""
        t = ctx.t
        head = self.headline(view, ctx)
        fields = [self._card_field(view, t), Field(t("god.field.table"), self._table_text(view, ctx))]
        fields.append(Field(t("god.field.players"), self._players_text(view, ctx)))
        if view.phase == "over" and view.stocks is not None:
            fields.append(Field(t("god.field.final"), self._final_text(view, ctx)))
        if view.past_cards:
            past = ", ".join(t(f"god.card.{c}.name") for c in view.past_cards)
            fields.append(Field(t("god.field.past"), past))
        return replace(head, fields=tuple(fields))

    def headline(self, view: GangOfDiceView, ctx: RenderContext) -> Block:
        """The board's title (round n/12), status line and colour (the warning card's), no fields."""
        t = ctx.t
        title = f"{self.title(t)} · {t('god.board.round', round=view.round, rounds=view.rounds)}"
        return Block(title=title, description=status_text(view, ctx), color=_EMBED_COLOUR.get(view.card.colour, 0x5865F2))

    # --- panel -----------------------------------------------------------------------------------
    def panel(self, view: GangOfDiceView, legal: tuple[str, ...], ctx: RenderContext) -> Panel:
        """The seat's screen (``view`` is its :class:`GangOfDiceSeatView`): its stock and, when it
        acts, the commit or the reroll controls (layout in the module docstring)."""
        t = ctx.t
        legal = tuple(legal)
        stock = own_stock(view)
        lines = [t("god.panel.stock", stock=stock)]
        rows: list[tuple[Button, ...]] = []
        phase = view.phase
        seat = ctx.seat
        if not legal or seat is None:
            if phase == "over":
                lines.append(status_text(view, ctx))
            else:
                lines.append(t("god.panel.wait", name=ctx.name(view.current)))
        elif phase == "commit":
            lines.append(t("god.panel.commit", round=view.round))
            rows = self._commit_rows(stock, legal, t)
        else:
            mine = view.seats[seat]
            faces = mine.faces
            lines.append(t("god.panel.roll", roll=mine.rolls, faces=faces_text(faces), score=mine.score))
            lines.append(t("god.panel.rolls_left", n=view.rolls_left))
            marks = view.marks
            if sum(marks):
                marked = [f for f in range(6) for _ in range(marks[f])]
                lines.append(t("god.panel.marked", faces=faces_text(marked), n=len(marked)))
            else:
                lines.append(t("god.panel.how"))
            bust = card_triggers(view.card.id, faces)
            if bust:
                lines.append(t("god.panel.bust"))
            rows = self._roll_rows(faces, marks, mine.score, bust, legal, t)
        fields = [self._card_field(view, t), Field(t("god.field.table"), self._table_text(view, ctx))]
        card = Block(title=t("god.panel.title"), description="\n".join(lines), fields=tuple(fields),
                    color=_EMBED_COLOUR.get(view.card.colour, 0x5865F2))
        return Panel(card=card, rows=tuple(rows))

    def _commit_rows(self, stock: int, legal: Sequence[str], t: Translator) -> list[tuple[Button, ...]]:
        prompt = NumberPrompt(title=t("god.prompt.title"), label=t("god.prompt.label", max=stock),
                              minimum=1, maximum=stock, template="c{n}")
        first = [Button(t("god.btn.commit"), style="primary", emoji="🎲", prompt=prompt)]
        if f"c{stock}" in legal:
            first.append(Button(t("god.btn.all", n=stock), f"c{stock}", "danger"))
        quick = [Button(t("god.btn.quick", n=n), f"c{n}", "secondary") for n in quick_commits(stock)
                 if f"c{n}" in legal]
        return [tuple(first)] + ([tuple(quick)] if quick else [])

    def _roll_rows(self, faces: Sequence[int], marks: Sequence[int], score: int, bust: bool,
                   legal: Sequence[str], t: Translator) -> list[tuple[Button, ...]]:
        present = face_counts(faces)
        rows: list[tuple[Button, ...]] = []
        for group in (present[:3], present[3:]):
            if not group:
                continue
            plus, minus = [], []
            for f, count in group:
                plus.append(Button(t("god.btn.mark", face=FACE_EMOJI[f], marked=marks[f], count=count),
                                   f"m{f}", "secondary", disabled=f"m{f}" not in legal))
                minus.append(Button(t("god.btn.unmark", face=FACE_EMOJI[f]), f"u{f}", "secondary",
                                    disabled=f"u{f}" not in legal))
            rows += [tuple(plus), tuple(minus)]
        reroll = Button(reroll_text(marks, t), "r", "primary", emoji="🎲", disabled="r" not in legal)
        stop = Button(t("god.btn.stop_bust") if bust else t("god.btn.stop", score=score), "s",
                      "danger" if bust else "success", disabled="s" not in legal)
        rows.append((reroll, stop))
        return rows

    # --- texts -----------------------------------------------------------------------------------
    def event(self, event: Event, ctx: RenderContext) -> str:
        """A log line; faces become emoji, card ids names, winner lists names."""
        params = dict(event.params)
        t = ctx.t
        if "faces" in params:
            params["faces"] = faces_text(params["faces"])
        if "card" in params:
            params["card"] = card_name(t, params["card"])
        if "winners" in params:
            params["n"] = len(params["winners"])
            params["winners"] = ", ".join(ctx.name(s) for s in params["winners"])
        if "stocks" in params:
            params["stocks"] = ", ".join(f"{ctx.name(s)} {n}" for s, n in enumerate(params["stocks"]))
        for key in ("seat", "winner"):
            if isinstance(params.get(key), int):
                params[key] = ctx.name(params[key])
        return t(event.key, **params)

    def action_label(self, code: str, view: GangOfDiceView, ctx: RenderContext) -> str:
        """``c5`` → "Commit 5 dice", ``m3`` → "Mark a 3️⃣", ``u3``, ``r``, ``s``."""
        t = ctx.t
        if code[:1] == "c" and code[1:].isdigit():
            return t("god.act.commit", n=int(code[1:]))
        if code[:1] in ("m", "u") and code[1:] in {str(f) for f in FACE_EMOJI}:
            key = "god.act.mark" if code[0] == "m" else "god.act.unmark"
            return t(key, face=FACE_EMOJI[int(code[1:])])
        if code == "r":
            return t("god.act.reroll", n=sum(view.marks))
        if code == "s":
            cur = view.current
            score = view.seats[cur].score if cur is not None else 0
            return t("god.act.stop", score=score)
        return code

    def rules(self, t: Translator) -> Block:
        """The rules summary plus the 16 warning cards by colour."""
        fields = []
        for colour in ("yellow", "black"):
            lines = [f"**{t(f'god.card.{c}.name')}** — {t(f'god.card.{c}.desc')}"
                     for c, card in CARDS.items() if card.colour == colour]
            fields.append(Field(f"{COLOUR_EMOJI[colour]} {t(f'god.rules.{colour}')}", "\n".join(lines)))
        return Block(title=self.title(t), description=t(f"game.{self.key}.rules"), fields=tuple(fields),
                    color=0xC0392B)
