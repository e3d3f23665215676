"""Moonshine presenter: public board, private panels (rerolls, placements, secret actions and
follow-ups), log lines, lobby option and rules.

Views are the typed :mod:`engine.moonshine.view` dataclasses (``Moonshine.view``); card data (names in both
languages, costs, bonuses) from :mod:`engine.moonshine.cards`. Icons are emoji:
🍗 Food, 🎵 Music, 🥃 Drink, ✨ resource of your choice, 🍗/🎵 two-way choices, 🌙 Moon token,
🔁 reroll, 👁️ card-draw, 🃏 Client-card, 🔵/🟠 blue/orange die, 🏷️ discount Moon, ❓ majority
colour, 👤 silhouette, ⚡ instant effects. Colours: 🟩 green, 🌸 pink, 🟪 purple, 🟨 yellow,
🟥 red. A Moon-token slot is drawn ``[●○ 🔵]`` (covered/empty spaces, then its bonus).

Board: one field per seat, a few lines each: its Speakeasy with its tokens and its active
icons; one line per Client in front with its tokens; its validated Clients summarised by colour
and bonus, with its pending follow-ups by kind only. During the action phase nobody's choice is shown: the shared board renderer lists who
has chosen (the engine never holds a partial choice).

Panels (at most 5 rows; selects alone in their row, 25 options at most):

- roll (active player): a multi-select of the dice to reroll (code ``rr.<dice>``) and a Stop
  button;
- action: a select of the Clients it can validate (``val.<id>``) and buttons Take a Moon token
  (``moon``) and Draw (``draw``);
- place / lose: a select of slots (``pl.<slot>`` / ``lose.<slot>``);
- discard: a select of the ways to discard (``dis.…``; a multi-select of single tokens with
  ``min = max = n`` if there were more than 25 ways);
- keep / pick / replace: a select of cards (plus "Keep none" for pick);
- draft: a multi-select of the offered cards with ``min = max = n`` (prefix ``draft.``).

Comprehension: every panel's footer is the legend of a Client line (★ points, the
🌙 after a cost = Moon tokens to discard, ``[●○ …]`` upper bonus, ``→`` lower bonus), also a
field of ``/rules moonshine``; the action panel lists each Client the seat cannot validate with
what it misses (resources, Moon tokens, dice it has no access to); replacing a Client warns
that the Moon tokens on it are discarded (``docs/rules/moonshine.md``, RULINGS M4).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from bot.i18n import Translator
from bot.presenters.base import Presenter, RenderContext, level_groups, tie_line
from bot.ui import Block, Button, Field, Panel, Select, SelectOption
from engine.core import Event, Outcome
from engine.moonshine.cards import all_clients, client_of, speakeasy_of
from engine.moonshine.dice import shortfall
from engine.moonshine.icons import client_info
from engine.moonshine.view import MoonshineView, Offer, PlayerView, PrivateView, SeatBoard

RES_EMOJI = {
    "food": "🍗", "music": "🎵", "drink": "🥃", "any": "✨",
    "food_or_music": "🍗/🎵", "food_or_drink": "🍗/🥃", "music_or_drink": "🎵/🥃", "moon": "🌙",
}
#: Emoji of a resource mask 1..7 (the order of ``private.sources``).
MASK_EMOJI = ("🍗", "🎵", "🍗/🎵", "🥃", "🍗/🥃", "🎵/🥃", "✨")
ICON_EMOJI = {
    "reroll": "🔁", "draw": "👁️", "client": "🃏", "blue_die": "🔵", "orange_die": "🟠",
    "discount": "🏷️", "majority": "❓",
}
COLOUR_EMOJI = {"green": "🟩", "pink": "🌸", "purple": "🟪", "yellow": "🟨", "red": "🟥"}
INSTANT_EMOJI = {"plus2_moon": "⚡🌙+2", "plus1_minus1_moon": "⚡🌙+1/−1"}
DIE_EMOJI = ("⚪", "⚪", "⚪", "🔵", "🟠")
DIE_CODES = ("0", "1", "2", "b", "o")
_COLOR = 0x2C3E70


def collapse_repeats(parts: Sequence[str]) -> list[str]:
    """``parts`` with each run of equal neighbours shown once with its count:
    ``["a", "a", "b"]`` -> ``["a ×2", "b"]``."""
    out: list[str] = []
    counts: list[int] = []
    for part in parts:
        if out and out[-1] == part:
            counts[-1] += 1
        else:
            out.append(part)
            counts.append(1)
    return [p if n == 1 else f"{p} ×{n}" for p, n in zip(out, counts, strict=True)]


def card_name(cid: int, t: Translator) -> str:
    """A Client's name in the reader's language."""
    card = client_of(cid)
    return card.name.fr if t.lang == "fr" else card.name.en


def speakeasy_name(sid: int, t: Translator) -> str:
    """A Speakeasy's name in the reader's language."""
    card = speakeasy_of(sid)
    return card.name.fr if t.lang == "fr" else card.name.en


def icons_text(icons: Sequence[Any]) -> str:
    """Emoji of a list of card icons (``"🍗 🔁"``)."""
    out = []
    for i in icons:
        if i.kind == "resource":
            out.append(RES_EMOJI[i.res])
        elif i.kind == "silhouette":
            out.append(f"👤{COLOUR_EMOJI[i.colour]}")
        else:
            out.append(ICON_EMOJI[i.kind])
    return " ".join(out)


def cost_text(cid: int) -> str:
    """A Client's cost: ``"🍗🍗🎵 🌙2"``."""
    c = client_of(cid).cost
    res = "🍗" * c.food + "🎵" * c.music + "🥃" * c.drink
    return (res + (f" 🌙{c.moon}" if c.moon else "")).strip()


