"""The web pages without a browser (``bot/web``): pages served from real finished games on both
stores, hostile names escaped, signed and refused links, the rate limit, 404s and 409s, the
replay's pictures equal to the public boards, and the metrics after a scripted game."""

from __future__ import annotations

import asyncio
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from aiohttp.test_utils import TestClient, TestServer

from bot import compose
from bot.games import GAMES
from bot.house import House
from bot.i18n import Translator
from bot.render import render_board
from bot.table import TableSnapshot
from bot.web import links
from bot.web.access import replay_ratings
from bot.web.metrics import Metrics
from storage.factory import open_store
from tests.pictures import pixels
from tests.webgames import GUILD, Clock, play, web_context
from web.server import RateLimit, clean_name, make_app

HOSTILE = "<script>alert(1)</script>\u202eevil\u200bname"


@pytest.fixture
async def house(db_url):
    db = await open_store(db_url)
    h = House(db, clock=Clock(), seed_source=lambda: 5, ai_delay=0)
    yield h
    await h.tables.close()
    await db.close()


async def _replay_of(house, name: str) -> tuple[str, str]:
    """The page of a finished Three-Player Moon game whose first member is called ``name``,
    and its log's HTML."""
    tid = await play(house, "three-player-moon", [(1, name), (2, "Bob")], ai=1)
    client = await client_of(house.hall.db, public=True)
    try:
        page = await (await client.get(f"/g/{GUILD}/t/{tid}")).text()
    finally:
        await client.close()
    return page, re.search(r'<ol id="log">(.*?)</ol>', page, re.S)[1]


async def client_of(db, **kw) -> TestClient:
    limit = kw.pop("limit", None) or RateLimit(per_minute=100_000, burst=100_000)
    client = TestClient(TestServer(make_app(web_context(db, **kw), limit)))
    await client.start_server()
    return client


async def test_pages_of_a_finished_game_escape_names_and_replay_its_public_boards(house):
    tid = await play(house, "three-player-moon", [(1, HOSTILE), (2, "Bob")], ai=1)
    db = house.hall.db
    client = await client_of(db)
    try:
        lb = await client.get(f"/g/{GUILD}/lb/three-player-moon")
        html = await lb.text()
        assert lb.status == 200
        assert "<script>alert" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html
        assert "\u202e" not in html and "\u200b" not in html  # bidi override and zero-width dropped
        assert "<bdi>" in html
        for header, value in (("X-Robots-Tag", "noindex"), ("Content-Security-Policy", "script-src 'self'")):
            assert value in lb.headers[header]
        assert "unsafe-inline" not in lb.headers["Content-Security-Policy"]
        profile = await client.get(f"/g/{GUILD}/u/1")
        text = await profile.text()
        assert profile.status == 200 and "<svg" in text and "<polyline" in text
        assert f"/g/{GUILD}/t/{tid}" in text
        # the replay: every step's picture is the board rendered from the public view of that step
        page = await client.get(f"/g/{GUILD}/t/{tid}?step=0")
        assert page.status == 200
        last = int(re.search(r'id="last" href="[^"]*step=(\d+)', await page.text())[1])
        snap = await house.hall.table(tid)
        game = GAMES["three-player-moon"].game
        names = tuple(clean_name(n) for n in compose.picture_names(TableSnapshot(snap.row, snap.seats), Translator("en")))
        state = game.setup(snap.row.seed, 3, snap.row.options)
        log = await db.action_log(tid)
        assert last == len(log)
        private = set()
        for step in range(last + 1):
            if step:
                version, codes, _ = log[step - 1]
                applied = game.apply(state, {s: game.decode(c) for s, c in codes.items()})
                state = applied.state
                private |= {e.key for e in applied.events if e.audience is not None}
            png = await client.get(f"/g/{GUILD}/t/{tid}/{step}.png?lang=en")
            assert png.status == 200
            want = render_board("three-player-moon", game.view_json(state, None), names, "en", cache=None)
            assert pixels(await png.read()) == pixels(want), step
        final = await (await client.get(f"/g/{GUILD}/t/{tid}?lang=fr")).text()
        assert 'lang="fr"' in final and "Journal public" in final
        assert "<script" not in final.replace('<script src="/static/replay.js" defer></script>', "")
    finally:
        await client.close()


