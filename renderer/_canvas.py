"""What a picture is drawn with: text and the players' marker shapes on one
image (RGB, or straight in the fixed palette), and the records of where things
landed (for tests and callers)."""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass, field

from PIL import Image, ImageDraw

from . import geometry as g
from ._model import BoardView
from ._palette import BACKGROUND, INK, KING_FILL, RGB, Box, _flat_colours
from ._patches import _PATCHES, Key, _IndexDraw, _make_patch
from ._text import _fit, _Glyph, _glyph, _shown


@dataclass
class TextBox:
    """Where one piece of text landed: for layout checks in tests."""

    text: str
    box: Box
    layer: str  # "header", "map", "edge", "panel", "footer"
    size: int  # font size in pixels


@dataclass
class PieceMark:
    """Where a knight or the king was drawn on the map."""

    kind: str  # "knight" or "king"
    owner: str | None
    square: str
    level: int
    center: tuple[float, float]
    map_box: tuple[int, int, int, int]


@dataclass
class Rendering:
    """A rendered picture plus the records tests and callers may inspect."""

    image: Image.Image
    texts: list[TextBox] = field(default_factory=list)
    pieces: list[PieceMark] = field(default_factory=list)


class Canvas:
    """One image to draw text and shapes on, with the records of what landed
    where. The empty base map is drawn on a bare canvas; a position is painted
    by a ``ViewPainter``."""

    def __init__(self, image: Image.Image | None = None) -> None:
        self.image = image if image is not None else Image.new("RGB", g.CANVAS_SIZE, BACKGROUND)
        #: On a palette image (the fixed palette) shapes are drawn in palette
        #: indices and text is pasted from the patch cache: the pixels of the
        #: RGB picture after ``encode_png``'s quantisation, without drawing or
        #: quantising the RGB picture.
        self.paletted = self.image.mode == "P"
        self.draw = _IndexDraw(self.image) if self.paletted else ImageDraw.Draw(self.image)
        self.out = Rendering(self.image)

    # -- text ---------------------------------------------------------------
    def text(
        self,
        xy: tuple[float, float],
        text: str,
        size: int,
        fill: RGB = INK,
        *,
        anchor: str = "la",
        layer: str,
        bold: bool = True,
        stroke: int = 0,
        stroke_fill: RGB | None = None,
    ) -> Box:
        x, y = xy
        fx, fy = math.modf(x)[0], math.modf(y)[0]
        glyph = _glyph(text, size, bold, anchor, stroke, fx, fy)
        if self.paletted:
            self._paste_text(
                glyph, (text, size, bold, anchor, stroke, fx, fy), x, y, fill, stroke_fill
            )
            left, top, right, bottom = glyph.bbox
            box = (left + x, top + y, right + x, bottom + y)
            self.out.texts.append(TextBox(text, box, layer, size))
            return box
        # As ImageDraw.text does it (Pillow 13), with the masks from the cache:
        # the stroke in stroke_fill, then the text itself on top.
        ix, iy = int(x), int(y)
        ink = self.draw._getink(fill)[0]
        if glyph.stroke_mask is not None:  # drawn with a stroke
            stroke_ink = ink if stroke_fill is None else self.draw._getink(stroke_fill)[0]
            mask, (ox, oy) = glyph.stroke_mask
            self.draw.draw.draw_bitmap((ix + ox, iy + oy), mask, stroke_ink)
            draw_fill = ink != stroke_ink
        else:
            draw_fill = True
        if draw_fill:
            mask, (ox, oy) = glyph.mask
            self.draw.draw.draw_bitmap((ix + ox, iy + oy), mask, ink)
        left, top, right, bottom = glyph.bbox
        box = (left + x, top + y, right + x, bottom + y)
        self.out.texts.append(TextBox(text, box, layer, size))
        return box

    def _paste_text(
        self,
        glyph: _Glyph,
        key: Key,
        x: float,
        y: float,
        fill: RGB,
        stroke_fill: RGB | None,
    ) -> None:
        """Text on the palette image: the patch of palette indices that drawing it
        on the RGB picture and quantising would give, from the patch cache, keyed
        by the text and what is under it."""
        ix, iy = int(x), int(y)
        masks = [glyph.mask] if glyph.stroke_mask is None else [glyph.stroke_mask, glyph.mask]
        left = min(ox for _, (ox, _) in masks)
        top = min(oy for _, (_, oy) in masks)
        right = max(ox + m.size[0] for m, (ox, _) in masks)
        bottom = max(oy + m.size[1] for m, (_, oy) in masks)
        if right <= left or bottom <= top:
            return  # nothing drawn (blank text)
        box = (ix + left, iy + top, ix + right, iy + bottom)
        # What is under the text: mostly one flat colour (a row, a marker, a
        # stone), keyed by its index; else by a digest of the indices.
        low, high = self.image.im.crop(box).getextrema()
        if low == high:
            ground: object = low
        else:
            ground = hashlib.blake2b(self.image.crop(box).tobytes(), digest_size=16).digest()
        patch_key = (key, fill, stroke_fill, box[2] - box[0], box[3] - box[1], ground)
        patch = _PATCHES.get(patch_key)
        if patch is None:
            flat = _flat_colours().get(ground) if isinstance(ground, int) else None
            under = self.image.crop(box)
            patch = _make_patch(glyph, fill, stroke_fill, under, left, top, flat)
            _PATCHES.put(patch_key, patch)
        self.image.im.paste(patch.im, box)

    def fit(
        self, text: str, size: int, width: float, *, bold: bool = True, min_size: int = 16
    ) -> tuple[str, int]:
        """Largest font size <= size (down to min_size) at which text fits width;
        past that, the text is cut with an ellipsis."""
        return _fit(text, size, width, bold, min_size)

    def shown(self, name: str) -> str:
        """A player name as drawn: characters the shipped font lacks (emoji, CJK)
        become "?" instead of empty boxes."""
        return _shown(name)

    # -- shapes --------------------------------------------------------------
    def marker(
        self,
        shape: str,
        cx: float,
        cy: float,
        r: float,
        fill: RGB | None,
        width: int = 3,
        outline: RGB = INK,
    ) -> None:
        """A player's marker: the shape is the non-colour cue."""
        d = self.draw
        if shape == "circle":
            d.ellipse((cx - r, cy - r, cx + r, cy + r), fill=fill, outline=outline, width=width)
        elif shape == "square":
            s = r * 0.88
            box = (cx - s, cy - s, cx + s, cy + s)
            d.rectangle(box, fill=fill, outline=outline, width=width)
        else:
            pts = _polygon(shape, cx, cy, r)
            if fill is not None:
                d.polygon(pts, fill=fill)
            d.line([*pts, pts[0], pts[1]], fill=outline, width=width, joint="curve")

    def marker_text_y(self, shape: str, cy: float, r: float) -> float:
        """Where text inside a marker is centred: lower in a triangle, whose
        wide part is at the bottom."""
        return cy + (0.2 * r if shape == "triangle" else 0.0)

    def crown(
        self, cx: float, cy: float, r: float, width: int = 3, fill: RGB | None = KING_FILL
    ) -> None:
        """The king: a white crown with a heavy outline (no player is white)."""
        pts = [
            (cx - r, cy + r * 0.7),
            (cx - r * 1.05, cy - r * 0.75),
            (cx - r * 0.5, cy - r * 0.05),
            (cx, cy - r * 0.95),
            (cx + r * 0.5, cy - r * 0.05),
            (cx + r * 1.05, cy - r * 0.75),
            (cx + r, cy + r * 0.7),
        ]
        if fill is not None:
            self.draw.polygon(pts, fill=fill)
        self.draw.line([*pts, pts[0], pts[1]], fill=INK, width=width, joint="curve")


def _polygon(shape: str, cx: float, cy: float, r: float) -> list[tuple[float, float]]:
    """Corner points of the triangle and diamond markers."""
    if shape == "triangle":
        return [(cx, cy - r * 1.15), (cx + r * 1.1, cy + r * 0.8), (cx - r * 1.1, cy + r * 0.8)]
    s = r * 1.18
    return [(cx, cy - s), (cx + s, cy), (cx, cy + s), (cx - s, cy)]


class ViewPainter(Canvas):
    """A canvas painting one position as one viewer sees it: the map's and the
    panel's painters both draw from ``view``."""

    def __init__(self, view: BoardView, image: Image.Image | None = None) -> None:
        super().__init__(image)
        self.view = view
