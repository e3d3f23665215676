"""Choosing the store from a URL: ``open_store(url)`` is how every part of Speakeasy (the bot, the
terminal, the benchmarks, the tests) opens its database.

A URL is a SQLite file path (``speakeasy.db``, ``data/bot.db``), the same as ``sqlite:///path``
(``sqlite:////abs/path.db`` for an absolute path), or a PostgreSQL URL
``postgresql://user:pass@host:5432/db`` (``?host=/run/postgresql`` for a unix socket).
"""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from urllib.parse import parse_qs

from storage.postgres import PostgresDatabase, is_postgres_url, postgres_problem
from storage.sqlite import Database, database_problem

__all__ = ["open_store", "public_url", "sqlite_path", "store_problem", "url_problem"]


def sqlite_path(url: str | Path) -> str | None:
    """The SQLite file a URL names, or ``None`` for a PostgreSQL URL.

    >>> sqlite_path("speakeasy.db"), sqlite_path("sqlite:///data/s.db"), sqlite_path("sqlite:////var/s.db")
    ('speakeasy.db', 'data/s.db', '/var/s.db')
    >>> sqlite_path("postgresql://u@h/db") is None
    True
    """
    url = str(url)
    if is_postgres_url(url):
        return None
    if url.startswith("sqlite://"):
        rest = url.removeprefix("sqlite://")
        return rest[1:] if rest.startswith("/") else rest
    return url


def url_problem(url: str | Path) -> str | None:
    """What is malformed in a store URL (``None`` when its form is fine); does not connect. The
    message never quotes the URL's password.

    >>> url_problem("mysql://h/db")
    "unsupported database 'mysql': use a file path, sqlite:///path or postgresql://user:pass@host:5432/db"
    >>> url_problem("sqlite://") is None, url_problem("postgresql://u@h/db") is None
    (False, True)
    >>> url_problem("postgresql://bot:pw@db:54x2/speakeasy")
    'malformed PostgreSQL URL: a port must be a number from 1 to 65535 (host:5432)'
    """
    url = str(url)
    if is_postgres_url(url):
        return _postgres_url_problem(url)
    if _ALMOST_URL.match(url):
        scheme = url.split(":", 1)[0]
        return f"malformed URL: write {scheme}:// with two slashes (postgresql://user:pass@host:5432/db, sqlite:///path)"
    if "://" in url and not url.startswith("sqlite://"):
        scheme = url.split("://", 1)[0]
        return (f"unsupported database {scheme!r}: use a file path, sqlite:///path or "
                "postgresql://user:pass@host:5432/db")
    if not sqlite_path(url):
        return "no file name: give one such as speakeasy.db or sqlite:///speakeasy.db"
    return None


#: A known scheme with its colon but not the two slashes (``postgresql:/host/db``), which would
#: otherwise be taken for a SQLite file name.
_ALMOST_URL = re.compile(r"^(?:postgresql|postgres|sqlite):(?!//)", re.IGNORECASE)
#: asyncpg's accepted ``sslmode`` values.
_SSLMODES = ("disable", "allow", "prefer", "require", "verify-ca", "verify-full")


def _postgres_url_problem(url: str) -> str | None:
    """What is malformed in ``postgresql://[user[:password]@]host[:port][,host[:port]...][/db][?k=v]``
    (``None`` when its form is fine): a ``@ / ? #`` left unencoded in the user name or password, a
    port that is not a number from 1 to 65535, an unclosed IPv6 bracket, an unknown ``sslmode``.
    No part of the URL is quoted (a password may be what is malformed)."""
    rest = url.split("://", 1)[1]
    query_at = rest.find("?")
    at = rest.rfind("@", 0, query_at if query_at >= 0 else len(rest))
    userinfo, hostpart = (rest[:at], rest[at + 1:]) if at >= 0 else ("", rest)
    if re.search(r"[@/?#]", userinfo):
        return ("malformed PostgreSQL URL: percent-encode @ / ? # in the user name or password "
                "(@ is %40, / is %2F, ? is %3F, # is %23)")
    hosts = re.split(r"[/?]", hostpart, maxsplit=1)[0]
    for host in hosts.split(",") if hosts else ():
        port: str | None = None
        if host.startswith("["):
            end = host.find("]")
            if end < 0:
                return "malformed PostgreSQL URL: an IPv6 address opened with [ is not closed with ]"
            after = host[end + 1:]
            if after and not after.startswith(":"):
                return "malformed PostgreSQL URL: only :port may follow an IPv6 address in brackets"
            port = after[1:] if after else None
        elif ":" in host:
            port = host.partition(":")[2]
        if port is not None and not (port.isascii() and port.isdigit() and 1 <= int(port) <= 65535):
            return "malformed PostgreSQL URL: a port must be a number from 1 to 65535 (host:5432)"
    bad = [m for m in parse_qs(hostpart.partition("?")[2]).get("sslmode", []) if m not in _SSLMODES]
    if bad:
        return f"malformed PostgreSQL URL: sslmode must be one of {', '.join(_SSLMODES)}"
    return None


def public_url(url: str | Path) -> str:
    """``url`` with its password replaced by ``***`` (for messages and logs).

    >>> public_url("postgresql://bot:s3cret@db:5432/speakeasy")
    'postgresql://bot:***@db:5432/speakeasy'
    >>> public_url("speakeasy.db")
    'speakeasy.db'
    """
    url = str(url)
    if not is_postgres_url(url) or "@" not in url:
        return url
    scheme, rest = url.split("://", 1)
    creds, sep, host = rest.rpartition("@")
    user, colon, _password = creds.partition(":")
    return f"{scheme}://{user}{':***' if colon else ''}{sep}{host}"


def store_problem(url: str | Path) -> str | None:
    """Why the store at ``url`` cannot be used (``None`` when it can), checked before the bot
    starts: a malformed URL, an unusable SQLite file (:func:`storage.sqlite.database_problem`),
    or a PostgreSQL server that cannot be reached or refuses the login. Synchronous (it runs its
    own event loop for PostgreSQL: call it before the bot's loop starts)."""
    problem = url_problem(url)
    if problem:
        return problem
    path = sqlite_path(url)
    if path is not None:
        return None if path == ":memory:" else database_problem(path)
    return asyncio.run(postgres_problem(str(url)))


async def open_store(url: str | Path) -> Database:
    """Open the store ``url`` names (migrations applied): a :class:`storage.sqlite.Database`
    or a :class:`storage.postgres.PostgresDatabase` (both :class:`storage.base.Store`).

    Raises ``ValueError`` for a malformed URL (see :func:`url_problem`); the backend's errors
    (``sqlite3.Error``, ``OSError``, ``asyncpg.PostgresError``) when it cannot be opened.
    """
    problem = url_problem(url)
    if problem:
        raise ValueError(problem)
    path = sqlite_path(url)
    if path is None:
        return await PostgresDatabase.connect(str(url))
    return await Database.open(path)
