"""Drawing helpers shared by the four renderers: a growing canvas, text that fits, dice with pips
(the Gang of Dice boss as a figure), domino tiles, cards, icons, legends and the PNG encoder.

Every helper is deterministic (no clock, no randomness) so that the same view gives the same
pixels (their deflated bytes may differ from one call to the next: ISA-L's encoding is not
guaranteed to repeat). Coordinates are px on a :data:`bot.render.style.WIDTH`-wide picture.

**Bands.** Much of a picture's cost is encoding it: mapping every pixel to the palette and
deflating the rows (with ISA-L's deflate, :mod:`isal.isal_zlib`: about ten times as fast as
zlib's at its fastest level, and smaller). A picture is therefore encoded as full-width
horizontal bands, each deflated on its own (a raw deflate stream ended by a sync flush, so that
the streams of consecutive bands join into one valid zlib stream, their Adler-32 sums
combined): a renderer draws a part that repeats from one picture to the next (a seat's block, a
legend) through :meth:`Canvas.band` with a key naming everything it depends on, and the first
picture that draws it keeps its encoded rows (:data:`BANDS`, by key); the next picture with the
same key neither draws nor encodes it again. What is drawn outside bands is encoded for each
picture. A band shows only its own rows (from ``y`` at its start to ``y`` at its end): what it
draws beyond them is undone, so that a picture's bytes never depend on what was kept before.

**Sprites.** A part that repeats inside rows that change (a card among others) is a sprite
(:meth:`Canvas.sprite`): drawn once on a scratch canvas, kept (:data:`SPRITES`) with the mask of
what it drew, and pasted through that mask; the rows around it are encoded with the picture.
"""

from __future__ import annotations

import math
import re
import struct
import threading
import zlib
from collections import OrderedDict
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Generic, TypeVar

from isal import isal_zlib
from PIL import Image, ImageChops, ImageDraw

from bot.render import style
from bot.render.style import Colour

#: Where :meth:`Canvas.wrap` may break a line: ASCII white space only (not a no-break space).
_BREAKS = re.compile(r"[ \t\r\n\f\v]+")

Box = tuple[int, int, int, int]
V = TypeVar("V")


class _IndexDraw(ImageDraw.ImageDraw):
    """:class:`PIL.ImageDraw.ImageDraw` on a palette image whose colours are given as RGB
    tuples: each is drawn as its index in the fixed palette (:func:`palette_index`), never
    added to the image's palette.

    Two shapes are drawn faster than Pillow draws them, with the same pixels: a small rounded
    rectangle at whole-pixel corners is a kept sprite pasted through its own mask (by size,
    radius, colours and width: dice, tiles, cards and chips repeat; a large one is faster drawn
    by Pillow than pasted through a mask); a polygon with a wide
    outline is drawn on the crop around it (Pillow masks such a polygon with a mask the size of
    the whole picture).
    """

    def _getink(self, ink: Any, fill: Any = None) -> tuple[int | None, int | None]:
        return super()._getink(_index_of(ink), _index_of(fill))

    def rounded_rectangle(self, xy: Any, radius: float = 0, fill: Any = None, outline: Any = None,
                          width: int = 1, *, corners: tuple[bool, bool, bool, bool] | None = None) -> None:
        box = _whole_box(xy)
        if (box is None or corners is not None or box[2] < box[0] or box[3] < box[1]
                or (box[2] - box[0] + 1) * (box[3] - box[1] + 1) > _SPRITE_AREA):
            super().rounded_rectangle(xy, radius, fill, outline, width, corners=corners)
            return
        x0, y0, x1, y1 = box
        sprite, mask = _rounded(x1 - x0, y1 - y0, radius, _index_of(fill), _index_of(outline), width)
        self._image.paste(sprite, (x0, y0), mask)

    def polygon(self, xy: Any, fill: Any = None, outline: Any = None, width: int = 1) -> None:
        if width <= 1 or outline is None:
            super().polygon(xy, fill, outline, width)
            return
        points = [(float(p[0]), float(p[1])) for p in xy] if isinstance(xy[0], (list, tuple)) \
            else [(float(xy[i]), float(xy[i + 1])) for i in range(0, len(xy), 2)]
        x0 = math.floor(min(x for x, _ in points)) - width - 2
        y0 = math.floor(min(y for _, y in points)) - width - 2
        x1 = math.ceil(max(x for x, _ in points)) + width + 3
        y1 = math.ceil(max(y for _, y in points)) + width + 3
        region = self._image.crop((x0, y0, x1, y1))
        ImageDraw.ImageDraw(region).polygon([(x - x0, y - y0) for x, y in points], _index_of(fill),
                                            _index_of(outline), width)
        self._image.paste(region, (x0, y0))


#: The largest rounded rectangle (px) drawn as a sprite (:class:`_IndexDraw`).
_SPRITE_AREA = 40_000


def _index_of(colour: Any) -> Any:
    """An RGB colour's palette index (:func:`palette_index`); anything else as it is."""
    return palette_index(colour) if isinstance(colour, tuple) else colour


def _whole_box(xy: Any) -> tuple[int, int, int, int] | None:
    """``xy`` (x0, y0, x1, y1, or two points) as whole pixels, ``None`` when not all are."""
    flat = [v for p in xy for v in p] if isinstance(xy[0], (list, tuple)) else list(xy)
    if len(flat) != 4 or any(not float(v).is_integer() for v in flat):
        return None
    x0, y0, x1, y1 = (int(v) for v in flat)
    return x0, y0, x1, y1


