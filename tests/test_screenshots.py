"""The README's pictures of what a player sees are made from a clean checkout by one command
(``python -m scripts.screenshots``): the harness's Discord-like page of the lobby, the board
message and a private panel, screenshotted by the system Chromium. Skipped, with the reason,
where no browser can be used; under CI that is a failure."""

from __future__ import annotations

import os

import pytest
from PIL import Image

from scripts.screenshots import NAMES, take
from tests.harness.preview import browser_problem


async def test_the_screenshots_are_made_by_one_command(tmp_path):
    problem = browser_problem()
    if problem:
        if os.environ.get("CI"):
            pytest.fail(f"screenshots cannot be taken under CI: {problem}")
        pytest.skip(problem)
    paths = await take(tmp_path)
    assert [p.name for p in paths] == list(NAMES)
    for path in paths:
        with Image.open(path) as image:
            assert image.format == "PNG" and image.width >= 700 and image.height >= 500
            colours = image.convert("RGB").resize((64, 64)).getcolors(64 * 64)
            assert colours is not None and len(colours) > 20, path  # a page was drawn, not a blank
