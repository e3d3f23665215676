"""``python -m bot migrate-data --from speakeasy.db --to postgresql://...``: move a SQLite store
into PostgreSQL with the bot stopped (everything: tables mid-game, seats, logs, pending choices,
timers, results, ratings, decks), except the terminal's local games (guild 0, ``play`` run with
``--db`` on this file) unless ``--include-local``. The copy itself is :mod:`storage.transfer`."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from storage.factory import open_store, public_url, sqlite_path
from storage.postgres import PostgresDatabase, is_postgres_url, postgres_problem
from storage.transfer import TransferError, copy_sqlite_to_postgres, local_tables, source_problem

__all__ = ["copy_store", "migrate_data"]


def migrate_data(source: str, target: str, out: Callable[[str], None] = print, *, local_games: bool = False) -> int:
    """:func:`copy_store` run in its own event loop (the command line); returns the exit status."""
    return asyncio.run(copy_store(source, target, out, local_games=local_games))


async def copy_store(source: str, target: str, out: Callable[[str], None] = print, *,
                     local_games: bool = False) -> int:
    """Copy the SQLite store ``source`` (a path or ``sqlite:///path``) into the empty PostgreSQL
    database ``target``; returns the exit status: 0 copied, 2 refused (a message says why:
    a missing source, a target that is not PostgreSQL, cannot be reached or is not empty).
    Migrates the source file to the latest schema first (as the bot does when it opens it).
    The terminal's local games (guild 0) are left out, and said so, unless ``local_games``."""
    path = sqlite_path(source)
    if path is None:
        out(f"--from {public_url(source)}: give the SQLite file to copy from (speakeasy.db)")
        return 2
    problem = source_problem(path)
    if problem:
        out(f"--from {source}: {problem}")
        return 2
    if not is_postgres_url(target):
        out(f"--to {target}: give the PostgreSQL database to copy into (postgresql://user:pass@host:5432/db)")
        return 2
    problem = await postgres_problem(target)
    if problem:
        out(f"--to {public_url(target)}: {problem}")
        return 2
    return await _copy(path, target, out, local_games)


async def _copy(path: str, target: str, out: Callable[[str], None], local_games: bool) -> int:
    src = await open_store(path)
    try:
        local = await local_tables(src)
        dst = await open_store(target)
        try:
            assert isinstance(dst, PostgresDatabase)
            try:
                counts = await copy_sqlite_to_postgres(src, dst, progress=lambda t, n: out(f"  {t}: {n} rows"),
                                                       local_games=local_games)
            except TransferError as exc:
                out(f"Nothing was copied: {exc}.")
                return 2
            running = len(await dst.tables_with_status("running"))
        finally:
            await dst.close()
    finally:
        await src.close()
    if local and not local_games:
        out(f"Left out {local} local terminal game table(s) (guild 0: `play` with this file as --db), with their"
            " seats, logs, results and ratings; --include-local copies them too.")
    out(f"Copied {sum(counts.values())} rows of {len(counts)} tables from {path} to {public_url(target)}; "
        f"{running} running game table(s) resume there. Set DATABASE_URL={public_url(target)} and start the bot.")
    return 0