@lru_cache(maxsize=512)
def _rounded(w: int, h: int, radius: float, fill: int | None, outline: int | None,
             width: int) -> tuple[Image.Image, Image.Image]:
    """A rounded rectangle from (0, 0) to (``w``, ``h``) in palette indices, and the mask of
    the pixels it covers."""
    sprite = Image.new("L", (w + 1, h + 1), 0)
    mask = Image.new("L", (w + 1, h + 1), 0)
    ImageDraw.ImageDraw(sprite).rounded_rectangle((0, 0, w, h), radius, fill, outline, width)
    ImageDraw.ImageDraw(mask).rounded_rectangle((0, 0, w, h), radius, None if fill is None else 255,
                                                None if outline is None else 255, width)
    return sprite, mask


class Canvas:
    """A picture drawn top to bottom: ``y`` is the next free row. The image is taller than
    needed and cropped by :meth:`png` (``max_height`` px at most).

    The image holds indices in the fixed palette (:func:`_palette`; mode ``L``: one byte a
    pixel, no palette object to copy): shapes are drawn with their colour's index (:attr:`d`
    takes RGB colours), text is blended in RGB over what lies under it and mapped back to the
    palette (:meth:`text`), so the pixels are those of an RGB picture mapped to the palette at
    the end, without mapping every pixel."""

    def __init__(self, max_height: int = 2400, bg: Colour = style.BG, width: int = style.WIDTH) -> None:
        self.image = Image.new("L", (width, max_height), palette_index(bg))
        self.d = _IndexDraw(self.image)
        self.y = 0
        self.bg = bg
        #: The bands placed so far: (top row, encoded rows).
        self.parts: list[tuple[int, Encoded]] = []
        self._in_band = False

    def band(self, key: Hashable, draw: Callable[[Canvas], None]) -> None:
        """Place a band: ``draw(self)`` draws it from ``self.y`` on (and advances ``y``), or, when
        a band of the same ``key`` (and the same background) was drawn before, its kept rows are
        placed instead and nothing is drawn. ``key`` must name everything the band's pixels
        depend on (module docstring). A band drawn inside another is part of that one."""
        if self._in_band:  # inside another band: drawn as part of it
            draw(self)
            return
        full = (key, self.bg)
        top = self.y
        encoded = BANDS.get(full)
        if encoded is None:
            above = self.image.crop((0, max(0, top - _SPILL), style.WIDTH, top)) if top else None
            self._in_band = True
            try:
                draw(self)
            finally:
                self._in_band = False
            encoded = encode_rows(self.image.crop((0, top, style.WIDTH, max(top + 1, self.y))))
            BANDS.put(full, encoded)
            # what the band drew outside its rows is not kept: the rows around it are as if it
            # had been placed from the cache
            if above is not None:
                self.image.paste(above, (0, max(0, top - _SPILL)))
            self.d.rectangle((0, top + encoded.height, style.WIDTH, top + encoded.height + _SPILL), fill=self.bg)
        self.parts.append((top, encoded))
        self.y = top + encoded.height

    def sprite(self, key: Hashable, box: Box, draw: Callable[[Canvas, int, int], None]) -> None:
        """Place a sprite: what ``draw(canvas, x0, y0)`` draws inside ``box`` (x0, y0, x1, y1;
        nothing outside it), drawn once on a scratch canvas of the box's size in the background
        colour and kept (:data:`SPRITES`, by ``key``, the box's size and the background); then
        pasted at ``box``: its pixels not in the background colour are placed, the others keep
        what lies under them. ``key`` must name everything the drawing depends on,
        and the drawing must not depend on what lies under it (text drawn on the sprite's own
        shapes, not on the picture's background around them). For what repeats inside a band's
        rows that change (a card among others)."""
        x0, y0, x1, y1 = box
        full = (key, self.bg, x1 - x0, y1 - y0)
        kept = SPRITES.get(full)
        if kept is None:
            scratch = Canvas(max_height=y1 - y0, bg=self.bg, width=x1 - x0)
            draw(scratch, 0, 0)
            mask = scratch.image.point(_mask_lut(palette_index(self.bg)))
            kept = (scratch.image, mask)
            SPRITES.put(full, kept)
        self.image.paste(kept[0], (x0, y0), kept[1])

    # --- text --------------------------------------------------------------------------------
    def width(self, text: str, size: int = style.BODY, bold: bool = False) -> int:
        """Width in px of ``text`` in the picture font."""
        return _text_width(text, size, bold)

    def fit(self, text: str, max_w: int, size: int = style.BODY, bold: bool = False) -> str:
        """``text`` shortened with "…" to fit in ``max_w`` px."""
        if self.width(text, size, bold) <= max_w:
            return text
        while text and self.width(text + "…", size, bold) > max_w:
            text = text[:-1]
        return text.rstrip() + "…"

    def text(self, x: int, y: int, text: str, size: int = style.BODY, fill: Colour = style.INK,
             bold: bool = False, max_w: int | None = None, anchor: str = "la") -> int:
        """Draw one line (clipped to ``max_w``); returns its width."""
        if max_w is not None:
            text = self.fit(text, max_w, size, bold)
        if text:
            mask, (dx, dy) = _text_mask(text, size, bold, anchor)
            x0, y0 = int(x) + dx, int(y) + dy
            under = self.image.crop((x0, y0, x0 + mask.width, y0 + mask.height))
            lo, hi = under.getextrema()
            if lo == hi:  # on a plain background (most text): the blended run is kept
                self.image.paste(_text_on(text, size, bold, anchor, fill, lo), (x0, y0))
            else:
                rgb = _rgb(under)
                ImageDraw.Draw(rgb).bitmap((0, 0), mask, fill=fill)
                self.image.paste(_quantize(rgb), (x0, y0))
        return self.width(text, size, bold)

    def wrap(self, text: str, max_w: int, size: int = style.BODY, bold: bool = False,
             max_lines: int | None = None) -> list[str]:
        """``text`` broken into lines of at most ``max_w`` px (long words are clipped); with
        ``max_lines``, what does not fit in that many lines is joined to the last one and
        shortened with "…"."""
        lines: list[str] = []
        current = ""
        for word in _BREAKS.split(text.strip()):  # a no-break space ("10\u00a0s") keeps its words together
            trial = f"{current} {word}".strip()
            if self.width(trial, size, bold) <= max_w or not current:
                current = trial
            else:
                lines.append(current)
                current = word
        if current:
            lines.append(current)
        if max_lines is not None and len(lines) > max_lines:
            lines = [*lines[:max_lines - 1], " ".join(lines[max_lines - 1:])]
        return [self.fit(line, max_w, size, bold) for line in lines]

    def paragraph(self, x: int, text: str, max_w: int, size: int = style.BODY, fill: Colour = style.INK,
                  bold: bool = False, gap: int = 4) -> None:
        """Wrapped text from ``self.y`` on; advances ``y``."""
        for line in self.wrap(text, max_w, size, bold):
            self.text(x, self.y, line, size, fill, bold)
            self.y += size + gap

    # --- blocks --------------------------------------------------------------------------------
    def title_bar(self, title: str, subtitle: str = "") -> None:
        """The dark title band every picture starts with (a band)."""
        self.band(("title", title, subtitle), lambda c: c._title_bar(title, subtitle))

    def _title_bar(self, title: str, subtitle: str) -> None:
        h = style.TITLE + 28 + (style.SMALL + 6 if subtitle else 0)
        self.d.rectangle((0, self.y, style.WIDTH, self.y + h), fill=style.TITLE_BG)
        self.text(style.MARGIN, self.y + 12, title, style.TITLE, style.TITLE_INK, bold=True,
                  max_w=style.WIDTH - 2 * style.MARGIN)
        if subtitle:
            self.text(style.MARGIN, self.y + style.TITLE + 18, subtitle, style.SMALL, (210, 214, 230),
                      max_w=style.WIDTH - 2 * style.MARGIN)
        self.y += h + 16

    def heading(self, text: str, colour: Colour = style.INK) -> None:
        """A section heading with a rule under it (a band)."""
        self.band(("heading", text, colour), lambda c: c._heading(text, colour))

    def _heading(self, text: str, colour: Colour) -> None:
        self.text(style.MARGIN, self.y, text, style.HEAD, colour, bold=True,
                  max_w=style.WIDTH - 2 * style.MARGIN)
        self.y += style.HEAD + 8
        self.d.line((style.MARGIN, self.y, style.WIDTH - style.MARGIN, self.y), fill=style.LINE, width=2)
        self.y += 10

    def box(self, box: Box, fill: Colour = style.PANEL, outline: Colour = style.LINE, width: int = 2,
            radius: int = 12) -> None:
        """A rounded rectangle."""
        self.d.rounded_rectangle(box, radius=radius, fill=fill, outline=outline, width=width)

    def space(self, px: int) -> None:
        """Leave ``px`` px free."""
        self.y += px

    def legend(self, t_label: str, items: Sequence[tuple[Callable[[Canvas, int, int, int], None], str]],
               kind: str = "") -> None:
        """A legend: each item is a drawer ``(canvas, x, y, size)`` and its label, laid out in
        as many rows as needed. With a ``kind`` (the game and picture kind) the drawn strip is
        a band (:meth:`band`): drawn and encoded once (same labels → same pixels)."""
        if not kind:
            self._legend(t_label, items)
            return
        self.band(("legend", kind, t_label, tuple(text for _, text in items)), lambda c: c._legend(t_label, items))

    def _legend(self, t_label: str, items: Sequence[tuple[Callable[[Canvas, int, int, int], None], str]]) -> None:
        self._heading(t_label, style.MUTED)
        x = style.MARGIN
        size = 30
        for drawer, text in items:
            w = size + 10 + self.width(text, style.SMALL) + 28
            if x + w > style.WIDTH - style.MARGIN and x > style.MARGIN:
                x = style.MARGIN
                self.y += size + 12
            drawer(self, x, self.y, size)
            self.text(x + size + 10, self.y + size // 2, text, style.SMALL, style.MUTED, anchor="lm")
            x += w
        self.y += size + 16

    def png(self) -> bytes:
        """The picture cropped to its content, as PNG bytes (no metadata chunk): its
        bands as they were kept, the rows between them encoded now."""
        h = max(1, min(self.image.height, self.y + style.MARGIN))
        parts: list[Encoded] = []
        pos = 0
        for top, encoded in sorted(self.parts, key=lambda p: p[0]):
            if top >= h:
                break
            if top > pos:
                parts.append(encode_rows(self.image.crop((0, pos, style.WIDTH, top))))
            parts.append(encoded)
            pos = top + encoded.height
        if pos < h:
            parts.append(encode_rows(self.image.crop((0, pos, style.WIDTH, h))))
        return png_of(parts)


#: Rows above and below a band that its drawing may have touched (a badge, a frame's edge):
#: restored after a band is drawn, since a band only ever shows its own rows.
_SPILL = 32


@dataclass(frozen=True, slots=True)
class Encoded:
    """Full-width rows of a picture, encoded: ``height`` rows, each a filter byte (0) and one
    palette index a pixel (``size`` bytes in all, Adler-32 ``adler``), deflated into ``data``
    (a raw deflate stream ended by a sync flush, so that it can be followed by another)."""

    height: int
    size: int
    adler: int
    data: bytes


class KeptLRU(Generic[V]):
    """A thread-safe LRU of values by key, holding at most ``limit`` bytes, a value's bytes being
    ``sizeof(value)``; the least recently used values go beyond the limit (the last one put
    always stays)."""

    def __init__(self, limit: int, sizeof: Callable[[V], int]) -> None:
        self.limit = limit
        self.bytes = 0
        self._sizeof = sizeof
        self._data: OrderedDict[Hashable, V] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: Hashable) -> V | None:
        """The value kept under ``key``, or ``None``."""
        with self._lock:
            hit = self._data.get(key)
            if hit is not None:
                self._data.move_to_end(key)
            return hit

    def put(self, key: Hashable, value: V) -> None:
        """Keep ``value`` under ``key``."""
        with self._lock:
            old = self._data.pop(key, None)
            self.bytes += self._sizeof(value) - (self._sizeof(old) if old is not None else 0)
            self._data[key] = value
            while self.bytes > self.limit and len(self._data) > 1:
                _, gone = self._data.popitem(last=False)
                self.bytes -= self._sizeof(gone)

    def clear(self) -> None:
        """Forget every value."""
        with self._lock:
            self._data.clear()
            self.bytes = 0

    def __len__(self) -> int:
        return len(self._data)