def slot_text(spaces: int, tokens: int, bonus: Sequence[Any]) -> str:
    """A Moon-token slot: ``"[●○ 🔵]"``."""
    return f"[{'●' * min(tokens, spaces)}{'○' * max(0, spaces - tokens)} {icons_text(bonus)}]"


def upper_text(cid: int, tokens: int = 0) -> str:
    """A Client's upper part: its slot with tokens, or its instant effect."""
    up = client_of(cid).upper
    if up.kind == "instant":
        return INSTANT_EMOJI[up.effect]
    return slot_text(up.spaces, tokens, up.bonus)


def card_line(cid: int, t: Translator, tokens: int = 0) -> str:
    """One Client on one line: colour, name, points, cost, upper part, lower bonus."""
    card = client_of(cid)
    lower = icons_text(card.lower)
    return (f"{COLOUR_EMOJI[card.colour]} **{card_name(cid, t)}** {card.points}★ · {cost_text(cid)} · "
            f"{upper_text(cid, tokens)}" + (f" → {lower}" if lower else ""))


def card_option(cid: int, t: Translator, value: str, tokens: int = 0) -> SelectOption:
    """A select option for a Client: name and points; cost and bonuses as description, with the
    ``tokens`` Moon tokens it holds drawn in its spaces (a Client already in front of the seat)."""
    card = client_of(cid)
    label = f"{card_name(cid, t)} ({card.points}★)"
    lower = icons_text(card.lower)
    desc = f"{cost_text(cid)} · {upper_text(cid, tokens)}" + (f" → {lower}" if lower else "")
    return SelectOption(label[:100], value, desc[:100])


def missing(cid: int, sources: Sequence[int], tokens: int, discount: int) -> tuple[tuple[int, int, int], int]:
    """What Client ``cid`` misses to be validated (RULINGS M4): ``((food, music, drink), moon)``.

    ``sources`` are the seat's 7 resource sources by mask 1..7 (``PrivateView.sources``),
    ``tokens`` its Moon tokens, ``discount`` its discount icons. The resources are one smallest
    set whose addition makes the exact matching succeed (the matching's deficiency is lowered one
    unit at a time); ``moon`` is ``max(0, moon cost - discount - tokens)``."""
    ci = client_info(cid)
    src = [0, *sources[:7]]
    cost = list(ci.cost)
    short = shortfall(cost, src)
    miss = [0, 0, 0]
    while short > 0:
        for r in range(3):
            if cost[r]:
                cost[r] -= 1
                now = shortfall(cost, src)
                if now < short:
                    miss[r] += 1
                    short = now
                    break
                cost[r] += 1
        else:  # pragma: no cover - the deficiency always drops for some resource
            break
    return (miss[0], miss[1], miss[2]), max(0, ci.moon - discount - tokens)


def _rerolled_text(rerolled: Sequence[int], after: Sequence[str]) -> str:
    """The rerolled dice (indexes into ``after``), each as its die and its new face ("⚪🥃
    🔵🌙"), a die rerolled to the face it showed included."""
    return " ".join(f"{DIE_EMOJI[i]}{RES_EMOJI.get(after[i], after[i])}" for i in rerolled if after[i])


