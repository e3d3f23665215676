"""The web pages served by a running bot (``WEB_PORT``, ``METRICS_PORT``): the link buttons of
``/leaderboard``, ``/stats`` and a finished table's standings lead to its pages, signed with the
server's key, and ``/healthz`` and ``/metrics`` answer."""

from __future__ import annotations

import asyncio
import json
import random
import urllib.error
import urllib.request

from bot.web import links
from tests.e2e import open_table, take_turn

BASE = "https://games.example.org"


async def fetch(url: str) -> tuple[int, str]:
    """GET ``url`` on this machine (urllib in a thread: the harness refuses aiohttp's client)."""
    def get() -> tuple[int, str]:
        try:
            with urllib.request.urlopen(url, timeout=10) as r:
                return r.status, r.read().decode()
        except urllib.error.HTTPError as err:
            return err.code, err.read().decode()

    return await asyncio.to_thread(get)


async def test_link_buttons_lead_to_the_bots_own_pages_and_the_operators_endpoints_answer(e2e):
    world = await e2e(web_port=0, web_host="127.0.0.1", web_base_url=BASE, web_secret="sek", metrics_port=0)
    bot = world.bot
    guild = world.guild_id
    key = links.guild_key("sek", guild)
    ann, bob = world.member("Ann"), world.member("Bob")
    table = await open_table(world, ann, "three-player-moon", members=[bob], ai=1)
    rng = random.Random(3)
    for _ in range(400):
        if (await bot.hall.table(table)).row.status != "running":
            break
        for m in (ann, bob):
            await take_turn(world, m, table, rng)
        await bot.tables.idle()
        await world.settle()
    assert (await bot.hall.table(table)).row.status == "finished"
    await world.settle()
    replay = [b.url for m in world.messages for b in m.buttons if b.url]
    assert links.game_url(BASE, guild, table, key=key, lang="en") in replay

    res = await world.slash(ann, "leaderboard", game="three-player-moon")
    [board] = [b.url for b in res.response.buttons if b.url]
    assert board == links.leaderboard_url(BASE, guild, "three-player-moon", key=key, lang="en")
    await bot.seasons.start(guild, ("three-player-moon",), "Winter", ann.id)
    res = await world.slash(ann, "leaderboard", game="three-player-moon", season="#1")  # a past season: its page
    assert [b.url for b in res.response.buttons if b.url] == [
        links.leaderboard_url(BASE, guild, "three-player-moon", key=key, season=1, lang="en")]
    res = await world.slash(bob, "stats")
    [stats] = [b.url for b in res.response.buttons if b.url]
    assert stats == links.profile_url(BASE, guild, bob.id, key=key, lang="en")

    web = f"http://127.0.0.1:{bot.web.port}"
    ops = f"http://127.0.0.1:{bot.metrics_server.port}"
    for url in (board, stats, links.game_url(BASE, guild, table, key=key, lang="en")):
        assert (await fetch(web + url.removeprefix(BASE)))[0] == 200, url
    assert (await fetch(web + links.game_url("", guild, table)))[0] == 404  # without the key
    status, body = await fetch(ops + "/healthz")
    health = json.loads(body)
    assert health["store"] is True and health["accepting"] is True
    _, text = await fetch(ops + "/metrics")
    assert "speakeasy_tables_live 0.0" in text
    assert 'speakeasy_web_requests_total{page="game",status="404"} 1.0' in text
    assert 'speakeasy_clicks_total{result="applied"}' in text