class BandCache(KeptLRU[Encoded]):
    """The kept :class:`Encoded` bands by key, at most ``limit`` bytes of deflated data (the rows
    of about a hundred pictures by default)."""

    def __init__(self, limit: int = 24_000_000) -> None:
        super().__init__(limit, lambda encoded: len(encoded.data))


#: The bands of this process (see the module docstring).
BANDS = BandCache()


class SpriteCache(KeptLRU[tuple[Image.Image, Image.Image]]):
    """The kept sprites (:meth:`Canvas.sprite`: an image and its mask, mode ``L``) by key, at
    most ``limit`` bytes of pixels (about three hundred cards by default)."""

    def __init__(self, limit: int = 32_000_000) -> None:
        super().__init__(limit, lambda sprite: 2 * sprite[0].width * sprite[0].height)


#: The sprites of this process (:meth:`Canvas.sprite`).
SPRITES = SpriteCache()


@lru_cache(maxsize=16)
def _mask_lut(background: int) -> list[int]:
    """A lookup table giving 0 for the palette index ``background``, 255 for every other."""
    return [0 if i == background else 255 for i in range(256)]


@lru_cache(maxsize=8192)
def _text_width(text: str, size: int, bold: bool) -> int:
    """Width in px of ``text``: its words' advances and its spaces' (as :func:`_text_mask`)."""
    return sum(_word(word, size, bold)[3] for word in text.split(" ")) + _space(size, bold) * text.count(" ")