def _changed_text(before: Sequence[str], after: Sequence[str], t: Translator) -> str:
    """For a stored reroll event without ``rerolled`` (written before it was recorded): the dice
    a reroll changed, each as its die and its new face ("⚪🥃 🔵🌙"), or the faces kept when none
    changed (a die rerolled to the face it showed looks unchanged)."""
    changed = [f"{DIE_EMOJI[i]}{RES_EMOJI.get(b, b)}" for i, (a, b) in enumerate(zip(before, after, strict=False))
               if a != b and b]
    return " ".join(changed) if changed else t("ms.ev.reroll_same", dice=_dice_text(after))


def _dice_text(dice: Sequence[str]) -> str:
    parts = [f"{DIE_EMOJI[i]}{RES_EMOJI[f]}" for i, f in enumerate(dice) if f]
    return " ".join(parts) if parts else "—"


# --- what the text board and the picture both say (bot/render/moonshine.py) ---------------------
#: The actions that are one button (a chip in the picture) each, in the order they are shown.
SIMPLE_ACTIONS = ("moon", "draw", "stop", "pick.none")


def simple_action_text(code: str, t: Translator) -> str:
    """The label of one of :data:`SIMPLE_ACTIONS` ("Take a Moon token", "Keep none"…)."""
    return t(f"ms.act.{code.replace('.', '_')}")


def status_text(view: MoonshineView, ctx: RenderContext) -> str:
    """The table's status line: the phase (who rolls, with the rerolls left), or the winners."""
    t = ctx.t
    ph = view.phase
    if ph == "over":
        winners = [s for s, r in enumerate(view.ranks or []) if r == 1]
        return t("ms.status.over", names=", ".join(ctx.name(s) for s in winners), n=len(winners))
    if ph == "roll":
        return t("ms.status.roll", name=ctx.name(view.active), n=view.rerolls)
    return t(f"ms.status.{ph}")


def round_text(view: MoonshineView, t: Translator) -> str:
    """"Round N", or "Setting up" before the first round."""
    return t("ms.board.round", round=view.round) if view.round >= 1 else t("ms.board.setup")


def validated_by_colour(validated: Sequence[int]) -> tuple[dict[str, int], list[Any]]:
    """Validated Clients counted by colour (every colour, in :data:`COLOUR_EMOJI` order, 0 when
    none) and their lower bonus icons, in order."""
    cards = all_clients()
    counts = {c: 0 for c in COLOUR_EMOJI}
    lower: list[Any] = []
    for cid in validated:
        counts[cards[cid].colour] += 1
        lower += list(cards[cid].lower)
    return counts, lower


def pending_parts(seat: SeatBoard, t: Translator) -> list[tuple[str, int]]:
    """What a seat still has to do, one text per follow-up then the Moon tokens to lose, each
    with the number of Moon tokens its 🌙 stands for ("placing a 🌙": 1, "discarding 2 🌙": 2)."""
    parts = [(t(f"ms.pending.{p.kind}", n=p.n), p.n if p.kind == "discard" else 1) for p in seat.pending]
    if seat.lose:
        parts.append((t("ms.pending.lose", n=seat.lose), seat.lose))
    return parts


#: The sentence of each follow-up task, by the head of the seat's legal codes.
_TASKS = {"keep": "ms.panel.keep", "pick": "ms.panel.pick", "rep": "ms.panel.replace", "draft": "ms.panel.draft",
          "pl": "ms.panel.place", "lose": "ms.panel.lose", "dis": "ms.panel.discard"}


def task_text(head: str, front: Offer | None, t: Translator) -> str | None:
    """The sentence asking a seat for its follow-up task (keep one of these cards, choose the
    2 Clients you keep, place your Moon token…), by the head of its legal codes (``keep``,
    ``pick``, ``rep``, ``draft``, ``pl``, ``lose``, ``dis``) and the front of its queue; ``None``
    for any other head (the roll and the actions)."""
    key = _TASKS.get(head)
    if key is None:
        return None
    picked = front.cards[0] if front and front.cards else None
    return t(key, n=front.n if front and front.n else 1, card=card_name(picked, t) if picked is not None else "?")