async def test_private_pages_need_the_servers_key_and_a_new_secret_refuses_old_links(house):
    tid = await play(house, "three-player-moon", [(1, "Ann"), (2, "Bob")], ai=1)
    db = house.hall.db
    client = await client_of(db, public=False, secret="one")
    try:
        key = links.guild_key("one", GUILD)
        good = links.game_url("", GUILD, tid, key=key)
        assert (await client.get(good)).status == 200
        assert (await client.get(f"/g/{GUILD}/t/{tid}")).status == 404
        assert (await client.get(links.game_url("", GUILD, tid, key=links.guild_key("one", GUILD + 1)))).status == 404
        assert (await client.get(f"/g/{GUILD}/t/{tid}", params={"k": "é"})).status == 404  # not a 500
        page = await (await client.get(links.leaderboard_url("", GUILD, "three-player-moon", key=key))).text()
        assert f"k={key}" in page  # the links between the pages carry the key
    finally:
        await client.close()
    client = await client_of(db, public=False, secret="two")  # the secret rotated
    try:
        assert (await client.get(good)).status == 404
        assert (await client.get(links.game_url("", GUILD, tid, key=links.guild_key("two", GUILD)))).status == 200
    finally:
        await client.close()


async def test_a_servers_own_web_setting_and_secret_win_over_the_defaults(house):
    tid = await play(house, "three-player-moon", [(1, "Ann"), (2, "Bob")], ai=1)
    client = await client_of(house.hall.db, public=True, secret="default")
    guilds = house.guilds
    try:
        assert (await client.get(links.game_url("", GUILD, tid))).status == 200  # never saved: the defaults
        await guilds.change(GUILD, 1, pace="relaxed")  # saved: its own web setting, off by default
        assert (await client.get(links.game_url("", GUILD, tid))).status == 404
        await guilds.change(GUILD, 1, web="private")  # a secret is made
        assert (await client.get(links.game_url("", GUILD, tid))).status == 404
        secret = (await house.hall.db.guild_settings(GUILD)).web_secret
        signed = links.game_url("", GUILD, tid, key=links.guild_key(secret, GUILD))
        assert secret and (await client.get(signed)).status == 200
        rotated = await guilds.rotate_secret(GUILD, 1)
        assert (await client.get(signed)).status == 404
        fresh = links.game_url("", GUILD, tid, key=links.guild_key(rotated.web_secret, GUILD))
        assert (await client.get(fresh)).status == 200
        await guilds.change(GUILD, 1, web="public")
        assert (await client.get(links.game_url("", GUILD, tid))).status == 200
    finally:
        await client.close()


async def test_unknown_running_and_out_of_range_pages_are_refused_plainly(house):
    running = await play(house, "three-player-moon", [(1, "Ann"), (2, "Bob")], ai=1, finish=False, steps=1)
    client = await client_of(house.hall.db)
    try:
        cases = {f"/g/{GUILD}/t/{running}": 409, f"/g/{GUILD}/t/{running}/0.png": 409, f"/g/{GUILD}/t/999": 404,
                 f"/g/{GUILD + 1}/t/{running}": 404, f"/g/{GUILD}/lb/no-such-game": 404, f"/g/{GUILD}/u/77": 404,
                 f"/g/{GUILD}/lb/three-player-moon?page=9": 404, "/": 404, "/g/x/lb/moonshine": 404,
                 f"/g/{GUILD}/lb/three-player-moon?page=9223372036854775807": 404,
                 f"/g/{GUILD}/u/1?page=9223372036854775807": 404}
        for path, status in cases.items():
            r = await client.get(path)
            body = await r.text()
            assert r.status == status, path
            assert "Traceback" not in body and "noindex" in r.headers["X-Robots-Tag"]
        assert "still being played" in await (await client.get(f"/g/{GUILD}/t/{running}")).text()
        refused = await client.post(f"/g/{GUILD}/t/{running}")
        assert refused.status == 405 and "GET" in refused.headers.get("Allow", "")
    finally:
        await client.close()