@lru_cache(maxsize=8192)
def _word(word: str, size: int, bold: bool) -> tuple[Image.Image, int, int, int]:
    """The coverage mask of ``word`` (no space in it), its offset from the pen on the baseline
    and its advance in px."""
    font = style.font(size, bold)
    if not word:
        return _EMPTY, 0, 0, 0
    x0, y0, x1, y1 = (int(v) for v in font.getbbox(word, anchor="ls"))
    mask = Image.new("L", (max(1, x1 - x0), max(1, y1 - y0)), 0)
    ImageDraw.Draw(mask).text((-x0, -y0), word, font=font, fill=255, anchor="ls")
    return mask, x0, y0, int(font.getlength(word))


_EMPTY = Image.new("L", (1, 1), 0)


@lru_cache(maxsize=64)
def _space(size: int, bold: bool) -> int:
    return int(style.font(size, bold).getlength(" "))


@lru_cache(maxsize=256)
def _anchor_dy(size: int, bold: bool, vertical: str) -> int:
    """How far the anchor's vertical position (``a``scender, ``m``iddle, ba``s``eline) lies
    from the baseline: the same for every text of a font."""
    font = style.font(size, bold)
    return int(font.getbbox("x", anchor="l" + vertical)[1] - font.getbbox("x", anchor="ls")[1])