class MoonshinePresenter(Presenter[MoonshineView]):
    """Presenter of ``moonshine``."""

    # --- shared pieces ---------------------------------------------------------------------------
    def _speakeasy_text(self, seat: SeatBoard, variant: str, t: Translator) -> str:
        sp = speakeasy_of(seat.speakeasy)
        side = sp.side(variant)
        slots = " ".join(slot_text(sl.spaces, tok, sl.bonus) for sl, tok in zip(side.slots, seat.se_tokens, strict=False))
        sil = " ".join(f"👤{COLOUR_EMOJI[c]}" for c in side.silhouettes)
        return f"🏠 {speakeasy_name(seat.speakeasy, t)} {slots}" + (f" {sil}" if sil else "")

    def _icons_line(self, seat: SeatBoard, t: Translator) -> str:
        ic = seat.icons
        parts = [f"🔁{ic.reroll}", f"👁️{ic.draw}", f"🃏{ic.client}"]
        if ic.blue:
            parts.append("🔵")
        if ic.orange:
            parts.append("🟠")
        if ic.discount:
            parts.append(f"🏷️{ic.discount}")
        return t("ms.seat.icons", icons=" ".join(parts))

    def _validated_text(self, seat: SeatBoard, t: Translator) -> str:
        val = seat.validated
        if not val:
            return t("ms.seat.none_validated")
        counts, lower = validated_by_colour(val)
        colours = " ".join(f"{COLOUR_EMOJI[c]}{n}" for c, n in counts.items() if n)
        return t("ms.seat.validated", n=len(val), colours=colours, bonus=icons_text(lower) or "—")

    def _pending_text(self, seat: SeatBoard, t: Translator) -> str:
        """What a seat still has to do, e.g. ``placing a 🌙 ×2 · losing 1 🌙`` (the same
        follow-up twice in a row is shown once, with its count)."""
        return " · ".join(collapse_repeats([text for text, _ in pending_parts(seat, t)]))

    def _seat_field(self, i: int, view: MoonshineView, ctx: RenderContext, short: bool = False) -> Field:
        t = ctx.t
        seat = view.seats[i]
        head = ("▶️ " if view.active == i and view.phase != "over" else "") + ctx.name(i)
        name = t("ms.seat.head", name=head, points=seat.points, tokens=seat.tokens)
        lines = [f"{self._speakeasy_text(seat, view.variant, t)} · {self._icons_line(seat, t)}"]
        for cid, tok in zip(seat.clients, seat.cl_tokens, strict=False):
            lines.append("• " + (card_line(cid, t, tok) if not short else
                                 f"{COLOUR_EMOJI[client_of(cid).colour]} {card_name(cid, t)} "
                                 f"{client_of(cid).points}★ {upper_text(cid, tok)}"))
        pending = self._pending_text(seat, t)
        lines.append(self._validated_text(seat, t) + (f" · ⏳ {pending}" if pending else ""))
        value = "\n".join(lines)
        if len(value) > 1024:
            value = value[:1020] + " …"
        return Field(name[:256], value)

    # --- board -----------------------------------------------------------------------------------
    def board(self, view: MoonshineView, ctx: RenderContext) -> Block:
        """Public board: status, dice on the Active player card, deck/discard sizes and goal, then
        one field per seat. Falls back to shorter Client lines if the embed would be too long."""
        t = ctx.t
        head = self.headline(view, ctx)
        desc = "\n".join([
            head.description,
            t("ms.board.dice", name=ctx.name(view.active), dice=_dice_text(view.dice)),
            t("ms.board.deck", deck=view.deck, discard=view.discard, target=view.target),
        ])
        for short in (False, True):
            fields = tuple(self._seat_field(i, view, ctx, short) for i in range(len(view.seats)))
            card = replace(head, description=desc, fields=fields)
            if sum(len(f.name) + len(f.value) for f in fields) + len(desc) + len(head.title) < 5000:
                break
        return card

    def headline(self, view: MoonshineView, ctx: RenderContext) -> Block:
        """The board's title (variant, round) and status line, no fields."""
        t = ctx.t
        variant = t("ms.variant.regular") if view.variant == "regular" else t("ms.variant.standard")
        title = f"{self.title(t)} · {variant} · {round_text(view, t)}"
        return Block(title=title[:256], description=status_text(view, ctx), color=_COLOR)

    # --- panel -----------------------------------------------------------------------------------
    def panel(self, view: MoonshineView, legal: tuple[str, ...], ctx: RenderContext) -> Panel:
        """The seat's private panel (layout in the module docstring)."""
        t = ctx.t
        priv = view.private if isinstance(view, PlayerView) else PrivateView((), (), (0,) * 7)
        seat = ctx.seat if ctx.seat is not None else (view.me if isinstance(view, PlayerView) else 0)
        me = view.seats[seat]
        lines: list[str] = []
        fields: list[Field] = []
        rows: list[tuple[Any, ...]] = []
        legal = tuple(legal)
        head = legal[0].partition(".")[0] if legal else ""
        src = priv.sources or (0,) * 7
        if any(src) and view.phase in ("roll", "gain", "action", "resolve"):
            res = " ".join(f"{MASK_EMOJI[i]}×{n}" for i, n in enumerate(src) if n)
            lines.append(t("ms.panel.resources", res=res))
        if not legal:
            lines.insert(0, status_text(view, ctx) if view.phase == "over" else t("ms.panel.wait"))
        elif view.phase == "roll":
            lines.insert(0, t("ms.panel.roll", n=view.rerolls, dice=_dice_text(view.dice)))
            rows = self._roll_rows(view, legal, t)
            blocked = self._missing_lines(view, me, legal, src, t)  # what the rerolls should find
            if blocked:
                fields.append(Field(t("ms.panel.missing_title"), "\n".join(blocked)[:1024]))
        elif view.phase == "action":
            lines.insert(0, t("ms.panel.action", dice=_dice_text(view.dice)))
            rows = self._action_rows(me, legal, t)
            blocked = self._missing_lines(view, me, legal, src, t)
            if blocked:
                if not any(c.startswith("val.") for c in legal):
                    lines.append(t("ms.panel.none_validable"))
                fields.append(Field(t("ms.panel.missing_title"), "\n".join(blocked)[:1024]))
        else:
            queue = priv.queue
            front = queue[0] if queue and head != "lose" else None
            rows, text = self._follow_rows(view, me, front, head, legal, t)
            lines.insert(0, text)
            if front and front.cards:
                offered = "\n".join(card_line(c, t) for c in front.cards)
                fields.append(Field(t("ms.panel.offered", n=len(front.cards)), offered[:1024]))
        fields.insert(0, self._seat_field(seat, view, ctx))
        card = Block(title=t("ms.panel.title"), description="\n".join(lines), fields=tuple(fields), color=_COLOR,
                    footer=t("ms.legend.short"))
        return Panel(card=card, rows=tuple(rows))

    def _missing_lines(self, view: MoonshineView, me: SeatBoard, legal: Sequence[str], src: Sequence[int],
                       t: Translator) -> list[str]:
        """One line per Client in front of the seat that it cannot validate: what it misses."""
        out = []
        locked = [(DIE_EMOJI[i], view.dice[i]) for i, ok in ((3, me.icons.blue), (4, me.icons.orange))
                  if not ok and view.dice[i]]
        for cid in me.clients:
            if f"val.{cid}" in legal:
                continue
            (food, music, drink), moon = missing(cid, src, me.tokens, me.icons.discount)
            parts = []
            res = "🍗" * food + "🎵" * music + "🥃" * drink
            if res:
                parts.append(res)
            if moon:
                parts.append(t("ms.panel.missing_moon", n=moon))
            if not parts:
                continue
            line = t("ms.panel.missing", card=card_name(cid, t), what=" + ".join(parts))
            needed = {"food": food, "music": music, "drink": drink}
            hints = [t("ms.panel.locked_die", die=die, face=RES_EMOJI[face]) for die, face in locked
                     if face == "any" or any(needed.get(r) for r in face.split("_or_"))]
            out.append(" ".join([line, *hints]))
        return out

    def _roll_rows(self, view: MoonshineView, legal: Sequence[str], t: Translator) -> list[tuple[Any, ...]]:
        dice = view.dice
        opts = tuple(
            SelectOption(t("ms.die.label", n=i + 1, die=DIE_EMOJI[i], face=RES_EMOJI[f]), DIE_CODES[i],
                         t(f"ms.die.{'white' if i < 3 else ('blue' if i == 3 else 'orange')}"))
            for i, f in enumerate(dice) if f
        )
        rows: list[tuple[Any, ...]] = []
        if any(c.startswith("rr.") for c in legal):
            rows.append((Select(t("ms.ph.reroll"), opts, min_values=1, max_values=len(opts), prefix="rr."),))
        rows.append((Button(t("ms.btn.stop"), "stop", "success", emoji="✅"),))
        return rows

    def _action_rows(self, me: SeatBoard, legal: Sequence[str], t: Translator) -> list[tuple[Any, ...]]:
        rows: list[tuple[Any, ...]] = []
        vals = [c for c in legal if c.startswith("val.")]
        if vals:
            opts = tuple(card_option(int(c[4:]), t, c) for c in vals[:25])
            rows.append((Select(t("ms.ph.validate"), opts),))
        buttons = []
        if "moon" in legal:
            buttons.append(Button(t("ms.btn.moon"), "moon", "primary", emoji="🌙"))
        buttons.append(Button(t("ms.btn.draw", n=me.icons.draw), "draw", "secondary", emoji="👁️"))
        rows.append(tuple(buttons))
        return rows

    def slot_label(self, key: str, me: SeatBoard, variant: str, t: Translator) -> tuple[str, str]:
        """The label and description of a bonus slot (``s<i>``) or a Client (``c<card id>``) of
        ``me`` offered as a place for a Moon token."""
        if key[0] == "s":
            i = int(key[1:])
            sl = speakeasy_of(me.speakeasy).side(variant).slots[i]
            tok = me.se_tokens[i]
            return (t("ms.slot.speakeasy", n=i + 1, name=speakeasy_name(me.speakeasy, t)),
                    slot_text(sl.spaces, tok, sl.bonus))
        cid = int(key[1:])
        tok = me.cl_tokens[me.clients.index(cid)] if cid in me.clients else 0
        return card_name(cid, t), upper_text(cid, tok)

    def _follow_rows(self, view: MoonshineView, me: SeatBoard, front: Offer | None, head: str,
                     legal: Sequence[str], t: Translator) -> tuple[list[tuple[Any, ...]], str]:
        variant = view.variant
        task = task_text(head, front, t) or t("ms.panel.wait")
        if head in ("pl", "lose"):
            slots: list[SelectOption] = []
            for code in legal[:25]:
                label, desc = self.slot_label(code.partition(".")[2], me, variant, t)
                slots.append(SelectOption(label[:100], code, desc[:100]))
            ph = "ms.ph.place" if head == "pl" else "ms.ph.lose"
            return [(Select(t(ph), tuple(slots)),)], task
        if head == "dis":
            n = front.n if front else 1
            if len(legal) <= 25:
                # each way names its tokens in the order of the seat's board (the Speakeasy's
                # bonus spaces, then the Clients), "2× " only before a place giving two
                order = {k: i for i, (k, _) in enumerate(self._holdings(me))}
                ways: list[tuple[list[int], SelectOption]] = []
                for code in legal:
                    counts: dict[str, int] = {}
                    for p in code[4:].split("."):
                        counts[p[:-1]] = counts.get(p[:-1], 0) + 1
                    keys = sorted(counts, key=lambda k: order.get(k, len(order)))
                    label = " + ".join(("" if counts[k] == 1 else f"{counts[k]}× ")
                                       + self.slot_label(k, me, variant, t)[0] for k in keys)
                    ways.append(([order.get(k, len(order)) for k in keys for _ in range(counts[k])],
                                 SelectOption(label[:100], code)))
                ways.sort(key=lambda way: way[0])
                options = tuple(option for _, option in ways)
                return [(Select(t("ms.ph.discard", n=n), options),)], task
            tokens: list[SelectOption] = []
            for k, tok in self._holdings(me):
                label = self.slot_label(k, me, variant, t)[0]
                tokens += [SelectOption(f"🌙 {label} #{j + 1}"[:100], f"{k}{'abc'[j]}") for j in range(tok)]
            tokens = tokens[:25]
            sel = Select(t("ms.ph.discard", n=n), tuple(tokens), min_values=n, max_values=n, prefix="dis.")
            return [(sel,)], task
        if head == "keep":
            opts = tuple(card_option(int(c[5:]), t, c) for c in legal[:25])
            return [(Select(t("ms.ph.keep"), opts),)], task
        if head == "pick":
            picks = [c for c in legal if c != "pick.none"][:25]
            opts = tuple(card_option(int(c[5:]), t, c) for c in picks)
            rows: list[tuple[Any, ...]] = [(Select(t("ms.ph.pick"), opts),)]
            rows.append((Button(t("ms.btn.pick_none"), "pick.none", "secondary"),))
            text = task
            if me.clients and len(me.clients) >= me.icons.client and any(me.cl_tokens):
                text += "\n" + t("ms.panel.pick_warn")
            return rows, text
        if head == "rep":
            rep_opts: list[SelectOption] = []
            warn = []
            for c in legal[:25]:
                cid = int(c[4:])
                tok = me.cl_tokens[me.clients.index(cid)] if cid in me.clients else 0
                opt = card_option(cid, t, c, tok)
                if tok:
                    warn.append(t("ms.panel.replace_warn", card=card_name(cid, t), n=tok))
                    desc = t("ms.opt.discards", n=tok) + " · " + (opt.description or "")
                    opt = SelectOption(opt.label, opt.value, desc[:100])
                rep_opts.append(opt)
            text = "\n".join([task, *warn])
            return [(Select(t("ms.ph.replace"), tuple(rep_opts)),)], text
        if head == "draft":
            n = front.n if front else 2
            offered = front.cards if front else ()
            opts = tuple(card_option(c, t, str(c)) for c in offered[:25])
            sel = Select(t("ms.ph.draft", n=n), opts, min_values=n, max_values=n, prefix="draft.")
            return [(sel,)], task
        return [], task

    @staticmethod
    def _holdings(me: SeatBoard) -> list[tuple[str, int]]:
        out = [(f"s{i}", tok) for i, tok in enumerate(me.se_tokens) if tok]
        out += [(f"c{cid}", tok) for cid, tok in zip(me.clients, me.cl_tokens, strict=False) if tok]
        return out

    # --- texts -----------------------------------------------------------------------------------
    def log_events(self, events: Sequence[Event]) -> list[Event]:
        """The events with each "draws cards" action (``ms.ev.act_draw``, told as the actions
        resolve, M2) and the draw it leads to later in the same step (``ms.ev.drew`` {seat, n})
        told as one line, "draws 3 cards", where the action was: the log says it once. A
        reroll (``ms.ev.reroll``) stored without ``rerolled`` (older events) after the roll or
        reroll it follows in the list gets that one's dice as ``before``, so that its line names
        the dice that changed; a newer one names its rerolled dice and their new faces."""
        out = list(events)
        folded: set[int] = set()
        for i, e in enumerate(out):
            if e.key != "ms.ev.drew" or e.audience is not None:
                continue
            for j in range(i - 1, -1, -1):
                act = out[j]
                if act.key == "ms.ev.act_draw" and act.audience is None and act.params.get("seat") == e.params.get("seat"):
                    out[j] = e
                    folded.add(i)
                    break
        out = [e for i, e in enumerate(out) if i not in folded]
        before: Sequence[str] | None = None  # the dice as the last roll or reroll left them
        for i, e in enumerate(out):
            if e.audience is not None or e.key not in ("ms.ev.roll", "ms.ev.reroll"):
                continue
            if e.key == "ms.ev.reroll" and before is not None:
                out[i] = Event(e.key, {**e.params, "before": list(before)}, e.audience)
            before = e.params.get("dice")
        return out

    def log_extras(self, view: Callable[[], Any]) -> dict[str, Any]:
        """Each seat's Speakeasy (``speakeasies``: ids in seat order), so that the log names a
        Speakeasy space as the menus do ("The Copper Still (bonus 2)")."""
        return {"speakeasies": tuple(s.speakeasy for s in view().seats)}

    def event(self, event: Event, ctx: RenderContext) -> str:
        """A log line: seats become names, card ids names, dice emoji, slots labels."""
        t = ctx.t
        params = dict(event.params)
        for key in ("card", "old"):
            if isinstance(params.get(key), int):
                params[key] = card_name(params[key], t)
        if "cards" in params:
            params["cards"] = ", ".join(card_name(c, t) for c in params["cards"]) or "—"
        key = event.key
        rerolled = params.pop("rerolled", None)
        if key == "ms.ev.reroll" and isinstance(params.get("dice"), list) and len(params["dice"]) == len(DIE_EMOJI):
            if isinstance(rerolled, list) and rerolled and all(isinstance(i, int) and 0 <= i < len(DIE_EMOJI) for i in rerolled):
                key, params["changed"] = "ms.ev.reroll_changed", _rerolled_text(rerolled, params["dice"])
            elif isinstance(params.get("before"), list):
                key, params["changed"] = "ms.ev.reroll_changed", _changed_text(params["before"], params["dice"], t)
        if "dice" in params:
            params["dice"] = _dice_text(params["dice"])
        speakeasies = ctx.extras.get("speakeasies") or ()
        seat = params.get("seat")
        own = speakeasies[seat] if isinstance(seat, int) and 0 <= seat < len(speakeasies) else None
        if "slot" in params:
            params["slot"] = self._slot_name(str(params["slot"]), t, own)
        if "winners" in params:
            params["n"] = len(params["winners"])
            params["winners"] = ", ".join(ctx.name(s) for s in params["winners"])
        if "scores" in params:
            params["scores"] = ", ".join(f"{ctx.name(s)} {n}" for s, n in enumerate(params["scores"]))
        if isinstance(params.get("seat"), int):
            params["seat"] = ctx.name(params["seat"])
        if key == "ms.ev.validate" and isinstance(params.get("on_card"), int):
            key = "ms.ev.validate_on_card"
        elif key == "ms.ev.discarded" and isinstance(params.get("slots"), dict):
            params["tokens"] = ", ".join(t("ms.token_from", n=c, slot=self._slot_name(k, t, own))
                                         for k, c in params["slots"].items())
            key = "ms.ev.discarded_from"
        elif key == "ms.ev.replace" and isinstance(params.get("tokens"), int) and params["tokens"]:
            key = "ms.ev.replace_tokens"
        return t(key, **params)

    @staticmethod
    def _slot_name(slot: str, t: Translator, speakeasy: int | None = None) -> str:
        """A slot key of an event (``s1``, ``c12``) as a name: a Speakeasy space named as the
        menus name it, "The Copper Still (bonus 2)", when the seat's ``speakeasy`` is known."""
        if slot[:1] != "s":
            return card_name(int(slot[1:]), t)
        if speakeasy is None:
            return t("ms.slot.speakeasy_short", n=int(slot[1:]) + 1)
        return t("ms.slot.speakeasy", n=int(slot[1:]) + 1, name=speakeasy_name(speakeasy, t))

    def tie_breaks(self, view: MoonshineView, outcome: Outcome, ctx: RenderContext) -> list[str]:
        """Players level on points are ranked by Moon tokens, then validated Clients (RULINGS
        M8); both are public."""
        seats = view.seats
        criteria = [
            (ctx.t("ms.tie.tokens"), lambda s: seats[s].tokens, lambda s: str(seats[s].tokens)),
            (ctx.t("ms.tie.validated"), lambda s: len(seats[s].validated), lambda s: str(len(seats[s].validated))),
        ]
        return [tie_line(g, self.score_text(outcome.scores[g[0]], ctx.t), criteria, ctx) for g in level_groups(outcome)]

    def action_label(self, code: str, view: MoonshineView, ctx: RenderContext) -> str:
        """Human label of a code (``val.12`` → "Validate The Baker", ``moon``, ``draw``…)."""
        t = ctx.t
        head, _, rest = code.partition(".")
        try:
            if head == "val":
                return t("ms.act.val", card=card_name(int(rest), t))
            if head in ("keep", "pick", "rep") and rest.isdigit():
                return t(f"ms.act.{head}", card=card_name(int(rest), t))
            if code in ("moon", "draw", "stop", "pick.none"):
                return t(f"ms.act.{code.replace('.', '_')}")
            if head == "rr":
                return t("ms.act.rr", dice=" ".join(DIE_EMOJI[DIE_CODES.index(d)] for d in rest.split(".")))
            if head in ("pl", "lose"):
                me = getattr(view, "me", None)
                own = view.seats[me].speakeasy if isinstance(me, int) and 0 <= me < len(view.seats) else None
                slot = self._slot_name(rest, t, own)
                return t(f"ms.act.{head}", slot=slot)
            if head == "draft":
                return t("ms.act.draft", cards=", ".join(card_name(int(c), t) for c in rest.split(".")))
            if head == "dis":
                return t("ms.act.dis", n=len(rest.split(".")))
        except (ValueError, IndexError):
            pass
        return code

    def lobby_selects(self, ctx: RenderContext) -> tuple[Select, ...]:
        """The ``variant`` option: Standard (12 points) or Regular (drafted hand, 15 points)."""
        t = ctx.t
        return (Select(t("ms.lobby.variant"), (
            SelectOption(t("ms.lobby.standard")[:100], "variant=standard"),
            SelectOption(t("ms.lobby.regular")[:100], "variant=regular"),
        )),)

    def rules(self, t: Translator) -> Block:
        """Rules summary plus the legend of a Client line (★, the 🌙 after a cost, ``→``) and of the icons."""
        return Block(title=self.title(t), description=t("game.moonshine.rules"),
                    fields=(Field(t("ms.rules.cards"), t("ms.legend.card")),
                            Field(t("ms.rules.icons"), t("ms.rules.legend"))), color=_COLOR)
