"""Paint a BoardView onto a Pillow image.

Each call paints on its own image. The only shared state is a set of caches of
immutable things (fonts, rendered text masks, text widths, wrapped paragraphs,
the empty map, and for pictures drawn straight in the PNG's palette, text and
map cell patches): filled on first use, never mutated afterwards, so renders may
run in worker threads side by side. Every cache is bounded (least recently used
entries go).
"""

from __future__ import annotations

import functools
import hashlib
import math
import re
import threading
import unicodedata
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from PIL import Image, ImageDraw, ImageFont

from . import geometry as g
from ._describe import shows_hand, stack_words, stage_line, title
from ._model import DEFAULT_HIGHLIGHT_NOTE, PLAYER_COLOURS, PLAYER_INKS, BoardView, PlayerView
from .i18n import card_name, master_card_help, master_card_name, t, tn

FONT_DIR = Path(__file__).resolve().parent / "fonts"
BOLD_FONT = FONT_DIR / "DejaVuSans-Bold.ttf"
REGULAR_FONT = FONT_DIR / "DejaVuSans.ttf"

RGB = tuple[int, int, int]
Box = tuple[float, float, float, float]

BACKGROUND: RGB = (250, 248, 243)
INK: RGB = (28, 28, 32)
MUTED: RGB = (92, 92, 100)
HEADER_BG: RGB = (38, 42, 52)
HEADER_INK: RGB = (255, 255, 255)
FLOOR_LIGHT: RGB = (238, 233, 221)
FLOOR_DARK: RGB = (226, 219, 204)
EDGE: RGB = (62, 56, 48)
#: Highlighted squares: Okabe–Ito reddish purple, drawn thick.
HIGHLIGHT: RGB = (204, 121, 167)
KING_FILL: RGB = (255, 255, 255)
TAG_BG: RGB = (45, 45, 52)
TO_MOVE_BG: RGB = (255, 240, 196)
WINNER_BG: RGB = (214, 236, 222)
WHITE: RGB = (255, 255, 255)
GRID_LINE: RGB = (190, 182, 166)
ROW_EDGE: RGB = (200, 196, 186)

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


#: A way to draw a slice of the side panel: its height, and a function drawing
#: it with its top at a given y.
_Option = tuple[float, Callable[[float], None]]


@dataclass
class _Block:
    """A slice of the side panel, with ways to draw it, fullest first."""

    options: list[_Option]
    #: When the panel runs short, blocks with a lower number give up room first
    #: (their next option); 0 never does.
    yields: int = 0

    @property
    def height(self) -> float:
        return self.options[0][0]


