"""Comparing pictures by what they show: two PNG files are the same picture when their size,
mode, palette and pixels are equal. Their bytes may differ: the deflate library (ISA-L) can
choose another, equally valid encoding of the same rows from one call to the next."""

from __future__ import annotations

import io

from PIL import Image


def pixels(png: bytes) -> tuple[tuple[int, int], str, bytes | None, bytes]:
    """What ``png`` shows: (size in px, mode, palette bytes or ``None``, pixel bytes)."""
    with Image.open(io.BytesIO(png)) as image:
        image.load()
        palette = bytes(image.getpalette() or []) if image.mode == "P" else None
        return image.size, image.mode, palette, image.tobytes()
