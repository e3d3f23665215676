"""The schema and its migrations: one folder of versioned ``.sql`` files per dialect
(``sqlite/``, ``postgres/``), shipped as package data, each file written in its dialect for a
database administrator to read.

``NNNN_what.sql`` takes a database from schema version ``NNNN - 1`` to ``NNNN``; version 0 is an
empty database. Both folders hold the same versions, and a version means the same tables,
columns and rows in both (``tests/test_schema.py``). A driver applies each missing file in its
own transaction and records the version (SQLite ``PRAGMA user_version``; PostgreSQL the table
``speakeasy_schema``); a database whose version is above :func:`latest` was written by a newer
Speakeasy and is refused (:class:`storage.base.SchemaTooNew`).

To change the schema, add the next file to both folders (never edit a released one).
"""

from __future__ import annotations

import functools
import re
from importlib import resources
from typing import Literal, NamedTuple

__all__ = ["Dialect", "Migration", "latest", "migrations"]

Dialect = Literal["sqlite", "postgres"]

_NAME = re.compile(r"^(\d{4})_[a-z0-9_]+\.sql$")


class Migration(NamedTuple):
    """One migration file: it takes the schema to ``version``; ``sql`` is its whole text."""

    version: int
    name: str
    sql: str


@functools.cache
def migrations(dialect: Dialect) -> tuple[Migration, ...]:
    """The migrations of ``dialect`` in order (``[i].version == i + 1``), read from the package.

    Raises ``RuntimeError`` when the folder's files are not numbered 1, 2, ... without a gap
    (an installation that lost a file), or ``ValueError`` for an unknown dialect.

    >>> [m.name for m in migrations("sqlite")][:2]
    ['0001_schema.sql', '0002_decks.sql']
    """
    if dialect not in ("sqlite", "postgres"):
        raise ValueError(f"no migrations for {dialect!r}")
    folder = resources.files(__package__) / dialect
    found = sorted((int(m.group(1)), f.name) for f in folder.iterdir() if (m := _NAME.match(f.name)))
    numbers = [number for number, _ in found]
    if numbers != list(range(1, len(found) + 1)):
        raise RuntimeError(f"the {dialect} migrations are not numbered 1..{len(found)}: {numbers}")
    return tuple(Migration(number, name, (folder / name).read_text(encoding="utf-8")) for number, name in found)


def latest(dialect: Dialect = "sqlite") -> int:
    """The schema version this code writes: the number of the last migration of ``dialect``.

    >>> latest("sqlite") == latest("postgres") == len(migrations("postgres"))
    True
    """
    return len(migrations(dialect))