@lru_cache(maxsize=4096)
def _text_mask(text: str, size: int, bold: bool, anchor: str) -> tuple[Image.Image, tuple[int, int]]:
    """The anti-aliased coverage mask of ``text`` and its offset from the anchor point, drawn
    once and reused. The picture font has whole-pixel advances and no kerning (the tests check
    it), so a line is its words (:func:`_word`, kept: words repeat far more than lines) side by
    side, a space's advance apart, overlapping ink taking the darker coverage, as Pillow draws
    the whole line (for the anchors ``[lmr][ams]`` and a text that neither starts nor ends with
    a space; others are drawn by Pillow)."""
    if anchor[0] not in "lmr" or anchor[1] not in "ams" or text[:1] == " " or text[-1:] == " ":
        return _pillow_mask(text, size, bold, anchor)
    space = _space(size, bold)
    pen = 0
    parts: list[tuple[Image.Image, int, int]] = []
    for i, word in enumerate(text.split(" ")):
        pen += space if i else 0
        if word:
            mask, x0, y0, advance = _word(word, size, bold)
            parts.append((mask, pen + x0, y0))
            pen += advance
    if not parts:
        return _pillow_mask(text, size, bold, anchor)
    left, top = min(x for _, x, _ in parts), min(y for _, _, y in parts)
    right = max(x + m.width for m, x, _ in parts)
    bottom = max(y + m.height for m, _, y in parts)
    if len(parts) == 1:
        line = parts[0][0]
    else:
        line = Image.new("L", (right - left, bottom - top), 0)
        for mask, x, y in parts:
            box = (x - left, y - top, x - left + mask.width, y - top + mask.height)
            line.paste(ImageChops.lighter(line.crop(box), mask), box)
    dx = {"l": 0, "m": -((pen + 1) // 2), "r": -pen}[anchor[0]]
    return line, (left + dx, top + _anchor_dy(size, bold, anchor[1]))


def _pillow_mask(text: str, size: int, bold: bool, anchor: str) -> tuple[Image.Image, tuple[int, int]]:
    """:func:`_text_mask` as Pillow draws the whole line."""
    font = style.font(size, bold)
    x0, y0, x1, y1 = (int(v) for v in font.getbbox(text, anchor=anchor))
    mask = Image.new("L", (max(1, x1 - x0), max(1, y1 - y0)), 0)
    ImageDraw.Draw(mask).text((-x0, -y0), text, font=font, fill=255, anchor=anchor)
    return mask, (x0, y0)


@lru_cache(maxsize=4096)
def _text_on(text: str, size: int, bold: bool, anchor: str, fill: Colour, bg: int) -> Image.Image:
    """The run of ``text`` (:func:`_text_mask`) blended in ``fill`` over the palette colour
    ``bg``, mapped to the palette."""
    mask, _ = _text_mask(text, size, bold, anchor)
    rgb = Image.new("RGB", mask.size, tuple(_PLTE[3 * bg:3 * bg + 3]))
    ImageDraw.Draw(rgb).bitmap((0, 0), mask, fill=fill)
    return _quantize(rgb)


def _quantize(image: Image.Image) -> Image.Image:
    """``image`` (RGB) mapped to the fixed palette, each pixel to the nearest colour (no
    dithering: the style's flat colours stay exact), as indices (mode ``L``)."""
    indexed = image.quantize(palette=_PALETTE, dither=Image.Dither.NONE)
    return Image.frombytes("L", indexed.size, indexed.tobytes())


def _rgb(indexed: Image.Image) -> Image.Image:
    """The colours of ``indexed`` (palette indices, mode ``L``), as an RGB image."""
    image = Image.frombytes("P", indexed.size, indexed.tobytes())
    image.putpalette(_PLTE)
    return image.convert("RGB")


@lru_cache(maxsize=1024)
def palette_index(colour: Colour) -> int:
    """The index of ``colour`` (RGB) in the fixed palette: the nearest colour's, as
    :func:`_quantize` maps it."""
    index: int = _quantize(Image.new("RGB", (1, 1), colour)).getpixel((0, 0))  # type: ignore[assignment]
    return index


def _palette() -> Image.Image:
    """The fixed 256-colour palette of every picture: the style's colours and their blends
    (anti-aliased edges of text and shapes), so that palette reduction is a fast lookup and the
    same colours always give the same indices."""
    exact = [style.BG, style.INK, style.MUTED, style.PANEL, style.LINE, style.TITLE_BG, style.TITLE_INK,
             style.FELT, style.ORANGE, style.SKY, style.GREEN, style.YELLOW, style.BLUE, style.VERMILLION,
             style.PURPLE, style.BLACK, (110, 70, 160), (236, 233, 226), (232, 229, 222), (214, 228, 240),
             (52, 58, 94), (210, 214, 230), (30, 30, 34)]
    fgs = [style.INK, style.MUTED, (255, 255, 255), style.BLUE, style.VERMILLION, style.GREEN, style.ORANGE,
           (52, 58, 94)]
    bgs = [style.BG, style.PANEL, style.TITLE_BG, (236, 233, 226), style.YELLOW, (214, 228, 240), style.SKY]
    colours: list[tuple[int, int, int]] = []
    for col in exact:
        if col not in colours:
            colours.append(col)
    for fg in fgs:
        for bg in bgs:
            for a in (0.2, 0.4, 0.6, 0.8):
                mix = tuple(round(f * a + b * (1 - a)) for f, b in zip(fg, bg, strict=True))
                if mix not in colours and len(colours) < 256:
                    colours.append(mix)  # type: ignore[arg-type]
    flat = [v for col in colours for v in col] + [0] * (768 - 3 * len(colours))
    pal = Image.new("P", (1, 1))
    pal.putpalette(flat)
    return pal


_PALETTE = _palette()


_PLTE = bytes(_PALETTE.getpalette() or [])[:768].ljust(768, b"\0")
_ADLER_BASE = 65521


def encode_rows(image: Image.Image) -> Encoded:
    """``image`` (indices in the fixed palette of :func:`_palette`, mode ``L``, or RGB: then
    mapped to it, :func:`_quantize`) deflated for speed (ISA-L's level 1). Each row starts with its PNG filter
    byte, 0 (none): the palette image is pasted one pixel to the right in a picture whose first
    column is index 0."""
    quantized = image if image.mode == "L" else _quantize(image)
    framed = Image.new("L", (image.width + 1, image.height), 0)
    framed.paste(quantized, (1, 0))
    rows = framed.tobytes()
    deflate = isal_zlib.compressobj(1, isal_zlib.DEFLATED, -15, 9)
    data = deflate.compress(rows) + deflate.flush(isal_zlib.Z_SYNC_FLUSH)
    return Encoded(image.height, len(rows), isal_zlib.adler32(rows), data)


def adler32_combine(a: int, b: int, size_b: int) -> int:
    """The Adler-32 of the concatenation of two byte strings from the sums ``a`` and ``b`` of
    each and the length ``size_b`` of the second (zlib's ``adler32_combine``)."""
    rem = size_b % _ADLER_BASE
    s1 = a & 0xFFFF
    s2 = (rem * s1) % _ADLER_BASE
    s1 = (s1 + (b & 0xFFFF) + _ADLER_BASE - 1) % _ADLER_BASE
    s2 = (s2 + (a >> 16) + (b >> 16) + _ADLER_BASE - rem) % _ADLER_BASE
    return s1 | (s2 << 16)


def _chunk(tag: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data))


def png_of(parts: Sequence[Encoded], width: int = style.WIDTH) -> bytes:
    """A PNG file (8-bit palette, no metadata) of the bands ``parts`` stacked top to bottom."""
    height = sum(p.height for p in parts)
    adler = 1
    for p in parts:
        adler = adler32_combine(adler, p.adler, p.size)
    stream = b"\x78\x01" + b"".join(p.data for p in parts) + b"\x03\x00" + struct.pack(">I", adler)
    return (b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 3, 0, 0, 0))
            + _chunk(b"PLTE", _PLTE) + _chunk(b"IDAT", stream) + _chunk(b"IEND", b""))