class _Painter:
    def __init__(self, view: BoardView | None, image: Image.Image | None = None) -> None:
        self.view = view  # None only while painting the shared base picture
        self.image = image if image is not None else Image.new("RGB", g.CANVAS_SIZE, BACKGROUND)
        #: On a palette image (the fixed palette) shapes are drawn in palette
        #: indices and text is pasted from the patch cache: the pixels of the
        #: RGB picture after ``encode_png``'s quantisation, without drawing or
        #: quantising the RGB picture.
        self.paletted = self.image.mode == "P"
        self.draw = _IndexDraw(self.image) if self.paletted else ImageDraw.Draw(self.image)
        self.out = Rendering(self.image)
        #: What the panel's layout works out once and uses at every scale.
        self._memo: dict[tuple, Any] = {}

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
        if stroke:
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
        key: tuple,
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

    def fit(self, text: str, size: int, width: float, *, bold: bool = True, min_size: int = 16):
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
    ):
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

    def crown(self, cx: float, cy: float, r: float, width: int = 3, fill: RGB | None = KING_FILL):
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

    # -- the whole picture ---------------------------------------------------
    def paint(self) -> Rendering:
        """Draw everything on a copy of the base (background and the empty map
        with its labels: the same in every picture)."""
        self.top_map()
        self.panel()
        return self.out

    # -- top-down map --------------------------------------------------------
    def top_map(self) -> None:
        v = self.view
        d = self.draw
        castle_of: dict[str, int] = {}
        for i, castle in enumerate(v.castles):
            for square in castle:
                castle_of[square] = i
        # The empty squares, grid, frame and labels are in the base picture.
        for square, h in v.heights.items():
            if h:
                in_king = v.king_castle is not None and square in v.king_castle
                d.rectangle(g.map_cell_box(square), fill=_stone_shade(h, in_king))
        # Thin grid (again, over the castles), then thick castle walls.
        self._map_grid()
        for square in g.SQUARES:
            own = castle_of.get(square)
            if own is None:
                continue
            for neighbour, edge in _WALLS[square]:
                if neighbour is None or castle_of.get(neighbour) != own:
                    d.line(edge, fill=EDGE, width=5)
        self._map_frame()
        self.out.texts += [TextBox(t.text, t.box, t.layer, t.size) for t in _base().map_texts]
        # Cells: highlights, pieces, heights.
        if self.paletted:
            self._map_cells_from_cache(castle_of)
        else:
            for square in g.SQUARES:
                self._map_cell(square)
        # Castle areas: a tag on the top-left corner of each castle's first cell.
        for castle in v.castles:
            first = min(castle, key=_READING.__getitem__)
            left, top, _, _ = _BOX[first]
            label = str(len(castle))
            w = max(_length(label, TAG_SIZE, True) + 14, 34)
            cx, cy = left + 4, top + 4
            d.rounded_rectangle(
                (cx - w / 2, cy - 17, cx + w / 2, cy + 17), 7, fill=TAG_BG, outline=WHITE, width=2
            )
            self.text((cx, cy), label, TAG_SIZE, WHITE, anchor="mm", layer="map")

    def map_floor(self) -> None:
        """The empty map with its grid, frame and labels (part of the base picture)."""
        d = self.draw
        for square in g.SQUARES:
            f, r = g.square_coords(square)
            colour = FLOOR_DARK if (f + r) % 2 == 0 else FLOOR_LIGHT
            d.rectangle(g.map_cell_box(square), fill=colour)
        self._map_grid()
        self._map_frame()
        x0, y0 = g.MAP_ORIGIN
        for i in range(8):
            self.text(
                (x0 - 24, y0 + (7 - i + 0.5) * g.MAP_CELL),
                g.RANKS[i],
                EDGE_LABEL,
                MUTED,
                anchor="mm",
                layer="edge",
            )
            self.text(
                (x0 + (i + 0.5) * g.MAP_CELL, y0 + g.MAP_SIZE + 26),
                g.FILES[i],
                EDGE_LABEL,
                MUTED,
                anchor="mm",
                layer="edge",
            )

    def _map_grid(self) -> None:
        x0, y0 = g.MAP_ORIGIN
        for i in range(9):
            p = i * g.MAP_CELL
            self.draw.line([(x0 + p, y0), (x0 + p, y0 + g.MAP_SIZE)], fill=GRID_LINE, width=1)
            self.draw.line([(x0, y0 + p), (x0 + g.MAP_SIZE, y0 + p)], fill=GRID_LINE, width=1)

    def _map_frame(self) -> None:
        x0, y0 = g.MAP_ORIGIN
        box = (x0 - 2, y0 - 2, x0 + g.MAP_SIZE + 2, y0 + g.MAP_SIZE + 2)
        self.draw.rectangle(box, outline=EDGE, width=5)

    def _map_cells_from_cache(self, castle_of: dict[str, int]) -> None:
        """``_map_cell`` for every square, on the palette image: a cell's inside
        (all that ``_map_cell`` draws) depends only on what it shows and the
        ground under it, so it is pasted from the cell cache, drawn once."""
        v = self.view
        occupants = {square: p for p in v.players for square in p.knights}
        king_castle = v.king_castle or ()
        image = self.image.im
        flat = _flat_indices()
        for square in g.SQUARES:
            h = v.heights.get(square, 0)
            occupant = occupants.get(square)
            king = occupant is None and v.king == square
            marked = square in v.highlight
            if not (h or occupant or king or marked):
                continue  # nothing to draw
            left, top, right, bottom = box = _BOX[square]
            colour = _stone_shade(h, square in king_castle) if h else _FLOOR[square]
            ground = flat[colour]
            look = None if occupant is None else (occupant.shape, occupant.colour, occupant.ink)
            key = (ground, h, marked, look, king)
            cx, cy = _CENTRE[square]
            # Pillow's boxes include their right and bottom edges, crops do not.
            inside = (
                left + CELL_INSET,
                top + CELL_INSET,
                right - CELL_INSET + 1,
                bottom - CELL_INSET + 1,
            )
            cell = _CELLS.get(key)
            if cell is None:
                first = len(self.out.texts)
                self._map_cell(square)
                texts = tuple(
                    (t.text, t.size, (t.box[0] - cx, t.box[1] - cy, t.box[2] - cx, t.box[3] - cy))
                    for t in self.out.texts[first:]
                )
                cell = _Cell(self.image.crop(inside), texts)
                _CELLS.put(key, cell)
                continue
            image.paste(cell.patch.im, inside)
            for text, size, (x0, y0, x1, y1) in cell.texts:
                self.out.texts.append(
                    TextBox(text, (x0 + cx, y0 + cy, x1 + cx, y1 + cy), "map", size)
                )
            if occupant is not None:
                self.out.pieces.append(PieceMark("knight", occupant.name, square, h, (cx, cy), box))
            elif king:
                self.out.pieces.append(PieceMark("king", None, square, h, (cx, cy), box))

    def _map_cell(self, square: str) -> None:
        v = self.view
        box = g.map_cell_box(square)
        left, top, right, bottom = box
        cx, cy = g.map_cell_center(square)
        h = v.heights.get(square, 0)
        occupant = v.occupant(square)
        room = g.MAP_CELL - 34
        if square in v.highlight:
            self.draw.rectangle(
                (left + 5, top + 5, right - 5, bottom - 5), outline=HIGHLIGHT, width=10
            )
        if occupant is not None:
            self.marker(occupant.shape, cx, cy, g.MARKER_RADIUS, occupant.colour, width=4)
            label, size = self.fit(str(h), KNIGHT_NUMBER, room, min_size=12)
            self.text(
                (cx, self.marker_text_y(occupant.shape, cy, g.MARKER_RADIUS)),
                label,
                size,
                occupant.ink,
                anchor="mm",
                layer="map",
                stroke=3,
                stroke_fill=_halo(occupant.ink),
            )
            kind, owner = "knight", occupant.name
        elif v.king == square:
            self.crown(cx, cy, g.MARKER_RADIUS + 2, width=4)
            label, size = self.fit(str(h), KNIGHT_NUMBER, room - 10, min_size=12)
            self.text(
                (cx, cy + 10),
                label,
                size,
                INK,
                anchor="mm",
                layer="map",
                stroke=3,
                stroke_fill=WHITE,
            )
            kind, owner = "king", None
        else:
            if h:
                label, size = self.fit(str(h), MAP_NUMBER, room, min_size=12)
                self.text((cx, cy), label, size, _map_number_ink(h), anchor="mm", layer="map")
            return
        self.out.pieces.append(PieceMark(kind, owner, square, h, (cx, cy), box))

    # -- side panel ----------------------------------------------------------
    def panel(self) -> None:
        """Header, players, cards and legend, spread over the panel's height.

        The blocks are laid out top to bottom with equal gaps, the first at the
        top, the last (the legend) at the bottom, so no band stays empty. With
        room to spare (fewer players, setup) everything in the panel grows, up
        to half as large again, for the phone preview, before the gaps do; when
        room runs short, the legend's map key goes first, then the master
        card's help, then the rows' small print is folded, and at last all of
        the panel is drawn smaller.
        """
        x0, y0, x1, y1 = g.PANEL_BOX
        room = y1 - y0
        blocks, cuts = _fitted(self._panel_blocks(x0, x1, 1.0), room)
        for scale in (0.9, 0.8, 0.7):  # the last resort: everything smaller
            if _stacked(blocks) <= room:
                break
            blocks, cuts = _fitted(self._panel_blocks(x0, x1, scale), room)
        for scale in (1.5, 1.4, 1.3, 1.2, 1.1):
            bigger, bigger_cuts = _fitted(self._panel_blocks(x0, x1, scale), room)
            if bigger_cuts == cuts and _stacked(bigger) <= room:  # as much, only larger
                blocks = bigger
                break
        used = _stacked(blocks)
        gap = PANEL_GAP + (room - used) / max(1, len(blocks) - 1)
        y = y0
        for block in blocks:
            height, draw = block.options[0]
            draw(y)
            y += height + gap

    def _panel_blocks(self, x0: float, x1: float, k: float) -> list[_Block]:
        """The panel's blocks, the header and rows scaled by ``k``, the other
        text by at most BODY_GROWTH and never so much that a one-line text
        wraps (longer ones may take more lines)."""
        w = x1 - x0
        info, master_head, master_help, private, note, map_key = self._panel_paras(w)

        # One factor for all of it; a line that fits on one line stays on one.
        kb = min(k, BODY_GROWTH)
        for p in info + master_head + master_help + private + note + map_key:
            if len(self._para_lines(p, 1.0, w)) == 1:
                kb = min(kb, self._grown(p, kb, w) / p.size)

        def lines(group: list[_Para]) -> list[_Line]:
            return [line for p in group for line in self._para_lines(p, kb, w)]

        blocks = [self._header_block(x0, x1, k), self._players_block(x0, x1, k)]
        if info:
            blocks.append(self._lines_block(lines(info), x0, x1, "panel"))
        if master_head:
            # The help whole or not at all.
            options = [lines(master_head + master_help), lines(master_head)]
            blocks.append(self._lines_block(options, x0, x1, "footer", yields=2))
        if private:
            blocks.append(self._lines_block(lines(private), x0, x1, "footer"))
        options = [lines(note + map_key), lines(note)] if note else [lines(map_key)]
        blocks.append(self._lines_block(options, x0, x1, "footer", yields=1))
        return blocks

    def _panel_paras(self, w: float) -> tuple[list[_Para], ...]:
        """The panel's paragraphs below the players, whatever the scale: facts
        (deck, king's castle), master card and its help, the viewer's own cards,
        the highlight's note and the map key. Worked out once a picture (the
        panel is laid out at up to six scales)."""
        memo = self._memo.get(("paras", w))
        if memo is None:
            memo = self._memo[("paras", w)] = self._panel_paras_now(w)
        return memo

    def _panel_paras_now(self, w: float) -> tuple[list[_Para], ...]:
        v = self.view
        lang = v.language
        info: list[_Para] = []
        if v.common_deck is not None and v.variant != "master":
            text = tn(lang, "Deck: {n} card left", "Deck: {n} cards left", v.common_deck)
            info.append(self._one_line(_Para(text, BODY), w))
        if v.king_castle is not None:
            height = max(v.heights[s] for s in v.king_castle)
            area = len(v.king_castle)
            text = tn(
                lang,
                # The same in English; other languages say "1 square", "2 squares".
                "King's castle: area {n}, height {height}",
                "King's castle: area {n}, height {height}",
                area,
                height=height,
            )
            info.append(self._one_line(_Para(text, BODY, swatch="king"), w))
        master_head: list[_Para] = []
        master_help: list[_Para] = []
        if v.master_card:
            name = master_card_name(lang, v.master_card)
            master_head.append(_Para(t(lang, "Master card: {name}", name=name), BODY))
            help_text = master_card_help(lang, v.master_card)
            master_help.append(_Para(help_text, SMALL, bold=False))
        private = self._private_paras(w)
        note: list[_Para] = []
        if v.highlight:
            meaning = v.highlight_note or t(lang, DEFAULT_HIGHLIGHT_NOTE)
            text = t(lang, "Pink frame: {note}", note=meaning)
            note.append(_Para(text, BODY - 2, swatch="highlight"))
        key = t(
            lang,
            "Map: big number = the square's height, so its knight's level. Dark tag: castle area.",
        )
        map_key = [_Para(key, SMALL, bold=False, muted=True)]
        return info, master_head, master_help, private, note, map_key

    def _one_line(self, p: _Para, width: float) -> _Para:
        """A short fact (the deck, the king's castle) a little smaller rather
        than on two lines, when a translation runs just too long for one."""
        width -= SWATCH_INDENT if p.swatch else 0
        for size in range(p.size, round(p.size * ONE_LINE_SHRINK) - 1, -1):
            if _length(p.text, size, p.bold) <= width:
                return replace(p, size=size)
        return p

    def _grown(self, p: _Para, k: float, width: float) -> int:
        """The largest size up to ``p.size * k`` at which the paragraph wraps to
        no more lines than at its own size: growing must not break a line."""
        return _grown(p, k, width)

    def _para_lines(self, p: _Para, k: float, width: float) -> list[_Line]:
        """A paragraph at ``k`` times its size, wrapped to ``width``; its swatch
        goes left of the first line, and all its lines are indented past it."""
        return list(_para_lines(p, k, width))

    def _lines_block(
        self,
        lines: list[_Line] | list[list[_Line]],
        x0: float,
        x1: float,
        layer: str,
        yields: int = 0,
    ) -> _Block:
        """A block of text lines (or, given a list of lists, of options)."""
        options = lines if lines and isinstance(lines[0], list) else [lines]

        def option(chosen: list[_Line]) -> _Option:
            def draw(y: float) -> None:
                for line in chosen:
                    if line.swatch is not None:
                        self._swatch(line.swatch, x0, y + line.size * 0.6, line.size * 0.56)
                    x = x0 + line.indent
                    colour = MUTED if line.muted else INK
                    self.text((x, y), line.text, line.size, colour, layer=layer, bold=line.bold)
                    y += line.height

            return (sum(line.height for line in chosen), draw)

        return _Block([option(chosen) for chosen in options], yields)

    def _swatch(self, kind: str, x: float, cy: float, r: float) -> None:
        """A legend's sample, 2r wide from x: the king's castle gold, a highlight frame."""
        d = self.draw
        box = (x + 1, cy - r, x + 1 + 2 * r, cy + r)
        if kind == "king":
            d.rectangle(box, fill=_stone_shade(2, True))
            d.rectangle(box, outline=EDGE, width=3)
        elif kind == "highlight":
            d.rectangle(box, fill=FLOOR_LIGHT)
            d.rectangle(box, outline=HIGHLIGHT, width=round(r / 2))

    def _private_paras(self, width: float) -> list[_Para]:
        """The viewer's revealed cards and own hand (nobody else's is ever named)."""
        v = self.view
        lang = v.language
        viewer = v.player(v.viewer) if v.viewer else None
        paras: list[_Para] = []
        if viewer is not None and viewer.revealed:
            cards = ", ".join(card_name(lang, c) for c in viewer.revealed)
            paras.append(_Para(t(lang, "Drawn, keep one: {cards}", cards=cards), BODY))
        if viewer is not None and shows_hand(v, viewer):
            text = t(
                lang,
                "Your hand ({name}): {cards}",
                name=self.shown(viewer.label),
                cards=self._hand_text(viewer),
            )
            if len(self._wrap(text, BODY, width)) <= 2:
                paras.append(_Para(text, BODY))
            else:  # a long hand (card names) in plain type, so it keeps to few lines
                paras.append(_Para(text, SMALL, bold=False))
        return paras

    def _header_block(self, x0: float, x1: float, k: float) -> _Block:
        """Phase and round (or "Setup", "Game over"), then who is to do what, on
        a dark card; a long line takes up to three lines rather than a small font."""
        memo = self._memo.get(("stage",))
        if memo is None:
            memo = self._memo[("stage",)] = (title(self.view), stage_line(self.view, self.shown))
        heading, (line, player) = memo
        head, head_size = self.fit(
            heading, round(TITLE_SIZE * k), x1 - x0 - 36, min_size=TITLE_SIZE - 8
        )
        indent = round(STAGE_SIZE * k + 12) if player is not None else 0
        width = x1 - x0 - 36 - indent
        stage_size = self._grown(_Para(line, STAGE_SIZE), k, width)
        r = stage_size / 2
        lines = self._wrap(line, stage_size, width, True)
        if len(lines) > 3:
            lines = [*lines[:2], self.fit(" ".join(lines[2:]), stage_size, width)[0]]
        step = stage_size + 10
        top = head_size + 36
        height = top + step * len(lines) + 8

        def draw(y: float) -> None:
            self.draw.rounded_rectangle((x0, y, x1, y + height), 14, fill=HEADER_BG)
            self.text((x0 + 18, y + 14), head, head_size, HEADER_INK, layer="header")
            x, cy = x0 + 18, y + top + step / 2
            if player is not None:
                mx = x + (indent - 12) / 2
                self.marker(player.shape, mx, cy, r, player.colour, width=2, outline=WHITE)
            for text in lines:
                fitted, size = self.fit(text, stage_size, width, min_size=stage_size)
                self.text((x + indent, cy), fitted, size, HEADER_INK, anchor="lm", layer="header")
                cy += step

        return _Block([(height, draw)])

    # -- players -----------------------------------------------------------------
    def _players_block(self, x0: float, x1: float, scale: float) -> _Block:
        """One row per player, in turn order (ranked at the end). A row's small
        print takes two lines where one would have to shrink, room permitting."""
        v = self.view
        size = round(ROW_TEXT * scale)
        options = []
        for split in (True, False):
            rows = []
            for name in v.order:
                p = v.player(name)
                lines = self._row_lines(p)
                one = len(lines) == 1 and " · " in lines[0]
                if split and one and _length(lines[0], size, False) > x1 - x0 - 28:
                    head, _, rest = lines[0].partition(" · ")
                    lines = [head, rest]
                if split:
                    lines = [part for line in lines for part in _halved(line, size, x1 - x0 - 28)]
                rows.append((p, lines, round((62 + 32 * len(lines)) * scale)))
            height = sum(h for _, _, h in rows) + ROW_GAP * (len(rows) - 1)

            def draw(y: float, rows=rows) -> None:
                for p, lines, h in rows:
                    self._player_row(p, lines, x0, y, x1, h, scale)
                    y += h + ROW_GAP

            if not options or height != options[0][0]:
                options.append((height, draw))
        return _Block(options, yields=3)

    def _row_lines(self, p: PlayerView) -> list[str]:
        """A row's small print: stacks (sizes for the player to move, a count for
        the others), knights in reserve, cards, personal deck."""
        memo = self._memo.get(("row", p.name))
        if memo is None:
            memo = self._memo[("row", p.name)] = self._row_lines_now(p)
        return list(memo)

    def _row_lines_now(self, p: PlayerView) -> list[str]:
        v = self.view
        lang = v.language
        stacks = []
        if v.stage in ("play", "draw-keep"):
            if p.is_to_move:
                stacks.extend(stack_words(v, p))
            else:
                stacks.append(tn(lang, "{n} stack", "{n} stacks", len(p.stacks)))
        counts = [t(lang, "{n} in reserve", n=p.reserve)]
        if v.variant != "master" or p.hand_count:
            counts.append(tn(lang, "{n} card", "{n} cards", p.hand_count))
        if p.deck_count is not None:
            counts.append(t(lang, "deck {n}", n=p.deck_count))
        if p.is_to_move and stacks:
            return [" · ".join(stacks), " · ".join(counts)]
        return [" · ".join(stacks + counts)]

    def _player_row(
        self, p: PlayerView, lines: list[str], x0: float, y: float, x1: float, h: float, k: float
    ) -> None:
        d = self.draw
        box = (x0, y, x1, y + h)
        if p.is_to_move:
            d.rounded_rectangle(box, 12, fill=TO_MOVE_BG, outline=INK, width=3)
        elif p.is_winner:
            d.rounded_rectangle(box, 12, fill=WINNER_BG, outline=INK, width=3)
        else:
            d.rounded_rectangle(box, 12, outline=ROW_EDGE, width=2)
        r = 23 * k
        cx, cy = x0 + 14 + r, y + 12 + r
        self.marker(p.shape, cx, cy, r, p.colour, width=3)
        self.text(
            (cx, self.marker_text_y(p.shape, cy, r)),
            p.letter,
            round(20 * k),
            p.ink,
            anchor="mm",
            layer="panel",
        )
        score, score_size = self.fit(
            str(p.score), round(SCORE_SIZE * k), (x1 - x0) / 2, min_size=20
        )
        score_w = _length(score, score_size, True)
        self.text((x1 - 14, cy), score, score_size, INK, anchor="rm", layer="panel")
        prefix = "▶ " if p.is_to_move else ("★ " if p.is_winner else "")
        name_x = cx + r + 14
        name, size = self.fit(
            prefix + self.shown(p.label),
            round(NAME_SIZE * k),
            x1 - name_x - score_w - 26,
            # A long name beside a three-digit score ("▶ Computer (yellow)  174") gives
            # up the panel's growth before it is cut.
            min_size=round(26 * min(k, 1.0)),
        )
        self.text((name_x, cy), name, size, INK, anchor="lm", layer="panel")
        ly = y + (62 + 16) * k
        for line in lines:
            fitted, size = self.fit(
                line, round(ROW_TEXT * k), x1 - x0 - 28, bold=False, min_size=18
            )
            self.text((x0 + 14, ly), fitted, size, INK, anchor="lm", layer="panel", bold=False)
            ly += 32 * k

    def _hand_text(self, viewer: PlayerView) -> str:
        """The viewer's cards by name (as the panel and the hand name them), marking this
        turn's draws."""
        lang = self.view.language
        counts: dict[str, int] = {}
        for card in viewer.hand or ():
            counts[card] = counts.get(card, 0) + 1
        drawn: dict[str, int] = {}
        for card in viewer.drawn:
            drawn[card] = drawn.get(card, 0) + 1
        cards = []
        for card, n in sorted(counts.items(), key=lambda cn: (card_name(lang, cn[0]), cn[0])):
            label = card_name(lang, card) + (f" ×{n}" if n > 1 else "")
            new = min(drawn.get(card, 0), n)
            if new == n:
                label = t(lang, "{card} (drawn this turn)", card=label)
            elif new:
                label = t(lang, "{card} ({n} drawn this turn)", card=label, n=new)
            cards.append(label)
        return ", ".join(cards) if cards else t(lang, "no cards")

    def _wrap(self, text: str, size: int, width: float, bold: bool = True) -> list[str]:
        """Lines of at most ``width`` px, broken at spaces (see ``_wrapped``)."""
        return list(_wrapped(text, size, width, bold))


