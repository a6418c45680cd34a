"""Paint a BoardView onto a Pillow image.

Each call paints on its own image. The only shared state is a set of caches of
immutable things (fonts, rendered text masks, text widths): filled on first
use, never mutated afterwards, so renders may run in worker threads side by side.
"""

from __future__ import annotations

import functools
import math
import unicodedata
from dataclasses import dataclass, field, replace
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

import engine

from . import geometry as g
from ._describe import stage_line, title
from ._model import DEFAULT_HIGHLIGHT_NOTE, PLAYER_COLOURS, PLAYER_INKS, BoardView, PlayerView

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
FLOOR_DARK: RGB = (221, 213, 196)
EDGE: RGB = (62, 56, 48)
#: Stone faces (top, left, right), alternating by level so blocks can be counted.
STONE = (
    ((205, 197, 182), (170, 160, 142), (132, 123, 107)),
    ((215, 208, 194), (184, 175, 158), (146, 137, 121)),
)
KING_STONE = (
    ((240, 205, 110), (206, 168, 76), (168, 134, 56)),
    ((248, 218, 132), (218, 182, 92), (180, 146, 66)),
)
#: The squares the last turn changed: Okabe–Ito reddish purple, drawn thick.
HIGHLIGHT: RGB = (204, 121, 167)
KING_FILL: RGB = (255, 255, 255)
TAG_BG: RGB = (45, 45, 52)
TO_MOVE_BG: RGB = (255, 240, 196)
WINNER_BG: RGB = (214, 236, 222)
WHITE: RGB = (255, 255, 255)
VARIANT_INK: RGB = (200, 204, 214)
GRID_LINE: RGB = (190, 182, 166)
ROW_EDGE: RGB = (200, 196, 186)


@dataclass
class TextBox:
    """Where one piece of text landed: for layout checks in tests."""

    text: str
    box: Box
    layer: str  # "header", "iso", "map", "panel", "footer"
    size: int  # font size in pixels


@dataclass
class PieceMark:
    """Where a knight or the king was drawn."""

    kind: str  # "knight" or "king"
    owner: str | None
    square: str
    level: int
    iso_center: tuple[float, float]
    map_box: tuple[int, int, int, int]
    #: Partly hidden behind something in front, so drawn again as an outline.
    xray: bool = False


@dataclass
class Rendering:
    """A rendered picture plus the records tests and callers may inspect."""

    image: Image.Image
    texts: list[TextBox] = field(default_factory=list)
    pieces: list[PieceMark] = field(default_factory=list)
    level_height: float = 0.0


