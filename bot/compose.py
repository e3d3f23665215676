"""Discord-free text helpers shared by Discord and the terminal: names, boards, lobby blocks.

Everything that turns a :class:`bot.service.TableSnapshot` into blocks and panels (:mod:`bot.ui`) lives here, so
the cogs only map specs onto discord objects.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from dataclasses import replace
from typing import Any

from bot.ai_pool import LEVELS
from bot.games import GAMES
from bot.i18n import Translator
from bot.paces import PACES
from bot.presenters import RenderContext
from bot.service import ServiceError, TableSnapshot
from bot.ui import Block, Board, Field, Panel, Select, SelectOption, check_block_limits
from engine.core import Event, Outcome

_MD = re.compile(r"([\\*_`~|>#\[\]()])")
LOG_LINES = 8


#: The Unicode bidirectional controls (embeddings, overrides, isolates, marks): a name holding
#: them could reverse the text after it (a right-to-left override shows "…won" as "now…").
_BIDI_CONTROLS = dict.fromkeys(map(ord, "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"))
#: First strong isolate and pop directional isolate (Unicode UAX #9).
_FSI, _PDI = "\u2068", "\u2069"


def strip_bidi(text: str) -> str:
    """``text`` without bidirectional controls (for the pictures, which lay text out left to
    right and would draw the controls as boxes).

    >>> strip_bidi("Eve\u202eniw")
    'Eveniw'
    """
    return text.translate(_BIDI_CONTROLS)


def isolate(text: str) -> str:
    """User text (a display name, a deck name) that cannot reorder the text around it in a
    message: its bidirectional controls removed and, when it holds right-to-left letters or
    Arabic digits, wrapped in a first-strong isolate (U+2068 … U+2069, Unicode UAX #9), so a
    Hebrew or Arabic name shows as written and the sentence around it keeps its order.

    >>> isolate("Eve\u202eniw"), isolate("Ann")
    ('Eveniw', 'Ann')
    >>> isolate("\u05d3\u05e0\u05d4") == "\u2068\u05d3\u05e0\u05d4\u2069"
    True
    """
    text = text.translate(_BIDI_CONTROLS)
    if any(unicodedata.bidirectional(c) in ("R", "AL", "AN") for c in text):
        return _FSI + text + _PDI
    return text


@functools.lru_cache(maxsize=4096)
def escape_name(name: str, limit: int = 32) -> str:
    """A display name safe inside embeds: bidirectional controls removed and right-to-left
    text isolated (:func:`isolate`), markdown escaped, mentions broken, length capped (the
    last few thousand names are remembered: every board and panel writes its seats' names)."""
    name = strip_bidi(name or "?").replace("@", "@\u200b").replace("\n", " ").strip() or "?"
    if len(name) > limit:
        name = name[: limit - 1] + "…"
    return isolate(_MD.sub(r"\\\1", name))


def level_name(level: str, t: Translator) -> str:
    """The localised name of an AI level (``"strong"`` -> "strong", "fort")."""
    return t(f"ai.level.{level}")


def ai_name(name: str, level: str, t: Translator) -> str:
    """An AI player's name with its level ("AI 1 (strong)"), as the board and the lobby show it."""
    return t("ai.named", name=name, level=level_name(level, t))


def picture_names(table: TableSnapshot, t: Translator) -> tuple[str, ...]:
    """Seat names for the pictures (:mod:`bot.render`), in seat order and unescaped (a picture
    has no markdown): an AI player's name carries its level in ``t``'s language, as on the text
    board ("AI 1 (strong)", "IA 1 (fort)"; no 🤖, which the pictures' font may lack), without
    bidirectional controls (:func:`strip_bidi`: a picture's text runs left to right)."""
    return tuple(strip_bidi(ai_name(s.name or "?", s.level, t) if s.is_ai else s.name or "?") or "?"
                 for s in table.seats)


def context(table: TableSnapshot, t: Translator, seat: int | None, extras: dict[str, Any] | None = None) -> RenderContext:
    """Render context for ``seat`` (``None`` = public) at ``table``: an AI player's name carries
    🤖 and its level, an away member's 💤."""
    names = tuple(ai_name(escape_name(s.name) + " 🤖", s.level, t) if s.is_ai
                  else escape_name(s.name) + (" 💤" if s.away else "") for s in table.seats)
    return RenderContext(t=t, names=names, seat=seat, extras=extras or {})


def game_title(game: str, t: Translator) -> str:
    """The display name of a game key."""
    return t(f"game.{game}.name")


def refusal(err: ServiceError, t: Translator) -> str:
    """The text of a refusal in ``t``'s language: ``err.key`` with its params, a ``game`` param
    that is a registered game's key shown as that game's name (the services name games by key)."""
    params = dict(err.params)
    if params.get("game") in GAMES:
        params["game"] = game_title(params["game"], t)
    return t(err.key, **params)


def lobby_selects(table: TableSnapshot, ctx: RenderContext) -> tuple[Select, ...]:
    """The game's lobby option selects (at most 2), the current choice of each marked as default
    (an option not set yet shows the game's default value), then the table's pace (values
    ``pace=<pace>``, see :mod:`bot.paces`) when it has one."""
    defaults = table.game.parse_options({}).model_dump(mode="json")
    current = {**defaults, **table.row.options}
    out = []
    for sel in GAMES[table.row.game].presenter.lobby_selects(ctx)[:2]:
        opts = [replace(o, default=_chosen(o, current)) for o in sel.options]
        out.append(replace(sel, options=tuple(opts)))
    if table.row.pace is not None:
        t = ctx.t
        out.append(Select(t("lobby.pace"), tuple(
            SelectOption(t(f"pace.{p}"), f"pace={p}", t(f"pace.{p}.desc"), p == table.row.pace) for p in PACES)))
    return tuple(out)


def _chosen(option: SelectOption, options: dict[str, Any]) -> bool:
    """Whether a lobby select's ``option`` (value ``name=value``) is what ``options`` hold."""
    name, _, value = option.value.partition("=")
    cur = options.get(name)
    return str(cur).lower() == value.lower() or (cur is None and value in ("", "none"))


def options_text(game: str, options: dict[str, Any], t: Translator) -> list[str]:
    """A table's options as its lobby named them ("Round cap: 50 rounds", "Deck: Rue de la
    Paix"), one per option set (a value no select offers: ``name=value``); a custom deck by the
    name its copy (``deck_data``) carries."""
    deck = options.get("deck_data")
    decks = [(options.get("deck"), deck.get("name"))] if isinstance(deck, dict) else []
    selects = GAMES[game].presenter.lobby_selects(RenderContext(t, (), None, {"decks": decks}))
    out = []
    for name, value in options.items():
        if name == "deck_data":
            continue
        label = next((f"{sel.placeholder}: {o.label}" for sel in selects for o in sel.options
                      if o.value.partition("=")[0] == name and _chosen(o, {name: value})), None)
        out.append(label or f"{name}={value}")
    return out


def lobby_block(table: TableSnapshot, t: Translator, selects: tuple[Select, ...] = ()) -> Block:
    """The lobby message: game, host, seats, options (as the labels of the chosen select
    options), status."""
    game = GAMES[table.row.game].game
    seats = "\n".join(
        f"{i + 1}. " + (f"🤖 {ai_name(escape_name(s.name), s.level, t)}" if s.is_ai else f"<@{s.user_id}>")
        for i, s in enumerate(table.seats)
    ) or "—"
    seats_key = "lobby.seats_exact" if game.min_players == game.max_players else "lobby.seats"
    fields = [Field(t(seats_key, n=len(table.seats), min=game.min_players, max=game.max_players), seats)]
    chosen = [f"{sel.placeholder}: **{o.label}**" for sel in selects for o in sel.options if o.default]
    if chosen:
        fields.append(Field(t("lobby.options"), "\n".join(chosen)[:1024]))
    status = table.row.status
    if status == "lobby":
        desc = t("lobby.open", host=f"<@{table.row.host_user_id}>")
    elif status == "running":
        desc = t("lobby.started", thread=f"<#{table.row.thread_id}>") if table.row.thread_id else t("lobby.started_here")
    elif status == "finished":
        desc = t("lobby.finished")
    else:
        desc = t("lobby.cancelled")
    return Block(title=t("lobby.title", game=game_title(table.row.game, t), id=table.id), description=desc,
                fields=tuple(fields), footer=t("lobby.footer"))


#: At most this many AI seats get a level select in the picker (Discord's five component rows).
PICKER_ROWS = 5


def level_picker(table: TableSnapshot, t: Translator, notice: str = "",
                 levels: tuple[str, ...] = LEVELS) -> tuple[Block, tuple[tuple[int, Select], ...]]:
    """The host's private level picker of a lobby: a card, and one select per AI seat
    ``(seat, select)`` (at most :data:`PICKER_ROWS`) whose option values are the ``levels`` the
    server offers (:data:`bot.ai_pool.LEVELS` by default), the seat's current level marked as
    default. ``notice`` (what the last pick did) opens the description."""
    selects = []
    for s in [s for s in table.seats if s.is_ai][:PICKER_ROWS]:
        options = tuple(SelectOption(level_name(lv, t).capitalize(), lv, t(f"ai.level_desc.{lv}"), lv == s.level)
                        for lv in levels)
        selects.append((s.seat, Select(ai_name(s.name, s.level, t)[:150], options)))
    desc = t("lobby.picker.desc") if selects else t("lobby.picker.none")
    card = Block(title=t("lobby.picker.title", id=table.id), description=f"{notice}\n\n{desc}" if notice else desc)
    return card, tuple(selects)


def _log_extras(table: TableSnapshot) -> dict[str, Any]:
    """The presenter's :meth:`~bot.presenters.base.Presenter.log_extras` of ``table`` (from its
    public view, built only when the presenter asks)."""
    state = table.state
    if state is None:
        return {}
    return GAMES[table.row.game].presenter.log_extras(lambda: table.game.view(state, None))


def public_log(events: list[Event], table: TableSnapshot, t: Translator, last: int | None = None) -> list[str]:
    """The public log lines of ``events`` (private events dropped); with ``last``, only the
    last ``last`` lines (only those are written out)."""
    presenter = GAMES[table.row.game].presenter
    public = [e for e in presenter.log_events(events) if e.audience is None]
    if last is not None:
        public = public[-last:] if last > 0 else []
    if not public:
        return []
    ctx = context(table, t, None, _log_extras(table))
    return [presenter.event(e, ctx) for e in public]


def private_log(events: list[Event], table: TableSnapshot, t: Translator, seat: int) -> list[str]:
    """Log lines visible to ``seat`` only (its private events)."""
    presenter = GAMES[table.row.game].presenter
    ctx = context(table, t, seat, _log_extras(table))
    return [presenter.event(e, ctx) for e in events if e.audience is not None and seat in e.audience]


def private_notes(events: list[Event], table: TableSnapshot, t: Translator, seat: int, limit: int = 3) -> list[str]:
    """The last ``limit`` private lines of ``seat`` among ``events``, without flash events (those
    are shown once and must not come back)."""
    presenter = GAMES[table.row.game].presenter
    mine = [e for e in events if e.audience is not None and seat in e.audience and not presenter.flash_seconds(e)]
    return private_log(mine, table, t, seat)[-limit:]


def board(table: TableSnapshot, events: list[Event], t: Translator, full: bool = True) -> Board:
    """The public board of a running or finished table, with the recent public log. Not
    ``full``: only what shows beside a board picture: the card's head (its title, status line,
    colour and footer: :meth:`~bot.presenters.base.Presenter.headline`), who has chosen, the
    tie-breaks of a finished table and the recent events; none of the presenter's fields."""
    presenter = GAMES[table.row.game].presenter
    ctx = context(table, t, None)
    view = table.game.view(table.state, None)
    card = presenter.board(view, ctx) if full else presenter.headline(view, ctx)
    lines = public_log(events, table, t, LOG_LINES)
    fields = list(card.fields)
    if table.row.status == "running":
        waiting = [s for s in table.waiting_for()]
        if waiting and len(table.to_act()) > 1:
            chosen = [ctx.name(s) for s in sorted(table.to_act()) if s not in waiting]
            fields.append(Field(t("board.waiting"), t("board.waiting_for", names=", ".join(ctx.name(s) for s in waiting),
                                                       chosen=", ".join(chosen) or "—")))
    if table.row.status == "finished":  # the finished board says how ties were broken, as the standings do
        outcome = table.game.outcome(table.state)
        broken = tie_breaks(table, outcome, t) if outcome is not None else []
        if broken:
            fields.append(Field(t("result.tie_field"), "\n".join(broken)[:1024]))
    if lines:
        text = "\n".join(f"• {line}" for line in lines)
        while len(text) > 1024:
            lines = lines[1:]
            text = "\n".join(f"• {line}" for line in lines)
        fields.append(Field(t("board.log"), text))
    fields = fields[:25]
    footer = card.footer or t("board.footer", id=table.id)
    out = Block(title=card.title[:256], description=card.description, fields=tuple(fields), color=card.color, footer=footer)
    while check_block_limits(out) and len(out.fields) > 1:
        out = Block(out.title, out.description, out.fields[:-1], out.color, out.footer)
    return Board(card=out, log=tuple(lines))


def panel(table: TableSnapshot, seat: int, t: Translator, notice: str = "") -> Panel:
    """The private panel of ``seat`` with its legal actions (none when it is not to act)."""
    presenter = GAMES[table.row.game].presenter
    ctx = context(table, t, seat)
    game = table.game
    legal = table.legal_codes(seat)
    p = presenter.panel(game.view(table.state, seat), legal, ctx)
    if seat in table.pending:
        label = presenter.action_label(table.pending[seat], game.view(table.state, seat), ctx)
        notice = (notice + "\n" if notice else "") + t("panel.chosen", choice=label)
    return Panel(card=p.card, rows=p.rows, notice=notice or p.notice)


def tie_breaks(table: TableSnapshot, outcome: Outcome, t: Translator) -> list[str]:
    """The lines saying what the rules used to rank apart players level on score (Moonshine's
    Moon tokens, Shop Battle's elimination round, Three-Player Moon's made moon), from the public
    view of the finished ``table`` (:meth:`bot.presenters.base.Presenter.tie_breaks`)."""
    if table.state is None:
        return []
    presenter = GAMES[table.row.game].presenter
    return presenter.tie_breaks(table.game.view(table.state, None), outcome, context(table, t, None))


def results_block(table: TableSnapshot, outcome: Outcome, t: Translator) -> Block:
    """The final standings: one line per seat by rank (medals for the first three), the lines
    saying how ties on score were broken (:func:`tie_breaks`), then, when several seats share
    first place, a line naming them (with their common score)."""
    ctx = context(table, t, None)
    order = sorted(range(len(outcome.ranks)), key=lambda s: (outcome.ranks[s], s))
    medals = {1: "🥇", 2: "🥈", 3: "🥉"}
    presenter = GAMES[table.row.game].presenter

    def score(s: int) -> str:  # the score with its unit ("12 dice", "1 point")
        return presenter.score_text(outcome.scores[s], t)

    lines = [f"{medals.get(outcome.ranks[s], f'{outcome.ranks[s]}.')} {ctx.name(s)} — {score(s)}" for s in order]
    lines += tie_breaks(table, outcome, t)
    firsts = [s for s in order if outcome.ranks[s] == 1]
    if len(firsts) > 1:  # a shared first place (e.g. Shop Battle's round cap, RULINGS S6)
        names = ", ".join(ctx.name(s) for s in firsts)
        scores = {outcome.scores[s] for s in firsts}
        if len(scores) == 1:
            lines.append(t("result.shared_score", names=names, n=len(firsts), score=score(firsts[0])))
        else:
            lines.append(t("result.shared", names=names, n=len(firsts)))
    return Block(title=t("result.title", game=game_title(table.row.game, t)), description="\n".join(lines),
                color=0xF1C40F, footer=t("result.footer"))
