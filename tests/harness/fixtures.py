"""Optional pytest fixture: ``from tests.harness.fixtures import discord_world`` in a test module.

The fixture yields an open :class:`~tests.harness.DiscordWorld` with default settings;
its teardown stops the bot and fails the test (error at teardown) if the bot produced
errors that the test did not consume with ``world.expect_errors(...)``.
For non-default settings use ``async with DiscordWorld(...) as world:`` in the test.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest_asyncio

from .world import DiscordWorld


@pytest_asyncio.fixture
async def discord_world() -> AsyncIterator[DiscordWorld]:
    async with DiscordWorld() as world:
        yield world
