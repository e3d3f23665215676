"""Every request the bot made, checked against Discord's rules and limits (run on every e2e test).

:func:`violations` reads the world's request log (``world.http_log``) and returns one line per
breach of:

- **Components V2 limits**, per message body (a post, an edit, an interaction answer, a
  follow-up): at most 40 components (nested ones included), at most 4,000 characters of text
  displays in all, custom_ids unique in the message, and with the ``IS_COMPONENTS_V2`` flag no
  ``content`` and no embeds;
- **only V2** (``v2_only``): every message body carries the flag (the bot posts and edits V2
  layouts only);
- **no follow-up completing a defer**: after a "thinking" defer (callback type 5), the next
  answer on that interaction's token edits the original response (``PATCH
  .../messages/@original``), never a follow-up (``POST /webhooks/<app>/<token>``), which
  Discord's documentation calls deprecated;
- **modal labels**: every text input of a modal sits inside a ``Label`` (type 18), not in an
  action row (the deprecated form).

simcord already refuses most over-limit bodies with a 400; this check also names the rules it
does not model (the defer and the labels) and makes each breach a test failure with its path.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import Any

COMPONENTS_V2 = 1 << 15
MAX_COMPONENTS = 40
MAX_TEXT = 4000
DEFERRED_CHANNEL_MESSAGE = 5
MODAL = 9
MESSAGE_CALLBACKS = {4, 7}  # CHANNEL_MESSAGE_WITH_SOURCE, UPDATE_MESSAGE

_CALLBACK = re.compile(r"/interactions/[0-9]+/(?P<token>[^/]+)/callback")
_WEBHOOK = re.compile(r"/webhooks/[0-9]+/(?P<token>[^/]+)(?P<rest>/.*)?")
_CHANNEL_MESSAGE = re.compile(r"/channels/[0-9]+/messages(/[0-9]+)?")


def _walk(components: Iterable[Any]) -> Iterator[dict[str, Any]]:
    for c in components or ():
        if not isinstance(c, dict):
            continue
        yield c
        yield from _walk(c.get("components") or ())
        for key in ("accessory", "component"):
            if isinstance(c.get(key), dict):
                yield from _walk([c[key]])


def body_violations(body: dict[str, Any], *, v2_only: bool) -> list[str]:
    """What is wrong with one message body (``content``, ``embeds``, ``components``, ``flags``)."""
    out = []
    components = list(_walk(body.get("components") or ()))
    v2 = bool(int(body.get("flags") or 0) & COMPONENTS_V2)
    if len(components) > MAX_COMPONENTS:
        out.append(f"{len(components)} components (at most {MAX_COMPONENTS})")
    text = sum(len(c.get("content") or "") for c in components if c.get("type") == 10)
    if text > MAX_TEXT:
        out.append(f"{text} characters of text displays (at most {MAX_TEXT})")
    ids = [c["custom_id"] for c in components if c.get("custom_id")]
    if len(ids) != len(set(ids)):
        out.append(f"custom_ids not unique: {sorted(i for i in set(ids) if ids.count(i) > 1)}")
    if v2 and (body.get("content") or body.get("embeds")):
        out.append("content or embeds beside V2 components")
    if v2_only and not v2:
        out.append("not a Components V2 message")
    return out


def modal_violations(data: dict[str, Any]) -> list[str]:
    """Text inputs of a modal that are not inside a ``Label``."""
    out = []
    for c in data.get("components") or ():
        if c.get("type") == 1 and any(x.get("type") == 4 for x in c.get("components") or ()):
            out.append("a text input in an action row (use a Label)")
        elif c.get("type") == 18 and (c.get("component") or {}).get("type") not in (4, 3, 5, 6, 7, 8, 19, 21, 22, 23):
            out.append("a Label without a component")
    return out


def violations(log: Iterable[Any], *, v2_only: bool = True) -> list[str]:
    """Every breach in the request ``log`` (entries with ``method``, ``path``, ``json``), one line
    each, naming the request."""
    out: list[str] = []
    thinking: set[str] = set()  # tokens deferred with "thinking", original not edited yet
    for n, entry in enumerate(log):
        method, path, body = entry.method, entry.path.split("?")[0], entry.json
        where = f"#{n} {method} {path[:60]}"
        if not isinstance(body, dict):
            continue
        if m := _CALLBACK.fullmatch(path):
            kind = body.get("type")
            if kind == DEFERRED_CHANNEL_MESSAGE:
                thinking.add(m["token"])
            elif kind == MODAL:
                out += [f"{where}: {v}" for v in modal_violations(body.get("data") or {})]
            elif kind in MESSAGE_CALLBACKS:
                out += [f"{where}: {v}" for v in body_violations(body.get("data") or {}, v2_only=v2_only)]
            continue
        if m := _WEBHOOK.fullmatch(path):
            token, rest = m["token"], (m["rest"] or "").rstrip("/")
            if method == "POST" and not rest and token in thinking:
                out.append(f"{where}: a follow-up completes a deferred response (edit the original instead)")
            if rest == "/messages/@original" and method == "PATCH":
                thinking.discard(token)
            if method in ("POST", "PATCH"):
                out += [f"{where}: {v}" for v in body_violations(body, v2_only=v2_only)]
            continue
        if _CHANNEL_MESSAGE.fullmatch(path) and method in ("POST", "PATCH"):
            out += [f"{where}: {v}" for v in body_violations(body, v2_only=v2_only)]
    return out
