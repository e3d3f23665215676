"""``python -m bot migrate-data --from speakeasy.db --to postgresql://...``: move a SQLite store
into PostgreSQL with the bot stopped (everything: tables mid-game, seats, logs, pending choices,
timers, results, ratings, decks), except the terminal's local games (guild 0, ``play`` run with
``--db`` on this file) unless ``--include-local``. The copy itself is
:func:`storage.factory.move_to_postgres`; this module says what happened."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from storage.base import TransferError
from storage.factory import TransferRefused, move_to_postgres, public_url, sqlite_path

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
    try:
        copied = await move_to_postgres(source, target, progress=lambda t, n: out(f"  {t}: {n} rows"),
                                        local_games=local_games)
    except TransferRefused as exc:
        flag, url = ("--from", source) if exc.end == "source" else ("--to", target)
        out(f"{flag} {public_url(url)}: {exc.reason}")
        return 2
    except TransferError as exc:
        out(f"Nothing was copied: {exc}.")
        return 2
    if copied.left_out:
        out(f"Left out {copied.left_out} local terminal game table(s) (guild 0: `play` with this file as --db), with"
            " their seats, logs, results and ratings; --include-local copies them too.")
    out(f"Copied {sum(copied.rows.values())} rows of {len(copied.rows)} tables from {sqlite_path(source)} to "
        f"{public_url(target)}; {copied.running} running game table(s) resume there. "
        f"Set DATABASE_URL={public_url(target)} and start the bot.")
    return 0