async def test_the_web_leaderboard_uses_the_servers_own_minimum_of_games(house):
    """A server that asks 5 finished games to be ranked (``/settings``) gets the same on its
    web leaderboard as on Discord's ``/leaderboard``, over the process's minimum (1 here)."""
    await play(house, "three-player-moon", [(1, "Ann"), (2, "Bob")], ai=1)
    client = await client_of(house.hall.db, public=True)
    try:
        ranked = await (await client.get(f"/g/{GUILD}/lb/three-player-moon")).text()
        await house.guilds.change(GUILD, 1, web="public", min_games=5)
        unranked = await (await client.get(f"/g/{GUILD}/lb/three-player-moon")).text()
    finally:
        await client.close()
    assert f"/g/{GUILD}/u/1" in ranked
    assert await house.records.leaderboard(GUILD, "three-player-moon") == []
    assert f"/g/{GUILD}/u/1" not in unranked


async def test_a_replay_s_log_lines_show_a_name_as_the_players_table_does(house):
    """A name with Discord's markdown characters (``*``, ``_``, a backslash) keeps them in the
    replay's log lines: the catalog's markdown is taken out, not the name's."""
    import html

    name = "**b**__u__\\_ Ann"
    page, log = await _replay_of(house, name)
    mentions = [line for line in re.findall(r"<li>(.*?)</li>", log, re.S) if "Ann" in line]
    assert mentions and all(html.escape(name, quote=False) in line for line in mentions), mentions[:2]
    assert html.escape(name, quote=False) in re.search(r"<bdi>(.*?)</bdi>", page)[1]


async def test_a_server_s_pages_stay_off_once_the_bot_leaves_and_old_keys_stay_refused(house):
    """The bot removed from a server (its settings deleted): its pages do not come back under
    the bot's defaults, whether it had turned them off, rotated its key away, or never chose."""
    tid = await play(house, "three-player-moon", [(1, "Ann"), (2, "Bob")], ai=1)
    public = await client_of(house.hall.db, public=True)
    private = await client_of(house.hall.db, public=False, secret="process")
    old = links.game_url("", GUILD, tid, key=links.guild_key("process", GUILD))
    try:
        assert (await public.get(links.game_url("", GUILD, tid))).status == 200  # never saved: public
        assert (await private.get(old)).status == 200  # never saved: the process's key
        await house.guilds.change(GUILD, 1, web="private")
        await house.guilds.rotate_secret(GUILD, 1)
        await house.guilds.change(GUILD, 1, web="off")
        assert (await public.get(links.game_url("", GUILD, tid))).status == 404
        await house.guilds.forget(GUILD)  # the bot was removed from the server
        assert (await public.get(links.game_url("", GUILD, tid))).status == 404
        assert (await private.get(old)).status == 404
        assert await house.hall.db.settings_changes(GUILD) == []  # its settings log is gone
    finally:
        await public.close()
        await private.close()


async def test_a_server_that_never_chose_sees_and_changes_the_pages_the_bot_serves_it(house):
    """A server that never saved its settings has the bot's default pages (public here): /settings
    says so, a first change of another setting keeps them, and choosing "off" turns them off."""
    from bot.guilds import Defaults

    house.guilds.defaults = Defaults(web="public")  # the bot serves public pages (WEB_PUBLIC)
    tid = await play(house, "three-player-moon", [(1, "Ann"), (2, "Bob")], ai=1)
    client = await client_of(house.hall.db, public=True)
    page = links.game_url("", GUILD, tid)
    try:
        assert (await house.guilds.community(GUILD)).web == "public"
        assert (await client.get(page)).status == 200
        await house.guilds.change(GUILD, 1, pictures=False)
        assert (await house.guilds.community(GUILD)).web == "public" and (await client.get(page)).status == 200
        await house.guilds.change(GUILD, 1, web="off")
        assert (await house.guilds.community(GUILD)).web == "off" and (await client.get(page)).status == 404
    finally:
        await client.close()