class _Painter:
    def __init__(self, view: BoardView | None, image: Image.Image | None = None) -> None:
        self.view = view  # None only while painting the shared base picture
        self.image = image if image is not None else Image.new("RGB", g.CANVAS_SIZE, BACKGROUND)
        self.draw = ImageDraw.Draw(self.image)
        self.out = Rendering(self.image)

    # -- text ---------------------------------------------------------------
    def font(self, size: int, bold: bool = True) -> ImageFont.FreeTypeFont:
        return _font(size, bold)

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
        glyph = _glyph(text, size, bold, anchor, stroke, math.modf(x)[0], math.modf(y)[0])
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

    def fit(self, text: str, size: int, width: float, *, bold: bool = True, min_size: int = 16):
        """Largest font size <= size (down to min_size) at which text fits width;
        past that, the text is cut with an ellipsis."""
        while size > min_size and _length(text, size, bold) > width:
            size -= 1
        if _length(text, size, bold) <= width:
            return text, size
        while text and _length(text + "…", size, bold) > width:
            text = text[:-1]
        return text + "…", size

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
        """Draw everything on a copy of the base (background, header band, empty
        boards and their labels: the same in every picture)."""
        self.header()
        self.iso_view()
        self.top_map()
        self.panel()
        return self.out

    # -- header --------------------------------------------------------------
    def header(self) -> None:
        v = self.view
        box = self.text((20, 10), title(v), 36, HEADER_INK, layer="header")
        variant = {"common": "common deck", "personal": "personal decks", "master": "master"}
        self.text(
            (g.WIDTH - 20, 22),
            variant.get(v.variant, v.variant),
            24,
            VARIANT_INK,
            anchor="ra",
            layer="header",
            bold=False,
        )
        line, player = self._stage_line()
        x = 20
        if player is not None:
            self.marker(player.shape, x + 14, 68, 13, player.colour, width=2)
            x += 42
        text, size = self.fit(line, 28, g.WIDTH - x - 20)
        self.text((x, box[3] + 6), text, size, HEADER_INK, layer="header")

    def _stage_line(self) -> tuple[str, PlayerView | None]:
        return stage_line(self.view, self.shown)

    # -- 3D view -------------------------------------------------------------
    def iso_view(self) -> None:
        v = self.view
        lh = g.level_height(v.heights)
        self.out.level_height = lh
        # The floor and its labels are in the base picture.
        self.out.texts += [replace(t) for t in _base().iso_texts]
        # Columns and pieces, back to front.
        order = sorted(g.SQUARES, key=lambda s: -sum(g.square_coords(s)))
        for square in order:
            self._column(square, lh)
        # Pieces hidden behind taller towers in front get an x-ray outline on top.
        for piece in self.out.pieces:
            if self._is_covered(piece):
                piece.xray = True
                self._ghost(piece)

    def iso_floor(self) -> None:
        """The empty 3D board with its edge labels (part of the base picture)."""
        d = self.draw
        ip = g.iso_point
        for square in g.SQUARES:
            f, r = g.square_coords(square)
            colour = FLOOR_DARK if (f + r) % 2 == 0 else FLOOR_LIGHT
            d.polygon([ip(f, r), ip(f + 1, r), ip(f + 1, r + 1), ip(f, r + 1)], fill=colour)
        d.line([ip(0, 0), ip(8, 0), ip(8, 8), ip(0, 8), ip(0, 0)], fill=EDGE, width=3)
        # Edge labels: files along the rank-1 edge, ranks along the a-file edge.
        for i in range(8):
            x, y = ip(i + 0.5, -0.42)
            self.text((x, y), g.FILES[i], 24, MUTED, anchor="mm", layer="iso")
            x, y = ip(-0.42, i + 0.5)
            self.text((x, y), g.RANKS[i], 24, MUTED, anchor="mm", layer="iso")

    def _is_covered(self, piece: PieceMark) -> bool:
        """Whether something drawn later hides part of a piece's marker."""
        cx, cy = piece.iso_center
        r = g.TOKEN_RADIUS
        if piece.kind == "king":
            expected = KING_FILL
            points = [(cx - 0.5 * r, cy + 0.3 * r), (cx + 0.5 * r, cy + 0.3 * r)]
        else:
            expected = self.view.player(piece.owner).colour
            points = [(cx - 0.5 * r, cy + 0.25 * r), (cx + 0.5 * r, cy + 0.25 * r)]
        return any(self.image.getpixel((round(x), round(y))) != expected for x, y in points)

    def _ghost(self, piece: PieceMark) -> None:
        cx, cy = piece.iso_center
        r = g.TOKEN_RADIUS
        if piece.kind == "king":
            self.crown(cx, cy, r, fill=None)
            return
        p = self.view.player(piece.owner)
        self.marker(p.shape, cx, cy, r, None, width=7, outline=INK)
        self.marker(p.shape, cx, cy, r, None, width=3, outline=p.colour)
        dy = 4 if p.shape == "triangle" else 0
        self.text(
            (cx, cy + dy),
            p.letter,
            20,
            p.colour,
            anchor="mm",
            layer="iso",
            stroke=2,
            stroke_fill=INK,
        )

    def _column(self, square: str, lh: float) -> None:
        v = self.view
        d = self.draw
        ip = g.iso_point
        f, r = g.square_coords(square)
        h = v.heights.get(square, 0)
        king_castle = v.king_castle is not None and square in v.king_castle
        palette = KING_STONE if king_castle else STONE
        # Blocks wholly above the canvas are not drawn (a position may claim any height).
        visible = min(h, int(ip(f + 1, r + 1)[1] / lh) + 2)
        for k in range(visible):
            z0, z1 = k * lh, (k + 1) * lh
            _, left, right = palette[k % 2]
            d.polygon(
                [ip(f, r + 1, z0), ip(f, r, z0), ip(f, r, z1), ip(f, r + 1, z1)],
                fill=left,
                outline=EDGE,
            )
            d.polygon(
                [ip(f, r, z0), ip(f + 1, r, z0), ip(f + 1, r, z1), ip(f, r, z1)],
                fill=right,
                outline=EDGE,
            )
        z = h * lh
        top = [ip(f, r, z), ip(f + 1, r, z), ip(f + 1, r + 1, z), ip(f, r + 1, z)]
        if h:
            d.polygon(top, fill=palette[(h - 1) % 2][0], outline=EDGE)
        if square in v.highlight:
            d.line([*top, top[0]], fill=HIGHLIGHT, width=6, joint="curve")
        cx, cy = g.iso_top_center(square, h, lh)
        occupant = v.occupant(square)
        has_piece = occupant is not None or v.king == square
        if h:
            # The height on the front half of the top face, below any piece.
            ny = cy + (16 if has_piece else 0)
            size = 22 if has_piece else 26
            self.text(
                (cx, ny),
                str(h),
                size,
                INK,
                anchor="mm",
                layer="iso",
                stroke=3,
                stroke_fill=WHITE,
            )
        if not has_piece:
            return
        tx, ty = g.iso_token_center(square, h, lh)
        d.ellipse((cx - 14, cy - 5, cx + 14, cy + 5), fill=EDGE)
        d.line([(cx, cy), (tx, ty)], fill=INK, width=5)
        if occupant is not None:
            self.marker(occupant.shape, tx, ty, g.TOKEN_RADIUS, occupant.colour)
            self.text(
                (tx, ty + (4 if occupant.shape == "triangle" else 0)),
                occupant.letter,
                20,
                occupant.ink,
                anchor="mm",
                layer="iso",
            )
            kind, owner = "knight", occupant.name
        else:
            self.crown(tx, ty, g.TOKEN_RADIUS)
            kind, owner = "king", None
        self.out.pieces.append(PieceMark(kind, owner, square, h, (tx, ty), g.map_cell_box(square)))

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
        x0, y0 = g.MAP_ORIGIN
        for square in g.SQUARES:
            own = castle_of.get(square)
            f, r = g.square_coords(square)
            left, top, right, bottom = g.map_cell_box(square)
            for df, dr, edge in (
                (1, 0, [(right, top), (right, bottom)]),
                (0, -1, [(left, bottom), (right, bottom)]),
                (-1, 0, [(left, top), (left, bottom)]),
                (0, 1, [(left, top), (right, top)]),
            ):
                nf, nr = f + df, r + dr
                other = (
                    castle_of.get(g.FILES[nf] + g.RANKS[nr])
                    if 0 <= nf < 8 and 0 <= nr < 8
                    else None
                )
                if own is not None and other != own:
                    d.line(edge, fill=EDGE, width=4)
        d.rectangle((x0, y0, x0 + g.MAP_SIZE, y0 + g.MAP_SIZE), outline=EDGE, width=3)
        self.out.texts += [replace(t) for t in _base().map_texts]
        # Cells: pieces, heights, highlights.
        for square in g.SQUARES:
            self._map_cell(square)
        # Castle areas: a tag on the top-left corner of each castle's first cell.
        for castle in v.castles:
            first = min(castle, key=lambda s: (-g.square_coords(s)[1], g.square_coords(s)[0]))
            left, top, _, _ = g.map_cell_box(first)
            label = str(len(castle))
            w = max(_length(label, 19, True) + 10, 24)
            d.rounded_rectangle(
                (left - w / 2, top - 12, left + w / 2, top + 12),
                6,
                fill=TAG_BG,
                outline=WHITE,
                width=2,
            )
            self.text((left, top), label, 19, WHITE, anchor="mm", layer="map")

    def map_floor(self) -> None:
        """The empty map with its grid, frame and labels (part of the base picture)."""
        d = self.draw
        for square in g.SQUARES:
            f, r = g.square_coords(square)
            colour = FLOOR_DARK if (f + r) % 2 == 0 else FLOOR_LIGHT
            d.rectangle(g.map_cell_box(square), fill=colour)
        self._map_grid()
        x0, y0 = g.MAP_ORIGIN
        d.rectangle((x0, y0, x0 + g.MAP_SIZE, y0 + g.MAP_SIZE), outline=EDGE, width=3)
        for i in range(8):
            self.text(
                (x0 - 16, y0 + (7 - i + 0.5) * g.MAP_CELL),
                g.RANKS[i],
                24,
                MUTED,
                anchor="mm",
                layer="edge",
            )
            self.text(
                (x0 + (i + 0.5) * g.MAP_CELL, y0 + g.MAP_SIZE + 16),
                g.FILES[i],
                24,
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

    def _map_cell(self, square: str) -> None:
        v = self.view
        box = g.map_cell_box(square)
        left, top, right, bottom = box
        cx, cy = (left + right) / 2, (top + bottom) / 2
        h = v.heights.get(square, 0)
        occupant = v.occupant(square)
        if square in v.highlight:
            self.draw.rectangle(
                (left + 3, top + 3, right - 3, bottom - 3), outline=HIGHLIGHT, width=6
            )
        if occupant is not None:
            self.marker(occupant.shape, cx, cy + 1, 21, occupant.colour, width=3)
            ny = cy + (6 if occupant.shape == "triangle" else 1)
            halo = _halo(occupant.ink)
            label, size = self.fit(str(h), 30, g.MAP_CELL - 10, min_size=12)
            self.text(
                (cx, ny),
                label,
                size,
                occupant.ink,
                anchor="mm",
                layer="map",
                stroke=2,
                stroke_fill=halo,
            )
        elif v.king == square:
            self.crown(cx, cy + 2, 24)
            label, size = self.fit(str(h), 30, g.MAP_CELL - 10, min_size=12)
            self.text(
                (cx, cy + 7),
                label,
                size,
                INK,
                anchor="mm",
                layer="map",
                stroke=2,
                stroke_fill=WHITE,
            )
        elif h:
            label, size = self.fit(str(h), 32, g.MAP_CELL - 10, min_size=12)
            self.text(
                (cx, cy + 1),
                label,
                size,
                _map_number_ink(h),
                anchor="mm",
                layer="map",
            )

    # -- side panel and footer ----------------------------------------------
    def panel(self) -> None:
        v = self.view
        x0, y0, x1, _ = g.PANEL_BOX
        y = y0
        for name in v.order:
            p = v.player(name)
            row_h = 128 if p.is_to_move and v.stage in ("play", "draw-keep") else 96
            self._player_row(p, x0, y, x1, row_h)
            y += row_h + 6
        y += 4
        lines: list[str] = []
        if v.common_deck is not None and v.variant != "master":
            lines.append(f"Deck: {v.common_deck} cards left")
        if v.king_castle is not None:
            height = max(v.heights[s] for s in v.king_castle)
            lines.append(f"King's castle: area {len(v.king_castle)}, height {height}")
        for text in lines:
            fitted, size = self.fit(text, 24, x1 - x0, min_size=16)
            self.text((x0, y), fitted, size, INK, layer="panel")
            y += size + 10
        self.footer()

    def footer(self) -> None:
        """Master card, the viewer's revealed cards and own hand, and a legend,
        full width under the map.

        The master card's name, the revealed cards and the hand always appear;
        when room runs short the legend goes first, then the master card's help.
        """
        v = self.view
        x0, y, x1, y1 = g.FOOTER_BOX
        width = x1 - x0
        Line = tuple[str, int, bool, RGB]
        master: list[Line] = []
        master_help: list[Line] = []
        private: list[Line] = []
        if v.master_card:
            name = engine.MASTER_CARDS.get(v.master_card, v.master_card)
            help_text = engine.MASTER_CARD_HELP.get(v.master_card, "")
            master = [(f"Master card: {name}", 24, True, INK)]
            master_help = [(t, 20, False, INK) for t in self._wrap(help_text, 20, width, False)]
        viewer = v.player(v.viewer) if v.viewer else None
        if viewer is not None and viewer.revealed:
            text = "Drawn, keep one: " + ", ".join(viewer.revealed)
            private += [(t, 24, True, INK) for t in self._wrap(text, 24, width, True)]
        if viewer is not None and viewer.hand is not None:
            text = f"Your hand ({self.shown(viewer.name)}): " + self._hand_text(viewer)
            size = 24 if len(self._wrap(text, 24, width, True)) <= 2 else 20
            private += [(t, size, True, INK) for t in self._wrap(text, size, width, True)]
        legend_text = (
            "Map: the number is the square's height, so the level of the knight on it. "
            "Dark tag: castle area. Gold: the king's castle."
        )
        if v.highlight:
            legend_text += f" Pink frame: {v.highlight_note or DEFAULT_HIGHLIGHT_NOTE}."
        legend = [(t, 20, False, MUTED) for t in self._wrap(legend_text, 20, width, False)]

        def height(lines: list[Line]) -> int:
            return sum(size + 8 for _, size, _, _ in lines) + (4 if lines else 0)

        room = y1 - y - height(master) - height(private)
        while master_help and height(master_help) - 4 > room:
            master_help.pop()
        room -= height(master_help) - (4 if master_help else 0)
        blocks = [master + master_help, private]
        if height(legend) <= room:
            blocks.append(legend)
        for block in blocks:
            for text, size, bold, colour in block:
                self.text((x0, y), text, size, colour, layer="footer", bold=bold)
                y += size + 8
            y += 4 if block else 0

    def _hand_text(self, viewer: PlayerView) -> str:
        """The viewer's cards by id (as typed in `play CARD`), marking this turn's draws."""
        counts: dict[str, int] = {}
        for card in viewer.hand or ():
            counts[card] = counts.get(card, 0) + 1
        drawn: dict[str, int] = {}
        for card in viewer.drawn:
            drawn[card] = drawn.get(card, 0) + 1
        cards = []
        for card, n in sorted(counts.items()):
            label = card + (f" ×{n}" if n > 1 else "")
            new = min(drawn.get(card, 0), n)
            if new:
                label += " (drawn this turn)" if new == n else f" ({new} drawn this turn)"
            cards.append(label)
        return ", ".join(cards) if cards else "no cards"

    def _player_row(self, p: PlayerView, x0: int, y: int, x1: int, row_h: int) -> None:
        v = self.view
        d = self.draw
        if p.is_to_move:
            d.rounded_rectangle((x0, y, x1, y + row_h), 10, fill=TO_MOVE_BG, outline=INK, width=3)
        elif p.is_winner:
            d.rounded_rectangle((x0, y, x1, y + row_h), 10, fill=WINNER_BG, outline=INK, width=3)
        else:
            d.rounded_rectangle((x0, y, x1, y + row_h), 10, outline=ROW_EDGE, width=2)
        self.marker(p.shape, x0 + 30, y + 30, 19, p.colour)
        self.text(
            (x0 + 30, y + 30 + (4 if p.shape == "triangle" else 0)),
            p.letter,
            18,
            p.ink,
            anchor="mm",
            layer="panel",
        )
        score, score_size = self.fit(str(p.score), 44, (x1 - x0) / 2, min_size=20)
        score_w = _length(score, score_size, True)
        self.text((x1 - 12, y + 30), score, score_size, INK, anchor="rm", layer="panel")
        prefix = "▶ " if p.is_to_move else ("★ " if p.is_winner else "")
        name, size = self.fit(
            prefix + self.shown(p.name), 30, x1 - x0 - 62 - score_w - 24, min_size=20
        )
        self.text((x0 + 58, y + 30), name, size, INK, anchor="lm", layer="panel")
        stacks = []
        dealt = v.stage in ("play", "draw-keep")
        if dealt:
            if p.is_to_move:
                stacks.append("stacks " + (" ".join(str(s) for s in p.stacks) or "none"))
                if v.turn_stack is not None:
                    stacks.append(f"turn stack {v.turn_stack}")
            else:
                n = len(p.stacks)
                stacks.append(f"{n} stack" + ("" if n == 1 else "s"))
        counts = [f"{p.reserve} in reserve"]
        if v.variant != "master" or p.hand_count:
            counts.append(f"{p.hand_count} card" + ("" if p.hand_count == 1 else "s"))
        if p.deck_count is not None:
            counts.append(f"deck {p.deck_count}")
        if row_h > 100 and stacks:
            rows = [" · ".join(stacks), " · ".join(counts)]
        else:
            rows = [" · ".join(stacks + counts)]
        ly = y + 72
        for line in rows:
            fitted, size = self.fit(line, 24, x1 - x0 - 24, bold=False, min_size=17)
            self.text((x0 + 12, ly), fitted, size, INK, anchor="lm", layer="panel", bold=False)
            ly += 32

    def _wrap(self, text: str, size: int, width: float, bold: bool) -> list[str]:
        out: list[str] = []
        line = ""
        for word in text.split():
            trial = f"{line} {word}".strip()
            if _length(trial, size, bold) <= width or not line:
                line = trial
            else:
                out.append(line)
                line = word
        if line:
            out.append(line)
        return out


# -- caches of immutable things, shared by all renders ---------------------------
# FreeType faces are safe to share: Pillow holds the GIL (or, free-threaded, a
# per-font lock) while it uses one.


@functools.cache
def _font(size: int, bold: bool) -> ImageFont.FreeTypeFont:
    return ImageFont.truetype(str(BOLD_FONT if bold else REGULAR_FONT), size)


@functools.lru_cache(maxsize=8192)
def _length(text: str, size: int, bold: bool) -> float:
    return _font(size, bold).getlength(text)


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
    iso_texts: tuple[TextBox, ...]
    map_texts: tuple[TextBox, ...]


@functools.cache
def _base() -> _Base:
    """Background, header band, the empty 3D board and the empty map, with labels.

    All of it is drawn before (or, for the map, under the same redrawn grid
    and frame as) anything that depends on the position, so a copy of it is
    pixel for pixel the start of every picture.
    """
    painter = _Painter(None)
    painter.draw.rectangle((0, 0, g.WIDTH, g.HEADER_HEIGHT), fill=HEADER_BG)
    painter.iso_floor()
    iso = len(painter.out.texts)
    painter.map_floor()
    texts = painter.out.texts
    return _Base(painter.image, tuple(texts[:iso]), tuple(texts[iso:]))


@dataclass(frozen=True)
class _Glyph:
    """One text rendered once: its anti-aliased masks (with their offsets from the
    anchor point) and its box relative to that point. The masks are never written to."""

    mask: tuple[object, tuple[int, int]]
    stroke_mask: tuple[object, tuple[int, int]] | None
    bbox: tuple[float, float, float, float]


#: About 150 texts per picture, mostly recurring (digits, labels, unchanged panel
#: lines); masks average ~1.5 KB and reach ~40 KB for a full-width line, so
#: 1024 entries keep memory to a few MB while hot glyphs stay cached.
@functools.lru_cache(maxsize=1024)
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


def _polygon(shape: str, cx: float, cy: float, r: float) -> list[tuple[float, float]]:
    """Corner points of the triangle and diamond markers."""
    if shape == "triangle":
        return [(cx, cy - r * 1.15), (cx + r * 1.1, cy + r * 0.8), (cx - r * 1.1, cy + r * 0.8)]
    s = r * 1.18
    return [(cx, cy - s), (cx + s, cy), (cx, cy + s), (cx - s, cy)]


def _stone_shade(h: int, king: bool) -> RGB:
    """Map colour of a castle square: darker the taller, gold for the king's castle."""
    t = min(h - 1, 7) / 7
    if king:
        a, b = (250, 224, 140), (196, 150, 40)
    else:
        a, b = (214, 206, 190), (110, 100, 86)
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
        HIGHLIGHT, KING_FILL, TAG_BG, TO_MOVE_BG, WINNER_BG, WHITE, VARIANT_INK,
        GRID_LINE, ROW_EDGE,
    ]  # fmt: skip
    solids += [face for shades in (STONE, KING_STONE) for level in shades for face in level]
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
    for fg, bg in ((VARIANT_INK, HEADER_BG), (INK, WINNER_BG), (WHITE, TAG_BG), ((0, 0, 0), WHITE)):
        blends.append((fg, bg, 4))
    for shades in (STONE, KING_STONE):
        blends += [(WHITE, level[0], 3) for level in shades]  # halos on top faces
    for colour, ink in zip(PLAYER_COLOURS, PLAYER_INKS, strict=True):
        # Letters and levels on markers, their halos, x-ray letters outlined in INK.
        blends += [(ink, colour, 7), (_halo(ink), colour, 7), (colour, INK, 7)]
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


def paint(view: BoardView) -> Rendering:
    """Draw the whole picture for ``view``."""
    return _Painter(view, _base().image.copy()).paint()
