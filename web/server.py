"""The web pages: a server's leaderboards, a member's profile, a finished game and its replay.

Served by ``aiohttp.web`` in the bot process (:class:`WebServer`, on ``WEB_PORT``), from the
shared store, so every bot process may serve every page. Pages are Jinja2 templates
(``web/templates``) with autoescaping, in English and French (``?lang=``, else the
browser's ``Accept-Language``; a switch on every page), readable on a phone and without
JavaScript: the replay's buttons are links, and the one script (``static/replay.js``, loaded
from the server, never inline) only maps the arrow keys onto them.

Safe by default: every response carries a Content-Security-Policy without inline scripts,
``X-Robots-Tag: noindex`` and ``Referrer-Policy: no-referrer`` (private addresses carry their
key); each client address has a rate limit (:class:`RateLimit`); lists are paginated; a table
still running is refused (409), an unknown one, a server whose pages are off or a private page
without its key are 404; errors are plain pages without a trace. See :mod:`bot.web.links` for
the addresses.
"""

from __future__ import annotations

import datetime as dt
import logging
import math
import re
import time
import unicodedata
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jinja2
from aiohttp import web

from bot import compose
from bot.games import GAMES
from bot.i18n import LANGS, Translator
from bot.presenters import RenderContext
from bot.service import ReplayError
from bot.table import TableSnapshot
from bot.web import access, links
from bot.web.access import GuildWeb, RatingHistory, WebDefaults, guild_web, seasons
from bot.web.replay import Replay, Replays
from storage.base import Store
from web.listener import Listener

log = logging.getLogger(__name__)

__all__ = ["RateLimit", "WebServer", "make_app"]

_HERE = Path(__file__).parent
#: Rows per page of a leaderboard, results per page of a profile.
LEADERBOARD_PAGE = 50
RESULTS_PAGE = 20
#: The highest page number read from a query: beyond every list's end (a page past the end
#: is a 404), and small enough for the store's offset (a 64-bit integer).
MAX_PAGE = 1_000_000

CSP = ("default-src 'none'; img-src 'self'; style-src 'self'; script-src 'self'; base-uri 'none'; "
       "form-action 'none'; frame-ancestors 'none'")
HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Robots-Tag": "noindex, nofollow",
    "Referrer-Policy": "no-referrer",
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
}


def _shown(c: str) -> bool:
    """Whether a name's character ``c`` stays on the pages: not a control character, not an
    invisible format character (category Cf: bidirectional overrides and isolates, zero-width
    spaces), except the joiners (ZWJ, ZWNJ) and tag characters that emoji sequences, flags
    and some scripts' spelling are made of."""
    category = unicodedata.category(c)
    if category == "Cc":
        return False
    return category != "Cf" or c in "\u200c\u200d" or "\U000e0020" <= c <= "\U000e007f"


def clean_name(name: str | None, limit: int = 64) -> str:
    """A member's name for a page: invisible format characters (RTL overrides, zero-width
    spaces) removed, joiners kept (:func:`_shown`), spaces collapsed, at most ``limit``
    characters, ``?`` when nothing is left. Escaping is the template's (autoescape); the
    template also isolates it in ``<bdi>``.

    >>> clean_name("a\\u202eb\\u200bc  d")
    'abc d'
    >>> clean_name("\\u200b")
    '?'
    >>> clean_name("👨\\u200d💻") == "👨\\u200d💻"
    True
    """
    kept = "".join(c for c in (name or "") if _shown(c))
    kept = " ".join(kept.split())
    if len(kept) > limit:
        kept = kept[: limit - 1] + "…"
    return kept or "?"


