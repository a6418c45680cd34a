"""Where things go on the canvas.

Public so that tests (and ``renderer.replay``) can compute, independently of the
drawing code, the pixel where a square or a piece must appear.

The picture is landscape (Discord fits inline images in a box wider than tall):
the top-down map, oriented like a chess diagram (a1 bottom-left), fills the
left; the side panel (phase, whose turn, players, cards, legend) the right.
"""

from __future__ import annotations

FILES = "abcdefgh"
RANKS = "12345678"
SQUARES: tuple[str, ...] = tuple(f + r for r in RANKS for f in FILES)

#: Canvas size in pixels (width, height): 3:2, so Discord's preview (about
#: 550 px wide on desktop, 400 on a phone) shows it at full width.
CANVAS_SIZE = (1500, 1000)
WIDTH, HEIGHT = CANVAS_SIZE

# --- top-down map (the main view) ----------------------------------------------
MAP_CELL = 112
MAP_ORIGIN = (54, 30)  # top-left corner of a8
MAP_SIZE = 8 * MAP_CELL
#: Radius of a knight's marker on the map (a circle's; other shapes match its area).
MARKER_RADIUS = 40

# --- side panel ------------------------------------------------------------------
#: Everything but the map: header, players, cards, legend (left, top, right, bottom).
PANEL_BOX = (MAP_ORIGIN[0] + MAP_SIZE + 22, 14, WIDTH - 14, HEIGHT - 14)


def square_coords(square: str) -> tuple[int, int]:
    """Return (file index, rank index), both 0-7, of a square name like ``"c3"``."""
    if len(square) != 2 or square[0] not in FILES or square[1] not in RANKS:
        raise ValueError(f"{square!r} is not a square (a1 to h8).")
    return FILES.index(square[0]), RANKS.index(square[1])


def map_cell_box(square: str) -> tuple[int, int, int, int]:
    """Pixel box (left, top, right, bottom) of a square in the top-down map."""
    f, r = square_coords(square)
    x0, y0 = MAP_ORIGIN
    left = x0 + f * MAP_CELL
    top = y0 + (7 - r) * MAP_CELL
    return (left, top, left + MAP_CELL, top + MAP_CELL)


def map_cell_center(square: str) -> tuple[float, float]:
    """Centre of a square in the map: where a knight's marker or the king is drawn."""
    left, top, right, bottom = map_cell_box(square)
    return ((left + right) / 2, (top + bottom) / 2)
