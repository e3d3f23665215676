"""The web pages in a real browser: Debian's Chromium driven by Playwright (``executable_path``;
no browser download). ``scripts/test.sh`` installs Chromium (``scripts/_browser.sh``) and
passes its path in ``SPEAKEASY_CHROMIUM``; without one these tests are skipped with one line
(they fail instead when ``CI`` is set).

One finished Three-Player Moon table (hidden hands) is opened page by page: the replay is
stepped with the arrow keys and each step's picture compared with the board rendered from the
public view at that step, the page's text checked for every private event's text, private links
checked with and without their key, and axe-core run on each page (no serious or critical
violation). ``SPEAKEASY_SCREENSHOTS=1`` also writes the README's screenshots to docs/images/."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from bot import compose
from bot.games import GAMES
from bot.house import House
from bot.i18n import Translator
from bot.presenters import RenderContext
from bot.render import render_board
from bot.table import TableSnapshot
from bot.web import links
from storage.factory import open_store
from tests.pictures import pixels
from tests.webgames import GUILD, Clock, play, web_context
from web.server import RateLimit, WebServer, clean_name

DOCS = Path(__file__).parent.parent / "docs" / "images"


def chromium() -> str:
    found = os.environ.get("SPEAKEASY_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
    if not found:
        message = "no Chromium for the browser tests (scripts/test.sh installs Debian's chromium)"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return found


@pytest.fixture
async def site(tmp_path):
    path = chromium()
    from playwright.async_api import async_playwright

    db = await open_store(str(tmp_path / "web.db"))
    house = House(db, clock=Clock(), seed_source=lambda: 5, ai_delay=0)
    tid = await play(house, "three-player-moon", [(1, "Ann"), (2, "Bob <b>")], ai=1)
    await play(house, "three-player-moon", [(2, "Bob <b>"), (1, "Ann")], ai=1)
    public = WebServer(web_context(db), "127.0.0.1", 0, RateLimit(100_000, 100_000))
    private = WebServer(web_context(db, public=False, secret="s"), "127.0.0.1", 0, RateLimit(100_000, 100_000))
    await public.start()
    await private.start()
    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=path, args=["--no-sandbox"])
        page = await browser.new_page(viewport={"width": 420, "height": 900}, locale="en-US")
        try:
            yield page, house, tid, f"http://127.0.0.1:{public.port}", f"http://127.0.0.1:{private.port}"
        finally:
            await browser.close()
            await public.stop()
            await private.stop()
            await house.tables.close()
            await db.close()


async def no_serious_violation(page) -> None:
    from axe_playwright_python.async_playwright import Axe

    results = await Axe().run(page)
    bad = [v["id"] for v in results.response["violations"] if v.get("impact") in ("serious", "critical")]
    assert not bad, bad


async def test_pages_replay_and_accessibility_in_chromium(site):
    page, house, tid, base, private_base = site
    shots = os.environ.get("SPEAKEASY_SCREENSHOTS") == "1"
    await page.goto(f"{base}/g/{GUILD}/lb/three-player-moon")
    assert "Leaderboard" in await page.title()
    assert await page.locator("table.board tbody tr").count() == 2
    await no_serious_violation(page)
    if shots:
        await page.screenshot(path=str(DOCS / "web-leaderboard.jpg"), type="jpeg", quality=70)
    await page.click("text=Ann")
    assert await page.locator("svg.plot polyline").count() == 1
    await no_serious_violation(page)

    # the replay, stepped with the keys, equals the public boards step by step
    snap = await house.hall.table(tid)
    game = GAMES["three-player-moon"].game
    presenter = GAMES["three-player-moon"].presenter
    t = Translator("en")
    names = tuple(clean_name(n) for n in compose.picture_names(TableSnapshot(snap.row, snap.seats), t))
    ctx = RenderContext(t=t, names=names)
    log = await house.hall.db.action_log(tid)
    state = game.setup(snap.row.seed, 3, snap.row.options)
    states, secrets = [state], set()
    for _, codes, _ in log:
        step = game.apply(state, {s: game.decode(c) for s, c in codes.items()})
        state = step.state
        states.append(state)
        secrets |= {presenter.event(e, ctx).replace("**", "") for e in step.events if e.audience is not None}
    await page.goto(f"{base}/g/{GUILD}/t/{tid}?step=0&lang=en")
    await no_serious_violation(page)

    async def check(step: int) -> None:
        assert f"Step {step} of {len(log)}" in await page.locator("#step").inner_text()
        src = await page.locator("#board").get_attribute("src")
        shown = await (await page.request.get(base + src)).body()
        assert pixels(shown) == pixels(render_board("three-player-moon", game.view_json(states[step], None), names, "en",
                                                    cache=None))
        text = await page.locator("main").inner_text()
        leaked = [s for s in secrets if s in text]
        assert not leaked, leaked
        assert await page.evaluate("document.getElementById('board').naturalWidth") > 0

    await check(0)
    for step in range(1, 5):
        async with page.expect_navigation():
            await page.keyboard.press("ArrowRight")
        await check(step)
    async with page.expect_navigation():
        await page.keyboard.press("ArrowLeft")
    await check(3)
    async with page.expect_navigation():
        await page.keyboard.press("End")
    await check(len(log))
    if shots:
        await page.goto(f"{base}/g/{GUILD}/t/{tid}?step=12&lang=en")
        await page.set_viewport_size({"width": 820, "height": 1100})
        await page.screenshot(path=str(DOCS / "web-replay.jpg"), type="jpeg", quality=70)

    # private pages: with the key the page opens (and its links carry it), without it a plain 404
    key = links.guild_key("s", GUILD)
    await page.goto(private_base + links.leaderboard_url("", GUILD, "three-player-moon", key=key, lang="fr"))
    assert "Classement" in await page.title()
    href = await page.locator("table.board a").first.get_attribute("href")
    assert f"k={key}" in href
    response = await page.goto(private_base + links.leaderboard_url("", GUILD, "three-player-moon"))
    assert response.status == 404 and "no such page" in await page.locator("main").inner_text()
    await no_serious_violation(page)
