"""What a member sees, as pictures: the world's messages as a Discord-like page, screenshotted.

simcord's Preview serves a channel (or thread) of the world as a Discord-like HTML page on
loopback (its messages, V2 containers, media galleries, buttons, the ephemeral messages the
viewer may see) and captures it with Playwright. The browser is the system's Chromium
(``CHROMIUM``, default ``/usr/bin/chromium``, installed by ``scripts/_browser.sh``), driven
through ``executable_path``: Playwright never downloads a browser here.

``browser_problem()`` says why no screenshot can be taken (``None`` when one can).
"""

from __future__ import annotations

import importlib.util
import os
import shutil
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .journal import Msg
    from .world import DiscordWorld, Member


def chromium() -> str | None:
    """The system Chromium's path (``$CHROMIUM``, else ``chromium`` on PATH), or ``None``."""
    wanted = os.environ.get("CHROMIUM")
    if wanted:
        return wanted if Path(wanted).is_file() else None
    return shutil.which("chromium") or shutil.which("chromium-browser")


def browser_problem() -> str | None:
    """Why screenshots cannot be taken here (``None`` when they can)."""
    if importlib.util.find_spec("playwright") is None:
        return "Playwright is not installed (pip install -e '.[test]')"
    if chromium() is None:
        return "no Chromium (apt-get install chromium, or set CHROMIUM)"
    return None


def _use_system_chromium() -> None:
    """simcord launches Playwright's own browser build; launch the system Chromium instead."""
    from simcord.preview._capture import ManagedCapture

    if getattr(ManagedCapture, "_speakeasy_system_chromium", False):
        return

    async def ensure_browser(self: Any) -> Any:
        if self._browser is None:
            from playwright.async_api import async_playwright

            self._playwright = await async_playwright().start()
            self._browser = await self._playwright.chromium.launch(executable_path=chromium())
        return self._browser

    ManagedCapture._ensure_browser = ensure_browser  # type: ignore[method-assign]
    ManagedCapture._speakeasy_system_chromium = True  # type: ignore[attr-defined]


async def screenshot(world: DiscordWorld, viewer: Member, message: Msg, path: Path, *,
                     size: tuple[int, int] = (760, 900), layout: str = "channel") -> Path:
    """Write a PNG of ``message`` as ``viewer`` sees it in its channel or thread (``layout``:
    ``"channel"`` shows the history around it, ``"message"`` the message alone), ``size`` the
    page's width and height in CSS pixels. ``RuntimeError`` when no browser can be used."""
    problem = browser_problem()
    if problem:
        raise RuntimeError(problem)
    _use_system_chromium()
    from simcord.builders import ChannelHandle

    env = world._env
    channel = env.backend.channels[message.channel_id]
    guild = next(h for h in [world._guild, *world._extra_guilds] if h.id == channel.guild_id)
    handle = ChannelHandle(env, guild, channel)
    actor = viewer._actor
    async with env.preview(handle, viewers=[actor], layout=layout, display="fixed", width=size[0],
                           height=size[1]) as view:
        await view.screenshot(path, viewer=actor, target=message.id, mode="viewport", allow_incomplete=True)
    return path
