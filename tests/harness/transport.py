"""A light in-memory fake of Discord's HTTP and webhook seams, for benchmarks and the soak test.

The bot under test is real discord.py: :meth:`FakeDiscord.install` replaces only the two
transports at the bottom of it, ``client.http.request`` (REST: channel messages, threads,
command sync, application info) and the interaction webhook adapter (interaction callbacks,
followups, ``@original`` edits), and gateway events are fed to discord.py's own parsers
(:meth:`FakeDiscord.feed`), exactly where a received websocket frame would land. Everything in
between (``Interaction`` parsing, the ``CommandTree``, the view store, ``DynamicItem`` matching,
``InteractionResponse``, ``Webhook``, ``Message`` construction) runs unmodified.

Unlike the journaled world of this harness (:class:`tests.harness.DiscordWorld`, simcord),
nothing is validated or journaled: each call is counted by route, answered with plausible JSON
built from the request body (new snowflakes, the bot as author), and handed to whoever waits for
it (:meth:`FakeDiscord.expect`). Each call yields to the event loop once, as a real socket round trip would (a handler never runs to its
end without letting other tasks in), and costs a few microseconds otherwise.

Usage::

    fake = FakeDiscord()
    bot = SpeakeasyBot(settings)
    fake.install(bot)                       # before login
    await bot.login("fake")                 # static_login + application_info are answered here
    fake.connect(bot, guilds=[fake.guild(gid, [channel_id])])   # READY + GUILD_CREATE
    reply = fake.expect_webhook(token)      # a future: the next call on this interaction
    fake.feed(bot, "INTERACTION_CREATE", fake.button_click(...))
    sent = await reply                      # Sent(at=perf_counter(), method, path, json)
"""

from __future__ import annotations

import asyncio
import itertools
import json
import re
import time
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import discord
from discord.webhook.async_ import async_context

__all__ = ["FakeDiscord", "FakeWebhookAdapter", "Sent"]

#: Discord's epoch (2015-01-01) in milliseconds, for snowflakes whose time part is plausible.
_DISCORD_EPOCH_MS = 1420070400000
_API = "/api/v10"
_MESSAGE_ROUTE = re.compile(r"/channels/(\d+)/messages/(\d+)$")
_EPHEMERAL = 64


@dataclass(frozen=True, slots=True)
class Sent:
    """One call the bot made: when (``time.perf_counter()``), ``method``, the route template
    (``"/channels/{channel_id}/messages/{message_id}"``) and the JSON body (or ``None``)."""

    at: float
    method: str
    route: str
    json: Any


def _body(payload: Any, multipart: Any, form: Any) -> Any:
    """The JSON body of a request: ``payload``/``json``, or the ``payload_json`` form part."""
    if payload is not None:
        return payload
    for part in multipart or form or ():
        if isinstance(part, dict) and part.get("name") == "payload_json":
            value = part.get("value")
            return json.loads(value) if isinstance(value, (str, bytes)) else value
    return None


class FakeWebhookAdapter:
    """Stands in for ``discord.webhook.async_.AsyncWebhookAdapter``: discord.py's own helper
    methods (``create_interaction_response``, ``execute_webhook``, ...) run unchanged and end in
    :meth:`request`, which the :class:`FakeDiscord` answers."""

    def __init__(self, fake: FakeDiscord) -> None:
        self._fake = fake

    def __getattr__(self, name: str) -> Any:
        helper = getattr(discord.webhook.async_.AsyncWebhookAdapter, name)
        return helper.__get__(self, type(self))

    async def request(self, route: discord.http.Route, session: Any = None, *, payload: Any = None,
                      multipart: Any = None, files: Any = None, params: Any = None, **_: Any) -> Any:
        """Answer one webhook call (interaction callback, followup, ``@original`` edit)."""
        await asyncio.sleep(0)
        return self._fake._metered(route, payload, multipart, None, params, webhook=True)


