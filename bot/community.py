"""The messages of a server's own commands as Discord-free specs (:mod:`bot.ui`): the
``/settings`` panel, the ``/season start`` confirmation, ``/table mine``, a season's
leaderboard and a member's record per season. The cogs turn them into embeds and components
(:mod:`cogs.community`); every text comes from the catalogs.
"""

from __future__ import annotations

from bot.ai_pool import LEVELS
from bot.compose import escape_name, game_title, level_name
from bot.games import GAMES
from bot.guilds import MIN_GAMES, Community
from bot.i18n import Translator
from bot.paces import PACES
from bot.records import MyTable
from bot.seasons import MAX_NAME
from bot.ui import Block, Button, Field, NumberPrompt, Panel, Select, SelectOption
from storage.base import RatingRow, SeasonRecord, SeasonRow

__all__ = ["mine_block", "next_web", "season_board_block", "season_confirm", "season_name", "season_started_block",
           "season_stats_block", "settings_panel"]

#: The colour of the settings and season messages.
COLOR = 0x1ABC9C


def season_name(season: SeasonRow, t: Translator, *, plain: bool = False) -> str:
    """A season as members read it: its name, else "Season N"; in a message its name is
    escaped (markdown, mentions: :func:`~bot.compose.escape_name`), ``plain`` as typed (an
    autocomplete choice)."""
    if not season.name:
        return t("season.numbered", n=season.season)
    return season.name if plain else escape_name(season.name, MAX_NAME)


def _on(flag: bool, t: Translator) -> str:
    return t("settings.on") if flag else t("settings.off")


def settings_panel(community: Community, t: Translator) -> Panel:
    """The ``/settings`` panel: the server's settings in force, and the components that change
    them. Rows: the games (a multi-select, field ``games``), the pace of new tables
    (``pace``), the AI levels a lobby offers (``ai_levels``), then the buttons ``pictures``,
    ``monthly`` (toggles), ``min`` (a number prompt, code ``min=<n>``), ``web`` (off, private,
    public in turn) and ``rotate`` (a new secret for the signed links). The channels where
    ``/play`` may open a lobby are a channel select the Discord side adds (no spec for it)."""
    stored = community.stored
    channels = (", ".join(f"<#{c}>" for c in community.channels) if community.channels is not None
                else t("settings.channels.all"))
    web = t(f"settings.web.{community.web}")
    if community.web != "off" and stored.web_secret_at is not None:
        web += " · " + t("settings.web.secret", at=int(stored.web_secret_at))
    fields = (
        Field(t("settings.games"), ", ".join(game_title(g, t) for g in community.games) or "—"),
        Field(t("settings.channels"), channels[:1024]),
        Field(t("settings.pace"), f"{t(f'pace.{community.pace}')}: {t(f'pace.{community.pace}.desc')}"),
        Field(t("settings.min_games"), str(community.min_games), True),
        Field(t("settings.pictures"), _on(community.pictures, t) if community.bot_pictures else t("settings.pictures.bot_off"),
              True),
        Field(t("settings.monthly"), _on(community.monthly_seasons, t), True),
        Field(t("settings.ai_levels"), ", ".join(level_name(lv, t) for lv in community.ai_levels), True),
        Field(t("settings.web"), web, True),
    )
    desc = t("settings.desc")
    if stored.updated_by is not None:
        desc += "\n" + t("settings.changed", user=f"<@{stored.updated_by}>", at=int(stored.updated_at))
    card = Block(title=t("settings.title"), description=desc, fields=fields, color=COLOR, footer=t("settings.footer"))
    games = Select(t("settings.games.pick"), tuple(
        SelectOption(game_title(g, t)[:100], g, default=g in community.games) for g in GAMES),
        min_values=1, max_values=len(GAMES), prefix="games=")
    pace = Select(t("settings.pace.pick"), tuple(
        SelectOption(t(f"pace.{p}"), f"pace={p}", t(f"pace.{p}.desc")[:100], p == community.pace) for p in PACES))
    levels = Select(t("settings.ai_levels.pick"), tuple(
        SelectOption(level_name(lv, t).capitalize(), lv, default=lv in community.ai_levels) for lv in LEVELS),
        min_values=1, max_values=len(LEVELS), prefix="ai_levels=")
    buttons = (
        Button(t("settings.pictures.toggle", state=_on(not community.pictures, t)), "pictures",
               disabled=not community.bot_pictures),
        Button(t("settings.monthly.toggle", state=_on(not community.monthly_seasons, t)), "monthly"),
        Button(t("settings.min_games.change"), "min", prompt=NumberPrompt(
            t("settings.min_games"), t("settings.min_games.label"), *MIN_GAMES, "min={n}")),
        Button(t("settings.web.next", mode=t(f"settings.web.{_next_web(community.web)}")), "web"),
        Button(t("settings.web.rotate"), "rotate", "danger", disabled=community.web == "off"),
    )
    return Panel(card, ((games,), (pace,), (levels,), buttons))