def to_png(image: Image.Image) -> bytes:
    """PNG bytes of ``image`` without any metadata chunk, encoded as
    one band (:func:`encode_rows`)."""
    return png_of([encode_rows(image)], image.width)


# --- marks -------------------------------------------------------------------------------------
def legal_tab(box: Box) -> Box:
    """The corner tab (the "✓" badge) of :func:`legal_frame` around ``box``: it sticks out 14 px
    above the box and 8 px right of it, so what is drawn there must leave it room."""
    x0, y0, x1, _ = box
    return (x1 - 26, y0 - 14, x1 + 8, y0 + 14)


def legal_frame(c: Canvas, box: Box) -> None:
    """The mark of a legal choice: a thick blue frame and a check mark in a corner tab."""
    x0, y0, x1, y1 = box
    c.d.rounded_rectangle((x0 - 5, y0 - 5, x1 + 5, y1 + 5), radius=12, outline=style.LEGAL, width=5)
    tab = legal_tab(box)
    c.d.ellipse(tab, fill=style.LEGAL)
    cx, cy = (tab[0] + tab[2]) // 2, (tab[1] + tab[3]) // 2
    c.d.line((cx - 8, cy, cx - 2, cy + 7, cx + 9, cy - 7), fill=(255, 255, 255), width=4)


def legal_key(c: Canvas, x: int, y: int, size: int) -> None:
    """Legend drawer of the legal-choice mark: a small framed box low in its cell, so that its
    badge (:func:`legal_tab`) stays in the cell, clear of the legend row above."""
    box = (x + 2, y + 14, x + size - 10, y + size + 2)
    c.box(box, radius=4)
    legal_frame(c, box)


