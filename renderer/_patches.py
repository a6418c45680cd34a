"""Drawing straight in the fixed palette: the palette image's ImageDraw and the
bounded caches of text and map cell patches (pixels of the RGB picture after
``encode_png``'s quantisation, drawn once)."""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import TYPE_CHECKING, Generic, TypeVar

from PIL import Image, ImageDraw

from ._palette import RGB, Box, _flat_indices, palette_image
from ._text import _Glyph

if TYPE_CHECKING:
    from PIL._typing import _Ink


class _IndexDraw(ImageDraw.ImageDraw):
    """ImageDraw on a palette image with the fixed palette, taking the drawing
    code's RGB colours: each flat colour is drawn as the palette index it
    quantises to, so shapes come out as they would on the RGB picture after
    ``encode_png``. A colour that is not a flat one is an error, not a new
    palette entry."""

    def __init__(self, image: Image.Image) -> None:
        super().__init__(image)
        self.palette = None  # indices, never ImagePalette.getcolor (it adds colours)

    def _getink(self, ink: _Ink | None, fill: _Ink | None = None) -> tuple[int | None, int | None]:
        index = _flat_indices()
        if isinstance(ink, tuple):
            red, green, blue = ink
            ink = index[(red, green, blue)]
        if isinstance(fill, tuple):
            red, green, blue = fill
            fill = index[(red, green, blue)]
        return super()._getink(ink, fill)


#: What a cache entry costs beside its pixels: the Image and its Python key.
ENTRY_OVERHEAD = 1024


def _pixels(entry: Image.Image | _Cell) -> int:
    """Bytes an entry of a patch cache is counted for (palette pixels: a byte each)."""
    image = entry.patch if isinstance(entry, _Cell) else entry
    return image.width * image.height + ENTRY_OVERHEAD


#: What a patch cache holds: text patches (images) or map cells.
_Entry = TypeVar("_Entry", "Image.Image", "_Cell")
#: A patch's key: what was drawn and what it was drawn over.
Key = tuple[object, ...]


class _PatchCache(Generic[_Entry]):
    """Patches of the palette image, least recently used dropped first, bounded
    by the bytes of their pixels plus ENTRY_OVERHEAD each.

    A patch is what drawing one text on the RGB picture, over exactly the palette
    indices that were under it, and quantising gives: the same text over the same
    ground (a name on its row, a level on its marker, a line of the legend) is the
    same patch picture after picture."""

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self.bytes = 0
        self.hits = self.misses = 0
        self._items: OrderedDict[Key, _Entry] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: Key) -> _Entry | None:
        with self._lock:
            patch = self._items.get(key)
            if patch is None:
                self.misses += 1
                return None
            self.hits += 1
            self._items.move_to_end(key)
            return patch

    def put(self, key: Key, patch: _Entry) -> None:
        size = _pixels(patch)
        with self._lock:
            if key in self._items or size > self.max_bytes:
                return
            self._items[key] = patch
            self.bytes += size
            while self.bytes > self.max_bytes:
                _, old = self._items.popitem(last=False)
                self.bytes -= _pixels(old)

    def __len__(self) -> int:
        return len(self._items)

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
            self.bytes = self.hits = self.misses = 0


#: Everything ``_map_cell`` draws lies this far inside the cell's box (the
#: highlight frame starts there; markers, the crown and numbers are smaller),
#: clear of the grid and the castle walls on the cell's edges.
CELL_INSET = 5


@dataclass(frozen=True)
class _Cell:
    """The inside of a map cell as drawn on the palette image, and the text
    records drawn there, their boxes relative to the cell's centre."""

    patch: Image.Image
    texts: tuple[tuple[str, int, Box], ...]


#: Cells by (ground, height, highlighted, knight's look, king): ~40 kinds occur
#: in practice (200 random games); each is 102 x 102 px (~11 KB counted), so
#: 2 MB hold ~180.
_CELLS: _PatchCache[_Cell] = _PatchCache(2 << 20)

#: A picture pastes ~35 texts, ~7 KB each on average (a full-width line of the
#: panel ~20 KB). The stored test pictures in three languages need ~7 MB. With
#: 200 random games taking turns, 8 MB hit 69% of texts, 16 MB 77%, 48 MB 89%
#: (a miss, ~100 us plus the glyph, is mostly a text new to the picture: a
#: score, a name, a line at a new height).
_PATCHES: _PatchCache[Image.Image] = _PatchCache(16 << 20)


def _make_patch(
    glyph: _Glyph,
    fill: RGB,
    stroke_fill: RGB | None,
    under: Image.Image,
    left: int,
    top: int,
    ground: RGB | None = None,
) -> Image.Image:
    """The palette indices of ``under`` (a crop of the palette image) with the
    text drawn on it as ``Canvas.text`` draws it on an RGB picture, quantised as
    ``encode_png`` quantises it; pixels the text does not touch keep their index.

    *ground*: the flat colour all of ``under`` is, if it is one. A flat colour
    quantises to its own index, so then the quantised drawing is the patch as
    it is (~60 us); otherwise the untouched pixels are put back through a mask
    (an anti-aliased pixel's colour need not quantise to its own index)."""
    rgb = Image.new("RGB", under.size, ground) if ground is not None else under.convert("RGB")
    draw = ImageDraw.Draw(rgb)
    ink = draw._getink(fill)[0]
    masks = []
    if glyph.stroke_mask is not None:
        stroke_ink = ink if stroke_fill is None else draw._getink(stroke_fill)[0]
        masks.append((glyph.stroke_mask, stroke_ink))
        if ink != stroke_ink:
            masks.append((glyph.mask, ink))
    else:
        masks.append((glyph.mask, ink))
    for (mask, (ox, oy)), colour in masks:
        draw.draw.draw_bitmap((ox - left, oy - top), mask, colour)
    drawn = rgb.quantize(palette=palette_image(), dither=Image.Dither.NONE)
    if ground is not None:
        return drawn
    touched = Image.new("L", under.size, 0)
    cover = ImageDraw.Draw(touched).draw
    for (mask, (ox, oy)), _ in masks:
        cover.draw_bitmap((ox - left, oy - top), mask, 255)
    patch = under.copy()
    patch.paste(drawn, (0, 0), touched.point(_TOUCHED))
    return patch


#: Any coverage at all: the pixel was drawn on.
_TOUCHED = [0] + [255] * 255
