"""The top-down map: the empty base map (the same in every picture, drawn once),
and a position's castles, walls, area tags, knights, king and highlights."""

from __future__ import annotations

import functools
from dataclasses import dataclass

from PIL import Image

from . import geometry as g
from ._canvas import Canvas, PieceMark, TextBox, ViewPainter
from ._palette import (
    EDGE,
    FLOOR_DARK,
    FLOOR_LIGHT,
    GRID_LINE,
    HIGHLIGHT,
    INK,
    MUTED,
    TAG_BG,
    WHITE,
    _flat_indices,
    _halo,
    _map_number_ink,
    _stone_shade,
    palette_image,
)
from ._patches import _CELLS, CELL_INSET, _Cell
from ._text import EDGE_LABEL, KNIGHT_NUMBER, MAP_NUMBER, TAG_SIZE, _length


class MapPainter(ViewPainter):
    """Paints a position on the map, over a copy of the base map."""

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
        _map_grid(self)
        for square in g.SQUARES:
            own = castle_of.get(square)
            if own is None:
                continue
            for neighbour, edge in _WALLS[square]:
                if neighbour is None or castle_of.get(neighbour) != own:
                    d.line(edge, fill=EDGE, width=5)
        _map_frame(self)
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


def _map_floor(canvas: Canvas) -> None:
    """The empty map with its grid, frame and labels (part of the base picture)."""
    d = canvas.draw
    for square in g.SQUARES:
        f, r = g.square_coords(square)
        colour = FLOOR_DARK if (f + r) % 2 == 0 else FLOOR_LIGHT
        d.rectangle(g.map_cell_box(square), fill=colour)
    _map_grid(canvas)
    _map_frame(canvas)
    x0, y0 = g.MAP_ORIGIN
    for i in range(8):
        canvas.text(
            (x0 - 24, y0 + (7 - i + 0.5) * g.MAP_CELL),
            g.RANKS[i],
            EDGE_LABEL,
            MUTED,
            anchor="mm",
            layer="edge",
        )
        canvas.text(
            (x0 + (i + 0.5) * g.MAP_CELL, y0 + g.MAP_SIZE + 26),
            g.FILES[i],
            EDGE_LABEL,
            MUTED,
            anchor="mm",
            layer="edge",
        )


def _map_grid(canvas: Canvas) -> None:
    """The thin lines between the squares (in the base, and again over castles)."""
    x0, y0 = g.MAP_ORIGIN
    for i in range(9):
        p = i * g.MAP_CELL
        canvas.draw.line([(x0 + p, y0), (x0 + p, y0 + g.MAP_SIZE)], fill=GRID_LINE, width=1)
        canvas.draw.line([(x0, y0 + p), (x0 + g.MAP_SIZE, y0 + p)], fill=GRID_LINE, width=1)


def _map_frame(canvas: Canvas) -> None:
    """The thick frame round the map (in the base, and again over the castle walls)."""
    x0, y0 = g.MAP_ORIGIN
    box = (x0 - 2, y0 - 2, x0 + g.MAP_SIZE + 2, y0 + g.MAP_SIZE + 2)
    canvas.draw.rectangle(box, outline=EDGE, width=5)


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
    canvas = Canvas()
    _map_floor(canvas)
    return _Base(canvas.image, tuple(canvas.out.texts))


@functools.cache
def _base_paletted() -> Image.Image:
    """The base picture in the fixed palette, as ``encode_png`` would quantise it.
    Never drawn on: each paletted render paints on a copy."""
    return _base().image.quantize(palette=palette_image(), dither=Image.Dither.NONE)


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
