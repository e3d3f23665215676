"""The addresses of the web pages, as the bot posts them in Discord and the pages link them.

A server whose pages are public gets plain addresses; otherwise every address carries a key,
``k``: an HMAC-SHA256 of the server's id under the server's secret (:func:`guild_key`), so an
address cannot be guessed from the server's id, and rotating the secret invalidates every
address given before. The key is per server: whoever holds a link to one of its pages may
follow the links between them (leaderboards, profiles, finished games).

Paths (``guild`` and ``table`` are ids, ``game`` a registry key)::

    /g/<guild>/lb/<game>[?season=N]     a leaderboard
    /g/<guild>/u/<user>[?game=KEY]      a member's profile
    /g/<guild>/t/<table>[?step=N]       a finished game and its replay
    /g/<guild>/t/<table>/<step>.png     the board picture of one public step
"""

from __future__ import annotations

import base64
import hashlib
import hmac
from urllib.parse import urlencode

__all__ = ["game_url", "guild_key", "key_matches", "leaderboard_url", "profile_url"]


def guild_key(secret: str, guild_id: int) -> str:
    """The key of a server's private addresses: 22 URL-safe characters (128 bits) of
    HMAC-SHA256(``secret``, ``"speakeasy-web:<guild_id>"``).

    >>> guild_key("s3cret", 42) == guild_key("s3cret", 42) != guild_key("s3cret", 43)
    True
    >>> len(guild_key("s3cret", 42))
    22
    """
    mac = hmac.new(secret.encode(), f"speakeasy-web:{guild_id}".encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(mac[:16]).decode().rstrip("=")


def key_matches(secret: str, guild_id: int, key: str | None) -> bool:
    """Whether ``key`` is the server's current key (compared in constant time, as UTF-8 bytes:
    any text typed into the address is only a wrong key).

    >>> key_matches("s", 1, "é"), key_matches("s", 1, guild_key("s", 1))
    (False, True)
    """
    return bool(key) and hmac.compare_digest(guild_key(secret, guild_id).encode(), str(key).encode("utf-8", "replace"))


def _url(base: str, path: str, params: dict[str, object], key: str | None) -> str:
    query = {k: v for k, v in params.items() if v is not None}
    if key:
        query["k"] = key
    return base.rstrip("/") + path + ("?" + urlencode(query) if query else "")


def leaderboard_url(base: str, guild_id: int, game: str, *, key: str | None = None, season: int | None = None,
                    lang: str | None = None) -> str:
    """The address of a server's leaderboard of ``game`` (``key``: for private pages).

    >>> leaderboard_url("https://x.example/", 5, "moonshine", key="abc")
    'https://x.example/g/5/lb/moonshine?k=abc'
    """
    return _url(base, f"/g/{guild_id}/lb/{game}", {"season": season, "lang": lang}, key)


def profile_url(base: str, guild_id: int, user_id: int, *, key: str | None = None, game: str | None = None,
                lang: str | None = None) -> str:
    """The address of a member's profile in a server."""
    return _url(base, f"/g/{guild_id}/u/{user_id}", {"game": game, "lang": lang}, key)


def game_url(base: str, guild_id: int, table_id: int, *, key: str | None = None, step: int | None = None,
             lang: str | None = None) -> str:
    """The address of a finished game's page (its replay at ``step``)."""
    return _url(base, f"/g/{guild_id}/t/{table_id}", {"step": step, "lang": lang}, key)
