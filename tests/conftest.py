"""Fixtures shared by the test modules: ``e2e`` (a world and a bot, see :mod:`tests.e2e`)."""

from tests.e2e import e2e

__all__ = ["e2e"]
