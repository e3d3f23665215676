"""Small, reversible patches the harness adds on top of simcord 3.2.1.

Installed while at least one ``DiscordWorld`` is open, removed when the last closes.

1. **Yield on every HTTP call.** simcord answers REST and webhook calls synchronously
   inside the coroutine, so two handlers never interleave. Real Discord answers later.
   We ``await asyncio.sleep(0)`` before and after each call (REST, interaction
   webhooks, CDN downloads), so concurrent handlers interleave at every HTTP
   boundary, as they do in production.
2. **Locales.** simcord hard-codes ``locale`` and ``guild_locale`` = "en-US" in every
   INTERACTION_CREATE. We rewrite them: ``locale`` = the member's locale
   (``world.member(..., locale="fr")``), ``guild_locale`` = the guild's preferred locale.
3. **Attach Files, and a record of uploads.** simcord stores uploaded files but never checks
   the Attach Files permission when the bot posts or edits a channel message with files;
   Discord answers 403 (50013 Missing Permissions). We check it, and record every uploaded
   file (``world.uploads``: method, path, filename) so tests can count uploads.
4. **Network tripwire.** The real discord.py transports (``HTTPClient.request``,
   ``AsyncWebhookAdapter.request``, ``HTTPClient.get_from_cdn``) and aiohttp's
   ``ClientSession._request`` raise if anything reaches them. simcord's fakes override
   those methods in subclasses, so only a leak to the real network trips the wire.
"""

from __future__ import annotations

import asyncio
import re
import weakref
from dataclasses import dataclass
from typing import Any

import aiohttp
import discord.http
import discord.webhook.async_
import simcord.http.router as sc_router
import simcord.interactions as sc_interactions
from simcord.backend import errors as sc_errors
from simcord.backend import permissions as sc_permissions
from simcord.http.client import FakeHTTPClient, FakeWebhookAdapter


class NetworkAccessAttempted(RuntimeError):
    """Something tried to reach the real network while a DiscordWorld was open."""


# backend object -> world (for locale lookups); weak so dead worlds vanish.
_WORLDS: weakref.WeakValueDictionary[int, Any] = weakref.WeakValueDictionary()
_installed = 0
_saved: list[tuple[Any, str, Any]] = []


@dataclass(frozen=True)
class Upload:
    """One file the bot uploaded: the request (``method``, ``path``) and the file's name."""

    method: str
    path: str
    filename: str


_CHANNEL_MESSAGE = re.compile(r"/channels/(?P<channel>[0-9]+)/messages(/[0-9]+)?")


def register_world(backend: Any, world: Any) -> None:
    _WORLDS[id(backend)] = world


def unregister_world(backend: Any) -> None:
    _WORLDS.pop(id(backend), None)


def _set(owner: Any, name: str, value: Any) -> None:
    _saved.append((owner, name, owner.__dict__[name]))
    setattr(owner, name, value)


def install() -> None:
    global _installed
    _installed += 1
    if _installed > 1:
        return

    # 1. yields around every fake HTTP call
    fake_request = FakeHTTPClient.request
    fake_cdn = FakeHTTPClient.get_from_cdn
    fake_webhook = FakeWebhookAdapter.request

    async def request(self: Any, *args: Any, **kwargs: Any) -> Any:
        await asyncio.sleep(0)
        result = await fake_request(self, *args, **kwargs)
        await asyncio.sleep(0)
        return result

    async def get_from_cdn(self: Any, url: str) -> bytes:
        await asyncio.sleep(0)
        result = await fake_cdn(self, url)
        await asyncio.sleep(0)
        return result

    async def webhook_request(self: Any, *args: Any, **kwargs: Any) -> Any:
        await asyncio.sleep(0)
        result = await fake_webhook(self, *args, **kwargs)
        await asyncio.sleep(0)
        return result

    _set(FakeHTTPClient, "request", request)
    _set(FakeHTTPClient, "get_from_cdn", get_from_cdn)
    _set(FakeWebhookAdapter, "request", webhook_request)

    # 2. locales in INTERACTION_CREATE
    base_payload = sc_interactions.base_payload

    def localized_base_payload(backend: Any, **kwargs: Any) -> Any:
        record, payload = base_payload(backend, **kwargs)
        world = _WORLDS.get(id(backend))
        if world is not None:
            payload["locale"] = world._locale_of(int(kwargs["user_id"]))
            guild_id = kwargs.get("guild_id")
            if guild_id is not None:
                payload["guild_locale"] = backend.get_guild(guild_id).preferred_locale
        return record, payload

    _saved.append((sc_interactions, "base_payload", base_payload))
    sc_interactions.base_payload = localized_base_payload

    # 3. Attach Files on channel messages with files; a record of every upload
    dispatch = sc_router.dispatch

    def checked_dispatch(backend: Any, method: str, path: str, *args: Any, **kwargs: Any) -> Any:
        files = list(kwargs.get("files") or [])
        world = _WORLDS.get(id(backend))
        if files:
            m = _CHANNEL_MESSAGE.fullmatch(path)
            if m and method in ("POST", "PATCH"):
                channel = backend.channels.get(int(m["channel"]))
                if channel is not None and channel.guild_id is not None:
                    perms = backend.compute_permissions(channel.guild_id, backend.bot_user.id, channel.id)
                    if not perms & sc_permissions.flag("attach_files"):
                        backend.http_requests.append(sc_router.HttpLogEntry(method, path, {}, None, None))
                        raise sc_errors.missing_permissions()
        result = dispatch(backend, method, path, *args, **kwargs)
        if world is not None:
            world._uploads.extend(Upload(method, path, str(getattr(f, "filename", "?"))) for f in files)
        return result

    _saved.append((sc_router, "dispatch", dispatch))
    sc_router.dispatch = checked_dispatch

    # 4. network tripwire on the *real* transports
    def tripwire(what: str) -> Any:
        async def refuse(*_args: Any, **_kwargs: Any) -> Any:
            raise NetworkAccessAttempted(
                f"{what} was called: a real network request escaped the test harness"
            )

        return refuse

    _set(discord.http.HTTPClient, "request", tripwire("discord.http.HTTPClient.request"))
    _set(discord.http.HTTPClient, "get_from_cdn", tripwire("discord.http.HTTPClient.get_from_cdn"))
    _set(
        discord.webhook.async_.AsyncWebhookAdapter,
        "request",
        tripwire("discord.webhook.async_.AsyncWebhookAdapter.request"),
    )
    _set(aiohttp.ClientSession, "_request", tripwire("aiohttp.ClientSession._request"))


def uninstall() -> None:
    global _installed
    if _installed == 0:
        return
    _installed -= 1
    if _installed:
        return
    while _saved:
        owner, name, value = _saved.pop()
        setattr(owner, name, value)