class RateLimit:
    """A token bucket per client address: ``burst`` requests at once, refilled at ``per_minute``
    a minute. :meth:`allow` takes a token (False: refused). At most ``max_clients`` addresses are
    remembered (the fullest buckets are forgotten first)."""

    def __init__(self, per_minute: int = 120, burst: int = 60, max_clients: int = 10_000,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.rate = per_minute / 60.0
        self.burst = float(burst)
        self.max_clients = max_clients
        self.clock = clock
        self._buckets: dict[str, tuple[float, float]] = {}

    def allow(self, client: str) -> bool:
        """Take a token of ``client``'s bucket; False when it is empty."""
        now = self.clock()
        tokens, last = self._buckets.get(client, (self.burst, now))
        tokens = min(self.burst, tokens + (now - last) * self.rate)
        if tokens < 1:
            self._buckets[client] = (tokens, now)
            return False
        self._buckets[client] = (tokens - 1, now)
        if len(self._buckets) > self.max_clients:
            self._forget(now)
        return True

    def _forget(self, now: float) -> None:
        full = [c for c, (t, last) in self._buckets.items() if t + (now - last) * self.rate >= self.burst]
        for c in full or list(self._buckets)[: len(self._buckets) // 2]:
            del self._buckets[c]


@dataclass
class WebContext:
    """What the pages need: the store, the defaults, the caches, the base address, the clock."""

    db: Store
    defaults: WebDefaults
    replays: Replays
    history: RatingHistory
    min_games: int = 3  # the bot's default; a server's own (/settings) wins: :meth:`min_games_of`
    observe: Callable[[str, int], None] | None = None  # (page, status) for the metrics
    clock: Callable[[], float] = time.time  # UNIX s: which month's season is current (the bot's clock)

    async def min_games_of(self, guild_id: int) -> int:
        """Games a member must have finished to appear on the server's leaderboard
        (:meth:`storage.base.GuildSettings.ranked_after` of :attr:`min_games`)."""
        return (await self.db.guild_settings(guild_id)).ranked_after(self.min_games)


def _lang(request: web.Request) -> str:
    """The page's language: ``?lang=``, else the browser's ``Accept-Language`` by its weights
    (``q``; ``q=0`` refuses a language), else English."""
    asked = request.query.get("lang", "")
    if asked in LANGS:
        return asked
    weighted = []
    for i, part in enumerate(request.headers.get("Accept-Language", "").split(",")):
        tag, _, params = part.partition(";")
        q = 1.0
        for param in params.split(";"):
            name, _, value = param.strip().partition("=")
            if name.strip().lower() == "q":
                try:
                    q = float(value)
                except ValueError:
                    q = 0.0
        base = tag.strip().split("-")[0].lower()
        if base in LANGS and q > 0:
            weighted.append((-q, i, base))
    return min(weighted)[2] if weighted else "en"


def _int(text: str | None, default: int, low: int = 0, high: int = 2**63 - 1) -> int:
    try:
        value = int(text) if text is not None else default
    except ValueError:
        value = default
    return max(low, min(high, value))


def _plain(line: str) -> str:
    """A catalog line without Discord markdown (bold, italics markers, escapes)."""
    return line.replace("**", "").replace("__", "").replace("\\", "")


def _log_lines(presenter: Any, events: list[Any], t: Translator, names: Sequence[str], extras: Any) -> list[str]:
    """The public log lines of ``events`` for a page: the catalog's markdown taken out
    (:func:`_plain`), then the seats' ``names`` put in, as they are (a name's own ``*``, ``_``
    or backslash stays)."""
    tokens = tuple(f"\ue000{i}\ue001" for i in range(len(names)))  # private-use marks: no markdown
    ctx = RenderContext(t=t, names=tokens, seat=None, extras=extras)
    # one pass over each line: a name put in is never read again (a name may hold these marks)
    return [_TOKEN.sub(lambda m: names[int(m[1])], _plain(presenter.event(event, ctx)))
            for event in presenter.log_events(events)]


_TOKEN = re.compile("\ue000([0-9]+)\ue001")


def _plot(points: list[tuple[float, float]], width: int = 600, height: int = 200, pad: int = 32) -> dict[str, Any] | None:
    """The rating plot's geometry: a polyline of ``points`` (time, ordinal) in a ``width`` ×
    ``height`` box, with the axis labels; ``None`` without points."""
    if not points:
        return None
    xs = list(range(len(points)))  # by game: evenly spaced, readable whatever the dates
    ys = [p[1] for p in points]
    lo, hi = math.floor(min(ys + [0.0])), math.ceil(max(ys + [0.0]))
    if hi == lo:
        hi = lo + 1
    span_x = max(1, len(xs) - 1)

    def x(i: int) -> float:
        return round(pad + (width - 2 * pad) * i / span_x, 1)

    def y(v: float) -> float:
        return round(height - pad - (height - 2 * pad) * (v - lo) / (hi - lo), 1)

    coords = [(x(i), y(v)) for i, v in zip(xs, ys, strict=True)]
    return {
        "width": width, "height": height, "pad": pad,
        "line": " ".join(f"{a},{b}" for a, b in coords), "dots": coords[-60:] if len(coords) <= 60 else [],
        "lo": lo, "hi": hi, "zero": y(0.0), "y_lo": y(lo), "y_hi": y(hi),
        "first": dt.datetime.fromtimestamp(points[0][0], dt.UTC).date().isoformat(),
        "last": dt.datetime.fromtimestamp(points[-1][0], dt.UTC).date().isoformat(),
        "start": round(ys[0], 1), "end": round(ys[-1], 1), "best": round(max(ys), 1), "games": len(points),
    }


def environment() -> jinja2.Environment:
    """The templates' environment: autoescaping on for every template, undefined names fail."""
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(_HERE / "templates"), autoescape=True,
                             undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True)
    env.filters["name"] = clean_name
    env.filters["date"] = lambda ts: dt.datetime.fromtimestamp(ts, dt.UTC).strftime("%Y-%m-%d %H:%M")
    return env


class Pages:
    """The page handlers (see :func:`make_app`)."""

    def __init__(self, ctx: WebContext) -> None:
        self.ctx = ctx
        self.env = environment()

    # ---------------------------------------------------------------- shared
    def render(self, request: web.Request, template: str, status: int = 200, **values: Any) -> web.Response:
        lang = values.pop("lang", None) or _lang(request)
        t = Translator(lang)
        other = "fr" if lang == "en" else "en"
        # the same page in the other language, on this site: an address that begins with "//"
        # would make the link another site's
        here = request.rel_url
        switch = here.with_path("/" + here.path.lstrip("/")).update_query({"lang": other})
        html = self.env.get_template(template).render(t=t, lang=lang, other=other, switch=str(switch), **values)
        return web.Response(text=html, status=status, content_type="text/html", charset="utf-8")

    def error(self, request: web.Request, status: int) -> web.Response:
        """The plain error page of ``status`` (never a trace; plain text if even that fails)."""
        t = Translator(_lang(request))
        key = f"web.error.{status}" if t.has(f"web.error.{status}") else "web.error.other"
        try:
            return self.render(request, "error.html", status=status, title=str(status), message=t(key))
        except Exception:
            log.exception("the error page failed")
            return web.Response(text=t(key), status=status, content_type="text/plain")

    async def guard(self, request: web.Request, guild_id: int) -> tuple[GuildWeb, str | None]:
        """The server's pages and the key its links carry; 404 when its pages are off or the
        key is missing or wrong for a private server."""
        gw = await guild_web(self.ctx.db, guild_id, self.ctx.defaults)
        if gw.mode == "off":
            raise web.HTTPNotFound()
        if gw.mode == "public":
            return gw, None
        key = request.query.get("k")
        if not gw.secret or not links.key_matches(gw.secret, guild_id, key):
            raise web.HTTPNotFound()
        return gw, key

    # ---------------------------------------------------------------- leaderboard
    async def leaderboard(self, request: web.Request) -> web.Response:
        guild_id = _int(request.match_info["guild"], 0)
        game = request.match_info["game"]
        _, key = await self.guard(request, guild_id)
        if game not in GAMES:
            raise web.HTTPNotFound()
        lang = _lang(request)
        t = Translator(lang)
        db = self.ctx.db
        found = await seasons(db, guild_id, game, self.ctx.clock())
        current = next((s for s in found if s.current), found[-1])
        season = _int(request.query.get("season"), current.number, 1)
        chosen = next((s for s in found if s.number == season), None)
        if chosen is None:
            raise web.HTTPNotFound()
        page = _int(request.query.get("page"), 1, 1, MAX_PAGE)
        min_games = await self.ctx.min_games_of(guild_id)
        total, rows = await access.leaderboard(db, guild_id, game, chosen, min_games, LEADERBOARD_PAGE,
                                               (page - 1) * LEADERBOARD_PAGE)
        pages = max(1, math.ceil(total / LEADERBOARD_PAGE))
        if page > pages:
            raise web.HTTPNotFound()
        names = await db.member_names(guild_id, [r.user_id for r in rows])
        entries = [{"rank": (page - 1) * LEADERBOARD_PAGE + i + 1, "name": names.get(r.user_id, str(r.user_id)),
                    "url": links.profile_url("", guild_id, r.user_id, key=key, game=game, lang=lang),
                    "played": r.played, "won": r.won, "rating": f"{r.ordinal:.1f}"} for i, r in enumerate(rows)]
        games = [{"key": g, "title": compose.game_title(g, t), "current": g == game,
                  "url": links.leaderboard_url("", guild_id, g, key=key, lang=lang)} for g in GAMES]
        season_links = [{"number": s.number, "name": s.name, "current": s.number == season,
                         "url": links.leaderboard_url("", guild_id, game, key=key, season=s.number, lang=lang)}
                        for s in found]
        here = links.leaderboard_url("", guild_id, game, key=key, season=season, lang=lang)
        return self.render(request, "leaderboard.html", lang=lang, title=t("web.lb.title", game=compose.game_title(game, t)),
                           entries=entries, games=games, seasons=season_links, many_seasons=len(found) > 1,
                           past=not chosen.current, min_games=min_games, pager=_pager(here, page, pages))

    # ---------------------------------------------------------------- profile
    async def profile(self, request: web.Request) -> web.Response:
        guild_id = _int(request.match_info["guild"], 0)
        user_id = _int(request.match_info["user"], 0)
        _, key = await self.guard(request, guild_id)
        lang = _lang(request)
        t = Translator(lang)
        db = self.ctx.db
        stats = await db.member_stats(guild_id, user_id)  # the current seasons' ratings
        now = self.ctx.clock()
        current = {g: (await seasons(db, guild_id, g, now))[-1] for g in GAMES}  # each game's current season
        for g in [g for g in stats if g in GAMES]:  # a month's season not started: nothing rated in it yet
            if not current[g].started:
                del stats[g]
        page = _int(request.query.get("page"), 1, 1, MAX_PAGE)
        total, results = await db.member_results(guild_id, user_id, None, RESULTS_PAGE, (page - 1) * RESULTS_PAGE)
        if not stats and not total:  # no game finished here: no such member
            raise web.HTTPNotFound()
        pages = max(1, math.ceil(total / RESULTS_PAGE))
        if page > pages:
            raise web.HTTPNotFound()
        game = request.query.get("game") or ""
        if stats and game not in stats:  # the game they played most this season
            game = max(stats, key=lambda g: (stats[g].played, g))
        elif not stats and game not in GAMES:  # not rated this season yet: their last game's
            game = results[0].game if results else next(iter(GAMES))
        names = await db.member_names(guild_id, [user_id])
        season = current.get(game) or (await seasons(db, guild_id, game, now))[-1]  # the plot: the table's season
        history = await self.ctx.history.of(db, guild_id, game, user_id, season.number) if season.started else []
        per_game = [{"key": g, "title": compose.game_title(g, t), "played": r.played, "won": r.won,
                     "rating": f"{r.ordinal:.1f}", "current": g == game,
                     "url": links.profile_url("", guild_id, user_id, key=key, game=g, lang=lang),
                     "board": links.leaderboard_url("", guild_id, g, key=key, lang=lang)}
                    for g, r in stats.items() if g in GAMES]
        rows = []
        for r in results:
            mine = r.seat_of(user_id)
            if mine is None:
                continue
            rows.append({"when": r.finished_at, "game": compose.game_title(r.game, t), "rank": mine.rank,
                         "players": len(r.seats), "score": mine.score,
                         "url": links.game_url("", guild_id, r.table_id, key=key, lang=lang)})
        here = links.profile_url("", guild_id, user_id, key=key, game=game, lang=lang)
        name = names.get(user_id, str(user_id))
        return self.render(request, "profile.html", lang=lang, title=t("web.profile.title", name=clean_name(name)),
                           name=name, games=per_game, results=rows, plot=_plot(history),
                           plot_game=compose.game_title(game, t), pager=_pager(here, page, pages))

    # ---------------------------------------------------------------- a finished game
    async def _finished(self, request: web.Request) -> tuple[int, str | None, Replay]:
        guild_id = _int(request.match_info["guild"], 0)
        table_id = _int(request.match_info["table"], 0)
        _, key = await self.guard(request, guild_id)
        db = self.ctx.db
        row = await db.get_table(table_id)
        if row is None or row.guild_id != guild_id or row.status in ("lobby", "abandoned"):
            raise web.HTTPNotFound()
        if row.status != "finished":
            raise web.HTTPConflict()
        try:
            replay = await self.ctx.replays.of(db, row)
        except ReplayError:
            log.warning("finished table %s does not replay", table_id, exc_info=True)
            raise web.HTTPNotFound() from None
        return guild_id, key, replay

    def _names(self, replay: Replay, t: Translator) -> tuple[str, ...]:
        """Seat names as the pages show them (:func:`clean_name` of the pictures' names)."""
        return tuple(clean_name(n) for n in compose.picture_names(TableSnapshot(replay.row, list(replay.seats)), t))

    async def game(self, request: web.Request) -> web.Response:
        guild_id, key, replay = await self._finished(request)
        lang = _lang(request)
        t = Translator(lang)
        row = replay.row
        last = replay.steps - 1
        step = _int(request.query.get("step"), last, 0, last)
        names = self._names(replay, t)
        result = await self.ctx.db.result_of(row.id)
        players = []
        for s in replay.seats:
            seat_result = next((r for r in result.seats if r.seat == s.seat), None) if result else None
            players.append({"name": names[s.seat], "rank": seat_result.rank if seat_result else None,
                            "score": GAMES[row.game].presenter.score_text(seat_result.score, t) if seat_result else "",
                            "url": links.profile_url("", guild_id, s.user_id, key=key, game=row.game, lang=lang)
                            if s.user_id is not None else None})
        players.sort(key=lambda p: (p["rank"] or 99))
        presenter = GAMES[row.game].presenter
        game = GAMES[row.game].game
        view_at = game.view_from_json(replay.views[step])
        extras = presenter.log_extras(lambda: view_at)
        shown = [e for k in range(step + 1) for e in replay.events[k]]
        lines = _log_lines(presenter, shown, t, names, extras)
        finished_at = result.finished_at if result else row.updated_at
        started = await self.ctx.db.first_action_at(row.id)  # the game's first move: the lobby's wait not counted
        minutes = max(0.0, finished_at - (started if started is not None else row.created_at)) / 60
        options = compose.options_text(row.game, row.options, t)
        sources = {s: replay.sources.count(s) for s in ("user", "ai", "timeout") if s in replay.sources}

        def at(k: int) -> str:
            return links.game_url("", guild_id, row.id, key=key, step=k, lang=lang)

        picture = f"/g/{guild_id}/t/{row.id}/{step}.png?" + "&".join(
            p for p in (f"lang={lang}", f"k={key}" if key else "") if p)
        return self.render(
            request, "game.html", lang=lang,
            title=t("web.game.title", game=compose.game_title(row.game, t), id=row.id),
            players=players, options=options, minutes=round(minutes, 1), steps=last,
            per_step=round(minutes * 60 / last, 1) if last else 0, sources=sources, finished_at=finished_at,
            rules=row.rules_version, step=step, last=last, picture=picture, lines=lines,
            first_url=at(0), prev_url=at(max(0, step - 1)), next_url=at(min(last, step + 1)), last_url=at(last),
            step_lines=_log_lines(presenter, list(replay.events[step]), t, names, extras),
        )

    async def picture(self, request: web.Request) -> web.Response:
        _, _, replay = await self._finished(request)
        step = _int(request.match_info["step"], -1, -1)
        if not 0 <= step < replay.steps:
            raise web.HTTPNotFound()
        lang = _lang(request)
        png = await self.ctx.replays.picture(replay, step, self._names(replay, Translator(lang)), lang)
        return web.Response(body=png, content_type="image/png", headers={"Cache-Control": "private, max-age=3600"})

    async def home(self, request: web.Request) -> web.Response:
        raise web.HTTPNotFound()

    async def robots(self, request: web.Request) -> web.Response:
        return web.Response(text="User-agent: *\nDisallow: /\n", content_type="text/plain")


def _pager(here: str, page: int, pages: int) -> dict[str, Any]:
    sep = "&" if "?" in here else "?"
    return {"page": page, "pages": pages,
            "prev": f"{here}{sep}page={page - 1}" if page > 1 else None,
            "next": f"{here}{sep}page={page + 1}" if page < pages else None}


def make_app(ctx: WebContext, limit: RateLimit | None = None) -> web.Application:
    """The pages' application: routes, the rate limit, the headers and the plain error pages."""
    pages = Pages(ctx)
    limit = limit or RateLimit()

    @web.middleware
    async def guarded(request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
                      ) -> web.StreamResponse:
        page = request.match_info.route.name or "other"
        status = 500
        try:
            if not limit.allow(request.remote or "?"):
                raise web.HTTPTooManyRequests(headers={"Retry-After": "30"})
            response = await handler(request)
            status = response.status
        except web.HTTPException as exc:
            status = exc.status
            if exc.status < 400:
                raise
            response = pages.error(request, exc.status)
            for name in ("Retry-After", "Allow"):  # a 429's wait, a 405's methods
                if name in exc.headers:
                    response.headers[name] = exc.headers[name]
        except Exception:
            log.exception("web page %s failed", request.path)
            response = pages.error(request, 500)
        response.headers.update(HEADERS)
        if "Cache-Control" not in response.headers:
            response.headers["Cache-Control"] = "private, no-store"
        if ctx.observe is not None:
            ctx.observe(page, status)
        return response

    app = web.Application(middlewares=[guarded])
    app.router.add_get("/", pages.home, name="home")
    app.router.add_get("/robots.txt", pages.robots, name="robots")
    app.router.add_get("/g/{guild:\\d{1,20}}/lb/{game:[a-z0-9-]{1,40}}", pages.leaderboard, name="leaderboard")
    app.router.add_get("/g/{guild:\\d{1,20}}/u/{user:\\d{1,20}}", pages.profile, name="profile")
    app.router.add_get("/g/{guild:\\d{1,20}}/t/{table:\\d{1,20}}", pages.game, name="game")
    app.router.add_get("/g/{guild:\\d{1,20}}/t/{table:\\d{1,20}}/{step:\\d{1,6}}.png", pages.picture, name="picture")
    app.router.add_static("/static/", _HERE / "static", name="static", append_version=False)
    return app


class WebServer(Listener):
    """The pages' server on ``host:port`` (:meth:`start`, :meth:`stop`)."""

    def __init__(self, ctx: WebContext, host: str, port: int, limit: RateLimit | None = None) -> None:
        self.ctx = ctx
        super().__init__(make_app(ctx, limit), host, port)
