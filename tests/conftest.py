"""Fixtures shared by the test modules: ``e2e`` (a world and a bot, see :mod:`tests.e2e`);
``db_url`` (a fresh store on each backend, see :mod:`tests.stores`)."""

from tests.e2e import e2e
from tests.stores import backend, db_url, new_db_url

__all__ = ["backend", "db_url", "e2e", "new_db_url"]