class FakeDiscord:
    """One fake Discord for one or more bot instances (see the module docstring).

    Attributes:
        application_id / bot_user_id: the bot's snowflakes (login answers with them).
        calls: ``Counter`` of ``"METHOD /route/template"`` over every call answered.
        cpu_s: CPU seconds the fake spent answering calls (in the bot's process and thread: a
            benchmark takes it off the bot's CPU time, as Discord's own work is not the bot's).
    """

    def __init__(self, *, application_id: int = 900_000_000_000_000_001, bot_user_id: int | None = None) -> None:
        self.application_id = application_id
        self.bot_user_id = bot_user_id or application_id
        self.calls: Counter[str] = Counter()
        self.cpu_s = 0.0
        #: When (``time.perf_counter()``) each channel's messages were edited, by channel id.
        self.channel_edits: dict[int, list[float]] = {}
        self._seq = itertools.count(1)
        self._waiters: dict[tuple[Any, ...], list[tuple[Callable[[Sent], bool] | None, asyncio.Future[Sent]]]] = {}
        self._adapter = FakeWebhookAdapter(self)

    # ------------------------------------------------------------------ ids and small payloads
    def snowflake(self) -> int:
        """A new snowflake (current time in its high bits, increasing)."""
        ms = int(time.time() * 1000) - _DISCORD_EPOCH_MS
        return (ms << 22) | (next(self._seq) & 0x3FFFFF)

    def user(self, user_id: int, name: str | None = None, *, bot: bool = False) -> dict[str, Any]:
        """A user object."""
        name = name or f"member{user_id % 100000}"
        return {"id": str(user_id), "username": name, "discriminator": "0", "global_name": name,
                "avatar": None, "bot": bot, "system": False, "public_flags": 0, "flags": 0}

    def bot_user(self) -> dict[str, Any]:
        """The bot's own user object."""
        return self.user(self.bot_user_id, "Speakeasy", bot=True)

    def member(self, user_id: int, name: str | None = None, permissions: int = 0) -> dict[str, Any]:
        """A guild member object (with its user and, as in interactions, its permissions)."""
        return {"user": self.user(user_id, name), "roles": [], "nick": None, "avatar": None,
                "joined_at": "2024-01-01T00:00:00+00:00", "premium_since": None, "deaf": False, "mute": False,
                "pending": False, "flags": 0, "communication_disabled_until": None,
                "permissions": str(permissions)}

    def text_channel(self, channel_id: int, guild_id: int, name: str = "games") -> dict[str, Any]:
        """A guild text channel object."""
        return {"id": str(channel_id), "type": 0, "guild_id": str(guild_id), "name": name, "position": 0,
                "permission_overwrites": [], "parent_id": None, "topic": None, "nsfw": False,
                "rate_limit_per_user": 0, "last_message_id": None}

    def thread(self, thread_id: int, guild_id: int, parent_id: int, name: str = "table") -> dict[str, Any]:
        """A public thread object."""
        return {"id": str(thread_id), "type": 11, "guild_id": str(guild_id), "name": name[:100],
                "parent_id": str(parent_id), "owner_id": str(self.bot_user_id), "last_message_id": None,
                "rate_limit_per_user": 0, "message_count": 0, "member_count": 1, "total_message_sent": 0,
                "applied_tags": [], "flags": 0,
                "thread_metadata": {"archived": False, "auto_archive_duration": 1440, "locked": False,
                                    "archive_timestamp": "2024-01-01T00:00:00+00:00", "invitable": True,
                                    "create_timestamp": "2024-01-01T00:00:00+00:00"}}

    def guild(self, guild_id: int, channel_ids: Iterable[int], *, locale: str = "en-US",
              name: str = "Bench guild") -> dict[str, Any]:
        """A GUILD_CREATE payload: one role (@everyone, usual member permissions), the text
        channels ``channel_ids``, the bot as the only member listed."""
        everyone = {"id": str(guild_id), "name": "@everyone", "permissions": str(discord.Permissions.general().value
                    | discord.Permissions.text().value), "position": 0, "color": 0, "hoist": False,
                    "managed": False, "mentionable": False, "flags": 0, "icon": None, "unicode_emoji": None}
        bot_member = self.member(self.bot_user_id)
        bot_member["user"] = self.bot_user()
        bot_member.pop("permissions")
        return {"id": str(guild_id), "name": name, "icon": None, "splash": None, "discovery_splash": None,
                "owner_id": "1", "afk_channel_id": None, "afk_timeout": 300, "verification_level": 0,
                "default_message_notifications": 0, "explicit_content_filter": 0, "roles": [everyone],
                "emojis": [], "stickers": [], "features": [], "mfa_level": 0, "application_id": None,
                "system_channel_id": None, "system_channel_flags": 0, "rules_channel_id": None,
                "vanity_url_code": None, "description": None, "banner": None, "premium_tier": 0,
                "preferred_locale": locale, "public_updates_channel_id": None, "nsfw_level": 0,
                "premium_progress_bar_enabled": False, "unavailable": False, "large": False,
                "member_count": 1, "joined_at": "2024-01-01T00:00:00+00:00",
                "channels": [self.text_channel(c, guild_id) for c in channel_ids], "threads": [],
                "members": [bot_member], "voice_states": [], "presences": [], "stage_instances": [],
                "guild_scheduled_events": [], "soundboard_sounds": []}

    def message(self, channel_id: int, body: Any, *, message_id: int | None = None,
                flags: int | None = None, interaction_user: int | None = None) -> dict[str, Any]:
        """A message object as Discord returns it for a message the bot sent or edited: the
        request's content, embeds and components, the bot as author."""
        body = body if isinstance(body, dict) else {}
        now = datetime.now(UTC).isoformat()
        return {"id": str(message_id or self.snowflake()), "channel_id": str(channel_id), "author": self.bot_user(),
                "content": body.get("content") or "", "timestamp": now, "edited_timestamp": None, "tts": False,
                "mention_everyone": False, "mentions": [], "mention_roles": [], "attachments": [],
                "embeds": body.get("embeds") or [], "components": body.get("components") or [],
                "pinned": False, "type": 0 if interaction_user is None else 19,
                "flags": body.get("flags", 0) if flags is None else flags,
                "application_id": str(self.application_id), "sticker_items": [], "reactions": []}

    # ------------------------------------------------------------------ installing
    def install(self, client: discord.Client) -> None:
        """Route ``client``'s REST calls and every interaction webhook call of the current
        context (tasks created from it inherit it) to this fake. Call before ``login``."""
        http = client.http
        http.request = self._http_request  # type: ignore[method-assign]
        http.static_login = self._static_login  # type: ignore[method-assign,assignment]
        http.get_from_cdn = self._cdn  # type: ignore[method-assign]
        http._HTTPClient__session = None  # type: ignore[attr-defined]  # what interactions hand the adapter
        async_context.set(self._adapter)  # type: ignore[arg-type]

    def connect(self, client: discord.Client, guilds: list[dict[str, Any]]) -> None:
        """Feed READY (no guild waits: ``guild_ready_timeout`` 0) and one GUILD_CREATE per guild."""
        state = client._connection
        state.guild_ready_timeout = 0
        self.feed(client, "READY", {
            "v": 10, "user": self.bot_user(), "guilds": [{"id": g["id"], "unavailable": True} for g in guilds],
            "session_id": "bench", "resume_gateway_url": "wss://gateway.invalid", "private_channels": [],
            "shard": [0, 1],  # the bot is an AutoShardedBot (one shard here)
            "relationships": [], "application": {"id": str(self.application_id), "flags": 0}})
        for g in guilds:
            self.feed(client, "GUILD_CREATE", g)

    @staticmethod
    def feed(client: discord.Client, event: str, payload: dict[str, Any]) -> None:
        """Hand a gateway event to discord.py's parser, as its websocket reader would (the
        payload is used as is: pass a fresh one each time)."""
        client._connection.parsers[event](payload)

    # ------------------------------------------------------------------ interactions
    def interaction(self, *, kind: int, data: dict[str, Any], user_id: int, guild_id: int,
                    channel: dict[str, Any], message: dict[str, Any] | None = None,
                    locale: str = "en-US", guild_locale: str = "en-US") -> dict[str, Any]:
        """An INTERACTION_CREATE payload (``kind`` 2 = slash command, 3 = component) from a
        member; its ``token`` is unique (wait on it with :meth:`expect_webhook`)."""
        iid = self.snowflake()
        payload: dict[str, Any] = {
            "id": str(iid), "application_id": str(self.application_id), "type": kind, "token": f"tok{iid}",
            "version": 1, "data": data, "guild_id": str(guild_id), "channel_id": channel["id"], "channel": channel,
            "member": self.member(user_id, permissions=int(discord.Permissions.general().value
                                                           | discord.Permissions.text().value)),
            "locale": locale, "guild_locale": guild_locale, "app_permissions": str(discord.Permissions.all().value),
            "entitlements": [], "authorizing_integration_owners": {"0": str(guild_id)}, "context": 0,
            "attachment_size_limit": 26214400,
        }
        if message is not None:
            payload["message"] = message
        return payload

    def slash(self, name: str, *, user_id: int, guild_id: int, channel: dict[str, Any],
              options: list[dict[str, Any]] | None = None, command_id: int = 1) -> dict[str, Any]:
        """A chat-input command interaction (``options`` in Discord's wire form)."""
        data = {"id": str(command_id), "name": name, "type": 1, "options": options or [], "guild_id": str(guild_id)}
        return self.interaction(kind=2, data=data, user_id=user_id, guild_id=guild_id, channel=channel)

    def button_click(self, custom_id: str, *, user_id: int, guild_id: int, channel: dict[str, Any],
                     message: dict[str, Any]) -> dict[str, Any]:
        """A button click on ``message`` (which must carry a button with that ``custom_id``)."""
        return self.interaction(kind=3, data={"custom_id": custom_id, "component_type": 2}, user_id=user_id,
                                guild_id=guild_id, channel=channel, message=message)

    def ephemeral_message(self, channel_id: int, components: list[dict[str, Any]], *,
                          embeds: list[dict[str, Any]] | None = None, content: str = "",
                          attachments: list[dict[str, Any]] | None = None) -> dict[str, Any]:
        """A message the bot sent ephemerally before (a member's private panel, with the
        ``attachments`` it carries), to click on."""
        msg = self.message(channel_id, {"content": content, "embeds": embeds or [], "components": components},
                           flags=_EPHEMERAL, interaction_user=0)
        msg["attachments"] = list(attachments or [])
        return msg

    # ------------------------------------------------------------------ waiting for calls
    def expect(self, key: tuple[Any, ...], until: Callable[[Sent], bool] | None = None) -> asyncio.Future[Sent]:
        """A future resolved by the next call matching ``key`` (for which ``until(sent)`` is
        true, when given): ``("webhook", token)`` (any call on that interaction: callback,
        followup, edit), ``("message", channel_id, message_id)`` (an edit or deletion of that
        message) or ``("channel", channel_id)`` (a message posted there). Register it before
        feeding the event that causes the call."""
        fut: asyncio.Future[Sent] = asyncio.get_running_loop().create_future()
        self._waiters.setdefault(key, []).append((until, fut))
        return fut

    def expect_webhook(self, token: str, until: Callable[[Sent], bool] | None = None) -> asyncio.Future[Sent]:
        """The next call on the interaction with ``token`` (see :meth:`expect`)."""
        return self.expect(("webhook", token), until)

    def waiting(self) -> int:
        """How many futures of :meth:`expect` are registered and not yet resolved."""
        return sum(len(w) for w in self._waiters.values())

    def forget(self, key: tuple[Any, ...]) -> None:
        """Drop every waiter of ``key`` (cancelled), e.g. after a timeout."""
        for _, fut in self._waiters.pop(key, ()):
            fut.cancel()

    def _wake(self, key: tuple[Any, ...], sent: Sent) -> None:
        waiters = self._waiters.get(key)
        if not waiters:
            return
        keep: list[tuple[Callable[[Sent], bool] | None, asyncio.Future[Sent]]] = []
        for until, fut in waiters:
            if fut.done():
                continue
            if until is None or until(sent):
                fut.set_result(sent)
            else:
                keep.append((until, fut))
        if keep:
            self._waiters[key] = keep
        else:
            del self._waiters[key]

    # ------------------------------------------------------------------ answering
    async def _static_login(self, token: str) -> dict[str, Any]:
        return self.bot_user()

    async def _cdn(self, url: str) -> bytes:
        return b""

    async def _http_request(self, route: discord.http.Route, *, files: Any = None, form: Any = None,
                            **kwargs: Any) -> Any:
        await asyncio.sleep(0)
        return self._metered(route, kwargs.get("json"), None, form, kwargs.get("params"), webhook=False)

    def _metered(self, route: discord.http.Route, payload: Any, multipart: Any, form: Any, params: Any, *,
                 webhook: bool) -> Any:
        """:meth:`_answer` the call, adding the CPU time the fake spends on it (reading the body
        back, building the answer, waking the waiters) to :attr:`cpu_s`."""
        started = time.thread_time()
        try:
            return self._answer(route, _body(payload, multipart, form), params, webhook=webhook)
        finally:
            self.cpu_s += time.thread_time() - started

    def _answer(self, route: discord.http.Route, body: Any, params: Any, *, webhook: bool) -> Any:
        """The JSON Discord would answer ``route`` with; wakes the waiters of the call."""
        method, template = route.method, route.path
        self.calls[f"{method} {template}"] += 1
        sent = Sent(time.perf_counter(), method, template, body)
        if webhook:
            token = route.webhook_token
            self._wake(("webhook", token), sent)
            if template.endswith("/callback"):
                return self._callback(route, body)
            if method == "DELETE":
                return None
            ephemeral = _EPHEMERAL if isinstance(body, dict) and body.get("flags", 0) & _EPHEMERAL else 0
            return self.message(0, body, flags=ephemeral, interaction_user=0)
        channel_id = int(route.channel_id) if route.channel_id is not None else 0
        if template == "/channels/{channel_id}/messages/{message_id}":
            m = _MESSAGE_ROUTE.search(route.url.split("?", 1)[0])
            message_id = int(m.group(2)) if m else None
            self._wake(("message", channel_id, message_id), sent)
            if method == "PATCH":
                self.channel_edits.setdefault(channel_id, []).append(sent.at)
            return None if method == "DELETE" else self.message(channel_id, body, message_id=message_id)
        if template == "/channels/{channel_id}/messages" and method == "POST":
            self._wake(("channel", channel_id), sent)
            return self.message(channel_id, body)
        if template.endswith("/threads") and method == "POST":
            name = body.get("name", "table") if isinstance(body, dict) else "table"
            return self.thread(self.snowflake(), int(route.guild_id or 0), channel_id, name)
        if template == "/oauth2/applications/@me":
            return {"id": str(self.application_id), "name": "Speakeasy", "icon": None, "description": "",
                    "rpc_origins": [], "bot_public": True, "bot_require_code_grant": False,
                    "owner": self.user(1, "owner"), "summary": "", "verify_key": "0" * 64, "team": None,
                    "flags": 0, "bot": self.bot_user(), "interactions_endpoint_url": None}
        if template.startswith("/applications/{application_id}") and template.endswith("/commands"):
            if method == "PUT" and isinstance(body, list):
                return [{**c, "id": str(self.snowflake()), "application_id": str(self.application_id),
                         "version": "1", "default_member_permissions": c.get("default_member_permissions")}
                        for c in body]
            return []
        return {} if method != "DELETE" else None

    def _callback(self, route: discord.http.Route, body: Any) -> dict[str, Any]:
        """An interaction callback answer (``with_response``): the interaction and, for a
        message response, the message."""
        body = body if isinstance(body, dict) else {}
        kind = int(body.get("type", 1))
        data = body.get("data") or {}
        flags = int(data.get("flags", 0) or 0)
        message_id = self.snowflake()
        answer: dict[str, Any] = {"interaction": {
            "id": str(route.webhook_id), "type": 2, "response_message_id": str(message_id),
            "response_message_loading": kind == 5, "response_message_ephemeral": bool(flags & _EPHEMERAL)}}
        if kind in (4, 5, 7):
            answer["resource"] = {"type": kind, "message": self.message(0, data, message_id=message_id, flags=flags,
                                                                        interaction_user=0)}
        else:
            answer["resource"] = {"type": kind}
        return answer