ROW_GAP = 8
#: Where a line of panel text may break: ASCII white space only.
_ASCII_SPACE = " \t\n\r\f\v"
_BREAKS = re.compile(f"[{_ASCII_SPACE}]+")
#: A row's line that would have to shrink below this share of its size to fit
#: (a long translation) is split in two instead, room permitting.
ROW_SHRINK = 0.8


def _halved(line: str, size: int, width: float) -> list[str]:
    """A row's line of small print, or, when it would have to shrink below
    ROW_SHRINK of its size to fit ``width``, its two halves at the " · " that
    balances them best."""
    parts = line.split(" · ")
    length = _length(line, size, False)
    if len(parts) < 2 or length * ROW_SHRINK <= width:
        return [line]
    halves = [(" · ".join(parts[:i]), " · ".join(parts[i:])) for i in range(1, len(parts))]
    best = min(halves, key=lambda h: max(_length(h[0], size, False), _length(h[1], size, False)))
    return list(best)


#: The least gap between panel blocks.
PANEL_GAP = 12


#: The most the panel's body text grows when there is room (the rows: 1.5).
BODY_GROWTH = 1.3
#: How much smaller a short fact may be drawn to stay on one line.
ONE_LINE_SHRINK = 0.85
#: Room left of a line for its legend sample.
SWATCH_INDENT = 40


