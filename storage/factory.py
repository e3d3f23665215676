"""Choosing the store from a URL: ``open_store(url)`` is how every part of Speakeasy (the bot, the
terminal, the benchmarks, the tests) opens its database.

A URL is a SQLite file path (``speakeasy.db``, ``data/bot.db``), the same as ``sqlite:///path``
(``sqlite:////abs/path.db`` for an absolute path), or a PostgreSQL URL
``postgresql://user:pass@host:5432/db`` (``?host=/run/postgresql`` for a unix socket).
"""

from __future__ import annotations

import asyncio
from pathlib import Path

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
    """What is malformed in a store URL (``None`` when its form is fine); does not connect.

    >>> url_problem("mysql://h/db")
    "unsupported database 'mysql': use a file path, sqlite:///path or postgresql://user:pass@host:5432/db"
    >>> url_problem("sqlite://") is None, url_problem("postgresql://u@h/db") is None
    (False, True)
    """
    url = str(url)
    if is_postgres_url(url):
        return None
    if "://" in url and not url.startswith("sqlite://"):
        scheme = url.split("://", 1)[0]
        return (f"unsupported database {scheme!r}: use a file path, sqlite:///path or "
                "postgresql://user:pass@host:5432/db")
    if not sqlite_path(url):
        return "no file name: give one such as speakeasy.db or sqlite:///speakeasy.db"
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
