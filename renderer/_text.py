"""Fonts, and text measured and rendered once: shared by all renders.

The caches hold immutable things (fonts, widths, fitted texts, glyph masks),
filled on first use and never mutated afterwards, so renders may run in worker
threads side by side; each is bounded (least recently used entries go).
"""

from __future__ import annotations

import functools
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from PIL import ImageFont

if TYPE_CHECKING:
    from PIL._imaging import ImagingCore

FONT_DIR = Path(__file__).resolve().parent / "fonts"
BOLD_FONT = FONT_DIR / "DejaVuSans-Bold.ttf"
REGULAR_FONT = FONT_DIR / "DejaVuSans.ttf"

# Font sizes (px on the 1500-px canvas; Discord's desktop preview shows about
# 0.37 of that, a phone about 0.27).
MAP_NUMBER = 56  # a bare castle square's height
KNIGHT_NUMBER = 46  # the level inside a knight's marker (or under the crown)
EDGE_LABEL = 28  # a-h, 1-8
TAG_SIZE = 26  # castle area tags
TITLE_SIZE = 34
STAGE_SIZE = 30
NAME_SIZE = 34
SCORE_SIZE = 46
ROW_TEXT = 26
BODY = 26  # deck, king's castle, master card, hand
SMALL = 22  # master card help, legend


# -- caches of immutable things, shared by all renders ---------------------------
# FreeType faces are safe to share: Pillow holds the GIL (or, free-threaded, a
# per-font lock) while it uses one.


@functools.cache
def _font(size: int, bold: bool) -> ImageFont.FreeTypeFont:
    return ImageFont.truetype(str(BOLD_FONT if bold else REGULAR_FONT), size)


# Large: wrapping a paragraph measures each of its prefixes at several sizes, and
# each game's texts (names, scores, hands) are new to the cache; a miss holds the
# interpreter lock (~60 us), which the bot's event loop waits for. 65,536 entries
# (~20 MB) keep about 200 games' texts: at 200 games a render missed ~90 times
# with 8,192 entries, ~40 with these.
@functools.lru_cache(maxsize=65536)
def _length(text: str, size: int, bold: bool) -> float:
    return _font(size, bold).getlength(text)


@functools.lru_cache(maxsize=8192)
def _fit(text: str, size: int, width: float, bold: bool, min_size: int) -> tuple[str, int]:
    """``Canvas.fit``: the same text in the same room fits the same way in
    every picture (scores, levels, names, row lines), measured once."""
    while size > min_size and _length(text, size, bold) > width:
        size -= 1
    if _length(text, size, bold) <= width:
        return text, size
    while text and _length(text + "…", size, bold) > width:
        text = text[:-1]
    return text + "…", size


@functools.lru_cache(maxsize=1024)
def _shown(name: str) -> str:
    font = _font(30, True)
    missing = bytes(font.getmask("\U0010fffd"))
    chars = []
    for ch in name:
        if ch.isspace() or ch.isascii():
            chars.append(ch if ch.isprintable() else "?")
        elif unicodedata.category(ch) in ("Mn", "Cf"):
            continue  # variation selectors, joiners: nothing to draw
        else:
            chars.append("?" if bytes(font.getmask(ch)) == missing else ch)
    return " ".join("".join(chars).split()) or "?"


#: A rendered text's mask (Pillow's ImagingCore, as ``FreeTypeFont.getmask2``
#: returns it) and its offset from the anchor point.
Mask = tuple["ImagingCore", tuple[int, int]]


@dataclass(frozen=True)
class _Glyph:
    """One text rendered once: its anti-aliased masks (with their offsets from the
    anchor point) and its box relative to that point. The masks are never written to."""

    mask: Mask
    stroke_mask: Mask | None
    bbox: tuple[float, float, float, float]


#: About 150 texts per picture, mostly recurring (digits, labels, unchanged panel
#: lines); masks average ~1.5 KB and reach ~40 KB for a full-width line, so
#: 2048 entries keep memory to a few MB while the hot glyphs of all three
#: languages stay cached (the stored test pictures in three languages need ~900).
@functools.lru_cache(maxsize=2048)
def _glyph(
    text: str, size: int, bold: bool, anchor: str, stroke: int, fx: float, fy: float
) -> _Glyph:
    """Masks of ``text`` as ImageDraw.text makes them, for an anchor point whose
    fractional part is (fx, fy) (FreeType renders at sub-pixel offsets).

    Most of a picture's text (heights, labels, letters, names, card lines) recurs
    from render to render, and rendering glyphs was the largest part of drawing.
    """
    font = _font(size, bold)
    start = (fx, fy)
    mask = font.getmask2(text, "L", anchor=anchor, start=start, stroke_filled=True)
    stroke_mask = None
    if stroke:
        stroke_mask = font.getmask2(
            text, "L", stroke_width=stroke, anchor=anchor, start=start, stroke_filled=True
        )
    bbox = font.getbbox(text, "L", stroke_width=stroke, anchor=anchor)
    return _Glyph(mask, stroke_mask, bbox)