@dataclass(frozen=True)
class _Para:
    """A paragraph of panel text, before wrapping."""

    text: str
    size: int
    bold: bool = True
    muted: bool = False
    swatch: str | None = None  # a legend sample drawn left of the first line


@dataclass(frozen=True)
class _Line(_Para):
    """One line of panel text, placed ``indent`` px right of the panel's edge."""

    indent: int = 0

    @property
    def height(self) -> float:
        return self.size + 10


# Layout is pure: the same paragraph at the same size and width wraps the same
# way in every picture (the legend, the master card's help, most rows), and the
# panel is laid out at up to six scales a picture. Caching the wrapped lines
# saves ~1 ms of pure Python (interpreter lock held) a picture. Entries are small
# (a few lines of text): 8,192 of each are ~5 MB at most.
@functools.lru_cache(maxsize=8192)
def _wrapped(text: str, size: int, width: float, bold: bool = True) -> tuple[str, ...]:
    """Lines of at most ``width`` px, broken at spaces; a no-break space
    (U+00A0, which translations use to keep "noch 5 AP" together) is not
    a place to break."""
    out: list[str] = []
    line = ""
    for word in _BREAKS.split(text.strip(_ASCII_SPACE)):
        trial = f"{line} {word}".strip()
        if _length(trial, size, bold) <= width or not line:
            line = trial
        else:
            out.append(line)
            line = word
    if line:
        out.append(line)
    return tuple(out)