def _next_web(web: str) -> str:
    """The web mode after ``web`` (off, private, public, off...)."""
    order = ("off", "private", "public")
    return order[(order.index(web) + 1) % len(order)] if web in order else "off"


def next_web(web: str) -> str:
    """The web mode the ``web`` button sets after ``web``.

    >>> next_web("off"), next_web("private"), next_web("public")
    ('private', 'public', 'off')
    """
    return _next_web(web)


def season_confirm(games: tuple[str, ...], name: str | None, current: dict[str, SeasonRow], t: Translator) -> Block:
    """The ``/season start`` confirmation: which games' seasons end (by name) and what the new
    one is called; the confirm button goes with it."""
    lines = [t("season.confirm.line", game=game_title(g, t), season=season_name(current[g], t)) for g in games]
    return Block(title=t("season.confirm.title"), description=t("season.confirm.desc", name=escape_name(name, MAX_NAME) if name else "—") + "\n"
                 + "\n".join(lines), color=0xE67E22)


def season_started_block(started: dict[str, SeasonRow], t: Translator) -> Block:
    """What ``/season start`` did, once confirmed (a public message)."""
    lines = [t("season.started.line", game=game_title(g, t), season=season_name(s, t)) for g, s in started.items()]
    return Block(title=t("season.started.title"), description="\n".join(lines), color=COLOR)


def season_board_block(game: str, season: SeasonRow, current: bool, rows: list[RatingRow], min_games: int,
                       t: Translator) -> Block:
    """``/leaderboard``: a season's top members, one a line, then which season it is (the current
    one; a past one: its final standings, with its dates, the first season's end only)."""
    title = t("lb.title", game=game_title(game, t))
    if rows:
        desc = "\n".join(t("lb.line", rank=i + 1, player=f"<@{r.user_id}>", rating=f"{r.ordinal:.1f}", won=r.won,
                           played=r.played) for i, r in enumerate(rows))
    else:
        desc = t("lb.empty" if current else "lb.empty_past", min=min_games)
    if current:
        head = t("lb.season.current", season=season_name(season, t))
    elif season.started_at is None:  # the first season: no start stored
        head = t("lb.season.past_until", season=season_name(season, t), end=int(season.ended_at or 0))
    else:
        head = t("lb.season.past", season=season_name(season, t), start=int(season.started_at),
                 end=int(season.ended_at or 0))
    return Block(title=title, description=f"{desc}\n\n{head}", footer=t("lb.footer", min=min_games), color=0xF1C40F)


def season_stats_block(name: str, records: list[SeasonRecord], t: Translator) -> Block:
    """``/stats``: a member's record per game, one line per season (the current one first)."""
    by_game: dict[str, list[SeasonRecord]] = {}
    for r in records:
        by_game.setdefault(r.game, []).append(r)
    fields = tuple(
        Field(game_title(g, t), "\n".join(
            t("stats.season", season=season_name(r.season, t),
              line=t("stats.line", rating=f"{r.rating.ordinal:.1f}", won=r.rating.won, played=r.rating.played))
            for r in sorted(rs, key=lambda r: -r.season.season))[:1024], True)
        for g, rs in by_game.items() if g in GAMES)
    return Block(title=t("stats.title", name=escape_name(name)), description="" if fields else t("stats.none"),
                 fields=fields[:25])


def mine_block(mine: list[MyTable], t: Translator, links: dict[int, str | None]) -> Block:
    """``/table mine``: the member's tables (waiting for them first), each with a link to its
    thread (``links``) and its deadline as a Discord timestamp."""
    lines = []
    for m in mine:
        row = m.table.row
        where = links.get(m.table.id)
        name = f"[#{m.table.id} {game_title(row.game, t)}]({where})" if where else f"#{m.table.id} {game_title(row.game, t)}"
        if row.status == "lobby":
            state = t("mine.lobby")
        elif m.waiting:
            state = t("mine.waiting")
        else:
            state = t("mine.others")
        line = f"{name} · {state}"
        if m.deadline is not None:
            line += " · " + t("mine.deadline", at=int(m.deadline))
        if row.pace is not None:
            line += " · " + t(f"pace.{row.pace}")
        lines.append(line)
    text = ""
    for n, line in enumerate(lines):
        if len(text) + len(line) + 1 > 4000:
            text += "\n…" + str(len(lines) - n)
            break
        text += ("\n" if text else "") + line
    return Block(title=t("mine.title"), description=text or t("mine.none"), color=COLOR)
