"""Paint a BoardView onto a Pillow image.

Each call paints on its own image. The only shared state is a set of caches of
immutable things (fonts, rendered text masks, text widths, wrapped paragraphs,
the empty map, and for pictures drawn straight in the PNG's palette, text and
map cell patches): filled on first use, never mutated afterwards, so renders may
run in worker threads side by side. Every cache is bounded (least recently used
entries go). They live beside what they cache: ``_text`` (fonts, widths, glyph
masks), ``_layout`` (wrapped paragraphs), ``_map`` (the base map), ``_patches``
(text and map cell patches).
"""

from __future__ import annotations

from ._canvas import Rendering
from ._map import MapPainter, _base, _base_paletted
from ._model import BoardView
from ._panel import PanelPainter


class _Painter(MapPainter, PanelPainter):
    """The whole picture of one view: its map, then its panel."""

    def paint(self) -> Rendering:
        """Draw everything on a copy of the base (background and the empty map
        with its labels: the same in every picture)."""
        self.top_map()
        self.panel()
        return self.out


def paint(view: BoardView, *, paletted: bool = False) -> Rendering:
    """Draw the whole picture for ``view``: in RGB, or (*paletted*) straight in
    the fixed palette, pixel for pixel the RGB picture quantised by
    ``encode_png`` (a quarter of the memory, no quantisation)."""
    base = _base_paletted() if paletted else _base().image
    return _Painter(view, base.copy()).paint()