@functools.lru_cache(maxsize=8192)
def _grown(p: _Para, k: float, width: float) -> int:
    """The largest size up to ``p.size * k`` at which the paragraph wraps to
    no more lines than at its own size: growing must not break a line."""
    width -= SWATCH_INDENT * k if p.swatch else 0
    lines = len(_wrapped(p.text, p.size, width, p.bold))
    size = round(p.size * k)
    while size > p.size and len(_wrapped(p.text, size, width, p.bold)) > lines:
        size -= 1
    return size


@functools.lru_cache(maxsize=8192)
def _para_lines(p: _Para, k: float, width: float) -> tuple[_Line, ...]:
    """A paragraph at ``k`` times its size, wrapped to ``width``; its swatch
    goes left of the first line, and all its lines are indented past it."""
    size = round(p.size * k)
    indent = round(SWATCH_INDENT * k) if p.swatch else 0
    wrapped = _wrapped(p.text, size, width - indent, p.bold)
    # Grown text must not leave one word alone on the last line.
    for smaller in range(size - 1, p.size - 1, -1):
        if len(wrapped) < 2 or " " in wrapped[-1]:
            break
        wrapped, size = _wrapped(p.text, smaller, width - indent, p.bold), smaller
    return tuple(
        _Line(t, size, p.bold, p.muted, p.swatch if i == 0 else None, indent)
        for i, t in enumerate(wrapped)
    )


