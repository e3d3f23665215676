"""The look shared by every game's pictures: sizes, palette and fonts.

- **Size**: every picture is :data:`WIDTH` px wide (its height follows its content). Discord
  shows an embed image about 400 px wide, so a font of :data:`SMALL` px (the smallest we use)
  appears at 14 px there.
- **Palette**: the Okabe–Ito colours, which stay distinguishable for the common colour-vision
  deficiencies; colour never carries meaning alone: seats carry their names, Moonshine colours a
  shape (:data:`COLOUR_SHAPES`), warning cards their colour's name.
- **Fonts**: Source Sans Pro from the ``font-source-sans-pro`` pip package (SIL OFL 1.1), loaded
  from the installed package: nothing is downloaded at run time; it covers French accents.
- **Words**: every text comes from the i18n catalogs (``bot/i18n``) through the reader's
  :class:`bot.i18n.Translator`: the text board's messages (through :func:`plain`) and the few
  words only pictures need (``pic.legend``, ``tpm.pic.trick``…: ``pic.*`` in ``core.json``, each
  game's ``<prefix>.pic.*`` in its own catalog).
"""

from __future__ import annotations

import os
import re
from functools import lru_cache

from PIL import ImageFont

#: Width of every picture in px.
WIDTH = 800
#: Outer margin in px.
MARGIN = 24
#: Font sizes in px: SMALL is the minimum (14 px at 400 px wide).
SMALL, BODY, HEAD, TITLE = 28, 30, 34, 40

Colour = tuple[int, int, int]

BG: Colour = (246, 241, 231)  # paper
INK: Colour = (28, 28, 30)
MUTED: Colour = (92, 92, 100)
PANEL: Colour = (255, 255, 255)
LINE: Colour = (196, 188, 172)
TITLE_BG: Colour = (40, 44, 62)
TITLE_INK: Colour = (255, 255, 255)
FELT: Colour = (226, 236, 228)

# Okabe–Ito palette.
ORANGE: Colour = (230, 159, 0)
SKY: Colour = (86, 180, 233)
GREEN: Colour = (0, 158, 115)
YELLOW: Colour = (240, 228, 66)
BLUE: Colour = (0, 114, 178)
VERMILLION: Colour = (213, 94, 0)
PURPLE: Colour = (204, 121, 167)
BLACK: Colour = (0, 0, 0)

#: Highlight of legal choices in panels (a thick blue frame plus a "✓"-like tag).
LEGAL: Colour = BLUE
#: Seat accents (always drawn next to the seat's name).
SEAT_COLOURS: tuple[Colour, ...] = (BLUE, VERMILLION, GREEN, ORANGE, PURPLE, SKY)

#: Moonshine Client colours: fill and the shape drawn on them (colour-blind safe).
CLIENT_COLOURS: dict[str, Colour] = {
    "green": GREEN, "pink": PURPLE, "purple": (110, 70, 160), "yellow": YELLOW, "red": VERMILLION,
}
COLOUR_SHAPES: dict[str, str] = {
    "green": "triangle", "pink": "circle", "purple": "diamond", "yellow": "square", "red": "cross",
}

_FONT_FILES = {"regular": "SourceSansPro-Regular.ttf", "bold": "SourceSansPro-Bold.ttf"}


def _font_dir() -> str:
    import font_source_sans_pro  # type: ignore[import-untyped]

    return str(font_source_sans_pro.font_directory)


@lru_cache(maxsize=32)
def font(size: int, bold: bool = False) -> ImageFont.FreeTypeFont:
    """The picture font at ``size`` px (never below :data:`SMALL`). Raises ``OSError`` when the
    font package is missing (the callers turn that into "no picture")."""
    path = os.path.join(_font_dir(), _FONT_FILES["bold" if bold else "regular"])
    return ImageFont.truetype(path, max(size, SMALL), layout_engine=ImageFont.Layout.BASIC)


_MARKUP = re.compile(r"\*\*|__|~~|`|\*")
# Emoji and pictographs (the font has none of them): drop them from catalog texts.
_EMOJI = re.compile("[\U0001F000-\U0001FAFF\u2600-\u27BF\u2B00-\u2BFF\uFE0F\u200D\u20E3\u2190-\u21FF]")


_SPACES = re.compile(r"[ \t\r\n\f\v]+")


def plain(text: str) -> str:
    """A catalog text without Discord markdown and emoji, spaces collapsed (a no-break space
    stays: it keeps "10\u00a0s" on one line)."""
    return _SPACES.sub(" ", _EMOJI.sub("", _MARKUP.sub("", text))).strip(" ")