async def test_a_member_s_profile_stays_once_a_new_season_starts(house):
    """A new season (nobody rated in it yet): the member's profile still shows, with their
    earlier game; a member who never finished a game here has none."""
    tid = await play(house, "three-player-moon", [(1, "Ann"), (2, "Bob")], ai=1)
    await house.seasons.start(GUILD, ("three-player-moon",), None, 1)
    client = await client_of(house.hall.db, public=True)
    try:
        r = await client.get(f"/g/{GUILD}/u/2?game=three-player-moon")
        page = await r.text()
        assert r.status == 200 and f"/g/{GUILD}/t/{tid}" in page
        assert Translator("en")("web.profile.no_season_game") in page
        assert (await client.get(f"/g/{GUILD}/u/2")).status == 200
        assert (await client.get(f"/g/{GUILD}/u/77")).status == 404
    finally:
        await client.close()


async def test_an_error_page_s_language_link_stays_on_this_site(house):
    client = await client_of(house.hall.db)
    try:  # a raw request: an address that begins with "//" (a client library would rewrite it)
        reader, writer = await asyncio.open_connection(client.host, client.port)
        writer.write(b"GET //evil.example/x HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
        await writer.drain()
        answer = (await reader.read()).decode()
        writer.close()
    finally:
        await client.close()
    switch = re.search(r'<a class="lang" href="([^"]*)"', answer)[1]
    assert answer.startswith("HTTP/1.1 404") and switch.startswith("/") and not switch.startswith("//"), switch


async def test_the_profile_s_plot_counts_the_season_its_table_counts(house):
    for _ in range(2):
        await play(house, "three-player-moon", [(1, "Ann"), (2, "Bob")], ai=1)
    await house.seasons.start(GUILD, ("three-player-moon",), None, 1)
    client = await client_of(house.hall.db)
    try:
        empty = await (await client.get(f"/g/{GUILD}/u/1?lang=en")).text()
        await play(house, "three-player-moon", [(1, "Ann"), (2, "Bob")], ai=1)
        page = await (await client.get(f"/g/{GUILD}/u/1?lang=en")).text()
    finally:
        await client.close()
    assert "<figcaption>" not in empty  # a new season, no game in it yet: no plot of the old one
    caption = re.search(r"<figcaption>(.*?)</figcaption>", page)[1]
    assert caption.startswith("1 game:"), caption  # the season's one game (in the singular), as the table says


async def test_a_season_name_loses_its_invisible_controls_as_member_names_do(house):
    await play(house, "three-player-moon", [(1, "Ann"), (2, "Bob")], ai=1)
    await house.seasons.start(GUILD, ("three-player-moon",), "Win\u202eter\u200b", 1)
    client = await client_of(house.hall.db)
    try:
        page = await (await client.get(f"/g/{GUILD}/lb/three-player-moon")).text()
    finally:
        await client.close()
    assert "\u202e" not in page and "\u200b" not in page and "<bdi>Winter</bdi>" in page


async def test_accept_language_weights_are_read(house):
    await play(house, "three-player-moon", [(1, "Ann"), (2, "Bob")], ai=1)
    client = await client_of(house.hall.db)
    try:
        langs = [re.search(r'<html lang="(\w+)"', await (await client.get(
            f"/g/{GUILD}/lb/three-player-moon", headers={"Accept-Language": h})).text())[1]
            for h in ("en;q=0.1, fr;q=0.9", "en;q=0, fr", "fr-CA, en;q=0.5", "de, en;q=0.2", "en;q=abc, fr;q=0.3")]
    finally:
        await client.close()
    assert langs == ["fr", "fr", "fr", "en", "fr"], langs


async def test_a_game_page_names_its_options_as_the_lobby_did(house):
    from pathlib import Path

    example = json.loads((Path(__file__).parents[1] / "docs" / "decks" / "example-deck.json").read_text())
    example["name"] = "Rue & Co"
    deck_id = await house.decks.save(GUILD, "shop-battle", example["name"], example, 1)
    lobby = await house.lobbies.open(guild_id=GUILD, channel_id=10, game="shop-battle", host_user_id=1,
                                     host_name="Ann", options={"round_cap": 10, "deck": deck_id})
    await house.lobbies.add_ai(lobby.id, 1)
    await house.lobbies.start(lobby.id, 1)
    tid = await play(house, "shop-battle", [(1, "Ann")], table_id=lobby.id)
    client = await client_of(house.hall.db)
    try:
        pages = [await (await client.get(f"/g/{GUILD}/t/{tid}?lang={lang}")).text() for lang in ("en", "fr")]
    finally:
        await client.close()
    for lang, page in zip(("en", "fr"), pages, strict=True):
        t = Translator(lang)
        line = re.search(rf"<dt>{t('web.game.options')}</dt><dd>(.*?)</dd>", page)[1]
        assert "round_cap" not in line and f"deck={deck_id}" not in line, line
        assert t("sb.lobby.cap_n", n=10) in line and "Rue &amp; Co" in line, line


async def test_a_game_s_pace_does_not_count_the_lobby_s_wait(house):
    quick = await play(house, "three-player-moon", [(1, "Ann"), (2, "Bob")], ai=1)
    start = house.lobbies.start

    async def late_start(*args, **kw):  # the lobby waited two hours
        house.hall.clock.t += 2 * 3600
        return await start(*args, **kw)

    house.lobbies.start = late_start
    waited = await play(house, "three-player-moon", [(1, "Ann"), (2, "Bob")], ai=1)
    client = await client_of(house.hall.db)
    try:
        paces = [re.search(r"<dd>([0-9.]+) min, ", await (await client.get(f"/g/{GUILD}/t/{t}?lang=en")).text())[1]
                 for t in (quick, waited)]
    finally:
        await client.close()
    assert abs(float(paces[1]) - float(paces[0])) < 30, paces


async def test_an_empty_past_season_s_page_speaks_of_the_past(house):
    await house.guilds.change(GUILD, 1, web="public")
    await house.seasons.start(GUILD, ("three-player-moon",), "Winter", 1)
    client = await client_of(house.hall.db, public=True)
    try:
        page = await (await client.get(f"/g/{GUILD}/lb/three-player-moon?season=1")).text()
    finally:
        await client.close()
    en = Translator("en")
    assert en("web.lb.empty_past", min=1) in page and en("web.lb.empty", min=1) not in page
    assert en("web.lb.empty", min=1) != en("web.lb.empty", min=2).replace("2", "1")  # one game, in the singular


async def test_a_new_month_s_season_shows_on_the_pages_before_the_bot_starts_it(house):
    """Monthly seasons: once the month changes, the pages show last month's season ended (its
    standings kept) and the new month's season current with nobody ranked, as the bot will at
    its next result or leaderboard, without writing anything; then the same once it has."""
    await house.guilds.change(GUILD, 1, web="public", monthly_seasons=True)
    await play(house, "three-player-moon", [(1, "Ann"), (2, "Bob")], ai=1)  # 2023-11
    house.hall.clock.t = 1_702_000_000.0  # 2023-12-08
    client = await client_of(house.hall.db, public=True, clock=house.hall.clock.now)
    lb = f"/g/{GUILD}/lb/three-player-moon"
    try:
        before = [await (await client.get(lb)).text(), await (await client.get(f"{lb}?season=1")).text(),
                  await (await client.get(f"/g/{GUILD}/u/1?game=three-player-moon")).text()]
        assert len(await house.hall.db.seasons(GUILD, "three-player-moon")) == 1  # nothing written
        await house.records.leaderboard(GUILD, "three-player-moon")  # the bot starts the month's season
        assert [s.name for s in await house.hall.db.seasons(GUILD, "three-player-moon")] == [None, "2023-12"]
        after = [await (await client.get(lb)).text(), await (await client.get(f"{lb}?season=1")).text(),
                 await (await client.get(f"/g/{GUILD}/u/1?game=three-player-moon")).text()]
    finally:
        await client.close()
    for current, past, profile in (before, after):
        assert f"/g/{GUILD}/u/1" not in current and "2023-12" in current  # the new season: nobody ranked
        assert Translator("en")("web.lb.empty", min=1) in current
        assert re.search(rf'href="{lb}\?season=2[^"]*" aria-current="page"><bdi>2023-12</bdi><', current)
        assert f"/g/{GUILD}/u/1" in past  # last month's standings
        assert Translator("en")("web.profile.no_season_game") in profile


def test_names_keep_their_joined_emoji_flags_and_joiners_but_no_invisible_overrides():
    family, flag, persian = "👨\u200d💻", "🏴\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f", "می\u200cخواهم"
    for name in (family, flag, persian):
        assert clean_name(name) == name
    assert clean_name("a\u202eb\u200bc\u2066d\ufeff") == "abcd"


async def test_the_rate_limit_answers_429_per_client_address(house):
    now = [0.0]
    client = await client_of(house.hall.db, limit=RateLimit(per_minute=60, burst=3, clock=lambda: now[0]))
    try:
        statuses = [(await client.get("/robots.txt")).status for _ in range(4)]
        assert statuses == [200, 200, 200, 429]
        r = await client.get("/robots.txt")
        assert r.status == 429 and r.headers["Retry-After"] == "30" and "Too many requests" in await r.text()
        now[0] += 1.0  # one token a second
        assert (await client.get("/robots.txt")).status == 200
    finally:
        await client.close()
    limit = RateLimit(per_minute=60, burst=1, clock=lambda: 0.0)
    assert limit.allow("a") and not limit.allow("a") and limit.allow("b")


def test_the_rating_replay_rates_as_the_bot_does():
    from bot.ratings import Rated, ai_rating, rate
    from storage.base import ResultRow, ResultSeat

    results = [ResultRow(1, "g", 10.0, (ResultSeat(0, 1, 1, 5), ResultSeat(1, None, 2, 3, "AI", "strong"))),
               ResultRow(2, "g", 20.0, (ResultSeat(0, 2, 1, 5), ResultSeat(1, 1, 2, 1)))]
    history = replay_ratings(results)
    first = rate([Rated(1), ai_rating("strong")], [1, 2])[0]
    second = rate([Rated(2), Rated(1, *first)], [1, 2])
    assert history[1] == [(10.0, first[0] - 3 * first[1]), (20.0, second[1][0] - 3 * second[1][1])]
    assert history[2] == [(20.0, second[0][0] - 3 * second[0][1])]


async def test_metrics_count_a_scripted_games_clicks_and_steps(house):
    metrics = Metrics()
    metrics.instrument(house.tables)
    metrics.watch(house.hall.running, lambda: house.tables.driver.pool.waiting, lambda: 0)
    tid = await play(house, "three-player-moon", [(1, "Ann"), (2, "Bob")], ai=1)
    log = await house.hall.db.action_log(tid)
    by_source = {s: sum(1 for _, _, src in log if src == s) for s in ("user", "ai")}
    text = metrics.text().decode()

    def value(name: str) -> float:
        found = re.search(rf"^{re.escape(name)} (\S+)$", text, re.M)
        assert found, name
        return float(found[1])

    assert value('speakeasy_steps_total{source="user"}') == by_source["user"]
    assert value('speakeasy_steps_total{source="ai"}') == by_source["ai"]
    assert value('speakeasy_clicks_total{result="applied"}') == by_source["user"]
    assert value("speakeasy_click_seconds_count") == by_source["user"]
    assert value("speakeasy_step_seconds_count") == len(log)
    assert value("speakeasy_tables_live") == 0  # finished
    for name in ("speakeasy_ai_queue_depth", "speakeasy_picture_queue_depth"):
        assert value(name) == 0
    metrics.rest_error(429)
    metrics.rest_error(500)
    text = metrics.text().decode()
    assert value("speakeasy_discord_rate_limited_total") == 1
    assert value('speakeasy_discord_rest_errors_total{status="500"}') == 1


async def test_the_stores_page_reads_are_bounded_and_ordered(house):
    db = house.hall.db
    first = await play(house, "three-player-moon", [(1, "Ann"), (2, "Bob")], ai=1)
    second = await play(house, "three-player-moon", [(1, "Annie"), (3, "Cy")], ai=1)
    total, page = await db.member_results(GUILD, 1, None, 1, 0)
    assert total == 2 and [r.table_id for r in page] == [second]  # newest first, one a page
    total, page = await db.member_results(GUILD, 1, None, 1, 1)
    assert [r.table_id for r in page] == [first]
    result = page[0]
    assert [s.seat for s in result.seats] == [0, 1, 2] and result.seat_of(1).name == "Ann"
    assert result.seats[2].user_id is None and result.seats[2].ai_level in (None, "normal")
    assert await db.member_results(GUILD + 1, 1, None, 5, 0) == (0, [])
    assert (await db.member_results(GUILD, 1, "moonshine", 5, 0))[0] == 0
    assert await db.member_names(GUILD, [1, 3, 99]) == {1: "Annie", 3: "Cy"}  # the latest name
    count, rows = await db.leaderboard_page(GUILD, "three-player-moon", 1, 2, 1)
    assert count == 3 and len(rows) == 2
    assert await db.results_mark(GUILD, "three-player-moon") == (2, second)
    assert [r.table_id for r in await db.guild_results(GUILD, "three-player-moon")] == [first, second]
    assert (await db.result_of(first)).table_id == first and await db.result_of(999) is None


def test_the_web_benchmark_seeds_a_store_of_the_current_schema_and_times_every_page(tmp_path) -> None:
    """``python -m bench.web --seed-games`` as a subprocess: the seed copies recorded games into
    a store migrated to the current schema, and every page it times answered (a row each)."""
    root = Path(__file__).resolve().parents[1]
    proc = subprocess.run([sys.executable, "-m", "bench.web", "--seed-games", "24", "--db", str(tmp_path / "w.db"),
                           "--requests", "2"], cwd=root, env={**os.environ, "PYTHONPATH": str(root)},
                          capture_output=True, text=True, timeout=600)  # a smoke test: no limit but a hang
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "'game_tables': 24" in proc.stdout
    for page in ("leaderboard", "profile cold", "profile", "game page", "game page again", "replay step cold",
                 "replay step"):
        assert re.search(rf"^{page} +2 ", proc.stdout, flags=re.MULTILINE), (page, proc.stdout)


async def test_a_new_link_secret_keeps_the_default_pages_of_a_server_that_never_chose(house):
    """A server that never saved its settings has the bot's default pages (private here);
    "new link secret" keeps them, under the new secret."""
    from bot.guilds import Defaults
    from bot.web.access import WebDefaults, link_key

    house.guilds.defaults = Defaults(web="private")
    defaults = WebDefaults(public=False, secret="process")
    assert (await house.guilds.community(GUILD)).web == "private"
    before = await link_key(house.hall.db, GUILD, defaults)
    await house.guilds.rotate_secret(GUILD, 1)
    after = await link_key(house.hall.db, GUILD, defaults)
    assert (await house.guilds.community(GUILD)).web == "private"
    assert before[0] and after[0] and after[1] != before[1]  # pages on, under a key of its own


async def test_a_replay_s_log_shows_each_player_under_their_own_name_whatever_it_holds(house):
    """A name made of the characters that stand for another seat's name while a line is
    written: its moves stay its own."""
    _, log = await _replay_of(house, "\ue0001\ue001")
    assert "\ue0001\ue001" in log