def _stacked(blocks: list[_Block]) -> float:
    """Height of blocks drawn one under the other with the least gap."""
    return sum(b.height for b in blocks) + PANEL_GAP * (len(blocks) - 1)


def _fitted(blocks: list[_Block], room: float) -> tuple[list[_Block], list[int]]:
    """The blocks, the ones that yield first cut back to smaller options until
    they fit ``room`` (or nothing more can yield), and how often each was cut."""
    fitted = [_Block(list(b.options), b.yields) for b in blocks]
    while _stacked(fitted) > room:
        shrinkable = [b for b in fitted if b.yields and len(b.options) > 1]
        if not shrinkable:
            break
        min(shrinkable, key=lambda b: b.yields).options.pop(0)
    cuts = [len(a.options) - len(b.options) for a, b in zip(blocks, fitted, strict=True)]
    return fitted, cuts


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
    """``_Painter.fit``: the same text in the same room fits the same way in
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


@dataclass(frozen=True)
class _Base:
    """The part of every picture that never changes, and its text records."""

    image: Image.Image  # never drawn on: each render paints on a copy
    map_texts: tuple[TextBox, ...]


@functools.cache
def _base() -> _Base:
    """Background and the empty map with its labels.

    All of it is drawn before (or under the same redrawn grid and frame as)
    anything that depends on the position, so a copy of it is pixel for pixel
    the start of every picture.
    """
    painter = _Painter(None)
    painter.map_floor()
    return _Base(painter.image, tuple(painter.out.texts))


@dataclass(frozen=True)
class _Glyph:
    """One text rendered once: its anti-aliased masks (with their offsets from the
    anchor point) and its box relative to that point. The masks are never written to."""

    mask: tuple[object, tuple[int, int]]
    stroke_mask: tuple[object, tuple[int, int]] | None
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


class _IndexDraw(ImageDraw.ImageDraw):
    """ImageDraw on a palette image with the fixed palette, taking the drawing
    code's RGB colours: each flat colour is drawn as the palette index it
    quantises to, so shapes come out as they would on the RGB picture after
    ``encode_png``. A colour that is not a flat one is an error, not a new
    palette entry."""

    def __init__(self, image: Image.Image) -> None:
        super().__init__(image)
        self.palette = None  # indices, never ImagePalette.getcolor (it adds colours)

    def _getink(self, ink, fill=None):  # type: ignore[no-untyped-def]
        index = _flat_indices()
        if isinstance(ink, tuple):
            ink = index[ink]
        if isinstance(fill, tuple):
            fill = index[fill]
        return super()._getink(ink, fill)


@functools.cache
def _flat_indices() -> dict[RGB, int]:
    """Each flat colour's palette index, as ``encode_png``'s quantisation picks it."""
    colours = flat_colours()
    strip = Image.new("RGB", (len(colours), 1))
    strip.putdata(colours)
    indices = strip.quantize(palette=palette_image(), dither=Image.Dither.NONE).tobytes()
    return dict(zip(colours, indices, strict=True))


#: What a cache entry costs beside its pixels: the Image and its Python key.
ENTRY_OVERHEAD = 1024


@functools.cache
def _flat_colours() -> dict[int, RGB]:
    """The flat colour of each palette index that one quantises to."""
    return {index: colour for colour, index in _flat_indices().items()}


def _pixels(entry: Image.Image | _Cell) -> int:
    """Bytes an entry of a patch cache is counted for (palette pixels: a byte each)."""
    image = entry.patch if isinstance(entry, _Cell) else entry
    return image.width * image.height + ENTRY_OVERHEAD


class _PatchCache:
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
        self._items: OrderedDict[tuple, Any] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: tuple) -> Any:
        with self._lock:
            patch = self._items.get(key)
            if patch is None:
                self.misses += 1
                return None
            self.hits += 1
            self._items.move_to_end(key)
            return patch

    def put(self, key: tuple, patch: Image.Image | _Cell) -> None:
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
_CELLS = _PatchCache(2 << 20)

#: A picture pastes ~35 texts, ~7 KB each on average (a full-width line of the
#: panel ~20 KB). The stored test pictures in three languages need ~7 MB. With
#: 200 random games taking turns, 8 MB hit 69% of texts, 16 MB 77%, 48 MB 89%
#: (a miss, ~100 us plus the glyph, is mostly a text new to the picture: a
#: score, a name, a line at a new height).
_PATCHES = _PatchCache(16 << 20)


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
    text drawn on it as ``_Painter.text`` draws it on an RGB picture, quantised as
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


def _walls(square: str) -> tuple[tuple[str | None, list[tuple[int, int]]], ...]:
    """The four edges of a square's cell (right, bottom, left, top) as wall lines,
    each with the square beyond it (None: the map's edge)."""
    f, r = g.square_coords(square)
    left, top, right, bottom = g.map_cell_box(square)
    out = []
    for df, dr, edge in (
        (1, 0, [(right, top - 2), (right, bottom + 2)]),
        (0, -1, [(left - 2, bottom), (right + 2, bottom)]),
        (-1, 0, [(left, top - 2), (left, bottom + 2)]),
        (0, 1, [(left - 2, top), (right + 2, top)]),
    ):
        nf, nr = f + df, r + dr
        inside = 0 <= nf < 8 and 0 <= nr < 8
        out.append((g.FILES[nf] + g.RANKS[nr] if inside else None, edge))
    return tuple(out)


#: Each square's cell walls, worked out once.
_WALLS = {square: _walls(square) for square in g.SQUARES}
#: Each square's cell box, centre, empty floor colour and place in reading order.
_BOX = {square: g.map_cell_box(square) for square in g.SQUARES}
_CENTRE = {square: g.map_cell_center(square) for square in g.SQUARES}
_FLOOR = {
    square: FLOOR_DARK if sum(g.square_coords(square)) % 2 == 0 else FLOOR_LIGHT
    for square in g.SQUARES
}
_READING = {
    square: (-g.square_coords(square)[1], g.square_coords(square)[0]) for square in g.SQUARES
}


def _polygon(shape: str, cx: float, cy: float, r: float) -> list[tuple[float, float]]:
    """Corner points of the triangle and diamond markers."""
    if shape == "triangle":
        return [(cx, cy - r * 1.15), (cx + r * 1.1, cy + r * 0.8), (cx - r * 1.1, cy + r * 0.8)]
    s = r * 1.18
    return [(cx, cy - s), (cx + s, cy), (cx, cy + s), (cx - s, cy)]


@functools.lru_cache(maxsize=64)
def _stone_shade(h: int, king: bool) -> RGB:
    """Map colour of a castle square: darker the taller, gold for the king's castle."""
    t = min(h - 1, 7) / 7
    if king:
        a, b = (250, 224, 140), (196, 150, 40)
    else:
        a, b = (204, 195, 177), (108, 98, 84)
    # Channels rounded to multiples of 4: Pillow maps colours to a palette by
    # the nearest entry to the 4x4x4 grid point below, and an off-grid shade can
    # lose its own entry to a close stone face (h=3 did, by 5 levels of blue).
    return tuple(4 * round((a[i] + (b[i] - a[i]) * t) / 4) for i in range(3))  # type: ignore[return-value]


def _halo(ink: RGB) -> RGB:
    """Outline around a knight's level on the map, contrasting with its ink."""
    return INK if sum(ink) > 384 else WHITE


def _map_number_ink(h: int) -> RGB:
    """A bare square's height on the map: white on the dark (tall) shades."""
    return WHITE if h >= 5 else INK


def flat_colours() -> list[RGB]:
    """Every colour the drawing code fills, strokes or writes with."""
    solids: list[RGB] = [
        BACKGROUND, INK, MUTED, HEADER_BG, HEADER_INK, FLOOR_LIGHT, FLOOR_DARK, EDGE,
        HIGHLIGHT, KING_FILL, TAG_BG, TO_MOVE_BG, WINNER_BG, WHITE, GRID_LINE, ROW_EDGE,
    ]  # fmt: skip
    solids += [*PLAYER_COLOURS, *PLAYER_INKS]
    solids += [_stone_shade(h, king) for king in (False, True) for h in range(1, 9)]
    return list(dict.fromkeys(solids))


def palette_colours() -> list[RGB]:
    """Every colour a picture may hold, for one fixed 256-colour PNG palette.

    The flat colours come first, exactly; then, for each text colour over each
    colour it is drawn on, the anti-aliasing steps between the two (more steps
    for the small body text, which shows them most). Polygons, lines and
    ellipses are not anti-aliased, so text is the only source of blends. Tests
    check that every flat colour maps to itself and that the stored pictures
    quantise with far less error than an adaptive palette: a new colour in the
    drawing code must be added here.
    """
    # (text colour, colour under it, anti-aliasing steps between them)
    blends: list[tuple[RGB, RGB, int]] = []
    for fg, bg in ((INK, BACKGROUND), (MUTED, BACKGROUND), (HEADER_INK, HEADER_BG),
                   (INK, TO_MOVE_BG), (INK, WHITE)):  # fmt: skip
        blends.append((fg, bg, 12))  # body text, and heights in their white halo
    for fg, bg in ((INK, WINNER_BG), (WHITE, TAG_BG), ((0, 0, 0), WHITE)):
        blends.append((fg, bg, 4))
    for colour, ink in zip(PLAYER_COLOURS, PLAYER_INKS, strict=True):
        # Letters and levels on markers, and their halos.
        blends += [(ink, colour, 7), (_halo(ink), colour, 7)]
    for king in (False, True):
        for h in range(1, 9):
            blends.append((_map_number_ink(h), _stone_shade(h, king), 3))
    colours: dict[RGB, None] = dict.fromkeys(flat_colours())
    for fg, bg, steps in blends:
        for k in range(1, steps + 1):
            t = k / (steps + 1)
            colours.setdefault(tuple(round(b + (f - b) * t) for f, b in zip(fg, bg, strict=True)))
    return list(colours)


@functools.cache
def palette_image() -> Image.Image:
    """The fixed palette as a Pillow "P" image for ``Image.quantize(palette=...)``.

    Never modified once built (shared by all renders)."""
    colours = palette_colours()
    if len(colours) > 256:
        raise RuntimeError(f"{len(colours)} palette colours; a PNG palette holds 256")
    colours += [colours[-1]] * (256 - len(colours))
    image = Image.new("P", (1, 1))
    image.putpalette([v for c in colours for v in c])
    return image


@functools.cache
def _base_paletted() -> Image.Image:
    """The base picture in the fixed palette, as ``encode_png`` would quantise it.
    Never drawn on: each paletted render paints on a copy."""
    return _base().image.quantize(palette=palette_image(), dither=Image.Dither.NONE)


def paint(view: BoardView, *, paletted: bool = False) -> Rendering:
    """Draw the whole picture for ``view``: in RGB, or (*paletted*) straight in
    the fixed palette, pixel for pixel the RGB picture quantised by
    ``encode_png`` (a quarter of the memory, no quantisation)."""
    base = _base_paletted() if paletted else _base().image
    return _Painter(view, base.copy()).paint()
