"""Choosing the store from a URL: ``open_store(url)`` is how every part of Speakeasy (the bot, the
terminal, the benchmarks, the tests) opens its database; :func:`move_to_postgres` copies a
SQLite store into PostgreSQL (``python -m bot migrate-data``).

A URL is a SQLite file path (``speakeasy.db``, ``data/bot.db``), the same as ``sqlite:///path``
(``sqlite:////abs/path.db`` for an absolute path), or a PostgreSQL URL
``postgresql://user:pass@host:5432/db`` (``?host=/run/postgresql`` for a unix socket).
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable
from pathlib import Path
from urllib.parse import parse_qs

from storage.base import Store, StoreRefused, TransferError
from storage.postgres import PostgresStore, is_postgres_url, postgres_problem
from storage.sqlite import SqliteStore, database_problem
from storage.transfer import Copied, copy_sqlite_to_postgres, source_problem

__all__ = ["Copied", "TransferRefused", "move_to_postgres", "open_store", "public_url", "sqlite_path", "store_problem",
           "url_problem"]


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
    a PostgreSQL server that cannot be reached or refuses the login, a schema newer than this
    code (:class:`storage.base.SchemaTooNew`'s words). The SQLite file's integrity check runs
    when the store opens (:class:`storage.base.DatabaseDamaged`). Synchronous (it runs its own
    event loop for PostgreSQL: call it before the bot's loop starts)."""
    problem = url_problem(url)
    if problem:
        return problem
    path = sqlite_path(url)
    if path is not None:
        return None if path == ":memory:" else database_problem(path)
    return asyncio.run(postgres_problem(str(url)))


async def open_store(url: str | Path, *, upto: int | None = None) -> Store:
    """Open the store ``url`` names, checked and migrated: a :class:`storage.sqlite.SqliteStore`
    or a :class:`storage.postgres.PostgresStore`. ``upto`` stops the migrations at that schema
    version (tests and tools that make an older database).

    Raises ``ValueError`` for a malformed URL (see :func:`url_problem`); a
    :class:`storage.base.StoreRefused` for a schema newer than the code or a damaged SQLite
    file; the backend's errors (``sqlite3.Error``, ``OSError``, ``asyncpg.PostgresError``) when
    it cannot be opened.
    """
    problem = url_problem(url)
    if problem:
        raise ValueError(problem)
    path = sqlite_path(url)
    if path is None:
        return await PostgresStore.connect(str(url), upto=upto)
    return await SqliteStore.open(path, upto=upto)


class TransferRefused(TransferError):
    """:func:`move_to_postgres` cannot use its ``source`` or its ``target`` (``end`` says which);
    ``reason`` says why, without the URL's password. Nothing was written."""

    def __init__(self, end: str, reason: str) -> None:
        super().__init__(reason)
        self.end = end
        self.reason = reason


async def move_to_postgres(source: str, target: str, *, progress: Callable[[str, int], None] | None = None,
                           local_games: bool = False) -> Copied:
    """Copy the SQLite store ``source`` (a path or ``sqlite:///path``) into the empty PostgreSQL
    database ``target``, with the bot stopped: both are opened first (so migrated to the latest
    schema, as the bot would), then every row is copied in one PostgreSQL transaction
    (:func:`storage.transfer.copy_sqlite_to_postgres`; the terminal's local games are left out
    unless ``local_games``). ``progress(table, rows)`` is called after each table.

    Raises :class:`TransferRefused` for a source or target that cannot be used (a missing file,
    a target that is not PostgreSQL or cannot be reached, a schema newer than the code, a
    damaged file); :class:`storage.base.TransferError` (:class:`storage.base.TargetNotEmpty`)
    when the copy cannot be made; nothing is written then.
    """
    path = sqlite_path(source)
    if path is None:
        raise TransferRefused("source", "give the SQLite file to copy from (speakeasy.db)")
    problem = source_problem(path)
    if problem:
        raise TransferRefused("source", problem)
    if not is_postgres_url(target):
        raise TransferRefused("target", "give the PostgreSQL database to copy into (postgresql://user:pass@host:5432/db)")
    problem = await postgres_problem(target)
    if problem:
        raise TransferRefused("target", problem)
    for end, url in (("source", path), ("target", target)):
        try:
            store = await open_store(url)
        except StoreRefused as exc:
            raise TransferRefused(end, str(exc)) from exc
        await store.close()
    return await copy_sqlite_to_postgres(path, target, progress, local_games=local_games)
