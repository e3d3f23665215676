"""Compatibility names: the SQLite store (:mod:`storage.sqlite`) and the rows of the storage
interface (:mod:`storage.base`), importable as ``storage.db`` as before."""

from storage.base import RatingRow, RunningTable, SeatRow, StepWrite, Store, TableRow, TimerRow, VersionConflict
from storage.sqlite import MIGRATIONS, Database, database_problem, dumps

__all__ = [
    "MIGRATIONS",
    "Database",
    "RatingRow",
    "RunningTable",
    "SeatRow",
    "StepWrite",
    "Store",
    "TableRow",
    "TimerRow",
    "VersionConflict",
    "database_problem",
    "dumps",
]