def seat_chip(c: Canvas, x: int, y: int, seat: int, name: str, max_w: int, size: int = style.BODY,
              bold: bool = True, current: bool = False) -> int:
    """A seat's colour disc with its number, then its name; a "▶" triangle when it is to act.
    Returns the width used."""
    colour = style.SEAT_COLOURS[seat % len(style.SEAT_COLOURS)]
    x0 = x
    if current:
        c.d.polygon([(x, y + 6), (x, y + size), (x + 16, y + size // 2 + 3)], fill=style.INK)
        x += 22
    r = size // 2 + 2
    c.d.ellipse((x, y + 2, x + 2 * r, y + 2 + 2 * r), fill=colour)
    c.text(x + r, y + 2 + r, str(seat + 1), style.SMALL, (255, 255, 255), bold=True, anchor="mm")
    x += 2 * r + 10
    w = c.text(x, y, name, size, style.INK, bold=bold, max_w=max(20, max_w - (x - x0)))
    return x - x0 + w


# --- dice --------------------------------------------------------------------------------------
_PIPS: dict[int, tuple[tuple[float, float], ...]] = {
    1: ((0.5, 0.5),),
    2: ((0.27, 0.27), (0.73, 0.73)),
    3: ((0.27, 0.27), (0.5, 0.5), (0.73, 0.73)),
    4: ((0.27, 0.27), (0.73, 0.27), (0.27, 0.73), (0.73, 0.73)),
    5: ((0.27, 0.27), (0.73, 0.27), (0.5, 0.5), (0.27, 0.73), (0.73, 0.73)),
    6: ((0.27, 0.25), (0.73, 0.25), (0.27, 0.5), (0.73, 0.5), (0.27, 0.75), (0.73, 0.75)),
}


def pips(c: Canvas, box: Box, n: int, colour: Colour = style.INK) -> None:
    """``n`` (0–6) pips in ``box`` as on a die face."""
    x0, y0, x1, y1 = box
    w = x1 - x0
    r = max(2, int(w * 0.09))
    for px, py in _PIPS.get(n, ()):
        cx, cy = x0 + px * w, y0 + py * (y1 - y0)
        c.d.ellipse((cx - r, cy - r, cx + r, cy + r), fill=colour)


def boss(c: Canvas, box: Box, colour: Colour = style.INK) -> None:
    """The Gang of Dice boss drawn as a figure: a man in a bowler hat and a suit."""
    x0, y0, x1, y1 = box
    w = x1 - x0
    cx = x0 + w / 2
    head_r = w * 0.13
    head_cy = y0 + w * 0.40
    # body (shoulders)
    c.d.pieslice((cx - w * 0.30, y0 + w * 0.56, cx + w * 0.30, y0 + w * 1.10), 180, 360, fill=colour)
    # tie
    c.d.polygon([(cx - w * 0.05, y0 + w * 0.58), (cx + w * 0.05, y0 + w * 0.58), (cx, y0 + w * 0.80)],
                fill=style.VERMILLION)
    # head
    c.d.ellipse((cx - head_r, head_cy - head_r, cx + head_r, head_cy + head_r), fill=colour)
    # hat: brim and crown
    c.d.rectangle((cx - w * 0.22, y0 + w * 0.27, cx + w * 0.22, y0 + w * 0.31), fill=colour)
    c.d.chord((cx - w * 0.14, y0 + w * 0.12, cx + w * 0.14, y0 + w * 0.40), 180, 360, fill=colour)


def die(c: Canvas, x: int, y: int, size: int, face: int | None, fill: Colour = (255, 255, 255),
        pip: Colour = style.INK, outline: Colour = style.INK, marked: bool = False) -> None:
    """A die at ``(x, y)``: pips for 1–6, the boss figure for face 0, empty for ``None``.
    ``marked`` dice are drawn with a dashed-looking orange ring and a reroll arrow."""
    box = (x, y, x + size, y + size)
    c.d.rounded_rectangle(box, radius=max(4, size // 6), fill=fill, outline=outline, width=max(2, size // 20))
    if face == 0:
        # clip the figure to the die by drawing inside a slightly smaller box
        m = size * 0.04
        boss(c, (int(x + m), int(y + m), int(x + size - m), int(y + size - m)), pip)
        c.d.rounded_rectangle(box, radius=max(4, size // 6), outline=outline, width=max(2, size // 20))
    elif face is not None:
        pips(c, box, face, pip)
    if marked:
        c.d.rounded_rectangle((x - 4, y - 4, x + size + 4, y + size + 4), radius=max(6, size // 5),
                              outline=style.ORANGE, width=4)
        r = size // 4 + 4
        c.d.ellipse((x + size - r, y - r + 2, x + size + r - 4, y + r - 2), fill=style.ORANGE)
        reroll_icon(c, x + size - r + 2, y - r + 4, 2 * r - 8, style.INK)


# --- dominoes ----------------------------------------------------------------------------------
def domino(c: Canvas, x: int, y: int, w: int, a: int, b: int, vertical: bool = True,
           fill: Colour = (255, 255, 255), dim: bool = False) -> Box:
    """A domino tile ``[a|b]`` with pips (0–6); ``w`` is the short side. Returns its box."""
    h = 2 * w
    box = (x, y, x + w, y + h) if vertical else (x, y, x + h, y + w)
    pip = style.MUTED if dim else style.INK
    c.d.rounded_rectangle(box, radius=max(4, w // 8), fill=fill, outline=style.INK, width=3)
    if vertical:
        c.d.line((x + 6, y + w, x + w - 6, y + w), fill=style.INK, width=3)
        pips(c, (x, y, x + w, y + w), a, pip)
        pips(c, (x, y + w, x + w, y + h), b, pip)
    else:
        c.d.line((x + w, y + 6, x + w, y + w - 6), fill=style.INK, width=3)
        pips(c, (x, y, x + w, y + w), a, pip)
        pips(c, (x + w, y, x + h, y + w), b, pip)
    return box


# --- icons -------------------------------------------------------------------------------------
def reroll_icon(c: Canvas, x: int, y: int, size: int, colour: Colour = style.INK) -> None:
    """Two arrows in a circle (reroll)."""
    w = max(2, size // 8)
    box = (x + w, y + w, x + size - w, y + size - w)
    c.d.arc(box, 200, 340, fill=colour, width=w)
    c.d.arc(box, 20, 160, fill=colour, width=w)
    s = size * 0.18
    # arrow heads at the ends of the arcs (340° and 160°)
    for ang in (340, 160):
        rad = math.radians(ang)
        cx = x + size / 2 + (size / 2 - w) * math.cos(rad)
        cy = y + size / 2 + (size / 2 - w) * math.sin(rad)
        tx, ty = -math.sin(rad), math.cos(rad)  # tangent (clockwise)
        c.d.polygon([(cx + tx * s, cy + ty * s), (cx - ty * s * 0.8, cy + tx * s * 0.8),
                     (cx + ty * s * 0.8, cy - tx * s * 0.8)], fill=colour)


def shape(c: Canvas, kind: str, box: Box, fill: Colour, outline: Colour = style.INK) -> None:
    """A plain shape in ``box``: triangle, circle, diamond, square, cross or star."""
    x0, y0, x1, y1 = box
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    if kind == "triangle":
        c.d.polygon([(cx, y0), (x1, y1), (x0, y1)], fill=fill, outline=outline, width=2)
    elif kind == "circle":
        c.d.ellipse(box, fill=fill, outline=outline, width=2)
    elif kind == "diamond":
        c.d.polygon([(cx, y0), (x1, cy), (cx, y1), (x0, cy)], fill=fill, outline=outline, width=2)
    elif kind == "square":
        c.d.rectangle(box, fill=fill, outline=outline, width=2)
    elif kind == "cross":
        t = (x1 - x0) / 3
        pts = [(x0 + t, y0), (x1 - t, y0), (x1 - t, y0 + t), (x1, y0 + t), (x1, y1 - t), (x1 - t, y1 - t),
               (x1 - t, y1), (x0 + t, y1), (x0 + t, y1 - t), (x0, y1 - t), (x0, y0 + t), (x0 + t, y0 + t)]
        c.d.polygon(pts, fill=fill, outline=outline, width=2)
    else:  # star
        r, ri = (x1 - x0) / 2, (x1 - x0) / 5
        pts = []
        for i in range(10):
            ang = math.radians(-90 + 36 * i)
            rr = r if i % 2 == 0 else ri
            pts.append((cx + rr * math.cos(ang), cy + rr * math.sin(ang)))
        c.d.polygon(pts, fill=fill, outline=outline, width=2)


def moon(c: Canvas, x: int, y: int, size: int, filled: bool = True) -> None:
    """A crescent Moon token (``filled``) or an empty token space (a dashed-looking ring)."""
    box = (x, y, x + size, y + size)
    if not filled:
        c.d.ellipse(box, fill=(255, 255, 255), outline=style.MUTED, width=3)
        return
    c.d.ellipse(box, fill=(52, 58, 94), outline=style.INK, width=2)
    off = size * 0.28
    c.d.ellipse((x + off, y - size * 0.06, x + size + off * 0.6, y + size * 0.86), fill=(52, 58, 94))
    c.d.ellipse((x + size * 0.12, y + size * 0.12, x + size * 0.7, y + size * 0.88), fill=style.YELLOW)
    c.d.ellipse((x + size * 0.3, y + size * 0.04, x + size * 0.86, y + size * 0.8), fill=(52, 58, 94))


def card_box(c: Canvas, box: Box, band: Colour, band_text: str = "", band_ink: Colour = style.INK,
             fill: Colour = (255, 255, 255), band_h: int = 36) -> int:
    """A card: rounded frame and a coloured top band with a label. Returns the y below the band."""
    x0, y0, x1, y1 = box
    c.d.rounded_rectangle(box, radius=12, fill=fill, outline=style.INK, width=2)
    c.d.rounded_rectangle((x0 + 2, y0 + 2, x1 - 2, y0 + band_h), radius=10, fill=band)
    c.d.rectangle((x0 + 2, y0 + band_h - 10, x1 - 2, y0 + band_h), fill=band)
    if band_text:
        c.text(x0 + 10, y0 + band_h // 2 + 1, band_text, style.SMALL, band_ink, bold=True,
               max_w=x1 - x0 - 20, anchor="lm")
    return y0 + band_h + 6


def chip(c: Canvas, x: int, y: int, text: str, legal: bool = False, fill: Colour = (255, 255, 255),
         size: int = style.BODY, max_w: int = 360) -> int:
    """A choice chip (rounded label); ``legal`` ones get the legal-choice frame. Returns the
    width used, gaps included."""
    text = c.fit(text, max_w - 28, size, bold=legal)
    w = c.width(text, size, bold=legal) + 28
    box = (x, y, x + w, y + size + 18)
    c.box(box, fill=fill if legal else (236, 233, 226), outline=style.INK if legal else style.LINE, radius=10)
    c.text(x + 14, y + 7, text, size, style.INK if legal else style.MUTED, bold=legal)
    if legal:
        legal_frame(c, box)
    return w + 22


def name_of(names: Sequence[str], seat: object) -> str:
    """Display name of ``seat`` (``?`` when unknown)."""
    if isinstance(seat, int) and 0 <= seat < len(names):
        return names[seat]
    return "?"
